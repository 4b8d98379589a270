//! Leaves of many search threads gathered into few, large evaluator calls, with two batches in
//! flight per thread: the network server of KataGo (`nneval`) and Leela Zero
//! (`OpenCLScheduler`), for an evaluator that pays per call (a GPU's launch and copy, a Python
//! callable's trip through the GIL).
//!
//! - Each search thread drives its trees with [`pipelined_rounds`]: it splits them into two
//!   halves, hands one half's leaves to the evaluator over its [`Line`], and walks the other
//!   half's trees to their next leaves while the first half is evaluated. It never waits for
//!   the evaluator unless the evaluator is slower than half a round of its own tree work.
//! - One evaluator thread runs [`serve`]: it takes the threads' requests in a fixed order
//!   (thread 0's first half, thread 1's first half, …, then the second halves), cuts their leaves
//!   into calls of at most `eval_batch`, and sends each thread its evaluations as soon as they
//!   are all made. The calls' contents are fixed by the threads' requests, not by timing.
//!
//! - Every thread plays until all have done their share (each says so with its requests), then
//!   all stop after the same round: every call is as full as the first, none is left to the
//!   slowest thread alone.
//!
//! Each tree sees the same leaves and evaluations, in the same order, as under [`Rounds`]
//! (every tree asked once a round), and the rounds played depend on the threads' work alone:
//! with a deterministic evaluator (one whose answer for a position does not depend on the rest
//! of its batch, as a network's) the results are the same bit for bit whatever `eval_batch`
//! and whatever the timing. An evaluator that draws random numbers (random playouts) gives
//! results reproducible for a given thread count and `eval_batch`.
//!
//! [`Rounds`]: super::Rounds
//!
//! ```
//! use awale::search::gather::{lines, pipelined_rounds, serve};
//! use awale::search::{BatchSearch, SearchSettings, UniformEvaluator};
//! use awale::{Rules, State};
//!
//! let rules = Rules::abapa();
//! let roots = vec![State::initial(&rules, 0); 6];
//! let mut a = BatchSearch::new(rules, SearchSettings::default(), &roots[..3], 16, None, 1).unwrap();
//! let mut b = BatchSearch::new(rules, SearchSettings::default(), &roots[3..], 16, None, 2).unwrap();
//! let (mut search_ends, [first, second]) = lines(2);
//! let load = std::thread::scope(|s| {
//!     let mut ends = search_ends.drain(..);
//!     let (mut la, mut lb) = (ends.next().unwrap(), ends.next().unwrap());
//!     s.spawn(move || pipelined_rounds(&mut a, &mut la, |a| a.is_done()));
//!     s.spawn(move || pipelined_rounds(&mut b, &mut lb, |b| b.is_done()));
//!     serve(&mut UniformEvaluator, vec![first, second], 4)
//! });
//! assert!(load.max_call <= 4 && load.leaves > 0);
//! ```

use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Instant;

use super::{Evaluation, Forest, LeafEvaluator};
use crate::state::State;

/// What a search thread sends the evaluator thread.
enum Request {
    /// Leaves to evaluate, a buffer for their evaluations, and whether the thread has done its
    /// share of the work (it goes on until every thread has).
    Leaves {
        leaves: Vec<State>,
        buffer: Vec<Evaluation>,
        satisfied: bool,
    },
    /// The thread needs nothing more.
    Done,
}

/// What the evaluator thread sends back.
struct Reply {
    /// The leaves' buffer, to reuse.
    leaves: Vec<State>,
    /// Their evaluations.
    evaluations: Vec<Evaluation>,
    /// The evaluator has stopped: the evaluations are not to be used.
    stopped: bool,
    /// Every thread had done its share two phases ago: stop after the next reply.
    finish: bool,
}

