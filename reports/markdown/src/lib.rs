//! `amem-report-markdown`: the human report, `reports/<run-id>/audit.md`.
//!
//! Where it sits: the last stage of the audit (docs/architecture.md, "Reports"). It is a
//! [`ReportSink`]: it gets the run's [`RunInfo`], one [`AuditRecord`] per
//! claim assessment, then the [`RunSummary`], and writes
//!
//! 1. what needs attention, in that order: ⚠ Contradicted, then ✅
//!    Supported, the user's own claims first in each (`[me]`, "you said X,
//!    your notes say Y"), grouped by conversation: who, when (UTC), where
//!    (the original's file and offset, or chat and row), the claim verbatim
//!    (hedges and attributions intact, its stance cues listed), its status
//!    and why, the evidence sentences the verdict rests on with their role
//!    (supports, conflicts, context) and the conflicting value inside them,
//!    each cited by the note's title, path and modification time and its
//!    `amem://` or URL citation, the gate verdict and flags, and what a
//!    REWRITE beside a ✅ asks of the reader;
//! 2. ❓ Unverified, condensed: counts by status, by conversation and by
//!    author, and the [`UNVERIFIED_LISTED`] most check-worthy claims; the
//!    rest are in `audit.arrow` / `audit.jsonl` and the unverified queue;
//! 3. the run's parameters and counts, Skipped (counts by stage and reason,
//!    bulk mail and bots among them, sample locators), Uncheckable (counts,
//!    and the claims the gate could align nothing for), and Not checked
//!    (the change types no detector covers).
//!
//! The default report stays readable whatever the archive's size: at most
//! [`CONTRADICTED_LISTED`] contradicted and [`SUPPORTED_LISTED`] supported
//! claims are written out (the user's own first), each section saying how
//! many more the data files hold; [`MarkdownSink::full`] (`--full`) lists
//! everything.
//!
//! Rows arrive in pipeline order but are shown grouped and sorted. The
//! default report keeps in memory only the rows it can list (a bounded heap
//! per listing, on the report's sort key) and tallies the rest (see the
//! `best` module). `--full` lists every row, so that sink parks each row in
//! a temporary SQLite file next to the report and reads it back with
//! `ORDER BY` at `finish`: SQLite sorts out of core, so memory stays flat
//! whatever the number of rows. Both give the same bytes for the rows they
//! both list (a test pins it). The output is written to
//! `audit.md.tmp` and renamed into place, so a killed run never leaves a
//! half report under the final name. Same input, same bytes: all ordering is
//! by sort keys, never by arrival.
//!
//! ```no_run
//! use amem_records::ReportSink;
//! use amem_report_markdown::MarkdownSink;
//! # fn run(info: &amem_records::RunInfo, rows: Vec<amem_records::AuditRecord>, summary: &amem_records::RunSummary)
//! #     -> Result<(), amem_records::ReportError> {
//! let mut sink = MarkdownSink::new(std::path::Path::new("reports").join(&info.run_id.0));
//! sink.begin(info)?;
//! for r in &rows {
//!     sink.write(r)?;
//! }
//! sink.finish(summary)?; // writes reports/<run-id>/audit.md
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod best;
mod escape;
mod render;

use amem_records::{AuditRecord, Group, ReportError, ReportSink, RunInfo, RunSummary};
use rusqlite::{Connection, params};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The report's file name inside the run's report directory.
pub const FILE_NAME: &str = "audit.md";

/// Contradicted claims written out in full by default (the user's own
/// first, then by conversation); the rest are counted and left to the data
/// files.
pub const CONTRADICTED_LISTED: u64 = 400;
/// Supported claims written out in full by default.
pub const SUPPORTED_LISTED: u64 = 200;
/// Unverified claims listed (one line each) by default: the most
/// check-worthy.
pub const UNVERIFIED_LISTED: u64 = 50;
/// Rows of the unverified by-conversation and by-author tables.
const TOP_ROWS: u64 = 15;
/// Uncheckable claims listed by default.
const UNCHECKABLE_LISTED: u64 = 50;

/// The temporary row store's file name (removed when the sink finishes or is dropped).
const ROWS_FILE: &str = ".audit.md.rows.sqlite";

