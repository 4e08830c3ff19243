// The pure modules of the pages. Run: node --test crates/server/web/tests/*.test.mjs (`cargo xtask test` does).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { addMessages, chatTime, isMessage, turnsAt, visibleMessages } from "../js/chat.js";
import { absentNotice, awayLeft, clockElapsed, clockLeft, clockText } from "../js/clocks.js";
import { COLUMNS, parsePoint, pointName, starPoints } from "../js/coords.js";
import { eventState } from "../js/events.js";
import { branches, lines } from "../js/variations.js";
import { browserName, colorOf, formatDuration, formatRank, formatResult, halfPoints, moveCount, parseResult, rankOf } from "../js/format.js";
import { interpolate, LANGUAGES, pickLanguage } from "../js/i18n.js";
import { actionLabel, afterSeen, countLabel, NEWS_GAP_MS, newestAt, newsGames, refreshDelay } from "../js/news.js";
import { chatNotification, mayNotify, notificationFor, notificationText, notifyControl, waitsFor } from "../js/notify.js";
import { idFromPath, inviteUrl, safeNext } from "../js/paths.js";
import { FRAME, MIN_SPAN, plotHistory, ratingAxis } from "../js/plot.js";
import { positions } from "../js/positions.js";
import {
  acceptBody,
  noteHandled,
  noteWaiting,
  othersSeeks,
  parseRankInput,
  rangeLabel,
  readSeekMemory,
  seekBody,
  seekFacts,
  seekToFollow,
  waitingSeeks,
} from "../js/seek.js";
import { backoffDelay } from "../js/socket.js";
import {
  parseDuration,
  periodLength,
  readSoundSettings,
  soundFor,
  tickSecond,
  timeLeft,
  writeSoundSettings,
} from "../js/sounds.js";
import { composeSpec, gameFacts, parseSpec, summarizeSpec } from "../js/spec.js";
import {
  askedMove,
  countTurns,
  isUndoAction,
  mayAskUndo,
  readMoves,
  replayAgrees,
  standingActions,
  standingTurns,
  takenBack,
  turnOf,
  UNDO_ACTIONS,
  undoPauseLeft,
} from "../js/undo.js";
import { DAY_MS, readDays, untilText, vacationCard } from "../js/vacation.js";

const names = (points, h) => points.map((p) => pointName(p.col, p.row, h)).sort();

test("coordinates skip I and count rows from the bottom", () => {
  assert.equal(COLUMNS.length, 25);
  assert.ok(!COLUMNS.includes("I"));
  assert.equal(pointName(0, 18, 19), "A1");
  assert.equal(pointName(8, 0, 19), "J19");
  assert.equal(pointName(3, 15, 19), "D4");
  assert.deepEqual(parsePoint("D4", 19, 19), { col: 3, row: 15 });
  assert.deepEqual(parsePoint("j19", 19, 19), { col: 8, row: 0 });
  assert.deepEqual(parsePoint("Z25", 25, 25), { col: 24, row: 0 });
  assert.deepEqual(parsePoint("T1", 19, 19), { col: 18, row: 18 });
  for (const bad of ["I5", "U1", "A20", "A0", "pass", "", "D"]) assert.equal(parsePoint(bad, 19, 19), null, bad);
  // rectangular: 9 wide, 13 high
  assert.deepEqual(parsePoint("J13", 9, 13), { col: 8, row: 0 });
  assert.equal(parsePoint("K1", 9, 13), null);
});

test("star points of 9, 13 and 19", () => {
  assert.deepEqual(names(starPoints(9, 9), 9), ["C3", "C7", "E5", "G3", "G7"]);
  assert.deepEqual(names(starPoints(13, 13), 13), ["D10", "D4", "G7", "K10", "K4"]);
  assert.deepEqual(names(starPoints(19, 19), 19), ["D10", "D16", "D4", "K10", "K16", "K4", "Q10", "Q16", "Q4"]);
  assert.deepEqual(starPoints(5, 5), []);
});

test("spec strings from the create form", () => {
  const bga = { preset: "bga", size: "9", counting: "japanese", komi: "normal", aga: "on" };
  assert.equal(composeSpec(bga), "bga:size=9,counting=japanese,komi=normal,aga=on");
  assert.equal(
    composeSpec({ ...bga, size: "13", counting: "chinese", komi: "h3", aga: "off" }),
    "bga:size=13,counting=chinese,komi=h3,aga=off",
  );
  // bga only knows 9, 13, 19
  assert.equal(composeSpec({ ...bga, size: "7" }), "bga:size=19,counting=japanese,komi=normal,aga=on");
  assert.equal(composeSpec({ preset: "japanese", size: "13" }), "japanese:size=13");
  assert.equal(composeSpec({ preset: "tromp-taylor", size: "19" }), "tromp-taylor");
  assert.equal(composeSpec({ preset: "ideal", size: "19", handicap: "3" }), "ideal:handicap=3");
  assert.equal(composeSpec({ preset: "ideal", size: "19", handicap: "0", komiText: " B0 / W7 " }), "ideal:komi=B0/W7");
  assert.equal(composeSpec({ preset: "chinese", size: "9", handicap: "2", komiText: "0.5" }), "chinese:size=9,handicap=2,komi=0.5");
  // the advanced field wins
  assert.equal(composeSpec({ ...bga, spec: "  new-zealand:size=9x13 " }), "new-zealand:size=9x13");
});

test("reading specs back", () => {
  assert.deepEqual(parseSpec("japanese:size=9x13,komi=6.5"), {
    preset: "japanese",
    settings: { size: "9x13", komi: "6.5" },
    width: 9,
    height: 13,
  });
  assert.equal(parseSpec("tromp-taylor").width, 19);
  const t = (key, p) => (p ? `${key}${JSON.stringify(p)}` : key);
  assert.deepEqual(summarizeSpec("bga:size=9,counting=japanese,komi=h2,aga=on", t), [
    "preset.bga",
    'rules.size{"w":9,"h":9}',
    "rules.counting.japanese",
    'rules.handicap{"n":"2"}',
    "rules.aga.on",
  ]);
  assert.deepEqual(summarizeSpec("chinese:ko=situational", t), ["preset.chinese", 'rules.size{"w":19,"h":19}', "ko=situational"]);
});

test("half-points and results", () => {
  assert.equal(halfPoints(15), "7.5");
  assert.equal(halfPoints(14), "7");
  assert.equal(halfPoints(1), "0.5");
  assert.equal(halfPoints(0), "0");
  assert.equal(halfPoints(-7), "-3.5");
  assert.deepEqual(parseResult("B+3.5"), { kind: "points", winner: "black", margin: "3.5" });
  assert.deepEqual(parseResult("W+R"), { kind: "resign", winner: "white", margin: null });
  assert.equal(parseResult("W+T").kind, "time");
  assert.equal(parseResult("B+F").kind, "forfeit");
  assert.equal(parseResult("B+0").kind, "tiebreak");
  assert.equal(parseResult("0").kind, "draw");
  assert.equal(parseResult("Void").kind, "void");
  assert.equal(parseResult("?").kind, "unknown");
  const t = (key, p) => interpolate({ "color.black": "Black", "result.points": "{winner} wins by {margin}" }[key] ?? key, p);
  assert.equal(formatResult("B+3.5", t), "Black wins by 3.5");
  assert.equal(formatResult("odd", t), "odd");
});

test("seats and summaries", () => {
  const players = { black: { id: 3, name: "ann", guest: false }, white: { bot: "simple" } };
  assert.equal(colorOf(players, 3), "black");
  assert.equal(colorOf(players, 4), null);
  assert.equal(colorOf(players, null), null);
  assert.equal(colorOf({ black: null, white: null }, 3), null);
  assert.equal(moveCount(12), 12);
  assert.equal(moveCount([1, 2]), 2);
  assert.equal(moveCount(undefined), 0);
});

