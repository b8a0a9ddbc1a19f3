//! `lectern serve`: open storage, bootstrap the first account, bind, serve until SIGTERM or
//! Ctrl-C, then drain in-flight requests.

use anyhow::Context;
use lectern_core::Lectern;
use tokio::net::TcpListener;

use crate::cli::StorageOptions;
use crate::export::pdf::{PdfRenderer, find_chromium};
use crate::http::rate_limit::{self, RateLimits};
use crate::mcp::McpOptions;
use crate::notify::SmtpNotifier;
use crate::server;
use crate::state::{AppShared, AppState};

/// Runs the HTTP service.
pub async fn run(opts: &StorageOptions) -> anyhow::Result<()> {
    // Held until `run` returns: one server per SQLite database.
    let _serving = opts.lock_for_serving()?;
    let store = opts.open_store().await?;
    let listener = TcpListener::bind(&opts.listen)
        .await
        .with_context(|| format!("cannot listen on {}", opts.listen))?;
    let bound = listener.local_addr()?;
    let public_url = opts.public_url_for(bound)?;
    let mut core = opts.core(store, &public_url)?;
    if let Some(url) = &opts.smtp_url {
        core = core.with_notifier(std::sync::Arc::new(SmtpNotifier::new(
            url,
            &opts.smtp_from,
        )?));
    }
    if let Some(boot) = core
        .admin()
        .bootstrap()
        .await
        .map_err(|e| anyhow::anyhow!("creating the first account failed: {e}"))?
    {
        println!(
            "Lectern: first start, created the account '{}'.",
            boot.username
        );
        println!("  password: {}", boot.password.expose());
        println!("  API key:  {}", boot.api_key.expose());
        println!("  web:      {public_url}/login");
        println!("These are shown only once.");
    }
    println!("lectern: listening on http://{bound} (public URL {public_url})");
    tracing::info!(listen = %bound, public_url = %public_url, "lectern is serving");
    let chromium = find_chromium(opts.chrome_path.as_deref());
    if chromium.is_none() {
        tracing::warn!(
            "Chromium not found: PDF exports will fail until it is installed (apt-get install chromium) or --chrome-path is given"
        );
    }
    // Several servers on one PostgreSQL database share their rate-limit counts.
    let rate_limits = RateLimits::new(opts.rate_limit, core.shares_rate_limits());
    if rate_limits.enabled() {
        tokio::spawn(rate_limit::run_sync(rate_limits.clone(), core.clone()));
    }
    let state = AppState::new(AppShared {
        core,
        export_wakeup: Default::default(),
        renderer: std::sync::Arc::new(PdfRenderer::new(chromium).with_network(opts.render_network)),
        mcp: McpOptions::from_env(bound, &public_url)?,
        rate_limits,
        deck_bodies: Default::default(),
        metrics_token: opts
            .metrics_token
            .clone()
            .map(lectern_core::secret::Secret::new),
        timeouts: Default::default(),
    });
    server::spawn_export_workers(&state, opts.export_workers);
    tokio::spawn(prune_history(state.core.clone(), opts.history_days));
    server::serve(listener, state, shutdown_signal()).await?;
    tracing::info!("lectern stopped");
    Ok(())
}

/// Forgets deck revisions older than `--history-days` once an hour (each deck's newest 50
/// stay).
async fn prune_history(core: Lectern, days: u32) {
    if days == 0 {
        return;
    }
    loop {
        match core.worker().prune_history(days).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                revisions = n,
                "forgot revisions older than the kept history"
            ),
            Err(e) => tracing::warn!(error = %e, "pruning the deck history failed"),
        }
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    }
}

/// Completes on Ctrl-C or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
