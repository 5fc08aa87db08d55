//! The one HTTP client of a run: rustls (ring) TLS, a descriptive
//! User-Agent, timeouts, gzip, a `governor` limiter and a connection
//! semaphore per host, a global cap, bounded retries with jittered backoff
//! that honour `Retry-After`, a circuit per host, and one outbound-log line
//! per request.
//!
//! Redirects are followed here, hop by hop (reqwest's own redirect policy
//! is off): each hop is a request like any other, checked against the trust
//! list, sent through *its* host's gate (limiter, connection semaphore,
//! circuit) and logged under its host. A redirect chain therefore costs the
//! same politeness as the requests it stands for.
//!
//! The circuit: a `Retry-After` longer than the run waits, or
//! [`ClientOptions::circuit_failures`] time-outs / connect errors in a row,
//! open the host's circuit. While it is open no request goes to that host,
//! for any claim of the run: each asks gets [`FetchError::CircuitOpen`] at
//! once, and the grounder reports the source unavailable. A back-off circuit
//! lets one request through when it expires; a failure reopens it for twice
//! as long (up to [`ClientOptions::circuit_max_backoff`]), an answer closes it.

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
    /// A `Retry-After` longer than this opens the host's circuit for the
    /// time asked (the source is unavailable to every claim meanwhile)
    /// instead of stalling the run.
    pub max_retry_after: Duration,
    /// The cap across all hosts.
    pub global_rate: Rate,
    /// Bodies larger than this are refused (a search page is far smaller).
    pub max_body_bytes: usize,
    /// Time-outs or connect errors in a row, across claims, that open a
    /// host's circuit.
    pub circuit_failures: u32,
    /// How long a circuit opened by failures stays open the first time;
    /// each reopening doubles it.
    pub circuit_backoff: Duration,
    /// The longest a failure circuit stays open.
    pub circuit_max_backoff: Duration,
}

/// Redirect hops followed for one request before giving up.
pub const MAX_REDIRECTS: usize = 5;

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
            // Two tries that time out mean the host is down for now: a third
            // would cost another `timeout` for every claim queued behind it.
            circuit_failures: 2,
            circuit_backoff: Duration::from_secs(60),
            circuit_max_backoff: Duration::from_secs(15 * 60),
        }
    }
}

/// What one host of a client may be asked, and how politely.
#[derive(Clone, Debug)]
pub struct HostPolicy {
    /// The URLs that may be requested (its host is the limiter's key).
    pub pattern: crate::trust::UrlPattern,
    /// The request rate.
    pub rate: Rate,
    /// Requests in flight at once.
    pub connections: usize,
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
    /// Redirects went on for more than [`MAX_REDIRECTS`] hops.
    #[error("{host}: more than {hops} redirects")]
    TooManyRedirects {
        /// `host:port` of the last hop.
        host: String,
        /// The limit.
        hops: usize,
    },
    /// The host's circuit is open (it asked for a long pause, or stopped
    /// answering): nothing was sent.
    #[error("{host}: not asked, circuit open for {seconds} s more ({why})")]
    CircuitOpen {
        /// `host:port`.
        host: String,
        /// Seconds until the circuit lets a request through again.
        seconds: u64,
        /// What opened it.
        why: String,
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
    /// The host's circuit, shared by every claim of the run.
    circuit: std::sync::Mutex<Circuit>,
}

/// What a host told us about itself so far.
#[derive(Debug, Default)]
struct Circuit {
    /// No request before this instant (a short `Retry-After`: requests wait).
    hold_until: Option<Instant>,
    /// No request before this instant, and none waits for it either (a long
    /// `Retry-After`, or the host stopped answering): asks fail at once.
    open_until: Option<Instant>,
    /// Why the circuit is open, for messages.
    why: String,
    /// Time-outs and connect errors in a row.
    failures: u32,
    /// Failure openings in a row (the back-off doubles with each).
    openings: u32,
}

impl HostGate {
    fn finished(&self) {
        if let Ok(mut l) = self.last_done.lock() {
            *l = Some(Instant::now());
        }
    }

