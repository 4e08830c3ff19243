//! The network evaluated literally: every layer as plain loops over channels and points, sums in double
//! precision, no reordering, no caching. Slow (seconds a 19x19 position for a mid-sized network); it is what
//! the fast evaluator is compared with on random weights and inputs.
//!
//! Tensors are `[channel][y][x]` at the board's own size: KataGo pads smaller boards to its buffer size and
//! masks the padding out of every norm, pool and attention, which is the same as not having it.

// The loops index as the formulas do, on purpose.
#![allow(clippy::needless_range_loop)]

use crate::inputs::{Features, GLOBAL_FEATURES, SPATIAL_FEATURES};
use crate::model::{
    Activation, Attention, Block, BlockKind, Conv, FeedForward, MatMul, Model, NormAct, RmsNorm,
    Rope, TipNorm,
};

/// What the heads give before any post-processing, from the view of the player to move.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOutput {
    pub width: usize,
    pub height: usize,
    /// `[channel][y][x]` logits: the policy, then (when the network has them) the optimistic policy and more.
    pub policy: Vec<f32>,
    /// One pass logit a policy channel.
    pub pass: Vec<f32>,
    /// Win, loss and no-result logits.
    pub value: [f32; 3],
    /// Score mean, score stdev (before softplus), lead, time variance, short-term errors: 4 or 6 values.
    pub score: Vec<f32>,
    /// `[y][x]` ownership before tanh.
    pub ownership: Vec<f32>,
}

/// `[channel][y][x]`.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub channels: usize,
    pub height: usize,
    pub width: usize,
    pub data: Vec<f32>,
}

impl Tensor {
    pub fn zeros(channels: usize, height: usize, width: usize) -> Tensor {
        Tensor {
            channels,
            height,
            width,
            data: vec![0.0; channels * height * width],
        }
    }
    fn at(&self, c: usize, y: usize, x: usize) -> f32 {
        self.data[(c * self.height + y) * self.width + x]
    }
    fn set(&mut self, c: usize, y: usize, x: usize, v: f32) {
        self.data[(c * self.height + y) * self.width + x] = v;
    }
    fn points(&self) -> usize {
        self.height * self.width
    }
}

pub fn activate(a: Activation, x: f32) -> f32 {
    match a {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Mish => {
            // softplus(x) = ln(1 + e^x), taken as x itself past 20 where the two agree in f32.
            let softplus = if x < 20.0 { x.exp().ln_1p() } else { x };
            x * softplus.tanh()
        }
        Activation::Silu => x / (1.0 + (-x).exp()),
    }
}

/// A convolution with zero padding, centred filters and the file's dilation.
pub fn conv(input: &Tensor, c: &Conv) -> Tensor {
    let mut out = Tensor::zeros(c.outputs, input.height, input.width);
    let (h, w) = (input.height as isize, input.width as isize);
    for oc in 0..c.outputs {
        for y in 0..h {
            for x in 0..w {
                let mut sum = 0f64;
                for ky in 0..c.height {
                    let sy = y + (ky as isize - (c.height / 2) as isize) * c.dilation_y as isize;
                    if sy < 0 || sy >= h {
                        continue;
                    }
                    for kx in 0..c.width {
                        let sx = x + (kx as isize - (c.width / 2) as isize) * c.dilation_x as isize;
                        if sx < 0 || sx >= w {
                            continue;
                        }
                        for ic in 0..c.inputs {
                            let weight =
                                c.weights[((ky * c.width + kx) * c.inputs + ic) * c.outputs + oc];
                            sum += weight as f64 * input.at(ic, sy as usize, sx as usize) as f64;
                        }
                    }
                }
                out.set(oc, y as usize, x as usize, sum as f32);
            }
        }
    }
    out
}

pub fn norm_act(input: &Tensor, n: &NormAct) -> Tensor {
    let mut out = input.clone();
    for c in 0..input.channels {
        for p in 0..input.points() {
            let i = c * input.points() + p;
            out.data[i] = activate(n.activation, input.data[i] * n.scale[c] + n.bias[c]);
        }
    }
    out
}

