//! Character sets: byte order marks, UTF-16, the root node's `CA`, and detection (issue 3, item 2).
//!
//! The expectations for the Sabaki files are those of `tests/data/sabaki-sgf/SOURCE.txt`. They are checked on
//! the decoded text (`PW[柯洁]` and so on), independently of the parser.

use encoding_rs::{BIG5, EUC_KR, Encoding, GB18030, ISO_2022_JP, SHIFT_JIS};
use proptest::prelude::*;
use tesuji_sgf::encoding::{Decoded, EncodingSource, UTF8_EVIDENCE, decode};

fn sabaki(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/data/sabaki-sgf/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ca(label: &str) -> EncodingSource {
    EncodingSource::Ca(label.to_string())
}

/// The bytes of `text` in `encoding`; every character must be encodable.
fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(
        !unmappable,
        "{text:?} is not encodable in {}",
        encoding.name()
    );
    bytes.into_owned()
}

/// `parts` concatenated: text parts as UTF-8 (they are ASCII where it matters), byte parts as they are.
fn file(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn assert_clean(decoded: &Decoded) {
    assert!(
        decoded.warnings.is_empty(),
        "unexpected warnings {:?}",
        decoded.warnings
    );
    assert!(
        !decoded.text.contains('\u{FFFD}'),
        "U+FFFD in {:?}",
        decoded.text
    );
}

fn has_warning(decoded: &Decoded, needle: &str) -> bool {
    decoded.warnings.iter().any(|w| w.contains(needle))
}

// ---- The Sabaki files -------------------------------------------------------------------------------------

#[test]
fn chinese_gb2312_with_ca_after_pb() {
    let decoded = decode(&sabaki("chinese.sgf"));
    assert_eq!(decoded.encoding, "GB18030");
    assert_eq!(decoded.source, ca("GB2312"));
    assert_clean(&decoded);
    assert!(decoded.text.contains("PW[柯洁]"), "{}", decoded.text);
    assert!(decoded.text.contains("PB[古力]"), "{}", decoded.text);
    assert!(
        decoded.text.contains(";W[dp]C[围棋 is fun]"),
        "{}",
        decoded.text
    );
}

#[test]
fn japanese_shift_jis() {
    let decoded = decode(&sabaki("japanese.sgf"));
    assert_eq!(decoded.encoding, "Shift_JIS");
    assert_eq!(decoded.source, ca("Shift_JIS"));
    assert_clean(&decoded);
    assert!(
        decoded.text.contains(";W[dp]C[囲碁 is fun]"),
        "{}",
        decoded.text
    );
    assert!(decoded.text.contains("PB[井山 裕太]"), "{}", decoded.text);
    assert!(decoded.text.contains("PW[山下 敬吾]"), "{}", decoded.text);
}

#[test]
fn korean_euc_kr() {
    let decoded = decode(&sabaki("korean.sgf"));
    assert_eq!(decoded.encoding, "EUC-KR");
    assert_eq!(decoded.source, ca("EUC-KR"));
    assert_clean(&decoded);
    assert!(
        decoded.text.contains(";W[dp]C[바둑 is fun]"),
        "{}",
        decoded.text
    );
    assert!(decoded.text.contains("PB[이세돌]"), "{}", decoded.text);
    assert!(decoded.text.contains("PW[박정환]"), "{}", decoded.text);
}

/// `CA[MS_KANJI]` on bytes that are not Shift_JIS (they are UTF-8 with replacement characters already in
/// them): no crash, a warning, and the structure of the file intact.
#[test]
fn japanese_bad_warns_and_survives() {
    let decoded = decode(&sabaki("japanese_bad.sgf"));
    assert!(has_warning(&decoded, "MS_KANJI"), "{:?}", decoded.warnings);
    assert!(decoded.text.starts_with("(;PB["), "{}", decoded.text);
    assert!(decoded.text.contains("CA[MS_KANJI]"));
    assert!(decoded.text.contains(";B[pd]\n;W[dp]C["));
    assert!(decoded.text.contains(" is fun]"));
}

#[test]
fn no_ca_is_detected_as_gb() {
    let decoded = decode(&sabaki("no-ca.sgf"));
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_ne!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.encoding, "GB18030");
    assert!(!decoded.text.contains('\u{FFFD}'));
    assert!(decoded.text.contains("C[【第三型】"), "{}", decoded.text);
    assert!(
        decoded.text.contains("怎样攻击碰在黑壁上的白三子呢"),
        "{}",
        decoded.text
    );
    assert!(has_warning(&decoded, "GB18030"), "{:?}", decoded.warnings);
}

