"""ParseBench's own evaluator on corpus's ParseBench test cases (bench/parsebench_agreement.sh).

Run with a ParseBench checkout's `src/` on PYTHONPATH, in an environment holding the packages
its lock file pins. Loads the cases with ParseBench's loader (`_load_jsonl_dataset`), runs its
`RuleBasedMetric` on each provider's Markdown (every rule, as ParseBench does), and its
`ParseEvaluator` (GriTS and TableRecordMatch on) on the same case restricted to the rule types
corpus runs (so that the per-case figures compare like with like). Prints JSON:

    {provider: {"rules": {rule_id: {type, passed, score, explanation}},
                "cases": {"<category>:<pdf>": {metric: value}}}}

Usage: parsebench_reference.py CASES_DIR OUTPUTS_DIR IMPLEMENTED_TYPES_CSV PROVIDER...
where a provider `truth` reads each case's expected Markdown and any other PROVIDER reads
OUTPUTS_DIR/PROVIDER/<pdf path under pdfs/ without .pdf>.md.
"""

import contextlib
import io
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from parse_bench.evaluation.evaluators.parse import ParseEvaluator
from parse_bench.evaluation.metrics.parse.rule_based_metric import RuleBasedMetric
from parse_bench.schemas.parse_output import ParseOutput
from parse_bench.schemas.pipeline_io import InferenceRequest, InferenceResult
from parse_bench.schemas.product import ProductType
from parse_bench.test_cases.loader import _load_jsonl_dataset
from parse_bench.test_cases.schema import ParseTestCase


def markdown(case, provider, cases_dir, outputs_dir):
    if provider == "truth":
        return case.expected_markdown or ""
    rel = Path(case.file_path).resolve().relative_to((cases_dir / "pdfs").resolve())
    p = outputs_dir / provider / rel.with_suffix(".md")
    return p.read_text(encoding="utf-8") if p.exists() else ""


def main():
    cases_dir, outputs_dir = Path(sys.argv[1]), Path(sys.argv[2])
    implemented = set(sys.argv[3].split(","))
    providers = sys.argv[4:]
    cases = [c for c in _load_jsonl_dataset(cases_dir) if isinstance(c, ParseTestCase)]
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
    for provider in providers:
        rules, figures = {}, {}
        for case in cases:
            md = markdown(case, provider, cases_dir, outputs_dir)
            with contextlib.redirect_stdout(io.StringIO()):
                value = metric.compute(expected=case.test_rules, actual=md)
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
                output=ParseOutput(example_id=case.test_id, pipeline_name=provider, markdown=md),
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
