#!/usr/bin/env bash
# Run a ladder's rungs in the order given, committing each rung's prediction before its first cell runs,
# so that the git history shows every prediction was made before the fact (the scale page reads that order).
#   bash scripts/ladder_rungs.sh studies/ladders/length.yaml steps-s2000 warmup20-s2000 steps-s6100
# Each rung runs with `qknorm ladder LADDER --only RUNG` (2 single-thread workers unless WORKERS says otherwise);
# finished cells are committed by you (git add runs/<ladder>/<rung>), as for any study. Stops at the first failure.
set -euo pipefail
ladder=$1; shift
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
for rung in "$@"; do
  pred=$(python -c "from qknorm_nb.ladder import *; ld=load_ladder('$ladder'); r=ld.rung('$rung'); print(prediction_path(ld, r) if r.index >= 2 and r.source is None else '')")
  if [ -n "$pred" ] && ! git ls-files --error-unmatch "$pred" >/dev/null 2>&1; then
    echo "== $(date -u +%FT%TZ) $rung: prediction"
    python -c "from qknorm_nb.ladder import *; ld=load_ladder('$ladder'); print('grid:', rung_lrs(ld, ld.rung('$rung')))"
    git add "$pred"
    git commit -q -m "$(basename "$(dirname "$(dirname "$pred")")"): the prediction for rung $rung, made from the rungs below it before any of its cells runs" -- "$pred"
  fi
  echo "== $(date -u +%FT%TZ) $rung: cells"
  qknorm ladder "$ladder" --only "$rung" --workers "${WORKERS:-2}" -q
done