    fn ready_at(&self) -> Option<Instant> {
        let after_last = self.last_done.lock().ok().and_then(|l| *l).map(|t| t + self.period);
        let held = self.circuit().hold_until;
        after_last.max(held)
    }

    fn circuit(&self) -> std::sync::MutexGuard<'_, Circuit> {
        self.circuit.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How long the circuit stays open, and why; `None` when closed.
    fn open_for(&self) -> Option<(Duration, String)> {
        let c = self.circuit();
        let left = c.open_until?.checked_duration_since(Instant::now())?;
        (!left.is_zero()).then(|| (left, c.why.clone()))
    }

    /// The host asked for `wait` before the next request.
    fn hold(&self, wait: Duration) {
        let until = Instant::now() + wait;
        let mut c = self.circuit();
        c.hold_until = c.hold_until.max(Some(until));
    }

    /// The host asked for a pause longer than the run waits: open the circuit for it.
    fn open(&self, wait: Duration, why: String) {
        let until = Instant::now().checked_add(wait).unwrap_or_else(|| Instant::now() + Duration::from_secs(365 * 24 * 3600));
        let mut c = self.circuit();
        c.open_until = c.open_until.max(Some(until));
        c.why = why;
    }

    /// The host answered (any status): it is up.
    fn answered(&self) {
        let mut c = self.circuit();
        c.failures = 0;
        c.openings = 0;
    }

