//! Automatch: a player seeks a game (rules, board size, speed, ranked or not, the opponents' ranks they accept,
//! handicap or not); a seek that finds a compatible one waiting makes the game at once, the lower rated player
//! Black, with handicap stones for the rating difference when both seekers allow it. Seeks live in the store,
//! which pairs them atomically (two seekers never take one seek, across nodes too); each node keeps the recent
//! ones in memory for the lobby, read again after each change here or on another node.
//!
//! A feature of its own: [`Seeks`] is built with the core's `Games` (which makes a matched pair's game and
//! tells of games aborted), the accounts, the store's seeks and ratings areas and the time; it adds its lists
//! to the lobby and cancels a leaving account's seeks through the core's hooks (`crate::http::hooks`).

pub mod routes;

use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use tesuji_rating::{POINTS_PER_RANK, Rank};
use tesuji_rules::{Color, Rules};

use crate::auth::{Accounts, User};
use crate::clocks::TimeSource;
use crate::error::Error;
use crate::game::ranked::{MAX_RANKED_ADVANTAGE, setup_of};
use crate::game::{GameState, Games, NewTable, Opponent};
use crate::http::hooks::{AccountLeaving, LobbyLists};
use crate::relay::{Relay, Relayed};
use crate::store::{NewSeek, RatingStore, SeekStore, Sought, StoreError, StoredSeek};

/// How long a seek waits before it lapses (the seeker seeks again).
pub const SEEK_LIFE_MS: i64 = 30 * 60_000;

/// The speeds a seek names: each the time control preset of the same name.
pub const SPEEDS: [&str; 4] = ["blitz", "rapid", "classical", "correspondence"];

/// The rules presets a seek may name.
pub const SEEK_RULES: [&str; 4] = ["japanese", "chinese", "aga", "korean"];

/// The rating of a player never rated, for the ranges of seeks.
const NEW_RATING: f64 = 1500.0;

/// The most handicap stones a seek's game gets.
const MAX_HANDICAP: f64 = 9.0;

/// The seeks changed on the node that tells: the others read them again.
#[derive(Serialize, Deserialize)]
struct SeeksChanged {}

impl Relayed for SeeksChanged {
    const KIND: &'static str = "seeks";
}

/// A seek as asked for (`POST /api/seeks`).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekRequest {
    #[serde(default = "default_rules")]
    pub rules: String,
    pub size: u8,
    pub speed: String,
    #[serde(default)]
    pub ranked: bool,
    /// The weakest and strongest ranks of the opponents accepted (`15k`, `2d`).
    #[serde(default)]
    pub min_rank: Option<String>,
    #[serde(default)]
    pub max_rank: Option<String>,
    /// Whether handicap stones may be given for the rating difference (default yes).
    #[serde(default = "yes")]
    pub handicap: bool,
}

fn default_rules() -> String {
    "japanese".to_owned()
}

fn yes() -> bool {
    true
}

/// A seek as the lobby shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeekView {
    pub id: i64,
    pub user: SeekUser,
    pub rules: String,
    pub size: i64,
    pub speed: String,
    pub ranked: bool,
    pub min_rank: Option<String>,
    pub max_rank: Option<String>,
    pub handicap: bool,
    /// Milliseconds since 1970.
    pub at: i64,
    /// The game it made, once matched (only in the seeker's own list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<i64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeekUser {
    pub id: i64,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<String>,
}

impl From<&StoredSeek> for SeekView {
    fn from(s: &StoredSeek) -> SeekView {
        let rank = |r: Option<f64>| r.map(|r| Rank::of(r).to_string());
        SeekView {
            id: s.id,
            user: SeekUser {
                id: s.user,
                name: s.name.clone(),
                rank: (!s.guest).then(|| Rank::of(s.rating.unwrap_or(NEW_RATING)).to_string()),
            },
            rules: s.rules.clone(),
            size: s.size,
            speed: s.speed.clone(),
            ranked: s.ranked,
            min_rank: rank(s.min_rating),
            // The range's top is the strongest rank's floor.
            max_rank: rank(s.max_rating.map(|r| r - POINTS_PER_RANK + 1.0)),
            handicap: s.handicap,
            at: s.at_ms,
            game: s.game,
        }
    }
}

/// What a seek did: it waits, or it made a game.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeekOutcome {
    Waiting(SeekView),
    Matched(Box<GameState>),
}

