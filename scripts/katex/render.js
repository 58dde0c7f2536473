// Long-lived KaTeX renderer for corpus's olmOCR-bench math tests (corpus::metrics::katex).
//
// Protocol: one JSON request per stdin line, {"tex": "<latex>"}; one JSON reply per stdout line,
// {"markup": "<katex html+mathml>"} or {"error": "<message>"}. The first line written is a
// handshake, {"ready": true, "katex": "<version>"}, or {"fatal": "<why>"} before exiting 1.
//
// Rendering follows olmocr/bench/katex/render.py: katex.render(tex, el, {displayMode: true,
// throwOnError: true}) with the default output (HTML and MathML); renderToString gives the same
// tree as markup. Nothing else is ever written to stdout.
"use strict";

const readline = require("readline");

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

// KaTeX reports non-strict input through console.warn; keep stdout/stderr free of it.
console.warn = () => {};
console.log = () => {};
console.error = () => {};

let katex;
try {
  katex = require("katex");
} catch (e) {
  send({ fatal: "cannot load the katex package: " + e.message });
  process.exit(1);
}

send({ ready: true, katex: katex.version });

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  let tex;
  try {
    tex = JSON.parse(line).tex;
  } catch (e) {
    send({ error: "bad request: " + e.message });
    return;
  }
  if (typeof tex !== "string") {
    send({ error: "bad request: no string field tex" });
    return;
  }
  try {
    send({ markup: katex.renderToString(tex, { displayMode: true, throwOnError: true }) });
  } catch (e) {
    send({ error: e && e.message !== undefined ? String(e.message) : String(e) });
  }
});
