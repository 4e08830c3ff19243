//! KataGo's network inputs, version 7 (model versions 8 to 17): 22 planes over the board and 19 global
//! values, as KataGo's `NNInputs::fillRowV7` makes them for a position, its history and its rules.
//!
//! KataGo reads its history from a `BoardHistory`; ours is the [`Game`]'s log. [`encode`] replays the
//! game's turns through a model of that history as KataGo's GTP engine builds it (`clear_board` or a set-up
//! position, then `play` for every turn, the cleanup phase prevented, handicap stones inferred from Black's
//! first turns): which moves count as recent history, the ko and superko bans, whether a pass would end the
//! phase or the game, whether the game is over, the chilling of territory scoring and the handicap bonus.
//!
//! | plane | meaning (from the side of the player to move) |
//! |---|---|
//! | 0 | on the board |
//! | 1, 2 | own stone, opponent stone |
//! | 3, 4, 5 | a stone whose chain has 1, 2, 3 liberties |
//! | 6 | the simple-ko point and the superko bans of the player to move |
//! | 7, 8 | KataGo's cleanup phase only: never set here |
//! | 9–13 | the last five moves, latest first, while they alternate and KataGo shows them |
//! | 14 | stones caught in a ladder (in atari, or of two liberties and one atari from it) |
//! | 15, 16 | the same one and two turns ago |
//! | 17 | the atari that catches an opponent chain of two liberties in a ladder |
//! | 18, 19 | own and opponent area under area scoring (with a group tax: regions of independent life) |
//! | 20, 21 | KataGo's second cleanup phase only: never set here |
//!
//! Global values: 0–4 whether those five moves were passes, 5 komi from the mover's side / 20, 6–7 the ko
//! rule, 8 multi-stone suicide, 9 territory scoring, 10–11 the tax, 12–13 the cleanup phases (never), 14
//! whether a pass would end the phase, 15–16 playout doubling advantage, 17 the button, 18 the komi's parity
//! wave.
//!
//! What our games never reach is left out: KataGo's cleanup phases (territory rules after two passes); like
//! KataGo's GTP engine with its default `preventCleanupPhase`, such a game stays in its main phase, past its
//! normal end, and play resumed after a dispute continues it. Where our games go where KataGo's GTP would not
//! follow, the encoder keeps going as KataGo's history would if told: a single-stone suicide (`suicide=all`)
//! is played as the move it is, and a set-up position's stones are placed row by row.

use tesuji_rules::{Board, Color, Game, Move};

use crate::area;
use crate::katarules::{KataHandicapBonus, KataKo, KataRules, KataScoring, KataTax};
use crate::ladder::{BLACK, Chains, EMPTY, LadderReader, WHITE};

/// Planes over the board.
pub const SPATIAL_FEATURES: usize = 22;
/// Values for the whole position.
pub const GLOBAL_FEATURES: usize = 19;

/// KataGo's bound on the komi it shows the network, beyond the board's area.
const KOMI_CLIP_RADIUS: f32 = 20.0;

/// The inputs of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub width: usize,
    pub height: usize,
    /// `SPATIAL_FEATURES` planes, each row by row from the top: the value of plane `f` at `(x, y)` is at
    /// `(f * height + y) * width + x`, `y = 0` the top row (GTP's row `height`).
    pub spatial: Vec<f32>,
    pub global: [f32; GLOBAL_FEATURES],
}

impl Features {
    /// The value of plane `feature` at `(x, y)`; 0 outside.
    pub fn at(&self, feature: usize, x: usize, y: usize) -> f32 {
        if feature >= SPATIAL_FEATURES || x >= self.width || y >= self.height {
            return 0.0;
        }
        self.spatial[(feature * self.height + y) * self.width + x]
    }

    fn set(&mut self, feature: usize, x: usize, y: usize) {
        self.spatial[(feature * self.height + y) * self.width + x] = 1.0;
    }
}

/// The evaluation's knobs that change the inputs (KataGo's `MiscNNInputParams`). The defaults are KataGo's,
/// as its GTP command `kata-raw-nn` uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EncodeOptions {
    /// When a pass would end the game, hide that (and the history) from the network, as KataGo does at
    /// the root of a search with `conservativePass`. Default false.
    pub conservative_pass: bool,
    /// KataGo's `enablePassingHacks`: the same hiding when the game would end without a win for the mover.
    /// Default false.
    pub enable_passing_hacks: bool,
    /// Playout doubling advantage of the player to move. Default 0.
    pub playout_doubling_advantage: f32,
    /// How much a draw is worth to White, folded into the komi when the result can be a draw. Default 0.5.
    pub draw_equivalent_wins_for_white: f64,
    /// At most this many recent moves are shown. Default 1000 (all five).
    pub max_history: usize,
    /// Compute pass-alive areas as if multi-stone suicide were legal, whatever the rules (a model's
    /// `preferPassAliveUnderSuicideRules`, KataGo's `alwaysComputePassAliveUnderSuicideRules`). Default
    /// false.
    pub pass_alive_as_if_suicide_legal: bool,
}

