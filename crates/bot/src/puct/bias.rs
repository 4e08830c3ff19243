//! KataGo's subtree value bias, read from its search and written our own way: where the search below a node
//! found the position better or worse than the network said, nodes reached by the same local move (the same
//! player answering the same previous move with the same move, the 5×5 around it alike, stones in atari
//! marked) are likely misjudged the same way, so each node's own evaluation is moved by a share of what the
//! search found on average under all the nodes of its pattern.

use std::collections::HashMap;

use tesuji_rules::{Action, Color, Game, Move, Point};

use super::splitmix;

/// The share of the pattern's average correction added to a node's own evaluation.
pub const BIAS_FACTOR: f64 = 0.45;
/// How a node's correction is weighted: its children's weight to this power.
pub const WEIGHT_EXPONENT: f64 = 0.85;
/// The share of a discarded node's correction taken out of its pattern when a move drops it from the tree.
pub const FREED_SHARE: f64 = 0.8;
/// Half the side of the pattern's square.
const RADIUS: i32 = 2;

/// An index into [`BiasTable::entries`].
pub type PatternId = u32;

/// A pattern's corrections: the sums of each node's weighted correction and weight.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Correction {
    pub delta_sum: f64,
    pub weight_sum: f64,
}

impl Correction {
    /// The utility to add to a node's own evaluation: the weighted mean correction times the factor.
    pub fn bias(&self) -> f64 {
        if self.weight_sum > 0.001 {
            BIAS_FACTOR * self.delta_sum / self.weight_sum
        } else {
            0.0
        }
    }
}

/// Every pattern the tree's nodes are reached by, with its corrections.
#[derive(Clone, Debug, Default)]
pub struct BiasTable {
    ids: HashMap<u128, PatternId>,
    pub entries: Vec<Correction>,
}

impl BiasTable {
    /// The pattern of `mv` played in `game` (before it is played), made if new; none for a pass, and
    /// none when nothing was played before it.
    pub fn pattern(&mut self, game: &Game, mv: Move) -> Option<PatternId> {
        let key = pattern_key(game, mv)?;
        let next = self.entries.len() as PatternId;
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.entries.push(Correction::default());
        }
        Some(id)
    }

    /// The table for the patterns `keep` marks (by their old ids), renumbered in order; the map from old
    /// ids to new.
    pub fn retain(&self, keep: &[bool]) -> (BiasTable, Vec<Option<PatternId>>) {
        let mut renumber = vec![None; self.entries.len()];
        let mut entries = Vec::new();
        for (old, &k) in keep.iter().enumerate() {
            if k {
                renumber[old] = Some(entries.len() as PatternId);
                entries.push(self.entries[old]);
            }
        }
        let ids = self
            .ids
            .iter()
            .filter_map(|(&key, &old)| renumber[old as usize].map(|new| (key, new)))
            .collect();
        (BiasTable { ids, entries }, renumber)
    }
}

