"""A foreign server for fastmcp's Rust client: Python `mcp` 2.3.0's MCPServer with a plain tool, a tool that
asks the user through a resolver (`Elicit`: a 2026-07-28 input_required round, or a legacy mid-call
`elicitation/create`), a resource and a prompt.

Usage: python python_server.py              (stdio)
       python python_server.py http         (Streamable HTTP at http://127.0.0.1:PORT/mcp, on a free port
                                             it binds itself and prints on stdout once it listens)
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

server = MCPServer("python-foreign")


class Confirm(BaseModel):
    confirm: bool


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def ask(service: str) -> Elicit[Confirm]:
    return Elicit(f"Ship {service}?", Confirm)


@server.tool()
def ship(service: str, answer: Annotated[Confirm, Resolve(ask)]) -> str:
    """Ship a service once the user confirms."""
    return f"shipped {service}" if answer.confirm else f"kept {service}"


@server.resource("python://motto")
def motto() -> str:
    return "batteries included"


@server.prompt()
def haiku(topic: str) -> str:
    """A haiku about a topic."""
    return f"Write a haiku about {topic}."


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        # MCPServer.run("streamable-http") takes a port number only. Bound here, the port is never free
        # between choosing it and serving on it, so no other process can take it meanwhile.
        import socket

        import anyio
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        print(sock.getsockname()[1], flush=True)
        config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1"), log_level="warning")
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    else:
        server.run()