impl Default for EncodeOptions {
    fn default() -> EncodeOptions {
        EncodeOptions {
            conservative_pass: false,
            enable_passing_hacks: false,
            playout_doubling_advantage: 0.0,
            draw_equivalent_wins_for_white: 0.5,
            max_history: 1000,
            pass_alive_as_if_suicide_legal: false,
        }
    }
}

/// The inputs of the game's current position with `game.to_move()` to play, under KataGo's `rules` and
/// White's komi in half-points (as KataGo's `komi` command takes it: no handicap bonus in it).
pub fn encode(
    game: &Game,
    rules: &KataRules,
    komi_half_points: i32,
    options: &EncodeOptions,
) -> Features {
    let mut hist = History::replay(game, *rules);
    if hist.next != game.to_move() {
        // KataGo evaluates another player than the one its history expects by starting the history over
        // from the current position (as `kata-raw-nn` with a colour does).
        hist.board.pass();
        hist.chains.pass();
        hist.clear(game.to_move());
    }
    fill(&hist, komi_half_points, options)
}

/// Salts of "this colour is to move" in a position key.
const SIDE: [u64; 2] = [0x9E6C_63D0_676A_9A99, 0x2F4B_9B3A_0A2B_7C1D];

/// Positions by key (a Zobrist hash, salted with the player to move where the rule compares situations),
/// each with its exact packed position, so that a match never rests on the hash alone.
#[derive(Default)]
struct PositionLog {
    keys: Vec<u64>,
    words: Vec<u64>,
    /// Words per packed position.
    width: usize,
}

impl PositionLog {
    fn clear(&mut self) {
        self.keys.clear();
        self.words.clear();
    }

    fn push(&mut self, key: u64, snapshot: &[u64]) {
        self.width = snapshot.len();
        self.keys.push(key);
        self.words.extend_from_slice(snapshot);
    }

    fn count(&self, key: u64, snapshot: &[u64]) -> usize {
        (0..self.keys.len())
            .filter(|&k| {
                self.keys[k] == key
                    && snapshot.len() == self.width
                    && self.words[k * self.width..(k + 1) * self.width] == *snapshot
            })
            .count()
    }

    fn contains(&self, key: u64, snapshot: &[u64]) -> bool {
        self.count(key, snapshot) > 0
    }
}

/// KataGo's `BoardHistory` of a game as its GTP engine builds it, in the main phase only.
struct History {
    rules: KataRules,
    /// The position, for its hashes and exact comparisons.
    board: Board,
    /// The same position as KataGo's board holds it, chain lists included (the ladder reader's order).
    chains: Chains,
    /// KataGo's boards before the last and the second-to-last move.
    before_last: Option<Chains>,
    before_second_last: Option<Chains>,
    /// Moves since the history last started over.
    moves: Vec<(Color, Move)>,
    /// The player KataGo expects to move.
    next: Color,
    /// Stones on the board where the history last started: its handicap stones.
    start_stones: [u32; 2],
    ko_history: PositionLog,
    /// Positions from which each colour passed (KataGo's spight-like ending under simple ko).
    passed_from: [PositionLog; 2],
    consecutive_ending_passes: u32,
    has_button: bool,
    /// KataGo's `whiteBonusScore` (territory scoring's chilling and the button) in half-points.
    white_bonus: i32,
    /// KataGo's `whiteHandicapBonusScore`, in points.
    white_handicap_bonus: i32,
    white_has_moved: bool,
    approx_valid_turns: usize,
    finished: bool,
    past_normal_end: bool,
}

