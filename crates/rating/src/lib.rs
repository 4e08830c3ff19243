//! Players' ratings: Glicko-2 (Mark Glickman's system, as OGS rates its players; checked against the
//! `skillratings` crate), with a game's handicap and komi counted as one rank difference, and the kyu/dan ranks
//! named from ratings.
//!
//! One rating per player, over every board size: a club-sized site has too few games per size for separate
//! ratings to settle, and a player's strength on 9×9 and 19×19 goes together closely enough to start from.
//!
//! Ranks follow the European Go Federation's scale: 100 rating points a rank, 2100 is 1 dan and 2000 is 1 kyu;
//! a new player's 1500 is 6 kyu. Ranks run from 30 kyu to 9 dan; a rating beyond either end is named by the end.

use std::fmt;
use std::str::FromStr;

/// Rating points per rank, and so per handicap stone.
pub const POINTS_PER_RANK: f64 = 100.0;

/// The rating at the bottom of 1 dan.
pub const FIRST_DAN: f64 = 2100.0;

/// A rating whose deviation is above this is provisional: shown with a `?` after the rank.
pub const PROVISIONAL_DEVIATION: f64 = 160.0;

/// A player's rating: the Glicko-2 rating, its deviation (how unsure it is) and volatility (how erratic the
/// player's results are), on Glicko's scale (a new player has 1500 ± 350).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    /// A new player's: 1500 ± 350, volatility 0.06 (Glickman's suggested start).
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

impl Rating {
    /// The rank this rating names.
    pub fn rank(&self) -> Rank {
        Rank::of(self.rating)
    }

    /// Whether the rating is still unsure (few games): its rank is shown as provisional.
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rank as shown beside a name: `6k`, `1d`, or `6k?` while provisional.
    pub fn label(&self) -> String {
        if self.is_provisional() {
            format!("{}?", self.rank())
        } else {
            self.rank().to_string()
        }
    }
}

/// How a rated game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    BlackWins,
    WhiteWins,
    /// A jigo: the same score.
    Draw,
}

impl Outcome {
    /// Black's score: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn black_score(self) -> f64 {
        match self {
            Outcome::BlackWins => 1.0,
            Outcome::WhiteWins => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// What a game gave Black beyond an even game with a fair komi: its board, handicap stones and komi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The board's sides.
    pub width: u8,
    pub height: u8,
    /// Handicap stones (0 and 1 both mean an even game with Black first).
    pub handicap: u8,
    /// White's komi minus Black's in half-points, White's handicap bonus (area counting) included.
    pub komi_half_points: i32,
    /// Territory counting (fair komi 6) rather than area counting (fair komi 7).
    pub territory: bool,
}

/// Points a stone is worth at the start of a 19×19 game, by the estimate OGS's ratings notes use.
const STONE_POINTS: f64 = 12.0;

/// Ranks a stone's worth of points is on smaller and larger boards than 19×19 (OGS's ratings notes: 6 on 9×9,
/// 3 on 13×13, and the values they propose for 7×7 and 25×25); between two listed sides, the nearer one's.
const RANKS_PER_STONE: [(f64, f64); 5] = [
    (7.0, 12.0),
    (9.0, 6.0),
    (13.0, 3.0),
    (19.0, 1.0),
    (25.0, 0.5),
];

impl Setup {
    /// An even game on a square board with the fair komi of its counting (6.5 and 7.5 are within half a point).
    pub fn even(size: u8) -> Setup {
        Setup {
            width: size,
            height: size,
            handicap: 0,
            komi_half_points: 14,
            territory: false,
        }
    }