pub fn matmul(input: &[f32], m: &MatMul) -> Vec<f32> {
    (0..m.outputs)
        .map(|o| {
            let mut sum = 0f64;
            for (i, &x) in input.iter().enumerate() {
                sum += x as f64 * m.weights[i * m.outputs + o] as f64;
            }
            sum as f32
        })
        .collect()
}

/// The mean, the mean scaled by board size, and the maximum of each channel.
pub fn pool(input: &Tensor) -> Vec<f32> {
    let n = input.channels;
    let mut out = vec![0.0; 3 * n];
    let area = input.points() as f32;
    let size_term = (area.sqrt() - 14.0) * 0.1;
    for c in 0..n {
        let plane = &input.data[c * input.points()..(c + 1) * input.points()];
        let mean = (plane.iter().map(|&v| v as f64).sum::<f64>() / area as f64) as f32;
        out[c] = mean;
        out[n + c] = mean * size_term;
        out[2 * n + c] = plane.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    }
    out
}

/// The value head's pooling: the mean, and the mean scaled by two functions of the board size.
pub fn value_pool(input: &Tensor) -> Vec<f32> {
    let n = input.channels;
    let mut out = vec![0.0; 3 * n];
    let area = input.points() as f32;
    let s = area.sqrt() - 14.0;
    for c in 0..n {
        let plane = &input.data[c * input.points()..(c + 1) * input.points()];
        let mean = (plane.iter().map(|&v| v as f64).sum::<f64>() / area as f64) as f32;
        out[c] = mean;
        out[n + c] = mean * s * 0.1;
        out[2 * n + c] = mean * (s * s * 0.01 - 0.1);
    }
    out
}

fn add_channel_bias(t: &mut Tensor, bias: &[f32]) {
    let points = t.points();
    for (c, b) in bias.iter().enumerate() {
        for v in &mut t.data[c * points..(c + 1) * points] {
            *v += b;
        }
    }
}

fn add(t: &mut Tensor, other: &Tensor) {
    for (a, b) in t.data.iter_mut().zip(&other.data) {
        *a += b;
    }
}

/// The channels of one point.
fn point(t: &Tensor, p: usize) -> Vec<f32> {
    (0..t.channels)
        .map(|c| t.data[c * t.points() + p])
        .collect()
}

fn rms(x: &[f32], epsilon: f32) -> f32 {
    let mean_square = x.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / x.len() as f64;
    1.0 / ((mean_square as f32) + epsilon).sqrt()
}

fn rms_norm(x: &[f32], n: &RmsNorm) -> Vec<f32> {
    let r = rms(x, n.epsilon);
    x.iter().zip(&n.weight).map(|(&v, &w)| v * r * w).collect()
}

/// The angle pair `pair` of key-value head `head` turns by at point (x, y).
pub fn rope_angle(rope: &Rope, q_dim: usize, head: usize, pair: usize, x: usize, y: usize) -> f32 {
    let pairs = q_dim / 2;
    match rope {
        Rope::None => 0.0,
        Rope::Learned(freqs) => {
            let i = (head * pairs + pair) * 2;
            x as f32 * freqs[i] + y as f32 * freqs[i + 1]
        }
        Rope::Theta(theta) => {
            // The first half of the pairs follow the row, the second half the column, each with
            // frequencies θ^(-2j/(q_dim/2)).
            let per_axis = pairs / 2;
            let (j, coordinate) = if pair < per_axis {
                (pair, y)
            } else {
                (pair - per_axis, x)
            };
            let freq = 1.0 / theta.powf((2 * j) as f32 / pairs as f32);
            coordinate as f32 * freq
        }
    }
}