impl History {
    /// The game's turns played into a history: the starting position set up (with White to move after
    /// fixed handicap stones, as `set_free_handicap` leaves it), then each turn as `play` gives it. A turn
    /// by the player KataGo did not expect (Black's free handicap stones) starts the history over first, as
    /// KataGo's search does.
    fn replay(game: &Game, rules: KataRules) -> History {
        let start = game.start_grid();
        let (board, turns, to_move) = match Board::from_grid(&start) {
            Ok(board) => (board, game.turn_list(), game.start_to_move()),
            // A game's start always loads; if it did not, its current position would stand alone.
            Err(_) => (game.board().clone(), Vec::new(), game.to_move()),
        };
        let size = board.size();
        let (width, height) = (size.width() as usize, size.height() as usize);
        // KataGo places set-up stones (fixed handicap, a given position) one by one, row by row.
        let chains = Chains::set_up(width, height, |x, y| {
            board
                .get(tesuji_rules::Point::new(x as u8, y as u8))
                .map_or(EMPTY, code)
        });
        let mut hist = History {
            rules,
            board,
            chains,
            before_last: None,
            before_second_last: None,
            moves: Vec::with_capacity(turns.len()),
            next: to_move,
            start_stones: [0; 2],
            ko_history: PositionLog::default(),
            passed_from: [PositionLog::default(), PositionLog::default()],
            consecutive_ending_passes: 0,
            has_button: false,
            white_bonus: 0,
            white_handicap_bonus: 0,
            white_has_moved: false,
            approx_valid_turns: 0,
            finished: false,
            past_normal_end: false,
        };
        hist.clear(to_move);
        let n = turns.len();
        for (k, &(color, mv)) in turns.iter().enumerate() {
            if color != hist.next {
                hist.board.pass();
                hist.chains.pass();
                hist.clear(color);
            }
            if k + 2 == n {
                hist.before_second_last = Some(hist.chains.clone());
            }
            if k + 1 == n {
                hist.before_last = Some(hist.chains.clone());
            }
            hist.play(color, mv);
        }
        hist
    }

    /// The key of the current position with `to_move` to play, as KataGo's ko history keeps it.
    fn ko_key(&self, hash: u64, to_move: Color) -> u64 {
        match self.rules.ko {
            KataKo::Positional => hash,
            KataKo::Simple | KataKo::Situational => hash ^ SIDE[to_move.index()],
        }
    }

    /// KataGo's `BoardHistory::clear`: the history starts over from the current board with `to_move` to play.
    fn clear(&mut self, to_move: Color) {
        self.moves.clear();
        self.next = to_move;
        self.before_last = None;
        self.before_second_last = None;
        let counts = self.board.stone_counts();
        self.start_stones = counts;
        self.ko_history.clear();
        let key = self.ko_key(self.board.hash(), to_move);
        self.ko_history.push(key, self.board.snapshot());
        for log in &mut self.passed_from {
            log.clear();
        }
        self.consecutive_ending_passes = 0;
        self.has_button = self.rules.has_button;
        self.white_bonus = 0;
        if self.rules.scoring == KataScoring::Territory {
            // Chilling: a point per stone on the board and per stone captured from each side.
            let [black, white] = counts.map(|c| c as i32);
            // Our captures are by the capturer: Black's are White's stones lost.
            let [by_black, by_white] = self.board.captures().map(|c| c as i32);
            self.white_bonus = 2 * (black - white) - 2 * (by_black - by_white);
        }
        self.white_has_moved = false;
        self.white_handicap_bonus = self.handicap_bonus();
        self.approx_valid_turns = 0;
        self.finished = false;
        self.past_normal_end = false;
    }

    /// KataGo's `computeWhiteHandicapBonus`, with Black's first turns taken as handicap stones.
    fn handicap_bonus(&self) -> i32 {
        if self.rules.white_handicap_bonus == KataHandicapBonus::Zero {
            return 0;
        }
        let mut black_turns = 0;
        for (i, &(color, mv)) in self.moves.iter().enumerate() {
            if color != Color::Black {
                // Two White turns in a row: a set-up position, not a handicap.
                if self
                    .moves
                    .get(i + 1)
                    .is_some_and(|&(c, _)| c != Color::Black)
                {
                    black_turns = 0;
                    break;
                }
                if mv == Move::Pass {
                    continue;
                }
                break;
            }
            if mv != Move::Pass {
                black_turns += 1;
            }
        }
        let [black, white] = self.start_stones.map(|c| c as i32);
        let stones = if white != 0 || black + black_turns <= 1 {
            0
        } else {
            black + black_turns
        };
        match self.rules.white_handicap_bonus {
            KataHandicapBonus::Zero => 0,
            KataHandicapBonus::N => stones,
            KataHandicapBonus::NMinusOne => (stones - 1).max(0),
        }
    }

    /// Whether passes clear the ko history and a repeated pass ends the phase (KataGo's simple ko).
    fn spight_like(&self) -> bool {
        self.rules.ko == KataKo::Simple
    }

