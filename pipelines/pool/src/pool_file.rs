//! `pool.arrow`: every candidate of a pool, one row each, as an Arrow IPC
//! file (so pyarrow, polars and DuckDB open it), written in batches.
//!
//! Schema (all non-null unless noted): `source_id` Utf8, `write_id` Utf8,
//! `source` Utf8, `memory` Utf8, `verdict` Utf8 (PASS, PASS_WITH_FLAGS,
//! REWRITE, REJECT, UNCHECKABLE), `flags` List<Struct{check Utf8, cue Utf8,
//! rule Utf8, source_sentence Utf8, memory_sentence Utf8}>.

use crate::{Candidate, Error, Result};
use amem_records::{GateFlag, GateVerdict, Span};
use arrow_array::builder::{ListBuilder, StringBuilder, StructBuilder};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per record batch.
const BATCH_ROWS: usize = 1024;

fn flag_fields() -> Fields {
    Fields::from(["check", "cue", "rule", "source_sentence", "memory_sentence"].map(|n| Field::new(n, DataType::Utf8, false)).to_vec())
}

/// The pool file's schema.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("source_id", DataType::Utf8, false),
        Field::new("write_id", DataType::Utf8, false),
        Field::new("source", DataType::Utf8, false),
        Field::new("memory", DataType::Utf8, false),
        Field::new("verdict", DataType::Utf8, false),
        Field::new("flags", DataType::List(Arc::new(Field::new("item", DataType::Struct(flag_fields()), true))), false),
    ]))
}

/// Writes `pool.arrow` in batches; `finish` makes it final (temp + rename).
pub struct PoolWriter {
    path: PathBuf,
    tmp: PathBuf,
    writer: arrow_ipc::writer::FileWriter<File>,
    rows: Vec<Candidate>,
}

impl PoolWriter {
    /// Start `dir/pool.arrow`.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(dir: &Path) -> Result<PoolWriter> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join("pool.arrow");
        let tmp = dir.join("pool.arrow.tmp");
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let writer = arrow_ipc::writer::FileWriter::try_new(f, &schema()).map_err(|e| Error::arrow(&tmp, e))?;
        Ok(PoolWriter { path, tmp, writer, rows: Vec::with_capacity(BATCH_ROWS) })
    }

    /// Add one candidate.
    ///
    /// # Errors
    /// A batch cannot be written.
    pub fn push(&mut self, c: Candidate) -> Result<()> {
        self.rows.push(c);
        if self.rows.len() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let batch = to_batch(&self.rows).map_err(|e| Error::arrow(&self.tmp, e))?;
        self.writer.write(&batch).map_err(|e| Error::arrow(&self.tmp, e))?;
        self.rows.clear();
        Ok(())
    }

    /// Write the rest, close the file and move it into place.
    ///
    /// # Errors
    /// The file cannot be finished or renamed.
    pub fn finish(mut self) -> Result<PathBuf> {
        self.flush()?;
        self.writer.finish().map_err(|e| Error::arrow(&self.tmp, e))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        Ok(self.path)
    }
}

fn to_batch(rows: &[Candidate]) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let col = |f: fn(&Candidate) -> &str| -> ArrayRef { Arc::new(StringArray::from_iter_values(rows.iter().map(f))) };
    let mut flags = ListBuilder::new(StructBuilder::from_fields(flag_fields(), rows.len())).with_field(Arc::new(Field::new(
        "item",
        DataType::Struct(flag_fields()),
        true,
    )));
    for r in rows {
        let sb = flags.values();
        for f in &r.flags {
            for (i, v) in [&f.check, &f.cue, &f.rule, &f.source_sentence, &f.memory_sentence].into_iter().enumerate() {
                sb.field_builder::<StringBuilder>(i).expect("invariant: flag fields are strings").append_value(v);
            }
            sb.append(true);
        }
        flags.append(true);
    }
    RecordBatch::try_new(
        schema(),
        vec![
            col(|c| &c.source_id),
            col(|c| &c.write_id),
            col(|c| &c.source),
            col(|c| &c.memory),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|c| c.verdict.as_str()))),
            Arc::new(flags.finish()),
        ],
    )
}