/// The handicap stones and komi (half-points, `None`: the rules' own) of a game under `preset` on a `size`
/// board between ratings `weaker` and `stronger` (the weaker plays Black): of the standard settings a ranked
/// game takes (the rules' komi; no komi, 0.5; 2 to 9 stones with komi 0.5), the one giving Black the largest
/// advantage (see `tesuji_rating::Setup`) not above the rank difference, rounded. On 19×19 that is a stone a
/// rank from two ranks on and no komi for one; on smaller boards, where a stone is worth more, fewer.
pub fn handicap_for(preset: &str, size: u8, weaker: f64, stronger: f64) -> (u8, Option<i32>) {
    let ranks = ((stronger - weaker) / POINTS_PER_RANK).round();
    let options = [(0, None), (0, Some(1))]
        .into_iter()
        .chain((2..=MAX_HANDICAP as u8).map(|n| (n, Some(1))));
    let mut best = (0, None);
    for (stones, komi) in options {
        let advantage = game_rules(preset, size, stones, komi)
            .parse::<Rules>()
            .map_or(f64::INFINITY, |r| setup_of(&r).advantage_ranks());
        if advantage <= ranks && advantage <= MAX_RANKED_ADVANTAGE {
            best = (stones, komi);
        }
    }
    best
}

/// The rules spec of an automatch game.
fn game_rules(preset: &str, size: u8, stones: u8, komi: Option<i32>) -> String {
    let mut rules = format!("{preset}:size={size}");
    if stones > 0 {
        rules.push_str(&format!(",handicap={stones}"));
    }
    if let Some(komi) = komi {
        rules.push_str(&format!(",komi={}", f64::from(komi) / 2.0));
    }
    rules
}

/// Reads a rank (`15k`, `3d`) as a rating bound: its floor, or its top for the strongest accepted.
fn rank_bound(text: &Option<String>, top: bool) -> Result<Option<f64>, Error> {
    text.as_deref()
        .map(|t| {
            let rank = Rank::from_str(t.trim()).map_err(|e| Error::BadRequest(e.to_string()))?;
            Ok(if top {
                rank.floor() + POINTS_PER_RANK - 1.0
            } else {
                rank.floor()
            })
        })
        .transpose()
}

/// Automatch's seeks.
pub struct Seeks {
    games: Arc<Games>,
    accounts: Arc<Accounts>,
    store: Arc<dyn SeekStore>,
    ratings: Arc<dyn RatingStore>,
    relay: Arc<Relay>,
    time: TimeSource,
    /// Seeks one user may have waiting at once.
    per_user: usize,
    /// The seeks of the last half hour, as the store last had them.
    recent: RwLock<Arc<Vec<StoredSeek>>>,
}

