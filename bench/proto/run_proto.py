"""H200 experiment: the whole-head kernel structure (bench/proto/gdn_whole_head.py) vs the
generated kernels, for the Qwen3.5-4B GDN layer. Checks the prototype against the
generated kernel over a full flush cycle, then times launch variants (warps, register
caps). Usage: python bench/proto/run_proto.py --out DIR
"""
import argparse, json, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import bench, random_inputs, random_params  # noqa: E402
import torch  # noqa: E402
import replaygen  # noqa: E402
from replaygen.traffic import traffic  # noqa: E402
import gdn_whole_head as proto  # noqa: E402
import gdn_kchunk  # noqa: E402


def setup(kern, batch, L, gen, device="cuda"):
    params = random_params(kern, device, gen)
    slots = torch.arange(batch, device=device, dtype=torch.int32)
    state = kern.new_state(batch, device, **params)
    kern.load_state(state, slots, torch.randn((batch,) + kern.state_shape, device=device, generator=gen) * 0.5)
    inputs = random_inputs(kern, batch, device, torch.bfloat16, gen)
    out = torch.empty((batch, kern.plan.HV, kern.plan.V), device=device, dtype=torch.bfloat16)
    state.ring["k_hat"].copy_(torch.nn.functional.normalize(torch.randn(state.ring["k_hat"].shape, device=device, generator=gen), dim=-1))
    state.ring["g"].copy_(-torch.rand(state.ring["g"].shape, device=device, generator=gen) * 0.1)
    state.ring["u"].copy_(torch.randn(state.ring["u"].shape, device=device, generator=gen) * 0.1)
    return params, slots, state, inputs, out


def launch_proto(kern, state, slots, inputs, out, nw, maxnreg, fused):
    p = kern.plan
    kw = dict(num_warps=nw)
    if maxnreg:
        kw["maxnreg"] = maxnreg
    proto.whole_head_kernel[(slots.shape[0], p.HV)](
        slots, state.num_slots, state.cursor, state.checkpoint, state.ring["k_hat"], state.ring["g"], state.ring["u"],
        inputs["q"], inputs["q"].stride(0), inputs["k"], inputs["k"].stride(0), inputs["v"], inputs["v"].stride(0),
        inputs["a"], inputs["a"].stride(0), inputs["b"], inputs["b"].stride(0), state.params["A_log"], state.params["dt_bias"],
        out, out.stride(0), H=p.H, HV=p.HV, K=p.K, V=p.V, L=p.L, GROUP=p.HV // p.H, BK=128, BV=128, BL=16,
        FUSED=fused, EVEN=True, **kw)


KCHUNK = ((1, 32, 32, 3), (1, 32, 32, 1), (1, 16, 128, 3), (1, 64, 32, 3), (1, 32, 64, 3),
          (2, 64, 64, 3), (2, 128, 32, 3), (4, 128, 64, 3), (2, 32, 32, 3))


