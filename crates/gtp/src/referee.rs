//! The referee of `tesuji match`: two GTP engines play each other; every move is checked with our rules.
//!
//! The engine given as `--black` is "A" and `--white` is "B"; with alternation A takes White in every second
//! game. An engine loses a game when it plays an illegal move, answers something that is not a move, refuses
//! a legal move of its opponent, crashes, or misses the deadline of a move. After two passes under rules with
//! a dead-stone phase, the stones both engines call dead (`final_status_list dead`) are removed; an engine
//! that cannot say contributes nothing, so only stones both agree on are taken off.
//!
//! With a time control (`tesuji match --time SPEC`) each engine has a real clock instead of a deadline per move:
//! it hears the control (`time_settings`, or `kgs-time_settings` for what plain GTP cannot say) and its time
//! before every `genmove` (`time_left`); its clock runs from the `genmove` being sent to the answer being read,
//! and an engine whose time runs out loses on time (`B+T`/`W+T`).
//!
//! The records name each engine as it names itself, its answers to `name` and `version` (`GNU Go 3.8`), never by
//! the command that started it; an engine that cannot say is named by its program's file name.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tesuji_clock::gtp::{GtpTimeLeft, GtpTimeSettings, KgsTimeSettings};
use tesuji_clock::{Clock, TimeControl};

use tesuji_rules::handicap::fixed_handicap_points;
use tesuji_rules::result::GameResult;
use tesuji_rules::{Color, Game, Move, Phase, Placement, Point, Rules};

use crate::controller::{Engine, EngineError};

/// What a match is.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// Engine A's command (Black in the first game).
    pub black: String,
    /// Engine B's command.
    pub white: String,
    pub rules: Rules,
    pub games: usize,
    /// Swap colours every second game.
    pub alternate: bool,
    /// The deadline of each move.
    pub time_per_move: Duration,
    /// The deadline of every other command, the first ones included (an engine may need a while to start).
    pub setup_time: Duration,
    /// Games played at once.
    pub parallel: usize,
    /// Real clocks (`None`: the deadline per move only).
    pub time: Option<TimeControl>,
}

/// Slack for process scheduling when waiting for an answer past a clock's time: the answer decides, the wait
/// only keeps a silent engine from hanging the match.
const CLOCK_SLACK: Duration = Duration::from_millis(500);

/// Tells an engine the time control: plain GTP when it can say it, else KGS's extension. An engine that knows
/// neither command plays on without knowing its time.
fn send_time_settings(engine: &mut Engine, control: &TimeControl, t: Duration) {
    if let Ok(s) = GtpTimeSettings::from_control(control)
        && engine.send(&format!("time_settings {s}"), t).is_ok()
    {
        return;
    }
    if let Ok(k) = KgsTimeSettings::from_control(control) {
        let _ = engine.send(&format!("kgs-time_settings {k}"), t);
    }
}

/// How one game ended, from the referee's view.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// Index of the game in the match (0-based).
    pub index: usize,
    /// The colour engine A played.
    pub a_color: Color,
    /// The result (`None` when the game could not start: both engines at fault).
    pub result: Option<GameResult>,
    /// Why an engine lost outside the rules of the game (illegal move, crash, time-out), if one did.
    pub fault: Option<String>,
    pub turns: u32,
    /// The engines' names, Black's and White's (see [`engine_name`]); empty when the game could not start.
    pub names: [String; 2],
    /// The game as SGF.
    pub sgf: String,
}

