//! Leaves of many search threads gathered into few, large evaluator calls, with at least two
//! batches in flight per thread: the network server of KataGo (`nneval`) and Leela Zero
//! (`OpenCLScheduler`), for an evaluator that pays per call (a GPU's launch and copy, a Python
//! callable's trip through the GIL).
//!
//! - Each search thread drives its trees with [`pipelined_rounds`]: it splits them into groups
//!   (at least two), hands one group's leaves to the evaluator over its [`Line`], and walks the
//!   next groups' trees to their next leaves while the first is evaluated. It never waits for
//!   the evaluator unless a call takes longer than the rest of a round of its own tree work.
//! - Evaluator threads run [`serve`]: each takes the requests of its groups in a fixed order
//!   (thread 0's, thread 1's, … of the group), cuts their leaves into calls of at most
//!   `eval_batch`, and sends each thread its evaluations as soon as they are all made. A
//!   call's contents are fixed by the threads' requests, not by timing; one evaluator thread
//!   may serve every group, or several a share each, their calls running at once.
//! - Every thread plays until all have done their share (each says so with its requests), then
//!   all stop after the same round: every call is as full as the first, none is left to the
//!   slowest thread alone.
//!
//! Each tree sees the same leaves and evaluations, in the same order, as under [`Rounds`]
//! (every tree asked once a round), and the rounds played depend on the threads' work alone:
//! with a deterministic evaluator (one whose answer for a position does not depend on the rest
//! of its batch, as a network's) the results are the same bit for bit whatever `eval_batch`
//! and whatever the timing. An evaluator that draws random numbers (random playouts) gives
//! results reproducible for a given thread count, `eval_batch` and number of evaluator
//! threads.
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
//! let (mut search_ends, groups) = lines(2, 2);
//! let load = std::thread::scope(|s| {
//!     let mut ends = search_ends.drain(..);
//!     let (mut la, mut lb) = (ends.next().unwrap(), ends.next().unwrap());
//!     s.spawn(move || pipelined_rounds(&mut a, &mut la, |a| a.is_done()));
//!     s.spawn(move || pipelined_rounds(&mut b, &mut lb, |b| b.is_done()));
//!     serve(&mut UniformEvaluator, groups, 4)
//! });
//! assert!(load.max_call <= 4 && load.leaves > 0);
//! ```

use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Instant;

use super::{Evaluation, Forest, LeafEvaluator};
use crate::state::State;