test("languages and interpolation", () => {
  assert.equal(pickLanguage("zh-Hans", ["en-US"]), "zh-Hans");
  assert.equal(pickLanguage("fr", ["zh-CN", "en"]), "zh-Hans");
  assert.equal(pickLanguage(null, ["de-DE", "en-GB"]), "en");
  assert.equal(pickLanguage(null, ["de-DE"]), "en");
  assert.equal(pickLanguage(null, []), "en");
  assert.equal(pickLanguage(null, ["ja-JP", "en"]), "ja");
  assert.equal(pickLanguage(null, ["de", "ko-KR"]), "ko");
  assert.equal(pickLanguage("ko", ["ja"]), "ko");
  assert.equal(interpolate("{a} and {b} and {c}", { a: 1, b: "x" }), "1 and x and {c}");
});

test("dictionaries: same keys, no duplicates, same placeholders", () => {
  const read = (lang) => readFileSync(new URL(`../i18n/${lang}.json`, import.meta.url), "utf8");
  const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  const dicts = {};
  // Every language the selector offers has a dictionary like the English one.
  const languages = Object.keys(LANGUAGES);
  assert.deepEqual(languages, ["en", "zh-Hans", "ja", "ko"]);
  for (const lang of languages) {
    const text = read(lang);
    const keys = [...text.matchAll(/^\s*"([^"]+)":/gm)].map((m) => m[1]);
    assert.equal(new Set(keys).size, keys.length, `${lang}: a key appears twice`);
    dicts[lang] = JSON.parse(text);
  }
  for (const lang of languages.slice(1)) {
    assert.deepEqual(Object.keys(dicts[lang]).sort(), Object.keys(dicts.en).sort(), lang);
    for (const [key, value] of Object.entries(dicts.en)) {
      assert.ok(dicts[lang][key].trim() !== "", `${lang} ${key} is empty`);
      assert.deepEqual(placeholders(dicts[lang][key]), placeholders(value), `${lang} ${key}`);
    }
  }
});

test("paths", () => {
  assert.equal(safeNext("?next=%2Fgame%2F7%3Finvite%3Dab"), "/game/7?invite=ab");
  for (const bad of ["", "?next=", "?next=https://evil.example/", "?next=//evil.example", "?next=/\\evil", "?next=javascript:alert(1)"]) {
    assert.equal(safeNext(bad), "/", bad);
  }
  assert.equal(idFromPath("game", "/game/12"), "12");
  assert.equal(idFromPath("game", "/game/12/"), "12");
  assert.equal(idFromPath("game", "/game/x"), null);
  assert.equal(idFromPath("player", "/game/12"), null);
  assert.equal(inviteUrl("http://h:1", 7, "a b"), "http://h:1/game/7?invite=a%20b");
});

test("reconnection backoff", () => {
  assert.equal(backoffDelay(0, () => 0.5), 500);
  assert.equal(backoffDelay(1, () => 0.5), 1000);
  assert.equal(backoffDelay(3, () => 0.5), 4000);
  assert.equal(backoffDelay(50, () => 0.5), 30000);
  assert.equal(backoffDelay(0, () => 0), 375);
  assert.equal(backoffDelay(0, () => 1), 625);
});

test("a replay's boards are rebuilt from its moves and removals", () => {
  // 3×3: stones go where the moves say and leave where `removed` says (the last move lifts A1 and A2).
  const replay = {
    width: 3,
    height: 3,
    start: ["...", "...", "..."],
    moves: ["B2", "A2", "pass", "A1", "B1"],
    colors: ["black", "white", "black", "white", "black"],
    removed: [[], [], [], [], ["A1", "A2"]],
  };
  const boards = positions(replay);
  assert.equal(boards.length, 6);
  assert.deepEqual(boards[0], ["...", "...", "..."]);
  assert.deepEqual(boards[2], ["...", "OX.", "..."]);
  assert.deepEqual(boards[3], boards[2], "a pass changes nothing");
  assert.deepEqual(boards[4], ["...", "OX.", "O.."]);
  assert.deepEqual(boards[5], ["...", ".X.", ".X."]);
  // A suicide: the played stone is among the removed, and the board is as before it.
  const suicide = positions({ ...replay, moves: ["A1"], colors: ["black"], removed: [["A1"]] });
  assert.deepEqual(suicide[1], suicide[0]);
  // The start is never changed in place.
  assert.deepEqual(replay.start, ["...", "...", "..."]);
});

test("a game's facts say its komi, handicap and clock unless the spec does", () => {
  const t = (key, args = {}) => `${key}${Object.values(args).map((v) => `:${v}`).join("")}`;
  assert.deepEqual(gameFacts({ rules: "chinese:size=9", komi: 15, handicap: 0, time: "fischer:3m+10s" }, t), [
    "rules.komi:7.5",
    "clock.words.fischer:unit.min:3:unit.s:10",
  ]);
  assert.deepEqual(gameFacts({ rules: "japanese", komi: 0, handicap: 3, time: null }, t), [
    "rules.komi:0",
    "rules.handicap:3",
    "rules.untimed",
  ]);
  // Named by the spec already: not said twice.
  assert.deepEqual(gameFacts({ rules: "aga:komi=0.5,handicap=2", komi: 1, handicap: 2 }, t), ["rules.untimed"]);
  assert.deepEqual(gameFacts({ rules: "bga:size=9,komi=h2", komi: 1, handicap: 2 }, t), ["rules.komi:0.5", "rules.untimed"]);
});

test("an event's state takes the page's moves, and its action when it adds one", () => {
  const known = [{ number: 1, color: "black", move: "D4" }];
  const action = { number: 2, color: "white", move: "pass" };
  const full = { version: 3, moves: [...known, action], move_count: 2 };
  // A state with its list (a resync, an HTTP answer) is taken as it is.
  assert.equal(eventState(known, action, full), full);
  // A move: the list grows by the action.
  assert.deepEqual(eventState(known, action, { version: 3, move_count: 2 }).moves, [...known, action]);
  // A presence change or a join: the list stays.
  assert.deepEqual(eventState(known, { number: 0, color: "white", move: "bob" }, { version: 3, move_count: 1 }).moves, known);
  // A list that is not the one before the event: resync.
  assert.equal(eventState(known, action, { version: 4, move_count: 3 }), null);
  assert.equal(eventState([], action, { version: 4, move_count: 2 }), null);
  assert.equal(eventState(undefined, action, { version: 3, move_count: 2 }), null);
  assert.equal(eventState(known, action, { version: 3 }), null);
});

test("a record's variations become whole lines that share their parent's moves", () => {
  // Boards as strings of the moves played, so that sharing is easy to see.
  const boardsOf = (start, part) => [start, ...(part.moves ?? []).map((_, j) => `${start}+${part.moves.slice(0, j + 1).join(",")}`)];
  const replay = {
    start: "s",
    moves: ["E5", "C7", "G3"],
    colors: ["black", "white", "black"],
    comments: [{ move: 1, text: "one" }, { move: 3, text: "three" }],
    variations: [
      { parent: 0, at: 1, moves: ["D6", "F4"], colors: ["white", "black"], shared_comments: 1, comments: [{ move: 2, text: "v" }] },
      { parent: 1, at: 2, moves: ["G7"], colors: ["black"], shared_comments: 2, comments: [] },
      { parent: 9, at: 0, moves: ["A1"], colors: ["black"], comments: [] },
    ],
  };
  const all = lines(replay, boardsOf);
  assert.equal(all.length, 4);
  assert.equal(all[3], null); // an unknown parent
  assert.deepEqual(all[1].moves, ["E5", "D6", "F4"]);
  assert.deepEqual(all[1].owner, [0, 1, 1]);
  assert.deepEqual(all[1].comments.map((c) => c.text), ["one", "v"]);
  assert.deepEqual(all[2].comments.map((c) => c.text), ["one", "v"]);
  assert.deepEqual(all[2].moves, ["E5", "D6", "G7"]);
  assert.deepEqual(all[2].owner, [0, 1, 2]);
  assert.equal(all[2].boards.length, 4);
  assert.equal(all[2].boards[1], all[0].boards[1]); // the shared position
  assert.equal(all[2].boards[3], "s+E5+D6+G7");
  // After move 1 the main line and variation 1 part; after move 2 of variation 1, variations 1 and 2.
  assert.deepEqual(branches(all, 0, 1).map((b) => [b.line, b.move]), [[0, "C7"], [1, "D6"]]);
  assert.deepEqual(branches(all, 1, 1).map((b) => [b.line, b.move]), [[1, "D6"], [0, "C7"]]);
  assert.deepEqual(branches(all, 1, 2).map((b) => [b.line, b.move]), [[1, "F4"], [2, "G7"]]);
  assert.deepEqual(branches(all, 0, 2).map((b) => b.line), [0]); // no choice
  assert.deepEqual(branches(all, 0, 3), []); // the end
  assert.deepEqual(branches(all, 3, 0), []);
});

