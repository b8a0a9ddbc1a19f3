//! Exports (interface 2.11, 3.2, 4.6): the request rules, the answers, and signed download
//! links. The work itself (ZIP and PDF) is done by the workers of `lectern serve`.
//!
//! A download link is `<public-url>/exports/<id>/download?expires=<unix>&signature=<hex>`
//! where the signature is HMAC-SHA256 over the export id and expiry with a server-wide secret
//! kept in the database (so every server can check it). Links live one hour.

use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::auth::{Caller, Scope};
use crate::deck::Fields;
use crate::ids::{DeckId, ExportId};
use crate::secret;
use crate::service::Lectern;
use crate::store::ExportRecord;
use crate::time::Timestamp;
use crate::{Error, Result};

/// How long a download link works, in seconds.
pub const DOWNLOAD_URL_SECONDS: i64 = 3600;
/// What `create_deck_export` tells clients to wait before polling, in seconds.
pub const POLL_AFTER_SECONDS: i64 = 2;
/// Export jobs of one account (deck owner) in flight at once, over all workers and servers:
/// one account's queue of exports leaves the other workers to everyone else.
pub const EXPORTS_IN_FLIGHT_PER_ACCOUNT: i64 = 1;

/// The options of an export, as stored with the job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExportOptions {
    /// PDF only: the viewport margin (0..0.2).
    pub margin: f64,
    pub slide_number: bool,
    pub slide_notes: bool,
    pub separate_fragments: bool,
}

/// A validated `create_deck_export` body.
#[derive(Debug, Clone, PartialEq)]
pub struct NewExport {
    /// `pdf`, `zip` or `pptx` (an extension of the interface: PowerPoint).
    pub format: &'static str,
    pub options: ExportOptions,
}

fn flag(fields: &mut Fields, key: &str) -> Result<Option<bool>> {
    match fields.take(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(_) => Err(Error::invalid(format!("{key} must be true or false"))),
    }
}

impl NewExport {
    /// Parses the required body: `format` (`pdf`, `zip` or `pptx`) and, for PDF only,
    /// `margin` (0..0.2), `slide_number`, `slide_notes`, `separate_fragments`. Sending a PDF
    /// option with `zip` or `pptx` answers 422.
    pub fn from_json(body: Option<Value>) -> Result<Self> {
        let Some(body) = body else {
            return Err(Error::invalid(
                "a JSON body with format (pdf, zip or pptx) is required",
            ));
        };
        let mut fields = Fields::new(Some(body), "request body")?;
        fields.reject_unknown(|k| {
            matches!(
                k,
                "format" | "margin" | "slide_number" | "slide_notes" | "separate_fragments"
            )
        })?;
        let format = match fields.take("format") {
            Some(Value::String(f)) if f == "pdf" => "pdf",
            Some(Value::String(f)) if f == "zip" => "zip",
            Some(Value::String(f)) if f == "pptx" => "pptx",
            None | Some(Value::Null) => {
                return Err(Error::invalid("format is required: pdf, zip or pptx"));
            }
            Some(_) => return Err(Error::invalid("format must be pdf, zip or pptx")),
        };
        let margin = match fields.take("margin") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(m) if (0.0..=0.2).contains(&m) => Some(m),
                _ => return Err(Error::invalid("margin must be a number from 0 to 0.2")),
            },
            Some(_) => return Err(Error::invalid("margin must be a number from 0 to 0.2")),
        };
        let slide_number = flag(&mut fields, "slide_number")?;
        let slide_notes = flag(&mut fields, "slide_notes")?;
        let separate_fragments = flag(&mut fields, "separate_fragments")?;
        if format != "pdf"
            && (margin.is_some()
                || slide_number.is_some()
                || slide_notes.is_some()
                || separate_fragments.is_some())
        {
            return Err(Error::invalid(
                "margin, slide_number, slide_notes and separate_fragments apply to pdf exports only",
            ));
        }
        Ok(NewExport {
            format,
            options: ExportOptions {
                margin: margin.unwrap_or(0.0),
                slide_number: slide_number.unwrap_or(false),
                slide_notes: slide_notes.unwrap_or(false),
                separate_fragments: separate_fragments.unwrap_or(false),
            },
        })
    }
}

