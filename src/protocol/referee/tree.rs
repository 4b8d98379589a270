//! Every process an engine started, found and killed with it (Linux; elsewhere only the engine's
//! process group is killed).
//!
//! - Each engine is made a *child subreaper* before it runs (`PR_SET_CHILD_SUBREAPER` in the
//!   child, kept across `exec`): whatever it starts stays in its tree even after a `setsid()`,
//!   a `setpgid(0, 0)` or a double fork, since an orphan of its tree is re-parented to it, not
//!   to init. Ending an engine walks that tree in `/proc` (`ppid` links) and kills all of it
//!   while the engine still holds it ([`kill_tree`]): at a fault, before `quit`, and as the
//!   thread that started it ends (the kernel then kills the engine, `PR_SET_PDEATHSIG`).
//! - A process that owns itself — the `awale` binary — may also make itself a subreaper
//!   ([`become_subreaper`]): then what an engine started and left behind when it *exited on its
//!   own* (a crash) is re-parented to the referee, which kills and reaps it ([`sweep_orphans`]).
//!   A library must not do this in a process it does not own (Python, a host program): a
//!   subreaper gets the orphans of every child of the process. So the sweep runs only after
//!   [`become_subreaper`], and only takes children that are no engine it started (programs are
//!   started under the same lock as the sweep, so a new engine is never mistaken for an orphan).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The programs this process started and has not reaped (their pids).
static ENGINES: Mutex<Option<HashSet<i32>>> = Mutex::new(None);
/// Set by [`become_subreaper`]: orphans re-parented to this process are its programs' leftovers.
static SUBREAPER: AtomicBool = AtomicBool::new(false);
/// The most rounds of killing a tree takes (each kills all it found; a process killed cannot
/// fork again, so a second round finds only what forked during the first).
const ROUNDS: usize = 50;

/// Makes this process the reaper of its programs' orphans (see the module docs). Call it only in
/// a process whose every child is an engine or started by one: the `awale` binary does, at
/// start; the Python module does not. Returns whether the kernel accepted it (Linux 3.4+).
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a plain system call on this process's own attributes.
        let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
        SUBREAPER.store(ok, Ordering::SeqCst);
        ok
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The lock held while an engine is started and registered, and while orphans are swept.
pub(super) fn lock() -> MutexGuard<'static, Option<HashSet<i32>>> {
    ENGINES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records a started engine (under [`lock`]), also as one of this thread's.
pub(super) fn register(programs: &mut Option<HashSet<i32>>, pid: i32) {
    let set = programs.get_or_insert_with(HashSet::new);
    set.insert(pid);
    let _ = STARTED.try_with(|mine| {
        let mut mine = mine.0.borrow_mut();
        mine.retain(|p| set.contains(p));
        mine.push(pid);
    });
}

/// The programs a thread started. The kernel kills them when the thread ends
/// (`PR_SET_PDEATHSIG`), and then what they started would leave their trees: this thread-local's
/// destructor, run as the thread ends, kills those trees first.
struct ThreadPrograms(std::cell::RefCell<Vec<i32>>);

thread_local! {
    static STARTED: ThreadPrograms = const { ThreadPrograms(std::cell::RefCell::new(Vec::new())) };
}

impl Drop for ThreadPrograms {
    fn drop(&mut self) {
        let programs = lock();
        for pid in self.0.get_mut().iter() {
            // Only an engine not yet reaped: its pid cannot belong to another process.
            if programs.as_ref().is_some_and(|e| e.contains(pid)) {
                kill_tree(*pid);
            }
        }
    }
}

/// Forgets a reaped engine (under [`lock`]).
pub(super) fn forget(programs: &mut Option<HashSet<i32>>, pid: i32) {
    if let Some(set) = programs.as_mut() {
        set.remove(&pid);
    }
}

/// Every process of the system: pid → (ppid, a zombie).
fn processes() -> HashMap<i32, (i32, bool)> {
    let mut found = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some(stat) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|s| parse_stat(&s))
        {
            found.insert(pid, stat);
        }
    }
    found
}

/// The parent and whether it is a zombie, from `/proc/PID/stat` (`pid (comm) state ppid …`; the
/// command may hold spaces and parentheses, so fields are read after the last `)`).
fn parse_stat(stat: &str) -> Option<(i32, bool)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z"))
}

/// The living descendants of `root` in `table`, parents before children.
fn descendants(table: &HashMap<i32, (i32, bool)>, root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (&pid, &(ppid, _)) in table {
        children.entry(ppid).or_default().push(pid);
    }
    let mut found = Vec::new();
    let mut next = vec![root];
    while let Some(p) = next.pop() {
        for &c in children.get(&p).map(Vec::as_slice).unwrap_or(&[]) {
            if c != root && !found.contains(&c) {
                found.push(c);
                next.push(c);
            }
        }
    }
    found.retain(|p| !table[p].1);
    found
}

/// Sends SIGKILL to `pid`.
fn sigkill(pid: i32) {
    #[cfg(unix)]
    if pid > 1 {
        // SAFETY: a plain system call.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// Kills every living descendant of the engine `root` (not `root` itself), round after round
/// until none is left. Call it before the engine is killed: while it lives, it holds its tree.
pub(super) fn kill_tree(root: i32) {
    if !cfg!(target_os = "linux") {
        return;
    }
    for _ in 0..ROUNDS {
        let found = descendants(&processes(), root);
        if found.is_empty() {
            return;
        }
        found.into_iter().for_each(sigkill);
    }
}

/// After [`become_subreaper`]: kills and reaps the children of this process that are no engine
/// it started (under [`lock`], so `programs` is complete) — what programs left behind when they
/// exited — with their own descendants. Does nothing in a process that is no subreaper.
pub(super) fn sweep_orphans(programs: &Option<HashSet<i32>>) {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    let me = std::process::id() as i32;
    for _ in 0..ROUNDS {
        let table = processes();
        let orphans: Vec<i32> = table
            .iter()
            .filter(|(pid, (ppid, _))| {
                *ppid == me && !programs.as_ref().is_some_and(|e| e.contains(pid))
            })
            .map(|(&pid, _)| pid)
            .collect();
        if orphans.is_empty() {
            return;
        }
        for &o in &orphans {
            descendants(&table, o).into_iter().for_each(sigkill);
            sigkill(o);
        }
        #[cfg(unix)]
        for o in orphans {
            // SAFETY: `o` is a child of this process that no `Child` owns (it was re-parented
            // here); waiting for it by its pid reaps it and nothing else.
            unsafe {
                libc::waitpid(o, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// Makes the calling process (an engine, between `fork` and `exec`) a subreaper of its own
/// descendants. Only async-signal-safe calls.
#[cfg(target_os = "linux")]
pub(super) fn subreaper_in_child() {
    // SAFETY: `prctl` is async-signal-safe and changes only the calling process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_command() {
        assert_eq!(parse_stat("42 (a) b (c)) S 7 42 42 0 -1"), Some((7, false)));
        assert_eq!(parse_stat("43 (sleep) Z 1 43"), Some((1, true)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn descendants_are_found_through_every_generation_zombies_left_out() {
        let table: HashMap<i32, (i32, bool)> = [
            (10, (1, false)),
            (11, (10, false)),
            (12, (11, false)),
            (13, (10, true)),
            (20, (1, false)),
        ]
        .into_iter()
        .collect();
        let mut found = descendants(&table, 10);
        found.sort();
        assert_eq!(found, vec![11, 12]);
        assert!(descendants(&table, 20).is_empty());
    }
}