test("durations read as a clock's, and in days and hours from a day up", () => {
  const t = (key, v) => `${key}:${v.days}d${v.hours}h`;
  assert.equal(formatDuration(0, t), "0:00");
  assert.equal(formatDuration(59_001, t), "1:00"); // rounded up, as a clock counts down
  assert.equal(formatDuration(3_599_000, t), "59:59");
  assert.equal(formatDuration(3_600_000, t), "1:00:00");
  assert.equal(formatDuration(86_399_000, t), "23:59:59");
  assert.equal(formatDuration(86_400_000, t), "time.days:1d0h");
  assert.equal(formatDuration(7 * 86_400_000 - 1_000, t), "time.days:6d23h");
  assert.equal(formatDuration(-5, t), "0:00");
});

test("ranks are named from ratings as the server names them, and translated", () => {
  assert.equal(rankOf(1500), "6k");
  assert.equal(rankOf(1599.9), "6k");
  assert.equal(rankOf(1662), "5k");
  assert.equal(rankOf(2000), "1k");
  assert.equal(rankOf(1999), "2k");
  assert.equal(rankOf(2100), "1d");
  assert.equal(rankOf(2950), "9d");
  assert.equal(rankOf(9000), "9d");
  assert.equal(rankOf(-500), "26k");
  assert.equal(rankOf(-1000), "30k");
  assert.equal(rankOf(null), "");
  assert.equal(rankOf("x"), "");
  const t = (key, p) => interpolate({ "rank.kyu": "{n}级", "rank.dan": "{n}段" }[key] ?? key, p);
  assert.equal(formatRank("5k?", t), "5级?");
  assert.equal(formatRank("3d", t), "3段");
  assert.equal(formatRank("odd", t), "odd");
  assert.equal(formatRank(undefined, t), "");
});

test("the rating axis covers the ratings with a few round ticks", () => {
  for (const [lo, hi] of [[1500, 1500], [1432, 1718], [900, 2600], [0, 3000], [-40, 12], [1700, 1600]]) {
    const axis = ratingAxis(lo, hi);
    assert.ok(axis.lo <= Math.min(lo, hi) && axis.hi >= Math.max(lo, hi), `${lo}–${hi}: ${JSON.stringify(axis)}`);
    assert.ok(axis.hi - axis.lo >= MIN_SPAN, `${lo}–${hi}`);
    assert.ok(axis.ticks.length >= 2 && axis.ticks.length <= 5, `${lo}–${hi}: ${axis.ticks}`);
    for (const tick of axis.ticks) {
      assert.ok(tick >= axis.lo && tick <= axis.hi, `${lo}–${hi}: ${tick}`);
      assert.ok(tick % 100 === 0, `${lo}–${hi}: ${tick} is on no rank boundary`);
    }
    assert.deepEqual(axis.ticks, [...axis.ticks].sort((a, b) => a - b));
  }
  // One rating: widened around it, not an axis of zero height.
  assert.deepEqual(ratingAxis(1500, 1500).ticks, [1400, 1500, 1600]);
  assert.ok(ratingAxis(NaN, NaN).hi > ratingAxis(NaN, NaN).lo);
});

test("a rating history is placed in the graph's frame", () => {
  const left = FRAME.left;
  const right = FRAME.width - FRAME.right;
  const top = FRAME.top;
  const bottom = FRAME.height - FRAME.bottom;
  const history = [[4, 1000, 1500], [9, 1100, 1620], [12, 4000, 1580], [20, 5000, 1710]];
  const plot = plotHistory(history);
  assert.equal(plot.points.length, 4);
  // The first and last game at the plot's edges, the others by time between them.
  assert.equal(plot.points[0].x, left);
  assert.equal(plot.points[3].x, right);
  assert.ok(plot.points[1].x < plot.points[2].x);
  assert.ok(plot.points[1].x - plot.points[0].x < plot.points[2].x - plot.points[1].x, "x follows time, not order");
  // Higher ratings stand higher (smaller y), and every point is inside the plot.
  assert.ok(plot.points[1].y < plot.points[0].y);
  assert.ok(plot.points[3].y < plot.points[1].y);
  assert.ok(plot.points[2].y > plot.points[1].y);
  for (const p of plot.points) {
    assert.ok(p.x >= left && p.x <= right && p.y >= top && p.y <= bottom, JSON.stringify(p));
  }
  assert.deepEqual(plot.points.map((p) => p.game), [4, 9, 12, 20]);
  assert.equal(plot.line, plot.points.map((p) => `${p.x},${p.y}`).join(" "));
  // Ticks: inside the plot, the higher rating higher up, and a tick at a point's rating at that point's height.
  for (const tick of plot.ticks) assert.ok(tick.y >= top && tick.y <= bottom, JSON.stringify(tick));
  assert.ok(plot.ticks[0].y > plot.ticks.at(-1).y);
  const at1500 = plot.ticks.find((tick) => tick.rating === 1500);
  assert.equal(at1500?.y, plot.points[0].y);
  assert.deepEqual(plot.dates.map((d) => [d.at, d.x]), [[1000, left], [5000, right]]);
});

test("one rated game, equal times and an empty history give numbers, never NaN", () => {
  const finite = (plot) => {
    for (const p of plot.points) assert.ok(Number.isFinite(p.x) && Number.isFinite(p.y), JSON.stringify(p));
    for (const tick of plot.ticks) assert.ok(Number.isFinite(tick.y), JSON.stringify(tick));
    for (const d of plot.dates) assert.ok(Number.isFinite(d.x), JSON.stringify(d));
    assert.ok(!plot.line.includes("NaN"), plot.line);
  };
  const one = plotHistory([[3, 1000, 1662]]);
  finite(one);
  assert.equal(one.points.length, 1);
  assert.equal(one.points[0].x, (FRAME.left + FRAME.width - FRAME.right) / 2);
  assert.ok(one.points[0].y > FRAME.top && one.points[0].y < FRAME.height - FRAME.bottom);
  assert.equal(one.dates.length, 1);
  // Two games rated in the same second: by order, still at the edges.
  const same = plotHistory([[3, 1000, 1500], [4, 1000, 1500]]);
  finite(same);
  assert.deepEqual(same.points.map((p) => p.x), [FRAME.left, FRAME.width - FRAME.right]);
  assert.equal(same.points[0].y, same.points[1].y);
  for (const empty of [[], null, undefined, [[1, 2, null]]]) {
    const plot = plotHistory(empty);
    finite(plot);
    assert.deepEqual([plot.points, plot.line, plot.ticks, plot.dates], [[], "", [], []]);
  }
});

