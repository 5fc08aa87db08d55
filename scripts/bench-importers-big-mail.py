#!/usr/bin/env python3
"""Mail importer memory bench for large messages (issue 16, finding 5): the
parse pool must bound the bytes in flight, not the number of messages.

What it does:

1. Writes a deterministic mbox of 64 messages of 30 MB each (1.9 GB) into a
   scratch folder: each message has a short text/plain part and a 30 MB
   base64 attachment (the attachment's bytes are a fixed SHA-256 stream,
   the same in every message).
2. Runs the release `amem import gmail` on it (the binary users run, with
   its allocator) once per worker count (AMEM_IMPORT_THREADS = 1, 2, 4),
   each in its own process under `/usr/bin/time`, which gives its peak RSS;
   the JSON lines it prints are counted, and the records it skipped.
3. The bound: peak RSS <= 2 x the largest message + 64 MiB, whatever the
   worker count. (Before the pool counted bytes, two workers peaked at
   1,012 MiB on this file; one at 69 MiB. Measured on an example built with
   the system allocator until issue 40, which found the binary at 413 MiB
   with two workers: mimalloc kept huge blocks freed by another thread
   resident, see crates/alloc.)
4. Writes the figures into docs/benchmarks.md between
   `<!-- bench:importers-bigmail:begin -->` and `<!-- bench:importers-bigmail:end -->`.

Usage:
    python3 scripts/bench-importers-big-mail.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-importers-big-mail.py --check    # measure, fail if the bound is missed or the block is stale
    options: --scratch DIR (default /tmp/amem-bench-bigmail), --keep (keep the 1.9 GB mbox),
             --exe PATH (an amem binary; default: build release)

--check fails (exit 1) when the benchmarks page block is missing, a message count
differs, a peak RSS breaks the bound, or moved by more than 25% from the
figure in the block.
"""

import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys

from bench_common import ROOT, amem_exe, finish, log

BENCHMARKS = os.path.join(ROOT, "docs", "benchmarks.md")
BEGIN = "<!-- bench:importers-bigmail:begin -->"
END = "<!-- bench:importers-bigmail:end -->"
MESSAGES = 64
MESSAGE_BYTES = 30_000_000
WORKERS = (1, 2, 4)
SLACK_MIB = 64
DRIFT = 0.25


def attachment_block():
    """About MESSAGE_BYTES of base64 lines (76 columns), deterministic."""
    raw_len = MESSAGE_BYTES * 3 // 4 - 4096
    out = bytearray()
    seed = b"amem bench big mail"
    while len(out) < raw_len:
        seed = hashlib.sha256(seed).digest()
        out.extend(seed * 64)
    b64 = base64.b64encode(bytes(out[:raw_len]))
    return b"\n".join(b64[i:i + 76] for i in range(0, len(b64), 76)) + b"\n"


