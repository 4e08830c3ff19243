// The game page's browser notifications, their pure part: when the game now waits for the viewer (the opponent
// moved, asks to take back a move, play or the game ended; the opponent's chat), whether the page may tell them
// (hidden, permission granted, not switched off), the words, and what the #notify control shows.

import { colorOf, formatResult } from "./format.js";

/** The localStorage key of the switch: "on" or "off" (unset: on once permission is granted). */
export const NOTIFY_KEY = "tesuji.notify";

const OTHER = { black: "white", white: "black" };

function isOver(state) {
  return state?.status === "over" || state?.phase === "over";
}

/** Whether the game waits for `viewer` (a colour) in `state`: their move in play, their acceptance while the dead
 * stones are marked. */
export function waitsFor(state, viewer) {
  if (!state || !viewer || isOver(state) || state.status === "open") return false;
  if (state.phase === "playing") return state.to_move === viewer;
  if (state.phase === "marking") return !state.accepted?.[viewer];
  return false;
}

/**
 * What to tell the viewer (`viewer`: their colour; null for a spectator, who is told nothing) of a live event
 * that took the game from `before` to `after` with `action` (null for one without, a join), or null:
 *   {kind: "over", result}          the game ended (not by the viewer's own resignation or acceptance)
 *   {kind: "undo", color}           the opponent asks to take back their move
 *   {kind: "marking"}               play ended, or the marks changed: the viewer's acceptance is awaited
 *   {kind: "start"}                 the table filled and the viewer is to move
 *   {kind: "turn", color, move}     the opponent played `move` (a point or `pass`): the viewer's turn
 *   {kind: "your-turn"}             the viewer's turn for another reason (a take-back accepted, a dispute)
 * `isTurn(move)` tells a play or pass from other actions.
 */
export function notificationFor(before, after, action, viewer, isTurn) {
  if (!viewer || !before || !after) return null;
  const opponent = OTHER[viewer];
  const mine = Boolean(action) && action.color === viewer && action.by !== "server";
  if (!isOver(before) && isOver(after)) {
    // My own loss on time is news to me; my resignation or my acceptance is not.
    if (mine && action.move !== "timeout") return null;
    return { kind: "over", result: after.result ?? null };
  }
  if (after.undo_asked === opponent && before.undo_asked !== opponent) return { kind: "undo", color: opponent };
  if (mine || !waitsFor(after, viewer) || waitsFor(before, viewer)) return null;
  if (before.status === "open") return { kind: "start" };
  if (after.phase === "marking") return { kind: "marking" };
  if (action && action.color === opponent && isTurn(action.move)) {
    return { kind: "turn", color: opponent, move: action.move };
  }
  return { kind: "your-turn" };
}

/** A chat message worth a notification: the opponent's (`players`: the state's seats), to a seated viewer. */
export function chatNotification(message, viewer, players) {
  if (!viewer || !message?.user) return null;
  if (colorOf(players, message.user.id) !== OTHER[viewer]) return null;
  return { kind: "chat", color: OTHER[viewer], text: String(message.text ?? "") };
}

/** Whether a notification may be shown: the page is hidden, the browser allows them, and they are not off. */
export function mayNotify(visibility, permission, setting) {
  return visibility === "hidden" && permission === "granted" && setting !== "off";
}

/** The notification's body: `names` = {black, white} (the players' names), `t` the dictionary. */
export function notificationText(what, names, t) {
  const name = what.color ? (names?.[what.color] ?? t(`color.${what.color}`)) : "";
  switch (what.kind) {
    case "over":
      return what.result ? t("notify.over", { result: formatResult(what.result, t) }) : t("notify.over-none");
    case "undo":
      return t("notify.undo", { name });
    case "marking":
      return t("notify.marking");
    case "start":
      return t("notify.start");
    case "turn":
      return what.move === "pass" ? t("notify.passed", { name }) : t("notify.played", { name, move: what.move });
    case "chat":
      return t("notify.chat", { name, text: what.text });
    default:
      return t("notify.your-turn");
  }
}

/**
 * What the #notify control shows: nothing for a spectator, once the game is over, or where the browser has no
 * notifications (`supported` false); when the browser blocks them, the disabled button and why; when they are
 * on, a sentence saying so and a way to turn them off; else the button, which asks the browser (only when
 * clicked) or, permission already given, just turns them on.
 *   {shown, button: "enabled" | "disabled" | "hidden", status: an i18n key or null, off: whether "Turn off" shows}
 */
export function notifyControl({ supported, permission, setting, seated, over }) {
  if (!supported || !seated || over) return { shown: false, button: "hidden", status: null, off: false };
  if (permission === "denied") return { shown: true, button: "disabled", status: "notify.denied", off: false };
  if (permission === "granted" && setting !== "off") {
    return { shown: true, button: "hidden", status: "notify.on", off: true };
  }
  return { shown: true, button: "enabled", status: null, off: false };
}
