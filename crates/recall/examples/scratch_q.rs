use amem_recall::{Recall, Wiki};
use std::path::Path;
use std::time::Instant;
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

fn main() {
    let home = std::path::Path::new("/tmp/recall-bench-home");
    if !home.exists() {
        write_wiki(home, 10_000);
        let mut w = Wiki::open(home).unwrap();
        let t = Instant::now();
        w.index_wiki(Default::default(), &mut |_| std::ops::ControlFlow::Continue(())).unwrap();
        println!("index {:?}", t.elapsed());
        std::fs::write("/tmp/claims.txt", claims(if std::env::args().count() > 1 { 20 } else { 1000 }).join("\n")).unwrap();
    }
    let wiki = Wiki::open(home).unwrap();
    let c = rusqlite::Connection::open(home.join("ledger.sqlite")).unwrap();
    let claims: Vec<String> = std::fs::read_to_string("/tmp/claims.txt").unwrap().lines().map(String::from).collect();
    let mut tot = std::time::Duration::ZERO;
    let mut tq = std::time::Duration::ZERO;
    for q in &claims {
        let t = Instant::now();
        let h = wiki.search(q, 5).unwrap();
        tot += t.elapsed();
        let expr = amem_recall::query::Query::from_claim(q).fts_expression().unwrap();
        let t = Instant::now();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM (SELECT rowid, bm25(wiki_fts) r FROM wiki_fts WHERE wiki_fts MATCH ?1 ORDER BY r LIMIT 5)",
                [&expr],
                |r| r.get(0),
            )
            .unwrap();
        tq += t.elapsed();
        let t = Instant::now();
        let m: i64 = c.query_row("SELECT count(*) FROM wiki_fts WHERE wiki_fts MATCH ?1", [&expr], |r| r.get(0)).unwrap();
        let tm = t.elapsed();
        if claims.len() < 30 {
            println!("{} hits={} matched={} {:?} :: {}", h.len(), n, m, tm, expr);
        }
    }
    let t = Instant::now();
    let mut lat = vec![];
    for q in &claims {
        let t1 = Instant::now();
        wiki.search(q, 5).unwrap();
        lat.push(t1.elapsed());
    }
    lat.sort();
    println!("second pass avg {:?} p50 {:?} p99 {:?}", t.elapsed() / claims.len() as u32, lat[lat.len() / 2], lat[lat.len() * 99 / 100]);
    println!("avg search {:?} avg raw {:?}", tot / claims.len() as u32, tq / claims.len() as u32);
    let t0 = Instant::now();
    c.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.wiki_qterms USING fts5(t, tokenize='porter unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.wiki_qterms_i USING fts5vocab(temp, wiki_qterms, instance);
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.wiki_fts_row USING fts5vocab(main, wiki_fts, row);",
    )
    .unwrap();
    println!("setup {:?}", t0.elapsed());
    let mut tv = std::time::Duration::ZERO;
    let mut tp = std::time::Duration::ZERO;
    let mut plat = vec![];
    for q in &claims {
        let terms: Vec<String> = amem_recall::query::Query::from_claim(q).terms.iter().map(|t| t.text.clone()).collect();
        let t = Instant::now();
        c.execute("DELETE FROM temp.wiki_qterms", []).unwrap();
        {
            let mut ins = c.prepare_cached("INSERT INTO temp.wiki_qterms(rowid, t) VALUES (?1, ?2)").unwrap();
            for (i, term) in terms.iter().enumerate() {
                ins.execute(rusqlite::params![i as i64, term]).unwrap();
            }
        }
        let mut st = c.prepare_cached("SELECT doc, term FROM temp.wiki_qterms_i").unwrap();
        let stems: Vec<(i64, String)> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(|x| x.unwrap()).collect();
        let mut dfq = c.prepare_cached("SELECT doc FROM temp.wiki_fts_row WHERE term = ?1").unwrap();
        let mut out = vec![];
        for (i, s) in &stems {
            let df: Option<i64> = dfq.query_row([s], |r| r.get(0)).ok();
            out.push((*i, s.clone(), df));
        }
        tv += t.elapsed();
        let qq = amem_recall::query::Query::from_claim(q);
        let mut dfs = vec![0i64; qq.terms.len()];
        for (i, _, df) in &out {
            let i = *i as usize;
            let d = df.unwrap_or(0);
            dfs[i] = if dfs[i] == 0 { d } else { dfs[i].min(d) };
        }
        let plan = qq.plan(&dfs, 14840);
        let expr = plan.fts_expression().unwrap();
        let t = Instant::now();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM (SELECT rowid, bm25(wiki_fts) r FROM wiki_fts WHERE wiki_fts MATCH ?1 ORDER BY r LIMIT 5)",
                [&expr],
                |r| r.get(0),
            )
            .unwrap();
        let e = t.elapsed();
        tp += e;
        let m: i64 = c.query_row("SELECT count(*) FROM wiki_fts WHERE wiki_fts MATCH ?1", [&expr], |r| r.get(0)).unwrap();
        plat.push((e, m, plan.terms.len(), qq.terms.len()));
        let _ = n;
    }
    plat.sort();
    for x in plat.iter().rev().take(12) {
        println!("slow {:?}", x);
    }
    println!(
        "avg vocab {:?} avg planned fts {:?} p50 {:?} p99 {:?}",
        tv / claims.len() as u32,
        tp / claims.len() as u32,
        plat[plat.len() / 2],
        plat[plat.len() * 99 / 100]
    );
}
