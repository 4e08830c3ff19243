//! The rematch's route: `POST /api/games/{id}/rematch`.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::routing::post;
use axum::{Json, Router};

use super::Rematches;
use crate::error::Error;
use crate::game::GameState;
use crate::http::AppState;
use crate::http::extract::{PathId, SignedIn};

/// The rematch's routes, on any state that holds the rematches and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Rematches>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new().route("/api/games/{id}/rematch", post(offer))
}

/// `POST /api/games/{id}/rematch`: a player of a finished game offers a rematch, colours swapped, or accepts
/// the one offered.
async fn offer(
    State(app): State<AppState>,
    State(rematches): State<Arc<Rematches>>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
) -> Result<Json<GameState>, Error> {
    app.limits.action(s.user.id)?;
    Ok(Json(rematches.offer(id, &s.user).await?))
}
