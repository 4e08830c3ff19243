//! `tesuji train patterns`: learns the gammas of the bot's move features (`tesuji_bot::features`) from game
//! records, by Hunter's minorization-maximization for the generalized Bradley–Terry model as Rémi Coulom
//! applied it to Go ("Computing Elo Ratings of Move Patterns in the Game of Go", 2007).
//!
//! Every position of every record is a competition between its candidate moves, won by the move played; a
//! move's strength is the product of its features' gammas. One MM step updates one group's gammas with the
//! others fixed: `γ_l ← (W_l + 1) / (Σ_j C_lj / E_j + 2 / (γ_l + 1))`, where `W_l` counts the competitions won
//! by a move with level `l`, `E_j` is the sum of all strengths in competition `j`, `C_lj` the sum, over its
//! candidates with level `l`, of their strength without `γ_l`, and the `+1` and `2/(γ_l + 1)` are one virtual
//! win and one virtual loss against a move of strength 1 (Coulom's prior, which keeps rare levels finite).
//! Files are read in sorted order and sums taken in a fixed order, so the same records give the same file.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tesuji_bot::features::{self, Example, GROUPS, Gammas, Group};
use tesuji_bot::policy::PASS;
use tesuji_rules::{Board, ByColor, Move, Rules};
use tesuji_sgf::record::{record_rules, replay};
use tesuji_sgf::tree::unescape;

/// Settings of a training run.
pub struct Settings {
    pub out: PathBuf,
    pub iterations: usize,
    /// Patterns and shapes played fewer times than this share one gamma ("rare").
    pub min_played: u32,
    /// Every this-many-th game is held out of training to measure prediction on (0: none).
    pub hold_out: usize,
    /// Only the turns of the players whose name contains this (in any case); every turn when `None`.
    pub player: Option<String>,
}

/// The `.sgf` files of `paths`: files as given, directories searched recursively; sorted, without repeats.
fn sgf_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for entry in
            std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?
        {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            bail!("{}: no such file or folder", p.display());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The examples of the main line of each game in one file (or why that game cannot be read), or why the file
/// cannot be read. With `player`, only the turns of the players whose name contains it (in any case).
fn file_examples(path: &Path, player: Option<&str>) -> Result<Vec<Result<Vec<Example>>>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let read = tesuji_sgf::read(&bytes)?;
    if read.collection.trees.is_empty() {
        bail!("no game in the file");
    }
    let wanted = player.map(str::to_lowercase);
    let game_examples = |tree: &tesuji_sgf::Tree| -> Result<Vec<Example>> {
        // Per colour: whether its turns are learnt from.
        let learn = match &wanted {
            None => ByColor::from_fn(|_| true),
            Some(w) => {
                let named = |ident| {
                    tree.root()
                        .value(ident)
                        .is_some_and(|raw| unescape(raw).to_lowercase().contains(w.as_str()))
                };
                let learn = ByColor {
                    black: named("PB"),
                    white: named("PW"),
                };
                if !learn.black && !learn.white {
                    bail!("neither player's name contains {w:?}");
                }
                learn
            }
        };
        let rules = record_rules(tree, None, Rules::default())?;
        let game = replay(tree, rules)?.game;
        let start = Board::from_grid(&game.start_grid()).context("bad start position")?;
        let turns: Vec<_> = game
            .turn_list()
            .into_iter()
            .map(|(c, m)| match m {
                Move::Play(p) => (c, start.idx(p)),
                Move::Pass => (c, PASS),
            })
            .collect();
        Ok(features::examples(&start, &turns, learn))
    };
    Ok(read.collection.trees.iter().map(game_examples).collect())
}

/// The training set: each candidate's levels as indices into one array of gammas.
struct Set {
    /// Per competition, the range of its candidates in `cands`, and the winner's place in it.
    comps: Vec<(usize, usize, usize)>,
    cands: Vec<[u32; GROUPS]>,
}

/// How the levels of each group map to places in the gamma array.
struct Levels {
    /// Per group, the first place; a group's levels are `offset[g]..offset[g + 1]`.
    offset: [usize; GROUPS + 1],
    /// Per group: for a keyed one ([`Group::KEYED`]) the keys with their own gamma, sorted, the place after
    /// them standing for the rest ("rare"); empty for the others.
    keys: [Vec<u32>; GROUPS],
}

