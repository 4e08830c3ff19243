//! KataGo's network files: `.bin.gz`, `.bin`, `.txt.gz` and `.txt`, model versions 8 to 17.
//!
//! A file is whitespace-separated text (names, sizes, flags) with each block of weights either as text
//! numbers or, in the binary formats, as `@BIN@` followed by little-endian 32-bit floats. The order of the
//! layers is fixed by the block kinds the file names, so the reader follows the file rather than the version.
//! Every size is checked against the bytes left before anything is allocated, so a corrupt or hostile file
//! costs at most about its own size in memory.

use std::io::Read;
use std::path::Path;

use thiserror::Error;

/// The oldest and newest model versions read: the ones whose inputs are KataGo's V7 features.
pub const VERSIONS: std::ops::RangeInclusive<i64> = 8..=17;

/// The largest uncompressed network accepted (the biggest published KataGo network is well under 1 GiB).
const MAX_UNCOMPRESSED: u64 = 2 << 30;

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("cannot read {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error(
        "{path}: not a KataGo network file (the name should end in .bin.gz, .bin, .txt.gz or .txt)"
    )]
    Extension { path: String },
    #[error("cannot decompress: {0}")]
    Gzip(std::io::Error),
    #[error("the network is larger than {} MiB uncompressed", MAX_UNCOMPRESSED >> 20)]
    TooLarge,
    #[error(
        "model version {0} is not supported: this reader takes versions 8 to 17 (KataGo's V7 inputs)"
    )]
    Version(i64),
    #[error("{layer}: {problem} (byte {offset} of the uncompressed file)")]
    Format {
        layer: String,
        problem: String,
        offset: usize,
    },
}

/// How a block's weights are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `@BIN@` and little-endian floats (`.bin`, `.bin.gz`).
    Binary,
    /// Numbers as text (`.txt`, `.txt.gz`).
    Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
    Silu,
}

/// A convolution; weights in the file's order, `[y][x][in][out]`.
#[derive(Clone, Debug)]
pub struct Conv {
    pub name: String,
    pub height: usize,
    pub width: usize,
    pub inputs: usize,
    pub outputs: usize,
    pub dilation_y: usize,
    pub dilation_x: usize,
    pub weights: Vec<f32>,
}

/// A batch norm folded into one scale and one bias a channel, followed by its activation.
#[derive(Clone, Debug)]
pub struct NormAct {
    pub name: String,
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
    pub activation: Activation,
}

/// A matrix product; weights `[in][out]`.
#[derive(Clone, Debug)]
pub struct MatMul {
    pub name: String,
    pub inputs: usize,
    pub outputs: usize,
    pub weights: Vec<f32>,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub name: String,
    pub kind: BlockKind,
}

// Blocks are read once and kept in a list, so the size of the largest kind costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum BlockKind {
    /// norm-act, conv, norm-act, conv, added to the trunk.
    Ordinary {
        pre: NormAct,
        first: Conv,
        mid: NormAct,
        last: Conv,
    },
    /// As ordinary, with a pooled branch whose summary biases the middle channels.
    GlobalPooling {
        pre: NormAct,
        regular: Conv,
        pool: Conv,
        pool_norm: NormAct,
        pool_to_bias: MatMul,
        mid: NormAct,
        last: Conv,
    },
    /// A 1x1 conv down to fewer channels, a stack of blocks there, and a 1x1 conv back up.
    NestedBottleneck {
        pre: NormAct,
        down: Conv,
        blocks: Vec<Block>,
        post: NormAct,
        up: Conv,
    },
    Attention(Attention),
    FeedForward(FeedForward),
}

/// RMS normalisation over the channels of each point, with a gain a channel.
#[derive(Clone, Debug)]
pub struct RmsNorm {
    pub name: String,
    pub epsilon: f32,
    pub weight: Vec<f32>,
}

#[derive(Clone, Debug)]
pub struct Attention {
    pub heads: usize,
    pub kv_heads: usize,
    pub q_dim: usize,
    pub v_dim: usize,
    pub norm: RmsNorm,
    pub q: MatMul,
    pub k: MatMul,
    pub v: MatMul,
    pub out: MatMul,
    pub rope: Rope,
}

