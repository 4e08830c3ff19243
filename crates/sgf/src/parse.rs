//! Text to tree: a lenient, single-pass, byte-level SGF reader.
//!
//! [`parse`] reads a whole collection and never panics. Anything it has to guess about is reported as a
//! [`Diagnostic`] (1-based line and column, in characters); only a text with no game tree at all is a
//! [`ParseError`]. Property values are kept raw (exactly as written between the brackets), so compressed point
//! lists and `SZ[w:h]` stay as they are in the tree; [`point_list`], [`parse_point`] and [`board_size`] read them.
//!
//! # Leniency (what good readers such as Sabaki and sgfmill accept)
//!
//! | input                                   | reading                                              | severity |
//! |-----------------------------------------|------------------------------------------------------|----------|
//! | text before, between or after the trees | skipped                                              | warning  |
//! | `;B[hh];W[ii]` (no outer `(`)           | the same as `(;B[hh];W[ii])`                         | warning  |
//! | `(B[hh];W[ii])` (no `;` before a node)  | a node starts at the property                        | warning  |
//! | `()` (empty variation or game tree)     | ignored                                              | warning  |
//! | `CoPyright[...]` (lower-case letters)   | only the upper-case letters are kept: `CP`           | warning  |
//! | `xy[...]` (no upper-case letter)        | the property is dropped                              | warning  |
//! | `KO` (a property with no value)         | kept with no values                                  | warning  |
//! | `B[aa]B[bb]` (same property twice)      | values merged into the first: `B[aa][bb]`            | warning  |
//! | `[aa]` with no identifier before it     | joins the property just read in the node, or dropped | warning  |
//! | `(;A(;B)(;C);D)` (node after variations)| `D` is one more variation of `A`                     | warning  |
//! | `((;A)(;B))` (two roots in one tree)    | two game trees                                       | warning  |
//! | other unexpected text inside a tree     | skipped                                              | warning  |
//! | value not closed at end of file         | the value runs to the end of the file                | error    |
//! | game tree not closed at end of file     | closed there                                         | error    |
//!
//! A leading byte order mark is skipped silently. Whitespace is allowed between any two tokens.
//!
//! # Speed
//!
//! One pass over the UTF-8 bytes with an explicit stack of open parentheses (no recursion, so 100,000 nested
//! variations are fine); the only allocations are the arena, one `String` per identifier and per value, and
//! the diagnostics, whose line and column are computed once at the end in one sweep.

use std::fmt;

use crate::tree::{Collection, NodeId, Property, Tree};

/// A parsed collection and every problem met while reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// At least one game tree.
    pub collection: Collection,
    /// In order of position in the text.
    pub diagnostics: Vec<Diagnostic>,
    /// Where each node starts (its `;`, or its first property when the `;` is missing): per tree of the
    /// collection, per node index of that tree's arena, a 1-based (line, column). For messages about a node
    /// found after parsing, such as an illegal move.
    pub node_positions: Vec<Vec<(usize, usize)>>,
}

impl Parsed {
    /// Whether any diagnostic is an error (as opposed to a warning).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// How bad a problem is: a warning is a guess that good readers make the same way; an error means the text
/// was damaged (something was cut off) and the tree may not be what the writer meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem in the text, at a 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: usize,
    pub column: usize,
    pub severity: Severity,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// A text that cannot be read as SGF at all (it holds no game tree).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses an SGF collection. See the module documentation for what is accepted and reported.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        diagnostics: Vec::new(),
        trees: Vec::new(),
        node_offsets: Vec::new(),
    };
    parser.collection();
    if parser.trees.is_empty() {
        let bytes = text.as_bytes();
        let start = bom_len(bytes);
        let mut offset = skip_ws(bytes, start);
        let message = if offset >= bytes.len() {
            offset = 0;
            "no SGF game tree: the text is empty".to_string()
        } else {
            "no SGF game tree found (expected '(;')".to_string()
        };
        let (line, column) = line_column(bytes, offset);
        return Err(ParseError {
            line,
            column,
            message,
        });
    }
    let diagnostics = locate(text.as_bytes(), parser.diagnostics);
    let node_positions = locate_nodes(text.as_bytes(), &parser.node_offsets);
    Ok(Parsed {
        collection: Collection {
            trees: parser.trees,
        },
        diagnostics,
        node_positions,
    })
}

