//! Whole-game repetition records for the superko rules and the repetition-void rule.
//!
//! Each record is keyed by a 64-bit Zobrist key and keeps an exact packed snapshot of the position, so a key
//! match is confirmed by comparing positions: the rules are exact even if two positions ever share a hash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::rules::KoRule;
use crate::types::Color;

/// Keys are already uniformly random Zobrist hashes: hashing them again would only cost time.
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

/// Key of "this colour is to move" (situational superko and repetition) ...
const SIDE: [u64; 2] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344];
/// ... and of "right after a play by this colour" (natural ko).
const MOVER: [u64; 2] = [0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89];

/// The key a play by `mover` that produces the position hashed `hash_after`, with `next` to move, must not
/// repeat, or `None` when the ko rule keeps no whole-game record.
#[inline]
pub(crate) fn play_key(ko: KoRule, hash_after: u64, mover: Color, next: Color) -> Option<u64> {
    match ko {
        KoRule::Simple => None,
        KoRule::Positional => Some(hash_after),
        KoRule::Situational => Some(hash_after ^ SIDE[next.index()]),
        KoRule::Natural => Some(hash_after ^ MOVER[mover.index()]),
    }
}

/// The key recorded after a turn by `mover` with `next` to move, or `None` when that turn adds nothing to the ko
/// rule's record.
#[inline]
pub(crate) fn turn_key(
    ko: KoRule,
    hash: u64,
    mover: Color,
    next: Color,
    was_play: bool,
) -> Option<u64> {
    match ko {
        KoRule::Simple => None,
        KoRule::Positional => was_play.then_some(hash),
        KoRule::Situational => Some(hash ^ SIDE[next.index()]),
        KoRule::Natural => was_play.then_some(hash ^ MOVER[mover.index()]),
    }
}

/// The key of the starting record, if the ko rule counts the starting position or state.
#[inline]
pub(crate) fn start_key(ko: KoRule, hash: u64, to_move: Color) -> Option<u64> {
    match ko {
        KoRule::Simple | KoRule::Natural => None,
        KoRule::Positional => Some(hash),
        KoRule::Situational => Some(hash ^ SIDE[to_move.index()]),
    }
}

/// The key of a state (position and colour to move), for the repetition-void rule.
#[inline]
pub(crate) fn state_key(hash: u64, to_move: Color) -> u64 {
    hash ^ SIDE[to_move.index()]
}

/// A multiset of (key, snapshot) records.
#[derive(Clone, Default)]
pub(crate) struct Records {
    /// Snapshot words per record.
    words: usize,
    snapshots: Vec<u64>,
    /// Latest record for each key.
    head: IdMap<u32>,
    /// The previous record with the same key (`u32::MAX` ends the list).
    older: Vec<u32>,
    keys: Vec<u64>,
    /// One bit per value of the keys' low bits: most lookups of unseen keys stop here, before the map. Sized
    /// to the records expected (a few percent full), allocated on the first record.
    filter: Vec<u64>,
    filter_mask: u64,
}

#[inline(always)]
fn filter_slot(key: u64, mask: u64) -> (usize, u64) {
    let low = (key & mask) as usize;
    (low >> 6, 1 << (low & 63))
}

impl Records {
    /// Records of `words`-word snapshots, with room for about `expected` of them before growing.
    pub(crate) fn new(words: usize, expected: usize) -> Records {
        Records {
            words,
            snapshots: Vec::with_capacity(words * expected),
            head: IdMap::with_capacity_and_hasher(expected, Default::default()),
            older: Vec::with_capacity(expected),
            keys: Vec::with_capacity(expected),
            filter_mask: ((expected.max(64) * 32).next_power_of_two().min(1 << 16) - 1) as u64,
            ..Records::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.older.len()
    }

    /// Adds a record.
    pub(crate) fn add(&mut self, key: u64, snapshot: &[u64]) {
        debug_assert_eq!(snapshot.len(), self.words);
        let n = self.older.len() as u32;
        self.snapshots.extend_from_slice(snapshot);
        let prev = self.head.insert(key, n).unwrap_or(u32::MAX);
        self.older.push(prev);
        self.keys.push(key);
        if self.filter.is_empty() {
            // Allocated on first use: many games never record anything (simple ko without repetition).
            self.filter = vec![0; (self.filter_mask as usize + 1).div_ceil(64)];
        }
        let (word, bit) = filter_slot(key, self.filter_mask);
        if let Some(w) = self.filter.get_mut(word) {
            *w |= bit;
        }
    }

    /// Adds a record; returns how many records now hold this exact key and position.
    pub(crate) fn add_counting(&mut self, key: u64, snapshot: &[u64]) -> usize {
        self.add(key, snapshot);
        self.count_exact(key, snapshot)
    }

    /// Gives back the room reserved beyond the records held (the filter keeps its size: its mask is fixed).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.snapshots.shrink_to_fit();
        self.head.shrink_to_fit();
        self.older.shrink_to_fit();
        self.keys.shrink_to_fit();
    }

    /// Forgets every record after the first `len` (for make/unmake searches).
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.older.len() > len {
            let (Some(prev), Some(key)) = (self.older.pop(), self.keys.pop()) else {
                break;
            };
            if prev == u32::MAX {
                // The filter bit may stay set: it only lets a lookup through to the map.
                self.head.remove(&key);
            } else {
                self.head.insert(key, prev);
            }
        }
        self.snapshots.truncate(len * self.words);
    }

    /// Whether the key was recorded at all (a cheap test; confirm with [`Records::count_exact`]).
    #[inline]
    pub(crate) fn has_key(&self, key: u64) -> bool {
        let (word, bit) = filter_slot(key, self.filter_mask);
        self.filter.get(word).is_some_and(|w| w & bit != 0) && self.head.contains_key(&key)
    }

    /// How many records hold this exact key and position.
    pub(crate) fn count_exact(&self, key: u64, snapshot: &[u64]) -> usize {
        let mut n = self.head.get(&key).copied().unwrap_or(u32::MAX);
        let mut count = 0;
        while n != u32::MAX {
            let at = n as usize * self.words;
            if &self.snapshots[at..at + self.words] == snapshot {
                count += 1;
            }
            n = self.older[n as usize];
        }
        count
    }
}