/// An export (2.11); `error` says why a failed one failed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExportView {
    pub id: i64,
    pub deck_id: i64,
    pub format: String,
    pub status: String,
    pub created_at: Timestamp,
    pub completed_at: Option<Timestamp>,
    pub download_url: Option<String>,
    pub download_url_expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

fn signature(key: &str, export_id: i64, expires: i64) -> String {
    let mut mac =
        HmacSha256::new_from_slice(key.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(format!("export:{export_id}:{expires}").as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Lectern {
    async fn download_key(&self) -> Result<String> {
        self.store()
            .server_secret(
                "download-signing-key",
                &secret::random_alphanumeric(64),
                Timestamp::now(),
            )
            .await
    }

    async fn export_view(&self, e: ExportRecord) -> Result<ExportView> {
        let (download_url, download_url_expires_at) = if e.status == "completed" {
            let expires = Timestamp::now().unix_micros() / 1_000_000 + DOWNLOAD_URL_SECONDS;
            let sig = signature(&self.download_key().await?, e.id, expires);
            (
                Some(format!(
                    "{}/exports/{}/download?expires={expires}&signature={sig}",
                    self.public_url(),
                    e.id
                )),
                Some(Timestamp::from_unix_micros(expires * 1_000_000)),
            )
        } else {
            (None, None)
        };
        Ok(ExportView {
            id: e.id,
            deck_id: e.deck_id,
            format: e.format,
            status: e.status.clone(),
            created_at: e.created_at,
            completed_at: e.completed_at,
            download_url,
            download_url_expires_at,
            error: if e.status == "failed" { e.error } else { None },
        })
    }

    /// `create_deck_export` (4.6): queues the export; answers it pending.
    pub async fn create_deck_export(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        new: NewExport,
    ) -> Result<ExportView> {
        caller.require(Scope::Manage)?;
        let deck = self.active_deck(caller, deck_id).await?;
        let options = serde_json::to_string(&new.options).map_err(Error::internal)?;
        let record = self
            .store()
            .create_export(
                caller.user_id,
                deck.id,
                new.format,
                &options,
                Timestamp::now(),
            )
            .await?
            .ok_or_else(Error::deck_not_found)?;
        self.export_view(record).await
    }

    /// `get_deck_export` (4.6). While the deck is in the trash its exports answer 404 (they
    /// come back with the deck); a completed export whose file was deleted at the end of
    /// retention ([`Lectern::forget_export_file`]) no longer exists either.
    pub async fn get_deck_export(
        &self,
        caller: &Caller,
        deck_id: DeckId,
        export_id: ExportId,
    ) -> Result<ExportView> {
        caller.require(Scope::Read)?;
        let not_found = || Error::not_found("export not found");
        let deck = self.active_deck(caller, deck_id).await?;
        let export_id = export_id.stored().ok_or_else(not_found)?;
        let record = self
            .store()
            .get_export(caller.user_id, deck.id, export_id)
            .await?
            .filter(still_exists)
            .ok_or_else(not_found)?;
        self.export_view(record).await
    }

    /// Thumbnails: the deck whose current image `token` names.
    pub async fn deck_by_thumbnail(&self, token: &str) -> Result<Option<i64>> {
        if token.len() != 32 || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Ok(None);
        }
        self.store().deck_by_thumbnail(token).await
    }

    /// A slide picture of the caller's own active deck (the MCP screenshot tool): the deck as
    /// its owner's pages show it, after the same checks as `get_deck`.
    pub async fn own_deck_for_rendering(
        &self,
        caller: &Caller,
        deck_id: DeckId,
    ) -> Result<crate::service::viewer::ViewedDeck> {
        caller.require(Scope::Read)?;
        let deck = self.active_deck(caller, deck_id).await?;
        self.viewed(deck, true).await
    }

    /// The completed export a download link names, with its deck's slug (the file's name):
    /// `None` when the link's signature is wrong
    /// or it has expired (403), not found while its deck is in the trash or once its file was
    /// deleted (404).
    pub async fn check_download(
        &self,
        export_id: i64,
        expires: i64,
        signature_hex: &str,
    ) -> Result<Option<(ExportRecord, String)>> {
        if expires < Timestamp::now().unix_micros() / 1_000_000 {
            return Ok(None);
        }
        let expected = signature(&self.download_key().await?, export_id, expires);
        if !secret::constant_time_eq(&expected, signature_hex) {
            return Ok(None);
        }
        let gone = || Error::not_found("this export no longer exists");
        let export = self
            .store()
            .find_export(export_id)
            .await?
            .filter(|e| e.status == "completed" && still_exists(e))
            .ok_or_else(gone)?;
        let deck = self.store().find_deck(export.deck_id).await?;
        match deck {
            Some(d) if d.trashed_at.is_none() => Ok(Some((export, d.slug))),
            _ => Err(gone()),
        }
    }
}

/// Whether an export still exists: a completed one only while its file is kept.
fn still_exists(e: &ExportRecord) -> bool {
    e.status != "completed" || e.file_key.is_some()
}

/// The export workers' and the thumbnail loop's operations: they act for the owner who
/// queued a job, on ids from the queue, without a caller to check. Only the workers of
/// `lectern serve` and `lectern mcp` hold one ([`Lectern::worker`]); request adapters call
/// the checked operations instead.
pub struct Worker<'a>(pub(super) &'a Lectern);

impl Lectern {
    /// The handle of the unchecked worker operations.
    pub fn worker(&self) -> Worker<'_> {
        Worker(self)
    }
}

