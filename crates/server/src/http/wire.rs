//! Actions as clients send them, over HTTP (`POST /api/games/{id}/actions`) and on the game's socket: the JSON
//! read here, at the edge, and made the core's one typed action, a [`Sent`] request, against the game's board
//! (whose size never changes). A message that does not read is refused with one of our sentences, of bounded
//! length, under its `ref` when it had one.

use serde::Deserialize;
use tesuji_rules::{Color, Move, Point, Size};

use crate::error::Error;
use crate::game::recorded::UndoStep;
use crate::game::request::quoted;
use crate::game::{Request, Sent};

/// An action as a message names it: its kind, and the text of its move or point (a GTP vertex, whose row
/// counts from the bottom, so that it is read against the board).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// A play (`D4`) or `pass`.
    Play(String),
    Resign,
    /// Marking: toggle the chain at the point between dead and alive.
    Dead(String),
    Accept,
    Dispute,
    Claim,
    Undo,
    AcceptUndo,
    DeclineUndo,
}

/// An action and the state it was decided at: the body of `POST /api/games/{id}/actions` and an action on the
/// game's socket, `{"type": "play", "move": "D4", "version": 5}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "WireAction")]
pub struct ActionMessage {
    pub action: Named,
    /// When given and not the game's version, the action is refused (`stale_version`) and nothing happens.
    pub version: Option<u64>,
    /// The client's measured network lag, credited against its clock up to a cap.
    pub lag_ms: Option<u64>,
    /// Accepted from clients of the first API: when given, it must be the seat's colour.
    pub color: Option<String>,
    /// The socket's name for the action, sent back with its answer (HTTP has no use for it).
    pub reference: Option<serde_json::Value>,
}

/// An action message's fields as they come. (A serde enum tagged on `type` would ignore a stray field beside a
/// variant without fields, such as `{"type": "resign", "point": "D4"}`; every field that does not belong to
/// the action must be refused.)
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireAction {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, rename = "move")]
    mv: Option<String>,
    #[serde(default)]
    point: Option<String>,
    #[serde(default)]
    version: Option<u64>,
    #[serde(default)]
    lag_ms: Option<u64>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default, rename = "ref")]
    reference: Option<serde_json::Value>,
}

impl TryFrom<WireAction> for ActionMessage {
    type Error = String;

    fn try_from(w: WireAction) -> Result<ActionMessage, String> {
        let kind = w.kind.as_str();
        let missing = |field: &str| format!("a {kind} needs the field \"{field}\"");
        let (has_move, has_point) = (w.mv.is_some(), w.point.is_some());
        let action = match kind {
            "play" => Named::Play(w.mv.ok_or_else(|| missing("move"))?),
            "dead" => Named::Dead(w.point.ok_or_else(|| missing("point"))?),
            "resign" => Named::Resign,
            "accept" => Named::Accept,
            "dispute" => Named::Dispute,
            "claim" => Named::Claim,
            "undo" => Named::Undo,
            "accept_undo" => Named::AcceptUndo,
            "decline_undo" => Named::DeclineUndo,
            _ => {
                return Err(format!(
                    "unknown action type {}: expected play, resign, dead, accept, dispute, claim, undo, \
                     accept_undo or decline_undo",
                    quoted(&w.kind)
                ));
            }
        };
        let stray = match &action {
            Named::Play(_) => has_point.then_some("point"),
            Named::Dead(_) => has_move.then_some("move"),
            _ => (has_move.then_some("move")).or(has_point.then_some("point")),
        };
        if let Some(field) = stray {
            return Err(format!("the field \"{field}\" does not belong to a {kind}"));
        }
        Ok(ActionMessage {
            action,
            version: w.version,
            lag_ms: w.lag_ms,
            color: w.color,
            reference: w.reference,
        })
    }
}

impl Named {
    /// The request this action makes on a board of `size`: its point read against the board.
    pub fn request(&self, size: Size) -> Result<Request, Error> {
        let on_board = |text: &str, what: &str| {
            Point::from_gtp(text, size).ok_or_else(|| {
                Error::BadRequest(format!(
                    "{what} must be a point such as \"D4\" on the {} board, not {}",
                    size.dimensions(),
                    quoted(text)
                ))
            })
        };
        Ok(match self {
            Named::Play(mv) if mv.trim().eq_ignore_ascii_case("pass") => Request::Play(Move::Pass),
            Named::Play(mv) => {
                Request::Play(Move::Play(on_board(mv.trim(), "move").map_err(|_| {
                    Error::BadRequest(format!(
                        "move must be \"pass\" or a point such as \"D4\" on the {} board, not {}",
                        size.dimensions(),
                        quoted(mv)
                    ))
                })?))
            }
            Named::Dead(point) => Request::Dead(on_board(point.trim(), "point")?),
            Named::Resign => Request::Resign,
            Named::Accept => Request::Accept,
            Named::Dispute => Request::Dispute,
            Named::Claim => Request::Claim,
            Named::Undo => Request::Undo(UndoStep::Ask),
            Named::AcceptUndo => Request::Undo(UndoStep::Accept),
            Named::DeclineUndo => Request::Undo(UndoStep::Decline),
        })
    }
}

