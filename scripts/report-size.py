#!/usr/bin/env python3
"""How big audit.md gets on a real archive: the 11,238 Enron mails of
../shared/corpora/enron/enron-5users.tar.gz, audited offline as one mbox
(the x1 archive of scripts/bench-audit.py) against two wikis:

- the bench home of scripts/bench-audit.py: 10,000 notes, each the body of
  one real Enron mail (so most claims find evidence, and many are supported
  or contradicted);
- the small example wiki of examples/home (so nearly every claim is unverified).

For each: the default report (what a person reads), and with `--full` the
report listing everything, with the row counts, the size of audit.md and
audit.arrow, and what the audit skipped as bulk or automated mail. Release
build, one run per home; the inputs are written straight from the tarball
(one mbox, the notes), and each run's home is removed after it is measured.

Usage:
    python3 scripts/report-size.py            # measure, rewrite the benchmarks page block
    python3 scripts/report-size.py --full     # also the --full report (two more runs)
    python3 scripts/report-size.py --check    # measure, fail if the benchmarks page block is stale
                                              # or the default audit.md is over 2 MB
    options: --scratch DIR (default /tmp/amem-report-size)
"""

import argparse
import json
import os
import shutil
import subprocess

from bench_common import load, log

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- report-size:begin -->", "<!-- report-size:end -->"
LIMIT = 2 * 1024 * 1024


def run_audit(exe, home, mbox, extra):
    cmd = [exe, "--no-models", "audit", "chat-history", "--offline", "--home", home, "--since", "1970-01-01", "--now", "2030-01-01T00:00:00Z",
           "--source", "gmail:" + mbox, "--json", "-q"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    line = next(l for l in p.stdout.splitlines() if '"run_summary"' in l)
    data = json.loads(line)["data"]
    return data["summary"], data["report_dir"]


def measure(exe, base, mbox, scratch, label, with_full):
    out = []
    for full in ((False, True) if with_full else (False,)):
        home = os.path.join(scratch, "home-run")
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(base, home)
        summary, rdir = run_audit(exe, home, mbox, ["--full"] if full else [])
        bulk = sum(n for r, n in summary["skipped"]["by_stage"].get("select", {}).items() if r.startswith("bulk"))
        g = summary["by_group"]
        out.append({
            "wiki": label, "report": "--full" if full else "default", "messages": summary["messages_read"], "bulk": bulk,
            "assessed": summary["assessed"], "contradicted": g.get("contradicted", 0), "supported": g.get("supported", 0),
            "unverified": g.get("unverified", 0), "md": os.path.getsize(os.path.join(rdir, "audit.md")),
            "arrow": os.path.getsize(os.path.join(rdir, "audit.arrow")),
        })
        log(out[-1])
        shutil.rmtree(home, ignore_errors=True)
    return out


def mb(n):
    return "%.2f MB" % (n / 1e6)


def render(rows):
    lines = [BEGIN, "", "| wiki | audit.md | messages | skipped as bulk | assessed | ⚠ | ✅ | ❓ | audit.md size | audit.arrow size |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            r["wiki"], r["report"], r["messages"], r["bulk"], r["assessed"], r["contradicted"], r["supported"], r["unverified"],
            mb(r["md"]), mb(r["arrow"])))
    lines += ["", "The 11,238 real Enron mails as one mbox, offline, release build; recomputed by",
              "`python3 scripts/report-size.py` (`--check` verifies this block and the 2 MB bound of the default report).", END]
    return "\n".join(lines)


