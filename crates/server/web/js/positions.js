// The boards of a replay, rebuilt from the server's answer: its start, then each move's stone and the stones the
// server says it took off. The page places and lifts stones as told; the rules (captures, suicide) stay the
// server's. Pure, tested with node.

import { parsePoint } from "./coords.js";

/** Rows from the top (`.`, `X`, `O`) after each move of `replay` (`{width, height, start, moves, colors,
 * removed}`); `[0]` is the start. A move that names no point of the board (a pass) changes nothing but what
 * it removed. */
export function positions({ width, height, start, moves = [], colors = [], removed = [] }) {
  let cells = start.map((row) => Array.from(row));
  const boards = [start.slice()];
  moves.forEach((move, k) => {
    cells = cells.map((row) => row.slice());
    const at = parsePoint(move, width, height);
    if (at) cells[at.row][at.col] = colors[k] === "white" ? "O" : "X";
    for (const name of removed[k] ?? []) {
      const gone = parsePoint(name, width, height);
      if (gone) cells[gone.row][gone.col] = ".";
    }
    boards.push(cells.map((row) => row.join("")));
  });
  return boards;
}
