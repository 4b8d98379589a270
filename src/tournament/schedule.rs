//! The schedule: pairings, seats, openings and the seeds every game derives from.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Format, TournamentConfig};
use crate::agents::{derive_seed, random_bit};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::rules::Rules;

/// One game of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// The game's index (its seed derives from it).
    pub index: usize,
    /// The pairing it belongs to.
    pub pairing: usize,
    /// The opening it starts from.
    pub opening: usize,
    /// The entrant (index) at each seat.
    pub seats: Vec<usize>,
}

/// The games of a tournament between `entrants` entrants, in index order.
///
/// ```
/// use awale::tournament::{schedule, Format, TournamentConfig};
/// use awale::Rules;
/// let mut cfg = TournamentConfig::new(Rules::abapa());
/// cfg.run.games = 4;
/// let s = schedule(&cfg, &["a".into(), "b".into(), "c".into()]).unwrap();
/// assert_eq!(s.len(), 12); // 3 pairs x 4 games
/// assert_eq!((s[0].seats.clone(), s[1].seats.clone()), (vec![0, 1], vec![1, 0]));
/// assert_eq!((s[0].opening, s[1].opening, s[2].opening), (0, 0, 1));
/// cfg.format = Format::Gauntlet("c".into());
/// assert_eq!(schedule(&cfg, &["a".into(), "b".into(), "c".into()]).unwrap().len(), 8);
/// ```
pub fn schedule(cfg: &TournamentConfig, names: &[String]) -> Result<Vec<ScheduledGame>> {
    let k = cfg.rules.players as usize;
    let n = names.len();
    if n < k {
        return Err(AwaleError::Tournament(format!(
            "{n} agents cannot fill a {k}-player board"
        )));
    }
    cfg.run.validate()?;
    let find = |name: &str| {
        names
            .iter()
            .position(|x| x == name)
            .ok_or_else(|| AwaleError::Tournament(format!("'{name}' is not among the agents")))
    };
    let pairings: Vec<Vec<usize>> = match &cfg.format {
        Format::RoundRobin => combinations(n, k),
        Format::Gauntlet(g) => {
            let g = find(g).map_err(|_| {
                AwaleError::Tournament(format!("the gauntlet agent '{g}' is not among the agents"))
            })?;
            combinations(n, k)
                .into_iter()
                .filter(|c| c.contains(&g))
                .collect()
        }
        Format::Pairings(pairs) => {
            if k != 2 {
                return Err(AwaleError::Tournament(format!(
                    "chosen pairings are for 2-player rules, these have {k} players"
                )));
            }
            let mut out = Vec::with_capacity(pairs.len());
            for (a, b) in pairs {
                let (i, j) = (find(a)?, find(b)?);
                if i == j {
                    return Err(AwaleError::Tournament(format!(
                        "'{a}' cannot be paired with itself"
                    )));
                }
                out.push(vec![i, j]);
            }
            out
        }
        Format::Tables(tables) => {
            let mut out = Vec::with_capacity(tables.len());
            for t in tables {
                if t.len() != k {
                    return Err(AwaleError::Tournament(format!(
                        "a table of {} entrants ({}) cannot fill a {k}-player board",
                        t.len(),
                        t.join(", ")
                    )));
                }
                let ids = t.iter().map(|a| find(a)).collect::<Result<Vec<_>>>()?;
                if let Some(a) = (0..k).find(|&a| ids[..a].contains(&ids[a])) {
                    return Err(AwaleError::Tournament(format!(
                        "'{}' sits twice at one table",
                        t[a]
                    )));
                }
                out.push(ids);
            }
            out
        }
    };
    let orders = seatings(k);
    let mut out = Vec::with_capacity(pairings.len() * cfg.run.games);
    for (p, combo) in pairings.iter().enumerate() {
        for j in 0..cfg.run.games {
            out.push(ScheduledGame {
                index: out.len(),
                pairing: p,
                opening: j / orders.len(),
                seats: orders[j % orders.len()].iter().map(|&s| combo[s]).collect(),
            });
        }
    }
    Ok(out)
}

