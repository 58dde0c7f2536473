//! The ordered tree edit distance (Zhang–Shasha over flat postorder arrays) and its cost models.

use super::*;

/// Interned labels, tokens and cell contents shared by the two trees of one comparison.
#[derive(Default)]
pub(super) struct Interner<'t> {
    labels: HashMap<(&'t str, Option<i64>, Option<i64>), u32>,
    tokens: HashMap<&'t str, u32>,
    contents: HashMap<Vec<u32>, u32>,
    sequences: Vec<Vec<u32>>,
}

impl<'t> Interner<'t> {
    fn label(&mut self, n: &'t TreeNode) -> u32 {
        let next = self.labels.len() as u32;
        *self.labels.entry((n.tag.as_str(), n.colspan, n.rowspan)).or_insert(next)
    }

    fn content(&mut self, tokens: &'t [String]) -> u32 {
        let ids: Vec<u32> = tokens
            .iter()
            .map(|t| {
                let next = self.tokens.len() as u32;
                *self.tokens.entry(t.as_str()).or_insert(next)
            })
            .collect();
        let next = self.sequences.len() as u32;
        *self.contents.entry(ids).or_insert_with_key(|ids| {
            self.sequences.push(ids.clone());
            next
        })
    }
}

/// A tree in postorder: labels, cell contents, leftmost leaves and keyroots.
pub(super) struct Flat {
    label: Vec<u32>,
    /// Interned content of a `td`, `None` for other tags.
    content: Vec<Option<u32>>,
    /// Postorder index of the leftmost leaf of each node's subtree.
    lml: Vec<usize>,
    /// Nodes with a left sibling, plus the root, ascending.
    keyroots: Vec<usize>,
}

impl Flat {
    pub(super) fn new<'t>(root: &'t TreeNode, interner: &mut Interner<'t>) -> Flat {
        let mut f =
            Flat { label: Vec::new(), content: Vec::new(), lml: Vec::new(), keyroots: Vec::new() };
        // Iterative postorder: (node, next child, first postorder index in its subtree). The
        // first node numbered in a subtree is its leftmost leaf.
        let mut stack: Vec<(&TreeNode, usize, usize)> = vec![(root, 0, 0)];
        while let Some(top) = stack.last_mut() {
            let (node, next, lml) = *top;
            if next < node.children.len() {
                top.1 += 1;
                stack.push((&node.children[next], 0, f.label.len()));
                continue;
            }
            stack.pop();
            f.label.push(interner.label(node));
            f.content.push((node.tag == "td").then(|| interner.content(&node.content)));
            f.lml.push(lml);
        }
        let mut seen = vec![false; f.label.len()];
        for i in (0..f.label.len()).rev() {
            if !std::mem::replace(&mut seen[f.lml[i]], true) {
                f.keyroots.push(i);
            }
        }
        f.keyroots.reverse();
        f
    }

    fn len(&self) -> usize {
        self.label.len()
    }
}

/// Rename costs of one comparison: label equality plus, for cells, the normalized token
/// Levenshtein of each pair of distinct contents, computed up front.
pub(super) struct CostModel<'f> {
    a: &'f Flat,
    b: &'f Flat,
    /// Dense content index of each `a` content id / `b` content id.
    a_index: Vec<u32>,
    b_index: Vec<u32>,
    b_count: usize,
    /// `levenshtein / max(len)` over dense (a, b) content pairs.
    cell: Vec<f64>,
}

impl<'f> CostModel<'f> {
    pub(super) fn new(a: &'f Flat, b: &'f Flat, interner: &Interner<'_>) -> Self {
        let dense = |f: &Flat| {
            let mut index = vec![u32::MAX; interner.sequences.len()];
            let mut ids = Vec::new();
            for c in f.content.iter().flatten() {
                if index[*c as usize] == u32::MAX {
                    index[*c as usize] = ids.len() as u32;
                    ids.push(*c);
                }
            }
            (index, ids)
        };
        let (a_index, a_ids) = dense(a);
        let (b_index, b_ids) = dense(b);
        let mut cell = Vec::with_capacity(a_ids.len() * b_ids.len());
        // Pattern bit masks of the current `a` content over every token id, re-targeted per
        // content.
        let mut peq = Peq::new(Vec::new(), interner.tokens.len());
        for &x in &a_ids {
            let sx = &interner.sequences[x as usize];
            peq.set(sx);
            for &y in &b_ids {
                let sy = &interner.sequences[y as usize];
                let longest = sx.len().max(sy.len());
                cell.push(if x == y {
                    0.0
                } else if sx.is_empty() || sy.is_empty() {
                    // lev = the other length = max(len).
                    1.0
                } else {
                    peq.global(sy.iter().copied()) as f64 / longest as f64
                });
            }
        }
        CostModel { a, b, a_index, b_index, b_count: b_ids.len(), cell }
    }
}

