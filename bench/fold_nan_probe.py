"""Do the commit's fold launches read ring rows past the committed records? (H200)

Session 16, call 2: template_ab's fold check (which, unlike its verify check, leaves the
ring rows that no decode or verify wrote as they were allocated) found NaN in KDA's
materialised state after a commit at the tabled T = 8 fold launch ([16]/w4/s3) and not at
other launches. new_state fills unwritten ring rows with NaN so that a kernel that reads
them is loud. For each case and fold launch: a workload (batch 256, L = 16, T = 8), ring
rows past L - 2 set to NaN, staggered cursors, a verify of seeded draft counts and a
commit of seeded accepted counts; then NaN counts of the verify's outputs, of the ring
rows below each row's new cursor, of the checkpoint (and the same with those rows zeroed,
as a control, and the same launch in the interpreter's semantics is covered by the tests).

Usage: python bench/fold_nan_probe.py --out FILE.json [--cases kda:kimi-linear-48b,...]
"""
import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402,F401
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.perf import Workload, environment  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402

L, T, B = 16, 8, 256
LAUNCHES = [None, (16, 4, 3), (16, 4, 1), (16, 2, 3), (16, 1, 3), (32, 4, 3), (32, 2, 3)]


def commit_once(variant, geometry, launch, fill) -> SimpleNamespace:
    """One verify and commit on a fresh workload (see the docstring): `launch` (BV,
    warps, stages) forces the fold launch (None: the tabled one); ring rows past L - 2
    hold `fill`. Returns the launch used, the verify's outputs, the cursors, draft and
    accepted counts, and the checkpoints before and after the commit."""
    kern = replaygen.load(variant, config=geometry, L=L, state_dtype="fp32", record_dtype="bf16",
                          max_drafts=T)
    if launch is not None:
        kern.forced["fold"] = Launch(*launch)
    consts, options = kern.launch_args("fold", B, torch.device("cuda"))
    w = Workload(kern, B, "cuda", seed=7)
    w.staggered()()
    for r in w.state.ring.values():
        r[:, :, L - 1:] = fill
    cursor_before = w.state.cursor[:B].clone()
    before = w.state.checkpoint[:B].clone()
    out, counts, accepted, folded = w.speculate(B)
    torch.cuda.synchronize()
    res = SimpleNamespace(launch={k: consts[k] for k in ("BV", "BL") if k in consts} | options,
                          out=out, counts=counts, accepted=accepted, cursor_before=cursor_before,
                          cursor_after=w.state.cursor[:B].clone(), before=before,
                          after=w.state.checkpoint[:B].clone(), folded=folded)
    del w
    return res


def probe(variant, geometry, launch, fill):
    c = commit_once(variant, geometry, launch, fill)
    bad_rows = torch.isnan(c.after.float()).flatten(1).any(1)
    return {"case": f"{variant}:{geometry}", "forced": launch, "fill": fill, "launch": c.launch,
            "out_nan": int(torch.isnan(c.out.float()).sum()),
            "ckpt_nan_rows": int(bad_rows.sum()), "folded_rows": int(c.folded.sum()),
            "nan_rows_not_folded": int((bad_rows & ~c.folded).sum())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cases", default="kda:kimi-linear-48b,gla:gla-1.3b,gdn:qwen3.5-4b,"
                                       "mamba2:nemotron3-nano-4b")
    args = ap.parse_args()
    rows = []
    for case in args.cases.split(","):
        variant, geometry = case.split(":")
        for launch in LAUNCHES:
            for fill in (float("nan"), 0.0) if launch is None else (float("nan"),):
                try:
                    r = probe(variant, geometry, launch, fill)
                except Exception as e:   # (a launch a configuration refuses)
                    r = {"case": case, "forced": launch, "fill": fill, "error": str(e)[:200]}
                rows.append(r)
                print(json.dumps(r), flush=True)
    args.out.write_text(json.dumps({"meta": environment(sys.argv), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
