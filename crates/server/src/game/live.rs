//! One live game: the rules-crate `Game` (the truth), its stored actions, its clock and its version.

use std::collections::HashMap;
use std::sync::Arc;

use tesuji_clock::TimeControl;
use tesuji_rules::{Action, ByColor, Color, Game, Phase, Rules};
use tokio::sync::broadcast;

use crate::clocks::{GameClock, TimeSource, TurnTime, vacation_stops};
use crate::store::{Seats, StoreError, StoredGame, StoredMove, VacationStore};

use super::bots::{BotDispute, MarkingEstimate};
use super::recorded::{Recorded, UndoStep};
use super::request::Actor;
use super::seen::{Absences, Presence};
use super::view::{MoveView, Player, Players, SERVER, Status};

/// Events buffered per game for slow WebSocket readers; one who falls further behind gets a resync.
pub(super) const EVENT_BUFFER: usize = 64;

/// Why a stored game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("game {id}: rules {rules:?}: {reason}")]
    Rules {
        id: i64,
        rules: String,
        reason: String,
    },
    #[error("game {id}: move {number} ({color} {text}): {reason}")]
    Move {
        id: i64,
        number: i64,
        color: String,
        text: String,
        reason: String,
    },
}

/// One live game.
pub struct LiveGame {
    pub id: i64,
    pub game: Game,
    /// The accepted actions as the API shows them, shared by the states taken (see [`LiveGame::push_move`]).
    pub moves: Arc<Vec<MoveView>>,
    pub seats: Seats,
    pub created: i64,
    /// The seats' occupants for display.
    pub players: Players,
    /// Raised by every accepted action and by the join that fills the second seat.
    pub version: u64,
    /// Serialized events (JSON text), so that each is encoded once whatever the number of watchers.
    pub events: broadcast::Sender<Arc<str>>,
    /// The table was cancelled by its creator: it is no longer in the registry, and a request that held it
    /// meanwhile finds nothing.
    pub cancelled: bool,
    /// The clocks of a timed game.
    pub clock: Option<GameClock>,
    /// In a timed game, the mover's time left after each turn (play or pass), in order.
    pub times: Vec<(Color, tesuji_clock::Remaining)>,
    pub(super) presence: Presence,
    /// The estimate of the current marking phase, made when play ends (or when the game is loaded in that
    /// phase), before anyone sees the phase; `None` outside a marking phase, or when the estimate failed (then
    /// nothing is shown as unsure, and there is no first proposal).
    pub(super) marking: Option<MarkingEstimate>,
    /// The features' fields of its state (see [`super::fields`]).
    pub(super) fields: super::fields::Fields,
    /// The player who asked to take back their last move, while the request waits for its answer.
    pub undo_asked: Option<Color>,
    /// The player whose request was declined by the game's last action, and when (wall milliseconds): the
    /// pause before they may ask again (see [`super::undo::PAUSE_MS`]).
    pub undo_declined: Option<Color>,
    pub undo_declined_at: Option<u64>,
    /// The stored number of each action of the rules' log, in order (see [`super::undo`]).
    pub(super) log_numbers: Vec<i64>,
    /// How a ranked game, ended, changed its players' ratings, once it is rated (see [`super::ranked`]).
    pub(super) rating_change: Option<tesuji_rules::ByColor<super::view::RatingChangeView>>,
    /// The computer's reasons for its last dispute (see [`super::computer::BotDispute`]).
    pub(super) bot_dispute: Option<BotDispute>,
}

