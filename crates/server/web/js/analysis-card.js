// The Analysis card of the game and replay pages: a review by the server's search, asked for by a signed-in viewer
// (POST), looked at every second (GET) until done, then drawn: the win-rate graph (a point per position, position
// k being the board after k moves: a click, a tap, a drag or the arrow keys show it on the board), the figures and
// the engine's move at the position the board shows, the territory, and the biggest mistakes. The page says where
// the review is read and asked for, which position its board shows and how to show another; analysis.js is the
// pure part. The card's elements are the `analysis-*` ids of the page (web/README.md).

import {
  bestText,
  GRAPH,
  isPending,
  lineMoves,
  mistakesByMove,
  mistakeText,
  mistakeTurn,
  moveWord,
  ownershipShades,
  plotReview,
  pointText,
  POLL_MS,
  pollDelay,
  positionAtX,
  progress,
  readReview,
  shownPosition,
  worthLookingAgain,
} from "./analysis.js";
import { currentLanguage, t } from "./i18n.js";
import { el, loginHref, showError, svgEl } from "./page.js";
import { plotArea } from "./plot.js";

/** Whether the territory is shown, kept in this browser for both pages. */
const TERRITORY_KEY = "tesuji.analysis-territory";

const $ = (id) => document.getElementById(id);

/** The engine's move at position `p` and its line after it, into `box` (hidden when it has none). */
export function fillBest(box, p) {
  const text = bestText(p, t);
  const line = lineMoves(p);
  box.hidden = !text;
  box.dataset.move = p.best ?? "";
  box.replaceChildren(text ?? "");
  if (!text || !line.length) return;
  box.append(
    " — ",
    el(
      "span",
      { class: "analysis-pv", title: t("analysis.pv") },
      line.map((m) =>
        el("span", { "data-color": m.color }, el("span", { class: `dot ${m.color}`, "aria-hidden": "true" }), moveWord(m.move, t)),
      ),
    ),
  );
}

function readTerritory() {
  try {
    return localStorage.getItem(TERRITORY_KEY) === "on";
  } catch {
    return false;
  }
}

/** The score axis's label: Black's or White's lead, or 0 in the middle. */
function leadAxisText(lead) {
  if (lead === 0) return "0";
  return t(lead > 0 ? "analysis.axis-black" : "analysis.axis-white", { n: Math.abs(lead) });
}

export class AnalysisCard {
  /**
   * `look()` and `ask()`: promises of the server's answer, the review as it stands and asked for. `signedIn()`:
   * whether the viewer may ask. `active()`: whether the card belongs on the page now (a finished game, a record
   * opened); the first look is made once it does. `position()`: the position the board shows (k moves), or null
   * when it shows none of the review's. `show(k)`: shows position k on the board. `changed()`: the review is
   * done, or the territory switched: the page draws again what shows it (the board, the move list) and calls
   * [`AnalysisCard.render`]. `next()` (optional): the path the sign-in link comes back to (this page's address
   * when it answers nothing).
   */
  constructor({ look, ask, signedIn, active, position, show, changed, next = () => undefined }) {
    Object.assign(this, { lookUp: look, askFor: ask, signedIn, active, position, show, changed, next });
    this.review = null; // the review as last read (readReview), null until the first answer
    this.error = null; // a failed look or request, shown in #analysis-error
    this.looked = false; // the first look is made once the card is active
    this.seq = 0; // the requests made: an answer older than the one shown is dropped
    this.shownSeq = 0;
    this.timer = null;
    this.failures = 0; // looks in a row that failed (the next waits longer)
    this.drawn = null; // {positions, lang}: what the graph and the mistakes were drawn for
    this.showTerritory = readTerritory();
    this.scrub = null; // {id, type, k, down} of the pointer last pressed on the graph
    this.listen();
  }

  get done() {
    return this.review?.status === "done";
  }

  /** Forgets the review (another record): the next render looks again; answers to earlier requests are dropped. */
  reset() {
    clearTimeout(this.timer);
    this.timer = null;
    this.review = null;
    this.error = null;
    this.looked = false;
    this.failures = 0;
    this.drawn = null;
    this.shownSeq = ++this.seq;
  }

  /** The review's position the board shows ({k, p}), once the review is done; null when it shows none. */
  current() {
    if (!this.done) return null;
    const k = this.position();
    if (k === null || k === undefined) return null;
    const at = shownPosition(k, null, this.review.positions.length);
    return at === null ? null : { k: at, p: this.review.positions[at] };
  }

