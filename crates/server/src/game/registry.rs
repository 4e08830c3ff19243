//! Which games are in memory: every live game, and a bounded cache of finished ones read back from the store.

use std::collections::HashMap;
use std::sync::Arc;

use lru::LruCache;
use tesuji_clock::TimeControl;
use tesuji_rules::{ByColor, Color, Game, Phase, Rules};
use tokio::sync::{Mutex, broadcast};

use super::lease::TimerLease;
use crate::auth::{Accounts, User};
use crate::clocks::{GameClock, TimeSource};
use crate::error::{Error, ServerError};
use crate::relay::Relay;
use crate::store::{Ending, GameRow, GameStore, Seats, StoreError, StoredMove, Stores};

use super::bots::{BOTS, MarkingEstimate};
use super::fields::ReadBack;
use super::live::LiveGame;
use super::request::Actor;
use super::seen::{Absences, RemoteSockets};
use super::view::{GameState, Player, Players, Status, Summary, seated};

/// How a new table's seats are filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    Anyone,
    Invite,
    Bot(String),
}

/// A new table.
#[derive(Clone, Debug)]
pub struct NewTable {
    pub rules: String,
    /// `None`: drawn at random.
    pub color: Option<Color>,
    pub opponent: Opponent,
    /// The time control's spec; `None`: untimed.
    pub time: Option<String>,
    /// The game changes its players' ratings when it ends with a result: only between two accounts.
    pub ranked: bool,
    /// The finished game this table is the rematch of.
    pub rematch_of: Option<i64>,
    /// A player may take back a move with the opponent's consent (never against the computer).
    pub undo: bool,
}

/// A game in memory, shared by the requests, sockets and timers that use it.
pub type Entry = Arc<Mutex<LiveGame>>;

/// The games in memory: every live game, and the finished games of the cache, the most recently used first.
pub(super) struct Resident {
    pub(super) live: HashMap<i64, Entry>,
    pub(super) finished: LruCache<i64, Entry>,
}

impl Resident {
    /// Lets finished games beyond `cap` go, the least recently used first, skipping those still held (a
    /// watcher's socket, a request in flight): they go at a later trim. Returns them, to be dropped outside
    /// the lock.
    pub(super) fn trim(&mut self, cap: usize) -> Vec<Entry> {
        let excess = self.finished.len().saturating_sub(cap);
        if excess == 0 {
            return Vec::new();
        }
        let idle: Vec<i64> = self
            .finished
            .iter()
            .rev()
            .filter(|(_, entry)| Arc::strong_count(entry) == 1)
            .map(|(&id, _)| id)
            .take(excess)
            .collect();
        idle.into_iter()
            .filter_map(|id| self.finished.pop(&id))
            .collect()
    }
}

/// How many games are in memory: live, and finished in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidentCount {
    pub live: usize,
    pub finished: usize,
}

/// A change this node made, for the other nodes (see [`crate::cluster`]): game `game` is at `version` in the
/// store (committed here), by `action` when an action made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub game: i64,
    pub version: u64,
    pub action: Option<StoredMove>,
}

