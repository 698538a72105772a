"""Independent re-derivation of the TinyStories length study (runs/length-tinystories).

What it is: a standalone check of the numbers the notebooks and README report for the length ladder
(4 layers, d=64, 300 / 800 / 2,000 / 6,100 steps), written from the rule files alone. It does NOT import
the `qknorm_nb` package and was written without reading it: only the Python standard library and numpy.

Run it from the repository root:

    python scripts/rederive_natural.py            # optional argument: another mechanism-study folder

What it reads (nothing is written):
  - studies/rules/analysis.yaml and studies/rules/mechanism.yaml: the margins and the smallest edge move
    (the rest of the rule is implemented below, each step citing the rule's words);
  - ../shared/data/tinystories_valid_sample.txt: H1 and H2 recomputed from the validation text;
  - runs/length-tinystories/steps-s*/study.json, entropies.json, and per listed cell summary.json
    (the loss, l0, status) and metrics.jsonl (the probes, for the 6,100-step mechanism table);
  - runs/mechanism-tinystories (the same files), if it exists;
  - runs/length-tinystories/prediction-core-ts-s6100.json and the core-shape check's folder beside it;
  - runs/length-tinystories/predictions/steps-s6100.json, only to compare its recorded thresholds with
    the ones derived here (nothing derived depends on it).

Not computed: the logistic fit of P(fail | log10 LR) that the rule shows beside each edge bracket, and the
gap verdicts' t intervals; the brackets, thresholds and intervals are.

Only cells listed in a rung's study.json that have a summary.json count (a running rung is read as far as
it has ended). The README blocks check what the README quotes, read from its text: the thresholds (half_gap,
margin 0.05); once every cell of the mechanism study has ended, its two answers (brackets, move, verdict); every
number of the headline paragraph ("The answer at the seed's length") and the mechanism bullet, written as the README
writes it; and, once every cell of the core-shape check has ended, its score against the committed prediction.
"""
import hashlib
import json
import math
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LADDER = ROOT / "runs" / "length-tinystories"
RUNGS = ["steps-s300", "steps-s800", "steps-s2000", "steps-s6100"]
MECH = ROOT / "runs" / "mechanism-tinystories"
GAINS = ROOT / "runs" / "mechanism-gains-tinystories"  # the gains refinement, once it has started
VAL_TEXT = ROOT / ".." / "shared" / "data" / "tinystories_valid_sample.txt"
OFF, ON = "none", "layernorm"  # the two arms of the length study
CRITERIA = ["half_gap", "best_plus_0.5", "bigram", "unigram"]
PRIMARY = "half_gap"  # analysis.yaml `useful`
README = ROOT / "README.md"
README_BULLET = "**Trained longer on TinyStories"  # the README bullet whose thresholds are checked, not used
README_MECH = "**The mechanism, tested by arms"  # the README bullet whose mechanism edges and verdicts are checked


def readme_bullet(start, path=README, until="\n- "):
    """The README text that starts with `start`, up to `until` (the next bullet; "\n\n" for a paragraph), on one
    line; None if there is none."""
    text = path.read_text(encoding="utf-8")
    i = text.find(start)
    if i < 0:
        return None
    end = text.find(until, i)
    return " ".join(text[i:end if end > 0 else len(text)].split())


def readme_thresholds(path=README):
    """{rung: (value, lo, hi)} as the README writes them: each "X [A, B] at N" of the bullet that starts
    with README_BULLET ("... at 300 steps, ... at 2,000"); N is the rung's step count."""
    bullet = readme_bullet(README_BULLET, path)
    if bullet is None:
        return {}
    found = re.findall(r"(\d[\d.]*)\s+\[(\d[\d.]*),\s+(\d[\d.]*)\]\s+at\s+(\d[\d,]*)", bullet)
    return {f"steps-s{n.replace(',', '')}": (v, lo, hi) for v, lo, hi, n in found}


# ----------------------------------------------------------------------------------------- rule constants
def rule_number(path, key):
    """A scalar or flat list of a top-level key of a rule file (no yaml parser in the standard library)."""
    m = re.search(rf"^{re.escape(key)}:\s*(\[[^\]]*\]|[-+0-9.e]+)", path.read_text(), re.M)
    return json.loads(m.group(1))


