#!/usr/bin/env bash
# Session 20, third device call, after the key-chunk verify of a delta rule takes its
# window as three per-head matrices (Z = Y·G_y + V_dᵀ·G_v + W_cᵀ·G_c: call 2 measured
# GDN 4B's window and solve at 0.056 of its 0.224 ms; offline sm_90 the stream loop
# 560 -> 490 instructions, shared memory 23.0 -> 19.5 KiB): (1) A/B against the session's
# starting templates (bench/ab_templates/base, carried), plain rows (verify) and folding
# rows (verify_fold), GDN 4B; also pp1 (not shipped: with one key chunk, G_y folded
# into the probes, P' = G_yᵀ·raw_P per head, so the stream's sum is Y·G_y; offline the
# loop 490 -> 290 instructions, but 254 registers and 27.5 KiB); (2) the speculative GPU tests of GDN (the only variant whose
# kernels changed); (3) GDN's T = 8 verify launches re-tuned (batch 256, both protocols);
# (4) spec_bench at T = 8, batch 256, both protocols, every variant.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
B=bench/ab_templates/base P=bench/ab_templates/pp1
timeout 110 python3 bench/template_ab.py --kernel verify --rounds 3 --templates $B,templates,$P,$P@maxnreg=168 \
    --cases gdn:qwen3.5-4b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -2 "$OUT/ab_verify.log"
timeout 90 python3 bench/template_ab.py --kernel verify_fold --rounds 3 --templates $B,templates,$P \
    --cases gdn:qwen3.5-4b:fp32 --out "$OUT/ab_vf" > "$OUT/ab_vf.log" 2>&1
tail -2 "$OUT/ab_vf.log"
timeout 80 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k gdn > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
mkdir -p "$OUT/tables"
timeout 65 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --max-drafts 8 \
    --kernels verify --batches 256 --budget-s 40 >> "$OUT/tune.log" 2>&1
timeout 65 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 --max-drafts 8 \
    --verify-folds --kernels verify_fold --batches 256 --budget-s 40 >> "$OUT/tune.log" 2>&1
cp generated/gdn/tuning.json "$OUT/tables/gdn.json"
grep "T8" "$OUT/tune.log" | tail -4
for p in default vf; do
    extra=(); [ $p = vf ] && extra=(--verify-folds)
    timeout 85 python3 bench/spec_bench.py "${extra[@]}" --drafts 8 --batches 256 --skip-check \
        --skip-accuracy --out "$OUT/spec_$p" > "$OUT/spec_$p.log" 2>&1
    grep "^BENCH" "$OUT/spec_$p.log" | cut -c1-300
done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify ab_vf tables spec_default spec_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
