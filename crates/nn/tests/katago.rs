//! Our evaluation of KaTrain's network against KataGo 1.17.2's own (`kata-raw-nn 0`) on the 60 positions of
//! `data/katago-positions.jsonl` (see its SOURCE file): GNU Go games on 9x9, 13x13 and 19x19 under eight of
//! KataGo's rulesets and seven komi values.
//!
//! The network is the file `cargo xtask test` fetches as a user would (KaTrain's wheel from PyPI) and names
//! in `TESUJI_TEST_NETWORK`; without it this test fails.

use std::path::PathBuf;

use serde_json::Value;
use tesuji_nn::katarules::KataRules;
use tesuji_nn::network::Network;
use tesuji_nn::output::{Evaluation, GTP_POLICY_OPTIMISM, Symmetry};
use tesuji_nn::position::{Query, evaluate, raw_nn_text};
use tesuji_rules::{Color, Game, Komi, Move, Point, Rules, Size};

fn network() -> Network {
    let path = std::env::var_os("TESUJI_TEST_NETWORK").map(PathBuf::from).expect(
        "TESUJI_TEST_NETWORK names no network file: run `cargo xtask test`, which fetches KaTrain's network",
    );
    let model = tesuji_nn::model::Model::open(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Network::new(model)
}

/// Our rules for the legality of a KataGo ruleset's moves.
fn legality(name: &str) -> &'static str {
    match name {
        "chinese" | "stone-scoring" => "chinese:ko=simple",
        "chinese-ogs" => "chinese",
        "japanese" => "japanese",
        "korean" => "korean",
        "aga" => "aga",
        "new-zealand" => "new-zealand",
        "tromp-taylor" => "tromp-taylor",
        other => panic!("no rules for {other}"),
    }
}

struct Case {
    line: usize,
    game: Game,
    rules: KataRules,
    komi: i32,
    want: Value,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/katago-positions.jsonl");
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let v: Value = serde_json::from_str(line).unwrap();
            let size = v["size"].as_u64().unwrap() as u8;
            let name = v["rules"].as_str().unwrap();
            let komi = (v["komi"].as_f64().unwrap() * 2.0).round() as i32;
            let mut rules: Rules = legality(name).parse().unwrap();
            rules.size = Size::square(size).unwrap();
            rules.komi = Komi::white(komi);
            let mut game = Game::new(rules).unwrap();
            for m in v["moves"].as_array().unwrap() {
                let color = if m[0] == "B" {
                    Color::Black
                } else {
                    Color::White
                };
                let vertex = m[1].as_str().unwrap();
                let mv = if vertex.eq_ignore_ascii_case("pass") {
                    Move::Pass
                } else {
                    Move::Play(Point::from_gtp(vertex, rules.size).unwrap())
                };
                game.play(color, mv)
                    .unwrap_or_else(|e| panic!("line {}: {vertex}: {e:?}", i + 1));
            }
            Case {
                line: i + 1,
                game,
                rules: KataRules::from_name(name).unwrap(),
                komi,
                want: v["output"].clone(),
            }
        })
        .collect()
}

/// Every difference beyond the tolerances, as text.
fn differences(want: &Value, got: &Evaluation) -> Vec<String> {
    let mut out = Vec::new();
    let mut near = |what: &str, w: f64, g: f32, tolerance: f64| {
        if (w - g as f64).abs() > tolerance {
            out.push(format!("{what}: KataGo {w}, ours {g}"));
        }
    };
    let f = |key: &str| want[key].as_f64().unwrap();
    near("whiteWin", f("whiteWin"), got.white_win, 5e-4);
    near("whiteLoss", f("whiteLoss"), got.white_loss, 5e-4);
    near("noResult", f("noResult"), got.no_result, 5e-4);
    near("whiteLead", f("whiteLead"), got.white_lead, 0.02);
    near(
        "whiteScoreSelfplay",
        f("whiteScoreSelfplay"),
        got.white_score_selfplay,
        0.02,
    );
    let sq = f("whiteScoreSelfplaySq");
    near(
        "whiteScoreSelfplaySq",
        sq,
        got.white_score_selfplay_sq,
        0.02 * (1.0 + sq.abs().sqrt()),
    );
    near("varTimeLeft", f("varTimeLeft"), got.var_time_left, 0.01);
    near(
        "shorttermWinlossError",
        f("shorttermWinlossError"),
        got.shortterm_winloss_error,
        0.002,
    );
    near(
        "shorttermScoreError",
        f("shorttermScoreError"),
        got.shortterm_score_error,
        0.02,
    );
    near("policyPass", f("policyPass"), got.pass, 5e-4);
    let mut legality = Vec::new();
    for (i, (w, g)) in want["policy"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&got.policy)
        .enumerate()
    {
        match (w.as_f64(), g) {
            (Some(w), Some(g)) => near(&format!("policy[{i}]"), w, *g, 5e-4),
            (None, None) => {}
            (w, g) => legality.push(format!(
                "policy[{i}]: KataGo {w:?}, ours {g:?} (legality differs)"
            )),
        }
    }
    for (i, (w, g)) in want["whiteOwnership"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&got.white_ownership)
        .enumerate()
    {
        near(
            &format!("whiteOwnership[{i}]"),
            w.as_f64().unwrap(),
            *g,
            2e-3,
        );
    }
    out.extend(legality);
    out
}

