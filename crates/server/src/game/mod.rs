//! The games in memory: each a rules-crate `Game` (the truth), its action list, a version and a broadcast
//! channel. An action is checked, committed to the store, applied, and only then answered and broadcast.
//!
//! Only live games (open tables, games in play or in their marking phase) are always in memory. A game that
//! ends moves to a bounded cache of finished games, from which the least recently used one that nobody holds
//! (no watcher, no request in flight) leaves once the cache is full; a finished game asked for again is read
//! from the store and replayed. Listings of finished games read the store's summary rows, never a game.
//!
//! The core's files are layered, none importing a file of a later layer (and none in an import circle, checked by
//! `tests/architecture.rs`):
//! 1. What the games are made of, types and pure functions: [`request`] (a request, who sends it and what they
//!    knew), [`recorded`] (an action as the record holds it, its stored text written and read there only),
//!    [`view`] (the JSON views: state, listing entries, events), [`fields`] (what features show in a game's
//!    state), [`seen`] (who is at a board), [`bots`] (the computer's strengths, moves and estimate),
//!    [`ranked`] (which games are ranked and rated), [`lease`] (whether this node runs the timers).
//! 2. [`live`]: one live game and its replay from the store; [`state`], [`undo`], [`record`]: its state per
//!    viewer and its events, taking back a move, its SGF record.
//! 3. [`registry`]: `Games`, which games are in memory; loading, creating, joining, eviction, listings.
//! 4. What the games do, each an `impl Games` of its own: [`action`] (the one path of an action to the store),
//!    [`sync`] (catching up with the other nodes), [`presence`] (the grace period and the claim), [`timer`]
//!    (the flag, the grace period's end, the timers' lease), [`computer`] (the computer's turns), [`rated`]
//!    (ratings in games), [`vacation`] (days away stop correspondence clocks), [`player`] (a player's games).

pub mod action;
pub mod bots;
pub mod computer;
pub mod fields;
pub mod lease;
pub mod live;
pub mod player;
pub mod presence;
pub mod ranked;
pub mod rated;
pub mod record;
pub mod recorded;
pub mod registry;
pub mod request;
pub mod seen;
pub mod state;
pub mod sync;
pub mod timer;
pub mod undo;
pub mod vacation;
pub mod view;

pub use bots::BOTS;
pub use fields::{ReadBack, StateField};
pub use live::{LiveGame, ReplayError};
pub use registry::{Entry, Games, GamesConfig, NewTable, Opponent, ResidentCount};
pub use request::{Actor, Request, Sent};
pub use seen::Absences;
pub use view::{GameState, MoveView, Player, Players, Status, Summary};
