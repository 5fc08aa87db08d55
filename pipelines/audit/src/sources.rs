//! Which importer reads which archive: the list of importers ([`SOURCES`]), each an
//! [`amem_records::Source`], and what is asked of them by kind (open, probe, describe).
//! Adding an importer is its crate and a line here (docs/architecture.md, "Adding a source").

use amem_records::{ImportError, ImportOptions, MessageStream, Source, SourceKind};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Every importer, in the order [`detect`] probes a path of unknown kind: the most specific
/// first (a SQLite header, export metadata files), a maildir tree last.
pub static SOURCES: [&dyn Source; 5] = [
    &amem_importer_imessage::ImessageSource,
    &amem_importer_slack::SlackSource,
    &amem_importer_mbox::MboxSource,
    &amem_importer_enron::EnronCsvSource,
    &amem_importer_enron::EnronSource,
];

/// Importers registered at run time beside [`SOURCES`] ([`register`]).
static REGISTERED: RwLock<Vec<&'static dyn Source>> = RwLock::new(Vec::new());

/// Read archives of `source`'s kind with `source`, as if it were in [`SOURCES`] (probed after
/// them): an importer defined outside amem's crates, a test's. Its kind's name is registered too,
/// so that ledgers and reports read it back. Registering a kind twice keeps the first importer.
pub fn register(source: &'static dyn Source) {
    let kind = source.kind();
    kind.register();
    if let Ok(mut registered) = REGISTERED.write()
        && !SOURCES.iter().chain(registered.iter()).any(|s| s.kind() == kind)
    {
        registered.push(source);
    }
}

/// Every importer, shipped then registered, in probe order.
fn importers() -> Vec<&'static dyn Source> {
    let registered = REGISTERED.read().map(|r| r.clone()).unwrap_or_default();
    SOURCES.iter().copied().chain(registered).collect()
}

/// The importer of `kind`: a shipped one (every shipped kind has one: `every_kind_has_one_importer`
/// pins it) or a registered one.
pub fn source_of(kind: SourceKind) -> Option<&'static dyn Source> {
    importers().into_iter().find(|s| s.kind() == kind)
}

/// Open `path` with the importer for `kind`.
///
/// # Errors
/// The archive cannot be opened at all (missing, unreadable, not that
/// format), or no importer reads `kind`. Record-level problems come through the stream instead.
pub fn open_source(kind: SourceKind, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    match source_of(kind) {
        Some(source) => source.open(path, opts),
        None => Err(ImportError::new(path, "archive", "kind", format!("no importer reads archives of kind {kind}"))),
    }
}

/// Parse a `KIND:PATH` source spec (`--source slack:exports/acme`).
/// `auto:PATH`, and a bare PATH whose prefix before a colon is not a kind,
/// give `None`: the kind is then found by [`detect`].
///
/// # Errors
/// An unknown kind before a colon, or an empty path; the message lists the kinds.
pub fn parse_source_spec(spec: &str) -> Result<(Option<SourceKind>, &Path), String> {
    let kinds = "kinds: slack, imessage, gmail, enron, enron-csv, auto";
    let (kind, p) = match spec.split_once(':') {
        Some(("auto", p)) => (None, p),
        Some((k, p)) => match SourceKind::parse(k) {
            Some(kind) => (Some(kind), p),
            // `notes:2024.mbox` may be a file name with a colon in it.
            None if Path::new(spec).exists() => (None, spec),
            None => return Err(format!("unknown source kind {k:?} in {spec:?} ({kinds}; or a bare path, whose kind is probed)")),
        },
        None => (None, spec),
    };
    if p.is_empty() {
        return Err(format!("source {spec:?} has an empty path"));
    }
    Ok((kind, Path::new(p)))
}

/// Whether `path` looks like an archive of `kind` (the importer's cheap `probe`).
pub fn probe(kind: SourceKind, path: &Path) -> bool {
    source_of(kind).is_some_and(|s| s.probe(path))
}

/// The kind `path` looks like, if any: the first importer whose probe says yes, [`SOURCES`] in
/// their order, then the registered ones.
pub fn detect(path: &Path) -> Option<SourceKind> {
    importers().into_iter().find(|s| s.probe(path)).map(|s| s.kind())
}

/// What an archive of each kind is, in words.
pub fn describe_kind(kind: SourceKind) -> &'static str {
    source_of(kind).map_or("an archive of a kind no importer reads", |s| s.describe())
}

/// A source whose content is not the kind it was given as, or of no kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KindError {
    /// It looks like another kind.
    #[error("{path} is not {expected}: this looks like {looks}: use {kind}:{path}", expected = describe_kind(*.given), looks = describe_kind(*.looks_like), kind = .looks_like, path = .path.display())]
    Mismatch {
        /// The archive.
        path: PathBuf,
        /// The kind it was given as.
        given: SourceKind,
        /// The kind it looks like.
        looks_like: SourceKind,
    },
    /// It looks like none of the kinds, and its importer cannot open it.
    #[error("{path} is not {expected}, nor any other kind amem reads (slack, imessage, gmail, enron, enron-csv): {why}", expected = describe_kind(*.given), path = .path.display())]
    NotThatKind {
        /// The archive.
        path: PathBuf,
        /// The kind it was given as.
        given: SourceKind,
        /// What its importer said on opening it.
        why: String,
    },
    /// `auto:` and no kind fits.
    #[error("{path}: cannot tell what kind of archive this is (not a Slack export, chat.db, mbox, Enron CSV or maildir): name it as KIND:PATH", path = .path.display())]
    Unknown {
        /// The archive.
        path: PathBuf,
    },
}

