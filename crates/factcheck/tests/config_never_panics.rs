//! Property test of the `[grounding]` config (issue 16, findings 6 and 7):
//! any `config.toml` text, built from the keys the file really has and
//! hostile values for them, read as the CLI reads it (TOML, then
//! [`GroundingConfig::from_table`]), is a config or an error; never a
//! panic. (`rate = "1/5000000000h"` panicked, exit 101.) Bounded cases.

use amem_factcheck::{GroundingConfig, config::GroundingTable};
use proptest::prelude::*;
use std::path::Path;

/// The part of config.toml this crate validates; the CLI reads the rest.
#[derive(serde::Deserialize)]
struct File {
    grounding: Option<GroundingTable>,
}

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
        // Other top-level tables are the CLI's business: serde ignores them here.
        match toml::from_str::<File>(&text) {
            Ok(file) => {
                if let Err(e) = GroundingConfig::from_table(file.grounding, &text, path) {
                    prop_assert!(e.to_string().contains("config.toml"), "{e}");
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// The probe's case: the rate is refused with the range, as a TOML error at its line.
#[test]
fn r16_config_rate_out_of_range_is_a_located_error() {
    let text = "[grounding]\n[[grounding.sources]]\nname = \"x\"\nurl_pattern = \"https://x.org/*\"\nadapter = \"arxiv\"\nrate = \"1/5000000000h\"\n";
    let e = toml::from_str::<File>(text).err().expect("refused").to_string();
    assert!(e.contains("between 1000/s and 1/day") && e.contains("line 6"), "{e}");
    let ok = text.replace("1/5000000000h", "1/3s");
    let file = toml::from_str::<File>(&ok).unwrap();
    assert_eq!(GroundingConfig::from_table(file.grounding, &ok, Path::new("config.toml")).unwrap().sources.len(), 1);
}
