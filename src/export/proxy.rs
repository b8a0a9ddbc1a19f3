//! The renderer's only way to the network: a forward proxy in the process, on
//! `127.0.0.1:<random port>`, that headless Chromium is started behind (loopback included).
//! It serves two things:
//!
//! - the presentation being rendered, from memory, at
//!   `http://presentation.lectern.invalid/<random token>/...` (published by
//!   [`RenderProxy::publish`] for as long as one render takes), so Chromium never opens a
//!   `file://` page and a slide cannot name other files on the disk;
//! - everything else a slide names (`http:` requests in absolute form, `https:` and
//!   WebSockets through `CONNECT`), after resolving the host itself and checking every
//!   address against the `--render-network` setting (`network.rs`). It connects to the
//!   address it checked, never to the name again, so a name cannot resolve to a public
//!   address for the check and to a private one for the connection. Redirects come back to
//!   Chromium, whose next request passes here again.
//!
//! A refused request gets `403` (an unresolvable one `502`), so the slide renders without
//! that resource and the export completes.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::export::network::{Refusal, RenderNetwork, Resolver, destination};

/// The host name of the presentation origin. `.invalid` never resolves, so only this proxy
/// answers for it.
pub const PRESENTATION_HOST: &str = "presentation.lectern.invalid";

/// Longest wait for a TCP connection to an allowed address.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One presentation's files by relative path (`index.html`, `reveal/reveal.js`, ...).
type Files = HashMap<String, Bytes>;

/// What the proxy's connections share.
struct Shared {
    /// What remote addresses may be reached.
    network: RenderNetwork,
    /// How host names become addresses (the system's; tests inject their own).
    resolve: Resolver,
    /// The presentations being rendered, by their random token.
    pages: Mutex<HashMap<String, Arc<Files>>>,
}

/// The running proxy; it stops accepting when dropped.
pub struct RenderProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl Drop for RenderProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// A presentation served by the proxy until this is dropped.
pub struct Published {
    shared: Arc<Shared>,
    token: String,
}

impl Published {
    /// The URL of the presentation's `index.html`.
    pub fn url(&self) -> String {
        format!("http://{PRESENTATION_HOST}/{}/index.html", self.token)
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        self.shared
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

impl RenderProxy {
    /// Starts a proxy on `127.0.0.1:0` enforcing `network`, resolving names with `resolve`.
    pub async fn start(network: RenderNetwork, resolve: Resolver) -> io::Result<RenderProxy> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            network,
            resolve,
            pages: Mutex::new(HashMap::new()),
        });
        let accept = tokio::spawn(accept_loop(listener, shared.clone()));
        Ok(RenderProxy {
            addr,
            shared,
            accept,
        })
    }

    /// Where the proxy listens (for Chromium's `--proxy-server`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `files` (an offline presentation) under a new random token until the returned
    /// guard is dropped.
    pub fn publish(&self, files: Vec<(String, Vec<u8>)>) -> Published {
        let token = lectern_core::secret::random_alphanumeric(32);
        let files: Files = files
            .into_iter()
            .map(|(path, bytes)| (path, Bytes::from(bytes)))
            .collect();
        self.shared
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), Arc::new(files));
        Published {
            shared: self.shared.clone(),
            token,
        }
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let http = hyper::server::conn::http1::Builder::new();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(error = %e, "render proxy: accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let shared = shared.clone();
        let service = hyper::service::service_fn(move |req| {
            let shared = shared.clone();
            async move { Ok::<_, Infallible>(handle(&shared, req).await) }
        });
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "render proxy: connection ended with an error");
            }
        });
    }
}

async fn handle(shared: &Shared, req: Request<Incoming>) -> Response<Body> {
    if req.method() == Method::CONNECT {
        return tunnel(shared, req).await;
    }
    match req.uri().host() {
        Some(host) if host.eq_ignore_ascii_case(PRESENTATION_HOST) => shared.page(req.uri().path()),
        Some(_) => forward(shared, req).await,
        None => answer(
            StatusCode::BAD_REQUEST,
            "a proxy request names an absolute URL",
        ),
    }
}

