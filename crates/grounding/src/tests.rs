//! Loopback tests of the whole grounding path: rate limits measured at the
//! server, host restriction, capture back, stale revisions, negative cache,
//! offline mode, the adapters against recorded responses.

use crate::testing::{LoopbackServer, Reply, Seen, fast_options as fast_opts, routes, source_config as source, trust_list as grounding};
use crate::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/http").join(rel)).expect("handmade fixture")
}

fn shared_fixture(test: &str, rel: &str) -> Option<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/http");
    if !dir.is_dir() {
        eprintln!("SKIPPED {test}: ../shared is absent");
        return None;
    }
    Some(std::fs::read(dir.join(rel)).expect("recorded fixture"))
}

const ATOM: &str = "application/atom+xml; charset=utf-8";
const JSON: &str = "application/json; charset=utf-8";

struct Home {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home");
    Home { _dir: dir, path }
}

fn grounder(h: &Home, cfg: &GroundingConfig, opts: GrounderOptions) -> Grounder {
    Grounder::new(&h.path, cfg, Arc::new(DirStore::in_home(&h.path)), opts).unwrap()
}

/// The minimum gap between consecutive arrival times.
fn min_gap(mut at: Vec<std::time::Instant>) -> Duration {
    at.sort();
    at.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(Duration::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_claims_never_exceed_any_limit() {
    let arxiv =
        LoopbackServer::start("127.0.0.1", routes(vec![("/api/query", Reply::ok(ATOM, fixture("arxiv/handmade-zero.atom.xml")))])).unwrap();
    let wiki = LoopbackServer::start(
        "127.0.0.2",
        routes(vec![("list=search", Reply::ok(JSON, r#"{"batchcomplete":true,"query":{"searchinfo":{"totalhits":0},"search":[]}}"#))]),
    )
    .unwrap();
    let h = home();
    let cfg = grounding(vec![
        source("arxiv", &arxiv, AdapterKind::Arxiv, "1/100ms", 1),
        source("wiki", &wiki, AdapterKind::Wikipedia, "1/50ms", 2),
    ]);
    let mut opts = fast_opts();
    opts.client.global_rate = "1/40ms".parse().unwrap();
    let g = Arc::new(grounder(&h, &cfg, opts));
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for i in 0..50 {
        let g = Arc::clone(&g);
        tasks.push(tokio::spawn(async move { g.ground(&format!("Species Zebra{i} migrates {i} kilometres each spring")).await }));
    }
    for t in tasks {
        let out = t.await.unwrap();
        assert_eq!(out, GroundOutcome::NoEvidence { searched: vec!["arxiv".into(), "wiki".into()] });
    }
    let (a, w) = (arxiv.requests(), wiki.requests());
    assert_eq!((a.len(), w.len()), (50, 50));
    // Per host: the gap the server sees is never below the period (no slack:
    // the client spaces each request from the previous answer).
    let gap_a = min_gap(a.iter().map(|s| s.at).collect());
    let gap_w = min_gap(w.iter().map(|s| s.at).collect());
    assert!(gap_a >= Duration::from_millis(100), "arxiv gap {gap_a:?}");
    assert!(gap_w >= Duration::from_millis(50), "wiki gap {gap_w:?}");
    // Global cap, 1 per 40 ms across hosts: sends are spaced exactly, arrivals
    // at two different servers only up to scheduling slack, so count per
    // window: never more than 25 (+1 for a window edge) in any second.
    let mut all: Vec<_> = a.iter().chain(&w).map(|s| s.at).collect();
    all.sort();
    let busiest = (0..all.len()).map(|i| all[i..].iter().take_while(|t| **t - all[i] < Duration::from_secs(1)).count()).max().unwrap_or(0);
    assert!(busiest <= 26, "{busiest} requests within one second under a 25/s global cap");
    // One connection at a time per host, as both services ask.
    assert_eq!((arxiv.max_in_flight(), wiki.max_in_flight()), (1, 1));
    // 50 arXiv requests at one per 100 ms cannot take less than 4.9 s.
    assert!(started.elapsed() >= Duration::from_millis(4_900));
    // Every request is in the log, with the claim's hash and never its text.
    let log = OutboundLog::in_home(&h.path).read_all().unwrap();
    assert_eq!(log.len(), 100);
    let text = std::fs::read_to_string(h.path.join("grounding.log")).unwrap();
    assert!(!text.contains("Zebra") && !text.contains("kilometres"));
    assert!(log.iter().all(|l| l.status == "200" && l.claim_sha256.len() == 64 && l.bytes > 0));
    let hosts: std::collections::BTreeSet<_> = log.iter().map(|l| (l.host.clone(), l.adapter.clone())).collect();
    assert_eq!(hosts.len(), 2);
}

#[tokio::test]
async fn retry_after_and_maxlag_are_honoured() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h2 = Arc::clone(&hits);
    let body = fixture("arxiv/handmade-one-entry.atom.xml");
    let server = LoopbackServer::start(
        "127.0.0.1",
        Arc::new(move |_: &Seen| match h2.fetch_add(1, Ordering::SeqCst) {
            0 => Reply::status(429).header("Retry-After", "1"),
            1 => Reply::status(503),
            _ => Reply::ok(ATOM, body.clone()),
        }),
    )
    .unwrap();
    let h = home();
    let mut opts = fast_opts();
    opts.client.max_retries = 3;
    let g = grounder(&h, &grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]), opts);
    let out = g.ground("Polite crawlers measure arXiv limits").await;
    assert_eq!(out.items().len(), 1, "{out:?}");
    let seen = server.requests();
    assert_eq!(seen.len(), 3);
    assert!(seen[1].at - seen[0].at >= Duration::from_millis(990), "Retry-After: 1 not honoured: {:?}", seen[1].at - seen[0].at);
    let statuses: Vec<String> = OutboundLog::in_home(&h.path).read_all().unwrap().into_iter().map(|l| l.status).collect();
    assert_eq!(statuses, ["429", "503", "200"]);

    // MediaWiki's maxlag arrives on HTTP 200 with a header and Retry-After.
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = Arc::clone(&n);
    let wiki = LoopbackServer::start(
        "127.0.0.1",
        Arc::new(move |s: &Seen| {
            if s.target.contains("list=search") && n2.fetch_add(1, Ordering::SeqCst) == 0 {
                Reply::ok(JSON, fixture("wikipedia/handmade-maxlag.json"))
                    .header("MediaWiki-API-Error", "maxlag")
                    .header("Retry-After", "0")
            } else if s.target.contains("list=search") {
                Reply::ok(JSON, fixture("wikipedia/handmade-search-one.json"))
            } else {
                Reply::ok(JSON, fixture("wikipedia/handmade-extract-lyon.json"))
            }
        }),
    )
    .unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![source("wiki", &wiki, AdapterKind::Wikipedia, "100/s", 1)]), fast_opts());
    let out = g.ground("Lyon had 522,250 inhabitants in 2021").await;
    assert_eq!(out.items().len(), 1, "{out:?}");
    assert_eq!(wiki.count(), 3);
    assert!(wiki.requests().iter().all(|s| s.target.contains("maxlag=5")));
}

#[tokio::test]
async fn a_long_retry_after_makes_the_source_unavailable() {
    let server = LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply::status(503).header("Retry-After", "3600"))])).unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]), fast_opts());
    match g.ground("Polite crawlers measure arXiv limits").await {
        GroundOutcome::Unavailable { reasons, searched } => {
            assert!(searched.is_empty());
            assert_eq!(reasons[0].error, Some(FetchError::RetryAfterTooLong { host: url_host(&server), seconds: 3600 }));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.count(), 1);
}

