//! KataGo's V7 input features: what one position gives the network.

pub const SPATIAL_FEATURES: usize = 22;
pub const GLOBAL_FEATURES: usize = 19;

/// The inputs of one position: `spatial[(feature * height + y) * width + x]`, y = 0 the top row.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub width: usize,
    pub height: usize,
    pub spatial: Vec<f32>,
    pub global: [f32; GLOBAL_FEATURES],
}