RULES = ROOT / "studies" / "rules"
MARGINS = rule_number(RULES / "analysis.yaml", "margins")        # [0.0, 0.05, 0.1]
MARGIN = rule_number(RULES / "analysis.yaml", "margin")          # 0.05, the primary one
SMALLEST_MOVE = rule_number(RULES / "analysis.yaml", "smallest_edge_move")  # 0.5 decades
MECH_SEEDS = rule_number(RULES / "mechanism.yaml", "seeds")      # [0, 1]


# ------------------------------------------------------------------------------------------- formatting
def g(x, d=3):
    """A number to d significant figures; None (an open side) as '-'; infinities by sign."""
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:.{d}g}"


def sf2(x):
    """Two significant figures with trailing zeros kept (0.0070, not 0.007), as the README writes them."""
    return "-" if x is None else f"{x:#.2g}".rstrip(".")


def twice_rounded(x):
    """x rounded to 3 significant figures, then that decimal rounded half-up to 2 (a double rounding)."""
    d3 = Decimal(f"{x:.3g}")
    return d3.quantize(Decimal(1).scaleb(d3.adjusted() - 1), rounding=ROUND_HALF_UP)


def bracket(lo, hi, d=3):
    """A closed or open interval: an open side is written as '(' or ')' with '...'."""
    fmt = sf2 if d == 2 else (lambda x: g(x, d))
    left = f"[{fmt(lo)}" if lo is not None else "(..."
    right = f"{fmt(hi)}]" if hi is not None else "...)"
    return f"{left}, {right}"


# ------------------------------------------------------------------------------------------ entropies
def val_tokens(path, n):
    """The tokens of val.bin as the model sees them (analysis.yaml `entropies`).

    The plain bytes of the file are not those tokens: the data cache's meta.json for this split records
    1,000 docs, 788,232 text bytes and eot 0, i.e. the text is cut into documents at <|endoftext|>, each
    stripped of surrounding whitespace, encoded as UTF-8 bytes and followed by the end-of-text token 0.
    (Verified once against the cached val.bin: identical, sha256 d0738561...; this script reads the text.)
    """
    text = path.read_text(encoding="utf-8")
    toks = []
    for doc in text.split("<|endoftext|>"):
        doc = doc.strip()
        if doc:
            toks.extend(doc.encode("utf-8"))
            toks.append(0)
    return np.asarray(toks[:n], dtype=np.int64)


def entropy(counts):
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def unigram_bigram(tokens):
    """H1 = H(X); H2 = H(X_t+1 | X_t) = H(pairs) - H(first of each pair), over the n-1 adjacent pairs."""
    h1 = entropy(np.bincount(tokens, minlength=256))
    pairs = np.bincount(tokens[:-1] * 256 + tokens[1:], minlength=256 * 256)
    h2 = entropy(pairs) - entropy(np.bincount(tokens[:-1], minlength=256))
    return h1, h2


def file_entropies(folder):
    """(h1, h2) from a rung's entropies.json, or None."""
    p = folder / "entropies.json"
    if not p.exists():
        return None
    entry = next(iter(json.loads(p.read_text()).values()))
    return entry["h1"], entry["h2"]


# ------------------------------------------------------------------------------------------- the runs
class Run:
    """One ended cell: the rule's loss, l0, whether it failed, and its capped loss."""

    def __init__(self, name, cfg, summ, folder):
        self.name, self.folder = name, folder
        self.arm = arm_of(cfg)
        self.lr, self.seed = float(cfg["lr"]), int(cfg["seed"])
        self.l0 = float(summ["l0"])
        self.status = summ.get("status")
        self.wall_time = summ.get("wall_time") or 0.0
        full = summ.get("final_val_loss_full")
        # analysis.yaml `loss` / `loss_fallback`: the full evaluation, else the short final one
        self.short_eval = not summ.get("final_val_tokens") or full is None
        loss = summ.get("final_val_loss") if self.short_eval else full
        self.loss = float("nan") if loss is None else float(loss)
        # `failed`: non-finite or >= l0. A run the trainer stopped as diverged (non-finite training
        # loss) also counts as failed, whatever short evaluation it left behind.
        self.failed = (not math.isfinite(self.loss)) or self.loss >= self.l0 or self.status == "diverged"
        self.capped = self.l0 if self.failed else self.loss


