"""pymupdf4llm run untouched, as a `corpus ocr --provider command` tool: PDF in, Markdown out.

    python bench/pymupdf4llm_md.py IN.pdf OUT.md
"""

import sys

import pymupdf4llm


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    md = pymupdf4llm.to_markdown(src)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(md)


if __name__ == "__main__":
    main()
