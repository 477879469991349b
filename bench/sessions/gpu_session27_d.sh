#!/usr/bin/env bash
# Session 27, fourth device call. (1) bench/table_audit.py over every L = 16 decode entry
# at batch 256: precision_bench measures GLA's fp32 replay step at 0.29 ms amortised
# (sessions 26-27) where its table entry claims 0.185 (split 2); KDA's agree with their
# tables. Each entry re-timed through the runtime's lookup as the tuner times it, the
# plan's launch beside it, and the benchmarks' way. (2) GLA's read-copy decodes re-tuned
# with phase 6's fold splits up to 32 (its fold launch after a staggered step has 64
# blocks of 512 KiB: 0.06 ms per step against ~0.018 of bytes).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 240 python3 bench/table_audit.py --out "$OUT/audit" --match __L16__ > "$OUT/audit.log" 2>&1
tail -22 "$OUT/audit.log"
tune_decode gla gla-1.3b nvfp4 140
tune_decode gla gla-1.3b fp8 130
grep -E "replay_decode +256|budget" "$OUT/tune.log" | tail -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log audit tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
