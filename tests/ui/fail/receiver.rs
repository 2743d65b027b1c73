use fastmcp::prelude::*;

struct Server;

impl Server {
    #[tool]
    async fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {
    let _ = Server.greet(String::new());
}
