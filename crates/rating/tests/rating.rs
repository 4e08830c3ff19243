//! Ratings against skillratings' own Glicko-2, a game's advantage as a rank difference, and the rank scale.

use proptest::prelude::*;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use tesuji_rating::{
    FIRST_DAN, Outcome, POINTS_PER_RANK, Rank, Rating, STRONGEST_DAN, Scored, Setup, WEAKEST_KYU,
    rate, rate_repeated, rate_score,
};

fn rating(rating: f64, deviation: f64, volatility: f64) -> Rating {
    Rating {
        rating,
        deviation,
        volatility,
    }
}

/// skillratings' Glicko-2 (the reference) on one game.
fn theirs(player: Rating, opponent: Rating, outcome: Outcome) -> Rating {
    let to = |r: Rating| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let result = match outcome {
        Outcome::BlackWins => Outcomes::WIN,
        Outcome::WhiteWins => Outcomes::LOSS,
        Outcome::Draw => Outcomes::DRAW,
    };
    let (r, _) = glicko2(&to(player), &to(opponent), &result, &Glicko2Config::new());
    rating(r.rating, r.deviation, r.volatility)
}

fn close(a: Rating, b: Rating) -> bool {
    (a.rating - b.rating).abs() < 1e-6
        && (a.deviation - b.deviation).abs() < 1e-6
        && (a.volatility - b.volatility).abs() < 1e-9
}

/// The mirror of an outcome: White's side of it.
fn mirrored(outcome: Outcome) -> Outcome {
    match outcome {
        Outcome::BlackWins => Outcome::WhiteWins,
        Outcome::WhiteWins => Outcome::BlackWins,
        Outcome::Draw => Outcome::Draw,
    }
}

const OUTCOMES: [Outcome; 3] = [Outcome::BlackWins, Outcome::WhiteWins, Outcome::Draw];

#[test]
fn an_even_game_is_glicko2_as_skillratings_computes_it() {
    let players = [
        (rating(1500.0, 350.0, 0.06), rating(1500.0, 350.0, 0.06)),
        (rating(1720.5, 80.0, 0.059), rating(1388.0, 210.0, 0.061)),
        (rating(2400.0, 45.0, 0.05), rating(900.0, 300.0, 0.09)),
    ];
    for (black, white) in players {
        for outcome in OUTCOMES {
            let (b, w) = rate(black, white, outcome, &Setup::even(19));
            assert!(
                close(b, theirs(black, white, outcome)),
                "{outcome:?}: {b:?}"
            );
            assert!(
                close(w, theirs(white, black, mirrored(outcome))),
                "{outcome:?}: {w:?}"
            );
        }
    }
}

#[test]
fn the_winner_gains_the_loser_loses_and_an_upset_weighs_more() {
    let even = Setup::even(19);
    let (strong, weak) = (rating(1800.0, 100.0, 0.06), rating(1500.0, 100.0, 0.06));
    let (s, w) = rate(strong, weak, Outcome::BlackWins, &even);
    assert!(s.rating > strong.rating && w.rating < weak.rating);
    let expected_gain = s.rating - strong.rating;
    let (w2, s2) = rate(weak, strong, Outcome::BlackWins, &even);
    assert!(s2.rating < strong.rating);
    assert!(
        w2.rating - weak.rating > 2.0 * expected_gain,
        "the upset: {} against {}",
        w2.rating - weak.rating,
        expected_gain
    );
    // Each game makes both ratings surer.
    assert!(s.deviation < strong.deviation && w.deviation < weak.deviation);
    // A draw between equals moves neither rating.
    let (a, b) = rate(weak, weak, Outcome::Draw, &even);
    assert!((a.rating - weak.rating).abs() < 1e-9 && (b.rating - weak.rating).abs() < 1e-9);
}

/// A handicap game on 19×19 under territory counting with komi 0.5, as a club plays it.
fn handicap_19(stones: u8) -> Setup {
    Setup {
        width: 19,
        height: 19,
        handicap: stones,
        komi_half_points: 1,
        territory: true,
    }
}

#[test]
fn the_advantage_counts_as_a_rank_difference() {
    // Players as far apart as the advantage: the game is rated as one between equals.
    let setup = handicap_19(3);
    let ranks = setup.advantage_ranks();
    let white = rating(1800.0, 120.0, 0.06);
    let black = rating(1800.0 - POINTS_PER_RANK * ranks, 120.0, 0.06);
    for outcome in OUTCOMES {
        let (b, w) = rate(black, white, outcome, &setup);
        let (eb, ew) = rate(white, white, outcome, &Setup::even(19));
        assert!(
            (b.rating - black.rating - (eb.rating - white.rating)).abs() < 1e-9,
            "{outcome:?}"
        );
        assert!((w.rating - ew.rating).abs() < 1e-9, "{outcome:?}");
        assert!((b.deviation - eb.deviation).abs() < 1e-12);
    }
    // Without the stones, the same win by the weaker player is an upset, worth more.
    let (with_stones, _) = rate(black, white, Outcome::BlackWins, &setup);
    let (without, _) = rate(black, white, Outcome::BlackWins, &Setup::even(19));
    assert!(without.rating > with_stones.rating);
}

