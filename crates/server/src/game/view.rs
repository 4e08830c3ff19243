//! The game as the API shows it: states, listings, and the events its watchers get.

use std::sync::Arc;

use serde::Serialize;
use tesuji_rules::result::{PlayerScore, Score};
use tesuji_rules::{ByColor, Color, Phase, Point, ScoringRule, Size};

use crate::auth::User;
use crate::clocks::ClockView;
use crate::store::{GameRow, Seats};

/// One seat's occupant as the API shows it: a user, or the computer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Player {
    User(User),
    Bot { bot: String },
}

/// Who sits in each seat (`None`: empty).
pub type Players = ByColor<Option<Player>>;

/// A game as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    pub id: i64,
    pub rules: String,
    /// White's komi less Black's, in half-points (the rules' own when the spec names none).
    pub komi: i32,
    /// Handicap stones (0 for an even game).
    pub handicap: u8,
    pub width: u8,
    pub height: u8,
    /// `open` while a seat is empty, then the phase.
    pub status: Status,
    pub players: Players,
    pub invite_only: bool,
    /// The game changes its players' ratings when it ends with a result.
    pub ranked: bool,
    /// The invite token of an invite-only table still open, only in the state its creator gets (see
    /// [`LiveGame::state_for`]): never in an event, never to anyone else.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
    /// Rows from the top: `.`, `X` black, `O` white.
    pub board: Vec<String>,
    pub last_move: Option<String>,
    /// Every action so far, shared with the live game so that taking a state does not copy them. Left out of
    /// the state an event carries (see [`GameState::without_moves`]): a watcher adds the event's action to the
    /// list it has, so that an event's size does not grow with the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Arc<Vec<MoveView>>>,
    /// How many actions `moves` has (also when it is left out).
    pub move_count: usize,
    pub to_move: &'static str,
    /// The rules' phase (never `open`: a table waiting for its second player is in play for the rules).
    pub phase: Status,
    /// SGF's `RE` (`B+R`, `W+3.5`) once the game is over.
    pub result: Option<String>,
    pub score: Option<ScoreView>,
    /// In the marking phase, the count the current proposal gives if both accept it (the same for both players
    /// and every watcher); `None` otherwise.
    pub proposal_score: Option<ScoreView>,
    /// In the marking phase, the points each colour's area holds under the current proposal besides its live
    /// stones (empty points and the opponent's dead stones), for the pages to shade; `None` otherwise.
    pub territory: Option<ByColor<Vec<String>>>,
    /// Prisoners taken by each colour.
    pub captures: ByColor<u32>,
    pub pass_stones: ByColor<u32>,
    /// The dead stones of the current proposal.
    pub dead: Vec<String>,
    /// In the marking phase, the stones whose fate the server's estimate could not settle (docs/API.md): the
    /// players should look at them before accepting. Empty until the estimate is made.
    pub unsure: Vec<String>,
    pub accepted: ByColor<bool>,
    /// Both clocks, in a timed game.
    pub clock: Option<ClockView>,
    /// The seated players who are away from the board, in a game with a grace period (docs/API.md).
    pub absent: Vec<AbsentView>,
    /// The self-fill rule (RULES.md §5), when the game has it: the limit and each player's current run.
    pub self_fill: Option<SelfFillView>,
    /// A game voided by repetition (`repetition=void`): the moves after which its final state stood before (0
    /// for the start), as the move list numbers them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<i64>,
    /// The features' fields (the rematch offered after the game), each by its name, as this state's viewer
    /// may see them (see [`super::fields`]).
    #[serde(flatten)]
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// Whether the table lets a player take back a move (with the opponent's consent).
    pub undo: bool,
    /// The colour of the player who asked to take back their last move, while the request waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo_asked: Option<&'static str>,
    /// After a decline, while the pause runs: how long until its requester may ask again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo_again_in_ms: Option<u64>,
    /// A rated game's players' ratings before and after it, once it is rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_change: Option<ByColor<RatingChangeView>>,
    /// The computer's reasons for disputing a proposal, while its dispute is the last action: its stones it
    /// holds alive that the proposal marked dead, and yours it finds dead that the proposal left alive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computer_dispute: Option<DisputeView>,
    /// Why a ranked game that ended changes no rating: `short` (fewer than 5 plays by a player).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrated: Option<&'static str>,
    pub version: u64,
}

