//! `lectern admin ...`: account, key and OAuth client management over the same core the
//! server uses. Each command prints only its result on stdout.

use clap::Subcommand;
use lectern_core::Lectern;
use lectern_core::secret::Secret;
use lectern_core::service::ImportFormat;
use lectern_core::service::NewUser;

use lectern_core::store::dump;

use crate::cli::{StorageOptions, storage};
use crate::export::files::FileStore;

/// Admin commands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create an account; prints its id.
    CreateUser {
        #[arg(long)]
        username: String,
        #[arg(long)]
        email: String,
        /// Display name (default: the username).
        #[arg(long)]
        name: Option<String>,
        /// Web sign-in password (at least 8 characters); without it the account cannot sign
        /// in on the web.
        #[arg(long)]
        password: Option<String>,
        /// Team slug: the team is created when missing and the account joins it.
        #[arg(long)]
        team: Option<String>,
    },
    /// Put an account into a team (created when missing).
    AddToTeam {
        #[arg(long)]
        username: String,
        /// Team slug.
        #[arg(long)]
        team: String,
    },
    /// Take an account out of its team; it loses access to the team's decks at once.
    RemoveFromTeam {
        #[arg(long)]
        username: String,
    },
    /// Create an API key for an account; prints the key (shown only this once).
    CreateApiKey {
        #[arg(long)]
        username: String,
        #[arg(long, default_value = "")]
        label: String,
    },
    /// Create a deck from a reveal.js HTML document, a Markdown file or a ZIP of a
    /// presentation folder; prints its id (and what the import dropped, on stderr).
    ImportDeck {
        #[arg(long)]
        username: String,
        /// The file to import (`.html`/`.htm` as reveal.js HTML, `.md` as Markdown, anything
        /// else by content: a ZIP, HTML or Markdown).
        file: std::path::PathBuf,
    },
    /// Copy all data from one database into an empty one (SQLite <-> PostgreSQL), then
    /// compare row counts and checksums of every table.
    MigrateData {
        /// Source database URL (`sqlite://...` or `postgres://...`).
        #[arg(long)]
        from: String,
        /// Destination database URL; it must hold no data yet.
        #[arg(long)]
        to: String,
    },
    /// Copy the files of the local directory (`<data dir>/exports`: export files,
    /// thumbnails, uploaded media) into the `--file-store` bucket, each checked by reading
    /// it back; prints how many were copied. Run it before starting servers on the bucket.
    MigrateFiles,
    /// Register an OAuth client; prints {"client_id", "client_secret"} as JSON.
    CreateOauthClient {
        #[arg(long)]
        name: String,
        /// Allowed redirect URI (repeat for several).
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
        /// A public client (no secret; PKCE required).
        #[arg(long)]
        public: bool,
    },
}

/// Runs one admin command.
pub async fn run(opts: &StorageOptions, cmd: AdminCommand) -> anyhow::Result<()> {
    if let AdminCommand::MigrateData { from, to } = &cmd {
        return migrate_data(from, to).await;
    }
    if let AdminCommand::MigrateFiles = &cmd {
        return migrate_files(opts).await;
    }
    let core = Lectern::new(opts.open_store().await?, &opts.public_url_or_listen());
    match cmd {
        AdminCommand::CreateUser {
            username,
            email,
            name,
            password,
            team,
        } => {
            let id = core
                .admin()
                .create_user(NewUser {
                    username,
                    email,
                    name,
                    password: password.map(Secret::new),
                    team,
                })
                .await?;
            println!("{id}");
        }
        AdminCommand::CreateApiKey { username, label } => {
            let key = core.admin().create_api_key(&username, &label).await?;
            println!("{}", key.expose());
        }
        AdminCommand::ImportDeck { username, file } => {
            let bytes = std::fs::read(&file)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
            let format = match file.extension().and_then(|e| e.to_str()) {
                Some("html" | "htm") => ImportFormat::Html,
                Some("md" | "markdown") => ImportFormat::Markdown,
                _ => ImportFormat::Guess,
            };
            let imported = core
                .admin()
                .import_deck(&username, bytes, format)
                .await
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            println!("{}", imported.deck);
            for what in imported.dropped {
                eprintln!("dropped: {what}");
            }
        }
        AdminCommand::AddToTeam { username, team } => {
            core.admin().add_to_team(&username, &team).await?
        }
        AdminCommand::RemoveFromTeam { username } => {
            core.admin().remove_from_team(&username).await?
        }
        AdminCommand::MigrateData { .. } | AdminCommand::MigrateFiles => {
            unreachable!("handled before the store opens")
        }
        AdminCommand::CreateOauthClient {
            name,
            redirect_uris,
            public,
        } => {
            let client = core
                .admin()
                .create_oauth_client(&name, &redirect_uris, public)
                .await?;
            let out = serde_json::json!({
                "client_id": client.client_id,
                "client_secret": client.client_secret.as_ref().map(|s| s.expose()),
            });
            println!("{out}");
        }
    }
    Ok(())
}

/// `admin migrate-data`: copies every table and prints each one's rows and checksum.
async fn migrate_data(from: &str, to: &str) -> anyhow::Result<()> {
    let source = storage::open_raw_store(from).await?;
    let destination = storage::open_raw_store(to).await?;
    let summaries = dump::migrate(source.as_ref(), destination.as_ref()).await?;
    let mut total = 0;
    for s in &summaries {
        println!("{:<14} {:>9} rows  sha256 {}", s.table, s.rows, s.checksum);
        total += s.rows;
    }
    println!(
        "migration verified: {} tables, {total} rows, counts and checksums equal on both sides",
        summaries.len()
    );
    Ok(())
}

/// `admin migrate-files`: every file of the local directory into the configured bucket.
async fn migrate_files(opts: &StorageOptions) -> anyhow::Result<()> {
    if opts.file_store == "local" {
        anyhow::bail!(
            "migrate-files copies into an object store: pass --file-store s3://bucket[/prefix]"
        );
    }
    let local = opts.local_files()?;
    let bucket = opts.files()?;
    let keys = local.keys()?;
    for key in &keys {
        let bytes = local
            .get(key)
            .await?
            .ok_or_else(|| anyhow::anyhow!("{key} went away while copying"))?;
        bucket.put(key, bytes.clone()).await?;
        if bucket.get(key).await?.as_deref() != Some(bytes.as_slice()) {
            anyhow::bail!("{key} did not read back the same from the bucket");
        }
    }
    println!("{}", keys.len());
    Ok(())
}