def arm_of(cfg):
    """The arm of a cell: its qk_norm, or an explicit arm field if a study writes one."""
    if "arm" in cfg:
        return cfg["arm"]
    qk = cfg["qk_norm"]
    if qk == "layernorm" and float(cfg.get("z_loss") or 0) > 0:
        return "layernorm_zloss"  # an arms table may express the z-loss arm this way
    return qk


def load_study(folder):
    """(runs that ended, cells listed but not ended, number listed); only cells in study.json count."""
    cells = json.loads((folder / "study.json").read_text())["cells"]
    runs, pending = [], []
    for name, cfg in cells.items():
        p = folder / name / "summary.json"
        if p.exists():
            runs.append(Run(name, cfg, json.loads(p.read_text()), folder / name))
        else:
            pending.append((arm_of(cfg), float(cfg["lr"]), int(cfg["seed"])))
    return runs, sorted(pending), len(cells)


def select(runs, arm=None, lr=None, seed=None):
    return [r for r in runs if (arm is None or r.arm == arm) and (lr is None or r.lr == lr)
            and (seed is None or r.seed == seed)]


def lrs_of(runs, arm=None):
    return sorted({r.lr for r in runs if arm is None or r.arm == arm})


def seed_mean(runs, arm, lr):
    """Seed-mean capped loss (a failed run counts as l0) over every ended seed; None if none ended."""
    rs = select(runs, arm, lr)
    return float(np.mean([r.capped for r in rs])) if rs else None


def best(runs):
    """analysis.yaml `best`: l*, the best seed-mean capped loss of any arm at any LR of the group."""
    cands = [(seed_mean(runs, a, lr), a, lr) for a in sorted({r.arm for r in runs}) for lr in lrs_of(runs, a)]
    return min(cands)


def arm_best_lr(runs, arm):
    """The arm's own best LR: the LR of its lowest seed-mean capped loss."""
    return min((seed_mean(runs, arm, lr), lr) for lr in lrs_of(runs, arm))[1]


def bars(lstar, h1, h2):
    """analysis.yaml `criteria`: the four usefulness bars."""
    return {"half_gap": (lstar + h1) / 2, "best_plus_0.5": lstar + 0.5, "bigram": h2, "unigram": h1}


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
    probes = []
    with open(run.folder / "metrics.jsonl") as f:
        for line in f:
            rec = json.loads(line)
            if "max_logit" in rec:
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
                s = json.loads((r.folder / "summary.json").read_text())
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
def report_rung(name, h1, h2):
    folder = LADDER / name
    runs, pending, listed = load_study(folder)
    print(f"\n=== {name}: {len(runs)}/{listed} cells ended, {sum(r.failed for r in runs)} failed "
          f"({', '.join(f'{a} {sum(r.failed for r in select(runs, a))}' for a in (OFF, ON))})")
    if pending:
        print("  not ended yet: " + "; ".join(
            f"{a} LR {g(lr)} seeds {[s for b, l, s in pending if (b, l) == (a, lr)]}"
            for a, lr in sorted({(a, lr) for a, lr, _ in pending})))
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

    results = {}
    for crit in CRITERIA:
        bar = bs[crit]
        print(f"  -- criterion {crit} (bar {bar:.4f})")
        for margin in MARGINS:
            grp, per_seed, (ilo, ihi), points, skipped, common = necessity(runs, bar, margin)
            if margin == MARGINS[0]:
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
            fail, useless, b = arm_edges(runs, a, bar)
            print(f"     {a:<9} failure edge {fmt_edge(fail)}")
            print(f"     {'':<9} not-useful edge (LRs >= own best {g(b)}) {fmt_edge(useless)}")
    if name == "steps-s6100":
        print("  mechanism table (seed means; max over the run's probes and layers unless 'last'):")
        mechanism_table(runs, (OFF, ON))
    return results


# ---------------------------------------------------------------------------------- mechanism study
def edge_move(a, b):
    """analysis.yaml `edge_move`: interval in decades of B's edge against A's, and the verdict."""
    (lo_a, hi_a, _), (lo_b, hi_b, _) = a, b
    lower = math.log10(lo_b / hi_a) if lo_b is not None and hi_a is not None else -math.inf
    upper = math.log10(hi_b / lo_a) if hi_b is not None and lo_a is not None else math.inf
    if lower > 0 or upper < 0:
        verdict = f"supported (the edge moves {'up' if lower > 0 else 'down'})"
    elif -SMALLEST_MOVE < lower and upper < SMALLEST_MOVE:
        verdict = "not supported (bounded inside +-0.5 decades)"
    else:
        verdict = "inconclusive"
    return lower, upper, verdict


