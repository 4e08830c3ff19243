//! The HTTP routes: sessions, tables and games, listings, replays, and the WebSockets (docs/API.md).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tesuji_rules::{Color, Point};
use tokio::sync::broadcast::error::RecvError;

use crate::auth::{self, NewSession, Session};
use crate::error::ApiError;
use crate::games::{Actor, Games, LiveGame, NewTable, Opponent, Request, Summary, parse_move};
use crate::limit::Limiters;
use crate::replay;

/// Larger request bodies are refused: every request of the API but `/api/replay` is a few dozen bytes.
pub const BODY_LIMIT: usize = 64 * 1024;
/// SGF files sent to `/api/replay`.
pub const SGF_LIMIT: usize = 1024 * 1024;

/// Incoming WebSocket messages larger than this close the socket.
const WS_MESSAGE_LIMIT: usize = 4 * 1024;
/// A socket's read buffer (it grows for a larger frame). The default, 128 KiB, is zeroed before every read and
/// stays resident: 1.3 GB for 10,000 sockets, and a seventh of the server's time under load.
const WS_READ_BUFFER: usize = 4 * 1024;

/// Listings are cut at this many games.
const LIST_LIMIT: usize = 100;

/// What every handler shares.
pub struct App {
    pub games: Arc<Games>,
    pub accounts: Arc<crate::auth::Accounts>,
    pub limits: Limiters,
}

type AppState = Arc<App>;

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/session", get(session))
        .route("/api/signup", post(sign_up))
        .route("/api/login", post(log_in))
        .route("/api/guest", post(guest))
        .route("/api/logout", post(log_out))
        .route("/api/lobby", get(lobby))
        .route("/api/lobby/ws", get(lobby_ws))
        .route("/api/users/{id}/games", get(user_games))
        .route("/api/archive", get(archive))
        .route("/api/games", post(create_game))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/moves", action_route(ActionKind::Play))
        .route("/api/games/{id}/resign", action_route(ActionKind::Resign))
        .route("/api/games/{id}/dead", action_route(ActionKind::Dead))
        .route("/api/games/{id}/accept", action_route(ActionKind::Accept))
        .route("/api/games/{id}/dispute", action_route(ActionKind::Dispute))
        .route("/api/games/{id}/claim", action_route(ActionKind::Claim))
        .route("/api/games/{id}/sgf", get(sgf))
        .route("/api/games/{id}/replay", get(game_replay))
        .route("/api/games/{id}/rulesets", get(game_rulesets))
        .route("/api/games/{id}/ws", get(game_ws))
        .route(
            "/api/replay",
            post(sgf_replay).layer(DefaultBodyLimit::max(SGF_LIMIT)),
        )
        .route("/api/{*rest}", axum::routing::any(api_not_found))
        .merge(crate::web::routes())
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

async fn api_not_found() -> ApiError {
    ApiError::NoRoute
}

/// Reads a JSON body, turning every failure (size, syntax, fields) into our JSON error rather than axum's text.
fn json_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body_bytes(body)?;
    // An empty body stands for `{}`, so that `POST /api/games/7/accept` needs no body.
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    serde_json::from_slice(bytes).map_err(|e| ApiError::BadRequest(format!("malformed JSON: {e}")))
}

fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::TooLarge
        } else {
            ApiError::BadRequest(e.body_text())
        }
    })
}

/// Ids in paths: a malformed one is a 400 in our format, not axum's text.
fn path_id(id: &str) -> Result<i64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::BadRequest(format!("bad id {id:?}")))
}

/// Refuses a request whose `Origin` names another site. Browsers send `Origin` on cross-site POSTs and on
/// every WebSocket upgrade; other clients may leave it out.
fn same_origin(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, rest)| rest.trim_end_matches('/'));
    match (origin_host, host) {
        (Some(o), Some(h)) if o.eq_ignore_ascii_case(h) => Ok(()),
        _ => Err(ApiError::ForeignOrigin),
    }
}

// ---- sessions ----

