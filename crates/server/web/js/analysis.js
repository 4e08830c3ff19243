// A finished game's review by the server's search (`GET /api/games/{id}/review`, docs/API.md), its pure part: the
// answer read, the progress in words, the win-rate graph's coordinates, the positions mapped to the game page's
// moves, the ownership as shades on the board, and the mistakes in words. analysis-card.js asks, polls and draws
// (for the game and replay pages). Tested with node.

import { pointName } from "./coords.js";
import { nearestIndex, niceCeil, pathThrough, plotArea, spreadX, tenth } from "./plot.js";

/** How often a review asked for and not done yet is looked at again. */
export const POLL_MS = 1000;

/** The states of a review, as the server names them. */
export const REVIEW_STATES = Object.freeze(["none", "queued", "running", "done", "failed"]);

/** The win-rate graph's viewBox and plot area: the left margin holds the win rates, the right one the leads, the
 * bottom one the move numbers. About the width of the game page's side column, so that its text is the page's. */
export const GRAPH = Object.freeze({ width: 320, height: 150, left: 32, right: 38, top: 8, bottom: 19 });

/** The leads the score axis may reach (points), smallest first: the largest lead of the game, rounded up. */
const LEAD_STEPS = [5, 10, 20, 30, 50, 80, 100, 150, 200];

/** Move-number tick steps, smallest first: the first that names at most 6 ticks. */
const MOVE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100];

/** Ownership (hundredths) at or under this is no one's: not shaded. */
export const SHADE_FROM = 15;

const finite = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const vertex = (v) => (typeof v === "string" && v.trim() ? v.trim() : null);

/** One position of the results as the page uses it: {turn, toMove, searched, winrate (Black's, 0–1), score
 * (Black's lead), best (a vertex, "pass" or null), pv [vertices], playouts, ownership [ints] or null}. A position
 * searched without a win rate is taken as not searched; `k` is its turn when the answer gives none. */
export function readPosition(p, k) {
  const winrate = finite(p?.winrate);
  const searched = p?.searched !== false && winrate !== null;
  return {
    turn: Number.isInteger(p?.turn) ? p.turn : k,
    toMove: p?.to_move === "white" ? "white" : "black",
    searched,
    winrate: searched ? Math.min(1, Math.max(0, winrate)) : null,
    score: searched ? finite(p?.score) : null,
    best: searched ? vertex(p?.best) : null,
    pv: searched && Array.isArray(p?.pv) ? p.pv.map(vertex).filter(Boolean) : [],
    playouts: finite(p?.playouts) ?? 0,
    ownership: searched && Array.isArray(p?.ownership) ? p.ownership.map((o) => finite(o) ?? 0) : null,
  };
}

function readMistake(m) {
  const number = Number(m?.number);
  if (!Number.isInteger(number) || number < 1) return null;
  return {
    number,
    color: m?.color === "white" ? "white" : "black",
    move: vertex(m?.move) ?? "pass",
    loss: Math.max(0, finite(m?.loss) ?? 0),
    better: vertex(m?.better),
  };
}

/**
 * The server's answer read: {status, done, total, playouts, positions, mistakes}, `positions` and `mistakes`
 * empty until done (and for an answer that says done without results, read as failed). A status the page does
 * not know is read as none.
 */
export function readReview(view) {
  let status = REVIEW_STATES.includes(view?.status) ? view.status : "none";
  const results = view?.results && typeof view.results === "object" ? view.results : null;
  const positions = Array.isArray(results?.positions) ? results.positions.map(readPosition) : [];
  const mistakes = Array.isArray(results?.mistakes) ? results.mistakes.map(readMistake).filter(Boolean) : [];
  if (status === "done" && positions.length === 0) status = "failed";
  const count = (v) => Math.max(0, Math.trunc(finite(v) ?? 0));
  return {
    status,
    done: count(view?.done),
    total: count(view?.total),
    playouts: count(view?.playouts),
    positions: status === "done" ? positions : [],
    mistakes: status === "done" ? mistakes : [],
  };
}

/** Whether a review is still to come (asked, not finished): the page looks again after [`pollDelay`]. */
export function isPending(status) {
  return status === "queued" || status === "running";
}

