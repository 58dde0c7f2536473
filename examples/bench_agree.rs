//! Builds the store `bench/agree.sh` times `corpus agree` on: D documents of P pages each, read
//! by N synthetic providers, every output written through the store API (`Store::put_output`).
//!
//! Usage: `bench_agree DB [--providers N] [--documents D] [--pages P] [--seed S]`
//! (defaults 10, 100, 10, 1: 10 providers × 1,000 pages).
//!
//! Each page has a seeded "true" reading: 18–30 paragraphs of 25–60 words, a 6×4 table on
//! every third page and two display formulas on every other page. Provider `k` reads it with
//! its own, seeded, mistakes, more of them the larger `k` is: words changed or dropped, a
//! paragraph lost or split, two neighbours swapped, a table cell changed, a formula token
//! changed, a table missed. So every pair of providers disagrees a little, some more than
//! others, as real parsers do.

use std::path::PathBuf;
use std::time::Instant;

use corpus::doc::{BBox, Block, BlockKind, Cell, Doc, Page, Table};
use corpus::store::{IngestDoc, NewOutput, Store};

/// A seeded 64-bit LCG (PCG's multiplier), good enough for synthetic text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1_000_000.0 < p
    }
}

const WORDS: [&str; 32] = [
    "table",
    "model",
    "parser",
    "layout",
    "reading",
    "order",
    "score",
    "corpus",
    "page",
    "heading",
    "figure",
    "caption",
    "value",
    "result",
    "method",
    "baseline",
    "measure",
    "document",
    "text",
    "block",
    "column",
    "row",
    "formula",
    "agreement",
    "provider",
    "truth",
    "annotation",
    "sample",
    "error",
    "spread",
    "matrix",
    "ranking",
];

/// The seeded true page: paragraphs, tables, formulas.
struct TruePage {
    paragraphs: Vec<Vec<String>>,
    table: Option<Vec<Vec<String>>>,
    formulas: Vec<Vec<String>>,
}

