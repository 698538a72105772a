"""Independent re-derivation of H3 at 6,100 steps: does the cliff of a GPT without QK-norm move with depth?

What it is: the numbers of the depth study named by the rule (studies/rules/analysis.yaml, sections `collapse`,
`cliff` and `h3`; the study runs/depth-s6100-tinystories: 2, 4 and 8 layers at d=64, both arms), written from the
rule's words alone. Like scripts/rederive_natural.py it does NOT import the `qknorm_nb` package, only the standard
library and numpy; it reads with scripts/rederive_runs.py (the run and rule readers, the entropies and the bars that
the re-derivation scripts share) and computes with the statistics of scripts/rederive_cliff.py (Clopper-Pearson, the
logistic fit and its band), rather than restating them.

    python scripts/rederive_depth.py                 # the repository's runs and rules
    python scripts/rederive_depth.py --json          # the same numbers as one JSON object on stdout
    python scripts/rederive_depth.py --runs DIR --rules DIR

What it derives, per the rule:
  - per depth, l*: the best seed-mean capped loss of any arm at any LR of that depth (`best`: "a depth of a study"),
    and the collapse bar of `collapse.criterion` ((l* + H1)/2), H1 and H2 recomputed from the validation text when it
    is beside the repository (else the study's entropies.json, and it says so);
  - per depth, arm and LR: k of n runs collapsed (failed, or capped final loss above the bar), with the exact
    (Clopper-Pearson) interval at `cliff.level`;
  - per depth and arm: the logistic fit of P(collapse) on log10 LR over the runs at or above the arm's own best LR,
    its P = 0.5 LR (lr50) with the LRs of the `search_step` grid at which the `cliff.level` band contains 0.5, or the
    bracket when one LR separates the outcomes;
  - H3: the least-squares slope of log10(lr50) of the `h3.arm` arm on log2(n_layer), its seed-bootstrap percentile
    interval (`h3.replicates` draws of numpy default_rng(0), two-sided `h3.level`) and the verdict of `h3.verdict`,
    called interim until every cell of study.json has ended.

Exit status: 0 when the numbers were derived, 2 when an input cannot be read (one line on stderr naming the file,
the field, the value and what is allowed). Nothing is written.
"""
import argparse
import contextlib
import io
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling scripts, wherever this runs from
import rederive_cliff as C  # noqa: E402  Clopper-Pearson, the logistic fit, its band and lr50
import rederive_runs as R  # noqa: E402  the run and rule readers, the entropies, the bars

ROOT = R.ROOT
MEASURE = "lr50"  # the only measure implemented here (the rule's `h3.measure`)


# ------------------------------------------------------------------------------------------------ the rule
def load_h3_rule(rules):
    """analysis.yaml `h3`, with `collapse` and `cliff` (rederive_runs.cliff_rule) as its key `cliff`, each number
    checked: a Refused names the file, the key, the value and what is allowed."""
    a = Path(rules) / "analysis.yaml"
    cr = R.cliff_rule(rules)  # the cliff's levels, grid step, arms and the collapse criterion
    h = R.rule_section(a, "h3")
    where = f"{R.rel(a)}: h3"
    R.need(where, h, "study", lambda v: isinstance(v, str) and re.fullmatch(r"[\w.-]+", v), "the name of a study folder under runs/")
    R.need(where, h, "depths", lambda v: isinstance(v, list) and len(v) >= 2 and len(set(v)) == len(v)
           and all(R.whole(d) and d >= 1 for d in v), "a list of at least two distinct whole numbers >= 1 (layers)")
    R.need(where, h, "arm", lambda v: v in cr["arms"], f"one of the cliff's arms {cr['arms']}")
    R.need(where, h, "measure", lambda v: v == MEASURE, "lr50 (the cliff's P = 0.5 LR: the only measure implemented here)")
    R.need(where, h, "replicates", lambda v: R.whole(v) and v >= 1, "a whole number >= 1 (bootstrap draws)")
    R.need(where, h, "level", lambda v: R.finite(v) and 0 < v < 1, "a number strictly between 0 and 1 (a two-sided level)")
    R.need(where, h, "smallest_effect", lambda v: R.finite(v) and v > 0, "a number > 0 (decades per doubling of depth)")
    return dict(h, depths=sorted(h["depths"]), cliff=cr)