/// Rotary position encoding of queries and keys.
#[derive(Clone, Debug)]
pub enum Rope {
    None,
    /// Fixed frequencies from θ: the first half of the pairs turn with the row, the second with the column.
    Theta(f32),
    /// Learned frequencies `[kv_head][pair][x or y]`.
    Learned(Vec<f32>),
}

#[derive(Clone, Debug)]
pub struct FeedForward {
    pub channels: usize,
    pub hidden: usize,
    pub norm: RmsNorm,
    pub up: MatMul,
    /// SwiGLU's gate; without one the hidden layer is `silu(up)`.
    pub gate: Option<MatMul>,
    pub down: MatMul,
}

/// The norm at the tip of the trunk.
#[derive(Clone, Debug)]
pub enum TipNorm {
    Batch(NormAct),
    Rms {
        name: String,
        epsilon: f32,
        /// Normalise over the whole board at once rather than point by point.
        spatial: bool,
        gamma: Vec<f32>,
        beta: Vec<f32>,
        activation: Activation,
    },
}

#[derive(Clone, Debug)]
pub struct MetaEncoder {
    pub first: MatMul,
    pub first_bias: Vec<f32>,
    pub first_act: Activation,
    pub second: MatMul,
    pub second_bias: Vec<f32>,
    pub second_act: Activation,
    pub third: MatMul,
}

#[derive(Clone, Debug)]
pub struct Trunk {
    pub channels: usize,
    pub initial_conv: Conv,
    pub initial_global: MatMul,
    pub meta: Option<MetaEncoder>,
    pub blocks: Vec<Block>,
    pub tip: TipNorm,
}

#[derive(Clone, Debug)]
pub struct PolicyHead {
    /// 1 (plain), 2 (with the optimistic policy) or 4 (with Q predictions, ignored).
    pub outputs: usize,
    pub p1: Conv,
    pub g1: Conv,
    pub g1_norm: NormAct,
    pub pool_to_bias: MatMul,
    pub p1_norm: NormAct,
    pub p2: Conv,
    pub pass: MatMul,
    /// Version 15 on: a bias, an activation and a second product between the pooled summary and pass.
    pub pass_hidden: Option<(Vec<f32>, Activation, MatMul)>,
}

#[derive(Clone, Debug)]
pub struct ValueHead {
    pub v1: Conv,
    pub v1_norm: NormAct,
    pub v2: MatMul,
    pub v2_bias: Vec<f32>,
    pub v2_act: Activation,
    pub v3: MatMul,
    pub v3_bias: Vec<f32>,
    pub score: MatMul,
    pub score_bias: Vec<f32>,
    pub ownership: Conv,
}

/// How the raw heads are scaled into KataGo's figures (fixed before version 13, read from the file after).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostProcess {
    pub td_score: f32,
    pub score_mean: f32,
    pub score_stdev: f32,
    pub lead: f32,
    pub variance_time: f32,
    pub shortterm_value_error: f32,
    pub shortterm_score_error: f32,
}