test("chat messages are kept once each, in the server's order, without the muted users'", () => {
  const ann = { id: 1, name: "ann" };
  const bob = { id: 2, name: "bob", rank: "3k" };
  const m = (id, user, text = `m${id}`) => ({ id, game: 3, user, channel: "players", move: 0, text, at: 1000 * id });
  const known = new Map();
  assert.equal(addMessages(known, [m(2, bob), m(1, ann)]), true);
  // The socket's copy of a message the POST already answered: nothing new.
  assert.equal(addMessages(known, [m(2, bob)]), false);
  assert.equal(addMessages(known, [null, { id: "x", text: "t", user: ann }, { id: 9, user: ann }, undefined]), false);
  assert.equal(addMessages(known, undefined), false);
  assert.equal(known.size, 2);
  assert.equal(addMessages(known, [m(3, ann, "<b>bold</b>")]), true);
  assert.deepEqual(visibleMessages(known, new Set()).map((x) => x.id), [1, 2, 3]);
  assert.deepEqual(visibleMessages(known, new Set([1])).map((x) => x.id), [2]);
  assert.deepEqual(visibleMessages(known, null).map((x) => x.text), ["m1", "m2", "<b>bold</b>"]);
  assert.equal(isMessage(m(4, bob)), true);
  assert.equal(isMessage({ id: 4, text: "x", user: null }), false);
});

test("a chat message names the plays and passes before it, not the marks", () => {
  const isTurn = (move) => move === "pass" || /^[A-HJ-T]\d+$/.test(move);
  const moves = [
    { number: 1, move: "D4" },
    { number: 2, move: "pass" },
    { number: 3, move: "pass" },
    { number: 4, move: "mark E5" },
    { number: 5, move: "accept" },
  ];
  assert.equal(turnsAt(moves, 0, isTurn), 0);
  assert.equal(turnsAt(moves, 1, isTurn), 1);
  assert.equal(turnsAt(moves, 3, isTurn), 3);
  assert.equal(turnsAt(moves, 5, isTurn), 3);
  // Sent after an action this page has not seen yet: counted as a move.
  assert.equal(turnsAt(moves.slice(0, 2), 3, isTurn), 3);
  assert.equal(turnsAt(null, 12, isTurn), 12);
  assert.equal(turnsAt(moves, undefined, isTurn), 0);
});

test("a chat message's time: the time of day, the date too when not today", () => {
  const now = new Date(2024, 11, 4, 18, 0).getTime();
  const today = chatTime(new Date(2024, 11, 4, 9, 5).getTime(), "en", now);
  const earlier = chatTime(new Date(2024, 11, 1, 9, 5).getTime(), "en", now);
  assert.match(today, /9:05/);
  assert.ok(!today.includes("2024") && !today.includes("24"), today);
  assert.match(earlier, /9:05/);
  assert.ok(earlier.length > today.length, earlier);
  assert.equal(chatTime(null, "en", now), "");
  assert.equal(chatTime("soon", "en", now), "");
});

// A game's list with take-backs, as the server stores it (docs/API.md, "Taking back a move"): the move taken
// back stays, followed (after the request and any refusal) by the `undo-accept` that took it back.
const isGoTurn = (move) => move === "pass" || /^[A-HJ-T]\d+$/.test(move);
const actions = (...texts) =>
  texts.map((text, k) => {
    const [color, move] = text.split(" ");
    return { number: k + 1, color, move };
  });

test("a move taken back is no move: the others are numbered as the server's replay numbers them", () => {
  const moves = actions(
    "black D4", // 1: move 1
    "white E5", // 2: move 2
    "black C3", // 3: taken back
    "black undo", // 4
    "white undo-decline", // 5
    "black undo", // 6
    "white undo-accept", // 7: takes back C3
    "black E6", // 8: move 3, the number C3 had
    "white pass", // 9: move 4
  );
  assert.deepEqual(UNDO_ACTIONS, ["undo", "undo-accept", "undo-decline"]);
  assert.equal(isUndoAction("undo-decline"), true);
  assert.equal(isUndoAction("D4"), false);
  assert.deepEqual([...takenBack(moves)], [3]);
  assert.deepEqual(standingActions(moves).map((m) => m.number), [1, 2, 8, 9]);
  assert.deepEqual(standingTurns(moves, isGoTurn).map((m) => m.move), ["D4", "E5", "E6", "pass"]);
  assert.deepEqual(
    readMoves(moves, isGoTurn).map((r) => [r.action.number, r.kind, r.turn]),
    [
      [1, "turn", 1],
      [2, "turn", 2],
      [3, "taken-back", null],
      [4, "undo", null],
      [5, "undo", null],
      [6, "undo", null],
      [7, "undo", null],
      [8, "turn", 3],
      [9, "turn", 4],
    ],
  );
  assert.equal(countTurns(moves, isGoTurn), 4);
  assert.equal(turnOf(moves, 8, isGoTurn), 3);
  assert.equal(turnOf(moves, 3, isGoTurn), null);
  assert.equal(turnOf(moves, 6, isGoTurn), null);
  // A chat message names the positions that stand: sent while C3 was on the board, it names move 2 (C3 is in no
  // replay); after E6, move 3.
  assert.equal(turnsAt(moves, 3, isGoTurn), 2);
  assert.equal(turnsAt(moves, 7, isGoTurn), 2);
  assert.equal(turnsAt(moves, 8, isGoTurn), 3);
  assert.equal(turnsAt(moves, 11, isGoTurn), 6); // two actions the page has not seen yet
  // Without any take-back the list reads as before: marks and accepts are events.
  const plain = actions("black D4", "white pass", "black pass", "server mark E5", "white accept");
  assert.deepEqual(readMoves(plain, isGoTurn).map((r) => r.kind), ["turn", "turn", "turn", "event", "event"]);
  assert.deepEqual([...takenBack(plain)], []);
  assert.deepEqual(readMoves(undefined, isGoTurn), []);
});

test("take-backs in a row: each takes back the last move that stands, a pass too", () => {
  const moves = actions(
    "black D4", // 1: move 1
    "white E5", // 2: taken back second
    "black pass", // 3: taken back first
    "black undo",
    "white undo-accept", // takes back 3 (Black to move again)
    "white undo", // White's E5 is now the last move that stands
    "black undo-accept", // takes back 2
    "white F6", // 8: move 2
  );
  assert.deepEqual([...takenBack(moves)].sort(), [2, 3]);
  assert.deepEqual(standingTurns(moves, isGoTurn).map((m) => m.move), ["D4", "F6"]);
  assert.equal(turnOf(moves, 8, isGoTurn), 2);
  // A request that lapsed (the opponent moved instead) takes nothing back.
  const lapsed = actions("black D4", "black undo", "white E5", "black C3");
  assert.deepEqual([...takenBack(lapsed)], []);
  assert.equal(countTurns(lapsed, isGoTurn), 3);
});