/// A diagnostic before its line and column are known.
struct Pending {
    offset: usize,
    severity: Severity,
    message: String,
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    diagnostics: Vec<Pending>,
    trees: Vec<Tree>,
    /// Per finished tree, the byte offset where each of its nodes starts.
    node_offsets: Vec<Vec<usize>>,
}

/// An open parenthesis of the tree being read.
struct Open {
    /// The node the variation's first node hangs from (`None` before the root).
    parent: Option<NodeId>,
    offset: usize,
    /// Nodes created before it opened, to tell an empty `()`.
    created: usize,
}

/// The game tree being read.
struct Building {
    tree: Tree,
    root_used: bool,
    /// Where the current tree started, for the "empty game tree" warning.
    start: usize,
    /// The last node of the current sequence (new nodes become its children).
    current: Option<NodeId>,
    /// Whether properties may be added to `current` (false right after `(` or `)`).
    in_node: bool,
    /// A non-empty variation just closed: a node now would follow variations.
    after_variation: bool,
    /// The index in `current` of the property read last, which a value with no identifier joins.
    last_property: Option<usize>,
    created: usize,
    /// The byte offset where each node of `tree` starts, by arena index.
    offsets: Vec<usize>,
}

const MAX_QUOTE: usize = 24;

impl Parser<'_> {
    fn report(&mut self, offset: usize, severity: Severity, message: String) {
        self.diagnostics.push(Pending {
            offset,
            severity,
            message,
        });
    }

    fn warn(&mut self, offset: usize, message: String) {
        self.report(offset, Severity::Warning, message);
    }

    /// The top level: trees, and whatever lies around them.
    fn collection(&mut self) {
        let bytes = self.bytes;
        let mut pos = bom_len(bytes);
        loop {
            pos = skip_ws(bytes, pos);
            if pos >= bytes.len() {
                break;
            }
            if bytes[pos] == b'(' && opens_tree(bytes, pos) {
                pos = self.tree(pos, true);
                continue;
            }
            if bytes[pos] == b';' && starts_node(bytes, pos) {
                self.warn(pos, "game tree without '(': read as if it had one".into());
                pos = self.tree(pos, false);
                continue;
            }
            // Not SGF: skip to the next thing that looks like the start of a tree.
            let start = pos;
            pos += 1;
            while pos < bytes.len()
                && !((bytes[pos] == b'(' && opens_tree(bytes, pos))
                    || (bytes[pos] == b';' && starts_node(bytes, pos)))
            {
                pos += 1;
            }
            let message = if self.trees.is_empty() {
                "text before the first game tree skipped"
            } else if pos >= bytes.len() {
                "text after the last game tree ignored"
            } else {
                "text between game trees skipped"
            };
            self.warn(start, message.into());
        }
    }

    /// Reads one game tree from `start` (at its `(`, or at its first `;` when `explicit` is false) and returns
    /// the offset after it. Finished trees go to `self.trees`.
    fn tree(&mut self, start: usize, explicit: bool) -> usize {
        let bytes = self.bytes;
        let mut b = Building {
            tree: Tree::new(),
            root_used: false,
            start,
            current: None,
            in_node: false,
            after_variation: false,
            last_property: None,
            created: 0,
            offsets: Vec::new(),
        };
        let mut stack: Vec<Open> = Vec::new();
        let mut pos = start;
        if explicit {
            stack.push(Open {
                parent: None,
                offset: start,
                created: 0,
            });
            pos += 1;
        }
        loop {
            pos = skip_ws(bytes, pos);
            let Some(&byte) = bytes.get(pos) else {
                if explicit && !stack.is_empty() {
                    let missing = stack.len();
                    let (line, column) = stack
                        .first()
                        .map_or((1, 1), |open| line_column(bytes, open.offset));
                    self.report(
                        pos,
                        Severity::Error,
                        format!(
                            "end of file inside the game tree opened at {line}:{column}: \
                             {missing} ')' missing"
                        ),
                    );
                }
                break;
            };
            match byte {
                b'(' => {
                    stack.push(Open {
                        parent: b.current,
                        offset: pos,
                        created: b.created,
                    });
                    b.in_node = false;
                    b.after_variation = false;
                    pos += 1;
                }
                b')' => {
                    let Some(open) = stack.pop() else {
                        // Only an implicit tree (no `(`) has nothing open: its end.
                        self.warn(pos, "unmatched ')' ends the game tree".into());
                        pos += 1;
                        break;
                    };
                    pos += 1;
                    if explicit && stack.is_empty() {
                        break;
                    }
                    if b.created == open.created {
                        self.warn(open.offset, "empty variation '()' ignored".into());
                    } else {
                        b.after_variation = true;
                    }
                    b.current = open.parent;
                    b.in_node = false;
                }
                b';' => {
                    self.new_node(&mut b, pos);
                    pos += 1;
                }
                b'[' => {
                    let (value, next) = self.value(pos);
                    self.orphan_value(&mut b, pos, value);
                    pos = next;
                }
                _ if byte.is_ascii_alphabetic() => pos = self.property(&mut b, pos),
                _ => {
                    let from = pos;
                    while pos < bytes.len() && !is_token_start(bytes[pos]) {
                        pos += 1;
                    }
                    self.warn(
                        from,
                        format!("unexpected text skipped: {}", quote(&self.text[from..pos])),
                    );
                }
            }
        }
        self.finish_tree(b);
        pos
    }

    fn finish_tree(&mut self, b: Building) {
        if b.root_used {
            self.trees.push(b.tree);
            self.node_offsets.push(b.offsets);
        } else {
            self.warn(b.start, "empty game tree ignored".into());
        }
    }

    /// Starts a node (at a `;`, or at a property when the `;` is missing).
    fn new_node(&mut self, b: &mut Building, offset: usize) {
        if b.after_variation {
            self.warn(
                offset,
                "node after variations: read as one more variation".into(),
            );
            b.after_variation = false;
        }
        b.current = match b.current {
            Some(parent) => b.tree.add_child(parent, Vec::new()),
            None if !b.root_used => Some(Tree::ROOT),
            None => {
                // A second sequence at the top of one tree, as in `((;A)(;B))`: two games.
                self.warn(
                    offset,
                    "another root node in the same game tree: read as a new game tree".into(),
                );
                let tree = std::mem::take(&mut b.tree);
                self.trees.push(tree);
                self.node_offsets.push(std::mem::take(&mut b.offsets));
                Some(Tree::ROOT)
            }
        };
        if let Some(id) = b.current {
            if b.offsets.len() <= id.0 {
                b.offsets.resize(id.0 + 1, offset);
            }
            b.offsets[id.0] = offset;
        }
        b.root_used = true;
        b.in_node = true;
        b.last_property = None;
        b.created += 1;
    }

    /// A property from its identifier's first letter; returns the offset after its values.
    fn property(&mut self, b: &mut Building, start: usize) -> usize {
        let bytes = self.bytes;
        let mut pos = start;
        let mut lower = false;
        while let Some(&c) = bytes.get(pos) {
            if c.is_ascii_uppercase() {
            } else if c.is_ascii_lowercase() {
                lower = true;
            } else {
                break;
            }
            pos += 1;
        }
        let written = &self.text[start..pos];
        let mut values = Vec::new();
        pos = skip_ws(bytes, pos);
        while bytes.get(pos) == Some(&b'[') {
            let (value, next) = self.value(pos);
            values.push(value);
            pos = skip_ws(bytes, next);
        }
        let ident = if lower {
            let upper: String = written.chars().filter(char::is_ascii_uppercase).collect();
            if upper.is_empty() {
                self.warn(
                    start,
                    format!(
                        "property identifier {} has no upper-case letter: dropped",
                        quote(written)
                    ),
                );
                b.last_property = None;
                return pos;
            }
            self.warn(
                start,
                format!(
                    "property identifier {} read as {upper} (FF[4] identifiers are upper case)",
                    quote(written)
                ),
            );
            upper
        } else {
            written.to_string()
        };
        if values.is_empty() {
            self.warn(start, format!("property {ident} has no value"));
        }
        if !b.in_node {
            self.warn(start, "missing ';' before a node".into());
            self.new_node(b, start);
        }
        let Some(node) = b.current.and_then(|id| b.tree.node_mut(id)) else {
            return pos;
        };
        if let Some(k) = node.properties.iter().position(|p| p.ident == ident) {
            node.properties[k].values.extend(values);
            b.last_property = Some(k);
            self.warn(
                start,
                format!("property {ident} given twice in one node: values merged"),
            );
        } else {
            b.last_property = Some(node.properties.len());
            node.properties.push(Property { ident, values });
        }
        pos
    }

    /// A value with no identifier before it (as in `B2[aa]`): it joins the property read just before in the
    /// same node, if any.
    fn orphan_value(&mut self, b: &mut Building, offset: usize, value: String) {
        let last = match (b.in_node, b.last_property, b.current) {
            (true, Some(k), Some(id)) => b
                .tree
                .node_mut(id)
                .and_then(|node| node.properties.get_mut(k)),
            _ => None,
        };
        match last {
            Some(property) => {
                let ident = property.ident.clone();
                property.values.push(value);
                self.warn(
                    offset,
                    format!("value without identifier: added to property {ident}"),
                );
            }
            None => self.warn(
                offset,
                format!(
                    "value without identifier dropped: [{}]",
                    truncate(&value, MAX_QUOTE)
                ),
            ),
        }
    }

    /// The raw value whose `[` is at `open`, and the offset after its `]`.
    fn value(&mut self, open: usize) -> (String, usize) {
        let bytes = self.bytes;
        let start = open + 1;
        let mut i = start;
        loop {
            i = skip_plain(bytes, i);
            match bytes.get(i) {
                Some(b']') => return (self.text[start..i].to_string(), i + 1),
                // An escape: the next byte cannot end the value. If it starts a multi-byte character, the
                // scan lands on continuation bytes, which are never `]` or `\`.
                Some(_) => i += 2,
                None => break,
            }
        }
        // End of file inside the value: keep all of it but a dangling escape, so that the raw value can be
        // written back between brackets.
        let end = if i > bytes.len() {
            bytes.len() - 1
        } else {
            bytes.len()
        };
        self.report(
            open,
            Severity::Error,
            "property value not closed: ']' missing at end of file".into(),
        );
        (self.text[start..end].to_string(), bytes.len())
    }
}

