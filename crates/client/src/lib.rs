//! tesuji-client: one client of the tesuji server's API (docs/API.md), spoken over HTTP and WebSockets the
//! way a browser speaks it. A [`Client`] is one user agent: its own cookie jar, the CSRF token of its session
//! on every state-changing request, and the server's own `Origin`. It signs up, logs in or plays as a guest,
//! sends JSON requests and hands back each answer's status and body, sends the game actions, and opens a game's
//! socket or the lobby's ([`Socket`]: JSON messages in and out, waits with a timeout).
//!
//! Its users: the server's API tests (`crates/server/tests/api.rs`), the crash and browser tests of the
//! `tesuji` binary (`crates/cli/tests/`), and `tesuji bench server` (`crates/load`). It knows the server only
//! by its wire format, never by its code, so that the server's tests can use it without a dependency cycle.
//!
//! An answer of the server, whatever its status, is data (`(status, body)`); [`Error`] is for what is not an
//! answer: no connection, a timeout, a body that is not JSON, a closed socket, and for the few calls that
//! need one particular answer (signing in), a refusal.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::cookie::{CookieStore, Jar};
use reqwest::header::{COOKIE, HeaderValue, ORIGIN, RETRY_AFTER, SET_COOKIE};
use reqwest::{Method, RequestBuilder, Response, Url};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub use reqwest;
pub use tokio_tungstenite::tungstenite::Utf8Bytes;

/// The header that carries the session's CSRF token on every state-changing request.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long a socket waits for a message by default.
pub const MESSAGE_TIMEOUT: Duration = Duration::from_secs(5);
/// [`Socket::next_matching`] gives up after this many messages that do not match.
pub const MATCH_LIMIT: usize = 20;

/// A server's answer: its HTTP status and its JSON body.
pub type Answer = (u16, Value);

/// What is not an answer of the server, or not the answer a call needs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    /// No complete answer: no connection, a timeout, a broken body.
    #[error("{what}: {source}")]
    Http {
        what: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("{what}: status {status}, not JSON ({reason}): {body}")]
    NotJson {
        what: String,
        status: u16,
        body: String,
        reason: String,
    },
    /// The server answered, but not with what the call needs (signing in, for example).
    #[error("{what}: refused with {status}: {body}")]
    Refused {
        what: String,
        status: u16,
        body: Value,
    },
    /// An answer without the fields the call needs.
    #[error("{what}: unexpected answer ({reason}): {body}")]
    Unexpected {
        what: String,
        reason: String,
        body: Value,
    },
    /// The WebSocket could not be opened (the server refused the upgrade, or is not there).
    #[error("{what}: {source}")]
    Connect {
        what: String,
        #[source]
        source: Box<tungstenite::Error>,
    },
    #[error("WebSocket: {0}")]
    Socket(#[source] Box<tungstenite::Error>),
    /// Nothing came (or could be sent) in time.
    #[error("no message within the time")]
    Timeout,
    /// The socket ended, or the server closed it.
    #[error("the socket was closed")]
    Closed,
    #[error("a message that is not JSON ({reason}): {text}")]
    NotJsonMessage { text: String, reason: String },
    #[error("no matching message among the next {0}")]
    NoMatch(usize),
}

/// How a [`Client`] waits.
#[derive(Clone, Debug)]
pub struct Options {
    /// The longest one HTTP request may take, or the opening of a socket; `None`: no limit.
    pub timeout: Option<Duration>,
    /// How long a socket's `next_*` and sends wait ([`Socket::set_timeout`] changes it per socket); `None`: no
    /// limit.
    pub message_timeout: Option<Duration>,
    /// A rate-limited request (429) is sent again after the server's `Retry-After` (1 to 60 s), at most this
    /// many times; 0: the 429 is the answer.
    pub rate_limit_retries: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout: None,
            message_timeout: Some(MESSAGE_TIMEOUT),
            rate_limit_retries: 0,
        }
    }
}

