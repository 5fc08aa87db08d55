use super::*;
use amem_records::{
    AmemUri, Assessment, Claim, ClaimKind, Cue, CueClass, Digest, Evidence, GateFlag, GateSummary, GateVerdict, MessageId, Reason, RunId,
    RunParams, RunSource, Skipped, SourceKind, Span, Status,
};

fn run() -> RunInfo {
    let t: jiff::Timestamp = "2024-05-02T03:04:05Z".parse().unwrap();
    RunInfo {
        run_id: RunId("20240502T030405Z-1a2b3c4d".into()),
        started_at: t,
        params: RunParams {
            sources: vec![
                RunSource { kind: SourceKind::GMAIL, path: "exports/mail.mbox".into() },
                RunSource { kind: SourceKind::SLACK, path: "exports/acme".into() },
            ],
            since: Some("2024-04-25T00:00:00Z".parse().unwrap()),
            until: None,
            now: t,
            offline: true,
            policy_version: "policy@1".into(),
            home: "examples/home".into(),
            who: amem_records::Who::All,
            include_bulk: false,
            include_forwarded: false,
            shard: None,
            reassess: false,
        },
    }
}

fn ev(item: &str, quote: &str, url: Option<&str>) -> Evidence {
    Evidence {
        uri: AmemUri::chunk(item, 2),
        quote: quote.into(),
        span: Span::new(10, 10 + quote.len()),
        item_digest: Digest::of(item.as_bytes()),
        captured_at: Some("2024-04-30T12:00:00Z".into()),
        written_at: None,
        source_url: url.map(String::from),
        title: Some("Launch notes".into()),
    }
}

#[allow(clippy::too_many_arguments)]
fn row(
    source: SourceKind,
    conv: &str,
    author: &str,
    sent: &str,
    text: &str,
    kind: ClaimKind,
    status: Status,
    evidence: Vec<Evidence>,
    gate: Option<GateSummary>,
) -> AuditRecord {
    let digest = Digest::of(format!("{conv}{sent}{text}").as_bytes());
    let span = Span::new(0, text.len());
    let cues = text
        .find("probably")
        .map(|i| vec![Cue { class: CueClass::Hedge, text: "probably".into(), span: Span::new(i, i + 8), rule: "hedge.probably".into() }])
        .unwrap_or_default();
    let claim = Claim {
        id: Claim::id_for(&digest, span, text),
        message: MessageId(format!("<{sent}@example.org>")),
        message_digest: digest,
        span,
        text: text.into(),
        kind,
        cues,
        extractor: "rules@1".into(),
    };
    let assessment = Assessment {
        claim: claim.id,
        status,
        method: "deterministic@1".into(),
        reasons: vec![Reason {
            facet: "date".into(),
            detail: "Friday matches Friday".into(),
            claim_span: None,
            evidence: evidence.clone(),
            rule: "date.match".into(),
        }],
        gate,
        assessed_at: "2024-05-02T03:04:06Z".into(),
        policy_version: "policy@1".into(),
    };
    AuditRecord {
        run_id: RunId("20240502T030405Z-1a2b3c4d".into()),
        source,
        archive: if source == SourceKind::SLACK { "exports/acme".into() } else { "exports/mail.mbox".into() },
        conversation: conv.into(),
        message_id: claim.message.clone(),
        locator: "exports/mail.mbox:byte 0".into(),
        author: author.into(),
        sent_at: sent.parse().unwrap(),
        subject: Some("Launch *plans*".into()),
        from_me: author.contains("alice@example.org"),
        notes: evidence
            .iter()
            .map(|e| amem_records::NoteRef {
                item: e.uri.item.clone(),
                path: format!("notes/{}.md", e.uri.item),
                modified_at: Some("2024-04-01T08:00:00Z".into()),
                written_at: Some("2024-03-01T00:00:00Z".into()),
                written_from: Some("date".into()),
            })
            .collect(),
        also_filed_at: vec![],
        forwarded_by: None,
        forwarded_by_me: false,
        claim,
        assessment,
        evidence,
    }
}

