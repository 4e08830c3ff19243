//! Bytes to text: byte order marks, UTF-16, the root node's `CA` property, and detection.
//!
//! SGF files in the wild come in every character set their authors' systems used: GB2312/GBK from Chinese
//! servers, Shift_JIS from Japanese ones, EUC-KR from Korean ones, Big5, Latin-1, and lately UTF-8 (with or
//! without a byte order mark) and now and then UTF-16. [`decode`] turns any such file into text; it never
//! fails and never panics. The decoding itself is done by `encoding_rs` (the WHATWG Encoding Standard's
//! tables) and guesses are made by `chardetng`.
//!
//! The order of the rules:
//! 1. A byte order mark decides: UTF-8, UTF-16LE or UTF-16BE (the mark is not part of the text).
//! 2. A file that starts with `(` and `;` as UTF-16 code units (possibly after whitespace), i.e. `(\0;\0` or
//!    `\0(\0;`, is UTF-16 without a mark.
//! 3. Otherwise the file is ASCII-compatible, so the root node's `CA[...]` can be found by a byte scan that
//!    follows the SGF syntax (values, escapes), wherever it stands among the root's properties. A known label
//!    decides, with two corrections for files whose `CA` does not describe their bytes: a file that is valid
//!    UTF-8 (with non-ASCII text) is read as UTF-8 when its `CA` names a single-byte charset, or a multi-byte
//!    one that finds malformed sequences in it, or when it has at least [`UTF8_EVIDENCE`] non-ASCII bytes; and
//!    a file whose `CA` says UTF-8 but whose malformed sequences outnumber its UTF-8 characters is read in the
//!    detected charset (if that reads it without errors). An unknown label is a warning, then rule 4.
//! 4. Without `CA`, valid UTF-8 is UTF-8 (the [`EncodingSource::Default`]); anything else is guessed by
//!    `chardetng` from the whole file ([`EncodingSource::Detected`]).
//!
//! Malformed sequences become U+FFFD, with a warning that names the encoding and the first byte offset.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{
    BIG5, DecoderResult, EUC_JP, EUC_KR, Encoding, GB18030, GBK, ISO_2022_JP, REPLACEMENT,
    SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252,
};

/// How the character set of a file was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodingSource {
    /// A byte order mark (UTF-8, UTF-16LE, UTF-16BE).
    Bom,
    /// The root node's `CA` property; the label as written in the file.
    Ca(String),
    /// Guessed from the bytes: UTF-16 without a mark, a `CA` that does not fit the bytes, or no `CA` and bytes
    /// that are not UTF-8.
    Detected,
    /// No `CA`, and the bytes are valid UTF-8 (plain ASCII included).
    Default,
}

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without a byte order mark; malformed byte sequences replaced by U+FFFD.
    pub text: String,
    /// The canonical name of the character set that was used: `UTF-8`, `GB18030` (also for GB2312 and GBK,
    /// whose decoder is the same), `Shift_JIS`, `EUC-KR`, `Big5`, `UTF-16LE`, `windows-1252` (also for
    /// ISO-8859-1 and ASCII, as the Encoding Standard maps them), `ISO-8859-2`, …
    pub encoding: &'static str,
    pub source: EncodingSource,
    /// Everything that was doubtful: malformed sequences, unknown or contradicted `CA` labels, guesses.
    pub warnings: Vec<String>,
}

