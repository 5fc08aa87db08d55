use super::*;
use amem_records::{
    AmemUri, Assessment, Claim, ClaimKind, Cue, CueClass, Digest, Evidence, GateFlag, GateSummary, GateVerdict, MessageId, Reason, RunId,
    RunParams, RunSource, SourceKind, Span, Status,
};
use amem_records::{AuditRecord, ReportSink, RunInfo, RunSummary};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, TimestampMicrosecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_ipc::reader::FileReader;
use arrow_schema::{DataType, Field};
use std::fs::File;

fn run() -> RunInfo {
    let t: jiff::Timestamp = "2024-05-02T03:04:05Z".parse().unwrap();
    RunInfo {
        run_id: RunId("20240502T030405Z-1a2b3c4d".into()),
        started_at: t,
        params: RunParams {
            sources: vec![RunSource { kind: SourceKind::GMAIL, path: "exports/mail.mbox".into() }],
            since: None,
            until: None,
            now: t,
            offline: true,
            policy_version: "policy@1".into(),
            home: "home".into(),
            who: amem_records::Who::All,
            include_bulk: false,
            include_forwarded: false,
            shard: None,
            reassess: false,
        },
    }
}

/// Row `i`: statuses cycle through all seven; every third row has a cue,
/// evidence with a URL and a gate flag; every fifth has no gate.
fn row(i: usize) -> AuditRecord {
    let text = format!("The launch probably moved to Friday, number {i}.");
    let digest = Digest::of(format!("m{i}").as_bytes());
    let span = Span::new(5, 5 + text.len());
    let with_extras = i.is_multiple_of(3);
    let cues = if with_extras {
        vec![Cue { class: CueClass::Hedge, text: "probably".into(), span: Span::new(11, 19), rule: "hedge.probably".into() }]
    } else {
        vec![]
    };
    let claim = Claim {
        id: Claim::id_for(&digest, span, &text),
        message: MessageId(format!("<m{i}@example.org>")),
        message_digest: digest,
        span,
        text,
        kind: if i.is_multiple_of(2) { ClaimKind::Date } else { ClaimKind::Fact },
        cues,
        extractor: "rules@1".into(),
    };
    let evidence: Vec<Evidence> = if with_extras {
        vec![
            Evidence {
                uri: AmemUri::chunk("launch-notes", 3),
                quote: "The launch is on Friday.".into(),
                span: Span::new(100, 124),
                item_digest: Digest::of(b"rev1"),
                captured_at: Some("2024-04-30T12:00:00Z".into()),
                written_at: None,
                source_url: Some("https://example.org/launch".into()),
                title: Some("Launch".into()),
            },
            Evidence {
                uri: AmemUri::item("board"),
                quote: "Board approved.".into(),
                span: Span::new(0, 15),
                item_digest: Digest::of(b"rev2"),
                captured_at: None,
                written_at: None,
                source_url: None,
                title: None,
            },
        ]
    } else {
        vec![]
    };
    let status = Status::ALL[i % Status::ALL.len()];
    let gate = if i.is_multiple_of(5) {
        None
    } else {
        Some(GateSummary {
            verdict: if with_extras { GateVerdict::Rewrite } else { GateVerdict::Pass },
            flags: if with_extras {
                vec![GateFlag {
                    check: "hedge".into(),
                    source_sentence: "The launch will probably move.".into(),
                    source_span: Span::new(16, 24),
                    cue: "probably".into(),
                    memory_sentence: "The launch moved.".into(),
                    rule: "hedge.probably".into(),
                }]
            } else {
                vec![]
            },
        })
    };
    let assessment = Assessment {
        claim: claim.id,
        status,
        method: "deterministic@1".into(),
        reasons: vec![Reason { facet: "date".into(), detail: "d".into(), claim_span: None, evidence: evidence.clone(), rule: "r".into() }],
        gate,
        assessed_at: "2024-05-02T03:04:06Z".into(),
        policy_version: "policy@1".into(),
    };
    AuditRecord {
        run_id: RunId("20240502T030405Z-1a2b3c4d".into()),
        source: SourceKind::GMAIL,
        archive: "exports/mail.mbox".into(),
        conversation: format!("thread-{}", i % 4),
        message_id: claim.message.clone(),
        locator: format!("exports/mail.mbox:byte {}", i * 512),
        author: "Alice <alice@example.org>".into(),
        sent_at: jiff::Timestamp::from_second(1_714_000_000 + i as i64).unwrap(),
        subject: if i.is_multiple_of(2) { Some("Plans".into()) } else { None },
        claim,
        assessment,
        evidence,
        from_me: i.is_multiple_of(4),
        notes: if with_extras {
            vec![amem_records::NoteRef {
                item: "launch-notes".into(),
                path: "notes/launch.md".into(),
                modified_at: Some("2024-04-01T08:00:00Z".into()),
                written_at: Some("2024-03-01T00:00:00Z".into()),
                written_from: Some("date".into()),
            }]
        } else {
            vec![]
        },
        also_filed_at: if i.is_multiple_of(3) {
            vec![format!("maildir/ann/all_documents/{i}."), format!("maildir/ann/inbox/{i}.")]
        } else {
            vec![]
        },
        forwarded_by: if i.is_multiple_of(5) { Some("Bob <bob@example.org>".into()) } else { None },
        forwarded_by_me: false,
    }
}

