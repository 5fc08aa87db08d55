//! Notes as people keep them: a vault in the style of Obsidian and a graph
//! in the style of Logseq (both written for these tests, in
//! `tests/fixtures/`), read file by file and then indexed and searched.

use amem_recall::{IndexOptions, ItemKind, Recall, Wiki, parse_item};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)
}

fn parse(rel: &str) -> amem_recall::ParsedItem {
    parse_item(&std::fs::read(fixture(rel)).unwrap(), ItemKind::Markdown).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// A home whose wiki is a copy of the fixture folder, indexed.
fn indexed(vault: &str) -> (tempfile::TempDir, Wiki, amem_recall::IndexReport) {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture(vault), &home.path().join("wiki"));
    let mut w = Wiki::open(home.path()).unwrap();
    let r = w.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())).unwrap();
    (home, w, r)
}

#[test]
fn obsidian_front_matter_lists_maps_and_links() {
    let launch = parse("obsidian/Projects/Falcon launch.md");
    assert_eq!(launch.warning, None);
    assert_eq!(launch.aliases, ["Falcon", "Project Falcon"]);
    assert_eq!(launch.tags, ["project", "launch"]);
    assert_eq!(launch.date.as_deref(), Some("2025-05-02"));
    assert_eq!(launch.title, None, "no title in the content: the index takes the file name");
    assert!(launch.body.starts_with("The Falcon app ships"), "{}", launch.body);

    let budget = parse("obsidian/Budget.md");
    assert_eq!(budget.title.as_deref(), Some("Budget 2025"), "front matter before the first heading");
    assert_eq!(budget.tags, ["finance", "planning"]);
    assert_eq!(budget.source_url.as_deref(), Some("https://intranet.example.org/budget-2025"));
    assert!(budget.body.contains("40,000 € for marketing & travel at the Café Rouge."), "entities decoded: {}", budget.body);

    let daily = parse("obsidian/Daily/2025-05-20.md");
    assert!(daily.body.contains("See the budget note for the numbers, and Falcon launch for dates."), "{}", daily.body);
    assert!(daily.body.contains("Budget > Launch"), "an embed shows its target: {}", daily.body);
    assert!(!daily.body.contains("[["), "{}", daily.body);
    assert_eq!(daily.links, ["Budget#Launch", "Falcon launch"]);

    let broken = parse("obsidian/Broken front matter.md");
    let w = broken.warning.as_ref().expect("a warning");
    assert_eq!(w.line, 5, "{w:?}");
    assert!(broken.body.contains("seats twenty people"));
}

#[test]
fn obsidian_vault_indexes_every_note_and_names_the_broken_one() {
    let (_home, w, r) = indexed("obsidian");
    assert_eq!(r.items_added, 4, "{r:?}");
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].path.ends_with("Broken front matter.md"));
    let hit = &w.search("Falcon app ships to the store twelfth of June", 1).unwrap()[0];
    assert_eq!(hit.title.as_deref(), Some("Falcon launch"), "title from the file name");
    let hit = &w.search("the budget note for the numbers", 1).unwrap()[0];
    assert!(hit.quote.contains("the budget note"), "quotes show the display text: {}", hit.quote);
    assert!(!w.search("big room third floor seats twenty", 1).unwrap().is_empty(), "the broken note is searchable");
}

#[test]
fn logseq_properties_bullets_and_block_refs() {
    let page = parse("logseq/pages/Falcon budget.md");
    assert_eq!(page.warning, None);
    assert_eq!(page.title.as_deref(), Some("Falcon budget"));
    assert_eq!(page.aliases, ["falcon-budget", "Falcon money"]);
    assert_eq!(page.tags, ["finance", "falcon"]);
    assert!(page.body.contains("The Falcon budget is 4.2 million euros.\nIt was approved by Priya in May."), "{}", page.body);
    assert!(!page.body.contains("id::") && !page.body.contains("collapsed::") && !page.body.contains("- "), "{}", page.body);
    assert!(page.body.contains("The café budget is separate, see ."), "{}", page.body);

    let journal = parse("logseq/journals/2025_05_20.md");
    assert_eq!(journal.title, None);
    assert_eq!(journal.body, "Met Priya about Falcon launch.\nThe store release is on the twelfth of June.\nBooked the big room.\n");
    assert_eq!(journal.links, ["Priya", "Falcon launch"]);

    let (_home, w, r) = indexed("logseq");
    assert_eq!((r.items_added, r.warnings.len()), (2, 0), "{r:?}");
    let hit = &w.search("Falcon budget 4.2 million euros", 1).unwrap()[0];
    assert_eq!(hit.title.as_deref(), Some("Falcon budget"));
    let hit = &w.search("store release twelfth of June", 1).unwrap()[0];
    assert_eq!(hit.title.as_deref(), Some("2025_05_20"), "a journal is titled by its file name");
}