impl Worker<'_> {
    /// Forgets deck revisions older than `days` days, except each deck's newest
    /// [`crate::revision::KEEP_NEWEST_REVISIONS`]; `0` keeps everything. Returns how many
    /// revisions were forgotten.
    pub async fn prune_history(&self, days: u32) -> Result<u64> {
        if days == 0 {
            return Ok(0);
        }
        let before = Timestamp::from_unix_micros(
            Timestamp::now().unix_micros() - i64::from(days) * 86_400 * 1_000_000,
        );
        self.0
            .store()
            .prune_history(before, crate::revision::KEEP_NEWEST_REVISIONS)
            .await
    }

    /// takes the next export job (see `Store::claim_export`), leased for `lease`.
    /// The next export job (see [`Store::claim_export`](crate::store::Store::claim_export)
    /// for the order), leased for `lease`.
    pub async fn claim_export_job(
        &self,
        lease: std::time::Duration,
        max_attempts: i64,
    ) -> Result<Option<ExportRecord>> {
        let now = Timestamp::now();
        let until = Timestamp::from_unix_micros(now.unix_micros() + lease.as_micros() as i64);
        self.0
            .store()
            .claim_export(now, until, max_attempts, EXPORTS_IN_FLIGHT_PER_ACCOUNT)
            .await
    }

    /// the job's file is stored under `file_key`.
    pub async fn complete_export_job(&self, export_id: i64, file_key: &str) -> Result<()> {
        self.0
            .store()
            .complete_export(export_id, file_key, Timestamp::now())
            .await
    }

    /// the job cannot be done, for `reason`.
    pub async fn fail_export_job(&self, export_id: i64, reason: &str) -> Result<()> {
        self.0
            .store()
            .fail_export(export_id, reason, Timestamp::now())
            .await
    }

    /// the attempt failed in a way that may pass; another attempt may start now.
    pub async fn release_export_job(&self, export_id: i64) -> Result<()> {
        self.0.store().release_export(export_id).await
    }

    /// completed exports older than `age` whose files may go (at most `limit`).
    pub async fn stale_export_files(
        &self,
        age: std::time::Duration,
        limit: i64,
    ) -> Result<Vec<(i64, String)>> {
        let before =
            Timestamp::from_unix_micros(Timestamp::now().unix_micros() - age.as_micros() as i64);
        self.0.store().stale_export_files(before, limit).await
    }

    /// the export's file is deleted.
    pub async fn forget_export_file(&self, export_id: i64) -> Result<()> {
        self.0.store().forget_export_file(export_id).await
    }

    /// Thumbnails: decks changed since their thumbnail, quiet for `debounce` (at most `limit`).
    pub async fn decks_needing_thumbnails(
        &self,
        debounce: std::time::Duration,
        limit: i64,
    ) -> Result<Vec<(i64, Timestamp)>> {
        let quiet_since = Timestamp::from_unix_micros(
            Timestamp::now().unix_micros() - debounce.as_micros() as i64,
        );
        self.0
            .store()
            .decks_needing_thumbnails(quiet_since, limit)
            .await
    }

    /// Thumbnails: a new image of the deck as of `version` is stored; returns its new token.
    pub async fn thumbnail_drawn(&self, deck_id: i64, version: Timestamp) -> Result<String> {
        let token = secret::random_alphanumeric(32);
        self.0
            .store()
            .set_thumbnail(deck_id, &token, version)
            .await?;
        Ok(token)
    }

    /// The deck of an export as its pages show it (no visibility check: the job was
    /// queued by the owner).
    pub async fn deck_for_export(
        &self,
        deck_id: i64,
    ) -> Result<crate::service::viewer::ViewedDeck> {
        let deck = self.queued_deck(deck_id).await?;
        self.0.viewed(deck, true).await
    }

    /// The first slide of a deck as its pages show it, alone (for its thumbnail).
    pub async fn deck_for_thumbnail(
        &self,
        deck_id: i64,
    ) -> Result<crate::service::viewer::ViewedDeck> {
        let deck = self.queued_deck(deck_id).await?;
        self.0.viewed_first(deck, false, Some(1)).await
    }

    /// The deck a queued job names, whoever owns it.
    async fn queued_deck(&self, deck_id: i64) -> Result<crate::store::DeckRecord> {
        self.0
            .store()
            .find_deck(deck_id)
            .await?
            .ok_or_else(Error::deck_not_found)
    }

    /// The slides of an export's deck in presentation order (vertical groups in order),
    /// each sanitised as its pages show it, with its notes and position.
    pub async fn slides_for_export(&self, deck_id: i64) -> Result<Vec<ExportSlide>> {
        let slides = self.0.store().deck_slides_html(deck_id, None).await?;
        let positions = crate::layout::positions(slides.iter().map(|s| &s.slot));
        let bytes = slides.iter().map(|s| s.html.len()).sum();
        Ok(crate::cpu::sized(bytes, move || {
            slides
                .into_iter()
                .zip(positions)
                .map(|(s, position)| ExportSlide {
                    html: crate::html::sanitize_for_viewing(&s.html),
                    notes: s.notes.filter(|n| !n.is_empty()),
                    position,
                })
                .collect()
        })
        .await)
    }
}

