//! Truth versions: which stored truth supersedes which, and which version a command reads
//! (`docs/truth-versions.md`).
//!
//! A truth supersedes another when it is a newer ingest of the same document, dataset, format
//! and part (recorded by [`Store::ingest`]), or when `corpus ingest --supersedes ID` says so.
//! Links always go from a newer (higher id) truth to an older one, so the versions form no
//! cycle: a truth's version is 1 where it supersedes none, else one more than the highest
//! version it supersedes; the latest truths are those nothing supersedes.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use super::{now, Store, TruthRow};
use crate::error::{Error, Result};

/// Which truth of each document a command reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TruthSelect {
    /// The newest version: the truths nothing supersedes (the default).
    #[default]
    Latest,
    /// The version the newest one superseded, where there is one; else the newest (the truths
    /// as they were before their last correction).
    Previous,
    /// The newest version numbered at most N in each truth's history (`v1`: the first truths
    /// ingested).
    Version(u32),
    /// This one truth (by `truths.id`, `v_truths.truth_id`), whatever its version.
    Id(i64),
}

impl TruthSelect {
    /// Parses `latest`, `previous`, `v<N>` or a truth id.
    pub fn parse(s: &str) -> std::result::Result<TruthSelect, String> {
        let bad = || {
            format!(
                "{s:?} is not a truth version: give latest, previous, v<N> (v1 = the first \
                 truths ingested) or a truth id (`corpus sql \"SELECT * FROM v_truths\"` lists them)"
            )
        };
        match s {
            "latest" => Ok(TruthSelect::Latest),
            "previous" => Ok(TruthSelect::Previous),
            _ => match s.strip_prefix('v') {
                Some(n) => {
                    n.parse().ok().filter(|n| *n > 0).map(TruthSelect::Version).ok_or_else(bad)
                }
                None => s.parse().ok().filter(|n| *n > 0).map(TruthSelect::Id).ok_or_else(bad),
            },
        }
    }

    /// How the selection is written on the command line.
    pub fn label(&self) -> String {
        match self {
            TruthSelect::Latest => "latest".into(),
            TruthSelect::Previous => "previous".into(),
            TruthSelect::Version(n) => format!("v{n}"),
            TruthSelect::Id(id) => id.to_string(),
        }
    }
}

/// One stored truth file with its place in its document's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthVersion {
    /// The truth.
    pub row: TruthRow,
    /// 1 for a truth that supersedes none, else one more than the highest it supersedes.
    pub version: u32,
    /// Whether nothing supersedes it.
    pub latest: bool,
    /// The truths it supersedes (ids), newest first.
    pub supersedes: Vec<i64>,
}

/// What a handle does about truth versions: the selection its reads of truths follow, and the
/// truths the next ingests supersede explicitly (`--supersedes`).
#[derive(Debug, Clone, Default)]
pub(crate) struct TruthSettings {
    select: TruthSelect,
    /// (old truth id, its document, used by an ingest yet).
    supersede: Vec<(i64, i64, bool)>,
}

impl Store {
    /// Makes [`Store::truths`] (and so every suite) read the truths `select` names instead of
    /// the newest.
    pub fn set_truth_select(&mut self, select: TruthSelect) {
        self.truth.select = select;
    }

    /// The selection [`Store::truths`] follows.
    pub fn truth_select(&self) -> TruthSelect {
        self.truth.select
    }

