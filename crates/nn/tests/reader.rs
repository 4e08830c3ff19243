//! The network reader on damaged and hostile files: one clear error, never a panic, no allocation beyond
//! what the bytes can hold.

mod common;

use common::Writer;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use tesuji_nn::model::{Encoding, Model, ModelError};

#[test]
fn damaged_files_are_one_clear_error() {
    let good = Writer::model(15, Encoding::Binary, 5);
    assert!(Model::parse(&good, Encoding::Binary).is_ok());
    // Every truncation is an error, never a panic, and names a place.
    // (The last byte is the newline after the last block of weights, which no reader needs.)
    for cut in (0..good.len() - 1).step_by(97).chain([good.len() - 2]) {
        match Model::parse(&good[..cut], Encoding::Binary) {
            Err(ModelError::Format { problem, .. }) => assert!(!problem.is_empty()),
            Err(e) => panic!("cut at {cut}: {e}"),
            Ok(_) => panic!("cut at {cut} of {}: read as a whole network", good.len()),
        }
    }
    // Flipped bytes: an error or (for a changed weight) a model; never a panic.
    let mut rng = Pcg64::seed_from_u64(9);
    for _ in 0..300 {
        let mut bad = good.clone();
        let i = rng.random_range(0..bad.len());
        bad[i] = rng.random();
        let _ = Model::parse(&bad, Encoding::Binary);
    }
    let at = good.windows(5).position(|w| w == b"trunk").unwrap();
    let kind = good[at..].windows(6).position(|w| w == b"_block").unwrap() + at;
    let start = good[..kind]
        .iter()
        .rposition(|b| b.is_ascii_whitespace())
        .unwrap()
        + 1;
    let mut unknown = good[..start].to_vec();
    unknown.extend_from_slice(b"mystery");
    unknown.extend_from_slice(&good[kind..]);
    let e = Model::parse(&unknown, Encoding::Binary)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown block kind \"mystery_block\""), "{e}");
    let e = Model::parse(b"net 7 22 19", Encoding::Binary).unwrap_err();
    assert!(matches!(e, ModelError::Version(7)), "{e}");
    let e = Model::parse(b"net 18 22 19", Encoding::Binary).unwrap_err();
    assert!(matches!(e, ModelError::Version(18)), "{e}");
    let e = Model::parse(b"<html> hello", Encoding::Binary)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a KataGo network"), "{e}");
    let e = Model::from_gzip(b"not gzip at all", Encoding::Binary).unwrap_err();
    assert!(matches!(e, ModelError::Gzip(_)), "{e}");
    // A size far beyond the bytes left is refused before anything is allocated.
    let huge =
        b"net 15 22 19 20 20 20 20 40 0.25 150 0 0 0 0 0 0 0 0 trunk 1 8 8 8 8 4 0 0 0 0 0 0 \
                 init 3 3 22 16000000 1 1 @BIN@";
    let e = Model::parse(huge, Encoding::Binary)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ends inside a block"), "{e}");
}

#[test]
fn the_fuzz_seeds_are_networks() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/seeds/network");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let encoding = if path.extension().is_some_and(|e| e == "txt") {
            Encoding::Text
        } else {
            Encoding::Binary
        };
        let model =
            Model::parse(&bytes, encoding).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!((8..=17).contains(&model.version));
        read += 1;
    }
    assert!(read >= 3);
}
