"""Independent float64 reference for the per-token decode recurrence of five SSM variants.

This is a test oracle: plain loops over value heads, torch on CPU in float64, written
from the math alone (it imports nothing from replaygen, on purpose).

Conventions
-----------
* One batch row per call: no batch dimension anywhere.
* The state is V-first: ``S`` has shape ``[HV, V, K]``; ``S[hv]`` is ``[V, K]``
  (Mamba-2: ``[nheads, headdim, dstate]``, so V = headdim, K = dstate).
* Every ``*_step`` takes the state, the token's inputs in model-native shapes and the
  layer parameters, and returns ``(S_new, out)`` with ``out`` of shape ``[HV, V]``.
  Inputs are never modified.
* Value head ``hv`` reads key head (Mamba-2: group) ``hv // (HV // H)``.
* softplus(x) = log(1 + exp(x)), but x itself where x > 20.
  logsigmoid(x) = -softplus(-x); l2norm(x) = x / sqrt(sum(x^2) + 1e-6).
* Delta-rule variants apply the decay before the correction, and the output reads the
  state after the update.
"""
import functools

import torch

DT = torch.float64


def softplus(x):
    # threshold 20 as in the serving kernels; the discarded branch may be inf, never nan
    return torch.where(x > 20, x, torch.log1p(torch.exp(x)))


def logsigmoid(x):
    return -softplus(-x)


def l2norm(x):
    return x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-6)


def _delta_rule(S_hv, decay, q_hat, k_hat, v_hv, beta):
    """One delta-rule head. decay: scalar, or a K-vector scaling key columns."""
    S_dec = S_hv * decay                     # decay first ...
    u = beta * (v_hv - S_dec @ k_hat)        # ... then correct against the decayed state
    S_new = S_dec + torch.outer(u, k_hat)
    return S_new, S_new @ q_hat              # output reads the updated state


def mamba2_step(S, x, dt, B, C, A_log, dt_bias, D, z=None):
    nheads, ngroups = S.shape[0], B.shape[0]
    heads_per_group = nheads // ngroups
    S_new, out = S.clone(), torch.empty(nheads, S.shape[1], dtype=S.dtype, device=S.device)
    for h in range(nheads):
        g = h // heads_per_group
        delta = softplus(dt[h] + dt_bias[h])
        A = -torch.exp(A_log[h])
        S_new[h] = S[h] * torch.exp(A * delta) + torch.outer(delta * x[h], B[g])
        y = S_new[h] @ C[g] + D[h] * x[h]
        if z is not None:
            y = y * (z[h] * torch.sigmoid(z[h]))   # silu(z) gate
        out[h] = y
    return S_new, out


def gdn_step(S, q, k, v, a, b, A_log, dt_bias):
    HV, V, K = S.shape
    ratio = HV // q.shape[0]
    S_new, out = S.clone(), torch.empty(HV, V, dtype=S.dtype, device=S.device)
    for hv in range(HV):
        kh = hv // ratio
        q_hat, k_hat = l2norm(q[kh]) * K ** -0.5, l2norm(k[kh])
        g = -torch.exp(A_log[hv]) * softplus(a[hv] + dt_bias[hv])   # scalar log decay
        beta = torch.sigmoid(b[hv])
        S_new[hv], out[hv] = _delta_rule(S[hv], torch.exp(g), q_hat, k_hat, v[hv], beta)
    return S_new, out


def kda_step(S, q, k, v, f, b, A_log, dt_bias):
    HV, V, K = S.shape
    ratio = HV // q.shape[0]
    S_new, out = S.clone(), torch.empty(HV, V, dtype=S.dtype, device=S.device)
    for hv in range(HV):
        kh = hv // ratio
        q_hat, k_hat = l2norm(q[kh]) * K ** -0.5, l2norm(k[kh])
        g = -torch.exp(A_log[hv]) * softplus(f[hv] + dt_bias[hv])   # K-vector log decay
        beta = torch.sigmoid(b[hv])
        # exp(g)[None, :] scales key column c by exp(g[c])
        S_new[hv], out[hv] = _delta_rule(S[hv], torch.exp(g)[None, :], q_hat, k_hat, v[hv], beta)
    return S_new, out


def gla_step(S, q, k, v, gk):
    HV, V, K = S.shape
    ratio = HV // q.shape[0]
    S_new, out = S.clone(), torch.empty(HV, V, dtype=S.dtype, device=S.device)
    for hv in range(HV):
        kh = hv // ratio
        g = logsigmoid(gk[hv]) / 16          # fla GLA's gate normaliser
        S_new[hv] = S[hv] * torch.exp(g)[None, :] + torch.outer(v[hv], k[kh])
        out[hv] = S_new[hv] @ (q[kh] * K ** -0.5)
    return S_new, out


def deltanet_step(S, q, k, v, b):
    HV, V, K = S.shape
    ratio = HV // q.shape[0]
    S_new, out = S.clone(), torch.empty(HV, V, dtype=S.dtype, device=S.device)
    for hv in range(HV):
        kh = hv // ratio
        q_hat, k_hat = l2norm(q[kh]) * K ** -0.5, l2norm(k[kh])
        beta = torch.sigmoid(b[hv])
        S_new[hv], out[hv] = _delta_rule(S[hv], 1.0, q_hat, k_hat, v[hv], beta)  # no decay
    return S_new, out


def run_sequence(step_fn, S0, steps):
    """Apply step_fn token by token; steps is a list of dicts of keyword inputs."""
    S, outs = S0, []
    for inputs in steps:
        S, out = step_fn(S, **inputs)
        outs.append(out)
    return S, outs


