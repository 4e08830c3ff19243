//! A live game's state as each viewer sees it, its listing entry, and its events sent to its watchers.

use std::sync::Arc;

use tesuji_rules::{ByColor, Color, Phase};

use crate::clocks::GameClock;
use crate::replay::turn_number;

use super::live::LiveGame;
use super::request::Actor;
use super::view::{
    Event, GameState, MoveView, ScoreView, SelfFillView, Status, Summary, point_names,
};

impl LiveGame {
    /// Each colour's points under the current proposal that are not its live stones.
    fn territory(&self) -> ByColor<Vec<String>> {
        let grid = self.game.grid();
        let size = grid.size();
        let dead = self.game.dead_stones();
        let owners = tesuji_rules::score::owners(&grid, dead);
        let mut territory: ByColor<Vec<String>> = ByColor::default();
        for p in size.points() {
            let live_stone = grid.get(p).is_some() && !dead.contains(&p);
            if let (Some(c), false) = (owners[size.index(p)], live_stone) {
                territory[c].push(p.to_gtp(size));
            }
        }
        territory
    }

    pub fn summary(&self) -> Summary {
        Summary {
            id: self.id,
            rules: self.game.rules().to_string(),
            komi: self.game.rules().komi.net(),
            handicap: self.game.rules().handicap,
            time: self.clock.as_ref().map(|c| c.control().to_string()),
            status: self.status(),
            players: self.players.clone(),
            invite_only: self.seats.invite.is_some(),
            ranked: self.seats.ranked,
            moves: self.moves_played(),
            result: self.game.result().map(|r| r.to_string()),
            created: self.created,
            to_act: self.to_act(),
            ended: None,
        }
    }

    /// The colours the game waits for (see [`Summary::to_act`]).
    fn to_act(&self) -> Vec<&'static str> {
        if !self.started() {
            return Vec::new();
        }
        match self.game.phase() {
            Phase::Playing => vec![self.game.to_move().name()],
            Phase::Marking => [Color::Black, Color::White]
                .into_iter()
                .filter(|c| !self.game.acceptances()[c.index()])
                .map(Color::name)
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    pub fn state(&self) -> GameState {
        let rules = self.game.rules();
        let size = rules.size;
        let board = crate::replay::grid_rows(&self.game.grid());
        // The log's, not the action list's: a move taken back is in the list, not on the board.
        let last_move = match self.game.log().last() {
            Some(tesuji_rules::Action::Turn(_, tesuji_rules::Move::Play(p))) => {
                Some(p.to_gtp(size))
            }
            _ => None,
        };
        let result = self.game.result();
        GameState {
            id: self.id,
            rules: rules.to_string(),
            komi: rules.komi.net(),
            handicap: rules.handicap,
            width: size.width(),
            height: size.height(),
            status: self.status(),
            players: self.players.clone(),
            invite_only: self.seats.invite.is_some(),
            ranked: self.seats.ranked,
            invite: None,
            board,
            last_move,
            moves: Some(Arc::clone(&self.moves)),
            move_count: self.moves.len(),
            to_move: self.game.to_move().name(),
            phase: Status::of(self.game.phase()),
            result: result.map(|r| r.to_string()),
            score: result.and_then(|r| r.score.as_ref()).map(ScoreView::from),
            proposal_score: (self.game.phase() == Phase::Marking)
                .then(|| ScoreView::from(&self.game.score_with(self.game.dead_stones()))),
            territory: (self.game.phase() == Phase::Marking).then(|| self.territory()),
            captures: ByColor::from(self.game.captures()),
            pass_stones: ByColor::from(self.game.pass_stones()),
            dead: point_names(self.game.dead_stones(), size),
            unsure: match (&self.marking, self.game.phase()) {
                (Some(m), Phase::Marking) => point_names(&m.unsure, size),
                _ => Vec::new(),
            },
            accepted: ByColor::from(self.game.acceptances()),
            clock: self.clock.as_ref().map(GameClock::view),
            absent: self.absent(),
            self_fill: rules.self_fill.map(|limit| {
                let runs = self.game.self_fill_runs();
                let runs = ByColor::from(runs);
                SelfFillView {
                    limit,
                    black: runs.black,
                    white: runs.white,
                }
            }),
            repeated: self
                .game
                .repetition_turns()
                .into_iter()
                .map(|t| self.stored_number(turn_number(&self.game, t)))
                .collect(),
            fields: self.fields.view(false),
            undo: self.seats.undo,
            undo_asked: self.undo_asked.map(Color::name),
            undo_again_in_ms: self.undo_again_in_ms(),
            rating_change: self.rating_change,
            computer_dispute: self.bot_dispute_view(),
            unrated: (self.seats.ranked
                && self.game.phase() == Phase::Over
                && super::ranked::too_short(self.game.log()))
            .then_some("short"),
            version: self.version,
        }
    }
}

impl LiveGame {
    /// The state as user `viewer` (`None`: nobody signed in) sees it: the creator of an invite-only table
    /// still waiting for its opponent gets the invite token back, so that a page can show the link again;
    /// the only seated player of an open table is its creator.
    pub fn state_for(&self, viewer: Option<i64>) -> GameState {
        let mut state = self.state();
        let seated = viewer.is_some_and(|u| self.seat_of(Actor::User(u)).is_some());
        if !self.started() && seated {
            state.invite.clone_from(&self.seats.invite);
        }
        state.fields = self.fields.view(seated);
        state
    }

    /// Sends an event to the game's watchers, encoded once.
    pub(super) fn broadcast(&self, kind: &'static str, action: &MoveView, state: &GameState) {
        let event = Event {
            kind,
            version: self.version,
            action,
            state: state.without_moves(&self.fields),
        };
        if let Ok(text) = serde_json::to_string(&event) {
            // No receivers is not an error: nobody is watching.
            let _ = self.events.send(Arc::from(text));
        }
    }
}
