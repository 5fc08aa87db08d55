//! Adding an importer is its own file and one line (issue 38, docs/architecture.md "A source"):
//! a JSON-lines chat log, read by an importer defined in this file alone and made known with
//! `amem_audit::sources::register` (the line), is probed, opened, audited against the wiki,
//! recorded in the ledger and reported under its own kind, like the shipped ones. Nothing
//! outside this file names it.

use amem_audit::progress::Counters;
use amem_audit::sources::{detect, register, resolve_kind};
use amem_audit::{AuditParams, Formats, run_audit};
use amem_records::{AuthorForm, ImportError, ImportOptions, KindInfo, Message, MessageId, MessageStream, Source, SourceKind};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The importer: one `{"from", "at", "room", "text"}` object a line.
struct JsonlSource;

static JSONL: KindInfo = KindInfo { name: "jsonl-chat", aliases: &["jsonl"], chat: true, authors: AuthorForm::Handle };

#[derive(serde::Deserialize)]
struct Line {
    from: String,
    at: jiff::Timestamp,
    room: String,
    text: String,
}

impl Source for JsonlSource {
    fn kind(&self) -> SourceKind {
        SourceKind::new(&JSONL)
    }

    fn describe(&self) -> &'static str {
        "a JSON-lines chat log (a .jsonl file, one {from, at, room, text} object a line)"
    }

    fn probe(&self, path: &Path) -> bool {
        path.is_file() && path.extension().is_some_and(|e| e == "jsonl")
    }

    fn open(&self, path: &Path, opts: &ImportOptions) -> Result<MessageStream, ImportError> {
        let text = std::fs::read_to_string(path).map_err(|e| ImportError::new(path, "file", "io", e.to_string()))?;
        let (path, window) = (path.to_path_buf(), opts.window);
        let archive = path.display().to_string();
        let messages: Vec<Result<Message, ImportError>> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                let line: Line =
                    serde_json::from_str(l).map_err(|e| ImportError::new(&path, format!("line {}", i + 1), "json", e.to_string()))?;
                Ok(Message {
                    source: SourceKind::new(&JSONL),
                    archive: archive.clone(),
                    conversation: line.room,
                    id: MessageId(format!("line-{}", i + 1)),
                    author: line.from,
                    recipients: Vec::new(),
                    sent_at: line.at,
                    subject: None,
                    text: line.text,
                    quoted: Vec::new(),
                    locator: format!("{archive}:line {}", i + 1),
                    meta: BTreeMap::new(),
                    not_claims: None,
                })
            })
            .filter(|m| m.as_ref().map_or(true, |m| window.contains(m.sent_at)))
            .collect();
        Ok(Box::new(messages.into_iter()))
    }
}

static IMPORTER: JsonlSource = JsonlSource;

#[test]
fn an_importer_defined_outside_amem_is_probed_audited_recorded_and_reported() {
    register(&IMPORTER);
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("wiki")).unwrap();
    std::fs::write(home.join("wiki").join("falcon.md"), "# Project Falcon\nThe Falcon launch budget was $1.2 million.\n").unwrap();
    let log = dir.path().join("team.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"from": "ana", "at": "2025-05-01T09:00:00Z", "room": "launch", "text": "The Falcon launch budget was $1.2 million."}"#,
            "\n",
            r#"{"from": "ben", "at": "2025-05-01T09:05:00Z", "room": "launch", "text": "The Falcon launch budget was $3 million."}"#,
            "\n",
            "{not json\n",
        ),
    )
    .unwrap();

    // The CLI's kind resolution finds it by probing, and by its name or alias.
    let kind = SourceKind::new(&JSONL);
    assert_eq!(detect(&log), Some(kind));
    assert_eq!(resolve_kind(Some(kind), &log), Ok(kind));
    assert_eq!(SourceKind::parse("jsonl"), Some(kind));
    assert_eq!(amem_audit::sources::parse_source_spec(&format!("jsonl-chat:{}", log.display())).unwrap().0, Some(kind));

    let params = AuditParams {
        since: Some("2020-01-01".into()),
        now: Some("2026-01-01T00:00:00Z".parse().unwrap()),
        formats: Formats { markdown: true, arrow: false, jsonl: true, parquet: false },
        ..AuditParams::new(&home, vec![(kind, log.clone())])
    };
    let out = run_audit(&params, Arc::new(Counters::default()), None).unwrap();
    // The rows are read back from the ledger, so the kind's name went in and came out.
    let jsonl = std::fs::read_to_string(out.report_dir.join("audit.jsonl")).unwrap();
    let rows: Vec<(String, String, String)> = jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "assessment")
        .map(|v| {
            let d = &v["data"];
            let s = |x: &serde_json::Value| x.as_str().unwrap_or_default().to_string();
            (s(&d["source"]), s(&d["claim"]["text"]), s(&d["assessment"]["status"]))
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("jsonl-chat".into(), "The Falcon launch budget was $1.2 million.".into(), "supported".into()),
            ("jsonl-chat".into(), "The Falcon launch budget was $3 million.".into(), "contradicted".into()),
        ],
        "{jsonl}"
    );
    // The broken line is an error naming the file and the line, counted, and the run went on.
    assert_eq!(out.summary.skipped.total, 1, "{:?}", out.summary.skipped);
    let md = std::fs::read_to_string(out.report_dir.join("audit.md")).unwrap();
    assert!(md.contains("team.jsonl") && md.contains("line 3"), "{md}");

    // A later run (another clock, so another run id) reads the ledger's rows of this kind back
    // without assessing them again.
    let later = AuditParams { now: Some("2026-01-02T00:00:00Z".parse().unwrap()), ..params };
    let again = run_audit(&later, Arc::new(Counters::default()), None).unwrap();
    assert_eq!((again.summary.messages_already_assessed, again.summary.assessed), (2, 0), "{:?}", again.summary);
}