fn true_page(rng: &mut Rng, page: usize) -> TruePage {
    let n = 18 + rng.below(13);
    let paragraphs = (0..n)
        .map(|_| {
            (0..25 + rng.below(36)).map(|_| WORDS[rng.below(WORDS.len())].to_string()).collect()
        })
        .collect();
    let table = (page % 3 == 0).then(|| {
        (0..6)
            .map(|r| {
                (0..4)
                    .map(|c| {
                        if r == 0 {
                            WORDS[rng.below(32)].to_string()
                        } else {
                            format!("{}.{}", rng.below(100), c)
                        }
                    })
                    .collect()
            })
            .collect()
    });
    let formulas = if page % 2 == 0 {
        (0..2)
            .map(|_| {
                let toks =
                    ["x", "y", "\\alpha", "+", "=", "^{2}", "\\frac{1}{2}", "\\sum_{i}", "z"];
                (0..8 + rng.below(8)).map(|_| toks[rng.below(toks.len())].to_string()).collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    TruePage { paragraphs, table, formulas }
}

/// Provider `k`'s reading of a true page (error rate grows with `k`).
fn read_page(t: &TruePage, k: usize, page: u32, rng: &mut Rng, blocks: &mut Vec<Block>) {
    let rate = 0.002 + 0.006 * k as f64;
    let mut paras: Vec<String> = Vec::new();
    for p in &t.paragraphs {
        if rng.chance(rate * 2.0) {
            continue; // lost
        }
        let mut words: Vec<String> = Vec::with_capacity(p.len());
        for w in p {
            if rng.chance(rate) {
                continue; // dropped
            }
            words.push(if rng.chance(rate) { WORDS[rng.below(32)].to_string() } else { w.clone() });
        }
        if rng.chance(rate * 2.0) && words.len() > 4 {
            let (a, b) = words.split_at(words.len() / 2);
            paras.push(a.join(" "));
            paras.push(b.join(" "));
        } else {
            paras.push(words.join(" "));
        }
    }
    if paras.len() > 2 && rng.chance(rate * 10.0) {
        let i = rng.below(paras.len() - 1);
        paras.swap(i, i + 1);
    }
    let mut y = 40.0;
    for text in paras {
        blocks.push(Block::new(
            BlockKind::Paragraph,
            page,
            BBox::new(60.0, y, 550.0, y + 20.0),
            text,
        ));
        y += 24.0;
    }
    if let Some(rows) = &t.table {
        if !rng.chance(rate * 5.0) {
            let mut tab = Table { rows: rows.len() as u32, cols: 4, cells: Vec::new() };
            for (r, row) in rows.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    let text =
                        if rng.chance(rate * 3.0) { format!("{}{}", v, k) } else { v.clone() };
                    tab.cells.push(Cell {
                        row: r as u32,
                        col: c as u32,
                        row_span: 1,
                        col_span: 1,
                        text,
                        header: r == 0,
                    });
                }
            }
            let mut b =
                Block::new(BlockKind::Table, page, BBox::new(60.0, 600.0, 550.0, 700.0), "");
            b.text = rows.iter().flatten().cloned().collect::<Vec<_>>().join(" ");
            b.table = Some(tab);
            blocks.push(b);
        }
    }
    for f in &t.formulas {
        let latex: Vec<String> = f
            .iter()
            .map(|x| if rng.chance(rate * 3.0) { "w".to_string() } else { x.clone() })
            .collect();
        let mut b = Block::new(
            BlockKind::Formula,
            page,
            BBox::new(100.0, 710.0, 500.0, 730.0),
            latex.join(" "),
        );
        b.latex = Some(latex.join(" "));
        blocks.push(b);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: bench_agree DB [--providers N] [--documents D] [--pages P] [--seed S]";
    let db = PathBuf::from(args.next().ok_or(usage)?);
    let (mut providers, mut documents, mut pages, mut seed) = (10usize, 100usize, 10usize, 1u64);
    while let Some(x) = args.next() {
        let v: u64 = args.next().and_then(|v| v.parse().ok()).ok_or(usage)?;
        match x.as_str() {
            "--providers" => providers = v as usize,
            "--documents" => documents = v as usize,
            "--pages" => pages = v as usize,
            "--seed" => seed = v,
            _ => return Err(usage.into()),
        }
    }
    let t0 = Instant::now();
    let mut s = Store::open(&db)?;
    let mut rng = Rng(seed);
    for d in 0..documents {
        let bytes = format!("%PDF-1.4 agree bench document {d} seed {seed}");
        let id = s
            .ingest(&IngestDoc {
                dataset: "bench",
                name: &format!("doc{d:05}"),
                source_path: "bench",
                pdf: corpus::store::PdfData::Bytes(bytes.as_bytes()),
                pages: pages as u32,
                truths: &[],
                attributes: &[],
            })?
            .document;
        let truth: Vec<TruePage> = (0..pages).map(|p| true_page(&mut rng, p)).collect();
        for k in 0..providers {
            let mut blocks = Vec::new();
            for (p, t) in truth.iter().enumerate() {
                read_page(t, k, p as u32, &mut rng, &mut blocks);
            }
            let doc = Doc {
                pages: vec![Page { width: 612.0, height: 792.0 }; pages],
                blocks,
                markdown: None,
                meta: None,
            };
            let json = serde_json::to_vec(&doc)?;
            let name = format!("synth{k:02}");
            s.put_output(&NewOutput {
                cache_key: &format!("agree-{seed}-{d}-{k}"),
                document: id,
                provider: &name,
                provider_version: "1",
                model_digest: "bench",
                config: "{}",
                pages: "all",
                result: Ok(&json),
                usage: corpus::store::Usage {
                    pages: pages as u64,
                    wall_ms: 1,
                    ..Default::default()
                },
                device: "cpu",
                run: None,
            })?;
        }
    }
    s.checkpoint()?;
    eprintln!(
        "bench: store with {documents} documents × {pages} pages read by {providers} providers built in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
