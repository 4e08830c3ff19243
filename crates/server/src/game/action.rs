//! The one path of an action, from a client (or the server's timers and computer) to the store and the
//! watchers: checked by the rules, applied, committed (a failed commit undoes it), broadcast, answered.

use std::sync::Arc;

use tesuji_rules::{Color, Illegal, Move, Phase};

use crate::error::Error;
use crate::store::{Ending, StoreError, StoredGame, StoredMove};

use super::bots::MarkingEstimate;
use super::live::LiveGame;
use super::recorded::{Recorded, UndoStep};
use super::registry::Games;
use super::request::{Actor, Request, Sent};
use super::view::{GameState, SERVER, Status};
use crate::replay::turn_number;

/// Undoes an action applied to `live`'s game whose commit failed: one the rules logged (`logged`) leaves the
/// log, a turn it took back (`taken_back`) comes back; a request or a refusal to take one back changed nothing.
fn roll_back(live: &mut LiveGame, logged: bool, taken_back: Option<tesuji_rules::Action>) {
    if let Some(turn) = taken_back {
        // It was legal where it stood, and the position is that one again.
        let _ = live.game.apply_action(turn);
    } else if logged {
        live.game.undo();
    }
}

/// A refused play as answered: a superko refusal names the action after which the position it would repeat
/// stood (each stored action is one action of the game's log), with that position.
pub(super) fn refusal(live: &LiveGame, color: Color, mv: Move, e: Illegal) -> Error {
    let game = &live.game;
    let (Err(why), Move::Play(p)) = (game.why(color, mv), mv) else {
        return e.into();
    };
    // The repeated position is the one the play would make.
    let (Some(turn), Some(grid)) = (why.repeats, game.grid_after_play(color, p)) else {
        return e.into();
    };
    Error::Superko {
        reason: why.reason,
        repeats: live.stored_number(turn_number(game, turn)),
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
        sent: Sent,
    ) -> Result<GameState, Error> {
        let games = Arc::clone(self);
        let state = tokio::spawn(async move { games.act_now(id, actor, sent).await })
            .await
            .map_err(|e| Error::Internal(e.to_string()))?;
        // On a node of several a stale action may have brought this copy up to another node's: its timers start
        // again from there.
        match &state {
            Ok(_) => self.wake(id),
            Err(Error::StaleVersion { .. }) if self.several() => {
                self.wake(id);
                // The catch-up may have ended the game (see below).
                self.trim();
            }
            Err(_) => {}
        }
        let state = state?;
        // A game this action ended may leave memory now that the action no longer holds it; other actions
        // leave the cache as it was, so the registry's lock stays off their path.
        if state.status == Status::Over {
            self.trim();
        }
        Ok(state)
    }

    /// The body of [`Games::act`]. The game's lock is held throughout, so actions on one game are serialized
    /// and versions have no gaps.
    pub(super) async fn act_now(
        &self,
        id: i64,
        actor: Actor,
        sent: Sent,
    ) -> Result<GameState, Error> {
        let arrived = std::time::Instant::now();
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        let mut was_playing = live.game.phase() == Phase::Playing;
        let mut state = self.act_locked(&mut live, id, actor, sent.clone()).await;
        // On a node of several a refusal may come from a copy behind the store (another node's action whose
        // notice has not come yet, or will not while NATS is away; a version the client saw elsewhere): when the
        // store has more, the copy catches up and the action is judged again. An action the stale copy accepts
        // loses its commit to the stored one instead, and the copy catches up there (`Conflict`, below): then
        // an action sent without a version is judged again too, as one node would have judged it after the
        // other's; one sent at a version is stale indeed.
        let again = match &state {
            Ok(_) | Err(Error::Store(_)) => false,
            Err(Error::StaleVersion { .. }) if sent.version.is_none() => true,
            Err(_) => self.catch_up_if_behind(&mut live).await?,
        };
        if again {
            was_playing = live.game.phase() == Phase::Playing;
            state = self.act_locked(&mut live, id, actor, sent).await;
        }
        crate::metrics::global().acted(arrived, &state);
        let state = state?;
        if !(self.first_proposal && was_playing && live.game.phase() == Phase::Marking) {
            return Ok(state);
        }
        // Play has just ended: the estimate's dead stones become the first proposal, the server's `mark` for the
        // player who ended play (stored with the colour `server`), before anyone can act in the phase (the
        // players still decide: they may change it, accept it or dispute).
        let ender = live.seat_of(actor).unwrap_or(Color::Black);
        let Some(dead) = live.marking.as_ref().map(|m| m.dead.clone()) else {
            return Ok(state);
        };
        let proposal = Sent::by_server(Request::Propose(dead), None);
        match self
            .act_locked(&mut live, id, Actor::Referee(ender), proposal)
            .await
        {
            Ok(state) => Ok(state),
            Err(e) => {
                tracing::warn!(game = id, error = %e, "storing the first proposal failed");
                Ok(state)
            }
        }
    }

    /// Whether `stored` is in `game`'s record after all (its append answered an error). When the store could
    /// not be read, nothing is known and the action is taken as not stored.
    fn landed(game: Option<&StoredGame>, stored: &StoredMove) -> bool {
        game.is_some_and(|game| {
            game.moves.iter().any(|m| {
                m.number == stored.number && m.color == stored.color && m.text == stored.text
            })
        })
    }

    /// [`Games::act_now`] on a locked game: the request is checked and applied at one version.
    pub(super) async fn act_locked(
        &self,
        live: &mut LiveGame,
        id: i64,
        actor: Actor,
        sent: Sent,
    ) -> Result<GameState, Error> {
        let Sent {
            request,
            color: named,
            version: expected_version,
            lag_ms,
        } = sent;
        let color = live.seat_of(actor).ok_or(Error::NotSeated)?;
        if named.is_some_and(|c| c != color) {
            return Err(Error::NotSeated);
        }
        let size = live.game.rules().size;
        if !live.started() {
            return Err(Error::NotStarted);
        }
        if let Some(v) = expected_version
            && v != live.version
        {
            return Err(Error::StaleVersion {
                expected: v,
                current: live.version,
            });
        }
        match &request {
            Request::Dead(p) if !size.contains(*p) => {
                return Err(Illegal::OffBoard { point: *p }.into());
            }
            Request::Claim => live.check_claim(color)?,
            Request::Undo(step) => {
                live.check_undo(color, *step)?;
                if *step == UndoStep::Ask {
                    live.check_undo_pause(color)?;
                }
            }
            _ => {}
        }
        // What would change nothing is refused rather than stored (the rules take it, for old records' sake).
        if live.game.phase() == Phase::Marking {
            match &request {
                Request::Accept if live.game.acceptances()[color.index()] => {
                    return Err(Error::NoChange("you have already accepted this proposal"));
                }
                Request::Dead(p) if live.game.board().get(*p).is_none() => {
                    return Err(Error::NoChange(
                        "there is no stone there to mark dead or alive",
                    ));
                }
                _ => {}
            }
        }
        // A turn (play or pass) ends its player's clock; legality first, so that a refused move changes no clock.
        // A turn that came too late is a loss on time instead of a move.
        let clock_before = live.clock.clone();
        let mut turn_time = None;
        let mut request = request;
        if live.game.phase() == Phase::Playing && live.clock.is_some() {
            // Accepting to take a move back ends the accepter's turn as a move would: the taken-back turn's
            // player is to move again.
            let ends_turn = match &request {
                Request::Play(mv) => {
                    // Refused as the untimed path refuses it: a superko refusal names what it repeats.
                    if let Err(e) = live.game.check(color, *mv) {
                        return Err(refusal(live, color, *mv, e));
                    }
                    true
                }
                Request::Undo(UndoStep::Accept) => true,
                _ => false,
            };
            if ends_turn && let Some((time, on_time)) = live.clock_turn(color, lag_ms, None) {
                turn_time = Some(time);
                if !on_time {
                    request = Request::Timeout;
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
        let mut taken_back = None;
        let logged = !matches!(request, Request::Undo(_));
        match &request {
            Request::Play(mv) => {
                if let Err(e) = live.game.play(color, *mv) {
                    return Err(refusal(live, color, *mv, e));
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
            Request::Undo(UndoStep::Accept) => taken_back = live.game.undo(),
            Request::Undo(_) => {}
        }
        live.clock_after();
        // The record keeps the action as the game logged it; a claim as its claimer's (the rules log the
        // opponent's forfeit), so that the record says who asked.
        let recorded = match (&request, live.game.log().last()) {
            (Request::Claim, _) => Recorded::Claim(color),
            (Request::Undo(step), _) => Recorded::Undo(*step),
            (_, Some(action)) => Recorded::Rules(action.clone()),
            (_, None) => {
                roll_back(live, logged, taken_back);
                live.clock = clock_before;
                return Err(Error::Internal("the rules logged no action".into()));
            }
        };
        let text = recorded.text(size);
        let number = match i64::try_from(live.moves.len() + 1) {
            Ok(n) => n,
            Err(_) => {
                roll_back(live, logged, taken_back);
                live.clock = clock_before;
                return Err(Error::TooManyMoves);
            }
        };
        let as_i64 = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        let stored = StoredMove {
            number,
            // The first proposal is the server's: stored as such, so that a replay still says so.
            color: match &request {
                Request::Propose(_) => SERVER,
                _ => color.name(),
            }
            .to_owned(),
            text,
            spent_ms: turn_time.map(|t| as_i64(t.spent_ms)),
            lag_ms: turn_time.map(|t| as_i64(t.lag_ms)),
            at_ms: Some(as_i64(self.time.wall_ms())),
        };
        let phase = Status::of(live.game.phase()).name();
        let ending = (live.game.phase() == Phase::Over).then(|| Ending {
            result: live.game.result().map(|r| r.to_string()),
            ended: crate::store::now(),
            moves: i64::try_from(live.moves_played()).unwrap_or(i64::MAX),
        });
        if let Err(e) = self
            .stores
            .games
            .append_move(id, &stored, phase, ending.as_ref())
            .await
        {
            // A writer can fail after its commit (it died before answering): then the action is on disk and
            // stands, and undoing it would leave the live game behind the store. One read of the store says
            // which, and what stands instead when another node stored this number first. (A conflict is never
            // this node's: the same action from another node, say the same time-out, is that node's.)
            let now = self.stores.games.load_game(id).await;
            let conflict = matches!(e, StoreError::Conflict { .. });
            if !conflict && Self::landed(now.as_ref().ok().and_then(Option::as_ref), &stored) {
                tracing::warn!(game = id, error = %e, "the store failed after committing an action; it stands");
            } else {
                roll_back(live, logged, taken_back);
                live.clock = clock_before;
                if let (StoreError::Conflict { .. }, Ok(now)) = (&e, now) {
                    // Another node stored an action of this game first: this copy catches up with the store,
                    // and the action, decided on a state that no longer stands, is refused as stale.
                    let before = live.version;
                    self.catch_up_locked(live, now).await?;
                    return Err(Error::StaleVersion {
                        expected: expected_version.unwrap_or(before),
                        current: live.version,
                    });
                }
                return Err(e.into());
            }
        }
        let told = self.several().then(|| stored.clone());
        live.push_move(color, &recorded, stored);
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
        live.acted();
        let state = live.state();
        if let Some(action) = live.moves.last() {
            live.broadcast(recorded.kind(), action, &state);
        }
        self.set_summary(live);
        self.changed(id, live.version, told);
        if ending.is_some() {
            self.ended(live);
        }
        Ok(state)
    }
}
