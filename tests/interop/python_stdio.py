"""An independent client against fastmcp: the Python `mcp` SDK (2.3.0) in each era, over stdio or HTTP.

Usage: python python_stdio.py <path-to-quickstart-binary | http://host:port/mcp>
Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
"""

import asyncio
import sys
import traceback

from mcp import Client
from mcp.client.stdio import StdioServerParameters
import mcp_types as types

MODES = {
    # mode -> the protocol version the session must end up on
    "legacy": "2025-11-25",
    "2026-07-28": "2026-07-28",
    "auto": "2026-07-28",  # auto probes server/discover, which we answer, so it goes modern
}


def text_of(content):
    return "".join(block.text for block in content if getattr(block, "type", None) == "text")


async def run_mode(binary, mode, expected_version, results):
    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} [{mode}] {name}{'' if ok else ': ' + detail}", flush=True)

    server = binary if binary.startswith("http") else StdioServerParameters(command=binary, args=[])
    async with Client(server, mode=mode) as client:
        check("negotiated version", client.protocol_version == expected_version, client.protocol_version)

        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        check("list tools", names == ["greet", "add"], str(names))

        greet = await client.call_tool("greet", {"name": "Ada"})
        check("call greet", text_of(greet.content) == "Hello, Ada!" and not greet.is_error, repr(greet))

        added = await client.call_tool("add", {"a": 2, "b": 3})
        check("call add", added.structured_content == {"sum": 5} and not added.is_error, repr(added))

        bad = await client.call_tool("add", {"a": 2})
        check("invalid arguments are a tool error", bad.is_error is True, repr(bad))

        resources = (await client.list_resources()).resources
        check("list resources", [str(r.uri) for r in resources] == ["quickstart://readme"], repr(resources))

        readme = await client.read_resource("quickstart://readme")
        check("read resource", readme.contents[0].text.startswith("# quickstart"), repr(readme))

        templates = (await client.list_resource_templates()).resource_templates
        check("list templates", [t.uri_template for t in templates] == ["quickstart://greeting/{name}"], repr(templates))

        greeting = await client.read_resource("quickstart://greeting/Grace")
        check("read template", greeting.contents[0].text.startswith("Hello, Grace!"), repr(greeting))

        prompts = (await client.list_prompts()).prompts
        check("list prompts", [p.name for p in prompts] == ["review_code"], repr(prompts))

        prompt = await client.get_prompt("review_code", {"code": "print(1)", "language": "python"})
        body = prompt.messages[0].content.text
        check("get prompt", "```python\nprint(1)\n```" in body, body)

        done = await client.complete(
            types.PromptReference(type="ref/prompt", name="review_code"), {"name": "language", "value": "py"}
        )
        check("complete prompt argument", done.completion.values == ["python"], repr(done))


async def main(binary):
    results = []
    for mode, version in MODES.items():
        try:
            await run_mode(binary, mode, version, results)
        except Exception:  # a crash in one mode is a failure, and the others still run
            traceback.print_exc()
            results.append(False)
            print(f"FAIL [{mode}] session crashed", flush=True)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
