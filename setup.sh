#!/usr/bin/env bash
# Set up a development checkout: .venv with torch, then replaygen installed editable with
# its test extra. Idempotent: a second run only re-checks. Quiet unless something fails.
#   REPLAYGEN_SKIP_TORCH=1   do not install torch (bring your own build)
#   PYTHON=python3.12        the interpreter that creates .venv (default python3)
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
fi

# torch comes first and pinned: an unpinned `pip install torch` (or letting the package's
# dependency pull it in) fetches a multi-GB CUDA build. A torch already in .venv is kept.
if [ "${REPLAYGEN_SKIP_TORCH:-0}" != 1 ] && ! .venv/bin/python -c 'import torch' 2>/dev/null; then
    .venv/bin/python -m pip install -qq torch==2.13.0
fi

.venv/bin/python -m pip install -qq -e '.[test]'
