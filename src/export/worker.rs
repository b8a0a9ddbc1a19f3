//! The export worker loop: claim a job, build its file, store it, mark the job. A job runs
//! under a lease; a worker that crashes leaves it to be taken again when the lease ends, and
//! after `MAX_ATTEMPTS` a job ends failed. Each attempt has a time limit.

use std::sync::Arc;
use std::time::Duration;

use lectern_core::Lectern;
use lectern_core::service::exports::ExportOptions;
use lectern_core::store::ExportRecord;
use tokio::sync::Notify;

use crate::export::pdf::{PdfError, PdfRenderer};
use crate::export::zip::{build_zip, presentation_files};
use crate::render::PrintOptions;

/// Attempts a job gets before it ends failed.
pub const MAX_ATTEMPTS: i64 = 3;
/// Longest one attempt may take.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a claimed job stays with its worker (past the time limit, so a live worker is
/// never overtaken).
const LEASE: Duration = Duration::from_secs(180);
/// How long export files are kept after they are made (their links stop working then).
pub const KEEP_FILES: Duration = Duration::from_secs(7 * 24 * 3600);
/// How often old files are looked for.
const CLEANUP_EVERY: Duration = Duration::from_secs(3600);
/// How long a deck must stay unchanged before its thumbnail is drawn.
pub const THUMBNAIL_DEBOUNCE: Duration = Duration::from_secs(2);
/// How often the thumbnail loop looks for changed decks.
const THUMBNAIL_POLL: Duration = Duration::from_secs(1);
/// Most thumbnails drawn per round (so at most about this many a second per server).
const THUMBNAILS_PER_ROUND: i64 = 2;
/// How often an idle worker looks for jobs another server queued.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// What the workers share.
pub struct Exporter {
    pub core: Lectern,
    /// The warm Chromium, shared with the MCP server's slide screenshots.
    pub pdf: Arc<PdfRenderer>,
    /// Woken when this server queues a job.
    pub wakeup: Arc<Notify>,
}

impl Exporter {
    /// Runs the worker loop forever.
    pub async fn run(self: Arc<Self>) {
        loop {
            match self.run_one().await {
                Ok(true) => continue,
                Ok(false) => {
                    let _ = tokio::time::timeout(IDLE_POLL, self.wakeup.notified()).await;
                }
                Err(e) => {
                    tracing::error!(error = %e, "export queue unavailable");
                    tokio::time::sleep(IDLE_POLL).await;
                }
            }
        }
    }

    /// Draws the first slide of changed decks as their thumbnails, forever: a deck is drawn
    /// once it has been quiet for [`THUMBNAIL_DEBOUNCE`].
    pub async fn run_thumbnails(self: Arc<Self>) {
        loop {
            // A burst of changes must not starve requests: at most a few drawings a second.
            let _ = self.draw_thumbnails().await;
            tokio::time::sleep(THUMBNAIL_POLL).await;
        }
    }

    /// Draws the thumbnails that are due; returns how many.
    pub async fn draw_thumbnails(&self) -> lectern_core::Result<usize> {
        let due = self
            .core
            .worker()
            .decks_needing_thumbnails(THUMBNAIL_DEBOUNCE, THUMBNAILS_PER_ROUND)
            .await?;
        let mut drawn = 0;
        for (deck_id, version) in due {
            match self.thumbnail_png(deck_id).await {
                Ok(png) => {
                    let key = format!("thumb-{deck_id}.png");
                    if let Err(e) = self.core.files().put(&key, png).await {
                        tracing::warn!(deck.id = deck_id, error = %e, "storing a thumbnail failed");
                        continue;
                    }
                    self.core.worker().thumbnail_drawn(deck_id, version).await?;
                    drawn += 1;
                }
                Err(BuildError::Permanent(reason)) => {
                    // No Chromium: decks keep the generic image.
                    tracing::debug!(deck.id = deck_id, %reason, "no thumbnail");
                    return Ok(drawn);
                }
                Err(BuildError::Transient(reason)) => {
                    tracing::warn!(deck.id = deck_id, %reason, "drawing a thumbnail failed");
                }
            }
        }
        Ok(drawn)
    }

    async fn thumbnail_png(&self, deck_id: i64) -> Result<Vec<u8>, BuildError> {
        let deck = self
            .core
            .worker()
            .deck_for_thumbnail(deck_id)
            .await
            .map_err(|e| BuildError::Transient(e.to_string()))?;
        // The first slide alone: Chromium lays out one slide, however long the deck.
        slide_png(&self.core, &self.pdf, &deck, 0, 0)
            .await
            .map_err(|e| match e {
                PdfError::Permanent(m) => BuildError::Permanent(m),
                PdfError::Transient(m) => BuildError::Transient(m),
            })
    }

    /// Deletes the files of exports older than [`KEEP_FILES`], forever, once an hour.
    pub async fn run_cleanup(self: Arc<Self>) {
        loop {
            if let Err(e) = self.cleanup(KEEP_FILES).await {
                tracing::warn!(error = %e, "export file cleanup failed");
            }
            tokio::time::sleep(CLEANUP_EVERY).await;
        }
    }