impl GameRecord {
    /// 1 for an A win, 0 for a loss, ½ for a draw or no result.
    pub fn a_points(&self) -> f64 {
        match self.result.and_then(|r| r.winner) {
            Some(c) if c == self.a_color => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// Engine A's name in this game, and engine B's.
    pub fn a_and_b_names(&self) -> (&str, &str) {
        let [black, white] = &self.names;
        if self.a_color == Color::Black {
            (black, white)
        } else {
            (white, black)
        }
    }
}

/// The program's file name in an engine's command (its first word, without the folders): what an engine that
/// does not answer `name` is called.
pub fn program_name(command: &str) -> String {
    let program = command.split_whitespace().next().unwrap_or("");
    let file = program.rsplit(['/', '\\']).next().unwrap_or(program);
    if file.is_empty() {
        "engine".to_string()
    } else {
        file.to_string()
    }
}

/// How an engine names itself: its `name`, then its `version` when it answers one (`GNU Go 3.8`), each on one
/// line; the program's file name when it refuses `name` ([`program_name`]). An engine that does not answer at
/// all (stopped, or silent past the deadline) is at fault.
pub fn engine_name(engine: &mut Engine, command: &str, t: Duration) -> Result<String, EngineError> {
    let one_line = |text: String| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let name = match engine.send("name", t) {
        Ok(name) => one_line(name),
        Err(EngineError::Failure { .. }) => String::new(),
        Err(e) => return Err(e),
    };
    if name.is_empty() {
        return Ok(program_name(command));
    }
    Ok(match engine.send("version", t).map(one_line) {
        Ok(version) if !version.is_empty() => format!("{name} {version}"),
        Ok(_) | Err(EngineError::Failure { .. }) => name,
        Err(e) => return Err(e),
    })
}

/// Plays every game of a match, `parallel` at a time, calling `done` after each.
pub fn run_match(config: &MatchConfig, done: impl Fn(&GameRecord) + Sync) -> Vec<GameRecord> {
    let next = AtomicUsize::new(0);
    let records = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..config.parallel.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= config.games {
                        return;
                    }
                    let a_color = if config.alternate && index % 2 == 1 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let record = play_game(config, index, a_color);
                    done(&record);
                    if let Ok(mut r) = records.lock() {
                        r.push(record);
                    }
                }
            });
        }
    });
    let mut records = records.into_inner().unwrap_or_default();
    records.sort_by_key(|r| r.index);
    records
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// The rules command an engine understands, if any. Returns whether the engine took the whole spec, handicap
/// included: a tesuji engine then places fixed handicap stones itself.
fn send_rules(engine: &mut Engine, rules: &Rules, t: Duration) -> bool {
    if engine.knows("tesuji-rules", t) {
        return engine.send(&format!("tesuji-rules {rules}"), t).is_ok();
    }
    let name = match rules.preset {
        tesuji_rules::Preset::Japanese | tesuji_rules::Preset::Korean => "japanese",
        tesuji_rules::Preset::Aga | tesuji_rules::Preset::Bga => "aga",
        tesuji_rules::Preset::NewZealand => "new_zealand",
        _ => "chinese",
    };
    if engine.knows("kata-set-rules", t) {
        let kata = if rules.preset == tesuji_rules::Preset::TrompTaylor {
            "tromp-taylor"
        } else {
            name
        };
        let _ = engine.send(&format!("kata-set-rules {kata}"), t);
    } else if engine.knows("kgs-rules", t) {
        let _ = engine.send(&format!("kgs-rules {name}"), t);
    }
    false
}

