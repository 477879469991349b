#!/usr/bin/env bash
# Prepared in session 30 for session 31's first device call. The one-pass flush
# (Launch.onepass_flush, c74cfb0) has run on the GPU only as session 30's A/B prototype
# (bench/proto/s30_onepass2_flush.diff, call i); the integrated kernel only in the
# interpreter, which runs programs one after another and so never races the key group's
# arrival count. (1) Its decode tests on the H200 (small dims: every program of a launch
# resident at once), with the other decode tests. (2) bench/flush_tail.py with the
# tables' launches against the same launches folding in one pass (outputs checked against
# the tables': ~4e-4 / 7e-4 expected, the flushing token's record now rounded to bf16 like
# every other token's), at their own register cap and the caps that fit more programs.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 14 -p xdist tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
for g in gdn:qwen3.5-4b gdn:qwen3.5-122b-a10b mamba2:nemotron3-nano-4b mamba2:nemotron3-super-120b; do
    timeout 150 python3 bench/flush_tail.py --out "$OUT/tail_${g#*:}" --variants ${g%%:*} --configs ${g#*:} \
        --launches "tab;tab+onepass_flush=1;tab+onepass_flush=1,maxnreg=168;tab+onepass_flush=1,maxnreg=128" \
        > "$OUT/tail_${g#*:}.log" 2>&1
    grep "^| " "$OUT/tail_${g#*:}/flush_tail.md" | tail -4 || tail -5 "$OUT/tail_${g#*:}.log"
done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tail_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
