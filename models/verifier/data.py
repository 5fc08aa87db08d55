"""Build the verifier's training, calibration and evaluation pairs from pinned sources.

    python3 models/verifier/data.py --out target/verifier-data

Reads the dev halves in ../shared/eval in place, and two public repositories brought
by the search tool's `fetch` (paths given with --esnli and --fm2; their commits are
checked against SOURCES below). Writes train.jsonl, calib.jsonl and heldout.jsonl:
one pair a line, {"corpus","doc","evidence","claim","label","kind"}, where evidence
is already the window the model reads (generate.evidence_window).

The dev halves are split once more by document (`part_of`): one document in five
goes to the model's own held-out part, never trained on, and the Rust eval
(`amem eval verify --method model`) uses the same rule, so the model's dev figures
come from documents it did not see. Calibration (thresholds) uses a tenth of the
training documents, also never trained on.
"""

import argparse
import collections
import hashlib
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402

SEED = 20261206

# Pinned sources: repository, commit, files, licence.
SOURCES = {
    "esnli": {
        "repo": "OanaMariaCamburu/e-SNLI",
        "commit": "7b585a3f077fdea899780eb0473940522ae44a2e",
        "files": ["dataset/eSNLI/{s1,s2,labels}.{dev,test}"],
        "licence": "e-SNLI code MIT; premises and hypotheses are SNLI's, CC BY-SA 4.0",
    },
    "fm2": {
        "repo": "google-research/fool-me-twice",
        "commit": "d9db753e5acf91c0d9bf543db327ab655661eb94",
        "files": ["dataset/dev.jsonl", "dataset/test.jsonl"],
        "licence": "Apache-2.0 (repository LICENSE); evidence is Wikipedia text, CC BY-SA",
    },
}

LABELS = {
    "supported": g.SUPPORTED,
    "contradicted": g.CONTRADICTED,
    "unverified": g.NOT_ENOUGH_INFO,
    "SUPPORTED": g.SUPPORTED,
    "CONTRADICTED": g.CONTRADICTED,
    "NO_EVIDENCE": g.NOT_ENOUGH_INFO,
}


def part_of(corpus, doc):
    """Which part a dev-half document belongs to: 'heldout' (one in five, never trained on),
    'calib' (one in ten of the rest, for thresholds) or 'train'. The same rule is in
    crates/eval (`model_part`)."""
    h = int(hashlib.sha256(f"amem-verifier/{corpus}/{doc}".encode()).hexdigest()[:8], 16)
    if h % 5 == 0:
        return "heldout"
    return "calib" if h % 50 < 5 else "train"


