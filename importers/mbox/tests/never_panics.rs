//! Property tests of the mbox entry point (issue 16, finding 7): any bytes,
//! written as a file, open and stream to the end without a panic or a hang,
//! with one or several parse workers; every item is a message or an error
//! naming the file. Bounded cases so CI stays fast; `fuzz/` keeps the
//! libFuzzer targets (`mbox_split`, `mail_parse`) for longer runs.

use amem_records::ImportOptions;
use proptest::prelude::*;

/// Mail-shaped bytes: separator lines, headers, MIME boundaries, encodings
/// and junk, so the cases reach the parser rather than stopping at the
/// splitter.
fn mailish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "From a@b Mon Jan  1 00:00:00 2024\n",
        "From \n",
        ">From x\n",
        "Message-ID: <x@y>\n",
        "Date: Mon, 1 Jan 2024 10:00:00 +0000\n",
        "Date: garbage\n",
        "Subject: =?utf-8?B?w6k=?= =?iso-8859-1?Q?=E9?=\n",
        "Content-Type: multipart/mixed; boundary=\"b\"\n",
        "Content-Type: text/plain; charset=utf-7\n",
        "Content-Type: text/html\n",
        "Content-Transfer-Encoding: base64\n",
        "Content-Transfer-Encoding: quoted-printable\n",
        "--b\n",
        "--b--\n",
        "\n",
        "\r\n",
        "> quoted line\n",
        "On Mon, Jan 1, 2024, A wrote:\n",
        "-- \n",
        "=E9=\n",
        "<p>x</p>\n",
        "w6k=\n",
        "\u{0}\u{ff}\n",
    ]);
    prop::collection::vec(prop_oneof![pieces.prop_map(|s| s.as_bytes().to_vec()), prop::collection::vec(any::<u8>(), 0..12)], 0..60)
        .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn any_mbox_streams_to_the_end(bytes in mailish(), workers in 1usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.mbox");
        std::fs::write(&p, &bytes).unwrap();
        let stream = amem_importer_mbox::MboxImporter::open_with_workers(&p, &ImportOptions::default(), workers).unwrap();
        for item in stream.take(10_000) {
            if let Err(e) = item {
                prop_assert_eq!(&e.path, &p);
                prop_assert!(!e.position.is_empty());
            }
        }
    }
}
