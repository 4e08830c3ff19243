//! The computer's side of a table, as pure functions: its strengths and search settings, its choice of move,
//! and the dead-stone estimate at the end of play with the computer's judgement of a proposal by it.

use tesuji_bot::mcts::{Decision, MctsBot, MctsConfig};
use tesuji_bot::simple::SimpleBot;
use tesuji_rules::{Color, EndRule, Game, Point};

use super::request::Request;

/// What the estimate says at the end of play: its dead stones (the first proposal) and the stones it is unsure
/// of (shown beside every proposal).
pub(super) struct MarkingEstimate {
    pub(super) dead: Vec<Point>,
    pub(super) unsure: Vec<Point>,
}

impl MarkingEstimate {
    /// The estimate of game `id`'s position, made off the async threads.
    pub(super) async fn of(id: i64, game: Game) -> Option<MarkingEstimate> {
        let estimate = match tokio::task::spawn_blocking(move || estimate_position(id, &game)).await
        {
            Ok(estimate) => estimate,
            Err(e) => {
                tracing::error!(game = id, error = %e, "the dead-stone estimate failed");
                return None;
            }
        };
        Some(MarkingEstimate {
            dead: estimate.dead(),
            unsure: estimate.unsure(),
        })
    }
}

/// The bots a table may choose: the stopgap bot, and tree search at four strengths (1,000 and 5,000 playouts a
/// move, one second a move on one thread, and the strongest, three seconds a move on two threads).
pub const BOTS: &[&str] = &["simple", "mcts-1", "mcts-2", "mcts-3", "mcts-4"];

/// The search settings of the bot `kind` (`None`: the simple bot). Under a clock (`budget`) the search never
/// thinks longer than the clock allows; a strength's playout count still holds when it is reached first.
pub(super) fn search_config(kind: &str, budget: Option<std::time::Duration>) -> Option<MctsConfig> {
    let mut config = match kind {
        "mcts-1" => MctsConfig::playouts(1_000),
        "mcts-2" => MctsConfig::playouts(5_000),
        "mcts-3" => MctsConfig {
            threads: 1,
            ..MctsConfig::default()
        },
        "mcts-4" => MctsConfig {
            playouts: None,
            time: Some(std::time::Duration::from_secs(3)),
            threads: 2,
            ..MctsConfig::default()
        },
        _ => return None,
    };
    if let Some(budget) = budget {
        config.time = Some(config.time.map_or(budget, |t| t.min(budget)));
    }
    Some(config)
}

/// The estimate of game `id`'s position at the end of play. Its seed comes from the game and the turns played,
/// which no marking action changes, so the estimate made when play ended and the one made again after a
/// restart are the same (the players see the same unsure stones).
pub(super) fn estimate_position(id: i64, game: &Game) -> tesuji_bot::estimate::Estimate {
    let seed = u64::try_from(id).unwrap_or(0) ^ u64::from(game.turns());
    let playouts = tesuji_bot::estimate::default_playouts(game.rules().size);
    tesuji_bot::estimate::estimate(game, playouts, seed)
}

/// The computer's choice in `game` as the bot `kind`, within `budget` when the game has a clock. After a
/// dispute it plays in cleanup mode: every stone left on the board will count, so it captures what it holds dead
/// before passing again.
pub(super) fn bot_choice(
    kind: &str,
    game: &Game,
    seed: u64,
    budget: Option<std::time::Duration>,
) -> Request {
    let cleanup = game.rules().end == EndRule::Score || game.disputed();
    let Some(config) = search_config(kind, budget) else {
        return Request::Play(SimpleBot::new(seed).choose(game, cleanup));
    };
    match MctsBot::new(config, seed).choose(game, game.rules(), cleanup) {
        Decision::Play(mv) => Request::Play(mv),
        Decision::Resign => Request::Resign,
    }
}

/// Whether the computer, seated as `me`, agrees with the proposal on the table, judged by its estimate's dead
/// stones `estimated_dead`: none of its own stones is marked dead that the estimate does not find dead (stones
/// it is unsure of count as alive), and every stone of the opponent's that the estimate finds dead is marked. A
/// proposal that gives it more than that (opponent's stones the estimate calls alive, marked dead by the
/// opponent) is the opponent's concession, and it agrees.
pub(super) fn agrees(game: &Game, me: Color, estimated_dead: &[Point]) -> bool {
    let (alive, dead) = disagreement(game, me, estimated_dead);
    alive.is_empty() && dead.is_empty()
}

/// Where the computer (`me`) and the proposal differ: its own stones the proposal marks dead that its estimate
/// holds alive, and the opponent's stones its estimate finds dead that the proposal leaves alive.
pub(super) fn disagreement(
    game: &Game,
    me: Color,
    estimated_dead: &[Point],
) -> (Vec<Point>, Vec<Point>) {
    let grid = game.grid();
    let proposal = game.dead_stones();
    let own_alive_marked = proposal
        .iter()
        .filter(|p| grid.get(**p) == Some(me) && !estimated_dead.contains(p))
        .copied()
        .collect();
    let opponent_dead_missed = estimated_dead
        .iter()
        .filter(|p| grid.get(**p) == Some(me.opponent()) && !proposal.contains(p))
        .copied()
        .collect();
    (own_alive_marked, opponent_dead_missed)
}

