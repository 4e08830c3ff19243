// The game page's clocks, their pure part. A state carries both players' time as it was when the state was
// taken; the page counts the running one down from the moment it got the state. A player away on vacation
// (`away_ms` on their side: how long they stay away from then; only correspondence clocks have it) stops their
// own clock: it stands still that long, then runs on from where it stood.

import { formatDuration } from "./format.js";

/** How long a side's player stays away from the moment the state was taken, in ms (0: not away). */
function awayMs(side) {
  const away = Number(side?.away_ms ?? 0);
  return Number.isFinite(away) && away > 0 ? away : 0;
}

/**
 * What an absent opponent's notice tells the viewer (`mine`: their colour, or null for a spectator): `other` (who
 * is away), `unplayed` (nobody has moved: nothing can be claimed, and the game may be aborted), `wait` (the claim
 * opens in `claimIn` ms) or `now` (it is open). The server claims and aborts by the same rule.
 */
export function absentNotice(mine, claimIn, unplayed) {
  if (!mine) return "other";
  if (unplayed) return "unplayed";
  return claimIn > 0 ? "wait" : "now";
}

/**
 * How much time a running side's clock has used `elapsed` ms after the state was taken: all of it, less the
 * time its player is away (the clock stands still then and runs again from where it stood).
 */
export function clockElapsed(side, elapsed) {
  return Math.max(0, Number(elapsed) - awayMs(side));
}

/** How long a side's player is still away `elapsed` ms after the state was taken, in ms; null once back (or never
 * away). */
export function awayLeft(side, elapsed) {
  const left = awayMs(side) - Math.max(0, Number(elapsed) || 0);
  return left > 0 ? left : null;
}

/** The main time and the current overtime period left on a side, `used` ms of it gone since the state. */
function split(side, used) {
  let main = Number(side.main_ms ?? 0);
  let period = Number(side.period_ms ?? 0);
  if (main >= used) main -= used;
  else {
    period = Math.max(0, period - (used - main));
    main = 0;
  }
  return { main, period };
}

/** The time left on a side (main time and the current period), `elapsed` ms after the state was taken while it
 * runs (0 when it does not): what turns the clock red in its last seconds. */
export function clockLeft(side, elapsed) {
  const { main, period } = split(side, clockElapsed(side, elapsed));
  return main + period;
}

/** A side's clock as text `elapsed` ms after the state was taken while it runs (0 when it does not), through
 * `t`: `4:59`, `2 d 23 h`, the byo-yomi periods or Canadian stones when in overtime, or "Out of time". */
export function clockText(side, elapsed, t) {
  if (side.flagged) return t("clock.flagged");
  const { main, period } = split(side, clockElapsed(side, elapsed));
  const format = (ms) => formatDuration(ms, t);
  if (main > 0 || side.overtime === "sudden-death") return format(main);
  if (side.overtime === "byoyomi") return t("clock.periods", { time: format(period), periods: side.periods });
  if (side.overtime === "canadian") return t("clock.stones", { time: format(period), stones: side.stones });
  return format(main);
}
