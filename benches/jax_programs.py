"""Fresh validation set of JAX programs for hlo-layout.

Writes the PRE-optimization HLO text of 16 small-but-realistic JAX programs
to <name>.hlo in the folder given as the first argument (default: beside this file):

    jax.jit(f).lower(*args).as_text(dialect="hlo")

Shapes are chosen to stress TPU tiling: tiny/odd minor dims (3, 7, 9, 17),
trailing size-1 dims, vocab 1000, [B,S,H,D] attention, NHWC with few channels.
All inputs are abstract (jax.ShapeDtypeStruct) so nothing is executed.
The output of jax 0.10.2 is kept in tests/inputs/jax-programs, where
tests/assign_agreement.rs holds assign's padding figures on it.
"""
import os
import sys

import jax
import jax.numpy as jnp
from jax import lax

OUT = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1 and not sys.argv[1].isidentifier():
    OUT = sys.argv.pop(1)
    os.makedirs(OUT, exist_ok=True)
S = jax.ShapeDtypeStruct
f32, bf16, i32, i8, u32 = jnp.float32, jnp.bfloat16, jnp.int32, jnp.int8, jnp.uint32

PROGRAMS = {}


def program(name, desc):
    def deco(fn):
        PROGRAMS[name] = (desc, fn)
        return fn
    return deco


# 1 ---------------------------------------------------------------------------
@program("small_skinny_matrices",
         "skinny [4,300]/[3,1000] matmuls, transposes, row/col reductions")
def _():
    def f(a, b, c, w):
        # a:[4,300] b:[300,3] c:[3,1000] w:[1000,4]
        ab = a @ b                                  # [4,3]
        abc = ab @ c                                # [4,1000]
        y = jnp.tanh(abc) @ w                       # [4,4]
        col_mean = c.mean(axis=0, keepdims=True)    # [1,1000]
        row_max = c.max(axis=1)                     # [3]
        ct = (c - col_mean).T                       # [1000,3]
        gram = ct.T @ ct                            # [3,3]
        return y + a[:, :4], gram * row_max[:, None], a.T.sum(axis=1)
    return f, (S((4, 300), f32), S((300, 3), f32), S((3, 1000), f32),
               S((1000, 4), f32))


# 2 ---------------------------------------------------------------------------
@program("trailing_unit_dims",
         "[128,64,1]/[1,64,1] broadcasting, squeeze/expand, gated scale")
def _():
    def f(x, g, bias):
        # x:[128,64,1] g:[1,64,1] bias:[128,1,1]
        h = x * jax.nn.sigmoid(g) + bias            # [128,64,1]
        s = jnp.squeeze(h, -1)                      # [128,64]
        norm = jnp.sqrt(jnp.sum(s * s, axis=1, keepdims=True) + 1e-6)
        s = s / norm
        e = s[:, :, None, None]                     # [128,64,1,1]
        e = jnp.broadcast_to(e, (128, 64, 1, 5))    # [128,64,1,5]
        red = e.sum(axis=(1,))                      # [128,1,5]
        att = jnp.einsum("bi,bj->bij", s[:, :8], s[:, 8:16])[..., None]  # [128,8,8,1]
        return h, red, att.max(axis=2)
    return f, (S((128, 64, 1), f32), S((1, 64, 1), f32), S((128, 1, 1), f32))


# 3 ---------------------------------------------------------------------------
@program("gqa_attention_bshd",
         "grouped-query causal attention [B,S,H,D]: 8 q heads/2 kv heads, D=64, RoPE, M=320")
