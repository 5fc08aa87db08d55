//! The trust list as the HTTP layer sees it: which URLs may be requested.
//! Every request and every redirect hop goes through [`TrustList::allows`]
//! (docs/architecture.md, "Only chosen hosts").

use reqwest::Url;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A source's `url_pattern`: `scheme://host[:port][/path-prefix][*]`.
///
/// Only a trailing `*` is a wildcard, and only in the path: hosts are matched
/// exactly, so `https://en.wikipedia.org/*` does not admit `de.wikipedia.org`.
/// The scheme must be `https`, except that plain `http` is accepted for
/// loopback hosts (`127.0.0.0/8`, `::1`, `localhost`), which is how tests
/// point adapters at local servers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlPattern {
    raw: String,
    scheme: String,
    host: String,
    port: u16,
    path_prefix: String,
}

/// Why a `url_pattern` is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not a URL.
    #[error("{0:?} is not a URL pattern such as \"https://export.arxiv.org/api/*\"")]
    Syntax(String),
    /// Plain http to a non-loopback host.
    #[error("{0:?} uses plain http: only https is allowed (http only for loopback test servers)")]
    Insecure(String),
    /// A wildcard somewhere other than the end of the path.
    #[error("{0:?}: only a trailing '*' in the path is allowed; hosts are matched exactly")]
    Wildcard(String),
}

/// True for `localhost`, `127.0.0.0/8` and `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    if h.eq_ignore_ascii_case("localhost") {
        return true;
    }
    h.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl UrlPattern {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The host, lowercase.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// `host:port`, the key of the per-host limiter.
    pub fn authority(&self) -> String {
        authority(&self.host, self.port)
    }

    /// `scheme://host:port`, the base adapters build their endpoints on.
    pub fn origin(&self) -> Url {
        let s = format!("{}://{}/", self.scheme, self.authority());
        Url::parse(&s).expect("invariant: origin of a parsed pattern parses")
    }

    /// True when `url` falls under this pattern.
    pub fn matches(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else { return false };
        url.scheme() == self.scheme
            && host.eq_ignore_ascii_case(&self.host)
            && url.port_or_known_default() == Some(self.port)
            && url.path().starts_with(&self.path_prefix)
    }

    /// True when the pattern uses plain http (a loopback test server).
    pub fn is_plain_http(&self) -> bool {
        self.scheme == "http"
    }
}

/// `host:port` as used for limiter keys and the log.
pub(crate) fn authority(host: &str, port: u16) -> String {
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
}

impl FromStr for UrlPattern {
    type Err = PatternError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let raw = s.trim();
        let (body, wildcard) = match raw.strip_suffix('*') {
            Some(b) => (b, true),
            None => (raw, false),
        };
        if body.contains('*') {
            return Err(PatternError::Wildcard(s.to_string()));
        }
        let url = Url::parse(body).map_err(|_| PatternError::Syntax(s.to_string()))?;
        let host = url.host_str().ok_or_else(|| PatternError::Syntax(s.to_string()))?.to_ascii_lowercase();
        let scheme = url.scheme().to_string();
        match scheme.as_str() {
            "https" => {}
            "http" if is_loopback_host(&host) => {}
            "http" => return Err(PatternError::Insecure(s.to_string())),
            _ => return Err(PatternError::Syntax(s.to_string())),
        }
        if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
            return Err(PatternError::Syntax(s.to_string()));
        }
        let port = url.port_or_known_default().ok_or_else(|| PatternError::Syntax(s.to_string()))?;
        let mut path_prefix = url.path().to_string();
        // "https://host" and "https://host/" both mean the whole host; a
        // prefix without a wildcard still admits what lies below it.
        if !wildcard && path_prefix == "/" {
            path_prefix.clear();
        }
        Ok(UrlPattern { raw: raw.to_string(), scheme, host, port, path_prefix })
    }
}

impl fmt::Display for UrlPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl Serialize for UrlPattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

impl<'de> Deserialize<'de> for UrlPattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The set of patterns a run may request.
#[derive(Clone, Debug, Default)]
pub struct TrustList {
    patterns: Vec<UrlPattern>,
}

impl TrustList {
    /// A trust list of these patterns.
    pub fn new(patterns: impl IntoIterator<Item = UrlPattern>) -> Self {
        TrustList { patterns: patterns.into_iter().collect() }
    }

    /// True when some pattern admits `url`.
    pub fn allows(&self, url: &Url) -> bool {
        self.patterns.iter().any(|p| p.matches(url))
    }

    /// True when some pattern is a plain-http loopback server.
    pub fn has_plain_http(&self) -> bool {
        self.patterns.iter().any(UrlPattern::is_plain_http)
    }

    /// The patterns.
    pub fn patterns(&self) -> &[UrlPattern] {
        &self.patterns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn matches_host_port_and_prefix() {
        let p: UrlPattern = "https://export.arxiv.org/api/*".parse().unwrap();
        assert!(p.matches(&u("https://export.arxiv.org/api/query?search_query=x")));
        assert!(p.matches(&u("https://EXPORT.arxiv.org:443/api/query")));
        assert!(!p.matches(&u("https://export.arxiv.org/abs/1234")));
        assert!(!p.matches(&u("http://export.arxiv.org/api/query")));
        assert!(!p.matches(&u("https://export.arxiv.org:8443/api/query")));
        assert!(!p.matches(&u("https://export.arxiv.org.evil.test/api/query")));
        assert!(!p.matches(&u("https://arxiv.org/api/query")));
        let w: UrlPattern = "https://en.wikipedia.org".parse().unwrap();
        assert!(w.matches(&u("https://en.wikipedia.org/w/api.php")));
        assert!(!w.matches(&u("https://de.wikipedia.org/w/api.php")));
        assert_eq!(w.origin().as_str(), "https://en.wikipedia.org/");
    }

    #[test]
    fn plain_http_only_on_loopback() {
        assert!("http://127.0.0.2:8080/*".parse::<UrlPattern>().is_ok());
        assert!("http://localhost:9/*".parse::<UrlPattern>().is_ok());
        assert_eq!("http://example.org/*".parse::<UrlPattern>(), Err(PatternError::Insecure("http://example.org/*".into())));
        assert!(matches!("https://*.wikipedia.org/".parse::<UrlPattern>(), Err(PatternError::Wildcard(_))));
        assert!(matches!("ftp://x.org/".parse::<UrlPattern>(), Err(PatternError::Syntax(_))));
        assert!(matches!("not a url".parse::<UrlPattern>(), Err(PatternError::Syntax(_))));
    }

    #[test]
    fn loopback_hosts() {
        for h in ["127.0.0.1", "127.0.0.2", "localhost", "[::1]", "::1"] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in ["10.0.0.1", "example.org", "128.0.0.1"] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }
}
