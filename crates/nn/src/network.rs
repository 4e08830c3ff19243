//! The fast evaluator: the same layers as [`crate::reference`], with every product of matrices done by the
//! `gemm` crate's kernels (AVX2/FMA or AVX-512 as the CPU has them) on activations laid out point by point,
//! `[position][point][channel]`, so that 1x1 convolutions and the transformer's projections are single
//! matrix products over a whole batch and wider filters are one product after gathering their windows.

use crate::inputs::{Features, GLOBAL_FEATURES, SPATIAL_FEATURES};
use crate::model::{
    Activation, Attention, Block, BlockKind, Conv, FeedForward, MatMul, Model, NormAct, RmsNorm,
    Rope, TipNorm,
};
use crate::reference::{RawOutput, activate, rope_angle};
use crate::simd::{self, activate_all};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// `c[m×n] (+)= a[m×k] · b[k×n]`, each matrix given by its slice, row stride and column stride.
#[allow(clippy::too_many_arguments)]
fn gemm(
    (m, n, k): (usize, usize, usize),
    a: &[f32],
    (a_rs, a_cs): (usize, usize),
    b: &[f32],
    (b_rs, b_cs): (usize, usize),
    c: &mut [f32],
    c_rs: usize,
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for r in 0..m {
                c[r * c_rs..r * c_rs + n].fill(0.0);
            }
        }
        return;
    }
    // The kernels read and write through raw pointers; these checks keep every element they touch inside
    // the slices (the last element of each matrix is the one furthest from its start).
    assert!(
        (m - 1) * a_rs + (k - 1) * a_cs < a.len(),
        "gemm: lhs out of bounds"
    );
    assert!(
        (k - 1) * b_rs + (n - 1) * b_cs < b.len(),
        "gemm: rhs out of bounds"
    );
    assert!(
        (m - 1) * c_rs + n - 1 < c.len(),
        "gemm: destination out of bounds"
    );
    // SAFETY: the asserts above bound every index the kernel forms from these strides and sizes; `c` is an
    // exclusive borrow, so it aliases neither `a` nor `b`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            c_rs as isize,
            accumulate,
            a.as_ptr(),
            a_cs as isize,
            a_rs as isize,
            b.as_ptr(),
            b_cs as isize,
            b_rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Rows of `channels` values: `[row][channel]`.
struct Rows {
    channels: usize,
    data: Vec<f32>,
}

thread_local! {
    /// Buffers of finished `Rows`, for the next ones: an evaluation makes hundreds of buffers of a few
    /// hundred kilobytes, and fresh ones from the system cost a page fault a page each time.
    static SPARE: std::cell::RefCell<Vec<Vec<f32>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many spare buffers a thread keeps.
const SPARES: usize = 24;

impl Rows {
    fn zeros(rows: usize, channels: usize) -> Rows {
        let len = rows * channels;
        let reused = SPARE.with_borrow_mut(|spare| {
            let i = spare.iter().position(|b| b.capacity() >= len)?;
            Some(spare.swap_remove(i))
        });
        let mut data = reused.unwrap_or_default();
        data.clear();
        data.resize(len, 0.0);
        Rows { channels, data }
    }
    fn copy(other: &Rows) -> Rows {
        let mut out = Rows::zeros(0, other.channels);
        out.data.extend_from_slice(&other.data);
        out
    }
    fn rows(&self) -> usize {
        self.data.len() / self.channels
    }
}

impl Drop for Rows {
    fn drop(&mut self) {
        let data = std::mem::take(&mut self.data);
        if data.capacity() > 0 {
            SPARE.with_borrow_mut(|spare| {
                if spare.len() < SPARES {
                    spare.push(data);
                }
            });
        }
    }
}

/// A product with the weights `[in][out]` of a matrix layer or a 1x1 convolution.
fn product(x: &Rows, weights: &[f32], outputs: usize, into: &mut Rows, accumulate: bool) {
    debug_assert_eq!(into.channels, outputs);
    gemm(
        (x.rows(), outputs, x.channels),
        &x.data,
        (x.channels, 1),
        weights,
        (outputs, 1),
        &mut into.data,
        outputs,
        accumulate,
    );
}

fn norm_act(x: &Rows, n: &NormAct) -> Rows {
    let mut out = Rows::copy(x);
    simd::norm_activate(&mut out.data, &n.scale, &n.bias, n.activation);
    out
}

fn rms_norm_rows(x: &Rows, n: &RmsNorm) -> Rows {
    let mut out = Rows::zeros(x.rows(), x.channels);
    for (row, src) in out
        .data
        .chunks_exact_mut(x.channels)
        .zip(x.data.chunks_exact(x.channels))
    {
        let sum: f32 = src.iter().map(|v| v * v).sum();
        let r = 1.0 / (sum / x.channels as f32 + n.epsilon).sqrt();
        for c in 0..x.channels {
            row[c] = src[c] * r * n.weight[c];
        }
    }
    out
}

/// A network ready to evaluate batches of positions of one board shape.
pub struct Network {
    model: Model,
    /// The rotary encodings' sines and cosines by board shape, one table an attention block in the order
    /// the blocks run, made on a shape's first evaluation.
    rotations: Mutex<HashMap<(usize, usize), Rotations>>,
}

/// The shape of the positions in one call.
#[derive(Clone, Copy)]
struct Shape {
    batch: usize,
    height: usize,
    width: usize,
}

impl Shape {
    fn points(&self) -> usize {
        self.height * self.width
    }
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Network({} v{})", self.model.name, self.model.version)
    }
}

