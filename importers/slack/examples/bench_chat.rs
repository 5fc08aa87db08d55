//! Throughput and memory of the Slack and iMessage importers on generated
//! archives, and the benchmarks page block that reports them.
//!
//! ```text
//! cargo run --release -p amem-importer-slack --example bench_chat            # print the block
//! cargo run --release -p amem-importer-slack --example bench_chat -- --write # rewrite docs/benchmarks.md's block
//! cargo run --release -p amem-importer-slack --example bench_chat -- --check # re-measure; fail if benchmarks page differs
//! ```
//!
//! What it generates (in a temp dir, deleted afterwards), at 1x and 10x:
//! - a Slack export: `users.json` (50 users), `channels.json` (20 channels)
//!   and one day file per channel per day, 40 messages each (1x = 20 days,
//!   16,000 messages; 10x = 200 days). Messages carry `<@U…>` mentions,
//!   `<url|label>` links, `&amp;` escapes, threads (`thread_ts`), bot messages
//!   with `attachments`, `edited`, joins, and blocks-only messages, with
//!   distinct `ts` values across 2024. Archives grow by adding days, as real
//!   ones do, so day files keep their size.
//! - a chat.db (macOS 13 columns, nanosecond dates): 16,000 rows at 1x,
//!   160,000 at 10x, 30 chats, 50 handles; every third row has `text` NULL and
//!   its text in a handmade `attributedBody` typedstream; every twentieth is a tapback.
//!
//! Each measurement runs in a child process (this binary, `measure …`) so its
//! peak RSS (`VmHWM` from /proc/self/status) is its own, and is timed in CPU
//! time (/proc/self/schedstat), best of five, so other work on the machine
//! does not count. The reference run in
//! the same script is the cheapest read of the same bytes: for Slack,
//! `serde_json` parsing every day file into a `Value`; for iMessage, a bare
//! `SELECT` of the same columns stepped row by row. The ratio importer /
//! reference is what the benchmarks page reports, so it holds across machines better
//! than absolute rates.
//!
//! `--check` re-measures and fails when a benchmarks page ratio differs from the new
//! one by more than 35 % (timing noise on a shared 2-core machine), when the
//! message counts differ, or when peak RSS at 10x exceeds 1.5x the 1x peak.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const BEGIN: &str = "<!-- bench:importers-chat:begin -->";
const END: &str = "<!-- bench:importers-chat:end -->";
const CHANNELS: usize = 20;
const DAYS_1X: usize = 20;
const PER_DAY: usize = 40;
const ROWS_1X: usize = 16_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("measure") {
        measure(&args[1], &args[2], Path::new(&args[3]));
        return;
    }
    let mode = args.first().cloned().unwrap_or_default();
    let tmp = std::env::temp_dir().join(format!("amem-bench-chat-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut rows = Vec::new();
    for scale in [1usize, 10] {
        let slack = tmp.join(format!("slack-{scale}x"));
        gen_slack(&slack, DAYS_1X * scale);
        let db = tmp.join(format!("chat-{scale}x.db"));
        gen_chat_db(&db, ROWS_1X * scale);
        rows.push((scale, "slack", run_pair(&slack, "slack")));
        rows.push((scale, "imessage", run_pair(&db, "imessage")));
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let block = render(&rows);
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks.md");
    match mode.as_str() {
        "--write" => {
            let text = std::fs::read_to_string(&readme).expect("docs/benchmarks.md");
            let new = replace_block(&text, &block).expect("docs/benchmarks.md lacks the bench:importers-chat markers");
            std::fs::write(&readme, new).expect("write docs/benchmarks.md");
            println!("{block}");
        }
        "--check" => {
            let text = std::fs::read_to_string(&readme).expect("docs/benchmarks.md");
            let old = current_block(&text).expect("docs/benchmarks.md lacks the bench:importers-chat markers");
            println!("{block}");
            if let Err(why) = compare(old, &block, &rows) {
                eprintln!("benchmarks page bench block is out of date: {why}\nrun with --write to refresh it");
                std::process::exit(1);
            }
        }
        _ => println!("{block}"),
    }
}

/// One importer run and one reference run on the same archive.
struct Pair {
    messages: u64,
    bytes: u64,
    secs: f64,
    rss_kib: u64,
    ref_secs: f64,
}

fn child(what: &str, kind: &str, path: &Path) -> (u64, u64, f64, u64) {
    let exe = std::env::current_exe().expect("current exe");
    let out = Command::new(exe).args(["measure", what, kind]).arg(path).output().expect("spawn measure");
    assert!(out.status.success(), "measure failed: {}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8(out.stdout).expect("utf-8");
    let f: Vec<&str> = s.split_whitespace().collect();
    (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap())
}

fn run_pair(path: &Path, kind: &str) -> Pair {
    // Best of five, alternating, to damp noise from other processes.
    let mut best: Option<Pair> = None;
    for _ in 0..5 {
        let (messages, bytes, secs, rss_kib) = child("importer", kind, path);
        let (_, _, ref_secs, _) = child("reference", kind, path);
        let p = Pair { messages, bytes, secs, rss_kib, ref_secs };
        best = Some(match best {
            None => p,
            Some(b) => Pair {
                messages: p.messages,
                bytes: p.bytes,
                secs: b.secs.min(p.secs),
                rss_kib: b.rss_kib.max(p.rss_kib),
                ref_secs: b.ref_secs.min(p.ref_secs),
            },
        });
    }
    best.expect("five runs")
}

fn peak_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(0)
}

/// Nanoseconds this process has run on a CPU (first field of /proc/self/schedstat).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

fn archive_bytes(p: &Path) -> u64 {
    if p.is_file() {
        return std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    }
    let mut n = 0;
    for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
        n += archive_bytes(&e.path());
    }
    n
}

/// Child process: stream the archive and print `messages bytes seconds peak_rss_kib`.
fn measure(what: &str, kind: &str, path: &Path) {
    let bytes = archive_bytes(path);
    let start = Instant::now();
    let cpu0 = cpu_ns();
    let mut messages = 0u64;
    let mut sink = 0usize;
    match (what, kind) {
        ("importer", "slack") | ("importer", "imessage") => {
            let opts = amem_records::ImportOptions::default();
            let stream = if kind == "slack" {
                amem_importer_slack::open(path, &opts).expect("open")
            } else {
                amem_importer_imessage::open(path, &opts).expect("open")
            };
            for m in stream.flatten() {
                messages += 1;
                sink += m.text.len();
            }
        }
        ("reference", "slack") => {
            let mut folders: Vec<PathBuf> = std::fs::read_dir(path).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
            folders.sort();
            for f in folders {
                let mut days: Vec<PathBuf> = std::fs::read_dir(&f).unwrap().flatten().map(|e| e.path()).collect();
                days.sort();
                for d in days {
                    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&d).unwrap()).unwrap();
                    for m in v.as_array().into_iter().flatten() {
                        messages += 1;
                        sink += m.get("text").and_then(|t| t.as_str()).map_or(0, str::len);
                    }
                }
            }
        }
        ("reference", "imessage") => {
            let c = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
            let mut st = c.prepare("SELECT ROWID, guid, text, attributedBody, date, handle_id, is_from_me FROM message").unwrap();
            let mut rows = st.query([]).unwrap();
            while let Some(r) = rows.next().unwrap() {
                messages += 1;
                sink += r.get_ref(2).unwrap().as_str().map_or(0, str::len);
                sink += r.get_ref(3).unwrap().as_blob().map_or(0, <[u8]>::len);
            }
        }
        _ => panic!("unknown measure {what} {kind}"),
    }
    // CPU time of this process (from /proc/self/schedstat), not wall time:
    // the machine is shared, and waiting for a core is not the importer's cost.
    let secs = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => start.elapsed().as_secs_f64(),
    };
    std::hint::black_box(sink);
    println!("{messages} {bytes} {secs} {}", peak_rss_kib());
}