fn url_host(s: &LoopbackServer) -> String {
    s.addr().to_string()
}

#[tokio::test]
async fn unreachable_source_is_unavailable_never_no_evidence() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut src = SourceConfig {
        name: "down".into(),
        url_pattern: format!("http://127.0.0.1:{port}/*").parse().unwrap(),
        priority: 1,
        adapter: AdapterKind::Arxiv,
        rate: Some("100/s".parse().unwrap()),
        search_url: None,
    };
    let empty =
        LoopbackServer::start("127.0.0.2", routes(vec![("/api/query", Reply::ok(ATOM, fixture("arxiv/handmade-zero.atom.xml")))])).unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![src.clone(), source("empty", &empty, AdapterKind::Arxiv, "100/s", 2)]), fast_opts());
    match g.ground("Polite crawlers measure arXiv limits").await {
        GroundOutcome::Unavailable { reasons, searched } => {
            assert_eq!(searched, ["empty"]);
            assert_eq!(reasons.len(), 1);
            assert_eq!(reasons[0].source, "down");
            // Two refused connections in a row open the host's circuit (ClientOptions::circuit_failures).
            assert!(matches!(reasons[0].error, Some(FetchError::Connect { attempts: 2, .. })), "{reasons:?}");
        }
        other => panic!("{other:?}"),
    }
    // And alone: still unavailable, and not cached as a negative answer.
    src.name = "down2".into();
    let g = grounder(&h, &grounding(vec![src]), fast_opts());
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits").await, GroundOutcome::Unavailable { .. }));
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits").await, GroundOutcome::Unavailable { .. }));
}