fn write(dir: &Path, n: usize, batch_rows: usize) -> PathBuf {
    let mut sink = ArrowSink::new(dir).with_batch_rows(batch_rows);
    sink.begin(&run()).unwrap();
    for i in 0..n {
        sink.write(&row(i)).unwrap();
    }
    let mut s = RunSummary::default();
    s.uncheckable.insert("gate_unaligned".into(), 2);
    sink.finish(&s).unwrap();
    sink.path()
}

fn read(path: &Path) -> (FileReader<File>, Vec<RecordBatch>) {
    let reader = FileReader::try_new(File::open(path).unwrap(), None).unwrap();
    let again = FileReader::try_new(File::open(path).unwrap(), None).unwrap();
    let batches = again.collect::<Result<Vec<_>, _>>().unwrap();
    (reader, batches)
}

/// A stable, version-independent rendering of a field.
fn describe(f: &Field) -> String {
    let null = if f.is_nullable() { "" } else { " not null" };
    format!("{}: {}{null}", f.name(), describe_type(f.data_type()))
}

fn describe_type(t: &DataType) -> String {
    match t {
        DataType::List(item) => format!("list<{}>", describe(item)),
        DataType::Struct(fs) => format!("struct<{}>", fs.iter().map(|f| describe(f)).collect::<Vec<_>>().join(", ")),
        DataType::Dictionary(k, v) => format!("dictionary<{}, {}>", describe_type(k), describe_type(v)),
        DataType::Timestamp(u, tz) => format!("timestamp<{u:?}, {}>", tz.as_deref().unwrap_or("none")),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The schema is a public contract (README.md documents it): any change
/// must be deliberate, bump SCHEMA_VERSION, and update this list and the README.
#[test]
fn schema_is_pinned() {
    let got: Vec<String> = audit_schema().fields().iter().map(|f| describe(f)).collect();
    let want = [
        "run_id: utf8 not null",
        "source_kind: utf8 not null",
        "archive: utf8 not null",
        "conversation: utf8 not null",
        "message_id: utf8 not null",
        "locator: utf8 not null",
        "author: utf8 not null",
        "sent_at: timestamp<Microsecond, UTC> not null",
        "subject: utf8",
        "message_digest: utf8 not null",
        "claim_id: utf8 not null",
        "text: utf8 not null",
        "span_start: uint64 not null",
        "span_end: uint64 not null",
        "kind: utf8 not null",
        "stance_cues: list<item: struct<class: utf8 not null, text: utf8 not null, start: uint64 not null, end: uint64 not null> not null> not null",
        "status: dictionary<int32, utf8> not null",
        "group: dictionary<int32, utf8> not null",
        "method: utf8 not null",
        "policy_version: utf8 not null",
        "assessed_at: timestamp<Microsecond, UTC>",
        "evidence: list<item: struct<uri: utf8 not null, quote: utf8 not null, start: uint64 not null, end: uint64 not null, captured_at: timestamp<Microsecond, UTC>, digest: utf8 not null, source_url: utf8, title: utf8, role: utf8 not null, value: utf8, value_start: uint64, value_end: uint64, note_path: utf8, note_modified_at: timestamp<Microsecond, UTC>, note_written_at: timestamp<Microsecond, UTC>, note_written_from: utf8> not null> not null",
        "gate_verdict: utf8",
        "gate_flags: list<item: struct<check: utf8 not null, cue: utf8 not null, source_sentence: utf8 not null, memory_sentence: utf8 not null, rule: utf8 not null> not null> not null",
        "from_me: boolean not null",
        "reasons: list<item: struct<facet: utf8 not null, rule: utf8 not null, message: utf8 not null, claim_start: uint64, claim_end: uint64, evidence_spans: list<item: struct<uri: utf8 not null, start: uint64 not null, end: uint64 not null> not null> not null> not null> not null",
        "also_filed_at: list<item: utf8 not null> not null",
        "forwarded_by: utf8",
    ];
    assert_eq!(got, want);
    assert_eq!(SCHEMA_VERSION, "4");
}

/// The README documents every field, in schema order.
#[test]
fn readme_documents_every_field() {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut last = 0;
    for f in audit_schema().fields() {
        let needle = format!("| `{}` |", f.name());
        let at = readme.find(&needle).unwrap_or_else(|| panic!("README.md does not document {needle}"));
        assert!(at >= last, "README.md lists {} out of schema order", f.name());
        last = at;
    }
}

#[test]
fn reads_back_schema_counts_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), 10, 4);
    let (reader, batches) = read(&path);
    assert_eq!(reader.schema(), audit_schema());
    // 10 rows in batches of 4: 4 + 4 + 2.
    assert_eq!(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(), vec![4, 4, 2]);
    let b = &batches[0];
    let col = |name: &str| b.column_by_name(name).unwrap().clone();
    assert_eq!(col("run_id").as_string::<i32>().value(0), "20240502T030405Z-1a2b3c4d");
    assert_eq!(col("message_id").as_string::<i32>().value(1), "<m1@example.org>");
    assert_eq!(col("sent_at").as_primitive::<TimestampMicrosecondType>().value(2), (1_714_000_000 + 2) * 1_000_000);
    assert!(col("subject").is_null(1));
    assert_eq!(col("claim_id").as_string::<i32>().value(0), row(0).claim.id.0.to_hex());
    assert_eq!(col("span_start").as_primitive::<UInt64Type>().value(0), 5);
    assert_eq!(col("kind").as_string::<i32>().value(1), "fact");
    // Dictionary columns decode to the status names.
    let status = col("status");
    let status = status.as_dictionary::<Int32Type>();
    let names = status.values().as_string::<i32>();
    let decoded: Vec<&str> = (0..4).map(|i| names.value(status.keys().value(i) as usize)).collect();
    assert_eq!(decoded, vec!["supported", "contradicted", "partially_supported", "not_addressed"]);
    let group = col("group");
    let group = group.as_dictionary::<Int32Type>();
    assert_eq!(group.values().as_string::<i32>().value(group.keys().value(2) as usize), "unverified");
    // Row 0: one cue, two evidence items, no gate (0 % 5 == 0).
    let cues = col("stance_cues");
    let cues = cues.as_list::<i32>();
    assert_eq!(cues.value_length(0), 1);
    assert_eq!(cues.value_length(1), 0);
    let cue0 = cues.value(0);
    assert_eq!(cue0.as_struct().column_by_name("text").unwrap().as_string::<i32>().value(0), "probably");
    let ev = col("evidence");
    let ev = ev.as_list::<i32>();
    assert_eq!(ev.value_length(0), 2);
    let ev0 = ev.value(0);
    let ev0 = ev0.as_struct();
    assert_eq!(ev0.column_by_name("uri").unwrap().as_string::<i32>().value(0), "amem://launch-notes#chunk=3");
    assert_eq!(ev0.column_by_name("uri").unwrap().as_string::<i32>().value(1), "amem://board");
    assert_eq!(ev0.column_by_name("digest").unwrap().as_string::<i32>().value(0), Digest::of(b"rev1").to_hex());
    assert!(ev0.column_by_name("captured_at").unwrap().is_null(1));
    // Roles (row 0 is supported) and the note's file.
    assert_eq!(ev0.column_by_name("role").unwrap().as_string::<i32>().value(0), "supports");
    assert_eq!(ev0.column_by_name("note_path").unwrap().as_string::<i32>().value(0), "notes/launch.md");
    assert!(ev0.column_by_name("note_path").unwrap().is_null(1));
    assert!(ev0.column_by_name("value").unwrap().is_null(0));
    assert!(col("from_me").as_boolean().value(0));
    assert!(!col("from_me").as_boolean().value(1));
    let filed = col("also_filed_at");
    let filed = filed.as_list::<i32>();
    assert_eq!(filed.value_length(0), 2);
    assert_eq!(filed.value(0).as_string::<i32>().value(1), "maildir/ann/inbox/0.");
    assert_eq!(filed.value_length(1), 0);
    assert_eq!(col("forwarded_by").as_string::<i32>().value(0), "Bob <bob@example.org>");
    assert!(col("forwarded_by").is_null(1));
    let reasons = col("reasons");
    let reasons = reasons.as_list::<i32>();
    assert_eq!(reasons.value_length(0), 1);
    let r0 = reasons.value(0);
    let r0 = r0.as_struct();
    assert_eq!(r0.column_by_name("facet").unwrap().as_string::<i32>().value(0), "date");
    assert_eq!(r0.column_by_name("message").unwrap().as_string::<i32>().value(0), "d");
    assert!(r0.column_by_name("claim_start").unwrap().is_null(0));
    assert_eq!(r0.column_by_name("evidence_spans").unwrap().as_list::<i32>().value_length(0), 2);
    assert!(col("gate_verdict").is_null(0));
    assert_eq!(col("gate_flags").as_list::<i32>().value_length(0), 0);
    // Row 3 (second batch? no: batch 0 holds rows 0..4): REWRITE with a flag.
    assert_eq!(col("gate_verdict").as_string::<i32>().value(3), "REWRITE");
    let flags = col("gate_flags");
    let flags = flags.as_list::<i32>();
    let f3 = flags.value(3);
    assert_eq!(f3.as_struct().column_by_name("check").unwrap().as_string::<i32>().value(0), "hedge");
    // Footer metadata carries the run and its summary.
    let meta = reader.custom_metadata();
    let info: RunInfo = serde_json::from_str(&meta[RUN_INFO_KEY]).unwrap();
    assert_eq!(info, run());
    let summary: RunSummary = serde_json::from_str(&meta[RUN_SUMMARY_KEY]).unwrap();
    assert_eq!(summary.uncheckable["gate_unaligned"], 2);
    assert_eq!(summary.not_checked, vec!["broadened", "weakened"]);
}