/// Plays one game between fresh engine processes.
pub fn play_game(config: &MatchConfig, index: usize, a_color: Color) -> GameRecord {
    let rules = config.rules;
    let setup_time = config.setup_time;
    // A move's deadline: the time per move with some slack for process scheduling.
    let move_time = config.time_per_move.mul_f64(1.5) + Duration::from_millis(500);
    let (black_cmd, white_cmd) = if a_color == Color::Black {
        (&config.black, &config.white)
    } else {
        (&config.white, &config.black)
    };
    let mut game = match Game::new(rules) {
        Ok(g) => g,
        Err(e) => return failed(index, a_color, format!("bad rules: {e}")),
    };
    let mut names = [program_name(black_cmd), program_name(white_cmd)];
    let mut engines = Vec::new();
    for (color, cmd) in [(Color::Black, black_cmd), (Color::White, white_cmd)] {
        match Engine::start(cmd) {
            Ok(mut e) => match engine_name(&mut e, cmd, setup_time) {
                Ok(name) => {
                    names[color.index()] = name;
                    engines.push(e);
                }
                Err(e) => {
                    return forfeit(config, &names, index, a_color, game, color, e.to_string());
                }
            },
            Err(e) => return forfeit(config, &names, index, a_color, game, color, e.to_string()),
        }
    }
    let size = rules.size;
    let komi = tesuji_rules::result::format_half_points(rules.komi.net());
    let mut took_spec = [false; 2];
    for (k, engine) in engines.iter_mut().enumerate() {
        let color = if k == 0 { Color::Black } else { Color::White };
        let setup = [
            format!("boardsize {}", size.width()),
            "clear_board".to_string(),
            format!("komi {komi}"),
        ];
        for cmd in setup {
            if let Err(e) = engine.send(&cmd, setup_time) {
                return forfeit(config, &names, index, a_color, game, color, e.to_string());
            }
        }
        took_spec[k] = send_rules(engine, &rules, setup_time);
        if let Some(control) = &config.time {
            send_time_settings(engine, control, setup_time);
        }
    }
    // The clocks count milliseconds from the start of play.
    let mut clock = match config.time.map(|c| Clock::new(c, 0)).transpose() {
        Ok(c) => c,
        Err(e) => return failed(index, a_color, format!("bad time control: {e}")),
    };
    let epoch = Instant::now();
    let now_ms = || u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
    // Fixed handicap stones are on our board already; tell the engines.
    if rules.has_handicap() && rules.placement == Placement::Fixed {
        let points = fixed_handicap_points(size, rules.handicap).unwrap_or_default();
        let list: Vec<String> = points.iter().map(|p| p.to_gtp(size)).collect();
        for (k, engine) in engines.iter_mut().enumerate() {
            if took_spec[k] {
                continue; // placed by the engine from the spec
            }
            if let Err(e) =
                engine.send(&format!("set_free_handicap {}", list.join(" ")), setup_time)
            {
                let color = if k == 0 { Color::Black } else { Color::White };
                return forfeit(config, &names, index, a_color, game, color, e.to_string());
            }
        }
    }
    let limit = 4 * size.area() as u32 + 20;
    while game.phase() == Phase::Playing && game.turns() < limit {
        let mover = game.to_move();
        let (me, other) = if mover == Color::Black {
            (0, 1)
        } else {
            (1, 0)
        };
        let forced = mover == Color::White && game.forced_passes_left() > 0;
        let mv = if forced {
            Move::Pass
        } else {
            let mut deadline = move_time;
            if let Some(clock) = clock.as_mut() {
                let now = now_ms();
                if let Some(left) = GtpTimeLeft::from_remaining(&clock.remaining(mover, now)) {
                    let _ = engines[me].send(
                        &format!("time_left {} {left}", color_word(mover)),
                        setup_time,
                    );
                }
                let now = now_ms();
                if clock.start_turn(mover, now).is_err() {
                    let _ = game.timeout(mover);
                    break;
                }
                deadline = clock
                    .until_flag_ms(mover, now)
                    .map_or(deadline, |ms| Duration::from_millis(ms) + CLOCK_SLACK);
            }
            let sent = engines[me].send(&format!("genmove {}", color_word(mover)), deadline);
            if let Some(clock) = clock.as_mut() {
                let late = clock.end_turn(mover, now_ms(), 0).is_err();
                if late {
                    let _ = game.timeout(mover);
                    break;
                }
            }
            let answer = match sent {
                Ok(a) => a,
                Err(e) => {
                    return forfeit(config, &names, index, a_color, game, mover, e.to_string());
                }
            };
            let word = answer.trim().to_ascii_lowercase();
            if word == "resign" {
                let _ = game.resign(mover);
                break;
            }
            if word == "pass" {
                Move::Pass
            } else {
                match Point::from_gtp(&word, size) {
                    Some(p) => Move::Play(p),
                    None => {
                        return forfeit(
                            config,
                            &names,
                            index,
                            a_color,
                            game,
                            mover,
                            format!("answered `{answer}`, not a move"),
                        );
                    }
                }
            }
        };
        if let Err(reason) = game.play(mover, mv) {
            let text = match mv {
                Move::Pass => "pass".to_string(),
                Move::Play(p) => p.to_gtp(size),
            };
            return forfeit(
                config,
                &names,
                index,
                a_color,
                game,
                mover,
                format!("illegal move {text}: {reason}"),
            );
        }
        let vertex = match mv {
            Move::Pass => "pass".to_string(),
            Move::Play(p) => p.to_gtp(size),
        };
        let play = format!("play {} {vertex}", color_word(mover));
        // The forced passes are not the engine's own answers: both engines hear of them.
        if forced {
            let _ = engines[me].send(&play, setup_time);
        }
        if let Err(e) = engines[other].send(&play, setup_time) {
            let other_color = mover.opponent();
            return forfeit(
                config,
                &names,
                index,
                a_color,
                game,
                other_color,
                format!("refused {play}: {e}"),
            );
        }
    }
    if game.phase() == Phase::Marking {
        let mut lists = Vec::new();
        for engine in engines.iter_mut() {
            let dead: Vec<Point> = engine
                .send("final_status_list dead", setup_time)
                .map(|a| {
                    a.split_whitespace()
                        .filter_map(|v| Point::from_gtp(v, size))
                        .collect()
                })
                .unwrap_or_default();
            lists.push(dead);
        }
        let agreed: Vec<Point> = lists[0]
            .iter()
            .filter(|p| lists[1].contains(p))
            .copied()
            .collect();
        let _ = game.propose(Color::Black, &agreed);
        let _ = game.accept(Color::Black);
        let _ = game.accept(Color::White);
    }
    finish(index, a_color, game, None, &names, config)
}

