//! Catching up with the store: when several nodes serve one database, another node may have stored actions of
//! a game this node holds (or a join, or taken the table down), or created a game this node has never seen.
//! The store is the truth; a node brings its copy up to it here, applying each stored action as a replay does
//! and telling its own watchers, so that every node's watchers see the same events in the same order.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tesuji_rules::{Color, Phase};
use tokio::sync::Mutex;

use crate::error::Error;
use crate::relay::{Relay, Relayed};
use crate::store::{Progress, StoredGame, StoredMove};

use super::bots::MarkingEstimate;
use super::live::LiveGame;
use super::registry::{Change, Games};
use super::view::Status;

/// Sessions of user `user` were ended on a node (a password changed or reset, sessions ended by their owner,
/// the account deleted): the others forget what they keep of them.
#[derive(Serialize, Deserialize)]
struct SessionsEnded {
    user: i64,
}

impl Relayed for SessionsEnded {
    const KIND: &'static str = "sessions";
}

/// Whether a copy with `moves` stored actions and its second seat `joined` or not differs from the store's
/// progress of its game (`None`: no longer live there, taken down or ended on another node).
fn differs(stored: Option<Progress>, moves: usize, joined: bool) -> bool {
    match stored {
        Some(p) => usize::try_from(p.moves).ok() != Some(moves) || p.joined != joined,
        None => true,
    }
}

impl Games {
    /// Makes this node tell the others of every change it makes from now on (see [`crate::cluster`]).
    pub fn tell_changes(&self, changes: tokio::sync::mpsc::UnboundedSender<Change>) {
        let _ = self.changes.set(changes);
    }

    /// The relay this node's parts tell the other nodes through.
    pub fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// Reads what the other nodes tell the core: who is at the board there, vacations and sessions.
    pub(super) fn hear_the_others(self: &Arc<Self>) {
        self.relay
            .on(self, |games, _, m: SessionsEnded| async move {
                games.forget_user(m.user).await
            });
        self.hear_presence();
        self.hear_vacations();
    }

    /// Sessions of `user` were ended on this node: the other nodes forget what they keep of them.
    pub fn sessions_ended(&self, user: i64) {
        self.relay.send(&SessionsEnded { user });
    }

    /// Sessions of `user` were ended, or its account deleted (here, or on another node that told): this node
    /// forgets what it keeps of its sessions and of the user, and lets the finished games in memory where it sat
    /// go, so that they are read again under the name it has now.
    pub async fn forget_user(&self, user: i64) {
        self.accounts.forget_sessions(user, None);
        let finished: Vec<(i64, super::registry::Entry)> = self
            .registry()
            .finished
            .iter()
            .map(|(&id, entry)| (id, Arc::clone(entry)))
            .collect();
        let mut theirs = Vec::new();
        for (id, entry) in finished {
            let live = entry.lock().await;
            if live.seats.black == Some(user) || live.seats.white == Some(user) {
                theirs.push(id);
            }
        }
        let gone: Vec<super::registry::Entry> = {
            let mut r = self.registry();
            theirs.iter().filter_map(|id| r.finished.pop(id)).collect()
        };
        drop(gone);
    }

    /// Whether the store has more of this locked game than this node's copy (only ever on a node of several).
    pub(super) async fn behind(&self, live: &LiveGame) -> bool {
        self.several()
            && !live.cancelled
            && self
                .store_is_ahead(live.id, live.moves.len(), live.seats.joined)
                .await
    }

    /// Brings this locked copy up to the store when it is behind (only ever on a node of several): whether it
    /// was. What a refusal made on a stale copy runs before it is judged again.
    pub async fn catch_up_if_behind(&self, live: &mut LiveGame) -> Result<bool, Error> {
        if !self.behind(live).await {
            return Ok(false);
        }
        let stored = self
            .stores
            .games
            .load_game_after(live.id, live.stored_count())
            .await?;
        self.catch_up_locked(live, stored).await?;
        Ok(true)
    }

