//! [`Game`]: a whole game under one ruleset — turns and their legality, ko history, handicap, the end of play,
//! the dead-stone phase of RULES.md §6, resignation, time and forfeit, and the result of §7.
//!
//! Every action is logged; [`Game::undo`] rebuilds the game from the log, so undo is exact by construction.

use std::fmt;

use crate::board::{Board, BoardRefusal, Idx, PlayEffect, SetupError};
use crate::grid::Grid;
use crate::handicap::fixed_handicap_points;
use crate::history::{Records, play_key, start_key, state_key, turn_key};
use crate::result::{GameResult, Outcome, Score, score_position};
use crate::rules::{EndRule, KoRule, PassStones, Placement, Repetition, Rules, SuicideRule};
use crate::types::{Color, Move, Point, Size};

/// Why a turn or action is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("the game is over")]
    GameOver,
    #[error("play has ended: the players are marking dead stones")]
    NotPlaying,
    #[error("the game is in play: there are no dead stones to mark yet")]
    NotMarking,
    #[error("it is {expected}'s turn")]
    NotYourTurn { expected: Color },
    #[error("the point ({}, {}) is not on the board", point.x, point.y)]
    OffBoard { point: Point },
    #[error("the point is occupied")]
    Occupied,
    #[error("suicide is not allowed")]
    Suicide,
    #[error("{}", ko_message(*.0))]
    Ko(KoRule),
    #[error("white must pass: the first turns of white are handicap passes")]
    ForcedPass,
    #[error("black must place the handicap stones first")]
    HandicapPlacement,
}

fn ko_message(ko: KoRule) -> &'static str {
    match ko {
        KoRule::Simple => "ko: the stone just captured may not be retaken at once",
        KoRule::Positional => "positional superko: the play would repeat an earlier position",
        KoRule::Situational => {
            "situational superko: the play would repeat an earlier position with the same player to move"
        }
        KoRule::Natural => {
            "natural ko: the play would repeat a position made by an earlier play of yours"
        }
    }
}

impl Illegal {
    /// A few words for the reason, as `tesuji-why` answers it: `occupied`, `suicide`, `ko` (simple ko),
    /// `positional superko`, `situational superko`, `natural ko`, `forced pass`...
    pub fn short(&self) -> &'static str {
        match self {
            Illegal::GameOver => "game over",
            Illegal::NotPlaying => "not playing",
            Illegal::NotMarking => "not marking",
            Illegal::NotYourTurn { .. } => "not your turn",
            Illegal::OffBoard { .. } => "off board",
            Illegal::Occupied => "occupied",
            Illegal::Suicide => "suicide",
            Illegal::Ko(KoRule::Simple) => "ko",
            Illegal::Ko(KoRule::Positional) => "positional superko",
            Illegal::Ko(KoRule::Situational) => "situational superko",
            Illegal::Ko(KoRule::Natural) => "natural ko",
            Illegal::ForcedPass => "forced pass",
            Illegal::HandicapPlacement => "handicap placement",
        }
    }
}

/// A refused turn with its explanation ([`Game::why`]): the reason and, for the superko rules, which earlier
/// position the play would repeat, as the turn after which it stood (0 = the starting position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: Illegal,
    /// Under `positional`, `situational` and `natural`: the turn (plays and passes counted from 1) after which
    /// the position (with the same player to move; made by the same player's play) stood that the play would
    /// make again; 0 for the starting position.
    pub repeats: Option<u32>,
}