/// A search thread's end of its line to the evaluator: a channel each way for each half of its
/// trees.
pub struct Line {
    requests: [Sender<Request>; 2],
    replies: [Receiver<Reply>; 2],
    /// Spare buffers for the next requests.
    spare: Vec<(Vec<State>, Vec<Evaluation>)>,
    /// A spare list of tree indices.
    spare_owners: Vec<usize>,
}

/// The evaluator's end of one half of one line.
pub struct ServerEnd {
    requests: Receiver<Request>,
    replies: Sender<Reply>,
}

/// `n` lines: the search threads' ends, and the evaluator's ends of the first halves and of the
/// second halves, each in line order (the order in which [`serve`] takes their requests). One
/// evaluator thread serves both halves (`serve(e, vec![first, second], …)`), or two serve one
/// each, their calls then running at once (`serve(e1, vec![first], …)` beside
/// `serve(e2, vec![second], …)`): the results are the same.
pub fn lines(n: usize) -> (Vec<Line>, [Vec<ServerEnd>; 2]) {
    let mut first = Vec::with_capacity(n);
    let mut second = Vec::with_capacity(n);
    let lines = (0..n)
        .map(|_| {
            let half = || {
                let (rq_tx, rq_rx) = channel();
                let (rp_tx, rp_rx) = channel();
                (
                    (rq_tx, rp_rx),
                    ServerEnd {
                        requests: rq_rx,
                        replies: rp_tx,
                    },
                )
            };
            let ((rq0, rp0), end0) = half();
            let ((rq1, rp1), end1) = half();
            first.push(end0);
            second.push(end1);
            Line {
                requests: [rq0, rq1],
                replies: [rp0, rp1],
                spare: Vec::new(),
                spare_owners: Vec::new(),
            }
        })
        .collect();
    (lines, [first, second])
}

impl Line {
    /// An empty buffer for a request's leaves (reused from earlier replies).
    fn buffers(&mut self) -> (Vec<State>, Vec<Evaluation>) {
        let (mut l, e) = self.spare.pop().unwrap_or_default();
        l.clear();
        (l, e)
    }

    /// The reply to half `g`'s request; `None` when the evaluator has stopped or is gone.
    fn receive(&mut self, g: usize) -> Option<Reply> {
        let r = self.replies[g].recv().ok()?;
        (!r.stopped).then_some(r)
    }

    /// Tells the evaluator that this line needs nothing more.
    fn done(&self) {
        for r in &self.requests {
            let _ = r.send(Request::Done);
        }
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        self.done();
    }
}

/// What the evaluator thread did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EvaluatorLoad {
    /// Evaluator calls.
    pub calls: u64,
    /// Leaves evaluated.
    pub leaves: u64,
    /// The largest call.
    pub max_call: usize,
    /// Seconds spent inside the evaluator's calls (its busy time).
    pub busy_secs: f64,
    /// Seconds from the start of [`serve`] to its end.
    pub wall_secs: f64,
    /// Evaluator threads (loads added with [`EvaluatorLoad::add`]).
    pub threads: usize,
}

impl EvaluatorLoad {
    /// Leaves per call, on average.
    pub fn mean_call(&self) -> f64 {
        self.leaves as f64 / self.calls.max(1) as f64
    }

    /// The share of the wall time the evaluator threads were busy in their calls, from 0 to 1.
    pub fn busy_share(&self) -> f64 {
        (self.busy_secs / (self.wall_secs * self.threads.max(1) as f64).max(1e-9)).min(1.0)
    }

    /// The load of another evaluator thread that ran beside this one.
    pub fn add(&mut self, o: &EvaluatorLoad) {
        self.calls += o.calls;
        self.leaves += o.leaves;
        self.max_call = self.max_call.max(o.max_call);
        self.busy_secs += o.busy_secs;
        self.wall_secs = self.wall_secs.max(o.wall_secs);
        self.threads += o.threads;
    }
}

/// A line's request of the current phase.
struct Pending {
    line: usize,
    leaves: Vec<State>,
    evaluations: Vec<Evaluation>,
    /// Where its leaves start in the phase's queue.
    start: usize,
}