    /// Every stored truth (optionally of one dataset) with its version, in id order.
    pub fn truth_versions(&self, dataset: Option<&str>) -> Result<Vec<TruthVersion>> {
        let mut links: HashMap<i64, Vec<i64>> = HashMap::new();
        let mut superseded: std::collections::HashSet<i64> = Default::default();
        {
            let mut st = self.conn.prepare_cached(
                "SELECT truth, supersedes FROM truth_supersedes ORDER BY truth, supersedes DESC",
            )?;
            let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
            for row in rows {
                let (t, s) = row?;
                links.entry(t).or_default().push(s);
                superseded.insert(s);
            }
        }
        // Every truth, so that a version counts links into other datasets too.
        let mut st = self.conn.prepare_cached(
            "SELECT t.id, t.document, s.name, t.format, t.part, t.blob FROM truths t
             JOIN datasets s ON s.id = t.dataset ORDER BY t.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(TruthRow {
                id: r.get(0)?,
                document: r.get(1)?,
                dataset: r.get(2)?,
                format: r.get(3)?,
                part: r.get(4)?,
                blob: r.get(5)?,
            })
        })?;
        let mut version: HashMap<i64, u32> = HashMap::new();
        let mut out = Vec::new();
        for row in rows {
            let row = row?;
            let older = links.remove(&row.id).unwrap_or_default();
            // Links go from newer to older ids: every older version is known already.
            let v = 1 + older.iter().filter_map(|o| version.get(o)).max().copied().unwrap_or(0);
            version.insert(row.id, v);
            if dataset.is_none_or(|d| d == row.dataset) {
                let latest = !superseded.contains(&row.id);
                out.push(TruthVersion { row, version: v, latest, supersedes: older });
            }
        }
        Ok(out)
    }

    /// The ids of the truths `select` names, in every dataset.
    pub fn truth_ids(&self, select: TruthSelect) -> Result<std::collections::HashSet<i64>> {
        let all = self.truth_versions(None)?;
        Ok(self::select(&all, select).into_iter().map(|t| t.row.id).collect())
    }

    /// (document id, dataset name) -> the document's first name in that dataset.
    pub fn truth_document_names(&self) -> Result<HashMap<(i64, String), String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT n.document, s.name, min(n.name) FROM document_names n
             JOIN datasets s ON s.id = n.dataset GROUP BY n.document, s.name",
        )?;
        let rows = st.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Lists the truth file of each (document, dataset, format, part) that the handle's
    /// [`TruthSelect`] names (by default the newest), optionally of one dataset, sorted by
    /// document, dataset, format and part.
    pub fn truths(&self, dataset: Option<&str>) -> Result<Vec<TruthRow>> {
        let all = self.truth_versions(None)?;
        let picked = select(&all, self.truth.select);
        let mut rows: Vec<TruthRow> = picked
            .into_iter()
            .map(|t| t.row.clone())
            .filter(|t| dataset.is_none_or(|d| d == t.dataset) && self.in_shard(t.document))
            .collect();
        rows.sort_by(|a, b| {
            (a.document, &a.dataset, &a.format, &a.part, a.id)
                .cmp(&(b.document, &b.dataset, &b.format, &b.part, b.id))
        });
        Ok(rows)
    }

    /// Makes the next ingests supersede these truths explicitly (`corpus ingest --supersedes`):
    /// the new truth a later [`Store::ingest`] attaches to the same document supersedes each
    /// (of the same part where the ingest attaches several). Refuses an id the store lacks.
    pub fn supersede_on_ingest(&mut self, ids: &[i64]) -> Result<()> {
        for &id in ids {
            let document: Option<i64> = self
                .conn
                .prepare_cached("SELECT document FROM truths WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            let Some(document) = document else {
                return Err(Error::Usage(format!(
                    "--supersedes {id}: no truth has that id (`corpus sql \"SELECT truth_id, \
                     document, dataset, format, version FROM v_truths\"` lists them)"
                )));
            };
            self.truth.supersede.push((id, document, false));
        }
        Ok(())
    }

    /// The `--supersedes` truths no ingest has superseded yet: (truth id, a name of its
    /// document).
    pub fn supersedes_unused(&self) -> Result<Vec<(i64, String)>> {
        let mut out = Vec::new();
        for s in self.truth.supersede.iter().filter(|s| !s.2) {
            let name: Option<String> = self
                .conn
                .prepare_cached(
                    "SELECT s.name || '/' || n.name FROM truths t
                     JOIN document_names n ON n.document = t.document AND n.dataset = t.dataset
                     JOIN datasets s ON s.id = t.dataset WHERE t.id = ?1 ORDER BY n.name",
                )?
                .query_row([s.0], |r| r.get(0))
                .optional()?;
            out.push((s.0, name.unwrap_or_else(|| format!("document {}", s.1))));
        }
        Ok(out)
    }

    /// Records, inside an ingest's transaction, what the truth `new` (just stored, or found
    /// already stored) supersedes: the latest older truth of its document, dataset, format and
    /// part, and the `--supersedes` truths of its document.
    pub(super) fn link_truth(
        tx: &Connection,
        settings: &mut TruthSettings,
        new: i64,
        inserted: bool,
        parts: usize,
    ) -> Result<()> {
        let (document, dataset, format, part): (i64, i64, String, String) = tx
            .prepare_cached("SELECT document, dataset, format, part FROM truths WHERE id = ?1")?
            .query_row([new], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        if inserted {
            tx.prepare_cached(
                "INSERT INTO truth_supersedes (truth, supersedes, how, created_at)
                 SELECT ?1, t.id, 'newer-ingest', ?6 FROM truths t
                 WHERE t.document = ?2 AND t.dataset = ?3 AND t.format = ?4 AND t.part = ?5
                   AND t.id < ?1
                   AND NOT EXISTS (SELECT 1 FROM truth_supersedes s WHERE s.supersedes = t.id)",
            )?
            .execute(params![new, document, dataset, format, part, now()])?;
        }
        for s in settings.supersede.iter_mut().filter(|s| s.1 == document) {
            let old_part: String = tx
                .prepare_cached("SELECT part FROM truths WHERE id = ?1")?
                .query_row([s.0], |r| r.get(0))?;
            if parts > 1 && old_part != part {
                continue;
            }
            if s.0 >= new {
                return Err(Error::Usage(format!(
                    "--supersedes {}: that truth is newer than the one ingested ({new}); a truth \
                     supersedes only older ones",
                    s.0
                )));
            }
            tx.prepare_cached(
                "INSERT INTO truth_supersedes (truth, supersedes, how, created_at)
                 VALUES (?1, ?2, 'explicit', ?3)
                 ON CONFLICT (truth, supersedes) DO UPDATE SET how = 'explicit'",
            )?
            .execute(params![new, s.0, now()])?;
            s.2 = true;
        }
        Ok(())
    }
}

