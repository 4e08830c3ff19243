//! tesuji-rules: the Go rules of RULES.md — board, moves, ko, scoring, game phases.
//!
//! Pure: no I/O, no async, no serialisation. Every public function accepts any input without panicking.

pub mod grid;
pub mod reference;
pub mod rules;
pub mod score;
pub mod spec;
pub mod types;

pub use grid::{DiagramError, Grid};
pub use rules::*;
pub use types::{Color, MAX_SIDE, Move, Point, Size, Turn};
