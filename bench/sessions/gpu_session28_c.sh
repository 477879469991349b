#!/usr/bin/env bash
# Session 28, third device call: the table audit over the batch-64 and batch-512 entries
# of the replay and conventional decodes (call a covered batches 1 and 8), each flagged
# configuration re-swept (`--retune`), so that the issue 5 suite (call d) runs on audited
# tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 470 python3 bench/table_audit.py --out "$OUT/audit" --batches 64,512 \
    --kernels replay_decode,conventional_decode --retune 50 > "$OUT/audit.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "stale|plan$|^python" "$OUT/audit.log" | cut -c1-250; grep -E "^[a-z0-9_]+ +(replay|conv).* [0-9]+ +[0-9]+ " "$OUT/audit.log" | cut -c1-200 | tail -12
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log audit tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