/// Decodes the bytes of an SGF file. See the [module documentation](self) for the rules.
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return with_bom(bytes, encoding, bom_len);
    }
    if let Some(encoding) = sniff_utf16(bytes) {
        let decoding = Decoding::run(encoding, bytes, 0);
        let mut warnings = vec![format!(
            "no byte order mark, but the file starts like {} text",
            canonical_name(encoding)
        )];
        decoding.warn(&mut warnings);
        return Decoded {
            text: decoding.text,
            encoding: canonical_name(encoding),
            source: EncodingSource::Detected,
            warnings,
        };
    }

    let mut warnings = Vec::new();
    let utf8 = std::str::from_utf8(bytes).ok();
    let has_non_ascii = !bytes.is_ascii();

    if let Some(raw) = root_ca(bytes, Escapes::Always) {
        let written = String::from_utf8_lossy(raw).into_owned();
        match label_encoding(raw) {
            Some(encoding) if usable_for_ca(encoding) => {
                return with_ca(bytes, encoding, written, utf8, has_non_ascii);
            }
            Some(encoding) => warnings.push(format!(
                "CA[{written}] names {}, which cannot describe a file whose CA is readable as ASCII: ignored",
                canonical_name(encoding)
            )),
            None => warnings.push(format!("unknown character set CA[{written}]: ignored")),
        }
    } else if utf8.is_none() {
        // The escape-aware scan may have been misled by a trail byte 0x5C (`\`) of a double-byte character
        // before `CA`; such a file is not UTF-8. A `CA` found by a scan that takes `\` after a non-ASCII byte
        // literally is used only if its encoding reads the whole file without a malformed sequence.
        if let Some(raw) = root_ca(bytes, Escapes::NotAfterNonAscii)
            && let Some(encoding) = label_encoding(raw).filter(|&e| usable_for_ca(e))
        {
            let decoding = Decoding::run(encoding, bytes, 0);
            if decoding.malformed == 0 {
                return Decoded {
                    text: decoding.text,
                    encoding: canonical_name(encoding),
                    source: EncodingSource::Ca(String::from_utf8_lossy(raw).into_owned()),
                    warnings,
                };
            }
        }
    }

    if let Some(text) = utf8 {
        if bytes.contains(&0x1B)
            && !has_non_ascii
            && detect(bytes, Utf8Detection::Allow) == ISO_2022_JP
        {
            let decoding = Decoding::run(ISO_2022_JP, bytes, 0);
            warnings.push(
                "no usable CA; the escape sequences are ISO-2022-JP: read as ISO-2022-JP".into(),
            );
            decoding.warn(&mut warnings);
            return Decoded {
                text: decoding.text,
                encoding: canonical_name(ISO_2022_JP),
                source: EncodingSource::Detected,
                warnings,
            };
        }
        return Decoded {
            text: text.to_string(),
            encoding: canonical_name(UTF_8),
            source: EncodingSource::Default,
            warnings,
        };
    }
    let encoding = detect(bytes, Utf8Detection::Deny);
    let decoding = Decoding::run(encoding, bytes, 0);
    warnings.push(format!(
        "no usable CA and the bytes are not UTF-8: guessed {}",
        canonical_name(encoding)
    ));
    decoding.warn(&mut warnings);
    Decoded {
        text: decoding.text,
        encoding: canonical_name(encoding),
        source: EncodingSource::Detected,
        warnings,
    }
}

/// Rule 1: the byte order mark decides; a `CA` that says otherwise is reported.
fn with_bom(bytes: &[u8], encoding: &'static Encoding, bom_len: usize) -> Decoded {
    let decoding = Decoding::run(encoding, &bytes[bom_len..], bom_len);
    let mut warnings = Vec::new();
    if let Some(raw) = root_ca(decoding.text.as_bytes(), Escapes::Always) {
        let agrees = label_encoding(raw).is_some_and(|declared| {
            declared == encoding || (is_utf16(declared) && is_utf16(encoding))
        });
        if !agrees {
            warnings.push(format!(
                "the byte order mark says {}; CA[{}] ignored",
                canonical_name(encoding),
                String::from_utf8_lossy(raw)
            ));
        }
    }
    decoding.warn(&mut warnings);
    Decoded {
        text: decoding.text,
        encoding: canonical_name(encoding),
        source: EncodingSource::Bom,
        warnings,
    }
}

/// The number of non-ASCII bytes, all forming valid UTF-8, from which a file is taken to be UTF-8 whatever
/// multi-byte charset its `CA` names. Text in GBK, Shift_JIS, EUC-KR or Big5 is rarely valid UTF-8: measured on
/// random runs of 6 characters (12 bytes), at most 2 in 10,000 runs are (Big5; GBK, EUC-KR and Shift_JIS far
/// fewer), and separate runs multiply these odds. UTF-8 text decoded as GBK, on the other hand, is mostly
/// well-formed mojibake, so the decoder's errors alone would not reveal it.
pub const UTF8_EVIDENCE: usize = 12;

