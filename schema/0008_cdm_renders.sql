-- Why: CDM renders every formula with a real TeX and Ghostscript (tenths of a second each),
-- while the boxes it reads depend only on what was rendered. Each successful render is kept
-- by its cache key, blake3 over the renderer version, the variant, the template, the paper
-- size and the coloured LaTeX (docs/cdm.md §Caching), so a re-run renders nothing. Failed
-- renders are not kept: they are tried again.

CREATE TABLE cdm_renders (
    cache_key         TEXT PRIMARY KEY,
    variant           TEXT NOT NULL,        -- 'omnidocbench' | 'unimernet'
    renderer_version  TEXT NOT NULL,        -- crate::cdm::render::RENDERER_VERSION
    boxes             TEXT NOT NULL,        -- JSON: {"width","height","boxes":[[x0,y0,x1,y1]|null],"tex_errors":[..]}
    created_at        TEXT NOT NULL
);
