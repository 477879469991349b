#!/usr/bin/env bash
# Session 35: the value-tile verify streaming first (bench/proto/s35_verify_stream_first.diff:
# Launch.stream_first for the verify of a plain checkpoint, its first STREAM_STAGES
# checkpoint tiles prefetched into L2 before the drafts' head-level work, which is half of
# KDA's T = 8 verify stall samples with no tile in flight: session 34's ncu). On the patched
# tree: (1) A B C D A B C D of the T = 8 verify at the tabled launch, the same with
# stream_first, with stream_first at four stages, and prefetching all eight tiles of the
# head (s35_verify_prefetch_all.diff; KDA, GLA); (2) the same for the
# folding rows' launch (KDA); (3) the GPU tests it touches; (4) KDA's verify re-tuned with
# the new phase 1c, then issue 3's T = 8 table (copy $OUT/tables/kda.json into
# generated/kda/tuning.json only if the A/B says stream_first wins).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
patch -s -p1 < bench/proto/s35_verify_stream_first.diff && python3 -m replaygen build --all > /dev/null
A=bench/ab_templates/s35_all   # the verify prefetching all NV tiles (s35_verify_prefetch_all.diff)
rm -rf $A && mkdir -p $A && cp templates/*.j2 $A/ && patch -s -d $A -p2 < bench/proto/s35_verify_prefetch_all.diff
V=templates,templates@stream_first=1,templates@stream_first=1+num_stages=4,$A@stream_first=1
timeout 180 python3 bench/template_ab.py --kernel verify --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log" | cut -c1-260
timeout 90 python3 bench/template_ab.py --kernel verify_fold --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -2 "$OUT/ab_verify_fold.log" | cut -c1-260
timeout -s INT -k 20 100 python3 -m pytest -q -n 16 -p xdist -rf tests/test_speculative.py \
    tests/test_tuning.py tests/test_spec_bench.py -k "kda or gla or stream or staggered" > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -8
timeout 110 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 80 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep -E "^phase 1c|verify +(256|512) " "$OUT/tune.log" | tail -5 | cut -c1-230
timeout 80 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