fn attention(trunk: &mut Tensor, a: &Attention) {
    let points = trunk.points();
    let width = trunk.width;
    let mut q = Vec::with_capacity(points);
    let mut k = Vec::with_capacity(points);
    let mut v = Vec::with_capacity(points);
    for p in 0..points {
        let x = rms_norm(&point(trunk, p), &a.norm);
        q.push(matmul(&x, &a.q));
        k.push(matmul(&x, &a.k));
        v.push(matmul(&x, &a.v));
    }
    // Rotate each pair (2j, 2j+1) of every query and key head by its point's angle.
    let rotate = |vectors: &mut Vec<Vec<f32>>, heads: usize, kv_of: &dyn Fn(usize) -> usize| {
        for (p, vec) in vectors.iter_mut().enumerate() {
            let (x, y) = (p % width, p / width);
            for h in 0..heads {
                for j in 0..a.q_dim / 2 {
                    let angle = rope_angle(&a.rope, a.q_dim, kv_of(h), j, x, y);
                    let (s, c) = angle.sin_cos();
                    let i0 = h * a.q_dim + 2 * j;
                    let (x0, x1) = (vec[i0], vec[i0 + 1]);
                    vec[i0] = x0 * c - x1 * s;
                    vec[i0 + 1] = x0 * s + x1 * c;
                }
            }
        }
    };
    if !matches!(a.rope, Rope::None) {
        let group = a.heads / a.kv_heads;
        rotate(&mut q, a.heads, &|h| h / group);
        rotate(&mut k, a.kv_heads, &|h| h);
    }
    let scale = 1.0 / (a.q_dim as f64).sqrt();
    let group = a.heads / a.kv_heads;
    for p in 0..points {
        let mut joined = vec![0f32; a.heads * a.v_dim];
        for h in 0..a.heads {
            let kv = h / group;
            let scores: Vec<f64> = (0..points)
                .map(|o| {
                    let mut dot = 0f64;
                    for d in 0..a.q_dim {
                        dot += q[p][h * a.q_dim + d] as f64 * k[o][kv * a.q_dim + d] as f64;
                    }
                    dot * scale
                })
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            for d in 0..a.v_dim {
                let mut sum = 0f64;
                for o in 0..points {
                    sum += exps[o] / total * v[o][kv * a.v_dim + d] as f64;
                }
                joined[h * a.v_dim + d] = sum as f32;
            }
        }
        let out = matmul(&joined, &a.out);
        for (c, o) in out.iter().enumerate() {
            trunk.data[c * points + p] += o;
        }
    }
}

fn feed_forward(trunk: &mut Tensor, f: &FeedForward) {
    let points = trunk.points();
    for p in 0..points {
        let x = rms_norm(&point(trunk, p), &f.norm);
        let up = matmul(&x, &f.up);
        let hidden: Vec<f32> = match &f.gate {
            Some(gate) => {
                let g = matmul(&x, gate);
                up.iter()
                    .zip(&g)
                    .map(|(&u, &g)| activate(Activation::Silu, u) * g)
                    .collect()
            }
            None => up.iter().map(|&u| activate(Activation::Silu, u)).collect(),
        };
        let out = matmul(&hidden, &f.down);
        for (c, o) in out.iter().enumerate() {
            trunk.data[c * points + p] += o;
        }
    }
}

fn block(trunk: &mut Tensor, b: &Block) {
    match &b.kind {
        BlockKind::Ordinary {
            pre,
            first,
            mid,
            last,
        } => {
            let t = conv(&norm_act(trunk, pre), first);
            let t = conv(&norm_act(&t, mid), last);
            add(trunk, &t);
        }
        BlockKind::GlobalPooling {
            pre,
            regular,
            pool: pool_conv,
            pool_norm,
            pool_to_bias,
            mid,
            last,
        } => {
            let x = norm_act(trunk, pre);
            let mut r = conv(&x, regular);
            let g = norm_act(&conv(&x, pool_conv), pool_norm);
            add_channel_bias(&mut r, &matmul(&pool(&g), pool_to_bias));
            let t = conv(&norm_act(&r, mid), last);
            add(trunk, &t);
        }
        BlockKind::NestedBottleneck {
            pre,
            down,
            blocks,
            post,
            up,
        } => {
            let mut inner = conv(&norm_act(trunk, pre), down);
            for b in blocks {
                block(&mut inner, b);
            }
            let t = conv(&norm_act(&inner, post), up);
            add(trunk, &t);
        }
        BlockKind::Attention(a) => attention(trunk, a),
        BlockKind::FeedForward(f) => feed_forward(trunk, f),
    }
}

