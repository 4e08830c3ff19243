//! Automatch: seeking a game, the seeks waiting, withdrawing one.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use super::extract::{AppJson, PathId, SignedIn};
use crate::error::ApiError;
use crate::game::seek::{SeekOutcome, SeekRequest};

/// `POST /api/seeks`: the signed-in user seeks a game; 200 with the game when a compatible seek was waiting,
/// 201 with the seek when it waits.
pub(super) async fn seek(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(request): AppJson<SeekRequest>,
) -> Result<Response, ApiError> {
    app.limits.action(s.user.id)?;
    Ok(match app.games.seek(&s.user, request).await? {
        SeekOutcome::Matched(state) => {
            (StatusCode::OK, Json(json!({ "game": state }))).into_response()
        }
        SeekOutcome::Waiting(seek) => {
            (StatusCode::CREATED, Json(json!({ "seek": seek }))).into_response()
        }
    })
}

/// `GET /api/seeks`: the seeks waiting, and the viewer's own (a matched one with its game).
pub(super) async fn seeks(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Json<serde_json::Value> {
    // What the store has now, also when another node's notice is still on its way.
    if let Err(e) = app.games.refresh_seeks().await {
        tracing::warn!(error = %e, "reading the seeks failed");
    }
    let viewer = app.accounts.session(&headers).await.ok().flatten();
    let (seeks, mine) = app.games.seek_lists(viewer.map(|s| s.user.id));
    Json(json!({ "seeks": seeks, "mine": mine }))
}

/// `POST /api/seeks/{id}/cancel`: the seeker withdraws a waiting seek.
pub(super) async fn cancel(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.limits.action(s.user.id)?;
    app.games.cancel_seek(s.user.id, id).await?;
    Ok(Json(json!({ "cancelled": id })))
}
