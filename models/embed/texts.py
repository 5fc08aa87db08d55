"""The static embedder's training texts, pinned by the files they come from.

No labels are read: the student learns to place a text where the base
encoder places it. Sources (all read in place, listed in the model card):
- the eval dev halves under ../shared/eval: Climate-FEVER's article sentences
  and claims; the evidence texts (whole, and cut into sentences) and claims of
  FEVER-Symmetric, HealthVer, COVID-Fact and WiCE; ClaimBuster's sentences;
- Enron mail sentences the checkworthy data step wrote
  (`target/checkworthy-data/mail.jsonl` and `enron-claims.jsonl`).
Deduplicated, shuffled with the fixed seed, capped.

    python3 models/embed/texts.py --eval ../shared/eval --mail target/checkworthy-data --work target/embed-train
"""
import argparse
import json
import os
import random
import re

SEED = 20261207
MAX_TEXTS = 120_000
MAIL_TEXTS = 40_000
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def sentences(text):
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def eval_texts(root):
    out = []
    cf = os.path.join(root, "climate_fever")
    for d in jsonl(os.path.join(cf, "corpus.jsonl")):
        out.extend(s["text"] for s in d["sentences"])
    out.extend(c["claim"] for c in jsonl(os.path.join(cf, "claims.jsonl")))
    for name in ("fever_symmetric", "healthver", "covid_fact", "wice"):
        for p in jsonl(os.path.join(root, name, "pairs.jsonl")):
            out.append(p["claim"])
            out.append(p["evidence"])
            out.extend(sentences(p["evidence"]))
    cb = os.path.join(root, "claimbuster")
    for f in sorted(os.listdir(cb)):
        if f.endswith(".jsonl"):
            out.extend(r.get("text") or r.get("sentence") or "" for r in jsonl(os.path.join(cb, f)))
    return out


def mail_texts(d):
    out = [r["text"] for r in jsonl(os.path.join(d, "mail.jsonl"))]
    out.extend(r["text"] for r in jsonl(os.path.join(d, "enron-claims.jsonl")))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--mail", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    rng = random.Random(SEED)

    def clean(texts):
        seen, out = set(), []
        for t in texts:
            t = " ".join(t.split())
            if 8 <= len(t) <= 4000 and t not in seen:
                seen.add(t)
                out.append(t)
        return out

    ev = clean(eval_texts(a.eval))
    mail = clean(mail_texts(a.mail))
    rng.shuffle(mail)
    texts = ev + [t for t in mail[:MAIL_TEXTS] if t not in set(ev)]
    rng.shuffle(texts)
    texts = texts[:MAX_TEXTS]
    os.makedirs(a.work, exist_ok=True)
    with open(os.path.join(a.work, "texts.jsonl"), "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"text": t}) + "\n")
    print(f"{len(texts)} texts ({len(ev)} from the eval dev halves, {len(mail)} mail sentences available)")


if __name__ == "__main__":
    main()
