// Vacations, their pure part: what the vacation card of one's own player page shows of `GET /api/vacation`'s
// answer, the days typed in it, and the end of a vacation in words. (The clocks a vacation stops: clocks.js.)

export const DAY_MS = 86_400_000;
/** The days the card offers first (never more than are left). */
export const DEFAULT_DAYS = 7;
/** The most days one vacation may last (the server's bound). */
export const MAX_DAYS = 30;

/**
 * The card's facts from a vacation view (`{year, allowance_days, used_ms, left_ms, left_days, current}`):
 * `away` (a vacation in progress) and its end `until` (ms since 1970, or null), the `year`, the `allowance`
 * and the whole days `left`, `extraMs` (the time left beyond those whole days: a vacation ended early gives back
 * its unused time, rarely whole days), `max` (the most days that can be asked for now, 0 when none) and `days`
 * (the number offered first).
 */
export function vacationCard(view) {
  const whole = (v) => Math.max(0, Math.floor(Number(v) || 0));
  const left = whole(view?.left_days);
  const leftMs = whole(view?.left_ms);
  const current = view?.current;
  const until = current && Number.isFinite(Number(current.end_ms)) ? Number(current.end_ms) : null;
  const max = until === null ? Math.min(left, MAX_DAYS) : 0;
  return {
    away: until !== null,
    until,
    year: view?.year ?? null,
    allowance: whole(view?.allowance_days),
    left,
    extraMs: Math.max(0, leftMs - left * DAY_MS),
    max,
    days: Math.min(DEFAULT_DAYS, max),
  };
}

/** The days typed in the card's box: a whole number from 1 to `max`, else null. */
export function readDays(text, max) {
  const s = String(text ?? "").trim();
  if (!/^\d{1,3}$/.test(s)) return null;
  const n = Number(s);
  return n >= 1 && n <= max ? n : null;
}

/**
 * The moment `ms` (since 1970) as a date and time in `language`, short: the weekday, day and month, and the
 * time; the year too when it is not the year of `now`.
 */
export function untilText(ms, language, now = Date.now()) {
  const at = new Date(ms);
  const sameYear = at.getFullYear() === new Date(now).getFullYear();
  const options = sameYear
    ? { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" }
    : { dateStyle: "medium", timeStyle: "short" };
  return new Intl.DateTimeFormat(language, options).format(at);
}
