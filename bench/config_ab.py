"""A/B timing of configurations of one geometry that differ in what they store (gate
records per step or cumulative, record field precisions), each under forced launches, in
one GPU run, with the outputs of every version compared with the first's.

Usage (on the H200, from the repository root):
    python bench/config_ab.py --variant kda --geometry kimi-linear-48b --out DIR \
        --configs "gate_records=cumulative;gate_records=step+g=bf16;gate_records=step+g=fp16" \
        --launches "16/1/3/sep,16/1/3,16/1/2/sep" [--rounds 3]
    python bench/config_ab.py --variant gdn --geometry qwen3.5-4b --out DIR \
        --versions "read_dtype=fp8@tab;read_dtype=fp8+decode_structure=vtiles@64/4/2/sep/mma"

A configuration is `+`-separated options of replaygen.load: gate_records=step|cumulative,
decode_structure=vtiles|kchunks, read_dtype=fp8|nvfp4, fp8_scale=row|tile|col, and
FIELD=DTYPE for a record field's precision; all share fp32 checkpoints, bf16 records
otherwise, L = 16, batch 256. A launch is BV/num_warps/num_stages[/flag...], flags sep
(the flush in a separate fold launch), words (Launch.read_words), mma (Launch.read_mma)
or a Launch field as k=v (e.g. fold_warps=4), forced for the decode (`tab`: the committed
table's, or the plan's where there is none: in the interpreter set
REPLAYGEN_TUNING_GPU="NVIDIA H200" to check the H200's tabled launch). Every
(configuration, launch) of --configs x --launches, or every `configuration@launch` of
--versions (';'-separated: structures whose launches differ), is a version: one staggered
flush cycle from the same pool and inputs (seed 7) per version, outputs and final
materialised states against the first version's as normwise relative differences
(configurations that store gates in bf16 / fp16 differ at that rounding, ~1e-3; a wrong
kernel by O(1) or NaN), then CUDA-graph medians (`Workload.time_replay`: non-flush at n =
L/2, every row flushing, amortised over a staggered cycle), versions interleaved round by
round. Writes DIR/config_ab.json.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402,F401  (puts the repository on sys.path)
import torch  # noqa: E402

import replaygen  # noqa: E402
from template_ab import check  # noqa: E402  (one staggered cycle per version)
from replaygen.perf import Timer, Workload, environment  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402

L = 16
BATCH = 256


def load(variant: str, geometry: str, config: str):
    """replaygen.load of one `+`-separated configuration string."""
    opts, fields = {}, {}
    for kv in filter(None, config.split("+")):
        k, v = kv.split("=")
        if k in ("gate_records", "decode_structure", "read_dtype", "fp8_scale"):
            opts[k] = v
        else:
            fields[k] = v
    return replaygen.load(variant, config=geometry, L=L, state_dtype="fp32", record_dtype="bf16",
                          record_dtypes=fields or None, **opts)


FLAGS = {"sep": "separate_flush", "words": "read_words", "mma": "read_mma"}


def launch(spec: str) -> Launch | None:
    if spec == "tab":
        return None
    bv, warps, stages, *flags = spec.split("/")
    bad = [f for f in flags if f not in FLAGS and "=" not in f]
    if bad:
        raise SystemExit(f"{spec}: {bad[0]!r} is neither a flag ({', '.join(FLAGS)}) nor k=v")
    pairs = [(FLAGS[f], "1") if f in FLAGS else f.split("=", 1) for f in flags]
    return Launch(int(bv), int(warps), int(stages), **common.launch_fields(pairs, spec))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--geometry", required=True)
    ap.add_argument("--configs", default="", help="configurations, ';'-separated")
    ap.add_argument("--launches", default="tab", help="launches, ','-separated")
    ap.add_argument("--versions", default=None, help="configuration@launch pairs, ';'-separated "
                    "(instead of --configs x --launches)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--no-time", action="store_true", help="the check only (runs on a CPU too)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    pairs = ([v.rpartition("@")[::2] for v in args.versions.split(";")] if args.versions else
             [(c, spec) for c in args.configs.split(";") for spec in args.launches.split(",")])
    versions = []
    for config, spec in pairs:
        kern = load(args.variant, args.geometry, config)
        forced = launch(spec)
        if forced is not None:
            kern.forced["replay_decode"] = forced
        versions.append((f"{config or 'default'} @ {spec}", kern))
    checked = check([k for _, k in versions], device, args.batch)
    result = {"meta": environment(sys.argv), "versions": []}
    for i, (name, kern) in enumerate(versions):
        result["versions"].append({
            "version": name, "kernel": kern.name,
            "launch": kern.launch_args("replay_decode", args.batch, device)[1],
            "out": checked["out"][i], "state": checked["state"][i], "nan": checked["nan"][i],
            "times": []})
    if not args.no_time:
        timer = Timer(device)
        works = [Workload(k, args.batch, device) for _, k in versions]
        for _ in range(args.rounds):
            for v, work in zip(result["versions"], works):
                v["times"].append(work.time_replay(timer, args.batch))
    args.out.mkdir(parents=True, exist_ok=True)
    first = None
    for v in result["versions"]:
        ts = v["times"]
        v["median"] = {q: sorted(t[q] for t in ts)[len(ts) // 2] for q in ts[0]} if ts else {}
        first = first or v["median"]
        ratio = (f" | amortised {first['amortised'] / v['median']['amortised']:.3f}x"
                 if v["median"] else "")
        print(f"{v['version']:<48} out {v['out']:.1e} state {v['state']:.1e} nan {v['nan']} | "
              + " ".join(f"{q} {m:.4f}" for q, m in v["median"].items()) + ratio, flush=True)
    (args.out / "config_ab.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
