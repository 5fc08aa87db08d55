//! `amem mcp serve --http ADDR`: the MCP streamable HTTP transport at `/mcp`
//! and the browser bridge `POST /factcheck`, behind one guard.
//!
//! The guard, before any route (the MCP specification's rule against DNS
//! rebinding, and the design's loopback bridge):
//! - `Host` must name a loopback host (`localhost`, `127.0.0.1`, `[::1]`,
//!   any port) unless `--allow-remote`: 403;
//! - a request with an `Origin` is let in only from a loopback page or an
//!   origin listed in `[mcp] allowed_origins` (a browser extension): 403;
//! - with `--token-file`, `Authorization: Bearer <token>` is required: 401.
//!   `--allow-remote` requires a token (the CLI refuses it alone).
//!
//! `POST /factcheck` takes `{"claim": "...", "context": "..."}` and answers
//! the `amem_factcheck` tool's object, status 200; bad JSON or arguments are
//! 400 with `{"error": "..."}`.

use super::{CallError, Engine};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use std::sync::Arc;

/// Who may call the HTTP transport.
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    /// `--allow-remote`: any `Host`.
    pub allow_remote: bool,
    /// The bearer token (`--token-file`), when one is required.
    pub token: Option<String>,
    /// Origins let in besides loopback pages (`[mcp] allowed_origins`).
    pub allowed_origins: Vec<String>,
}

/// True for `localhost`, `127.0.0.1` (any 127/8 address), `::1`, with or without a port.
pub(crate) fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, p)| if p.chars().all(|c| c.is_ascii_digit()) { h } else { authority }),
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "::1"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
        || host.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
}

impl Guard {
    /// Why `headers` are refused, with the status to answer, or `None`.
    pub(crate) fn refuse(&self, headers: &HeaderMap) -> Option<(StatusCode, String)> {
        if !self.allow_remote {
            let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
            if !is_loopback_authority(host) {
                return Some((
                    StatusCode::FORBIDDEN,
                    format!("Host {host:?} is not loopback: amem serves this machine only (see --allow-remote)"),
                ));
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let loopback_page = ["http://", "https://"]
                .iter()
                .filter_map(|scheme| origin.strip_prefix(scheme))
                .any(|rest| !rest.contains('/') && is_loopback_authority(rest));
            if !loopback_page && !self.allowed_origins.iter().any(|o| o == origin) {
                return Some((
                    StatusCode::FORBIDDEN,
                    format!("Origin {origin:?} is not allowed: only loopback pages and the origins in [mcp] allowed_origins"),
                ));
            }
        }
        if let Some(token) = &self.token {
            let given = headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer "));
            if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), token.as_bytes())) {
                return Some((StatusCode::UNAUTHORIZED, "a bearer token is required (Authorization: Bearer <token>)".into()));
            }
        }
        None
    }
}

/// Equal bytes, compared without stopping at the first difference (a token
/// check must not tell how much of a guess was right by its timing).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn guard(State(g): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some((status, why)) = g.refuse(request.headers()) {
        tracing::warn!("refused {} {}: {why}", request.method(), request.uri().path());
        return (status, Json(json!({"error": why}))).into_response();
    }
    next.run(request).await
}

async fn factcheck(State(engine): State<Arc<Engine>>, body: axum::body::Bytes) -> Response {
    let args = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return (StatusCode::BAD_REQUEST, Json(json!({"error": "the body must be a JSON object {\"claim\": ...}"}))).into_response();
        }
        Err(e) => return (StatusCode::BAD_REQUEST, Json(json!({"error": format!("the body is not JSON: {e}")}))).into_response(),
    };
    let runtime = tokio::runtime::Handle::current();
    let answer = tokio::task::spawn_blocking(move || engine.call("amem_factcheck", args, &runtime, &mut |_, _, _| {})).await;
    match answer {
        Ok(Ok(v)) => (StatusCode::OK, Json(v)).into_response(),
        Ok(Err(e @ CallError::Arguments(_))) => (StatusCode::BAD_REQUEST, Json(json!({"error": e.to_string()}))).into_response(),
        Ok(Err(e)) => (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({"error": e.to_string()}))).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({"error": e.to_string()}))).into_response(),
    }
}

