#!/usr/bin/env python3
"""What sharding costs on one machine: the x10 archive of scripts/bench-audit.py (the Enron
sample's mails ten times over as one mbox), then the x1 archive (its 11,238 real mails once),
each audited offline against the 10,000-note wiki as one run, as 2 shards and as 4 shards, each
split then merged by `amem report --merge`. The shards of a split run one after another, each with
the whole machine, as each would have a machine of its own in a fan-out (started at once on these
two cores, four shards of two workers each also pay for eight threads contending for two cores:
that is this machine's limit, not sharding's).

On two cores N shards cannot be faster than one run: the figures show the overhead of sharding.
Each shard reads (and parses) the whole archive, since copies of a mail and a sender's template
are decided over every message; it audits, records and reports only its own messages. Beyond the
import, each process starts on its own (the wiki index checked, the models and chunk vectors
loaded), and a claim text met in several messages is assessed once per shard that meets it
instead of once (the x10 archive repeats every mail's text ten times, so it shows that loss
largest).

Printed per archive and split: wall time (of a split, its longest shard's: what N machines would
take), CPU (user + system, all processes; of it the import
and the assessing, from each process's own CPU by part), the merge's wall time, the ratio of
each to the single run's, and whether the rows' counts equal the single run's. Target, checked
with --check: the CPU of 2 and 4 shards, merge included, within 1.10x of the single run's
(issue 44).

The configuration: `--no-verifier-model` by default (the check-worthiness model and hybrid
recall on, the learned verifier off: it reads some ten pairs a second, issue 37); `--no-models`
makes the import a larger share of a run.

Usage:
    python3 scripts/bench-shards.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-shards.py --check    # measure, fail on a missed target or a stale block
    options: --scratch DIR (default /tmp/amem-bench-audit, shared with bench-audit.py),
             --amem BIN (a built amem; default: the release build, built now), --scale 10|1 (repeatable),
             --models no-verifier|none
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

from bench_common import ROOT, SHARED, amem_exe, enron_sample, finish, load, log

BEGIN, END = "<!-- bench-shards:begin -->", "<!-- bench-shards:end -->"
TARGET_CPU_RATIO = 1.10
SPLITS = (1, 2, 4)
MODELS = {"no-verifier": ["--no-verifier-model"], "none": ["--no-models"]}


def run_each(cmds):
    """Run the commands one after another (RUST_LOG=info, so each logs its CPU by part): the
    longest one's wall seconds (what N machines would take), the CPU seconds of all (user +
    system of the children), their stdouts and stderrs."""
    env = dict(os.environ, RUST_LOG="info")
    walls, outs, errs = [], [], []
    before = os.times()
    for c in cmds:
        start = time.perf_counter()
        p = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        walls.append(time.perf_counter() - start)
        if p.returncode != 0:
            raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(c), p.stderr[-3000:]))
        outs.append(p.stdout)
        errs.append(p.stderr)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return max(walls), cpu, outs, errs


def cpu_parts(stderr):
    """{part: CPU seconds} of a run's "CPU by part" log line ("other" is what the run's parts do
    not account for: the process's start among it)."""
    m = re.search(r"CPU by part: (.*); process", stderr)
    parts = {}
    for part in (m.group(1).split(", ") if m else []):
        name, secs = re.match(r"(.+) ([0-9.]+) s$", part).groups()
        parts[name] = parts.get(name, 0.0) + float(secs)
    return parts


def sender_balance(mbox, n):
    """The largest of `n` shards over an even share, were the shard key the sender's address
    (hashed as the content key is) instead of the content: read from the mbox's From headers."""
    senders = {}
    header = False
    with open(mbox, "rb") as f:
        for line in f:
            if line.startswith(b"From "):
                header = True
            elif header and line[:5].lower() == b"from:":
                m = re.search(rb"[\w.+'-]+@[\w.-]+", line)
                who = (m.group(0) if m else line.strip()).lower()
                senders[who] = senders.get(who, 0) + 1
                header = False
            elif header and not line.strip():
                header = False
    shards = [0] * n
    for who, count in senders.items():
        shards[int.from_bytes(hashlib.sha256(who).digest()[:8], "little") % n] += count
    return max(shards) / (sum(shards) / n)


def reused_claims(stderr):
    """How many claims a run found assessed in an earlier message of its own (its log line)."""
    m = re.search(r"claim outcomes reused from an earlier message of this run: ([0-9]+)", stderr)
    return int(m.group(1)) if m else 0


