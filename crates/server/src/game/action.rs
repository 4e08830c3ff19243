//! The one path of an action, from a client (or the server's timers and computer) to the store and the
//! watchers: checked by the rules, committed, applied, broadcast, answered.

use std::sync::Arc;

use tesuji_rules::{Action, Color, Game, Illegal, Move, Phase, Point, Rules};

use crate::error::ApiError;
use crate::store::{Ending, StoreError, StoredMove};

use super::computer::MarkingEstimate;
use super::live::LiveGame;
use super::registry::Games;
use super::view::{GameState, MoveView, phase_name};
use crate::replay::turn_number;

/// `pass` or a GTP vertex (`D4`) on the game's board: the turns of the rules' text form of an action.
pub fn parse_move(text: &str, rules: &Rules) -> Option<Move> {
    // The colour does not change how a turn reads.
    match Action::parse(Color::Black, text, rules.size) {
        Ok(Action::Turn(_, mv)) => Some(mv),
        _ => None,
    }
}

/// What a player asks of a game; the colour comes from the seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Play(Move),
    Resign,
    /// Marking: toggle the chain at the point between dead and alive.
    Dead(Point),
    /// Marking: the server's first proposal, from its estimate (never from a client).
    Propose(Vec<Point>),
    Accept,
    Dispute,
    /// The player's clock ran out (from the server's timer, never from a client).
    Timeout,
    /// The opponent has been away longer than the grace period: they forfeit.
    Claim,
}

/// Who acts: a signed-in user, or the computer in its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    User(i64),
    Bot,
    /// The server itself, acting for a colour (a loss on time).
    Referee(Color),
}

/// A refused play as answered: a superko refusal names the action after which the position it would repeat
/// stood (each stored action is one action of the game's log), with that position.
pub(super) fn refusal(game: &Game, color: Color, mv: Move, e: Illegal) -> ApiError {
    let (Err(why), Move::Play(p)) = (game.why(color, mv), mv) else {
        return e.into();
    };
    // The repeated position is the one the play would make.
    let (Some(turn), Some(grid)) = (why.repeats, game.grid_after_play(color, p)) else {
        return e.into();
    };
    ApiError::Superko {
        reason: why.reason,
        repeats: turn_number(game, turn),
        board: crate::replay::grid_rows(&grid),
    }
}