test("who may ask to take back a move, and what a waiting request would take back", () => {
  const state = (moves, extra = {}) => ({ status: "playing", phase: "playing", undo: true, moves, ...extra });
  const played = actions("black D4", "white E5");
  assert.equal(mayAskUndo(state(played), "white", isGoTurn), true);
  assert.equal(mayAskUndo(state(played), "black", isGoTurn), false); // White's move is the last
  assert.equal(mayAskUndo(state(played), null, isGoTurn), false); // a spectator
  assert.equal(mayAskUndo(state(played, { undo: false }), "white", isGoTurn), false); // the table says no
  assert.equal(mayAskUndo(state(played, { phase: "marking" }), "white", isGoTurn), false);
  assert.equal(mayAskUndo(state([]), "black", isGoTurn), false); // nothing to take back
  const waiting = actions("black D4", "white E5", "white undo");
  assert.equal(mayAskUndo(state(waiting, { undo_asked: "white" }), "white", isGoTurn), false);
  assert.deepEqual(askedMove(state(waiting, { undo_asked: "white" })), { number: 2, color: "white", move: "E5" });
  assert.equal(askedMove(state(played)), null);
  // Declined: White may ask again; accepted: Black's D4 is the last move that stands, Black may ask.
  const declined = [...waiting, { number: 4, color: "black", move: "undo-decline" }];
  assert.equal(mayAskUndo(state(declined), "white", isGoTurn), true);
  // ... once the pause after the refusal is over: 30 s in the state, counted from its arrival.
  const paused = state(declined, { undo_again_in_ms: 30000 });
  assert.equal(mayAskUndo(paused, "white", isGoTurn), false);
  assert.equal(mayAskUndo(paused, "white", isGoTurn, 29999), false);
  assert.equal(mayAskUndo(paused, "white", isGoTurn, 30000), true);
  assert.equal(undoPauseLeft(paused, 10000), 20000);
  assert.equal(undoPauseLeft(paused, 40000), 0);
  assert.equal(undoPauseLeft(state(declined), 0), 0);
  const accepted = [...waiting, { number: 4, color: "black", move: "undo-accept" }];
  assert.equal(mayAskUndo(state(accepted), "white", isGoTurn), false);
  assert.equal(mayAskUndo(state(accepted), "black", isGoTurn), true);
  // A mark or the like last is no move of one's own.
  const marked = actions("black D4", "white pass", "black pass", "black mark E5");
  assert.equal(mayAskUndo(state(marked), "black", isGoTurn), false);
});

test("a replay fetched before a take-back no longer agrees with the game", () => {
  const before = actions("black D4", "white E5", "black C3");
  const after = actions("black D4", "white E5", "black C3", "black undo", "white undo-accept", "black E6");
  const replay = ["D4", "E5", "C3"];
  assert.equal(replayAgrees(replay, before, isGoTurn, 3), true);
  assert.equal(replayAgrees(replay, after, isGoTurn, 2), true); // the first two positions are the same
  assert.equal(replayAgrees(replay, after, isGoTurn, 3), false); // move 3 is E6 now
  assert.equal(replayAgrees(["D4"], before, isGoTurn, 2), false); // too short
  assert.equal(replayAgrees([], before, isGoTurn, 0), true);
  assert.equal(replayAgrees(undefined, before, isGoTurn, 0), false); // none fetched yet
});

// ---- sounds, notifications and news ----

/** A dictionary stand-in: the key and its parameters, so that a test sees which text was chosen. */
const tk = (key, params) => (params ? `${key}${JSON.stringify(params)}` : key);

test("sound settings: each on unless stored off, anything unreadable all on", () => {
  const on = { move: true, pass: true, clock: true };
  assert.deepEqual(readSoundSettings(null), on);
  assert.deepEqual(readSoundSettings("not json"), on);
  assert.deepEqual(readSoundSettings("[false]"), on);
  assert.deepEqual(readSoundSettings('{"pass": false, "clock": "no"}'), { move: true, pass: false, clock: true });
  const off = { move: false, pass: true, clock: false };
  assert.deepEqual(readSoundSettings(writeSoundSettings(off)), off);
  assert.equal(writeSoundSettings({ move: false, extra: 1 }), '{"move":false,"pass":true,"clock":true}');
});

test("a live event's sound: a play, a pass, nothing else, nothing switched off", () => {
  const size = { width: 9, height: 9 };
  const on = readSoundSettings(null);
  const play = (move, extra = {}) => ({ number: 3, color: "white", move, ...extra });
  assert.equal(soundFor(play("D4"), size, on), "move");
  assert.equal(soundFor(play("pass"), size, on), "pass");
  for (const other of ["resign", "accept", "dispute", "undo", "undo-accept", "mark C3", "timeout", "claim", "K10"]) {
    assert.equal(soundFor(play(other), size, on), null, other);
  }
  assert.equal(soundFor(play("mark C3", { by: "server" }), size, on), null);
  assert.equal(soundFor(null, size, on), null); // a join
  assert.equal(soundFor(play("D4"), size, { ...on, move: false }), null);
  assert.equal(soundFor(play("pass"), size, { ...on, move: false }), "pass");
  assert.equal(soundFor(play("pass"), size, { ...on, pass: false }), null);
});

test("durations and byo-yomi periods of a control spec", () => {
  assert.equal(parseDuration("30s"), 30000);
  assert.equal(parseDuration("10m"), 600000);
  assert.equal(parseDuration("1h2m3.5s"), 3723500);
  assert.equal(parseDuration("2d"), 172800000);
  assert.equal(parseDuration(""), null);
  assert.equal(parseDuration("5 min"), null);
  assert.equal(periodLength("byoyomi:10m+5x30s"), 30000);
  assert.equal(periodLength("byoyomi:0s+3x1m"), 60000);
  assert.equal(periodLength("fischer:3m+10s"), null);
  assert.equal(periodLength("canadian:10m+25/5m"), null);
  assert.equal(periodLength(undefined), null);
});

test("what is left of a running clock: main time, then the current period", () => {
  const fischer = { main_ms: 60000, overtime: "sudden-death", flagged: false };
  assert.deepEqual(timeLeft(fischer, 55000), { phase: "main", ms: 5000 });
  assert.deepEqual(timeLeft(fischer, 70000), { phase: "main", ms: 0 });
  const byoyomi = { main_ms: 5000, overtime: "byoyomi", periods: 3, period_ms: 30000, flagged: false };
  assert.deepEqual(timeLeft(byoyomi, 1000), { phase: "main", ms: 4000 });
  assert.deepEqual(timeLeft(byoyomi, 15000), { phase: "period", ms: 20000 });
  // The first period used up: the next one, whole.
  assert.deepEqual(timeLeft(byoyomi, 40000, 30000), { phase: "period", ms: 25000 });
  // The last period used up: nothing left (the server decides the loss).
  assert.deepEqual(timeLeft(byoyomi, 200000, 30000), { phase: "period", ms: 0 });
  // Without the period's length, the current period only.
  assert.deepEqual(timeLeft(byoyomi, 40000), { phase: "period", ms: 0 });
  const canadian = { main_ms: 0, overtime: "canadian", stones: 5, period_ms: 12000, flagged: false };
  assert.deepEqual(timeLeft(canadian, 4000), { phase: "period", ms: 8000 });
  assert.equal(timeLeft({ main_ms: 0, overtime: "none" }, 0), null);
  assert.equal(timeLeft({ ...fischer, flagged: true }, 0), null);
  assert.equal(timeLeft(null, 0), null);
});

test("the clock ticks each second of the last ten, on the viewer's own running clock only", () => {
  const side = (main_ms, extra = {}) => ({ main_ms, overtime: "sudden-death", flagged: false, ...extra });
  const clock = { control: "fischer:3m+10s", running: "black", black: side(12000), white: side(5000) };
  const settings = readSoundSettings(null);
  const at = (elapsed, extra = {}) =>
    tickSecond({ clock, phase: "playing", viewer: "black", elapsed, settings, ...extra });
  assert.equal(at(0), null); // 12 s left
  assert.equal(at(1999), null); // 10.001 s
  assert.equal(at(2000), 10);
  assert.equal(at(2500), 10);
  assert.equal(at(3001), 9);
  assert.equal(at(11500), 1);
  assert.equal(at(12000), null); // up: the server's timeout follows
  assert.equal(at(5000, { viewer: "white" }), null); // the opponent's clock runs, not mine
  assert.equal(at(5000, { viewer: null }), null); // a spectator
  assert.equal(at(5000, { phase: "marking" }), null);
  assert.equal(at(5000, { settings: { ...settings, clock: false } }), null);
  assert.equal(at(5000, { clock: null }), null);
  // Byo-yomi: the last seconds of the main time, then of each period.
  const byoyomi = {
    control: "byoyomi:10m+5x30s",
    running: "white",
    black: side(600000),
    white: side(15000, { overtime: "byoyomi", periods: 5, period_ms: 30000 }),
  };
  const w = (elapsed) => tickSecond({ clock: byoyomi, phase: "playing", viewer: "white", elapsed, settings });
  assert.equal(w(4000), null);
  assert.equal(w(6000), 9);
  assert.equal(w(20000), null); // 25 s of the first period
  assert.equal(w(37000), 8);
  assert.equal(w(46000), null); // the next period: 29 s
  assert.equal(w(66000), 9);
});

