//! `amem index`, `recall`, `open`, `capture` and `eval recall` on small wikis
//! written by the tests.

use crate::util::*;
use serde_json::Value;

const GLACIERS: &str = "---\ntitle: Alpine glaciers\nsource: https://example.org/glaciers\nretrieved_at: 2024-05-01T10:00:00Z\n---\n\
    Glaciers in the Alps lost 10% of their volume between 2022 and 2023. That is the largest loss on record.\n";

fn json_lines(s: &str) -> Vec<Value> {
    s.lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect()
}

#[test]
fn index_recall_open_round_trip() {
    let t = TestDir::new();
    t.write("home/wiki/glaciers.md", GLACIERS);
    t.write("home/wiki/notes/keeling.txt", "The Keeling curve passed 420 ppm in 2023.\n");
    let (_, err) = code(t.amem().arg("index"), 0);
    assert!(err.contains("2 files (2 added"), "{err}");

    let out = ok(t.amem().args(["recall", "Alpine glaciers lost 10% of their volume", "--k", "2", "--json"]));
    let lines = json_lines(&out);
    assert_eq!(lines.last().unwrap()["type"], "summary");
    let top = &lines[0];
    assert_eq!(top["type"], "hit");
    let d = &top["data"];
    assert_eq!(d["rank"], 1);
    assert_eq!(d["title"], "Alpine glaciers");
    assert_eq!(d["quote"], "Glaciers in the Alps lost 10% of their volume between 2022 and 2023.");
    assert_eq!(d["source_url"], "https://example.org/glaciers");
    let (start, end) = (d["span"]["start"].as_u64().unwrap() as usize, d["span"]["end"].as_u64().unwrap() as usize);
    assert_eq!(&d["text"].as_str().unwrap()[start..end], d["quote"].as_str().unwrap());
    let uri = d["uri"].as_str().unwrap().to_string();
    assert!(uri.starts_with("amem://alpine-glaciers-") && uri.ends_with("#chunk=0"), "{uri}");

    let text = ok(t.amem().args(["recall", "Alpine glaciers 10%"]));
    assert!(text.starts_with(&format!("1. {uri}")), "{text}");

    let opened = ok(t.amem().args(["open", &uri]));
    assert!(opened.starts_with("# Alpine glaciers\n"), "{opened}");
    assert!(opened.contains("source: https://example.org/glaciers"));
    assert!(opened.contains("file: wiki/glaciers.md"));
    assert!(opened.contains("That is the largest loss on record."));

    // A renamed file keeps its URI.
    std::fs::rename(t.home().join("wiki/glaciers.md"), t.home().join("wiki/notes/renamed.md")).unwrap();
    ok(t.amem().arg("index"));
    assert!(ok(t.amem().args(["open", &uri])).contains("file: wiki/notes/renamed.md"));

    let (_, err) = code(t.amem().args(["open", "amem://no-such-item-000000000000#chunk=0"]), 1);
    assert!(err.contains("no wiki item \"no-such-item-000000000000\""), "{err}");
    let (_, err) = code(t.amem().args(["open", &uri.replace("#chunk=0", "#chunk=9")]), 1);
    assert!(err.contains("there is no chunk 9"), "{err}");
    let (_, err) = code(t.amem().args(["open", "http://example.org"]), 1);
    assert!(err.contains("not an amem:// URI"), "{err}");
}

#[test]
fn claims_with_query_syntax_do_not_break_recall() {
    let t = TestDir::new();
    t.write("home/wiki/glaciers.md", GLACIERS);
    ok(t.amem().arg("index"));
    for claim in [r#"the "Alps" lost 10%"#, "glac* NEAR(Alps volume)", "-Alps AND NOT glaciers", "col:Alps ^volume (x)", "\""] {
        let out = ok(t.amem().args(["recall", claim, "--json"]));
        assert_eq!(json_lines(&out).last().unwrap()["type"], "summary", "{claim}");
    }
}

#[test]
fn bad_files_are_reported_with_their_path_and_skipped() {
    let t = TestDir::new();
    t.write("home/wiki/good.md", GLACIERS);
    t.write("home/wiki/latin1.md", b"caf\xe9".as_slice());
    t.write("home/wiki/blob.txt", b"\x00\x01\x02".as_slice());
    t.write("home/wiki/broken.md", "---\ntitle: no end\n");
    t.write("home/wiki/photo.jpg", b"\xff\xd8".as_slice());
    let (_, err) = code(t.amem().arg("index"), 0);
    assert!(err.contains("latin1.md: not UTF-8"), "{err}");
    assert!(err.contains("blob.txt: binary file"), "{err}");
    // Broken front matter: indexed whole as plain text, with a warning naming file and line.
    assert!(err.contains("broken.md:1: the `---` front matter block is never closed; indexed as plain text"), "{err}");
    assert!(err.contains("2 skipped, 1 files of other formats ignored"), "{err}");
    assert!(err.contains("the index holds 2 items"), "{err}");
}

