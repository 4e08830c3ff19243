// The replay viewer: a stored game (/replay?game=ID) or a local SGF file read by the server, stepped through with
// buttons, a slider, the move list and the arrow keys.

import { ApiError, get, post } from "./api.js";
import { Board } from "./board.js";
import { parsePoint } from "./coords.js";
import { formatResult, halfPoints } from "./format.js";
import { positions } from "./positions.js";
import { onLanguageChange, t } from "./i18n.js";
import { boot, el, scrollWithin, showError } from "./page.js";
import { summarizeSpec } from "./spec.js";
import { branches, lines } from "./variations.js";

const MAX_SGF_BYTES = 1024 * 1024; // the server's limit for /api/replay

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const gameId = /^\d+$/.test(params.get("game") ?? "") ? params.get("game") : null;
await boot();

const board = new Board($("board"));
let replay = null; // the server's answer
let all = []; // its lines: the main line, then each variation made whole (variations.js)
let line = 0; // the line shown
let current = 0; // the number of moves shown

function moveLabel(move) {
  return move === "pass" ? t("move.pass") : move;
}

function show(k) {
  if (!replay) return;
  const shown = all[line];
  const last = shown.boards.length - 1;
  current = Math.max(0, Math.min(last, k));
  const move = current > 0 ? shown.moves[current - 1] : null;
  // The count of a game that ended by passes (on its main line): its dead stones marked on the last position.
  const counted = line === 0 && current === last && replay.count ? replay.count : null;
  board.render({
    rows: shown.boards[current],
    lastMove: move && parsePoint(move, replay.width, replay.height) ? move : null,
    dead: new Set(counted?.dead ?? []),
  });
  renderCount(counted);
  renderComment();
  renderBranches();
  const slider = $("slider");
  slider.max = String(last);
  slider.value = String(current);
  $("move-number").textContent =
    current === 0
      ? t("replay.start", { n: last })
      : t("replay.move", { k: current, n: last, move: moveLabel(move) });
  $("move-number").dataset.move = String(current);
  $("first").disabled = $("prev").disabled = current === 0;
  $("next").disabled = $("last").disabled = current === last;
  for (const li of $("moves").children) li.classList.toggle("current", Number(li.dataset.number) === current);
  const currentItem = $("moves").querySelector("li.current");
  if (currentItem) scrollWithin($("moves"), currentItem);
  // Keep the position in the address, so that a reload or a shared link shows the same move.
  const url = new URL(location.href);
  if (gameId) {
    url.searchParams.set("move", String(current));
    history.replaceState(null, "", url);
  }
}

/** The record's comments written after the move shown. */
function renderComment() {
  const box = $("comment");
  const texts = all[line].comments.filter((c) => c.move === current).map((c) => c.text);
  box.hidden = texts.length === 0;
  box.replaceChildren(...texts.map((text) => el("p", {}, text)));
  box.dataset.move = String(current);
}

/** Where the record branches after the move shown: a button per way on, the one shown pressed. */
function renderBranches() {
  const ways = branches(all, line, current);
  const box = $("branches");
  box.hidden = ways.length < 2;
  box.dataset.move = String(current);
  $("branch-buttons").replaceChildren(
    ...(ways.length < 2 ? [] : ways).map((way) =>
      el(
        "button",
        {
          type: "button",
          class: way.line === line ? "small" : "small secondary",
          "aria-pressed": String(way.line === line),
          "data-line": way.line,
          onclick: () => {
            line = way.line;
            renderMoves();
            show(current + 1);
          },
        },
        way.owner === 0
          ? t("replay.main-line", { move: moveLabel(way.move) })
          : t("replay.variation", { k: way.owner, move: moveLabel(way.move) }),
      ),
    ),
  );
}

function renderCount(count) {
  const box = $("count");
  box.hidden = !count;
  if (!count) return;
  const margin = Number(count.margin ?? 0);
  const result = margin > 0 ? `B+${halfPoints(margin)}` : margin < 0 ? `W+${halfPoints(-margin)}` : t("game.proposal-even");
  box.textContent = t("replay.count", {
    black: halfPoints(count.black ?? 0),
    white: halfPoints(count.white ?? 0),
    result,
    dead: (count.dead ?? []).length,
  });
  box.dataset.margin = String(margin);
}

/** A fact of the record's, in its row of the list, hidden when the record does not say it. */
function infoRow(id, text) {
  const dd = $(id);
  dd.hidden = dd.previousElementSibling.hidden = !text;
  dd.textContent = text ?? "";
}

/** The colour of each move: as the server says (`colors`), else the stone on its point afterwards, else (passes)
 * the other colour than the move before. */
function moveColors(r) {
  if (Array.isArray(r.colors) && r.colors.length === r.moves.length) return r.colors;
  let previous = "white";
  return r.moves.map((move, i) => {
    const at = parsePoint(move, r.width, r.height);
    const ch = at ? (r.boards[i + 1]?.[at.row] ?? "")[at.col] : undefined;
    const color = ch === "X" ? "black" : ch === "O" ? "white" : previous === "black" ? "white" : "black";
    previous = color;
    return color;
  });
}

