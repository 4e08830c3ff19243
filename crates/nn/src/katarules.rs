//! KataGo's rules, as far as its network inputs see them: the knobs of KataGo's `Rules` (ko, scoring, tax,
//! multi-stone suicide, button, white's handicap bonus, friendly passing), read from the short names that
//! `kata-set-rules` takes or mapped from our own [`Rules`]. Komi is not a knob here: the encoder takes it
//! apart, in half-points, as the rest of the project keeps it.

use tesuji_rules::{EndRule, HandicapBonus, KoRule, Rules, ScoringRule, SekiEyes, SuicideRule};

/// KataGo's ko rule. KataGo's fourth rule, `SPIGHT`, is not offered: no short name uses it (its network
/// inputs are those of `Positional`, its passes end the game as under `Simple`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KataKo {
    Simple,
    Positional,
    Situational,
}

/// KataGo's scoring rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KataScoring {
    Area,
    Territory,
}

/// KataGo's group tax: `Seki` counts no eye of a group in seki, `All` also takes two points per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KataTax {
    None,
    Seki,
    All,
}

/// Points White receives per handicap stone, as KataGo counts handicap stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KataHandicapBonus {
    Zero,
    NMinusOne,
    N,
}

/// One value of each of KataGo's rule knobs (komi apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KataRules {
    pub ko: KataKo,
    pub scoring: KataScoring,
    pub tax: KataTax,
    pub multi_stone_suicide: bool,
    pub has_button: bool,
    pub white_handicap_bonus: KataHandicapBonus,
    pub friendly_pass_ok: bool,
}