impl Shared {
    /// A file of a published presentation: `/<token>/<path>`.
    fn page(&self, path: &str) -> Response<Body> {
        let found = path
            .strip_prefix('/')
            .and_then(|p| p.split_once('/'))
            .and_then(|(token, file)| {
                let pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
                pages.get(token)?.get(file).cloned().map(|b| (file, b))
            });
        let Some((file, bytes)) = found else {
            return answer(StatusCode::NOT_FOUND, "no such file");
        };
        let mime = mime_guess::from_path(file).first_or_octet_stream();
        Response::builder()
            .header(header::CONTENT_TYPE, mime.as_ref())
            .header(header::CACHE_CONTROL, "no-store")
            // The viewer's policy: whatever the sanitizer might miss in a slide, no script
            // but the presentation's own runs in the renderer.
            .header(header::CONTENT_SECURITY_POLICY, crate::render::VIEWER_CSP)
            .body(Body::from(bytes))
            .expect("a guessed MIME type is a valid header value")
    }

    /// A TCP connection to `host`:`port` if the setting allows every address it has.
    async fn open(&self, host: &str, port: u16) -> Result<TcpStream, Response<Body>> {
        let addrs = match destination(self.network, host, port, &self.resolve).await {
            Ok(addrs) => addrs,
            Err(refusal) => {
                let status = match &refusal {
                    // Worth an operator's eye: a deck named the server's own networks.
                    Refusal::NotAllowed { ip, .. } => {
                        tracing::info!(%host, port, %ip, reason = %refusal, "renderer: blocked a request");
                        StatusCode::FORBIDDEN
                    }
                    Refusal::NoNetwork => StatusCode::FORBIDDEN,
                    Refusal::Unresolved { .. } => {
                        tracing::debug!(%host, port, reason = %refusal, "renderer: unresolvable host");
                        StatusCode::BAD_GATEWAY
                    }
                };
                return Err(answer(status, &refusal.to_string()));
            }
        };
        let mut failure = String::new();
        for addr in addrs {
            match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => return Ok(stream),
                Ok(Err(e)) => failure = format!("{addr}: {e}"),
                Err(_) => failure = format!("{addr}: no answer in {CONNECT_TIMEOUT:?}"),
            }
        }
        tracing::debug!(%host, port, %failure, "renderer: could not connect");
        Err(answer(StatusCode::BAD_GATEWAY, &failure))
    }
}

/// Headers that concern one connection, not the request: never passed on.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
];

/// An `http:` request in absolute form: sent on a new connection to the checked address.
async fn forward(shared: &Shared, mut req: Request<Incoming>) -> Response<Body> {
    let uri = req.uri().clone();
    if uri.scheme_str() != Some("http") {
        return answer(StatusCode::BAD_REQUEST, "only http: goes without CONNECT");
    }
    let host = uri.host().unwrap_or_default();
    let upstream = match shared.open(host, uri.port_u16().unwrap_or(80)).await {
        Ok(stream) => stream,
        Err(refused) => return refused,
    };
    let (mut sender, connection) =
        match hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await {
            Ok(pair) => pair,
            Err(e) => return answer(StatusCode::BAD_GATEWAY, &e.to_string()),
        };
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "renderer: upstream connection failed");
        }
    });
    *req.uri_mut() = uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/")
        .parse()
        .expect("a path and query taken from a URI is a URI");
    for name in HOP_BY_HOP {
        req.headers_mut().remove(name);
    }
    match sender.send_request(req.map(Body::new)).await {
        Ok(mut resp) => {
            for name in HOP_BY_HOP {
                resp.headers_mut().remove(name);
            }
            resp.map(Body::new)
        }
        Err(e) => answer(StatusCode::BAD_GATEWAY, &e.to_string()),
    }
}

/// `CONNECT host:port` (`https:`, WebSockets): a byte tunnel to the checked address.
async fn tunnel(shared: &Shared, req: Request<Incoming>) -> Response<Body> {
    let Some(authority) = req.uri().authority() else {
        return answer(StatusCode::BAD_REQUEST, "CONNECT names host:port");
    };
    let port = authority.port_u16().unwrap_or(443);
    let mut upstream = match shared.open(authority.host(), port).await {
        Ok(stream) => stream,
        Err(refused) => return refused,
    };
    tokio::spawn(async move {
        match hyper::upgrade::on(req).await {
            Ok(upgraded) => {
                let mut client = TokioIo::new(upgraded);
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            }
            Err(e) => tracing::debug!(error = %e, "renderer: CONNECT was not upgraded"),
        }
    });
    Response::new(Body::empty())
}

