//! Recall speed on a generated wiki: index build throughput and per-claim
//! query latency.
//!
//! `cargo bench -p amem-recall --bench recall` runs the divan benches.
//! `scripts/bench-recall.sh [--check]` runs the report mode instead
//! (`AMEM_RECALL_BENCH_REPORT=write|check`): it builds a 10,000-document
//! wiki, times a full index build against a reference pass over the same
//! files (read + SHA-256, the least any indexer must do), times 1,000 claim
//! queries (k = 5) by bm25, dense and hybrid recall, the same on a wiki of
//! some 100,000 chunks (hybrid), and writes the figures into the benchmarks page's `recall` block
//! (`write`) or fails when the benchmarks page figures are off by more than 2x or p99
//! misses the 5 ms target (`check`).

use amem_recall::{IndexOptions, Meaning, Recall, RecallMethod, Wiki};
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

/// Documents in the report-mode wiki (the 10,000).
const DOCS: usize = 10_000;
/// Claims timed in report mode.
const QUERIES: usize = 1_000;
/// The latency target for p99 (issue 4, item 12; issue 42 for every method).
const P99_TARGET: Duration = Duration::from_millis(5);
/// Documents of the large wiki: some 100,000 chunks.
const LARGE_DOCS: usize = 67_000;
/// The latency target for p99 of hybrid recall at 100,000 chunks (issue 42).
const LARGE_P99_TARGET: Duration = Duration::from_millis(20);

/// A small deterministic generator (xorshift64*), so every run builds the same wiki.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Zipf-distributed rank in `0..n`: P(r) proportional to 1/(r + 50), so
    /// the most frequent content word is about 0.3% of content words, as in
    /// English prose once the ~50 function words are set aside.
    fn zipf(&mut self, n: usize) -> usize {
        const A: f64 = 50.0;
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        let r = A * ((n as f64 + A) / A).powf(u) - A;
        (r as usize).min(n - 1)
    }
}

/// Function words mixed into the prose (claims drop them, as real claims do).
const FUNCTION_WORDS: &[&str] = &["the", "of", "and", "to", "in", "is", "that", "for", "it", "was", "on", "with", "as", "by", "at", "from"];

struct Corpus {
    vocab: Vec<String>,
}

impl Corpus {
    fn new(rng: &mut Rng) -> Corpus {
        const SYL: &[&str] =
            &["ka", "lo", "mi", "ter", "an", "sul", "vo", "ri", "den", "po", "ex", "tra", "ne", "gul", "ion", "sa", "mor", "che"];
        let mut vocab = Vec::new();
        while vocab.len() < 20_000 {
            let n = 2 + rng.below(3);
            let w: String = (0..n).map(|_| SYL[rng.below(SYL.len())]).collect();
            vocab.push(w);
        }
        Corpus { vocab }
    }

    fn sentence(&self, rng: &mut Rng) -> String {
        let n = 8 + rng.below(13);
        let mut words: Vec<String> = (0..n)
            .map(|_| {
                if rng.below(10) < 4 {
                    FUNCTION_WORDS[rng.below(FUNCTION_WORDS.len())].to_string()
                } else {
                    self.vocab[rng.zipf(self.vocab.len())].clone()
                }
            })
            .collect();
        match rng.below(4) {
            0 => words.insert(rng.below(n), format!("{}.{} percent", rng.below(100), rng.below(10))),
            1 => words.insert(rng.below(n), format!("in {}", 1900 + rng.below(125))),
            _ => {}
        }
        let mut s = words.join(" ");
        if let Some(first) = s.get(..1) {
            s = first.to_uppercase() + &s[1..];
        }
        s.push('.');
        s
    }

    fn document(&self, rng: &mut Rng, i: usize) -> String {
        let title: Vec<&str> = (0..2 + rng.below(3)).map(|_| self.vocab[rng.below(self.vocab.len())].as_str()).collect();
        let mut doc = format!("---\ntitle: {} {i}\n---\n", title.join(" "));
        for p in 0..1 + rng.below(3) {
            if p > 0 {
                doc.push_str("\n\n");
            }
            let sentences: Vec<String> = (0..3 + rng.below(5)).map(|_| self.sentence(rng)).collect();
            doc.push_str(&sentences.join(" "));
        }
        doc.push('\n');
        doc
    }

