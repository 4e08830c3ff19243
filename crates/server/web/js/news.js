// The lobby's "Since you last looked", its pure part: the answer of GET /api/news read (what the others did in my
// games, by game), what "Mark as read" says was read, the actions as words, and how often the list is fetched.

/** The lobby fetches the news at most this often (its socket says when something changed, not what). */
export const NEWS_GAP_MS = 5000;

import { formatResult, parseResult } from "./format.js";

const WORDS = ["pass", "resign", "accept", "dispute", "claim", "timeout"];
const UNDO = ["undo", "undo-accept", "undo-decline"];

/** The games of an answer, each with its actions that can be shown (anything else from the wire is dropped). */
export function newsGames(answer) {
  const games = Array.isArray(answer?.games) ? answer.games : [];
  return games
    .filter((g) => g && Number.isInteger(g.game))
    .map((g) => {
      const actions = (Array.isArray(g.actions) ? g.actions : []).filter(
        (a) => a && Number.isFinite(a.at) && typeof a.move === "string",
      );
      return { ...g, actions, count: Math.max(Number(g.count) || 0, actions.length) };
    })
    .filter((g) => g.actions.length > 0);
}

/** The time (ms) of the newest action shown, which "Mark as read" sends: what came after it stays news. Null
 * when nothing is shown. */
export function newestAt(games) {
  let newest = null;
  for (const g of games ?? []) for (const a of g.actions) if (newest === null || a.at > newest) newest = a.at;
  return newest;
}

/** The games without the actions at or before `since` (read already: an answer fetched before "Mark as read"
 * came back), their counts lowered to match; those left with none are gone. */
export function afterSeen(games, since) {
  if (!Number.isFinite(since)) return games;
  return games
    .map((g) => {
      const actions = g.actions.filter((a) => a.at > since);
      return { ...g, actions, count: g.count - (g.actions.length - actions.length) };
    })
    .filter((g) => g.actions.length > 0);
}

/** An action as words: a point as it is, `pass` and the like, a take-back's request or answer (naming its
 * colour), a dead-stone proposal (the server's said so). */
export function actionLabel(action, t) {
  const text = String(action?.move ?? "");
  if (WORDS.includes(text)) return t(`move.${text}`);
  if (UNDO.includes(text)) {
    const color = action.color === "black" || action.color === "white" ? t(`color.${action.color}`) : "";
    return t(`move.${text}`, { color });
  }
  if (text === "mark" || text.startsWith("mark ")) {
    const points = text.slice(4).trim();
    if (action.color === "server") return points ? t("move.server-mark", { points }) : t("move.server-mark-none");
    return points ? t("move.mark", { points }) : t("move.mark-none");
  }
  return text;
}

/** A finished game's result told from the reader's side (`game.you`: their colour): "You won by resignation",
 * "You lost on time"; as the record says it (Black's or White's win) when they did not play or nobody won. */
export function newsResult(game, t) {
  if (!game?.result) return t("result.none");
  const r = parseResult(game.result);
  const you = game.you === "black" || game.you === "white" ? game.you : null;
  if (!you || !r.winner || r.kind === "unknown") return formatResult(game.result, t);
  const side = r.winner === you ? "won" : "lost";
  return t(`result.you-${side}.${r.kind}`, { margin: r.margin ?? "" });
}

/** The words before a game's actions: "3 new:", or "12 new, the last 10:" when not all are shown. */
export function countLabel(game, t) {
  const shown = game.actions.length;
  return game.count > shown ? t("news.more", { n: game.count, shown }) : t("news.count", { n: game.count });
}

/** How long to wait before fetching the news again, the last fetch at `last` (ms), `now`, at most one per `gap`:
 * 0 for now. */
export function refreshDelay(last, now, gap = NEWS_GAP_MS) {
  if (!Number.isFinite(last)) return 0;
  return Math.max(0, last + gap - now);
}
