// The game page: the board and panel of one game, live over its WebSocket, actions over the socket (HTTP when it
// is down), the dead-stone marking and the result.

import { AnalysisCard, fillBest } from "./analysis-card.js";
import { ApiError, get, post, socketUrl } from "./api.js";
import { playSound, unlockOnGesture } from "./audio.js";
import { Board } from "./board.js";
import { addMessages, chatTime, turnsAt, visibleMessages } from "./chat.js";
import { absentNotice, awayLeft, clockLeft, clockText } from "./clocks.js";
import { parsePoint } from "./coords.js";
import { estimateMarks, estimateOffer, estimateText, isStale, readEstimate } from "./estimate.js";
import { eventState } from "./events.js";
import { colorOf, formatDuration, formatResult, halfPoints } from "./format.js";
import { currentLanguage, onLanguageChange, t } from "./i18n.js";
import { chatNotification, mayNotify, NOTIFY_KEY, notificationFor, notificationText, notifyControl } from "./notify.js";
import { boot, el, loginHref, playerName, playerNode, scrollWithin, showError } from "./page.js";
import { idFromPath, inviteUrl } from "./paths.js";
import { positions } from "./positions.js";
import { LiveSocket } from "./socket.js";
import { readSoundSettings, SOUND_SETTINGS, soundFor, SOUNDS_KEY, tickSecond, writeSoundSettings } from "./sounds.js";
import { gameFacts, summarizeSpec } from "./spec.js";
import { rulesWords } from "./words.js";
import { askedMove, countTurns, mayAskUndo, readMoves, replayAgrees, takenBack, turnOf, undoPauseLeft } from "./undo.js";
import { untilText } from "./vacation.js";

/** Socket actions unanswered after this long are sent again over HTTP (safe: they carry the version). */
const ACK_TIMEOUT_MS = 8000;
/** While the socket is down the state is fetched this often, so that the board never goes stale for long. */
const POLL_MS = 5000;

const $ = (id) => document.getElementById(id);
const gameId = idFromPath("game", location.pathname);
const invite = new URLSearchParams(location.search).get("invite");
// Browsers let a page sound only after a gesture: the first click or key on the page makes the audio context.
unlockOnGesture();
const session = await boot();
const me = session.user;

const message = $("message");
let cancelled = false; // the table was cancelled while this page was open
let game = null; // the current GameState
let hovered = null; // the point under the mouse
let tapped = null; // on touch screens the first tap previews, the second plays
let socket = null;
let nextRef = 1;
const pending = new Map(); // ref → {type, fields, version, timer}
// Looking back through the game: the server's replay of it (the boards after each play or pass), fetched when
// first needed and again once the game has moved past it, and the number of moves shown (null: the live board).
let review = null;
let viewing = null;
let reviewAsked = 0; // the latest step asked for: an older one whose fetch answers late is dropped
let reviewFetch = null; // the replay being fetched, shared by the steps that wait for it

const board = new Board($("board"), { onPoint: clickPoint, onHover: hoverPoint });

// ---- what I may do ----

function myColor() {
  return game ? colorOf(game.players, me?.id) : null;
}

function isPlaying() {
  return game?.status === "playing" && game.phase === "playing";
}

function myTurn() {
  return isPlaying() && myColor() === game.to_move;
}

function isMarking() {
  return game?.phase === "marking" && game.status !== "over";
}

/** Whether an action's text is a play or a pass (a move of the game), not a mark, an accept or the like. */
function isTurn(move) {
  return move === "pass" || (Boolean(game) && parsePoint(move, game.width, game.height) !== null);
}

/** Whether I may ask to take back my last move now (the server decides; this only enables the button). */
function mayAskTakeBack() {
  return mayAskUndo(game, myColor(), isTurn, performance.now() - clockTaken);
}

function stoneAt(point) {
  const at = parsePoint(point, game.width, game.height);
  const ch = at ? (game.board[at.row] ?? "")[at.col] : undefined;
  return ch === "X" || ch === "O";
}

// ---- messages ----

function clearMessage() {
  message.hidden = true;
  message.replaceChildren();
  delete message.dataset.reason;
  $("repeated").hidden = true;
}

let repeatedBoard = null;

/** A superko refusal: the earlier position the play would repeat, on a small board beside the message, and its
 * move marked in the list. */
function showRepeated(e) {
  const box = $("repeated");
  for (const li of document.querySelectorAll("#moves li.repeated")) li.classList.remove("repeated");
  const rows = Array.isArray(e?.board) ? e.board : null;
  box.hidden = !(rows && typeof e.repeats === "number");
  if (box.hidden) return;
  repeatedBoard ??= new Board($("repeated-board"));
  repeatedBoard.setSize(rows[0]?.length ?? 0, rows.length);
  repeatedBoard.render({ rows });
  box.dataset.move = String(e.repeats);
  // `repeats` is the action's number; the text names the move as the list numbers it (moves taken back
  // before it are not counted).
  const turn = e.repeats === 0 ? 0 : (turnOf(game?.moves, e.repeats, isTurn) ?? e.repeats);
  $("repeated-text").textContent = turn === 0 ? t("game.repeats-start") : t("game.repeats-move", { k: turn });
  document.querySelector(`#moves li[data-number="${e.repeats}"]`)?.classList.add("repeated");
}

function info(text) {
  message.className = "alert";
  message.hidden = false;
  message.replaceChildren(text);
  delete message.dataset.reason;
}

function refusal(e) {
  message.className = "alert";
  showError(message, e);
  showRepeated(e);
}

// ---- rendering ----

function moveText(m) {
  const text = String(m.move ?? "");
  if (["pass", "resign", "accept", "dispute", "claim", "timeout"].includes(text)) return t(`move.${text}`);
  // A request to take back a move and its answer: sentences that name who asked or answered.
  if (["undo", "undo-accept", "undo-decline"].includes(text)) return t(`move.${text}`, { color: t(`color.${m.color}`) });
  if (text === "mark" || text.startsWith("mark ")) {
    const points = text.slice(4).trim();
    // The first proposal, made by the server's estimate when play ended: nobody's mark.
    if (m.by === "server") return points ? t("move.server-mark", { points }) : t("move.server-mark-none");
    return points ? t("move.mark", { points }) : t("move.mark-none");
  }
  return text;
}

function renderPlayers() {
  const mine = myColor();
  for (const color of ["black", "white"]) {
    const box = $(`player-${color}`);
    const p = game.players?.[color] ?? null;
    const who = box.querySelector(".who");
    who.replaceChildren(playerNode(p));
    if (color === mine) who.append(el("span", { class: "muted" }, ` ${t("game.you")}`));
    box.querySelector(".stats").textContent = t("game.stats", {
      captures: game.captures?.[color] ?? 0,
      pass: game.pass_stones?.[color] ?? 0,
    });
    box.classList.toggle("to-move", isPlaying() && game.to_move === color);
    box.querySelector(".accepted").hidden = !(isMarking() && game.accepted?.[color]);
  }
}

// The clocks: the state carries both players' time when it was taken; the running one is counted down here from
// the moment the state arrived (the server's timer decides any loss on time), except while its player is away on
// vacation (`away_ms`, correspondence clocks only): it stands still that long, then runs on (clocks.js). A player
// away is marked by their name with the end of the vacation, on this browser's clock.
let clockTaken = 0;
let clockTakenAt = 0; // Date.now() then: where `away_ms` ends on the wall clock
let clockTimer = null;

function formatMs(ms) {
  return formatDuration(ms, t);
}

