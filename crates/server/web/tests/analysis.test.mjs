// The review of a finished game, its pure part (js/analysis.js) and the graph pieces it shares with the rating
// graph (js/plot.js). Run: node --test crates/server/web/tests/*.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  bestText,
  figuresText,
  GRAPH,
  isPending,
  leadScale,
  leadText,
  lineMoves,
  mistakesByMove,
  mistakeText,
  mistakeTurn,
  moveTicks,
  ownershipShades,
  percent,
  plotReview,
  pointText,
  pollDelay,
  worthLookingAgain,
  POLL_MS,
  positionAtX,
  progress,
  readReview,
  shade,
  SHADE_FROM,
  shownPosition,
} from "../js/analysis.js";
import { interpolate } from "../js/i18n.js";
import { nearestIndex, niceCeil, pathThrough, plotArea, spreadX, tenth } from "../js/plot.js";

const en = JSON.parse(readFileSync(new URL("../i18n/en.json", import.meta.url), "utf8"));
const t = (key, params) => {
  assert.ok(Object.hasOwn(en, key), `${key} is not in en.json`);
  return interpolate(en[key], params);
};

/** A searched position of the API's answer. */
const searched = (turn, winrate, score, best = "C4", extra = {}) => ({
  turn,
  to_move: turn % 2 === 0 ? "black" : "white",
  searched: true,
  winrate,
  score,
  best,
  pv: [best, "D5", "E6"],
  playouts: 50,
  ownership: Array(9).fill(0),
  ...extra,
});

const done = (positions, mistakes = []) => ({
  status: "done",
  playouts: 50,
  done: positions.length,
  total: positions.length,
  results: { positions, mistakes },
});

test("a review's answer is read, whatever it holds", () => {
  const r = readReview(
    done(
      [searched(0, 0.5, 0.4), searched(1, 0.62, 3.5, "pass"), { turn: 2, to_move: "black", searched: false }],
      [{ number: 2, color: "white", move: "Q16", loss: 0.234, better: "C4" }, { number: "x" }],
    ),
  );
  assert.equal(r.status, "done");
  assert.deepEqual([r.done, r.total, r.playouts], [3, 3, 50]);
  assert.equal(r.positions.length, 3);
  assert.deepEqual(
    r.positions.map((p) => [p.turn, p.toMove, p.searched, p.winrate, p.score, p.best]),
    [
      [0, "black", true, 0.5, 0.4, "C4"],
      [1, "white", true, 0.62, 3.5, "pass"],
      [2, "black", false, null, null, null],
    ],
  );
  assert.deepEqual(r.positions[0].pv, ["C4", "D5", "E6"]);
  assert.equal(r.positions[2].ownership, null);
  // The mistake that names no move number is dropped.
  assert.deepEqual(r.mistakes, [{ number: 2, color: "white", move: "Q16", loss: 0.234, better: "C4" }]);
  // Before it is done: no results, whatever the answer carries; unknown states are "none".
  for (const status of ["none", "queued", "running", "failed"]) {
    const view = readReview({ ...done([searched(0, 0.5, 0)]), status });
    assert.deepEqual([view.status, view.positions, view.mistakes], [status, [], []]);
  }
  assert.equal(readReview({ status: "cooking" }).status, "none");
  assert.equal(readReview(null).status, "none");
  // "done" without results cannot be shown: read as failed (the button asks again).
  assert.equal(readReview({ status: "done", results: null }).status, "failed");
  // A win rate out of range is held to it; one missing makes the position unsearched.
  const odd = readReview(done([searched(0, 1.2, 0), { turn: 1, to_move: "white", searched: true }]));
  assert.deepEqual(
    odd.positions.map((p) => [p.searched, p.winrate]),
    [
      [true, 1],
      [false, null],
    ],
  );
});

test("the page polls while the review is queued or running, less often while the server is away", () => {
  assert.deepEqual(
    ["none", "queued", "running", "done", "failed"].map(isPending),
    [false, true, true, false, false],
  );
  assert.equal(pollDelay(0), POLL_MS);
  assert.equal(POLL_MS, 1000);
  assert.ok(pollDelay(1) > pollDelay(0));
  assert.equal(pollDelay(50), 10 * POLL_MS);
  assert.equal(pollDelay(undefined), POLL_MS);
});

