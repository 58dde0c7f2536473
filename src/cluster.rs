//! Running one corpus over a cluster's own scheduler: which shard a task is, and where it ran.
//!
//! `corpus` ships no queue, daemon or coordinator. A Slurm job array or a Kubernetes Indexed
//! Job starts N copies of one command; each copy learns its index from the scheduler's
//! variables ([`ShardSpec::from_env`]) and takes the documents whose blake3 hash, read as a
//! big-endian integer, is congruent to that index modulo N ([`shard_of`]). The rule depends on
//! the document's content only, so adding documents never moves others between shards and a
//! re-run of a task finds the same documents. The rules are written up in
//! `docs/scale-out.md`.

use std::fmt;

/// One task's share of the documents: those whose hash is `index` modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// This task's shard, `0 <= index < count`.
    pub index: u64,
    /// How many shards there are.
    pub count: u64,
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Where `--shard` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardArg {
    /// `--shard K/N`.
    Fixed(ShardSpec),
    /// `--shard auto`: from the scheduler's variables.
    Auto,
}

impl ShardArg {
    /// Parses `K/N` or `auto` (the `--shard` value parser).
    pub fn parse(s: &str) -> Result<ShardArg, String> {
        if s.trim() == "auto" {
            return Ok(ShardArg::Auto);
        }
        ShardSpec::parse(s).map(ShardArg::Fixed)
    }
}

impl ShardSpec {
    /// The whole corpus as one shard.
    pub const ALL: ShardSpec = ShardSpec { index: 0, count: 1 };

    /// Parses `K/N` (`3/50`): shard K of N, K from 0.
    pub fn parse(s: &str) -> Result<ShardSpec, String> {
        let bad = || format!("{s:?} is not a shard: write K/N with 0 <= K < N (3/50), or auto");
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        ShardSpec::new(index, count).ok_or_else(bad)
    }

    /// Returns shard `index` of `count`, if `index < count`.
    pub fn new(index: u64, count: u64) -> Option<ShardSpec> {
        (count > 0 && index < count).then_some(ShardSpec { index, count })
    }

    /// Returns whether the document with this blake3 hex hash belongs to this shard.
    pub fn contains(&self, hash_hex: &str) -> bool {
        shard_of(hash_hex, self.count) == Some(self.index)
    }

