#!/usr/bin/env bash
# Session 45, any GPU (ratios within one run), one call of ~8-9 min: decode programs over
# several value heads of one key group (Launch.heads with head_scores, the records' raw
# scores taken once per program; plan.decode_shares_keys). 1. Their GPU tests (programs
# of one launch run concurrently there, unlike in the interpreter). 2. template_ab of the
# tabled launch against head scores alone and with 4 / 12 heads per program: Mamba-2 Nano
# (12 value heads per key group) FP8 read copy (issue 4: amortised 3.36x, target 3.5x) and
# fp32 (issue 5: 87% of the copy), then GDN 4B FP8 (2 heads per group), then Mamba-2 Nano
# NVFP4. Overrides apply to every case of a run (stream_first=0 and onepass_flush=0: head
# scores exclude both). Everything comes back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -x tests/test_decode.py -k "programs_over_value_heads or head_scores" > "$OUT/tests.log" 2>&1; tail -1 "$OUT/tests.log"
HS="templates@stream_first=0+onepass_flush=0+head_scores=1"
ab m2 270 mamba2:nemotron3-nano-4b:fp8,mamba2:nemotron3-nano-4b:fp32 \
    "templates,$HS,$HS+heads=4,$HS+heads=12,$HS+heads=12+maxnreg=None,$HS+heads=12+maxnreg=168"
ab gdn 120 gdn:qwen3.5-4b:fp8 "templates,$HS,$HS+heads=2"
ab m2nv 90 mamba2:nemotron3-nano-4b:nvfp4 "templates,$HS+heads=12"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
