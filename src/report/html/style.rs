//! The one stylesheet of every page (inline, allowed by the pages' Content-Security-Policy
//! as `style-src 'unsafe-inline'`), the CSP itself, and the colours of block kinds.

use crate::doc::BlockKind;

/// The Content-Security-Policy of every page: nothing remote, no script at all, images
/// only from the site's own folder (`'self'`) or `data:` URLs, styles only inline
/// (`docs/html-report.md`, "Safety").
pub const CSP: &str = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; \
                       script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/// The colour of a block kind's box (stroke; the fill is the same at low opacity).
pub(crate) fn kind_colour(k: BlockKind) -> &'static str {
    match k {
        BlockKind::Title => "#d62728",
        BlockKind::Heading => "#ff7f0e",
        BlockKind::Paragraph => "#1f77b4",
        BlockKind::ListItem => "#17becf",
        BlockKind::Caption => "#9467bd",
        BlockKind::Table => "#2ca02c",
        BlockKind::Formula => "#e377c2",
        BlockKind::Figure => "#8c564b",
        BlockKind::PageHeader => "#7f7f7f",
        BlockKind::PageFooter => "#7f7f7f",
        BlockKind::Footnote => "#bcbd22",
        BlockKind::Reference => "#393b79",
        BlockKind::Code => "#637939",
    }
}

/// The stylesheet, with one rule per block kind.
pub fn css() -> String {
    let mut s = String::from(BASE);
    for k in BlockKind::ALL {
        let c = kind_colour(k);
        s.push_str(&format!(
            ".k-{n}{{stroke:{c};fill:{c}}}.sw.k-{n}{{background:{c}}}\n",
            n = k.as_str()
        ));
    }
    s
}

const BASE: &str = r#"
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#22313f;color:#fff;padding:10px 20px}
header a{color:#cfe3ff}
main{padding:10px 20px 40px}
h1{font-size:20px;margin:4px 0}
h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:15px;margin:14px 0 6px}
table{border-collapse:collapse;background:#fff;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top;max-width:36em;overflow-wrap:anywhere}
th{background:#f0f2f5;overflow-wrap:normal;white-space:nowrap;word-break:keep-all}
th .dir{color:#888;font-weight:400;font-size:11px;margin-left:3px}
table.leaderboard td,table.all-metrics td{vertical-align:middle;white-space:nowrap;overflow-wrap:normal}
td.id{white-space:nowrap;overflow-wrap:normal}
svg.bar{vertical-align:middle;margin-left:6px}
svg.bar .track{fill:#eef0f3}svg.bar .fill{fill:#8fb0d3}td.best svg.bar .fill{fill:#2f6da8}
svg.bar .whisker{stroke:#1b1b1b;stroke-width:1.3;fill:none}
td .ci{display:block;color:#666;font-size:11px;line-height:1.2}
td.best{background:#eef6ee}
tr.floor td{color:#777;background:#f4f4f4}
tr.floor svg.bar .fill{fill:#c4c4c4}
.note{display:block;font-size:11px;font-style:italic;white-space:nowrap}
details.all-metrics{padding:3px 8px;margin-top:10px}
td.n{text-align:right;white-space:nowrap;overflow-wrap:normal}
.scroll{overflow-x:auto;max-width:100%}
.neg{color:#b00020}.pos{color:#00701a}
.muted{color:#666}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart{background:#fff;border:1px solid #ddd}
.chart .grid{stroke:#e5e5e5}.chart .ax{font-size:10px;fill:#555}.chart .ct{font-size:12px;font-weight:600}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0}
.sw{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:middle;border-radius:2px}
.pages{display:flex;flex-direction:column;gap:18px}
.page-row{display:flex;gap:14px;align-items:flex-start;overflow-x:auto}
figure.page{margin:0;flex:0 0 auto}
figure.page figcaption{font-size:12px;color:#444;margin-top:3px}
.pv{position:relative;border:1px solid #bbb;background:#fff}
.pv img{display:block;width:100%;height:auto}
.pv svg.overlay{position:absolute;left:0;top:0;width:100%;height:100%}
rect.blk{fill-opacity:.08;stroke-width:1.2;vector-effect:non-scaling-stroke}
rect.blk:hover{fill-opacity:.3}
text.ord{font-weight:700;paint-order:stroke;stroke:#fff;stroke-width:2px;fill:#000}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side>div{background:#fff;border:1px solid #ddd;padding:6px 10px;max-height:520px;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.miss{background:#ffd6d6;color:#8a0000;text-decoration:line-through}
.extra{background:#d6e8ff;color:#00357a}
table.cells td.miss{text-decoration:none}
table.cells{font-size:12px;white-space:normal}
ol.l-miss,ol.l-extra{margin:2px 0;padding-left:22px}
details{background:#fff;border:1px solid #ddd;margin:4px 0;padding:3px 8px}
details summary{cursor:pointer}
details dl{margin:4px 0 4px 8px;display:grid;grid-template-columns:max-content 1fr;gap:2px 10px}
details dt{color:#555}details dd{margin:0;overflow-wrap:anywhere}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:3px 0;border-left:3px solid #ccc;padding-left:6px}
.pair.differs{border-left-color:#b00020}
.pair .gt,.pair .pred{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,monospace;font-size:12px}
.pass{background:#d9f2dd;color:#00701a;padding:0 5px;border-radius:3px}
.fail{background:#ffd6d6;color:#8a0000;padding:0 5px;border-radius:3px}
.err{color:#b00020}
nav.toc a{margin-right:12px}
table.heatmap td.heat{min-width:4.5em}
.unplaced{background:#fff;border:1px solid #bbb;padding:4px 8px;width:430px;max-height:560px;overflow:auto;font-size:12px;flex:0 0 auto}
.unplaced p{margin:2px 0}
section.agree-page{margin-bottom:22px}
"#;
