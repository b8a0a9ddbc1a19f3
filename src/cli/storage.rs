//! The options every command shares, and opening the store they describe.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use lectern_core::Lectern;
use lectern_core::store::Store;
use lectern_core::store::cache::CachedStore;

use crate::export::files::{FileStore, LocalFiles, ObjectFiles};
use crate::export::network::RenderNetwork;

/// Where the service listens and keeps its data (contract: "Every command takes the same
/// storage options").
#[derive(Debug, Clone, Args)]
pub struct StorageOptions {
    /// Address to listen on.
    #[arg(
        long,
        env = "LECTERN_LISTEN",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub listen: String,

    /// Directory for the SQLite database and export files.
    #[arg(
        long,
        env = "LECTERN_DATA_DIR",
        default_value = "./lectern-data",
        global = true
    )]
    pub data_dir: PathBuf,

    /// Database URL: `sqlite://PATH`, or `postgres://...` for PostgreSQL. Default: the
    /// SQLite file `lectern.db` inside the data dir.
    #[arg(
        long,
        env = "LECTERN_DATABASE_URL",
        global = true,
        hide_env_values = true
    )]
    pub database_url: Option<String>,

    /// Public URL every returned URL starts with. Default: `http://` + the listen address.
    #[arg(long, env = "LECTERN_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,

    /// SMTP relay for first-view notifications of share links, e.g.
    /// `smtps://user:pass@smtp.example.org:465`; without it they are only logged.
    #[arg(long, env = "LECTERN_SMTP_URL", global = true, hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// Sender of notification e-mail.
    #[arg(
        long,
        env = "LECTERN_SMTP_FROM",
        default_value = "Lectern <lectern@localhost>",
        global = true
    )]
    pub smtp_from: String,

    /// Chromium for PDF exports (default: Debian's chromium or one on PATH).
    #[arg(long, env = "LECTERN_CHROME", global = true)]
    pub chrome_path: Option<PathBuf>,

    /// What slides may make the export renderer (PDFs, thumbnails, slide screenshots) load
    /// from the network: `public` internet addresses only (never this server's loopback,
    /// private or link-local networks), `none`, or `any` (everything, the server's own
    /// networks included: only for closed networks whose images live on internal servers).
    /// Also the rule for `upload_image`'s `source_url`.
    #[arg(
        long,
        env = "LECTERN_RENDER_NETWORK",
        value_enum,
        default_value_t = RenderNetwork::Public,
        global = true
    )]
    pub render_network: RenderNetwork,

    /// Requests per minute per credential (API key or OAuth token; the client address for
    /// requests without one); `0` turns limiting off.
    #[arg(long, env = "LECTERN_RATE_LIMIT", default_value_t = DEFAULT_RATE_LIMIT, global = true)]
    pub rate_limit: u32,

    /// Days a deck's revisions are kept (the newest 50 of each deck are always kept); `0`
    /// keeps them forever.
    #[arg(long, env = "LECTERN_HISTORY_DAYS", default_value_t = lectern_core::revision::DEFAULT_HISTORY_DAYS, global = true)]
    pub history_days: u32,

    /// Where export files, thumbnails and uploaded media live: `local` (`<data dir>/exports`)
    /// or an S3-compatible bucket, `s3://bucket[/prefix]`, which several servers on one
    /// PostgreSQL database share. The endpoint, region and credentials come from the usual
    /// `AWS_*` variables (`AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_ALLOW_HTTP`).
    #[arg(
        long,
        env = "LECTERN_FILE_STORE",
        default_value = "local",
        global = true
    )]
    pub file_store: String,

    /// Export workers `lectern serve` runs (each also draws thumbnails and cleans up old
    /// files). `0` keeps that work out of the serving process: run `lectern worker` (on
    /// the same database and file store) to do it.
    #[arg(
        long,
        env = "LECTERN_EXPORT_WORKERS",
        default_value_t = 1,
        global = true
    )]
    pub export_workers: usize,

    /// A token that `GET /metrics` requires (`Authorization: Bearer <token>`); without one,
    /// `/metrics` answers anyone who reaches the server.
    #[arg(
        long,
        env = "LECTERN_METRICS_TOKEN",
        global = true,
        hide_env_values = true
    )]
    pub metrics_token: Option<String>,

    /// Most MiB of uploaded media one account may keep (413 above it).
    #[arg(long, env = "LECTERN_MEDIA_QUOTA_MB", default_value_t = lectern_core::service::media::DEFAULT_QUOTA_MB, global = true)]
    pub media_quota_mb: u64,
}

/// Requests per minute per credential unless `--rate-limit` says otherwise: generous for
/// scripts and assistants (50 a second on average, bursts of 3,000), a wall for floods.
pub const DEFAULT_RATE_LIMIT: u32 = 3000;