#[test]
fn utf8_bom() {
    let bytes = sabaki("utf8bom.sgf");
    assert!(bytes.starts_with(b"\xEF\xBB\xBF"));
    let decoded = decode(&bytes);
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.source, EncodingSource::Bom);
    assert_clean(&decoded);
    assert!(
        decoded.text.starts_with('('),
        "BOM not stripped: {:?}",
        &decoded.text[..8]
    );
    let compact: String = decoded
        .text
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(2)
        .collect();
    assert_eq!(compact, "(;");
    assert!(decoded.text.contains("PW[Go Seigen]PB[Kitani Minoru]"));
}

#[test]
fn utf16le_with_bom() {
    let bytes = sabaki("utf16le.sgf");
    let decoded = decode(&bytes);
    assert_eq!(decoded.encoding, "UTF-16LE");
    assert_eq!(decoded.source, EncodingSource::Bom);
    // The file says CA[UTF16LE], which agrees with its mark.
    assert_clean(&decoded);
    assert!(decoded.text.starts_with('('));
    let compact: String = decoded
        .text
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(2)
        .collect();
    assert_eq!(compact, "(;");
    assert!(decoded.text.contains("PW[Go Seigen]PB[Kitani Minoru]"));
    assert!(decoded.text.contains("CA[UTF16LE]"));
    assert!(decoded.text.trim_end().ends_with(')'));
}

#[test]
fn nihon_kiin_shift_jis_without_ca_is_detected() {
    let path = format!(
        "{}/tests/data/sabaki-sgf/encoding/nihon-kiin.sgf",
        env!("CARGO_MANIFEST_DIR")
    );
    let decoded = decode(&std::fs::read(path).unwrap());
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.encoding, "Shift_JIS");
    assert!(!decoded.text.contains('\u{FFFD}'));
    assert!(decoded.text.contains("PW[党毅飛]"), "{}", decoded.text);
    assert!(
        decoded.text.contains("世界最高棋士決定戦"),
        "{}",
        decoded.text
    );
    assert!(decoded.text.contains("PC[韓国棋院]"), "{}", decoded.text);
}

#[test]
fn complex_utf8_with_ca() {
    let bytes = sabaki("complex.sgf");
    let decoded = decode(&bytes);
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.source, ca("UTF-8"));
    assert_clean(&decoded);
    assert_eq!(decoded.text.as_bytes(), &bytes[..]);
}

// ---- Finding CA in the root node --------------------------------------------------------------------------

