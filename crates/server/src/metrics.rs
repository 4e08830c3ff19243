//! The server's counters, for `GET /metrics` (docs/API.md): written with relaxed atomic additions on the paths
//! they count (no lock, no allocation), read and printed in Prometheus's text format (0.0.4) by hand when
//! scraped.
//!
//! The counters are the process's, as a Prometheus client library's default registry is: a deployment runs one
//! server per process. (The action path reaches them without a handle; a process that starts several servers,
//! as the tests do, sees their sum.) What belongs to one server, the games in memory, is read from it at the
//! scrape.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use crate::error::Error;

/// The upper bounds of `tesuji_action_ack_seconds`'s buckets, in microseconds, and as printed (`le`).
const ACK_BOUNDS: [(u64, &str); 10] = [
    (1_000, "0.001"),
    (2_500, "0.0025"),
    (5_000, "0.005"),
    (10_000, "0.01"),
    (25_000, "0.025"),
    (50_000, "0.05"),
    (100_000, "0.1"),
    (250_000, "0.25"),
    (500_000, "0.5"),
    (1_000_000, "1"),
];

/// The process's counters.
pub struct Metrics {
    /// Committed actions.
    actions: AtomicU64,
    /// Acknowledgement times: a count per bucket (not cumulative: one addition per action), the last for
    /// those over the largest bound.
    ack_buckets: [AtomicU64; ACK_BOUNDS.len() + 1],
    /// The sum of the acknowledgement times, in microseconds.
    ack_sum_us: AtomicU64,
    /// Open game sockets.
    sockets: AtomicU64,
    /// Actions that failed on a store error.
    store_errors: AtomicU64,
}

static METRICS: Metrics = Metrics::new();

/// The process's counters.
pub fn global() -> &'static Metrics {
    &METRICS
}

/// What a scrape reads from the server itself rather than from the counters (a node's lease, when nodes hold
/// them, will be one more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gauges {
    /// Live games in memory (open tables, games in play or in their marking phase).
    pub live_games: usize,
    /// Whether this node runs the game timers now (see [`crate::game::lease`]).
    pub lease_held: bool,
}

impl Metrics {
    /// Every counter at zero.
    const fn new() -> Metrics {
        Metrics {
            actions: AtomicU64::new(0),
            ack_buckets: [const { AtomicU64::new(0) }; ACK_BOUNDS.len() + 1],
            ack_sum_us: AtomicU64::new(0),
            sockets: AtomicU64::new(0),
            store_errors: AtomicU64::new(0),
        }
    }

    /// Records the outcome of an action that arrived at the game's path at `arrived`: a committed action and
    /// the time until its commit was acknowledged, or a store error; a refusal counts nowhere.
    pub fn acted<T>(&self, arrived: Instant, outcome: &Result<T, Error>) {
        match outcome {
            Ok(_) => {
                let us = u64::try_from(arrived.elapsed().as_micros()).unwrap_or(u64::MAX);
                let bucket = ACK_BOUNDS
                    .iter()
                    .position(|&(bound, _)| us <= bound)
                    .unwrap_or(ACK_BOUNDS.len());
                self.ack_buckets[bucket].fetch_add(1, Relaxed);
                self.ack_sum_us.fetch_add(us, Relaxed);
                self.actions.fetch_add(1, Relaxed);
            }
            Err(Error::Store(_)) => {
                self.store_errors.fetch_add(1, Relaxed);
            }
            Err(_) => {}
        }
    }

    /// Counts a game socket open until the guard is dropped.
    pub fn socket_opened(&'static self) -> OpenSocket {
        self.sockets.fetch_add(1, Relaxed);
        OpenSocket(self)
    }

