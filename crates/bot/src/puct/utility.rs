//! What a result is worth to the search, from White's side (KataGo's model, read from its search: our own
//! code and constants as KataGo's GTP engine sets them).
//!
//! The utility of an evaluation is its win minus loss plus a score term: `0.1` times the expected
//! `(2/π)·atan(score / (2·√area))` and `0.3` times the expected `(2/π)·atan((score − c) / (0.75·√area))`,
//! the expectation over a normal distribution of the final score with the evaluation's mean and spread, `c`
//! a centre near the root's expected score, so that points matter most near the expected result.

/// The largest a utility can be: win minus loss plus both score terms at their bounds.
pub const UTILITY_RADIUS: f64 = 1.0 + STATIC_FACTOR + DYNAMIC_FACTOR;
const STATIC_FACTOR: f64 = 0.1;
const DYNAMIC_FACTOR: f64 = 0.3;
const STATIC_SCALE: f64 = 2.0;
const DYNAMIC_SCALE: f64 = 0.75;
/// The share of zero in the dynamic centre: the centre is pulled a little towards an even game.
const CENTER_ZERO_WEIGHT: f64 = 0.2;

/// Standard deviations covered by the expectation, each side.
const SPAN: f64 = 7.0;

/// The score scale of one search: the board's size and the dynamic centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreUtility {
    sqrt_area: f64,
    center: f64,
}

impl ScoreUtility {
    /// For a board of `points` points and the root's expected score for White.
    pub fn new(points: usize, expected_white_score: f64) -> ScoreUtility {
        let sqrt_area = (points.max(1) as f64).sqrt();
        let cap = sqrt_area * DYNAMIC_SCALE;
        let center = (expected_white_score * (1.0 - CENTER_ZERO_WEIGHT))
            .clamp(expected_white_score - cap, expected_white_score + cap);
        ScoreUtility { sqrt_area, center }
    }

    /// The score terms of an evaluation whose final score has this mean and mean square (White's).
    pub fn of(&self, mean: f64, mean_sq: f64) -> f64 {
        let stdev = (mean_sq - mean * mean).max(0.0).sqrt();
        STATIC_FACTOR * expected_atan(mean, stdev, STATIC_SCALE * self.sqrt_area)
            + DYNAMIC_FACTOR
                * expected_atan(mean - self.center, stdev, DYNAMIC_SCALE * self.sqrt_area)
    }

    /// How fast the score terms grow with the score, at `mean` (its spread left out).
    pub fn derivative(&self, mean: f64) -> f64 {
        let slope = |x: f64, s: f64| std::f64::consts::FRAC_2_PI * s / (s * s + x * x);
        STATIC_FACTOR * slope(mean, STATIC_SCALE * self.sqrt_area)
            + DYNAMIC_FACTOR * slope(mean - self.center, DYNAMIC_SCALE * self.sqrt_area)
    }
}

