//! Presets (RULES.md §3), Board Game Arena table options (§4) and spec strings `PRESET[:KEY=VALUE,...]`.
//!
//! `"chinese:komi=6.5,size=9".parse::<Rules>()` reads a spec; `Rules`'s `Display` prints the canonical spec
//! (the preset, then only the keys that differ from it, in [`Key`] order), which parses back to the same value.

use std::fmt;
use std::str::FromStr;

use crate::rules::{
    BgaCounting, BgaKomi, BgaOptions, EndRule, HandicapBonus, KoRule, Komi, PassStones, Placement,
    Preset, Repetition, Rules, ScoringRule, SekiEyes, SuicideRule, TieRule,
};
use crate::types::Size;

/// The largest komi a spec accepts, in points either way. A board has at most 625 points, so a larger komi
/// could never change a result; the bound keeps every later sum of half-points far from overflow.
pub const MAX_KOMI_POINTS: u32 = 1000;

const PRESET_LIST: &str = "tromp-taylor, ideal, bga, aga, chinese, japanese, korean, new-zealand";
const KEY_LIST: &str = "size, ko, suicide, scoring, seki-eyes, pass-stones, white-passes-last, end, komi, tie, \
                        handicap, placement, handicap-bonus, repetition, self-fill";
const BGA_KEY_LIST: &str = "size, ko, suicide, scoring, seki-eyes, pass-stones, white-passes-last, end, komi, \
                            tie, handicap, placement, handicap-bonus, repetition, self-fill, counting, aga";

/// Echoed input is cut to this many characters so that one bad spec cannot make a huge error line.
const SHOWN_CHARS: usize = 40;

/// Why a rules spec could not be read. Each message is one line naming the offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error(
        "empty rules spec; expected PRESET[:KEY=VALUE,...] such as tromp-taylor or chinese:komi=6.5"
    )]
    Empty,
    #[error("unknown rules preset {0:?}; expected one of: {list}", list = PRESET_LIST)]
    UnknownPreset(String),
    #[error("empty setting in rules spec (a stray ',' or ':'); expected KEY=VALUE")]
    EmptySetting,
    #[error("setting {0:?} has no '='; expected KEY=VALUE")]
    MissingEquals(String),
    #[error("setting {0:?} has no key before '='; expected KEY=VALUE")]
    MissingKey(String),
    #[error("unknown key {key:?} in rules spec; expected one of: {expected}")]
    UnknownKey { key: String, expected: &'static str },
    #[error("key {0:?} is only for the bga preset")]
    BgaOnlyKey(&'static str),
    #[error("duplicate key {0:?}")]
    DuplicateKey(&'static str),
    #[error("bad value {value:?} for {key}; expected {expected}")]
    BadValue {
        key: &'static str,
        value: String,
        expected: String,
    },
    #[error("bad size {0:?}: use a side 1..25 such as 19, or WIDTHxHEIGHT such as 9x13")]
    BadSize(String),
    #[error("bad size {0:?} for bga; expected one of: 9, 13, 19")]
    BgaSize(String),
    #[error("bad komi {0:?}: use a whole or half number such as 7.5, or B0/W7")]
    BadKomi(String),
    #[error(
        "bad komi {0:?} for bga; expected one of: none, normal, big, h1..h9, or a whole or half number such as 7.5, or B0/W7"
    )]
    BadBgaKomi(String),
    #[error("komi {0:?} is out of range: at most {max} points either way", max = MAX_KOMI_POINTS)]
    KomiOutOfRange(String),
}

/// The input as shown in an error message: cut at [`SHOWN_CHARS`] characters.
fn shown(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(SHOWN_CHARS).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// A knob value with a spelling in spec strings.
trait Word: Copy + PartialEq + 'static {
    const ALL: &'static [Self];
    fn word(self) -> &'static str;

    /// `lower` must already be ASCII-lowercased.
    fn from_word(lower: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|w| w.word() == lower)
    }

    fn expected() -> String {
        let words: Vec<&str> = Self::ALL.iter().map(|w| w.word()).collect();
        format!("one of: {}", words.join(", "))
    }
}

macro_rules! words {
    ($t:ident { $($v:ident => $w:literal),* $(,)? }) => {
        impl Word for $t {
            const ALL: &'static [Self] = &[$($t::$v),*];
            fn word(self) -> &'static str {
                match self {
                    $($t::$v => $w),*
                }
            }
        }
    };
}

words!(KoRule { Simple => "simple", Positional => "positional", Situational => "situational", Natural => "natural" });
words!(SuicideRule { Forbidden => "forbidden", Multi => "multi", All => "all" });
words!(ScoringRule { Area => "area", Territory => "territory", AreaReach => "area-reach", Stones => "stones" });
words!(SekiEyes { Count => "count", None => "none" });
words!(PassStones { Off => "off", On => "on", Dispute => "dispute" });
words!(EndRule { Score => "score", Agree => "agree" });
words!(TieRule { Draw => "draw", White => "white", FirstPass => "first-pass" });
words!(Placement { Fixed => "fixed", Free => "free", Passes => "passes" });
words!(HandicapBonus { Zero => "0", N => "n", NMinusOne => "n-1" });
words!(Repetition { None => "none", Void => "void" });
words!(BgaCounting { Chinese => "chinese", Japanese => "japanese" });

/// A spec key. The declaration order is the canonical print order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Size,
    Ko,
    Suicide,
    Scoring,
    SekiEyes,
    PassStones,
    WhitePassesLast,
    End,
    Komi,
    Tie,
    Handicap,
    Placement,
    HandicapBonus,
    Repetition,
    SelfFill,
    /// `bga` only.
    Counting,
    /// `bga` only.
    Aga,
}

words!(Key {
    Size => "size",
    Ko => "ko",
    Suicide => "suicide",
    Scoring => "scoring",
    SekiEyes => "seki-eyes",
    PassStones => "pass-stones",
    WhitePassesLast => "white-passes-last",
    End => "end",
    Komi => "komi",
    Tie => "tie",
    Handicap => "handicap",
    Placement => "placement",
    HandicapBonus => "handicap-bonus",
    Repetition => "repetition",
    SelfFill => "self-fill",
    Counting => "counting",
    Aga => "aga",
});

impl Key {
    /// Every key, in canonical order.
    pub const ALL: [Key; 17] = [
        Key::Size,
        Key::Ko,
        Key::Suicide,
        Key::Scoring,
        Key::SekiEyes,
        Key::PassStones,
        Key::WhitePassesLast,
        Key::End,
        Key::Komi,
        Key::Tie,
        Key::Handicap,
        Key::Placement,
        Key::HandicapBonus,
        Key::Repetition,
        Key::SelfFill,
        Key::Counting,
        Key::Aga,
    ];

    /// The key as written in a spec.
    pub fn name(self) -> &'static str {
        self.word()
    }

    /// Keys that only the `bga` preset accepts.
    pub fn bga_only(self) -> bool {
        matches!(self, Key::Counting | Key::Aga)
    }
}

impl Preset {
    /// Every preset, in the order of RULES.md §3.
    pub const ALL: [Preset; 8] = [
        Preset::TrompTaylor,
        Preset::Ideal,
        Preset::Bga,
        Preset::Aga,
        Preset::Chinese,
        Preset::Japanese,
        Preset::Korean,
        Preset::NewZealand,
    ];

    /// The preset's name in spec strings.
    pub fn name(self) -> &'static str {
        match self {
            Preset::TrompTaylor => "tromp-taylor",
            Preset::Ideal => "ideal",
            Preset::Bga => "bga",
            Preset::Aga => "aga",
            Preset::Chinese => "chinese",
            Preset::Japanese => "japanese",
            Preset::Korean => "korean",
            Preset::NewZealand => "new-zealand",
        }
    }

    /// The preset with this name; case-insensitive, surrounding whitespace ignored.
    pub fn from_name(name: &str) -> Option<Preset> {
        let lower = name.trim().to_ascii_lowercase();
        Preset::ALL.into_iter().find(|p| p.name() == lower)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Preset, SpecError> {
        Preset::from_name(s).ok_or_else(|| SpecError::UnknownPreset(shown(s.trim())))
    }
}

/// §4: 19×19, japanese counting, normal komi, AGA rules on.
impl Default for BgaOptions {
    fn default() -> Self {
        BgaOptions {
            counting: BgaCounting::Japanese,
            komi: BgaKomi::Normal,
            aga: true,
        }
    }
}