    /// KataGo's `newConsecutiveEndingPassesAfterPass` (main phase, no `SPIGHT` ko).
    fn ending_passes_after_pass(&self) -> u32 {
        self.consecutive_ending_passes + 1
    }

    /// Whether `mover` passing now repeats a position from which it passed before.
    fn would_be_spight_ending(&self, mover: Color) -> bool {
        self.spight_like() && {
            let key = self.ko_key(self.board.hash(), mover);
            self.passed_from[mover.index()].contains(key, self.board.snapshot())
        }
    }

    fn pass_would_end_phase(&self) -> bool {
        self.ending_passes_after_pass() >= 2 || self.would_be_spight_ending(self.next)
    }

    fn pass_would_end_game(&self) -> bool {
        self.pass_would_end_phase() && self.rules.scoring == KataScoring::Area
    }

    fn should_suppress_friendly_pass_end(&self) -> bool {
        self.rules.friendly_pass_ok
            && self.rules.scoring == KataScoring::Area
            && self.ending_passes_after_pass() == 2
            && !self.would_be_spight_ending(self.next)
    }

    /// KataGo's `makeBoardMoveAssumeLegal` with the cleanup phase prevented.
    fn play(&mut self, color: Color, mv: Move) {
        if self.finished || self.past_normal_end {
            // Play after the end: only the move that ended it still counts as history.
            self.approx_valid_turns = self.approx_valid_turns.min(1);
        }
        self.finished = false;
        self.past_normal_end = false;
        let mut spight_end = false;
        match mv {
            Move::Play(_) => self.consecutive_ending_passes = 0,
            Move::Pass if self.has_button => {
                self.has_button = false;
                self.white_bonus += if color == Color::White { 1 } else { -1 };
                self.consecutive_ending_passes = 0;
                for log in &mut self.passed_from {
                    log.clear();
                }
                self.ko_history.clear();
            }
            Move::Pass => {
                if self.spight_like() {
                    self.ko_history.clear();
                }
                self.consecutive_ending_passes = self.ending_passes_after_pass();
                spight_end = self.would_be_spight_ending(color);
                let key = self.ko_key(self.board.hash(), color);
                self.passed_from[color.index()].push(key, self.board.snapshot());
            }
        }
        match mv {
            Move::Play(p) => {
                if let Some(i) = self.board.checked_idx(p)
                    && self.board.is_empty_at(i)
                {
                    self.board.play(color, i);
                    self.chains.play(i, code(color));
                }
            }
            Move::Pass => {
                self.board.pass();
                self.chains.pass();
            }
        }
        let next = color.opponent();
        let key = self.ko_key(self.board.hash(), next);
        self.ko_history.push(key, self.board.snapshot());
        self.moves.push((color, mv));
        self.approx_valid_turns += 1;
        self.next = next;
        let is_play = matches!(mv, Move::Play(_));
        if self.rules.scoring == KataScoring::Territory && is_play {
            self.white_bonus += if color == Color::Black { 2 } else { -2 };
        }
        if color == Color::White && is_play {
            self.white_has_moved = true;
        }
        if !self.white_has_moved
            && color == Color::Black
            && self.rules.white_handicap_bonus != KataHandicapBonus::Zero
        {
            self.white_handicap_bonus = self.handicap_bonus();
        }
        if self.consecutive_ending_passes >= 2 || spight_end {
            match self.rules.scoring {
                KataScoring::Area => {
                    // Scored now; the button, if still there, goes to the player to move.
                    if self.has_button {
                        self.has_button = false;
                        self.white_bonus += if self.next == Color::White { 1 } else { -1 };
                    }
                    self.finished = true;
                }
                KataScoring::Territory => {
                    self.past_normal_end = true;
                    self.approx_valid_turns = self.approx_valid_turns.min(1);
                }
            }
        }
        // Under simple ko a third occurrence of a position within a run of plays ends the game with no
        // result.
        if is_play && self.spight_like() && self.ko_history.count(key, self.board.snapshot()) >= 3 {
            self.finished = true;
        }
    }

