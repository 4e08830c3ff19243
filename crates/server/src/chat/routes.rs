//! The chat's routes: a game's chat (`GET`, `POST /api/games/{id}/chat`) and whom a user mutes
//! (`GET`, `POST /api/mutes`).

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::{Chat, ChatView, checked_text};
use crate::error::Error;
use crate::http::AppState;
use crate::http::extract::{AppJson, PathId, Reader, SignedIn};

/// The chat's routes, on any state that holds the chat and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Chat>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new()
        .route("/api/games/{id}/chat", get(messages).post(say))
        .route("/api/mutes", get(mutes).post(mute))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Say {
    text: String,
}

/// `POST /api/games/{id}/chat`: a signed-in user says something at a game (a player to everyone, anyone else
/// among the spectators).
async fn say(
    State(app): State<AppState>,
    State(chat): State<Arc<Chat>>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
    AppJson(say): AppJson<Say>,
) -> Result<(StatusCode, Json<ChatView>), Error> {
    // A refused text costs no place in the flood's bucket.
    checked_text(&say.text)?;
    app.limits.chat(s.user.id)?;
    Ok((
        StatusCode::CREATED,
        Json(chat.say(id, &s.user, &say.text).await?),
    ))
}

/// `GET /api/games/{id}/chat`: the game's chat as its viewer may see it.
async fn messages(
    State(app): State<AppState>,
    State(chat): State<Arc<Chat>>,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, Error> {
    let viewer = app.accounts.session(&headers).await?.map(|s| s.user.id);
    let messages = chat.of_game(id, viewer).await?;
    Ok(Json(json!({ "messages": messages })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Mute {
    user: i64,
    muted: bool,
}

/// `GET /api/mutes`: whom the signed-in user mutes.
async fn mutes(
    State(chat): State<Arc<Chat>>,
    Reader(user): Reader,
) -> Result<Json<serde_json::Value>, Error> {
    let muted = chat.muted_by(user.id).await?;
    Ok(Json(json!({ "muted": muted })))
}

/// `POST /api/mutes`: the signed-in user mutes a user, or no longer does.
async fn mute(
    State(app): State<AppState>,
    State(chat): State<Arc<Chat>>,
    SignedIn(s): SignedIn,
    AppJson(mute): AppJson<Mute>,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(s.user.id)?;
    let muted = chat.mute(s.user.id, mute.user, mute.muted).await?;
    Ok(Json(json!({ "muted": muted })))
}