#[test]
fn ca_after_other_root_properties_is_found() {
    let name = encode(BIG5, "聶衛平");
    let bytes = file(&[
        b"(;GM[1]FF[4]SZ[19]PB[",
        &name,
        b"]PW[Cho]KM[6.5]\n  CA[Big5]RU[Chinese];B[pd])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, ca("Big5"));
    assert_eq!(decoded.encoding, "Big5");
    assert_clean(&decoded);
    assert!(decoded.text.contains("PB[聶衛平]"), "{}", decoded.text);
}

#[test]
fn ca_with_whitespace_and_missing_semicolon_is_found() {
    let name = encode(EUC_KR, "이창호");
    let decoded = decode(&file(&[
        b"  (\r\n GM[1]PB[",
        &name,
        b"] CA [ euc-kr ] ;B[aa])",
    ]));
    assert_eq!(decoded.source, ca(" euc-kr "));
    assert_eq!(decoded.encoding, "EUC-KR");
    assert!(decoded.text.contains("PB[이창호]"), "{}", decoded.text);
}

#[test]
fn ca_inside_a_comment_is_ignored() {
    let ascii = decode(b"(;GM[1]C[please write CA[Big5] in your files]SZ[19];B[pd])");
    assert_eq!(ascii.source, EncodingSource::Default);
    assert_eq!(ascii.encoding, "UTF-8");
    assert_clean(&ascii);

    // UTF-8 text with a comment that names another charset: still UTF-8.
    let text = "(;C[try CA[Shift_JIS] here]PB[柯洁];B[pd])";
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Default);
    assert_eq!(decoded.text, text);
}

#[test]
fn ca_in_a_later_node_or_tree_is_ignored() {
    for text in [
        "(;GM[1]SZ[19];B[pd]CA[Big5];W[dp])",
        "(;GM[1](;CA[Big5]B[pd])(;W[dp]))",
        "(;GM[1]SZ[19])(;CA[Big5]GM[1])",
        "(;GM[1]C[a];CA[EUC-KR])",
    ] {
        let decoded = decode(text.as_bytes());
        assert_eq!(decoded.source, EncodingSource::Default, "{text}");
        assert_eq!(decoded.text, text);
    }
    // The same with non-ASCII bytes that are not UTF-8: the later CA does not decide, detection does.
    let bytes = file(&[
        b"(;GM[1]C[",
        &encode(GB18030, "这是从压长星定式演变而来的形"),
        b"];B[pd]CA[Big5])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, EncodingSource::Detected);
}

#[test]
fn escaped_bracket_in_an_earlier_value_does_not_confuse_the_scan() {
    let name = encode(EUC_KR, "바둑");
    // `\]` inside C does not end it, so `CA[Big5\]` is comment text; the real CA follows.
    let bytes = file(&[
        b"(;C[a \\] CA[Big5\\] b]GM[1]CA[EUC-KR]PB[",
        &name,
        b"];B[aa])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, ca("EUC-KR"));
    assert_eq!(decoded.encoding, "EUC-KR");
    assert!(decoded.text.contains("PB[바둑]"), "{}", decoded.text);

    // An escaped backslash right before `]` does not escape the bracket.
    let decoded = decode(&file(&[b"(;C[dir C:\\\\]CA[EUC-KR]PB[", &name, b"])"]));
    assert_eq!(decoded.source, ca("EUC-KR"));

    // The only CA hidden behind an escaped bracket: none found.
    let decoded = decode(b"(;C[a \\] CA[Big5] b]GM[1];B[aa])");
    assert_eq!(decoded.source, EncodingSource::Default);

    // The same right after a non-ASCII character, in UTF-8 (whose bytes never contain `\`).
    let text = "(;C[柯\\] CA[Big5] 洁]PB[古力];B[aa])";
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Default);
    assert_eq!(decoded.text, text);
}

#[test]
fn longer_identifiers_are_not_ca() {
    for text in ["(;CAX[Big5]GM[1])", "(;XCA[Big5]GM[1])", "(;C[x]A[Big5])"] {
        assert_eq!(
            decode(text.as_bytes()).source,
            EncodingSource::Default,
            "{text}"
        );
    }
    // FF[3] identifiers may carry lower-case letters: only the upper-case ones count.
    let decoded = decode(b"(;GaMe[1]ChArset[Big5])");
    assert_eq!(decoded.source, ca("Big5"));
}

/// Shift_JIS characters whose second byte is 0x5C (`\`), like ソ (83 5C), look like an escape to a plain scan;
/// a file that is not UTF-8 is scanned again with that in mind.
#[test]
fn shift_jis_trail_backslash_before_ca() {
    let name = encode(SHIFT_JIS, "申眞ソ");
    assert_eq!(name.last(), Some(&b'\\'));
    let bytes = file(&[
        b"(;PB[",
        &name,
        b"]CA[Shift_JIS]PW[",
        &encode(SHIFT_JIS, "党毅飛"),
        b"];B[pd])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, ca("Shift_JIS"));
    assert_eq!(decoded.encoding, "Shift_JIS");
    assert_clean(&decoded);
    assert!(
        decoded.text.contains("PB[申眞ソ]CA[Shift_JIS]PW[党毅飛]"),
        "{}",
        decoded.text
    );
}

// ---- Labels -----------------------------------------------------------------------------------------------

#[test]
fn label_aliases() {
    let cases = [
        ("UTF-8", "UTF-8"),
        ("utf-8", "UTF-8"),
        ("UTF8", "UTF-8"),
        ("utf_8", "UTF-8"),
        ("GB2312", "GB18030"),
        ("gb2312", "GB18030"),
        ("GBK", "GB18030"),
        ("GB18030", "GB18030"),
        ("CP936", "GB18030"),
        ("GB_2312-80", "GB18030"),
        ("Shift_JIS", "Shift_JIS"),
        ("SHIFT-JIS", "Shift_JIS"),
        ("ShiftJIS", "Shift_JIS"),
        ("SJIS", "Shift_JIS"),
        ("MS_Kanji", "Shift_JIS"),
        ("CP932", "Shift_JIS"),
        ("Windows-31J", "Shift_JIS"),
        ("EUC-JP", "EUC-JP"),
        ("EUC-KR", "EUC-KR"),
        ("EUCKR", "EUC-KR"),
        ("euc_kr", "EUC-KR"),
        ("CP949", "EUC-KR"),
        ("UHC", "EUC-KR"),
        ("KS_C_5601-1987", "EUC-KR"),
        ("Big5", "Big5"),
        ("BIG-5", "Big5"),
        ("Big5-HKSCS", "Big5"),
        ("CP950", "Big5"),
        ("ISO-8859-1", "windows-1252"),
        ("ISO_8859_1", "windows-1252"),
        ("iso8859-1", "windows-1252"),
        ("Latin1", "windows-1252"),
        ("US-ASCII", "windows-1252"),
        ("ISO-8859-2", "ISO-8859-2"),
        ("ISO_8859-5", "ISO-8859-5"),
        ("iso8859_7", "ISO-8859-7"),
        ("ISO-8859-15", "ISO-8859-15"),
        ("windows-1251", "windows-1251"),
        ("CP1250", "windows-1250"),
        ("KOI8-R", "KOI8-R"),
        ("ISO-2022-JP", "ISO-2022-JP"),
    ];
    for (label, expected) in cases {
        let text = format!("(;FF[4]CA[{label}]C[plain text];B[pd])");
        let decoded = decode(text.as_bytes());
        assert_eq!(decoded.source, ca(label), "{label}");
        assert_eq!(decoded.encoding, expected, "{label}");
        assert_clean(&decoded);
        assert_eq!(decoded.text, text, "{label}");
    }
}

#[test]
fn unknown_label_warns_and_falls_back() {
    let text = "(;CA[Klingon-8]C[plain];B[pd])";
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Default);
    assert_eq!(decoded.encoding, "UTF-8");
    assert!(
        has_warning(&decoded, "CA[Klingon-8]"),
        "{:?}",
        decoded.warnings
    );
    assert_eq!(decoded.text, text);

    let bytes = file(&[
        b"(;CA[MS-Kanji-7]C[",
        &encode(SHIFT_JIS, "第1回ソパルコサノル世界最高棋士決定戦第9戦"),
        b"])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.encoding, "Shift_JIS");
    assert!(
        has_warning(&decoded, "CA[MS-Kanji-7]"),
        "{:?}",
        decoded.warnings
    );
    assert!(decoded.text.contains("世界最高棋士決定戦"));
}

#[test]
fn labels_that_cannot_describe_an_ascii_readable_file_are_ignored() {
    // UTF-16 without a BOM cannot contain a CA readable as ASCII; "replacement" labels (ISO-2022-KR, HZ)
    // would turn the whole file into one U+FFFD.
    for label in ["UTF-16", "UTF-16BE", "ISO-2022-KR", "HZ-GB-2312"] {
        let text = format!("(;CA[{label}]C[plain])");
        let decoded = decode(text.as_bytes());
        assert_eq!(decoded.source, EncodingSource::Default, "{label}");
        assert_eq!(decoded.text, text, "{label}");
        assert!(
            has_warning(&decoded, label),
            "{label}: {:?}",
            decoded.warnings
        );
    }
}

// ---- CA that does not fit the bytes -----------------------------------------------------------------------

#[test]
fn ca_utf8_on_gb_bytes_is_overridden_by_detection() {
    let comment = "这是从压长星定式演变而来的形。怎样攻击碰在黑壁上的白三子呢？";
    let bytes = file(&[b"(;CA[UTF-8]GM[1]C[", &encode(GB18030, comment), b"])"]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.encoding, "GB18030");
    assert!(decoded.text.contains(comment), "{}", decoded.text);
    assert!(has_warning(&decoded, "CA[UTF-8]"), "{:?}", decoded.warnings);
}

#[test]
fn ca_utf8_with_one_bad_byte_stays_utf8() {
    let bytes = file(&[
        "(;CA[UTF-8]PB[柯洁]PW[古力]C[围棋 is fun".as_bytes(),
        b"\xFF",
        b"])",
    ]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, ca("UTF-8"));
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(
        decoded.text,
        "(;CA[UTF-8]PB[柯洁]PW[古力]C[围棋 is fun\u{FFFD}])"
    );
    let offset = bytes.iter().position(|&b| b == 0xFF).unwrap();
    assert_eq!(decoded.warnings.len(), 1, "{:?}", decoded.warnings);
    assert!(
        decoded.warnings[0].contains("UTF-8"),
        "{:?}",
        decoded.warnings
    );
    assert!(
        decoded.warnings[0].contains(&format!("byte {offset}")),
        "{:?}",
        decoded.warnings
    );
}

#[test]
fn malformed_sequence_warning_names_the_declared_encoding() {
    // 0xFF is neither Shift_JIS nor UTF-8.
    let bytes = file(&[b"(;CA[Shift_JIS]C[", &encode(SHIFT_JIS, "囲碁"), b"\xFF])"]);
    let decoded = decode(&bytes);
    assert_eq!(decoded.source, ca("Shift_JIS"));
    assert_eq!(decoded.text, "(;CA[Shift_JIS]C[囲碁\u{FFFD}])");
    assert!(has_warning(&decoded, "Shift_JIS"), "{:?}", decoded.warnings);
    assert!(has_warning(&decoded, "byte 21"), "{:?}", decoded.warnings);
}

#[test]
fn legacy_ca_on_utf8_bytes() {
    // A single-byte CA over UTF-8 text would give mojibake: read as UTF-8.
    let text = "(;CA[ISO-8859-1]PB[Müller]PW[Gößl])";
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.text, text);
    assert!(
        has_warning(&decoded, "CA[ISO-8859-1]"),
        "{:?}",
        decoded.warnings
    );

    // Real Latin-1 bytes are read as Latin-1 (windows-1252).
    let decoded = decode(b"(;CA[ISO-8859-1]PB[M\xFCller]PW[G\xF6\xDFl])");
    assert_eq!(decoded.source, ca("ISO-8859-1"));
    assert_eq!(decoded.encoding, "windows-1252");
    assert_eq!(decoded.text, "(;CA[ISO-8859-1]PB[Müller]PW[Gößl])");

    // A multi-byte CA that finds malformed sequences in valid UTF-8: UTF-8.
    let text = "(;CA[EUC-KR]PB[柯洁]C[围棋 is fun])";
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.text, text);
}

/// Legacy text that happens to be valid UTF-8 is still read by its CA when there is little of it.
#[test]
fn short_legacy_text_that_is_valid_utf8_keeps_its_ca() {
    let (hanzi, bytes) = ('\u{4E00}'..='\u{9FA5}')
        .map(|c| (c, encode(GB18030, &c.to_string())))
        .find(|(_, bytes)| std::str::from_utf8(bytes).is_ok())
        .expect("some GBK hanzi is valid UTF-8");
    let decoded = decode(&file(&[b"(;CA[GB2312]PB[", &bytes, b"])"]));
    assert_eq!(decoded.source, ca("GB2312"));
    assert_clean(&decoded);
    assert_eq!(decoded.text, format!("(;CA[GB2312]PB[{hanzi}])"));

    // With enough of it, valid UTF-8 wins over a multi-byte CA that decodes it without error.
    let text = "(;CA[GB2312]PB[柯洁]PW[古力])";
    let as_gbk = GB18030.decode_without_bom_handling(text.as_bytes());
    assert!(!as_gbk.1, "the UTF-8 bytes are well-formed GBK mojibake");
    let decoded = decode(text.as_bytes());
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.text, text);
    assert!(
        has_warning(&decoded, "CA[GB2312]"),
        "{:?}",
        decoded.warnings
    );
}

// ---- BOMs, UTF-16 -----------------------------------------------------------------------------------------

fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if little_endian {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            }
        })
        .collect()
}

#[test]
fn utf16_with_and_without_bom() {
    let text = "(;CA[UTF-16]PB[柯洁]C[围棋 is fun 🀄];B[pd])";
    for (little_endian, name) in [(true, "UTF-16LE"), (false, "UTF-16BE")] {
        let body = utf16(text, little_endian);
        let bom: &[u8] = if little_endian {
            b"\xFF\xFE"
        } else {
            b"\xFE\xFF"
        };
        let decoded = decode(&file(&[bom, &body]));
        assert_eq!(
            (decoded.encoding, &decoded.source),
            (name, &EncodingSource::Bom)
        );
        assert_clean(&decoded);
        assert_eq!(decoded.text, text);

        let decoded = decode(&body);
        assert_eq!(
            (decoded.encoding, &decoded.source),
            (name, &EncodingSource::Detected)
        );
        assert_eq!(decoded.text, text);
        assert!(!decoded.text.contains('\u{FFFD}'));

        // Whitespace before the game.
        let decoded = decode(&utf16(&format!("\r\n  ({}", &text[1..]), little_endian));
        assert_eq!(decoded.encoding, name);
    }
}

#[test]
fn utf16_odd_length_warns() {
    let mut bytes = b"\xFF\xFE".to_vec();
    bytes.extend(utf16("(;B[pd])", true));
    bytes.push(b'x');
    let decoded = decode(&bytes);
    assert_eq!(decoded.encoding, "UTF-16LE");
    assert_eq!(decoded.text, "(;B[pd])\u{FFFD}");
    assert!(has_warning(&decoded, "UTF-16LE"), "{:?}", decoded.warnings);
}

#[test]
fn bom_wins_over_a_contradicting_ca() {
    let decoded = decode(&file(&[
        b"\xEF\xBB\xBF",
        "(;CA[GB2312]PB[柯洁])".as_bytes(),
    ]));
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.source, EncodingSource::Bom);
    assert_eq!(decoded.text, "(;CA[GB2312]PB[柯洁])");
    assert!(
        has_warning(&decoded, "CA[GB2312]"),
        "{:?}",
        decoded.warnings
    );

    // An agreeing CA is no warning.
    let decoded = decode(&file(&[b"\xEF\xBB\xBF", "(;CA[utf8]PB[柯洁])".as_bytes()]));
    assert_clean(&decoded);
}

