//! Fixed handicap points against GNU Go 3.8's answers for every size 2..19 and count 2..9.

use tesuji_rules::{Point, Size, handicap::fixed_handicap_points};

#[test]
fn matches_gnugo_for_every_size_and_count() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/derived-gnugo/fixed_handicap_gnugo38.tsv"
    ))
    .unwrap();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let side: u8 = cols[0].parse().unwrap();
        let stones: u8 = cols[1].parse().unwrap();
        let size = Size::square(side).unwrap();
        let ours = fixed_handicap_points(size, stones);
        let theirs = cols[2];
        if let Some(list) = theirs.strip_prefix("= ") {
            let expected: Vec<Point> = list
                .split_whitespace()
                .map(|v| Point::from_gtp(v, size).unwrap())
                .collect();
            assert_eq!(ours, Some(expected), "size {side} handicap {stones}");
        } else {
            assert_eq!(
                ours, None,
                "size {side} handicap {stones}: GNU Go says {theirs}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 18 * 8);
}
