-- Why: a model behind an HTTP endpoint (the LLM judge, the `openai` OCR provider) costs money
-- and time per call, so every usable reply is kept by its cache key and a re-run sends only
-- what is missing. The key is blake3 over what decides the reply (docs/judge.md §Cache):
-- for the judge, model id, prompt version, sampling parameters, GT digest and prediction
-- digest; for an OCR page, model id, the revision the server reports, prompt digest, render
-- settings, sampling parameters, the PDF's hash and the page number. Never the API key.
-- Replies are stored as they arrive (one row, one statement), so an interrupted run keeps
-- every reply it got. Failures are not stored here: a failed call is asked again.

CREATE TABLE llm_replies (
    cache_key   TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,              -- 'judge:table', 'judge:formula', 'ocr-page'
    model       TEXT NOT NULL,              -- the model id asked
    reply       TEXT NOT NULL,              -- JSON: what the caller keeps of the reply
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    created_at  TEXT NOT NULL
);
