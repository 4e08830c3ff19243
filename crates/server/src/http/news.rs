//! A user's news: what happened in their games since they last looked.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::extract::{AppJson, Reader, SignedIn};
use crate::error::ApiError;
use crate::game::news::NewsView;

/// `GET /api/news`: the signed-in user's news.
pub(super) async fn news(
    State(app): State<AppState>,
    Reader(user): Reader,
) -> Result<Json<NewsView>, ApiError> {
    Ok(Json(app.games.news(user.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Seen {
    /// Up to when (milliseconds since 1970); now when left out.
    #[serde(default)]
    at: Option<i64>,
}

/// `POST /api/news/seen`: the signed-in user has looked at their news.
pub(super) async fn seen(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(seen): AppJson<Seen>,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.limits.action(s.user.id)?;
    let since = app.games.news_seen(s.user.id, seen.at).await?;
    Ok(Json(json!({ "since": since })))
}
