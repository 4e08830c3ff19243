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
    /// WebSockets (game and lobby) open at once for one signed-in user (a few tabs each with a game and the
    /// lobby), and from one address (a club behind one router, anonymous watchers among them).
    pub sockets_per_user: u32,
    pub sockets_per_address: u32,
    /// Chat messages per minute by one user, with a burst of a sixth of that (5 at once by default): talk, not
    /// a flood.
    pub chat_per_minute: u32,
    /// Tables one user may have open (waiting for an opponent) at once.
    pub open_tables_per_user: usize,
    /// Automatch seeks one user may have waiting at once (each kind of game is one seek).
    pub seeks_per_user: usize,
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
            sockets_per_user: 20,
            sockets_per_address: 200,
            chat_per_minute: 30,
            open_tables_per_user: 10,
            seeks_per_user: 3,
            behind_proxy: false,
        }
    }
}

/// The limiters of a running server.
pub struct Limiters {
    /// Open sockets per user and per address (see [`Limiters::socket`]).
    sockets: std::sync::Arc<std::sync::Mutex<SocketCounts>>,
    sockets_per_user: u32,
    sockets_per_address: u32,
    auth: DefaultKeyedRateLimiter<IpAddr>,
    actions: DefaultKeyedRateLimiter<i64>,
    chat: DefaultKeyedRateLimiter<i64>,
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
            chat: RateLimiter::keyed(
                Quota::per_minute(at_least_one(limits.chat_per_minute))
                    .allow_burst(at_least_one(limits.chat_per_minute / 6)),
            ),
            records: RateLimiter::keyed(
                Quota::per_minute(at_least_one(limits.records_per_minute))
                    .allow_burst(at_least_one(limits.records_per_minute / 3)),
            ),
            behind_proxy: limits.behind_proxy,
            sockets: std::sync::Arc::default(),
            sockets_per_user: limits.sockets_per_user,
            sockets_per_address: limits.sockets_per_address,
        }
    }

    /// A place for one more WebSocket of `user` (when signed in) from `address`, held until the slot is dropped
    /// (when the socket closes); refused when either already has as many open as allowed.
    pub fn socket(&self, user: Option<i64>, address: IpAddr) -> Result<SocketSlot, ApiError> {
        let mut counts = self.sockets.lock().unwrap_or_else(|e| e.into_inner());
        let by_address = counts.by_address.get(&address).copied().unwrap_or(0);
        let by_user = user.map_or(0, |u| counts.by_user.get(&u).copied().unwrap_or(0));
        if by_address >= self.sockets_per_address || by_user >= self.sockets_per_user {
            let (open, limit, whose) = if by_address >= self.sockets_per_address {
                (by_address, self.sockets_per_address, "this address")
            } else {
                (by_user, self.sockets_per_user, "this account")
            };
            return Err(ApiError::TooManySockets { open, limit, whose });
        }
        *counts.by_address.entry(address).or_insert(0) += 1;
        if let Some(u) = user {
            *counts.by_user.entry(u).or_insert(0) += 1;
        }
        Ok(SocketSlot {
            counts: std::sync::Arc::clone(&self.sockets),
            user,
            address,
        })
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

    pub fn chat(&self, user: i64) -> Result<(), ApiError> {
        check(&self.chat, &user)
    }

    pub fn records(&self, address: IpAddr) -> Result<(), ApiError> {
        check(&self.records, &address)
    }

    /// Forgets keys whose buckets are full again, so that memory does not grow with every address ever seen.
    pub fn sweep(&self) {
        self.auth.retain_recent();
        self.actions.retain_recent();
        self.chat.retain_recent();
        self.records.retain_recent();
    }
}

/// Open sockets per user and per address; keys leave when their count is back to 0.
#[derive(Default)]
struct SocketCounts {
    by_user: std::collections::HashMap<i64, u32>,
    by_address: std::collections::HashMap<IpAddr, u32>,
}

/// One open socket's place in the counts of [`Limiters::socket`]: given back when dropped.
pub struct SocketSlot {
    counts: std::sync::Arc<std::sync::Mutex<SocketCounts>>,
    user: Option<i64>,
    address: IpAddr,
}

fn give_back<K: Hash + Eq>(map: &mut std::collections::HashMap<K, u32>, key: K) {
    if let Some(n) = map.get_mut(&key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&key);
        }
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        give_back(&mut counts.by_address, self.address);
        if let Some(u) = self.user {
            give_back(&mut counts.by_user, u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_are_counted_per_user_and_per_address_until_they_close() {
        let limiters = Limiters::new(Limits {
            sockets_per_user: 2,
            sockets_per_address: 3,
            ..Limits::default()
        });
        let (home, away): (IpAddr, IpAddr) =
            ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let a = limiters.socket(Some(1), home).unwrap();
        let b = limiters.socket(Some(1), away).unwrap();
        // User 1 has two open, wherever from.
        assert!(matches!(
            limiters.socket(Some(1), home),
            Err(ApiError::TooManySockets { limit: 2, .. })
        ));
        // Anonymous watchers count only against their address: home has one (a), so two more fit.
        let c = limiters.socket(None, home).unwrap();
        let d = limiters.socket(None, home).unwrap();
        assert!(matches!(
            limiters.socket(None, home),
            Err(ApiError::TooManySockets { limit: 3, .. })
        ));
        assert!(
            limiters.socket(Some(2), away).is_ok(),
            "another address has room"
        );
        // Closing gives the place back, to the user and to the address.
        drop(a);
        let again = limiters.socket(Some(1), home).unwrap();
        drop((b, c, d, again));
        let counts = limiters.sockets.lock().unwrap();
        assert!(counts.by_user.is_empty() && counts.by_address.is_empty());
    }
}
