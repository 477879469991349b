#!/usr/bin/env bash
# Session 31, after call f (GDN 4B's batch-256 decode tabled with its flushing programs
# first: 1.72x vs fla in the suite, at 0.1677 ms, the margin thin): issue 5's rows again,
# GDN, Mamba-2 and KDA at batch 256, L = 16, in one suite run, for a second same-run ratio.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 330 python3 -m replaygen bench --variants gdn,mamba2,kda --L 16 --batches 256 --out "$OUT/suite" \
    > "$OUT/suite.log" 2>&1
grep -E "^\| (gdn|mamba2|kda) \| [a-z0-9.-]+ \| 16 \| 256 \| [0-9]" "$OUT/suite/bench.md" | head -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log suite 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
