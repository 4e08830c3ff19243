//! Bytes to text (being written).