#[tokio::test]
async fn only_listed_hosts_are_contacted() {
    let unlisted = LoopbackServer::start("127.0.0.2", routes(vec![("/", Reply::ok("text/html", "<p>should never be read</p>"))])).unwrap();
    let third = LoopbackServer::start("127.0.0.3", routes(vec![("/", Reply::ok("text/html", "<p>never</p>"))])).unwrap();
    let off = format!("{}landing", unlisted.url());
    let listed = LoopbackServer::start(
        "127.0.0.1",
        routes(vec![
            ("/search", Reply::redirect(&off)),
            ("/ok", Reply::redirect("/final")),
            ("/final", Reply::ok("text/html; charset=utf-8", fixture("http/handmade-page.html"))),
        ]),
    )
    .unwrap();
    let mk = |name: &str, path: &str| SourceConfig {
        name: name.into(),
        url_pattern: format!("{}*", listed.url()).parse().unwrap(),
        priority: 1,
        adapter: AdapterKind::Http,
        rate: Some("100/s".parse().unwrap()),
        search_url: Some(format!("{}{path}?q={{query}}", listed.url())),
    };
    let h = home();
    // A claim carrying URLs of unlisted hosts: they are neither fetched nor sent as terms.
    let claim = format!("The Eiffel Tower is 330 metres tall, see {}x and {}y?z=1", unlisted.url(), third.url());
    let g = grounder(&h, &grounding(vec![mk("redirecting", "search")]), fast_opts());
    match g.ground(&claim).await {
        GroundOutcome::Unavailable { reasons, .. } => {
            assert!(matches!(&reasons[0].error, Some(FetchError::RefusedRedirect { to, .. }) if to.contains("127.0.0.2")), "{reasons:?}");
            assert!(reasons[0].reason.contains("refused redirect"), "{}", reasons[0].reason);
        }
        other => panic!("{other:?}"),
    }
    // An on-list redirect is followed.
    let g = grounder(&h, &grounding(vec![mk("following", "ok")]), fast_opts());
    let out = g.ground(&claim).await;
    assert_eq!(out.items().len(), 1, "{out:?}");
    assert!(out.items()[0].text.contains("330 metres"));
    // Direct requests off the list are refused before anything is sent.
    let client = HttpClient::build(&[mk("x", "search")], ClientOptions::default(), None).unwrap();
    let refused = client.get(reqwest::Url::parse(&off).unwrap(), AdapterKind::Http, "00").await;
    assert!(matches!(refused, Err(FetchError::OffList { .. })), "{refused:?}");
    let https_port = client.get(reqwest::Url::parse(&listed.url().replace("http:", "https:")).unwrap(), AdapterKind::Http, "00").await;
    assert!(matches!(https_port, Err(FetchError::OffList { .. })), "{https_port:?}");

    assert_eq!(unlisted.count(), 0, "a request reached an unlisted host");
    assert_eq!(third.count(), 0, "a URL inside the claim was fetched");
    let listed_seen = listed.requests();
    assert!(listed_seen.iter().all(|s| !s.target.contains("127.0.0") && !s.target.contains("landing")), "{listed_seen:?}");
    assert!(listed_seen.iter().all(|s| s.header("user-agent").is_some_and(|u| u.starts_with("amem/"))));
    let log = OutboundLog::in_home(&h.path).read_all().unwrap();
    assert!(log.iter().any(|l| l.status == "refused_redirect"), "{log:?}");
}

fn captured_files(h: &Home) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(h.path.join("wiki/captured"))
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[tokio::test]
async fn captured_evidence_makes_the_next_run_local_and_changes_make_it_stale() {
    let body = Arc::new(Mutex::new(fixture("arxiv/handmade-one-entry.atom.xml")));
    let b2 = Arc::clone(&body);
    let server = LoopbackServer::start("127.0.0.1", Arc::new(move |_: &Seen| Reply::ok(ATOM, b2.lock().unwrap().clone()))).unwrap();
    let h = home();
    let cfg = grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]);
    let claim = "The arXiv API allows one request every three seconds";
    let first = grounder(&h, &cfg, fast_opts()).ground(claim).await;
    let GroundOutcome::Captured { items, stale, cached: false, .. } = &first else { panic!("{first:?}") };
    assert!(stale.is_empty());
    assert_eq!(items[0].source_url, "http://arxiv.org/abs/2601.00001v1");
    let files = captured_files(&h);
    assert_eq!(files, [format!("{}.md", items[0].item)]);
    let text = std::fs::read_to_string(h.path.join("wiki/captured").join(&files[0])).unwrap();
    assert!(text.starts_with("---\ntitle: Rates & limits: a <study>\nsource: http://arxiv.org/abs/2601.00001v1\nretrieved_at: "), "{text}");
    assert!(text.contains("\ndigest: ") && text.contains("one request every three seconds"));
    assert_eq!(server.count(), 1);

    // Next run, same home: a local hit, zero requests.
    let second = grounder(&h, &cfg, fast_opts());
    let out = second.ground(claim).await;
    assert!(matches!(&out, GroundOutcome::Captured { cached: true, items: it, .. } if it == items), "{out:?}");
    assert_eq!((server.count(), second.requests_sent()), (1, 0));

    // The source changes its abstract: a refresh captures a new revision and
    // names the old item as stale.
    *body.lock().unwrap() =
        String::from_utf8(fixture("arxiv/handmade-one-entry.atom.xml")).unwrap().replace("three seconds", "five seconds").into_bytes();
    let mut opts = fast_opts();
    opts.refresh = true;
    let third = grounder(&h, &cfg, opts.clone()).ground(claim).await;
    let GroundOutcome::Captured { items: new_items, stale, cached: false, .. } = &third else { panic!("{third:?}") };
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].old_item, items[0].item);
    assert_eq!(stale[0].old_digest, items[0].item_digest);
    assert_eq!(stale[0].new_digest, new_items[0].item_digest);
    assert_eq!(stale[0].new_item, new_items[0].item);
    assert_ne!(stale[0].new_digest, stale[0].old_digest);
    assert_eq!(captured_files(&h).len(), 2);
    // Unchanged on a further refresh: no new revision, nothing stale.
    let fourth = grounder(&h, &cfg, opts).ground(claim).await;
    assert!(matches!(&fourth, GroundOutcome::Captured { stale, .. } if stale.is_empty()), "{fourth:?}");
    assert_eq!(captured_files(&h).len(), 2);
}