test("the progress is said in words, with its share", () => {
  assert.equal(progress(readReview({ status: "none" }), t), null);
  assert.equal(progress(readReview(done([searched(0, 0.5, 0)])), t), null);
  assert.deepEqual(progress(readReview({ status: "queued" }), t), { text: "Waiting for the engine…", share: null });
  assert.deepEqual(progress(readReview({ status: "running", done: 0, total: 0 }), t), {
    text: "Analyzing…",
    share: null,
  });
  const running = progress(readReview({ status: "running", done: 12, total: 57 }), t);
  assert.equal(running.text, "Analyzing… 12/57 positions");
  assert.ok(Math.abs(running.share - 12 / 57) < 1e-9);
  // Never past the end.
  assert.equal(progress(readReview({ status: "running", done: 60, total: 57 }), t).share, 1);
});

test("the graph has a point per position, Black's win rate up, the lead on a scale of its own", () => {
  const positions = readReview(
    done([
      searched(0, 0.5, 0),
      searched(1, 0.75, 12),
      searched(2, 0.2, -8),
      searched(3, 1, 30),
      { turn: 4, to_move: "black", searched: false },
    ]),
  ).positions;
  const plot = plotReview(positions);
  const { left, right, top, bottom } = plotArea(GRAPH);
  const middle = (top + bottom) / 2;
  assert.equal(plot.points.length, positions.length);
  assert.deepEqual(
    plot.points.map((p) => p.turn),
    [0, 1, 2, 3, 4],
  );
  // Evenly spread from edge to edge.
  assert.equal(plot.points[0].x, left);
  assert.equal(plot.points[4].x, right);
  const gaps = plot.points.slice(1).map((p, i) => p.x - plot.points[i].x);
  assert.ok(gaps.every((g) => Math.abs(g - gaps[0]) < 0.11), `${gaps}`);
  // 50% in the middle, 100% at the top, a better rate higher up.
  assert.equal(plot.points[0].y, middle);
  assert.equal(plot.points[3].y, top);
  assert.ok(plot.points[1].y < plot.points[0].y && plot.points[2].y > plot.points[0].y);
  // The lead: 0 in the middle, Black ahead above; the scale reaches the largest lead, rounded up (30).
  assert.equal(plot.lead, 30);
  assert.equal(plot.points[0].leadY, middle);
  assert.equal(plot.points[3].leadY, top);
  assert.ok(plot.points[1].leadY < middle && plot.points[2].leadY > middle);
  // The unsearched position: on the bottom edge, out of both lines (which are drawn through the others).
  assert.deepEqual([plot.points[4].y, plot.points[4].leadY, plot.points[4].searched], [bottom, null, false]);
  assert.equal((plot.line.match(/[ML]/g) ?? []).length, 4);
  assert.ok(plot.line.startsWith("M") && !plot.line.includes(`${right} `));
  assert.equal((plot.leadLine.match(/[ML]/g) ?? []).length, 4);
  for (const p of plot.points) {
    assert.ok(p.x >= left && p.x <= right && p.y >= top && p.y <= bottom, JSON.stringify(p));
  }
  // The axes: 100%, 75%, 50%, 25%, 0% from the top; the lead's +30, 0 and −30; the moves 0 to 4.
  assert.deepEqual(
    plot.rateTicks.map((tick) => [tick.rate, tick.y]),
    [
      [1, top],
      [0.75, tenth((top + middle) / 2)],
      [0.5, middle],
      [0.25, tenth((middle + bottom) / 2)],
      [0, bottom],
    ],
  );
  assert.deepEqual(
    plot.leadTicks.map((tick) => [tick.lead, tick.y]),
    [
      [30, top],
      [0, middle],
      [-30, bottom],
    ],
  );
  assert.deepEqual(
    plot.moveTicks.map((tick) => tick.turn),
    [0, 1, 2, 3, 4],
  );
  assert.equal(plot.moveTicks.at(-1).x, right);
});

