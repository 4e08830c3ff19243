//! How an error is answered over HTTP and on the sockets: its status, its short reason code, and its JSON body
//! (`{error, reason}`, with a superko's repeated position and a claim's wait when they apply). The errors
//! themselves are the core's and the features' (`crate::error::Error`), which know no HTTP.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::{Error, illegal_reason};

impl Error {
    /// The status and the short reason code of the answer.
    pub fn status_and_reason(&self) -> (StatusCode, &'static str) {
        match self {
            Error::NotFound(_) | Error::NoUpload(_) => (StatusCode::NOT_FOUND, "not_found"),
            Error::LiveGamePosition { .. } => (StatusCode::CONFLICT, "live_game_position"),
            Error::UploadQuota { .. } => (StatusCode::TOO_MANY_REQUESTS, "upload_quota"),
            Error::ReviewQueue { .. } => (StatusCode::TOO_MANY_REQUESTS, "review_queue"),
            Error::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            Error::BadRules(_) => (StatusCode::BAD_REQUEST, "bad_rules"),
            Error::Illegal(i) | Error::Superko { reason: i, .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, illegal_reason(i))
            }
            Error::StaleVersion { .. } => (StatusCode::CONFLICT, "stale_version"),
            Error::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            Error::TooManyMoves | Error::RecordTooLong { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "too_many_moves")
            }
            Error::Store(e) if e.is_unavailable() => {
                (StatusCode::SERVICE_UNAVAILABLE, "store_unavailable")
            }
            Error::Store(_) | Error::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            Error::BadName(_) => (StatusCode::BAD_REQUEST, "bad_name"),
            Error::BadPassword(_) => (StatusCode::BAD_REQUEST, "bad_password"),
            Error::NameTaken => (StatusCode::CONFLICT, "name_taken"),
            Error::WrongLogin => (StatusCode::UNAUTHORIZED, "wrong_login"),
            Error::WrongPassword => (StatusCode::FORBIDDEN, "wrong_password"),
            Error::NotAnAccount => (StatusCode::FORBIDDEN, "not_an_account"),
            Error::NoSession => (StatusCode::NOT_FOUND, "no_session"),
            Error::BadReset => (StatusCode::BAD_REQUEST, "bad_reset"),
            Error::GamesInPlay(_) => (StatusCode::CONFLICT, "games_in_play"),
            Error::NotSignedIn => (StatusCode::UNAUTHORIZED, "not_signed_in"),
            Error::Csrf => (StatusCode::FORBIDDEN, "csrf"),
            Error::NotSeated => (StatusCode::FORBIDDEN, "not_seated"),
            Error::SeatTaken => (StatusCode::CONFLICT, "seat_taken"),
            Error::BadInvite => (StatusCode::FORBIDDEN, "bad_invite"),
            Error::AlreadySeated => (StatusCode::CONFLICT, "already_seated"),
            Error::NotOpen => (StatusCode::CONFLICT, "not_open"),
            Error::NotStarted => (StatusCode::UNPROCESSABLE_ENTITY, "not_started"),
            Error::RateLimited { .. } | Error::AccountRateLimited { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
            }
            Error::TooManySockets { .. } => (StatusCode::TOO_MANY_REQUESTS, "too_many_sockets"),
            Error::TooManyTables { .. } => (StatusCode::TOO_MANY_REQUESTS, "too_many_tables"),
            Error::TooManySeeks { .. } => (StatusCode::TOO_MANY_REQUESTS, "too_many_seeks"),
            Error::ForeignOrigin => (StatusCode::FORBIDDEN, "foreign_origin"),
            Error::NoUser(_) | Error::NoRoute => (StatusCode::NOT_FOUND, "not_found"),
            Error::BadSgf(_) => (StatusCode::UNPROCESSABLE_ENTITY, "bad_sgf"),
            Error::NoClaim => (StatusCode::UNPROCESSABLE_ENTITY, "no_claim"),
            Error::OpponentPresent => (StatusCode::CONFLICT, "opponent_present"),
            Error::GraceNotOver { .. } => (StatusCode::CONFLICT, "grace_not_over"),
            Error::NotOver | Error::NotOverYet => (StatusCode::CONFLICT, "not_over"),
            Error::NoChange(_) => (StatusCode::CONFLICT, "no_change"),
            Error::Moved => (StatusCode::CONFLICT, "moved"),
            Error::NoMoves => (StatusCode::CONFLICT, "no_moves"),
            Error::NotAwaited => (StatusCode::CONFLICT, "not_their_turn"),
            Error::RankedNeedsAccount => (StatusCode::FORBIDDEN, "ranked_needs_account"),
            Error::RankedSettings(_) => (StatusCode::BAD_REQUEST, "ranked_settings"),
            Error::PlayersGetNoEstimate => (StatusCode::FORBIDDEN, "players_get_no_estimate"),
            Error::NoUndo(_) | Error::UndoPaused { .. } => (StatusCode::CONFLICT, "no_undo"),
            Error::NoSeek(_) => (StatusCode::NOT_FOUND, "no_seek"),
            Error::OnVacation { .. } => (StatusCode::CONFLICT, "on_vacation"),
            Error::NotOnVacation => (StatusCode::CONFLICT, "not_on_vacation"),
            Error::VacationTooLong { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "vacation_too_long")
            }
        }
    }
}

/// An error's JSON body.
#[derive(Serialize)]
struct Body<'a> {
    error: String,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    claim_in_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeats: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    board: Option<&'a [String]>,
}

/// The seconds a client is asked to wait (`Retry-After`) when the database cannot be reached.
pub const STORE_RETRY_AFTER_S: u64 = 2;

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let (status, reason) = self.status_and_reason();
        if status.is_server_error() {
            // The details go to the log only: they may name files or queries.
            tracing::error!(error = ?self, "request failed");
        }
        let mut response = (
            status,
            Json(Body {
                error: self.to_string(),
                reason,
                claim_in_ms: self.claim_in_ms(),
                repeats: self.repeats().map(|(n, _)| n),
                board: self.repeats().map(|(_, b)| b),
            }),
        )
            .into_response();
        let retry_after = match &self {
            Error::RateLimited { retry_after } | Error::AccountRateLimited { retry_after } => {
                Some(*retry_after)
            }
            _ if status == StatusCode::SERVICE_UNAVAILABLE => Some(STORE_RETRY_AFTER_S),
            _ => None,
        };
        if let Some(retry_after) = retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, retry_after.into());
        }
        response
    }
}
