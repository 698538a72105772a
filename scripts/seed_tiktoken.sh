#!/usr/bin/env bash
# Seed tiktoken's cache with the GPT-2 ranks so that get_tokenizer('gpt2') works offline.
#
# The ranks file is whisper/assets/gpt2.tiktoken inside the openai-whisper sdist on PyPI (the same file
# tiktoken downloads for r50k_base/gpt2; its sha256 is checked). Only that file is extracted; whisper
# is not installed. Target: $TIKTOKEN_CACHE_DIR, else ~/.cache/qknorm_nb/tiktoken.
#
# Usage: scripts/seed_tiktoken.sh                 # fetch the sdist with pip
#        scripts/seed_tiktoken.sh path/to/gpt2.tiktoken   # use a copy you already have
# Env:   PYTHON (default: python), WHISPER_SPEC (default: openai-whisper)
set -euo pipefail
PY=${PYTHON:-python}

if "$PY" -c "import sys; from qknorm_nb.data.corpora import gpt2_ranks_path, sha256, GPT2_RANKS_SHA256 as h
p = gpt2_ranks_path(); sys.exit(0 if p.is_file() and sha256(p) == h else 1)"; then
  echo "GPT-2 ranks already cached at $("$PY" -c 'from qknorm_nb.data.corpora import gpt2_ranks_path; print(gpt2_ranks_path())')"
  exit 0
fi

if [ $# -ge 1 ]; then
  src=$1
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$PY" -m pip download --quiet --no-deps --no-binary :all: "${WHISPER_SPEC:-openai-whisper}" -d "$tmp"
  shopt -s nullglob
  sdists=("$tmp"/openai[_-]whisper-*.tar.gz)
  [ ${#sdists[@]} -gt 0 ] || { echo "no openai-whisper sdist was downloaded into $tmp" >&2; exit 1; }
  tar -xzf "${sdists[0]}" -C "$tmp" --wildcards '*/whisper/assets/gpt2.tiktoken'
  srcs=("$tmp"/*/whisper/assets/gpt2.tiktoken)
  src=${srcs[0]}
fi
"$PY" -c "import sys; from qknorm_nb.data.corpora import seed_tiktoken_cache; print('seeded', seed_tiktoken_cache(sys.argv[1]))" "$src"
