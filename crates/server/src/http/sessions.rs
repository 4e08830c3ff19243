//! Sessions: who am I, sign-up, log-in, guests, log-out.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::extract::{AppJson, SignIn};
use crate::auth::{ClientInfo, NewSession};
use crate::error::Error;
use crate::names;

pub(super) async fn session(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    let s = app.accounts.session(&headers).await?;
    Ok(Json(json!({
        "user": s.as_ref().map(|s| &s.user),
        "csrf": s.as_ref().map(|s| &s.csrf),
    }))
    .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Credentials {
    name: String,
    #[serde(default)]
    password: String,
}

pub(super) fn session_response(status: StatusCode, s: NewSession) -> Response {
    let mut response = (status, Json(json!({ "user": s.user, "csrf": s.csrf }))).into_response();
    response.headers_mut().insert(header::SET_COOKIE, s.cookie);
    response
}

pub(super) async fn sign_up(
    State(app): State<AppState>,
    SignIn(address): SignIn,
    headers: HeaderMap,
    AppJson(c): AppJson<Credentials>,
) -> Result<Response, Error> {
    let client = ClientInfo::new(&headers, address);
    let s = app.accounts.sign_up(&c.name, &c.password, client).await?;
    app.limits
        .accounts()
        .signed_in(&names::key(&c.name), address);
    Ok(session_response(StatusCode::CREATED, s))
}

pub(super) async fn log_in(
    State(app): State<AppState>,
    SignIn(address): SignIn,
    headers: HeaderMap,
    AppJson(c): AppJson<Credentials>,
) -> Result<Response, Error> {
    // Per account too (see `limit::AccountGuard`): the name's key, known account or not.
    // A name longer than any account's names none: nothing to keep for it.
    let key = names::key(&c.name);
    let guard = app.limits.accounts();
    let tracked = key.len() <= names::NAME_KEY_BYTES;
    if tracked {
        guard.check(&key, address)?;
    }
    let client = ClientInfo::new(&headers, address);
    match app.accounts.log_in(&c.name, &c.password, client).await {
        Ok(s) => {
            if tracked {
                guard.signed_in(&key, address);
            }
            Ok(session_response(StatusCode::OK, s))
        }
        Err(e) => {
            if tracked && matches!(e, Error::WrongLogin) {
                guard.failed(&key);
            }
            Err(e)
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GuestName {
    name: String,
}

pub(super) async fn guest(
    State(app): State<AppState>,
    SignIn(address): SignIn,
    headers: HeaderMap,
    AppJson(g): AppJson<GuestName>,
) -> Result<Response, Error> {
    let s = app
        .accounts
        .guest(&g.name, ClientInfo::new(&headers, address))
        .await?;
    Ok(session_response(StatusCode::CREATED, s))
}

pub(super) async fn log_out(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, Error> {
    let s = app.accounts.require(&headers).await?;
    app.accounts.log_out(&s).await?;
    let mut response = Json(json!({})).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, app.accounts.clear_cookie());
    Ok(response)
}
