//! The news' routes: `GET /api/news`, `POST /api/news/seen`.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::{News, NewsView};
use crate::error::Error;
use crate::http::AppState;
use crate::http::extract::{AppJson, Reader, SignedIn};

/// The news' routes, on any state that holds the news and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<News>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new()
        .route("/api/news", get(news))
        .route("/api/news/seen", post(seen))
}

/// `GET /api/news`: the signed-in user's news.
async fn news(
    State(news): State<Arc<News>>,
    Reader(user): Reader,
) -> Result<Json<NewsView>, Error> {
    Ok(Json(news.of(user.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Seen {
    /// Up to when (milliseconds since 1970); now when left out.
    #[serde(default)]
    at: Option<i64>,
}

/// `POST /api/news/seen`: the signed-in user has looked at their news.
async fn seen(
    State(app): State<AppState>,
    State(news): State<Arc<News>>,
    SignedIn(s): SignedIn,
    AppJson(seen): AppJson<Seen>,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(s.user.id)?;
    let since = news.seen(s.user.id, seen.at).await?;
    Ok(Json(json!({ "since": since })))
}