#[test]
fn empty_and_ascii_input() {
    let decoded = decode(b"");
    assert_eq!(decoded.text, "");
    assert_eq!(decoded.encoding, "UTF-8");
    assert_eq!(decoded.source, EncodingSource::Default);
    assert_clean(&decoded);

    let decoded = decode(b"\xEF\xBB\xBF");
    assert_eq!(
        (decoded.text.as_str(), &decoded.source),
        ("", &EncodingSource::Bom)
    );

    for text in [
        "(",
        "(;",
        "(;CA[",
        "(;CA[UTF-8",
        "(;C[\\",
        "garbage without a game",
        ";CA[Big5]",
    ] {
        let decoded = decode(text.as_bytes());
        assert_eq!(decoded.text, text);
    }
    // A file without `(` (lenient readers accept `;B[hh];W[ii]`): the first node is the root.
    assert_eq!(decode(b";CA[Big5]B[hh];W[ii]").source, ca("Big5"));
}

#[test]
fn iso_2022_jp_without_ca_is_detected() {
    let text = "(;C[第1回ソパルコサノル世界最高棋士決定戦第9戦]PW[党毅飛];B[pd])";
    let bytes = encode(ISO_2022_JP, text);
    assert!(bytes.is_ascii() && bytes.contains(&0x1B));
    let decoded = decode(&bytes);
    assert_eq!(decoded.encoding, "ISO-2022-JP");
    assert_eq!(decoded.source, EncodingSource::Detected);
    assert_eq!(decoded.text, text);
}

