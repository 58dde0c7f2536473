//! CDM renders by cache key (`cdm_renders`, migration 0008): the boxes a TeX render of one
//! coloured formula gave, so that a re-run renders nothing (`docs/cdm.md` §Caching).

use rusqlite::params;

use super::{now, optional, Store};
use crate::error::Result;

impl Store {
    /// The boxes JSON stored under `key`, if any.
    pub(crate) fn cdm_render(&self, key: &str) -> Result<Option<String>> {
        let mut st =
            self.conn.prepare_cached("SELECT boxes FROM cdm_renders WHERE cache_key = ?1")?;
        optional(st.query_row(params![key], |r| r.get(0)))
    }

    /// Stores one render (a key already there is kept: the same key renders the same).
    pub(crate) fn put_cdm_render(
        &self,
        key: &str,
        variant: &str,
        renderer_version: &str,
        boxes: &str,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT INTO cdm_renders (cache_key, variant, renderer_version, boxes, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(cache_key) DO NOTHING",
            params![key, variant, renderer_version, boxes, now()],
        )?;
        Ok(())
    }

    /// How many renders are stored.
    #[cfg(test)]
    pub(crate) fn cdm_render_count(&self) -> Result<u64> {
        let n: i64 = self.conn.query_row("SELECT count(*) FROM cdm_renders", [], |r| r.get(0))?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_is_kept_once_by_its_key() {
        let s = Store::open_in_memory().unwrap();
        assert_eq!(s.cdm_render("k").unwrap(), None);
        s.put_cdm_render("k", "unimernet", "v1", r#"{"width":1}"#).unwrap();
        s.put_cdm_render("k", "unimernet", "v1", r#"{"width":2}"#).unwrap();
        assert_eq!(s.cdm_render("k").unwrap().as_deref(), Some(r#"{"width":1}"#));
        assert_eq!(s.cdm_render_count().unwrap(), 1);
    }
}
