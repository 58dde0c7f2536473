//! ONNX Runtime through ort's `load-dynamic`: the library is found like libpdfium (env var,
//! then the set-up script's cache), bound once per process, and every session is made with
//! the same options, on the CPU or, with `--device cuda`, on the CUDA execution provider with
//! no silent fallback.

use std::sync::OnceLock;

use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;

use crate::providers::manifest::Installed;

/// Where the models run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// The CPU execution provider, one intra-op thread per worker.
    #[default]
    Cpu,
    /// The CUDA execution provider (device 0); session creation fails if it cannot be used.
    Cuda,
}

impl Device {
    /// Parses `cpu` or `cuda`.
    pub fn parse(s: &str) -> Result<Device, String> {
        match s {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda),
            _ => Err(format!("unknown device {s:?}: expected cpu or cuda")),
        }
    }

    /// The device's name as recorded in runs.
    pub fn as_str(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Cuda => "cuda",
        }
    }

    /// Reads `CORPUS_DEVICE` (set by `corpus ocr --device` for its workers); default CPU.
    pub fn from_env() -> Result<Device, String> {
        match std::env::var("CORPUS_DEVICE") {
            Ok(v) if !v.is_empty() => Device::parse(&v),
            _ => Ok(Device::Cpu),
        }
    }
}

/// The runtime library's manifest path under models/.
pub const RUNTIME_MANIFEST: &str = "onnxruntime/libonnxruntime.toml";

static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// Binds libonnxruntime once for the process and returns the environment.
pub fn environment() -> Result<&'static ort::environment::Environment, String> {
    ENV.get_or_init(|| {
        let lib = Installed::find(RUNTIME_MANIFEST).map_err(|e| e.to_string())?;
        if !lib.file.is_file() {
            return Err(format!(
                "libonnxruntime not found at {}; run `corpus setup` (it installs it from the \
                 onnxruntime {} wheel) or set CORPUS_ONNXRUNTIME to the library file",
                lib.file.display(),
                lib.manifest.source.package_version
            ));
        }
        let builder = ort::init_from(&lib.file)
            .map_err(|e| format!("cannot load {}: {e}", lib.file.display()))?;
        builder
            .with_name("corpus")
            .build()
            .map_err(|e| format!("cannot start ONNX Runtime from {}: {e}", lib.file.display()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Creates a session for the model file, with `threads` intra-op threads on the CPU.
pub(crate) fn session(
    model: &Installed,
    device: Device,
    threads: usize,
) -> Result<Session, String> {
    let env = environment()?;
    let what = |e: &dyn std::fmt::Display| {
        format!("model {} ({}): {e}", model.manifest.name, model.file.display())
    };
    let mut b = Session::builder(env).map_err(|e| what(&e))?;
    b = b
        .with_optimization_level(GraphOptimizationLevel::All)
        .map_err(|e| what(&ort::Error::<()>::from(e)))?;
    b = b.with_intra_threads(threads.max(1)).map_err(|e| what(&ort::Error::<()>::from(e)))?;
    b = b.with_inter_threads(1).map_err(|e| what(&ort::Error::<()>::from(e)))?;
    if device == Device::Cuda {
        let cuda = ort::ep::CUDA::default().build().error_on_failure();
        b = b.with_execution_providers([cuda]).map_err(|e| {
            format!(
                "--device cuda: the CUDA execution provider could not be used for model {}: {}. \
                 It needs the onnxruntime-gpu wheel's library (CORPUS_ONNXRUNTIME pointing into \
                 its capi folder, beside libonnxruntime_providers_cuda.so), CUDA 13 and cuDNN 9 \
                 libraries on the library path, and a GPU; use --device cpu otherwise",
                model.manifest.name,
                ort::Error::<()>::from(e)
            )
        })?;
    }
    b.commit_from_file(&model.file).map_err(|e| what(&e))
}

/// Reads a metadata entry's lines (PaddleOCR models keep their dictionaries in `character`).
pub(crate) fn metadata_lines(session: &Session, key: &str) -> Result<Vec<String>, String> {
    let meta = session.metadata().map_err(|e| e.to_string())?;
    let text = meta.custom(key).ok_or_else(|| format!("the model has no metadata {key:?}"))?;
    Ok(py_splitlines(&text))
}

/// Splits like Python's `str.splitlines()` (what the reference packages use on these
/// dictionaries), which also breaks at \x0b, \x0c, \x1c..\x1e, \x85, U+2028 and U+2029.
pub(crate) fn py_splitlines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitlines_like_python() {
        assert_eq!(py_splitlines("a\nb\r\nc\rd\u{2028}e\n"), vec!["a", "b", "c", "d", "e"]);
        assert_eq!(py_splitlines("a\n\nb"), vec!["a", "", "b"]);
        assert!(py_splitlines("").is_empty());
        assert_eq!(Device::parse("cuda").unwrap(), Device::Cuda);
        assert!(Device::parse("tpu").is_err());
    }
}
