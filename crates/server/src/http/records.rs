//! Records: a game's SGF, its replay, its count under every ruleset, and replays of uploaded SGF.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::extract::{PathId, RecordWork};
use super::{AppState, body_bytes};
use crate::error::Error;
use crate::replay;

pub(super) async fn sgf(
    State(app): State<AppState>,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let entry = app.games.look(id).await?;
    let over = entry.lock().await.game.phase() == tesuji_rules::Phase::Over;
    let mut comments = Vec::new();
    for hook in &app.hooks.comments {
        comments.extend(hook.comments(id, over).await?);
    }
    // Each hook's comments are in order; together, by the move they were made at (a stable sort).
    comments.sort_by_key(|c| c.move_number);
    let (text, file) = {
        let live = entry.lock().await;
        (live.sgf(&comments), live.sgf_file_name())
    };
    // An ASCII fallback, and the name itself in UTF-8 (RFC 6266), since names may be in any script.
    let ascii: String = file
        .chars()
        .map(|c| if c.is_ascii() { c } else { '_' })
        .collect();
    let encoded: String = file
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-go-sgf; charset=utf-8".to_owned(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}"),
            ),
        ],
        text,
    )
        .into_response())
}

pub(super) async fn game_replay(
    State(app): State<AppState>,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let entry = app.games.look(id).await?;
    let view = entry.lock().await.replay_view();
    Ok(Json(view).into_response())
}

/// A finished game counted under every ruleset (its own first); refused while the game goes on.
pub(super) async fn game_rulesets(
    State(app): State<AppState>,
    PathId(id): PathId,
    work: RecordWork,
) -> Result<Response, Error> {
    let entry = app.games.look(id).await?;
    let game = entry.lock().await.game.clone();
    if game.phase() != tesuji_rules::Phase::Over {
        return Err(Error::NotOver);
    }
    // Eleven replays of the game: CPU work, off the async threads. The work holds its permit until it is done,
    // also when the client goes away meanwhile (the request's future is dropped, the thread goes on).
    let counts = tokio::task::spawn_blocking(move || {
        let _work = work;
        replay::rulesets(&game)
    })
    .await
    .map_err(|e| Error::Internal(e.to_string()))?;
    Ok(Json(json!({ "counts": counts })).into_response())
}

pub(super) async fn sgf_replay(
    work: RecordWork,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Error> {
    let bytes = body_bytes(body)?;
    // Reading a large record is CPU work: keep it off the async threads, holding the permit until it is done.
    let view = tokio::task::spawn_blocking(move || {
        let _work = work;
        replay::of_sgf(&bytes)
    })
    .await
    .map_err(|e| Error::Internal(e.to_string()))??;
    Ok(Json(view).into_response())
}