#[test]
fn empty_run_is_a_readable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), 0, 4);
    let (reader, batches) = read(&path);
    assert_eq!(reader.schema(), audit_schema());
    assert!(batches.is_empty());
}

#[test]
fn same_rows_same_bytes() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let pa = write(a.path(), 25, 8);
    let pb = write(b.path(), 25, 8);
    assert_eq!(fs::read(pa).unwrap(), fs::read(pb).unwrap());
}

#[test]
fn unfinished_sink_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut sink = ArrowSink::new(dir.path());
        sink.begin(&run()).unwrap();
        sink.write(&row(1)).unwrap();
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    let mut sink = ArrowSink::new(dir.path());
    assert!(sink.write(&row(1)).unwrap_err().to_string().contains("before begin"));
}

#[test]
fn jsonl_lines_are_tagged() {
    let dir = tempfile::tempdir().unwrap();
    let mut sink = JsonlSink::new(dir.path());
    sink.begin(&run()).unwrap();
    for i in 0..3 {
        sink.write(&row(i)).unwrap();
    }
    sink.finish(&RunSummary::default()).unwrap();
    let text = fs::read_to_string(dir.path().join(jsonl::FILE_NAME)).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["type"], "run_begin");
    assert_eq!(lines[0]["data"]["schema_version"], 1);
    assert_eq!(lines[0]["data"]["run"]["run_id"], "20240502T030405Z-1a2b3c4d");
    assert_eq!(lines[1]["type"], "assessment");
    assert_eq!(lines[1]["data"]["assessment"]["status"], "supported");
    let back: AuditRecord = serde_json::from_value(lines[2]["data"].clone()).unwrap();
    assert_eq!(back, row(1));
    assert_eq!(lines[4]["type"], "run_summary");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp file left");
}