#[test]
fn capture_adds_a_file_that_recall_finds() {
    let t = TestDir::new();
    let src = t.write(
        "page.html",
        "<html><head><title>Keeling curve</title></head><body><p>CO2 passed 420 ppm at Mauna Loa in 2023.</p></body></html>",
    );
    let out = ok(t.amem().args(["capture", src.to_str().unwrap(), "--source", "https://example.org/keeling"]));
    let uri = out.trim();
    assert!(uri.starts_with("amem://keeling-curve-"), "{uri}");
    let id = uri.trim_start_matches("amem://");
    let file = t.home().join(format!("wiki/captured/{id}.md"));
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.starts_with("---\ntitle: \"Keeling curve\"\nsource: \"https://example.org/keeling\"\nretrieved_at: "), "{saved}");
    assert!(saved.contains("\ndigest: "));
    let hits = json_lines(&ok(t.amem().args(["recall", "CO2 at Mauna Loa passed 420 ppm", "--json"])));
    assert_eq!(hits[0]["data"]["uri"], format!("{uri}#chunk=0"));
    assert!(ok(t.amem().args(["open", uri])).contains("source: https://example.org/keeling"));
    let (_, err) = code(t.amem().args(["capture", "missing.txt"]), 1);
    assert!(err.contains("cannot read missing.txt"), "{err}");
    t.write("empty.md", "  \n");
    let (_, err) = code(t.amem().args(["capture", "empty.md"]), 1);
    assert!(err.contains("no text"), "{err}");
}