  /** What the board draws of the review at the position shown: the engine's move, and who holds each point when
   * the territory is asked for. */
  marks(width, height) {
    const p = this.current()?.p;
    if (!p?.searched) return {};
    return {
      best: p.best && p.best !== "pass" ? { point: p.best, color: p.toMove } : null,
      owners: this.showTerritory ? ownershipShades(p.ownership, width, height) : null,
    };
  }

  /** The costly moves by move number (their loss in whole percent), for the move list; empty until done. */
  losses() {
    return this.done ? mistakesByMove(this.review.mistakes) : new Map();
  }

  /** Takes an answer (of a look, a request, or the page's own: `{status: "none"}` for a record never asked). */
  take(view, seq = ++this.seq) {
    if (seq < this.shownSeq) return; // an older answer, come late
    this.shownSeq = seq;
    const was = this.review?.status;
    this.review = readReview(view);
    this.error = null;
    clearTimeout(this.timer);
    this.timer = isPending(this.review.status) ? setTimeout(() => this.look(), POLL_MS) : null;
    // Done now: the board, the move list and the card show it; otherwise only the card changes.
    if (this.done && was !== "done") this.changed();
    else this.render();
  }

  /** Looks at the review as it stands; again every second while it is asked for and not done. */
  async look() {
    clearTimeout(this.timer);
    this.timer = null;
    this.looked = true;
    const seq = ++this.seq;
    try {
      const view = await this.lookUp();
      this.failures = 0;
      this.take(view, seq);
    } catch (e) {
      if (seq < this.shownSeq) return;
      this.failures += 1;
      // Said only when nothing better is shown; the next look may bring it back.
      if (!this.review || isPending(this.review.status)) {
        if (!this.review) this.error = e;
        if (worthLookingAgain(e)) this.timer = setTimeout(() => this.look(), pollDelay(this.failures));
      }
      this.render();
    }
  }

  async ask() {
    const button = $("analysis-ask");
    button.disabled = true;
    const seq = ++this.seq;
    try {
      this.take(await this.askFor(), seq);
    } catch (e) {
      if (seq < this.shownSeq) return;
      this.error = e;
      this.render();
    } finally {
      button.disabled = false;
    }
  }

  /** Shows position `k` of the review on the board. */
  showPosition(k) {
    if (!this.done) return;
    const last = this.review.positions.length - 1;
    this.show(Math.max(0, Math.min(last, k)));
  }

  /** The card: shown while active (after the first look), with what the review's state calls for. */
  render() {
    const card = $("analysis");
    const active = Boolean(this.active());
    if (active && !this.looked) this.look();
    const shown = active && (this.review !== null || this.error !== null);
    card.hidden = !shown;
    card.closest(".game-layout")?.classList.toggle("with-analysis", shown);
    if (!shown) return;
    const status = this.review?.status ?? "none";
    const done = status === "done";
    const signedIn = Boolean(this.signedIn());
    card.dataset.status = status;
    $("analysis-intro").hidden = status !== "none";
    $("analysis-failed").hidden = status !== "failed";
    const ask = $("analysis-ask");
    ask.hidden = !signedIn || isPending(status) || done;
    ask.textContent = t(status === "failed" ? "analysis.ask-again" : "analysis.ask");
    $("analysis-signin").hidden = signedIn || isPending(status) || done;
    $("analysis-login").href = loginHref(this.next() ?? undefined);
    const going = progress(this.review, t);
    $("analysis-progress").hidden = !going;
    $("analysis-progress-text").textContent = going?.text ?? "";
    const bar = $("analysis-progress-bar");
    if (going?.share != null) bar.value = going.share;
    else bar.removeAttribute("value"); // under way, how far not known yet
    showError($("analysis-error"), this.error);
    $("analysis-results").hidden = !done;
    if (!done) return;
    const lang = currentLanguage();
    if (this.drawn?.positions !== this.review.positions || this.drawn.lang !== lang) {
      this.drawGraph();
      this.drawMistakes();
      this.drawn = { positions: this.review.positions, lang };
    }
    const at = this.current();
    this.markGraph(at?.k ?? null);
    this.renderPosition(at);
    $("analysis-playouts").textContent = t("analysis.playouts", { playouts: this.review.playouts });
  }

