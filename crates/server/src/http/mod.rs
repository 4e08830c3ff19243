//! The core's HTTP routes (docs/API.md), one file per area: `sessions`, `listings` (the lobby and its socket,
//! the archive), `games` (tables and actions), `records` (SGF, replays, counts under other rules), `socket`
//! (the game's WebSocket) and `wire` (an action's JSON, read into the core's action). What they share is here:
//! the state, the router, body and id parsing, the Origin check. A feature's routes are in its own folder, and
//! use the extractors of [`extract`] on a state that holds [`AppState`]; what a feature adds to the core's
//! socket, records, lobby and account deletion comes through [`hooks`].

mod account;
pub mod answer;
pub(crate) mod extract;
mod games;
pub mod health;
pub mod hooks;
mod listings;
mod records;
mod sessions;
mod socket;
pub mod wire;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::{MethodRouter, get, post};

use crate::error::Error;
use crate::game::Games;
use crate::limit::Limiters;

/// Larger request bodies are refused: every request of the API but `/api/replay` is a few dozen bytes.
pub const BODY_LIMIT: usize = 64 * 1024;
/// SGF files sent to `/api/replay`.
pub const SGF_LIMIT: usize = 1024 * 1024;

/// Incoming WebSocket messages larger than this close the socket.
pub(crate) const WS_MESSAGE_LIMIT: usize = 4 * 1024;
/// A socket's read buffer (it grows for a larger frame). The default, 128 KiB, is zeroed before every read and
/// stays resident: 1.3 GB for 10,000 sockets, and a seventh of the server's time under load.
pub(crate) const WS_READ_BUFFER: usize = 4 * 1024;

/// Listings are cut at this many games.
pub(crate) const LIST_LIMIT: usize = 100;

/// What every handler shares.
pub struct App {
    pub games: Arc<Games>,
    pub accounts: Arc<crate::auth::Accounts>,
    pub limits: Limiters,
    /// Permits for record work (see [`extract::RecordWork`]): one per core.
    pub record_work: Arc<tokio::sync::Semaphore>,
    /// How many permits `record_work` has when nobody works.
    pub record_workers: usize,
    /// The site's store, for the health check's ping.
    pub site: Arc<dyn crate::store::SiteStore>,
    /// The health check's ping, one at a time.
    pub health: health::Probe,
    /// The counters `GET /metrics` prints.
    pub metrics: &'static crate::metrics::Metrics,
    /// The NATS connection of a node that is one of several, for the health check.
    pub nats: Option<async_nats::Client>,
    /// What the features add to the game socket and the records.
    pub hooks: hooks::Hooks,
}

pub(crate) type AppState = Arc<App>;

/// The site's router: the core's routes, the features' (`features`, each on its state), the pages, and the
/// limits every request passes; the routes that take a game record (`uploads`, and the core's own replay of an
/// uploaded file) have their own, larger limit instead (see [`record_body`]).
pub fn router(app: AppState, features: Router, uploads: Router) -> Router {
    let core_uploads = Router::new()
        .route(
            "/api/replay",
            record_body(
                post(records::sgf_replay).layer::<_, std::convert::Infallible>(compressed()),
            ),
        )
        .with_state(app.clone());
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(health::metrics))
        .route("/api/session", get(sessions::session))
        .route("/api/signup", post(sessions::sign_up))
        .route("/api/login", post(sessions::log_in))
        .route("/api/guest", post(sessions::guest))
        .route("/api/logout", post(sessions::log_out))
        .route("/api/account/sessions", get(account::sessions))
        .route(
            "/api/account/sessions/end-others",
            post(account::end_other_sessions),
        )
        .route("/api/account/sessions/{id}/end", post(account::end_session))
        .route("/api/account/password", post(account::change_password))
        .route("/api/account/reset", post(account::reset_password))
        .route("/api/account/delete", post(account::delete_account))
        .route("/api/lobby", get(listings::lobby))
        .route("/api/lobby/ws", get(listings::lobby_ws))
        .route("/api/archive", get(listings::archive))
        .route("/api/games", post(games::create_game))
        .route("/api/games/{id}", get(games::get_game))
        .route("/api/games/{id}/join", post(games::join))
        .route("/api/games/{id}/actions", post(games::act))
        .route("/api/games/{id}/cancel", post(games::cancel))
        .route("/api/games/{id}/abort", post(games::abort))
        .route("/api/games/{id}/moves", games::action_route("play"))
        .route("/api/games/{id}/resign", games::action_route("resign"))
        .route("/api/games/{id}/dead", games::action_route("dead"))
        .route("/api/games/{id}/accept", games::action_route("accept"))
        .route("/api/games/{id}/dispute", games::action_route("dispute"))
        .route("/api/games/{id}/claim", games::action_route("claim"))
        .route("/api/games/{id}/undo", games::action_route("undo"))
        .route(
            "/api/games/{id}/undo/accept",
            games::action_route("accept_undo"),
        )
        .route(
            "/api/games/{id}/undo/decline",
            games::action_route("decline_undo"),
        )
        .route("/api/games/{id}/sgf", get(records::sgf))
        .route(
            "/api/games/{id}/replay",
            get(records::game_replay).layer(compressed()),
        )
        .route("/api/games/{id}/rulesets", get(records::game_rulesets))
        .route("/api/games/{id}/ws", get(socket::game_ws))
        .with_state(app)
        .merge(features)
        .route("/api/{*rest}", axum::routing::any(api_not_found))
        .merge(crate::web::routes())
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(|request, next| {
            announced_size(request, next, BODY_LIMIT)
        }))
        // Merged after the layers above, which cover only the routes already there.
        .merge(core_uploads)
        .merge(uploads)
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            BODY_TIMEOUT,
        ))
}

/// A route whose body is a game record (an uploaded SGF file): taken up to [`SGF_LIMIT`], and refused at once
/// when its announced size is over that. Such a route goes to [`router`]'s `uploads`.
pub fn record_body<S>(route: MethodRouter<S>) -> MethodRouter<S>
where
    S: Clone + Send + Sync + 'static,
{
    route
        .layer(DefaultBodyLimit::max(SGF_LIMIT))
        .layer(axum::middleware::from_fn(|request, next| {
            announced_size(request, next, SGF_LIMIT)
        }))
}

/// Gzip for the large JSON answers (a 19×19 review's ownership, a long game's boards), to a client that accepts
/// it: their numbers repeat, so they shrink well.
pub(crate) fn compressed() -> tower_http::compression::CompressionLayer {
    tower_http::compression::CompressionLayer::new()
        .gzip(true)
        .no_br()
        .no_deflate()
        .no_zstd()
}

/// How long a client may take to send a request's body.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Refuses at once a request whose announced body is over `limit`, its route's, before anything waits for a
/// body that will be refused anyway (a body limit only counts what has arrived).
async fn announced_size(
    request: axum::extract::Request,
    next: axum::middleware::Next,
    limit: usize,
) -> axum::response::Response {
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return axum::response::IntoResponse::into_response(Error::TooLarge);
    }
    next.run(request).await
}

async fn api_not_found() -> Error {
    Error::NoRoute
}

pub(crate) fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, Error> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::TooLarge
        } else {
            Error::BadRequest(e.body_text())
        }
    })
}

/// Refuses a request whose `Origin` names another site. Browsers send `Origin` on cross-site POSTs and on
/// every WebSocket upgrade; other clients may leave it out.
fn same_origin(headers: &HeaderMap) -> Result<(), Error> {
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
        _ => Err(Error::ForeignOrigin),
    }
}
