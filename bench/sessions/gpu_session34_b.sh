#!/usr/bin/env bash
# Prepared in session 34 for session 35: bench/proto/s34_head_loads.diff (the value-tile
# decode's records and cumulative gate, and the verify's drafts, loaded without waiting
# for the cursor; its header says what and why) against the committed templates, A B A B:
# (1) the decode (KDA fp32, FP8 row and NVFP4 read copies, GLA fp32: issue 5's KDA at 82% of
# the copy bandwidth), (2) the T = 8 verify (KDA, GLA: issue 3), then (3) their GPU tests on
# the patched tree. Outputs are checked against the committed templates' first (fp32
# arithmetic unchanged: 0 expected; the read copies too). If it wins, apply the diff, and
# re-tune KDA's decode and verify.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
C=bench/ab_templates/s34_cand
rm -rf $C && mkdir -p $C && cp templates/*.j2 $C/ && patch -s -d $C -p2 < bench/proto/s34_head_loads.diff
timeout 220 python3 bench/template_ab.py --templates templates,$C --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,kda:kimi-linear-48b:fp8,kda:kimi-linear-48b:nvfp4,gla:gla-1.3b:fp32 \
    --out "$OUT/ab_decode" > "$OUT/ab_decode.log" 2>&1
tail -4 "$OUT/ab_decode.log"
timeout 120 python3 bench/template_ab.py --kernel verify --templates templates,$C --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -2 "$OUT/ab_verify.log"
patch -s -p1 < bench/proto/s34_head_loads.diff && python3 -m replaygen build --all > /dev/null
timeout -s INT -k 20 150 python3 -m pytest -q -n 16 -p xdist -rf tests/test_decode.py \
    tests/test_speculative.py tests/test_precision.py -k "kda or gla or vtiles" > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_decode ab_verify 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
