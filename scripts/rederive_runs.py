"""The readers every re-derivation script shares: run folders, rule sections, the validation text's entropies, the bars
and the number formats.

scripts/rederive_natural.py (with rederive_ladder.py), rederive_depth.py and rederive_shift.py re-derive the published
numbers from the run folders and the rule's words without importing the `qknorm_nb` package; this module is what they
read with (the standard library and numpy only). Every reader refuses an input it cannot read with a `Refused` whose message names
the file, the field, the value and what is allowed. Nothing here holds state: each function takes the folder or file
it reads.
"""
import json
import math
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OFF, ON = "none", "layernorm"  # the two arms of the TinyStories studies
CRITERIA = ["half_gap", "best_plus_0.5", "bigram", "unigram"]  # analysis.yaml `criteria`
STATUSES = ("done", "diverged", "failed")  # what a summary.json may say: an ended cell


# ------------------------------------------------------------------------------------- paths and refusals
class Refused(Exception):
    """An input this script cannot read: the message names the file, the field, the value and what is allowed."""


def rel(p):
    """A path as the messages write it: relative to the repository when inside it."""
    p = Path(p)
    try:
        return str(p.resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def read_text(path):
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Refused(f"{rel(path)} does not exist") from None
    except IsADirectoryError:
        raise Refused(f"{rel(path)} is a folder, not a file") from None
    except UnicodeDecodeError as e:
        raise Refused(f"{rel(path)} is not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise Refused(f"{rel(path)} cannot be read ({e.strerror})") from None


def read_json(path, kind=dict):
    """The JSON object (or `kind`) in `path`; a Refused naming the file when it is missing, torn or of another kind."""
    text = read_text(path)
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise Refused(f"{rel(path)} is not valid JSON ({e.msg}, line {e.lineno}, column {e.colno}): a torn file?") from None
    if not isinstance(d, kind):
        raise Refused(f"{rel(path)} holds {json.dumps(d)[:40]}, not a JSON {'object' if kind is dict else kind.__name__}")
    return d


def need(path, d, key, ok, allowed, optional=False):
    """d[key] when ok(d[key]) (or absent/null when `optional`); else a Refused naming the file, key, value, what is allowed."""
    where = path if isinstance(path, str) else rel(path)
    if d.get(key) is None and optional:
        return None
    if key not in d:
        raise Refused(f"{where}: {key} is missing; it must be {allowed}")
    if not ok(d[key]):
        raise Refused(f"{where}: {key} is {d[key]!r}; it must be {allowed}")
    return d[key]


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def finite(x):
    return is_num(x) and math.isfinite(x)


def whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


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
    d = read_json(p)
    entry = next(iter(d.values()), None)
    if not isinstance(entry, dict) or not finite(entry.get("h1")) or not finite(entry.get("h2")):
        raise Refused(f"{rel(p)}: its entry is {json.dumps(entry)[:60]}; it must hold finite h1 and h2 (nats)")
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
        self.max_logit = summ.get("max_logit")  # None where the run recorded none
        self.n_params = summ.get("n_params")
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


def check_cell(path, name, cfg):
    """A cell's settings in study.json, checked: the fields every table sorts by."""
    where = f"{rel(path)}: cells.{name}"
    if not isinstance(cfg, dict):
        raise Refused(f"{where} is {cfg!r}; it must be a mapping of the cell's settings")
    if "arm" not in cfg:
        need(where, cfg, "qk_norm", lambda v: isinstance(v, str), "a string (the arm)")
    need(where, cfg, "lr", lambda v: finite(v) and v > 0, "a number > 0")
    need(where, cfg, "seed", whole, "a whole number")
    return cfg


def check_summary(path, s):
    """A summary.json a run could have written: a status in STATUSES; for a done or diverged run a finite l0, and
    numbers (or null) where the rule reads numbers."""
    need(path, s, "status", lambda v: v in STATUSES, f"one of {', '.join(map(repr, STATUSES))}")
    if s["status"] == "failed":
        return s  # no outcome: nothing else is read
    need(path, s, "l0", finite, "a finite number (the loss at initialisation)")
    for k in ("final_val_loss", "final_val_loss_full", "wall_time", "max_logit"):
        need(path, s, k, is_num, "a number or null", optional=True)
    for k in ("final_val_tokens", "n_params"):
        need(path, s, k, whole, "a whole number or null", optional=True)
    full = s.get("final_val_tokens") and s.get("final_val_loss_full") is not None
    if s["status"] == "done" and not finite(s["final_val_loss_full"] if full else s.get("final_val_loss")):
        raise Refused(f"{rel(path)}: final_val_loss is {s.get('final_val_loss')!r}; a 'done' run must have a finite one")
    return s


def load_study(folder, what="study"):
    """(runs that ended, cells listed but not ended, number listed, failed cells); only cells in study.json count."""
    spec = read_json(folder / "study.json")
    cells = need(folder / "study.json", spec, "cells", lambda v: isinstance(v, dict) and v, "a non-empty mapping of cells")
    runs, pending, failed = [], [], []
    for name, cfg in cells.items():
        cfg = check_cell(folder / "study.json", name, cfg)
        p = folder / name / "summary.json"
        if p.exists():
            s = check_summary(p, read_json(p))
            if s["status"] == "failed":
                failed.append(name)
            else:
                runs.append(Run(name, cfg, s, folder / name))
        else:
            pending.append((arm_of(cfg), float(cfg["lr"]), int(cfg["seed"])))
    if failed:  # analysis.yaml `collapse.words`: runs whose cell failed are not outcomes and are not counted
        print(f"  {rel(folder)}: {len(failed)} failed cell(s) left out (no outcome: the kernel or process failed): "
              + ", ".join(failed))
    return runs, sorted(pending), len(cells), failed


def study_cfg(folder):
    """The settings of a study's first listed cell (the shape every cell shares)."""
    return next(iter(read_json(folder / "study.json")["cells"].values()))


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


# ------------------------------------------------------------------------------------------- the rule
def rule_section(path, section):
    """A top-level mapping of a rule file (`collapse:`, `cliff:`), read without a yaml parser: {key: value} of its
    indented one-line entries, each value as JSON (a number, a quoted string) or else its raw text; a folded (`>-`)
    entry is kept as the text '>-' (this script reads none of them). A Refused when the section is missing."""
    lines = read_text(path).splitlines()
    try:
        i = next(k for k, ln in enumerate(lines) if re.match(rf"{re.escape(section)}:\s*(#.*)?$", ln))
    except StopIteration:
        raise Refused(f"{rel(path)}: the section {section} is missing") from None
    out = {}
    for ln in lines[i + 1:]:
        if ln.strip() and not ln.startswith(" "):
            break  # the next top-level key
        m = re.match(r"  (\w+):[ \t]*([^#\n]*?)[ \t]*(?:#.*)?$", ln)
        if m:
            try:
                out[m.group(1)] = json.loads(m.group(2))
            except json.JSONDecodeError:
                out[m.group(1)] = m.group(2)
    return out


def cliff_rule(rules):
    """analysis.yaml `collapse` and `cliff` in the folder `rules`, each number checked (a Refused names the file, key,
    value, what is allowed): the cliff's levels, grid step, arms and the collapse criterion."""
    a = Path(rules) / "analysis.yaml"
    col, c = rule_section(a, "collapse"), rule_section(a, "cliff")
    need(f"{rel(a)}: collapse", col, "criterion", lambda v: v in CRITERIA, f"one of the criteria {CRITERIA}")
    need(f"{rel(a)}: cliff", c, "study", lambda v: isinstance(v, str) and re.fullmatch(r"[\w.-]+", v),
         "the name of a study folder under runs/")
    arms = re.fullmatch(r"\[\s*([\w-]+)\s*,\s*([\w-]+)\s*\]", str(c.get("arms", "")))
    need(f"{rel(a)}: cliff", c, "arms", lambda v: arms is not None and arms.group(1) == OFF,
         f"a list of two arms, the off arm ({OFF}) first")
    need(f"{rel(a)}: cliff", c, "fit_from", lambda v: v == "best", "best (the arm's own best LR: the only rule implemented here)")
    for k in ("level", "safe_level"):
        need(f"{rel(a)}: cliff", c, k, lambda v: finite(v) and 0 < v < 1, "a number strictly between 0 and 1 (a two-sided level)")
    for k in ("safe_p", "needed_p"):
        need(f"{rel(a)}: cliff", c, k, lambda v: finite(v) and 0 < v < 1, "a number strictly between 0 and 1 (a probability)")
    need(f"{rel(a)}: cliff", c, "search_step", lambda v: finite(v) and 0 < v <= 0.25, "a number of decades in (0, 0.25]")
    return dict(c, arms=[arms.group(1), arms.group(2)], criterion=col["criterion"])
