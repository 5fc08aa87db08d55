"""Teacher embeddings for the static embedder's distillation.

Reads the training texts (`texts.py` writes them) and embeds each with the
base sentence encoder (all-MiniLM-L6-v2: mean of the last layer over the
tokens, L2-normalised, at most 128 tokens), in order, checkpointing every
block so a stopped run resumes where it was.

    python3 models/embed/teacher.py --work target/embed-train
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "checkworthy"))
import common  # noqa: E402  (the shared base model's location)

BLOCK = 4096
MAX_TOKENS = 128


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    torch.manual_seed(20261207)
    torch.set_num_threads(os.cpu_count() or 1)
    from transformers import AutoTokenizer, BertModel

    tok = AutoTokenizer.from_pretrained(common.base_dir())
    enc = BertModel.from_pretrained(common.base_dir(), add_pooling_layer=False).eval()
    texts = [json.loads(l)["text"] for l in open(os.path.join(a.work, "texts.jsonl"))]
    done = 0
    while os.path.exists(os.path.join(a.work, f"teacher-{done // BLOCK:04d}.npy")):
        done += BLOCK
    for start in range(done, len(texts), BLOCK):
        block = texts[start : start + BLOCK]
        # Similar lengths together: less padding.
        order = sorted(range(len(block)), key=lambda i: len(block[i]))
        out = np.zeros((len(block), 384), np.float32)
        with torch.no_grad():
            for s in range(0, len(order), 64):
                idx = order[s : s + 64]
                b = tok([block[i] for i in idx], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
                h = enc(**b).last_hidden_state
                m = b["attention_mask"].unsqueeze(-1).float()
                e = torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=-1)
                out[idx] = e.numpy()
        np.save(os.path.join(a.work, f"teacher-{start // BLOCK:04d}.npy"), out)
        print(f"{min(start + BLOCK, len(texts))}/{len(texts)}", flush=True)


if __name__ == "__main__":
    main()
