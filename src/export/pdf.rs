//! PDF printing with headless Chromium over the DevTools protocol (`cdp.rs`): the
//! offline presentation is published from memory by the renderer's proxy (`proxy.rs`),
//! opened with reveal.js's print view (`?print-pdf`), and printed in one call once reveal.js
//! reports `pdf-ready`. One browser process stays warm and is reused; it is started again if
//! it died. Chromium reaches the network only through that proxy, which applies
//! `--render-network`; it never opens `file://` pages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::{Mutex, OnceCell, Semaphore};

use crate::export::browser::{self, Running};
pub use crate::export::browser::{BROWSER_NICENESS, PdfError};
use crate::export::cdp::Cdp;
use crate::export::snapshot::SNAPSHOT_SETUP;
pub use crate::export::snapshot::{SnapshotRequest, SnapshotTarget, png_size, screenshot_size};

use crate::export::network::{RenderNetwork, system_resolver};
use crate::export::proxy::RenderProxy;

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

/// A warm headless Chromium behind its proxy. Each render runs in a browser context of its
/// own (its own renderer processes, cookies and storage, disposed afterwards) under a time
/// limit; renders run side by side, one at a time per account, so one account's slow or
/// stuck deck never holds up another's.
pub struct PdfRenderer {
    chromium: Option<PathBuf>,
    /// What the pages may load from the network.
    network: RenderNetwork,
    /// Chromium's only way out, started with the first render and kept across browser restarts.
    proxy: OnceCell<RenderProxy>,
    /// The running browser, started with the first render and again after it died.
    browser: Mutex<Option<Arc<Running>>>,
    /// Renders at once, over all accounts.
    slots: Semaphore,
    /// One render at a time per account (by owner id).
    accounts: std::sync::Mutex<HashMap<i64, Arc<Semaphore>>>,
    /// Longest one render may take before its pages are closed.
    limit: Duration,
}

/// Renders at once over all accounts.
const RENDER_SLOTS: usize = 3;
/// Longest one render (a PDF, a thumbnail, the pictures of a PowerPoint export) may take.
pub const RENDER_LIMIT: Duration = Duration::from_secs(90);
/// Longest wait for a render's browser context to close before the browser is replaced.
const DISPOSE_LIMIT: Duration = Duration::from_secs(5);

/// What a render job works with: the browser, its own browser context, and the proxy.
struct Render<'a> {
    cdp: &'a Cdp,
    context: String,
    proxy: &'a RenderProxy,
}

impl Render<'_> {
    /// Opens `url` in a new page of this render's context.
    async fn open(&self, url: &str) -> Result<Tab<'_>, PdfError> {
        let failed = |e: String| PdfError::Transient(format!("opening the deck failed: {e}"));
        let created = self
            .cdp
            .call(
                None,
                "Target.createTarget",
                json!({ "url": url, "browserContextId": self.context }),
            )
            .await
            .map_err(failed)?;
        let target = field(&created, "targetId").map_err(failed)?;
        let tab = Tab {
            cdp: self.cdp,
            session: String::new(),
            target,
        };
        let attached = self
            .cdp
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": tab.target, "flatten": true }),
            )
            .await;
        match attached.and_then(|a| field(&a, "sessionId")) {
            Ok(session) => Ok(Tab { session, ..tab }),
            Err(e) => {
                tab.close().await;
                Err(failed(e))
            }
        }
    }
}

/// A string field of a DevTools answer.
fn field(answer: &Value, name: &str) -> Result<String, String> {
    answer
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("the answer has no {name}"))
}

/// One page of a render, attached over DevTools.
struct Tab<'a> {
    cdp: &'a Cdp,
    session: String,
    target: String,
}

