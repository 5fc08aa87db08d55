"""What the bench scripts share: where the checkout is, a log line on stderr,
and loading another script of this folder as a module (their file names have
hyphens, so `import` cannot name them). The scripts run as
`python3 scripts/NAME.py`, which puts this folder first on `sys.path`."""

import importlib.util
import os
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
