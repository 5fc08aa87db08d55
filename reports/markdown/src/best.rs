//! The default report's rows, kept in memory: only what the report can
//! show. A default report lists at most a few hundred claims (the first
//! [`crate::CONTRADICTED_LISTED`] contradicted, [`crate::SUPPORTED_LISTED`]
//! supported, [`crate::UNVERIFIED_LISTED`] most check-worthy unverified and
//! the first uncheckable ones) and counts the rest, so parking every row in
//! the SQLite row store and sorting it there (what `--full` needs) was most
//! of the report's cost: on the 11,238-mail bench, 42,000 rows encoded as
//! JSON, written to a 100 MB scratch file and read back by four queries,
//! about 2.5 s of CPU for 650 rows shown.
//!
//! Each listing is a bounded max-heap on the report's own sort key, so a
//! row is copied only when it is among the best seen so far; the counts
//! per group and the by-conversation and by-author tables are tallies.
//! Memory grows with the distinct conversations and authors of unverified
//! claims (a few dozen bytes each), not with rows. The order is the row
//! store's, key for key (SQLite compares text bytewise, as `str` does;
//! times in microseconds), so both give the same report.

use crate::{TopRow, group_rank};
use amem_records::AuditRecord;
use std::cell::OnceCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// What a listing sorts by before the common order.
#[derive(Clone, Copy, Debug)]
enum Lead {
    /// The user's own first.
    Mine,
    /// The most check-worthy first.
    Worth,
    /// Only the common order.
    None,
}

impl Lead {
    /// Smaller comes first.
    fn of(self, rec: &AuditRecord) -> i64 {
        match self {
            Lead::Mine => -(rec.from_me as i64),
            Lead::Worth => -rec.check_worth(),
            Lead::None => 0,
        }
    }
}

/// A row in a listing, with its lead key and (computed only on a tie of
/// every other key) its JSON, the row store's last sort key.
struct Ranked {
    lead: i64,
    rec: AuditRecord,
    json: OnceCell<String>,
}

fn json_of<'a>(cell: &'a OnceCell<String>, rec: &AuditRecord) -> &'a str {
    // A row that does not encode cannot reach here: the arrow sink and the
    // row store encode the same rows. An empty key only orders it first.
    cell.get_or_init(|| serde_json::to_string(rec).unwrap_or_default())
}

/// The row store's `ORDER BY` after the group: source, archive,
/// conversation, sent_at (microseconds), message id, span start, claim id
/// (hex, which orders as its bytes), method, assessed_at; the JSON last.
fn common_order(a: &AuditRecord, b: &AuditRecord) -> Ordering {
    a.source
        .as_str()
        .cmp(b.source.as_str())
        .then_with(|| a.archive.cmp(&b.archive))
        .then_with(|| a.conversation.cmp(&b.conversation))
        .then_with(|| a.sent_at.as_microsecond().cmp(&b.sent_at.as_microsecond()))
        .then_with(|| a.message_id.0.cmp(&b.message_id.0))
        .then_with(|| (a.claim.span.start as i64).cmp(&(b.claim.span.start as i64)))
        .then_with(|| a.claim.id.0.0.cmp(&b.claim.id.0.0))
        .then_with(|| a.assessment.method.cmp(&b.assessment.method))
        .then_with(|| a.assessment.assessed_at.cmp(&b.assessment.assessed_at))
}

fn rank_order(
    lead_a: i64,
    a: &AuditRecord,
    json_a: &OnceCell<String>,
    lead_b: i64,
    b: &AuditRecord,
    json_b: &OnceCell<String>,
) -> Ordering {
    lead_a.cmp(&lead_b).then_with(|| common_order(a, b)).then_with(|| json_of(json_a, a).cmp(json_of(json_b, b)))
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        rank_order(self.lead, &self.rec, &self.json, other.lead, &other.rec, &other.json)
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// The first `limit` rows by `lead` then the common order.
struct Listing {
    lead: Lead,
    limit: usize,
    /// The worst kept row on top.
    heap: BinaryHeap<Ranked>,
}

impl Listing {
    fn new(lead: Lead, limit: u64) -> Listing {
        Listing { lead, limit: usize::try_from(limit).unwrap_or(usize::MAX), heap: BinaryHeap::new() }
    }

    fn offer(&mut self, rec: &AuditRecord) {
        if self.limit == 0 {
            return;
        }
        let lead = self.lead.of(rec);
        let json = OnceCell::new();
        if self.heap.len() >= self.limit {
            match self.heap.peek() {
                Some(worst) if rank_order(lead, rec, &json, worst.lead, &worst.rec, &worst.json) == Ordering::Less => {
                    self.heap.pop();
                }
                _ => return,
            }
        }
        self.heap.push(Ranked { lead, rec: rec.clone(), json });
    }

    /// The kept rows, best first.
    fn into_sorted(self) -> Vec<AuditRecord> {
        self.heap.into_sorted_vec().into_iter().map(|r| r.rec).collect()
    }
}

/// Rows and the user's own among them, by key.
type Tally<K> = HashMap<K, (u64, u64)>;

/// A conversation's key: source, archive, conversation.
type ConversationKey = (String, String, String);

/// Everything the default report shows, gathered row by row.
pub(crate) struct BestRows {
    /// Rows per group rank, and the uncheckable ones at index 3.
    counts: [u64; 4],
    /// The user's own rows per group rank.
    mine: [u64; 3],
    /// Per group rank: contradicted, supported (yours first), unverified (most check-worthy first).
    listed: [Listing; 3],
    uncheckable: Listing,
    /// Unverified rows by (source, archive, conversation). Rows arrive
    /// sorted by conversation, so the current one is tallied on the side
    /// and moved into the map when the next begins (no key copied per row).
    conversations: Tally<ConversationKey>,
    current: Option<(ConversationKey, (u64, u64))>,
    /// Unverified rows by author.
    authors: Tally<String>,
}

/// Which table of unverified claims.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TopBy {
    Conversation,
    Author,
}

