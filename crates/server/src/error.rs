//! Errors: `ServerError` for starting and running the server, `Error` for what the core and the features
//! refuse or fail to do, each with its sentence; how one is answered (its status, its reason code, its JSON) is
//! the edge's, `crate::http::answer`.

use tesuji_rules::Illegal;

use crate::store::StoreError;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// NATS could not be reached, or a node was set up wrong for a cluster.
    #[error("{0}")]
    Nats(String),
}

/// A refused or failed request, answered as `{"error": "...", "reason": "..."}` with a 4xx or 5xx status.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no game {0}")]
    NotFound(i64),
    /// No uploaded record under this name.
    #[error("no review {0:?}")]
    NoUpload(String),
    #[error(
        "this record holds a position of your game {game}, which is still in play: it is reviewed once that game \
         has ended"
    )]
    LiveGamePosition { game: i64 },
    #[error(
        "you uploaded {limit} in the last 24 hours, the most a day: the next file can be uploaded in {frees_in}"
    )]
    UploadQuota { limit: String, frees_in: String },
    #[error(
        "{}",
        if *yours {
            format!("{limit} of your reviews are waiting already: ask for another when one of them is done")
        } else {
            format!("the review queue is full ({limit} waiting): ask again in a few minutes")
        }
    )]
    ReviewQueue { yours: bool, limit: i64 },
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("bad rules: {0}")]
    BadRules(String),
    #[error("{0}")]
    Illegal(#[from] Illegal),
    /// A superko refusal with the earlier position it would repeat: the number of the action after which it
    /// stood (0 for the start) and its rows.
    #[error("{}", superko_text(*.reason, *.repeats))]
    Superko {
        reason: Illegal,
        repeats: i64,
        board: Vec<String>,
    },
    #[error("the game is at version {current}, not {expected}: resync and try again")]
    StaleVersion { expected: u64, current: u64 },
    #[error("the request body is too large")]
    TooLarge,
    #[error("the game has too many moves")]
    TooManyMoves,
    #[error("the record has {turns} moves; a replay shows at most {limit}")]
    RecordTooLong { turns: usize, limit: usize },
    #[error("{}", store_sentence(.0))]
    Store(#[from] StoreError),
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{0}")]
    BadName(String),
    #[error("{0}")]
    BadPassword(String),
    #[error("that name is taken")]
    NameTaken,
    #[error("wrong name or password")]
    WrongLogin,
    #[error("the current password is wrong")]
    WrongPassword,
    #[error("a guest has no password: sign up for an account first")]
    NotAnAccount,
    #[error("you have no such session: it has ended")]
    NoSession,
    #[error("this reset link is unknown, used or expired: ask the operator for a new one")]
    BadReset,
    #[error("{}", in_play_text(.0))]
    GamesInPlay(Vec<i64>),
    #[error("sign in or play as a guest first")]
    NotSignedIn,
    #[error("the request lacks this session's CSRF token (header X-CSRF-Token)")]
    Csrf,
    #[error("only the players seated in this game may do that")]
    NotSeated,
    #[error("the seat is taken")]
    SeatTaken,
    #[error("this table is by invitation: the invite link is needed to join")]
    BadInvite,
    #[error("you are already seated in this game")]
    AlreadySeated,
    #[error("only a table nobody has joined can be cancelled")]
    NotOpen,
    #[error("the game has not started: a seat is still empty")]
    NotStarted,
    #[error("too many requests: try again in {retry_after} s")]
    RateLimited { retry_after: u64 },
    /// Too many failed log-ins to one account, from anywhere (see [`crate::limit::AccountGuard`]).
    #[error(
        "too many failed sign-ins to this account: try again in {retry_after} s (from where you signed in \
         before, at once)"
    )]
    AccountRateLimited { retry_after: u64 },
    #[error("{whose} has {open} sockets open, the most allowed ({limit}): close one first")]
    TooManySockets {
        open: u32,
        limit: u32,
        whose: &'static str,
    },
    #[error("you have {limit} open tables, the most allowed: cancel one or wait for an opponent")]
    TooManyTables { limit: usize },
    #[error(
        "you have {limit} seeks waiting, the most allowed: cancel one or wait for a match (a seek for the same \
         kind of game replaces its own)"
    )]
    TooManySeeks { limit: usize },
    #[error("the request comes from another site")]
    ForeignOrigin,
    #[error("no user {0}")]
    NoUser(i64),
    #[error("no such API route")]
    NoRoute,
    #[error("bad SGF: {0}")]
    BadSgf(String),
    #[error(
        "only a game in play under a clock of less than a day a move can be claimed from an absent player"
    )]
    NoClaim,
    #[error("your opponent is at the board (or is the computer): there is nothing to claim")]
    OpponentPresent,
    #[error("the game is not over: it is counted under other rules once it ends")]
    NotOver,
    #[error("the game is not over: a game is reviewed once it ends")]
    NotOverYet,
    #[error("the players of a game in play get no estimate of it (the spectators do)")]
    PlayersGetNoEstimate,
    #[error("a move has been played: the game can no longer be aborted (resign instead)")]
    Moved,
    #[error("nobody has moved yet: abort the game instead of claiming it")]
    NoMoves,
    /// An untimed game is claimed only from a player it waits for (docs/API.md).
    #[error("the game is waiting for you, not for your opponent: there is nothing to claim")]
    NotAwaited,
    /// An action that would change nothing (a second accept, a mark on an empty point): refused, not stored.
    #[error("{0}")]
    NoChange(&'static str),
    #[error("no waiting seek {0} of yours")]
    NoSeek(i64),
    /// A request to take back a move that cannot be made or answered now: why.
    #[error("{0}")]
    NoUndo(&'static str),
    /// A request to take back the move whose last request was just declined (the pause after a refusal).
    #[error(
        "your opponent declined to take this move back: you may ask again in {} s (your next move at once)",
        again_in_ms.div_ceil(1000)
    )]
    UndoPaused { again_in_ms: u64 },
    #[error("you are on vacation until {until} already: come back first to take another")]
    OnVacation { until: String },
    #[error("you are not on vacation")]
    NotOnVacation,
    #[error("{asked} days is more than the {left} whole days of vacation you have left this year")]
    VacationTooLong { asked: u32, left: i64 },
    #[error("only accounts play ranked games: sign up to play one (guests are not rated)")]
    RankedNeedsAccount,
    #[error("{0}")]
    RankedSettings(String),
    #[error("your opponent's grace period is not over: you may claim in {} s", claim_in_ms.div_ceil(1000))]
    GraceNotOver { claim_in_ms: u64 },
}

