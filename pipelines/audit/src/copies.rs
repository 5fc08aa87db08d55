//! Each mail once: a message that is a copy of one already read (the same
//! mail in another folder or another export, `Message::copy_keys`) is not
//! audited again; the ledger lists where the copy was, and the original's
//! report rows say so (`also_filed_at`).
//!
//! Decided on the importer thread, in archive order, so the first copy read
//! is the one audited whatever the workers' timing: the same command gives
//! the same rows. Copies of messages recorded by earlier runs (or by the
//! interrupted process a run resumes) are found in the ledger.

use amem_ledger::Ledger;
use amem_records::{CopyKeys, Digest};
use std::collections::HashMap;

/// Keys remembered in memory at most (about 40 bytes each, two a mail):
/// past this the memory starts afresh and a copy is found through the
/// ledger, which by then holds the originals recorded so far. Only a copy
/// read while its original, read more than this many keys earlier, still
/// waits on the trust list would then be audited twice.
const KEYS_REMEMBERED: usize = 1 << 20;

/// Finds copies among the messages of a run.
pub struct CopyFinder<'l> {
    /// First 8 bytes of a key → index into `originals`.
    seen: HashMap<u64, u32>,
    originals: Vec<Digest>,
    /// The run's ledger, for originals recorded before (read-only use).
    ledger: Option<&'l Ledger>,
}

/// What [`CopyFinder::check`] says of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Not a copy: audit it (or find it already assessed).
    First,
    /// A copy of the message with this digest.
    CopyOf(Digest),
}