/// A contradicted row as the verifier cites one: the sentence, and the
/// conflicting value inside it as a second piece of evidence.
fn conflict_row(author: &str, sent: &str) -> AuditRecord {
    let sentence = ev("plant", "The plant makes 60 MW.", None);
    let mut value = sentence.clone();
    value.span = Span::new(sentence.span.start + 16, sentence.span.start + 21);
    value.quote = "60 MW".into();
    let mut r =
        row(SourceKind::GMAIL, "thread-c", author, sent, "The plant makes 40 MW.", ClaimKind::Quantity, Status::Contradicted, vec![], None);
    r.assessment.reasons = vec![Reason {
        facet: "number".into(),
        detail: "the claim says 40 MW, the evidence says 60 MW".into(),
        claim_span: Some(Span::new(16, 21)),
        evidence: vec![sentence.clone(), value.clone()],
        rule: "number.value_mismatch".into(),
    }];
    r.evidence = vec![sentence, value];
    r
}

fn rows() -> Vec<AuditRecord> {
    let pass = Some(GateSummary { verdict: GateVerdict::Pass, flags: vec![] });
    let hedge = Some(GateSummary {
        verdict: GateVerdict::Rewrite,
        flags: vec![GateFlag {
            check: "hedge".into(),
            source_sentence: "The launch will probably move to Friday.".into(),
            source_span: Span::new(16, 24),
            cue: "probably".into(),
            memory_sentence: "The launch moved to Friday.".into(),
            rule: "hedge.probably".into(),
        }],
    });
    let unaligned = Some(GateSummary { verdict: GateVerdict::Uncheckable, flags: vec![] });
    vec![
        row(
            SourceKind::GMAIL,
            "thread-b",
            "Bob <bob@example.org>",
            "2024-04-29T09:00:00Z",
            "The launch is probably on Friday.",
            ClaimKind::Date,
            Status::Supported,
            vec![ev("launch-notes", "The launch is on Friday.", None)],
            hedge.clone(),
        ),
        row(
            SourceKind::GMAIL,
            "thread-a",
            "Alice <alice@example.org>",
            "2024-04-28T09:00:00Z",
            "# Revenue was *2.3 million* in 2023 <script>",
            ClaimKind::Quantity,
            Status::Contradicted,
            vec![ev("finance", "Revenue was 1.9 million in 2023.", Some("https://example.org/report"))],
            hedge,
        ),
        row(
            SourceKind::SLACK,
            "general",
            "carol",
            "2024-04-30T09:00:00Z",
            "The office closes at 6pm.\nAccording to Dave, anyway.",
            ClaimKind::Fact,
            Status::NoEvidence,
            vec![],
            unaligned,
        ),
        row(
            SourceKind::GMAIL,
            "thread-a",
            "Alice <alice@example.org>",
            "2024-04-27T09:00:00Z",
            "The board met on Tuesday.",
            ClaimKind::Date,
            Status::NotAddressed,
            vec![ev("board", "The board meets monthly.", None)],
            pass,
        ),
    ]
}

fn summary(rows: &[AuditRecord]) -> RunSummary {
    let mut s =
        RunSummary { messages_read: 7, local_hits: 3, finished_at: Some("2024-05-02T03:05:00Z".parse().unwrap()), ..Default::default() };
    for r in rows {
        s.count_claim(&r.claim);
        s.count_record(r);
    }
    s.count_skipped(&Skipped { stage: "import".into(), locator: "exports/bad.mbox:byte 4096".into(), reason: "truncated message".into() });
    s
}

fn render(rows: &[AuditRecord]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let mut sink = MarkdownSink::new(&out);
    sink.begin(&run()).unwrap();
    for r in rows {
        sink.write(r).unwrap();
    }
    sink.finish(&summary(rows)).unwrap();
    let names: Vec<String> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, vec![FILE_NAME.to_string()], "only the report is left behind");
    fs::read_to_string(out.join(FILE_NAME)).unwrap()
}

/// The whole report, pinned. Set AMEM_UPDATE_SNAPSHOTS=1 to rewrite the
/// snapshot after an intended change, then review the diff.
#[test]
fn snapshot() {
    let got = render(&rows());
    let snap = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/audit.md");
    if std::env::var_os("AMEM_UPDATE_SNAPSHOTS").is_some() {
        fs::create_dir_all(snap.parent().unwrap()).unwrap();
        fs::write(&snap, &got).unwrap();
    }
    let want = fs::read_to_string(&snap).expect("snapshot missing: run with AMEM_UPDATE_SNAPSHOTS=1");
    assert_eq!(got, want, "audit.md changed; if intended, rerun with AMEM_UPDATE_SNAPSHOTS=1 and review the diff");
}