    /// Deletes the files of exports completed more than `age` ago; returns how many.
    pub async fn cleanup(&self, age: Duration) -> lectern_core::Result<usize> {
        let mut removed = 0;
        loop {
            let batch = self.core.worker().stale_export_files(age, 100).await?;
            if batch.is_empty() {
                return Ok(removed);
            }
            for (id, key) in batch {
                self.core
                    .files()
                    .delete(&key)
                    .await
                    .map_err(lectern_core::Error::internal)?;
                self.core.worker().forget_export_file(id).await?;
                removed += 1;
            }
        }
    }

    /// Takes and runs one job; `false` when there was none.
    pub async fn run_one(&self) -> lectern_core::Result<bool> {
        let Some(job) = self
            .core
            .worker()
            .claim_export_job(LEASE, MAX_ATTEMPTS)
            .await?
        else {
            return Ok(false);
        };
        let outcome = tokio::time::timeout(ATTEMPT_TIMEOUT, self.build(&job))
            .await
            .unwrap_or_else(|_| {
                Err(BuildError::Transient(format!(
                    "the attempt took longer than {} s",
                    ATTEMPT_TIMEOUT.as_secs()
                )))
            });
        match outcome {
            Ok(bytes) => {
                let key = format!("{}.{}", job.id, job.format);
                match self.core.files().put(&key, bytes).await {
                    Ok(()) => self.core.worker().complete_export_job(job.id, &key).await?,
                    Err(e) => {
                        let reason = format!("storing the file failed: {e}");
                        self.core.worker().fail_export_job(job.id, &reason).await?
                    }
                }
            }
            Err(BuildError::Permanent(reason)) => {
                self.core.worker().fail_export_job(job.id, &reason).await?;
            }
            Err(BuildError::Transient(reason)) if job.attempts >= MAX_ATTEMPTS => {
                let reason = format!("{reason} (gave up after {} attempts)", job.attempts);
                self.core.worker().fail_export_job(job.id, &reason).await?;
            }
            Err(BuildError::Transient(reason)) => {
                tracing::warn!(export.id = job.id, error = %reason, "export attempt failed; it will be retried");
                self.core.worker().release_export_job(job.id).await?;
            }
        }
        Ok(true)
    }

    /// The offline presentation of `deck` with its media (a storage fault may pass).
    async fn files_of(
        &self,
        deck: &lectern_core::service::viewer::ViewedDeck,
        print: Option<PrintOptions>,
    ) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
        presentation_files(&self.core, deck, print)
            .await
            .map_err(|e| BuildError::Transient(format!("reading the deck's media failed: {e}")))
    }

    async fn build(&self, job: &ExportRecord) -> Result<Vec<u8>, BuildError> {
        let deck = self
            .core
            .worker()
            .deck_for_export(job.deck_id)
            .await
            .map_err(|e| BuildError::Permanent(format!("the deck is gone: {e}")))?;
        match job.format.as_str() {
            "zip" => build_zip(self.files_of(&deck, None).await?)
                .map_err(|e| BuildError::Transient(e.to_string())),
            "pdf" => {
                let o: ExportOptions = serde_json::from_str(&job.options).unwrap_or_default();
                let print = PrintOptions {
                    margin: o.margin,
                    slide_number: o.slide_number,
                    slide_notes: o.slide_notes,
                    separate_fragments: o.separate_fragments,
                };
                self.pdf
                    .print(
                        deck.deck.owner_id,
                        self.files_of(&deck, Some(print)).await?,
                        deck.deck.look.width,
                        deck.deck.look.height,
                        o.margin,
                    )
                    .await
                    .map_err(|e| match e {
                        PdfError::Permanent(m) => BuildError::Permanent(m),
                        PdfError::Transient(m) => BuildError::Transient(m),
                    })
            }
            "pptx" => crate::export::pptx::build_pptx(&self.core, &self.pdf, &deck)
                .await
                .map_err(|e| match e {
                    PdfError::Permanent(m) => BuildError::Permanent(m),
                    PdfError::Transient(m) => BuildError::Transient(m),
                }),
            other => Err(BuildError::Permanent(format!(
                "unknown export format {other:?}"
            ))),
        }
    }
}

/// Draws slide (`h`, `v`) of `deck` as its pages show it, as a PNG of the canvas's size
/// ([`crate::export::pdf::screenshot_size`]; thumbnails and the MCP server's
/// `get_slide_screenshot`).
pub async fn slide_png(
    core: &Lectern,
    pdf: &PdfRenderer,
    deck: &lectern_core::service::viewer::ViewedDeck,
    h: usize,
    v: usize,
) -> Result<Vec<u8>, PdfError> {
    let files = presentation_files(core, deck, None)
        .await
        .map_err(|e| PdfError::Transient(format!("reading the deck's media failed: {e}")))?;
    let canvas = (deck.deck.look.width, deck.deck.look.height);
    pdf.render_slide_png(deck.deck.owner_id, files, canvas, h, v)
        .await
}

/// Why building an export failed.
enum BuildError {
    Permanent(String),
    Transient(String),
}