/// A player away from the board: no socket open to the game since `absent_ms` ago (or since their last action,
/// the game's start, the server's start). The opponent may claim the game in `claim_in_ms` (0: now).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct AbsentView {
    pub color: &'static str,
    pub absent_ms: u64,
    pub claim_in_ms: u64,
}

/// The self-fill rule's limit and each player's consecutive self-fills.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SelfFillView {
    pub limit: u8,
    pub black: u32,
    pub white: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct MoveView {
    pub number: i64,
    pub color: &'static str,
    #[serde(rename = "move")]
    pub text: String,
    /// `Some("server")` for the server's own first proposal (stored for the player who ended play, whose colour
    /// `color` still names, but not made by them); absent for the players' actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'static str>,
}

/// Who made an action that no player made: the server's first proposal. Stored in its action's colour column
/// (see [`crate::game::live::LiveGame::replay`]).
pub const SERVER: &str = "server";

/// One side of a count (RULES.md §7); komi, bonus and total in half-points.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SideView {
    pub stones: u32,
    pub territory: u32,
    pub shared: u32,
    pub captures: u32,
    pub dead: u32,
    pub pass_stones: u32,
    pub komi: i32,
    pub handicap_bonus: i32,
    /// Stone scoring's groups, each taxed two points (0 under other scoring).
    pub groups: u32,
    pub total: i32,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct ScoreView {
    pub scoring: &'static str,
    pub black: SideView,
    pub white: SideView,
    pub dame: u32,
    /// Black's total minus White's, in half-points.
    pub margin: i32,
}

impl From<&Score> for ScoreView {
    fn from(s: &Score) -> ScoreView {
        let side = |p: &PlayerScore| SideView {
            stones: p.stones,
            territory: p.territory,
            shared: p.shared,
            captures: p.captures,
            dead: p.dead,
            pass_stones: p.pass_stones,
            komi: p.komi,
            handicap_bonus: p.handicap_bonus,
            groups: p.groups,
            total: p.total,
        };
        ScoreView {
            scoring: match s.scoring {
                ScoringRule::Area => "area",
                ScoringRule::Territory => "territory",
                ScoringRule::AreaReach => "area-reach",
                ScoringRule::Stones => "stones",
            },
            black: side(&s.black),
            white: side(&s.white),
            dame: s.dame,
            margin: s.margin(),
        }
    }
}

/// The computer's reasons for a dispute (points as GTP vertices).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DisputeView {
    pub alive: Vec<String>,
    pub dead: Vec<String>,
}

/// A player's rating before and after a rated game, rounded, and the change.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct RatingChangeView {
    pub before: i32,
    pub after: i32,
    pub change: i32,
}

impl RatingChangeView {
    pub fn of(before: f64, after: f64) -> RatingChangeView {
        let (before, after) = (before.round() as i32, after.round() as i32);
        RatingChangeView {
            before,
            after,
            change: after - before,
        }
    }
}

/// A game in a listing (lobby, a player's history).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub id: i64,
    pub rules: String,
    /// As in [`GameState`]: White's net komi in half-points, and the handicap.
    pub komi: i32,
    pub handicap: u8,
    /// The time control (`fischer:3m+10s`), or `None` for an untimed game.
    pub time: Option<String>,
    pub status: Status,
    pub players: Players,
    pub invite_only: bool,
    pub ranked: bool,
    /// The moves played: plays and passes, after take-backs.
    pub moves: usize,
    pub result: Option<String>,
    pub created: i64,
    /// The colours whose action the game waits for: the player to move in play, those who have not accepted
    /// the proposal in the marking phase; empty for open tables and finished games (and rows read from the
    /// store, which are finished).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub to_act: Vec<&'static str>,
    /// When the game ended (seconds since the Unix epoch), for a finished game read from the store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<i64>,
}

