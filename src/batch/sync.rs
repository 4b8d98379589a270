//! The synchronization primitives of [`super::team`]: the standard library's, or under
//! `--cfg loom` the model checker's (so that `tests/loom_team.rs` can explore every
//! interleaving of the team's hand-off protocol). Without `loom` this module only re-exports
//! std and adds nothing to the team's code or speed.

#[cfg(not(loom))]
pub(crate) use std::{
    hint,
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize},
        Arc, Mutex,
    },
    thread,
};

#[cfg(loom)]
pub(crate) use loom::{
    hint,
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize},
        Arc, Mutex,
    },
    thread,
};

/// An `UnsafeCell` with loom's access API (`with`, `with_mut`), so that loom can check the
/// accesses; over std it is the plain cell.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    /// A cell holding `value`.
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Calls `f` with a pointer for reading.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Calls `f` with a pointer for writing.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// Whether a waiting helper that has spun `spins` times for `since` should park now. Under
/// loom, time means nothing: a helper checks once, then parks (both paths get explored).
#[cfg(not(loom))]
#[inline(always)]
pub(crate) fn should_park(
    spins: u32,
    since: std::time::Instant,
    spin: std::time::Duration,
) -> bool {
    spins.is_multiple_of(64) && since.elapsed() > spin
}

/// See the std version.
#[cfg(loom)]
pub(crate) fn should_park(
    _spins: u32,
    _since: std::time::Instant,
    _spin: std::time::Duration,
) -> bool {
    true
}
