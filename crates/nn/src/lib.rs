//! KataGo's neural networks on a CPU: [`model`] reads a network file (model versions 8 to 17) and
//! [`inputs`] holds the V7 input features of a position.

pub mod inputs;
pub mod model;
