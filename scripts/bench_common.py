"""What the bench scripts share: where the checkout is, a log line on stderr,
and loading another script of this folder as a module (their file names have
hyphens, so `import` cannot name them). The scripts run as
`python3 scripts/NAME.py`, which puts this folder first on `sys.path`."""

import importlib.util
import os
import re
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


def finish(block, failures, check, begin, end, readme=os.path.join(ROOT, "docs", "benchmarks.md")):
    """End a bench that owns the benchmarks page block between `begin` and `end`:
    print the block; with failures, name them and exit 1; else, unless
    `check`, write the block into the benchmarks page (which must have it)."""
    print(block)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    if check:
        return
    text = open(readme).read()
    if begin not in text:
        raise SystemExit("docs/benchmarks.md has no %s ... %s block: add it to the reliability section first" % (begin, end))
    open(readme, "w").write(re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S))
