#!/usr/bin/env bash
# Prepared in session 30 for session 31, after bench/sessions/gpu_session31_b.sh (copy its tables into
# generated/ first): the issue 5 rows of GDN and Mamba-2 (batch 256, L = 16) in the suite's
# timing, against fla's GDN kernel.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m replaygen bench --variants gdn,mamba2 --L 16 --batches 256 --out "$OUT/suite" \
    > "$OUT/suite.log" 2>&1
grep -E "^\| (gdn|mamba2) " "$OUT/suite/bench.md" | head -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log suite 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
