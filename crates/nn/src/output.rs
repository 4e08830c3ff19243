//! From the heads' raw numbers to the figures KataGo reports (`kata-raw-nn`): the policy as probabilities
//! over the legal moves, win/loss/no-result, score figures and ownership, all from White's view; and the
//! eight symmetries under which a position can be evaluated.

use tesuji_rules::Color;

use crate::model::{Model, PostProcess};

/// What post-processing needs to know of the network: its version, policy channels and output scales.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Format {
    pub version: i64,
    pub policy_outputs: usize,
    pub post: PostProcess,
}

impl Format {
    pub fn of(model: &Model) -> Format {
        Format {
            version: model.version,
            policy_outputs: model.policy.outputs,
            post: model.post,
        }
    }
}
use crate::reference::RawOutput;

/// The policy optimism KataGo's GTP engine evaluates with (its default `rootPolicyOptimism`).
pub const GTP_POLICY_OPTIMISM: f32 = 0.2;

/// One evaluation as KataGo reports it, from White's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub width: usize,
    pub height: usize,
    /// `[y][x]`, y = 0 the top row; `None` where the move is illegal.
    pub policy: Vec<Option<f32>>,
    pub pass: f32,
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    pub white_lead: f32,
    pub white_score_selfplay: f32,
    pub white_score_selfplay_sq: f32,
    pub var_time_left: f32,
    pub shortterm_winloss_error: f32,
    pub shortterm_score_error: f32,
    /// `[y][x]`, +1 White's, -1 Black's.
    pub white_ownership: Vec<f32>,
}

/// What post-processing needs to know about the position besides the network's numbers.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    pub to_move: Color,
    /// `[y][x]` legality of a play at each point, in the board's own orientation.
    pub legal: &'a [bool],
    /// Whether the rules can end a game without result (simple ko or territory scoring, in KataGo's model).
    pub no_result_possible: bool,
    /// 0 for the plain policy, up to 1 for the optimistic one.
    pub policy_optimism: f32,
}

fn softplus(x: f64) -> f64 {
    if x > 40.0 { x } else { (1.0 + x.exp()).ln() }
}