    /// Whether this node is one of several (it tells the others its changes).
    pub(super) fn several(&self) -> bool {
        self.changes.get().is_some()
    }

    /// Whether the store has more of game `id` than a copy with `moves` stored actions and its second seat
    /// `joined` or not, or no longer has it: one indexed row.
    async fn store_is_ahead(&self, id: i64, moves: usize, joined: bool) -> bool {
        match self.stores.games.progress(id).await {
            Ok(stored) => differs(stored, moves, joined),
            Err(e) => {
                tracing::warn!(game = id, error = %e, "reading a game's progress failed");
                false
            }
        }
    }

    /// Before game `id` is shown (a look, a socket's first state, a resync) on a node of several: brought up
    /// to the store when the store has more of it than this node's copy, so that a look on any node shows at
    /// least what was committed before it, whether its notice came, comes late, or (NATS away) not at all: a
    /// client may move between nodes at any time. The game is not held while the store is asked.
    pub async fn refresh(self: &Arc<Self>, id: i64) {
        // A node alone holds the store's copy.
        if !self.several() {
            return;
        }
        let Some(entry) = self.live_entry(id) else {
            // A finished game held here: its moves are final, but a feature's field may have changed on another
            // node while its message could not come (a rematch offered while NATS was away). Not held: a
            // finished game is read whole when asked for, a live one is read in.
            if let Some(entry) = self.held(id) {
                let seats = entry.lock().await.seats.clone();
                match self.fields_stored(id, &seats).await {
                    Ok(fields) => {
                        let mut live = entry.lock().await;
                        for (name, field) in fields {
                            live.set_field(name, field);
                        }
                    }
                    Err(e) => {
                        tracing::warn!(game = id, error = %e, "reading a finished game's fields failed")
                    }
                }
            }
            return;
        };
        let (moves, joined) = {
            let live = entry.lock().await;
            (live.moves.len(), live.seats.joined)
        };
        if self.store_is_ahead(id, moves, joined).await
            && let Err(e) = self.catch_up(id).await
        {
            tracing::warn!(game = id, error = %e, "catching a game up before showing it failed");
        }
    }

