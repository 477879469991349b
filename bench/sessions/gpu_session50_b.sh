#!/usr/bin/env bash
# Session 50, any GPU, ~3 min (issue 3): where KDA's T = 8 folding verify launch
# (verify_folds=True, FOLDING: read the checkpoint, fold the committed records, write it,
# and serve the drafts from the folded tiles) spends its time. It runs at ~1.8 TB/s
# (0.633 ms for every row, session 49 call G), against 2.89 for the commit's fold; at the
# plain verify's 81% of the copy the verify_folds protocol would be ~1.09x a decode step
# (model 0.975x) against the default's 1.13x. ncu of that launch at the table's launch,
# every row folding (profile_workload.py --verify-folds --verify-at 16: the plain launch,
# with no rows, then the folding one; skip the warm-up's two and the plain one).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
ncu_verify kda-vfold 3 kda --config kimi-linear-48b --max-drafts 8 --verify-folds --verify-at 16
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
