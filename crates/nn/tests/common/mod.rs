//! A writer of random KataGo network files and random inputs, shared by the reader's and the layers' tests.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use tesuji_nn::inputs::{Features, GLOBAL_FEATURES, SPATIAL_FEATURES};
use tesuji_nn::model::Encoding;

/// Writes a network file of the given version, its layers drawn at random.
pub struct Writer {
    out: Vec<u8>,
    encoding: Encoding,
    rng: Pcg64,
    version: i64,
}

impl Writer {
    fn words(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
        self.out.push(b'\n');
    }
    fn floats(&mut self, n: usize, spread: f32) {
        let values: Vec<f32> = (0..n)
            .map(|_| self.rng.random_range(-spread..spread))
            .collect();
        self.values(&values);
    }
    fn values(&mut self, values: &[f32]) {
        match self.encoding {
            Encoding::Binary => {
                self.out.extend_from_slice(b"@BIN@");
                for v in values {
                    self.out.extend_from_slice(&v.to_le_bytes());
                }
                self.out.push(b'\n');
            }
            Encoding::Text => {
                let text: Vec<String> = values.iter().map(|v| format!("{v:e}")).collect();
                self.words(&text.join(" "));
            }
        }
    }
    fn activation(&mut self, name: &str) {
        let kinds = [
            "ACTIVATION_RELU",
            "ACTIVATION_MISH",
            "ACTIVATION_SILU",
            "ACTIVATION_IDENTITY",
        ];
        if self.version >= 11 {
            let k = kinds[self.rng.random_range(0..kinds.len())];
            self.words(&format!("{name} {k}"));
        } else {
            self.words(name);
        }
    }
    fn conv(&mut self, name: &str, size: usize, inputs: usize, outputs: usize) {
        let dilation = if size > 1 && self.rng.random_bool(0.3) {
            2
        } else {
            1
        };
        self.words(&format!(
            "{name} {size} {size} {inputs} {outputs} {dilation} {dilation}"
        ));
        let spread = 1.5 / ((size * size * inputs) as f32).sqrt();
        self.floats(size * size * inputs * outputs, spread);
    }
    fn norm(&mut self, name: &str, channels: usize) {
        let scale = self.rng.random_bool(0.5) as u8;
        let bias = self.rng.random_bool(0.5) as u8;
        self.words(&format!("{name} {channels} 1e-5 {scale} {bias}"));
        self.floats(channels, 0.3);
        let variance: Vec<f32> = (0..channels)
            .map(|_| self.rng.random_range(0.5..1.5))
            .collect();
        self.values(&variance);
        if scale == 1 {
            let s: Vec<f32> = (0..channels)
                .map(|_| self.rng.random_range(0.5..1.5))
                .collect();
            self.values(&s);
        }
        if bias == 1 {
            self.floats(channels, 0.3);
        }
        self.activation(&format!("{name}_act"));
    }
    fn matmul(&mut self, name: &str, inputs: usize, outputs: usize) {
        self.words(&format!("{name} {inputs} {outputs}"));
        self.floats(inputs * outputs, 1.5 / (inputs as f32).sqrt());
    }
    fn bias(&mut self, name: &str, n: usize) {
        self.words(&format!("{name} {n}"));
        self.floats(n, 0.3);
    }
    fn rms(&mut self, name: &str, channels: usize) {
        self.words(&format!("{name} {channels} 1e-6"));
        let w: Vec<f32> = (0..channels)
            .map(|_| self.rng.random_range(0.5..1.5))
            .collect();
        self.values(&w);
    }

    fn block(&mut self, name: &str, channels: usize, nested_ok: bool, transformer_ok: bool) {
        let choices = if transformer_ok { 5 } else { 3 };
        let mut kind = self.rng.random_range(0..choices);
        if kind == 2 && !nested_ok {
            kind = 0;
        }
        match kind {
            0 => {
                let mid = self.rng.random_range(3..9);
                let size = [1, 3, 5][self.rng.random_range(0..3)];
                self.words(&format!("ordinary_block {name}"));
                self.norm(&format!("{name}.pre"), channels);
                self.conv(&format!("{name}.first"), size, channels, mid);
                self.norm(&format!("{name}.mid"), mid);
                self.conv(&format!("{name}.last"), 3, mid, channels);
            }
            1 => {
                let regular = self.rng.random_range(3..9);
                let pooled = self.rng.random_range(2..5);
                self.words(&format!("gpool_block {name}"));
                self.norm(&format!("{name}.pre"), channels);
                self.conv(&format!("{name}.regular"), 3, channels, regular);
                self.conv(&format!("{name}.pool"), 3, channels, pooled);
                self.norm(&format!("{name}.poolnorm"), pooled);
                self.matmul(&format!("{name}.poolbias"), 3 * pooled, regular);
                self.norm(&format!("{name}.mid"), regular);
                self.conv(&format!("{name}.last"), 3, regular, channels);
            }
            2 => {
                let inner_channels = self.rng.random_range(4..10);
                let inner = self.rng.random_range(1..4);
                self.words(&format!("nested_bottleneck_block {name} {inner}"));
                self.norm(&format!("{name}.pre"), channels);
                self.conv(&format!("{name}.down"), 1, channels, inner_channels);
                for i in 0..inner {
                    self.block(
                        &format!("{name}.inner{i}"),
                        inner_channels,
                        false,
                        transformer_ok,
                    );
                }
                self.norm(&format!("{name}.post"), inner_channels);
                self.conv(&format!("{name}.up"), 1, inner_channels, channels);
            }
            3 => {
                let kv_heads = self.rng.random_range(1..3);
                let heads = kv_heads * self.rng.random_range(1..3);
                let q_dim = 2 * self.rng.random_range(1..4);
                let v_dim = self.rng.random_range(1..5);
                let rope = self.rng.random_range(0..3);
                let (use_rope, learned) = [(0, 0), (1, 0), (1, 1)][rope];
                self.words(&format!(
                    "transformer_attention_block {name} {heads} {kv_heads} {q_dim} {v_dim} {use_rope} {learned}"
                ));
                self.rms(&format!("{name}.norm"), channels);
                self.matmul(&format!("{name}.q"), channels, heads * q_dim);
                self.matmul(&format!("{name}.k"), channels, kv_heads * q_dim);
                self.matmul(&format!("{name}.v"), channels, kv_heads * v_dim);
                self.matmul(&format!("{name}.out"), heads * v_dim, channels);
                match rope {
                    1 => self.words(&format!("{name}.theta 100.0")),
                    2 => {
                        self.words(&format!("{name}.freqs {kv_heads} {} 2", q_dim / 2));
                        self.floats(kv_heads * q_dim, 1.0);
                    }
                    _ => {}
                }
            }
            _ => {
                let hidden = self.rng.random_range(3..12);
                let swiglu = self.rng.random_bool(0.5) as u8;
                self.words(&format!(
                    "transformer_ffn_block {name} {channels} {hidden} {swiglu}"
                ));
                self.rms(&format!("{name}.norm"), channels);
                self.matmul(&format!("{name}.up"), channels, hidden);
                if swiglu == 1 {
                    self.matmul(&format!("{name}.gate"), channels, hidden);
                }
                self.matmul(&format!("{name}.down"), hidden, channels);
            }
        }
    }

