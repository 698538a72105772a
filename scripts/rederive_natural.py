"""Independent re-derivation of the TinyStories studies (the length ladder, its mechanism studies and core-shape check,
the cliff) and of what the README says about them.

What it is: a standalone check of the numbers the notebooks and README report for the length ladder
(4 layers, d=64, 300 / 800 / 2,000 / 6,100 steps), its mechanism studies and its core-shape check, written from the
rule files alone. It does NOT import the `qknorm_nb` package: only the Python standard library, numpy and its sibling
scripts. (The ladder's measures that score a rung's prediction, the "7 of 10", are not in the rule file; they are
implemented in scripts/rederive_ladder.py from their definitions on the methods and scale pages: the failure and
not-useful LRs as the transition region with a logistic fit of P(fail | log10 LR) inside it, the optimal LR, the
attention-logit LR, the necessity threshold and the gap at the optimum.)

Run it from anywhere:

    python scripts/rederive_natural.py                 # the repository's README, runs and rules
    python scripts/rederive_natural.py --readme X.md   # another README (a draft); --runs DIR, --rules DIR likewise
    python scripts/rederive_natural.py MECH_DIR        # another mechanism-study folder, to exercise that code
    python scripts/rederive_natural.py --self-test     # also: the cliff's statistics against known values, and a
                                                       # changed number in a copy of the README must fail the check

What it reads (nothing is written):
  - studies/rules/analysis.yaml and studies/rules/mechanism.yaml: the margins, the smallest edge move, the
    best-plus bar and the mechanism seeds (the rest of the rule is implemented below, each step citing the rule's words);
  - ../shared/data/tinystories_valid_sample.txt: H1 and H2 recomputed from the validation text;
  - runs/length-tinystories/steps-s*/study.json, entropies.json, and per listed cell summary.json
    (the loss, l0, status, max_logit, n_params) and metrics.jsonl (the probes, for the 6,100-step mechanism table);
  - runs/mechanism-tinystories and runs/mechanism-gains-tinystories (the same files), if they exist;
  - runs/length-tinystories/predictions/*.json (each rung's prediction, scored here) and
    prediction-core-ts-s6100.json with the core-shape check's folder beside it;
  - the cliff (analysis.yaml `collapse` and `cliff`, version 2; the study `cliff.study`, runs/cliff-tinystories): a run
    collapsed when it failed (diverged, or its final loss is non-finite or >= l0) or its capped final loss is above
    the `collapse.criterion` bar, (l* + H1)/2 with l* the best seed-mean capped loss of any arm at any LR of the study;
    per arm and LR k of n with the exact interval at `cliff.level`; per arm the logistic fit over its runs at LRs >= its
    own best LR (ties to the smaller LR), and from it the P = 0.5 LR, "safe below" and "needed from" on the
    `search_step` grid. The statistics are in the sibling module scripts/rederive_cliff.py (pure functions of numbers,
    checked against known values by --self-test; its docstring says why they are apart);
  - the README's scope: tokenizer, batch_size x block_size, max_iters of every study in SCOPE (the studies the README's
    statements rest on, each named with its statement) and n_params from their summaries;
  - runs/cpu-tinystories (the gap at each arm's own best LR, one depth, with its paired-or-Welch interval at the rule's
    `intervals.level`) and runs/depth-confirm with its own rule studies/rules/depth-confirm.yaml (its design, and its
    slope with the seed bootstrap, re-derived);
  - the shift studies (analysis.yaml `shift`; runs/width-s6100-tinystories against the cliff study, the base) through
    scripts/rederive_shift.py, and from it the off arm's lr50 (a bracket around the one LR that mixes outcomes), the
    move, its verdict and that verdict with the move's ends widened by the rule's reading grid, quoted once every
    listed cell has ended.

The tuned LR is the cliff's off arm's best LR; a grid LR is written as its multiple of the tuned LR to two significant
figures (0.0548 / 0.01 -> "5.5×", 0.173 / 0.01 -> "17×"), and a README multiple names the grid LR that writes so.
"about N×" (safe below, needed from) is checked as the multiple rounded to the nearest whole number (4.37 -> 4).

The readers (run folders, rule sections, the validation text's entropies, the bars) are shared with
scripts/rederive_depth.py and rederive_shift.py in scripts/rederive_runs.py; the ladder's measures (the necessity
threshold, the edges, the probes, one rung's report, the scoring of its prediction) are in scripts/rederive_ladder.py,
which this script calls with the rule's margins; H3 at 6,100 steps, which the README also quotes, is derived by
rederive_depth.py and read from it here.

Only cells listed in a study.json that have a summary.json count (a running study is read as far as it has ended);
a cell whose summary says `failed` (its kernel or process failed, not the model) is no outcome and is left out, and said.

The README check is table-driven (the engine is scripts/rederive_readme.py): `quotes()` lists, one entry per phrase,
what the README may quote (the phrase as a pattern, the value re-derived here, and how the README writes it). Only
what the README contains is checked: an entry whose phrase is not in it is listed as not quoted. Every sentence that
holds a quoted phrase, and every sentence of the paragraphs the script is about (BLOCKS), is a checked sentence: each
number and verdict word in it must be covered by an entry, re-derived here or stated as left out with the reason; any
other is NOT RE-DERIVED.
Exit status: 0 when every quote is reproduced, 1 when any DIFFERS or is NOT RE-DERIVED (the last line counts them),
2 when an input cannot be read (one line on stderr, naming the file, the field and the value).
"""
import argparse
import contextlib
import hashlib
import io
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, wherever this runs from
import rederive_cliff as C  # noqa: E402  the cliff's statistics (a sibling module: see its docstring)
import rederive_depth as D  # noqa: E402  H3 at 6,100 steps, which the README quotes
import rederive_shift as SH  # noqa: E402  the shift studies (width, tokens per step), which the README quotes
from rederive_ladder import (PRIMARY, arm_edges, describe_threshold, fmt_edge, mean_or_none,  # noqa: E402
                             mechanism_table, median_or_none, necessity, probe_measures, report_predictions, report_rung,
                             threshold)
from rederive_readme import (ASIS, B2, B3, D1, D2, D3, L, N, NUMBER_WORDS, PCT, PM, S2, SCI, W, Missing,  # noqa: E402
                             Quote, Stated, check_readme, mutation_test)
from rederive_runs import (CRITERIA, OFF, ON, ROOT, Refused, arm_best_lr, arm_of, bars, best, bracket, cliff_rule,  # noqa: E402
                           entropy, file_entropies, finite, g, lrs_of, load_study, need, read_json, read_text, rel,
                           rule_section, seed_mean, select, sf2, study_cfg, unigram_bigram, val_tokens, whole)

RUNGS = ["steps-s300", "steps-s800", "steps-s2000", "steps-s6100"]
VAL_TEXT = ROOT / ".." / "shared" / "data" / "tinystories_valid_sample.txt"


def configure(runs, rules, readme):
    """The folders and files every function reads (set once, from the command line)."""
    global RUNS, LADDER, MECH, GAINS, CHECK_PRED, RULES, README
    RUNS, RULES, README = Path(runs), Path(rules), Path(readme)
    LADDER = RUNS / "length-tinystories"
    MECH = RUNS / "mechanism-tinystories"
    GAINS = RUNS / "mechanism-gains-tinystories"  # the gains refinement, once it has started
    CHECK_PRED = LADDER / "prediction-core-ts-s6100.json"


# ----------------------------------------------------------------------------------------- rule constants
def rule_value(path, key):
    """A top-level key of a rule file, read without a yaml parser (not in the standard library): its value as
    JSON (a number, a flat list of numbers, a quoted string), else its raw text; a Refused when it is missing."""
    m = re.search(rf"^{re.escape(key)}:[ \t]*([^#\n]*?)[ \t]*(?:#.*)?$", read_text(path), re.M)
    if m is None:
        raise Refused(f"{rel(path)}: {key} is missing")
    try:
        return json.loads(m.group(1))
    except json.JSONDecodeError:
        return m.group(1)


def load_rules():
    """The rule's numbers this script computes with, each checked (a Refused names the file, key, value and what is allowed)."""
    global MARGINS, MARGIN, SMALLEST_MOVE, MECH_SEEDS, BEST_PLUS, INTERVAL_LEVEL
    a, m = RULES / "analysis.yaml", RULES / "mechanism.yaml"
    rule = {"margins": rule_value(a, "margins"), "margin": rule_value(a, "margin"),
            "smallest_edge_move": rule_value(a, "smallest_edge_move")}
    need(a, rule, "margins", lambda v: isinstance(v, list) and v and all(finite(x) and x >= 0 for x in v),
         "a non-empty list of numbers >= 0 (nats)")
    need(a, rule, "margin", lambda v: finite(v) and v in rule["margins"], f"a number among margins {rule['margins']} (nats)")
    need(a, rule, "smallest_edge_move", lambda v: finite(v) and v > 0, "a number > 0 (decades)")
    seeds = {"seeds": rule_value(m, "seeds")}
    need(m, seeds, "seeds", lambda v: isinstance(v, list) and v and all(whole(s) and s >= 0 for s in v),
         "a non-empty list of whole numbers (the seeds the rule reads)")
    MARGINS, MARGIN, SMALLEST_MOVE, MECH_SEEDS = rule["margins"], rule["margin"], rule["smallest_edge_move"], seeds["seeds"]
    # every interval the rule does not name otherwise (`intervals: level`): here, the gap at the optimum
    INTERVAL_LEVEL = need(a, rule_section(a, "intervals"), "level", lambda v: finite(v) and 0.5 < v < 1, "a number in (0.5, 1)")
    # the best-plus bar of the family (`criteria: best_plus_0.5: bar: best + 0.5`); None if the rule has no such bar
    bp = re.search(r"^\s+bar:\s*best \+ ([0-9.]+)", read_text(a), re.M)
    BEST_PLUS = float(bp.group(1)) if bp else None


# ---------------------------------------------------------------------------------- mechanism study
def edge_move(a, b):
    """analysis.yaml `edge_move`: interval in decades of B's edge against A's, and the verdict."""
    (lo_a, hi_a, _), (lo_b, hi_b, _) = a, b
    lower = math.log10(lo_b / hi_a) if lo_b is not None and hi_a is not None else -math.inf
    upper = math.log10(hi_b / lo_a) if hi_b is not None and lo_a is not None else math.inf
    if lower > 0 or upper < 0:
        verdict = f"supported (the edge moves {'up' if lower > 0 else 'down'})"
    elif -SMALLEST_MOVE < lower and upper < SMALLEST_MOVE:
        verdict = f"not supported (bounded inside +-{SMALLEST_MOVE:g} decades)"
    else:
        verdict = "inconclusive"
    return lower, upper, verdict