/// What can go wrong writing the markdown report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `write` or `finish` before `begin`.
    #[error("markdown report: {0} called before begin")]
    NotBegun(&'static str),
    /// The report directory or file could not be created or written.
    #[error("markdown report {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The temporary row store failed.
    #[error("markdown report row store {path}: {action}: {source}")]
    Rows {
        /// The temporary file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
    /// A row could not be encoded or decoded for the row store.
    #[error("markdown report: row {what}: {source}")]
    Json {
        /// Which step.
        what: &'static str,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

struct Open {
    run: RunInfo,
    rows: Rows,
}

/// Where the rows wait for `finish`.
enum Rows {
    /// `--full`: every row, in the temporary SQLite file.
    Store(Connection),
    /// The default report: the rows it lists, and tallies.
    Best(Box<best::BestRows>),
}

/// Which rows a listing shows.
#[derive(Clone, Copy, Debug)]
enum Listed {
    /// A group's rows (by rank), the user's own first.
    Group(i64),
    /// The most check-worthy unverified rows.
    Worthiest,
    /// Rows the gate could align nothing for.
    Uncheckable,
}

/// Writes `<dir>/audit.md`. See the crate docs.
pub struct MarkdownSink {
    dir: PathBuf,
    full: bool,
    /// Park rows in the SQLite store even for the default report (tests
    /// compare the two ways).
    store_always: bool,
    open: Option<Open>,
}

impl std::fmt::Debug for MarkdownSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MarkdownSink").field("dir", &self.dir).field("full", &self.full).field("begun", &self.open.is_some()).finish()
    }
}

/// Report order: what needs attention first.
fn group_rank(g: Group) -> i64 {
    match g {
        Group::Contradicted => 0,
        Group::Supported => 1,
        Group::Unverified => 2,
    }
}

impl MarkdownSink {
    /// A sink writing into `dir` (created at `begin`), normally
    /// `$AMEM_HOME/reports/<run-id>` or the user's `--out`.
    pub fn new(dir: impl Into<PathBuf>) -> MarkdownSink {
        MarkdownSink { dir: dir.into(), full: false, store_always: false, open: None }
    }

    /// List every claim (`--full`), not only the first of each group and
    /// the most check-worthy unverified ones.
    pub fn full(mut self, full: bool) -> MarkdownSink {
        self.full = full;
        self
    }

    /// Use the SQLite row store whatever the mode.
    #[cfg(test)]
    pub(crate) fn store_always(mut self) -> MarkdownSink {
        self.store_always = true;
        self
    }

    /// Where the report goes.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    fn rows_path(&self) -> PathBuf {
        self.dir.join(ROWS_FILE)
    }

    fn rows_err(&self, action: &'static str) -> impl FnOnce(rusqlite::Error) -> Error + use<> {
        let path = self.rows_path();
        move |source| Error::Rows { path, action, source }
    }

    fn begin_inner(&mut self, run: &RunInfo) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|source| Error::Io { path: self.dir.clone(), source })?;
        let rows_path = self.rows_path();
        remove_if_exists(&rows_path)?;
        if !self.full && !self.store_always {
            let best = best::BestRows::new(CONTRADICTED_LISTED, SUPPORTED_LISTED, UNVERIFIED_LISTED, UNCHECKABLE_LISTED);
            self.open = Some(Open { run: run.clone(), rows: Rows::Best(Box::new(best)) });
            return Ok(());
        }
        let rows = Connection::open(&rows_path).map_err(self.rows_err("creating"))?;
        // Scratch data: no journal, no fsync; a crash just leaves a file the
        // next begin removes. The page cache is capped at 32 MiB (SQLite's
        // default of 2 MiB made a 10,000-row report spend most of its time
        // re-reading pages, see benches/markdown.rs) and sorts larger than
        // that spill to temporary files, so memory stays flat.
        rows.execute_batch(
            "PRAGMA journal_mode=OFF;
             PRAGMA synchronous=OFF;
             PRAGMA temp_store=FILE;
             PRAGMA cache_size=-32768;
             CREATE TABLE rows (
                 grp INTEGER NOT NULL,
                 source TEXT NOT NULL,
                 archive TEXT NOT NULL,
                 conversation TEXT NOT NULL,
                 sent_at INTEGER NOT NULL,
                 message_id TEXT NOT NULL,
                 span_start INTEGER NOT NULL,
                 claim_id TEXT NOT NULL,
                 method TEXT NOT NULL,
                 assessed_at TEXT NOT NULL,
                 uncheckable INTEGER NOT NULL,
                 mine INTEGER NOT NULL,
                 worth INTEGER NOT NULL,
                 author TEXT NOT NULL,
                 status TEXT NOT NULL,
                 json TEXT NOT NULL
             );
             BEGIN;",
        )
        .map_err(self.rows_err("creating the row table"))?;
        self.open = Some(Open { run: run.clone(), rows: Rows::Store(rows) });
        Ok(())
    }

    fn write_inner(&mut self, rec: &AuditRecord) -> Result<()> {
        let err = self.rows_err("storing a row");
        let open = self.open.as_mut().ok_or(Error::NotBegun("write"))?;
        let rows = match &mut open.rows {
            Rows::Best(best) => {
                best.add(rec);
                return Ok(());
            }
            Rows::Store(rows) => rows,
        };
        let json = serde_json::to_string(rec).map_err(|source| Error::Json { what: "encoding", source })?;
        rows.prepare_cached(
            "INSERT INTO rows (grp, source, archive, conversation, sent_at, message_id, span_start, claim_id, method,
                                   assessed_at, uncheckable, mine, worth, author, status, json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )
        .and_then(|mut st| {
            st.execute(params![
                group_rank(rec.group()),
                rec.source.as_str(),
                rec.archive,
                rec.conversation,
                rec.sent_at.as_microsecond(),
                rec.message_id.0,
                rec.claim.span.start as i64,
                rec.claim.id.0.to_hex(),
                rec.assessment.method,
                rec.assessment.assessed_at,
                rec.is_uncheckable() as i64,
                rec.from_me as i64,
                rec.check_worth(),
                rec.author,
                rec.assessment.status.as_str(),
                json
            ])
        })
        .map_err(err)?;
        Ok(())
    }

    fn finish_inner(&mut self, summary: &RunSummary) -> Result<()> {
        let mut open = self.open.take().ok_or(Error::NotBegun("finish"))?;
        match &mut open.rows {
            Rows::Store(rows) => rows.execute_batch("COMMIT").map_err(self.rows_err("committing rows"))?,
            Rows::Best(best) => best.close(),
        }
        let final_path = self.path();
        let tmp_path = self.dir.join(format!("{FILE_NAME}.tmp"));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        let file = fs::File::create(&tmp_path).map_err(io(&tmp_path))?;
        let mut out = BufWriter::new(file);
        self.render_all(&mut open, summary, &mut out).map_err(|e| match e {
            RenderError::Io(source) => Error::Io { path: tmp_path.clone(), source },
            RenderError::Other(e) => e,
        })?;
        let file = out.into_inner().map_err(|e| Error::Io { path: tmp_path.clone(), source: e.into_error() })?;
        file.sync_all().map_err(io(&tmp_path))?;
        drop(file);
        fs::rename(&tmp_path, &final_path).map_err(io(&final_path))?;
        if let Rows::Store(rows) = open.rows {
            drop(rows);
            remove_if_exists(&self.rows_path())?;
        }
        Ok(())
    }

    fn render_all(&self, open: &mut Open, summary: &RunSummary, out: &mut impl Write) -> Result<(), RenderError> {
        let counts = self.group_row_counts(open)?;
        let mine = self.mine_counts(open)?;
        let listed = |g: Group| -> u64 {
            let n = counts[group_rank(g) as usize];
            match g {
                _ if self.full => n,
                Group::Contradicted => n.min(CONTRADICTED_LISTED),
                Group::Supported => n.min(SUPPORTED_LISTED),
                Group::Unverified => n.min(UNVERIFIED_LISTED),
            }
        };
        render::title(out, &open.run)?;
        render::attention(out, &counts, &mine, self.full)?;
        for g in [Group::Contradicted, Group::Supported] {
            let rank = group_rank(g);
            let n = counts[rank as usize];
            render::group_heading(out, g, n, mine[rank as usize])?;
            if n == 0 {
                writeln!(out, "_None._\n")?;
                continue;
            }
            self.full_rows(open, rank, listed(g), out)?;
            render::more_in_data_files(out, g, n - listed(g))?;
        }
        let rank = group_rank(Group::Unverified);
        let n = counts[rank as usize];
        render::group_heading(out, Group::Unverified, n, mine[rank as usize])?;
        if n == 0 {
            writeln!(out, "_None._\n")?;
        } else if self.full {
            self.full_rows(open, rank, n, out)?;
        } else {
            render::unverified_by_status(out, summary)?;
            let convs = self.top(open, best::TopBy::Conversation, rank)?;
            render::top_table(out, "conversation", "conversations", &convs.0, convs.1)?;
            let authors = self.top(open, best::TopBy::Author, rank)?;
            render::top_table(out, "author", "authors", &authors.0, authors.1)?;
            render::check_worthy_heading(out, listed(Group::Unverified), n)?;
            self.each_listed(open, Listed::Worthiest, listed(Group::Unverified), |rec| render::unverified_line(out, &rec))?;
            writeln!(out)?;
            render::more_in_data_files(out, Group::Unverified, n - listed(Group::Unverified))?;
        }
        render::run_table(out, &open.run, summary)?;
        render::skipped(out, summary)?;
        render::uncheckable_heading(out, summary, counts[3])?;
        let cap = if self.full { counts[3] } else { counts[3].min(UNCHECKABLE_LISTED) };
        self.each_listed(open, Listed::Uncheckable, cap, |rec| render::uncheckable_row(out, &rec))?;
        if counts[3] > 0 {
            if cap < counts[3] {
                writeln!(out, "\n_{} more in `audit.arrow` (`gate_verdict = 'UNCHECKABLE'`); `--full` lists them here._", counts[3] - cap)?;
            }
            writeln!(out)?;
        }
        render::not_checked(out, summary)?;
        Ok(())
    }

    /// The first `limit` rows of a group in full, the user's own first
    /// (under "Yours"), each part grouped by conversation.
    fn full_rows(&self, open: &mut Open, rank: i64, limit: u64, out: &mut impl Write) -> Result<(), RenderError> {
        let mut last_conv: Option<(bool, String, String, String)> = None;
        let mut last_mine: Option<bool> = None;
        self.each_listed(open, Listed::Group(rank), limit, |rec| {
            if last_mine != Some(rec.from_me) {
                // Only worth a heading when the user's own claims are there.
                if rec.from_me || last_mine == Some(true) {
                    render::whose_heading(out, rec.from_me)?;
                }
                last_mine = Some(rec.from_me);
            }
            let conv = (rec.from_me, rec.source.as_str().to_string(), rec.archive.clone(), rec.conversation.clone());
            if last_conv.as_ref() != Some(&conv) {
                render::conversation_heading(out, &rec)?;
                last_conv = Some(conv);
            }
            render::record(out, &rec)
        })
    }

    /// The first `limit` rows of a listing, in report order, each given to `f`.
    fn each_listed(
        &self,
        open: &mut Open,
        which: Listed,
        limit: u64,
        mut f: impl FnMut(AuditRecord) -> Result<(), RenderError>,
    ) -> Result<(), RenderError> {
        match &mut open.rows {
            Rows::Store(rows) => {
                let (sql, arg) = match which {
                    Listed::Group(rank) => (format!("WHERE grp = ?1 ORDER BY mine DESC, {ORDER} LIMIT {limit}"), rank),
                    Listed::Worthiest => {
                        (format!("WHERE grp = ?1 ORDER BY worth DESC, {ORDER} LIMIT {limit}"), group_rank(Group::Unverified))
                    }
                    Listed::Uncheckable => (format!("WHERE uncheckable = ?1 ORDER BY {ORDER} LIMIT {limit}"), 1),
                };
                self.each_row_sql(rows, &sql, arg, f)
            }
            Rows::Best(best) => {
                let kept = match which {
                    Listed::Group(rank) => best.take_listed(rank as usize),
                    Listed::Worthiest => best.take_listed(group_rank(Group::Unverified) as usize),
                    Listed::Uncheckable => best.take_uncheckable(),
                };
                for rec in kept.into_iter().take(usize::try_from(limit).unwrap_or(usize::MAX)) {
                    f(rec)?;
                }
                Ok(())
            }
        }
    }

    /// The user's own rows per group rank.
    fn mine_counts(&self, open: &Open) -> Result<[u64; 3], RenderError> {
        let rows = match &open.rows {
            Rows::Best(best) => return Ok(best.mine()),
            Rows::Store(rows) => rows,
        };
        let mut counts = [0u64; 3];
        let err = |source| RenderError::Other(Error::Rows { path: self.rows_path(), action: "counting rows", source });
        let mut st = rows.prepare("SELECT grp, sum(mine) FROM rows GROUP BY grp").map_err(err)?;
        let mut q = st.query([]).map_err(err)?;
        while let Some(r) = q.next().map_err(err)? {
            let g: i64 = r.get(0).map_err(err)?;
            let n: i64 = r.get(1).map_err(err)?;
            if let Some(c) = counts.get_mut(g as usize) {
                *c = n as u64;
            }
        }
        Ok(counts)
    }

    /// The [`TOP_ROWS`] largest values of a table's key (conversation or
    /// author) in a group, with their row count and the user's own among
    /// them, and how many distinct values there are.
    fn top(&self, open: &Open, by: best::TopBy, rank: i64) -> Result<(Vec<TopRow>, u64), RenderError> {
        let rows = match &open.rows {
            Rows::Best(best) => return Ok(best.top(by, TOP_ROWS as usize)),
            Rows::Store(rows) => rows,
        };
        let columns = match by {
            best::TopBy::Conversation => "source, archive, conversation",
            best::TopBy::Author => "author",
        };
        let err = |source| RenderError::Other(Error::Rows { path: self.rows_path(), action: "counting rows", source });
        let width = columns.split(',').count();
        let sql = format!(
            "SELECT {columns}, count(*), sum(mine) FROM rows WHERE grp = ?1 GROUP BY {columns} ORDER BY count(*) DESC, {columns} LIMIT {TOP_ROWS}"
        );
        let mut st = rows.prepare(&sql).map_err(err)?;
        let mut q = st.query([rank]).map_err(err)?;
        let mut out = Vec::new();
        while let Some(r) = q.next().map_err(err)? {
            let mut key = Vec::with_capacity(width);
            for i in 0..width {
                key.push(r.get::<_, String>(i).map_err(err)?);
            }
            let n: i64 = r.get(width).map_err(err)?;
            let m: i64 = r.get(width + 1).map_err(err)?;
            out.push((key, n as u64, m as u64));
        }
        let distinct: i64 = rows
            .query_row(&format!("SELECT count(*) FROM (SELECT 1 FROM rows WHERE grp = ?1 GROUP BY {columns})"), [rank], |r| r.get(0))
            .map_err(err)?;
        Ok((out, distinct as u64))
    }

    /// Rows per group rank, plus the uncheckable count at index 3.
    fn group_row_counts(&self, open: &Open) -> Result<[u64; 4], RenderError> {
        let rows = match &open.rows {
            Rows::Best(best) => return Ok(best.counts()),
            Rows::Store(rows) => rows,
        };
        let mut counts = [0u64; 4];
        let err = |source| RenderError::Other(Error::Rows { path: self.rows_path(), action: "counting rows", source });
        let mut st = rows.prepare("SELECT grp, count(*), sum(uncheckable) FROM rows GROUP BY grp").map_err(err)?;
        let mut q = st.query([]).map_err(err)?;
        while let Some(r) = q.next().map_err(err)? {
            let g: i64 = r.get(0).map_err(err)?;
            let n: i64 = r.get(1).map_err(err)?;
            let u: i64 = r.get(2).map_err(err)?;
            if let Some(c) = counts.get_mut(g as usize) {
                *c = n as u64;
            }
            counts[3] += u as u64;
        }
        Ok(counts)
    }

    fn each_row_sql(
        &self,
        rows: &Connection,
        filter_and_order: &str,
        arg: i64,
        mut f: impl FnMut(AuditRecord) -> Result<(), RenderError>,
    ) -> Result<(), RenderError> {
        let err = |source| RenderError::Other(Error::Rows { path: self.rows_path(), action: "reading rows back", source });
        let sql = format!("SELECT json FROM rows {filter_and_order}");
        let mut st = rows.prepare(&sql).map_err(err)?;
        let mut q = st.query([arg]).map_err(err)?;
        while let Some(r) = q.next().map_err(err)? {
            let json: String = r.get(0).map_err(err)?;
            let rec: AuditRecord =
                serde_json::from_str(&json).map_err(|source| RenderError::Other(Error::Json { what: "decoding", source }))?;
            f(rec)?;
        }
        Ok(())
    }
}