def report_mechanism(folder, h1, h2):
    print(f"\n=== mechanism study ({folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder})")
    if not (folder / "study.json").exists():
        print("  does not exist yet (no study.json): the two questions of studies/rules/mechanism.yaml are not answered")
        return
    runs, pending, listed = load_study(folder)
    complete = len(runs) == listed  # the rule reads the study once every cell has ended
    # the arms the study holds (mechanism-gains-tinystories, the refinement, holds only layernorm and layernorm_nogain)
    arms = [a for a in ("none", "layernorm", "layernorm_nogain", "layernorm_zloss") if select(runs, a) or
            any(p[0] == a for p in pending)]
    print(f"  {len(runs)}/{listed} cells ended; arms found: {sorted({r.arm for r in runs})}")
    # mechanism.yaml `group` (and mechanism-gains.yaml's): seeds 0 and 1 only, and the LRs at which every arm ended both seeds
    runs = [r for r in runs if r.seed in MECH_SEEDS and r.arm in arms]
    lrs = [lr for lr in lrs_of(runs) if all(select(runs, a, lr, s) for a in arms for s in MECH_SEEDS)]
    runs = [r for r in runs if r.lr in lrs]
    if not runs:
        print("  no LR has both seeds of every arm ended yet")
        return
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
    print("  measures (seed means):")
    mechanism_table(runs, arms)
    return answers if complete else None


def say_found(label, want, text, where="the bullet"):
    """Print whether every string of `want` appears in `text`: "reproduced", or which are missing from `where`."""
    missing = [w for w in want if w not in text]
    print(f"  {label}{', '.join(want)}: " + ("reproduced" if not missing else f"DIFFERS (not in {where}: {missing})"))


def quoting_bullet(start, complete, what, path=README):
    """The README bullet starting `start`, to be checked against `what`; None (said why) when there is no such
    bullet, or when it quotes a study not every cell of which has ended (`complete` False)."""
    bullet = readme_bullet(start, path)
    if bullet is None:
        print(f"  no README bullet starting {start!r}" + (f": {what} is not quoted" if complete else ""))
    elif not complete:
        print(f"  the README quotes {what}, but not every one of its cells has ended: NOT CHECKED")
        return None
    return bullet


def readme_mechanism(answers, path=README):
    """Check the README's mechanism bullet: each question's two brackets (LayerNorm's and the arm's) and its move
    with the verdict word ("[lo, hi] decades: verdict"), under the rule's criterion, must appear in it as written here."""
    bullet = quoting_bullet(README_MECH, answers is not None, "the mechanism study", path)
    if bullet is None:
        return
    for arm, (ref, mine, lo, hi, verdict) in answers.items():
        want = [bracket(ref[0], ref[1]), bracket(mine[0], mine[1]), f"[{lo:+.2f}, {hi:+.2f}] decades: {verdict.split(' (')[0]}"]
        say_found(f"{arm}: ", want, bullet)


# ---------------------------------------------------------------------------------- README headline
README_HEAD = "**The answer at the seed's length.**"  # the README paragraph whose numbers are checked


def sci2(x):
    """Two significant figures in the README's short scientific form: 58800 -> '5.9e4'."""
    m, e = f"{x:.1e}".split("e")
    return f"{m}e{int(e)}"