def write_inputs(shared, scratch, bench):
    """The x1 mbox (the shape scripts/bench-audit.py audits) and the 10,000-note
    wiki, written straight from the tarball: no unpacked maildir, no x10 copy."""
    import tarfile
    mail = load("bench_mail", "bench-importers-mail.py")
    mbox = os.path.join(scratch, "enron-x1.mbox")
    wiki = os.path.join(scratch, "home-bench", "wiki", "notes")
    stamp = os.path.join(scratch, "inputs.ok")
    if os.path.exists(stamp):
        return mbox
    shutil.rmtree(os.path.join(scratch, "home-bench"), ignore_errors=True)
    os.makedirs(wiki, exist_ok=True)
    notes = 0
    with tarfile.open(shared) as tar, open(mbox, "wb") as mb:
        # In the tarball's order: a gzip stream read backwards is read again from the start.
        for m in tar:
            if not m.isfile() or os.path.basename(m.name).startswith("."):
                continue
            raw = tar.extractfile(m).read()
            parts = m.name.split("/")
            rel = "/".join(parts[parts.index("maildir") + 1:]) if "maildir" in parts else m.name
            folder = rel.split("/", 1)[1].rsplit("/", 1)[0] if rel.count("/") >= 2 else ""
            msg, date = mail.vary(raw, 0)
            thr = int(__import__("hashlib").sha1(("0/%s/%s" % (rel.split("/")[0], mail.normalise_subject(raw))).encode()).hexdigest()[:15], 16)
            import datetime
            when = (date or datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)).astimezone(datetime.timezone.utc)
            sep = "From %d@xxx %s +0000 %d\n" % (thr, when.strftime("%a %b %d %H:%M:%S"), when.year)
            extra = b"X-GM-THRID: %d\nX-Gmail-Labels: %s\n" % (thr, mail.labels_for(folder).encode())
            body = __import__("re").sub(rb"(?m)^(>*From )", rb">\1", msg)
            if not body.endswith(b"\n"):
                body += b"\n"
            mb.write(sep.encode() + extra + body + b"\n")
            if notes < bench.WIKI_ITEMS:
                text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
                halves = text.split("\n\n", 1)
                note = halves[1].strip() if len(halves) == 2 else ""
                if len(note) >= 40:
                    with open(os.path.join(wiki, "note-%05d.md" % notes), "w", encoding="utf-8") as f:
                        f.write("---\ntitle: note %d\n---\n%s\n" % (notes, note))
                    notes += 1
    open(stamp, "w").write("ok\n")
    return mbox


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--full", action="store_true", help="also measure --full (two more runs)")
    ap.add_argument("--scratch", default="/tmp/amem-report-size")
    a = ap.parse_args()
    shared = os.path.join(ROOT, "..", "shared", "corpora", "enron", "enron-5users.tar.gz")
    if not os.path.exists(shared):
        print("SKIPPED: ../shared/corpora/enron/enron-5users.tar.gz is absent")
        return
    bench = load("bench_audit", "bench-audit.py")
    os.makedirs(a.scratch, exist_ok=True)
    mbox = write_inputs(shared, a.scratch, bench)
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "amem"], cwd=ROOT, check=True)
    exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "amem")
    rows = []
    bench_home = os.path.join(a.scratch, "home-bench")
    subprocess.run([exe, "index", "--home", bench_home, "-q"], check=True, stdout=subprocess.DEVNULL)
    rows += measure(exe, bench_home, mbox, a.scratch, "10,000 Enron notes", a.full)
    small = os.path.join(a.scratch, "home-example-wiki")
    shutil.rmtree(small, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "examples", "home", "wiki"), os.path.join(small, "wiki"))
    subprocess.run([exe, "index", "--home", small, "-q"], check=True, stdout=subprocess.DEVNULL)
    rows += measure(exe, small, mbox, a.scratch, "examples/home wiki", a.full)
    shutil.rmtree(os.path.join(a.scratch, "home-run"), ignore_errors=True)
    block = render(rows)
    print(block)
    failures = ["default audit.md over 2 MB with the %s: %s" % (r["wiki"], mb(r["md"])) for r in rows if r["report"] == "default" and r["md"] > LIMIT]
    readme_path = os.path.join(ROOT, "docs", "benchmarks.md")
    readme = open(readme_path, encoding="utf-8").read()
    i, j = readme.find(BEGIN), readme.find(END)
    if a.check:
        if i < 0 or j < 0:
            failures.append("benchmarks page has no report-size block")
        else:
            old = readme[i:j + len(END)]
            if [l for l in old.splitlines() if l.startswith("| ") and "---" not in l] != [l for l in block.splitlines() if l.startswith("| ") and "---" not in l]:
                failures.append("benchmarks page report-size block is stale")
    elif i >= 0 and j >= 0:
        open(readme_path, "w", encoding="utf-8").write(readme[:i] + block + readme[j + len(END):])
    if failures:
        raise SystemExit("\n".join(failures))


if __name__ == "__main__":
    main()