/// Turns raw heads, already in the board's own orientation, into KataGo's figures.
pub fn postprocess(format: &Format, raw: &RawOutput, ctx: &Context) -> Evaluation {
    let points = raw.width * raw.height;
    let channels = format.policy_outputs;
    let optimistic = channels == 2 || (channels == 4 && format.version >= 16);
    let mix = |plain: f32, optimistic_logit: f32| {
        plain + (optimistic_logit - plain) * ctx.policy_optimism
    };
    let logit = |p: usize| {
        if optimistic {
            mix(raw.policy[p], raw.policy[points + p])
        } else {
            raw.policy[p]
        }
    };
    let pass_logit = if optimistic {
        mix(raw.pass[0], raw.pass[1])
    } else {
        raw.pass[0]
    };
    // KataGo's softmax: single precision, the maximum over legal moves subtracted, pass last.
    let mut logits: Vec<Option<f32>> = (0..points)
        .map(|p| ctx.legal[p].then(|| logit(p)))
        .collect();
    logits.push(Some(pass_logit));
    let max = logits.iter().flatten().copied().fold(-1e25f32, f32::max);
    let mut sum = 0f32;
    for l in logits.iter_mut().flatten() {
        *l = (*l - max).exp();
        sum += *l;
    }
    let legal_count = logits.iter().flatten().count() as f32;
    let probs: Vec<Option<f32>> = logits
        .iter()
        .map(|l| {
            l.map(|e| {
                if sum > 0.0 {
                    e / sum
                } else {
                    1.0 / legal_count
                }
            })
        })
        .collect();

    let post: &PostProcess = &format.post;
    let mut win_logit = raw.value[0] as f64;
    let loss_logit = raw.value[1] as f64;
    let mut no_result_logit = raw.value[2] as f64;
    if !ctx.no_result_possible {
        no_result_logit -= 100000.0;
    }
    let max = win_logit.max(loss_logit).max(no_result_logit);
    win_logit = (win_logit - max).exp();
    let mut loss = (loss_logit - max).exp();
    let mut no_result = (no_result_logit - max).exp();
    if !ctx.no_result_possible {
        no_result = 0.0;
    }
    let total = win_logit + loss + no_result;
    let mut win = win_logit / total;
    loss /= total;
    no_result /= total;

    let s = |i: usize| raw.score.get(i).map_or(0.0, |&v| v as f64);
    let mut score_mean = s(0) * post.score_mean as f64;
    let stdev = softplus(s(1)) * post.score_stdev as f64;
    let mut score_mean_sq = score_mean * score_mean + stdev * stdev;
    let mut lead = s(2) * post.lead as f64;
    let var_time_left = softplus(s(3)) * post.variance_time as f64;
    score_mean *= 1.0 - no_result;
    score_mean_sq *= 1.0 - no_result;
    lead *= 1.0 - no_result;
    let (winloss_error, score_error) = if raw.score.len() < 6 {
        (0.0, 0.0)
    } else if format.version >= 14 {
        let a = softplus(s(4) * 0.5);
        let b = softplus(s(5) * 0.5);
        (
            (a * a * post.shortterm_value_error as f64).sqrt(),
            (b * b * post.shortterm_score_error as f64).sqrt(),
        )
    } else if format.version >= 10 {
        (
            (softplus(s(4)) * post.shortterm_value_error as f64).sqrt(),
            (softplus(s(5)) * post.shortterm_score_error as f64).sqrt(),
        )
    } else {
        (softplus(s(4)), softplus(s(5)) * 10.0)
    };
    // The heads speak for the player to move.
    let sign = if ctx.to_move == Color::White {
        1.0
    } else {
        -1.0
    };
    if ctx.to_move == Color::Black {
        std::mem::swap(&mut win, &mut loss);
    }
    let white_ownership = raw
        .ownership
        .iter()
        .map(|&o| sign as f32 * o.tanh())
        .collect();
    Evaluation {
        width: raw.width,
        height: raw.height,
        pass: probs[points].unwrap_or(0.0),
        policy: probs[..points].to_vec(),
        white_win: win as f32,
        white_loss: loss as f32,
        no_result: no_result as f32,
        white_lead: (sign * lead) as f32,
        white_score_selfplay: (sign * score_mean) as f32,
        white_score_selfplay_sq: score_mean_sq as f32,
        var_time_left: var_time_left as f32,
        shortterm_winloss_error: winloss_error as f32,
        shortterm_score_error: score_error as f32,
        white_ownership,
    }
}

