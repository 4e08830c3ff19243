//! Rating ranked games (see `tesuji-rating` for the system and the ranks): when a ranked game ends with a
//! result, its players' ratings change, once.
//!
//! Ratings that mean something: a game is rated only when it was played ([`MIN_PLAYS`] stones placed by each
//! player; a shorter game is annulled whatever ended it, as OGS annuls short games), its handicap and komi count
//! as one advantage in ranks ([`setup_of`]), and the same two accounts' rated games within [`PAIR_WINDOW`]
//! count together as one game of their mean result (`tesuji_rating::rate_repeated`): a pair that plays and
//! resigns over and over moves the ratings no further than one game does.
//!
//! Every node that sees a ranked game end rates it, the one that stored the ending and each that catches up
//! with it: the store rates a game once however many ask ([`crate::store::Store::rate_game`]), and a node that
//! asked shows the new ratings at once. A game that ended while no node could rate it (a crash between the
//! ending and its rating, a database out of reach) is rated when a node starts, or takes the timers over.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tesuji_rating::{Outcome, Scored, Setup};
use tesuji_rules::result::{GameResult, Outcome as Ending};
use tesuji_rules::{Action, BgaCounting, ByColor, Color, Move, Phase, Preset, Rules, ScoringRule};

use crate::clocks::TimeSource;
use crate::error::ApiError;
use crate::store::{Rated, Rating, RatingPoint};

use super::live::LiveGame;
use super::presence::Absences;
use super::registry::Games;
use super::view::{Player, RatingChangeView};

/// The most points of a player's rating history shown (their last rated games).
pub const HISTORY: usize = 200;

/// How often rating a game is tried before it is left to the next start or take-over.
const ATTEMPTS: u32 = 3;

/// Games read per round when the unrated ones are looked for.
const UNRATED_ROUND: usize = 100;

/// The stones each player must have placed for a game to be rated: fewer, and it was not played (a
/// resignation at move 0, a game abandoned at once, two passes at the start).
pub const MIN_PLAYS: usize = 5;

/// How long, in seconds, the same two accounts' rated games count as one game (a day).
pub const PAIR_WINDOW: i64 = 24 * 60 * 60;

/// A player's games looked through for the results of the pair's games in the window (their newest first).
const PAIR_ROWS: usize = 100;

/// The largest advantage a ranked game may give, in ranks: about that of nine stones on 19×19 (8.5 ranks).
pub const MAX_RANKED_ADVANTAGE: f64 = 9.0;

/// Whether `rules` are standard settings that a ranked game may be played under: a 9×9, 13×13 or 19×19 board,
/// the preset's own rules (for `bga`, its counting and AGA options) with either its normal komi, or a handicap
/// of no komi (0.5; under `ideal` its own no-komi game, under `bga` its `hN` option) or of stones with that
/// komi, up to [`MAX_RANKED_ADVANTAGE`]. The error says what a ranked game needs instead.
pub fn check_ranked(rules: &Rules) -> Result<(), String> {
    let side = rules.size.width();
    if rules.size.height() != side || ![9, 13, 19].contains(&side) {
        return Err(format!(
            "a ranked game is played on 9×9, 13×13 or 19×19, not {}",
            rules.size
        ));
    }
    let base = match rules.bga {
        Some(bga) => format!(
            "bga:size={side},counting={},aga={}",
            match bga.counting {
                BgaCounting::Chinese => "chinese",
                BgaCounting::Japanese => "japanese",
            },
            if bga.aga { "on" } else { "off" }
        ),
        None => format!("{}:size={side}", rules.preset),
    };
    let n = rules.handicap;
    let handicap = match (rules.preset, rules.bga.is_some()) {
        (_, true) => format!(",komi=h{}", n.max(1)),
        (Preset::Ideal, _) if n >= 2 => format!(",handicap={n}"),
        (Preset::Ideal, _) => ",komi=0".to_owned(),
        _ if n >= 2 => format!(",handicap={n},komi=0.5"),
        _ => ",komi=0.5".to_owned(),
    };
    let standard = [base.clone(), format!("{base}{handicap}")];
    let is_standard = standard
        .iter()
        .any(|spec| spec.parse::<Rules>().is_ok_and(|r| r == *rules));
    if !is_standard {
        return Err(format!(
            "a ranked game takes the rules' own komi, or a handicap with komi 0.5, and no other options: \
             {} is not one of those; try {}",
            rules, standard[0]
        ));
    }
    let advantage = setup_of(rules).advantage_ranks();
    if advantage > MAX_RANKED_ADVANTAGE {
        return Err(format!(
            "a handicap of {n} stones on {side}×{side} is worth {advantage:.1} ranks; a ranked game gives at most \
             {MAX_RANKED_ADVANTAGE} (nine stones on 19×19)"
        ));
    }
    Ok(())
}