impl Refusal {
    /// The short form: `positional superko: repeats the position after move 12`, `ko`, `occupied`...
    pub fn short(&self) -> String {
        match self.repeats {
            None => self.reason.short().to_string(),
            Some(0) => format!("{}: repeats the starting position", self.reason.short()),
            Some(k) => format!(
                "{}: repeats the position after move {k}",
                self.reason.short()
            ),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = match self.repeats {
            None => return write!(f, "{}", self.reason),
            Some(0) => "the starting position".to_string(),
            Some(k) => format!("the position after move {k}"),
        };
        match self.reason {
            Illegal::Ko(KoRule::Situational) => write!(
                f,
                "situational superko: the play would repeat {place} with the same player to move"
            ),
            Illegal::Ko(KoRule::Natural) => write!(
                f,
                "natural ko: the play would repeat {place}, which an earlier play of yours made"
            ),
            _ => write!(f, "positional superko: the play would repeat {place}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Why a game cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("a {} board does not allow a fixed handicap of {stones} stones", size.dimensions())]
    BadHandicap { size: Size, stones: u8 },
    #[error("the position is {found} but the rules say {expected}")]
    SizeMismatch { found: Size, expected: Size },
    #[error("bad position: {0}")]
    Setup(#[from] SetupError),
}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Turns are being played.
    Playing,
    /// Play has ended; the players mark dead stones (RULES.md §6.2).
    Marking,
    /// The game has a result.
    Over,
}

/// Everything that can happen in a game, as logged for undo and replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Turn(Color, Move),
    Resign(Color),
    /// Both players resigned at once.
    ResignBoth,
    Timeout(Color),
    Forfeit(Color),
    /// A proposal: the full set of dead stones (each given chain marked whole).
    Mark(Color, Vec<Point>),
    Accept(Color),
    Dispute(Color),
}

/// What a turn did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TurnEffect {
    pub captured: u32,
    pub suicided: u32,
    /// Pass stones handed to the opponent by this turn.
    pub pass_stones: u32,
    /// The automatic referee judged the play a self-fill (RULES.md §5, 7.1).
    pub self_fill: bool,
}

/// A game under one ruleset.
#[derive(Clone)]
pub struct Game {
    rules: Rules,
    start: Board,
    start_to_move: Color,
    start_free: u8,
    start_forced: u8,
    board: Board,
    to_move: Color,
    phase: Phase,
    log: Vec<Action>,
    ko_records: Records,
    /// States seen since the last pass (or the start), for the repetition-void rule: only a cycle of plays
    /// voids a game, so a pass starts the count anew.
    states: Records,
    /// The turn after which the states in `states` start: that of the last pass, 0 before any.
    states_since: u32,
    passes_in_row: u32,
    any_play: bool,
    first_pass: Option<Color>,
    last_passer: Option<Color>,
    /// Pass stones received by each colour.
    pass_stones: [u32; 2],
    /// White's remaining forced handicap passes (`placement=passes`).
    forced_passes: u8,
    /// Black's remaining free handicap stones (`placement=free`).
    free_stones: u8,
    /// Play resumed after a dispute (passes may cost a prisoner; §6.4 applies).
    disputed: bool,
    /// Turns since the last resumption, and whether they were all passes.
    resumed_turns: u32,
    resumed_all_passes: bool,
    proposal: Vec<Point>,
    accepted: [bool; 2],
    self_fill_run: [u32; 2],
    result: Option<GameResult>,
    turns: u32,
}

impl Game {
    /// A new game: an empty board of the rules' size, with the handicap set up as the rules say.
    pub fn new(rules: Rules) -> Result<Game, GameError> {
        let size = rules.size;
        let mut board = Board::new(size);
        let mut to_move = Color::Black;
        let (mut free, mut forced) = (0, 0);
        if rules.has_handicap() {
            match rules.placement {
                Placement::Fixed => {
                    let points = fixed_handicap_points(size, rules.handicap).ok_or(
                        GameError::BadHandicap {
                            size,
                            stones: rules.handicap,
                        },
                    )?;
                    for p in points {
                        let i = board.idx(p);
                        board.play(Color::Black, i);
                    }
                    to_move = Color::White;
                }
                Placement::Free => {
                    if rules.handicap as usize >= size.area() {
                        return Err(GameError::BadHandicap {
                            size,
                            stones: rules.handicap,
                        });
                    }
                    free = rules.handicap;
                }
                Placement::Passes => forced = rules.handicap - 1,
            }
        }
        Ok(Game::start_from(rules, board, to_move, free, forced))
    }

    /// A game starting from a given position with `to_move` to play (no handicap is applied). The position
    /// counts as the starting position for the ko rules.
    pub fn from_position(rules: Rules, grid: &Grid, to_move: Color) -> Result<Game, GameError> {
        if grid.size() != rules.size {
            return Err(GameError::SizeMismatch {
                found: grid.size(),
                expected: rules.size,
            });
        }
        let board = Board::from_grid(grid)?;
        Ok(Game::start_from(rules, board, to_move, 0, 0))
    }

    /// Like [`Game::from_position`], with Black's `free` handicap stones still to place and White's `forced`
    /// passes to come, as a game of free or `passes` placement starts (see [`Game::start_placements`]).
    pub fn from_position_placing(
        rules: Rules,
        grid: &Grid,
        to_move: Color,
        free: u8,
        forced: u8,
    ) -> Result<Game, GameError> {
        let g = Game::from_position(rules, grid, to_move)?;
        Ok(Game::start_from(rules, g.start, to_move, free, forced))
    }

    /// The handicap still to come when the game started: Black's free stones to place and White's forced
    /// passes.
    pub fn start_placements(&self) -> (u8, u8) {
        (self.start_free, self.start_forced)
    }

    fn start_from(rules: Rules, board: Board, to_move: Color, free: u8, forced: u8) -> Game {
        let words = board.snapshot().len();
        // Room for a long game's records without regrowing: most games end within twice the board's points.
        let expected = 2 * rules.size.area();
        let kept = if rules.ko == KoRule::Simple {
            0
        } else {
            expected
        };
        let mut g = Game {
            rules,
            start: board.clone(),
            start_to_move: to_move,
            start_free: free,
            start_forced: forced,
            board,
            to_move,
            phase: Phase::Playing,
            log: Vec::with_capacity(expected),
            ko_records: Records::new(words, kept),
            states: Records::new(words, 0),
            states_since: 0,
            passes_in_row: 0,
            any_play: false,
            first_pass: None,
            last_passer: None,
            pass_stones: [0; 2],
            forced_passes: forced,
            free_stones: free,
            disputed: false,
            resumed_turns: 0,
            resumed_all_passes: true,
            proposal: Vec::new(),
            accepted: [false; 2],
            self_fill_run: [0; 2],
            result: None,
            turns: 0,
        };
        if let Some(k) = start_key(rules.ko, g.board.hash(), to_move) {
            g.ko_records.add(k, g.board.snapshot());
        }
        if g.tracks_repetition() {
            g.states
                .add(state_key(g.board.hash(), to_move), g.board.snapshot());
        }
        g
    }

    fn tracks_repetition(&self) -> bool {
        self.rules.ko == KoRule::Simple && self.rules.repetition == Repetition::Void
    }

    /// Gives back the room a new game reserves for a long game's log and records (twice the board's points):
    /// for a holder of many games at once, such as a server, where a 19×19 game otherwise keeps about 130 KB
    /// from its first move. The game grows again as it goes on; nothing else changes.
    pub fn shrink_to_fit(&mut self) {
        self.log.shrink_to_fit();
        self.ko_records.shrink_to_fit();
        self.states.shrink_to_fit();
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The starting position (setup and fixed handicap stones) as a plain grid.
    pub fn start_grid(&self) -> Grid {
        self.start.to_grid()
    }

    /// The player to move at the start.
    pub fn start_to_move(&self) -> Color {
        self.start_to_move
    }

    /// The current position as a plain grid.
    pub fn grid(&self) -> Grid {
        self.board.to_grid()
    }
    pub fn to_move(&self) -> Color {
        self.to_move
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Every action so far, in order.
    pub fn log(&self) -> &[Action] {
        &self.log
    }
    /// Turns (plays and passes) made so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }
    /// Stones captured by each colour during play (suicided stones count for the opponent).
    pub fn captures(&self) -> [u32; 2] {
        self.board.captures()
    }
    /// Pass stones received by each colour.
    pub fn pass_stones(&self) -> [u32; 2] {
        self.pass_stones
    }
    /// Consecutive passes at the end of the turn list.
    pub fn passes_in_row(&self) -> u32 {
        self.passes_in_row
    }
    pub fn first_pass(&self) -> Option<Color> {
        self.first_pass
    }
    /// White's remaining forced handicap passes.
    pub fn forced_passes_left(&self) -> u8 {
        self.forced_passes
    }
    /// Black's remaining free handicap stones.
    pub fn free_handicap_left(&self) -> u8 {
        self.free_stones
    }
    /// The current proposal of dead stones (dead-stone phase), sorted.
    pub fn dead_stones(&self) -> &[Point] {
        &self.proposal
    }
    /// Whether each colour has accepted the current proposal.
    pub fn acceptances(&self) -> [bool; 2] {
        self.accepted
    }
    /// The self-fill run of each colour (RULES.md §5, 7.1–7.3).
    pub fn self_fill_runs(&self) -> [u32; 2] {
        self.self_fill_run
    }
    pub(crate) fn ko_records(&self) -> &Records {
        &self.ko_records
    }

    /// Whether play resumed after a dispute.
    pub fn disputed(&self) -> bool {
        self.disputed
    }

    /// Checks a turn without making it.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), Illegal> {
        match self.phase {
            Phase::Over => return Err(Illegal::GameOver),
            Phase::Marking => return Err(Illegal::NotPlaying),
            Phase::Playing => {}
        }
        if color != self.to_move {
            return Err(Illegal::NotYourTurn {
                expected: self.to_move,
            });
        }
        match mv {
            Move::Pass if self.free_stones > 0 => Err(Illegal::HandicapPlacement),
            Move::Pass => Ok(()),
            Move::Play(p) => {
                let i = self
                    .board
                    .checked_idx(p)
                    .ok_or(Illegal::OffBoard { point: p })?;
                self.check_play_idx(color, i)
            }
        }
    }

    /// Legality of a play at a padded index by the colour to move (phase and turn already checked).
    fn check_play_idx(&self, color: Color, i: Idx) -> Result<(), Illegal> {
        if color == Color::White && self.forced_passes > 0 {
            return Err(Illegal::ForcedPass);
        }
        let next = self.next_after_play(color);
        check_board_play(
            &self.board,
            &self.ko_records,
            self.rules.ko,
            self.rules.suicide,
            color,
            i,
            next,
        )
    }

    fn next_after_play(&self, color: Color) -> Color {
        if color == Color::Black && self.free_stones > 1 {
            Color::Black
        } else {
            color.opponent()
        }
    }

    /// Checks a turn like [`Game::check`], and explains a refusal: under the superko rules, which earlier
    /// position the play would repeat. Slower than `check` (it replays the game on a refusal by superko).
    pub fn why(&self, color: Color, mv: Move) -> Result<(), Refusal> {
        match self.check(color, mv) {
            Ok(()) => Ok(()),
            Err(reason @ Illegal::Ko(ko)) if ko != KoRule::Simple => Err(Refusal {
                reason,
                repeats: match mv {
                    Move::Play(p) => self.repeated_turn(color, p, ko),
                    Move::Pass => None,
                },
            }),
            Err(reason) => Err(Refusal {
                reason,
                repeats: None,
            }),
        }
    }

    /// The game replayed from its start: `visit(turns so far, mover and whether it was a play, game)` at the
    /// start (with no mover) and after every turn.
    fn replay_turns(&self, mut visit: impl FnMut(u32, Option<(Color, bool)>, &Game)) {
        let mut g = self.restarted();
        visit(0, None, &g);
        for action in &self.log {
            if g.apply_action(action.clone()).is_err() {
                return;
            }
            if let Action::Turn(c, m) = action {
                visit(g.turns, Some((*c, matches!(m, Move::Play(_)))), &g);
            }
        }
    }

    /// The earliest turn after which the position (state, own play's position) that `color` playing at `p`
    /// would make stood, by the record `ko` keeps.
    fn repeated_turn(&self, color: Color, p: Point, ko: KoRule) -> Option<u32> {
        let target = self.board_after_play(color, p)?.snapshot().to_vec();
        let next = self.next_after_play(color);
        let mut found = None;
        self.replay_turns(|turn, mover, g| {
            if found.is_some() || g.board.snapshot() != target.as_slice() {
                return;
            }
            let counts = match (ko, mover) {
                (KoRule::Positional, None) => true,
                (KoRule::Positional, Some((_, was_play))) => was_play,
                (KoRule::Situational, _) => g.to_move == next,
                (KoRule::Natural, Some((c, true))) => c == color,
                _ => false,
            };
            if counts {
                found = Some(turn);
            }
        });
        found
    }

    /// The position `color` playing at `p` would make, captures and suicide applied and the ko rules not
    /// asked; `None` when the point is off the board or taken. For a superko refusal this is the earlier
    /// position it names, so nobody needs to replay the game to show it.
    pub fn grid_after_play(&self, color: Color, p: Point) -> Option<Grid> {
        self.board_after_play(color, p).map(|b| b.to_grid())
    }

    fn board_after_play(&self, color: Color, p: Point) -> Option<Board> {
        let i = self.board.checked_idx(p)?;
        if !self.board.is_empty_at(i) {
            return None;
        }
        let mut after = self.board.clone();
        after.play(color, i);
        Some(after)
    }

    /// For a game that ended by repetition (`repetition=void`): the earlier turns after which its final state
    /// (position and player to move) stood since the last pass, 0 for the start; empty otherwise.
    pub fn repetition_turns(&self) -> Vec<u32> {
        if self.result.map(|r| r.outcome) != Some(Outcome::Repetition) {
            return Vec::new();
        }
        let target = self.board.snapshot().to_vec();
        let (to_move, last) = (self.to_move, self.turns);
        let mut turns = Vec::new();
        self.replay_turns(|turn, _, g| {
            if turn >= self.states_since
                && turn < last
                && g.to_move == to_move
                && g.board.snapshot() == target.as_slice()
            {
                turns.push(turn);
            }
        });
        turns
    }

    /// Whether a turn is legal now.
    pub fn is_legal(&self, color: Color, mv: Move) -> bool {
        self.check(color, mv).is_ok()
    }

    /// Every legal turn of the player to move, plays in row-major order then the pass; empty unless in play.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.phase != Phase::Playing {
            return Vec::new();
        }
        let mut out: Vec<Move> = self.legal_plays().into_iter().map(Move::Play).collect();
        if self.free_stones == 0 {
            out.push(Move::Pass);
        }
        out
    }

    /// The points of every legal play of the player to move, in row-major order; empty unless in play.
    pub fn legal_plays(&self) -> Vec<Point> {
        if self.phase != Phase::Playing {
            return Vec::new();
        }
        self.plays_ignoring_phase()
    }

    /// The points where the player to move could play if the game went on, whatever its phase: what the
    /// board, the suicide rule and the repetition rule allow, in row-major order. (A network is asked about
    /// positions whose game has just ended by passes; KataGo's policy still covers these moves.)
    pub fn plays_ignoring_phase(&self) -> Vec<Point> {
        self.rules
            .size
            .points()
            .filter(|&p| {
                let i = self.board.idx(p);
                self.board.is_empty_at(i) && self.check_play_idx(self.to_move, i).is_ok()
            })
            .collect()
    }

    /// The padded indices of every legal play of the player to move, in no particular order.
    pub fn legal_play_indices(&self) -> Vec<Idx> {
        if self.phase != Phase::Playing {
            return Vec::new();
        }
        self.board
            .empty_points()
            .iter()
            .map(|&i| i as Idx)
            .filter(|&i| self.check_play_idx(self.to_move, i).is_ok())
            .collect()
    }

    /// Makes a turn for `color`.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<TurnEffect, Illegal> {
        self.check(color, mv)?;
        let effect = self.apply_turn(color, mv);
        self.log.push(Action::Turn(color, mv));
        Ok(effect)
    }