    /// A time-out or connect error. Returns how long the circuit is now
    /// open when this failure opened it. Right after a back-off expired
    /// (the probe request) one failure is enough.
    fn failed(&self, opts: &ClientOptions, what: &str) -> Option<Duration> {
        let mut c = self.circuit();
        c.failures += 1;
        if c.failures < opts.circuit_failures.max(1) && c.openings == 0 {
            return None;
        }
        let backoff = opts.circuit_backoff.saturating_mul(1u32 << c.openings.min(16)).min(opts.circuit_max_backoff);
        c.openings += 1;
        c.failures = 0;
        c.open_until = Some(Instant::now() + backoff);
        c.why = format!("{what} {} times in a row", opts.circuit_failures.max(1));
        Some(backoff)
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
    /// CRATES.md §5.3), and turns reqwest's redirects off: [`Self::get`]
    /// follows them itself, hop by hop.
    ///
    /// # Errors
    /// [`Error::Client`] when reqwest refuses the settings.
    pub fn build(sources: &[SourceConfig], opts: ClientOptions, log: Option<OutboundLog>) -> Result<HttpClient> {
        let hosts: Vec<HostPolicy> = sources
            .iter()
            .map(|s| HostPolicy { pattern: s.url_pattern.clone(), rate: s.effective_rate(), connections: connections_for(s.adapter) })
            .collect();
        Self::build_for(&hosts, opts, log)
    }

    /// [`Self::build`] for any set of hosts: what may be requested, at what
    /// rate, over how many connections at once. The model endpoints of
    /// `[[models]]` (crate `amem-endpoint`) go through here, so a model call
    /// meets the same trust check, limiter, retries, circuit and log as a
    /// trust-list fetch.
    ///
    /// # Errors
    /// [`Error::Client`] when reqwest refuses the settings.
    pub fn build_for(policies: &[HostPolicy], opts: ClientOptions, log: Option<OutboundLog>) -> Result<HttpClient> {
        // Err means a provider is already installed (an earlier client, or
        // another crate): that is fine, the call is idempotent in effect.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let trust = Arc::new(TrustList::new(policies.iter().map(|p| p.pattern.clone())));
        let mut hosts: BTreeMap<String, (Rate, usize)> = BTreeMap::new();
        for p in policies {
            let (rate, conns) = (p.rate, p.connections);
            hosts
                .entry(p.pattern.authority())
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
                        circuit: std::sync::Mutex::new(Circuit::default()),
                    },
                )
            })
            .collect();
        let mut builder = reqwest::Client::builder()
            .user_agent(opts.user_agent.clone())
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.timeout)
            .gzip(true)
            .redirect(reqwest::redirect::Policy::none())
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
        self.log_tokens(call, status, bytes, started, attempt, None);
    }

    fn log_tokens(&self, call: &Call<'_>, status: &str, bytes: u64, started: Instant, attempt: u32, tokens: Option<u64>) {
        let Some(log) = &self.log else { return };
        let line = LogLine {
            time: jiff::Timestamp::now().round(jiff::Unit::Millisecond).map(|t| t.to_string()).unwrap_or_default(),
            host: call.host.to_string(),
            adapter: call.adapter.to_string(),
            claim_sha256: call.claim_sha256.to_string(),
            status: status.to_string(),
            bytes,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            attempt,
            model: call.model.map(str::to_string),
            tokens,
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
        let location = header("location");
        let content_type = header("content-type").unwrap_or_default().to_ascii_lowercase();
        let final_url = resp.url().clone();
        let body = read_body(resp, self.opts.max_body_bytes).await;
        Answer { status, retry_after, api_error, location, content_type, final_url, body }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.opts.backoff_base;
        let exp = base.saturating_mul(1u32 << attempt.min(10));
        exp + base.mul_f64(jitter_fraction(attempt))
    }

    /// GET `url` for `adapter`, on behalf of the claim whose SHA-256 is
    /// `claim_sha256` (logged instead of the claim), following up to
    /// [`MAX_REDIRECTS`] redirects. Each hop is checked and sent like a
    /// first request ([`Self::get_one`]): a hop off the trust list is
    /// refused before anything is sent to it.
    ///
    /// # Errors
    /// A [`FetchError`] when no usable answer came back.
    pub async fn get(&self, url: Url, adapter: AdapterKind, claim_sha256: &str) -> std::result::Result<Fetched, FetchError> {
        let mut url = url;
        let mut from: Option<String> = None;
        for _hop in 0..=MAX_REDIRECTS {
            let host = url_authority(&url);
            let call = Call { host: &host, adapter: adapter.as_str(), claim_sha256, model: None, send: Send::Get };
            let gate = match self.hosts.get(&host) {
                Some(g) if self.trust.allows(&url) => g,
                _ => {
                    return Err(match from {
                        None => {
                            self.log(&call, "refused_off_list", 0, Instant::now(), 0);
                            FetchError::OffList { url: redacted(&url) }
                        }
                        Some(from) => {
                            // Logged under the host that pointed there: nothing went to the target.
                            self.log(
                                &Call { host: &from, adapter: adapter.as_str(), claim_sha256, model: None, send: Send::Get },
                                "refused_redirect",
                                0,
                                Instant::now(),
                                0,
                            );
                            FetchError::RefusedRedirect { from, to: redacted(&url) }
                        }
                    });
                }
            };
            match self.get_one(&url, gate, &call).await? {
                Hop::Answer(f) => return Ok(f),
                Hop::Redirect(next) => {
                    from = Some(host);
                    url = next;
                }
            }
        }
        Err(FetchError::TooManyRedirects { host: url_authority(&url), hops: MAX_REDIRECTS })
    }

    /// POST the JSON `post.body` to `url` (a model endpoint), on behalf of the claim whose
    /// SHA-256 is `claim_sha256`, through the same gates as [`Self::get`]: the trust check,
    /// the host's circuit, connection semaphore and limiter, retries on 429 (honouring
    /// `Retry-After`), 5xx and time-outs, and one log line per try, naming the model and,
    /// for an answer, the tokens `post.tokens_of` reads from its body. A redirect is not
    /// followed: a request body that carries a claim and its evidence is never sent again
    /// anywhere but where the user pointed.
    ///
    /// # Errors
    /// A [`FetchError`] when no usable answer came back.
    pub async fn post_json(&self, url: Url, post: &JsonPost<'_>, claim_sha256: &str) -> std::result::Result<Fetched, FetchError> {
        let host = url_authority(&url);
        let call = Call {
            host: &host,
            adapter: post.label,
            claim_sha256,
            model: Some(post.model),
            send: Send::PostJson { body: post.body, bearer: post.bearer, tokens_of: post.tokens_of },
        };
        let gate = match self.hosts.get(&host) {
            Some(g) if self.trust.allows(&url) => g,
            _ => {
                self.log(&call, "refused_off_list", 0, Instant::now(), 0);
                return Err(FetchError::OffList { url: redacted(&url) });
            }
        };
        match self.get_one(&url, gate, &call).await? {
            Hop::Answer(f) => Ok(f),
            Hop::Redirect(next) => {
                self.log(&call, "refused_redirect", 0, Instant::now(), 0);
                Err(FetchError::RefusedRedirect { from: host, to: redacted(&next) })
            }
        }
    }

    /// One request (one hop) to a listed host.
    ///
    /// Order of gates: the host's circuit (an open one fails at once,
    /// nothing sent), its connection semaphore (held across retries, so a
    /// host that said "slow down" is not hit by a sibling task meanwhile),
    /// the circuit again (it may have opened while this task queued), one
    /// period after the host's previous answer and past any `Retry-After`
    /// it gave, the global and host limiters together
    /// ([`Self::wait_for_slot`]), then the request.
    async fn get_one(&self, url: &Url, gate: &HostGate, call: &Call<'_>) -> std::result::Result<Hop, FetchError> {
        let host = call.host.to_string();
        self.refuse_if_open(gate, call)?;
        let _permit = gate.connections.acquire().await.map_err(|_| FetchError::Connect {
            host: host.clone(),
            attempts: 0,
            detail: "client shut down".into(),
        })?;
        let mut attempt = 0u32;
        loop {
            self.refuse_if_open(gate, call)?;
            self.wait_for_slot(gate).await;
            let started = Instant::now();
            self.sent.fetch_add(1, Ordering::Relaxed);
            let request = match call.send {
                Send::Get => self.client.get(url.clone()),
                Send::PostJson { body, bearer, .. } => {
                    let r = self.client.post(url.clone()).header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_vec());
                    match bearer {
                        Some(key) => r.bearer_auth(key),
                        None => r,
                    }
                }
            };
            let sent = request.send().await;
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
                // Headers came, then the body stalled until the deadline: a time-out,
                // counted toward the host's circuit like one before the headers.
                Ok(Answer { body: Err(BodyError { timed_out: true, .. }), .. }) => {
                    self.log(call, "timeout", 0, started, attempt);
                    let failure = FetchError::Timeout { host: host.clone(), attempts: attempt + 1 };
                    if let Some(open) = gate.failed(&self.opts, "timed out") {
                        tracing::warn!(host = %host, seconds = open.as_secs(), "host stalling: circuit open");
                        return Err(failure);
                    }
                    (self.backoff(attempt), failure)
                }
                Ok(Answer { status, retry_after, api_error, location, content_type, final_url, body }) => {
                    gate.answered();
                    let bytes = body.as_ref().map(|b| b.len() as u64).unwrap_or(0);
                    let tokens = match call.send {
                        Send::PostJson { tokens_of, .. } if (200..300).contains(&status) => body.as_ref().ok().and_then(|b| tokens_of(b)),
                        _ => None,
                    };
                    self.log_tokens(call, &status.to_string(), bytes, started, attempt, tokens);
                    if let Some(next) = redirect_target(status, location.as_deref(), &final_url) {
                        return Ok(Hop::Redirect(next));
                    }
                    // MediaWiki reports replica lag ("maxlag") on HTTP 200 with this
                    // header and a Retry-After; treat it like a 503.
                    let retryable = status == 429 || (500..600).contains(&status) || api_error.as_deref() == Some("maxlag");
                    if !retryable {
                        let body = body.map_err(|e| FetchError::Body { host: host.clone(), detail: e.detail })?;
                        return Ok(Hop::Answer(Fetched { url: final_url, status, content_type, body, host }));
                    }
                    let wait = match retry_after {
                        Some(w) if w > self.opts.max_retry_after => {
                            // Every claim of the run respects it, not only this one.
                            gate.open(w, format!("HTTP {status} asked to retry after {} s", w.as_secs()));
                            return Err(FetchError::RetryAfterTooLong { host, seconds: w.as_secs() });
                        }
                        Some(w) => {
                            // Every request to the host waits for it, not only this retry.
                            gate.hold(w);
                            Duration::ZERO
                        }
                        None => self.backoff(attempt),
                    };
                    (wait, FetchError::Status { host: host.clone(), status, attempts: attempt + 1 })
                }
                Err(e) => {
                    let (kind, failure) = if e.is_timeout() {
                        ("timeout", FetchError::Timeout { host: host.clone(), attempts: attempt + 1 })
                    } else if e.is_connect() {
                        ("connect_error", FetchError::Connect { host: host.clone(), attempts: attempt + 1, detail: root_cause(&e) })
                    } else {
                        ("error", FetchError::Connect { host: host.clone(), attempts: attempt + 1, detail: root_cause(&e) })
                    };
                    self.log(call, kind, 0, started, attempt);
                    let what = if kind == "timeout" { "timed out" } else { "could not connect" };
                    if let Some(open) = gate.failed(&self.opts, what) {
                        tracing::warn!(host = %host, seconds = open.as_secs(), "host not answering: circuit open");
                        return Err(failure);
                    }
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

    /// [`FetchError::CircuitOpen`] (logged, nothing sent) when the host's circuit is open.
    fn refuse_if_open(&self, gate: &HostGate, call: &Call<'_>) -> std::result::Result<(), FetchError> {
        match gate.open_for() {
            None => Ok(()),
            Some((left, why)) => {
                self.log(call, "circuit_open", 0, Instant::now(), 0);
                let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
                Err(FetchError::CircuitOpen { host: call.host.to_string(), seconds, why })
            }
        }
    }
}

/// What one hop came to.
enum Hop {
    /// A response to hand back.
    Answer(Fetched),
    /// A redirect to follow.
    Redirect(Url),
}

/// Where a redirect points, resolved against the URL that answered. A 3xx
/// without a usable `Location` is handed back as it is (the adapter treats
/// it as a failed status).
fn redirect_target(status: u16, location: Option<&str>, base: &Url) -> Option<Url> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    base.join(location?.trim()).ok()
}

/// Who a request is for, as the log records it, and what it sends.
struct Call<'a> {
    host: &'a str,
    /// The adapter's name, or a model endpoint's label.
    adapter: &'a str,
    claim_sha256: &'a str,
    /// The model asked, for a model endpoint.
    model: Option<&'a str>,
    send: Send<'a>,
}

