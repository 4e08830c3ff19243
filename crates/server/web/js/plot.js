// The rating graph of a player's page as numbers: where each rated game's rating goes in the SVG, and which
// ratings the y axis names. Pure functions; player.js draws.

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

const tenth = (v) => Math.round(v * 10) / 10;

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
  const left = frame.left;
  const right = frame.width - frame.right;
  const top = frame.top;
  const bottom = frame.height - frame.bottom;
  const ratings = rows.map((h) => Number(h[2]));
  const times = rows.map((h) => Number(h[1]));
  const axis = ratingAxis(Math.min(...ratings), Math.max(...ratings));
  const first = times[0];
  const last = times[times.length - 1];
  const byTime = times.every(Number.isFinite) && last > first;
  const xOf = (i) => {
    if (rows.length === 1) return (left + right) / 2;
    const share = byTime ? (times[i] - first) / (last - first) : i / (rows.length - 1);
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