fn parse_verdict(s: &str) -> Option<GateVerdict> {
    [GateVerdict::Pass, GateVerdict::PassWithFlags, GateVerdict::Rewrite, GateVerdict::Reject, GateVerdict::Uncheckable]
        .into_iter()
        .find(|v| v.as_str() == s)
}

/// Read every candidate of `dir/pool.arrow` (flags keep check, cue and rule
/// and both sentences; spans are not stored in the pool file).
///
/// # Errors
/// The file is missing, not an Arrow file, or not a pool file.
pub fn read(dir: &Path) -> Result<Vec<Candidate>> {
    let path = dir.join("pool.arrow");
    let f = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let reader = arrow_ipc::reader::FileReader::try_new(f, None).map_err(|e| Error::arrow(&path, e))?;
    let bad = |what: &str| Error::Input { path: path.clone(), line: 0, reason: format!("not a pool file: {what}") };
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| Error::arrow(&path, e))?;
        let s = |name: &str| -> Result<&StringArray> {
            batch.column_by_name(name).and_then(|c| c.as_any().downcast_ref::<StringArray>()).ok_or_else(|| bad(name))
        };
        let (sid, wid, src, mem, ver) = (s("source_id")?, s("write_id")?, s("source")?, s("memory")?, s("verdict")?);
        let flags =
            batch.column_by_name("flags").and_then(|c| c.as_any().downcast_ref::<arrow_array::ListArray>()).ok_or_else(|| bad("flags"))?;
        for i in 0..batch.num_rows() {
            let mut fl = Vec::new();
            let v = flags.value(i);
            let st = v.as_any().downcast_ref::<arrow_array::StructArray>().ok_or_else(|| bad("flags"))?;
            let get = |j: usize, k: usize| st.column(j).as_any().downcast_ref::<StringArray>().map(|a| a.value(k).to_string());
            for k in 0..st.len() {
                fl.push(GateFlag {
                    check: get(0, k).ok_or_else(|| bad("flags.check"))?,
                    cue: get(1, k).ok_or_else(|| bad("flags.cue"))?,
                    rule: get(2, k).ok_or_else(|| bad("flags.rule"))?,
                    source_sentence: get(3, k).ok_or_else(|| bad("flags.source_sentence"))?,
                    memory_sentence: get(4, k).ok_or_else(|| bad("flags.memory_sentence"))?,
                    source_span: Span::default(),
                });
            }
            out.push(Candidate {
                source_id: sid.value(i).to_string(),
                write_id: wid.value(i).to_string(),
                source: src.value(i).to_string(),
                memory: mem.value(i).to_string(),
                verdict: parse_verdict(ver.value(i)).ok_or_else(|| bad("verdict"))?,
                flags: fl,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_batches() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = PoolWriter::create(dir.path()).unwrap();
        let mut want = Vec::new();
        for i in 0..2500 {
            let mut c = Candidate::for_test(&format!("s{i}"), "w", if i % 3 == 0 { GateVerdict::Rewrite } else { GateVerdict::Pass });
            if i % 3 == 0 {
                c.flags.push(GateFlag {
                    check: "hedge".into(),
                    source_sentence: "Maybe X.".into(),
                    source_span: Span::default(),
                    cue: "Maybe".into(),
                    memory_sentence: "X.".into(),
                    rule: "hedge:maybe".into(),
                });
            }
            want.push(c.clone());
            w.push(c).unwrap();
        }
        let path = w.finish().unwrap();
        assert!(path.ends_with("pool.arrow"));
        assert!(!dir.path().join("pool.arrow.tmp").exists());
        assert_eq!(read(dir.path()).unwrap(), want);
    }
}
