"""Train amem's static embedder (`model:embed@1`): one vector per wordpiece,
summed over a text's wordpieces and L2-normalised, distilled from the base
sentence encoder (all-MiniLM-L6-v2).

The table starts as what the encoder makes of each wordpiece read alone
(`[CLS] piece [SEP]`, its last layer at the piece), then is trained so that a
text's normalised sum lands where the encoder puts the text (cosine), and so
that the similarities within a batch match the encoder's (what retrieval
uses). Projected onto its principal axes (`DIM`) and stored in fp16.

    python3 models/embed/texts.py ...      # the texts
    python3 models/embed/teacher.py ...    # the encoder's embeddings of them
    python3 models/embed/train.py --work target/embed-train --export crates/models/weights

Fixed seed; the run is deterministic on the CPU.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "checkworthy"))
import common  # noqa: E402

SEED = 20261207
DIM = 128
MAX_TOKENS = 128  # what the teacher read; the Rust side reads up to EMBED_TOKENS
SPECIAL = {0, 100, 101, 102, 103}
CALIBRATION = 0.05
FLOOR_QUANTILE = 0.99


def token_alone(work):
    cache = os.path.join(work, "encoder-vocab.pt")
    if os.path.exists(cache):
        return torch.load(cache)
    from transformers import BertModel

    enc = BertModel.from_pretrained(common.base_dir(), add_pooling_layer=False).eval()
    out = []
    with torch.no_grad():
        for s in range(0, enc.config.vocab_size, 1024):
            ids = torch.arange(s, min(enc.config.vocab_size, s + 1024)).unsqueeze(1)
            seq = torch.cat([torch.full_like(ids, 101), ids, torch.full_like(ids, 102)], dim=1)
            out.append(enc(input_ids=seq).last_hidden_state[:, 1])
    w = torch.cat(out)
    torch.save(w, cache)
    return w


def tokenize(texts):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(common.base_dir())
    out = []
    for s in range(0, len(texts), 2048):
        enc = tok(texts[s : s + 2048], add_special_tokens=False, truncation=True, max_length=MAX_TOKENS)["input_ids"]
        out.extend([[i for i in ids if i not in SPECIAL] for ids in enc])
    return out


def bag(batch_ids):
    flat = torch.tensor([i for ids in batch_ids for i in ids], dtype=torch.long)
    offsets = torch.tensor(np.cumsum([0] + [len(ids) for ids in batch_ids[:-1]]), dtype=torch.long)
    return flat, offsets


def embed(table, ids_list, bs=2048):
    out = []
    with torch.no_grad():
        for s in range(0, len(ids_list), bs):
            f, o = bag(ids_list[s : s + bs])
            out.append(torch.nn.functional.normalize(table(f, o), dim=-1))
    return torch.cat(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--export")
    a = ap.parse_args()
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    torch.set_num_threads(os.cpu_count() or 1)

    texts = [json.loads(l)["text"] for l in open(os.path.join(a.work, "texts.jsonl"), encoding="utf-8")]
    blocks = sorted(glob.glob(os.path.join(a.work, "teacher-*.npy")))
    teacher = torch.from_numpy(np.concatenate([np.load(b) for b in blocks]))
    texts = texts[: len(teacher)]
    ids = tokenize(texts)
    keep = [i for i, x in enumerate(ids) if x]
    n_cal = int(len(keep) * CALIBRATION)
    cal, train = keep[:n_cal], keep[n_cal:]
    print(f"{len(train)} training texts, {len(cal)} calibration", flush=True)

    init = token_alone(a.work).float()
    table = torch.nn.EmbeddingBag(init.shape[0], init.shape[1], mode="sum", sparse=True)
    with torch.no_grad():
        table.weight.copy_(init / init.norm(dim=-1, keepdim=True).clamp_min(1e-6))
        table.weight[list(SPECIAL)] = 0.0
    opt = torch.optim.SparseAdam(table.parameters(), lr=a.lr)

    def report(tag):
        s = embed(table, [ids[i] for i in cal])
        t = teacher[cal]
        cos = (s * t).sum(-1).mean().item()
        # Does each calibration text's nearest neighbour (by the student) match the teacher's?
        st, tt = s @ s.T, t @ t.T
        st.fill_diagonal_(-2)
        tt.fill_diagonal_(-2)
        nn = (st.argmax(1) == tt.argmax(1)).float().mean().item()
        print(f"{tag}: calibration cosine to the encoder {cos:.4f}, same nearest neighbour {nn:.3f}", flush=True)
        return cos, nn

    report("start")
    bs = 256
    for epoch in range(a.epochs):
        order = rng.permutation(len(train))
        total = 0.0
        for s in range(0, len(order), bs):
            idx = [train[j] for j in order[s : s + bs]]
            f, o = bag([ids[i] for i in idx])
            st = torch.nn.functional.normalize(table(f, o), dim=-1)
            tt = teacher[idx]
            loss = (1 - (st * tt).sum(-1)).mean() + ((st @ st.T - tt @ tt.T) ** 2).mean() * 4
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1}: loss {total / len(train):.4f}", flush=True)
        report(f"epoch {epoch + 1}")
    torch.save(table.weight.detach(), os.path.join(a.work, "table-384.pt"))

    w = table.weight.detach().double()
    _, _, v = torch.linalg.svd(w - w.mean(0, keepdim=True), full_matrices=False)
    proj = (w @ v[:DIM].T).float()
    proj[list(SPECIAL)] = 0.0
    np.save(os.path.join(a.work, f"table-{DIM}.npy"), proj.numpy())
    small = torch.nn.EmbeddingBag(proj.shape[0], DIM, mode="sum")
    with torch.no_grad():
        small.weight.copy_(proj.half().float())
    s = embed(small, [ids[i] for i in cal])
    full = embed(table, [ids[i] for i in cal])
    agree = ((s @ s.T).flatten() - (full @ full.T).flatten()).abs().mean().item()
    print(f"projected to {DIM} in fp16: mean |cosine change| between calibration texts {agree:.4f}", flush=True)
    # The floor under which a chunk is not handed on as near in meaning: the cosine that
    # 1 pair in 100 of unrelated calibration texts (distinct texts drawn at random) reaches.
    sims = s @ s.T
    pairs = torch.triu(torch.ones_like(sims, dtype=torch.bool), diagonal=1)
    floor = torch.quantile(sims[pairs][:1_000_000], FLOOR_QUANTILE).item()
    print(f"floor (cosine at the {FLOOR_QUANTILE} quantile of random calibration pairs): {floor:.4f}", flush=True)
    if a.export:
        from safetensors.torch import save_file

        save_file({"embeddings": proj.half().contiguous()}, os.path.join(a.export, "embed.safetensors"))
        with open(os.path.join(a.export, "embed.json"), "w") as f:
            json.dump({"method": "model:embed@1", "dim": DIM, "floor": round(floor, 4), "seed": SEED}, f)
            f.write("\n")
        print("exported", flush=True)


if __name__ == "__main__":
    main()
