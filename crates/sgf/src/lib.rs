//! tesuji-sgf: Smart Game Format records.
//!
//! - [`tree`]: the collection of game trees, nodes and raw properties (an arena per tree, so that records of
//!   any length are handled without deep recursion);
//! - [`encoding`]: bytes to text (BOM, UTF-16, `CA`, detection);
//! - [`parse`]: lenient text to tree, every problem a [`Diagnostic`] with its line and column;
//! - [`write`]: tree to canonical text.

pub mod encoding;
pub mod parse;
pub mod record;
pub mod tree;
pub mod write;

pub use tree::{Collection, Node, NodeId, Property, Tree};

/// A file read: its game trees, the parser's diagnostics, and how its bytes were decoded.
#[derive(Debug, Clone)]
pub struct Read {
    pub collection: Collection,
    pub diagnostics: Vec<parse::Diagnostic>,
    /// Where each node starts: per tree, per node index, a 1-based (line, column) of the decoded text.
    pub node_positions: Vec<Vec<(usize, usize)>>,
    /// The character set the text was decoded from (`UTF-8`, `GB18030`, `Shift_JIS`, …).
    pub encoding: &'static str,
    pub encoding_warnings: Vec<String>,
}

/// Decodes the bytes of an SGF file (BOM, UTF-16, `CA`, or detection) and parses them.
pub fn read(bytes: &[u8]) -> Result<Read, parse::ParseError> {
    let decoded = encoding::decode(bytes);
    let parsed = parse::parse(&decoded.text)?;
    Ok(Read {
        collection: parsed.collection,
        diagnostics: parsed.diagnostics,
        node_positions: parsed.node_positions,
        encoding: decoded.encoding,
        encoding_warnings: decoded.warnings,
    })
}

/// The text of a collection as this crate writes files: UTF-8, so every root's `CA` says `UTF-8` (see
/// [`as_utf8`]).
pub fn write_utf8(collection: &Collection) -> String {
    write::write(&as_utf8(collection))
}

/// The collection as it is written in UTF-8: every root's `CA` says `UTF-8` (added after `FF`/`GM` when
/// missing, replaced when the file was decoded from another character set).
pub fn as_utf8(collection: &Collection) -> Collection {
    let mut c = collection.clone();
    for tree in &mut c.trees {
        let props = &mut tree.root_mut().properties;
        let utf8 = Property::raw("CA", vec!["UTF-8".into()]);
        match props.iter_mut().find(|p| p.ident == "CA") {
            Some(p) => *p = utf8,
            None => {
                let at = props
                    .iter()
                    .rposition(|p| p.ident == "FF" || p.ident == "GM")
                    .map_or(0, |i| i + 1);
                props.insert(at, utf8);
            }
        }
    }
    c
}