fn tip(trunk: &Tensor, t: &TipNorm) -> Tensor {
    match t {
        TipNorm::Batch(n) => norm_act(trunk, n),
        TipNorm::Rms {
            epsilon,
            spatial,
            gamma,
            beta,
            activation,
            ..
        } => {
            let points = trunk.points();
            let mut out = trunk.clone();
            let whole = if *spatial {
                Some(rms(&trunk.data, *epsilon))
            } else {
                None
            };
            for p in 0..points {
                let r = whole.unwrap_or_else(|| rms(&point(trunk, p), *epsilon));
                for c in 0..trunk.channels {
                    let i = c * points + p;
                    out.data[i] = activate(*activation, trunk.data[i] * r * gamma[c] + beta[c]);
                }
            }
            out
        }
    }
}

/// The trunk's output for one position.
pub fn trunk(model: &Model, features: &Features) -> Tensor {
    let (h, w) = (features.height, features.width);
    assert_eq!(features.spatial.len(), SPATIAL_FEATURES * h * w);
    let input = Tensor {
        channels: SPATIAL_FEATURES,
        height: h,
        width: w,
        data: features.spatial.clone(),
    };
    let t = &model.trunk;
    let mut x = conv(&input, &t.initial_conv);
    let global: Vec<f32> = features.global[..GLOBAL_FEATURES].to_vec();
    add_channel_bias(&mut x, &matmul(&global, &t.initial_global));
    for b in &t.blocks {
        block(&mut x, b);
    }
    tip(&x, &t.tip)
}

/// Evaluates one position, in the orientation its features give.
pub fn evaluate(model: &Model, features: &Features) -> RawOutput {
    let trunk = trunk(model, features);
    let p = &model.policy;
    let mut p1 = conv(&trunk, &p.p1);
    let g = norm_act(&conv(&trunk, &p.g1), &p.g1_norm);
    let pooled = pool(&g);
    add_channel_bias(&mut p1, &matmul(&pooled, &p.pool_to_bias));
    let policy = conv(&norm_act(&p1, &p.p1_norm), &p.p2);
    let pass = match &p.pass_hidden {
        Some((bias, act, second)) => {
            let hidden: Vec<f32> = matmul(&pooled, &p.pass)
                .iter()
                .zip(bias)
                .map(|(&v, &b)| activate(*act, v + b))
                .collect();
            matmul(&hidden, second)
        }
        None => matmul(&pooled, &p.pass),
    };

    let v = &model.value;
    let v1 = norm_act(&conv(&trunk, &v.v1), &v.v1_norm);
    let v2: Vec<f32> = matmul(&value_pool(&v1), &v.v2)
        .iter()
        .zip(&v.v2_bias)
        .map(|(&x, &b)| activate(v.v2_act, x + b))
        .collect();
    let value = matmul(&v2, &v.v3);
    let score: Vec<f32> = matmul(&v2, &v.score)
        .iter()
        .zip(&v.score_bias)
        .map(|(&x, &b)| x + b)
        .collect();
    let ownership = conv(&v1, &v.ownership);
    RawOutput {
        width: features.width,
        height: features.height,
        policy: policy.data,
        pass,
        value: [
            value[0] + v.v3_bias[0],
            value[1] + v.v3_bias[1],
            value[2] + v.v3_bias[2],
        ],
        score,
        ownership: ownership.data,
    }
}
