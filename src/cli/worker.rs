//! `lectern worker`: the export workers without the HTTP service. Exports, thumbnails and the
//! cleanup of old files then take no CPU from the processes that serve requests (started
//! with `--export-workers 0`); any number of workers may share one PostgreSQL database
//! (jobs are leased) and one file store.

use std::sync::Arc;

use crate::cli::StorageOptions;
use crate::export::pdf::{PdfRenderer, find_chromium};
use crate::http::rate_limit::RateLimits;
use crate::server;
use crate::state::{AppShared, AppState};

/// Runs `--export-workers` workers (at least one) until SIGTERM or Ctrl-C.
pub async fn run(opts: &StorageOptions) -> anyhow::Result<()> {
    let store = opts.open_store().await?;
    // URLs the workers write (none today) would start with the servers' public URL.
    let core = opts.core(store, &opts.public_url_or_listen())?;
    let chromium = find_chromium(opts.chrome_path.as_deref());
    if chromium.is_none() {
        tracing::warn!(
            "Chromium not found: PDF and PowerPoint exports and thumbnails will fail until it is installed"
        );
    }
    let state = AppState::new(AppShared {
        core,
        export_wakeup: Default::default(),
        renderer: Arc::new(PdfRenderer::new(chromium).with_network(opts.render_network)),
        mcp: Default::default(),
        rate_limits: RateLimits::new(0, false),
        deck_bodies: Default::default(),
        metrics_token: None,
        timeouts: Default::default(),
    });
    server::spawn_export_workers(&state, opts.export_workers.max(1));
    println!("lectern: export worker running");
    tracing::info!(
        workers = opts.export_workers.max(1),
        "lectern worker is running"
    );
    crate::cli::serve::shutdown_signal().await;
    tracing::info!("lectern worker stopped");
    Ok(())
}