impl Default for PostProcess {
    fn default() -> PostProcess {
        PostProcess {
            td_score: 20.0,
            score_mean: 20.0,
            score_stdev: 20.0,
            lead: 20.0,
            variance_time: 40.0,
            shortterm_value_error: 0.25,
            shortterm_score_error: 30.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub version: i64,
    pub spatial_inputs: usize,
    pub global_inputs: usize,
    pub post: PostProcess,
    /// Pass-alive features computed as if suicide were legal (a version 15+ flag).
    pub pass_alive_as_if_suicide: bool,
    pub trunk: Trunk,
    pub policy: PolicyHead,
    pub value: ValueHead,
}

impl Model {
    /// Reads a network file, choosing the format by its name as KataGo does.
    pub fn open(path: &Path) -> Result<Model, ModelError> {
        let shown = path.display().to_string();
        let lower = shown.to_ascii_lowercase();
        let (gzipped, encoding) = if lower.ends_with(".bin.gz") {
            (true, Encoding::Binary)
        } else if lower.ends_with(".txt.gz") {
            (true, Encoding::Text)
        } else if lower.ends_with(".bin") {
            (false, Encoding::Binary)
        } else if lower.ends_with(".txt") {
            (false, Encoding::Text)
        } else {
            return Err(ModelError::Extension { path: shown });
        };
        let bytes = std::fs::read(path).map_err(|error| ModelError::Io {
            path: shown.clone(),
            error,
        })?;
        if gzipped {
            Model::from_gzip(&bytes, encoding)
        } else {
            Model::parse(&bytes, encoding)
        }
    }

    /// Reads a gzip-compressed network.
    pub fn from_gzip(bytes: &[u8], encoding: Encoding) -> Result<Model, ModelError> {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(MAX_UNCOMPRESSED + 1)
            .read_to_end(&mut text)
            .map_err(ModelError::Gzip)?;
        if text.len() as u64 > MAX_UNCOMPRESSED {
            return Err(ModelError::TooLarge);
        }
        Model::parse(&text, encoding)
    }

    /// Reads an uncompressed network.
    pub fn parse(bytes: &[u8], encoding: Encoding) -> Result<Model, ModelError> {
        let mut r = Reader {
            bytes,
            at: 0,
            encoding,
            version: 0,
            layer: "model".to_string(),
        };
        r.model()
    }

    /// Number of weights, for reports.
    pub fn parameters(&self) -> usize {
        let mut n = self.trunk.initial_conv.weights.len() + self.trunk.initial_global.weights.len();
        for b in &self.trunk.blocks {
            n += b.parameters();
        }
        n
    }
}

impl Block {
    fn parameters(&self) -> usize {
        match &self.kind {
            BlockKind::Ordinary { first, last, .. } => first.weights.len() + last.weights.len(),
            BlockKind::GlobalPooling {
                regular,
                pool,
                pool_to_bias,
                last,
                ..
            } => {
                regular.weights.len()
                    + pool.weights.len()
                    + pool_to_bias.weights.len()
                    + last.weights.len()
            }
            BlockKind::NestedBottleneck {
                down, blocks, up, ..
            } => {
                down.weights.len()
                    + up.weights.len()
                    + blocks.iter().map(Block::parameters).sum::<usize>()
            }
            BlockKind::Attention(a) => {
                a.q.weights.len() + a.k.weights.len() + a.v.weights.len() + a.out.weights.len()
            }
            BlockKind::FeedForward(f) => {
                f.up.weights.len()
                    + f.gate.as_ref().map_or(0, |g| g.weights.len())
                    + f.down.weights.len()
            }
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    encoding: Encoding,
    version: i64,
    /// The layer being read, for errors.
    layer: String,
}

type Res<T> = Result<T, ModelError>;

impl Reader<'_> {
    fn fail<T>(&self, problem: impl Into<String>) -> Res<T> {
        Err(ModelError::Format {
            layer: self.layer.clone(),
            problem: problem.into(),
            offset: self.at,
        })
    }

    fn token(&mut self) -> Res<&str> {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        let start = self.at;
        while self.at < self.bytes.len() && !self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        if start == self.at {
            return self.fail("the file ends early");
        }
        match std::str::from_utf8(&self.bytes[start..self.at]) {
            Ok(s) => Ok(s),
            Err(_) => {
                self.at = start;
                self.fail("expected text, found binary data")
            }
        }
    }

    /// A layer's name, which also becomes the place named by later errors.
    fn name(&mut self) -> Res<String> {
        let name = self.token()?.to_string();
        self.layer = name.clone();
        Ok(name)
    }

    fn int(&mut self, what: &str) -> Res<i64> {
        let start = self.at;
        let t = self.token()?;
        match t.parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => {
                let t = t.chars().take(40).collect::<String>();
                self.at = start;
                self.fail(format!("expected {what} (a whole number), found {t:?}"))
            }
        }
    }

    /// A count that must be at least 1 (channels, sizes).
    fn count(&mut self, what: &str) -> Res<usize> {
        let start = self.at;
        let v = self.int(what)?;
        if !(1..=1 << 24).contains(&v) {
            self.at = start;
            return self.fail(format!("{what} is {v}, not a positive size"));
        }
        Ok(v as usize)
    }

    fn flag(&mut self, what: &str) -> Res<bool> {
        let start = self.at;
        match self.int(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => {
                self.at = start;
                self.fail(format!("{what} is {v}, not 0 or 1"))
            }
        }
    }

    /// An option KataGo reserves and requires to be 0.
    fn zero(&mut self, what: &str) -> Res<()> {
        let start = self.at;
        let v = self.int(what)?;
        if v != 0 {
            self.at = start;
            return self.fail(format!(
                "{what} is {v}: an option this reader does not know"
            ));
        }
        Ok(())
    }

    fn float(&mut self, what: &str) -> Res<f32> {
        let start = self.at;
        let t = self.token()?;
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => {
                let t = t.chars().take(40).collect::<String>();
                self.at = start;
                self.fail(format!("expected {what} (a finite number), found {t:?}"))
            }
        }
    }

    fn floats(&mut self, n: usize) -> Res<Vec<f32>> {
        let left = self.bytes.len() - self.at;
        match self.encoding {
            Encoding::Binary => {
                let mut skipped = 0;
                loop {
                    match self.bytes.get(self.at) {
                        Some(b'@') => break,
                        Some(b) if b.is_ascii_whitespace() && skipped < 100 => {
                            self.at += 1;
                            skipped += 1;
                        }
                        _ => return self.fail("expected a block of binary weights (@BIN@)"),
                    }
                }
                if self.bytes[self.at..].starts_with(b"@BIN@") {
                    self.at += 5;
                } else {
                    return self.fail("expected a block of binary weights (@BIN@)");
                }
                let len = n
                    .checked_mul(4)
                    .filter(|&len| len <= self.bytes.len() - self.at);
                let Some(len) = len else {
                    return self.fail(format!(
                        "the file ends inside a block of {n} weights ({} bytes left)",
                        self.bytes.len() - self.at
                    ));
                };
                let mut out = Vec::with_capacity(n);
                for (i, chunk) in self.bytes[self.at..self.at + len]
                    .chunks_exact(4)
                    .enumerate()
                {
                    let v = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                    if !v.is_finite() {
                        self.at += 4 * i;
                        return self.fail(format!("weight {i} of {n} is not a finite number"));
                    }
                    out.push(v);
                }
                self.at += len;
                Ok(out)
            }
            Encoding::Text => {
                // Each number takes at least two bytes with its separator.
                if n > left / 2 + 1 {
                    return self.fail(format!("the file is too short for a block of {n} weights"));
                }
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    out.push(self.float("a weight")?);
                }
                Ok(out)
            }
        }
    }

