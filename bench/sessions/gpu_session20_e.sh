#!/usr/bin/env bash
# Session 20, fifth device call (the last ~6 device minutes), after the value-tile verify
# of a delta rule (KDA) takes its window as three per-program matrices (Z = H_x·x_ck +
# H_v·V_d + H_c·W_c; offline sm_90 KDA's tile loop 548 -> 405 instructions, shared memory
# 27.0 -> 24.0 KiB): (1) KDA's speculative GPU tests; (2) spec_bench for KDA at T = 8,
# batch 256 (check, timing, 16-window accuracy); (3) A/B of KDA's verify launch against
# the session's starting templates (bench/ab_templates/base, carried).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 75 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k kda > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"
timeout 90 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|^CHECK" "$OUT/spec_default.log" | cut -c1-300
grep "| kda | bf16" "$OUT/spec_default/spec_bench.md"
timeout 80 python3 bench/template_ab.py --kernel verify --rounds 2 --templates bench/ab_templates/base,templates \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -1 "$OUT/ab_verify.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify spec_default 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
