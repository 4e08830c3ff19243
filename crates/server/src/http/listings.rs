//! Listings: the lobby (HTTP and its socket), a player's games, the archive of finished games.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::extract::PathId;
use super::{App, AppState, LIST_LIMIT, WS_MESSAGE_LIMIT, WS_READ_BUFFER, same_origin};
use crate::error::ApiError;
use crate::games::{Games, Summary};

pub(super) fn lobby_json(games: &Games) -> serde_json::Value {
    let open = games.summaries(|s| s.status == "open" && !s.invite_only, LIST_LIMIT);
    let playing = games.summaries(
        |s| s.status == "playing" || s.status == "marking",
        LIST_LIMIT,
    );
    json!({ "open": open, "playing": playing })
}

pub(super) async fn lobby(State(app): State<AppState>) -> Json<serde_json::Value> {
    Json(lobby_json(&app.games))
}

/// The longest page of a listing.
const PAGE_LIMIT: usize = 100;
/// A page's length when the request names none.
const PAGE_DEFAULT: usize = 50;

/// `?before=ID&limit=N` of a listing: the games with ids below `before` (all when absent), newest first, at
/// most `limit` (1 to 100).
#[derive(Deserialize, Default)]
pub(super) struct PageQuery {
    before: Option<String>,
    limit: Option<String>,
}

impl PageQuery {
    fn read(
        query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    ) -> Result<(Option<i64>, usize), ApiError> {
        let q = query
            .map(|q| q.0)
            .map_err(|e| ApiError::BadRequest(format!("bad query: {e}")))?;
        let before = q
            .before
            .map(|b| {
                b.parse::<i64>().ok().filter(|&v| v > 0).ok_or_else(|| {
                    ApiError::BadRequest(format!("bad before {:?}: a game id", shorten(&b)))
                })
            })
            .transpose()?;
        let limit = match q.limit {
            None => PAGE_DEFAULT,
            Some(l) => l
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=PAGE_LIMIT).contains(n))
                .ok_or_else(|| {
                    ApiError::BadRequest(format!("bad limit {:?}: 1 to {PAGE_LIMIT}", shorten(&l)))
                })?,
        };
        Ok((before, limit))
    }
}

/// At most 40 characters of a value quoted in an error.
pub(super) fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}

pub(super) async fn user_games(
    State(app): State<AppState>,
    PathId(id): PathId,
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (before, limit) = PageQuery::read(query)?;
    let user = app.accounts.user(id).await?.ok_or(ApiError::NoUser(id))?;
    // One more than the page tells whether another page follows.
    let games = app.games.player_page(id, before, limit + 1).await?;
    let (games, next) = page(games, limit);
    Ok(Json(json!({ "user": user, "games": games, "next": next })))
}

/// Cuts a listing read one longer than `limit` to the page, and says where the next page starts (the last
/// game's id) when there is one.
pub(super) fn page(mut games: Vec<Summary>, limit: usize) -> (Vec<Summary>, Option<i64>) {
    if games.len() <= limit {
        return (games, None);
    }
    games.truncate(limit);
    let next = games.last().map(|s| s.id);
    (games, next)
}

/// The finished games, the most recently ended first (the archive page).
pub(super) async fn archive(
    State(app): State<AppState>,
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (before, limit) = PageQuery::read(query)?;
    let games = app.games.finished_page(before, limit + 1).await?;
    let (games, next) = page(games, limit);
    Ok(Json(json!({ "games": games, "next": next })))
}

pub(super) async fn lobby_ws(
    State(app): State<AppState>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    same_origin(&headers)?;
    Ok(upgrade
        .max_message_size(WS_MESSAGE_LIMIT)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| watch_lobby(socket, app)))
}

pub(super) fn lobby_message(games: &Games) -> String {
    let mut v = lobby_json(games);
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "lobby".into());
    }
    v.to_string()
}

/// One lobby watcher: the listing now and after every change, at most every 200 ms (a burst of moves makes one
/// message).
pub(super) async fn watch_lobby(mut socket: WebSocket, app: Arc<App>) {
    let mut changes = app.games.lobby.subscribe();
    if socket
        .send(Message::Text(lobby_message(&app.games).into()))
        .await
        .is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            change = changes.recv() => {
                if let Err(RecvError::Closed) = change {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                changes = changes.resubscribe();
                if socket.send(Message::Text(lobby_message(&app.games).into())).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            }
        }
    }
}