#[tokio::test]
async fn negative_results_are_cached_until_their_ttl() {
    let server =
        LoopbackServer::start("127.0.0.1", routes(vec![("/api/query", Reply::ok(ATOM, fixture("arxiv/handmade-zero.atom.xml")))])).unwrap();
    let h = home();
    let cfg = grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]);
    let claim = "Unicorns were catalogued by Zyxwv in 1802";
    for _ in 0..2 {
        assert_eq!(grounder(&h, &cfg, fast_opts()).ground(claim).await, GroundOutcome::NoEvidence { searched: vec!["arxiv".into()] });
    }
    assert_eq!(server.count(), 1);
    let mut expired = fast_opts();
    expired.negative_ttl = Duration::ZERO;
    let g = grounder(&h, &cfg, expired);
    g.ground("Another claim about Qwerty in 1700").await;
    g.ground("Another claim about Qwerty in 1700").await;
    assert_eq!(server.count(), 3);
    let cache = std::fs::read_to_string(h.path.join("grounding-cache.json")).unwrap();
    assert!(!cache.contains("Unicorns") && !cache.contains("Zyxwv"), "claim text leaked into the cache");
}

#[tokio::test]
async fn offline_makes_zero_requests() {
    let server =
        LoopbackServer::start("127.0.0.1", routes(vec![("/api/query", Reply::ok(ATOM, fixture("arxiv/handmade-one-entry.atom.xml")))]))
            .unwrap();
    let h = home();
    let cfg = grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]);
    let mut off = fast_opts();
    off.offline = true;
    let g = grounder(&h, &cfg, off.clone());
    match g.ground("The arXiv API allows one request every three seconds").await {
        GroundOutcome::Unavailable { reasons, .. } => assert!(reasons[0].reason.starts_with("offline")),
        other => panic!("{other:?}"),
    }
    assert_eq!((server.count(), g.requests_sent()), (0, 0));
    assert!(!h.path.join("grounding.log").exists());
    // Online once, then offline answers from the capture.
    grounder(&h, &cfg, fast_opts()).ground("The arXiv API allows one request every three seconds").await;
    assert_eq!(server.count(), 1);
    let out = grounder(&h, &cfg, off).ground("The arXiv API allows one request every three seconds").await;
    assert!(matches!(out, GroundOutcome::Captured { cached: true, .. }), "{out:?}");
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn disabled_or_empty_trust_list_asks_nobody() {
    let server =
        LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply::ok(ATOM, fixture("arxiv/handmade-one-entry.atom.xml")))])).unwrap();
    let h = home();
    let mut cfg = grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]);
    cfg.enabled = false;
    assert_eq!(grounder(&h, &cfg, fast_opts()).ground("arXiv rate limits").await, GroundOutcome::NoEvidence { searched: vec![] });
    assert_eq!(
        grounder(&h, &grounding(vec![]), fast_opts()).ground("arXiv rate limits").await,
        GroundOutcome::NoEvidence { searched: vec![] }
    );
    assert_eq!(server.count(), 0);
}

