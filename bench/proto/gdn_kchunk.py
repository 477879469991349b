"""Prototype (not generated): GDN replay decode, K-chunked with [BV] accumulators.

The structure the public reference kernel uses (facts, not code): many small programs,
grid (V tiles, rows, value heads); the checkpoint is read in [BV, BKT] chunks whose
products with q and k accumulate into [BV] vectors (one layout, no conversion per chunk);
the record scores accumulate per chunk too; the record terms are applied once. A flush
walks the chunks again (checkpoint re-read, from L2) and folds with a tf32x3 dot.
Each (row, value head, V tile) program owns its own cursor entry, [slots, HV, NV].
"""
import triton
import triton.language as tl


@triton.jit
def kchunk_kernel(
    slots_ptr, num_slots, cursor_ptr, ckpt_ptr, ring_k_hat_ptr, ring_g_ptr, ring_u_ptr,
    q_ptr, stride_q, k_ptr, stride_k, v_ptr, stride_v, a_ptr, stride_a, b_ptr, stride_b, A_log_ptr, dt_bias_ptr,
    out_ptr, stride_out,
    H: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr, L: tl.constexpr,
    GROUP: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, BL: tl.constexpr, BKT: tl.constexpr,
    NK: tl.constexpr, NV: tl.constexpr,
):
    i_v = tl.program_id(0)
    i_b = tl.program_id(1)
    i_hv = tl.program_id(2)
    i_kh = i_hv // GROUP
    i_slot = tl.load(slots_ptr + i_b).to(tl.int64)
    o_v = i_v * BV + tl.arange(0, BV)
    m_v = o_v < V
    o_l = tl.arange(0, BL)
    if (i_slot >= 0) & (i_slot < num_slots):
        p_head = ckpt_ptr + (i_slot * HV + i_hv) * V * K
        p_cursor = cursor_ptr + (i_slot * HV + i_hv) * NV + i_v
        n = tl.load(p_cursor)
        m_l = o_l < n
        FLUSH = n + 1 >= L
        b_a = tl.load(a_ptr + i_b * stride_a + i_hv).to(tl.float32)
        b_b = tl.load(b_ptr + i_b * stride_b + i_hv).to(tl.float32)
        b_A_log = tl.load(A_log_ptr + i_hv).to(tl.float32)
        b_dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
        b_g = -tl.exp(b_A_log) * tl.where((b_a + b_dt_bias) > 20.0, (b_a + b_dt_bias), tl.log(1.0 + tl.exp(tl.minimum((b_a + b_dt_bias), 20.0))))
        b_beta = 1.0 / (1.0 + tl.exp(-b_b))
        o_k = tl.arange(0, BK)
        b_q = tl.load(q_ptr + i_b * stride_q + i_kh * K + o_k, mask=o_k < K, other=0.0).to(tl.float32)
        b_k = tl.load(k_ptr + i_b * stride_k + i_kh * K + o_k, mask=o_k < K, other=0.0).to(tl.float32)
        q_scale = 0.08838834764831845 / tl.sqrt(tl.sum(b_q * b_q, axis=0) + 1e-06)
        k_scale = 1.0 / tl.sqrt(tl.sum(b_k * b_k, axis=0) + 1e-06)
        r_g = tl.load(ring_g_ptr + (i_slot * HV + i_hv) * L + o_l, mask=m_l, other=0.0).to(tl.float32)
        G_rec = tl.cumsum(r_g, axis=0)
        G_t = tl.sum(r_g, axis=0) + b_g
        rec_w = tl.where(m_l, tl.exp(G_t - G_rec), 0.0)
        ck_w = tl.exp(G_t)
        acc_q = tl.zeros([BV], tl.float32)
        acc_k = tl.zeros([BV], tl.float32)
        s_q = tl.zeros([BL], tl.float32)
        s_k = tl.zeros([BL], tl.float32)
        s_kq = 0.0
        p_rk = ring_k_hat_ptr + (i_slot * H + i_kh) * L * K
        for c in range(NK):
            o_kc = c * BKT + tl.arange(0, BKT)
            m_kc = o_kc < K
            c_c = tl.load(p_head + o_v[:, None] * K + o_kc[None, :], mask=m_v[:, None] & m_kc[None, :], other=0.0).to(tl.float32)
            q_c = tl.load(q_ptr + i_b * stride_q + i_kh * K + o_kc, mask=m_kc, other=0.0).to(tl.float32) * q_scale
            k_c = tl.load(k_ptr + i_b * stride_k + i_kh * K + o_kc, mask=m_kc, other=0.0).to(tl.float32) * k_scale
            r_c = tl.load(p_rk + o_l[:, None] * K + o_kc[None, :], mask=m_l[:, None] & m_kc[None, :], other=0.0).to(tl.float32)
            acc_q += tl.sum(c_c * q_c[None, :], axis=1)
            acc_k += tl.sum(c_c * k_c[None, :], axis=1)
            s_q += tl.sum(r_c * q_c[None, :], axis=1)
            s_k += tl.sum(r_c * k_c[None, :], axis=1)
            s_kq += tl.sum(q_c * k_c, axis=0)
        u = tl.load(ring_u_ptr + ((i_slot * HV + i_hv) * L + o_l[:, None]) * V + o_v[None, :], mask=m_l[:, None] & m_v[None, :], other=0.0).to(tl.float32)
        sk = ck_w * acc_k + tl.sum(u * (rec_w * s_k)[:, None], axis=0)
        b_v = tl.load(v_ptr + i_b * stride_v + i_hv * V + o_v, mask=m_v, other=0.0).to(tl.float32)
        w_t = b_beta * (b_v - sk)
        out = ck_w * acc_q + tl.sum(u * (rec_w * s_q)[:, None], axis=0) + w_t * s_kq
        tl.store(out_ptr + i_b * stride_out + i_hv * V + o_v, out.to(out_ptr.dtype.element_ty), mask=m_v)
        if FLUSH:
            for c in range(NK):
                o_kc = c * BKT + tl.arange(0, BKT)
                m_kc = o_kc < K
                p_c = ckpt_ptr + ((i_slot * HV + i_hv) * V + o_v)[:, None] * K + o_kc[None, :]
                c_c = tl.load(p_c, mask=m_v[:, None] & m_kc[None, :], other=0.0).to(tl.float32)
                k_c = tl.load(k_ptr + i_b * stride_k + i_kh * K + o_kc, mask=m_kc, other=0.0).to(tl.float32) * k_scale
                kw_c = rec_w[:, None] * tl.load(p_rk + o_l[:, None] * K + o_kc[None, :], mask=m_l[:, None] & m_kc[None, :], other=0.0).to(tl.float32)
                s_c = c_c * ck_w + w_t[:, None] * k_c[None, :] + tl.dot(tl.trans(u), kw_c, input_precision="tf32x3")
                tl.store(p_c, s_c.to(ckpt_ptr.dtype.element_ty), mask=m_v[:, None] & m_kc[None, :])
            tl.store(p_cursor, 0)
        else:
            tl.store(ring_u_ptr + ((i_slot * HV + i_hv) * L + n) * V + o_v, w_t.to(ring_u_ptr.dtype.element_ty), mask=m_v)
            if i_v == 0:
                if i_hv % GROUP == 0:
                    tl.store(p_rk + n * K + o_k, (b_k * k_scale).to(ring_k_hat_ptr.dtype.element_ty), mask=o_k < K)
                tl.store(ring_g_ptr + (i_slot * HV + i_hv) * L + n, b_g.to(ring_g_ptr.dtype.element_ty))
            tl.store(p_cursor, n + 1)