/// Check before any work that `path` is what `kind` says; `None` picks the
/// kind by probing.
///
/// # Errors
/// [`KindError`], naming what the archive looks like instead.
pub fn resolve_kind(kind: Option<SourceKind>, path: &Path) -> Result<SourceKind, KindError> {
    match kind {
        None => detect(path).ok_or_else(|| KindError::Unknown { path: path.to_path_buf() }),
        Some(k) if probe(k, path) => Ok(k),
        Some(given) => match detect(path) {
            Some(looks_like) => Err(KindError::Mismatch { path: path.to_path_buf(), given, looks_like }),
            // No probe says yes: the importer's own reason, where it has
            // one on opening, is the precise one ("not a SQLite database").
            None => {
                let why = match open_source(given, path, &ImportOptions::default()) {
                    Ok(_) => "its content does not start the way that kind does".to_string(),
                    Err(e) => format!("{}: {}", e.position, e.reason),
                };
                Err(KindError::NotThatKind { path: path.to_path_buf(), given, why })
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_importer() {
        for k in SourceKind::SHIPPED {
            assert_eq!(SOURCES.iter().filter(|s| s.kind() == k).count(), 1, "{k}");
            assert_eq!(source_of(k).map(|s| s.kind()), Some(k));
        }
        assert_eq!(SOURCES.len(), SourceKind::SHIPPED.len());
    }

    #[test]
    fn specs() {
        assert_eq!(parse_source_spec("slack:a/b").unwrap(), (Some(SourceKind::SLACK), Path::new("a/b")));
        assert_eq!(parse_source_spec("enron-csv:x.csv").unwrap().0, Some(SourceKind::ENRON_CSV));
        assert_eq!(parse_source_spec("auto:x.mbox").unwrap(), (None, Path::new("x.mbox")));
        assert_eq!(parse_source_spec("bare/path").unwrap(), (None, Path::new("bare/path")));
        assert!(parse_source_spec("fax:x").is_err());
        assert!(parse_source_spec("slack:").is_err());
        assert!(parse_source_spec("auto:").is_err());
    }

    fn examples(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/home/exports").join(rel)
    }

    #[test]
    fn every_example_export_is_detected_as_its_kind() {
        let cases = [
            ("slack", SourceKind::SLACK),
            ("imessage/chat.db", SourceKind::IMESSAGE),
            ("mail/takeout.mbox", SourceKind::GMAIL),
            ("mail", SourceKind::GMAIL),
            ("enron/maildir", SourceKind::ENRON),
            ("enron/maildir/chen-a/inbox/1.", SourceKind::ENRON),
            ("enron/emails.csv", SourceKind::ENRON_CSV),
        ];
        for (rel, kind) in cases {
            let p = examples(rel);
            assert_eq!(detect(&p), Some(kind), "{rel}");
            assert_eq!(resolve_kind(Some(kind), &p), Ok(kind), "{rel}");
            // Exactly one probe says yes for each.
            let yes: Vec<_> = SOURCES.iter().filter(|s| s.probe(&p)).map(|s| s.kind()).collect();
            assert_eq!(yes, [kind], "{rel}");
        }
    }

    #[test]
    fn wrong_kinds_name_what_the_archive_looks_like() {
        let mbox = examples("mail/takeout.mbox");
        for given in [SourceKind::SLACK, SourceKind::ENRON, SourceKind::ENRON_CSV, SourceKind::IMESSAGE] {
            let err = resolve_kind(Some(given), &mbox).unwrap_err();
            assert_eq!(err, KindError::Mismatch { path: mbox.clone(), given, looks_like: SourceKind::GMAIL });
            assert!(
                err.to_string()
                    .contains(&format!("this looks like an mbox file (its first line a `From ` separator): use gmail:{}", mbox.display())),
                "{err}"
            );
        }
        let csv = examples("enron/emails.csv");
        assert!(
            matches!(resolve_kind(Some(SourceKind::GMAIL), &csv), Err(KindError::Mismatch { looks_like, .. }) if looks_like == SourceKind::ENRON_CSV)
        );
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "Just some notes.\n").unwrap();
        assert!(matches!(resolve_kind(Some(SourceKind::GMAIL), &notes), Err(KindError::NotThatKind { .. })));
        assert!(matches!(resolve_kind(None, &notes), Err(KindError::Unknown { .. })));
        assert!(matches!(resolve_kind(None, dir.path()), Err(KindError::Unknown { .. })));
        // A SQLite file without a message table is not a chat.db.
        let db = dir.path().join("other.db");
        rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE t(x);").unwrap();
        assert!(!probe(SourceKind::IMESSAGE, &db));
    }
}