#[test]
fn arrival_order_does_not_matter() {
    let mut r = rows();
    let a = render(&r);
    r.reverse();
    let b = render(&r);
    assert_eq!(a, b);
}

#[test]
fn sections_in_order_and_grouped_by_conversation() {
    let md = render(&rows());
    let pos = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s:?} missing in\n{md}"));
    let order = [
        "## What needs attention",
        "## ⚠ Contradicted (1, 1 yours)",
        "## ✅ Supported (1)",
        "## ❓ Unverified (2, 1 yours)",
        "## Run",
        "## Counts",
        "## Skipped (1)",
        "## Uncheckable (1)",
        "## Not checked",
    ];
    for w in order.windows(2) {
        assert!(pos(w[0]) < pos(w[1]), "{} before {}", w[0], w[1]);
    }
    // Unverified is condensed: counts by conversation and author, then one line per claim, yours first.
    let unv = &md[pos("## ❓ Unverified")..pos("## Run")];
    assert!(unv.contains("| conversation | claims | yours |"), "{unv}");
    assert!(unv.contains("| gmail · `exports/mail.mbox` · `thread-a` | 1 | 1 |"), "{unv}");
    assert!(unv.contains("| author | claims | yours |"));
    assert!(unv.find("**Alice \\<alice@example.org\\>** (you)").unwrap() < unv.find("**carol**").unwrap(), "{unv}");
    assert_eq!(md.matches("### gmail · `exports/mail.mbox` · `thread-a`").count(), 1, "one per listed group it appears in");
    assert!(md.contains("broadened, weakened"));
    assert!(md.contains("`exports/bad.mbox:byte 4096`"));
    assert!(md.contains("| ❓ Unverified | 2 (not_addressed 1, no_evidence 1) |"), "{md}");
}

#[test]
fn claim_text_is_verbatim_and_escaped() {
    let md = render(&rows());
    // Hedge kept, cue listed.
    assert!(md.contains("  > The launch is probably on Friday."));
    assert!(md.contains("stance cues: hedge `probably`"));
    // Markup in user text is neutralised, not rendered.
    assert!(md.contains(r"  > \# Revenue was \*2.3 million\* in 2023 \<script\>"), "{md}");
    assert!(!md.contains("<script>"));
    // Multi-line claims stay inside the quote.
    // Listed unverified claims are one line each.
    assert!(md.contains(": The office closes at 6pm. According to Dave, anyway. · fact no_evidence"), "{md}");
    // Citations.
    assert!(md.contains("<https://example.org/report> · captured 2024-04-30 12:00:00 UTC · `amem://finance#chunk=2`"), "{md}");
    assert!(md.contains("**Alice \\<alice@example.org\\>** (you), 2024-04-28 09:00:00 UTC"), "{md}");
    assert!(md.contains("  - gate: **REWRITE**\n    - hedge: cue `probably` · rule `hedge.probably`"));
    // Where the original is, and the note's title, path and own time.
    assert!(md.contains("at `exports/mail.mbox:byte 0`"));
    assert!(
        md.contains("**supports** · “Launch notes” · `wiki/notes/launch-notes.md` · written 2024-03-01 (front matter `date:`)"),
        "{md}"
    );
    // An own note's indexing time is not shown as its time.
    let sup = &md[md.find("## ✅ Supported").unwrap()..md.find("## ❓ Unverified").unwrap()];
    assert!(!sup.contains("captured"), "{sup}");
    // REWRITE beside a ✅ is explained once per such claim.
    assert_eq!(md.matches("REWRITE beside ✅: your notes support the claim").count(), 1);
}