def report_mechanism(folder, h1, h2):
    """Print a mechanism study's edges and answers; return what the README table reads of it (None: no study yet)."""
    print(f"\n=== mechanism study ({rel(folder)})")
    if not (folder / "study.json").exists():
        print("  does not exist yet (no study.json): its questions (studies/rules/mechanism*.yaml) are not answered")
        return None
    runs, pending, listed, failed = load_study(folder)
    cells = read_json(folder / "study.json")["cells"].values()
    state = dict(folder=folder, complete=len(runs) == listed, listed_lrs=sorted({float(c["lr"]) for c in cells}),
                 cfg=study_cfg(folder), steps={int(c["max_iters"]) for c in cells if "max_iters" in c},
                 answers=None, runs=[], lrs=[], edges={})
    # the arms the study holds (mechanism-gains-tinystories, the refinement, holds only layernorm and layernorm_nogain)
    arms = [a for a in ("none", "layernorm", "layernorm_nogain", "layernorm_zloss") if select(runs, a) or
            any(p[0] == a for p in pending)]
    print(f"  {len(runs)}/{listed} cells ended; arms found: {sorted({r.arm for r in runs})}")
    # mechanism.yaml `group` (and mechanism-gains.yaml's): its seeds only, and the LRs at which every arm ended them all
    runs = [r for r in runs if r.seed in MECH_SEEDS and r.arm in arms]
    lrs = [lr for lr in lrs_of(runs) if all(select(runs, a, lr, s) for a in arms for s in MECH_SEEDS)]
    runs = [r for r in runs if r.lr in lrs]
    if not runs or ON not in arms:
        print(f"  no LR has seeds {MECH_SEEDS} of every arm ended yet (the reference arm {ON} among them)")
        return state
    print(f"  group: seeds {MECH_SEEDS}, LRs {[g(lr) for lr in lrs]}")
    answers = {}
    lstar, barm, blr = best(runs)
    bs = bars(lstar, h1, h2)
    print(f"  l* = {lstar:.4f} ({barm} at {g(blr)}); bars: " + ", ".join(f"{k} {v:.4f}" for k, v in bs.items()))
    for crit in CRITERIA:
        tag = " (the rule's criterion)" if crit == PRIMARY else " (shown beside)"
        print(f"  -- criterion {crit}{tag}")
        edges = {a: arm_edges(runs, a, bs[crit]) for a in arms}
        for a in arms:
            print(f"     {a:<17} failure {fmt_edge(edges[a][0])}; not-useful (>= {g(edges[a][2])}) {fmt_edge(edges[a][1])}")
        for arm, primary in [(a, e) for a, e in (("layernorm_nogain", "useful"), ("layernorm_zloss", "failure")) if a in arms]:
            for kind, idx in (("useful", 1), ("failure", 0)):
                lo, hi, verdict = edge_move(edges["layernorm"][idx], edges[arm][idx])
                role = "question" if kind == primary else "other edge, reported"
                print(f"     {arm} vs layernorm, {kind} edge ({role}): move [{g(lo)}, {g(hi)}] decades: {verdict}")
                if crit == PRIMARY and kind == primary:
                    answers[arm] = (edges["layernorm"][idx], edges[arm][idx], lo, hi, verdict)
        if crit == PRIMARY:
            state["edges"] = edges
    print("  measures (seed means):")
    mechanism_table(runs, arms)
    state.update(runs=runs, lrs=lrs, bars=bs, answers=answers if state["complete"] else None)
    return state


# ---------------------------------------------------------------------------------- core-shape check
def report_check(h1, h2, folder=None):
    """The core-shape check (6 layers, d=192, 6,100 steps): its necessity threshold under the rule, read on the
    check's own cells exactly as a rung's (l* the best of the check), against the committed prediction.

    Two scores: the methods page's (the observed threshold inside the predicted [lo, hi]) and bracket overlap
    (the observed interval meets the predicted one). Returns a dict once every listed cell has ended, else None.
    """
    pred_path = CHECK_PRED
    print("\n=== core-shape check")
    if not pred_path.exists():
        print(f"  no prediction ({pred_path.name}): nothing to check")
        return None
    pred = read_json(pred_path)
    try:
        p = pred["quantities"]["necessity"][ON]
        lrs_pred, seeds_pred, target = pred["check"]["lrs"], pred["check"]["seeds"], pred["target"]["name"]
        float(p["value"]), float(p["lo"]), float(p["hi"])
    except (KeyError, TypeError, ValueError) as e:
        raise Refused(f"{rel(pred_path)}: quantities.necessity.{ON} or check.lrs/seeds or target.name is missing or "
                      f"not a number ({e!r}); it must be a prediction file with a necessity value, lo and hi") from None
    print(f"  predicted necessity threshold {g(p['value'])} [{g(p['lo'])}, {g(p['hi'])}] (made {pred.get('made_at')}); "
          f"check LRs {lrs_pred}, seeds {seeds_pred}")
    if folder is None:  # the check's folder is named from the prediction file's bytes: <target>-check-<sha256[:8]>
        folder = LADDER / f"{target}-check-{hashlib.sha256(pred_path.read_bytes()).hexdigest()[:8]}"
    if not (folder / "study.json").exists():
        print("  the check has not started (no folder with a study.json)")
        return None
    runs, pending, listed, failed = load_study(folder)
    print(f"  {folder.name}: {len(runs)}/{listed} cells ended, {sum(r.failed for r in runs)} failed")
    if pending:
        print("  not ended yet: " + "; ".join(f"{a} LR {g(lr)} s{s}" for a, lr, s in pending))
    if not runs or not select(runs, ON) or not select(runs, OFF):
        print("  both arms need an ended cell before a threshold can be read")
        return None
    lstar, barm, blr = best(runs)
    bar = bars(lstar, h1, h2)[PRIMARY]
    print(f"  l* = {lstar:.4f} ({barm} at LR {g(blr)}); half-gap bar {bar:.4f}")
    for lr in lrs_of(runs):
        ms = [seed_mean(runs, a, lr) for a in (OFF, ON)]
        ns = [len(select(runs, a, lr)) for a in (OFF, ON)]
        print(f"    LR {g(lr):<8} off {'-' if ms[0] is None else f'{ms[0]:.4f}'} (n{ns[0]})  "
              f"LayerNorm {'-' if ms[1] is None else f'{ms[1]:.4f}'} (n{ns[1]})"
              + (f"  gap {ms[0] - ms[1]:+.4f}" if None not in ms else ""))
    grp, per_seed, (ilo, ihi), points, skipped, common = necessity(runs, bar, MARGIN)
    print(f"  threshold (margin {MARGIN}): {describe_threshold(grp)}; interval {bracket(ilo, ihi)}; per seed: "
          + ", ".join(f"s{s} {g(t['value']) if t['kind'] == 'value' else 'censored ' + t['kind']}" for s, t in per_seed.items()))
    # bracket overlap: an open end of the observed interval reaches 0 (below) or infinity (above)
    olo, ohi = (ilo if ilo is not None else 0.0), (ihi if ihi is not None else math.inf)
    overlap = olo <= p["hi"] and ohi >= p["lo"]
    # the methods page's rule: "inside" when the observed point lies in the predicted interval, "outside" when it
    # lies beyond it or the observation is censored wholly beyond it, "not scored" when a censored one overlaps it
    if grp["value"] is not None:
        words = "inside" if p["lo"] <= grp["value"] <= p["hi"] else "outside"
    else:
        words = "not scored (censored, overlapping the prediction)" if overlap else "outside (censored, wholly beyond)"
    print(f"  methods rule: {words}; bracket overlap: {'yes' if overlap else 'no'}")
    if len(runs) < listed:
        print("  provisional: not every cell has ended")
        return None
    means = {lr: tuple(seed_mean(runs, a, lr) for a in (OFF, ON)) for lr in lrs_of(runs)}
    cpu_h = sum(r.wall_time for r in runs) / 3600
    print(f"  CPU-hours (sum of wall_time over the {listed} cells): {cpu_h:.1f}")
    cells = read_json(folder / "study.json")["cells"].values()
    return dict(group=grp, lo=ilo, hi=ihi, point=words.split(" (")[0], overlap=overlap, pred=p, means=means,
                cpu_h=cpu_h, n=listed, runs=runs, cfg=study_cfg(folder), basis=pred.get("basis", {}).get("rungs", []),
                lrs={a: sorted({float(c["lr"]) for c in cells if arm_of(c) == a}) for a in (OFF, ON)},
                seeds=sorted({int(c["seed"]) for c in cells}))


# ------------------------------------------------------------------------ the cliff (rule version 2, issue 43)
def load_cliff_rule():
    """analysis.yaml `collapse` and `cliff` (rederive_runs.cliff_rule), held as CLIFF for the report and the quotes."""
    global CLIFF
    CLIFF = cliff_rule(RULES)


def multiple(m):
    """A multiple of the tuned LR as the README writes a grid LR's: two significant figures, plainly (3, 5.5, 17, 30)."""
    if m < 10:
        return f"{m:.2g}"
    return str(int(round(m, 1 - int(math.floor(math.log10(m))))))


def about(m):
    """'about N×': the multiple rounded to the nearest whole number (a half rounds up)."""
    return str(int(math.floor(m + 0.5)))


