#!/usr/bin/env bash
# Session 24, first device call: Mamba-2's flush folded in the output stream
# (plan.fold_in_stream). GPU tests of the decode and precision kernels of Mamba-2; a
# template A/B against session 23's templates (bench/ab_templates/s23, carried) at the
# tabled launches and with a register cap of 200; the issue 5 suite for Mamba-2.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 -m pytest -q -n 14 -p xdist tests/test_decode.py tests/test_precision.py -k mamba2 > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
timeout 200 python3 bench/template_ab.py --templates bench/ab_templates/s23,templates,templates@maxnreg=200 \
    --cases mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32 --rounds 3 \
    --out "$OUT/ab" > "$OUT/ab.log" 2>&1
tail -30 "$OUT/ab.log"
timeout 120 python3 -m replaygen bench --variants mamba2 --batches 1,256 --L 16 --budget-s 90 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab bench 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