/// All games in memory and the store they are committed to; the accounts name their players.
pub struct Games {
    pub(super) stores: Stores,
    pub(super) accounts: Arc<Accounts>,
    pub(super) resident: std::sync::Mutex<Resident>,
    /// The most finished games kept in memory when nobody holds them.
    pub(super) finished_cache: usize,
    /// Each live game's listing, kept beside the game so that listings never wait on a game's lock.
    pub(super) summaries: std::sync::RwLock<HashMap<i64, Summary>>,
    /// Raised whenever a listing changes; the lobby sockets re-read then.
    pub lobby: broadcast::Sender<()>,
    /// The time of every clock and timer.
    pub(super) time: TimeSource,
    /// How long a player may be away before a claim: the grace period, and the untimed games' absence.
    pub(super) absences: Absences,
    /// Whether the end of play brings the estimate's first proposal.
    pub(super) first_proposal: bool,
    /// Tables one user may have open at once.
    pub(super) open_tables: usize,
    /// Told of each game aborted here (see [`Games::aborts`]).
    aborts: broadcast::Sender<i64>,
    /// Where this node tells the other nodes of its changes, when it is one of several.
    pub(super) changes: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<Change>>,
    /// Where this node tells the other nodes who is at the board here, and hears what they tell.
    pub(super) relay: Arc<Relay>,
    /// The seated players' sockets open on the other nodes, per game and node, as they told (also of games
    /// this node does not hold yet, so that a game read in later knows them).
    pub(super) remote: std::sync::Mutex<RemoteSockets>,
    /// Whether this node runs the timers (the flag, the computer) now: always when alone.
    pub(super) lease: TimerLease,
    /// Held while a game another node created is read in (see [`Games::adopt`]).
    pub(super) adopting: Mutex<()>,
    /// Since when the site's clocks run (wall milliseconds): a game read in runs no turn from earlier.
    pub(super) clocks_since: u64,
    /// Where ended ranked games go to be rated (see [`super::ranked`]).
    pub(super) to_rate: tokio::sync::mpsc::UnboundedSender<super::ranked::ToRate>,
    /// The other end, until the ratings take it.
    ranked_endings:
        std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<super::ranked::ToRate>>>,
    /// The features that fill in their fields of a finished game read back (see [`super::fields`]).
    pub(super) read_backs: std::sync::RwLock<Vec<std::sync::Weak<dyn ReadBack>>>,
}

/// What the games need of the server's settings.
#[derive(Clone, Debug)]
pub struct GamesConfig {
    /// The time of every clock and timer.
    pub time: TimeSource,
    /// The disconnected player's grace period.
    pub grace_ms: u64,
    /// How long the player an untimed game waits for may be away before the opponent may claim it.
    pub untimed_claim_ms: u64,
    /// The most finished games kept in memory when nobody holds them.
    pub finished_cache: usize,
    /// Whether the end of play brings the estimate's first proposal.
    pub first_proposal: bool,
    /// Tables one user may have open at once.
    pub open_tables: usize,
    /// Whether this node is one of several, which run the timers by turns (see [`crate::game::lease`]).
    pub shared_timers: bool,
}

/// Finished games whose summary is filled in per round at start (see [`Games::summarize_old`]).
pub(super) const SUMMARY_ROUND: usize = 200;