    /// Resolves `--shard auto` from the scheduler's variables (`env` looks one up).
    ///
    /// - Slurm job array: K = `SLURM_ARRAY_TASK_ID`, N = `shards` if given, else
    ///   `SLURM_ARRAY_TASK_COUNT`. Without `shards` the array must be `0-(N-1)` with step 1,
    ///   so that every shard is some task's; resubmitting one task (`--array=7`) needs
    ///   `shards` (or `CORPUS_SHARDS`), since that job's own count is 1.
    /// - Kubernetes Indexed Job: K = `JOB_COMPLETION_INDEX`, N = `shards` (a pod is not told
    ///   the Job's completions).
    pub fn from_env(
        shards: Option<u64>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ShardSpec, String> {
        let num = |name: &str| -> Result<Option<u64>, String> {
            match env(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Ok(None),
                Some(v) => v
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{name}={v:?} is not a whole number")),
            }
        };
        let check = |index: u64, count: u64, from: &str| {
            ShardSpec::new(index, count).ok_or_else(|| {
                format!(
                    "--shard auto: {from} is {index}, not below the number of shards {count}; \
                     give --shards N (or CORPUS_SHARDS) with the array's full size"
                )
            })
        };
        if let Some(task) = num("SLURM_ARRAY_TASK_ID")? {
            if let Some(n) = shards {
                return check(task, n, "SLURM_ARRAY_TASK_ID");
            }
            let Some(count) = num("SLURM_ARRAY_TASK_COUNT")? else {
                return Err("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT \
                            is not; give --shards N"
                    .into());
            };
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let max = num("SLURM_ARRAY_TASK_MAX")?.unwrap_or(count.saturating_sub(1));
            let step = num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            if min != 0 || step != 1 || max + 1 != count {
                return Err(format!(
                    "--shard auto: the Slurm array is {min}-{max} with step {step} ({count} \
                     tasks); shards are numbered 0..N-1, so submit --array=0-{} or give \
                     --shards N (or CORPUS_SHARDS) with the number of shards",
                    count.saturating_sub(1)
                ));
            }
            return check(task, count, "SLURM_ARRAY_TASK_ID");
        }
        if let Some(index) = num("JOB_COMPLETION_INDEX")? {
            let Some(n) = shards else {
                return Err("--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed \
                            Job) but a pod is not told how many completions there are; give \
                            --shards N (or CORPUS_SHARDS) with the Job's completions"
                    .into());
            };
            return check(index, n, "JOB_COMPLETION_INDEX");
        }
        Err("--shard auto: no scheduler variables are set (SLURM_ARRAY_TASK_ID and \
             SLURM_ARRAY_TASK_COUNT in a Slurm job array, JOB_COMPLETION_INDEX in a Kubernetes \
             Indexed Job); give --shard K/N"
            .into())
    }
}

/// Returns the blake3 hex hash, read as a big-endian integer, modulo `count`; `None` when
/// the hash is not hex or `count` is 0.
pub fn shard_of(hash_hex: &str, count: u64) -> Option<u64> {
    if count == 0 || hash_hex.is_empty() {
        return None;
    }
    let n = u128::from(count);
    let mut r: u128 = 0;
    for c in hash_hex.chars() {
        let d = c.to_digit(16)?;
        // r < n <= 2^64, so r * 16 + 15 fits in u128.
        r = (r * 16 + u128::from(d)) % n;
    }
    Some(r as u64)
}

/// Where a run ran: recorded with it, and kept when a shard file is merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The host name.
    pub host: Option<String>,
    /// `slurm`, `kubernetes`, or `None` outside a scheduler.
    pub scheduler: Option<String>,
    /// Slurm's `SLURM_JOB_ID`; Kubernetes: `JOB_NAME` where the manifest sets it.
    pub job_id: Option<String>,
    /// Slurm's `SLURM_ARRAY_JOB_ID`.
    pub array_job_id: Option<String>,
    /// Slurm's `SLURM_ARRAY_TASK_ID`, or Kubernetes' `JOB_COMPLETION_INDEX`.
    pub array_task_id: Option<String>,
    /// The shard this run worked on (`3/50`), if any.
    pub shard: Option<String>,
}

impl Provenance {
    /// Reads the host name and the scheduler's variables from `env`.
    pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Provenance {
        let get = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        let host = host_name().or_else(|| get("HOSTNAME"));
        if get("SLURM_JOB_ID").is_some() {
            return Provenance {
                host,
                scheduler: Some("slurm".into()),
                job_id: get("SLURM_JOB_ID"),
                array_job_id: get("SLURM_ARRAY_JOB_ID"),
                array_task_id: get("SLURM_ARRAY_TASK_ID"),
                shard: None,
            };
        }
        if get("JOB_COMPLETION_INDEX").is_some() || get("KUBERNETES_SERVICE_HOST").is_some() {
            return Provenance {
                host,
                scheduler: Some("kubernetes".into()),
                job_id: get("JOB_NAME"),
                array_job_id: None,
                array_task_id: get("JOB_COMPLETION_INDEX"),
                shard: None,
            };
        }
        Provenance { host, ..Default::default() }
    }

    /// [`Provenance::detect`] on this process's environment.
    pub fn here() -> Provenance {
        Provenance::detect(&|k| std::env::var(k).ok())
    }
}

