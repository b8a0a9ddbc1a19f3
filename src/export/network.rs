//! What the export renderer may reach on the network (`--render-network`), and the address
//! rule behind it. Slide HTML and custom CSS may name any URL; headless Chromium fetches them
//! on the server while it prints a PDF or draws a thumbnail or screenshot, so without a rule a
//! deck could make the server call its own loopback, its private network or a cloud metadata
//! service. The rule is decided here, on addresses after name resolution, and enforced by
//! the renderer's proxy (`proxy.rs`), the only way out Chromium is given.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use futures::future::BoxFuture;

/// Which remote resources (images, stylesheets, fonts, videos named by a slide) the renderer
/// loads. The presentation itself and `data:` URLs always load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RenderNetwork {
    /// Public internet addresses only: never loopback, private, link-local, CGNAT,
    /// multicast, reserved or unspecified ones, whatever the URL's spelling.
    #[default]
    Public,
    /// No remote resource at all.
    None,
    /// Every address, the server's own networks included: for closed networks whose images
    /// live on internal servers (and tests).
    Any,
}

impl RenderNetwork {
    /// Whether the renderer may connect to `ip` under this setting.
    pub fn allows(self, ip: IpAddr) -> bool {
        match self {
            RenderNetwork::Public => is_public(ip),
            RenderNetwork::None => false,
            RenderNetwork::Any => true,
        }
    }
}

/// Whether `ip` is an address on the public internet: not one of the special-purpose ranges
/// of the IANA registries (loopback, private, link-local, CGNAT, documentation,
/// benchmarking, multicast, reserved, unspecified). IPv4 addresses inside IPv6 ones
/// (IPv4-mapped, NAT64, 6to4) are judged as the IPv4 address they reach.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // "this network", 0.0.0.0 among them
        || a == 10 // private (RFC 1918)
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT, RFC 6598)
        || a == 127 // loopback
        || (a == 169 && b == 254) // link-local (cloud metadata services)
        || (a == 172 && (16..32).contains(&b)) // private (RFC 1918)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation (TEST-NET-1)
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast (deprecated)
        || (a == 192 && b == 168) // private (RFC 1918)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation (TEST-NET-2)
        || (a == 203 && b == 0 && c == 113) // documentation (TEST-NET-3)
        || a >= 224; // multicast (224/4), reserved (240/4), broadcast
    !special
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    let v4 = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    // NAT64 (64:ff9b::/96): a translator forwards to the IPv4 address in the last 32 bits.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(v4(s[6], s[7]));
    }
    // 6to4 (2002::/16): a relay forwards to the IPv4 address in bits 16..48.
    if s[0] == 0x2002 {
        return is_public_v4(v4(s[1], s[2]));
    }
    // Global unicast is 2000::/3; everything else is not public: ::, ::1, IPv4-compatible
    // addresses, unique local fc00::/7, link-local fe80::/10, multicast ff00::/8, ...
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    let special = match s[0] {
        // IETF protocol assignments (2001::/23: Teredo, benchmarking, ORCHID, ...) and
        // documentation (2001:db8::/32).
        0x2001 => s[1] < 0x0200 || s[1] == 0x0db8,
        // Documentation (3fff::/20).
        0x3fff => s[1] < 0x1000,
        _ => false,
    };
    !special
}

/// Why the renderer may not load a URL.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// `--render-network none`.
    #[error("the renderer loads no remote resources (--render-network none)")]
    NoNetwork,
    /// The host is, or resolves to, an address the setting does not allow. The message
    /// does not name the address: it goes back to whoever named the host (MCP
    /// `upload_image`), who must not learn the server's internal DNS answers.
    #[error("{host} is not a public address")]
    NotAllowed { host: String, ip: IpAddr },
    /// The host name does not resolve.
    #[error("{host} does not resolve: {error}")]
    Unresolved { host: String, error: io::Error },
}

/// Looks a host name up: `(name, port)` to its socket addresses.
pub type Resolver =
    Arc<dyn Fn(String, u16) -> BoxFuture<'static, io::Result<Vec<SocketAddr>>> + Send + Sync>;

