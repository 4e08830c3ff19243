// The review of a record opened on the replay page, its pure part (js/upload-review.js).
// Run: node --test crates/server/web/tests/*.test.mjs
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import { digestOf, reviewAddress, reviewId, reviewPosition } from "../js/upload-review.js";

const ID = "ab".repeat(32);

test("a review's id is 64 lowercase hexadecimal digits", () => {
  assert.equal(reviewId(ID), ID);
  for (const bad of [null, undefined, "", "12", ID.toUpperCase(), `${ID}0`, ID.slice(1), `${ID.slice(1)}g`, " ".repeat(64)]) {
    assert.equal(reviewId(bad), null, String(bad));
  }
});

test("the id is the SHA-256 digest of the file's bytes, as the server names it", async () => {
  const sgf = "(;GM[1]FF[4]SZ[9];B[ee];W[cc])";
  const bytes = new TextEncoder().encode(sgf);
  const want = createHash("sha256").update(sgf).digest("hex");
  assert.equal(await digestOf(bytes), want);
  assert.equal(await digestOf(bytes.buffer), want);
  assert.equal(reviewId(want), want);
  // Where the browser offers no digest (a page not served over HTTPS): none, and the server's id is used.
  assert.equal(await digestOf(bytes, null), null);
  assert.equal(await digestOf(bytes, { digest: () => Promise.reject(new Error("no")) }), null);
});

test("the page's address names the review and the move shown, and nothing else", () => {
  assert.equal(reviewAddress("http://h/replay", ID), `http://h/replay?review=${ID}`);
  assert.equal(reviewAddress("http://h/replay?game=4&move=3", ID, 7), `http://h/replay?review=${ID}&move=7`);
  assert.equal(reviewAddress(`http://h/replay?review=${ID}&move=7#x`, null), "http://h/replay#x");
  assert.equal(reviewAddress("http://h/replay", ID, 0), `http://h/replay?review=${ID}&move=0`);
});

test("the board shows a review's position while it shows the main line's moves", () => {
  // A variation leaving the main line after move 2: its moves 3 and 4 are its own.
  const variation = [0, 0, 1, 1];
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((k) => reviewPosition(variation, k)),
    [0, 1, 2, null, null],
  );
  assert.deepEqual(
    [0, 3, 5].map((k) => reviewPosition([0, 0, 0, 0, 0], k)),
    [0, 3, 5],
  );
  assert.equal(reviewPosition([0, 0], 3), null);
  assert.equal(reviewPosition(undefined, 0), null);
});