def report_cliff(h1, h2):
    """The cliff study (analysis.yaml `cliff.study`): per run collapsed or not, per arm and LR k of n with the exact
    interval, per arm the logistic fit over its runs at and above its own best LR and the three LRs it gives.
    Returns what the README reads of it, or None when the study has no folder."""
    folder = RUNS / CLIFF["study"]
    print(f"\n=== the cliff ({rel(folder)}; analysis.yaml `collapse`, criterion {CLIFF['criterion']}, and `cliff`: level "
          f"{CLIFF['level']}, safe_level {CLIFF['safe_level']}, safe_p {CLIFF['safe_p']}, needed_p {CLIFF['needed_p']}, "
          f"search_step {CLIFF['search_step']})")
    if not (folder / "study.json").exists():
        print("  no study.json: the cliff has not started")
        return None
    fe = file_entropies(folder)
    if fe is not None:
        print(f"  the study's entropies.json: H1 {fe[0]:.6f}, H2 {fe[1]:.6f}; recomputed here {h1:.6f}, {h2:.6f}: "
              + ("agree" if abs(fe[0] - h1) < 1e-6 and abs(fe[1] - h2) < 1e-6 else "DIFFER (the recomputed ones are used)"))
    runs, pending, listed, failed = load_study(folder)
    off, on = CLIFF["arms"]
    print(f"  {len(runs)}/{listed} cells ended" + ("" if not pending else
          f" (interim: {len(pending)} not ended: " + "; ".join(
              f"{a} LR {g(lr)} seeds {[s for b, l, s in pending if (b, l) == (a, lr)]}"
              for a, lr in sorted({(a, lr) for a, lr, _ in pending})) + ")"))
    if not select(runs, off) or not select(runs, on):
        raise Refused(f"{rel(folder)}: no ended cell of the arm {off if not select(runs, off) else on}: the cliff needs both arms")
    lstar, barm, blr = best(runs)
    bar = bars(lstar, h1, h2)[CLIFF["criterion"]]
    # collapse: failed (diverged, non-finite, >= l0) or the capped final loss above the bar
    collapsed = {r.name: r.failed or r.capped > bar for r in runs}
    print(f"  l* = {lstar:.4f} ({barm} at LR {g(blr)}); collapse bar ({CLIFF['criterion']}) {bar:.4f}")
    table, fits = {}, {}
    for arm in (off, on):
        print(f"  {arm}: LR, k of n collapsed, exact {CLIFF['level']:.0%} interval")
        for lr in lrs_of(runs, arm):
            rs = select(runs, arm, lr)
            k, n = sum(collapsed[r.name] for r in rs), len(rs)
            table[(arm, lr)] = (k, n, *C.clopper_pearson(k, n, CLIFF["level"]))
            print(f"    {g(lr):<8} {k:>2} of {n:<2} [{table[(arm, lr)][2]:.3f}, {table[(arm, lr)][3]:.3f}]"
                  f"   losses {' '.join(f'{r.capped:.3f}' for r in sorted(rs, key=lambda r: r.seed))}")
        b = arm_best_lr(runs, arm)  # ties to the smaller LR (the tuple's second element)
        rs = [r for r in runs if r.arm == arm and r.lr >= b]
        fit = C.logistic_fit([math.log10(r.lr) for r in rs], [collapsed[r.name] for r in rs])
        out = dict(best_lr=b, kind=fit["kind"], n=fit["n"], k=fit["k"], n_lrs=len(fit["xs"]), lr50=None, lo=None, hi=None,
                   safe=None, needed=None)
        if fit["kind"] in ("logistic", "separated"):
            r50 = C.lr50(fit, CLIFF["level"], CLIFF["search_step"])
            out.update(lr50=r50["lr50"], lo=r50["lo"], hi=r50["hi"], open_lo=r50["open_lo"], open_hi=r50["open_hi"])
        if fit["kind"] == "logistic":
            out["safe"], out["needed"] = C.safe_needed(fit, CLIFF["safe_level"], CLIFF["safe_p"], CLIFF["needed_p"],
                                                       CLIFF["search_step"])
            out.update(a=fit["a"], b=fit["b"])
        fits[arm] = out
        what = (f"logistic, slope {out['b']:.2f} per decade; P = 0.5 at {g(out['lr50'])} "
                f"[{g(out['lo'])}{' (open)' if out.get('open_lo') else ''}, {g(out['hi'])}{' (open)' if out.get('open_hi') else ''}]; "
                f"safe below {g(out['safe'])}, needed from {g(out['needed'])}" if fit["kind"] == "logistic" else
                f"separated: P = 0.5 in [{g(out['lo'])}, {g(out['hi'])}]" if fit["kind"] == "separated" else fit["kind"])
        print(f"    fit over {out['n']} runs ({out['k']} collapsed) at {out['n_lrs']} LRs from its best LR {g(b)}: {what}")
    tuned = fits[off]["best_lr"]
    print(f"  tuned LR (the off arm's best) {g(tuned)}; as multiples of it: "
          + (f"safe below {fits[off]['safe'] / tuned:.2f}x, " if fits[off]["safe"] else "no safe below, ")
          + (f"needed from {fits[off]['needed'] / tuned:.2f}x" if fits[off]["needed"] else "no needed from")
          + (f"; P = 0.5 at {fits[off]['lr50'] / tuned:.2f}x" if fits[off]["lr50"] else ""))
    return dict(folder=folder, runs=runs, table=table, fits=fits, tuned=tuned, off=off, on=on, bar=bar, lstar=lstar,
                cfg=study_cfg(folder), complete=not pending, collapsed=collapsed)


# ------------------------------------------------------------------- the other studies the README names
# The README's scope line ("byte tokens, 2,048 tokens a step, 0.2–3.2M parameters, 300 to 6,100 steps") describes
# what its numbers were measured on: the studies its statements rest on, each named here with the statement.
SCOPE = {
    "cliff-tinystories": "the answer: the cliff",
    "length-tinystories/steps-s300": "the length bullet's 300-step threshold",
    "length-tinystories/steps-s800": "the length ladder",
    "length-tinystories/steps-s2000": "the length ladder",
    "length-tinystories/steps-s6100": "the length bullet's 6,100-step threshold and the logits of 'Why'",
    "length-tinystories/core-ts-s6100-check-*": "the answer's deeper, wider shape",
    "mechanism-tinystories": "'Why': the fixed-gain and z-loss arms",
    "mechanism-gains-tinystories": "'Why': the fixed-gain arm's useful edge on the finer grid",
    "cpu-tinystories": "the 'Tuned' bullet (300 steps, 4 layers)",
    "depth-confirm": "the depth bullet (280 runs, 2-16 layers)",
    "depth-s6100-tinystories": "the depth bullet at 6,100 steps (H3)",
    "width-s6100-tinystories": "the answer's width sentence (the shift rule)",
}


def study_scope(folder):
    """(tokenizers, tokens a step, steps, parameter counts) of a study's listed cells (the parameter counts from
    the summaries of those that ended: the summary records n_params)."""
    path = folder / "study.json"
    cells = need(path, read_json(path), "cells", lambda v: isinstance(v, dict) and v, "a non-empty mapping of cells")
    toks, tps, steps, params = set(), set(), set(), set()
    for name, c in cells.items():
        for k in ("batch_size", "block_size", "max_iters"):
            need(f"{rel(path)}: cells.{name}", c, k, lambda v: whole(v) and v > 0, "a whole number > 0")
        toks.add(c.get("tokenizer", "bytes"))
        tps.add(c["batch_size"] * c["block_size"])
        steps.add(c["max_iters"])
        s = folder / name / "summary.json"
        if s.exists():
            n = read_json(s).get("n_params")
            if whole(n):
                params.add(n)
    return toks, tps, steps, params


def scope():
    """The README's scope over SCOPE (the studies that exist): tokenizers, tokens a step, parameters and steps, each
    with the studies that give its ends."""
    per = {str(f.relative_to(RUNS)): (study_scope(f), why) for pat, why in SCOPE.items() for f in sorted(RUNS.glob(pat))
           if (f / "study.json").exists()}
    why = {name: w for name, (_, w) in per.items()}
    per = {name: sc for name, (sc, _) in per.items()}
    if not per:
        raise Missing("none of the studies the README's statements rest on exists")
    params = {name: p for name, (_, _, _, p) in per.items() if p}
    out = dict(studies=sorted(per), tokenizers=set().union(*(t for t, _, _, _ in per.values())),
               tokens_per_step=set().union(*(x for _, x, _, _ in per.values())),
               steps=set().union(*(s for _, _, s, _ in per.values())),
               params=(min(min(p) for p in params.values()), max(max(p) for p in params.values())) if params else None)
    print("\n=== the README's scope (the studies its statements rest on)")
    for name, (t, x, s, p) in per.items():
        print(f"  {name:<52} {'/'.join(sorted(t))}, {sorted(x)} tokens a step, {sorted(s)} steps, "
              f"{'-' if not p else f'{min(p) / 1e6:.2f}-{max(p) / 1e6:.2f}M'} parameters  ({why[name]})")
    print(f"  overall: {sorted(out['tokenizers'])}, {sorted(out['tokens_per_step'])} tokens a step, steps "
          f"{min(out['steps'])}-{max(out['steps'])}, parameters "
          + ("-" if not out["params"] else f"{out['params'][0] / 1e6:.3f}-{out['params'][1] / 1e6:.3f}M"))
    return out


def optimum_gap(folder, n_layer, level):
    """At each arm's own best LR in one depth of a study (the rule's gap at the optimum): LayerNorm's seed-mean capped
    loss minus the off arm's (> 0: QK-norm costs) with its interval at `level` (rederive_cliff.mean_diff: paired t or
    Welch, as the rule's `intervals` says), the depth's steps and each arm's seeds there; Missing where the study or
    the depth has not run."""
    if not (folder / "study.json").exists():
        raise Missing(f"{rel(folder)} does not exist")
    cells = read_json(folder / "study.json")["cells"]
    runs, _, _, _ = load_study(folder)
    runs = [r for r in runs if cells[r.name].get("n_layer") == n_layer]
    if not select(runs, OFF) or not select(runs, ON):
        raise Missing(f"{rel(folder)} has no ended {n_layer}-layer runs of both arms")
    off, on = ({r.seed: r.capped for r in select(runs, a, arm_best_lr(runs, a))} for a in (OFF, ON))
    d, lo, hi, _ = C.mean_diff(on, off, level)
    steps = {int(cells[r.name]["max_iters"]) for r in runs}
    return d, (lo, hi), steps, len(off), len(on)


def depth_design(folder):
    """(runs listed, depths, steps) of the confirmatory depth study, from its study.json."""
    if not (folder / "study.json").exists():
        raise Missing(f"{rel(folder)} does not exist")
    cells = read_json(folder / "study.json")["cells"].values()
    return len(cells), sorted({int(c["n_layer"]) for c in cells}), {int(c["max_iters"]) for c in cells}


