"""Random cases for the positional glyph comparison of olmOCR-bench's math tests, decided by
olmocr 0.4.27's `compare_rendered_equations` (step 2: the MathML keys are made to differ).

  python olmocr_positional_reference.py cases N SEED > cases.jsonl
  python olmocr_positional_reference.py decide < cases.jsonl > reference.txt
"""
import json
import random
import sys

CHARS = "ab=+x2"


def span(rng, text, col, row):
    # A 20 px grid with jitter of up to 7 px, so centres fall on both sides of the 5 px tolerance.
    w = 10.0 * len(text) + rng.choice([0.0, 0.5, 3.25])
    return {"text": text, "x": 20.0 * col + rng.uniform(-7, 7), "y": 20.0 * row + rng.uniform(-7, 7),
            "width": w, "height": rng.choice([10.0, 12.5, 20.0])}


def case(rng):
    n = rng.randint(0, 6)
    cells = rng.sample([(c, r) for c in range(4) for r in range(3)], n)
    texts = [rng.choice(CHARS) * rng.choice([1, 1, 1, 2]) for _ in cells]
    if rng.random() < 0.1:
        texts.append("\u200b")
        cells.append((rng.randint(0, 3), rng.randint(0, 2)))
    ref = [span(rng, t, c, r) for t, (c, r) in zip(texts, cells)]
    hyp = [dict(s) for s in ref]
    for _ in range(rng.randint(0, 3)):
        op = rng.random()
        if op < 0.3 and hyp:  # move one
            s = rng.choice(hyp)
            s["x"] += rng.choice([-20, 20, 4, -6])
            s["y"] += rng.choice([-20, 20, 5, -4])
        elif op < 0.5 and len(hyp) > 1:  # swap two texts
            i, j = rng.sample(range(len(hyp)), 2)
            hyp[i]["text"], hyp[j]["text"] = hyp[j]["text"], hyp[i]["text"]
        elif op < 0.8:  # add one
            hyp.append(span(rng, rng.choice(CHARS), rng.randint(-1, 4), rng.randint(-1, 3)))
        elif hyp:  # drop one
            hyp.pop(rng.randrange(len(hyp)))
    shift = (rng.uniform(-100, 100), rng.uniform(-50, 50))
    for s in hyp:
        s["x"] += shift[0]
        s["y"] += shift[1]
    rng.shuffle(hyp)
    return {"reference": ref, "hypothesis": hyp}


def main():
    if sys.argv[1] == "cases":
        rng = random.Random(int(sys.argv[3]))
        for _ in range(int(sys.argv[2])):
            print(json.dumps(case(rng)))
        return
    from olmocr.bench.katex.render import BoundingBox, RenderedEquation, SpanInfo, compare_rendered_equations

    def render(mathml, spans):
        return RenderedEquation(mathml=mathml, spans=[
            SpanInfo(text=s["text"], bounding_box=BoundingBox(x=s["x"], y=s["y"], width=s["width"], height=s["height"]))
            for s in spans])

    for line in sys.stdin:
        c = json.loads(line)
        r = render("<math><semantics><mi>r</mi></semantics></math>", c["reference"])
        h = render("<math><semantics><mi>h</mi></semantics></math>", c["hypothesis"])
        print("true" if compare_rendered_equations(r, h) else "false")


if __name__ == "__main__":
    main()
