//! The game as GTP sees it: a starting position and a list of (colour, move) in any colour order.
//!
//! GTP lets either colour move at any time; [`Game`] insists on turns. The list is the truth; a derived
//! *legality game* is the list replayed on a [`Game`] under the same ko and suicide knobs, where a colour that
//! moves out of turn is preceded by a pass of the other colour. That inserted pass is exactly what GNU Go's
//! board does to the simple-ko point (any move clears it), adds no position for positional superko, and gives
//! situational superko the state (position, mover) that GNU Go records as a move from that position. GNU Go
//! records a state only when a move is actually made from it, so its situational superko can allow a play that
//! ours refuses after an out-of-turn move; and GNU Go applies no superko to suicides at all. Both differences
//! are pinned down by `tests/gnugo.rs`.
//!
//! The legality game never ends: it ends play after two passes (`end = agree`) and a later move resumes it
//! through a dispute, which keeps the ko history; self-fill, repetition-void and the ideal rules' no-play draw
//! are off. Scores are not taken from it: [`Position::score`] counts the GTP list's own passes.
//!
//! Beside it, the *ruled game*: the same list on a [`Game`] under the rules themselves, as long as the list
//! keeps to them (turns in order; a move after the end of play resumes it as a dispute). When the rules end the
//! game with a result of their own (the ideal rules' draw of two passes before any play, a void by repetition,
//! two passes under `end = score`, the AGA rule's two passes at the start of a resumption, self-fill),
//! [`Position::ruled_result`] is that result, and `final_score` answers it instead of a count.
//!
//! A position made from its rules ([`Position::new`]) starts as [`Game::new`] starts: handicap stones placed as
//! the placement says (`fixed`), to be placed by Black (`free`), or White's first n−1 turns forced passes
//! (`passes`), in both games.

use tesuji_rules::game::expand_chains;
use tesuji_rules::result::{GameResult, Score, score_position};
use tesuji_rules::score::seki;
use tesuji_rules::{
    Board, Color, EndRule, Game, GameError, Grid, Illegal, Move, PassStones, Phase, Point, Preset,
    Refusal, Repetition, Rules, Size,
};

/// Why a list of moves cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("bad starting position: {0}")]
    Start(#[from] GameError),
    #[error("move {number} ({color} {vertex}) is illegal: {reason}")]
    Illegal {
        number: usize,
        color: Color,
        vertex: String,
        reason: Illegal,
    },
}

#[derive(Clone, Debug)]
pub struct Position {
    rules: Rules,
    start: Grid,
    start_to_move: Color,
    moves: Vec<(Color, Move)>,
    /// Whether the start is the rules' own (their handicap placement, forced passes or free stones included)
    /// rather than a given setup.
    from_rules: bool,
    /// The legality game after every move of `moves`.
    game: Game,
    /// The legality game's turn count after each move of `moves` (inserted passes make it run ahead).
    turns_after: Vec<u32>,
    /// The ruled game after every move, while the list keeps to the rules.
    ruled: Option<Game>,
}

/// The knobs of the legality game: the same board rules (handicap placement included), and nothing that
/// could end the game.
fn legality_rules(rules: &Rules) -> Rules {
    let mut r = *rules;
    r.end = EndRule::Agree;
    r.resume_passes_end = false;
    r.self_fill = None;
    r.repetition = Repetition::None;
    r.pass_stones = PassStones::Off;
    r.white_passes_last = false;
    if r.preset == Preset::Ideal {
        // Only the ideal preset ends a game of two passes with no play as a draw.
        r.preset = Preset::Chinese;
    }
    r
}

/// Makes `color` the player to move by inserting a pass of the other colour, resuming play (a dispute) when
/// two passes ended it.
fn prepare(game: &mut Game, color: Color) {
    if game.phase() == Phase::Marking {
        let _ = game.dispute(color);
    }
    if game.to_move() != color {
        // Passing is always legal in play (the legality game has no handicap placement).
        let _ = game.play(game.to_move(), Move::Pass);
        if game.phase() == Phase::Marking {
            let _ = game.dispute(color);
        }
    }
}

/// The ruled game after `color` makes `mv`, or `None` when the list leaves the rules there.
fn ruled_after(ruled: Option<Game>, color: Color, mv: Move) -> Option<Game> {
    let mut g = ruled?;
    if g.phase() == Phase::Marking {
        // A move after the end of play: the players disputed and play resumed.
        g.dispute(color).ok()?;
    }
    g.play(color, mv).ok()?;
    Some(g)
}