#[tokio::test]
async fn arxiv_error_feed_is_an_api_error() {
    let server =
        LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply { status: 400, ..Reply::ok(ATOM, ERROR_FEED.as_bytes().to_vec()) })]))
            .unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]), fast_opts());
    match g.ground("arXiv rate limits").await {
        GroundOutcome::Unavailable { reasons, .. } => {
            assert!(matches!(&reasons[0].error, Some(FetchError::Api { code, .. }) if code == "incorrect_id_format_for_abc"), "{reasons:?}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.count(), 1, "a 400 is not retried");
}

const ERROR_FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>https://arxiv.org/api/errors#incorrect_id_format_for_abc</id><title>Error</title><summary>incorrect id format for abc</summary></entry></feed>"#;

#[tokio::test]
async fn recorded_arxiv_and_wikipedia_answers_replayed() {
    let Some(arxiv_body) = shared_fixture("recorded_arxiv_and_wikipedia_answers_replayed", "arxiv/query-testing-start0-max10-ok.atom.xml")
    else {
        return;
    };
    let Some(search) =
        shared_fixture("recorded_arxiv_and_wikipedia_answers_replayed", "wikipedia-action/search-python-programming-ok.json")
    else {
        return;
    };
    let Some(extracts) = shared_fixture(
        "recorded_arxiv_and_wikipedia_answers_replayed",
        "wikipedia-action/extracts-python-programming-language-normalized-ok.json",
    ) else {
        return;
    };
    let Some(summary) =
        shared_fixture("recorded_arxiv_and_wikipedia_answers_replayed", "wikipedia-rest/summary-fermats-last-theorem-ok.json")
    else {
        return;
    };
    let arxiv = LoopbackServer::start("127.0.0.1", routes(vec![("/api/query", Reply::ok(ATOM, arxiv_body))])).unwrap();
    let wiki = LoopbackServer::start(
        "127.0.0.2",
        routes(vec![
            ("list=search", Reply::ok(JSON, search)),
            ("prop=extracts", Reply::ok(JSON, extracts)),
            ("/api/rest_v1/page/summary/", Reply::ok(JSON, summary)),
        ]),
    )
    .unwrap();
    let h = home();
    let a = grounder(&h, &grounding(vec![source("arxiv", &arxiv, AdapterKind::Arxiv, "100/s", 1)]), fast_opts());
    let out = a.ground("Testing is studied in software engineering").await;
    assert_eq!(out.items().len(), adapters::MAX_DOCS, "{out:?}");
    assert!(out.items().iter().all(|i| i.source_url.contains("arxiv.org/abs/") && i.text.starts_with("Authors: ")));
    let w = grounder(&h, &grounding(vec![source("wiki", &wiki, AdapterKind::Wikipedia, "100/s", 1)]), fast_opts());
    let out = w.ground("Python is a programming language created by Guido van Rossum").await;
    let titles: Vec<&str> = out.items().iter().map(|i| i.title.as_str()).collect();
    assert!(titles.contains(&"Python (programming language)"), "{titles:?}");
    // Pages without an extract fall back to the REST summary endpoint.
    assert!(wiki.requests().iter().any(|s| s.target.starts_with("/api/rest_v1/page/summary/")));
    assert!(
        out.items().iter().all(|i| i.source_url.starts_with(&wiki.url()) || i.source_url.starts_with("https://en.wikipedia.org/wiki/"))
    );
}

mod never_panic {
    use crate::adapters::{arxiv, html, http, wikipedia};
    use crate::config::parse_grounding_document;
    use crate::terms::{MAX_TERMS, key_terms};
    use proptest::prelude::*;

    /// A two-source trust list, the shape `amem grounding init --opinionated` writes.
    const TRUST_LIST: &str = "[grounding]\nenabled = true\ndefault_action = \"warn\"\n\n[[grounding.sources]]\nname = \"wikipedia-en\"\nurl_pattern = \"https://en.wikipedia.org/*\"\npriority = 1\nadapter = \"wikipedia\"\nrate = \"3/s\"\n\n[[grounding.sources]]\nname = \"arxiv\"\nurl_pattern = \"https://export.arxiv.org/api/*\"\npriority = 2\nadapter = \"arxiv\"\nrate = \"1/3s\"\n";

    const FEED: &str = include_str!("../tests/fixtures/http/arxiv/handmade-one-entry.atom.xml");

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn atom_parser_on_truncated_and_arbitrary_input(cut in 0usize..FEED.len(), junk in ".{0,64}") {
            let mut s = FEED.get(..cut).unwrap_or("").to_string();
            s.push_str(&junk);
            let _ = arxiv::parse_feed(&s);
            let _ = arxiv::parse_feed(&junk);
        }

        #[test]
        fn config_parser_on_truncated_and_arbitrary_input(cut in 0usize..TRUST_LIST.len(), junk in ".{0,64}") {
            let mut s = TRUST_LIST.get(..cut).unwrap_or("").to_string();
            s.push_str(&junk);
            if let Err(crate::Error::Config { line, column, .. }) = parse_grounding_document(&s) {
                prop_assert!(line >= 1 && column >= 1);
                prop_assert!(line <= s.lines().count().max(1) + 1);
            }
        }

        #[test]
        fn key_terms_are_bounded_and_never_urls(claim in ".{0,200}", url in "(https?://|www\\.)[a-z0-9./?=&]{1,30}") {
            let t = key_terms(&format!("{claim} {url} {claim}"));
            prop_assert!(t.len() <= MAX_TERMS);
            prop_assert!(t.iter().all(|w| !w.contains("://") && !w.is_empty()));
        }

        #[test]
        fn page_text_extraction(body in proptest::collection::vec(any::<u8>(), 0..256), ct in "(text/html|application/json|text/plain|image/png|)") {
            let _ = http::extract("http://127.0.0.1/", &ct, &body);
            let s = String::from_utf8_lossy(&body);
            let _ = html::to_text(&s);
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body) {
                let _ = (wikipedia::parse_search(&v), wikipedia::parse_extracts(&v), wikipedia::parse_summary(&v), wikipedia::api_error(&v));
            }
        }
    }
}

