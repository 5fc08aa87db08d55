#!/usr/bin/env bash
# Recall speed, tethered in the benchmarks page's `recall` section (block recall:bench).
#
#   scripts/bench-recall.sh          measure and rewrite the block
#   scripts/bench-recall.sh --check  measure again; fail when the benchmarks page figures
#                                    differ by more than 2x from this run, or p99
#                                    misses the 5 ms target
#
# What it measures (crates/recall/benches/recall.rs, release build): a
# generated, deterministic wiki of 10,000 markdown documents; a full index
# build in MB/s next to a reference pass over the same files (read + SHA-256)
# in the same process; and the latency of 1,000 claim queries (k = 5), p50/p99.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=write
if [[ "${1:-}" == "--check" ]]; then
    mode=check
elif [[ $# -gt 0 ]]; then
    echo "usage: $0 [--check]" >&2
    exit 2
fi
AMEM_RECALL_BENCH_REPORT="$mode" cargo bench -p amem-recall --bench recall