fn failed(index: usize, a_color: Color, fault: String) -> GameRecord {
    GameRecord {
        index,
        a_color,
        result: None,
        fault: Some(fault),
        turns: 0,
        names: Default::default(),
        sgf: String::new(),
    }
}

/// `loser` is at fault: the game is scored as a forfeit.
fn forfeit(
    config: &MatchConfig,
    names: &[String; 2],
    index: usize,
    a_color: Color,
    mut game: Game,
    loser: Color,
    fault: String,
) -> GameRecord {
    let _ = game.forfeit(loser);
    finish(
        index,
        a_color,
        game,
        Some(format!("{loser}: {fault}")),
        names,
        config,
    )
}

fn finish(
    index: usize,
    a_color: Color,
    game: Game,
    fault: Option<String>,
    names: &[String; 2],
    config: &MatchConfig,
) -> GameRecord {
    let [black, white] = names;
    let time = config.time.as_ref().map(tesuji_clock::sgf::control_to_sgf);
    let info = tesuji_sgf::record::GameInfo {
        black: (!black.is_empty()).then(|| black.to_string()),
        white: (!white.is_empty()).then(|| white.to_string()),
        comment: fault.clone(),
        time_limit: time.as_ref().and_then(|t| t.tm.clone()),
        overtime: time.as_ref().and_then(|t| t.ot.clone()),
        time_spec: time.and_then(|t| t.spec),
        ..Default::default()
    };
    let tree = tesuji_sgf::record::to_tree(&game, &info);
    GameRecord {
        index,
        a_color,
        result: game.result().copied(),
        fault,
        turns: game.turns(),
        names: names.clone(),
        sgf: tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] }),
    }
}

/// The statistics of a match, from engine A's side.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub games: usize,
    pub a_wins: usize,
    pub b_wins: usize,
    pub draws: usize,
    /// A's wins as Black and as White, and games A played as Black and as White.
    pub a_wins_by_color: [usize; 2],
    pub a_games_by_color: [usize; 2],
    /// A's score rate (wins + half the draws) with its 95% Wilson interval.
    pub rate: f64,
    pub rate_low: f64,
    pub rate_high: f64,
    /// The Elo difference the rate implies (A minus B), clamped to ±1000.
    pub elo: f64,
    /// Mean margin of the counted games, in points, from A's side.
    pub mean_margin: Option<f64>,
    pub faults: usize,
}

