//! The names of accounts and guests, made safe to show beside each other: normalized to NFC, without invisible,
//! control or format characters, in one script (Unicode UTS #39's "highly restrictive" level), and with a
//! confusable skeleton (UTS #39's `skeleton`) under which the store refuses a name that looks like an account's.
//!
//! Look-alikes are compared under a looser key than the skeleton alone ([`skeleton_of`]): case, digits written
//! for letters and the punctuation a name may hold are folded away, so "B0b", "Bob_" and "B.ob" look like "Bob".
//!
//! A name is 1 to [`NAME_MAX`] characters after trimming white space and normalizing to NFC: letters of any
//! script (with their combining marks), digits, `_`, `-` and `.`. Refused:
//! - control characters, and invisible or default-ignorable ones (the Hangul fillers U+3164, U+FFA0, U+115F and
//!   U+1160, zero-width spaces and joiners, direction marks and overrides, variation selectors...), except a
//!   zero-width joiner or non-joiner right after a virama and before a letter, where Indic scripts need one
//!   (UTS #31's contexts A2 and B);
//! - compatibility forms (fullwidth letters, ligatures, superscripts: `Not_NFKC` in UTS #39's identifier
//!   types), deprecated characters and characters that are no part of identifiers (`Not_XID`), unassigned code
//!   points;
//! - a combining mark on no letter, more than [`MARKS_MAX`] marks in a row, the same mark twice in a row;
//! - mixed scripts: the characters other than digits and punctuation must share a script, as UTS #39's
//!   single-script level says, or Latin may go with Han, Hiragana and Katakana (Japanese), with Han and Hangul
//!   (Korean) or with Han and Bopomofo, as its highly restrictive level allows. So "аlice" with a Cyrillic "а"
//!   is refused, and a name wholly in Cyrillic, Greek, Han, Arabic, Devanagari or any other script is not.
//!
//! Unlike UTS #39's General Security Profile, the scripts and characters it marks `Limited_Use`, `Exclusion`,
//! `Obsolete`, `Uncommon_Use` or `Technical` are allowed: they are the letters of living and historic scripts
//! (Cherokee, N'Ko, Runic...), and people may write their names in them. Look-alikes among them are caught by
//! the skeleton.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_script::Script;
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{GeneralSecurityProfile, skeleton};

/// The longest name, in characters (Unicode scalar values) after NFC normalization.
pub const NAME_MAX: usize = 32;
/// The longest name [`key`] an account can have, in bytes (32 characters of up to 4 bytes; lowering a letter
/// never lengthens one past that in practice): a longer key names no account.
pub const NAME_KEY_BYTES: usize = 4 * NAME_MAX * 2;
/// The most combining marks in a row (in the NFD form), as UTS #39 section 5.4 suggests.
pub const MARKS_MAX: usize = 4;
/// Input longer than this (in bytes, after trimming) is refused before it is normalized: no name of
/// [`NAME_MAX`] characters, even fully decomposed, comes near it.
const INPUT_MAX: usize = 1024;
const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';
/// The canonical combining class of a virama.
const VIRAMA: u8 = 9;

/// Why a name is refused; the text is the sentence the client is shown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name has 1 to {NAME_MAX} characters")]
    Length,
    #[error("the name contains a control character {}", code(*.0))]
    Control(char),
    #[error("the name contains an invisible character {}", code(*.0))]
    Invisible(char),
    #[error("the name contains {} {:?}, a compatibility form of {compatible:?}: write that instead", code(*.found), .found)]
    Compatibility { found: char, compatible: String },
    #[error("a name has letters, digits, '_', '-' and '.' only, not {:?} ({})", .0, code(*.0))]
    Character(char),
    #[error("the name has the combining mark {} on no letter", code(*.0))]
    StrayMark(char),
    #[error("the name has more than {MARKS_MAX} combining marks on one letter")]
    TooManyMarks,
    #[error("the name repeats the combining mark {}", code(*.0))]
    RepeatedMark(char),
    #[error(
        "the name mixes scripts: {}; a name is written in one script (Latin may go with Han, Hiragana and \
         Katakana, or with Han and Hangul)",
        and_list(.0)
    )]
    MixedScripts(Vec<&'static str>),
}

