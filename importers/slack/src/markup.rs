//! Slack's message markup to plain text: `<@U…>` mentions, `<#C…|name>`
//! channel references, `<url|label>` links, `<!here>`-style broadcasts, the
//! three HTML entities Slack escapes (`&amp; &lt; &gt;`), and `blocks`
//! (rich_text, section, header, context) for messages whose `text` is empty.
//!
//! Slack escapes `&`, `<` and `>` in user text, so a raw `<` in `text` always
//! opens a markup token (Slack API docs, "Formatting text for app surfaces":
//! "escape these three characters"); entities are decoded only after the
//! tokens are resolved, so an escaped `&lt;@U1&gt;` stays literal text.

use crate::directory::Directory;
use serde_json::Value;

/// Decode Slack's entity escaping. `&amp;` last so `&amp;lt;` becomes `&lt;`.
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// Resolve every `<…>` token of a Slack `text` and decode entities.
pub(crate) fn decode_text(text: &str, dir: &Directory) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..open]));
        let after = &rest[open + 1..];
        match after.find('>') {
            Some(close) => {
                out.push_str(&resolve_token(&after[..close], dir));
                rest = &after[close + 1..];
            }
            None => {
                // An unclosed `<` is text (only possible in hand-edited exports).
                out.push_str(&decode_entities(&rest[open..]));
                rest = "";
            }
        }
    }
    out.push_str(&decode_entities(rest));
    out
}

fn resolve_token(inner: &str, dir: &Directory) -> String {
    let (target, label) = match inner.split_once('|') {
        Some((t, l)) => (t, Some(decode_entities(l))),
        None => (inner, None),
    };
    let label = label.filter(|l| !l.is_empty());
    if let Some(id) = target.strip_prefix('@') {
        return match label {
            Some(l) => format!("@{}", l.trim_start_matches('@')),
            None => format!("@{}", dir.user_name(id).unwrap_or(id)),
        };
    }
    if let Some(id) = target.strip_prefix('#') {
        return match label {
            Some(l) => format!("#{l}"),
            None => format!("#{}", dir.channel_name(id).unwrap_or(id)),
        };
    }
    if let Some(special) = target.strip_prefix('!') {
        if let Some(l) = label {
            return l;
        }
        // `<!here>`, `<!channel>`, `<!everyone>`; `<!subteam^S1>` without a label.
        let word = special.split('^').next().unwrap_or(special);
        return format!("@{word}");
    }
    let url = decode_entities(target);
    match label {
        Some(l) if !same_link(&l, &url) => format!("{l} ({url})"),
        _ => url.strip_prefix("mailto:").map(str::to_string).unwrap_or(url),
    }
}

/// True when the label only repeats the URL (`<http://x.org|x.org>`).
fn same_link(label: &str, url: &str) -> bool {
    let strip = |s: &str| -> String {
        let s = s.strip_prefix("mailto:").unwrap_or(s);
        let s = s.split_once("://").map(|(_, r)| r).unwrap_or(s);
        s.trim_end_matches('/').to_string()
    };
    strip(label) == strip(url)
}

/// Plain text of a message's `blocks`, for messages whose `text` is empty.
pub(crate) fn render_blocks(blocks: &Value, dir: &Directory) -> String {
    let mut parts: Vec<String> = Vec::new();
    for b in blocks.as_array().into_iter().flatten() {
        let s = render_block(b, dir);
        if !s.trim().is_empty() {
            parts.push(s);
        }
    }
    parts.join("\n")
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn render_block(b: &Value, dir: &Directory) -> String {
    match str_of(b, "type").unwrap_or("") {
        "rich_text" => {
            let mut out = Vec::new();
            for e in b.get("elements").and_then(Value::as_array).into_iter().flatten() {
                out.push(render_rich_container(e, dir));
            }
            out.join("\n")
        }
        "section" | "header" => {
            let mut out = Vec::new();
            if let Some(t) = b.get("text").and_then(|t| t.get("text")).and_then(Value::as_str) {
                out.push(decode_text(t, dir));
            }
            for f in b.get("fields").and_then(Value::as_array).into_iter().flatten() {
                if let Some(t) = str_of(f, "text") {
                    out.push(decode_text(t, dir));
                }
            }
            out.join("\n")
        }
        "context" => {
            let texts: Vec<String> = b
                .get("elements")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| str_of(e, "text"))
                .map(|t| decode_text(t, dir))
                .collect();
            texts.join(" ")
        }
        _ => String::new(),
    }
}