    /// Makes a turn for the player to move.
    pub fn play_move(&mut self, mv: Move) -> Result<TurnEffect, Illegal> {
        self.play(self.to_move, mv)
    }

    /// Makes a checked turn.
    fn apply_turn(&mut self, color: Color, mv: Move) -> TurnEffect {
        let mut effect = TurnEffect::default();
        let next = match mv {
            Move::Play(_) => self.next_after_play(color),
            Move::Pass => color.opponent(),
        };
        let owners_before = match (mv, self.rules.self_fill) {
            (Move::Play(_), Some(_)) => {
                Some(crate::score::unconditional_owner(&self.board.to_grid()))
            }
            _ => None,
        };
        match mv {
            Move::Play(p) => {
                let i = self.board.idx(p);
                let PlayEffect { captured, suicided } = self.board.play(color, i);
                effect.captured = captured;
                effect.suicided = suicided;
                self.any_play = true;
                self.passes_in_row = 0;
                if color == Color::Black && self.free_stones > 0 {
                    self.free_stones -= 1;
                }
                if self.disputed {
                    self.resumed_all_passes = false;
                }
                if let Some(before) = owners_before {
                    effect.self_fill = self.is_self_fill(&before, p);
                }
            }
            Move::Pass => {
                self.board.pass();
                self.passes_in_row += 1;
                self.first_pass.get_or_insert(color);
                self.last_passer = Some(color);
                if color == Color::White && self.forced_passes > 0 {
                    self.forced_passes -= 1;
                }
                let costs = match self.rules.pass_stones {
                    PassStones::On => true,
                    PassStones::Dispute => self.disputed,
                    PassStones::Off => false,
                };
                if costs {
                    self.pass_stones[color.opponent().index()] += 1;
                    effect.pass_stones = 1;
                }
            }
        }
        self.turns += 1;
        if self.disputed {
            self.resumed_turns += 1;
        }
        self.to_move = next;
        let was_play = matches!(mv, Move::Play(_));
        if let Some(k) = turn_key(self.rules.ko, self.board.hash(), color, next, was_play) {
            self.ko_records.add(k, self.board.snapshot());
        }
        if self.rules.self_fill.is_some() {
            let run = &mut self.self_fill_run[color.index()];
            *run = if effect.self_fill { *run + 1 } else { 0 };
        }
        if let Some(limit) = self.rules.self_fill
            && self.self_fill_run[color.index()] >= limit as u32
        {
            self.finish(GameResult::new(Some(color.opponent()), Outcome::SelfFill));
            return effect;
        }
        if self.tracks_repetition() {
            if !was_play {
                // Passes return to a state without any cycle of plays (two passes, a dispute, two more): a
                // repetition counts only within a run of plays, so that no pass can turn a game into a void.
                self.states.truncate(0);
                self.states_since = self.turns;
            }
            let count = self
                .states
                .add_counting(state_key(self.board.hash(), next), self.board.snapshot());
            if count >= 3 {
                self.finish(GameResult::new(None, Outcome::Repetition));
                return effect;
            }
        }
        if self.passes_in_row >= 2 {
            self.end_of_play();
        }
        effect
    }

