//! The players' routes: `GET /api/users/{id}/games`.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use super::Players;
use crate::error::Error;
use crate::game::ranked::RatingView;
use crate::http::extract::{Page, PathId};
use crate::http::{AppState, LIST_LIMIT};

/// The players' routes, on any state that holds the players' pages and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Players>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new().route("/api/users/{id}/games", get(user_games))
}

/// A player's page: the user, their rating and its history, their record, their games in progress and a page
/// of their finished games.
async fn user_games(
    State(players): State<Arc<Players>>,
    PathId(id): PathId,
    page: Page,
) -> Result<Json<serde_json::Value>, Error> {
    let mut user = players.accounts.user(id).await?.ok_or(Error::NoUser(id))?;
    let games = players
        .games
        .player_page(id, page.before, page.read_len())
        .await?;
    let (games, next) = page.cut(games);
    // A guest is not rated; an account never rated has a new player's rating. The history is read first, so
    // that a game being rated meanwhile is never in it without its rating.
    let (rating, history) = if user.guest {
        (None, Vec::new())
    } else {
        let history: Vec<_> = players
            .rating_history(id)
            .await?
            .into_iter()
            .map(|p| json!([p.game, p.at, p.rating.rating.round() as i32]))
            .collect();
        let rating = players.rating(id).await?.unwrap_or_default();
        // The user as cached may predate a rating made on another node: shown as read now, here and after.
        user.set_rating(rating);
        players.accounts.rated(id, rating);
        (Some(RatingView::from(rating)), history)
    };
    let record = players.record(id).await?;
    players.games.refresh_live().await;
    let current = players.games.current_of(id, LIST_LIMIT);
    Ok(Json(json!({
        "user": user,
        "rating": rating,
        "rating_history": history,
        "record": record,
        "current": current,
        "games": games,
        "next": next,
    })))
}