# ------------------------------------------------------------------------------------------------ the runs
def load_runs(folder, notes):
    """(runs that ended, each with .n_layer; cells not ended; number listed; failed cells). rederive_runs' reader
    prints the failed cells it leaves out: that line goes to `notes` (stdout may be the JSON)."""
    with contextlib.redirect_stdout(io.StringIO()) as said:
        runs, pending, listed, failed = R.load_study(folder)
    notes += [ln.strip() for ln in said.getvalue().splitlines() if ln.strip()]
    spec = R.read_json(folder / "study.json")["cells"]
    for name, cfg in spec.items():  # every listed cell's depth, checked before any is used
        R.need(f"{R.rel(folder / 'study.json')}: cells.{name}", cfg, "n_layer", lambda v: R.whole(v) and v >= 1,
               "a whole number >= 1 (the depth)")
    for r in runs:
        r.n_layer = spec[r.name]["n_layer"]
    pending = [(spec[c]["n_layer"], R.arm_of(spec[c]), float(spec[c]["lr"]), int(spec[c]["seed"]))
               for c in spec if not (folder / c / "summary.json").exists()]  # N's list, with each cell's depth
    return runs, sorted(pending), listed, failed


def entropies(folder, notes):
    """(H1, H2) of the study's validation split (analysis.yaml `entropies`: the tokens as the model sees them).

    Recomputed from the text (rederive_runs.val_tokens: documents cut at <|endoftext|>, bytes, end-of-text 0) when
    the study's tokenizer is bytes and its val_dataset is beside the repository; otherwise the study's entropies.json.
    Every cell must share one split (val_dataset, tokenizer, val_tokens): one bar per depth needs one H1."""
    spec = R.read_json(folder / "study.json")["cells"]
    splits = {(c.get("val_dataset"), c.get("tokenizer"), c.get("val_tokens")) for c in spec.values()}
    if len(splits) != 1:
        raise R.Refused(f"{R.rel(folder / 'study.json')}: cells have {len(splits)} validation splits "
                        f"(val_dataset, tokenizer, val_tokens) {sorted(map(str, splits))[:2]}; it must be one")
    val, tok, n = splits.pop()
    record = R.file_entropies(folder)
    text = (ROOT / val).resolve() if isinstance(val, str) else None
    if tok == "bytes" and R.whole(n) and text is not None and text.is_file():
        h1, h2 = R.unigram_bigram(R.val_tokens(text, n))
        agree = record is not None and abs(record[0] - h1) < 1e-9 and abs(record[1] - h2) < 1e-9
        notes.append(f"H1, H2 recomputed from {R.rel(text)} (first {n} tokens): {h1:.6f}, {h2:.6f}; entropies.json: "
                     + ("absent" if record is None else f"{record[0]:.6f}, {record[1]:.6f} ({'agree' if agree else 'DIFFER: the recomputed ones are used'})"))
        return h1, h2, "recomputed"
    if record is None:
        raise R.Refused(f"{R.rel(folder / 'entropies.json')} does not exist and the validation text {val!r} "
                        f"(tokenizer {tok!r}) cannot be read here: no H1 for the collapse bar")
    notes.append(f"H1, H2 from {R.rel(folder / 'entropies.json')} (the text is not here): {record[0]:.6f}, {record[1]:.6f}")
    return record[0], record[1], "entropies.json"


# ------------------------------------------------------------------------------------------------ one cliff
def fit_runs(rs, collapsed):
    """The runs a cliff is fitted on and the arm's best LR: `cliff.fit_from: best`, the runs at or above the LR of the
    lowest seed-mean capped loss. Convention (the package's, 05e_questions_cliff): ties go to the smaller LR."""
    arm = rs[0].arm
    best = R.arm_best_lr(rs, arm)
    at = [r for r in rs if r.lr >= best]
    return best, at, C.logistic_fit([math.log10(r.lr) for r in at], [collapsed[r.name] for r in at])


