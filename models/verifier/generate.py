"""Pair generators for the verifier's training data.

Each generator takes one labelled (evidence, claim) pair and returns a new pair
whose label follows from the edit, or None when the edit does not apply. They
teach the model what the public sets are too small to teach: that the label
depends on the evidence (the same claim is supported by one passage and
contradicted by an edited copy of it), that a changed number, year or polarity
is a contradiction, and that a passage about something else is not evidence.

Every function is deterministic given its `rng` (a `random.Random`), so the
training data is a pure function of the sources and the seed.
"""

import os
import re

SUPPORTED, CONTRADICTED, NOT_ENOUGH_INFO = "supported", "contradicted", "not_enough_info"

# Numbers as written in running text: 1,200 / 3.5 / 1999 / 42. A number glued to
# letters (COVID-19, B2B, 3D) is a name, not a value, and is left alone.
NUMBER = re.compile(r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|[.,]\d)")

# The function words the overlap ignores: one list with amem's own window (crates/models/src/window.rs).
STOP = frozenset(
    line.split("#")[0].strip()
    for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "text", "lexicons", "window_stopwords.txt"))
    if line.split("#")[0].strip()
)

WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")


def content_words(text):
    """Lower-cased words of three letters or more that are not function words."""
    return {w.lower() for w in WORD.findall(text) if len(w) >= 3 and w.lower() not in STOP}


def overlap(a, b):
    """How many content words two texts share."""
    return len(content_words(a) & content_words(b))


def _other_number(token, rng):
    """A different value for a number, in the same notation: a year stays a plausible year."""
    plain = token.replace(",", "")
    if "." in plain:
        whole, frac = plain.split(".")
        value = float(plain)
        for _ in range(8):
            new = round(value * rng.choice([0.5, 0.7, 1.3, 1.5, 2.0, 3.0]) + rng.choice([0, 1]), len(frac))
            text = f"{new:.{len(frac)}f}"
            if text != plain:
                return text
        return None
    value = int(plain)
    if 1500 <= value <= 2100 and len(plain) == 4:
        new = value + rng.choice([-12, -7, -3, -2, -1, 1, 2, 3, 5, 9])
    elif value <= 10:
        new = rng.choice([n for n in range(0, 13) if n != value])
    else:
        new = int(value * rng.choice([0.5, 0.6, 0.75, 1.25, 1.5, 2, 3]))
        if new == value:
            new = value + 1
    text = str(new)
    if "," in token and new >= 1000:
        text = f"{new:,}"
    return text


def numbers(text):
    """The numbers written in `text`, as spans."""
    return [(m.start(), m.end(), m.group(0)) for m in NUMBER.finditer(text)]


def swap_number(text, rng, only=None):
    """`text` with one of its numbers changed (one from `only` when given), or None."""
    spans = numbers(text)
    if only is not None:
        spans = [s for s in spans if s[2].replace(",", "") in only]
    if not spans:
        return None
    start, end, token = rng.choice(spans)
    new = _other_number(token, rng)
    if new is None or new.replace(",", "") == token.replace(",", ""):
        return None
    return text[:start] + new + text[end:]


AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do|should|must|may)\b(?! not\b)(?!n't)",
    re.IGNORECASE,
)
NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do|should|must|may)( not\b|n't\b)", re.IGNORECASE)
CANNOT = re.compile(r"\bcannot\b", re.IGNORECASE)


def flip_polarity(text):
    """`text` with its first auxiliary verb negated, or its first negation removed; None when it
    has neither. A sentence with more than one negation is left alone (double negatives)."""
    if len(NEGATED.findall(text)) + len(CANNOT.findall(text)) > 1:
        return None
    m = NEGATED.search(text)
    if m:
        return text[: m.start()] + m.group(1) + text[m.end() :]
    m = CANNOT.search(text)
    if m:
        return text[: m.start()] + ("Can" if m.group(0)[0] == "C" else "can") + text[m.end() :]
    m = AUX.search(text)
    if m:
        return text[: m.end()] + " not" + text[m.end() :]
    return None


def numbers_in_both(evidence, claim):
    """Values written in both texts (commas dropped): where an edit of the evidence contradicts."""
    a = {t.replace(",", "") for _, _, t in numbers(evidence)}
    b = {t.replace(",", "") for _, _, t in numbers(claim)}
    return a & b


def evidence_number_flip(evidence, claim, label, rng):
    """A supported pair whose evidence states a value the claim also states becomes contradicted
    when the evidence's value is changed: the claim is kept word for word."""
    if label != SUPPORTED:
        return None
    shared = numbers_in_both(evidence, claim)
    if not shared:
        return None
    edited = swap_number(evidence, rng, only=shared)
    return None if edited is None else (edited, claim, CONTRADICTED)


def claim_number_flip(evidence, claim, label, rng):
    """A supported claim whose value is also in the evidence, with that value changed: contradicted."""
    if label != SUPPORTED:
        return None
    shared = numbers_in_both(evidence, claim)
    if not shared:
        return None
    edited = swap_number(claim, rng, only=shared)
    return None if edited is None else (evidence, edited, CONTRADICTED)


def claim_polarity_flip(evidence, claim, label, rng):
    """A supported claim negated (or a negated one affirmed): contradicted. Only where the
    evidence is a single short passage, so the negation is about what it says."""
    if label != SUPPORTED or len(evidence) > 400:
        return None
    edited = flip_polarity(claim)
    return None if edited is None else (evidence, edited, CONTRADICTED)


def evidence_polarity_flip(evidence, claim, label, rng):
    """The evidence of a supported pair negated: the same claim is now contradicted."""
    if label != SUPPORTED or len(evidence) > 300:
        return None
    edited = flip_polarity(evidence)
    return None if edited is None else (edited, claim, CONTRADICTED)


def mismatched(claim, pool, rng, tries=20):
    """A passage from `pool` that shares no content word with the claim: not enough info."""
    for _ in range(tries):
        other = rng.choice(pool)
        if overlap(other, claim) == 0:
            return other
    return None


def related_but_silent(claim, candidates, exclude=()):
    """The candidate passage sharing most content words with the claim (at least two), from
    another document: on topic, yet not the evidence that decides it."""
    best, best_score = None, 1
    for text in candidates:
        if text in exclude:
            continue
        score = overlap(text, claim)
        if score > best_score:
            best, best_score = text, score
    return best


SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def sentences(text):
    """Sentences of a passage: split after . ! ? before a capital or digit, and at line breaks."""
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def evidence_window(evidence, claim, budget=600, keep=3):
    """The part of a passage the model reads: all of it when it fits `budget` characters, else
    the `keep` sentences sharing most content words with the claim, in passage order, cut at the
    budget. The Rust side (crates/models, `evidence_window`) does the same."""
    text = " ".join(evidence.split())
    if len(text) <= budget:
        return text
    sents = sentences(evidence)
    claim_words = content_words(claim)
    scored = sorted(
        range(len(sents)), key=lambda i: (-len(content_words(sents[i]) & claim_words), i)
    )[:keep]
    out = " ".join(" ".join(sents[i].split()) for i in sorted(scored))
    return out[:budget]