test("whom the game waits for", () => {
  const playing = { status: "playing", phase: "playing", to_move: "white", accepted: {} };
  assert.equal(waitsFor(playing, "white"), true);
  assert.equal(waitsFor(playing, "black"), false);
  assert.equal(waitsFor(playing, null), false);
  const marking = { status: "marking", phase: "marking", accepted: { black: true, white: false } };
  assert.equal(waitsFor(marking, "white"), true);
  assert.equal(waitsFor(marking, "black"), false);
  assert.equal(waitsFor({ status: "over", phase: "over" }, "black"), false);
  assert.equal(waitsFor({ status: "open", phase: "playing", to_move: "black" }, "black"), false);
});

test("a notification when the game now waits for the viewer", () => {
  const isTurn = (m) => m === "pass" || /^[A-T]\d+$/.test(m);
  const playing = (to_move, extra = {}) => ({ status: "playing", phase: "playing", to_move, accepted: {}, ...extra });
  const act = (color, move, extra = {}) => ({ number: 5, color, move, ...extra });
  const me = "black";
  // The opponent played or passed: my turn.
  assert.deepEqual(notificationFor(playing("white"), playing("black"), act("white", "D4"), me, isTurn), {
    kind: "turn",
    color: "white",
    move: "D4",
  });
  assert.deepEqual(notificationFor(playing("white"), playing("black"), act("white", "pass"), me, isTurn), {
    kind: "turn",
    color: "white",
    move: "pass",
  });
  // My own move, a spectator, a change that does not concern me: nothing.
  assert.equal(notificationFor(playing("black"), playing("white"), act("black", "D4"), me, isTurn), null);
  assert.equal(notificationFor(playing("white"), playing("black"), act("white", "D4"), null, isTurn), null);
  assert.equal(notificationFor(playing("black"), playing("black"), null, me, isTurn), null); // a presence change
  assert.equal(notificationFor(null, playing("black"), act("white", "D4"), me, isTurn), null);
  // The opponent asks to take back their move (it is my turn already).
  assert.deepEqual(
    notificationFor(playing("black"), playing("black", { undo_asked: "white" }), act("white", "undo"), me, isTurn),
    { kind: "undo", color: "white" },
  );
  // My own request is no news to me; the opponent accepting it gives me the move again.
  assert.equal(
    notificationFor(playing("white"), playing("white", { undo_asked: "black" }), act("black", "undo"), me, isTurn),
    null,
  );
  assert.deepEqual(
    notificationFor(playing("white", { undo_asked: "black" }), playing("black"), act("white", "undo-accept"), me, isTurn),
    { kind: "your-turn" },
  );
  // The table filled with me to move.
  assert.deepEqual(
    notificationFor({ status: "open", phase: "playing", to_move: "black" }, playing("black"), null, me, isTurn),
    { kind: "start" },
  );
  // The opponent's pass ended play: the marking waits for me; the server's proposal after it says nothing more.
  const marking = (accepted = {}) => ({ status: "marking", phase: "marking", accepted });
  assert.deepEqual(notificationFor(playing("white"), marking(), act("white", "pass"), me, isTurn), { kind: "marking" });
  assert.equal(notificationFor(marking(), marking(), act("white", "mark C3", { by: "server" }), me, isTurn), null);
  // My pass ended it: nothing. The opponent changed the marks after I accepted: my acceptance is awaited again.
  assert.equal(notificationFor(playing("black"), marking(), act("black", "pass"), me, isTurn), null);
  assert.deepEqual(
    notificationFor(marking({ black: true }), marking(), act("white", "mark C3"), me, isTurn),
    { kind: "marking" },
  );
  // The end: the opponent's resignation or last acceptance, or my own loss on time; not my own resignation.
  const over = { status: "over", phase: "over", result: "B+R" };
  assert.deepEqual(notificationFor(playing("white"), over, act("white", "resign"), me, isTurn), { kind: "over", result: "B+R" });
  assert.deepEqual(
    notificationFor(playing("black"), { ...over, result: "W+T" }, act("black", "timeout"), me, isTurn),
    { kind: "over", result: "W+T" },
  );
  assert.equal(notificationFor(playing("black"), { ...over, result: "W+R" }, act("black", "resign"), me, isTurn), null);
  assert.equal(notificationFor(over, over, act("white", "resign"), me, isTurn), null);
});

test("the opponent's chat, whether to notify, and the words", () => {
  const players = { black: { id: 1, name: "Ann" }, white: { id: 2, name: "Bob" } };
  const from = (id) => ({ id: 9, user: { id, name: "x" }, text: "hi" });
  assert.deepEqual(chatNotification(from(2), "black", players), { kind: "chat", color: "white", text: "hi" });
  assert.equal(chatNotification(from(1), "black", players), null); // my own
  assert.equal(chatNotification(from(3), "black", players), null); // a spectator's
  assert.equal(chatNotification(from(2), null, players), null); // I am a spectator
  assert.equal(mayNotify("hidden", "granted", null), true);
  assert.equal(mayNotify("hidden", "granted", "on"), true);
  assert.equal(mayNotify("visible", "granted", "on"), false);
  assert.equal(mayNotify("hidden", "default", "on"), false);
  assert.equal(mayNotify("hidden", "denied", "on"), false);
  assert.equal(mayNotify("hidden", "granted", "off"), false);
  const names = { black: "Ann", white: "Bob" };
  assert.equal(notificationText({ kind: "turn", color: "white", move: "D4" }, names, tk), 'notify.played{"name":"Bob","move":"D4"}');
  assert.equal(notificationText({ kind: "turn", color: "white", move: "pass" }, names, tk), 'notify.passed{"name":"Bob"}');
  assert.equal(notificationText({ kind: "undo", color: "black" }, names, tk), 'notify.undo{"name":"Ann"}');
  const over = notificationText({ kind: "over", result: "B+R" }, names, tk);
  assert.ok(over.startsWith("notify.over{") && over.includes("result.resign"), over);
  assert.equal(notificationText({ kind: "over", result: null }, names, tk), "notify.over-none");
  assert.equal(notificationText({ kind: "marking" }, names, tk), "notify.marking");
  assert.equal(notificationText({ kind: "your-turn" }, names, tk), "notify.your-turn");
  assert.equal(notificationText({ kind: "chat", color: "white", text: "hi" }, names, tk), 'notify.chat{"name":"Bob","text":"hi"}');
});

test("the notify control: asked only through its button, explained when blocked, hidden when impossible", () => {
  const base = { supported: true, permission: "default", setting: null, seated: true, over: false };
  assert.deepEqual(notifyControl(base), { shown: true, button: "enabled", status: null, off: false });
  assert.deepEqual(notifyControl({ ...base, permission: "denied" }), {
    shown: true,
    button: "disabled",
    status: "notify.denied",
    off: false,
  });
  assert.deepEqual(notifyControl({ ...base, permission: "granted" }), {
    shown: true,
    button: "hidden",
    status: "notify.on",
    off: true,
  });
  assert.deepEqual(notifyControl({ ...base, permission: "granted", setting: "off" }), {
    shown: true,
    button: "enabled",
    status: null,
    off: false,
  });
  for (const gone of [{ supported: false }, { seated: false }, { over: true }]) {
    assert.equal(notifyControl({ ...base, ...gone }).shown, false, JSON.stringify(gone));
  }
});