/// The seatings one opening is played in, as positions in the pairing: every rotation (each
/// entrant at every seat) and, with 3 or more players, every rotation of the reversed order
/// too, so that each entrant also sits after each other one as often as before him (in
/// relay-sown owaré the next player receives the mover's seeds: a fixed order favours whoever
/// sits after the weakest entrant).
fn seatings(k: usize) -> Vec<Vec<usize>> {
    let forward: Vec<usize> = (0..k).collect();
    let mut orders = vec![forward.clone()];
    if k >= 3 {
        orders.push(forward.iter().rev().copied().collect());
    }
    orders
        .iter()
        .flat_map(|o| (0..k).map(move |r| (0..k).map(|s| o[(s + r) % k]).collect()))
        .collect()
}

/// All `k`-subsets of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut c: Vec<usize> = (0..k).collect();
    if k > n {
        return out;
    }
    loop {
        out.push(c.clone());
        let mut i = k;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if c[i] < n - k + i {
                break;
            }
        }
        c[i] += 1;
        for j in i + 1..k {
            c[j] = c[j - 1] + 1;
        }
    }
}

/// The start of opening `index`: a game after `plies` uniformly random moves (redrawn, up to 64
/// times, when the game ends within them).
///
/// ```
/// use awale::tournament::opening;
/// use awale::Rules;
/// let a = opening(&Rules::abapa(), 7, 3, 4);
/// assert_eq!(a.moves().len(), 4);
/// assert_eq!(a.moves(), opening(&Rules::abapa(), 7, 3, 4).moves());
/// ```
pub fn opening(rules: &Rules, seed: u64, index: usize, plies: u32) -> Game {
    let mut rng =
        ChaCha8Rng::seed_from_u64(derive_seed(derive_seed(seed, 0x6f70_656e), index as u64));
    let mut attempt = 0;
    loop {
        let mut game = Game::with_seed(*rules, rng.random());
        while !game.is_over() && game.moves().len() < plies as usize {
            let h = random_bit(&mut rng, game.legal_mask());
            game.apply_unchecked(h);
        }
        attempt += 1;
        if !game.is_over() || attempt == 64 {
            return game;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_lexicographic() {
        assert_eq!(
            combinations(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(4, 3).len(), 4);
    }

    #[test]
    fn three_player_schedule_rotates_every_seat() {
        let mut cfg = TournamentConfig::new(Rules::oware(3).unwrap());
        cfg.run.games = 12;
        let s = schedule(&cfg, &["a".into(), "b".into(), "c".into(), "d".into()]).unwrap();
        assert_eq!(s.len(), 48);
        assert_eq!(s[0].seats, vec![0, 1, 2]);
        assert_eq!(s[1].seats, vec![1, 2, 0]);
        assert_eq!(s[2].seats, vec![2, 0, 1]);
        assert_eq!(s[3].seats, vec![2, 1, 0]);
        assert_eq!(s[4].seats, vec![1, 0, 2]);
        assert_eq!(s[5].seats, vec![0, 2, 1]);
        assert!(s[..6].iter().all(|g| g.opening == 0));
        assert_eq!((s[6].opening, s[6].seats.clone()), (1, vec![0, 1, 2]));
        assert_eq!((s[12].pairing, s[12].opening), (1, 0));
    }

    #[test]
    fn every_entrant_sits_after_every_other_equally() {
        for k in [3usize, 4, 6] {
            let orders = seatings(k);
            assert_eq!(orders.len(), 2 * k);
            // after[a][b]: how often b sits right after a.
            let mut after = vec![vec![0; k]; k];
            let mut at = vec![vec![0; k]; k];
            for o in &orders {
                for s in 0..k {
                    after[o[s]][o[(s + 1) % k]] += 1;
                    at[o[s]][s] += 1;
                }
            }
            assert!(
                at.iter().flatten().all(|&n| n == 2),
                "k={k}: every entrant at every seat twice"
            );
            for (a, row) in after.iter().enumerate() {
                assert_eq!(row[(a + 1) % k], row[(a + k - 1) % k], "k={k}");
                assert_eq!(row[(a + 1) % k], k, "k={k}");
            }
        }
        assert_eq!(seatings(2), vec![vec![0, 1], vec![1, 0]]);
    }
}