function renderClocks() {
  const clock = game.clock;
  const elapsed = performance.now() - clockTaken;
  let away = false;
  for (const color of ["black", "white"]) {
    const box = $(`clock-${color}`);
    box.hidden = !clock;
    const side = clock?.[color];
    // Still away now (the state said for how long from when it came); never once the game is over.
    const awayFor = side && !isOver(game) ? awayLeft(side, elapsed) : null;
    renderAway(color, awayFor);
    away ||= awayFor !== null;
    if (!clock) continue;
    const running = clock.running === color && game.phase === "playing";
    const ran = running ? elapsed : 0;
    box.textContent = clockText(side, ran, t);
    box.classList.toggle("running", running);
    const left = clockLeft(side, ran);
    box.classList.toggle("low", running && left < 20000);
    // Stopped by the vacation (on the player's own turn: the opponent's clock runs on).
    const stopped = running && awayFor !== null;
    box.classList.toggle("away", stopped);
    if (stopped) box.dataset.away = "true";
    else delete box.dataset.away;
    if (stopped) box.title = t("vacation.clock-stopped");
    else box.removeAttribute("title");
    box.dataset.leftMs = String(Math.round(left));
  }
  clockTick();
  // Ticking while a clock runs, and while a player is away (the mark goes when the vacation ends).
  const ticking = Boolean(clock?.running) || away;
  if (ticking && !clockTimer) clockTimer = setInterval(renderClocks, 250);
  if (!ticking && clockTimer) {
    clearInterval(clockTimer);
    clockTimer = null;
  }
}

/** The mark by a player away on vacation: "On vacation until …" (hidden when not away, `awayFor` null). */
function renderAway(color, awayFor) {
  const mark = $(`away-${color}`);
  mark.hidden = awayFor === null;
  if (awayFor === null) {
    mark.textContent = "";
    delete mark.dataset.until;
    mark.removeAttribute("title");
    return;
  }
  // Counted from the state's arrival, so the end shown does not move as the page ticks.
  const until = clockTakenAt + (game.clock[color].away_ms ?? 0);
  const text = t("vacation.until", { until: untilText(until, currentLanguage()) });
  if (mark.textContent !== text) mark.textContent = text;
  mark.dataset.until = String(until);
  mark.title = t("vacation.mark-title");
}

// An absent player (no page open on the game): the opponent's countdown to the claim, counted from the moment
// the state arrived like the clocks; the server decides whether a claim is allowed.
let absentTimer = null;

/** Nobody has moved yet: the game may be aborted, and cannot be claimed. */
function unplayed() {
  return (game.moves ?? []).length === 0;
}

function renderAbsent() {
  const box = $("absent");
  const mine = myColor();
  const elapsed = performance.now() - clockTaken;
  const away = (game.absent ?? []).filter((a) => a.color !== mine);
  const shown = away[0];
  box.hidden = !shown;
  $("claim").hidden = true;
  if (shown) {
    const claimIn = Math.max(0, shown.claim_in_ms - elapsed);
    const away = formatMs(shown.absent_ms + elapsed);
    // Nothing to claim before the first move, however long the grace period has run: the game can be aborted.
    const notice = absentNotice(mine, claimIn, unplayed());
    const text = {
      other: () => t("absent.other", { color: t(`color.${shown.color}`), time: away }),
      unplayed: () => t("absent.unplayed", { time: away }),
      wait: () => t("absent.wait", { time: formatMs(claimIn) }),
      now: () => t("absent.now", { time: away }),
    }[notice]();
    $("absent-text").textContent = text;
    $("claim").hidden = notice !== "now";
    box.dataset.color = shown.color;
    box.dataset.claimable = String(notice === "now");
  } else {
    delete box.dataset.color;
    delete box.dataset.claimable;
  }
  if (shown && !absentTimer) absentTimer = setInterval(renderAbsent, 500);
  if (!shown && absentTimer) {
    clearInterval(absentTimer);
    absentTimer = null;
  }
}

// The self-fill rule of timed ideal games (RULES.md §5): said when active, with each non-zero run.
function renderSelfFill() {
  const box = $("self-fill");
  const rule = game.self_fill;
  box.hidden = !rule;
  if (!rule) return;
  const runs = ["black", "white"]
    .filter((c) => rule[c] > 0)
    .map((c) => t("selffill.count", { color: t(`color.${c}`), count: rule[c] }));
  box.textContent = [t("selffill.active", { limit: rule.limit }), ...runs].join(" ");
  box.dataset.black = String(rule.black);
  box.dataset.white = String(rule.white);
}

function renderTurn() {
  const turn = $("turn");
  const mine = myColor();
  let text;
  if (game.status === "open") text = t("turn.waiting");
  else if (game.status === "over" || game.phase === "over") text = t("turn.over");
  else if (isMarking()) text = t("turn.marking");
  else if (mine && mine === game.to_move) text = t("turn.yours", { color: t(`color.${game.to_move}`) });
  else text = t("turn.to-move", { color: t(`color.${game.to_move}`) });
  turn.textContent = text;
  turn.dataset.color = game.to_move ?? "";
  turn.dataset.phase = game.phase ?? "";
  turn.dataset.status = game.status ?? "";
  turn.classList.toggle("mine", myTurn());
  const status = $("status");
  status.hidden = Boolean(mine);
  status.textContent = mine ? "" : t("game.spectating");
  const facts = gameFacts({ ...game, time: game.clock?.control }, t);
  // Whether the result will move the players' ratings, said with the other terms of the game.
  const ranked = t(game.ranked ? "rules.ranked" : "rules.unranked");
  $("rules").textContent = [...summarizeSpec(game.rules, t), ...facts, ranked].join(" · ");
  $("rules").title = game.rules;
  $("rules").dataset.ranked = String(Boolean(game.ranked));
}

// When the phase changes (play ends, a dispute resumes it) other buttons stand where the player just clicked:
// they take no click for a moment, so that a double click on Pass cannot resign, accept or dispute.
const SETTLE_MS = 700;
let shownPhase = null;
let settling = null;

function settleButtons() {
  const phase = `${game.status}/${game.phase}`;
  if (shownPhase !== null && phase !== shownPhase) {
    clearTimeout(settling);
    settling = setTimeout(() => {
      settling = null;
      $("resign").disabled = false;
      $("dispute").disabled = false;
      renderButtons();
    }, SETTLE_MS);
  }
  shownPhase = phase;
  if (!settling) return;
  for (const id of ["pass", "resign", "accept", "dispute"]) $(id).disabled = true;
}

