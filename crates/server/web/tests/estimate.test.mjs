// The estimate of a game's position now, its pure part (js/estimate.js). Run: node --test crates/server/web/tests/*.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { estimateMarks, estimateOffer, estimateText, isStale, readEstimate } from "../js/estimate.js";
import { interpolate } from "../js/i18n.js";

const en = JSON.parse(readFileSync(new URL("../i18n/en.json", import.meta.url), "utf8"));
const t = (key, params) => {
  assert.ok(Object.hasOwn(en, key), `${key} is not in en.json`);
  return interpolate(en[key], params);
};

/** An answer of GET /api/games/{id}/estimate on a 3×3 board. */
const answer = (extra = {}) => ({
  turn: 12,
  to_move: "white",
  searched: true,
  winrate: 0.623,
  score: -3.46,
  best: "C3",
  pv: ["C3", "A1", "B2"],
  playouts: 1000,
  ownership: [100, 90, 10, -20, 0, -16, -100, -55, 15],
  ...extra,
});

test("the estimate is offered to spectators during play and to anyone once over, never to a player in play", () => {
  const playing = { status: "playing", phase: "playing" };
  const marking = { status: "playing", phase: "marking" };
  const over = { status: "over", phase: "over" };
  const open = { status: "open", phase: "playing" };
  // [state, seated, signed in] → what the card offers.
  const cases = [
    [playing, false, true, "ask"],
    [playing, false, false, "signin"],
    [playing, true, true, "hidden"],
    [marking, false, true, "ask"],
    [marking, true, true, "hidden"],
    [over, true, true, "ask"],
    [over, false, true, "ask"],
    [over, false, false, "signin"],
    [{ status: "over" }, true, true, "ask"],
    [{ status: "playing", phase: "over" }, true, true, "ask"],
    // A table that waits for its players: nothing to estimate yet.
    [open, false, true, "hidden"],
    [null, false, true, "hidden"],
  ];
  for (const [state, seated, signedIn, want] of cases) {
    assert.equal(estimateOffer(state, seated, signedIn), want, JSON.stringify([state, seated, signedIn]));
  }
});

test("the answer is read as a review's position", () => {
  const e = readEstimate(answer());
  assert.deepEqual(
    [e.turn, e.toMove, e.searched, e.winrate, e.score, e.best, e.pv, e.playouts],
    [12, "white", true, 0.623, -3.46, "C3", ["C3", "A1", "B2"], 1000],
  );
  assert.equal(e.ownership.length, 9);
  // Play had ended there: no figures.
  const out = readEstimate({ turn: 30, to_move: "black", searched: false });
  assert.deepEqual([out.searched, out.winrate, out.score, out.best, out.ownership], [false, null, null, null, null]);
  // Not an estimate at all.
  for (const bad of [null, undefined, "x", 3, {}, { winrate: 0.5 }, { turn: "7", searched: true, winrate: 0.5 }]) {
    assert.equal(readEstimate(bad), null, JSON.stringify(bad));
  }
});

test("an estimate is out of date once the game has another number of moves", () => {
  const e = readEstimate(answer());
  assert.equal(isStale(e, 12), false);
  assert.equal(isStale(e, 13), true);
  // A move taken back changes the position too.
  assert.equal(isStale(e, 11), true);
  assert.equal(isStale(null, 12), false);
  // Of a finished game, the last position in play (before the second pass): it stands for the game as it ended.
  const ended = readEstimate(answer({ turn: 10 }), { turns: 12, over: true });
  assert.equal(ended.standsFor, 12);
  assert.equal(isStale(ended, 12), false);
  // During play, for the position it was made of, whatever the page had when the answer came.
  assert.equal(isStale(readEstimate(answer({ turn: 10 }), { turns: 11, over: false }), 11), true);
});

test("the estimate in words: the win rate and lead as the analysis card says them, the move, the position", () => {
  const words = estimateText(readEstimate(answer()), t);
  assert.equal(words.figures, "Black 62% · W+3.5");
  assert.equal(words.best, "Best for White: C3");
  assert.deepEqual(words.line, [
    { move: "C3", color: "white" },
    { move: "A1", color: "black" },
    { move: "B2", color: "white" },
  ]);
  assert.equal(words.at, "After move 12; 1000 playouts.");
  assert.equal(estimateText(readEstimate(answer({ turn: 0, score: 0.02, winrate: 0.5 })), t).at, "At the start; 1000 playouts.");
  assert.equal(estimateText(readEstimate(answer({ score: 0.02 })), t).figures, "Black 62% · Even");
  assert.equal(estimateText(readEstimate(answer({ score: 7 })), t).figures, "Black 62% · B+7");
  // No move (the search found none): no words for it.
  assert.equal(estimateText(readEstimate(answer({ best: null, pv: [] })), t).best, null);
  // Out of play: said so, no figures, no move.
  const out = estimateText(readEstimate({ turn: 30, to_move: "black", searched: false, playouts: 0 }), t);
  assert.deepEqual([out.figures, out.best, out.line], ["Play has ended here: the engine gives no figures.", null, []]);
});

test("the board shows the estimate's move and shades only while it stands for the board shown", () => {
  const e = readEstimate(answer());
  const where = { stale: false, shown: true, live: true, width: 3, height: 3 };
  const marks = estimateMarks(e, where);
  assert.deepEqual(marks.best, { point: "C3", color: "white" });
  // Row by row from the top: 100 at A3, 90 at B3; 10 (C3), 0 (B2) and 15 (C1) are no one's.
  assert.deepEqual(
    marks.owners.map((o) => [o.point, o.color]),
    [
      ["A3", "black"],
      ["B3", "black"],
      ["A2", "white"],
      ["C2", "white"],
      ["A1", "white"],
      ["B1", "white"],
    ],
  );
  assert.equal(marks.owners[0].shade, 1);
  for (const off of [{ stale: true }, { shown: false }, { live: false }]) {
    assert.deepEqual(estimateMarks(e, { ...where, ...off }), {}, JSON.stringify(off));
  }
  assert.deepEqual(estimateMarks(null, where), {});
  assert.deepEqual(estimateMarks(readEstimate({ turn: 3, searched: false }), where), {});
  // A pass is no point to ring.
  assert.equal(estimateMarks(readEstimate(answer({ best: "pass" })), where).best, null);
  // An ownership of another size is not drawn.
  assert.deepEqual(estimateMarks(e, { ...where, width: 9, height: 9 }).owners, []);
});