/// The request of a [`Call`].
#[derive(Clone, Copy)]
enum Send<'a> {
    Get,
    PostJson { body: &'a [u8], bearer: Option<&'a str>, tokens_of: fn(&[u8]) -> Option<u64> },
}

/// A JSON POST to a model endpoint ([`HttpClient::post_json`]).
#[derive(Clone, Copy, Debug)]
pub struct JsonPost<'a> {
    /// What the log calls the caller (`model:<name>`).
    pub label: &'a str,
    /// The model asked, for the log.
    pub model: &'a str,
    /// The request body.
    pub body: &'a [u8],
    /// An API key sent as a bearer token (never logged).
    pub bearer: Option<&'a str>,
    /// The tokens an answer's body reports using, for the log.
    pub tokens_of: fn(&[u8]) -> Option<u64>,
}

/// A response read whole.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    api_error: Option<String>,
    location: Option<String>,
    content_type: String,
    final_url: Url,
    body: std::result::Result<Vec<u8>, BodyError>,
}

/// Why a body was not read whole.
struct BodyError {
    detail: String,
    /// The whole-request deadline passed while the body came in (a host that
    /// sent its headers and stalled, or promised more than it sent): the
    /// host failing, as a time-out before the headers is.
    timed_out: bool,
}

async fn read_body(mut resp: reqwest::Response, limit: usize) -> std::result::Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(c)) => {
                if body.len() + c.len() > limit {
                    return Err(BodyError { detail: format!("body larger than {limit} bytes"), timed_out: false });
                }
                body.extend_from_slice(&c);
            }
            Ok(None) => return Ok(body),
            Err(e) => {
                let timed_out = e.is_timeout();
                let detail = if timed_out {
                    "the body stalled past the request's deadline".to_string()
                } else {
                    format!("body unreadable: {}", root_cause(&e))
                };
                return Err(BodyError { detail, timed_out });
            }
        }
    }
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