function renderButtons() {
  const mine = myColor();
  const open = game.status === "open";
  const emptySeat = !game.players?.black || !game.players?.white;
  $("join").hidden = !(open && !mine && emptySeat);
  $("cancel-table").hidden = !(open && mine) || cancelled;
  $("abort").hidden = !(mine && isPlaying() && unplayed()) || cancelled;
  $("pass").hidden = !(mine && isPlaying());
  $("pass").disabled = !myTurn();
  $("play-form").hidden = !(mine && isPlaying());
  $("play-submit").disabled = !myTurn();
  $("resign").hidden = !(mine && !open && (isPlaying() || isMarking()));
  $("accept").hidden = !(mine && isMarking());
  $("accept").disabled = Boolean(game.accepted?.[mine]);
  $("dispute").hidden = !(mine && isMarking());
  // Shown from the start of play when the table allows it (disabled until there is a move of mine to take
  // back), so that it never moves the buttons beside it.
  $("undo").hidden = !(mine && isPlaying() && game.undo);
  $("undo").disabled = !mayAskTakeBack();
  settleButtons();
  renderUndo();
  $("marking-hint").hidden = !(mine && isMarking());
  // The server's estimate could not settle these stones: nobody should accept a count without looking at them.
  const unsure = isMarking() ? (game.unsure ?? []) : [];
  $("unsure-note").hidden = unsure.length === 0;
  $("unsure-note").textContent = unsure.length ? t("game.unsure", { count: unsure.length }) : "";

  // The server gives the token back to the table's creator; a page that made the table also kept it.
  let token = game.invite ?? null;
  try {
    token ??= sessionStorage.getItem(`tesuji.invite.${game.id}`);
  } catch {
    token = null;
  }
  const showInvite = Boolean(open && mine && token);
  $("invite-box").hidden = !showInvite;
  if (showInvite) $("invite-link").value = inviteUrl(location.origin, game.id, token);
}

const MOVE_CLASS = { "taken-back": "event taken-back", undo: "event undo", event: "event" };

function renderMoves() {
  const list = $("moves");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  // The moves the engine's review found costly: marked, with what each cost its player.
  const losses = analysis.losses();
  // Plays and passes are the game's moves, numbered; marks, accepts, disputes, resignations and the like are
  // events between them, unnumbered, each on a row of its own. A move taken back stays in the list, struck
  // through and unnumbered (the next move gets its number), as do the request and its answer, said in words.
  // (`data-number` stays the action's number.)
  list.replaceChildren(
    ...readMoves(game.moves, isTurn).map(({ action: m, kind, turn }) => {
      const numbered = kind === "turn";
      // The server's proposal is no player's: no colour's dot before it. A request's sentence names its colour.
      const server = m.by === "server";
      return el(
        "li",
        {
          value: numbered ? turn : null,
          class: numbered ? (viewing === turn ? "turn current" : "turn") : MOVE_CLASS[kind],
          "data-turn": numbered ? turn : null,
          "data-number": m.number,
          "data-color": m.color,
          "data-move": m.move,
          "data-by": m.by ?? null,
          "data-taken-back": kind === "taken-back" ? "true" : null,
          "data-loss": numbered ? (losses.get(turn) ?? null) : null,
          title: numbered && losses.has(turn) ? t("analysis.mistake-mark", { loss: losses.get(turn) }) : null,
        },
        server ? null : el("span", { class: `dot ${m.color}`, "aria-hidden": "true" }),
        server || kind === "undo" ? null : el("span", { class: "visually-hidden" }, `${t(`color.${m.color}`)} `),
        kind === "taken-back"
          ? [el("s", {}, moveText(m)), " ", el("span", { class: "taken-back-label" }, t("game.taken-back"))]
          : moveText(m),
      );
    }),
  );
  const current = list.querySelector("li.current");
  if (current) scrollWithin(list, current);
  else if (atBottom) list.scrollTop = list.scrollHeight;
}

// ---- taking back a move ----

// The opponent's request appears where the player may be about to click (it pushes the buttons below it down):
// its buttons take no click for a moment, as the buttons of a new phase.
let promptShown = false;
let promptSettling = null;

/** The opponent's request to take back their move (#undo-prompt, to accept or decline), or mine waiting for
 * their answer (#undo-waiting). */
function renderUndo() {
  const mine = myColor();
  const asked = isPlaying() ? (game.undo_asked ?? null) : null;
  const theirs = Boolean(mine && asked && asked !== mine);
  const prompt = $("undo-prompt");
  prompt.hidden = !theirs;
  prompt.dataset.color = theirs ? asked : "";
  if (theirs) {
    const move = askedMove(game);
    $("undo-prompt-text").textContent = t("undo.prompt", {
      color: t(`color.${asked}`),
      move: move ? moveText(move) : "",
    });
    if (!promptShown) {
      clearTimeout(promptSettling);
      promptSettling = setTimeout(() => {
        promptSettling = null;
        renderUndo();
      }, SETTLE_MS);
    }
  }
  promptShown = theirs;
  $("undo-accept").disabled = $("undo-decline").disabled = !theirs || Boolean(promptSettling);
  $("undo-waiting").hidden = !(mine && asked === mine);
  renderUndoPause();
}

// After my request was declined: how long until I may ask again, counted down; the button waits as long.
let undoPauseTimer = null;

function renderUndoPause() {
  const mine = myColor();
  // The refusal is the last action, the opponent's: the pause is mine when I am not the one who declined.
  const refused = (game?.moves ?? []).at(-1)?.color !== mine;
  const left = mine && isPlaying() && refused ? undoPauseLeft(game, performance.now() - clockTaken) : 0;
  const box = $("undo-paused");
  box.hidden = left <= 0;
  if (left > 0) box.textContent = t("undo.paused", { time: formatMs(left) });
  $("undo").disabled = !mayAskTakeBack();
  if (left > 0 && !undoPauseTimer) undoPauseTimer = setInterval(renderUndoPause, 500);
  if (left <= 0 && undoPauseTimer) {
    clearInterval(undoPauseTimer);
    undoPauseTimer = null;
  }
}

$("undo").addEventListener("click", () => {
  if (!mayAskTakeBack()) return;
  $("undo").disabled = true; // until the state says the request waits (or the refusal shows)
  act("undo");
});
$("undo-accept").addEventListener("click", () => act("accept_undo"));
$("undo-decline").addEventListener("click", () => act("decline_undo"));

// ---- looking back ----

/** The plays and passes so far that stand: the moves the replay steps through (marks and the like are not
 * positions, and a move taken back is in no replay). */
function turnCount() {
  return game ? countTurns(game.moves, isTurn) : 0;
}

/** Shows the position after `k` plays and passes; the last one (or beyond) is the live board. */
async function viewTurn(k) {
  if (!game) return;
  const asked = ++reviewAsked;
  const turns = turnCount();
  const target = Math.max(0, Math.min(turns, Math.round(k)));
  if (target >= turns) {
    viewing = null;
    render();
    return;
  }
  // A replay fetched before a move was taken back has that move, and the ones after it that stand now are not
  // its: fetched again.
  if (!review || !replayAgrees(review.moves, game.moves, isTurn, target)) {
    reviewFetch ??= get(`/api/games/${gameId}/replay`)
      .then((answer) => {
        review = { ...answer, moves: answer.moves ?? [] };
        review.boards = positions(review);
      })
      .finally(() => {
        reviewFetch = null;
      });
    try {
      await reviewFetch;
    } catch (e) {
      if (asked === reviewAsked) refusal(e);
      return;
    }
    // Another step was asked for meanwhile (back to live, another move): it decides what is shown.
    if (asked !== reviewAsked) return;
  }
  viewing = Math.min(target, review.moves.length);
  tapped = null;
  render();
}

function renderReview() {
  const turns = turnCount();
  const shown = viewing ?? turns;
  $("review").hidden = turns === 0;
  const slider = $("review-slider");
  slider.max = String(turns);
  slider.value = String(shown);
  $("review-first").disabled = $("review-prev").disabled = shown === 0;
  $("review-next").disabled = $("review-last").disabled = viewing === null;
  $("back-to-live").hidden = viewing === null;
  $("review-number").textContent =
    turns === 0 ? t("game.review-live-start") : viewing === null ? t("game.review-live", { n: turns }) : "";
  $("review-number").dataset.move = String(shown);
  const banner = $("review-banner");
  banner.hidden = viewing === null;
  banner.textContent =
    viewing === null
      ? ""
      : viewing === 0
        ? t("game.review-banner-start", { n: turns })
        : t("game.review-banner", { k: viewing, n: turns });
  banner.dataset.move = viewing === null ? "" : String(viewing);
  document.body.classList.toggle("reviewing", viewing !== null);
}

