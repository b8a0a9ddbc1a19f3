//! Starting the renderer's headless Chromium so that nothing but this process can drive it.
//!
//! - DevTools runs over a pipe (`--remote-debugging-pipe`: commands on the browser's fd 3,
//!   answers on fd 4), never on a TCP port another local user could reach; `cdp.rs` speaks
//!   the protocol on it.
//! - Chromium keeps its sandbox. Run as root (where Chromium refuses its sandbox), it runs as
//!   the user `nobody` instead; only where even that fails to start does it run without the
//!   sandbox, with a warning in the log.
//! - It runs under `setpriv --pdeathsig KILL` (it dies with this process) and `nice`, so
//!   background rendering takes the CPU requests leave; as root, without `CAP_SYS_NICE`.

use std::path::Path;
use std::process::Stdio;

use serde_json::json;
use tokio::process::Child;

use crate::export::cdp::Cdp;

/// Why a PDF could not be made.
#[derive(Debug)]
pub enum PdfError {
    /// Will not work on another attempt (no Chromium).
    Permanent(String),
    /// May work on another attempt (the browser died, a timeout).
    Transient(String),
}

/// The browser's niceness (requests run at 0): under load, a busy browser thread gets about
/// a tenth of a request thread's share of a core (the kernel's weights: 110 against 1024).
pub const BROWSER_NICENESS: i32 = 10;

/// The user an unprivileged browser runs as when this process is root.
const NOBODY: u32 = 65534;

/// A running browser; it is killed when this is dropped.
pub struct Running {
    pub cdp: Cdp,
    _child: Child,
    _profile: tempfile::TempDir,
}

impl Running {
    /// Whether the browser still answers (its pipe is open).
    pub fn alive(&self) -> bool {
        self.cdp.alive()
    }
}

/// How the browser is isolated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Isolation {
    /// Chromium's own sandbox (as `nobody` when this process is root).
    Sandboxed,
    /// No sandbox: only where the sandboxed start failed.
    Unsandboxed,
}

/// Starts `bin` behind the proxy at `proxy` (see `pdf.rs` for why every request goes there).
pub async fn launch(bin: &Path, proxy: std::net::SocketAddr) -> Result<Running, PdfError> {
    match launch_as(bin, proxy, Isolation::Sandboxed).await {
        Ok(running) => Ok(running),
        Err(e) => {
            tracing::warn!(
                error = ?e,
                "Chromium did not start with its sandbox; rendering without it (see the README's security notes)"
            );
            launch_as(bin, proxy, Isolation::Unsandboxed).await
        }
    }
}

async fn launch_as(
    bin: &Path,
    proxy: std::net::SocketAddr,
    isolation: Isolation,
) -> Result<Running, PdfError> {
    let transient = |what: &str, e: &dyn std::fmt::Display| {
        PdfError::Transient(format!("Chromium did not start ({what}): {e}"))
    };
    let root = effective_uid() == Some(0);
    let profile = tempfile::tempdir().map_err(|e| transient("profile", &e))?;
    let as_nobody = root && isolation == Isolation::Sandboxed;
    if as_nobody {
        std::os::unix::fs::chown(profile.path(), Some(NOBODY), Some(NOBODY))
            .map_err(|e| transient("profile", &e))?;
    }
    let mut command = tokio::process::Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(launch_script(as_nobody))
        .arg("lectern-chromium")
        .arg(bin)
        .args(chromium_args(profile.path(), proxy, isolation))
        .env("HOME", profile.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| transient("spawn", &e))?;
    let to_browser = child.stdin.take().expect("stdin was piped");
    let from_browser = child.stdout.take().expect("stdout was piped");

    let running = Running {
        cdp: Cdp::new(to_browser, from_browser),
        _child: child,
        _profile: profile,
    };
    // A browser that cannot start (a sandbox the kernel refuses, say) closes its pipe.
    tokio::time::timeout(
        LAUNCH_LIMIT,
        running.cdp.call(None, "Browser.getVersion", json!({})),
    )
    .await
    .map_err(|_| transient("version", &"no answer in time"))?
    .map_err(|e| transient("version", &e))?;
    Ok(running)
}

/// Longest wait for a new browser to answer.
const LAUNCH_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The shell script that starts Chromium (`$1`, with its flags after it) with the pipe on
/// fds 3 and 4, under `nice` and `setpriv` where they exist.
fn launch_script(as_nobody: bool) -> String {
    let first = |paths: [&'static str; 2]| {
        paths
            .into_iter()
            .find(|p| Path::new(p).is_file())
            .map(str::to_string)
    };
    let nice = first(["/usr/bin/nice", "/bin/nice"])
        .map(|nice| format!("{nice} -n {BROWSER_NICENESS} "))
        .unwrap_or_default();
    let setpriv = match first(["/usr/bin/setpriv", "/bin/setpriv"]) {
        Some(setpriv) => {
            let effective = effective_capabilities().unwrap_or(0);
            let caps = if effective & CAP_SETPCAP != 0 && effective & CAP_SYS_NICE != 0 {
                "--bounding-set -sys_nice "
            } else {
                ""
            };
            let user = if as_nobody {
                format!("--reuid={NOBODY} --regid={NOBODY} --clear-groups ")
            } else {
                String::new()
            };
            format!("{setpriv} --pdeathsig KILL {user}{caps}-- ")
        }
        None => String::new(),
    };
    format!("exec 3<&0 4>&1 </dev/null >/dev/null; exec {nice}{setpriv}\"$@\"")
}

fn chromium_args(profile: &Path, proxy: std::net::SocketAddr, isolation: Isolation) -> Vec<String> {
    let mut args: Vec<String> = [
        "--remote-debugging-pipe",
        "--headless=new",
        "--hide-scrollbars",
        "--mute-audio",
        "--disable-gpu",
        "--disable-component-update",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
        "--disable-breakpad",
        "--disable-client-side-phishing-detection",
        "--disable-default-apps",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-sync",
        "--disable-features=TranslateUI",
        "--disable-renderer-backgrounding",
        "--force-color-profile=srgb",
        "--metrics-recording-only",
        "--password-store=basic",
        "--use-mock-keychain",
        "--lang=en_US",
        // Every request goes to the proxy, loopback ones too (Chromium bypasses proxies for
        // loopback unless told not to).
        "--proxy-bypass-list=<-loopback>",
        // Chromium resolves no name itself (the proxy does) and has no way around the
        // proxy: no QUIC, no WebRTC over UDP.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    args.push(format!("--proxy-server=http://{proxy}"));
    args.push(format!("--user-data-dir={}", profile.display()));
    if isolation == Isolation::Unsandboxed {
        args.push("--no-sandbox".into());
    }
    args.push("about:blank".into());
    args
}

/// Capability bits (`linux/capability.h`).
const CAP_SETPCAP: u64 = 1 << 8;
const CAP_SYS_NICE: u64 = 1 << 23;

/// A field of `/proc/self/status`.
fn status_field(name: &str) -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(|v| v.trim().to_string())
}

/// This process's effective capabilities (`CapEff`).
fn effective_capabilities() -> Option<u64> {
    u64::from_str_radix(&status_field("CapEff:")?, 16).ok()
}

/// This process's effective user id (the second field of `Uid`).
fn effective_uid() -> Option<u32> {
    status_field("Uid:")?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