    fn activation(&mut self) -> Res<Activation> {
        self.name()?;
        if self.version < 11 {
            return Ok(Activation::Relu);
        }
        let start = self.at;
        Ok(match self.token()? {
            "ACTIVATION_IDENTITY" => Activation::Identity,
            "ACTIVATION_RELU" => Activation::Relu,
            "ACTIVATION_MISH" => Activation::Mish,
            "ACTIVATION_SILU" => Activation::Silu,
            other => {
                let other = other.chars().take(40).collect::<String>();
                self.at = start;
                return self.fail(format!("unknown activation {other:?}"));
            }
        })
    }

    fn conv(&mut self) -> Res<Conv> {
        let name = self.name()?;
        let height = self.count("the filter height")?;
        let width = self.count("the filter width")?;
        let inputs = self.count("the input channels")?;
        let outputs = self.count("the output channels")?;
        let dilation_y = self.count("the vertical dilation")?;
        let dilation_x = self.count("the horizontal dilation")?;
        if height % 2 == 0 || width % 2 == 0 {
            return self.fail(format!(
                "the filter is {height}x{width}; its sides must be odd"
            ));
        }
        let n = [height, width, inputs, outputs]
            .iter()
            .try_fold(1usize, |a, &b| a.checked_mul(b));
        let Some(n) = n else {
            return self.fail("the filter is impossibly large");
        };
        let weights = self.floats(n)?;
        Ok(Conv {
            name,
            height,
            width,
            inputs,
            outputs,
            dilation_y,
            dilation_x,
            weights,
        })
    }

    /// A batch norm and the activation after it.
    fn norm_act(&mut self) -> Res<NormAct> {
        let name = self.name()?;
        let channels = self.count("the channels")?;
        let epsilon = self.float("epsilon")?;
        if epsilon <= 0.0 {
            return self.fail(format!("epsilon is {epsilon}; it must be positive"));
        }
        let has_scale = self.flag("the scale flag")?;
        let has_bias = self.flag("the bias flag")?;
        let mean = self.floats(channels)?;
        let variance = self.floats(channels)?;
        let gamma = if has_scale {
            self.floats(channels)?
        } else {
            vec![1.0; channels]
        };
        let beta = if has_bias {
            self.floats(channels)?
        } else {
            vec![0.0; channels]
        };
        // KataGo folds the four vectors the same way, in single precision.
        let scale: Vec<f32> = (0..channels)
            .map(|c| gamma[c] / (variance[c] + epsilon).sqrt())
            .collect();
        let bias = (0..channels)
            .map(|c| beta[c] - scale[c] * mean[c])
            .collect();
        let activation = self.activation()?;
        Ok(NormAct {
            name,
            scale,
            bias,
            activation,
        })
    }

