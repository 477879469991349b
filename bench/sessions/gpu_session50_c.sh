#!/usr/bin/env bash
# Session 50, any GPU, one call of ~7 min (issue 3): the folding verify launch
# (verify_folds=True) with its probes reading C and the records as the plain rows do
# (bench/proto/s50_vfold_plain.diff): S_n = exp(G_n) C + Σ_j exp(G_n - G_j) k_j w_jᵀ is
# only stored, and no product waits for it (main: x_ck = P_ck·S_nᵀ, after the fold's
# product, its result re-laid out through shared memory). Offline (sm_90, KDA T = 8, the
# H100's verify_fold launch [32] w4 s3): 159 -> 195 registers, 3 -> 2 programs per SM,
# 76.8 -> 35.8 KB shared. 1. Template A/B of the verify_fold launch, main against the diff
# at the table's launch, capped at 168 registers (3 per SM), and at 2 stages; KDA and GLA.
# 2. The diff applied, KDA's verify_fold swept on this card, issue 3's KDA verify_folds row
# (session 49 call G: 1.32x; folding launch 0.633 ms for every row).
# Commit $OUT/kda_tuning.json with the diff where the row wins.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
folder $A/s50_vfold bench/proto/s50_vfold_plain.diff
timeout 230 python3 bench/template_ab.py --kernel verify_fold --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 \
    --rounds 3 --templates "templates,$A/s50_vfold,$A/s50_vfold@maxnreg=168,$A/s50_vfold@num_stages=2" \
    --out "$OUT/ab_vfold" > "$OUT/ab_vfold.log" 2>&1
grep -E "^(kda|gla)" "$OUT/ab_vfold.log" | cut -c1-600
tail -3 "$OUT/ab_vfold.log" | cut -c1-600
git apply bench/proto/s50_vfold_plain.diff && python3 -m replaygen build --all > /dev/null
timeout 130 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --verify-folds --kernels verify_fold --batches 256 --budget-s 90 >> "$OUT/tune.log" 2>&1
grep -E "^phase|budget|replaygen tune:| 256 " "$OUT/tune.log" | cut -c1-200
cp generated/kda/tuning.json "$OUT/kda_tuning.json"
timeout 100 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --verify-folds \
    --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep -E "^\| kda" "$OUT/spec_vf/spec_bench.md"
grep -A8 "^## Bandwidth" "$OUT/spec_vf/spec_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
