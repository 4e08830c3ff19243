//! tesuji-bot: the computer players and the position estimator, on the rules crate's fast board.
//!
//! - [`mcts`]: the tree search player (UCT with RAVE, priors, the game's exact rules at the root).
//! - [`policy`] and [`patterns`]: its playout policy (atari, 3×3 shapes, no self-atari of big chains, no eye
//!   filling) and area counting.
//! - [`ladder`]: a small ladder reader for the priors and the playouts.
//! - [`estimate`]: ownership and the status of every chain (alive, dead, seki, unsure) from playouts and
//!   Benson's unconditional life; `final_status_list` uses it.
//! - [`review`]: a game reviewed position by position: win rates, scores, the engine's moves, the mistakes.
//! - [`time`]: how long to think about a move, given the clock.
//! - [`simple`]: the stopgap one-ply bot; [`playout`]: the random playouts of `tesuji bench playouts`.

pub mod estimate;
pub mod features;
pub mod ladder;
pub mod mcts;
pub mod patterns;
pub mod playout;
pub mod policy;
pub mod puct;
pub mod review;
pub mod simple;
pub mod time;