/// One row of a by-conversation or by-author table: the key's values, the
/// claims under it, and the user's own among them.
pub(crate) type TopRow = (Vec<String>, u64, u64);

/// The rows' sort keys after the group: same input, same bytes.
const ORDER: &str = "source, archive, conversation, sent_at, message_id, span_start, claim_id, method, assessed_at, json";

/// Rendering writes to a `Write`; its I/O errors get the path attached by the caller.
pub(crate) enum RenderError {
    Io(std::io::Error),
    Other(Error),
}

impl From<std::io::Error> for RenderError {
    fn from(e: std::io::Error) -> Self {
        RenderError::Io(e)
    }
}

fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io { path: path.to_path_buf(), source }),
    }
}

impl ReportSink for MarkdownSink {
    fn begin(&mut self, run: &RunInfo) -> Result<(), ReportError> {
        Ok(self.begin_inner(run)?)
    }

    fn write(&mut self, rec: &AuditRecord) -> Result<(), ReportError> {
        Ok(self.write_inner(rec)?)
    }

    fn finish(&mut self, summary: &RunSummary) -> Result<(), ReportError> {
        Ok(self.finish_inner(summary)?)
    }
}

impl Drop for MarkdownSink {
    fn drop(&mut self) {
        // Unfinished: drop the scratch rows (the final report was never written).
        if let Some(Open { rows: Rows::Store(rows), .. }) = self.open.take() {
            drop(rows);
            let _ = fs::remove_file(self.rows_path());
        }
    }
}

#[cfg(test)]
mod tests;
