#!/usr/bin/env python3
"""Slack importer memory bench for one very large day file (issue 40): the
importer holds a day file's bytes and one small entry per message, never all
of its messages at once.

What it does:

1. Writes a deterministic Slack export into a scratch folder: `users.json`,
   `channels.json` and one channel with one day file of 600,000 messages
   (about 82 MB), each a short line of text from one of 50 users, their `ts`
   shuffled so the importer has to sort them.
2. Runs the release `amem import slack` on it under `/usr/bin/time` (peak
   RSS), output to a pipe that counts the JSON lines, once per run.
3. Target: peak RSS under 300 MiB (before, 1,285 MiB: every message of the
   day was built before the first was yielded), and every message out.
4. Writes the figures into docs/benchmarks.md between
   `<!-- bench:slack-big-day:begin -->` and `<!-- bench:slack-big-day:end -->`.

Usage:
    python3 scripts/bench-slack-big-day.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-slack-big-day.py --check    # measure, fail if the target is missed or the block is stale
    options: --scratch DIR (default /tmp/amem-bench-slack-day), --exe PATH (an amem binary; default: build release)

--check fails (exit 1) when the benchmarks page block is missing, the message count
differs, the peak RSS is over the target, or it moved by more than 25% from
the figure in the block.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys

from bench_common import ROOT, amem_exe, finish, log

BENCHMARKS = os.path.join(ROOT, "docs", "benchmarks.md")
BEGIN = "<!-- bench:slack-big-day:begin -->"
END = "<!-- bench:slack-big-day:end -->"
MESSAGES = 600_000
USERS = 50
TARGET_MIB = 300
DRIFT = 0.25
WORDS = ("the plan for the quarter moved to friday and the budget review waits on the numbers from "
         "finance so we ship the draft after lunch").split()


def write_export(root):
    os.makedirs(os.path.join(root, "general"), exist_ok=True)
    users = [{"id": "U%04d" % i, "name": "user%d" % i, "real_name": "User %d" % i} for i in range(USERS)]
    with open(os.path.join(root, "users.json"), "w") as f:
        json.dump(users, f)
    with open(os.path.join(root, "channels.json"), "w") as f:
        json.dump([{"id": "C0001", "name": "general", "members": [u["id"] for u in users]}], f)
    rng = random.Random(40)
    base = 1_704_103_200  # 2024-01-01T10:00:00Z
    order = list(range(MESSAGES))
    rng.shuffle(order)
    day = os.path.join(root, "general", "2024-01-01.json")
    with open(day, "w") as f:
        f.write("[\n")
        for n, i in enumerate(order):
            words = " ".join(rng.choice(WORDS) for _ in range(10))
            m = {"type": "message", "user": "U%04d" % (i % USERS), "text": "%s, item %d." % (words, i),
                 "ts": "%d.%06d" % (base + i // 10, i % 10)}
            f.write(json.dumps(m, separators=(",", ":")))
            f.write(",\n" if n + 1 < MESSAGES else "\n")
        f.write("]\n")
    return os.path.getsize(day)


def measure(exe, scratch):
    shutil.rmtree(scratch, ignore_errors=True)
    export = os.path.join(scratch, "export")
    log("writing a Slack export with one day file of %d messages to %s" % (MESSAGES, export))
    size = write_export(export)
    home = os.path.join(scratch, "home")
    os.makedirs(home, exist_ok=True)
    cmd = ["/usr/bin/time", "-f", "__time__ %e %M", exe, "--no-progress", "import", "slack", export, "--home", home]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    messages = sum(1 for _ in p.stdout)
    err = p.stderr.read().decode(errors="replace")
    if p.wait() != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err))
    m = re.search(r"__time__ ([0-9.]+) (\d+)", err)
    shutil.rmtree(scratch, ignore_errors=True)
    row = {"bytes": size, "messages": messages, "seconds": float(m.group(1)), "rss_mib": int(m.group(2)) / 1024}
    log("%d messages, peak RSS %.0f MiB, %.1f s" % (messages, row["rss_mib"], row["seconds"]))
    return row


def render(row):
    return "\n".join([
        BEGIN,
        "",
        "| day file | messages | peak RSS | target | wall |",
        "|---:|---:|---:|---:|---:|",
        "| %.0f MB | %d | %.0f MiB | < %d MiB | %.1f s |" % (row["bytes"] / 1e6, row["messages"], row["rss_mib"], TARGET_MIB, row["seconds"]),
        "",
        "One generated day file (`amem import slack`, release build, this machine); recomputed by",
        "`python3 scripts/bench-slack-big-day.py` (`--check` verifies this block and the target).",
        "",
        END,
    ])


def parse_block(text):
    m = re.search(re.escape(BEGIN) + r"(.*?)" + re.escape(END), text, re.S)
    if not m:
        return None
    r = re.search(r"^\| [0-9]+ MB \| (\d+) \| ([0-9]+) MiB \|", m.group(1), re.M)
    return r and {"messages": int(r.group(1)), "rss_mib": float(r.group(2))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-slack-day")
    ap.add_argument("--exe")
    a = ap.parse_args()
    row = measure(amem_exe(a.exe), a.scratch)
    failures = []
    if row["messages"] != MESSAGES:
        failures.append("%d messages out, expected %d" % (row["messages"], MESSAGES))
    if row["rss_mib"] >= TARGET_MIB:
        failures.append("peak RSS %.0f MiB, target under %d MiB" % (row["rss_mib"], TARGET_MIB))
    if a.check:
        old = parse_block(open(BENCHMARKS).read())
        if not old:
            failures.append("benchmarks page has no %s block" % BEGIN)
        elif old["messages"] != row["messages"]:
            failures.append("benchmarks page says %d messages, measured %d" % (old["messages"], row["messages"]))
        elif abs(row["rss_mib"] - old["rss_mib"]) > DRIFT * old["rss_mib"]:
            failures.append("benchmarks page says %.0f MiB, measured %.0f MiB" % (old["rss_mib"], row["rss_mib"]))
    finish(render(row), failures, a.check, BEGIN, END)

if __name__ == "__main__":
    main()