/** How long to wait before looking again, after `failures` looks in a row that failed: every second, then less
 * often while the server cannot be reached (at most every 10 s). */
export function pollDelay(failures = 0) {
  const n = Math.max(0, Math.trunc(Number(failures) || 0));
  return Math.min(10, 2 ** Math.min(n, 4)) * POLL_MS;
}

/** Whether a failed look is worth repeating: the server could not be reached, was busy or failed (status 0,
 * 429, 5xx); not when it refused for good (another 4xx: the review or game is gone, the link is wrong). */
export function worthLookingAgain(error) {
  const status = Number(error?.status ?? 0);
  return !(status >= 400 && status < 500 && status !== 429);
}

/** The progress in words and as a share: {text, share (0–1, or null when not known)}; null when nothing is
 * under way. */
export function progress(review, t) {
  if (!review || !isPending(review.status)) return null;
  if (review.status === "queued") return { text: t("analysis.queued"), share: null };
  if (review.total <= 0) return { text: t("analysis.starting"), share: null };
  const done = Math.min(review.done, review.total);
  return { text: t("analysis.running", { done, total: review.total }), share: done / review.total };
}

/** The lead the score axis reaches on each side: the game's largest lead, rounded up to a round number (5 at
 * least, so that a close game's line is not blown up into noise). */
export function leadScale(positions) {
  const leads = (positions ?? []).filter((p) => p.searched && p.score !== null).map((p) => Math.abs(p.score));
  return niceCeil(Math.max(0, ...leads), LEAD_STEPS);
}

/** The moves the x axis names: 0, then every step, at most 6 ticks in all, for positions 0 to `last`. */
export function moveTicks(last) {
  const n = Math.max(0, Math.trunc(Number(last) || 0));
  const step = MOVE_STEPS.find((s) => Math.floor(n / s) + 1 <= 6) ?? niceCeil(n / 5, MOVE_STEPS);
  const ticks = [];
  for (let k = 0; k <= n; k += step) ticks.push(k);
  return ticks;
}

/**
 * The win-rate graph of the review's positions in `frame`: each position a point, spread evenly by its turn
 * (position k is the board after k moves), y by Black's win rate (100% at the top, 50% in the middle), and
 * its lead on a second scale whose 0 is the middle too. A position that was not searched (play had ended) has
 * its point on the bottom edge, out of both lines, which break there. Answers {points: [{turn, x, y, leadY,
 * searched}], line, leadLine (SVG paths), radius (the points', smaller as they crowd), lead (the score axis's
 * reach), rateTicks: [{rate, y}], leadTicks: [{lead, y}], moveTicks: [{turn, x}]}.
 */
export function plotReview(positions, frame = GRAPH) {
  const list = Array.isArray(positions) ? positions : [];
  const { left, right, top, bottom } = plotArea(frame);
  const middle = (top + bottom) / 2;
  const lead = leadScale(list);
  const rateY = (rate) => bottom - (bottom - top) * rate;
  const leadY = (score) => middle - ((middle - top) * Math.max(-lead, Math.min(lead, score))) / lead;
  const n = list.length;
  const points = list.map((p, k) => ({
    turn: k,
    x: tenth(spreadX(k, n, frame)),
    y: tenth(p.searched ? rateY(p.winrate) : bottom),
    leadY: p.searched && p.score !== null ? tenth(leadY(p.score)) : null,
    searched: p.searched,
  }));
  const gap = n > 1 ? (right - left) / (n - 1) : right - left;
  return {
    points,
    line: pathThrough(points.map((p) => (p.searched ? p : null))),
    leadLine: pathThrough(points.map((p) => (p.leadY === null ? null : { x: p.x, y: p.leadY }))),
    radius: tenth(Math.max(1.2, Math.min(2.6, gap * 0.42))),
    lead,
    rateTicks: [1, 0.75, 0.5, 0.25, 0].map((rate) => ({ rate, y: tenth(rateY(rate)) })),
    leadTicks: [lead, 0, -lead].map((l) => ({ lead: l, y: tenth(leadY(l)) })),
    moveTicks: moveTicks(n - 1).map((turn) => ({ turn, x: tenth(spreadX(turn, n, frame)) })),
  };
}

/** The position nearest to `x` on the graph of `count` positions (a click or a drag there). */
export function positionAtX(x, count, frame = GRAPH) {
  return nearestIndex(x, count, frame);
}