/// Summarises the records of a match.
pub fn summarize(records: &[GameRecord]) -> Summary {
    let games = records.len();
    let mut s = Summary {
        games,
        a_wins: 0,
        b_wins: 0,
        draws: 0,
        a_wins_by_color: [0; 2],
        a_games_by_color: [0; 2],
        rate: 0.0,
        rate_low: 0.0,
        rate_high: 0.0,
        elo: 0.0,
        mean_margin: None,
        faults: 0,
    };
    let mut margins = Vec::new();
    let mut points = 0.0;
    for r in records {
        let c = r.a_color.index();
        s.a_games_by_color[c] += 1;
        let p = r.a_points();
        points += p;
        if p == 1.0 {
            s.a_wins += 1;
            s.a_wins_by_color[c] += 1;
        } else if p == 0.0 {
            s.b_wins += 1;
        } else {
            s.draws += 1;
        }
        if r.fault.is_some() {
            s.faults += 1;
        }
        if let Some(res) = r.result
            && res.score.is_some()
        {
            let black_margin = res.margin as f64 / 2.0;
            margins.push(if r.a_color == Color::Black {
                black_margin
            } else {
                -black_margin
            });
        }
    }
    if games > 0 {
        let n = games as f64;
        let p = points / n;
        s.rate = p;
        // Wilson score interval, z = 1.96.
        let z = 1.96f64;
        let denom = 1.0 + z * z / n;
        let centre = (p + z * z / (2.0 * n)) / denom;
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
        s.rate_low = (centre - half).max(0.0);
        s.rate_high = (centre + half).min(1.0);
        s.elo = if p <= 0.0 {
            -1000.0
        } else if p >= 1.0 {
            1000.0
        } else {
            (-400.0 * (1.0 / p - 1.0).log10()).clamp(-1000.0, 1000.0)
        };
    }
    if !margins.is_empty() {
        s.mean_margin = Some(margins.iter().sum::<f64>() / margins.len() as f64);
    }
    s
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "games {}  A wins {}  B wins {}  draws/no result {}",
            self.games, self.a_wins, self.b_wins, self.draws
        )?;
        writeln!(
            f,
            "A as black: {}/{}   A as white: {}/{}",
            self.a_wins_by_color[0],
            self.a_games_by_color[0],
            self.a_wins_by_color[1],
            self.a_games_by_color[1]
        )?;
        writeln!(
            f,
            "A score rate {:.1}%  (95% CI {:.1}% to {:.1}%)  Elo A-B {:+.0}",
            100.0 * self.rate,
            100.0 * self.rate_low,
            100.0 * self.rate_high,
            self.elo
        )?;
        match self.mean_margin {
            Some(m) => writeln!(f, "mean margin of counted games (A's side) {m:+.1}")?,
            None => writeln!(f, "no counted games")?,
        }
        write!(
            f,
            "games lost by a fault (illegal move, crash, time): {}",
            self.faults
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(a_color: Color, winner: Option<Color>) -> GameRecord {
        GameRecord {
            index: 0,
            a_color,
            result: Some(GameResult {
                winner,
                outcome: tesuji_rules::result::Outcome::Resignation,
                margin: 0,
                score: None,
            }),
            fault: None,
            turns: 10,
            names: Default::default(),
            sgf: String::new(),
        }
    }

    #[test]
    fn summary_rates_interval_and_elo() {
        // 3 wins of 4: rate 75%, Elo 400·log10(3) ≈ 191.
        let records = vec![
            record(Color::Black, Some(Color::Black)),
            record(Color::White, Some(Color::White)),
            record(Color::Black, Some(Color::Black)),
            record(Color::White, Some(Color::Black)),
        ];
        let s = summarize(&records);
        assert_eq!((s.a_wins, s.b_wins, s.draws), (3, 1, 0));
        assert_eq!(s.a_wins_by_color, [2, 1]);
        assert!((s.rate - 0.75).abs() < 1e-12);
        assert!((s.elo - 400.0 * 3f64.log10()).abs() < 1e-9);
        assert!(s.rate_low < 0.75 && s.rate_high > 0.75 && s.rate_low > 0.0 && s.rate_high < 1.0);
        let all = summarize(&[record(Color::Black, Some(Color::Black))]);
        assert_eq!(all.elo, 1000.0);
        let draw = summarize(&[record(Color::Black, None)]);
        assert_eq!(draw.rate, 0.5);
        assert_eq!(draw.elo, 0.0);
    }
}
