#!/usr/bin/env python3
"""Latency of the MCP server's tools, over stdio and in-process, in one run.

What it measures, on this machine, in one script run:

1. The wiki: 10,000 notes, each the body of one real Enron mail
   (../shared/corpora/enron/enron-5users.tar.gz, as scripts/bench-audit.py
   builds it), indexed once with `amem index`.
2. The calls: 300 claims, the first sentence (6 to 30 words) of other real
   Enron mails (none of them a note), each sent to `amem_recall` (as its
   query) and to `amem_factcheck` offline (as its claim).
3. In-process: `amem mcp call TOOL --each FILE`, the server's own tool code
   (`Engine::call`) on one thread with no protocol, each call timed inside
   the process.
4. Over stdio: `amem mcp serve --offline`, driven by a minimal JSON-RPC
   client here (initialize, then one tools/call at a time, each timed from
   the write of the request to the read of its answer). The protocol's
   overhead is the ratio of the two on the same calls in the same run.
   The first 20 calls of each series warm up (the model's weights, the
   index's pages) and are not counted.

Both series run with the models on (the default) and again with
`--no-models` (the rules alone) for amem_factcheck. Release build.

Targets (issue 39), checked with --check: p99 under 20 ms for amem_recall
and under 50 ms for offline amem_factcheck, over stdio.

Usage:
    python3 scripts/bench-mcp.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-mcp.py --check    # measure, fail if the block is stale or a target is missed
    options: --scratch DIR (default /tmp/amem-bench-mcp), --exe PATH (a built amem; default: build release)

--check fails when the block is missing, a call count differs, a p50 ratio
(stdio over in-process) moved by more than 50%, or a target is missed.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import time

from bench_common import amem_exe, load, log

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- bench:mcp:begin -->", "<!-- bench:mcp:end -->"
CLAIMS = 300
WARM = 20
TARGET_P99_MS = {"amem_recall": 20.0, "amem_factcheck": 50.0}


def first_sentence(path):
    raw = open(path, "rb").read().decode("utf-8", "replace").replace("\r\n", "\n")
    parts = raw.split("\n\n", 1)
    if len(parts) != 2:
        return None
    body = " ".join(parts[1].split())
    if body.startswith(("-----", ">")):
        return None
    m = re.match(r"(.+?[.!?])(\s|$)", body)
    if not m:
        return None
    s = m.group(1)
    words = s.split()
    return s if 6 <= len(words) <= 30 and not re.search(r"[<>@=_]{2}|http", s) else None


def files_used(files, notes):
    """How many files make_wiki of scripts/bench-audit.py read for `notes` notes
    (it takes them in order and skips bodies under 40 characters)."""
    made = 0
    for i, path in enumerate(files):
        if made == notes:
            return i
        raw = open(path, "rb").read().decode("utf-8", "replace").replace("\r\n", "\n")
        parts = raw.split("\n\n", 1)
        if len(parts) == 2 and len(parts[1].strip()) >= 40:
            made += 1
    return len(files)


def claims_from(files, skip):
    out, seen = [], set()
    for path in files[skip:]:
        s = first_sentence(path)
        if s and s not in seen:
            seen.add(s)
            out.append(s)
        if len(out) == CLAIMS:
            break
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def in_process(exe, home, tool, inputs, models):
    cmd = [exe] + ([] if models else ["--no-models"]) + ["--home", home, "mcp", "call", tool, "--offline", "--each", inputs]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    timing = json.loads(p.stdout.strip().splitlines()[-1])
    if timing["failed"]:
        raise SystemExit("%d in-process %s calls failed" % (timing["failed"], tool))
    return [m / 1000 for m in timing["micros"][WARM:]]


def over_stdio(exe, home, tool, args_list, models):
    cmd = [exe] + ([] if models else ["--no-models"]) + ["--home", home, "mcp", "serve", "--offline"]
    # Buffered pipes: an unbuffered readline reads a byte a call, which would
    # time this client's reads instead of the server.
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        p.stdin.write(json.dumps(msg).encode() + b"\n")
        p.stdin.flush()

    def answer(id_):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("the server closed its output")
            msg = json.loads(line)
            if msg.get("id") == id_:
                return msg

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench-mcp", "version": "0"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ms = []
    for i, args in enumerate(args_list, start=1):
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        got = answer(i)
        ms.append((time.perf_counter() - start) * 1000)
        if "error" in got or got["result"].get("isError"):
            raise SystemExit("a %s call over stdio failed: %s" % (tool, json.dumps(got)[:500]))
    p.stdin.close()
    p.wait(timeout=60)
    return ms[WARM:]


def render(rows, notes, claims):
    lines = [BEGIN, "",
             "| tool | models | calls | in-process p50 | in-process p99 | stdio p50 | stdio p99 | stdio / in-process (p50) | target (stdio p99) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        target = TARGET_P99_MS[r["tool"]]
        met = "met" if r["stdio_p99"] < target else "**missed**"
        lines.append("| %s | %s | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.2f | < %d ms: %s |" % (
            r["tool"], "on" if r["models"] else "off", r["calls"], r["in_p50"], r["in_p99"], r["stdio_p50"], r["stdio_p99"],
            r["ratio"], target, met))
    lines += ["", "Offline, a %d-note wiki (real Enron mail bodies), %d real Enron sentences as claims, release build, this" % (notes, claims),
              "machine (2 cores), one call at a time; the first %d calls of each series warm up and are not counted." % WARM,
              "Recomputed by `python3 scripts/bench-mcp.py` (`--check` verifies this block and the targets).", "", END]
    return "\n".join(lines)


def parse(block):
    rows = {}
    for m in re.finditer(r"\| (amem_\w+) \| (on|off) \| (\d+) \| .*? \| ([0-9.]+) \| < ", block):
        rows[(m.group(1), m.group(2) == "on")] = {"calls": int(m.group(3)), "ratio": float(m.group(4))}
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-mcp")
    ap.add_argument("--exe", help="a built amem (default: cargo build --release)")
    a = ap.parse_args()
    audit_bench = load("bench_audit", "bench-audit.py")
    files = audit_bench.enron_sample_files(a.scratch)
    exe = amem_exe(a.exe)
    home = os.path.join(a.scratch, "home")
    shutil.rmtree(home, ignore_errors=True)
    notes = audit_bench.make_wiki(home, files)
    log("indexing a %d-note wiki" % notes)
    subprocess.run([exe, "--home", home, "index"], check=True, stderr=subprocess.DEVNULL)
    # The claims come from mails after those the notes were made of (make_wiki
    # takes files in order, skipping bodies under 40 characters).
    claims = claims_from(files, skip=files_used(files, notes))
    if len(claims) < CLAIMS:
        raise SystemExit("only %d claims found" % len(claims))
    inputs = {}
    for tool, key in (("amem_recall", "query"), ("amem_factcheck", "claim")):
        inputs[tool] = os.path.join(a.scratch, tool + ".jsonl")
        with open(inputs[tool], "w", encoding="utf-8") as f:
            for c in claims:
                f.write(json.dumps({key: c}) + "\n")
    rows = []
    for tool, models in (("amem_recall", True), ("amem_factcheck", True), ("amem_factcheck", False)):
        args_list = [json.loads(l) for l in open(inputs[tool], encoding="utf-8")]
        log("%s, models %s: in-process" % (tool, "on" if models else "off"))
        inner = in_process(exe, home, tool, inputs[tool], models)
        log("%s, models %s: over stdio" % (tool, "on" if models else "off"))
        outer = over_stdio(exe, home, tool, args_list, models)
        row = {"tool": tool, "models": models, "calls": len(outer), "in_p50": statistics.median(inner), "in_p99": pct(inner, 99),
               "stdio_p50": statistics.median(outer), "stdio_p99": pct(outer, 99)}
        row["ratio"] = row["stdio_p50"] / row["in_p50"]
        log(row)
        rows.append(row)
    block = render(rows, notes, len(claims))
    readme_path = os.path.join(ROOT, "docs", "benchmarks.md")
    readme = open(readme_path, encoding="utf-8").read()
    failures = []
    for r in rows:
        if r["models"] and r["stdio_p99"] >= TARGET_P99_MS[r["tool"]]:
            failures.append("%s over stdio: p99 %.1f ms, target under %d ms" % (r["tool"], r["stdio_p99"], TARGET_P99_MS[r["tool"]]))
    if a.check:
        if BEGIN not in readme or END not in readme:
            raise SystemExit("docs/benchmarks.md has no bench:mcp block: run python3 scripts/bench-mcp.py")
        old = parse(readme[readme.index(BEGIN):readme.index(END)])
        for r in rows:
            o = old.get((r["tool"], r["models"]))
            if o is None:
                failures.append("no benchmarks page row for %s (models %s)" % (r["tool"], r["models"]))
                continue
            if o["calls"] != r["calls"]:
                failures.append("%s: %d calls, the benchmarks page says %d" % (r["tool"], r["calls"], o["calls"]))
            if not (o["ratio"] / 1.5 <= r["ratio"] <= o["ratio"] * 1.5):
                failures.append("%s: stdio / in-process %.2f, the benchmarks page says %.2f" % (r["tool"], r["ratio"], o["ratio"]))
        print(block)
        if failures:
            raise SystemExit("bench-mcp --check failed:\n  " + "\n  ".join(failures))
        print("bench-mcp --check: the benchmarks page block holds and the targets are met")
        return
    if BEGIN in readme and END in readme:
        readme = readme[:readme.index(BEGIN)] + block + readme[readme.index(END) + len(END):]
        open(readme_path, "w", encoding="utf-8").write(readme)
        log("docs/benchmarks.md block rewritten")
    print(block)
    if failures:
        log("targets missed:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
