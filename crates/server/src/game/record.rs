//! A game's record: one SGF tree with the players' names and, in a timed game, the clock's times, written
//! once; and its replay for the pages (the board after every move).

use tesuji_sgf::record::{GameInfo, to_tree};

use crate::replay::{InfoView, ReplayView, replay_turns};

use super::live::LiveGame;
use super::view::Player;

/// A seat's name as the record gives it.
fn name(p: &Option<Player>) -> Option<String> {
    match p {
        Some(Player::User(u)) if u.guest => Some(format!("{} (guest)", u.name)),
        Some(Player::User(u)) => Some(u.name.clone()),
        Some(Player::Bot { bot }) => Some(format!("tesuji {bot} bot")),
        None => None,
    }
}

impl LiveGame {
    fn info(&self) -> GameInfo {
        GameInfo {
            black: name(&self.players.black),
            white: name(&self.players.white),
            place: Some("tesuji".to_owned()),
            ..GameInfo::default()
        }
    }

    /// The game's SGF record, with the clock's times when timed.
    pub fn sgf(&self) -> String {
        let mut tree = to_tree(&self.game, &self.info());
        if let Some(clock) = &self.clock {
            crate::clocks::add_times(&mut tree, clock.control(), &self.times);
        }
        tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] })
    }

    /// The game move by move, for the replay page.
    pub fn replay_view(&self) -> ReplayView {
        let info = self.info();
        replay_turns(
            &self.game,
            InfoView {
                black: info.black,
                white: info.white,
                result: self.game.result().map(|r| r.to_string()),
                komi: self.game.rules().komi.net(),
                rules_note: None,
                record_rules: None,
            },
        )
    }
}
