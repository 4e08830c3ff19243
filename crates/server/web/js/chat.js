// The game page's chat, its pure part: the messages kept by id (the socket may bring again one the POST already
// answered), those shown (none of a muted user's), the position each was sent at, and its time as text.

import { takenBack } from "./undo.js";

/** Whether `m` has what a message needs to be shown (anything else from the wire is dropped). */
export function isMessage(m) {
  return (
    Boolean(m) &&
    Number.isInteger(m.id) &&
    typeof m.text === "string" &&
    Boolean(m.user) &&
    typeof m.user === "object"
  );
}

/** Adds `incoming` to `known` (a Map id → message), each id once: a later copy replaces the earlier one.
 * Answers whether a message new to `known` came. */
export function addMessages(known, incoming) {
  let added = false;
  for (const m of incoming ?? []) {
    if (!isMessage(m)) continue;
    if (!known.has(m.id)) added = true;
    known.set(m.id, m);
  }
  return added;
}

/** The messages to show, oldest first (ids grow as the server stores them): none of a user in `muted` (a Set of
 * user ids). */
export function visibleMessages(known, muted) {
  return [...known.values()].filter((m) => !muted?.has(m.user.id)).sort((a, b) => a.id - b.id);
}

/**
 * The plays and passes among the first `actions` actions of `moves` (a state's list, each with its `number`):
 * the position the board showed when a message was sent, as the move list and the review number it. Marks,
 * accepts, requests to take back a move and the like are actions but no moves, and a move taken back (then or
 * since) is none either: the number is one of the game's positions as its replay has them. Actions beyond the
 * list (a message come before the event of the move) count as moves; without a list, `actions` itself.
 */
export function turnsAt(moves, actions, isTurn) {
  const n = Number(actions);
  if (!Number.isFinite(n) || n <= 0) return 0;
  if (!Array.isArray(moves)) return Math.floor(n);
  const last = moves.reduce((hi, m) => Math.max(hi, Number(m.number) || 0), 0);
  const gone = takenBack(moves);
  const turns = moves.filter((m) => m.number <= n && isTurn(m.move) && !gone.has(m.number)).length;
  return turns + Math.max(0, Math.floor(n) - last);
}

/** A message's time (`at`, ms since 1970) as text in `language`: the time of day, with the date when not the
 * same day as `now`; "" for none. */
export function chatTime(at, language, now = Date.now()) {
  const ms = Number(at);
  if (!at || !Number.isFinite(ms)) return "";
  const when = new Date(ms);
  const today = new Date(now);
  const sameDay =
    when.getFullYear() === today.getFullYear() &&
    when.getMonth() === today.getMonth() &&
    when.getDate() === today.getDate();
  const options = sameDay ? { timeStyle: "short" } : { dateStyle: "short", timeStyle: "short" };
  return new Intl.DateTimeFormat(language, options).format(when);
}
