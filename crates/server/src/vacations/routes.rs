//! The vacations' routes: `GET /api/vacation`, `POST /api/vacation`, `POST /api/vacation/end`.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use super::{VacationView, Vacations};
use crate::error::Error;
use crate::http::AppState;
use crate::http::extract::{AppJson, Reader, SignedIn};

/// The vacations' routes, on any state that holds the vacations and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Vacations>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new()
        .route("/api/vacation", get(vacation).post(take))
        .route("/api/vacation/end", post(end))
}

/// `GET /api/vacation`: the signed-in user's allowance and vacation in progress.
async fn vacation(
    State(vacations): State<Arc<Vacations>>,
    Reader(user): Reader,
) -> Result<Json<VacationView>, Error> {
    Ok(Json(vacations.of(user.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Take {
    /// Whole days from now.
    days: u32,
}

/// `POST /api/vacation`: the signed-in user goes on vacation from now.
async fn take(
    State(app): State<AppState>,
    State(vacations): State<Arc<Vacations>>,
    SignedIn(s): SignedIn,
    AppJson(take): AppJson<Take>,
) -> Result<Json<VacationView>, Error> {
    app.limits.action(s.user.id)?;
    Ok(Json(vacations.take(s.user.id, take.days).await?))
}

/// `POST /api/vacation/end`: the signed-in user comes back now.
async fn end(
    State(app): State<AppState>,
    State(vacations): State<Arc<Vacations>>,
    SignedIn(s): SignedIn,
) -> Result<Json<VacationView>, Error> {
    app.limits.action(s.user.id)?;
    Ok(Json(vacations.end(s.user.id).await?))
}
