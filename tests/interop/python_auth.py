"""An independent client against the protected `auth` example: Python `mcp` 2.3.0 discovers the server's
protected resource metadata from its 401, the authorization server's metadata from that, and gets a token with
the client_credentials grant for the server's URL (RFC 8707 `resource`) and the scope the challenge named
(`mcp`). Calling `deploy` — which needs `deploy:write` and asks the user — is refused with 403 naming that
scope; the client steps up to a token with both and completes it. Both eras. A client without credentials
gets nowhere.

Usage: python python_auth.py <mcp-url> <issuer> [mode ...]   (default mode: 2026-07-28)
Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
"""

import asyncio
import sys
import traceback

from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
import mcp_types as types


class Memory:
    """Token storage for one run."""

    def __init__(self):
        self.tokens = None
        self.client_info = None
        self.scopes = []  # the scope of each token the client was issued, in order

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens
        self.scopes.append(tokens.scope)

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def on_elicit(ctx, params):
    return types.ElicitResult(action="accept", content={"confirm": True})


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def check(results, ok, label, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {label}{'' if ok else f': {detail}'}", flush=True)


async def authorized(url, issuer, mode, results):
    storage = Memory()
    provider = ClientCredentialsOAuthProvider(
        server_url=url, storage=storage, client_id="python-client", client_secret="s3cret", issuer=issuer,
    )
    transport = streamable_http_client(url, http_client=create_mcp_http_client(auth=provider))
    async with Client(transport, mode=mode, elicitation_callback=on_elicit) as client:
        me = text_of(await client.call_tool("whoami", {}))
        check(results, me == "python-client", f"[{mode}] whoami is the token's subject", f"got {me!r}")
        check(results, storage.scopes == ["mcp"], f"[{mode}] the first token has the challenge's scope", storage.scopes)
        names = [tool.name for tool in (await client.list_tools()).tools]
        check(results, names == ["whoami"], f"[{mode}] lists only what the token's scopes allow", f"got {names}")
        result = await client.call_tool("deploy", {"service": "api", "replicas": 2})
        got = text_of(result)
        want = "Deployed api x2 for python-client."
        check(results, got == want and not result.is_error, f"[{mode}] deploy steps up, asks, completes", f"got {got!r}")
        stepped = len(storage.scopes) == 2 and set(storage.scopes[1].split()) == {"mcp", "deploy:write"}
        check(results, stepped, f"[{mode}] the 403 named deploy:write and the client stepped up", storage.scopes)
        names = [tool.name for tool in (await client.list_tools()).tools]
        check(results, names == ["whoami", "deploy"], f"[{mode}] the stepped-up token lists deploy", f"got {names}")


async def anonymous(url, mode, results):
    try:
        async with Client(url, mode=mode) as client:
            await client.call_tool("whoami", {})
        check(results, False, f"[{mode}] a client without credentials is refused", "it was served")
    except Exception as e:  # the SDK surfaces our 401's JSON-RPC error, inside its task groups
        text = repr(e)
        check(results, "Authentication required" in text, f"[{mode}] a client without credentials is refused", text[:300])


async def main(url, issuer, modes):
    results = []
    for mode in modes:
        for run in (lambda: authorized(url, issuer, mode, results), lambda: anonymous(url, mode, results)):
            try:
                await run()
            except Exception:
                traceback.print_exc()
                check(results, False, f"[{mode}] crashed")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    url, issuer, *modes = sys.argv[1:]
    sys.exit(asyncio.run(main(url, issuer, modes or ["2026-07-28"])))
