//! Who is at the board: sockets and looks per seat, for the grace period and the claim (and, in an untimed game,
//! the long absence after which the claim opens).

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tesuji_rules::{ByColor, Color, Illegal, Phase};

use crate::clocks::has_grace;
use crate::error::Error;
use crate::relay::Relayed;

use super::live::LiveGame;
use super::registry::{Entry, Games};
use super::request::Actor;
use super::view::{AbsentView, GameState, Player, PresenceEvent};

/// Signed-in user `user`, seated at `game`, has `count` sockets open to it on the node that tells now.
#[derive(Serialize, Deserialize)]
struct Sockets {
    game: i64,
    user: i64,
    count: u32,
}

impl Relayed for Sockets {
    const KIND: &'static str = "sockets";
}

/// User `user`, seated at `game`, looked at it over HTTP on the node that tells.
#[derive(Serialize, Deserialize)]
struct Looked {
    game: i64,
    user: i64,
}

impl Relayed for Looked {
    const KIND: &'static str = "looked";
}

impl LiveGame {
    /// How long an absent player's opponent waits before a claim, when claims apply now: both seats filled, not
    /// over, and either a clock played at one sitting (see [`has_grace`]: the grace period) or no clock (the
    /// untimed absence). A correspondence-scale clock has none: its own time settles a player who stays away.
    pub(super) fn claim_after_ms(&self) -> Option<u64> {
        if !self.started() || self.game.phase() == Phase::Over {
            return None;
        }
        match &self.clock {
            Some(clock) => has_grace(clock.control()).then_some(self.presence.absences.grace_ms),
            None => Some(self.presence.absences.untimed_ms),
        }
    }

    /// Whether the grace period and the claim apply now (see [`LiveGame::claim_after_ms`]).
    pub(super) fn has_grace(&self) -> bool {
        self.claim_after_ms().is_some()
    }

    /// Whether an absence of `color`'s player can lead to a claim: under a clock always (the grace period is
    /// about leaving a sitting); in an untimed game only while the game waits for them, their turn in play or
    /// their acceptance in the marking phase (a player whose opponent is to move holds nobody up).
    pub(super) fn awaited(&self, color: Color) -> bool {
        if self.clock.is_some() {
            return true;
        }
        match self.game.phase() {
            Phase::Playing => self.game.to_move() == color,
            Phase::Marking => !self.game.acceptances()[color.index()],
            Phase::Over => false,
        }
    }

    /// Since when `color`'s player counts as away (when they are): their last sign of presence, and in an
    /// untimed game not before the game began waiting for them.
    fn away_since(&self, color: Color) -> u64 {
        let seen = self.presence.seen_ms[color];
        if self.clock.is_some() {
            seen
        } else {
            seen.max(self.presence.acted_ms)
        }
    }

    /// `color`'s player is away: a user with no socket open to the game on any node. The computer is always
    /// present.
    pub(super) fn away(&self, color: Color) -> bool {
        match &self.players[color] {
            Some(Player::User(u)) => {
                let open = |sockets: &HashMap<i64, u32>| sockets.get(&u.id).is_some_and(|&n| n > 0);
                !open(&self.presence.sockets) && !self.presence.remote.values().any(open)
            }
            _ => false,
        }
    }

    /// Which seats are away now.
    fn away_seats(&self) -> ByColor<bool> {
        ByColor::from([self.away(Color::Black), self.away(Color::White)])
    }

    /// After sockets opened or closed (here or on another node): a player who has just left was last seen
    /// now, and the watchers hear of a change to who is away when it changes the state.
    fn sockets_changed(&mut self, before: ByColor<bool>) {
        let mut told = false;
        for color in [Color::Black, Color::White] {
            let away = self.away(color);
            if away == before[color] {
                continue;
            }
            if away {
                self.seen(color);
            }
            // Only a player whose absence is listed changes the state (see [`LiveGame::awaited`]).
            if !told && self.has_grace() && self.awaited(color) {
                let state = self.state();
                self.broadcast_presence(&state);
                told = true;
            }
        }
    }

    /// Node `node` has `sockets` open to this game now (signed-in users and their counts, none zero).
    pub(super) fn set_remote(&mut self, node: u64, sockets: HashMap<i64, u32>) {
        let before = self.away_seats();
        if sockets.is_empty() {
            self.presence.remote.remove(&node);
        } else {
            self.presence.remote.insert(node, sockets);
        }
        self.sockets_changed(before);
    }