    /// The automatic referee of RULES.md §5 (7.1): a play inside a region that is unconditionally owned, after
    /// which neither player's unconditional territory changed.
    fn is_self_fill(&self, before: &[Option<Color>], p: Point) -> bool {
        let size = self.rules.size;
        if before[size.index(p)].is_none() {
            return false;
        }
        let after = crate::score::unconditional_owner(&self.board.to_grid());
        let count =
            |owners: &[Option<Color>], c: Color| owners.iter().filter(|&&o| o == Some(c)).count();
        Color::BOTH
            .iter()
            .all(|&c| count(before, c) == count(&after, c))
    }

    /// Two consecutive passes: end the game or start the dead-stone phase.
    fn end_of_play(&mut self) {
        if self.rules.preset == crate::rules::Preset::Ideal && !self.any_play {
            // 001 rule 7.5: both players moved and every move was a pass.
            self.finish(GameResult::new(None, Outcome::NoPlay));
            return;
        }
        if self.rules.end == EndRule::Score {
            self.finish_scored(&[]);
            return;
        }
        if self.disputed
            && self.rules.resume_passes_end
            && self.resumed_all_passes
            && self.resumed_turns == 2
        {
            // §6.4: the first two turns of the resumption were passes: every stone is alive.
            self.finish_scored(&[]);
            return;
        }
        self.phase = Phase::Marking;
        self.proposal.clear();
        self.accepted = [false; 2];
    }