def launch_kchunk(kern, state, cursor, slots, inputs, out, nw, BV, BKT, ns):
    p = kern.plan
    gdn_kchunk.kchunk_kernel[(p.V // BV, slots.shape[0], p.HV)](
        slots, state.num_slots, cursor, state.checkpoint, state.ring["k_hat"], state.ring["g"], state.ring["u"],
        inputs["q"], inputs["q"].stride(0), inputs["k"], inputs["k"].stride(0), inputs["v"], inputs["v"].stride(0),
        inputs["a"], inputs["a"].stride(0), inputs["b"], inputs["b"].stride(0), state.params["A_log"], state.params["dt_bias"],
        out, out.stride(0), H=p.H, HV=p.HV, K=p.K, V=p.V, L=p.L, GROUP=p.HV // p.H, BK=128, BV=BV, BL=16,
        BKT=BKT, NK=p.K // BKT, NV=p.V // BV, num_warps=nw, num_stages=ns)


def kchunk_section(kern, state, slots, inputs, out, stagger, batch, L, gen, t_fill_fn):
    res = {}
    for nw, BV, BKT, ns in KCHUNK:
        tag = f"w{nw}_bv{BV}_bkt{BKT}_s{ns}"
        try:
            NV = kern.plan.V // BV
            ref, mine = clone_state(state), clone_state(state)
            cur = mine.cursor[:, :, None].expand(-1, -1, NV).contiguous()
            o_ref, o_mine = torch.empty_like(out), torch.empty_like(out)
            err = 0.0
            for _ in range(2 * L):
                step_in = random_inputs(kern, batch, "cuda", torch.bfloat16, gen)
                kern.decode(ref, slots, out=o_ref, **step_in)
                o_mine.fill_(float("nan"))
                launch_kchunk(kern, mine, cur, slots, step_in, o_mine, nw, BV, BKT, ns)
                err = max(err, ((o_mine.float() - o_ref.float()).abs().max() / o_ref.float().abs().max()).item())
            res[f"kchunk_check_{tag}"] = dict(
                out_rel_err=err,
                ckpt_rel_err=((mine.checkpoint - ref.checkpoint).abs().max() / ref.checkpoint.abs().max()).item(),
                cursor_equal=bool((cur == ref.cursor[:, :, None]).all()))
            cur_half = torch.full_like(cur, L // 2)
            cur_full = torch.full_like(cur, L - 1)
            t_fill = bench(lambda: cur.copy_(cur_half))
            res[f"kchunk_nonflush_{tag}"] = bench(lambda: (cur.copy_(cur_half), launch_kchunk(kern, state, cur, slots, inputs, out, nw, BV, BKT, ns))) - t_fill
            res[f"kchunk_flush_{tag}"] = bench(lambda: (cur.copy_(cur_full), launch_kchunk(kern, state, cur, slots, inputs, out, nw, BV, BKT, ns))) - t_fill
            cur.copy_(stagger[:, :, None].expand_as(cur))
            res[f"kchunk_amortised_{tag}"] = bench(lambda: [launch_kchunk(kern, state, cur, slots, inputs, out, nw, BV, BKT, ns) for _ in range(L)], steps=L)
        except Exception as exc:
            res[f"kchunk_error_{tag}"] = repr(exc)[:300]
        print(tag, {k: v for k, v in res.items() if tag in k}, flush=True)
    return res


def clone_state(s):
    return type(s)(s.checkpoint.clone(), {k: v.clone() for k, v in s.ring.items()}, s.cursor.clone(), s.params)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--batches", default="256,512")
    ap.add_argument("--only-kchunk", action="store_true")
    args = ap.parse_args()
    L = 16
    rows = []
    for batch in map(int, args.batches.split(",")):
        gen = torch.Generator(device="cuda").manual_seed(7)
        kern = replaygen.load("gdn", config="qwen3.5-4b", L=L, state_dtype="fp32", record_dtype="bf16")
        params, slots, state, inputs, out = setup(kern, batch, L, gen)
        stagger = (torch.arange(batch, device="cuda", dtype=torch.int32) % L)[:, None].expand_as(state.cursor).contiguous()
        state.cursor.copy_(stagger)
        # correctness over 2 full cycles: prototype vs generated kernel
        for nw, mr in () if args.only_kchunk else ((8, 128), (8, None), (16, 64), (4, None)):
            ref, mine = clone_state(state), clone_state(state)
            o_ref, o_mine = torch.empty_like(out), torch.empty_like(out)
            err = 0.0
            try:
                for _ in range(2 * L):
                    step_in = random_inputs(kern, batch, "cuda", torch.bfloat16, gen)
                    kern.decode(ref, slots, out=o_ref, **step_in)
                    o_mine.fill_(float("nan"))
                    launch_proto(kern, mine, slots, step_in, o_mine, nw, mr, True)
                    err = max(err, ((o_mine.float() - o_ref.float()).abs().max() / o_ref.float().abs().max()).item())
                cerr = ((mine.checkpoint - ref.checkpoint).abs().max() / ref.checkpoint.abs().max()).item()
                same_cursor = bool((mine.cursor == ref.cursor).all())
                rows.append(dict(batch=batch, check=f"nw{nw}_mr{mr}", out_rel_err=err, ckpt_rel_err=cerr, cursor_equal=same_cursor))
            except Exception as exc:
                rows.append(dict(batch=batch, check=f"nw{nw}_mr{mr}", error=repr(exc)[:300]))
            print(json.dumps(rows[-1]), flush=True)
        pool = torch.randn((batch,) + kern.state_shape, device="cuda", generator=gen) * 0.5
        t_fill = bench(lambda: state.cursor.fill_(L // 2))
        res = dict(batch=batch)
        res["copy_state"] = bench(lambda: pool.copy_(state.checkpoint))
        res["conventional_default"] = bench(lambda: kern.conventional_decode(pool, slots, out=out, **inputs, **params))
        for bv, nw in ((32, 4), (64, 8), (128, 8), (64, 4), (32, 2)):
            k2 = replaygen.load("gdn", config="qwen3.5-4b", L=L, state_dtype="fp32", record_dtype="bf16", block_v=bv, num_warps=nw)
            res[f"conventional_bv{bv}_w{nw}"] = bench(lambda: k2.conventional_decode(pool, slots, out=out, **inputs, **params))
        res["gen_nonflush"] = bench(lambda: (state.cursor.fill_(L // 2), kern.decode(state, slots, out=out, **inputs))) - t_fill
        res["gen_flush"] = bench(lambda: (state.cursor.fill_(L - 1), kern.decode(state, slots, out=out, **inputs))) - t_fill
        state.cursor.copy_(stagger)
        res["gen_amortised"] = bench(lambda: [kern.decode(state, slots, out=out, **inputs) for _ in range(L)], steps=L)
        res.update(kchunk_section(kern, state, slots, inputs, out, stagger, batch, L, gen, None))
        state.cursor.copy_(stagger)
        for nw, mr in () if args.only_kchunk else ((8, 128), (8, None), (16, 64), (16, None), (4, None), (8, 96)):
            tag = f"nw{nw}_mr{mr}"
            try:
                res[f"proto_nonflush_{tag}"] = bench(lambda: (state.cursor.fill_(L // 2), launch_proto(kern, state, slots, inputs, out, nw, mr, True))) - t_fill
                res[f"proto_nonflush_unfused_{tag}"] = bench(lambda: (state.cursor.fill_(L // 2), launch_proto(kern, state, slots, inputs, out, nw, mr, False))) - t_fill
                res[f"proto_flush_{tag}"] = bench(lambda: (state.cursor.fill_(L - 1), launch_proto(kern, state, slots, inputs, out, nw, mr, True))) - t_fill
                state.cursor.copy_(stagger)
                res[f"proto_amortised_{tag}"] = bench(lambda: [launch_proto(kern, state, slots, inputs, out, nw, mr, True) for _ in range(L)], steps=L)
            except Exception as exc:
                res[f"proto_error_{tag}"] = repr(exc)[:300]
        t = traffic(kern.plan).summary()
        res["traffic"] = t
        print(json.dumps(res), flush=True)
        rows.append(res)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "proto.json").write_text(json.dumps(dict(gpu=torch.cuda.get_device_name(), date=time.strftime("%Y-%m-%d"), rows=rows), indent=1))


if __name__ == "__main__":
    main()
