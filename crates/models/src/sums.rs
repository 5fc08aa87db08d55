//! The weights' checksums: every shipped file is checked against `weights/SHA256SUMS`
//! before it is read.

use crate::ModelError;
use sha2::{Digest as _, Sha256};

/// The recorded sha256 of `file` in a `SHA256SUMS` text (`<hex>  <name>` lines).
pub(crate) fn recorded_sha256<'a>(sums: &'a str, file: &str) -> Option<&'a str> {
    sums.lines().find_map(|line| {
        let (hex, name) = line.split_once(char::is_whitespace)?;
        (name.trim_start_matches([' ', '*']) == file).then_some(hex)
    })
}

fn check_sha256(bytes: &[u8], expected: &str, what: &str) -> Result<(), ModelError> {
    let found: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    if found.eq_ignore_ascii_case(expected) {
        Ok(())
    } else {
        Err(ModelError::Checksum { file: what.to_string(), expected: expected.to_string(), found })
    }
}

/// Check each `(name, bytes)` against the sha256 `sums` records for its name; a file with
/// no recorded sum is refused like a wrong one.
pub(crate) fn check_files(sums: &str, files: &[(&str, &[u8])]) -> Result<(), ModelError> {
    for &(name, bytes) in files {
        let expected = recorded_sha256(sums, name).ok_or_else(|| ModelError::Checksum {
            file: name.to_string(),
            expected: "(none recorded in SHA256SUMS)".to_string(),
            found: String::new(),
        })?;
        check_sha256(bytes, expected, name)?;
    }
    Ok(())
}
