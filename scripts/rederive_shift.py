"""Independent re-derivation of the shift studies: where does the cliff of a GPT without QK-norm go when one thing moves?

What it is: the numbers of each study that a committed shift prediction names (studies/predictions/*.json: the width
study, 4 layers at d=192; the tokens-per-step study, 64 x 128 tokens a step), scored against the prediction and judged
against the base (the cliff study), written from the words of the analysis rule (studies/rules/analysis.yaml, sections
`collapse`, `cliff` and `shift`) alone. Like scripts/rederive_depth.py it does NOT import the `qknorm_nb` package, only
the standard library and numpy; it imports that script's readers and one-cliff reading, scripts/rederive_runs.py
(runs, rules, entropies, bars) and, through rederive_depth, scripts/rederive_cliff.py (the statistics).

    python scripts/rederive_shift.py                  # the repository's runs, rules and predictions
    python scripts/rederive_shift.py --json           # the same numbers as one JSON object on stdout
    python scripts/rederive_shift.py --runs DIR --rules DIR --predictions DIR

What it derives, per the rule:
  - per configuration (the base, and each predicted study whose folder exists): l*, its best seed-mean capped loss of
    any arm at any LR, and the collapse bar of `collapse.criterion`; per arm and LR, k of n runs collapsed with the
    exact interval; per arm, the logistic fit from the arm's own best LR and its P = 0.5 LR (rederive_depth.cliff);
  - `shift.measure`: the off arm's lr50 as [lo, point, hi], an open side or a missing point as null (a logistic fit's
    band end at the end of the LRs run is open; a separated sample gives its bracket and geometric midpoint; no LR
    mixing outcomes gives the grid end it lies beyond; a single LR gives nothing);
  - `shift.prediction`: the observed point inside the predicted interval or not (a censored observation outside only
    when its open interval lies wholly beyond the prediction, else not scored), and whether the intervals overlap;
  - `shift.verdict`: the move [log10(lo_B / hi_A), log10(B / A), log10(hi_B / lo_A)] in decades from the base A to the
    study B (an open side open), supported when it excludes 0, not supported when it lies inside
    (-smallest_effect, +smallest_effect), otherwise inconclusive; interim until every cell of the study has ended;
    and that verdict again with both ends of the move one `cliff.search_step` wider for each of the two lr50
    intervals that is a logistic fit's band read on that grid (`wider_verdict`), said where it differs: a verdict
    decided by less than the rule's reading grid.

Exit status: 0 when the numbers were derived, 2 when an input cannot be read (one line on stderr naming the file,
the field, the value and what is allowed). Nothing is written.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling scripts, wherever this runs from
import rederive_depth as D  # noqa: E402  the study reader with depths, the entropies, one arm's cliff
import rederive_runs as R  # noqa: E402  the rule readers and checks, the bars

ROOT = R.ROOT
MEASURE = "lr50"
KIND = "qknorm-nb shift prediction"


# ------------------------------------------------------------------------------------------------ the inputs
def load_shift_rule(rules):
    """analysis.yaml `shift`, with `collapse` and `cliff` (rederive_runs.cliff_rule) as its key `cliff`, each value checked."""
    a = Path(rules) / "analysis.yaml"
    cr = R.cliff_rule(rules)
    s = R.rule_section(a, "shift")
    where = f"{R.rel(a)}: shift"
    R.need(where, s, "measure", lambda v: v == MEASURE, "lr50 (the off arm's P = 0.5 LR: the only measure implemented here)")
    R.need(where, s, "base", lambda v: isinstance(v, str) and re.fullmatch(r"[\w.-]+", v), "the name of a study folder under runs/")
    R.need(where, s, "smallest_effect", lambda v: R.finite(v) and v > 0, "a number > 0 (decades)")
    return dict(s, cliff=cr)


def triple(where, v, closed):
    """[lo, point, hi]: positive numbers (null allowed on a side when not `closed`) in order; a Refused otherwise."""
    ok = isinstance(v, list) and len(v) == 3 and all((x is None and not closed) or (R.finite(x) and x > 0) for x in v)
    known = [x for x in v if x is not None] if ok else []
    if not ok or known != sorted(known):
        raise R.Refused(f"{where} is {v!r}; need [lo, point, hi]: positive numbers{'' if closed else ' or null'} with lo <= point <= hi")
    return [None if x is None else float(x) for x in v]


def load_prediction(path):
    """A committed shift prediction: its study's name and its lr50 [lo, point, hi], checked."""
    p = R.read_json(path)
    if not isinstance(p, dict) or p.get("kind") != KIND:
        raise R.Refused(f"{R.rel(path)}: kind is {p.get('kind') if isinstance(p, dict) else type(p).__name__!r}; need {KIND!r}")
    R.need(R.rel(path), p, "study", lambda v: isinstance(v, str) and re.fullmatch(r"[\w.-]+", v), "the name of a study folder under runs/")
    return dict(study=p["study"], lr50=triple(f"{R.rel(path)}: lr50", p.get("lr50"), closed=True), made_at=p.get("made_at"))