def headline_numbers(results, h1, h2, mech=MECH):
    """[(where, what, text)]: each number the README's headline paragraph (where "head") and its mechanism bullet
    ("mech") quote, written as they write it. From the 6,100-step rung (three seeds; the probe measures as seed
    medians, as the pages show them) and the mechanism study (seeds 0 and 1, seed means)."""
    runs, _, _ = load_study(LADDER / "steps-s6100")
    grp, ilo, ihi = results["steps-s6100"][(PRIMARY, MARGIN)]
    lstar = best(runs)[0]
    out = [("head", "threshold at 6,100 steps", f"{sf2(grp['value'])} {bracket(ilo, ihi, 2)}")]
    points = {sf2(results["steps-s6100"][(c, MARGIN)][0]["value"]) for c in CRITERIA}
    out.append(("head", "the point under every bar of the family", "The threshold's point is the same under every usefulness bar"
                if points == {sf2(grp["value"])} else f"(differs across the bars: {sorted(points)})"))
    gaps = {lr: seed_mean(runs, OFF, lr) - seed_mean(runs, ON, lr) for lr in lrs_of(runs)}
    below = {lr: x for lr, x in gaps.items() if lr < grp["value"]}
    lo_lr = min(below)
    ahead = min(below, key=below.get)  # where the off arm is furthest ahead
    out += [("head", "largest |gap| below the threshold, rounded up", f"within {math.ceil(max(map(abs, below.values())) * 100) / 100:g} nats"),
            ("head", "gap at the lowest LR", f"{below[lo_lr]:.3f} behind at the lowest LR, {g(lo_lr)}"),
            ("head", "largest lead of the off arm below the threshold", f"{-below[ahead]:.3f} ahead at {g(ahead)}")]
    above = [gaps[lr] for lr in lrs_of(runs) if 0.1 <= lr <= 0.3]
    out.append(("head", "gap from LR 0.1 to 0.3", f"gap is {min(above):.1f} to {max(above):.1f} nats (LR 0.1 to 0.3)"))
    uni = necessity(runs, bars(lstar, h1, h2)["unigram"], MARGIN)
    out.append(("head", "interval under the unigram bar", f"unigram bar widens its interval to {bracket(uni[2][0], uni[2][1], 2)}"))

    def med(arm, lr, key):
        return median_or_none([probe_measures(r)[key] for r in select(runs, arm, lr)])
    blr = arm_best_lr(runs, OFF)  # the off arm's own best LR
    out += [("head", "off arm's largest logit at its best LR", f"from {sf2(med(OFF, blr, 'max_logit'))} at the best LR ({g(blr)})"),
            ("head", "off arm's largest logit at 0.1", f"to {sci2(med(OFF, 0.1, 'max_logit'))} at 0.1"),
            ("head", "LayerNorm's gains (last probe)", ", ".join(f"{sf2(med(ON, lr, 'last_gain'))} at {g(lr)}" for lr in (0.01, 0.1, 0.548))),
            ("head", "LayerNorm's largest logit at 0.548", f"logits reach {sci2(med(ON, 0.548, 'max_logit'))} at 0.548")]
    s300 = results["steps-s300"][(PRIMARY, MARGIN)]
    out += [("head", "300-step threshold", f"{sf2(s300[0]['value'])} {bracket(s300[1], s300[2], 2)} at 300 steps"),
            ("head", "ratio of the thresholds", f"about {round(grp['value'] / s300[0]['value'])} times higher")]
    if (mech / "study.json").exists():
        mruns, _, _ = load_study(mech)
        mruns = [r for r in mruns if r.seed in MECH_SEEDS]
        cfg = json.loads((mech / "study.json").read_text())["fixed"]  # the shape the fixed-gain arm ran at
        bound = f"{math.sqrt(cfg['n_embd'] / cfg['n_head']):.2f}"

        def mmean(arm, lr, key):
            return mean_or_none([probe_measures(r)[key] for r in select(mruns, arm, lr)])

        def zmax(arm, lr, failed):  # the largest log Z of a seed that failed (or did not)
            return max(probe_measures(r)["max_log_z"] for r in select(mruns, arm, lr) if r.failed == failed)
        nog = [probe_measures(r)["max_logit"] for r in select(mruns, "layernorm_nogain")]
        out += [("head", "the bound of fixed gains", f"√head_dim = {bound}"),
                ("head", "losses at 0.548 (mechanism, seed means)",
                 f"({seed_mean(mruns, 'layernorm_nogain', 0.548):.2f} nats against LayerNorm's {seed_mean(mruns, ON, 0.548):.2f})"),
                ("mech", "the bound of fixed gains", f"√head_dim ({bound};"),
                ("mech", "largest logit of the fixed-gain arm", f"the largest observed is {max(x for x in nog if x is not None):.2f}"),
                ("mech", "fixed-gain log Z", f"reaches {g(mmean('layernorm_nogain', 3, 'max_log_z'))} at LR 3 and "
                                             f"{g(mmean('layernorm_nogain', 10, 'max_log_z'))} at 10"),
                ("mech", "the failing fixed-gain seed's log Z at 10", f"the seed that fails reaches {g(zmax('layernorm_nogain', 10, True))}"),
                ("mech", "LayerNorm's largest log Z at 10 (no seed fails)", f"a LayerNorm seed reaches {g(zmax(ON, 10, False))} at 10 without failing")]
    return out


