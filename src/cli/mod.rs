//! The `lectern` command line of the operating contract: `serve`, `mcp` and the `admin` commands,
//! all sharing the storage options (so admin commands work on a running server's data).

pub mod admin;
pub mod log;
pub mod mcp;
pub mod serve;
pub mod storage;
pub mod worker;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use storage::StorageOptions;

/// Lectern: a self-hostable presentation-deck service.
#[derive(Debug, Parser)]
#[command(name = "lectern", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub storage: StorageOptions,
    #[command(subcommand)]
    pub command: Command,
}

/// What to run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (REST API, web pages, MCP on /mcp).
    Serve,
    /// Run the MCP server on stdin/stdout for one account (its API key).
    Mcp(mcp::McpArgs),
    /// Run export workers only (exports, thumbnails, file cleanup), no HTTP: beside servers
    /// started with `--export-workers 0`, on the same database and file store.
    Worker,
    /// Manage accounts, API keys and OAuth clients.
    #[command(subcommand)]
    Admin(admin::AdminCommand),
}

/// Parses the command line and runs it.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    log::init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Serve => serve::run(&cli.storage).await,
            Command::Mcp(args) => mcp::run(&cli.storage, &args).await,
            Command::Worker => worker::run(&cli.storage).await,
            Command::Admin(cmd) => admin::run(&cli.storage, cmd).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