    fn finish(&mut self, result: GameResult) {
        self.result = Some(result);
        self.phase = Phase::Over;
    }

    /// Ends the game by counting with these dead stones (White's last pass of the AGA rule applied).
    fn finish_scored(&mut self, dead: &[Point]) {
        if self.rules.white_passes_last && self.last_passer == Some(Color::Black) {
            self.pass_stones[Color::Black.index()] += 1;
            self.last_passer = Some(Color::White);
        }
        let score = self.score_with(dead);
        self.finish(GameResult::from_score(score, &self.rules, self.first_pass));
    }

    /// The score of the current position with the given dead stones (expanded to whole chains), with this
    /// game's prisoners, pass stones, komi and handicap bonus.
    pub fn score_with(&self, dead: &[Point]) -> Score {
        let grid = self.board.to_grid();
        let dead = expand_chains(&grid, dead);
        score_position(
            &self.rules,
            &grid,
            &dead,
            self.board.captures(),
            self.pass_stones,
        )
    }

    /// Marks the whole chains at `points` as the dead stones of a new proposal, replacing the previous one.
    /// Clears both acceptances.
    pub fn propose(&mut self, by: Color, points: &[Point]) -> Result<(), Illegal> {
        self.check_marking()?;
        let grid = self.board.to_grid();
        self.proposal = expand_chains(&grid, points);
        self.accepted = [false; 2];
        self.log.push(Action::Mark(by, self.proposal.clone()));
        Ok(())
    }

