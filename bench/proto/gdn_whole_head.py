"""Prototype (not generated): GDN replay decode with the whole [V, K] head in one tile.

Hand-written to measure a kernel structure on the H200 before the generator adopts it:
one program per (row, value head) loads its whole checkpoint block at once (all bytes in
flight), computes the record terms once per head, and folds in place with an FMA loop
over the records (no tl.dot, no layout conversion of the state tile).
"""
import triton
import triton.language as tl


@triton.jit
def whole_head_kernel(
    slots_ptr, num_slots, cursor_ptr, ckpt_ptr, ring_k_hat_ptr, ring_g_ptr, ring_u_ptr,
    q_ptr, stride_q, k_ptr, stride_k, v_ptr, stride_v, a_ptr, stride_a, b_ptr, stride_b, A_log_ptr, dt_bias_ptr,
    out_ptr, stride_out,
    H: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr, L: tl.constexpr,
    GROUP: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, BL: tl.constexpr,
    FUSED: tl.constexpr, EVEN: tl.constexpr,
):
    i_b = tl.program_id(0)
    i_hv = tl.program_id(1)
    i_kh = i_hv // GROUP
    i_slot = tl.load(slots_ptr + i_b).to(tl.int64)
    o_k = tl.arange(0, BK)
    m_k = o_k < K
    o_l = tl.arange(0, BL)
    o_v = tl.arange(0, BV)
    m_v = o_v < V
    if (i_slot >= 0) & (i_slot < num_slots):
        p_head = ckpt_ptr + (i_slot * HV + i_hv) * V * K
        if EVEN:
            c = tl.load(p_head + o_v[:, None] * K + o_k[None, :])
        else:
            c = tl.load(p_head + o_v[:, None] * K + o_k[None, :], mask=m_v[:, None] & m_k[None, :], other=0.0)
        p_cursor = cursor_ptr + i_slot * HV + i_hv
        n = tl.load(p_cursor)
        m_l = o_l < n
        FLUSH = n + 1 >= L
        b_q = tl.load(q_ptr + i_b * stride_q + i_kh * K + o_k, mask=m_k, other=0.0).to(tl.float32)
        b_k = tl.load(k_ptr + i_b * stride_k + i_kh * K + o_k, mask=m_k, other=0.0).to(tl.float32)
        b_a = tl.load(a_ptr + i_b * stride_a + i_hv).to(tl.float32)
        b_b = tl.load(b_ptr + i_b * stride_b + i_hv).to(tl.float32)
        b_A_log = tl.load(A_log_ptr + i_hv).to(tl.float32)
        b_dt_bias = tl.load(dt_bias_ptr + i_hv).to(tl.float32)
        b_v = tl.load(v_ptr + i_b * stride_v + i_hv * V + o_v, mask=m_v, other=0.0).to(tl.float32)
        b_q_hat = 0.08838834764831845 * b_q / tl.sqrt(tl.sum((b_q) * (b_q), axis=0) + 1e-06)
        b_k_hat = b_k / tl.sqrt(tl.sum((b_k) * (b_k), axis=0) + 1e-06)
        b_g = -tl.exp(b_A_log) * tl.where((b_a + b_dt_bias) > 20.0, (b_a + b_dt_bias), tl.log(1.0 + tl.exp(tl.minimum((b_a + b_dt_bias), 20.0))))
        b_beta = (1.0 / (1.0 + tl.exp(-(b_b))))
        r_k_hat = tl.load(ring_k_hat_ptr + ((i_slot * H + i_kh) * L + o_l[:, None]) * K + o_k[None, :], mask=m_l[:, None] & m_k[None, :], other=0.0).to(tl.float32)
        r_g = tl.load(ring_g_ptr + (i_slot * HV + i_hv) * L + o_l, mask=m_l, other=0.0).to(tl.float32)
        r_u = tl.load(ring_u_ptr + ((i_slot * HV + i_hv) * L + o_l[:, None]) * V + o_v[None, :], mask=m_l[:, None] & m_v[None, :], other=0.0).to(tl.float32)
        rec_gate = tl.where(m_l, r_g, 0.0)
        G_rec = tl.cumsum(rec_gate, axis=0)
        G_t = tl.sum(rec_gate, axis=0) + b_g
        rec_weight = tl.exp(G_t - G_rec)
        ck_weight = tl.exp(G_t)
        kw = tl.where(m_l[:, None], rec_weight[:, None] * r_k_hat, 0.0)
        s_q = tl.sum(kw * b_q_hat[None, :], axis=1)
        s_k = tl.sum(kw * b_k_hat[None, :], axis=1)
        s_kq = tl.sum(b_k_hat * b_q_hat, axis=0)
        rec_q = tl.sum(r_u * s_q[:, None], axis=0)   # [BV] record terms, once per head
        rec_k = tl.sum(r_u * s_k[:, None], axis=0)
        cf = c.to(tl.float32)
        # scalar gate: C·(exp(G_t) q) = exp(G_t) (C·q)
        sk = ck_weight * tl.sum(cf * b_k_hat[None, :], axis=1) + rec_k
        w_t = b_beta * (b_v - sk)
        out = ck_weight * tl.sum(cf * b_q_hat[None, :], axis=1) + rec_q + w_t * s_kq
        tl.store(out_ptr + i_b * stride_out + i_hv * V + o_v, out.to(out_ptr.dtype.element_ty), mask=m_v)
        if FLUSH & FUSED:
            # The checkpoint is read again (from L2: this program read it microseconds ago)
            # rather than kept live through the output math: keeping it costs ~100
            # registers per thread for every row, flushing or not, and halves occupancy.
            p_fold = ckpt_ptr + (i_slot * HV + i_hv) * V * K + (o_v * K)[:, None] + o_k[None, :]
            if EVEN:
                c2 = tl.load(p_fold)
            else:
                c2 = tl.load(p_fold, mask=m_v[:, None] & m_k[None, :], other=0.0)
            s = c2.to(tl.float32) * ck_weight + w_t[:, None] * b_k_hat[None, :]
            G = 0.0
            base_v = (i_slot * HV + i_hv) * L
            base_k = (i_slot * H + i_kh) * L
            for j in range(0, BL):  # static bound (rows >= n are masked): no data-dependent loop
                live = j < n
                G += tl.load(ring_g_ptr + base_v + j, mask=live, other=0.0).to(tl.float32)
                u_j = tl.load(ring_u_ptr + (base_v + j) * V + o_v, mask=m_v & live, other=0.0).to(tl.float32)
                k_j = tl.load(ring_k_hat_ptr + (base_k + j) * K + o_k, mask=m_k & live, other=0.0).to(tl.float32)
                s += u_j[:, None] * (tl.exp(G_t - G) * k_j)[None, :]
            # Addresses formed anew after the loop (an expression the compiler cannot merge
            # with the load's): a [BV, BK] tensor of 64-bit pointers kept live through the
            # loop would cost two registers per element.
            p_write = ckpt_ptr + ((i_slot * HV + i_hv) * V + o_v)[:, None] * K + o_k[None, :]
            if EVEN:
                tl.store(p_write, s.to(ckpt_ptr.dtype.element_ty))
            else:
                tl.store(p_write, s.to(ckpt_ptr.dtype.element_ty), mask=m_v[:, None] & m_k[None, :])
            tl.store(p_cursor, 0)
        else:
            tl.store(ring_u_ptr + ((i_slot * HV + i_hv) * L + n) * V + o_v, w_t.to(ring_u_ptr.dtype.element_ty), mask=m_v)
            if i_hv % GROUP == 0:
                tl.store(ring_k_hat_ptr + ((i_slot * H + i_kh) * L + n) * K + o_k, b_k_hat.to(ring_k_hat_ptr.dtype.element_ty), mask=m_k)
            tl.store(ring_g_ptr + ((i_slot * HV + i_hv) * L + n), b_g.to(ring_g_ptr.dtype.element_ty))
            tl.store(p_cursor, tl.minimum(n + 1, L - 1))
