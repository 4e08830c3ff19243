//! KataGo's rules as `kata-get-rules` prints them and `kata-set-rules` takes them: a short name, a compact
//! `koPOSITIONALscoreAREA...` string, or a flat JSON object. Both directions go through our knobs.
//!
//! Printing is lossy where KataGo has no such knob: `natural` ko prints as `NATURAL` (KataGo has none), the
//! ideal rules' `area-reach` scoring as `AREA` (same margin), `all` suicide as `true` (KataGo's suicide never
//! allows a single stone); `friendlyPassOk` is `true` exactly for area-like scoring that ends by agreement,
//! which is what KataGo's presets give.

use tesuji_rules::{EndRule, HandicapBonus, KoRule, Rules, ScoringRule, SekiEyes, SuicideRule};

/// `kata-get-rules`: KataGo's JSON, keys in its (alphabetical) order, without komi.
pub fn rules_json(r: &Rules) -> String {
    let ko = match r.ko {
        KoRule::Simple => "SIMPLE",
        KoRule::Positional => "POSITIONAL",
        KoRule::Situational => "SITUATIONAL",
        KoRule::Natural => "NATURAL",
    };
    let scoring = match r.scoring {
        ScoringRule::Area | ScoringRule::AreaReach | ScoringRule::Stones => "AREA",
        ScoringRule::Territory => "TERRITORY",
    };
    let tax = match (r.scoring, r.seki_eyes) {
        (ScoringRule::Stones, _) => "ALL",
        (ScoringRule::Territory, SekiEyes::None) => "SEKI",
        _ => "NONE",
    };
    let whb = match r.handicap_bonus {
        HandicapBonus::Zero => "0",
        HandicapBonus::N => "N",
        HandicapBonus::NMinusOne => "N-1",
    };
    let friendly = r.end == EndRule::Agree && r.scoring != ScoringRule::Territory;
    let suicide = r.suicide != SuicideRule::Forbidden;
    format!(
        "{{\"friendlyPassOk\":{friendly},\"hasButton\":false,\"ko\":\"{ko}\",\"scoring\":\"{scoring}\",\
         \"suicide\":{suicide},\"tax\":\"{tax}\",\"whiteHandicapBonus\":\"{whb}\"}}"
    )
}

/// `kata-set-rules`: the rules and, when the JSON gives one, a komi in half-points.
///
/// KataGo's own names mean KataGo's rulesets, which are not always our presets of the same name: KataGo's
/// `chinese` has simple ko (ours, RULES.md §3, positional superko), so it becomes `chinese:ko=simple`.
/// `tromp-taylor`, `japanese`, `korean`, `aga`, `new-zealand` and `chinese-ogs`/`chinese-kgs` (positional)
/// are our presets (KataGo's Tromp-Taylor allows only multi-stone suicide, the same legal moves under
/// positional superko). Anything else goes to `tesuji_sgf::record::rules_from_name`: our spec strings, other
/// programs' names and KataGo's compact `koPOSITIONALscoreAREA...` strings.
pub fn parse_rules(text: &str) -> Option<(Rules, Option<i32>)> {
    let text = text.trim();
    if text.starts_with('{') {
        return parse_json(text);
    }
    let name = match text.to_ascii_lowercase().as_str() {
        "chinese" => "chinese:ko=simple",
        "chinese-ogs" | "chinese-kgs" | "chinese_ogs" | "chinese_kgs" => "chinese",
        // KataGo's stone scoring: simple ko, suicide forbidden, no handicap bonus.
        "stone-scoring" | "stone_scoring" | "stonescoring" | "ancient-area" | "ancient_area"
        | "ancientarea" => "chinese:ko=simple,scoring=stones,handicap-bonus=0",
        "new_zealand" => "new-zealand",
        _ => text,
    };
    tesuji_sgf::record::rules_from_name(name).map(|r| (r, None))
}

/// A flat JSON object of KataGo's rule fields, turned into its compact string.
fn parse_json(text: &str) -> Option<(Rules, Option<i32>)> {
    let fields = flat_json(text)?;
    let mut compact = String::new();
    let mut komi = None;
    for (key, value) in fields {
        let v = match &value {
            Json::Str(s) => s.clone(),
            Json::Bool(b) => (if *b { "1" } else { "0" }).to_string(),
            Json::Num(n) => n.clone(),
        };
        match key.as_str() {
            "ko" => compact.push_str(&format!("ko{v}")),
            "scoring" | "score" => compact.push_str(&format!("score{v}")),
            "tax" => compact.push_str(&format!("tax{v}")),
            "suicide" | "multiStoneSuicideLegal" => compact.push_str(&format!("sui{v}")),
            "hasButton" => compact.push_str(&format!("button{v}")),
            "whiteHandicapBonus" => compact.push_str(&format!("whb{v}")),
            // No knob: the end of the game is ours.
            "friendlyPassOk" => {}
            "komi" => komi = Some(tesuji_sgf::record::parse_komi(&v).ok()?),
            _ => return None,
        }
    }
    let rules = tesuji_sgf::record::rules_from_name(&compact)?;
    Some((rules, komi))
}

enum Json {
    Str(String),
    Bool(bool),
    Num(String),
}