def _():
    B, Sq, H, KV, D, M = 2, 96, 8, 2, 64, 320

    def f(x, wq, wk, wv, wo, pos):
        # x:[B,S,M]
        q = jnp.einsum("bsm,mhd->bshd", x, wq)       # [B,S,H,D]
        k = jnp.einsum("bsm,mhd->bshd", x, wk)       # [B,S,KV,D]
        v = jnp.einsum("bsm,mhd->bshd", x, wv)
        # rotary-ish position scaling
        ang = pos[:, :, None, None] * (1.0 / 10000 ** (jnp.arange(D // 2) / (D // 2)))
        cos, sin = jnp.cos(ang), jnp.sin(ang)
        def rope(t):
            t1, t2 = t[..., : D // 2], t[..., D // 2:]
            return jnp.concatenate([t1 * cos - t2 * sin, t1 * sin + t2 * cos], -1)
        q, k = rope(q), rope(k)
        q = q.reshape(B, Sq, KV, H // KV, D)
        s = jnp.einsum("bqgrd,bkgd->bgrqk", q, k) / jnp.sqrt(D).astype(f32)
        mask = jnp.tril(jnp.ones((Sq, Sq), bool))
        s = jnp.where(mask, s, -1e9)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bgrqk,bkgd->bqgrd", p, v).reshape(B, Sq, H, D)
        return jnp.einsum("bshd,hdm->bsm", o, wo)
    return f, (S((B, Sq, M), f32), S((M, H, D), f32), S((M, KV, D), f32),
               S((M, KV, D), f32), S((H, D, M), f32), S((B, Sq), f32))


# 4 ---------------------------------------------------------------------------
@program("nhwc_image_preproc",
         "NHWC [8,40,40,3] per-channel normalize, 3x3 stem conv, maxpool, avgpool, flip aug")
def _():
    def f(img, mean, std, w):
        # img:[8,40,40,3] uint8-like floats, w:[3,3,3,12] HWIO
        x = (img / 255.0 - mean) / std
        x = jnp.where(jnp.arange(8)[:, None, None, None] % 2 == 0, x, x[:, :, ::-1, :])
        y = lax.conv_general_dilated(x, w, (2, 2), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y)                           # [8,20,20,12]
        mp = lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        ap = lax.reduce_window(mp, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
        gap = ap.mean(axis=(1, 2))                   # [8,12]
        return ap, gap
    return f, (S((8, 40, 40, 3), f32), S((3,), f32), S((3,), f32),
               S((3, 3, 3, 12), f32))


# 5 ---------------------------------------------------------------------------
@program("vmap_per_example_grads",
         "vmap(grad) per-example grads of a 2-layer net with 7 features, clip + noise (DP-SGD)")
def _():
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)                    # [24]
        logit = h @ w2 + b2                          # [3]
        return -jax.nn.log_softmax(logit)[y]

    def f(w1, b1, w2, b2, xs, ys, noise_w1):
        params = (w1, b1, w2, b2)
        g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
        # per-example global norm clipping
        sq = sum(jnp.sum(t.reshape(t.shape[0], -1) ** 2, axis=1) for t in g)
        scale = jnp.minimum(1.0, 1.0 / (jnp.sqrt(sq) + 1e-6))
        g = [jnp.mean(t * scale.reshape((-1,) + (1,) * (t.ndim - 1)), axis=0) for t in g]
        g[0] = g[0] + 0.01 * noise_w1
        return tuple(p - 0.1 * gi for p, gi in zip(params, g))
    return f, (S((7, 24), f32), S((24,), f32), S((24, 3), f32), S((3,), f32),
               S((33, 7), f32), S((33,), i32), S((7, 24), f32))


# 6 ---------------------------------------------------------------------------
@program("int8_quant_matmul",
         "dynamic per-row int8 quantize of activations, int8xint8->int32 dot, f32 per-channel dequant")
def _():
    def f(x, wq, wscale, bias):
        # x:[48,200] f32, wq:[200,96] int8, wscale:[96] f32
        amax = jnp.max(jnp.abs(x), axis=1, keepdims=True)           # [48,1]
        xscale = amax / 127.0 + 1e-8
        xq = jnp.clip(jnp.round(x / xscale), -127, 127).astype(i8)  # [48,200]
        acc = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())),
                              preferred_element_type=i32)          # [48,96]
        y = acc.astype(f32) * xscale * wscale[None, :] + bias
        # requantize output per-tensor
        s = jnp.max(jnp.abs(y)) / 127.0
        yq = jnp.clip(jnp.round(y / s), -128, 127).astype(i8)
        return yq, s, acc
    return f, (S((48, 200), f32), S((200, 96), i8), S((96,), f32), S((96,), f32))


# 7 ---------------------------------------------------------------------------
@program("random_dropout_sampling",
         "jax.random: split/fold_in, raw bits [5,1000], dropout mask, gumbel categorical sampling")
def _():
    def f(key, x, logits):
        # x:[16,130] logits:[5,1000]
        k1, k2, k3 = jax.random.split(key, 3)
        bits = jax.random.bits(k1, (5, 1000), u32)
        keep = jax.random.bernoulli(k2, 0.9, x.shape)
        xd = jnp.where(keep, x / 0.9, 0.0)
        samples = jax.random.categorical(jax.random.fold_in(k3, 7), logits, axis=-1)
        noise = jax.random.normal(k3, (16, 130, 1))
        return xd + noise[..., 0], samples, bits >> 24
    return f, (S((2,), u32), S((16, 130), f32), S((5, 1000), f32))


# 8 ---------------------------------------------------------------------------
@program("small_cnn_train_step",
         "jax.grad SGD step of a 2-conv NHWC CNN on [6,28,28,1] with 10 classes")
def _():
    dn = ("NHWC", "HWIO", "NHWC")

    def model(p, x):
        c1, b1, c2, b2, wd, bd = p
        h = lax.conv_general_dilated(x, c1, (1, 1), "SAME", dimension_numbers=dn) + b1
        h = jax.nn.relu(h)
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = lax.conv_general_dilated(h, c2, (2, 2), "VALID", dimension_numbers=dn) + b2
        h = jax.nn.relu(h)                           # [6,6,6,16]
        h = h.reshape(h.shape[0], -1)
        return h @ wd + bd

    def loss(p, x, y):
        logits = model(p, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), -1))

    def f(c1, b1, c2, b2, wd, bd, x, y):
        p = (c1, b1, c2, b2, wd, bd)
        l, g = jax.value_and_grad(loss)(p, x, y)
        return tuple(a - 0.05 * b for a, b in zip(p, g)) + (l,)
    return f, (S((5, 5, 1, 8), f32), S((8,), f32), S((3, 3, 8, 16), f32), S((16,), f32),
               S((576, 10), f32), S((10,), f32), S((6, 28, 28, 1), f32), S((6,), i32))


