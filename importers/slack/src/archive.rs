//! The export container: a folder, or the `.zip` Slack hands out. Both are
//! seen as a list of member names (`channels.json`, `general/2024-05-01.json`)
//! and a way to read one member at a time, so only one day file is ever in
//! memory.

use crate::Error;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A day file larger than this is refused (it would have to be held in
/// memory whole). Slack writes one file per channel per day; the largest
/// real ones are a few MB.
pub(crate) const MAX_MEMBER_BYTES: u64 = 256 * 1024 * 1024;

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

    /// Day files as `(folder, file name)`, sorted by folder then name.
    /// Only `<folder>/<YYYY-MM-DD>.json` members count.
    pub(crate) fn day_files(&self) -> Result<Vec<(String, String)>, Error> {
        let mut out = Vec::new();
        match self {
            Archive::Dir(root) => {
                let rd = std::fs::read_dir(root).map_err(|e| Error::Io { path: root.clone(), source: e })?;
                for entry in rd.flatten() {
                    if !entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                        continue;
                    }
                    let folder = entry.file_name().to_string_lossy().into_owned();
                    let Ok(files) = std::fs::read_dir(entry.path()) else { continue };
                    for f in files.flatten() {
                        let name = f.file_name().to_string_lossy().into_owned();
                        if crate::day_date(&name).is_some() && f.file_type().map(|t| t.is_file()).unwrap_or(false) {
                            out.push((folder.clone(), name));
                        }
                    }
                }
            }
            Archive::Zip { prefix, names, .. } => {
                for n in names {
                    let Some(rest) = n.strip_prefix(prefix.as_str()) else { continue };
                    let Some((folder, name)) = rest.split_once('/') else { continue };
                    if !folder.is_empty() && !name.contains('/') && crate::day_date(name).is_some() {
                        out.push((folder.to_string(), name.to_string()));
                    }
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Read one member whole (one day file or one metadata file).
    pub(crate) fn read(&mut self, member: &str) -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        match self {
            Archive::Dir(root) => {
                let f = File::open(root.join(member))?;
                f.take(MAX_MEMBER_BYTES + 1).read_to_end(&mut buf)?;
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