impl Network {
    pub fn new(model: Model) -> Network {
        Network {
            model,
            rotations: Mutex::new(HashMap::new()),
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Evaluates positions that share one board shape, each in the orientation its features give.
    ///
    /// # Panics
    /// If the positions' shapes differ or a feature vector has the wrong length.
    pub fn evaluate(&self, batch: &[&Features]) -> Vec<RawOutput> {
        let Some(first) = batch.first() else {
            return Vec::new();
        };
        let shape = Shape {
            batch: batch.len(),
            height: first.height,
            width: first.width,
        };
        let points = shape.points();
        let mut input = Rows::zeros(shape.batch * points, SPATIAL_FEATURES);
        for (b, f) in batch.iter().enumerate() {
            assert!(
                f.height == shape.height && f.width == shape.width,
                "one board shape a batch"
            );
            assert_eq!(f.spatial.len(), SPATIAL_FEATURES * points);
            for c in 0..SPATIAL_FEATURES {
                for p in 0..points {
                    input.data[(b * points + p) * SPATIAL_FEATURES + c] = f.spatial[c * points + p];
                }
            }
        }
        let t = &self.model.trunk;
        let mut trunk = conv(&input, &t.initial_conv, shape);
        for (b, f) in batch.iter().enumerate() {
            let bias = vector_product(&f.global[..GLOBAL_FEATURES], &t.initial_global);
            add_bias(&mut trunk, b * points..(b + 1) * points, &bias);
        }
        let rotations = self.rotations(shape);
        let mut run = Run {
            shape,
            rotations: &rotations,
            next_attention: 0,
        };
        for block in &t.blocks {
            block_forward(&mut trunk, block, &mut run);
        }
        let trunk = tip(&trunk, &t.tip, shape);
        self.heads(&trunk, shape)
    }

    fn rotations(&self, shape: Shape) -> Rotations {
        let mut cache = self.rotations.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((shape.height, shape.width))
            .or_insert_with(|| {
                let mut tables = Vec::new();
                for b in &self.model.trunk.blocks {
                    rotation_tables(b, shape, &mut tables);
                }
                Arc::new(tables)
            })
            .clone()
    }

    fn heads(&self, trunk: &Rows, shape: Shape) -> Vec<RawOutput> {
        let points = shape.points();
        let p = &self.model.policy;
        let mut p1 = conv(trunk, &p.p1, shape);
        let g = norm_act(&conv(trunk, &p.g1, shape), &p.g1_norm);
        let mut passes = Vec::with_capacity(shape.batch);
        for b in 0..shape.batch {
            let pooled = pool(&g, b, points);
            let bias = vector_product(&pooled, &p.pool_to_bias);
            add_bias(&mut p1, b * points..(b + 1) * points, &bias);
            passes.push(match &p.pass_hidden {
                Some((hidden_bias, act, second)) => {
                    let hidden: Vec<f32> = vector_product(&pooled, &p.pass)
                        .iter()
                        .zip(hidden_bias)
                        .map(|(&v, &b)| activate(*act, v + b))
                        .collect();
                    vector_product(&hidden, second)
                }
                None => vector_product(&pooled, &p.pass),
            });
        }
        let policy = conv(&norm_act(&p1, &p.p1_norm), &p.p2, shape);

        let v = &self.model.value;
        let v1 = norm_act(&conv(trunk, &v.v1, shape), &v.v1_norm);
        let ownership = conv(&v1, &v.ownership, shape);
        (0..shape.batch)
            .zip(passes)
            .map(|(b, pass)| {
                let v2: Vec<f32> = vector_product(&value_pool(&v1, b, points), &v.v2)
                    .iter()
                    .zip(&v.v2_bias)
                    .map(|(&x, &bias)| activate(v.v2_act, x + bias))
                    .collect();
                let value = vector_product(&v2, &v.v3);
                let score = vector_product(&v2, &v.score)
                    .iter()
                    .zip(&v.score_bias)
                    .map(|(&x, &bias)| x + bias)
                    .collect();
                let mut planes = vec![0.0; policy.channels * points];
                for c in 0..policy.channels {
                    for q in 0..points {
                        planes[c * points + q] =
                            policy.data[(b * points + q) * policy.channels + c];
                    }
                }
                RawOutput {
                    width: shape.width,
                    height: shape.height,
                    policy: planes,
                    pass,
                    value: [
                        value[0] + v.v3_bias[0],
                        value[1] + v.v3_bias[1],
                        value[2] + v.v3_bias[2],
                    ],
                    score,
                    ownership: ownership.data[b * points..(b + 1) * points].to_vec(),
                }
            })
            .collect()
    }
}

/// What one evaluation carries through the blocks.
struct Run<'a> {
    shape: Shape,
    rotations: &'a [Rotation],
    /// The attention block to come, counted in the order the blocks run.
    next_attention: usize,
}

/// Every attention block's rotations on one board shape, in the order the blocks run.
type Rotations = Arc<Vec<Rotation>>;

/// An attention block's rotations on one board shape: (sin, cos) by point, key-value head and pair.
type Rotation = Vec<(f32, f32)>;

fn rotation_tables(b: &Block, shape: Shape, tables: &mut Vec<Rotation>) {
    match &b.kind {
        BlockKind::NestedBottleneck { blocks, .. } => {
            for inner in blocks {
                rotation_tables(inner, shape, tables);
            }
        }
        BlockKind::Attention(a) => {
            let points = shape.points();
            let pairs = a.q_dim / 2;
            let mut table = Vec::with_capacity(a.kv_heads * pairs * points);
            for p in 0..points {
                let (x, y) = (p % shape.width, p / shape.width);
                for h in 0..a.kv_heads {
                    for j in 0..pairs {
                        table.push(rope_angle(&a.rope, a.q_dim, h, j, x, y).sin_cos());
                    }
                }
            }
            tables.push(table);
        }
        _ => {}
    }
}

fn block_forward(trunk: &mut Rows, b: &Block, run: &mut Run) {
    let shape = run.shape;
    match &b.kind {
        BlockKind::Ordinary {
            pre,
            first,
            mid,
            last,
        } => {
            let t = conv(&norm_act(trunk, pre), first, shape);
            conv_into(&norm_act(&t, mid), last, shape, trunk, true);
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
            let mut r = conv(&x, regular, shape);
            let g = norm_act(&conv(&x, pool_conv, shape), pool_norm);
            let points = shape.points();
            for b in 0..shape.batch {
                let bias = vector_product(&pool(&g, b, points), pool_to_bias);
                add_bias(&mut r, b * points..(b + 1) * points, &bias);
            }
            conv_into(&norm_act(&r, mid), last, shape, trunk, true);
        }
        BlockKind::NestedBottleneck {
            pre,
            down,
            blocks,
            post,
            up,
        } => {
            let mut inner = conv(&norm_act(trunk, pre), down, shape);
            for b in blocks {
                block_forward(&mut inner, b, run);
            }
            conv_into(&norm_act(&inner, post), up, shape, trunk, true);
        }
        BlockKind::Attention(a) => {
            let rotation = &run.rotations[run.next_attention];
            run.next_attention += 1;
            attention(trunk, a, shape, rotation)
        }
        BlockKind::FeedForward(f) => feed_forward(trunk, f),
    }
}

fn vector_product(x: &[f32], m: &MatMul) -> Vec<f32> {
    let mut out = vec![0.0; m.outputs];
    gemm(
        (1, m.outputs, m.inputs),
        x,
        (m.inputs, 1),
        &m.weights,
        (m.outputs, 1),
        &mut out,
        m.outputs,
        false,
    );
    out
}

fn add_bias(x: &mut Rows, rows: std::ops::Range<usize>, bias: &[f32]) {
    let n = x.channels;
    for row in x.data[rows.start * n..rows.end * n].chunks_exact_mut(n) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}

fn conv(x: &Rows, c: &Conv, shape: Shape) -> Rows {
    let mut out = Rows::zeros(x.rows(), c.outputs);
    conv_into(x, c, shape, &mut out, false);
    out
}

/// A convolution written into (or added to) `out`.
fn conv_into(x: &Rows, c: &Conv, shape: Shape, out: &mut Rows, accumulate: bool) {
    if c.height == 1 && c.width == 1 {
        product(x, &c.weights, c.outputs, out, accumulate);
        return;
    }
    // Gather each point's window into one row, `[ky][kx][in]` as the weights are stored, zeros off the
    // board, and multiply all rows of a position at once.
    let points = shape.points();
    let window = c.height * c.width * c.inputs;
    let mut columns = vec![0.0f32; points * window];
    let (h, w) = (shape.height as isize, shape.width as isize);
    for b in 0..shape.batch {
        columns.fill(0.0);
        for y in 0..h {
            for xx in 0..w {
                let row = &mut columns[(y * w + xx) as usize * window..][..window];
                for ky in 0..c.height {
                    let sy = y + (ky as isize - (c.height / 2) as isize) * c.dilation_y as isize;
                    if sy < 0 || sy >= h {
                        continue;
                    }
                    for kx in 0..c.width {
                        let sx =
                            xx + (kx as isize - (c.width / 2) as isize) * c.dilation_x as isize;
                        if sx < 0 || sx >= w {
                            continue;
                        }
                        let src = (b * points + (sy * w + sx) as usize) * c.inputs;
                        row[(ky * c.width + kx) * c.inputs..][..c.inputs]
                            .copy_from_slice(&x.data[src..src + c.inputs]);
                    }
                }
            }
        }
        gemm(
            (points, c.outputs, window),
            &columns,
            (window, 1),
            &c.weights,
            (c.outputs, 1),
            &mut out.data[b * points * c.outputs..],
            c.outputs,
            accumulate,
        );
    }
}

fn pool(x: &Rows, b: usize, points: usize) -> Vec<f32> {
    let n = x.channels;
    let mut sum = vec![0f32; n];
    let mut max = vec![f32::NEG_INFINITY; n];
    for row in x.data[b * points * n..(b + 1) * points * n].chunks_exact(n) {
        for c in 0..n {
            sum[c] += row[c];
            max[c] = max[c].max(row[c]);
        }
    }
    let area = points as f32;
    let size_term = (area.sqrt() - 14.0) * 0.1;
    let mut out = vec![0.0; 3 * n];
    for c in 0..n {
        let mean = sum[c] / area;
        out[c] = mean;
        out[n + c] = mean * size_term;
        out[2 * n + c] = max[c];
    }
    out
}

fn value_pool(x: &Rows, b: usize, points: usize) -> Vec<f32> {
    let n = x.channels;
    let mut sum = vec![0f32; n];
    for row in x.data[b * points * n..(b + 1) * points * n].chunks_exact(n) {
        for c in 0..n {
            sum[c] += row[c];
        }
    }
    let area = points as f32;
    let s = area.sqrt() - 14.0;
    let mut out = vec![0.0; 3 * n];
    for c in 0..n {
        let mean = sum[c] / area;
        out[c] = mean;
        out[n + c] = mean * s * 0.1;
        out[2 * n + c] = mean * (s * s * 0.01 - 0.1);
    }
    out
}

fn tip(x: &Rows, t: &TipNorm, shape: Shape) -> Rows {
    match t {
        TipNorm::Batch(n) => norm_act(x, n),
        TipNorm::Rms {
            epsilon,
            spatial,
            gamma,
            beta,
            activation,
            ..
        } => {
            let n = x.channels;
            let points = shape.points();
            let mut out = Rows::zeros(x.rows(), n);
            for b in 0..shape.batch {
                let range = b * points * n..(b + 1) * points * n;
                let whole = spatial.then(|| {
                    let sum: f32 = x.data[range.clone()].iter().map(|v| v * v).sum();
                    1.0 / (sum / (points * n) as f32 + epsilon).sqrt()
                });
                for (row, src) in out.data[range.clone()]
                    .chunks_exact_mut(n)
                    .zip(x.data[range.clone()].chunks_exact(n))
                {
                    let r = whole.unwrap_or_else(|| {
                        let sum: f32 = src.iter().map(|v| v * v).sum();
                        1.0 / (sum / n as f32 + epsilon).sqrt()
                    });
                    for c in 0..n {
                        row[c] = src[c] * r * gamma[c] + beta[c];
                    }
                }
            }
            activate_all(*activation, &mut out.data);
            out
        }
    }
}

fn attention(trunk: &mut Rows, a: &Attention, shape: Shape, rotation: &Rotation) {
    let points = shape.points();
    let x = rms_norm_rows(trunk, &a.norm);
    let rows = x.rows();
    let mut q = Rows::zeros(rows, a.q.outputs);
    let mut k = Rows::zeros(rows, a.k.outputs);
    let mut v = Rows::zeros(rows, a.v.outputs);
    product(&x, &a.q.weights, a.q.outputs, &mut q, false);
    product(&x, &a.k.weights, a.k.outputs, &mut k, false);
    product(&x, &a.v.weights, a.v.outputs, &mut v, false);
    if !matches!(a.rope, Rope::None) {
        let group = a.heads / a.kv_heads;
        rotate(&mut q, a, a.heads, group, shape, rotation);
        rotate(&mut k, a, a.kv_heads, 1, shape, rotation);
    }
    let group = a.heads / a.kv_heads;
    let scale = 1.0 / (a.q_dim as f32).sqrt();
    let joined_width = a.heads * a.v_dim;
    let mut joined = Rows::zeros(rows, joined_width);
    let mut scores = vec![0f32; points * points];
    for b in 0..shape.batch {
        let base = b * points;
        for h in 0..a.heads {
            let kv = h / group;
            // scores[p][o] = q_h[p] · k_kv[o]
            gemm(
                (points, points, a.q_dim),
                &q.data[base * q.channels + h * a.q_dim..],
                (q.channels, 1),
                &k.data[base * k.channels + kv * a.q_dim..],
                (1, k.channels),
                &mut scores,
                points,
                false,
            );
            simd::softmax(&mut scores, points, scale);
            gemm(
                (points, a.v_dim, points),
                &scores,
                (points, 1),
                &v.data[base * v.channels + kv * a.v_dim..],
                (v.channels, 1),
                &mut joined.data[base * joined_width + h * a.v_dim..],
                joined_width,
                false,
            );
        }
    }
    product(&joined, &a.out.weights, a.out.outputs, trunk, true);
}

/// Rotates the pairs of each head of `x` by the angles of its point; query heads share their key-value
/// head's angles.
fn rotate(
    x: &mut Rows,
    a: &Attention,
    heads: usize,
    group: usize,
    shape: Shape,
    rotation: &Rotation,
) {
    let points = shape.points();
    let pairs = a.q_dim / 2;
    let n = x.channels;
    let kv_heads = a.kv_heads;
    for (r, row) in x.data.chunks_exact_mut(n).enumerate() {
        let p = r % points;
        for h in 0..heads {
            let table = &rotation[(p * kv_heads + h / group) * pairs..][..pairs];
            for (j, &(s, c)) in table.iter().enumerate() {
                let i = h * a.q_dim + 2 * j;
                let (x0, x1) = (row[i], row[i + 1]);
                row[i] = x0 * c - x1 * s;
                row[i + 1] = x0 * s + x1 * c;
            }
        }
    }
}

fn feed_forward(trunk: &mut Rows, f: &FeedForward) {
    let x = rms_norm_rows(trunk, &f.norm);
    let rows = x.rows();
    let mut up = Rows::zeros(rows, f.hidden);
    product(&x, &f.up.weights, f.hidden, &mut up, false);
    if let Some(gate) = &f.gate {
        let mut g = Rows::zeros(rows, f.hidden);
        product(&x, &gate.weights, f.hidden, &mut g, false);
        simd::swiglu(&mut up.data, &g.data);
    } else {
        activate_all(Activation::Silu, &mut up.data);
    }
    product(&up, &f.down.weights, f.channels, trunk, true);
}

/// Floating-point operations of one evaluation on a board of this shape (a multiply-add counts two): the
/// convolutions and matrix products, attention's two products; not the norms, activations and pools.
pub fn flops(model: &Model, height: usize, width: usize) -> f64 {
    let points = (height * width) as f64;
    let conv = |c: &Conv| 2.0 * (c.height * c.width * c.inputs * c.outputs) as f64 * points;
    let matmul = |m: &MatMul| 2.0 * (m.inputs * m.outputs) as f64;
    fn block(
        b: &Block,
        points: f64,
        conv: &dyn Fn(&Conv) -> f64,
        matmul: &dyn Fn(&MatMul) -> f64,
    ) -> f64 {
        match &b.kind {
            BlockKind::Ordinary { first, last, .. } => conv(first) + conv(last),
            BlockKind::GlobalPooling {
                regular,
                pool,
                pool_to_bias,
                last,
                ..
            } => conv(regular) + conv(pool) + matmul(pool_to_bias) + conv(last),
            BlockKind::NestedBottleneck {
                down, blocks, up, ..
            } => {
                conv(down)
                    + conv(up)
                    + blocks
                        .iter()
                        .map(|b| block(b, points, conv, matmul))
                        .sum::<f64>()
            }
            BlockKind::Attention(a) => {
                let projections = matmul(&a.q) + matmul(&a.k) + matmul(&a.v) + matmul(&a.out);
                let scores = 2.0 * (a.heads * a.q_dim) as f64 * points;
                let mix = 2.0 * (a.heads * a.v_dim) as f64 * points;
                (projections + scores + mix) * points
            }
            BlockKind::FeedForward(f) => {
                let gate = f.gate.as_ref().map_or(0.0, matmul);
                (matmul(&f.up) + gate + matmul(&f.down)) * points
            }
        }
    }
    let t = &model.trunk;
    let trunk: f64 = conv(&t.initial_conv)
        + t.blocks
            .iter()
            .map(|b| block(b, points, &conv, &matmul))
            .sum::<f64>();
    let p = &model.policy;
    let v = &model.value;
    trunk + conv(&p.p1) + conv(&p.g1) + conv(&p.p2) + conv(&v.v1) + conv(&v.ownership)
}
