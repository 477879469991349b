"""Session 47 call 3's probe (then bench/proto/s47_timing_probe.py, run by
bench/sessions/gpu_session47_a.sh): the host time of each part of one Timer call of
Mamba-2 Nano's decode (FP8 read copy, then fp32) for a few candidates compiled ahead in
worker processes, and a cProfile of one Timer call. Kept here as it ran."""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from replaygen.perf import Timer, Workload, precompile  # noqa: E402
from replaygen.runtime import load  # noqa: E402
from replaygen.tune import candidates  # noqa: E402


def seconds(fn):
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t


def _capture(g, work):
    with torch.cuda.graph(g):
        work.cycle(256)


def probe(read, n, out, log):
    kern = load("mamba2", config="nemotron3-nano-4b", L=16, tuning=False,
                **({"read_dtype": read} if read else {}))
    cands = candidates(kern.plan, "replay_decode")[:n + 1]
    opts = kern.plan.config.load_options()
    t = time.perf_counter()
    precompile([("mamba2", opts, [("replay_decode", c)], (256,), "cuda") for c in cands], 8, log)
    log(f"[{read or 'fp32'}] precompiled {len(cands)} in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    work = Workload(kern, 256, "cuda")
    log(f"[{read or 'fp32'}] workload in {time.perf_counter() - t:.1f} s")
    timer = Timer(torch.device("cuda"))
    rows = []
    for c in cands[:n]:
        kern.forced = {"replay_decode": c}
        setup = work.staggered()
        seg = {"launch": str(c)}
        setup()
        seg["eager_first"] = seconds(lambda: work.cycle(256))
        setup()
        seg["eager_second"] = seconds(lambda: work.cycle(256))
        g = torch.cuda.CUDAGraph()
        setup()
        seg["capture"] = seconds(lambda: _capture(g, work))
        seg["replay"] = seconds(g.replay)
        t = time.perf_counter()
        del g
        seg["del_graph"] = time.perf_counter() - t
        seg["timer_call"] = seconds(lambda: timer(lambda: work.cycle(256), setup, True, steps=16))
        seg["timer_call_again"] = seconds(lambda: timer(lambda: work.cycle(256), setup, True, steps=16))
        log(f"[{read or 'fp32'}] " + " ".join(f"{k} {v:.3f}" for k, v in seg.items() if k != "launch")
            + f"  {c}")
        rows.append(seg)
    kern.forced = {"replay_decode": cands[n]}
    prof = cProfile.Profile()
    setup = work.staggered()
    prof.enable()
    t = time.perf_counter()
    timer(lambda: work.cycle(256), setup, True, steps=16)
    torch.cuda.synchronize()
    total = time.perf_counter() - t
    prof.disable()
    for order, suffix in (("cumulative", ""), ("tottime", "_tottime")):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats(order).print_stats(30 if not suffix else 15)
        (out / f"profile_{read or 'fp32'}{suffix}.txt").write_text(s.getvalue())
    log(f"[{read or 'fp32'}] profiled timer call {total:.3f} s")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/latest/probe")
    ap.add_argument("--n", type=int, default=3)
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
            res[r or "fp32"] = probe(r, args.n, out, log)
        except Exception as exc:  # noqa: BLE001 - the other configuration still runs
            log(f"[{r or 'fp32'}] failed: {type(exc).__name__}: {exc}")
    (out / "probe.json").write_text(json.dumps({"gpu": torch.cuda.get_device_name(), "rows": res}, indent=1))
    (out / "probe.log").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
