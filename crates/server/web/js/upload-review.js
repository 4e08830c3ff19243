// The review of a record opened on the replay page (`POST /api/reviews`, `GET /api/reviews/{id}`, docs/API.md),
// its pure part: the review's name (the SHA-256 digest of the file's bytes, which the server names it by too), the
// page's address that shows it again, and which of its positions the board shows. replay.js asks and polls
// through the Analysis card (analysis-card.js). Tested with node.

/** A review's id as the server names it: 64 lowercase hexadecimal digits; null for anything else. */
export function reviewId(text) {
  const id = String(text ?? "");
  return /^[0-9a-f]{64}$/.test(id) ? id : null;
}

/** The SHA-256 digest of `bytes` (an ArrayBuffer or a typed array) in lowercase hexadecimal: the id of its
 * review, if one was asked for. Null where the browser does not offer it (a page not served over HTTPS or from
 * this computer). */
export async function digestOf(bytes, subtle = globalThis.crypto?.subtle) {
  if (!subtle) return null;
  try {
    const hash = new Uint8Array(await subtle.digest("SHA-256", bytes));
    return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
  } catch {
    return null;
  }
}

/** The page's address for `href` showing the review `id` at move `move` (none for null), or no review (`id`
 * null): the other parameters go (a stored game's, an earlier review's). */
export function reviewAddress(href, id, move = null) {
  const url = new URL(href);
  url.search = "";
  if (id) {
    url.searchParams.set("review", id);
    if (move !== null && move !== undefined) url.searchParams.set("move", String(move));
  }
  return url.toString();
}

/** The position of the review the board shows: the one after `current` moves when they are all the main line's
 * (`owner`: the line each move of the line shown belongs to, as variations.js has it, 0 the main line); none on a
 * variation past its branching, as the review follows the main line only. */
export function reviewPosition(owner, current) {
  if (!Array.isArray(owner) || current > owner.length) return null;
  return owner.slice(0, current).every((o) => o === 0) ? current : null;
}
