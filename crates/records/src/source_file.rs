//! Reading one file of a user's archive or wiki: a regular file (a symlink
//! to one is fine), no larger than a cap, read whole. Everything else is
//! refused with a reason the caller counts as a skip: a FIFO would block the
//! read forever (and the run with it, holding the home lock), a device such
//! as `/dev/zero` never ends, and a huge file would have to sit in memory.
//!
//! The type is checked twice: on the path before opening (so a FIFO is never
//! opened, which would block), and on the open handle (so a file swapped for
//! something else in between is still refused before any byte is read).

use std::fs::{File, FileType, Metadata};
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum FileRefusal {
    /// Not a regular file: a FIFO, socket, device or folder (or a symlink to one).
    #[error("not a regular file ({kind}): not read")]
    NotRegular {
        /// `FIFO`, `socket`, `character device`, `block device`, `folder`.
        kind: &'static str,
    },
    /// Larger than the cap.
    #[error("{size} bytes, more than the {limit}-byte limit for one file: not read")]
    TooLarge {
        /// The file's size (or, for a file that grew while read, what was read).
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// The OS refused (permissions, vanished, dangling symlink, I/O).
    #[error("unreadable: {0}")]
    Io(#[from] std::io::Error),
}

impl FileRefusal {
    /// A short machine-friendly category for skip counts.
    pub fn kind(&self) -> &'static str {
        match self {
            FileRefusal::NotRegular { .. } => "not_regular",
            FileRefusal::TooLarge { .. } => "too_large",
            FileRefusal::Io(_) => "io",
        }
    }
}

/// What kind of file this is, in words, when it is not a regular file.
fn irregular_kind(ft: FileType) -> Option<&'static str> {
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("FIFO");
        }
        if ft.is_socket() {
            return Some("socket");
        }
        if ft.is_char_device() {
            return Some("character device");
        }
        if ft.is_block_device() {
            return Some("block device");
        }
    }
    Some("special file")
}

fn check(md: &Metadata, limit: u64) -> Result<(), FileRefusal> {
    if let Some(kind) = irregular_kind(md.file_type()) {
        return Err(FileRefusal::NotRegular { kind });
    }
    if md.len() > limit {
        return Err(FileRefusal::TooLarge { size: md.len(), limit });
    }
    Ok(())
}

/// The metadata of `path` (following symlinks) when it is a regular file
/// of at most `limit` bytes.
///
/// # Errors
/// A [`FileRefusal`] saying why it would not be read.
pub fn check_regular(path: &Path, limit: u64) -> Result<Metadata, FileRefusal> {
    let md = std::fs::metadata(path)?;
    check(&md, limit)?;
    Ok(md)
}

/// Read `path` whole when it is a regular file of at most `limit` bytes.
///
/// # Errors
/// A [`FileRefusal`] saying why it was not read.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileRefusal> {
    check_regular(path, limit)?;
    let f = File::open(path)?;
    let md = f.metadata()?;
    check(&md, limit)?;
    let mut buf = Vec::with_capacity(usize::try_from(md.len()).unwrap_or(0));
    // `take`: a file that grows while read still stops at the cap.
    f.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(FileRefusal::TooLarge { size: buf.len() as u64, limit });
    }
    Ok(buf)
}

/// What a file amem reads whole is, for its limit and for the error that
/// names it: its own configuration, caches and lock, and the texts a user
/// names on the command line, all read through [`read_file`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// What the file is, in words.
    pub what: &'static str,
    /// The most bytes read.
    pub bytes: u64,
}

impl Limit {
    /// `config.toml`: a few sources and imports.
    pub const CONFIG: Limit = Limit { what: "the configuration", bytes: 1 << 20 };
    /// `grounding-cache.json`: one entry per query and document fetched.
    pub const CACHE: Limit = Limit { what: "the grounding cache", bytes: 256 << 20 };
    /// `amem.lock`: a pid, a host and a time.
    pub const LOCK: Limit = Limit { what: "the home's lock file", bytes: 4096 };
    /// A text the user names to capture, gate, check or run through drift.
    pub const INPUT_TEXT: Limit = Limit { what: "an input text", bytes: 16 << 20 };
    /// A secret such as a bearer token.
    pub const TOKEN: Limit = Limit { what: "a token file", bytes: 4096 };
}

/// [`read_regular`] for a file of amem's own or one the user names, with
/// the refusal as an [`std::io::Error`] (so callers keep their error types;
/// a missing file is still `NotFound`) whose message names the path, what
/// the file is and the limit.
///
/// # Errors
/// `InvalidInput` for a path that is not a regular file, `FileTooLarge` past
/// the limit, and the errors of opening and reading.
pub fn read_file(path: &Path, limit: Limit) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    read_regular(path, limit.bytes).map_err(|r| match r {
        FileRefusal::Io(e) => e,
        FileRefusal::NotRegular { kind } => {
            Error::new(ErrorKind::InvalidInput, format!("{} is a {kind}: {} is read only from a regular file", path.display(), limit.what))
        }
        FileRefusal::TooLarge { size, limit: cap } => Error::new(
            ErrorKind::FileTooLarge,
            format!("{} is {size} bytes, over the limit of {cap} bytes for {}", path.display(), limit.what),
        ),
    })
}

/// [`read_file`] as UTF-8 text.
///
/// # Errors
/// As [`read_file`]; `InvalidData` when the bytes are not UTF-8.
pub fn read_file_to_string(path: &Path, limit: Limit) -> std::io::Result<String> {
    String::from_utf8(read_file(path, limit)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text (at byte {})", path.display(), e.utf8_error().valid_up_to()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("note.md");
        std::fs::write(&p, "twelve bytes").unwrap();
        assert_eq!(read_regular(&p, 12).unwrap(), b"twelve bytes");
        assert!(matches!(read_regular(&p, 11), Err(FileRefusal::TooLarge { size: 12, limit: 11 })));
        assert!(matches!(read_regular(dir.path(), 100), Err(FileRefusal::NotRegular { kind: "folder" })));
        assert!(matches!(read_regular(&dir.path().join("absent"), 100), Err(FileRefusal::Io(_))));
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("hang.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_regular(&fifo, 100).unwrap_err();
            assert!(matches!(e, FileRefusal::NotRegular { kind: "FIFO" }), "{e}");
            assert_eq!(e.kind(), "not_regular");
        } else {
            eprintln!("SKIPPED the FIFO case: no mkfifo");
        }
        let zero = dir.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_regular(&zero, 100).unwrap_err();
        assert!(matches!(e, FileRefusal::NotRegular { kind: "character device" }), "{e}");
        assert!(e.to_string().contains("not a regular file (character device)"));
    }

    #[cfg(unix)]
    #[test]
    fn own_files_name_the_path_the_kind_and_the_limit() {
        use std::io::ErrorKind;
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("config.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_file(&zero, Limit::CONFIG).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("config.toml is a character device: the configuration"), "{e}");
        let p = dir.path().join("amem.lock");
        std::fs::write(&p, vec![b'a'; 4097]).unwrap();
        let e = read_file_to_string(&p, Limit::LOCK).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("over the limit of 4096 bytes for the home's lock file"), "{e}");
        assert_eq!(read_file(&dir.path().join("absent"), Limit::LOCK).unwrap_err().kind(), ErrorKind::NotFound);
        std::fs::write(&p, [0xff]).unwrap();
        assert_eq!(read_file_to_string(&p, Limit::LOCK).unwrap_err().kind(), ErrorKind::InvalidData);
    }
}