function scoreRows(score) {
  const whole = (n) => String(n ?? 0);
  const half = (n) => halfPoints(n ?? 0);
  return [
    ["stones", whole],
    ["territory", whole],
    ["shared", whole],
    ["captures", whole],
    ["dead", whole],
    ["pass_stones", whole],
    ["komi", half],
    ["handicap_bonus", half],
    ["groups", whole],
    ["total", half],
  ].map(([key, show]) =>
    el(
      "tr",
      { "data-row": key, class: key === "total" ? "total" : null },
      el("th", { scope: "row" }, t(`score.${key}`)),
      el("td", { class: "num", "data-color": "black" }, show(score.black?.[key])),
      el("td", { class: "num", "data-color": "white" }, show(score.white?.[key])),
    ),
  );
}

let rulesets = null; // the counts under other rules, asked once the game is over

/** "Under other rules": the finished game counted under its own ruleset, then every other. */
function renderRulesets() {
  const box = $("rulesets-box");
  box.hidden = !rulesets?.length;
  if (box.hidden) return;
  const cell = (text, cls) => el("td", cls ? { class: cls } : {}, text);
  $("rulesets").tBodies[0].replaceChildren(
    ...rulesets.map((r, i) => {
      let rest;
      if (r.unavailable) rest = [el("td", { colspan: 3 }, t("game.ruleset-unavailable"))];
      else if (r.illegal)
        rest = [el("td", { colspan: 3 }, t("game.ruleset-illegal", { k: r.illegal.move, reason: t(`reason.${r.illegal.reason}`) }))];
      else
        rest = [
          el("td", { title: r.result ? formatResult(r.result, t) : "" }, r.result ?? "—"),
          cell(typeof r.black === "number" ? halfPoints(r.black) : "—", "num"),
          cell(typeof r.white === "number" ? halfPoints(r.white) : "—", "num"),
        ];
      return el(
        "tr",
        { "data-spec": r.spec, "data-result": r.result ?? "", class: i === 0 ? "own" : null },
        el("th", { scope: "row", title: r.spec }, i === 0 ? t("game.ruleset-own") : rulesWords(r.spec, t)),
        ...rest,
      );
    }),
  );
}

function askRulesets() {
  if (rulesets) return;
  rulesets = []; // asked once
  get(`/api/games/${gameId}/rulesets`)
    .then((answer) => {
      rulesets = Array.isArray(answer.counts) ? answer.counts : null;
      renderRulesets();
    })
    .catch(() => {
      rulesets = null;
    });
}

/** After the game: a player offers a rematch, or accepts the one offered; anyone may follow one to its table. */
function renderRematch(over) {
  const offer = over ? (game.rematch ?? null) : null;
  const mine = myColor();
  const mineOffer = Boolean(offer && mine && offer.by === mine);
  const button = $("rematch");
  button.hidden = !over || !mine || mineOffer;
  button.textContent = t(offer ? "game.rematch-accept" : "game.rematch");
  const link = $("rematch-link");
  link.hidden = !offer || (Boolean(mine) && !mineOffer);
  if (offer) {
    link.href = `/game/${offer.game}`;
    link.textContent = t(mineOffer ? "game.rematch-offered" : "game.rematch-watch");
  }
  // Said at the top of the page and in the chat too, where the players look after a game.
  const text = offer
    ? mineOffer
      ? t("game.rematch-you-offered")
      : t("game.rematch-offered-by", { name: playerName(game.players?.[offer.by]) })
    : "";
  $("rematch-offer").hidden = !offer;
  $("rematch-offer-text").textContent = text;
  $("rematch-offer-accept").hidden = !offer || !mine || mineOffer;
  $("chat-rematch").hidden = !offer;
  $("chat-rematch").textContent = text;
}

async function rematch() {
  $("rematch").disabled = true;
  try {
    const table = await post(`/api/games/${gameId}/rematch`, { json: {} });
    location.href = `/game/${table.id}`;
  } catch (e) {
    refusal(e);
    $("rematch").disabled = false;
  }
}

function renderOver() {
  const over = game.status === "over" || game.phase === "over";
  if (over) askRulesets();
  renderRulesets();
  $("over").hidden = !over;
  $("replay-link").hidden = !over;
  $("replay-link").href = `/replay?game=${game.id}`;
  renderRematch(over);
  const result = $("result");
  if (over && game.result) {
    result.textContent = `${formatResult(game.result, t)} (${game.result})`;
    result.dataset.result = game.result;
    // A void by repetition names the earlier occurrences of the state that came back.
    const repeated = Array.isArray(game.repeated) ? game.repeated : [];
    if (repeated.length > 0) {
      const moves = repeated.map((k) => (k === 0 ? t("game.start-position") : String(k))).join(", ");
      result.append(" ", el("span", { id: "repeated-void", "data-moves": repeated.join(" ") }, t("result.repeated", { moves })));
    }
  } else {
    result.textContent = over ? t("result.none") : "";
    delete result.dataset.result;
  }
  renderRatingChange(over);
  const table = $("score");
  const score = over ? game.score : null;
  table.hidden = !score;
  if (!score) return;
  $("score-caption").textContent = t(`scoring.${score.scoring}`);
  table.dataset.scoring = score.scoring;
  table.tBodies[0].replaceChildren(...scoreRows(score));
  table.tFoot.replaceChildren(
    el("tr", { "data-row": "dame" }, el("th", { scope: "row" }, t("score.dame")), el("td", { class: "num", colspan: 2 }, String(score.dame ?? 0))),
    el(
      "tr",
      { "data-row": "margin" },
      el("th", { scope: "row" }, t("score.margin")),
      el("td", { class: "num", colspan: 2 }, halfPoints(score.margin ?? 0)),
    ),
  );
}

/** The computer's reasons for disputing the count, while its dispute is the last action. */
function renderComputerDispute() {
  const box = $("computer-dispute");
  const reasons = game.computer_dispute;
  box.hidden = !reasons;
  if (!reasons) return;
  const lines = [];
  if (reasons.alive?.length) lines.push(t("game.computer-holds-alive", { points: reasons.alive.join(" ") }));
  if (reasons.dead?.length) lines.push(t("game.computer-finds-dead", { points: reasons.dead.join(" ") }));
  box.textContent = `${t("game.computer-disputes")} ${lines.join(" ")}`;
}

/** How a ranked game that ended changed its players' ratings (each player's line, "+58"), or why it did not. */
function renderRatingChange(over) {
  const box = $("rating-change");
  const change = over ? game.rating_change : null;
  box.hidden = !(change || (over && game.unrated));
  if (change) {
    const signed = (n) => (n > 0 ? `+${n}` : String(n));
    box.replaceChildren(
      ...["black", "white"].map((c) => {
        const r = change[c];
        return el(
          "span",
          { class: "rating-change", "data-color": c, "data-change": String(r.change) },
          t("game.rating-change", { name: playerName(game.players?.[c]), before: r.before, after: r.after, change: signed(r.change) }),
        );
      }),
    );
  } else if (over && game.unrated) {
    box.textContent = t(`game.unrated-${game.unrated}`);
  } else {
    box.replaceChildren();
  }
}

