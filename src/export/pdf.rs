//! PDF printing with headless Chromium over the DevTools protocol (chromiumoxide): the
//! offline presentation is written to a temporary folder, opened with reveal.js's print view
//! (`?print-pdf`), and printed in one call once reveal.js reports `pdf-ready`. One browser
//! process stays warm and is reused; it is started again if it died.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::PrintToPdfParams;
use chromiumoxide::{Browser, BrowserConfig};
use futures::StreamExt;
use tokio::sync::Mutex;

/// Why a PDF could not be made.
#[derive(Debug)]
pub enum PdfError {
    /// Will not work on another attempt (no Chromium).
    Permanent(String),
    /// May work on another attempt (the browser died, a timeout).
    Transient(String),
}

/// The Chromium binary: `--chrome-path`/`LECTERN_CHROME`, else Debian's or one on PATH.
pub fn find_chromium(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = configured {
        return p.exists().then(|| p.to_path_buf());
    }
    let known = [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ];
    known
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .flat_map(|d| {
                        ["chromium", "chromium-browser", "google-chrome"].map(|n| d.join(n))
                    })
                    .find(|p| p.exists())
            })
        })
}

/// A warm headless Chromium.
pub struct PdfRenderer {
    chromium: Option<PathBuf>,
    browser: Mutex<Option<(Browser, tokio::task::JoinHandle<()>, tempfile::TempDir)>>,
}

const INSTALL_HINT: &str = "Chromium was not found: install it (apt-get install chromium) or pass --chrome-path / LECTERN_CHROME";

impl PdfRenderer {
    /// A renderer using `chromium` (None: PDF exports fail with an install hint).
    pub fn new(chromium: Option<PathBuf>) -> Self {
        PdfRenderer {
            chromium,
            browser: Mutex::new(None),
        }
    }

    async fn launch(
        bin: &Path,
    ) -> Result<(Browser, tokio::task::JoinHandle<()>, tempfile::TempDir), PdfError> {
        let profile = tempfile::tempdir().map_err(|e| PdfError::Transient(e.to_string()))?;
        let config = BrowserConfig::builder()
            .chrome_executable(bin)
            .no_sandbox()
            .new_headless_mode()
            .user_data_dir(profile.path())
            .args([
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--allow-file-access-from-files",
            ])
            .build()
            .map_err(PdfError::Transient)?;
        let (browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|e| PdfError::Transient(format!("Chromium did not start: {e}")))?;
        let events = tokio::spawn(async move { while let Some(Ok(_)) = handler.next().await {} });
        Ok((browser, events, profile))
    }

    /// Runs `job` with the warm browser (starting it when needed); a failed job's browser is
    /// replaced on the next call.
    async fn with_browser<T>(
        &self,
        job: impl AsyncFnOnce(&Browser) -> Result<T, PdfError>,
    ) -> Result<T, PdfError> {
        let Some(bin) = &self.chromium else {
            return Err(PdfError::Permanent(INSTALL_HINT.into()));
        };
        let mut guard = self.browser.lock().await;
        if guard.is_none() {
            *guard = Some(Self::launch(bin).await?);
        }
        let result = {
            let (browser, _, _) = guard.as_ref().expect("the browser was just started");
            job(browser).await
        };
        if result.is_err()
            && let Some((mut browser, events, _profile)) = guard.take()
        {
            let _ = browser.close().await;
            events.abort();
        }
        result
    }

    /// Prints `index_html` (an offline presentation folder's page) to PDF.
    pub async fn print(
        &self,
        index_html: &Path,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        self.with_browser(async |b| Self::print_with(b, index_html, width, height, margin).await)
            .await
    }

    /// Draws one slide (`h`, `v`) of an offline presentation page as a PNG, at the window's
    /// 1280x720 (thumbnails now; slide screenshots for the MCP server later).
    pub async fn render_slide_png(
        &self,
        index_html: &Path,
        h: usize,
        v: usize,
    ) -> Result<Vec<u8>, PdfError> {
        self.with_browser(async |b| Self::screenshot_with(b, index_html, h, v).await)
            .await
    }

    async fn screenshot_with(
        browser: &Browser,
        index_html: &Path,
        h: usize,
        v: usize,
    ) -> Result<Vec<u8>, PdfError> {
        let url = format!("file://{}#/{h}/{v}", index_html.display());
        let page = browser
            .new_page(url.as_str())
            .await
            .map_err(|e| PdfError::Transient(format!("opening the deck failed: {e}")))?;
        let ready = "typeof Reveal !== 'undefined' && Reveal.isReady() && document.fonts.status === 'loaded'";
        let mut shown = false;
        for _ in 0..200 {
            if let Ok(r) = page.evaluate(ready).await
                && r.into_value::<bool>().unwrap_or(false)
            {
                shown = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !shown {
            let _ = page.close().await;
            return Err(PdfError::Transient("the deck never became ready".into()));
        }
        let png = page
            .screenshot(chromiumoxide::page::ScreenshotParams::builder().build())
            .await
            .map_err(|e| PdfError::Transient(format!("the screenshot failed: {e}")));
        let _ = page.close().await;
        png
    }

    async fn print_with(
        browser: &Browser,
        index_html: &Path,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        let url = format!("file://{}?print-pdf", index_html.display());
        let page = browser
            .new_page(url.as_str())
            .await
            .map_err(|e| PdfError::Transient(format!("opening the deck failed: {e}")))?;
        let ready = "document.body && document.body.getAttribute('data-pdf-ready') === '1'";
        let mut laid_out = false;
        for _ in 0..600 {
            if let Ok(v) = page.evaluate(ready).await
                && v.into_value::<bool>().unwrap_or(false)
            {
                laid_out = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !laid_out {
            let _ = page.close().await;
            return Err(PdfError::Transient(
                "reveal.js never finished the print layout".into(),
            ));
        }
        // reveal.js's print view: one page per slide, the slide size times 1 + margin.
        let inches = |px: i64| px as f64 * (1.0 + margin) / 96.0;
        let params = PrintToPdfParams::builder()
            .print_background(true)
            .prefer_css_page_size(true)
            .paper_width(inches(width))
            .paper_height(inches(height))
            .margin_top(0.0)
            .margin_bottom(0.0)
            .margin_left(0.0)
            .margin_right(0.0)
            .build();
        let pdf = page
            .pdf(params)
            .await
            .map_err(|e| PdfError::Transient(format!("printing failed: {e}")));
        let _ = page.close().await;
        pdf
    }
}
