"""Train amem's check-worthiness model: is this sentence a factual claim worth
checking?

    python3 models/checkworthy/train.py --classify target/release/examples/classify_lines \
        --teacher target/checkworthy-train/teacher-probs.jsonl --epochs 6 --export .

The model reads a sentence's wordpiece tokens (the shared encoder's tokenizer,
all-MiniLM-L6-v2) through static vectors the encoder gives each token
(projected to WORD_DIM by PCA, then trained), hashed wordpiece bigrams, a
convolution over word trigrams, and the rules' kind (amem's deterministic
classifier); mean and max pooling, one hidden layer, one logit. With
`--teacher`, each sentence's target is `--gold-weight` its label and the rest
the teacher's probability (teacher.py). It is small on purpose: the audit reads some 20 sentences a mail and
the model must keep it above 500 mails/s on two cores (the full encoder costs
~20 ms a sentence there).

Data: the ClaimBuster dev half (`../shared/eval/claimbuster`), split by
sentence id (`common.part_of`): `check` is never trained on and gives the
figures, `calib` picks the threshold and the epoch, `train` is trained on.
Deterministic given the seed (one thread).
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np
import torch
from safetensors.torch import save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SEED = 20261207
METHOD = "model:checkworthy@1"


class Student(torch.nn.Module):
    def __init__(self, word_init, freeze_words=False, dropout=0.2):
        super().__init__()
        self.words = torch.nn.Embedding.from_pretrained(word_init, freeze=freeze_words, padding_idx=0)
        self.bigrams = torch.nn.Embedding(common.BIGRAM_BUCKETS, common.BIGRAM_DIM)
        torch.nn.init.normal_(self.bigrams.weight, std=0.02)
        # word trigrams: a convolution over the word vectors, zero beyond the ends, max-pooled
        self.conv = torch.nn.Conv1d(common.WORD_DIM, common.CONV, kernel_size=3, padding=1)
        width = 2 * common.WORD_DIM + common.BIGRAM_DIM + common.CONV + len(common.KINDS) + 2
        self.hidden = torch.nn.Linear(width, common.HIDDEN)
        self.out = torch.nn.Linear(common.HIDDEN, 1)
        self.dropout = torch.nn.Dropout(dropout)

    def features(self, ids, mask, bigram_ids, bigram_mask, extra):
        w = self.words(ids)  # B T D
        m = mask.unsqueeze(-1)
        n = m.sum(1).clamp(min=1.0)
        mean = (w * m).sum(1) / n
        mx = w.masked_fill(m == 0, -1e4).max(1).values
        mx = torch.where(mask.sum(1, keepdim=True) > 0, mx, torch.zeros_like(mx))
        b = self.bigrams(bigram_ids)
        bm = bigram_mask.unsqueeze(-1)
        bmean = (b * bm).sum(1) / bm.sum(1).clamp(min=1.0)
        c = torch.relu(self.conv((w * m).transpose(1, 2))).transpose(1, 2)  # B T C
        cmax = c.masked_fill(m == 0, 0.0).max(1).values  # ReLU outputs are >= 0: 0 fills the padding
        return torch.cat([mean, mx, bmean, cmax, extra], dim=1)

    def forward(self, ids, mask, bigram_ids, bigram_mask, extra):
        x = self.dropout(self.features(ids, mask, bigram_ids, bigram_mask, extra))
        return self.out(torch.relu(self.hidden(x))).squeeze(-1)


def encode(tokenizer, texts, kinds):
    encs = tokenizer.encode_batch(texts, add_special_tokens=False)
    n = len(texts)
    T = common.MAX_TOKENS
    ids = np.zeros((n, T), dtype=np.int64)
    mask = np.zeros((n, T), dtype=np.float32)
    bids = np.zeros((n, T), dtype=np.int64)
    bmask = np.zeros((n, T), dtype=np.float32)
    extra = np.zeros((n, len(common.KINDS) + 2), dtype=np.float32)
    for i, (e, k) in enumerate(zip(encs, kinds)):
        toks = e.ids[:T]
        ids[i, : len(toks)] = toks
        mask[i, : len(toks)] = 1
        for j in range(len(toks) - 1):
            bids[i, j] = common.bigram_bucket(toks[j], toks[j + 1])
            bmask[i, j] = 1
        extra[i, common.KINDS.index(k)] = 1
        extra[i, len(common.KINDS)] = min(len(e.ids), 128) / 32.0
        extra[i, len(common.KINDS) + 1] = 1.0 if common.has_digit(texts[i]) else 0.0
    return [torch.from_numpy(a) for a in (ids, mask, bids, bmask, extra)]


def word_init(source, work):
    """Word vectors from the shared encoder, projected to WORD_DIM by PCA.
    `input`: its input word embeddings. `encoder`: what the whole encoder
    makes of each vocabulary token read alone (`[CLS] token [SEP]`, the
    token's last-layer state): a static vector per token that carries the
    encoder's reading, cached in `work`."""
    from safetensors.torch import load_file

    if source == "input":
        st = load_file(os.path.join(common.base_dir(), "model.safetensors"))
        key = [k for k in st if k.endswith("word_embeddings.weight")][0]
        w = st[key].float()
    else:
        cache = os.path.join(work, "encoder-vocab.pt")
        if os.path.exists(cache):
            w = torch.load(cache)
        else:
            from transformers import BertModel

            enc = BertModel.from_pretrained(common.base_dir(), add_pooling_layer=False).eval()
            n = enc.config.vocab_size
            out = []
            with torch.no_grad():
                for s in range(0, n, 1024):
                    ids = torch.arange(s, min(n, s + 1024)).unsqueeze(1)
                    seq = torch.cat([torch.full_like(ids, 101), ids, torch.full_like(ids, 102)], dim=1)
                    out.append(enc(input_ids=seq).last_hidden_state[:, 1])
            w = torch.cat(out)
            torch.save(w, cache)
    centred = w - w.mean(0, keepdim=True)
    _, _, v = torch.linalg.svd(centred, full_matrices=False)
    proj = centred @ v[: common.WORD_DIM].T
    proj = proj / proj.std()
    proj[0] = 0.0  # [PAD]
    return proj * 0.5


def f1_at(p, y, t):
    pred = p >= t
    tp = float(((pred == 1) & (y == 1)).sum())
    fp = float(((pred == 1) & (y == 0)).sum())
    fn = float(((pred == 0) & (y == 1)).sum())
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return prec, rec, f1


def best_threshold(p, y):
    best = (0.0, 0.5)
    for t in np.arange(0.05, 0.951, 0.01):
        _, _, f = f1_at(p, y, t)
        if f > best[0]:
            best = (f, float(t))
    return best[1]


AUDITED_KINDS = {"fact", "quantity", "date", "attribution", "comparison", "causal", "prediction"}
DEMOTE_PRECISION = 0.9


def demotion_threshold(p, y, kinds, threshold):
    """Below what probability the model takes a sentence the rules audit out of the audit:
    the highest (at most `threshold`) at which the sentences so taken out of the calibration
    part are not check-worthy at least DEMOTE_PRECISION of the time. Taking a claim out hides
    it from the report, so the model needs more confidence to overrule the rules than to rank."""
    audited = np.array([k in AUDITED_KINDS for k in kinds])
    best = 0.0
    for t in np.arange(0.01, threshold + 1e-9, 0.01):
        out = audited & (p < t)
        if out.sum() and (y[out] == 0).mean() >= DEMOTE_PRECISION:
            best = float(t)
    return best


def predict(model, data, batch=512):
    model.eval()
    out = []
    with torch.no_grad():
        for s in range(0, data[0].shape[0], batch):
            out.append(torch.sigmoid(model(*[d[s : s + batch] for d in data])))
    return torch.cat(out).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claimbuster", default="../shared/eval/claimbuster/labels.jsonl")
    ap.add_argument("--classify", required=True, help="the classify_lines example binary (the rules' kinds)")
    ap.add_argument("--work", default="target/checkworthy-train")
    ap.add_argument("--export", help="repository root to write the weights into")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--words", choices=["input", "encoder"], default="encoder")
    ap.add_argument("--freeze-words", action="store_true")
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wd", type=float, default=1e-2)
    ap.add_argument("--teacher", help="the teacher's probabilities (teacher.py's teacher-probs.jsonl)")
    ap.add_argument("--mail", help="the mail sentences the teacher labelled (data.py's mail.jsonl)")
    ap.add_argument("--gold-weight", type=float, default=0.5, help="a dev sentence's target: this much its label, the rest the teacher")
    ap.add_argument("--mail-weight", type=float, default=0.3, help="a mail sentence's weight in the loss (a dev sentence's is 1)")
    args = ap.parse_args()

    common.seed_everything(SEED, 1)
    os.makedirs(args.work, exist_ok=True)

    tokenizer = common.tokenizer()
    rows = common.load_claimbuster(args.claimbuster)
    kinds = common.rule_kinds([r["text"] for r in rows], args.classify)
    parts = {"train": [], "calib": [], "check": []}
    for r, k in zip(rows, kinds):
        r["kind"] = k
        parts[common.part_of(r["source"])].append(r)
    print({k: len(v) for k, v in parts.items()}, flush=True)

    data = {}
    for name, rs in parts.items():
        data[name] = (encode(tokenizer, [r["text"] for r in rs], [r["kind"] for r in rs]), np.array([r["label"] for r in rs]))

    model = Student(word_init(args.words, args.work), args.freeze_words, args.dropout)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=args.wd)
    x, y = data["train"]
    yt = torch.from_numpy(y).float()
    wt = torch.ones_like(yt)
    if args.teacher:
        teacher = {}
        with open(args.teacher, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                teacher[r["text"]] = r["p"]
        tp = torch.tensor([teacher[r["text"]] for r in parts["train"]])
        yt = args.gold_weight * yt + (1 - args.gold_weight) * tp
        if args.mail:
            with open(args.mail, encoding="utf-8") as f:
                mail = [json.loads(line) for line in f if line.strip()]
            mx = encode(tokenizer, [m["text"] for m in mail], [m["kind"] for m in mail])
            x = [torch.cat([a, b]) for a, b in zip(x, mx)]
            yt = torch.cat([yt, torch.tensor([teacher[m["text"]] for m in mail])])
            wt = torch.cat([wt, torch.full((len(mail),), args.mail_weight)])
    n = yt.shape[0]
    best = (-1.0, None, None, 0)
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(n)
        total = 0.0
        for s in range(0, n, 32):
            idx = perm[s : s + 32]
            logits = model(*[d[idx] for d in x])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, yt[idx], weight=wt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        pc = predict(model, data["calib"][0])
        t = best_threshold(pc, data["calib"][1])
        _, _, fc = f1_at(pc, data["calib"][1], t)
        pk = predict(model, data["check"][0])
        print(f"epoch {epoch + 1}: loss {total / n:.4f} calib F1 {fc:.3f} at {t:.2f}; check P/R/F1 {f1_at(pk, data['check'][1], t)}", flush=True)
        if fc > best[0]:
            best = (fc, {k: v.clone() for k, v in model.state_dict().items()}, t, epoch + 1)
    print(f"best epoch {best[3]} calib F1 {best[0]:.3f}", flush=True)
    model.load_state_dict(best[1])
    # What ships: the two tables in fp16. The threshold and the figures are the rounded model's.
    with torch.no_grad():
        for emb in (model.words, model.bigrams):
            emb.weight.copy_(emb.weight.half().float())
    pc = predict(model, data["calib"][0])
    threshold = best_threshold(pc, data["calib"][1])
    demote_below = demotion_threshold(pc, data["calib"][1], [r["kind"] for r in parts["calib"]], threshold)
    pk = predict(model, data["check"][0])
    p, r, f = f1_at(pk, data["check"][1], threshold)
    rng = np.random.default_rng(SEED)
    shuffled = rng.permutation(data["check"][1])
    sp, sr, sf = f1_at(pk, shuffled, threshold)
    figures = {
        "method": METHOD,
        "threshold": round(threshold, 2),
        "demote_below": round(demote_below, 2),
        "epoch": best[3],
        "sentences": {k: len(v) for k, v in parts.items()},
        "mail_sentences": int(yt.shape[0] - y.shape[0]),
        "check": {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)},
        "check_labels_permuted": {"precision": round(sp, 4), "recall": round(sr, 4), "f1": round(sf, 4)},
        "calib_f1": round(f1_at(pc, data["calib"][1], threshold)[2], 4),
        "args": {k: v for k, v in vars(args).items() if k in ("epochs", "words", "freeze_words", "dropout", "lr", "wd", "gold_weight", "mail_weight")},
    }
    print(json.dumps(figures, indent=1), flush=True)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "check-python.json"), "w") as fh:
        json.dump(figures, fh, indent=1)
        fh.write("\n")
    if args.export:
        export(model, figures, os.path.join(args.export, "crates", "models", "weights"))
        texts = common.AGREEMENT_SENTENCES
        kinds = common.rule_kinds(texts, args.classify)
        probs = predict(model, encode(tokenizer, texts, kinds))
        with open(os.path.join(here, "agreement.jsonl"), "w", encoding="utf-8") as fh:
            for t, k, q in zip(texts, kinds, probs):
                fh.write(json.dumps({"text": t, "kind": k, "p": round(float(q), 6)}) + "\n")


