//! `lectern admin migrate-data`: SQLite -> PostgreSQL -> SQLite keeps every row, and the
//! copied PostgreSQL database serves the same data. Runs in the PostgreSQL pass.

use lectern_core::Lectern;
use lectern_core::deck::NewDeck;
use lectern_core::oauth::{AuthorizeParams, ClientAuth};
use lectern_core::secret::Secret;
use lectern_core::service::{ImportFormat, NewUser};
use lectern_core::store::dump::{TABLES, summarize};
use serde_json::json;
use tokio::process::Command;

use crate::common::{PgDatabase, testing_postgres};

const BIN: &str = env!("CARGO_BIN_EXE_lectern");

async fn migrate(from: &str, to: &str) -> (bool, String, String) {
    let out = Command::new(BIN)
        .args(["admin", "migrate-data", "--from", from, "--to", to])
        .output()
        .await
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

async fn summaries(url: &str) -> Vec<lectern_core::store::dump::TableSummary> {
    let store = lectern::cli::storage::open_raw_store(url).await.unwrap();
    let mut out = Vec::new();
    for table in TABLES {
        out.push(summarize(
            table.name,
            &store.export_rows(table).await.unwrap(),
        ));
    }
    out
}

#[tokio::test]
async fn a_round_trip_through_postgres_keeps_every_row() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    // Arrange: a SQLite database with accounts, keys, a client, decks, groups, notes, trash.
    let dir = tempfile::tempdir().unwrap();
    let first = format!("sqlite://{}", dir.path().join("first.db").display());
    let back = format!("sqlite://{}", dir.path().join("back.db").display());
    let files = lectern::export::files::LocalFiles::new(dir.path().join("files")).unwrap();
    let core = Lectern::new(
        lectern::cli::storage::open_raw_store(&first).await.unwrap(),
        "http://x",
    )
    .with_files(std::sync::Arc::new(files));
    core.admin()
        .create_user(NewUser {
            username: "alice".into(),
            email: "a@example.org".into(),
            name: Some("Alice Ä".into()),
            password: Some(Secret::new("a long password")),
            team: Some("crew".into()),
        })
        .await
        .unwrap();
    let key = core
        .admin()
        .create_api_key("alice", "laptop")
        .await
        .unwrap();
    let tool = core
        .admin()
        .create_oauth_client("Tool", &["http://127.0.0.1/cb".to_string()], false)
        .await
        .unwrap();
    let md = "# Intro\n\nNote: hi\n---\n## A\n--\n## B\n";
    let grouped = core
        .admin()
        .import_deck("alice", md.into(), ImportFormat::Markdown)
        .await
        .unwrap()
        .deck;
    let caller = core.authenticate_bearer(key.expose()).await.unwrap();
    let png = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/red.png"
    ))
    .unwrap();
    core.upload_media(
        &caller,
        lectern_core::service::media::Upload {
            bytes: png,
            name: Some("red.png".into()),
        },
    )
    .await
    .unwrap();
    let body = json!({"title": "Margins", "margin": 0.125, "visibility": "all", "slides": [{"notes": "n"}, {}]});
    let plain = core
        .create_deck(&caller, NewDeck::from_json(Some(body)).unwrap())
        .await
        .unwrap();
    core.trash_deck(&caller, plain.meta.id.into())
        .await
        .unwrap();
    // A second deck of the same title: its slug comes from the owner's slug counter.
    let body = json!({"title": "Margins"});
    core.create_deck(&caller, NewDeck::from_json(Some(body)).unwrap())
        .await
        .unwrap();
    let share = lectern_core::service::shares::NewShare::from_json(Some(json!({
        "name": "board", "password": "pw", "expires_at": "2030-01-01T00:00:00Z", "notify_on_view": true
    })))
    .unwrap();
    core.create_deck_share(&caller, grouped.into(), share)
        .await
        .unwrap();
    // An export job, and the download-signing secret (made on the first link check).
    let export = lectern_core::service::exports::NewExport::from_json(Some(
        json!({"format": "pdf", "slide_notes": true}),
    ))
    .unwrap();
    core.create_deck_export(&caller, grouped.into(), export)
        .await
        .unwrap();
    core.check_download(1, i64::MAX / 2_000_000, "none")
        .await
        .unwrap();
    // A web session, and an OAuth code exchanged for a grant with tokens.
    core.sign_in(
        "alice",
        &Secret::new("a long password"),
        std::net::Ipv4Addr::LOCALHOST.into(),
    )
    .await
    .map_err(|e| format!("{e:?}"))
    .unwrap();
    let request = core
        .check_authorize(&AuthorizeParams {
            response_type: Some("code".into()),
            client_id: Some(tool.client_id.clone()),
            redirect_uri: Some("http://127.0.0.1/cb".into()),
            scope: Some("read manage".into()),
            ..AuthorizeParams::default()
        })
        .await
        .map_err(|e| format!("{e:?}"))
        .unwrap();
    let code = core.issue_code(caller.user_id, &request).await.unwrap();
    let auth = ClientAuth {
        client_id: tool.client_id.clone(),
        secret: tool.client_secret.as_ref().map(|s| Secret::new(s.expose())),
        basic: true,
    };
    core.exchange_code(&auth, code.expose(), Some("http://127.0.0.1/cb"), None)
        .await
        .unwrap();
    let pg = PgDatabase::create().await;

    // Act: SQLite -> PostgreSQL -> SQLite.
    let (ok, out, err) = migrate(&first, &pg.url).await;
    assert!(ok, "{err}");
    assert!(out.contains("migration verified"), "{out}");
    let (ok_again, _, err_again) = migrate(&first, &pg.url).await;
    let (ok_back, _, err_back) = migrate(&pg.url, &back).await;

    // Assert: the destination must be empty; every table comes back identical.
    assert!(!ok_again && err_again.contains("not empty"), "{err_again}");
    assert!(ok_back, "{err_back}");
    let original = summaries(&first).await;
    assert_eq!(original, summaries(&pg.url).await);
    assert_eq!(original, summaries(&back).await);
    assert!(original.iter().all(|s| s.rows > 0), "{original:?}");

    // The PostgreSQL copy serves the data, and new rows get fresh ids.
    let pg_core = Lectern::new(
        lectern::cli::storage::open_store(&pg.url).await.unwrap(),
        "http://x",
    );
    let caller = pg_core.authenticate_bearer(key.expose()).await.unwrap();
    let deck = pg_core
        .get_deck(&caller, grouped.into(), true)
        .await
        .unwrap();
    assert!(deck.deck_html.unwrap().contains("<section><section"));
    let fresh = pg_core
        .create_deck(&caller, NewDeck::from_json(None).unwrap())
        .await
        .unwrap();
    assert!(fresh.meta.id > plain.meta.id);
    assert_eq!(
        pg_core
            .list_trashed_decks(
                &caller,
                lectern_core::params::Paging {
                    page: 1,
                    per_page: 20
                }
            )
            .await
            .unwrap()
            .items
            .len(),
        1
    );
}

