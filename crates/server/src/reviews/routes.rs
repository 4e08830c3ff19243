//! The reviews' routes: a finished game's review by the search, or an uploaded file's, asked for, then read as
//! it progresses; and a live estimate.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRef, Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use super::{ReviewView, Reviews, UploadReviewView};
use crate::error::Error;
use crate::http::extract::{PathId, Reader, RecordWork, SignedIn};
use crate::http::{AppState, body_bytes, compressed, record_body};

/// The reviews' routes, on any state that holds the reviews and the core's.
pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Reviews>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new()
        .route(
            "/api/games/{id}/review",
            get(review).post(ask).layer(compressed()),
        )
        .route("/api/games/{id}/estimate", get(estimate))
        .route("/api/reviews/{id}", get(upload).layer(compressed()))
        .route("/api/reviews/{id}/sgf", get(upload_sgf))
}

/// The reviews' route that takes an uploaded record, with its own body limit (see [`record_body`]).
pub fn uploads<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Reviews>: FromRef<S>,
    AppState: FromRef<S>,
{
    Router::new().route("/api/reviews", record_body(post(ask_upload)))
}

/// `GET /api/games/{id}/review`: the review as it stands (`none` until asked for).
async fn review(
    State(reviews): State<Arc<Reviews>>,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, Error> {
    Ok(Json(reviews.review_of(id).await?))
}

/// `POST /api/games/{id}/review`: asks for the review of a finished game (signed in).
async fn ask(
    State(app): State<AppState>,
    State(reviews): State<Arc<Reviews>>,
    SignedIn(s): SignedIn,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, Error> {
    app.limits.action(s.user.id)?;
    Ok(Json(reviews.ask_review(s.user.id, id).await?))
}

/// `GET /api/games/{id}/estimate`: the search's estimate of the position now (signed in; a player only once the
/// game is over).
async fn estimate(
    State(app): State<AppState>,
    State(reviews): State<Arc<Reviews>>,
    Reader(user): Reader,
    PathId(id): PathId,
) -> Result<Json<serde_json::Value>, Error> {
    app.limits.action(user.id)?;
    Ok(Json(reviews.estimate(id, user.id).await?))
}

/// `POST /api/reviews`: asks for the review of an uploaded SGF file (signed in; the body is the file).
async fn ask_upload(
    State(app): State<AppState>,
    State(reviews): State<Arc<Reviews>>,
    SignedIn(s): SignedIn,
    work: RecordWork,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<UploadReviewView>, Error> {
    app.limits.action(s.user.id)?;
    let bytes = body_bytes(body)?;
    let view = reviews.ask_upload_review(s.user.id, bytes.to_vec()).await?;
    drop(work);
    Ok(Json(view))
}

/// `GET /api/reviews/{id}`: an uploaded file's review as it stands.
async fn upload(
    State(reviews): State<Arc<Reviews>>,
    Path(name): Path<String>,
) -> Result<Json<UploadReviewView>, Error> {
    Ok(Json(reviews.upload_review(&name).await?))
}

/// `GET /api/reviews/{id}/sgf`: the file reviewed, byte for byte as it was uploaded.
async fn upload_sgf(
    State(reviews): State<Arc<Reviews>>,
    Path(name): Path<String>,
) -> Result<Response, Error> {
    let bytes = reviews.upload_sgf(&name).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-go-sgf".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}.sgf\""),
            ),
        ],
        bytes,
    )
        .into_response())
}
