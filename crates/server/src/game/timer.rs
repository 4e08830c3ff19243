//! The game's timers: the flag of the running clock and the end of an absent player's grace period.

use std::sync::Arc;
use std::time::Instant;

use tesuji_rules::Phase;

use crate::clocks::GameClock;
use crate::error::Error;
use crate::store::SiteStore;
use tokio::task::JoinHandle;

use super::lease::{RENEW, TIMERS, TTL};
use super::registry::Games;
use super::request::{Actor, Request, Sent};

impl Games {
    /// After a change to game `id`: the computer's turn and the timer of the running clock (on the node that
    /// runs the timers: see [`crate::game::lease`]), and the grace period (on every node, for its own watchers).
    pub fn wake(self: &Arc<Self>, id: i64) {
        if self.lease.held() {
            self.wake_bot(id);
            self.watch_clock(id);
        }
        self.watch_grace(id);
    }

    /// Announces the end of an absent player's grace period: watchers get a `presence` event whose state shows
    /// the claim open (`claim_in_ms` 0), so that no client has to count down by itself. One task per game at
    /// most; it runs while a grace period does, and checks again on waking, since the player may have come back
    /// or acted meanwhile (and a later absence ends later: the grace period is the same for all). It does not
    /// hold the game while it sleeps (an untimed game's absence lasts days): a game that ends meanwhile leaves
    /// the live games and memory, and the task finds it gone.
    pub fn watch_grace(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            {
                let Some(entry) = games.live_entry(id) else {
                    return;
                };
                let mut live = entry.lock().await;
                if live.presence.watching {
                    return;
                }
                live.presence.watching = true;
            }
            loop {
                let (end, color, seen) = {
                    let Some(entry) = games.live_entry(id) else {
                        return;
                    };
                    let mut live = entry.lock().await;
                    match live.next_grace_end() {
                        Some(next) => next,
                        None => {
                            live.presence.watching = false;
                            return;
                        }
                    }
                };
                games.time.sleep_until(end).await;
                let Some(entry) = games.live_entry(id) else {
                    return;
                };
                let mut live = entry.lock().await;
                if live.next_grace_end() == Some((end, color, seen)) && games.time.now_ms() >= end {
                    live.presence.announced[color] = Some(seen);
                    let state = live.state();
                    live.broadcast_presence(&state);
                }
            }
        });
    }

    /// Waits for the running clock of game `id` to run out, then records the loss on time. Every action starts
    /// a new watch; an older one sees the version move and ends. Like the grace watch it does not hold the game
    /// while it sleeps (a correspondence clock's deadline is days away): a game that ends meanwhile leaves
    /// memory, and the watch finds it gone. A node that no longer runs the timers when the flag falls leaves it
    /// to the one that does; a watch whose copy of the game was behind another node's catches up (the store
    /// refuses its action as stale) and starts again.
    pub fn watch_clock(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                let (deadline, version) = {
                    let Some(entry) = games.live_entry(id) else {
                        return;
                    };
                    let live = entry.lock().await;
                    if live.game.phase() != Phase::Playing || !live.started() {
                        return;
                    }
                    // The deadline is taken under the lock, so that time passing before the sleep starts
                    // does not move it.
                    match live.clock.as_ref().and_then(GameClock::until_flag_ms) {
                        Some(ms) => (games.time.now_ms().saturating_add(ms), live.version),
                        None => return,
                    }
                };
                games.time.sleep_until(deadline).await;
                if !games.lease.held() {
                    return;
                }
                let color = {
                    let Some(entry) = games.live_entry(id) else {
                        return;
                    };
                    let mut live = entry.lock().await;
                    if live.version != version {
                        return;
                    }
                    // A vacation this node has not heard of (a notice lost) must not lose the game: the
                    // player's vacations are read again first.
                    if live.clock.as_ref().and_then(GameClock::until_flag_ms) == Some(0)
                        && let Err(e) = games.fit_vacations(&mut live).await
                    {
                        tracing::warn!(game = id, error = %e, "reading the vacations failed");
                        drop(live);
                        let again = games.time.now_ms().saturating_add(1_000);
                        games.time.sleep_until(again).await;
                        continue;
                    }
                    match live
                        .clock
                        .as_ref()
                        .map(|c| (c.until_flag_ms(), c.running()))
                    {
                        Some((Some(0), Some(color))) => color,
                        // Not yet (a paused or adjusted clock): wait again.
                        Some((Some(_), _)) => continue,
                        _ => return,
                    }
                };
                let done = games
                    .act_now(
                        id,
                        Actor::Referee(color),
                        Sent::by_server(Request::Timeout, Some(version)),
                    )
                    .await;
                match done {
                    Ok(_) => games.wake_bot(id),
                    // Another node acted first: this copy has caught up, and the timers start again from it.
                    Err(Error::StaleVersion { .. }) => games.wake(id),
                    Err(e) => {
                        tracing::warn!(game = id, error = %e, "recording a loss on time failed");
                        games.wake_bot(id);
                    }
                }
                return;
            }
        });
    }
}

/// Keeps asking for the timers' lease for node `node` every [`RENEW`], and renews it while held. On taking it,
/// brings every game up to the database (the notices of the last moments may be lost with the node that
/// died) and starts every live game's timers: a flag that fell meanwhile falls now, once.
pub fn keep_lease(games: Arc<Games>, store: Arc<dyn SiteStore>, node: u64) -> JoinHandle<()> {
    tokio::spawn(async move {
        let ttl_ms = u64::try_from(TTL.as_millis()).unwrap_or(u64::MAX);
        let mut every = tokio::time::interval(RENEW);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let asked = Instant::now();
            match tokio::time::timeout(RENEW, store.hold_lease(TIMERS, node, ttl_ms)).await {
                Ok(Ok(true)) => {
                    if games.lease().granted(asked + TTL) {
                        tracing::info!("this node runs the game timers now");
                        let games = Arc::clone(&games);
                        tokio::spawn(async move { take_over(&games).await });
                    }
                }
                Ok(Ok(false)) => {
                    if games.lease().lost() {
                        tracing::info!("another node runs the game timers now");
                    }
                }
                // Held until it lapses on its own: another node cannot take it sooner.
                Ok(Err(e)) => tracing::warn!(error = %e, "the timers' lease could not be renewed"),
                Err(_) => tracing::warn!("the database did not answer about the timers' lease"),
            }
        }
    })
}

/// Gives the lease up, so that another node takes it at its next ask rather than after [`TTL`].
pub async fn give_up_lease(games: &Games, store: &dyn SiteStore, node: u64) {
    games.lease().lost();
    if let Err(e) = store.release_lease(TIMERS, node).await {
        tracing::warn!(error = %e, "the timers' lease could not be given up; it lapses");
    }
}

/// This node has just taken the lease: every game up to the database, then every live game's timers.
async fn take_over(games: &Arc<Games>) {
    if let Err(e) = games.catch_up_all().await {
        tracing::warn!(error = %e, "catching up on taking the timers over failed");
    }
    // The node that stored a ranked game's ending may have died before rating it: the ratings look.
    games.lease().took_over();
    for id in games.live_ids() {
        games.wake(id);
    }
}
