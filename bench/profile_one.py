"""Launch each kernel of one configuration a few times, for a profiler (ncu) to read.

Usage: ncu --clock-control none -k regex:decode python bench/profile_one.py VARIANT [BV NW]
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import torch  # noqa: E402

import replaygen  # noqa: E402
from gpu_check import random_inputs, random_params  # noqa: E402
from sweep import GEOMS  # noqa: E402

variant = sys.argv[1]
bv = int(sys.argv[2]) if len(sys.argv) > 2 else None
nw = int(sys.argv[3]) if len(sys.argv) > 3 else None
batch, device = 256, "cuda"
gen = torch.Generator(device=device).manual_seed(0)
kern = replaygen.load(variant, config=GEOMS[variant], L=16, block_v=bv, num_warps=nw)
params = random_params(kern, device, gen)
slots = torch.arange(batch, device=device, dtype=torch.int32)
state = kern.new_state(batch, device, **params)
inputs = random_inputs(kern, batch, device, torch.bfloat16, gen)
pool = torch.randn((batch,) + kern.state_shape, device=device, generator=gen)
for _ in range(3):
    state.cursor.zero_()
    kern.decode(state, slots, **inputs)
    kern.conventional_decode(pool, slots, **inputs, **params)
torch.cuda.synchronize()
