//! Rate limits: per client address for sign-up, log-in and guest attempts (password guessing, account spam)
//! and for the record work anyone may ask for (replays of uploaded records, counts under every ruleset), per
//! user for game actions (one client flooding a game). All are token buckets from `governor`, but for the
//! failed log-ins to one account ([`AccountGuard`]), which come from anywhere and slow down guessing its
//! password from many addresses without keeping its owner out.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::clocks::TimeSource;
use crate::error::Error;

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
    accounts: AccountGuard,
    behind_proxy: bool,
}

fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

fn check<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> Result<(), Error> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        Error::RateLimited {
            retry_after: wait.as_secs() + 1,
        }
    })
}

impl Limiters {
    /// The limiters of `limits`; the failed log-ins' waits run on `time`.
    pub fn new(limits: Limits, time: TimeSource) -> Limiters {
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
            accounts: AccountGuard {
                time,
                accounts: std::sync::Mutex::default(),
            },
            behind_proxy: limits.behind_proxy,
            sockets: std::sync::Arc::default(),
            sockets_per_user: limits.sockets_per_user,
            sockets_per_address: limits.sockets_per_address,
        }
    }

    /// A place for one more WebSocket of `user` (when signed in) from `address`, held until the slot is dropped
    /// (when the socket closes); refused when either already has as many open as allowed.
    pub fn socket(&self, user: Option<i64>, address: IpAddr) -> Result<SocketSlot, Error> {
        let mut counts = self.sockets.lock().unwrap_or_else(|e| e.into_inner());
        let by_address = counts.by_address.get(&address).copied().unwrap_or(0);
        let by_user = user.map_or(0, |u| counts.by_user.get(&u).copied().unwrap_or(0));
        if by_address >= self.sockets_per_address || by_user >= self.sockets_per_user {
            let (open, limit, whose) = if by_address >= self.sockets_per_address {
                (by_address, self.sockets_per_address, "this address")
            } else {
                (by_user, self.sockets_per_user, "this account")
            };
            return Err(Error::TooManySockets { open, limit, whose });
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

    pub fn auth(&self, address: IpAddr) -> Result<(), Error> {
        check(&self.auth, &address)
    }

    pub fn action(&self, user: i64) -> Result<(), Error> {
        check(&self.actions, &user)
    }

    pub fn chat(&self, user: i64) -> Result<(), Error> {
        check(&self.chat, &user)
    }

    pub fn records(&self, address: IpAddr) -> Result<(), Error> {
        check(&self.records, &address)
    }

    /// The failed log-ins to accounts, by name key.
    pub fn accounts(&self) -> &AccountGuard {
        &self.accounts
    }

    /// Forgets keys whose buckets are full again, so that memory does not grow with every address ever seen.
    pub fn sweep(&self) {
        self.accounts.sweep();
        self.auth.retain_recent();
        self.actions.retain_recent();
        self.chat.retain_recent();
        self.records.retain_recent();
    }
}

/// Failed log-ins to one account that are free: the owner's typos, a few guesses.
pub const ACCOUNT_FREE_FAILURES: u32 = 5;
/// The wait after the first failure beyond the free ones; it doubles with each further failure.
pub const ACCOUNT_FIRST_WAIT_MS: u64 = 1_000;
/// The longest wait between two tested log-ins to one account (so at most four guesses an hour, from any
/// number of addresses).
pub const ACCOUNT_MAX_WAIT_MS: u64 = 15 * 60_000;
/// How long an account's failures are remembered after its last one.
pub const ACCOUNT_FAILURES_KEPT_MS: u64 = 60 * 60_000;
/// The addresses remembered per account as its owner's: the last ones it signed in from.
const KNOWN_ADDRESSES: usize = 16;

/// What one account's log-ins have been: failures and when the last was, and where it signed in from.
#[derive(Default)]
struct AccountAttempts {
    failures: u32,
    last_failure_ms: u64,
    known: VecDeque<IpAddr>,
}

impl AccountAttempts {
    /// How long after the last failure the next log-in from an address the account does not know waits.
    fn wait_ms(&self) -> u64 {
        match self.failures.checked_sub(ACCOUNT_FREE_FAILURES) {
            None => 0,
            Some(beyond) => ACCOUNT_FIRST_WAIT_MS
                .checked_shl(beyond.min(63))
                .unwrap_or(u64::MAX)
                .min(ACCOUNT_MAX_WAIT_MS),
        }
    }
}

/// Failed log-ins per account (by name key, known account or not, so the answers tell no names), on this node:
/// after [`ACCOUNT_FREE_FAILURES`] failures from anywhere, a log-in from an address the account has not signed in
/// from waits [`ACCOUNT_FIRST_WAIT_MS`] after the last failure, twice as long after each further one, at most
/// [`ACCOUNT_MAX_WAIT_MS`]; it is refused before its password is tested, so a guess is never tried early, and a
/// right password waits as a wrong one. Signing in (or up) from an address makes it the owner's: their log-ins
/// from there never wait. Failures are forgotten [`ACCOUNT_FAILURES_KEPT_MS`] after the last one.
pub struct AccountGuard {
    time: TimeSource,
    accounts: std::sync::Mutex<HashMap<String, AccountAttempts>>,
}

impl AccountGuard {
    fn with<R>(&self, key: &str, f: impl FnOnce(&mut AccountAttempts, u64) -> R) -> R {
        let now = self.time.now_ms();
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        let attempts = accounts.entry(key.to_owned()).or_default();
        if attempts.failures > 0
            && now.saturating_sub(attempts.last_failure_ms) >= ACCOUNT_FAILURES_KEPT_MS
        {
            attempts.failures = 0;
        }
        f(attempts, now)
    }

    /// Whether a log-in to the account of name key `key` from `address` may be tested now.
    pub fn check(&self, key: &str, address: IpAddr) -> Result<(), Error> {
        self.with(key, |a, now| {
            if a.known.contains(&address) {
                return Ok(());
            }
            let until = a.last_failure_ms.saturating_add(a.wait_ms());
            if a.failures >= ACCOUNT_FREE_FAILURES && now < until {
                return Err(Error::AccountRateLimited {
                    retry_after: (until - now).div_ceil(1000),
                });
            }
            Ok(())
        })
    }

    /// A log-in to the account of name key `key` failed (a wrong password, or no such account).
    pub fn failed(&self, key: &str) {
        self.with(key, |a, now| {
            a.failures = a.failures.saturating_add(1);
            a.last_failure_ms = now;
        });
    }

    /// The account of name key `key` signed in (or up) from `address`: the owner's address from now on.
    pub fn signed_in(&self, key: &str, address: IpAddr) {
        self.with(key, |a, _| {
            if !a.known.contains(&address) {
                if a.known.len() == KNOWN_ADDRESSES {
                    a.known.pop_front();
                }
                a.known.push_back(address);
            }
        });
    }

    /// Forgets the accounts with no failure remembered and no address known.
    fn sweep(&self) {
        let now = self.time.now_ms();
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        accounts.retain(|_, a| {
            !a.known.is_empty()
                || (a.failures > 0
                    && now.saturating_sub(a.last_failure_ms) < ACCOUNT_FAILURES_KEPT_MS)
        });
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
        let limiters = Limiters::new(
            Limits {
                sockets_per_user: 2,
                sockets_per_address: 3,
                ..Limits::default()
            },
            TimeSource::real(),
        );
        let (home, away): (IpAddr, IpAddr) =
            ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let a = limiters.socket(Some(1), home).unwrap();
        let b = limiters.socket(Some(1), away).unwrap();
        // User 1 has two open, wherever from.
        assert!(matches!(
            limiters.socket(Some(1), home),
            Err(Error::TooManySockets { limit: 2, .. })
        ));
        // Anonymous watchers count only against their address: home has one (a), so two more fit.
        let c = limiters.socket(None, home).unwrap();
        let d = limiters.socket(None, home).unwrap();
        assert!(matches!(
            limiters.socket(None, home),
            Err(Error::TooManySockets { limit: 3, .. })
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
