//! The CLI contract every command shares: help, usage errors, exit codes.

use crate::util::*;

#[test]
fn help_on_every_subcommand() {
    let t = TestDir::new();
    let top = ok(t.amem().arg("--help"));
    for sub in [
        "audit",
        "gate",
        "inspect",
        "drift",
        "import",
        "index",
        "recall",
        "open",
        "capture",
        "factcheck",
        "verify",
        "grounding",
        "unverified",
        "pool",
        "bench",
        "eval",
        "completions",
        "man",
    ] {
        assert!(top.contains(sub), "top-level help lists {sub}");
        let h = ok(t.amem().args([sub, "--help"]));
        assert!(h.contains("Usage:"), "{sub} --help prints usage");
    }
}

#[test]
fn unknown_flag_is_usage_error() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "--bogus"]), 2);
    assert!(err.contains("--bogus"));
}

#[test]
fn import_unknown_kind_is_usage_error() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "fax", "x"]), 2);
    assert!(err.contains("unknown kind"), "{err}");
}

#[test]
fn import_missing_path_names_it() {
    let t = TestDir::new();
    let (_, err) = code(t.amem().args(["import", "gmail", "nope.mbox"]), 1);
    assert!(err.contains("nope.mbox") && err.contains("does not exist"), "{err}");
}

#[test]
fn bad_since_is_explained() {
    let t = TestDir::new();
    let p = t.write("a.mbox", "");
    let (_, err) = code(t.amem().args(["import", "gmail"]).arg(&p).args(["--since", "last-month"]), 2);
    assert!(err.contains("last-week") && err.contains("7d"), "error lists accepted forms: {err}");
}