impl<'l> CopyFinder<'l> {
    /// A finder that also asks `ledger` (a read connection) about messages
    /// it has not seen in this process.
    pub fn new(ledger: Option<&'l Ledger>) -> CopyFinder<'l> {
        CopyFinder { seen: HashMap::new(), originals: Vec::new(), ledger }
    }

    /// Whether the message whose keys are `keys` ([`amem_records::Message::copy_keys`]) and
    /// whose digest is `digest` is a copy of a message read before. A message read again with
    /// the same digest (a run resumed, a nightly run over the same export) is not a copy of
    /// itself.
    ///
    /// # Errors
    /// The ledger cannot be read.
    pub fn check(&mut self, keys: &CopyKeys, digest: Digest) -> amem_ledger::Result<Seen> {
        if self.seen.len() >= KEYS_REMEMBERED || self.originals.len() >= KEYS_REMEMBERED {
            self.seen.clear();
            self.originals.clear();
        }
        let at = match keys.iter().find_map(|k| self.seen.get(&k.prefix_u64()).copied()) {
            Some(at) => at,
            None => {
                let from_ledger = match self.ledger {
                    Some(ledger) => ledger.original_of(keys)?,
                    None => None,
                };
                self.originals.push(from_ledger.unwrap_or(digest));
                (self.originals.len() - 1) as u32
            }
        };
        for k in keys.iter() {
            self.seen.entry(k.prefix_u64()).or_insert(at);
        }
        let original = self.originals[at as usize];
        Ok(if original == digest { Seen::First } else { Seen::CopyOf(original) })
    }
}

/// Which shard a message goes to under `--shard I/N`, decided the same way in every shard: the
/// content key of the first copy of it read in this run. Every shard reads every message in
/// archive order, so each finds the same first copies; a copy found by its Message-ID alone
/// (the mail refiled with other text: a footer added, a line rewrapped) then lands where its
/// original is audited, as the single run finds it a copy; and with `--include-forwarded` a message
/// carrying a story forwarded before goes where that story's first forward is audited. Only the
/// copies read in this run count (not those in a ledger, which holds one shard's messages): a
/// copy by Message-ID of a mail recorded by an earlier run and not read again may go to another
/// shard and be audited there.
#[derive(Default)]
pub struct ShardKeys {
    /// First 8 bytes of a key → first 8 bytes of its first copy's content key.
    owner: HashMap<u64, u64>,
}

impl ShardKeys {
    /// The number that, mod N, names the shard of the message whose keys are `keys` and whose
    /// forwarded parts (`--include-forwarded`, audited with it) have the keys `parts`: the
    /// first copy's, found by the message's keys, else by a part's (the same story forwarded
    /// again goes where its first forward is audited), else the message's own content key.
    pub fn shard_key<'k>(&mut self, keys: &CopyKeys, parts: impl Iterator<Item = &'k CopyKeys> + Clone) -> u64 {
        // Past the limit every shard starts afresh at the same message, as it reads the same ones.
        if self.owner.len() >= KEYS_REMEMBERED {
            self.owner.clear();
        }
        let all = || keys.iter().chain(parts.clone().flat_map(CopyKeys::iter));
        let owner = all().find_map(|k| self.owner.get(&k.prefix_u64()).copied()).unwrap_or(keys.by_content.prefix_u64());
        for k in all() {
            self.owner.entry(k.prefix_u64()).or_insert(owner);
        }
        owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amem_records::{Message, MessageId, SourceKind};

    fn mail(id: &str, folder: &str, text: &str) -> Message {
        let mut meta = std::collections::BTreeMap::new();
        meta.insert("folder".to_string(), folder.to_string());
        Message {
            source: SourceKind::ENRON,
            archive: "maildir".into(),
            conversation: "c".into(),
            id: MessageId(id.into()),
            author: "ann@example.org".into(),
            recipients: vec![],
            sent_at: "2001-05-01T10:00:00Z".parse().unwrap(),
            subject: Some("Q2".into()),
            text: text.into(),
            quoted: vec![],
            locator: format!("maildir/{folder}/1."),
            meta,
            not_claims: None,
        }
    }

    #[test]
    fn the_first_copy_read_is_the_original_and_a_reread_is_not_a_copy() {
        let mut f = CopyFinder::new(None);
        let a = mail("<1@x>", "inbox", "Revenue rose 4%.");
        let b = mail("<2@x>", "all_documents", "Revenue rose 4%.");
        let c = mail("<3@x>", "inbox", "Revenue fell.");
        assert_eq!(f.check(&a.copy_keys(), a.digest()).unwrap(), Seen::First);
        assert_eq!(f.check(&b.copy_keys(), b.digest()).unwrap(), Seen::CopyOf(a.digest()));
        assert_eq!(f.check(&c.copy_keys(), c.digest()).unwrap(), Seen::First);
        assert_eq!(f.check(&a.copy_keys(), a.digest()).unwrap(), Seen::First, "the same message again is not its own copy");
        // A third copy, by Message-ID this time, points at the first too.
        let mut d = mail("<2@x>", "sent", "Revenue rose 4 %.");
        d.sent_at = "2001-05-01T10:00:01Z".parse().unwrap();
        assert_eq!(f.check(&d.copy_keys(), d.digest()).unwrap(), Seen::CopyOf(a.digest()));
    }

    /// Every copy of a mail gets its first copy's shard key, whichever key found it: the same
    /// Message-ID with other text, or the same content under another Message-ID, chained.
    #[test]
    fn a_copy_takes_the_shard_key_of_the_first_copy_read() {
        let mut k = ShardKeys::default();
        let a = mail("<1@x>", "inbox", "Revenue rose 4%.");
        let b = mail("<1@x>", "inbox", "Revenue rose 4%. Sent from my phone.");
        let c = mail("<2@x>", "all_documents", "Revenue rose 4%. Sent from my phone.");
        let d = mail("<3@x>", "inbox", "Revenue fell.");
        let first = k.shard_key(&a.copy_keys(), std::iter::empty());
        assert_eq!(first, a.copy_keys().by_content.prefix_u64());
        assert_ne!(b.copy_keys().by_content, a.copy_keys().by_content);
        assert_eq!(k.shard_key(&b.copy_keys(), std::iter::empty()), first, "by the Message-ID");
        assert_eq!(k.shard_key(&c.copy_keys(), std::iter::empty()), first, "by the content of a copy by id");
        assert_eq!(k.shard_key(&d.copy_keys(), std::iter::empty()), d.copy_keys().by_content.prefix_u64());
        // Read in another order (another run over other archives), b is the first copy.
        let mut other = ShardKeys::default();
        assert_eq!(other.shard_key(&b.copy_keys(), std::iter::empty()), b.copy_keys().by_content.prefix_u64());
        assert_eq!(other.shard_key(&a.copy_keys(), std::iter::empty()), b.copy_keys().by_content.prefix_u64());
        // A message carrying a part forwarded before goes where that part's first copy went.
        let carrier = mail("<9@x>", "inbox", "FYI.");
        assert_eq!(k.shard_key(&carrier.copy_keys(), [d.copy_keys()].iter()), d.copy_keys().by_content.prefix_u64());
        let next = mail("<10@x>", "inbox", "See below.");
        assert_eq!(k.shard_key(&next.copy_keys(), std::iter::empty()), next.copy_keys().by_content.prefix_u64());
    }

    /// A copy of a message an earlier run recorded is found in the ledger.
    #[test]
    fn a_copy_of_a_message_recorded_earlier_is_found_in_the_ledger() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.sqlite");
        let mut w = Ledger::open(&path).unwrap();
        w.begin_run(&amem_records::sample::run_info()).unwrap();
        let a = mail("<1@x>", "inbox", "Revenue rose 4%.");
        w.record(&amem_ledger::MessageOutcome { message: &a, claims: &[], assessments: &[], skipped: &[] }).unwrap();
        w.flush().unwrap();
        let r = Ledger::open(&path).unwrap();
        let mut f = CopyFinder::new(Some(&r));
        let b = mail("<2@x>", "all_documents", "Revenue rose 4%.");
        assert_eq!(f.check(&b.copy_keys(), b.digest()).unwrap(), Seen::CopyOf(a.digest()));
        assert_eq!(f.check(&a.copy_keys(), a.digest()).unwrap(), Seen::First);
    }
}