/// The offset of the first `]` or `\` at or after `i` (or the length). Eight bytes at a time: values are
/// most of an SGF file.
fn skip_plain(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const CLOSE: u64 = ONES * b']' as u64;
    const ESCAPE: u64 = ONES * b'\\' as u64;
    while let Some(chunk) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let word = u64::from_le_bytes(*chunk);
        let a = word ^ CLOSE;
        let b = word ^ ESCAPE;
        // Non-zero when some byte of `a` or `b` is zero (the classic "has zero byte" test).
        let found = ((a.wrapping_sub(ONES) & !a) | (b.wrapping_sub(ONES) & !b)) & HIGHS;
        if found != 0 {
            break;
        }
        i += 8;
    }
    while let Some(&c) = bytes.get(i) {
        if c == b']' || c == b'\\' {
            return i;
        }
        i += 1;
    }
    i
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&c| is_ws(c)) {
        pos += 1;
    }
    pos
}

/// Bytes at which reading resumes after unexpected text inside a tree.
fn is_token_start(c: u8) -> bool {
    is_ws(c) || matches!(c, b'(' | b')' | b';' | b'[') || c.is_ascii_alphabetic()
}

fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with("\u{feff}".as_bytes()) {
        3
    } else {
        0
    }
}

/// Whether the `(` at `pos` opens a game tree at the top level: it is followed by `;`, `(`, or a property.
/// Anything else (`(like this)`, `()`) is text around the trees.
fn opens_tree(bytes: &[u8], pos: usize) -> bool {
    let next = skip_ws(bytes, pos + 1);
    match bytes.get(next) {
        Some(b';' | b'(') => true,
        Some(_) => is_property(bytes, next),
        None => false,
    }
}

