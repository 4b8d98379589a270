//! The file of one layer: a header naming the format, its version, the rules of play and the
//! seed count, a CRC-32 of the values, then one byte per board. Read whole into memory when
//! opened (not memory-mapped: a file truncated or rewritten on disk while a process uses it
//! cannot crash that process or change the values it reads); a file that is truncated,
//! corrupt, of another version or built for other rules is refused.
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! |-------|-------|
//! | 8 | magic `AWALETB\0` |
//! | 4 | format version ([`VERSION`]) |
//! | 4 | seeds on the board (the layer) |
//! | 4 | pits |
//! | 4 | CRC-32 of the values |
//! | 8 | number of boards |
//! | 4 | length `L` of the rules spec |
//! | L | the rules of play, as a spec (`abapa:win=none`) |
//! | … | one byte per board: the seeds the mover gets under perfect play (bits 0–6), and bit 7 set when the cycle rule decided it |

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{AwaleError, Result};

/// The first bytes of every layer file.
pub const MAGIC: &[u8; 8] = b"AWALETB\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// The values of one layer, in memory: built, or read from its file (header dropped).
pub(crate) struct Values(Vec<u8>);

impl Values {
    /// The values of a layer just built.
    pub(crate) fn owned(values: Vec<u8>) -> Values {
        Values(values)
    }

    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> AwaleError {
    AwaleError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

fn refuse(path: &Path, reason: impl Into<String>) -> AwaleError {
    AwaleError::Tablebase(format!("{}: {}", path.display(), reason.into()))
}

/// The path of layer `seeds`'s file for rules named `name` in `dir`.
pub(crate) fn layer_path(dir: &Path, name: &str, seeds: usize) -> PathBuf {
    dir.join(format!("{name}-{seeds:02}.awtb"))
}

/// Writes one layer (to a temporary name, then renamed: a crash never leaves half a file
/// under the real name).
pub(crate) fn write_layer(
    path: &Path,
    spec: &str,
    seeds: usize,
    pits: usize,
    values: &[u8],
) -> Result<()> {
    let mut header = Vec::with_capacity(40 + spec.len());
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(seeds as u32).to_le_bytes());
    header.extend_from_slice(&(pits as u32).to_le_bytes());
    header.extend_from_slice(&crc32fast::hash(values).to_le_bytes());
    header.extend_from_slice(&(values.len() as u64).to_le_bytes());
    header.extend_from_slice(&(spec.len() as u32).to_le_bytes());
    header.extend_from_slice(spec.as_bytes());
    let tmp = path.with_extension("awtb.tmp");
    let write = || -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(File::create(&tmp)?);
        f.write_all(&header)?;
        f.write_all(values)?;
        f.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| io_error(path, e))
}

/// Opens and checks one layer file: the format, the version, the rules, the seed count, the
/// size and the checksum, and that no value exceeds the seeds. The header is checked before
/// the values are read, so a file that claims more boards than its rules have allocates
/// nothing.
pub(crate) fn read_layer(
    path: &Path,
    spec: &str,
    seeds: usize,
    pits: usize,
    count: u64,
) -> Result<Values> {
    // Read once, checked once: what happens to the file afterwards (truncated, rewritten,
    // replaced) cannot reach the values in use. A memory map would give SIGBUS on a file
    // truncated under it.
    let mut file = open_regular(path)?;
    let size = file.metadata().map_err(|e| io_error(path, e))?.len();
    let mut head = [0u8; 36];
    let got = read_up_to(&mut file, &mut head).map_err(|e| io_error(path, e))?;
    if got < 8 || &head[..8] != MAGIC {
        return Err(refuse(path, "not an awale tablebase file (bad magic)"));
    }
    if got < 36 {
        return Err(refuse(path, "truncated header"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(head[o..o + 4].try_into().unwrap());
    let version = u32_at(8);
    if version != VERSION {
        return Err(refuse(
            path,
            format!("format version {version}; this build reads version {VERSION}: rebuild it"),
        ));
    }
    let (file_seeds, file_pits, crc) = (u32_at(12), u32_at(16), u32_at(20));
    let file_count = u64::from_le_bytes(head[24..32].try_into().unwrap());
    let spec_len = u32_at(32) as usize;
    if spec_len != spec.len() {
        // Not read: a header that claims a long spec allocates nothing.
        let shown = if spec_len > 256 {
            format!("{spec_len} bytes long")
        } else {
            let mut text = vec![0u8; spec_len];
            match read_up_to(&mut file, &mut text) {
                Ok(n) if n == spec_len => format!("'{}'", String::from_utf8_lossy(&text)),
                _ => return Err(refuse(path, "truncated header")),
            }
        };
        return Err(refuse(
            path,
            format!("built for the rules {shown}, not '{spec}'"),
        ));
    }
    let mut file_spec = vec![0u8; spec_len];
    if read_up_to(&mut file, &mut file_spec).map_err(|e| io_error(path, e))? < spec_len {
        return Err(refuse(path, "truncated header"));
    }
    let file_spec = std::str::from_utf8(&file_spec)
        .map_err(|_| refuse(path, "the rules in the header are not text"))?;
    if file_spec != spec {
        return Err(refuse(
            path,
            format!("built for the rules '{file_spec}', not '{spec}'"),
        ));
    }
    if file_seeds as usize != seeds || file_pits as usize != pits || file_count != count {
        return Err(refuse(
            path,
            format!(
                "holds {file_count} boards of {file_seeds} seeds in {file_pits} pits; expected \
                 {count} boards of {seeds} seeds in {pits} pits"
            ),
        ));
    }
    let offset = 36 + spec_len as u64;
    let stored = size.saturating_sub(offset);
    if size < offset || stored != count {
        return Err(refuse(
            path,
            format!("{stored} value bytes where {count} are expected (truncated or padded)"),
        ));
    }
    let mut values = vec![0u8; count as usize];
    let got = read_up_to(&mut file, &mut values).map_err(|e| io_error(path, e))?;
    let mut probe = [0u8; 1];
    let longer = read_up_to(&mut file, &mut probe).map_err(|e| io_error(path, e))? > 0;
    if got as u64 != count || longer {
        return Err(refuse(
            path,
            "the file changed size while it was read: try again",
        ));
    }
    if crc32fast::hash(&values) != crc {
        return Err(refuse(path, "checksum mismatch: the file is corrupt"));
    }
    if let Some(i) = values.iter().position(|&v| (v & 0x7f) as usize > seeds) {
        return Err(refuse(
            path,
            format!(
                "board {i} has value {} above its {seeds} seeds",
                values[i] & 0x7f
            ),
        ));
    }
    Ok(Values(values))
}

/// Opens `path` for reading if it is a regular file (a link to one included). Anything else, a
/// FIFO, a device, a folder, is refused without waiting: the open itself does not block
/// (`O_NONBLOCK`), so a FIFO with no writer cannot hold up the caller.
pub(crate) fn open_regular(path: &Path) -> Result<File> {
    crate::files::open_regular(path).map_err(|e| io_error(path, e))
}

/// The size of `path` if it is a regular file (a link to one included), without opening it.
pub(crate) fn regular_size(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        return Err(refuse(path, "not a regular file"));
    }
    Ok(meta.len())
}

/// Reads until `buf` is full or the file ends; the number of bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}
