#!/usr/bin/env python3
"""What the two fast models cost a whole audit, and what they change: the x1 archive of
scripts/bench-audit.py (the Enron sample's mails as one mbox, 11,238 mails) against its
10,000-note wiki, offline, audited with the rules alone (`--no-models`), with the
check-worthiness model beside them and recall by the words (`--no-verifier-model
--recall-method bm25`), and with recall by meaning too (`--no-verifier-model`: hybrid recall
on the static embedder, the default; the learned verifier is issue 37's and reads some ten
pairs a second), alternating, the same binary in the same script run (this machine's speed
moves by 1.4x within an hour, so the ratio is the figure that travels).

From each run's summary: the claims audited and the sentences not audited, so the block says
how many sentences the model took out of the audit and how many it let in.

Targets, checked with --check: the audit with the check-worthiness model at >= 500 messages/s
on two cores (issue 41); with hybrid recall too, >= 1,000 messages/s (issue 42).

Usage:
    python3 scripts/bench-checkworthy.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-checkworthy.py --check    # measure, fail on a missed target or a stale block
    options: --scratch DIR (default /tmp/amem-bench-audit, shared with bench-audit.py), --runs N
"""

import argparse
import json
import os
import shutil

from bench_common import ROOT, finish, log, x1_bench

BEGIN, END = "<!-- bench-checkworthy:begin -->", "<!-- bench-checkworthy:end -->"
TARGET_RATE = 500
TARGET_HYBRID_RATE = 1000
# (name in the block, flags): the rules alone, + the check-worthiness model, + hybrid recall.
CONFIGS = (("rules alone (`--no-models`)", ["--no-models"]),
           ("rules + check-worthiness model (`--no-verifier-model --recall-method bm25`)", ["--no-verifier-model", "--recall-method", "bm25"]),
           ("rules + check-worthiness model + hybrid recall (`--no-verifier-model`)", ["--no-verifier-model"]))


def render(rows, messages):
    # the lower middle: with two runs, the slower one
    med = lambda rs, k: sorted(r[k] for r in rs)[(len(rs) - 1) // 2]
    by = [[r for r in rows if r["config"] == i] for i in range(len(CONFIGS))]
    rate_off, rate_on, rate_hybrid = (med(rs, "rate") for rs in by)
    lines = [BEGIN, "",
             "| x1 archive (%s mails), offline, two cores | runs (s) | messages/s (lower median) | claims audited | sentences not audited | peak RSS (MB) |"
             % f"{messages:,}",
             "|---|---|---:|---:|---:|---:|"]
    for (name, _), rs in zip(CONFIGS, by):
        lines.append("| %s | %s | %s | %s | %s | %d |" % (
            name, ", ".join("%.2f" % r["wall"] for r in rs), f"{med(rs, 'rate'):,.0f}", f"{rs[0]['audited']:,}",
            f"{rs[0]['not_audited']:,}", med(rs, "rss")))
    lines += ["",
              "With the check-worthiness model the run keeps %.2f of its rules-alone rate (target: at least %d messages/s "
              "with it: %s); with hybrid recall too, %.2f (target: at least %s messages/s: %s)."
              % (rate_on / rate_off, TARGET_RATE, "met" if rate_on >= TARGET_RATE else "**missed**",
                 rate_hybrid / rate_off, f"{TARGET_HYBRID_RATE:,}", "met" if rate_hybrid >= TARGET_HYBRID_RATE else "**missed**"),
              "Recomputed by `python3 scripts/bench-checkworthy.py` (`--check` fails under a target).", END]
    return "\n".join(lines), rate_on, rate_hybrid


def summary_of(stdout):
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("type") == "run_summary":
            return ev["data"]["summary"]
    raise SystemExit("no run_summary in the audit's output")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-audit")
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    x1 = x1_bench(a.scratch)
    if x1 is None:
        print("SKIPPED: ../shared/corpora/enron/enron-5users.tar.gz is absent")
        return
    exe, base, mbox, bench = x1
    home = os.path.join(a.scratch, "home-checkworthy")
    rows = []
    for _ in range(a.runs):
        for config, (_, flags) in enumerate(CONFIGS):
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(base, home)
            flag = " ".join(flags)
            cmd = [exe, *flags, "audit", "chat-history", "--offline", "--home", home, "--since", "1970-01-01", "--now",
                   "2030-01-01T00:00:00Z", "--source", "gmail:" + mbox, "--format", "md,arrow,json"]
            out = os.path.join(a.scratch, "checkworthy-run.jsonl")
            with open(out, "w") as f:
                wall, rss, _err, _cpu = bench.timed(cmd, stdout=f)
            s = summary_of(open(out).read())
            rows.append({"config": config, "wall": wall, "rate": s["messages_read"] / wall, "rss": rss / 1024,
                         "messages": s["messages_read"], "audited": s["audited"],
                         "not_audited": sum(s["claims_by_kind"].values()) - s["audited"]})
            log("%s: %.2f s, %.0f msg/s, %d claims audited" % (flag, wall, rows[-1]["rate"], s["audited"]))
    shutil.rmtree(home, ignore_errors=True)
    block, rate_on, rate_hybrid = render(rows, rows[0]["messages"])
    failures = []
    if rate_on < TARGET_RATE:
        failures.append("the audit with the check-worthiness model at %.0f messages/s, under %d" % (rate_on, TARGET_RATE))
    if rate_hybrid < TARGET_HYBRID_RATE:
        failures.append("the audit with hybrid recall at %.0f messages/s, under %d" % (rate_hybrid, TARGET_HYBRID_RATE))
    if a.check:
        text = open(os.path.join(ROOT, "docs", "benchmarks.md")).read()
        if BEGIN not in text:
            failures.append("benchmarks page has no bench-checkworthy block")
    finish(block, failures, a.check, BEGIN, END, write_missed=True)


if __name__ == "__main__":
    main()
