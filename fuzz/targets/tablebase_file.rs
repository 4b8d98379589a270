//! Fuzz target `tablebase_file`: the endgame-table file reader (`Tablebase::open`) and probes of
//! whatever it accepts.
//!
//! Byte 0 picks what the rest of the input is, written as abapa's layer 2 next to valid layers 0
//! and 1 in a scratch folder (one per thread):
//! - even: the whole file, as read from disk;
//! - odd: the values after a valid header with the right checksum, so that the fuzzer reaches
//!   the check of each value instead of stopping at the checksum.
//!
//! A refused file must give a typed error; an accepted one must answer every probe of its
//! layer with values within the seeds on the board.

use std::path::PathBuf;
use std::sync::OnceLock;

use awale::tablebase::{LayerIndex, Tablebase, MAGIC, VERSION};
use awale::{Rules, State};

/// The rules of play the scratch tables are built for (as recorded in the files).
const SPEC: &str = "abapa:win=none";

/// Valid layers 0 to 2 of abapa (built once).
fn valid() -> &'static Tablebase {
    static T: OnceLock<Tablebase> = OnceLock::new();
    T.get_or_init(|| Tablebase::build(&Rules::abapa(), 2, 1, &|_| {}).unwrap())
}

/// The scratch folder of this thread, holding valid layers 0 and 1 (and a valid layer 2, which
/// each input overwrites).
fn scratch() -> PathBuf {
    thread_local! {
        static DIR: PathBuf = {
            let dir = std::env::temp_dir().join(format!(
                "awale-fuzz-tablebase-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ))
            .to_path_buf();
            valid().save(&dir).unwrap();
            dir
        };
    }
    DIR.with(|d| d.clone())
}

/// A layer-2 file holding `values`, with a valid header and checksum.
pub fn framed(values: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&12u32.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(values).to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.extend_from_slice(&(SPEC.len() as u32).to_le_bytes());
    out.extend_from_slice(SPEC.as_bytes());
    out.extend_from_slice(values);
    out
}

/// The valid layer-2 file (for `tests/fuzz_corpus.rs`).
#[allow(dead_code)]
pub fn valid_file() -> Vec<u8> {
    let index = LayerIndex::new(12, 2);
    let values: Vec<u8> = (0..index.count())
        .map(|k| {
            let board = index.unrank(k);
            let s = State::from_parts(&Rules::abapa(), &board[..12], &[46, 0], 0, 0).unwrap();
            valid().value(&s).unwrap_or(0)
        })
        .collect();
    framed(&values)
}

pub fn run(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let bytes = if kind % 2 == 0 {
        rest.to_vec()
    } else {
        framed(rest)
    };
    let dir = scratch();
    std::fs::write(dir.join("abapa-02.awtb"), &bytes).unwrap();
    let rules = Rules::abapa();
    match Tablebase::open(&dir, &rules, Some(2)) {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(table) => {
            assert_eq!(table.max_seeds(), 2);
            let index = LayerIndex::new(12, 2);
            for k in 0..index.count() {
                let board = index.unrank(k);
                let s = State::from_parts(&rules, &board[..12], &[23, 23], 0, 0).unwrap();
                if s.is_over() {
                    continue;
                }
                let p = table.probe(&s).unwrap();
                assert!(p.value <= 2 && p.moves.iter().all(|m| m.value <= 2));
            }
        }
    }
}