    /// Before the lobby is shown on a node of several: every live game brought up to the store where the store
    /// has more of it (a join, a move, a new table, one taken down or ended elsewhere), so that the lobby read
    /// on any node shows at least what was committed before it, as [`Games::refresh`] does for one game. One
    /// indexed read of the live games' rows; only the games that differ are read.
    pub async fn refresh_live(self: &Arc<Self>) {
        if !self.several() {
            return;
        }
        let stored = match self.stores.games.live_games().await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "reading the live games failed");
                return;
            }
        };
        let stored: std::collections::HashMap<i64, Progress> = stored.into_iter().collect();
        let mut ids: Vec<i64> = self.registry().live.keys().copied().collect();
        ids.extend(stored.keys().copied());
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let stale = match self.live_entry(id) {
                None => true,
                Some(entry) => {
                    let live = entry.lock().await;
                    !live.cancelled
                        && differs(
                            stored.get(&id).copied(),
                            live.moves.len(),
                            live.seats.joined,
                        )
                }
            };
            if stale && let Err(e) = self.catch_up(id).await {
                tracing::warn!(game = id, error = %e, "catching a game up before the lobby failed");
            }
        }
    }

    /// Game `id` for a look (its state, record or replay): [`Games::refresh`]ed, then from memory or the store.
    pub async fn look(self: &Arc<Self>, id: i64) -> Result<super::registry::Entry, Error> {
        self.refresh(id).await;
        self.get(id).await
    }

    /// Game `id` changed here and is now at `version` (committed), by `action` when an action made it: the
    /// other nodes hear of it.
    pub(super) fn changed(&self, id: i64, version: u64, action: Option<StoredMove>) {
        if let Some(changes) = self.changes.get() {
            let _ = changes.send(Change {
                game: id,
                version,
                action,
            });
        }
    }

    /// [`Games::catch_up`] when another node says game `id` is at `version`, by `action` when an action made
    /// it: nothing to do when this node's copy is there already; the action applied at once, without reading
    /// the store, when it is the one action this copy lacks (it was committed before it was told); otherwise
    /// (notices crossed, or one was lost) what the copy lacks is read from the store.
    pub async fn catch_up_to(
        self: &Arc<Self>,
        id: i64,
        version: u64,
        action: Option<StoredMove>,
    ) -> Result<bool, Error> {
        if let Some(entry) = self.live_entry(id) {
            let mut live = entry.lock().await;
            if live.cancelled {
                return Ok(false);
            }
            if live.version >= version {
                return Ok(false);
            }
            if let Some(m) = action
                && live.version + 1 == version
                && m.number == live.stored_count() + 1
            {
                let changed = self.apply_caught_up(&mut live, vec![m]).await;
                let over = live.game.phase() == Phase::Over;
                drop(live);
                drop(entry);
                self.after_catch_up(id, changed, over);
                return Ok(changed);
            }
        }
        self.catch_up(id).await
    }

    /// Brings every live game up to the store, and reads in those other nodes created: after NATS was away,
    /// when notices may have been lost. Answers how many games changed.
    pub async fn catch_up_all(self: &Arc<Self>) -> Result<usize, Error> {
        let mut ids: Vec<i64> = self.registry().live.keys().copied().collect();
        ids.extend(
            self.stores
                .games
                .live_games()
                .await?
                .into_iter()
                .map(|(id, _)| id),
        );
        ids.sort_unstable();
        ids.dedup();
        let mut changed = 0;
        for id in ids {
            if self.catch_up(id).await? {
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Brings game `id` up to the store: a live game this node holds gets the actions stored since (by
    /// another node), a game it has never held is read in; one the store no longer has is taken down. Answers
    /// whether anything changed.
    pub async fn catch_up(self: &Arc<Self>, id: i64) -> Result<bool, Error> {
        let entry = match self.live_entry(id) {
            Some(entry) => entry,
            None => {
                if self.adopt(id).await? {
                    self.wake(id);
                    return Ok(true);
                }
                // Another task read it in meanwhile, perhaps from an earlier read of the store than this one:
                // it is caught up below like any game held.
                match self.live_entry(id) {
                    Some(entry) => entry,
                    None => return Ok(false),
                }
            }
        };
        let mut live = entry.lock().await;
        if live.cancelled {
            return Ok(false);
        }
        let stored = self
            .stores
            .games
            .load_game_after(id, live.stored_count())
            .await?;
        let changed = self.catch_up_locked(&mut live, stored).await?;
        let over = live.game.phase() == Phase::Over;
        drop(live);
        drop(entry);
        self.after_catch_up(id, changed, over);
        Ok(changed)
    }

    /// Once a catch-up has let game `id` go: a game that ended elsewhere may leave memory now that the catch-up
    /// no longer holds it; one that changed gets its timers started again from where it is.
    fn after_catch_up(self: &Arc<Self>, id: i64, changed: bool, over: bool) {
        if over {
            self.trim();
        } else if changed {
            self.wake(id);
        }
    }

    /// Reads in a live game another node created: it is replayed and served from now on like the others (the
    /// caller wakes its timers). Answers whether it was read in (not when it is finished, gone, or was read
    /// in meanwhile).
    ///
    /// One game is read in at a time: otherwise a read of the store made before the game ended could insert
    /// its copy after a later read found it ended and left, and nobody would bring that copy up to date.
    pub(super) async fn adopt(&self, id: i64) -> Result<bool, Error> {
        let _one = self.adopting.lock().await;
        if self.registry().live.contains_key(&id) {
            return Ok(false);
        }
        let Some(stored) = self.stores.games.load_game(id).await? else {
            return Ok(false);
        };
        if stored.state == Status::Over.name() {
            // Finished games are read when asked for.
            return Ok(false);
        }
        let players = Self::players_of(&self.accounts, &stored.seats).await?;
        let (time, absences, since) = (self.time.clone(), self.absences, self.clocks_since);
        let replayed = tokio::task::spawn_blocking(move || {
            LiveGame::replay_running(stored, players, &time, absences, since)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?;
        // A game that no longer replays is not served (as at start); asking for it again tries again.
        let mut live = match replayed {
            Ok(live) => live,
            Err(e) => {
                tracing::error!(error = %e, "a stored game could not be rebuilt; it is not served");
                return Ok(false);
            }
        };
        if live.game.phase() == Phase::Marking {
            live.marking = MarkingEstimate::of(id, live.game.clone()).await;
        }
        self.fit_vacations(&mut live).await?;
        // Who is at the board on the other nodes, as they told before this node held the game.
        live.presence.remote = self.remote_sockets_of(id);
        // The listing first (outside the registry's lock; a copy read in meanwhile lists the same).
        self.set_summary(&live);
        {
            let mut r = self.registry();
            if r.live.contains_key(&id) {
                return Ok(false);
            }
            r.live.insert(id, Arc::new(Mutex::new(live)));
        }
        Ok(true)
    }

    /// [`Games::catch_up`] on a locked game, with the store's copy of it (`None`: it is gone from the store),
    /// whole or only its moves after those this copy has.
    pub(super) async fn catch_up_locked(
        &self,
        live: &mut LiveGame,
        stored: Option<StoredGame>,
    ) -> Result<bool, Error> {
        let id = live.id;
        let Some(stored) = stored else {
            // Cancelled or aborted on another node.
            let event = if live.started() {
                "aborted"
            } else {
                "cancelled"
            };
            self.take_down(id, live, event);
            return Ok(true);
        };
        let mut changed = false;
        if stored.seats.joined && !live.seats.joined {
            let players = Self::players_of(&self.accounts, &stored.seats).await?;
            let joiner = [Color::Black, Color::White]
                .into_iter()
                .find(|&c| live.players[c].is_none() && players[c].is_some());
            live.seats = stored.seats.clone();
            live.players = players;
            self.fit_vacations_or_warn(live).await;
            if let Some(color) = joiner {
                live.joined_by(color);
            }
            changed = true;
        }
        if self.apply_caught_up(live, stored.moves).await {
            changed = true;
        } else if changed {
            self.set_summary(live);
        }
        Ok(changed)
    }

    /// Applies the stored actions this copy lacks (those of `moves` numbered after its last), in order, each
    /// told to its watchers as at its commit; answers whether any was.
    async fn apply_caught_up(&self, live: &mut LiveGame, moves: Vec<StoredMove>) -> bool {
        let id = live.id;
        let mut changed = false;
        let known = live.stored_count();
        let mut last: Option<Color> = live.moves.last().and_then(|m| m.color.parse().ok());
        for m in moves.into_iter().filter(|m| m.number > known) {
            let kind = match live.apply_stored(&mut last, m) {
                Ok(action) => action.kind(),
                Err(bad) => {
                    let (m, e) = *bad;
                    tracing::error!(game = id, number = m.number, error = %e, "a stored action does not apply here");
                    break;
                }
            };
            if live.game.phase() != Phase::Marking {
                live.marking = None;
            } else if live.marking.is_none() {
                live.marking = MarkingEstimate::of(id, live.game.clone()).await;
            }
            live.acted();
            let state = live.state();
            if let Some(action) = live.moves.last() {
                live.broadcast(kind, action, &state);
            }
            changed = true;
        }
        if changed {
            self.set_summary(live);
            if live.game.phase() == Phase::Over {
                self.ended(live);
            }
        }
        changed
    }
}
