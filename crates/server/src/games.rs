//! The live games: each a rules-crate `Game` (the truth), its action list, a version and a broadcast channel.
//! An action is checked, committed to the store, applied, and only then answered and broadcast.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use tesuji_rules::{Color, Game, Illegal, Move, Phase, Point, Rules};
use tokio::sync::{Mutex, RwLock, broadcast};

use crate::error::ApiError;
use crate::store::{Store, StoreError, StoredGame, StoredMove};

/// Events buffered per game for slow WebSocket readers; one who falls further behind gets a resync.
const EVENT_BUFFER: usize = 64;

/// One live game.
pub struct LiveGame {
    pub id: i64,
    pub game: Game,
    pub moves: Vec<StoredMove>,
    /// Raised by every accepted action: the number of actions so far.
    pub version: u64,
    /// Serialized events (JSON text), so that each is encoded once whatever the number of watchers.
    pub events: broadcast::Sender<Arc<str>>,
}

/// A game as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    pub id: i64,
    pub rules: String,
    pub moves: Vec<MoveView>,
    pub to_move: &'static str,
    pub phase: &'static str,
    /// SGF's `RE` (`B+R`, `W+3.5`) once the game is over.
    pub result: Option<String>,
    /// Prisoners taken by each colour.
    pub captures: Captures,
    pub version: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MoveView {
    pub number: i64,
    pub color: String,
    #[serde(rename = "move")]
    pub text: String,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Captures {
    pub black: u32,
    pub white: u32,
}

/// A WebSocket event: an accepted action with the state it produced.
#[derive(Debug, Serialize)]
pub struct Event<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub version: u64,
    #[serde(rename = "move")]
    pub action: MoveView,
    pub state: &'a GameState,
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

pub fn parse_color(text: &str) -> Option<Color> {
    match text.trim().to_ascii_lowercase().as_str() {
        "black" | "b" => Some(Color::Black),
        "white" | "w" => Some(Color::White),
        _ => None,
    }
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Playing => "playing",
        Phase::Marking => "marking",
        Phase::Over => "over",
    }
}

/// `pass` or a GTP vertex (`D4`) on the game's board.
pub fn parse_move(text: &str, rules: &Rules) -> Option<Move> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    Point::from_gtp(t, rules.size).map(Move::Play)
}

fn move_text(mv: Move, rules: &Rules) -> String {
    match mv {
        Move::Pass => "pass".to_owned(),
        Move::Play(p) => p.to_gtp(rules.size),
    }
}

/// Why a stored game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("game {id}: rules {rules:?}: {reason}")]
    Rules {
        id: i64,
        rules: String,
        reason: String,
    },
    #[error("game {id}: move {number} ({color} {text}): {reason}")]
    Move {
        id: i64,
        number: i64,
        color: String,
        text: String,
        reason: String,
    },
}

impl LiveGame {
    fn new(id: i64, game: Game) -> LiveGame {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        LiveGame {
            id,
            game,
            moves: Vec::new(),
            version: 0,
            events,
        }
    }

    /// Rebuilds a stored game by replaying its actions through the rules.
    pub fn replay(stored: StoredGame) -> Result<LiveGame, ReplayError> {
        let rules_error = |reason: String| ReplayError::Rules {
            id: stored.id,
            rules: stored.rules.clone(),
            reason,
        };
        let rules: Rules = stored
            .rules
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| rules_error(e.to_string()))?;
        let game = Game::new(rules).map_err(|e| rules_error(e.to_string()))?;
        let mut live = LiveGame::new(stored.id, game);
        for m in stored.moves {
            let fail = |reason: String| ReplayError::Move {
                id: stored.id,
                number: m.number,
                color: m.color.clone(),
                text: m.text.clone(),
                reason,
            };
            let color = parse_color(&m.color).ok_or_else(|| fail("unknown colour".into()))?;
            if m.text == "resign" {
                live.game.resign(color).map_err(|e| fail(e.to_string()))?;
            } else {
                let mv = parse_move(&m.text, live.game.rules())
                    .ok_or_else(|| fail("unreadable move".into()))?;
                live.game.play(color, mv).map_err(|e| fail(e.to_string()))?;
            }
            live.moves.push(m);
            live.version += 1;
        }
        Ok(live)
    }

    pub fn state(&self) -> GameState {
        let [black, white] = self.game.captures();
        GameState {
            id: self.id,
            rules: self.game.rules().to_string(),
            moves: self
                .moves
                .iter()
                .map(|m| MoveView {
                    number: m.number,
                    color: m.color.clone(),
                    text: m.text.clone(),
                })
                .collect(),
            to_move: color_name(self.game.to_move()),
            phase: phase_name(self.game.phase()),
            result: self.game.result().map(|r| r.to_string()),
            captures: Captures { black, white },
            version: self.version,
        }
    }

    pub fn state_json(&self) -> String {
        serde_json::to_string(&self.state()).unwrap_or_default()
    }
}

