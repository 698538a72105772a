"""The core-shape check of the training-length axis: the core shape (6 layers, 6 heads, d=192, bytes) at the seed's
6,100 steps, predicted from the width ladder's 300-step rung moved along the length ladder (300 -> 6,100 steps at
4 layers, d=64), with no line and no extrapolation (`rungs.predict_moved`, `forecast.transfer`).

    python scripts/core_check.py              # predict (once), commit the predictions, then run or resume the check cells
    python scripts/core_check.py --predict    # only write and commit the predictions

The predictions are written and committed before any check cell runs, so that the git history shows they came
first (the length page reads that order). Two files: prediction-core-s6100.json (the CPU check, run here) and
prediction-core-builtin.json (the full-scale run, the same numbers with what that run changes on top named in
`differs_from_rungs`; `qknorm check-prediction` runs it on a GPU). The check's cells go to runs/length/<name>/;
commit them as they end (git add runs/length/core-s6100-check-*), as for any study.

It runs in the repository it lives in, from whatever folder it is started. A prediction is never made again once
it was committed or its check ran: a missing one is restored from git (git checkout -- FILE), and a damaged one,
a bad ladder file or a failed git command end with one line on stderr (exit status 2) before anything is written.
"""
import argparse, os, subprocess, sys
from pathlib import Path

os.environ.setdefault('OMP_NUM_THREADS', '1')  # one thread a cell, two cells side by side: faster here than one two-thread cell
from qknorm_nb.config import ConfigError
from qknorm_nb.data import DataError
from qknorm_nb.files import FileError
from qknorm_nb.ladder import LadderError, load_ladder
from qknorm_nb.rungs import predict_moved
from qknorm_nb.check import run_check, format_check

ROOT = Path(__file__).resolve().parent.parent  # the paths below are the repository's

OUT = Path('runs/length')
BASE, START, END = ('studies/ladders/ladder.yaml', 'tokens-t600k'), ('studies/ladders/length.yaml', 'steps-s300'), \
                   ('studies/ladders/length.yaml', 'steps-s6100')
CHECK = ('failure_lr', 'useful_lr', 'necessity')  # both failure notions and the necessity threshold, each predicted edge +- a half decade
SEEDS = (0,)  # one seed: 12 cells of ~45 min fit what is left of the 20 CPU-hour budget, two would not

def tracked(p: Path) -> bool:
    return subprocess.run(['git', 'ls-files', '--error-unmatch', str(p)], capture_output=True).returncode == 0

def predict() -> Path:
    "Write both predictions (read back when on file) and commit the ones git does not track yet; the CPU check's path."
    lds = {f: load_ladder(f, check_data=False) for f in {BASE[0], START[0], END[0]}}
    b, s, e = [(lds[f], r) for f, r in (BASE, START, END)]
    cpu, full = OUT/'prediction-core-s6100.json', OUT/'prediction-core-builtin.json'
    for p in (cpu, full):  # both, before either is written
        if not p.exists() and tracked(p):
            raise LadderError(f"{p} was committed but is missing here: restore it (git checkout -- {p}); one made now would come after its check")
    predict_moved(b, s, e, cpu, 'core-s6100', check=CHECK, seeds=SEEDS)
    t = lds[BASE[0]].target
    predict_moved(b, s, e, full, t['name'], target=dict(name=t['name'], preset=t['preset'], fixed=t['fixed'], x=t['x'], x_name='tokens'),
                  check=CHECK, seeds=SEEDS)
    new = [str(p) for p in (cpu, full) if not tracked(p)]
    if new:
        subprocess.run(['git', 'add', *new], check=True)
        subprocess.run(['git', 'commit', '-q', '-m', 'runs/length: the core-shape predictions at 6,100 steps (moved along the length axis), '
                        'made before any check cell runs', '--', *new], check=True)
    return cpu

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--predict', action='store_true', help='only write and commit the predictions')
    ap.add_argument('--workers', type=int, default=2, help='cells at once (default 2, one thread each)')
    a = ap.parse_args()
    os.chdir(ROOT)
    try:
        pred = predict()
        if a.predict: sys.exit(0)
        rec = run_check(pred, runs_dir=OUT, workers=a.workers, device='cpu', progress=False)
    except (ConfigError, DataError, FileError, OSError, subprocess.CalledProcessError) as e:
        print(f"core_check: error: {e}", file=sys.stderr); sys.exit(2)
    print(format_check(rec))
    sys.exit(0 if rec['study']['complete'] else 1)
