//! tesuji-sgf: Smart Game Format records.
//!
//! - [`tree`]: the collection of game trees, nodes and raw properties (an arena per tree, so that records of
//!   any length are handled without deep recursion);
//! - [`encoding`]: bytes to text (BOM, UTF-16, `CA`, detection);
//! - [`parse`]: lenient text to tree, every problem a [`Diagnostic`] with its line and column;
//! - [`write`]: tree to canonical text.

pub mod encoding;
pub mod parse;
pub mod tree;
pub mod write;

pub use tree::{Collection, Node, NodeId, Property, Tree};