/// A 128-bit name of the pattern: the mover, the previous move, this move, the ko point, and each point of
/// the 5×5 square around the move (clipped by the board) with its colour and whether its chain is in atari.
fn pattern_key(game: &Game, mv: Move) -> Option<u128> {
    let Move::Play(at) = mv else {
        return None;
    };
    let previous = game.log().iter().rev().find_map(|a| match a {
        Action::Turn(_, m) => Some(*m),
        _ => None,
    })?;
    let board = game.board();
    let size = board.size();
    let mut words: Vec<u64> = Vec::with_capacity(32);
    let point_word =
        |m: Option<Point>| m.map_or(u64::MAX, |p| (u64::from(p.x) << 8) | u64::from(p.y));
    words.push(game.to_move() as u64);
    words.push(point_word(match previous {
        Move::Pass => None,
        Move::Play(p) => Some(p),
    }));
    words.push(point_word(Some(at)));
    words.push(point_word(board.ko_point()).wrapping_add(1 << 20));
    for dy in -RADIUS..=RADIUS {
        for dx in -RADIUS..=RADIUS {
            let (x, y) = (i32::from(at.x) + dx, i32::from(at.y) + dy);
            if x < 0 || y < 0 || x >= i32::from(size.width()) || y >= i32::from(size.height()) {
                continue;
            }
            let p = Point::new(x as u8, y as u8);
            let i = board.idx(p);
            let cell = match board.get(p) {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            } + if board.in_atari(i) { 4 } else { 0 };
            words.push(((dx + RADIUS) as u64) | (((dy + RADIUS) as u64) << 4) | (cell << 8));
        }
    }
    let (mut a, mut b) = (0x243F_6A88_85A3_08D3u64, 0x1319_8A2E_0370_7344u64);
    for w in words {
        a = splitmix(a ^ w);
        b = splitmix(b.rotate_left(17) ^ w ^ 0x9E37_79B9);
    }
    Some((u128::from(a) << 64) | u128::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Rules, Size};

    fn game(moves: &[&str]) -> Game {
        let mut rules: Rules = "chinese".parse().unwrap();
        rules.size = Size::square(9).unwrap();
        let mut game = Game::new(rules).unwrap();
        for m in moves {
            let mv = match *m {
                "pass" => Move::Pass,
                v => Move::Play(Point::from_gtp(v, rules.size).unwrap()),
            };
            game.play(game.to_move(), mv).unwrap();
        }
        game
    }

    fn play(v: &str) -> Move {
        Move::Play(Point::from_gtp(v, Size::square(9).unwrap()).unwrap())
    }

    #[test]
    fn a_pattern_is_the_move_its_answer_and_the_square_around_it() {
        let mut table = BiasTable::default();
        let base = table.pattern(&game(&["C3", "G7", "D4"]), play("D5"));
        assert!(base.is_some());
        // A stone three points away from the move is outside its square: the same pattern.
        assert_eq!(
            table.pattern(&game(&["C3", "G7", "A9", "J9", "D4"]), play("D5")),
            base
        );
        // A stone two points away is inside: another.
        let near = table.pattern(&game(&["C3", "G7", "F6", "J9", "D4"]), play("D5"));
        assert!(near.is_some() && near != base);
        // Another previous move, another mover, another move: others.
        let others = [
            table.pattern(&game(&["D4", "G7", "C3"]), play("D5")),
            table.pattern(&game(&["C3", "G7", "D4", "J1"]), play("D5")),
            table.pattern(&game(&["C3", "G7", "D4"]), play("E5")),
        ];
        for other in others {
            assert!(other.is_some() && other != base && other != near);
        }
        assert_eq!(table.entries.len(), 5);
        // A pass has none; nor has the game's first move.
        assert_eq!(table.pattern(&game(&["C3", "G7"]), Move::Pass), None);
        assert_eq!(table.pattern(&game(&[]), play("E5")), None);
        // After a pass, a move has one.
        assert!(table.pattern(&game(&["C3", "pass"]), play("E5")).is_some());
    }

    #[test]
    fn a_stone_in_atari_in_the_square_makes_another_pattern() {
        let mut table = BiasTable::default();
        // The square around B5 (A3 to D7) holds the same stones in both games; White's D5, chained to E5
        // outside it, is in atari only in the first (E6 Black's there, H9 in the second).
        let atari = game(&[
            "C5", "D5", "D4", "E5", "D6", "J1", "E4", "J2", "E6", "J3", "J9",
        ]);
        let free = game(&[
            "C5", "D5", "D4", "E5", "D6", "J1", "E4", "J2", "H9", "J3", "J9",
        ]);
        let d5 = Point::from_gtp("D5", Size::square(9).unwrap()).unwrap();
        assert_eq!(
            (atari.board().liberties(d5), free.board().liberties(d5)),
            (1, 2)
        );
        let atari = table.pattern(&atari, play("B5"));
        let free = table.pattern(&free, play("B5"));
        assert!(free.is_some() && atari.is_some() && free != atari);
    }
}
