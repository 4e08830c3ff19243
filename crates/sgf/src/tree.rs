//! The SGF data model: a [`Collection`] of game [`Tree`]s; each tree an arena of [`Node`]s (the root first,
//! then every node in document order); each node an ordered list of [`Property`]s whose values are kept
//! exactly as written (escapes included), so that nothing a reader does not understand is lost.

/// The index of a node in its tree's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

/// A property: an identifier (upper-case letters, as FF[4] writes them) and one or more raw values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    pub ident: String,
    /// The values between the brackets, exactly as written: escapes (`\]`, `\\`) and soft line breaks kept.
    pub values: Vec<String>,
}

impl Property {
    /// A property with raw values.
    pub fn raw(ident: &str, values: Vec<String>) -> Property {
        Property {
            ident: ident.to_string(),
            values,
        }
    }

    /// A property with one text value, escaped for SGF.
    pub fn text(ident: &str, value: &str) -> Property {
        Property::raw(ident, vec![escape(value)])
    }

    /// The first value as text: escapes resolved, soft line breaks removed.
    pub fn text_value(&self) -> Option<String> {
        self.values.first().map(|v| unescape(v))
    }
}

/// Escapes `]` and `\` for an SGF text value. (`:` needs escaping only inside composed values, which are
/// written raw.)
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if matches!(ch, ']' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Resolves SGF escapes: `\` followed by a line break is a soft line break (removed); `\` followed by any
/// other character is that character.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        // A soft line break is `\` and a line break of one or two characters (CR LF or LF CR).
        match chars.next() {
            Some(first @ ('\r' | '\n')) => {
                let pair = if first == '\r' { '\n' } else { '\r' };
                chars.next_if_eq(&pair);
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// A node: its properties in document order and its children (the first child continues the main line).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Node {
    pub properties: Vec<Property>,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
}

impl Node {
    /// The first property with this identifier.
    pub fn get(&self, ident: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.ident == ident)
    }

    /// The first value of the first property with this identifier, raw.
    pub fn value(&self, ident: &str) -> Option<&str> {
        self.get(ident)
            .and_then(|p| p.values.first())
            .map(String::as_str)
    }

    /// Whether the node holds a move (`B` or `W`; a pass included).
    pub fn has_move(&self) -> bool {
        self.get("B").is_some() || self.get("W").is_some()
    }
}

/// One game tree: an arena of nodes, the root at index 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

impl Tree {
    /// A tree holding only an empty root node.
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node::default()],
        }
    }

    pub const ROOT: NodeId = NodeId(0);

    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    pub fn root_mut(&mut self) -> &mut Node {
        &mut self.nodes[0]
    }

    /// The node with this id; `None` for an id of another tree.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0)
    }

    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(id.0)
    }

    /// Every node, in document order (the root first).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Adds a child at the end of `parent`'s children; `None` if `parent` is not a node of this tree.
    pub fn add_child(&mut self, parent: NodeId, properties: Vec<Property>) -> Option<NodeId> {
        if parent.0 >= self.nodes.len() {
            return None;
        }
        let id = NodeId(self.nodes.len());
        self.nodes.push(Node {
            properties,
            parent: Some(parent),
            children: Vec::new(),
        });
        self.nodes[parent.0].children.push(id);
        Some(id)
    }

    /// The main line: the root, then each first child.
    pub fn main_line(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut next = Some(Tree::ROOT);
        std::iter::from_fn(move || {
            let id = next?;
            next = self.nodes[id.0].children.first().copied();
            Some(id)
        })
    }
}

/// A collection: the game trees of one file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Collection {
    pub trees: Vec<Tree>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        for text in [
            "plain",
            "a]b",
            "back\\slash",
            "x:y",
            "multi\nline",
            "",
            "]]\\\\",
        ] {
            assert_eq!(unescape(&escape(text)), text);
        }
        assert_eq!(unescape("soft\\\nbreak"), "softbreak");
        assert_eq!(unescape("soft\\\r\nbreak"), "softbreak");
        assert_eq!(unescape("trailing\\"), "trailing");
    }

    #[test]
    fn arena_and_main_line() {
        let mut t = Tree::new();
        let a = t
            .add_child(Tree::ROOT, vec![Property::raw("B", vec!["aa".into()])])
            .unwrap();
        let _b = t
            .add_child(Tree::ROOT, vec![Property::raw("B", vec!["bb".into()])])
            .unwrap();
        let c = t.add_child(a, vec![Property::text("C", "hi]")]).unwrap();
        assert_eq!(t.main_line().collect::<Vec<_>>(), vec![Tree::ROOT, a, c]);
        assert_eq!(
            t.node(c).unwrap().get("C").unwrap().text_value().unwrap(),
            "hi]"
        );
        assert!(t.add_child(NodeId(99), vec![]).is_none());
        assert_eq!(t.node(a).unwrap().value("B"), Some("aa"));
    }
}
