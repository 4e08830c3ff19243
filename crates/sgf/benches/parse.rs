//! Parsing speed in MB/s on the test files, ours against the `sgf-parse` crate in the same run (the issue
//! asks for at least twice its throughput).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FILES: &[&str] = &["sabaki-sgf/complex.sgf", "sgf-parse/ff4_ex.sgf"];

fn parse_speed(c: &mut Criterion) {
    for name in FILES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let text = std::fs::read_to_string(&path).expect("test file");
        let mut group = c.benchmark_group(format!("parse {name}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function("tesuji-sgf", |b| {
            b.iter(|| tesuji_sgf::parse::parse(black_box(&text)))
        });
        group.bench_function("sgf-parse", |b| {
            b.iter(|| sgf_parse::parse(black_box(&text)))
        });
        group.finish();
    }
}

criterion_group!(benches, parse_speed);
criterion_main!(benches);