impl Levels {
    fn new(train: &[Example], min_played: u32) -> Levels {
        let mut played: [std::collections::BTreeMap<u32, u32>; GROUPS] = Default::default();
        let mut top = [0u32; GROUPS];
        for ex in train {
            for (g, group) in Group::ALL.into_iter().enumerate() {
                if group.keyed().is_some() {
                    *played[g].entry(ex.candidates[ex.played][g]).or_default() += 1;
                } else {
                    top[g] = ex.candidates.iter().fold(top[g], |t, f| t.max(f[g]));
                }
            }
        }
        let keys: [Vec<u32>; GROUPS] = std::array::from_fn(|g| {
            played[g]
                .iter()
                .filter(|&(_, &n)| n >= min_played)
                .map(|(&k, _)| k)
                .collect()
        });
        let mut offset = [0; GROUPS + 1];
        for (g, group) in Group::ALL.into_iter().enumerate() {
            let n = match group.keyed() {
                Some(_) => keys[g].len() + 1,
                None => top[g] as usize + 1,
            };
            offset[g + 1] = offset[g] + n;
        }
        Levels { offset, keys }
    }

    /// How many keys of `group` have their own gamma.
    fn own(&self, group: Group) -> usize {
        self.keys[group as usize].len()
    }

    fn place(&self, f: &features::Features) -> [u32; GROUPS] {
        std::array::from_fn(|g| {
            let within = match Group::ALL[g].keyed() {
                Some(_) => self.keys[g]
                    .binary_search(&f[g])
                    .unwrap_or(self.keys[g].len()),
                // A level above the training set's top is unknown: its gamma stays 1 in the file.
                None => f[g] as usize,
            };
            (self.offset[g] + within).min(self.offset[g + 1] - 1) as u32
        })
    }

    fn set(&self, examples: &[Example]) -> Set {
        let mut set = Set {
            comps: Vec::with_capacity(examples.len()),
            cands: Vec::new(),
        };
        for ex in examples {
            let start = set.cands.len();
            set.cands
                .extend(ex.candidates.iter().map(|f| self.place(f)));
            set.comps.push((start, set.cands.len(), ex.played));
        }
        set
    }

    fn gammas(&self, gamma: &[f64]) -> Gammas {
        let mut levels = Vec::new();
        for (g, group) in Group::ALL.into_iter().enumerate() {
            let places = self.offset[g]..self.offset[g + 1];
            if group.keyed().is_some() {
                for (&key, place) in self.keys[g].iter().zip(places.clone()) {
                    levels.push((group, key, gamma[place] as f32));
                }
                levels.push((group, Gammas::RARE, gamma[places.end - 1] as f32));
            } else {
                for (level, place) in places.enumerate() {
                    levels.push((group, level as u32, gamma[place] as f32));
                }
            }
        }
        Gammas::from_levels(levels)
    }
}

/// A candidate's strength: the product of its levels' gammas.
fn strength(levels: &[u32; GROUPS], gamma: &[f64]) -> f64 {
    levels.iter().map(|&l| gamma[l as usize]).product()
}

/// Mean log-likelihood of the moves played, and the share of positions where the played move is the strongest.
fn measure(set: &Set, gamma: &[f64]) -> (f64, f64) {
    let (mut ll, mut top) = (0.0, 0usize);
    let mut strengths = Vec::new();
    for &(a, b, won) in &set.comps {
        strengths.clear();
        strengths.extend(set.cands[a..b].iter().map(|c| strength(c, gamma)));
        let sum: f64 = strengths.iter().sum();
        ll += (strengths[won] / sum).ln();
        let best = strengths
            .iter()
            .enumerate()
            .max_by(|x, y| x.1.total_cmp(y.1))
            .map_or(0, |(k, _)| k);
        top += usize::from(best == won);
    }
    let n = set.comps.len().max(1) as f64;
    (ll / n, top as f64 / n)
}