    /// A claim paraphrasing a sentence: some words dropped, two foreign words added.
    fn claim(&self, rng: &mut Rng) -> String {
        let s = self.sentence(rng);
        let mut words: Vec<&str> = s.split(' ').filter(|_| rng.below(4) != 0).collect();
        let extra = [self.vocab[rng.below(self.vocab.len())].as_str(), self.vocab[rng.below(self.vocab.len())].as_str()];
        words.extend(extra);
        words.join(" ")
    }
}

/// Write `docs` generated documents under `home/wiki`; returns their total bytes.
fn write_wiki(home: &Path, docs: usize) -> u64 {
    let mut rng = Rng(0x5EED_1234_ABCD_0042);
    let corpus = Corpus::new(&mut rng);
    let mut total = 0;
    for i in 0..docs {
        let dir = home.join("wiki").join(format!("d{:02}", i % 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let doc = corpus.document(&mut rng, i);
        total += doc.len() as u64;
        std::fs::write(dir.join(format!("n{i:05}.md")), doc).expect("write");
    }
    total
}

fn claims(n: usize) -> Vec<String> {
    let mut rng = Rng(0x5EED_1234_ABCD_0042);
    let corpus = Corpus::new(&mut rng);
    let mut q = Rng(0xC1A1_0000_0000_0007);
    (0..n).map(|_| corpus.claim(&mut q)).collect()
}

fn index(home: &Path, meaning: Option<Meaning>) {
    let mut wiki = Wiki::open(home).expect("open").with_meaning(meaning);
    wiki.index_wiki(IndexOptions::default(), &mut |_| ControlFlow::Continue(())).expect("index");
}

/// Read and digest every wiki file: the floor under any index build.
fn reference_pass(home: &Path) -> u64 {
    let mut n = 0;
    let mut stack = vec![home.join("wiki")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let b = std::fs::read(&p).expect("read");
                n += u64::from(amem_records::Digest::of(&b).0[0]);
            }
        }
    }
    n
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn index_build_1000_docs(b: divan::Bencher<'_, '_>) {
    b.with_inputs(|| {
        let d = tempfile::tempdir().expect("tempdir");
        write_wiki(d.path(), 1_000);
        d
    })
    .bench_values(|d| {
        index(d.path(), None);
        d
    });
}

#[divan::bench(sample_count = 200)]
fn query_k5_on_10000_docs(b: divan::Bencher<'_, '_>) {
    let d = tempfile::tempdir().expect("tempdir");
    write_wiki(d.path(), DOCS);
    index(d.path(), None);
    let wiki = Wiki::open(d.path()).expect("open");
    let qs = claims(256);
    let mut i = 0;
    b.bench_local(|| {
        i = (i + 1) % qs.len();
        divan::black_box(wiki.search(&qs[i], 5).expect("search"))
    });
}

/// Latency of one recall method over the timed claims.
struct Latency {
    method: RecallMethod,
    p50_ms: f64,
    p99_ms: f64,
    /// The first pass alone (cold term lookups, other processes' time included).
    first_p50: f64,
    first_p99: f64,
}

struct Figures {
    mb: f64,
    index_mbps: f64,
    /// The same build storing every chunk's vector (recall by meaning on).
    index_embedded_s: f64,
    index_s: f64,
    reference_mbps: f64,
    chunks: u64,
    /// bm25, dense and hybrid at DOCS documents.
    latency: Vec<Latency>,
    /// Chunks of the large wiki, and hybrid's latency on it.
    large_chunks: u64,
    large: Latency,
    /// 1-minute load average when measured (the machine is shared).
    load: String,
}

impl Figures {
    fn markdown(&self) -> String {
        let mut s = format!(
            "Speed on a generated wiki of {DOCS} markdown documents ({:.1} MB, {} chunks), release build on this 2-core machine, \
             1-minute load average {} when measured (`scripts/bench-recall.sh`). Latency is each claim's fastest of 5 runs; \
             the first run (cold word lookups, time taken by other processes included) beside it.\n\n\
             | measure | figure |\n|---|---|\n\
             | index build, from scratch | {:.1} MB/s ({:.2}x the reference pass: read + SHA-256 of the same files, {:.1} MB/s) |\n\
             | the same with every chunk embedded (recall by meaning on) | {:.1} s (bm25 alone: {:.1} s) |\n",
            self.mb,
            self.chunks,
            self.load,
            self.index_mbps,
            self.index_mbps / self.reference_mbps,
            self.reference_mbps,
            self.index_embedded_s,
            self.index_s,
        );
        for l in &self.latency {
            s.push_str(&format!(
                "| query latency per claim, k = 5, {QUERIES} claims, {} | p50 {:.2} ms, p99 {:.2} ms (target p99 < {} ms); first run {:.2} ms, {:.2} ms |\n",
                l.method,
                l.p50_ms,
                l.p99_ms,
                P99_TARGET.as_millis(),
                l.first_p50,
                l.first_p99
            ));
        }
        let l = &self.large;
        s.push_str(&format!(
            "| the same at {} chunks ({LARGE_DOCS} documents), {} | p50 {:.2} ms, p99 {:.2} ms (target p99 < {} ms); first run {:.2} ms, {:.2} ms |\n",
            self.large_chunks,
            l.method,
            l.p50_ms,
            l.p99_ms,
            LARGE_P99_TARGET.as_millis(),
            l.first_p50,
            l.first_p99
        ));
        s
    }
}

/// The shipped embedder, ranking by `method`.
fn meaning(method: RecallMethod) -> Option<Meaning> {
    Some(Meaning { embedder: amem_models::StaticEmbedder::shipped().expect("the shipped embedder loads"), method })
}

/// Each claim timed in five passes on `wiki`. The machine is shared (other builds take
/// whole time slices while a 1 ms query runs), so the figure that measures the code is
/// each claim's fastest run; the first pass, cold for each claim's rare words (their
/// frequencies are looked up once and cached) and exposed to the other processes, is
/// reported beside it.
fn latency(wiki: &Wiki, qs: &[String]) -> Latency {
    for q in qs.iter().take(50) {
        divan::black_box(wiki.search(q, 5).expect("search"));
    }
    let mut lat: Vec<Duration> = vec![Duration::MAX; qs.len()];
    let mut first: Vec<Duration> = Vec::with_capacity(qs.len());
    for pass in 0..5 {
        for (slot, q) in lat.iter_mut().zip(qs) {
            let t = Instant::now();
            divan::black_box(wiki.search(q, 5).expect("search"));
            let e = t.elapsed();
            if pass == 0 {
                first.push(e);
            }
            *slot = (*slot).min(e);
        }
    }
    first.sort();
    lat.sort();
    let pct = |v: &[Duration], p: f64| v[((v.len() as f64 * p).ceil() as usize).saturating_sub(1).min(v.len() - 1)].as_secs_f64() * 1e3;
    Latency {
        method: wiki.method(),
        p50_ms: pct(&lat, 0.50),
        p99_ms: pct(&lat, 0.99),
        first_p50: pct(&first, 0.50),
        first_p99: pct(&first, 0.99),
    }
}

fn measure() -> Figures {
    let d = tempfile::tempdir().expect("tempdir");
    let bytes = write_wiki(d.path(), DOCS);
    let mb = bytes as f64 / 1e6;
    // Warm the page cache, then time the reference and the index build.
    divan::black_box(reference_pass(d.path()));
    let t = Instant::now();
    divan::black_box(reference_pass(d.path()));
    let reference = t.elapsed().as_secs_f64();
    let t = Instant::now();
    index(d.path(), None);
    let index_s = t.elapsed().as_secs_f64();
    // The same wiki again, from scratch, with every chunk embedded.
    let e = tempfile::tempdir().expect("tempdir");
    write_wiki(e.path(), DOCS);
    divan::black_box(reference_pass(e.path()));
    let t = Instant::now();
    index(e.path(), meaning(RecallMethod::Hybrid));
    let index_embedded_s = t.elapsed().as_secs_f64();
    let qs = claims(QUERIES);
    let mut chunks = 0;
    let mut lat = Vec::new();
    for method in [RecallMethod::Bm25, RecallMethod::Dense, RecallMethod::Hybrid] {
        let wiki = Wiki::open(e.path()).expect("open").with_meaning(meaning(method));
        chunks = wiki.stats().expect("stats").chunks;
        lat.push(latency(&wiki, &qs));
    }
    drop((d, e));
    let big = tempfile::tempdir().expect("tempdir");
    write_wiki(big.path(), LARGE_DOCS);
    index(big.path(), meaning(RecallMethod::Hybrid));
    let wiki = Wiki::open(big.path()).expect("open").with_meaning(meaning(RecallMethod::Hybrid));
    let large_chunks = wiki.stats().expect("stats").chunks;
    let large = latency(&wiki, &qs);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "n/a".into());
    Figures {
        mb,
        index_mbps: mb / index_s,
        index_embedded_s,
        index_s,
        reference_mbps: mb / reference,
        chunks,
        latency: lat,
        large_chunks,
        large,
        load,
    }
}

