//! Accounts, guests and sessions: argon2id password hashes, random session tokens of which only a SHA-256 hash
//! is stored, a CSRF token per session. Users and sessions are read from the store and kept in bounded caches,
//! so that memory does not grow with the number of accounts.
//!
//! Names are checked by [`crate::names`] (NFC, no invisible characters, one script) and made with
//! [`Store::create_checked_user`]: an account's name is unique without regard to case and may not look like
//! another account's (the same confusable skeleton); a guest's name may repeat other guests' but may neither be
//! nor look like an account's. Guests never block accounts.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Argon2, PasswordHash};
use axum::http::{HeaderMap, HeaderValue, header};
use lru::LruCache;
use rand::RngExt;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::clocks::TimeSource;
use crate::error::Error;
use crate::names::{self, Name};
use crate::store::{
    AccountStore, NewUser, Rating, SESSION_IDLE_SECONDS, SESSION_TOUCH_SECONDS, SessionStore,
    StoreError, StoredSession,
};

/// The session cookie's name.
pub const COOKIE: &str = "tesuji_session";
/// The header that must carry the session's CSRF token on every state-changing request.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// Sessions last thirty days at most (the cookie's age); one unused for [`SESSION_IDLE_SECONDS`] lapses before.
const SESSION_SECONDS: i64 = 30 * 24 * 3600;
/// A password reset's link is good for a day.
pub const RESET_SECONDS: i64 = 24 * 3600;
/// The name a deleted account's games, ratings and chat messages are shown under (no account can take it: it
/// has a space).
pub const DELETED_NAME: &str = "deleted player";
/// The longest user agent stored with a session.
const USER_AGENT_CHARS: usize = 200;
const PASSWORD_MIN: usize = 8;
const PASSWORD_MAX: usize = 200;
/// Users and sessions kept in memory at most (each a few dozen bytes); others are read from the store.
const CACHE_ENTRIES: NonZeroUsize = NonZeroUsize::new(10_000).unwrap();
/// Accounts whose skeleton is filled in per round (see [`fill_skeletons`]).
const SKELETON_ROUND: usize = 500;

/// A user as every listing shows it: an account with its rating rounded and its rank (`5k`, or `5k?` while
/// provisional; a new account has a new player's 1500, 6k?), a guest with neither (guests are not rated).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub guest: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<String>,
}

impl User {
    /// A user as shown, from its stored rating (`None`: never rated).
    pub fn new(id: i64, name: String, guest: bool, rating: Option<Rating>) -> User {
        let mut user = User {
            id,
            name,
            guest,
            rating: None,
            rank: None,
        };
        user.set_rating(rating.unwrap_or_default());
        user
    }

    /// Shows `rating` beside an account's name (a guest's stays unrated).
    pub fn set_rating(&mut self, rating: Rating) {
        if self.guest {
            return;
        }
        self.rating = Some(rating.rating.round() as i32);
        self.rank = Some(rating.label());
    }
}

impl From<crate::store::StoredUser> for User {
    fn from(u: crate::store::StoredUser) -> User {
        User::new(u.id, u.name, u.guest, u.rating)
    }
}

/// A signed-in request: who, and the token that state-changing requests must repeat.
#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    pub csrf: String,
    token_hash: [u8; 32],
}

impl Session {
    /// The session's id as the account page shows it: the hex of its token's hash (never the token).
    pub fn id(&self) -> String {
        hex(&self.token_hash)
    }
}

/// The client a session is made for, as stored with it.
#[derive(Clone, Debug, Default)]
pub struct ClientInfo {
    pub user_agent: Option<String>,
    pub address: Option<String>,
}

impl ClientInfo {
    /// The `User-Agent` of `headers` (cut) and the client's address.
    pub fn new(headers: &HeaderMap, address: std::net::IpAddr) -> ClientInfo {
        ClientInfo {
            user_agent: headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.chars().take(USER_AGENT_CHARS).collect()),
            address: Some(address.to_string()),
        }
    }
}

/// One of an account's sessions as its owner sees it.
#[derive(Clone, Debug, Serialize)]
pub struct SessionView {
    /// The hex of the token's hash.
    pub id: String,
    pub created: i64,
    pub last_used: i64,
    pub user_agent: Option<String>,
    pub address: Option<String>,
    /// The session of the request that asked.
    pub current: bool,
}

