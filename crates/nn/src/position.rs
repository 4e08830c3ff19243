//! A position evaluated as KataGo evaluates it: its V7 inputs, turned to one of the eight orientations,
//! through the network, turned back, and post-processed into White's figures.

use tesuji_rules::Game;

use crate::inputs::{EncodeOptions, Features, SPATIAL_FEATURES, encode};
use crate::katarules::{KataKo, KataRules, KataScoring};
use crate::network::Network;
use crate::output::{Context, Evaluation, Format, Symmetry, postprocess};
use crate::reference::RawOutput;

/// One evaluation to make.
#[derive(Clone, Debug)]
pub struct Query<'a> {
    /// The position, with the player to move.
    pub game: &'a Game,
    /// The rules as KataGo's network knows them.
    pub rules: KataRules,
    /// White's komi in half-points.
    pub komi: i32,
    pub symmetry: Symmetry,
    /// 0 for the plain policy, up to 1 for the optimistic one ([`crate::output::GTP_POLICY_OPTIMISM`] is
    /// what KataGo's GTP engine uses).
    pub policy_optimism: f32,
}

/// The inputs of a query, in the network's orientation.
pub fn features(network: &Network, q: &Query) -> Features {
    let options = EncodeOptions {
        pass_alive_as_if_suicide_legal: network.model().pass_alive_as_if_suicide,
        ..EncodeOptions::default()
    };
    let f = encode(q.game, &q.rules, q.komi, &options);
    let (height, width) = q.symmetry.shape(f.height, f.width);
    Features {
        width,
        height,
        spatial: q
            .symmetry
            .apply(&f.spatial, SPATIAL_FEATURES, f.height, f.width),
        global: f.global,
    }
}

/// Evaluates the queries, batching those whose boards (as oriented) have the same shape.
pub fn evaluate(network: &Network, queries: &[Query]) -> Vec<Evaluation> {
    let inputs: Vec<Features> = queries.iter().map(|q| features(network, q)).collect();
    let pairs: Vec<(&Query, &Features)> = queries.iter().zip(&inputs).collect();
    evaluate_features(network, &pairs)
}

/// Evaluates queries whose inputs ([`features`]) are already made, batching by shape.
pub fn evaluate_features(network: &Network, queries: &[(&Query, &Features)]) -> Vec<Evaluation> {
    let mut raw: Vec<Option<RawOutput>> = vec![None; queries.len()];
    let mut done = vec![false; queries.len()];
    let shape = |j: usize| (queries[j].1.height, queries[j].1.width);
    for i in 0..queries.len() {
        if done[i] {
            continue;
        }
        let members: Vec<usize> = (i..queries.len())
            .filter(|&j| !done[j] && shape(j) == shape(i))
            .collect();
        let batch: Vec<&Features> = members.iter().map(|&j| queries[j].1).collect();
        for (&j, out) in members.iter().zip(network.evaluate(&batch)) {
            raw[j] = Some(out);
            done[j] = true;
        }
    }
    let format = Format::of(network.model());
    queries
        .iter()
        .zip(raw)
        .map(|((q, _), raw)| {
            let raw = raw.expect("every query is in a batch");
            finish(&format, q, raw)
        })
        .collect()
}

/// Turns one raw output back to the board's orientation and post-processes it.
fn finish(format: &Format, q: &Query, raw: RawOutput) -> Evaluation {
    let size = q.game.rules().size;
    let (height, width) = (size.height() as usize, size.width() as usize);
    let points = height * width;
    let channels = raw.policy.len() / points;
    let board = RawOutput {
        width,
        height,
        policy: q.symmetry.undo(&raw.policy, channels, height, width),
        ownership: q.symmetry.undo(&raw.ownership, 1, height, width),
        ..raw
    };
    let mut legal = vec![false; points];
    for p in q.game.plays_ignoring_phase() {
        legal[p.y as usize * width + p.x as usize] = true;
    }
    let ctx = Context {
        to_move: q.game.to_move(),
        legal: &legal,
        no_result_possible: q.rules.ko == KataKo::Simple
            || q.rules.scoring == KataScoring::Territory,
        policy_optimism: q.policy_optimism,
    };
    postprocess(format, &board, &ctx)
}

/// The mean of evaluations of one position (under several symmetries, say): every figure averaged, a
/// point's policy `None` where any of them has it illegal.
pub fn average(evaluations: &[Evaluation]) -> Option<Evaluation> {
    let first = evaluations.first()?;
    let n = evaluations.len() as f32;
    let mean = |f: &dyn Fn(&Evaluation) -> f32| evaluations.iter().map(f).sum::<f32>() / n;
    let points = first.policy.len();
    Some(Evaluation {
        width: first.width,
        height: first.height,
        policy: (0..points)
            .map(|p| {
                evaluations
                    .iter()
                    .map(|e| e.policy[p])
                    .sum::<Option<f32>>()
                    .map(|s| s / n)
            })
            .collect(),
        pass: mean(&|e| e.pass),
        white_win: mean(&|e| e.white_win),
        white_loss: mean(&|e| e.white_loss),
        no_result: mean(&|e| e.no_result),
        white_lead: mean(&|e| e.white_lead),
        white_score_selfplay: mean(&|e| e.white_score_selfplay),
        white_score_selfplay_sq: mean(&|e| e.white_score_selfplay_sq),
        var_time_left: mean(&|e| e.var_time_left),
        shortterm_winloss_error: mean(&|e| e.shortterm_winloss_error),
        shortterm_score_error: mean(&|e| e.shortterm_score_error),
        white_ownership: (0..points)
            .map(|p| {
                evaluations
                    .iter()
                    .map(|e| e.white_ownership[p])
                    .sum::<f32>()
                    / n
            })
            .collect(),
    })
}

/// An evaluation in KataGo's `kata-raw-nn` text for one symmetry (without GTP's `= ` and blank line).
pub fn raw_nn_text(symmetry: Symmetry, e: &Evaluation) -> String {
    let mut out = format!("symmetry {}\n", symmetry.0);
    out += &format!("whiteWin {:.6}\n", e.white_win);
    out += &format!("whiteLoss {:.6}\n", e.white_loss);
    out += &format!("noResult {:.6}\n", e.no_result);
    out += &format!("whiteLead {:.3}\n", e.white_lead);
    out += &format!("whiteScoreSelfplay {:.3}\n", e.white_score_selfplay);
    out += &format!("whiteScoreSelfplaySq {:.3}\n", e.white_score_selfplay_sq);
    out += &format!("varTimeLeft {:.3}\n", e.var_time_left);
    out += &format!("shorttermWinlossError {:.3}\n", e.shortterm_winloss_error);
    out += &format!("shorttermScoreError {:.3}\n", e.shortterm_score_error);
    out += "policy\n";
    for row in e.policy.chunks(e.width) {
        for p in row {
            match p {
                Some(p) => out += &format!("{p:8.6} "),
                None => out += "    NAN ",
            }
        }
        out += "\n";
    }
    out += &format!("policyPass {:8.6} \n", e.pass);
    out += "whiteOwnership\n";
    for row in e.white_ownership.chunks(e.width) {
        for o in row {
            out += &format!("{o:9.7} ");
        }
        out += "\n";
    }
    out
}
