// What every page shares: the language, the header's "who am I", DOM helpers and the display of refusals.

import { ApiError, get, getSession, post, setSession } from "./api.js";
import { formatRank } from "./format.js";
import { has, initI18n, onLanguageChange, t } from "./i18n.js";

/** `el("a", {href: "/", class: "x"}, "text", child)`; attributes with null/false values are left out. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (null, undefined and false ones left out) and children (nodes or text). */
export function svgEl(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Scrolls `list` (a scrolling box) just enough to show `item`, and nothing else: `scrollIntoView` would also
 * scroll the page, taking the board off a phone's screen at every step through a game. */
export function scrollWithin(list, item) {
  const box = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}

/** A seat's occupant as text: a user (guests marked), the computer, or an empty seat. */
export function playerName(p) {
  if (!p) return t("player.empty");
  if (p.bot) return t("player.bot", { name: p.bot });
  return p.guest ? t("player.guest", { name: p.name }) : p.name;
}

/** An account's rank (`5k?`) as a node, its rating in the title; null for a user without one (a guest). */
export function rankNode(p) {
  if (!p?.rank) return null;
  const title = p.rating != null ? t("player.rating-title", { rating: p.rating }) : null;
  return el("span", { class: "rank", "data-rank": p.rank, title }, formatRank(p.rank, t));
}

/** A seat's occupant as a node: users link to their page, an account's rank beside the link. */
export function playerNode(p) {
  if (p && !p.bot && p.id != null) {
    const link = el("a", { href: `/player/${p.id}` }, playerName(p));
    const rank = rankNode(p);
    return rank ? el("span", { class: "player" }, link, " ", rank) : link;
  }
  return el("span", { class: p ? "" : "muted" }, playerName(p));
}

/** The translated headline of a refusal's reason, when we know it, and the server's sentence. */
export function describeError(e) {
  if (!(e instanceof ApiError)) return { headline: t("error.unexpected"), detail: String(e?.message ?? e) };
  const key = `reason.${e.reason}`;
  const headline = e.reason && has(key) ? t(key) : null;
  const detail = e.message || (e.reason === "network" ? t("error.network") : t("error.status", { status: e.status }));
  return { headline, detail };
}

/** Whether `sentence` holds `phrase` as whole words, in any case: the phrase itself, or each of its words of
 * two letters or more ("Name taken" in "that name is taken"), so that a headline the sentence repeats in other
 * words is not shown twice. */
export function saysAlready(sentence, phrase) {
  const holds = (part) => {
    const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, "iu").test(sentence);
  };
  if (holds(phrase)) return true;
  const words = phrase.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2);
  return words.length >= 2 && words.every(holds);
}

/** Shows a refusal (or clears the box with `null`) in an element with role="alert"/"status". */
export function showError(box, e) {
  box.replaceChildren();
  box.hidden = !e;
  if (!e) return;
  const { headline, detail } = describeError(e);
  box.classList.add("error");
  // The headline only when the sentence does not already say it, as a whole word or phrase ("Occupied" and
  // "the point is occupied"; but "Ko" stays beside "situational superko").
  const said = headline && saysAlready(String(detail), headline);
  if (headline && !said) box.append(el("strong", { class: "headline" }, headline), " ");
  box.append(el("span", { class: "detail" }, detail));
  if (e instanceof ApiError && e.reason) box.dataset.reason = e.reason;
  else delete box.dataset.reason;
}

/**
 * A listing's "more" button: on a click, while `next()` gives a page's start, fetches `url(next())` and hands the
 * answer to `onPage`; the button is disabled meanwhile, and a refusal shows in `box`.
 */
export function moreButton(button, next, url, onPage, box) {
  button.addEventListener("click", async () => {
    const start = next();
    if (!start) return;
    button.disabled = true;
    try {
      onPage(await get(url(start)));
    } catch (e) {
      showError(box, e);
    } finally {
      button.disabled = false;
    }
  });
}

/** `/login?next=<next>`: back to `next` (a path of this site; this page's address when not given). */
export function loginHref(next = location.pathname + location.search) {
  return `/login?next=${encodeURIComponent(next)}`;
}

let session = { user: null, csrf: null };

export function currentUser() {
  return session.user;
}

function renderMe() {
  const box = document.getElementById("me");
  if (!box) return;
  const user = session.user;
  if (user) {
    const logout = el("button", { id: "logout", type: "button", class: "link-button" }, t("nav.logout"));
    logout.addEventListener("click", async () => {
      try {
        await post("/api/logout");
      } catch (e) {
        console.warn(e);
      }
      setSession(null);
      location.reload();
    });
    box.replaceChildren(
      el("a", { id: "me-name", href: `/player/${user.id}`, class: "me-name" }, playerName(user)),
      logout,
    );
  } else if (location.pathname !== "/login") {
    box.replaceChildren(el("a", { id: "login-link", href: loginHref(), class: "button small" }, t("nav.login")));
  } else {
    box.replaceChildren();
  }
}

/** Translates the page and fills the header; answers the session ({user, csrf}). */
export async function boot() {
  const [, s] = await Promise.all([
    initI18n(),
    getSession().catch((e) => {
      console.warn("session", e);
      return { user: null, csrf: null };
    }),
  ]);
  session = s;
  renderMe();
  onLanguageChange(renderMe);
  return session;
}