impl Tab<'_> {
    async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.cdp.call(Some(&self.session), method, params).await
    }

    /// The value of the script `expression` (awaited when it is a promise).
    async fn evaluate<T: DeserializeOwned>(&self, expression: &str) -> Result<T, String> {
        let params =
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true });
        let answer = self.call("Runtime.evaluate", params).await?;
        if let Some(thrown) = answer.get("exceptionDetails") {
            return Err(format!("the script failed: {thrown}"));
        }
        let value = answer["result"]
            .get("value")
            .cloned()
            .unwrap_or(Value::Null);
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    /// The base64 `data` of an answer, decoded.
    async fn data(&self, method: &str, params: Value) -> Result<Vec<u8>, String> {
        let answer = self.call(method, params).await?;
        base64::engine::general_purpose::STANDARD
            .decode(field(&answer, "data")?)
            .map_err(|e| e.to_string())
    }

    async fn close(self) {
        let params = json!({ "targetId": self.target });
        let _ = self.cdp.call(None, "Target.closeTarget", params).await;
    }
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
            slots: Semaphore::new(RENDER_SLOTS),
            accounts: Default::default(),
            limit: RENDER_LIMIT,
        }
    }

    /// The same renderer with another time limit per render.
    pub fn with_limit(mut self, limit: Duration) -> Self {
        self.limit = limit;
        self
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

    /// The running browser, started when there is none or it died.
    async fn running(&self, bin: &Path, proxy: &RenderProxy) -> Result<Arc<Running>, PdfError> {
        let mut guard = self.browser.lock().await;
        if let Some(running) = guard.as_ref().filter(|r| r.alive()) {
            return Ok(running.clone());
        }
        let running = Arc::new(browser::launch(bin, proxy.addr()).await?);
        *guard = Some(running.clone());
        Ok(running)
    }

    /// Forgets `running` (when it is still the current browser); it is killed once the
    /// renders still using it end.
    async fn forget(&self, running: &Arc<Running>) {
        let mut guard = self.browser.lock().await;
        if guard.as_ref().is_some_and(|r| Arc::ptr_eq(r, running)) {
            *guard = None;
        }
    }

    /// The semaphore that lets one render of `owner` run at a time.
    fn account(&self, owner: i64) -> Arc<Semaphore> {
        let mut accounts = self.accounts.lock().unwrap_or_else(PoisonError::into_inner);
        // Semaphores nobody waits on are let go now and then.
        if accounts.len() > 1024 {
            accounts.retain(|_, s| Arc::strong_count(s) > 1);
        }
        accounts
            .entry(owner)
            .or_insert_with(|| Arc::new(Semaphore::new(1)))
            .clone()
    }

    /// Runs `job` for an account (`owner`) in a browser context of its own, within the time
    /// limit; the context (and so every page the job opened) is closed afterwards.
    async fn with_browser<T>(
        &self,
        owner: i64,
        job: impl AsyncFnOnce(&Render<'_>) -> Result<T, PdfError>,
    ) -> Result<T, PdfError> {
        let Some(bin) = &self.chromium else {
            return Err(PdfError::Permanent(INSTALL_HINT.into()));
        };
        let proxy = self
            .proxy
            .get_or_try_init(|| RenderProxy::start(self.network, system_resolver()))
            .await
            .map_err(|e| PdfError::Transient(format!("the renderer's proxy did not start: {e}")))?;
        let account = self.account(owner);
        let _own_turn = account.acquire().await.expect("never closed");
        let _slot = self.slots.acquire().await.expect("never closed");
        let running = self.running(bin, proxy).await?;
        let created = running
            .cdp
            .call(None, "Target.createBrowserContext", json!({}))
            .await;
        let context = match created.and_then(|c| field(&c, "browserContextId")) {
            Ok(context) => context,
            Err(e) => {
                self.forget(&running).await;
                return Err(PdfError::Transient(format!(
                    "the browser did not answer: {e}"
                )));
            }
        };
        let render = Render {
            cdp: &running.cdp,
            context: context.clone(),
            proxy,
        };
        let result = tokio::time::timeout(self.limit, job(&render))
            .await
            .unwrap_or_else(|_| {
                Err(PdfError::Transient(format!(
                    "rendering took longer than {} s and was stopped",
                    self.limit.as_secs()
                )))
            });
        let dispose = json!({ "browserContextId": context });
        let disposed = tokio::time::timeout(
            DISPOSE_LIMIT,
            running
                .cdp
                .call(None, "Target.disposeBrowserContext", dispose),
        )
        .await;
        if !matches!(disposed, Ok(Ok(_))) {
            tracing::warn!("a render's pages did not close; the browser is replaced");
            self.forget(&running).await;
        }
        result
    }

    /// Prints an offline presentation (`files`: `index.html` and its assets, by relative
    /// path) to PDF.
    pub async fn print(
        &self,
        owner: i64,
        files: Vec<(String, Vec<u8>)>,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        self.with_browser(owner, async |r| {
            let page = r.proxy.publish(files);
            let url = format!("{}?print-pdf", page.url());
            Self::print_with(r, &url, width, height, margin).await
        })
        .await
    }

    /// Draws one slide (`h`, `v`) of an offline presentation (`files`, a `width` x `height`
    /// deck) as a PNG of the slide alone, without reveal.js's controls: the canvas's size, or
    /// [`screenshot_size`] of it when larger (thumbnails and the MCP server's slide
    /// screenshots).
    pub async fn render_slide_png(
        &self,
        owner: i64,
        files: Vec<(String, Vec<u8>)>,
        (width, height): (i64, i64),
        h: usize,
        v: usize,
    ) -> Result<Vec<u8>, PdfError> {
        let (w, hh) = screenshot_size(width, height);
        let request = SnapshotRequest {
            h: h as i64,
            v: Some(v as i64),
            target: SnapshotTarget::Slide,
        };
        self.with_browser(owner, async |r| {
            let published = r.proxy.publish(files);
            let url = format!("{}#/{h}/{v}", published.url());
            let page = Self::open_ready(r, &url).await?;
            let result = Self::snapshots_on(&page, w, hh, 1.0, &[request]).await;
            page.close().await;
            result?
                .pop()
                .flatten()
                .ok_or_else(|| PdfError::Transient("the slide has no picture".into()))
        })
        .await
    }

    /// Draws parts of an offline presentation's slides (`files`, a `width` x `height` deck)
    /// as PNGs at twice the deck's pixels, in one page: for each request, the picture, or
    /// `None` when the slide has no such part (the PowerPoint export's pictures of what it
    /// cannot map).
    pub async fn snapshots(
        &self,
        owner: i64,
        files: Vec<(String, Vec<u8>)>,
        width: i64,
        height: i64,
        requests: &[SnapshotRequest],
    ) -> Result<Vec<Option<Vec<u8>>>, PdfError> {
        self.with_browser(owner, async |r| {
            let published = r.proxy.publish(files);
            let page = Self::open_ready(r, &published.url()).await?;
            let result = Self::snapshots_on(&page, width, height, 2.0, requests).await;
            page.close().await;
            result
        })
        .await
    }

    /// [`Self::snapshots`] on an open `page`, in a `width` x `height` window of `scale`
    /// device pixels per CSS pixel.
    async fn snapshots_on(
        page: &Tab<'_>,
        width: i64,
        height: i64,
        scale: f64,
        requests: &[SnapshotRequest],
    ) -> Result<Vec<Option<Vec<u8>>>, PdfError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            PdfError::Transient(format!("drawing the slides failed ({what}): {e}"))
        };
        let metrics = json!({ "width": width, "height": height, "deviceScaleFactor": scale, "mobile": false });
        page.call("Emulation.setDeviceMetricsOverride", metrics)
            .await
            .map_err(|e| failed("viewport", &e))?;
        page.evaluate::<Value>(SNAPSHOT_SETUP)
            .await
            .map_err(|e| failed("setup", &e))?;
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            let (kind, arg) = match &r.target {
                SnapshotTarget::Slide => ("slide", String::new()),
                SnapshotTarget::Block(i) => ("block", i.to_string()),
                SnapshotTarget::Image(src) => ("image", src.clone()),
            };
            let call = format!(
                "lecternSnapshot({}, {}, {}, {})",
                r.h,
                r.v.unwrap_or(0),
                serde_json::Value::from(kind),
                serde_json::Value::from(arg)
            );
            let rect = page
                .evaluate::<Option<Vec<f64>>>(&call)
                .await
                .map_err(|e| failed("layout", &e))?;
            let Some([x, y, w, h]) = rect.as_deref().and_then(|v| <[f64; 4]>::try_from(v).ok())
            else {
                out.push(None);
                continue;
            };
            if w < 1.0 || h < 1.0 {
                out.push(None);
                continue;
            }
            // Pictures of a part keep what is around it transparent.
            let transparent = !matches!(r.target, SnapshotTarget::Slide);
            if transparent {
                let clear = json!({ "color": { "r": 0, "g": 0, "b": 0, "a": 0 } });
                page.call("Emulation.setDefaultBackgroundColorOverride", clear)
                    .await
                    .map_err(|e| failed("background", &e))?;
            }
            let clip = json!({ "x": x, "y": y, "width": w, "height": h, "scale": 1.0 });
            let png = page
                .data(
                    "Page.captureScreenshot",
                    json!({ "format": "png", "clip": clip }),
                )
                .await
                .map_err(|e| failed("screenshot", &e))?;
            if transparent {
                page.call("Emulation.setDefaultBackgroundColorOverride", json!({}))
                    .await
                    .map_err(|e| failed("background", &e))?;
            }
            out.push(Some(png));
        }
        Ok(out)
    }

    /// Opens `url` and waits until reveal.js and the fonts are ready.
    async fn open_ready<'a>(r: &'a Render<'_>, url: &str) -> Result<Tab<'a>, PdfError> {
        let page = r.open(url).await?;
        let ready = "typeof Reveal !== 'undefined' && Reveal.isReady() && document.fonts.status === 'loaded'";
        for _ in 0..200 {
            if page.evaluate::<bool>(ready).await.unwrap_or(false) {
                return Ok(page);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        page.close().await;
        Err(PdfError::Transient("the deck never became ready".into()))
    }

    async fn print_with(
        r: &Render<'_>,
        url: &str,
        width: i64,
        height: i64,
        margin: f64,
    ) -> Result<Vec<u8>, PdfError> {
        let page = r.open(url).await?;
        let ready = "document.body && document.body.getAttribute('data-pdf-ready') === '1'";
        let mut laid_out = false;
        for _ in 0..600 {
            if page.evaluate::<bool>(ready).await.unwrap_or(false) {
                laid_out = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !laid_out {
            page.close().await;
            return Err(PdfError::Transient(
                "reveal.js never finished the print layout".into(),
            ));
        }
        // reveal.js's print view: one page per slide, the slide size times 1 + margin.
        let inches = |px: i64| px as f64 * (1.0 + margin) / 96.0;
        let params = json!({
            "printBackground": true,
            "preferCSSPageSize": true,
            "paperWidth": inches(width),
            "paperHeight": inches(height),
            "marginTop": 0.0,
            "marginBottom": 0.0,
            "marginLeft": 0.0,
            "marginRight": 0.0,
        });
        let pdf = page
            .data("Page.printToPDF", params)
            .await
            .map_err(|e| PdfError::Transient(format!("printing failed: {e}")));
        page.close().await;
        pdf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The browser, or `None` (a failure under CI).
    fn chromium() -> Option<PathBuf> {
        let found = find_chromium(None);
        assert!(
            found.is_some() || std::env::var("CI").as_deref() != Ok("true"),
            "Chromium is required under CI"
        );
        found
    }

    /// A one-slide presentation with Lectern's own reveal.js set-up.
    fn deck() -> Vec<(String, Vec<u8>)> {
        let mut files = crate::render::offline_assets();
        files.push((
            "index.html".into(),
            b"<!doctype html><html><head><link rel=\"stylesheet\" href=\"reveal/reveal.css\"></head>\
              <body><div class=\"reveal main\"><div class=\"slides\"><section><h1>Hi</h1></section></div></div>\
              <script id=\"lectern-config\" type=\"application/json\">{\"mode\":\"view\",\"reveal\":{\"width\":1280,\"height\":720}}</script>\
              <script src=\"reveal/reveal.js\"></script><script src=\"reveal/plugin/notes.js\"></script><script src=\"web/slides.js\"></script><script src=\"web/viewer.js\"></script></body></html>"
                .to_vec(),
        ));
        files
    }

    /// A page whose own script never ends (as a slide's script would if one ever ran).
    fn looping() -> Vec<(String, Vec<u8>)> {
        vec![
            (
                "index.html".into(),
                b"<!doctype html><script src=\"loop.js\"></script>".to_vec(),
            ),
            ("loop.js".into(), b"while (true) {}".to_vec()),
        ]
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_render_that_never_ends_is_stopped_and_holds_up_no_other_account() {
        let Some(bin) = chromium() else { return };
        let renderer = Arc::new(PdfRenderer::new(Some(bin)).with_limit(Duration::from_secs(20)));
        let stuck = {
            let renderer = renderer.clone();
            tokio::spawn(async move {
                renderer
                    .render_slide_png(1, looping(), (1280, 720), 0, 0)
                    .await
            })
        };
        // Another account's picture is drawn while the first render is still stuck.
        let png = renderer
            .render_slide_png(2, deck(), (1280, 720), 0, 0)
            .await;
        let png = png.unwrap_or_else(|e| panic!("the other account's render failed: {e:?}"));
        assert!(png.starts_with(b"\x89PNG"));
        assert!(
            !stuck.is_finished(),
            "the stuck render ended before the other"
        );
        let stopped = stuck.await.unwrap();
        assert!(
            matches!(&stopped, Err(PdfError::Transient(m)) if m.contains("longer than")),
            "{:?}",
            stopped.err()
        );
        // The same account renders again afterwards.
        assert!(
            renderer
                .render_slide_png(1, deck(), (1280, 720), 0, 0)
                .await
                .is_ok()
        );
    }
}