/// What a client asks of a game.
#[derive(Clone, Copy, Debug)]
pub enum Request {
    Play(Color, Move),
    Resign(Color),
}

/// All live games and the store they are committed to.
pub struct Games {
    store: Arc<dyn Store>,
    games: RwLock<HashMap<i64, Arc<Mutex<LiveGame>>>>,
}

impl Games {
    /// Loads and replays every stored game.
    pub async fn load(store: Arc<dyn Store>) -> Result<Games, crate::ServerError> {
        let mut games = HashMap::new();
        for stored in store.load_games().await? {
            let live = LiveGame::replay(stored)?;
            games.insert(live.id, Arc::new(Mutex::new(live)));
        }
        Ok(Games {
            store,
            games: RwLock::new(games),
        })
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub async fn count(&self) -> usize {
        self.games.read().await.len()
    }

    pub async fn get(&self, id: i64) -> Result<Arc<Mutex<LiveGame>>, ApiError> {
        self.games
            .read()
            .await
            .get(&id)
            .cloned()
            .ok_or(ApiError::NotFound(id))
    }

    /// Creates a game from a rules spec.
    pub async fn create(&self, spec: &str) -> Result<GameState, ApiError> {
        let rules: Rules = spec
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| ApiError::BadRules(e.to_string()))?;
        let game = Game::new(rules).map_err(|e| ApiError::BadRules(e.to_string()))?;
        let canonical = game.rules().to_string();
        let id = self
            .store
            .create_game(&canonical, phase_name(game.phase()))
            .await?;
        let live = LiveGame::new(id, game);
        let state = live.state();
        self.games
            .write()
            .await
            .insert(id, Arc::new(Mutex::new(live)));
        Ok(state)
    }

    /// Checks an action with the rules, applies it, commits it, broadcasts it, and returns the new state.
    /// It runs as its own task: a client hanging up must not cancel it between the rules and the commit.
    pub async fn act(
        self: &Arc<Self>,
        id: i64,
        request: Request,
        expected_version: Option<u64>,
    ) -> Result<GameState, ApiError> {
        let games = Arc::clone(self);
        tokio::spawn(async move { games.act_now(id, request, expected_version).await })
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?
    }

    /// The body of [`Games::act`]. The game's lock is held throughout, so actions on one game are serialized
    /// and versions have no gaps.
    async fn act_now(
        &self,
        id: i64,
        request: Request,
        expected_version: Option<u64>,
    ) -> Result<GameState, ApiError> {
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        if let Some(v) = expected_version
            && v != live.version
        {
            return Err(ApiError::StaleVersion {
                expected: v,
                current: live.version,
            });
        }
        let (color, text) = match request {
            Request::Play(color, mv) => {
                live.game.check(color, mv)?;
                (color, move_text(mv, live.game.rules()))
            }
            Request::Resign(color) => {
                if live.game.phase() == Phase::Over {
                    return Err(Illegal::GameOver.into());
                }
                (color, "resign".to_owned())
            }
        };
        // Applied before the commit so the stored state column is the new one; a failed commit undoes it, so
        // the live game never runs ahead of the database (undo replays the log: slow, but only on failure).
        match request {
            Request::Play(c, mv) => live.game.play(c, mv).map(|_| ())?,
            Request::Resign(c) => live.game.resign(c)?,
        }
        let number = match i64::try_from(live.version + 1) {
            Ok(n) => n,
            Err(_) => {
                live.game.undo();
                return Err(ApiError::TooManyMoves);
            }
        };
        let stored = StoredMove {
            number,
            color: color_name(color).to_owned(),
            text,
        };
        let phase = phase_name(live.game.phase());
        if let Err(e) = self.store.append_move(id, &stored, phase).await {
            live.game.undo();
            return Err(match e {
                StoreError::Conflict { .. } => ApiError::Internal(e.to_string()),
                other => other.into(),
            });
        }
        live.moves.push(stored.clone());
        live.version += 1;
        let state = live.state();
        let event = Event {
            kind: if stored.text == "resign" {
                "resign"
            } else {
                "move"
            },
            version: live.version,
            action: MoveView {
                number: stored.number,
                color: stored.color,
                text: stored.text,
            },
            state: &state,
        };
        if let Ok(text) = serde_json::to_string(&event) {
            // No receivers is not an error: nobody is watching.
            let _ = live.events.send(Arc::from(text));
        }
        Ok(state)
    }
}