/// A user as the server shows it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub guest: bool,
}

/// The session a sign-up, log-in or guest sign-in opened.
#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    pub csrf: String,
    /// The `Set-Cookie` header of the sign-in, as the server sent it (attributes included).
    pub set_cookie: Option<String>,
}

/// An action in a game, over HTTP ([`Client::act`]) or the game's socket ([`Socket::act`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action<'a> {
    /// A play or a pass: `D4`, `pass`.
    Play(&'a str),
    Resign,
    /// Marking: the chain at the point changes between dead and alive.
    Dead(&'a str),
    Accept,
    Dispute,
    /// A win against an opponent absent for the grace period.
    Claim,
}

impl Action<'_> {
    /// The `type` of its socket message.
    pub fn kind(self) -> &'static str {
        match self {
            Action::Play(_) => "play",
            Action::Resign => "resign",
            Action::Dead(_) => "dead",
            Action::Accept => "accept",
            Action::Dispute => "dispute",
            Action::Claim => "claim",
        }
    }

    /// The last part of its HTTP path, `/api/games/{id}/...`.
    pub fn path(self) -> &'static str {
        match self {
            Action::Play(_) => "moves",
            other => other.kind(),
        }
    }
}

/// The body of an action over HTTP.
#[derive(Serialize)]
struct ActionBody<'a> {
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    mv: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u64>,
}

/// An action on the game's socket.
#[derive(Serialize)]
struct ActionMessage<'a, R> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    mv: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    point: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u64>,
    #[serde(rename = "ref")]
    reference: R,
}

fn fields(action: Action<'_>) -> (Option<&str>, Option<&str>) {
    match action {
        Action::Play(mv) => (Some(mv), None),
        Action::Dead(point) => (None, Some(point)),
        _ => (None, None),
    }
}

/// How to open a socket, when not as the client opens it by default.
#[derive(Clone, Debug, Default)]
pub struct SocketOptions {
    /// The `Origin` to send instead of the server's own (another site's, to see it refused).
    pub origin: Option<String>,
    /// The socket's read buffer (tungstenite's default is 128 KiB, zeroed before every read).
    pub read_buffer: Option<usize>,
    /// The size the write buffer reaches before it is written out; 0 writes every message at once.
    pub write_buffer: Option<usize>,
}

/// One user agent of one server: its own cookie jar, its session's CSRF token, and the server's own `Origin`
/// on every state-changing request and socket. A clone is the same user agent (the same jar).
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    jar: Arc<Jar>,
    /// `http://HOST:PORT`, no `/` at the end.
    base: String,
    /// `ws://HOST:PORT`
    ws_base: String,
    origin: HeaderValue,
    options: Options,
    session: Option<Session>,
    csrf: Option<String>,
}

/// The base URL without its last `/`, the sockets' base and the `Origin` of a server.
fn parse_base(base: &str) -> Result<(String, String, HeaderValue), Error> {
    let base = base.trim_end_matches('/');
    let bad = |reason: String| Error::Url {
        url: base.to_owned(),
        reason,
    };
    let url = Url::parse(base).map_err(|e| bad(e.to_string()))?;
    let ws = match url.scheme() {
        "http" => "ws",
        "https" => "wss",
        other => return Err(bad(format!("{other}: not an http or https URL"))),
    };
    let ws_base = format!("{ws}{}", &base[url.scheme().len()..]);
    let origin = HeaderValue::from_str(&url.origin().ascii_serialization())
        .map_err(|e| bad(e.to_string()))?;
    Ok((base.to_owned(), ws_base, origin))
}

fn build_http(options: &Options) -> Result<reqwest::Client, Error> {
    let mut builder = reqwest::Client::builder();
    if let Some(t) = options.timeout {
        builder = builder.timeout(t);
    }
    builder.build().map_err(|source| Error::Http {
        what: "the HTTP client".to_owned(),
        source,
    })
}

