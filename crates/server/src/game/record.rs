//! A game's record: one SGF tree with the players' names and, in a timed game, the clock's times, written
//! once; and its replay for the pages (the board after every move).

use tesuji_sgf::Property;
use tesuji_sgf::record::{GameInfo, to_tree};

use crate::replay::{InfoView, ReplayView, replay_turns};

use super::live::LiveGame;
use super::view::Player;

/// A line of comment for a game's record (a chat message), made when the game had `move_number` stored
/// actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub move_number: i64,
    pub line: String,
}

/// A seat's name as the record gives it (a guest's plain: the record says elsewhere who was a guest).
fn name(p: &Option<Player>) -> Option<String> {
    match p {
        Some(Player::User(u)) => Some(u.name.clone()),
        Some(Player::Bot { bot }) => Some(format!("tesuji {bot} bot")),
        None => None,
    }
}

/// The calendar date (UTC) of a time in seconds since the Unix epoch, as SGF's `DT` writes it: `2026-12-02`.
pub fn date_of(seconds: i64) -> String {
    // Days to a civil date, after Howard Hinnant's `civil_from_days`.
    let z = seconds.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

impl LiveGame {
    fn info(&self) -> GameInfo {
        let guests: Vec<&str> = [
            ("Black", &self.players.black),
            ("White", &self.players.white),
        ]
        .into_iter()
        .filter(|(_, p)| matches!(p, Some(Player::User(u)) if u.guest))
        .map(|(c, _)| c)
        .collect();
        GameInfo {
            black: name(&self.players.black),
            white: name(&self.players.white),
            date: Some(date_of(self.created)),
            place: Some("tesuji".to_owned()),
            game_comment: match guests.as_slice() {
                [] => None,
                [one] => Some(format!("{one} played as a guest.")),
                _ => Some("Black and White played as guests.".to_owned()),
            },
            ..GameInfo::default()
        }
    }

    /// The file name a download of the record gets: `{black}-{white}-{date}.sgf`, each name kept to letters,
    /// digits, `_` and `.` (others become `_`), so that any name makes a safe file name.
    pub fn sgf_file_name(&self) -> String {
        let part = |p: &Option<Player>| {
            let n = name(p).unwrap_or_else(|| "nobody".to_owned());
            let safe: String = n
                .chars()
                .take(40)
                .map(|c| {
                    if c.is_alphanumeric() || c == '_' || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            safe.trim_start_matches('.').to_owned()
        };
        format!(
            "{}-{}-{}.sgf",
            part(&self.players.black),
            part(&self.players.white),
            date_of(self.created)
        )
    }

    /// The game's SGF record, with the clock's times when timed and `comments` (`C`), each at the move it was
    /// made after (before the first move: at the root).
    pub fn sgf(&self, comments: &[Comment]) -> String {
        let mut tree = to_tree(&self.game, &self.info());
        if let Some(clock) = &self.clock {
            crate::clocks::add_times(&mut tree, clock.control(), &self.times);
        }
        self.add_comments(&mut tree, comments);
        tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] })
    }

    /// Adds each comment to the comment of the node of the last turn standing among the actions stored before
    /// it was made (the move its page showed; the record has a node per turn).
    fn add_comments(&self, tree: &mut tesuji_sgf::Tree, comments: &[Comment]) {
        let nodes: Vec<_> = tree.main_line().collect();
        let log = self.game.log();
        for message in comments {
            // The log's actions stored before the message and standing now (the stored count includes
            // take-back requests and answers, and turns taken back since are not in the log).
            let before = if self.log_numbers.len() == log.len() {
                self.log_numbers
                    .partition_point(|&number| number <= message.move_number)
            } else {
                usize::try_from(message.move_number)
                    .unwrap_or(0)
                    .min(log.len())
            };
            let turns = log[..before]
                .iter()
                .filter(|a| matches!(a, tesuji_rules::Action::Turn(..)))
                .count();
            let Some(node) = nodes
                .get(turns)
                .or(nodes.last())
                .and_then(|&id| tree.node_mut(id))
            else {
                continue;
            };
            let line = &message.line;
            let text = match node.get("C").and_then(|c| c.text_value()) {
                Some(before) => format!("{before}\n{line}"),
                None => line.clone(),
            };
            node.properties.retain(|p| p.ident != "C");
            node.properties.push(Property::text("C", &text));
        }
    }

    /// The game move by move, for the replay page.
    pub fn replay_view(&self) -> ReplayView {
        let info = self.info();
        replay_turns(
            &self.game,
            InfoView {
                black: info.black.clone(),
                white: info.white.clone(),
                result: self.game.result().map(|r| r.to_string()),
                komi: self.game.rules().komi.net(),
                rules_note: None,
                record_rules: None,
                ..InfoView::default()
            }
            .with_record(&info),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::date_of;

    #[test]
    fn dates_are_the_calendar_days_of_utc() {
        // Checked against Python's datetime.utcfromtimestamp.
        for (seconds, date) in [
            (0, "1970-01-01"),
            (951_782_400, "2000-02-29"),
            (1_709_164_800, "2024-02-29"),
            (1_764_633_600, "2025-12-02"),
            (4_102_444_799, "2099-12-31"),
            (-1, "1969-12-31"),
        ] {
            assert_eq!(date_of(seconds), date, "{seconds}");
        }
    }
}