    /// Black's advantage in ranks (negative: White's): the handicap stones beyond the first move and the komi
    /// short of the fair one, in points, over a stone's worth, scaled to the board. Handicap n puts n stones
    /// down with White to move, which is an even game with n − 1 stones more.
    pub fn advantage_ranks(&self) -> f64 {
        let fair = if self.territory { 6.0 } else { 7.0 };
        let extra_stones = f64::from(self.handicap.max(1) - 1);
        let points = extra_stones * STONE_POINTS + fair - f64::from(self.komi_half_points) / 2.0;
        let side = (f64::from(self.width) * f64::from(self.height)).sqrt();
        let scale = RANKS_PER_STONE
            .iter()
            .min_by(|a, b| (a.0 - side).abs().total_cmp(&(b.0 - side).abs()))
            .map_or(1.0, |&(_, ranks)| ranks);
        points / STONE_POINTS * scale
    }
}

/// Both players' ratings after a game between `black` and `white` that ended in `outcome`, Black having had the
/// advantage `setup` describes. The advantage counts as a rank difference, as OGS counts it: each rank of it is
/// worth [`POINTS_PER_RANK`] to Black for the computation, so a game whose advantage matches the players' rank
/// difference is an even game, and an upset is weighed as such.
pub fn rate(black: Rating, white: Rating, outcome: Outcome, setup: &Setup) -> (Rating, Rating) {
    rate_score(black, white, outcome.black_score(), setup.advantage_ranks())
}

/// Both players' ratings after one game that Black scored `score` in (0 to 1: a fraction stands for the mean
/// of several results counted as one game), Black having had `advantage` ranks (see [`Setup`]).
pub fn rate_score(black: Rating, white: Rating, score: f64, advantage: f64) -> (Rating, Rating) {
    let bonus = POINTS_PER_RANK * advantage;
    let score = score.clamp(0.0, 1.0);
    let seen_black = Rating {
        rating: black.rating + bonus,
        ..black
    };
    let mut new_black = glicko2_one(seen_black, white, score);
    new_black.rating -= bonus;
    let new_white = glicko2_one(white, seen_black, 1.0 - score);
    (new_black, new_white)
}

/// One game's result and advantage, both from one player's side (the player who is Black in the game rated
/// now): their score (1, ½, 0) and the ranks of advantage they had (negative when the opponent had it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub score: f64,
    pub advantage: f64,
}

/// Both players' ratings after a game between two players who already played `earlier` rated games together
/// within the window a site sets (a day): the pair's games in the window count as ONE game, of their mean score
/// and mean advantage, rated from `start`, their ratings before the first of them. So a pair that plays many
/// games, or one person with two accounts, moves the ratings no further than one game does: each new game
/// moves them by the change of that one game from what it was without it, and leaves the deviations and
/// volatilities as they are (the same pair again makes the system no surer). With no earlier game this is
/// [`rate_score`] from the ratings `now`.
pub fn rate_repeated(
    now: (Rating, Rating),
    start: (Rating, Rating),
    earlier: &[Scored],
    this: Scored,
) -> (Rating, Rating) {
    if earlier.is_empty() {
        return rate_score(now.0, now.1, this.score, this.advantage);
    }
    let mean = |games: &mut dyn Iterator<Item = &Scored>| {
        let (mut n, mut score, mut advantage) = (0.0, 0.0, 0.0);
        for g in games {
            n += 1.0;
            score += g.score;
            advantage += g.advantage;
        }
        rate_score(start.0, start.1, score / n, advantage / n)
    };
    let before = mean(&mut earlier.iter());
    let after = mean(&mut earlier.iter().chain([&this]));
    let moved = |r: Rating, from: Rating, to: Rating| Rating {
        rating: r.rating + (to.rating - from.rating),
        ..r
    };
    (
        moved(now.0, before.0, after.0),
        moved(now.1, before.1, after.1),
    )
}

/// Glicko-2's scale: rating points per unit of its internal scale.
const SCALE: f64 = 173.7178;

/// Glicko-2's τ, how much the volatility may change (the `skillratings` crate's default, as before).
const TAU: f64 = 0.5;

