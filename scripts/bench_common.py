"""What the bench scripts share: where the checkout is, a log line on stderr,
and loading another script of this folder as a module (their file names have
hyphens, so `import` cannot name them). The scripts run as
`python3 scripts/NAME.py`, which puts this folder first on `sys.path`."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def load(name, file):
    """The script `scripts/FILE` as a module called NAME."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts", file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SHARED = os.path.join(ROOT, "..", "shared")


def run_amem(cmd):
    """Run an amem command; exit 0 or 2 (records skipped, a usage hint) is a result, any other a failure."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 2):
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-3000:]))
    return p


def enron_sample(scratch):
    """The shared Enron sample's maildir as it ships, unpacked under `scratch` once: its root
    (the folder of the users' folders)."""
    tarball = os.path.join(SHARED, "corpora", "enron", "enron-5users.tar.gz")
    if not os.path.exists(tarball):
        raise SystemExit("%s is absent: cannot run the bench" % os.path.relpath(tarball, ROOT))
    maildir = os.path.join(scratch, "maildir")
    if not os.path.isdir(maildir):
        log("unpacking the Enron sample")
        os.makedirs(maildir)
        subprocess.run(["tar", "-xzf", tarball, "-C", maildir], check=True)
    root = maildir
    while len(os.listdir(root)) == 1 and os.path.isdir(os.path.join(root, os.listdir(root)[0])):
        root = os.path.join(root, os.listdir(root)[0])
    return root


def release_exe(*path):
    """A file of the release build: `release_exe("amem")`."""
    return os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", *path)


def amem_exe(given):
    """`given` (a built amem) as an absolute path, or the release build, built now."""
    if given:
        return os.path.abspath(given)
    log("building amem (release)")
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "amem"], cwd=ROOT, check=True)
    return release_exe("amem")


def finish(block, failures, check, begin, end, readme=os.path.join(ROOT, "docs", "benchmarks.md"), write_missed=False):
    """End a bench that owns the benchmarks page block between `begin` and `end`:
    print the block; with failures, name them and exit 1; else, unless
    `check`, write the block into the benchmarks page (which must have it).
    `write_missed`: a block that states its own missed targets is written
    (outside `check`) before the exit, so the page shows the measurement."""
    print(block)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        if write_missed and not check:
            write_block(block, begin, end, readme)
        sys.exit(1)
    if check:
        return
    write_block(block, begin, end, readme)


def write_block(block, begin, end, readme):
    text = open(readme).read()
    if begin not in text:
        raise SystemExit("docs/benchmarks.md has no %s ... %s block: add it to the reliability section first" % (begin, end))
    open(readme, "w").write(re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S))


def x1_bench(scratch):
    """The x1 archive of scripts/bench-audit.py (the Enron sample's mails as one mbox) and its
    10,000-note wiki, made under `scratch` once and indexed, with the release amem built now:
    (amem, the indexed home, the mbox, bench-audit's module). None when the Enron sample is
    absent (the caller says SKIPPED)."""
    shared = os.path.join(SHARED, "corpora", "enron", "enron-5users.tar.gz")
    if not os.path.exists(shared):
        return None
    bench = load("bench_audit", "bench-audit.py")
    mb = bench.mail_bench()
    os.makedirs(scratch, exist_ok=True)
    maildir = os.path.join(scratch, "maildir")
    if not os.path.isdir(maildir):
        os.makedirs(maildir)
        subprocess.run(["tar", "-xzf", shared, "-C", maildir], check=True)
    root = maildir
    while os.listdir(root) == ["maildir"]:
        root = os.path.join(root, "maildir")
    files = mb.enron_files(root)
    archives = mb.generate(scratch, files, root)
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "amem"], cwd=ROOT, check=True)
    exe = bench.release_exe("amem")
    base = os.path.join(scratch, "home-indexed")
    if not os.path.exists(os.path.join(base, "ledger.sqlite")):
        shutil.rmtree(base, ignore_errors=True)
        bench.make_wiki(base, files)
    bench.timed([exe, "index", "--home", base])
    return exe, base, archives[1]["gmail"], bench
