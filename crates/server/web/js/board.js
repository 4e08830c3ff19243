// The SVG board: wood, grid, star points, coordinates on every side, stones with a soft gradient, the last-move
// mark, dead stones and a hover preview; from a review, the engine's move and who holds each point. One transparent <rect data-point="D4"> per point takes the pointer.
// Units: one grid cell is 10; the viewBox makes the board scale to its box.

import { COLUMNS, parsePoint, pointName, starPoints } from "./coords.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 10;
const MARGIN = 17; // room for the coordinates outside the grid
const RADIUS = 4.75;

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function gradient(id, stops, attrs) {
  const g = svgEl("radialGradient", { id, ...attrs });
  for (const [offset, color] of stops) g.append(svgEl("stop", { offset, "stop-color": color }));
  return g;
}

export class Board {
  /**
   * `svg`: the <svg> element to draw in. `onPoint(point, pointerType)` is called on a click of a point;
   * `onHover(point | null)` when the pointer moves to another point or leaves the board.
   */
  constructor(svg, { onPoint, onHover } = {}) {
    this.svg = svg;
    this.onPoint = onPoint ?? (() => {});
    this.onHover = onHover ?? (() => {});
    this.width = 0;
    this.height = 0;
    this.hovered = null;
    this.pointerType = "mouse";
    this.prefix = svg.id || "board";
    svg.addEventListener("pointerdown", (e) => {
      this.pointerType = e.pointerType || "mouse";
    });
    svg.addEventListener("click", (e) => {
      const point = e.target.closest?.("rect[data-point]")?.dataset.point;
      if (point) this.onPoint(point, this.pointerType);
    });
    svg.addEventListener("pointermove", (e) => {
      if (e.pointerType === "touch") return; // touch has no hover; the page previews on the first tap
      const point = e.target.closest?.("rect[data-point]")?.dataset.point ?? null;
      if (point !== this.hovered) {
        this.hovered = point;
        this.onHover(point);
      }
    });
    svg.addEventListener("pointerleave", () => {
      if (this.hovered !== null) {
        this.hovered = null;
        this.onHover(null);
      }
    });
  }

  x(col) {
    return MARGIN + col * CELL;
  }

  y(row) {
    return MARGIN + row * CELL;
  }

