//! The export container: a folder, or the `.zip` Slack hands out. Both are
//! seen as a list of member names (`channels.json`, `general/2024-05-01.json`)
//! and a way to read one member at a time, so only one day file is ever in
//! memory.

use crate::Error;
use amem_records::ImportError;
use amem_records::source_file::read_regular;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A day file larger than this is refused (it would have to be held in
/// memory whole). Slack writes one file per channel per day; the largest
/// real ones are a few MB.
pub(crate) const MAX_MEMBER_BYTES: u64 = 256 * 1024 * 1024;

/// Day files as `(folder, file name)`, and the problems met listing them.
pub(crate) type DayFiles = (Vec<(String, String)>, Vec<ImportError>);

/// A Slack export on disk.
pub(crate) enum Archive {
    /// An unpacked export folder.
    Dir(PathBuf),
    /// A zip; `prefix` is the folder inside the zip that holds `channels.json`
    /// (empty when the export sits at the zip's root).
    /// `names` are the member names (the listing only, never contents).
    Zip { path: PathBuf, zip: Box<zip::ZipArchive<File>>, prefix: String, names: Vec<String> },
}

impl Archive {
    pub(crate) fn open(path: &Path) -> Result<Archive, Error> {
        let meta = std::fs::metadata(path).map_err(|e| Error::Io { path: path.to_path_buf(), source: e })?;
        if meta.is_dir() {
            return Ok(Archive::Dir(path.to_path_buf()));
        }
        let file = File::open(path).map_err(|e| Error::Io { path: path.to_path_buf(), source: e })?;
        let zip = zip::ZipArchive::new(file).map_err(|e| Error::NotAnExport {
            path: path.to_path_buf(),
            why: format!("it is a file but not a readable zip ({e}): pass the export folder or the .zip Slack produced"),
        })?;
        // Names that are not valid UTF-8 or CP437 cannot be day files; skip them.
        let mut names: Vec<String> = zip.file_names().filter_map(|n| n.ok()).map(|n| n.into_owned()).collect();
        names.sort();
        let prefix = zip_prefix(names.iter().map(String::as_str));
        Ok(Archive::Zip { path: path.to_path_buf(), zip: Box::new(zip), prefix, names })
    }

    /// The path to show for a member in errors and locators.
    pub(crate) fn display_path(&self, member: &str) -> PathBuf {
        match self {
            Archive::Dir(root) => root.join(member),
            Archive::Zip { path, prefix, .. } => path.join(format!("{prefix}{member}")),
        }
    }

    /// True when a top-level member exists.
    pub(crate) fn has(&mut self, member: &str) -> bool {
        match self {
            Archive::Dir(root) => root.join(member).is_file(),
            Archive::Zip { prefix, names, .. } => names.binary_search(&format!("{prefix}{member}")).is_ok(),
        }
    }

    /// Day files as `(folder, file name)`, sorted by folder then name, and
    /// what could not be listed or will not be read, each as an
    /// [`ImportError`] naming it: a channel folder that cannot be read, a
    /// day file that is not a regular file (a FIFO, device, or a symlink to
    /// one), the extra copies of a zip member stored more than once. Only
    /// `<folder>/<YYYY-MM-DD>.json` members count.
    pub(crate) fn day_files(&self) -> Result<DayFiles, Error> {
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        match self {
            Archive::Dir(root) => {
                let rd = std::fs::read_dir(root).map_err(|e| Error::Io { path: root.clone(), source: e })?;
                for entry in rd {
                    let entry = match entry {
                        Ok(e) => e,
                        Err(e) => {
                            skipped.push(ImportError::new(root, "start", "io", format!("cannot list the export folder: {e}")));
                            continue;
                        }
                    };
                    let folder = entry.file_name().to_string_lossy().into_owned();
                    let path = entry.path();
                    let Ok(ft) = entry.file_type() else { continue };
                    // A channel folder may be a symlink (exports assembled by
                    // hand); one level deep only, so no loop is possible.
                    let is_dir = ft.is_dir() || (ft.is_symlink() && std::fs::metadata(&path).is_ok_and(|m| m.is_dir()));
                    if !is_dir {
                        if ft.is_symlink() && std::fs::metadata(&path).is_err() && !folder.ends_with(".json") {
                            skipped.push(ImportError::new(
                                &path,
                                "start",
                                "io",
                                "channel folder is a dangling symlink: nothing in it is imported",
                            ));
                        }
                        continue;
                    }
                    let files = match std::fs::read_dir(&path) {
                        Ok(f) => f,
                        Err(e) => {
                            skipped.push(ImportError::new(
                                &path,
                                "start",
                                "io",
                                format!("cannot read the channel folder ({e}): none of its day files is imported"),
                            ));
                            continue;
                        }
                    };
                    for f in files {
                        let f = match f {
                            Ok(f) => f,
                            Err(e) => {
                                skipped.push(ImportError::new(&path, "start", "io", format!("cannot list the channel folder: {e}")));
                                continue;
                            }
                        };
                        let name = f.file_name().to_string_lossy().into_owned();
                        if crate::day_date(&name).is_none() {
                            continue;
                        }
                        match amem_records::source_file::check_regular(&f.path(), MAX_MEMBER_BYTES) {
                            Ok(_) => out.push((folder.clone(), name)),
                            Err(r) => skipped.push(ImportError::new(f.path(), "start", r.kind(), format!("day file {r}"))),
                        }
                    }
                }
            }
            Archive::Zip { path, prefix, names, .. } => {
                for n in names {
                    let Some(rest) = n.strip_prefix(prefix.as_str()) else { continue };
                    let Some((folder, name)) = rest.split_once('/') else { continue };
                    if !folder.is_empty() && !name.contains('/') && crate::day_date(name).is_some() {
                        out.push((folder.to_string(), name.to_string()));
                    }
                }
                skipped.extend(duplicate_members(path, self.central_directory_start()));
            }
        }
        out.sort();
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok((out, skipped))
    }

    fn central_directory_start(&self) -> Option<u64> {
        match self {
            Archive::Zip { zip, .. } => zip.has_duplicate_names().then(|| zip.central_directory_start()),
            Archive::Dir(_) => None,
        }
    }

    /// Read one member whole (one day file or one metadata file).
    pub(crate) fn read(&mut self, member: &str) -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        match self {
            Archive::Dir(root) => {
                buf = read_regular(&root.join(member), MAX_MEMBER_BYTES).map_err(std::io::Error::other)?;
            }
            Archive::Zip { zip, prefix, .. } => {
                let f = zip.by_name(&format!("{prefix}{member}")).map_err(std::io::Error::other)?;
                // `take` guards against a zip bomb declaring a small size.
                f.take(MAX_MEMBER_BYTES + 1).read_to_end(&mut buf)?;
            }
        }
        if buf.len() as u64 > MAX_MEMBER_BYTES {
            return Err(std::io::Error::other(format!("member is larger than {MAX_MEMBER_BYTES} bytes")));
        }
        Ok(buf)
    }
}