impl ActionMessage {
    /// The action this message sends to a game on a board of `size`.
    pub fn sent(&self, size: Size) -> Result<Sent, Error> {
        let color = self
            .color
            .as_deref()
            .map(|c| {
                c.parse::<Color>().map_err(|_| {
                    Error::BadRequest(format!(
                        "color must be \"black\" or \"white\", not {}",
                        quoted(c)
                    ))
                })
            })
            .transpose()?;
        Ok(Sent {
            request: self.action.request(size)?,
            color,
            version: self.version,
            lag_ms: self.lag_ms.unwrap_or(0),
        })
    }
}

/// What a watcher sends on a game's socket: a request for the full state, or an action.
#[derive(Clone, Debug)]
pub enum ClientMessage {
    Resync,
    Action(ActionMessage),
}

/// A socket message that could not be read: why, and the `ref` to answer it under when it had one.
#[derive(Debug)]
pub struct Undecodable {
    pub reference: Option<serde_json::Value>,
    pub error: Error,
}

impl ClientMessage {
    /// Reads one text message of a game's socket. It is read once as JSON first, so that the refusal of a
    /// malformed action still carries its `ref`.
    pub fn decode(text: &str) -> Result<ClientMessage, Undecodable> {
        let refuse = |reference, why: String| Undecodable {
            reference,
            error: Error::BadRequest(why),
        };
        let value = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) if v.is_object() => v,
            Ok(_) => return Err(refuse(None, "a message must be a JSON object".into())),
            Err(e) => return Err(refuse(None, bounded(format!("malformed message: {e}")))),
        };
        let reference = value.get("ref").cloned();
        if value.get("type").and_then(|t| t.as_str()) == Some("resync") {
            return Ok(ClientMessage::Resync);
        }
        serde_json::from_value::<ActionMessage>(value)
            .map(ClientMessage::Action)
            .map_err(|e| refuse(reference, bounded(format!("malformed action: {e}"))))
    }
}

