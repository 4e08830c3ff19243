// Clocks and rules in words (js/words.js), in every language.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { interpolate, LANGUAGES } from "../js/i18n.js";
import { gameFacts } from "../js/spec.js";
import { CLOCK_PRESETS, clockWords, rulesWords } from "../js/words.js";

const dictionaries = Object.fromEntries(
  Object.keys(LANGUAGES).map((lang) => [
    lang,
    JSON.parse(readFileSync(new URL(`../i18n/${lang}.json`, import.meta.url), "utf8")),
  ]),
);
/** A `t` over one language that fails on a missing key, so that a gap cannot pass as text. */
const tOf = (lang) => (key, params) => {
  assert.ok(Object.hasOwn(dictionaries[lang], key), `${lang} lacks ${key}`);
  return interpolate(dictionaries[lang][key], params);
};

const CLOCKS = [
  ["fischer:3m+10s,max=3m", "Fischer: 3 min + 10 s a move (at most 3 min)"],
  ["fischer:90s+2s", "Fischer: 1 min 30 s + 2 s a move"],
  ["byoyomi:10m+5x30s", "Byo-yomi: 10 min + 5 × 30 s"],
  ["byoyomi:0s+3x1.5s", "Byo-yomi: 0 s + 3 × 1.5 s"],
  ["canadian:10m+25/5m", "Canadian: 10 min + 25 stones in 5 min"],
  ["absolute:1h30m", "Absolute: 1 h 30 min for the game"],
  ["simple:30s", "30 s a move"],
  ["none", "No clock"],
  ["blitz", "Fischer: 3 min + 10 s a move (at most 3 min)"],
  ["rapid", "Fischer: 10 min + 20 s a move (at most 10 min)"],
  ["classical", "Fischer: 30 min + 30 s a move (at most 30 min)"],
  ["correspondence", "Fischer: 3 d + 1 d a move (at most 3 d)"],
];

const RULES = [
  ["japanese", { komi: 13 }, "Japanese rules, komi 6.5"],
  ["japanese:size=9", { komi: 13 }, "Japanese rules (9×9), komi 6.5"],
  ["chinese", { komi: 15, handicap: 3 }, "Chinese rules, komi 7.5, handicap 3"],
  ["korean", { komi: 13 }, "Korean rules, komi 6.5"],
  ["aga", { komi: 15 }, "AGA rules, komi 7.5"],
  ["new-zealand", { komi: 14 }, "New Zealand rules, komi 7"],
  ["tromp-taylor", { komi: 0 }, "Tromp-Taylor rules, komi 0"],
  ["ideal:handicap=2", { komi: 0 }, "Ideal rules, komi 0, handicap 2"],
  [
    "bga:size=19,counting=japanese,komi=normal,aga=on",
    { komi: 15 },
    "Board Game Arena rules (Japanese counting, AGA rules on), komi 7.5",
  ],
  [
    "bga:size=9,counting=chinese,komi=h3,aga=off",
    {},
    "Board Game Arena rules (9×9, Chinese counting, AGA rules off), no komi, handicap 3",
  ],
];

test("every clock kind and preset in English words", () => {
  const t = tOf("en");
  for (const [spec, words] of CLOCKS) assert.equal(clockWords(spec, t), words, spec);
  for (const name of Object.keys(CLOCK_PRESETS)) assert.ok(CLOCKS.some(([spec]) => spec === name), name);
});

test("every ruleset in English words, komi and handicap stated", () => {
  const t = tOf("en");
  for (const [spec, facts, words] of RULES) assert.equal(rulesWords(spec, t, facts), words, spec);
});

test("every clock and ruleset in every language: translated, no spec syntax, numbers kept", () => {
  const en = tOf("en");
  for (const lang of Object.keys(LANGUAGES)) {
    const t = tOf(lang);
    for (const [spec] of CLOCKS) {
      const words = clockWords(spec, t);
      assert.doesNotMatch(words, /[{}]|fischer|byoyomi|canadian|max=|\d[smhd]\b|\+\d+x/, `${lang} ${spec}: ${words}`);
      for (const n of spec.match(/\d+(\.\d+)?(?=x|\/)/g) ?? []) assert.ok(words.includes(n), `${lang} ${spec}: ${words}`);
      if (lang !== "en") assert.notEqual(words, clockWords(spec, en), `${lang} ${spec} is not translated`);
    }
    for (const [spec, facts] of RULES) {
      const words = rulesWords(spec, t, facts);
      assert.doesNotMatch(words, /[{}=]|[a-z]:[a-z]/i, `${lang} ${spec}: ${words}`);
      if (lang !== "en") assert.notEqual(words, rulesWords(spec, en, facts), `${lang} ${spec} is not translated`);
    }
  }
});