/// An evaluator thread: serves the requests of `groups` (the evaluator's ends of [`lines`]: both
/// halves, or one) with `evaluator`, in calls of at most `eval_batch` leaves (at least 1), until
/// every line is done or gone (see the [module docs](self)). After the evaluator stops, every
/// request is answered at once as stopped.
///
/// A phase is one request from each line still active in one group, taken in line order; the
/// phases go round the groups. Once every request of a group's phase said its thread had done
/// its share, the replies of that group's next phase say so, and every thread stops after that
/// reply and the other half's: all threads play the same number of rounds (so every call is as
/// full as the first), and the same with one evaluator thread or two.
pub fn serve(
    evaluator: &mut dyn LeafEvaluator,
    groups: Vec<Vec<ServerEnd>>,
    eval_batch: usize,
) -> EvaluatorLoad {
    let t0 = Instant::now();
    let eval_batch = eval_batch.max(1);
    let mut load = EvaluatorLoad {
        threads: 1,
        ..EvaluatorLoad::default()
    };
    let mut active: Vec<Vec<bool>> = groups.iter().map(|g| vec![true; g.len()]).collect();
    let mut finish = vec![false; groups.len()];
    let mut queue: Vec<State> = Vec::new();
    let mut results: Vec<Evaluation> = Vec::new();
    let mut call_out: Vec<Evaluation> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut stopped = false;
    let mut g = 0;
    while active.iter().flatten().any(|&a| a) {
        let ends = &groups[g];
        queue.clear();
        results.clear();
        pending.clear();
        let mut all_satisfied = true;
        let reply = |stopped| Answer {
            stopped,
            finish: finish[g],
        };
        for (k, end) in ends.iter().enumerate() {
            if !active[g][k] {
                continue;
            }
            let (leaves, evaluations, satisfied) = match end.requests.recv() {
                Ok(Request::Leaves {
                    leaves,
                    buffer,
                    satisfied,
                }) => (leaves, buffer, satisfied),
                Ok(Request::Done) | Err(_) => {
                    active[g][k] = false;
                    continue;
                }
            };
            all_satisfied &= satisfied;
            queue.extend_from_slice(&leaves);
            pending.push(Pending {
                line: k,
                start: queue.len() - leaves.len(),
                leaves,
                evaluations,
            });
            // Full calls as soon as their leaves are in; their lines answered once complete.
            while !stopped && queue.len() - results.len() >= eval_batch {
                stopped = call(
                    evaluator,
                    &queue,
                    &mut results,
                    eval_batch,
                    &mut call_out,
                    &mut load,
                );
                answer(ends, &mut pending, &results, reply(stopped));
            }
            if stopped {
                answer(ends, &mut pending, &results, reply(true));
            }
        }
        while !stopped && results.len() < queue.len() {
            stopped = call(
                evaluator,
                &queue,
                &mut results,
                eval_batch,
                &mut call_out,
                &mut load,
            );
        }
        answer(ends, &mut pending, &results, reply(stopped));
        finish[g] |= all_satisfied;
        g = (g + 1) % groups.len();
    }
    load.wall_secs = t0.elapsed().as_secs_f64();
    load
}

/// How a phase's replies are marked.
#[derive(Clone, Copy)]
struct Answer {
    stopped: bool,
    finish: bool,
}

/// One evaluator call on the next (at most `eval_batch`) leaves of `queue` not yet in
/// `results`; returns whether the evaluator has stopped.
fn call(
    evaluator: &mut dyn LeafEvaluator,
    queue: &[State],
    results: &mut Vec<Evaluation>,
    eval_batch: usize,
    out: &mut Vec<Evaluation>,
    load: &mut EvaluatorLoad,
) -> bool {
    let from = results.len();
    let to = queue.len().min(from + eval_batch);
    let t = Instant::now();
    evaluator.evaluate(&queue[from..to], out);
    load.busy_secs += t.elapsed().as_secs_f64();
    load.calls += 1;
    load.leaves += (to - from) as u64;
    load.max_call = load.max_call.max(to - from);
    if evaluator.stopped() || out.len() != to - from {
        return true;
    }
    results.extend_from_slice(out);
    false
}