/// A gzip member holding `data` in one stored (uncompressed) deflate block
/// (RFC 1951 §3.2.4, RFC 1952): enough to prove the client asks for and
/// decodes gzip without a compressor in the test.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    assert!(data.len() <= 0xFFFF);
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    let crc = !crc;
    let len = data.len() as u16;
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 0x01];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[tokio::test]
async fn gzip_answers_are_asked_for_and_decoded() {
    let page = fixture("http/handmade-page.html");
    let server = LoopbackServer::start(
        "127.0.0.1",
        routes(vec![("/search", Reply::ok("text/html; charset=utf-8", gzip_stored(&page)).header("Content-Encoding", "gzip"))]),
    )
    .unwrap();
    let src = SourceConfig {
        name: "site".into(),
        url_pattern: format!("{}search*", server.url()).parse().unwrap(),
        priority: 1,
        adapter: AdapterKind::Http,
        rate: Some("100/s".parse().unwrap()),
        search_url: Some(format!("{}search?q={{query}}", server.url())),
    };
    let h = home();
    let out = grounder(&h, &grounding(vec![src]), fast_opts()).ground("The Eiffel Tower is 330 metres tall").await;
    assert_eq!(out.items().len(), 1, "{out:?}");
    // Exactly the page's text: an undecoded stored-block body would also
    // hold the sentence, but with the gzip header and trailer around it.
    assert_eq!(out.items()[0].text, "Facts\nThe Eiffel Tower is 330 metres tall.\nIt was completed in 1889.");
    let seen = server.requests();
    assert!(seen[0].header("accept-encoding").is_some_and(|v| v.contains("gzip")), "{seen:?}");
    // The query carries the key terms, not the claim verbatim.
    assert!(seen[0].target.starts_with("/search?q=") && seen[0].target.contains("Eiffel"), "{}", seen[0].target);
}

// ---- Issue 16: redirects, Retry-After and dead hosts, measured at loopback servers.

/// A generic-http source on `server` whose search URL is `path`.
fn http_source(name: &str, server: &LoopbackServer, path: &str, rate: &str) -> SourceConfig {
    SourceConfig {
        name: name.into(),
        url_pattern: format!("{}*", server.url()).parse().unwrap(),
        priority: 1,
        adapter: AdapterKind::Http,
        rate: Some(rate.parse().unwrap()),
        search_url: Some(format!("{}{path}?q={{query}}", server.url())),
    }
}

/// A listed source with no search URL of its own: only reached by redirects.
fn redirect_target_source(name: &str, server: &LoopbackServer, rate: &str) -> SourceConfig {
    SourceConfig { priority: 9, ..http_source(name, server, "unused", rate) }
}

const PAGE: &str = "text/html; charset=utf-8";