/// What a game's rules gave Black beyond an even game with a fair komi, for its rating.
pub fn setup_of(rules: &Rules) -> Setup {
    Setup {
        width: rules.size.width(),
        height: rules.size.height(),
        handicap: rules.handicap,
        komi_half_points: rules.komi.net() + rules.handicap_bonus_half_points(),
        territory: rules.scoring == ScoringRule::Territory,
    }
}

/// Whether a game is too short to be rated: a player placed fewer than [`MIN_PLAYS`] stones.
pub fn too_short(log: &[Action]) -> bool {
    plays_by(log).iter().any(|&n| n < MIN_PLAYS)
}

/// The stones each colour placed in a game, from its actions (handicap stones are not turns).
fn plays_by(log: &[Action]) -> [usize; 2] {
    let mut plays = [0; 2];
    for action in log {
        if let Action::Turn(color, Move::Play(_)) = action {
            plays[color.index()] += 1;
        }
    }
    plays
}

/// Black's result from a stored result text (`B+R`, `W+3.5`, `0`); `None` for no result (`Void`).
fn black_score(result: &str) -> Option<f64> {
    match result.as_bytes().first() {
        Some(b'B') if result.starts_with("B+") => Some(1.0),
        Some(b'W') if result.starts_with("W+") => Some(0.0),
        _ if result == "0" => Some(0.5),
        _ => None,
    }
}

/// How a result counts for ratings: a win (on the board, by resignation, on time, by forfeit) or a draw (a
/// jigo, both resigning at once). A void game (repetition) and one ended by two passes before any play change
/// no rating.
pub fn rated_outcome(result: &GameResult) -> Option<Outcome> {
    match (result.outcome, result.winner) {
        (Ending::Repetition | Ending::NoPlay, _) => None,
        (_, Some(Color::Black)) => Some(Outcome::BlackWins),
        (_, Some(Color::White)) => Some(Outcome::WhiteWins),
        (Ending::Score | Ending::BothResigned, None) => Some(Outcome::Draw),
        (_, None) => None,
    }
}

/// A ranked game that has ended with a result: what rating it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToRate {
    pub game: i64,
    pub black: i64,
    pub white: i64,
    pub outcome: Outcome,
    /// What the rules gave Black: handicap stones and komi.
    pub setup: Setup,
}

/// Where a game stands among the same two accounts' rated games of the last [`PAIR_WINDOW`].
enum PairWindow {
    /// Their first: rated as any game.
    First,
    /// Their earlier games in the window (from Black's side now) and their ratings before the first of them.
    Repeated {
        start: (Rating, Rating),
        earlier: Vec<Scored>,
    },
    /// Too many rated games since then for the histories read to hold their ratings before the window.
    Unknown,
}

impl LiveGame {
    /// What this game needs rated, when it is a ranked game between two users that has ended with a result
    /// after each placed [`MIN_PLAYS`] stones.
    pub fn to_rate(&self) -> Option<ToRate> {
        if !self.seats.ranked || self.game.phase() != Phase::Over {
            return None;
        }
        if too_short(self.game.log()) {
            return None;
        }
        Some(ToRate {
            game: self.id,
            black: self.seats.black?,
            white: self.seats.white?,
            outcome: rated_outcome(self.game.result()?)?,
            setup: setup_of(self.game.rules()),
        })
    }
}

/// A rating as a player's page shows it: rounded points, the deviation, the rank and whether it is
/// provisional.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RatingView {
    pub rating: i32,
    pub deviation: i32,
    pub rank: String,
    pub provisional: bool,
}

impl From<Rating> for RatingView {
    fn from(r: Rating) -> RatingView {
        RatingView {
            rating: r.rating.round() as i32,
            deviation: r.deviation.round() as i32,
            rank: r.label(),
            provisional: r.is_provisional(),
        }
    }
}