/// Mark Glickman's Glicko-2 ("Example of the Glicko-2 system", 2013), one game of `player` against `opponent`
/// scoring `score` (1 win, 0 loss, fractions between), as one rating period. Written out here, rather than
/// taken from `skillratings`, because that crate takes whole results only; its tests compare the two.
fn glicko2_one(player: Rating, opponent: Rating, score: f64) -> Rating {
    let (mu, phi, sigma) = (
        (player.rating - 1500.0) / SCALE,
        player.deviation / SCALE,
        player.volatility,
    );
    let (mu_j, phi_j) = (
        (opponent.rating - 1500.0) / SCALE,
        opponent.deviation / SCALE,
    );
    let g =
        1.0 / (1.0 + 3.0 * phi_j * phi_j / (std::f64::consts::PI * std::f64::consts::PI)).sqrt();
    let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e * (1.0 - e));
    let delta = v * g * (score - e);
    let new_sigma = new_volatility(phi, sigma, v, delta);
    let phi_star = (phi * phi + new_sigma * new_sigma).sqrt();
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * g * (score - e);
    Rating {
        rating: new_mu * SCALE + 1500.0,
        deviation: new_phi * SCALE,
        volatility: new_sigma,
    }
}

/// Step 5 of Glicko-2: the new volatility, by the Illinois algorithm.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
    const EPSILON: f64 = 0.000_001;
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    // At most a few dozen rounds in practice; the bound only guards against a pathological input.
    for _ in 0..1000 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

/// A Go rank: kyu (30 kyu, the weakest, to 1 kyu) or dan (1 dan to 9 dan).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rank {
    Kyu(u8),
    Dan(u8),
}

/// Kyu ranks go down to this.
pub const WEAKEST_KYU: u8 = 30;

/// Dan ranks go up to this.
pub const STRONGEST_DAN: u8 = 9;

impl Rank {
    /// The rank of `rating` (see the module's scale).
    pub fn of(rating: f64) -> Rank {
        let steps = ((rating - FIRST_DAN) / POINTS_PER_RANK).floor();
        if steps >= 0.0 {
            Rank::Dan((steps + 1.0).min(f64::from(STRONGEST_DAN)) as u8)
        } else {
            Rank::Kyu((-steps).min(f64::from(WEAKEST_KYU)) as u8)
        }
    }

    /// The lowest rating of this rank (30 kyu's is that of the step above 31 kyu: lower ratings are 30 kyu too).
    pub fn floor(self) -> f64 {
        FIRST_DAN + POINTS_PER_RANK * f64::from(self.ordinal())
    }

    /// The rank's place on one scale: 1 dan is 0, 1 kyu is −1, 2 dan is 1; stronger is greater.
    pub fn ordinal(self) -> i32 {
        match self {
            Rank::Kyu(k) => -i32::from(k),
            Rank::Dan(d) => i32::from(d) - 1,
        }
    }
}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Rank) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rank {
    fn cmp(&self, other: &Rank) -> std::cmp::Ordering {
        self.ordinal().cmp(&other.ordinal())
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rank::Kyu(k) => write!(f, "{k}k"),
            Rank::Dan(d) => write!(f, "{d}d"),
        }
    }
}

/// A rank that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a rank: write 1k to {WEAKEST_KYU}k for kyu or 1d to {STRONGEST_DAN}d for dan"
)]
pub struct RankError(String);

impl FromStr for Rank {
    type Err = RankError;

    /// `6k`, `6 kyu`, `1d`, `1 dan` (any case).
    fn from_str(s: &str) -> Result<Rank, RankError> {
        let bad = || RankError(s.to_owned());
        let t = s.trim().to_ascii_lowercase();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 2 {
            return Err(bad());
        }
        let n: u8 = t[..digits].parse().map_err(|_| bad())?;
        match t[digits..].trim_start() {
            "k" | "kyu" if (1..=WEAKEST_KYU).contains(&n) => Ok(Rank::Kyu(n)),
            "d" | "dan" if (1..=STRONGEST_DAN).contains(&n) => Ok(Rank::Dan(n)),
            _ => Err(bad()),
        }
    }
}