impl StorageOptions {
    /// The public URL for a server bound to `bound` (used when `--public-url` is not set).
    pub fn public_url_for(&self, bound: std::net::SocketAddr) -> anyhow::Result<String> {
        match &self.public_url {
            Some(url) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    bail!("--public-url must start with http:// or https://, got {url:?}");
                }
                Ok(url.trim_end_matches('/').to_string())
            }
            None => Ok(format!("http://{bound}")),
        }
    }

    /// The public URL when no server is bound (admin commands).
    pub fn public_url_or_listen(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
    }

    /// The core over `store` at `public_url`, keeping files (exports, thumbnails, media) in
    /// the file store, with the media quota.
    pub fn core(&self, store: Arc<dyn Store>, public_url: &str) -> anyhow::Result<Lectern> {
        Ok(Lectern::new(store, public_url)
            .with_files(self.files()?)
            .with_media_quota_mb(self.media_quota_mb))
    }

    /// The local file directory, `<data dir>/exports`.
    pub fn local_files(&self) -> anyhow::Result<LocalFiles> {
        let dir = self.data_dir.join("exports");
        LocalFiles::new(dir.clone()).with_context(|| format!("cannot create {}", dir.display()))
    }

    /// The configured file store (`--file-store`).
    pub fn files(&self) -> anyhow::Result<Arc<dyn FileStore>> {
        Ok(match self.file_store.as_str() {
            "local" => Arc::new(self.local_files()?),
            url if url.starts_with("s3://") => Arc::new(ObjectFiles::s3(url)?),
            other => bail!("--file-store must be local or s3://bucket[/prefix], got {other:?}"),
        })
    }

    /// The SQLite database file these options name; `None` on PostgreSQL (and for an
    /// in-memory database).
    pub fn sqlite_path(&self) -> Option<PathBuf> {
        match &self.database_url {
            None => Some(self.data_dir.join("lectern.db")),
            Some(url) => {
                let rest = url.strip_prefix("sqlite:")?;
                let rest = rest.strip_prefix("//").unwrap_or(rest);
                let path = rest.split('?').next().unwrap_or(rest);
                (!path.is_empty() && path != ":memory:").then(|| PathBuf::from(path))
            }
        }
    }

    /// Takes the serving lock of the SQLite database (`<database>.lock`, beside it: in the
    /// data dir by default), held until the returned file is dropped, i.e. for the life of
    /// `serve`. A second server on the same SQLite data would keep caches the first one's
    /// writes do not reach in time and serve stale reads, so it is refused with the reason.
    /// Admin commands, `lectern mcp` and `lectern worker` do not take it: the contract runs
    /// them beside a server. Nothing to lock on PostgreSQL, which any number of servers share.
    pub fn lock_for_serving(&self) -> anyhow::Result<Option<std::fs::File>> {
        let Some(db) = self.sqlite_path() else {
            return Ok(None);
        };
        if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the data dir {}", dir.display()))?;
        }
        let mut name = db.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let path = db.with_file_name(name);
        // Not truncated on open: the holder's pid stays readable until the lock is ours.
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = std::io::Read::read_to_string(&mut file, &mut holder);
                let holder = holder.trim();
                let pid = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                };
                bail!(
                    "another lectern server{pid} is already serving the SQLite database {} \
                     (lock file {}); two servers on one SQLite database would answer stale \
                     reads. Stop the other server first, or use PostgreSQL \
                     (--database-url postgres://...) to run several servers",
                    db.display(),
                    path.display()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        file.set_len(0)?;
        std::io::Write::write_all(&mut file, format!("{}\n", std::process::id()).as_bytes())?;
        Ok(Some(file))
    }

    /// Opens the configured store, creating the data dir and running migrations.
    pub async fn open_store(&self) -> anyhow::Result<Arc<dyn Store>> {
        let url = match &self.database_url {
            Some(url) => url.clone(),
            None => {
                std::fs::create_dir_all(&self.data_dir).with_context(|| {
                    format!("cannot create the data dir {}", self.data_dir.display())
                })?;
                format!("sqlite://{}", self.data_dir.join("lectern.db").display())
            }
        };
        open_store(&url).await
    }
}

/// Opens the store behind `url` with nothing in front of it (for whole-database copies).
pub async fn open_raw_store(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    if url.starts_with("sqlite:") {
        let store = lectern_store_sqlite::open(url)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the SQLite database {url}: {e}"))?;
        Ok(Arc::new(store))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let store = lectern_store_postgres::open(url)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the PostgreSQL database: {e}"))?;
        Ok(Arc::new(store))
    } else {
        bail!("unsupported database URL scheme: expected sqlite:// or postgres://")
    }
}

/// How often the SQLite change watcher looks for commits made by other connections.
const CHANGE_POLL: Duration = Duration::from_millis(10);

/// Opens the store behind `url` (the scheme picks the backend) with the hot-path cache in
/// front of it, kept coherent by the backend's change watcher (SQLite polls its
/// data version, PostgreSQL listens for the change notices of every server).
pub async fn open_store(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    if url.starts_with("sqlite:") {
        let sqlite = lectern_store_sqlite::open(url)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the SQLite database: {e}"))?;
        let cached = Arc::new(CachedStore::new(Arc::new(sqlite.clone())));
        let weak = Arc::downgrade(&cached);
        lectern_store_sqlite::watch_changes(url, CHANGE_POLL, move || {
            if let Some(cache) = weak.upgrade() {
                cache.invalidate_all();
            }
        })
        .await
        .map_err(|e| anyhow::anyhow!("cannot watch the SQLite database: {e}"))?;
        Ok(cached)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        // Several servers may write this database: the cache forgets what the others change
        // when PostgreSQL announces it, and is bypassed while the announcements cannot be
        // heard.
        let pg = lectern_store_postgres::open(url)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the PostgreSQL database: {e}"))?;
        let cached = Arc::new(CachedStore::new(Arc::new(pg)));
        cached.set_live(false);
        let (notices, live) = (Arc::downgrade(&cached), Arc::downgrade(&cached));
        let messages = Arc::downgrade(&cached);
        let fence = lectern_store_postgres::watch_changes(
            url,
            move |payload| {
                if let Some(cache) = notices.upgrade() {
                    cache.apply_notice(payload);
                }
            },
            move |payload| {
                if let Some(cache) = messages.upgrade() {
                    cache.apply_message(payload);
                }
            },
            move |is_live| {
                if let Some(cache) = live.upgrade() {
                    cache.set_live(is_live);
                }
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for PostgreSQL change notices: {e}"))?;
        cached.set_fence(Arc::new(fence));
        Ok(cached)
    } else {
        bail!("unsupported database URL scheme: expected sqlite:// or postgres://")
    }
}
