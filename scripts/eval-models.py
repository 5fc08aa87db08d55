#!/usr/bin/env python3
"""The learned verifier's figures: `amem eval verify --method all` on the held-out part of
each dev half in ../shared/eval (the documents the model never saw, models/verifier/data.py
`part_of`), rules / model / combined side by side, each beside its claim-only control.

Writes the benchmarks page block between the models-eval markers and
crates/models/weights/eval.json (the figures with the weights' sha256: the test
`model_figures_match_the_recorded_eval` recomputes one set and fails when the weights
change and this script was not rerun).

Usage:
    python3 scripts/eval-models.py            # measure, rewrite the benchmarks page block and eval.json
    python3 scripts/eval-models.py --check    # measure, fail if either is stale
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- models-eval:begin -->", "<!-- models-eval:end -->"
EVAL_JSON = os.path.join(ROOT, "crates", "models", "weights", "eval.json")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def figures(row):
    """The figures kept per set and method."""
    conf = row["confusion"]["rows_gold_columns_predicted"]
    predicted = [sum(r[k] for r in conf) for k in range(3)]
    precision = lambda k: round(conf[k][k] / predicted[k], 4) if predicted[k] else None
    return {
        "pairs": row["pairs"],
        "floor": round(row["floor"], 4),
        "macro_f1": round(row["macro_f1"], 4),
        "claim_only_macro_f1": round(row["shuffled"]["macro_f1"], 4),
        "shuffled_committed": round(row["shuffled"]["decided"], 4),
        "supported_precision": precision(0),
        "contradicted_precision": precision(1),
    }


def render(table, sha):
    lines = [BEGIN, "",
             "| set (held-out part) | pairs | floor | method | macro-F1 | claim-only control | margin | shuffled committed | ✅ precision | ⚠ precision |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, methods in table.items():
        for method, f in methods.items():
            prec = lambda k: "–" if f[k] is None else "%.2f" % f[k]
            lines.append("| %s | %d | %.2f | %s | %.2f | %.2f | %+.2f | %.1f%% | %s | %s |" % (
                name, f["pairs"], f["floor"], method, f["macro_f1"], f["claim_only_macro_f1"],
                f["macro_f1"] - f["claim_only_macro_f1"], 100 * f["shuffled_committed"],
                prec("supported_precision"), prec("contradicted_precision")))
    lines += ["", "Weights sha256 `%s…`; recomputed by `python3 scripts/eval-models.py` (`--check` fails when" % sha[:16],
              "this block or `crates/models/weights/eval.json` is stale).", END]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "eval"))
    a = ap.parse_args()
    if not os.path.isdir(a.corpus):
        print("SKIPPED: %s is absent" % a.corpus)
        return
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "amem"], cwd=ROOT, check=True)
    exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "amem")
    out = subprocess.run([exe, "eval", "verify", "--corpus", a.corpus, "--method", "all", "--format", "json", "-q"],
                         check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        row = json.loads(line)
        table.setdefault(row["set"], {})[row["method"]] = figures(row)
    sums = open(os.path.join(ROOT, "crates", "models", "weights", "SHA256SUMS")).read()
    sha = next(l.split()[0] for l in sums.splitlines() if l.endswith("verifier.safetensors"))
    record = {"weights_sha256": sha, "part": "heldout", "sets": table}
    block = render(table, sha)
    print(block)
    readme_path = os.path.join(ROOT, "docs", "benchmarks.md")
    readme = open(readme_path, encoding="utf-8").read()
    i, j = readme.find(BEGIN), readme.find(END)
    if a.check:
        failures = []
        old = json.load(open(EVAL_JSON)) if os.path.exists(EVAL_JSON) else None
        if old != record:
            failures.append("crates/models/weights/eval.json is stale")
        if i < 0 or j < 0 or readme[i:j + len(END)] != block:
            failures.append("benchmarks page models-eval block is stale")
        if failures:
            raise SystemExit("\n".join(failures))
        return
    with open(EVAL_JSON, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    if i >= 0 and j >= 0:
        open(readme_path, "w", encoding="utf-8").write(readme[:i] + block + readme[j + len(END):])
    else:
        log("benchmarks page has no models-eval markers: add %s and %s where the block goes" % (BEGIN, END))


if __name__ == "__main__":
    main()
