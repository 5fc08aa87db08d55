"""The encoder beside the static embedder, on the recall presence measure.

Issue 42 asks which embedder recall should run: the base sentence encoder
(all-MiniLM-L6-v2, about 20 ms a claim on one core) or the static table
distilled from it (`model:embed@1`, tens of microseconds). This script scores the
encoder the way `amem eval recall` scores the shipped methods, so the two can be
set side by side: each dev-half set is written as a wiki (as `amem_eval::recall`
writes it), indexed by amem, its chunks read back from the index; the encoder
embeds every chunk (title and text, as amem embeds them) and every claim; dense
is the encoder's cosine ranking, hybrid its reciprocal-rank fusion (k = 10) with
amem's own bm25 list (`amem recall --method bm25`). Presence is verbatim, with
the shuffled control (claim i against claim i+1's context), at k = 1, 3, 5.

    cargo build --release
    python3 models/embed/encoder_presence.py --amem target/release/amem --eval ../shared/eval \
        --out models/embed/encoder.json
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "checkworthy"))
import common  # noqa: E402

KS = (1, 3, 5)
RRF_K = 10.0
CANDIDATES = 30
SETS = ("climate_fever", "covid_fact", "fever_symmetric", "healthver", "wice")


def load(d):
    """Documents and (claim, gold sentences) as amem_eval::recall loads them."""
    if os.path.exists(os.path.join(d, "pairs.jsonl")):
        pairs = [json.loads(l) for l in open(os.path.join(d, "pairs.jsonl"), encoding="utf-8") if l.strip()]
        docs, seen, claims, at = [], set(), [], {}
        for p in pairs:
            if p["evidence"] not in seen:
                seen.add(p["evidence"])
                docs.append((None, p["evidence"]))
            if p["claim"] not in at:
                at[p["claim"]] = len(claims)
                claims.append((p["claim"], []))
            if p["label"] != "supported":
                continue
            gold = p.get("rationale_sentences") or p.get("evidence_sentences") or [p["evidence"]]
            claims[at[p["claim"]]][1].extend(g for g in gold if g.strip())
        return docs, claims
    corpus = [json.loads(l) for l in open(os.path.join(d, "corpus.jsonl"), encoding="utf-8") if l.strip()]
    sentences = {(x["doc_id"], s["idx"]): s["text"] for x in corpus for s in x["sentences"]}
    claims = []
    for c in (json.loads(l) for l in open(os.path.join(d, "claims.jsonl"), encoding="utf-8") if l.strip()):
        gold = [sentences.get((e["doc_id"], i)) for e in c["evidence"] if e["label"] == "SUPPORTED" for i in e["sentences"]]
        claims.append((c["claim"], gold))
    return [(x["title"], x["text"]) for x in corpus], claims


def norm(s):
    return " ".join(s.split())


def presence(claims, ranked, text_of):
    out = {}
    n = len(claims)
    for k in KS:
        ctx = [norm("\n".join(text_of[u] for u in r[:k])) for r in ranked]
        total = signal = shuffled = 0
        for i, (_, gold) in enumerate(claims):
            for g in gold:
                total += 1
                if g is None:
                    continue
                g = norm(g)
                signal += g in ctx[i]
                shuffled += g in ctx[(i + 1) % n]
        out[k] = {"n": total, "signal": signal, "shuffled": shuffled}
    return out


def rrf(lists):
    score = {}
    for lst in lists:
        for r, u in enumerate(lst):
            score[u] = score.get(u, 0.0) + 1.0 / (RRF_K + r + 1)
    return [u for u, _ in sorted(score.items(), key=lambda x: -x[1])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amem", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.manual_seed(20261207)
    torch.set_num_threads(1)
    from transformers import AutoTokenizer, BertModel

    tok = AutoTokenizer.from_pretrained(common.base_dir())
    enc = BertModel.from_pretrained(common.base_dir(), add_pooling_layer=False).eval()

    def encode(texts):
        out = []
        with torch.no_grad():
            for s in range(0, len(texts), 32):
                b = tok(texts[s : s + 32], padding=True, truncation=True, max_length=256, return_tensors="pt")
                h = enc(**b).last_hidden_state
                m = b["attention_mask"].unsqueeze(-1).float()
                out.append(torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=-1))
        return torch.cat(out).numpy()

    results = {}
    for name in SETS:
        docs, claims = load(os.path.join(a.eval, name))
        with tempfile.TemporaryDirectory() as home:
            wiki = os.path.join(home, "wiki")
            os.makedirs(wiki)
            for i, (title, text) in enumerate(docs):
                body = f"---\ntitle: {json.dumps(' '.join(title.split()))}\n---\n{text}\n" if title is not None else f"\n{text}\n"
                with open(os.path.join(wiki, f"doc-{i:05}.md"), "w", encoding="utf-8") as f:
                    f.write(body)
            subprocess.run([a.amem, "--home", home, "--no-models", "-q", "index"], check=True)
            db = sqlite3.connect(os.path.join(home, "ledger.sqlite"))
            rows = db.execute(
                "SELECT c.item_id, c.chunk_no, c.text, coalesce(i.title, '') FROM wiki_chunks c JOIN wiki_items i ON i.item_id = c.item_id ORDER BY c.id"
            ).fetchall()
            db.close()
            uris = [f"amem://{r[0]}#chunk={r[1]}" for r in rows]
            text_of = dict(zip(uris, (r[2] for r in rows)))
            bm25 = []
            for claim, _ in claims:
                p = subprocess.run(
                    [a.amem, "--home", home, "--no-models", "-q", "recall", "--format", "json", "-k", str(CANDIDATES), claim],
                    capture_output=True, text=True, check=True,
                )
                hits = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
                bm25.append([h["data"]["uri"] for h in hits if h.get("type") == "hit"])
        chunk_vectors = encode([f"{t.strip()}. {x}" if t.strip() else x for _, _, x, t in rows])
        started = time.process_time()
        claim_vectors = encode([c for c, _ in claims])
        per_claim_ms = (time.process_time() - started) * 1e3 / max(1, len(claims))
        sims = claim_vectors @ chunk_vectors.T
        dense = [[uris[j] for j in np.argsort(-sims[i], kind="stable")[:CANDIDATES]] for i in range(len(claims))]
        hybrid = [rrf([b, d]) for b, d in zip(bm25, dense)]
        results[name] = {
            "chunks": len(rows),
            "claims": len(claims),
            "encoder_ms_per_claim_one_thread": round(per_claim_ms, 2),
            "bm25": presence(claims, bm25, text_of),
            "encoder_dense": presence(claims, dense, text_of),
            "encoder_hybrid": presence(claims, hybrid, text_of),
        }
        r = results[name]
        print(name, {m: round(100 * r[m][5]["signal"] / r[m][5]["n"], 1) for m in ("bm25", "encoder_dense", "encoder_hybrid")}, flush=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
