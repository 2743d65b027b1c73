"""An independent client drives fastmcp's resumable handlers: Python `mcp` 2.3.0 answers each round's
input requests through its elicitation and sampling callbacks and retries with the request state.

Usage: python python_mrtr.py <target-dir-with-binaries> [mode ...]          over stdio
       python python_mrtr.py http:<deploy-port>,<survey-port>,<sum-port> [mode ...]   over HTTP
(default mode: 2026-07-28)
Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
"""

import asyncio
import os
import sys
import traceback

from mcp import Client
from mcp.client.stdio import StdioServerParameters
import mcp_types as types


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def on_elicit(ctx, params):
    props = (params.requested_schema or {}).get("properties", {})
    if "confirm" in props:
        return types.ElicitResult(action="accept", content={"confirm": True})
    # survey: answer each question with a text derived from it
    return types.ElicitResult(action="accept", content={"answer": f"a-{params.message}"})


async def on_sample(ctx, params):
    assert params.max_tokens == 200, params.max_tokens
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="shiny notes"), model="fake-model",
        stop_reason="endTurn",
    )


async def decline(ctx, params):
    return types.ElicitResult(action="decline")


CASES = [
    # (binary, tool, arguments, expected text, elicitation callback)
    ("deploy", "deploy", {"service": "api", "replicas": 3}, "Deployed api x3: shiny notes", on_elicit),
    ("deploy", "deploy", {"service": "api", "replicas": 3}, "Deployment of api cancelled.", decline),
    ("survey", "survey", {"questions": ["name", "color", "pet"]}, "name=a-name; color=a-color; pet=a-pet", on_elicit),
    ("sum", "sum", {"numbers": list(range(1, 11)), "chunk": 3}, "sum=55 in 4 rounds", on_elicit),
]


async def run(target, mode, case, results):
    binary, tool, arguments, expected, elicit = case
    over = "http" if target.startswith("http:") else "stdio"
    label = f"[{over} {mode}] {tool} {'declined' if elicit is decline else ''}".rstrip()
    if target.startswith("http:"):
        ports = dict(zip(["deploy", "survey", "sum"], target[len("http:"):].split(",")))
        server = f"http://127.0.0.1:{ports[binary]}/mcp"
    else:
        server = StdioServerParameters(command=os.path.join(target, binary), args=[])
    try:
        async with Client(server, mode=mode, elicitation_callback=elicit, sampling_callback=on_sample) as client:
            result = await client.call_tool(tool, arguments)
            got = text_of(result)
            ok = got == expected and not result.is_error
            results.append(ok)
            print(f"{'PASS' if ok else 'FAIL'} {label}{'' if ok else f': got {got!r}, want {expected!r}'}", flush=True)
    except Exception:
        traceback.print_exc()
        results.append(False)
        print(f"FAIL {label}: crashed", flush=True)


async def main(target, modes):
    results = []
    for mode in modes:
        for case in CASES:
            await run(target, mode, case, results)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:] or ["2026-07-28"])))
