#!/usr/bin/env bash
# Session 21, sixth device call (the last ~5 device minutes): GLA's folding verify launch
# with its drafts all at once (plan.fold_tile_head) against the shipped templates of
# 5cada2d (bench/ab_templates/shipped), then GLA's verify_folds step in spec_bench.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 90 python3 bench/template_ab.py --kernel verify_fold --rounds 3 \
    --templates bench/ab_templates/shipped,templates \
    --cases gla:gla-1.3b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -1 "$OUT/ab_verify_fold.log"
timeout 80 python3 bench/spec_bench.py --verify-folds --variants gla --drafts 8 --batches 256 --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|^CHECK\|rror" "$OUT/spec_vf.log" | cut -c1-300 | tail -4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify_fold spec_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
