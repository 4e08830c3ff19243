// Graphs as numbers: where each point goes in an SVG frame, and what the axes name. The rating graph of a
// player's page (player.js draws it) and the shared pieces of the game page's win-rate graph (analysis.js places
// it, analysis-card.js draws it). Pure functions.

/** The graph's viewBox and the plot area inside it: the margins hold the axis labels. */
export const FRAME = { width: 400, height: 180, left: 76, right: 12, top: 10, bottom: 26 };

/** The least span of ratings the y axis shows: a flat history is not blown up into noise, and one game's rating
 * has room above and below. */
export const MIN_SPAN = 200;

/** Tick steps in rating points, smallest first: multiples of 100 fall on rank boundaries. */
const STEPS = [100, 200, 500, 1000];

/**
 * The y axis for ratings from `lo` to `hi`: the range widened to at least MIN_SPAN around its middle, then out to
 * whole steps, and the ticks at every step (at most `most`). Answers {lo, hi, step, ticks}, lo < hi.
 */
export function ratingAxis(lo, hi, most = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) lo = hi = 1500;
  if (hi < lo) [lo, hi] = [hi, lo];
  const widen = Math.max(0, MIN_SPAN - (hi - lo)) / 2;
  lo -= widen;
  hi += widen;
  const fits = (s) => Math.ceil(hi / s) - Math.floor(lo / s) + 1 <= Math.max(2, most);
  let step = STEPS.find(fits);
  if (!step) for (step = STEPS[STEPS.length - 1] * 2; !fits(step); step *= 2);
  const from = Math.floor(lo / step) * step;
  const to = Math.ceil(hi / step) * step;
  const ticks = [];
  for (let v = from; v <= to; v += step) ticks.push(v);
  return { lo: from, hi: to, step, ticks };
}

/** Rounds to a tenth of a unit: enough for a viewBox, and short in the markup. */
export const tenth = (v) => Math.round(v * 10) / 10;

/** The plot area of `frame` (its viewBox less the margins): {left, right, top, bottom}. */
export function plotArea(frame) {
  return {
    left: frame.left,
    right: frame.width - frame.right,
    top: frame.top,
    bottom: frame.height - frame.bottom,
  };
}

/** Where item `i` of `n` stands when they are spread evenly across the plot: the first at the left edge, the last
 * at the right, a single one in the middle. */
export function spreadX(i, n, frame) {
  const { left, right } = plotArea(frame);
  if (n <= 1) return (left + right) / 2;
  return left + ((right - left) * Math.min(n - 1, Math.max(0, i))) / (n - 1);
}

/** The item of `n` spread evenly (as [spreadX]) nearest to `x`: a click or a drag on the graph to a point. */
export function nearestIndex(x, n, frame) {
  if (n <= 1 || !Number.isFinite(x)) return 0;
  const { left, right } = plotArea(frame);
  const share = (x - left) / (right - left);
  return Math.min(n - 1, Math.max(0, Math.round(share * (n - 1))));
}

/** An SVG path through `points` ({x, y}, in order): a null one breaks the line (a gap), as do points on either
 * side of it. "" when nothing is drawn. */
export function pathThrough(points) {
  let d = "";
  let open = false;
  for (const p of points) {
    if (!p || !Number.isFinite(p.x) || !Number.isFinite(p.y)) {
      open = false;
      continue;
    }
    d += `${open ? "L" : "M"}${tenth(p.x)} ${tenth(p.y)}`;
    open = true;
  }
  return d;
}

/** The first of `steps` (ascending) that is at least `value`; past the last, the last doubled until it is. */
export function niceCeil(value, steps) {
  const v = Math.abs(Number(value)) || 0;
  const found = steps.find((s) => s >= v);
  if (found !== undefined) return found;
  let s = steps[steps.length - 1];
  while (s < v) s *= 2;
  return s;
}

/**
 * A rating history (`[[game, at, rating], ...]`, oldest first) placed in `frame`: x by time (the first game at
 * the left edge of the plot, the last at the right; by order when the times do not spread, one game in the
 * middle), y by rating with higher ratings higher up. Answers {points: [{x, y, game, at, rating}], line (the
 * polyline's `points`), ticks: [{rating, y}], dates: [{at, x, anchor}] (the first and last game's), axis};
 * empty lists for an empty history.
 */
export function plotHistory(history, frame = FRAME) {
  const rows = (Array.isArray(history) ? history : []).filter(
    (h) => Array.isArray(h) && h[2] !== null && Number.isFinite(Number(h[2])),
  );
  if (!rows.length) return { points: [], line: "", ticks: [], dates: [], axis: null };
  const { left, right, top, bottom } = plotArea(frame);
  const ratings = rows.map((h) => Number(h[2]));
  const times = rows.map((h) => Number(h[1]));
  const axis = ratingAxis(Math.min(...ratings), Math.max(...ratings));
  const first = times[0];
  const last = times[times.length - 1];
  const byTime = times.every(Number.isFinite) && last > first;
  const xOf = (i) => {
    if (!byTime) return spreadX(i, rows.length, frame);
    const share = (times[i] - first) / (last - first);
    return left + (right - left) * Math.min(1, Math.max(0, share));
  };
  const yOf = (rating) => bottom - ((bottom - top) * (rating - axis.lo)) / (axis.hi - axis.lo);
  const points = rows.map((h, i) => ({
    x: tenth(xOf(i)),
    y: tenth(yOf(ratings[i])),
    game: h[0],
    at: times[i],
    rating: ratings[i],
  }));
  const dates = !Number.isFinite(first)
    ? []
    : byTime
      ? [
          { at: first, x: left, anchor: "start" },
          { at: last, x: right, anchor: "end" },
        ]
      : [{ at: first, x: tenth((left + right) / 2), anchor: "middle" }];
  return {
    points,
    line: points.map((p) => `${p.x},${p.y}`).join(" "),
    ticks: axis.ticks.map((rating) => ({ rating, y: tenth(yOf(rating)) })),
    dates,
    axis,
  };
}