/// Whether the `;` at `pos` starts a node of a tree written without `(`: a property must follow.
fn starts_node(bytes: &[u8], pos: usize) -> bool {
    is_property(bytes, skip_ws(bytes, pos + 1))
}

/// Letters, optional whitespace, then `[`.
fn is_property(bytes: &[u8], mut pos: usize) -> bool {
    let start = pos;
    while bytes.get(pos).is_some_and(u8::is_ascii_alphabetic) {
        pos += 1;
    }
    pos > start && bytes.get(skip_ws(bytes, pos)) == Some(&b'[')
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

fn quote(text: &str) -> String {
    format!("'{}'", truncate(text, MAX_QUOTE))
}

/// Steps over one byte for line and column counting: returns the new (line, column).
fn advance(bytes: &[u8], i: usize, line: usize, column: usize) -> (usize, usize) {
    match bytes[i] {
        b'\n' => (line + 1, 1),
        // `\r\n` is one line break (counted at the `\n`); a lone `\r` is one too.
        b'\r' if bytes.get(i + 1) != Some(&b'\n') => (line + 1, 1),
        b'\r' => (line, column),
        // Continuation bytes of a multi-byte character do not start a new column.
        c if c & 0xc0 == 0x80 => (line, column),
        _ => (line, column + 1),
    }
}

fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for i in 0..offset.min(bytes.len()) {
        (line, column) = advance(bytes, i, line, column);
    }
    (line, column)
}

