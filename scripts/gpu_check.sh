#!/usr/bin/env bash
# The GPU check: on a machine with a CUDA GPU, the benchmark of the `core` and `cpu` shapes (baseline,
# project step, fast settings, torch.compile, a 6-member cohort step; MFU against the measured bf16
# and fp32 matmul peaks; peak memory; the projected time of the core matrix) and a short end-to-end
# cohort of 7 cpu-preset learning rates against the same 7 runs one after another. A few minutes.
#
#   bash scripts/gpu_check.sh [OUT.json]      # default bench/gpu-<date>.json; printed as well
#
# Needs the package installed (`pip install -e .`) with a CUDA build of torch. DEVICE, SHAPES, ROUNDS,
# STEPS and COHORT_RUN=0 override the defaults (DEVICE=cpu SHAPES=smoke COHORT_RUN=0 tries the script
# out on a CPU in seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
device="${DEVICE:-cuda}"
out="${1:-bench/gpu-$(date -u +%Y-%m-%d).json}"
if [[ "$device" == cuda* ]]; then
  python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'gpu_check: torch sees no CUDA device (torch ' + torch.__version__ + ')')"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
fi
cohort_run=(); [[ "${COHORT_RUN:-1}" == 1 ]] && cohort_run=(--cohort-run)
# shellcheck disable=SC2086
qknorm bench --device "$device" --shapes ${SHAPES:-core cpu} --rounds "${ROUNDS:-5}" --steps "${STEPS:-5}" \
  "${cohort_run[@]}" --out "$out"