def point(rs, collapsed):
    """(log10 lr50, censored) of one arm at one depth: the point the slope is fitted to.

    Conventions where the rule leaves a choice open (the package's `lr50_point`, 05e_questions_cliff):
      - a fit: lr50 = 10^(xc - a/b), also when it lies outside the LRs run (an extrapolation is still the fit's);
      - separated (one LR separates the outcomes): the bracket's geometric midpoint, not censored (the rule says so
        of a bootstrap replicate; the point itself is read the same way, so the slope and its replicates agree);
      - no P = 0.5 LR (no LR with a collapse, every LR collapsed, a single LR, or a fit whose P falls with LR):
        censored, at the end of the fitted LRs it lies beyond: 'below' at the arm's best LR when every run there
        collapsed, else 'above' at the largest LR."""
    best, at, fit = fit_runs(rs, collapsed)
    if fit["kind"] == "separated":
        return (fit["x_ok"] + fit["x_bad"]) / 2, ""
    if fit["kind"] == "logistic" and fit["b"] > 0:
        return fit["xc"] - fit["a"] / fit["b"], ""
    if all(collapsed[r.name] for r in at):
        return math.log10(best), "below"
    return math.log10(max(r.lr for r in at)), "above"


def cliff(rs, collapsed, rule):
    """One arm at one depth as the cliff page reads it: per LR k of n with the exact interval; the fit's kind, lr50,
    its interval (or the bracket) and whether an end reaches the fitted LRs' end. `rule`: the cliff rule
    (rederive_runs.cliff_rule), whose `level` and `search_step` these read."""
    table = []
    for lr in R.lrs_of(rs):
        at = R.select(rs, lr=lr)
        k, n = sum(collapsed[r.name] for r in at), len(at)
        lo, hi = C.clopper_pearson(k, n, rule["level"])
        table.append(dict(lr=lr, k=k, n=n, lo=lo, hi=hi))
    best, at, fit = fit_runs(rs, collapsed)
    out = dict(table=table, best_lr=best, n_runs=fit["n"], n_collapsed=fit["k"], n_lrs=len(fit["xs"]), kind=fit["kind"],
               lr50=None, lo=None, hi=None, open_lo=None, open_hi=None)
    if fit["kind"] in ("logistic", "separated"):
        r50 = C.lr50(fit, rule["level"], rule["search_step"])
        out.update(lr50=None if math.isnan(r50["lr50"]) else r50["lr50"], lo=r50["lo"], hi=r50["hi"],
                   open_lo=r50["open_lo"], open_hi=r50["open_hi"])
    if fit["kind"] == "logistic":
        out["b"] = fit["b"]
    x, cens = point(rs, collapsed)
    return dict(out, point=C.exp10(x), censored=cens)


