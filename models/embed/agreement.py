"""Record the exported static embedder's vectors for sentences written here, so the
Rust embedder can be checked against them (`crates/models/tests/embed.rs`).

    python3 models/embed/agreement.py --weights crates/models/weights --out models/embed/agreement.jsonl
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "checkworthy"))
import common  # noqa: E402

SENTENCES = [
    "The Falcon team has 14 engineers.",
    "Arctic sea ice has declined sharply since 1979.",
    "Thanks for sending the draft!",
    "Enron's stock fell to $0.26 on November 30, 2001.",
    "Die Gletscher schmelzen schneller als erwartet.",
    "The frozen mass of the glacier got smaller every year.",
    "résumé naïve café — déjà vu",
    "!!!",
    "",
    "Natural Gas: $2.791 (+0.05) Crude: $19.35",
    "We will meet at 3pm in room 4B to review the Q3 budget of $1.2M.",
    "A chunk of a note, several sentences long. It says what the team did in March. The launch moved to May.",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(common.base_dir())
    table = load_file(os.path.join(a.weights, "embed.safetensors"))["embeddings"].astype(np.float32)
    with open(a.out, "w", encoding="utf-8") as f:
        for s in SENTENCES:
            ids = tok(s, add_special_tokens=False)["input_ids"]
            v = table[ids].sum(0) if ids else np.zeros(table.shape[1], np.float32)
            n = float(np.linalg.norm(v))
            if n > 0:
                v = v / n
            f.write(json.dumps({"text": s, "vector": [round(float(x), 6) for x in v]}) + "\n")


if __name__ == "__main__":
    main()
