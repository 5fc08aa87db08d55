//! Paths as people type them. The shell expands `~` and `$VAR` only at the
//! start of a word, so `--source gmail:~/Takeout/All.mbox`, a quoted
//! `--home "$HOME/x"` written in a cron file, or `path = "~/exports"` in
//! config.toml arrive unexpanded: amem expands them itself, the way a POSIX
//! shell would (`~`, `~/…`, `$VAR`, `${VAR}`; `~user` is left as written).

use crate::UsageError;
use std::path::PathBuf;

/// Expand `~` and `$VAR` in `s`. An unset variable is a usage error naming
/// it (an empty path would silently mean the current folder).
pub(crate) fn expand(s: &str) -> Result<PathBuf, UsageError> {
    expand_with(s, |name| std::env::var(name).ok())
}

/// [`expand`] with the environment given (tests).
pub(crate) fn expand_with(s: &str, env: impl Fn(&str) -> Option<String>) -> Result<PathBuf, UsageError> {
    let home = env("HOME");
    let expanded = shellexpand::full_with_context(
        s,
        || home.as_deref(),
        |name: &str| match env(name) {
            Some(v) => Ok(Some(v)),
            None => Err(format!("${name} is not set")),
        },
    )
    .map_err(|e| UsageError(format!("cannot expand {s:?}: {}", e.cause)))?;
    Ok(PathBuf::from(expanded.into_owned()))
}

/// A `--source` as typed (`KIND:PATH`, `auto:PATH` or a bare path): the
/// path expanded, present, and of the kind it says (or, without one, of
/// the kind its content shows), all checked before any work.
///
/// # Errors
/// A bad spec or an unset variable ([`UsageError`], exit 2); a missing
/// path, or content of another kind (exit 1, naming what it looks like).
pub(crate) fn source_arg(spec: &str) -> anyhow::Result<(amem_records::SourceKind, PathBuf)> {
    let (kind, path) = amem_audit::sources::parse_source_spec(spec).map_err(UsageError)?;
    let path = expand(&path.to_string_lossy())?;
    checked_source(kind, path)
}

/// [`source_arg`] for a kind and path already apart (`[[imports]]`, `amem import`).
pub(crate) fn checked_source(kind: Option<amem_records::SourceKind>, path: PathBuf) -> anyhow::Result<(amem_records::SourceKind, PathBuf)> {
    if !path.exists() {
        match kind {
            Some(k) => anyhow::bail!("{k} source {} does not exist", path.display()),
            None => anyhow::bail!("source {} does not exist", path.display()),
        }
    }
    let kind = amem_audit::sources::resolve_kind(kind, &path)?;
    Ok((kind, canonical(&path)))
}

/// The one spelling of a path shown in reports and notes: symlinks and
/// `..` resolved when it exists, else made absolute. Identity never rests
/// on it (message digests leave paths out), but people read it.
pub(crate) fn canonical(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).unwrap_or_else(|_| path.to_path_buf())
}

/// [`canonical`] of a path that may not exist yet: its nearest existing
/// ancestor resolved (links and `..`), the rest appended as written.
pub(crate) fn canonical_to_be(path: &std::path::Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut base = abs.as_path();
    while !base.exists() {
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return abs,
        }
    }
    let mut out = canonical(base);
    out.extend(rest.iter().rev());
    out
}

/// A clap value parser for path arguments.
pub(crate) fn path_arg(s: &str) -> Result<PathBuf, String> {
    expand(s).map_err(|e| e.0)
}

/// The value parser of `--home` / `AMEM_HOME`: a path, never empty. An empty
/// value would otherwise make the current folder the home without a word,
/// and amem would write its index and ledger there.
pub(crate) fn home_arg(s: &str) -> Result<PathBuf, String> {
    if s.trim().is_empty() {
        return Err("the home is empty: pass --home DIR (or set AMEM_HOME to a folder, or unset it for ~/.amem)".into());
    }
    path_arg(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/ada".into()),
            "EXPORTS" => Some("/data/exports".into()),
            _ => None,
        }
    }

    #[test]
    fn tilde_and_variables() {
        let e = |s| expand_with(s, env).unwrap();
        assert_eq!(e("~"), PathBuf::from("/home/ada"));
        assert_eq!(e("~/Takeout/All.mbox"), PathBuf::from("/home/ada/Takeout/All.mbox"));
        assert_eq!(e("$EXPORTS/slack"), PathBuf::from("/data/exports/slack"));
        assert_eq!(e("${EXPORTS}/slack"), PathBuf::from("/data/exports/slack"));
        assert_eq!(e("$HOME/.amem"), PathBuf::from("/home/ada/.amem"));
        // Not at the start, `~` is an ordinary character, as in a shell.
        assert_eq!(e("a/~/b"), PathBuf::from("a/~/b"));
        assert_eq!(e("~bob/x"), PathBuf::from("~bob/x"));
        assert_eq!(e("plain/rel"), PathBuf::from("plain/rel"));
    }

    #[test]
    fn unset_variable_is_named() {
        let err = expand_with("$NOPE/x", env).unwrap_err();
        assert!(err.0.contains("$NOPE is not set"), "{}", err.0);
    }
}