/// The conflicting value is a role inside its sentence, not an evidence item
/// of its own; headings and bare numbers are never evidence items.
#[test]
fn conflicting_value_is_shown_inside_its_sentence() {
    let mut r = conflict_row("Bob <bob@example.org>", "2024-04-26T09:00:00Z");
    let heading = ev("plant", "# 60", None);
    r.assessment.reasons[0].evidence.push(ev("other", "## Plant", None));
    r.assessment.reasons.push(Reason {
        facet: "topic".into(),
        detail: String::new(),
        claim_span: None,
        evidence: vec![heading],
        rule: "align.topical_only".into(),
    });
    let md = render(&[r]);
    assert_eq!(md.matches("  - evidence **").count(), 1, "{md}");
    assert!(md.contains("  - evidence **conflicts** · “Launch notes”"), "{md}");
    assert!(md.contains("    > The plant makes 60 MW.\n\n    - conflicting value: `60 MW` (bytes 26–31)"), "{md}");
}

/// Yours first in a group, under their own heading; others' after.
#[test]
fn yours_lead_each_group() {
    let rows = vec![
        conflict_row("Bob <bob@example.org>", "2024-04-20T09:00:00Z"),
        conflict_row("Alice <alice@example.org>", "2024-04-29T09:00:00Z"),
    ];
    let md = render(&rows);
    let pos = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s:?} missing in\n{md}"));
    assert!(md.contains("## ⚠ Contradicted (2, 1 yours)"));
    assert!(pos("**Yours**") < pos("**Alice") && pos("**Alice") < pos("**Others'**") && pos("**Others'**") < pos("**Bob"));
    assert!(md.contains("- ⚠ **2 contradicted** (1 yours)"));
}

/// Many unverified rows: counted by conversation and author, the most
/// check-worthy listed, the rest pointed at; `--full` lists every one.
#[test]
fn unverified_is_condensed_unless_full() {
    let base = rows().remove(3);
    let mut many = Vec::new();
    for i in 0..300u32 {
        let mut r = base.clone();
        r.conversation = format!("c{:02}", i % 30);
        r.author = format!("person{} <p{}@example.org>", i % 20, i % 20);
        r.from_me = false;
        r.claim.text = if i == 7 { "Revenue rose 12% in 2023.".into() } else { format!("Claim {i} is here.") };
        r.claim.kind = if i == 7 { ClaimKind::Quantity } else { ClaimKind::Fact };
        r.assessment.status = if i % 2 == 0 { Status::NoEvidence } else { Status::NotAddressed };
        r.claim.id = Claim::id_for(&r.claim.message_digest, r.claim.span, &r.claim.text);
        many.push(r);
    }
    let md = render(&many);
    let listed = md.matches("\n- **person").count();
    assert_eq!(listed as u64, UNVERIFIED_LISTED, "{md}");
    assert!(md.contains("_and 15 more conversations._"), "{md}");
    assert!(md.contains("_and 5 more authors._"), "{md}");
    assert!(md.contains(&format!("_{} more unverified claims are in `audit.arrow`", 300 - UNVERIFIED_LISTED)));
    // The quantity with evidence nearby is the most check-worthy.
    let first = md.find("\n- **person").unwrap();
    assert!(md[first..].starts_with("\n- **person7"), "{}", &md[first..first + 200]);
    let dir = tempfile::tempdir().unwrap();
    let mut sink = MarkdownSink::new(dir.path()).full(true);
    sink.begin(&run()).unwrap();
    for r in &many {
        sink.write(r).unwrap();
    }
    sink.finish(&summary(&many)).unwrap();
    let full = fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
    assert_eq!(full.matches("  > Claim ").count(), 299);
    assert!(full.contains("Every claim is listed (`--full`)."));
}

#[test]
fn empty_run_still_reports_every_section() {
    let md = render(&[]);
    for s in ["## ✅ Supported (0)", "## ⚠ Contradicted (0)", "## ❓ Unverified (0)", "_None._", "## Skipped (1)", "## Not checked"] {
        assert!(md.contains(s), "{s:?} missing in\n{md}");
    }
    assert!(md.contains("_Nothing was uncheckable._"));
}

#[test]
fn write_before_begin_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut sink = MarkdownSink::new(dir.path());
    let e = sink.write(&rows()[0]).unwrap_err();
    assert!(e.to_string().contains("before begin"), "{e}");
}

