"""ParseBench's own evaluator on corpus's ParseBench test cases (bench/parsebench_agreement.sh).

Run with a ParseBench checkout's `src/` on PYTHONPATH, in an environment holding the packages
its lock file pins. Loads the cases with ParseBench's loader (`_load_jsonl_dataset`), runs its
`RuleBasedMetric` on each provider's Markdown (every rule, as ParseBench does), and its
`ParseEvaluator` (GriTS and TableRecordMatch on) on the same case restricted to the rule types
corpus runs (so that the per-case figures compare like with like). Prints JSON:

    {provider: {"rules": {rule_id: {type, passed, score, explanation}},
                "cases": {"<category>:<pdf>": {metric: value}}}}

Usage: parsebench_reference.py CASES_DIR OUTPUTS_DIR IMPLEMENTED_TYPES_CSV DOCS_DIR PROVIDER...
where a provider `truth` reads each case's expected Markdown and any other PROVIDER reads
OUTPUTS_DIR/PROVIDER/<pdf path under pdfs/ without .pdf>.md.

Layout cases (`layout` rules) run `LayoutDetectionEvaluator` as the runner's cross-evaluation
does, on the provider's blocks: DOCS_DIR/PROVIDER/<pdf path without .pdf>.json, the Doc corpus
stored (`corpus export --format json`). Its blocks with a box on a page of known size become a
`LayoutOutput` (the evaluator's own prediction schema, read by its default adapter and its
pass-through label mapper): label the block kind's Canonical17 class (docs/parsebench.md),
box in points, the page's size as the image size, content the block's text. A provider without boxes (no Doc, or none
with a box) goes through the runner's adapter, which cannot adapt a Markdown output; the runner
counts that as the provider's failure, 0 on every layout score, which is what is recorded.
A PROVIDER written `name:layout` is compared on its layout cases only; `name:layout+form` on
its layout and form cases, the form cases with the output's pages: DOCS_DIR/PROVIDER/<pdf path
without .pdf>.pages.json (`corpus export --format pages`: each page's Markdown as corpus renders
it) become the `ParseOutput`'s `pages` (`PageIR`, 0-based `page_index`), which
`FormFieldRule` scopes a rule with a `page` to (`_scope_to_page`); the document's Markdown is
the pages' joined by a blank line, as corpus renders the whole Doc.
"""

import contextlib
import io
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from parse_bench.evaluation.evaluators.layoutdet import LayoutDetectionEvaluator
from parse_bench.evaluation.evaluators.parse import ParseEvaluator
from parse_bench.evaluation.layout_adapters import create_layout_adapter_for_result
from parse_bench.evaluation.layout_label_mappers.mappers import CanonicalPassthroughMapper
from parse_bench.evaluation.layout_label_mappers.registry import build_mapping_context, resolve_layout_label_mapper
from parse_bench.evaluation.runner import _is_infra_failure, _is_skipped_result
from parse_bench.schemas.evaluation import EvaluationResult
from parse_bench.schemas.layout_detection_output import LayoutDetectionModel, LayoutOutput, LayoutPrediction
from parse_bench.evaluation.metrics.parse.rule_based_metric import RuleBasedMetric
from parse_bench.schemas.parse_output import PageIR, ParseOutput
from parse_bench.schemas.pipeline_io import InferenceRequest, InferenceResult
from parse_bench.schemas.product import ProductType
from parse_bench.test_cases.loader import _load_jsonl_dataset
from parse_bench.test_cases.schema import LayoutDetectionTestCase, ParseTestCase

# corpus's block kinds as Canonical17 classes (docs/parsebench.md, "The layout dimension").
CANONICAL = {
    "title": "Title", "heading": "Section-header", "paragraph": "Text", "list_item": "List-item",
    "caption": "Caption", "table": "Table", "formula": "Formula", "figure": "Picture",
    "page_header": "Page-header", "page_footer": "Page-footer", "footnote": "Footnote",
    "reference": "Text", "code": "Code",
}
LAYOUT_SCORES = ["layout_localization_pass_rate", "layout_classification_pass_rate",
                 "layout_rule_pass_rate", "rule_pass_rate", "layout_element_rule_pass_rate"]