impl Games {
    /// Fills in the summary rows of games that ended before summaries were kept, or before they held the moves
    /// played, replaying each once.
    pub(super) async fn summarize_old(store: &dyn GameStore) -> Result<(), ServerError> {
        let mut done = 0usize;
        loop {
            let ids = store.unsummarized_games(SUMMARY_ROUND).await?;
            if ids.is_empty() {
                break;
            }
            for id in ids {
                let Some(stored) = store.load_game(id).await? else {
                    continue;
                };
                let created = stored.created;
                // A game that no longer replays gets an empty summary, so that it is not tried at every start.
                let summary = match tokio::task::spawn_blocking(move || {
                    LiveGame::replay(
                        stored,
                        ByColor::default(),
                        &TimeSource::real(),
                        Absences {
                            grace_ms: 0,
                            untimed_ms: 0,
                        },
                    )
                })
                .await
                {
                    Ok(Ok(live)) => (
                        live.game.result().map(|r| r.to_string()),
                        live.moves_played(),
                    ),
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "a finished game could not be rebuilt for its summary");
                        (None, 0)
                    }
                    Err(e) => {
                        tracing::error!(game = id, error = %e, "summarizing a finished game failed");
                        (None, 0)
                    }
                };
                // An end time not kept: the creation time stands for it (one kept stays, as does a result).
                let ending = Ending {
                    result: summary.0,
                    ended: created,
                    moves: i64::try_from(summary.1).unwrap_or(i64::MAX),
                };
                store.set_ending(id, &ending).await?;
                done += 1;
            }
        }
        if done > 0 {
            tracing::info!(
                games = done,
                "summaries of earlier finished games filled in"
            );
        }
        Ok(())
    }

    /// Replays the live games (open tables, games in play, games in their marking phase); the computer moves
    /// where it was its turn. Finished games stay in the store until asked for.
    pub async fn load(
        stores: Stores,
        accounts: Arc<Accounts>,
        relay: Arc<Relay>,
        config: GamesConfig,
    ) -> Result<Arc<Games>, ServerError> {
        let store = &*stores.games;
        Self::summarize_old(store).await?;
        let GamesConfig {
            time,
            grace_ms,
            untimed_claim_ms,
            finished_cache,
            first_proposal,
            open_tables,
            shared_timers,
        } = config;
        let absences = Absences {
            grace_ms,
            untimed_ms: untimed_claim_ms,
        };
        let mut games = HashMap::new();
        let mut summaries = HashMap::new();
        // While the site is down no clock runs: the turns in progress start again, now. A node that joins a
        // site whose other nodes run (one holds the timers) takes each clock as it runs there.
        let now_wall = time.wall_ms();
        let running_since = if shared_timers {
            stores
                .site
                .clocks_since(super::lease::TIMERS, now_wall)
                .await?
        } else {
            None
        };
        for (id, _) in store.live_games().await? {
            let Some(stored) = store.load_game(id).await? else {
                continue;
            };
            let players = Self::players_of(&accounts, &stored.seats).await?;
            // One game that no longer replays (say, after a rules change) must not keep every other game
            // offline: it is left out, loudly, and its rows stay in the database for a later fix.
            let replayed = if let Some(since) = running_since {
                LiveGame::replay_running(stored, players, &time, absences, since)
            } else {
                LiveGame::replay(stored, players, &time, absences)
            };
            let mut live = match replayed {
                Ok(live) => live,
                Err(e) => {
                    tracing::error!(error = %e, "a stored game could not be rebuilt; it is not served");
                    continue;
                }
            };
            live.fit_vacations(&*stores.vacations).await?;
            summaries.insert(live.id, live.summary());
            games.insert(live.id, live);
        }
        // The estimates of the games in their marking phase again (all at once), before anyone sees them, so
        // that their unsure stones are those shown before the restart.
        let estimates = futures_util::future::join_all(
            games
                .values()
                .filter(|live| live.game.phase() == Phase::Marking)
                .map(|live| {
                    let (id, game) = (live.id, live.game.clone());
                    async move { (id, MarkingEstimate::of(id, game).await) }
                }),
        )
        .await;
        for (id, estimate) in estimates {
            if let Some(live) = games.get_mut(&id) {
                live.marking = estimate;
            }
        }
        let mut resident = Resident {
            live: HashMap::new(),
            finished: LruCache::unbounded(),
        };
        for (id, live) in games {
            // A game whose row says it goes on but whose moves end it (a crash between the two cannot
            // happen: they are one transaction) would be one of these; it is served as finished.
            let over = live.game.phase() == Phase::Over;
            let entry = Arc::new(Mutex::new(live));
            if over {
                summaries.remove(&id);
                resident.finished.put(id, entry);
            } else {
                resident.live.insert(id, entry);
            }
        }
        let (lobby, _) = broadcast::channel(16);
        let (to_rate, ranked_endings) = tokio::sync::mpsc::unbounded_channel();
        let games = Arc::new(Games {
            stores,
            accounts,
            resident: std::sync::Mutex::new(resident),
            finished_cache,
            summaries: std::sync::RwLock::new(summaries),
            lobby,
            time,
            absences,
            first_proposal,
            open_tables,
            aborts: broadcast::channel(16).0,
            changes: std::sync::OnceLock::new(),
            relay,
            remote: std::sync::Mutex::default(),
            lease: if shared_timers {
                TimerLease::shared()
            } else {
                TimerLease::alone()
            },
            adopting: Mutex::new(()),
            clocks_since: running_since.unwrap_or(now_wall),
            to_rate,
            ranked_endings: std::sync::Mutex::new(Some(ranked_endings)),
            read_backs: std::sync::RwLock::default(),
        });
        games.hear_the_others();
        for id in games.live_ids() {
            games.wake(id);
        }
        Ok(games)
    }

    pub(super) fn registry(&self) -> std::sync::MutexGuard<'_, Resident> {
        self.resident.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) async fn players_of(
        accounts: &Accounts,
        seats: &Seats,
    ) -> Result<Players, StoreError> {
        let mut users = accounts
            .users(&[seats.black, seats.white])
            .await?
            .into_iter();
        let (black, white) = (users.next().flatten(), users.next().flatten());
        Ok(seated(seats, ByColor { black, white }))
    }

    /// How many games are in memory now.
    pub fn resident(&self) -> ResidentCount {
        let r = self.registry();
        ResidentCount {
            live: r.live.len(),
            finished: r.finished.len(),
        }
    }

    /// The ids of the live games in memory.
    pub fn live_ids(&self) -> Vec<i64> {
        self.registry().live.keys().copied().collect()
    }

    /// The ranked games that end from now on (by an action here, or caught up with), each once, for whoever
    /// rates them; `None` once taken.
    pub fn ranked_endings(
        &self,
    ) -> Option<tokio::sync::mpsc::UnboundedReceiver<super::ranked::ToRate>> {
        self.ranked_endings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Whether this node runs the timers now (see [`crate::game::lease`]).
    pub fn lease(&self) -> &TimerLease {
        &self.lease
    }

    /// The games aborted on this node from now on, by id.
    pub fn aborts(&self) -> broadcast::Receiver<i64> {
        self.aborts.subscribe()
    }

    /// A live game, if game `id` is one: what the timers act on (never a finished game read back).
    pub fn live_entry(&self, id: i64) -> Option<Entry> {
        self.registry().live.get(&id).cloned()
    }

    /// Has `feature` fill in its fields of each finished game read back from now on, for as long as it
    /// lives (held weakly, so that it may hold the core).
    pub fn on_read_back(&self, feature: std::sync::Weak<dyn ReadBack>) {
        self.read_backs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(feature);
    }

    /// The features' fields of finished game `live`, just rebuilt.
    async fn read_back(&self, live: &mut LiveGame) -> Result<(), Error> {
        for (name, field) in self.fields_stored(live.id, &live.seats).await? {
            live.set_field(name, field);
        }
        Ok(())
    }

    /// The features' fields of finished game `id`, seated as `seats`, as the store has them.
    pub(super) async fn fields_stored(
        &self,
        id: i64,
        seats: &Seats,
    ) -> Result<super::fields::NamedFields, Error> {
        let features: Vec<Arc<dyn ReadBack>> = self
            .read_backs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .collect();
        let mut fields = Vec::new();
        for feature in features {
            fields.extend(feature.read_back(id, seats).await?);
        }
        Ok(fields)
    }

    /// The board size of game `id`, which never changes.
    pub async fn size_of(&self, id: i64) -> Result<tesuji_rules::Size, Error> {
        let entry = self.get(id).await?;
        let size = entry.lock().await.game.rules().size;
        Ok(size)
    }

    /// Game `id` if this node holds it, live or finished, without reading it from the store.
    pub fn held(&self, id: i64) -> Option<Entry> {
        let r = self.registry();
        r.live.get(&id).or_else(|| r.finished.peek(&id)).cloned()
    }

    /// Game `id`: from memory, or else read from the store (a finished game) into the cache.
    pub async fn get(&self, id: i64) -> Result<Entry, Error> {
        {
            let mut r = self.registry();
            if let Some(entry) = r.live.get(&id) {
                return Ok(Arc::clone(entry));
            }
            if let Some(entry) = r.finished.get(&id) {
                return Ok(Arc::clone(entry));
            }
        }
        let Some(stored) = self.stores.games.load_game(id).await? else {
            return Err(Error::NotFound(id));
        };
        if stored.state != Status::Over.name() {
            // A live game not in memory was created a moment ago, here (look again) or on another node (read
            // it in), or could not be rebuilt (it is not served).
            if let Some(entry) = self.registry().live.get(&id).cloned() {
                return Ok(entry);
            }
            self.adopt(id).await?;
            return self
                .registry()
                .live
                .get(&id)
                .cloned()
                .ok_or(Error::NotFound(id));
        }
        let players = Self::players_of(&self.accounts, &stored.seats).await?;
        let (time, absences) = (self.time.clone(), self.absences);
        let mut live = tokio::task::spawn_blocking(move || {
            LiveGame::replay(stored, players, &time, absences)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
        .map_err(|e| {
            tracing::error!(error = %e, "a stored game could not be rebuilt; it is not served");
            Error::NotFound(id)
        })?;
        self.read_back(&mut live).await?;
        self.rating_change_stored(&mut live).await?;
        let (entry, gone) = {
            let mut r = self.registry();
            // Another request may have read it meanwhile: one copy is kept.
            let entry = match r.finished.get(&id) {
                Some(entry) => Arc::clone(entry),
                None => {
                    let entry = Arc::new(Mutex::new(live));
                    r.finished.put(id, Arc::clone(&entry));
                    entry
                }
            };
            (entry, r.trim(self.finished_cache))
        };
        drop(gone);
        Ok(entry)
    }

    /// Lets finished games nobody holds leave memory beyond the cache's size; after a watcher leaves, and
    /// now and then.
    pub fn trim(&self) {
        let gone = self.registry().trim(self.finished_cache);
        drop(gone);
    }

    /// A live game has just ended here (by an action, or caught up with): a ranked one is rated, and it
    /// leaves the live games.
    pub(super) fn ended(&self, live: &LiveGame) {
        if let Some(to_rate) = live.to_rate() {
            let _ = self.to_rate.send(to_rate);
        }
        self.retire(live.id);
    }

    /// Game `id` has ended: it moves from the live games to the finished ones, and leaves the lobby.
    pub(super) fn retire(&self, id: i64) {
        let gone = {
            let mut r = self.registry();
            if let Some(entry) = r.live.remove(&id) {
                r.finished.put(id, entry);
            }
            r.trim(self.finished_cache)
        };
        drop(gone);
    }

    /// Updates a live game's listing; a finished game leaves the listings of live games.
    pub(super) fn set_summary(&self, live: &LiveGame) {
        if live.game.phase() == Phase::Over {
            let removed = self
                .summaries
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&live.id);
            if removed.is_some() {
                let _ = self.lobby.send(());
            }
            return;
        }
        let summary = live.summary();
        let changed = {
            let mut all = self.summaries.write().unwrap_or_else(|e| e.into_inner());
            let before = all.insert(live.id, summary.clone());
            before.is_none_or(|b| {
                b.status != summary.status
                    || b.players.black != summary.players.black
                    || b.players.white != summary.players.white
                    || b.moves != summary.moves
            })
        };
        if changed {
            let _ = self.lobby.send(());
        }
    }

    /// A page of the games in which `user` sits, newest first: read from the store, with the live games'
    /// entries from memory (their moves and states are newer than the rows).
    pub async fn player_page(
        &self,
        user: i64,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Summary>, Error> {
        let rows = self.stores.games.player_games(user, before, limit).await?;
        Ok(self.listed(rows))
    }

    /// A page of the finished games, the most recently ended first, after game `before` in that order.
    pub async fn finished_page(
        &self,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Summary>, Error> {
        let rows = self.stores.games.finished_games(before, limit).await?;
        Ok(self.listed(rows))
    }

    pub(super) fn listed(&self, rows: Vec<GameRow>) -> Vec<Summary> {
        let live = self.summaries.read().unwrap_or_else(|e| e.into_inner());
        rows.into_iter()
            .map(|row| match live.get(&row.id) {
                Some(summary) => summary.clone(),
                None => Summary::of_row(row),
            })
            .collect()
    }

    /// How many tables `user` has open, waiting for an opponent.
    fn open_tables_of(&self, user: i64) -> usize {
        let all = self.summaries.read().unwrap_or_else(|e| e.into_inner());
        all.values()
            .filter(|s| s.status == Status::Open && s.seat_of(user).is_some())
            .count()
    }

    /// Live games' listings matching a filter, newest first, at most `limit`.
    pub fn summaries(&self, filter: impl Fn(&Summary) -> bool, limit: usize) -> Vec<Summary> {
        let all = self.summaries.read().unwrap_or_else(|e| e.into_inner());
        let mut found: Vec<Summary> = all.values().filter(|s| filter(s)).cloned().collect();
        found.sort_unstable_by_key(|s| std::cmp::Reverse(s.id));
        found.truncate(limit);
        found
    }

    /// Creates a table from a rules spec and seats its creator; against the computer the game starts at once.
    /// Returns the state and the invite token.
    pub async fn create(
        self: &Arc<Self>,
        creator: &User,
        table: NewTable,
    ) -> Result<(GameState, Option<String>), Error> {
        let rules: Rules = table
            .rules
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| Error::BadRules(e.to_string()))?;
        let control = table
            .time
            .as_deref()
            .map(|t| {
                t.parse::<TimeControl>()
                    .map_err(|e| Error::BadRequest(format!("bad time control: {e}")))
            })
            .transpose()?
            .filter(TimeControl::is_timed);
        let mut rules = rules;
        if control.is_none() && rules.self_fill.is_some() {
            return Err(Error::BadRules(
                "self-fill needs a clock (RULES.md §5): choose a time control or self-fill=off"
                    .into(),
            ));
        }
        // The ideal rules' self-fill rule holds in every timed game under them, with our automatic referee.
        if control.is_some() && rules.self_fill.is_none() && table.rules.trim().starts_with("ideal")
        {
            rules.self_fill = Some(10);
        }
        let mut game = Game::new(rules).map_err(|e| Error::BadRules(e.to_string()))?;
        game.shrink_to_fit();
        // A table against the computer starts at once; the others wait, and each user may keep only so many
        // waiting.
        if !matches!(table.opponent, Opponent::Bot(_))
            && self.open_tables_of(creator.id) >= self.open_tables
        {
            return Err(Error::TooManyTables {
                limit: self.open_tables,
            });
        }
        if table.ranked {
            if creator.guest {
                return Err(Error::RankedNeedsAccount);
            }
            if matches!(table.opponent, Opponent::Bot(_)) {
                return Err(Error::BadRequest(
                    "a game against the computer is not ranked: leave out \"ranked\"".into(),
                ));
            }
            super::ranked::check_ranked(game.rules()).map_err(Error::RankedSettings)?;
        }
        let canonical = game.rules().to_string();
        let clock = control
            .map(|c| GameClock::new(c, false, self.time.clone()))
            .transpose()
            .map_err(|e| Error::BadRequest(format!("bad time control: {e}")))?;
        let color = table.color.unwrap_or_else(|| {
            if rand::random::<bool>() {
                Color::Black
            } else {
                Color::White
            }
        });
        let mut seats = Seats {
            opponent: match &table.opponent {
                Opponent::Anyone => "anyone",
                Opponent::Invite => "invite",
                Opponent::Bot(_) => "bot",
            }
            .to_owned(),
            ranked: table.ranked,
            rematch_of: table.rematch_of,
            undo: table.undo && !matches!(table.opponent, Opponent::Bot(_)),
            ..Seats::default()
        };
        match color {
            Color::Black => seats.black = Some(creator.id),
            Color::White => seats.white = Some(creator.id),
        }
        match &table.opponent {
            Opponent::Anyone => {}
            Opponent::Invite => {
                let token: [u8; 16] = rand::random();
                seats.invite = Some(token.iter().map(|b| format!("{b:02x}")).collect());
            }
            Opponent::Bot(kind) => {
                if !BOTS.contains(&kind.as_str()) {
                    return Err(Error::BadRequest(format!(
                        "unknown bot {kind:?}; bots: {}",
                        BOTS.join(", ")
                    )));
                }
                seats.bot = Some((kind.clone(), color.opponent().name().to_owned()));
            }
        }
        let id = self
            .stores
            .games
            .create_game(
                &canonical,
                Status::of(game.phase()).name(),
                &seats,
                control.map(|c| c.to_string()).as_deref(),
            )
            .await?;
        let invite = seats.invite.clone();
        let players = Self::players_of(&self.accounts, &seats).await?;
        let mut live = LiveGame::new(
            id,
            game,
            seats,
            crate::store::now(),
            players,
            self.time.clone(),
            self.absences,
        );
        live.clock = clock;
        self.fit_vacations_or_warn(&mut live).await;
        if live.started() {
            live.clock_after();
        }
        let state = live.state_for(Some(creator.id));
        self.set_summary(&live);
        self.changed(id, live.version, None);
        self.registry().live.insert(id, Arc::new(Mutex::new(live)));
        self.wake(id);
        Ok((state, invite))
    }

    /// Cancels a table its creator is waiting at: it leaves the store, memory and the lobby, and its watchers
    /// hear `cancelled` before their sockets close.
    pub async fn cancel(&self, id: i64, user: &User) -> Result<(), Error> {
        let entry = self.get(id).await?;
        let mut live = seated_at(&entry, id, user).await?;
        if live.started() {
            return Err(Error::NotOpen);
        }
        match self.stores.games.cancel_table(id).await {
            Err(StoreError::Started { .. }) => return Err(Error::NotOpen),
            other => other?,
        }
        self.take_down(id, &mut live, "cancelled");
        Ok(())
    }

    /// Aborts a game both players sit at before anyone has moved: it ends without a result and leaves the
    /// store, memory and the lobby like a cancelled table; its watchers hear `aborted` before their sockets
    /// close. Either player may abort.
    pub async fn abort(&self, id: i64, user: &User) -> Result<(), Error> {
        let entry = self.get(id).await?;
        let mut live = seated_at(&entry, id, user).await?;
        if !live.started() {
            return Err(Error::NotStarted);
        }
        // Any stored action, a move taken back too: the store keeps it, and the game is no longer unplayed.
        if !live.moves.is_empty() {
            return Err(Error::Moved);
        }
        match self.stores.games.abort_game(id).await {
            Err(StoreError::Moved { .. }) => return Err(Error::Moved),
            other => other?,
        }
        self.take_down(id, &mut live, "aborted");
        drop(live);
        // A game made by automatch took its taken seek with it: the seekers' lists change.
        let _ = self.aborts.send(id);
        Ok(())
    }

    /// A game locked by the caller ends without a result: its watchers hear `event` (`cancelled`, `aborted`),
    /// then it leaves memory and the lobby (the store has already let it go).
    pub(super) fn take_down(&self, id: i64, live: &mut LiveGame, event: &str) {
        live.cancelled = true;
        self.changed(id, live.version, None);
        let event = serde_json::json!({"type": event, "version": live.version});
        let _ = live.events.send(Arc::from(event.to_string()));
        // Dropping the sender ends every watcher's stream once it has read the event.
        live.events = broadcast::channel(1).0;
        self.registry().live.remove(&id);
        let removed = self
            .summaries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        if removed.is_some() {
            let _ = self.lobby.send(());
        }
    }

    /// Seats a user in a table's empty seat.
    pub async fn join(
        self: &Arc<Self>,
        id: i64,
        user: &User,
        invite: Option<&str>,
    ) -> Result<GameState, Error> {
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        if live.cancelled {
            return Err(Error::NotFound(id));
        }
        if live.seat_of(Actor::User(user.id)).is_some() {
            return Err(Error::AlreadySeated);
        }
        let Some(color) = [Color::Black, Color::White]
            .into_iter()
            .find(|&c| live.players[c].is_none())
        else {
            return Err(Error::SeatTaken);
        };
        if let Some(token) = &live.seats.invite
            && invite != Some(token.as_str())
        {
            return Err(Error::BadInvite);
        }
        if live.seats.ranked && user.guest {
            return Err(Error::RankedNeedsAccount);
        }
        match self.stores.games.join_game(id, color.name(), user.id).await {
            Err(StoreError::SeatTaken { .. }) => return Err(Error::SeatTaken),
            other => other?,
        }
        match color {
            Color::Black => live.seats.black = Some(user.id),
            Color::White => live.seats.white = Some(user.id),
        }
        live.seats.joined = true;
        live.players[color] = Some(Player::User(user.clone()));
        self.fit_vacations_or_warn(&mut live).await;
        let state = live.joined_by(color);
        self.set_summary(&live);
        self.changed(id, live.version, None);
        drop(live);
        self.wake(id);
        Ok(state)
    }
}

/// The locked game `id` when `user` sits at it and it has not been taken down.
async fn seated_at<'a>(
    entry: &'a Mutex<LiveGame>,
    id: i64,
    user: &User,
) -> Result<tokio::sync::MutexGuard<'a, LiveGame>, Error> {
    let live = entry.lock().await;
    if live.cancelled {
        return Err(Error::NotFound(id));
    }
    if live.seat_of(Actor::User(user.id)).is_none() {
        return Err(Error::NotSeated);
    }
    Ok(live)
}
