//! The load generator: request shapes, one-off requests, and keep-alive connections driven
//! for a fixed time, with their latency percentiles.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// One request shape of a scenario.
#[derive(Clone)]
pub struct Target {
    pub method: hyper::Method,
    pub path: String,
    pub key: Option<String>,
    pub body: Option<Bytes>,
    /// Each request's body has `%N%` replaced by a number no other request of the run had.
    pub vary: bool,
}

/// The numbers `%N%` takes in varying bodies.
static VARY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What a load run measured.
pub struct Outcome {
    pub requests: u64,
    pub errors: u64,
    pub elapsed: Duration,
    pub p50: Duration,
    pub p99: Duration,
}

impl Outcome {
    pub fn rps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
}

pub fn get(path: &str, key: &str) -> Target {
    Target {
        method: hyper::Method::GET,
        path: path.into(),
        key: Some(key.into()),
        body: None,
        vary: false,
    }
}

pub fn post(path: &str, key: &str, body: &serde_json::Value) -> Target {
    Target {
        method: hyper::Method::POST,
        path: path.into(),
        key: Some(key.into()),
        body: Some(Bytes::from(body.to_string())),
        vary: false,
    }
}

pub fn patch(path: &str, key: &str, body: &serde_json::Value) -> Target {
    Target {
        method: hyper::Method::PATCH,
        ..post(path, key, body)
    }
}

pub fn print_row(scenario: &str, server: &str, o: &Outcome) {
    println!(
        "{:<12} {:<9} {:>10} {:>10.0} {:>9.2} {:>9.2} {:>7}",
        scenario,
        server,
        o.requests,
        o.rps(),
        o.p50.as_secs_f64() * 1e3,
        o.p99.as_secs_f64() * 1e3,
        o.errors
    );
}

pub type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

pub async fn connect(addr: SocketAddr) -> anyhow::Result<Sender> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

pub fn build(addr: SocketAddr, t: &Target) -> anyhow::Result<Request<Full<Bytes>>> {
    let mut req = Request::builder()
        .method(t.method.clone())
        .uri(&t.path)
        .header("host", addr.to_string());
    if let Some(key) = &t.key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    if t.body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let mut body = t.body.clone().unwrap_or_default();
    if t.vary {
        let n = VARY.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let text = String::from_utf8_lossy(&body).replace("%N%", &n.to_string());
        body = Bytes::from(text);
    }
    Ok(req.body(Full::new(body))?)
}

/// One request on a fresh connection: status and body.
pub async fn once(addr: SocketAddr, t: &Target) -> anyhow::Result<(u16, Bytes)> {
    let mut sender = connect(addr).await?;
    let resp = sender.send_request(build(addr, t)?).await?;
    let status = resp.status().as_u16();
    Ok((status, resp.into_body().collect().await?.to_bytes()))
}

/// Drives `connections` keep-alive connections (spread over `addrs`) for a one-second
/// warm-up and then `duration`.
pub async fn load(
    addrs: &[SocketAddr],
    t: &Target,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Outcome> {
    let target = Arc::new(t.clone());
    let warmup = Duration::from_secs(1);
    let start = Instant::now();
    let measure_from = start + warmup;
    let stop = measure_from + duration;
    let mut tasks = Vec::new();
    for n in 0..connections {
        let target = target.clone();
        let addr = addrs[n % addrs.len()];
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            let mut sender = connect(addr).await?;
            loop {
                let began = Instant::now();
                if began >= stop {
                    break;
                }
                let ok = match sender.send_request(build(addr, &target)?).await {
                    Ok(resp) => {
                        let good = resp.status().is_success();
                        resp.into_body().collect().await.is_ok() && good
                    }
                    Err(_) => false,
                };
                if !ok && sender.is_closed() {
                    sender = connect(addr).await?;
                }
                if began >= measure_from {
                    if ok {
                        latencies.push(began.elapsed());
                    } else {
                        errors += 1;
                    }
                }
            }
            anyhow::Ok((latencies, errors))
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let (latencies, e) = task.await??;
        all.extend(latencies);
        errors += e;
    }
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    Ok(Outcome {
        requests: all.len() as u64,
        errors,
        elapsed: duration,
        p50: pick(0.50),
        p99: pick(0.99),
    })
}