/// Sends every pending request whose leaves are all evaluated (all of them when stopped) its
/// reply, and forgets it.
fn answer(ends: &[ServerEnd], pending: &mut Vec<Pending>, results: &[Evaluation], how: Answer) {
    pending.retain_mut(|p| {
        let end = p.start + p.leaves.len();
        if !how.stopped && end > results.len() {
            return true;
        }
        let mut evaluations = std::mem::take(&mut p.evaluations);
        evaluations.clear();
        if !how.stopped {
            evaluations.extend_from_slice(&results[p.start..end]);
        }
        // A line that is gone needs no answer.
        let _ = ends[p.line].replies.send(Reply {
            leaves: std::mem::take(&mut p.leaves),
            evaluations,
            stopped: how.stopped,
            finish: how.finish,
        });
        false
    });
}

/// The trees of `forest` driven in rounds as [`Rounds::round`](super::Rounds::round) drives
/// them (every tree asked once a round, in order), with their leaves evaluated over `line` in
/// two halves, one in flight while the other's leaves are found (see the [module
/// docs](self)). `satisfied(forest)`, asked after each half-round, says whether this thread
/// has done its share; it goes on until every thread's has (see [`serve`]), and stops with
/// every evaluation delivered. Returns false when it stopped because the evaluator did (its
/// thread gone, or the evaluator failed or was interrupted).
pub fn pipelined_rounds<F: Forest>(
    forest: &mut F,
    line: &mut Line,
    mut satisfied: impl FnMut(&F) -> bool,
) -> bool {
    let n = forest.trees();
    let half = n.div_ceil(2);
    let groups = [0..half, half..n];
    // The trees whose leaves each half has in flight (`None`: nothing in flight).
    let mut owners: [Option<Vec<usize>>; 2] = [None, None];
    let ok = 'rounds: loop {
        for g in 0..2 {
            match deliver(forest, line, g, &mut owners[g]) {
                None => break 'rounds false,
                Some(true) => {
                    // Every thread has done its share: the other half's last evaluations.
                    break 'rounds deliver(forest, line, 1 - g, &mut owners[1 - g]).is_some();
                }
                Some(false) => {}
            }
            let (mut leaves, buffer) = line.buffers();
            let mut mine = std::mem::take(&mut line.spare_owners);
            mine.clear();
            for i in groups[g].clone() {
                if let Some(leaf) = forest.next_leaf(i) {
                    leaves.push(leaf);
                    mine.push(i);
                }
            }
            let request = Request::Leaves {
                leaves,
                buffer,
                satisfied: satisfied(forest),
            };
            if line.requests[g].send(request).is_err() {
                break 'rounds false;
            }
            owners[g] = Some(mine);
        }
    };
    line.done();
    ok
}