/// Rule 3: a known, ASCII-compatible `CA` label, checked against the bytes.
fn with_ca(
    bytes: &[u8],
    declared: &'static Encoding,
    written: String,
    utf8: Option<&str>,
    has_non_ascii: bool,
) -> Decoded {
    let name = canonical_name(declared);
    let mut warnings = Vec::new();
    if declared == UTF_8 {
        if let Some(text) = utf8 {
            return Decoded {
                text: text.to_string(),
                encoding: name,
                source: EncodingSource::Ca(written),
                warnings,
            };
        }
        let decoding = Decoding::run(UTF_8, bytes, 0);
        // More malformed sequences than real non-ASCII characters: the CA is wrong, not the bytes.
        if decoding.malformed > decoding.valid_non_ascii() {
            let guess = detect(bytes, Utf8Detection::Deny);
            let guessed = Decoding::run(guess, bytes, 0);
            if guessed.malformed == 0 {
                warnings.push(format!(
                    "CA[{written}] but the bytes are not UTF-8 ({} malformed sequences): read as {}, \
                     guessed from the bytes",
                    decoding.malformed,
                    canonical_name(guess)
                ));
                return Decoded {
                    text: guessed.text,
                    encoding: canonical_name(guess),
                    source: EncodingSource::Detected,
                    warnings,
                };
            }
        }
        decoding.warn(&mut warnings);
        return Decoded {
            text: decoding.text,
            encoding: name,
            source: EncodingSource::Ca(written),
            warnings,
        };
    }

    let decoding = Decoding::run(declared, bytes, 0);
    let non_ascii = if utf8.is_some() && has_non_ascii {
        bytes.iter().filter(|b| !b.is_ascii()).count()
    } else {
        0
    };
    if let Some(text) = utf8
        && non_ascii > 0
        && (declared.is_single_byte() || decoding.malformed > 0 || non_ascii >= UTF8_EVIDENCE)
    {
        let reason = if decoding.malformed > 0 {
            format!("{} malformed {name} sequences", decoding.malformed)
        } else if declared.is_single_byte() {
            "a single-byte charset would turn their UTF-8 into mojibake".to_string()
        } else {
            format!("{non_ascii} non-ASCII bytes that all form UTF-8 characters")
        };
        warnings.push(format!(
            "CA[{written}] does not fit the bytes ({reason}), which are valid UTF-8: read as UTF-8"
        ));
        return Decoded {
            text: text.to_string(),
            encoding: canonical_name(UTF_8),
            source: EncodingSource::Detected,
            warnings,
        };
    }
    decoding.warn(&mut warnings);
    Decoded {
        text: decoding.text,
        encoding: name,
        source: EncodingSource::Ca(written),
        warnings,
    }
}

/// The result of decoding with one encoding, counting malformed sequences.
struct Decoding {
    text: String,
    encoding: &'static Encoding,
    malformed: usize,
    /// The byte offset (in the whole file) of the first malformed sequence.
    first_malformed: usize,
}

impl Decoding {
    /// Decodes `bytes` (which start at `offset` in the file) without BOM handling; malformed sequences
    /// become U+FFFD.
    fn run(encoding: &'static Encoding, bytes: &[u8], offset: usize) -> Decoding {
        let mut decoder = encoding.new_decoder_without_bom_handling();
        let room = |decoder: &encoding_rs::Decoder, remaining: usize| {
            decoder
                .max_utf8_buffer_length_without_replacement(remaining)
                .unwrap_or_else(|| remaining.saturating_mul(3))
                .saturating_add(4)
        };
        let mut text = String::with_capacity(room(&decoder, bytes.len()));
        let mut malformed = 0;
        let mut first_malformed = 0;
        let mut pos = 0;
        loop {
            let (result, read) =
                decoder.decode_to_string_without_replacement(&bytes[pos..], &mut text, true);
            pos += read;
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => text.reserve(room(&decoder, bytes.len() - pos)),
                DecoderResult::Malformed(bad, after) => {
                    if malformed == 0 {
                        first_malformed =
                            offset + pos.saturating_sub(usize::from(bad) + usize::from(after));
                    }
                    malformed += 1;
                    text.push('\u{FFFD}');
                }
            }
        }
        Decoding {
            text,
            encoding,
            malformed,
            first_malformed,
        }
    }

    /// The non-ASCII characters that were decoded from real sequences (not replacements).
    fn valid_non_ascii(&self) -> usize {
        let non_ascii = self.text.chars().filter(|c| !c.is_ascii()).count();
        non_ascii.saturating_sub(self.malformed)
    }

    /// Adds a warning if any sequence was malformed.
    fn warn(&self, warnings: &mut Vec<String>) {
        if self.malformed > 0 {
            warnings.push(format!(
                "{} malformed {} sequence{} (the first at byte {}) replaced by U+FFFD",
                self.malformed,
                canonical_name(self.encoding),
                if self.malformed == 1 { "" } else { "s" },
                self.first_malformed
            ));
        }
    }
}