/// OGS's estimate, written out: a stone is 12 points at the start of a 19×19 game, the fair komi is 6 under
/// territory counting and 7 under area counting, and a point's worth in ranks is 6 times as much on 9×9 and 3
/// times on 13×13.
#[test]
fn the_advantage_is_stones_and_komi_in_ranks() {
    let cases: [(Setup, f64); 8] = [
        // Even games with the fair komi: nothing either way (6.5 is half a point over territory's 6).
        (Setup::even(19), 0.0),
        (
            Setup {
                territory: true,
                komi_half_points: 13,
                ..Setup::even(19)
            },
            -0.5 / 12.0,
        ),
        // No komi: Black keeps the first move's 7 points, half a stone.
        (
            Setup {
                komi_half_points: 0,
                ..Setup::even(19)
            },
            7.0 / 12.0,
        ),
        (
            Setup {
                komi_half_points: 0,
                ..Setup::even(9)
            },
            6.0 * 7.0 / 12.0,
        ),
        (
            Setup {
                komi_half_points: 0,
                ..Setup::even(13)
            },
            3.0 * 7.0 / 12.0,
        ),
        // Two stones and komi 0.5: one stone more than the even game and 5.5 points short of the komi.
        (handicap_19(2), (12.0 + 5.5) / 12.0),
        // Nine stones on 9×9, as a tester made a ranked table: 8 stones more, each worth 6 ranks there.
        (
            Setup {
                width: 9,
                height: 9,
                ..handicap_19(9)
            },
            6.0 * (8.0 * 12.0 + 5.5) / 12.0,
        ),
        // A reverse komi of 50 points: more than four stones.
        (
            Setup {
                komi_half_points: -100,
                ..Setup::even(19)
            },
            57.0 / 12.0,
        ),
    ];
    for (setup, ranks) in cases {
        assert!(
            (setup.advantage_ranks() - ranks).abs() < 1e-12,
            "{setup:?}: {} against {ranks}",
            setup.advantage_ranks()
        );
    }
}

#[test]
fn a_mean_score_is_between_the_whole_results() {
    let (black, white) = (rating(1600.0, 200.0, 0.06), rating(1500.0, 90.0, 0.06));
    let even = Setup::even(19);
    let (win, _) = rate(black, white, Outcome::BlackWins, &even);
    let (draw, _) = rate(black, white, Outcome::Draw, &even);
    let (loss, _) = rate(black, white, Outcome::WhiteWins, &even);
    let (half, _) = rate_score(black, white, 0.5, 0.0);
    assert!(close(half, draw), "{half:?} {draw:?}");
    let mut last = loss.rating;
    for k in 1..=10 {
        let (b, _) = rate_score(black, white, f64::from(k) / 10.0, 0.0);
        assert!(b.rating > last, "score {k}/10");
        last = b.rating;
    }
    assert!((last - win.rating).abs() < 1e-9);
}

#[test]
fn ranks_follow_the_egf_scale() {
    let cases = [
        (1500.0, "6k"),
        (FIRST_DAN, "1d"),
        (FIRST_DAN - 0.01, "1k"),
        (2000.0, "1k"),
        (1999.9, "2k"),
        (2199.9, "1d"),
        (2200.0, "2d"),
        (2900.0, "9d"),
        (5000.0, "9d"),
        (-800.0, "29k"),
        (-800.01, "30k"),
        (-5000.0, "30k"),
    ];
    for (r, name) in cases {
        assert_eq!(Rank::of(r).to_string(), name, "{r}");
    }
    assert_eq!(rating(1500.0, 350.0, 0.06).label(), "6k?");
    assert_eq!(rating(1500.0, 100.0, 0.06).label(), "6k");
    assert_eq!(Rating::default(), rating(1500.0, 350.0, 0.06));
}

#[test]
fn ranks_read_back_and_bad_ones_are_refused() {
    let all: Vec<Rank> = (1..=WEAKEST_KYU)
        .rev()
        .map(Rank::Kyu)
        .chain((1..=STRONGEST_DAN).map(Rank::Dan))
        .collect();
    for pair in all.windows(2) {
        assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
    }
    for rank in &all {
        assert_eq!(rank.to_string().parse::<Rank>(), Ok(*rank));
        assert_eq!(Rank::of(rank.floor()), *rank, "{rank}");
    }
    assert_eq!("3 Kyu".parse::<Rank>(), Ok(Rank::Kyu(3)));
    assert_eq!(" 2 dan ".parse::<Rank>(), Ok(Rank::Dan(2)));
    for bad in [
        "", "k", "0k", "31k", "10d", "0d", "6x", "123k", "6", "-1k", "6kk",
    ] {
        let e = bad.parse::<Rank>().unwrap_err();
        assert!(e.to_string().contains("is not a rank"), "{bad:?}: {e}");
    }
}

