//! `corpus models`: the model manifests, their files on this machine, and single-model runs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use corpus::providers::layout::runtime::Device;
use corpus::providers::layout::Pipeline;
use corpus::providers::manifest::{Installed, MANIFESTS};
use corpus::providers::raster::Bgr;
use serde_json::json;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::EXIT_SOME_FAILED;

/// Arguments of `corpus models`.
#[derive(Args, Debug)]
pub struct ModelsArgs {
    #[command(subcommand)]
    command: ModelsCommand,
}

#[derive(Subcommand, Debug)]
enum ModelsCommand {
    /// Every manifest under models/: name, task, version, digest, source package, licence,
    /// and whether its file is present (by size; `check` re-hashes)
    List(OutputArgs),
    /// Re-hash every installed file against its manifest's blake3; exits 3 if any is missing
    /// or differs
    Check(OutputArgs),
    /// Run one model of the layout pipeline on PNG images and print one JSON line per image
    /// (the schema bench/layout_compare.py reads)
    Infer(InferArgs),
    /// Write PDF pages as PNG exactly as the layout provider renders them (to look at what the
    /// models see, or to give the Python reference packages the same pixels)
    Render(RenderArgs),
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// The PDF
    pdf: PathBuf,
    /// Pages to write: all, or a list like 1-3,5
    #[arg(long, default_value = "all", value_parser = corpus::providers::PageSelection::parse)]
    pages: corpus::providers::PageSelection,
    /// Pixels per PDF point [default: the layout provider's]
    #[arg(long)]
    scale: Option<f32>,
    /// Output folder; files are <pdf stem>-<page>.png
    #[arg(long, short = 'o', default_value = ".")]
    out: PathBuf,
}

#[derive(Args, Debug)]
struct InferArgs {
    /// What to run: the layout model on pages, the table model on table crops, or text
    /// detection + recognition on pages
    #[arg(long, value_enum)]
    task: Task,
    /// Where the models run
    #[arg(long, default_value = "cpu", value_parser = Device::parse)]
    device: Device,
    /// Worker threads, each with its own sessions (one intra-op thread each)
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// PNG images
    #[arg(required = true)]
    images: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Task {
    /// Regions of the page
    Layout,
    /// Table structure of a table crop
    Table,
    /// Regions, then the structure of every table region (cropped from the page)
    LayoutTable,
    /// Text lines: detection + recognition
    Ocr,
}

/// Runs `corpus models`.
pub fn run(a: &ModelsArgs) -> anyhow::Result<ExitCode> {
    match &a.command {
        ModelsCommand::List(o) => list(o, false),
        ModelsCommand::Check(o) => list(o, true),
        ModelsCommand::Infer(i) => infer(i),
        ModelsCommand::Render(r) => render(r),
    }
}

fn list(o: &OutputArgs, rehash: bool) -> anyhow::Result<ExitCode> {
    let mut rows = Vec::new();
    let mut bad = 0;
    for (path, _) in MANIFESTS {
        let inst = Installed::find(path)?;
        let m = &inst.manifest;
        let status = if rehash {
            match inst.verify() {
                Ok(_) => "ok".to_string(),
                Err(e) => {
                    bad += 1;
                    e.to_string()
                }
            }
        } else {
            match std::fs::metadata(&inst.file) {
                Ok(md) if md.len() == m.source.size => "present".into(),
                Ok(md) => {
                    bad += 1;
                    format!("wrong size ({} bytes)", md.len())
                }
                Err(_) => {
                    bad += 1;
                    "missing".into()
                }
            }
        };
        let digest =
            m.source.blake3.clone().unwrap_or_else(|| format!("sha256:{}", m.source.sha256));
        rows.push((m.clone(), *path, inst.file.clone(), digest, status));
    }
    match o.format {
        Format::Json => print_json(
            &rows
                .iter()
                .map(|(m, path, file, digest, status)| {
                    json!({
                        "name": m.name, "task": m.task, "version": m.version, "manifest": path,
                        "digest": digest, "package": m.source.package,
                        "package_version": m.source.package_version, "licence": m.licence,
                        "file": file, "status": status,
                    })
                })
                .collect::<Vec<_>>(),
        )?,
        Format::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|(m, _, _, digest, status)| {
                    vec![
                        m.name.clone(),
                        m.task.clone(),
                        m.version.clone(),
                        digest.chars().take(16).collect(),
                        format!("{} {}", m.source.package, m.source.package_version),
                        m.licence.split(" (").next().unwrap_or_default().to_string(),
                        status.clone(),
                    ]
                })
                .collect();
            print_table(
                &["name", "task", "version", "digest", "source", "licence", "status"],
                &table,
            )?;
            // The table may cut a long status: each problem is also printed whole.
            for (m, _, _, _, status) in
                rows.iter().filter(|r| !matches!(r.4.as_str(), "ok" | "present"))
            {
                println!("{}: {status}", m.name);
            }
            if bad > 0 {
                eprintln!("corpus: {bad} model file(s) missing or damaged; run `corpus setup`");
            }
        }
    }
    Ok(if bad > 0 { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

/// Decodes a PNG (8-bit gray, gray+alpha, RGB or RGBA) to BGR; alpha is dropped.
pub fn read_png(path: &std::path::Path) -> anyhow::Result<Bgr> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(f));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().with_context(|| format!("{}: not a PNG", path.display()))?;
    let mut buf = vec![0; reader.output_buffer_size().context("image too large")?];
    let info =
        reader.next_frame(&mut buf).with_context(|| format!("{}: damaged PNG", path.display()))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let px = &buf[..info.buffer_size()];
    let rgb: Vec<u8> = match info.color_type {
        png::ColorType::Rgb => px.to_vec(),
        png::ColorType::Rgba => px.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect(),
        png::ColorType::Grayscale => px.iter().flat_map(|&v| [v, v, v]).collect(),
        png::ColorType::GrayscaleAlpha => {
            px.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0]]).collect()
        }
        other => anyhow::bail!("{}: unsupported PNG colour type {other:?}", path.display()),
    };
    Ok(Bgr::from_rgb(w, h, &rgb))
}

