#!/usr/bin/env bash
# Measures the gate and writes its figures into docs/benchmarks.md (section "gate"):
#   - throughput: `cargo bench -p amem-gate --bench gate` (divan), the whole gate
#     against a baseline of one aho-corasick pass of all word-list terms over the
#     same bytes, both in the same bench process; the ratio of their fastest
#     samples goes between <!-- gate:bench:begin --> and <!-- gate:bench:end -->;
#   - cue figures: the dev-set P/R/F1 table from ../shared/eval (the same table the
#     test `readme_cue_table_matches_the_dev_halves` recomputes) between
#     <!-- gate:cues:begin --> and <!-- gate:cues:end -->.
#
# Usage: scripts/bench-gate.sh           measure and rewrite the benchmarks page blocks
#        scripts/bench-gate.sh --check   measure and exit 1 when the benchmarks page's ratio is
#                                        more than 25% off the measurement or the cue
#                                        table differs (timings vary between runs and
#                                        machines; the cue table must match exactly)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-write}"

bench_out=$(cargo bench -q -p amem-gate --bench gate -- --sample-count 300 2>/dev/null)
echo "$bench_out" >&2
cues_out=""
if [ -d ../shared/eval ]; then
    cues_out=$(cargo run -q --release -p amem-eval --example cue_eval -- ../shared/eval 2>/dev/null)
else
    echo "note: ../shared is absent; the cue table is left as it is" >&2
fi

BENCH_OUT="$bench_out" CUES_OUT="$cues_out" python3 - "$mode" <<'PY'
import os, re, sys
mode = sys.argv[1]
units = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
fastest, mbps = {}, {}
lines = os.environ["BENCH_OUT"].splitlines()
for i, line in enumerate(lines):
    m = re.match(r"^[├╰]─ (\w+)\s+([\d.]+) (ns|µs|us|ms|s)\b", line)
    if m:
        fastest[m.group(1)] = float(m.group(2)) * units[m.group(3)]
        t = re.search(r"([\d.]+) (KB|MB|GB)/s", lines[i + 1]) if i + 1 < len(lines) else None
        if t:
            mbps[m.group(1)] = float(t.group(1)) * {"KB": 1e-3, "MB": 1.0, "GB": 1e3}[t.group(2)]
if "gate" not in fastest or "baseline" not in fastest:
    sys.exit("could not read the divan output:\n" + os.environ["BENCH_OUT"])
ratio = fastest["gate"] / fastest["baseline"]
msgs = [l for l in open("crates/gate/benches/enron_like.txt", encoding="utf-8") if l.strip() and not l.startswith("#")]
pairs = 3 * len(msgs)
terms = 0
for name in ["negation", "hedge", "attribution", "condition", "temporal", "false_friends", "totals", "derivations"]:
    for l in open(f"crates/text/lexicons/{name}.txt", encoding="utf-8"):
        l = l.split("#")[0].strip()
        if l:
            terms += len([f for f in l.split(" | ") if f.strip()])
bench_block = (
    "| measure (fastest of 300 samples) | value |\n|---|---|\n"
    f"| the whole gate (alignment + eight checks), {pairs} pairs | {mbps.get('gate', 0):.1f} MB/s, {pairs / fastest['gate']:,.0f} pairs/s |\n"
    f"| baseline: one aho-corasick pass of all {terms} word-list terms over the same bytes | {mbps.get('baseline', 0):.1f} MB/s |\n"
    f"| ratio gate / baseline | {ratio:.2f}x (target: within 5x) |\n"
)
readme = open("docs/benchmarks.md", encoding="utf-8").read()

def block(name):
    m = re.search(rf"<!-- gate:{name}:begin -->\n(.*?)<!-- gate:{name}:end -->", readme, re.S)
    if not m:
        sys.exit(f"docs/benchmarks.md has no <!-- gate:{name}:begin/end --> block")
    return m

cues = os.environ["CUES_OUT"]
if cues and not cues.endswith("\n"):
    cues += "\n"  # $(...) strips the final newline
if mode == "--check":
    old = re.search(r"ratio gate / baseline \| ([\d.]+)x", block("bench").group(1))
    ok = True
    if not old:
        print("benchmarks page bench block has no ratio"); ok = False
    elif abs(float(old.group(1)) - ratio) / ratio > 0.25:
        print(f"benchmarks page ratio {old.group(1)}x, measured {ratio:.2f}x: more than 25% apart; run scripts/bench-gate.sh"); ok = False
    if cues and block("cues").group(1) != cues:
        print("benchmarks page cue table differs from the measurement; run scripts/bench-gate.sh"); ok = False
    print(f"measured ratio {ratio:.2f}x")
    sys.exit(0 if ok else 1)
m = block("bench")
readme = readme[: m.start(1)] + bench_block + readme[m.end(1):]
if cues:
    m = block("cues")
    readme = readme[: m.start(1)] + cues + readme[m.end(1):]
open("docs/benchmarks.md", "w", encoding="utf-8").write(readme)
print(f"docs/benchmarks.md updated: ratio {ratio:.2f}x")
PY