    /// Toggles the chain at `point` between dead and alive in the proposal.
    pub fn toggle_dead(&mut self, by: Color, point: Point) -> Result<(), Illegal> {
        self.check_marking()?;
        let grid = self.board.to_grid();
        let chain = grid.chain(point);
        let mut dead = self.proposal.clone();
        if chain.iter().any(|p| dead.binary_search(p).is_ok()) {
            dead.retain(|p| !chain.contains(p));
        } else {
            dead.extend(chain);
        }
        self.propose(by, &dead)
    }

    /// Accepts the current proposal; when both players have, the game ends and is scored.
    pub fn accept(&mut self, by: Color) -> Result<(), Illegal> {
        self.check_marking()?;
        self.accepted[by.index()] = true;
        self.log.push(Action::Accept(by));
        if self.accepted == [true, true] {
            let dead = self.proposal.clone();
            self.finish_scored(&dead);
        }
        Ok(())
    }

    /// Disputes the status of stones: play resumes from the end-of-play position with the opponent of the
    /// player who passed last to move (§6.3). Ko history is kept.
    pub fn dispute(&mut self, by: Color) -> Result<(), Illegal> {
        self.check_marking()?;
        self.log.push(Action::Dispute(by));
        self.phase = Phase::Playing;
        self.proposal.clear();
        self.accepted = [false; 2];
        self.passes_in_row = 0;
        self.disputed = true;
        self.resumed_turns = 0;
        self.resumed_all_passes = true;
        self.to_move = self.last_passer.map_or(self.to_move, Color::opponent);
        Ok(())
    }

