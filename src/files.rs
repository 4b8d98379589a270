//! Files that a run folder, an engines file or a table holds, opened so that a hostile folder
//! can neither hang a command nor redirect its writes.
//!
//! - Reads ([`open_regular`], [`read_regular`]) open without blocking (`O_NONBLOCK`), so a FIFO
//!   with no writer cannot hold the caller, and refuse anything that is not a regular file (a
//!   link to one is followed: reading through a link harms nothing); [`read_regular`] also
//!   refuses a file over a size before reading a byte of it.
//! - Writes ([`write_replacing`]) go to a new temporary file in the same folder, then a rename
//!   over the result's path: a reader sees the old file or the new one, never half of one, and a
//!   symbolic link planted at the path is replaced, not followed.
//! - Appends ([`open_append`]) refuse a symbolic link and anything but a regular file.
//! - Folders a command makes inside the user's ([`real_dir`]) are created if missing and refused
//!   when they are a symbolic link; the user's own ([`user_dir`]) may be a link to a folder.
//!
//! Every error is an [`std::io::Error`] whose text says what was refused; callers add the path.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The error for a path that is not a regular file.
fn not_regular(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({what}); refused"),
    )
}

/// What kind of file `meta` describes, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    "not a plain file"
}

/// The error for a symbolic link where none may be.
fn symlink_refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "is a symbolic link; refused (results are never written through a link)",
    )
}

/// Maps `ELOOP` from an `O_NOFOLLOW` open to the reason in words.
fn nofollow_error(e: io::Error) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return symlink_refused();
    }
    e
}

/// Opens `path` for reading if it is a regular file (a link to one included). A FIFO, a device,
/// a socket or a folder is refused without waiting: the open itself does not block.
///
/// ```no_run
/// # fn main() -> std::io::Result<()> {
/// let file = awale::files::open_regular(std::path::Path::new("games.jsonl"))?;
/// # drop(file); Ok(()) }
/// ```
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(kind(&meta)));
    }
    Ok(file)
}

/// The whole of the regular file `path`, refused before reading when it holds more than
/// `limit` bytes (and if it grows past `limit` while read).
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(too_big(len, limit));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, limit)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))
}

fn too_big(len: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{len} bytes or more, over the limit of {limit} bytes; refused before reading"),
    )
}

/// Writes `bytes` as the new content of `path`: to a new temporary file in the same folder
/// (created exclusively, so nothing planted there is followed), flushed, then renamed over
/// `path`. A symbolic link at `path` is replaced by the file, its target untouched; a folder at
/// `path` is an error. On any error the temporary file is removed.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_dir() {
            return Err(not_regular("a folder"));
        }
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let write = || -> io::Result<()> {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        file.flush()?;
        drop(file);
        std::fs::rename(&tmp, path)
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Opens `path` to append to it, created if missing. A symbolic link or anything but a regular
/// file at `path` is refused (the open does not follow a link and does not block on a FIFO).
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(|e| {
        // A FIFO without a reader answers ENXIO to a non-blocking open for writing.
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.is_file() && !meta.file_type().is_symlink() => {
                not_regular(kind(&meta))
            }
            _ => nofollow_error(e),
        }
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(kind(&meta)));
    }
    #[cfg(unix)]
    {
        // Back to blocking writes: O_NONBLOCK only kept the open from waiting.
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

/// Creates the folder `path` (and its parents) if missing, a link to a folder included: for the
/// folder a user names (`--out`), which may well be a link to a bigger disk. Anything else at
/// `path` is refused.
pub fn user_dir(path: &Path) -> io::Result<()> {
    folder(path, std::fs::metadata(path))
}

/// Creates the folder `path` (and its parents) if missing; refuses it when it is a symbolic
/// link or not a folder, so that nothing written under it lands elsewhere: for the folders a
/// command makes inside the user's (a scorecard's `games/`).
pub fn real_dir(path: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(path);
    if matches!(&meta, Ok(m) if m.file_type().is_symlink()) {
        return Err(symlink_refused());
    }
    folder(path, meta)
}

/// `path` is a folder as `meta` (its metadata) says, or is created when missing; else refused.
fn folder(path: &Path, meta: io::Result<std::fs::Metadata>) -> io::Result<()> {
    match meta {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a folder ({}); refused", kind(&meta)),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::create_dir_all(path),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("awale-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[cfg(unix)]
    fn fifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo reads it only.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once_for_reading_and_appending() {
        let d = dir("fifo");
        let p = d.join("games.jsonl");
        fifo(&p);
        let e = read_regular(&p, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let e = open_append(&p).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(
            write_replacing(&p, b"x").is_ok(),
            "a FIFO is replaced by the file"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"x");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_reading() {
        let d = dir("big");
        let p = d.join("engines.toml");
        std::fs::write(&p, vec![b'#'; 2000]).unwrap();
        let e = read_regular(&p, 1000).unwrap_err();
        assert!(e.to_string().contains("over the limit of 1000"), "{e}");
        assert_eq!(read_regular(&p, 2000).unwrap().len(), 2000);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused() {
        let e = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("device"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn writes_replace_a_planted_link_and_never_follow_it() {
        let d = dir("link");
        let victim = d.join("victim.txt");
        std::fs::write(&victim, b"precious").unwrap();
        let p = d.join("results.json");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let e = open_append(&p).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        write_replacing(&p, b"{}").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&p).unwrap(), b"{}");
        assert!(!std::fs::symlink_metadata(&p)
            .unwrap()
            .file_type()
            .is_symlink());
        let leftovers: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        let games = d.join("games");
        std::os::unix::fs::symlink(&d, &games).unwrap();
        let e = real_dir(&games).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        real_dir(&d.join("fresh/deeper")).unwrap();
        user_dir(&games).unwrap();
        assert!(user_dir(&victim)
            .unwrap_err()
            .to_string()
            .contains("not a folder"));
        assert!(d.join("fresh/deeper").is_dir());
    }

    #[test]
    fn appends_create_and_add() {
        let d = dir("append");
        let p = d.join("games.jsonl");
        writeln!(open_append(&p).unwrap(), "a").unwrap();
        writeln!(open_append(&p).unwrap(), "b").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a\nb\n");
    }
}
