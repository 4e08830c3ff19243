// The lobby: who I am (header), what happened in my games since I last looked, automatch ("Find a game"), the live
// lists of open tables and games in progress, and the create-table form.

import { ApiError, get, post, socketUrl } from "./api.js";
import { onLanguageChange, t } from "./i18n.js";
import { colorOf, formatRank, moveCount } from "./format.js";
import { actionLabel, afterSeen, countLabel, newestAt, newsGames, newsResult, refreshDelay } from "./news.js";
import { boot, el, playerNode, showError } from "./page.js";
import { inviteUrl } from "./paths.js";
import {
  acceptBody,
  noteHandled,
  noteWaiting,
  othersSeeks,
  readSeekMemory,
  SEEK_MEMORY_KEY,
  seekBody,
  seekFacts,
  seekToFollow,
  waitingSeeks,
} from "./seek.js";
import { LiveSocket } from "./socket.js";
import { BGA_SIZES, composeSpec, gameFacts, summarizeSpec } from "./spec.js";

const session = await boot();
const me = session.user;

const openList = document.getElementById("open-tables");
const playingList = document.getElementById("games-playing");
const joinError = document.getElementById("join-error");
const liveStatus = document.getElementById("lobby-status");
let lobby = null; // {my_turn, open, playing, seeks, my_seeks} once known

function seatLine(players) {
  return [
    el("span", { class: "dot black", "aria-hidden": "true" }),
    playerNode(players?.black),
    el("span", { class: "muted" }, ` ${t("lobby.vs")} `),
    el("span", { class: "dot white", "aria-hidden": "true" }),
    playerNode(players?.white),
  ];
}

/** A ranked game's marker beside its players. */
function rankedMark(summary) {
  return summary.ranked ? el("span", { class: "badge" }, t("lobby.ranked")) : null;
}

function rulesLine(summary, extra = []) {
  const parts = [...summarizeSpec(summary.rules, t), ...gameFacts(summary, t), ...extra];
  return el("span", { class: "rules", title: summary.rules }, parts.join(" · "));
}

function openEntry(game) {
  const mine = colorOf(game.players, me?.id) !== null;
  const free = game.players?.black ? "white" : "black";
  let action;
  if (mine) {
    action = el("a", { class: "button small secondary", href: `/game/${game.id}` }, t("lobby.your-table"));
  } else {
    action = el(
      "button",
      { type: "button", class: "small", "data-join": game.id, "data-color": free },
      t("lobby.join-as", { color: t(`color.${free}`) }),
    );
    action.addEventListener("click", () => join(game.id, action));
  }
  return el(
    "li",
    { "data-game-id": game.id, "data-status": game.status, "data-ranked": String(Boolean(game.ranked)) },
    el("div", { class: "who" }, seatLine(game.players), rankedMark(game), rulesLine(game)),
    action,
  );
}

function playingEntry(game) {
  const mine = colorOf(game.players, me?.id) !== null;
  const moves = t("lobby.moves", { n: moveCount(game.moves) });
  return el(
    "li",
    { "data-game-id": game.id, "data-status": game.status, "data-ranked": String(Boolean(game.ranked)) },
    el("div", { class: "who" }, seatLine(game.players), rankedMark(game), rulesLine(game, [moves])),
    el(
      "a",
      { class: `button small ${mine ? "" : "secondary"}`, href: `/game/${game.id}`, "data-watch": game.id },
      t(mine ? "lobby.continue" : "lobby.watch"),
    ),
  );
}

function fill(list, games, entry, emptyKey) {
  if (!lobby) return;
  if (!games.length) list.replaceChildren(el("li", { class: "empty" }, t(emptyKey)));
  else list.replaceChildren(...games.map(entry));
}

function render() {
  // My games that wait for me come first, when there are any.
  const myTurn = lobby?.my_turn ?? [];
  document.getElementById("my-turn-card").hidden = myTurn.length === 0;
  document.getElementById("my-turn").replaceChildren(...myTurn.map(playingEntry));
  fill(openList, lobby?.open ?? [], openEntry, "lobby.no-open");
  fill(playingList, lobby?.playing ?? [], playingEntry, "lobby.no-playing");
  renderSeeks();
}