def depth_confirm(folder):
    """The confirmatory depth study's answer under its own rule (studies/rules/depth-confirm.yaml): per depth the
    seed-mean necessity threshold (bar: the byte unigram entropy of the whole validation file; an LR where both arms'
    seed means are at or above it is left out; margin `margin`), the least-squares slope of log10 threshold on log2
    depth, its seed-bootstrap interval (numpy default_rng(0), `replicates` draws; per replicate each depth's seeds in
    turn, rng.integers(0, n, n), the same draw for both arms and every LR; a censored threshold takes the grid end it
    is censored at) and the verdict. Missing where the study or its rule is absent, or its design is not balanced."""
    rule = RULES / "depth-confirm.yaml"
    if not (folder / "study.json").exists() or not rule.exists():
        raise Missing(f"{rel(folder)} or {rel(rule)} does not exist")
    r = {k: rule_value(rule, k) for k in ("margin", "level", "smallest_effect", "loss")}
    need(rule, r, "margin", lambda v: finite(v) and v >= 0, "a number >= 0 (nats)")
    need(rule, r, "level", lambda v: finite(v) and 0.5 < v < 1, "a number in (0.5, 1)")
    need(rule, r, "smallest_effect", lambda v: finite(v) and v > 0, "a number > 0 (decades per doubling)")
    need(rule, r, "loss", lambda v: v == "final_val_loss", "final_val_loss (the only loss implemented here)")
    arms = re.search(r"^arms:\s*\{off:\s*(\w+),\s*on:\s*(\w+)\}", read_text(rule), re.M)
    if not arms or arms.group(1) != OFF:
        raise Refused(f"{rel(rule)}: arms must read {{off: {OFF}, on: <arm>}}")
    on = arms.group(2)
    spec = read_json(folder / "study.json")["cells"]
    runs, pending, listed, failed = load_study(folder)
    val = ROOT / ".." / "shared" / "data" / Path(next(iter(spec.values()))["val_dataset"]).name
    if val.exists():  # the rule's bar: the whole file's bytes (not the model's tokens), else the study's own record
        bar = entropy(np.bincount(np.frombuffer(val.read_bytes(), dtype=np.uint8), minlength=256))
    else:
        bar = need(folder / "unigram.json", read_json(folder / "unigram.json"), "unigram_entropy", finite, "a number (nats)")
    depths = sorted({int(spec[x.name]["n_layer"]) for x in runs})
    lrs, seeds = lrs_of(runs), sorted({x.seed for x in runs})
    cube = np.full((len(depths), len(lrs), 2, len(seeds)), np.nan)  # (depth, LR, arm, seed): the capped final loss
    for x in runs:
        if x.arm in (OFF, on):
            x_loss = read_json(x.folder / "summary.json").get("final_val_loss")  # the rule's loss, never the full one
            fail = x.status == "diverged" or x_loss is None or not math.isfinite(x_loss) or x_loss >= x.l0
            cube[depths.index(int(spec[x.name]["n_layer"])), lrs.index(x.lr), (OFF, on).index(x.arm), seeds.index(x.seed)] = \
                x.l0 if fail else x_loss
    if np.isnan(cube).any():
        raise Missing(f"{rel(folder)}: the design is not balanced ({int(np.isnan(cube).sum())} of {cube.size} cells missing)")

    def thresholds(draw=None):
        out = []
        for d in range(len(depths)):
            c = cube[d] if draw is None else cube[d][..., draw[d]]
            off_m, on_m = c[:, 0].mean(-1), c[:, 1].mean(-1)
            pts = [(lr, a - b) for lr, a, b in zip(lrs, off_m, on_m) if not (a >= bar and b >= bar)]
            t = threshold(pts, r["margin"])
            out.append((t["value"], "") if t["kind"] == "value" else
                       (pts[0][0], "below") if t["kind"] == "below" else (pts[-1][0], "above"))
        return out

    x = np.log2(depths)
    slope = lambda ts: float(np.polyfit(x, np.log10([t for t, _ in ts]), 1)[0])
    point = thresholds()
    rng, reps = np.random.default_rng(0), []
    for _ in range(2000):  # the rule's 2000 replicates
        reps.append(slope(thresholds([rng.integers(0, len(seeds), len(seeds)) for _ in depths])))
    a = (1 - r["level"]) / 2
    lo, hi = (float(v) for v in np.quantile(reps, [a, 1 - a]))
    complete = not pending and len(seeds) >= 5
    verdict = ("inconclusive" if not complete or any(c for _, c in point) else
               "not supported" if lo > -r["smallest_effect"] else "supported" if hi < 0 else "inconclusive")
    print(f"\n=== the confirmatory depth study ({rel(folder)}; its rule: margin {r['margin']}, level {r['level']}, smallest "
          f"effect {r['smallest_effect']}; bar {bar:.4f} nats)")
    print("  thresholds: " + ", ".join(f"{d} layers {g(t)}{' (censored ' + c + ')' if c else ''}" for d, (t, c) in zip(depths, point)))
    print(f"  slope {slope(point):+.4f} [{lo:+.4f}, {hi:+.4f}] decades per doubling: {verdict}")
    return dict(slope=slope(point), lo=lo, hi=hi, level=r["level"], verdict=verdict)


# ------------------------------------------------------------------------------------ the README, table-driven
# The README paragraphs about these studies, by how they begin (a regex each; a bullet's "- " is not part of it):
# every sentence of one is checked. Every item of a numbered list (the answer's lines) is checked too.
BLOCKS = [re.escape(b) for b in ("**The answer at the seed's length.**", "**Trained longer on TinyStories",
                                 "**The mechanism, tested by arms", "**The core shape at 6,100 steps",  # the README before issue 43
                                 "**The answer.**", "*Scope*:", "**At its tuned LR", "**Trained longer, QK-norm", "**Why**")]
BLOCKS += [r"\*\*At [\d,]+ steps depth"]


class Facts:
    """What the README table reads: the rungs, the mechanism studies, the check and the predictions' scores, with
    accessors that raise Missing (said why) where a study has not run or ended."""

    def __init__(self, rungs, mech, gains, check, scores, h1, h2, cliff=None):
        self.rungs, self.mech_, self.gains_, self.check_, self.scores, self.h1, self.h2 = rungs, mech, gains, check, scores, h1, h2
        self.cliff_, self.scope_, self.depth_, self.h3_, self.shift_ = cliff, None, None, None, None

    def rung(self, name="steps-s6100"):
        if name not in self.rungs:
            raise Missing(f"no rung {name} in {rel(LADDER)} (its rungs: {', '.join(self.rungs)})")
        return self.rungs[name]

    def rung_at(self, said):
        return self.rung(f"steps-s{int(said.replace(',', ''))}")

    def threshold(self, name="steps-s6100", crit=PRIMARY):
        grp, lo, hi = self.rung(name)["results"][(crit, MARGIN)]
        return grp["value"], (lo, hi)

    def mech(self):
        m = self.mech_
        if m is None:
            raise Missing(f"{rel(MECH)} does not exist")
        if m["answers"] is None:
            raise Missing(f"not every cell of {rel(MECH)} has ended")
        return m

    def gains(self):
        """The gains question's study: the refinement once it exists (its answer replaces the mechanism study's)."""
        if self.gains_ is None:
            return self.mech()
        if self.gains_["answers"] is None:
            raise Missing(f"not every cell of {rel(GAINS)} has ended")
        return self.gains_

    def check(self):
        if self.check_ is None:
            raise Missing("the core-shape check has not ended every cell (or has no prediction)")
        return self.check_

    def cliff(self):
        if self.cliff_ is None:
            raise Missing(f"{rel(RUNS / CLIFF['study'])} does not exist")
        return self.cliff_

    def depth(self):
        if self.depth_ is None:
            self.depth_ = depth_confirm(RUNS / "depth-confirm")
        return self.depth_

    def h3(self):
        """H3 at 6,100 steps (runs/depth-s6100-tinystories under analysis.yaml `h3`), from scripts/rederive_depth.py;
        Missing until every listed cell has ended (before that its verdict is not the rule's)."""
        if self.h3_ is None:
            with contextlib.redirect_stdout(io.StringIO()):
                r = D.derive(RUNS, RULES)
            if not r["complete"]:
                raise Missing(f"{r['study']}: {r['ended']} of {r['listed']} cells ended, {len(r['failed_cells'])} failed: "
                              "the verdict is interim")
            self.h3_ = r
        return self.h3_

    def shifts(self):
        """scripts/rederive_shift.py's every number (its `derive`), derived once."""
        if self.shift_ is None:
            self.shift_ = SH.derive(RUNS, RULES, RULES.parent / "predictions")
        return self.shift_

    def shift(self, study):
        """A shift study (analysis.yaml `shift`, its committed prediction in studies/predictions) from
        scripts/rederive_shift.py, with the base; Missing until every listed cell has ended (before that its verdict is
        not the rule's)."""
        s = next((x for x in self.shifts()["studies"] if x["study"] == study), None)
        if s is None or not s["started"]:
            raise Missing(f"{study}: " + ("no committed prediction" if s is None else "not started"))
        if not s["complete"] or "verdict" not in s:
            raise Missing(f"{study}: {s['ended']} of {s['listed']} cells ended"
                          + ("" if s["complete"] else ": the verdict is interim") + ("" if "verdict" in s else "; no lr50"))
        return dict(s, base=self.shifts()["base"])

    def scope(self):
        if self.scope_ is None:
            self.scope_ = scope()
        return self.scope_

    def one(self, xs, what):
        xs = set(xs)
        if len(xs) != 1:
            raise Missing(f"{what} is not one value: {sorted(xs)}")
        return xs.pop()


def decades(x):
    """A move in decades, signed, to 2 decimals; one that would round to 0.00 keeps one significant digit (so an end
    that excludes 0 never reads as 0), as the shift page writes it."""
    if x == 0 or abs(x) >= 0.005:
        return f"{x:+.2f}"
    return f"{x:+.{min(-math.floor(math.log10(abs(x))), 9)}f}"


def lr_key(said, lrs):
    """The grid LR the README names in `said` (a slot it fills); Missing when no LR of the grid reads so."""
    x = float(said.replace("−", "-"))
    hit = [lr for lr in lrs if abs(lr - x) <= 1e-9 * max(1.0, abs(x))]
    if not hit:
        raise Missing(f"LR {said} is not on the grid ({', '.join(g(lr) for lr in lrs)})")
    return hit[0]


def med(runs, arm, lr, key):
    if lr is None:
        raise Missing(f"no such LR for {arm} (an edge censored above)")
    x = median_or_none([probe_measures(r)[key] for r in select(runs, arm, lr)])
    if x is None:
        raise Missing(f"no {key} recorded for {arm} at LR {g(lr)}")
    return x


def overlap(a, b):
    """Whether two intervals (lo, hi) meet; an open end (None) reaches 0 or infinity."""
    (alo, ahi), (blo, bhi) = a, b
    return (alo or 0.0) <= (math.inf if bhi is None else bhi) and (blo or 0.0) <= (math.inf if ahi is None else ahi)


def size_m(runs, what):
    """The parameter counts of a study's cells, in millions, as (smallest, largest): the arms differ by their
    norms' few parameters (from the summaries)."""
    n = {r.n_params for r in runs}
    if None in n or not n:
        raise Missing(f"{what}: not every summary records n_params")
    return min(n) / 1e6, max(n) / 1e6