/// A refusal cut to its first 300 bytes: serde quotes a wrongly typed value whole, escaping each control
/// character as up to 10 bytes.
fn bounded(sentence: String) -> String {
    const MOST: usize = 300;
    if sentence.len() <= MOST {
        return sentence;
    }
    let mut end = MOST;
    while !sentence.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &sentence[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ActionMessage, String> {
        serde_json::from_str::<ActionMessage>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn an_action_reads_from_its_tagged_form() {
        let m = read(r#"{"type": "play", "move": "D4", "version": 7, "lag_ms": 30, "ref": 2}"#)
            .unwrap();
        assert_eq!(m.action, Named::Play("D4".into()));
        assert_eq!((m.version, m.lag_ms), (Some(7), Some(30)));
        assert_eq!(m.reference, Some(serde_json::json!(2)));
        let m = read(r#"{"type": "dead", "point": "c3"}"#).unwrap();
        assert_eq!(m.action, Named::Dead("c3".into()));
        for (kind, action) in [
            ("resign", Named::Resign),
            ("accept", Named::Accept),
            ("dispute", Named::Dispute),
            ("claim", Named::Claim),
        ] {
            let m = read(&format!(r#"{{"type": "{kind}"}}"#)).unwrap();
            assert_eq!((m.action, m.version), (action, None));
        }
    }

    #[test]
    fn a_socket_message_is_a_resync_an_action_or_a_refusal_under_its_ref() {
        assert!(matches!(
            ClientMessage::decode(r#"{"type": "resync", "ref": 4}"#),
            Ok(ClientMessage::Resync)
        ));
        let Ok(ClientMessage::Action(m)) =
            ClientMessage::decode(r#"{"type": "play", "move": "pass", "ref": "x"}"#)
        else {
            panic!("a play reads");
        };
        assert_eq!(m.reference, Some(serde_json::json!("x")));
        let e = ClientMessage::decode(r#"{"type": "nuke", "ref": 9}"#).unwrap_err();
        assert_eq!(e.reference, Some(serde_json::json!(9)));
        assert!(
            e.error.to_string().contains("unknown action type \"nuke\""),
            "{}",
            e.error
        );
        for text in ["[1]", "{", "\"play\"", ""] {
            let e = ClientMessage::decode(text).unwrap_err();
            assert_eq!(e.reference, None);
            assert!(!e.error.to_string().contains("Some("), "{}", e.error);
        }
    }

    #[test]
    fn a_refusal_quotes_only_the_start_of_what_was_sent() {
        let e = read(&format!(r#"{{"type": "{}"}}"#, "\\u0001".repeat(500))).unwrap_err();
        assert!(e.len() < 400, "{} bytes: {e}", e.len());
        // Found by the socket fuzz target: a wrongly typed field's value, quoted whole by serde.
        let text = format!(
            r#"{{"type": "pass", "lag_ms": "pla{}y", "move": 40}}"#,
            "\\u007f".repeat(120)
        );
        let Err(e) = ClientMessage::decode(&text) else {
            panic!("a string is no lag")
        };
        let e = e.error.to_string();
        assert!(
            e.len() < 400 && e.contains("invalid type"),
            "{} bytes: {e}",
            e.len()
        );
    }

    #[test]
    fn a_wrong_action_is_refused_with_a_reason() {
        for (text, says) in [
            (r#"{"type": "nuke"}"#, "nuke"),
            (r#"{"move": "D4"}"#, "type"),
            (r#"{"type": "play"}"#, "move"),
            (r#"{"type": "play", "move": "D4", "force": true}"#, "force"),
            (r#"{"type": "play", "move": "D4", "point": "D4"}"#, "point"),
            (r#"{"type": "dead", "move": "D4", "point": "D4"}"#, "move"),
            (r#"{"type": "dead", "point": 3}"#, "string"),
            (r#"{"type": "accept", "version": -1}"#, "-1"),
            (r#"{"type": "resign", "point": "D4"}"#, "point"),
            (r#"{"type": "claim", "move": "D4"}"#, "move"),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn a_refused_point_is_quoted_only_by_its_start() {
        // Found by the socket fuzz target: 120 DEL characters were quoted as 960 bytes of escapes.
        let size = Size::square(19).unwrap();
        let long = format!("2ps{}", "\u{7f}".repeat(120));
        for action in [Named::Play(long.clone()), Named::Dead(long.clone())] {
            let e = action.request(size).unwrap_err().to_string();
            assert!(e.len() < 400, "{} bytes: {e}", e.len());
            assert!(e.contains("\"2ps\\u{7f}") && e.ends_with('…'), "{e}");
        }
        let e = Named::Play("Z9".into())
            .request(size)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("on the 19×19 board, not \"Z9\""), "{e}");
    }

    #[test]
    fn points_are_read_against_the_board() {
        let nine = Size::square(9).unwrap();
        let play = |mv: &str| Named::Play(mv.into()).request(nine);
        assert_eq!(play(" Pass ").unwrap(), Request::Play(Move::Pass));
        let d4 = Point::from_gtp("D4", nine).unwrap();
        assert_eq!(play("d4").unwrap(), Request::Play(Move::Play(d4)));
        // A 9×9 board's columns run A to J without I (as GTP names them), its rows 1 to 9.
        for bad in ["K1", "A10", "I5", "", "D4 D5", "resign"] {
            assert!(matches!(play(bad), Err(Error::BadRequest(_))), "{bad:?}");
        }
        let dead = Named::Dead("J9".into()).request(nine);
        assert_eq!(
            dead.unwrap(),
            Request::Dead(Point::from_gtp("J9", nine).unwrap())
        );
        let off = Named::Dead("T19".into()).request(nine);
        assert!(matches!(off, Err(Error::BadRequest(_))));
    }

    #[test]
    fn a_message_names_its_colour_or_none() {
        let nine = Size::square(9).unwrap();
        let m =
            read(r#"{"type": "resign", "color": "white", "version": 3, "lag_ms": 40}"#).unwrap();
        let sent = m.sent(nine).unwrap();
        assert_eq!(
            (sent.request, sent.color, sent.version, sent.lag_ms),
            (Request::Resign, Some(Color::White), Some(3), 40)
        );
        let m = read(r#"{"type": "resign", "color": "red"}"#).unwrap();
        assert!(matches!(m.sent(nine), Err(Error::BadRequest(_))));
        let m = read(r#"{"type": "undo"}"#).unwrap();
        let sent = m.sent(nine).unwrap();
        assert_eq!((sent.color, sent.version, sent.lag_ms), (None, None, 0));
        assert_eq!(sent.request, Request::Undo(UndoStep::Ask));
    }
}