impl KataRules {
    /// A ruleset by one of the names KataGo's `Rules::parseRules` knows (case and surrounding spaces ignored;
    /// the separators KataGo lists for each: `-`, `_`, a space or none): `tromp-taylor`, `chinese`,
    /// `chinese-ogs` and `chinese-kgs`, `japanese`, `korean`, `aga`, `bga`, `french`, `aga-button`,
    /// `new-zealand` (`nz`), `stone-scoring` (`ancient-area`), `ancient-territory`, `goe` and `ing`. KataGo's
    /// JSON and compact `koPOSITIONAL...` forms are not read here.
    pub fn from_name(name: &str) -> Option<KataRules> {
        use KataHandicapBonus as Whb;
        let area = |ko, tax, sui, whb, fpok| KataRules {
            ko,
            scoring: KataScoring::Area,
            tax,
            multi_stone_suicide: sui,
            has_button: false,
            white_handicap_bonus: whb,
            friendly_pass_ok: fpok,
        };
        let territory = |tax| KataRules {
            ko: KataKo::Simple,
            scoring: KataScoring::Territory,
            tax,
            multi_stone_suicide: false,
            has_button: false,
            white_handicap_bonus: Whb::Zero,
            friendly_pass_ok: false,
        };
        // Exactly the spellings rules.cpp lists, after its lower-casing and trimming.
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "japanese" | "korean" => territory(KataTax::Seki),
            "chinese" => area(KataKo::Simple, KataTax::None, false, Whb::N, true),
            "chineseogs" | "chinese_ogs" | "chinese-ogs" | "chinesekgs" | "chinese_kgs"
            | "chinese-kgs" => area(KataKo::Positional, KataTax::None, false, Whb::N, true),
            "ancientarea" | "ancient-area" | "ancient_area" | "ancient area" | "stonescoring"
            | "stone-scoring" | "stone_scoring" | "stone scoring" => {
                area(KataKo::Simple, KataTax::All, false, Whb::Zero, true)
            }
            "ancientterritory" | "ancient-territory" | "ancient_territory"
            | "ancient territory" => territory(KataTax::All),
            "agabutton" | "aga-button" | "aga_button" | "aga button" => KataRules {
                has_button: true,
                ..area(
                    KataKo::Situational,
                    KataTax::None,
                    false,
                    Whb::NMinusOne,
                    true,
                )
            },
            "aga" | "bga" | "french" => area(
                KataKo::Situational,
                KataTax::None,
                false,
                Whb::NMinusOne,
                true,
            ),
            "nz" | "newzealand" | "new zealand" | "new-zealand" | "new_zealand" => {
                area(KataKo::Situational, KataTax::None, true, Whb::Zero, true)
            }
            "tromp-taylor" | "tromp_taylor" | "tromp taylor" | "tromptaylor" => {
                area(KataKo::Positional, KataTax::None, true, Whb::Zero, false)
            }
            "goe" | "ing" => area(KataKo::Positional, KataTax::None, true, Whb::Zero, true),
            _ => return None,
        })
    }

    /// Our rule knobs as KataGo's, the mapping `tesuji_gtp::katago::rules_json` prints: natural ko, which
    /// KataGo lacks, becomes situational (both compare positions with the same player to move); the ideal
    /// rules' `area-reach` scoring is area scoring (the same margin); a territory count without seki eyes is
    /// KataGo's seki tax; any suicide allowed is KataGo's multi-stone suicide (KataGo never allows a single
    /// stone's); friendly passing is area-like scoring that ends by agreement; no button.
    pub fn from_rules(rules: &Rules) -> KataRules {
        let ko = match rules.ko {
            KoRule::Simple => KataKo::Simple,
            KoRule::Positional => KataKo::Positional,
            KoRule::Situational | KoRule::Natural => KataKo::Situational,
        };
        let scoring = match rules.scoring {
            ScoringRule::Area | ScoringRule::AreaReach | ScoringRule::Stones => KataScoring::Area,
            ScoringRule::Territory => KataScoring::Territory,
        };
        let tax = match (rules.scoring, rules.seki_eyes) {
            (ScoringRule::Stones, _) => KataTax::All,
            (ScoringRule::Territory, SekiEyes::None) => KataTax::Seki,
            _ => KataTax::None,
        };
        let white_handicap_bonus = match rules.handicap_bonus {
            HandicapBonus::Zero => KataHandicapBonus::Zero,
            HandicapBonus::N => KataHandicapBonus::N,
            HandicapBonus::NMinusOne => KataHandicapBonus::NMinusOne,
        };
        KataRules {
            ko,
            scoring,
            tax,
            multi_stone_suicide: rules.suicide != SuicideRule::Forbidden,
            has_button: false,
            white_handicap_bonus,
            friendly_pass_ok: rules.end == EndRule::Agree
                && rules.scoring != ScoringRule::Territory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::Preset;

    #[test]
    fn names_as_katago_parses_them() {
        let tt = KataRules::from_name("Tromp-Taylor").unwrap();
        assert_eq!(
            (
                tt.ko,
                tt.scoring,
                tt.tax,
                tt.multi_stone_suicide,
                tt.friendly_pass_ok
            ),
            (
                KataKo::Positional,
                KataScoring::Area,
                KataTax::None,
                true,
                false
            )
        );
        for spelling in [
            "tromp_taylor",
            "tromp taylor",
            "tromptaylor",
            " TROMP-TAYLOR ",
        ] {
            assert_eq!(KataRules::from_name(spelling), Some(tt), "{spelling}");
        }
        let jp = KataRules::from_name("japanese").unwrap();
        assert_eq!(
            (jp.ko, jp.scoring, jp.tax, jp.multi_stone_suicide),
            (KataKo::Simple, KataScoring::Territory, KataTax::Seki, false)
        );
        assert_eq!(KataRules::from_name("korean"), Some(jp));
        let cn = KataRules::from_name("chinese").unwrap();
        assert_eq!(
            (cn.ko, cn.white_handicap_bonus, cn.friendly_pass_ok),
            (KataKo::Simple, KataHandicapBonus::N, true)
        );
        let ogs = KataRules::from_name("chinese-ogs").unwrap();
        assert_eq!(ogs.ko, KataKo::Positional);
        for spelling in [
            "chinese_kgs",
            "chinesekgs",
            "chinese-kgs",
            "chineseogs",
            "chinese_ogs",
        ] {
            assert_eq!(KataRules::from_name(spelling), Some(ogs), "{spelling}");
        }
        let aga = KataRules::from_name("aga").unwrap();
        assert_eq!(
            (aga.ko, aga.white_handicap_bonus, aga.multi_stone_suicide),
            (KataKo::Situational, KataHandicapBonus::NMinusOne, false)
        );
        assert_eq!(KataRules::from_name("bga"), Some(aga));
        assert!(KataRules::from_name("aga-button").unwrap().has_button);
        let nz = KataRules::from_name("new-zealand").unwrap();
        assert_eq!(
            (nz.ko, nz.multi_stone_suicide, nz.white_handicap_bonus),
            (KataKo::Situational, true, KataHandicapBonus::Zero)
        );
        for spelling in ["nz", "new zealand", "new_zealand", "newzealand"] {
            assert_eq!(KataRules::from_name(spelling), Some(nz), "{spelling}");
        }
        let stone = KataRules::from_name("stone-scoring").unwrap();
        assert_eq!(
            (stone.tax, stone.scoring, stone.ko),
            (KataTax::All, KataScoring::Area, KataKo::Simple)
        );
        assert_eq!(KataRules::from_name("ancient area"), Some(stone));
        let at = KataRules::from_name("ancient-territory").unwrap();
        assert_eq!((at.tax, at.scoring), (KataTax::All, KataScoring::Territory));
        for bad in [
            "",
            "chinese-",
            "japan",
            "tromp--taylor",
            "chinese ogs",
            "koSIMPLE",
            "{}",
            "spight",
        ] {
            assert_eq!(KataRules::from_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn our_presets_map_as_the_gtp_json_prints_them() {
        let tt = KataRules::from_rules(&Rules::preset(Preset::TrompTaylor));
        assert_eq!(tt, KataRules::from_name("tromp-taylor").unwrap());
        let jp = KataRules::from_rules(&Rules::preset(Preset::Japanese));
        assert_eq!(jp, KataRules::from_name("japanese").unwrap());
        let mut natural = Rules::preset(Preset::TrompTaylor);
        natural.ko = KoRule::Natural;
        assert_eq!(KataRules::from_rules(&natural).ko, KataKo::Situational);
        let mut forbid = natural;
        forbid.suicide = SuicideRule::Forbidden;
        assert!(!KataRules::from_rules(&forbid).multi_stone_suicide);
    }
}
