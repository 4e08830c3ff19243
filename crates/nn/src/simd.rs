//! Element-wise work over whole slices (activations, softmax) written so the compiler turns it into vector
//! code: an exponential without branches or library calls, compiled twice, for any x86-64 and for AVX2 with
//! FMA, the second chosen at run time when the CPU has it.

use crate::model::Activation;

/// e^x to within a few units in the last place for x in [-87, 88]; 0 below, e^88 above.
///
/// x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r from a degree-6 polynomial (Cephes' coefficients for single
/// precision), 2^n put straight into the exponent bits (n is in [-125, 127] after the clamp).
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_2e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // 2^n without a float-to-integer conversion (which does not vectorize): adding 1.5·2^23 leaves n + 127
    // in the low mantissa bits, and shifting those into the exponent field drops the rest.
    let biased = n + (12_582_912.0 + 127.0);
    e * f32::from_bits(biased.to_bits() << 23)
}

#[inline(always)]
fn activate(a: Activation, x: f32) -> f32 {
    match a {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Silu => x / (1.0 + exp(-x)),
        Activation::Mish => {
            // tanh(ln(1 + e^x)) = ((1 + e^x)² − 1) / ((1 + e^x)² + 1), exactly; past 20 it is 1 in f32.
            let e = exp(x.min(20.0));
            let s = (1.0 + e) * (1.0 + e);
            x * (s - 1.0) / (s + 1.0)
        }
    }
}

#[inline(always)]
fn activate_slice(a: Activation, data: &mut [f32]) {
    for v in data {
        *v = activate(a, *v);
    }
}

#[inline(always)]
fn scale_bias_activate_rows(data: &mut [f32], scale: &[f32], bias: &[f32], a: Activation) {
    for row in data.chunks_exact_mut(scale.len()) {
        for ((v, s), b) in row.iter_mut().zip(scale).zip(bias) {
            *v = activate(a, *v * s + b);
        }
    }
}

#[inline(always)]
fn silu_times(up: &mut [f32], gate: &[f32]) {
    for (u, g) in up.iter_mut().zip(gate) {
        *u = activate(Activation::Silu, *u) * g;
    }
}

/// The largest value, in eight lanes so that it vectorizes.
#[inline(always)]
fn max(values: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l = if v > *l { v } else { *l };
        }
    }
    let mut m = rest.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for l in lanes {
        m = m.max(l);
    }
    m
}

/// The sum, in eight lanes so that it vectorizes.
#[inline(always)]
fn sum(values: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l += v;
        }
    }
    lanes.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

/// Each row of `scores` (rows of `width`) becomes softmax(row · scale).
#[inline(always)]
fn softmax_rows(scores: &mut [f32], width: usize, scale: f32) {
    for row in scores.chunks_exact_mut(width) {
        let shift = max(row) * scale;
        for s in row.iter_mut() {
            *s = exp(*s * scale - shift);
        }
        let inv = 1.0 / sum(row);
        for s in row.iter_mut() {
            *s *= inv;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Activation;

    #[target_feature(enable = "avx2,fma")]
    pub fn activate_slice(a: Activation, data: &mut [f32]) {
        super::activate_slice(a, data)
    }
    #[target_feature(enable = "avx2,fma")]
    pub fn scale_bias_activate_rows(data: &mut [f32], scale: &[f32], bias: &[f32], a: Activation) {
        super::scale_bias_activate_rows(data, scale, bias, a)
    }
    #[target_feature(enable = "avx2,fma")]
    pub fn silu_times(up: &mut [f32], gate: &[f32]) {
        super::silu_times(up, gate)
    }
    #[target_feature(enable = "avx2,fma")]
    pub fn softmax_rows(scores: &mut [f32], width: usize, scale: f32) {
        super::softmax_rows(scores, width, scale)
    }
}

fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

// Each function below runs its body's AVX2 build when `has_avx2_fma` says the CPU can.
// SAFETY (for every `unsafe` block here): the CPU has AVX2 and FMA, the only features those builds assume.

/// `a` applied to every value.
pub fn activate_all(a: Activation, data: &mut [f32]) {
    if a == Activation::Identity {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        return unsafe { avx2::activate_slice(a, data) };
    }
    activate_slice(a, data)
}

/// Rows of `scale.len()` values: `a(v · scale + bias)`, a batch norm and its activation.
pub fn norm_activate(data: &mut [f32], scale: &[f32], bias: &[f32], a: Activation) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        return unsafe { avx2::scale_bias_activate_rows(data, scale, bias, a) };
    }
    scale_bias_activate_rows(data, scale, bias, a)
}

/// `up = silu(up) · gate`, SwiGLU's hidden layer.
pub fn swiglu(up: &mut [f32], gate: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        return unsafe { avx2::silu_times(up, gate) };
    }
    silu_times(up, gate)
}

/// Each row of `width` values becomes softmax(row · scale).
pub fn softmax(scores: &mut [f32], width: usize, scale: f32) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        return unsafe { avx2::softmax_rows(scores, width, scale) };
    }
    softmax_rows(scores, width, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponential_is_within_a_few_ulps_of_the_library_one() {
        let mut worst = 0f64;
        let mut x = -87.0f32;
        while x < 88.0 {
            let want = (x as f64).exp();
            let got = exp(x) as f64;
            worst = worst.max(((got - want) / want).abs());
            x += 0.000_731;
        }
        assert!(worst < 5e-7, "relative error {worst}");
        assert_eq!(exp(-1000.0), exp(-87.0));
        assert!(exp(f32::NEG_INFINITY) < 1e-37);
    }

    #[test]
    fn vector_activations_match_the_literal_ones() {
        let values: Vec<f32> = (0..2000).map(|i| (i as f32 - 1000.0) * 0.037).collect();
        for a in [
            Activation::Identity,
            Activation::Relu,
            Activation::Silu,
            Activation::Mish,
        ] {
            let mut fast = values.clone();
            activate_all(a, &mut fast);
            for (&x, &y) in values.iter().zip(&fast) {
                let want = crate::reference::activate(a, x);
                assert!(
                    (want - y).abs() <= 2e-6 * (1.0 + want.abs()),
                    "{a:?}({x}) = {want}, got {y}"
                );
            }
        }
        let mut rows = values.clone();
        softmax(&mut rows, 100, 0.5);
        for (row, src) in rows.chunks(100).zip(values.chunks(100)) {
            let total: f64 = src.iter().map(|&v| ((v * 0.5) as f64).exp()).sum();
            for (&p, &v) in row.iter().zip(src) {
                let want = ((v * 0.5) as f64).exp() / total;
                assert!(
                    (p as f64 - want).abs() <= 1e-6 * (1.0 + want),
                    "{p} against {want}"
                );
            }
        }
    }
}