# ------------------------------------------------------------------------------------------------ one configuration
def configuration(folder, notes, cr):
    """One study folder read as one configuration: l*, the bar, each arm's cliff, the off arm's lr50 triple (`cr`: the
    cliff rule, rederive_runs.cliff_rule)."""
    runs, pending, listed, failed = D.load_runs(folder, notes)
    cells = R.read_json(folder / "study.json")["cells"]
    shapes = {tuple(c.get(k) for k in ("n_layer", "n_embd", "batch_size", "block_size")) for c in cells.values()}
    if len(shapes) != 1:
        raise R.Refused(f"{R.rel(folder / 'study.json')}: cells hold {len(shapes)} configurations (n_layer, n_embd, batch_size, "
                        f"block_size) {sorted(map(str, shapes))[:2]}; a shift reads one")
    out = dict(folder=R.rel(folder), shape=dict(zip(("n_layer", "n_embd", "batch_size", "block_size"), shapes.pop())),
               listed=listed, ended=len(runs), complete=not pending and not failed)
    if not runs:
        return dict(out, arms={}, lr50=None)
    h1, h2, _ = D.entropies(folder, notes)
    lstar = R.best(runs)[0]
    bar = R.bars(lstar, h1, h2)[cr["criterion"]]
    col = {r.name: bool(r.failed or r.capped > bar) for r in runs}  # `collapse.criterion`: failed, or above the bar
    arms = {a: D.cliff(R.select(runs, a), col, cr) for a in cr["arms"] if R.select(runs, a)}
    off = cr["arms"][0]
    return dict(out, lstar=lstar, bar=bar, arms=arms, lr50=lr50_triple(arms[off], R.select(runs, off)) if off in arms else None)


def lr50_triple(c, rs):
    """The off arm's lr50 as [lo, point, hi] (None: open or missing) from its cliff `c` (rederive_depth.cliff)."""
    if c["kind"] == "separated":
        return [c["lo"], c["lr50"], c["hi"]]
    if c["kind"] == "logistic":
        return [None if c["open_lo"] else c["lo"], c["lr50"], None if c["open_hi"] else c["hi"]]
    if c["kind"] == "one LR":
        return [None, None, None]  # one LR mixing outcomes: no slope, no interval
    at = [r.lr for r in rs if r.lr >= c["best_lr"]]  # no LR mixes outcomes: censored at the end it lies beyond
    return [None, None, min(at)] if c["censored"] == "below" else [max(at), None, None]


# ------------------------------------------------------------------------------------------------ score, move, verdict
def move(a, b):
    """The move from lr50 `a` to lr50 `b` in decades (the rule's `shift.verdict`); open sides are -inf / +inf."""
    r = lambda x, y, inf: math.log10(x / y) if x is not None and y is not None else inf
    return [r(b[0], a[2], -math.inf), r(b[1], a[1], None), r(b[2], a[0], math.inf)]


def score(o, lo, hi):
    """(inside / outside / not scored, the words, overlap) of the observed lr50 `o` against the predicted [lo, hi]."""
    o_lo, o_hi = (0.0 if o[0] is None else o[0]), (math.inf if o[2] is None else o[2])
    if o[1] is not None:
        s = "inside" if lo <= o[1] <= hi else "outside"
    else:
        s = "outside" if o_lo > hi or o_hi < lo else "not scored"
    words = s if s != "outside" else f"outside: observed {'higher' if (o[1] if o[1] is not None else o_lo) > hi else 'lower'}"
    overlap = None if o[0] is None and o[2] is None else bool(o_lo <= hi and o_hi >= lo)
    return s, words, overlap


def verdict(m, e):
    """`shift.verdict` on the move `m` with the smallest effect `e`: (verdict, direction). The ends are rounded to 1e-9
    decades first, so float noise (a 1e-17 left over from two grids) never decides it."""
    m = [round(x, 9) if x is not None and math.isfinite(x) else x for x in m]
    if m[0] > 0 or m[2] < 0:
        return "supported", "up" if m[0] > 0 else "down"
    if -e < m[0] and m[2] < e:
        return "not supported", None
    return "inconclusive", None


def wider_verdict(m, e, step, reads):
    """The verdict on the move `m` with both ends `reads` steps of `step` (the rule's `cliff.search_step`) wider, one
    step for each of the two lr50 intervals that is a logistic fit's band read on that grid (an end up to a step inside
    the band's edge; a separated bracket's ends are LRs that ran); None where it is the verdict of `m` itself. Where it
    is not None, the rule's verdict is decided by less than the rule's own reading grid, and the lines say so."""
    w = verdict([m[0] - reads * step, m[1], m[2] + reads * step], e)[0]
    return None if w == verdict(m, e)[0] else w


