//! Listings: the lobby (HTTP and its socket), the archive of finished games.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::extract::Page;
use super::{App, AppState, LIST_LIMIT, WS_MESSAGE_LIMIT, WS_READ_BUFFER, same_origin};
use crate::error::Error;
use crate::game::Status;

/// The lobby as `user` (when signed in) sees it: first their games that wait for them, then the open tables
/// and the games in play.
pub(super) fn lobby_json(app: &App, user: Option<i64>) -> serde_json::Value {
    let games = &app.games;
    let open = games.summaries(|s| s.status == Status::Open && !s.invite_only, LIST_LIMIT);
    let playing = games.summaries(|s| s.status.in_play(), LIST_LIMIT);
    let my_turn = user.map_or_else(Vec::new, |u| games.my_turn(u, LIST_LIMIT));
    let mut lobby = json!({ "my_turn": my_turn, "open": open, "playing": playing });
    if let Some(lobby) = lobby.as_object_mut() {
        for hook in &app.hooks.lobby {
            lobby.extend(hook.lobby_lists(user));
        }
    }
    lobby
}

pub(super) async fn lobby(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Json<serde_json::Value> {
    app.games.refresh_live().await;
    // A session that cannot be read costs only the viewer's own list.
    let user = app.accounts.session(&headers).await.ok().flatten();
    Json(lobby_json(&app, user.map(|s| s.user.id)))
}

/// The finished games, the most recently ended first (the archive page).
pub(super) async fn archive(
    State(app): State<AppState>,
    page: Page,
) -> Result<Json<serde_json::Value>, Error> {
    let games = app
        .games
        .finished_page(page.before, page.read_len())
        .await?;
    let (games, next) = page.cut(games);
    Ok(Json(json!({ "games": games, "next": next })))
}

pub(super) async fn lobby_ws(
    State(app): State<AppState>,
    ConnectInfo(from): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, Error> {
    same_origin(&headers)?;
    // Counted against the user too when signed in; a session that cannot be read costs only that.
    let user = app.accounts.session(&headers).await.ok().flatten();
    let slot = app.limits.socket(
        user.as_ref().map(|s| s.user.id),
        app.limits.client(from, &headers),
    )?;
    Ok(upgrade
        .max_message_size(WS_MESSAGE_LIMIT)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| async move {
            watch_lobby(socket, app, user.map(|s| s.user.id)).await;
            drop(slot);
        }))
}

pub(super) fn lobby_message(app: &App, user: Option<i64>) -> String {
    let mut v = lobby_json(app, user);
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "lobby".into());
    }
    v.to_string()
}

/// One lobby watcher: the listing now and after every change, at most every 200 ms (a burst of moves makes one
/// message).
pub(super) async fn watch_lobby(mut socket: WebSocket, app: Arc<App>, user: Option<i64>) {
    let mut changes = app.games.lobby.subscribe();
    if socket
        .send(Message::Text(lobby_message(&app, user).into()))
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
                if socket.send(Message::Text(lobby_message(&app, user).into())).await.is_err() {
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