def quotes(F):
    """[Quote | Stated]: every phrase of the README this script checks, one entry each (adding a number to the README
    is one entry here). Read top to bottom as the README is: the headline paragraph, the length bullet, the mechanism
    bullet, the core-shape bullet."""
    r61 = lambda: F.rung("steps-s6100")

    def gaps():  # the 6,100-step rung's gap (off - LayerNorm seed means) at every LR both arms ran
        runs = r61()["runs"]
        return {lr: seed_mean(runs, OFF, lr) - seed_mean(runs, ON, lr) for lr in lrs_of(runs)
                if select(runs, OFF, lr) and select(runs, ON, lr)}

    def below():
        return {lr: x for lr, x in gaps().items() if lr < F.threshold()[0]}

    def gap_above(a, b):  # the gap just above the threshold: from the first LR above it to the LR the README names
        gs = gaps()
        first = min(lr for lr in gs if lr > F.threshold()[0])
        top = lr_key(b, list(gs))
        xs = [x for lr, x in gs.items() if first <= lr <= top]
        return min(xs), max(xs), first, top

    def useless_hi(arm, rung=None):  # the first LR of the arm's not-useful edge (where it stops being useful)
        return (rung or r61())["edges"][PRIMARY][arm][1][1]

    def holds(name):  # the threshold has a point under every bar of the family
        return all(F.rung(name)["results"][(c, MARGIN)][0]["kind"] == "value" for c in CRITERIA)

    def rises_after():
        ts = [(F.rung(n)["steps"], F.threshold(n)[0]) for n in F.rungs]
        if any(t is None for _, t in ts):
            raise Missing("a rung's threshold is censored")
        i = len(ts) - 1
        while i > 0 and ts[i - 1][1] < ts[i][1]:
            i -= 1
        return ts[i][0]

    def still_useful(s_lr, *_):
        m = F.mech()
        lr = lr_key(s_lr, m["lrs"])
        mean = seed_mean(m["runs"], "layernorm_nogain", lr)
        return (s_lr if mean <= m["bars"][PRIMARY] else f"{s_lr} (not useful there)", mean, seed_mean(m["runs"], ON, lr))

    def gains_move():
        ref, mine, lo, hi, verdict = F.gains()["answers"]["layernorm_nogain"]
        return ref, mine, (lo, hi), verdict.split(" (")[0], "up" if lo > 0 else "down" if hi < 0 else "neither way"

    def by_than(lo, hi):
        s = SMALLEST_MOVE
        return "less" if max(abs(lo), abs(hi)) < s else "more" if min(abs(lo), abs(hi)) > s else "neither less nor more"

    def zmax(runs, arm, lr, failed):  # the largest log Z of a seed that failed (or did not) at lr
        if lr is None:
            raise Missing(f"no such LR for {arm} (an edge censored above)")
        xs = [probe_measures(r)["max_log_z"] for r in select(runs, arm, lr) if r.failed == failed]
        if not xs or None in xs:
            raise Missing(f"no {'failed' if failed else 'trained'} {arm} seed with a log Z at LR {g(lr)}")
        return max(xs)

    def zloss():
        m = F.mech()
        ref, mine, lo, hi, verdict = m["answers"]["layernorm_zloss"]
        return None, mine, (lo, hi), verdict.split(" (")[0]

    def score_of(steps):  # (inside, scored) of the rung's prediction
        name = F.rung_at(steps)["name"]
        if name not in F.scores:
            raise Missing(f"{rel(LADDER / 'predictions' / name)}.json is absent, or its rung has not ended every cell")
        return F.scores[name]

    def check_design():
        c = F.check()
        lrs = F.one([tuple(v) for v in c["lrs"].values()], "the check's LRs per arm")
        return c, list(lrs)

    def basis():  # what the check's prediction moved: the length axis's depth and the width rung's d
        roles = {b.get("role"): b.get("name") for b in F.check()["basis"]}
        if "base" not in roles or not re.search(r"d(\d+)$", roles["base"] or ""):
            raise Missing(f"the prediction's basis names no width rung d<N> ({roles})")
        depth = F.one([F.rung(roles[k])["cfg"]["n_layer"] for k in ("start", "end") if k in roles], "the length axis's n_layer")
        return depth, int(re.search(r"d(\d+)$", roles["base"]).group(1))

    # --- the cliff (the draft of issue 43): helpers
    def cliff_cfg():
        return F.cliff()["cfg"]

    def tuned():  # the cliff's off arm's best LR; where that is the lowest LR the cliff study ran, the 6,100-step rung
        # (the same configuration, run from lower LRs) must end best there too, else the tuned LR is censored below
        t, lrs = F.cliff()["tuned"], lrs_of(F.cliff()["runs"], OFF)
        if t > lrs[0]:
            return t
        r, keys = F.rung("steps-s6100"), ("n_layer", "n_head", "n_embd", "max_iters", "batch_size", "block_size", "dataset")
        same = all(r["cfg"].get(k) == cliff_cfg().get(k) for k in keys)
        if not (same and lrs_of(r["runs"], OFF)[0] < t and arm_best_lr(r["runs"], OFF) == t):
            raise Missing(f"the cliff's best LR {g(t)} is the lowest it ran, and the 6,100-step rung does not end best there "
                          "among lower LRs: the tuned LR is censored below")
        return t

    def fit_lr(arm, key):  # an LR the arm's fit gives ('safe', 'needed', 'lr50'); Missing where it gives none
        f = F.cliff()["fits"][arm]
        if f.get(key) is None:
            raise Missing(f"the {arm} arm's fit ({f['kind']}) gives no '{key}' LR")
        return f[key]

    def at_multiple(said, arm):  # the arm's grid LR the README names as a multiple of the tuned LR
        lrs = lrs_of(F.cliff()["runs"], arm)
        hit = [lr for lr in lrs if multiple(lr / tuned()) == said]
        if len(hit) != 1:
            raise Missing(f"{said}× names no LR of {arm} (its LRs as multiples: {', '.join(multiple(lr / tuned()) for lr in lrs)})")
        return hit[0]

    def kn(arm, *said):  # k collapsed of n ended runs, pooled over the LRs the README names
        t = F.cliff()["table"]
        lrs = [at_multiple(s, arm) for s in said]
        return sum(t[(arm, lr)][0] for lr in lrs), sum(t[(arm, lr)][1] for lr in lrs)

    def none_at(arm, *said):  # 'none' when no run collapsed at the LRs the README names, and the seeds at each (one count)
        ks = [kn(arm, s) for s in said]
        if len({n for _, n in ks}) != 1:
            raise Missing(f"the {arm} arm ran {sorted({n for _, n in ks})} seeds at the LRs {said}: not one count")
        return ("none" if all(k == 0 for k, _ in ks) else "some"), ks[0][1]

    def seeds_up_to(arm, lr):  # the fewest and most seeds the arm ran at an LR, over its LRs up to lr
        ns = [F.cliff()["table"][(arm, x)][1] for x in lrs_of(F.cliff()["runs"], arm) if x <= lr]
        return min(ns), max(ns)

    def every_from(arm):  # the smallest LR (at or above the arm's best) from which every run at every LR collapsed
        c = F.cliff()
        lrs = [lr for lr in lrs_of(c["runs"], arm) if lr >= c["fits"][arm]["best_lr"]]
        i = len(lrs)
        while i > 0 and c["table"][(arm, lrs[i - 1])][0] == c["table"][(arm, lrs[i - 1])][1]:
            i -= 1
        if i == len(lrs):
            raise Missing(f"not every {arm} run collapsed at its highest LR {g(lrs[-1])}")
        return lrs[i]

    def none_up_to(arm):  # the largest LR up to which (from the lowest) no run of the arm collapsed
        c = F.cliff()
        lrs = lrs_of(c["runs"], arm)
        i = 0
        while i < len(lrs) and c["table"][(arm, lrs[i])][0] == 0:
            i += 1
        if i == 0:
            raise Missing(f"a {arm} run collapsed at its lowest LR {g(lrs[0])}")
        return lrs[i - 1]

    def shape_words():  # the core shape against the cliff's: deeper / wider
        a, b = F.check()["cfg"], cliff_cfg()
        cmp = lambda x, y, more, less, same: more if x > y else less if x < y else same
        return (cmp(a["n_layer"], b["n_layer"], "deeper", "shallower", "as deep") + ", "
                + cmp(a["n_embd"], b["n_embd"], "wider", "narrower", "as wide"))

    def check_tuned():  # the core shape's best LR: its off arm's best (its tuned LR only where LRs ran on both sides)
        return arm_best_lr(F.check()["runs"], OFF)

    def check_end():  # where the core shape's best LR lies on its off arm's grid: "lowest", "highest" or ""
        lrs, b = lrs_of(F.check()["runs"], OFF), check_tuned()
        return "lowest" if b == lrs[0] else "highest" if b == lrs[-1] else ""

    def sits():  # where the core shape's threshold lies against its best LR (the multiple rounded to a whole number)
        t = F.check()["group"]["value"]
        if t is None:
            raise Missing("the core shape's threshold is censored")
        m = t / check_tuned()
        return "from its best LR on" if about(m) == "1" else "above its best LR" if m > 1 else "below its best LR"

    def seeds_of_rungs(*steps):  # the seed count of the rungs the README names, as one word when they agree
        n = {s: len({r.seed for r in F.rung_at(s)["runs"]}) for s in steps}
        if len(set(n.values())) == 1:
            return NUMBER_WORDS.get(n[steps[0]], str(n[steps[0]]))
        return ", ".join(f"{NUMBER_WORDS.get(k, k)} at {s} steps" for s, k in n.items())

    def cost(said_layers):  # the gap at the two arms' own best LRs in the 300-step study, at the depth named
        d, (lo, hi), steps, n_off, n_on = optimum_gap(RUNS / "cpu-tinystories", int(said_layers), INTERVAL_LEVEL)
        word = "better" if lo > 0 else "worse" if hi < 0 else "indistinguishable"
        return word, d, (lo, hi), F.one(steps, "the study's max_iters"), said_layers, n_off, n_on

    def h3_points():  # per depth of H3's slope, the off arm's lr50 and its interval (rederive_depth's fit), flat
        h = F.h3()
        arms = [h["depths"][str(d)]["arms"][OFF] for d in h["slope_depths"]]
        return sum(((a["lr50"], (a["lo"], a["hi"])) for a in arms), ())

    def width():  # the width study under the shift rule (Missing until every listed cell has ended)
        return F.shift("width-s6100-tinystories")

    def width_move():  # shape, size, the lr50 bracket, the one LR mixing outcomes inside it, the midpoint, the move, the verdict
        w = width()
        lo, pt, hi = w["lr50"]
        if None in (lo, pt, hi) or math.inf in map(abs, w["move"]):
            raise Missing(f"the width study's lr50 {w['lr50']} has an open side")
        mixed = [t for t in w["arms"][OFF]["table"] if lo * (1 + 1e-9) < t["lr"] < hi * (1 - 1e-9)]  # strictly inside (the ends are 10**log10)
        if w["arms"][OFF]["kind"] != "separated" or len(mixed) != 1 or not 0 < mixed[0]["k"] < mixed[0]["n"]:
            raise Missing(f"the width study's lr50 is not a bracket around one LR that mixes outcomes ({w['arms'][OFF]['kind']})")
        m = mixed[0]
        return (w["shape"]["n_layer"], w["shape"]["n_embd"], size_m(load_study(RUNS / w["study"])[0], "the width study"),
                (lo, hi), m["k"], m["n"], m["lr"], pt, w["move"][1], (w["move"][0], w["move"][2]), F.cliff()["cfg"]["n_embd"],
                w["verdict"])

    def width_wider():  # the rule's reading grid, and the verdict that many grid steps wider (rederive_shift), said only where it differs
        w = width()
        if w["wider_verdict"] is None:
            raise Missing("the width verdict is the same with the move's ends widened by the grid: nothing to say")
        return F.shifts()["rule"]["search_step"], w["wider_verdict"], {1: "one grid step", 2: "two grid steps"}[w["grid_reads"]]

    def move_words():  # H3's verdict and the width verdict in the words of item 3's heading; a thin margin reads 'may'
        w = width()
        thin = w["wider_verdict"] is not None
        wd = {("supported", "down"): ("lowers it", "may lower it"), ("supported", "up"): ("raises it", "may raise it"),
              ("not supported", None): ("does not move it", "may move it"), ("inconclusive", None): ("may move it", "may move it")}
        return ({"not supported": "does not lower", "supported": "lowers", "inconclusive": "may lower"}[F.h3()["verdict"]],
                wd[(w["verdict"], w["direction"])][thin])

    def not_measured(tok, tps):  # what the scope says was not measured: a tokenizer and a tokens-a-step
        sc = F.scope()
        t = tok if not ({"gpt2", "bpe", "tiktoken"} & {x.lower() for x in sc["tokenizers"]}) else f"{tok} (measured)"
        x = int(tps.replace(",", ""))
        return t, (tps if x not in sc["tokens_per_step"] else f"{tps} (measured)")


    Q, S = Quote, Stated
    return [
        # --- the answer (issue 43's README): the cliff study, analysis.yaml `collapse` and `cliff`
        Q("the cliff's shape, size, steps and tuned LR",
          "For a {n}-layer GPT ({width d|d}={n}, {n}M parameters) trained for {n} steps with AdamW on TinyStories bytes, whose tuned LR is {n}",
          lambda *s: (cliff_cfg()["n_layer"], s[1], cliff_cfg()["n_embd"], size_m(F.cliff()["runs"], "the cliff"),
                      cliff_cfg()["max_iters"], tuned()), (N, W, N, ASIS, N, N)),
        Q("'safe below' as a multiple of the tuned LR, rounded", "Below about {n}× your tuned LR you can skip QK-norm",
          lambda s: (about(fit_lr(F.cliff()["off"], "safe") / tuned()),), W),
        Q("the rule's safe_p", "collapses there with probability below {n}", lambda s: (CLIFF["safe_p"],), N),
        Q("the rule's safe_level", "the upper end of the {n}% band of a logistic fit", lambda s: (CLIFF["safe_level"],), PCT),
        Q("no off-arm run collapsed at two LRs, and the seeds at each", "{none|some} of {n} seeds collapsed at {n}× or at {n}×",
          lambda *s: (*none_at(F.cliff()["off"], s[2], s[3]), s[2], s[3]), (W, N, W, W)),
        Q("'needed from' as a multiple of the tuned LR, rounded, and the rule's needed_p",
          "From about {n}× on, a run without it collapses with probability above {n}",
          lambda *s: (about(fit_lr(F.cliff()["off"], "needed") / tuned()), CLIFF["needed_p"]), (W, N)),
        Q("the off arm's collapses at an LR", "{n} of {n} seeds at {n}×", lambda *s: (*kn(F.cliff()["off"], s[2]), s[2]), (N, N, W)),
        Q("the off arm's collapses at an LR", "{n} of {n} at {n}×", lambda *s: (*kn(F.cliff()["off"], s[2]), s[2]), (N, N, W)),
        Q("the LR from which every off-arm run collapsed", "every seed from {n}×",
          lambda s: (multiple(every_from(F.cliff()["off"]) / tuned()),), W),
        Q("the LR up to which no LayerNorm run collapsed, and its seeds per LR up to there",
          "With LayerNorm QK-norm no run ({n} or {n} seeds an LR) collapsed up to {n}×",
          lambda *s: (*seeds_up_to(F.cliff()["on"], none_up_to(F.cliff()["on"])), multiple(none_up_to(F.cliff()["on"]) / tuned())),
          (N, N, W)),
        Q("the core shape against the cliff's", "At a {deeper, wider|deeper|wider|shallower, narrower} shape ({n} layers, d={n}, "
                                                "{n}M parameters) {trained as long|trained longer|trained shorter}",
          lambda *s: (shape_words(), F.check()["cfg"]["n_layer"], F.check()["cfg"]["n_embd"], size_m(F.check()["runs"], "the check"),
                      {0: "trained as long", 1: "trained longer", -1: "trained shorter"}[
                          (F.check()["cfg"]["max_iters"] > cliff_cfg()["max_iters"]) - (F.check()["cfg"]["max_iters"] < cliff_cfg()["max_iters"])]),
          (W, N, N, ASIS, W)),
        Q("H3's verdict and the width verdict in words (analysis.yaml `h3` and `shift`; 'may' where the width verdict's margin is thin)",
          "**Depth {does not lower|lowers|may lower} the cliff (below); width "
          "{lowers it|may lower it|raises it|may raise it|does not move it|may move it}.**", lambda *s: move_words(), (W, W)),
        Q("the width study: shape, size, the off arm's lr50 bracket, the LR mixing outcomes inside it, the midpoint, the move and the verdict",
          "At {n} layers, d={n} ({n}M parameters) P(collapse) = 0.5 without QK-norm in {b} ({n} of {n} seeds at {n}; midpoint {n}), "
          "{n} {b} decades from d={n}: {supported|not supported|inconclusive}",
          lambda *s: width_move(),
          (N, N, ASIS, B2, N, N, N, S2, lambda v, s: decades(v), lambda v, s: f"[{decades(v[0])}, {decades(v[1])}]", N, W)),
        Q("the rule's reading grid and the width verdict that much wider (rederive_shift's wider_verdict)",
          "on the rule's {n}-decade grid, {inconclusive|supported|not supported} {one grid step|two grid steps} wider",
          lambda *s: width_wider(), (N, W, W)),
        Q("the core shape's layers, width and size", "At {n} layers, d={n} ({n}M parameters) without it a run ends",
          lambda *s: (F.check()["cfg"]["n_layer"], F.check()["cfg"]["n_embd"], size_m(F.check()["runs"], "the check")), (N, N, ASIS)),
        Q("where the core shape's threshold lies against its best LR", "QK-norm is needed {from its best LR on|above its best LR|below its best LR}",
          lambda s: (sits(),), W),
        Q("the rule's primary margin, and the core shape's threshold", "a run ends *materially worse* (a seed-mean loss more than {n} "
                                                                       "nats above LayerNorm QK-norm's) from {n} {b}",
          lambda *s: (MARGIN, F.check()["group"]["value"], (F.check()["lo"], F.check()["hi"])), (N, S2, B2)),
        Q("the core shape's best LR, whether it is an end of its grid (its tuned LR censored) and its design",
          "Its best LR, {n}, is the {lowest|highest|neither end} it ran, so its tuned LR {may lie lower|may lie higher|is known} "
          "({w} seeds at {w} LRs",
          lambda *s: (check_tuned(), check_end() or "neither end",
                      {"lowest": "may lie lower", "highest": "may lie higher", "": "is known"}[check_end()],
                      NUMBER_WORDS.get(len(F.check()["seeds"]), "many"), NUMBER_WORDS.get(len(check_design()[1]), "many")),
          (N, W, W, W, W)),
        Q("the README's scope (the studies its statements rest on: SCOPE)",
          "*Scope*: {byte|BPE} tokens, {n} tokens a step, {n}–{n}M parameters, {n} to {n} steps",
          lambda *s: ("byte" if F.scope()["tokenizers"] == {"bytes"} else "/".join(sorted(F.scope()["tokenizers"])),
                      F.one(F.scope()["tokens_per_step"], "the tokens a step of the scope's studies"),
                      F.scope()["params"][0] / 1e6, F.scope()["params"][1] / 1e6, min(F.scope()["steps"]), max(F.scope()["steps"])),
          (W, N, ASIS, ASIS, N, N)),
        S("the {n}–{n}M parameters this study aims at", "the study's aim (a plan), not a measurement"),
        S("configuration lies {outside}", "what `qknorm advise` reports for a configuration, not a verdict of this README"),
        Q("what the scope's studies did not measure", "with {BPE} tokens or at {n} tokens a step", lambda *s: not_measured(*s), (W, W)),
        Q("the level of the figure's exact intervals", "with its exact {n}% interval", lambda s: (CLIFF["level"],), PCT),
        Q("the level of the figure's fit band", "the logistic fit with its {n}% band", lambda s: (CLIFF["level"],), PCT),
        # --- "What else was measured" (issue 43's README)
        Q("the gap at the two arms' own best LRs (runs/cpu-tinystories, one depth), its interval, steps and seeds",
          "**Tuned, a model without QK-norm is {better|indistinguishable|worse}** (*exploratory*): at each arm's own best LR, LayerNorm "
          "QK-norm ends {n} {b} nats worse ({n} steps, {n} layers; {n} seeds without, {n} with)",
          lambda *s: cost(s[4]), (W, D3, lambda v, s: f"[{v[0]:.3f}, {v[1]:.3f}]", N, W, N, N)),
        Q("the seeds of the two rungs whose thresholds the length bullet quotes",
          "with {w} seeds the {seed-mean threshold|threshold (materially worse)} is {n} {b} at {n} steps and {n} {b} at {n}",
          lambda *s: (seeds_of_rungs(s[4], s[7]), s[1], *F.threshold(F.rung_at(s[4])["name"]), s[4],
                      *F.threshold(F.rung_at(s[7])["name"]), s[7]), (W, W, S2, B2, W, S2, B2, W)),
        Q("the rule's primary margin", "a seed-mean loss more than {n} nats above", lambda s: (MARGIN,), N),
        Q("the rule's primary margin", "materially worse: more than {n} nats", lambda s: (MARGIN,), N),
        Q("the cliff's off-arm seeds", "{The|the} {w}-seed cliff above",
          lambda *s: (s[0], NUMBER_WORDS.get(len({r.seed for r in select(F.cliff()["runs"], F.cliff()["off"])}), "many")), (W, W)),
        Q("the rung the cliff replaces: the cliff's length", "replaces the {n}-step number", lambda s: (cliff_cfg()["max_iters"],), N),
        Q("the confirmatory depth study's steps", "**At {n} steps depth does not lower the threshold**",
          lambda s: (F.one(depth_design(RUNS / "depth-confirm")[2], "depth-confirm's max_iters"),), N),
        Q("the confirmatory depth study's runs and depths", "{n} runs, {n}–{n} layers)",
          lambda *s: (depth_design(RUNS / "depth-confirm")[0], depth_design(RUNS / "depth-confirm")[1][0],
                      depth_design(RUNS / "depth-confirm")[1][-1]), (N, N, N)),
        Q("the confirmatory depth study's slope, its interval and the verdict",
          "a slope of {n} {b} decades per doubling of depth ({n}%): a fall is {not supported|supported|inconclusive}",
          lambda *s: (F.depth()["slope"], (F.depth()["lo"], F.depth()["hi"]), F.depth()["level"], F.depth()["verdict"]),
          (lambda v, s: f"{v:+.2f}", lambda v, s: f"[{v[0]:+.2f}, {v[1]:+.2f}]", PCT, W)),
        # --- H3 at 6,100 steps: analysis.yaml `h3`, through scripts/rederive_depth.py
        Q("H3's verdict in words, and its steps", "**{Nor does it lower|It lowers|It may lower} the cliff at {n} steps**",
          lambda *s: ({"not supported": "Nor does it lower", "supported": "It lowers", "inconclusive": "It may lower"}[F.h3()["verdict"]],
                      F.one(study_scope(ROOT / F.h3()["study"])[2], "H3's max_iters")), (W, N)),
        Q("H3: the off arm's P = 0.5 LR at each depth, and the runs",
          "the fitted LR at which half the runs without QK-norm collapse is, at {l} layers, {n} {b}, {n} {b} and {n} {b} ({n} runs)",
          lambda *s: (F.h3()["slope_depths"], *h3_points(), F.h3()["ended"]), (L,) + (N, B2) * 3 + (N,)),
        Q("H3's slope, its interval and level, and the verdict",
          "per doubling of depth it moves {n} {b} decades ({n}% seed bootstrap): a fall is {not supported|supported|inconclusive}",
          lambda *s: (F.h3()["slope"], (F.h3()["lo"], F.h3()["hi"]), F.h3()["rule"]["level"], F.h3()["verdict"]),
          (lambda v, s: f"{v:+.3f}", lambda v, s: f"[{v[0]:+.3f}, {v[1]:+.3f}]", PCT, W)),
        # --- the headline paragraph: the 6,100-step rung
        Q("the 6,100-step rung's steps, shape, size and seeds",
          "Trained for {n} steps on natural text (TinyStories bytes, {n} layers, d={n}, {n}M parameters, {w} seeds)",
          lambda *s: (r61()["steps"], r61()["cfg"]["n_layer"], r61()["cfg"]["n_embd"], size_m(r61()["runs"], "steps-s6100"),
                      NUMBER_WORDS.get(len({r.seed for r in r61()["runs"]}), "many")), (N, N, N, ASIS, W)),
        Q("the rule's primary margin", "materially worse (more than {n} nats)", lambda s: (MARGIN,), N),
        Q("the necessity threshold at 6,100 steps", "from an LR of **{n} {b}** on", lambda *s: F.threshold(), (S2, B2)),
        Q("the gap just above the threshold", "just above it the gap is {n} to {n} nats (LR {n} to {n})",
          lambda *s: gap_above(*s[2:]), (D1, D1, N, N)),
        Q("the largest |gap| below the threshold, rounded up", "Below it the two arms end within {n} nats of each other",
          lambda s: (math.ceil(max(map(abs, below().values())) * 100) / 100,), lambda v, s: f"{v:g}"),
        Q("the gap at the lowest LR", "the off arm is {n} behind at the lowest LR, {n},",
          lambda *s: (below()[min(below())], min(below())), (D3, N)),
        Q("the off arm's largest lead below the threshold", "and {n} ahead at {n})",
          lambda *s: (-min(below().values()), min(below(), key=below().get)), (D3, N)),
        Q("the threshold's point under every bar of the family", "The threshold's point is {the same|not the same} under every usefulness bar",
          lambda s: ("the same" if {sf2(F.threshold("steps-s6100", c)[0]) for c in CRITERIA} == {sf2(F.threshold()[0])}
                     else "not the same",), W),
        Q("the 6,100-step interval under the unigram bar", "the unigram bar widens its interval to {b}",
          lambda s: (F.threshold("steps-s6100", "unigram")[1],), B2),
        Q("the core shape's design", "At the seed's core shape ({n} layers, d={n}, {n}M parameters, seeds {l})",
          lambda *s: (F.check()["cfg"]["n_layer"], F.check()["cfg"]["n_embd"], size_m(F.check()["runs"], "the check"),
                      F.check()["seeds"]), (N, N, ASIS, L)),
        Q("the core shape's threshold and its score", "puts it {lower|higher}, at **{n} {b}** ({inside|outside|not scored} the predicted {b};",
          lambda *s: ("lower" if F.check()["group"]["value"] < F.threshold()[0] else "higher", F.check()["group"]["value"],
                      (F.check()["lo"], F.check()["hi"]), F.check()["point"], (F.check()["pred"]["lo"], F.check()["pred"]["hi"])),
          (W, S2, B2, W, B2)),
        Q("whether the two shapes' intervals meet", "the two shapes' intervals {do not overlap|overlap}",
          lambda s: ("overlap" if overlap(F.threshold()[1], (F.check()["lo"], F.check()["hi"])) else "do not overlap",), W),
        Q("the off arm's largest logit (seed medians), at its best LR and where it stops being useful",
          "grows from {n} at the best LR ({n}) to {n} at {n}, {where that arm stops being useful|where that arm's runs collapse|where runs without it collapse}",
          lambda *s: (med(r61()["runs"], OFF, arm_best_lr(r61()["runs"], OFF), "max_logit"), arm_best_lr(r61()["runs"], OFF),
                      med(r61()["runs"], OFF, useless_hi(OFF), "max_logit"), useless_hi(OFF), s[4]), (S2, N, SCI, N, W)),
        Q("the steps of the rung the logits are read at", "largest attention logit (seed median, {n} steps)",
          lambda s: (r61()["steps"],), N),
        Q("LayerNorm's largest gain at the last probe (seed medians), at three LRs",
          "gains grow with the LR ({n} at {n}, {n} at {n}, {n} at {n}, at the last probe)",
          lambda *s: sum(((med(r61()["runs"], ON, lr_key(x, lrs_of(r61()["runs"], ON)), "last_gain"), x) for x in s[1::2]), ()),
          (S2, W) * 3),
        Q("LayerNorm's largest logit (seed median) where it stops being useful",
          "its logits reach {n} at {n}, where it in turn stops being useful",
          lambda *s: (med(r61()["runs"], ON, useless_hi(ON), "max_logit"), useless_hi(ON)), (SCI, N)),
        S("fixed at {n}", "the fixed-gain arm's definition (layernorm_nogain: q/k gains fixed at 1), not a measurement"),
        Q("the mechanism study's seeds", "it and LayerNorm both on seeds {l}", lambda s: (sorted({r.seed for r in F.mech()["runs"]}),), L),
        Q("the bound of fixed gains", "√head_dim = {n}", lambda s: (math.sqrt(F.mech()["cfg"]["n_embd"] / F.mech()["cfg"]["n_head"]),), D2),
        Q("the seed-mean losses where the fixed-gain arm is still useful", "still useful at {n} ({n} nats against LayerNorm's {n})",
          still_useful, (W, D2, D2)),
        # (a collapse is a run that is not useful: the not-useful edge is "the LR from which it collapses")
        Q("the gains answer (the finer grid when it exists)",
          "{its useful edge|the LR from which it collapses} moves {up|down} by {b} decades ({not supported|supported|inconclusive}, {w} seeds)",
          lambda *s: (s[0], gains_move()[4], gains_move()[2], gains_move()[3],
                      NUMBER_WORDS.get(len({r.seed for r in F.gains()["runs"]}), "many")), (W, W, PM, W, W)),
        Q("the z-loss answer in words",
          "z-loss {does not move|moves|may move} {LayerNorm's failure edge|its failure edge|the LR from which it diverges}",
          lambda *s: ({"not supported": "does not move", "supported": "moves", "inconclusive": "may move"}[zloss()[3]], s[1]), (W, W)),
        Q("the z-loss answer's bound (not supported: the move lies inside the rule's smallest edge move) and seeds",
          "z-loss does not move the LR from which it diverges by {n} decades or more ({w} seeds)",
          lambda *s: (SMALLEST_MOVE if zloss()[3] == "not supported" else f"(verdict {zloss()[3]})",
                      NUMBER_WORDS.get(len({r.seed for r in F.mech()["runs"]}), "many")), (N, W)),
        S("trained for {n} steps ({n}–{n}M parameters), that LR is about {n}, at every depth from {n} to {n} layers",
          "the 300-step depth study (runs/cpu-tinystories), which this script does not read"),
        Q("how many times longer the last rung trains", "Trained {n} times longer",
          lambda s: (round(r61()["steps"] / F.rung("steps-s300")["steps"]),), N),
        Q("the ladder's depth", "the same {n}-layer model", lambda s: (F.one([r["cfg"]["n_layer"] for r in F.rungs.values()], "the rungs' n_layer"),), N),
        Q("the ratio of the 6,100- and 300-step thresholds", "needs QK-norm only from an LR about {n} times higher",
          lambda s: (round(F.threshold()[0] / F.threshold("steps-s300")[0]),), N),
        Q("whether the 300- and 6,100-step intervals meet", "under the rule's bar the two intervals {do not overlap|overlap}",
          lambda s: ("overlap" if overlap(F.threshold()[1], F.threshold("steps-s300")[1]) else "do not overlap",), W),
        # --- the length bullet
        Q("the rung after which the threshold rises", "the threshold rises after {n} steps", lambda s: (rises_after(),), N),
        Q("a rung's necessity threshold (half-gap bar)", "{n} {b} at {n}",
          lambda *s: (*F.threshold(F.rung_at(s[2])["name"]), s[2]), (S2, B2, W)),
        Q("the ladder's shape", "({n} layers, d={n}, both arms on one LR grid",
          lambda *s: (F.one([r["cfg"]["n_layer"] for r in F.rungs.values()], "the rungs' n_layer"),
                      F.one([r["cfg"]["n_embd"] for r in F.rungs.values()], "the rungs' n_embd")), (N, N)),
        Q("how many predicted measures fell inside their intervals", "at {n} steps {n} of {n} measures fell inside their intervals",
          lambda *s: (s[0], *score_of(s[0])), (W, N, N)),
        Q("the rungs whose threshold holds under every bar", "The {n}- and {n}-step thresholds hold under every bar of the family",
          lambda *s: tuple(F.rung(n)["steps"] for n in F.rungs if holds(n)) if sum(map(holds, F.rungs)) == 2 else
          ([F.rung(n)["steps"] for n in F.rungs if holds(n)], "(not two rungs)"), (N, N)),
        Q("the best-plus bar of the rule's family", "ℓ* + {n}", lambda s: (BEST_PLUS,), N),
        Q("a rung's interval under the unigram bar", "the unigram bar widens the {n}-step interval to {b}",
          lambda *s: (s[0], F.threshold(F.rung_at(s[0])["name"], "unigram")[1]), (W, B2)),
        Q("the rungs whose threshold does not hold under every bar", "At {n} and {n} steps they do not",
          lambda *s: tuple(F.rung(n)["steps"] for n in F.rungs if not holds(n)) if sum(not holds(n) for n in F.rungs) == 2 else
          ([F.rung(n)["steps"] for n in F.rungs if not holds(n)], "(not two rungs)"), (N, N)),
        Q("where the bigram bar censors the threshold, and which way the unigram bar does",
          "under the unigram bar (and at {n} steps the bigram bar) the threshold is censored {above|below}",
          lambda *s: (F.one([F.rung(n)["steps"] for n in F.rungs if not holds(n)
                             and F.rung(n)["results"][("bigram", MARGIN)][0]["kind"] != "value"], "the rungs the bigram bar censors"),
                      F.one([F.rung(n)["results"][("unigram", MARGIN)][0]["kind"] for n in F.rungs if not holds(n)],
                            "the unigram bar's censoring")), (N, W)),
        Q("the two arms' failure edges at a rung", "Off diverges from {b} at {n} steps, LayerNorm from {b}",
          lambda *s: (F.rung_at(s[1])["edges"][PRIMARY][OFF][0][:2], s[1], F.rung_at(s[1])["edges"][PRIMARY][ON][0][:2]), (B3, W, B3)),
        # --- the mechanism bullet
        Q("the mechanism study's steps, LRs and seeds", "**The mechanism, tested by arms** ({n} steps, {n} LRs from {n} to {n}, seeds {l}",
          lambda *s: (F.one(F.mech()["steps"], "the mechanism study's max_iters"), len(F.mech()["listed_lrs"]), F.mech()["listed_lrs"][0],
                      F.mech()["listed_lrs"][-1], sorted({r.seed for r in F.mech()["runs"]})), (N, N, N, N, L)),
        Q("the bound and the fixed-gain arm's largest logit", "bounded by √head_dim ({n}; the largest observed is {n})",
          lambda *s: (math.sqrt(F.mech()["cfg"]["n_embd"] / F.mech()["cfg"]["n_head"]),
                      max(x for x in (probe_measures(r)["max_logit"] for r in select(F.mech()["runs"], "layernorm_nogain")) if x is not None)),
          (D2, D2)),
        Q("the gains question's two not-useful edges", "stops being useful from {b} instead of {b}",
          lambda *s: (gains_move()[1][:2], gains_move()[0][:2]), (B3, B3)),
        Q("the LRs the refinement added", "a refinement adding LRs {l}",
          lambda s: ([lr for lr in F.gains()["listed_lrs"] if lr not in F.mech()["listed_lrs"]],), L),
        Q("the gains answer on the mechanism study's LRs alone", "on the {n} LRs alone the move was {not supported|supported|inconclusive}",
          lambda *s: (len(F.mech()["listed_lrs"]), F.mech()["answers"]["layernorm_nogain"][4].split(" (")[0]), (N, W)),
        Q("the gains answer", "move {b} decades: {not supported|supported|inconclusive} (the edge moves {up|down}, by {less|more} "
                              "than the rule's smallest effect of {n} decades)",
          lambda *s: (gains_move()[2], gains_move()[3], gains_move()[4], by_than(*gains_move()[2]), SMALLEST_MOVE), (PM, W, W, W, N)),
        Q("the fixed-gain arm's failure edge", "It then fails from {b} while its output logits grow",
          lambda s: (F.gains()["edges"]["layernorm_nogain"][0][:2],), B3),
        Q("the fixed-gain arm's largest log Z (seed means) at two LRs", "log Z reaches {n} at LR {n} and {n} at {n}, seed means",
          lambda *s: sum(((mean_or_none([probe_measures(r)["max_log_z"] for r in select(F.mech()["runs"], "layernorm_nogain",
                                                                                     lr_key(x, F.mech()["lrs"]))]), x) for x in s[1::2]), ()),
          (N, W, N, W)),
        Q("the log Z of the fixed-gain seed that fails, and of a LayerNorm seed that does not",
          "the seed that fails reaches {n}, while a LayerNorm seed reaches {n} at {n} without failing",
          lambda *s: (zmax(F.mech()["runs"], "layernorm_nogain", F.mech()["edges"]["layernorm_nogain"][0][1], True),
                      zmax(F.mech()["runs"], ON, lr_key(s[2], F.mech()["lrs"]), False), s[2]), (N, N, W)),
        S("With z-loss {n}", "the z-loss arm's definition (the arms table: layernorm_zloss trains with z-loss 1e-4), not a measurement"),
        Q("the z-loss answer", "LayerNorm still fails from {b}: move {b} decades: {not supported|supported|inconclusive}",
          lambda *s: (zloss()[1][:2], zloss()[2], zloss()[3]), (B3, PM, W)),
        # --- the core-shape bullet
        Q("the core shape's steps, shape and size", "**The core shape at {n} steps** ({n} layers, {n} heads, d={n}, {n}M parameters",
          lambda *s: (F.check()["cfg"]["max_iters"], F.check()["cfg"]["n_layer"], F.check()["cfg"]["n_head"], F.check()["cfg"]["n_embd"],
                      size_m(F.check()["runs"], "the check")), (N, N, N, N, ASIS)),
        Q("the check's LRs and seeds", "both arms at LRs {l}, seeds {l}", lambda *s: (check_design()[1], F.check()["seeds"]), (L, L)),
        Q("what the check's prediction moved", "predicted from the {n}-layer length axis and the width ladder's d={n} rung", lambda *s: basis(), (N, N)),
        Q("the check's threshold and its two scores", "QK-norm becomes necessary from {n} {b}, against the predicted {b}: "
                                                     "point {inside|outside|not scored}, brackets {overlap|do not overlap}",
          lambda *s: (F.check()["group"]["value"], (F.check()["lo"], F.check()["hi"]), (F.check()["pred"]["lo"], F.check()["pred"]["hi"]),
                      F.check()["point"], "overlap" if F.check()["overlap"] else "do not overlap"), (S2, B2, B2, W, W)),
        Q("the predicted interval's width", "its interval is {n} decades wide",
          lambda s: (math.log10(F.check()["pred"]["hi"] / F.check()["pred"]["lo"]),), D1),
        Q("the point's distance from the predicted point", "the point lies {n} decades {below|above} the predicted {n}",
          lambda *s: (abs(math.log10(F.check()["group"]["value"] / F.check()["pred"]["value"])),
                      "below" if F.check()["group"]["value"] < F.check()["pred"]["value"] else "above", F.check()["pred"]["value"]),
          (D2, W, S2)),
        Q("the check's seed means, off / LayerNorm, at an LR", "{n} / {n} at {n}",
          lambda *s: (*F.check()["means"][lr_key(s[2], list(F.check()["means"]))], s[2]), (D2, D2, W)),
        Q("the check's CPU-hours and cells", "({n} CPU-hours for its {n} cells", lambda *s: (F.check()["cpu_h"], F.check()["n"]), (D1, N)),
        S("would take {n} cells, ~{n} CPU-hours", "a planning estimate for a larger check, not a measurement"),
    ]