test("a long game's points crowd but stay apart, and a click goes to the nearest position", () => {
  const long = readReview(done(Array.from({ length: 301 }, (_, k) => searched(k, 0.5 + 0.001 * k, k / 10)))).positions;
  const plot = plotReview(long);
  assert.equal(plot.points.length, 301);
  assert.ok(plot.radius >= 1.2 && plot.radius < plotReview(long.slice(0, 20)).radius);
  assert.ok(plot.moveTicks.length <= 6);
  assert.deepEqual(
    plot.moveTicks.map((tick) => tick.turn),
    [0, 100, 200, 300],
  );
  for (const k of [0, 1, 150, 299, 300]) assert.equal(positionAtX(plot.points[k].x, 301), k);
  // Beyond the plot, the first or the last; between two points, the nearer.
  assert.equal(positionAtX(-50, 301), 0);
  assert.equal(positionAtX(GRAPH.width + 50, 301), 300);
  const short = plotReview(long.slice(0, 3));
  assert.equal(positionAtX(short.points[0].x + (short.points[1].x - short.points[0].x) * 0.4, 3), 0);
  assert.equal(positionAtX(short.points[0].x + (short.points[1].x - short.points[0].x) * 0.6, 3), 1);
  // One position (a game with no move): in the middle.
  const one = plotReview(long.slice(0, 1));
  assert.equal(one.points[0].x, (plotArea(GRAPH).left + plotArea(GRAPH).right) / 2);
  assert.equal(positionAtX(0, 1), 0);
  assert.deepEqual(plotReview([]).points, []);
  // A close game's lead scale is not blown up.
  assert.equal(leadScale(long.slice(0, 5)), 5);
});

test("move ticks are round numbers, at most six", () => {
  assert.deepEqual(moveTicks(0), [0]);
  assert.deepEqual(moveTicks(4), [0, 1, 2, 3, 4]);
  assert.deepEqual(moveTicks(25), [0, 5, 10, 15, 20, 25]);
  assert.deepEqual(moveTicks(57), [0, 10, 20, 30, 40, 50]);
  for (let n = 0; n < 1000; n += 7) {
    const ticks = moveTicks(n);
    assert.ok(ticks.length >= 1 && ticks.length <= 6 && ticks.at(-1) <= n, `${n}: ${ticks}`);
  }
});

test("the position shown maps the page's step back to the review's positions", () => {
  // The page shows the board after `viewing` moves, or the game's own board (null) after all its turns.
  assert.equal(shownPosition(12, 57, 58), 12);
  assert.equal(shownPosition(0, 57, 58), 0);
  assert.equal(shownPosition(null, 57, 58), 57);
  // Never out of the review.
  assert.equal(shownPosition(null, 60, 58), 57);
  assert.equal(shownPosition(-3, 57, 58), 0);
  assert.equal(shownPosition(null, 0, 0), null);
  // A mistake is looked at from the position before it: where the better move is the engine's.
  assert.equal(mistakeTurn({ number: 87 }), 86);
  assert.equal(mistakeTurn({ number: 1 }), 0);
});

test("ownership is shaded the more strongly the surer, not at all near nobody's", () => {
  assert.equal(shade(0), 0);
  assert.equal(shade(SHADE_FROM), 0);
  assert.equal(shade(-SHADE_FROM), 0);
  assert.equal(shade(100), 1);
  assert.equal(shade(-100), 1);
  assert.equal(shade(250), 1);
  assert.ok(shade(40) > 0 && shade(40) < shade(80) && shade(80) < 1);
  assert.equal(shade(-60), shade(60));
  // A 3×3 board, row by row from the top left: A3 B3 C3 / A2 B2 C2 / A1 B1 C1.
  const shades = ownershipShades([100, 5, -100, 0, 60, 0, -40, 0, 16], 3, 3);
  assert.deepEqual(
    shades.map((s) => [s.point, s.color]),
    [
      ["A3", "black"],
      ["C3", "white"],
      ["B2", "black"],
      ["A1", "white"],
      ["C1", "black"],
    ],
  );
  assert.equal(shades[0].shade, 1);
  assert.ok(shades[4].shade > 0 && shades[4].shade < 0.05);
  // A list of the wrong length (another board) is shaded nowhere.
  assert.deepEqual(ownershipShades([100, 100], 3, 3), []);
  assert.deepEqual(ownershipShades(null, 3, 3), []);
});

