#!/usr/bin/env bash
# The GPU check: on a machine with a CUDA GPU, the benchmark of the `core` and `cpu` shapes (baseline,
# project step, fast settings, torch.compile; MFU against the measured bf16 and fp32 matmul peaks;
# peak memory; the projected time of the core matrix). A few minutes.
# With --prediction, instead: the full-scale check of a scale-ladder prediction (nbs/07e_check.ipynb):
# both arms at each arm's predicted failure LR and one grid step either side, scored against it.
#
#   bash scripts/gpu_check.sh [OUT.json]      # default bench/gpu-<date>.json; printed as well
#   bash scripts/gpu_check.sh --prediction runs/ladder/prediction-core.json [OUT.json]
#                                             # default bench/checks/<prediction>-<date>.json; printed as well
#
# Needs the package installed (`pip install -e .`) with a CUDA build of torch. DEVICE, SHAPES, ROUNDS,
# STEPS override the defaults (DEVICE=cpu SHAPES=smoke tries the script out on a CPU in seconds).
# With --prediction: DEVICE as above; TOKENS (e.g. 2e7) runs a shorter check,
# recorded as not at the predicted scale; CHECK_SET="key=value ..." overrides config fields;
# WORKERS and RUNS_DIR (default runs/fullscale) pass on.
# DEVICE=cpu TOKENS=5120 CHECK_SET="n_layer=2 n_head=2 n_embd=32 block_size=32 batch_size=8 warmup_iters=2
# tokenizer=bytes dtype=float32 fused=false tf32=false pin_memory=false train_tokens=200000 val_tokens=20000
# eval_every=10 eval_iters=2" tries the check out on a CPU in a minute. The target's tokenizer (gpt2) needs
# tiktoken's ranks offline: scripts/seed_tiktoken.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
device="${DEVICE:-cuda}"
pred=""
if [[ "${1:-}" == --prediction ]]; then
  [[ $# -ge 2 && -n "$2" ]] || { echo "gpu_check: --prediction needs a prediction file, e.g. runs/ladder/prediction-core.json" >&2; exit 2; }
  pred="$2"
  [[ -f "$pred" ]] || { echo "gpu_check: no prediction file $pred" >&2; exit 2; }
  shift 2
  out="${1:-bench/checks/$(basename "$pred" .json)-$(date -u +%Y-%m-%d).json}"
else
  out="${1:-bench/gpu-$(date -u +%Y-%m-%d).json}"
fi
if [[ "$device" == cuda* ]]; then
  python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'gpu_check: torch sees no CUDA device (torch ' + torch.__version__ + ')')"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
fi
if [[ -n "$pred" ]]; then
  extra=()
  [[ -n "${TOKENS:-}" ]] && extra+=(--tokens "$TOKENS")
  [[ -n "${WORKERS:-}" ]] && extra+=(--workers "$WORKERS")
  read -r -a sets <<< "${CHECK_SET:-}"
  [[ ${#sets[@]} -gt 0 ]] && extra+=(--set "${sets[@]}")
  mkdir -p "$(dirname "$out")"
  rc=0  # 0 whatever the verdicts (a refuted prediction is a result); 1: some cells did not end; 2: a bad file or setting
  qknorm check-prediction "$pred" --device "$device" --runs-dir "${RUNS_DIR:-runs/fullscale}" "${extra[@]}" --out "$out" || rc=$?
  [[ $rc -le 1 && -f "$out" ]] && cat "$out"  # (2: no record was written; a file there is an older one)
  exit "$rc"
fi
# shellcheck disable=SC2086
qknorm bench --device "$device" --shapes ${SHAPES:-core cpu} --rounds "${ROUNDS:-5}" --steps "${STEPS:-5}" --out "$out"