MODEL = LayoutDetectionModel.UNSTRUCTURED_LAYOUT  # a model no label mapper is keyed to


def layout_output(doc, example_id):
    """The Doc's boxed blocks as a LayoutOutput, or None when it has none."""
    pages = doc.get("pages") or []
    preds = []
    for b in doc.get("blocks", []):
        bb, page = b["bbox"], b["page"]
        if page >= len(pages) or pages[page]["width"] <= 0 or pages[page]["height"] <= 0:
            continue
        if bb["x1"] - bb["x0"] <= 0 or bb["y1"] - bb["y0"] <= 0:
            continue
        preds.append(LayoutPrediction(bbox=[bb["x0"], bb["y0"], bb["x1"], bb["y1"]], score=1.0,
                                      label=CANONICAL[b["kind"]], page=page + 1,
                                      content={"type": "text", "text": b.get("text", "")}))
    if not preds:
        return None
    w, h = pages[0]["width"], pages[0]["height"]
    assert w == int(w) and h == int(h) and all(p["width"] == w and p["height"] == h for p in pages)
    return LayoutOutput(example_id=example_id, pipeline_name="corpus", model=MODEL,
                        image_width=int(w), image_height=int(h), predictions=preds)


def rule_passed(r):
    ok = r["localization_pass"] and r["classification_reason"] == "pass"
    if r["attribution_applicable"]:
        ok = ok and bool(r["attribution_pass"])
    return ok


def evaluate_layout(case, provider, doc_path, md, now):
    """(rules, figures) of one layout case, as the runner's cross-evaluation gives them."""
    request = InferenceRequest(example_id=case.test_id, source_file_path=str(case.file_path),
                               product_type=ProductType.PARSE)
    doc = json.loads(doc_path.read_text()) if doc_path.exists() else {}
    out = layout_output(doc, case.test_id)
    ids = [r.id for r in case.get_layout_rules() if str((r.attributes or {}).get("ignore", "")).lower()
           not in ("true", "1", "yes")]
    if out is None:
        parse = InferenceResult(request=request, pipeline_name=provider, product_type=ProductType.PARSE,
                                raw_output={}, output=ParseOutput(example_id=case.test_id,
                                pipeline_name=provider, markdown=md), started_at=now,
                                completed_at=now, latency_in_ms=0)
        try:
            create_layout_adapter_for_result(parse).to_layout_output(parse, page_filter=case.page_index + 1)
            raise SystemExit("a Markdown output was adapted to layout predictions")
        except ValueError as e:
            failed = EvaluationResult(test_id=case.test_id, example_id=case.test_id, pipeline_name=provider,
                                      product_type="parse", success=False, error=f"Worker error: {e}")
            assert not _is_infra_failure(failed) and not _is_skipped_result(failed), e
        rules = {i: {"type": "layout", "passed": False, "score": 0.0, "explanation": "no layout data"}
                 for i in ids}
        return rules, {m: 0.0 for m in LAYOUT_SCORES}
    result = InferenceResult(request=request, pipeline_name=provider, product_type=ProductType.PARSE,
                             raw_output={}, output=out, started_at=now, completed_at=now, latency_in_ms=0)
    adapter = create_layout_adapter_for_result(result)
    page_out = adapter.to_layout_output(result, page_filter=case.page_index + 1)
    if not page_out.predictions:
        return {}, None  # "No layout data for page": skipped
    synthetic = result.model_copy(update={"product_type": ProductType.LAYOUT_DETECTION, "output": page_out})
    mapper = resolve_layout_label_mapper(build_mapping_context(synthetic, page_out))
    assert isinstance(mapper, CanonicalPassthroughMapper), mapper
    ev = LayoutDetectionEvaluator(default_ontology="basic").evaluate(synthetic, case)
    figures = {m.metric_name: m.value for m in ev.metrics if m.metric_name in LAYOUT_SCORES
               or m.metric_name == "layout_attribution_pass_rate"}
    rules = {}
    for m in ev.metrics:
        if m.metric_name == "layout_element_rule_pass_rate":
            for r in m.metadata["rule_results"]:
                ok = rule_passed(r)
                rules[r["element_id"]] = {"type": "layout", "passed": ok, "score": 1.0 if ok else 0.0,
                                          "explanation": f"{r['localization_reason']}/{r['classification_reason']}"}
    return rules, figures


