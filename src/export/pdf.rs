//! PDF printing with headless Chromium over the DevTools protocol (chromiumoxide): the
//! offline presentation is published from memory by the renderer's proxy (`proxy.rs`),
//! opened with reveal.js's print view (`?print-pdf`), and printed in one call once reveal.js
//! reports `pdf-ready`. One browser process stays warm and is reused; it is started again if
//! it died. Chromium reaches the network only through that proxy, which applies
//! `--render-network`; it never opens `file://` pages.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{PrintToPdfParams, Viewport};
use chromiumoxide::{Browser, BrowserConfig};
use futures::StreamExt;
use tokio::sync::{Mutex, OnceCell};

use crate::export::network::{RenderNetwork, system_resolver};
use crate::export::proxy::RenderProxy;

/// One picture the PowerPoint export asks for: a part of slide (`h`, `v`).
pub struct SnapshotRequest {
    pub h: i64,
    pub v: Option<i64>,
    pub target: SnapshotTarget,
}

/// What of a slide a [`SnapshotRequest`] draws.
pub enum SnapshotTarget {
    /// The whole slide, background included.
    Slide,
    /// Its `n`-th `.sl-block` in document order, alone (the others hidden), without its
    /// rotation, on a transparent ground.
    Block(usize),
    /// The block holding the image whose `src` is this, alone.
    Image(String),
}

/// Prepares a deck page for snapshots: no transitions, every fragment shown, and
/// `lecternSnapshot(h, v, kind, arg)`, which shows slide (`h`, `v`), isolates the part asked
/// for and answers its rectangle (`[x, y, width, height]` in CSS pixels) or null.
const SNAPSHOT_SETUP: &str = r#"(() => {
  Reveal.configure({ transition: 'none', backgroundTransition: 'none', controls: false, progress: false, slideNumber: false });
  const style = document.createElement('style');
  style.textContent = `
    .reveal .slides .fragment { opacity: 1 !important; visibility: inherit !important; transform: none !important; }
    body.lectern-solo, body.lectern-solo .reveal, body.lectern-solo .reveal-viewport { background: transparent !important; }
    body.lectern-solo .reveal .backgrounds { visibility: hidden !important; }
    body.lectern-solo .reveal .slides section.present .sl-block:not(.lectern-solo-target) { visibility: hidden !important; }`;
  document.head.appendChild(style);
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  window.lecternSnapshot = async (h, v, kind, arg) => {
    document.body.classList.remove('lectern-solo');
    for (const el of document.querySelectorAll('.lectern-solo-target')) {
      el.classList.remove('lectern-solo-target');
      el.style.transform = el.dataset.lecternTransform || '';
    }
    Reveal.slide(h, v);
    await frame();
    const slide = Reveal.getCurrentSlide();
    let el = null;
    if (kind === 'slide') el = slide;
    else if (kind === 'block') el = slide.querySelectorAll('.sl-block')[Number(arg)] || null;
    else {
      const img = [...slide.querySelectorAll('img')].find((i) => i.getAttribute('src') === arg);
      el = img ? img.closest('.sl-block') || img : null;
    }
    if (!el) return null;
    if (kind === 'slide') {
      // The whole canvas (a section is only as tall as its content), as scaled on screen.
      const r = document.querySelector('.reveal .slides').getBoundingClientRect();
      return [r.x, r.y, r.width, r.height];
    }
    document.body.classList.add('lectern-solo');
    el.classList.add('lectern-solo-target');
    el.dataset.lecternTransform = el.style.transform;
    el.style.transform = 'none';
    await frame();
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  };
  return true;
})()"#;

/// Why a PDF could not be made.
#[derive(Debug)]
pub enum PdfError {
    /// Will not work on another attempt (no Chromium).
    Permanent(String),
    /// May work on another attempt (the browser died, a timeout).
    Transient(String),
}

/// `bin`, started so that it dies with this process and yields the CPU to it: a script in
/// `dir` that runs it under `setpriv --pdeathsig KILL` (util-linux), so that a server killed
/// with SIGKILL (or a test that stops one so) leaves no browser behind, and under `nice -n
/// 10`, so that thumbnails, exports and screenshots (background work, all of it) take the
/// CPU the requests leave. The signal comes when the thread that started the browser ends:
/// one of the runtime's workers, which live as long as it does. Run with `CAP_SYS_NICE` (as
/// root), Chromium would raise its own threads' priority (its main thread to nice -8, above
/// every request's): where this process may (`CAP_SETPCAP`), the script also takes that
/// capability from the browser (`--bounding-set -sys_nice`), so that, like any other user's,
/// it cannot. `bin` itself where `setpriv` is missing or the script cannot be written.
fn browser_launcher(bin: &Path, dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let first = |paths: [&'static str; 2]| {
        paths
            .into_iter()
            .map(Path::new)
            .find(|p| p.is_file())
            .map(|p| p.display().to_string())
    };
    let Some(setpriv) = first(["/usr/bin/setpriv", "/bin/setpriv"]) else {
        return bin.to_path_buf();
    };
    let nice = first(["/usr/bin/nice", "/bin/nice"])
        .map(|nice| format!("{nice} -n {BROWSER_NICENESS} "))
        .unwrap_or_default();
    let effective = effective_capabilities().unwrap_or(0);
    let caps = if effective & CAP_SETPCAP != 0 && effective & CAP_SYS_NICE != 0 {
        "--bounding-set -sys_nice "
    } else {
        ""
    };
    let quoted = bin.display().to_string().replace('\'', r"'\''");
    let script =
        format!("#!/bin/sh\nexec {nice}{setpriv} --pdeathsig KILL {caps}-- '{quoted}' \"$@\"\n");
    let path = dir.join("lectern-chromium");
    let written = std::fs::write(&path, script)
        .and_then(|()| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)));
    match written {
        Ok(()) => path,
        Err(_) => bin.to_path_buf(),
    }
}