/// Why a password reset could not be issued.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("no account is named {0:?}")]
    NoAccount(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot start a runtime: {0}")]
    Runtime(String),
}

/// A session just made: the cookie to set and what the client needs.
pub struct NewSession {
    pub user: User,
    pub csrf: String,
    pub cookie: HeaderValue,
}

#[derive(Clone)]
struct CachedSession {
    user_id: i64,
    csrf: String,
    expires: i64,
    last_used: i64,
}

/// Users and sessions, backed by the store and cached in memory (a move must not wait for a session read): the
/// most recently used of each, at most [`CACHE_ENTRIES`].
/// How long a cookie the store knows no session for is answered from memory.
const UNKNOWN_SESSION_SECONDS: i64 = 60;

pub struct Accounts {
    store: Arc<dyn AccountStore>,
    session_store: Arc<dyn SessionStore>,
    /// Whether the session cookie carries `Secure` (the server is reached over HTTPS).
    secure_cookies: bool,
    /// The server's time: sessions' ages and lapses are read on it (seconds of its wall time).
    time: TimeSource,
    users: Mutex<LruCache<i64, User>>,
    sessions: Mutex<LruCache<[u8; 32], CachedSession>>,
    /// Cookies the store had no session for, and until when (seconds) that answer stands: a client sending a
    /// made-up or stale cookie with every request costs one store read a while, not one per request.
    unknown: Mutex<LruCache<[u8; 32], i64>>,
    /// Set once every account has its name's skeleton stored (accounts made before skeletons were kept get
    /// theirs at start): no new name is made before.
    skeletons: Arc<tokio::sync::OnceCell<()>>,
}

/// A cache's lock; a panic elsewhere while holding it leaves a cache that is still consistent.
fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Checks a name: 1 to 32 letters (any script, one at a time), digits, `_`, `-` or `.`, normalized to NFC
/// (see [`crate::names`]).
pub fn check_name(name: &str) -> Result<Name, Error> {
    names::check(name).map_err(|e| Error::BadName(e.to_string()))
}

fn check_password(password: &str) -> Result<(), Error> {
    let n = password.chars().count();
    if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&n) {
        return Err(Error::BadPassword(format!(
            "a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
        )));
    }
    Ok(())
}

/// Creates a user under a checked name; a collision with an account's name is the client's error.
async fn create(
    store: &dyn AccountStore,
    name: &Name,
    password_hash: Option<&str>,
) -> Result<i64, Error> {
    let user = NewUser {
        name: &name.text,
        name_key: &name.key,
        skeleton: &name.skeleton,
        password_hash,
    };
    match store.create_checked_user(&user).await {
        Ok(id) => Ok(id),
        Err(StoreError::NameTaken) => Err(Error::NameTaken),
        Err(e @ StoreError::LooksLike { .. }) => Err(Error::BadName(e.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// Stores the skeleton of every account's name that has none (accounts made before skeletons were kept, or
/// by [`Store::create_user`]), a round at a time; answers how many.
async fn fill_skeletons(store: &dyn AccountStore) -> Result<usize, StoreError> {
    let mut after = 0;
    let mut filled = 0;
    loop {
        let accounts = store
            .accounts_without_skeleton(after, SKELETON_ROUND)
            .await?;
        let Some(&(last, _)) = accounts.last() else {
            break;
        };
        after = last;
        let skeletons: Vec<(i64, String)> = accounts
            .into_iter()
            .map(|(id, name)| (id, names::skeleton_of(&name)))
            .collect();
        store.set_skeletons(&skeletons).await?;
        filled += skeletons.len();
    }
    if filled > 0 {
        tracing::info!(
            accounts = filled,
            "name skeletons of earlier accounts filled in"
        );
    }
    Ok(filled)
}

fn random_hex(bytes: usize) -> String {
    let mut rng = rand::rng();
    (0..bytes)
        .map(|_| format!("{:02x}", rng.random::<u8>()))
        .collect()
}

fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a hex session id (`None` when it is not 32 bytes of hex).
fn unhex(id: &str) -> Option<[u8; 32]> {
    if id.len() != 64 || !id.is_ascii() {
        return None;
    }
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&id[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(bytes)
}

/// Issues a one-time password reset of the account named `name` (any case or normalization), valid from `now`
/// (seconds) for [`RESET_SECONDS`]: answers the token, of which only the hash is stored. The operator's
/// `tesuji reset-password` gives it as a link.
pub async fn issue_reset(
    store: &dyn AccountStore,
    name: &str,
    now: i64,
) -> Result<String, ResetError> {
    let key = names::key(name);
    let mut found = store.find_account(&key).await?;
    let unnormalized = name.trim().to_lowercase();
    if found.is_none() && unnormalized != key {
        found = store.find_account(&unnormalized).await?;
    }
    let Some(account) = found.filter(|a| a.password_hash.is_some()) else {
        return Err(ResetError::NoAccount(name.to_owned()));
    };
    let token = random_hex(32);
    store
        .create_reset(&token_hash(&token), account.id, now + RESET_SECONDS)
        .await?;
    Ok(token)
}

fn hash_password(password: String) -> Result<String, Error> {
    // argon2id with the crate's recommended parameters and a random salt.
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| Error::Internal(e.to_string()))
}

fn verify_password(password: String, hash: String) -> bool {
    PasswordHash::new(&hash).is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// Runs a CPU-heavy hash off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Error> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::Internal(e.to_string()))
}

/// The value of the session cookie in a request's headers.
fn cookie_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == COOKIE).then_some(v)
        })
}