/// What a search thread sends the evaluator thread.
enum Request {
    /// Leaves to evaluate, a buffer for their evaluations, and with the first group's request
    /// of a round, whether the thread had done its share of the work by the end of the last
    /// round (it goes on until every thread has).
    Leaves {
        leaves: Vec<State>,
        buffer: Vec<Evaluation>,
        satisfied: Option<bool>,
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

/// A search thread's end of its line to the evaluator: a channel each way for each group of its
/// trees.
pub struct Line {
    requests: Vec<Sender<Request>>,
    replies: Vec<Receiver<Reply>>,
    /// Spare buffers for the next requests.
    spare: Vec<(Vec<State>, Vec<Evaluation>)>,
    /// Spare lists of tree indices.
    spare_owners: Vec<Vec<usize>>,
}

/// The evaluator's end of one group of one line.
pub struct ServerEnd {
    requests: Receiver<Request>,
    replies: Sender<Reply>,
}

/// `n` lines, each for trees split into `groups` groups (at least 2: the batches each thread
/// has in flight): the search threads' ends, and the evaluator's ends by group, each in line
/// order (the order in which [`serve`] takes their requests). One evaluator thread may serve
/// every group (`serve(e, ends, …)`), or several a share each, their calls then running at
/// once: the results are the same.
pub fn lines(n: usize, groups: usize) -> (Vec<Line>, Vec<Vec<ServerEnd>>) {
    let k = groups.max(2);
    let mut ends: Vec<Vec<ServerEnd>> = (0..k).map(|_| Vec::with_capacity(n)).collect();
    let lines = (0..n)
        .map(|_| {
            let mut requests = Vec::with_capacity(k);
            let mut replies = Vec::with_capacity(k);
            for group in ends.iter_mut() {
                let (rq_tx, rq_rx) = channel();
                let (rp_tx, rp_rx) = channel();
                requests.push(rq_tx);
                replies.push(rp_rx);
                group.push(ServerEnd {
                    requests: rq_rx,
                    replies: rp_tx,
                });
            }
            Line {
                requests,
                replies,
                spare: Vec::new(),
                spare_owners: Vec::new(),
            }
        })
        .collect();
    (lines, ends)
}

impl Line {
    /// An empty buffer for a request's leaves (reused from earlier replies).
    fn buffers(&mut self) -> (Vec<State>, Vec<Evaluation>) {
        let (mut l, e) = self.spare.pop().unwrap_or_default();
        l.clear();
        (l, e)
    }

    /// The reply to group `g`'s request; `None` when the evaluator has stopped or is gone.
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

/// An evaluator thread: serves the requests of `groups` (some or all of the evaluator's ends of
/// [`lines`], one list a group) with `evaluator`, in calls of at most `eval_batch` leaves (at
/// least 1), until every line is done or gone (see the [module docs](self)). After the
/// evaluator stops, every request is answered at once as stopped.
///
/// A phase is one request from each line still active in one group, taken in line order; the
/// phases go round the groups. Each thread says with its first group's request of a round
/// whether its share was done by the end of the round before; once every thread has said so,
/// the first group's replies of the next round say to finish, and each thread stops there with
/// its other groups' evaluations delivered. So every thread plays the same rounds (every call
/// is as full as the first), and the rounds played do not depend on the groups, the evaluator
/// threads or the timing.
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
        let (mut all_satisfied, mut flagged) = (true, false);
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
            if let Some(satisfied) = satisfied {
                flagged = true;
                all_satisfied &= satisfied;
            }
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
        finish[g] |= flagged && all_satisfied;
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
/// them (every tree asked once a round, in order), split into the line's groups (consecutive
/// trees), each group's leaves evaluated over `line` while the next groups' leaves are found:
/// as many batches in flight as groups (see the [module docs](self)). `satisfied(forest)`,
/// asked at the start of each round, says whether this thread has done its share; it goes on
/// until every thread's has (see [`serve`]), and stops with every evaluation delivered.
/// Returns false when it stopped because the evaluator did (its thread gone, or the evaluator
/// failed or was interrupted).
pub fn pipelined_rounds<F: Forest>(
    forest: &mut F,
    line: &mut Line,
    mut satisfied: impl FnMut(&F) -> bool,
) -> bool {
    let n = forest.trees();
    let k = line.requests.len();
    let bounds: Vec<usize> = (0..=k).map(|g| g * n / k).collect();
    // The trees whose leaves each group has in flight (`None`: nothing in flight).
    let mut owners: Vec<Option<Vec<usize>>> = vec![None; k];
    let ok = 'rounds: loop {
        for g in 0..k {
            match deliver(forest, line, g, &mut owners[g]) {
                None => break 'rounds false,
                Some(true) => {
                    // Every thread has done its share: the other groups' last evaluations.
                    break 'rounds (1..k)
                        .map(|d| (g + d) % k)
                        .all(|h| deliver(forest, line, h, &mut owners[h]).is_some());
                }
                Some(false) => {}
            }
            // Whether this thread's share was done by the end of the last round.
            let flag = (g == 0).then(|| satisfied(forest));
            let (mut leaves, buffer) = line.buffers();
            let mut mine = line.spare_owners.pop().unwrap_or_default();
            mine.clear();
            for i in bounds[g]..bounds[g + 1] {
                if let Some(leaf) = forest.next_leaf(i) {
                    leaves.push(leaf);
                    mine.push(i);
                }
            }
            let request = Request::Leaves {
                leaves,
                buffer,
                satisfied: flag,
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

/// Delivers the reply to group `g`'s leaves in flight (if any) to their trees: `None` when the
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
    line.spare_owners.push(mine);
    Some(reply.finish)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::search::forest::tests::roots;
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
            // 2 or 3 groups; one evaluator thread, or one a group.
            let (search_ends, mut groups) = lines(forests.len(), 2 + eval_batch % 2);
            let mut ev = Hashing::default();
            std::thread::scope(|s| {
                for (f, mut line) in forests.iter_mut().zip(search_ends) {
                    s.spawn(move || assert!(pipelined_rounds(f, &mut line, |f| f.is_done())));
                }
                if eval_batch % 2 == 0 {
                    let second = groups.pop().unwrap();
                    s.spawn(move || serve(&mut Hashing::default(), vec![second], eval_batch));
                    serve(&mut ev, groups, eval_batch);
                } else {
                    serve(&mut ev, groups, eval_batch);
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
        let (mut search_ends, groups) = lines(2, 2);
        let quiet = search_ends.pop().unwrap();
        let mut line = search_ends.pop().unwrap();
        drop(quiet);
        std::thread::scope(|s| {
            s.spawn(move || assert!(pipelined_rounds(&mut f, &mut line, |f| f.is_done())));
            let load = serve(&mut Hashing::default(), groups, 2);
            assert!(load.leaves > 0);
        });
    }
}
