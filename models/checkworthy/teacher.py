"""The teacher: the shared encoder (all-MiniLM-L6-v2, the verifier's base)
fine-tuned to read check-worthiness, then asked about every sentence the
student learns from (`train.py --teacher`). It never ships: at ~20 ms a
sentence on one core it cannot keep the audit's pace (some 20 sentences a
mail), so what it knows is distilled into the student.

    python3 models/checkworthy/teacher.py --classify target/release/examples/classify_lines \
        --mail target/checkworthy-data/mail.jsonl --work target/checkworthy-train

Writes `<work>/teacher.json` (its figures on the check part) and
`<work>/teacher-probs.jsonl` (P(check-worthy) of every dev-half and mail
sentence). Seeded; checkpoints each epoch and resumes.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
from transformers import AutoTokenizer, BertModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SEED = 20261207
MAX_TOKENS = 64


class Teacher(torch.nn.Module):
    def __init__(self, path):
        super().__init__()
        self.encoder = BertModel.from_pretrained(path, add_pooling_layer=False)
        self.dropout = torch.nn.Dropout(0.1)
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask):
        states = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled)).squeeze(-1)


def probs(model, tok, texts, batch=64):
    model.eval()
    out = []
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    with torch.no_grad():
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            enc = tok([texts[i] for i in idx], truncation=True, max_length=MAX_TOKENS, padding=True, return_tensors="pt")
            p = torch.sigmoid(model(enc["input_ids"], enc["attention_mask"])).tolist()
            out.extend(zip(idx, p))
    res = [0.0] * len(texts)
    for i, p in out:
        res[i] = p
    return np.array(res)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claimbuster", default="../shared/eval/claimbuster/labels.jsonl")
    ap.add_argument("--mail", help="JSON lines of mail sentences ({text}) to label for the student")
    ap.add_argument("--work", default="target/checkworthy-train")
    ap.add_argument("--epochs", type=int, default=3)
    args = ap.parse_args()

    common.seed_everything(SEED, 2)
    os.makedirs(args.work, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(common.base_dir())
    rows = common.load_claimbuster(args.claimbuster)
    parts = {"train": [], "calib": [], "check": []}
    for r in rows:
        parts[common.part_of(r["source"])].append(r)

    model = Teacher(common.base_dir())
    opt = torch.optim.AdamW(model.parameters(), lr=4e-5, weight_decay=0.01)
    train = parts["train"]
    steps_per_epoch = (len(train) + 15) // 16
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.06 * total)) * max(0.0, (total - s) / total))
    ckpt = os.path.join(args.work, "teacher-checkpoint.pt")
    start = 0
    best = {"calib_f1": -1.0}
    if os.path.exists(ckpt):
        state = torch.load(ckpt, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start = state["epoch"]
        best = state["best"]
        torch.set_rng_state(state["rng"])
        print(f"resumed after epoch {start}", flush=True)
    from train import best_threshold, f1_at  # the student's measure, one definition

    for epoch in range(start, args.epochs):
        model.train()
        perm = torch.randperm(len(train)).tolist()
        t0 = time.time()
        for s in range(0, len(perm), 16):
            batch = [train[i] for i in perm[s : s + 16]]
            enc = tok([b["text"] for b in batch], truncation=True, max_length=MAX_TOKENS, padding=True, return_tensors="pt")
            y = torch.tensor([b["label"] for b in batch])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(enc["input_ids"], enc["attention_mask"]), y)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            if (s // 16) % 50 == 0:
                print(f"epoch {epoch + 1} step {s // 16}/{steps_per_epoch} loss {float(loss):.4f} {time.time() - t0:.0f}s", flush=True)
        pc = probs(model, tok, [r["text"] for r in parts["calib"]])
        yc = np.array([r["label"] for r in parts["calib"]])
        t = best_threshold(pc, yc)
        fc = f1_at(pc, yc, t)[2]
        pk = probs(model, tok, [r["text"] for r in parts["check"]])
        yk = np.array([r["label"] for r in parts["check"]])
        pr, rc, f = f1_at(pk, yk, t)
        print(f"epoch {epoch + 1}: calib F1 {fc:.3f} at {t:.2f}; check P {pr:.3f} R {rc:.3f} F1 {f:.3f}", flush=True)
        if fc > best["calib_f1"]:
            best = {"calib_f1": fc, "threshold": t, "epoch": epoch + 1, "check": {"precision": pr, "recall": rc, "f1": f}}
            torch.save(model.state_dict(), os.path.join(args.work, "teacher-best.pt"))
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch + 1, "best": best, "rng": torch.get_rng_state()}, ckpt)

    model.load_state_dict(torch.load(os.path.join(args.work, "teacher-best.pt")))
    with open(os.path.join(args.work, "teacher.json"), "w") as f:
        json.dump(best, f, indent=1)
    texts = [r["text"] for r in rows]
    if args.mail:
        with open(args.mail, encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f if line.strip()]
    t0 = time.time()
    p = probs(model, tok, texts)
    print(f"teacher read {len(texts)} sentences in {time.time() - t0:.0f}s", flush=True)
    with open(os.path.join(args.work, "teacher-probs.jsonl"), "w", encoding="utf-8") as f:
        for text, q in zip(texts, p):
            f.write(json.dumps({"text": text, "p": round(float(q), 5)}) + "\n")


if __name__ == "__main__":
    main()
