"""The core-shape check of the training-length axis, per corpus: the core shape at the seed's 6,100 steps, predicted
from the width or scale ladder's 300-step rung moved along that corpus's length ladder (300 -> 6,100 steps at
4 layers, d=64), with no line and no extrapolation along the axis (`rungs.predict_moved`, `forecast.transfer`).

    python scripts/core_check.py                           # builtin: predict (once), commit, then run or resume the check
    python scripts/core_check.py --predict                 # only write and commit the predictions
    python scripts/core_check.py --corpus tinystories --show   # what the check would run (prediction kept in memory)
    python scripts/core_check.py --corpus tinystories      # TinyStories (issue 33): the same, once its s6100 rung is complete

The predictions are written and committed before any check cell runs, so that the git history shows they came
first (the length pages read that order). Two files per corpus: the CPU check, run here, and the full-scale run
(the same numbers, with what that run changes on top named in `differs_from_rungs`; `qknorm check-prediction`
runs it on a GPU). builtin: the base is the scale ladder's 300-step core-shape rung (6 layers, d=192), so the
check is the moved configuration itself, one seed, each arm at its own LRs. tinystories: the base is the width
ladder's d=192 rung (4 layers, TinyStories, 300 steps), the check is the core shape (6 layers, 6 heads, d=192) on the
length ladder's text, so depth is one change on top of the move (listed in the prediction); both arms at the
same LRs, two seeds. The check's cells go to the corpus's runs folder; commit them as they end.

It runs in the repository it lives in, from whatever folder it is started. A prediction is never made again once
it was committed or its check ran: a missing one is restored from git (git checkout -- FILE), and a damaged one,
a bad ladder file or a failed git command end with one line on stderr (exit status 2) before anything is written.
Git proves the order (nbs/07e_check.ipynb, "Git proves order"): outside a git checkout nothing is predicted, and a
prediction that is not committed, or differs on disk from its last commit, is refused before any check cell runs.
"""
import argparse, os, subprocess, sys, tempfile
from pathlib import Path

os.environ.setdefault('OMP_NUM_THREADS', '1')  # one thread a cell, two cells side by side: faster here than one two-thread cell
from qknorm_nb.config import ConfigError
from qknorm_nb.data.corpora import DataError
from qknorm_nb.files import FileError
from qknorm_nb.ladder.plan import LadderError, load_ladder
from qknorm_nb.ladder.rungs import predict_moved
from qknorm_nb.ladder.check import run_check, format_check, check_spec, git_top, require_committed
from qknorm_nb.ladder.prediction import PredictionError
from qknorm_nb.study.spec import load_study

ROOT = Path(__file__).resolve().parent.parent  # the paths below are the repository's
CHECK = ('failure_lr', 'useful_lr', 'necessity')  # both failure notions and the necessity threshold, each predicted edge +- a half decade
TS = dict(dataset='../shared/data/tinystories_train_6mb.txt', val_dataset='../shared/data/tinystories_valid_sample.txt')

SETUPS = {  # per corpus: the runs folder, the (ladder file, rung) of base, start and end, both targets and the check's design
    'builtin': dict(
        out='runs/length', base=('studies/ladders/ladder.yaml', 'tokens-t600k'),
        start=('studies/ladders/length.yaml', 'steps-s300'), end=('studies/ladders/length.yaml', 'steps-s6100'),
        cpu=('prediction-core-s6100.json', 'core-s6100', None),  # None: the moved configuration itself
        full=('prediction-core-builtin.json', None),             # None: the scale ladder's own target (core on builtin)
        check=CHECK, seeds=(0,), own_lrs=True),  # one seed: 12 cells of ~45 min fit what was left of that 20 CPU-hour budget
    'tinystories': dict(
        out='runs/length-tinystories', base=('studies/ladders/ladder.yaml', 'width-d192'),
        start=('studies/ladders/length-tinystories.yaml', 'steps-s300'), end=('studies/ladders/length-tinystories.yaml', 'steps-s6100'),
        cpu=('prediction-core-ts-s6100.json', 'core-ts-s6100',
             dict(preset='cpu', fixed=dict(n_layer=6, n_head=6, n_embd=192, **TS, train_tokens=5_800_000, val_tokens=786_432,
                                           max_iters=6100, warmup_iters=305, eval_every=250, probe_every=250, ckpt_every=500,
                                           log_every=50))),
        full=('prediction-core-tinystories.json', dict(name='core-tinystories', preset='core', fixed=dict(dataset='tinystories'))),
        # the "both arms at the same LRs, >= 2 seeds". Set from --show on the complete s6100 rung, before the prediction
        # was committed: all three measures' LRs are 10 LRs x 2 arms x 2 seeds = 40 cells, ~30 CPU-h at ~55 min a cell that
        # does not diverge early, four times the 8 CPU-hours. The necessity threshold is the question the package
        # answers, so the check brackets it alone: its predicted LR and one half decade either side (0.01, 0.0316, 0.1),
        # both arms, 2 seeds: 12 cells, ~11 CPU-h. The edges are predicted (in the file) but not checked.
        check=('necessity',), seeds=(0, 1), own_lrs=False),
}

