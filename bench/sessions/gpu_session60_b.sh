#!/usr/bin/env bash
# Session 59 (for session 60), ~6 min, any card. bench/proto/s59_nvfp4_chain_probe.py: the
# NVFP4 non-flush decode's loads (GDN 4B, batch 256, n = 8) with almost no arithmetic, as
# one program per (row, value head) walking its chain of dependent loads ("chain", the
# decode's pattern) and as persistent programs that issue the next item's loads before
# the current item's arithmetic ("persistent"), each also with the decode's own arithmetic
# ("real"), against the generated decode and a copy.
# If persistent moves the bytes much faster than chain, a persistent decode is worth
# building (NOTES, session 59). Then issue 4's table, whose "% bytes bound" now divides by
# a copy measured in the run (precision_bench, session 59: its first GPU run).
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 420 python3 bench/proto/s59_nvfp4_chain_probe.py --out "$OUT/chain_probe" > "$OUT/chain_probe.log" 2>&1
echo "probe rc=$?"; tail -24 "$OUT/chain_probe.log" | cut -c1-220
issue4_table table
grep -m1 "bytes bound:" "$OUT/table/precision_bench.md"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
