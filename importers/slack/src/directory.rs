//! The export's metadata files: `users.json` (id → display name) and
//! `channels.json`, `groups.json`, `mpims.json`, `dms.json` (folder → id,
//! name, kind, members). Read once at open; they are small next to the
//! day files.

use serde_json::Value;
use std::collections::BTreeMap;

/// What kind of conversation a folder holds, from the metadata file that lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConvKind {
    /// `channels.json`: public channel.
    Channel,
    /// `groups.json`: private channel.
    Group,
    /// `mpims.json`: multi-person direct message.
    Mpim,
    /// `dms.json`: direct message (folder named by the DM id).
    Dm,
}

impl ConvKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ConvKind::Channel => "channel",
            ConvKind::Group => "group",
            ConvKind::Mpim => "mpim",
            ConvKind::Dm => "dm",
        }
    }
}

/// One conversation of the export.
#[derive(Clone, Debug)]
pub(crate) struct Conversation {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) kind: ConvKind,
    pub(crate) members: Vec<String>,
}

/// Names for ids, and conversations by folder name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Directory {
    users: BTreeMap<String, String>,
    channel_names: BTreeMap<String, String>,
    folders: BTreeMap<String, Conversation>,
}

impl Directory {
    /// The display name of a user id.
    pub(crate) fn user_name(&self, id: &str) -> Option<&str> {
        self.users.get(id).map(String::as_str)
    }

    /// The name of a channel id.
    pub(crate) fn channel_name(&self, id: &str) -> Option<&str> {
        self.channel_names.get(id).map(String::as_str)
    }

    /// The conversation stored in a folder.
    pub(crate) fn folder(&self, folder: &str) -> Option<&Conversation> {
        self.folders.get(folder)
    }

    #[cfg(test)]
    pub(crate) fn add_user(&mut self, id: &str, name: &str) {
        self.users.insert(id.into(), name.into());
    }

    #[cfg(test)]
    pub(crate) fn add_channel(&mut self, id: &str, name: &str) {
        self.channel_names.insert(id.into(), name.into());
    }

    /// Read `users.json`. Display name: the profile's `display_name` (what
    /// Slack shows by default), else `real_name`, else the handle `name`.
    pub(crate) fn load_users(&mut self, v: &Value) {
        for u in v.as_array().into_iter().flatten() {
            let Some(id) = u.get("id").and_then(Value::as_str) else { continue };
            let p = u.get("profile");
            fn pick<'a>(v: Option<&'a Value>, k: &str) -> Option<&'a str> {
                v.and_then(|v| v.get(k)).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
            }
            let name = pick(p, "display_name")
                .or_else(|| pick(p, "real_name"))
                .or_else(|| pick(Some(u), "real_name"))
                .or_else(|| pick(Some(u), "name"));
            if let Some(n) = name {
                self.users.insert(id.to_string(), n.to_string());
            }
        }
    }

    /// Read one of the conversation lists. DMs have no name: their folder is the id.
    pub(crate) fn load_conversations(&mut self, v: &Value, kind: ConvKind) {
        for c in v.as_array().into_iter().flatten() {
            let Some(id) = c.get("id").and_then(Value::as_str) else { continue };
            let name = c.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or(id);
            let members: Vec<String> =
                c.get("members").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
            self.channel_names.insert(id.to_string(), name.to_string());
            let conv = Conversation { id: id.to_string(), name: name.to_string(), kind, members };
            self.folders.insert(name.to_string(), conv.clone());
            if name != id {
                // Some exporters name DM/MPIM folders by id instead of name.
                self.folders.entry(id.to_string()).or_insert(conv);
            }
        }
    }
}