  /** Draws the empty board of that size (again only when the size changes). */
  setSize(width, height) {
    if (width === this.width && height === this.height) return;
    this.width = width;
    this.height = height;
    const w = (width - 1) * CELL + 2 * MARGIN;
    const h = (height - 1) * CELL + 2 * MARGIN;
    const svg = this.svg;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.dataset.width = width;
    svg.dataset.height = height;
    svg.replaceChildren();
    const p = this.prefix;

    const defs = svgEl("defs");
    const wood = svgEl("linearGradient", { id: `${p}-wood`, x1: 0, y1: 0, x2: 1, y2: 1 });
    for (const [offset, color] of [["0", "#e9c27a"], ["0.55", "#ddb063"], ["1", "#cf9d4e"]]) {
      wood.append(svgEl("stop", { offset, "stop-color": color }));
    }
    defs.append(
      wood,
      gradient(`${p}-black`, [["0", "#6b6b6b"], ["0.35", "#2a2a2a"], ["1", "#050505"]], { cx: "35%", cy: "32%", r: "70%" }),
      gradient(`${p}-white`, [["0", "#ffffff"], ["0.6", "#f0efea"], ["1", "#c9c6bd"]], { cx: "38%", cy: "34%", r: "72%" }),
    );
    svg.append(defs);
    svg.append(svgEl("rect", { class: "wood", x: 0, y: 0, width: w, height: h, rx: 3, fill: `url(#${p}-wood)` }));

    const grid = svgEl("g", { class: "grid" });
    let path = "";
    for (let c = 0; c < width; c++) path += `M${this.x(c)} ${this.y(0)}V${this.y(height - 1)}`;
    for (let r = 0; r < height; r++) path += `M${this.x(0)} ${this.y(r)}H${this.x(width - 1)}`;
    grid.append(svgEl("path", { d: path, class: "lines" }));
    grid.append(
      svgEl("rect", {
        class: "edge",
        x: this.x(0),
        y: this.y(0),
        width: (width - 1) * CELL,
        height: (height - 1) * CELL,
        fill: "none",
      }),
    );
    for (const s of starPoints(width, height)) {
      grid.append(svgEl("circle", { class: "hoshi", cx: this.x(s.col), cy: this.y(s.row), r: 1.15 }));
    }
    svg.append(grid);

    const coords = svgEl("g", { class: "coords", "aria-hidden": "true" });
    const off = MARGIN - 8.5;
    for (let c = 0; c < width; c++) {
      for (const y of [off, this.y(height - 1) + 8.5]) {
        const label = svgEl("text", { x: this.x(c), y });
        label.textContent = COLUMNS[c];
        coords.append(label);
      }
    }
    for (let r = 0; r < height; r++) {
      for (const x of [off, this.x(width - 1) + 8.5]) {
        const label = svgEl("text", { x, y: this.y(r) });
        label.textContent = String(height - r);
        coords.append(label);
      }
    }
    svg.append(coords);

    this.stones = svgEl("g", { class: "stones" });
    this.overlay = svgEl("g", { class: "overlay" });
    this.hits = svgEl("g", { class: "hits" });
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        this.hits.append(
          svgEl("rect", {
            "data-point": pointName(c, r, height),
            x: this.x(c) - CELL / 2,
            y: this.y(r) - CELL / 2,
            width: CELL,
            height: CELL,
          }),
        );
      }
    }
    svg.append(this.stones, this.overlay, this.hits);
  }

  stone(col, row, color, extraClass = "") {
    const g = svgEl("g", {
      class: `stone ${color} ${extraClass}`.trim(),
      "data-stone": color,
      "data-point": pointName(col, row, this.height),
    });
    const cx = this.x(col);
    const cy = this.y(row);
    g.append(svgEl("circle", { class: "shadow", cx: cx + 0.45, cy: cy + 0.6, r: RADIUS }));
    g.append(svgEl("circle", { class: "body", cx, cy, r: RADIUS, fill: `url(#${this.prefix}-${color})` }));
    return g;
  }

  /**
   * Draws a position: `rows` from the top ('.', 'X', 'O'); `lastMove` a vertex or null; `dead` a Set of vertices
   * drawn translucent with a cross; `unsure` a Set of vertices the server's estimate could not settle (a ring);
   * `preview` {point, color} or null; `interactive` sets the pointer cursor; `territory` {black, white}: Sets of
   * vertices each colour's count holds besides its live stones (a small square of its colour). From a review:
   * `owners` [{point, color, shade (0–1)}]: who holds each point, a square of its colour over the point (and any
   * stone), the stronger the surer; `best` {point, color}: the engine's move, a translucent stone of the player
   * to move in a blue ring, drawn only on an empty point.
   */
  render({
    rows,
    lastMove = null,
    dead = new Set(),
    unsure = new Set(),
    preview = null,
    interactive = false,
    territory = null,
    owners = null,
    best = null,
  }) {
    this.svg.classList.toggle("interactive", interactive);
    const stones = [];
    for (let r = 0; r < this.height; r++) {
      const line = rows[r] ?? "";
      for (let c = 0; c < this.width; c++) {
        const ch = line[c];
        if (ch !== "X" && ch !== "O") continue;
        const color = ch === "X" ? "black" : "white";
        const name = pointName(c, r, this.height);
        const isDead = dead.has(name);
        const g = this.stone(c, r, color, isDead ? "dead" : "");
        if (isDead) {
          const cx = this.x(c);
          const cy = this.y(r);
          const d = 2.6;
          g.append(svgEl("path", { class: "cross", d: `M${cx - d} ${cy - d}L${cx + d} ${cy + d}M${cx + d} ${cy - d}L${cx - d} ${cy + d}` }));
          g.setAttribute("data-dead", "true");
        }
        if (unsure.has(name)) {
          g.append(svgEl("circle", { class: "unsure", cx: this.x(c), cy: this.y(r), r: 4.2 }));
          g.setAttribute("data-unsure", "true");
        }
        if (name === lastMove) {
          g.append(svgEl("circle", { class: "last", cx: this.x(c), cy: this.y(r), r: 2.1 }));
          g.setAttribute("data-last", "true");
        }
        stones.push(g);
      }
    }
    for (const color of ["black", "white"]) {
      for (const name of territory?.[color] ?? []) {
        const at = parsePoint(name, this.width, this.height);
        if (!at) continue;
        const s = 3.2;
        stones.push(
          svgEl("rect", {
            class: `territory ${color}`,
            x: this.x(at.col) - s / 2,
            y: this.y(at.row) - s / 2,
            width: s,
            height: s,
            "data-territory": color,
            // Not data-point: that names the stones and the click targets.
            "data-at": name,
          }),
        );
      }
    }
    this.stones.replaceChildren(...stones);
    this.overlay.replaceChildren();
    const empty = (at) => (rows[at.row] ?? "")[at.col] === ".";
    for (const o of owners ?? []) {
      const at = parsePoint(o.point, this.width, this.height);
      if (!at) continue;
      const s = 5.6;
      this.overlay.append(
        svgEl("rect", {
          class: `owner ${o.color}`,
          x: this.x(at.col) - s / 2,
          y: this.y(at.row) - s / 2,
          width: s,
          height: s,
          // A point held for sure is dark (or light); one barely held is hardly shaded.
          opacity: Math.round((0.12 + 0.73 * o.shade) * 100) / 100,
          "data-owner": o.color,
          "data-at": o.point,
          "data-shade": o.shade,
        }),
      );
    }
    const mark = best ? parsePoint(best.point, this.width, this.height) : null;
    if (mark && empty(mark)) {
      const g = svgEl("g", { class: `best ${best.color}`, "data-best": best.color, "data-at": best.point });
      const cx = this.x(mark.col);
      const cy = this.y(mark.row);
      g.append(
        svgEl("circle", { class: "ghost", cx, cy, r: RADIUS - 0.3, fill: `url(#${this.prefix}-${best.color})` }),
        svgEl("circle", { class: "ring", cx, cy, r: RADIUS - 0.1 }),
      );
      this.overlay.append(g);
    }
    if (preview) {
      const at = parsePoint(preview.point, this.width, this.height);
      if (at && (rows[at.row] ?? "")[at.col] === ".") {
        const g = this.stone(at.col, at.row, preview.color, "preview");
        g.removeAttribute("data-stone"); // only real stones carry data-stone
        g.setAttribute("data-preview", preview.color);
        this.overlay.append(g);
      }
    }
  }
}