/// The system's resolver (`getaddrinfo` through tokio).
pub fn system_resolver() -> Resolver {
    Arc::new(|host, port| {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    })
}

/// Where the renderer may connect for `host`:`port` under `network`: the resolved addresses,
/// all of them allowed, or why not. The caller connects to these addresses (never to the
/// name again), so a name that resolves differently the second time gains nothing. A name
/// is refused when any of its addresses is not allowed; with `None` nothing is looked up.
pub async fn destination(
    network: RenderNetwork,
    host: &str,
    port: u16,
    resolve: &Resolver,
) -> Result<Vec<SocketAddr>, Refusal> {
    if network == RenderNetwork::None {
        return Err(Refusal::NoNetwork);
    }
    // An IPv6 literal comes in brackets in URLs and CONNECT targets.
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let addrs = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => resolve(bare.to_string(), port)
            .await
            .map_err(|error| Refusal::Unresolved {
                host: host.to_string(),
                error,
            })?,
    };
    if addrs.is_empty() {
        return Err(Refusal::Unresolved {
            host: host.to_string(),
            error: io::Error::new(io::ErrorKind::NotFound, "no addresses"),
        });
    }
    if let Some(bad) = addrs.iter().find(|a| !network.allows(a.ip())) {
        return Err(Refusal::NotAllowed {
            host: host.to_string(),
            ip: bad.ip(),
        });
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("a test address parses")
    }

    #[test]
    fn loopback_private_link_local_and_other_special_ipv4_addresses_are_not_public() {
        for a in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.0.1",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "198.19.255.255",
            "192.88.99.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!is_public(ip(a)), "{a} counted as public");
        }
    }

    #[test]
    fn ordinary_ipv4_addresses_are_public_including_the_neighbours_of_special_ranges() {
        for a in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "9.255.255.255",
            "11.0.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "126.255.255.255",
            "128.0.0.1",
            "169.253.1.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.1.1",
            "192.169.0.1",
            "198.17.0.1",
            "198.20.0.1",
            "223.255.255.254",
        ] {
            assert!(is_public(ip(a)), "{a} counted as not public");
        }
    }

    #[test]
    fn special_ipv6_addresses_are_not_public() {
        for a in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::8.8.8.8",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:db8::1",
            "3fff::1",
            "fc00::1",
            "fd12:3456:789a::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "100::1",
            "4000::1",
        ] {
            assert!(!is_public(ip(a)), "{a} counted as public");
        }
    }

    #[test]
    fn global_unicast_ipv6_addresses_are_public_and_embedded_public_ipv4_counts_as_public() {
        for a in [
            "2606:4700:4700::1111",
            "2a00:1450:4001:82a::200e",
            "2001:4860:4860::8888",
            "2001:200::1",
            "3ffe::1",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
        ] {
            assert!(is_public(ip(a)), "{a} counted as not public");
        }
    }

    #[test]
    fn each_setting_allows_what_it_says() {
        let (public, private) = (ip("8.8.8.8"), ip("127.0.0.1"));
        assert!(RenderNetwork::Public.allows(public));
        assert!(!RenderNetwork::Public.allows(private));
        assert!(!RenderNetwork::None.allows(public));
        assert!(!RenderNetwork::None.allows(private));
        assert!(RenderNetwork::Any.allows(public));
        assert!(RenderNetwork::Any.allows(private));
        assert_eq!(RenderNetwork::default(), RenderNetwork::Public);
    }

    /// A resolver answering `answer` for every name, counting its calls.
    fn fixed(answer: &[&str], calls: Arc<AtomicUsize>) -> Resolver {
        let answer: Vec<IpAddr> = answer.iter().map(|a| ip(a)).collect();
        Arc::new(move |_host, port| {
            calls.fetch_add(1, Ordering::SeqCst);
            let addrs = answer.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
            Box::pin(async move { Ok(addrs) })
        })
    }

    #[tokio::test]
    async fn a_name_resolving_to_public_addresses_is_connected_to_by_address() {
        let calls = Arc::new(AtomicUsize::new(0));
        let resolve = fixed(&["93.184.216.34", "2606:2800:220:1::1"], calls.clone());

        let to = destination(RenderNetwork::Public, "example.com", 443, &resolve)
            .await
            .expect("a public name is allowed");

        assert_eq!(
            to,
            vec![
                "93.184.216.34:443".parse().unwrap(),
                "[2606:2800:220:1::1]:443".parse().unwrap()
            ]
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_name_with_any_private_address_is_refused() {
        let calls = Arc::new(AtomicUsize::new(0));
        for answer in [
            &["127.0.0.1"][..],
            &["93.184.216.34", "10.0.0.5"],
            &["::1"],
            &["169.254.169.254"],
        ] {
            let resolve = fixed(answer, calls.clone());
            let refused = destination(RenderNetwork::Public, "rebind.example", 80, &resolve).await;
            assert!(
                matches!(refused, Err(Refusal::NotAllowed { .. })),
                "{answer:?}: {refused:?}"
            );
        }
    }

    #[tokio::test]
    async fn address_literals_in_every_spelling_are_judged_without_a_lookup() {
        let calls = Arc::new(AtomicUsize::new(0));
        let resolve = fixed(&["8.8.8.8"], calls.clone());
        for host in [
            "127.0.0.1",
            "[::1]",
            "[::ffff:127.0.0.1]",
            "[::ffff:7f00:1]",
            "0.0.0.0",
        ] {
            let refused = destination(RenderNetwork::Public, host, 80, &resolve).await;
            assert!(
                matches!(refused, Err(Refusal::NotAllowed { .. })),
                "{host}: {refused:?}"
            );
        }
        let public = destination(
            RenderNetwork::Public,
            "[2606:4700:4700::1111]",
            443,
            &resolve,
        )
        .await
        .expect("a public IPv6 literal is allowed");
        assert_eq!(public, vec!["[2606:4700:4700::1111]:443".parse().unwrap()]);
        assert_eq!(calls.load(Ordering::SeqCst), 0, "literals need no lookup");
    }

    #[tokio::test]
    async fn the_system_resolver_judges_the_spellings_browsers_do_not_normalise() {
        // getaddrinfo reads the old inet_aton forms as 127.0.0.1; localhost is loopback.
        for host in ["localhost", "127.1", "2130706433", "0x7f.1", "0177.0.0.1"] {
            let refused = destination(RenderNetwork::Public, host, 80, &system_resolver()).await;
            assert!(
                matches!(
                    refused,
                    Err(Refusal::NotAllowed { .. } | Refusal::Unresolved { .. })
                ),
                "{host}: {refused:?}"
            );
        }
    }

    #[tokio::test]
    async fn with_no_network_nothing_is_looked_up_or_allowed() {
        let calls = Arc::new(AtomicUsize::new(0));
        let resolve = fixed(&["8.8.8.8"], calls.clone());
        for host in ["example.com", "8.8.8.8", "[2606:4700:4700::1111]"] {
            let refused = destination(RenderNetwork::None, host, 443, &resolve).await;
            assert!(matches!(refused, Err(Refusal::NoNetwork)), "{refused:?}");
        }
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_refusal_does_not_tell_what_an_internal_name_resolved_to() {
        let resolve = fixed(&["10.20.30.40"], Arc::new(AtomicUsize::new(0)));
        let refused = destination(RenderNetwork::Public, "db.internal", 80, &resolve).await;
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("db.internal"), "{message}");
        assert!(!message.contains("10.20.30.40"), "{message}");
    }

    #[tokio::test]
    async fn a_name_that_does_not_resolve_is_refused() {
        let resolve: Resolver = Arc::new(|_, _| {
            Box::pin(async { Err(io::Error::new(io::ErrorKind::NotFound, "NXDOMAIN")) })
        });
        let refused = destination(RenderNetwork::Public, "nowhere.invalid", 80, &resolve).await;
        assert!(matches!(refused, Err(Refusal::Unresolved { .. })));
        let empty: Resolver = Arc::new(|_, _| Box::pin(async { Ok(Vec::new()) }));
        let refused = destination(RenderNetwork::Public, "empty.example", 80, &empty).await;
        assert!(matches!(refused, Err(Refusal::Unresolved { .. })));
    }
}