impl BgaKomi {
    /// The option as written in a spec: `none`, `normal`, `big`, `h1`..`h9`.
    pub fn name(self) -> String {
        match self {
            BgaKomi::None => "none".to_string(),
            BgaKomi::Normal => "normal".to_string(),
            BgaKomi::Big => "big".to_string(),
            BgaKomi::Handicap(n) => format!("h{n}"),
        }
    }

    /// `lower` must already be ASCII-lowercased.
    fn from_name(lower: &str) -> Option<BgaKomi> {
        match lower {
            "none" => Some(BgaKomi::None),
            "normal" => Some(BgaKomi::Normal),
            "big" => Some(BgaKomi::Big),
            _ => {
                let n = lower.strip_prefix('h')?;
                // One digit 1..9 only: `h01` or `h+1` are not BGA options.
                match n.as_bytes() {
                    [d @ b'1'..=b'9'] => Some(BgaKomi::Handicap(d - b'0')),
                    _ => None,
                }
            }
        }
    }

    /// White's komi in half-points, White's tie-winning half point folded in (§4).
    pub fn komi_half_points(self, size: Size) -> i32 {
        match self {
            BgaKomi::None | BgaKomi::Handicap(_) => 1,
            BgaKomi::Normal if size == Size::STANDARD => 9,
            BgaKomi::Normal => 11,
            BgaKomi::Big => 15,
        }
    }
}

/// BGA offers only these boards.
fn bga_size_ok(size: Size) -> bool {
    size.width() == size.height() && matches!(size.width(), 9 | 13 | 19)
}

/// A preset's knobs on a given board; for `bga`, derived from the table options (size is not checked here).
fn base_rules(preset: Preset, size: Size, bga: BgaOptions) -> Rules {
    let mut r = Rules {
        preset,
        size,
        ko: KoRule::Positional,
        suicide: SuicideRule::All,
        scoring: ScoringRule::Area,
        seki_eyes: SekiEyes::Count,
        pass_stones: PassStones::Off,
        white_passes_last: false,
        end: EndRule::Score,
        komi: Komi::default(),
        tie: TieRule::Draw,
        handicap: 0,
        placement: Placement::Fixed,
        handicap_bonus: HandicapBonus::Zero,
        repetition: Repetition::None,
        self_fill: None,
        resume_passes_end: false,
        bga: None,
    };
    match preset {
        Preset::TrompTaylor => {}
        Preset::Ideal => {
            r.ko = KoRule::Natural;
            r.scoring = ScoringRule::AreaReach;
            r.end = EndRule::Agree;
            r.tie = TieRule::FirstPass;
            r.komi = Komi::white(14);
            r.placement = Placement::Passes;
        }
        Preset::Bga => {
            r.ko = KoRule::Situational;
            r.suicide = SuicideRule::Forbidden;
            r.end = EndRule::Agree;
            r.tie = TieRule::White;
            r.resume_passes_end = true;
            r.bga = Some(bga);
            // §4: a region bordered by one colour counts, the eyes of a seki included; only a region that
            // touches both colours counts for nobody. That holds with AGA rules on and off.
            r.scoring = match bga.counting {
                BgaCounting::Chinese => ScoringRule::Area,
                BgaCounting::Japanese => ScoringRule::Territory,
            };
            r.seki_eyes = SekiEyes::Count;
            r.komi = Komi::white(bga.komi.komi_half_points(size));
            r.handicap = match bga.komi {
                BgaKomi::Handicap(n) => n,
                _ => 0,
            };
            (r.pass_stones, r.white_passes_last, r.handicap_bonus) = if bga.aga {
                (PassStones::On, true, HandicapBonus::NMinusOne)
            } else {
                (PassStones::Dispute, false, HandicapBonus::Zero)
            };
        }
        Preset::Aga => {
            r.ko = KoRule::Situational;
            r.suicide = SuicideRule::Forbidden;
            r.end = EndRule::Agree;
            r.pass_stones = PassStones::On;
            r.white_passes_last = true;
            r.komi = Komi::white(15);
            r.handicap_bonus = HandicapBonus::NMinusOne;
            r.resume_passes_end = true;
        }
        Preset::Chinese => {
            r.suicide = SuicideRule::Forbidden;
            r.end = EndRule::Agree;
            r.komi = Komi::white(15);
            r.placement = Placement::Free;
            r.handicap_bonus = HandicapBonus::N;
        }
        Preset::Japanese | Preset::Korean => {
            r.ko = KoRule::Simple;
            r.repetition = Repetition::Void;
            r.suicide = SuicideRule::Forbidden;
            r.scoring = ScoringRule::Territory;
            r.seki_eyes = SekiEyes::None;
            r.end = EndRule::Agree;
            r.komi = Komi::white(13);
        }
        Preset::NewZealand => {
            r.ko = KoRule::Situational;
            r.suicide = SuicideRule::Multi;
            r.end = EndRule::Agree;
            r.komi = Komi::white(14);
            r.placement = Placement::Free;
        }
    }
    r
}

/// The komi a spec without `komi` gives: the preset's, except that under `ideal` (001 rules 5.3–5.5) a
/// handicap game is a no-komi game.
fn unset_komi(base: &Rules, handicap: u8) -> Komi {
    if base.preset == Preset::Ideal && handicap >= 1 {
        Komi::default()
    } else {
        base.komi
    }
}

impl Rules {
    /// The knobs of a preset (RULES.md §3) on 19×19; `bga` with its default table options (§4).
    pub fn preset(preset: Preset) -> Rules {
        base_rules(preset, Size::STANDARD, BgaOptions::default())
    }

    /// A Board Game Arena table (§4); the size must be 9, 13 or 19.
    pub fn bga(size: Size, options: BgaOptions) -> Result<Rules, SpecError> {
        if !bga_size_ok(size) {
            return Err(SpecError::BgaSize(size.to_string()));
        }
        if matches!(options.komi, BgaKomi::Handicap(n) if !(1..=9).contains(&n)) {
            return Err(SpecError::BadBgaKomi(options.komi.name()));
        }
        Ok(base_rules(Preset::Bga, size, options))
    }
}

/// Tromp-Taylor, the rules the engine is built on.
impl Default for Rules {
    fn default() -> Self {
        Rules::preset(Preset::TrompTaylor)
    }
}

/// Digits only: `str::parse` alone would also take a leading `+`.
fn parse_digits<T: FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `19` or `9x13` (already lowercased).
fn parse_size(lower: &str) -> Option<Size> {
    match lower.split_once('x') {
        Some((w, h)) => Size::new(parse_digits(w)?, parse_digits(h)?),
        None => Size::square(parse_digits(lower)?),
    }
}

enum KomiError {
    Bad,
    OutOfRange,
}

/// `7`, `7.5`, `-3`, `7.0` → half-points.
fn parse_half_points(text: &str) -> Result<i32, KomiError> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(KomiError::Bad);
    }
    let half = match frac {
        None => 0,
        Some(f) if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(KomiError::Bad);
        }
        Some(f) => match f.trim_end_matches('0') {
            "" => 0,
            "5" => 1,
            _ => return Err(KomiError::Bad),
        },
    };
    // Only digits are left, so a parse failure is an overflow.
    let whole: u32 = whole.parse().map_err(|_| KomiError::OutOfRange)?;
    if whole > MAX_KOMI_POINTS || (whole == MAX_KOMI_POINTS && half == 1) {
        return Err(KomiError::OutOfRange);
    }
    // Bounded by MAX_KOMI_POINTS above, so this fits i32.
    let halves = (2 * whole + half) as i32;
    Ok(if negative { -halves } else { halves })
}

/// `7.5` (White's komi) or `b0/w7` (per player), already lowercased.
fn parse_komi(lower: &str) -> Result<Komi, KomiError> {
    match lower.strip_prefix('b') {
        Some(rest) => {
            let (black, white) = rest.split_once('/').ok_or(KomiError::Bad)?;
            let white = white.strip_prefix('w').ok_or(KomiError::Bad)?;
            Ok(Komi {
                black: parse_half_points(black)?,
                white: parse_half_points(white)?,
            })
        }
        None => Ok(Komi::white(parse_half_points(lower)?)),
    }
}

fn fmt_half_points(half_points: i32) -> String {
    let sign = if half_points < 0 { "-" } else { "" };
    let abs = half_points.unsigned_abs();
    let frac = if abs % 2 == 1 { ".5" } else { "" };
    format!("{sign}{}{frac}", abs / 2)
}

