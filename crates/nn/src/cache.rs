//! A cache of evaluations, keyed by what the network is given: the inputs as oriented (the position, its
//! history, rules and komi, turned by the symmetry), the symmetry and the policy optimism. Two positions
//! that reach the network as the same numbers get the same answer, so a hit is exact.
//!
//! The key is a 128-bit hash of those numbers; the cache holds at most its capacity in entries, in two
//! generations: when the newer is half full the older is dropped, so what was used recently stays.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::inputs::Features;
use crate::network::Network;
use crate::output::Evaluation;
use crate::position::{Query, evaluate_features, features};

type Key = (u64, u64);

struct Generations {
    newer: HashMap<Key, Arc<Evaluation>>,
    older: HashMap<Key, Arc<Evaluation>>,
}

/// Evaluations already made, shared between threads.
pub struct EvalCache {
    capacity: usize,
    maps: Mutex<Generations>,
}

impl EvalCache {
    /// A cache of at most `capacity` evaluations (0: nothing is kept).
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            capacity,
            maps: Mutex::new(Generations {
                newer: HashMap::new(),
                older: HashMap::new(),
            }),
        }
    }

    /// Evaluations held now.
    pub fn len(&self) -> usize {
        let maps = self.lock();
        maps.newer.len() + maps.older.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        // A thread that panicked while holding the lock left whole maps behind: a map is only replaced whole.
        self.maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &Key) -> Option<Arc<Evaluation>> {
        let mut maps = self.lock();
        if let Some(e) = maps.newer.get(key) {
            return Some(e.clone());
        }
        let e = maps.older.remove(key)?;
        maps.newer.insert(*key, e.clone());
        Some(e)
    }

    fn put(&self, key: Key, e: Arc<Evaluation>) {
        if self.capacity == 0 {
            return;
        }
        let mut maps = self.lock();
        if maps.newer.len() >= self.capacity.div_ceil(2) {
            let newer = std::mem::take(&mut maps.newer);
            maps.older = newer;
        }
        maps.newer.insert(key, e);
    }
}

/// The key of a query whose inputs are `f`.
fn key(f: &Features, q: &Query) -> Key {
    let mut first = DefaultHasher::new();
    let mut second = DefaultHasher::new();
    // A second, differently started hash makes the pair 128 bits wide.
    0x5445_5355_4a49u64.hash(&mut second);
    for h in [&mut first, &mut second] {
        (f.width, f.height, q.symmetry.0, q.policy_optimism.to_bits()).hash(h);
        for x in f.spatial.iter().chain(&f.global) {
            x.to_bits().hash(h);
        }
    }
    (first.finish(), second.finish())
}

/// [`crate::position::evaluate`] through the cache: what it holds is answered from it, the rest evaluated
/// in batches and kept.
pub fn evaluate_cached(
    network: &Network,
    cache: &EvalCache,
    queries: &[Query],
) -> Vec<Arc<Evaluation>> {
    let inputs: Vec<Features> = queries.iter().map(|q| features(network, q)).collect();
    let keys: Vec<Key> = inputs.iter().zip(queries).map(|(f, q)| key(f, q)).collect();
    let mut answers: Vec<Option<Arc<Evaluation>>> = keys.iter().map(|k| cache.get(k)).collect();
    let missing: Vec<usize> = (0..queries.len())
        .filter(|&i| answers[i].is_none())
        .collect();
    if !missing.is_empty() {
        let batch: Vec<(&Query, &Features)> =
            missing.iter().map(|&i| (&queries[i], &inputs[i])).collect();
        for (&i, e) in missing.iter().zip(evaluate_features(network, &batch)) {
            let e = Arc::new(e);
            cache.put(keys[i], e.clone());
            answers[i] = Some(e);
        }
    }
    answers
        .into_iter()
        .map(|a| a.expect("every query answered from the cache or the network"))
        .collect()
}
