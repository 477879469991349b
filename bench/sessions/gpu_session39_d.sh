#!/usr/bin/env bash
# Session 39, call d. The value-tile verify now issues every draft's loads at once (10c5ffd,
# prototype I: KDA T = 8 1.058x, its folding launch 1.159x, GLA 1.076x on an H100). Its
# drafts' loads still wait behind the committed records' block: the last record's gate G_t
# is re-laid out for the records' tiles through shared memory (a barrier) after its load,
# which waits for the cursor. J = bench/proto/s39_verify_records_after_drafts.diff: the
# records' tiles loaded and weighted after the drafts' loop (G_t still before it): the
# drafts' loads issue right after the cursor's (sm_90: KDA 233 -> 228 registers, 6176
# instructions, no spill; GLA 128 registers, 3376). (1) the A/B of the verify and its
# folding launch, KDA and GLA; (2) issue 3's T = 8 table at the committed templates.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
J=bench/ab_templates/s39_records_after && folder $J bench/proto/s39_verify_records_after_drafts.diff
timeout 120 python3 bench/template_ab.py --kernel verify --templates templates,$J --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -2 "$OUT/ab_verify.log" | cut -c1-330
timeout 100 python3 bench/template_ab.py --kernel verify_fold --templates templates,$J --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_fold" > "$OUT/ab_fold.log" 2>&1
tail -2 "$OUT/ab_fold.log" | cut -c1-330
timeout 150 python3 bench/spec_bench.py --variants kda,gla --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep "^| kda\|^| gla" "$OUT/spec.log"