    fn matmul(&mut self) -> Res<MatMul> {
        let name = self.name()?;
        let inputs = self.count("the input channels")?;
        let outputs = self.count("the output channels")?;
        let Some(n) = inputs.checked_mul(outputs) else {
            return self.fail("the matrix is impossibly large");
        };
        let weights = self.floats(n)?;
        Ok(MatMul {
            name,
            inputs,
            outputs,
            weights,
        })
    }

    fn bias(&mut self) -> Res<Vec<f32>> {
        self.name()?;
        let n = self.count("the channels")?;
        self.floats(n)
    }

    fn rms_norm(&mut self) -> Res<RmsNorm> {
        let name = self.name()?;
        let channels = self.count("the channels")?;
        let epsilon = self.float("epsilon")?;
        if !(epsilon > 0.0 && epsilon <= 1.0) {
            return self.fail(format!("epsilon is {epsilon}; it must be in (0, 1]"));
        }
        let weight = self.floats(channels)?;
        Ok(RmsNorm {
            name,
            epsilon,
            weight,
        })
    }

    fn check(&self, ok: bool, problem: impl FnOnce() -> String) -> Res<()> {
        if ok { Ok(()) } else { self.fail(problem()) }
    }

    fn blocks(&mut self, n: usize, channels: usize, depth: usize) -> Res<Vec<Block>> {
        if depth > 8 {
            return self.fail("blocks are nested too deeply");
        }
        let mut blocks = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let start = self.at;
            let kind = self.token()?.to_string();
            let name = self.name()?;
            let block = match kind.as_str() {
                "ordinary_block" => {
                    let pre = self.norm_act()?;
                    let first = self.conv()?;
                    let mid = self.norm_act()?;
                    let last = self.conv()?;
                    self.check(
                        pre.scale.len() == channels
                            && first.inputs == channels
                            && mid.scale.len() == first.outputs
                            && last.inputs == first.outputs
                            && last.outputs == channels,
                        || format!("{name}: its channels do not match the trunk's {channels}"),
                    )?;
                    BlockKind::Ordinary {
                        pre,
                        first,
                        mid,
                        last,
                    }
                }
                "gpool_block" => {
                    let pre = self.norm_act()?;
                    let regular = self.conv()?;
                    let pool = self.conv()?;
                    let pool_norm = self.norm_act()?;
                    let pool_to_bias = self.matmul()?;
                    let mid = self.norm_act()?;
                    let last = self.conv()?;
                    self.check(
                        pre.scale.len() == channels
                            && regular.inputs == channels
                            && pool.inputs == channels
                            && pool_norm.scale.len() == pool.outputs
                            && pool_to_bias.inputs == 3 * pool.outputs
                            && pool_to_bias.outputs == regular.outputs
                            && mid.scale.len() == regular.outputs
                            && last.inputs == regular.outputs
                            && last.outputs == channels,
                        || format!("{name}: its channels do not match"),
                    )?;
                    BlockKind::GlobalPooling {
                        pre,
                        regular,
                        pool,
                        pool_norm,
                        pool_to_bias,
                        mid,
                        last,
                    }
                }
                "nested_bottleneck_block" => {
                    let inner = self.count("the number of inner blocks")?;
                    let pre = self.norm_act()?;
                    let down = self.conv()?;
                    let blocks = self.blocks(inner, down.outputs, depth + 1)?;
                    let post = self.norm_act()?;
                    let up = self.conv()?;
                    self.layer = name.clone();
                    self.check(
                        pre.scale.len() == channels
                            && down.inputs == channels
                            && post.scale.len() == down.outputs
                            && up.inputs == down.outputs
                            && up.outputs == channels,
                        || format!("{name}: its channels do not match"),
                    )?;
                    BlockKind::NestedBottleneck {
                        pre,
                        down,
                        blocks,
                        post,
                        up,
                    }
                }
                "transformer_attention_block" => {
                    BlockKind::Attention(self.attention(&name, channels)?)
                }
                "transformer_ffn_block" => {
                    BlockKind::FeedForward(self.feed_forward(&name, channels)?)
                }
                other => {
                    let other = other.chars().take(40).collect::<String>();
                    self.at = start;
                    return self.fail(format!("unknown block kind {other:?}"));
                }
            };
            blocks.push(Block { name, kind: block });
        }
        Ok(blocks)
    }

    fn attention(&mut self, name: &str, channels: usize) -> Res<Attention> {
        let heads = self.count("the number of heads")?;
        let kv_heads = self.count("the number of key-value heads")?;
        let q_dim = self.count("the query head size")?;
        let v_dim = self.count("the value head size")?;
        let rope = self.flag("the rotary-encoding flag")?;
        let learned = self.flag("the learned-rotation flag")?;
        self.check(heads % kv_heads == 0, || {
            format!("{name}: {heads} heads do not divide into {kv_heads} key-value heads")
        })?;
        self.check(!rope || q_dim % 2 == 0, || {
            format!("{name}: rotary encoding needs an even query head size, not {q_dim}")
        })?;
        let norm = self.rms_norm()?;
        let q = self.matmul()?;
        let k = self.matmul()?;
        let v = self.matmul()?;
        let out = self.matmul()?;
        self.layer = name.to_string();
        self.check(
            norm.weight.len() == channels
                && q.inputs == channels
                && k.inputs == channels
                && v.inputs == channels
                && q.outputs == heads * q_dim
                && k.outputs == kv_heads * q_dim
                && v.outputs == kv_heads * v_dim
                && out.inputs == heads * v_dim
                && out.outputs == channels,
            || format!("{name}: its projections do not match its heads and the trunk's channels"),
        )?;
        let rope = match (rope, learned) {
            (false, _) => Rope::None,
            (true, true) => {
                self.token()?;
                let h = self.count("the rotation's heads")?;
                let pairs = self.count("the rotation's pairs")?;
                let two = self.count("the rotation's last size")?;
                self.check(h == kv_heads && pairs == q_dim / 2 && two == 2, || {
                    format!("{name}: the learned rotation's shape does not match the heads")
                })?;
                Rope::Learned(self.floats(h * pairs * 2)?)
            }
            (true, false) => {
                self.token()?;
                let theta = self.float("the rotation's theta")?;
                self.check(theta > 0.0, || format!("{name}: theta must be positive"))?;
                Rope::Theta(theta)
            }
        };
        Ok(Attention {
            heads,
            kv_heads,
            q_dim,
            v_dim,
            norm,
            q,
            k,
            v,
            out,
            rope,
        })
    }

    fn feed_forward(&mut self, name: &str, channels: usize) -> Res<FeedForward> {
        let ch = self.count("the channels")?;
        let hidden = self.count("the hidden channels")?;
        let swiglu = self.flag("the SwiGLU flag")?;
        let norm = self.rms_norm()?;
        let up = self.matmul()?;
        let gate = if swiglu { Some(self.matmul()?) } else { None };
        let down = self.matmul()?;
        self.layer = name.to_string();
        self.check(
            ch == channels
                && norm.weight.len() == ch
                && up.inputs == ch
                && up.outputs == hidden
                && gate
                    .as_ref()
                    .is_none_or(|g| g.inputs == ch && g.outputs == hidden)
                && down.inputs == hidden
                && down.outputs == ch,
            || format!("{name}: its layers do not match its {ch} and {hidden} channels"),
        )?;
        Ok(FeedForward {
            channels: ch,
            hidden,
            norm,
            up,
            gate,
            down,
        })
    }

    fn model(&mut self) -> Res<Model> {
        let name = self.token().map_err(|_| ModelError::Format {
            layer: "model".into(),
            problem: "the file is empty".into(),
            offset: 0,
        })?;
        let name = name.to_string();
        if name.len() > 200 {
            return self.fail("the model's name is too long: this is not a KataGo network");
        }
        let start = self.at;
        let version = match self.token()?.parse::<i64>() {
            Ok(v) => v,
            Err(_) => {
                self.at = start;
                return self.fail("no model version after the name: this is not a KataGo network");
            }
        };
        if !VERSIONS.contains(&version) {
            return Err(ModelError::Version(version));
        }
        self.version = version;
        let spatial_inputs = self.count("the spatial inputs")?;
        let global_inputs = self.count("the global inputs")?;
        if spatial_inputs != crate::inputs::SPATIAL_FEATURES
            || global_inputs != crate::inputs::GLOBAL_FEATURES
        {
            return self.fail(format!(
                "{spatial_inputs} spatial and {global_inputs} global inputs; version {version} has {} and {}",
                crate::inputs::SPATIAL_FEATURES,
                crate::inputs::GLOBAL_FEATURES
            ));
        }
        let mut post = PostProcess::default();
        if version >= 13 {
            for v in [
                &mut post.td_score,
                &mut post.score_mean,
                &mut post.score_stdev,
                &mut post.lead,
                &mut post.variance_time,
                &mut post.shortterm_value_error,
                &mut post.shortterm_score_error,
            ] {
                *v = self.float("a scale of the outputs")?;
                if *v <= 0.0 {
                    return self.fail("a scale of the outputs is not positive");
                }
            }
        }
        let mut meta_version = 0;
        let mut pass_alive_as_if_suicide = false;
        if version >= 15 {
            meta_version = self.int("the metadata encoder version")?;
            if !(0..=1).contains(&meta_version) {
                return self.fail(format!(
                    "metadata encoder version {meta_version} is unknown"
                ));
            }
            pass_alive_as_if_suicide = self.flag("the pass-alive flag")?;
            for _ in 0..6 {
                self.zero("a reserved option")?;
            }
        }
        let trunk = self.trunk(meta_version)?;
        let policy = self.policy(trunk.channels)?;
        let value = self.value(trunk.channels)?;
        Ok(Model {
            name,
            version,
            spatial_inputs,
            global_inputs,
            post,
            pass_alive_as_if_suicide,
            trunk,
            policy,
            value,
        })
    }

    fn trunk(&mut self, meta_version: i64) -> Res<Trunk> {
        self.name()?;
        let blocks = self.count("the number of blocks")?;
        let channels = self.count("the trunk channels")?;
        for what in ["mid", "regular", "dilated", "pooled"] {
            self.count(&format!("the {what} channels"))?;
        }
        let mut rms_tip = false;
        if self.version >= 15 {
            let start = self.at;
            rms_tip = match self.int("the trunk norm kind")? {
                0 => false,
                1 => true,
                k => {
                    self.at = start;
                    return self.fail(format!("trunk norm kind {k} is unknown"));
                }
            };
            for _ in 0..5 {
                self.zero("a reserved trunk option")?;
            }
        }
        let initial_conv = self.conv()?;
        let initial_global = self.matmul()?;
        self.check(
            initial_conv.inputs == crate::inputs::SPATIAL_FEATURES
                && initial_conv.outputs == channels
                && initial_global.inputs == crate::inputs::GLOBAL_FEATURES
                && initial_global.outputs == channels,
            || "the first layers do not match the inputs and the trunk".to_string(),
        )?;
        let meta = if meta_version > 0 {
            self.name()?;
            let ins = self.count("the metadata inputs")?;
            self.check(ins == 192, || format!("{ins} metadata inputs, not 192"))?;
            let first = self.matmul()?;
            let first_bias = self.bias()?;
            let first_act = self.activation()?;
            let second = self.matmul()?;
            let second_bias = self.bias()?;
            let second_act = self.activation()?;
            let third = self.matmul()?;
            self.check(
                first.inputs == 192
                    && first_bias.len() == first.outputs
                    && second.inputs == first.outputs
                    && second_bias.len() == second.outputs
                    && third.inputs == second.outputs
                    && third.outputs == channels,
                || "the metadata encoder's layers do not match".to_string(),
            )?;
            Some(MetaEncoder {
                first,
                first_bias,
                first_act,
                second,
                second_bias,
                second_act,
                third,
            })
        } else {
            None
        };
        let blocks = self.blocks(blocks, channels, 0)?;
        let tip = if rms_tip {
            let name = self.name()?;
            let n = self.count("the channels")?;
            let epsilon = self.float("epsilon")?;
            let spatial = self.flag("the spatial flag")?;
            self.zero("the channel group size")?;
            if !(epsilon > 0.0 && epsilon <= 1.0) {
                return self.fail(format!("epsilon is {epsilon}; it must be in (0, 1]"));
            }
            let gamma = self.floats(n)?;
            let beta = self.floats(n)?;
            let activation = self.activation()?;
            self.check(n == channels, || {
                format!("the tip norm has {n} channels, the trunk {channels}")
            })?;
            TipNorm::Rms {
                name,
                epsilon,
                spatial,
                gamma,
                beta,
                activation,
            }
        } else {
            let norm = self.norm_act()?;
            self.check(norm.scale.len() == channels, || {
                "the tip norm does not match the trunk".to_string()
            })?;
            TipNorm::Batch(norm)
        };
        Ok(Trunk {
            channels,
            initial_conv,
            initial_global,
            meta,
            blocks,
            tip,
        })
    }

    fn policy(&mut self, channels: usize) -> Res<PolicyHead> {
        self.name()?;
        let outputs = if self.version >= 17 {
            let start = self.at;
            let n = self.int("the policy outputs")?;
            if n != 2 && n != 4 {
                self.at = start;
                return self.fail(format!("{n} policy outputs; version 17 has 2 or 4"));
            }
            for _ in 0..3 {
                self.zero("a reserved policy option")?;
            }
            n as usize
        } else if self.version == 16 {
            4
        } else if self.version >= 12 {
            2
        } else {
            1
        };
        let p1 = self.conv()?;
        let g1 = self.conv()?;
        let g1_norm = self.norm_act()?;
        let pool_to_bias = self.matmul()?;
        let p1_norm = self.norm_act()?;
        let p2 = self.conv()?;
        let pass = self.matmul()?;
        let pass_hidden = if self.version >= 15 {
            let bias = self.bias()?;
            let act = self.activation()?;
            let second = self.matmul()?;
            Some((bias, act, second))
        } else {
            None
        };
        self.layer = "policy head".into();
        let pass_ok = match &pass_hidden {
            Some((bias, _, second)) => {
                pass.outputs == bias.len()
                    && pass.outputs == p1.outputs
                    && second.inputs == pass.outputs
                    && second.outputs == outputs
            }
            None => pass.outputs == outputs,
        };
        self.check(
            p1.inputs == channels
                && g1.inputs == channels
                && g1_norm.scale.len() == g1.outputs
                && pool_to_bias.inputs == 3 * g1.outputs
                && pool_to_bias.outputs == p1.outputs
                && p1_norm.scale.len() == p1.outputs
                && p2.inputs == p1.outputs
                && p2.outputs == outputs
                && pass.inputs == 3 * g1.outputs
                && pass_ok,
            || "its layers do not match each other or the trunk".to_string(),
        )?;
        Ok(PolicyHead {
            outputs,
            p1,
            g1,
            g1_norm,
            pool_to_bias,
            p1_norm,
            p2,
            pass,
            pass_hidden,
        })
    }

    fn value(&mut self, channels: usize) -> Res<ValueHead> {
        self.name()?;
        if self.version >= 17 {
            for _ in 0..3 {
                self.zero("a reserved value option")?;
            }
        }
        let v1 = self.conv()?;
        let v1_norm = self.norm_act()?;
        let v2 = self.matmul()?;
        let v2_bias = self.bias()?;
        let v2_act = self.activation()?;
        let v3 = self.matmul()?;
        let v3_bias = self.bias()?;
        let score = self.matmul()?;
        let score_bias = self.bias()?;
        let ownership = self.conv()?;
        let scores = if self.version >= 9 { 6 } else { 4 };
        self.layer = "value head".into();
        self.check(
            v1.inputs == channels
                && v1_norm.scale.len() == v1.outputs
                && v2.inputs == 3 * v1.outputs
                && v2_bias.len() == v2.outputs
                && v3.inputs == v2.outputs
                && v3.outputs == 3
                && v3_bias.len() == 3
                && score.inputs == v2.outputs
                && score.outputs == scores
                && score_bias.len() == scores
                && ownership.inputs == v1.outputs
                && ownership.outputs == 1,
            || "its layers do not match each other or the trunk".to_string(),
        )?;
        Ok(ValueHead {
            v1,
            v1_norm,
            v2,
            v2_bias,
            v2_act,
            v3,
            v3_bias,
            score,
            score_bias,
            ownership,
        })
    }
}