async function join(id, button) {
  if (!me) {
    location.href = `/login?next=${encodeURIComponent(`/game/${id}`)}`;
    return;
  }
  button.disabled = true;
  showError(joinError, null);
  try {
    await post(`/api/games/${id}/join`, { json: {} });
    location.href = `/game/${id}`;
  } catch (e) {
    showError(joinError, e);
    button.disabled = false;
  }
}

function setLive(status) {
  liveStatus.dataset.status = status;
  liveStatus.textContent = t(`live.${status}`);
}

// ---- automatch: "Find a game" ----

const seekForm = document.getElementById("seek-form");
const seekSubmit = document.getElementById("seek-submit");
const seekRanked = document.getElementById("seek-ranked");
const seekWaiting = document.getElementById("seek-waiting");
const seekCancel = document.getElementById("seek-cancel");
const seekError = document.getElementById("seek-error");
const seekList = document.getElementById("seek-list");
let seeking = false; // a POST /api/seeks or a cancel on its way

// The seeks this tab saw waiting (or made), and those it followed to their game: a seek another player matched
// is followed once, and never again when the lobby lists it later.
function seekMemory() {
  try {
    return readSeekMemory(sessionStorage.getItem(SEEK_MEMORY_KEY));
  } catch {
    return readSeekMemory(null);
  }
}

function saveSeekMemory(memory) {
  try {
    sessionStorage.setItem(SEEK_MEMORY_KEY, JSON.stringify(memory));
  } catch {
    // private windows may refuse: this page follows its own seeks anyway
  }
}

let memory = seekMemory();

function remember(next) {
  memory = next;
  saveSeekMemory(memory);
}

/** Goes to the game a matched seek of mine made, once. */
function followMatched() {
  const matched = seekToFollow(lobby?.my_seeks, memory);
  if (!matched) return false;
  remember(noteHandled(memory, matched.id));
  location.href = `/game/${matched.game}`;
  return true;
}

function seekEntry(seek) {
  // A guest cannot take a ranked seek; who is not signed in is sent to log in first.
  const blocked = Boolean(seek.ranked && me?.guest);
  const play = el(
    "button",
    { type: "button", class: "small seek-accept", "data-seek-id": seek.id, disabled: blocked },
    t("seek.play"),
  );
  if (blocked) play.title = t("seek.ranked-guest");
  play.addEventListener("click", () => acceptSeek(seek, play));
  return el(
    "li",
    {
      "data-seek-id": seek.id,
      "data-size": seek.size,
      "data-speed": seek.speed,
      "data-ranked": String(Boolean(seek.ranked)),
    },
    el(
      "div",
      { class: "who" },
      playerNode(seek.user),
      el("span", { class: "rules" }, seekFacts(seek, t, formatRank).join(" · ")),
    ),
    play,
  );
}

function renderSeeks() {
  if (!lobby) return;
  if (followMatched()) return;
  const mine = waitingSeeks(lobby.my_seeks);
  const waiting = mine.length > 0;
  seekWaiting.hidden = !waiting;
  seekForm.hidden = waiting;
  seekCancel.disabled = seeking;
  seekSubmit.disabled = !me || seeking;
  const others = othersSeeks(lobby.seeks, me?.id);
  if (!others.length) seekList.replaceChildren(el("li", { class: "empty" }, t("seek.none")));
  else seekList.replaceChildren(...others.map(seekEntry));
}

function updateSeekForm() {
  const guest = !me || me.guest;
  seekRanked.disabled = guest;
  if (guest) seekRanked.checked = false;
  document.getElementById("seek-ranked-hint").hidden = !guest;
  document.getElementById("seek-signin").hidden = Boolean(me);
  seekSubmit.disabled = !me || seeking;
}