/// Why the computer disputed a proposal: its stones it holds alive and the opponent's it finds dead, for the
/// dispute that makes the game's log `log_len` long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct BotDispute {
    pub log_len: usize,
    pub alive: Vec<Point>,
    pub dead: Vec<Point>,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_clock_caps_the_computers_thinking_time() {
        // Without a clock: each strength as it is.
        assert_eq!(search_config("simple", None), None);
        assert_eq!(search_config("mcts-2", None).unwrap().time, None);
        assert_eq!(
            search_config("mcts-3", None).unwrap().time,
            Some(Duration::from_secs(1))
        );
        let strongest = search_config("mcts-4", None).unwrap();
        assert_eq!(
            (strongest.playouts, strongest.time, strongest.threads),
            (None, Some(Duration::from_secs(3)), 2)
        );
        // With one: the clock's budget bounds the search, and a shorter own time stays.
        let short = Duration::from_millis(300);
        let c = search_config("mcts-2", Some(short)).unwrap();
        assert_eq!((c.playouts, c.time), (Some(5_000), Some(short)));
        assert_eq!(
            search_config("mcts-3", Some(short)).unwrap().time,
            Some(short)
        );
        let c = search_config("mcts-4", Some(short)).unwrap();
        assert_eq!((c.playouts, c.time, c.threads), (None, Some(short), 2));
        let long = Duration::from_secs(30);
        assert_eq!(
            search_config("mcts-3", Some(long)).unwrap().time,
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            search_config("mcts-4", Some(long)).unwrap().time,
            Some(Duration::from_secs(3))
        );
    }
}

#[cfg(test)]
mod judgement {
    use tesuji_rules::game::expand_chains;
    use tesuji_rules::{Move, Phase, Preset, Rules, Size};

    use super::*;

    /// Finished positions: random legal plays on 9×9 under Chinese rules, then two passes.
    fn finished_positions() -> Vec<Game> {
        let mut seed: u64 = 0x16;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let rules = Rules {
            size: Size::square(9).unwrap(),
            ..Rules::preset(Preset::Chinese)
        };
        let mut games = Vec::new();
        while games.len() < 12 {
            let mut game = Game::new(rules).unwrap();
            let turns = 20 + next() % 50;
            for _ in 0..turns {
                let plays: Vec<Move> = game
                    .legal_moves()
                    .into_iter()
                    .filter(|m| *m != Move::Pass)
                    .collect();
                if plays.is_empty() {
                    break;
                }
                game.play_move(plays[next() % plays.len()]).unwrap();
            }
            if game.play_move(Move::Pass).is_ok() && game.play_move(Move::Pass).is_ok() {
                games.push(game);
            }
        }
        games
    }

    #[test]
    fn the_computer_never_accepts_its_living_stones_dead() {
        for (i, game) in finished_positions().into_iter().enumerate() {
            assert_eq!(game.phase(), Phase::Marking);
            let estimated = estimate_position(i as i64, &game).dead();
            let grid = game.grid();
            for me in [Color::Black, Color::White] {
                // The estimate's own proposal (the server's first) is agreed to.
                let mut g = game.clone();
                g.propose(me.opponent(), &estimated).unwrap();
                assert!(agrees(&g, me, &estimated), "game {i}, {me:?}");
                // One of its chains the estimate holds alive, marked dead besides: refused.
                let alive_own: Vec<Point> = grid
                    .size()
                    .points()
                    .filter(|p| grid.get(*p) == Some(me) && !estimated.contains(p))
                    .collect();
                for p in alive_own.iter().take(5) {
                    let mut proposal = estimated.clone();
                    proposal.extend(expand_chains(&grid, &[*p]));
                    let mut g = game.clone();
                    g.propose(me.opponent(), &proposal).unwrap();
                    assert!(!agrees(&g, me, &estimated), "game {i}, {me:?} at {p:?}");
                }
                // An opponent's chain the estimate holds dead, left alive: refused.
                for p in estimated
                    .iter()
                    .filter(|p| grid.get(**p) == Some(me.opponent()))
                    .take(5)
                {
                    let chain = expand_chains(&grid, &[*p]);
                    let proposal: Vec<Point> = estimated
                        .iter()
                        .copied()
                        .filter(|q| !chain.contains(q))
                        .collect();
                    let mut g = game.clone();
                    g.propose(me.opponent(), &proposal).unwrap();
                    assert!(!agrees(&g, me, &estimated), "game {i}, {me:?} at {p:?}");
                }
                // Whatever else is proposed, agreement never has one of its estimate-alive stones dead.
                let mut seed = i as u64 + 1;
                for _ in 0..20 {
                    let proposal: Vec<Point> = grid
                        .size()
                        .points()
                        .filter(|p| grid.get(*p).is_some())
                        .filter(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            seed.is_multiple_of(4)
                        })
                        .collect();
                    let mut g = game.clone();
                    g.propose(me.opponent(), &proposal).unwrap();
                    if agrees(&g, me, &estimated) {
                        assert!(
                            g.dead_stones()
                                .iter()
                                .all(|p| grid.get(*p) != Some(me) || estimated.contains(p)),
                            "game {i}, {me:?}"
                        );
                    }
                }
            }
        }
    }
}