fn render(rows: &[(usize, &str, Pair)]) -> String {
    let mut s = String::new();
    s.push_str("| importer | scale | messages | archive MB | messages/s (CPU) | MB/s (CPU) | importer ÷ reference rate | peak RSS MiB |\n");
    s.push_str("|---|---|---|---|---|---|---|---|\n");
    for (scale, kind, p) in rows {
        let mb = p.bytes as f64 / 1e6;
        s.push_str(&format!(
            "| {kind} | {scale}x | {} | {:.1} | {:.0} | {:.1} | {:.3} | {:.1} |\n",
            p.messages,
            mb,
            p.messages as f64 / p.secs,
            mb / p.secs,
            p.ref_secs / p.secs,
            p.rss_kib as f64 / 1024.0
        ));
    }
    for kind in ["slack", "imessage"] {
        let rss = |sc: usize| rows.iter().find(|r| r.0 == sc && r.1 == kind).map_or(0.0, |r| r.2.rss_kib as f64);
        s.push_str(&format!("\n{kind}: peak RSS at 10x ÷ 1x = {:.2}", rss(10) / rss(1).max(1.0)));
    }
    s.push('\n');
    s
}

fn current_block(text: &str) -> Option<&str> {
    let a = text.find(BEGIN)? + BEGIN.len();
    let b = text[a..].find(END)? + a;
    Some(text[a..b].trim_matches('\n'))
}

