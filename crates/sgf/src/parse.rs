//! Text to tree (being written).
