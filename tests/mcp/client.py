"""Drives `amem mcp serve` with the official MCP Python SDK, as an agent would.

Run by tests/integration/mcp.rs (which starts the loopback trust-list server
and writes the home's config); by hand:

    python3 tests/mcp/client.py --amem target/debug/amem --home H --mode stdio|http

Every check is an assert: the script exits non-zero on the first that fails,
naming it. It prints one line per check passed.
"""

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
try:  # the SDK's 2.x name, and its 1.x one
    from mcp.shared.exceptions import MCPError as McpError
except ImportError:
    from mcp.shared.exceptions import McpError

SUPPORTED = "According to Maria, the launch budget was $1.2 million."
CONTRADICTED = "The first release supported 5 languages, including French."
NO_EVIDENCE = "The new bakery on Rue Cler opens next Tuesday."
# Only the trust list (the recorded arXiv answer the test server replays) has this.
FETCHED = "The survey of web testing analyzed 259 research papers."
# The fields an MCP answer and `amem factcheck --json` must agree on.
SAME = ["verdict", "status", "evidence", "amem_uri", "method", "reasons", "gate"]
EXTENSION_ORIGIN = "chrome-extension://amemtestextensionid"


def passed(what):
    print(f"ok {what}", flush=True)


def cli(args, home, *rest):
    out = subprocess.run([args.amem, "--home", home, *rest], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"amem {' '.join(rest)} exited {out.returncode}: {out.stderr}"
    return out.stdout


def cli_factcheck(args, claim, *extra):
    return json.loads(cli(args, args.home, "factcheck", claim, "--format", "json", *extra))


def compare(answer, claim, args, fields=SAME, extra=()):
    expected = cli_factcheck(args, claim, *extra)
    for f in fields:
        assert answer.get(f) == expected.get(f), f"{claim!r}: field {f} differs:\n mcp {json.dumps(answer.get(f))}\n cli {json.dumps(expected.get(f))}"


def structured(result, what):
    assert not result.is_error, f"{what}: tool error: {result.content[0].text if result.content else result}"
    assert result.structured_content is not None, f"{what}: no structured content"
    return result.structured_content


def error_text(result, what):
    assert result.is_error, f"{what}: expected a tool error, got {result.structured_content}"
    return result.content[0].text


async def common_checks(session, args, mode):
    init_tools = await session.list_tools()
    names = [t.name for t in init_tools.tools]
    assert names == ["amem_recall", "amem_factcheck", "amem_capture", "amem_gate", "amem_open"], names
    for t in init_tools.tools:
        assert t.input_schema.get("type") == "object", (t.name, t.input_schema)
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        assert t.annotations is not None, t.name
    hints = {t.name: t.annotations for t in init_tools.tools}
    assert hints["amem_recall"].read_only_hint is True and hints["amem_recall"].open_world_hint is False
    assert hints["amem_factcheck"].open_world_hint is True and hints["amem_capture"].read_only_hint is False
    assert hints["amem_gate"].read_only_hint is True and hints["amem_open"].read_only_hint is True
    passed(f"{mode}: five tools with input and output schemas and hints")

    resources = await session.list_resources()
    uris = [str(r.uri) for r in resources.resources]
    assert uris[0] == "amem://system/grounding-rule", uris
    chunks = [u for u in uris if re.fullmatch(r"amem://[A-Za-z0-9._-]+#chunk=0", u)]
    assert len(chunks) >= 4, uris
    templates = await session.list_resource_templates()
    assert any("{item}" in t.uri_template for t in templates.resource_templates)
    read = await session.read_resource(chunks[0])
    assert read.contents[0].text.strip(), chunks[0]
    rule = await session.read_resource("amem://system/grounding-rule")
    rule_text = rule.contents[0].text
    for needle in ["amem_recall", "[src: amem://", "Without source: ", "CONTRADICTED", "amem_factcheck"]:
        assert needle in rule_text, needle
    prompts = await session.list_prompts()
    assert [p.name for p in prompts.prompts] == ["grounding-rule"]
    prompt = await session.get_prompt("grounding-rule")
    assert prompt.messages[0].content.text == rule_text
    passed(f"{mode}: resources (the rule and {len(chunks)} wiki chunks), the template, the prompt")

    # The three local verdicts, each the same as `amem factcheck --json` on the same home.
    answers = {}
    for claim, verdict in [(SUPPORTED, "SUPPORTED"), (CONTRADICTED, "CONTRADICTED"), (NO_EVIDENCE, "NO_EVIDENCE")]:
        a = structured(await session.call_tool("amem_factcheck", {"claim": claim}), claim)
        assert a["verdict"] == verdict, (claim, a)
        compare(a, claim, args)
        answers[claim] = a
    assert answers[SUPPORTED]["evidence"][0]["amem_uri"].startswith("amem://")
    assert answers[CONTRADICTED]["reasons"][0]["claim_span"] is not None
    passed(f"{mode}: supported, contradicted and no-evidence claims, each equal to amem factcheck --json")

    # Recall, then open what it cites.
    hits = structured(await session.call_tool("amem_recall", {"query": "launch budget", "k": 3}), "recall")["hits"]
    assert hits and hits[0]["uri"].startswith("amem://") and len(hits) <= 3, hits
    # The same path as `amem recall` (hybrid recall by default): the same chunks, in the same order.
    lines = [json.loads(l) for l in cli(args, args.home, "recall", "launch budget", "-k", "3", "--format", "json").splitlines() if l.strip()]
    assert [h["uri"] for h in hits] == [l["data"]["uri"] for l in lines if l["type"] == "hit"], (hits, lines)
    opened = structured(await session.call_tool("amem_open", {"uri": hits[0]["uri"]}), "open")
    assert hits[0]["quote"].split()[0] in opened["text"] and opened["path"].startswith("wiki/"), opened
    passed(f"{mode}: recall (equal to amem recall) and open")

    # The gate: a hedge dropped.
    gated = structured(
        await session.call_tool(
            "amem_gate",
            {"source": "The launch budget was probably $1.2 million, according to Maria.", "memory": "The launch budget was $1.2 million."},
        ),
        "gate",
    )
    assert gated["verdict"] != "PASS" and gated["flags"], gated
    assert gated["not_checked"], gated
    passed(f"{mode}: gate flags a dropped hedge ({gated['verdict']})")

    # Capture a text, then find it.
    word = f"zanzibarite{mode}"
    cap = structured(await session.call_tool("amem_capture", {"text": f"The {word} mine produced 42 tonnes in 2024.", "title": "Mine"}), "capture")
    assert cap["uri"].startswith("amem://") and cap["path"].startswith("wiki/captured/"), cap
    found = structured(await session.call_tool("amem_recall", {"query": f"{word} mine tonnes"}), "recall captured")["hits"]
    assert found and found[0]["uri"] == cap["uri"], (found, cap)
    off_list = error_text(await session.call_tool("amem_capture", {"url": "http://example.org/page.html"}), "off-list url")
    assert "nothing was sent" in off_list, off_list
    passed(f"{mode}: capture a text (found by recall), a URL off the trust list refused")

    # Bad input: tool errors the agent can read, protocol errors for unknown names.
    msg = error_text(await session.call_tool("amem_recall", {"query": 5}), "query as a number")
    assert "query" in msg or "string" in msg, msg
    error_text(await session.call_tool("amem_factcheck", {}), "no claim")
    error_text(await session.call_tool("amem_factcheck", {"claim": "x", "colour": "red"}), "unknown field")
    error_text(await session.call_tool("amem_recall", {"query": "x", "k": 0}), "k 0")
    error_text(await session.call_tool("amem_capture", {"text": "a", "url": "http://x"}), "text and url")
    big = error_text(await session.call_tool("amem_factcheck", {"claim": "word " * (2 * 1024 * 1024)}), "a 10 MB claim")
    assert "limit" in big, big
    error_text(await session.call_tool("amem_open", {"uri": "amem://no-such-item#chunk=0"}), "unknown item")
    for bad in [lambda: session.call_tool("amem_nothing", {}), lambda: session.read_resource("amem://no-such-item#chunk=3")]:
        try:
            await bad()
            raise AssertionError("expected an MCP error")
        except McpError:
            pass
    passed(f"{mode}: bad arguments, a 10 MB claim, unknown tool and URI are errors")

    # Four calls at once give what they give one at a time.
    claims = [SUPPORTED, CONTRADICTED, NO_EVIDENCE, SUPPORTED]
    together = await asyncio.gather(*[session.call_tool("amem_factcheck", {"claim": c}) for c in claims])
    for c, r in zip(claims, together):
        a = structured(r, c)
        for f in ["verdict", "status", "evidence", "reasons"]:
            assert a[f] == answers[c][f], (c, f)
    passed(f"{mode}: four calls at once")
    return answers


async def fetch_check(session, args, mode):
    progress = []

    async def on_progress(p, total, message):
        progress.append((p, total, message))

    r = await session.call_tool("amem_factcheck", {"claim": FETCHED}, progress_callback=on_progress)
    a = structured(r, "fetched claim")
    assert a["grounding"]["outcome"] == "captured", a["grounding"]
    assert a["grounding"]["requests"] >= 1, a["grounding"]
    assert a["method"].endswith("+trust-list"), a["method"]
    assert any(e["source_uri"].startswith("http://arxiv.org/abs/") for e in a["evidence"]), a["evidence"]
    assert len(progress) >= 3 and progress[-1][0] == progress[-1][1], progress
    # What was fetched is a note now: the CLI, offline, answers it the same from the wiki.
    compare(a, FETCHED, args, fields=["verdict", "status", "evidence", "amem_uri", "reasons"], extra=("--offline",))
    # A page from a trust-list host is captured through the same client.
    page = structured(await session.call_tool("amem_capture", {"url": args.trust_url + "page.html"}), "capture url")
    assert page["uri"].startswith("amem://"), page
    passed(f"{mode}: a miss fetched from the trust list with progress, captured, then equal to amem factcheck --offline; a page captured")


async def with_audit(session, args, mode):
    """An audit on the same home while the server answers: both finish."""
    audit = subprocess.Popen(
        [args.amem, "--home", args.home, "audit", "chat-history", "--since", "2001-01-01", "--offline", "--rerun"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    rounds = 0
    while audit.poll() is None or rounds < 3:
        got = await asyncio.gather(
            session.call_tool("amem_factcheck", {"claim": CONTRADICTED}), session.call_tool("amem_recall", {"query": "Falcon team"})
        )
        assert structured(got[0], "during the audit")["verdict"] == "CONTRADICTED"
        structured(got[1], "recall during the audit")
        rounds += 1
        if rounds > 2000:
            raise AssertionError("the audit did not finish")
    _, err = audit.communicate(timeout=300)
    assert audit.returncode == 0, f"the audit beside the server failed: {err}"
    passed(f"{mode}: an audit on the same home while {rounds} rounds of calls were served")


def disconnect_mid_call(args):
    """A client that leaves during a call: the server ends, no panic, no hang."""
    p = subprocess.Popen(
        [args.amem, "--home", args.home, "mcp", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "amem_factcheck", "arguments": {"claim": FETCHED}}},
    ]
    p.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
    p.stdin.flush()
    p.stdout.readline()  # the initialize answer
    p.stdin.close()
    p.stdout.close()
    try:
        code = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the server hung after its client left")
    err = p.stderr.read().decode(errors="replace")
    assert "panicked" not in err, err
    assert code in (0, 1), (code, err)
    passed(f"stdio: a client gone mid-call ends the server (exit {code}), no panic")


def raw_post(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


async def run_stdio(args):
    params = StdioServerParameters(command=args.amem, args=["--home", args.home, "mcp", "serve"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "amem", init.server_info
            assert "Without source: " in (init.instructions or "")
            passed("stdio: initialize")
            await common_checks(session, args, "stdio")
            await fetch_check(session, args, "stdio")
            await with_audit(session, args, "stdio")
    disconnect_mid_call(args)


async def run_http(args):
    from mcp.client.streamable_http import streamable_http_client

    server = subprocess.Popen(
        [args.amem, "--home", args.home, "mcp", "serve", "--http", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        base = None
        deadline = time.time() + 120
        while time.time() < deadline:
            line = server.stderr.readline()
            if not line:
                break
            m = re.search(r"listening on (http://[0-9.:]+)/mcp", line)
            if m:
                base = m.group(1)
                break
        assert base, "the HTTP server did not say where it listens"
        init_body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        status, body = raw_post(base + "/mcp", init_body, {**accept, "Origin": "https://evil.example"})
        assert status == 403 and "Origin" in body["error"], (status, body)
        status, body = raw_post(base + "/mcp", init_body, {**accept, "Host": "evil.example"})
        assert status == 403 and "Host" in body["error"], (status, body)
        status, body = raw_post(base + "/factcheck", {"claim": CONTRADICTED}, {"Origin": "chrome-extension://notlisted"})
        assert status == 403, (status, body)
        passed("http: a foreign Origin or Host is 403, on /mcp and /factcheck")

        status, bridged = raw_post(base + "/factcheck", {"claim": CONTRADICTED, "context": "from a web page"}, {"Origin": EXTENSION_ORIGIN})
        assert status == 200 and bridged["verdict"] == "CONTRADICTED" and bridged["context"] == "from a web page", (status, bridged)
        compare(bridged, CONTRADICTED, args)
        status, body = raw_post(base + "/factcheck", {"claim": 7}, {})
        assert status == 400 and "claim" in body["error"], (status, body)
        passed("http: POST /factcheck from a listed extension equals amem factcheck --json; bad input is 400")

        async with streamable_http_client(base + "/mcp") as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "amem"
                passed("http: initialize")
                await common_checks(session, args, "http")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            raise AssertionError("the HTTP server did not stop on SIGTERM")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amem", required=True)
    ap.add_argument("--home", required=True)
    ap.add_argument("--mode", choices=["stdio", "http"], required=True)
    ap.add_argument("--trust-url", default="", help="the loopback trust-list server's base URL, ending in /")
    args = ap.parse_args()
    asyncio.run(run_stdio(args) if args.mode == "stdio" else run_http(args))
    print("all checks passed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