impl Seeks {
    /// The seeks as the store has them, read again when another node changes them or a game is aborted here.
    pub async fn start(
        games: Arc<Games>,
        accounts: Arc<Accounts>,
        store: Arc<dyn SeekStore>,
        ratings: Arc<dyn RatingStore>,
        time: TimeSource,
        per_user: usize,
    ) -> Result<Arc<Seeks>, StoreError> {
        let since = i64::try_from(time.wall_ms()).unwrap_or(i64::MAX) - SEEK_LIFE_MS;
        let recent = store.seeks(since).await?;
        let seeks = Arc::new(Seeks {
            relay: Arc::clone(games.relay()),
            games,
            accounts,
            store,
            ratings,
            time,
            per_user,
            recent: RwLock::new(Arc::new(recent)),
        });
        seeks
            .relay
            .on(&seeks, |seeks, _, _: SeeksChanged| async move {
                if let Err(e) = seeks.refresh().await {
                    tracing::warn!(error = %e, "reading the seeks failed");
                }
            });
        // A game made by automatch takes its taken seek with it when aborted: the seekers' lists change.
        let mut aborts = seeks.games.aborts();
        let held = Arc::downgrade(&seeks);
        tokio::spawn(async move {
            while let Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) =
                aborts.recv().await
            {
                let Some(seeks) = held.upgrade() else {
                    return;
                };
                seeks.changed().await;
            }
        });
        Ok(seeks)
    }

    /// User `user` seeks a game: answers the game made with a compatible seeker, or the seek that now waits.
    pub async fn seek(&self, user: &User, request: SeekRequest) -> Result<SeekOutcome, Error> {
        if !SPEEDS.contains(&request.speed.as_str()) {
            return Err(Error::BadRequest(format!(
                "speed must be one of {}, not {:?}",
                SPEEDS.join(", "),
                request.speed
            )));
        }
        if !SEEK_RULES.contains(&request.rules.as_str()) {
            return Err(Error::BadRequest(format!(
                "rules must be one of {}, not {:?}",
                SEEK_RULES.join(", "),
                request.rules
            )));
        }
        if ![9, 13, 19].contains(&request.size) {
            return Err(Error::BadRequest(format!(
                "size must be 9, 13 or 19, not {}",
                request.size
            )));
        }
        if request.ranked && user.guest {
            return Err(Error::RankedNeedsAccount);
        }
        let min_rating = rank_bound(&request.min_rank, false)?;
        let max_rating = rank_bound(&request.max_rank, true)?;
        if let (Some(min), Some(max)) = (min_rating, max_rating)
            && min > max
        {
            return Err(Error::BadRequest(
                "min_rank must not be stronger than max_rank".into(),
            ));
        }
        let now = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        let rating = self
            .ratings
            .rating(user.id)
            .await?
            .map_or(NEW_RATING, |r| r.rating);
        let seek = NewSeek {
            user: user.id,
            rating,
            rules: request.rules.clone(),
            size: i64::from(request.size),
            speed: request.speed.clone(),
            ranked: request.ranked,
            min_rating,
            max_rating,
            handicap: request.handicap,
            at_ms: now,
            max_waiting: i64::try_from(self.per_user).unwrap_or(i64::MAX),
        };
        let outcome = match self.store.seek(&seek, now - SEEK_LIFE_MS).await? {
            Sought::Waiting(id) => {
                self.changed().await;
                let stored = self.cached().into_iter().find(|s| s.id == id);
                match stored {
                    Some(s) => SeekOutcome::Waiting(SeekView::from(&s)),
                    None => {
                        return Err(Error::Internal("a stored seek was not read back".into()));
                    }
                }
            }
            Sought::TooMany => {
                return Err(Error::TooManySeeks {
                    limit: self.per_user,
                });
            }
            Sought::Matched(other) => {
                let state = self.make_game(user, rating, &request, &other).await;
                self.changed().await;
                SeekOutcome::Matched(Box::new(state?))
            }
        };
        Ok(outcome)
    }

    /// The game of two matched seeks: `other`'s (taken) and `user`'s, whose rating is `rating`.
    async fn make_game(
        &self,
        user: &User,
        rating: f64,
        request: &SeekRequest,
        other: &StoredSeek,
    ) -> Result<GameState, Error> {
        let seeker = self
            .accounts
            .user(other.user)
            .await?
            .ok_or(Error::NoUser(other.user))?;
        let theirs = other.rating.unwrap_or(NEW_RATING);
        // The older seeker sits down first; the lower rated plays Black.
        let seeker_color = if theirs <= rating {
            Color::Black
        } else {
            Color::White
        };
        let (stones, komi) = if request.handicap && other.handicap {
            handicap_for(
                &request.rules,
                request.size,
                theirs.min(rating),
                theirs.max(rating),
            )
        } else {
            (0, None)
        };
        let rules = game_rules(&request.rules, request.size, stones, komi);
        let table = NewTable {
            rules,
            color: Some(seeker_color),
            opponent: Opponent::Invite,
            time: Some(request.speed.clone()),
            ranked: request.ranked,
            rematch_of: None,
            // Never in ranked blitz.
            undo: !(request.ranked && request.speed == "blitz"),
        };
        let (state, invite) = self.games.create(&seeker, table).await?;
        let state = self.games.join(state.id, user, invite.as_deref()).await?;
        self.store.seek_made(other.id, state.id).await?;
        Ok(state)
    }

    /// User `user` withdraws seek `id`.
    pub async fn cancel(&self, user: i64, id: i64) -> Result<(), Error> {
        if !self.store.cancel_seek(user, id).await? {
            return Err(Error::NoSeek(id));
        }
        self.changed().await;
        Ok(())
    }

    /// Reads the recent seeks again (after a change here or on another node, or for a look) and tells the
    /// lobby when they changed: a look that finds nothing new sends no lobby socket anything.
    pub async fn refresh(&self) -> Result<(), Error> {
        let now = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        let seeks = self.store.seeks(now - SEEK_LIFE_MS).await?;
        let changed = {
            let mut held = self.recent.write().unwrap_or_else(|e| e.into_inner());
            let changed = **held != seeks;
            if changed {
                *held = Arc::new(seeks);
            }
            changed
        };
        if changed {
            let _ = self.games.lobby.send(());
        }
        Ok(())
    }

    /// The seeks changed here: read them again, and tell the other nodes.
    async fn changed(&self) {
        if let Err(e) = self.refresh().await {
            tracing::warn!(error = %e, "reading the seeks failed");
        }
        self.relay.send(&SeeksChanged {});
    }

    fn cached(&self) -> Vec<StoredSeek> {
        self.recent
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .clone()
    }

    /// The seeks waiting now, the oldest first, for the lobby; and `viewer`'s own, matched ones with their game.
    pub fn lists(&self, viewer: Option<i64>) -> (Vec<SeekView>, Vec<SeekView>) {
        let seeks = Arc::clone(&self.recent.read().unwrap_or_else(|e| e.into_inner()));
        let since = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX) - SEEK_LIFE_MS;
        let recent = seeks.iter().filter(|s| s.at_ms >= since);
        let waiting = recent
            .clone()
            .filter(|s| !s.taken)
            .map(SeekView::from)
            .collect();
        let mine = recent
            .filter(|s| Some(s.user) == viewer)
            .map(SeekView::from)
            .collect();
        (waiting, mine)
    }
}