impl Games {
    /// Starts the task that rates the ranked games that end here (stored by this node or caught up with), in
    /// the order they ended, with a few tries each should the store fail; first the games left unrated when
    /// `unrated_first`. It ends with the games.
    pub(super) fn start_rating(
        self: &Arc<Self>,
        mut ended: tokio::sync::mpsc::UnboundedReceiver<ToRate>,
        unrated_first: bool,
    ) {
        let games = Arc::downgrade(self);
        tokio::spawn(async move {
            if unrated_first
                && let Some(games) = games.upgrade()
                && let Err(e) = games.rate_unrated().await
            {
                tracing::warn!(error = %e, "rating the games left unrated failed");
            }
            while let Some(to_rate) = ended.recv().await {
                let Some(games) = games.upgrade() else {
                    return;
                };
                for attempt in 1..=ATTEMPTS {
                    match games.rate(to_rate).await {
                        Ok(_) => break,
                        Err(e) => {
                            tracing::warn!(game = to_rate.game, attempt, error = %e, "rating a game failed");
                            tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
                        }
                    }
                }
            }
        });
    }

    /// Rates one ended ranked game (once, whoever asks), then shows both players' ratings as they are now.
    pub async fn rate(&self, to_rate: ToRate) -> Result<Rated, ApiError> {
        let ToRate {
            game,
            black,
            white,
            outcome,
            setup,
        } = to_rate;
        let this = Scored {
            score: outcome.black_score(),
            advantage: setup.advantage_ranks(),
        };
        let pair = self
            .pair_window(game, black, white, crate::store::now())
            .await?;
        let update = Box::new(move |b: Rating, w: Rating| match pair {
            PairWindow::First => tesuji_rating::rate_repeated((b, w), (b, w), &[], this),
            PairWindow::Repeated { start, earlier } => {
                tesuji_rating::rate_repeated((b, w), start, &earlier, this)
            }
            // Their ratings before the window are out of the history read: the game changes nothing.
            PairWindow::Unknown => (b, w),
        });
        let rated = self
            .stores
            .ratings
            .rate_game(game, black, white, crate::store::now(), update)
            .await?;
        let (now, change) = match rated {
            Rated::Now { before, after } => (after, Some((before, after))),
            // Rated by another node: its ratings are read back, and the game's change from the histories.
            Rated::Already => (
                (
                    self.stores.ratings.rating(black).await?.unwrap_or_default(),
                    self.stores.ratings.rating(white).await?.unwrap_or_default(),
                ),
                self.stored_change(game, black, white).await?,
            ),
        };
        let change = change.map(|(before, after)| ByColor {
            black: RatingChangeView::of(before.0.rating, after.0.rating),
            white: RatingChangeView::of(before.1.rating, after.1.rating),
        });
        self.show_ratings(game, [(black, now.0), (white, now.1)], change)
            .await;
        Ok(rated)
    }

    /// Game `game`'s players' ratings before and after it, from their histories (`None` when a history no
    /// longer reaches back to it).
    async fn stored_change(
        &self,
        game: i64,
        black: i64,
        white: i64,
    ) -> Result<Option<((Rating, Rating), (Rating, Rating))>, ApiError> {
        let around = |history: Vec<RatingPoint>| {
            let i = history.iter().position(|p| p.game == game)?;
            let before = match i {
                0 if history.len() < HISTORY => Rating::default(),
                0 => return None,
                _ => history[i - 1].rating,
            };
            Some((before, history[i].rating))
        };
        let b = around(self.stores.ratings.rating_history(black, HISTORY).await?);
        let w = around(self.stores.ratings.rating_history(white, HISTORY).await?);
        Ok(b.zip(w).map(|(b, w)| ((b.0, w.0), (b.1, w.1))))
    }

    /// A finished ranked game just read from the store: how it changed its players' ratings, if it was rated.
    pub(super) async fn rating_change_stored(&self, live: &mut LiveGame) -> Result<(), ApiError> {
        let (true, Some(black), Some(white)) =
            (live.seats.ranked, live.seats.black, live.seats.white)
        else {
            return Ok(());
        };
        if live.game.phase() != Phase::Over {
            return Ok(());
        }
        live.rating_change =
            self.stored_change(live.id, black, white)
                .await?
                .map(|(before, after)| ByColor {
                    black: RatingChangeView::of(before.0.rating, after.0.rating),
                    white: RatingChangeView::of(before.1.rating, after.1.rating),
                });
        Ok(())
    }