    /// The players away from the board, with the time until their opponent may claim.
    pub(super) fn absent(&self) -> Vec<AbsentView> {
        let Some(after_ms) = self.claim_after_ms() else {
            return Vec::new();
        };
        let now = self.presence.time.now_ms();
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c) && self.awaited(c))
            .map(|c| {
                let since = self.away_since(c);
                AbsentView {
                    color: c.name(),
                    absent_ms: now.saturating_sub(since),
                    claim_in_ms: since.saturating_add(after_ms).saturating_sub(now),
                }
            })
            .collect()
    }

    /// The next end of a grace period not yet announced: its time, the absent seat, and when that player was
    /// last seen. `None` when no grace period runs.
    pub(super) fn next_grace_end(&self) -> Option<(u64, Color, u64)> {
        let after_ms = self.claim_after_ms()?;
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c) && self.awaited(c))
            .map(|c| (c, self.away_since(c)))
            .filter(|&(c, since)| self.presence.announced[c] != Some(since))
            .map(|(c, since)| (since.saturating_add(after_ms), c, since))
            .min_by_key(|&(end, _, _)| end)
    }

    /// `color`'s player is known to be at the board now.
    pub(super) fn seen(&mut self, color: Color) {
        self.presence.seen_ms[color] = self.presence.time.now_ms();
    }

    /// An action was taken now (by anyone: who the game waits for may have changed).
    pub(super) fn acted(&mut self) {
        self.presence.acted_ms = self.presence.time.now_ms();
    }

    /// Whether `color` may claim the game now; the refusal says why not.
    pub(super) fn check_claim(&self, color: Color) -> Result<(), Error> {
        if self.game.phase() == Phase::Over {
            return Err(Illegal::GameOver.into());
        }
        let Some(after_ms) = self.claim_after_ms() else {
            return Err(Error::NoClaim);
        };
        let opponent = color.opponent();
        if !self.away(opponent) {
            return Err(Error::OpponentPresent);
        }
        // By the stored actions, as an abort goes: a game whose first move was taken back can no longer be
        // aborted, so it can be claimed.
        if self.moves.is_empty() {
            return Err(Error::NoMoves);
        }
        if !self.awaited(opponent) {
            return Err(Error::NotAwaited);
        }
        let left = self
            .away_since(opponent)
            .saturating_add(after_ms)
            .saturating_sub(self.presence.time.now_ms());
        if left > 0 {
            return Err(Error::GraceNotOver { claim_in_ms: left });
        }
        Ok(())
    }

    /// A game socket of `user` opened (`open`) or closed on this node; the opponent hears of a seated player
    /// coming or going. Answers the user's open sockets here now when they are seated (for the other nodes).
    pub fn socket(&mut self, user: i64, open: bool) -> Option<u32> {
        let before = self.away_seats();
        let count = self.presence.sockets.entry(user).or_insert(0);
        if open {
            *count += 1;
        } else {
            *count = count.saturating_sub(1);
        }
        let after = *count;
        if after == 0 {
            self.presence.sockets.remove(&user);
        }
        let color = self.seat_of(Actor::User(user))?;
        if !open {
            self.seen(color);
        }
        self.sockets_changed(before);
        Some(after)
    }

    /// The open sockets of the seated players on this node, for the other nodes.
    pub(super) fn seated_sockets(&self) -> Vec<(i64, u32)> {
        self.presence
            .sockets
            .iter()
            .filter(|&(&user, &n)| n > 0 && self.seat_of(Actor::User(user)).is_some())
            .map(|(&user, &n)| (user, n))
            .collect()
    }

    /// User `user` asked for the game's state over HTTP. A seated player who does is at the board as much as one
    /// who acts: a client without a socket stays present by asking at least once per grace period. Watchers
    /// count an absent player's grace period down by themselves, so they hear of a look when it closes an open
    /// claim, and otherwise once a quarter of the grace period (a client that looks often is not an event
    /// each time). Returns whether a grace period applies (then [`Games::watch_grace`] must watch it again).
    pub fn polled(&mut self, user: i64) -> bool {
        let Some(color) = self.seat_of(Actor::User(user)) else {
            return false;
        };
        let Some(after_ms) = self.claim_after_ms() else {
            self.seen(color);
            return false;
        };
        let claim_was_open = self.check_claim(color.opponent()).is_ok();
        self.seen(color);
        let now = self.presence.seen_ms[color];
        let stale = now.saturating_sub(self.presence.told_ms[color]) >= after_ms / 4;
        if self.away(color) && self.awaited(color) && (claim_was_open || stale) {
            self.presence.told_ms[color] = now;
            let state = self.state();
            self.broadcast_presence(&state);
        }
        true
    }

    /// Tells the watchers that who is present changed; the version stays (no action was taken).
    pub(super) fn broadcast_presence(&self, state: &GameState) {
        let event = PresenceEvent {
            kind: "presence",
            version: self.version,
            state: state.without_moves(&self.fields),
        };
        if let Ok(text) = serde_json::to_string(&event) {
            let _ = self.events.send(Arc::from(text));
        }
    }
}