fn answer(status: StatusCode, text: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Body::from(text.to_string()))
        .expect("a status and a static header make a valid response")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::export::network::system_resolver;

    /// A local HTTP server that answers `200 ok` and counts the connections it accepted.
    async fn listener() -> (u16, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf).await;
                    let _ = s
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nupstream")
                        .await;
                });
            }
        });
        (port, count)
    }

    /// Sends `head` (a request without body, with `Connection: close`) to the proxy; the
    /// answer's status and whole text.
    async fn send(proxy: &RenderProxy, head: &str) -> (u16, String) {
        let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
        s.write_all(head.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8_lossy(&out).to_string();
        let status = text[9..12].parse().unwrap();
        (status, text)
    }

    fn get(url: &str) -> String {
        format!("GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    }

    #[tokio::test]
    async fn a_published_presentation_is_served_under_its_token_only_while_published() {
        let proxy = RenderProxy::start(RenderNetwork::None, system_resolver())
            .await
            .unwrap();
        let page = proxy.publish(vec![
            ("index.html".into(), b"<h1>deck</h1>".to_vec()),
            ("reveal/reveal.css".into(), b"body{}".to_vec()),
        ]);
        let url = page.url();
        assert!(url.starts_with(&format!("http://{PRESENTATION_HOST}/")));

        let (status, text) = send(&proxy, &get(&format!("{url}?print-pdf"))).await;
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("content-type: text/html") && text.ends_with("<h1>deck</h1>"));
        // The viewer's policy, so no script a slide smuggles in runs in the renderer.
        assert!(
            text.contains("content-security-policy: default-src 'none'; script-src 'self';"),
            "{text}"
        );
        let css = url.replace("index.html", "reveal/reveal.css");
        let (status, text) = send(&proxy, &get(&css)).await;
        assert_eq!(status, 200);
        assert!(text.contains("content-type: text/css"), "{text}");
        let other = format!("http://{PRESENTATION_HOST}/guess/index.html");
        assert_eq!(send(&proxy, &get(&other)).await.0, 404);

        drop(page);
        assert_eq!(send(&proxy, &get(&url)).await.0, 404);
    }

    #[tokio::test]
    async fn loopback_in_any_spelling_is_refused_and_never_reached() {
        let (port, accepted) = listener().await;
        let proxy = RenderProxy::start(RenderNetwork::Public, system_resolver())
            .await
            .unwrap();
        for host in [
            "127.0.0.1",
            "localhost",
            "[::1]",
            "127.1",
            "2130706433",
            "[::ffff:127.0.0.1]",
        ] {
            let (status, text) = send(&proxy, &get(&format!("http://{host}:{port}/x"))).await;
            assert!(status == 403 || status == 502, "{host}: {text}");
            let connect = format!(
                "CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
            );
            let (status, text) = send(&proxy, &connect).await;
            assert!(status == 403 || status == 502, "CONNECT {host}: {text}");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn allowed_requests_are_forwarded_and_tunnelled() {
        // `Any` allows loopback, which lets a local listener stand in for a public server.
        let (port, accepted) = listener().await;
        let proxy = RenderProxy::start(RenderNetwork::Any, system_resolver())
            .await
            .unwrap();

        let (status, text) = send(&proxy, &get(&format!("http://localhost:{port}/x"))).await;
        assert_eq!(status, 200, "{text}");
        assert!(text.ends_with("upstream"));

        let connect =
            format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
        let mut s = TcpStream::connect(proxy.addr()).await.unwrap();
        s.write_all(connect.as_bytes()).await.unwrap();
        let mut buf = [0u8; 1024];
        let n = s.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut tunnelled = Vec::new();
        s.read_to_end(&mut tunnelled).await.unwrap();
        assert!(String::from_utf8_lossy(&tunnelled).ends_with("upstream"));
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
    }
}