/// The seconds a 429 asks to wait, 1 to 60.
fn retry_after(response: &Response) -> Duration {
    let seconds = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1);
    Duration::from_secs(seconds.clamp(1, 60))
}

/// The sign-in answer's fields.
#[derive(Deserialize)]
struct SignedIn {
    user: User,
    csrf: String,
}

impl Client {
    /// A user agent with no session for the server at `base` (`http://127.0.0.1:8080`).
    pub fn new(base: &str) -> Result<Client, Error> {
        Client::with_options(base, Options::default())
    }

    pub fn with_options(base: &str, options: Options) -> Result<Client, Error> {
        let (base, ws_base, origin) = parse_base(base)?;
        Ok(Client {
            http: build_http(&options)?,
            jar: Arc::new(Jar::default()),
            base,
            ws_base,
            origin,
            options,
            session: None,
            csrf: None,
        })
    }

    /// Another user agent for the same server: the same connections and options, but its own empty cookie jar
    /// and no session. Many of them cost one connection pool.
    pub fn another(&self) -> Client {
        Client {
            jar: Arc::new(Jar::default()),
            session: None,
            csrf: None,
            ..self.clone()
        }
    }

    /// The same user agent (cookie jar, session, CSRF token) talking to the server at another address, such as
    /// the same data restarted, over new connections: none to the old address is reused.
    pub fn at(&self, base: &str) -> Result<Client, Error> {
        let (base, ws_base, origin) = parse_base(base)?;
        Ok(Client {
            http: build_http(&self.options)?,
            base,
            ws_base,
            origin,
            ..self.clone()
        })
    }

    /// The server's base URL, `http://HOST:PORT`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The URL of a path of the server (`/api/lobby`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The HTTP connections, for a request built by hand: it carries neither this client's cookies nor its
    /// headers ([`Client::request`] does).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The session of the last sign-in.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The signed-in user's id.
    pub fn user_id(&self) -> Option<i64> {
        self.session.as_ref().map(|s| s.user.id)
    }

