//! What a live game keeps of who is at its board (see `super::presence`): open sockets per player, here and on
//! the other nodes, and when each was last seen; never stored.

use std::collections::HashMap;

use tesuji_rules::ByColor;

use crate::clocks::TimeSource;

/// The seated players' sockets open on other nodes: game → node → user → open sockets (none zero).
pub type RemoteSockets = HashMap<i64, HashMap<u64, HashMap<i64, u32>>>;

/// How long a player may be away before the opponent may claim the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absences {
    /// In a game under a clock played at one sitting: the grace period.
    pub grace_ms: u64,
    /// In an untimed game, while the game waits for the absent player.
    pub untimed_ms: u64,
}

/// Who is at the board, for the grace period. Never stored: after a restart nobody is connected, and everyone's
/// grace period runs from the restart.
pub(super) struct Presence {
    pub(super) time: TimeSource,
    pub(super) absences: Absences,
    /// Open game sockets per signed-in user.
    pub(super) sockets: HashMap<i64, u32>,
    /// When each seat's player was last known at the board (an action, a look at the game, their last socket
    /// closing, the game's start, the server's start), on `time`'s scale.
    pub(super) seen_ms: ByColor<u64>,
    /// When the last action was taken (or the game started, or the server): in an untimed game a player's
    /// absence counts from when the game began waiting for them, which only an action changes.
    pub(super) acted_ms: u64,
    /// Per seat: the `seen_ms` whose grace period's end was announced (see [`Games::watch_grace`]).
    pub(super) announced: ByColor<Option<u64>>,
    /// Per seat: the `seen_ms` the watchers last heard of from a look (see [`LiveGame::polled`]).
    pub(super) told_ms: ByColor<u64>,
    /// Whether a [`Games::watch_grace`] task runs for this game.
    pub(super) watching: bool,
    /// Open game sockets of signed-in users on the other nodes, per node (see [`crate::cluster`]).
    pub(super) remote: HashMap<u64, HashMap<i64, u32>>,
}
