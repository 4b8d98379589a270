//! The server's one kind of ledger: what clients make it hold — the memory of games and endgame
//! tables (`--memory-mb`), replay bodies and replay answers — reserved before it is held and
//! released when the [`Reservation`] is dropped, for all holders together and for each holder.
//! A ledger is checked at two points only: admission (what a request may ask for at most) and
//! the reservation itself (insertion: [`Reservation::grow_to`]).
//!
//! ```ignore
//! let ledger = Ledger::new(4, 2); // 4 units in all, 2 a holder
//! let mut r = ledger.reserve(Some(client), 2).unwrap();
//! assert_eq!(ledger.held(), 2);
//! drop(r); // released
//! ```

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The ledger's lock (a panicking holder poisons nothing: the counts stay whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Who holds a reservation: a client (an address, as [`super::conn::client_of`] counts them), or
/// the server itself (`None`: its endgame tables).
pub(super) type Holder = Option<IpAddr>;

/// Units (MiB, KiB: the ledger's owner says) handed out, in all and by holder.
pub(super) struct Ledger {
    /// Units for all holders together.
    total: u64,
    /// Units one holder may hold.
    per_holder: u64,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    total: u64,
    by_holder: HashMap<Holder, u64>,
}

/// Why a [`Reservation`] could not grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Short {
    /// The ledger of all holders is spent.
    All,
    /// This holder holds its whole share already.
    Client,
}

impl Ledger {
    /// A ledger of `total` units, of which one holder holds `per_holder` at most.
    pub(super) fn new(total: u64, per_holder: u64) -> Arc<Ledger> {
        Arc::new(Ledger {
            total,
            per_holder,
            held: Mutex::new(Held::default()),
        })
    }

    /// Units held in all.
    pub(super) fn held(&self) -> u64 {
        lock(&self.held).total
    }

    /// Units held by `holder`.
    pub(super) fn held_by(&self, holder: Holder) -> u64 {
        lock(&self.held)
            .by_holder
            .get(&holder)
            .copied()
            .unwrap_or(0)
    }

    /// An empty reservation for `holder`, to grow as what it counts grows.
    pub(super) fn empty(self: &Arc<Self>, holder: Holder) -> Reservation {
        Reservation {
            ledger: self.clone(),
            holder,
            held: 0,
        }
    }

    /// `amount` units for `holder`, or why not.
    pub(super) fn reserve(
        self: &Arc<Self>,
        holder: Holder,
        amount: u64,
    ) -> Result<Reservation, Short> {
        let mut r = self.empty(holder);
        r.grow_to(amount)?;
        Ok(r)
    }
}

/// Units of a [`Ledger`] held for one holder, grown as what they count grows and released when
/// dropped.
pub(super) struct Reservation {
    ledger: Arc<Ledger>,
    holder: Holder,
    /// Units held.
    held: u64,
}

impl std::fmt::Debug for Reservation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reservation")
            .field("holder", &self.holder)
            .field("held", &self.held)
            .finish()
    }
}

impl Reservation {
    /// Units held.
    #[cfg(test)]
    pub(super) fn amount(&self) -> u64 {
        self.held
    }

    /// Holds `amount` units in all (at least); which share had no room for more, if one had
    /// none (nothing more is held then).
    pub(super) fn grow_to(&mut self, amount: u64) -> Result<(), Short> {
        if amount <= self.held {
            return Ok(());
        }
        let more = amount - self.held;
        let l = &self.ledger;
        let mut h = lock(&l.held);
        let mine = h.by_holder.get(&self.holder).copied().unwrap_or(0);
        if mine + more > l.per_holder {
            return Err(Short::Client);
        }
        if h.total + more > l.total {
            return Err(Short::All);
        }
        h.total += more;
        *h.by_holder.entry(self.holder).or_insert(0) += more;
        self.held = amount;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.held == 0 {
            return;
        }
        let mut h = lock(&self.ledger.held);
        h.total -= self.held;
        if let Some(n) = h.by_holder.get_mut(&self.holder) {
            *n -= self.held;
            if *n == 0 {
                h.by_holder.remove(&self.holder);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_holds_at_most_its_share_and_drops_release() {
        let ledger = Ledger::new(4, 2);
        let a: Holder = Some("10.0.0.1".parse().unwrap());
        let b: Holder = Some("10.0.0.2".parse().unwrap());
        let mut a1 = ledger.empty(a);
        let mut a2 = ledger.empty(a);
        assert_eq!(a1.grow_to(2), Ok(()));
        assert_eq!(a2.grow_to(1), Err(Short::Client));
        let b1 = ledger.reserve(b, 2).unwrap();
        assert_eq!(
            ledger.reserve(Some("10.0.0.3".parse().unwrap()), 1).err(),
            Some(Short::All)
        );
        drop(a1);
        assert_eq!((ledger.held(), ledger.held_by(a)), (2, 0));
        assert_eq!(a2.grow_to(2), Ok(()));
        assert_eq!(a2.amount(), 2);
        drop((a2, b1));
        assert_eq!(ledger.held(), 0);
        assert!(lock(&ledger.held).by_holder.is_empty());
    }
}
