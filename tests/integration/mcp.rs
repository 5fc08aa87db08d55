//! `amem mcp serve` driven by a real MCP client: the official Python SDK
//! (`mcp`, installed by .ci/run) runs tests/mcp/client.py against the built
//! binary over stdio and over streamable HTTP, on a copy of examples/home
//! whose trust list is a loopback server replaying a recorded arXiv answer
//! (../shared/fixtures/http) and a handmade page. SKIPPED when python3's
//! `mcp` package or ../shared is absent.

use crate::util::{TestDir, copy_dir, repo_root, shared};
use amem_grounding::testing::{LoopbackServer, Reply, Seen};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn python_has_mcp() -> bool {
    Command::new("python3").args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"]).output().is_ok_and(|o| o.status.success())
}

/// The example home with its trust list pointed at `server`, and a browser
/// extension's origin allowed.
fn home_for(t: &TestDir, server: &LoopbackServer) {
    let example = repo_root().join("examples/home");
    for part in ["wiki", "exports"] {
        copy_dir(&example.join(part), &t.home().join(part));
    }
    let config = std::fs::read_to_string(example.join("config.toml")).unwrap();
    let trust = format!(
        "[grounding]\nenabled = true\ndefault_action = \"warn\"\n\n[[grounding.sources]]\nname = \"arxiv-replay\"\nurl_pattern = \"{}*\"\npriority = 1\nadapter = \"arxiv\"\nrate = \"50/s\"\n",
        server.url()
    );
    let config = config.replace("[grounding]\nenabled = false\ndefault_action = \"warn\"\n", &trust);
    assert!(config.contains("arxiv-replay"), "the example config changed shape: {config}");
    t.write("home/config.toml", format!("{config}\n[mcp]\nallowed_origins = [\"chrome-extension://amemtestextensionid\"]\n"));
}

/// A trust-list host: the recorded arXiv answer for a search naming 259
/// papers, an empty feed for anything else, a page at /page.html.
fn trust_server(shared: &Path) -> LoopbackServer {
    let recorded = std::fs::read(shared.join("fixtures/http/arxiv/query-testing-start0-max10-ok.atom.xml")).expect("recorded arXiv answer");
    let empty = std::fs::read(repo_root().join("crates/grounding/tests/fixtures/http/arxiv/handmade-zero.atom.xml")).unwrap();
    let page = std::fs::read(repo_root().join("crates/grounding/tests/fixtures/http/http/handmade-page.html")).unwrap();
    let handler = Arc::new(move |seen: &Seen| {
        if seen.target.starts_with("/page.html") {
            Reply::ok("text/html; charset=utf-8", page.clone())
        } else if seen.target.contains("259") {
            Reply::ok("application/atom+xml; charset=utf-8", recorded.clone())
        } else {
            Reply::ok("application/atom+xml; charset=utf-8", empty.clone())
        }
    });
    LoopbackServer::start("127.0.0.1", handler).unwrap()
}

fn drive(mode: &str) {
    let test = format!("mcp_{mode}_with_the_python_sdk");
    let Some(shared) = shared(&test) else { return };
    if !python_has_mcp() {
        eprintln!("SKIPPED {test}: python3 cannot import the mcp package (.ci/run installs it)");
        return;
    }
    let server = trust_server(&shared);
    let t = TestDir::new();
    home_for(&t, &server);
    let out = Command::new("python3")
        .arg(repo_root().join("tests/mcp/client.py"))
        .args(["--amem", env!("CARGO_BIN_EXE_amem"), "--mode", mode])
        .arg("--home")
        .arg(t.home())
        .args(["--trust-url", &server.url()])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "client.py --mode {mode} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("{stdout}");
}

#[test]
fn mcp_stdio_with_the_python_sdk() {
    drive("stdio");
}

#[test]
fn mcp_http_with_the_python_sdk() {
    drive("http");
}