# ------------------------------------------------------------------------------------------------ the slope
def slope(x, y):
    """Least squares of y on x (`h3.slope`): cov(x, y) / var(x)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum())


def bootstrap(groups, collapsed, x, reps):
    """The slope on `reps` seed bootstraps (`h3.interval`), and how many depth points of them were censored.

    Conventions where the rule leaves a choice open (the package's `_boot_slopes`, 05e_questions_cliff), needed to draw the
    same replicates from numpy default_rng(0):
      - the resampling unit is a run: per depth (ascending) and LR (ascending, every LR of the arm, also those below
        its best LR) the n ended runs, ordered by seed, are drawn n times with replacement (rng.integers(0, n, n));
      - a run keeps the collapse outcome it has under its depth's bar (l* is not recomputed: the other arm is not
        drawn); the arm's best LR, and so the runs fitted, are recomputed on the replicate;
      - a replicate whose depth has no P = 0.5 LR takes the censored point (`point`), and is counted."""
    rng, out, cens = np.random.default_rng(0), [], 0
    for _ in range(reps):
        ys = []
        for g in groups:
            draw = [lr_runs[i] for lr_runs in g for i in rng.integers(0, len(lr_runs), len(lr_runs))]
            y, c = point(draw, collapsed)
            ys.append(y)
            cens += bool(c)
        out.append(slope(x, ys))
    return out, cens


def verdict(lo, hi, censored, effect):
    """`h3.verdict`. Conventions: a censored depth makes it inconclusive before the interval is read; an interval that
    lies in (-effect, 0) meets both "supported" (upper end below 0) and "not supported" (lower end above -effect):
    the rule names "supported" first and so does this (the package's `h3_verdict` too)."""
    if censored:
        return "inconclusive", "a depth's lr50 is censored (no P = 0.5 LR on its LRs)"
    if hi < 0:
        return "supported", "the interval lies below 0: the cliff falls with depth"
    if lo > -effect:
        return "not supported", f"the interval's lower end is above -{effect}: any fall is smaller than the smallest effect"
    return "inconclusive", f"the interval includes both 0 and a fall of {effect} decades per doubling"


# ------------------------------------------------------------------------------------------------ the study
def derive(runs_dir, rules_dir):
    """Every number of H3, as one dict (the --json output)."""
    h3 = load_h3_rule(rules_dir)
    cr = h3["cliff"]
    folder, notes = Path(runs_dir) / h3["study"], []
    runs, pending, listed, failed = load_runs(folder, notes)
    h1, h2, source = entropies(folder, notes)
    arms, depths, out = cr["arms"], {}, {}
    for d in h3["depths"]:
        rs = [r for r in runs if r.n_layer == d]
        if not rs:
            notes.append(f"{d} layers: no ended run")
            continue
        lstar = R.best(rs)[0]
        bar = R.bars(lstar, h1, h2)[cr["criterion"]]
        # `collapse.criterion`: failed, or the capped final loss above the bar (strictly: "above")
        col = {r.name: bool(r.failed or r.capped > bar) for r in rs}
        depths[d] = (rs, col)
        out[str(d)] = dict(lstar=lstar, bar=bar, arms={a: cliff(R.select(rs, a), col, cr) for a in arms if R.select(rs, a)})
    other = sorted({r.n_layer for r in runs} - set(h3["depths"]))
    if other:
        notes.append(f"depths {other} are not the rule's {h3['depths']}: left out")
    res = dict(study=R.rel(folder), listed=listed, ended=len(runs), failed_cells=failed,
               pending=[dict(n_layer=d, arm=a, lr=lr, seed=s) for d, a, lr, s in pending],
               # complete: every listed cell ended with an outcome. Convention (the depth page's): a cell whose kernel
               # failed is no outcome and can be run again (--retry-failed), so it keeps the verdict interim too
               complete=not pending and not failed, h1=h1, h2=h2, entropies=source,
               rule=dict(arm=h3["arm"], depths=h3["depths"], replicates=h3["replicates"], level=h3["level"],
                         smallest_effect=h3["smallest_effect"], cliff_level=cr["level"],
                         search_step=cr["search_step"], criterion=cr["criterion"]),
               depths=out, notes=notes)
    return dict(res, **h3_answer(h3, depths))


def h3_answer(h3, depths):
    """The slope over the depths whose `h3.arm` arm has ended runs, its bootstrap interval and the verdict."""
    have = [d for d in depths if R.select(depths[d][0], h3["arm"])]
    if len(have) < 2:
        return dict(slope_depths=have, slope=None, lo=None, hi=None, verdict="inconclusive",
                    why=f"{len(have)} of the rule's depths {h3['depths']} have ended runs of the {h3['arm']} arm: no slope")
    col = {k: v for d in have for k, v in depths[d][1].items()}
    arm_runs = {d: R.select(depths[d][0], h3["arm"]) for d in have}
    pts = {d: point(arm_runs[d], col) for d in have}
    x = np.log2(have)
    groups = [[sorted(R.select(arm_runs[d], lr=lr), key=lambda r: (r.seed, r.name)) for lr in R.lrs_of(arm_runs[d])]
              for d in have]
    reps, cens = bootstrap(groups, col, x, h3["replicates"])
    a = (1 - h3["level"]) / 2
    # the percentile interval: numpy's default (linear between order statistics), a convention the rule leaves open
    lo, hi = (float(v) for v in np.quantile(reps, [a, 1 - a]))
    v, why = verdict(lo, hi, any(c for _, c in pts.values()), h3["smallest_effect"])
    return dict(slope_depths=have, lr50={str(d): C.exp10(pts[d][0]) for d in have}, censored={str(d): pts[d][1] for d in have},
                slope=slope(x, [pts[d][0] for d in have]), lo=lo, hi=hi, censored_replicates=cens, verdict=v, why=why)


# ------------------------------------------------------------------------------------------------ the lines
def lines(res):
    """The readable report of `derive`'s dict."""
    g, r = R.g, res["rule"]
    yield (f"H3 at 6,100 steps ({res['study']}; analysis.yaml `h3`: the {r['arm']} arm's lr50, {r['replicates']} "
           f"replicates, level {r['level']}, smallest effect {r['smallest_effect']}; `cliff` level {r['cliff_level']}, "
           f"search_step {r['search_step']}; collapse: {r['criterion']})")
    yield from (f"  {n}" for n in res["notes"])
    yield (f"  {res['ended']} of {res['listed']} cells ended" + ("" if res["complete"] else
           f" (interim: {len(res['pending'])} not ended, {len(res['failed_cells'])} failed)"))
    for d, dd in res["depths"].items():
        yield f"  {d} layers: l* = {dd['lstar']:.4f}, collapse bar {dd['bar']:.4f}"
        for arm, c in dd["arms"].items():
            yield f"    {arm}: " + ", ".join(f"{g(t['lr'])} {t['k']}/{t['n']} [{t['lo']:.3f}, {t['hi']:.3f}]" for t in c["table"])
            yield f"      {fit_words(c)}"
    if res["slope"] is None:
        yield f"  no slope: {res['why']}"
        return
    pts = ", ".join(f"{d} layers {g(v)}" + (f" (censored {res['censored'][d]})" if res["censored"][d] else "")
                    for d, v in res["lr50"].items())
    yield f"  {r['arm']} arm's lr50: {pts}"
    yield (f"  slope {res['slope']:+.4f} decades per doubling, {r['level']:.0%} interval [{res['lo']:+.4f}, {res['hi']:+.4f}] "
           f"({res['censored_replicates']} censored points in the replicates)")
    yield f"  {'verdict' if res['complete'] else 'interim verdict'}: {res['verdict']} ({res['why']})"


def fit_words(c):
    """One arm's cliff at one depth in words."""
    g = R.g
    head = f"fit over {c['n_runs']} runs ({c['n_collapsed']} collapsed) at {c['n_lrs']} LRs from its best LR {g(c['best_lr'])}: "
    if c["kind"] == "separated":
        return head + f"separated: P = 0.5 in the bracket [{g(c['lo'])}, {g(c['hi'])}] (point {g(c['point'])})"
    if c["kind"] != "logistic":
        return head + f"{c['kind']}: no P = 0.5 LR (censored {c['censored']})"
    ends = f"[{g(c['lo'])}{' (open)' if c['open_lo'] else ''}, {g(c['hi'])}{' (open)' if c['open_hi'] else ''}]"
    return head + f"logistic, slope {c['b']:.2f} per decade; lr50 {g(c['lr50'])} {ends}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="rederive_depth", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default=ROOT / "runs", help="the folder holding the run folders")
    ap.add_argument("--rules", default=ROOT / "studies" / "rules", help="the folder holding analysis.yaml")
    ap.add_argument("--json", action="store_true", help="print the numbers as one JSON object")
    a = ap.parse_args(argv)
    res = derive(a.runs, a.rules)
    print(json.dumps(res, indent=1) if a.json else "\n".join(lines(res)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except R.Refused as e:
        print(f"rederive_depth: error: {e}", file=sys.stderr)
        sys.exit(2)
