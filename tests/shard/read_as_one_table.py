"""The shards' audit.parquet files read as one table give the single run's counts.

Usage: read_as_one_table.py duckdb|datafusion SHARDS_DIR SINGLE_PARQUET

SHARDS_DIR holds one folder per shard, each with its audit.parquet (the reports of
`amem audit chat-history --shard I/N --out SHARDS_DIR/I`). Prints "equal" and exits 0 when the
claims by group and status, counted over the union of the shards, are the single run's.
"""

import glob
import os
import sys

QUERY = """
SELECT "group", status, count(*) AS claims, count(DISTINCT claim_id) AS distinct_claims
FROM {table} GROUP BY "group", status ORDER BY "group", status
"""


def with_duckdb(shards, single):
    import duckdb

    con = duckdb.connect()
    union = con.sql(QUERY.format(table=f"read_parquet('{shards}/*/audit.parquet')")).fetchall()
    one = con.sql(QUERY.format(table=f"read_parquet('{single}')")).fetchall()
    return union, one


def with_datafusion(shards, single):
    import functools
    import datafusion

    # As the README reads them: one view over every shard's file.
    ctx = datafusion.SessionContext()
    parts = [ctx.read_parquet(p) for p in sorted(glob.glob(os.path.join(shards, "*", "audit.parquet")))]
    ctx.register_view("audit", functools.reduce(lambda a, b: a.union(b), parts))
    ctx.register_parquet("single", single)
    union = ctx.sql(QUERY.format(table="audit")).to_pylist()
    one = ctx.sql(QUERY.format(table="single")).to_pylist()
    as_rows = lambda rows: [tuple(r.values()) for r in rows]
    return as_rows(union), as_rows(one)


def main():
    engine, shards, single = sys.argv[1:4]
    union, one = {"duckdb": with_duckdb, "datafusion": with_datafusion}[engine](shards, single)
    if not one:
        print("the single run has no rows", file=sys.stderr)
        return 1
    if union != one:
        print(f"{engine}: the shards' counts differ\nshards: {union}\nsingle: {one}", file=sys.stderr)
        return 1
    print(f"{engine}: equal ({sum(r[2] for r in one)} claims in {len(one)} (group, status) cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
