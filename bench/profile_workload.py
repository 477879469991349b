"""Launch one configuration's kernels on a real-geometry workload, for ncu to read.

Each kernel is launched three times after the workload's L - 1 filling decodes and a
warm-up (so skip L + 2 launches): the replay decode with every cursor
at L/2 (a non-flush step), at L - 1 (every row flushes), and the conventional step. The
tuning table of the repository picks the launches, as in serving.

Usage (on the GPU machine):
  ncu --clock-control none -k regex:decode --launch-skip 18 --launch-count 3 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      python3 bench/profile_workload.py gdn [--config NAME] [--L 16] [--batch 256]
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
args = ap.parse_args()
kern = replaygen.load(args.variant, config=args.config, L=args.L)
w = Workload(kern, args.batch, "cuda")
L = kern.plan.L
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