function renderBoard() {
  if (viewing !== null && review) {
    const move = viewing > 0 ? review.moves[viewing - 1] : null;
    board.setSize(review.width, review.height);
    board.render({
      rows: review.boards[viewing],
      lastMove: move && parsePoint(move, review.width, review.height) ? move : null,
      ...analysis.marks(review.width, review.height),
    });
    return;
  }
  const mine = myColor();
  const showDead = game.phase === "marking" || game.phase === "over" || game.status === "over";
  const point = hovered ?? tapped;
  board.setSize(game.width, game.height);
  board.render({
    rows: game.board,
    lastMove: game.last_move,
    dead: new Set(showDead ? (game.dead ?? []) : []),
    unsure: new Set(game.phase === "marking" ? (game.unsure ?? []) : []),
    territory: game.phase === "marking" ? game.territory : null,
    preview: myTurn() && point ? { point, color: mine } : null,
    interactive: myTurn() || Boolean(mine && isMarking()),
    ...analysis.marks(game.width, game.height),
    // The estimate of the position now, when asked for, over the review's marks.
    ...estimateMarks(estimate, {
      stale: estimateStale,
      shown: showEstimate,
      live: viewing === null,
      width: game.width,
      height: game.height,
    }),
  });
}

/** In the marking phase, the count the current proposal gives if both accept it (every page shows the same). */
function renderProposal() {
  const box = $("proposal-count");
  const score = game.phase === "marking" ? game.proposal_score : null;
  box.hidden = !score;
  if (!score) {
    delete box.dataset.margin;
    return;
  }
  const margin = Number(score.margin ?? 0);
  const result = margin > 0 ? `B+${halfPoints(margin)}` : margin < 0 ? `W+${halfPoints(-margin)}` : t("game.proposal-even");
  box.textContent = t("game.proposal-count", {
    black: halfPoints(score.black?.total ?? 0),
    white: halfPoints(score.white?.total ?? 0),
    result,
  });
  box.dataset.margin = String(margin);
}

/** The last action when it has no mark on the board (a pass, a resignation, a loss on time, a request to take
 * back a move or its answer), said over it. */
function renderNotice() {
  const box = $("board-notice");
  const last = (game.moves ?? []).at(-1);
  const undo = ["undo", "undo-accept", "undo-decline"].includes(last?.move);
  const kind = undo || ["pass", "resign", "timeout"].includes(last?.move) ? last.move : null;
  box.hidden = !kind || viewing !== null;
  box.textContent = kind ? t(undo ? `move.${kind}` : `notice.${kind}`, { color: t(`color.${last.color}`) }) : "";
  box.dataset.move = kind ?? "";
  box.dataset.color = kind ? last.color : "";
}

function render() {
  if (!game) return;
  renderBoard();
  renderNotice();
  renderReview();
  renderProposal();
  renderComputerDispute();
  renderPlayers();
  renderClocks();
  renderAbsent();
  renderSelfFill();
  renderTurn();
  renderButtons();
  renderMoves();
  renderOver();
  analysis.render();
  renderEstimate();
  renderChatControls();
  renderNotify();
  const names = `${playerName(game.players?.black)} – ${playerName(game.players?.white)}`;
  // A tab in the background still says when the game waits for this player.
  document.title = `${myTurn() ? `● ${t("game.title-your-turn")} · ` : ""}${names} · tesuji`;
}

/** Takes a state unless an equal or newer one is already shown (HTTP answers may come after the socket's event). */
function takeNewer(state) {
  if (!state || typeof state.version !== "number") return;
  if (game && state.version <= game.version) return;
  take(state);
}

function take(state) {
  clockTaken = performance.now();
  clockTakenAt = Date.now();
  const { type: _type, ...rest } = state;
  const changedSize = !game || game.width !== rest.width || game.height !== rest.height;
  const ended = Boolean(game) && !isOver(game) && isOver(rest);
  game = rest;
  // An estimate stands for the position it was made for: once the board has changed, for good.
  if (isStale(estimate, turnCount())) estimateStale = true;
  if (changedSize) hovered = null;
  tapped = null;
  render();
  // Looking back at a position a move taken back since changed (or took away): shown again as it stands now.
  if (viewing !== null && (viewing >= turnCount() || !replayAgrees(review?.moves, game.moves, isTurn, viewing))) {
    viewTurn(viewing);
  }
  // A move taken back: the messages sent while it stood name the move before it now.
  const gone = takenBack(game.moves).size;
  if (gone !== chatTakenBack) {
    chatTakenBack = gone;
    renderChat({ rebuild: true });
  }
  // Over now: the players may read what the spectators said, kept from them until then.
  if (ended) loadChat();
}

// ---- actions ----

/** An action over HTTP, in the form the socket takes: when no socket is open, or its answer is late. */
async function viaHttp(type, fields, version, { retry = false } = {}) {
  try {
    takeNewer(await post(`/api/games/${gameId}/actions`, { json: { type, ...fields, version } }));
  } catch (e) {
    actionFailed(e, { retry });
  }
}

/** A refusal: stale versions mean the game moved on (a retry after a lost answer often finds its own action
 * applied), so the state is fetched again; anything else is shown. */
function actionFailed(e, { retry = false } = {}) {
  if (e instanceof ApiError && e.reason === "stale_version") {
    resync();
    if (retry) return;
  }
  refusal(e);
}

function act(type, fields = {}) {
  if (!game) return;
  clearMessage();
  const version = game.version;
  const ref = nextRef++;
  if (socket?.send({ type, ...fields, version, ref })) {
    const timer = setTimeout(() => fallBack(ref), ACK_TIMEOUT_MS);
    pending.set(ref, { type, fields, version, timer });
  } else {
    viaHttp(type, fields, version);
  }
}

function fallBack(ref) {
  const p = pending.get(ref);
  if (!p) return;
  pending.delete(ref);
  clearTimeout(p.timer);
  viaHttp(p.type, p.fields, p.version, { retry: true });
}

function resync() {
  if (!socket?.send({ type: "resync" })) {
    get(`/api/games/${gameId}`)
      .then((state) => take(state))
      .catch((e) => refusal(e));
  }
}

function clickPoint(point, pointerType) {
  if (!game || viewing !== null) return;
  const mine = myColor();
  if (!mine) return;
  if (isMarking()) {
    if (stoneAt(point)) act("dead", { point });
    return;
  }
  if (!isPlaying()) return;
  if (pointerType === "touch" && myTurn() && !stoneAt(point) && tapped !== point) {
    tapped = point;
    renderBoard();
    info(t("game.tap-again", { point }));
    return;
  }
  tapped = null;
  act("play", { move: point });
}

function hoverPoint(point) {
  hovered = point;
  if (game && myTurn() && viewing === null) renderBoard();
}

$("review-first").addEventListener("click", () => viewTurn(0));
$("review-prev").addEventListener("click", () => viewTurn((viewing ?? turnCount()) - 1));
$("review-next").addEventListener("click", () => viewTurn((viewing ?? turnCount()) + 1));
$("review-last").addEventListener("click", () => viewTurn(Infinity));
$("back-to-live").addEventListener("click", () => viewTurn(Infinity));
$("review-slider").addEventListener("input", () => viewTurn(Number($("review-slider").value)));
$("moves").addEventListener("click", (event) => {
  const li = event.target.closest?.("li[data-turn]");
  if (li) viewTurn(Number(li.dataset.turn));
});
document.addEventListener("keydown", (event) => {
  if (!game || event.altKey || event.ctrlKey || event.metaKey || turnCount() === 0) return;
  const tag = event.target?.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // the slider and the move box have their own keys
  if (document.querySelector("dialog[open]")) return; // a question is open: the keys are its own
  // On the live board there is nothing ahead: the keys forward keep their usual meaning (End scrolls).
  if (viewing === null && (event.key === "ArrowRight" || event.key === "End")) return;
  const shown = viewing ?? turnCount();
  const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 0, End: Infinity }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  viewTurn(to);
});