/// Reads `{"key": value, ...}` with string, boolean and number values only (no nesting, no escapes beyond `\"`).
fn flat_json(text: &str) -> Option<Vec<(String, Json)>> {
    let mut chars = text.chars().peekable();
    let mut out = Vec::new();
    let skip_ws = |c: &mut std::iter::Peekable<std::str::Chars>| {
        while c.peek().is_some_and(|x| x.is_whitespace()) {
            c.next();
        }
    };
    let string = |c: &mut std::iter::Peekable<std::str::Chars>| -> Option<String> {
        if c.next()? != '"' {
            return None;
        }
        let mut s = String::new();
        loop {
            match c.next()? {
                '"' => return Some(s),
                '\\' => s.push(c.next()?),
                x => s.push(x),
            }
        }
    };
    skip_ws(&mut chars);
    if chars.next()? != '{' {
        return None;
    }
    skip_ws(&mut chars);
    if chars.peek() == Some(&'}') {
        chars.next();
    } else {
        loop {
            skip_ws(&mut chars);
            let key = string(&mut chars)?;
            skip_ws(&mut chars);
            if chars.next()? != ':' {
                return None;
            }
            skip_ws(&mut chars);
            let value = match *chars.peek()? {
                '"' => Json::Str(string(&mut chars)?),
                _ => {
                    let mut word = String::new();
                    while chars
                        .peek()
                        .is_some_and(|x| x.is_ascii_alphanumeric() || matches!(x, '.' | '-' | '+'))
                    {
                        word.push(chars.next()?);
                    }
                    match word.as_str() {
                        "true" => Json::Bool(true),
                        "false" => Json::Bool(false),
                        w if !w.is_empty() && w.parse::<f64>().is_ok() => Json::Num(word),
                        _ => return None,
                    }
                }
            };
            out.push((key, value));
            skip_ws(&mut chars);
            match chars.next()? {
                ',' => continue,
                '}' => break,
                _ => return None,
            }
        }
    }
    skip_ws(&mut chars);
    chars.next().is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::Preset;

    #[test]
    fn presets_print_as_katago_does() {
        let tt = rules_json(&Rules::preset(Preset::TrompTaylor));
        assert_eq!(
            tt,
            r#"{"friendlyPassOk":false,"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":true,"tax":"NONE","whiteHandicapBonus":"0"}"#
        );
        let jp = rules_json(&Rules::preset(Preset::Japanese));
        assert_eq!(
            jp,
            r#"{"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0"}"#
        );
    }

    #[test]
    fn json_and_compact_strings() {
        let (r, komi) = parse_rules(
            r#"{"ko":"SIMPLE","scoring":"AREA","tax":"NONE","suicide":false,"hasButton":false,"friendlyPassOk":false,"whiteHandicapBonus":"0"}"#,
        )
        .unwrap();
        assert_eq!(r.ko, KoRule::Simple);
        assert_eq!(r.suicide, SuicideRule::Forbidden);
        assert_eq!(komi, None);
        let (r, komi) =
            parse_rules(r#"{"ko":"SITUATIONAL","scoring":"AREA","suicide":true,"komi":6.5}"#)
                .unwrap();
        assert_eq!(
            (r.ko, r.suicide, komi),
            (KoRule::Situational, SuicideRule::Multi, Some(13))
        );
        assert!(parse_rules(r#"{"ko":"SIMPLE","scoring":"AREA","hasButton":true}"#).is_none());
        assert!(parse_rules(r#"{"ko":"SIMPLE""#).is_none());
        assert!(parse_rules(r#"{"nested":{}}"#).is_none());
        assert!(parse_rules("koPOSITIONALscoreAREAtaxNONEsui1whbN").is_some());
        assert_eq!(parse_rules("chinese").unwrap().0.ko, KoRule::Simple);
        assert_eq!(parse_rules("chinese-ogs").unwrap().0.ko, KoRule::Positional);
        assert_eq!(
            parse_rules("tromp-taylor").unwrap().0,
            Rules::preset(Preset::TrompTaylor)
        );
        assert!(parse_rules("nonsense").is_none());
    }

    #[test]
    fn stone_scoring_is_katagos_in_every_form() {
        let (named, _) = parse_rules("stone-scoring").unwrap();
        assert_eq!(named.scoring, ScoringRule::Stones);
        assert_eq!(
            (named.ko, named.suicide, named.handicap_bonus),
            (KoRule::Simple, SuicideRule::Forbidden, HandicapBonus::Zero)
        );
        let katago = tesuji_nn::katarules::KataRules::from_name("stone-scoring").unwrap();
        assert_eq!(tesuji_nn::katarules::KataRules::from_rules(&named), katago);
        // Printed and read back as KataGo's JSON and compact string: the same rules.
        let json = rules_json(&named);
        assert!(json.contains("\"tax\":\"ALL\""), "{json}");
        let (again, _) = parse_rules(&json).unwrap();
        assert_eq!(again.scoring, ScoringRule::Stones);
        assert_eq!(tesuji_nn::katarules::KataRules::from_rules(&again), katago);
        let (compact, _) = parse_rules("koSIMPLEscoreAREAtaxALLsui0whb0").unwrap();
        assert_eq!(compact.scoring, ScoringRule::Stones);
        // Territory scoring has no stone tax here.
        assert!(parse_rules("koSIMPLEscoreTERRITORYtaxALLsui0").is_none());
    }
}