/// `7.5` when only White has komi, else `B0.5/W7`.
fn fmt_komi(komi: Komi) -> String {
    if komi.black == 0 {
        fmt_half_points(komi.white)
    } else {
        format!(
            "B{}/W{}",
            fmt_half_points(komi.black),
            fmt_half_points(komi.white)
        )
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// Whether a spec string gives `key` itself (`size=...`, `komi=...`), whatever its value: what the user stated,
/// as against what the preset implies. The spec need not be valid.
pub fn sets_key(spec: &str, key: &str) -> bool {
    spec.split_once(':').is_some_and(|(_, settings)| {
        settings.split(',').any(|kv| {
            kv.split_once('=')
                .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case(key))
        })
    })
}

/// The spec with `size=` added (`9`, or `9x13` for a rectangle), for reading it at a given board size.
pub fn with_size(spec: &str, size: Size) -> String {
    let side = if size.width() == size.height() {
        size.width().to_string()
    } else {
        format!("{}x{}", size.width(), size.height())
    };
    match spec.split_once(':') {
        Some(_) => format!("{spec},size={side}"),
        None => format!("{spec}:size={side}"),
    }
}

/// What a spec set; `None` = not given.
#[derive(Default)]
struct Settings {
    size: Option<Size>,
    ko: Option<KoRule>,
    suicide: Option<SuicideRule>,
    scoring: Option<ScoringRule>,
    seki_eyes: Option<SekiEyes>,
    pass_stones: Option<PassStones>,
    white_passes_last: Option<bool>,
    end: Option<EndRule>,
    komi: Option<Komi>,
    tie: Option<TieRule>,
    handicap: Option<u8>,
    placement: Option<Placement>,
    handicap_bonus: Option<HandicapBonus>,
    repetition: Option<Repetition>,
    self_fill: Option<Option<u8>>,
    counting: Option<BgaCounting>,
    bga_komi: Option<BgaKomi>,
    aga: Option<bool>,
}

fn word<T: Word>(key: Key, value: &str, lower: &str) -> Result<T, SpecError> {
    T::from_word(lower).ok_or_else(|| SpecError::BadValue {
        key: key.name(),
        value: shown(value),
        expected: T::expected(),
    })
}

fn switch(key: Key, value: &str, lower: &str) -> Result<bool, SpecError> {
    match lower {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(SpecError::BadValue {
            key: key.name(),
            value: shown(value),
            expected: "one of: on, off".to_string(),
        }),
    }
}

impl Settings {
    /// Reads one value; `value` is trimmed.
    fn set(&mut self, preset: Preset, key: Key, value: &str) -> Result<(), SpecError> {
        let lower = value.to_ascii_lowercase();
        let lower = lower.as_str();
        let bad = |expected: &str| SpecError::BadValue {
            key: key.name(),
            value: shown(value),
            expected: expected.to_string(),
        };
        match key {
            Key::Size => {
                let size = parse_size(lower).ok_or_else(|| SpecError::BadSize(shown(value)))?;
                if preset == Preset::Bga && !bga_size_ok(size) {
                    return Err(SpecError::BgaSize(shown(value)));
                }
                self.size = Some(size);
            }
            Key::Ko => self.ko = Some(word(key, value, lower)?),
            Key::Suicide => self.suicide = Some(word(key, value, lower)?),
            Key::Scoring => self.scoring = Some(word(key, value, lower)?),
            Key::SekiEyes => self.seki_eyes = Some(word(key, value, lower)?),
            Key::PassStones => self.pass_stones = Some(word(key, value, lower)?),
            Key::WhitePassesLast => self.white_passes_last = Some(switch(key, value, lower)?),
            Key::End => self.end = Some(word(key, value, lower)?),
            Key::Komi => {
                let is_bga = preset == Preset::Bga;
                if let Some(option) = BgaKomi::from_name(lower).filter(|_| is_bga) {
                    self.bga_komi = Some(option);
                } else {
                    self.komi = Some(parse_komi(lower).map_err(|e| match e {
                        KomiError::OutOfRange => SpecError::KomiOutOfRange(shown(value)),
                        KomiError::Bad if is_bga => SpecError::BadBgaKomi(shown(value)),
                        KomiError::Bad => SpecError::BadKomi(shown(value)),
                    })?);
                }
            }
            Key::Tie => self.tie = Some(word(key, value, lower)?),
            Key::Handicap => {
                let n = parse_digits::<u8>(lower)
                    .filter(|n| *n <= 9)
                    .ok_or_else(|| bad("a number of stones 0..9"))?;
                self.handicap = Some(n);
            }
            Key::Placement => self.placement = Some(word(key, value, lower)?),
            Key::HandicapBonus => self.handicap_bonus = Some(word(key, value, lower)?),
            Key::Repetition => self.repetition = Some(word(key, value, lower)?),
            Key::SelfFill => {
                let limit = if lower == "off" {
                    None
                } else {
                    let n = parse_digits::<u8>(lower)
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| bad("off or a count 1..255"))?;
                    Some(n)
                };
                self.self_fill = Some(limit);
            }
            Key::Counting => self.counting = Some(word(key, value, lower)?),
            Key::Aga => self.aga = Some(switch(key, value, lower)?),
        }
        Ok(())
    }

    /// The preset, then the bga options (which derive knobs, after the size), then the generic keys.
    fn build(self, preset: Preset) -> Rules {
        let defaults = BgaOptions::default();
        let bga = BgaOptions {
            counting: self.counting.unwrap_or(defaults.counting),
            komi: self.bga_komi.unwrap_or(defaults.komi),
            aga: self.aga.unwrap_or(defaults.aga),
        };
        let mut r = base_rules(preset, self.size.unwrap_or(Size::STANDARD), bga);
        macro_rules! apply {
            ($($field:ident),*) => { $(if let Some(v) = self.$field { r.$field = v; })* };
        }
        apply!(
            ko,
            suicide,
            scoring,
            seki_eyes,
            pass_stones,
            white_passes_last,
            end,
            tie,
            handicap,
            placement,
            handicap_bonus,
            repetition,
            self_fill
        );
        r.komi = self.komi.unwrap_or_else(|| unset_komi(&r, r.handicap));
        r
    }
}

/// Reads `PRESET[:KEY=VALUE,...]`. Preset names, keys and values are case-insensitive; whitespace around
/// each token is ignored; each key at most once.
impl FromStr for Rules {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<Rules, SpecError> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(SpecError::Empty);
        }
        let (name, settings) = match spec.split_once(':') {
            Some((name, settings)) => (name, Some(settings)),
            None => (spec, None),
        };
        let preset: Preset = name.parse()?;
        let mut given = Settings::default();
        let mut seen = [false; Key::ALL.len()];
        for piece in settings.into_iter().flat_map(|s| s.split(',')) {
            let piece = piece.trim();
            if piece.is_empty() {
                return Err(SpecError::EmptySetting);
            }
            let (key_text, value) = piece
                .split_once('=')
                .ok_or_else(|| SpecError::MissingEquals(shown(piece)))?;
            let key_text = key_text.trim();
            if key_text.is_empty() {
                return Err(SpecError::MissingKey(shown(piece)));
            }
            let key = Key::from_word(&key_text.to_ascii_lowercase()).ok_or_else(|| {
                SpecError::UnknownKey {
                    key: shown(key_text),
                    expected: if preset == Preset::Bga {
                        BGA_KEY_LIST
                    } else {
                        KEY_LIST
                    },
                }
            })?;
            if key.bga_only() && preset != Preset::Bga {
                return Err(SpecError::BgaOnlyKey(key.name()));
            }
            let seen = &mut seen[key as usize];
            if *seen {
                return Err(SpecError::DuplicateKey(key.name()));
            }
            *seen = true;
            given.set(preset, key, value.trim())?;
        }
        Ok(given.build(preset))
    }
}

/// A generic key's canonical value text (not `counting`/`aga`, which are bga options, not knobs).
fn value_text(r: &Rules, key: Key) -> String {
    match key {
        Key::Size => r.size.to_string(),
        Key::Ko => r.ko.word().to_string(),
        Key::Suicide => r.suicide.word().to_string(),
        Key::Scoring => r.scoring.word().to_string(),
        Key::SekiEyes => r.seki_eyes.word().to_string(),
        Key::PassStones => r.pass_stones.word().to_string(),
        Key::WhitePassesLast => on_off(r.white_passes_last).to_string(),
        Key::End => r.end.word().to_string(),
        Key::Komi => fmt_komi(r.komi),
        Key::Tie => r.tie.word().to_string(),
        Key::Handicap => r.handicap.to_string(),
        Key::Placement => r.placement.word().to_string(),
        Key::HandicapBonus => r.handicap_bonus.word().to_string(),
        Key::Repetition => r.repetition.word().to_string(),
        Key::SelfFill => r.self_fill.map_or("off".to_string(), |n| n.to_string()),
        Key::Counting | Key::Aga => String::new(),
    }
}