def export(model, figures, weights_dir):
    """The weights (the tables fp16, the layers f32), the threshold, and their checksums."""
    tensors = {
        "words": model.words.weight.detach().half().contiguous(),
        "bigrams": model.bigrams.weight.detach().half().contiguous(),
        "conv.weight": model.conv.weight.detach().float().contiguous(),
        "conv.bias": model.conv.bias.detach().float().contiguous(),
        "hidden.weight": model.hidden.weight.detach().float().contiguous(),
        "hidden.bias": model.hidden.bias.detach().float().contiguous(),
        "out.weight": model.out.weight.detach().float().contiguous(),
        "out.bias": model.out.bias.detach().float().contiguous(),
    }
    save_file(tensors, os.path.join(weights_dir, "checkworthy.safetensors"))
    with open(os.path.join(weights_dir, "checkworthy.json"), "w") as fh:
        json.dump({"method": figures["method"], "threshold": figures["threshold"], "demote_below": figures["demote_below"]}, fh, indent=1)
        fh.write("\n")
    sums_path = os.path.join(weights_dir, "SHA256SUMS")
    lines = []
    if os.path.exists(sums_path):
        with open(sums_path) as fh:
            lines = [line for line in fh.read().splitlines() if line and not line.split()[-1].startswith("checkworthy.")]
    for name in ("checkworthy.safetensors", "checkworthy.json"):
        with open(os.path.join(weights_dir, name), "rb") as fh:
            lines.append(f"{hashlib.sha256(fh.read()).hexdigest()}  {name}")
    with open(sums_path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {weights_dir}/checkworthy.safetensors, checkworthy.json, SHA256SUMS", flush=True)

if __name__ == "__main__":
    main()
