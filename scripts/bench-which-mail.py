#!/usr/bin/env python3
"""Which mail a real mailbox's audit reads (issue 41, items 2 to 4).

The Enron sample (../shared/corpora/enron/enron-5users.tar.gz, 11,238 real
mails of five users, 2000-2002, the maildir as it ships, one mail often filed
in several folders) is audited offline with the release binary against the
example wiki, three times:

1. as a user runs it (bulk and automated mail skipped and counted by reason,
   copies of one mail audited once, the check-worthiness model deciding which
   sentences are claims),
2. with `--no-models` (the rules alone decide which sentences are claims), and
3. with `--include-bulk` (every mail's own text), the reference for what the
   selection leaves out.

It prints, for each: messages read, copies, bulk skipped by reason, audited
claims, distinct claim texts among them, the share of audited claims that
the ten largest senders wrote, and the quoted and forwarded text the report
counts; then whether a claim text appears twice in the supported or
contradicted group (it must not, for one mail filed twice).

Usage:
    python3 scripts/bench-which-mail.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-which-mail.py --check    # measure, fail if the block is stale or a copy is reported twice
    options: --scratch DIR (default /tmp/amem-bench-which-mail)
             --binary PATH (an amem binary already built; the figures do not depend on the build profile)
"""

import argparse
import collections
import json
import os
import re
import shutil

from bench_common import ROOT, amem_exe, enron_sample, finish, log, run_amem

BEGIN, END = "<!-- bench:which-mail:begin -->", "<!-- bench:which-mail:end -->"
CONFIG = "[grounding]\nenabled = false\ndefault_action = \"warn\"\n"


def sender(author):
    m = re.search(r"<([^>]+)>", author)
    return (m.group(1) if m else author).strip().lower()


def audit(exe, scratch, root, name, extra):
    home = os.path.join(scratch, "home-" + name)
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    shutil.copytree(os.path.join(ROOT, "examples", "home", "wiki"), os.path.join(home, "wiki"))
    with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as f:
        f.write(CONFIG)
    run_amem([exe, "index", "--home", home, "-q"])
    p = run_amem([exe, "audit", "chat-history", "--offline", "--home", home, "--since", "1970-01-01", "--now", "2030-01-01T00:00:00Z",
             "--source", "enron:" + root, "--format", "jsonl,json"] + extra)
    summary = None
    for line in p.stdout.splitlines():
        ev = json.loads(line)
        if ev.get("type") == "run_summary":
            summary = ev["data"]["summary"]
            report_dir = ev["data"]["report_dir"]
    if summary is None:
        raise SystemExit("no run_summary from %s" % name)
    by_sender = collections.Counter()
    texts = collections.Counter()
    decided = collections.defaultdict(collections.Counter)
    rows = 0
    with open(os.path.join(report_dir, "audit.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") != "assessment":
                continue
            row = rec["data"]
            rows += 1
            text = row["claim"]["text"]
            texts[text] += 1
            by_sender[sender(row["author"])] += 1
            group = row["assessment"].get("group") or ("supported" if row["assessment"]["status"] == "supported" else
                                                         "contradicted" if row["assessment"]["status"] == "contradicted" else "unverified")
            if group in ("supported", "contradicted"):
                decided[group][text] += 1
    top = by_sender.most_common(10)
    # The company's domain: the one most of the archive's people (distinct
    # sender addresses) write from, not the one that sends the most text.
    domains = collections.Counter()
    people = collections.Counter()
    for who, n in by_sender.items():
        domains[who.rsplit("@", 1)[-1]] += n
        people[who.rsplit("@", 1)[-1]] += 1
    home_domain = people.most_common(1)[0][0] if people else ""
    bulk = summary["skipped"]["by_stage"].get("select", {})
    r = {
        "run": name,
        "read": summary["messages_read"],
        "copies": summary.get("copies", 0),
        "bulk": sum(v for k, v in bulk.items() if k.startswith("bulk")),
        "bulk_by_reason": dict(sorted(((k[len("bulk: "):], v) for k, v in bulk.items() if k.startswith("bulk")), key=lambda kv: -kv[1])),
        "rows": rows,
        "distinct": len(texts),
        "top10": sum(n for _, n in top),
        "top10_share": sum(n for _, n in top) / rows if rows else 0.0,
        "top": top[:3],
        "home_domain": home_domain,
        "outside": sum(n for d, n in domains.items() if d != home_domain),
        "quoted": summary.get("quoted", {}),
        "twice": {g: sorted(t for t, n in c.items() if n > 1) for g, c in decided.items()},
    }
    log({k: v for k, v in r.items() if k != "twice"})
    return r


def render(rows):
    lines = [BEGIN, "", "| run | messages read | copies (audited once) | bulk skipped | audited claims | distinct claim texts | "
             "ten largest senders' share of audited claims | share from outside the company (the domain most senders write from) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %d | %d | %d | %d | %d | %.1f%% (%d) | %.1f%% (%d, not %s) |" % (
            r["run"], r["read"], r["copies"], r["bulk"], r["rows"], r["distinct"], 100 * r["top10_share"], r["top10"],
            100 * r["outside"] / r["rows"] if r["rows"] else 0.0, r["outside"], r["home_domain"]))
    default = rows[0]
    reasons = ", ".join("%s %d" % kv for kv in default["bulk_by_reason"].items())
    q = default["quoted"]
    lines += [
        "",
        "Bulk skipped by reason (default run): %s." % (reasons or "none"),
        "Quoted and forwarded text in the audited mail, not audited: %d messages with quoted replies (%d characters), "
        "%d with forwarded text (%d characters)." % (q.get("reply_messages", 0), q.get("reply_chars", 0), q.get("forward_messages", 0),
                                                       q.get("forward_chars", 0)),
        "The largest senders of audited claims (default run): %s." % ", ".join("%s %d" % kv for kv in default["top"]),
        "A claim text twice in ✅ or ⚠: %s." % ("none" if not any(default["twice"].values()) else
                                               "; ".join("%s: %d" % (g, len(t)) for g, t in default["twice"].items() if t)),
        "",
        "The Enron sample (its maildir as it ships) audited offline against the example wiki. Recomputed by",
        "`python3 scripts/bench-which-mail.py` (`--check` verifies this block).",
        END,
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-which-mail")
    ap.add_argument("--binary", help="an amem binary to use instead of building the release one")
    a = ap.parse_args()
    os.makedirs(a.scratch, exist_ok=True)
    root = enron_sample(a.scratch)
    exe = amem_exe(a.binary)
    rows = [audit(exe, a.scratch, root, "default", []),
            audit(exe, a.scratch, root, "--no-models", ["--no-models"]),
            audit(exe, a.scratch, root, "--include-bulk", ["--include-bulk"])]
    block = render(rows)
    failures = []
    for g, t in rows[0]["twice"].items():
        for text in t[:5]:
            log("   twice in %s: %s" % (g, text[:160]))
    if a.check:
        readme = open(os.path.join(ROOT, "docs", "benchmarks.md"), encoding="utf-8").read()
        i, j = readme.find(BEGIN), readme.find(END)
        if i < 0 or j < 0:
            failures.append("benchmarks page has no bench:which-mail block")
        elif readme[i:j + len(END)] != block:
            failures.append("the benchmarks page's bench:which-mail block differs from this measurement: rerun without --check")
    finish(block, failures, a.check, BEGIN, END)


if __name__ == "__main__":
    main()