test("the game facts name the clock in words", () => {
  const t = tOf("en");
  const facts = gameFacts({ rules: "japanese", komi: 13, handicap: 0, time: "fischer:3m+10s,max=3m" }, t);
  assert.ok(facts.includes("Fischer: 3 min + 10 s a move (at most 3 min)"), facts.join(" | "));
  assert.ok(!facts.join(" ").includes("fischer:"), facts.join(" | "));
});

test("an unknown spec is shown as it is", () => {
  const t = tOf("en");
  assert.equal(clockWords("hourglass:5m", t), "hourglass:5m");
  assert.equal(rulesWords("klingon:size=9", t), "klingon:size=9");
});

test("the news tell a finished game from the reader's side, in every language", async () => {
  const { newsResult } = await import("../js/news.js");
  const t = tOf("en");
  const game = (result, you) => ({ result, you, status: "over" });
  assert.equal(newsResult(game("B+R", "black"), t), "You won by resignation");
  assert.equal(newsResult(game("B+R", "white"), t), "You lost by resignation");
  assert.equal(newsResult(game("W+T", "black"), t), "You lost on time");
  assert.equal(newsResult(game("W+3.5", "white"), t), "You won by 3.5");
  assert.equal(newsResult(game("B+F", "white"), t), "You lost by forfeit");
  assert.equal(newsResult(game("B+", "black"), t), "You won");
  assert.equal(newsResult(game("W+0", "black"), t), "You lost equal scores on the tie-break");
  // Nobody won, or the reader did not play: as the record says.
  assert.equal(newsResult(game("0", "black"), t), "Draw");
  assert.equal(newsResult(game("B+R", undefined), t), "Black wins by resignation");
  for (const lang of Object.keys(LANGUAGES)) {
    const tl = tOf(lang);
    for (const result of ["B+R", "B+T", "B+F", "B+", "B+0", "B+2.5"]) {
      const won = newsResult(game(result, "black"), tl);
      const lost = newsResult(game(result, "white"), tl);
      assert.notEqual(won, lost, `${lang} ${result}`);
      assert.doesNotMatch(won + lost, /[{}]/, `${lang} ${result}`);
      if (result === "B+2.5") assert.ok(won.includes("2.5") && lost.includes("2.5"), `${lang}: ${won} / ${lost}`);
    }
  }
});

test("one error text: a headline the server's sentence repeats in other words is not shown twice", async () => {
  const { saysAlready } = await import("../js/page.js");
  // The server's sentences, by reason: crates/server/src/error.rs gives each error its sentence, and
  // crates/server/src/http/answer.rs its reason.
  const errors = readFileSync(new URL("../../src/error.rs", import.meta.url), "utf8");
  const answers = readFileSync(new URL("../../src/http/answer.rs", import.meta.url), "utf8");
  const sentences = {};
  for (const [, sentence, variant] of errors.matchAll(/#\[error\("([^"{]*)"\)\]\s*(\w+)\s*,/g)) sentences[variant] = sentence;
  const reasons = {};
  for (const [, variant, reason] of answers.matchAll(/Error::(\w+)\s*=>\s*\(StatusCode::\w+,\s*"(\w+)"\)/g)) {
    reasons[reason] = sentences[variant];
  }
  const en = dictionaries.en;
  for (const reason of ["name_taken", "seat_taken"]) {
    const sentence = reasons[reason];
    assert.equal(typeof sentence, "string", `no sentence for ${reason}`);
    assert.ok(saysAlready(sentence, en[`reason.${reason}`]), `${en[`reason.${reason}`]} / ${sentence}`);
  }
  // Still shown where the sentence does not say it.
  assert.equal(saysAlready("situational superko forbids that play", "Ko"), false);
  assert.equal(saysAlready("a name has 3 to 20 letters", "Name taken"), false);
  assert.equal(saysAlready("the point is occupied", "Occupied"), true);
});
