// An opened file kept across a sign-in, its pure part (js/kept-file.js).
// Run: node --test crates/server/web/tests/*.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  forgetFile,
  fromBase64,
  KEPT_KEY,
  keepFile,
  keptAddress,
  keptToken,
  MAX_KEPT_BYTES,
  newToken,
  takeFile,
  toBase64,
} from "../js/kept-file.js";
import { safeNext } from "../js/paths.js";

/** sessionStorage's methods over a Map; `full` refuses every write, as a full storage does. */
function storage({ full = false } = {}) {
  const map = new Map();
  return {
    map,
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => {
      if (full) throw new Error("QuotaExceededError");
      map.set(k, String(v));
    },
    removeItem: (k) => map.delete(k),
  };
}

const SGF = new TextEncoder().encode("(;GM[1]FF[4]SZ[9]PB[김]PW[李];B[ee];W[cc])");
const A = "0123456789abcdef";
const B = "fedcba9876543210";

test("bytes go to base64 and back unchanged, a large file too", () => {
  assert.deepEqual(fromBase64(toBase64(SGF)), SGF);
  assert.deepEqual(fromBase64(toBase64(SGF.buffer)), SGF);
  // A view on part of a buffer: its own bytes only.
  assert.deepEqual(fromBase64(toBase64(SGF.subarray(3, 9))), SGF.slice(3, 9));
  assert.equal(toBase64(new TextEncoder().encode("Man")), "TWFu");
  const big = Uint8Array.from({ length: MAX_KEPT_BYTES }, (_, i) => (i * 7919) & 255);
  assert.deepEqual(fromBase64(toBase64(big)), big);
  assert.equal(fromBase64("not base64!"), null);
  assert.equal(fromBase64(undefined), null);
});

test("tokens are 16 hexadecimal digits, new ones differ, and the address names one", () => {
  const token = newToken();
  assert.equal(keptToken(token), token);
  assert.notEqual(newToken(), token);
  assert.equal(newToken(null).length, 16);
  for (const bad of [null, undefined, "", A.toUpperCase(), `${A}0`, A.slice(1), "../../../../x"]) {
    assert.equal(keptToken(bad), null, String(bad));
  }
  assert.equal(keptAddress(A), `/replay?opened=${A}`);
  // The login page goes back to it.
  assert.equal(safeNext(`?next=${encodeURIComponent(keptAddress(A))}`), keptAddress(A));
});

test("a kept file is taken once, by its token", () => {
  const s = storage();
  assert.equal(keepFile(s, A, "kim-lee.sgf", SGF.buffer), true);
  assert.equal(takeFile(s, B), null, "another token");
  assert.equal(takeFile(s, null), null);
  const taken = takeFile(s, A);
  assert.equal(taken.name, "kim-lee.sgf");
  assert.deepEqual(taken.bytes, SGF);
  assert.equal(s.map.size, 0, "forgotten once taken");
  assert.equal(takeFile(s, A), null, "taken once only");
});

test("a file opened later replaces the one kept; one that cannot be kept leaves none", () => {
  const s = storage();
  keepFile(s, A, "a.sgf", SGF);
  keepFile(s, B, "b.sgf", SGF.subarray(0, 10));
  assert.equal(takeFile(s, A), null, "the first is gone");
  assert.deepEqual(takeFile(s, B), { name: "b.sgf", bytes: SGF.slice(0, 10) });

  keepFile(s, A, "a.sgf", SGF);
  assert.equal(keepFile(s, B, "big.sgf", new Uint8Array(MAX_KEPT_BYTES + 1)), false, "too large");
  assert.equal(s.map.size, 0);
  keepFile(s, A, "a.sgf", SGF);
  assert.equal(keepFile(s, "nonsense", "b.sgf", SGF), false, "a bad token");
  assert.equal(s.map.size, 0);
  assert.equal(keepFile(storage({ full: true }), A, "a.sgf", SGF), false, "a full storage");
  assert.equal(keepFile(null, A, "a.sgf", SGF), false, "no storage");
  assert.equal(takeFile(null, A), null);

  keepFile(s, A, "a.sgf", SGF);
  forgetFile(s);
  assert.equal(takeFile(s, A), null);
});

test("what cannot be read is forgotten, not shown", () => {
  const s = storage();
  s.setItem(KEPT_KEY, "{not json");
  assert.equal(takeFile(s, A), null);
  assert.equal(s.map.size, 0);
  s.setItem(KEPT_KEY, JSON.stringify({ token: A, name: 3, data: "%%%" }));
  assert.equal(takeFile(s, A), null);
  assert.equal(s.map.size, 0);
  s.setItem(KEPT_KEY, JSON.stringify({ token: A, name: 3, data: toBase64(SGF) }));
  assert.deepEqual(takeFile(s, A), { name: "", bytes: SGF });
});
