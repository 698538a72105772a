"""The README check of the re-derivation scripts: every number a README says must be re-derived, table-driven.

A script lists what a README may quote, one entry per phrase: a `Quote` (the phrase with slots, the value each slot
must hold, derived by the script, and how the README writes it) or a `Stated` (a phrase whose numbers the script does
not re-derive, and why). `check_readme` finds each phrase in the README and compares; then every number and verdict
word of a checked sentence (one that holds a phrase, or any sentence of a paragraph the script is about) must lie
inside some entry's phrase, or it is NOT RE-DERIVED. `mutation_test` changes one number at a time in a copy of the
README and asks the check to notice. scripts/rederive_natural.py holds the entries; this module knows no study.
Standard library only, like the scripts (it does not import the `qknorm_nb` package).
"""
import contextlib
import io
import re
import tempfile
from pathlib import Path

from rederive_runs import bracket, g, read_text, rel, sf2

NUM = r"[-+−]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?"
SLOTS = {"n": NUM, "b": r"\[[^\]\n]*\]", "l": rf"{NUM}(?:, {NUM})* and {NUM}", "w": r"[\w-]+"}
VERDICT_WORDS = r"not supported|supported|inconclusive|inside|outside|not scored|overlap"
TOKEN = re.compile(rf"(?<![\w.]){NUM}|\b(?:{VERDICT_WORDS})\b")  # what a checked sentence may not leave un-derived
NUMBER_WORDS = dict(enumerate("zero one two three four five six seven eight nine ten".split()))


class Missing(Exception):
    """A value this script cannot re-derive from what has run; the message says why."""


def phrase(text):
    """A README phrase with slots as a regex: {n} a number, {b} a bracket, {l} a list 'a, b and c', {w} a word,
    {x|y|z} one of those words; the rest is literal. Each slot is one group, compared with the derived value."""
    parts = re.split(r"\{([^{}]*)\}", text)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else
                              f"({SLOTS.get(p) or '|'.join(map(re.escape, p.split('|')))})" for i, p in enumerate(parts)))


class Quote:
    """A phrase the README may say and what it must say there: `value(*said)` gives the derived value of each slot
    (it may read a slot the README fills, such as the LR a number is given at), `fmt` writes each as the README does
    (one function per slot, or one for all; each gets the value and the README's text)."""

    def __init__(self, what, text, value, fmt):
        self.what, self.rx, self.value, self.fmt = what, phrase(text), value, fmt
        assert self.rx.groups, f"a quote needs at least one slot: {text!r}"


class Stated:
    """A phrase whose numbers this script does not re-derive, and why: listed as left out, never as reproduced."""

    def __init__(self, text, why):
        self.what, self.rx, self.why = text, phrase(text), why


# how the README writes a value (each gets the value and the README's own text of it)
def N(v, said=""):  # a count with thousands commas, or an LR/number to 3 significant figures
    return f"{v:,}" if isinstance(v, int) else g(v)


def S2(v, said=""): return sf2(v)
def B2(v, said=""): return bracket(*v, 2)
def B3(v, said=""): return bracket(*v)
def D1(v, said=""): return f"{v:.1f}"
def D2(v, said=""): return f"{v:.2f}"
def D3(v, said=""): return f"{v:.3f}"
def W(v, said=""): return str(v)
def PM(v, said=""): return f"[{v[0]:+.2f}, {v[1]:+.2f}]"
def SCI(v, said=""): return sci2(v)
def PCT(v, said=""): return f"{v * 100:g}"  # a level as a percentage: 0.9 -> 90
def L(v, said=""): return ", ".join(N(x) for x in v[:-1]) + f" and {N(v[-1])}" if len(v) > 1 else (N(v[0]) if v else "(none)")


def ASIS(v, said=""):
    """The value to the README's own number of decimals (a size: 0.222M written 0.2M); a range (lo, hi) as one value
    when both ends read so, else as 'lo–hi'."""
    d = len(said.split(".")[1]) if "." in said else 0
    lo, hi = (f"{x:.{d}f}" for x in (v if isinstance(v, tuple) else (v, v)))
    return lo if lo == hi else f"{lo}–{hi}"


def sci2(x):
    """Two significant figures in the README's short scientific form: 58800 -> '5.9e4'."""
    m, e = f"{x:.1e}".split("e")
    return f"{m}e{int(e)}"


