//! PDF printing with headless Chromium over the DevTools protocol (chromiumoxide): the
//! offline presentation is published from memory by the renderer's proxy (`proxy.rs`),
//! opened with reveal.js's print view (`?print-pdf`), and printed in one call once reveal.js
//! reports `pdf-ready`. One browser process stays warm and is reused; it is started again if
//! it died. Chromium reaches the network only through that proxy, which applies
//! `--render-network`; it never opens `file://` pages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::PrintToPdfParams;
use chromiumoxide::{Browser, BrowserConfig};
use futures::StreamExt;
use tokio::sync::{Mutex, OnceCell};

use crate::export::network::{RenderNetwork, system_resolver};
use crate::export::proxy::RenderProxy;

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

/// A warm headless Chromium behind its proxy.
pub struct PdfRenderer {
    chromium: Option<PathBuf>,
    /// What the pages may load from the network.
    network: RenderNetwork,
    /// Chromium's only way out, started with the first render and kept across browser restarts.
    proxy: OnceCell<RenderProxy>,
    browser: Mutex<Option<(Browser, tokio::task::JoinHandle<()>, tempfile::TempDir)>>,
}

const INSTALL_HINT: &str = "Chromium was not found: install it (apt-get install chromium) or pass --chrome-path / LECTERN_CHROME";

impl PdfRenderer {
    /// A renderer using `chromium` (None: PDF exports fail with an install hint) that loads
    /// public addresses only; see [`PdfRenderer::with_network`].
    pub fn new(chromium: Option<PathBuf>) -> Self {
        PdfRenderer {
            chromium,
            network: RenderNetwork::default(),
            proxy: OnceCell::new(),
            browser: Mutex::new(None),
        }
    }

    /// What the renderer (and the server's own fetches) may reach.
    pub fn network(&self) -> RenderNetwork {
        self.network
    }

    /// The same renderer loading what `network` allows (`--render-network`).
    pub fn with_network(mut self, network: RenderNetwork) -> Self {
        self.network = network;
        self
    }

    async fn launch(
        bin: &Path,
        proxy: &RenderProxy,
    ) -> Result<(Browser, tokio::task::JoinHandle<()>, tempfile::TempDir), PdfError> {
        let profile = tempfile::tempdir().map_err(|e| PdfError::Transient(e.to_string()))?;
        let proxy_server = format!("http://{}", proxy.addr());
        let config = BrowserConfig::builder()
            .chrome_executable(bin)
            .no_sandbox()
            .new_headless_mode()
            .user_data_dir(profile.path())
            // Flag names without "--": chromiumoxide adds it (and would pass "----disable-gpu",
            // which Chromium ignores).
            .args(["disable-gpu", "disable-component-update", "no-first-run"])
            // Every request goes to the proxy, loopback ones too (Chromium bypasses proxies
            // for loopback unless told not to).
            .arg(("proxy-server", proxy_server.as_str()))
            .arg(("proxy-bypass-list", "<-loopback>"))
            // Chromium resolves no name itself (the proxy does) and has no way around the
            // proxy: no QUIC, no WebRTC over UDP.
            .arg(("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"))
            .arg("disable-quic")
            .arg(("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"))
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
        job: impl AsyncFnOnce(&Browser, &RenderProxy) -> Result<T, PdfError>,
    ) -> Result<T, PdfError> {
        let Some(bin) = &self.chromium else {
            return Err(PdfError::Permanent(INSTALL_HINT.into()));
        };
        let proxy = self
            .proxy
            .get_or_try_init(|| RenderProxy::start(self.network, system_resolver()))
            .await
            .map_err(|e| PdfError::Transient(format!("the renderer's proxy did not start: {e}")))?;
        let mut guard = self.browser.lock().await;
        if guard.is_none() {
            *guard = Some(Self::launch(bin, proxy).await?);
        }
        let result = {
            let (browser, _, _) = guard.as_ref().expect("the browser was just started");
            job(browser, proxy).await
        };
        if result.is_err()
            && let Some((mut browser, events, _profile)) = guard.take()
        {
            let _ = browser.close().await;
            events.abort();
        }
        result
    }

    /// Prints an offline presentation (`files`: `index.html` and its assets, by relative
    /// path) to PDF.
    pub async fn print(
        &self,
        files: Vec<(String, Vec<u8>)>,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        self.with_browser(async |b, proxy| {
            let page = proxy.publish(files);
            let url = format!("{}?print-pdf", page.url());
            Self::print_with(b, &url, width, height, margin).await
        })
        .await
    }

    /// Draws one slide (`h`, `v`) of an offline presentation (`files`) as a PNG, at the
    /// window's 1280x720 (thumbnails and the MCP server's slide screenshots).
    pub async fn render_slide_png(
        &self,
        files: Vec<(String, Vec<u8>)>,
        h: usize,
        v: usize,
    ) -> Result<Vec<u8>, PdfError> {
        self.with_browser(async |b, proxy| {
            let page = proxy.publish(files);
            let url = format!("{}#/{h}/{v}", page.url());
            Self::screenshot_with(b, &url).await
        })
        .await
    }

    async fn screenshot_with(browser: &Browser, url: &str) -> Result<Vec<u8>, PdfError> {
        let page = browser
            .new_page(url)
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
        url: &str,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        let page = browser
            .new_page(url)
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