/// Probe case "redirect chain": five 302s on one host at 1 per 100 ms. Each
/// hop is a request through the host's limiter and a line of the log.
#[tokio::test]
async fn r16_redirect_hops_are_limited() {
    let page = fixture("http/handmade-page.html");
    let server = LoopbackServer::start(
        "127.0.0.1",
        routes(vec![
            ("/search", Reply::redirect("/hop1")),
            ("/hop1", Reply::redirect("/hop2")),
            ("/hop2", Reply::redirect("/hop3")),
            ("/hop3", Reply::redirect("/hop4")),
            ("/hop4", Reply::redirect("/final")),
            ("/final", Reply::ok(PAGE, page)),
        ]),
    )
    .unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![http_source("chain", &server, "search", "1/100ms")]), fast_opts());
    let out = g.ground("The Eiffel Tower is 330 metres tall").await;
    assert_eq!(out.items().len(), 1, "{out:?}");
    let seen = server.requests();
    assert_eq!(seen.len(), 6);
    let gap = min_gap(seen.iter().map(|s| s.at).collect());
    assert!(gap >= Duration::from_millis(100), "redirect hops {gap:?} apart under a 1/100ms limit");
    let log = OutboundLog::in_home(&h.path).read_all().unwrap();
    let statuses: Vec<&str> = log.iter().map(|l| l.status.as_str()).collect();
    assert_eq!(statuses, ["302", "302", "302", "302", "302", "200"]);

    // Six redirects are one too many: refused after the fifth hop is followed.
    let looping = LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply::redirect("/again"))])).unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![http_source("loop", &looping, "search", "100/s")]), fast_opts());
    match g.ground("The Eiffel Tower is 330 metres tall").await {
        GroundOutcome::Unavailable { reasons, .. } => {
            assert!(matches!(reasons[0].error, Some(FetchError::TooManyRedirects { hops: 5, .. })), "{reasons:?}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(looping.count(), 6);
}

/// Probe case "cross-host redirect": host A (fast) redirects to host B (1
/// per 200 ms). B's requests are spaced by B's limit and logged under B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r16_cross_host_redirect_goes_through_the_target_hosts_limiter() {
    let page = fixture("http/handmade-page.html");
    let b = LoopbackServer::start("127.0.0.2", routes(vec![("/landing", Reply::ok(PAGE, page))])).unwrap();
    let a = LoopbackServer::start("127.0.0.1", routes(vec![("/search", Reply::redirect(&format!("{}landing", b.url())))])).unwrap();
    let h = home();
    let cfg = grounding(vec![http_source("a", &a, "search", "100/s"), redirect_target_source("b", &b, "1/200ms")]);
    let g = Arc::new(grounder(&h, &cfg, fast_opts()));
    let mut tasks = Vec::new();
    for i in 0..5 {
        let g = Arc::clone(&g);
        tasks.push(tokio::spawn(async move { g.ground(&format!("The Eiffel Tower{i} is 330 metres tall")).await }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap().items().len(), 1);
    }
    assert_eq!((a.count(), b.count()), (5, 5));
    let gap = min_gap(b.requests().iter().map(|s| s.at).collect());
    assert!(gap >= Duration::from_millis(200), "host B saw requests {gap:?} apart under its 1/200ms limit");
    let log = OutboundLog::in_home(&h.path).read_all().unwrap();
    let at_b = log.iter().filter(|l| l.host == b.addr().to_string()).count();
    let at_a = log.iter().filter(|l| l.host == a.addr().to_string()).count();
    assert_eq!((at_a, at_b), (5, 5), "{log:?}");
    assert!(log.iter().filter(|l| l.host == b.addr().to_string()).all(|l| l.status == "200"));
}

/// Probe case "long Retry-After": `429 Retry-After: 500` opens the host's
/// circuit for the whole run: later claims send nothing and are reported
/// unavailable, never "no evidence".
#[tokio::test]
async fn r16_long_retry_after_opens_the_circuit_for_every_claim() {
    let server = LoopbackServer::start("127.0.0.1", routes(vec![("/", Reply::status(429).header("Retry-After", "500"))])).unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]), fast_opts());
    let started = std::time::Instant::now();
    for i in 0..20 {
        match g.ground(&format!("Polite crawlers measure arXiv limits{i}")).await {
            GroundOutcome::Unavailable { reasons, .. } if i == 0 => {
                assert!(matches!(reasons[0].error, Some(FetchError::RetryAfterTooLong { seconds: 500, .. })), "{reasons:?}")
            }
            GroundOutcome::Unavailable { reasons, .. } => {
                assert!(
                    matches!(&reasons[0].error, Some(FetchError::CircuitOpen { seconds, .. }) if (490..=500).contains(seconds)),
                    "{reasons:?}"
                );
                assert!(reasons[0].reason.contains("circuit open"), "{}", reasons[0].reason);
            }
            other => panic!("claim {i}: {other:?}"),
        }
    }
    assert_eq!(server.count(), 1, "only the first claim asked");
    assert!(started.elapsed() < Duration::from_secs(5));
    let log = OutboundLog::in_home(&h.path).read_all().unwrap();
    assert_eq!(log.iter().filter(|l| l.status == "circuit_open").count(), 19);
}

/// A short `Retry-After` holds every request to the host, whichever claim
/// sends it next.
#[tokio::test]
async fn r16_short_retry_after_holds_the_next_claim_too() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h2 = Arc::clone(&hits);
    let body = fixture("arxiv/handmade-zero.atom.xml");
    let server = LoopbackServer::start(
        "127.0.0.1",
        Arc::new(move |_: &Seen| match h2.fetch_add(1, Ordering::SeqCst) {
            0 => Reply::status(429).header("Retry-After", "1"),
            _ => Reply::ok(ATOM, body.clone()),
        }),
    )
    .unwrap();
    let h = home();
    let mut opts = fast_opts();
    opts.client.max_retries = 0;
    let g = grounder(&h, &grounding(vec![source("arxiv", &server, AdapterKind::Arxiv, "100/s", 1)]), opts);
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits").await, GroundOutcome::Unavailable { .. }));
    // The second claim has no retries of its own to spend: it still waits out the second.
    assert!(matches!(g.ground("Another claim about arXiv limits").await, GroundOutcome::NoEvidence { .. }));
    let seen = server.requests();
    assert_eq!(seen.len(), 2);
    assert!(seen[1].at - seen[0].at >= Duration::from_millis(990), "{:?}", seen[1].at - seen[0].at);
}