impl Games {
    /// Checks an action with the rules, applies it, commits it, broadcasts it, and returns the new state.
    /// It runs as its own task: a client hanging up must not cancel it between the rules and the commit.
    pub async fn act(
        self: &Arc<Self>,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let games = Arc::clone(self);
        let state = tokio::spawn(async move {
            games
                .act_now(id, actor, request, expected_version, lag_ms)
                .await
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
        self.wake(id);
        // A game this action ended may leave memory now that the action no longer holds it; other actions
        // leave the cache as it was, so the registry's lock stays off their path.
        if state.phase == "over" {
            self.trim();
        }
        Ok(state)
    }
}

impl Games {
    /// The body of [`Games::act`]. The game's lock is held throughout, so actions on one game are serialized
    /// and versions have no gaps.
    pub(super) async fn act_now(
        &self,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        let was_playing = live.game.phase() == Phase::Playing;
        let state = self
            .act_locked(&mut live, id, actor, request, expected_version, lag_ms)
            .await?;
        if !(self.first_proposal && was_playing && live.game.phase() == Phase::Marking) {
            return Ok(state);
        }
        // Play has just ended: the estimate's dead stones become the first proposal, stored as the referee's
        // `mark` for the player who ended play, before anyone can act in the phase (the players still decide:
        // they may change it, accept it or dispute).
        let ender = live.seat_of(actor).unwrap_or(Color::Black);
        let Some(dead) = live.marking.as_ref().map(|m| m.dead.clone()) else {
            return Ok(state);
        };
        let proposal = Request::Propose(dead);
        match self
            .act_locked(&mut live, id, Actor::Referee(ender), proposal, None, 0)
            .await
        {
            Ok(state) => Ok(state),
            Err(e) => {
                tracing::warn!(game = id, error = %e, "storing the first proposal failed");
                Ok(state)
            }
        }
    }

    /// [`Games::act_now`] on a locked game.
    pub(super) async fn act_locked(
        &self,
        live: &mut LiveGame,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let color = live.seat_of(actor).ok_or(ApiError::NotSeated)?;
        if !live.started() {
            return Err(ApiError::NotStarted);
        }
        if let Some(v) = expected_version
            && v != live.version
        {
            return Err(ApiError::StaleVersion {
                expected: v,
                current: live.version,
            });
        }
        let size = live.game.rules().size;
        let (kind, text) = match &request {
            Request::Play(mv) => ("move", Action::Turn(color, *mv).text(size)),
            Request::Resign => ("resign", "resign".to_owned()),
            Request::Dead(p) => {
                if !size.contains(*p) {
                    return Err(Illegal::OffBoard { point: *p }.into());
                }
                ("mark", String::new())
            }
            Request::Propose(_) => ("mark", String::new()),
            Request::Accept => ("accept", "accept".to_owned()),
            Request::Dispute => ("dispute", "dispute".to_owned()),
            Request::Timeout => ("timeout", "timeout".to_owned()),
            Request::Claim => {
                live.check_claim(color)?;
                ("claim", "claim".to_owned())
            }
        };
        // A turn (play or pass) ends its player's clock; legality first, so that a refused move changes no clock.
        // A turn that came too late is a loss on time instead of a move.
        let clock_before = live.clock.clone();
        let mut turn_time = None;
        let mut request = request;
        let (mut kind, mut text) = (kind, text);
        if let Request::Play(mv) = &request
            && live.game.phase() == Phase::Playing
            && live.clock.is_some()
        {
            live.game.check(color, *mv)?;
            if let Some((time, on_time)) = live.clock_turn(color, lag_ms, None) {
                turn_time = Some(time);
                if !on_time {
                    request = Request::Timeout;
                    (kind, text) = ("timeout", "timeout".to_owned());
                }
            }
        }
        if request == Request::Timeout
            && turn_time.is_none()
            && let Some(clock) = live.clock.as_ref()
        {
            // From the timer: the time the turn had run when the flag fell.
            turn_time = Some(clock.turn_time());
        }
        // Applied before the commit so the stored state column is the new one; a failed commit undoes it, so
        // the live game never runs ahead of the database (undo replays the log: slow, but only on failure).
        match &request {
            Request::Play(mv) => {
                if let Err(e) = live.game.play(color, *mv) {
                    return Err(refusal(&live.game, color, *mv, e));
                }
            }
            Request::Resign => live.game.resign(color)?,
            Request::Dead(p) => live.game.toggle_dead(color, *p)?,
            Request::Propose(points) => live.game.propose(color, points)?,
            Request::Accept => live.game.accept(color)?,
            Request::Dispute => live.game.dispute(color)?,
            Request::Timeout => {
                if let Err(e) = live.game.timeout(color) {
                    live.clock = clock_before;
                    return Err(e.into());
                }
            }
            Request::Claim => live.game.forfeit(color.opponent())?,
        }
        live.clock_after();
        let text = if kind == "mark" {
            let mut t = "mark".to_owned();
            for p in live.game.dead_stones() {
                t.push(' ');
                t.push_str(&p.to_gtp(size));
            }
            t
        } else {
            text
        };
        let number = match i64::try_from(live.moves.len() + 1) {
            Ok(n) => n,
            Err(_) => {
                live.game.undo();
                live.clock = clock_before;
                return Err(ApiError::TooManyMoves);
            }
        };
        let as_i64 = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        let stored = StoredMove {
            number,
            color: color.name().to_owned(),
            text,
            spent_ms: turn_time.map(|t| as_i64(t.spent_ms)),
            lag_ms: turn_time.map(|t| as_i64(t.lag_ms)),
        };
        let phase = phase_name(live.game.phase());
        let ending = (live.game.phase() == Phase::Over).then(|| Ending {
            result: live.game.result().map(|r| r.to_string()),
            ended: crate::store::sqlite::now(),
        });
        if let Err(e) = self
            .store
            .append_move(id, &stored, phase, ending.as_ref())
            .await
        {
            live.game.undo();
            live.clock = clock_before;
            return Err(match e {
                StoreError::Conflict { .. } => ApiError::Internal(e.to_string()),
                other => other.into(),
            });
        }
        live.push_move(stored.clone());
        live.version += 1;
        if live.game.phase() != Phase::Marking {
            // A later marking phase (after a dispute) gets an estimate of its own. (Cleared only now: an action
            // that fails to commit is undone, and its marking phase keeps its estimate.)
            live.marking = None;
        } else if live.marking.is_none() {
            // Play has just ended: the estimate, made while the game is locked, so that the first state of
            // the phase (and its event) already shows the unsure stones.
            live.marking = MarkingEstimate::of(id, live.game.clone()).await;
        }
        if let Actor::User(_) = actor {
            live.seen(color);
        }
        let state = live.state();
        live.broadcast(
            kind,
            MoveView {
                number: stored.number,
                color: stored.color,
                text: stored.text,
            },
            &state,
        );
        self.set_summary(live);
        if ending.is_some() {
            self.retire(id);
        }
        Ok(state)
    }
}
