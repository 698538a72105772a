"""The length ladder's measures, re-derived from the rule's words: the necessity threshold and its interval, the
edges, the probe measures, one rung's report, and the measures that score a rung's prediction (the scale page's).

A sibling module of scripts/rederive_natural.py, which reads the ladder (runs/length-tinystories/steps-s*) with it and
quotes it in the README check. Like every re-derivation script it does NOT import the `qknorm_nb` package, only the
standard library, numpy and its siblings; it reads runs with scripts/rederive_runs.py. The rule's numbers it computes
with (the margins) are passed in by the caller, which reads them from the rule file; nothing here holds state.

Each definition cites the rule's section (studies/rules/analysis.yaml): `gap`, `plateau`, `threshold`,
`threshold_interval`, `edges`. The ladder's measures that score a rung's prediction (the failure and not-useful LRs as
the transition region with a logistic fit of P(fail | log10 LR) inside it, the optimal LR, the attention-logit LR, the
necessity threshold and the gap at the optimum) are not in the rule file; they are implemented from their definitions
on the methods and scale pages.
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, wherever this runs from
from rederive_runs import (CRITERIA, OFF, ON, Refused, arm_best_lr, bars, best, bracket, g, load_study,  # noqa: E402
                           lrs_of, read_json, read_text, rel, seed_mean, select, sf2, study_cfg)

PRIMARY = "half_gap"  # analysis.yaml `useful`
LOGIT_LEVEL = 1e4     # the attention-logit LR: where the seed-median max logit first reaches 1e4 (the scale page)


# ------------------------------------------------------------------------------------ necessity threshold
def gap_curve(runs, bar, off=OFF, on=ON):
    """analysis.yaml `gap` and `plateau`: the read points [(lr, gap)] and the skipped LRs [(lr, why)]."""
    points, skipped = [], []
    for lr in sorted(set(lrs_of(runs, off)) & set(lrs_of(runs, on))):
        m_off, m_on = seed_mean(runs, off, lr), seed_mean(runs, on, lr)
        if any(r.failed for r in select(runs, on, lr)):
            skipped.append((lr, "QK-norm seed failed"))
        elif m_off > bar and m_on > bar:  # both arms not useful: no crossing is read there
            skipped.append((lr, "plateau"))
        else:
            points.append((lr, m_off - m_on))
    return points, skipped


def threshold(points, margin, skipped=()):
    """analysis.yaml `threshold` on one gap curve.

    The smallest read LR from which the gap stays above the margin at every larger read LR, interpolated
    linearly in log10(LR) between it and the read LR below it. Returns a dict: kind 'value', 'below'
    (censored below: it holds from the lowest read LR) or 'above' (it never holds at the top), with the
    grid bracket lo/hi (None = open) and, when censored above, the reason. "Censored below" is read as
    "it holds from the lowest read LR"; a gap above the margin at the lowest LR that later dips below it
    gives a threshold (flagged), since the rule's definition ("stays above ... at every larger LR") does.
    """
    if not points:
        return {"kind": "above", "value": None, "lo": None, "hi": None, "reason": "no gap read at any LR"}
    k = len(points)
    while k > 0 and points[k - 1][1] > margin:  # walk down while the gap stays above the margin
        k -= 1
    if k == len(points):
        top = points[-1][0]
        above = sorted((lr, why) for lr, why in skipped if lr > top)
        reason = (f"{above[0][1]} from LR {g(above[0][0])} up; gap {points[-1][1]:+.3f} at {g(top)}"
                  if above else f"gap stays at or below the margin ({points[-1][1]:+.3f} at LR {g(top)})")
        return {"kind": "above", "value": None, "lo": top, "hi": None, "reason": reason}
    if k == 0:
        return {"kind": "below", "value": None, "lo": None, "hi": points[0][0], "reason": ""}
    (lr0, g0), (lr1, g1) = points[k - 1], points[k]
    frac = (margin - g0) / (g1 - g0)  # g0 <= margin < g1, so 0 <= frac < 1
    value = 10 ** (math.log10(lr0) + frac * (math.log10(lr1) - math.log10(lr0)))
    # The rule's censored-below wording speaks of the gap "at the lowest LR": say when that differs
    note = " (gap above the margin at the lowest read LR, dips below later)" if points[0][1] > margin else ""
    return {"kind": "value", "value": value, "lo": lr0, "hi": lr1, "reason": note}


def seed_curves(runs, read_lrs, off=OFF, on=ON):
    """Each seed's own gap curve on the read LRs every seed ran (both arms): {seed: [(lr, gap)]}."""
    seeds = sorted({r.seed for r in runs if r.arm in (off, on)})
    common = [lr for lr in read_lrs
              if all(select(runs, a, lr, s) for a in (off, on) for s in seeds)]
    return {s: [(lr, select(runs, off, lr, s)[0].capped - select(runs, on, lr, s)[0].capped) for lr in common]
            for s in seeds}, common