/// The occupants of a game's seats: its seated users, and the computer in its seat.
pub(super) fn seated(seats: &Seats, users: ByColor<Option<User>>) -> Players {
    let mut players = users.map(|u| u.map(Player::User));
    if let Some((kind, color)) = &seats.bot
        && let Ok(c) = color.parse::<Color>()
    {
        players[c] = Some(Player::Bot { bot: kind.clone() });
    }
    players
}

impl Summary {
    /// The colour user `user` sits at in this game, if they do.
    pub fn seat_of(&self, user: i64) -> Option<Color> {
        self.players
            .iter()
            .find(|(_, p)| matches!(p, Some(Player::User(u)) if u.id == user))
            .map(|(c, _)| c)
    }

    /// A listing's entry from the store's row of a game that is not in memory.
    pub(super) fn of_row(row: GameRow) -> Summary {
        let players = seated(
            &row.seats,
            ByColor {
                black: row.black.map(User::from),
                white: row.white.map(User::from),
            },
        );
        let status = match row.state.as_str() {
            _ if players.iter().any(|(_, p)| p.is_none()) => Status::Open,
            "over" => Status::Over,
            "marking" => Status::Marking,
            _ => Status::Playing,
        };
        // A stored spec always reads (it was written from parsed rules); a default stands in all the same.
        let rules = row.rules.parse::<tesuji_rules::Rules>().unwrap_or_default();
        Summary {
            id: row.id,
            komi: rules.komi.net(),
            handicap: rules.handicap,
            time: row.time_control,
            rules: row.rules,
            status,
            players,
            invite_only: row.seats.invite.is_some(),
            ranked: row.seats.ranked,
            // The moves played, once the game has ended; until then (or when a node of an older version ended
            // it) the stored actions stand in.
            moves: usize::try_from(row.moves_played.unwrap_or(row.move_count)).unwrap_or(0),
            result: row.result,
            created: row.created,
            to_act: Vec::new(),
            ended: row.ended,
        }
    }
}

/// A WebSocket event for a change of who is at the board: the state without its moves, at the same version.
#[derive(Debug, Serialize)]
pub(super) struct PresenceEvent {
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    pub(super) version: u64,
    pub(super) state: GameState,
}

/// A WebSocket event: an accepted action with the state it produced, without its moves (the action is the one
/// added to them, or none, as a join).
#[derive(Debug, Serialize)]
pub struct Event<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub version: u64,
    pub action: &'a MoveView,
    pub state: GameState,
}

impl GameState {
    /// The state as an event carries it: everything but the move list, whose length stays in `move_count`
    /// (and never a viewer's own invite token), with the features' fields as everyone sees them (`fields`).
    pub(super) fn without_moves(&self, fields: &super::fields::Fields) -> GameState {
        GameState {
            moves: None,
            invite: None,
            fields: fields.view(false),
            ..self.clone()
        }
    }
}

/// Where a game is, as states and listings name it: a table waiting for its second player, then the rules'
/// phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Playing,
    Marking,
    Over,
}

impl Status {
    /// The status of a started game in phase `phase`.
    pub fn of(phase: Phase) -> Status {
        match phase {
            Phase::Playing => Status::Playing,
            Phase::Marking => Status::Marking,
            Phase::Over => Status::Over,
        }
    }

    /// Its name, as the API and the store write it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Playing => "playing",
            Status::Marking => "marking",
            Status::Over => "over",
        }
    }

    /// Whether a game with this status is in play: started, not over.
    pub fn in_play(self) -> bool {
        matches!(self, Status::Playing | Status::Marking)
    }
}

pub(super) fn point_names(points: &[Point], size: Size) -> Vec<String> {
    points.iter().map(|p| p.to_gtp(size)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_named_as_it_is_serialized() {
        for status in [Status::Open, Status::Playing, Status::Marking, Status::Over] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.name())
            );
        }
        for phase in [Phase::Playing, Phase::Marking, Phase::Over] {
            assert_eq!(Status::of(phase).in_play(), phase != Phase::Over);
        }
        assert!(!Status::Open.in_play());
    }
}
