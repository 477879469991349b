"""Launch one configuration's kernels on a real-geometry workload, for ncu to read.

Each kernel is launched three times after the workload's L - 1 filling decodes and a
warm-up (so skip L + 2 launches): the replay decode with every cursor
at L/2 (a non-flush step), at L - 1 (every row flushes), and the conventional step. The
tuning table of the repository picks the launches, as in serving. With --max-drafts T
the configuration is the speculative one and the kernels are verify (T drafts past L/2
committed records, or --verify-at N) and the commit's fold (every row accepts them all:
with N = L every row folds), each launched
once to warm up and once more to be profiled (skip 2: `-k regex:"verify|fold"`). With
--verify-folds the verify is two launches of verify_kernel, the plain rows' and the folding
rows' (skip 3, count 1 for the folding one when every row folds).
With --staggered: one decode step with staggered cursors (one row in L folds; with
the flush separate, its fold launch too) between cudaProfilerStart and Stop, for
`ncu --profile-from-start off`.

Usage (on the GPU machine):
  ncu --clock-control none -k regex:decode --launch-skip 18 --launch-count 3 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      python3 bench/profile_workload.py gdn [--config NAME] [--L 16] [--batch 256] [--read-dtype fp8]
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.perf import Workload  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("variant")
ap.add_argument("--config", default=None)
ap.add_argument("--L", type=int, default=16)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--max-drafts", type=int, default=1)
ap.add_argument("--read-dtype", default=None)   # fp8 / nvfp4: the read-copy configuration
ap.add_argument("--fp8-scale", default="row")
ap.add_argument("--staggered", action="store_true",
                help="profile one decode step with staggered cursors (1 row in L folds; its "
                     "fold launch too, when the flush is separate) between "
                     "cudaProfilerStart/Stop: run ncu with --profile-from-start off")
ap.add_argument("--verify-at", type=int, default=None,
                help="with --max-drafts: the committed records before the verify (default L/2; "
                     "CAP, i.e. L, makes the commit of all T drafts fold every row)")
ap.add_argument("--verify-folds", action="store_true",
                help="with --max-drafts: load(..., verify_folds=True); with --verify-at past CAP - T "
                     "every row takes the folding launch (verify_fold), launched after the plain one")
ap.add_argument("--device", default="cuda")   # cpu: a check of this script in the interpreter
args = ap.parse_args()
read = {"read_dtype": args.read_dtype} if args.read_dtype else {}
if args.read_dtype == "fp8":   # (load refuses a scale granularity for other formats)
    read["fp8_scale"] = args.fp8_scale
if args.verify_folds:
    read["verify_folds"] = True
kern = replaygen.load(args.variant, config=args.config, L=args.L, max_drafts=args.max_drafts, **read)
w = Workload(kern, args.batch, args.device)
L = kern.plan.L
if args.max_drafts > 1:
    T = args.max_drafts
    n = L // 2 if args.verify_at is None else args.verify_at
    accepted = torch.full((args.batch,), T, dtype=torch.int32, device=args.device)
    for _ in range(2):   # warm-up, then the profiled launches
        w.cursors(n)()
        w.verify(args.batch)
        kern.commit(w.state, w.all_slots[:args.batch], accepted, check=False)
    if args.device == "cuda":
        torch.cuda.synchronize()
    print(kern.name, "profiled: verify of", T, "drafts at n =", n, "and its commit")
    sys.exit(0)
if args.staggered:
    for _ in range(2):   # warm-up, then the profiled step
        w.staggered()()
        torch.cuda.synchronize()
        if _:
            torch.cuda.profiler.start()
        w.decode(args.batch)
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(kern.name, "profiled: one decode step with staggered cursors")
    sys.exit(0)
for n in (L // 2, L - 1):   # warm-up: compile everything first
    w.cursors(n)()
    w.decode(args.batch)
w.conventional(args.batch)
torch.cuda.synchronize()
for n in (L // 2, L - 1):   # the profiled launches
    w.cursors(n)()
    w.decode(args.batch)
w.conventional(args.batch)
torch.cuda.synchronize()
print(kern.name, "profiled: decode at n =", L // 2, "and", L - 1, ", conventional")
