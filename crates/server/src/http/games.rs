//! Tables and games: creating, looking, joining, and every game action over HTTP.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::json;
use tesuji_rules::{Color, Point};

use super::extract::{AppJson, PathId, SignedIn};
use super::{App, AppState};
use crate::auth;
use crate::error::ApiError;
use crate::game::action::parse_move;
use crate::game::{Actor, LiveGame, NewTable, Opponent, Request};

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
}

pub(super) async fn create_game(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    AppJson(req): AppJson<CreateGame>,
) -> Result<Response, ApiError> {
    app.limits.action(s.user.id)?;
    let color = match req.color.as_deref().map(str::trim) {
        None | Some("random") => None,
        Some(c) => Some(c.parse::<Color>().map_err(|_| {
            ApiError::BadRequest(format!(
                "color must be \"black\", \"white\" or \"random\", not {c:?}"
            ))
        })?),
    };
    let opponent = match req.opponent.as_deref().map(str::trim) {
        None | Some("anyone") => Opponent::Anyone,
        Some("invite") => Opponent::Invite,
        Some("bot") => Opponent::Bot(req.bot.unwrap_or_else(|| "mcts-2".to_owned())),
        Some(o) => {
            return Err(ApiError::BadRequest(format!(
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
) -> Result<Response, ApiError> {
    let entry = app.games.get(id).await?;
    // Anyone may look; a seated player who looks is at the board. A session that cannot be read (a store
    // error) only costs that sign of presence, never the answer.
    let user = app.accounts.session(&headers).await.ok().flatten();
    let (state, watch) = {
        let mut live = entry.lock().await;
        let watch = user.is_some_and(|s| live.polled(s.user.id));
        (live.state(), watch)
    };
    if watch {
        app.games.watch_grace(state.id);
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
) -> Result<Response, ApiError> {
    app.limits.action(s.user.id)?;
    let state = app.games.join(id, &s.user, req.invite.as_deref()).await?;
    Ok(Json(state).into_response())
}

/// The body of every game action: what to do, and the version it was decided at.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActionBody {
    #[serde(default, rename = "move")]
    pub(super) mv: Option<String>,
    #[serde(default)]
    pub(super) point: Option<String>,
    /// Accepted for clients of the first API; must match the seat when given.
    #[serde(default)]
    pub(super) color: Option<String>,
    #[serde(default)]
    pub(super) version: Option<u64>,
    /// The client's measured network lag, credited against its clock up to a cap.
    #[serde(default)]
    pub(super) lag_ms: Option<u64>,
}

#[derive(Clone, Copy)]
pub(super) enum ActionKind {
    Play,
    Resign,
    Dead,
    Accept,
    Dispute,
    Claim,
}

/// Turns an action's fields into a request for game `live`'s board.
pub(super) fn request_of(
    kind: ActionKind,
    body: &ActionBody,
    live: &LiveGame,
) -> Result<Request, ApiError> {
    let rules = live.game.rules();
    match kind {
        ActionKind::Play => {
            let text = body
                .mv
                .as_deref()
                .ok_or_else(|| ApiError::BadRequest("the field \"move\" is missing".into()))?;
            parse_move(text, rules).map(Request::Play).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "move must be \"pass\" or a point such as \"D4\" on the {} board, not {text:?}",
                    rules.size
                ))
            })
        }
        ActionKind::Dead => {
            let text = body
                .point
                .as_deref()
                .ok_or_else(|| ApiError::BadRequest("the field \"point\" is missing".into()))?;
            Point::from_gtp(text, rules.size)
                .map(Request::Dead)
                .ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "point must be a point such as \"D4\" on the {} board, not {text:?}",
                        rules.size
                    ))
                })
        }
        ActionKind::Resign => Ok(Request::Resign),
        ActionKind::Accept => Ok(Request::Accept),
        ActionKind::Dispute => Ok(Request::Dispute),
        ActionKind::Claim => Ok(Request::Claim),
    }
}

/// Runs one action for a signed-in user (HTTP and WebSocket alike).
pub(super) async fn perform(
    app: &App,
    id: i64,
    user: &auth::User,
    kind: ActionKind,
    body: ActionBody,
) -> Result<crate::game::GameState, ApiError> {
    app.limits.action(user.id)?;
    let request = {
        let entry = app.games.get(id).await?;
        let live = entry.lock().await;
        if let Some(c) = &body.color {
            let claimed: Color = c.parse::<Color>().map_err(|_| {
                ApiError::BadRequest(format!("color must be \"black\" or \"white\", not {c:?}"))
            })?;
            if live.seat_of(Actor::User(user.id)) != Some(claimed) {
                return Err(ApiError::NotSeated);
            }
        }
        request_of(kind, &body, &live)?
    };
    app.games
        .act(
            id,
            Actor::User(user.id),
            request,
            body.version,
            body.lag_ms.unwrap_or(0),
        )
        .await
}

/// The route of one game action: every action reads the same body and goes through [`perform`].
pub(super) fn action_route(kind: ActionKind) -> axum::routing::MethodRouter<AppState> {
    post(
        move |State(app): State<AppState>,
              PathId(id): PathId,
              SignedIn(s): SignedIn,
              AppJson(body): AppJson<ActionBody>| async move {
            Ok::<_, ApiError>(Json(perform(&app, id, &s.user, kind, body).await?))
        },
    )
}
