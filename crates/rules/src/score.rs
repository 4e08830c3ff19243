//! Scoring (being written).
