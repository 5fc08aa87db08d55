//! Which importer reads which archive: the one place that maps a
//! [`SourceKind`] to an importer crate.

use amem_model::{ImportError, ImportOptions, MessageStream, SourceKind};
use std::path::Path;

/// Open `path` with the importer for `kind`.
///
/// # Errors
/// The archive cannot be opened at all (missing, unreadable, not that
/// format). Record-level problems come through the stream instead.
pub fn open_source(kind: SourceKind, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
    match kind {
        SourceKind::Slack => amem_importer_slack::open(path, opts),
        SourceKind::Imessage => amem_importer_imessage::open(path, opts),
        SourceKind::Gmail => amem_importer_gmail::open(path, opts),
        SourceKind::Enron => amem_importer_enron::open(path, opts),
        SourceKind::EnronCsv => amem_importer_enron::open_csv(path, opts),
    }
}

/// Parse a `KIND:PATH` source spec (`--source slack:exports/acme`).
///
/// # Errors
/// No colon, or an unknown kind; the message lists the kinds.
pub fn parse_source_spec(spec: &str) -> Result<(SourceKind, &Path), String> {
    let (k, p) = spec
        .split_once(':')
        .ok_or_else(|| format!("source {spec:?} is not KIND:PATH (kinds: slack, imessage, gmail, enron, enron-csv)"))?;
    let kind = SourceKind::parse(k)
        .ok_or_else(|| format!("unknown source kind {k:?} in {spec:?} (kinds: slack, imessage, gmail, enron, enron-csv)"))?;
    if p.is_empty() {
        return Err(format!("source {spec:?} has an empty path"));
    }
    Ok((kind, Path::new(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        assert_eq!(parse_source_spec("slack:a/b").unwrap(), (SourceKind::Slack, Path::new("a/b")));
        assert_eq!(parse_source_spec("enron-csv:x.csv").unwrap().0, SourceKind::EnronCsv);
        assert!(parse_source_spec("fax:x").is_err());
        assert!(parse_source_spec("nocolon").is_err());
        assert!(parse_source_spec("slack:").is_err());
    }
}