/// Readers other than arrow-rs: pyarrow (installed by `.ci/run`) opens the
/// file unchanged. `AMEM_PYTHON` picks the interpreter (default `python3`).
#[test]
fn pyarrow_reads_the_file() {
    let python = std::env::var("AMEM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let probe = std::process::Command::new(&python).args(["-c", "import pyarrow"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED pyarrow_reads_the_file: pyarrow is not importable by {python} (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), 10, 4);
    if let Ok(keep) = std::env::var("AMEM_KEEP_ARROW") {
        fs::copy(&path, keep).unwrap();
    }
    let names: Vec<String> = audit_schema().fields().iter().map(|f| f.name().clone()).collect();
    let script = r#"
import json, sys
import pyarrow as pa
import pyarrow.ipc as ipc
path, names = sys.argv[1], json.loads(sys.argv[2])
with pa.memory_map(path) as src:
    reader = ipc.open_file(src)
    assert reader.num_record_batches == 3, reader.num_record_batches
    summary = json.loads(reader.metadata[b"amem.run_summary"])
    assert summary["uncheckable"] == {"gate_unaligned": 2}, summary
    assert json.loads(reader.metadata[b"amem.run_info"])["run_id"] == "20240502T030405Z-1a2b3c4d"
    t = reader.read_all()
assert t.schema.names == names, t.schema.names
assert t.num_rows == 10, t.num_rows
assert str(t.schema.field("sent_at").type) == "timestamp[us, tz=UTC]", t.schema.field("sent_at").type
assert pa.types.is_dictionary(t.schema.field("status").type)
assert t.schema.metadata[b"amem.audit_schema_version"] == b"4"
rows = t.to_pylist()
assert rows[0]["message_id"] == "<m0@example.org>"
assert [r["status"] for r in rows[:3]] == ["supported", "contradicted", "partially_supported"], [r["status"] for r in rows[:3]]
assert rows[2]["group"] == "unverified"
assert rows[0]["evidence"][0]["uri"] == "amem://launch-notes#chunk=3"
assert rows[0]["evidence"][1]["captured_at"] is None
assert rows[0]["evidence"][0]["note_written_at"].isoformat() == "2024-03-01T00:00:00+00:00", rows[0]["evidence"][0]
assert rows[0]["evidence"][0]["note_written_from"] == "date", rows[0]["evidence"][0]
assert rows[0]["stance_cues"] == [{"class": "hedge", "text": "probably", "start": 11, "end": 19}]
assert rows[3]["gate_flags"][0]["cue"] == "probably"
assert rows[0]["gate_verdict"] is None
assert rows[1]["sent_at"].isoformat() == "2024-04-24T23:06:41+00:00", rows[1]["sent_at"].isoformat()
counts = t.group_by("group").aggregate([("claim_id", "count")]).to_pylist()
assert sum(c["claim_id_count"] for c in counts) == 10
print("ok")
"#;
    let out = std::process::Command::new(&python)
        .args(["-c", script, path.to_str().unwrap(), &serde_json::to_string(&names).unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stdout.trim() == "ok", "pyarrow check failed\nstdout: {stdout}\nstderr: {stderr}");

    // polars and DuckDB (the README's examples), when importable too.
    let probe = std::process::Command::new(&python).args(["-c", "import polars, duckdb"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED pyarrow_reads_the_file (polars/duckdb part): polars or duckdb is not importable by {python}");
        return;
    }
    let script = r#"
import sys
import polars as pl, duckdb
import pyarrow as pa, pyarrow.ipc as ipc
df = pl.read_ipc(sys.argv[1])
assert df.height == 10
assert df.filter(pl.col("group") == "contradicted").height == 2
t = ipc.open_file(pa.memory_map(sys.argv[1])).read_all()
rows = duckdb.sql('SELECT "group", count(*) FROM t GROUP BY ALL ORDER BY ALL').fetchall()
assert rows == [("contradicted", 2), ("supported", 2), ("unverified", 6)], rows
uris = duckdb.sql("SELECT e.uri FROM t, unnest(evidence) AS u(e) ORDER BY 1").fetchall()
assert len(uris) == 8, uris
print("ok")
"#;
    let out = std::process::Command::new(&python).args(["-c", script, path.to_str().unwrap()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stdout.trim() == "ok", "polars/duckdb check failed\nstdout: {stdout}\nstderr: {stderr}");
}

/// A contradicted row as the verifier cites it: the sentence and the
/// conflicting value inside it.
fn conflict_row() -> AuditRecord {
    let mut r = row(1);
    let sentence = Evidence {
        uri: AmemUri::chunk("plant", 0),
        quote: "The plant makes 60 MW.".into(),
        span: Span::new(10, 32),
        item_digest: Digest::of(b"plant"),
        captured_at: None,
        written_at: None,
        source_url: None,
        title: Some("Plant".into()),
    };
    let mut value = sentence.clone();
    value.span = Span::new(26, 31);
    value.quote = "60 MW".into();
    r.assessment.status = Status::Contradicted;
    r.assessment.reasons = vec![Reason {
        facet: "number".into(),
        detail: "40 MW against 60 MW".into(),
        claim_span: Some(Span::new(16, 21)),
        evidence: vec![sentence.clone(), value.clone()],
        rule: "number.value_mismatch".into(),
    }];
    r.evidence = vec![sentence, value];
    r
}

#[test]
fn conflicting_value_is_a_field_of_its_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let mut sink = ArrowSink::new(dir.path());
    sink.begin(&run()).unwrap();
    sink.write(&conflict_row()).unwrap();
    sink.finish(&RunSummary::default()).unwrap();
    let (_, batches) = read(&sink.path());
    let ev = batches[0].column_by_name("evidence").unwrap().as_list::<i32>().value(0);
    let ev = ev.as_struct();
    assert_eq!(ev.len(), 1, "the value is not an item of its own");
    assert_eq!(ev.column_by_name("role").unwrap().as_string::<i32>().value(0), "conflicts");
    assert_eq!(ev.column_by_name("value").unwrap().as_string::<i32>().value(0), "60 MW");
    assert_eq!(ev.column_by_name("value_start").unwrap().as_primitive::<UInt64Type>().value(0), 26);
    let reasons = batches[0].column_by_name("reasons").unwrap().as_list::<i32>().value(0);
    let reasons = reasons.as_struct();
    assert_eq!(reasons.column_by_name("rule").unwrap().as_string::<i32>().value(0), "number.value_mismatch");
    assert_eq!(reasons.column_by_name("claim_start").unwrap().as_primitive::<UInt64Type>().value(0), 16);
    let spans = reasons.column_by_name("evidence_spans").unwrap().as_list::<i32>().value(0);
    assert_eq!(spans.len(), 2, "the reason keeps both spans as cited");
}

fn decoded(a: &arrow_array::ArrayRef) -> Vec<String> {
    let d = a.as_dictionary::<Int32Type>();
    let values = d.values().as_string::<i32>();
    d.keys().iter().map(|k| values.value(k.unwrap() as usize).to_string()).collect()
}

fn write_parquet(dir: &Path, n: usize, batch_rows: usize) -> PathBuf {
    let mut sink = ParquetSink::new(dir).with_batch_rows(batch_rows);
    sink.begin(&run()).unwrap();
    for i in 0..n {
        sink.write(&row(i)).unwrap();
    }
    sink.write(&conflict_row()).unwrap();
    let mut s = RunSummary::default();
    s.uncheckable.insert("gate_unaligned".into(), 2);
    sink.finish(&s).unwrap();
    sink.path()
}

/// The Parquet file holds the same schema and rows as the Arrow one, read
/// back with the parquet crate's own reader.
#[test]
fn parquet_has_the_arrow_schema_and_rows() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(dir.path(), 10, 4);
    let names: Vec<String> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, vec![PARQUET_FILE_NAME.to_string()], "no temp file left");
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap()).unwrap();
    let kv = builder.metadata().file_metadata().key_value_metadata().cloned().unwrap_or_default();
    let summary = kv.iter().find(|k| k.key == RUN_SUMMARY_KEY).and_then(|k| k.value.clone()).unwrap();
    assert_eq!(serde_json::from_str::<RunSummary>(&summary).unwrap().uncheckable["gate_unaligned"], 2);
    let embedded = builder.schema().clone();
    assert_eq!(embedded.metadata().get(SCHEMA_VERSION_KEY).map(String::as_str), Some(SCHEMA_VERSION));
    let batches: Vec<RecordBatch> = builder.with_batch_size(4).build().unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(), vec![4, 4, 3]);
    let schema = batches[0].schema();
    let got: Vec<String> = schema.fields().iter().map(|f| describe(f)).collect();
    let want: Vec<String> = audit_schema().fields().iter().map(|f| describe(f)).collect();
    assert_eq!(got, want);
    // The same values as the Arrow file, row by row.
    let arrow_dir = tempfile::tempdir().unwrap();
    let mut sink = ArrowSink::new(arrow_dir.path()).with_batch_rows(4);
    sink.begin(&run()).unwrap();
    for i in 0..10 {
        sink.write(&row(i)).unwrap();
    }
    sink.write(&conflict_row()).unwrap();
    sink.finish(&RunSummary::default()).unwrap();
    let (_, arrow_batches) = read(&sink.path());
    assert_eq!(arrow_batches.len(), batches.len());
    for (pq, ar) in batches.iter().zip(&arrow_batches) {
        for (i, f) in audit_schema().fields().iter().enumerate() {
            if let DataType::Dictionary(..) = f.data_type() {
                // A Parquet dictionary holds the values its pages use: compare the decoded names.
                assert_eq!(decoded(pq.column(i)), decoded(ar.column(i)), "column {}", f.name());
            } else {
                assert_eq!(pq.column(i).to_data(), ar.column(i).to_data(), "column {}", f.name());
            }
        }
    }
}