// ---- Properties -------------------------------------------------------------------------------------------

/// Text of ASCII letters and digits, CJK ideographs, kana and hangul.
fn cjk_text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        prop::char::range('a', 'z'),
        prop::char::range('0', '9'),
        Just(' '),
        prop::char::range('\u{4E00}', '\u{9FA5}'),
        prop::char::range('\u{3041}', '\u{3093}'),
        prop::char::range('\u{30A1}', '\u{30F3}'),
        prop::char::range('\u{AC00}', '\u{D7A3}'),
    ];
    prop::collection::vec(ch, 0..40).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let decoded = decode(&bytes);
        prop_assert!(!decoded.encoding.is_empty());
        // Valid UTF-8 without BOM, CA or escape sequences is taken as it is.
        if let Ok(text) = std::str::from_utf8(&bytes)
            && decoded.source == EncodingSource::Default
        {
            prop_assert_eq!(decoded.text.as_str(), text);
        }
        // Only UTF-8 (EF BF BD), UTF-16 and GB18030 can spell U+FFFD; in any other case a replacement
        // character is a malformed sequence, which is always reported.
        let spelled = bytes.windows(3).any(|w| w == b"\xEF\xBF\xBD")
            || matches!(decoded.encoding, "UTF-16LE" | "UTF-16BE" | "GB18030");
        if decoded.text.contains('\u{FFFD}') && !spelled {
            prop_assert!(!decoded.warnings.is_empty());
        }
    }

    #[test]
    fn random_bytes_after_a_root_with_ca_never_panic(
        label in prop::sample::select(vec!["UTF-8", "GB2312", "Shift_JIS", "EUC-KR", "Big5", "ISO-8859-1",
                                           "UTF-16", "MS_KANJI", "x", "ISO-2022-JP", "ISO-2022-KR"]),
        prefix in prop::collection::vec(any::<u8>(), 0..40),
        rest in prop::collection::vec(any::<u8>(), 0..400),
    ) {
        let bytes = file(&[b"(;", &prefix, b"CA[", label.as_bytes(), b"]", &rest]);
        let decoded = decode(&bytes);
        prop_assert!(!decoded.encoding.is_empty());
        let decoded = decode(&file(&[b"(;CA[", label.as_bytes(), b"]", &rest]));
        prop_assert!(!decoded.encoding.is_empty());
    }

    #[test]
    fn utf8_text_round_trips(text in any::<String>(), with_ca in any::<bool>()) {
        let escaped = tesuji_sgf::tree::escape(&text);
        let file = if with_ca {
            format!("(;FF[4]CA[UTF-8]C[{escaped}];B[pd])")
        } else {
            format!("(;FF[4]C[{escaped}];B[pd])")
        };
        let decoded = decode(file.as_bytes());
        prop_assert_eq!(&decoded.text, &file);
        prop_assert_eq!(decoded.encoding, "UTF-8");
        prop_assert!(decoded.warnings.is_empty());
        let expected = if with_ca { ca("UTF-8") } else { EncodingSource::Default };
        prop_assert_eq!(decoded.source, expected);
    }

    #[test]
    fn legacy_text_round_trips_through_its_ca(
        text in cjk_text(),
        which in 0usize..4,
        before_ca in "[A-Z]{1,2}\\[[a-z ]{0,8}\\]",
    ) {
        prop_assume!(!before_ca.starts_with("CA"));
        let (encoding, label, name) = [
            (GB18030, "GB2312", "GB18030"),
            (SHIFT_JIS, "Shift_JIS", "Shift_JIS"),
            (EUC_KR, "EUC-KR", "EUC-KR"),
            (BIG5, "Big5", "Big5"),
        ][which];
        // Only the characters that the charset has.
        let text: String = text.chars().filter(|c| !encoding.encode(c.encode_utf8(&mut [0; 4])).2).collect();
        let bytes = encode(encoding, &text);
        let head = format!("(;{before_ca}CA[{label}]PB[");
        let decoded = decode(&file(&[head.as_bytes(), &bytes, b"];B[pd])"]));
        let non_ascii = bytes.iter().filter(|b| !b.is_ascii()).count();
        if std::str::from_utf8(&bytes).is_ok() && non_ascii >= UTF8_EVIDENCE {
            // The documented exception: this much text that happens to be valid UTF-8 is read as UTF-8.
            prop_assert_eq!(decoded.encoding, "UTF-8");
            prop_assert_eq!(decoded.source, EncodingSource::Detected);
        } else {
            prop_assert_eq!(decoded.encoding, name);
            prop_assert_eq!(&decoded.source, &ca(label));
            prop_assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
            prop_assert_eq!(decoded.text, format!("{head}{text}];B[pd])"));
        }
    }

    #[test]
    fn utf16_round_trips(text in any::<String>(), little_endian in any::<bool>(), bom in any::<bool>()) {
        let file_text = format!("(;C[{}])", tesuji_sgf::tree::escape(&text));
        let mut bytes = if !bom { Vec::new() } else if little_endian { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] };
        bytes.extend(utf16(&file_text, little_endian));
        let decoded = decode(&bytes);
        prop_assert_eq!(&decoded.text, &file_text);
        prop_assert_eq!(decoded.encoding, if little_endian { "UTF-16LE" } else { "UTF-16BE" });
        let expected = if bom { EncodingSource::Bom } else { EncodingSource::Detected };
        prop_assert_eq!(decoded.source, expected);
    }
}
