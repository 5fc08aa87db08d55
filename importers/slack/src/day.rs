//! One day file (`<folder>/<YYYY-MM-DD>.json`, a JSON array of message
//! objects) to messages. Each array element is converted on its own, so one
//! bad element is one `ImportError` and the rest of the file still imports.

use crate::directory::{ConvKind, Directory};
use crate::markup::{decode_text, render_blocks};
use amem_records::{ImportError, Message, MessageId, SourceKind, TimeWindow};
use jiff::Timestamp;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Subtypes that are channel events rather than anything someone asserted
/// (Slack API "message subtypes" list). They are yielded, counted, and
/// marked `not_claims` with the subtype as the reason.
const EVENT_SUBTYPES: &[&str] = &[
    "channel_join",
    "channel_leave",
    "channel_topic",
    "channel_purpose",
    "channel_name",
    "channel_archive",
    "channel_unarchive",
    "channel_convert_to_private",
    "channel_convert_to_public",
    "group_join",
    "group_leave",
    "group_topic",
    "group_purpose",
    "group_name",
    "group_archive",
    "group_unarchive",
    "bot_add",
    "bot_remove",
    "bot_enable",
    "bot_disable",
    "pinned_item",
    "unpinned_item",
    "reminder_add",
    "reminder_delete",
    "tombstone",
    "message_changed",
    "message_deleted",
    "sh_room_created",
    "huddle_thread",
    "joiner_notification",
];

/// Where a day file sits and what it is read against.
pub(crate) struct DayContext<'a> {
    /// `Message.archive`: the archive path as the user gave it.
    pub(crate) archive: &'a str,
    /// The file path shown in errors.
    pub(crate) file: &'a Path,
    /// `<folder>/<date>.json`, for locators.
    pub(crate) member: &'a str,
    /// The conversation folder (the channel name).
    pub(crate) folder: &'a str,
    pub(crate) dir: &'a Directory,
    pub(crate) window: TimeWindow,
}

/// A `ts` string as (seconds, nanoseconds): `"1459052866.000012"`. Kept
/// exact (never through f64, which cannot hold 16 significant digits).
pub(crate) fn parse_ts(s: &str) -> Option<(i64, u32)> {
    let (secs, frac) = s.split_once('.').unwrap_or((s, ""));
    if secs.is_empty() || secs.len() > 12 || !secs.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = secs.parse().ok()?;
    let mut nanos: u32 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    for _ in frac.len()..9 {
        nanos *= 10;
    }
    Some((secs, nanos))
}

fn ts_time(s: &str) -> Option<Timestamp> {
    let (secs, nanos) = parse_ts(s)?;
    Timestamp::new(secs, i32::try_from(nanos).ok()?).ok()
}

/// One element of a day file, as planned by [`plan_day`]: an error found
/// while reading its `ts`, or a message to convert when its turn comes.
pub(crate) enum Planned {
    /// The element does not parse, is not an object, or has no usable `ts`.
    Failed(ImportError),
    /// A message inside the window: its bytes and its index in the array.
    Message { range: std::ops::Range<usize>, index: usize },
}

/// Plan one day file: its elements in the order they come out (errors
/// first, in file order, then messages by `ts`, then position), messages
/// outside the window left out.
///
/// The top-level array is cut into its elements first ([`elements`], a scan
/// with no recursion), and only each element's `ts` is read here; the
/// message itself is built when its turn comes ([`convert_planned`]), so a
/// day of 600,000 messages holds its bytes and one small entry each, never
/// all its messages at once. One element that does not parse (nested past
/// serde_json's depth limit, say) is one error at its position, and the
/// others of the day come through.
pub(crate) fn plan_day(bytes: &[u8], ctx: &DayContext<'_>) -> Vec<Planned> {
    let err = |pos: String, kind: &str, reason: String| ImportError::new(ctx.file, pos, kind, reason);
    let ranges = match elements(bytes) {
        Ok(r) => r,
        Err(Malformed { at, reason }) => {
            let (line, column) = line_column(bytes, at);
            // As serde_json counts: the column of the last byte read, 0 at the end of the file after a newline.
            let column = if at >= bytes.len() { column - 1 } else { column };
            let position = if at == 0 { format!("line {line}") } else { format!("line {line} column {column}") };
            return vec![Planned::Failed(err(position, "json", reason))];
        }
    };
    let mut failed = Vec::new();
    let mut keyed: Vec<((i64, u32), usize, std::ops::Range<usize>)> = Vec::with_capacity(ranges.len());
    for (index, range) in ranges.into_iter().enumerate() {
        let element = &bytes[range.clone()];
        let pos = || format!("message[{index}]");
        let ts = match element_ts(element) {
            Ok(ts) => ts,
            Err(ElementError::Json(e)) => {
                let (line, column) = line_column(bytes, range.start);
                let reason = format!("malformed JSON in the message starting at line {line} column {column}: {e}");
                failed.push(Planned::Failed(err(pos(), "json", reason)));
                continue;
            }
            Err(ElementError::NotAnObject) => {
                failed.push(Planned::Failed(err(pos(), "json", "a message must be a JSON object".into())));
                continue;
            }
        };
        match read_ts(ts.as_ref()) {
            Ok(t) if !ctx.window.contains(t.time) => {}
            Ok(t) => keyed.push((t.key, index, range)),
            Err((kind, reason)) => failed.push(Planned::Failed(err(pos(), kind, reason))),
        }
    }
    keyed.sort_by_key(|(key, index, _)| (*key, *index));
    failed.extend(keyed.into_iter().map(|(_, index, range)| Planned::Message { range, index }));
    failed
}

