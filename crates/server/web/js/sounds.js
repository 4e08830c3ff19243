// The game page's sounds, their pure part: the settings (each sound may be switched off, kept in localStorage),
// which sound a live event makes, and the ticks of the viewer's own clock in its last seconds. The sounds
// themselves are made in audio.js.

import { clockElapsed } from "./clocks.js";
import { parsePoint } from "./coords.js";

/** The sounds that can be switched off, each on unless stored off: a stone played, a pass, my clock's ticks. */
export const SOUND_SETTINGS = ["move", "pass", "clock"];
/** The localStorage key of the settings: `{"move": true, "pass": false, "clock": true}`. */
export const SOUNDS_KEY = "tesuji.sounds";
/** The clock ticks each second of the last this many milliseconds of main time or of an overtime period. */
export const TICK_FROM_MS = 10000;

/** The settings stored as `text` (null or anything unreadable: all on). */
export function readSoundSettings(text) {
  let saved = null;
  try {
    saved = JSON.parse(text ?? "null");
  } catch {
    saved = null;
  }
  const object = saved && typeof saved === "object" ? saved : {};
  return Object.fromEntries(SOUND_SETTINGS.map((name) => [name, object[name] !== false]));
}

/** The settings as stored. */
export function writeSoundSettings(settings) {
  return JSON.stringify(Object.fromEntries(SOUND_SETTINGS.map((name) => [name, settings?.[name] !== false])));
}

/**
 * The sound of an action that a live event brings (the opponent's or one's own; never those of a first load or
 * a resync, which the page does not ask about): `move` for a play on the board (`width` × `height`), `pass` for
 * a pass, null for anything else (marks, accepts, take-backs, the server's proposal) or when switched off.
 */
export function soundFor(action, { width, height }, settings) {
  if (!action || action.by === "server") return null;
  const text = String(action.move ?? "");
  if (text === "pass") return settings?.pass ? "pass" : null;
  if (parsePoint(text, width, height)) return settings?.move ? "move" : null;
  return null;
}

/** A canonical duration of a time control (`1h`, `10m`, `30s`, `1m30.5s`, `2d`) in milliseconds; null if none. */
export function parseDuration(text) {
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(String(text ?? ""));
  if (!m || !text) return null;
  const [, d, h, min, s] = m.map((part) => Number(part ?? 0));
  return ((d * 24 + h) * 60 + min) * 60000 + Math.round(s * 1000);
}

/** The length of one byo-yomi period of a control spec (`byoyomi:10m+5x30s` → 30000); null for other controls. */
export function periodLength(control) {
  const m = /^byoyomi:[^+]*\+\d+x(.+)$/.exec(String(control ?? ""));
  return m ? parseDuration(m[1]) : null;
}

/**
 * What is left of a running clock's side (the state's `clock.black` or `.white`) `elapsed` ms after the state
 * was taken: `{phase: "main" | "period", ms}`, the main time or the current overtime period (a byo-yomi period
 * used up starts the next one, `period` ms long, while periods are left; a Canadian block does not start again
 * before a move). Null when the clock cannot run out (no limit) or has already (flagged).
 */
export function timeLeft(side, elapsed, period = null) {
  if (!side || side.flagged || side.overtime === "none") return null;
  const main = Number(side.main_ms ?? 0);
  if (main > elapsed) return { phase: "main", ms: main - elapsed };
  if (side.overtime !== "byoyomi" && side.overtime !== "canadian") return { phase: "main", ms: 0 };
  let over = elapsed - main;
  let left = Number(side.period_ms ?? 0);
  let periods = Number(side.periods ?? 1);
  if (side.overtime === "byoyomi" && period > 0) {
    while (over >= left && periods > 1) {
      over -= left;
      left = period;
      periods -= 1;
    }
  }
  return { phase: "period", ms: Math.max(0, left - over) };
}

/**
 * The second the viewer's clock should tick now (10 … 1: the seconds left, rounded up), or null: only the viewer's
 * own clock (`viewer`: their colour; spectators have none), while it runs in play, in the last 10 s of its main
 * time or of an overtime period, with the clock sound on. The page ticks when the answer changes to a number.
 * `elapsed` is the time since the state was taken; a clock stopped by a vacation has not run meanwhile.
 */
export function tickSecond({ clock, phase, viewer, elapsed, settings }) {
  if (!settings?.clock || !viewer || !clock || phase !== "playing" || clock.running !== viewer) return null;
  const left = timeLeft(clock[viewer], clockElapsed(clock[viewer], elapsed), periodLength(clock.control));
  if (!left || left.ms <= 0 || left.ms > TICK_FROM_MS) return null;
  return Math.ceil(left.ms / 1000);
}
