//! What happened in a user's games since they last looked: the other side's actions (moves, passes, marks,
//! resignations, requests to take back a move, the server's own), grouped by game, the newest first.
//! A feature of its own: it reads the store's news area and the accounts, and no live game.

pub mod routes;

use std::sync::Arc;

use serde::Serialize;

use crate::auth::Accounts;
use crate::clocks::TimeSource;
use crate::error::Error;
use crate::store::{NewsRow, NewsStore};

/// How far back the news of a user who never looked go.
const NEWS_FIRST_MS: i64 = 7 * 86_400_000;

/// The most actions read for one answer, and shown per game.
const NEWS_READ: usize = 500;
const NEWS_PER_GAME: usize = 10;

/// One action in the news.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NewsAction {
    pub number: i64,
    pub color: String,
    #[serde(rename = "move")]
    pub text: String,
    /// Milliseconds since 1970.
    pub at: i64,
}

/// One game's news.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NewsGame {
    pub game: i64,
    pub rules: String,
    pub black: Option<String>,
    pub white: Option<String>,
    /// `playing`, `marking` or `over`.
    pub status: String,
    pub result: Option<String>,
    /// The reader's colour in the game (`black` or `white`), so that the result can be told from their side.
    pub you: Option<&'static str>,
    /// How many actions the others took since (of those read).
    pub count: usize,
    /// The last of them, oldest first.
    pub actions: Vec<NewsAction>,
}

/// A user's news (`GET /api/news`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NewsView {
    /// Since when (milliseconds since 1970): when they last looked, else a week ago.
    pub since: i64,
    /// The games, the one with the newest action first.
    pub games: Vec<NewsGame>,
}

/// The colour of the player named `me` between `black` and `white`, if either.
fn side_of(me: Option<&str>, black: Option<&str>, white: Option<&str>) -> Option<&'static str> {
    let me = me?;
    if black == Some(me) {
        Some("black")
    } else if white == Some(me) {
        Some("white")
    } else {
        None
    }
}

/// Groups actions (newest first) by game, the game with the newest action first; `me` is the reader's name.
pub fn group(rows: Vec<NewsRow>, me: Option<&str>) -> Vec<NewsGame> {
    let mut games: Vec<NewsGame> = Vec::new();
    for row in rows {
        let action = NewsAction {
            number: row.number,
            color: row.color,
            text: row.text,
            at: row.at_ms,
        };
        let game = match games.iter_mut().position(|g| g.game == row.game) {
            Some(k) => &mut games[k],
            None => {
                let you = side_of(me, row.black.as_deref(), row.white.as_deref());
                games.push(NewsGame {
                    you,
                    game: row.game,
                    rules: row.rules,
                    black: row.black,
                    white: row.white,
                    status: row.state,
                    result: row.result,
                    count: 0,
                    actions: Vec::new(),
                });
                let last = games.len() - 1;
                &mut games[last]
            }
        };
        game.count += 1;
        if game.actions.len() < NEWS_PER_GAME {
            game.actions.push(action);
        }
    }
    for game in &mut games {
        game.actions.reverse();
    }
    games
}

/// The users' news: built with the store's news area, the accounts (to name the reader) and the time.
pub struct News {
    store: Arc<dyn NewsStore>,
    accounts: Arc<Accounts>,
    time: TimeSource,
}

impl News {
    pub fn new(store: Arc<dyn NewsStore>, accounts: Arc<Accounts>, time: TimeSource) -> News {
        News {
            store,
            accounts,
            time,
        }
    }

    /// User `user`'s news since they last looked.
    pub async fn of(&self, user: i64) -> Result<NewsView, Error> {
        let since = self.since(user).await?;
        let rows = self.store.news(user, since, NEWS_READ).await?;
        let me = self.accounts.user(user).await?.map(|u| u.name);
        Ok(NewsView {
            since,
            games: group(rows, me.as_deref()),
        })
    }

    /// User `user` has looked at their news up to `at` (milliseconds since 1970; now when not given, and never
    /// later than now). Answers since when their news now run.
    pub async fn seen(&self, user: i64, at: Option<i64>) -> Result<i64, Error> {
        let now = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        let at = at.unwrap_or(now).clamp(0, now);
        self.store.set_news_seen(user, at).await?;
        self.since(user).await
    }

    /// Since when user `user`'s news run.
    async fn since(&self, user: i64) -> Result<i64, Error> {
        let seen = self
            .store
            .news_since(user)
            .await?
            .ok_or(Error::NoUser(user))?;
        let now = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        Ok(seen.unwrap_or(now.saturating_sub(NEWS_FIRST_MS).max(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(game: i64, number: i64, at_ms: i64) -> NewsRow {
        NewsRow {
            game,
            rules: "chinese:size=9".into(),
            state: "playing".into(),
            result: None,
            black: Some("ann".into()),
            white: Some("bob".into()),
            number,
            color: "white".into(),
            text: format!("m{number}"),
            at_ms,
        }
    }

    #[test]
    fn news_come_by_game_the_newest_first_each_game_oldest_first() {
        let mut rows = vec![row(2, 6, 90), row(1, 4, 80), row(2, 4, 70)];
        rows.extend((0..12).map(|k| row(3, 40 - k, 60 - k)));
        let games = group(rows, Some("bob"));
        assert_eq!(
            games.iter().map(|g| (g.game, g.count)).collect::<Vec<_>>(),
            [(2, 2), (1, 1), (3, 12)]
        );
        let numbers = |g: &NewsGame| g.actions.iter().map(|a| a.number).collect::<Vec<_>>();
        assert_eq!(numbers(&games[0]), [4, 6]);
        // Only the last ten of a game's actions are shown, all counted.
        assert_eq!(numbers(&games[2]), (31..=40).collect::<Vec<_>>());
        // The reader's side, for the result told from it.
        assert!(games.iter().all(|g| g.you == Some("white")));
        let ann = group(vec![row(1, 1, 1)], Some("ann"));
        assert_eq!(ann[0].you, Some("black"));
        assert_eq!(group(vec![row(1, 1, 1)], Some("cy"))[0].you, None);
    }
}
