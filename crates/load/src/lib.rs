//! tesuji-load: load tools for the server, kept out of the server library. `server` plays many games over the
//! API and times the acknowledgements (`tesuji bench server`); `store` fills a data directory with finished
//! games and times a server started on it (`tesuji bench store`). Benchmarks, not tests: they measure and
//! report, they assert nothing.

pub mod server;
pub mod store;

use std::fmt;

/// Why a bench could not run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BenchError(String);

fn fail(what: impl fmt::Display) -> BenchError {
    BenchError(what.to_string())
}

/// The `q` quantile of sorted microseconds, in milliseconds.
fn quantile_ms(sorted: &[u32], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let k = ((last as f64) * q).round() as usize;
    Some(f64::from(sorted[k.min(last)]) / 1000.0)
}
