//! A game's chat and whom a user mutes.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::extract::{AppJson, PathId, Reader, SignedIn};
use crate::error::ApiError;
use crate::game::chat::ChatView;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Say {
    text: String,
}

/// `POST /api/games/{id}/chat`: a signed-in user says something at a game (a player to everyone, anyone else
/// among the spectators).
pub(super) async fn say(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
    AppJson(say): AppJson<Say>,
) -> Result<(StatusCode, Json<ChatView>), ApiError> {
    // A refused text costs no place in the flood's bucket.
    crate::game::chat::checked_text(&say.text)?;
    app.limits.chat(s.user.id)?;
    Ok((
        StatusCode::CREATED,
        Json(app.games.say(id, &s.user, &say.text).await?),
    ))
}

/// `GET /api/games/{id}/chat`: the game's chat as its viewer may see it.
pub(super) async fn chat(
    State(app): State<AppState>,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let viewer = app.accounts.session(&headers).await?.map(|s| s.user.id);
    let messages = app.games.chat_for(id, viewer).await?;
    Ok(Json(json!({ "messages": messages })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Mute {
    user: i64,
    muted: bool,
}

/// `GET /api/mutes`: whom the signed-in user mutes.
pub(super) async fn mutes(
    State(app): State<AppState>,
    Reader(user): Reader,
) -> Result<Json<serde_json::Value>, ApiError> {
    let mut muted: Vec<i64> = app.games.muted_by(user.id).await?.iter().copied().collect();
    muted.sort_unstable();
    Ok(Json(json!({ "muted": muted })))
}

/// `POST /api/mutes`: the signed-in user mutes a user, or no longer does.
pub(super) async fn mute(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(mute): AppJson<Mute>,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.limits.action(s.user.id)?;
    let muted = app.games.mute(s.user.id, mute.user, mute.muted).await?;
    Ok(Json(json!({ "muted": muted })))
}
