use fastmcp::prelude::*;

struct NotSerde;

#[tool]
async fn input(value: NotSerde) -> String {
    let _ = value;
    String::new()
}

#[tool]
async fn output() -> u32 {
    1
}

#[prompt]
async fn prompt_arg(value: NotSerde) -> String {
    let _ = value;
    String::new()
}

#[resource("config://app")]
async fn no_return() {}

fn main() {}