/// One of KataGo's eight symmetries, numbered as `kata-raw-nn` numbers them: bit 0 flips the rows, bit 1
/// the columns, bit 2 transposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(pub u8);

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    fn transposes(self) -> bool {
        self.0 & 4 != 0
    }

    /// The (height, width) of the transformed board.
    pub fn shape(self, height: usize, width: usize) -> (usize, usize) {
        if self.transposes() {
            (width, height)
        } else {
            (height, width)
        }
    }

    /// Where point (y, x) of the board lands in the network's input.
    pub fn forward(self, height: usize, width: usize, y: usize, x: usize) -> (usize, usize) {
        let flip_y = self.0 & 1 != 0;
        let flip_x = self.0 & 2 != 0;
        let fy = if flip_y { height - 1 - y } else { y };
        let fx = if flip_x { width - 1 - x } else { x };
        if self.transposes() {
            (fx, fy)
        } else {
            (fy, fx)
        }
    }

    /// Moves `[c][y][x]` planes of the board into the network's orientation.
    pub fn apply(self, planes: &[f32], channels: usize, height: usize, width: usize) -> Vec<f32> {
        let (h2, w2) = self.shape(height, width);
        let mut out = vec![0.0; planes.len()];
        for c in 0..channels {
            for y in 0..height {
                for x in 0..width {
                    let (ny, nx) = self.forward(height, width, y, x);
                    out[(c * h2 + ny) * w2 + nx] = planes[(c * height + y) * width + x];
                }
            }
        }
        out
    }

    /// Moves `[c][y][x]` planes from the network's orientation back to the board's.
    pub fn undo(self, planes: &[f32], channels: usize, height: usize, width: usize) -> Vec<f32> {
        let (h2, w2) = self.shape(height, width);
        let mut out = vec![0.0; planes.len()];
        for c in 0..channels {
            for y in 0..height {
                for x in 0..width {
                    let (ny, nx) = self.forward(height, width, y, x);
                    out[(c * height + y) * width + x] = planes[(c * h2 + ny) * w2 + nx];
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symmetry_is_undone_and_the_eight_differ() {
        let (h, w) = (5, 7);
        let planes: Vec<f32> = (0..2 * h * w).map(|i| i as f32).collect();
        let mut seen = std::collections::HashSet::new();
        for s in Symmetry::ALL {
            let moved = s.apply(&planes, 2, h, w);
            assert_eq!(s.undo(&moved, 2, h, w), planes, "{s:?}");
            let (h2, w2) = s.shape(h, w);
            // Point (y, x) of the board is where `forward` says in the moved planes.
            for y in 0..h {
                for x in 0..w {
                    let (ny, nx) = s.forward(h, w, y, x);
                    assert!(ny < h2 && nx < w2);
                    assert_eq!(moved[ny * w2 + nx], planes[y * w + x]);
                }
            }
            seen.insert(moved.iter().map(|v| *v as u32).collect::<Vec<_>>());
        }
        assert_eq!(seen.len(), 8);
        // KataGo's numbering: 1 flips the rows, 2 the columns, 4 transposes.
        assert_eq!(Symmetry(1).forward(h, w, 0, 0), (h - 1, 0));
        assert_eq!(Symmetry(2).forward(h, w, 0, 0), (0, w - 1));
        assert_eq!(Symmetry(4).forward(h, w, 1, 3), (3, 1));
        assert_eq!(Symmetry(6).forward(h, w, 1, 3), (w - 1 - 3, 1));
    }

    #[test]
    fn the_policy_covers_legal_moves_and_values_turn_to_whites_view() {
        let model = Format {
            version: 15,
            policy_outputs: 2,
            post: PostProcess::default(),
        };
        let raw = RawOutput {
            width: 2,
            height: 1,
            policy: vec![1.0, 5.0, 3.0, 3.0],
            pass: vec![0.0, 2.0],
            value: [2.0, 0.0, -1.0],
            score: vec![0.5, 0.0, 0.25, 0.0, 0.0, 0.0],
            ownership: vec![0.5, -0.5],
        };
        let legal = [true, false];
        let ctx = |to_move| Context {
            to_move,
            legal: &legal,
            no_result_possible: false,
            policy_optimism: 0.5,
        };
        let white = postprocess(&model, &raw, &ctx(Color::White));
        assert_eq!(white.policy[1], None);
        // Logits 1 + (3 - 1)/2 = 2 for the point and 0 + 2/2 = 1 for pass.
        let e = (1f32).exp();
        assert!((white.policy[0].unwrap() - e / (e + 1.0)).abs() < 1e-6);
        assert!((white.pass - 1.0 / (e + 1.0)).abs() < 1e-6);
        assert_eq!(white.no_result, 0.0);
        assert!((white.white_win - (2f32).exp() / ((2f32).exp() + 1.0)).abs() < 1e-6);
        assert!((white.white_lead - 0.25 * model.post.lead).abs() < 1e-5);
        let black = postprocess(&model, &raw, &ctx(Color::Black));
        assert_eq!(black.white_win, white.white_loss);
        assert_eq!(black.white_lead, -white.white_lead);
        assert_eq!(black.white_ownership[0], -(0.5f32).tanh());
    }
}
