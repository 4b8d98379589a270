//! The byte codec of self-play's games in progress: what checkpoints and remote workers hold
//! of a [`SelfPlay`] (positions, histories, random generators, pending samples), shard by shard.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Pending, SelfPlay, Shard, Slot};
use crate::az::data::{ByteReader, ByteWriter};
use crate::az::{CheckpointError, TrainResult};
use crate::history::History;
use crate::rules::MAX_PLAYERS;
use crate::search::{Search, MAX_ACTIONS};
use crate::state::{PositionKey, State};

/// The tag that starts the sharded encoding (0.1.0 wrote one shard without it).
const SHARDED: u64 = u64::MAX;

impl SelfPlay {
    /// Writes the games in progress of every shard (positions, histories, random generators,
    /// pending samples).
    pub fn encode(&self, w: &mut ByteWriter) {
        w.u64(SHARDED);
        w.u64(self.shards.len() as u64);
        for s in &self.shards {
            s.encode(w);
        }
    }

    /// The number of shards of an encoding written by [`SelfPlay::encode`] (1 for the
    /// single-shard encoding of 0.1.0), or `None` if it cannot be read.
    pub fn encoded_threads(bytes: &[u8]) -> Option<usize> {
        let mut r = ByteReader::new(bytes);
        match r.u64().ok()? {
            SHARDED => r.u64().ok().map(|n| n as usize),
            _ => Some(1),
        }
    }

    /// Restores the games written by [`SelfPlay::encode`] (or by 0.1.0's single-threaded
    /// trainer) into a self-play set made with the same rules, settings and number of games.
    /// The shards, and so the thread count, become the encoded ones.
    pub fn decode(&mut self, r: &mut ByteReader<'_>) -> TrainResult<()> {
        let corrupt = |m: String| CheckpointError::Corrupt(format!("self-play state: {m}"));
        let total: usize = self.shards.iter().map(|s| s.slots.len()).sum();
        let (rules, settings) = (self.shards[0].rules, self.shards[0].settings.clone());
        let first = r.u64()?;
        let mut shards = Vec::new();
        if first == SHARDED {
            let t = r.u64()?;
            if t == 0 || t > 4096 {
                return Err(corrupt(format!("{t} shards")).into());
            }
            for w in 0..t {
                let mut shard = Shard::new(rules, settings.clone(), 0, w, t);
                let next = r.u64()?;
                shard.decode(next, r)?;
                shards.push(shard);
            }
        } else {
            let mut shard = Shard::new(rules, settings, 0, 0, 1);
            shard.decode(first, r)?;
            shards.push(shard);
        }
        let n: usize = shards.iter().map(|s| s.slots.len()).sum();
        if n != total {
            return Err(corrupt(format!("{n} games in progress, the config has {total}")).into());
        }
        for s in &shards {
            s.check_game_numbers()?;
        }
        self.shards = shards;
        Ok(())
    }

    /// Writes the games in progress of the shards in `shards` only (what a worker playing them
    /// sends: [`crate::az::remote::SelfPlayPart::games`]).
    ///
    /// # Panics
    /// If `shards` is past the last shard.
    pub fn encode_shards(&self, shards: std::ops::Range<usize>, w: &mut ByteWriter) {
        for s in &self.shards[shards] {
            s.encode(w);
        }
    }

    /// Reads the shards in `shards` written by [`SelfPlay::encode_shards`] into this set (of
    /// the same rules, settings and shard count), which must then be at the end of `r`. Each
    /// shard must hold as many games as this set's; a refused input leaves the set as it was.
    pub fn decode_shards(
        &mut self,
        shards: std::ops::Range<usize>,
        r: &mut ByteReader<'_>,
    ) -> TrainResult<()> {
        let corrupt = |m: String| CheckpointError::Corrupt(format!("self-play state: {m}"));
        let t = self.shards.len();
        if shards.is_empty() || shards.end > t {
            return Err(corrupt(format!("shards {shards:?} of a set of {t}")).into());
        }
        let (rules, settings) = (self.shards[0].rules, self.shards[0].settings.clone());
        let mut read = Vec::with_capacity(shards.len());
        for k in shards.clone() {
            let mut shard = Shard::new(rules, settings.clone(), 0, k as u64, t as u64);
            let next = r.u64()?;
            shard.decode(next, r)?;
            if shard.slots.len() != self.shards[k].slots.len() {
                return Err(corrupt(format!(
                    "shard {k} has {} games in progress, expected {}",
                    shard.slots.len(),
                    self.shards[k].slots.len()
                ))
                .into());
            }
            shard.check_game_numbers()?;
            read.push(shard);
        }
        if r.remaining() != 0 {
            return Err(corrupt(format!("{} bytes after the shards", r.remaining())).into());
        }
        for (k, shard) in shards.zip(read) {
            self.shards[k] = shard;
        }
        Ok(())
    }
}

