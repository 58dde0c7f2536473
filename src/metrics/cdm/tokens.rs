//! LaTeX to coloured tokens, as the official CDM prepares a formula before rendering it:
//! tokenization (the im2markup-style normalization the official code runs through a patched
//! KaTeX under node), `normalize_latex`, and one colour per token.

use super::Variant;

/// Which document template the renderer must wrap [`Prepared::body`] in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// An ordinary formula.
    Formula,
    /// A formula holding `tabular`.
    Tabular,
    /// A formula with CJK text (UniMERNet's variant only: the `CJK` package's template).
    FormulaZh,
}

/// A formula ready to render.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The tokens, in order; token `i` is drawn in `colors[i]`.
    pub tokens: Vec<String>,
    /// One RGB colour per token.
    pub colors: Vec<[u8; 3]>,
    /// The coloured LaTeX to put inside the template's `displaymath`.
    pub body: String,
    /// The `a<N>paper` size the official code picks from the token count (3, 4 or 5).
    pub paper: u8,
    /// The template.
    pub template: Template,
    /// False when tokenization failed and the raw LaTeX was normalized instead (as the
    /// official code falls back).
    pub tokenized: bool,
}

/// Prepares `latex` for rendering as `variant` does.
pub fn prepare(latex: &str, variant: Variant) -> Prepared {
    // Placeholder until the tokenizer lands: one token per whitespace-separated word.
    let _ = variant;
    let tokens: Vec<String> = latex.split_whitespace().map(str::to_string).collect();
    let colors: Vec<[u8; 3]> =
        (1..=tokens.len()).map(|i| [0, (i / 17 % 17 * 15) as u8, (i % 17 * 15) as u8]).collect();
    let body = tokens
        .iter()
        .zip(&colors)
        .map(|(t, c)| format!("\\textcolor[RGB]{{{},{},{}}}{{{t}}}", c[0], c[1], c[2]))
        .collect::<Vec<_>>()
        .join(" ");
    Prepared { tokens, colors, body, paper: 5, template: Template::Formula, tokenized: true }
}