$("pass").addEventListener("click", () => act("play", { move: "pass" }));
$("accept").addEventListener("click", () => act("accept"));
$("dispute").addEventListener("click", () => act("dispute"));
$("claim").addEventListener("click", () => act("claim"));
$("rematch").addEventListener("click", rematch);

$("resign").addEventListener("click", () => {
  const dialog = $("confirm");
  dialog.returnValue = "";
  dialog.showModal();
});
$("confirm").addEventListener("close", () => {
  if ($("confirm").returnValue === "yes") act("resign");
});

$("play-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("move-input");
  const text = input.value.trim().toUpperCase();
  if (!text) return;
  if (text !== "PASS" && !parsePoint(text, game.width, game.height)) {
    info(t("game.bad-point", { point: input.value.trim() }));
    return;
  }
  input.value = "";
  act("play", { move: text === "PASS" ? "pass" : text });
});

$("join").addEventListener("click", async () => {
  if (!me) {
    location.href = loginHref();
    return;
  }
  const button = $("join");
  button.disabled = true;
  clearMessage();
  try {
    takeNewer(await post(`/api/games/${gameId}/join`, { json: invite ? { invite } : {} }));
  } catch (e) {
    refusal(e);
  } finally {
    button.disabled = false;
  }
});

/** A button that takes the game down for good (`action`: cancel, abort) once the player confirms it. */
function takeDownButton(id, confirmKey, action) {
  $(id).addEventListener("click", async () => {
    if (!confirm(t(confirmKey))) return;
    const button = $(id);
    button.disabled = true;
    clearMessage();
    try {
      await post(`/api/games/${gameId}/${action}`, { json: {} });
      location.href = "/";
    } catch (e) {
      refusal(e);
    } finally {
      button.disabled = false;
    }
  });
}

takeDownButton("cancel-table", "game.cancel-confirm", "cancel");
takeDownButton("abort", "game.abort-confirm", "abort");

$("rematch-offer-accept").addEventListener("click", rematch);

$("copy-invite").addEventListener("click", async () => {
  const input = $("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
    $("copy-invite").textContent = t("invite.copied");
    setTimeout(() => ($("copy-invite").textContent = t("invite.copy")), 2000);
  } catch {
    input.select();
  }
});

// ---- the engine's review of a finished game ----

// The Analysis card (analysis-card.js): asked for and looked at through the game's review; the board shows its
// position k through the page's own step back (the last one is the game's board).
const analysis = new AnalysisCard({
  look: () => get(`/api/games/${gameId}/review`),
  ask: () => post(`/api/games/${gameId}/review`, { json: {} }),
  signedIn: () => Boolean(me),
  active: () => isOver(game),
  position: () => viewing ?? turnCount(),
  show: (k) => viewTurn(k),
  changed: () => render(),
});

// ---- the engine's estimate of the position now ----

// Asked with the card's button (a spectator during play, anyone once the game is over): Black's win rate and lead,
// the engine's move, and who holds each point, drawn on the board while it shows the game's own position, until the
// next move makes it out of date. estimate.js is its pure part.
let estimate = null; // the last answer, as read (readEstimate)
let estimateStale = false; // the board has changed since it was made
let estimateError = null;
let estimating = false;
let showEstimate = true;

async function askEstimate() {
  if (estimating) return;
  estimating = true;
  estimateError = null;
  renderEstimate();
  try {
    const asked = await get(`/api/games/${gameId}/estimate`);
    const answer = readEstimate(asked, { turns: turnCount(), over: isOver(game) });
    if (!answer) throw new ApiError(0, t("error.unexpected"), null);
    estimate = answer;
    estimateStale = isStale(answer, turnCount());
  } catch (e) {
    estimateError = e;
  } finally {
    estimating = false;
    if (game) renderBoard();
    renderEstimate();
  }
}

/** The card: hidden for a player while the game is in play (unless the server's refusal is to be shown), a link to
 * sign in for nobody signed in, else the button; the last estimate, marked when out of date. */
function renderEstimate() {
  const card = $("estimate");
  const offer = game ? estimateOffer(game, Boolean(myColor()), Boolean(me)) : "hidden";
  card.hidden = offer === "hidden" && !estimateError;
  card.setAttribute("aria-busy", String(estimating));
  const ask = $("estimate-ask");
  ask.hidden = offer !== "ask";
  ask.disabled = estimating;
  ask.textContent = t(estimating ? "estimate.busy" : estimate ? "estimate.ask-again" : "estimate.ask");
  $("estimate-signin").hidden = offer !== "signin";
  $("estimate-login").href = loginHref();
  $("estimate-intro").hidden = Boolean(estimate);
  showError($("estimate-error"), estimateError);
  const box = $("estimate-result");
  box.hidden = !estimate;
  card.dataset.state = estimating ? "busy" : !estimate ? "none" : estimateStale ? "stale" : "shown";
  if (!estimate) return;
  const words = estimateText(estimate, t);
  box.classList.toggle("stale", estimateStale);
  box.dataset.turn = String(estimate.turn);
  box.dataset.searched = String(estimate.searched);
  box.dataset.winrate = estimate.searched ? String(estimate.winrate) : "";
  box.dataset.score = estimate.score === null ? "" : String(estimate.score);
  $("estimate-figures").textContent = words.figures;
  fillBest($("estimate-best"), estimate);
  $("estimate-at").textContent = words.at;
  $("estimate-stale").hidden = !estimateStale;
  const show = $("estimate-show");
  show.checked = showEstimate;
  show.disabled = !estimate.searched || estimateStale;
}

$("estimate-ask").addEventListener("click", askEstimate);
$("estimate-show").addEventListener("change", (event) => {
  showEstimate = event.target.checked;
  renderBoard();
});

// ---- chat ----

const chat = new Map(); // id → message: every one received, a muted user's too (shown again on an undo)
let muted = new Set(); // the ids of the users I muted
let shownChat = []; // the ids #chat-list shows, in order: a new message is appended, the list not rebuilt
let chatLoadFailed = false; // #chat-error shows a failed fetch (cleared by the next good one), not a refusal
let lastMuted = null; // {id, name} of the user muted last, for the undo
let chatTakenBack = 0; // the moves taken back when the messages' move numbers were last worked out
let sending = false;

function isOver(state) {
  return state?.status === "over" || state?.phase === "over";
}

/** One message: who (with the colour they play and their rank), the spectators' label, the move it was sent at
 * (a button that shows the board then), the time, a mute button on others' messages, and the text as text. */