/// Distance values of the forest tables: `f64` for full TEDS, exact `u32` for TEDS-S (all
/// costs are 0 or 1, so integer sums equal the float sums of the reference).
pub(super) trait Dist: Copy + std::ops::Add<Output = Self> {
    const ONE: Self;
    fn of(n: usize) -> Self;
    fn min(self, other: Self) -> Self;
}

impl Dist for f64 {
    const ONE: f64 = 1.0;
    fn of(n: usize) -> f64 {
        n as f64
    }
    fn min(self, other: f64) -> f64 {
        // No NaN ever occurs, so the plain comparison (one `minsd`) equals `f64::min`.
        if self < other {
            self
        } else {
            other
        }
    }
}

impl Dist for u32 {
    const ONE: u32 = 1;
    fn of(n: usize) -> u32 {
        // Tree sizes fit in u32 (a tree of 2^32 nodes would not fit in memory as a table).
        n as u32
    }
    fn min(self, other: u32) -> u32 {
        Ord::min(self, other)
    }
}

/// Rename costs for the tree edit distance.
pub(super) trait Costs {
    type D: Dist;
    fn rename(&self, i: usize, j: usize) -> Self::D;
}

/// TEDS-S costs: 1 when the labels (tag, colspan, rowspan) differ, else 0.
pub(super) struct StructureCosts<'f> {
    pub(super) a: &'f Flat,
    pub(super) b: &'f Flat,
}

impl Costs for StructureCosts<'_> {
    type D = u32;
    fn rename(&self, i: usize, j: usize) -> u32 {
        u32::from(self.a.label[i] != self.b.label[j])
    }
}

impl Costs for CostModel<'_> {
    type D = f64;
    fn rename(&self, i: usize, j: usize) -> f64 {
        if self.a.label[i] != self.b.label[j] {
            return 1.0;
        }
        match (self.a.content[i], self.b.content[j]) {
            (Some(x), Some(y)) => {
                let ai = self.a_index[x as usize] as usize;
                let bi = self.b_index[y as usize] as usize;
                self.cell[ai * self.b_count + bi]
            }
            _ => 0.0,
        }
    }
}

/// Zhang–Shasha ordered tree edit distance with unit insert/delete costs.
///
/// Keyroot pairs where one side is a single leaf need one row (or column) of the forest table,
/// and two leaves need only their rename cost; these shortcuts perform the same additions as
/// the full table, so the result is bit-for-bit the same.
pub(super) fn zhang_shasha<C: Costs>(a: &Flat, b: &Flat, cost: &C) -> C::D {
    let (n, m) = (a.len(), b.len());
    let zero = C::D::of(0);
    let mut tree = vec![zero; n * m];
    let mut forest = vec![zero; (n + 1) * (m + 1)];
    let mut column = vec![zero; n + 1];
    for &k1 in &a.keyroots {
        let l1 = a.lml[k1];
        let rows = k1 - l1 + 2;
        for &k2 in &b.keyroots {
            let l2 = b.lml[k2];
            let cols = k2 - l2 + 2;
            match (rows, cols) {
                // Two leaves: min(delete + insert, rename) = rename, as rename <= 1.
                (2, 2) => tree[k1 * m + k2] = cost.rename(k1, k2),
                (2, _) => leaf_row(k1, l2, k2, b, cost, &mut tree[k1 * m..(k1 + 1) * m]),
                (_, 2) => leaf_column(a, l1, k1, k2, m, cost, &mut tree, &mut column),
                _ => forest_table(a, b, (l1, k1), (l2, k2), cost, &mut tree, &mut forest),
            }
        }
    }
    tree[n * m - 1]
}

/// Forest distances between the leaf `k1` (one row) and the keyroot subtree `l2..=k2`.
fn leaf_row<C: Costs>(k1: usize, l2: usize, k2: usize, b: &Flat, cost: &C, tree_row: &mut [C::D]) {
    let mut left = C::D::ONE; // fd[1][0]
    for (y, j) in (l2..=k2).enumerate() {
        let y = y + 1;
        let lj = b.lml[j];
        let best = (C::D::of(y) + C::D::ONE).min(left + C::D::ONE);
        let v = if lj == l2 {
            let v = best.min(C::D::of(y - 1) + cost.rename(k1, j));
            tree_row[j] = v;
            v
        } else {
            best.min(C::D::of(lj - l2) + tree_row[j])
        };
        left = v;
    }
}

