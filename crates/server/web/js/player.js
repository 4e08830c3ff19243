// A player's page: an account's rating (rank, the graph of its history, the record by board size and colour), the
// games not over yet, then every game, newest first, with the opponent, rules, result and links to the game and
// replay. On one's own page, the vacation card: the days left this year, the vacation in progress and the way back,
// or the days to take.

import { ApiError, get, post } from "./api.js";
import { colorOf, formatDate, formatRank, formatResult, moveCount, parseResult, rankOf } from "./format.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { boot, el, moreButton, playerName, playerNode, showError, svgEl } from "./page.js";
import { idFromPath } from "./paths.js";
import { FRAME, plotHistory } from "./plot.js";
import { summarizeSpec } from "./spec.js";
import { readDays, vacationCard } from "./vacation.js";

const $ = (id) => document.getElementById(id);
const userId = idFromPath("player", location.pathname);
const session = await boot();
/** Whether this is the signed-in user's own page: only then is there a vacation card. */
const ownPage = Boolean(userId && session.user && String(session.user.id) === userId);
// An account's settings are one link away from its own page (a guest has none).
document.getElementById("account-link").hidden = !ownPage || Boolean(session.user?.guest);

let data = null; // {user, rating, rating_history, record, current, games, next}

/** Win, loss or draw for this player, or the game's status while it is not over. */
function outcome(game, color) {
  if (game.status !== "over") return el("span", { class: "muted" }, t(`status.${game.status}`));
  const r = parseResult(game.result);
  let key = null;
  if (r.kind === "draw") key = "player.draw";
  else if (r.winner && color) key = r.winner === color ? "player.win" : "player.loss";
  return el(
    "span",
    { "data-result": game.result ?? "" },
    key ? el("strong", {}, `${t(key)} `) : null,
    game.result ? el("span", { title: formatResult(game.result, t) }, game.result) : t("result.none"),
  );
}

function row(game) {
  const color = colorOf(game.players, data.user.id);
  const other = color === "black" ? "white" : "black";
  return el(
    "tr",
    { "data-game-id": game.id, "data-status": game.status },
    el("td", { "data-label": t("player.date") }, formatDate(game.created, currentLanguage())),
    el(
      "td",
      { "data-label": t("player.color") },
      color ? el("span", {}, el("span", { class: `dot ${color}`, "aria-hidden": "true" }), t(`color.${color}`)) : "",
    ),
    el("td", { "data-label": t("player.opponent") }, playerNode(color ? game.players?.[other] : null)),
    el("td", { "data-label": t("player.rules"), title: game.rules }, summarizeSpec(game.rules, t).join(" · ")),
    el("td", { "data-label": t("player.result") }, outcome(game, color)),
    el("td", { class: "num", "data-label": t("player.moves") }, String(moveCount(game.moves))),
    el(
      "td",
      {},
      el("div", { class: "button-row" },
        el("a", { class: "button small secondary", href: `/game/${game.id}` }, t("player.open")),
        game.status === "over"
          ? el("a", { class: "button small secondary", href: `/replay?game=${game.id}` }, t("game.replay"))
          : null,
      ),
    ),
  );
}

function day(seconds) {
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium" }).format(new Date(seconds * 1000));
}