    /// The same two accounts' earlier rated games within [`PAIR_WINDOW`] of `now`, from `black`'s side, and
    /// their ratings before the first of them, read from their rating histories and game listings.
    async fn pair_window(
        &self,
        game: i64,
        black: i64,
        white: i64,
        now: i64,
    ) -> Result<PairWindow, ApiError> {
        let since = now - PAIR_WINDOW;
        let of_black = self.stores.ratings.rating_history(black, HISTORY).await?;
        let of_white = self.stores.ratings.rating_history(white, HISTORY).await?;
        let theirs: Vec<i64> = of_black
            .iter()
            .filter(|p| {
                p.at >= since && p.game != game && of_white.iter().any(|q| q.game == p.game)
            })
            .map(|p| p.game)
            .collect();
        let Some(&first) = theirs.first() else {
            return Ok(PairWindow::First);
        };
        let before = |history: &[RatingPoint]| match history.iter().position(|p| p.game == first) {
            Some(0) if history.len() < HISTORY => Some(Rating::default()),
            Some(i) if i > 0 => Some(history[i - 1].rating),
            _ => None,
        };
        let (Some(black_start), Some(white_start)) = (before(&of_black), before(&of_white)) else {
            return Ok(PairWindow::Unknown);
        };
        let rows = self
            .stores
            .games
            .player_games(black, None, PAIR_ROWS)
            .await?;
        let mut earlier = Vec::new();
        for row in rows.iter().filter(|r| theirs.contains(&r.id)) {
            let (Some(result), Ok(rules)) = (row.result.as_deref(), row.rules.parse::<Rules>())
            else {
                continue;
            };
            let Some(score) = black_score(result) else {
                continue;
            };
            let advantage = setup_of(&rules).advantage_ranks();
            // From the side of the player who is Black now.
            earlier.push(if row.seats.black == Some(black) {
                Scored { score, advantage }
            } else {
                Scored {
                    score: 1.0 - score,
                    advantage: -advantage,
                }
            });
        }
        if earlier.is_empty() {
            return Ok(PairWindow::First);
        }
        Ok(PairWindow::Repeated {
            start: (black_start, white_start),
            earlier,
        })
    }

    /// Shows these users' new ratings: in the cached accounts, and beside their names in their live games,
    /// found from the listings (no other game is locked), and in the game `rated` itself, finished, when it is
    /// in memory (so its page agrees with the others at once), with the change it made, told to its watchers.
    async fn show_ratings(
        &self,
        rated: i64,
        ratings: [(i64, Rating); 2],
        change: Option<ByColor<RatingChangeView>>,
    ) {
        for (user, rating) in ratings {
            self.accounts.rated(user, rating);
        }
        let theirs = self.summaries(
            |s| ratings.iter().any(|&(user, _)| s.seat_of(user).is_some()),
            usize::MAX,
        );
        let mut entries: Vec<_> = theirs
            .into_iter()
            .filter_map(|summary| self.live_entry(summary.id).map(|e| (true, e)))
            .collect();
        let finished = self.registry().finished.peek(&rated).cloned();
        entries.extend(finished.map(|e| (false, e)));
        for (live_game, entry) in entries {
            let mut live = entry.lock().await;
            for color in [Color::Black, Color::White] {
                if let Some(Player::User(u)) = &mut live.players[color]
                    && let Some(&(_, rating)) = ratings.iter().find(|&&(user, _)| user == u.id)
                {
                    u.set_rating(rating);
                }
            }
            if live_game {
                self.set_summary(&live);
            }
            if live.id == rated && change.is_some() && live.rating_change != change {
                live.rating_change = change;
                let event = serde_json::json!({
                    "type": "rated",
                    "version": live.version,
                    "rating_change": change,
                });
                let _ = live.events.send(std::sync::Arc::from(event.to_string()));
            }
        }
    }

