//! The slow, literal reference implementation of the play rules (RULES.md §1–§2; Tromp-Taylor rules 3–9).
//!
//! Written to be obviously right, not fast: a play is Tromp-Taylor rule 7 carried out through rule 4, the
//! history is kept as plain lists and every repetition check is a linear scan of them. The fast engine is
//! compared against this module in property tests, so nothing here shares code with it beyond [`Grid`].

use crate::grid::Grid;
use crate::rules::{KoRule, SuicideRule};
use crate::types::{Color, Point};

/// What a play does to a colouring, before any legality rule is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayOutcome {
    /// The colouring after the play, captures and suicide done.
    pub grid: Grid,
    /// Opponent stones removed, in row-major order.
    pub captured: Vec<Point>,
    /// Own stones removed (suicide), in row-major order.
    pub suicided: Vec<Point>,
}

/// Tromp-Taylor rule 4: empties every point of colour `c` that doesn't reach empty. Returns those points in
/// row-major order. All points are judged on the colouring before any is emptied.
fn clear(grid: &mut Grid, c: Color) -> Vec<Point> {
    let doomed: Vec<Point> = grid
        .size()
        .points()
        .filter(|&q| grid.get(q) == Some(c) && !grid.reaches(q, None))
        .collect();
    for &q in &doomed {
        grid.set(q, None);
    }
    doomed
}

/// Tromp-Taylor rule 7: colour the empty point `p` with `color`, clear the opponent colour, then clear one's own.
/// `None` when `p` is off the board or not empty. No ko or suicide rule is applied here.
pub fn apply_play(grid: &Grid, color: Color, p: Point) -> Option<PlayOutcome> {
    if !grid.size().contains(p) || grid.get(p).is_some() {
        return None;
    }
    let mut after = grid.clone();
    after.set(p, Some(color));
    let captured = clear(&mut after, color.opponent());
    let suicided = clear(&mut after, color);
    Some(PlayOutcome {
        grid: after,
        captured,
        suicided,
    })
}

/// Tromp-Taylor rule 9: per colour (`[black, white]`), its stones plus the empty points that reach only it.
pub fn area_score(grid: &Grid) -> [u32; 2] {
    let mut score = [0; 2];
    for p in grid.size().points() {
        match grid.get(p) {
            Some(c) => score[c.index()] += 1,
            None => {
                for c in Color::BOTH {
                    if grid.reaches(p, Some(c)) && !grid.reaches(p, Some(c.opponent())) {
                        score[c.index()] += 1;
                    }
                }
            }
        }
    }
    score
}

/// A game under one ko knob and one suicide knob, with its whole history kept as plain lists.
///
/// The game is over after two consecutive passes (RULES.md §6's dead-stone phase and resumption are not part of
/// the play rules and are not modelled); no turn is accepted after that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefGame {
    ko: KoRule,
    suicide: SuicideRule,
    grid: Grid,
    to_move: Color,
    /// Every position that has occurred, the starting one first; one more per play (passes add none).
    positions: Vec<Grid>,
    /// Every state that has occurred: the starting one, then one after each turn, passes included.
    states: Vec<(Grid, Color)>,
    /// `natural` ko: per colour, the positions right after each of that colour's plays.
    after_own_play: [Vec<Grid>; 2],
    consecutive_passes: u32,
    /// Stones captured by Black, by White (an opponent's suicided stones included).
    prisoners: [u32; 2],
    /// `simple` ko: the point the player to move may not play at on this turn, if any.
    ko_ban: Option<Point>,
}

impl RefGame {
    /// A game starting from `start` (empty board or setup stones) with `to_move` to play. The starting
    /// position and state count as earlier ones for the `positional` and `situational` rules.
    ///
    /// Rule 7 clears whole colours, so a chain of `start` without liberties is removed by the first play (as a
    /// capture, or with the played stones as a suicide). `Board::from_grid` refuses such starts: compare the
    /// two only from starts where every chain has a liberty.
    pub fn new(start: Grid, to_move: Color, ko: KoRule, suicide: SuicideRule) -> RefGame {
        RefGame {
            ko,
            suicide,
            positions: vec![start.clone()],
            states: vec![(start.clone(), to_move)],
            grid: start,
            to_move,
            after_own_play: [Vec::new(), Vec::new()],
            consecutive_passes: 0,
            prisoners: [0, 0],
            ko_ban: None,
        }
    }

    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The current position.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn ko_rule(&self) -> KoRule {
        self.ko
    }