/// The kernel's host name.
fn host_name() -> Option<String> {
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy().trim().to_string();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k: &str| m.get(k).cloned()
    }

    #[test]
    fn a_hash_is_read_as_a_big_endian_integer() {
        // 0x1f = 31: 31 mod 7 = 3; 0xff = 255 = 3 * 64 + 63.
        assert_eq!(shard_of("1f", 7), Some(3));
        assert_eq!(shard_of("ff", 64), Some(63));
        assert_eq!(shard_of("0100", 255), Some(1)); // 256 mod 255
        assert_eq!(shard_of("zz", 3), None);
        assert_eq!(shard_of("ff", 0), None);
        // A real 256-bit hash against arbitrary-precision arithmetic done by hand: the hash
        // of b"" is af1349b9...; its value mod 2 is its last hex digit's parity.
        let h = blake3::hash(b"").to_hex().to_string();
        let last = h.chars().last().unwrap().to_digit(16).unwrap() as u64;
        assert_eq!(shard_of(&h, 2), Some(last % 2));
        assert_eq!(shard_of(&h, 16), Some(last));
        // 2^64 = 1 (mod 2^64 - 1): the hash modulo 2^64 - 1 is the sum of its four 64-bit
        // limbs modulo 2^64 - 1.
        let limbs: u128 = (0..4)
            .map(|i| u128::from(u64::from_str_radix(&h[i * 16..i * 16 + 16], 16).unwrap()))
            .sum();
        assert_eq!(shard_of(&h, u64::MAX), Some((limbs % u128::from(u64::MAX)) as u64));
    }

    #[test]
    fn every_document_is_in_exactly_one_shard() {
        for n in [1u64, 2, 3, 7, 50] {
            for i in 0..200u32 {
                let h = blake3::hash(&i.to_le_bytes()).to_hex().to_string();
                let owners = (0..n).filter(|&k| ShardSpec::new(k, n).unwrap().contains(&h));
                assert_eq!(owners.count(), 1);
            }
        }
    }

    #[test]
    fn parses_fixed_shards() {
        assert_eq!(ShardSpec::parse("3/50"), Ok(ShardSpec { index: 3, count: 50 }));
        assert_eq!(ShardArg::parse("auto"), Ok(ShardArg::Auto));
        for bad in ["50/50", "3", "a/b", "0/0", "-1/3"] {
            assert!(ShardSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn auto_reads_slurm_and_kubernetes() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "50"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "49"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
        ]);
        assert_eq!(ShardSpec::from_env(None, &slurm), Ok(ShardSpec { index: 3, count: 50 }));
        // One task resubmitted on its own: its own count is 1, so N must be given.
        let one = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
            ("SLURM_ARRAY_TASK_MIN", "7"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
        ]);
        assert!(ShardSpec::from_env(None, &one).unwrap_err().contains("--shards"));
        assert_eq!(ShardSpec::from_env(Some(50), &one), Ok(ShardSpec { index: 7, count: 50 }));
        // An array that does not start at 0 would leave shard 0 to nobody.
        let off = env(&[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "50"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "50"),
        ]);
        assert!(ShardSpec::from_env(None, &off).unwrap_err().contains("--array=0-49"));
        let k8s = env(&[("JOB_COMPLETION_INDEX", "4")]);
        assert!(ShardSpec::from_env(None, &k8s).unwrap_err().contains("--shards"));
        assert_eq!(ShardSpec::from_env(Some(8), &k8s), Ok(ShardSpec { index: 4, count: 8 }));
        assert!(ShardSpec::from_env(Some(4), &k8s).unwrap_err().contains("not below"));
        let none = env(&[]);
        assert!(ShardSpec::from_env(Some(4), &none).unwrap_err().contains("--shard K/N"));
        let junk = env(&[("JOB_COMPLETION_INDEX", "x")]);
        assert!(ShardSpec::from_env(Some(4), &junk).unwrap_err().contains("whole number"));
    }

    #[test]
    fn provenance_names_the_scheduler() {
        let p = Provenance::detect(&env(&[
            ("SLURM_JOB_ID", "1207"),
            ("SLURM_ARRAY_JOB_ID", "1200"),
            ("SLURM_ARRAY_TASK_ID", "7"),
        ]));
        assert_eq!(p.scheduler.as_deref(), Some("slurm"));
        assert_eq!(
            (p.job_id.as_deref(), p.array_job_id.as_deref(), p.array_task_id.as_deref()),
            (Some("1207"), Some("1200"), Some("7"))
        );
        let k = Provenance::detect(&env(&[("JOB_COMPLETION_INDEX", "2"), ("JOB_NAME", "ocr")]));
        assert_eq!(k.scheduler.as_deref(), Some("kubernetes"));
        assert_eq!((k.job_id.as_deref(), k.array_task_id.as_deref()), (Some("ocr"), Some("2")));
        let here = Provenance::detect(&env(&[]));
        assert_eq!(here.scheduler, None);
        assert!(here.host.is_some());
    }
}