def readme_headline(numbers, path=README):
    """Each number must appear, as written here, in the README text it belongs to: the headline paragraph or the mechanism bullet."""
    texts = {"head": readme_bullet(README_HEAD, path, until="\n\n") or "", "mech": readme_bullet(README_MECH, path) or ""}
    for where, what, want in numbers:
        print(f"  {what}: {want!r}: " + ("reproduced" if want in texts[where] else
                                        f"NOT FOUND in the README's {'headline' if where == 'head' else 'mechanism bullet'} as written here"))


# ---------------------------------------------------------------------------------- core-shape check
CHECK_PRED = LADDER / "prediction-core-ts-s6100.json"
README_CHECK = "**The core shape at 6,100 steps"  # the README bullet whose check score is checked


def report_check(folder=None, pred_path=CHECK_PRED, h1=None, h2=None):
    """The core-shape check (6 layers, d=192, 6,100 steps): its necessity threshold under the rule, read on the
    check's own cells exactly as a rung's (l* the best of the check), against the committed prediction.

    Two scores: the methods page's (the observed threshold inside the predicted [lo, hi]) and bracket overlap
    (the observed interval meets the predicted one). Returns a dict once every listed cell has ended, else None.
    """
    print("\n=== core-shape check")
    if not pred_path.exists():
        print(f"  no prediction ({pred_path.name}): nothing to check")
        return None
    pred = json.loads(pred_path.read_text())
    p = pred["quantities"]["necessity"][ON]
    print(f"  predicted necessity threshold {g(p['value'])} [{g(p['lo'])}, {g(p['hi'])}] (made {pred['made_at']}); "
          f"check LRs {pred['check']['lrs']}, seeds {pred['check']['seeds']}")
    if folder is None:  # the check's folder is named from the prediction file's bytes: <target>-check-<sha256[:8]>
        folder = LADDER / f"{pred['target']['name']}-check-{hashlib.sha256(pred_path.read_bytes()).hexdigest()[:8]}"
    if not (folder / "study.json").exists():
        print("  the check has not started (no folder with a study.json)")
        return None
    runs, pending, listed = load_study(folder)
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
    return dict(group=grp, lo=ilo, hi=ihi, point=words.split(" (")[0], overlap=overlap, pred=p, means=means,
                cpu_h=cpu_h, n=listed)


def readme_check(res, path=README):
    """Check the README's core-check bullet: the observed threshold and interval (2 s.f.), the predicted interval
    (2 s.f.), the methods rule's score written "point inside" / "point outside" / "point not scored", the
    overlap written "brackets overlap" / "brackets do not overlap", and each check LR's seed means written
    "off / LayerNorm at LR" (2 decimals), the predicted interval's width in decades and the point's distance from
    the predicted point in decades, and the check's CPU-hours, must appear in it as derived here. Where the headline paragraph
    names the core shape, the observed threshold, its interval and the predicted interval must appear there too."""
    bullet = quoting_bullet(README_CHECK, res is not None, "the core-shape check", path)
    if bullet is None:
        return
    grp, p = res["group"], res["pred"]
    obs = (f"{sf2(grp['value'])} " if grp["value"] is not None else "") + bracket(res["lo"], res["hi"], 2)
    want = [obs, bracket(p["lo"], p["hi"], 2), f"point {res['point']}",
            "brackets overlap" if res["overlap"] else "brackets do not overlap"]
    want += [f"{m[0]:.2f} / {m[1]:.2f} at {g(lr)}" for lr, m in res["means"].items()]
    want.append(f"{math.log10(p['hi'] / p['lo']):.1f} decades wide")  # how much the prediction risked
    want.append(f"{res['cpu_h']:.1f} CPU-hours for its {res['n']}")
    if grp["value"] is not None:  # how far the point fell from the predicted one
        d = math.log10(grp["value"] / p["value"])
        want.append(f"{abs(d):.2f} decades {'below' if d < 0 else 'above'} the predicted {sf2(p['value'])}")
    say_found("", want, bullet)
    head = readme_bullet(README_HEAD, path, until="\n\n") or ""
    if "core shape" in head:
        say_found("headline: ", want[:2], head, "the headline")


