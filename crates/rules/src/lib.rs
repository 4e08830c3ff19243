//! tesuji-rules: the Go rules of RULES.md — board, moves, ko, scoring, game phases.
//!
//! Pure: no I/O, no async, no serialisation. Every public function accepts any input without panicking.

pub mod action;
pub mod board;
pub mod compare;
pub mod game;
pub mod grid;
pub mod handicap;
mod history;
pub mod perft;
pub mod reference;
pub mod result;
pub mod rules;
pub mod score;
pub mod spec;
pub mod types;

pub use action::ActionTextError;
pub use board::{Board, BoardRefusal, Idx, PlayEffect, SetupError, Snapshot};
pub use game::{Action, Game, GameError, Illegal, Phase, Refusal, TurnEffect};
pub use grid::{DiagramError, Grid};
pub use rules::*;
pub use types::{ByColor, Color, ColorError, MAX_SIDE, Move, Point, Size, Turn};
