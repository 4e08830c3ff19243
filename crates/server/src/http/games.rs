//! Tables and games: creating, looking, joining, and every game action over HTTP.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::json;
use tesuji_rules::{Color, Size};

use super::extract::{AppJson, PathId, SignedIn};
use super::wire::ActionMessage;
use super::{App, AppState};
use crate::auth;
use crate::error::Error;
use crate::game::{Actor, GameState, NewTable, Opponent};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateGame {
    rules: String,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    bot: Option<String>,
    /// A time control spec (`fischer:5m+10s`, `byoyomi:10m+5x30s`, a preset); none: untimed.
    #[serde(default)]
    time: Option<String>,
    /// Whether the game changes the players' ratings (accounts only; never against the computer).
    #[serde(default)]
    ranked: bool,
    /// Whether a player may take back a move with the opponent's consent (default: yes; never against the
    /// computer).
    #[serde(default)]
    undo: Option<bool>,
}

pub(super) async fn create_game(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(req): AppJson<CreateGame>,
) -> Result<Response, Error> {
    app.limits.action(s.user.id)?;
    let color = match req.color.as_deref().map(str::trim) {
        None | Some("random") => None,
        Some(c) => Some(c.parse::<Color>().map_err(|_| {
            Error::BadRequest(format!(
                "color must be \"black\", \"white\" or \"random\", not {c:?}"
            ))
        })?),
    };
    let opponent = match req.opponent.as_deref().map(str::trim) {
        None | Some("anyone") => Opponent::Anyone,
        Some("invite") => Opponent::Invite,
        Some("bot") => Opponent::Bot(req.bot.unwrap_or_else(|| "mcts-2".to_owned())),
        Some(o) => {
            return Err(Error::BadRequest(format!(
                "opponent must be \"anyone\", \"invite\" or \"bot\", not {o:?}"
            )));
        }
    };
    let (state, invite) = app
        .games
        .create(
            &s.user,
            NewTable {
                rules: req.rules,
                color,
                opponent,
                time: req.time,
                ranked: req.ranked,
                undo: req.undo.unwrap_or(true),
                rematch_of: None,
            },
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": state.id, "invite": invite, "state": state })),
    )
        .into_response())
}

pub(super) async fn get_game(
    State(app): State<AppState>,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<Response, Error> {
    let entry = app.games.look(id).await?;
    // Anyone may look; a seated player who looks is at the board. A session that cannot be read (a store
    // error) only costs that sign of presence, never the answer.
    let user = app.accounts.session(&headers).await.ok().flatten();
    let viewer = user.map(|s| s.user.id);
    let (state, watch, seated) = {
        let mut live = entry.lock().await;
        let watch = viewer.is_some_and(|u| live.polled(u));
        let seated = viewer.filter(|&u| live.seat_of(crate::game::Actor::User(u)).is_some());
        (live.state_for(viewer), watch, seated)
    };
    if watch {
        app.games.watch_grace(state.id);
    }
    if let Some(u) = seated
        && state.status != crate::game::Status::Over
    {
        app.games.looked(state.id, u);
    }
    Ok(Json(state).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Join {
    #[serde(default)]
    invite: Option<String>,
}

pub(super) async fn join(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
    AppJson(req): AppJson<Join>,
) -> Result<Response, Error> {
    app.limits.action(s.user.id)?;
    let state = app.games.join(id, &s.user, req.invite.as_deref()).await?;
    Ok(Json(state).into_response())
}

/// `POST /api/games/{id}/abort`: a player of a game nobody has moved in ends it without a result.
pub(super) async fn abort(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(s.user.id)?;
    app.games.abort(id, &s.user).await?;
    Ok(Json(json!({ "aborted": id })))
}

/// `POST /api/games/{id}/cancel`: the creator of a table nobody has joined takes it down.
pub(super) async fn cancel(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(s.user.id)?;
    app.games.cancel(id, &s.user).await?;
    Ok(Json(json!({ "cancelled": id })))
}

/// Runs one action for a signed-in user (HTTP and WebSocket alike), read against the board of game `id`: of
/// `size`, when the caller knows it (a socket, from its game's first state), or else as the game says.
pub(super) async fn perform(
    app: &App,
    id: i64,
    size: Option<Size>,
    user: &auth::User,
    message: ActionMessage,
) -> Result<GameState, Error> {
    app.limits.action(user.id)?;
    let size = match size {
        Some(size) => size,
        None => app.games.size_of(id).await?,
    };
    app.games
        .act(id, Actor::User(user.id), message.sent(size)?)
        .await
}

/// `POST /api/games/{id}/actions`: any action, in the form the socket takes (`{"type": "play", "move": "D4"}`).
pub(super) async fn act(
    State(app): State<AppState>,
    PathId(id): PathId,
    SignedIn(s): SignedIn,
    AppJson(message): AppJson<ActionMessage>,
) -> Result<Json<GameState>, Error> {
    Ok(Json(perform(&app, id, None, &s.user, message).await?))
}

/// The route of one kind of action named by its path (`/moves`, `/resign`...): the body is the action's fields
/// without its `type`, which the path gives.
pub(super) fn action_route(kind: &'static str) -> axum::routing::MethodRouter<AppState> {
    post(
        move |State(app): State<AppState>,
              PathId(id): PathId,
              SignedIn(s): SignedIn,
              AppJson(mut fields): AppJson<serde_json::Map<String, serde_json::Value>>| async move {
            if fields.contains_key("type") {
                return Err(Error::BadRequest(format!(
                    "the path names the action: leave out \"type\", or send it to /api/games/{id}/actions"
                )));
            }
            fields.insert("type".to_owned(), kind.into());
            let message: ActionMessage = serde_json::from_value(fields.into())
                .map_err(|e| Error::BadRequest(format!("malformed action: {e}")))?;
            Ok::<_, Error>(Json(perform(&app, id, None, &s.user, message).await?))
        },
    )
}
