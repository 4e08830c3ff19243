//! Failure responses. Each message is the text after `?`; the usual GTP texts are kept where the protocol or GNU
//! Go fixes them (`illegal move`, `unacceptable size`, `invalid color or coordinate`, `cannot undo`, ...).

/// Why a command failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GtpError {
    #[error("unknown command")]
    UnknownCommand,
    #[error("missing command")]
    MissingCommand,
    #[error("invalid id")]
    InvalidId,
    #[error("line too long")]
    LineTooLong,
    #[error("wrong number of arguments")]
    WrongArguments,
    #[error("invalid color or coordinate")]
    InvalidMove,
    #[error("invalid color")]
    InvalidColor,
    #[error("illegal move")]
    IllegalMove,
    #[error("boardsize not an integer")]
    SizeNotInteger,
    #[error("unacceptable size")]
    UnacceptableSize,
    #[error("komi not a float")]
    KomiNotFloat,
    #[error("komi must be a whole or half number of at most 1000 points")]
    KomiNotHalf,
    #[error("cannot undo")]
    CannotUndo,
    #[error("board not empty")]
    BoardNotEmpty,
    #[error("handicap not an integer")]
    HandicapNotInteger,
    #[error("invalid handicap")]
    InvalidHandicap,
    #[error("invalid number of stones")]
    InvalidStoneCount,
    #[error("bad vertex list")]
    BadVertexList,
    #[error("invalid status")]
    InvalidStatus,
    #[error("invalid move number")]
    InvalidMoveNumber,
    #[error("cannot load file: {0}")]
    Load(String),
    #[error("cannot write file: {0}")]
    Write(String),
    #[error("unknown rules: {0}")]
    UnknownRules(String),
    #[error("rules not changed: {0}")]
    RulesConflict(String),
    #[error("invalid time settings")]
    InvalidTime,
    #[error("invalid position: {0}")]
    InvalidPosition(String),
    #[error("no move for this colour: {0}")]
    NoTurn(String),
    #[error("bad analysis arguments: {0}")]
    BadAnalysis(String),
    #[error("no network loaded: start the engine with --model FILE (or TESUJI_MODEL)")]
    NoNetwork,
    #[error(
        "{0} for kata-raw-nn (expected an optional color, a symmetry 'all' or 0-7, and an optional optimism in [0,1])"
    )]
    BadRawNn(String),
}