#[test]
fn dropped_sink_leaves_no_report() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut sink = MarkdownSink::new(dir.path());
        sink.begin(&run()).unwrap();
        sink.write(&rows()[0]).unwrap();
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn many_rows_stream_through_the_row_store() {
    // 5,000 rows over 50 conversations, all listed (`--full`): sorted
    // output, one heading each.
    let base = rows().remove(0);
    let dir = tempfile::tempdir().unwrap();
    let mut sink = MarkdownSink::new(dir.path()).full(true);
    sink.begin(&run()).unwrap();
    let mut s = RunSummary::default();
    for i in (0..5000u32).rev() {
        let mut r = base.clone();
        r.conversation = format!("c{:02}", i % 50);
        r.claim.text = format!("Claim number {i} is here.");
        r.claim.id = Claim::id_for(&r.claim.message_digest, r.claim.span, &r.claim.text);
        s.count_record(&r);
        sink.write(&r).unwrap();
    }
    sink.finish(&s).unwrap();
    let md = fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
    assert_eq!(md.matches("\n### gmail").count(), 50);
    assert_eq!(md.matches("  > Claim number").count(), 5000);
    assert!(md.find("`c00`").unwrap() < md.find("`c49`").unwrap());
}

/// Renders `rows` in the default mode, through the row store or the in-memory listings.
fn render_default(rows: &[AuditRecord], store: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let sink = MarkdownSink::new(dir.path());
    let mut sink = if store { sink.store_always() } else { sink };
    sink.begin(&run()).unwrap();
    for r in rows {
        sink.write(r).unwrap();
    }
    sink.finish(&summary(rows)).unwrap();
    let names: Vec<String> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, vec![FILE_NAME.to_string()], "only the report is left behind");
    fs::read_to_string(dir.path().join(FILE_NAME)).unwrap()
}

/// The default report keeps only the rows it lists in memory; it must show
/// exactly what the row store's sorted queries show: more rows than every
/// listing holds, in every group, the user's own among them, uncheckable
/// ones, ties on every key but the last, arriving in no particular order.
#[test]
fn in_memory_listings_match_the_row_store() {
    let base = rows();
    let statuses = [
        Status::Contradicted,
        Status::Supported,
        Status::NoEvidence,
        Status::NotAddressed,
        Status::PartiallySupported,
        Status::Ambiguous,
        Status::Stale,
    ];
    let kinds = [ClaimKind::Fact, ClaimKind::Quantity, ClaimKind::Date, ClaimKind::Causal, ClaimKind::Prediction];
    let mut many = Vec::new();
    // A fixed pseudo-random walk: arrival order, keys and ties vary.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for i in 0..4_000u32 {
        let mut r = base[(next(base.len() as u64)) as usize].clone();
        r.conversation = format!("c{:03}", next(120));
        r.author = if next(5) == 0 { "Alice <alice@example.org>".into() } else { format!("person{} <p@example.org>", next(40)) };
        r.from_me = r.author.contains("alice@");
        r.sent_at = jiff::Timestamp::from_second(1_700_000_000 + next(50) as i64 * 3600).unwrap();
        r.message_id = MessageId(format!("<m{}@example.org>", next(60)));
        r.claim.text = if next(3) == 0 { format!("Revenue rose {}% in 2023.", next(9)) } else { format!("Claim {i} is here.") };
        r.claim.kind = kinds[next(kinds.len() as u64) as usize];
        r.claim.span = Span::new(next(3) as usize, 40);
        r.claim.id = Claim::id_for(&r.claim.message_digest, r.claim.span, &r.claim.text);
        r.assessment.status = statuses[next(statuses.len() as u64) as usize];
        r.assessment.method = if next(4) == 0 { "deterministic@1+trust_list".into() } else { "deterministic@1".into() };
        r.assessment.gate = match next(6) {
            0 => Some(GateSummary { verdict: GateVerdict::Uncheckable, flags: vec![] }),
            1 => Some(GateSummary { verdict: GateVerdict::Pass, flags: vec![] }),
            _ => r.assessment.gate.clone(),
        };
        many.push(r.clone());
        if next(10) == 0 {
            // The same claim again, differing only in its detail: the JSON breaks the tie.
            r.assessment.reasons[0].detail.push_str(" (again)");
            many.push(r);
        }
    }
    let memory = render_default(&many, false);
    let store = render_default(&many, true);
    assert_eq!(memory, store);
    for s in ["## ⚠ Contradicted (", "_and ", "more in `audit.arrow` (`gate_verdict = 'UNCHECKABLE'`)", "**Yours**"] {
        assert!(memory.contains(s), "{s:?} missing: the test must reach every cut");
    }
    let contradicted = many.iter().filter(|r| r.group() == Group::Contradicted).count() as u64;
    assert!(contradicted > CONTRADICTED_LISTED, "{contradicted}");
    let uncheckable = many.iter().filter(|r| r.is_uncheckable()).count() as u64;
    assert!(uncheckable > UNCHECKABLE_LISTED, "{uncheckable}");
    many.reverse();
    assert_eq!(render_default(&many, false), memory, "arrival order does not matter");
}