def summary_of(stdout, kind="run_summary"):
    for line in stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("type") == kind:
            return ev["data"]["summary"]
    raise SystemExit("no %s in the output" % kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-audit")
    ap.add_argument("--amem")
    ap.add_argument("--scale", type=int, action="append", choices=(1, 10),
                    help="the archive (repeatable) [default: x10 (the Enron sample ten times over), then x1 (its real mails once)]")
    ap.add_argument("--models", default="no-verifier", choices=tuple(MODELS))
    a = ap.parse_args()
    if not os.path.exists(os.path.join(SHARED, "corpora", "enron", "enron-5users.tar.gz")):
        print("SKIPPED: ../shared/corpora/enron/enron-5users.tar.gz is absent")
        return
    bench = load("bench_audit", "bench-audit.py")
    mb = bench.mail_bench()
    os.makedirs(a.scratch, exist_ok=True)
    root = enron_sample(a.scratch)
    files = mb.enron_files(root)
    archives = mb.generate(a.scratch, files, root)
    exe = amem_exe(a.amem)
    base = os.path.join(a.scratch, "home-indexed")
    if not os.path.exists(os.path.join(base, "ledger.sqlite")):
        shutil.rmtree(base, ignore_errors=True)
        bench.make_wiki(base, files)
    subprocess.run([exe, "index", "--home", base], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    flags = MODELS[a.models]
    blocks, failures = [], []
    for scale in a.scale or [10, 1]:
        table, fails = measure(exe, base, archives[scale]["gmail"], scale, flags, a.scratch)
        blocks.append(table)
        failures += fails
    block = "\n".join([BEGIN, ""] + blocks + [
        "Recomputed by `python3 scripts/bench-shards.py` (`--check` fails over the target).", END])
    if a.check:
        text = open(os.path.join(ROOT, "docs", "benchmarks.md")).read()
        if BEGIN not in text:
            failures.append("benchmarks page has no bench-shards block")
    finish(block, failures, a.check, BEGIN, END, write_missed=True)


def measure(exe, base, mbox, scale, flags, scratch):
    """One archive as one run, then as each split: the table's lines and the missed targets."""
    rows = []
    for n in SPLITS:
        home = os.path.join(scratch, "home-shards")
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(base, home)
        audit = [exe, *flags, "audit", "chat-history", "--offline", "--home", home, "--since", "1970-01-01", "--now",
                 "2030-01-01T00:00:00Z", "--source", "gmail:" + mbox, "--json", "--format", "md,parquet"]
        out = os.path.join(scratch, "shards-out")
        shutil.rmtree(out, ignore_errors=True)
        if n == 1:
            cmds = [audit + ["--out", os.path.join(out, "single")]]
        else:
            cmds = [audit + ["--shard", "%d/%d" % (i, n), "--out", os.path.join(out, str(i))] for i in range(n)]
        log("x%d, %d shard(s): auditing" % (scale, n))
        wall, cpu, outs, errs = run_each(cmds)
        sums = [summary_of(o) for o in outs]
        parts = {}
        for e in errs:
            for k, v in cpu_parts(e).items():
                parts[k] = parts.get(k, 0.0) + v
        merge_wall, merge_cpu, by_group = 0.0, 0.0, {}
        if n == 1:
            by_group = sums[0]["by_group"]
        else:
            merge = [exe, "report", "--home", home, "--format", "json", "--reports", "md,parquet", "--out", os.path.join(out, "merged")]
            for i in range(n):
                merge += ["--merge", os.path.join(home, "shards", "%d-of-%d" % (i, n))]
            log("x%d, %d shards: merging" % (scale, n))
            merge_wall, merge_cpu, mouts, _ = run_each([merge])
            by_group = summary_of(mouts[0], "report_merge")["by_group"]
        read = [s["messages_read"] for s in sums]
        rows.append({"n": n, "wall": wall, "cpu": cpu, "merge_wall": merge_wall, "merge_cpu": merge_cpu,
                     "balance": max(read) / (sum(read) / n), "sender_balance": sender_balance(mbox, n), "import": parts.get("import", 0.0), "assess": parts.get("assess", 0.0), "parts": parts,
                     "messages": sum(s["messages_read"] for s in sums), "by_group": by_group,
                     "reused": sum(reused_claims(e) for e in errs)})
        log("  %.1f s wall, %.1f s CPU, merge %.1f s" % (wall, cpu, merge_wall))
    shutil.rmtree(os.path.join(scratch, "home-shards"), ignore_errors=True)
    one = rows[0]
    lines = ["| x%d archive (%s mails), offline, two cores, `%s` | wall (s; of shards, the longest) | CPU (s, all shards) | of it: import | of it: assess | merge wall (s) | wall with merge vs one run (N machines) | CPU with merge vs one run | rows by group as one run |"
             % (scale, f"{one['messages']:,}", " ".join(flags)),
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    failures = []
    for r in rows:
        wall_ratio = (r["wall"] + r["merge_wall"]) / one["wall"]
        cpu_ratio = (r["cpu"] + r["merge_cpu"]) / one["cpu"]
        same = r["by_group"] == one["by_group"]
        lines.append("| %s | %.1f | %.1f | %.1f | %.1f | %s | %.2f | %.2f | %s |" % (
            "one run" if r["n"] == 1 else "%d shards, then `amem report --merge`" % r["n"], r["wall"], r["cpu"], r["import"],
            r["assess"], "-" if r["n"] == 1 else "%.1f" % r["merge_wall"], wall_ratio, cpu_ratio, "yes" if same else "**no**"))
        if not same:
            failures.append("x%d, %d shards: rows by group %s, one run %s" % (scale, r["n"], r["by_group"], one["by_group"]))
        if r["n"] > 1 and cpu_ratio > TARGET_CPU_RATIO:
            failures.append("x%d, %d shards: CPU %.2fx the single run's, over %.2fx" % (scale, r["n"], cpu_ratio, TARGET_CPU_RATIO))
    worst = max((r["cpu"] + r["merge_cpu"]) / one["cpu"] for r in rows)
    extra = [(r["cpu"] + r["merge_cpu"] - one["cpu"]) / (r["n"] - 1) for r in rows if r["n"] > 1]
    last = rows[-1]
    deltas = sorted(((last["parts"].get(k, 0.0) - one["parts"].get(k, 0.0), k) for k in set(last["parts"]) | set(one["parts"])), reverse=True)
    where = ", ".join("%s +%.1f s" % (k, d) for d, k in deltas[:4] if d > 0)
    lines += ["",
              "x%d: at most %.2fx the single run's CPU, merge included (target: within %.2fx: %s); each shard beyond the first "
              "costs %.1f to %.1f s of CPU (%.0f%% to %.0f%% of the single run's). Where %d shards' CPU exceeds one run's, by the runs' "
              "own CPU by part: %s. Every shard reads and parses every message, since copies and templates are decided over all "
              "of them (`import` is the reading thread; the mail importers' parsing threads are counted in `assessing (other)`); "
              "starts on its own (the wiki index checked, the models and chunk vectors loaded: `other`, `index check`); and "
              "reuses an earlier message's claim outcome and evidence analyses only among its own messages (`assess`)."
              % (scale, worst, TARGET_CPU_RATIO, "met" if worst <= TARGET_CPU_RATIO else "**missed**", min(extra), max(extra),
                 100 * min(extra) / one["cpu"], 100 * max(extra) / one["cpu"], last["n"], where),
              "",
              "Claims found assessed in an earlier message of the same process: %s. A claim met again in a message another "
              "shard audits is assessed again there: that is what splitting by message costs in `assess` (+%.1f s at %d shards, "
              "%.0f%% of the single run's CPU); only a stage keyed by claim text, or a cache the shards share, would keep it."
              % (", ".join("%d in one run" % r["reused"] if r["n"] == 1 else "%d across %d shards" % (r["reused"], r["n"]) for r in rows),
                 last["assess"] - one["assess"], last["n"], 100 * (last["assess"] - one["assess"]) / one["cpu"]),
              "",
              "The largest shard over an even share, by the content key (the runs' messages read): %s; were the key the sender "
              "(which would let a shard skip other shards' bodies and keep a sender's templates whole), from the From headers: %s."
              % (", ".join("%.2f at %d" % (r["balance"], r["n"]) for r in rows if r["n"] > 1),
                 ", ".join("%.2f at %d" % (r["sender_balance"], r["n"]) for r in rows if r["n"] > 1)), ""]
    return "\n".join(lines), failures

if __name__ == "__main__":
    main()
