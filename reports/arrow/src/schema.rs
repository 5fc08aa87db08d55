//! The `audit.arrow` schema, defined once. Every field is documented in
//! `reports/arrow/README.md`; the pinned list in the tests fails on any change.

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use std::sync::{Arc, LazyLock};

/// Bumped on any change to the field list, a type or a nullability, and
/// stored in the schema metadata under [`SCHEMA_VERSION_KEY`].
pub const SCHEMA_VERSION: &str = "4";

/// The schema metadata key holding [`SCHEMA_VERSION`].
pub const SCHEMA_VERSION_KEY: &str = "amem.audit_schema_version";

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

fn u64f(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

pub(crate) fn ts_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

pub(crate) fn dict_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// Struct fields of one stance cue.
pub(crate) fn cue_fields() -> Fields {
    Fields::from(vec![utf8("class", false), utf8("text", false), u64f("start"), u64f("end")])
}

fn u64n(name: &str) -> Field {
    Field::new(name, DataType::UInt64, true)
}

/// Struct fields of one piece of evidence: one sentence the verdict rests
/// on, its role, the value inside it a reason names, and the note's file.
pub(crate) fn evidence_fields() -> Fields {
    Fields::from(vec![
        utf8("uri", false),
        utf8("quote", false),
        u64f("start"),
        u64f("end"),
        Field::new("captured_at", ts_type(), true),
        utf8("digest", false),
        utf8("source_url", true),
        utf8("title", true),
        // Added in schema version 2.
        utf8("role", false),
        utf8("value", true),
        u64n("value_start"),
        u64n("value_end"),
        utf8("note_path", true),
        Field::new("note_modified_at", ts_type(), true),
        // Added in schema version 3.
        Field::new("note_written_at", ts_type(), true),
        utf8("note_written_from", true),
    ])
}

/// Struct fields of one evidence span a reason cites.
pub(crate) fn span_fields() -> Fields {
    Fields::from(vec![utf8("uri", false), u64f("start"), u64f("end")])
}

/// Struct fields of one reason.
pub(crate) fn reason_fields() -> Fields {
    Fields::from(vec![
        utf8("facet", false),
        utf8("rule", false),
        utf8("message", false),
        u64n("claim_start"),
        u64n("claim_end"),
        list_of("evidence_spans", span_fields()),
    ])
}

/// Struct fields of one gate flag.
pub(crate) fn flag_fields() -> Fields {
    Fields::from(vec![
        utf8("check", false),
        utf8("cue", false),
        utf8("source_sentence", false),
        utf8("memory_sentence", false),
        utf8("rule", false),
    ])
}

fn list_of(name: &str, fields: Fields) -> Field {
    Field::new(name, DataType::List(Arc::new(Field::new_list_field(DataType::Struct(fields), false))), false)
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(
        Schema::new(vec![
            utf8("run_id", false),
            utf8("source_kind", false),
            utf8("archive", false),
            utf8("conversation", false),
            utf8("message_id", false),
            utf8("locator", false),
            utf8("author", false),
            Field::new("sent_at", ts_type(), false),
            utf8("subject", true),
            utf8("message_digest", false),
            utf8("claim_id", false),
            utf8("text", false),
            u64f("span_start"),
            u64f("span_end"),
            utf8("kind", false),
            list_of("stance_cues", cue_fields()),
            Field::new("status", dict_type(), false),
            Field::new("group", dict_type(), false),
            utf8("method", false),
            utf8("policy_version", false),
            Field::new("assessed_at", ts_type(), true),
            list_of("evidence", evidence_fields()),
            utf8("gate_verdict", true),
            list_of("gate_flags", flag_fields()),
            // Added in schema version 2.
            Field::new("from_me", DataType::Boolean, false),
            list_of("reasons", reason_fields()),
            // Added in schema version 4.
            Field::new("also_filed_at", DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, false))), false),
            utf8("forwarded_by", true),
        ])
        .with_metadata([(SCHEMA_VERSION_KEY, SCHEMA_VERSION)]),
    )
});

/// The schema of `audit.arrow`: one row per claim assessment. Shared, built once.
pub fn audit_schema() -> SchemaRef {
    SCHEMA.clone()
}