def readme_sentences(path, blocks):
    """(text, sentences): the README as one line per paragraph or bullet (links reduced to their words), and each
    sentence's (start, end, in a paragraph that begins as one of `blocks` does: a regex each)."""
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n|\n(?=- )|\n(?=\d+\. )", read_text(path)) if p.strip()]
    paras = [re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", p) for p in paras]
    numbered = [bool(re.match(r"\d+\. ", p)) for p in paras]
    paras = [re.sub(r"^\d+\. ", "", p) for p in paras]  # a list item's number is not a number the README reports
    text, sentences, at = "\n".join(paras), [], 0
    for p, item in zip(paras, numbered):
        block = item or any(re.match(b, p.lstrip("- ")) for b in blocks)
        starts = [0] + [m.end() for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z*])", p)]
        for a, b in zip(starts, starts[1:] + [len(p)]):
            sentences.append((at + a, at + b, block))
        at += len(p) + 1
    return text, sentences


def check_readme(entries, path, blocks):
    """Check every entry (a Quote or a Stated) whose phrase the README at `path` holds, then every number and verdict
    word of the checked sentences (those holding a phrase, and every sentence of a `blocks` paragraph); print one
    line each and the counts. Returns the number of DIFFERS and NOT RE-DERIVED."""
    text, sentences = readme_sentences(path, blocks)
    print(f"\n=== README check ({rel(path)}): every phrase of `quotes()` the README holds, as it writes it")
    n = dict(reproduced=0, DIFFERS=0, stated=0, **{"NOT RE-DERIVED": 0})
    spans, not_quoted = [], []
    for e in entries:
        found = list(e.rx.finditer(text))
        if not found:
            not_quoted.append(e.what)
        for m in found:
            spans.append(m.span())
            said = m.group(0)
            if isinstance(e, Stated):
                n["stated"] += 1
                print(f"  left out     {said!r}: stated, not re-derived here ({e.why})")
                continue
            try:
                vals = e.value(*m.groups())
                fmts = e.fmt if isinstance(e.fmt, tuple) else (e.fmt,) * len(m.groups())
                want = [f(v, s) for f, v, s in zip(fmts, vals, m.groups())]
            except Missing as why:
                n["NOT RE-DERIVED"] += 1
                print(f"  NOT RE-DERIVED {e.what}: README {said!r}: {why}")
                continue
            diff = [(s, w) for s, w in zip(m.groups(), want) if s.replace("−", "-") != w]
            if len(want) != len(m.groups()):
                diff.append(("(slots)", f"{len(want)} values derived for {len(m.groups())} slots"))
            n["DIFFERS" if diff else "reproduced"] += 1
            print(f"  {'DIFFERS   ' if diff else 'reproduced'}   {e.what}: {said!r}"
                  + ("" if not diff else "; " + "; ".join(f"README {s!r}, here {w!r}" for s, w in diff)))
    # every number and verdict word of a checked sentence must lie in a quote or a stated phrase
    for a, b, block in sentences:
        if not (block or any(a <= s < b for s, _ in spans)):
            continue
        for t in TOKEN.finditer(text, a, b):
            if not any(s <= t.start() and t.end() <= e for s, e in spans):
                n["NOT RE-DERIVED"] += 1
                near = text[max(a, t.start() - 70):min(b, t.end() + 50)]
                print(f"  NOT RE-DERIVED {t.group(0)!r} in '...{near}...': no entry of quotes() covers it")
    if not_quoted:
        print(f"  not quoted (the README holds no such phrase; nothing to check): {'; '.join(not_quoted)}")
    bad = n["DIFFERS"] + n["NOT RE-DERIVED"]
    print(f"README check: {n['reproduced']} reproduced, {n['DIFFERS']} DIFFERS, {n['NOT RE-DERIVED']} NOT RE-DERIVED, "
          f"{n['stated']} stated and left out (listed above){'' if bad else ': every quote reproduced'}")
    return bad


def mutation_test(check, path, mutants):
    """Each (old, new) of `mutants` the README at `path` holds, applied in a copy: `check(copy)` must print a failing
    line (DIFFERS or NOT RE-DERIVED) that `check(path)` does not. Prints one line each; returns how many went unnoticed."""
    def failing(p):  # the check's DIFFERS and NOT RE-DERIVED lines on the README at `p`
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            check(p)
        return {ln for ln in out.getvalue().splitlines() if ln.startswith(("  DIFFERS", "  NOT RE-DERIVED"))}
    text, tried, failures, base = read_text(path), 0, 0, failing(path)
    with tempfile.TemporaryDirectory() as d:
        for old, new in mutants:
            if old not in text:
                continue
            tried += 1
            copy = Path(d) / "README.md"
            copy.write_text(text.replace(old, new, 1), encoding="utf-8")
            new_lines = failing(copy) - base
            failures += not new_lines
            print(f"  {'ok  ' if new_lines else 'FAIL'} {old!r} -> {new!r}: "
                  + (f"{len(new_lines)} new failing line(s), e.g.{min(new_lines)[:150]}" if new_lines else "the check did not notice"))
    if not tried:
        print("  the README holds none of the changed phrases: nothing to try")
    return failures