fn replace_block(text: &str, block: &str) -> Option<String> {
    let a = text.find(BEGIN)? + BEGIN.len();
    let b = text[a..].find(END)? + a;
    Some(format!("{}\n{}\n{}", &text[..a], block.trim_end(), &text[b..]))
}

/// Compare the benchmarks page block with a fresh measurement, within noise.
fn compare(old: &str, new: &str, rows: &[(usize, &str, Pair)]) -> Result<(), String> {
    let table = |s: &str| -> Vec<Vec<String>> {
        s.lines()
            .filter(|l| l.starts_with("| slack") || l.starts_with("| imessage"))
            .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
            .collect()
    };
    let (o, n) = (table(old), table(new));
    if o.len() != n.len() {
        return Err("different rows".into());
    }
    for (a, b) in o.iter().zip(&n) {
        if a[1..4] != b[1..4] {
            return Err(format!("{} {}: counts {:?} vs {:?}", b[1], b[2], &a[3..4], &b[3..4]));
        }
        let (x, y): (f64, f64) = (a[7].parse().unwrap_or(0.0), b[7].parse().unwrap_or(0.0));
        if (x - y).abs() > 0.35 * y.max(x) {
            return Err(format!("{} {}: ratio {x} in benchmarks page, {y} now", b[1], b[2]));
        }
    }
    for kind in ["slack", "imessage"] {
        let rss = |sc: usize| rows.iter().find(|r| r.0 == sc && r.1 == kind).map_or(0.0, |r| r.2.rss_kib as f64);
        if rss(10) > 1.5 * rss(1) {
            return Err(format!("{kind}: peak RSS grew from {} to {} KiB at 10x", rss(1), rss(10)));
        }
    }
    let _ = std::io::stdout().flush();
    Ok(())
}

// ---- generators ----