function renderInfo() {
  if (!replay) return;
  const info = replay.info ?? {};
  $("game-info").hidden = false;
  const withRank = (name, rank) => `${name || t("replay.unknown")}${rank ? ` (${rank})` : ""}`;
  $("info-black").textContent = withRank(info.black, info.black_rank);
  $("info-white").textContent = withRank(info.white, info.white_rank);
  infoRow("info-date", info.date);
  infoRow("info-event", [info.event, info.round].filter(Boolean).join(", "));
  infoRow("info-place", info.place);
  $("info-comment").hidden = !info.game_comment;
  $("info-comment").textContent = info.game_comment ?? "";
  const shown = replay.rules ? summarizeSpec(replay.rules, t).join(" · ") : t("replay.unknown");
  // A record's rules we do not know (or it does not name) are not passed off as the ones it is counted under.
  $("info-rules").textContent =
    info.rules_note === "unknown"
      ? t("replay.rules-unknown", { ru: info.record_rules ?? "", rules: shown })
      : info.rules_note === "absent"
        ? t("replay.rules-absent", { rules: shown })
        : shown;
  $("info-rules").dataset.note = info.rules_note ?? "";
  $("info-rules").title = replay.rules ?? "";
  // The server gives komi in half-points (11 = 5.5), White's minus Black's.
  $("info-komi").textContent =
    typeof info.komi === "number" ? halfPoints(info.komi) : info.komi ? String(info.komi) : t("replay.unknown");
  $("info-result").textContent = info.result ? `${formatResult(info.result, t)} (${info.result})` : t("replay.unknown");
  renderMoves();
}

/** The moves of the line shown. */
function renderMoves() {
  const shown = all[line];
  const colors = line === 0 ? moveColors(replay) : shown.colors;
  // Where an uploaded record was read generously (its main line): the move concerned says how.
  const notes = new Map(line === 0 ? (replay.notes ?? []).map((n) => [n.move, n.kind]) : []);
  $("moves").replaceChildren(
    ...shown.moves.map((move, i) => {
      const note = notes.get(i + 1);
      return el(
        "li",
        { value: i + 1, "data-number": i + 1, "data-move": move, "data-color": colors[i] },
        el("span", { class: `dot ${colors[i]}`, "aria-hidden": "true" }),
        el("span", { class: "visually-hidden" }, `${t(`color.${colors[i]}`)} `),
        el("button", { type: "button", class: "link-button", onclick: () => show(i + 1) }, moveLabel(move)),
        note ? el("span", { class: "note", "data-note": note }, ` (${t(`replay.note.${note}`)})`) : null,
      );
    }),
  );
  $("moves-card").hidden = shown.moves.length === 0;
  $("moves").dataset.line = String(line);
}

function load(answer, start = 0) {
  if (!answer || !Array.isArray(answer.start) || answer.start.length === 0) {
    showError($("message"), new ApiError(0, t("replay.empty"), null));
    return;
  }
  replay = { ...answer, moves: answer.moves ?? [] };
  replay.boards = positions(replay);
  const { width, height } = replay;
  all = lines(replay, (start, part) =>
    positions({ width, height, start, moves: part.moves ?? [], colors: part.colors ?? [], removed: part.removed ?? [] }),
  );
  line = 0;
  showError($("message"), null);
  board.setSize(replay.width, replay.height);
  $("controls").hidden = false;
  renderInfo();
  show(start);
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(current - 1));
$("next").addEventListener("click", () => show(current + 1));
$("last").addEventListener("click", () => show(Infinity));
$("slider").addEventListener("input", () => show(Number($("slider").value)));

document.addEventListener("keydown", (event) => {
  if (!replay || event.altKey || event.ctrlKey || event.metaKey) return;
  const tag = event.target?.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // the slider has its own keys
  const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: Infinity }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
});

$("sgf-file").addEventListener("change", async () => {
  const file = $("sgf-file").files?.[0];
  if (!file) return;
  if (file.size > MAX_SGF_BYTES) {
    showError($("message"), new ApiError(413, t("replay.too-large"), "too_large"));
    return;
  }
  try {
    const bytes = await file.arrayBuffer();
    load(await post("/api/replay", { bytes }));
    document.title = `${file.name} · tesuji`;
  } catch (e) {
    showError($("message"), e);
  }
});

onLanguageChange(() => {
  renderInfo();
  show(current);
});

if (gameId) {
  $("game-link").href = `/game/${gameId}`;
  $("game-link").hidden = false;
  $("sgf").href = `/api/games/${gameId}/sgf`;
  $("sgf").hidden = false;
  document.title = `${t("replay.title")} ${gameId} · tesuji`;
  try {
    const start = Number(params.get("move") ?? 0);
    load(await get(`/api/games/${gameId}/replay`), Number.isFinite(start) ? start : 0);
  } catch (e) {
    showError($("message"), e);
  }
}
