import { halfPoints } from "./format.js";
import { clockWords } from "./words.js";
// Rules spec strings (docs/RULES.md, README "Rules specs"): composing one from the create-table form and reading
// one back for display. Pure functions; the server is the judge of what is valid.

export const PRESETS = ["bga", "tromp-taylor", "ideal", "aga", "chinese", "japanese", "new-zealand"];
export const BGA_SIZES = [9, 13, 19];
/** Sizes offered for the other presets (any side 1–25 works through the advanced field). */
export const PRESET_SIZES = [5, 7, 9, 11, 13, 15, 17, 19, 21, 25];
export const COUNTINGS = ["japanese", "chinese"];
export const BGA_KOMI = ["none", "normal", "big", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"];
export const DEFAULT_SIZE = 19;

/**
 * The spec string of the create form's values:
 * `{spec, preset, size, counting, komi, aga, handicap, komiText}`.
 * A non-empty advanced `spec` wins; `bga` always spells out its four options; other presets name only what
 * differs from their defaults (`japanese:size=13`, `ideal:handicap=3`).
 */
export function composeSpec(o) {
  const advanced = String(o.spec ?? "").trim();
  if (advanced) return advanced;
  const preset = o.preset || "bga";
  if (preset === "bga") {
    const size = BGA_SIZES.includes(Number(o.size)) ? Number(o.size) : DEFAULT_SIZE;
    const counting = COUNTINGS.includes(o.counting) ? o.counting : "japanese";
    const komi = BGA_KOMI.includes(o.komi) ? o.komi : "normal";
    const aga = o.aga === "off" ? "off" : "on";
    return `bga:size=${size},counting=${counting},komi=${komi},aga=${aga}`;
  }
  const parts = [];
  const size = Number(o.size);
  if (Number.isInteger(size) && size !== DEFAULT_SIZE) parts.push(`size=${size}`);
  const handicap = Number(o.handicap);
  if (Number.isInteger(handicap) && handicap > 0) parts.push(`handicap=${handicap}`);
  // Spaces are never part of a komi ("B0 / W7" means B0/W7); the server reports anything else it cannot read.
  const komi = String(o.komiText ?? "").replace(/\s+/g, "");
  if (komi) parts.push(`komi=${komi}`);
  return parts.length ? `${preset}:${parts.join(",")}` : preset;
}

/** `japanese:size=9x13,komi=6.5` → {preset, settings: {size, komi}, width, height}. */
export function parseSpec(spec) {
  const text = String(spec ?? "").trim();
  const colon = text.indexOf(":");
  const preset = (colon < 0 ? text : text.slice(0, colon)).trim().toLowerCase();
  const settings = {};
  if (colon >= 0) {
    for (const part of text.slice(colon + 1).split(",")) {
      const eq = part.indexOf("=");
      if (eq > 0) settings[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
    }
  }
  let width = DEFAULT_SIZE;
  let height = DEFAULT_SIZE;
  const m = /^(\d+)(?:x(\d+))?$/i.exec(settings.size ?? "");
  if (m) {
    width = Number(m[1]);
    height = Number(m[2] ?? m[1]);
  }
  return { preset, settings, width, height };
}

/**
 * Short readable parts of a spec, each already translated with `t`:
 * `bga:size=9,counting=japanese,komi=normal,aga=on` → ["Board Game Arena", "9×9", "Japanese counting", ...].
 */
export function summarizeSpec(spec, t) {
  const { preset, settings, width, height } = parseSpec(spec);
  const known = PRESETS.includes(preset) || preset === "korean";
  const parts = [known ? t(`preset.${preset}`) : preset];
  parts.push(t("rules.size", { w: width, h: height }));
  for (const [key, value] of Object.entries(settings)) {
    const v = value.toLowerCase();
    if (key === "size") continue;
    if (key === "counting" && COUNTINGS.includes(v)) parts.push(t(`rules.counting.${v}`));
    else if (key === "komi" && preset === "bga" && /^h[2-9]$/.test(v)) parts.push(t("rules.handicap", { n: v.slice(1) }));
    else if (key === "komi" && preset === "bga" && BGA_KOMI.includes(v)) parts.push(t(`rules.bga-komi.${v}`));
    else if (key === "komi") parts.push(t("rules.komi", { komi: value }));
    else if (key === "aga" && (v === "on" || v === "off")) parts.push(t(`rules.aga.${v}`));
    else if (key === "handicap" && /^\d+$/.test(v)) parts.push(t("rules.handicap", { n: Number(v) }));
    else parts.push(`${key}=${value}`);
  }
  return parts;
}

/**
 * What a game's spec leaves unsaid, for a listing or the game page: its komi (White's net komi in half-points,
 * `game.komi`, also 0) and handicap when the spec names neither, and its clock (`game.time`: a time control, or
 * none for an untimed game), the clock in words.
 */
export function gameFacts(game, t) {
  const { settings } = parseSpec(game.rules);
  const facts = [];
  const bgaHandicap = /^h[2-9]$/i.test(settings.komi ?? "");
  // A komi the spec gives as a number (6.5, B0/W7) is shown by it; a word (bga's normal, h2) is not a number.
  const komiNamed = /^([-+]?\d|[bw]-?\d)/i.test(settings.komi ?? "");
  if (!komiNamed && typeof game.komi === "number") facts.push(t("rules.komi", { komi: halfPoints(game.komi) }));
  if (!("handicap" in settings) && !bgaHandicap && game.handicap >= 2) facts.push(t("rules.handicap", { n: game.handicap }));
  facts.push(game.time ? clockWords(game.time, t) : t("rules.untimed"));
  return facts;
}