/// The name reported for an encoding: the Encoding Standard's, except that the GBK family is reported as
/// `GB18030` (the decoders are identical and GB18030 is the superset).
fn canonical_name(encoding: &'static Encoding) -> &'static str {
    if encoding == GB18030 || encoding == GBK {
        "GB18030"
    } else {
        encoding.name()
    }
}

fn is_utf16(encoding: &'static Encoding) -> bool {
    encoding == UTF_16LE || encoding == UTF_16BE
}

/// Whether an encoding named by a `CA` that was found by an ASCII scan can be used. UTF-16 cannot (the file
/// would not be readable as ASCII), nor can the Encoding Standard's "replacement" encoding (ISO-2022-KR,
/// ISO-2022-CN, HZ), which decodes everything to a single U+FFFD.
fn usable_for_ca(encoding: &'static Encoding) -> bool {
    !is_utf16(encoding) && encoding != REPLACEMENT
}

/// Maps a `CA` label to an encoding: the Encoding Standard's labels (which include `GB2312`, `GBK`,
/// `Shift_JIS`, `SJIS`, `MS_Kanji`, `EUC-KR`, `Big5`, `ISO-8859-x`, `latin1`, `UTF8`, …), then the spellings
/// other programs write (`CP936`, `CP932`, `CP949`, `UHC`, `CP950`, `ShiftJIS`, `UTF16LE`, `ISO_8859_1`, …),
/// compared without case, `-`, `_`, `.` or spaces. The GBK family decodes as GB18030.
fn label_encoding(raw: &[u8]) -> Option<&'static Encoding> {
    let label: Vec<u8> = raw.iter().copied().filter(|&b| b != b'\\').collect();
    let label = label.trim_ascii();
    if label.is_empty() || !label.is_ascii() {
        return None;
    }
    let encoding = Encoding::for_label(label).or_else(|| alias(label))?;
    Some(if encoding == GBK { GB18030 } else { encoding })
}

/// The spellings of charset names that the Encoding Standard does not list.
fn alias(label: &[u8]) -> Option<&'static Encoding> {
    let compact: String = label
        .iter()
        .filter(|b| !matches!(b, b'-' | b'_' | b'.' | b' ' | b'\t'))
        .map(|b| char::from(b.to_ascii_lowercase()))
        .collect();
    let encoding = match compact.as_str() {
        "utf8" | "utf8n" | "unicode11utf8" => UTF_8,
        "utf16" | "utf16le" | "ucs2" | "ucs2le" | "unicode" => UTF_16LE,
        "utf16be" | "ucs2be" | "unicodefffe" => UTF_16BE,
        "gb2312" | "gbk" | "gb18030" | "cp936" | "ms936" | "windows936" | "euccn" | "gb231280"
        | "xgbk" | "cp54936" => GB18030,
        "shiftjis" | "sjis" | "xsjis" | "mskanji" | "cp932" | "ms932" | "windows31j"
        | "windows932" => SHIFT_JIS,
        "eucjp" | "ujis" | "xeucjp" | "cp51932" => EUC_JP,
        "euckr" | "cp949" | "ms949" | "uhc" | "windows949" | "ksc5601" | "ksc56011987"
        | "ksx1001" => EUC_KR,
        "big5" | "big5hkscs" | "cp950" | "ms950" | "windows950" | "cnbig5" | "xxbig5" => BIG5,
        "iso2022jp" | "jis" | "csiso2022jp" => ISO_2022_JP,
        "latin1" | "iso88591" | "cp1252" | "ascii" | "usascii" | "cp819" | "ibm819" => WINDOWS_1252,
        _ => {
            if let Some(part) = compact.strip_prefix("iso8859") {
                return Encoding::for_label(format!("iso-8859-{part}").as_bytes());
            }
            if let Some(number) = compact
                .strip_prefix("cp")
                .or_else(|| compact.strip_prefix("windows"))
            {
                return Encoding::for_label(format!("windows-{number}").as_bytes());
            }
            if let Some(variant) = compact.strip_prefix("koi8") {
                return Encoding::for_label(format!("koi8-{variant}").as_bytes());
            }
            return None;
        }
    };
    Some(encoding)
}

