//! Ratings against skillratings' own Glicko-2, the handicap as a rank difference, and the rank scale.

use proptest::prelude::*;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use tesuji_rating::{
    FIRST_DAN, Outcome, POINTS_PER_RANK, Rank, Rating, STRONGEST_DAN, WEAKEST_KYU, rate,
};

fn rating(rating: f64, deviation: f64, volatility: f64) -> Rating {
    Rating {
        rating,
        deviation,
        volatility,
    }
}

#[test]
fn an_even_game_is_glicko2_as_skillratings_computes_it() {
    let players = [
        (rating(1500.0, 350.0, 0.06), rating(1500.0, 350.0, 0.06)),
        (rating(1720.5, 80.0, 0.059), rating(1388.0, 210.0, 0.061)),
        (rating(2400.0, 45.0, 0.05), rating(900.0, 300.0, 0.09)),
    ];
    for (black, white) in players {
        for (outcome, theirs) in [
            (Outcome::BlackWins, Outcomes::WIN),
            (Outcome::WhiteWins, Outcomes::LOSS),
            (Outcome::Draw, Outcomes::DRAW),
        ] {
            let (b, w) = rate(black, white, outcome, 0);
            let (tb, tw) = glicko2(
                &Glicko2Rating::from(black),
                &Glicko2Rating::from(white),
                &theirs,
                &Glicko2Config::new(),
            );
            assert_eq!((b, w), (Rating::from(tb), Rating::from(tw)), "{outcome:?}");
        }
    }
}

#[test]
fn the_winner_gains_the_loser_loses_and_an_upset_weighs_more() {
    let (strong, weak) = (rating(1800.0, 100.0, 0.06), rating(1500.0, 100.0, 0.06));
    let (s, w) = rate(strong, weak, Outcome::BlackWins, 0);
    assert!(s.rating > strong.rating && w.rating < weak.rating);
    let expected_gain = s.rating - strong.rating;
    let (w2, s2) = rate(weak, strong, Outcome::BlackWins, 0);
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
    let (a, b) = rate(weak, weak, Outcome::Draw, 0);
    assert!((a.rating - weak.rating).abs() < 1e-9 && (b.rating - weak.rating).abs() < 1e-9);
}

#[test]
fn a_handicap_counts_as_a_rank_difference() {
    // Three ranks apart with three stones is an even game: Black's and White's changes are those of a game
    // between equals.
    let (black, white) = (rating(1500.0, 120.0, 0.06), rating(1800.0, 120.0, 0.06));
    let even = rating(1800.0, 120.0, 0.06);
    for outcome in [Outcome::BlackWins, Outcome::WhiteWins, Outcome::Draw] {
        let (b, w) = rate(black, white, outcome, 3);
        let (eb, ew) = rate(even, even, outcome, 0);
        assert!(
            (b.rating - black.rating - (eb.rating - even.rating)).abs() < 1e-9,
            "{outcome:?}"
        );
        assert!((w.rating - ew.rating).abs() < 1e-9, "{outcome:?}");
        assert_eq!((b.deviation, b.volatility), (eb.deviation, eb.volatility));
    }
    // Without the stones, the same win by the weaker player is an upset, worth more.
    let (with_stones, _) = rate(black, white, Outcome::BlackWins, 3);
    let (without, _) = rate(black, white, Outcome::BlackWins, 0);
    assert!(without.rating > with_stones.rating);
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
        let (nb, nw) = rate(rating(b, bd, 0.06), rating(w, wd, 0.06), outcome, handicap);
        for (after, before) in [(nb, bd), (nw, wd)] {
            prop_assert!(after.rating.is_finite() && after.volatility.is_finite());
            // Glicko-2 first widens the deviation by the volatility (time passing), then the game narrows it:
            // never wider than that first step.
            let widened = before.hypot(173.7178 * after.volatility);
            prop_assert!(after.deviation > 0.0 && after.deviation <= widened + 1e-9);
        }
    }
}
