//! Tree to text (being written).

use crate::tree::Collection;

/// The canonical text of a collection.
pub fn write(collection: &Collection) -> String {
    let _ = collection;
    String::new()
}
