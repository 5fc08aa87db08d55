"""The unlabelled mail sentences the teacher labels for the student: the shared
Enron sample's clauses exactly as amem cuts them, with the rules' kinds.

    amem import enron <Enron sample maildir> > target/checkworthy-data/enron-messages.jsonl
    target/release/examples/extract_jsonl target/checkworthy-data/enron-messages.jsonl --claims \
        > target/checkworthy-data/enron-claims.jsonl
    python3 models/checkworthy/data.py --claims target/checkworthy-data/enron-claims.jsonl \
        --out target/checkworthy-data/mail.jsonl

Only the text is used, never a label: the teacher's probabilities stand in
for one. Distinct texts; greetings and questions left out (the rules settle
those and the model is never asked); a deterministic sample by text hash.
"""

import argparse
import hashlib
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claims", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max", type=int, default=30000)
    args = ap.parse_args()
    seen = {}
    with open(args.claims, encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            text = " ".join(c["text"].split())
            if c["kind"] in ("greeting", "question") or len(text) < 12 or len(text) > 400:
                continue
            seen.setdefault(text, c["kind"])
    ranked = sorted(seen, key=lambda t: hashlib.sha256(("amem-checkworthy-mail|" + t).encode()).digest())
    with open(args.out, "w", encoding="utf-8") as f:
        for t in ranked[: args.max]:
            f.write(json.dumps({"text": t, "kind": seen[t]}) + "\n")
    print(f"{len(seen)} distinct mail clauses, {min(len(seen), args.max)} written to {args.out}")


if __name__ == "__main__":
    main()
