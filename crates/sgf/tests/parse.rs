//! The SGF reader and writer: the test files, the leniency rules, a differential test against the `sgf-parse`
//! crate, and property tests (random trees round-trip; random text never panics).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tesuji_sgf::parse::{Diagnostic, Parsed, Severity, board_size, parse, parse_point, point_list};
use tesuji_sgf::tree::{Collection, NodeId, Property, Tree, unescape};
use tesuji_sgf::write::write;

// ---------------------------------------------------------------------------------------------------------
// Test files

fn data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(relative)
}

fn read_bytes(relative: &str) -> Vec<u8> {
    std::fs::read(data(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// A file as text: UTF-8 (a BOM is left in; the parser skips it), UTF-16LE with a BOM decoded here, and the
/// files in other character sets read as lossy UTF-8 (good enough for their structure).
fn read_text(relative: &str) -> String {
    let bytes = read_bytes(relative);
    if let Some(rest) = bytes.strip_prefix(&[0xff, 0xfe]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        return String::from_utf16(&units).expect("utf16le.sgf is valid UTF-16");
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Files in UTF-8 (or decoded exactly): their text is what the writer wrote.
const UTF8_FILES: &[&str] = &[
    "sgf-parse/ff4_ex.sgf",
    "sabaki-sgf/complex.sgf",
    "sabaki-sgf/utf8bom.sgf",
    "sabaki-sgf/utf16le.sgf",
    "katago/sgf/cornermoves.sgf",
    "katago/sgf/foxlike.sgf",
    "katago/sgf/humanslbigdiff.sgf",
    "katago/sgf/messy.sgf",
    "katago/sgf/sampletest7x7.sgf",
    "katago/sgf/sampletest9x9.sgf",
];

/// Files in other character sets, read as lossy UTF-8.
const CHARSET_FILES: &[&str] = &[
    "sabaki-sgf/chinese.sgf",
    "sabaki-sgf/japanese.sgf",
    "sabaki-sgf/japanese_bad.sgf",
    "sabaki-sgf/korean.sgf",
    "sabaki-sgf/no-ca.sgf",
    "sabaki-sgf/encoding/nihon-kiin.sgf",
];

fn all_files() -> impl Iterator<Item = &'static str> {
    UTF8_FILES.iter().chain(CHARSET_FILES).copied()
}

fn parse_ok(text: &str) -> Parsed {
    parse(text).unwrap_or_else(|e| panic!("{e} in {text:?}"))
}

fn errors(parsed: &Parsed) -> Vec<&Diagnostic> {
    parsed
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

fn warnings(parsed: &Parsed) -> usize {
    parsed
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count()
}

/// The tree's nodes in document order (preorder, first child first), walked without recursion.
fn preorder(tree: &Tree) -> Vec<NodeId> {
    let mut order = Vec::new();
    let mut stack = vec![Tree::ROOT];
    while let Some(id) = stack.pop() {
        order.push(id);
        stack.extend(tree.node(id).unwrap().children.iter().rev());
    }
    order
}

fn node_props(tree: &Tree, id: usize) -> &[Property] {
    &tree.nodes()[id].properties
}

fn prop(ident: &str, values: &[&str]) -> Property {
    Property::raw(ident, values.iter().map(|v| v.to_string()).collect())
}

#[test]
fn ff4_example_collection() {
    let parsed = parse_ok(&read_text("sgf-parse/ff4_ex.sgf"));
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let trees = &parsed.collection.trees;
    assert_eq!(trees.len(), 2);
    assert_eq!(trees[0].len(), 54);
    assert_eq!(trees[0].root().children.len(), 5);
    assert_eq!(trees[0].root().value("GN"), Some("Gametree 1: properties"));
    assert_eq!(trees[1].root().value("AP"), Some("Primiview:3.1"));
    // Raw values keep escapes and soft line breaks; `unescape` resolves them.
    let setup = trees[0]
        .nodes()
        .iter()
        .find(|n| n.value("N") == Some("Setup"))
        .unwrap();
    let erase = trees[0]
        .nodes()
        .iter()
        .find(|n| n.get("AE").is_some())
        .unwrap();
    let comment = erase.value("C").unwrap();
    assert!(comment.contains("FF[3\\] way"), "{comment}");
    assert!(unescape(comment).contains("FF[3] way"));
    let style = trees[0]
        .nodes()
        .iter()
        .find(|n| n.value("N") == Some("Style & text type"))
        .unwrap();
    let raw = style.value("C").unwrap();
    assert!(raw.contains(">o\\\nk<"));
    let text = unescape(raw);
    assert!(text.contains("like this one >ok<"));
    assert!(text.contains("linebreak 4 \"\\r\": >ok<"));
    // Compressed point lists stay raw.
    assert_eq!(
        setup.get("AB").unwrap().values,
        ["dd", "de", "df", "dg", "do:gq"]
    );
    // The arena is in document order.
    for tree in trees {
        let order: Vec<usize> = preorder(tree).iter().map(|id| id.0).collect();
        assert_eq!(order, (0..tree.len()).collect::<Vec<_>>());
    }
}

#[test]
fn complex_file_is_one_tree() {
    let parsed = parse_ok(&read_text("sabaki-sgf/complex.sgf"));
    assert_eq!(parsed.collection.trees.len(), 1);
    assert!(errors(&parsed).is_empty(), "{:?}", parsed.diagnostics);
    let tree = &parsed.collection.trees[0];
    assert_eq!(tree.len(), 287);
    assert!(tree.nodes().iter().any(|n| n.children.len() > 1));
}

#[test]
fn katago_files_have_no_errors() {
    for entry in std::fs::read_dir(data("katago/sgf")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_ok(&text);
        assert!(
            errors(&parsed).is_empty(),
            "{}: {:?}",
            path.display(),
            parsed.diagnostics
        );
        assert_eq!(parsed.collection.trees.len(), 1, "{}", path.display());
    }
    // foxlike.sgf writes AP twice in its root: merged, with a warning; it ends with an empty node.
    let fox = parse_ok(&read_text("katago/sgf/foxlike.sgf"));
    let root = fox.collection.trees[0].root();
    assert_eq!(root.get("AP").unwrap().values, ["GNU Go:3.8", "foxwq"]);
    assert_eq!(root.value("KM"), Some("325"));
    assert_eq!(fox.diagnostics.len(), 1);
    assert!(fox.diagnostics[0].message.contains("AP given twice"));
    assert_eq!(fox.collection.trees[0].len(), 5);
    let messy = parse_ok(&read_text("katago/sgf/messy.sgf"));
    assert!(messy.diagnostics.is_empty());
    // `B[]` is a pass, kept as an empty value.
    assert!(
        messy.collection.trees[0]
            .nodes()
            .iter()
            .any(|n| n.get("B").is_some_and(|p| p.values == [""]))
    );
}

#[test]
fn charset_files_structure() {
    for name in [
        "sabaki-sgf/chinese.sgf",
        "sabaki-sgf/japanese.sgf",
        "sabaki-sgf/japanese_bad.sgf",
        "sabaki-sgf/korean.sgf",
    ] {
        let parsed = parse_ok(&read_text(name));
        assert!(
            parsed.diagnostics.is_empty(),
            "{name}: {:?}",
            parsed.diagnostics
        );
        let tree = &parsed.collection.trees[0];
        assert_eq!(tree.len(), 3, "{name}");
        assert!(tree.nodes()[2].value("C").unwrap().ends_with(" is fun"));
    }
    let no_ca = parse_ok(&read_text("sabaki-sgf/no-ca.sgf"));
    assert_eq!(no_ca.collection.trees.len(), 1);
    assert!(errors(&no_ca).is_empty());
    // nihon-kiin.sgf has no `;` before its root node; in lossy UTF-8 some Shift-JIS second bytes are `\`.
    let kiin = parse_ok(&read_text("sabaki-sgf/encoding/nihon-kiin.sgf"));
    assert_eq!(kiin.collection.trees.len(), 1);
    assert!(
        kiin.diagnostics
            .iter()
            .any(|d| d.message.contains("missing ';'") && (d.line, d.column) == (2, 1))
    );
    let utf16 = parse_ok(&read_text("sabaki-sgf/utf16le.sgf"));
    assert!(utf16.diagnostics.is_empty(), "{:?}", utf16.diagnostics);
    assert_eq!(
        utf16.collection.trees[0].root().value("PW"),
        Some("Go Seigen")
    );
    let bom = parse_ok(&read_text("sabaki-sgf/utf8bom.sgf"));
    assert!(bom.diagnostics.is_empty(), "{:?}", bom.diagnostics);
    assert_eq!(
        bom.collection.trees[0].root().value("PB"),
        Some("Kitani Minoru")
    );
}

#[test]
fn every_file_round_trips() {
    for name in all_files() {
        let first = parse_ok(&read_text(name));
        let text = write(&first.collection);
        let second = parse_ok(&text);
        assert_eq!(second.collection, first.collection, "{name}");
        // The canonical text is clean, and writing is idempotent.
        assert!(
            second.diagnostics.is_empty(),
            "{name}: {:?}",
            second.diagnostics
        );
        assert_eq!(write(&second.collection), text, "{name}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Leniency and diagnostics

#[test]
fn missing_semicolon_and_parenthesis() {
    let strict = parse_ok("(;B[hh];W[ii])");
    assert!(strict.diagnostics.is_empty());
    for lenient in [";B[hh];W[ii]", "(B[hh];W[ii])", "  ;B[hh] ;W[ii]\n"] {
        let parsed = parse_ok(lenient);
        assert_eq!(parsed.collection, strict.collection, "{lenient}");
        assert_eq!(warnings(&parsed), 1, "{lenient}: {:?}", parsed.diagnostics);
        assert!(errors(&parsed).is_empty());
    }
    let tree = &strict.collection.trees[0];
    assert_eq!(tree.len(), 2);
    assert_eq!(node_props(tree, 0), [prop("B", &["hh"])]);
    assert_eq!(node_props(tree, 1), [prop("W", &["ii"])]);
    // An implicit tree ends at an unmatched `)`; what follows is another tree.
    let two = parse_ok(";B[aa]) (;W[bb])");
    assert_eq!(two.collection.trees.len(), 2);
}

#[test]
fn empty_variations_are_ignored() {
    let parsed = parse_ok("(;B[hh]()(;W[ii])()(;W[hi]C[h]))");
    let tree = &parsed.collection.trees[0];
    assert_eq!(tree.root().properties, [prop("B", &["hh"])]);
    assert_eq!(tree.root().children.len(), 2);
    assert_eq!(tree.len(), 3);
    assert_eq!(node_props(tree, 2), [prop("W", &["hi"]), prop("C", &["h"])]);
    assert_eq!(warnings(&parsed), 2);
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.message.contains("empty variation"))
    );
    assert_eq!(
        (parsed.diagnostics[0].line, parsed.diagnostics[0].column),
        (1, 8)
    );
    // An empty tree among others is dropped with a warning.
    let parsed = parse_ok("(;B[aa])(())(;W[bb])");
    assert_eq!(parsed.collection.trees.len(), 2);
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains("empty game tree"))
    );
}

#[test]
fn whitespace_anywhere() {
    let spaced = parse_ok(" \n( \t; B \r\n [aa] \n [bb] ; W[cc]\n( ;B[dd] ) ( ; B [ee] ) ) \n");
    let tight = parse_ok("(;B[aa][bb];W[cc](;B[dd])(;B[ee]))");
    assert!(spaced.diagnostics.is_empty(), "{:?}", spaced.diagnostics);
    assert_eq!(spaced.collection, tight.collection);
    assert_eq!(tight.collection.trees[0].len(), 4);
}

#[test]
fn properties_raw_escapes_and_empty_values() {
    let parsed = parse_ok("(;C[a\\]b\\\\]GN[]XX[unknown\nvalue:x][2]LB[aa:x\\:y])");
    let root = parsed.collection.trees[0].root();
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(root.get("C").unwrap().values, ["a\\]b\\\\"]);
    assert_eq!(root.get("C").unwrap().text_value().unwrap(), "a]b\\");
    assert_eq!(root.get("GN").unwrap().values, [""]);
    assert_eq!(root.get("XX").unwrap().values, ["unknown\nvalue:x", "2"]);
    assert_eq!(root.get("LB").unwrap().values, ["aa:x\\:y"]);
    // A digit is not part of an identifier: in `B2[aa]`, `2` is skipped and `[aa]` joins `B`.
    let parsed = parse_ok("(;B2[aa])");
    assert_eq!(
        parsed.collection.trees[0].root().properties,
        [prop("B", &["aa"])]
    );
    let messages: Vec<String> = parsed.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        [
            "1:3: property B has no value",
            "1:4: unexpected text skipped: '2'",
            "1:5: value without identifier: added to property B"
        ]
    );
}

#[test]
fn lower_case_identifiers() {
    let parsed = parse_ok("(;CoPyright[me]GaMe[1]sz[19];B[aa])");
    let root = parsed.collection.trees[0].root();
    assert_eq!(root.properties, [prop("CP", &["me"]), prop("GM", &["1"])]);
    assert_eq!(warnings(&parsed), 3);
    assert!(
        parsed.diagnostics[0]
            .message
            .contains("'CoPyright' read as CP")
    );
    assert!(
        parsed.diagnostics[2]
            .message
            .contains("no upper-case letter")
    );
}

#[test]
fn property_without_value() {
    let parsed = parse_ok("(;KO;B[aa]IT DO\nC[x])");
    let tree = &parsed.collection.trees[0];
    assert_eq!(node_props(tree, 0), [prop("KO", &[])]);
    assert_eq!(
        node_props(tree, 1),
        [
            prop("B", &["aa"]),
            prop("IT", &[]),
            prop("DO", &[]),
            prop("C", &["x"])
        ]
    );
    assert_eq!(warnings(&parsed), 3);
    assert!(errors(&parsed).is_empty());
    assert_eq!(
        parse_ok(&write(&parsed.collection)).collection,
        parsed.collection
    );
}

#[test]
fn same_property_twice_is_merged() {
    let parsed = parse_ok("(;AB[aa]AW[bb]AB[cc][dd];B[ee]B[ff])");
    let tree = &parsed.collection.trees[0];
    assert_eq!(
        node_props(tree, 0),
        [prop("AB", &["aa", "cc", "dd"]), prop("AW", &["bb"])]
    );
    assert_eq!(node_props(tree, 1), [prop("B", &["ee", "ff"])]);
    assert_eq!(warnings(&parsed), 2);
    assert_eq!(
        (parsed.diagnostics[0].line, parsed.diagnostics[0].column),
        (1, 15)
    );
}

#[test]
fn unterminated_value_and_tree() {
    let parsed = parse_ok("(;B[aa]\n;C[hello\nworld");
    let tree = &parsed.collection.trees[0];
    assert_eq!(node_props(tree, 1), [prop("C", &["hello\nworld"])]);
    let errs = errors(&parsed);
    assert_eq!(errs.len(), 2, "{:?}", parsed.diagnostics);
    assert_eq!((errs[0].line, errs[0].column), (2, 3));
    assert!(errs[0].message.contains("not closed"));
    assert_eq!((errs[1].line, errs[1].column), (3, 6));
    assert!(errs[1].message.contains("')' missing"));
    assert_eq!(errs[0].to_string(), format!("2:3: {}", errs[0].message));
    // A dangling escape at the end of the file is dropped so that the value can be written back.
    let parsed = parse_ok("(;C[abc\\");
    assert_eq!(parsed.collection.trees[0].root().value("C"), Some("abc"));
    let parsed = parse_ok("(;C[abc\\\\");
    assert_eq!(
        parsed.collection.trees[0].root().value("C"),
        Some("abc\\\\")
    );
    // An unclosed tree with variations: everything read is kept.
    let parsed = parse_ok("(;B[aa](;W[bb];B[cc](;W[dd]");
    assert_eq!(parsed.collection.trees[0].len(), 4);
    assert_eq!(errors(&parsed).len(), 1);
    assert!(errors(&parsed)[0].message.contains("3 ')' missing"));
}

#[test]
fn trailing_and_leading_garbage() {
    let parsed = parse_ok("Subject: a game\n\n(;B[aa];W[bb])\n-- \nsent from (my phone)");
    assert_eq!(parsed.collection.trees.len(), 1);
    assert_eq!(parsed.collection.trees[0].len(), 2);
    let messages: Vec<String> = parsed.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        [
            "1:1: text before the first game tree skipped",
            "4:1: text after the last game tree ignored"
        ]
    );
    assert!(errors(&parsed).is_empty());
    let parsed = parse_ok("(;B[aa]))\n");
    assert_eq!(warnings(&parsed), 1);
    let parsed = parse_ok("(;B[aa]) junk (;W[bb])");
    assert_eq!(parsed.collection.trees.len(), 2);
    assert!(parsed.diagnostics[0].message.contains("between game trees"));
}

#[test]
fn columns_count_characters() {
    let parsed = parse_ok("(;C[日本語]é;B[aa])");
    let d = &parsed.diagnostics[0];
    assert_eq!((d.line, d.column), (1, 9));
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.to_string()
            .starts_with("1:9: unexpected text skipped: 'é'")
    );
}

#[test]
fn unreadable_text_is_an_error() {
    for (text, line, column) in [
        ("", 1, 1),
        ("   \n  ", 1, 1),
        ("hello world", 1, 1),
        ("\n\n  (like this)", 3, 3),
        ("()", 1, 1),
        ("B[aa]", 1, 1),
    ] {
        let error = parse(text).expect_err(text);
        assert_eq!((error.line, error.column), (line, column), "{text:?}");
        assert!(error.to_string().starts_with(&format!("{line}:{column}: ")));
    }
}

#[test]
fn node_after_variations_and_two_roots() {
    let parsed = parse_ok("(;A[1](;B[2])(;C[3]);D[4])");
    let tree = &parsed.collection.trees[0];
    assert_eq!(tree.root().children.len(), 3);
    assert!(
        parsed.diagnostics[0]
            .message
            .contains("node after variations")
    );
    let parsed = parse_ok("((;A[1];B[2])(;C[3]))");
    assert_eq!(parsed.collection.trees.len(), 2);
    assert_eq!(parsed.collection.trees[0].len(), 2);
    assert_eq!(parsed.collection.trees[1].root().value("C"), Some("3"));
    assert_eq!(warnings(&parsed), 1);
    // A value with no identifier joins the node's last property.
    let parsed = parse_ok("(;AB[aa] 2 [bb];[cc]B[dd])");
    let tree = &parsed.collection.trees[0];
    assert_eq!(node_props(tree, 0), [prop("AB", &["aa", "bb"])]);
    assert_eq!(node_props(tree, 1), [prop("B", &["dd"])]);
}

#[test]
fn several_trees_and_deep_variations() {
    let parsed = parse_ok("(;GM[1](;B[aa](;W[bb])(;W[cc];B[dd]))(;B[ee]))\n(;GM[1];B[ff])(;GM[1])");
    assert!(parsed.diagnostics.is_empty());
    let trees = &parsed.collection.trees;
    assert_eq!(trees.iter().map(Tree::len).collect::<Vec<_>>(), [6, 2, 1]);
    let first = &trees[0];
    assert_eq!(first.root().children, [NodeId(1), NodeId(5)]);
    assert_eq!(first.nodes()[1].children, [NodeId(2), NodeId(3)]);
    assert_eq!(first.nodes()[4].parent, Some(NodeId(3)));
    assert_eq!(
        first.main_line().collect::<Vec<_>>(),
        [NodeId(0), NodeId(1), NodeId(2)]
    );
}

#[test]
fn hundred_thousand_nested_variations() {
    const DEPTH: usize = 100_000;
    let text = format!("{}{}", "(;B[aa]".repeat(DEPTH), ")".repeat(DEPTH));
    let parsed = parse_ok(&text);
    assert!(parsed.diagnostics.is_empty());
    let tree = &parsed.collection.trees[0];
    assert_eq!(tree.len(), DEPTH);
    assert_eq!(tree.main_line().count(), DEPTH);
    let written = write(&parsed.collection);
    assert_eq!(parse_ok(&written).collection, parsed.collection);
    // Also with variations at every level, and unclosed.
    let text = "(;B[aa](;W[bb])".repeat(DEPTH);
    let parsed = parse_ok(&text);
    assert_eq!(parsed.collection.trees[0].len(), 2 * DEPTH);
    assert_eq!(errors(&parsed).len(), 1);
    let written = write(&parsed.collection);
    assert_eq!(parse_ok(&written).collection, parsed.collection);
}

// ---------------------------------------------------------------------------------------------------------
// Point helpers

#[test]
fn points_and_compressed_lists() {
    assert_eq!(parse_point("aa"), Some((0, 0)));
    assert_eq!(parse_point("sd"), Some((18, 3)));
    assert_eq!(parse_point("tt"), Some((19, 19)));
    assert_eq!(parse_point("Az"), Some((26, 25)));
    assert_eq!(parse_point("ZZ"), Some((51, 51)));
    for bad in ["", "a", "abc", "a1", "é", "[a"] {
        assert_eq!(parse_point(bad), None, "{bad}");
    }
    let values = |vs: &[&str]| vs.iter().map(|v| v.to_string()).collect::<Vec<_>>();
    let square = point_list(&values(&["aa:cb"]), 19, 19).unwrap();
    assert_eq!(square, [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
    assert_eq!(point_list(&values(&["cb:aa"]), 19, 19).unwrap(), square);
    assert_eq!(point_list(&values(&["ca:ab"]), 19, 19).unwrap(), square);
    // Duplicates once, in order; the empty list.
    assert_eq!(
        point_list(&values(&["bb", "aa:bb", "cc"]), 19, 19).unwrap(),
        [(1, 1), (0, 0), (1, 0), (0, 1), (2, 2)]
    );
    assert_eq!(point_list(&values(&[""]), 19, 19).unwrap(), []);
    assert_eq!(point_list(&values(&["do:gq"]), 19, 19).unwrap().len(), 12);
    // Large boards, bounds and rectangles.
    assert_eq!(point_list(&values(&["ZZ"]), 52, 52).unwrap(), [(51, 51)]);
    assert_eq!(
        point_list(&values(&["aa:ZZ"]), 52, 52).unwrap().len(),
        52 * 52
    );
    assert!(point_list(&values(&["tt"]), 19, 19).is_err());
    assert_eq!(point_list(&values(&["ia:ie"]), 9, 5).unwrap().len(), 5);
    assert!(point_list(&values(&["ja"]), 9, 5).is_err());
    assert!(point_list(&values(&["af"]), 9, 5).is_err());
    assert!(point_list(&values(&["aa:zz"]), 19, 19).is_err());
    assert!(point_list(&values(&["a"]), 19, 19).is_err());
    assert!(point_list(&values(&["aa:bb:cc"]), 19, 19).is_err());
    assert_eq!(board_size("19"), Some((19, 19)));
    assert_eq!(board_size("19:13"), Some((19, 13)));
    assert_eq!(board_size(" 52 "), Some((52, 52)));
    for bad in ["", "0", "53", "x", "19:", ":9", "9:9:9"] {
        assert_eq!(board_size(bad), None, "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// Differential test against the sgf-parse crate
//
// sgf-parse reads values into typed properties (`Prop`): it resolves every escape `\x` to `x` (keeping the
// line break of a soft line break, where our `unescape` removes it), expands point lists into sets, parses
// numbers, and keeps a repeated property as two properties. So the comparison is, node by node in document
// order: the same identifiers in the same order (a repeated identifier counted once, since we merge), and our
// raw values, with escapes resolved the way sgf-parse does, read by sgf-parse's own `Prop::new` into the same
// typed properties (for a repeated identifier, our merged values split in order among sgf-parse's copies).

mod differential {
    use super::*;
    use sgf_parse::{GameTree, SgfNode, SgfProp};

    /// Escapes resolved as sgf-parse's lexer does: a backslash is dropped and the next character kept.
    fn sgf_parse_unescape(raw: &str) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    /// sgf-parse's nodes in document order, without recursion.
    fn flatten<P: SgfProp>(root: &SgfNode<P>) -> Vec<Vec<P>> {
        let mut nodes = Vec::new();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            nodes.push(node.properties().cloned().collect());
            let children: Vec<_> = node.children().collect();
            stack.extend(children.into_iter().rev());
        }
        nodes
    }

    fn compare_node<P: SgfProp>(ours: &[Property], theirs: &[P], at: &str) {
        let mut groups: Vec<(String, Vec<&P>)> = Vec::new();
        for p in theirs {
            let ident = p.identifier();
            match groups.iter_mut().find(|(i, _)| *i == ident) {
                Some((_, group)) => group.push(p),
                None => groups.push((ident, vec![p])),
            }
        }
        let idents: Vec<&str> = ours.iter().map(|p| p.ident.as_str()).collect();
        let theirs_idents: Vec<&str> = groups.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(idents, theirs_idents, "{at}");
        for (property, (ident, group)) in ours.iter().zip(&groups) {
            let values: Vec<String> = property
                .values
                .iter()
                .map(|v| sgf_parse_unescape(v))
                .collect();
            let mut rest = values.as_slice();
            for (k, expected) in group.iter().enumerate() {
                let take = if k + 1 == group.len() {
                    rest.len()
                } else {
                    (1..=rest.len())
                        .find(|&n| P::new(ident.clone(), rest[..n].to_vec()) == **expected)
                        .unwrap_or_else(|| panic!("{at}: {ident} {values:?} vs {group:?}"))
                };
                let got = P::new(ident.clone(), rest[..take].to_vec());
                assert_eq!(&got, *expected, "{at}: {ident}");
                rest = &rest[take..];
            }
        }
    }

    fn compare_tree<P: SgfProp>(ours: &Tree, root: &SgfNode<P>, name: &str) {
        let theirs = flatten(root);
        assert_eq!(ours.len(), theirs.len(), "{name}: node count");
        for (id, props) in theirs.iter().enumerate() {
            compare_node(node_props(ours, id), props, &format!("{name} node {id}"));
        }
    }

    #[test]
    fn same_trees_as_sgf_parse() {
        let mut compared = Vec::new();
        for name in all_files() {
            // sgf-parse does not skip a byte order mark; ours does.
            let text = read_text(name).trim_start_matches('\u{feff}').to_string();
            let Ok(theirs) = sgf_parse::parse(&text) else {
                continue;
            };
            let ours = parse_ok(&text).collection;
            assert_eq!(ours.trees.len(), theirs.len(), "{name}: tree count");
            for (k, (tree, game)) in ours.trees.iter().zip(&theirs).enumerate() {
                let at = format!("{name} tree {k}");
                match game {
                    GameTree::GoGame(root) => compare_tree(tree, root, &at),
                    GameTree::Unknown(root) => compare_tree(tree, root, &at),
                }
            }
            compared.push(name);
        }
        // Every file but nihon-kiin.sgf (no `;` before its root node, which sgf-parse rejects) is compared.
        for name in all_files().filter(|n| !n.contains("nihon-kiin")) {
            assert!(compared.contains(&name), "sgf-parse could not read {name}");
        }
    }

    #[test]
    fn inline_cases_agree() {
        for text in [
            "(;FF[4]GM[1]SZ[19];B[aa];W[bb](;B[cc])(;B[dd]C[x\\]y]))",
            "(;GM[1]CoPyright[x]AB[aa:cc][dd]C[soft\\\nbreak];W[tt])(;GM[2]XY[1:2])",
            "  (;C[a]\n\n;B[]\t;W[ss] )  ",
        ] {
            let theirs = sgf_parse::parse(text).unwrap();
            let ours = parse_ok(text).collection;
            assert_eq!(ours.trees.len(), theirs.len());
            for (tree, game) in ours.trees.iter().zip(&theirs) {
                match game {
                    GameTree::GoGame(root) => compare_tree(tree, root, text),
                    GameTree::Unknown(root) => compare_tree(tree, root, text),
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Property tests

/// A raw value as the parser keeps it: plain characters (never `]` or `\`) and escape pairs `\x` (any `x`,
/// including `]`, `\`, line breaks: soft line breaks).
fn raw_value() -> impl Strategy<Value = String> {
    let plain = prop::sample::select(vec![
        "a", "Z", "0", ":", " ", "\n", "\r\n", "\r", "[", "(", ")", ";", "é", "日本", "🀄", "\t",
    ]);
    let escaped = prop::sample::select(vec!["\\]", "\\\\", "\\:", "\\\n", "\\\r\n", "\\a", "\\é"]);
    let piece = prop_oneof![3 => plain.prop_map(str::to_string), 1 => escaped.prop_map(str::to_string),
        1 => "[a-zA-Z0-9 ]{0,6}"];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
}

fn identifier() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "B", "W", "C", "AB", "AW", "SZ", "KM", "KO", "LB", "GN"
        ])
        .prop_map(str::to_string),
        "[A-Z]{1,4}",
    ]
}

/// A node's properties: distinct identifiers (a repeated one would be merged by the reader).
fn properties() -> impl Strategy<Value = Vec<Property>> {
    prop::collection::vec(
        (identifier(), prop::collection::vec(raw_value(), 0..4)),
        0..5,
    )
    .prop_map(|props| {
        let mut out: Vec<Property> = Vec::new();
        for (ident, values) in props {
            if out.iter().all(|p| p.ident != ident) {
                out.push(Property { ident, values });
            }
        }
        out
    })
}

/// A tree shape: for node `i ≥ 1`, its parent among the earlier nodes; with each node's properties.
fn shape() -> impl Strategy<Value = (Vec<usize>, Vec<Vec<Property>>)> {
    (1usize..40).prop_flat_map(|n| {
        (
            prop::collection::vec(any::<prop::sample::Index>(), n - 1),
            prop::collection::vec(properties(), n),
        )
            .prop_map(|(parents, props)| {
                let parents = parents
                    .iter()
                    .enumerate()
                    .map(|(i, index)| index.index(i + 1))
                    .collect();
                (parents, props)
            })
    })
}

/// The tree built in document order (as the reader builds it): a preorder walk adding each node to its
/// parent's copy.
fn document_order_tree(parents: &[usize], mut props: Vec<Vec<Property>>) -> Tree {
    let n = props.len();
    let mut children = vec![Vec::new(); n];
    for (i, &parent) in parents.iter().enumerate() {
        children[parent].push(i + 1);
    }
    let mut tree = Tree::new();
    tree.root_mut().properties = std::mem::take(&mut props[0]);
    let mut stack: Vec<(usize, NodeId)> =
        children[0].iter().rev().map(|&c| (c, Tree::ROOT)).collect();
    while let Some((shape_id, parent)) = stack.pop() {
        let id = tree
            .add_child(parent, std::mem::take(&mut props[shape_id]))
            .unwrap();
        stack.extend(children[shape_id].iter().rev().map(|&c| (c, id)));
    }
    tree
}

/// The tree built in the order of the shape's node numbers (not document order in general).
fn arbitrary_order_tree(parents: &[usize], mut props: Vec<Vec<Property>>) -> Tree {
    let mut tree = Tree::new();
    tree.root_mut().properties = std::mem::take(&mut props[0]);
    for (i, &parent) in parents.iter().enumerate() {
        tree.add_child(NodeId(parent), std::mem::take(&mut props[i + 1]))
            .unwrap();
    }
    tree
}

/// SGF-like text: the characters of the grammar are frequent.
fn sgfish_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "(", ")", ";", "[", "]", "\\", ":", " ", "\n", "\r", "B", "W", "AB", "aa", "Co", "x", "é",
        "\u{feff}", "()", "(;", "[aa]", "\\]", "2",
    ]);
    prop::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

fn check_positions(text: &str, parsed: &Parsed) {
    let lines = text.split(['\n', '\r']).count() + 1;
    for d in &parsed.diagnostics {
        assert!(d.line >= 1 && d.column >= 1 && d.line <= lines, "{d}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_collections_round_trip(trees in prop::collection::vec(shape(), 1..4)) {
        let collection = Collection {
            trees: trees
                .into_iter()
                .map(|(parents, props)| document_order_tree(&parents, props))
                .collect(),
        };
        let text = write(&collection);
        let parsed = parse(&text).unwrap();
        prop_assert_eq!(&parsed.collection, &collection);
        // The only thing the reader remarks on in canonical text is a property without a value.
        prop_assert!(parsed.diagnostics.iter().all(|d| d.message.contains("has no value")), "{:?}",
            parsed.diagnostics);
    }

    #[test]
    fn arbitrary_arena_order_writes_the_same_shape((parents, props) in shape()) {
        let tree = arbitrary_order_tree(&parents, props);
        let collection = Collection { trees: vec![tree.clone()] };
        let text = write(&collection);
        let parsed = parse(&text).unwrap().collection;
        prop_assert_eq!(parsed.trees[0].len(), tree.len());
        prop_assert_eq!(write(&parsed), text);
    }

    #[test]
    fn random_sgfish_text_never_panics(text in sgfish_text()) {
        if let Ok(parsed) = parse(&text) {
            check_positions(&text, &parsed);
            // Whatever was read is written and read back the same.
            let again = parse(&write(&parsed.collection)).unwrap();
            prop_assert_eq!(again.collection, parsed.collection);
        }
    }

    #[test]
    fn random_strings_never_panic(text in any::<String>()) {
        if let Ok(parsed) = parse(&text) {
            check_positions(&text, &parsed);
            prop_assert_eq!(parse(&write(&parsed.collection)).unwrap().collection, parsed.collection);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(parsed) = parse(&text) {
            check_positions(&text, &parsed);
            prop_assert_eq!(parse(&write(&parsed.collection)).unwrap().collection, parsed.collection);
        }
    }

    #[test]
    fn point_lists_never_panic(values in prop::collection::vec("[a-zA-Z:]{0,6}", 0..4), w in 0u8..60, h in 0u8..60) {
        if let Ok(points) = point_list(&values, w, h) {
            prop_assert!(points.iter().all(|&(x, y)| x < w && y < h));
        }
    }
}
