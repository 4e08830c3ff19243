//! A finished game's review by the search: asked for, then read as it progresses; and a live estimate.

use axum::Json;
use axum::extract::State;

use super::AppState;
use super::extract::{PathId, Reader, SignedIn};
use crate::error::ApiError;
use crate::game::review::ReviewView;

/// `GET /api/games/{id}/review`: the review as it stands (`none` until asked for).
pub(super) async fn review(
    State(app): State<AppState>,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, ApiError> {
    Ok(Json(app.games.review_of(id).await?))
}

/// `POST /api/games/{id}/review`: asks for the review of a finished game (signed in).
pub(super) async fn ask(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, ApiError> {
    app.limits.action(s.user.id)?;
    Ok(Json(app.games.ask_review(id).await?))
}

/// `GET /api/games/{id}/estimate`: the search's estimate of the position now (signed in; a player only once the
/// game is over).
pub(super) async fn estimate(
    State(app): State<AppState>,
    Reader(user): Reader,
    PathId(id): PathId,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.limits.action(user.id)?;
    Ok(Json(app.games.estimate(id, user.id).await?))
}