    pub fn suicide_rule(&self) -> SuicideRule {
        self.suicide
    }

    /// Passes made in a row by the latest turns (a play, suicide included, resets it).
    pub fn consecutive_passes(&self) -> u32 {
        self.consecutive_passes
    }

    /// Two consecutive passes end the game (Tromp-Taylor rule 8).
    pub fn is_over(&self) -> bool {
        self.consecutive_passes >= 2
    }

    /// Stones captured by Black and by White; suicided stones count for the opponent.
    pub fn prisoners(&self) -> [u32; 2] {
        self.prisoners
    }

    /// The outcome of playing `p` now, or `None` when the play is illegal.
    fn legal_outcome(&self, p: Point) -> Option<PlayOutcome> {
        if self.is_over() {
            return None;
        }
        let me = self.to_move;
        let out = apply_play(&self.grid, me, p)?;

        // Suicide knob. Own stones are removed only when the play captured nothing and left its own chain
        // without liberties, so a non-empty `suicided` is exactly "such a play" (for starts whose chains all
        // have liberties; see `new`).
        if !out.suicided.is_empty() {
            let allowed = match self.suicide {
                SuicideRule::Forbidden => false,
                SuicideRule::Multi => out.suicided.len() >= 2,
                SuicideRule::All => true,
            };
            if !allowed {
                return None;
            }
        }

        // Ko knob.
        let repeats = match self.ko {
            KoRule::Simple => self.ko_ban == Some(p),
            KoRule::Positional => self.positions.contains(&out.grid),
            // After this play the opponent is to move.
            KoRule::Situational => self
                .states
                .iter()
                .any(|(g, c)| *c == me.opponent() && *g == out.grid),
            KoRule::Natural => self.after_own_play[me.index()].contains(&out.grid),
        };
        (!repeats).then_some(out)
    }

    /// Whether the player to move may play at `p` now.
    pub fn is_legal(&self, p: Point) -> bool {
        self.legal_outcome(p).is_some()
    }

    /// Every legal play of the player to move, in row-major order (the pass, always legal before the end, is not
    /// listed).
    pub fn legal_plays(&self) -> Vec<Point> {
        self.grid
            .size()
            .points()
            .filter(|&p| self.is_legal(p))
            .collect()
    }

    /// Plays at `p` for the player to move. `false`, and nothing changes, when the play is illegal.
    pub fn play(&mut self, p: Point) -> bool {
        let Some(out) = self.legal_outcome(p) else {
            return false;
        };
        let me = self.to_move;
        self.prisoners[me.index()] += out.captured.len() as u32;
        self.prisoners[me.opponent().index()] += out.suicided.len() as u32;
        // Simple ko: exactly one stone captured, by a stone that is alone in its chain and now has exactly one
        // liberty (necessarily the captured point). A suicided stone is gone, so its chain is empty: no ban.
        self.ko_ban = (out.captured.len() == 1
            && out.grid.chain(p).len() == 1
            && out.grid.liberties(p).len() == 1)
            .then(|| out.captured[0]);
        self.grid = out.grid;
        self.to_move = me.opponent();
        self.consecutive_passes = 0;
        self.positions.push(self.grid.clone());
        self.after_own_play[me.index()].push(self.grid.clone());
        self.states.push((self.grid.clone(), self.to_move));
        true
    }

    /// Passes for the player to move. `false`, and nothing changes, when the game is already over.
    pub fn pass(&mut self) -> bool {
        if self.is_over() {
            return false;
        }
        self.to_move = self.to_move.opponent();
        self.consecutive_passes += 1;
        // Any turn other than the banned recapture lifts the simple-ko ban.
        self.ko_ban = None;
        // A pass adds a state but no new position.
        self.states.push((self.grid.clone(), self.to_move));
        true
    }
}