    fn check_marking(&self) -> Result<(), Illegal> {
        match self.phase {
            Phase::Marking => Ok(()),
            Phase::Playing => Err(Illegal::NotMarking),
            Phase::Over => Err(Illegal::GameOver),
        }
    }

    fn check_not_over(&self) -> Result<(), Illegal> {
        match self.phase {
            Phase::Over => Err(Illegal::GameOver),
            _ => Ok(()),
        }
    }

    /// `color` resigns and loses.
    pub fn resign(&mut self, color: Color) -> Result<(), Illegal> {
        self.check_not_over()?;
        self.log.push(Action::Resign(color));
        self.finish(GameResult::new(
            Some(color.opponent()),
            Outcome::Resignation,
        ));
        Ok(())
    }

    /// Both players resign at once: a draw (001 rule 7.5; no other text says otherwise).
    pub fn resign_both(&mut self) -> Result<(), Illegal> {
        self.check_not_over()?;
        self.log.push(Action::ResignBoth);
        self.finish(GameResult::new(None, Outcome::BothResigned));
        Ok(())
    }

    /// `color` ran out of time and loses.
    pub fn timeout(&mut self, color: Color) -> Result<(), Illegal> {
        self.check_not_over()?;
        self.log.push(Action::Timeout(color));
        self.finish(GameResult::new(Some(color.opponent()), Outcome::Time));
        Ok(())
    }

