#!/usr/bin/env python3
"""Writes the verifier's three WordNet-derived word lists into crates/text/lexicons/:

- antonyms.txt: WordNet's direct antonym pairs ('!' pointers) of adjectives and adverbs, one
  "word word" pair a line, single-word lemmas only, with the indirect antonyms of adjectives
  (a satellite against its head's antonym: "fictional" / "real") (its verb and noun pairs, "take" / "give",
  "parent" / "child", name two roles of one event more often than a contradiction);
- noun_kinds.txt: for each single-word noun lemma WordNet has sense-tagged in its corpus
  (no more often as a verb, an adjective or an adverb),
  the lexicographer categories ("person", "animal", "location", ...) of its tagged senses,
  "word kind,kind" a line;
- places.txt: each named place (a location, continent, island or river synset with an instance hypernym: "Beijing",
  "Luxembourg", "Texas"), its names and the places it lies in (part holonyms, transitively).

Input: the WordNet 3.0 database files (Debian's wordnet-base package installs them under
/usr/share/wordnet; pass another directory as the first argument). Deterministic: the same
database writes the same files. WordNet 3.0 Copyright 2006 by Princeton University; its
licence (reproduced at the head of each file written) allows copying and distribution with
the notice.
"""
import os
import sys

WN = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "text", "lexicons")

LEXNAMES = [
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession",
    "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition", "verb.consumption",
    "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession",
    "verb.social", "verb.stative", "verb.weather", "adj.ppl",
]

NOTICE = """# Derived from WordNet 3.0 by scripts/wordnet-lexicons.py (do not edit by hand).
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# Permission to use, copy, modify and distribute this software and database and its
# documentation for any purpose and without fee or royalty is hereby granted, provided that
# you agree to comply with the following copyright notice and statements, including the
# disclaimer, and that the same appear on ALL copies of the software, database and
# documentation, including modifications that you make for internal use or for distribution.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,
# PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS
# FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR
# DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER
# RIGHTS. The name of Princeton University or Princeton may not be used in advertising or
# publicity pertaining to distribution of the software and/or database. Title to copyright
# in this software, database and any associated documentation shall at all times remain with
# Princeton University and LICENSEE agrees to preserve same.
"""


def lemma_word(w):
    # adjective markers such as "(a)" / "(p)" follow the lemma
    w = w.split("(")[0].lower()
    return w if w.isalpha() else None