fn gen_slack(root: &Path, days: usize) {
    std::fs::create_dir_all(root).unwrap();
    let users: Vec<serde_json::Value> = (0..50)
        .map(|i| serde_json::json!({"id": format!("U{i:03}"), "name": format!("user{i}"), "real_name": format!("User Number {i}"), "profile": {"display_name": format!("user.{i}"), "real_name": format!("User Number {i}")}}))
        .collect();
    std::fs::write(root.join("users.json"), serde_json::to_vec(&users).unwrap()).unwrap();
    let chans: Vec<serde_json::Value> = (0..CHANNELS)
        .map(|c| serde_json::json!({"id": format!("C{c:04}"), "name": format!("chan-{c:02}"), "members": ["U000", "U001"]}))
        .collect();
    std::fs::write(root.join("channels.json"), serde_json::to_vec(&chans).unwrap()).unwrap();
    let day0 = 1_704_067_200i64; // 2024-01-01T00:00:00Z
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for c in 0..CHANNELS {
        let dir = root.join(format!("chan-{c:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for d in 0..days {
            let start = day0 + d as i64 * 86_400;
            let date = jiff::Timestamp::from_second(start).unwrap().strftime("%Y-%m-%d").to_string();
            let mut msgs = Vec::with_capacity(PER_DAY);
            let mut thread: Option<String> = None;
            for i in 0..PER_DAY {
                let ts = format!("{}.{:06}", start + 600 + i as i64 * 1800 + rnd(900) as i64, c * 1000 + i);
                let u = format!("U{:03}", rnd(50));
                let other = format!("U{:03}", rnd(50));
                let n = rnd(1000);
                let mut m = match i % 10 {
                    0 => serde_json::json!({"type": "message", "subtype": "bot_message", "bot_id": "B001", "username": "ci", "text": "",
                        "attachments": [{"fallback": format!("Build {n} passed"), "pretext": "CI report", "text": format!("Build <https://ci.example.org/{n}|#{n}> passed in {} s &amp; deployed", rnd(600))}]}),
                    1 => {
                        serde_json::json!({"type": "message", "user": u, "text": "", "blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section",
                        "elements": [{"type": "text", "text": format!("The Q{} numbers are in: revenue up {}% ", 1 + n % 4, n % 40)}, {"type": "user", "user_id": other}]}]}]})
                    }
                    2 if d % 7 == 0 => {
                        serde_json::json!({"type": "message", "subtype": "channel_join", "user": u, "text": format!("<@{u}> has joined the channel")})
                    }
                    _ => serde_json::json!({"type": "message", "user": u,
                        "text": format!("<@{other}> the launch moved to {} &amp; the budget is {} k, see <https://docs.example.org/p/{n}|the plan> &lt;draft&gt;",
                            ["Monday", "Tuesday", "Friday"][(n % 3) as usize], n)}),
                };
                m["ts"] = ts.clone().into();
                if i % 5 == 3 {
                    m["edited"] = serde_json::json!({"user": u, "ts": format!("{}.000000", start + 86_000)});
                }
                match (i % 8, &thread) {
                    (4, _) => {
                        m["thread_ts"] = ts.clone().into();
                        m["reply_count"] = 2.into();
                        thread = Some(ts.clone());
                    }
                    (5 | 6, Some(t)) => m["thread_ts"] = t.clone().into(),
                    _ => {}
                }
                msgs.push(m);
            }
            std::fs::write(dir.join(format!("{date}.json")), serde_json::to_vec_pretty(&msgs).unwrap()).unwrap();
        }
    }
}

/// A typedstream `attributedBody` for `text` (the layout the decoder reads).
fn typedstream(text: &str) -> Vec<u8> {
    fn int(n: usize, b: &mut Vec<u8>) {
        if n < 128 {
            b.push(n as u8);
        } else if n < 32768 {
            b.push(0x81);
            b.extend_from_slice(&(n as u16).to_le_bytes());
        } else {
            b.push(0x82);
            b.extend_from_slice(&(n as u32).to_le_bytes());
        }
    }
    fn s(x: &str, b: &mut Vec<u8>) {
        b.push(0x84);
        int(x.len(), b);
        b.extend_from_slice(x.as_bytes());
    }
    let mut b = vec![0x04, 0x0b];
    b.extend_from_slice(b"streamtyped");
    b.extend_from_slice(&[0x81, 0xe8, 0x03]);
    s("@", &mut b);
    b.extend_from_slice(&[0x84, 0x84]);
    s("NSMutableAttributedString", &mut b);
    b.extend_from_slice(&[0x00, 0x84]);
    s("NSAttributedString", &mut b);
    b.extend_from_slice(&[0x00, 0x84]);
    s("NSObject", &mut b);
    b.extend_from_slice(&[0x00, 0x85, 0x92, 0x84, 0x84]);
    s("NSMutableString", &mut b);
    b.extend_from_slice(&[0x01, 0x84]);
    s("NSString", &mut b);
    b.extend_from_slice(&[0x01, 0x95]);
    s("+", &mut b);
    int(text.len(), &mut b);
    b.extend_from_slice(text.as_bytes());
    b.push(0x86);
    s("iI", &mut b);
    b.push(1);
    int(text.encode_utf16().count(), &mut b);
    b.push(0x86);
    b
}

