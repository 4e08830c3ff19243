//! The games in memory: each a rules-crate `Game` (the truth), its action list, a version and a broadcast
//! channel. An action is checked, committed to the store, applied, and only then answered and broadcast.
//!
//! Only live games (open tables, games in play or in their marking phase) are always in memory. A game that
//! ends moves to a bounded cache of finished games, from which the least recently used one that nobody holds
//! (no watcher, no request in flight) leaves once the cache is full; a finished game asked for again is read
//! from the store and replayed. Listings of finished games read the store's summary rows, never a game.
//!
//! - [`registry`]: which games are in memory; loading, creating, joining, eviction, listings.
//! - [`live`]: one live game and its replay from the store.
//! - [`action`]: the one path of an action, from the socket or HTTP (or a timer, or the computer) to the store.
//! - [`view`]: the JSON views (state, listing entries, events).
//! - [`player`]: a player's games in progress, and those that wait for them.
//! - [`recorded`]: an action as a game's record holds it, and its stored text (written and read there only).
//! - [`undo`]: taking back a move, asked and answered.
//! - [`fields`]: what features show in a game's state beside the core's fields.
//! - [`ranked`]: what a ranked game may be, when an ended one needs rating, the ratings shown in games.
//! - [`vacation`]: a player's days away stop their clocks in correspondence games.
//! - [`presence`], [`timer`], [`computer`], [`record`]: who is at the board; the clock's flag and the grace
//!   period; the computer and the estimate; the SGF record.
//! - [`lease`]: which of several nodes runs the timers.

pub mod action;
pub mod computer;
pub mod fields;
pub mod lease;
pub mod live;
pub mod player;
pub mod presence;
pub mod ranked;
pub mod record;
pub mod recorded;
pub mod registry;
pub mod sync;
pub mod timer;
pub mod undo;
pub mod vacation;
pub mod view;

pub use action::{Actor, Request, Sent};
pub use computer::BOTS;
pub use fields::{ReadBack, StateField};
pub use live::{LiveGame, ReplayError};
pub use presence::Absences;
pub use registry::{Entry, Games, GamesConfig, NewTable, Opponent, ResidentCount};
pub use view::{GameState, MoveView, Player, Players, Status, Summary};
