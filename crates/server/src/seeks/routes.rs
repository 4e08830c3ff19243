//! Automatch's routes: seeking a game (`POST /api/seeks`), the seeks waiting (`GET /api/seeks`), withdrawing
//! one (`POST /api/seeks/{id}/cancel`).

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::{SeekOutcome, SeekRequest, Seeks};
use crate::error::Error;
use crate::http::AppState;
use crate::http::extract::{AppJson, PathId, SignedIn};

/// Automatch's routes, on any state that holds the seeks and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Seeks>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new()
        .route("/api/seeks", get(waiting).post(seek))
        .route("/api/seeks/{id}/cancel", post(cancel))
}

/// `POST /api/seeks`: the signed-in user seeks a game; 200 with the game when a compatible seek was waiting,
/// 201 with the seek when it waits.
async fn seek(
    State(app): State<AppState>,
    State(seeks): State<Arc<Seeks>>,
    SignedIn(s): SignedIn,
    AppJson(request): AppJson<SeekRequest>,
) -> Result<Response, Error> {
    app.limits.action(s.user.id)?;
    Ok(match seeks.seek(&s.user, request).await? {
        SeekOutcome::Matched(state) => {
            (StatusCode::OK, Json(json!({ "game": state }))).into_response()
        }
        SeekOutcome::Waiting(seek) => {
            (StatusCode::CREATED, Json(json!({ "seek": seek }))).into_response()
        }
    })
}

/// `GET /api/seeks`: the seeks waiting, and the viewer's own (a matched one with its game).
async fn waiting(
    State(app): State<AppState>,
    State(seeks): State<Arc<Seeks>>,
    headers: HeaderMap,
) -> Json<serde_json::Value> {
    // What the store has now, also when another node's notice is still on its way.
    if let Err(e) = seeks.refresh().await {
        tracing::warn!(error = %e, "reading the seeks failed");
    }
    let viewer = app.accounts.session(&headers).await.ok().flatten();
    let (waiting, mine) = seeks.lists(viewer.map(|s| s.user.id));
    Json(json!({ "seeks": waiting, "mine": mine }))
}

/// `POST /api/seeks/{id}/cancel`: the seeker withdraws a waiting seek.
async fn cancel(
    State(app): State<AppState>,
    State(seeks): State<Arc<Seeks>>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(s.user.id)?;
    seeks.cancel(s.user.id, id).await?;
    Ok(Json(json!({ "cancelled": id })))
}