/// The canonical spec. A `Rules` that no spec can express (built by hand: a bga table on another size, bga
/// options together with an overridden komi, ...) prints the nearest spec.
/// Komi as a spec writes it: `7.5` when only White has komi, else `B0.5/W7`.
impl fmt::Display for Komi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fmt_komi(*self))
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let base = if self.preset == Preset::Bga {
            let mut bga = self.bga.unwrap_or_default();
            // A komi other than the option's is an override, which a spec can only give beside `normal`.
            let komi = if self.komi == Komi::white(bga.komi.komi_half_points(self.size)) {
                bga.komi.name()
            } else {
                bga.komi = BgaKomi::Normal;
                fmt_komi(self.komi)
            };
            let counting = bga.counting.word();
            parts.push(format!("size={}", self.size));
            parts.push(format!("counting={counting}"));
            parts.push(format!("komi={komi}"));
            parts.push(format!("aga={}", on_off(bga.aga)));
            base_rules(Preset::Bga, self.size, bga)
        } else {
            let mut base = base_rules(self.preset, Size::STANDARD, BgaOptions::default());
            base.komi = unset_komi(&base, self.handicap);
            base
        };
        for key in Key::ALL {
            let printed = key.bga_only()
                || (self.preset == Preset::Bga && matches!(key, Key::Size | Key::Komi));
            if printed {
                continue;
            }
            let value = value_text(self, key);
            if value != value_text(&base, key) {
                parts.push(format!("{}={value}", key.name()));
            }
        }
        f.write_str(self.preset.name())?;
        if !parts.is_empty() {
            write!(f, ":{}", parts.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(spec: &str) -> Rules {
        match spec.parse::<Rules>() {
            Ok(r) => r,
            Err(e) => panic!("{spec:?} should parse: {e}"),
        }
    }

    fn error(spec: &str) -> String {
        match spec.parse::<Rules>() {
            Ok(r) => panic!("{spec:?} should fail, gave {r:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn size(w: u8, h: u8) -> Size {
        Size::new(w, h).expect("valid test size")
    }

    fn bga(side: u8, counting: BgaCounting, komi: BgaKomi, aga: bool) -> Rules {
        Rules::bga(
            size(side, side),
            BgaOptions {
                counting,
                komi,
                aga,
            },
        )
        .expect("valid bga table")
    }

    /// Canonical printing: parses back to the same value, and printing again gives the same text.
    fn assert_round_trip(r: &Rules) {
        let text = r.to_string();
        let again = text.parse::<Rules>();
        assert_eq!(again, Ok(*r), "{text:?} does not parse back");
        assert_eq!(
            again.map(|a| a.to_string()),
            Ok(text.clone()),
            "{text:?} is not idempotent"
        );
    }

    // ---- §3 presets, cell by cell ----

    #[test]
    fn preset_tromp_taylor() {
        let r = Rules::preset(Preset::TrompTaylor);
        assert_eq!(r.preset, Preset::TrompTaylor);
        assert_eq!(r.size, Size::STANDARD);
        assert_eq!(r.ko, KoRule::Positional);
        assert_eq!(r.suicide, SuicideRule::All);
        assert_eq!(r.scoring, ScoringRule::Area);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        assert_eq!(r.pass_stones, PassStones::Off);
        assert!(!r.white_passes_last);
        assert_eq!(r.end, EndRule::Score);
        assert_eq!(r.komi, Komi { black: 0, white: 0 });
        assert_eq!(r.tie, TieRule::Draw);
        assert_eq!(r.handicap, 0);
        assert_eq!(r.placement, Placement::Fixed);
        assert_eq!(r.handicap_bonus, HandicapBonus::Zero);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(!r.resume_passes_end);
        assert_eq!(r.bga, None);
        assert_eq!(Rules::default(), r);
    }

    #[test]
    fn preset_ideal() {
        let r = Rules::preset(Preset::Ideal);
        assert_eq!(r.size, Size::STANDARD);
        assert_eq!(r.ko, KoRule::Natural);
        assert_eq!(r.suicide, SuicideRule::All);
        assert_eq!(r.scoring, ScoringRule::AreaReach);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        assert_eq!(r.pass_stones, PassStones::Off);
        assert!(!r.white_passes_last);
        assert_eq!(r.end, EndRule::Agree);
        assert_eq!(
            r.komi,
            Komi {
                black: 0,
                white: 14
            }
        );
        assert_eq!(r.tie, TieRule::FirstPass);
        assert_eq!(r.handicap, 0);
        assert_eq!(r.placement, Placement::Passes);
        assert_eq!(r.handicap_bonus, HandicapBonus::Zero);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(
            !r.resume_passes_end,
            "§6.4: ideal always goes back to stone removal"
        );
        assert_eq!(r.bga, None);
    }

    #[test]
    fn preset_bga_defaults() {
        let r = Rules::preset(Preset::Bga);
        assert_eq!(r.size, Size::STANDARD);
        assert_eq!(r.ko, KoRule::Situational);
        assert_eq!(r.suicide, SuicideRule::Forbidden);
        // japanese counting by default, with AGA rules on: seki eyes count
        assert_eq!(r.scoring, ScoringRule::Territory);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        // AGA rules on by default
        assert_eq!(r.pass_stones, PassStones::On);
        assert!(r.white_passes_last);
        assert_eq!(r.handicap_bonus, HandicapBonus::NMinusOne);
        assert_eq!(r.end, EndRule::Agree);
        // normal komi on 19x19: 4, plus White's tie-break half point
        assert_eq!(r.komi, Komi::white(9));
        assert_eq!(r.tie, TieRule::White);
        assert_eq!(r.handicap, 0);
        assert_eq!(r.placement, Placement::Fixed);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(r.resume_passes_end);
        assert_eq!(
            r.bga,
            Some(BgaOptions {
                counting: BgaCounting::Japanese,
                komi: BgaKomi::Normal,
                aga: true
            })
        );
        assert_eq!(parse("bga"), r);
    }

    #[test]
    fn preset_aga() {
        let r = Rules::preset(Preset::Aga);
        assert_eq!(r.size, Size::STANDARD);
        assert_eq!(r.ko, KoRule::Situational);
        assert_eq!(r.suicide, SuicideRule::Forbidden);
        assert_eq!(r.scoring, ScoringRule::Area);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        assert_eq!(r.pass_stones, PassStones::On);
        assert!(r.white_passes_last);
        assert_eq!(r.end, EndRule::Agree);
        assert_eq!(r.komi, Komi::white(15));
        assert_eq!(r.tie, TieRule::Draw);
        assert_eq!(r.handicap, 0);
        assert_eq!(r.placement, Placement::Fixed);
        assert_eq!(r.handicap_bonus, HandicapBonus::NMinusOne);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(r.resume_passes_end);
        assert_eq!(r.bga, None);
    }

    #[test]
    fn preset_chinese() {
        let r = Rules::preset(Preset::Chinese);
        assert_eq!(r.ko, KoRule::Positional);
        assert_eq!(r.suicide, SuicideRule::Forbidden);
        assert_eq!(r.scoring, ScoringRule::Area);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        assert_eq!(r.pass_stones, PassStones::Off);
        assert!(!r.white_passes_last);
        assert_eq!(r.end, EndRule::Agree);
        assert_eq!(r.komi, Komi::white(15));
        assert_eq!(r.tie, TieRule::Draw);
        assert_eq!(r.placement, Placement::Free);
        assert_eq!(r.handicap_bonus, HandicapBonus::N);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(!r.resume_passes_end);
        assert_eq!(r.bga, None);
    }

    #[test]
    fn preset_japanese_and_korean() {
        for preset in [Preset::Japanese, Preset::Korean] {
            let r = Rules::preset(preset);
            assert_eq!(r.preset, preset);
            assert_eq!(r.ko, KoRule::Simple);
            assert_eq!(r.repetition, Repetition::Void);
            assert_eq!(r.suicide, SuicideRule::Forbidden);
            assert_eq!(r.scoring, ScoringRule::Territory);
            assert_eq!(r.seki_eyes, SekiEyes::None);
            assert_eq!(r.pass_stones, PassStones::Off);
            assert!(!r.white_passes_last);
            assert_eq!(r.end, EndRule::Agree);
            assert_eq!(r.komi, Komi::white(13));
            assert_eq!(r.tie, TieRule::Draw);
            assert_eq!(r.placement, Placement::Fixed);
            assert_eq!(r.handicap_bonus, HandicapBonus::Zero);
            assert_eq!(r.self_fill, None);
            assert!(!r.resume_passes_end);
            assert_eq!(r.bga, None);
        }
        let (j, k) = (
            Rules::preset(Preset::Japanese),
            Rules::preset(Preset::Korean),
        );
        assert_eq!(
            Rules {
                preset: Preset::Korean,
                ..j
            },
            k
        );
    }

    #[test]
    fn preset_new_zealand() {
        let r = Rules::preset(Preset::NewZealand);
        assert_eq!(r.ko, KoRule::Situational);
        assert_eq!(r.suicide, SuicideRule::Multi);
        assert_eq!(r.scoring, ScoringRule::Area);
        assert_eq!(r.seki_eyes, SekiEyes::Count);
        assert_eq!(r.pass_stones, PassStones::Off);
        assert_eq!(r.end, EndRule::Agree);
        // a whole komi: ties are possible and drawn
        assert_eq!(r.komi, Komi::white(14));
        assert_eq!(r.tie, TieRule::Draw);
        assert_eq!(r.placement, Placement::Free);
        assert_eq!(r.handicap_bonus, HandicapBonus::Zero);
        assert_eq!(r.repetition, Repetition::None);
        assert_eq!(r.self_fill, None);
        assert!(!r.resume_passes_end);
        assert_eq!(r.bga, None);
    }

    #[test]
    fn preset_names() {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.join(", "), PRESET_LIST);
        for p in Preset::ALL {
            assert_eq!(Preset::from_name(p.name()), Some(p));
            assert_eq!(Preset::from_name(&p.name().to_ascii_uppercase()), Some(p));
            assert_eq!(p.to_string().parse::<Preset>(), Ok(p));
            assert_eq!(parse(p.name()), Rules::preset(p));
            assert_eq!(Rules::preset(p).preset, p);
            assert_eq!(Rules::preset(p).size, Size::STANDARD);
            assert_eq!(Rules::preset(p).bga.is_some(), p == Preset::Bga);
            assert_eq!(
                Rules::preset(p).resume_passes_end,
                matches!(p, Preset::Bga | Preset::Aga)
            );
        }
        assert_eq!(Preset::from_name("tromp"), None);
    }

    #[test]
    fn key_lists_match_the_keys() {
        let generic: Vec<&str> = Key::ALL
            .iter()
            .filter(|k| !k.bga_only())
            .map(|k| k.name())
            .collect();
        assert_eq!(generic.join(", "), KEY_LIST);
        let all: Vec<&str> = Key::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(all.join(", "), BGA_KEY_LIST);
        for (i, k) in Key::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i, "Key::ALL must follow the declaration order");
        }
    }

    // ---- §4 Board Game Arena ----

    #[test]
    fn bga_komi_per_size_and_option() {
        use BgaKomi::*;
        // (option, 9x9, 13x13, 19x19) in half-points, White's tie-break half point included
        let table = [(None, 1, 1, 1), (Normal, 11, 11, 9), (Big, 15, 15, 15)];
        for (option, k9, k13, k19) in table {
            for (side, want) in [(9, k9), (13, k13), (19, k19)] {
                for counting in [BgaCounting::Chinese, BgaCounting::Japanese] {
                    for aga in [true, false] {
                        let r = bga(side, counting, option, aga);
                        assert_eq!(r.komi, Komi::white(want), "{option:?} on {side}");
                        assert_eq!(r.handicap, 0);
                        assert_eq!(r.tie, TieRule::White);
                    }
                }
            }
        }
        assert_eq!(parse("bga:komi=none").komi, Komi::white(1));
        assert_eq!(parse("bga:komi=normal").komi, Komi::white(9));
        assert_eq!(parse("bga:komi=normal,size=13").komi, Komi::white(11));
        assert_eq!(parse("bga:size=9").komi, Komi::white(11));
        assert_eq!(parse("bga:komi=big,size=9").komi, Komi::white(15));
    }

    #[test]
    fn bga_handicap_options() {
        // h1: Black first with no stones, komi 0.5
        let h1 = parse("bga:komi=h1");
        assert_eq!(h1.handicap, 1);
        assert!(!h1.has_handicap());
        assert_eq!(h1.komi, Komi::white(1));
        assert_eq!(h1.bga.map(|b| b.komi), Some(BgaKomi::Handicap(1)));
        // h2..h9: that many fixed stones, White first, komi 0.5
        for n in 2..=9u8 {
            for side in [9, 13, 19] {
                let r = parse(&format!("bga:komi=H{n},size={side}"));
                assert_eq!(r.handicap, n);
                assert!(r.has_handicap());
                assert_eq!(r.placement, Placement::Fixed);
                assert_eq!(r.komi, Komi::white(1));
                assert_eq!(r.bga.map(|b| b.komi), Some(BgaKomi::Handicap(n)));
            }
        }
        for bad in ["h0", "h10", "h", "h01", "h+1"] {
            assert!(
                error(&format!("bga:komi={bad}")).starts_with("bad komi"),
                "{bad}"
            );
        }
    }

    #[test]
    fn keys_a_spec_sets() {
        assert!(sets_key("chinese:size=9", "size"));
        assert!(sets_key("chinese: komi=6.5 , SIZE = 9", "size"));
        assert!(!sets_key("chinese:komi=6.5", "size"));
        assert!(!sets_key("chinese", "size"));
        assert!(sets_key("bga:komi=normal", "komi"));
        assert!(!sets_key("bga:size=9", "komi"));
    }

    #[test]
    fn bga_counting() {
        let chinese = parse("bga:counting=chinese");
        assert_eq!(chinese.scoring, ScoringRule::Area);
        assert_eq!(chinese.seki_eyes, SekiEyes::Count);
        // §4: the eyes of a seki count under territory counting too, with AGA rules on or off.
        for aga in ["on", "off"] {
            let japanese = parse(&format!("bga:counting=japanese,aga={aga}"));
            assert_eq!(japanese.scoring, ScoringRule::Territory);
            assert_eq!(japanese.seki_eyes, SekiEyes::Count, "aga={aga}");
        }
    }

    #[test]
    fn bga_aga_on_and_off() {
        let on = parse("bga:aga=on,komi=h4,counting=chinese");
        assert_eq!(on.pass_stones, PassStones::On);
        assert!(on.white_passes_last);
        assert_eq!(on.handicap_bonus, HandicapBonus::NMinusOne);
        assert_eq!(
            on.handicap_bonus_half_points(),
            6,
            "n-1 = 3 points for 4 stones"
        );
        assert!(on.resume_passes_end);

        let off = parse("bga:aga=off,komi=h4,counting=chinese");
        assert_eq!(off.pass_stones, PassStones::Dispute);
        assert!(!off.white_passes_last);
        assert_eq!(off.handicap_bonus, HandicapBonus::Zero);
        assert_eq!(off.handicap_bonus_half_points(), 0);
        // §6.4 is the preset's, not the AGA option's
        assert!(off.resume_passes_end);

        // under territory counting the bonus knob is still n-1, but gives nothing
        let territory = parse("bga:komi=h4");
        assert_eq!(territory.handicap_bonus, HandicapBonus::NMinusOne);
        assert_eq!(territory.handicap_bonus_half_points(), 0);
    }

    #[test]
    fn bga_sizes_are_9_13_19() {
        for side in [9, 13, 19] {
            assert_eq!(parse(&format!("bga:size={side}")).size, size(side, side));
        }
        assert_eq!(parse("bga:size=13x13").size, size(13, 13));
        assert_eq!(
            error("bga:size=15"),
            r#"bad size "15" for bga; expected one of: 9, 13, 19"#
        );
        assert_eq!(
            error("bga:size=9x13"),
            r#"bad size "9x13" for bga; expected one of: 9, 13, 19"#
        );
        let opts = BgaOptions::default();
        assert_eq!(
            Rules::bga(size(15, 15), opts),
            Err(SpecError::BgaSize("15".into()))
        );
        let h0 = BgaOptions {
            komi: BgaKomi::Handicap(0),
            ..opts
        };
        assert!(Rules::bga(Size::STANDARD, h0).is_err());
        // the spec size is applied before `normal` komi is derived, whatever the key order
        assert_eq!(
            parse("bga:komi=normal,size=9"),
            parse("bga:size=9,komi=normal")
        );
    }

    #[test]
    fn bga_generic_keys_override_derived_knobs() {
        let r = parse(
            "bga:counting=chinese,scoring=territory,komi=h3,handicap=5,pass-stones=off,tie=draw",
        );
        assert_eq!(r.scoring, ScoringRule::Territory);
        assert_eq!(r.handicap, 5);
        assert_eq!(r.pass_stones, PassStones::Off);
        assert_eq!(r.tie, TieRule::Draw);
        assert_eq!(r.bga.map(|b| b.counting), Some(BgaCounting::Chinese));
        // a numeric komi is a plain override; the table option stays the default
        let r = parse("bga:komi=6.5");
        assert_eq!(r.komi, Komi::white(13));
        assert_eq!(r.bga.map(|b| b.komi), Some(BgaKomi::Normal));
        assert_eq!(
            parse("bga:komi=B1/W7").komi,
            Komi {
                black: 2,
                white: 14
            }
        );
    }

    // ---- the ideal rules' handicap komi ----

    #[test]
    fn ideal_handicap_komi() {
        assert_eq!(
            parse("ideal").komi,
            Komi {
                black: 0,
                white: 14
            }
        );
        assert_eq!(
            parse("ideal:handicap=0").komi,
            Komi {
                black: 0,
                white: 14
            }
        );
        for n in 1..=9 {
            let r = parse(&format!("ideal:handicap={n}"));
            assert_eq!(r.komi, Komi { black: 0, white: 0 }, "handicap {n}");
            assert_eq!(r.handicap, n);
            assert_eq!(r.placement, Placement::Passes);
        }
        assert_eq!(parse("ideal:handicap=3,komi=B0/W7").komi, Komi::white(14));
        assert_eq!(parse("ideal:komi=3,handicap=3").komi, Komi::white(6));
        // only ideal has this rule
        assert_eq!(parse("chinese:handicap=3").komi, Komi::white(15));
        assert_eq!(parse("tromp-taylor:handicap=2").komi, Komi::white(0));
    }

    // ---- the examples of the brief ----

    #[test]
    fn examples() {
        assert_eq!(parse("tromp-taylor"), Rules::default());

        let r = parse("tromp-taylor:komi=7.5,size=9");
        assert_eq!(r.komi, Komi::white(15));
        assert_eq!(r.size, size(9, 9));
        assert_eq!(r.to_string(), "tromp-taylor:size=9,komi=7.5");

        let r = parse("ideal:handicap=3");
        assert_eq!((r.handicap, r.komi), (3, Komi::default()));
        assert_eq!(r.to_string(), "ideal:handicap=3");

        let r = parse("bga:size=9,counting=japanese,komi=normal,aga=on");
        assert_eq!(r.size, size(9, 9));
        assert_eq!(r.scoring, ScoringRule::Territory);
        assert_eq!(r.komi, Komi::white(11));
        assert_eq!(r.pass_stones, PassStones::On);
        assert_eq!(
            r.to_string(),
            "bga:size=9,counting=japanese,komi=normal,aga=on"
        );

        let r = parse("chinese:ko=situational,suicide=multi");
        assert_eq!(r.ko, KoRule::Situational);
        assert_eq!(r.suicide, SuicideRule::Multi);
        assert_eq!(r.scoring, ScoringRule::Area);
        assert_eq!(r.to_string(), "chinese:ko=situational,suicide=multi");
    }

    // ---- each key ----

    fn check_words<T: Word + fmt::Debug>(preset: &str, key: &str, get: fn(&Rules) -> T) {
        for &w in T::ALL {
            let r = parse(&format!("{preset}:{key}={}", w.word()));
            assert_eq!(get(&r), w, "{key}={}", w.word());
            let upper = parse(&format!("{preset}:{key}={}", w.word().to_ascii_uppercase()));
            assert_eq!(get(&upper), w);
            assert_round_trip(&r);
        }
        let msg = error(&format!("{preset}:{key}=super"));
        assert_eq!(
            msg,
            format!("bad value \"super\" for {key}; expected {}", T::expected())
        );
    }

    #[test]
    fn every_enum_key_and_value() {
        for preset in ["tromp-taylor", "bga", "japanese"] {
            check_words(preset, "ko", |r| r.ko);
            check_words(preset, "suicide", |r| r.suicide);
            check_words(preset, "scoring", |r| r.scoring);
            check_words(preset, "seki-eyes", |r| r.seki_eyes);
            check_words(preset, "pass-stones", |r| r.pass_stones);
            check_words(preset, "end", |r| r.end);
            check_words(preset, "tie", |r| r.tie);
            check_words(preset, "placement", |r| r.placement);
            check_words(preset, "handicap-bonus", |r| r.handicap_bonus);
            check_words(preset, "repetition", |r| r.repetition);
        }
        check_words("bga", "counting", |r| {
            r.bga.map_or(BgaCounting::Chinese, |b| b.counting)
        });
        assert_eq!(
            error("chinese:ko=super"),
            r#"bad value "super" for ko; expected one of: simple, positional, situational, natural"#
        );
    }

    #[test]
    fn switches_numbers_and_sizes() {
        assert!(parse("tromp-taylor:white-passes-last=on").white_passes_last);
        assert!(!parse("aga:white-passes-last=OFF").white_passes_last);
        assert_eq!(
            error("aga:white-passes-last=yes"),
            r#"bad value "yes" for white-passes-last; expected one of: on, off"#
        );
        assert_eq!(parse("bga:aga=off").bga.map(|b| b.aga), Some(false));
        assert_eq!(
            error("bga:aga=1"),
            r#"bad value "1" for aga; expected one of: on, off"#
        );

        for n in 0..=9 {
            assert_eq!(parse(&format!("chinese:handicap={n}")).handicap, n);
        }
        for bad in ["10", "-1", "+3", "3.0", "", "999999999999999999999"] {
            assert_eq!(
                error(&format!("chinese:handicap={bad}")),
                format!("bad value \"{bad}\" for handicap; expected a number of stones 0..9")
            );
        }

        assert_eq!(parse("ideal:self-fill=10").self_fill, Some(10));
        assert_eq!(parse("ideal:self-fill=255").self_fill, Some(255));
        assert_eq!(parse("ideal:self-fill=1").self_fill, Some(1));
        assert_eq!(parse("ideal:self-fill=Off").self_fill, None);
        for bad in ["0", "256", "on", "-1"] {
            assert_eq!(
                error(&format!("ideal:self-fill={bad}")),
                format!("bad value \"{bad}\" for self-fill; expected off or a count 1..255")
            );
        }

        assert_eq!(parse("chinese:size=9").size, size(9, 9));
        assert_eq!(parse("chinese:size=9x13").size, size(9, 13));
        assert_eq!(parse("chinese:size=9X13").size, size(9, 13));
        assert_eq!(parse("chinese:size=1").size, size(1, 1));
        assert_eq!(parse("chinese:size=25x1").size, size(25, 1));
        assert_eq!(parse("chinese:size=19x19"), Rules::preset(Preset::Chinese));
        for bad in [
            "0",
            "26",
            "9x",
            "x9",
            "9x0",
            "9x26",
            "9x9x9",
            "+9",
            "nine",
            "300",
            "99999999999",
        ] {
            assert_eq!(
                error(&format!("chinese:size={bad}")),
                format!(
                    "bad size \"{bad}\": use a side 1..25 such as 19, or WIDTHxHEIGHT such as 9x13"
                )
            );
        }
    }

    #[test]
    fn komi_forms() {
        let cases = [
            ("7.5", Komi::white(15)),
            ("7", Komi::white(14)),
            ("-3", Komi::white(-6)),
            ("0", Komi::white(0)),
            ("-0", Komi::white(0)),
            ("-0.5", Komi::white(-1)),
            ("7.0", Komi::white(14)),
            ("6.50", Komi::white(13)),
            ("1000", Komi::white(2000)),
            ("-1000", Komi::white(-2000)),
            (
                "B0/W7",
                Komi {
                    black: 0,
                    white: 14,
                },
            ),
            (
                "b1.5/w7.5",
                Komi {
                    black: 3,
                    white: 15,
                },
            ),
            (
                "B-1/W0",
                Komi {
                    black: -2,
                    white: 0,
                },
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(&format!("chinese:komi={text}")).komi, want, "{text}");
        }
        for bad in [
            "7.25", "7.", ".5", "seven", "", "+7", "B0", "B0/7", "W7/B0", "B0/W7/", "normal",
            "1e3", "--1",
        ] {
            assert_eq!(
                error(&format!("chinese:komi={bad}")),
                format!("bad komi \"{bad}\": use a whole or half number such as 7.5, or B0/W7")
            );
        }
        // a comma always separates settings
        assert_eq!(
            error("chinese:komi=7,5"),
            "setting \"5\" has no '='; expected KEY=VALUE"
        );
        for big in [
            "1000.5",
            "1001",
            "-1000.5",
            "99999999999999999999",
            "B0/W2000",
        ] {
            assert_eq!(
                error(&format!("chinese:komi={big}")),
                format!("komi \"{big}\" is out of range: at most 1000 points either way")
            );
        }
        assert_eq!(
            error("bga:komi=huge"),
            "bad komi \"huge\" for bga; expected one of: none, normal, big, h1..h9, or a whole or half number such as 7.5, or B0/W7"
        );
    }

    // ---- errors ----

    #[test]
    fn error_messages() {
        assert_eq!(
            error("tromp"),
            "unknown rules preset \"tromp\"; expected one of: tromp-taylor, ideal, bga, aga, chinese, japanese, korean, new-zealand"
        );
        assert_eq!(
            error(":komi=7"),
            format!("unknown rules preset \"\"; expected one of: {PRESET_LIST}")
        );
        assert_eq!(
            error("chinese:kom=7"),
            format!("unknown key \"kom\" in rules spec; expected one of: {KEY_LIST}")
        );
        assert!(error("chinese:kom=7").contains("size, ko, suicide"));
        assert_eq!(
            error("bga:kom=7"),
            format!("unknown key \"kom\" in rules spec; expected one of: {BGA_KEY_LIST}")
        );
        assert_eq!(
            error("chinese:counting=chinese"),
            "key \"counting\" is only for the bga preset"
        );
        assert_eq!(
            error("aga:aga=on"),
            "key \"aga\" is only for the bga preset"
        );
        assert_eq!(
            error("chinese:ko=simple,KO=positional"),
            "duplicate key \"ko\""
        );
        assert_eq!(error("bga:komi=h2,komi=7.5"), "duplicate key \"komi\"");
        let empty = "empty rules spec; expected PRESET[:KEY=VALUE,...] such as tromp-taylor or chinese:komi=6.5";
        assert_eq!(error(""), empty);
        assert_eq!(error("   \t"), empty);
        let stray = "empty setting in rules spec (a stray ',' or ':'); expected KEY=VALUE";
        for spec in [
            "chinese:",
            "chinese:ko=simple,",
            "chinese:,ko=simple",
            "chinese:ko=simple,,tie=draw",
            "chinese: , ",
        ] {
            assert_eq!(error(spec), stray, "{spec}");
        }
        assert_eq!(
            error("chinese:ko"),
            "setting \"ko\" has no '='; expected KEY=VALUE"
        );
        assert_eq!(
            error("chinese:=simple"),
            "setting \"=simple\" has no key before '='; expected KEY=VALUE"
        );
        assert_eq!(
            error("chinese:ko="),
            format!("bad value \"\" for ko; expected {}", KoRule::expected())
        );
        // a second ':' belongs to the value
        assert!(error("chinese:ko=simple:x").starts_with("bad value \"simple:x\" for ko"));
        // the first error in the order written is reported
        assert_eq!(
            error("chinese:ko=bad,kom=1"),
            format!("bad value \"bad\" for ko; expected {}", KoRule::expected())
        );
    }

    #[test]
    fn errors_are_one_short_line() {
        let long = "x".repeat(10_000);
        for spec in [
            long.clone(),
            format!("chinese:{long}=1"),
            format!("chinese:ko={long}"),
            format!("chinese:komi={long}"),
            "chinese:ko=a\nb".to_string(),
            "chinese:ko=\u{1F600}".to_string(),
        ] {
            let msg = error(&spec);
            assert!(!msg.contains('\n'), "{msg}");
            assert!(msg.chars().count() < 300, "{msg}");
        }
        assert!(error(&format!("chinese:ko={long}")).contains(&format!("\"{}…\"", "x".repeat(40))));
    }

    #[test]
    fn whitespace_and_case() {
        assert_eq!(
            parse("  Chinese :  KO = Situational ,Suicide= MULTI  "),
            parse("chinese:ko=situational,suicide=multi")
        );
        assert_eq!(
            parse(" BGA : Size = 9 , Komi = H3 , AGA = Off "),
            parse("bga:size=9,komi=h3,aga=off")
        );
        assert_eq!(parse("ideal : komi = b0/w7"), parse("ideal"));
        assert_eq!(parse("New-Zealand"), Rules::preset(Preset::NewZealand));
    }

    // ---- canonical printing ----

    #[test]
    fn canonical_strings() {
        let cases = [
            ("tromp-taylor", "tromp-taylor"),
            ("tromp-taylor:komi=0", "tromp-taylor"),
            ("tromp-taylor:size=19x19,ko=positional", "tromp-taylor"),
            ("tromp-taylor:komi=-3", "tromp-taylor:komi=-3"),
            ("tromp-taylor:komi=-0.5", "tromp-taylor:komi=-0.5"),
            ("tromp-taylor:size=13x9", "tromp-taylor:size=13x9"),
            ("new-zealand", "new-zealand"),
            ("new-zealand:komi=7", "new-zealand"),
            ("chinese:komi=7.50", "chinese"),
            ("chinese:komi=B1/W8.5", "chinese:komi=B1/W8.5"),
            ("ideal:komi=b0/w7", "ideal"),
            ("ideal:komi=0", "ideal:komi=0"),
            ("ideal:handicap=2,komi=0", "ideal:handicap=2"),
            ("ideal:handicap=2,komi=7", "ideal:komi=7,handicap=2"),
            ("ideal:self-fill=10", "ideal:self-fill=10"),
            (
                "japanese:self-fill=3,repetition=none,tie=white,handicap=4,size=9,ko=natural",
                "japanese:size=9,ko=natural,tie=white,handicap=4,repetition=none,self-fill=3",
            ),
            (
                "aga:white-passes-last=off,pass-stones=dispute",
                "aga:pass-stones=dispute,white-passes-last=off",
            ),
            ("bga", "bga:size=19,counting=japanese,komi=normal,aga=on"),
            (
                "bga:aga=off,komi=h5,counting=chinese,size=13",
                "bga:size=13,counting=chinese,komi=h5,aga=off",
            ),
            (
                "bga:komi=4.5",
                "bga:size=19,counting=japanese,komi=normal,aga=on",
            ),
            (
                "bga:komi=5.5,size=9",
                "bga:size=9,counting=japanese,komi=normal,aga=on",
            ),
            (
                "bga:komi=6.5",
                "bga:size=19,counting=japanese,komi=6.5,aga=on",
            ),
            (
                "bga:komi=h3,handicap=5",
                "bga:size=19,counting=japanese,komi=h3,aga=on,handicap=5",
            ),
            (
                "bga:komi=h3,handicap=3",
                "bga:size=19,counting=japanese,komi=h3,aga=on",
            ),
            (
                "bga:counting=chinese,scoring=area",
                "bga:size=19,counting=chinese,komi=normal,aga=on",
            ),
            (
                "bga:counting=chinese,scoring=territory",
                "bga:size=19,counting=chinese,komi=normal,aga=on,scoring=territory",
            ),
            (
                "bga:aga=off,pass-stones=on",
                "bga:size=19,counting=japanese,komi=normal,aga=off,pass-stones=on",
            ),
            (
                "bga:tie=draw",
                "bga:size=19,counting=japanese,komi=normal,aga=on,tie=draw",
            ),
        ];
        for (spec, canonical) in cases {
            let r = parse(spec);
            assert_eq!(r.to_string(), canonical, "{spec}");
            assert_round_trip(&r);
        }
    }

    #[test]
    fn every_preset_round_trips() {
        for p in Preset::ALL {
            assert_round_trip(&Rules::preset(p));
            for side in [9, 13, 19] {
                let mut r = parse(&format!("{}:size={side}", p.name()));
                assert_round_trip(&r);
                r.komi = Komi {
                    black: 3,
                    white: -7,
                };
                assert_round_trip(&r);
            }
        }
        for side in [9, 13, 19] {
            for counting in [BgaCounting::Chinese, BgaCounting::Japanese] {
                for aga in [true, false] {
                    let mut options = vec![BgaKomi::None, BgaKomi::Normal, BgaKomi::Big];
                    options.extend((1..=9).map(BgaKomi::Handicap));
                    for komi in options {
                        assert_round_trip(&bga(side, counting, komi, aga));
                    }
                }
            }
        }
    }

    #[test]
    fn hand_built_rules_print_the_nearest_spec() {
        // bga options plus a komi override cannot both be written; the override wins and the handicap stays
        let mut r = parse("bga:komi=h3");
        r.komi = Komi::white(13);
        let back = parse(&r.to_string());
        assert_eq!(
            r.to_string(),
            "bga:size=19,counting=japanese,komi=6.5,aga=on,handicap=3"
        );
        assert_eq!(Rules { bga: back.bga, ..r }, back);
    }

    // ---- properties ----

    fn words_of<T: Word>() -> Vec<String> {
        T::ALL.iter().map(|w| w.word().to_string()).collect()
    }

    /// Komi text written independently of `fmt_half_points`: sign, whole points, optional `.5` or `.0`.
    fn number_text() -> impl Strategy<Value = String> + Clone {
        (
            any::<bool>(),
            0u32..=999,
            prop::sample::select(vec!["", ".5", ".0"]),
        )
            .prop_map(|(negative, whole, frac)| {
                format!("{}{whole}{frac}", if negative { "-" } else { "" })
            })
    }

    fn komi_text() -> BoxedStrategy<String> {
        prop_oneof![
            number_text(),
            (number_text(), number_text()).prop_map(|(b, w)| format!("B{b}/W{w}")),
        ]
        .boxed()
    }

    /// The komi a numeric text means, read through `f64` (exact for halves) as an independent check.
    fn komi_by_float(text: &str) -> Option<Komi> {
        let half = |t: &str| t.parse::<f64>().ok().map(|v| (v * 2.0) as i32);
        match text.strip_prefix('B') {
            Some(rest) => {
                let (b, w) = rest.split_once("/W")?;
                Some(Komi {
                    black: half(b)?,
                    white: half(w)?,
                })
            }
            None => Some(Komi::white(half(text)?)),
        }
    }

    fn value_strategy(preset: Preset, key: Key) -> BoxedStrategy<String> {
        use prop::sample::select;
        let is_bga = preset == Preset::Bga;
        match key {
            Key::Size if is_bga => select(vec!["9", "13", "19", "9x9", "19x19"])
                .prop_map(str::to_string)
                .boxed(),
            Key::Size => (1u8..=25, 1u8..=25, any::<bool>())
                .prop_map(|(w, h, square)| {
                    if square {
                        w.to_string()
                    } else {
                        format!("{w}x{h}")
                    }
                })
                .boxed(),
            Key::Ko => select(words_of::<KoRule>()).boxed(),
            Key::Suicide => select(words_of::<SuicideRule>()).boxed(),
            Key::Scoring => select(words_of::<ScoringRule>()).boxed(),
            Key::SekiEyes => select(words_of::<SekiEyes>()).boxed(),
            Key::PassStones => select(words_of::<PassStones>()).boxed(),
            Key::End => select(words_of::<EndRule>()).boxed(),
            Key::Tie => select(words_of::<TieRule>()).boxed(),
            Key::Placement => select(words_of::<Placement>()).boxed(),
            Key::HandicapBonus => select(words_of::<HandicapBonus>()).boxed(),
            Key::Repetition => select(words_of::<Repetition>()).boxed(),
            Key::Counting => select(words_of::<BgaCounting>()).boxed(),
            Key::WhitePassesLast | Key::Aga => {
                select(vec!["on".to_string(), "off".to_string()]).boxed()
            }
            Key::Handicap => (0u8..=9).prop_map(|n| n.to_string()).boxed(),
            Key::SelfFill => prop_oneof![
                Just("off".to_string()),
                (1u8..=255).prop_map(|n| n.to_string())
            ]
            .boxed(),
            Key::Komi if is_bga => {
                let words = select(vec![
                    "none", "normal", "big", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9",
                ]);
                prop_oneof![words.prop_map(str::to_string), komi_text()].boxed()
            }
            Key::Komi => komi_text(),
        }
    }

    /// A well-formed spec: a preset, then any subset of its keys in any order, with random case and spacing.
    /// Also returns the settings, to check that each one took effect.
    fn spec_strategy() -> impl Strategy<Value = (String, Vec<(Key, String)>)> {
        prop::sample::select(Preset::ALL.to_vec())
            .prop_flat_map(|preset| {
                let keys: Vec<Key> = Key::ALL
                    .into_iter()
                    .filter(|k| preset == Preset::Bga || !k.bga_only())
                    .collect();
                let values: Vec<_> = keys
                    .iter()
                    .map(|&k| prop::option::of(value_strategy(preset, k)))
                    .collect();
                (Just(preset), Just(keys), values)
            })
            .prop_flat_map(|(preset, keys, values)| {
                let pairs: Vec<(Key, String)> = keys
                    .into_iter()
                    .zip(values)
                    .filter_map(|(k, v)| v.map(|v| (k, v)))
                    .collect();
                (
                    Just(preset),
                    Just(pairs).prop_shuffle(),
                    any::<bool>(),
                    any::<bool>(),
                )
            })
            .prop_map(|(preset, pairs, upper, spaced)| {
                let case = |s: &str| {
                    if upper {
                        s.to_ascii_uppercase()
                    } else {
                        s.to_string()
                    }
                };
                let pad = if spaced { " " } else { "" };
                let settings: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{pad}{}{pad}={pad}{}{pad}", case(k.name()), case(v)))
                    .collect();
                let mut spec = format!("{pad}{}{pad}", case(preset.name()));
                if !settings.is_empty() {
                    spec = format!("{spec}:{}", settings.join(","));
                }
                (spec, pairs)
            })
    }

    /// Any non-bga `Rules` a spec can describe: every knob free.
    fn rules_strategy() -> impl Strategy<Value = Rules> {
        use prop::sample::select;
        let non_bga: Vec<Preset> = Preset::ALL
            .into_iter()
            .filter(|p| *p != Preset::Bga)
            .collect();
        let knobs = (
            select(non_bga),
            (1u8..=25, 1u8..=25),
            select(KoRule::ALL.to_vec()),
            select(SuicideRule::ALL.to_vec()),
            select(ScoringRule::ALL.to_vec()),
            select(SekiEyes::ALL.to_vec()),
            select(PassStones::ALL.to_vec()),
            any::<bool>(),
            select(EndRule::ALL.to_vec()),
        );
        let more = (
            (-2000i32..=2000, -2000i32..=2000),
            select(TieRule::ALL.to_vec()),
            0u8..=9,
            select(Placement::ALL.to_vec()),
            select(HandicapBonus::ALL.to_vec()),
            select(Repetition::ALL.to_vec()),
            prop::option::of(1u8..=255),
        );
        (knobs, more).prop_map(
            |(
                (
                    preset,
                    (w, h),
                    ko,
                    suicide,
                    scoring,
                    seki_eyes,
                    pass_stones,
                    white_passes_last,
                    end,
                ),
                ((black, white), tie, handicap, placement, handicap_bonus, repetition, self_fill),
            )| Rules {
                preset,
                size: Size::new(w, h).unwrap_or_default(),
                ko,
                suicide,
                scoring,
                seki_eyes,
                pass_stones,
                white_passes_last,
                end,
                komi: Komi { black, white },
                tie,
                handicap,
                placement,
                handicap_bonus,
                repetition,
                self_fill,
                resume_passes_end: Rules::preset(preset).resume_passes_end,
                bga: None,
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn random_strings_never_panic(s in any::<String>()) {
            let _ = s.parse::<Rules>();
        }

        #[test]
        fn spec_like_strings_never_panic(
            s in "[a-zA-Z0-9:=,./ x+-]{0,60}",
            preset in prop::sample::select(Preset::ALL.to_vec()),
        ) {
            let _ = s.parse::<Rules>();
            if let Ok(r) = format!("{}:{s}", preset.name()).parse::<Rules>() {
                assert_round_trip(&r);
            }
        }

        #[test]
        fn well_formed_specs_round_trip((spec, pairs) in spec_strategy()) {
            let r = match spec.parse::<Rules>() {
                Ok(r) => r,
                Err(e) => return Err(TestCaseError::fail(format!("{spec:?}: {e}"))),
            };
            assert_round_trip(&r);
            // every plain knob given ends up in the rules as written
            for (key, value) in &pairs {
                let plain = !matches!(key, Key::Size | Key::Komi | Key::Counting | Key::Aga);
                if plain {
                    prop_assert_eq!(&value_text(&r, *key), value, "{} in {:?}", key.name(), spec);
                }
                if let (Key::Komi, Some(komi)) = (key, komi_by_float(value)) {
                    prop_assert_eq!(r.komi, komi, "komi in {:?}", spec);
                }
                if *key == Key::Size {
                    prop_assert_eq!(Some(r.size), parse_size(value));
                }
            }
        }

        #[test]
        fn any_expressible_rules_round_trip(r in rules_strategy()) {
            assert_round_trip(&r);
        }
    }
}
