pub mod playout;
