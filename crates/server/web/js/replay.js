// The replay viewer: a stored game (/replay?game=ID) or a local SGF file read by the server, stepped through with
// buttons, a slider, the move list and the arrow keys. A finished game or an opened file may be reviewed by the
// engine (the Analysis card, as on a finished game's page); a file's review's address (/replay?review=ID) shows the
// file and its review again. A visitor not signed in who opens a file finds it again on the way back from the
// login page (kept-file.js).

import { AnalysisCard } from "./analysis-card.js";
import { ApiError, get, getBytes, post } from "./api.js";
import { Board } from "./board.js";
import { parsePoint } from "./coords.js";
import { formatResult, halfPoints } from "./format.js";
import { positions } from "./positions.js";
import { onLanguageChange, t } from "./i18n.js";
import { boot, el, loginHref, scrollWithin, showError } from "./page.js";
import { summarizeSpec } from "./spec.js";
import { digestOf, reviewAddress, reviewId, reviewPosition } from "./upload-review.js";
import { forgetFile, keepFile, keptAddress, keptToken, MAX_KEPT_BYTES, newToken, takeFile } from "./kept-file.js";
import { branches, lines } from "./variations.js";


const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const gameId = /^\d+$/.test(params.get("game") ?? "") ? params.get("game") : null;
// A review's address: its file is fetched from the server (unless a stored game is asked for too).
const linkedReview = gameId ? null : reviewId(params.get("review"));
// The way back from the login page: the file opened before, kept in this tab.
const keptReturn = gameId || linkedReview ? null : keptToken(params.get("opened"));
const session = await boot();

const board = new Board($("board"));
let replay = null; // the server's answer
let all = []; // its lines: the main line, then each variation made whole (variations.js)
let line = 0; // the line shown
let current = 0; // the number of moves shown
// The opened file (not a stored game's record): its bytes, to ask for its review with, and the review's id (the
// digest of the bytes: the server's name for its review, asked for or not); `addressed` once the page's address
// names the review (it exists); `kept` the token it is kept under for the way back from signing in, or null.
let file = null; // {bytes, id, addressed, kept}

/** The sessionStorage of this tab, or null where the browser refuses it. */
function tabStorage() {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}

/** Whether the page shows a stored game that is over (it has a result: the server gives one only then). */
function gameOver() {
  return Boolean(gameId && !file && replay?.info?.result);
}

/** Where signing in comes back to: the kept file's way back while no review names it, else this address. */
function returnPath() {
  return file?.kept && !file.addressed ? keptAddress(file.kept) : undefined;
}

/** The header's sign-in link, made to come back to the file too. */
function renderLoginLink() {
  $("login-link")?.setAttribute("href", loginHref(returnPath()));
}

/** The review of the stored game (once over) or of the opened file, in the Analysis card. Its position k is the
 * main line's board after k moves. */
const analysis = new AnalysisCard({
  look: () => (file ? lookReview() : get(`/api/games/${gameId}/review`)),
  ask: () => (file ? askReview() : post(`/api/games/${gameId}/review`, { json: {} })),
  signedIn: () => Boolean(session.user),
  active: () => Boolean(replay && (file || gameOver())),
  next: returnPath,
  position: () => (replay ? reviewPosition(all[line]?.owner, current) : null),
  show: (k) => {
    // On a variation past its branching: back to the main line, which the review follows.
    if (reviewPosition(all[line]?.owner, k) === null) {
      line = 0;
      renderMoves();
    }
    show(k);
  },
  changed: () => {
    renderMoves();
    show(current);
  },
});

/** The review as it stands: none while the server has none of this file (it was never asked for). */
async function lookReview() {
  const looked = file;
  if (!looked?.id) return { status: "none" };
  try {
    const view = await get(`/api/reviews/${looked.id}`);
    address(looked);
    return view;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && !looked.addressed) return { status: "none" };
    throw e;
  }
}

/** Asks for the review of the opened file (signed in); its address becomes the page's. */
async function askReview() {
  const asked = file;
  const view = await post("/api/reviews", { bytes: asked.bytes });
  const id = reviewId(view?.id);
  if (id) {
    asked.id = id;
    address(asked);
  }
  return view;
}

