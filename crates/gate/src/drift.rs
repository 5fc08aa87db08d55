//! `drift`: the gate hop by hop over a chain of rewrites v0..vn, with each
//! end-to-end loss attributed to the hop that lost it.

use crate::check::check;
use crate::report::{Check, GateReport, NOT_CHECKED};
use amem_records::{CueClass, GateVerdict, Span};
use amem_text::cues::detect_cues;
use serde::{Deserialize, Serialize};

/// The gate on one hop `v[from] -> v[to]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hop {
    /// Index of the earlier version.
    pub from: usize,
    /// Index of the later version (`from + 1`).
    pub to: usize,
    /// True when the hop's verdict is `UNCHECKABLE`.
    pub uncheckable: bool,
    /// The gate report of this hop.
    pub report: GateReport,
}

/// One end-to-end loss (a flag of `v0 -> vn`) and the hop it is blamed on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loss {
    /// The check.
    pub check: Check,
    /// The `inspect` change type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The cue text in v0.
    pub cue: String,
    /// Its byte span in v0.
    pub source_span: Span,
    /// The rule that fired.
    pub rule: String,
    /// The hop blamed, as `[from, to]`, or `None` when no hop can be named.
    pub hop: Option<(usize, usize)>,
    /// How the hop was chosen: `last_cue_of_class` (the last hop after which
    /// no version carries a cue of the class), `hop_flag` (the last hop whose
    /// own report raised the same check), or `unattributed`.
    pub attributed_by: String,
}

/// The whole drift report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriftReport {
    /// Number of versions.
    pub versions: usize,
    /// One report per hop.
    pub hops: Vec<Hop>,
    /// The gate on `v0 -> vn` (absent with fewer than two versions).
    pub end_to_end: Option<GateReport>,
    /// End-to-end losses with their hop.
    pub losses: Vec<Loss>,
    /// Indices (into `hops`) of the hops that were uncheckable.
    pub uncheckable_hops: Vec<usize>,
    /// Change types with no detector.
    pub not_checked: Vec<String>,
}

fn class_of(c: Check) -> Option<CueClass> {
    match c {
        Check::Polarity => Some(CueClass::Negation),
        Check::Condition => Some(CueClass::Condition),
        Check::Hedge => Some(CueClass::Hedge),
        Check::Attribution => Some(CueClass::Attribution),
        Check::Temporal => Some(CueClass::Temporal),
        _ => None,
    }
}

/// Run the gate over a chain of versions.
///
/// Attribution rule: for a stance check, the loss is blamed on the last hop
/// `i -> i+1` where `v[i]` carries a cue of the class and `v[i+1]` carries
/// none (the hop where the last cue of its class disappeared). When no such
/// hop exists (the class survives somewhere in the text, e.g. on another
/// sentence) or for the arithmetic and unit checks, the last hop whose own
/// report raised the same check is blamed; failing that, the loss is
/// `unattributed`.
pub fn drift(chain: &[&str]) -> DriftReport {
    let hops: Vec<Hop> = chain
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let report = check(w[0], w[1]);
            Hop { from: i, to: i + 1, uncheckable: report.verdict == GateVerdict::Uncheckable, report }
        })
        .collect();
    let end_to_end = if chain.len() >= 2 { Some(check(chain[0], chain[chain.len() - 1])) } else { None };
    let presence: Vec<Vec<CueClass>> = chain.iter().map(|v| detect_cues(v).into_iter().map(|c| c.class).collect()).collect();
    let mut losses = Vec::new();
    if let Some(e2e) = &end_to_end {
        for f in e2e.flags.iter().filter(|f| f.check != Check::Unaligned) {
            let by_cue = class_of(f.check)
                .and_then(|class| (0..chain.len() - 1).rev().find(|&i| presence[i].contains(&class) && !presence[i + 1].contains(&class)));
            let (hop, by) = match by_cue {
                Some(i) => (Some((i, i + 1)), "last_cue_of_class"),
                None => match hops.iter().rev().find(|h| h.report.flags.iter().any(|g| g.check == f.check)) {
                    Some(h) => (Some((h.from, h.to)), "hop_flag"),
                    None => (None, "unattributed"),
                },
            };
            losses.push(Loss {
                check: f.check,
                kind: f.check.change_type().to_string(),
                cue: f.cue.clone(),
                source_span: f.source_span,
                rule: f.rule.clone(),
                hop,
                attributed_by: by.to_string(),
            });
        }
    }
    let uncheckable_hops = hops.iter().enumerate().filter(|(_, h)| h.uncheckable).map(|(i, _)| i).collect();
    DriftReport {
        versions: chain.len(),
        hops,
        end_to_end,
        losses,
        uncheckable_hops,
        not_checked: NOT_CHECKED.iter().map(|s| s.to_string()).collect(),
    }
}

impl DriftReport {
    /// Text for people.
    pub fn to_text(&self) -> String {
        let mut s = format!("{} versions, {} hops\n", self.versions, self.hops.len());
        for h in &self.hops {
            let checks: Vec<&str> = h.report.flags.iter().map(|f| f.check.as_str()).collect();
            s.push_str(&format!("hop v{} -> v{}: {} [{}]\n", h.from, h.to, h.report.verdict.as_str(), checks.join(", ")));
        }
        if let Some(e) = &self.end_to_end {
            s.push_str(&format!("end to end v0 -> v{}: {}\n", self.versions - 1, e.verdict.as_str()));
        }
        for l in &self.losses {
            match l.hop {
                Some((a, b)) => s.push_str(&format!("- {} {:?} lost at hop v{a} -> v{b} ({})\n", l.kind, l.cue, l.attributed_by)),
                None => s.push_str(&format!("- {} {:?}: no hop can be named\n", l.kind, l.cue)),
            }
        }
        if !self.uncheckable_hops.is_empty() {
            let hs: Vec<String> =
                self.uncheckable_hops.iter().map(|&i| format!("v{} -> v{}", self.hops[i].from, self.hops[i].to)).collect();
            s.push_str(&format!("uncheckable hops: {}\n", hs.join(", ")));
        }
        s.push_str(&format!("not checked (no detector): {}\n", self.not_checked.join(", ")));
        s
    }
}
