//! Recomputes the presence figures published in the README's `recall`
//! section and fails when they differ. `AMEM_UPDATE_README=1` rewrites the
//! block instead (then commit the README).

use std::path::PathBuf;

const BEGIN: &str = "<!-- recall:presence:begin -->\n";
const END: &str = "<!-- recall:presence:end -->";

#[test]
fn readme_presence_block_matches_measurement() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
    let corpus = root.join("..").join("shared").join("eval").join("climate_fever");
    if !corpus.is_dir() {
        eprintln!("SKIPPED readme_presence_block_matches_measurement: ../shared is absent beside the checkout");
        return;
    }
    let report = amem_recall::presence::run(&corpus, amem_recall::presence::DEFAULT_KS, &mut |_, _| {}).expect("presence run");
    let block = report.to_markdown();
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let start = readme.find(BEGIN).expect("README has the recall:presence block") + BEGIN.len();
    let end = start + readme[start..].find(END).expect("README closes the recall:presence block");
    if std::env::var_os("AMEM_UPDATE_README").is_some() {
        let updated = format!("{}{}{}", &readme[..start], block, &readme[end..]);
        std::fs::write(&readme_path, updated).expect("write README.md");
        return;
    }
    assert_eq!(
        &readme[start..end],
        block,
        "README recall:presence block differs from the measurement; rerun with AMEM_UPDATE_README=1 and commit"
    );
}
