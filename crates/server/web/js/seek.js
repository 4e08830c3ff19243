// Automatch ("Find a game" on the lobby), its pure part: the form read as the body of POST /api/seeks, the seeks
// of others, the viewer's own waiting, which matched seek the page follows to its game, and a seek in words.

export const SEEK_SIZES = [9, 13, 19];
export const SPEEDS = ["blitz", "rapid", "classical", "correspondence"];

/** The sessionStorage key of the seeks this tab saw waiting and those it followed to their game. */
export const SEEK_MEMORY_KEY = "tesuji.seeks";
const MEMORY_LIMIT = 50;

/** A rank typed in the range's boxes: `""` when empty, `15k` / `1d` as the server reads it, null when not a rank
 * (30 kyu to 9 dan). */
export function parseRankInput(text) {
  const s = String(text ?? "").trim().toLowerCase().replace(/\s+/g, "");
  if (!s) return "";
  const m = /^(\d{1,2})(k|d|kyu|dan)$/.exec(s);
  if (!m) return null;
  const n = Number(m[1]);
  const kyu = m[2].startsWith("k");
  if (n < 1 || n > (kyu ? 30 : 9)) return null;
  return `${n}${kyu ? "k" : "d"}`;
}

/** The body of POST /api/seeks from the form's values ({size, speed, ranked, minRank, maxRank, handicap}):
 * `{body}`, or `{error}` (an i18n key) when a rank of the range is not one. */
export function seekBody({ size, speed, ranked, minRank, maxRank, handicap }) {
  const min = parseRankInput(minRank);
  const max = parseRankInput(maxRank);
  if (min === null || max === null) return { error: "seek.bad-rank" };
  const body = { size: Number(size), speed, handicap: Boolean(handicap) };
  if (ranked) body.ranked = true;
  if (min) body.min_rank = min;
  if (max) body.max_rank = max;
  return { body };
}

/** The body that pairs with `seek` at once: the same rules, size, speed and rankedness. */
export function acceptBody(seek, handicap = true) {
  return {
    size: Number(seek.size),
    speed: seek.speed,
    rules: seek.rules,
    ranked: Boolean(seek.ranked),
    handicap: Boolean(handicap),
  };
}

/** The waiting seeks of the others (the lobby's `seeks` holds the viewer's too), oldest first as listed. */
export function othersSeeks(seeks, myId) {
  return (Array.isArray(seeks) ? seeks : []).filter((s) => s && s.id != null && s.user?.id !== myId && s.game == null);
}

/** The viewer's seeks that still wait (the lobby's `my_seeks` without a game). */
export function waitingSeeks(mySeeks) {
  return (Array.isArray(mySeeks) ? mySeeks : []).filter((s) => s && s.id != null && s.game == null);
}

/** The memory of a tab: `{watching: [ids seen waiting or made here], handled: [ids followed to their game]}`. */
export function readSeekMemory(text) {
  let saved = null;
  try {
    saved = JSON.parse(text ?? "null");
  } catch {
    saved = null;
  }
  const ids = (list) => (Array.isArray(list) ? list.filter((id) => Number.isInteger(id)) : []);
  return { watching: ids(saved?.watching), handled: ids(saved?.handled) };
}

function keep(list, id) {
  return list.includes(id) ? list : [...list, id].slice(-MEMORY_LIMIT);
}

/** The memory once the seeks `ids` are known to wait for this viewer (made here, or listed waiting). */
export function noteWaiting(memory, ids) {
  let watching = memory.watching;
  for (const id of ids) if (Number.isInteger(id)) watching = keep(watching, id);
  return { ...memory, watching };
}

/** The memory once seek `id` was followed to its game (never again). */
export function noteHandled(memory, id) {
  return { watching: memory.watching.filter((w) => w !== id), handled: keep(memory.handled, id) };
}

/** The viewer's seek that another player matched and the page should follow to its game now: one this tab saw
 * waiting (or made), not followed yet. An old matched seek, met again on coming back to the lobby, is not. */
export function seekToFollow(mySeeks, memory) {
  for (const s of Array.isArray(mySeeks) ? mySeeks : []) {
    if (s?.game == null || !Number.isInteger(s.id)) continue;
    if (memory.watching.includes(s.id) && !memory.handled.includes(s.id)) return s;
  }
  return null;
}

/** A rank range in words: "Any rank", "15k – 1d", "from 15k", "up to 1d". */
export function rangeLabel(seek, t, formatRank) {
  const min = seek?.min_rank ? formatRank(seek.min_rank, t) : null;
  const max = seek?.max_rank ? formatRank(seek.max_rank, t) : null;
  if (min && max) return t("seek.range", { min, max });
  if (min) return t("seek.range-from", { min });
  if (max) return t("seek.range-up-to", { max });
  return t("seek.any-rank");
}

/** What a seek asks for, in words: size, speed, rules, ranked or not, the range. */
export function seekFacts(seek, t, formatRank) {
  const speed = SPEEDS.includes(seek?.speed) ? t(`seek.speed.${seek.speed}`) : String(seek?.speed ?? "");
  const rules = ["japanese", "chinese", "aga", "korean"].includes(seek?.rules) ? t(`preset.${seek.rules}`) : seek?.rules;
  return [
    `${seek.size} × ${seek.size}`,
    speed,
    rules,
    t(seek.ranked ? "lobby.ranked" : "seek.unranked"),
    rangeLabel(seek, t, formatRank),
  ];
}
