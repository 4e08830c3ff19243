//! The HTTP routes: the JSON API, the WebSocket per game, and a status page.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tokio::sync::broadcast::error::RecvError;

use crate::error::ApiError;
use crate::games::{GameState, Games, Request, parse_color, parse_move};

/// Larger request bodies are refused: every request of the API is a few dozen bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// Incoming WebSocket messages larger than this close the socket.
const WS_MESSAGE_LIMIT: usize = 4 * 1024;

type AppState = Arc<Games>;

pub fn router(games: Arc<Games>) -> Router {
    Router::new()
        .route("/", get(status))
        .route("/api/games", post(create_game))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/sgf", get(sgf))
        .route("/api/games/{id}/ws", get(ws))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(games)
}

/// Reads a JSON body, turning every failure (size, syntax, fields) into our JSON error rather than axum's text.
fn json_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge
        } else {
            ApiError::BadRequest(e.body_text())
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::BadRequest(format!("malformed JSON: {e}")))
}

/// Game ids in paths: a malformed one is a 400 in our format, not axum's text.
fn game_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::BadRequest(format!("bad game id {id:?}")))
}

async fn status(State(games): State<AppState>) -> Html<String> {
    let n = games.count().await;
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tesuji</title></head>\
         <body><h1>tesuji</h1><p>The server is running with {n} game{}.</p></body></html>",
        if n == 1 { "" } else { "s" }
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateGame {
    rules: String,
}

async fn create_game(
    State(games): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: CreateGame = json_body(body)?;
    let state = games.create(&req.rules).await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "id": state.id, "rules": state.rules })),
    )
        .into_response())
}

async fn get_game(
    State(games): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<GameState>, ApiError> {
    let entry = games.get(game_id(&id)?).await?;
    let state = entry.lock().await.state();
    Ok(Json(state))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayMove {
    color: String,
    #[serde(rename = "move")]
    mv: String,
    version: Option<u64>,
}

fn color_of(text: &str) -> Result<tesuji_rules::Color, ApiError> {
    parse_color(text).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "color must be \"black\" or \"white\", not {text:?}"
        ))
    })
}

async fn play(
    State(games): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<GameState>, ApiError> {
    let id = game_id(&id)?;
    let req: PlayMove = json_body(body)?;
    let color = color_of(&req.color)?;
    let rules = *games.get(id).await?.lock().await.game.rules();
    let mv = parse_move(&req.mv, &rules).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "move must be \"pass\" or a point such as \"D4\" on the {} board, not {:?}",
            rules.size, req.mv
        ))
    })?;
    Ok(Json(
        games.act(id, Request::Play(color, mv), req.version).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Resign {
    color: String,
    version: Option<u64>,
}

async fn resign(
    State(games): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<GameState>, ApiError> {
    let id = game_id(&id)?;
    let req: Resign = json_body(body)?;
    let color = color_of(&req.color)?;
    Ok(Json(
        games.act(id, Request::Resign(color), req.version).await?,
    ))
}

async fn sgf(State(games): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let entry = games.get(id).await?;
    let text = {
        let live = entry.lock().await;
        let tree =
            tesuji_sgf::record::to_tree(&live.game, &tesuji_sgf::record::GameInfo::default());
        tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] })
    };
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-go-sgf; charset=utf-8".to_owned(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"tesuji-{id}.sgf\""),
            ),
        ],
        text,
    )
        .into_response())
}

async fn ws(
    State(games): State<AppState>,
    Path(id): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    // Refuse unknown games before upgrading, so the client gets a plain 404.
    let entry = games.get(id).await?;
    Ok(upgrade
        .max_message_size(WS_MESSAGE_LIMIT)
        .on_upgrade(move |socket| watch(socket, entry)))
}

#[derive(Deserialize)]
struct ClientMessage {
    #[serde(default)]
    resync: bool,
}

fn full_state(live: &crate::games::LiveGame) -> String {
    let mut v = serde_json::to_value(live.state()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "state".into());
    }
    v.to_string()
}

/// One watcher of a game: the full state first, then every event; a resync on request or after falling behind.
async fn watch(mut socket: WebSocket, entry: Arc<tokio::sync::Mutex<crate::games::LiveGame>>) {
    // Subscribing and taking the state under the game's lock means no event falls between them.
    let (mut events, first) = {
        let live = entry.lock().await;
        (live.events.subscribe(), full_state(&live))
    };
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            event = events.recv() => {
                let text = match event {
                    Ok(text) => text.to_string(),
                    // Missed events: the whole state replaces them, never a wrong board.
                    Err(RecvError::Lagged(_)) => {
                        let live = entry.lock().await;
                        events = events.resubscribe();
                        full_state(&live)
                    }
                    Err(RecvError::Closed) => return,
                };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => {
                let reply = match incoming {
                    Some(Ok(Message::Text(text))) => match serde_json::from_str::<ClientMessage>(&text) {
                        Ok(m) if m.resync => {
                            // Resubscribing under the lock keeps the state and the following events in step.
                            let live = entry.lock().await;
                            events = events.resubscribe();
                            full_state(&live)
                        }
                        Ok(_) => serde_json::json!({"type": "error", "error": "unknown message"}).to_string(),
                        Err(e) => serde_json::json!({"type": "error", "error": format!("malformed message: {e}")}).to_string(),
                    },
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    // Pings are answered by axum; binary messages are ignored.
                    Some(Ok(_)) => continue,
                };
                if socket.send(Message::Text(reply.into())).await.is_err() {
                    return;
                }
            }
        }
    }
}