/// Capability bits (`linux/capability.h`).
const CAP_SETPCAP: u64 = 1 << 8;
const CAP_SYS_NICE: u64 = 1 << 23;

/// This process's effective capabilities (`CapEff` in `/proc/self/status`).
fn effective_capabilities() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    u64::from_str_radix(hex.trim(), 16).ok()
}

/// The browser's niceness (requests run at 0): under load, a busy browser thread gets about
/// a tenth of a request thread's share of a core (the kernel's weights: 110 against 1024).
pub const BROWSER_NICENESS: i32 = 10;

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
        let wrapped = browser_launcher(bin, profile.path());
        match Self::launch_with(&wrapped, proxy, &profile).await {
            Err(e) if wrapped != bin => {
                tracing::warn!(error = ?e, "Chromium did not start under setpriv; starting it alone");
                Self::launch_with(bin, proxy, &profile).await
            }
            launched => launched,
        }
        .map(|(browser, events)| (browser, events, profile))
    }

    async fn launch_with(
        bin: &Path,
        proxy: &RenderProxy,
        profile: &tempfile::TempDir,
    ) -> Result<(Browser, tokio::task::JoinHandle<()>), PdfError> {
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
        Ok((browser, events))
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

    /// Draws parts of an offline presentation's slides (`files`, a `width` x `height` deck)
    /// as PNGs at twice the deck's pixels, in one page: for each request, the picture, or
    /// `None` when the slide has no such part (the PowerPoint export's pictures of what it
    /// cannot map).
    pub async fn snapshots(
        &self,
        files: Vec<(String, Vec<u8>)>,
        width: i64,
        height: i64,
        requests: &[SnapshotRequest],
    ) -> Result<Vec<Option<Vec<u8>>>, PdfError> {
        self.with_browser(async |b, proxy| {
            let published = proxy.publish(files);
            let page = Self::open_ready(b, &published.url()).await?;
            let result = Self::snapshots_on(&page, width, height, requests).await;
            let _ = page.close().await;
            result
        })
        .await
    }

    async fn snapshots_on(
        page: &chromiumoxide::Page,
        width: i64,
        height: i64,
        requests: &[SnapshotRequest],
    ) -> Result<Vec<Option<Vec<u8>>>, PdfError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            PdfError::Transient(format!("drawing the slides failed ({what}): {e}"))
        };
        let metrics = SetDeviceMetricsOverrideParams::new(width, height, 2.0, false);
        page.execute(metrics)
            .await
            .map_err(|e| failed("viewport", &e))?;
        page.evaluate(SNAPSHOT_SETUP)
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
                .evaluate(call)
                .await
                .map_err(|e| failed("layout", &e))?
                .into_value::<Option<Vec<f64>>>()
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
            let params = chromiumoxide::page::ScreenshotParams::builder()
                .clip(Viewport {
                    x,
                    y,
                    width: w,
                    height: h,
                    scale: 1.0,
                })
                .omit_background(!matches!(r.target, SnapshotTarget::Slide))
                .build();
            let png = page
                .screenshot(params)
                .await
                .map_err(|e| failed("screenshot", &e))?;
            out.push(Some(png));
        }
        Ok(out)
    }

    /// Opens `url` and waits until reveal.js and the fonts are ready.
    async fn open_ready(browser: &Browser, url: &str) -> Result<chromiumoxide::Page, PdfError> {
        let page = browser
            .new_page(url)
            .await
            .map_err(|e| PdfError::Transient(format!("opening the deck failed: {e}")))?;
        let ready = "typeof Reveal !== 'undefined' && Reveal.isReady() && document.fonts.status === 'loaded'";
        for _ in 0..200 {
            if let Ok(r) = page.evaluate(ready).await
                && r.into_value::<bool>().unwrap_or(false)
            {
                return Ok(page);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = page.close().await;
        Err(PdfError::Transient("the deck never became ready".into()))
    }

    async fn screenshot_with(browser: &Browser, url: &str) -> Result<Vec<u8>, PdfError> {
        let page = Self::open_ready(browser, url).await?;
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