# 9 ---------------------------------------------------------------------------
@program("gru_scan_fori",
         "GRU over time with lax.scan ([T=21,B=3,I=7], H=50) + fori_loop EMA smoothing of outputs")
def _():
    def f(xs, h0, wx, wh, b):
        # xs:[21,3,7] h0:[3,50] wx:[7,150] wh:[50,150] b:[150]
        def cell(h, x):
            gx = x @ wx + b
            gh = h @ wh
            zx, rx, nx = jnp.split(gx, 3, axis=-1)
            zh, rh, nh = jnp.split(gh, 3, axis=-1)
            z = jax.nn.sigmoid(zx + zh)
            r = jax.nn.sigmoid(rx + rh)
            n = jnp.tanh(nx + r * nh)
            h = (1 - z) * n + z * h
            return h, h
        hT, hs = lax.scan(cell, h0, xs)              # hs:[21,3,50]

        def body(i, acc):
            return 0.9 * acc + 0.1 * lax.dynamic_index_in_dim(hs, i, 0, keepdims=False)
        ema = lax.fori_loop(0, xs.shape[0], body, jnp.zeros_like(h0))
        return hT, hs, ema
    return f, (S((21, 3, 7), f32), S((3, 50), f32), S((7, 150), f32),
               S((50, 150), f32), S((150,), f32))


# 10 --------------------------------------------------------------------------
@program("layernorm_mlp_bf16",
         "bf16 pre-LN residual MLP block [2,77,384] with gelu, f32 LN stats and f32 accumulate")
def _():
    def ln(x, g, b):
        xf = x.astype(f32)
        mu = xf.mean(-1, keepdims=True)
        var = ((xf - mu) ** 2).mean(-1, keepdims=True)
        return ((xf - mu) * lax.rsqrt(var + 1e-5) * g + b).astype(bf16)

    def f(x, g, b, w1, b1, w2, b2):
        h = ln(x, g, b)
        h = jnp.einsum("bsd,df->bsf", h, w1, preferred_element_type=f32) + b1
        h = jax.nn.gelu(h).astype(bf16)
        h = jnp.einsum("bsf,fd->bsd", h, w2, preferred_element_type=f32) + b2
        return (x.astype(f32) + h).astype(bf16)
    return f, (S((2, 77, 384), bf16), S((384,), f32), S((384,), f32),
               S((384, 1536), bf16), S((1536,), f32), S((1536, 384), bf16), S((384,), f32))