# ----------------------------------------------------------------------------------------------- main
def main():
    mech = Path(sys.argv[1]) if len(sys.argv) > 1 else MECH  # another folder, to exercise that code
    print(f"rule: margins {MARGINS}, primary margin {MARGIN}, primary criterion {PRIMARY}, "
          f"smallest edge move {SMALLEST_MOVE} decades")
    n = 786432  # the rungs' val_tokens (checked per rung below)
    if VAL_TEXT.exists():
        h1, h2 = unigram_bigram(val_tokens(VAL_TEXT, n))
        print(f"H1, H2 recomputed from {VAL_TEXT.name} (first {n} tokens): {h1:.6f}, {h2:.6f}; rule file: 3.05, 2.30")
    else:  # a checkout without the text beside it: the bars come from the record, and say so
        h1, h2 = file_entropies(LADDER / RUNGS[0])
        print(f"H1, H2 from {RUNGS[0]}/entropies.json (not recomputed: {VAL_TEXT} is absent): {h1:.6f}, {h2:.6f}")
    for name in RUNGS:
        cfg_tokens = {c["val_tokens"] for c in json.loads((LADDER / name / "study.json").read_text())["cells"].values()}
        fe = file_entropies(LADDER / name)
        print(f"  {name}: val_tokens {sorted(cfg_tokens)}; entropies.json: "
              + (f"{fe[0]:.6f}, {fe[1]:.6f}" if fe else "absent"))
    results = {name: report_rung(name, h1, h2) for name in RUNGS}

    print("\n=== README check (half_gap, margin 0.05; 2 significant figures)")
    quoted = readme_thresholds()
    if not quoted:
        print(f"  no thresholds found in the README bullet starting {README_BULLET!r}")
    for name, (val, lo, hi) in quoted.items():
        grp, ilo, ihi = results[name][(PRIMARY, MARGIN)]
        mine = (sf2(grp["value"]), sf2(ilo), sf2(ihi))
        ok = "reproduced" if mine == (val, lo, hi) else "DIFFERS"
        print(f"  {name}: README {val} [{lo}, {hi}]  here {mine[0]} [{mine[1]}, {mine[2]}]  {ok}"
              f"   (full digits {grp['value']!r} [{ilo!r}, {ihi!r}])")
        if mine[0] != val and twice_rounded(grp["value"]) == Decimal(val):
            print(f"    the README's {val} is {grp['value']:.3g} (3 s.f.) rounded again: {grp['value']!r} "
                  f"rounds to {mine[0]} at 2 s.f.")
    # The package's own thresholds, recorded as the basis of the 6,100-step prediction: compared, not used
    pred = LADDER / "predictions" / "steps-s6100.json"
    if pred.exists():
        d = json.loads(pred.read_text())
        rec = d["quantities"]["necessity"]["layernorm"]["at_rungs"]
        names = [b["name"] for b in d["basis"]["rungs"]]
        for name, v in zip(names, rec):
            mine = results[name][(PRIMARY, MARGIN)][0]["value"]
            print(f"  {name}: predictions/steps-s6100.json records {v!r}; here {mine!r}")

    answers = report_mechanism(mech, h1, h2)
    # The gains question again on a finer grid (studies/rules/mechanism-gains.yaml): once complete, its answer replaces
    # the mechanism study's for that question, so the README must quote it
    fine = report_mechanism(GAINS, h1, h2) if (GAINS / "study.json").exists() else None
    if answers is not None and fine:
        answers = dict(answers, **fine)
        print("  (the README check below reads the gains answer of the finer grid)")
    print("\n=== README check: the mechanism study (half_gap)")
    readme_mechanism(answers)

    print("\n=== README check: the headline paragraph's numbers")
    readme_headline(headline_numbers(results, h1, h2, mech))

    res = report_check(h1=h1, h2=h2)
    print("\n=== README check: the core-shape check (half_gap, margin 0.05)")
    readme_check(res)


if __name__ == "__main__":
    main()
