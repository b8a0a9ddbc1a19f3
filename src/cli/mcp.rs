//! `lectern mcp`: the MCP tools on standard input/output for one account (its API key), over
//! the same storage options as the other commands. stdout carries only MCP messages; logs go
//! to stderr. An export worker runs in the process, so exports complete without a server
//! (their download links point at the public URL, served by `lectern serve` on the same data).

use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use lectern_core::auth::Resource;
use lectern_core::secret::Secret;
use rmcp::ServiceExt;

use crate::cli::StorageOptions;
use crate::export::pdf::{PdfRenderer, find_chromium};
use crate::http::rate_limit::RateLimits;
use crate::mcp::LecternMcp;
use crate::server;
use crate::state::{AppShared, AppState};

/// Options of `lectern mcp`.
#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// The API key of the account the tools act for.
    #[arg(long, env = "LECTERN_API_KEY", hide_env_values = true)]
    pub api_key: String,
}

/// Serves MCP on stdio until the client closes it.
pub async fn run(opts: &StorageOptions, args: &McpArgs) -> anyhow::Result<()> {
    let store = opts.open_store().await?;
    let core = opts.core(store, &opts.public_url_or_listen())?;
    let key = Secret::new(args.api_key.trim());
    let caller = core
        .authenticate_bearer_for(key.expose(), Resource::Mcp)
        .await
        .map_err(|e| anyhow::anyhow!("the API key was refused: {e}"))?;
    tracing::info!(user.id = caller.user_id, "lectern mcp: serving on stdio");
    let state = AppState::new(AppShared {
        core: core.clone(),
        export_wakeup: Default::default(),
        renderer: Arc::new(
            PdfRenderer::new(find_chromium(opts.chrome_path.as_deref()))
                .with_network(opts.render_network),
        ),
        mcp: Default::default(),
        // One process for one account: its own counts (not shared with servers).
        rate_limits: RateLimits::new(opts.rate_limit, false),
        deck_bodies: Default::default(),
        metrics_token: None,
        timeouts: Default::default(),
    });
    server::spawn_export_workers(&state, 1);
    let handler = LecternMcp::for_api_key(
        core,
        state.export_wakeup.clone(),
        state.renderer.clone(),
        key,
        state.rate_limits.clone(),
    );
    let running = handler
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP session could not start")?;
    running.waiting().await.context("the MCP session failed")?;
    tracing::info!("lectern mcp: the client closed the session");
    Ok(())
}
