//! The slow, literal reference implementation (being written).