/// Why an element's `ts` could not be read.
enum ElementError {
    Json(serde_json::Error),
    NotAnObject,
}

/// The `ts` of one element, read without building the rest of it.
fn element_ts(element: &[u8]) -> Result<Option<Value>, ElementError> {
    /// Only `ts`: serde skips the other fields without keeping them.
    #[derive(serde::Deserialize)]
    struct TsOnly {
        ts: Option<Value>,
    }
    if element.first() == Some(&b'{')
        && let Ok(t) = serde_json::from_slice::<TsOnly>(element)
    {
        return Ok(t.ts);
    }
    // The rare path (not an object, malformed, a repeated `ts`): read it
    // whole, to say what is wrong as the full parse would.
    match serde_json::from_slice::<Value>(element).map_err(ElementError::Json)? {
        Value::Object(o) => Ok(o.get("ts").cloned()),
        _ => Err(ElementError::NotAnObject),
    }
}

/// A message's `ts`, checked: the string, its sort key and its time.
struct Ts<'a> {
    text: &'a str,
    key: (i64, u32),
    time: Timestamp,
}

/// Read a message's `ts` value, or say (kind, reason) why it is not one.
fn read_ts(ts: Option<&Value>) -> Result<Ts<'_>, (&'static str, String)> {
    let text = match ts {
        None | Some(Value::Null) => return Err(("missing_field", "message has no ts (its id and time)".into())),
        Some(Value::String(t)) => t.as_str(),
        Some(other) => return Err(("ts", format!("ts must be a string like \"1459052866.000012\", found {other}"))),
    };
    let key = parse_ts(text).ok_or_else(|| ("ts", format!("ts {text:?} is not <unix seconds>.<digits>")))?;
    let time = ts_time(text).ok_or_else(|| ("ts", format!("ts {text:?} is out of range")))?;
    Ok(Ts { text, key, time })
}

/// Build the message of one planned element (`None` for a [`Planned::Message`]
/// that turns out outside the window, which [`plan_day`] already leaves out).
pub(crate) fn convert_planned(bytes: &[u8], planned: Planned, ctx: &DayContext<'_>) -> Option<Result<Message, ImportError>> {
    let (range, index) = match planned {
        Planned::Failed(e) => return Some(Err(e)),
        Planned::Message { range, index } => (range, index),
    };
    let raw: Value = match serde_json::from_slice(&bytes[range.clone()]) {
        Ok(v) => v,
        Err(e) => {
            let (line, column) = line_column(bytes, range.start);
            let reason = format!("malformed JSON in the message starting at line {line} column {column}: {e}");
            return Some(Err(ImportError::new(ctx.file, format!("message[{index}]"), "json", reason)));
        }
    };
    convert(&raw, index, ctx).transpose()
}

/// Parse one day file whole: [`plan_day`], then every message built.
pub(crate) fn parse_day(bytes: &[u8], ctx: &DayContext<'_>) -> Vec<Result<Message, ImportError>> {
    plan_day(bytes, ctx).into_iter().filter_map(|p| convert_planned(bytes, p, ctx)).collect()
}

/// Why a day file is not a JSON array, and the byte where that shows.
#[derive(Debug, PartialEq, Eq)]
struct Malformed {
    at: usize,
    reason: String,
}

/// 1-based line and column of byte `at`.
fn line_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}

