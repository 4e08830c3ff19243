pub mod playout;
pub mod simple;