    /// The CSRF token sent on state-changing requests.
    pub fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }

    /// Sends another CSRF token from now on, or none.
    pub fn set_csrf(&mut self, csrf: Option<String>) {
        self.csrf = csrf;
    }

    /// A request to a path of the server with this client's cookies and, unless it is a `GET` or `HEAD`, the
    /// server's `Origin` and the CSRF token. Send it with [`Client::send`] (which keeps the cookies it sets).
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let unsafe_method = !matches!(method, Method::GET | Method::HEAD);
        let target = self.url(path);
        let mut request = match Url::parse(&target) {
            Ok(url) => {
                let cookies = self.jar.cookies(&url);
                let request = self.http.request(method, url);
                match cookies {
                    Some(c) => request.header(COOKIE, c),
                    None => request,
                }
            }
            // reqwest reports the bad URL when it is sent.
            Err(_) => self.http.request(method, target),
        };
        if unsafe_method {
            request = request.header(ORIGIN, self.origin.clone());
            if let Some(csrf) = &self.csrf {
                request = request.header(CSRF_HEADER, csrf);
            }
        }
        request
    }

    /// Sends a request, keeps the cookies of its answer, and waits out rate limits as the options say.
    async fn execute(&self, request: RequestBuilder) -> Result<(String, Response), Error> {
        let mut request = request.build().map_err(|source| Error::Http {
            what: "a request".to_owned(),
            source,
        })?;
        let what = format!("{} {}", request.method(), request.url().path());
        let url = request.url().clone();
        let mut retries = 0;
        loop {
            let again = if retries < self.options.rate_limit_retries {
                request.try_clone()
            } else {
                None
            };
            let response = self
                .http
                .execute(request)
                .await
                .map_err(|source| Error::Http {
                    what: what.clone(),
                    source,
                })?;
            self.jar
                .set_cookies(&mut response.headers().get_all(SET_COOKIE).iter(), &url);
            match again {
                Some(next) if response.status().as_u16() == 429 => {
                    tokio::time::sleep(retry_after(&response)).await;
                    request = next;
                    retries += 1;
                }
                _ => return Ok((what, response)),
            }
        }
    }

    async fn json_answer(what: String, response: Response) -> Result<Answer, Error> {
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(|source| Error::Http {
            what: what.clone(),
            source,
        })?;
        match serde_json::from_slice(&bytes) {
            Ok(body) => Ok((status, body)),
            Err(e) => Err(Error::NotJson {
                what,
                status,
                body: String::from_utf8_lossy(&bytes).chars().take(500).collect(),
                reason: e.to_string(),
            }),
        }
    }

    /// Sends a request made with [`Client::request`]: its status and JSON body.
    pub async fn send(&self, request: RequestBuilder) -> Result<Answer, Error> {
        let (what, response) = self.execute(request).await?;
        Client::json_answer(what, response).await
    }

    /// `GET path`: the status and JSON body.
    pub async fn get(&self, path: &str) -> Result<Answer, Error> {
        self.send(self.request(Method::GET, path)).await
    }

    /// `GET path` of a text (an SGF file): the status and the text.
    pub async fn get_text(&self, path: &str) -> Result<(u16, String), Error> {
        let (what, response) = self.execute(self.request(Method::GET, path)).await?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|source| Error::Http { what, source })?;
        Ok((status, text))
    }

    /// `POST path` with a JSON body: the status and JSON body of the answer.
    pub async fn post<B: Serialize>(&self, path: &str, body: B) -> Result<Answer, Error> {
        self.send(self.request(Method::POST, path).json(&body))
            .await
    }

    /// A sign-in of any kind: the session, kept for the requests to come, when the status is `want`.
    async fn sign_in(&mut self, path: &str, body: Value, want: u16) -> Result<Session, Error> {
        let (what, response) = self
            .execute(self.request(Method::POST, path).json(&body))
            .await?;
        let set_cookie = response
            .headers()
            .get(SET_COOKIE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let (status, body) = Client::json_answer(what.clone(), response).await?;
        if status != want {
            return Err(Error::Refused { what, status, body });
        }
        let signed = SignedIn::deserialize(&body).map_err(|e| Error::Unexpected {
            what,
            reason: e.to_string(),
            body: body.clone(),
        })?;
        let session = Session {
            user: signed.user,
            csrf: signed.csrf,
            set_cookie,
        };
        self.csrf = Some(session.csrf.clone());
        self.session = Some(session.clone());
        Ok(session)
    }

    /// Plays as a guest named `name` (`POST /api/guest`, 201).
    pub async fn guest(&mut self, name: &str) -> Result<Session, Error> {
        self.sign_in("/api/guest", serde_json::json!({ "name": name }), 201)
            .await
    }

    /// Opens an account and signs in (`POST /api/signup`, 201).
    pub async fn sign_up(&mut self, name: &str, password: &str) -> Result<Session, Error> {
        let body = serde_json::json!({ "name": name, "password": password });
        self.sign_in("/api/signup", body, 201).await
    }

    /// Signs in to an account (`POST /api/login`, 200).
    pub async fn log_in(&mut self, name: &str, password: &str) -> Result<Session, Error> {
        let body = serde_json::json!({ "name": name, "password": password });
        self.sign_in("/api/login", body, 200).await
    }

    /// Signs out (`POST /api/logout`); the session is forgotten when the server answers 200.
    pub async fn log_out(&mut self) -> Result<Answer, Error> {
        let answer = self.post("/api/logout", serde_json::json!({})).await?;
        if answer.0 == 200 {
            self.session = None;
            self.csrf = None;
        }
        Ok(answer)
    }

    /// A new table (`POST /api/games` with `{"rules", "color", "opponent", ...}`).
    pub async fn create_game<B: Serialize>(&self, body: B) -> Result<Answer, Error> {
        self.post("/api/games", body).await
    }

    /// Takes the free seat of game `id` (`POST /api/games/{id}/join`), with the invitation's token if it has one.
    pub async fn join(&self, id: i64, invite: Option<&str>) -> Result<Answer, Error> {
        let path = format!("/api/games/{id}/join");
        match invite {
            Some(token) => {
                self.post(&path, serde_json::json!({ "invite": token }))
                    .await
            }
            None => self.post(&path, serde_json::json!({})).await,
        }
    }

    /// The state of game `id` (`GET /api/games/{id}`).
    pub async fn game(&self, id: i64) -> Result<Answer, Error> {
        self.get(&format!("/api/games/{id}")).await
    }

    /// An action in game `id` over HTTP, at `version` when given (refused as `stale_version` if the game has
    /// moved on).
    pub async fn act(
        &self,
        id: i64,
        action: Action<'_>,
        version: Option<u64>,
    ) -> Result<Answer, Error> {
        let (mv, point) = fields(action);
        let body = ActionBody { mv, point, version };
        self.post(&format!("/api/games/{id}/{}", action.path()), &body)
            .await
    }

    /// A play or a pass in game `id` (`D4`, `pass`), at whatever version the game is.
    pub async fn play(&self, id: i64, mv: &str) -> Result<Answer, Error> {
        self.act(id, Action::Play(mv), None).await
    }

    /// The WebSocket of game `id`, with this client's session cookie (a seated player may act over it) and the
    /// server's own `Origin`.
    pub async fn game_socket(&self, id: i64) -> Result<Socket, Error> {
        self.socket(&format!("/api/games/{id}/ws"), &SocketOptions::default())
            .await
    }

    /// The lobby's WebSocket.
    pub async fn lobby_socket(&self) -> Result<Socket, Error> {
        self.socket("/api/lobby/ws", &SocketOptions::default())
            .await
    }

    /// A WebSocket at a path of the server, with this client's cookies.
    pub async fn socket(&self, path: &str, options: &SocketOptions) -> Result<Socket, Error> {
        let what = format!("WebSocket {path}");
        let connect_error = |source| Error::Connect {
            what: what.clone(),
            source: Box::new(source),
        };
        let mut request = format!("{}{path}", self.ws_base)
            .into_client_request()
            .map_err(connect_error)?;
        let origin = match &options.origin {
            Some(o) => HeaderValue::from_str(o).map_err(|e| Error::Url {
                url: o.clone(),
                reason: e.to_string(),
            })?,
            None => self.origin.clone(),
        };
        request.headers_mut().insert(ORIGIN, origin);
        // The jar answers for the HTTP URL: its HttpOnly cookies are not for other schemes.
        if let Ok(url) = Url::parse(&self.url(path))
            && let Some(cookies) = self.jar.cookies(&url)
        {
            request.headers_mut().insert(COOKIE, cookies);
        }
        let mut config = WebSocketConfig::default();
        if let Some(n) = options.read_buffer {
            config = config.read_buffer_size(n);
        }
        if let Some(n) = options.write_buffer {
            config = config.write_buffer_size(n);
        }
        let connect = tokio_tungstenite::connect_async_with_config(request, Some(config), true);
        let connected = match self.options.timeout {
            Some(t) => tokio::time::timeout(t, connect)
                .await
                .map_err(|_| Error::Timeout)?,
            None => connect.await,
        };
        let (ws, _) = connected.map_err(connect_error)?;
        Ok(Socket {
            ws,
            timeout: self.options.message_timeout,
        })
    }
}