    /// KataGo's `superKoBanned` for the player to move: empty points (not the ko point) where a legal play
    /// would repeat a position of the ko history.
    fn superko_banned(&self) -> Vec<usize> {
        let mut banned = Vec::new();
        if self.rules.ko == KataKo::Simple || self.moves.is_empty() {
            return banned;
        }
        let chains = &self.chains;
        let me = code(self.next);
        let after = self.next.opponent();
        let ko = chains.ko();
        for y in 0..chains.height() {
            for x in 0..chains.width() {
                let i = chains.idx(x, y);
                if chains.color(i) != EMPTY
                    || Some(i) == ko
                    || chains.is_illegal_suicide(i, me, self.rules.multi_stone_suicide)
                {
                    continue;
                }
                let key = self.ko_key(self.board.hash_after(self.next, i), after);
                if self.ko_history.keys.contains(&key)
                    && self
                        .ko_history
                        .contains(key, &self.board.snapshot_after(self.next, i))
                {
                    banned.push(i);
                }
            }
        }
        banned
    }

    /// KataGo's `currentSelfKomi`, in KataGo's float arithmetic.
    fn self_komi(&self, pla: Color, komi_half_points: i32, draw_value: f64) -> f32 {
        let komi = komi_half_points as f32 / 2.0;
        let integer = komi_half_points % 2 == 0;
        let draw = if integer != self.rules.has_button {
            (draw_value - 0.5) as f32
        } else {
            0.0
        };
        let white = self.white_bonus as f32 / 2.0 + self.white_handicap_bonus as f32 + komi + draw;
        match pla {
            Color::White => white,
            Color::Black => -white,
        }
    }
}