/** Names the review of `reviewed` (the file shown, whose review exists) and the move shown in the page's address,
 * so that a reload or a shared link shows them again; and its file's download link. (An answer about a file
 * opened earlier changes nothing.) */
function address(reviewed) {
  if (!reviewed || reviewed !== file || !file.id) return;
  file.addressed = true;
  if (file.kept) {
    // The review's address brings the file back now: no need to keep it in the tab.
    forgetFile(tabStorage());
    file.kept = null;
    renderLoginLink();
  }
  history.replaceState(null, "", reviewAddress(location.href, file.id, current));
  $("sgf").href = `/api/reviews/${file.id}/sgf`;
  $("sgf").hidden = false;
}

function moveLabel(move) {
  return move === "pass" ? t("move.pass") : move;
}

function show(k) {
  if (!replay) return;
  const shown = all[line];
  const last = shown.boards.length - 1;
  current = Math.max(0, Math.min(last, k));
  const move = current > 0 ? shown.moves[current - 1] : null;
  // The count of a game that ended by passes (on its main line): its dead stones marked on the last position.
  const counted = line === 0 && current === last && replay.count ? replay.count : null;
  board.render({
    rows: shown.boards[current],
    lastMove: move && parsePoint(move, replay.width, replay.height) ? move : null,
    dead: new Set(counted?.dead ?? []),
    ...analysis.marks(replay.width, replay.height),
  });
  renderCount(counted);
  renderComment();
  renderBranches();
  const slider = $("slider");
  slider.max = String(last);
  slider.value = String(current);
  $("move-number").textContent =
    current === 0
      ? t("replay.start", { n: last })
      : t("replay.move", { k: current, n: last, move: moveLabel(move) });
  $("move-number").dataset.move = String(current);
  $("first").disabled = $("prev").disabled = current === 0;
  $("next").disabled = $("last").disabled = current === last;
  for (const li of $("moves").children) li.classList.toggle("current", Number(li.dataset.number) === current);
  const currentItem = $("moves").querySelector("li.current");
  if (currentItem) scrollWithin($("moves"), currentItem);
  // Keep the position in the address, so that a reload or a shared link shows the same move.
  const url = new URL(location.href);
  if (gameId && !file) {
    url.searchParams.set("move", String(current));
    history.replaceState(null, "", url);
  }
  if (file?.addressed) address(file);
  analysis.render();
}

/** The record's comments written after the move shown. */
function renderComment() {
  const box = $("comment");
  const texts = all[line].comments.filter((c) => c.move === current).map((c) => c.text);
  box.hidden = texts.length === 0;
  box.replaceChildren(...texts.map((text) => el("p", {}, text)));
  box.dataset.move = String(current);
}

/** Where the record branches after the move shown: a button per way on, the one shown pressed. */
function renderBranches() {
  const ways = branches(all, line, current);
  const box = $("branches");
  box.hidden = ways.length < 2;
  box.dataset.move = String(current);
  $("branch-buttons").replaceChildren(
    ...(ways.length < 2 ? [] : ways).map((way) =>
      el(
        "button",
        {
          type: "button",
          class: way.line === line ? "small" : "small secondary",
          "aria-pressed": String(way.line === line),
          "data-line": way.line,
          onclick: () => {
            line = way.line;
            renderMoves();
            show(current + 1);
          },
        },
        way.owner === 0
          ? t("replay.main-line", { move: moveLabel(way.move) })
          : t("replay.variation", { k: way.owner, move: moveLabel(way.move) }),
      ),
    ),
  );
}

function renderCount(count) {
  const box = $("count");
  box.hidden = !count;
  if (!count) return;
  const margin = Number(count.margin ?? 0);
  const result = margin > 0 ? `B+${halfPoints(margin)}` : margin < 0 ? `W+${halfPoints(-margin)}` : t("game.proposal-even");
  box.textContent = t("replay.count", {
    black: halfPoints(count.black ?? 0),
    white: halfPoints(count.white ?? 0),
    result,
    dead: (count.dead ?? []).length,
  });
  box.dataset.margin = String(margin);
}