/// Readers other than arrow-rs: pyarrow and DuckDB (both installed by
/// `.ci/run`) read `audit.parquet` directly.
#[test]
fn parquet_reads_back_in_pyarrow_and_duckdb() {
    let python = std::env::var("AMEM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let probe = std::process::Command::new(&python).args(["-c", "import pyarrow.parquet, duckdb"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        println!(
            "SKIPPED parquet_reads_back_in_pyarrow_and_duckdb: pyarrow or duckdb is not importable by {python} (.ci/run installs both)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(dir.path(), 10, 4);
    let names: Vec<String> = audit_schema().fields().iter().map(|f| f.name().clone()).collect();
    let script = r#"
import json, sys
import pyarrow.parquet as pq, duckdb
path, names = sys.argv[1], json.loads(sys.argv[2])
t = pq.read_table(path)
assert t.schema.names == names, t.schema.names
assert t.num_rows == 11, t.num_rows
assert str(t.schema.field("sent_at").type) == "timestamp[us, tz=UTC]", t.schema.field("sent_at").type
meta = pq.read_metadata(path).metadata
assert json.loads(meta[b"amem.run_summary"])["uncheckable"] == {"gate_unaligned": 2}
assert json.loads(meta[b"amem.run_info"])["run_id"] == "20240502T030405Z-1a2b3c4d"
assert t.schema.metadata[b"amem.audit_schema_version"] == b"4"
rows = t.to_pylist()
assert rows[0]["evidence"][0]["role"] == "supports", rows[0]["evidence"]
assert rows[0]["evidence"][0]["note_path"] == "notes/launch.md"
assert rows[0]["from_me"] is True and rows[1]["from_me"] is False
assert rows[0]["reasons"][0]["facet"] == "date"
last = rows[10]
assert last["status"] == "contradicted"
assert len(last["evidence"]) == 1 and last["evidence"][0]["value"] == "60 MW", last["evidence"]
assert [s["start"] for s in last["reasons"][0]["evidence_spans"]] == [10, 26]
con = duckdb.connect()
src = "read_parquet('%s')" % path
groups = con.execute('SELECT "group", count(*) FROM ' + src + ' GROUP BY ALL ORDER BY ALL').fetchall()
assert groups == [("contradicted", 2), ("supported", 2), ("unverified", 7)], groups
conflicts = con.execute(
    "SELECT text, e.quote, e.value FROM (SELECT text, unnest(evidence) AS e FROM " + src + ") WHERE e.role = 'conflicts'"
).fetchall()
assert conflicts == [(last["text"], "The plant makes 60 MW.", "60 MW")], conflicts
rules = con.execute("SELECT r.rule, count(*) FROM (SELECT unnest(reasons) AS r FROM " + src + ") GROUP BY ALL ORDER BY ALL").fetchall()
assert rules == [("number.value_mismatch", 1), ("r", 10)], rules
mine = con.execute("SELECT count(*) FROM " + src + " WHERE from_me").fetchone()[0]
assert mine == 3, mine
print("ok")
"#;
    let out = std::process::Command::new(&python)
        .args(["-c", script, path.to_str().unwrap(), &serde_json::to_string(&names).unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stdout.trim() == "ok", "pyarrow/duckdb parquet check failed\nstdout: {stdout}\nstderr: {stderr}");
}
