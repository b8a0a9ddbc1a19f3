//! Fetching one remote file for the server itself (MCP `upload_image` with `source_url`),
//! under the same rule as the renderer (`--render-network`, decided in `network.rs`): the
//! host is resolved and every address checked before connecting, the connection goes to
//! the checked address, each redirect is checked again, and the answer is capped in size
//! and time.

use std::time::Duration;

use http_body_util::BodyExt;
use hyper::{Request, StatusCode, Uri, header};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::export::network::{RenderNetwork, Resolver, destination};

/// Most redirects followed.
const MAX_REDIRECTS: usize = 5;
/// Longest wait for one TCP connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL is not an absolute `http:` or `https:` URL.
    #[error("{0}")]
    BadUrl(String),
    /// The network rule refuses the host.
    #[error("{0}")]
    Refused(String),
    /// The answer is larger than the cap.
    #[error("the file is larger than {0} bytes")]
    TooLarge(usize),
    /// Anything else: connection, TLS, HTTP status, time limit.
    #[error("{0}")]
    Failed(String),
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// GETs `url` under `network`, following up to 5 redirects, giving up after `time_limit`,
/// refusing answers longer than `max_bytes`.
pub async fn fetch(
    network: RenderNetwork,
    resolve: &Resolver,
    url: &str,
    max_bytes: usize,
    time_limit: Duration,
) -> Result<Vec<u8>, FetchError> {
    tokio::time::timeout(
        time_limit,
        fetch_following(network, resolve, url, max_bytes),
    )
    .await
    .unwrap_or_else(|_| {
        Err(FetchError::Failed(format!(
            "no complete answer within {} s",
            time_limit.as_secs()
        )))
    })
}

async fn fetch_following(
    network: RenderNetwork,
    resolve: &Resolver,
    url: &str,
    max_bytes: usize,
) -> Result<Vec<u8>, FetchError> {
    let mut uri: Uri = url
        .parse()
        .map_err(|e| FetchError::BadUrl(format!("source_url is not a URL: {e}")))?;
    for _ in 0..=MAX_REDIRECTS {
        match fetch_once(network, resolve, &uri, max_bytes).await? {
            Answer::Body(bytes) => return Ok(bytes),
            Answer::Redirect(location) => uri = resolve_location(&uri, &location)?,
        }
    }
    Err(FetchError::Failed(format!(
        "more than {MAX_REDIRECTS} redirects"
    )))
}

enum Answer {
    Body(Vec<u8>),
    Redirect(String),
}

/// `location` (absolute, or a path on the same origin) relative to `base`.
fn resolve_location(base: &Uri, location: &str) -> Result<Uri, FetchError> {
    let bad = |e: String| FetchError::Failed(format!("a redirect names a bad URL: {e}"));
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.parse().map_err(|e| bad(format!("{e}")));
    }
    if location.starts_with("//") {
        let scheme = base.scheme_str().unwrap_or("https");
        return format!("{scheme}:{location}")
            .parse()
            .map_err(|e| bad(format!("{e}")));
    }
    if location.starts_with('/') {
        let authority = base.authority().map(|a| a.as_str()).unwrap_or("");
        let scheme = base.scheme_str().unwrap_or("https");
        return format!("{scheme}://{authority}{location}")
            .parse()
            .map_err(|e| bad(format!("{e}")));
    }
    Err(bad(format!("{location:?} is not absolute")))
}

async fn fetch_once(
    network: RenderNetwork,
    resolve: &Resolver,
    uri: &Uri,
    max_bytes: usize,
) -> Result<Answer, FetchError> {
    let tls = match uri.scheme_str() {
        Some("http") => false,
        Some("https") => true,
        _ => {
            return Err(FetchError::BadUrl(
                "source_url must be an http: or https: URL".into(),
            ));
        }
    };
    let host = uri
        .host()
        .ok_or_else(|| FetchError::BadUrl("source_url has no host".into()))?;
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let addrs = destination(network, host, port, resolve)
        .await
        .map_err(|r| FetchError::Refused(format!("source_url is not allowed: {r}")))?;
    let mut tcp = None;
    let mut last_error = String::new();
    for addr in addrs {
        match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => {
                tcp = Some(s);
                break;
            }
            Ok(Err(e)) => last_error = e.to_string(),
            Err(_) => last_error = "connecting timed out".into(),
        }
    }
    let tcp = tcp.ok_or_else(|| {
        FetchError::Failed(format!("cannot connect to {host}:{port}: {last_error}"))
    })?;
    let stream: Box<dyn Stream> = if tls {
        Box::new(tls_connect(host, tcp).await?)
    } else {
        Box::new(tcp)
    };
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| FetchError::Failed(format!("HTTP handshake with {host} failed: {e}")))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let host_header = match uri.port_u16() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let request = Request::get(path)
        .header(header::HOST, host_header)
        .header(header::USER_AGENT, "Lectern media fetch")
        .header(header::ACCEPT, "image/*")
        .body(http_body_util::Empty::<hyper::body::Bytes>::new())
        .map_err(|e| FetchError::BadUrl(format!("source_url cannot be requested: {e}")))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| FetchError::Failed(format!("the request to {host} failed: {e}")))?;
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| FetchError::Failed(format!("{status} without a Location")))?;
        return Ok(Answer::Redirect(location.to_string()));
    }
    if status != StatusCode::OK {
        return Err(FetchError::Failed(format!("the server answered {status}")));
    }
    let declared = response
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_bytes as u64) {
        return Err(FetchError::TooLarge(max_bytes));
    }
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame =
            frame.map_err(|e| FetchError::Failed(format!("reading the answer failed: {e}")))?;
        if let Some(data) = frame.data_ref() {
            if bytes.len() + data.len() > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            bytes.extend_from_slice(data);
        }
    }
    Ok(Answer::Body(bytes))
}

async fn tls_connect(
    host: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, FetchError> {
    use tokio_rustls::rustls;
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| FetchError::Failed(format!("TLS setup failed: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let name = rustls::pki_types::ServerName::try_from(bare.to_string())
        .map_err(|e| FetchError::BadUrl(format!("{host} is not a TLS server name: {e}")))?;
    tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| FetchError::Failed(format!("TLS with {host} failed: {e}")))
}