def tracked(p: Path) -> bool:
    return subprocess.run(['git', 'ls-files', '--error-unmatch', str(p)], capture_output=True).returncode == 0

def _targets(s: dict, lds: dict) -> list:
    "(path, name, target or None) of the CPU check and the full-scale run."
    out = Path(s['out'])
    (cf, cname, ct), (ff, ft) = s['cpu'], s['full']
    if ft is None:
        t = lds[s['base'][0]].target
        ft = dict(name=t['name'], preset=t['preset'], fixed=t['fixed'], x=t['x'])
    return [(out/cf, cname, None if ct is None else dict(name=cname, **ct, x_name='tokens')),
            (out/ff, ft['name'], dict(ft, x_name='tokens'))]

def check_git(s: dict):
    "Before anything is read or written: the repository is a git checkout, and each committed prediction is on disk as committed."
    if git_top(ROOT) is None:
        raise PredictionError(f"{ROOT} is not inside a git checkout: a prediction's order is proved by its commit, so predictions "
                              "are made and checked only in a clone of the repository")
    for p in (Path(s['out'])/s['cpu'][0], Path(s['out'])/s['full'][0]):
        if not tracked(p): continue  # made (or read back) and committed below
        if not p.exists():
            raise LadderError(f"{p} was committed but is missing here: restore it (git checkout -- {p}); one made now would come after its check")
        require_committed(p)  # an edit not committed: no commit proves it came before the check's cells

def predict(s: dict, commit: bool = True, where: Path|None = None) -> Path:
    "Write both predictions (read back when on file) and commit the new ones; the CPU check's path. `where`: write there, never commit."
    if where is None: check_git(s)
    lds = {f: load_ladder(f, check_data=False) for f in {s['base'][0], s['start'][0], s['end'][0]}}
    b, st, e = [(lds[f], r) for f, r in (s['base'], s['start'], s['end'])]
    ts = _targets(s, lds)
    for p, _, _ in ts:  # both, before either is written
        if not p.exists() and tracked(p):
            raise LadderError(f"{p} was committed but is missing here: restore it (git checkout -- {p}); one made now would come after its check")
    for p, name, t in ts:
        predict_moved(b, st, e, (where/p.name) if where else p, name, target=t, check=s['check'], seeds=s['seeds'], own_lrs=s['own_lrs'])
    new = [str(p) for p, _, _ in ts if not tracked(p)]
    if new and commit and where is None:
        subprocess.run(['git', 'add', *new], check=True)
        subprocess.run(['git', 'commit', '-q', '-m', f"{s['out']}: the core-shape predictions at 6,100 steps (moved along the length axis), "
                        'made before any check cell runs', '--', *new], check=True)
    return (where/ts[0][0].name) if where else ts[0][0]

def show(s: dict) -> str:
    "The check's cells, per arm and LR, from a prediction made in a scratch folder (nothing in the repository is written)."
    from qknorm_nb.ladder.prediction import load_prediction
    with tempfile.TemporaryDirectory() as d:
        pred = load_prediction(predict(s, commit=False, where=Path(d)))
    st = load_study(check_spec(pred, name=f"{pred['target']['name']}-check"))
    by = {}
    for c in st.cells: by.setdefault(c.config.qk_norm, []).append(c.config.lr)
    lines = [f"{st.name}: {len(st.cells)} cells for {', '.join(s['check'])} ({', '.join(f'{a}: {len(set(v))} LRs' for a, v in by.items())}, seeds {list(s['seeds'])})"]
    lines += [f"  {a}: {sorted(set(v))}" for a, v in by.items()]
    return '\n'.join(lines)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--corpus', choices=sorted(SETUPS), default='builtin', help='whose length axis the check moves along (default builtin)')
    ap.add_argument('--predict', action='store_true', help='only write and commit the predictions')
    ap.add_argument('--show', action='store_true', help="print the check's cells from a prediction kept in a scratch folder; write nothing")
    ap.add_argument('--workers', type=int, default=2, help='cells at once (default 2, one thread each)')
    a = ap.parse_args()
    os.chdir(ROOT)
    s = SETUPS[a.corpus]
    try:
        if a.show: print(show(s)); sys.exit(0)
        pred = predict(s)
        if a.predict: sys.exit(0)
        require_committed(pred)  # committed just now or before: the check's cells come after its commit
        rec = run_check(pred, runs_dir=s['out'], workers=a.workers, device='cpu', progress=False)
    except (ConfigError, DataError, FileError, OSError, subprocess.CalledProcessError) as e:
        print(f"core_check: error: {e}", file=sys.stderr); sys.exit(2)
    print(format_check(rec))
    sys.exit(0 if rec['study']['complete'] else 1)
