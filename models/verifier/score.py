"""Score pairs with exported weights, in torch: the reference the Rust verifier is checked against.

    python3 models/verifier/score.py PAIRS.jsonl [--weights crates/models/weights] [--compare RUST_OUTPUT]

PAIRS.jsonl: {"evidence", "claim"} a line (the evidence already the window the model reads, as in
the training data). Prints one line of probabilities a pair (supported contradicted
not_enough_info); with --compare, reads the Rust example's output for the same pairs
(`cargo run --release -p amem-models --example score_pairs < PAIRS.jsonl`) and prints the
largest difference and the share of pairs whose argmax differs.
"""

import argparse
import json
import os
import sys

import torch
from safetensors.torch import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train import LABELS, Verifier, base_dir, batches, predict  # noqa: E402,F401
from transformers import AutoTokenizer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs")
    ap.add_argument("--weights", default="crates/models/weights")
    ap.add_argument("--compare")
    args = ap.parse_args()
    torch.set_num_threads(2)
    state = load_file(os.path.join(args.weights, "verifier.safetensors"))
    model = Verifier(base_dir())
    renamed = {(k if k.startswith("classifier") else "encoder." + k): v.float() for k, v in state.items()}
    missing, unexpected = model.load_state_dict(renamed, strict=False)
    assert not unexpected and all(m.endswith("position_ids") for m in missing), (missing, unexpected)
    tokenizer = AutoTokenizer.from_pretrained(args.weights)
    rows = []
    with open(args.pairs) as f:
        for line in f:
            r = json.loads(line)
            r.setdefault("label", "not_enough_info")
            rows.append(r)
    probs = predict(model, rows, tokenizer)
    if not args.compare:
        for p in probs:
            print(" ".join(f"{x:.5f}" for x in p))
        return
    with open(args.compare) as f:
        rust = [[float(x) for x in line.split()] for line in f if line.strip()]
    assert len(rust) == len(rows), (len(rust), len(rows))
    diff = max(abs(a - b) for p, q in zip(probs, rust) for a, b in zip(p, q))
    flips = sum(1 for p, q in zip(probs, rust) if int(p.argmax()) != max(range(3), key=lambda i: q[i]))
    print(f"{len(rows)} pairs: largest probability difference {diff:.5f}; argmax differs on {flips}")


if __name__ == "__main__":
    main()
