//! Handlers declared inside a fn body (as in a test), with cfg'd and other attributes on the fn.
#![deny(warnings)]

use fastmcp::prelude::*;

fn main() {
    /// Declared in a block.
    #[tool]
    #[allow(clippy::needless_return)]
    #[cfg(not(any()))]
    async fn local(x: u8) -> String {
        return x.to_string();
    }

    #[tool]
    #[cfg(any())]
    async fn compiled_out(x: NotEvenAType) -> String {
        x
    }

    #[resource("mem://{key}")]
    #[must_use]
    async fn memory(key: String) -> String {
        key
    }

    let _server = FastMcp::new("pass").tool(local).resource(memory);
}