/** Posts a seek: the game at once (200) opens; a waiting seek (201) shows as mine until matched or cancelled. */
async function postSeek(body, button) {
  if (!me) {
    location.href = `/login?next=${encodeURIComponent("/")}`;
    return;
  }
  seeking = true;
  button.disabled = true;
  showError(seekError, null);
  try {
    const answer = await post("/api/seeks", { json: body });
    if (answer.game?.id != null) {
      location.href = `/game/${answer.game.id}`;
      return;
    }
    const seek = answer.seek;
    if (seek?.id != null) {
      remember(noteWaiting(memory, [seek.id]));
      // Shown at once; the lobby socket's next list says the same (or that it was matched meanwhile).
      const listed = lobby?.my_seeks ?? [];
      if (lobby && !listed.some((s) => s.id === seek.id)) lobby = { ...lobby, my_seeks: [...listed, seek] };
    }
  } catch (e) {
    showError(seekError, e);
  } finally {
    seeking = false;
    button.disabled = false;
    updateSeekForm();
    renderSeeks();
  }
}

seekForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const { body, error } = seekBody({
    size: document.getElementById("seek-size").value,
    speed: document.getElementById("seek-speed").value,
    ranked: seekRanked.checked && !seekRanked.disabled,
    minRank: document.getElementById("seek-min-rank").value,
    maxRank: document.getElementById("seek-max-rank").value,
    handicap: document.getElementById("seek-handicap").checked,
  });
  if (error) {
    showError(seekError, new ApiError(400, t(error), "bad_request"));
    return;
  }
  postSeek(body, seekSubmit);
});

function acceptSeek(seek, button) {
  postSeek(acceptBody(seek, document.getElementById("seek-handicap").checked), button);
}

seekCancel.addEventListener("click", async () => {
  const mine = waitingSeeks(lobby?.my_seeks);
  seeking = true;
  seekCancel.disabled = true;
  showError(seekError, null);
  try {
    for (const s of mine) {
      try {
        await post(`/api/seeks/${s.id}/cancel`, { json: {} });
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === "no_seek")) throw e; // gone already: as good
      }
    }
    const ids = new Set(mine.map((s) => s.id));
    if (lobby) lobby = { ...lobby, my_seeks: (lobby.my_seeks ?? []).filter((s) => !ids.has(s.id)) };
  } catch (e) {
    showError(seekError, e);
  } finally {
    seeking = false;
    renderSeeks();
  }
});

updateSeekForm();

// ---- news: what the others did in my games since I last looked ----

const newsCard = document.getElementById("news");
const newsList = document.getElementById("news-list");
const newsSeen = document.getElementById("news-seen");
const newsError = document.getElementById("news-error");
let news = null; // the games shown (news.js), null before the first answer
let newsSince = null; // marked read up to here on this page: an answer fetched before that shows nothing older
let newsAsked = 0; // the latest fetch or mark: an older fetch's answer is dropped
let newsFetched = -Infinity; // when the news were last asked for (Date.now())
let newsTimer = null;

function newsEntry(g) {
  let state = null;
  if (g.status === "over") {
    const result = newsResult(g, t);
    state = el("span", { class: "news-result", "data-result": g.result ?? "" }, result);
  } else if (g.status === "marking") {
    state = el("span", { class: "news-result" }, t("status.marking"));
  }
  return el(
    "li",
    { "data-game-id": g.game, "data-status": g.status, "data-count": g.count },
    el(
      "div",
      { class: "who" },
      el(
        "a",
        { href: `/game/${g.game}`, title: g.rules ?? "" },
        el("span", { class: "dot black", "aria-hidden": "true" }),
        g.black ?? "—",
        ` ${t("lobby.vs")} `,
        el("span", { class: "dot white", "aria-hidden": "true" }),
        g.white ?? "—",
      ),
      el(
        "span",
        { class: "rules" },
        el("span", { class: "news-count" }, countLabel(g, t)),
        el(
          "span",
          { class: "news-actions" },
          g.actions.map((a) =>
            el(
              "span",
              { class: "news-action", "data-number": a.number, "data-move": a.move, "data-color": a.color },
              actionLabel(a, t),
            ),
          ),
        ),
      ),
      state,
    ),
    el("a", { class: "button small secondary", href: `/game/${g.game}` }, t("news.open")),
  );
}

/** The card, for a signed-in user: each game with news, or "Nothing new"; data-count = the games listed. */
function renderNews() {
  newsCard.hidden = !me;
  if (!me || news === null) return;
  if (news.length === 0) newsList.replaceChildren(el("li", { class: "empty" }, t("news.empty")));
  else newsList.replaceChildren(...news.map(newsEntry));
  newsCard.dataset.count = String(news.length);
  newsSeen.disabled = news.length === 0;
}

