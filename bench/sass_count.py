"""Offline SASS of one tuned kernel: compiled for sm_90 on a CPU machine (no GPU), its
static instruction count, registers, spills and tensor-core instructions, optionally the
instructions per kernel source line.

A proxy, not a timing: static counts weigh a loop body once and say nothing of latency
or bandwidth. It sizes an instruction-bound kernel's change between GPU sessions (the
A/B on the H200 decides); sessions 22-23 did the same by hand.

Usage (from the repository root, without TRITON_INTERPRET; with the Triton the H200's
image has, 3.6, for counts that match its compiles: `pip download --no-deps
triton==3.6.0` into a virtual environment of its own):
    python bench/sass_count.py --variant kda --L 16 --max-drafts 8 --kernel verify \
        [--batch 256] [--templates DIR] [--lines 20] [--verify-folds]
The launch is the committed table's entry for that configuration, kernel and batch (the
plan's when there is none). --templates renders the kernels from another template folder
(as bench/template_ab.py does), so two versions compare on the same launch.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))   # (common: the A/B template folders, launch fields)


def sass_of(compiled) -> str:
    """nvdisasm of the compiled cubin, with source line markers."""
    from triton.backends.nvidia.compiler import get_ptxas
    ptxas = get_ptxas(90)
    nvdisasm = Path(getattr(ptxas, "path", ptxas)).with_name("nvdisasm")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        return subprocess.run([str(nvdisasm), "-g", "-c", str(cubin)], capture_output=True,
                              text=True, check=True).stdout


INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
LINE_MARK = re.compile(r'File "([^"]+)", line (\d+)')


LABEL = re.compile(r"^(\.L_x_\d+):")
BRANCH = re.compile(r"\bBRA\b.*`\((\.L_x_\d+)\)")


def summarise(sass: str) -> tuple[collections.Counter, collections.Counter, list, list]:
    """(opcodes, instructions per source line, loops, skips) of a kernel's SASS. A loop is
    a branch back to a label: (label, instructions from the label to the branch). A skip
    is a conditional branch forward within a loop: (loop label, instructions it jumps
    over), e.g. work a loop does in some iterations only."""
    ops, lines, line = collections.Counter(), collections.Counter(), None
    labels, loops, count, forward = {}, [], 0, []
    for text in sass.splitlines():
        if "//## File" in text:
            mark = LINE_MARK.search(text)
            line = f"{Path(mark.group(1)).stem.split('__')[0]}:{mark.group(2)}" if mark else None
            continue
        label = LABEL.match(text)
        if label:
            labels[label.group(1)] = count
            continue
        m = INSTRUCTION.match(text)
        if m:
            count += 1
            ops[m.group(2).split(".")[0]] += 1
            lines[line] += 1
            target = BRANCH.search(text)
            if target and target.group(1) in labels:
                loops.append((target.group(1), count - labels[target.group(1)]))
            elif target and m.group(1):   # predicated: a conditional branch forward
                forward.append((count, target.group(1)))
    skips = []
    for start, label in forward:
        inside = [(n, name) for name, n in loops if labels[name] < start <= labels[name] + n
                  and labels[label] <= labels[name] + n]
        if inside:   # (the innermost loop holding the branch and its label)
            skips.append((min(inside)[1], labels[label] - start))
    return ops, lines, loops, skips


# sm_90's per-SM limits besides registers (CUDA occupancy tables): shared memory, warps,
# blocks
SM90_SHARED, SM90_WARPS, SM90_BLOCKS = 228 * 1024, 64, 32
SM90_BLOCK_RESERVED_SHARED = 1024   # the runtime's per-block reservation


def residency(compiled, usage: str) -> dict:
    """Programs per SM each resource allows (registers, as ptxas's `usage` line reports
    them, by the tuner's rule `tune.programs_per_sm`; shared memory; warps): occupancy,
    which bounds how much latency a latency-bound kernel hides."""
    from replaygen.tune import programs_per_sm
    regs = int(re.search(r"Used (\d+) registers", usage).group(1))
    num_warps = compiled.metadata.num_warps
    out = {"registers": regs, "shared": compiled.metadata.shared, "num_warps": num_warps,
           "by_registers": programs_per_sm(regs, num_warps) if regs else SM90_BLOCKS,
           "by_shared": SM90_SHARED // (compiled.metadata.shared + SM90_BLOCK_RESERVED_SHARED),
           "by_warps": SM90_WARPS // num_warps}
    out["programs_per_sm"] = min(out["by_registers"], out["by_shared"], out["by_warps"], SM90_BLOCKS)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--config", default=None, help="geometry (default: the spec's first)")
    ap.add_argument("--L", type=int, default=16)
    ap.add_argument("--max-drafts", type=int, default=1)
    ap.add_argument("--verify-folds", action="store_true", help="load(..., verify_folds=True) "
                    "(its verify_fold launch)")
    ap.add_argument("--kernel", default="verify", help="a tuning-table kernel: verify, "
                    "verify_fold, replay_decode, fold, commit, conventional_decode")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--gpu", default="NVIDIA H200", help="the tuning table's GPU whose "
                    "launch is compiled (e.g. \"NVIDIA H100 80GB HBM3\")")
    ap.add_argument("--launch", default=None, help="overrides of the tabled launch, "
                    "k=v[,k=v...] (Launch fields, e.g. BV=32,num_warps=2)")
    ap.add_argument("--decode-structure", default=None, help="kchunks or vtiles")
    ap.add_argument("--gate-records", default=None, help="step or cumulative (a per-channel "
                    "decay's gate records; default: the plan's)")
    ap.add_argument("--read-dtype", default=None, help="a read copy: fp8 or nvfp4")
    ap.add_argument("--fp8-scale", default=None, help="the fp8 read copy's scales: row, col, tile")
    ap.add_argument("--templates", default=None, help="render from this template folder")
    ap.add_argument("--lines", type=int, default=0, help="print the N busiest source lines")
    ap.add_argument("--json", default=None, help="append the counts to this JSON-lines file")
    ap.add_argument("--flags", default=None, help="the kernel's compile-time flags replaced, "
                    "K=V[,K=V...] (ints, True / False, None; e.g. QSTAGES=3,QSPLIT=1 for the "
                    "queued fold as a decode entry's fold_stages and fold_split launch it)")
    ap.add_argument("--split-head", type=int, choices=(1, 2), default=None,
                    help="a verify launch with head_launch: compile its head launch (1, the "
                         "default) or its stream launch (2)")
    args = ap.parse_args(argv)

    if args.templates:
        from common import use_templates
        use_templates(Path(args.templates))
    import test_compile_sm90 as sm90
    from replaygen.runtime import load

    kern = load(args.variant, config=args.config, L=args.L, max_drafts=args.max_drafts,
                read_dtype=args.read_dtype, fp8_scale=args.fp8_scale,
                decode_structure=args.decode_structure, gate_records=args.gate_records,
                **({"verify_folds": True} if args.verify_folds else {}))
    name, flags = sm90.TABLE_KERNELS[args.kernel]
    launch = kern.table_launch(args.kernel, args.batch, args.gpu)
    if args.launch:
        import dataclasses
        from common import launch_fields
        pairs = [item.split("=", 1) for item in args.launch.split(",")]
        if launch is None:   # no table entry: the plan's own launch
            from replaygen.plan import plan_tiles
            from replaygen.tuning import Launch
            BV, BKT, warps = plan_tiles(kern.plan, args.kernel)
            launch = Launch(BV=BV, BKT=BKT, num_warps=warps, num_stages=3)
        launch = dataclasses.replace(launch, **launch_fields(pairs, "--launch"))
    if args.flags:
        def value(text):
            words = {"True": True, "False": False, "None": None}
            return words[text] if text in words else int(text)
        pairs = [item.split("=", 1) for item in args.flags.split(",")]
        unknown = [k for k, _ in pairs if k not in flags]
        if unknown:
            raise SystemExit(f"--flags: {unknown[0]!r} is not a flag of {args.kernel} ({', '.join(flags)})")
        flags = {**flags, **{k: value(v) for k, v in pairs}}
    warps = None
    if args.split_head:
        flags = {**flags, "SPLIT_HEAD": args.split_head}
        if args.split_head == 1 and launch.head_warps is not None:   # as runtime.verify
            warps = launch.head_warps
    compiled = sm90.compile_kernel(kern, name, launch, warps=warps, table_kernel=args.kernel, **flags)
    ops, lines, loops, skips = summarise(sass_of(compiled))
    print(f"{kern.name} {args.kernel} batch {args.batch}: launch {launch}")
    usage = sm90.ptxas_usage(compiled)   # (runs ptxas: once)
    print(f"  {sum(ops.values())} SASS instructions; {usage}")
    res = residency(compiled, usage)
    print(f"  shared memory {res['shared']} B; programs per SM: {res['programs_per_sm']} "
          f"(registers {res['by_registers']}, shared memory {res['by_shared']}, warps {res['by_warps']})")
    mma = {k: v for k, v in ops.items() if k.startswith(("HMMA", "HGMMA", "QGMMA", "IMMA"))}
    print("  tensor-core: " + (", ".join(f"{k} {v}" for k, v in sorted(mma.items())) or "none"))
    print("  top opcodes: " + ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
    print("  loops (instructions per iteration): "
          + (", ".join(f"{label} {n}" for label, n in loops) or "none"))
    big = [(label, n) for label, n in skips if n >= 32]
    if big:
        print("  branches forward inside loops (instructions skipped): "
              + ", ".join(f"{label} {n}" for label, n in big))
    if args.json:
        import triton
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
        row = {"commit": commit, "config": kern.name, "kernel": args.kernel, "batch": args.batch,
               "split_head": args.split_head,
               "templates": args.templates or "templates", "launch": str(launch),
               "triton": triton.__version__, "instructions": sum(ops.values()),
               "ptxas": usage, "residency": res, "loops": loops, "skips": skips,
               "opcodes": dict(ops),
               "command": "python bench/sass_count.py " + " ".join(argv or sys.argv[1:])}
        with open(args.json, "a") as f:
            f.write(json.dumps(row) + "\n")
    if args.lines:
        print("  busiest source lines (line: instructions):")
        for line, count in lines.most_common(args.lines):
            print(f"    {line}: {count}")
    return 0


if __name__ == "__main__":
    # the compiler, not the interpreter (set here only: tests import this module for its
    # parser, in processes that must keep interpreting)
    os.environ.pop("TRITON_INTERPRET", None)
    sys.exit(main())
