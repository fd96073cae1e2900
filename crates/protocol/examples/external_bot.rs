//! The smallest external bot in Rust: answers `hello` with `ready` and every
//! `decide` with the first legal choice (`{"index":0}`). No JSON parsing needed.
//!
//! ```text
//! cargo build --release -p koth-protocol --example external_bot
//! koth run --bot first=cmd:target/release/examples/external_bot --bot h=builtin:honest
//! ```
use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let reply = if line.starts_with(r#"{"type":"hello""#) {
            r#"{"type":"ready","name":"first legal"}"#
        } else if line.starts_with(r#"{"type":"decide""#) {
            r#"{"index":0}"#
        } else {
            continue;
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
