"""A sharded amem audit fanned out on Dask: a task per shard calling the amem binary.

    python3 dask_audit.py --home ~/amem --shards 8 [--scheduler tcp://host:8786] -- --since 2001-01-01

Four stages, each waiting for the one before:

1. a task per shard: `amem audit chat-history --shard I/N` (offline: a shard asks no host);
2. one task: `amem grounding fetch`, the trust list asked once for every shard's misses, under
   each host's one limiter (skipped with --offline, or when the home has no trust list);
3. a task per shard: the same audit with `--reassess`, deciding its queued claims locally;
4. `amem report --merge`: one report from the shards' ledgers.

Dask retries a failed task (`--retries`); a retried shard resumes its own run from its ledger,
so a crash costs that shard's unfinished messages, not the job. Without --scheduler the job runs
on a local Dask cluster (threads: every task is a subprocess, so threads suffice). On a real
cluster every worker must see the same home (a shared file system) and have the binary.

Prints one JSON line: the shards' summaries, the merged summary and the report folder.
"""

import argparse
import json
import subprocess
import sys
import time


def amem(binary, home, args):
    """Run amem with --json-style output; return its JSON lines. Raise on failure (Dask retries)."""
    cmd = [binary, "--home", home, *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    lines = []
    for line in done.stdout.splitlines():
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return lines


def shard_task(binary, home, index, count, out_root, audit_args, reassess):
    """One shard's audit (or reassessment): its run summary."""
    out = f"{out_root}/{'reassessed' if reassess else 'audit'}/{index}"
    args = ["audit", "chat-history", "--shard", f"{index}/{count}", "--json", "--out", out, *audit_args]
    if reassess:
        args.append("--reassess")
    for line in amem(binary, home, args):
        if line.get("type") == "run_summary":
            return line["data"]
    raise RuntimeError(f"shard {index}/{count}: no run summary on stdout")


def fetch_task(binary, home):
    """The trust list asked for every shard's queued claims: what it did."""
    for line in amem(binary, home, ["grounding", "fetch", "--format", "json"]):
        if line.get("type") == "grounding_fetch":
            return line["data"]
    raise RuntimeError("grounding fetch: no report on stdout")


def has_trust_list(binary, home):
    lines = amem(binary, home, ["grounding", "list", "--format", "json"])
    return any(l.get("type") == "grounding" and l["data"]["enabled"] and l["data"]["sources"] > 0 for l in lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--amem", default="amem", help="the amem binary [default: amem on PATH]")
    p.add_argument("--home", required=True, help="the amem home every worker sees")
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--scheduler", help="a Dask scheduler address [default: a local cluster]")
    p.add_argument("--workers", type=int, default=2, help="local cluster workers [default: 2]")
    p.add_argument("--retries", type=int, default=2, help="retries of a failed task [default: 2]")
    p.add_argument("--offline", action="store_true", help="ask no host: skip the fetch and reassess stages")
    p.add_argument("--out", help="reports root [default: HOME/reports/dask]")
    p.add_argument("audit_args", nargs="*", help="after --: arguments for every shard's audit (--since, --source, ...)")
    a = p.parse_args()

    from dask.distributed import Client, LocalCluster

    out_root = a.out or f"{a.home}/reports/dask"
    started = time.monotonic()
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=False, dashboard_address=None)
        client = Client(cluster)
    try:
        def fan_out(reassess):
            futures = [
                client.submit(shard_task, a.amem, a.home, i, a.shards, out_root, a.audit_args, reassess,
                              key=f"amem-{'reassess' if reassess else 'audit'}-{i}-of-{a.shards}", retries=a.retries, pure=False)
                for i in range(a.shards)
            ]
            return client.gather(futures)

        shards = fan_out(reassess=False)
        fetched, reassessed = None, None
        if not a.offline and has_trust_list(a.amem, a.home):
            fetched = client.submit(fetch_task, a.amem, a.home, key="amem-grounding-fetch", retries=a.retries, pure=False).result()
            reassessed = fan_out(reassess=True)
        merged = None
        split = [x for i in range(a.shards) for x in ("--merge", f"{a.home}/shards/{i}-of-{a.shards}")]
        for line in amem(a.amem, a.home, ["report", *split, "--format", "json", "--reports", "md,parquet", "--out", f"{out_root}/merged"]):
            if line.get("type") == "report_merge":
                merged = line["data"]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print(json.dumps({
        "shards": shards,
        "fetched": fetched,
        "reassessed": reassessed,
        "merged": merged,
        "seconds": round(time.monotonic() - started, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