#[test]
fn a_notes_time_says_which_time_it_is() {
    let note = |written_at: Option<&str>, written_from: Option<&str>, modified_at: Option<&str>| amem_records::NoteRef {
        item: "i".into(),
        path: "team.md".into(),
        modified_at: modified_at.map(Into::into),
        written_at: written_at.map(Into::into),
        written_from: written_from.map(Into::into),
    };
    let t = |n| crate::render::note_time(&n);
    assert_eq!(t(note(Some("2019-03-01T00:00:00Z"), Some("date"), None)).as_deref(), Some("written 2019-03-01 (front matter `date:`)"));
    assert_eq!(
        t(note(Some("2024-01-10T07:30:00Z"), Some("updated"), None)).as_deref(),
        Some("written 2024-01-10 07:30:00 UTC (front matter `updated:`)")
    );
    assert_eq!(
        t(note(Some("2022-07-04T12:00:00Z"), Some("mtime"), Some("2026-01-01T00:00:00Z"))).as_deref(),
        Some("modified 2022-07-04 12:00:00 UTC (file time)"),
        "the time the index read, not the file's time when the report is written"
    );
    assert_eq!(t(note(None, None, Some("2026-01-01T00:00:00Z"))).as_deref(), Some("modified 2026-01-01 00:00:00 UTC (file time)"));
    assert_eq!(t(note(None, None, None)), None);
}

/// A forwarded part audited as its author's message says who forwarded it
/// and whose words they are; a copy's other places are listed; the counts
/// say how much quoted and forwarded text there was and whether it was audited.
#[test]
fn forwarded_rows_copies_and_quoted_text_are_said() {
    let mut fwd = conflict_row("Wire Desk <desk@news.example>", "2024-05-01T10:00:00Z");
    fwd.forwarded_by = Some("Alice <alice@example.org>".into());
    fwd.forwarded_by_me = true;
    let mut other = conflict_row("Wire Desk <desk@news.example>", "2024-05-01T11:00:00Z");
    other.forwarded_by = Some("Bob <bob@example.org>".into());
    other.also_filed_at = vec!["exports/old.mbox:byte 9".into()];
    let rows = vec![fwd, other];
    let mut s = summary(&rows);
    s.copies = 1;
    s.quoted =
        amem_records::QuotedTally { reply_messages: 3, reply_chars: 120, forward_messages: 2, forward_chars: 90, forwarded_audited: 2 };
    let dir = tempfile::tempdir().unwrap();
    let mut sink = MarkdownSink::new(dir.path()).full(true);
    sink.begin(&run()).unwrap();
    for r in &rows {
        sink.write(r).unwrap();
    }
    sink.finish(&s).unwrap();
    let md = std::fs::read_to_string(sink.path()).unwrap();
    assert!(md.contains("(you forwarded this; the words are Wire Desk \\<desk@news.example\\>'s)"), "{md}");
    assert!(md.contains("(forwarded by Bob \\<bob@example.org\\>; the words are Wire Desk"), "{md}");
    assert!(md.contains("(the same mail is also filed at `exports/old.mbox:byte 9`; audited once)"), "{md}");
    assert!(
        md.contains("| quoted replies, not audited (someone's earlier mail, audited where it was sent) | 3 messages, 120 characters |"),
        "{md}"
    );
    assert!(md.contains("audited as its original authors' claims (`--include-forwarded`) | 2 messages, 90 characters, 2 parts |"), "{md}");
    assert!(md.contains("audited once | 1 |"), "{md}");
}