/// One slide of a deck being exported.
#[derive(Debug, Clone)]
pub struct ExportSlide {
    /// Its `<section>`, sanitised as the deck's pages show it.
    pub html: String,
    pub notes: Option<String>,
    pub position: crate::layout::Position,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn export_bodies_follow_4_6() {
        let pdf = NewExport::from_json(Some(
            json!({"format": "pdf", "margin": 0.2, "slide_notes": true}),
        ))
        .unwrap();
        assert_eq!(pdf.format, "pdf");
        assert!(pdf.options.slide_notes);
        assert_eq!(
            NewExport::from_json(Some(json!({"format": "zip"})))
                .unwrap()
                .format,
            "zip"
        );
        for bad in [
            json!({}),
            json!({"format": "png"}),
            json!({"format": 1}),
            json!({"format": "pdf", "margin": 0.21}),
            json!({"format": "pdf", "margin": -0.1}),
            json!({"format": "pdf", "slide_number": "yes"}),
            json!({"format": "zip", "slide_notes": true}),
            json!({"format": "zip", "margin": 0}),
            json!({"format": "pptx", "slide_notes": true}),
            json!({"format": "pptx", "separate_fragments": false}),
            json!({"format": "ppt"}),
            json!({"format": "pdf", "other": 1}),
        ] {
            assert!(NewExport::from_json(Some(bad.clone())).is_err(), "{bad}");
        }
        assert!(NewExport::from_json(None).is_err());
    }

    #[test]
    fn signatures_depend_on_id_expiry_and_key() {
        let s = signature("k", 1, 100);
        assert_eq!(s, signature("k", 1, 100));
        assert_ne!(s, signature("k", 2, 100));
        assert_ne!(s, signature("k", 1, 101));
        assert_ne!(s, signature("other", 1, 100));
    }
}