/// Lines and columns of all diagnostics in one sweep, in order of position.
fn locate(bytes: &[u8], mut pending: Vec<Pending>) -> Vec<Diagnostic> {
    pending.sort_by_key(|p| p.offset);
    let (mut at, mut line, mut column) = (0, 1, 1);
    pending
        .into_iter()
        .map(|p| {
            let target = p.offset.min(bytes.len());
            while at < target {
                (line, column) = advance(bytes, at, line, column);
                at += 1;
            }
            Diagnostic {
                line,
                column,
                severity: p.severity,
                message: p.message,
            }
        })
        .collect()
}

/// Lines and columns of every node's offset, in one sweep over the text: nodes are made in document order, so
/// their offsets only grow (a smaller one, which the parser never makes, would start the sweep again).
fn locate_nodes(bytes: &[u8], offsets: &[Vec<usize>]) -> Vec<Vec<(usize, usize)>> {
    let (mut at, mut line, mut column) = (0, 1, 1);
    offsets
        .iter()
        .map(|tree| {
            tree.iter()
                .map(|&offset| {
                    let target = offset.min(bytes.len());
                    if target < at {
                        (at, line, column) = (0, 1, 1);
                    }
                    while at < target {
                        (line, column) = advance(bytes, at, line, column);
                        at += 1;
                    }
                    (line, column)
                })
                .collect()
        })
        .collect()
}