/// Our colour as the colour codes of [`Chains`].
fn code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// `fillRowV7` on the replayed history.
fn fill(hist: &History, komi_half_points: i32, options: &EncodeOptions) -> Features {
    let size = hist.board.size();
    let (width, height) = (size.width() as usize, size.height() as usize);
    let mut out = Features {
        width,
        height,
        spatial: vec![0.0; SPATIAL_FEATURES * width * height],
        global: [0.0; GLOBAL_FEATURES],
    };
    let rules = &hist.rules;
    let pla = hist.next;
    let (me, them) = (code(pla), code(pla.opponent()));
    let chains = &hist.chains;

    for y in 0..height {
        for x in 0..width {
            out.set(0, x, y);
            let i = chains.idx(x, y);
            let c = chains.color(i);
            if c == me {
                out.set(1, x, y);
            } else if c == them {
                out.set(2, x, y);
            }
            if c == me || c == them {
                match chains.liberties(i) {
                    1 => out.set(3, x, y),
                    2 => out.set(4, x, y),
                    3 => out.set(5, x, y),
                    _ => {}
                }
            }
        }
    }

    let xy = |i: usize| chains.xy(i);
    if let Some(ko) = chains.ko() {
        let (x, y) = xy(ko);
        out.set(6, x, y);
    }
    for i in hist.superko_banned() {
        let (x, y) = xy(i);
        out.set(6, x, y);
    }

    // Area: under area scoring, everything counted as KataGo would count it now; under territory scoring
    // only in the cleanup phase, which our games do not reach.
    let suicide_legal = rules.multi_stone_suicide || options.pass_alive_as_if_suicide_legal;
    let mut score_for_pla = 0;
    let area = match (rules.scoring, rules.tax) {
        (KataScoring::Area, KataTax::None) => {
            Some(area::area(chains, true, true, true, suicide_legal))
        }
        (KataScoring::Area, tax) => {
            let (area, white_minus_black) =
                area::independent_life_area(chains, false, true, suicide_legal);
            if tax == KataTax::All {
                score_for_pla = match pla {
                    Color::White => -2 * white_minus_black,
                    Color::Black => 2 * white_minus_black,
                };
            }
            Some(area)
        }
        (KataScoring::Territory, _) => None,
    };
    let mut would_not_win = false;
    if let Some(area) = &area {
        for y in 0..height {
            for x in 0..width {
                let owner = area[chains.idx(x, y)];
                if owner == me {
                    out.set(18, x, y);
                    score_for_pla += 1;
                } else if owner == them {
                    out.set(19, x, y);
                    score_for_pla -= 1;
                }
            }
        }
        let final_score = score_for_pla as f32
            + hist.self_komi(
                pla,
                komi_half_points,
                options.draw_equivalent_wins_for_white,
            );
        would_not_win = final_score <= 0.0;
    }

    // History: hidden when a pass would end the game and the evaluation acts as if it would not; one move
    // only when the game is over.
    let mut max_turns = 5;
    let mut suppress_pass_ends = false;
    if hist.pass_would_end_game()
        && (options.conservative_pass
            || hist.should_suppress_friendly_pass_end()
            || (options.enable_passing_hacks && would_not_win))
    {
        max_turns = 0;
        suppress_pass_ends = true;
    } else if hist.finished || hist.past_normal_end {
        max_turns = 1;
    }
    max_turns = max_turns.min(options.max_history);
    let usable = max_turns.min(hist.approx_valid_turns);
    let mut shown = 0;
    let n = hist.moves.len();
    for k in 0..usable.min(n) {
        let (color, mv) = hist.moves[n - 1 - k];
        // Latest first, alternating: the opponent's, then the mover's, and so on.
        let expected = if k % 2 == 0 { pla.opponent() } else { pla };
        if color != expected {
            break;
        }
        shown = k + 1;
        match mv {
            Move::Pass => out.global[k] = 1.0,
            Move::Play(p) => {
                if (p.x as usize) < width && (p.y as usize) < height {
                    out.set(9 + k, p.x as usize, p.y as usize);
                }
            }
        }
    }

    let mut reader = LadderReader::new();
    let mut laddered_now = Vec::new();
    let mut working_moves = Vec::new();
    reader.for_each_laddered(chains, |stone, working| {
        laddered_now.push(stone);
        // Plane 17 shows the ataris that start a ladder against the opponent's chains of two liberties.
        if chains.color(stone) == them && chains.liberties(stone) > 1 {
            working_moves.extend_from_slice(working);
        }
    });
    let mut laddered_on = |board: &Chains| {
        let mut stones = Vec::new();
        reader.for_each_laddered(board, |stone, _| stones.push(stone));
        stones
    };
    // The boards one and two turns ago, when those turns are shown; else the latest board shown stands in.
    let before_last = match (&hist.before_last, shown >= 1) {
        (Some(board), true) => laddered_on(board),
        _ => laddered_now.clone(),
    };
    let before_second_last = match (&hist.before_second_last, shown >= 2) {
        (Some(board), true) => laddered_on(board),
        _ => before_last.clone(),
    };
    for (feature, points) in [
        (14, &laddered_now),
        (15, &before_last),
        (16, &before_second_last),
        (17, &working_moves),
    ] {
        for &i in points {
            let (x, y) = xy(i);
            out.set(feature, x, y);
        }
    }

    let mut self_komi = hist.self_komi(
        pla,
        komi_half_points,
        options.draw_equivalent_wins_for_white,
    );
    let board_area = (width * height) as f32;
    self_komi = self_komi.clamp(
        -board_area - KOMI_CLIP_RADIUS,
        board_area + KOMI_CLIP_RADIUS,
    );
    out.global[5] = self_komi / 20.0;
    match rules.ko {
        KataKo::Simple => {}
        KataKo::Positional => {
            out.global[6] = 1.0;
            out.global[7] = 0.5;
        }
        KataKo::Situational => {
            out.global[6] = 1.0;
            out.global[7] = -0.5;
        }
    }
    if rules.multi_stone_suicide {
        out.global[8] = 1.0;
    }
    if rules.scoring == KataScoring::Territory {
        out.global[9] = 1.0;
    }
    match rules.tax {
        KataTax::None => {}
        KataTax::Seki => out.global[10] = 1.0,
        KataTax::All => {
            out.global[10] = 1.0;
            out.global[11] = 1.0;
        }
    }
    if !suppress_pass_ends && hist.pass_would_end_phase() {
        out.global[14] = 1.0;
    }
    if options.playout_doubling_advantage != 0.0 {
        out.global[15] = 1.0;
        out.global[16] = 0.5 * options.playout_doubling_advantage;
    }
    if hist.has_button {
        out.global[17] = 1.0;
    }
    if rules.scoring == KataScoring::Area {
        out.global[18] = komi_wave(self_komi, (width * height) % 2 == 0);
    }
    out
}

