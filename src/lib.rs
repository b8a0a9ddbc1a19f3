//! The `lectern` binary's library: adapters and wiring only (CLI, router, HTTP plumbing,
//! REST handlers, web pages, MCP tools). Business rules and storage live in `crates/`.

pub mod api;
pub mod app;
pub mod cli;
pub mod export;
pub mod http;
pub mod mcp;
pub mod notify;
pub mod oauth;
pub mod router;
pub mod web;
