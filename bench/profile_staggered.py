"""Launch one configuration's decode step with staggered cursors (batch 256, L = 16: one
row in 16 fills its ring, as in every step of the amortised cycle), for a profiler.

Usage: ncu --clock-control none -k regex:'decode|fold' python bench/profile_staggered.py \
           VARIANT [none|nvfp4|fp8] [STEPS] [staggered|flush|nonflush] [TEMPLATES]
flush: every row's ring fills (n = L - 1, the flush step); nonflush: n = L / 2.
TEMPLATES: a template folder to render the kernels from (bench/template_ab.py's versions).
The configuration is the variant's real geometry (bench/common.GEOMS), fp32 checkpoint,
with the committed tuned launch. Each step is one `decode` (the decode launch, and the
fold launch where the flush is separate), with the cursors reset to the stagger first.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, use_templates  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.perf import Workload  # noqa: E402

variant = sys.argv[1]
read = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "none" else None
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
mode = sys.argv[4] if len(sys.argv) > 4 else "staggered"
if len(sys.argv) > 5:
    use_templates(sys.argv[5])
kern = replaygen.load(variant, config=GEOMS[variant], L=16, state_dtype="fp32", read_dtype=read)
work = Workload(kern, 256, "cuda")
setup = {"staggered": work.staggered(), "flush": work.cursors(kern.plan.L - 1),
         "nonflush": work.cursors(kern.plan.L // 2)}[mode]
for _ in range(steps):
    setup()
    work.decode(256)
torch.cuda.synchronize()
print(kern.name, kern._launch("replay_decode", 256, "cuda")[2])