    /// The metrics in Prometheus's text format, version 0.0.4: every family with its `# HELP` and `# TYPE`.
    pub fn render(&self, gauges: Gauges) -> String {
        let mut out = String::with_capacity(2048);
        let family = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        family(
            &mut out,
            "tesuji_build_info",
            "gauge",
            "The server's version, as a label; the value is always 1.",
        );
        let _ = writeln!(
            out,
            "tesuji_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        );
        family(
            &mut out,
            "tesuji_actions_total",
            "counter",
            "Actions committed to the store: moves, passes, marks, acceptances, disputes, resignations, claims, \
             the computer's moves and losses on time.",
        );
        let _ = writeln!(out, "tesuji_actions_total {}", self.actions.load(Relaxed));
        family(
            &mut out,
            "tesuji_action_ack_seconds",
            "histogram",
            "Time from an action's arrival at its game to the acknowledgement of its commit.",
        );
        // `_count` is the sum of the buckets read here, so that the `+Inf` bucket always equals it even while
        // actions are being recorded.
        let mut cumulative = 0;
        for (i, (_, le)) in ACK_BOUNDS.iter().enumerate() {
            cumulative += self.ack_buckets[i].load(Relaxed);
            let _ = writeln!(
                out,
                "tesuji_action_ack_seconds_bucket{{le=\"{le}\"}} {cumulative}"
            );
        }
        cumulative += self.ack_buckets[ACK_BOUNDS.len()].load(Relaxed);
        let sum = self.ack_sum_us.load(Relaxed);
        let _ = writeln!(
            out,
            "tesuji_action_ack_seconds_bucket{{le=\"+Inf\"}} {cumulative}\n\
             tesuji_action_ack_seconds_sum {}.{:06}\n\
             tesuji_action_ack_seconds_count {cumulative}",
            sum / 1_000_000,
            sum % 1_000_000
        );
        family(
            &mut out,
            "tesuji_store_errors_total",
            "counter",
            "Actions whose commit the store failed; each was undone and refused.",
        );
        let _ = writeln!(
            out,
            "tesuji_store_errors_total {}",
            self.store_errors.load(Relaxed)
        );
        family(&mut out, "tesuji_sockets", "gauge", "Open game WebSockets.");
        let _ = writeln!(out, "tesuji_sockets {}", self.sockets.load(Relaxed));
        family(
            &mut out,
            "tesuji_live_games",
            "gauge",
            "Live games in memory: open tables, games in play and in their marking phase.",
        );
        let _ = writeln!(out, "tesuji_live_games {}", gauges.live_games);
        family(
            &mut out,
            "tesuji_lease_held",
            "gauge",
            "1 on the node that runs the game timers (every node alone does), else 0.",
        );
        let _ = writeln!(out, "tesuji_lease_held {}", u8::from(gauges.lease_held));
        out
    }
}

/// A game socket counted as open while this lives.
#[must_use = "the socket counts as open only while the guard lives"]
pub struct OpenSocket(&'static Metrics);

impl Drop for OpenSocket {
    fn drop(&mut self) {
        self.0.sockets.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    fn fresh() -> &'static Metrics {
        Box::leak(Box::new(Metrics::new()))
    }

    fn value(text: &str, name: &str) -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
            .to_owned()
    }

    #[test]
    fn an_action_falls_in_the_first_bucket_that_holds_it() {
        let m = fresh();
        let now = Instant::now();
        // Arrived 30 ms ago: over 0.025, within 0.05.
        let arrived = now - std::time::Duration::from_millis(30);
        m.acted(arrived, &Ok::<(), Error>(()));
        // Arrived 2 s ago: only in +Inf.
        m.acted(
            now - std::time::Duration::from_secs(2),
            &Ok::<(), Error>(()),
        );
        m.acted(now, &Err::<(), _>(Error::NotSeated));
        m.acted(
            now,
            &Err::<(), _>(Error::Store(StoreError::Database(sqlx::Error::PoolClosed))),
        );
        let text = m.render(Gauges {
            live_games: 3,
            lease_held: true,
        });
        let bucket = |le: &str| {
            value(
                &text,
                &format!("tesuji_action_ack_seconds_bucket{{le=\"{le}\"}}"),
            )
        };
        assert_eq!(bucket("0.025"), "0");
        assert_eq!(bucket("0.05"), "1");
        assert_eq!(bucket("1"), "1");
        assert_eq!(bucket("+Inf"), "2");
        assert_eq!(value(&text, "tesuji_action_ack_seconds_count"), "2");
        let sum: f64 = value(&text, "tesuji_action_ack_seconds_sum")
            .parse()
            .unwrap();
        assert!((2.03..2.5).contains(&sum), "{sum}");
        assert_eq!(value(&text, "tesuji_actions_total"), "2");
        assert_eq!(value(&text, "tesuji_store_errors_total"), "1");
        assert_eq!(value(&text, "tesuji_live_games"), "3");
        assert_eq!(value(&text, "tesuji_lease_held"), "1");
    }

    #[test]
    fn a_socket_counts_while_its_guard_lives() {
        let m = fresh();
        let a = m.socket_opened();
        let b = m.socket_opened();
        assert_eq!(value(&m.render(Gauges::default()), "tesuji_sockets"), "2");
        drop(a);
        assert_eq!(value(&m.render(Gauges::default()), "tesuji_sockets"), "1");
        drop(b);
        assert_eq!(value(&m.render(Gauges::default()), "tesuji_sockets"), "0");
    }
}