/// Delivers the reply to a half's leaves in flight (if any) to their trees: `None` when the
/// evaluator has stopped, else whether the reply says to finish.
fn deliver<F: Forest>(
    forest: &mut F,
    line: &mut Line,
    g: usize,
    owners: &mut Option<Vec<usize>>,
) -> Option<bool> {
    let Some(mine) = owners.take() else {
        return Some(false);
    };
    let reply = line.receive(g)?;
    for (e, &i) in reply.evaluations.iter().zip(&mine) {
        forest.deliver(i, e);
    }
    line.spare.push((reply.leaves, reply.evaluations));
    line.spare_owners = mine;
    Some(reply.finish)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::search::{BatchSearch, Evaluation, SearchSettings};

    /// A deterministic evaluator whose answer depends on the position alone, and which records
    /// the size of each call.
    #[derive(Default)]
    struct Hashing {
        calls: Vec<usize>,
    }

    impl LeafEvaluator for Hashing {
        fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
            self.calls.push(states.len());
            out.clear();
            out.extend(states.iter().map(|s| {
                let mut e = Evaluation::default();
                let b = s.pits();
                for (a, l) in e.logits.iter_mut().enumerate() {
                    *l = b.get(a).copied().unwrap_or(0) as f32 * 0.1;
                }
                e.values[0] = (b.iter().map(|&x| x as f32).sum::<f32>() % 7.0) / 7.0 - 0.5;
                e.values[1] = -e.values[0];
                e
            }));
        }
    }

    fn roots(rules: &Rules, n: usize) -> Vec<State> {
        let mut out = Vec::new();
        let mut s = State::initial(rules, 0);
        for k in 0..n {
            out.push(s);
            let legal = s.legal_mask(rules);
            let h = (0..6)
                .map(|d| (k * 5 + d) % 6)
                .find(|h| legal >> h & 1 == 1);
            s.apply_unchecked(rules, h.expect("a legal move"));
            if s.is_over() {
                s = State::initial(rules, 1);
            }
        }
        out
    }

    #[test]
    fn gathered_searches_give_the_results_of_one_thread_whatever_the_call_size() {
        let rules = Rules::abapa();
        let all = roots(&rules, 11);
        let settings = SearchSettings::default();
        let mut alone = BatchSearch::new(rules, settings, &all, 20, Some(1.0), 9).unwrap();
        alone.run(&mut Hashing::default(), usize::MAX);
        let want = alone.results();
        for eval_batch in [1, 3, 6, 100] {
            // Three threads' forests: roots 0..4, 4..8, 8..11, each with its own seed's trees
            // as in `alone` (tree i seeded by 9 and i: one forest per thread, same seeds).
            let parts = [0..4, 4..8, 8..11];
            let mut forests: Vec<BatchSearch> = parts
                .iter()
                .map(|r| {
                    BatchSearch::new(rules, settings, &all[r.clone()], 20, Some(1.0), 9).unwrap()
                })
                .collect();
            let (search_ends, [first, second]) = lines(forests.len());
            let mut ev = Hashing::default();
            std::thread::scope(|s| {
                for (f, mut line) in forests.iter_mut().zip(search_ends) {
                    s.spawn(move || assert!(pipelined_rounds(f, &mut line, |f| f.is_done())));
                }
                if eval_batch % 2 == 0 {
                    // Two evaluator threads, a half each.
                    s.spawn(move || serve(&mut Hashing::default(), vec![second], eval_batch));
                    serve(&mut ev, vec![first], eval_batch);
                } else {
                    serve(&mut ev, vec![first, second], eval_batch);
                }
            });
            assert!(ev.calls.iter().all(|&c| c <= eval_batch) && !ev.calls.is_empty());
            for (r, f) in parts.iter().zip(&forests) {
                let mut one =
                    BatchSearch::new(rules, settings, &all[r.clone()], 20, Some(1.0), 9).unwrap();
                one.run(&mut Hashing::default(), 1);
                assert_eq!(f.results(), one.results(), "eval_batch {eval_batch}");
            }
            // The first forest's trees are `alone`'s first four.
            assert_eq!(forests[0].results()[..], want[..4]);
        }
    }

    #[test]
    fn a_line_dropped_without_a_word_ends_nothing_else() {
        let rules = Rules::abapa();
        let all = roots(&rules, 4);
        let mut f = BatchSearch::new(rules, SearchSettings::default(), &all, 8, None, 1).unwrap();
        let (mut search_ends, [first, second]) = lines(2);
        let quiet = search_ends.pop().unwrap();
        let mut line = search_ends.pop().unwrap();
        drop(quiet);
        std::thread::scope(|s| {
            s.spawn(move || assert!(pipelined_rounds(&mut f, &mut line, |f| f.is_done())));
            let load = serve(&mut Hashing::default(), vec![first, second], 2);
            assert!(load.leaves > 0);
        });
    }
}