/// The byte ranges of the elements of a top-level JSON array, found by
/// counting brackets outside strings (a depth counter, no recursion, so any
/// nesting is only bytes here). What is inside an element is left to
/// serde_json; this checks only that the array and its strings close.
fn elements(bytes: &[u8]) -> Result<Vec<std::ops::Range<usize>>, Malformed> {
    let bad = |at: usize, reason: &str| Malformed { at, reason: reason.to_string() };
    let mut i = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if bytes.get(i) != Some(&b'[') {
        return Err(bad(i, "a day file must be a JSON array of messages"));
    }
    i += 1;
    let mut out = Vec::new();
    skip_ws(&mut i);
    if bytes.get(i) == Some(&b']') {
        i += 1;
        skip_ws(&mut i);
        return if i == bytes.len() { Ok(out) } else { Err(bad(i, "malformed JSON: text after the array")) };
    }
    loop {
        skip_ws(&mut i);
        let start = i;
        let mut depth: u64 = 0;
        let mut in_string = false;
        let end = loop {
            let Some(&b) = bytes.get(i) else { return Err(bad(bytes.len(), "malformed JSON: the file ends before the array is closed")) };
            if in_string {
                match b {
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' if depth > 0 => depth -= 1,
                    b',' | b']' if depth == 0 => break i,
                    b'}' => return Err(bad(i, "malformed JSON: a closing brace with nothing open")),
                    _ => {}
                }
            }
            i += 1;
        };
        let mut trimmed = end;
        while trimmed > start && bytes[trimmed - 1].is_ascii_whitespace() {
            trimmed -= 1;
        }
        if trimmed == start {
            return Err(bad(start, "malformed JSON: an empty element in the array"));
        }
        out.push(start..trimmed);
        i = end + 1;
        if bytes[end] == b']' {
            skip_ws(&mut i);
            return if i == bytes.len() { Ok(out) } else { Err(bad(i, "malformed JSON: text after the array")) };
        }
    }
}

fn s<'a>(o: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    o.get(k).and_then(Value::as_str)
}

fn nonempty(x: Option<&str>) -> Option<&str> {
    x.filter(|s| !s.trim().is_empty())
}

type Converted = Option<Message>;