# 11 --------------------------------------------------------------------------
@program("softmax_xent_vocab1000",
         "label-smoothed softmax cross-entropy over vocab 1000 with padding mask, value_and_grad wrt proj")
def _():
    def loss(w, h, labels, mask):
        logits = h @ w                                # [4,25,1000]
        logp = jax.nn.log_softmax(logits, axis=-1)
        onehot = jax.nn.one_hot(labels, 1000)
        tgt = 0.9 * onehot + 0.1 / 1000
        nll = -jnp.sum(tgt * logp, -1)                # [4,25]
        z = jax.nn.logsumexp(logits, -1)
        nll = nll + 1e-4 * z ** 2                     # z-loss
        acc = (jnp.argmax(logits, -1) == labels)
        return jnp.sum(nll * mask) / jnp.sum(mask), jnp.sum(acc * mask)

    def f(w, h, labels, mask):
        (l, acc), g = jax.value_and_grad(loss, has_aux=True)(w, h, labels, mask)
        return l, acc, g
    return f, (S((96, 1000), f32), S((4, 25, 96), f32), S((4, 25), i32), S((4, 25), f32))


# 12 --------------------------------------------------------------------------
@program("embedding_lookup_grad",
         "token+position embedding gather [1000,48] with ids [4,37], grad -> scatter-add, row-sparse update")
def _():
    def loss(tab, pos_tab, ids, w):
        e = jnp.take(tab, ids, axis=0) + pos_tab[None, : ids.shape[1]]   # [4,37,48]
        pooled = e.mean(axis=1)                                            # [4,48]
        return jnp.sum(jnp.tanh(pooled @ w) ** 2)

    def f(tab, pos_tab, ids, w):
        g_tab, g_pos = jax.grad(loss, argnums=(0, 1))(tab, pos_tab, ids, w)
        # explicit scatter too: count occurrences per row
        counts = jnp.zeros((1000,), f32).at[ids.reshape(-1)].add(1.0)
        new_tab = tab.at[ids.reshape(-1)].add(-0.1 * jnp.take(g_tab, ids.reshape(-1), axis=0))
        return new_tab, pos_tab - 0.1 * g_pos, counts
    return f, (S((1000, 48), f32), S((64, 48), f32), S((4, 37), i32), S((48, 5), f32))


# 13 --------------------------------------------------------------------------
@program("topk_sort_cumsum",
         "top_k k=5 over [6,1000], sort axis 0 of [300,7], argsort, cumsum/cumprod/cummax, nucleus filter")
def _():
    def f(logits, table, p):
        # logits:[6,1000] table:[300,7] p:[3,1000]
        vals, idx = lax.top_k(logits, 5)
        srt = jnp.sort(table, axis=0)
        order = jnp.argsort(table[:, 3])
        reordered = table[order]
        # top-p (nucleus) mask
        probs = jax.nn.softmax(logits, -1)
        sp = jnp.sort(probs, axis=-1)[:, ::-1]
        cs = jnp.cumsum(sp, axis=-1)
        cut = jnp.sum(cs < 0.9, axis=-1, keepdims=True)
        thresh = jnp.take_along_axis(sp, cut, axis=-1)
        nucleus = jnp.where(probs >= thresh, logits, -jnp.inf)
        cp = jnp.cumprod(p, axis=0)
        cm = lax.cummax(p, axis=1)
        return vals, idx, srt, reordered, nucleus, cp, cm
    return f, (S((6, 1000), f32), S((300, 7), f32), S((3, 1000), f32))


# 14 --------------------------------------------------------------------------
@program("while_cg_solver",
         "conjugate-gradient lax.while_loop on SPD [60,60] with 3 RHS [60,3] and tolerance stop")