function chatNode(m) {
  const mine = Boolean(me) && m.user.id === me.id;
  const color = colorOf(game?.players, m.user.id);
  const spectators = m.channel === "spectators";
  const turn = game ? turnsAt(game.moves, m.move, isTurn) : Number(m.move) || 0;
  const when = Number.isFinite(m.at) ? new Date(m.at) : null;
  const name = playerName(m.user);
  // Each message in its own direction (from its first strong letter), isolated from its neighbours.
  const text = el("p", { class: "chat-text", dir: "auto" });
  text.textContent = m.text; // never markup: "<b>x</b>" is shown as typed
  return el(
    "li",
    {
      class: spectators ? "chat-message spectators" : "chat-message",
      "data-id": m.id,
      "data-user": m.user.id,
      "data-channel": spectators ? "spectators" : "players",
      "data-move": m.move ?? 0,
    },
    el(
      "div",
      { class: "chat-meta" },
      el(
        "span",
        { class: "chat-who" },
        color ? el("span", { class: `dot ${color}`, "aria-hidden": "true" }) : null,
        playerNode(m.user),
        mine ? el("span", { class: "muted" }, ` ${t("game.you")}`) : null,
      ),
      spectators ? el("span", { class: "badge chat-channel" }, t("chat.spectators")) : null,
      el(
        "button",
        {
          type: "button",
          class: "link-button chat-move",
          "data-turn": turn,
          title: turn === 0 ? t("chat.show-start") : t("chat.show-move", { n: turn }),
        },
        turn === 0 ? t("chat.move-start") : t("chat.move", { n: turn }),
      ),
      when
        ? el(
            "time",
            { class: "chat-time", datetime: when.toISOString(), title: when.toLocaleString(currentLanguage()) },
            chatTime(m.at, currentLanguage()),
          )
        : null,
      me && !mine
        ? el(
            "button",
            {
              type: "button",
              class: "link-button chat-mute",
              "data-mute": m.user.id,
              "data-name": name,
              "aria-label": t("chat.mute-user", { name }),
              title: t("chat.mute-user", { name }),
            },
            t("chat.mute"),
          )
        : null,
    ),
    text,
  );
}

/** Shows the messages. New ones at the end are appended, so that the live region reads only them; anything
 * else (a mute, the language) rebuilds the list. It follows new messages when it was at its end. */
function renderChat({ rebuild = false, toEnd = false } = {}) {
  const list = $("chat-list");
  const visible = visibleMessages(chat, muted);
  const atEnd = list.hidden || list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  const appended =
    !rebuild && shownChat.length <= visible.length && shownChat.every((id, i) => visible[i].id === id);
  if (appended) list.append(...visible.slice(shownChat.length).map(chatNode));
  else list.replaceChildren(...visible.map(chatNode));
  shownChat = visible.map((m) => m.id);
  list.hidden = visible.length === 0;
  $("chat-empty").hidden = visible.length > 0;
  if (atEnd || toEnd) list.scrollTop = list.scrollHeight;
  renderChatControls();
}

/** The form for who is signed in, a link to sign in for the others; who reads what until the game is over. */
function renderChatControls() {
  const signedIn = Boolean(me);
  $("chat-form").hidden = !signedIn;
  $("chat-signin").hidden = signedIn;
  $("chat-login").href = loginHref();
  const during = Boolean(game) && !isOver(game);
  const note = $("chat-note");
  const text = during && myColor() ? t("chat.note-player") : during && signedIn ? t("chat.note-spectator") : "";
  note.hidden = !text;
  note.textContent = text;
  $("chat-muted").hidden = !lastMuted;
  $("chat-muted-text").textContent = lastMuted ? t("chat.muted", { name: lastMuted.name }) : "";
}

function chatError(e) {
  chatLoadFailed = false;
  showError($("chat-error"), e);
}

/** The messages I may read (the server leaves out the spectators' talk for the players until the end, and the
 * users I muted), added to those already here. */
async function loadChat() {
  try {
    const answer = await get(`/api/games/${gameId}/chat`);
    addMessages(chat, answer.messages);
    renderChat();
    if (chatLoadFailed) chatError(null);
  } catch (e) {
    if ($("chat-error").hidden || chatLoadFailed) {
      chatError(e);
      chatLoadFailed = true;
    }
  }
}

async function loadMutes() {
  if (!me) return;
  try {
    const answer = await get("/api/mutes");
    muted = new Set(Array.isArray(answer.muted) ? answer.muted : []);
    renderChat();
  } catch {
    // Nothing to hide then: the server leaves a muted user's messages out of the chat all the same.
  }
}

/** Mutes (or unmutes) a user: their messages go (or come back) at once, and again if the server refuses. */
async function setMuted(user, name, on) {
  const before = { muted, lastMuted };
  muted = new Set(muted);
  if (on) muted.add(user);
  else muted.delete(user);
  lastMuted = on ? { id: user, name } : null;
  chatError(null);
  renderChat({ rebuild: true });
  try {
    const answer = await post("/api/mutes", { json: { user, muted: on } });
    if (Array.isArray(answer.muted)) muted = new Set(answer.muted);
    renderChat({ rebuild: true });
    // The chat fetched while they were muted lacks their messages.
    if (!on) await loadChat();
  } catch (e) {
    ({ muted, lastMuted } = before);
    renderChat({ rebuild: true });
    chatError(e);
  }
}

$("chat-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value.trim();
  if (!text || sending) return;
  sending = true;
  $("chat-send").disabled = true;
  chatError(null);
  try {
    addMessages(chat, [await post(`/api/games/${gameId}/chat`, { json: { text } })]);
    // What was typed meanwhile stays.
    if (input.value.trim() === text) input.value = "";
    renderChat({ toEnd: true });
  } catch (e) {
    chatError(e); // the text stays, to send again
  } finally {
    sending = false;
    $("chat-send").disabled = false;
  }
});

// The Enter that ends a composition (Chinese, Japanese, Korean input) chooses the characters: it sends nothing.
$("chat-input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.isComposing || event.keyCode === 229)) event.preventDefault();
});

$("chat-list").addEventListener("click", (event) => {
  const mute = event.target.closest?.("button.chat-mute");
  if (mute) {
    setMuted(Number(mute.dataset.mute), mute.dataset.name ?? "", true);
    return;
  }
  const move = event.target.closest?.("button.chat-move");
  if (move) viewTurn(Number(move.dataset.turn));
});

$("chat-unmute").addEventListener("click", () => {
  if (lastMuted) setMuted(lastMuted.id, lastMuted.name, false);
});

// ---- sounds and notifications ----

// The settings of the three sounds, kept in this browser (sounds.js says which event makes which sound).
let sounds = loadSounds();
let lastTick = null; // the second of my clock's last tick

function loadSounds() {
  try {
    return readSoundSettings(localStorage.getItem(SOUNDS_KEY));
  } catch {
    return readSoundSettings(null);
  }
}

function showSoundSettings() {
  for (const name of SOUND_SETTINGS) $(`sound-${name}`).checked = sounds[name];
}

for (const name of SOUND_SETTINGS) {
  $(`sound-${name}`).addEventListener("change", (event) => {
    sounds = { ...sounds, [name]: event.target.checked };
    try {
      localStorage.setItem(SOUNDS_KEY, writeSoundSettings(sounds));
    } catch {
      // private windows may refuse: the choice lasts for this page
    }
  });
}
// Changed in another tab: the same here.
window.addEventListener("storage", (event) => {
  if (event.key === SOUNDS_KEY) {
    sounds = loadSounds();
    showSoundSettings();
  }
});
showSoundSettings();

/** Plays a sound, and notes it on the page for tests (heard or not: audio may still wait for a gesture):
 * body[data-last-sound] = move | pass | tick, body[data-sounds-played] counts them. */
function sound(kind, options) {
  const data = document.body.dataset;
  data.lastSound = kind;
  data.soundsPlayed = String((Number(data.soundsPlayed) || 0) + 1);
  playSound(kind, options);
}

