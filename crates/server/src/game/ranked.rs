//! Ranked games in the core: which settings a ranked game may take ([`check_ranked`]), when a game that ended
//! needs rating ([`LiveGame::to_rate`], told to whoever took [`Games::ranked_endings`]), and the ratings shown
//! in games (new ratings beside the players' names, a finished game's change read back from the histories).
//! Rating itself is the ratings feature's (`crate::ratings`).
//!
//! Ratings that mean something: a game is rated only when it was played ([`MIN_PLAYS`] stones placed by each
//! player; a shorter game is annulled whatever ended it, as OGS annuls short games), and its handicap and komi
//! count as one advantage in ranks ([`setup_of`]).

use serde::Serialize;
use tesuji_rating::{Outcome, Setup};
use tesuji_rules::result::{GameResult, Outcome as Ending};
use tesuji_rules::{Action, BgaCounting, Color, Move, Preset, Rules, ScoringRule};

use crate::store::Rating;

/// The most points of a player's rating history shown (their last rated games).
pub const HISTORY: usize = 200;

/// The stones each player must have placed for a game to be rated: fewer, and it was not played (a
/// resignation at move 0, a game abandoned at once, two passes at the start).
pub const MIN_PLAYS: usize = 5;

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
    }
}
