//! `perft`: the number of move sequences of a given length, as `data/perft/README.md` defines it:
//! perft(s, 0) = 1; perft(s, d) = 0 when the game is over (two consecutive passes); otherwise the sum over every
//! legal play and the pass. It exercises exactly the legality code of [`Game`].

use crate::board::Board;
use crate::game::{Game, Phase, check_board_play};
use crate::history::{Records, turn_key};
use crate::rules::{KoRule, SuicideRule};
use crate::types::Color;

struct Search {
    ko: KoRule,
    suicide: SuicideRule,
    records: Records,
    /// When set, `ends[k]` counts the games that end (second consecutive pass) after exactly k turns.
    ends: Option<Vec<u64>>,
}

/// perft from the game's current state, under its ko and suicide rules. Handicap passes and placements are not
/// modelled: the players simply alternate. A game that is not in play has perft 1 at depth 0 and 0 beyond.
pub fn perft(game: &Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.phase() != Phase::Playing {
        return 0;
    }
    Search::new(game, false).run(game, depth).0
}

/// The number of complete games from the game's current state (ended by two consecutive passes) that last
/// exactly k more turns, for every k from 0 to `max_turns`.
pub fn game_lengths(game: &Game, max_turns: u32) -> Vec<u64> {
    if game.phase() != Phase::Playing {
        return vec![0; max_turns as usize + 1];
    }
    Search::new(game, true).run(game, max_turns).1
}

impl Search {
    fn new(game: &Game, lengths: bool) -> Search {
        Search {
            ko: game.rules().ko,
            suicide: game.rules().suicide,
            records: game.ko_records().clone(),
            ends: lengths.then(Vec::new),
        }
    }

    fn run(mut self, game: &Game, depth: u32) -> (u64, Vec<u64>) {
        if let Some(e) = &mut self.ends {
            e.resize(depth as usize + 1, 0);
        }
        // One board per level, reused so the search does not allocate per node; boards[0] is the current one.
        let mut boards = vec![game.board().clone(); depth as usize + 1];
        let n = self.count(&mut boards, game.to_move(), game.passes_in_row(), depth, 0);
        (n, self.ends.unwrap_or_default())
    }
}

impl Search {
    fn count(
        &mut self,
        boards: &mut [Board],
        to_move: Color,
        passes: u32,
        depth: u32,
        ply: usize,
    ) -> u64 {
        if depth == 0 {
            return 1;
        }
        if passes >= 2 {
            return 0;
        }
        let Some((board, rest)) = boards.split_first_mut() else {
            return 0;
        };
        let next = to_move.opponent();
        let mut total = 0;
        // The pass.
        if passes == 1 {
            // It ends the game: no need to search below it.
            if let Some(e) = &mut self.ends {
                e[ply + 1] += 1;
            }
            total += u64::from(depth == 1);
        } else if depth == 1 {
            total += 1;
        } else {
            let mark = self.records.len();
            if let Some(k) = turn_key(self.ko, board.hash(), to_move, next, false) {
                self.records.add(k, board.snapshot());
            }
            rest[0].clone_from(board);
            rest[0].pass();
            total += self.count(rest, next, passes + 1, depth - 1, ply + 1);
            self.records.truncate(mark);
        }
        // Every legal play.
        for e in 0..board.empty_points().len() {
            let i = board.empty_points()[e] as usize;
            if check_board_play(
                board,
                &self.records,
                self.ko,
                self.suicide,
                to_move,
                i,
                next,
            )
            .is_err()
            {
                continue;
            }
            if depth == 1 {
                total += 1;
                continue;
            }
            let mark = self.records.len();
            rest[0].clone_from(board);
            rest[0].play(to_move, i);
            if let Some(k) = turn_key(self.ko, rest[0].hash(), to_move, next, true) {
                self.records.add(k, rest[0].snapshot());
            }
            total += self.count(rest, next, 0, depth - 1, ply + 1);
            self.records.truncate(mark);
        }
        total
    }
}
