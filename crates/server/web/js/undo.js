// Taking back a move, its pure part: how a game's action list (a state's `moves`) reads once moves have been
// taken back. A request (`undo`), its refusal (`undo-decline`) and its acceptance (`undo-accept`) are actions of
// their own in the list; the move an acceptance took back stays in the list but leaves the board, the record and
// the server's replay. So the list is read as the server reads it: every other action is laid on a pile, and an
// `undo-accept` lifts the top one off (the asker's own last turn: any other action lets a request lapse). What
// stays on the pile is the game as the rules have it; its plays and passes are the game's moves, numbered
// 1, 2, ... as the server's replay numbers them. Tested with node.

/** The actions of a request to take back a move, in the list's text. */
export const UNDO_ACTIONS = Object.freeze(["undo", "undo-accept", "undo-decline"]);

/** Whether `move` (an action's text) is a step of a request to take back a move. */
export function isUndoAction(move) {
  return UNDO_ACTIONS.includes(move);
}

/** The actions that stand, in order: the list without the requests and answers and without the actions taken
 * back (the rules' log of the game). */
export function standingActions(moves) {
  const pile = [];
  for (const m of Array.isArray(moves) ? moves : []) {
    if (m?.move === "undo-accept") pile.pop();
    else if (!isUndoAction(m?.move)) pile.push(m);
  }
  return pile;
}

/** The numbers of the actions an `undo-accept` took back (a Set). */
export function takenBack(moves) {
  const stands = new Set(standingActions(moves).map((m) => m.number));
  const gone = new Set();
  for (const m of Array.isArray(moves) ? moves : []) {
    if (m && !isUndoAction(m.move) && !stands.has(m.number)) gone.add(m.number);
  }
  return gone;
}

/** The plays and passes that stand (`isTurn(move)` says which texts are turns), in order: the server's replay. */
export function standingTurns(moves, isTurn) {
  return standingActions(moves).filter((m) => isTurn(m.move));
}

/**
 * How the move list shows each action of `moves`, in the list's order: `{action, kind, turn}` where `kind` is
 * `"turn"` (a play or pass that stands; `turn` its number, 1 for the first), `"taken-back"` (a play or pass an
 * `undo-accept` took back), `"undo"` (a request, an acceptance or a refusal) or `"event"` (a mark, an accept, a
 * resignation...); `turn` is null but for turns that stand.
 */
export function readMoves(moves, isTurn) {
  const gone = takenBack(moves);
  let turn = 0;
  return (Array.isArray(moves) ? moves : []).map((action) => {
    const move = action?.move;
    if (isUndoAction(move)) return { action, kind: "undo", turn: null };
    if (!isTurn(move)) return { action, kind: "event", turn: null };
    if (gone.has(action.number)) return { action, kind: "taken-back", turn: null };
    turn += 1;
    return { action, kind: "turn", turn };
  });
}

/** The number of the plays and passes that stand (the positions a replay steps through, less the start). */
export function countTurns(moves, isTurn) {
  return standingTurns(moves, isTurn).length;
}

/** The turn number of action `number` (as the list numbers it), null when that action is no standing turn. */
export function turnOf(moves, number, isTurn) {
  return readMoves(moves, isTurn).find((r) => r.action?.number === number)?.turn ?? null;
}

/** Whether a replay's moves (`["D4", "pass", ...]`) are the standing turns' up to move `upTo`: else the replay
 * was fetched before a move was taken back, and must be fetched again (as must one not fetched yet). */
export function replayAgrees(replayMoves, moves, isTurn, upTo) {
  const turns = standingTurns(moves, isTurn);
  const n = Math.max(0, Math.min(upTo, turns.length));
  if (!Array.isArray(replayMoves) || replayMoves.length < n) return false;
  for (let k = 0; k < n; k += 1) if (replayMoves[k] !== turns[k].move) return false;
  return true;
}

/**
 * Whether `color` may ask to take back a move in `state` (a GameState): the table allows it, the game is in
 * play, no request waits, the last action that stands is `color`'s own play or pass, and the pause after a
 * refusal (`undo_again_in_ms`, counted from the state's arrival, `elapsed` ms ago) is over.
 */
export function mayAskUndo(state, color, isTurn, elapsed = 0) {
  if (!state || !color || !state.undo || state.undo_asked) return false;
  if (state.status !== "playing" || state.phase !== "playing") return false;
  if (undoPauseLeft(state, elapsed) > 0) return false;
  const last = standingActions(state.moves).at(-1);
  return Boolean(last) && last.color === color && isTurn(last.move);
}

/** How long (ms) the player refused by the game's last action still waits before asking again, `elapsed` ms after
 * the state arrived: 0 when no pause runs. */
export function undoPauseLeft(state, elapsed = 0) {
  const left = Number(state?.undo_again_in_ms ?? 0) - Math.max(0, Number(elapsed) || 0);
  return Number.isFinite(left) && left > 0 ? left : 0;
}

/** The move a waiting request would take back (the last action that stands), or null when none waits. */
export function askedMove(state) {
  if (!state?.undo_asked) return null;
  return standingActions(state.moves).at(-1) ?? null;
}