#[tokio::test]
async fn a_row_with_a_nul_is_reported_before_anything_is_copied_and_a_rerun_succeeds_once_fixed() {
    if !testing_postgres() {
        eprintln!("skipped: runs in the PostgreSQL pass (LECTERN_TEST_BACKEND=postgres)");
        return;
    }
    // Arrange: old data, written before NUL was refused: a deck title holding one.
    let dir = tempfile::tempdir().unwrap();
    let source = format!("sqlite://{}", dir.path().join("old.db").display());
    let core = Lectern::new(
        lectern::cli::storage::open_raw_store(&source)
            .await
            .unwrap(),
        "http://x",
    );
    core.admin()
        .create_user(NewUser {
            username: "nul".into(),
            email: "nul@example.org".into(),
            name: None,
            password: None,
            team: None,
        })
        .await
        .unwrap();
    let deck = core
        .admin()
        .import_deck("nul", "# A slide".into(), ImportFormat::Markdown)
        .await
        .unwrap()
        .deck;
    let sqlite = sqlx::SqlitePool::connect(&source).await.unwrap();
    sqlx::query("UPDATE decks SET title = 'bad' || char(0) || 'title' WHERE id = $1")
        .bind(deck)
        .execute(&sqlite)
        .await
        .unwrap();
    let pg = PgDatabase::create().await;

    // Act / Assert: refused, naming the row, and nothing copied.
    let (ok, _, err) = migrate(&source, &pg.url).await;
    assert!(!ok);
    assert!(
        err.contains(&format!("table decks row id={deck}")) && err.contains("column title"),
        "{err}"
    );
    let copied = summaries(&pg.url).await;
    assert!(copied.iter().all(|t| t.rows == 0), "{copied:?}");

    // Fixed, the same command runs through.
    sqlx::query("UPDATE decks SET title = 'good title' WHERE id = $1")
        .bind(deck)
        .execute(&sqlite)
        .await
        .unwrap();
    let (ok, _, err) = migrate(&source, &pg.url).await;
    assert!(ok, "{err}");
    assert_eq!(summaries(&pg.url).await, summaries(&source).await);
}