def write_mbox(path):
    block = attachment_block()
    with open(path, "wb") as f:
        for i in range(MESSAGES):
            day = 1 + i % 28
            head = (
                "From bench@example.org Mon Jan %2d 10:00:00 +0000 2024\n"
                "Message-ID: <big-%d@bench.example.org>\n"
                "Date: Mon, %d Jan 2024 10:00:00 +0000\n"
                "From: Bench <bench@example.org>\n"
                "To: Reader <reader@example.org>\n"
                "Subject: Large message %d\n"
                "MIME-Version: 1.0\n"
                "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n"
                "--b%d\nContent-Type: text/plain; charset=utf-8\n\n"
                "The attached archive holds %d megabytes of readings.\n\n"
                "--b%d\nContent-Type: application/octet-stream; name=\"readings.bin\"\n"
                "Content-Transfer-Encoding: base64\n"
                "Content-Disposition: attachment; filename=\"readings.bin\"\n\n"
            ) % (day, i, day, i, i, i, MESSAGE_BYTES // 1_000_000, i)
            f.write(head.encode())
            f.write(block)
            f.write(("\n--b%d--\n\n" % i).encode())
    return len(head.encode()) + len(block) + 16


def timed(cmd, env):
    """Run `cmd`; its stdout's lines counted, its stderr's `skipped:` lines
    counted, its wall time and peak RSS (KiB)."""
    p = subprocess.Popen(["/usr/bin/time", "-f", "__time__ %e %M"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    lines = sum(1 for _ in p.stdout)
    err = p.stderr.read().decode(errors="replace")
    if p.wait() != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err))
    m = re.search(r"__time__ ([0-9.]+) (\d+)", err)
    return lines, err.count("skipped:"), float(m.group(1)), int(m.group(2))


def measure(scratch, keep, exe):
    os.makedirs(scratch, exist_ok=True)
    mbox = os.path.join(scratch, "big.mbox")
    log("writing %d x %d MB mbox to %s" % (MESSAGES, MESSAGE_BYTES // 1_000_000, mbox))
    largest = write_mbox(mbox)
    exe = amem_exe(exe)
    home = os.path.join(scratch, "home")
    os.makedirs(home, exist_ok=True)
    rows = []
    for w in WORKERS:
        env = dict(os.environ, AMEM_IMPORT_THREADS=str(w))
        messages, errors, wall, rss = timed([exe, "--no-progress", "import", "gmail", mbox, "--home", home], env)
        rows.append({"workers": w, "messages": messages, "errors": errors, "seconds": wall, "rss_mib": rss / 1024})
        log("workers %d: %d messages, peak RSS %.0f MiB, %.1f s" % (w, messages, rss / 1024, wall))
    if not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return largest, rows


def bound_mib(largest):
    return 2 * largest / (1 << 20) + SLACK_MIB


def render(largest, rows):
    lines = [BEGIN,
             "64 messages of %.1f MiB each (one mbox, 1.9 GB), release `amem import gmail`, `python3 scripts/bench-importers-big-mail.py`; "
             "bound: peak RSS <= 2 x the largest message + %d MiB = %.0f MiB, whatever the worker count." % (largest / (1 << 20), SLACK_MIB, bound_mib(largest)),
             "",
             "| workers | messages | errors | peak RSS | wall |",
             "|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %d | %d | %d | %.0f MiB | %.1f s |" % (r["workers"], r["messages"], r["errors"], r["rss_mib"], r["seconds"]))
    lines.append(END)
    return "\n".join(lines)


def parse_block(text):
    m = re.search(re.escape(BEGIN) + r"(.*?)" + re.escape(END), text, re.S)
    if not m:
        return None
    out = {}
    for w, n, e, rss in re.findall(r"^\| (\d+) \| (\d+) \| (\d+) \| ([0-9]+) MiB \|", m.group(1), re.M):
        out[int(w)] = {"messages": int(n), "errors": int(e), "rss_mib": float(rss)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-bigmail")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--exe")
    a = ap.parse_args()
    largest, rows = measure(a.scratch, a.keep, a.exe)
    failures = []
    for r in rows:
        if r["messages"] != MESSAGES:
            failures.append("workers %d: %d messages, expected %d" % (r["workers"], r["messages"], MESSAGES))
        if r["rss_mib"] > bound_mib(largest):
            failures.append("workers %d: peak RSS %.0f MiB over the bound %.0f MiB" % (r["workers"], r["rss_mib"], bound_mib(largest)))
    if a.check:
        old = parse_block(open(BENCHMARKS).read())
        if not old:
            failures.append("benchmarks page has no %s block" % BEGIN)
        else:
            for r in rows:
                o = old.get(r["workers"])
                if not o:
                    failures.append("benchmarks page block has no row for %d workers" % r["workers"])
                elif o["messages"] != r["messages"]:
                    failures.append("workers %d: benchmarks page says %d messages, measured %d" % (r["workers"], o["messages"], r["messages"]))
                elif abs(r["rss_mib"] - o["rss_mib"]) > DRIFT * o["rss_mib"]:
                    failures.append("workers %d: benchmarks page says %.0f MiB, measured %.0f MiB" % (r["workers"], o["rss_mib"], r["rss_mib"]))
    finish(render(largest, rows), failures, a.check, BEGIN, END)

if __name__ == "__main__":
    main()
