// Board coordinates: GTP vertices (columns A–Z without I from the left, rows from 1 at the bottom) and the
// star points. Pure functions, shared by the board and tested with node.

export const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
export const MAX_SIDE = COLUMNS.length; // 25

/** The vertex of column `col` (0 = left) and row `row` (0 = top) on a board `height` rows high. */
export function pointName(col, row, height) {
  return COLUMNS[col] + String(height - row);
}

/** `D4` → {col, row} with row 0 at the top, or null when it is not a point of a width × height board. */
export function parsePoint(name, width, height) {
  const m = /^([A-HJ-Z])(\d{1,2})$/i.exec(String(name).trim());
  if (!m) return null;
  const col = COLUMNS.indexOf(m[1].toUpperCase());
  const number = Number(m[2]);
  if (col < 0 || col >= width || number < 1 || number > height) return null;
  return { col, row: height - number };
}

/** Star-point lines on one side of `n` lines: the third line up to 11, the fourth from 12, the middle on odd sides
 * (on the edges' middles only from 15, as on 19 × 19). */
function starLines(n) {
  if (n < 7) return { corners: [], middle: null };
  const d = n < 12 ? 2 : 3; // 0-based distance from the edge
  const middle = n % 2 === 1 ? (n - 1) / 2 : null;
  return { corners: [d, n - 1 - d], middle };
}

/** The hoshi of a width × height board as {col, row} (row 0 at the top): 5 on 9 × 9 and 13 × 13, 9 on 19 × 19. */
export function starPoints(width, height) {
  const xs = starLines(width);
  const ys = starLines(height);
  const out = [];
  for (const x of xs.corners) for (const y of ys.corners) out.push({ col: x, row: y });
  if (xs.middle !== null && ys.middle !== null) {
    out.push({ col: xs.middle, row: ys.middle });
    // The edges' middles only on large boards, where they are far enough from the corners.
    if (width >= 15 && height >= 15) {
      for (const y of ys.corners) out.push({ col: xs.middle, row: y });
      for (const x of xs.corners) out.push({ col: x, row: ys.middle });
    }
  }
  return out;
}
