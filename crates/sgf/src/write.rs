//! Tree to text: the canonical SGF form of a collection.
//!
//! Layout:
//! - each game tree is `(` … `)` followed by a line break (so trees are separated by one);
//! - a node is `;` and its properties as `IDENT[value][value]…`, values written exactly as stored (raw);
//!   a property with no value is written as its bare identifier (followed by a space when another property
//!   comes next, so that the identifiers stay apart);
//! - the root node ends its line (unless it is the only node); after it the nodes of a sequence follow one
//!   another on a line, and a new line starts before a node when the line already holds [`NODES_PER_LINE`]
//!   nodes or [`LINE_WIDTH`] bytes (so a game without comments is 10 moves a line, and commented nodes get a
//!   line each); each variation `(` starts a new line, and closing parentheses follow the last node of their
//!   variation. There is no indentation, so deep variation trees stay small. Values are never split.
//!
//! Round trip: `parse(&write(c)).collection == c` when the collection is in the form [`crate::parse::parse`]
//! builds: identifiers are non-empty upper-case ASCII letters, distinct within a node; raw values have
//! every `]` escaped and do not end in a lone `\`; and each tree's arena is in document order (a node's
//! subtree follows it, first child first). A tree built in another order is written correctly all the same and
//! reads back in document order.
//!
//! Written without recursion (an explicit stack of variations), so any depth of variations is fine.

use crate::tree::{Collection, Node, NodeId, Tree};

/// At most this many nodes of a sequence on one line.
pub const NODES_PER_LINE: usize = 10;

/// A line this long (in bytes) takes no further node.
pub const LINE_WIDTH: usize = 72;

/// The canonical text of a collection.
pub fn write(collection: &Collection) -> String {
    let mut out = Out {
        text: String::with_capacity(collection.trees.iter().map(estimate).sum()),
        line_start: 0,
        on_line: 0,
    };
    for tree in &collection.trees {
        write_tree(&mut out, tree);
        out.new_line();
    }
    out.text
}

/// A guess at the written size of a tree, to allocate once.
fn estimate(tree: &Tree) -> usize {
    tree.nodes()
        .iter()
        .map(|node| {
            3 + node
                .properties
                .iter()
                .map(|p| p.ident.len() + p.values.iter().map(|v| v.len() + 2).sum::<usize>())
                .sum::<usize>()
        })
        .sum()
}

/// The text being written, and where its current line starts.
struct Out {
    text: String,
    line_start: usize,
    /// Nodes on the current line.
    on_line: usize,
}

impl Out {
    fn new_line(&mut self) {
        if self.text.len() > self.line_start {
            self.text.push('\n');
            self.line_start = self.text.len();
        }
        self.on_line = 0;
    }

    fn node(&mut self, node: &Node) {
        let start = self.text.len();
        self.text.push(';');
        let mut bare = false;
        for property in &node.properties {
            if bare {
                self.text.push(' ');
            }
            self.text.push_str(&property.ident);
            for value in &property.values {
                self.text.push('[');
                self.text.push_str(value);
                self.text.push(']');
            }
            bare = property.values.is_empty();
        }
        // Values may hold line breaks: the line goes on after the last one.
        if let Some(k) = self.text[start..].rfind('\n') {
            self.line_start = start + k + 1;
        }
        self.on_line += 1;
    }

    fn open_variation(&mut self) {
        self.new_line();
        self.text.push('(');
    }
}

/// A node with several children whose variations are being written.
struct Fork<'t> {
    children: &'t [NodeId],
    next: usize,
}

fn write_tree(out: &mut Out, tree: &Tree) {
    let mut forks: Vec<Fork<'_>> = Vec::new();
    // Bounds the walk even if children were edited into a cycle.
    let mut budget = tree.len();
    out.text.push('(');
    let mut id = Tree::ROOT;
    loop {
        // A child id of another tree, or a cycle, is written as the end of its line of play.
        if let Some(node) = tree.node(id).filter(|_| budget > 0) {
            budget -= 1;
            if out.on_line >= NODES_PER_LINE || out.text.len() - out.line_start >= LINE_WIDTH {
                out.new_line();
            }
            out.node(node);
            if id == Tree::ROOT && !node.children.is_empty() {
                out.new_line();
            }
            match node.children.as_slice() {
                [] => {}
                [only] => {
                    id = *only;
                    continue;
                }
                children => {
                    forks.push(Fork { children, next: 1 });
                    id = children[0];
                    out.open_variation();
                    continue;
                }
            }
        }
        // The end of a line of play: close its variation, then go on with the next pending one.
        out.text.push(')');
        loop {
            let Some(fork) = forks.last_mut() else {
                return;
            };
            if let Some(&next) = fork.children.get(fork.next) {
                fork.next += 1;
                id = next;
                out.open_variation();
                break;
            }
            // All variations of this fork done: close the variation that holds the fork's node.
            forks.pop();
            out.text.push(')');
        }
    }
}

/// A collection prints as its SGF text ([`write`]).
impl std::fmt::Display for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&write(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Property;

    #[test]
    fn layout() {
        let mut tree = Tree::new();
        tree.root_mut()
            .properties
            .push(Property::raw("FF", vec!["4".into()]));
        let a = tree
            .add_child(Tree::ROOT, vec![Property::raw("B", vec!["aa".into()])])
            .unwrap();
        let b = tree
            .add_child(a, vec![Property::raw("W", vec!["bb".into()])])
            .unwrap();
        tree.add_child(a, vec![Property::raw("W", vec![String::new()])]);
        tree.add_child(
            b,
            vec![
                Property::raw("KO", vec![]),
                Property::raw("C", vec!["x\\]".into()]),
            ],
        );
        let text = write(&Collection {
            trees: vec![tree.clone(), Tree::new()],
        });
        assert_eq!(text, "(;FF[4]\n;B[aa]\n(;W[bb];KO C[x\\]])\n(;W[]))\n(;)\n");
    }
}
