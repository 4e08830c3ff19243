//! A user's vacations: days away that stop their correspondence clocks.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;

use super::AppState;
use super::extract::{AppJson, Reader, SignedIn};
use crate::error::ApiError;
use crate::game::vacation::VacationView;

/// `GET /api/vacation`: the signed-in user's allowance and vacation in progress.
pub(super) async fn vacation(
    State(app): State<AppState>,
    Reader(user): Reader,
) -> Result<Json<VacationView>, ApiError> {
    Ok(Json(app.games.vacation(user.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Take {
    /// Whole days from now.
    days: u32,
}

/// `POST /api/vacation`: the signed-in user goes on vacation from now.
pub(super) async fn take(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(take): AppJson<Take>,
) -> Result<Json<VacationView>, ApiError> {
    app.limits.action(s.user.id)?;
    Ok(Json(app.games.take_vacation(s.user.id, take.days).await?))
}

/// `POST /api/vacation/end`: the signed-in user comes back now.
pub(super) async fn end(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
) -> Result<Json<VacationView>, ApiError> {
    app.limits.action(s.user.id)?;
    Ok(Json(app.games.end_vacation(s.user.id).await?))
}
