#!/usr/bin/env python3
"""What the learned verifier costs a whole audit: the first 1,200 mails of the x1 archive of
scripts/bench-audit.py (real Enron mails as one mbox) against its 10,000-note wiki, offline,
audited with the rules alone (`--no-models`) and with the rules and the model, alternating,
the same binary in the same script run (this machine's speed moves by 1.4x within an hour, so
the ratio is the figure that travels). The whole x1 archive (11,238 mails) took over an hour
with the model (candle's encoder pass, before ADR 0005), past any bench's time: `--messages 0` runs it all the same.

From the models-on runs' own log (RUST_LOG=info): how many pairs the model read, how many it
found remembered, and its rate on exactly the inputs the policy gave it (pairs per second of
thread time).

Targets (issue 37), checked with --check: the x1 audit with models on at >= 1,000
messages/s; the model at >= 100 pairs/s at the policy's real input lengths.

Usage:
    python3 scripts/bench-models.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-models.py --check    # measure, fail on a missed target or a stale block
    options: --scratch DIR (default /tmp/amem-bench-audit, shared with bench-audit.py), --runs N,
             --messages N (the first N mails of the x1 archive; 0: all of it; default 1200)
"""

import argparse
import os
import re
import shutil

from bench_common import log, x1_bench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- bench-models:begin -->", "<!-- bench-models:end -->"
TARGET_RATE = 1000
TARGET_PAIRS = 100


def first_mails(mbox, n, out):
    """The first `n` mails of `mbox` (cut at its `From ` separator lines) written to `out`."""
    seen = 0
    with open(mbox, "rb") as src, open(out, "wb") as dst:
        for line in src:
            if line.startswith(b"From "):
                seen += 1
                if seen > n:
                    break
            dst.write(line)
    return out


def render(rows, label):
    off = [r for r in rows if not r["models"]]
    on = [r for r in rows if r["models"]]
    med = lambda rs, k: sorted(r[k] for r in rs)[len(rs) // 2]
    rate_off, rate_on = med(off, "rate"), med(on, "rate")
    pairs = med(on, "pairs")
    lines = [BEGIN, "",
             "| %s, offline | runs (s) | messages/s (median) | peak RSS (MB) |" % label,
             "|---|---|---:|---:|",
             "| rules alone (`--no-models`) | %s | %s | %d |" % (", ".join("%.2f" % r["wall"] for r in off), f"{rate_off:,.0f}", med(off, "rss")),
             "| rules + both models (the default) | %s | %s | %d |" % (", ".join("%.2f" % r["wall"] for r in on), f"{rate_on:,.0f}", med(on, "rss")),
             "",
             "With the model the run keeps %.2f of its rules-alone rate. The model read %s pairs (%s more were"
             % (rate_on / rate_off, f"{pairs:,}", f"{med(on, 'remembered'):,}"),
             "remembered) at %.1f pairs/s of thread time on the inputs the policy gave it."
             % med(on, "pairs_per_s"),
             "Recomputed by `python3 scripts/bench-models.py` (`--check`: >= %d messages/s with the model, >= %d pairs/s)."
             % (TARGET_RATE, TARGET_PAIRS), END]
    return "\n".join(lines), rate_on, med(on, "pairs_per_s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-audit")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--messages", type=int, default=1200)
    a = ap.parse_args()
    x1 = x1_bench(a.scratch)
    if x1 is None:
        print("SKIPPED: ../shared/corpora/enron/enron-5users.tar.gz is absent")
        return
    exe, base, mbox, bench = x1
    if a.messages:
        mbox = first_mails(mbox, a.messages, os.path.join(a.scratch, "enron-x1-first%d.mbox" % a.messages))
    messages = int(re.search(r"(\d+) messages", bench.timed([exe, "import", "gmail", mbox])[2]).group(1))
    home = os.path.join(a.scratch, "home-models")
    rows = []
    for _ in range(a.runs):
        for models in (False, True):
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(base, home)
            cmd = [exe, "audit", "chat-history", "--offline", "--home", home, "--since", "1970-01-01", "--now",
                   "2030-01-01T00:00:00Z", "--source", "gmail:" + mbox, "--format", "md,arrow", "-q"]
            if not models:
                cmd.insert(1, "--no-models")
            wall, rss, err, _cpu = bench.timed(cmd, env={"RUST_LOG": "info"})
            row = {"models": models, "wall": wall, "rate": messages / wall, "rss": rss / 1024}
            if models:
                m = re.search(r"verifier model: (\d+) pairs read in ([\d.]+) s .*?, (\d+) remembered", err)
                if not m:
                    raise SystemExit("the models-on run logged no verifier line:\n" + err[-2000:])
                row.update(pairs=int(m.group(1)), remembered=int(m.group(3)),
                           pairs_per_s=int(m.group(1)) / max(float(m.group(2)), 1e-9))
            log("%s: %.2f s, %.0f msg/s" % ("models" if models else "rules", wall, row["rate"]))
            rows.append(row)
    shutil.rmtree(home, ignore_errors=True)
    label = "first %s mails of the x1 archive" % f"{messages:,}" if a.messages else "x1 archive (%s mails)" % f"{messages:,}"
    block, rate_on, pairs_per_s = render(rows, label)
    print(block)
    failures = []
    if rate_on < TARGET_RATE:
        failures.append("the audit with the model at %.0f messages/s, under %d" % (rate_on, TARGET_RATE))
    if pairs_per_s < TARGET_PAIRS:
        failures.append("the model at %.1f pairs/s, under %d" % (pairs_per_s, TARGET_PAIRS))
    readme_path = os.path.join(ROOT, "docs", "benchmarks.md")
    readme = open(readme_path, encoding="utf-8").read()
    i, j = readme.find(BEGIN), readme.find(END)
    if a.check:
        if i < 0 or j < 0:
            failures.append("benchmarks page has no bench-models block")
    elif i >= 0 and j >= 0:
        open(readme_path, "w", encoding="utf-8").write(readme[:i] + block + readme[j + len(END):])
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
