"""A foreign server for fastmcp's Rust client: Python `mcp` 2.3.0's MCPServer with a plain tool, a tool that
asks the user through a resolver (`Elicit`: a 2026-07-28 input_required round, or a legacy mid-call
`elicitation/create`), a resource and a prompt.

Usage: python python_server.py              (stdio)
       python python_server.py http PORT    (Streamable HTTP at http://127.0.0.1:PORT/mcp)
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
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