def threshold_interval(group, per_seed):
    """analysis.yaml `threshold_interval`: the grid bracket widened to the per-seed thresholds.

    A censored group threshold leaves that side open; a seed censored below (above) opens the lower
    (upper) side, since its threshold lies somewhere beyond the grid there.
    """
    kinds = [group["kind"]] + [t["kind"] for t in per_seed.values()]
    values = [x for x in [group["lo"], group["hi"]] + [t["value"] for t in per_seed.values()] if x is not None]
    lo = None if "below" in kinds or not values else min(values)
    hi = None if "above" in kinds or not values else max(values)
    return lo, hi


def describe_threshold(t):
    if t["kind"] == "value":
        return f"{g(t['value'])} (2 s.f. {sf2(t['value'])}), grid bracket {bracket(t['lo'], t['hi'])}{t['reason']}"
    if t["kind"] == "below":
        return f"censored below: <= {g(t['hi'])} (the gap is above the margin from the lowest read LR)"
    return f"censored above: > {g(t['lo'])}; reason: {t['reason']}"


def necessity(runs, bar, margin, off=OFF, on=ON):
    """Group threshold, per-seed thresholds and the interval, under one bar and margin."""
    points, skipped = gap_curve(runs, bar, off, on)
    group = threshold(points, margin, skipped)
    curves, common = seed_curves(runs, [lr for lr, _ in points], off, on)
    per_seed = {s: threshold(c, margin) for s, c in curves.items()}
    return group, per_seed, threshold_interval(group, per_seed), points, skipped, common


# ---------------------------------------------------------------------------------------------- edges
def edge(runs, arm, bad, lrs):
    """analysis.yaml `edges`: [last LR at which every seed was fine, first LR at which a seed was bad].

    Only the first bad LR opens the edge. Returns (lo, hi, note): hi None = censored above (no LR bad),
    lo None = censored below (the lowest LR is bad).
    """
    prev = None
    for lr in lrs:
        rs = select(runs, arm, lr)
        nbad = sum(bad(r) for r in rs)
        if nbad:
            return prev, lr, f"{nbad}/{len(rs)} seeds at {g(lr)}"
        prev = lr
    return prev, None, f"no ended LR up to {g(prev)} is bad"


def arm_edges(runs, arm, bar):
    """(failure edge, not-useful edge) of one arm under one bar."""
    lrs = lrs_of(runs, arm)
    fail = edge(runs, arm, lambda r: r.failed, lrs)
    b = arm_best_lr(runs, arm)
    # the not-useful edge is read at or above the arm's own best LR (below it: undertrained, not unstable)
    useless = edge(runs, arm, lambda r: r.failed or r.loss > bar, [lr for lr in lrs if lr >= b])
    return fail, useless, b


def fmt_edge(e):
    lo, hi, note = e
    tag = " censored above" if hi is None else (" censored below" if lo is None else "")
    return f"{bracket(lo, hi)}{tag} ({note})"