impl Shard {
    /// Refuses a shard whose games are not its own (`index, index + stride, …`, each started
    /// before `next_game`).
    fn check_game_numbers(&self) -> TrainResult<()> {
        let foreign = |g: u64| g % self.stride != self.index;
        if foreign(self.next_game)
            || self
                .slots
                .iter()
                .any(|x| foreign(x.game) || x.game >= self.next_game)
        {
            return Err(CheckpointError::Corrupt(
                "self-play state: game numbers do not fit their shard".into(),
            )
            .into());
        }
        Ok(())
    }

    /// Writes this shard's games in progress (0.1.0's single-shard layout).
    fn encode(&self, w: &mut ByteWriter) {
        w.u64(self.next_game);
        w.u64(self.slots.len() as u64);
        let h = self.rules.houses as usize;
        let p = self.rules.players as usize;
        for s in &self.slots {
            w.u64(s.game);
            w.u8(s.first as u8);
            w.bytes(&serde_json::to_vec(&s.state).expect("a state serializes"));
            let keys = s.history.keys();
            w.u64(keys.len() as u64);
            for k in keys {
                w.u64(k.0 as u64);
                w.u64((k.0 >> 64) as u64);
                w.u8(k.1);
            }
            w.bytes_raw(&s.rng.get_seed());
            w.u64(s.rng.get_stream());
            let pos = s.rng.get_word_pos();
            w.u64(pos as u64);
            w.u64((pos >> 64) as u64);
            w.u64(s.pending.len() as u64);
            for ps in &s.pending {
                w.bytes(&serde_json::to_vec(&ps.state).expect("a state serializes"));
                for &x in &ps.policy[..h] {
                    w.f32(x);
                }
                for &x in &ps.search_value[..p] {
                    w.f32(x);
                }
            }
        }
    }

    /// Reads a shard written by [`Shard::encode`] whose first word, `next_game`, was read.
    fn decode(&mut self, next_game: u64, r: &mut ByteReader<'_>) -> TrainResult<()> {
        let corrupt = |m: &str| CheckpointError::Corrupt(format!("self-play state: {m}"));
        let n = r.u64()? as usize;
        if n > r.remaining() {
            return Err(CheckpointError::Truncated.into());
        }
        let h = self.rules.houses as usize;
        let p = self.rules.players as usize;
        let rules = self.rules;
        let state_of = |b: &[u8]| -> Result<State, CheckpointError> {
            let s: State =
                serde_json::from_slice(b).map_err(|e| corrupt(&format!("position: {e}")))?;
            if !s.fits(&rules) {
                return Err(corrupt(&format!("a position that does not fit {rules}")));
            }
            Ok(s)
        };
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            let game = r.u64()?;
            let first = r.u8()? as usize;
            let state = state_of(r.bytes()?)?;
            if state.is_over() || first >= rules.players as usize {
                return Err(corrupt("a finished game or a first player out of range").into());
            }
            let nk = r.u64()? as usize;
            if nk > r.remaining() {
                return Err(CheckpointError::Truncated.into());
            }
            let mut keys: Vec<PositionKey> = Vec::with_capacity(nk);
            for _ in 0..nk {
                let lo = r.u64()? as u128;
                let hi = r.u64()? as u128;
                keys.push((lo | hi << 64, r.u8()?));
            }
            let mut history = History::new();
            history.set_keys(&keys);
            let seed: [u8; 32] = r.bytes_raw(32)?.try_into().expect("32 bytes");
            let stream = r.u64()?;
            let lo = r.u64()? as u128;
            let hi = r.u64()? as u128;
            let mut rng = ChaCha8Rng::from_seed(seed);
            rng.set_stream(stream);
            rng.set_word_pos(lo | hi << 64);
            let np = r.u64()? as usize;
            if np > r.remaining() {
                return Err(CheckpointError::Truncated.into());
            }
            let mut pending = Vec::with_capacity(np);
            for _ in 0..np {
                let st = state_of(r.bytes()?)?;
                let mut policy = [0f32; MAX_ACTIONS];
                for x in policy.iter_mut().take(h) {
                    *x = r.f32()?;
                }
                let mut search_value = [0f32; MAX_PLAYERS];
                for x in search_value.iter_mut().take(p) {
                    *x = r.f32()?;
                }
                pending.push(Pending {
                    state: st,
                    policy,
                    search_value,
                });
            }
            slots.push(Slot {
                game,
                first,
                state,
                history,
                rng,
                search: Search::new(self.rules, self.settings.search),
                searching: false,
                full: false,
                pending,
            });
        }
        self.slots = slots;
        self.next_game = next_game;
        Ok(())
    }
}
