//! numpy's `np.random.default_rng(42)` as scikit-image's `ransac(random_state=42)` uses it:
//! the PCG64 bit generator (XSL-RR 128/64, 32-bit draws buffered from 64-bit ones), Lemire's
//! bounded integers, and `Generator.choice(n, k, replace=False)` (Floyd's algorithm with a
//! hash set, then a shuffle; a tail shuffle above 10 000 items). Every draw must be the one
//! numpy makes, or RANSAC picks other samples and the score moves: `docs/cdm.md`.

/// PCG64's 128-bit multiplier (`PCG_DEFAULT_MULTIPLIER_128`).
const MULT: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// numpy's PCG64 bit generator with its 32-bit buffer.
#[derive(Debug, Clone)]
pub struct Pcg64 {
    state: u128,
    inc: u128,
    /// The high half of the last 64-bit draw, handed out by the next 32-bit draw.
    buffered: Option<u32>,
}

impl Pcg64 {
    /// The generator `np.random.default_rng(42)` starts with. numpy expands the seed through
    /// `SeedSequence(42)`; the expanded state is a constant, printed once by
    /// `np.random.default_rng(42).bit_generator.state` (numpy 1.24.4):
    /// `{'state': 274674114334540486603088602300644985544,
    ///   'inc': 332724090758049132448979897138935081983}`.
    pub fn seed42() -> Self {
        Pcg64 {
            state: 274_674_114_334_540_486_603_088_602_300_644_985_544,
            inc: 332_724_090_758_049_132_448_979_897_138_935_081_983,
            buffered: None,
        }
    }

    /// The next 64-bit output: step the state, then XSL-RR of the new state.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(MULT).wrapping_add(self.inc);
        let xored = ((self.state >> 64) as u64) ^ (self.state as u64);
        xored.rotate_right((self.state >> 122) as u32)
    }

    /// The next 32-bit output: the low half of a fresh 64-bit draw, then its high half.
    pub(crate) fn next_u32(&mut self) -> u32 {
        if let Some(high) = self.buffered.take() {
            return high;
        }
        let next = self.next_u64();
        self.buffered = Some((next >> 32) as u32);
        next as u32
    }

    /// An integer in `0..=max`, as numpy's `random_bounded_uint64(.., 0, max, 0, false)`
    /// (Lemire's method on 32 bits when `max` fits).
    pub fn bounded(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        if max <= 0xFFFF_FFFF {
            if max == 0xFFFF_FFFF {
                return u64::from(self.next_u32());
            }
            let rng = max as u32;
            let excl = u64::from(rng) + 1;
            let mut m = u64::from(self.next_u32()) * excl;
            let mut leftover = m as u32;
            if u64::from(leftover) < excl {
                let threshold = ((u32::MAX - rng) as u64 % excl) as u32;
                while leftover < threshold {
                    m = u64::from(self.next_u32()) * excl;
                    leftover = m as u32;
                }
            }
            return m >> 32;
        }
        if max == u64::MAX {
            return self.next_u64();
        }
        let excl = max + 1;
        let mut m = u128::from(self.next_u64()) * u128::from(excl);
        let mut leftover = m as u64;
        if leftover < excl {
            let threshold = (u64::MAX - max) % excl;
            while leftover < threshold {
                m = u128::from(self.next_u64()) * u128::from(excl);
                leftover = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// `Generator._shuffle_int(n, first, data)`: Fisher–Yates from the end down to `first`.
    fn shuffle_from(&mut self, data: &mut [u64], first: usize) {
        for i in (first..data.len()).rev() {
            let j = self.bounded(i as u64) as usize;
            data.swap(i, j);
        }
    }

    /// `Generator.choice(n, k, replace=False)` (with its default `shuffle=True`). `k <= n`.
    pub fn choice(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "choice: k={k} > n={n}");
        let (n64, k64) = (n as u64, k as u64);
        if n > 10_000 && k > n / 50 {
            let mut idx: Vec<u64> = (0..n64).collect();
            self.shuffle_from(&mut idx, (n - k).max(1));
            return idx[n - k..].iter().map(|&v| v as usize).collect();
        }
        let mut idx = vec![0u64; k];
        // Smallest power of two above 1.2·k, as numpy sizes its hash set.
        let mut mask = (1.2 * k as f64) as u64;
        for s in [1, 2, 4, 8, 16, 32] {
            mask |= mask >> s;
        }
        let empty = u64::MAX;
        let mut set = vec![empty; (mask + 1) as usize];
        for j in (n64 - k64)..n64 {
            let val = self.bounded(j);
            let mut loc = val & mask;
            while set[loc as usize] != empty && set[loc as usize] != val {
                loc = (loc + 1) & mask;
            }
            let slot = (j + k64 - n64) as usize;
            if set[loc as usize] == empty {
                set[loc as usize] = val;
                idx[slot] = val;
            } else {
                let mut loc = j & mask;
                while set[loc as usize] != empty {
                    loc = (loc + 1) & mask;
                }
                set[loc as usize] = j;
                idx[slot] = j;
            }
        }
        self.shuffle_from(&mut idx, 1);
        idx.into_iter().map(|v| v as usize).collect()
    }
}