def git_show(repo_dir, commit, path):
    return subprocess.run(
        ["git", "-C", repo_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def pair(corpus, doc, evidence, claim, label, kind, title=None):
    window = g.evidence_window(evidence, claim)
    if title:
        window = f"{title}. {window}"
    return {"corpus": corpus, "doc": str(doc), "evidence": window, "claim": claim.strip(), "label": label, "kind": kind}


def load_pair_sets(shared):
    """The four claim-evidence pair sets' dev halves, as (corpus, doc, evidence, claim, label)."""
    out = []
    for corpus in ["fever_symmetric", "covid_fact", "healthver", "wice"]:
        with open(os.path.join(shared, "eval", corpus, "pairs.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                out.append((corpus, r["doc"], r["evidence"], r["claim"], LABELS[r["label"]]))
    return out


def load_climate_fever(shared):
    """Climate-FEVER's dev half: each claim with each of its evidence sentences, labelled per
    sentence (the sentence-level votes), the page title in front."""
    base = os.path.join(shared, "eval", "climate_fever")
    sentences = {}
    with open(os.path.join(base, "corpus.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            for s in d["sentences"]:
                sentences[(d["doc_id"], s["idx"])] = (d["title"], s["text"])
    out = []
    with open(os.path.join(base, "claims.jsonl")) as f:
        for line in f:
            c = json.loads(line)
            for ev in c["evidence"]:
                for idx in ev["sentences"]:
                    hit = sentences.get((ev["doc_id"], idx))
                    if hit is None or ev["label"] not in LABELS:
                        continue
                    title, text = hit
                    out.append(("climate_fever", c["id"], f"{title}. {text}", c["claim"], LABELS[ev["label"]]))
    return out


def load_esnli(repo_dir):
    commit = SOURCES["esnli"]["commit"]
    names = {"entailment": g.SUPPORTED, "contradiction": g.CONTRADICTED, "neutral": g.NOT_ENOUGH_INFO}
    out = []
    for split in ["dev", "test"]:
        s1 = git_show(repo_dir, commit, f"dataset/eSNLI/s1.{split}").splitlines()
        s2 = git_show(repo_dir, commit, f"dataset/eSNLI/s2.{split}").splitlines()
        labels = git_show(repo_dir, commit, f"dataset/eSNLI/labels.{split}").splitlines()
        for i, (p, h, lab) in enumerate(zip(s1, s2, labels)):
            if lab.strip() in names:
                out.append((f"esnli-{split}-{i}", p.strip(), h.strip(), names[lab.strip()]))
    return out


def load_fm2(repo_dir):
    commit = SOURCES["fm2"]["commit"]
    out = []
    for split in ["dev", "test"]:
        for line in git_show(repo_dir, commit, f"dataset/{split}.jsonl").splitlines():
            out.append(json.loads(line))
    return out


def augment(rows, pool, rng, corpus_of=lambda r: r[0]):
    """Generated pairs for labelled rows (corpus, doc, evidence, claim, label): value and polarity
    flips of supported pairs, and for each distinct claim one unrelated passage and one related
    but silent passage from another document, both not enough info."""
    out = []
    flips = [g.evidence_number_flip, g.claim_number_flip, g.evidence_polarity_flip, g.claim_polarity_flip]
    by_doc = collections.defaultdict(list)
    for corpus, doc, evidence, claim, label in rows:
        by_doc[(corpus, doc)].append(evidence)
    seen_claims = set()
    for corpus, doc, evidence, claim, label in rows:
        for flip in flips:
            made = flip(evidence, claim, label, rng)
            if made is not None:
                out.append(pair(corpus, doc, made[0], made[1], made[2], flip.__name__))
        if claim in seen_claims:
            continue
        seen_claims.add(claim)
        other = g.mismatched(claim, pool, rng)
        if other is not None:
            out.append(pair(corpus, doc, other, claim, g.NOT_ENOUGH_INFO, "mismatched"))
        own = set(by_doc[(corpus, doc)])
        cands = rng.sample(pool, min(len(pool), 400))
        related = g.related_but_silent(claim, cands, exclude=own)
        if related is not None:
            out.append(pair(corpus, doc, related, claim, g.NOT_ENOUGH_INFO, "related"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--esnli", required=True, help="git directory of OanaMariaCamburu/e-SNLI")
    ap.add_argument("--fm2", required=True, help="git directory of google-research/fool-me-twice")
    ap.add_argument("--out", default="target/verifier-data")
    ap.add_argument("--esnli-pairs", type=int, default=9000)
    args = ap.parse_args()
    rng = random.Random(SEED)
    os.makedirs(args.out, exist_ok=True)

    parts = collections.defaultdict(list)
    dev = load_pair_sets(args.shared) + load_climate_fever(args.shared)
    split_rows = collections.defaultdict(list)
    for row in dev:
        split_rows[part_of(row[0], row[1])].append(row)
    for name, rows in split_rows.items():
        for corpus, doc, evidence, claim, label in rows:
            parts[name].append(pair(corpus, doc, evidence, claim, label, "gold"))
    # Generated pairs draw their passages only from documents of their own part.
    for name, rows in split_rows.items():
        pool = [r[2] for r in rows]
        parts[name].extend(augment(rows, pool, random.Random(f"{SEED}/{name}")))

    # Fool Me Twice: gold evidence (one or two sentences of the page), one retrieved sentence
    # that is not gold (same page, on topic, silent), one from another page, and flips.
    fm2 = load_fm2(args.fm2)
    fm2_pool = [e["text"] for r in fm2 for e in r["retrieved_evidence"]]
    for r in fm2:
        label = g.SUPPORTED if r["label"] == "SUPPORTS" else g.CONTRADICTED
        title = r["wikipedia_page"]
        gold = " ".join(e["text"] for e in r["gold_evidence"])
        claim = r["text"]
        doc = r["wikipedia_page"]
        part = "calib" if part_of("fm2", doc) == "heldout" else "train"
        parts[part].append(pair("fm2", doc, gold, claim, label, "gold", title))
        gold_texts = {e["text"] for e in r["gold_evidence"]}
        silent = g.related_but_silent(claim, [e["text"] for e in r["retrieved_evidence"]], exclude=gold_texts)
        if silent is not None:
            parts[part].append(pair("fm2", doc, silent, claim, g.NOT_ENOUGH_INFO, "related", title))
        other = g.mismatched(claim, fm2_pool, rng)
        if other is not None:
            parts[part].append(pair("fm2", doc, other, claim, g.NOT_ENOUGH_INFO, "mismatched"))
        for flip in [g.evidence_number_flip, g.claim_number_flip, g.evidence_polarity_flip]:
            made = flip(gold, claim, label, rng)
            if made is not None:
                parts[part].append(pair("fm2", doc, made[0], made[1], made[2], flip.__name__, title))

    esnli = load_esnli(args.esnli)
    rng.shuffle(esnli)
    per_label = collections.Counter()
    for doc, premise, hypothesis, label in esnli:
        if per_label[label] >= args.esnli_pairs // 3:
            continue
        per_label[label] += 1
        parts["train"].append(pair("esnli", doc, premise, hypothesis, label, "gold"))

    for name in ["train", "calib", "heldout"]:
        rows = parts[name]
        rng.shuffle(rows)
        with open(os.path.join(args.out, f"{name}.jsonl"), "w") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        counts = collections.Counter((r["corpus"], r["label"]) for r in rows)
        kinds = collections.Counter(r["kind"] for r in rows)
        print(f"{name}: {len(rows)} pairs; kinds {dict(kinds)}")
        for key in sorted(counts):
            print(f"  {key[0]:16} {key[1]:16} {counts[key]}")


if __name__ == "__main__":
    main()
