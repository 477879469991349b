"""How fast can a decode program read its fp32 checkpoint block? Pointer loads against the
Hopper tensor-memory accelerator (TMA), a pure read, against a device-to-device copy.

Issue 5 wants the amortised ReplaySSM step at >= 90% of the copy bandwidth; the fp32
key-chunk decodes reach 82-90% (session 31, H200). Session 3 measured the read pattern's
own ceiling with pointer loads only. This probe reads the same blocks the same way as the
decode's checkpoint stream (one program per (row, value head), [V, K] fp32 blocks, value
tiles outer and key chunks inner, the loop pipelined over STAGES), with nothing else in the
program, in two ways:

- `ptr`: tl.load of each [BV, BKT] chunk (cp.async when pipelined), as the templates do;
- `tma`: the same chunks through a host-side tensor descriptor (TMA bulk copies into
  shared memory, Triton >= 3.4's `TensorDescriptor`), which the templates do not use.

Each chunk is summed into a register tile (the reads cannot be dropped), one float per
program is stored and checked against torch. Read bandwidth is bytes read / median time
(triton.testing.do_bench, L2 flushed between runs); the copy's is (read + written) / time
of `dst.copy_(src)` over the same bytes, in the same run.

Usage: python bench/read_pattern_probe.py --out DIR [--programs 8192] [--V 128 --K 128]
Writes DIR/read_pattern.json (GPU, versions, date, commit, command, every case) and
DIR/read_pattern.md.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402,F401  (puts the repository on sys.path)
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from replaygen.perf import environment  # noqa: E402


@triton.jit
def read_ptr_kernel(x_ptr, out_ptr, V: tl.constexpr, K: tl.constexpr, BV: tl.constexpr,
                    BKT: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    base = x_ptr + pid.to(tl.int64) * V * K
    o_v = tl.arange(0, BV)
    o_k = tl.arange(0, BKT)
    acc = tl.zeros([BV, BKT], tl.float32)
    for i in tl.range(0, (V // BV) * (K // BKT), num_stages=STAGES):
        i_v = i // (K // BKT)
        i_k = i % (K // BKT)
        acc += tl.load(base + (i_v * BV + o_v)[:, None] * K + (i_k * BKT + o_k)[None, :])
    tl.store(out_ptr + pid, tl.sum(tl.sum(acc, axis=1), axis=0))


@triton.jit
def read_tma_kernel(desc, out_ptr, V: tl.constexpr, K: tl.constexpr, BV: tl.constexpr,
                    BKT: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BV, BKT], tl.float32)
    for i in tl.range(0, (V // BV) * (K // BKT), num_stages=STAGES):
        i_v = i // (K // BKT)
        i_k = i % (K // BKT)
        acc += desc.load([pid * V + i_v * BV, i_k * BKT])
    tl.store(out_ptr + pid, tl.sum(tl.sum(acc, axis=1), axis=0))


CASES = [  # (BV, BKT, warps, stages): the decodes' tabled chunks and their neighbours
    (64, 32, 1, 3), (64, 32, 2, 3), (64, 32, 4, 3), (64, 32, 1, 2), (64, 32, 1, 4),
    (128, 32, 1, 3), (128, 32, 2, 3), (128, 32, 4, 3), (32, 32, 1, 3), (16, 128, 1, 3),
    (64, 64, 2, 3), (64, 128, 4, 3), (128, 128, 4, 2), (128, 128, 8, 2)]


def run(programs: int, V: int, K: int, device, bench) -> dict:
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.randn(programs * V, K, device=device, dtype=torch.float32)
    expected = x.view(programs, V * K).double().sum(1)
    out = torch.empty(programs, device=device, dtype=torch.float32)
    nbytes = x.numel() * 4
    dst = torch.empty_like(x)
    copy_ms = bench(lambda: dst.copy_(x))
    rows = []
    for bv, bkt, warps, stages in CASES:
        if bv > V or bkt > K:
            continue
        desc = TensorDescriptor.from_tensor(x, [bv, bkt])
        for mode in ("ptr", "tma"):
            if mode == "ptr":
                fn = lambda: read_ptr_kernel[(programs,)](x, out, V, K, bv, bkt, stages, num_warps=warps)  # noqa: E731
            else:
                fn = lambda: read_tma_kernel[(programs,)](desc, out, V, K, bv, bkt, stages, num_warps=warps)  # noqa: E731
            row = dict(mode=mode, BV=bv, BKT=bkt, warps=warps, stages=stages)
            try:
                out.fill_(float("nan"))
                fn()
                err = ((out.double() - expected).abs() / expected.abs().clamp_min(1.0)).max().item()
                row["max_rel_err"] = err
                row["ok"] = err < 1e-4
                if row["ok"] and device.type == "cuda":
                    ms = bench(fn)
                    row.update(ms=ms, read_TBps=nbytes / ms / 1e9,
                               of_copy=(nbytes / ms) / (2 * nbytes / copy_ms))
            except Exception as exc:  # noqa: BLE001 - reported per case
                row.update(ok=False, error=f"{type(exc).__name__}: {str(exc)[:200]}")
            rows.append(row)
            print(row, flush=True)
    return dict(programs=programs, V=V, K=K, bytes=nbytes, copy_ms=copy_ms,
                copy_TBps=2 * nbytes / copy_ms / 1e9 if copy_ms else None, rows=rows)


def markdown(report: dict) -> str:
    lines = [f"# Read pattern probe ({report['gpu']}, {report['date']}, commit {report['commit']})",
             "", f"`{report['command']}`", "",
             f"{report['programs']} programs x [{report['V']}, {report['K']}] fp32 "
             f"({report['bytes'] / 2**20:.0f} MiB); copy {report['copy_ms']:.4f} ms = "
             f"{report['copy_TBps']:.2f} TB/s (read + written).", "",
             "| BV | BKT | warps | stages | ptr ms | ptr of copy | tma ms | tma of copy | tma / ptr |",
             "|---|---|---|---|---|---|---|---|---|"]
    by = {}
    for r in report["rows"]:
        by.setdefault((r["BV"], r["BKT"], r["warps"], r["stages"]), {})[r["mode"]] = r
    for key, modes in by.items():
        cells = []
        for m in ("ptr", "tma"):
            r = modes.get(m, {})
            cells += ([f"{r['ms']:.4f}", f"{r['of_copy']:.1%}"] if r.get("ms")
                      else [r.get("error", "wrong")[:40] if r else "-", ""])
        ratio = (f"{modes['ptr']['ms'] / modes['tma']['ms']:.3f}x"
                 if modes.get("ptr", {}).get("ms") and modes.get("tma", {}).get("ms") else "")
        lines.append("| " + " | ".join(map(str, key)) + " | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--programs", type=int, default=8192, help="(row, value head) blocks")
    ap.add_argument("--V", type=int, default=128)
    ap.add_argument("--K", type=int, default=128)
    args = ap.parse_args(argv)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cuda":
        bench = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")  # noqa: E731
    else:   # the interpreter: correctness only
        bench = lambda fn: None  # noqa: E731
    report = dict(environment(argv), **run(args.programs, args.V, args.K, device, bench))
    report["command"] = "python bench/read_pattern_probe.py " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "read_pattern.json").write_text(json.dumps(report, indent=1) + "\n")
    if device.type == "cuda":
        (args.out / "read_pattern.md").write_text(markdown(report))
        print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