/** The rating after each rated game: a line over time, the y axis in rating points and the ranks they begin. */
function renderGraph(history) {
  const svg = $("rating-graph");
  const plot = plotHistory(history);
  const empty = plot.points.length === 0;
  // An <svg> has no `hidden` property: the attribute does it (the stylesheet's [hidden] rule).
  svg.toggleAttribute("hidden", empty);
  $("no-rated").hidden = !empty;
  if (empty) {
    svg.replaceChildren();
    return;
  }
  const { width, height, left, right } = FRAME;
  const first = plot.points[0];
  const last = plot.points.at(-1);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren(
    svgEl(
      "title",
      { id: "rating-graph-title" },
      t("player.graph", { n: plot.points.length, first: Math.round(first.rating), last: Math.round(last.rating) }),
    ),
    svgEl(
      "g",
      { class: "ticks", "aria-hidden": "true" },
      ...plot.ticks.flatMap((tick) => [
        svgEl("line", { x1: left, x2: width - right, y1: tick.y, y2: tick.y }),
        svgEl("text", { x: left - 6, y: tick.y }, `${tick.rating} ${formatRank(rankOf(tick.rating), t)}`),
      ]),
    ),
    svgEl(
      "g",
      { class: "dates", "aria-hidden": "true" },
      ...plot.dates.map((d) => svgEl("text", { x: d.x, y: height - 6, "text-anchor": d.anchor }, day(d.at))),
    ),
    svgEl("polyline", { class: "line", points: plot.line }),
    // Each game a dot whose tooltip names its rating and date (no links: the graph is one image, not 200 stops
    // for the Tab key; the tables link to the games).
    svgEl(
      "g",
      { class: "dots" },
      ...plot.points.map((p) =>
        svgEl(
          "circle",
          { cx: p.x, cy: p.y, r: 3, "data-game-id": p.game },
          svgEl("title", {}, t("player.graph-point", { rating: Math.round(p.rating), date: day(p.at) })),
        ),
      ),
    ),
  );
}

function recordRow(r) {
  return el(
    "tr",
    { "data-size": r.size, "data-color": r.color },
    el("td", {}, r.size),
    el("td", {}, el("span", { class: `dot ${r.color}`, "aria-hidden": "true" }), t(`color.${r.color}`)),
    el("td", { class: "num" }, String(r.wins ?? 0)),
    el("td", { class: "num" }, String(r.losses ?? 0)),
    el("td", { class: "num" }, String(r.draws ?? 0)),
  );
}

function renderRating() {
  const r = data.rating;
  // Guests are not rated: no card.
  $("rating").hidden = !r || Boolean(data.user?.guest);
  if ($("rating").hidden) return;
  $("rating").dataset.rank = r.rank ?? "";
  $("rating").dataset.rating = String(Math.round(r.rating));
  $("rating-now").replaceChildren(
    el("strong", { class: "rank-now", "data-rank": r.rank ?? "" }, formatRank(r.rank, t)),
    " ",
    t("player.rating-value", { rating: Math.round(r.rating), deviation: Math.round(r.deviation) }),
  );
  if (r.provisional) $("rating-now").append(el("span", { class: "muted" }, ` · ${t("player.provisional")}`));
  renderGraph(data.rating_history);
  const record = data.record ?? [];
  $("record-box").hidden = record.length === 0;
  $("record").tBodies[0].replaceChildren(...record.map(recordRow));
}

function render() {
  if (!data) return;
  $("player-name").textContent = playerName(data.user);
  document.title = `${playerName(data.user)} · tesuji`;
  renderRating();
  const current = data.current ?? [];
  $("current-box").hidden = current.length === 0;
  $("current").tBodies[0].replaceChildren(...current.map(row));
  $("games").tBodies[0].replaceChildren(...data.games.map(row));
  $("no-games").hidden = data.games.length > 0;
  $("more-games").hidden = !data.next;
}

// The listing comes a page at a time, newest first; "More games" asks for the page before the last one shown.
moreButton(
  $("more-games"),
  () => data?.next,
  (start) => `/api/users/${userId}/games?before=${start}`,
  (page) => {
    data.games.push(...(page.games ?? []));
    data.next = page.next ?? null;
    render();
  },
  $("message"),
);

// ---- the vacation card (one's own page) ----

let vacation = null; // the answer of GET /api/vacation, once read
let vacationBusy = false; // a POST under way: the controls wait for its answer
let vacationTimer = null; // looks again when the vacation in progress ends
let signedOut = false; // the session ended (in another tab): no card