def read_data(pos):
    """offset -> (lex_filenum, [words], [(symbol, target offset, target pos, source, target)])"""
    out = {}
    with open(os.path.join(WN, "data." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            head = line.split(" | ")[0].split()
            off, lexfile, n = head[0], int(head[1]), int(head[3], 16)
            words = [head[4 + 2 * i] for i in range(n)]
            at = 4 + 2 * n
            p = int(head[at])
            ptrs = []
            for i in range(p):
                sym, toff, tpos, st = head[at + 1 + 4 * i: at + 5 + 4 * i]
                ptrs.append((sym, toff, tpos, int(st[:2], 16), int(st[2:], 16)))
            out[off] = (lexfile, words, ptrs)
    return out


def antonyms():
    pos_file = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    data = {p: read_data(p) for p in ("noun", "verb", "adj", "adv")}
    pairs = set()
    for p, synsets in data.items():
        if p not in ("adj", "adv"):
            continue
        for off, (_, words, ptrs) in synsets.items():
            for sym, toff, tpos, src, tgt in ptrs:
                if sym != "!" or src == 0 or tgt == 0:
                    continue
                a = lemma_word(words[src - 1])
                b = lemma_word(data[pos_file[tpos]][toff][1][tgt - 1])
                if a and b and a != b:
                    pairs.add(tuple(sorted((a, b))))
    # Indirect antonyms of adjectives: a satellite ("fictional", similar to "unreal") opposes
    # the direct antonym of its head ("real").
    adj = data["adj"]
    for off, (_, words, ptrs) in adj.items():
        for sym, toff, tpos, src, tgt in ptrs:
            if sym != "&" or tpos != "a":
                continue
            head_words, head_ptrs = adj[toff][1], adj[toff][2]
            opposed = [lemma_word(data[pos_file[p2]][o2][1][t2 - 1]) for s2, o2, p2, _, t2 in head_ptrs if s2 == "!" and t2 > 0]
            for w in words:
                a = lemma_word(w)
                for b in opposed:
                    if a and b and a != b:
                        pairs.add(tuple(sorted((a, b))))
    return sorted(pairs)


def tagged_counts(pos):
    """lemma -> how many of its senses of this part of speech are sense-tagged"""
    out = {}
    with open(os.path.join(WN, "index." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            p_cnt = int(parts[3])
            out[parts[0]] = int(parts[5 + p_cnt])
    return out


def noun_kinds():
    data = read_data("noun")
    others = [tagged_counts(p) for p in ("verb", "adj", "adv")]
    out = []
    with open(os.path.join(WN, "index.noun"), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            lemma, synset_cnt, p_cnt = parts[0], int(parts[2]), int(parts[3])
            tagged = int(parts[5 + p_cnt])
            offsets = parts[6 + p_cnt:]
            if not lemma.isalpha() or lemma.lower() != lemma or tagged == 0:
                continue
            # a word read mostly as a verb, an adjective or an adverb ("born", "active",
            # "prevent") is not taken for a noun
            if any(o.get(lemma, 0) > tagged for o in others):
                continue
            senses = offsets[: max(tagged, 1)]
            kinds = []
            for o in senses:
                k = LEXNAMES[data[o][0]].split(".")[1]
                if k not in kinds:
                    kinds.append(k)
            out.append((lemma, kinds))
    return out


def places():
    """Named places (noun.location synsets, and the noun.object ones of continents, islands and
    rivers, with an instance hypernym and a capitalised lemma): each synset's names and the
    synsets it lies in, by the transitive closure of WordNet's part-holonym pointers ("Beijing"
    in China in Asia)."""
    data = read_data("noun")
    named = {}
    for off, (lexfile, words, ptrs) in data.items():
        if LEXNAMES[lexfile] not in ("noun.location", "noun.object") or not any(sym == "@i" for sym, *_ in ptrs):
            continue
        names = [w.split("(")[0].replace("_", " ") for w in words]
        names = [n for n in names if n[:1].isupper() and all(c.isalpha() or c in " .-'" for c in n)]
        if names:
            named[off] = names
    def within(off):
        seen, todo = [], [off]
        while todo:
            o = todo.pop()
            for sym, toff, *_ in data[o][2]:
                if sym == "#p" and toff not in seen:
                    seen.append(toff)
                    todo.append(toff)
        return sorted(seen)
    return [(off, named[off], within(off)) for off in sorted(named)]


def main():
    with open(os.path.join(OUT, "antonyms.txt"), "w") as f:
        f.write(NOTICE)
        f.write("# One pair a line: two single-word lemmas WordNet gives as direct antonyms (adjectives, adverbs).\n")
        for a, b in antonyms():
            f.write(f"{a} {b}\n")
    with open(os.path.join(OUT, "noun_kinds.txt"), "w") as f:
        f.write(NOTICE)
        f.write("# A noun lemma and the lexicographer categories of its sense-tagged senses.\n")
        for lemma, kinds in noun_kinds():
            f.write(f"{lemma} {','.join(kinds)}\n")
    with open(os.path.join(OUT, "places.txt"), "w") as f:
        f.write(NOTICE)
        f.write("# A named place: its synset, its names (';' between), and the synsets it lies in (part holonyms, transitively).\n")
        for off, names, within in places():
            f.write(f"{off}\t{';'.join(names)}\t{' '.join(within)}\n")


if __name__ == "__main__":
    main()