/// An open WebSocket of the server: JSON messages out, text or JSON messages in, every wait bounded by its
/// timeout.
#[derive(Debug)]
pub struct Socket {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    timeout: Option<Duration>,
}

impl Socket {
    /// How long the socket waits for a message, or to send one, from now on; `None`: no limit.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// Sends a text message as it is.
    pub async fn send_text(&mut self, text: impl Into<Utf8Bytes>) -> Result<(), Error> {
        let send = self.ws.send(Message::Text(text.into()));
        let sent = match self.timeout {
            Some(t) => tokio::time::timeout(t, send)
                .await
                .map_err(|_| Error::Timeout)?,
            None => send.await,
        };
        sent.map_err(|e| Error::Socket(Box::new(e)))
    }

    /// Sends a message as JSON (one that JSON cannot write, a map whose keys are not strings, is
    /// [`Error::NotJsonMessage`]).
    pub async fn send_json<M: Serialize + ?Sized>(&mut self, message: &M) -> Result<(), Error> {
        // Serializing plain data into a string cannot fail; a map with keys that are not strings could.
        let text = serde_json::to_string(message).map_err(|e| Error::NotJsonMessage {
            text: String::new(),
            reason: e.to_string(),
        })?;
        self.send_text(text).await
    }

    /// An action over the game's socket, `{"type": "play", "move": "D4", "version": 5, "ref": 1}`: answered
    /// `ack` or `error` with the same `ref`, the event itself coming like any other.
    pub async fn act<R: Serialize>(
        &mut self,
        action: Action<'_>,
        version: Option<u64>,
        reference: R,
    ) -> Result<(), Error> {
        let (mv, point) = fields(action);
        let message = ActionMessage {
            kind: action.kind(),
            mv,
            point,
            version,
            reference,
        };
        self.send_json(&message).await
    }