#[test]
fn katagos_own_answers_on_sixty_positions() {
    let network = network();
    let cases = cases();
    assert_eq!(cases.len(), 60);
    let queries: Vec<Query> = cases
        .iter()
        .map(|c| Query {
            game: &c.game,
            rules: c.rules,
            komi: c.komi,
            symmetry: Symmetry(0),
            policy_optimism: GTP_POLICY_OPTIMISM,
        })
        .collect();
    let got = evaluate(&network, &queries);
    // The largest differences, for the record (KataGo prints policy to 6 decimals and the lead to 3).
    let mut worst = [0f64; 4];
    for (c, e) in cases.iter().zip(&got) {
        let w = &c.want;
        for (p, g) in w["policy"].as_array().unwrap().iter().zip(&e.policy) {
            if let (Some(p), Some(g)) = (p.as_f64(), g) {
                worst[0] = worst[0].max((p - *g as f64).abs());
            }
        }
        worst[1] = worst[1].max((w["whiteWin"].as_f64().unwrap() - e.white_win as f64).abs());
        worst[2] = worst[2].max((w["whiteLead"].as_f64().unwrap() - e.white_lead as f64).abs());
        for (o, g) in w["whiteOwnership"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&e.white_ownership)
        {
            worst[3] = worst[3].max((o.as_f64().unwrap() - *g as f64).abs());
        }
    }
    eprintln!(
        "largest differences from KataGo: policy {:.1e}, win {:.1e}, lead {:.3}, ownership {:.1e}",
        worst[0], worst[1], worst[2], worst[3]
    );
    let mut failures = Vec::new();
    for (c, e) in cases.iter().zip(&got) {
        let diffs = differences(&c.want, e);
        if !diffs.is_empty() {
            failures.push(format!(
                "line {} ({} {}x{}, {} moves): {} differences, first {:?}",
                c.line,
                c.want_rules(),
                e.width,
                e.height,
                c.game.turns(),
                diffs.len(),
                &diffs[..diffs.len().min(4)]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 60 positions differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The text form is KataGo's: the first lines of one answer, figure for figure.
    let text = raw_nn_text(Symmetry(0), &got[0]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "symmetry 0");
    assert_eq!(lines[1], format!("whiteWin {:.6}", got[0].white_win));
    assert_eq!(lines[10], "policy");
    assert!(lines.iter().any(|l| l.starts_with("policyPass ")));
}

impl Case {
    fn want_rules(&self) -> String {
        format!("{:?}", self.rules.scoring)
    }
}

/// The game with every move turned as `symmetry` turns the board.
fn turned(game: &Game, symmetry: Symmetry) -> Game {
    let size = game.rules().size;
    let (h, w) = (size.height() as usize, size.width() as usize);
    let mut out = Game::new(*game.rules()).unwrap();
    for (color, mv) in game.turn_list() {
        let mv = match mv {
            Move::Play(p) => {
                let (y, x) = symmetry.forward(h, w, p.y as usize, p.x as usize);
                Move::Play(Point::new(x as u8, y as u8))
            }
            other => other,
        };
        out.play(color, mv).unwrap();
    }
    out
}

#[test]
fn each_symmetry_is_the_turned_board_seen_straight() {
    let network = network();
    let cases = cases();
    // One position of each board size.
    for c in [&cases[2], &cases[26], &cases[4]] {
        let (h, w) = (
            c.game.rules().size.height() as usize,
            c.game.rules().size.width() as usize,
        );
        for symmetry in Symmetry::ALL {
            let other = turned(&c.game, symmetry);
            let query = |game, symmetry| Query {
                game,
                rules: c.rules,
                komi: c.komi,
                symmetry,
                policy_optimism: GTP_POLICY_OPTIMISM,
            };
            let got = evaluate(
                &network,
                &[query(&c.game, symmetry), query(&other, Symmetry(0))],
            );
            let (a, b) = (&got[0], &got[1]);
            // The network saw the same numbers both times, in another order: the answers agree but for
            // rounding (sums over the board run in another order), each point where the symmetry puts it.
            let same = |x: f32, y: f32| (x - y).abs() <= 1e-5 * (1.0 + x.abs());
            assert!(
                same(a.white_win, b.white_win),
                "line {} {symmetry:?}",
                c.line
            );
            assert!(
                same(a.white_lead, b.white_lead),
                "line {} {symmetry:?}",
                c.line
            );
            for y in 0..h {
                for x in 0..w {
                    let (ty, tx) = symmetry.forward(h, w, y, x);
                    let (pa, pb) = (a.policy[y * w + x], b.policy[ty * w + tx]);
                    assert_eq!(pa.is_some(), pb.is_some(), "line {} {symmetry:?}", c.line);
                    if let (Some(pa), Some(pb)) = (pa, pb) {
                        assert!(
                            same(pa, pb),
                            "line {} {symmetry:?} ({x}, {y}): {pa} {pb}",
                            c.line
                        );
                    }
                    let (oa, ob) = (a.white_ownership[y * w + x], b.white_ownership[ty * w + tx]);
                    assert!(
                        same(oa, ob),
                        "line {} {symmetry:?} ({x}, {y}): {oa} {ob}",
                        c.line
                    );
                }
            }
        }
        // And a trained network is nearly symmetric: the mean of the eight is near symmetry 0's answer.
        let queries: Vec<Query> = Symmetry::ALL
            .iter()
            .map(|&symmetry| Query {
                game: &c.game,
                rules: c.rules,
                komi: c.komi,
                symmetry,
                policy_optimism: GTP_POLICY_OPTIMISM,
            })
            .collect();
        let got = evaluate(&network, &queries);
        let mean = tesuji_nn::position::average(&got).unwrap();
        assert!(
            (mean.white_lead - got[0].white_lead).abs() < 2.0,
            "line {}",
            c.line
        );
        assert_eq!(tesuji_nn::position::average(&got[..1]).unwrap(), got[0]);
    }
}

#[test]
fn the_cache_answers_as_the_network_does_and_keeps_to_its_bound() {
    use std::sync::Arc;
    use tesuji_nn::cache::{EvalCache, evaluate_cached};
    let network = network();
    let cache = EvalCache::new(4);
    let mut rules: Rules = "chinese".parse().unwrap();
    rules.size = Size::square(9).unwrap();
    rules.komi = Komi::white(13);
    let mut game = Game::new(rules).unwrap();
    for v in ["E5", "C3", "G7"] {
        let mv = Move::Play(Point::from_gtp(v, rules.size).unwrap());
        game.play(game.to_move(), mv).unwrap();
    }
    fn query(game: &Game, symmetry: u8) -> Query<'_> {
        Query {
            game,
            rules: KataRules::from_rules(game.rules()),
            komi: 13,
            symmetry: Symmetry(symmetry),
            policy_optimism: GTP_POLICY_OPTIMISM,
        }
    }
    let direct = evaluate(&network, &[query(&game, 5)]);
    let first = evaluate_cached(&network, &cache, &[query(&game, 5), query(&game, 2)]);
    assert_eq!(*first[0], direct[0]);
    assert_eq!(cache.len(), 2);
    let again = evaluate_cached(&network, &cache, &[query(&game, 5)]);
    assert!(
        Arc::ptr_eq(&first[0], &again[0]),
        "a hit is the kept answer"
    );
    assert!(
        !Arc::ptr_eq(&first[0], &first[1]),
        "another symmetry is another key"
    );
    // Another position is another key; the cache never holds more than its bound.
    for v in ["C7", "G3", "D4", "F6", "D6", "F4"] {
        let mv = Move::Play(Point::from_gtp(v, rules.size).unwrap());
        game.play(game.to_move(), mv).unwrap();
        let got = evaluate_cached(&network, &cache, &[query(&game, 1)]);
        assert_eq!(*got[0], evaluate(&network, &[query(&game, 1)])[0]);
        assert!(cache.len() <= 4, "{} held", cache.len());
    }
}
