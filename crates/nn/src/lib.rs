//! KataGo's neural networks on a CPU: [`model`] reads a network file (model versions 8 to 17), [`inputs`]
//! holds the V7 input features of a position, [`reference`] evaluates a network with plain loops (the
//! literal version the fast one is checked against), [`network`] evaluates batches fast, and [`output`] turns
//! the raw heads into the figures KataGo reports.

pub mod inputs;
pub mod model;
pub mod network;
pub mod output;
pub mod reference;
mod simd;