/** My clock's last seconds: a tick each second (renderClocks calls this a few times a second). */
function clockTick() {
  const second = tickSecond({
    clock: game.clock,
    phase: game.phase,
    viewer: myColor(),
    elapsed: performance.now() - clockTaken,
    settings: sounds,
  });
  if (second !== null && second !== lastTick) sound("tick", { urgent: second <= 3 });
  lastTick = second;
}

function notifySetting() {
  try {
    return localStorage.getItem(NOTIFY_KEY);
  } catch {
    return null;
  }
}

function notifyPermission() {
  return "Notification" in window ? Notification.permission : "unsupported";
}

/** #notify: the button that asks the browser (only when clicked), or why it cannot, or that notifications are on. */
function renderNotify() {
  const control = notifyControl({
    supported: "Notification" in window,
    permission: notifyPermission(),
    setting: notifySetting(),
    seated: Boolean(game && myColor()),
    over: isOver(game),
  });
  $("notify").hidden = !control.shown;
  $("notify-enable").hidden = control.button === "hidden";
  $("notify-enable").disabled = control.button === "disabled";
  $("notify-status").hidden = !control.status;
  $("notify-text").textContent = control.status ? t(control.status) : "";
  $("notify-off").hidden = !control.off;
  $("notify").dataset.permission = notifyPermission();
}

function setNotify(value) {
  try {
    localStorage.setItem(NOTIFY_KEY, value);
  } catch {
    // not kept: notifications follow the browser's permission alone
  }
}

$("notify-enable").addEventListener("click", async () => {
  if (!("Notification" in window)) return;
  if (Notification.permission === "default") {
    // Asked here only, after the player's click: never on load. Noted for tests.
    document.body.dataset.notifyAsked = "true";
    $("notify-enable").disabled = true;
    try {
      await Notification.requestPermission();
    } catch {
      // an old browser's callback form: its answer shows in Notification.permission all the same
    }
  }
  if (Notification.permission === "granted") setNotify("on");
  renderNotify();
});
$("notify-off").addEventListener("click", () => {
  setNotify("off");
  renderNotify();
});
// The permission may have been changed in the browser's settings meanwhile.
document.addEventListener("visibilitychange", () => {
  if (game) renderNotify();
});

/** Shows a notification, when the page is hidden and they are allowed; a click on it brings the tab back. */
function notify(what) {
  if (!what || !mayNotify(document.visibilityState, notifyPermission(), notifySetting())) return;
  const names = { black: playerName(game.players?.black), white: playerName(game.players?.white) };
  try {
    const shown = new Notification(`${names.black} – ${names.white} · tesuji`, {
      body: notificationText(what, names, t),
      tag: `tesuji-game-${gameId}`,
      icon: "/static/favicon.svg",
    });
    shown.addEventListener("click", () => {
      window.focus();
      shown.close();
    });
  } catch {
    // Some browsers (Chrome on Android) show notifications only through a service worker: none then.
  }
}

/** A live event took the game from `before` to the state now shown with `action`: its sound, and a notification
 * when the game now waits for me. (Never for the state of a first load or a resync.) */
function liveEvent(before, action) {
  const kind = soundFor(action, game, sounds);
  if (kind) sound(kind);
  notify(notificationFor(before, game, action, myColor(), isTurn));
}

// ---- live updates ----

/** The table was cancelled by its creator, or the game aborted before its first move: nothing more happens
 * here, so the page says so (`message`) and stops. */
function showCancelled(message) {
  cancelled = true;
  socket?.close();
  clearInterval(poll);
  poll = null;
  info(t(message));
  if (game) renderButtons();
}

function onSocketMessage(m) {
  if (m.type === "chat") {
    // Perhaps one already here: my own after the POST's answer, or one a fetch brought.
    if (addMessages(chat, [m.message])) {
      renderChat();
      notify(chatNotification(m.message, myColor(), game?.players));
    }
    return;
  }
  if (m.type === "cancelled" || m.type === "aborted") {
    showCancelled(`game.${m.type}`);
    return;
  }
  if (m.type === "rated") {
    // The ratings a rated game changed, once the server rated it (after its end).
    if (game) {
      game.rating_change = m.rating_change;
      renderOver();
    }
    return;
  }
  if (m.type === "rematch") {
    // Offered after the game, by either player (the invite stays out of events: a player's offer needs none).
    if (game) {
      game.rematch = m.rematch;
      renderOver();
    }
    return;
  }
  if (m.type === "state") {
    // A resync's answer, or the first state: unless a newer one (an HTTP answer) is already shown.
    if (!game || m.version >= game.version) take(m);
    return;
  }
  if (m.type === "ack") {
    const p = pending.get(m.ref);
    if (p) {
      clearTimeout(p.timer);
      pending.delete(m.ref);
    }
    return;
  }
  if (m.type === "error") {
    const p = pending.get(m.ref);
    if (p) {
      clearTimeout(p.timer);
      pending.delete(m.ref);
    }
    const e = new ApiError(0, m.error ?? null, m.reason ?? null);
    if (typeof m.repeats === "number") Object.assign(e, { repeats: m.repeats, board: m.board });
    actionFailed(e);
    return;
  }
  if (!m.state || typeof m.version !== "number") return;
  // Who is at the board changed (a presence event, at the same version), or the next action was taken.
  const next = m.type === "presence" ? m.version === game?.version : m.version === (game?.version ?? 0) + 1;
  if (next) {
    const state = eventState(game?.moves, m.action, m.state);
    if (state) {
      const before = game;
      take(state);
      if (before && m.type !== "presence") liveEvent(before, m.action ?? null);
    } else socket.send({ type: "resync" }); // the page's move list is not the one before this event
  } else if (!game || m.version > game.version) {
    socket.send({ type: "resync" }); // a gap: events were missed
  }
  // older versions are already shown (an HTTP answer came first)
}

let poll = null;

function setLive(status) {
  const live = $("game-live");
  live.dataset.status = status;
  live.textContent = t(`live.${status}`);
  if (status === "open") {
    clearInterval(poll);
    poll = null;
  } else if (!poll) {
    poll = setInterval(() => {
      get(`/api/games/${gameId}`)
        .then(takeNewer)
        .catch(() => {}); // the server is away too; the socket's backoff keeps trying
      if (game) loadChat(); // the socket brings no messages either
    }, POLL_MS);
  }
}

onLanguageChange(() => {
  render();
  if (game) renderChat({ rebuild: true });
  setLive($("game-live").dataset.status);
});

async function start() {
  if (!gameId) {
    refusal(new ApiError(404, t("game.not-found"), "not_found"));
    return;
  }
  $("sgf").href = `/api/games/${gameId}/sgf`;
  renderChatControls();
  try {
    takeNewer(await get(`/api/games/${gameId}`));
  } catch (e) {
    refusal(e);
    if (e instanceof ApiError && e.status === 404) return; // no such game: nothing to watch
  }
  // After the state: a message names the move it was sent at by the game's move list.
  loadMutes();
  loadChat();
  socket = new LiveSocket(socketUrl(`/api/games/${gameId}/ws`), {
    onMessage: onSocketMessage,
    onStatus: setLive,
    onOpen(again) {
      if (!again) return;
      socket.send({ type: "resync" });
      loadChat(); // the messages sent while the socket was down
    },
    onClose() {
      // Unanswered actions go again over HTTP; their version makes a repeat harmless.
      for (const ref of [...pending.keys()]) fallBack(ref);
    },
  });
}

start();