# ----------------------------------------------------------------------------------------------- main
def parse(argv):
    ap = argparse.ArgumentParser(prog="rederive_natural", description=__doc__.split("\n\n")[0])
    ap.add_argument("mech", nargs="?", help="another mechanism-study folder (default: RUNS/mechanism-tinystories)")
    ap.add_argument("--readme", default=ROOT / "README.md", help="the README whose quotes are checked")
    ap.add_argument("--runs", default=ROOT / "runs", help="the folder holding the run folders")
    ap.add_argument("--rules", default=ROOT / "studies" / "rules", help="the folder holding the rule files")
    ap.add_argument("--self-test", action="store_true",
                    help="check the cliff's statistics against known values, then that a changed number in a copy of the "
                         "README makes the check fail (exit 1 if either does not hold)")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse(argv)
    configure(a.runs, a.rules, a.readme)
    load_rules()
    load_cliff_rule()
    mech = Path(a.mech) if a.mech else MECH
    print(f"rule: margins {MARGINS}, primary margin {MARGIN}, primary criterion {PRIMARY}, "
          f"smallest edge move {SMALLEST_MOVE} decades")
    n = 786432  # the rungs' val_tokens (checked per rung below)
    if VAL_TEXT.exists():
        h1, h2 = unigram_bigram(val_tokens(VAL_TEXT, n))
        print(f"H1, H2 recomputed from {VAL_TEXT.name} (first {n} tokens): {h1:.6f}, {h2:.6f}; rule file: 3.05, 2.30")
    else:  # a checkout without the text beside it: the bars come from the record, and say so
        fe = file_entropies(LADDER / RUNGS[0])
        if fe is None:
            raise Refused(f"{VAL_TEXT} and {rel(LADDER / RUNGS[0] / 'entropies.json')} are both absent: no H1, H2 for the bars")
        h1, h2 = fe
        print(f"H1, H2 from {RUNGS[0]}/entropies.json (not recomputed: {VAL_TEXT} is absent): {h1:.6f}, {h2:.6f}")
    for name in RUNGS:
        cfg_tokens = {c.get("val_tokens") for c in read_json(LADDER / name / "study.json").get("cells", {}).values()}
        fe = file_entropies(LADDER / name)
        print(f"  {name}: val_tokens {sorted(map(str, cfg_tokens))}; entropies.json: "
              + (f"{fe[0]:.6f}, {fe[1]:.6f}" if fe else "absent"))
    rungs = {name: report_rung(LADDER, name, h1, h2, MARGINS) for name in RUNGS}
    scores = report_predictions(LADDER, rungs, MARGIN)
    state = report_mechanism(mech, h1, h2)
    # The gains question again on a finer grid (studies/rules/mechanism-gains.yaml): once complete, its answer replaces
    # the mechanism study's for that question, so the README must quote it
    gains = report_mechanism(GAINS, h1, h2) if (GAINS / "study.json").exists() else None
    check = report_check(h1, h2)
    cliff = report_cliff(h1, h2)
    facts = Facts(rungs, state, gains, check, scores, h1, h2, cliff)
    facts.scope()  # printed here, before the README check
    try:
        facts.depth()
    except Missing as why:
        print(f"\n=== the confirmatory depth study: {why}")
    bad = check_readme(quotes(facts), README, BLOCKS)
    if a.self_test:
        return 1 if self_test(facts, bad) else 0
    return 1 if bad else 0