    /// Rates the ranked games that ended with a result but were never rated (see the module's notes), oldest
    /// first; answers how many were rated now.
    pub async fn rate_unrated(&self) -> Result<usize, ApiError> {
        let mut after = 0;
        let mut rated = 0;
        loop {
            let ids = self
                .stores
                .ratings
                .unrated_games(after, UNRATED_ROUND)
                .await?;
            let Some(&last) = ids.last() else {
                break;
            };
            after = last;
            for id in ids {
                let Some(stored) = self.stores.games.load_game(id).await? else {
                    continue;
                };
                let replayed = tokio::task::spawn_blocking(move || {
                    LiveGame::replay(
                        stored,
                        Default::default(),
                        &TimeSource::real(),
                        Absences {
                            grace_ms: 0,
                            untimed_ms: 0,
                        },
                    )
                })
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))?;
                let to_rate = match replayed {
                    Ok(live) => live.to_rate(),
                    Err(e) => {
                        tracing::error!(error = %e, "an unrated game could not be rebuilt; it stays unrated");
                        None
                    }
                };
                if let Some(to_rate) = to_rate
                    && let Rated::Now { .. } = self.rate(to_rate).await?
                {
                    rated += 1;
                }
            }
        }
        if rated > 0 {
            tracing::info!(
                games = rated,
                "ranked games that had ended unrated are rated"
            );
        }
        Ok(rated)
    }

    /// User `user`'s rating now (`None`: never rated).
    pub async fn rating_of(&self, user: i64) -> Result<Option<Rating>, ApiError> {
        Ok(self.stores.ratings.rating(user).await?)
    }

    /// User `user`'s rating after each of their last [`HISTORY`] rated games, oldest first.
    pub async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        Ok(self.stores.ratings.rating_history(user, HISTORY).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str) -> Result<(), String> {
        check_ranked(&spec.parse().unwrap())
    }

    #[test]
    fn ranked_games_take_standard_settings_only() {
        for standard in [
            "japanese:size=19",
            "chinese:size=9",
            "korean:size=13",
            "aga:size=19",
            "new-zealand:size=9",
            "tromp-taylor:size=9",
            "japanese:size=9,komi=0.5",
            "aga:size=13,handicap=3,komi=0.5",
            "chinese:size=19,handicap=9,komi=0.5",
            "ideal:size=19",
            "ideal:size=19,handicap=4",
            "bga:size=9,counting=japanese,aga=on,komi=normal",
            "bga:size=19,counting=chinese,aga=off,komi=h5",
            "bga:size=13,komi=h1",
        ] {
            assert_eq!(check(standard), Ok(()), "{standard}");
        }
        // A tester's ranked tables (komi −50, a 2×2 board, nine stones on 9×9) and others like them.
        for (odd, says) in [
            ("chinese:size=9,komi=-50", "komi"),
            ("chinese:size=2", "9×9, 13×13 or 19×19"),
            ("japanese:size=9x13", "9×9, 13×13 or 19×19"),
            ("chinese:size=21", "9×9, 13×13 or 19×19"),
            ("chinese:size=9,handicap=9,komi=0.5", "ranks"),
            ("japanese:size=13,handicap=5,komi=0.5", "ranks"),
            ("japanese:size=19,komi=20", "komi"),
            ("chinese:size=19,handicap=3", "komi"),
            ("chinese:size=19,ko=simple", "options"),
            ("japanese:size=19,tie=white", "options"),
            ("bga:size=19,komi=big", "komi"),
        ] {
            let e = check(odd).expect_err(odd);
            assert!(e.contains(says), "{odd}: {e}");
        }
    }

    #[test]
    fn a_game_is_rated_only_after_enough_plays_by_each() {
        let mut log = Vec::new();
        for _ in 0..MIN_PLAYS {
            log.push(Action::Turn(
                Color::Black,
                Move::Play(tesuji_rules::Point::new(0, 0)),
            ));
            log.push(Action::Turn(Color::White, Move::Pass));
        }
        assert_eq!(plays_by(&log), [MIN_PLAYS, 0]);
        log.push(Action::Resign(Color::White));
        assert_eq!(plays_by(&log), [MIN_PLAYS, 0]);
        assert_eq!(black_score("B+R"), Some(1.0));
        assert_eq!(black_score("W+3.5"), Some(0.0));
        assert_eq!(black_score("0"), Some(0.5));
        assert_eq!(black_score("Void"), None);
        assert_eq!(black_score(""), None);
    }
}
