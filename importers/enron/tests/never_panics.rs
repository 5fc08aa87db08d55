//! Property tests of the Enron entry points (issue 16, finding 7): any CSV
//! bytes and any maildir file open and stream to the end without a panic
//! or a hang; every error names the file and a position. Bounded cases.

use amem_records::ImportOptions;
use proptest::prelude::*;

fn csvish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "u/f/1.,\"Message-ID: <1@x>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nSubject: s\n\nbody\"\n",
        "u/f/2.,\"Message-ID: <2@x>\n\nhe said \"hi\n",
        "\"",
        "\"\"",
        ",",
        "\n",
        "\r\n",
        "Message-ID:",
        "x,y,z\n",
    ]);
    prop::collection::vec(prop_oneof![pieces.prop_map(|s| s.as_bytes().to_vec()), prop::collection::vec(any::<u8>(), 0..8)], 0..40)
        .prop_map(|v| [b"file,message\n".to_vec(), v.concat()].concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn any_csv_streams_to_the_end(bytes in csvish()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("emails.csv");
        std::fs::write(&p, &bytes).unwrap();
        let stream = amem_importer_enron::open_csv(&p, &ImportOptions::default()).unwrap();
        let mut n = 0;
        for item in stream.take(10_000) {
            n += 1;
            if let Err(e) = item {
                prop_assert_eq!(&e.path, &p);
                prop_assert!(e.position.starts_with("line ") || e.position.starts_with("record["), "{}", e.position);
            }
        }
        prop_assert!(n < 10_000, "the stream ends");
    }

    #[test]
    fn any_maildir_file_is_a_message_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("maildir/u/inbox/1.");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, &bytes).unwrap();
        let items: Vec<_> = amem_importer_enron::open(&dir.path().join("maildir"), &ImportOptions::default()).unwrap().collect();
        prop_assert!(items.len() <= 1);
        for e in items.iter().filter_map(|r| r.as_ref().err()) {
            prop_assert_eq!(&e.path, &f);
        }
    }
}
