//! An account's own settings: its password (changed, or reset with an operator's one-time link) and its
//! sessions (listed, ended).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::extract::{AppJson, SignIn, SignedIn};
use crate::error::Error;
use crate::game::Status;
use crate::names;

/// The signed-in user's sessions (`not_signed_in` without one): a read, no CSRF token needed.
pub(super) async fn sessions(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    let s = app
        .accounts
        .session(&headers)
        .await?
        .ok_or(Error::NotSignedIn)?;
    let sessions = app.accounts.sessions(&s).await?;
    Ok(Json(json!({ "sessions": sessions })).into_response())
}

/// Ends one of the user's sessions by its id.
pub(super) async fn end_session(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    Path(id): Path<String>,
) -> Result<Response, Error> {
    app.accounts.end_session(&s, &id).await?;
    app.games.sessions_ended(s.user.id);
    Ok(Json(json!({ "ended": 1 })).into_response())
}

/// Ends every session of the user but this one.
pub(super) async fn end_other_sessions(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
) -> Result<Response, Error> {
    let ended = app.accounts.end_other_sessions(&s).await?;
    app.games.sessions_ended(s.user.id);
    Ok(Json(json!({ "ended": ended })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PasswordChange {
    current: String,
    new: String,
}

/// Changes the account's password, the current one given: a wrong one counts as a failed sign-in to the
/// account (see `limit::AccountGuard`), so that a taken session cannot guess it faster than a log-in could.
pub(super) async fn change_password(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    SignIn(address): SignIn,
    AppJson(c): AppJson<PasswordChange>,
) -> Result<Response, Error> {
    let key = names::key(&s.user.name);
    let guard = app.limits.accounts();
    guard.check(&key, address)?;
    match app.accounts.change_password(&s, &c.current, &c.new).await {
        Ok(ended) => {
            app.games.sessions_ended(s.user.id);
            Ok(Json(json!({ "ended": ended })).into_response())
        }
        Err(e) => {
            if matches!(e, Error::WrongPassword) {
                guard.failed(&key);
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Reset {
    token: String,
    password: String,
}

/// Sets a new password with a reset's one-time token; every session of the account ends (the client signs in
/// again with the new password).
pub(super) async fn reset_password(
    State(app): State<AppState>,
    _: SignIn,
    AppJson(r): AppJson<Reset>,
) -> Result<Response, Error> {
    let (user, ended) = app.accounts.reset_password(&r.token, &r.password).await?;
    app.games.sessions_ended(user);
    Ok(Json(json!({ "ended": ended })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Deletion {
    password: String,
}

/// The most live games of one user looked at when it is deleted (open tables and games in play together are
/// bounded far below this by the limits on tables and seeks).
const LIVE_GAMES: usize = 10_000;

/// Deletes the signed-in account, its password given (a wrong one counts as a failed log-in): refused while
/// it plays a game (naming them); its open tables and waiting seeks are cancelled, its finished games, ratings
/// and chat stay under the neutral name, its sessions end and its name is free again.
pub(super) async fn delete_account(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    SignIn(address): SignIn,
    AppJson(d): AppJson<Deletion>,
) -> Result<Response, Error> {
    if s.user.guest {
        return Err(Error::NotAnAccount);
    }
    let key = names::key(&s.user.name);
    let guard = app.limits.accounts();
    guard.check(&key, address)?;
    if let Err(e) = app.accounts.check_password_of(&s.user, &d.password).await {
        if matches!(e, Error::WrongPassword) {
            guard.failed(&key);
        }
        return Err(e);
    }
    let live = app.games.current_of(s.user.id, LIVE_GAMES);
    let in_play: Vec<i64> = live
        .iter()
        .filter(|g| g.status != Status::Open)
        .map(|g| g.id)
        .collect();
    if !in_play.is_empty() {
        return Err(Error::GamesInPlay(in_play));
    }
    for table in live.iter().filter(|g| g.status == Status::Open) {
        match app.games.cancel(table.id, &s.user).await {
            // Joined meanwhile: now a game in play.
            Err(Error::NotOpen) => return Err(Error::GamesInPlay(vec![table.id])),
            Err(e) => return Err(e),
            Ok(()) => {}
        }
    }
    for hook in &app.hooks.leaving {
        hook.leave(s.user.id).await?;
    }
    app.accounts.delete_account(&s).await?;
    app.games.forget_user(s.user.id).await;
    app.games.sessions_ended(s.user.id);
    let mut response = Json(json!({ "deleted": s.user.id })).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, app.accounts.clear_cookie());
    Ok(response)
}