impl BestRows {
    /// Keeping up to the given numbers of rows per listing.
    pub(crate) fn new(contradicted: u64, supported: u64, unverified: u64, uncheckable: u64) -> BestRows {
        BestRows {
            counts: [0; 4],
            mine: [0; 3],
            listed: [Listing::new(Lead::Mine, contradicted), Listing::new(Lead::Mine, supported), Listing::new(Lead::Worth, unverified)],
            uncheckable: Listing::new(Lead::None, uncheckable),
            conversations: HashMap::new(),
            current: None,
            authors: HashMap::new(),
        }
    }

    pub(crate) fn add(&mut self, rec: &AuditRecord) {
        let rank = group_rank(rec.group()) as usize;
        let mine = rec.from_me as u64;
        self.counts[rank] += 1;
        self.mine[rank] += mine;
        self.listed[rank].offer(rec);
        if rec.is_uncheckable() {
            self.counts[3] += 1;
            self.uncheckable.offer(rec);
        }
        if rank != group_rank(amem_records::Group::Unverified) as usize {
            return;
        }
        match &mut self.current {
            Some(((s, a, c), n)) if s == rec.source.as_str() && *a == rec.archive && *c == rec.conversation => {
                n.0 += 1;
                n.1 += mine;
            }
            current => {
                if let Some((key, (n, m))) = current.take() {
                    let e = self.conversations.entry(key).or_default();
                    e.0 += n;
                    e.1 += m;
                }
                *current = Some(((rec.source.as_str().to_string(), rec.archive.clone(), rec.conversation.clone()), (1, mine)));
            }
        }
        match self.authors.get_mut(rec.author.as_str()) {
            Some(n) => {
                n.0 += 1;
                n.1 += mine;
            }
            None => {
                self.authors.insert(rec.author.clone(), (1, mine));
            }
        }
    }

    /// Stop adding: the open conversation tally joins the others.
    pub(crate) fn close(&mut self) {
        if let Some((key, (n, m))) = self.current.take() {
            let e = self.conversations.entry(key).or_default();
            e.0 += n;
            e.1 += m;
        }
    }

    pub(crate) fn counts(&self) -> [u64; 4] {
        self.counts
    }

    pub(crate) fn mine(&self) -> [u64; 3] {
        self.mine
    }

    /// The `n` largest keys of a table (most rows first, then by key) and how many keys there are.
    pub(crate) fn top(&self, by: TopBy, n: usize) -> (Vec<TopRow>, u64) {
        let mut rows: Vec<TopRow> = match by {
            TopBy::Conversation => {
                self.conversations.iter().map(|((s, a, c), &(k, m))| (vec![s.clone(), a.clone(), c.clone()], k, m)).collect()
            }
            TopBy::Author => self.authors.iter().map(|(a, &(k, m))| (vec![a.clone()], k, m)).collect(),
        };
        let distinct = rows.len() as u64;
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        rows.truncate(n);
        (rows, distinct)
    }

    /// The listed rows of a group rank (0 contradicted, 1 supported, 2 unverified), in report order.
    pub(crate) fn take_listed(&mut self, rank: usize) -> Vec<AuditRecord> {
        let lead = self.listed[rank].lead;
        std::mem::replace(&mut self.listed[rank], Listing::new(lead, 0)).into_sorted()
    }

    /// The listed uncheckable rows, in report order.
    pub(crate) fn take_uncheckable(&mut self) -> Vec<AuditRecord> {
        std::mem::replace(&mut self.uncheckable, Listing::new(Lead::None, 0)).into_sorted()
    }
}
