//! Rate limits: per client address for sign-up, log-in and guest attempts (password guessing, account spam)
//! and for the record work anyone may ask for (replays of uploaded records, counts under every ruleset), per
//! user for game actions (one client flooding a game). All are token buckets from `governor`.

use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

/// How many requests are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Sign-up, log-in and guest attempts per minute from one address.
    pub auth_per_minute: u32,
    /// Game actions (moves, passes, marks...) per second by one user, with a burst of twice that.
    pub actions_per_second: u32,
    /// Replays of uploaded records and counts under every ruleset per minute from one address, with a burst of
    /// a third of that: each is CPU work that anyone may ask for without signing in.
    pub records_per_minute: u32,
    /// The server runs behind one reverse proxy: a request's client address is the last entry of its
    /// `X-Forwarded-For` header (the one the proxy added), not the proxy's own address. Off by default: without a
    /// proxy that header is whatever the client wrote. With it on, the proxy must append the address it saw to
    /// the header (or replace the header), and the server's port must be reachable through the proxy only;
    /// otherwise clients choose their own rate-limit key.
    pub behind_proxy: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            auth_per_minute: 20,
            actions_per_second: 20,
            records_per_minute: 30,
            behind_proxy: false,
        }
    }
}

/// The limiters of a running server.
pub struct Limiters {
    auth: DefaultKeyedRateLimiter<IpAddr>,
    actions: DefaultKeyedRateLimiter<i64>,
    records: DefaultKeyedRateLimiter<IpAddr>,
    behind_proxy: bool,
}

fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

fn check<K: Hash + Eq + Clone>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
) -> Result<(), ApiError> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        ApiError::RateLimited {
            retry_after: wait.as_secs() + 1,
        }
    })
}

impl Limiters {
    pub fn new(limits: Limits) -> Limiters {
        let per_minute = at_least_one(limits.auth_per_minute);
        let per_second = at_least_one(limits.actions_per_second);
        Limiters {
            auth: RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(per_minute)),
            actions: RateLimiter::keyed(
                Quota::per_second(per_second)
                    .allow_burst(at_least_one(limits.actions_per_second.saturating_mul(2))),
            ),
            records: RateLimiter::keyed(
                Quota::per_minute(at_least_one(limits.records_per_minute))
                    .allow_burst(at_least_one(limits.records_per_minute / 3)),
            ),
            behind_proxy: limits.behind_proxy,
        }
    }

    /// The address of the client that sent a request through the connection from `peer`: the peer itself, or,
    /// behind a proxy, the last address of `X-Forwarded-For` (the peer when the header is missing or unreadable).
    pub fn client(&self, peer: SocketAddr, headers: &axum::http::HeaderMap) -> IpAddr {
        if !self.behind_proxy {
            return peer.ip();
        }
        headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|last| {
                // Some proxies write the client's port too: `203.0.113.1:5678`, `[2001:db8::1]:5678`.
                let last = last.trim();
                last.parse::<IpAddr>()
                    .ok()
                    .or_else(|| last.parse::<SocketAddr>().ok().map(|a| a.ip()))
            })
            .unwrap_or_else(|| peer.ip())
    }

    pub fn auth(&self, address: IpAddr) -> Result<(), ApiError> {
        check(&self.auth, &address)
    }

    pub fn action(&self, user: i64) -> Result<(), ApiError> {
        check(&self.actions, &user)
    }

    pub fn records(&self, address: IpAddr) -> Result<(), ApiError> {
        check(&self.records, &address)
    }

    /// Forgets keys whose buckets are full again, so that memory does not grow with every address ever seen.
    pub fn sweep(&self) {
        self.auth.retain_recent();
        self.actions.retain_recent();
        self.records.retain_recent();
    }
}
