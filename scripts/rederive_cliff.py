"""The cliff's statistics, from their definitions (studies/rules/analysis.yaml, sections `collapse` and `cliff`), for
scripts/rederive_natural.py: the exact (Clopper-Pearson) interval of a fraction k of n, the maximum-likelihood logistic
fit of P(collapse) on log10 LR with its Wald band on the logit, the three LRs a builder reads from that band
(the P = 0.5 LR with its interval, "safe below", "needed from"), and Student's t for a difference of seed means (the
rule's `intervals`: paired t or Welch).

Why a sibling module and not more of rederive_natural.py: these are pure functions of numbers (no file is read here,
nothing here knows a run folder), so they can be checked on their own against known values (`self_test`, run by
`python scripts/rederive_natural.py --self-test`), and the long script keeps to reading runs and checking the README.
Like that script it imports only the standard library and numpy, never `qknorm_nb`: it is written from the rule's
words, with the package's grid conventions (nbs/05e_questions_cliff.ipynb) restated below where the rule leaves a choice open.
"""
import math
from statistics import NormalDist

import numpy as np


# ------------------------------------------------------------------------------------- a fraction k of n
def binom_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p); 0 for k < 0."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def bisect(f, target, increasing):
    """The p in [0, 1] where the monotone f(p) crosses target (60 halvings: far below any printed digit)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k, n, level):
    """The exact two-sided interval (lo, hi) of a binomial fraction k/n at `level` (analysis.yaml `intervals.binomial`):
    lo is the p at which seeing k or more is exactly (1 - level)/2 likely, hi the p at which seeing k or fewer is."""
    if not (0 <= k <= n and n >= 1):
        raise ValueError(f"k={k}, n={n}: need 0 <= k <= n and n >= 1")
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else bisect(lambda p: 1 - binom_cdf(k - 1, n, p), a, increasing=True)
    hi = 1.0 if k == n else bisect(lambda p: binom_cdf(k, n, p), a, increasing=False)
    return lo, hi


# --------------------------------------------------------------------------------------- the logistic fit
def logistic_fit(x, y):
    """P(y = 1 | x) = sigmoid(a + b (x - xc)) by maximum likelihood (Newton's method, x centred at its mean).

    Returns a dict with `kind`: 'no flip' (every y the same), 'one LR' (one x: no slope), 'separated' (at most one x
    mixes outcomes: the likelihood rises for ever with the slope, so no fit exists; x_ok / x_bad are the last x where
    every run trained and the first where every run collapsed), or 'logistic' with a, b, xc and cov (the inverse
    Fisher information at the maximum)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    out = dict(xs=np.unique(x), n=len(x), k=int(y.sum()))
    if y.min() == y.max():
        return dict(out, kind="no flip")
    if len(out["xs"]) < 2:
        return dict(out, kind="one LR")
    top_ok, low_bad = x[y == 0].max(), x[y == 1].min()
    if top_ok <= low_bad:  # every trained run at or below every collapsed one: no finite maximum
        ux = out["xs"]
        ok, bad = ux[ux < low_bad], ux[ux > top_ok]
        return dict(out, kind="separated", x_ok=ok.max() if len(ok) else low_bad, x_bad=bad.min() if len(bad) else top_ok)
    xc = float(x.mean())
    X = np.stack([np.ones_like(x), x - xc], 1)
    w = np.zeros(2)

    def info(w):
        p = 1 / (1 + np.exp(-(X @ w)))
        return p, X.T @ (X * (p * (1 - p))[:, None])

    for _ in range(200):
        p, I = info(w)
        step = np.linalg.solve(I, X.T @ (y - p))
        w = w + step
        if np.abs(step).max() < 1e-12:
            break
    _, I = info(w)  # the information at the maximum itself
    return dict(out, kind="logistic", a=float(w[0]), b=float(w[1]), xc=xc, cov=np.linalg.inv(I))


def band(fit, x, level):
    """(p, lo, hi) of the fit at the points x (log10 LR): the two-sided Wald band at `level`, on the logit."""
    x = np.atleast_1d(np.asarray(x, float)) - fit["xc"]
    eta = fit["a"] + fit["b"] * x
    c = fit["cov"]
    se = np.sqrt(c[0, 0] + 2 * x * c[0, 1] + x * x * c[1, 1])
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    s = lambda e: 1 / (1 + np.exp(-e))
    return s(eta), s(eta - z * se), s(eta + z * se)


def grid(fit, step):
    """The rule's `search_step` grid: from the smallest to the largest fitted log10 LR, `step` decades apart (the
    package's np.arange(min, max + step/2, step): the largest point lies within half a step of the top LR)."""
    lo, hi = float(fit["xs"].min()), float(fit["xs"].max())
    return lo + step * np.arange(int(math.ceil((hi - lo) / step + 0.5)))


# ------------------------------------------------------------------------------- the LRs a builder reads
def exp10(x):
    """An LR from its log10: infinity where a nearly flat fit puts it beyond any float (not an OverflowError)."""
    return math.inf if x > 300 else 10 ** x


def lr50(fit, level, step):
    """The P = 0.5 LR and its interval: the grid LRs at which the `level` band contains 0.5 (an end at the grid's end is
    open). A separated sample has no fit: the bracket between the last all-trained and the first all-collapsed LR, its
    point their geometric midpoint (the rule's `lr50`)."""
    if fit["kind"] == "separated":
        return dict(lr50=10 ** ((fit["x_ok"] + fit["x_bad"]) / 2), lo=10 ** fit["x_ok"], hi=10 ** fit["x_bad"],
                    open_lo=False, open_hi=False)
    xg = grid(fit, step)
    _, lo, hi = band(fit, xg, level)
    inside = xg[(lo <= 0.5) & (hi >= 0.5)]
    x50 = fit["xc"] - fit["a"] / fit["b"] if fit["b"] > 0 else math.nan
    r50 = exp10(x50)
    if not len(inside):
        return dict(lr50=r50, lo=None, hi=None, open_lo=True, open_hi=True)
    return dict(lr50=r50, lo=float(10 ** inside.min()), hi=float(10 ** inside.max()),
                open_lo=bool(inside.min() <= xg[0]), open_hi=bool(inside.max() >= xg[-1]))


def safe_needed(fit, safe_level, safe_p, needed_p, step):
    """("safe below", "needed from") on the `safe_level` band, as LRs (None where the data do not show one).

    Safe below: walking up the grid from the lowest fitted LR, the last grid LR before the band's upper end first
    reaches safe_p (every grid LR, when it never does; None when it is not under safe_p even at the lowest).
    Needed from: the grid LR after the last one at which the band's lower end is at or under needed_p (the lowest
    grid LR when there is none; None when that last one is the top of the grid)."""
    xg = grid(fit, step)
    _, lo, hi = band(fit, xg, safe_level)
    up = np.flatnonzero(hi >= safe_p)
    safe = None if up.size and up[0] == 0 else 10 ** xg[(up[0] if up.size else len(xg)) - 1]
    down = np.flatnonzero(lo <= needed_p)
    if not down.size:
        needed = 10 ** xg[0]
    else:
        needed = 10 ** xg[down[-1] + 1] if down[-1] + 1 < len(xg) else None
    return (None if safe is None else float(safe)), (None if needed is None else float(needed))


# ------------------------------------------------------------------------------ a difference of seed means
def t_cdf(t, df):
    """P(T <= t) for Student's t with a whole number df >= 1, in closed form (Abramowitz & Stegun 26.7.3-4): with
    th = atan(t / sqrt(df)), P(|T| < t) is a finite series in cos(th), odd and even df apart."""
    th = math.atan(abs(t) / math.sqrt(df))
    c2, term, s = math.cos(th) ** 2, 1.0, 1.0
    if df % 2:  # odd: (2/pi)(th + sin cos (1 + 2/3 c2 + 2*4/(3*5) c2^2 + ...)), the series up to cos^(df-3)
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            s += term
        a = 2 / math.pi * (th + (math.sin(th) * math.cos(th) * s if df > 1 else 0.0))
    else:       # even: sin (1 + 1/2 c2 + 1*3/(2*4) c2^2 + ...), the series up to cos^(df-2)
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            s += term
        a = math.sin(th) * s
    return 0.5 + a / 2 if t >= 0 else 0.5 - a / 2


def t_quantile(p, df):
    """The t with P(T <= t) = p (0.5 < p < 1), by halving an interval that holds it (80 halvings)."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def mean_diff(a, b, level):
    """mean(a) - mean(b) over every seed of each with its two-sided interval at `level`, as the rule's `intervals`
    names it (and nbs/04d_verdicts `arm_diff` computes it): paired t when both ran the same seeds (dicts seed -> value)
    and, over three or more seeds, their values correlate positively; else Welch's, its Welch-Satterthwaite df rounded
    down. Returns (diff, lo, hi, method)."""
    xa, xb = np.array(list(a.values()), float), np.array(list(b.values()), float)
    d, q = float(xa.mean() - xb.mean()), 1 - (1 - level) / 2
    same = sorted(a) == sorted(b)
    if same and len(a) >= 3:
        ya, yb = np.array([a[s] for s in sorted(a)]), np.array([b[s] for s in sorted(a)])
        if ya.std() > 0 and yb.std() > 0 and np.corrcoef(ya, yb)[0, 1] > 0:
            x = ya - yb
            h = t_quantile(q, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
            return d, d - h, d + h, "paired"
    va, vb = xa.var(ddof=1) / len(xa), xb.var(ddof=1) / len(xb)
    df = (va + vb) ** 2 / (va ** 2 / (len(xa) - 1) + vb ** 2 / (len(xb) - 1))
    h = t_quantile(q, max(1, math.floor(df))) * math.sqrt(va + vb)
    return d, d - h, d + h, "welch"


# ------------------------------------------------------------------------------------------- the self-test
def self_test():
    """Check the statistics against known values; print one line each; return the number that failed."""
    bad = []

    def check(what, got, want, tol=1e-4):
        ok = (got is None and want is None) or (got is not None and want is not None and
                                                np.shape(got) == np.shape(want) and
                                                np.allclose(np.asarray(got, float), np.asarray(want, float), rtol=0, atol=tol))
        print(f"  {'ok  ' if ok else 'FAIL'} {what}: {got} (known {want})")
        if not ok:
            bad.append(what)

    # Clopper-Pearson: the textbook values, and the closed forms at k = 0 (hi = 1 - (a/2)^(1/n)) and k = n
    check("CP 0 of 10 at 95%", clopper_pearson(0, 10, 0.95), (0.0, 1 - 0.025 ** 0.1))
    check("CP 3 of 10 at 95%", clopper_pearson(3, 10, 0.95), (0.066739, 0.652453))
    check("CP 9 of 10 at 95%", clopper_pearson(9, 10, 0.95), (0.554984, 0.997471))
    check("CP 10 of 10 at 95%", clopper_pearson(10, 10, 0.95), (0.025 ** 0.1, 1.0))
    check("CP 0 of 10 at 90%", clopper_pearson(0, 10, 0.90)[1], 0.258866)
    check("CP 1 of 2 at 95%", clopper_pearson(1, 2, 0.95), (0.012579, 0.987421))
    try:
        clopper_pearson(4, 3, 0.95)
        check("CP 4 of 3 refused", "accepted", "refused")
    except ValueError:
        check("CP 4 of 3 refused", 1, 1)

    # The logistic fit on a saturated design, whose maximum is known in closed form: at x = 0, 1 of 4 collapsed; at
    # x = 1, 3 of 4. The fit passes through both fractions, so b = logit(3/4) - logit(1/4) = 2 ln 3, the P = 0.5 point
    # is x = 0.5, and the Wald variance of each fraction's logit is 1 / (n p (1 - p)) = 4/3.
    x = [0] * 4 + [1] * 4
    y = [1, 0, 0, 0, 1, 1, 1, 0]
    f = logistic_fit(x, y)
    check("fit kind", f["kind"] == "logistic", True)
    check("fit slope b = 2 ln 3", f["b"], 2 * math.log(3), 1e-9)
    check("fit P = 0.5 at x = 0.5", f["xc"] - f["a"] / f["b"], 0.5, 1e-9)
    check("fit var(b) = 8/3", f["cov"][1, 1], 8 / 3, 1e-9)
    z = NormalDist().inv_cdf(0.975)
    s = lambda e: 1 / (1 + math.exp(-e))
    check("95% band at x = 0", tuple(float(v[0]) for v in band(f, [0.0], 0.95)), (0.25, s(-math.log(3) - z * math.sqrt(4 / 3)),
                                                     s(-math.log(3) + z * math.sqrt(4 / 3))), 1e-9)
    check("separated: no fit", logistic_fit([0, 0, 1, 1], [0, 0, 1, 1])["kind"] == "separated", True)
    q = logistic_fit([0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1])  # one x mixes: quasi-separated, no finite maximum either
    check("quasi-separated: the bracket", (q["kind"] == "separated", q["x_ok"], q["x_bad"]), (True, 0, 2))
    check("no flip", logistic_fit([0, 1], [0, 0])["kind"] == "no flip", True)
    check("one LR", logistic_fit([0, 0], [0, 1])["kind"] == "one LR", True)

    # The readings on the grid, on a fit with no uncertainty (cov = 0: the band is the curve) whose P crosses 0.1 at
    # x = -1.234: safe below is the last grid point under it, needed from the first above it, lr50 at x = 0
    b0 = 5.0
    a0 = -b0 * -1.234 + math.log(1 / 9)  # sigmoid(a0 + b0 x) = 0.1 at x = -1.234 (xc = 0)
    toy = dict(kind="logistic", xs=np.array([-2.0, 1.0]), a=a0, b=b0, xc=0.0, cov=np.zeros((2, 2)))
    safe, need = safe_needed(toy, 0.9, 0.1, 0.1, 0.01)
    check("safe below: the last grid point under P = 0.1", math.log10(safe), -1.24, 1e-9)
    check("needed from: the first grid point above P = 0.1", math.log10(need), -1.23, 1e-9)
    x50 = -a0 / b0
    check("lr50 of the toy", math.log10(lr50(toy, 0.95, 0.01)["lr50"]), x50, 1e-9)
    check("grid ends: 301 points from -2 to 1", (len(grid(toy, 0.01)), grid(toy, 0.01)[-1]), (301, 1.0), 1e-9)
    # a curve already above safe_p at the lowest LR has no "safe below"; one never above needed_p no "needed from"
    high = dict(toy, a=10.0)
    check("no safe below when P >= 0.1 at the lowest LR", safe_needed(high, 0.9, 0.1, 0.1, 0.01)[0], None)
    low = dict(toy, a=-30.0)
    check("no needed from when P <= 0.1 at the top", safe_needed(low, 0.9, 0.1, 0.1, 0.01)[1], None)
    # Student's t: tabulated quantiles (two-sided 95% and 90%), and the Cauchy case (df = 1) in closed form
    check("t 0.975 quantiles, df 1, 2, 3, 4, 10, 30", [t_quantile(0.975, k) for k in (1, 2, 3, 4, 10, 30)],
          [12.706205, 4.302653, 3.182446, 2.776445, 2.228139, 2.042272], 1e-5)
    check("t 0.95 quantile, df 5", t_quantile(0.95, 5), 2.015048, 1e-5)
    check("t cdf, df 1 (Cauchy) at 1", t_cdf(1.0, 1), 0.75, 1e-12)
    check("t cdf symmetric, df 6", t_cdf(-1.3, 6) + t_cdf(1.3, 6), 1.0, 1e-12)
    # Welch on two hand-computed samples: means 2 and 5, variances 1 and 4 (n 3 and 3): se = sqrt(1/3 + 4/3),
    # df = (5/3)^2 / ((1/9 + 16/9) / 2) = 2.94 -> 2; and a paired case (same seeds, correlated): the differences' t
    w = mean_diff({0: 1.0, 1: 2.0, 2: 3.0}, {3: 3.0, 4: 5.0, 5: 7.0}, 0.95)
    check("Welch, df 2.94 rounded down to 2", w[:3], (-3.0, -3.0 - 4.302653 * math.sqrt(5 / 3), -3.0 + 4.302653 * math.sqrt(5 / 3)), 1e-5)
    pd_ = mean_diff({0: 1.0, 1: 2.0, 2: 4.0}, {0: 2.0, 1: 3.5, 2: 5.0}, 0.95)
    check("paired on correlated seeds", (pd_[3] == "paired", pd_[0], pd_[2] - pd_[0]),
          (True, -7 / 6, 4.302653 * float(np.std([-1.0, -1.5, -1.0], ddof=1)) / math.sqrt(3)), 1e-5)
    print(f"self-test: {len(bad)} failed" + (f" ({'; '.join(bad)})" if bad else ""))
    return len(bad)