/// A name that passed [`check`], with the forms the store keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The name as shown: trimmed, NFC.
    pub text: String,
    /// The form under which account names are unique: [`key`] of the text.
    pub key: String,
    /// The confusable skeleton of the text ([`skeleton_of`]): two names with the same one look alike.
    pub skeleton: String,
}

/// `U+3164`.
fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// "A", "A and B", "A, B and C".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The form under which account names are unique and found at log-in: trimmed, NFC, lower case (and NFC again,
/// since lowering a letter may leave a sequence that composes). Any text has one, checked or not.
pub fn key(name: &str) -> String {
    let nfc: String = name.trim().nfc().collect();
    nfc.to_lowercase().nfc().collect()
}

/// The folded skeleton of a name, under which two names look alike: the UTS #39 skeleton (NFD,
/// default-ignorable characters removed, each character replaced by its confusable prototype, NFD again), in
/// lower case, each digit read as the letter it looks like ([`digit_letter`]) and `i` as `l`, without `_`, `-`
/// and `.`, then skeleton and lower case again. "rn" and "m" have the same, so do "0" and "O", "I" and "l", a
/// Cyrillic "асе" and a Latin "ace", and "Bob", "B0b", "Bob_" and "B.ob".
pub fn skeleton_of(name: &str) -> String {
    let first = skeleton(name).collect::<String>().to_lowercase();
    let folded: String = first
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .map(|c| match c {
            'i' => 'l',
            c => digit_letter(c).unwrap_or(c),
        })
        .collect();
    skeleton(&folded)
        .collect::<String>()
        .to_lowercase()
        .replace('i', "l")
}

/// The letter an ASCII digit is written for in look-alike names ("l33t"): 0 o, 1 l, 2 z, 3 e, 4 a, 5 s, 6 b,
/// 7 t, 8 b, 9 g.
fn digit_letter(c: char) -> Option<char> {
    let letters = ['o', 'l', 'z', 'e', 'a', 's', 'b', 't', 'b', 'g'];
    c.to_digit(10)
        .filter(|_| c.is_ascii_digit())
        .map(|d| letters[d as usize])
}

/// Checks a name (see the module's documentation) and answers its stored forms.
pub fn check(name: &str) -> Result<Name, NameError> {
    let trimmed = name.trim();
    if trimmed.is_empty() || trimmed.len() > INPUT_MAX {
        return Err(NameError::Length);
    }
    let text: String = trimmed.nfc().collect();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > NAME_MAX {
        return Err(NameError::Length);
    }
    for (i, &c) in chars.iter().enumerate() {
        check_char(
            c,
            i.checked_sub(1).map(|p| chars[p]),
            chars.get(i + 1).copied(),
        )?;
    }
    check_marks(&text)?;
    check_scripts(&text)?;
    Ok(Name {
        key: key(&text),
        skeleton: skeleton_of(&text),
        text,
    })
}

/// Whether a zero-width (non-)joiner between `before` and `after` is where Indic scripts need one: after a
/// virama, before a letter (UTS #31, A2 and B).
fn joiner_allowed(before: Option<char>, after: Option<char>) -> bool {
    before.is_some_and(|b| canonical_combining_class(b) == VIRAMA)
        && after.is_some_and(|a| a.is_alphabetic() && !is_combining_mark(a))
}