const BEGIN: &str = "<!-- recall:bench:begin -->\n";
const END: &str = "<!-- recall:bench:end -->";

/// The figures in the benchmarks page block: index MB/s, then p50 and p99 of each latency row.
fn parse_block(block: &str) -> Option<Vec<f64>> {
    let num_after = |text: &str, key: &str| -> Option<f64> {
        let at = text.find(key)? + key.len();
        text[at..].split_whitespace().next()?.trim_end_matches(',').parse().ok()
    };
    let mut out = vec![num_after(block, "| index build, from scratch | ")?];
    for line in block.lines().filter(|l| l.contains("| p50 ")) {
        out.push(num_after(line, "| p50 ")?);
        out.push(num_after(line, ", p99 ")?);
    }
    Some(out)
}

#[allow(clippy::print_stdout, clippy::print_stderr)]
fn report(mode: &str) -> Result<(), String> {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/benchmarks.md");
    let readme = std::fs::read_to_string(&readme_path).map_err(|e| format!("read docs/benchmarks.md: {e}"))?;
    let start = readme.find(BEGIN).ok_or("docs/benchmarks.md has no recall:bench block")? + BEGIN.len();
    let end = start + readme[start..].find(END).ok_or("docs/benchmarks.md does not close the recall:bench block")?;
    let f = measure();
    let block = f.markdown();
    print!("{block}");
    match mode {
        "write" => {
            let updated = format!("{}{}{}", &readme[..start], block, &readme[end..]);
            std::fs::write(&readme_path, updated).map_err(|e| format!("write docs/benchmarks.md: {e}"))?;
            eprintln!("wrote the recall:bench block of docs/benchmarks.md");
        }
        "check" => {
            let page = parse_block(&readme[start..end])
                .ok_or("the benchmarks page recall:bench block has no figures: run scripts/bench-recall.sh")?;
            let mut fresh = vec![f.index_mbps];
            for l in f.latency.iter().chain([&f.large]) {
                fresh.extend([l.p50_ms, l.p99_ms]);
            }
            let within = |a: f64, b: f64| a <= 2.0 * b && b <= 2.0 * a;
            if page.len() != fresh.len() || !page.iter().zip(&fresh).all(|(&a, &b)| within(a, b)) {
                return Err(format!(
                    "benchmarks page figures (index MB/s, then p50 and p99 ms per row: {page:?}) differ by more than 2x from this run \
                     ({fresh:.2?}): rerun scripts/bench-recall.sh"
                ));
            }
            eprintln!("benchmarks page recall:bench figures agree with this run within 2x");
        }
        other => return Err(format!("AMEM_RECALL_BENCH_REPORT={other}: use write or check")),
    }
    for l in &f.latency {
        if l.p99_ms >= P99_TARGET.as_secs_f64() * 1e3 {
            return Err(format!("{}: p99 {:.2} ms misses the {} ms target", l.method, l.p99_ms, P99_TARGET.as_millis()));
        }
    }
    if f.large.p99_ms >= LARGE_P99_TARGET.as_secs_f64() * 1e3 {
        return Err(format!(
            "{} at {} chunks: p99 {:.2} ms misses the {} ms target",
            f.large.method,
            f.large_chunks,
            f.large.p99_ms,
            LARGE_P99_TARGET.as_millis()
        ));
    }
    Ok(())
}

#[allow(clippy::print_stderr, clippy::exit)]
fn main() {
    match std::env::var("AMEM_RECALL_BENCH_REPORT") {
        Ok(mode) => {
            if let Err(e) = report(&mode) {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
        Err(_) => divan::main(),
    }
}
