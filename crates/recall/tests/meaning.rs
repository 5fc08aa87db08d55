//! Recall by meaning: chunk vectors kept beside the full-text index, incrementally, and
//! searched dense or fused with bm25.

use amem_recall::{Capture, IndexOptions, Meaning, Recall, RecallMethod, Wiki};
use std::ops::ControlFlow;
use std::path::Path;

fn meaning(method: RecallMethod) -> Option<Meaning> {
    Some(Meaning { embedder: amem_models::StaticEmbedder::shipped().expect("the shipped embedder loads"), method })
}

fn index(w: &mut Wiki) -> amem_recall::IndexReport {
    w.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())).expect("index")
}

fn write(home: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("wiki").join(name), text).unwrap();
}

const GLACIER: &str = "The frozen mass of the glacier got smaller every year since the survey began.\n";
const VOLCANO: &str = "Volcanoes are hot. Lava flows from the crater of the mountain.\n";
const BUDGET: &str = "The project budget for the launch is two million dollars, approved in March.\n";

#[test]
fn each_chunk_is_embedded_once_and_its_vector_goes_with_it() {
    let h = tempfile::tempdir().unwrap();
    write(h.path(), "glacier.md", GLACIER);
    write(h.path(), "volcano.md", VOLCANO);
    let mut w = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Hybrid));
    let r = index(&mut w);
    assert_eq!(r.embedded as u64, r.stats.chunks);
    assert_eq!(w.embedded_chunks().unwrap(), 2);
    // Nothing changed: nothing is embedded again.
    assert_eq!(index(&mut w).embedded, 0);
    // A new note: only its chunk.
    write(h.path(), "budget.md", BUDGET);
    assert_eq!(index(&mut w).embedded, 1);
    // A changed note: its new revision's chunk; the old one's vector is gone with it.
    write(h.path(), "volcano.md", "Volcanoes are hot. Ash clouds close airports.\n");
    assert_eq!(index(&mut w).embedded, 1);
    std::fs::remove_file(h.path().join("wiki").join("glacier.md")).unwrap();
    let r = index(&mut w);
    assert_eq!(r.embedded, 0);
    assert_eq!(w.embedded_chunks().unwrap(), r.stats.chunks, "one vector per chunk, none left of deleted chunks");
}

#[test]
fn meaning_finds_a_paraphrase_the_words_miss_and_unrelated_claims_find_nothing() {
    let h = tempfile::tempdir().unwrap();
    write(h.path(), "glacier.md", GLACIER);
    write(h.path(), "volcano.md", VOLCANO);
    write(h.path(), "budget.md", BUDGET);
    let mut w = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Bm25));
    index(&mut w);
    let claim = "The ice sheet shrank";
    assert!(w.search(claim, 3).unwrap().is_empty(), "no word of the claim is in the wiki");
    for method in [RecallMethod::Dense, RecallMethod::Hybrid] {
        let w = Wiki::open(h.path()).unwrap().with_meaning(meaning(method));
        let hits = w.search(claim, 3).unwrap();
        assert_eq!(hits.first().map(|h| h.path.as_str()), Some("glacier.md"), "{method}: {hits:?}");
        assert!(hits.iter().all(|h| h.path != "budget.md"), "{method}: a chunk below the floor is not handed on: {hits:?}");
    }
    // Hybrid keeps what the words find first when they agree.
    let w = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Hybrid));
    assert_eq!(w.search("launch budget approved in March", 1).unwrap()[0].path, "budget.md");
}

#[test]
fn an_index_built_without_vectors_is_searched_by_its_words_until_indexed_with_them() {
    let h = tempfile::tempdir().unwrap();
    write(h.path(), "glacier.md", GLACIER);
    write(h.path(), "budget.md", BUDGET);
    let mut plain = Wiki::open(h.path()).unwrap();
    assert_eq!(index(&mut plain).embedded, 0);
    let mut w = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Hybrid));
    assert_eq!(w.embedded_chunks().unwrap(), 0);
    assert_eq!(w.search("budget for the launch", 1).unwrap()[0].path, "budget.md", "hybrid without vectors: the words");
    assert!(w.search("The ice sheet shrank", 1).unwrap().is_empty());
    // The next index run with meaning embeds what lacks a vector, though no file changed.
    let r = index(&mut w);
    assert_eq!((r.unchanged, r.embedded), (2, 2));
    assert_eq!(w.search("The ice sheet shrank", 1).unwrap()[0].path, "glacier.md");
}

#[test]
fn a_capture_through_one_handle_is_found_by_meaning_through_another() {
    let h = tempfile::tempdir().unwrap();
    write(h.path(), "budget.md", BUDGET);
    let mut writer = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Hybrid));
    index(&mut writer);
    let reader = Wiki::open(h.path()).unwrap().with_meaning(meaning(RecallMethod::Dense));
    assert!(reader.search("The ice sheet shrank", 1).unwrap().is_empty());
    writer
        .capture(&Capture { text: GLACIER, title: Some("Glacier survey"), source_url: None, retrieved_at: "2026-01-01T00:00:00Z" })
        .unwrap();
    let hits = reader.search("The ice sheet shrank", 1).unwrap();
    assert!(hits[0].path.starts_with("captured/"), "{hits:?}");
}