# --------------------------------------------------------------------------------------- probes (s6100)
def probe_measures(run):
    """Per-run probe measures from metrics.jsonl (probe lines carry max_logit), finite values only."""
    probes, path = [], run.folder / "metrics.jsonl"
    for i, line in enumerate(read_text(path).splitlines(), 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise Refused(f"{rel(path)}: line {i} is not valid JSON ({e.msg}): a torn file?") from None
        if isinstance(rec, dict) and "max_logit" in rec:
            probes.append(rec)

    def fin(xs):
        return [x for x in xs if x is not None and math.isfinite(x)]

    def maxof(key):
        vals = fin(v for p in probes for v in (p[key] if isinstance(p.get(key), list) else [p.get(key)]))
        return max(vals) if vals else None

    gains = [maxof("q_gain_max"), maxof("k_gain_max")]
    gains = [x for x in gains if x is not None]
    last = probes[-1] if probes else {}
    # the last probe's largest q or k gain of any layer: what the pages tabulate (seed medians)
    last_gain = fin(last.get("q_gain_max", []) + last.get("k_gain_max", []))
    last_logit = fin(last.get("max_logit", []))
    last_ent = fin(last.get("entropy", []))
    return {"gain": max(gains) if gains else None, "last_gain": max(last_gain) if last_gain else None,
            "max_logit": maxof("max_logit"),
            "last_logit": max(last_logit) if last_logit else None, "max_log_z": maxof("log_z"),
            "last_entropy": min(last_ent) if last_ent else None}


def mean_or_none(xs):
    xs = [x for x in xs if x is not None]
    return float(np.mean(xs)) if xs else None


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return float(np.median(xs)) if xs else None


def mechanism_table(runs, arms):
    """Seed means per arm and LR of the probe measures (and the seed medians the pages show), and a check against summary.json."""
    print("  arm               LR       n f  capped  max_qk_gain  max_logit  last_max_logit  max_log_z  last_entropy_min"
          "  | medians: last_qk_gain  max_logit  max_log_z")
    agree = total = 0
    for arm in arms:
        for lr in lrs_of(runs, arm):
            rs = select(runs, arm, lr)
            ms = [probe_measures(r) for r in rs]
            for r, m in zip(rs, ms):  # the summary's own per-run maxima, as a cross-check of the reading
                s = read_json(r.folder / "summary.json")
                total += 1
                agree += all(s.get(k) is None or m[k] is None or abs(s[k] - m[k]) <= 1e-6 * max(1, abs(s[k]))
                             for k in ("max_logit", "max_log_z"))
            row = [mean_or_none([m[k] for m in ms]) for k in
                   ("gain", "max_logit", "last_logit", "max_log_z", "last_entropy")]
            print(f"  {arm:<17} {g(lr):<8} {len(rs)} {sum(r.failed for r in rs)}  {seed_mean(runs, arm, lr):.3f}  "
                  f"{g(row[0]):>11}  {g(row[1]):>9}  {g(row[2]):>14}  {g(row[3]):>9}  {g(row[4]):>16}  | "
                  + "  ".join(f"{g(median_or_none([m[k] for m in ms])):>9}" for k in ("last_gain", "max_logit", "max_log_z")))
    print(f"  (max_logit and max_log_z from metrics.jsonl agree with summary.json for {agree}/{total} runs)")


# ------------------------------------------------------------------------------------------ one rung
def report_rung(ladder, name, h1, h2, margins):
    """Print one rung's numbers under every criterion and margin (the rule's `margins`, the first one's reading
    shown); return what the README table reads of it."""
    folder = ladder / name
    runs, pending, listed, failed = load_study(folder)
    print(f"\n=== {name}: {len(runs)}/{listed} cells ended, {sum(r.failed for r in runs)} failed "
          f"({', '.join(f'{a} {sum(r.failed for r in select(runs, a))}' for a in (OFF, ON))})")
    if pending:
        print("  not ended yet: " + "; ".join(
            f"{a} LR {g(lr)} seeds {[s for b, l, s in pending if (b, l) == (a, lr)]}"
            for a, lr in sorted({(a, lr) for a, lr, _ in pending})))
    if not select(runs, OFF) or not select(runs, ON):
        raise Refused(f"{rel(folder)}: no ended cell of the arm {OFF if not select(runs, OFF) else ON}: "
                      "a rung needs both arms before anything can be read")
    short = [r for r in runs if r.short_eval and not r.failed]
    print(f"  runs scored by the short-evaluation fallback (not failed): {len(short)}")
    low = [r.name for r in runs if r.status == "diverged" and math.isfinite(r.loss) and r.loss < r.l0]
    if low:
        print(f"  stopped as diverged but last recorded loss below l0 (counted failed): {low}")
    lstar, barm, blr = best(runs)
    bs = bars(lstar, h1, h2)
    print(f"  l* = {lstar:.4f} ({barm} at LR {g(blr)});  bars: " +
          ", ".join(f"{k} {v:.4f}" for k, v in bs.items()))
    if lstar >= h1:
        print("  l* is at or above H1: no run of this rung is useful")

    print("  seed-mean capped loss (n seeds, f failed):")
    print(f"    LR       {OFF:>18}  {ON:>18}   gap(off-on)")
    for lr in lrs_of(runs):
        cols = []
        for a in (OFF, ON):
            rs = select(runs, a, lr)
            cols.append(f"{seed_mean(runs, a, lr):.4f} (n{len(rs)} f{sum(r.failed for r in rs)})" if rs else "-")
        gap = (seed_mean(runs, OFF, lr) - seed_mean(runs, ON, lr)
               if select(runs, OFF, lr) and select(runs, ON, lr) else None)
        print(f"    {g(lr):<8} {cols[0]:>18}  {cols[1]:>18}   {'-' if gap is None else f'{gap:+.4f}'}")

    results, edges = {}, {}
    for crit in CRITERIA:
        bar = bs[crit]
        print(f"  -- criterion {crit} (bar {bar:.4f})")
        for margin in margins:
            grp, per_seed, (ilo, ihi), points, skipped, common = necessity(runs, bar, margin)
            if margin == margins[0]:
                print(f"     gap read at {len(points)} LRs {g(points[0][0]) if points else '-'}.."
                      f"{g(points[-1][0]) if points else '-'}; skipped: "
                      + (", ".join(f"{g(lr)} {why}" for lr, why in skipped) or "none")
                      + f"; per-seed curves on {len(common)} LRs")
            seeds = ", ".join(f"s{s} {g(t['value']) if t['kind'] == 'value' else 'censored ' + t['kind']}"
                              for s, t in per_seed.items())
            print(f"     margin {margin:<4}: threshold {describe_threshold(grp)}")
            print(f"                  interval {bracket(ilo, ihi)} (2 s.f. {bracket(ilo, ihi, 2)}); per seed: {seeds}")
            results[(crit, margin)] = (grp, ilo, ihi)
        for a in (OFF, ON):
            fail, useless, b = edges.setdefault(crit, {})[a] = arm_edges(runs, a, bar)
            print(f"     {a:<9} failure edge {fmt_edge(fail)}")
            print(f"     {'':<9} not-useful edge (LRs >= own best {g(b)}) {fmt_edge(useless)}")
    if name == "steps-s6100":
        print("  mechanism table (seed means; max over the run's probes and layers unless 'last'):")
        mechanism_table(runs, (OFF, ON))
    steps = {int(c["max_iters"]) for c in read_json(folder / "study.json")["cells"].values() if "max_iters" in c}
    return dict(name=name, runs=runs, results=results, edges=edges, bars=bs, lstar=lstar, cfg=study_cfg(folder),
                steps=steps.pop() if len(steps) == 1 else int(name.split("-s")[-1]), complete=len(runs) == listed)


# ---------------------------------------------------------------------------- the ladder's measures (scale page)
def fail_fit(lrs, bad):
    """The logistic fit of P(fail | log10 LR) beside an edge (analysis.yaml `edges`), by maximum likelihood:
    (lr50, the upper end of its 95% Wald interval, kind). Runs perfectly separated by LR have no finite slope: their
    lr50 is the log-midpoint of the last good and first bad LR ('separated'); a transition sharper than the grid can
    resolve ('quasi-separated') widens the upper end to the first LR above the mixed ones."""
    x, y = np.log10(np.asarray(lrs, dtype=float)), np.asarray(bad, dtype=float)
    if y.min() == y.max():
        return None, None, "no flip"
    x_ok, x_bad = x[y == 0].max(), x[y == 1].min()
    if x_ok < x_bad:
        return 10 ** ((x_ok + x_bad) / 2), 10 ** x_bad, "separated"
    xc = x.mean()  # centred: a well-conditioned Newton step
    X = np.stack([np.ones_like(x), x - xc], 1)
    w = np.zeros(2)
    for _ in range(100):  # a quasi-separated sample has no finite MLE: the slope grows, lr50 settles
        p = 1 / (1 + np.exp(-np.clip(X @ w, -700, 700)))
        info = X.T @ (X * (p * (1 - p))[:, None]) + 1e-9 * np.eye(2)  # the Fisher information (kept invertible)
        step = np.linalg.solve(info, X.T @ (y - p))
        w += step
        if np.abs(step).max() < 1e-12:
            break
    a, b = w
    if b <= 0:
        return None, None, "not increasing"
    x50 = -a / b
    grad = np.array([-1 / b, a / b ** 2])  # d x50 / d(a, b): the delta method
    hi = 10 ** (x50 + xc + 1.959963984540054 * math.sqrt(max(float(grad @ np.linalg.inv(info) @ grad), 0.0)))
    grid = np.unique(x)
    if 2 * math.log(9) / b < np.diff(grid).min():  # 10%-90% narrower than a grid step
        above = grid[grid > x_ok]
        return 10 ** (x50 + xc), (max(hi, 10 ** above.min()) if len(above) else math.inf), "quasi-separated"
    return 10 ** (x50 + xc), hi, "logistic"


def transition(runs, arm, bad, lrs):
    """The failure (or not-useful) LR as the scale page measures it: (point, lo, hi, censored). The region from the last
    LR at which every seed was good to the first at which every seed was bad (else the fit's upper end), the point
    the fit's lr50 clipped to it; censored (no point) when no LR, or the lowest, is bad."""
    per = [(lr, [bad(r) for r in select(runs, arm, lr)]) for lr in lrs]
    per = [(lr, b) for lr, b in per if b]
    i = next((k for k, (_, b) in enumerate(per) if any(b)), len(per))
    if i == len(per):
        return None, per[-1][0], math.inf, "above"
    if i == 0:
        return None, 0.0, per[0][0], "below"
    tr, ff = per[i - 1][0], per[i][0]
    all_bad = next((lr for lr, b in per[i:] if all(b)), None)
    rs = [r for r in select(runs, arm) if r.lr in set(lrs)]
    lr50, fit_hi, _ = fail_fit([r.lr for r in rs], [bad(r) for r in rs])
    hi = all_bad if all_bad is not None else max(x for x in (fit_hi, ff) if x is not None)
    v = lr50 if lr50 is not None else math.sqrt(tr * ff)
    return min(max(v, tr), hi), tr, hi, ""


def grid_edge(lrs, i):
    """Point, lo, hi, censored of an edge first reached at index i of the sorted grid (i = len: never)."""
    if i >= len(lrs):
        return None, lrs[-1], math.inf, "above"
    if i == 0:
        return None, 0.0, lrs[0], "below"
    return math.sqrt(lrs[i - 1] * lrs[i]), lrs[i - 1], lrs[i], ""


def rung_measures(rung, margin):
    """{(measure, arm): (point or None, lo, hi, censored)}: the ten measures a rung's prediction names, observed (the
    necessity threshold under the rule's primary `margin`)."""
    runs, out = rung["runs"], {}
    bar = rung["bars"][PRIMARY]
    grp, ilo, ihi = rung["results"][(PRIMARY, margin)]
    for a in (OFF, ON):
        lrs = lrs_of(runs, a)
        out[("failure_lr", a)] = transition(runs, a, lambda r: r.failed, lrs)
        best_lr = arm_best_lr(runs, a)  # the not-useful LR is read at or above the arm's own best LR
        out[("useful_lr", a)] = transition(runs, a, lambda r: r.failed or r.loss > bar, [lr for lr in lrs if lr >= best_lr])
        i = lrs.index(best_lr)  # the optimum, half a grid step (in log LR) either side; censored at the grid's ends
        out[("lr_star", a)] = (None if i in (0, len(lrs) - 1) else best_lr,
                               math.sqrt(lrs[i - 1] * best_lr) if i > 0 else 0.0,
                               math.sqrt(best_lr * lrs[i + 1]) if i < len(lrs) - 1 else math.inf,
                               "below" if i == 0 else "above" if i == len(lrs) - 1 else "")
        med = [(lr, median_or_none([r.max_logit for r in select(runs, a, lr)
                                    if r.max_logit is not None and not math.isnan(r.max_logit)])) for lr in lrs]
        med = [(lr, m) for lr, m in med if m is not None]
        out[("logit_lr", a)] = grid_edge([lr for lr, _ in med], next((k for k, (_, m) in enumerate(med) if m >= LOGIT_LEVEL), len(med)))
    kind = grp["kind"]
    out[("necessity", ON)] = (grp["value"], 0.0 if kind == "below" else ilo, math.inf if kind == "above" else ihi,
                              "" if kind == "value" else kind)
    gap = seed_mean(runs, OFF, arm_best_lr(runs, OFF)) - seed_mean(runs, ON, arm_best_lr(runs, ON))
    out[("opt_gap", ON)] = (gap, None, None, "")
    return out


def score_rung(pred, obs):
    """[(measure, arm, verdict)]: each predicted measure (value not null) against the observed one: 'inside' when the
    observed point lies in the predicted interval, 'outside' when beyond it (or a censored observation lies wholly
    beyond it), 'not scored' otherwise (the methods page's rule)."""
    rows = []
    for q, per in pred.get("quantities", {}).items():
        for a, p in per.items():
            if p.get("value") is None:
                continue  # not predicted: not scored
            if (q, a) not in obs:
                rows.append((q, a, "not scored"))
                continue
            v, lo, hi, _ = obs[(q, a)]
            if v is not None:
                rows.append((q, a, "inside" if p["lo"] <= v <= p["hi"] else "outside"))
            else:
                rows.append((q, a, "outside" if lo > p["hi"] or hi < p["lo"] else "not scored"))
    return rows


def report_predictions(ladder, rungs, margin):
    """Each rung's committed prediction (ladder/predictions/*.json) scored against its observed measures:
    {rung: (inside, scored)}."""
    print("\n=== the rungs' predictions, scored (the methods page's rule: the observed point inside the predicted interval)")
    out = {}
    for p in sorted((ladder / "predictions").glob("*.json")) if (ladder / "predictions").is_dir() else []:
        rung = rungs.get(p.stem)
        if rung is None or not rung["complete"]:
            print(f"  {p.stem}: its rung has not ended every cell: not scored")
            continue
        obs = rung_measures(rung, margin)
        rows = score_rung(read_json(p), obs)
        scored = [v for _, _, v in rows if v != "not scored"]
        out[p.stem] = (scored.count("inside"), len(scored))
        for q, a, v in rows:
            o = obs.get((q, a))
            print(f"    {q:<11} {a:<10} observed {g(o[0]) if o and o[0] is not None else 'censored ' + (o[3] if o else '?')}: {v}")
        print(f"  {p.stem}: {out[p.stem][0]} of {out[p.stem][1]} scored measures inside their interval")
    return out
