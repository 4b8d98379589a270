//! Training samples, the replay buffer, and the little binary codec checkpoints use.

use rand::Rng;

use super::{CheckpointError, TrainResult};
use crate::rules::{Rules, MAX_PLAYERS};
use crate::search::MAX_ACTIONS;
use crate::state::State;

/// One training position with its targets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The position (encoded from its mover's point of view at training time).
    pub state: State,
    /// Policy target over the mover's houses (sums to 1 over the legal ones).
    pub policy: [f32; MAX_ACTIONS],
    /// Value target of every player, mover first (rotated), in [-1, 1].
    pub value: [f32; MAX_PLAYERS],
    /// Score-difference target in [-1, 1]: the mover's final store minus the others' mean,
    /// over the seeds in play.
    pub score: f32,
}

/// The newest `capacity` samples, sampled uniformly.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayBuffer {
    capacity: usize,
    samples: Vec<Sample>,
    next: usize,
    added: u64,
}

impl ReplayBuffer {
    /// An empty buffer of `capacity` samples.
    pub fn new(capacity: usize) -> ReplayBuffer {
        ReplayBuffer {
            capacity: capacity.max(1),
            samples: Vec::new(),
            next: 0,
            added: 0,
        }
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Samples ever added.
    pub fn added(&self) -> u64 {
        self.added
    }

    /// Adds a sample, dropping the oldest when full.
    pub fn push(&mut self, s: Sample) {
        if self.samples.len() < self.capacity {
            self.samples.push(s);
        } else {
            self.samples[self.next] = s;
        }
        self.next = (self.next + 1) % self.capacity;
        self.added += 1;
    }

    /// The sample at `i` (storage order).
    pub fn get(&self, i: usize) -> &Sample {
        &self.samples[i]
    }

    /// `n` indices drawn uniformly with replacement.
    pub fn sample_indices<R: Rng>(&self, rng: &mut R, n: usize) -> Vec<usize> {
        (0..n)
            .map(|_| rng.random_range(0..self.samples.len()))
            .collect()
    }

    /// Writes the buffer (positions as pits, stores, mover and ply).
    pub fn encode(&self, rules: &Rules, w: &mut ByteWriter) {
        w.u64(self.capacity as u64);
        w.u64(self.next as u64);
        w.u64(self.added);
        w.u64(self.samples.len() as u64);
        for s in &self.samples {
            encode_sample(rules, s, w);
        }
    }

    /// Reads a buffer written by [`ReplayBuffer::encode`].
    pub fn decode(rules: &Rules, r: &mut ByteReader<'_>) -> TrainResult<ReplayBuffer> {
        let capacity = r.u64()? as usize;
        let next = r.u64()? as usize;
        let added = r.u64()?;
        let len = r.u64()? as usize;
        if capacity == 0 || len > capacity || next >= capacity.max(1) {
            return Err(CheckpointError::Corrupt("replay buffer header".into()).into());
        }
        // A count the rest of the input cannot hold is refused before anything is allocated.
        if len > r.remaining() / sample_bytes(rules) {
            return Err(CheckpointError::Truncated.into());
        }
        let mut samples = Vec::with_capacity(len);
        for _ in 0..len {
            samples.push(decode_sample(rules, r)?);
        }
        Ok(ReplayBuffer {
            capacity,
            samples,
            next,
            added,
        })
    }
}

/// The bytes one sample takes in [`encode_sample`]'s format under `rules`.
pub fn sample_bytes(rules: &Rules) -> usize {
    let (n, p, h) = (rules.pits(), rules.players as usize, rules.houses as usize);
    n + p + 1 + 4 + 4 * (h + p + 1)
}

/// Writes one sample: the position (pits, stores, mover, ply), then its targets.
pub fn encode_sample(rules: &Rules, s: &Sample, w: &mut ByteWriter) {
    let (n, p, h) = (rules.pits(), rules.players as usize, rules.houses as usize);
    w.bytes_raw(&s.state.pits()[..n]);
    w.bytes_raw(&s.state.scores()[..p]);
    w.u8(s.state.to_move() as u8);
    w.u32(s.state.ply());
    for &x in &s.policy[..h] {
        w.f32(x);
    }
    for &x in &s.value[..p] {
        w.f32(x);
    }
    w.f32(s.score);
}

/// Reads one sample written by [`encode_sample`]; a position the rules cannot hold is corrupt.
pub fn decode_sample(rules: &Rules, r: &mut ByteReader<'_>) -> TrainResult<Sample> {
    let (n, p, h) = (rules.pits(), rules.players as usize, rules.houses as usize);
    let pits = r.bytes_raw(n)?.to_vec();
    let scores = r.bytes_raw(p)?.to_vec();
    let mover = r.u8()? as usize;
    let ply = r.u32()?;
    let state = State::from_parts(rules, &pits, &scores, mover, ply)
        .map_err(|e| CheckpointError::Corrupt(format!("replay position: {e}")))?;
    let mut policy = [0f32; MAX_ACTIONS];
    for x in policy.iter_mut().take(h) {
        *x = r.f32()?;
    }
    let mut value = [0f32; MAX_PLAYERS];
    for x in value.iter_mut().take(p) {
        *x = r.f32()?;
    }
    let score = r.f32()?;
    Ok(Sample {
        state,
        policy,
        value,
        score,
    })
}

/// Appends little-endian values to a byte vector.
#[derive(Debug, Default)]
pub struct ByteWriter {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl ByteWriter {
    /// An empty writer.
    pub fn new() -> ByteWriter {
        ByteWriter::default()
    }
    /// One byte.
    pub fn u8(&mut self, x: u8) {
        self.buf.push(x);
    }
    /// A u32.
    pub fn u32(&mut self, x: u32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    /// A u64.
    pub fn u64(&mut self, x: u64) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    /// An f32 (bit-exact).
    pub fn f32(&mut self, x: f32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    /// An f64 (bit-exact).
    pub fn f64(&mut self, x: f64) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    /// Bytes without a length.
    pub fn bytes_raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// Bytes with a u64 length before them.
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
}

/// Reads what a [`ByteWriter`] wrote; running out is a corrupt checkpoint.
#[derive(Debug)]
pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> ByteReader<'a> {
        ByteReader { buf, pos: 0 }
    }
    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// `n` bytes.
    pub fn bytes_raw(&mut self, n: usize) -> Result<&'a [u8], CheckpointError> {
        if self.remaining() < n {
            return Err(CheckpointError::Truncated);
        }
        let b = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }
    /// Length-prefixed bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8], CheckpointError> {
        let n = self.u64()?;
        if n > self.remaining() as u64 {
            return Err(CheckpointError::Truncated);
        }
        self.bytes_raw(n as usize)
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8, CheckpointError> {
        Ok(self.bytes_raw(1)?[0])
    }
    /// A u32.
    pub fn u32(&mut self) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(
            self.bytes_raw(4)?.try_into().expect("4 bytes"),
        ))
    }
    /// A u64.
    pub fn u64(&mut self) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(
            self.bytes_raw(8)?.try_into().expect("8 bytes"),
        ))
    }
    /// An f32.
    pub fn f32(&mut self) -> Result<f32, CheckpointError> {
        Ok(f32::from_le_bytes(
            self.bytes_raw(4)?.try_into().expect("4 bytes"),
        ))
    }
    /// An f64.
    pub fn f64(&mut self) -> Result<f64, CheckpointError> {
        Ok(f64::from_le_bytes(
            self.bytes_raw(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_round_trips_and_wraps() {
        let rules = Rules::abapa();
        let mut b = ReplayBuffer::new(3);
        let mut s = State::initial(&rules, 0);
        for k in 0..5 {
            let mv = s.legal_moves(&rules)[0];
            s.apply(&rules, mv).unwrap();
            b.push(Sample {
                state: s,
                policy: [k as f32; MAX_ACTIONS],
                value: [0.5; MAX_PLAYERS],
                score: -0.25,
            });
        }
        assert_eq!((b.len(), b.added()), (3, 5));
        let mut w = ByteWriter::new();
        b.encode(&rules, &mut w);
        let back = ReplayBuffer::decode(&rules, &mut ByteReader::new(&w.buf)).unwrap();
        assert_eq!(back.len(), 3);
        for i in 0..3 {
            assert_eq!(back.get(i).state.pits(), b.get(i).state.pits());
            assert_eq!(back.get(i).policy[..6], b.get(i).policy[..6]);
        }
        let cut = &w.buf[..w.buf.len() - 3];
        assert!(ReplayBuffer::decode(&rules, &mut ByteReader::new(cut)).is_err());
    }
}