/// The sentence of a superko refusal, with the game's own move number.
fn superko_text(reason: Illegal, repeats: i64) -> String {
    let refusal = tesuji_rules::Refusal {
        reason,
        repeats: Some(u32::try_from(repeats).unwrap_or(u32::MAX)),
    };
    refusal.to_string()
}

/// A short machine-readable name of an illegal move's reason.
pub fn illegal_reason(i: &Illegal) -> &'static str {
    match i {
        Illegal::GameOver => "game_over",
        Illegal::NotPlaying => "not_playing",
        Illegal::NotMarking => "not_marking",
        Illegal::NotYourTurn { .. } => "not_your_turn",
        Illegal::OffBoard { .. } => "off_board",
        Illegal::Occupied => "occupied",
        Illegal::Suicide => "suicide",
        Illegal::Ko(_) => "ko",
        Illegal::ForcedPass => "forced_pass",
        Illegal::HandicapPlacement => "handicap_placement",
    }
}

impl Error {
    /// For a superko refusal: the number of the action after which the repeated position stood, and its rows.
    pub fn repeats(&self) -> Option<(i64, &[String])> {
        match self {
            Error::Superko { repeats, board, .. } => Some((*repeats, board)),
            _ => None,
        }
    }

    /// For a claim made too early: how long until it can be made.
    pub fn claim_in_ms(&self) -> Option<u64> {
        match self {
            Error::GraceNotOver { claim_in_ms } => Some(*claim_in_ms),
            _ => None,
        }
    }
}

/// The refusal of an account's deletion while it plays: the games named.
fn in_play_text(games: &[i64]) -> String {
    let list: Vec<String> = games.iter().map(|g| format!("game {g}")).collect();
    format!(
        "finish or resign your games in play first: {}",
        list.join(", ")
    )
}

/// What a refusal says when the store failed: the database being out of reach is worth saying (the request
/// may be made again); any other failure's details go to the log only.
fn store_sentence(e: &StoreError) -> &'static str {
    if e.is_unavailable() {
        "the database cannot be reached just now: nothing was changed; try again in a moment"
    } else {
        "storage failed"
    }
}
