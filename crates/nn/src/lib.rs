//! KataGo's neural networks on a CPU: [`model`] reads a network file (model versions 8 to 17), [`inputs`]
//! turns a [`tesuji_rules::Game`] into KataGo's V7 input features, [`reference`] evaluates a network with
//! plain loops (the literal version the fast one is checked against), and [`output`] turns the raw heads
//! into the figures KataGo reports; [`position`] evaluates games and [`cache`] keeps evaluations.

mod area;
pub mod cache;
pub mod inputs;
pub mod katarules;
mod ladder;
pub mod model;
pub mod network;
pub mod output;
pub mod position;
pub mod reference;
mod simd;
