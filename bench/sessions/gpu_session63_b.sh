#!/usr/bin/env bash
# Session 63, call b, ~7 min on an H200, ~3 min elsewhere. On an H200 (after call a, with
# the conventional tables it re-swept committed): issue 4's table and issue 3's rows
# against the faster conventional step. On any card: gpu_session62_f.sh (the timing probe
# of an fp32 checkpoint read in key blocks), which also packs this call's files.
# One tarball comes back.
here="$(dirname "$0")"
source "$here/../gpu_env.sh"
export PYTHONPATH=.
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    issue4_table table
    spec_rows gdn,mamba2,kda,gla 8
fi
bash "$here/gpu_session62_f.sh"
