//! Players' ratings: Glicko-2 (Mark Glickman's system, computed by the `skillratings` crate, as OGS rates its
//! players), with a handicap counted as a rank difference, and the kyu/dan ranks named from ratings.
//!
//! One rating per player, over every board size: a club-sized site has too few games per size for separate
//! ratings to settle, and a player's strength on 9×9 and 19×19 goes together closely enough to start from.
//!
//! Ranks follow the European Go Federation's scale: 100 rating points a rank, 2100 is 1 dan and 2000 is 1 kyu;
//! a new player's 1500 is 6 kyu. Ranks run from 30 kyu to 9 dan; a rating beyond either end is named by the end.

use std::fmt;
use std::str::FromStr;

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

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
    /// A new player's: 1500 ± 350, volatility 0.06.
    fn default() -> Rating {
        Rating::from(Glicko2Rating::new())
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(r: Glicko2Rating) -> Rating {
        Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(r: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
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

/// Both players' ratings after a game between `black` and `white` that ended in `outcome`, Black having taken
/// `handicap` stones (0 for an even game). The handicap counts as a rank difference, as OGS does: each stone
/// is worth [`POINTS_PER_RANK`] to Black for the computation, so a handicap game between players whose ranks
/// differ by as many stones is an even game, and an upset is weighed as such.
pub fn rate(black: Rating, white: Rating, outcome: Outcome, handicap: u8) -> (Rating, Rating) {
    let bonus = POINTS_PER_RANK * f64::from(handicap);
    let mut black = Glicko2Rating::from(black);
    black.rating += bonus;
    let outcome = match outcome {
        Outcome::BlackWins => Outcomes::WIN,
        Outcome::WhiteWins => Outcomes::LOSS,
        Outcome::Draw => Outcomes::DRAW,
    };
    let (mut black, white) = glicko2(&black, &white.into(), &outcome, &Glicko2Config::new());
    black.rating -= bonus;
    (black.into(), white.into())
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