fn gen_chat_db(path: &Path, rows: usize) {
    let _ = std::fs::remove_file(path);
    let mut c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF;
         CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, country TEXT, service TEXT NOT NULL);
         CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER, chat_identifier TEXT, service_name TEXT, display_name TEXT);
         CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER, UNIQUE(chat_id, handle_id));
         CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER, message_date INTEGER DEFAULT 0, PRIMARY KEY (chat_id, message_id));
         CREATE INDEX chat_message_join_idx_message_id_only ON chat_message_join(message_id);
         CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT, handle_id INTEGER DEFAULT 0, service TEXT,
           attributedBody BLOB, date INTEGER, date_read INTEGER, is_from_me INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0,
           item_type INTEGER DEFAULT 0, associated_message_guid TEXT, associated_message_type INTEGER DEFAULT 0, thread_originator_guid TEXT,
           date_edited INTEGER DEFAULT 0, date_retracted INTEGER DEFAULT 0, balloon_bundle_id TEXT, expressive_send_style_id TEXT, is_spam INTEGER DEFAULT 0);",
    )
    .unwrap();
    let tx = c.transaction().unwrap();
    for h in 1..=50 {
        tx.execute(
            "INSERT INTO handle (ROWID, id, country, service) VALUES (?1, ?2, 'us', 'iMessage')",
            rusqlite::params![h, format!("+1555000{h:04}")],
        )
        .unwrap();
    }
    for ch in 1..=30i64 {
        let style = if ch % 3 == 0 { 43 } else { 45 };
        tx.execute(
            "INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) VALUES (?1, ?2, ?3, ?4, 'iMessage', ?5)",
            rusqlite::params![
                ch,
                format!("iMessage;-;chat{ch}"),
                style,
                format!("chat{ch}"),
                if style == 43 { format!("Group {ch}") } else { String::new() }
            ],
        )
        .unwrap();
        tx.execute("INSERT INTO chat_handle_join VALUES (?1, ?2)", rusqlite::params![ch, 1 + ch % 50]).unwrap();
        if style == 43 {
            tx.execute("INSERT INTO chat_handle_join VALUES (?1, ?2)", rusqlite::params![ch, 1 + (ch + 7) % 50]).unwrap();
        }
    }
    {
        let mut ins = tx
            .prepare("INSERT INTO message (ROWID, guid, text, handle_id, service, attributedBody, date, is_from_me, associated_message_guid, associated_message_type) VALUES (?1, ?2, ?3, ?4, 'iMessage', ?5, ?6, ?7, ?8, ?9)")
            .unwrap();
        let mut join = tx.prepare("INSERT INTO chat_message_join (chat_id, message_id) VALUES (?1, ?2)").unwrap();
        let base = 725_846_400_000_000_000i64; // 2024-01-01 in Apple-epoch nanoseconds
        for i in 0..rows {
            let rowid = 1000 + i as i64 * 2;
            let text = format!(
                "Meeting moved to {}:{:02}, budget {} k and the Q{} report is due on day {}",
                9 + i % 8,
                i % 60,
                i % 997,
                1 + i % 4,
                i % 28
            );
            let (t, body) = if i % 3 == 0 { (None, Some(typedstream(&text))) } else { (Some(text), None) };
            let (ag, at) = if i % 20 == 19 { (Some(format!("p:0/M-{}", i - 1)), 2001) } else { (None, 0) };
            ins.execute(rusqlite::params![
                rowid,
                format!("M-{i}"),
                t,
                1 + (i % 50) as i64,
                body,
                base + i as i64 * 37_000_000_000,
                (i % 2) as i64,
                ag,
                at
            ])
            .unwrap();
            join.execute(rusqlite::params![1 + (i % 30) as i64, rowid]).unwrap();
        }
    }
    tx.commit().unwrap();
}
