//! The analysis commands over the real `run` loop, fed line by line as a GUI does: each answer is read back the
//! way Sabaki and Lizzie split it (an `info` group per move, its fields as key and value pairs in any order, the
//! variation to the next `info`, `ownership` followed by one value per point), and the analysis stops at the next
//! line of input.

use std::collections::HashMap;
use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tesuji_bot::mcts::{Analysis, MctsConfig, MoveStat};
use tesuji_gtp::analyze::{Flavor, Request, info_line};
use tesuji_gtp::{BotKind, EngineConfig, run};
use tesuji_rules::{Color, Move, Point, Size};

/// Input that arrives when the test sends it, as a GUI's pipe does; closed when the sender is dropped.
struct Fed {
    lines: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for Fed {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let have = self.fill_buf()?;
            let n = have.len().min(out.len());
            out[..n].copy_from_slice(&have[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Fed {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.buf.len() {
            self.buf = self.lines.recv().unwrap_or_default();
            self.at = 0;
        }
        Ok(&self.buf[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Output the test reads while the engine writes it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The engine running `run` on its own thread, the MCTS bot on one thread.
struct Session {
    input: Option<Sender<Vec<u8>>>,
    output: Shared,
    engine: Option<std::thread::JoinHandle<io::Result<()>>>,
}

impl Session {
    fn start(rules: &str) -> Session {
        let (input, lines) = channel();
        let output = Shared::default();
        let config = EngineConfig {
            rules: rules.parse().unwrap(),
            bot: BotKind::Mcts(MctsConfig {
                threads: 1,
                ..MctsConfig::playouts(300)
            }),
            seed: 3,
            network: None,
        };
        let out = output.clone();
        let engine = std::thread::spawn(move || {
            let fed = Fed {
                lines,
                buf: Vec::new(),
                at: 0,
            };
            run(fed, out, config)
        });
        Session {
            input: Some(input),
            output,
            engine: Some(engine),
        }
    }

    fn send(&self, line: &str) {
        let input = self.input.as_ref().unwrap();
        input.send(format!("{line}\n").into_bytes()).unwrap();
    }

    fn text(&self) -> String {
        String::from_utf8(self.output.0.lock().unwrap().clone()).unwrap()
    }

    /// Waits until the output holds `done`, for at most 20 s; answers the output.
    fn until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let text = self.text();
            if done(&text) {
                return text;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{what}: {text}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sends a plain command and answers its response's text (waiting for the blank line that ends it).
    fn ask(&self, line: &str) -> String {
        let before = self.text().len();
        self.send(line);
        let text = self.until(line, |t| t[before..].contains("\n\n"));
        let answer = &text[before..];
        let end = answer.find("\n\n").unwrap();
        answer[..end].to_string()
    }

    fn close(mut self) -> String {
        drop(self.input.take());
        self.engine.take().unwrap().join().unwrap().unwrap();
        self.text()
    }
}

/// One move's `info` group, read as the GUIs do: keys and values in pairs until `pv`, whose vertices run to the
/// next `info` or the end (or to `pvVisits` and its counts).
#[derive(Debug)]
struct Info {
    fields: HashMap<String, String>,
    pv: Vec<String>,
    pv_visits: Vec<u64>,
    /// The values after `movesOwnership`.
    moves_ownership: Vec<f64>,
}

/// A line of analysis: its `info` groups, and the values after `ownership` and `ownershipStdev`.
fn parse_line(line: &str) -> (Vec<Info>, Vec<f64>, Vec<f64>) {
    let tokens: Vec<&str> = line.split(' ').collect();
    assert!(
        tokens.iter().all(|t| !t.is_empty()),
        "double spaces: {line}"
    );
    let (mut infos, mut ownership, mut stdev) = (Vec::new(), Vec::new(), Vec::new());
    let mut k = 0;
    while k < tokens.len() {
        match tokens[k] {
            "info" => {
                k += 1;
                let mut info = Info {
                    fields: HashMap::new(),
                    pv: Vec::new(),
                    pv_visits: Vec::new(),
                    moves_ownership: Vec::new(),
                };
                while k < tokens.len()
                    && !["info", "ownership", "ownershipStdev"].contains(&tokens[k])
                {
                    match tokens[k] {
                        "pv" => {
                            k += 1;
                            while k < tokens.len()
                                && ![
                                    "info",
                                    "ownership",
                                    "ownershipStdev",
                                    "pvVisits",
                                    "movesOwnership",
                                ]
                                .contains(&tokens[k])
                            {
                                info.pv.push(tokens[k].to_string());
                                k += 1;
                            }
                        }
                        "pvVisits" => {
                            k += 1;
                            while let Some(v) = tokens.get(k).and_then(|t| t.parse().ok()) {
                                info.pv_visits.push(v);
                                k += 1;
                            }
                        }
                        "movesOwnership" => {
                            k += 1;
                            while let Some(v) = tokens.get(k).and_then(|t| t.parse().ok()) {
                                info.moves_ownership.push(v);
                                k += 1;
                            }
                        }
                        key => {
                            let value = tokens
                                .get(k + 1)
                                .unwrap_or_else(|| panic!("{key} alone: {line}"));
                            assert!(
                                info.fields
                                    .insert(key.to_string(), value.to_string())
                                    .is_none()
                            );
                            k += 2;
                        }
                    }
                }
                infos.push(info);
            }
            "ownership" | "ownershipStdev" => {
                let into = if tokens[k] == "ownership" {
                    &mut ownership
                } else {
                    &mut stdev
                };
                k += 1;
                while let Some(v) = tokens.get(k).and_then(|t| t.parse::<f64>().ok()) {
                    into.push(v);
                    k += 1;
                }
            }
            other => panic!("unexpected {other:?} in {line}"),
        }
    }
    (infos, ownership, stdev)
}

/// The lines of the streamed answer that starts at `from` in `text` (after its `=` line), up to its blank line.
fn streamed(text: &str, from: usize) -> Vec<String> {
    let answer = &text[from..];
    let answer = answer
        .strip_prefix("=\n")
        .unwrap_or_else(|| panic!("no = line: {answer:?}"));
    let end = answer.find("\n\n").map_or(answer.len(), |e| e + 1);
    answer[..end].lines().map(str::to_string).collect()
}

fn is_vertex(v: &str, size: Size) -> bool {
    v == "pass" || Point::from_gtp(v, size).is_some_and(|p| size.contains(p))
}

#[test]
fn lz_analyze_streams_leela_lines_until_the_next_command() {
    let s = Session::start("chinese:size=9");
    s.ask("play b E5");
    let from = s.text().len();
    s.send("lz-analyze 2");
    s.until("three lines of analysis", |t| {
        t[from..].matches("\ninfo ").count() >= 3
    });
    s.send("name");
    let text = s.until("the next answer", |t| t[from..].contains("= tesuji\n\n"));
    let answer = &text[from..];
    // The analysis ends with its blank line, and the next command is answered after it.
    let end = answer.find("\n\n").unwrap();
    assert_eq!(&answer[end..end + 11], "\n\n= tesuji\n");
    let lines = streamed(&text, from);
    let size = Size::square(9).unwrap();
    for line in &lines {
        let (infos, ownership, _) = parse_line(line);
        assert!(ownership.is_empty());
        assert!(!infos.is_empty(), "{line}");
        let mut visits_before = u64::MAX;
        for (order, info) in infos.iter().enumerate() {
            let f = &info.fields;
            for key in ["move", "visits", "winrate", "prior", "lcb", "order"] {
                assert!(f.contains_key(key), "{key} missing: {line}");
            }
            assert_eq!(f["order"], order.to_string());
            assert!(is_vertex(&f["move"], size), "{line}");
            let visits: u64 = f["visits"].parse().unwrap();
            assert!(visits <= visits_before, "most visited first: {line}");
            visits_before = visits;
            for key in ["winrate", "prior", "lcb"] {
                let v: i64 = f[key]
                    .parse()
                    .unwrap_or_else(|_| panic!("{key} not an integer: {line}"));
                assert!((0..=10_000).contains(&v), "{key} {v}");
            }
            assert!(f["lcb"].parse::<i64>().unwrap() <= f["winrate"].parse::<i64>().unwrap());
            assert_eq!(info.pv.first(), Some(&f["move"]), "{line}");
            assert!(info.pv.iter().all(|v| is_vertex(v, size)), "{line}");
        }
    }
    // White is to move: no analysis line suggests E5, Black's stone.
    assert!(lines.iter().all(|l| !l.contains("move E5 ")));
    // The search went on between lines.
    let total = |l: &str| -> u64 {
        parse_line(l)
            .0
            .iter()
            .map(|i| i.fields["visits"].parse::<u64>().unwrap())
            .sum()
    };
    assert!(total(&lines[0]) < total(&lines[lines.len() - 1]));
    s.close();
}

/// Black's pass-alive group owns the left four columns (28 points), White's the right three (21).
fn settled_position() -> String {
    let rows = [
        ". X . X O . O",
        "X X X X O O O",
        ". X . X O . O",
        "X X X X O O O",
        ". X . X O . O",
        "X X X X O O O",
        ". X . X O . O",
    ];
    let size = Size::square(7).unwrap();
    let mut args = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, cell) in row.split(' ').enumerate() {
            let color = match cell {
                "X" => "B",
                "O" => "W",
                _ => continue,
            };
            args.push(format!(
                "{color} {}",
                Point::new(x as u8, y as u8).to_gtp(size)
            ));
        }
    }
    format!("set_position {}", args.join(" "))
}

#[test]
fn kata_analyze_gives_the_score_and_ownership_from_the_side_analyzed() {
    let s = Session::start("chinese:size=7,komi=2.5");
    s.ask(&settled_position());
    for (color, sign) in [("b", 1.0), ("w", -1.0)] {
        let from = s.text().len();
        s.send(&format!(
            "kata-analyze {color} 1 ownership true ownershipStdev true pvVisits true movesOwnership true"
        ));
        s.until("a line of analysis", |t| {
            t[from..].matches("\ninfo ").count() >= 2
        });
        s.send("");
        let text = s.until("the end of the analysis", |t| t[from..].contains("\n\n"));
        let lines = streamed(&text, from);
        let (infos, ownership, stdev) = parse_line(&lines[0]);
        assert_eq!(ownership.len(), 49, "one value per point");
        assert_eq!(stdev.len(), 49);
        // Row by row from the top left: four of Black's points, then three of White's.
        for (k, o) in ownership.iter().enumerate() {
            let black = k % 7 < 4;
            assert_eq!(*o, if black { sign } else { -sign }, "point {k}: {o}");
        }
        assert!(stdev.iter().all(|&d| d == 0.0));
        for info in &infos {
            let f = &info.fields;
            // Every playout ends 28 to 21, less 2.5 of komi: 4.5 for Black, -4.5 for White.
            for key in ["scoreMean", "scoreLead"] {
                assert_eq!(f[key].parse::<f64>().unwrap(), sign * 4.5, "{color} {key}");
            }
            assert_eq!(f["scoreStdev"], "0");
            let winrate: f64 = f["winrate"].parse().unwrap();
            assert_eq!(winrate, if sign > 0.0 { 1.0 } else { 0.0 });
            assert_eq!(info.pv.len(), info.pv_visits.len());
            // Each move's own board, from the same side: here every playout ends alike.
            assert_eq!(info.moves_ownership, ownership, "{color} {f:?}");
            assert_eq!(
                Some(&f["visits"].parse::<u64>().unwrap()),
                info.pv_visits.first()
            );
        }
    }
    s.close();
}

#[test]
fn genmove_analyze_plays_the_move_it_ends_with() {
    let s = Session::start("chinese:size=9");
    let from = s.text().len();
    s.send("7 genmove_analyze b 1");
    let text = s.until("the move", |t| t[from..].contains("\n\n"));
    let answer = &text[from..];
    assert!(answer.starts_with("=7\n"), "{answer}");
    let last = answer.trim_end().lines().last().unwrap();
    let vertex = last
        .strip_prefix("play ")
        .unwrap_or_else(|| panic!("{answer}"));
    // Between the `=` line and the move, only lines of analysis (one a centisecond at most).
    let lines: Vec<&str> = answer.trim_end().lines().collect();
    assert!(lines.len() >= 3, "{answer}");
    assert!(
        lines[1..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with("info ")),
        "{answer}"
    );
    // The move is on the board: Black may not play there again, and it is White's turn.
    assert!(s.ask(&format!("play b {vertex}")).starts_with('?'));
    // With both limits taken off, a genmove still ends (a second's search), as genmove_analyze must.
    assert_eq!(s.ask("kata-set-param maxPlayouts 0"), "= ");
    let from = s.text().len();
    s.send("lz-genmove_analyze w 0");
    let text = s.until("the move without limits", |t| t[from..].contains("\n\n"));
    assert!(text[from..].contains("\nplay "), "{}", &text[from..]);
    s.close();
}

#[test]
fn analysis_arguments_are_checked_and_lists_restrict_the_moves() {
    let s = Session::start("chinese:size=9");
    for bad in [
        "lz-analyze b 10 colour b",
        "kata-analyze 10 ownership maybe",
        "kata-analyze 10 movesOwnership yes",
        "lz-analyze 10 avoid b E5 0",
        "lz-analyze 10 allow b Z99 1",
        "lz-analyze 10 minmoves",
    ] {
        let answer = s.ask(bad);
        assert!(
            answer.starts_with("? bad analysis arguments"),
            "{bad}: {answer}"
        );
    }
    let from = s.text().len();
    s.send("lz-analyze b 1 allow b E5,C3 1 maxmoves 2");
    s.until("lines", |t| t[from..].matches("\ninfo ").count() >= 3);
    s.send("name");
    let text = s.until("the end", |t| t[from..].contains("= tesuji"));
    for line in streamed(&text, from) {
        let (infos, _, _) = parse_line(&line);
        assert!(infos.len() <= 2, "{line}");
        for info in infos {
            assert!(
                ["E5", "C3", "pass"].contains(&info.fields["move"].as_str()),
                "{line}"
            );
        }
    }
    s.close();
}

#[test]
fn gogui_commands_show_ownership_variation_and_score_and_params_set_the_search() {
    let s = Session::start("chinese:size=7,komi=2.5");
    let listed = s.ask("gogui-analyze_commands");
    let listed = listed.strip_prefix("= ").unwrap();
    for entry in listed.lines() {
        let parts: Vec<&str> = entry.split('/').collect();
        assert_eq!(parts.len(), 3, "{entry}");
        assert!(["dboard", "var", "string"].contains(&parts[0]), "{entry}");
        assert_eq!(s.ask(&format!("known_command {}", parts[2])), "= true");
    }
    assert_eq!(
        s.ask("kata-list-params"),
        "= maxPlayouts maxTime numSearchThreads"
    );
    assert_eq!(s.ask("kata-set-param maxPlayouts 120"), "= ");
    assert_eq!(s.ask("kata-get-param maxPlayouts"), "= 120");
    assert_eq!(s.ask("kata-set-param numSearchThreads 2"), "= ");
    assert_eq!(s.ask("kata-get-param numSearchThreads"), "= 2");
    s.ask(&settled_position());
    // Black's four columns, White's three, from the top row down.
    let board = s.ask("tesuji-ownership");
    let rows: Vec<&str> = board
        .strip_prefix("= ")
        .unwrap()
        .trim_start()
        .lines()
        .collect();
    assert_eq!(rows.len(), 7, "{board}");
    for row in rows {
        assert_eq!(row, "1.00 1.00 1.00 1.00 -1.00 -1.00 -1.00");
    }
    let score = s.ask("tesuji-score");
    assert!(
        score.starts_with("= B+4.5 (± 0.0; black to move wins 100% of 120 playouts)"),
        "{score}"
    );
    // An empty 7×7: the variation alternates colours from Black, each move legal in turn.
    s.ask("clear_board");
    let pv = s.ask("tesuji-pv");
    let tokens: Vec<&str> = pv.strip_prefix("= ").unwrap().split(' ').collect();
    assert!(tokens.len() >= 4 && tokens.len().is_multiple_of(2), "{pv}");
    for (k, pair) in tokens.chunks(2).enumerate() {
        assert_eq!(pair[0], if k % 2 == 0 { "B" } else { "W" }, "{pv}");
        assert!(
            s.ask(&format!("play {} {}", pair[0], pair[1]))
                .starts_with('='),
            "{pv}"
        );
    }
    s.close();
}

/// Waits at most `limit` for the engine's `run` to return; whether it did.
fn returned_within(engine: &std::thread::JoinHandle<io::Result<()>>, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if engine.is_finished() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    engine.is_finished()
}

#[test]
fn quit_returns_at_once_while_the_input_stays_open() {
    // Plainly, and while an analysis streams: `quit` is answered and `run` returns although the controller
    // keeps its end of the input open (the input is only closed after the check).
    for analysing in [false, true] {
        let mut s = Session::start("chinese:size=9");
        s.ask("play b E5");
        let from = s.text().len();
        if analysing {
            s.send("lz-analyze 5");
            s.until("a line of analysis", |t| t[from..].contains("\ninfo "));
        }
        s.send("7 quit");
        let engine = s.engine.take().unwrap();
        assert!(
            returned_within(&engine, Duration::from_secs(20)),
            "run still running 20 s after quit (analysing: {analysing}): {}",
            s.text()
        );
        engine.join().unwrap().unwrap();
        assert!(s.text().ends_with("=7 \n\n"), "{}", s.text());
        drop(s.input.take());
    }
}

/// A root move as the search reports it: `visits` playouts winning `value` of the time.
fn stat(mv: &str, visits: u64, value: f64) -> MoveStat {
    let size = Size::square(19).unwrap();
    let mv = Move::Play(Point::from_gtp(mv, size).unwrap());
    MoveStat {
        mv,
        visits,
        value,
        prior: 0.01,
        score_mean: 0.0,
        score_stdev: 0.0,
        score_selfplay: 0.0,
        pv: vec![mv],
        pv_visits: vec![visits],
        ownership: Vec::new(),
    }
}

/// KataGo's floor: a move with fewer than 15% of the best move's visits (`minVisitPropForLCB`) is not listed,
/// however high its win rate; `minmoves` adds the next ones, `maxmoves` cuts; `order` 0 is the most visited.
#[test]
fn analysis_lists_the_moves_above_katagos_visit_floor_in_its_order() {
    let size = Size::square(19).unwrap();
    let moves = vec![
        stat("Q16", 1000, 0.52),
        stat("D4", 400, 0.50),
        stat("C3", 160, 0.45),
        stat("R3", 150, 0.49),
        stat("K10", 149, 0.55),
        // Two lucky playouts: what put Lizzie's win-rate ring on a stray move.
        stat("A1", 2, 1.0),
        stat("T19", 1, 1.0),
        stat("A19", 0, 0.5),
    ];
    let analysis = Analysis {
        moves,
        playouts: 1862,
        ownership: vec![0.0; size.area()],
        ownership_stdev: vec![0.0; size.area()],
        size,
        elapsed: Duration::from_secs(1),
        to_move: Color::Black,
        score_mean: 0.0,
        score_stdev: 0.0,
    };
    let listed = |flavor: Flavor, args: &str| -> Vec<(String, String, String)> {
        let args: Vec<&str> = args.split_whitespace().collect();
        let request = Request::parse(flavor, &args, size).unwrap();
        let Some(line) = info_line(&request, &analysis) else {
            return Vec::new();
        };
        parse_line(&line)
            .0
            .iter()
            .map(|i| {
                let f = &i.fields;
                (f["move"].clone(), f["visits"].clone(), f["order"].clone())
            })
            .collect()
    };
    let expect = |pairs: &[(&str, u64)]| -> Vec<(String, String, String)> {
        pairs
            .iter()
            .enumerate()
            .map(|(k, (m, v))| (m.to_string(), v.to_string(), k.to_string()))
            .collect()
    };
    let above = [("Q16", 1000), ("D4", 400), ("C3", 160), ("R3", 150)];
    for flavor in [Flavor::Leela, Flavor::Kata, Flavor::Sabaki] {
        assert_eq!(listed(flavor, "10"), expect(&above), "{flavor:?}");
        assert_eq!(
            listed(flavor, "10 minmoves 6"),
            expect(&[above.as_slice(), &[("K10", 149), ("A1", 2)]].concat()),
            "{flavor:?}"
        );
        assert_eq!(listed(flavor, "10 maxmoves 2"), expect(&above[..2]));
        assert_eq!(listed(flavor, "10 minmoves 50").len(), 8);
        assert_eq!(listed(flavor, "10 maxmoves 0"), Vec::new());
    }
}

/// The tester's position (19×19, six moves of an opening): a search that visits nearly every point lists only
/// the moves above the floor, most visited first.
#[test]
fn analysis_of_an_opening_lists_a_few_moves_not_every_point() {
    let s = Session::start("chinese");
    for mv in ["b Q16", "w D4", "b Q4", "w D16", "b R10", "w C10"] {
        s.ask(&format!("play {mv}"));
    }
    for command in ["lz-analyze", "kata-analyze", "analyze"] {
        let from = s.text().len();
        s.send(&format!("{command} b 10"));
        // Until the search has spread: the best move has a thousand visits.
        s.until("a thousand visits", |t| {
            t[from..].lines().last().is_some_and(|l| {
                l.starts_with("info ")
                    && parse_line(l).0[0].fields["visits"].parse::<u64>().unwrap() >= 1000
            })
        });
        s.send("name");
        let text = s.until("the end", |t| t[from..].contains("= tesuji"));
        let lines = streamed(&text, from);
        let last = lines.last().unwrap();
        let (infos, _, _) = parse_line(last);
        let best: u64 = infos[0].fields["visits"].parse().unwrap();
        assert!(best >= 1000, "{last}");
        eprintln!(
            "{command}: {} moves listed, the best with {best} visits",
            infos.len()
        );
        // A GUI's board is not covered: far fewer circles than the 349 empty points.
        assert!(
            infos.len() < 349 / 3,
            "{command}: {} moves listed",
            infos.len()
        );
        let mut before = u64::MAX;
        for (order, info) in infos.iter().enumerate() {
            let visits: u64 = info.fields["visits"].parse().unwrap();
            assert!(visits * 100 >= best * 15, "{command}: {last}");
            assert!(visits <= before, "{command}: {last}");
            before = visits;
            assert_eq!(info.fields["order"], order.to_string());
        }
    }
    s.close();
}