def markdown(case, provider, cases_dir, outputs_dir):
    if provider == "truth":
        return getattr(case, "expected_markdown", None) or ""
    rel = Path(case.file_path).resolve().relative_to((cases_dir / "pdfs").resolve())
    p = outputs_dir / provider / rel.with_suffix(".md")
    return p.read_text(encoding="utf-8") if p.exists() else ""


def main():
    cases_dir, outputs_dir = Path(sys.argv[1]), Path(sys.argv[2])
    implemented = set(sys.argv[3].split(","))
    docs_dir = Path(sys.argv[4])
    providers = sys.argv[5:]
    loaded = _load_jsonl_dataset(cases_dir)
    cases = [c for c in loaded if isinstance(c, ParseTestCase)]
    layout_cases = [c for c in loaded if isinstance(c, LayoutDetectionTestCase)]
    metric = RuleBasedMetric()
    # GriTS and TableRecordMatch on (the table dimension's composite); the structural
    # consistency and header metrics are not figures corpus computes.
    evaluator = ParseEvaluator(
        enable_grits=True,
        enable_structural_consistency=False,
        enable_table_record_match=True,
    )
    now = datetime.now(timezone.utc)
    out = {}
    for spec in providers:
        provider, _, only = spec.partition(":")
        rules, figures = {}, {}
        for case in layout_cases:
            rel = Path(case.file_path).resolve().relative_to((cases_dir / "pdfs").resolve()).with_suffix("")
            md = markdown(case, provider, cases_dir, outputs_dir)
            r, f = evaluate_layout(case, provider, docs_dir / provider / f"{rel.as_posix()}.json", md, now)
            rules.update(r)
            if f is not None:
                figures[f"{case.group}:{rel.as_posix()}"] = f
        # `name:layout+form`: the form cases too (the layout cases ran above).
        kinds = set(only.split("+")) - {"layout"} if only else None
        for case in (c for c in cases if kinds is None or c.group in kinds):
            md = markdown(case, provider, cases_dir, outputs_dir)
            pages = []
            if kinds is not None:
                rel = Path(case.file_path).resolve().relative_to((cases_dir / "pdfs").resolve())
                paged = docs_dir / provider / f"{rel.with_suffix('').as_posix()}.pages.json"
                pages = [PageIR(page_index=p["page"] - 1, markdown=p["markdown"])
                         for p in json.loads(paged.read_text())]
                md = "\n\n".join(p.markdown.rstrip("\n") for p in pages if p.markdown.strip()) + "\n"
            parsed = ParseOutput(example_id=case.test_id, pipeline_name=provider, markdown=md, pages=pages)
            with contextlib.redirect_stdout(io.StringIO()):
                value = metric.compute(expected=case.test_rules, actual=md, parse_output=parsed)
            for r in value.metadata.get("rule_results", []):
                rules[r["id"]] = {
                    "type": r["type"],
                    "passed": bool(r["passed"]),
                    "score": float(r["score"]),
                    "explanation": r["explanation"],
                }
            run = [r for r in case.test_rules if r.type in implemented]
            if not run:
                continue
            sub = case.model_copy(update={"test_rules": run})
            request = InferenceRequest(
                example_id=case.test_id, source_file_path=str(case.file_path), product_type=ProductType.PARSE
            )
            result = InferenceResult(
                request=request,
                pipeline_name=provider,
                product_type=ProductType.PARSE,
                raw_output={},
                output=parsed,
                started_at=now,
                completed_at=now,
                latency_in_ms=0,
            )
            with contextlib.redirect_stdout(io.StringIO()):
                ev = evaluator.evaluate(result, sub)
            rel = Path(case.file_path).resolve().relative_to((cases_dir / "pdfs").resolve())
            key = f"{case.group}:{rel.with_suffix('').as_posix()}"
            figures[key] = {m.metric_name: m.value for m in ev.metrics}
        out[provider] = {"rules": rules, "cases": figures}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
