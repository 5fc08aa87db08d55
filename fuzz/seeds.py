#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets: the hostile shapes the
importers and the note reader must survive (issue 40's table), so that
every fuzz run starts from them and mutates them.

    python3 fuzz/seeds.py            # writes fuzz/corpus/<target>/seed-*
    cargo +nightly fuzz run slack_day -- -max_total_time=60 -max_len=300000

The corpus folder is cargo-fuzz's default and is not committed (libFuzzer
adds what it finds there); this script is what is kept.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

MAIL = ("Message-ID: <1.JavaMail.evans@thyme>\nDate: Mon, 14 May 2001 16:39:00 -0700 (PDT)\n"
        "From: phillip.allen@enron.com\nTo: tim.belden@enron.com\nSubject: Re: curve\n\n"
        "The curve moved 3 cents.\n\n -----Original Message-----\nWhere is the curve?\n")


def quoted(s):
    return '"' + s.replace('"', '""') + '"'


def slack_day():
    normal = [{"type": "message", "user": "U1", "text": "The plan moved to Friday.", "ts": "1704103200.%06d" % i} for i in range(3)]
    deep = {"type": "message", "user": "U1", "ts": "1704103300.000001", "text": "",
            "blocks": None}
    blocks = "[" * 100_000 + "]" * 100_000
    body = json.dumps(normal[:2])[:-1] + ", " + json.dumps(deep).replace("null", blocks) + ", " + json.dumps(normal[2]) + "]"
    return {
        "three-messages": json.dumps(normal),
        "nested-100k-deep": body,
        "shuffled-ts": json.dumps(list(reversed(normal))),
        "bad-ts-and-not-an-object": json.dumps([{"ts": 5, "text": "x"}, 7, {"text": "no ts"}, {"ts": "1.5", "ts2": "x"}]),
        "repeated-ts": '[{"ts": "1.5", "ts": "2.5", "text": "twice"}]',
    }


def enron_csv():
    big = MAIL.replace("The curve moved 3 cents.", "word " * 2000)
    rows = lambda *mails: "file,message\n" + "".join("u/f/%d.,%s\n" % (i, quoted(m)) for i, m in enumerate(mails, 1))
    return {
        "two-records": rows(MAIL, MAIL.replace("<1.", "<2.")),
        "record-over-4k": rows(MAIL, big, MAIL.replace("<1.", "<3.")),
        "record-over-4k-last": rows(MAIL, big),
        "unbalanced-quote": rows(MAIL, MAIL.replace("Where is the curve?", 'He said "where, is the curve?'), MAIL),
        "crlf": rows(MAIL, MAIL).replace("\n", "\r\n"),
        "cut-short": "file,message\nu/f/1.," + quoted(MAIL) + "\nu/f/2.,\"" + MAIL[: len(MAIL) // 2],
        "no-header": "a,b\n1,2\n",
    }


def wiki_note():
    laughs = ["---", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        laughs.append("a%d: &a%d [%s]" % (i, i, ",".join(["*a%d" % (i - 1)] * 9)))
    laughs += ["title: laughs", "---", "", "The body of the note."]
    deep = "---\nk: " + "[" * 40 + "]" * 40 + "\n---\n\nBody.\n"
    return {
        "billion-laughs": "\n".join(laughs) + "\n",
        "nested-40-deep": deep,
        "plain-note": "---\ntitle: Falcon\ntags: [a, b]\ndate: 2024-05-01\n---\n\n# Project Falcon\n\nThe team has 14 engineers. See [[Other note|the other]].\n",
        "key-values": "title:: Falcon\nalias:: F\n\n- The team has 14 engineers.\n",
        "html": "<html><head><title>T &amp; U</title></head><body><p>Caf&eacute;</p><script>x</script></body></html>",
        "report-heading": "# amem audit report\n\nsupported: 5\n",
    }


def mbox_split():
    msg = "From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nDate: Mon, 1 Jan 2024 00:00:00 +0000\nSubject: s\n\n%s\n"
    return {
        "two": msg % "Hello." + msg % ">From the start.",
        "long-line": msg % ("x" * 200_000),
        "no-separator": "From: a@b\n\nNo From line before me.\n",
    }


def main():
    for target, seeds in [("slack_day", slack_day()), ("enron_csv", enron_csv()), ("wiki_note", wiki_note()), ("mbox_split", mbox_split())]:
        out = os.path.join(HERE, "corpus", target)
        os.makedirs(out, exist_ok=True)
        for name, text in seeds.items():
            with open(os.path.join(out, "seed-" + name), "w") as f:
                f.write(text)
        print("%s: %d seeds in %s" % (target, len(seeds), os.path.relpath(out)))


if __name__ == "__main__":
    main()
