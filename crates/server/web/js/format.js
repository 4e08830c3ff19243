// Numbers and results as the pages show them. Pure functions.

/** Half-points (the API's komi, totals and margins: 15 = 7.5) as text: `7.5`, `-3`, `0.5`. */
export function halfPoints(n) {
  const v = Number(n);
  if (!Number.isFinite(v)) return "";
  const sign = v < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(v));
  return `${sign}${Math.floor(abs / 2)}${abs % 2 === 1 ? ".5" : ""}`;
}

/**
 * An SGF `RE` value → {kind, winner, margin}: kind is `points` (margin as text), `resign`, `time`, `forfeit`,
 * `win` (no margin given), `draw`, `void` or `unknown`; winner `black`/`white` or null.
 */
export function parseResult(re) {
  const text = String(re ?? "").trim();
  if (text === "0" || /^(draw|jigo)$/i.test(text)) return { kind: "draw", winner: null, margin: null };
  if (/^void$/i.test(text)) return { kind: "void", winner: null, margin: null };
  const m = /^([BW])\+(.*)$/i.exec(text);
  if (!m) return { kind: "unknown", winner: null, margin: null };
  const winner = m[1].toUpperCase() === "B" ? "black" : "white";
  const rest = m[2].trim();
  if (rest === "") return { kind: "win", winner, margin: null };
  if (/^(r|resign)$/i.test(rest)) return { kind: "resign", winner, margin: null };
  if (/^(t|time)$/i.test(rest)) return { kind: "time", winner, margin: null };
  if (/^(f|forfeit)$/i.test(rest)) return { kind: "forfeit", winner, margin: null };
  if (/^\d+(\.\d+)?$/.test(rest)) {
    return Number(rest) === 0
      ? { kind: "tiebreak", winner, margin: rest }
      : { kind: "points", winner, margin: rest };
  }
  return { kind: "unknown", winner, margin: null };
}

/** A result sentence through `t`, e.g. "Black wins by 3.5 points" / "黑胜 3.5 目". */
export function formatResult(re, t) {
  const r = parseResult(re);
  const winner = r.winner ? t(`color.${r.winner}`) : "";
  switch (r.kind) {
    case "draw":
    case "void":
      return t(`result.${r.kind}`);
    case "unknown":
      return String(re ?? "");
    default:
      return t(`result.${r.kind}`, { winner, margin: r.margin ?? "" });
  }
}

/** Which colour a user id has among the `players` of a state or summary, or null. */
export function colorOf(players, userId) {
  if (!players || userId == null) return null;
  for (const color of ["black", "white"]) {
    const p = players[color];
    if (p && p.id != null && p.id === userId) return color;
  }
  return null;
}

/** Seconds since the Unix epoch as a date and time in `language`; "" for none. */
export function formatDate(seconds, language) {
  if (!seconds) return "";
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(
    new Date(seconds * 1000),
  );
}

/** The number of moves of a summary, whether the server sends a count or the list. */
export function moveCount(moves) {
  if (Array.isArray(moves)) return moves.length;
  const n = Number(moves);
  return Number.isFinite(n) ? n : 0;
}

/** A duration in milliseconds as a clock shows it: `m:ss`, `h:mm:ss`; from a day up (an untimed game's long
 * absence), whole days and hours through `t("time.days", {days, hours})`. */
export function formatDuration(ms, t) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  if (total >= 86400) {
    return t("time.days", { days: Math.floor(total / 86400), hours: Math.floor((total % 86400) / 3600) });
  }
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** The rank of a rating as the server names it (crates/rating: 100 points a rank, 2100 is 1 dan, 2000 is 1 kyu;
 * 30 kyu to 9 dan): `5k`, `1d`; "" for no number. */
export function rankOf(rating) {
  const v = Number(rating);
  if (rating === null || rating === undefined || !Number.isFinite(v)) return "";
  const steps = Math.floor((v - 2100) / 100);
  return steps >= 0 ? `${Math.min(steps + 1, 9)}d` : `${Math.min(-steps, 30)}k`;
}

/** A rank such as `5k?` (`?`: provisional) through `t("rank.kyu"|"rank.dan", {n})`, the `?` kept; anything else
 * as it is. */
export function formatRank(rank, t) {
  const m = /^(\d+)([kd])(\?)?$/.exec(String(rank ?? ""));
  if (!m) return String(rank ?? "");
  return t(m[2] === "k" ? "rank.kyu" : "rank.dan", { n: Number(m[1]) }) + (m[3] ?? "");
}

/** A browser's user-agent as a person names it: the browser and the system, or the text itself when unknown. */
export function browserName(agent) {
  if (!agent) return null;
  const browser = [
    ["Edg/", "Edge"],
    ["OPR/", "Opera"],
    ["Firefox/", "Firefox"],
    ["Chrome/", "Chrome"],
    ["Safari/", "Safari"],
  ].find(([mark]) => agent.includes(mark))?.[1];
  const system = [
    ["Android", "Android"],
    ["iPhone", "iPhone"],
    ["iPad", "iPad"],
    ["Windows", "Windows"],
    ["Mac OS X", "macOS"],
    ["Linux", "Linux"],
  ].find(([mark]) => agent.includes(mark))?.[1];
  if (!browser) return agent.slice(0, 40);
  return system ? `${browser}, ${system}` : browser;
}
