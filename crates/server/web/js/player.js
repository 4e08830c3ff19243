// A player's page: their games, newest first, with the opponent, rules, result and links to the game and replay.

import { ApiError, get } from "./api.js";
import { colorOf, formatDate, formatResult, moveCount, parseResult } from "./format.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { boot, el, moreButton, playerName, playerNode, showError } from "./page.js";
import { idFromPath } from "./paths.js";
import { summarizeSpec } from "./spec.js";

const $ = (id) => document.getElementById(id);
const userId = idFromPath("player", location.pathname);
await boot();

let data = null; // {user, games}

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

function render() {
  if (!data) return;
  $("player-name").textContent = playerName(data.user);
  document.title = `${playerName(data.user)} · tesuji`;
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

onLanguageChange(render);

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
