//! The indexed wiki as the grounder's capture store (`amem_audit::capture::RecallStore`):
//! a document the grounder fetches from a loopback source is captured into the
//! wiki and found by the next local search, with the digest recall's evidence carries.

use amem_audit::capture::RecallStore;
use amem_grounding::testing::{LoopbackServer, Reply, Seen, fast_options as fast_opts, source_config as source, trust_list as grounding};
use amem_grounding::*;
use amem_recall::Recall;
use std::path::Path;
use std::sync::{Arc, Mutex};

const ATOM: &str = "application/atom+xml; charset=utf-8";

fn fixture(rel: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/grounding/tests/fixtures/http");
    std::fs::read(dir.join(rel)).expect("handmade fixture")
}

struct Home {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home");
    Home { _dir: dir, path }
}

#[tokio::test]
async fn recall_store_captures_are_found_by_the_next_local_search() {
    let body = Arc::new(Mutex::new(fixture("arxiv/handmade-one-entry.atom.xml")));
    let b2 = Arc::clone(&body);
    let server = LoopbackServer::start("127.0.0.1", Arc::new(move |_: &Seen| Reply::ok(ATOM, b2.lock().unwrap().clone()))).unwrap();
    let h = home();
    let cfg = grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]);
    let claim = "The arXiv API allows one request every three seconds";
    let store = Arc::new(RecallStore::open(&h.path, None).unwrap());
    assert!(store.with_wiki(|w| w.search(claim, 5)).unwrap().is_empty());
    let g = Grounder::new(&h.path, &cfg, store.clone(), fast_opts()).unwrap();
    let out = g.ground(claim).await;
    let item = out.items()[0].item.clone();
    let hits = store.with_wiki(|w| w.search(claim, 5)).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].item.0, item);
    // The digest the grounder reports is the one recall's evidence carries.
    assert_eq!(hits[0].item_digest, out.items()[0].item_digest);
    assert_eq!(hits[0].source_url.as_deref(), Some("http://arxiv.org/abs/2601.00001v1"));
    assert!(hits[0].quote.contains("three seconds"), "{}", hits[0].quote);
    assert_eq!(server.count(), 1);
    drop(g);

    // A changed document: the stale digest is the one earlier evidence cited.
    *body.lock().unwrap() =
        String::from_utf8(fixture("arxiv/handmade-one-entry.atom.xml")).unwrap().replace("three seconds", "five seconds").into_bytes();
    let mut opts = fast_opts();
    opts.refresh = true;
    let g = Grounder::new(&h.path, &cfg, store.clone(), opts).unwrap();
    let GroundOutcome::Captured { stale, items, .. } = g.ground(claim).await else { panic!("not captured") };
    assert_eq!(stale.len(), 1);
    assert_eq!((stale[0].old_item.as_str(), stale[0].old_digest), (item.as_str(), hits[0].item_digest));
    let new_hits = store.with_wiki(|w| w.search("arXiv API one request every five seconds", 5)).unwrap();
    assert!(new_hits.iter().any(|h| h.item.0 == items[0].item && h.item_digest == stale[0].new_digest), "{new_hits:?}");
}