test("news: read from the answer, marked read up to the newest shown, in words", () => {
  const answer = {
    since: 100,
    games: [
      {
        game: 7,
        rules: "chinese:size=9",
        black: "ann",
        white: "bob",
        status: "playing",
        result: null,
        count: 12,
        actions: [
          { number: 5, color: "white", move: "D4", at: 300 },
          { number: 7, color: "white", move: "pass", at: 500 },
        ],
      },
      { game: 3, status: "over", result: "B+R", count: 1, actions: [{ number: 9, color: "white", move: "resign", at: 200 }] },
      { game: 4, count: 0, actions: [] }, // nothing to show
      { game: "x", actions: [{ at: 1, move: "D4" }] }, // no game
      null,
    ],
  };
  const games = newsGames(answer);
  assert.deepEqual(
    games.map((g) => [g.game, g.count, g.actions.length]),
    [
      [7, 12, 2],
      [3, 1, 1],
    ],
  );
  assert.deepEqual(newsGames(null), []);
  assert.equal(newestAt(games), 500);
  assert.equal(newestAt([]), null);
  // Marked read up to 300: what came at or before goes, the counts with it.
  assert.deepEqual(
    afterSeen(games, 300).map((g) => [g.game, g.count, g.actions.map((a) => a.at)]),
    [[7, 11, [500]]],
  );
  assert.deepEqual(afterSeen(games, 500), []);
  assert.equal(afterSeen(games, null), games);
  assert.equal(countLabel(games[0], tk), 'news.more{"n":12,"shown":2}');
  assert.equal(countLabel(games[1], tk), 'news.count{"n":1}');
  const label = (color, move) => actionLabel({ number: 1, color, move, at: 1 }, tk);
  assert.equal(label("white", "D4"), "D4");
  assert.equal(label("white", "pass"), "move.pass");
  assert.equal(label("white", "resign"), "move.resign");
  assert.equal(label("white", "undo"), 'move.undo{"color":"color.white"}');
  assert.equal(label("white", "mark C3 D4"), 'move.mark{"points":"C3 D4"}');
  assert.equal(label("server", "mark C3"), 'move.server-mark{"points":"C3"}');
  assert.equal(label("server", "mark"), "move.server-mark-none");
});

test("the news are fetched at most once per gap", () => {
  assert.equal(NEWS_GAP_MS, 5000);
  assert.equal(refreshDelay(-Infinity, 1000), 0);
  assert.equal(refreshDelay(1000, 7000), 0);
  assert.equal(refreshDelay(1000, 2000), 4000);
  assert.equal(refreshDelay(1000, 2000, 500), 0);
});

// ---- automatch (seek.js) ----

test("a rank typed in the seek form's range", () => {
  assert.equal(parseRankInput(""), "");
  assert.equal(parseRankInput("  "), "");
  assert.equal(parseRankInput("15k"), "15k");
  assert.equal(parseRankInput(" 1D "), "1d");
  assert.equal(parseRankInput("3 kyu"), "3k");
  assert.equal(parseRankInput("30k"), "30k");
  assert.equal(parseRankInput("31k"), null);
  assert.equal(parseRankInput("10d"), null);
  assert.equal(parseRankInput("0k"), null);
  assert.equal(parseRankInput("strong"), null);
});

test("the seek form as the body of POST /api/seeks", () => {
  const values = { size: "9", speed: "rapid", ranked: false, minRank: "", maxRank: "", handicap: true };
  assert.deepEqual(seekBody(values), { body: { size: 9, speed: "rapid", handicap: true } });
  assert.deepEqual(seekBody({ ...values, ranked: true, minRank: "15K", maxRank: "1d", handicap: false }), {
    body: { size: 9, speed: "rapid", handicap: false, ranked: true, min_rank: "15k", max_rank: "1d" },
  });
  assert.deepEqual(seekBody({ ...values, maxRank: "pro" }), { error: "seek.bad-rank" });
});

test("taking another player's seek asks for the same game", () => {
  const seek = { id: 4, user: { id: 2, name: "Ann" }, rules: "chinese", size: 13, speed: "blitz", ranked: true };
  assert.deepEqual(acceptBody(seek), { size: 13, speed: "blitz", rules: "chinese", ranked: true, handicap: true });
  assert.equal(acceptBody(seek, false).handicap, false);
});

test("the seeks of others and my own waiting ones", () => {
  const seeks = [
    { id: 1, user: { id: 7 } },
    { id: 2, user: { id: 8 } },
    null,
  ];
  assert.deepEqual(othersSeeks(seeks, 7).map((s) => s.id), [2]);
  assert.deepEqual(othersSeeks(seeks, undefined).map((s) => s.id), [1, 2]);
  assert.deepEqual(othersSeeks(undefined, 7), []);
  assert.deepEqual(waitingSeeks([{ id: 1 }, { id: 2, game: 9 }]).map((s) => s.id), [1]);
  assert.deepEqual(waitingSeeks(null), []);
});

test("a matched seek is followed to its game once, and only one this tab saw waiting", () => {
  let memory = readSeekMemory(null);
  assert.deepEqual(memory, { watching: [], handled: [] });
  assert.deepEqual(readSeekMemory("not json"), { watching: [], handled: [] });
  // An old matched seek met on coming back to the lobby: not followed.
  assert.equal(seekToFollow([{ id: 3, game: 40 }], memory), null);
  memory = noteWaiting(memory, [5]);
  assert.equal(seekToFollow([{ id: 5 }], memory), null);
  assert.deepEqual(seekToFollow([{ id: 3, game: 40 }, { id: 5, game: 41 }], memory), { id: 5, game: 41 });
  memory = noteHandled(memory, 5);
  assert.equal(seekToFollow([{ id: 5, game: 41 }], memory), null);
  // Kept through sessionStorage, and noted again as waiting it stays handled.
  memory = readSeekMemory(JSON.stringify(noteWaiting(memory, [5])));
  assert.deepEqual(memory.handled, [5]);
  assert.equal(seekToFollow([{ id: 5, game: 41 }], memory), null);
  // The memory keeps the last 50 seeks only.
  for (let id = 100; id < 200; id++) memory = noteWaiting(memory, [id]);
  assert.equal(memory.watching.length, 50);
  assert.equal(memory.watching.at(-1), 199);
});

test("a seek in words", () => {
  const t = (key, params) => `${key}${params ? JSON.stringify(params) : ""}`;
  const seek = { size: 9, speed: "rapid", rules: "japanese", ranked: false, min_rank: null, max_rank: null };
  assert.deepEqual(seekFacts(seek, t, formatRank), [
    "9 × 9",
    "seek.speed.rapid",
    "preset.japanese",
    "seek.unranked",
    "seek.any-rank",
  ]);
  assert.equal(rangeLabel({ min_rank: "15k", max_rank: "1d" }, t, (r) => r), 'seek.range{"min":"15k","max":"1d"}');
  assert.equal(rangeLabel({ min_rank: "15k" }, t, (r) => r), 'seek.range-from{"min":"15k"}');
  assert.equal(rangeLabel({ max_rank: "1d" }, t, (r) => r), 'seek.range-up-to{"max":"1d"}');
  assert.equal(seekFacts({ ...seek, ranked: true }, t, formatRank)[3], "lobby.ranked");
});

// A stand-in for the dictionary: the key and its parameters, so that the tests read what the page would say.
const tr = (key, params) => (params ? `${key} ${JSON.stringify(params)}` : key);