# A number of the README changed in a copy (each applied where the README holds it): the check must then report a
# DIFFERS or NOT RE-DERIVED line that it does not report on the README itself.
MUTANTS = [("about 4×", "about 6×"), ("From about 7×", "From about 8×"), ("9 of 10", "8 of 10"), ("3 of 10 seeds", "4 of 10 seeds"),
           ("none of 10 seeds", "none of 9 seeds"), ("every seed from 17×", "every seed from 13×"), ("up to 30×", "up to 55×"),
           ("whose tuned LR is 0.01", "whose tuned LR is 0.0173"), ("0.2M parameters", "0.3M parameters"),
           ("Its best LR, 0.01,", "Its best LR, 0.0316,"), ("0.039 [0.016, 0.063]", "0.039 [0.010, 0.063]"), ("0.056 [0.043, 0.10]", "0.056 [0.043, 0.11]"),
           ("2,048 tokens a step", "4,096 tokens a step"), ("probability below 0.1", "probability below 0.05"),
           ("its tuned LR may lie lower", "its tuned LR is known"), ("in [0.030, 0.074]", "in [0.030, 0.10]"),
           ("(1.8M parameters)", "(2.8M parameters)"), ("2 of 4 seeds at 0.0548", "3 of 4 seeds at 0.0548"), ("inconclusive one grid step wider", "not supported one grid step wider"),
           ("width may lower it", "width lowers it"), ("midpoint 0.047", "midpoint 0.055"), ("is the lowest it ran", "is the highest it ran"), ("0.0774\n  [0.060, 0.095]", "0.0774\n  [0.060, 0.11]"), ("(seed median, 6,100 steps)", "(seed median, 2,000 steps)")]


def self_test(facts, bad):
    """The statistics against known values (rederive_cliff.self_test), then each MUTANTS change the README holds, in a
    copy: the check must fail on the copy with a line it does not print for the README. Returns the number of failures."""
    print("\n=== self-test: the cliff's statistics")
    failures = C.self_test()
    print(f"\n=== self-test: a changed number in a copy of {rel(README)} must fail the check (the README itself: {bad} failing)")
    failures += mutation_test(lambda p: check_readme(quotes(facts), p, BLOCKS), README, MUTANTS)
    print(f"self-test: {failures} failed")
    return failures


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Refused as e:
        print(f"rederive_natural: error: {e}", file=sys.stderr)
        sys.exit(2)