impl Position {
    /// The start the rules give (`Game::new`): an empty board of their size with their handicap, if any, as
    /// their placement says. Refused when the handicap does not fit the board.
    pub fn new(rules: Rules) -> Result<Position, ReplayError> {
        let game = Game::new(legality_rules(&rules))?;
        let ruled = Game::new(rules)?;
        Ok(Position {
            rules,
            start: game.start_grid(),
            start_to_move: game.start_to_move(),
            moves: Vec::new(),
            from_rules: true,
            turns_after: Vec::new(),
            game,
            ruled: Some(ruled),
        })
    }

    /// A position with stones set up (handicap, `set_position`, a record's setup) and `to_move` nominally to move.
    pub fn with_start(rules: Rules, start: Grid, to_move: Color) -> Result<Position, ReplayError> {
        let game = Game::from_position(legality_rules(&rules), &start, to_move)?;
        let ruled = Game::from_position(rules, &start, to_move)?;
        Ok(Position {
            rules,
            start,
            start_to_move: to_move,
            moves: Vec::new(),
            from_rules: false,
            turns_after: Vec::new(),
            game,
            ruled: Some(ruled),
        })
    }

    /// The same start, with nothing played, under `rules`.
    fn restart(&self, rules: Rules) -> Result<Position, ReplayError> {
        if self.from_rules {
            Position::new(rules)
        } else {
            Position::with_start(rules, self.start.clone(), self.start_to_move)
        }
    }

    /// The same start and moves under other rules (same size), or why a move becomes illegal.
    pub fn with_rules(&self, rules: Rules) -> Result<Position, ReplayError> {
        let mut p = self.restart(rules)?;
        p.replay_all(&self.moves)?;
        Ok(p)
    }

    /// The result the rules themselves gave, when the list kept to them and they ended the game with it.
    pub fn ruled_result(&self) -> Option<&GameResult> {
        self.ruled.as_ref().and_then(|g| g.result())
    }

    fn replay_all(&mut self, moves: &[(Color, Move)]) -> Result<(), ReplayError> {
        for (k, &(color, mv)) in moves.iter().enumerate() {
            self.play(color, mv)
                .map_err(|reason| ReplayError::Illegal {
                    number: k + 1,
                    color,
                    vertex: mv.to_gtp(self.size()),
                    reason,
                })?;
        }
        Ok(())
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn size(&self) -> Size {
        self.rules.size
    }

    /// Sets komi: the count and the ruled game's own results use it.
    pub fn set_komi(&mut self, komi: tesuji_rules::Komi) {
        let mut rules = self.rules;
        rules.komi = komi;
        // The same moves under the new komi; legality does not depend on it, so the replay succeeds.
        match self.with_rules(rules) {
            Ok(p) => *self = p,
            Err(_) => {
                self.rules = rules;
                self.ruled = None;
            }
        }
    }

    pub fn start(&self) -> &Grid {
        &self.start
    }

    pub fn start_to_move(&self) -> Color {
        self.start_to_move
    }

    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    pub fn board(&self) -> &Board {
        self.game.board()
    }

    pub fn grid(&self) -> Grid {
        self.game.grid()
    }

    /// No stone on the board and no move made: where handicap may be placed.
    pub fn is_pristine(&self) -> bool {
        self.moves.is_empty() && self.board().stone_counts() == [0, 0]
    }

    /// Nothing played yet, and the board is the rules' own start or empty: a start that new rules may replace.
    pub fn is_unplayed(&self) -> bool {
        self.moves.is_empty() && (self.from_rules || self.board().stone_counts() == [0, 0])
    }

    /// The player nominally to move: the opponent of the last mover.
    pub fn to_move(&self) -> Color {
        self.moves
            .last()
            .map_or(self.start_to_move, |&(c, _)| c.opponent())
    }

    /// Stones captured by each colour (suicided stones count for the opponent).
    pub fn captures(&self) -> [u32; 2] {
        self.game.captures()
    }

    /// The legality game with `color` to move.
    pub fn game_for(&self, color: Color) -> Game {
        if self.moves.is_empty() && !self.from_rules {
            // No history yet: start the record with `color` to move, as if it had been so from the start.
            if let Ok(g) = Game::from_position(legality_rules(&self.rules), &self.start, color) {
                return g;
            }
        }
        let mut g = self.game.clone();
        prepare(&mut g, color);
        g
    }

    /// Whether `color` may make `mv` now.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), Illegal> {
        self.game_for(color).check(color, mv)
    }

