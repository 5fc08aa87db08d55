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

/// A clap value parser for path arguments.
pub(crate) fn path_arg(s: &str) -> Result<PathBuf, String> {
    expand(s).map_err(|e| e.0)
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