  /** The graph, drawn again for new results or another language: zones (Black ahead above the middle), the grid
   * and its labels, the lead (dashed) and Black's win rate, a column per position that takes clicks across the
   * whole height, and a point per position (focusable one at a time: the arrow keys go from one to the next). */
  drawGraph() {
    const svg = $("analysis-graph");
    const positions = this.review.positions;
    const plot = plotReview(positions);
    const { width, height } = GRAPH;
    const { left, right, top, bottom } = plotArea(GRAPH);
    const middle = (top + bottom) / 2;
    const costly = new Set(this.review.mistakes.map((m) => m.number));
    const n = positions.length;
    const half = n > 1 ? (plot.points[1].x - plot.points[0].x) / 2 : (right - left) / 2;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("aria-label", t("analysis.graph", { n }));
    svg.dataset.count = String(n);
    svg.replaceChildren(
      svgEl("rect", { class: "zone black", x: left, y: top, width: right - left, height: middle - top }),
      svgEl("rect", { class: "zone white", x: left, y: middle, width: right - left, height: bottom - middle }),
      svgEl(
        "g",
        { class: "grid", "aria-hidden": "true" },
        plot.rateTicks.map((tick) =>
          svgEl("line", { x1: left, x2: right, y1: tick.y, y2: tick.y, class: tick.rate === 0.5 ? "middle" : null }),
        ),
      ),
      svgEl(
        "g",
        { class: "rate-ticks", "aria-hidden": "true" },
        plot.rateTicks
          .filter((tick) => tick.rate * 4 === Math.round(tick.rate * 2) * 2)
          .map((tick) => svgEl("text", { x: left - 3, y: tick.y }, `${tick.rate * 100}%`)),
      ),
      svgEl(
        "g",
        { class: "lead-ticks", "aria-hidden": "true" },
        plot.leadTicks.map((tick) => svgEl("text", { x: right + 3, y: tick.y }, leadAxisText(tick.lead))),
      ),
      svgEl(
        "g",
        { class: "move-ticks", "aria-hidden": "true" },
        plot.moveTicks.map((tick) => svgEl("text", { x: tick.x, y: height - 5 }, String(tick.turn))),
      ),
      svgEl("path", { class: "lead-line", d: plot.leadLine }),
      svgEl("path", { class: "line", d: plot.line }),
      svgEl("line", { class: "cursor", x1: left, x2: left, y1: top, y2: bottom, "aria-hidden": "true" }),
      svgEl(
        "g",
        { class: "columns", "aria-hidden": "true" },
        plot.points.map((pt) => svgEl("rect", { "data-turn": pt.turn, x: pt.x - half, y: 0, width: 2 * half, height })),
      ),
      svgEl(
        "g",
        { class: "points" },
        plot.points.map((pt) => {
          const label = pointText(positions[pt.turn], pt.turn, t);
          const classes = ["point", pt.searched ? null : "unsearched", costly.has(pt.turn) ? "mistake" : null];
          return svgEl(
            "circle",
            {
              class: classes.filter(Boolean).join(" "),
              cx: pt.x,
              cy: pt.y,
              r: plot.radius,
              "data-turn": pt.turn,
              "data-r": plot.radius,
              tabindex: -1,
              role: "button",
              "aria-label": label,
            },
            svgEl("title", {}, label),
          );
        }),
      ),
      // The position shown, over the points (the clicks go through it).
      svgEl("circle", { class: "point current marker", cx: left, cy: middle, r: plot.radius + 1.6, "aria-hidden": "true" }),
    );
  }

  /** The graph's mark of position `k` (none for null): the cursor, the marker, and the point that takes the
   * keyboard's focus (the first when none is shown). */
  markGraph(k) {
    const svg = $("analysis-graph");
    const focused = svg.contains(document.activeElement);
    let current = null;
    for (const point of svg.querySelectorAll("circle.point[data-turn]")) {
      const turn = Number(point.dataset.turn);
      const here = turn === k;
      point.classList.toggle("current", here);
      point.setAttribute("tabindex", here || (k === null && turn === 0) ? "0" : "-1");
      if (here) {
        point.setAttribute("aria-current", "step");
        current = point;
      } else point.removeAttribute("aria-current");
    }
    const cursor = svg.querySelector(".cursor");
    const marker = svg.querySelector(".marker");
    // None when the board shows none of the review's positions (a variation of the record).
    for (const mark of [cursor, marker]) mark.setAttribute("visibility", current ? "visible" : "hidden");
    if (!current) {
      delete svg.dataset.current;
      return;
    }
    const [x, y] = [current.getAttribute("cx"), current.getAttribute("cy")];
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    marker.setAttribute("cx", x);
    marker.setAttribute("cy", y);
    marker.classList.toggle("unsearched", current.classList.contains("unsearched"));
    svg.dataset.current = String(k);
    if (focused && document.activeElement !== current) current.focus({ preventScroll: true });
  }

