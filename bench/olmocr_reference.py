"""Run olmOCR-bench's own scorer (PyPI olmocr, `olmocr.bench`) on a bench folder and print one
line per test: TEST <id> <type> <pass|FAIL> <value> <group>, then OVERALL lines.

Math tests need KaTeX in headless Chromium (playwright). Set OLMOCR_CHROMIUM to a Chromium
binary to use it instead of playwright's own download; set OLMOCR_NO_MATH_RENDER=1 to replace
the rendered comparison by "no match" (exact-string matches only). Set OLMOCR_NO_LXML=1 to hide
lxml from BeautifulSoup, as in an environment without olmocr's `bench` extra: its MathML
comparison then falls back to the raw MathML string (see corpus::metrics::katex).
"""
import glob
import os
import sys


def patch_playwright():
    exe = os.environ.get("OLMOCR_CHROMIUM")
    if not exe:
        return
    from playwright.sync_api._generated import BrowserType

    orig = BrowserType.launch

    def launch(self, *args, **kwargs):
        kwargs.setdefault("executable_path", exe)
        kwargs.setdefault("args", ["--no-sandbox"])
        return orig(self, *args, **kwargs)

    BrowserType.launch = launch


def main():
    if os.environ.get("OLMOCR_NO_LXML") == "1":
        sys.modules["lxml"] = None  # makes `import lxml` raise ImportError inside bs4
    patch_playwright()
    if os.environ.get("OLMOCR_NO_MATH_RENDER") == "1":
        import olmocr.bench.katex.render as render

        class _Fake:
            mathml = ""
            spans = []
            error = None

        render.render_equation = lambda *a, **k: _Fake()
        import olmocr.bench.tests as tests_mod

        tests_mod.render_equation = render.render_equation
        tests_mod.compare_rendered_equations = lambda r, h: False

    from olmocr.bench.benchmark import evaluate_candidate
    from olmocr.bench.tests import BaselineTest, load_tests

    folder = sys.argv[1]
    pdf_folder = os.path.join(folder, "pdfs")
    pdfs = sorted(os.path.relpath(p, pdf_folder) for p in glob.glob(os.path.join(pdf_folder, "**/*.pdf"), recursive=True))
    all_tests, group_of = [], {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        for t in load_tests(path):
            group_of[t.id] = os.path.basename(path)
            all_tests.append(t)
    for pdf in pdfs:
        if not any(t.type == "baseline" for t in all_tests if t.pdf == pdf):
            all_tests.append(BaselineTest(id=f"{pdf}_baseline", pdf=pdf, page=1, type="baseline"))
            group_of[all_tests[-1].id] = "baseline"
    for entry in sorted(os.listdir(folder)):
        cand = os.path.join(folder, entry)
        if not os.path.isdir(cand) or entry == "pdfs":
            continue
        _, total, errors, _, _, _, results = evaluate_candidate(cand, all_tests, pdfs)
        if errors:
            for e in errors:
                print(f"[ERROR] {e}")
            continue
        passed_by_id = {}
        for pages in results.values():
            for lst in pages.values():
                for t, ok, why in lst:
                    passed_by_id[t.id] = (ok, why)
        groups = {}
        for t in all_tests:
            ok, why = passed_by_id.get(t.id, (False, "missing"))
            print(f"TEST\t{t.id}\t{t.type}\t{'pass' if ok else 'FAIL'}\t{group_of[t.id]}\t{'' if ok else why}")
            g = groups.setdefault(group_of[t.id], [0, 0])
            g[0] += int(bool(ok))
            g[1] += 1
        rates = [p / n for p, n in groups.values()]
        failing = sum(n - p for p, n in groups.values())
        print(f"candidate {entry}: {total} tests, {failing} failing")
        print(f"OVERALL\t{entry}\t{sum(rates) / len(rates)!r}")
    sys.stdout.flush()
    os._exit(0)  # the playwright render threads would otherwise keep the interpreter alive


if __name__ == "__main__":
    main()