/// Probe case "dead host": a host that accepts and never answers. Two
/// time-outs open its circuit; the other claims cost nothing and are all
/// "source unavailable". When the back-off expires one probe is let
/// through, and a host that answers again closes the circuit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r16_dead_host_opens_a_circuit_shared_by_every_claim() {
    let answering = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let a2 = Arc::clone(&answering);
    let body = fixture("arxiv/handmade-zero.atom.xml");
    let server = LoopbackServer::start(
        "127.0.0.1",
        Arc::new(move |_: &Seen| if a2.load(Ordering::SeqCst) { Reply::ok(ATOM, body.clone()) } else { Reply::never() }),
    )
    .unwrap();
    let h = home();
    let mut opts = fast_opts();
    opts.client.timeout = Duration::from_millis(200);
    opts.client.max_retries = 3;
    opts.client.circuit_backoff = Duration::from_millis(600);
    let g = Arc::new(grounder(&h, &grounding(vec![source("dead", &server, AdapterKind::Arxiv, "100/s", 1)]), opts));
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for i in 0..30 {
        let g = Arc::clone(&g);
        tasks.push(tokio::spawn(async move { g.ground(&format!("Polite crawlers measure arXiv limits{i}")).await }));
    }
    let mut circuit = 0;
    for t in tasks {
        match t.await.unwrap() {
            GroundOutcome::Unavailable { reasons, .. } => {
                circuit += usize::from(matches!(reasons[0].error, Some(FetchError::CircuitOpen { .. })));
            }
            other => panic!("{other:?}"),
        }
    }
    // Without the circuit: 30 claims × 4 tries × 200 ms, one connection at a time = 24 s.
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(server.count(), 2, "two time-outs, then nothing");
    assert_eq!(circuit, 29);
    // After the back-off: one probe, which fails and reopens the circuit for twice as long.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits again").await, GroundOutcome::Unavailable { .. }));
    assert_eq!(server.count(), 3);
    match g.ground("Polite crawlers measure arXiv limits once more").await {
        GroundOutcome::Unavailable { reasons, .. } => assert!(
            matches!(&reasons[0].error, Some(FetchError::CircuitOpen { seconds: 2, why, .. }) if why.contains("timed out")),
            "{reasons:?}"
        ),
        other => panic!("{other:?}"),
    }
    // The host comes back: after the doubled back-off the probe is answered and the circuit closes.
    answering.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits at last").await, GroundOutcome::NoEvidence { .. }));
    assert!(matches!(g.ground("Polite crawlers measure arXiv limits after that").await, GroundOutcome::NoEvidence { .. }));
    assert_eq!(server.count(), 5);
}

/// An answer nested past the parser's depth limit is the source failing,
/// `unavailable`, never "no evidence" (issue 40: a summary nested 200,000
/// deep made the claim `no_evidence`).
#[tokio::test]
async fn an_answer_nested_too_deep_is_unavailable_not_no_evidence() {
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let wiki = LoopbackServer::start(
        "127.0.0.1",
        Arc::new(move |s: &Seen| {
            if s.target.contains("list=search") {
                Reply::ok(JSON, fixture("wikipedia/handmade-search-one.json"))
            } else if s.target.contains("/page/summary/") {
                Reply::ok(JSON, deep.clone())
            } else {
                Reply::ok(JSON, br#"{"batchcomplete": true, "query": {"pages": []}}"#.to_vec())
            }
        }),
    )
    .unwrap();
    let h = home();
    let g = grounder(&h, &grounding(vec![source("wiki", &wiki, AdapterKind::Wikipedia, "100/s", 1)]), fast_opts());
    let out = g.ground("Lyon had 522,250 inhabitants in 2021").await;
    assert!(matches!(out, GroundOutcome::Unavailable { .. }), "{out:?}");
    assert!(wiki.requests().iter().any(|s| s.target.contains("/page/summary/")), "the summary was asked");
}

/// A host that sends its headers and then stalls (here: promises 3 GB and
/// sends five bytes) fails by the whole-request deadline, and the deadline
/// counts toward its circuit like a time-out before the headers (issue 40:
/// 30 s per claim and no circuit, 60 claims in about 30 minutes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_stalls_after_its_headers_opens_the_circuit() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let c2 = Arc::clone(&connections);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            c2.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/atom+xml\r\nContent-Length: 3000000000\r\n\r\n<feed");
            let _ = s.flush();
            held.push(s);
        }
    });
    let mut cfg = grounding(vec![]);
    let pattern: crate::UrlPattern = format!("http://{addr}/*").parse().unwrap();
    cfg.sources.push(crate::SourceConfig {
        name: "stall".into(),
        url_pattern: pattern,
        priority: 1,
        adapter: AdapterKind::Arxiv,
        rate: Some("100/s".parse().unwrap()),
        search_url: None,
    });
    cfg.enabled = true;
    let h = home();
    let mut opts = fast_opts();
    opts.client.timeout = Duration::from_millis(300);
    opts.client.max_retries = 3;
    opts.client.circuit_backoff = Duration::from_secs(60);
    let g = Arc::new(grounder(&h, &cfg, opts));
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for i in 0..60 {
        let g = Arc::clone(&g);
        tasks.push(tokio::spawn(async move { g.ground(&format!("Polite crawlers measure arXiv limits{i}")).await }));
    }
    for t in tasks {
        assert!(matches!(t.await.unwrap(), GroundOutcome::Unavailable { .. }));
    }
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(connections.load(Ordering::SeqCst), 2, "two stalls, then the circuit is open");
}