/// [`issue_reset`] of the account named `name` in `database`, now, on a runtime of its own: the operator's
/// `tesuji reset-password`.
pub fn issue_reset_now(database: &crate::Database, name: &str) -> Result<String, ResetError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ResetError::Runtime(e.to_string()))?;
    runtime.block_on(async {
        let store = crate::store::open(database).await?;
        let token = issue_reset(&*store, name, crate::store::now()).await;
        store.close().await?;
        token
    })
}

impl Accounts {
    /// Accounts over `store`, their sessions over `session_store`. `secure_cookies`: the session cookie is marked `Secure`, for a server that users
    /// reach over HTTPS (browsers then never send it over plain HTTP).
    ///
    /// The skeletons of earlier accounts' names are filled in at once in the background when there is a tokio
    /// runtime, else before the first new name; every new name waits for them.
    pub fn new(
        store: Arc<dyn AccountStore>,
        session_store: Arc<dyn SessionStore>,
        secure_cookies: bool,
        time: TimeSource,
    ) -> Accounts {
        let skeletons = Arc::new(tokio::sync::OnceCell::new());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (store, skeletons) = (Arc::clone(&store), Arc::clone(&skeletons));
            runtime.spawn(async move {
                let filled = skeletons
                    .get_or_try_init(|| async { fill_skeletons(&*store).await.map(|_| ()) })
                    .await;
                if let Err(e) = filled {
                    // Tried again before the next new name.
                    tracing::error!(error = %e, "filling in the skeletons of account names failed");
                }
            });
        }
        Accounts {
            store,
            session_store,
            secure_cookies,
            time,
            users: Mutex::new(LruCache::new(CACHE_ENTRIES)),
            sessions: Mutex::new(LruCache::new(CACHE_ENTRIES)),
            unknown: Mutex::new(LruCache::new(CACHE_ENTRIES)),
            skeletons,
        }
    }

    /// Now, in seconds of the server's wall time.
    fn now(&self) -> i64 {
        i64::try_from(self.time.wall_ms() / 1000).unwrap_or(i64::MAX)
    }

    /// Waits until every account's name has its skeleton stored, so that a new name is compared with all.
    async fn skeletons_ready(&self) -> Result<(), StoreError> {
        self.skeletons
            .get_or_try_init(|| async { fill_skeletons(&*self.store).await.map(|_| ()) })
            .await?;
        Ok(())
    }

    /// The `Set-Cookie` value of a session cookie holding `token` for `seconds`.
    fn cookie(
        &self,
        token: &str,
        seconds: i64,
    ) -> Result<HeaderValue, axum::http::header::InvalidHeaderValue> {
        let secure = if self.secure_cookies { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age={seconds}{secure}"
        ))
    }

    /// The `Set-Cookie` value that removes the session cookie.
    pub fn clear_cookie(&self) -> HeaderValue {
        self.cookie("", 0).unwrap_or_else(|_| {
            HeaderValue::from_static("tesuji_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0")
        })
    }

    /// The user with this id, from the cache or else the store.
    pub async fn user(&self, id: i64) -> Result<Option<User>, StoreError> {
        if let Some(user) = locked(&self.users).get(&id) {
            return Ok(Some(user.clone()));
        }
        let Some(stored) = self.store.find_user(id).await? else {
            return Ok(None);
        };
        let user = User::from(stored);
        self.remember(&user);
        Ok(Some(user))
    }

    /// Several users at once.
    pub async fn users(&self, ids: &[Option<i64>]) -> Result<Vec<Option<User>>, StoreError> {
        let mut users = Vec::with_capacity(ids.len());
        for id in ids {
            users.push(match id {
                Some(id) => self.user(*id).await?,
                None => None,
            });
        }
        Ok(users)
    }

    /// A user's rating has changed: shown so from now on wherever the cached user is read.
    pub fn rated(&self, id: i64, rating: Rating) {
        if let Some(user) = locked(&self.users).get_mut(&id) {
            user.set_rating(rating);
        }
    }

    /// Puts a user known from elsewhere (a listing row, a sign-up) in the cache.
    pub fn remember(&self, user: &User) {
        locked(&self.users).put(user.id, user.clone());
    }

    async fn start_session(&self, user: User, client: ClientInfo) -> Result<NewSession, Error> {
        let token = random_hex(32);
        let csrf = random_hex(16);
        let now = self.now();
        // The ceiling on the system's clock, as the cookie's age runs in the browser; use on the server's time.
        let expires = crate::store::now() + SESSION_SECONDS;
        let hash = token_hash(&token);
        self.session_store
            .create_session(
                &hash,
                &StoredSession {
                    user_id: user.id,
                    csrf: csrf.clone(),
                    expires,
                    created: now,
                    last_used: now,
                    user_agent: client.user_agent,
                    address: client.address,
                },
            )
            .await?;
        locked(&self.sessions).put(
            hash,
            CachedSession {
                user_id: user.id,
                csrf: csrf.clone(),
                expires,
                last_used: now,
            },
        );
        let cookie = self
            .cookie(&token, SESSION_SECONDS)
            .map_err(|e| Error::Internal(e.to_string()))?;
        Ok(NewSession { user, csrf, cookie })
    }

    /// Creates an account and signs it in.
    pub async fn sign_up(
        &self,
        name: &str,
        password: &str,
        client: ClientInfo,
    ) -> Result<NewSession, Error> {
        let name = check_name(name)?;
        check_password(password)?;
        let password = password.to_owned();
        let hash = blocking(move || hash_password(password)).await??;
        self.skeletons_ready().await?;
        let id = create(&*self.store, &name, Some(&hash)).await?;
        let user = User::new(id, name.text, false, None);
        self.remember(&user);
        self.start_session(user, client).await
    }

    /// Signs an account in, found by its name in any case and any normalization form. An unknown name and a
    /// wrong password get the same answer.
    pub async fn log_in(
        &self,
        name: &str,
        password: &str,
        client: ClientInfo,
    ) -> Result<NewSession, Error> {
        let key = names::key(name);
        let mut found = self.store.find_account(&key).await?;
        // An account made before names were normalized has its key lowered only.
        let unnormalized = name.trim().to_lowercase();
        if found.is_none() && unnormalized != key {
            found = self.store.find_account(&unnormalized).await?;
        }
        let password = password.to_owned();
        let Some(stored) = found else {
            // Hash anyway so that timing does not tell which names exist.
            let _ = blocking(move || hash_password(password)).await;
            return Err(Error::WrongLogin);
        };
        let Some(hash) = stored.password_hash else {
            return Err(Error::WrongLogin);
        };
        if !blocking(move || verify_password(password, hash)).await? {
            return Err(Error::WrongLogin);
        }
        let user = User::new(stored.id, stored.name, false, stored.rating);
        self.start_session(user, client).await
    }

    /// Creates a guest under a chosen name and signs it in. The name may be another guest's, but neither be
    /// an account's (`name_taken`) nor look like one (`bad_name`).
    pub async fn guest(&self, name: &str, client: ClientInfo) -> Result<NewSession, Error> {
        let name = check_name(name)?;
        self.skeletons_ready().await?;
        let id = create(&*self.store, &name, None).await?;
        let user = User::new(id, name.text, true, None);
        self.remember(&user);
        self.start_session(user, client).await
    }

    /// The session of a request, if it has a valid one.
    pub async fn session(&self, headers: &HeaderMap) -> Result<Option<Session>, Error> {
        let Some(token) = cookie_token(headers) else {
            return Ok(None);
        };
        let hash = token_hash(token);
        let now = self.now();
        let real = crate::store::now();
        let cached = locked(&self.sessions).get(&hash).cloned();
        let cached = match cached {
            Some(c) => c,
            // Not in memory: a session from before a restart, read once and cached; or no session at all,
            // which is remembered for a while too. (A new session's token is random: it is never one of these.)
            None => {
                if locked(&self.unknown)
                    .get(&hash)
                    .is_some_and(|&until| until > real)
                {
                    return Ok(None);
                }
                let Some(c) = self.read_session(&hash).await? else {
                    locked(&self.unknown).put(hash, real + UNKNOWN_SESSION_SECONDS);
                    return Ok(None);
                };
                if c.expires >= real {
                    locked(&self.sessions).put(hash, c.clone());
                }
                c
            }
        };
        if cached.expires < real {
            return Ok(None);
        }
        let cached = match self.check_use(&hash, cached, now).await? {
            Some(c) => c,
            None => return Ok(None),
        };
        let Some(user) = self.user(cached.user_id).await? else {
            return Ok(None);
        };
        Ok(Some(Session {
            user,
            csrf: cached.csrf,
            token_hash: hash,
        }))
    }

    async fn read_session(&self, hash: &[u8; 32]) -> Result<Option<CachedSession>, StoreError> {
        Ok(self
            .session_store
            .find_session(hash)
            .await?
            .map(|s| CachedSession {
                user_id: s.user_id,
                csrf: s.csrf,
                expires: s.expires,
                last_used: s.last_used,
            }))
    }

    /// A session used `now`: refused and deleted when it has lapsed (unused for [`SESSION_IDLE_SECONDS`]; the
    /// store is asked first, since another node may have seen it used), its last use written when the stored
    /// one is an hour old or more.
    async fn check_use(
        &self,
        hash: &[u8; 32],
        mut cached: CachedSession,
        now: i64,
    ) -> Result<Option<CachedSession>, Error> {
        if cached.last_used + SESSION_IDLE_SECONDS < now {
            match self.read_session(hash).await? {
                Some(stored) if stored.last_used + SESSION_IDLE_SECONDS >= now => cached = stored,
                _ => {
                    locked(&self.sessions).pop(hash);
                    self.session_store.delete_session(hash).await?;
                    return Ok(None);
                }
            }
        }
        if now - cached.last_used >= SESSION_TOUCH_SECONDS {
            self.session_store.touch_session(hash, now).await?;
            cached.last_used = now;
            locked(&self.sessions).put(*hash, cached.clone());
        }
        Ok(Some(cached))
    }

    /// The signed-in user of a state-changing request: refused without a session or without the session's
    /// CSRF token in its header.
    pub async fn require(&self, headers: &HeaderMap) -> Result<Session, Error> {
        let session = self.session(headers).await?.ok_or(Error::NotSignedIn)?;
        let sent = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        // Compared in constant time: the token is a secret.
        let same = sent.is_some_and(|s| {
            s.len() == session.csrf.len()
                && s.bytes()
                    .zip(session.csrf.bytes())
                    .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                    == 0
        });
        if !same {
            return Err(Error::Csrf);
        }
        Ok(session)
    }

    /// Forgets expired sessions kept in memory (the store sweeps its own when new sessions are made).
    pub fn sweep(&self) {
        let (t, real) = (self.now(), crate::store::now());
        let mut sessions = locked(&self.sessions);
        let expired: Vec<[u8; 32]> = sessions
            .iter()
            .filter(|(_, s)| s.expires < real || s.last_used + SESSION_IDLE_SECONDS < t)
            .map(|(k, _)| *k)
            .collect();
        for k in expired {
            sessions.pop(&k);
        }
    }

    /// Ends a session.
    pub async fn log_out(&self, session: &Session) -> Result<(), Error> {
        locked(&self.sessions).pop(&session.token_hash);
        self.session_store
            .delete_session(&session.token_hash)
            .await?;
        Ok(())
    }

    /// Forgets what this node keeps of `user`'s sessions but `keep` (ended here, or on another node that told),
    /// and the user itself (its name may have changed).
    pub fn forget_sessions(&self, user: i64, keep: Option<&[u8; 32]>) {
        let mut sessions = locked(&self.sessions);
        let theirs: Vec<[u8; 32]> = sessions
            .iter()
            .filter(|(k, s)| s.user_id == user && Some(*k) != keep)
            .map(|(k, _)| *k)
            .collect();
        for k in theirs {
            sessions.pop(&k);
        }
        drop(sessions);
        locked(&self.users).pop(&user);
    }

    /// Checks an account's password (`wrong_password`; a guest has none: `not_an_account`).
    pub async fn check_password_of(&self, user: &User, password: &str) -> Result<(), Error> {
        let Some(hash) = self.store.password_hash(user.id).await? else {
            return Err(Error::NotAnAccount);
        };
        let password = password.to_owned();
        if !blocking(move || verify_password(password, hash)).await? {
            return Err(Error::WrongPassword);
        }
        Ok(())
    }

    /// Changes the password of the session's account, its current one checked first; its other sessions end,
    /// this one stays. Answers how many ended.
    pub async fn change_password(
        &self,
        session: &Session,
        current: &str,
        new: &str,
    ) -> Result<u64, Error> {
        if session.user.guest {
            return Err(Error::NotAnAccount);
        }
        check_password(new)?;
        self.check_password_of(&session.user, current).await?;
        let new = new.to_owned();
        let hash = blocking(move || hash_password(new)).await??;
        let ended = self
            .store
            .set_password(session.user.id, &hash, Some(&session.token_hash))
            .await?;
        self.forget_sessions(session.user.id, Some(&session.token_hash));
        Ok(ended)
    }

    /// Sets a new password with a reset's token (once, before it expires); every session of the account ends.
    /// Answers the account and how many sessions ended.
    pub async fn reset_password(&self, token: &str, new: &str) -> Result<(i64, u64), Error> {
        check_password(new)?;
        let new = new.to_owned();
        let hash = blocking(move || hash_password(new)).await??;
        let (user, ended) = self
            .store
            .reset_password(&token_hash(token), self.now(), &hash)
            .await?
            .ok_or(Error::BadReset)?;
        self.forget_sessions(user, None);
        Ok((user, ended))
    }

    /// The sessions of the session's user, the most recently used first.
    pub async fn sessions(&self, session: &Session) -> Result<Vec<SessionView>, Error> {
        let now = self.now();
        Ok(self
            .session_store
            .user_sessions(session.user.id)
            .await?
            .into_iter()
            .filter(|(_, s)| {
                s.expires >= crate::store::now() && s.last_used + SESSION_IDLE_SECONDS >= now
            })
            .map(|(hash, s)| SessionView {
                current: hash == session.token_hash,
                id: hex(&hash),
                created: s.created,
                last_used: s.last_used,
                user_agent: s.user_agent,
                address: s.address,
            })
            .collect())
    }

    /// Ends one session of the session's user, by its id (`no_session` when the user has none such).
    pub async fn end_session(&self, session: &Session, id: &str) -> Result<(), Error> {
        let hash = unhex(&id.to_ascii_lowercase()).ok_or(Error::NoSession)?;
        if !self
            .session_store
            .end_session(session.user.id, &hash)
            .await?
        {
            return Err(Error::NoSession);
        }
        locked(&self.sessions).pop(&hash);
        Ok(())
    }

    /// Ends every other session of the session's user: how many.
    pub async fn end_other_sessions(&self, session: &Session) -> Result<u64, Error> {
        let ended = self
            .session_store
            .end_sessions(session.user.id, Some(&session.token_hash))
            .await?;
        self.forget_sessions(session.user.id, Some(&session.token_hash));
        Ok(ended)
    }

    /// Deletes the session's account (see [`Store::delete_account`]), its password checked by the caller: it
    /// stays under [`DELETED_NAME`], its name free again, every session of it ended.
    pub async fn delete_account(&self, session: &Session) -> Result<(), Error> {
        self.store
            .delete_account(session.user.id, DELETED_NAME)
            .await?;
        self.forget_sessions(session.user.id, None);
        locked(&self.sessions).pop(&session.token_hash);
        Ok(())
    }
}
