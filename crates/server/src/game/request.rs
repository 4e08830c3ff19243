//! What reaches a game: a request (a play, a resignation, a mark...), who sends it, and what its sender knew.
//! The edge (`crate::http::wire`) makes a client's; the computer, the timers and the first proposal make the
//! server's own.

use tesuji_rules::{Color, Move, Point};

use super::recorded::UndoStep;

/// A client's text as a refusal quotes it: its first characters only, so that a refusal stays short whatever
/// was sent (quoting escapes a control character as up to 10 bytes).
pub(crate) fn quoted(text: &str) -> String {
    const SHOWN: usize = 24;
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(SHOWN).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// What a player asks of a game; the colour comes from the seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Play(Move),
    Resign,
    /// Marking: toggle the chain at the point between dead and alive.
    Dead(Point),
    /// Marking: the server's first proposal, from its estimate (never from a client).
    Propose(Vec<Point>),
    Accept,
    Dispute,
    /// The player's clock ran out (from the server's timer, never from a client).
    Timeout,
    /// The opponent has been away longer than the grace period: they forfeit.
    Claim,
    /// Taking back a move: asked, accepted or declined.
    Undo(UndoStep),
}

/// A request as it reaches a game, with what its sender knew: the version it was decided at (`None`: whatever
/// the game's is), the colour it named (clients of the first API name one, which must be its seat's), and the
/// network lag its clock is credited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub request: Request,
    pub color: Option<Color>,
    pub version: Option<u64>,
    pub lag_ms: u64,
}

impl Sent {
    /// The server's own request (the computer's move, a loss on time, the first proposal), decided at `version`.
    pub fn by_server(request: Request, version: Option<u64>) -> Sent {
        Sent {
            request,
            color: None,
            version,
            lag_ms: 0,
        }
    }
}

/// Who acts: a signed-in user, or the computer in its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    User(i64),
    Bot,
    /// The server itself, acting for a colour (a loss on time).
    Referee(Color),
}