/// `E[(2/π)·atan(X / scale)]` for `X` normal with this mean and standard deviation: Simpson's rule over
/// ±7 standard deviations in steps of at most a quarter of a standard deviation and a quarter of `scale`
/// (where the arctangent bends), normalized by the weights' own sum.
fn expected_atan(mean: f64, stdev: f64, scale: f64) -> f64 {
    let f = |x: f64| std::f64::consts::FRAC_2_PI * (x / scale).atan();
    if stdev <= 0.0 {
        return f(mean);
    }
    let step = (0.25f64).min(scale / stdev / 4.0);
    let intervals = ((2.0 * SPAN / step).ceil() as usize)
        .clamp(56, 4000)
        .next_multiple_of(2);
    let h = 2.0 * SPAN / intervals as f64;
    let mut sum = 0.0;
    let mut mass = 0.0;
    for i in 0..=intervals {
        let z = -SPAN + i as f64 * h;
        let simpson = if i == 0 || i == intervals {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        let w = simpson * (-z * z / 2.0).exp();
        sum += w * f(mean + stdev * z);
        mass += w;
    }
    sum / mass
}

/// The weight of one evaluation: less the more the network expects its own value and score to be off
/// (its short-term error heads), at most 8.
pub fn evaluation_weight(
    scale: &ScoreUtility,
    mean: f64,
    winloss_error: f64,
    score_error: f64,
) -> f64 {
    const COEFF: f64 = 0.25;
    const MAX_WEIGHT: f64 = 8.0;
    let uncertainty = winloss_error.max(0.0) + scale.derivative(mean) * score_error.max(0.0);
    COEFF / (uncertainty + COEFF / MAX_WEIGHT)
}

/// The distribution function of Student's t with three degrees of freedom: how the search judges whether
/// a child's value is below its siblings' by more than its few visits explain.
pub fn t3_cdf(t: f64) -> f64 {
    let s = 3f64.sqrt();
    0.5 + ((t / s) / (1.0 + t * t / 3.0) + (t / s).atan()) / std::f64::consts::PI
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expectation by plain numerical integration over ±12 standard deviations.
    fn literal(mean: f64, stdev: f64, scale: f64) -> f64 {
        let steps = 24_000;
        let (lo, hi) = (-12.0, 12.0);
        let h = (hi - lo) / steps as f64;
        let mut sum = 0.0;
        let mut mass = 0.0;
        for i in 0..=steps {
            let z = lo + i as f64 * h;
            let w = (-z * z / 2.0).exp() * if i == 0 || i == steps { 0.5 } else { 1.0 };
            sum += w * std::f64::consts::FRAC_2_PI * ((mean + stdev * z) / scale).atan();
            mass += w;
        }
        sum / mass
    }

    #[test]
    fn the_quadrature_matches_plain_integration() {
        for &scale in &[6.75, 18.0, 27.0] {
            for &mean in &[-40.0, -7.5, -1.0, 0.0, 0.5, 3.0, 12.0, 80.0] {
                for &stdev in &[0.0, 0.3, 2.0, 5.0, 10.0, 20.0] {
                    let fast = expected_atan(mean, stdev, scale);
                    let slow = literal(mean, stdev, scale);
                    assert!(
                        (fast - slow).abs() < 1e-5,
                        "mean {mean} stdev {stdev} scale {scale}: {fast} against {slow}"
                    );
                }
            }
        }
    }

    #[test]
    fn t3_is_a_distribution_function() {
        assert!((t3_cdf(0.0) - 0.5).abs() < 1e-12);
        assert!(t3_cdf(-50.0) < 1e-4 && t3_cdf(50.0) > 1.0 - 1e-4);
        // Its density, by differences, is t's: 2 / (π √3 (1 + t²/3)²).
        for &t in &[-3.0, -0.7, 0.0, 1.2, 4.0] {
            let h = 1e-5;
            let density = (t3_cdf(t + h) - t3_cdf(t - h)) / (2.0 * h);
            let exact = 2.0 / (std::f64::consts::PI * 3f64.sqrt() * (1.0 + t * t / 3.0).powi(2));
            assert!((density - exact).abs() < 1e-6, "{t}: {density} {exact}");
        }
    }

    #[test]
    fn the_centre_leans_to_an_even_game_within_a_cap() {
        let u = ScoreUtility::new(81, 10.0);
        assert!((u.center - 8.0).abs() < 1e-12);
        let u = ScoreUtility::new(81, 100.0);
        assert!((u.center - (100.0 - 9.0 * 0.75)).abs() < 1e-12);
        // More score is worth more, and never more than the factors' sum.
        let v: Vec<f64> = [-30.0, -5.0, 0.0, 5.0, 30.0]
            .iter()
            .map(|&m| u.of(m, m * m + 4.0))
            .collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
        assert!(v.iter().all(|x| x.abs() <= STATIC_FACTOR + DYNAMIC_FACTOR));
    }
}
