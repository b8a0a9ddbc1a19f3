//! Black-box tests over real HTTP: each test spawns the real router on 127.0.0.1:0 with a
//! fresh SQLite database in a temporary directory, and calls it with reqwest.

mod common;

mod browser;
mod cli;
mod decks;
mod editor;
mod errors;
mod events;
mod exports;
mod faults;
mod home;
mod import;
mod mcp;
mod mcp_raw;
mod media;
mod migrate;
mod migrations;
mod multi_server;
mod notify;
mod oauth;
mod oauth_register;
mod object_store;
mod openapi;
mod rate_limit;
mod real_decks;
mod render_network;
mod rendering;
mod revisions;
mod security;
mod share_passwords;
mod shares;
mod signin;
mod slides;
mod story;
mod teams;
mod users;
mod viewer;