#[test]
fn eval_recall_on_a_small_corpus() {
    let t = TestDir::new();
    t.write(
        "cf/corpus.jsonl",
        r#"{"doc_id": "Ice", "title": "Ice", "text": "Arctic sea ice fell 40 percent since 1979. Ice is white.", "sentences": [{"idx": 0, "text": "Arctic sea ice fell 40 percent since 1979."}]}
{"doc_id": "Volcano", "title": "Volcano", "text": "Samalas erupted in 1257 in Indonesia.", "sentences": [{"idx": 0, "text": "Samalas erupted in 1257 in Indonesia."}]}
"#,
    );
    t.write(
        "cf/claims.jsonl",
        r#"{"id": "1", "claim": "Arctic sea ice declined 40% since 1979", "evidence": [{"doc_id": "Ice", "sentences": [0], "label": "SUPPORTED"}]}
{"id": "2", "claim": "Samalas volcano erupted in Indonesia", "evidence": [{"doc_id": "Volcano", "sentences": [0], "label": "SUPPORTED"}]}
"#,
    );
    let out = json_lines(&ok(t.amem().args(["eval", "recall", "--corpus", "cf", "--k", "1", "--format", "json"])));
    let methods: Vec<&str> = out.iter().map(|v| v["method"].as_str().unwrap()).collect();
    assert_eq!(methods, vec!["bm25", "dense", "hybrid"], "every method by default, on one index");
    let v = &out[0];
    assert_eq!(v["pairs"], 2);
    assert_eq!(v["rows"][0]["verbatim"], serde_json::json!({"n": 2, "signal": 2, "shuffled": 0}));
    let md = ok(t.amem().args(["eval", "recall", "--corpus", "cf", "--k", "1,2"]));
    assert!(md.contains("| cf | bm25 | 2 | 2 | 2 | 2 | 1 | 100.0% | 0.0% | **+100.0** |"), "{md}");
    assert!(md.contains("| cf | hybrid | 2 | 2 | 2 | 2 | 2 |"), "{md}");
    // One method; meaning needs the models.
    let bm25 = json_lines(&ok(t.amem().args(["eval", "recall", "--corpus", "cf", "--k", "1", "--method", "bm25", "--format", "json"])));
    assert_eq!(bm25.len(), 1);
    let (_, err) = code(t.amem().args(["--no-models", "eval", "recall", "--corpus", "cf", "--method", "dense"]), 2);
    assert!(err.contains("static embedder"), "{err}");
    // A folder of sets: every readable set in it.
    t.write("sets/pairs/pairs.jsonl", "{\"claim\": \"Samalas erupted in Indonesia\", \"evidence\": \"Samalas erupted in 1257 in Indonesia.\", \"label\": \"supported\"}\n");
    std::fs::rename(t.path().join("cf"), t.path().join("sets/cf")).unwrap();
    let both = ok(t.amem().args(["eval", "recall", "--corpus", "sets", "--k", "1", "--method", "bm25", "--format", "json"]));
    let names: Vec<String> = json_lines(&both).iter().map(|v| v["corpus"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, vec!["cf", "pairs"]);
    let (_, err) = code(t.amem().args(["eval", "recall", "--corpus", "nowhere"]), 1);
    assert!(err.contains("no evaluation set in nowhere"), "{err}");
}

#[test]
fn recall_by_meaning_finds_other_words_and_each_method_is_asked_for_by_name() {
    let t = TestDir::new();
    t.write("home/wiki/glacier.md", "The frozen mass of the glacier got smaller every year since the survey began.\n");
    t.write("home/wiki/budget.md", "The project budget for the launch is two million dollars, approved in March.\n");
    ok(t.amem().arg("index"));
    let claim = "The ice sheet shrank";
    let paths = |out: &str| -> Vec<String> {
        json_lines(out).iter().filter(|v| v["type"] == "hit").map(|v| v["data"]["path"].as_str().unwrap().to_string()).collect()
    };
    // The default is hybrid: meaning finds the note that shares no word with the claim.
    assert_eq!(paths(&ok(t.amem().args(["recall", claim, "--json"]))), vec!["glacier.md"]);
    assert_eq!(paths(&ok(t.amem().args(["recall", claim, "--method", "dense", "--json"]))), vec!["glacier.md"]);
    let (out, err) = code(t.amem().args(["recall", claim, "--method", "bm25"]), 0);
    assert!(out.is_empty() && err.contains("shares a content word"), "{out}{err}");
    assert!(paths(&ok(t.amem().args(["--recall-method", "bm25", "recall", claim, "--json"]))).is_empty());
    assert!(paths(&ok(t.amem().args(["--no-models", "recall", claim, "--json"]))).is_empty(), "--no-models: the words alone");
    let (_, err) = code(t.amem().args(["--no-models", "recall", claim, "--method", "dense"]), 2);
    assert!(err.contains("static embedder"), "{err}");
    // An index built with --no-models has no vectors: recall by meaning says so and uses the words.
    t.write("home/wiki/volcano.md", "Volcanoes are hot.\n");
    ok(t.amem().args(["--no-models", "index"]));
    let (_, err) = code(t.amem().args(["recall", "volcano lava"]), 0);
    assert!(err.contains("have no vector of this embedder"), "{err}");
}

#[test]
fn killed_index_run_leaves_the_previous_or_the_next_state() {
    let t = TestDir::new();
    t.write("home/wiki/first.md", GLACIERS);
    ok(t.amem().arg("index"));
    for i in 0..2500 {
        t.write(&format!("home/wiki/many/n{i:04}.md"), format!("# Note {i}\nA sentence about topic {i} and glaciers, number {}.\n", i * 7));
    }
    let mut child = t.amem().arg("index").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    // A debug build indexes these in about 0.25 s: 80 ms is usually mid-transaction.
    std::thread::sleep(std::time::Duration::from_millis(80));
    let _ = child.kill();
    let _ = child.wait();
    // Whatever point the kill hit, the file holds one committed state: the
    // previous one (1 item) or the complete next one (2501), never a mix.
    let db = rusqlite::Connection::open(t.home().join("ledger.sqlite")).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let (items, files, chunks) =
        (count("SELECT count(*) FROM wiki_items"), count("SELECT count(*) FROM wiki_files"), count("SELECT count(*) FROM wiki_chunks"));
    assert!(matches!((items, files, chunks), (1, 1, 1) | (2501, 2501, 2501)), "{items} items, {files} files, {chunks} chunks");
    db.execute("INSERT INTO wiki_fts(wiki_fts, rank) VALUES ('integrity-check', 1)", []).unwrap();
    drop(db);
    let (_, err) = code(t.amem().arg("index"), 0);
    eprintln!("killed run left {items} items");
    assert!(err.contains("the index holds 2501 items"), "{err}");
    let hits = json_lines(&ok(t.amem().args(["recall", "topic 1234 glaciers", "--k", "1", "--json"])));
    assert!(hits[0]["data"]["quote"].as_str().unwrap().contains("topic 1234"), "{hits:?}");
}