/// Rule 2: UTF-16 without a byte order mark, recognised by `(` then `;` (whitespace allowed around them) as
/// the first code units.
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let starts_game = |units: &mut dyn Iterator<Item = u16>| {
        let mut significant = units.filter(|&u| !matches!(u, 0x20 | 0x09 | 0x0A | 0x0D));
        significant.next() == Some(u16::from(b'(')) && significant.next() == Some(u16::from(b';'))
    };
    let pairs = || bytes.chunks_exact(2).take(256);
    if starts_game(&mut pairs().map(|p| u16::from_le_bytes([p[0], p[1]]))) {
        Some(UTF_16LE)
    } else if starts_game(&mut pairs().map(|p| u16::from_be_bytes([p[0], p[1]]))) {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// Guesses the encoding of the whole file with `chardetng`.
fn detect(bytes: &[u8], utf8: Utf8Detection) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    detector.guess(None, utf8)
}

/// How the `CA` scan treats a backslash inside a value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// `\` always escapes the next byte (the SGF rule, right for every ASCII-compatible file whose multi-byte
    /// characters never contain the byte 0x5C: UTF-8, EUC-x, ISO-8859-x).
    Always,
    /// A `\` right after a non-ASCII byte is taken as the trail byte of a double-byte character (Shift_JIS,
    /// GBK and Big5 have such trail bytes) and escapes nothing.
    NotAfterNonAscii,
}

/// The raw bytes of the first value of the `CA` property of the first game tree's root node, found by a scan
/// of the SGF syntax (which is ASCII in every ASCII-compatible charset): properties of later nodes, and
/// `CA[` inside values, are not taken. Identifiers are compared on their upper-case letters (FF[3] allowed
/// lower-case letters in them).
fn root_ca(bytes: &[u8], escapes: Escapes) -> Option<&[u8]> {
    // The root node starts after the first `(` and the `;` that follows it (a missing `;` is tolerated), or
    // after the first `;` in a file without `(`.
    let mut i = match bytes.iter().position(|&b| b == b'(') {
        Some(open) => {
            let mut j = open + 1;
            while j < bytes.len() && (bytes[j].is_ascii_whitespace() || bytes[j] == b'(') {
                j += 1;
            }
            if bytes.get(j) == Some(&b';') {
                j + 1
            } else {
                j
            }
        }
        None => bytes.iter().position(|&b| b == b';')? + 1,
    };
    // The current identifier's upper-case letters (at most 3 kept: more than 2 cannot be `CA`).
    let mut ident = [0u8; 3];
    let mut ident_len = 0usize;
    let mut in_ident = false;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'[' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b']' {
                    if bytes[j] == b'\\'
                        && (escapes == Escapes::Always || j == start || bytes[j - 1] < 0x80)
                    {
                        j += 1;
                    }
                    j += 1;
                }
                let end = j.min(bytes.len());
                if ident_len == 2 && ident[..2] == *b"CA" {
                    return Some(&bytes[start..end]);
                }
                in_ident = false;
                i = end + 1;
                continue;
            }
            b';' | b'(' | b')' => return None,
            b'A'..=b'Z' => {
                if !in_ident {
                    ident_len = 0;
                    in_ident = true;
                }
                if ident_len < 3 {
                    ident[ident_len] = b;
                }
                ident_len = ident_len.saturating_add(1);
            }
            b'a'..=b'z' => {
                if !in_ident {
                    ident_len = 0;
                    in_ident = true;
                }
            }
            _ if b.is_ascii_whitespace() => in_ident = false,
            _ => {
                ident_len = 0;
                in_ident = false;
            }
        }
        i += 1;
    }
    None
}
