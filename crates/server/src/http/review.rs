//! A finished game's review by the search, or an uploaded file's: asked for, then read as it progresses; and a
//! live estimate.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::extract::{PathId, Reader, RecordWork, SignedIn};
use super::{AppState, body_bytes};
use crate::error::ApiError;
use crate::game::review::{ReviewView, UploadReviewView};

/// `GET /api/games/{id}/review`: the review as it stands (`none` until asked for).
pub(super) async fn review(
    State(app): State<AppState>,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, ApiError> {
    Ok(Json(app.games.review_of(id).await?))
}

/// `POST /api/games/{id}/review`: asks for the review of a finished game (signed in).
pub(super) async fn ask(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    PathId(id): PathId,
) -> Result<Json<ReviewView>, ApiError> {
    app.limits.action(s.user.id)?;
    Ok(Json(app.games.ask_review(s.user.id, id).await?))
}

/// `GET /api/games/{id}/estimate`: the search's estimate of the position now (signed in; a player only once the
/// game is over).
pub(super) async fn estimate(
    State(app): State<AppState>,
    Reader(user): Reader,
    PathId(id): PathId,
) -> Result<Json<serde_json::Value>, ApiError> {
    app.limits.action(user.id)?;
    Ok(Json(app.games.estimate(id, user.id).await?))
}

/// `POST /api/reviews`: asks for the review of an uploaded SGF file (signed in; the body is the file).
pub(super) async fn ask_upload(
    State(app): State<AppState>,
    SignedIn(s): SignedIn,
    work: RecordWork,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<UploadReviewView>, ApiError> {
    app.limits.action(s.user.id)?;
    let bytes = body_bytes(body)?;
    let view = app
        .games
        .ask_upload_review(s.user.id, bytes.to_vec())
        .await?;
    drop(work);
    Ok(Json(view))
}

/// `GET /api/reviews/{id}`: an uploaded file's review as it stands.
pub(super) async fn upload(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<UploadReviewView>, ApiError> {
    Ok(Json(app.games.upload_review(&name).await?))
}

/// `GET /api/reviews/{id}/sgf`: the file reviewed, byte for byte as it was uploaded.
pub(super) async fn upload_sgf(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let bytes = app.games.upload_sgf(&name).await?;
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