function renderVacation() {
  const card = $("vacation");
  // Shown once read, or to say why it could not be.
  card.hidden = !ownPage || signedOut || (!vacation && $("vacation-error").hidden);
  const v = vacation ? vacationCard(vacation) : null;
  card.dataset.away = String(Boolean(v?.away));
  card.dataset.leftDays = v ? String(v.left) : "";
  // "30 days a year; 26 left in 2026", and the hours beyond the whole days (a vacation ended early gives back
  // its unused time, rarely whole days; a vacation lasts whole days).
  const allowance = $("vacation-allowance");
  allowance.hidden = !v;
  allowance.replaceChildren();
  if (v) {
    allowance.append(t("vacation.allowance", { allowance: v.allowance, left: v.left, year: v.year ?? "" }));
    const hours = Math.floor(v.extraMs / 3_600_000);
    if (hours > 0) allowance.append(" ", el("span", { class: "muted" }, t("vacation.extra", { hours })));
  }
  const away = Boolean(v?.away);
  $("vacation-current").hidden = !away;
  const until = $("vacation-until");
  until.textContent = away ? t("vacation.until", { until: formatDate(v.until / 1000, currentLanguage()) }) : "";
  until.dataset.until = away ? String(v.until) : "";
  $("vacation-end").disabled = vacationBusy;
  $("vacation-form").hidden = !v || away;
  const max = v?.max ?? 0;
  const input = $("vacation-days");
  input.max = String(Math.max(1, max));
  input.disabled = max === 0 || vacationBusy;
  // The number typed stays through a new answer (and a vacation: the form is hidden meanwhile) while it can
  // still be taken; else the one offered; none when no day is left.
  if (v && !away) {
    if (max === 0) input.value = "";
    else if (readDays(input.value, max) === null) input.value = String(v.days);
  }
  $("vacation-take").disabled = max === 0 || vacationBusy;
  const none = Boolean(v) && !away && max === 0;
  $("vacation-none-left").hidden = !none;
  $("vacation-none-left").textContent = none ? t("vacation.none-left", { year: v.year ?? "" }) : "";
  // Left open past the vacation's end, the page looks again then (a timer waits 24 days at most).
  clearTimeout(vacationTimer);
  vacationTimer = null;
  const wait = away ? v.until - Date.now() : -1;
  if (wait > 0) vacationTimer = setTimeout(loadVacation, Math.min(wait + 1000, 2 ** 31 - 1));
}

async function loadVacation() {
  try {
    vacation = await get("/api/vacation");
    showError($("vacation-error"), null);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) signedOut = true;
    else showError($("vacation-error"), e);
  }
  renderVacation();
}

/** POSTs a change (take or end) and shows the answer's view, or the server's refusal in the card. */
async function changeVacation(path, json) {
  if (vacationBusy) return;
  vacationBusy = true;
  showError($("vacation-error"), null);
  renderVacation();
  try {
    vacation = await post(path, { json });
  } catch (e) {
    showError($("vacation-error"), e);
    // The refusal may come from a view that is out of date (taken or ended in another tab): read it again.
    if (e instanceof ApiError && ["on_vacation", "not_on_vacation", "vacation_too_long"].includes(e.reason)) {
      try {
        vacation = await get("/api/vacation");
      } catch {
        // the view shown stays
      }
    }
  } finally {
    vacationBusy = false;
    renderVacation();
  }
}

$("vacation-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const v = vacationCard(vacation);
  const days = readDays($("vacation-days").value, v.max);
  if (days === null) {
    showError($("vacation-error"), new ApiError(400, t("vacation.bad-days", { max: v.max }), "bad_days"));
    $("vacation-days").focus();
    return;
  }
  changeVacation("/api/vacation", { days });
});

$("vacation-end").addEventListener("click", () => changeVacation("/api/vacation/end", {}));

onLanguageChange(() => {
  render();
  renderVacation();
});

if (ownPage) loadVacation();

if (!userId) {
  showError($("message"), new ApiError(404, t("player.not-found"), "not_found"));
} else {
  try {
    data = await get(`/api/users/${userId}/games`);
    data.games ??= [];
    render();
  } catch (e) {
    showError($("message"), e);
  }
}