/// A point `xy`: `a`..`z` are 0..25, `A`..`Z` are 26..51 (boards up to 52×52). `None` for anything else,
/// including the empty pass value (the `tt` pass is a point here: whether it is a pass depends on the board).
pub fn parse_point(raw: &str) -> Option<(u8, u8)> {
    match raw.as_bytes() {
        &[x, y] => Some((coordinate(x)?, coordinate(y)?)),
        _ => None,
    }
}

fn coordinate(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(c - b'a'),
        b'A'..=b'Z' => Some(c - b'A' + 26),
        _ => None,
    }
}

/// The points of a list property (`AB`, `AW`, `AE`, markup…): single points and compressed rectangles
/// `aa:cc` (corners in either order), each checked against a `width`×`height` board. The result is in order
/// of the values, a rectangle row by row; a point given twice is kept once. An empty value (the empty list,
/// `AE[]`) adds nothing.
pub fn point_list(values: &[String], width: u8, height: u8) -> Result<Vec<(u8, u8)>, String> {
    let mut seen = vec![false; usize::from(width) * usize::from(height)];
    let mut points = Vec::new();
    let mut add = |x: u8, y: u8, points: &mut Vec<(u8, u8)>| {
        let k = usize::from(y) * usize::from(width) + usize::from(x);
        if let Some(slot) = seen.get_mut(k).filter(|s| !**s) {
            *slot = true;
            points.push((x, y));
        }
    };
    let point = |raw: &str, value: &str| -> Result<(u8, u8), String> {
        let (x, y) = parse_point(raw).ok_or_else(|| format!("bad point [{value}]"))?;
        if x >= width || y >= height {
            return Err(format!("point [{value}] is off the {width}x{height} board"));
        }
        Ok((x, y))
    };
    for value in values {
        let raw = value.trim_matches(|c: char| c.is_ascii_whitespace());
        if raw.is_empty() {
            continue;
        }
        match raw.split_once(':') {
            None => {
                let (x, y) = point(raw, value)?;
                add(x, y, &mut points);
            }
            Some((a, b)) => {
                let (ax, ay) = point(a, value)?;
                let (bx, by) = point(b, value)?;
                for y in ay.min(by)..=ay.max(by) {
                    for x in ax.min(bx)..=ax.max(bx) {
                        add(x, y, &mut points);
                    }
                }
            }
        }
    }
    Ok(points)
}

/// The board size of an `SZ` value: `19` (square) or `19:13` (width:height), each 1..=52.
pub fn board_size(raw: &str) -> Option<(u8, u8)> {
    let number = |s: &str| s.trim().parse::<u8>().ok().filter(|n| (1..=52).contains(n));
    match raw.split_once(':') {
        None => number(raw).map(|n| (n, n)),
        Some((w, h)) => Some((number(w)?, number(h)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_plain_finds_every_position() {
        for len in 0..40 {
            for at in 0..=len {
                let mut bytes = vec![b'x'; len];
                if at < len {
                    bytes[at] = if at % 2 == 0 { b']' } else { b'\\' };
                }
                assert_eq!(skip_plain(&bytes, 0), at);
                assert_eq!(skip_plain(&bytes, at.min(len)), at);
            }
        }
        // Bytes next to `]` and `\` in value (0x5c, 0x5d, 0x5e, 0xdd) are not mistaken for them.
        assert_eq!(skip_plain(b"[^\xdd\x5e\x5cabcdefgh", 0), 4);
    }

    #[test]
    fn line_columns_count_characters_and_breaks() {
        let text = "é\r\nab\rc\n\nxy";
        let bytes = text.as_bytes();
        let at = |needle: &str| line_column(bytes, text.find(needle).unwrap());
        assert_eq!(at("é"), (1, 1));
        assert_eq!(at("\r\n"), (1, 2));
        assert_eq!(at("b"), (2, 2));
        assert_eq!(at("c"), (3, 1));
        assert_eq!(at("y"), (5, 2));
    }
}