    /// `color` forfeits and loses.
    pub fn forfeit(&mut self, color: Color) -> Result<(), Illegal> {
        self.check_not_over()?;
        self.log.push(Action::Forfeit(color));
        self.finish(GameResult::new(Some(color.opponent()), Outcome::Forfeit));
        Ok(())
    }

    /// The same game at its start, before any action.
    fn restarted(&self) -> Game {
        Game::start_from(
            self.rules,
            self.start.clone(),
            self.start_to_move,
            self.start_free,
            self.start_forced,
        )
    }

    /// The turns played so far, in order (the log without marks, acceptances and other actions).
    pub fn turn_list(&self) -> Vec<(Color, Move)> {
        self.log
            .iter()
            .filter_map(|a| match a {
                Action::Turn(c, m) => Some((*c, *m)),
                _ => None,
            })
            .collect()
    }

    /// Takes back the last action of any kind, returning it; `None` when nothing has happened yet.
    pub fn undo(&mut self) -> Option<Action> {
        let mut log = std::mem::take(&mut self.log);
        let last = log.pop()?;
        let mut g = self.restarted();
        for a in log {
            // Each action was legal when made, so replaying it succeeds.
            let _ = g.apply_action(a);
        }
        *self = g;
        Some(last)
    }

    /// Applies a logged action; errors if it is not legal now.
    pub fn apply_action(&mut self, action: Action) -> Result<(), Illegal> {
        match action {
            Action::Turn(c, m) => self.play(c, m).map(|_| ()),
            Action::Resign(c) => self.resign(c),
            Action::ResignBoth => self.resign_both(),
            Action::Timeout(c) => self.timeout(c),
            Action::Forfeit(c) => self.forfeit(c),
            Action::Mark(c, dead) => self.propose(c, &dead),
            Action::Accept(c) => self.accept(c),
            Action::Dispute(c) => self.dispute(c),
        }
    }
}

/// The legality of a play on a board under a ko rule with its records and a suicide rule: shared by the game and
/// the perft search so that both apply the same rules.
pub(crate) fn check_board_play(
    board: &Board,
    records: &Records,
    ko: KoRule,
    suicide: SuicideRule,
    color: Color,
    i: Idx,
    next: Color,
) -> Result<(), Illegal> {
    let (hash_after, unchanged) = board
        .preview(
            color,
            i,
            ko == KoRule::Simple,
            suicide != SuicideRule::Forbidden,
            suicide == SuicideRule::All,
        )
        .map_err(|r| match r {
            BoardRefusal::OffBoard => Illegal::OffBoard {
                point: board.point(i),
            },
            BoardRefusal::Occupied => Illegal::Occupied,
            BoardRefusal::Suicide { .. } => Illegal::Suicide,
            BoardRefusal::Ko => Illegal::Ko(KoRule::Simple),
        })?;
    if let Some(key) = play_key(ko, hash_after, color, next)
        && records.has_key(key)
    {
        // A single-stone suicide leaves the position as it is: no need to work out the position after it.
        let seen = if unchanged {
            records.count_exact(key, board.snapshot())
        } else {
            records.count_exact(key, &board.snapshot_after(color, i))
        };
        if seen > 0 {
            return Err(Illegal::Ko(ko));
        }
    }
    Ok(())
}

/// The sorted union of the whole chains through the given points (empty points and points off the board
/// ignored).
pub fn expand_chains(grid: &Grid, points: &[Point]) -> Vec<Point> {
    let mut out: Vec<Point> = points.iter().flat_map(|&p| grid.chain(p)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Game {} {:?} {} to move\n{}",
            self.rules,
            self.phase,
            self.to_move,
            self.board.to_grid()
        )
    }
}