/// One MM step for group `g`.
fn mm_step(set: &Set, levels: &Levels, gamma: &mut [f64], g: usize) {
    let (lo, hi) = (levels.offset[g], levels.offset[g + 1]);
    let mut wins = vec![0f64; hi - lo];
    let mut denom = vec![0f64; hi - lo];
    let mut strengths = Vec::new();
    for &(a, b, won) in &set.comps {
        strengths.clear();
        strengths.extend(set.cands[a..b].iter().map(|c| strength(c, gamma)));
        let sum: f64 = strengths.iter().sum();
        for (c, s) in set.cands[a..b].iter().zip(&strengths) {
            let l = c[g] as usize;
            denom[l - lo] += s / gamma[l] / sum;
        }
        wins[set.cands[a + won][g] as usize - lo] += 1.0;
    }
    for l in lo..hi {
        gamma[l] = (wins[l - lo] + 1.0) / (denom[l - lo] + 2.0 / (gamma[l] + 1.0));
    }
}

/// `tesuji train patterns`: reads the records, trains, writes the gammas file; prints the figures.
pub fn patterns(paths: &[PathBuf], settings: &Settings, command: &str) -> Result<()> {
    if settings.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let files = sgf_files(paths)?;
    if files.is_empty() {
        bail!("no .sgf file in the paths given");
    }
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let (mut used, mut skipped) = (0usize, 0usize);
    for file in &files {
        let per_game = match file_examples(file, settings.player.as_deref()) {
            Ok(per_game) => per_game,
            Err(e) => {
                eprintln!("skipped {}: {e:#}", file.display());
                continue;
            }
        };
        for (k, ex) in per_game.into_iter().enumerate() {
            match ex {
                Ok(ex) => {
                    used += 1;
                    if settings.hold_out > 0 && used % settings.hold_out == 0 {
                        test.extend(ex);
                    } else {
                        train.extend(ex);
                    }
                }
                Err(e) => {
                    skipped += 1;
                    eprintln!("skipped {} game {}: {e:#}", file.display(), k + 1);
                }
            }
        }
    }
    if train.is_empty() {
        bail!("no position to train on");
    }
    let levels = Levels::new(&train, settings.min_played);
    let train_set = levels.set(&train);
    let test_set = levels.set(&test);
    drop((train, test));
    let mut gamma = vec![1f64; levels.offset[GROUPS]];
    let (patterns, shapes) = (levels.own(Group::Pattern), levels.own(Group::Shape));
    println!(
        "{used} games ({skipped} skipped), {} positions to train on, {} held out; {patterns} patterns and \
         {shapes} shapes of their own",
        train_set.comps.len(),
        test_set.comps.len(),
    );
    let (mut ll, mut top) = (0.0, 0.0);
    for it in 1..=settings.iterations {
        for g in 0..GROUPS {
            mm_step(&train_set, &levels, &mut gamma, g);
        }
        (ll, top) = measure(&train_set, &gamma);
        println!(
            "iteration {it}: log-likelihood {ll:.4} a move, played move first {:.1}%",
            100.0 * top
        );
    }
    let mut header = format!(
        "Gammas of the bot's move features (tesuji_bot::features), made by this command with --out FILE:\n  {command}\n\
         from {used} games, {} positions; {patterns} patterns and {shapes} shapes of their own.\n\
         Training set: log-likelihood {ll:.4} a move, the played move the strongest in {:.1}%.",
        train_set.comps.len(),
        100.0 * top
    );
    if !test_set.comps.is_empty() {
        let (ll, top) = measure(&test_set, &gamma);
        println!(
            "held out: log-likelihood {ll:.4} a move, played move first {:.1}%",
            100.0 * top
        );
        header.push_str(&format!(
            "\nHeld-out games ({} positions): log-likelihood {ll:.4}, the played move the strongest in {:.1}%.",
            test_set.comps.len(),
            100.0 * top
        ));
    }
    let text = levels.gammas(&gamma).to_text(&header);
    std::fs::write(&settings.out, text)
        .with_context(|| format!("cannot write {}", settings.out.display()))?;
    println!("wrote {}", settings.out.display());
    Ok(())
}
