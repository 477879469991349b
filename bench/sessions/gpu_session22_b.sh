#!/usr/bin/env bash
# Session 22, second device call: devmath's error bounds (fixed test) and the precision
# tests on the GPU; then spec_bench at batch 256, T = 8 for every variant, both protocols,
# this tree against the session's starting commit in the same call (the starting commit's
# package, templates, generated tables, spec_bench and tests under
# bench/ab_templates/base_code, carried: `git archive HEAD replaygen templates specs
# generated bench/spec_bench.py bench/common.py tests`); then GLA's verify_folds protocol
# at batch 512 and T = 2, 4 (session 21 measured batch 256, T = 8 only).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
BASE=bench/ab_templates/base_code
timeout 120 python3 -m pytest -q -n 12 -p xdist tests/test_devmath.py tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)" "$OUT/tests.log" | head -8
V=mamba2,gdn,kda,gla
spec() {  # NAME SCRIPT_ROOT ARGS...
    local name=$1 root=$2; shift 2
    (cd "$root" && PYTHONPATH=. timeout 150 python3 bench/spec_bench.py "$@" --out "$OUT/$name") > "$OUT/$name.log" 2>&1
    grep "^BENCH\|^CHECK\|rror" "$OUT/$name.log" | cut -c1-330
}
spec vf_new . --verify-folds --variants $V --drafts 8 --batches 256 --skip-accuracy
spec vf_base $BASE --verify-folds --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy
spec default_new . --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy
spec default_base $BASE --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy
spec gla_vf_sweep . --verify-folds --variants gla --drafts 2,4,8 --batches 256,512 --skip-check --skip-accuracy
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vf_* default_* gla_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
