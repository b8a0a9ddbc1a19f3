//! The `lectern` binary's library: adapters and wiring only (CLI, router, HTTP plumbing,
//! REST handlers, web pages, MCP tools). Business rules and storage live in `crates/`.

pub mod api;
pub mod cli;
pub mod export;
pub mod http;
pub mod mcp;
pub mod notify;
pub mod oauth;
pub mod render;
pub mod router;
pub mod server;
pub mod state;
pub mod web;

/// mimalloc instead of glibc's malloc: under load glibc's arenas contend on their locks (seen
/// in a profile of `get_deck`; lectern-bench measures the difference). Every binary linking
/// this library (the server, the benchmark's server, the tests) uses it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
