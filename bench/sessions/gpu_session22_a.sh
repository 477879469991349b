#!/usr/bin/env bash
# Session 22, first device call: the GPU's exp / log (replaygen/devmath.py, printed in
# every kernel) and the verify's shared probe decays. GPU tests (devmath's error bounds;
# speculative and decode kernels of every variant), then spec_bench at batch 256, T = 8
# for KDA and GLA: this tree (with its check and the 16-window accuracy run) and the
# session's starting commit (bench/ab_templates/base_code, carried: `git archive HEAD
# replaygen templates specs generated`), timed in the same call.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 230 python3 -m pytest -q -n 12 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|rror [0-9.e-]+" "$OUT/tests.log" | head -12
timeout 150 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --out "$OUT/spec_new" > "$OUT/spec_new.log" 2>&1
grep "^BENCH\|^CHECK\|^ACC\|rror" "$OUT/spec_new.log" | cut -c1-300 | tail -12
PYTHONPATH=bench/ab_templates/base_code timeout 90 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 \
    --skip-check --skip-accuracy --out "$OUT/spec_base" > "$OUT/spec_base.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_base.log" | cut -c1-300 | tail -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_new spec_base 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
