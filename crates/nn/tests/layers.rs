//! The fast evaluator against the literal one, on random networks of every block kind and option the file
//! format has, written out as files (binary and text) and read back by the reader.

mod common;

use common::{Writer, random_features};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use tesuji_nn::inputs::Features;
use tesuji_nn::model::{Encoding, Model};
use tesuji_nn::network::Network;
use tesuji_nn::reference;

fn close(what: &str, a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let tolerance = 2e-4 * (1.0 + x.abs().max(y.abs()));
        assert!(
            (x - y).abs() <= tolerance,
            "{what}[{i}]: reference {x}, fast {y}"
        );
    }
}

#[test]
fn fast_layers_match_the_literal_ones_on_random_networks() {
    let mut kinds_seen = std::collections::BTreeSet::new();
    for seed in 0..60u64 {
        let version = 8 + (seed % 10) as i64;
        let encoding = if seed % 3 == 0 {
            Encoding::Text
        } else {
            Encoding::Binary
        };
        let bytes = Writer::model(version, encoding, seed);
        let model = Model::parse(&bytes, encoding)
            .unwrap_or_else(|e| panic!("seed {seed}, version {version}: {e}"));
        assert_eq!(model.version, version);
        for b in &model.trunk.blocks {
            kinds_seen.insert(format!("{:?}", std::mem::discriminant(&b.kind)));
        }
        let network = Network::new(model.clone());
        let mut rng = Pcg64::seed_from_u64(seed + 1000);
        for (height, width) in [(9, 9), (5, 7), (13, 4), (1, 1)] {
            let batch: Vec<Features> = (0..3)
                .map(|_| random_features(&mut rng, height, width))
                .collect();
            let refs: Vec<&Features> = batch.iter().collect();
            let fast = network.evaluate(&refs);
            for (f, got) in batch.iter().zip(&fast) {
                let want = reference::evaluate(&model, f);
                let what = format!("seed {seed} v{version} {height}x{width}");
                close(&format!("{what} policy"), &want.policy, &got.policy);
                close(&format!("{what} pass"), &want.pass, &got.pass);
                close(&format!("{what} value"), &want.value, &got.value);
                close(&format!("{what} score"), &want.score, &got.score);
                close(
                    &format!("{what} ownership"),
                    &want.ownership,
                    &got.ownership,
                );
            }
        }
    }
    assert!(
        kinds_seen.len() >= 4,
        "the random networks used too few block kinds: {kinds_seen:?}"
    );
}

#[test]
fn text_and_binary_files_read_the_same() {
    for seed in [3u64, 7, 11] {
        let text = Model::parse(&Writer::model(15, Encoding::Text, seed), Encoding::Text).unwrap();
        let binary =
            Model::parse(&Writer::model(15, Encoding::Binary, seed), Encoding::Binary).unwrap();
        let f = random_features(&mut Pcg64::seed_from_u64(seed), 7, 7);
        // Text numbers are printed to f32's full precision, so the two evaluate identically.
        assert_eq!(
            reference::evaluate(&text, &f),
            reference::evaluate(&binary, &f)
        );
    }
}
