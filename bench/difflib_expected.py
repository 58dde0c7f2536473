"""Prints CPython difflib values used as expected values in src/metrics/difflib.rs tests."""
import difflib, sys

def show(a, b, autojunk=True):
    m = difflib.SequenceMatcher(None, a, b, autojunk=autojunk)
    print(repr(a[:30]), repr(b[:30]), autojunk, [tuple(x) for x in m.get_matching_blocks()], repr(m.ratio()), len(m.bpopular))

print(sys.version)
show("abxcd", "abcd")
print(difflib.SequenceMatcher(None, " abcd", "abcd abcd").find_longest_match(0, 5, 0, 9))
show("abcd", "bcde"); show("", ""); show("abc", ""); show("", "x")
show("abxab", "ab"); show("ab", "abxab"); show("abcdxyz", "xyzabcd")
show("0.881", "0.818"); show("Precision", "Precison"); show("12.5 ± 0.3", "12.5±0.3")
la = "The quick brown fox jumps over the lazy dog. " * 5 + "END"
lb = "The quick brown fox jumps over the lazy cat! " * 5 + "END"
print(len(lb)); show(la, lb, True); show(la, lb, False)
a = "a" * 10
show(a, "a" * 199); show(a, "a" * 200)
a = "xa" * 5
show(a, "a" * 199 + "x"); show(a, "a" * 200 + "x"); show(a, "a" * 198 + "x")
b = "q" * 4 + "z" * 5 + "-" * 291
show("zzzzzqqqq", b, True); show("zzzzzqqqq", b, False)
m = difflib.SequenceMatcher(None, [1, 2, 3, 4, 5], [9, 2, 3, 7, 5]); print([tuple(x) for x in m.get_matching_blocks()], m.ratio())
show("lazy cat! END", lb)
show("é", "e\u0301")