  drawMistakes() {
    const list = $("analysis-mistakes");
    const mistakes = this.review.mistakes;
    list.replaceChildren(
      ...mistakes.map((m) =>
        el(
          "li",
          { "data-number": m.number, "data-color": m.color, "data-turn": mistakeTurn(m) },
          el(
            "button",
            { type: "button", class: "link-button", "data-turn": mistakeTurn(m), title: t("analysis.mistake-title") },
            el("span", { class: `dot ${m.color}`, "aria-hidden": "true" }),
            " ",
            mistakeText(m, t),
          ),
        ),
      ),
    );
    list.hidden = mistakes.length === 0;
    $("analysis-no-mistakes").hidden = mistakes.length > 0;
  }

  /** At the position shown: where it is with Black's win rate and lead, the engine's move and line, the territory
   * switch (for a position with figures), the mistake looked at. Nothing of it when the board shows none. */
  renderPosition(at) {
    const box = $("analysis-position");
    box.hidden = !at;
    box.dataset.turn = at ? String(at.k) : "";
    box.dataset.searched = at ? String(at.p.searched) : "";
    const territory = $("analysis-territory");
    territory.checked = this.showTerritory;
    territory.disabled = !at?.p.searched;
    for (const li of $("analysis-mistakes").children) li.classList.toggle("current", Number(li.dataset.turn) === at?.k);
    if (!at) return;
    $("analysis-summary").textContent = pointText(at.p, at.k, t);
    fillBest($("analysis-best"), at.p);
  }

  /** The card's controls: the button, the territory switch, the mistakes, and the graph (a click or a tap on a
   * point or its column shows that position; dragging across it steps through the game, a touch only once it
   * moves sideways, as a vertical swipe scrolls the page; the focused point's arrow keys go to the next or previous
   * position, Home and End to the first and last). */
  listen() {
    $("analysis-ask").addEventListener("click", () => this.ask());
    $("analysis-territory").addEventListener("change", (event) => {
      this.showTerritory = event.target.checked;
      try {
        localStorage.setItem(TERRITORY_KEY, this.showTerritory ? "on" : "off");
      } catch {
        // kept for this page only
      }
      this.changed();
    });
    $("analysis-mistakes").addEventListener("click", (event) => {
      const button = event.target.closest?.("button[data-turn]");
      if (button) this.showPosition(Number(button.dataset.turn));
    });

    const graph = $("analysis-graph");
    const positionAt = (event) => {
      const matrix = graph.getScreenCTM();
      if (!matrix || !this.done) return null;
      const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
      return positionAtX(at.x, this.review.positions.length);
    };
    graph.addEventListener("pointerdown", (event) => {
      if (!this.done || (event.pointerType === "mouse" && event.button !== 0)) return;
      const target = event.target.closest?.("[data-turn]");
      const k = target ? Number(target.dataset.turn) : positionAt(event);
      this.scrub = { id: event.pointerId, type: event.pointerType, k, down: true };
      if (event.pointerType === "touch") return; // a tap shows it on the click; a swipe may be a scroll
      try {
        graph.setPointerCapture(event.pointerId);
      } catch {
        // the drag then ends at the graph's edge
      }
      if (k !== null) this.showPosition(k);
    });
    graph.addEventListener("pointermove", (event) => {
      const scrub = this.scrub;
      if (!scrub?.down || scrub.id !== event.pointerId) return;
      const k = positionAt(event);
      if (k === null || k === scrub.k) return;
      scrub.k = k;
      this.showPosition(k);
    });
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
      graph.addEventListener(type, (event) => {
        // The press is over (the click that may follow still knows it was a tap).
        if (this.scrub?.id === event.pointerId) this.scrub.down = false;
      });
    }
    graph.addEventListener("click", (event) => {
      // A tap (a mouse's press has shown its position already).
      if (this.scrub?.type === "touch") {
        const target = event.target.closest?.("[data-turn]");
        const k = target ? Number(target.dataset.turn) : positionAt(event);
        if (k !== null) this.showPosition(k);
      }
      this.scrub = null;
    });
    graph.addEventListener("keydown", (event) => {
      const point = event.target.closest?.("circle.point[data-turn]");
      if (!point || event.altKey || event.ctrlKey || event.metaKey || !this.done) return;
      const k = Number(point.dataset.turn);
      const last = this.review.positions.length - 1;
      const to = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: last, Enter: k, " ": k }[event.key];
      if (to === undefined) return;
      // The page's own keys step too: the graph's are these alone.
      event.preventDefault();
      event.stopPropagation();
      this.showPosition(to);
    });
  }
}
