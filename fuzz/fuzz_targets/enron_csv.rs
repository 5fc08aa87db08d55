//! Any bytes as a Kaggle Enron `emails.csv`, read with a 4 KiB cap on one
//! record: each record is a message or an `ImportError` naming its line
//! (an unbalanced quote, a cut-short last record, a record over the cap),
//! never a panic, and reading always ends.
#![no_main]

use amem_records::ImportOptions;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Ok(mut file) = tempfile::NamedTempFile::new() else { return };
    if file.write_all(data).is_err() {
        return;
    }
    let Ok(csv) = amem_importer_enron::CsvImporter::open_with_cap(file.path(), &ImportOptions::default(), 4096) else { return };
    let mut seen = 0usize;
    for item in csv {
        seen += 1;
        assert!(seen <= data.len() + 1, "more items than bytes");
        if let Err(e) = item {
            assert!(!e.kind.is_empty() && !e.position.is_empty());
        }
    }
});