/// KataGo's triangle wave of the komi's parity: rising where a komi can make a draw, falling where it
/// cannot, with a period of two points.
fn komi_wave(self_komi: f32, area_is_even: bool) -> f32 {
    let floor = if area_is_even {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Action, Rules};

    /// A game of the rules `spec` after the turns (`B D4; W pass; ...`).
    fn game(spec: &str, turns: &str) -> Game {
        let rules: Rules = spec.parse().unwrap();
        let mut g = Game::new(rules).unwrap();
        for t in turns.split(';').map(str::trim).filter(|t| !t.is_empty()) {
            let (color, text) = t.split_once(' ').unwrap();
            let action = Action::parse(color.parse().unwrap(), text, rules.size).unwrap();
            g.apply_action(action).unwrap();
        }
        g
    }

    fn encode_named(g: &Game, name: &str, komi: i32) -> Features {
        encode(
            g,
            &KataRules::from_name(name).unwrap(),
            komi,
            &EncodeOptions::default(),
        )
    }

    /// The points of a plane, as GTP vertices in row-major order.
    fn plane(f: &Features, feature: usize) -> Vec<String> {
        let size = tesuji_rules::Size::new(f.width as u8, f.height as u8).unwrap();
        size.points()
            .filter(|p| f.at(feature, p.x as usize, p.y as usize) == 1.0)
            .map(|p| p.to_gtp(size))
            .collect()
    }

    #[test]
    fn stones_and_liberties_are_seen_from_the_mover() {
        let g = game("tromp-taylor:size=5", "B C3; W C4; B D4; W B3");
        let f = encode_named(&g, "tromp-taylor", 15);
        assert_eq!((f.width, f.height), (5, 5));
        assert!((0..25).all(|i| f.spatial[i] == 1.0), "plane 0 is the board");
        assert_eq!(plane(&f, 1), ["D4", "C3"], "Black's stones: Black moves");
        assert_eq!(plane(&f, 2), ["C4", "B3"]);
        assert_eq!(plane(&f, 3), Vec::<String>::new());
        assert_eq!(plane(&f, 4), ["C4", "C3"], "two liberties each");
        assert_eq!(plane(&f, 5), ["D4", "B3"]);
    }

    #[test]
    fn the_last_five_moves_are_shown_latest_first() {
        let g = game(
            "tromp-taylor:size=9",
            "B D4; W pass; B E5; W F6; B G7; W pass",
        );
        let f = encode_named(&g, "tromp-taylor", 15);
        assert_eq!(
            f.global[..5],
            [1.0, 0.0, 0.0, 0.0, 1.0],
            "moves 1 and 5 ago were passes"
        );
        assert_eq!(plane(&f, 9), Vec::<String>::new());
        assert_eq!(plane(&f, 10), ["G7"]);
        assert_eq!(plane(&f, 11), ["F6"]);
        assert_eq!(plane(&f, 12), ["E5"]);
        assert_eq!(plane(&f, 13), Vec::<String>::new());
        assert_eq!(f.global[14], 1.0, "Black passing now would end the game");
        let options = EncodeOptions {
            max_history: 2,
            ..EncodeOptions::default()
        };
        let short = encode(
            &g,
            &KataRules::from_name("tromp-taylor").unwrap(),
            15,
            &options,
        );
        assert_eq!(short.global[..5], [1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(plane(&short, 11), Vec::<String>::new());
    }

    #[test]
    fn the_game_over_shows_one_move_and_a_friendly_pass_none() {
        // Two passes end an area game: only the last pass is shown.
        let over = game("tromp-taylor:size=9", "B D4; W E5; B pass; W pass");
        let f = encode_named(&over, "tromp-taylor", 15);
        assert_eq!(f.global[..5], [1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(plane(&f, 9).len() + plane(&f, 10).len(), 0);
        // Under friendly passing, with a pass that would end the game KataGo shows no history and says a
        // pass would not end the phase.
        let one_pass = game("chinese:size=9", "B D4; W E5; B pass");
        let f = encode_named(&one_pass, "chinese", 15);
        assert_eq!(f.global[..5], [0.0; 5]);
        assert_eq!(plane(&f, 10), Vec::<String>::new());
        assert_eq!(f.global[14], 0.0);
        let strict = encode_named(&one_pass, "tromp-taylor", 15);
        assert_eq!((strict.global[0], strict.global[14]), (1.0, 1.0));
    }

    #[test]
    fn rules_appear_in_the_global_features() {
        let g = game("tromp-taylor:size=9", "");
        let globals = |name: &str| encode_named(&g, name, 15).global;
        // Ko (6, 7), multi-stone suicide (8), territory (9), tax (10, 11).
        let knobs = |g: [f32; GLOBAL_FEATURES]| [g[6], g[7], g[8], g[9], g[10], g[11]];
        assert_eq!(
            knobs(globals("tromp-taylor")),
            [1.0, 0.5, 1.0, 0.0, 0.0, 0.0]
        );
        assert_eq!(knobs(globals("chinese")), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(knobs(globals("aga")), [1.0, -0.5, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(
            knobs(globals("new-zealand")),
            [1.0, -0.5, 1.0, 0.0, 0.0, 0.0]
        );
        assert_eq!(knobs(globals("japanese")), [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(
            knobs(globals("stone-scoring")),
            [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
        );
        assert_eq!(globals("aga-button")[17], 1.0);
        assert_eq!(globals("aga")[17], 0.0);
        let pda = EncodeOptions {
            playout_doubling_advantage: 1.5,
            ..EncodeOptions::default()
        };
        let f = encode(&g, &KataRules::from_name("aga").unwrap(), 15, &pda);
        assert_eq!((f.global[15], f.global[16]), (1.0, 0.75));
    }

    #[test]
    fn komi_is_seen_from_the_mover_with_its_parity_wave() {
        let empty = game("tromp-taylor:size=9", "");
        let f = encode_named(&empty, "tromp-taylor", 15);
        // Black to move: komi -7.5; on an odd board draws come at odd komi, so -7.5 is half a point below
        // -7 and falls.
        assert_eq!((f.global[5], f.global[18]), (-0.375, -0.5));
        let white = game("tromp-taylor:size=9", "B E5");
        let f = encode_named(&white, "tromp-taylor", 15);
        assert_eq!((f.global[5], f.global[18]), (0.375, 0.5));
        // An even board: draws at even komi.
        let even = game("tromp-taylor:size=4", "B B2");
        assert_eq!(encode_named(&even, "tromp-taylor", 14).global[18], 0.0);
        assert_eq!(encode_named(&even, "tromp-taylor", 15).global[18], -0.5);
        assert_eq!(encode_named(&even, "tromp-taylor", 13).global[18], 0.5);
        // Clipped at the board's area plus 20.
        let tiny = game("tromp-taylor:size=2", "B A1");
        assert_eq!(
            encode_named(&tiny, "tromp-taylor", 200).global[5],
            24.0 / 20.0
        );
        assert_eq!(
            encode_named(&tiny, "tromp-taylor", -200).global[5],
            -24.0 / 20.0
        );
        // A draw worth more to White raises an integer komi only.
        let draw = EncodeOptions {
            draw_equivalent_wins_for_white: 1.0,
            ..EncodeOptions::default()
        };
        let tt = KataRules::from_name("tromp-taylor").unwrap();
        assert_eq!(encode(&white, &tt, 14, &draw).global[5], 7.5 / 20.0);
        assert_eq!(encode(&white, &tt, 15, &draw).global[5], 7.5 / 20.0);
    }

    #[test]
    fn territory_scoring_counts_plays_and_hides_the_area() {
        // KataGo chills territory scoring into area scoring: each play is worth a point to its player.
        let g = game("japanese:size=9", "B E5");
        let f = encode_named(&g, "japanese", 13);
        assert_eq!(f.global[5], (6.5 + 1.0) / 20.0);
        assert_eq!(f.global[18], 0.0, "no parity wave");
        assert_eq!(plane(&f, 18).len() + plane(&f, 19).len(), 0);
        // Under area scoring the lone stone owns the board.
        let area = encode_named(&g, "chinese", 13);
        assert_eq!(plane(&area, 19).len(), 81);
        assert_eq!(area.global[5], 6.5 / 20.0);
    }

    #[test]
    fn handicap_stones_earn_white_its_bonus() {
        // Four fixed stones: aga gives White N-1 points, chinese N, japanese none.
        let g = game("aga:size=9,handicap=4", "");
        assert_eq!(g.to_move(), Color::White);
        assert_eq!(encode_named(&g, "aga", 1).global[5], (0.5 + 3.0) / 20.0);
        assert_eq!(encode_named(&g, "chinese", 1).global[5], (0.5 + 4.0) / 20.0);
        // Free placement: Black's first plays, each a new start of the history as KataGo's `play` has it.
        let free = game("chinese:size=9,handicap=3", "B C3; B G7; B C7");
        assert_eq!(free.to_move(), Color::White);
        let f = encode_named(&free, "chinese", 1);
        assert_eq!(f.global[5], (0.5 + 3.0) / 20.0);
        assert_eq!(
            plane(&f, 9),
            ["C7"],
            "the last stone is a move of the new history"
        );
    }

    #[test]
    fn the_ko_point_is_banned() {
        // Black takes at C4 with a lone stone: White may not take back at B4 at once.
        let g = game(
            "chinese:size=5,ko=simple",
            "B B5; W C5; B A4; W B4; B B3; W D4; B E1; W C3; B C4",
        );
        for name in ["chinese", "chinese-ogs"] {
            assert_eq!(plane(&encode_named(&g, name, 15), 6), ["B4"], "{name}");
        }
        // A tenuki lifts it.
        let later = game(
            "chinese:size=5,ko=simple",
            "B B5; W C5; B A4; W B4; B B3; W D4; B E1; W C3; B C4; W E2; B E3",
        );
        assert_eq!(
            plane(&encode_named(&later, "chinese", 15), 6),
            Vec::<String>::new()
        );
    }
}
