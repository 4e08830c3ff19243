// The archive: finished games, the most recently ended first, a page at a time.

import { get } from "./api.js";
import { formatDate, formatResult, moveCount } from "./format.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { boot, el, moreButton, playerNode, showError } from "./page.js";
import { summarizeSpec } from "./spec.js";

const $ = (id) => document.getElementById(id);
await boot();

let data = null; // {games, next}

function row(game) {
  return el(
    "tr",
    { "data-game-id": game.id, "data-status": game.status },
    el("td", { "data-label": t("archive.ended") }, formatDate(game.ended ?? game.created, currentLanguage())),
    el("td", { "data-label": t("archive.black") }, playerNode(game.players?.black)),
    el("td", { "data-label": t("archive.white") }, playerNode(game.players?.white)),
    el("td", { "data-label": t("player.rules"), title: game.rules }, summarizeSpec(game.rules, t).join(" · ")),
    el(
      "td",
      { "data-label": t("player.result"), "data-result": game.result ?? "" },
      game.result ? el("span", { title: formatResult(game.result, t) }, game.result) : t("result.none"),
    ),
    el("td", { class: "num", "data-label": t("player.moves") }, String(moveCount(game.moves))),
    el(
      "td",
      {},
      el("div", { class: "button-row" },
        el("a", { class: "button small secondary", href: `/game/${game.id}` }, t("player.open")),
        el("a", { class: "button small secondary", href: `/replay?game=${game.id}` }, t("game.replay")),
      ),
    ),
  );
}

function render() {
  if (!data) return;
  document.title = `${t("archive.title")} · tesuji`;
  $("games").tBodies[0].replaceChildren(...data.games.map(row));
  $("no-games").hidden = data.games.length > 0;
  $("more-games").hidden = !data.next;
}

// "More games" asks for the page that follows the last game shown.
moreButton(
  $("more-games"),
  () => data?.next,
  (start) => `/api/archive?before=${start}`,
  (page) => {
    data.games.push(...(page.games ?? []));
    data.next = page.next ?? null;
    render();
  },
  $("message"),
);

onLanguageChange(render);

try {
  data = await get("/api/archive");
  data.games ??= [];
  render();
} catch (e) {
  showError($("message"), e);
}
