"""Issue 3 experiment (session 46): is KDA's verify head phase latency-bound by its
occupancy, and does a head phase chunked over the key axis run faster?

KDA's T = 8 verify head launch (Launch.head_launch, SPLIT_HEAD 1) takes 225 registers and
24.5 KB of shared memory per one-warp program (offline sm_90): 8 programs per SM, never
more than 9 (its [16, 128] fp32 tiles and their dot operands). Alone it took 0.183 ms on
the H200 (session 38), as long as the whole checkpoint stream. This standalone kernel does
the same head work for one (row, value head) per program, for a non-folding row with all
T_MAX drafts present:

    pass A  (chunks of HBK keys)  the drafts' |q|², |k|² (the l2 norms' sums)
    pass B  (chunks of HBK keys)  per draft: q̂, k̂, the gate g = -e^A softplus(f + dt_bias),
            the cumulative decays G_d; the probes P_w = e^(G_d - G_n) [q̂; k̂], the keys
            K_s = e^(G_n - G_d) k̂, the records' kw = e^(G_n - G_j) k_j; accumulated
            S_win += P_w K_sᵀ, S_c += P_w kwᵀ; P_ck = e^G_n P_w stored to the workspace;
            the drafts' records (k̂, G_d) stored
    then    the causal window, the (I + A)⁻¹ solve, M_v, M_x, S_d to the workspace

HBK = K is the unchunked form (the shipped head phase's tile shapes); HBK = 32 or 16 keep
[16, HBK] tiles. The span guard of the shipped kernel (its exact pair-by-pair path when a
channel's drafts decay by more than 80 nats) is left out: the inputs here decay by less.

Usage:
    TRITON_INTERPRET=1 python bench/proto/kda_head_chunks.py --check      (CPU, small)
    python bench/proto/kda_head_chunks.py --out DIR                        (GPU: KDA
        Kimi-Linear geometry, batch 256, HBK 128/64/32/16 at 1 and 2 warps: the float64
        check, then CUDA-graph medians; registers, spills, shared memory per launch)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from replaygen import devmath  # noqa: E402

T_MAX = 8     # drafts
BT = 16       # probe rows: the drafts' queries (0..7), their keys (8..15)
BL = 16       # committed records (the ring's rows < n)
# the check's bound: tf32 products (10-bit mantissas, relative 2^-11 per term) of unit-scale
# probes and keys over 128 keys, and fp32 sums: ~1e-3 at most on these values
TF32_TOL = 5e-3


@triton.jit
def head_kernel(q_ptr, k_ptr, f_ptr, b_ptr, A_log_ptr, dt_bias_ptr, rk_ptr, rg_ptr, n_ptr,
                ws_ptr, out_k_ptr, out_g_ptr,
                H: tl.constexpr, K: tl.constexpr, T_MAX: tl.constexpr, BT: tl.constexpr,
                BL: tl.constexpr, HBK: tl.constexpr, WS: tl.constexpr, QSCALE: tl.constexpr,
                STAGES: tl.constexpr = 1):
    i_b = tl.program_id(0)
    i_h = tl.program_id(1)
    o_t = tl.arange(0, BT)
    o_l = tl.arange(0, BL)
    o_c = tl.arange(0, HBK)
    n = tl.load(n_ptr + i_b)
    m_l = o_l < n
    d_row = tl.where(o_t < T_MAX, o_t, o_t - T_MAX)   # the draft of each probe row
    is_q = o_t < T_MAX
    p_tok = (i_b * T_MAX + d_row) * H + i_h          # [BT] token rows of q, k, f
    p_rec = (i_b * H + i_h) * BL                      # the ring's first row

    # -- pass A: the l2 norms' sums of every probe row (q for rows < T_MAX, else k)
    ss = tl.zeros([BT], tl.float32)
    p_qk = tl.where(is_q, q_ptr, k_ptr) + p_tok * K     # [BT] q rows, then k rows
    for i_c in range(K // HBK):
        o_k = i_c * HBK + o_c
        x = tl.load(p_qk[:, None] + o_k[None, :]).to(tl.float32)
        ss += tl.sum(x * x, axis=1)
    inv = tl.math.rsqrt(ss + 1e-6) * tl.where(is_q, QSCALE, 1.0)   # [BT]
    kinv = tl.sum(tl.where(o_t[:, None] == o_t[None, :] + T_MAX, inv[:, None], 0.0), axis=0)  # rows i: k's
    b_A = devmath.exp(tl.load(A_log_ptr + i_h))
    beta = 1.0 / (1.0 + devmath.exp(-tl.load(b_ptr + (i_b * T_MAX + o_t % T_MAX) * H + i_h).to(tl.float32)))
    beta = tl.where(is_q, beta, 0.0)

    # -- pass B: per chunk of keys, the probes, keys and records, their products accumulated
    S_win = tl.zeros([BT, BT], tl.float32)
    S_c = tl.zeros([BT, BL], tl.float32)
    G_span_min = tl.full([], 0.0, tl.float32)
    for i_c in tl.range(K // HBK, num_stages=STAGES):
        o_k = i_c * HBK + o_c
        # committed records: keys and cumulative log decays, decayed to n
        m_rec = m_l[:, None] & (o_k < K)[None, :]
        rk = tl.load(rk_ptr + (p_rec + o_l[:, None]) * K + o_k[None, :], mask=m_rec, other=0.0).to(tl.float32)
        rg = tl.load(rg_ptr + (p_rec + o_l[:, None]) * K + o_k[None, :], mask=m_rec, other=0.0)
        G_n = tl.load(rg_ptr + (p_rec + tl.maximum(n - 1, 0)) * K + o_k, mask=tl.where(n > 0, o_k < K, False), other=0.0)
        kw = tl.where(m_l[:, None], devmath.exp(G_n[None, :] - rg) * rk, 0.0)   # [BL, HBK]
        # the drafts, all rows at once: q̂ / k̂ per probe row, the gates per draft row
        x = tl.load(p_qk[:, None] + o_k[None, :]).to(tl.float32)
        P_d = x * inv[:, None]                                                   # [BT, HBK]
        kk = tl.load(k_ptr + p_tok[:, None] * K + o_k[None, :], mask=is_q[:, None] & (o_k < K)[None, :],
                     other=0.0).to(tl.float32)
        K_d = kk * kinv[:, None]                                                 # rows i: k̂_i
        z = tl.load(f_ptr + p_tok[:, None] * K + o_k[None, :]).to(tl.float32) \
            + tl.load(dt_bias_ptr + i_h * K + o_k)[None, :]
        g = -b_A * tl.where(z > 20.0, z, devmath.log(1.0 + devmath.exp(tl.minimum(z, 20.0))))
        # (rows T_MAX + i repeat draft i's gate: twice the softplus work of the shipped
        # kernel, which takes one [BK] row per draft; the same at every HBK, so the
        # comparison across HBK holds, and the unchunked HBK 128 errs on the slow side)
        G_tot = tl.sum(tl.where(is_q[:, None], g, 0.0), axis=0)   # the drafts' whole decay
        # row r: Σ of the gates of rows <= r; rows T_MAX + i minus the drafts' total, so
        # every probe row holds its draft's cumulative decay from n, G_d - G_n
        G_rel = tl.cumsum(g, axis=0) - tl.where(is_q, 0.0, 1.0)[:, None] * G_tot[None, :]
        G_span_min = tl.minimum(G_span_min, tl.min(G_tot, axis=0))
        P_w = devmath.exp(G_rel) * P_d
        K_s = tl.where(is_q[:, None], devmath.exp(-G_rel), 0.0) * K_d
        S_win += tl.dot(P_w, tl.trans(K_s), input_precision="tf32")
        S_c += tl.dot(P_w, tl.trans(kw), input_precision="tf32")
        p_ws = ws_ptr + (i_b * H + i_h).to(tl.int64) * WS
        tl.store(p_ws + o_t[:, None] * K + o_k[None, :], devmath.exp(G_n)[None, :] * P_w)
        # the drafts' records: k̂ and the cumulative decays from the checkpoint
        p_out = ((i_b * H + i_h) * T_MAX + o_t[:, None]) * K + o_k[None, :]
        m_out = is_q[:, None] & (o_k < K)[None, :]
        tl.store(out_k_ptr + p_out, K_d, mask=m_out)
        tl.store(out_g_ptr + p_out, G_n[None, :] + G_rel, mask=m_out)

    # -- the window: causal scores, the (I + A)^-1 solve, M_v, M_x, S_d
    causal = tl.where(is_q[:, None], o_t[None, :] <= d_row[:, None], o_t[None, :] < d_row[:, None])
    S_win = tl.where(causal & (o_t < T_MAX)[None, :], S_win, 0.0)
    S_d = tl.where(is_q[:, None], S_win, 0.0)
    T_inv = tl.zeros([BT, BT], tl.float32)
    for i_d in tl.static_range(T_MAX):
        sel = o_t == i_d
        a_row = tl.sum(tl.where((o_t == T_MAX + i_d)[:, None], S_win, 0.0), axis=0)
        beta_i = tl.sum(tl.where(sel, beta, 0.0), axis=0)
        t_row = sel.to(tl.float32) - beta_i * tl.sum(a_row[:, None] * T_inv, axis=0)
        T_inv = tl.where(sel[:, None], t_row[None, :], T_inv)
    M_v = T_inv * beta[None, :]
    shift = (o_t[None, :] == o_t[:, None] + T_MAX).to(tl.float32)
    M_x = tl.dot(M_v, shift, input_precision="tf32")
    p_ws = ws_ptr + (i_b * H + i_h).to(tl.int64) * WS + BT * K
    tl.store(p_ws + o_t[:, None] * BL + o_l[None, :], S_c)
    p_ws += BT * BL
    tl.store(p_ws + o_t[:, None] * BT + o_t[None, :], S_d)
    p_ws += BT * BT
    tl.store(p_ws + o_t[:, None] * BT + o_t[None, :], M_v)
    p_ws += BT * BT
    tl.store(p_ws + o_t[:, None] * BT + o_t[None, :], M_x)
    tl.store(p_ws + BT * BT + o_t, tl.where(o_t == 0, G_span_min, 0.0))


def make_inputs(B, H, K, n, device, seed=0):
    gen = torch.Generator(device="cpu").manual_seed(seed)

    def rand(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen) * scale).to(device)
    x = dict(q=rand(B, T_MAX, H, K).bfloat16(), k=rand(B, T_MAX, H, K).bfloat16(),
             f=rand(B, T_MAX, H, K).bfloat16(), b=rand(B, T_MAX, H).bfloat16(),
             A_log=(torch.rand(H, generator=gen) * 4 - 6.5).to(device),
             dt_bias=rand(H, K, scale=0.5))
    rk = torch.nn.functional.normalize(torch.randn(B, H, BL, K, generator=gen), dim=-1)
    # the records' cumulative log decays: a trained model's per-step retention 0.93-0.999
    steps = -torch.rand(B, H, BL, K, generator=gen) * 0.07
    x.update(rk=rk.bfloat16().to(device), rg=steps.cumsum(2).to(device),
             n=torch.full((B,), n, dtype=torch.int32).to(device))
    return x


def reference(x):
    """float64, from the formulas: S_win (causal), S_c, P_ck, M_v, M_x, S_d, records."""
    d = {k: v.double().cpu() for k, v in x.items()}
    B, T, H, K = d["q"].shape
    n = int(d["n"][0])
    qh = d["q"] / (d["q"].pow(2).sum(-1, keepdim=True) + 1e-6).sqrt() / math.sqrt(K)
    kh = d["k"] / (d["k"].pow(2).sum(-1, keepdim=True) + 1e-6).sqrt()
    g = -d["A_log"].exp()[None, None, :, None] * torch.nn.functional.softplus(d["f"] + d["dt_bias"])
    beta = torch.sigmoid(d["b"])                                     # [B, T, H]
    G_n = d["rg"][:, :, n - 1] if n > 0 else torch.zeros(B, H, K, dtype=torch.float64)
    G_rel = g.cumsum(1).permute(0, 2, 1, 3)                          # [B, H, T, K]
    P = torch.cat([qh, kh], 1).permute(0, 2, 1, 3) * torch.cat([G_rel, G_rel], 2).exp()
    Ks = kh.permute(0, 2, 1, 3) * (-G_rel).exp()
    S_win = P @ Ks.transpose(-1, -2)                                 # [B, H, 16, 8]
    i = torch.arange(2 * T)
    causal = torch.where(i[:, None] < T, i[None, :T] <= i[:, None] % T, i[None, :T] < i[:, None] % T)
    S_win = S_win * causal
    kw = d["rk"] * (G_n[:, :, None, :] - d["rg"]).exp()
    kw[:, :, n:] = 0
    S_c = P @ kw.transpose(-1, -2)
    A = beta.permute(0, 2, 1)[..., :, None] * S_win[:, :, T:, :]   # A[i, i'] = β_i S_kk[i, i']
    Tinv = torch.linalg.inv(torch.eye(T, dtype=torch.float64) + A)
    M_v = Tinv * beta.permute(0, 2, 1)[..., None, :]
    return dict(S_win=S_win, S_c=S_c, P_ck=P * G_n.exp()[:, :, None, :], M_v=M_v,
                rec_k=kh.permute(0, 2, 1, 3), rec_g=G_n[:, :, None, :] + G_rel)


def run(x, hbk, warps, ws, out_k, out_g, maxnreg=None):
    B, T, H, K = x["q"].shape
    opts = dict(num_warps=warps)
    if maxnreg:
        opts["maxnreg"] = maxnreg
    return head_kernel[(B, H)](x["q"], x["k"], x["f"], x["b"], x["A_log"], x["dt_bias"],
                               x["rk"], x["rg"], x["n"], ws, out_k, out_g, H=H, K=K,
                               T_MAX=T_MAX, BT=BT, BL=BL, HBK=hbk, WS=ws.shape[1],
                               QSCALE=1.0 / math.sqrt(K), **opts)


def check(x, hbk, warps, device):
    B, T, H, K = x["q"].shape
    WS = BT * K + BT * BL + 3 * BT * BT + BT
    ws = torch.full((B * H, WS), float("nan"), device=device)
    out_k = torch.full((B, H, T, K), float("nan"), device=device)
    out_g = torch.full((B, H, T, K), float("nan"), device=device)
    run(x, hbk, warps, ws, out_k, out_g)
    ref = reference(x)
    w = ws.double().cpu().view(B, H, -1)
    got = dict(P_ck=w[..., :BT * K].reshape(B, H, BT, K),
               S_c=w[..., BT * K:BT * K + BT * BL].reshape(B, H, BT, BL),
               S_d=w[..., BT * K + BT * BL:BT * K + BT * BL + BT * BT].reshape(B, H, BT, BT),
               M_v=w[..., BT * K + BT * BL + BT * BT:BT * K + BT * BL + 2 * BT * BT].reshape(B, H, BT, BT),
               rec_k=out_k.double().cpu(), rec_g=out_g.double().cpu())
    errs = {
        "P_ck": (got["P_ck"] - ref["P_ck"]).abs().max().item(),
        "S_c": (got["S_c"] - ref["S_c"]).abs().max().item(),
        "S_d": (got["S_d"][..., :T, :T] - ref["S_win"][:, :, :T]).abs().max().item(),
        "M_v": (got["M_v"][..., :T, :T] - ref["M_v"]).abs().max().item(),
        "rec_k": (got["rec_k"] - ref["rec_k"]).abs().max().item(),
        "rec_g": (got["rec_g"] - ref["rec_g"]).abs().max().item(),
    }
    return errs, (ws, out_k, out_g)


def offline(hbk: int, warps: int, K: int = 128, H: int = 32) -> dict:
    """Compile for sm_90 with no GPU (as tests/test_compile_sm90.py): ptxas's registers and
    spills, shared memory, programs per SM (bench/sass_count.py's residency)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from triton.compiler import ASTSource
    import test_compile_sm90 as sm90
    from sass_count import residency, sass_of, summarise
    fn = head_kernel
    ptr = {"q_ptr": "*bf16", "k_ptr": "*bf16", "f_ptr": "*bf16", "b_ptr": "*bf16", "rk_ptr": "*bf16"}
    sig = {a.name: "constexpr" if a.is_constexpr else ptr.get(a.name, "*i32" if a.name == "n_ptr" else "*fp32")
           for a in fn.params}
    consts = dict(H=H, K=K, T_MAX=T_MAX, BT=BT, BL=BL, HBK=hbk, WS=BT * K + BT * BL + 3 * BT * BT + BT,
                  QSCALE=1.0 / math.sqrt(K))
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(fn.params) if not a.is_constexpr}
    src = ASTSource(fn, sig, constexprs={(fn.arg_names.index(n),): v for n, v in consts.items()}, attrs=attrs)
    compiled = triton.compile(src, target=sm90.TARGET, options=dict(num_warps=warps))
    usage = sm90.ptxas_usage(compiled)
    ops, _, loops, _ = summarise(sass_of(compiled))
    return dict(HBK=hbk, warps=warps, instructions=sum(ops.values()), ptxas=usage,
                loops=loops, **residency(compiled, usage))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="small shapes, every HBK, the float64 check only")
    ap.add_argument("--offline", action="store_true", help="compile for sm_90 without a GPU: registers, "
                    "shared memory, programs per SM at each HBK and warp count")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args(argv)
    if args.offline:
        for hbk in (128, 64, 32, 16):
            for warps in (1, 2):
                r = offline(hbk, warps)
                print(f"HBK {hbk:>3} w{warps}: {r['instructions']} SASS, {r['ptxas']}; shared "
                      f"{r['shared']} B; programs per SM {r['programs_per_sm']} (registers "
                      f"{r['by_registers']}, shared {r['by_shared']}); loops {r['loops']}", flush=True)
        return 0
    interp = os.environ.get("TRITON_INTERPRET") == "1"
    device = "cpu" if interp else "cuda"
    if args.check:
        x = make_inputs(2, 2, 32, 5, device)
        worst = {}
        for hbk in (32, 16):
            errs, _ = check(x, hbk, 1, device)
            print(f"HBK {hbk}: " + ", ".join(f"{k} {v:.1e}" for k, v in errs.items()))
            worst[hbk] = max(errs.values())
        ok = all(v < TF32_TOL for v in worst.values())
        print("ok" if ok else "FAILED")
        return 0 if ok else 1
    # the GPU run: Kimi-Linear's KDA geometry (H = HV = 32, K = 128), batch rows
    H, K, n = 32, 128, 8
    x = make_inputs(args.batch, H, K, n, device)
    rows = []
    for hbk in (128, 64, 32, 16):
        for warps in (1, 2):
            errs, bufs = check(make_inputs(4, H, K, n, device), hbk, warps, device)
            B = args.batch
            WS = BT * K + BT * BL + 3 * BT * BT + BT
            ws = torch.empty((B * H, WS), device=device)
            out_k = torch.empty((B, H, T_MAX, K), device=device)
            out_g = torch.empty_like(out_k)
            compiled = run(x, hbk, warps, ws, out_k, out_g)
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                run(x, hbk, warps, ws, out_k, out_g)
            ms = triton.testing.do_bench(g.replay, warmup=25, rep=200, return_mode="median")
            meta = dict(n_regs=getattr(compiled, "n_regs", None), n_spills=getattr(compiled, "n_spills", None),
                        shared=getattr(compiled.metadata, "shared", None))
            ok = max(errs.values()) < TF32_TOL
            rows.append(dict(HBK=hbk, warps=warps, ms=ms, errs=errs, ok=ok, **meta))
            print(f"HBK {hbk:>3} w{warps}: {ms:.4f} ms  regs {meta['n_regs']} spills {meta['n_spills']} "
                  f"shared {meta['shared']}  max err {max(errs.values()):.1e} {'ok' if ok else 'FAILED'}",
                  flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "kda_head_chunks.json").write_text(json.dumps(dict(
            gpu=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
            date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), batch=args.batch,
            command="python bench/proto/kda_head_chunks.py " + " ".join(argv or sys.argv[1:]),
            rows=rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