    /// Makes a move; an illegal one changes nothing.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), Illegal> {
        let mut g = self.game_for(color);
        g.play(color, mv)?;
        if self.moves.is_empty() && !self.from_rules && color != self.start_to_move {
            // The first move of a set-up position decides who moved first, in the ruled game too.
            self.ruled = Game::from_position(self.rules, &self.start, color).ok();
        }
        self.turns_after.push(g.turns());
        self.game = g;
        self.ruled = ruled_after(self.ruled.take(), color, mv);
        self.moves.push((color, mv));
        Ok(())
    }

    /// Whether `color` may make `mv` now, and if not, why: a superko refusal names the earlier position it
    /// would repeat by the number of the GTP move after which it stood (0: the starting position).
    pub fn why(&self, color: Color, mv: Move) -> Result<(), Refusal> {
        self.game_for(color).why(color, mv).map_err(|mut r| {
            if let Some(t) = r.repeats {
                // Moves of the list up to that turn of the legality game (an inserted pass repeats the
                // position of the move before it).
                let m = self
                    .turns_after
                    .iter()
                    .take_while(|&&after| after <= t)
                    .count();
                r.repeats = Some(m as u32);
            }
            r
        })
    }

    /// Takes back the last move; `false` when there is none.
    pub fn undo(&mut self) -> bool {
        let Some((_, rest)) = self.moves.split_last() else {
            return false;
        };
        let rest = rest.to_vec();
        let Ok(mut p) = self.restart(self.rules) else {
            return false;
        };
        // Every move was legal when made, so the replay cannot fail; keep the position if it ever does.
        if p.replay_all(&rest).is_err() {
            return false;
        }
        *self = p;
        true
    }

    /// Every legal play of `color`, row by row from the top (GNU Go's order).
    pub fn legal_plays(&self, color: Color) -> Vec<Point> {
        self.game_for(color).legal_plays()
    }

    /// Stones in seki among the living (after `dead` are removed), per the seki test of the territory count
    /// (`tesuji_rules::score::seki`). None under `end = score`, where every stone is simply alive.
    pub fn seki_stones(&self, dead: &[Point]) -> Vec<Point> {
        if self.rules.end == EndRule::Score {
            return Vec::new();
        }
        let grid = self.grid();
        let size = grid.size();
        let marks = seki(&grid, dead);
        size.points().filter(|&p| marks[size.index(p)]).collect()
    }

    /// Pass stones each colour has received from the GTP list's passes, and White's last pass of the AGA rule.
    fn pass_stones(&self) -> [u32; 2] {
        let mut stones = [0; 2];
        if self.rules.pass_stones == PassStones::On {
            for &(c, m) in &self.moves {
                if m == Move::Pass {
                    stones[c.opponent().index()] += 1;
                }
            }
        }
        let last_passer = self
            .moves
            .iter()
            .rev()
            .find(|(_, m)| *m == Move::Pass)
            .map(|&(c, _)| c);
        if self.rules.white_passes_last && last_passer == Some(Color::Black) {
            stones[Color::Black.index()] += 1;
        }
        stones
    }

    /// The count of the current position with these dead stones (whole chains).
    pub fn score(&self, dead: &[Point]) -> Score {
        let grid = self.grid();
        let dead = expand_chains(&grid, dead);
        score_position(
            &self.rules,
            &grid,
            &dead,
            self.captures(),
            self.pass_stones(),
        )
    }

    /// The result of counting now with these dead stones.
    pub fn result(&self, dead: &[Point]) -> GameResult {
        let first_pass = self
            .moves
            .iter()
            .find(|(_, m)| *m == Move::Pass)
            .map(|&(c, _)| c);
        GameResult::from_score(self.score(dead), &self.rules, first_pass)
    }

    /// Whether the last two moves are passes: the game as recorded has ended.
    pub fn ended(&self) -> bool {
        self.moves.len() >= 2
            && self.moves[self.moves.len() - 2..]
                .iter()
                .all(|(_, m)| *m == Move::Pass)
    }
}