/** The position the page shows: the one after `viewing` moves (the page's step back; null: the game's own
 * board, after all its `turns`), within the review's `count` positions. */
export function shownPosition(viewing, turns, count) {
  if (count <= 0) return null;
  const k = viewing ?? turns;
  return Math.max(0, Math.min(count - 1, Math.trunc(Number(k) || 0)));
}

/** The position a mistake is best looked at from: the one before the move, where the better move is shown. */
export function mistakeTurn(m) {
  return Math.max(0, m.number - 1);
}

/** How strongly a point's ownership (hundredths, Black's positive) is shaded: 0 at or under [`SHADE_FROM`],
 * growing to 1 at 100. */
export function shade(o) {
  const v = Math.min(100, Math.abs(Number(o) || 0));
  if (v <= SHADE_FROM) return 0;
  return Math.round(((v - SHADE_FROM) / (100 - SHADE_FROM)) * 100) / 100;
}

/** The shaded points of a position's ownership (row by row from the top left) on a `width` × `height` board:
 * [{point, color (whose), shade}], those no one holds left out. */
export function ownershipShades(ownership, width, height) {
  const out = [];
  if (!Array.isArray(ownership) || ownership.length !== width * height) return out;
  ownership.forEach((o, i) => {
    const s = shade(o);
    if (s > 0) out.push({ point: pointName(i % width, Math.floor(i / width), height), color: o > 0 ? "black" : "white", shade: s });
  });
  return out;
}

/** A vertex or a pass in words. */
export function moveWord(move, t) {
  return move === "pass" ? t("move.pass") : String(move ?? "");
}

/** Black's win rate, in whole percent ("62"). */
export function percent(rate) {
  return String(Math.round(Math.min(1, Math.max(0, Number(rate) || 0)) * 100));
}

/** Black's lead in words: "B+3.5", "W+12", or even (under 0.05 points either way). */
export function leadText(score, t) {
  const points = Math.round(Math.abs(Number(score) || 0) * 10) / 10;
  if (points === 0) return t("analysis.lead-even");
  return t(score > 0 ? "analysis.lead-black" : "analysis.lead-white", { points: String(points) });
}

/** Where a position stands in the game: the start, or after move k. */
export function positionName(k, t) {
  return k === 0 ? t("analysis.at-start") : t("analysis.at-move", { k });
}

/** A position's figures in words: "Black 62% · B+3.5"; null when it was not searched. */
export function figuresText(p, t) {
  if (!p?.searched) return null;
  const parts = [t("analysis.rate", { rate: percent(p.winrate) })];
  if (p.score !== null) parts.push(leadText(p.score, t));
  return parts.join(" · ");
}

/** A point of the graph in words (its label for a screen reader and its tooltip). */
export function pointText(p, k, t) {
  const figures = figuresText(p, t);
  const where = positionName(k, t);
  return figures ? t("analysis.point", { where, figures }) : t("analysis.point-unsearched", { where });
}

/** The engine's move at a position, in words: "Best for White: C4"; null when it has none. */
export function bestText(p, t) {
  if (!p?.searched || !p.best) return null;
  return t("analysis.best", { color: t(`color.${p.toMove}`), move: moveWord(p.best, t) });
}

/** The engine's line from a position, each move with its colour (the player to move first): [{move, color}]. */
export function lineMoves(p) {
  if (!p?.searched) return [];
  const other = { black: "white", white: "black" };
  let color = p.toMove;
  return p.pv.map((move) => {
    const m = { move, color };
    color = other[color];
    return m;
  });
}

/** A mistake in words: "Move 87 (White Q16): −23% win rate, better C4". */
export function mistakeText(m, t) {
  const params = {
    number: m.number,
    color: t(`color.${m.color}`),
    move: moveWord(m.move, t),
    loss: percent(m.loss),
  };
  if (!m.better) return t("analysis.mistake-plain", params);
  return t("analysis.mistake", { ...params, better: moveWord(m.better, t) });
}

/** The mistakes by move number: number → its loss in whole percent (the move list marks them). */
export function mistakesByMove(mistakes) {
  return new Map((mistakes ?? []).map((m) => [m.number, percent(m.loss)]));
}