test("a clock's text counts the running time down, then the overtime", () => {
  const fischer = { main_ms: 65000, overtime: "sudden-death", flagged: false, away_ms: null };
  assert.equal(clockText(fischer, 0, tr), "1:05");
  assert.equal(clockText(fischer, 5500, tr), "1:00"); // 59.5 s rounds up
  assert.equal(clockText(fischer, 70000, tr), "0:00");
  assert.equal(clockText({ ...fischer, flagged: true }, 0, tr), "clock.flagged");
  const byoyomi = { main_ms: 2000, overtime: "byoyomi", periods: 5, period_ms: 30000, flagged: false };
  assert.equal(clockText(byoyomi, 1000, tr), "0:01");
  assert.equal(clockText(byoyomi, 12000, tr), 'clock.periods {"time":"0:20","periods":5}');
  const canadian = { main_ms: 0, overtime: "canadian", stones: 7, period_ms: 300000, flagged: false };
  assert.equal(clockText(canadian, 60000, tr), 'clock.stones {"time":"4:00","stones":7}');
  // A correspondence clock in days and hours.
  const days = { main_ms: 3 * DAY_MS, overtime: "sudden-death", flagged: false };
  assert.equal(clockText(days, 3600000, tr), 'time.days {"days":2,"hours":23}');
  assert.equal(clockLeft(fischer, 5000), 60000);
  assert.equal(clockLeft(byoyomi, 12000), 20000);
});

test("a clock whose player is away on vacation stands still that long, then runs on from where it stood", () => {
  const side = { main_ms: 65000, overtime: "sudden-death", flagged: false, away_ms: 5000 };
  // The same time for the 5 s away...
  for (const elapsed of [0, 1000, 2500, 4999, 5000]) {
    assert.equal(clockText(side, elapsed, tr), "1:05", `${elapsed} ms`);
    assert.equal(clockLeft(side, elapsed), 65000, `${elapsed} ms`);
    assert.equal(clockElapsed(side, elapsed), 0);
  }
  // ...then it runs again.
  assert.equal(clockElapsed(side, 6000), 1000);
  assert.equal(clockText(side, 6000, tr), "1:04");
  assert.equal(clockText(side, 65000, tr), "0:05");
  assert.equal(clockLeft(side, 70000), 0);
  // Not away: it runs from the start; an absurd away_ms changes nothing.
  for (const away_ms of [null, undefined, 0, -5, "x"]) {
    assert.equal(clockElapsed({ ...side, away_ms }, 3000), 3000, String(away_ms));
  }
  // Away longer than the clock has: nothing runs out meanwhile.
  const short = { ...side, main_ms: 1000, away_ms: 2 * DAY_MS };
  assert.equal(clockLeft(short, DAY_MS), 1000);
  // Overtime stands still too.
  const byoyomi = { main_ms: 0, overtime: "byoyomi", periods: 3, period_ms: 30000, flagged: false, away_ms: 10000 };
  assert.equal(clockText(byoyomi, 9000, tr), 'clock.periods {"time":"0:30","periods":3}');
  assert.equal(clockText(byoyomi, 20000, tr), 'clock.periods {"time":"0:20","periods":3}');
});

test("how long a player is still away, from the state's away_ms", () => {
  const side = { main_ms: 1000, away_ms: 5000 };
  assert.equal(awayLeft(side, 0), 5000);
  assert.equal(awayLeft(side, 4000), 1000);
  assert.equal(awayLeft(side, 5000), null); // back
  assert.equal(awayLeft(side, 9000), null);
  assert.equal(awayLeft(side, -50), 5000); // a clock that stepped back counts from the state
  assert.equal(awayLeft({ main_ms: 1000, away_ms: null }, 0), null);
  assert.equal(awayLeft({ main_ms: 1000 }, 0), null);
  assert.equal(awayLeft(null, 0), null);
});

test("an absent opponent's notice promises a claim only once a move is played", () => {
  // Nobody has moved: nothing can be claimed, before the grace period's end or after; the game may be aborted.
  assert.equal(absentNotice("black", 30000, true), "unplayed");
  assert.equal(absentNotice("black", 0, true), "unplayed");
  assert.equal(absentNotice("white", 30000, false), "wait");
  assert.equal(absentNotice("white", 0, false), "now");
  assert.equal(absentNotice(null, 0, false), "other"); // a spectator
  assert.equal(absentNotice(null, 0, true), "other");
});

test("my clock does not tick while I am away on vacation", () => {
  const settings = readSoundSettings(null);
  const clock = {
    control: "fischer:3m+10s",
    running: "black",
    black: { main_ms: 12000, overtime: "sudden-death", flagged: false, away_ms: 5000 },
    white: { main_ms: 60000, overtime: "sudden-death", flagged: false, away_ms: null },
  };
  const at = (elapsed) => tickSecond({ clock, phase: "playing", viewer: "black", elapsed, settings });
  assert.equal(at(6999), null); // 12 s - 1.999 s run: 10.001 s
  assert.equal(at(7000), 10);
  assert.equal(at(16500), 1);
});

test("the vacation card: the days left, the vacation in progress, the days offered", () => {
  const view = (fields) => ({
    year: 2026,
    allowance_days: 30,
    used_ms: 0,
    left_ms: 30 * DAY_MS,
    left_days: 30,
    current: null,
    ...fields,
  });
  assert.deepEqual(vacationCard(view({})), {
    away: false,
    until: null,
    year: 2026,
    allowance: 30,
    left: 30,
    extraMs: 0,
    max: 30,
    days: 7,
  });
  // Fewer days left than the default: never more than are left.
  const few = vacationCard(view({ used_ms: 26 * DAY_MS, left_ms: 4 * DAY_MS, left_days: 4 }));
  assert.equal(few.max, 4);
  assert.equal(few.days, 4);
  // None left: nothing to take.
  const none = vacationCard(view({ used_ms: 30 * DAY_MS, left_ms: 0, left_days: 0 }));
  assert.deepEqual([none.max, none.days, none.away], [0, 0, false]);
  // Away: its end, and nothing more to take meanwhile.
  const away = vacationCard(
    view({ used_ms: 2 * DAY_MS, left_ms: 28 * DAY_MS, left_days: 28, current: { start_ms: 1000, end_ms: 2000 } }),
  );
  assert.deepEqual([away.away, away.until, away.left, away.max], [true, 2000, 28, 0]);
  // A vacation ended after a few seconds: 29 whole days, and the rest of the 30th.
  const early = vacationCard(view({ used_ms: 3000, left_ms: 30 * DAY_MS - 3000, left_days: 29 }));
  assert.deepEqual([early.left, early.extraMs, early.max, early.days], [29, DAY_MS - 3000, 29, 7]);
  // Nothing read yet.
  assert.deepEqual([vacationCard(null).max, vacationCard(null).away], [0, false]);
});

test("the days typed for a vacation", () => {
  assert.equal(readDays("7", 30), 7);
  assert.equal(readDays(" 2 ", 30), 2);
  assert.equal(readDays("30", 30), 30);
  assert.equal(readDays("30", 29), null);
  assert.equal(readDays("0", 30), null);
  assert.equal(readDays("1.5", 30), null);
  assert.equal(readDays("-1", 30), null);
  assert.equal(readDays("", 30), null);
  assert.equal(readDays("1e1", 30), null);
  assert.equal(readDays("3", 0), null);
});

test("a vacation's end in words: the year only when it is not this one", () => {
  const now = Date.UTC(2026, 5, 1, 12);
  const soon = untilText(Date.UTC(2026, 5, 8, 12, 30), "en", now);
  assert.ok(!soon.includes("2026"), soon);
  assert.match(soon, /Jun/);
  const next = untilText(Date.UTC(2027, 0, 5, 12), "en", Date.UTC(2026, 11, 20, 12));
  assert.match(next, /2027/);
  assert.ok(untilText(Date.UTC(2026, 5, 8), "ja", now).length > 0);
});

test("a session's browser is named as its owner would, from real user-agents", () => {
  const cases = [
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome, Linux"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge, Windows"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox, macOS"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Safari, iPhone"],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", "Chrome, Android"],
    ["curl/8.5.0", "curl/8.5.0"],
  ];
  for (const [agent, name] of cases) assert.equal(browserName(agent), name, agent);
  assert.equal(browserName(null), null);
  assert.equal(browserName("x".repeat(100)).length, 40);
});