def _():
    def f(a_raw, b):
        a = a_raw @ a_raw.T + 60.0 * jnp.eye(60, dtype=f32)
        x0 = jnp.zeros_like(b)
        r0 = b - a @ x0

        def cond(s):
            i, x, r, p, rs = s
            return jnp.logical_and(i < 100, jnp.max(rs) > 1e-10)

        def body(s):
            i, x, r, p, rs = s
            ap = a @ p                                   # [60,3]
            alpha = rs / jnp.sum(p * ap, axis=0)         # [3]
            x = x + alpha[None] * p
            r = r - alpha[None] * ap
            rs_new = jnp.sum(r * r, axis=0)
            p = r + (rs_new / rs)[None] * p
            return i + 1, x, r, p, rs_new

        i, x, r, _, rs = lax.while_loop(cond, body, (0, x0, r0, r0, jnp.sum(r0 * r0, 0)))
        return x, i, jnp.sqrt(rs)
    return f, (S((60, 60), f32), S((60, 3), f32))


# 15 --------------------------------------------------------------------------
@program("einsum_multi_batch",
         "einsums with 2-3 batch dims: [2,3,4,17,9]x[2,3,4,9,5], bilinear, outer/trace contractions")
def _():
    def f(a, b, c, d, u, v):
        # a:[2,3,4,17,9] b:[2,3,4,9,5] c:[3,5,11] d:[2,4,11,6] u:[2,3,17] v:[2,3,6]
        ab = jnp.einsum("xyzij,xyzjk->xyzik", a, b)          # [2,3,4,17,5]
        abc = jnp.einsum("xyzik,ykl->xzyil", ab, c)          # [2,4,3,17,11]
        abcd = jnp.einsum("xzyil,xzlm->xyim", abc, d)        # [2,3,17,6]
        bil = jnp.einsum("xyi,xyim,xym->xy", u, abcd, v)     # [2,3]
        tr = jnp.einsum("xyzii->xyz", a[..., :9, :])         # [2,3,4]
        outer = jnp.einsum("xyi,xym->xyim", u, v)            # [2,3,17,6]
        return abcd + outer, bil, tr
    return f, (S((2, 3, 4, 17, 9), f32), S((2, 3, 4, 9, 5), f32), S((3, 5, 11), f32),
               S((2, 4, 11, 6), f32), S((2, 3, 17), f32), S((2, 3, 6), f32))


# 16 --------------------------------------------------------------------------
@program("conv1d_nlc_tcn",
         "temporal conv net on [N=4,L=250,C=7]: causal dilated conv1d, depthwise conv, strided conv, GLU")
def _():
    dn = ("NWC", "WIO", "NWC")

    def f(x, w1, wdw, w2, w3):
        # causal dilated conv: k=3, dilation 2 -> left pad 4
        h = lax.conv_general_dilated(x, w1, (1,), [(4, 0)], rhs_dilation=(2,),
                                     dimension_numbers=dn)           # [4,250,32]
        a, g = jnp.split(h, 2, axis=-1)
        h = a * jax.nn.sigmoid(g)                                    # [4,250,16] GLU
        h = lax.conv_general_dilated(h, wdw, (1,), "SAME", dimension_numbers=dn,
                                     feature_group_count=16)         # depthwise
        h = jax.nn.silu(h)
        h = lax.conv_general_dilated(h, w2, (2,), "VALID", dimension_numbers=dn)  # [4,124,24]
        y = lax.conv_general_dilated(h, w3, (1,), "SAME", dimension_numbers=dn)   # [4,124,3]
        return y, h.max(axis=1)
    return f, (S((4, 250, 7), f32), S((3, 7, 32), f32), S((5, 1, 16), f32),
               S((3, 16, 24), f32), S((1, 24, 3), f32))


def main():
    assert len(PROGRAMS) == 16, len(PROGRAMS)
    only = set(sys.argv[1:])
    for name, (desc, make) in PROGRAMS.items():
        if only and name not in only:
            continue
        fn, args = make()
        fn.__name__ = fn.__qualname__ = name  # module name: jit_<name>
        text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
        path = os.path.join(OUT, name + ".hlo")
        with open(path, "w") as fh:
            fh.write(text)
        print(f"{name}\t{text.count(chr(10))}\t{desc}")


if __name__ == "__main__":
    main()
