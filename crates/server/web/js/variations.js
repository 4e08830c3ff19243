// A record's lines for the replay page: the main line and each variation made whole (its parent's moves up to
// where it leaves them, then its own), and the branches one may follow from a position. Pure, tested with node.

/**
 * Every line of `replay` (the server's answer: `moves`, `colors`, `removed`, `comments`, `variations`), each
 * `{moves, colors, comments, owner, boards}`: `owner[j]` is the line that move `j + 1` belongs to (0 the main
 * line, k the k-th variation), `boards[j]` the position after `j` moves. `boardsOf(start, part)` gives the
 * positions from `start` through `part`'s moves (`start` first). A variation whose parent is unknown is `null`.
 */
export function lines(replay, boardsOf) {
  const moves = replay.moves ?? [];
  const all = [
    {
      moves,
      colors: replay.colors ?? [],
      comments: replay.comments ?? [],
      owner: moves.map(() => 0),
      boards: boardsOf(replay.start, replay),
    },
  ];
  (replay.variations ?? []).forEach((v, i) => {
    const parent = all[v.parent];
    if (!parent || !(v.at >= 0 && v.at <= parent.moves.length)) {
      all.push(null);
      return;
    }
    const own = boardsOf(parent.boards[v.at], v);
    all.push({
      moves: parent.moves.slice(0, v.at).concat(v.moves ?? []),
      colors: parent.colors.slice(0, v.at).concat(v.colors ?? []),
      comments: parent.comments.slice(0, v.shared_comments ?? 0).concat(v.comments ?? []),
      owner: parent.owner.slice(0, v.at).concat((v.moves ?? []).map(() => i + 1)),
      boards: parent.boards.slice(0, v.at + 1).concat(own.slice(1)),
    });
  });
  return all;
}

/**
 * The ways on after the first `k` moves of line `current`: one per different next move among the lines that
 * share those `k` moves, `{line, owner, move}` (the current line first when it goes on, then in the record's
 * order). One entry (or none) means there is no choice to make.
 */
export function branches(all, current, k) {
  const here = all[current];
  if (!here) return [];
  const shares = (l) => l && l.moves.length > k && here.owner.slice(0, k).every((o, j) => l.owner[j] === o);
  const ways = new Map();
  for (const i of [current, ...all.keys()]) {
    const l = all[i];
    if (shares(l) && !ways.has(l.owner[k])) ways.set(l.owner[k], { line: i, owner: l.owner[k], move: l.moves[k] });
  }
  return [...ways.values()];
}
