//! Sessions: who am I, sign-up, log-in, guests, log-out.

use std::net::SocketAddr;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::{App, AppState, json_body, same_origin};
use crate::auth::NewSession;
use crate::error::ApiError;

pub(super) async fn session(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let s = app.accounts.session(&headers).await?;
    Ok(Json(json!({
        "user": s.as_ref().map(|s| &s.user),
        "csrf": s.as_ref().map(|s| &s.csrf),
    }))
    .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    name: String,
    #[serde(default)]
    password: String,
}

pub(super) fn session_response(status: StatusCode, s: NewSession) -> Response {
    let mut response = (status, Json(json!({ "user": s.user, "csrf": s.csrf }))).into_response();
    response.headers_mut().insert(header::SET_COOKIE, s.cookie);
    response
}

/// The checks every sign-in request passes: same site, and the address's attempt budget.
pub(super) fn sign_in_checks(
    app: &App,
    from: SocketAddr,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    same_origin(headers)?;
    app.limits.auth(app.limits.client(from, headers))
}

pub(super) async fn sign_up(
    State(app): State<AppState>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    sign_in_checks(&app, from, &headers)?;
    let c: Credentials = json_body(body)?;
    let s = app.accounts.sign_up(&c.name, &c.password).await?;
    Ok(session_response(StatusCode::CREATED, s))
}

pub(super) async fn log_in(
    State(app): State<AppState>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    sign_in_checks(&app, from, &headers)?;
    let c: Credentials = json_body(body)?;
    let s = app.accounts.log_in(&c.name, &c.password).await?;
    Ok(session_response(StatusCode::OK, s))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuestName {
    name: String,
}

pub(super) async fn guest(
    State(app): State<AppState>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    sign_in_checks(&app, from, &headers)?;
    let g: GuestName = json_body(body)?;
    let s = app.accounts.guest(&g.name).await?;
    Ok(session_response(StatusCode::CREATED, s))
}

pub(super) async fn log_out(
    State(app): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let s = app.accounts.require(&headers).await?;
    app.accounts.log_out(&s).await?;
    let mut response = Json(json!({})).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, app.accounts.clear_cookie());
    Ok(response)
}
