//! The one HTTP client of a run: rustls (ring) TLS, a descriptive
//! User-Agent, timeouts, gzip, the trust list enforced on every request and
//! every redirect hop, a `governor` limiter and a connection semaphore per
//! host, a global cap, bounded retries with jittered backoff that honour
//! `Retry-After`, and one outbound-log line per request.

use crate::config::{AdapterKind, SourceConfig};
use crate::outbound::{LogLine, OutboundLog};
use crate::rate::Rate;
use crate::trust::{TrustList, authority};
use crate::{Error, Result};
use governor::clock::{Clock, DefaultClock};

type Limiter = governor::RateLimiter<governor::state::NotKeyed, governor::state::InMemoryState, DefaultClock>;
use reqwest::Url;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Settings of the client that are not per source.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The User-Agent: Wikimedia requires one that names the tool and a
    /// contact; arXiv asks the same of API clients.
    pub user_agent: String,
    /// TCP + TLS connect timeout.
    pub connect_timeout: Duration,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Retries after the first try (429, 503, other 5xx, timeouts, connect errors).
    pub max_retries: u32,
    /// Backoff base: retry `n` waits `base * 2^n` plus up to `base` of jitter.
    pub backoff_base: Duration,
    /// A `Retry-After` longer than this makes the source unavailable for
    /// this run instead of stalling it.
    pub max_retry_after: Duration,
    /// The cap across all hosts.
    pub global_rate: Rate,
    /// Bodies larger than this are refused (a search page is far smaller).
    pub max_body_bytes: usize,
}

/// The contact named in the User-Agent.
pub const CONTACT: &str = env!("CARGO_PKG_REPOSITORY");

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            user_agent: format!("amem/{} (+{CONTACT}; fact-check against a user-chosen trust list)", env!("CARGO_PKG_VERSION")),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_retries: 3,
            backoff_base: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(120),
            global_rate: Rate::GLOBAL_DEFAULT,
            max_body_bytes: 8 << 20,
        }
    }
}

/// A request that did not produce an answer. Messages name the host, never
/// the query (which carries the claim's terms).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL is not under any trust-list pattern: nothing was sent.
    #[error("refused: {url} is not on the trust list")]
    OffList {
        /// The refused URL (scheme, host and path only).
        url: String,
    },
    /// The server redirected to a URL off the trust list: not followed.
    #[error("refused redirect from {from} to {to}: not on the trust list")]
    RefusedRedirect {
        /// The host that redirected.
        from: String,
        /// Where it pointed.
        to: String,
    },
    /// No answer in time.
    #[error("{host}: timed out after {attempts} tries")]
    Timeout {
        /// `host:port`.
        host: String,
        /// Tries made.
        attempts: u32,
    },
    /// Could not connect.
    #[error("{host}: unreachable after {attempts} tries ({detail})")]
    Connect {
        /// `host:port`.
        host: String,
        /// Tries made.
        attempts: u32,
        /// The transport error.
        detail: String,
    },
    /// The server kept answering with an error status.
    #[error("{host}: HTTP {status} after {attempts} tries")]
    Status {
        /// `host:port`.
        host: String,
        /// The last status.
        status: u16,
        /// Tries made.
        attempts: u32,
    },
    /// The server asked to wait longer than the run allows.
    #[error("{host}: asked to retry after {seconds} s, more than this run waits")]
    RetryAfterTooLong {
        /// `host:port`.
        host: String,
        /// The requested wait.
        seconds: u64,
    },
    /// The body exceeded the size limit, or could not be read.
    #[error("{host}: {detail}")]
    Body {
        /// `host:port`.
        host: String,
        /// What went wrong.
        detail: String,
    },
    /// The service answered with an API error (arXiv error feed, MediaWiki error object).
    #[error("{host}: API error {code}: {info}")]
    Api {
        /// `host:port`.
        host: String,
        /// The service's error code.
        code: String,
        /// The service's message.
        info: String,
    },
    /// The answer did not parse as the service's format.
    #[error("{host}: unreadable answer: {detail}")]
    Parse {
        /// `host:port`.
        host: String,
        /// What failed.
        detail: String,
    },
}

