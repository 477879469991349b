#!/usr/bin/env bash
# Session 24, third device call: the flush folded in the stream for every key-chunk
# decode; a delta rule's flush keeps the token as the next window's record 0 (GDN), CAP =
# L for every configuration. GPU tests (devmath, speculative, decode, precision); a
# template A/B of GDN against session 23's templates (carried; they run under this
# tree's plan, cycling 1..L: one row in 16 flushes twice per timed cycle, ~0.5% against
# them); the issue 5 suite; spec_bench at T = 8 (default protocol: now a fold every 3
# steps); a re-tune of Mamba-2 Nano's batch-256 decode.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 14 -p xdist tests/test_devmath.py tests/test_speculative.py tests/test_decode.py tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
timeout 200 python3 bench/template_ab.py --templates bench/ab_templates/s23,templates,templates@maxnreg=224,templates@maxnreg=None \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 --rounds 3 \
    --out "$OUT/ab" > "$OUT/ab.log" 2>&1
grep "^gdn\|rror" "$OUT/ab.log" | cut -c1-400
timeout 170 python3 -m replaygen bench --variants mamba2,gdn,kda --batches 1,256 --L 16 --budget-s 120 \
    --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "^mamba2\|^gdn\|^kda" "$OUT/bench.log"
timeout 70 python3 bench/spec_bench.py --variants mamba2,gdn,kda,gla --drafts 8 --batches 256 --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_default.log" | cut -c1-250
tune_decode mamba2 nemotron3-nano-4b none 60
tail -3 "$OUT/tune.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab bench spec_default tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