impl LobbyLists for Seeks {
    /// The seeks waiting (`seeks`) and the viewer's own (`my_seeks`).
    fn lobby_lists(&self, viewer: Option<i64>) -> serde_json::Map<String, serde_json::Value> {
        let (waiting, mine) = self.lists(viewer);
        let mut lists = serde_json::Map::new();
        lists.insert("seeks".into(), serde_json::json!(waiting));
        lists.insert("my_seeks".into(), serde_json::json!(mine));
        lists
    }
}

impl AccountLeaving for Seeks {
    /// Withdraws the leaving user's waiting seeks.
    fn leave(&self, user: i64) -> Pin<Box<dyn Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(async move {
            let (_, mine) = self.lists(Some(user));
            for seek in mine.iter().filter(|k| k.game.is_none()) {
                match self.cancel(user, seek.id).await {
                    Ok(()) | Err(Error::NoSeek(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handicap_follows_the_rank_difference() {
        // 19×19: a stone a rank from two ranks on, no komi for one.
        for preset in SEEK_RULES {
            let on_19 = |weaker, stronger| handicap_for(preset, 19, weaker, stronger);
            assert_eq!(on_19(1500.0, 1540.0), (0, None));
            assert_eq!(on_19(1500.0, 1600.0), (0, Some(1)));
            assert_eq!(on_19(1500.0, 1700.0), (2, Some(1)));
            assert_eq!(on_19(1500.0, 1849.0), (3, Some(1)));
            assert_eq!(on_19(100.0, 2400.0), (9, Some(1)));
        }
        // 9×9, where no komi is worth about three ranks and two stones nine: never the nine stones a tester
        // was given there.
        let on_9 = |weaker, stronger| handicap_for("japanese", 9, weaker, stronger);
        assert_eq!(on_9(1500.0, 1700.0), (0, None));
        assert_eq!(on_9(1500.0, 1900.0), (0, Some(1)));
        assert_eq!(on_9(1500.0, 2400.0), (2, Some(1)));
        assert_eq!(on_9(100.0, 2400.0), (2, Some(1)));
    }

    /// Every game automatch makes, for any two ratings, takes settings a ranked game accepts, and gives Black
    /// no more advantage than the rank difference.
    #[test]
    fn automatch_games_take_standard_settings() {
        for preset in SEEK_RULES {
            for size in [9, 13, 19] {
                for gap in (0..=2500).step_by(25) {
                    let (weaker, stronger) = (1000.0, 1000.0 + f64::from(gap));
                    let (stones, komi) = handicap_for(preset, size, weaker, stronger);
                    let rules: Rules = game_rules(preset, size, stones, komi).parse().unwrap();
                    assert_eq!(
                        crate::game::ranked::check_ranked(&rules),
                        Ok(()),
                        "{preset} {size} gap {gap}"
                    );
                    let advantage = setup_of(&rules).advantage_ranks();
                    assert!(
                        advantage <= (f64::from(gap) / POINTS_PER_RANK).round(),
                        "{rules}: {advantage}"
                    );
                }
            }
        }
    }

    #[test]
    fn ranks_bound_ratings_from_the_weakest_floor_to_the_strongest_top() {
        assert_eq!(rank_bound(&Some("6k".into()), false).unwrap(), Some(1500.0));
        assert_eq!(rank_bound(&Some("1d".into()), true).unwrap(), Some(2199.0));
        assert_eq!(rank_bound(&None, true).unwrap(), None);
        assert!(rank_bound(&Some("99q".into()), false).is_err());
    }
}
