//! Finding and reading the wiki's files. The walk lists every wiki-format
//! file under the folder; each is read only when it is a regular file (a
//! symlink to one is fine) of at most [`MAX_NOTE_BYTES`]. A FIFO named
//! `*.md` would block `index` and `audit` for good while they hold the home
//! lock, and a symlink to `/dev/zero` would fill memory: both are skipped,
//! named and counted in the [`IndexReport`] instead.

use crate::item::{ItemKind, ParsedItem, SkipReason, parse_item};
use crate::wiki::{IndexReport, SkippedFile};
use amem_records::source_file::{FileRefusal, check_regular, read_regular};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The largest wiki file read. Notes are kilobytes; a captured page is at
/// most the fetch body cap (8 MiB); 32 MiB leaves room for long exports of
/// notes while keeping one file's text, chunks and postings in memory
/// bounded.
pub const MAX_NOTE_BYTES: u64 = 32 << 20;

/// A wiki file found by the walk.
#[derive(Clone, Debug)]
pub(crate) struct FoundFile {
    pub(crate) rel: String,
    pub(crate) abs: PathBuf,
    pub(crate) kind: ItemKind,
    pub(crate) size: i64,
    pub(crate) mtime_ns: i64,
}

fn refusal_reason(r: FileRefusal) -> SkipReason {
    match r {
        FileRefusal::NotRegular { kind } => SkipReason::NotRegular { kind: kind.to_string() },
        FileRefusal::TooLarge { size, limit } => SkipReason::TooLarge { size, limit },
        FileRefusal::Io(e) => SkipReason::Unreadable { error: e.to_string() },
    }
}

/// Read and parse one file, recording a skip on failure.
pub(crate) fn read_file(f: &FoundFile, report: &mut IndexReport) -> Option<ParsedItem> {
    let bytes = match read_regular(&f.abs, MAX_NOTE_BYTES) {
        Ok(b) => b,
        Err(r) => {
            report.skipped.push(SkippedFile { path: f.abs.clone(), reason: refusal_reason(r) });
            return None;
        }
    };
    report.bytes_read += bytes.len() as u64;
    match parse_item(&bytes, f.kind) {
        Ok(p) => {
            if let Some(w) = &p.warning {
                // The CLI's `amem index` prints these; an audit's log shows them with -v.
                tracing::info!("{}:{}: {}; indexed as plain text", f.abs.display(), w.line, w.problem);
                report.warnings.push(crate::wiki::WarnedFile { path: f.abs.clone(), warning: w.clone() });
            }
            if let Some(w) = &p.time_warning {
                let fallback = if p.written.is_some() {
                    "the other dates of its front matter are used"
                } else {
                    "its file's modification time is used"
                };
                tracing::info!("{}:{}: {}; {fallback}", f.abs.display(), w.line, w.problem);
                report.time_warnings.push(crate::wiki::WarnedFile { path: f.abs.clone(), warning: w.clone() });
            }
            Some(p)
        }
        Err(reason) => {
            report.skipped.push(SkippedFile { path: f.abs.clone(), reason });
            None
        }
    }
}

/// Size and modification time (ns since the epoch) of a file, following symlinks.
pub(crate) fn file_stamp(p: &Path) -> std::io::Result<(i64, i64)> {
    let md = std::fs::metadata(p)?;
    Ok(stamp_of(&md))
}

fn stamp_of(md: &std::fs::Metadata) -> (i64, i64) {
    let mtime = md.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i64);
    (i64::try_from(md.len()).unwrap_or(i64::MAX), mtime)
}

/// Every wiki-format file under `dir`, sorted by relative path. Hidden
/// entries (name starting with `.`) are left out; symlinked folders are not
/// followed (no loops); unreadable folders, other formats, files that are
/// not regular files and files over [`MAX_NOTE_BYTES`] are reported.
pub(crate) fn walk(dir: &Path, skipped: &mut Vec<SkippedFile>) -> Vec<FoundFile> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        let rd = match std::fs::read_dir(&abs) {
            Ok(rd) => rd,
            Err(e) => {
                if abs != dir || e.kind() != std::io::ErrorKind::NotFound {
                    skipped.push(SkippedFile { path: abs.clone(), reason: SkipReason::Unreadable { error: e.to_string() } });
                }
                continue;
            }
        };
        let mut entries: BTreeMap<String, std::fs::DirEntry> = BTreeMap::new();
        for e in rd {
            match e {
                Ok(e) => {
                    entries.insert(e.file_name().to_string_lossy().into_owned(), e);
                }
                Err(e) => skipped.push(SkippedFile { path: abs.clone(), reason: SkipReason::Unreadable { error: e.to_string() } }),
            }
        }
        for (name, e) in entries {
            if name.starts_with('.') {
                continue;
            }
            let child_rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            let child_abs = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push((child_abs, child_rel));
                continue;
            }
            // A symlink to a file is read; one to a folder is not followed.
            if ft.is_symlink() && std::fs::metadata(&child_abs).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let Some(kind) = ItemKind::from_name(&name) else {
                skipped.push(SkippedFile { path: child_abs, reason: SkipReason::Unsupported });
                continue;
            };
            match check_regular(&child_abs, MAX_NOTE_BYTES) {
                Ok(md) => {
                    let (size, mtime_ns) = stamp_of(&md);
                    out.push(FoundFile { rel: child_rel, abs: child_abs, kind, size, mtime_ns });
                }
                Err(r) => skipped.push(SkippedFile { path: child_abs, reason: refusal_reason(r) }),
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(dir: &Path) -> (Vec<String>, BTreeMap<String, String>) {
        let mut skipped = Vec::new();
        let found = walk(dir, &mut skipped);
        let reasons = skipped.iter().map(|s| (s.path.file_name().unwrap().to_string_lossy().into_owned(), s.reason.to_string())).collect();
        (found.into_iter().map(|f| f.rel).collect(), reasons)
    }

    /// Issue 16, probe cases "FIFO" and "/dev/zero": a FIFO named `*.md` and a
    /// symlink to `/dev/zero` are skipped and named; they never block or fill
    /// memory. A symlink to a regular note is still read.
    #[cfg(unix)]
    #[test]
    fn r16_fifo_and_device_notes_are_skipped_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("real.md"), "Glaciers retreat.\n").unwrap();
        std::os::unix::fs::symlink(d.join("real.md"), d.join("linked.md")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.md")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(d.join("hang.md")).status().is_ok_and(|s| s.success());
        let (found, reasons) = walked(d);
        assert_eq!(found, ["linked.md", "real.md"]);
        assert_eq!(reasons["zero.md"], "not a regular file (character device)", "{reasons:?}");
        if fifo {
            assert_eq!(reasons["hang.md"], "not a regular file (FIFO)", "{reasons:?}");
        } else {
            eprintln!("SKIPPED the FIFO case: no mkfifo");
        }
    }

    /// A note over the cap is skipped with its size, never read.
    #[test]
    fn r16_oversized_note_is_skipped_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(dir.path().join("huge.md")).unwrap();
        // Sparse: no disk is used for the 33 MiB.
        big.set_len(MAX_NOTE_BYTES + 1).unwrap();
        let (found, reasons) = walked(dir.path());
        assert!(found.is_empty());
        assert_eq!(reasons["huge.md"], format!("{} bytes, more than the {MAX_NOTE_BYTES}-byte limit for one file", MAX_NOTE_BYTES + 1));
    }
}