impl LiveGame {
    pub(super) fn new(
        id: i64,
        game: Game,
        seats: Seats,
        created: i64,
        players: Players,
        time: TimeSource,
        absences: Absences,
    ) -> LiveGame {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let now = time.now_ms();
        LiveGame {
            id,
            game,
            moves: Arc::default(),
            version: u64::from(seats.joined),
            seats,
            created,
            players,
            events,
            cancelled: false,
            clock: None,
            times: Vec::new(),
            marking: None,
            fields: super::fields::Fields::default(),
            undo_asked: None,
            undo_declined: None,
            undo_declined_at: None,
            log_numbers: Vec::new(),
            rating_change: None,
            bot_dispute: None,
            presence: Presence {
                time,
                absences,
                sockets: HashMap::new(),
                seen_ms: ByColor::from([now; 2]),
                acted_ms: now,
                announced: ByColor::default(),
                told_ms: ByColor::from([now; 2]),
                watching: false,
                remote: HashMap::new(),
            },
        }
    }
}

impl LiveGame {
    /// Gives this game's clock, if a vacation stops it, its players' vacations as stored: those that end after
    /// the running turn started, or from now (no earlier one reaches a turn still to be charged).
    pub(super) async fn fit_vacations(
        &mut self,
        store: &dyn VacationStore,
    ) -> Result<(), StoreError> {
        let Some(since) = self
            .clock
            .as_ref()
            .filter(|c| vacation_stops(c.control()))
            .map(|c| i64::try_from(c.counts_from_wall()).unwrap_or(i64::MAX))
        else {
            return Ok(());
        };
        for color in [Color::Black, Color::White] {
            let away = match self.seat_user(color) {
                Some(user) => store.vacations(user, since).await?,
                None => Vec::new(),
            };
            let away = away
                .into_iter()
                .map(|v| (wall_ms(v.start_ms), wall_ms(v.end_ms)))
                .collect();
            if let Some(clock) = self.clock.as_mut() {
                clock.set_away(color, away);
            }
        }
        Ok(())
    }
}

/// A stored wall time as the clocks take it (none is before 1970).
fn wall_ms(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}

impl LiveGame {
    /// Sets the feature field `name` of this game's state (see [`super::fields`]); when it changed, the
    /// watchers hear an event of that type with the field as everyone sees it
    /// (`{"type": name, "version": v, name: value}`).
    pub fn set_field(&mut self, name: &'static str, field: super::fields::StateField) {
        let event = serde_json::json!({
            "type": name,
            "version": self.version,
            name: &field.others,
        });
        if self.fields.set(name, field) {
            // No receivers is not an error: nobody is watching.
            let _ = self.events.send(Arc::from(event.to_string()));
        }
    }

    /// The feature field `name` of this game's state, if set.
    pub fn field(&self, name: &str) -> Option<&super::fields::StateField> {
        self.fields.get(name)
    }
}