/** A fact of the record's, in its row of the list, hidden when the record does not say it. */
function infoRow(id, text) {
  const dd = $(id);
  dd.hidden = dd.previousElementSibling.hidden = !text;
  dd.textContent = text ?? "";
}

/** The colour of each move: as the server says (`colors`), else the stone on its point afterwards, else (passes)
 * the other colour than the move before. */
function moveColors(r) {
  if (Array.isArray(r.colors) && r.colors.length === r.moves.length) return r.colors;
  let previous = "white";
  return r.moves.map((move, i) => {
    const at = parsePoint(move, r.width, r.height);
    const ch = at ? (r.boards[i + 1]?.[at.row] ?? "")[at.col] : undefined;
    const color = ch === "X" ? "black" : ch === "O" ? "white" : previous === "black" ? "white" : "black";
    previous = color;
    return color;
  });
}

function renderInfo() {
  if (!replay) return;
  const info = replay.info ?? {};
  $("game-info").hidden = false;
  const withRank = (name, rank) => `${name || t("replay.unknown")}${rank ? ` (${rank})` : ""}`;
  $("info-black").textContent = withRank(info.black, info.black_rank);
  $("info-white").textContent = withRank(info.white, info.white_rank);
  infoRow("info-date", info.date);
  infoRow("info-event", [info.event, info.round].filter(Boolean).join(", "));
  infoRow("info-place", info.place);
  $("info-comment").hidden = !info.game_comment;
  $("info-comment").textContent = info.game_comment ?? "";
  const shown = replay.rules ? summarizeSpec(replay.rules, t).join(" · ") : t("replay.unknown");
  // A record's rules we do not know (or it does not name) are not passed off as the ones it is counted under.
  $("info-rules").textContent =
    info.rules_note === "unknown"
      ? t("replay.rules-unknown", { ru: info.record_rules ?? "", rules: shown })
      : info.rules_note === "absent"
        ? t("replay.rules-absent", { rules: shown })
        : shown;
  $("info-rules").dataset.note = info.rules_note ?? "";
  $("info-rules").title = replay.rules ?? "";
  // The server gives komi in half-points (11 = 5.5), White's minus Black's.
  $("info-komi").textContent =
    typeof info.komi === "number" ? halfPoints(info.komi) : info.komi ? String(info.komi) : t("replay.unknown");
  $("info-result").textContent = info.result ? `${formatResult(info.result, t)} (${info.result})` : t("replay.unknown");
  renderMoves();
}

/** The moves of the line shown. */
function renderMoves() {
  const shown = all[line];
  const colors = line === 0 ? moveColors(replay) : shown.colors;
  // Where an uploaded record was read generously (its main line): the move concerned says how.
  const notes = new Map(line === 0 ? (replay.notes ?? []).map((n) => [n.move, n.kind]) : []);
  // The moves of the main line the review found costly, with what each cost its player.
  const losses = analysis.losses();
  $("moves").replaceChildren(
    ...shown.moves.map((move, i) => {
      const note = notes.get(i + 1);
      const loss = shown.owner[i] === 0 ? (losses.get(i + 1) ?? null) : null;
      return el(
        "li",
        {
          value: i + 1,
          "data-number": i + 1,
          "data-move": move,
          "data-color": colors[i],
          "data-loss": loss,
          title: loss === null ? null : t("analysis.mistake-mark", { loss }),
        },
        el("span", { class: `dot ${colors[i]}`, "aria-hidden": "true" }),
        el("span", { class: "visually-hidden" }, `${t(`color.${colors[i]}`)} `),
        el("button", { type: "button", class: "link-button", onclick: () => show(i + 1) }, moveLabel(move)),
        note ? el("span", { class: "note", "data-note": note }, ` (${t(`replay.note.${note}`)})`) : null,
      );
    }),
  );
  $("moves-card").hidden = shown.moves.length === 0;
  $("moves").dataset.line = String(line);
}