    /// Asks the game's socket for a fresh `state`: `{"type": "resync"}`.
    pub async fn resync(&mut self) -> Result<(), Error> {
        self.send_text(r#"{"type":"resync"}"#).await
    }

    /// The next text message, waiting until `deadline` (`None`: as long as it takes); other frames are
    /// skipped.
    pub async fn next_text_until(&mut self, deadline: Option<Instant>) -> Result<Utf8Bytes, Error> {
        loop {
            let next = match deadline {
                Some(d) => tokio::time::timeout_at(d, self.ws.next())
                    .await
                    .map_err(|_| Error::Timeout)?,
                None => self.ws.next().await,
            };
            match next {
                None | Some(Ok(Message::Close(_))) => return Err(Error::Closed),
                Some(Err(e)) => return Err(Error::Socket(Box::new(e))),
                Some(Ok(Message::Text(text))) => return Ok(text),
                Some(Ok(_)) => {}
            }
        }
    }

    /// The next text message, within the socket's timeout.
    pub async fn next_text(&mut self) -> Result<Utf8Bytes, Error> {
        let deadline = self.timeout.map(|t| Instant::now() + t);
        self.next_text_until(deadline).await
    }

    /// The next message as JSON, within the socket's timeout.
    pub async fn next_json(&mut self) -> Result<Value, Error> {
        let text = self.next_text().await?;
        serde_json::from_str(text.as_str()).map_err(|e| Error::NotJsonMessage {
            text: text.as_str().chars().take(500).collect(),
            reason: e.to_string(),
        })
    }

    /// The next message that satisfies `want`, skipping others, at most [`MATCH_LIMIT`] of them.
    pub async fn next_matching(&mut self, want: impl Fn(&Value) -> bool) -> Result<Value, Error> {
        for _ in 0..MATCH_LIMIT {
            let m = self.next_json().await?;
            if want(&m) {
                return Ok(m);
            }
        }
        Err(Error::NoMatch(MATCH_LIMIT))
    }

    /// Closes the socket (a close frame, then the end).
    pub async fn close(&mut self) -> Result<(), Error> {
        self.ws
            .close(None)
            .await
            .map_err(|e| Error::Socket(Box::new(e)))
    }
}
