#!/usr/bin/env bash
# Run a ladder's rungs in the order given, committing each rung's prediction before its first cell runs,
# so that the git history shows every prediction was made before the fact (the scale page reads that order).
#   bash scripts/ladder_rungs.sh studies/ladders/length.yaml steps-s2000 warmup20-s2000 steps-s6100
# Each rung runs with `qknorm ladder LADDER --only RUNG` (2 single-thread workers unless WORKERS says otherwise),
# in the repository the script lives in (its runs/), from whatever folder it is started; finished cells are
# committed by you (git add runs/<ladder>/<rung>), as for any study. Every rung is looked up before any runs;
# a bad ladder file or rung name ends with one line (exit status 2). Stops at the first failure.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "ladder_rungs: usage: bash scripts/ladder_rungs.sh LADDER RUNG [RUNG ...]" >&2; exit 2; }
[[ -f "$1" ]] || { echo "ladder_rungs: error: ladder file '$1' does not exist" >&2; exit 2; }
ladder="$(cd "$(dirname -- "$1")" && pwd)/$(basename -- "$1")"; shift
cd "$(dirname -- "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# The ladder file and the rung ids reach Python as arguments (sys.argv), never inside its code.
PY='
import sys
from qknorm_nb.config import ConfigError
from qknorm_nb.files import FileError
from qknorm_nb.ladder.plan import load_ladder, needs_prediction, prediction_path
from qknorm_nb.ladder.rungs import rung_lrs
what, path, *ids = sys.argv[1:]
try:
    ld = load_ladder(path, check_data=False)
    rungs = [ld.rung(i) for i in ids]
    if what == "path": print(prediction_path(ld, rungs[0]) if needs_prediction(rungs[0]) else "")
    if what == "predict": print("grid:", rung_lrs(ld, rungs[0]))
except (ConfigError, FileError, OSError) as e:
    print(f"ladder_rungs: error: {e}", file=sys.stderr); sys.exit(2)
'
python -c "$PY" check "$ladder" "$@"
for rung in "$@"; do
  pred=$(python -c "$PY" path "$ladder" "$rung")
  if [ -n "$pred" ] && ! git ls-files --error-unmatch -- "$pred" >/dev/null 2>&1; then
    echo "== $(date -u +%FT%TZ) $rung: prediction"
    python -c "$PY" predict "$ladder" "$rung"
    git add -- "$pred"
    git commit -q -m "$(basename "$(dirname "$(dirname "$pred")")"): the prediction for rung $rung, made from the rungs below it before any of its cells runs" -- "$pred"
  fi
  echo "== $(date -u +%FT%TZ) $rung: cells"
  qknorm ladder "$ladder" --only "$rung" --workers "${WORKERS:-2}" -q
done
