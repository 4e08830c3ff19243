// The engine's estimate of a game's position now (`GET /api/games/{id}/estimate`, docs/API.md), its pure part:
// who is offered it, the answer read, whether it still stands for the board shown, its words, and what it draws
// on the board. game.js asks and draws. Tested with node.

import { bestText, figuresText, lineMoves, ownershipShades, readPosition } from "./analysis.js";

/**
 * What the game page offers of the estimate: "hidden" (a seated player while the game is not over: the server
 * refuses them, it would tell them what to play; or a table still waiting for its players), "signin" (nobody
 * signed in: a link to sign in) or "ask" (the button). `state` is the game's {status, phase}; `seated` whether
 * the viewer plays in it; `signedIn` whether there is a session (a guest's counts).
 */
export function estimateOffer(state, seated, signedIn) {
  const over = state?.status === "over" || state?.phase === "over";
  const playing = state?.status === "playing";
  if (!over && (!playing || seated)) return "hidden";
  return signedIn ? "ask" : "signin";
}

/** The server's answer read as a review's position ({turn, toMove, searched, winrate, score, best, pv,
 * playouts, ownership}) and the game's move count it stands for (`standsFor`); null when it is no answer at all.
 * During play it stands for the position it was made of; once the game is over (`over`: the game has `turns`
 * moves), for the game as it ended: the server then searches the last position still in play, which may be
 * a pass or two before the end. */
export function readEstimate(answer, { turns, over } = {}) {
  if (!answer || typeof answer !== "object") return null;
  const p = readPosition(answer, null);
  if (!Number.isInteger(p.turn)) return null;
  return { ...p, standsFor: over && Number.isInteger(turns) ? turns : p.turn };
}

/** Whether an estimate no longer stands for the game that has `turns` moves now (a move played, or one taken
 * back). */
export function isStale(estimate, turns) {
  return Boolean(estimate) && estimate.standsFor !== turns;
}

/**
 * The estimate in words: {figures ("Black 62% · B+3.5"; when play had ended there, that the engine gives none),
 * best ("Best for White: C4", or null), line: the engine's [{move, color}], at (the position and the search:
 * "After move 12; 1000 playouts.")}.
 */
export function estimateText(estimate, t) {
  const playouts = estimate.playouts;
  return {
    figures: figuresText(estimate, t) ?? t("estimate.unsearched"),
    best: bestText(estimate, t),
    line: lineMoves(estimate),
    at: estimate.turn === 0 ? t("estimate.at-start", { playouts }) : t("estimate.at", { k: estimate.turn, playouts }),
  };
}

/** What the board draws of an estimate (Board.render's `best` and `owners`): nothing when it is stale or not
 * shown, when the board shows another position than the game's own, or when the engine has no figures. */
export function estimateMarks(estimate, { stale, shown, live, width, height }) {
  if (!estimate?.searched || stale || !shown || !live) return {};
  return {
    best: estimate.best && estimate.best !== "pass" ? { point: estimate.best, color: estimate.toMove } : null,
    owners: ownershipShades(estimate.ownership, width, height),
  };
}