async function loadNews() {
  if (!me) return;
  const asked = ++newsAsked;
  newsFetched = Date.now();
  try {
    const answer = await get("/api/news");
    if (asked !== newsAsked) return;
    news = afterSeen(newsGames(answer), newsSince);
    showError(newsError, null);
    renderNews();
  } catch (e) {
    if (asked === newsAsked) showError(newsError, e);
  }
}

/** Fetches the news again soon: at once, or when NEWS_GAP_MS have passed since the last fetch. */
function refreshNewsSoon() {
  if (!me || newsTimer) return;
  newsTimer = setTimeout(() => {
    newsTimer = null;
    loadNews();
  }, refreshDelay(newsFetched, Date.now()));
}

// Read up to the newest action shown: what came meanwhile stays news.
newsSeen.addEventListener("click", async () => {
  const at = newestAt(news);
  if (at === null) return;
  newsSeen.disabled = true;
  newsAsked++; // a fetch on its way would bring back what is read now
  try {
    const answer = await post("/api/news/seen", { json: { at } });
    newsSince = Math.max(newsSince ?? at, Number.isFinite(answer.since) ? answer.since : at);
    news = afterSeen(news, newsSince);
    showError(newsError, null);
  } catch (e) {
    showError(newsError, e);
  }
  renderNews();
});

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refreshNewsSoon();
});

// ---- the create-table form ----

const form = document.getElementById("create");
const field = (id) => document.getElementById(id);
const preview = field("spec-preview");
const submit = field("create-submit");
const createError = field("create-error");

function formValues() {
  return {
    preset: field("preset").value,
    size: field("size").value,
    counting: field("counting").value,
    komi: field("komi").value,
    aga: field("aga").value,
    handicap: field("handicap").value,
    komiText: field("komi-text").value,
    spec: field("spec").value,
  };
}

// The form keeps the last table's choices (in this browser), so that a player's usual game is one click away.
const REMEMBERED = ["preset", "size", "counting", "komi", "aga", "handicap", "komi-text", "spec", "color", "opponent", "bot", "time"];
const REMEMBER_KEY = "tesuji.create";

function restoreChoices() {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(REMEMBER_KEY) ?? "null");
  } catch {
    return;
  }
  if (!saved || typeof saved !== "object") return;
  // A checkbox, not a value: updateForm clears it again where a ranked game cannot be made.
  if (typeof saved.ranked === "boolean") field("ranked").checked = saved.ranked;
  if (typeof saved.undo === "boolean") field("undo-allowed").checked = saved.undo;
  for (const id of REMEMBERED) {
    const input = field(id);
    const value = saved[id];
    if (typeof value !== "string" || !input) continue;
    // A select keeps its value only when it is one of its options (a stale choice is dropped).
    if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) continue;
    input.value = value;
  }
}

function rememberChoices() {
  const saved = Object.fromEntries(REMEMBERED.map((id) => [id, field(id).value]));
  saved.ranked = field("ranked").checked;
  saved.undo = field("undo-allowed").checked;
  try {
    localStorage.setItem(REMEMBER_KEY, JSON.stringify(saved));
  } catch {
    // private windows may refuse: the form just starts from its defaults
  }
}

/** Why the form cannot make a ranked table now (an i18n key), or null: only accounts play ranked games, and
 * never against the computer (the server refuses both). */
function rankedBlocked() {
  if (!me || me.guest) return "create.ranked-guest";
  if (field("opponent").value === "bot") return "create.ranked-bot";
  return null;
}

function updateForm() {
  const bot = field("opponent").value === "bot";
  field("bot-field").hidden = !bot;
  // Nobody takes back a move against the computer.
  field("undo-field").hidden = bot;
  field("undo-allowed").disabled = bot;
  const blocked = rankedBlocked();
  const ranked = field("ranked");
  ranked.disabled = Boolean(blocked);
  if (blocked) ranked.checked = false;
  field("ranked-hint").textContent = t(blocked ?? "create.ranked-hint");
  const bga = field("preset").value === "bga";
  field("bga-options").hidden = !bga;
  field("preset-options").hidden = bga;
  // Board Game Arena offers 9, 13 and 19 only; the other presets take any size.
  const size = field("size");
  for (const option of size.options) {
    const allowed = !bga || BGA_SIZES.includes(Number(option.value));
    option.hidden = !allowed;
    option.disabled = !allowed;
  }
  if (size.selectedOptions[0]?.disabled) size.value = "19";
  preview.textContent = composeSpec(formValues());
}

