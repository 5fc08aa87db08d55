//! A tiny HTTP/1.1 server on a loopback address, replaying canned
//! responses and recording what it received (time, target, headers). Built
//! on `std::net` threads so it runs beside any async runtime. Feature
//! `testing` (and this crate's own tests) only.
//!
//! Bind different loopback addresses (`127.0.0.1`, `127.0.0.2`, ...) to get
//! distinct host names, so trust-list checks in tests are real host checks.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A canned response.
#[derive(Clone, Debug)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Reply {
    /// 200 with a content type and body.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply { status: 200, headers: vec![("Content-Type".into(), content_type.into())], body: body.into(), delay: Duration::ZERO }
    }

    /// A bodiless status.
    pub fn status(status: u16) -> Reply {
        Reply { status, headers: Vec::new(), body: Vec::new(), delay: Duration::ZERO }
    }

    /// A redirect to `location`.
    pub fn redirect(location: &str) -> Reply {
        Reply::status(302).header("Location", location)
    }

    /// Add a header.
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Answer after `d`.
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }

    /// Never answer: hold the connection open until the server stops (a
    /// host that accepts and then hangs).
    pub fn never() -> Reply {
        Reply::status(200).delayed(Duration::MAX)
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// When its head was complete.
    pub at: Instant,
    /// Path and query.
    pub target: String,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body (of `Content-Length` bytes; empty without one).
    pub body: Vec<u8>,
}

impl Seen {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Decides the reply to a request.
pub type Handler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// A handler answering the first route whose needle occurs in the target, else 404.
pub fn routes(table: Vec<(&str, Reply)>) -> Handler {
    let table: Vec<(String, Reply)> = table.into_iter().map(|(k, r)| (k.to_string(), r)).collect();
    Arc::new(move |s: &Seen| {
        table.iter().find(|(k, _)| s.target.contains(k.as_str())).map(|(_, r)| r.clone()).unwrap_or(Reply::status(404))
    })
}

/// The server; stops when dropped.
pub struct LoopbackServer {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Start on `ip` (a loopback address), port chosen by the OS.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub fn start(ip: &str, handler: Handler) -> std::io::Result<LoopbackServer> {
        let listener = TcpListener::bind((ip, 0))?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, i, m, st) = (Arc::clone(&seen), Arc::clone(&in_flight), Arc::clone(&max_in_flight), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (s, i, m, h, st) = (Arc::clone(&s), Arc::clone(&i), Arc::clone(&m), Arc::clone(&handler), Arc::clone(&st));
                std::thread::spawn(move || serve(conn, &h, &s, &i, &m, &st));
            }
        });
        Ok(LoopbackServer { addr, seen, in_flight, max_in_flight, stop, thread: Some(thread) })
    }

    /// `http://<ip>:<port>/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// How many requests were received.
    pub fn count(&self) -> usize {
        self.seen.lock().map(|v| v.len()).unwrap_or(0)
    }

    /// The most requests ever being answered at once.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = self.in_flight.load(Ordering::SeqCst);
    }
}

fn serve(mut conn: TcpStream, handler: &Handler, seen: &Mutex<Vec<Seen>>, in_flight: &AtomicUsize, max: &AtomicUsize, stop: &AtomicBool) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 64 * 1024 {
            return;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let target = lines.next().and_then(|l| l.split(' ').nth(1)).unwrap_or("/").to_string();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())).collect();
    let at = Instant::now();
    // A POST's body: read it whole before answering, so that the client is never cut off
    // while still sending (tests read the prompt a model endpoint was sent).
    let length = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse::<usize>().ok()).unwrap_or(0).min(16 << 20);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    body.truncate(length);
    let req = Seen { at, target, headers, body };
    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    max.fetch_max(now, Ordering::SeqCst);
    if let Ok(mut v) = seen.lock() {
        v.push(req.clone());
    }
    let reply = handler(&req);
    if reply.delay == Duration::MAX {
        // `Reply::never`: hold on until the server is dropped.
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
        in_flight.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    if !reply.delay.is_zero() {
        std::thread::sleep(reply.delay);
    }
    // Leave the in-flight count before the answer goes out: the client can
    // only send its next request after reading this one, so decrementing
    // afterwards would count a serial client as two at once.
    in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut out = format!("HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n", reply.status, reply.body.len());
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&reply.body);
    let _ = conn.write_all(&bytes);
    let _ = conn.flush();
}

/// A trust-list source served by `server` (every URL under it), for tests.
///
/// # Panics
/// When `rate` is not a rate (`"100/s"`): a test's own literal.
pub fn source_config(name: &str, server: &LoopbackServer, adapter: crate::AdapterKind, rate: &str, priority: i64) -> crate::SourceConfig {
    crate::SourceConfig {
        name: name.into(),
        url_pattern: format!("{}*", server.url()).parse().expect("invariant: a loopback URL is a URL pattern"),
        priority,
        adapter,
        rate: Some(rate.parse().expect("invariant: a test's rate literal")),
        search_url: None,
    }
}

/// An enabled trust list of these sources (default action: warn), for tests.
pub fn trust_list(sources: Vec<crate::SourceConfig>) -> crate::GroundingConfig {
    crate::GroundingConfig { enabled: true, default_action: crate::DefaultAction::Warn, sources }
}

/// Grounder options with short retries and timeouts, for tests against loopback servers.
///
/// # Panics
/// Never: the rate literal is valid.
pub fn fast_options() -> crate::GrounderOptions {
    crate::GrounderOptions {
        client: crate::ClientOptions {
            max_retries: 2,
            backoff_base: Duration::from_millis(20),
            global_rate: "100/s".parse().expect("invariant: a valid rate literal"),
            timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(2),
            ..crate::ClientOptions::default()
        },
        ..crate::GrounderOptions::default()
    }
}