if __name__ == "__main__":
    torch.manual_seed(0)
    H, HV, K, V = 2, 4, 16, 8                # HV > H so the head mapping is exercised
    rnd = lambda *shape: torch.randn(*shape, dtype=DT)
    rep = lambda t: t.repeat_interleave(HV // t.shape[0], dim=0)  # key head -> value heads
    close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-12)
    big = torch.full((HV,), 40.0, dtype=DT)  # sigmoid(40) == 1.0 in float64
    half = torch.zeros(HV, dtype=DT)         # with A_log = 0: g = -softplus(0) = -ln 2, decay 1/2

    def call(fn, *args, **kw):
        """Run a step, check shapes, finiteness, and that the inputs were left alone."""
        saved = [t.clone() for t in list(args) + list(kw.values()) if t is not None]
        S_new, out = fn(*args, **kw)
        S = args[0]
        assert S_new.shape == S.shape and out.shape == S.shape[:2], fn.__name__
        assert S_new.dtype == out.dtype == DT
        assert torch.isfinite(S_new).all() and torch.isfinite(out).all(), fn.__name__
        now = [t for t in list(args) + list(kw.values()) if t is not None]
        assert all(torch.equal(a, b) for a, b in zip(saved, now)), fn.__name__ + " mutated input"
        return S_new, out

    S = rnd(HV, V, K)
    q, k, v = rnd(H, K), rnd(H, K) * 1e4, rnd(HV, V)   # |k|^2 ~ 1e9 makes the 1e-6 eps in l2norm negligible
    k_hat, q_hat_k = rep(l2norm(k)), rep(l2norm(k)) * K ** -0.5

    # Mamba-2 (2 groups, 4 heads). dt + dt_bias = 0 and A_log = 0 give Δ = ln 2, decay 1/2.
    x, B, C, D, z = rnd(HV, V), rnd(H, K), rnd(H, K), rnd(HV), rnd(HV, V)
    call(mamba2_step, S, x, rnd(HV), B, C, rnd(HV), rnd(HV), D, z=z)
    dt = rnd(HV)
    S1, y = call(mamba2_step, S, x, dt, B, C, torch.zeros(HV, dtype=DT), -dt, D)
    ln2 = torch.log(torch.tensor(2.0, dtype=DT))
    want = S / 2 + ln2 * x[:, :, None] * rep(B)[:, None, :]
    assert close(S1, want)
    assert close(y, torch.einsum("hvk,hk->hv", want, rep(C)) + D[:, None] * x)
    _, yz = call(mamba2_step, S, x, dt, B, C, torch.zeros(HV, dtype=DT), -dt, D, z=z)
    assert close(yz, y * z * torch.sigmoid(z))

    # GDN. β = 1: the write makes the state map k̂ to v exactly, whatever the decay
    # (a decay applied after the correction would give v·exp(g) instead); q = k then reads v/√K.
    S1, o = call(gdn_step, S, k, k, v, rnd(HV), big, rnd(HV), rnd(HV))
    assert close(torch.einsum("hvk,hk->hv", S1, k_hat), v)
    assert close(o, v * K ** -0.5)
    # β ≈ 0 (sigmoid(-40) ~ 4e-18), a + dt_bias = 0, A_log = 0: pure decay by 1/2.
    S1, _ = call(gdn_step, S, q, k, v, half, -big, half, half)
    assert close(S1, S / 2)

    # KDA: same β = 1 property, then a per-channel decay chosen as d[c] via the inverse softplus.
    S1, o = call(kda_step, S, k, k, v, rnd(HV, K), big, rnd(HV), rnd(HV, K))
    assert close(torch.einsum("hvk,hk->hv", S1, k_hat), v)
    assert close(o, v * K ** -0.5)
    d = torch.rand(HV, K, dtype=DT) * 0.9 + 0.05
    f = torch.log(torch.expm1(-torch.log(d)))            # softplus(f) = -log d
    S1, _ = call(kda_step, S, q, k, v, f, -big, half, torch.zeros(HV, K, dtype=DT))
    assert close(S1, S * d[:, None, :])                  # key columns scaled, not value rows

    # GLA. Gate logit 40: logsigmoid ~ -4e-18, decay 1, the update is exactly the outer product.
    kk = rnd(H, K)
    S1, o = call(gla_step, S, q, kk, v, torch.full((HV, K), 40.0, dtype=DT))
    want = S + v[:, :, None] * rep(kk)[:, None, :]
    assert close(S1, want)
    assert close(o, torch.einsum("hvk,hk->hv", want, rep(q)) * K ** -0.5)
    # Gate logit 0: logsigmoid = -ln 2, /16 gives decay 2^(-1/16).
    S1, _ = call(gla_step, S, q, kk, v, torch.zeros(HV, K, dtype=DT))
    assert close(S1, S * 2 ** (-1 / 16) + v[:, :, None] * rep(kk)[:, None, :])

    # DeltaNet: β = 1 write reproduces v; β ≈ 0 leaves the state unchanged (no decay).
    S1, o = call(deltanet_step, S, k, k, v, big)
    assert close(torch.einsum("hvk,hk->hv", S1, k_hat), v)
    assert close(o, v * K ** -0.5)
    S1, _ = call(deltanet_step, S, q, k, v, -big)
    assert close(S1, S)

    # run_sequence == manual chaining, with parameters bound by functools.partial.
    step = functools.partial(gdn_step, A_log=rnd(HV), dt_bias=rnd(HV))
    toks = [dict(q=rnd(H, K), k=rnd(H, K), v=rnd(HV, V), a=rnd(HV), b=rnd(HV)) for _ in range(3)]
    S_fin, outs = run_sequence(step, S, toks)
    S_man = S
    for t, tok in enumerate(toks):
        S_man, o = step(S_man, **tok)
        assert torch.equal(o, outs[t])
    assert torch.equal(S_fin, S_man) and len(outs) == 3
    print("reference self-check passed")