impl LiveGame {
    /// Moves the clock after an action that was applied: the next turn starts when play goes on, the clock
    /// stops for good when the game is over. The marking phase runs no clock, and no clock runs before the
    /// game's first move: the player who moves first is not charged for the time it takes to come to a game
    /// that started at a join (an unplayed game is aborted, never lost on time or claimed).
    pub(super) fn clock_after(&mut self) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        match self.game.phase() {
            Phase::Playing if self.game.log().is_empty() => {}
            Phase::Playing => {
                let _ = clock.start(self.game.to_move());
            }
            Phase::Over => clock.stop(),
            Phase::Marking => {}
        }
    }

    /// Ends the running turn of `color` for a turn action (a play or a pass): the time it took, and whether it
    /// came in time. `replayed` is the stored time when replaying. The game's first move ends no turn (see
    /// [`LiveGame::clock_after`]): `None`, it takes no time.
    pub(super) fn clock_turn(
        &mut self,
        color: Color,
        lag_ms: u64,
        replayed: Option<u64>,
    ) -> Option<(TurnTime, bool)> {
        let first = self.game.log().is_empty();
        let clock = self.clock.as_mut()?;
        if first {
            match replayed {
                // A game stored when the clock ran from the join: its first turn is charged as it was.
                Some(_) => {
                    let _ = clock.start(color);
                }
                None => return None,
            }
        }
        let (time, on_time) = clock.end(color, lag_ms, replayed);
        Some((time, on_time.is_ok()))
    }

    /// Records an accepted action of `color` (for the server's first proposal, the colour it was made for) in
    /// the list the states share; a turn's time left, for the SGF record.
    pub(super) fn push_move(&mut self, color: Color, action: &Recorded, m: StoredMove) {
        if action.is_turn()
            && let Some(clock) = &self.clock
        {
            self.times.push((color, clock.left(color)));
        }
        self.note_undo(color, m.number, action, m.at_ms);
        // Copies the list only while an older state still holds it.
        Arc::make_mut(&mut self.moves).push(MoveView {
            number: m.number,
            color: color.name(),
            by: (m.color == SERVER).then_some(SERVER),
            text: m.text,
        });
    }

    /// Applies one stored action, as at its commit: its turn's stored time on the clock, the action through the
    /// rules, the action list and the version. `last` is the colour of the action before (the server's first
    /// proposal is applied for it), and becomes this one's. An action that does not apply comes back with the
    /// reason. Answers the action, read from its stored text (here only).
    pub(super) fn apply_stored(
        &mut self,
        last: &mut Option<Color>,
        m: StoredMove,
    ) -> Result<Recorded, Box<(StoredMove, String)>> {
        let color = match m.color.parse::<Color>() {
            Ok(c) => c,
            Err(_) if m.color == SERVER => match *last {
                Some(c) => c,
                None => return Err(Box::new((m, "no action before".into()))),
            },
            Err(_) => return Err(Box::new((m, "unknown colour".into()))),
        };
        *last = Some(color);
        if let Some(spent) = m.spent_ms {
            let lag = u64::try_from(m.lag_ms.unwrap_or(0)).unwrap_or(0);
            self.clock_turn(color, lag, Some(u64::try_from(spent).unwrap_or(0)));
        }
        let action = match Recorded::read(color, &m.text, self.game.rules().size) {
            Ok(action) => action,
            Err(reason) => return Err(Box::new((m, reason))),
        };
        match &action {
            Recorded::Undo(step) => {
                if let Err(e) = self.check_undo(color, *step) {
                    return Err(Box::new((m, e.to_string())));
                }
                if *step == UndoStep::Accept {
                    self.game.undo();
                }
            }
            _ => {
                if let Some(logged) = action.logged()
                    && let Err(e) = self.game.apply_action(logged)
                {
                    return Err(Box::new((m, e.to_string())));
                }
            }
        }
        if let (Some(clock), Some(at)) = (self.clock.as_mut(), m.at_ms) {
            clock.resume_at_wall(u64::try_from(at).unwrap_or(0));
        }
        self.clock_after();
        if let Some(clock) = self.clock.as_mut() {
            clock.settle();
        }
        self.push_move(color, &action, m);
        self.version += 1;
        Ok(action)
    }

    /// How many stored actions this copy has: the number of the last one.
    pub fn stored_count(&self) -> i64 {
        i64::try_from(self.moves.len()).unwrap_or(i64::MAX)
    }

    /// Rebuilds a stored game as [`LiveGame::replay`] does, for a site whose other nodes kept its clock running
    /// (a game another node created, or every live game at the start of a node that joins a running site):
    /// the turn in progress has run since the last action was accepted, or since the site's clocks started
    /// again (`since`, wall milliseconds: see [`crate::store::Store::clocks_since`]) if that is later, not
    /// since the game was read.
    pub fn replay_running(
        stored: StoredGame,
        players: Players,
        time: &TimeSource,
        absences: Absences,
        since: u64,
    ) -> Result<LiveGame, ReplayError> {
        let last_at = stored.moves.last().and_then(|m| m.at_ms);
        let mut live = LiveGame::replay(stored, players, time, absences)?;
        if let (Some(clock), Some(at)) = (live.clock.as_mut(), last_at) {
            clock.running_since_wall(u64::try_from(at).unwrap_or(0).max(since));
        }
        Ok(live)
    }

    /// Rebuilds a stored game by replaying its actions through the rules.
    pub fn replay(
        stored: StoredGame,
        players: Players,
        time: &TimeSource,
        absences: Absences,
    ) -> Result<LiveGame, ReplayError> {
        let rules_error = |reason: String| ReplayError::Rules {
            id: stored.id,
            rules: stored.rules.clone(),
            reason,
        };
        let rules: Rules = stored
            .rules
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| rules_error(e.to_string()))?;
        let game = Game::new(rules).map_err(|e| rules_error(e.to_string()))?;
        let clock = match &stored.time_control {
            Some(spec) => Some(
                spec.parse::<TimeControl>()
                    .map_err(|e| rules_error(format!("time control {spec:?}: {e}")))
                    .and_then(|c| {
                        GameClock::new(c, true, time.clone())
                            .map_err(|e| rules_error(e.to_string()))
                    })?,
            ),
            None => None,
        };
        let mut live = LiveGame::new(
            stored.id,
            game,
            stored.seats,
            stored.created,
            players,
            time.clone(),
            absences,
        );
        live.clock = clock;
        if live.started() {
            live.clock_after();
        }
        // The colour of the last action: the server's first proposal is made for the player whose turn ended
        // play, the action just before it.
        let mut last: Option<Color> = None;
        for m in stored.moves {
            live.apply_stored(&mut last, m).map_err(|bad| {
                let (m, reason) = *bad;
                ReplayError::Move {
                    id: stored.id,
                    number: m.number,
                    color: m.color,
                    text: m.text,
                    reason,
                }
            })?;
        }
        if let Some(clock) = live.clock.as_mut() {
            clock.go_live();
        }
        // The server holds many games: none keeps the room a new game reserves for a long one.
        live.game.shrink_to_fit();
        Arc::make_mut(&mut live.moves).shrink_to_fit();
        Ok(live)
    }

    /// The second seat has just been filled by `color` (seats and players set): the version rises, the game
    /// starts, with both grace periods (the clock waits for the first move), and the watchers hear who joined.
    pub(super) fn joined_by(&mut self, color: Color) -> super::view::GameState {
        self.version += 1;
        self.clock_after();
        self.seen(Color::Black);
        self.seen(Color::White);
        self.acted();
        let state = self.state();
        // Only a user joins (the computer sits down at creation).
        let name = match &self.players[color] {
            Some(Player::User(user)) => user.name.clone(),
            _ => String::new(),
        };
        self.broadcast(
            "join",
            &MoveView {
                number: 0,
                color: color.name(),
                text: name,
                by: None,
            },
            &state,
        );
        state
    }

    /// The moves played so far: plays and passes on the board, after take-backs (not the stored actions, which
    /// count marks, acceptances and take-back requests too). What a listing's Moves column shows.
    pub fn moves_played(&self) -> usize {
        self.game
            .log()
            .iter()
            .filter(|a| matches!(a, Action::Turn(..)))
            .count()
    }

    /// Both seats are filled.
    pub fn started(&self) -> bool {
        self.players.iter().all(|(_, p)| p.is_some())
    }

    pub fn status(&self) -> Status {
        if self.started() {
            Status::of(self.game.phase())
        } else {
            Status::Open
        }
    }

    /// The user seated at `color`, if a user is.
    pub fn seat_user(&self, color: Color) -> Option<i64> {
        match &self.players[color] {
            Some(Player::User(u)) => Some(u.id),
            _ => None,
        }
    }

    /// The colour of a user's seat.
    pub fn seat_of(&self, actor: Actor) -> Option<Color> {
        match actor {
            Actor::Referee(c) => Some(c),
            Actor::Bot => self
                .seats
                .bot
                .as_ref()
                .and_then(|(_, c)| c.parse::<Color>().ok()),
            Actor::User(id) => [Color::Black, Color::White]
                .into_iter()
                .find(|&c| matches!(&self.players[c], Some(Player::User(u)) if u.id == id)),
        }
    }
}
