//! The game timers of a site on several nodes (the flag of a running clock, the computer's moves) run on one
//! node at a time: the one that holds the `timers` lease in the database. It renews the lease every second
//! for three; when it dies or loses the database, the lease lapses and the next node to ask takes it, catches
//! every game up with the database, and starts their timers. The database still decides each action (a
//! timer's action names the version it was meant for), so two nodes that both think they hold the lease for a
//! moment cannot act twice; the lease only keeps the nodes from doing the same work.
//!
//! A node alone (SQLite, or no NATS) always holds it. The grace period's end is not a timer in this sense:
//! each node tells its own watchers of it, and a claim is a player's action, decided by the database.

use std::time::{Duration, Instant};

/// The lease's name in the database.
pub const TIMERS: &str = "timers";

/// How long a lease lasts once taken or renewed.
pub const TTL: Duration = Duration::from_secs(3);

/// How often the holder renews it, and the others ask for it.
pub const RENEW: Duration = Duration::from_secs(1);

/// Whether this node may run the timers now.
#[derive(Debug)]
pub struct TimerLease {
    /// `None`: this node is alone and always holds it.
    until: Option<std::sync::Mutex<Option<Instant>>>,
    /// How many times this node took the timers over, for those who act on a take-over.
    taken: tokio::sync::watch::Sender<u64>,
}

impl TimerLease {
    /// The lease of a node alone: always held.
    pub fn alone() -> TimerLease {
        TimerLease {
            until: None,
            taken: tokio::sync::watch::Sender::new(0),
        }
    }

    /// The lease of one of several nodes: not held until [`keep`] takes it.
    pub fn shared() -> TimerLease {
        TimerLease {
            until: Some(std::sync::Mutex::new(None)),
            taken: tokio::sync::watch::Sender::new(0),
        }
    }

    /// Changes at each take-over of the timers by this node, once every game has caught up.
    pub fn take_overs(&self) -> tokio::sync::watch::Receiver<u64> {
        self.taken.subscribe()
    }

    pub(super) fn took_over(&self) {
        self.taken.send_modify(|n| *n += 1);
    }

    /// Whether this node holds the lease now.
    pub fn held(&self) -> bool {
        match &self.until {
            None => true,
            Some(until) => until
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|until| Instant::now() < until),
        }
    }

    /// The database granted the lease until `until` (on this node's clock, counted from before it was
    /// asked, so never later than the database's own expiry). Answers whether it was not held just before.
    pub(super) fn granted(&self, until: Instant) -> bool {
        let Some(slot) = &self.until else {
            return false;
        };
        let was = self.held();
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(until);
        !was
    }

    /// Another node holds the lease. Answers whether this one did just before.
    pub(super) fn lost(&self) -> bool {
        let Some(slot) = &self.until else {
            return false;
        };
        let was = self.held();
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
        was
    }
}
