//! The rule knobs of RULES.md §2 and the value that holds one of each: [`Rules`].
//!
//! Presets (§3), Board Game Arena options (§4) and the spec-string syntax live in `spec.rs`.

use crate::types::Size;

/// Which repetitions are forbidden (RULES.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Only the immediate recapture of a single stone that captured a single stone.
    Simple,
    /// No play may recreate any earlier position (starting position included).
    Positional,
    /// No play may recreate an earlier state (position + colour to move), states after passes included.
    Situational,
    /// No play by X may recreate a position that existed right after an earlier play by X (001 rule 3.5).
    Natural,
}

impl KoRule {
    pub const ALL: [KoRule; 4] = [
        KoRule::Simple,
        KoRule::Positional,
        KoRule::Situational,
        KoRule::Natural,
    ];
}

/// Whether a play that leaves its own chain without liberties is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuicideRule {
    Forbidden,
    /// Allowed only when the chain removed has two or more stones.
    Multi,
    /// Allowed for chains of any size (still subject to the ko rule).
    All,
}

impl SuicideRule {
    pub const ALL: [SuicideRule; 3] =
        [SuicideRule::Forbidden, SuicideRule::Multi, SuicideRule::All];
}

/// How the final position is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoringRule {
    /// Stones plus empty points reaching only that colour (Tromp-Taylor rule 9).
    Area,
    /// Empty points reaching only that colour plus prisoners.
    Territory,
    /// The ideal rules' 5.1 territory: a point may count for both players.
    AreaReach,
    /// Stone scoring (ancient Chinese counting; KataGo's `stone-scoring`): area less two points for each
    /// of a player's groups, a group being the player's stones joined through each other and through the
    /// empty regions only they reach. A living group needs two eyes; the tax takes them back, so that only
    /// stones count for groups with two one-point eyes.
    Stones,
}

/// Territory scoring only: whether an eye of a group in seki counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SekiEyes {
    Count,
    /// Japanese rules: eyes of groups in seki are not territory.
    None,
}

/// Whether a pass hands the opponent a prisoner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassStones {
    Off,
    On,
    /// Only passes made while a disputed position is played out.
    Dispute,
}

/// What two consecutive passes lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndRule {
    /// Score at once, every stone on the board alive.
    Score,
    /// The dead-stone phase of §6.
    Agree,
}

/// Who wins equal totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieRule {
    Draw,
    White,
    /// The player who made the first pass of the game.
    FirstPass,
}

/// How handicap stones are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// GNU Go's star points (§8), then White moves first.
    Fixed,
    /// Black places the stones anywhere, one after another, before White's first turn.
    Free,
    /// The game starts normally; White's first n−1 turns must be passes (001 rule 5.2).
    Passes,
}

/// Points given to White for a handicap of n stones under area scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

/// What happens when a state repeats under simple ko.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repetition {
    None,
    /// The third occurrence of a state ends the game with no result.
    Void,
}

/// Komi per colour, in half-points (so 7.5 is 15). Usually only White's is non-zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Komi {
    pub black: i32,
    pub white: i32,
}

impl Komi {
    /// Komi given to White only, in half-points.
    pub const fn white(half_points: i32) -> Komi {
        Komi {
            black: 0,
            white: half_points,
        }
    }
    /// White's komi minus Black's, in half-points: what a single-number komi means.
    pub fn net(self) -> i32 {
        self.white - self.black
    }
}

/// The named rulesets of RULES.md §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    TrompTaylor,
    Ideal,
    Bga,
    Aga,
    Chinese,
    Japanese,
    Korean,
    NewZealand,
}

/// Board Game Arena's counting option (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BgaCounting {
    Chinese,
    Japanese,
}

/// Board Game Arena's komi-and-handicap option (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BgaKomi {
    None,
    Normal,
    Big,
    /// `h1`..`h9`.
    Handicap(u8),
}

/// The table options of a `bga` game, kept so the spec string can be printed back as the table was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BgaOptions {
    pub counting: BgaCounting,
    pub komi: BgaKomi,
    pub aga: bool,
}

/// A complete ruleset: one value of every knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The preset the knobs started from; overrides may have changed any of them.
    pub preset: Preset,
    pub size: Size,
    pub ko: KoRule,
    pub suicide: SuicideRule,
    pub scoring: ScoringRule,
    pub seki_eyes: SekiEyes,
    pub pass_stones: PassStones,
    pub white_passes_last: bool,
    pub end: EndRule,
    pub komi: Komi,
    pub tie: TieRule,
    /// Number of handicap stones; 0 and 1 both mean an ordinary game with Black first.
    pub handicap: u8,
    pub placement: Placement,
    pub handicap_bonus: HandicapBonus,
    pub repetition: Repetition,
    /// 001 rule 7: a player whose last n turns in a row were self-fills loses (`None` = off).
    pub self_fill: Option<u8>,
    /// §6.4 (the AGA rule, `bga` and `aga`): when the first two turns of a resumption are both passes the game
    /// ends at once with every stone alive. Fixed by the preset.
    pub resume_passes_end: bool,
    /// Set for `bga` only.
    pub bga: Option<BgaOptions>,
}

impl Rules {
    /// The handicap bonus for White in half-points, under area-like scoring.
    pub fn handicap_bonus_half_points(&self) -> i32 {
        let n = self.handicap as i32;
        if n < 2 || self.scoring == ScoringRule::Territory {
            return 0;
        }
        match self.handicap_bonus {
            HandicapBonus::Zero => 0,
            HandicapBonus::N => 2 * n,
            HandicapBonus::NMinusOne => 2 * (n - 1),
        }
    }

    /// Whether handicap stones (or forced passes) are in play.
    pub fn has_handicap(&self) -> bool {
        self.handicap >= 2
    }
}