async fn session(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
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

fn session_response(status: StatusCode, s: NewSession) -> Response {
    let mut response = (status, Json(json!({ "user": s.user, "csrf": s.csrf }))).into_response();
    response.headers_mut().insert(header::SET_COOKIE, s.cookie);
    response
}

/// The checks every sign-in request passes: same site, and the address's attempt budget.
fn sign_in_checks(app: &App, from: SocketAddr, headers: &HeaderMap) -> Result<(), ApiError> {
    same_origin(headers)?;
    app.limits.auth(app.limits.client(from, headers))
}

async fn sign_up(
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

async fn log_in(
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

async fn guest(
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

async fn log_out(State(app): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let s = app.accounts.require(&headers).await?;
    app.accounts.log_out(&s).await?;
    let mut response = Json(json!({})).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, app.accounts.clear_cookie());
    Ok(response)
}

// ---- listings ----

fn lobby_json(games: &Games) -> serde_json::Value {
    let open = games.summaries(|s| s.status == "open" && !s.invite_only, LIST_LIMIT);
    let playing = games.summaries(
        |s| s.status == "playing" || s.status == "marking",
        LIST_LIMIT,
    );
    json!({ "open": open, "playing": playing })
}

async fn lobby(State(app): State<AppState>) -> Json<serde_json::Value> {
    Json(lobby_json(&app.games))
}

/// The longest page of a listing.
const PAGE_LIMIT: usize = 100;
/// A page's length when the request names none.
const PAGE_DEFAULT: usize = 50;

/// `?before=ID&limit=N` of a listing: the games with ids below `before` (all when absent), newest first, at
/// most `limit` (1 to 100).
#[derive(Deserialize, Default)]
struct PageQuery {
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
fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}

async fn user_games(
    State(app): State<AppState>,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let id = path_id(&id)?;
    let (before, limit) = PageQuery::read(query)?;
    let user = app.accounts.user(id).await?.ok_or(ApiError::NoUser(id))?;
    // One more than the page tells whether another page follows.
    let games = app.games.player_page(id, before, limit + 1).await?;
    let (games, next) = page(games, limit);
    Ok(Json(json!({ "user": user, "games": games, "next": next })))
}

/// Cuts a listing read one longer than `limit` to the page, and says where the next page starts (the last
/// game's id) when there is one.
fn page(mut games: Vec<Summary>, limit: usize) -> (Vec<Summary>, Option<i64>) {
    if games.len() <= limit {
        return (games, None);
    }
    games.truncate(limit);
    let next = games.last().map(|s| s.id);
    (games, next)
}

/// The finished games, the most recently ended first (the archive page).
async fn archive(
    State(app): State<AppState>,
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (before, limit) = PageQuery::read(query)?;
    let games = app.games.finished_page(before, limit + 1).await?;
    let (games, next) = page(games, limit);
    Ok(Json(json!({ "games": games, "next": next })))
}

async fn lobby_ws(
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

fn lobby_message(games: &Games) -> String {
    let mut v = lobby_json(games);
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "lobby".into());
    }
    v.to_string()
}

/// One lobby watcher: the listing now and after every change, at most every 200 ms (a burst of moves makes one
/// message).
async fn watch_lobby(mut socket: WebSocket, app: Arc<App>) {
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

// ---- tables and games ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateGame {
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

async fn create_game(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let s = app.accounts.require(&headers).await?;
    app.limits.action(s.user.id)?;
    let req: CreateGame = json_body(body)?;
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

async fn get_game(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let entry = app.games.get(path_id(&id)?).await?;
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
struct Join {
    #[serde(default)]
    invite: Option<String>,
}

async fn join(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let id = path_id(&id)?;
    let s = app.accounts.require(&headers).await?;
    app.limits.action(s.user.id)?;
    let req: Join = json_body(body)?;
    let state = app.games.join(id, &s.user, req.invite.as_deref()).await?;
    Ok(Json(state).into_response())
}

/// The body of every game action: what to do, and the version it was decided at.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionBody {
    #[serde(default, rename = "move")]
    mv: Option<String>,
    #[serde(default)]
    point: Option<String>,
    /// Accepted for clients of the first API; must match the seat when given.
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    version: Option<u64>,
    /// The client's measured network lag, credited against its clock up to a cap.
    #[serde(default)]
    lag_ms: Option<u64>,
}

#[derive(Clone, Copy)]
enum ActionKind {
    Play,
    Resign,
    Dead,
    Accept,
    Dispute,
    Claim,
}

/// Turns an action's fields into a request for game `live`'s board.
fn request_of(kind: ActionKind, body: &ActionBody, live: &LiveGame) -> Result<Request, ApiError> {
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
async fn perform(
    app: &App,
    id: i64,
    user: &auth::User,
    kind: ActionKind,
    body: ActionBody,
) -> Result<crate::games::GameState, ApiError> {
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

async fn action(
    app: AppState,
    id: String,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
    kind: ActionKind,
) -> Result<Response, ApiError> {
    let id = path_id(&id)?;
    let s: Session = app.accounts.require(&headers).await?;
    let body: ActionBody = json_body(body)?;
    Ok(Json(perform(&app, id, &s.user, kind, body).await?).into_response())
}

/// The route of one game action: every action reads the same body and goes through [`perform`].
fn action_route(kind: ActionKind) -> axum::routing::MethodRouter<AppState> {
    post(
        move |State(app): State<AppState>,
              Path(id): Path<String>,
              headers: HeaderMap,
              body: Result<Bytes, BytesRejection>| action(app, id, headers, body, kind),
    )
}

// ---- records ----

async fn sgf(State(app): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let id = path_id(&id)?;
    let entry = app.games.get(id).await?;
    let text = entry.lock().await.sgf();
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

async fn game_replay(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let entry = app.games.get(path_id(&id)?).await?;
    let view = replay::of_game(&*entry.lock().await);
    Ok(Json(view).into_response())
}

/// A finished game counted under every ruleset (its own first); refused while the game goes on.
async fn game_rulesets(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let entry = app.games.get(path_id(&id)?).await?;
    let game = entry.lock().await.game.clone();
    if game.phase() != tesuji_rules::Phase::Over {
        return Err(ApiError::NotOver);
    }
    // Eleven replays of the game: CPU work, off the async threads.
    let counts = tokio::task::spawn_blocking(move || replay::rulesets(&game))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(json!({ "counts": counts })).into_response())
}

async fn sgf_replay(body: Result<Bytes, BytesRejection>) -> Result<Response, ApiError> {
    let bytes = body_bytes(body)?;
    // Reading a large record is CPU work: keep it off the async threads.
    let view = tokio::task::spawn_blocking(move || replay::of_sgf(&bytes))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    Ok(Json(view).into_response())
}

// ---- the game's WebSocket ----

async fn game_ws(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let id = path_id(&id)?;
    same_origin(&headers)?;
    // Refuse unknown games before upgrading, so the client gets a plain 404.
    let entry = app.games.get(id).await?;
    // The cookie identifies a seated player; the Origin check above stands in for the CSRF header, which
    // browsers cannot set on an upgrade.
    let user = app.accounts.session(&headers).await?.map(|s| s.user);
    Ok(upgrade
        .max_message_size(WS_MESSAGE_LIMIT)
        .read_buffer_size(WS_READ_BUFFER)
        .on_upgrade(move |socket| watch_game(socket, app, id, entry, user)))
}

#[derive(Deserialize)]
struct ClientMessage {
    #[serde(default)]
    resync: bool,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default, rename = "ref")]
    reference: Option<serde_json::Value>,
    #[serde(default, rename = "move")]
    mv: Option<String>,
    #[serde(default)]
    point: Option<String>,
    #[serde(default)]
    version: Option<u64>,
    #[serde(default)]
    lag_ms: Option<u64>,
}

fn full_state(live: &LiveGame) -> String {
    let mut v = serde_json::to_value(live.state()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("type".into(), "state".into());
    }
    v.to_string()
}

fn error_message(reference: &Option<serde_json::Value>, e: &ApiError) -> String {
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
async fn answer(app: &App, id: i64, user: Option<&auth::User>, text: &str) -> (String, bool) {
    let m = match serde_json::from_str::<ClientMessage>(text) {
        Ok(m) => m,
        Err(e) => {
            let e = ApiError::BadRequest(format!("malformed message: {e}"));
            return (error_message(&None, &e), false);
        }
    };
    if m.resync {
        // The caller takes the state and resubscribes under one lock.
        return (String::new(), true);
    }
    let kind = match m.kind.as_deref() {
        Some("play") => ActionKind::Play,
        Some("resign") => ActionKind::Resign,
        Some("dead") => ActionKind::Dead,
        Some("accept") => ActionKind::Accept,
        Some("dispute") => ActionKind::Dispute,
        Some("claim") => ActionKind::Claim,
        other => {
            let e = ApiError::BadRequest(format!("unknown message type {other:?}"));
            return (error_message(&m.reference, &e), false);
        }
    };
    let Some(user) = user else {
        return (error_message(&m.reference, &ApiError::NotSignedIn), false);
    };
    let body = ActionBody {
        mv: m.mv,
        point: m.point,
        color: None,
        version: m.version,
        lag_ms: m.lag_ms,
    };
    match perform(app, id, user, kind, body).await {
        Ok(state) => (
            json!({"type": "ack", "ref": m.reference, "version": state.version}).to_string(),
            false,
        ),
        Err(e) => (error_message(&m.reference, &e), false),
    }
}

/// One watcher of a game, counted as present at the board (for the grace period) while the socket is open.
async fn watch_game(
    socket: WebSocket,
    app: Arc<App>,
    id: i64,
    entry: Arc<tokio::sync::Mutex<LiveGame>>,
    user: Option<auth::User>,
) {
    let user_id = user.as_ref().map(|u| u.id);
    if let Some(u) = user_id {
        entry.lock().await.socket(u, true);
    }
    serve_watcher(socket, Arc::clone(&app), id, Arc::clone(&entry), user).await;
    if let Some(u) = user_id {
        entry.lock().await.socket(u, false);
        app.games.watch_grace(id);
    }
    // The last watcher of a finished game lets it leave memory.
    drop(entry);
    app.games.trim();
}

/// The full state first, then every event; a resync on request or after falling behind; a seated player's
/// actions.
async fn serve_watcher(
    mut socket: WebSocket,
    app: Arc<App>,
    id: i64,
    entry: Arc<tokio::sync::Mutex<LiveGame>>,
    user: Option<auth::User>,
) {
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
                    // A copy, not `to_string` (which formats).
                    Ok(text) => String::from(&*text),
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
                    Some(Ok(Message::Text(text))) => {
                        let (reply, resync) = answer(&app, id, user.as_ref(), &text).await;
                        if resync {
                            // Resubscribing after the state was taken could drop an event between the two,
                            // so take both under the lock.
                            let live = entry.lock().await;
                            events = events.resubscribe();
                            full_state(&live)
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