/// Forest distances between the keyroot subtree `l1..=k1` and the leaf `k2` (one column).
#[allow(clippy::too_many_arguments)]
fn leaf_column<C: Costs>(
    a: &Flat,
    l1: usize,
    k1: usize,
    k2: usize,
    m: usize,
    cost: &C,
    tree: &mut [C::D],
    column: &mut [C::D],
) {
    column[0] = C::D::ONE; // fd[0][1]
    for (x, i) in (l1..=k1).enumerate() {
        let x = x + 1;
        let li = a.lml[i];
        let best = (column[x - 1] + C::D::ONE).min(C::D::of(x) + C::D::ONE);
        column[x] = if li == l1 {
            let v = best.min(C::D::of(x - 1) + cost.rename(i, k2));
            tree[i * m + k2] = v;
            v
        } else {
            best.min(C::D::of(li - l1) + tree[i * m + k2])
        };
    }
}

/// The full forest-distance table of the keyroot subtrees `l1..=k1` and `l2..=k2`.
fn forest_table<C: Costs>(
    a: &Flat,
    b: &Flat,
    (l1, k1): (usize, usize),
    (l2, k2): (usize, usize),
    cost: &C,
    tree: &mut [C::D],
    forest: &mut [C::D],
) {
    let m = b.len();
    let rows = k1 - l1 + 2;
    let cols = k2 - l2 + 2;
    let b_lml = &b.lml[l2..=k2];
    for (y, f) in forest[..cols].iter_mut().enumerate() {
        *f = C::D::of(y);
    }
    let mut x = 1;
    while x < rows {
        let i = l1 + x - 1;
        let li = a.lml[i];
        let (done, rest) = forest.split_at_mut(x * cols);
        let prev = &done[(x - 1) * cols..];
        let base0 = &done[(li - l1) * cols..(li - l1 + 1) * cols];
        if li != l1 && x + 1 < rows && a.lml[i + 1] != l1 {
            // Two rows off the leftmost path at once: their dependency chains overlap.
            let li1 = a.lml[i + 1];
            let (row0, row1) = rest[..2 * cols].split_at_mut(cols);
            row0[0] = C::D::of(x);
            row1[0] = C::D::of(x + 1);
            let (tree0, tree1) = tree.split_at_mut((i + 1) * m);
            let tree0 = &tree0[i * m + l2..i * m + k2 + 1];
            let tree1 = &tree1[l2..=k2];
            if li1 - l1 == x {
                // Node i + 1 is a leaf: its base row is row x itself, already filled left of y.
                let (mut left0, mut left1) = (row0[0], row1[0]);
                for y in 1..cols {
                    let lj = b_lml[y - 1] - l2;
                    let v0 =
                        (prev[y] + C::D::ONE).min(left0 + C::D::ONE).min(base0[lj] + tree0[y - 1]);
                    row0[y] = v0;
                    let v1 = (v0 + C::D::ONE).min(left1 + C::D::ONE).min(row0[lj] + tree1[y - 1]);
                    row1[y] = v1;
                    left0 = v0;
                    left1 = v1;
                }
            } else {
                let base1 = &done[(li1 - l1) * cols..(li1 - l1 + 1) * cols];
                let (mut left0, mut left1) = (row0[0], row1[0]);
                for y in 1..cols {
                    let lj = b_lml[y - 1] - l2;
                    let v0 =
                        (prev[y] + C::D::ONE).min(left0 + C::D::ONE).min(base0[lj] + tree0[y - 1]);
                    let v1 = (v0 + C::D::ONE).min(left1 + C::D::ONE).min(base1[lj] + tree1[y - 1]);
                    row0[y] = v0;
                    row1[y] = v1;
                    left0 = v0;
                    left1 = v1;
                }
            }
            x += 2;
            continue;
        }
        let row = &mut rest[..cols];
        row[0] = C::D::of(x);
        let tree_row = &mut tree[i * m + l2..i * m + k2 + 1];
        if li == l1 {
            for y in 1..cols {
                let best = (prev[y] + C::D::ONE).min(row[y - 1] + C::D::ONE);
                let lj = b_lml[y - 1];
                if lj == l2 {
                    let v = best.min(prev[y - 1] + cost.rename(i, l2 + y - 1));
                    row[y] = v;
                    tree_row[y - 1] = v;
                } else {
                    row[y] = best.min(base0[lj - l2] + tree_row[y - 1]);
                }
            }
        } else {
            let mut left = row[0];
            for (((out, &up), &lj), &t) in
                row[1..].iter_mut().zip(&prev[1..]).zip(b_lml).zip(tree_row.iter())
            {
                let v = (up + C::D::ONE).min(left + C::D::ONE).min(base0[lj - l2] + t);
                *out = v;
                left = v;
            }
        }
        x += 1;
    }
}