fn infer(a: &InferArgs) -> anyhow::Result<ExitCode> {
    let jobs = a.jobs.clamp(1, a.images.len().max(1));
    // Every worker loads its sessions before the clock starts, as the Python reference does.
    let mut pipes = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        pipes.push(Pipeline::new(a.device)?);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<anyhow::Result<serde_json::Value>>>> =
        std::sync::Mutex::new((0..a.images.len()).map(|_| None).collect());
    let t0 = Instant::now();
    let (next_ref, results_ref) = (&next, &results);
    std::thread::scope(|s| {
        for p in pipes.iter_mut() {
            let (next, results) = (next_ref, results_ref);
            s.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = a.images.get(i) else { break };
                let r = infer_one(p, a.task, path);
                results.lock().expect("no panics while locked")[i] = Some(r);
            });
        }
    });
    let wall = t0.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for r in results.into_inner().expect("threads joined").into_iter().flatten() {
        match r {
            Ok(v) => writeln!(out, "{v}")?,
            Err(e) => {
                eprintln!("corpus: {e:#}");
                failed += 1;
            }
        }
    }
    let n = a.images.len();
    eprintln!(
        "{}: {n} images, {jobs} workers x 1 threads, {wall:.3} s wall (engine creation excluded), {:.3} images/s",
        a.task.name(),
        n as f64 / wall.max(1e-9)
    );
    Ok(if failed > 0 { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}

impl Task {
    fn name(self) -> &'static str {
        match self {
            Task::Layout => "layout",
            Task::Table => "table",
            Task::LayoutTable => "layout-table",
            Task::Ocr => "ocr",
        }
    }
}

fn layout_json(
    p: &mut Pipeline,
    img: &Bgr,
) -> anyhow::Result<(Vec<serde_json::Value>, Vec<[f32; 4]>)> {
    let labels = p.labels();
    let dets = p.detect(img)?;
    let tables = dets
        .iter()
        .filter(|d| labels.get(d.class).is_some_and(|l| l == "table"))
        .map(|d| d.bbox)
        .collect();
    let boxes = dets
        .iter()
        .map(|d| json!({"label": labels.get(d.class), "score": d.score, "box": d.bbox}))
        .collect();
    Ok((boxes, tables))
}

fn infer_one(
    p: &mut Pipeline,
    task: Task,
    path: &std::path::Path,
) -> anyhow::Result<serde_json::Value> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let img = read_png(path)?;
    let t = Instant::now();
    let mut v = match task {
        Task::Layout => json!({"boxes": layout_json(p, &img)?.0}),
        Task::LayoutTable => {
            let (boxes, tables) = layout_json(p, &img)?;
            let mut out = Vec::new();
            for b in tables {
                let (x0, y0) = (b[0].floor().max(0.0) as usize, b[1].floor().max(0.0) as usize);
                let crop = img.crop(x0, y0, b[2].ceil() as usize, b[3].ceil() as usize);
                if crop.width < 8 || crop.height < 8 {
                    continue;
                }
                let s = p.table_structure(&crop)?;
                out.push(json!({"box": b, "tokens": s.tokens, "cells": s.cells}));
            }
            json!({"boxes": boxes, "tables": out})
        }
        Task::Table => {
            let s = p.table_structure(&img)?;
            json!({"tokens": s.tokens, "cells": s.cells})
        }
        Task::Ocr => {
            let lines: Vec<_> = p
                .read_text(&img)?
                .iter()
                .map(|(b, text, score)| {
                    json!({"box": [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], "text": text, "score": score})
                })
                .collect();
            json!({"lines": lines})
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let m = v.as_object_mut().expect("an object");
    m.insert("image".into(), json!(name));
    m.insert("task".into(), json!(task.name()));
    m.insert("seconds".into(), json!(secs));
    Ok(v)
}

fn render(a: &RenderArgs) -> anyhow::Result<ExitCode> {
    use corpus::providers::pdfium as pdf;
    let bytes = std::fs::read(&a.pdf).with_context(|| format!("reading {}", a.pdf.display()))?;
    let pdfium = pdf::bind()?;
    let doc =
        pdf::open(&pdfium, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", a.pdf.display()))?;
    let stem = a.pdf.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let scale = a.scale.unwrap_or(corpus::providers::layout::RENDER_SCALE);
    for i in 0..doc.pages().len() {
        if !a.pages.contains(i as u32) {
            continue;
        }
        let page = doc.pages().get(i)?;
        let img = corpus::providers::raster::render(&page, scale).map_err(anyhow::Error::msg)?;
        let path = a.out.join(format!("{stem}-{}.png", i + 1));
        write_png(&path, &img)?;
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes a BGR image as an 8-bit RGB PNG ([`corpus::providers::raster::png`]).
pub fn write_png(path: &std::path::Path, img: &Bgr) -> anyhow::Result<()> {
    let bytes = corpus::providers::raster::png(img).map_err(anyhow::Error::msg)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}