impl Games {
    /// A game socket of `user` opened (`open`) or closed on this node: the game's presence, and the other
    /// nodes' (when the user is seated).
    pub async fn socket(self: &Arc<Self>, id: i64, entry: &Entry, user: i64, open: bool) {
        let count = entry.lock().await.socket(user, open);
        if let Some(count) = count {
            self.relay.send(&Sockets {
                game: id,
                user,
                count,
            });
        }
        if !open {
            self.watch_grace(id);
        }
    }

    /// Seated user `user` looked at game `id` over HTTP on this node: the other nodes count them present too.
    pub fn looked(&self, id: i64, user: i64) {
        self.relay.send(&Looked { game: id, user });
    }

    /// Reads who the other nodes say is at the board there.
    pub(super) fn hear_presence(self: &Arc<Self>) {
        self.relay.on(self, |games, from, m: Sockets| async move {
            games.remote_socket(from, m.game, m.user, m.count).await
        });
        self.relay.on(self, |games, _, m: Looked| async move {
            games.remote_look(m.game, m.user).await
        });
    }

    /// The sockets other nodes said they have open to game `id`.
    pub(super) fn remote_sockets_of(&self, id: i64) -> HashMap<u64, HashMap<i64, u32>> {
        self.remote
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned()
            .unwrap_or_default()
    }

    /// Node `node` says `user` has `count` sockets open to game `id` there.
    async fn remote_socket(self: &Arc<Self>, node: u64, id: i64, user: i64, count: u32) {
        let sockets = {
            let mut remote = self.remote.lock().unwrap_or_else(|e| e.into_inner());
            let of_game = remote.entry(id).or_default();
            let of_node = of_game.entry(node).or_default();
            if count == 0 {
                of_node.remove(&user);
            } else {
                of_node.insert(user, count);
            }
            let sockets = of_node.clone();
            if of_node.is_empty() {
                of_game.remove(&node);
            }
            if of_game.is_empty() {
                remote.remove(&id);
            }
            sockets
        };
        self.set_remote(id, node, sockets).await;
    }

    /// Node `node` says these are all the sockets it has open (game, user, count); `replace`: nothing else
    /// of it stands (its first word after it started or came back, or its silence: none).
    pub async fn remote_node(
        self: &Arc<Self>,
        node: u64,
        sockets: &[(i64, i64, u32)],
        replace: bool,
    ) {
        let changed: Vec<(i64, HashMap<i64, u32>)> = {
            let mut remote = self.remote.lock().unwrap_or_else(|e| e.into_inner());
            let mut changed: HashMap<i64, HashMap<i64, u32>> = HashMap::new();
            if replace {
                for (&id, of_game) in remote.iter_mut() {
                    if of_game.remove(&node).is_some() {
                        changed.insert(id, HashMap::new());
                    }
                }
            }
            for &(id, user, count) in sockets.iter().filter(|s| s.2 > 0) {
                let of_node = remote.entry(id).or_default().entry(node).or_default();
                of_node.insert(user, count);
                changed.insert(id, of_node.clone());
            }
            remote.retain(|_, of_game| !of_game.is_empty());
            changed.into_iter().collect()
        };
        for (id, of_node) in changed {
            self.set_remote(id, node, of_node).await;
        }
    }

    /// Node `node` says seated user `user` looked at game `id` there.
    async fn remote_look(self: &Arc<Self>, id: i64, user: i64) {
        let Some(entry) = self.live_entry(id) else {
            return;
        };
        if entry.lock().await.polled(user) {
            self.watch_grace(id);
        }
    }

    /// The seated players' sockets open on this node: (game, user, count).
    pub async fn local_sockets(&self) -> Vec<(i64, i64, u32)> {
        let entries: Vec<(i64, Entry)> = self
            .registry()
            .live
            .iter()
            .map(|(&id, entry)| (id, Arc::clone(entry)))
            .collect();
        let mut all = Vec::new();
        for (id, entry) in entries {
            let live = entry.lock().await;
            all.extend(live.seated_sockets().into_iter().map(|(u, n)| (id, u, n)));
        }
        all
    }

    /// Game `id`'s copy here learns node `node`'s sockets, when this node holds it.
    async fn set_remote(self: &Arc<Self>, id: i64, node: u64, sockets: HashMap<i64, u32>) {
        let Some(entry) = self.live_entry(id) else {
            return;
        };
        entry.lock().await.set_remote(node, sockets);
        self.watch_grace(id);
    }
}
