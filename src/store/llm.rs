//! Replies of models behind an HTTP endpoint, by cache key (`llm_replies`, migration 0007):
//! what `corpus judge` and the `openai` provider keep so that a re-run sends only what is
//! missing.

use rusqlite::params;

use super::{now, optional, Store};
use crate::error::Result;

/// One stored reply.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredReply {
    /// The model id asked.
    pub model: String,
    /// What the caller kept of the reply (JSON).
    pub reply: String,
    /// The reply's prompt tokens, as the server reported them.
    pub prompt_tokens: Option<u64>,
    /// The reply's completion tokens.
    pub completion_tokens: Option<u64>,
}

impl Store {
    /// The reply stored under `key`, if any.
    pub(crate) fn llm_reply(&self, key: &str) -> Result<Option<StoredReply>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT model, reply, prompt_tokens, completion_tokens FROM llm_replies WHERE cache_key = ?1")?;
        optional(st.query_row(params![key], |r| {
            Ok(StoredReply {
                model: r.get(0)?,
                reply: r.get(1)?,
                prompt_tokens: r.get::<_, Option<i64>>(2)?.map(|v| v as u64),
                completion_tokens: r.get::<_, Option<i64>>(3)?.map(|v| v as u64),
            })
        }))
    }

    /// Stores one reply (one statement: whole or absent); a key already there is kept.
    pub(crate) fn put_llm_reply(
        &mut self,
        key: &str,
        kind: &str,
        model: &str,
        reply: &str,
        tokens: (u64, u64),
    ) -> Result<()> {
        self.conn.execute(
            "INSERT INTO llm_replies (cache_key, kind, model, reply, prompt_tokens,
                                      completion_tokens, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(cache_key) DO NOTHING",
            params![key, kind, model, reply, tokens.0 as i64, tokens.1 as i64, now()],
        )?;
        Ok(())
    }

    /// How many replies of `kind` are stored.
    #[cfg(test)]
    pub(crate) fn llm_reply_count(&self, kind: &str) -> Result<u64> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM llm_replies WHERE kind = ?1",
            params![kind],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_kept_once_by_its_key() {
        let mut s = Store::open_in_memory().unwrap();
        assert_eq!(s.llm_reply("k").unwrap(), None);
        s.put_llm_reply("k", "judge:table", "m", r#"{"score":7}"#, (10, 2)).unwrap();
        s.put_llm_reply("k", "judge:table", "m", r#"{"score":1}"#, (10, 2)).unwrap();
        let r = s.llm_reply("k").unwrap().unwrap();
        assert_eq!((r.model.as_str(), r.reply.as_str()), ("m", r#"{"score":7}"#));
        assert_eq!(s.llm_reply_count("judge:table").unwrap(), 1);
    }
}