fn render_rich_container(e: &Value, dir: &Directory) -> String {
    let children = e.get("elements").and_then(Value::as_array);
    match str_of(e, "type").unwrap_or("") {
        "rich_text_list" => {
            children.into_iter().flatten().map(|item| format!("- {}", render_rich_container(item, dir))).collect::<Vec<_>>().join("\n")
        }
        "rich_text_quote" => {
            let inner: String = children.into_iter().flatten().map(|x| render_inline(x, dir)).collect();
            inner.lines().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n")
        }
        // rich_text_section, rich_text_preformatted and anything newer with inline children.
        _ => children.into_iter().flatten().map(|x| render_inline(x, dir)).collect(),
    }
}

fn render_inline(x: &Value, dir: &Directory) -> String {
    match str_of(x, "type").unwrap_or("") {
        "text" => str_of(x, "text").unwrap_or("").to_string(),
        "link" => {
            let url = str_of(x, "url").unwrap_or("");
            match str_of(x, "text").filter(|t| !t.is_empty() && !same_link(t, url)) {
                Some(t) => format!("{t} ({url})"),
                None => url.to_string(),
            }
        }
        "user" => {
            let id = str_of(x, "user_id").unwrap_or("");
            format!("@{}", dir.user_name(id).unwrap_or(id))
        }
        "channel" => {
            let id = str_of(x, "channel_id").unwrap_or("");
            format!("#{}", dir.channel_name(id).unwrap_or(id))
        }
        "usergroup" => format!("@{}", str_of(x, "usergroup_id").unwrap_or("")),
        "broadcast" => format!("@{}", str_of(x, "range").unwrap_or("")),
        "emoji" => format!(":{}:", str_of(x, "name").unwrap_or("")),
        "date" => str_of(x, "fallback").unwrap_or("").to_string(),
        "color" => str_of(x, "value").unwrap_or("").to_string(),
        // Nested containers (lists inside quotes in newer clients).
        _ if x.get("elements").is_some() => render_rich_container(x, dir),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dir() -> Directory {
        let mut d = Directory::default();
        d.add_user("U1", "alice");
        d.add_channel("C1", "general");
        d
    }

    #[test]
    fn mentions_channels_links_entities() {
        let d = dir();
        assert_eq!(decode_text("<@U1>: hi <@U9>", &d), "@alice: hi @U9");
        assert_eq!(decode_text("see <#C1> and <#C2|random>", &d), "see #general and #random");
        assert_eq!(decode_text("<https://x.org/a|the doc> <https://x.org>", &d), "the doc (https://x.org/a) https://x.org");
        assert_eq!(decode_text("<mailto:a@b.org|a@b.org>", &d), "a@b.org");
        assert_eq!(decode_text("<http://x.org|x.org>", &d), "http://x.org");
        assert_eq!(decode_text("<!here> <!channel|@channel> <!subteam^S1|@ops>", &d), "@here @channel @ops");
        assert_eq!(decode_text("<!date^1392734382^{date}|Feb 18, 2014>", &d), "Feb 18, 2014");
        assert_eq!(decode_text("a &lt; b &amp;&amp; c &gt; d &amp;lt;", &d), "a < b && c > d &lt;");
        assert_eq!(decode_text("&lt;@U1&gt; stays", &d), "<@U1> stays");
        assert_eq!(decode_text("unclosed <http://x", &d), "unclosed <http://x");
        assert_eq!(decode_text(":tada: ok", &d), ":tada: ok");
    }

    #[test]
    fn rich_text_blocks() {
        let d = dir();
        let blocks = json!([{
            "type": "rich_text",
            "elements": [
                {"type": "rich_text_section", "elements": [
                    {"type": "text", "text": "Ship "},
                    {"type": "user", "user_id": "U1"},
                    {"type": "text", "text": " in "},
                    {"type": "channel", "channel_id": "C1"},
                    {"type": "emoji", "name": "rocket"},
                    {"type": "link", "url": "https://x.org", "text": "spec"}
                ]},
                {"type": "rich_text_list", "style": "bullet", "elements": [
                    {"type": "rich_text_section", "elements": [{"type": "text", "text": "one"}]},
                    {"type": "rich_text_section", "elements": [{"type": "text", "text": "two"}]}
                ]},
                {"type": "rich_text_quote", "elements": [{"type": "text", "text": "quoted"}]}
            ]
        }, {"type": "section", "text": {"type": "mrkdwn", "text": "<@U1> &amp; co"}}]);
        assert_eq!(render_blocks(&blocks, &d), "Ship @alice in #general:rocket:spec (https://x.org)\n- one\n- two\n> quoted\n@alice & co");
        assert_eq!(render_blocks(&Value::Null, &d), "");
    }
}