/// The largest request body (16 MiB): past the tools' own caps, so that an
/// oversized claim gets the tool's error naming its limit.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Serve until `shutdown` resolves.
pub(crate) async fn serve(
    engine: Arc<Engine>,
    listener: tokio::net::TcpListener,
    guard_with: Guard,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut config = StreamableHttpServerConfig::default().with_max_request_body_bytes(MAX_BODY);
    let ct = config.cancellation_token.clone();
    // Our guard checks Host and Origin for every route (the SDK's own check
    // would refuse a remote Host that --allow-remote lets in).
    config = config.disable_allowed_hosts();
    let mcp_engine = engine.clone();
    let mcp = StreamableHttpService::new(move || Ok(super::Server::new(mcp_engine.clone())), LocalSessionManager::default().into(), config);
    let app = axum::Router::new()
        .nest_service("/mcp", mcp)
        .route("/factcheck", axum::routing::post(factcheck).with_state(engine))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(Arc::new(guard_with), guard));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            ct.cancel();
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>, auth: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        if let Some(a) = auth {
            h.insert(header::AUTHORIZATION, HeaderValue::from_str(a).unwrap());
        }
        h
    }

    fn local() -> Guard {
        Guard { allow_remote: false, token: None, allowed_origins: vec!["chrome-extension://abc".into()] }
    }

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for ok in ["localhost", "localhost:8080", "127.0.0.1:1", "127.8.9.1", "[::1]:99", "[::1]", "LOCALHOST:3"] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for no in ["example.org", "example.org:80", "10.0.0.1:80", "localhost.example.org", "127.0.0.1.nip.io", "", "[::2]:1"] {
            assert!(!is_loopback_authority(no), "{no}");
        }
    }

    #[test]
    fn a_foreign_host_or_origin_is_403_and_a_listed_extension_is_let_in() {
        let g = local();
        assert!(g.refuse(&headers("127.0.0.1:9", None, None)).is_none());
        assert!(g.refuse(&headers("127.0.0.1:9", Some("http://localhost:3000"), None)).is_none());
        assert!(g.refuse(&headers("127.0.0.1:9", Some("chrome-extension://abc"), None)).is_none());
        assert_eq!(g.refuse(&headers("evil.example:9", None, None)).unwrap().0, StatusCode::FORBIDDEN);
        assert_eq!(g.refuse(&headers("127.0.0.1:9", Some("https://evil.example"), None)).unwrap().0, StatusCode::FORBIDDEN);
        assert_eq!(g.refuse(&headers("127.0.0.1:9", Some("http://localhost.evil.example"), None)).unwrap().0, StatusCode::FORBIDDEN);
        assert_eq!(g.refuse(&headers("127.0.0.1:9", Some("chrome-extension://other"), None)).unwrap().0, StatusCode::FORBIDDEN);
        assert_eq!(g.refuse(&headers("127.0.0.1:9", Some("null"), None)).unwrap().0, StatusCode::FORBIDDEN);
    }

    #[test]
    fn remote_needs_the_token() {
        let g = Guard { allow_remote: true, token: Some("s3cret".into()), allowed_origins: vec![] };
        assert_eq!(g.refuse(&headers("amem.example:9", None, None)).unwrap().0, StatusCode::UNAUTHORIZED);
        assert_eq!(g.refuse(&headers("amem.example:9", None, Some("Bearer s3crex"))).unwrap().0, StatusCode::UNAUTHORIZED);
        assert!(g.refuse(&headers("amem.example:9", None, Some("Bearer s3cret"))).is_none());
    }
}