fn convert(raw: &Value, i: usize, ctx: &DayContext<'_>) -> Result<Converted, ImportError> {
    let pos = format!("message[{i}]");
    let err = |kind: &str, reason: String| ImportError::new(ctx.file, pos.clone(), kind, reason);
    let o = raw.as_object().ok_or_else(|| err("json", "a message must be a JSON object".into()))?;
    let Ts { text: ts, time: sent_at, .. } = read_ts(o.get("ts")).map_err(|(kind, reason)| err(kind, reason))?;
    if !ctx.window.contains(sent_at) {
        return Ok(None);
    }
    let dir = ctx.dir;
    let conv = dir.folder(ctx.folder);
    let mut meta = BTreeMap::new();
    meta.insert("ts".to_string(), ts.to_string());
    if let Some(c) = conv {
        meta.insert("channel_id".into(), c.id.clone());
        meta.insert("conversation_kind".into(), c.kind.as_str().into());
    }
    let subtype = s(o, "subtype");
    if let Some(st) = subtype {
        meta.insert("subtype".into(), st.to_string());
    }

    // Author. Bot messages may have no `user` (they carry `bot_id` and `username`).
    // `file_comment` messages carry their author in `comment.user` (2016 sample).
    let user = s(o, "user").or_else(|| o.get("comment").and_then(|c| c.get("user")).and_then(Value::as_str));
    // `bot_id` is `null` on ordinary file shares of the 2016 sample.
    let is_bot = s(o, "bot_id").is_some() || subtype == Some("bot_message");
    let profile_name = || {
        let p = o.get("user_profile")?;
        nonempty(p.get("display_name").and_then(Value::as_str)).or_else(|| nonempty(p.get("real_name").and_then(Value::as_str)))
    };
    let user_name = user.and_then(|u| dir.user_name(u)).or_else(profile_name);
    // Bots and integrations are not anyone's assertion: marked bulk with
    // the reason, and the audit skips them unless asked (`--include-bulk`).
    if let Some(u) = user {
        // The author's user id: `[me].slack_ids` matches it (names change).
        meta.insert("user".into(), u.to_string());
    }
    if let Some(reason) = bot_reason(subtype, s(o, "bot_id"), user) {
        meta.insert("bulk".into(), reason);
    }
    let author = if is_bot {
        meta.insert("bot".into(), "true".into());
        if let Some(b) = s(o, "bot_id") {
            meta.insert("bot_id".into(), b.to_string());
        }
        nonempty(s(o, "username"))
            .or_else(|| nonempty(o.get("bot_profile").and_then(|b| b.get("name")).and_then(Value::as_str)))
            .or(user_name)
            .or(user)
            .or_else(|| s(o, "bot_id"))
            .unwrap_or("bot")
    } else {
        user_name.or(user).or_else(|| nonempty(s(o, "username"))).unwrap_or("unknown")
    }
    .to_string();

    // Text: `text`, else the blocks; then attachments and files.
    let mut text = decode_text(s(o, "text").unwrap_or(""), dir);
    if let Some(b) = o.get("blocks").filter(|_| text.trim().is_empty()) {
        text = render_blocks(b, dir);
    }
    let mut extra: Vec<String> = Vec::new();
    if let Some(atts) = o.get("attachments").and_then(Value::as_array) {
        meta.insert("attachments".into(), atts.len().to_string());
        for a in atts {
            let t = attachment_text(a, dir);
            if !t.is_empty() && !text.contains(&t) {
                extra.push(t);
            }
        }
    }
    let files: Vec<&Value> = o.get("file").into_iter().chain(o.get("files").and_then(Value::as_array).into_iter().flatten()).collect();
    if !files.is_empty() {
        meta.insert("files".into(), files.len().to_string());
    }
    for f in files {
        let title = nonempty(f.get("title").and_then(Value::as_str)).or_else(|| nonempty(f.get("name").and_then(Value::as_str)));
        if let Some(t) = title.filter(|t| !text.contains(t)) {
            extra.push(format!("[file: {t}]"));
        }
        if let Some(c) = f.get("initial_comment").and_then(|c| c.get("comment")).and_then(Value::as_str) {
            let c = decode_text(c, dir);
            if !c.is_empty() && !text.contains(&c) {
                extra.push(c);
            }
        }
    }
    for e in extra {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&e);
    }

    // Threads: parent (`thread_ts == ts`) and replies share `<folder>/<thread_ts>`.
    let mut conversation = ctx.folder.to_string();
    if let Some(tt) = s(o, "thread_ts") {
        conversation = format!("{}/{tt}", ctx.folder);
        meta.insert("thread_ts".into(), tt.to_string());
        if tt == ts {
            meta.insert("thread_parent".into(), "true".into());
        }
    }
    if let Some(n) = o.get("reply_count").and_then(Value::as_u64) {
        meta.insert("reply_count".into(), n.to_string());
    }
    if let Some(ed) = o.get("edited") {
        meta.insert("edited".into(), "true".into());
        if let Some(t) = ed.get("ts").and_then(Value::as_str) {
            meta.insert("edited_ts".into(), t.to_string());
        }
        if let Some(u) = ed.get("user").and_then(Value::as_str) {
            meta.insert("edited_by".into(), dir.user_name(u).unwrap_or(u).to_string());
        }
    }
    if let Some(rs) = o.get("reactions").and_then(Value::as_array) {
        let list: Vec<String> = rs
            .iter()
            .filter_map(|r| Some(format!("{}:{}", r.get("name")?.as_str()?, r.get("count").and_then(Value::as_u64).unwrap_or(1))))
            .collect();
        if !list.is_empty() {
            meta.insert("reactions".into(), list.join(","));
        }
    }
    if o.get("hidden").and_then(Value::as_bool) == Some(true) {
        meta.insert("hidden".into(), "true".into());
    }

    // Direct messages: the other members are the recipients. In channels the
    // audience is the channel (`subject`), not a member list.
    let recipients = match conv {
        Some(c) if matches!(c.kind, ConvKind::Dm | ConvKind::Mpim) => {
            c.members.iter().filter(|m| Some(m.as_str()) != user).map(|m| dir.user_name(m).unwrap_or(m).to_string()).collect()
        }
        _ => Vec::new(),
    };
    let not_claims = subtype.filter(|st| EVENT_SUBTYPES.contains(st)).map(str::to_string);
    let m = Message {
        source: SourceKind::SLACK,
        archive: ctx.archive.to_string(),
        conversation,
        id: MessageId(format!("{}/{ts}", ctx.folder)),
        author,
        recipients,
        sent_at,
        subject: Some(conv.map(|c| c.name.clone()).unwrap_or_else(|| ctx.folder.to_string())),
        text,
        quoted: Vec::new(),
        locator: format!("{}:{pos}", ctx.member),
        meta,
        not_claims,
    };
    Ok(Some(m))
}

