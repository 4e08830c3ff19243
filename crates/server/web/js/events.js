// The game socket's events carry the state without its move list (so that an event's size does not grow with
// the game): the page keeps the list it has and adds each event's action to it.

/**
 * The full state an event gives, from the `moves` the page already has: the same list when no action was added
 * (a presence change, a join), that list and the event's `action` when one was. `null` when the page's list
 * cannot be brought to the event's (`move_count` says how long it is): the page must then resync.
 */
export function eventState(known, action, state) {
  if (Array.isArray(state.moves)) return state;
  if (!Array.isArray(known) || typeof state.move_count !== "number") return null;
  if (state.move_count === known.length) return { ...state, moves: known };
  if (action && state.move_count === known.length + 1) return { ...state, moves: [...known, action] };
  return null;
}