# ------------------------------------------------------------------------------------------------ every study
def derive(runs_dir, rules_dir, predictions_dir):
    """Every number, as one dict (the --json output)."""
    rule, notes = load_shift_rule(rules_dir), []
    cr = rule["cliff"]
    base = configuration(Path(runs_dir) / rule["base"], notes, cr)
    b = base["lr50"]
    if b is None or None in b:
        raise R.Refused(f"{base['folder']}: the base's lr50 is {b}; the rule's move needs it closed [lo, point, hi]")
    studies = []
    for path in sorted(Path(predictions_dir).glob("*.json")):
        p = load_prediction(path)
        folder = Path(runs_dir) / p["study"]
        entry = dict(prediction=R.rel(path), study=p["study"], predicted=p["lr50"])
        if not (folder / "study.json").is_file():
            studies.append(dict(entry, started=False))
            continue
        name = R.read_json(folder / "study.json").get("name")
        if name != p["study"]:
            raise R.Refused(f"{R.rel(folder / 'study.json')}: name is {name!r}; the prediction {R.rel(path)} is of study {p['study']!r}")
        c = configuration(folder, notes, cr)
        entry = dict(entry, started=True, **c)
        if c["lr50"] is not None:
            o = triple(f"{c['folder']}: the observed lr50", c["lr50"], closed=False)
            s, words, overlap = score(o, p["lr50"][0], p["lr50"][2])
            m = move(b, o)
            reads = sum(x["arms"][cr["arms"][0]]["kind"] == "logistic" for x in (base, c))  # lr50 intervals read on the grid
            v, direction = verdict(m, rule["smallest_effect"])
            entry.update(inside=None if s == "not scored" else s == "inside", score=words, overlap=overlap, move=m,
                         verdict=v, direction=direction, grid_reads=reads,
                         wider_verdict=wider_verdict(m, rule["smallest_effect"], cr["search_step"], reads))
        studies.append(entry)
    return dict(rule=dict(measure=rule["measure"], base=rule["base"], smallest_effect=rule["smallest_effect"],
                          criterion=cr["criterion"], level=cr["level"], search_step=cr["search_step"]),
                base=base, studies=studies, notes=list(dict.fromkeys(notes)))  # a note said of two studies (one text) once


# ------------------------------------------------------------------------------------------------ the lines
def tri(v):
    g = lambda x: "open" if x is None else R.g(x)
    return "none" if v is None else f"{g(v[1]) if v[1] is not None else '-'} [{g(v[0])}, {g(v[2])}]"


def dec(m):
    f = lambda x: "-" if x is None else ("+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.3f}")
    return f"{f(m[1])} [{f(m[0])}, {f(m[2])}]"


def config_lines(c):
    yield f"  {c['folder']} ({c['shape']}): {c['ended']} of {c['listed']} cells ended" + ("" if c["complete"] else " (interim)")
    if "bar" in c:
        yield f"    l* = {c['lstar']:.4f}, collapse bar {c['bar']:.4f}"
    for arm, a in c["arms"].items():
        yield f"    {arm}: " + ", ".join(f"{R.g(t['lr'])} {t['k']}/{t['n']}" for t in a["table"])
        yield f"      {D.fit_words(a)}"
    yield f"    off arm's lr50: {tri(c['lr50'])}"


def lines(res):
    r = res["rule"]
    yield (f"Shift studies (analysis.yaml `shift`: measure {r['measure']}, base {r['base']}, smallest effect "
           f"{r['smallest_effect']} decades; `cliff` level {r['level']}, search_step {r['search_step']}; collapse: {r['criterion']})")
    yield from (f"  {n}" for n in res["notes"])
    yield "the base:"
    yield from config_lines(res["base"])
    for s in res["studies"]:
        yield f"{s['study']} (predicted {tri(s['predicted'])}, {s['prediction']}):"
        if not s["started"]:
            yield "  not started: its folder has no study.json"
            continue
        yield from config_lines(s)
        if "verdict" in s:
            yield f"  score: {s['score']}; overlap: {s['overlap']}; move from the base {dec(s['move'])} decades"
            yield f"  {'verdict' if s['complete'] else 'interim verdict'}: {s['verdict']}" + (f" ({s['direction']})" if s["direction"] else "")
            if s["wider_verdict"]:
                yield (f"  its margin is thin: with both ends of the move {s['grid_reads']} reading step(s) ({r['search_step']} "
                       f"decades each, one per lr50 interval read on the grid) wider it would be {s['wider_verdict']}")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="rederive_shift", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default=ROOT / "runs", help="the folder holding the run folders")
    ap.add_argument("--rules", default=ROOT / "studies" / "rules", help="the folder holding analysis.yaml")
    ap.add_argument("--predictions", default=ROOT / "studies" / "predictions", help="the folder holding the shift predictions")
    ap.add_argument("--json", action="store_true", help="print the numbers as one JSON object")
    a = ap.parse_args(argv)
    res = derive(Path(a.runs), Path(a.rules), Path(a.predictions))
    print(json.dumps(res, indent=1) if a.json else "\n".join(lines(res)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except R.Refused as e:
        print(f"rederive_shift: error: {e}", file=sys.stderr)
        sys.exit(2)