proptest! {
    /// Our Glicko-2 against skillratings' on random players and results.
    #[test]
    fn glicko2_is_skillratings_on_random_games(
        b in 0.0..3000.0f64, w in 0.0..3000.0f64, bd in 30.0..350.0f64, wd in 30.0..350.0f64,
        bv in 0.03..0.12f64, wv in 0.03..0.12f64, outcome in 0..3usize,
    ) {
        let (black, white) = (rating(b, bd, bv), rating(w, wd, wv));
        let outcome = OUTCOMES[outcome];
        let (nb, nw) = rate(black, white, outcome, &Setup::even(19));
        prop_assert!(close(nb, theirs(black, white, outcome)), "{:?} {:?}", nb, theirs(black, white, outcome));
        prop_assert!(close(nw, theirs(white, black, mirrored(outcome))));
    }

    #[test]
    fn a_higher_rating_never_has_a_lower_rank(a in -3000.0..6000.0f64, b in -3000.0..6000.0f64) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(Rank::of(lo) <= Rank::of(hi));
        // Inside the scale, a rank spans one step of POINTS_PER_RANK from its floor.
        let rank = Rank::of(a);
        if rank != Rank::Kyu(WEAKEST_KYU) && rank != Rank::Dan(STRONGEST_DAN) {
            prop_assert!(rank.floor() <= a && a < rank.floor() + POINTS_PER_RANK);
        }
    }

    #[test]
    fn ratings_stay_finite_and_a_game_never_widens_the_deviation(
        b in 0.0..3000.0f64, w in 0.0..3000.0f64, bd in 30.0..350.0f64, wd in 30.0..350.0f64,
        handicap in 0u8..=9, outcome in 0..3,
    ) {
        let outcome = [Outcome::BlackWins, Outcome::WhiteWins, Outcome::Draw][outcome as usize];
        let setup = Setup { handicap, komi_half_points: 1, ..Setup::even(19) };
        let (nb, nw) = rate(rating(b, bd, 0.06), rating(w, wd, 0.06), outcome, &setup);
        for (after, before) in [(nb, bd), (nw, wd)] {
            prop_assert!(after.rating.is_finite() && after.volatility.is_finite());
            // Glicko-2 first widens the deviation by the volatility (time passing), then the game narrows it:
            // never wider than that first step.
            let widened = before.hypot(173.7178 * after.volatility);
            prop_assert!(after.deviation > 0.0 && after.deviation <= widened + 1e-9);
        }
    }
}

/// The farming loop: one person's two accounts, one resigning game after game. However many games the pair
/// plays within the window, the winner ends where one win takes them, and the loser where one loss does.
#[test]
fn a_pairs_repeated_games_count_as_one() {
    let start = (Rating::default(), Rating::default());
    let one = rate(start.0, start.1, Outcome::BlackWins, &Setup::even(19));
    let win = Scored {
        score: 1.0,
        advantage: 0.0,
    };
    let mut now = start;
    let mut earlier = Vec::new();
    for game in 0..30 {
        now = rate_repeated(now, start, &earlier, win);
        earlier.push(win);
        assert!(
            (now.0.rating - one.0.rating).abs() < 1e-9
                && (now.1.rating - one.1.rating).abs() < 1e-9,
            "game {game}: {now:?} against one game's {one:?}"
        );
    }
    // The first game is an ordinary one, deviations included.
    assert_eq!(rate_repeated(start, start, &[], win), one);

    // Results that alternate come to the mean result: a win and a loss are a draw from the start.
    let loss = Scored {
        score: 0.0,
        advantage: 0.0,
    };
    let after_win = rate_repeated(start, start, &[], win);
    let after_both = rate_repeated(after_win, start, &[win], loss);
    let draw = rate(start.0, start.1, Outcome::Draw, &Setup::even(19));
    assert!(
        (after_both.0.rating - draw.0.rating).abs() < 1e-9,
        "{after_both:?}"
    );

    // A game against someone else between them stays counted: only the pair's own change is replaced.
    let other = rating(1700.0, 80.0, 0.06);
    let (beat_other, _) = rate(after_win.0, other, Outcome::BlackWins, &Setup::even(19));
    let gained = beat_other.rating - after_win.0.rating;
    let (again, _) = rate_repeated((beat_other, after_win.1), start, &[win], win);
    assert!((again.rating - (one.0.rating + gained)).abs() < 1e-9);
}
