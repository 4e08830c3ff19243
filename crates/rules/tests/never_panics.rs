//! ARCHITECTURE.md: "No public function of the rules crate panics on any input: bad input is a typed error."
//!
//! Property tests: (a) any text as a rules spec; (b) random sequences of every game action, with random colours,
//! points off the board and actions in the wrong phase, under random valid specs of every preset on small boards
//! — a refused action changes nothing and `undo` after an accepted one restores the previous observable state;
//! (c) the fast board's functions on arbitrary padded indices; (d) any text as a diagram.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use tesuji_rules::handicap::{fixed_handicap_points, max_fixed_handicap};
use tesuji_rules::result::GameResult;
use tesuji_rules::{
    Action, Board, BoardRefusal, Color, Game, GameError, Grid, Move, Phase, Point, Preset, Rules,
    Size,
};

// ---------------------------------------------------------------------------------------------------------------
// (a) Rules specs.

/// Text that looks a little like a spec, so that the parser gets past the preset name often.
fn spec_like() -> impl Strategy<Value = String> {
    let preset = prop_oneof![
        Just(String::new()),
        prop::sample::select(
            Preset::ALL
                .iter()
                .map(|p| p.name().to_string())
                .collect::<Vec<_>>()
        ),
        "[a-zA-Z -]{0,12}",
    ];
    let key = prop::sample::select(vec![
        "size",
        "ko",
        "suicide",
        "scoring",
        "seki-eyes",
        "pass-stones",
        "white-passes-last",
        "end",
        "komi",
        "tie",
        "handicap",
        "placement",
        "handicap-bonus",
        "repetition",
        "self-fill",
        "counting",
        "aga",
        "SIZE",
        "",
        "x",
    ]);
    let value = prop_oneof![
        "[0-9]{0,12}",
        "-?[0-9]{0,6}(\\.[0-9]{0,4})?",
        "[bBwW]-?[0-9]{0,4}(\\.5)?/?[wW]?-?[0-9]{0,4}(\\.5)?",
        "[0-9]{1,3}[xX×][0-9]{1,3}",
        "h[0-9+]{0,3}",
        "[a-z-]{0,12}",
        "\\PC{0,6}",
    ];
    let setting = (
        key,
        prop_oneof![Just("="), Just(""), Just("=="), Just(" = ")],
        value,
    )
        .prop_map(|(k, eq, v)| format!("{k}{eq}{v}"));
    (
        preset,
        prop_oneof![Just(":"), Just(""), Just("::"), Just(" : ")],
        prop::collection::vec(setting, 0..6),
        prop_oneof![Just(","), Just(", "), Just(",,")],
    )
        .prop_map(|(p, colon, settings, sep)| format!("{p}{colon}{}", settings.join(sep)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_as_a_spec(text in "\\PC{0,80}") {
        let _ = text.parse::<Rules>();
    }

    #[test]
    fn spec_like_text(text in spec_like()) {
        if let Ok(r) = text.parse::<Rules>() {
            // A spec that parses prints a canonical spec that parses back to the same rules.
            let printed = r.to_string();
            prop_assert_eq!(printed.parse::<Rules>(), Ok(r), "{} printed as {}", text, printed);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// (b) Games.

/// A valid spec: a preset, a small board (9×9 for `bga`, which allows nothing smaller), and random overrides.
fn valid_spec() -> impl Strategy<Value = String> {
    fn knob(values: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
        prop::option::weighted(0.3, prop::sample::select(values).prop_map(str::to_string))
    }
    let knobs = (
        knob(&["simple", "positional", "situational", "natural"]),
        knob(&["forbidden", "multi", "all"]),
        knob(&["area", "territory", "area-reach"]),
        knob(&["count", "none"]),
        knob(&["off", "on", "dispute"]),
        knob(&["on", "off"]),
        knob(&["score", "agree"]),
        knob(&["draw", "white", "first-pass"]),
        knob(&["fixed", "free", "passes"]),
        knob(&["0", "n", "n-1"]),
        knob(&["none", "void"]),
        knob(&["off", "1", "2", "3"]),
    );
    let komi = prop::option::weighted(
        0.3,
        prop_oneof![
            (-40i32..40).prop_map(|h| {
                let sign = if h < 0 { "-" } else { "" };
                let frac = if h % 2 != 0 { ".5" } else { "" };
                format!("{sign}{}{frac}", h.abs() / 2)
            }),
            (0u8..10, 0u8..10).prop_map(|(b, w)| format!("B{b}/W{w}.5")),
        ],
    );
    let handicap = prop::option::weighted(0.25, 0u8..=9);
    let bga = (
        knob(&["chinese", "japanese"]),
        knob(&["on", "off"]),
        knob(&[
            "none", "normal", "big", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9",
        ]),
    );
    (
        prop::sample::select(Preset::ALL.to_vec()),
        1u8..=7,
        1u8..=7,
        knobs,
        komi,
        handicap,
        bga,
    )
        .prop_map(
            |(preset, w, h, knobs, komi, handicap, (counting, aga, bga_komi))| {
                let (ko, suicide, scoring, seki, pass, wpl, end, tie, placement, bonus, rep, fill) =
                    knobs;
                let mut parts: Vec<String> = Vec::new();
                let mut add = |key: &str, v: Option<String>| {
                    if let Some(v) = v {
                        parts.push(format!("{key}={v}"));
                    }
                };
                if preset == Preset::Bga {
                    add("size", Some("9".to_string()));
                    add("counting", counting);
                    add("aga", aga);
                    add("komi", bga_komi.or(komi));
                } else {
                    add("size", Some(format!("{w}x{h}")));
                    add("komi", komi);
                }
                add("ko", ko);
                add("suicide", suicide);
                add("scoring", scoring);
                add("seki-eyes", seki);
                add("pass-stones", pass);
                add("white-passes-last", wpl);
                add("end", end);
                add("tie", tie);
                add("handicap", handicap.map(|n| n.to_string()));
                add("placement", placement);
                add("handicap-bonus", bonus);
                add("repetition", rep);
                add("self-fill", fill);
                format!("{}:{}", preset.name(), parts.join(","))
            },
        )
}

/// One step of a random session.
#[derive(Clone, Debug)]
enum Op {
    /// Any action, random colour and points (off the board too), whatever the phase.
    Act(Action),
    /// The player to move makes the `n`-th (mod the count) of the legal moves, if there is one.
    Legal(usize),
    /// The player to move passes.
    Pass,
    Toggle(Color, Point),
    Undo,
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::Black), Just(Color::White)]
}

fn point() -> impl Strategy<Value = Point> {
    (0u8..=30, 0u8..=30).prop_map(|(x, y)| Point::new(x, y))
}

/// Mostly on a 7×7 board, sometimes anywhere up to 30.
fn near_point() -> impl Strategy<Value = Point> {
    prop_oneof![
        4 => (0u8..7, 0u8..7).prop_map(|(x, y)| Point::new(x, y)),
        1 => point(),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    let mv = prop_oneof![1 => Just(Move::Pass), 4 => near_point().prop_map(Move::Play)];
    prop_oneof![
        20 => (color(), mv).prop_map(|(c, m)| Action::Turn(c, m)),
        1 => color().prop_map(Action::Resign),
        1 => Just(Action::ResignBoth),
        1 => color().prop_map(Action::Timeout),
        1 => color().prop_map(Action::Forfeit),
        6 => (color(), prop::collection::vec(near_point(), 0..5)).prop_map(|(c, v)| Action::Mark(c, v)),
        6 => color().prop_map(Action::Accept),
        4 => color().prop_map(Action::Dispute),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => action().prop_map(Op::Act),
        12 => any::<usize>().prop_map(Op::Legal),
        4 => Just(Op::Pass),
        2 => (color(), near_point()).prop_map(|(c, p)| Op::Toggle(c, p)),
        3 => Just(Op::Undo),
    ]
}

/// Everything a client can see of a game.
#[derive(Debug, PartialEq)]
struct Observed {
    grid: Grid,
    to_move: Color,
    phase: Phase,
    log: Vec<Action>,
    turns: u32,
    captures: [u32; 2],
    pass_stones: [u32; 2],
    passes_in_row: u32,
    first_pass: Option<Color>,
    forced: u8,
    free: u8,
    dead: Vec<Point>,
    accepted: [bool; 2],
    self_fill: [u32; 2],
    disputed: bool,
    result: Option<GameResult>,
    legal: Vec<Move>,
    hash: u64,
    ko: Option<Point>,
}

fn observe(g: &Game) -> Observed {
    Observed {
        grid: g.grid(),
        to_move: g.to_move(),
        phase: g.phase(),
        log: g.log().to_vec(),
        turns: g.turns(),
        captures: g.captures(),
        pass_stones: g.pass_stones(),
        passes_in_row: g.passes_in_row(),
        first_pass: g.first_pass(),
        forced: g.forced_passes_left(),
        free: g.free_handicap_left(),
        dead: g.dead_stones().to_vec(),
        accepted: g.acceptances(),
        self_fill: g.self_fill_runs(),
        disputed: g.disputed(),
        result: g.result().copied(),
        legal: g.legal_moves(),
        hash: g.board().hash(),
        ko: g.board().ko_point(),
    }
}

/// The game of a spec; a handicap the board does not allow is dropped.
fn new_game(spec: &str) -> Game {
    let mut rules: Rules = spec
        .parse()
        .unwrap_or_else(|e| panic!("{spec} should parse: {e}"));
    match Game::new(rules) {
        Ok(g) => g,
        Err(GameError::BadHandicap { .. }) => {
            rules.handicap = 0;
            Game::new(rules).unwrap_or_else(|e| panic!("{spec} without handicap: {e}"))
        }
        Err(e) => panic!("{spec}: {e}"),
    }
}

/// Read-only calls that must not panic, and their consistency with each other.
fn probe(game: &Game, c: Color, p: Point) {
    let phase = game.phase();
    assert_eq!(phase == Phase::Over, game.result().is_some());
    let legal = game.legal_moves();
    if phase != Phase::Playing {
        assert!(legal.is_empty());
        assert!(game.legal_play_indices().is_empty());
    }
    for &m in &legal {
        assert_eq!(
            game.check(game.to_move(), m),
            Ok(()),
            "{m:?} listed as legal"
        );
    }
    let plays = legal.iter().filter(|m| matches!(m, Move::Play(_))).count();
    assert_eq!(plays, game.legal_play_indices().len());
    let _ = game.check(c, Move::Play(p));
    let _ = game.is_legal(c, Move::Pass);
    let score = game.score_with(&[p, Point::new(p.y, p.x)]);
    let _ = score.margin();
    if let Some(r) = game.result() {
        let _ = r.to_string();
        let _ = r.is_draw();
    }
    let _ = format!("{game:?}");
    let _ = game.rules().to_string();
}

fn run_session(spec: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut game = new_game(spec);
    // What was observable before each action still in the log.
    let mut history: Vec<Observed> = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        let before = observe(&game);
        let saved = game.clone();
        let outcome: Result<Option<Action>, String> = match op {
            Op::Act(a) => {
                let checked = match a {
                    Action::Turn(c, m) => Some(game.check(*c, *m)),
                    _ => None,
                };
                let r = game.apply_action(a.clone());
                if let Some(checked) = checked {
                    prop_assert_eq!(checked, r, "check and play disagree on {:?}", a);
                }
                r.map(|()| Some(a.clone())).map_err(|e| e.to_string())
            }
            Op::Legal(n) => {
                let legal = game.legal_moves();
                if legal.is_empty() {
                    Ok(None)
                } else {
                    let m = legal[n % legal.len()];
                    let c = game.to_move();
                    if let Err(e) = game.play(c, m) {
                        return Err(TestCaseError::fail(format!("listed {m:?} refused: {e}")));
                    }
                    Ok(Some(Action::Turn(c, m)))
                }
            }
            Op::Pass => {
                let c = game.to_move();
                game.play(c, Move::Pass)
                    .map(|_| Some(Action::Turn(c, Move::Pass)))
                    .map_err(|e| e.to_string())
            }
            Op::Toggle(c, p) => game
                .toggle_dead(*c, *p)
                .map(|()| None)
                .map_err(|e| e.to_string()),
            Op::Undo => {
                let undone = game.undo();
                prop_assert_eq!(undone.is_some(), !before.log.is_empty());
                prop_assert_eq!(game.log().len(), before.log.len().saturating_sub(1));
                prop_assert_eq!(history.len(), before.log.len());
                if let Some(previous) = history.pop() {
                    prop_assert_eq!(
                        &observe(&game),
                        &previous,
                        "step {}: undo in sequence",
                        step
                    );
                }
                probe(&game, Color::Black, Point::new(0, 0));
                continue;
            }
        };
        let after = observe(&game);
        match outcome {
            Err(e) => {
                // A refusal changes nothing at all.
                prop_assert_eq!(
                    &after,
                    &before,
                    "step {} {:?} refused ({}) but changed the game",
                    step,
                    op,
                    e
                );
            }
            Ok(None) if matches!(op, Op::Legal(_)) => prop_assert_eq!(&after, &before),
            Ok(logged) => {
                prop_assert_eq!(
                    after.log.len(),
                    before.log.len() + 1,
                    "step {} {:?}",
                    step,
                    op
                );
                let last = game.log().last().cloned();
                if let Some(a) = &logged
                    && !matches!(a, Action::Mark(..))
                {
                    prop_assert_eq!(last.as_ref(), Some(a));
                }
                // Undo restores exactly what was observable before.
                let mut undone = game.clone();
                prop_assert_eq!(undone.undo(), last);
                let restored = observe(&undone);
                prop_assert_eq!(
                    &restored,
                    &before,
                    "step {} {:?}: undo did not restore",
                    step,
                    op
                );
                // The copy taken before the action is unaffected by it.
                prop_assert_eq!(&observe(&saved), &before);
                history.push(before);
            }
        }
        let (c, p) = match op {
            Op::Toggle(c, p) => (*c, *p),
            _ => (Color::White, Point::new(30, 2)),
        };
        probe(&game, c, p);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn valid_specs_parse_and_round_trip(spec in valid_spec()) {
        let r: Rules = spec.parse().map_err(|e| TestCaseError::fail(format!("{spec}: {e}")))?;
        prop_assert_eq!(r.to_string().parse::<Rules>(), Ok(r));
    }

    #[test]
    fn random_sessions(spec in valid_spec(), ops in prop::collection::vec(op(), 0..80)) {
        run_session(&spec, &ops)?;
    }
}

/// A few sessions on specific edge boards, every preset: 1×1, 1×n, and the bga 9×9 with a handicap.
#[test]
fn edge_boards_every_preset() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let ops = prop::collection::vec(op(), 20..60);
    for preset in Preset::ALL {
        let sizes: &[&str] = if preset == Preset::Bga {
            &["9"]
        } else {
            &["1", "1x2", "2x1", "1x7", "7x1", "2", "3x2"]
        };
        for size in sizes {
            let mut spec = format!("{}:size={size}", preset.name());
            if preset == Preset::Bga {
                spec.push_str(",komi=h5");
            }
            for _ in 0..8 {
                let ops = ops.new_tree(&mut runner).unwrap().current();
                if let Err(e) = run_session(&spec, &ops) {
                    panic!("{spec}: {e}\nops {ops:?}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// (c) The fast board on arbitrary indices.

#[derive(Clone, Debug)]
enum BoardOp {
    Play(Color, usize),
    Setup(Color, usize),
    Pass,
}

fn board_op() -> impl Strategy<Value = BoardOp> {
    prop_oneof![
        6 => (color(), 0usize..2000).prop_map(|(c, i)| BoardOp::Play(c, i)),
        // Indices that land on small boards more often.
        6 => (color(), 0usize..80).prop_map(|(c, i)| BoardOp::Play(c, i)),
        2 => (color(), 0usize..2000).prop_map(|(c, i)| BoardOp::Setup(c, i)),
        1 => Just(BoardOp::Pass),
    ]
}

/// Every board query at `i`; on positions where every chain has a liberty, their consistency with a real play.
fn board_probe(board: &Board, c: Color, i: usize, flags: (bool, bool, bool)) {
    let (ko, multi, single) = flags;
    let checked = board.check(c, i, ko, multi, single);
    let free = board.check(c, i, false, true, true);
    let hash = board.hash_after(c, i);
    let suicide = board.suicide_size(c, i);
    let _ = board.is_eyelike(c, i);
    let light = board.is_light_legal(c, i);
    let color = board.color_at(i);
    let chain = board.chain_stones(i).count();
    let libs = board.has_liberty(i);
    let atari = board.in_atari(i);
    let _ = board.atari_liberty(i);
    let _ = board.is_empty_at(i);

    assert_eq!(chain as u32, board.chain_len(i));
    assert_eq!(color.is_some(), chain > 0);
    if color.is_none() {
        assert!(!libs && !atari);
    }
    if atari {
        assert!(libs);
    }
    match free {
        Err(BoardRefusal::OffBoard) => {
            assert_eq!(color, None);
            assert!(!light);
            assert_eq!(checked, Err(BoardRefusal::OffBoard));
            assert_eq!(hash, board.hash());
            assert_eq!(suicide, None);
        }
        Err(BoardRefusal::Occupied) => {
            assert!(color.is_some());
            assert_eq!(checked, Err(BoardRefusal::Occupied));
            assert_eq!(suicide, None);
        }
        Err(other) => panic!("check with nothing forbidden refused: {other:?}"),
        Ok(()) => {
            assert_eq!(color, None);
            if Board::from_grid(&board.to_grid()).is_ok() {
                // Light legality: the board's rule without the ko point and single-stone suicide.
                if board.ko_idx() != Some(i) {
                    assert_eq!(
                        light,
                        board.check(c, i, false, true, false).is_ok(),
                        "light at {i}"
                    );
                }
                let mut after = board.clone();
                let effect = after.play(c, i);
                assert_eq!(after.hash(), hash, "hash_after at {i}");
                assert_eq!(
                    Board::from_grid(&after.to_grid()).unwrap().hash(),
                    after.hash(),
                    "incremental hash at {i}"
                );
                match suicide {
                    Some(n) => assert_eq!((effect.captured, effect.suicided), (0, n)),
                    None => assert_eq!(effect.suicided, 0),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn board_functions_on_any_index(
        w in 1u8..=25,
        h in 1u8..=25,
        ops in prop::collection::vec(board_op(), 0..120),
        probes in prop::collection::vec((color(), 0usize..2000, any::<(bool, bool, bool)>()), 0..40),
    ) {
        let size = Size::new(w, h).unwrap();
        let mut board = Board::new(size);
        for op in &ops {
            match *op {
                BoardOp::Play(c, i) => {
                    board_probe(&board, c, i, (true, false, false));
                    let off = board.color_at(i).is_some() || board.check(c, i, false, true, true).is_err();
                    let before = board.hash();
                    let effect = board.play(c, i);
                    if off {
                        prop_assert_eq!(board.hash(), before);
                        prop_assert_eq!(effect, Default::default());
                    }
                }
                BoardOp::Setup(c, i) => {
                    let had = board.color_at(i);
                    board.setup_stone(c, i);
                    if had.is_some() || board.check(c, i, false, true, true) == Err(BoardRefusal::OffBoard) {
                        prop_assert_eq!(board.color_at(i), had);
                    } else {
                        prop_assert_eq!(board.color_at(i), Some(c));
                    }
                }
                BoardOp::Pass => board.pass(),
            }
        }
        for (c, i, flags) in probes {
            board_probe(&board, c, i, flags);
        }
        let _ = board.ko_point();
        let _ = format!("{board:?}");
        prop_assert_eq!(board.to_grid().size(), size);
    }

    #[test]
    fn fixed_handicap_on_any_board(w in 1u8..=25, h in 1u8..=25, n in any::<u8>()) {
        let size = Size::new(w, h).unwrap();
        if let Some(points) = fixed_handicap_points(size, n) {
            prop_assert_eq!(points.len(), n as usize);
            prop_assert!(points.iter().all(|&p| size.contains(p)));
        }
        prop_assert!(max_fixed_handicap(size) <= 9);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// (d) Diagrams.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_text_as_a_diagram(text in "\\PC{0,200}") {
        if let Ok(g) = Grid::from_diagram(&text) {
            prop_assert_eq!(Grid::from_diagram(&g.to_diagram()), Ok(g));
        }
    }

    #[test]
    fn diagram_like_text(text in "[.xXoObBwW#+ /\n\tz]{0,800}") {
        if let Ok(g) = Grid::from_diagram(&text) {
            prop_assert_eq!(Grid::from_diagram(&g.to_diagram()), Ok(g.clone()));
            prop_assert_eq!(Grid::from_diagram(&g.to_rows()), Ok(g.clone()));
            let size = g.size();
            prop_assert!(size.width() <= 25 && size.height() <= 25);
            let _ = Board::from_grid(&g);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions between points, indices and GTP vertices: public functions too.

/// `Board::point` on every index of every board size: no panic, and the inverse of `idx` on the board.
/// (`point` once subtracted 1 from `i % stride` and `i / stride`, which overflowed on the border column and
/// the top border row, e.g. `Board::new(9×9).point(0)`.)
#[test]
fn board_point_of_any_index() {
    for w in 1..=25 {
        for h in 1..=25 {
            let board = Board::new(Size::new(w, h).unwrap());
            for p in board.size().points() {
                assert_eq!(board.point(board.idx(p)), p);
            }
            for i in 0..2000 {
                let p = board.point(i);
                if board.is_empty_at(i) {
                    assert_eq!(board.checked_idx(p), Some(i), "{w}x{h} index {i}");
                }
            }
        }
    }
}

/// `Point::to_gtp` on any point and any board: no panic, and the inverse of `from_gtp` on the board.
/// (It once underflowed `height - y` below the board and indexed past the letters from column 25.)
#[test]
fn gtp_of_any_point() {
    for side in [1, 9, 19, 25] {
        let size = Size::square(side).unwrap();
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                let p = Point::new(x, y);
                let text = p.to_gtp(size);
                if size.contains(p) {
                    assert_eq!(Point::from_gtp(&text, size), Some(p));
                }
            }
        }
    }
}