/// The truths `select` names among `all` (every stored truth, with versions).
fn select(all: &[TruthVersion], select: TruthSelect) -> Vec<&TruthVersion> {
    let by_id: HashMap<i64, &TruthVersion> = all.iter().map(|t| (t.row.id, t)).collect();
    let mut out: Vec<&TruthVersion> = match select {
        TruthSelect::Id(id) => by_id.get(&id).copied().into_iter().collect(),
        TruthSelect::Latest => all.iter().filter(|t| t.latest).collect(),
        TruthSelect::Previous => all
            .iter()
            .filter(|t| t.latest)
            .map(|t| t.supersedes.first().and_then(|id| by_id.get(id).copied()).unwrap_or(t))
            .collect(),
        TruthSelect::Version(n) => {
            all.iter().filter(|t| t.latest).map(|t| at_most(&by_id, t, n)).collect()
        }
    };
    out.sort_by_key(|t| t.row.id);
    out.dedup_by_key(|t| t.row.id);
    out
}

/// From a latest truth back along the newest truth each supersedes, to the first whose version
/// is at most `n` (or the oldest there is).
fn at_most<'a>(
    by_id: &HashMap<i64, &'a TruthVersion>,
    start: &'a TruthVersion,
    n: u32,
) -> &'a TruthVersion {
    let mut cur = start;
    while cur.version > n {
        match cur.supersedes.first().and_then(|id| by_id.get(id)) {
            Some(older) => cur = *older,
            None => break,
        }
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{IngestDoc, PdfData, TruthFile};

    fn ingest(s: &mut Store, format: &str, bytes: &[u8]) -> u32 {
        let truths = [TruthFile { format, part: "", bytes, source_path: "t.json" }];
        let doc = IngestDoc {
            dataset: "d",
            name: "a",
            source_path: "a.pdf",
            pdf: PdfData::Bytes(b"%PDF-1 a"),
            pages: 1,
            truths: &truths,
            attributes: &[],
        };
        s.ingest(&doc).unwrap().new_truths
    }

    fn versions(s: &Store) -> Vec<(i64, u32, bool, Vec<i64>)> {
        let v = s.truth_versions(None).unwrap();
        v.into_iter().map(|t| (t.row.id, t.version, t.latest, t.supersedes)).collect()
    }

    #[test]
    fn a_newer_ingest_supersedes_and_the_selections_pick_by_version() {
        let mut s = Store::open_in_memory().unwrap();
        assert_eq!(ingest(&mut s, "peerread", b"{\"v\":1}"), 1);
        assert_eq!(ingest(&mut s, "peerread", b"{\"v\":1}"), 0, "the same bytes again: nothing");
        assert_eq!(ingest(&mut s, "peerread", b"{\"v\":2}"), 1);
        assert_eq!(ingest(&mut s, "peerread", b"{\"v\":3}"), 1);
        assert_eq!(
            versions(&s),
            [(1, 1, false, vec![]), (2, 2, false, vec![1]), (3, 3, true, vec![2])]
        );
        let ids = |s: &mut Store, sel| {
            s.set_truth_select(sel);
            s.truths(None).unwrap().iter().map(|t| t.id).collect::<Vec<_>>()
        };
        assert_eq!(ids(&mut s, TruthSelect::Latest), [3]);
        assert_eq!(ids(&mut s, TruthSelect::Previous), [2]);
        assert_eq!(ids(&mut s, TruthSelect::Version(1)), [1]);
        assert_eq!(ids(&mut s, TruthSelect::Version(9)), [3]);
        assert_eq!(ids(&mut s, TruthSelect::Id(2)), [2]);
        // Another format is another truth of the document: it supersedes nothing by itself.
        ingest(&mut s, "s2orc", b"{}");
        assert_eq!(ids(&mut s, TruthSelect::Latest), [3, 4]);
        assert_eq!(ids(&mut s, TruthSelect::Previous), [2, 4]);
    }

    #[test]
    fn an_explicit_supersedes_links_across_formats_and_refuses_unknown_ids() {
        let mut s = Store::open_in_memory().unwrap();
        ingest(&mut s, "peerread", b"{}");
        let e = s.supersede_on_ingest(&[42]).unwrap_err().to_string();
        assert!(e.contains("--supersedes 42: no truth has that id"), "{e}");
        s.supersede_on_ingest(&[1]).unwrap();
        ingest(&mut s, "s2orc", b"{}");
        assert!(s.supersedes_unused().unwrap().is_empty());
        assert_eq!(versions(&s), [(1, 1, false, vec![]), (2, 2, true, vec![1])]);
        s.set_truth_select(TruthSelect::Latest);
        assert_eq!(s.truths(None).unwrap().iter().map(|t| t.id).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn the_migration_links_the_truths_stored_before_it_as_newest_wins_meant() {
        let conn = Connection::open_in_memory().unwrap();
        let migrations = crate::store::migrate::MIGRATIONS;
        let at = migrations.iter().position(|(n, _)| *n == "0010_truth_versions").unwrap();
        for (_, sql) in &migrations[..at] {
            conn.execute_batch(sql).unwrap();
        }
        conn.execute_batch(
            "INSERT INTO blobs (hash, size, media_type, data)
                 VALUES ('p', 1, 'x', 'x'), ('q', 1, 'x', 'x'), ('r', 1, 'x', 'x');
             INSERT INTO datasets VALUES (1, 'd', 't');
             INSERT INTO documents VALUES (1, 'p', 1, 't');
             INSERT INTO document_names VALUES (1, 1, 'a', NULL, 't');
             INSERT INTO truths VALUES (1, 1, 1, 'peerread', '', 'p', NULL, 't'),
                                       (2, 1, 1, 's2orc', '', 'p', NULL, 't'),
                                       (3, 1, 1, 'peerread', '', 'q', NULL, 't'),
                                       (4, 1, 1, 'peerread', '', 'r', NULL, 't');",
        )
        .unwrap();
        conn.execute_batch(migrations[at].1).unwrap();
        let rows: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT truth_id, version, latest FROM v_truths ORDER BY truth_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(rows, [(1, 1, 0), (2, 1, 1), (3, 2, 0), (4, 3, 1)]);
    }

    #[test]
    fn selections_parse_and_print_back() {
        for s in ["latest", "previous", "v2", "17"] {
            assert_eq!(TruthSelect::parse(s).unwrap().label(), s);
        }
        for bad in ["v0", "0", "v", "newest", "-3"] {
            assert!(TruthSelect::parse(bad).is_err(), "{bad}");
        }
    }
}
