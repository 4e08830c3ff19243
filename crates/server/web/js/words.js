// Clocks and rules in words, for people: `fischer:3m+10s,max=3m` → "Fischer: 3 min + 10 s a move (at most 3 min)",
// `bga:size=19,counting=japanese,komi=normal,aga=on` → "Board Game Arena rules (Japanese counting, AGA rules on),
// komi 7.5". Pure functions over the spec strings the server sends (crates/clock and crates/rules grammars), with
// the texts through `t`; a spec these do not know is shown as it is.
import { halfPoints } from "./format.js";
import { parseDuration } from "./sounds.js";
import { parseSpec } from "./spec.js";

/** The clock presets as crates/clock names them, in full. */
export const CLOCK_PRESETS = {
  blitz: "fischer:3m+10s,max=3m",
  rapid: "fischer:10m+20s,max=10m",
  classical: "fischer:30m+30s,max=30m",
  correspondence: "fischer:3d+1d,max=3d",
};

/** A duration in milliseconds in words: "1 h 30 min", "10 s", "3 d", "1.5 s". */
export function durationWords(ms, t) {
  const parts = [];
  let rest = Math.max(0, Math.round(ms));
  for (const [unit, size] of [["d", 86400000], ["h", 3600000], ["min", 60000]]) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(t(`unit.${unit}`, { n }));
    rest %= size;
  }
  if (rest > 0 || parts.length === 0) parts.push(t("unit.s", { n: rest / 1000 }));
  return parts.join(" ");
}

/** A time control spec in words (`none`, a preset name, or `system:settings`); an unknown one as it is. */
export function clockWords(control, t) {
  const text = String(control ?? "").trim();
  const lower = text.toLowerCase();
  if (!text || lower === "none") return t("clock.words.none");
  if (Object.hasOwn(CLOCK_PRESETS, lower)) return clockWords(CLOCK_PRESETS[lower], t);
  const d = (s) => {
    const ms = parseDuration(s);
    return ms === null ? null : durationWords(ms, t);
  };
  const colon = text.indexOf(":");
  const system = lower.slice(0, colon);
  const settings = text.slice(colon + 1);
  let m;
  if (system === "absolute" && d(settings)) return t("clock.words.absolute", { main: d(settings) });
  if ((system === "simple" || system === "correspondence") && d(settings)) {
    return t("clock.words.simple", { per: d(settings) });
  }
  if (system === "fischer" && (m = /^([^+,]+)\+([^,]+)(?:,max=(.+))?$/.exec(settings)) && d(m[1]) && d(m[2])) {
    const params = { main: d(m[1]), inc: d(m[2]) };
    if (m[3] === undefined) return t("clock.words.fischer", params);
    if (d(m[3])) return t("clock.words.fischer-max", { ...params, max: d(m[3]) });
  }
  if (system === "byoyomi" && (m = /^([^+]+)\+(\d+)x(.+)$/.exec(settings)) && d(m[1]) && d(m[3])) {
    return t("clock.words.byoyomi", { main: d(m[1]), periods: Number(m[2]), period: d(m[3]) });
  }
  if (system === "canadian" && (m = /^([^+]+)\+(\d+)\/(.+)$/.exec(settings)) && d(m[1]) && d(m[3])) {
    return t("clock.words.canadian", { main: d(m[1]), stones: Number(m[2]), period: d(m[3]) });
  }
  return text;
}

const RULESETS = ["bga", "tromp-taylor", "ideal", "aga", "chinese", "japanese", "korean", "new-zealand"];

/**
 * A rules spec in words: the ruleset, what its options or overrides change in brackets, then the komi and the
 * handicap. `facts` may give what the spec leaves unsaid: `komi` (White's net komi in half-points) and `handicap`.
 */
export function rulesWords(spec, t, facts = {}) {
  const { preset, settings, width, height } = parseSpec(spec);
  if (!RULESETS.includes(preset)) return String(spec ?? "");
  const details = [];
  let komi = typeof facts.komi === "number" ? t("rules.komi", { komi: halfPoints(facts.komi) }) : null;
  let handicap = Number(facts.handicap) >= 2 ? Number(facts.handicap) : null;
  if (width !== 19 || height !== 19) details.push(t("rules.size", { w: width, h: height }));
  for (const [key, value] of Object.entries(settings)) {
    const v = value.toLowerCase();
    if (key === "size") continue;
    if (key === "counting" && (v === "japanese" || v === "chinese")) details.push(t(`rules.counting.${v}`));
    else if (key === "aga" && (v === "on" || v === "off")) details.push(t(`rules.aga.${v}`));
    else if (key === "komi" && /^h[1-9]$/.test(v)) {
      handicap = Number(v.slice(1)) >= 2 ? Number(v.slice(1)) : handicap;
      if (komi === null) komi = t("rules.bga-komi.none");
    } else if (key === "komi" && /^(none|normal|big)$/.test(v)) {
      if (komi === null) komi = t(`rules.bga-komi.${v}`);
    } else if (key === "komi") komi = t("rules.komi", { komi: value });
    else if (key === "handicap" && /^\d+$/.test(v)) handicap = Number(v) >= 2 ? Number(v) : null;
    else details.push(`${key}=${value}`);
  }
  const name = t(`ruleset.${preset}`);
  const parts = [details.length ? t("words.with-details", { rules: name, details: details.join(t("words.sep")) }) : name];
  if (komi !== null) parts.push(komi);
  if (handicap !== null) parts.push(t("rules.handicap", { n: handicap }));
  return parts.join(t("words.sep"));
}