/// Subtypes posted by an integration rather than a person (Slack API
/// "message subtypes"): bot posts, Slackbot's canned answers, files and
/// messages relayed from another service.
const INTEGRATION_SUBTYPES: &[&str] = &["bot_message", "slackbot_response", "me_message_bot", "sh_room_created", "huddle_thread"];

/// Why a Slack message is a bot's or an integration's: its subtype, its
/// `bot_id`, or Slackbot's user id (`USLACKBOT`).
fn bot_reason(subtype: Option<&str>, bot_id: Option<&str>, user: Option<&str>) -> Option<String> {
    if let Some(st) = subtype.filter(|st| INTEGRATION_SUBTYPES.contains(st)) {
        return Some(format!("slack {st}"));
    }
    if let Some(b) = bot_id {
        return Some(format!("slack bot {b}"));
    }
    (user == Some("USLACKBOT")).then(|| "slack slackbot".to_string())
}

/// The readable part of one legacy attachment: pretext, title, text (else
/// fallback), fields as `title: value`.
fn attachment_text(a: &Value, dir: &Directory) -> String {
    let g = |k: &str| nonempty(a.get(k).and_then(Value::as_str));
    let mut parts: Vec<String> = Vec::new();
    for k in ["pretext", "author_name", "title"] {
        if let Some(v) = g(k) {
            parts.push(decode_text(v, dir));
        }
    }
    if let Some(t) = g("text").or_else(|| g("fallback")) {
        parts.push(decode_text(t, dir));
    }
    for f in a.get("fields").and_then(Value::as_array).into_iter().flatten() {
        let t = f.get("title").and_then(Value::as_str).unwrap_or("");
        let v = f.get("value").and_then(Value::as_str).unwrap_or("");
        if !t.is_empty() || !v.is_empty() {
            parts.push(decode_text(&format!("{t}: {v}"), dir));
        }
    }
    parts.dedup();
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elements found by the scan are the array's elements as serde_json reads them.
    #[test]
    fn the_scan_cuts_an_array_into_the_elements_serde_reads() {
        for text in [
            "[]",
            " [ ] ",
            "[1]",
            "[ {\"a\": \"] , [ {\"}, [1, [2, {\"b\": []}]], \"\\\"\", null ,true]",
            "\u{feff}[{\"x\": 1}]",
            "[\n  {\"text\": \"a\\\\\"}, {\"text\": \"}\"}\n]\n",
        ] {
            let bytes = text.as_bytes();
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            let whole: Vec<Value> = serde_json::from_slice(body).unwrap();
            let cut: Vec<Value> = elements(bytes).unwrap().into_iter().map(|r| serde_json::from_slice(&bytes[r]).unwrap()).collect();
            assert_eq!(cut, whole, "{text}");
        }
        for (text, reason) in [
            ("{}", "must be a JSON array"),
            ("[1,", "ends before"),
            ("[1,,2]", "empty element"),
            ("[1] x", "after the array"),
            ("[\"a]", "ends before"),
        ] {
            let e = elements(text.as_bytes()).unwrap_err();
            assert!(e.reason.contains(reason), "{text}: {e:?}");
        }
    }

    #[test]
    fn bots_and_integrations_are_marked_bulk() {
        assert_eq!(bot_reason(Some("bot_message"), Some("B1"), None).as_deref(), Some("slack bot_message"));
        assert_eq!(bot_reason(None, Some("B9"), Some("U1")).as_deref(), Some("slack bot B9"));
        assert_eq!(bot_reason(Some("slackbot_response"), None, Some("USLACKBOT")).as_deref(), Some("slack slackbot_response"));
        assert_eq!(bot_reason(None, None, Some("USLACKBOT")).as_deref(), Some("slack slackbot"));
        assert_eq!(bot_reason(Some("thread_broadcast"), None, Some("U1")), None);
        assert_eq!(bot_reason(None, None, Some("U1")), None);
    }

    #[test]
    fn ts_exact() {
        assert_eq!(parse_ts("1459052866.000012"), Some((1459052866, 12_000)));
        assert_eq!(parse_ts("1459052866"), Some((1459052866, 0)));
        assert_eq!(parse_ts("1.5"), Some((1, 500_000_000)));
        for bad in ["", ".5", "12a.0", "1.-2", "1.0000000001", "-1.0", "1234567890123.0"] {
            assert_eq!(parse_ts(bad), None, "{bad}");
        }
        assert_eq!(ts_time("1459052866.000012").map(|t| t.to_string()).as_deref(), Some("2016-03-27T04:27:46.000012Z"));
    }
}