/// A response that reached us (any status but the retried ones).
#[derive(Clone, Debug)]
pub struct Fetched {
    /// The final URL, after redirects (all on the trust list).
    pub url: Url,
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`, lowercase.
    pub content_type: String,
    /// The body, decompressed.
    pub body: Vec<u8>,
    /// `host:port` of the request.
    pub host: String,
}

impl Fetched {
    /// True for 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// The error a refused redirect hop carries through reqwest.
#[derive(Debug)]
struct OffListRedirect {
    from: String,
    to: String,
}

impl std::fmt::Display for OffListRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "redirect from {} to {} refused: not on the trust list", self.from, self.to)
    }
}

impl std::error::Error for OffListRedirect {}

struct HostGate {
    limiter: Limiter,
    connections: Semaphore,
    period: Duration,
    /// When the previous request to this host finished. The next one waits
    /// until one period after it: the server received the previous request
    /// before we read its answer, so this bounds the gap *the server sees*
    /// from below by the period, whatever the network delay of each request
    /// (the limiter alone spaces the sends, and a slow first send can
    /// bunch two arrivals closer than that).
    last_done: std::sync::Mutex<Option<Instant>>,
}

impl HostGate {
    fn finished(&self) {
        if let Ok(mut l) = self.last_done.lock() {
            *l = Some(Instant::now());
        }
    }

    fn ready_at(&self) -> Option<Instant> {
        self.last_done.lock().ok().and_then(|l| *l).map(|t| t + self.period)
    }
}

/// The run's HTTP client. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct HttpClient {
    client: reqwest::Client,
    trust: Arc<TrustList>,
    hosts: BTreeMap<String, HostGate>,
    global: Limiter,
    clock: DefaultClock,
    log: Option<OutboundLog>,
    opts: ClientOptions,
    sent: AtomicU64,
}

/// One connection at a time, for every host. arXiv asks for "a single
/// connection at a time" and Wikimedia for requests "in series"; for a
/// generic site serial requests are the polite default too. Serial requests
/// are also what makes the spacing provable (see [`HostGate::last_done`]).
fn connections_for(adapter: AdapterKind) -> usize {
    match adapter {
        AdapterKind::Arxiv | AdapterKind::Wikipedia | AdapterKind::Http => 1,
    }
}

/// `host:port` of a URL.
pub(crate) fn url_authority(url: &Url) -> String {
    authority(url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0))
}

/// A URL without its query or fragment, for messages.
fn redacted(url: &Url) -> String {
    format!("{}://{}{}", url.scheme(), url_authority(url), url.path())
}

impl HttpClient {
    /// Build the run's client for these sources. This is the only place a
    /// `reqwest::Client` is built: it installs the ring crypto provider first
    /// (reqwest's `rustls-no-provider` panics at build time without one;
    /// CRATES.md §5.3), then applies the trust list as a redirect policy.
    ///
    /// # Errors
    /// [`Error::Client`] when reqwest refuses the settings.
    pub fn build(sources: &[SourceConfig], opts: ClientOptions, log: Option<OutboundLog>) -> Result<HttpClient> {
        // Err means a provider is already installed (an earlier client, or
        // another crate): that is fine, the call is idempotent in effect.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let trust = Arc::new(TrustList::new(sources.iter().map(|s| s.url_pattern.clone())));
        let mut hosts: BTreeMap<String, (Rate, usize)> = BTreeMap::new();
        for s in sources {
            let rate = s.effective_rate();
            let conns = connections_for(s.adapter);
            hosts
                .entry(s.url_pattern.authority())
                .and_modify(|(r, c)| {
                    // Two sources on one host share its limiter at the stricter setting.
                    if rate.period() > r.period() {
                        *r = rate;
                    }
                    *c = (*c).min(conns);
                })
                .or_insert((rate, conns));
        }
        let clock = DefaultClock::default();
        let hosts = hosts
            .into_iter()
            .map(|(h, (rate, conns))| {
                (
                    h,
                    HostGate {
                        limiter: governor::RateLimiter::direct_with_clock(rate.quota(), clock.clone()),
                        connections: Semaphore::new(conns.max(1)),
                        period: rate.period(),
                        last_done: std::sync::Mutex::new(None),
                    },
                )
            })
            .collect();
        let policy_trust = Arc::clone(&trust);
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            let from = attempt.previous().last().map(url_authority).unwrap_or_default();
            if attempt.previous().len() > 5 {
                let to = redacted(attempt.url());
                attempt.error(OffListRedirect { from, to: format!("{to} (more than 5 redirects)") })
            } else if policy_trust.allows(attempt.url()) {
                attempt.follow()
            } else {
                let to = redacted(attempt.url());
                attempt.error(OffListRedirect { from, to })
            }
        });
        let mut builder = reqwest::Client::builder()
            .user_agent(opts.user_agent.clone())
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.timeout)
            .gzip(true)
            .redirect(policy)
            .https_only(!trust.has_plain_http());
        if trust.has_plain_http() {
            // Loopback test servers: a proxy from the environment must not
            // intercept them.
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| Error::Client(e.to_string()))?;
        Ok(HttpClient {
            client,
            trust,
            hosts,
            global: governor::RateLimiter::direct_with_clock(opts.global_rate.quota(), clock.clone()),
            clock,
            log,
            opts,
            sent: AtomicU64::new(0),
        })
    }

    /// Requests sent so far (each retry counts).
    pub fn requests_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The trust list in force.
    pub fn trust_list(&self) -> &TrustList {
        &self.trust
    }

    fn log(&self, call: &Call<'_>, status: &str, bytes: u64, started: Instant, attempt: u32) {
        let Some(log) = &self.log else { return };
        let line = LogLine {
            time: jiff::Timestamp::now().round(jiff::Unit::Millisecond).map(|t| t.to_string()).unwrap_or_default(),
            host: call.host.to_string(),
            adapter: call.adapter.as_str().to_string(),
            claim_sha256: call.claim_sha256.to_string(),
            status: status.to_string(),
            bytes,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            attempt,
        };
        if let Err(e) = log.append(&line) {
            tracing::warn!(path = %log.path().display(), error = %e, "cannot append to the outbound log");
        }
    }

    /// Wait until both the global and the host limiter allow a request, and
    /// take both cells at the same instant: the request goes out right
    /// after, so the spacing the limiters enforce is the spacing the server
    /// sees. (Awaiting one limiter after the other would let the first
    /// grant age while waiting for the second, and two requests could then
    /// reach the host closer together than its period.) A global cell taken
    /// while the host is not ready is wasted: that only ever slows the run.
    async fn wait_for_slot(&self, gate: &HostGate) {
        if let Some(at) = gate.ready_at() {
            tokio::time::sleep_until(at.into()).await;
        }
        loop {
            self.global.until_ready().await;
            match gate.limiter.check() {
                Ok(()) => return,
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.clock.now());
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    async fn read_response(&self, resp: reqwest::Response) -> Answer {
        let status = resp.status().as_u16();
        let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let retry_after = header("retry-after").as_deref().and_then(parse_retry_after);
        let api_error = header("mediawiki-api-error");
        let content_type = header("content-type").unwrap_or_default().to_ascii_lowercase();
        let final_url = resp.url().clone();
        let body = read_body(resp, self.opts.max_body_bytes).await;
        Answer { status, retry_after, api_error, content_type, final_url, body }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.opts.backoff_base;
        let exp = base.saturating_mul(1u32 << attempt.min(10));
        exp + base.mul_f64(jitter_fraction(attempt))
    }

    /// GET `url` for `adapter`, on behalf of the claim whose SHA-256 is
    /// `claim_sha256` (logged instead of the claim).
    ///
    /// Order of gates: trust list (nothing is sent for an off-list URL), the
    /// host's connection semaphore (held across retries, so a host that said
    /// "slow down" is not hit by a sibling task meanwhile), one period
    /// after the host's previous answer, the global and host limiters
    /// together ([`Self::wait_for_slot`]), then the request.
    ///
    /// # Errors
    /// A [`FetchError`] when no usable answer came back.
    pub async fn get(&self, url: Url, adapter: AdapterKind, claim_sha256: &str) -> std::result::Result<Fetched, FetchError> {
        let host = url_authority(&url);
        let call = Call { host: &host, adapter, claim_sha256 };
        let gate = match self.hosts.get(&host) {
            Some(g) if self.trust.allows(&url) => g,
            _ => {
                self.log(&call, "refused_off_list", 0, Instant::now(), 0);
                return Err(FetchError::OffList { url: redacted(&url) });
            }
        };
        let _permit = gate.connections.acquire().await.map_err(|_| FetchError::Connect {
            host: host.clone(),
            attempts: 0,
            detail: "client shut down".into(),
        })?;
        let mut attempt = 0u32;
        loop {
            self.wait_for_slot(gate).await;
            let started = Instant::now();
            self.sent.fetch_add(1, Ordering::Relaxed);
            let sent = self.client.get(url.clone()).send().await;
            let sent = match sent {
                Ok(resp) => {
                    let r = self.read_response(resp).await;
                    gate.finished();
                    Ok(r)
                }
                Err(e) => {
                    gate.finished();
                    Err(e)
                }
            };
            let (retry_wait, failure) = match sent {
                Ok(Answer { status, retry_after, api_error, content_type, final_url, body }) => {
                    let bytes = body.as_ref().map(|b| b.len() as u64).unwrap_or(0);
                    self.log(&call, &status.to_string(), bytes, started, attempt);
                    // MediaWiki reports replica lag ("maxlag") on HTTP 200 with this
                    // header and a Retry-After; treat it like a 503.
                    let retryable = status == 429 || (500..600).contains(&status) || api_error.as_deref() == Some("maxlag");
                    if !retryable {
                        let body = body.map_err(|detail| FetchError::Body { host: host.clone(), detail })?;
                        return Ok(Fetched { url: final_url, status, content_type, body, host });
                    }
                    let wait = match retry_after {
                        Some(w) if w > self.opts.max_retry_after => {
                            return Err(FetchError::RetryAfterTooLong { host, seconds: w.as_secs() });
                        }
                        Some(w) => w,
                        None => self.backoff(attempt),
                    };
                    (wait, FetchError::Status { host: host.clone(), status, attempts: attempt + 1 })
                }
                Err(e) => {
                    if let Some(r) = find_refused_redirect(&e) {
                        self.log(&call, "refused_redirect", 0, started, attempt);
                        return Err(FetchError::RefusedRedirect { from: r.from.clone(), to: r.to.clone() });
                    }
                    let (kind, failure) = if e.is_timeout() {
                        ("timeout", FetchError::Timeout { host: host.clone(), attempts: attempt + 1 })
                    } else if e.is_connect() {
                        ("connect_error", FetchError::Connect { host: host.clone(), attempts: attempt + 1, detail: root_cause(&e) })
                    } else {
                        ("error", FetchError::Connect { host: host.clone(), attempts: attempt + 1, detail: root_cause(&e) })
                    };
                    self.log(&call, kind, 0, started, attempt);
                    (self.backoff(attempt), failure)
                }
            };
            if attempt >= self.opts.max_retries {
                return Err(failure);
            }
            tracing::debug!(host = %host, attempt, wait_ms = retry_wait.as_millis() as u64, "retrying");
            tokio::time::sleep(retry_wait).await;
            attempt += 1;
        }
    }
}

/// Who a request is for, as the log records it.
struct Call<'a> {
    host: &'a str,
    adapter: AdapterKind,
    claim_sha256: &'a str,
}

/// A response read whole.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    api_error: Option<String>,
    content_type: String,
    final_url: Url,
    body: std::result::Result<Vec<u8>, String>,
}

async fn read_body(mut resp: reqwest::Response, limit: usize) -> std::result::Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => {
                if body.len() + c.len() > limit {
                    return Err(format!("body larger than {limit} bytes"));
                }
                body.extend_from_slice(&c);
            }
            Ok(None) => return Ok(body),
            Err(e) => return Err(format!("body unreadable: {}", root_cause(&e))),
        }
    }
}

fn find_refused_redirect(e: &reqwest::Error) -> Option<&OffListRedirect> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<OffListRedirect>() {
            return Some(r);
        }
        cur = err.source();
    }
    None
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") is RFC 2822 syntax.
    let at = jiff::fmt::rfc2822::DateTimeParser::new().parse_timestamp(v).ok()?;
    let now = jiff::Timestamp::now();
    let span = at.duration_since(now);
    Some(Duration::try_from(span).unwrap_or(Duration::ZERO))
}

/// A fraction in [0, 1) for backoff jitter. Not an output, so the clock is a
/// fine seed; the point is only that concurrent retries do not align.
fn jitter_fraction(salt: u32) -> f64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let mut x = (u64::from(nanos) << 16) ^ u64::from(salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("7"), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn jitter_in_range() {
        for i in 0..100 {
            let j = jitter_fraction(i);
            assert!((0.0..1.0).contains(&j));
        }
    }

    #[test]
    fn user_agent_names_amem_version_and_contact() {
        let ua = ClientOptions::default().user_agent;
        assert!(ua.starts_with(&format!("amem/{}", env!("CARGO_PKG_VERSION"))), "{ua}");
        assert!(ua.contains(CONTACT) && CONTACT.starts_with("https://"), "{ua}");
    }
}