/// The number of turn sequences of length `depth` from `game` (data/perft/README.md): 1 at depth 0; 0 when the
/// game is over; otherwise the sum over every legal play and the pass.
pub fn perft(game: &RefGame, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.is_over() {
        return 0;
    }
    let plays = game.legal_plays();
    if depth == 1 {
        // Each legal turn leads to a node worth perft(_, 0) = 1: no need to build the children.
        return plays.len() as u64 + 1;
    }
    let mut total = 0;
    for p in plays {
        let mut child = game.clone();
        assert!(child.play(p), "a listed play must be playable");
        total += perft(&child, depth - 1);
    }
    let mut child = game.clone();
    child.pass();
    total + perft(&child, depth - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Size;

    const B: Color = Color::Black;
    const W: Color = Color::White;
    const ALL_KO: [KoRule; 4] = [
        KoRule::Simple,
        KoRule::Positional,
        KoRule::Situational,
        KoRule::Natural,
    ];

    fn grid(d: &str) -> Grid {
        Grid::from_diagram(d).unwrap()
    }

    fn pt(x: u8, y: u8) -> Point {
        Point::new(x, y)
    }

    fn game(d: &str, to_move: Color, ko: KoRule, suicide: SuicideRule) -> RefGame {
        RefGame::new(grid(d), to_move, ko, suicide)
    }

    /// Seed 000, rule 6: the original colouring (the 10th to 12th rows hold a ko).
    const SEED_RULE_6: &str = "
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . O X . . . . . . . .
        . . . . . . . . O . O X . . . . . . .
        . . . . . . . . . O X . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .";

    #[test]
    fn apply_play_follows_rule_7() {
        // Seed 000, rule 4: a lone stone in White's mouth reaches no empty point and is cleared.
        let g = grid(".O./O.O/.O.");
        let out = apply_play(&g, B, pt(1, 1)).unwrap();
        assert_eq!(out.suicided, vec![pt(1, 1)]);
        assert_eq!(out.captured, Vec::<Point>::new());
        assert_eq!(out.grid, g);
        // Occupied and off-board points are not plays.
        assert_eq!(apply_play(&g, B, pt(1, 0)), None);
        assert_eq!(apply_play(&g, W, pt(3, 0)), None);
        assert_eq!(apply_play(&g, B, pt(0, 3)), None);
    }

    #[test]
    fn opponent_is_cleared_before_own_colour() {
        // X . O X
        // O O O X   Black at (1,0) leaves {(0,0),(1,0)} without liberties; White's big chain keeps (0,2),
        // . X X .   so nothing is captured and the two black stones are suicided.
        let out = apply_play(&grid("X.OX/OOOX/.XX."), B, pt(1, 0)).unwrap();
        assert_eq!(out.captured, Vec::<Point>::new());
        assert_eq!(out.suicided, vec![pt(0, 0), pt(1, 0)]);
        assert_eq!(out.grid, grid("..OX/OOOX/.XX."));
        // With (0,2) black as well, White's chain loses its last liberty too. White is cleared first, after
        // which Black's stones have liberties: a capture, not a suicide.
        let out = apply_play(&grid("X.OX/OOOX/XXX."), B, pt(1, 0)).unwrap();
        assert_eq!(out.captured, vec![pt(2, 0), pt(0, 1), pt(1, 1), pt(2, 1)]);
        assert_eq!(out.suicided, Vec::<Point>::new());
        assert_eq!(out.grid, grid("XX.X/...X/XXX."));
    }

    #[test]
    fn seed_000_rule_6_example() {
        let start = grid(SEED_RULE_6);
        let (a, b) = (pt(9, 10), pt(10, 10));
        for ko in ALL_KO {
            let mut g = RefGame::new(start.clone(), B, ko, SuicideRule::All);
            // Black at A captures the white stone at B.
            assert!(g.play(a));
            assert_eq!(g.prisoners(), [1, 0]);
            assert_eq!(g.grid().get(b), None);
            // White's recapture at B would recreate the original colouring...
            assert_eq!(apply_play(g.grid(), W, b).unwrap().grid, start);
            // ...which positional forbids (the start counts), situational too (the start state had Black to
            // move, as the state after White's play would), and simple as the immediate single-stone recapture.
            // Natural allows it: the start is not a position right after a play by White.
            assert_eq!(g.is_legal(b), ko == KoRule::Natural, "{ko:?}");
            if ko == KoRule::Natural {
                assert!(g.play(b));
                assert_eq!(g.grid(), &start);
                assert_eq!(g.prisoners(), [1, 1]);
                // But Black's retake would recreate the position right after Black's own play at A.
                assert!(!g.is_legal(a));
                assert!(!g.play(a));
            } else {
                let before = g.clone();
                assert!(!g.play(b));
                assert_eq!(g, before, "an illegal play changes nothing");
            }
        }
    }

    /// . X O .
    /// X O . O   Black at (2,1) takes the ko: one stone captured, by a lone stone with one liberty.
    /// . X O .
    const KO: &str = ".XO./XO.O/.XO.";

    #[test]
    fn simple_ko_bans_only_the_immediate_recapture() {
        let mut g = game(KO, B, KoRule::Simple, SuicideRule::Forbidden);
        assert!(g.play(pt(2, 1)));
        assert_eq!(g.prisoners(), [1, 0]);
        assert!(!g.is_legal(pt(1, 1)));
        assert!(!g.legal_plays().contains(&pt(1, 1)));
        // A pass is White's turn: the ban ends with it (it never bound Black, who may fill the ko).
        assert!(g.pass());
        assert_eq!(g.ko_ban, None);
        assert!(g.is_legal(pt(1, 1)));
        assert!(g.play(pt(0, 0)));
        assert!(g.is_legal(pt(1, 1)));
        assert!(g.play(pt(1, 1)));
        assert_eq!(g.prisoners(), [1, 1]);
        // That was a ko capture in turn: Black may not retake at once.
        assert!(!g.is_legal(pt(2, 1)));
        // Another White play lifts the ban too.
        let mut g = game(KO, B, KoRule::Simple, SuicideRule::Forbidden);
        assert!(g.play(pt(2, 1)));
        assert!(g.play(pt(3, 0)));
        assert!(g.play(pt(0, 2)));
        assert!(g.is_legal(pt(1, 1)));
    }

    #[test]
    fn simple_ko_needs_one_stone_taken_by_a_lone_stone_in_atari() {
        // . X O .
        // X O . .   the capturing stone at (2,1) keeps a second liberty (3,1): no ban. White's play at (1,1)
        // . X O .   is then a single-stone suicide, legal under simple ko with suicide `all`.
        let mut g = game(".XO./XO../.XO.", B, KoRule::Simple, SuicideRule::All);
        assert!(g.play(pt(2, 1)));
        assert_eq!(g.ko_ban, None);
        assert!(g.play(pt(1, 1)));
        assert_eq!(g.prisoners(), [2, 0]);

        // X O O .   Black at (3,0) captures two stones: no ban.
        // . X X .
        let mut g = game("XOO./.XX.", B, KoRule::Simple, SuicideRule::Forbidden);
        assert!(g.play(pt(3, 0)));
        assert_eq!(g.prisoners(), [2, 0]);
        assert_eq!(g.ko_ban, None);

        // . X O O .
        // X O . X O   Black at (2,1) captures one stone, but joins (3,1): a chain of two with one liberty.
        // . X O O .   No ban; White's play at (1,1) captures both (a snapback).
        // . . . . .
        let mut g = game(
            ".XOO./XO.XO/.XOO./.....",
            B,
            KoRule::Simple,
            SuicideRule::Forbidden,
        );
        assert!(g.play(pt(2, 1)));
        assert_eq!(g.ko_ban, None);
        assert!(g.play(pt(1, 1)));
        assert_eq!(g.prisoners(), [1, 2]);
    }

    #[test]
    fn suicide_knobs() {
        // . O   Black at (0,0): a single-stone suicide; the position stays as it is.
        // O .
        let single = ".O/O.";
        // X . O   Black at (1,0): a suicide of two stones, giving a new position.
        // O O .
        let multi = "X.O/OO.";
        for ko in ALL_KO {
            for suicide in [SuicideRule::Forbidden, SuicideRule::Multi, SuicideRule::All] {
                let g = game(single, B, ko, suicide);
                // Under `all` only positional forbids it: it repeats the current position. Situational allows
                // it: the state it makes has White to move, the only earlier state Black.
                let expect = suicide == SuicideRule::All && ko != KoRule::Positional;
                assert_eq!(g.is_legal(pt(0, 0)), expect, "single {ko:?} {suicide:?}");

                let mut g = game(multi, B, ko, suicide);
                let expect = suicide != SuicideRule::Forbidden;
                assert_eq!(g.play(pt(1, 0)), expect, "multi {ko:?} {suicide:?}");
                if expect {
                    assert_eq!(g.grid(), &grid("..O/OO."));
                    assert_eq!(g.prisoners(), [0, 2], "suicided stones go to the opponent");
                }
            }
        }
    }

    /// Black fills a 4×1 board one stone at a time (White passing in between); the fourth stone suicides all
    /// four and empties the board, with White to move.
    fn fill_row(g: &mut RefGame) {
        for x in 0..3 {
            assert!(g.play(pt(x, 0)));
            assert!(g.pass());
        }
    }

    #[test]
    fn multi_stone_suicide_back_to_the_start() {
        // Start: empty, Black to move. The suicide recreates the starting position (positional forbids it),
        // but the state (empty, White to move) never occurred (situational allows it), and no Black play left
        // the board empty (natural allows it).
        for ko in ALL_KO {
            let mut g = game("....", B, ko, SuicideRule::Multi);
            fill_row(&mut g);
            assert_eq!(g.play(pt(3, 0)), ko != KoRule::Positional, "{ko:?}");
        }
        // Started with White to move (White passes first), the same suicide recreates the starting state.
        for ko in ALL_KO {
            let mut g = game("....", W, ko, SuicideRule::All);
            assert!(g.pass());
            fill_row(&mut g);
            let expect = matches!(ko, KoRule::Simple | KoRule::Natural);
            assert_eq!(g.is_legal(pt(3, 0)), expect, "{ko:?}");
        }
    }

    #[test]
    fn situational_counts_states_after_passes() {
        // Black passes first: (empty, White to move) is a state. White plays (3,0), Black captures it with
        // (2,0), then fills the row with White passing; Black's last stone suicides all three others with
        // it, producing (empty, White to move) again. Only the pass made that state: situational forbids
        // the play, natural (only positions after Black's plays) allows it.
        for ko in ALL_KO {
            let mut g = game("....", B, ko, SuicideRule::All);
            assert!(g.pass());
            assert!(g.play(pt(3, 0)));
            assert!(g.play(pt(2, 0)));
            assert_eq!(g.grid(), &grid("..X."));
            assert!(g.pass());
            assert!(g.play(pt(1, 0)));
            assert!(g.pass());
            assert!(g.play(pt(0, 0)));
            assert!(g.pass());
            let expect = matches!(ko, KoRule::Simple | KoRule::Natural);
            assert_eq!(g.is_legal(pt(3, 0)), expect, "{ko:?}");
        }
    }

    #[test]
    fn natural_and_situational_on_one_point() {
        // On a 1×1 board every play is a single-stone suicide that leaves the board empty.
        let p = pt(0, 0);
        // Situational: Black's makes (empty, White) — new; White's would make (empty, Black) — the start.
        let mut g = game(".", B, KoRule::Situational, SuicideRule::All);
        assert!(g.play(p));
        assert!(!g.is_legal(p));
        // Natural: each player's first play is fine, the second repeats the position after their own play.
        let mut g = game(".", B, KoRule::Natural, SuicideRule::All);
        assert!(g.play(p));
        assert!(g.play(p));
        assert!(!g.is_legal(p));
        assert!(g.pass());
        assert!(!g.is_legal(p));
        // Positional: never (it repeats the current position). Simple: always.
        assert!(!game(".", B, KoRule::Positional, SuicideRule::All).is_legal(p));
        let mut g = game(".", B, KoRule::Simple, SuicideRule::All);
        for _ in 0..5 {
            assert!(g.play(p));
        }
        assert_eq!(g.prisoners(), [2, 3]);
    }

    #[test]
    fn passes_and_the_end() {
        // RULES.md §5: a single-stone suicide is a play, so it breaks a run of passes.
        let mut g = game(".", B, KoRule::Simple, SuicideRule::All);
        assert!(g.pass());
        assert_eq!(g.consecutive_passes(), 1);
        assert!(g.play(pt(0, 0)));
        assert_eq!(g.consecutive_passes(), 0);
        assert!(g.pass());
        assert!(!g.is_over());
        assert!(g.pass());
        assert!(g.is_over());
        assert_eq!(g.to_move(), B);
        assert!(g.legal_plays().is_empty());
        let before = g.clone();
        assert!(!g.pass());
        assert!(!g.play(pt(0, 0)));
        assert_eq!(g, before);
    }

    #[test]
    fn perft_on_one_point() {
        // Positional / forbidden: only passes, and two end the game.
        for suicide in [SuicideRule::Forbidden, SuicideRule::All] {
            let g = game(".", B, KoRule::Positional, suicide);
            let counts: Vec<u64> = (0..5).map(|d| perft(&g, d)).collect();
            assert_eq!(counts, [1, 1, 1, 0, 0]);
        }
        // Simple + all: suicide or pass at every turn, but no two passes in a row before the last turn:
        // a(d) = a(d-1) + b(d-1), b(d) = a(d-1) (+1 when d = 1), where b is "after a pass".
        let g = game(".", B, KoRule::Simple, SuicideRule::All);
        let counts: Vec<u64> = (0..7).map(|d| perft(&g, d)).collect();
        assert_eq!(counts, [1, 2, 4, 6, 10, 16, 26]);
    }

    #[test]
    fn area_score_is_rule_9() {
        // . X . O   Black: 4 stones + (0,0) and (0,2), which reach only black. The middle column reaches
        // X X . O   both colours and counts for nobody. White: 3 stones.
        // . X . O
        assert_eq!(area_score(&grid(".X.O/XX.O/.X.O")), [6, 3]);
        assert_eq!(area_score(&grid("..../....")), [0, 0]);
        assert_eq!(area_score(&grid("X../.../...")), [9, 0]);
        assert_eq!(area_score(&grid(".O./.../...")), [0, 9]);
    }

    /// A small deterministic generator for the random games below.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    #[test]
    fn ko_rules_nest_along_random_games() {
        // On one history the knobs nest: a play natural forbids repeats a position right after the mover's
        // play, i.e. a state with the opponent to move, so situational forbids it; a repeated state is a
        // repeated position, so positional forbids it; and the recapture simple ko bans recreates the
        // position before the capture, so positional forbids it too. The games follow positional-legal turns,
        // which are legal under every knob, so all four histories stay the same.
        let mut rng = Lcg(2024);
        for (w, h) in [(1, 1), (2, 1), (3, 1), (2, 2), (3, 2), (3, 3), (4, 4)] {
            let size = Size::new(w, h).unwrap();
            for _ in 0..40 {
                let mut games =
                    ALL_KO.map(|ko| RefGame::new(Grid::new(size), B, ko, SuicideRule::All));
                for _ in 0..100 {
                    if games[1].is_over() {
                        break;
                    }
                    for p in size.points() {
                        let [simple, positional, situational, natural] =
                            games.each_ref().map(|g| g.is_legal(p));
                        assert!(!positional || situational, "{p:?} in\n{:?}", games[1]);
                        assert!(!situational || natural, "{p:?} in\n{:?}", games[1]);
                        assert!(!positional || simple, "{p:?} in\n{:?}", games[1]);
                    }
                    let plays = games[1].legal_plays();
                    let k = rng.below(plays.len() + 1);
                    for g in &mut games {
                        let done = if k < plays.len() {
                            g.play(plays[k])
                        } else {
                            g.pass()
                        };
                        assert!(done);
                    }
                    assert!(games.iter().all(|g| g.grid() == games[0].grid()));
                    assert!(games.iter().all(|g| g.prisoners() == games[0].prisoners()));
                }
            }
        }
    }
}
