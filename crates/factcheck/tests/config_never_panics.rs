//! Property test of the config parser (issue 16, findings 6 and 7): any
//! `config.toml` text, built from the keys the file really has and hostile
//! values for them, is a config or an error naming the file; never a panic.
//! (`rate = "1/5000000000h"` panicked, exit 101.) Bounded cases.

use amem_factcheck::HomeConfig;
use proptest::prelude::*;
use std::path::Path;

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "\"1/5000000000h\"",
            "\"1/3s\"",
            "\"0/s\"",
            "\"18446744073709551615/1ms\"",
            "\"https://x.org/*\"",
            "\"http://127.0.0.1:0/*\"",
            "\"*\"",
            "\"\"",
            "\"arxiv\"",
            "\"http\"",
            "\"wikipedia\"",
            "\"https://x.org/s?q={query}\"",
            "9223372036854775807",
            "-9223372036854775808",
            "true",
            "[]",
            "{}",
            "1e400",
        ])
        .prop_map(str::to_string),
        "\"[ -~]{0,20}\"",
    ]
}

fn config() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "enabled",
        "default_action",
        "name",
        "url_pattern",
        "priority",
        "adapter",
        "rate",
        "search_url",
        "kind",
        "path",
        "global_rate",
    ]);
    let line = prop_oneof![
        (key, value()).prop_map(|(k, v)| format!("{k} = {v}\n")),
        prop::sample::select(vec!["[grounding]\n", "[[grounding.sources]]\n", "[[imports]]\n", "[me]\n", "[\n", "= 1\n"])
            .prop_map(str::to_string),
    ];
    prop::collection::vec(line, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn any_config_parses_or_errors(text in config()) {
        let path = Path::new("home/config.toml");
        if let Err(e) = HomeConfig::parse(&text, path) {
            prop_assert!(e.to_string().contains("config.toml"), "{e}");
        }
    }
}