/// One character of the NFC name, with its neighbours.
fn check_char(c: char, before: Option<char>, after: Option<char>) -> Result<(), NameError> {
    if c.is_control() {
        return Err(NameError::Control(c));
    }
    let kind = c.identifier_type();
    if kind == Some(IdentifierType::Default_Ignorable) {
        if matches!(c, ZWJ | ZWNJ) && joiner_allowed(before, after) {
            return Ok(());
        }
        return Err(NameError::Invisible(c));
    }
    let mark = is_combining_mark(c);
    if !(c.is_alphanumeric() || mark || matches!(c, '_' | '-' | '.')) {
        return Err(NameError::Character(c));
    }
    match kind {
        Some(IdentifierType::Not_NFKC) => Err(NameError::Compatibility {
            found: c,
            compatible: c.to_string().nfkc().collect(),
        }),
        // Missing from the identifier types: unassigned, a surrogate or a noncharacter.
        None
        | Some(
            IdentifierType::Not_Character | IdentifierType::Deprecated | IdentifierType::Not_XID,
        ) => Err(NameError::Character(c)),
        Some(_) if mark && !before.is_some_and(|b| b.is_alphanumeric() || is_combining_mark(b)) => {
            Err(NameError::StrayMark(c))
        }
        Some(_) => Ok(()),
    }
}

/// The runs of combining marks, in the NFD form (where a precomposed letter shows its marks).
fn check_marks(text: &str) -> Result<(), NameError> {
    let mut run = 0usize;
    let mut last: Option<char> = None;
    for c in text.nfd() {
        if is_combining_mark(c) {
            if last == Some(c) {
                return Err(NameError::RepeatedMark(c));
            }
            run += 1;
            if run > MARKS_MAX {
                return Err(NameError::TooManyMarks);
            }
            last = Some(c);
        } else {
            run = 0;
            last = None;
        }
    }
    Ok(())
}

/// UTS #39's restriction levels, up to "highly restrictive". The crate's own `detect_restriction_level`
/// answers "unrestricted" for any character outside the General Security Profile, which would refuse whole
/// scripts (see the module's documentation), so the level is read here from the augmented script sets.
fn check_scripts(text: &str) -> Result<(), NameError> {
    // The resolved script set: what every character's script extensions share (Han, Hiragana and Katakana
    // count as one writing system, so do Han and Hangul, Han and Bopomofo).
    let mut all = AugmentedScriptSet::default();
    // The same without the Latin characters: with it, Latin may join Japanese or Korean.
    let mut not_latin = AugmentedScriptSet::default();
    for c in text.chars() {
        let set = AugmentedScriptSet::for_char(c);
        all.intersect_with(set);
        // Characters of every script (digits, punctuation) count as Latin here, as UTS #39 counts them.
        if !set.base.contains_script(Script::Latin) {
            not_latin.intersect_with(set);
        }
    }
    if !all.is_empty() || not_latin.hanb || not_latin.jpan || not_latin.kore {
        return Ok(());
    }
    Err(NameError::MixedScripts(scripts(text)))
}