test("a position's figures, the engine's move and line, and the mistakes in words", () => {
  const [start, after, end] = readReview(
    done([searched(0, 0.5, 0), searched(1, 0.621, -3.46, "C4"), { turn: 2, to_move: "black", searched: false }]),
  ).positions;
  assert.equal(figuresText(start, t), "Black 50% · Even");
  assert.equal(figuresText(after, t), "Black 62% · W+3.5");
  assert.equal(figuresText(end, t), null);
  assert.equal(leadText(3.5, t), "B+3.5");
  assert.equal(leadText(12, t), "B+12");
  assert.equal(leadText(-0.04, t), "Even");
  assert.equal(percent(0.999), "100");
  assert.equal(percent(-1), "0");
  assert.equal(pointText(start, 0, t), "Start: Black 50% · Even");
  assert.equal(pointText(after, 1, t), "Move 1: Black 62% · W+3.5");
  assert.equal(pointText(end, 2, t), "Move 2: play had ended, no figures");
  assert.equal(bestText(after, t), "Best for White: C4");
  assert.equal(bestText(end, t), null);
  assert.equal(bestText({ ...start, best: "pass" }, t), "Best for Black: pass");
  // The line alternates colours, the player to move first.
  assert.deepEqual(lineMoves(after), [
    { move: "C4", color: "white" },
    { move: "D5", color: "black" },
    { move: "E6", color: "white" },
  ]);
  assert.deepEqual(lineMoves(end), []);
  const [big, plain] = readReview(
    done(
      [searched(0, 0.5, 0)],
      [
        { number: 87, color: "white", move: "Q16", loss: 0.234, better: "C4" },
        { number: 3, color: "black", move: "pass", loss: 0.05, better: null },
      ],
    ),
  ).mistakes;
  assert.equal(mistakeText(big, t), "Move 87 (White Q16): −23% win rate, better C4");
  assert.equal(mistakeText(plain, t), "Move 3 (Black pass): −5% win rate");
  assert.deepEqual(
    [...mistakesByMove([big, plain])],
    [
      [87, "23"],
      [3, "5"],
    ],
  );
});

test("the graph's shared pieces: spread, nearest, broken lines, round ceilings", () => {
  const frame = { width: 110, height: 50, left: 5, right: 5, top: 5, bottom: 5 };
  assert.deepEqual(plotArea(frame), { left: 5, right: 105, top: 5, bottom: 45 });
  assert.deepEqual(
    [0, 1, 2].map((i) => spreadX(i, 3, frame)),
    [5, 55, 105],
  );
  assert.equal(spreadX(0, 1, frame), 55);
  assert.equal(nearestIndex(79, 3, frame), 1);
  assert.equal(nearestIndex(81, 3, frame), 2);
  assert.equal(nearestIndex(NaN, 3, frame), 0);
  assert.equal(pathThrough([{ x: 1, y: 2 }, { x: 3.04, y: 4 }, null, { x: 5, y: 6 }, { x: 7, y: 8 }]), "M1 2L3 4M5 6L7 8");
  assert.equal(pathThrough([null, { x: 1, y: NaN }]), "");
  assert.equal(niceCeil(7, [5, 10, 20]), 10);
  assert.equal(niceCeil(-7, [5, 10, 20]), 10);
  assert.equal(niceCeil(0, [5, 10, 20]), 5);
  assert.equal(niceCeil(70, [5, 10, 20]), 80);
});

test("every text the review's module names is in every dictionary", () => {
  const source = readFileSync(new URL("../js/analysis.js", import.meta.url), "utf8");
  const keys = [...source.matchAll(/"(analysis\.[a-z-]+)"/g)].map((m) => m[1]);
  assert.ok(keys.length >= 10, `${keys}`);
  for (const lang of ["en", "zh-Hans", "ja", "ko"]) {
    const dict = JSON.parse(readFileSync(new URL(`../i18n/${lang}.json`, import.meta.url), "utf8"));
    for (const key of keys) assert.ok(Object.hasOwn(dict, key), `${lang}: ${key}`);
  }
});

test("a look is repeated after a failure that may pass, not after a refusal for good", () => {
  for (const status of [0, 429, 500, 503]) assert.equal(worthLookingAgain({ status }), true, String(status));
  for (const status of [400, 401, 403, 404]) assert.equal(worthLookingAgain({ status }), false, String(status));
  // A failure without a status (the network): looked at again.
  assert.equal(worthLookingAgain(new Error("offline")), true);
});
