"""Session 47: why the tuner's timing process compiles Mamba-2 Nano's FP8 decode launches
again after its compile workers compiled them (session 47, call 3, H100: each candidate's
first eager cycle 1.7-2.3 s of Triton compiling, LLVM and ptxas, in the timing process;
the fp32 decode's 0.01 s; the FP8 workload's first launches 4.4 s against 0.4).

For each configuration (FP8 read copy, then fp32), a few decode candidates are compiled
in worker processes (perf.precompile, as the tuner does), gathering the workers' on-disk
cache keys (perf.CompileKeys); then this process builds the workload and runs one eager
flush cycle per candidate under CompileKeys, and every kernel it compiled (a disk cache
miss) is printed with the parts of its key that the nearest worker key lacks.

    python bench/proto/s47_timing_probe.py --out DIR       (GPU)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from replaygen.perf import CompileKeys, Workload, key_difference, precompile  # noqa: E402
from replaygen.runtime import load  # noqa: E402
from replaygen.tune import candidates  # noqa: E402


def probe(read, n, device, log):
    name = read or "fp32"
    kern = load("mamba2", config="nemotron3-nano-4b", L=16, tuning=False,
                **({"read_dtype": read} if read else {}))
    cands = candidates(kern.plan, "replay_decode")[1:n + 1]
    opts = kern.plan.config.load_options()
    ahead: set = set()
    t = time.perf_counter()
    precompile([("mamba2", opts, [("replay_decode", c) for c in cands], (256,), device)], 2, log,
               keys=ahead)
    log(f"[{name}] precompiled {len(cands)} in {time.perf_counter() - t:.1f} s: {len(ahead)} keys")
    res = []
    with CompileKeys() as here:
        t = time.perf_counter()
        work = Workload(kern, 256, device)
        log(f"[{name}] workload in {time.perf_counter() - t:.1f} s")
        for c in cands:
            kern.forced = {"replay_decode": c}
            n0 = len(here.keys)
            t = time.perf_counter()
            work.cycle(256)
            if device == "cuda":
                torch.cuda.synchronize()
            new = here.keys[n0:]
            log(f"[{name}] cycle {time.perf_counter() - t:.3f} s, kernels compiled "
                f"{sum(not h for _, _, h in new)}, loaded {sum(h for _, _, h in new)}: {c}")
            for kname, key, hit in new:
                if not hit:
                    diff = key_difference(key, [k for nm, k in ahead if nm == kname])
                    log(f"    {kname}: {diff[:3000]}")
                    res.append({"kernel": kname, "launch": str(c), "difference": diff, "key": key})
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/latest/probe")
    ap.add_argument("--n", type=int, default=2)
    ap.add_argument("--device", default="cuda", help="cpu: the flow only (the interpreter compiles nothing)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = []

    def log(m):
        print(m, flush=True)
        lines.append(m)
    res = {}
    for r in ("fp8", None):
        try:
            res[r or "fp32"] = probe(r, args.n, args.device, log)
        except Exception as exc:  # noqa: BLE001 - the other configuration still runs
            log(f"[{r or 'fp32'}] failed: {type(exc).__name__}: {exc}")
    (out / "probe.json").write_text(json.dumps({"device": torch.cuda.get_device_name() if args.device == "cuda" else args.device, "misses": res}, indent=1))


if __name__ == "__main__":
    main()