/// The scripts of a name's letters in order of appearance, for the refusal: one per character whose script
/// extensions name none already listed (digits and punctuation, which go with any script, name none).
fn scripts(text: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for c in text.chars() {
        let set = AugmentedScriptSet::for_char(c);
        if set.is_all() || set.base.iter().any(|s| names.contains(&s.full_name())) {
            continue;
        }
        if let Some(s) = set.base.iter().next() {
            names.push(s.full_name());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(name: &str) -> Name {
        check(name).unwrap_or_else(|e| panic!("{name:?} refused: {e}"))
    }

    fn refused(name: &str) -> NameError {
        match check(name) {
            Ok(n) => panic!("{name:?} accepted as {n:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn every_script_alone_is_a_name() {
        for name in [
            "alice",
            "Bob_the-3rd.",
            "42",
            "José",
            "Zoë",
            "Дмитрий",
            "Αλέξανδρος",
            "王小明",
            "김철수",
            "محمد",
            "دانیال",
            "देवनागरी",
            "क्षत्रिय",
            "सुरेश१२",
            "สมชาย",
            "דוד",
            "Արամ",
            "გიორგი",
            "አበበ",
            "ᏣᎳᎩ",
            "தமிழ்",
            "ಕನ್ನಡ",
            "Nguyễn",
            "Ærøskøbing",
        ] {
            let n = ok(name);
            assert_eq!(n.text, name, "already NFC, kept as written");
        }
    }

    #[test]
    fn japanese_and_korean_mixes_are_names() {
        // Han + Hiragana + Katakana; Han + Hangul; Latin with either (UTS #39: highly restrictive).
        for name in [
            "やまだ太郎",
            "カタカナひらがな漢字",
            "金철수",
            "taro山田",
            "yamadaたろう",
            "kim철수",
        ] {
            ok(name);
        }
    }

    #[test]
    fn mixed_confusable_scripts_are_refused() {
        let e = refused("\u{430}lice");
        assert_eq!(e, NameError::MixedScripts(vec!["Cyrillic", "Latin"]));
        assert!(
            e.to_string()
                .starts_with("the name mixes scripts: Cyrillic and Latin"),
            "{e}"
        );
        assert_eq!(
            refused("p\u{430}ypal"),
            NameError::MixedScripts(vec!["Latin", "Cyrillic"])
        );
        assert_eq!(
            refused("\u{3b1}lpha"),
            NameError::MixedScripts(vec!["Greek", "Latin"])
        );
        // Two non-Latin scripts, or Cyrillic with Han, are no writing system either.
        assert!(matches!(refused("Дми王"), NameError::MixedScripts(_)));
        assert!(matches!(refused("देवाمحمد"), NameError::MixedScripts(_)));
        assert!(matches!(
            refused("한국ひらがな"),
            NameError::MixedScripts(_)
        ));
    }

    #[test]
    fn invisible_fillers_are_refused() {
        for filler in ['\u{3164}', '\u{FFA0}', '\u{115F}', '\u{1160}'] {
            let alone = refused(&filler.to_string());
            assert_eq!(alone, NameError::Invisible(filler));
            assert_eq!(
                alone.to_string(),
                format!(
                    "the name contains an invisible character U+{:04X}",
                    u32::from(filler)
                )
            );
            assert_eq!(
                refused(&format!("ali{filler}ce")),
                NameError::Invisible(filler)
            );
            assert_eq!(
                refused(&format!("{filler}{filler}")),
                NameError::Invisible(filler)
            );
        }
        for c in [
            '\u{200B}', '\u{2060}', '\u{FEFF}', '\u{202E}', '\u{200E}', '\u{FE0F}', '\u{AD}',
        ] {
            assert_eq!(
                refused(&format!("al{c}ice")),
                NameError::Invisible(c),
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn joiners_only_after_a_virama() {
        assert_eq!(refused("a\u{200D}b"), NameError::Invisible('\u{200D}'));
        assert_eq!(refused("a\u{200C}b"), NameError::Invisible('\u{200C}'));
        assert_eq!(refused("alice\u{200D}"), NameError::Invisible('\u{200D}'));
        // Persian's non-joiner between letters needs joining types, not checked here: refused.
        assert_eq!(refused("می\u{200C}خواهم"), NameError::Invisible('\u{200C}'));
        // क्‍ष: a half form asked for by a joiner after the virama.
        ok("क्\u{200D}ष");
        ok("क्\u{200C}ष");
        // After the virama, but before nothing or a mark.
        assert_eq!(refused("क्\u{200D}"), NameError::Invisible('\u{200D}'));
        assert_eq!(
            refused("क्\u{200D}\u{947}"),
            NameError::Invisible('\u{200D}')
        );
    }

    #[test]
    fn empty_blank_and_long_names_are_refused() {
        for name in ["", " ", "\t \n", "\u{3000}", "\u{A0}\u{2003}"] {
            assert_eq!(refused(name), NameError::Length, "{name:?}");
        }
        ok(&"a".repeat(NAME_MAX));
        assert_eq!(refused(&"a".repeat(NAME_MAX + 1)), NameError::Length);
        assert_eq!(refused(&"é".repeat(NAME_MAX + 1)), NameError::Length);
        // Counted after NFC: 32 decomposed "é" are 32 characters.
        assert_eq!(ok(&"e\u{301}".repeat(NAME_MAX)).text, "é".repeat(NAME_MAX));
        assert_eq!(refused(&"x".repeat(100_000)), NameError::Length);
        // Trimmed: the space around is no part of the name.
        assert_eq!(ok("  alice \u{3000}").text, "alice");
    }

    #[test]
    fn controls_spaces_and_symbols_are_refused() {
        assert_eq!(refused("ali\u{7}ce"), NameError::Control('\u{7}'));
        assert_eq!(refused("ali\nce"), NameError::Control('\n'));
        assert_eq!(refused("al ice"), NameError::Character(' '));
        assert_eq!(refused("al\u{3000}ice"), NameError::Character('\u{3000}'));
        assert_eq!(refused("al@ice"), NameError::Character('@'));
        assert_eq!(refused("alice!"), NameError::Character('!'));
        assert_eq!(refused("\u{600}محمد"), NameError::Character('\u{600}'));
        assert_eq!(refused("⠀"), NameError::Character('\u{2800}'));
        assert_eq!(refused("a\u{E000}"), NameError::Character('\u{E000}'));
        let e = refused("al ice");
        assert_eq!(
            e.to_string(),
            "a name has letters, digits, '_', '-' and '.' only, not ' ' (U+0020)"
        );
    }

    #[test]
    fn compatibility_forms_are_refused() {
        let e = refused("ａｌｉｃｅ");
        assert_eq!(
            e,
            NameError::Compatibility {
                found: 'ａ',
                compatible: "a".into()
            }
        );
        assert!(e.to_string().contains("U+FF41"), "{e}");
        assert!(matches!(refused("x²"), NameError::Compatibility { .. }));
        assert!(matches!(refused("ﬁsh"), NameError::Compatibility { .. }));
        assert!(matches!(refused("𝐚lice"), NameError::Compatibility { .. }));
        assert!(matches!(refused("ｶﾀｶﾅ"), NameError::Compatibility { .. }));
    }

    #[test]
    fn marks_stand_on_letters() {
        assert_eq!(refused("\u{301}alice"), NameError::StrayMark('\u{301}'));
        assert_eq!(refused("a-\u{301}"), NameError::StrayMark('\u{301}'));
        assert_eq!(
            refused("a\u{301}\u{301}"),
            NameError::RepeatedMark('\u{301}')
        );
        // Five different marks on one letter (none composes with the others).
        assert_eq!(
            refused("a\u{316}\u{317}\u{318}\u{319}\u{31C}"),
            NameError::TooManyMarks
        );
        ok("a\u{316}\u{317}\u{318}\u{319}");
    }

    #[test]
    fn nfc_and_nfd_are_one_name() {
        let nfc = ok("Jos\u{E9}");
        let nfd = ok("Jose\u{301}");
        assert_eq!(nfc, nfd);
        assert_eq!(nfd.text, "José");
        assert_eq!(nfd.key, "josé");
        assert_eq!(key("JOSE\u{301}"), "josé");
        // Hangul jamo compose into the syllable.
        assert_eq!(ok("\u{1100}\u{1161}").text, "가");
        // Singletons: the Ångström sign is the letter Å.
        assert_eq!(ok("\u{212B}ngstr\u{F6}m").text, "Ångström");
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        let s = |n: &str| ok(n).skeleton;
        assert_eq!(s("m"), s("rn"));
        assert_eq!(s("O"), s("0"));
        assert_eq!(s("alice"), s("aIice"));
        assert_eq!(s("bill"), s("bi1l"));
        // Whole-script look-alikes: Cyrillic "асе" and Latin "ace"; NFD and NFC.
        assert_eq!(s("\u{430}\u{441}\u{435}"), s("ace"));
        assert_eq!(s("José"), s("Jose\u{301}"));
        assert_ne!(s("alice"), s("alicia"));
        assert_ne!(s("ann"), s("anne"));
        // Case, digits for letters and the punctuation names may hold fold away.
        for alike in ["B0b", "Bob_", "B.ob", "b-o-b", "BOB", "8ob", "_B_0_B_"] {
            assert_eq!(s(alike), s("Bob"), "{alike}");
        }
        assert_eq!(s("L33t5"), s("leets"));
        assert_eq!(s("Bill"), s("B1ll"));
        assert_ne!(s("Bob"), s("Bobby"));
        // The skeleton of a name that could never be checked (an older one) is still defined.
        assert_eq!(skeleton_of("p\u{430}ypal"), skeleton_of("paypal"));
    }
}
