//! `$AMEM_HOME/grounding.log`: one JSON line per outbound request.
//!
//! Fields: `time` (RFC 3339 UTC), `host` (`host:port`), `adapter`,
//! `claim_sha256` (SHA-256 of the claim text, never the text: the query
//! string carries the claim's terms, so neither path nor query is logged),
//! `status` (the HTTP status, or `timeout`, `connect_error`,
//! `refused_off_list`, `refused_redirect`, `circuit_open`, `error`), `bytes`
//! (body length), `duration_ms`, `attempt` (0 for the first try of a
//! request), and for a model endpoint `model` and, on an answer, `tokens`. Each redirect hop is a line of its own, under the host it went
//! to; `refused_*` and `circuit_open` lines record a request *not* sent.
//!
//! Each line is built in memory and written with one `write` on a file
//! opened with `O_APPEND`, so concurrent writers (tasks of one run, or two
//! runs) never interleave inside a line.

use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LogLine {
    /// RFC 3339 UTC.
    pub time: String,
    /// `host:port`.
    pub host: String,
    /// `arxiv`, `wikipedia` or `http`.
    pub adapter: String,
    /// SHA-256 of the claim text, lowercase hex.
    pub claim_sha256: String,
    /// HTTP status code as text, or a failure kind.
    pub status: String,
    /// Body bytes received.
    pub bytes: u64,
    /// Wall time of the request.
    pub duration_ms: u64,
    /// Retry number (0 = first try).
    pub attempt: u32,
    /// For a model endpoint (`adapter` is then `model:<name>`): the model asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// For a model endpoint's answer: the tokens it reported using.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// The append-only outbound log.
#[derive(Clone, Debug)]
pub struct OutboundLog {
    path: PathBuf,
}

impl OutboundLog {
    /// A log at `path` (created on first write).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        OutboundLog { path: path.into() }
    }

    /// `home/grounding.log`.
    pub fn in_home(home: &Path) -> Self {
        Self::new(home.join("grounding.log"))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one line. A failure to log is reported by the caller as a
    /// warning; it never turns a fetched answer into a failure.
    ///
    /// # Errors
    /// The I/O error of opening or writing the file.
    pub fn append(&self, line: &LogLine) -> std::io::Result<()> {
        let mut buf = serde_json::to_vec(line).map_err(std::io::Error::other)?;
        buf.push(b'\n');
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path)?;
        // One write call: with O_APPEND the kernel places the whole buffer at
        // the end of the file atomically for regular files. A short write
        // (disk full) is an error rather than a torn line followed by a retry.
        let n = f.write(&buf)?;
        if n != buf.len() {
            return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "short write to grounding.log"));
        }
        Ok(())
    }

    /// Read every line back (for tests and `amem grounding log`-style tools).
    ///
    /// # Errors
    /// I/O errors, or a line that is not a [`LogLine`].
    pub fn read_all(&self) -> std::io::Result<Vec<LogLine>> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        text.lines().map(|l| serde_json::from_str(l).map_err(std::io::Error::other)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_appends_keep_lines_whole() {
        let dir = tempfile::tempdir().unwrap();
        let log = OutboundLog::in_home(dir.path());
        std::thread::scope(|s| {
            for t in 0..8 {
                let log = log.clone();
                s.spawn(move || {
                    for i in 0..50 {
                        let line = LogLine {
                            time: "2026-01-01T00:00:00Z".into(),
                            host: format!("h{t}:443"),
                            adapter: "http".into(),
                            claim_sha256: "ab".repeat(32),
                            status: "200".into(),
                            bytes: i,
                            duration_ms: 1,
                            attempt: 0,
                            model: None,
                            tokens: None,
                        };
                        log.append(&line).unwrap();
                    }
                });
            }
        });
        assert_eq!(log.read_all().unwrap().len(), 400);
    }
}
