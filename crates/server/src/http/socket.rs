//! The game's WebSocket: the state, then every event; actions with acks; resyncs.

use std::sync::Arc;

use std::net::SocketAddr;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::StreamExt;
use serde_json::json;
use tesuji_rules::Size;
use tokio::sync::broadcast::error::RecvError;

use super::extract::PathId;
use super::games::perform;
use super::wire::{ClientMessage, Undecodable};
use super::{App, AppState, WS_MESSAGE_LIMIT, WS_READ_BUFFER, same_origin};
use crate::auth;
use crate::error::Error;
use crate::game::LiveGame;

pub(super) async fn game_ws(
    State(app): State<AppState>,
    PathId(id): PathId,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, Error> {
    same_origin(&headers)?;
    // Refuse unknown games before upgrading, so the client gets a plain 404; the first state is at least what
    // the store had when the socket was asked for.
    app.games.refresh(id).await;
    let entry = app.games.get(id).await?;
    // The cookie identifies a seated player; the Origin check above stands in for the CSRF header, which
    // browsers cannot set on an upgrade.
    let user = app.accounts.session(&headers).await?.map(|s| s.user);
    let slot = app.limits.socket(
        user.as_ref().map(|u| u.id),
        app.limits.client(from, &headers),
    )?;
    Ok(upgrade
        .max_message_size(WS_MESSAGE_LIMIT)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| async move {
            let _open = app.metrics.socket_opened();
            watch_game(socket, app, id, entry, user).await;
            drop(slot);
        }))
}

/// The `state` message for the watcher `viewer` (its own view: see [`LiveGame::state_for`]).
pub(super) fn full_state(live: &LiveGame, viewer: Option<i64>) -> String {
    let mut v = serde_json::to_value(live.state_for(viewer)).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "state".into());
    }
    v.to_string()
}

pub(super) fn error_message(reference: &Option<serde_json::Value>, e: &Error) -> String {
    let (_, reason) = e.status_and_reason();
    let mut m =
        json!({"type": "error", "ref": reference, "error": e.to_string(), "reason": reason});
    if let (Some(ms), Some(o)) = (e.claim_in_ms(), m.as_object_mut()) {
        o.insert("claim_in_ms".into(), ms.into());
    }
    if let (Some((n, board)), Some(o)) = (e.repeats(), m.as_object_mut()) {
        o.insert("repeats".into(), n.into());
        o.insert("board".into(), board.into());
    }
    m.to_string()
}

/// Answers one message from a game's watcher: a resync, or an action of a seated player.
pub(super) async fn answer(
    app: &App,
    id: i64,
    size: Size,
    user: Option<&auth::User>,
    text: &str,
) -> (String, bool) {
    let message = match ClientMessage::decode(text) {
        Ok(ClientMessage::Resync) => {
            app.games.refresh(id).await;
            // The caller takes the state and resubscribes under one lock.
            return (String::new(), true);
        }
        Ok(ClientMessage::Action(m)) => m,
        Err(Undecodable { reference, error }) => {
            return (error_message(&reference, &error), false);
        }
    };
    let reference = message.reference.clone();
    let Some(user) = user else {
        return (error_message(&reference, &Error::NotSignedIn), false);
    };
    match perform(app, id, Some(size), user, message).await {
        Ok(state) => (
            json!({"type": "ack", "ref": reference, "version": state.version}).to_string(),
            false,
        ),
        Err(e) => (error_message(&reference, &e), false),
    }
}

/// One watcher of a game, counted as present at the board (for the grace period) while the socket is open.
pub(super) async fn watch_game(
    socket: WebSocket,
    app: Arc<App>,
    id: i64,
    entry: Arc<tokio::sync::Mutex<LiveGame>>,
    user: Option<auth::User>,
) {
    let user_id = user.as_ref().map(|u| u.id);
    if let Some(u) = user_id {
        app.games.socket(id, &entry, u, true).await;
    }
    serve_watcher(socket, Arc::clone(&app), id, Arc::clone(&entry), user).await;
    if let Some(u) = user_id {
        app.games.socket(id, &entry, u, false).await;
    }
    // The last watcher of a finished game lets it leave memory.
    drop(entry);
    app.games.trim();
}

/// The full state first, then every event; a resync on request or after falling behind; a seated player's
/// actions.
pub(super) async fn serve_watcher(
    mut socket: WebSocket,
    app: Arc<App>,
    id: i64,
    entry: Arc<tokio::sync::Mutex<LiveGame>>,
    user: Option<auth::User>,
) {
    let viewer = user.as_ref().map(|u| u.id);
    // Subscribing and taking the state under the game's lock means no event falls between them.
    let (mut events, mut feeds, first, size) = {
        let live = entry.lock().await;
        let feeds = app.hooks.feeds.iter().map(|f| f.watch(&live, viewer));
        (
            live.events.subscribe(),
            futures_util::stream::select_all(feeds),
            full_state(&live, viewer),
            live.game.rules().size,
        )
    };
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            event = events.recv() => {
                let text = match event {
                    // A copy, not `to_string` (which formats).
                    Ok(text) => String::from(&*text),
                    // Missed events: the whole state replaces them, never a wrong board.
                    Err(RecvError::Lagged(_)) => {
                        let live = entry.lock().await;
                        events = events.resubscribe();
                        full_state(&live, viewer)
                    }
                    Err(RecvError::Closed) => return,
                };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            // With no feed (or each ended), this branch is off and the others run on.
            Some(event) = feeds.next() => {
                if socket.send(Message::Text(String::from(&*event).into())).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => {
                let reply = match incoming {
                    Some(Ok(Message::Text(text))) => {
                        let (reply, resync) = answer(&app, id, size, user.as_ref(), &text).await;
                        if resync {
                            // Resubscribing after the state was taken could drop an event between the two,
                            // so take both under the lock.
                            let live = entry.lock().await;
                            events = events.resubscribe();
                            full_state(&live, viewer)
                        } else {
                            reply
                        }
                    }
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