form.addEventListener("input", updateForm);
form.addEventListener("change", updateForm);
restoreChoices();
updateForm();

if (!me) {
  field("create-signin").hidden = false;
  submit.disabled = true;
}

// A newcomer (no account) is told what the site is and offered the computer at once: a 9×9 game as Black
// against the medium bot. Who is not signed in signs in (as a guest, if they like) and comes back to it.
field("welcome").hidden = Boolean(me && !me.guest);
async function playComputer() {
  if (!me) {
    location.href = `/login?next=${encodeURIComponent("/?play=computer")}`;
    return;
  }
  field("play-computer").disabled = true;
  try {
    const body = { rules: "chinese:size=9", color: "black", opponent: "bot", bot: "mcts-2" };
    const created = await post("/api/games", { json: body });
    location.href = `/game/${created.id}`;
  } catch (e) {
    showError(field("play-computer-error"), e);
    field("play-computer").disabled = false;
  }
}
field("play-computer").addEventListener("click", playComputer);
if (me && new URLSearchParams(location.search).get("play") === "computer") {
  history.replaceState(null, "", "/");
  playComputer();
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!me) return;
  showError(createError, null);
  const opponent = field("opponent").value;
  const body = { rules: composeSpec(formValues()), color: field("color").value, opponent };
  if (opponent === "bot") body.bot = field("bot").value;
  else body.undo = field("undo-allowed").checked;
  if (field("time").value) body.time = field("time").value;
  if (field("ranked").checked && !rankedBlocked()) body.ranked = true;
  submit.disabled = true;
  try {
    const created = await post("/api/games", { json: body });
    rememberChoices();
    if (created.invite) {
      try {
        sessionStorage.setItem(`tesuji.invite.${created.id}`, created.invite);
      } catch {
        // the link is shown here anyway
      }
      const link = inviteUrl(location.origin, created.id, created.invite);
      field("invite-link").value = link;
      field("invite-go").href = `/game/${created.id}`;
      field("invite-box").hidden = false;
      field("invite-link").select();
      submit.disabled = false;
    } else {
      location.href = `/game/${created.id}`;
    }
  } catch (e) {
    showError(createError, e);
    submit.disabled = false;
  }
});

field("copy-invite").addEventListener("click", async () => {
  const input = field("invite-link");
  const button = field("copy-invite");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    // Clipboard API refused (plain http, old browser): select it for a manual copy.
    input.select();
    document.execCommand?.("copy");
  }
  button.textContent = t("invite.copied");
  setTimeout(() => (button.textContent = t("invite.copy")), 2000);
});

// ---- live data ----

onLanguageChange(() => {
  render();
  renderNews();
  setLive(liveStatus.dataset.status);
  updateForm();
  updateSeekForm();
});

get("/api/lobby")
  .then((answer) => {
    if (!lobby) {
      lobby = answer;
      // My seeks waiting now are followed when someone takes them, also after a reload.
      remember(noteWaiting(memory, waitingSeeks(lobby.my_seeks).map((s) => s.id)));
      render();
    }
  })
  .catch((e) => console.warn("lobby", e));

renderNews();
loadNews();

// The socket's first list only says what the page fetched already; each later one (a change, or the list again
// after a reconnection) may come with news, which the socket does not carry: fetched, at most every 5 s.
let lobbyListed = false;
new LiveSocket(socketUrl("/api/lobby/ws"), {
  onStatus: setLive,
  onMessage(message) {
    if (message.type !== "lobby") return;
    lobby = {
      my_turn: message.my_turn ?? [],
      open: message.open ?? [],
      playing: message.playing ?? [],
      seeks: message.seeks ?? [],
      my_seeks: message.my_seeks ?? [],
    };
    remember(noteWaiting(memory, waitingSeeks(lobby.my_seeks).map((s) => s.id)));
    render();
    if (lobbyListed) refreshNewsSoon();
    lobbyListed = true;
  },
});
