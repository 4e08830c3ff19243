//! The parts many routes read, as axum extractors whose every rejection is our JSON error: a JSON body, an id
//! in the path, a listing's page, a signed-in user, a sign-in attempt. They read any state that holds the
//! core's ([`AppState`]), so that the features' routes use them too.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{AppState, body_bytes, same_origin};
use crate::auth::Session;
use crate::error::Error;
use crate::game::Summary;

/// A JSON body: every failure (size, syntax, fields) is our `bad_request` or `too_large`, and an empty body
/// reads as `{}` (so that `POST /api/games/7/accept` needs none).
pub(crate) struct AppJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for AppJson<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        let bytes = body_bytes(Bytes::from_request(req, state).await)?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(bytes)
            .map(AppJson)
            .map_err(|e| Error::BadRequest(format!("malformed JSON: {e}")))
    }
}

/// The id in a route's path (`/api/games/{id}`, `/api/users/{id}/games`); a malformed one is a 400.
pub(crate) struct PathId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::BadRequest(e.body_text()))?;
        id.parse()
            .map(PathId)
            .map_err(|_| Error::BadRequest(format!("bad id {id:?}")))
    }
}

/// The signed-in user of a state-changing request: refused from another site's page (`foreign_origin`, beside
/// the CSRF token: a page that somehow has the token still cannot act from elsewhere), without a session
/// (`not_signed_in`) or without the session's CSRF token in its header (`csrf`).
pub(crate) struct SignedIn(pub Session);

impl<S: Send + Sync> FromRequestParts<S> for SignedIn
where
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let app = AppState::from_ref(state);
        same_origin(&parts.headers)?;
        app.accounts.require(&parts.headers).await.map(SignedIn)
    }
}

/// The signed-in user of a read (`not_signed_in` without a session): a read needs no CSRF token.
pub(crate) struct Reader(pub crate::auth::User);

impl<S: Send + Sync> FromRequestParts<S> for Reader
where
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let app = AppState::from_ref(state);
        let session = app.accounts.session(&parts.headers).await?;
        Ok(Reader(session.ok_or(Error::NotSignedIn)?.user))
    }
}

/// A sign-in attempt (sign-up, log-in, guest) that passed the checks every one passes, before its body is
/// read: from this site, and within its address's attempt budget. Holds the client's address.
pub(crate) struct SignIn(pub(crate) std::net::IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for SignIn
where
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let app = AppState::from_ref(state);
        same_origin(&parts.headers)?;
        let ConnectInfo(from) = ConnectInfo::<SocketAddr>::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::Internal(e.to_string()))?;
        let client = app.limits.client(from, &parts.headers);
        app.limits.auth(client)?;
        Ok(SignIn(client))
    }
}

/// Record work that anyone may ask for (a replay of an uploaded record, a game counted under every ruleset):
/// within its address's budget, and one of a few at once (the others wait their turn), so that a burst costs
/// bounded CPU and memory. The permit is held while the handler runs; the last one of a burst to finish gives
/// the memory the burst took back to the system.
pub(crate) struct RecordWork {
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    workers: usize,
}

impl Drop for RecordWork {
    fn drop(&mut self) {
        let Some(permit) = self.permit.take() else {
            return;
        };
        let semaphore = std::sync::Arc::clone(permit.semaphore());
        drop(permit);
        if semaphore.available_permits() == self.workers
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn_blocking(crate::memory::give_back);
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RecordWork
where
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let app = AppState::from_ref(state);
        let ConnectInfo(from) = ConnectInfo::<SocketAddr>::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::Internal(e.to_string()))?;
        app.limits
            .records(app.limits.client(from, &parts.headers))?;
        let permit = std::sync::Arc::clone(&app.record_work)
            .acquire_owned()
            .await
            .map_err(|e| Error::Internal(e.to_string()))?;
        Ok(RecordWork {
            permit: Some(permit),
            workers: app.record_workers,
        })
    }
}

/// The longest page of a listing.
const PAGE_LIMIT: usize = 100;
/// A page's length when the request names none.
const PAGE_DEFAULT: usize = 50;

/// `?before=ID&limit=N` of a listing: the page after game `before` (from the start when absent), at most `limit`
/// games (1 to 100, default 50). A malformed or out-of-range value is a 400 that quotes it.
pub(crate) struct Page {
    pub before: Option<i64>,
    pub limit: usize,
}

#[derive(Deserialize)]
struct PageQuery {
    before: Option<String>,
    limit: Option<String>,
}

/// At most 40 characters of a value quoted in an error.
fn shorten(text: &str) -> String {
    text.chars().take(40).collect()
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let Query(q) = Query::<PageQuery>::from_request_parts(parts, state)
            .await
            .map_err(|e| Error::BadRequest(format!("bad query: {e}")))?;
        let before = q
            .before
            .map(|b| {
                b.parse::<i64>().ok().filter(|&v| v > 0).ok_or_else(|| {
                    Error::BadRequest(format!("bad before {:?}: a game id", shorten(&b)))
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
                    Error::BadRequest(format!("bad limit {:?}: 1 to {PAGE_LIMIT}", shorten(&l)))
                })?,
        };
        Ok(Page { before, limit })
    }
}

impl Page {
    /// How many games to read: one more than the page tells whether another page follows.
    pub fn read_len(&self) -> usize {
        self.limit + 1
    }

    /// Cuts a listing read [`Page::read_len`] long to the page, and says where the next page starts (the last
    /// game's id) when there is one.
    pub fn cut(&self, mut games: Vec<Summary>) -> (Vec<Summary>, Option<i64>) {
        if games.len() <= self.limit {
            return (games, None);
        }
        games.truncate(self.limit);
        let next = games.last().map(|s| s.id);
        (games, next)
    }
}