/// The largest central directory read to name duplicate members.
const MAX_CENTRAL_DIRECTORY: u64 = 64 << 20;

/// One [`ImportError`] per extra copy of a member name the zip stores more
/// than once (`cd_start`: where its central directory begins, given only
/// when the zip crate saw duplicates). The zip crate keeps one entry per
/// name (the last in the directory), so the others would vanish without a
/// count. The names are read from the central directory records (APPNOTE
/// 4.3.12: signature `PK\x01\x02`, name length at byte 28, extra and comment
/// lengths at 30 and 32, name from byte 46).
fn duplicate_members(path: &Path, cd_start: Option<u64>) -> Vec<ImportError> {
    let Some(start) = cd_start else { return Vec::new() };
    let whole = || {
        vec![ImportError::new(
            path,
            "central directory",
            "duplicate_member",
            "the zip stores some member names more than once: only the last copy of each is read",
        )]
    };
    let mut cd = Vec::new();
    let read = File::open(path).and_then(|mut f| {
        f.seek(SeekFrom::Start(start))?;
        f.take(MAX_CENTRAL_DIRECTORY).read_to_end(&mut cd)
    });
    if read.is_err() {
        return whole();
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut at = 0usize;
    let u16_at = |b: &[u8], i: usize| b.get(i..i + 2).map(|x| usize::from(u16::from_le_bytes([x[0], x[1]])));
    while cd.get(at..at + 4) == Some(b"PK\x01\x02") {
        let (Some(n), Some(e), Some(c)) = (u16_at(&cd, at + 28), u16_at(&cd, at + 30), u16_at(&cd, at + 32)) else { break };
        let Some(name) = cd.get(at + 46..at + 46 + n) else { break };
        *counts.entry(String::from_utf8_lossy(name).into_owned()).or_default() += 1;
        at += 46 + n + e + c;
    }
    let out: Vec<ImportError> = counts
        .into_iter()
        .filter(|(_, k)| *k > 1)
        .flat_map(|(name, k)| {
            (1..k).map(move |copy| {
                ImportError::new(
                    path.join(&name),
                    format!("copy {copy} of {k}"),
                    "duplicate_member",
                    format!("the zip stores {k} members named {name}: only the last is read, this copy's messages are not imported"),
                )
            })
        })
        .collect();
    if out.is_empty() { whole() } else { out }
}

/// The folder inside a zip holding the export: where the shallowest
/// `channels.json` (else `users.json`) sits. Zips made by re-compressing an
/// unpacked export put everything under one top folder.
fn zip_prefix<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut best: Option<(usize, u8, String)> = None;
    for n in names {
        let (dir, file) = match n.rsplit_once('/') {
            Some((d, f)) => (format!("{d}/"), f),
            None => (String::new(), n),
        };
        let rank = match file {
            "channels.json" => 0,
            "users.json" => 1,
            _ => continue,
        };
        let key = (dir.matches('/').count(), rank, dir);
        if best.as_ref().is_none_or(|b| key < *b) {
            best = Some(key);
        }
    }
    best.map(|b| b.2).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix() {
        assert_eq!(zip_prefix(["channels.json", "a/2020-01-01.json"].into_iter()), "");
        assert_eq!(zip_prefix(["Acme Slack export/users.json", "Acme Slack export/channels.json"].into_iter()), "Acme Slack export/");
        assert_eq!(zip_prefix(["x/y/channels.json", "x/users.json"].into_iter()), "x/");
        assert_eq!(zip_prefix(["a/2020-01-01.json"].into_iter()), "");
    }
}