function load(answer, start = 0) {
  if (!answer || !Array.isArray(answer.start) || answer.start.length === 0) {
    showError($("message"), new ApiError(0, t("replay.empty"), null));
    return;
  }
  replay = { ...answer, moves: answer.moves ?? [] };
  replay.boards = positions(replay);
  const { width, height } = replay;
  all = lines(replay, (start, part) =>
    positions({ width, height, start, moves: part.moves ?? [], colors: part.colors ?? [], removed: part.removed ?? [] }),
  );
  line = 0;
  showError($("message"), null);
  // The card speaks of the game or of the record.
  for (const [id, key] of [
    ["analysis-intro", gameId && !file ? "analysis.intro" : "analysis.intro-record"],
    ["analysis-failed", gameId && !file ? "analysis.failed" : "analysis.failed-record"],
  ]) {
    $(id).dataset.i18n = key;
    $(id).textContent = t(key);
  }
  board.setSize(replay.width, replay.height);
  $("controls").hidden = false;
  renderInfo();
  show(start);
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(current - 1));
$("next").addEventListener("click", () => show(current + 1));
$("last").addEventListener("click", () => show(Infinity));
$("slider").addEventListener("input", () => show(Number($("slider").value)));

document.addEventListener("keydown", (event) => {
  if (!replay || event.altKey || event.ctrlKey || event.metaKey) return;
  const tag = event.target?.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // the slider has its own keys
  const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: Infinity }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
});

$("sgf-file").addEventListener("change", async () => {
  const chosen = $("sgf-file").files?.[0];
  if (!chosen) return;
  if (chosen.size > MAX_KEPT_BYTES) {
    showError($("message"), new ApiError(413, t("replay.too-large"), "too_large"));
    return;
  }
  try {
    await openFile(await chosen.arrayBuffer(), chosen.name);
  } catch (e) {
    showError($("message"), e);
  }
});

/** Shows the file `name` (its `bytes`) as the server reads it. A visitor not signed in keeps it in this tab for
 * the way back from signing in, in place of any file kept before; a signed-in one needs none kept. */
async function openFile(bytes, name) {
  const answer = await post("/api/replay", { bytes });
  // Another record: no review of the last one, and its address gone.
  analysis.reset();
  const id = await digestOf(bytes);
  const token = newToken();
  const kept = !session.user && keepFile(tabStorage(), token, name, bytes);
  if (!kept) forgetFile(tabStorage());
  file = { bytes, id, addressed: false, kept: kept ? token : null };
  history.replaceState(null, "", reviewAddress(location.href, null));
  $("sgf").hidden = $("game-link").hidden = true;
  load(answer);
  document.title = `${name} · tesuji`;
  renderLoginLink();
}

onLanguageChange(() => {
  renderInfo();
  show(current);
  renderLoginLink(); // the header's, made again
});

/** The start a `?move=K` of the address asks for. */
function startMove() {
  const start = Number(params.get("move") ?? 0);
  return Number.isFinite(start) ? start : 0;
}

if (gameId) {
  $("game-link").href = `/game/${gameId}`;
  $("game-link").hidden = false;
  $("sgf").href = `/api/games/${gameId}/sgf`;
  $("sgf").hidden = false;
  document.title = `${t("replay.title")} ${gameId} · tesuji`;
  try {
    load(await get(`/api/games/${gameId}/replay`), startMove());
  } catch (e) {
    showError($("message"), e);
  }
} else if (linkedReview) {
  // A review's address: its file as the server keeps it, read as an opened one.
  document.title = `${t("replay.title")} · tesuji`;
  try {
    const bytes = await getBytes(`/api/reviews/${linkedReview}/sgf`);
    const answer = await post("/api/replay", { bytes });
    file = { bytes, id: linkedReview, addressed: true, kept: null };
    load(answer, startMove());
  } catch (e) {
    showError($("message"), e);
  }
} else if (keptReturn) {
  // Back from the login page: the file kept for it, shown again (and no longer kept), or word that it is gone.
  document.title = `${t("replay.title")} · tesuji`;
  const kept = takeFile(tabStorage(), keptReturn);
  try {
    if (!kept) {
      history.replaceState(null, "", reviewAddress(location.href, null));
      throw new ApiError(0, t("replay.kept-gone"), null);
    }
    await openFile(kept.bytes, kept.name);
  } catch (e) {
    // Not shown (the server refused it, say): kept again, for a reload of this address.
    if (kept && !file) keepFile(tabStorage(), keptReturn, kept.name, kept.bytes);
    showError($("message"), e);
  }
}