    pub fn model(version: i64, encoding: Encoding, seed: u64) -> Vec<u8> {
        let mut w = Writer {
            out: Vec::new(),
            encoding,
            rng: Pcg64::seed_from_u64(seed),
            version,
        };
        let channels = w.rng.random_range(4..12);
        let blocks = w.rng.random_range(1..4);
        let transformers = version >= 15;
        w.words(&format!(
            "random{seed} {version} {SPATIAL_FEATURES} {GLOBAL_FEATURES}"
        ));
        if version >= 13 {
            w.words("20.0 20.0 20.0 20.0 40.0 0.25 150.0");
        }
        if version >= 15 {
            w.words("0 0 0 0 0 0 0 0");
        }
        w.words(&format!("trunk {blocks} {channels} 8 8 8 4"));
        let rms_tip = transformers && w.rng.random_bool(0.5);
        if version >= 15 {
            w.words(&format!("{} 0 0 0 0 0", rms_tip as u8));
        }
        let first_size = [3, 5][w.rng.random_range(0..2)];
        w.conv("trunk.initial", first_size, SPATIAL_FEATURES, channels);
        w.matmul("trunk.global", GLOBAL_FEATURES, channels);
        for b in 0..blocks {
            w.block(&format!("trunk.block{b}"), channels, true, transformers);
        }
        if rms_tip {
            let spatial = w.rng.random_bool(0.5) as u8;
            w.words(&format!("trunk.tip {channels} 1e-6 {spatial} 0"));
            let g: Vec<f32> = (0..channels)
                .map(|_| w.rng.random_range(0.5..1.5))
                .collect();
            w.values(&g);
            w.floats(channels, 0.3);
            w.activation("trunk.tip_act");
        } else {
            w.norm("trunk.tip", channels);
        }
        let policy_outputs = match version {
            17 => 2 + 2 * w.rng.random_range(0..2),
            16 => 4,
            12..=15 => 2,
            _ => 1,
        };
        w.words("policy");
        if version >= 17 {
            w.words(&format!("{policy_outputs} 0 0 0"));
        }
        let (p1, g1) = (w.rng.random_range(2..6), w.rng.random_range(2..5));
        w.conv("policy.p1", 1, channels, p1);
        w.conv("policy.g1", 1, channels, g1);
        w.norm("policy.g1norm", g1);
        w.matmul("policy.poolbias", 3 * g1, p1);
        w.norm("policy.p1norm", p1);
        w.conv("policy.p2", 1, p1, policy_outputs);
        if version >= 15 {
            w.matmul("policy.pass", 3 * g1, p1);
            w.bias("policy.passbias", p1);
            w.activation("policy.passact");
            w.matmul("policy.pass2", p1, policy_outputs);
        } else {
            w.matmul("policy.pass", 3 * g1, policy_outputs);
        }
        w.words("value");
        if version >= 17 {
            w.words("0 0 0");
        }
        let (v1, v2) = (w.rng.random_range(2..6), w.rng.random_range(2..8));
        let scores = if version >= 9 { 6 } else { 4 };
        w.conv("value.v1", 1, channels, v1);
        w.norm("value.v1norm", v1);
        w.matmul("value.v2", 3 * v1, v2);
        w.bias("value.v2bias", v2);
        w.activation("value.v2act");
        w.matmul("value.v3", v2, 3);
        w.bias("value.v3bias", 3);
        w.matmul("value.sv3", v2, scores);
        w.bias("value.sv3bias", scores);
        w.conv("value.ownership", 1, v1, 1);
        w.out
    }
}

pub fn random_features(rng: &mut Pcg64, height: usize, width: usize) -> Features {
    let spatial = (0..SPATIAL_FEATURES * height * width)
        .map(|i| {
            if i < height * width {
                1.0
            } else {
                rng.random_bool(0.2) as u8 as f32
            }
        })
        .collect();
    let mut global = [0.0; GLOBAL_FEATURES];
    for g in &mut global {
        *g = rng.random_range(-1.0..1.0);
    }
    Features {
        width,
        height,
        spatial,
        global,
    }
}
