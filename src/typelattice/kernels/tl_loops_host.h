/* typelattice NumPy strided loops (host only): macros instantiated by the generated _loops.h.
 *
 * Each loop has NumPy's fast paths: all contiguous, a scalar (stride 0) first or second operand,
 * a reduction (out aliases the first input with stride 0) and the generic strided case. Element
 * functions come from tl_elem.h; TL_LD_* / TL_ST_* convert between storage and compute types
 * (float16/bfloat16 <-> float32, bool normalized to 0/1). Floating-point flags the element
 * functions report are raised in hardware at the end, so np.errstate applies as for NumPy.
 */
#ifndef TYPELATTICE_TL_LOOPS_HOST_H
#define TYPELATTICE_TL_LOOPS_HOST_H

#include <Python.h>
#include <fenv.h>
#include "numpy/ndarraytypes.h"
#include "numpy/dtype_api.h"
#include "tl_elem.h"

#define TL_LD_id(x) (x)
#define TL_ST_id(x, e) (x)
#define TL_LD_b(x) ((tl_bool)((x) != 0))
#define TL_LD_f16(x) tl_f16_to_f32(x)
#define TL_ST_f16(x, e) tl_f32_to_f16((x), (e))
#define TL_LD_bf16(x) tl_bf16_to_f32(x)
#define TL_ST_bf16(x, e) tl_f32_to_bf16((x), (e))

static int tl_finish(unsigned fpe)
{
    if (fpe == 0) return 0;
    if (fpe & TL_ERR_NEGPOW) {
        PyGILState_STATE st = PyGILState_Ensure();
        PyErr_SetString(PyExc_ValueError,
                        "Integers to negative integer powers are not allowed.");
        PyGILState_Release(st);
        return -1;
    }
    {
        int flags = 0;
        if (fpe & TL_FPE_DIVBYZERO) flags |= FE_DIVBYZERO;
        if (fpe & TL_FPE_OVERFLOW) flags |= FE_OVERFLOW;
        if (fpe & TL_FPE_UNDERFLOW) flags |= FE_UNDERFLOW;
        if (fpe & TL_FPE_INVALID) flags |= FE_INVALID;
        feraiseexcept(flags);
    }
    return 0;
}

#define TL_LOOP_ARGS PyArrayMethod_Context *ctx, char *const data[], npy_intp const dims[], \
                     npy_intp const st[], NpyAuxData *aux

/* (S1, S2) -> SO: out = ST(FN(LD1(a), LD2(b))) */
#define TL_LOOP2_BODY(S1, S2, SO, LD1, LD2, ST, FN)                                              \
    npy_intp n = dims[0], i;                                                                     \
    char *a = data[0], *b = data[1], *o = data[2];                                               \
    npy_intp sa = st[0], sb = st[1], so = st[2];                                                 \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    if (sa == sizeof(S1) && sb == sizeof(S2) && so == sizeof(SO)) {                              \
        const S1 *pa = (const S1 *)a; const S2 *pb = (const S2 *)b; SO *po = (SO *)o;            \
        for (i = 0; i < n; i++) po[i] = ST(FN(LD1(pa[i]), LD2(pb[i]), &fpe), &fpe);              \
    }                                                                                            \
    else if (sa == 0 && sb == sizeof(S2) && so == sizeof(SO) && (char *)a != o) {                \
        const S2 *pb = (const S2 *)b; SO *po = (SO *)o;                                          \
        const __typeof__(LD1(*(S1 *)a)) x = LD1(*(const S1 *)a);                                 \
        for (i = 0; i < n; i++) po[i] = ST(FN(x, LD2(pb[i]), &fpe), &fpe);                       \
    }                                                                                            \
    else if (sb == 0 && sa == sizeof(S1) && so == sizeof(SO) && (char *)b != o) {                \
        const S1 *pa = (const S1 *)a; SO *po = (SO *)o;                                          \
        const __typeof__(LD2(*(S2 *)b)) y = LD2(*(const S2 *)b);                                 \
        for (i = 0; i < n; i++) po[i] = ST(FN(LD1(pa[i]), y, &fpe), &fpe);                       \
    }                                                                                            \
    else {                                                                                       \
        for (i = 0; i < n; i++, a += sa, b += sb, o += so)                                       \
            *(SO *)o = ST(FN(LD1(*(const S1 *)a), LD2(*(const S2 *)b), &fpe), &fpe);             \
    }                                                                                            \
    return tl_finish(fpe);

#define TL_LOOP2(NAME, S1, S2, SO, LD1, LD2, ST, FN)                                             \
static int NAME(TL_LOOP_ARGS) { TL_LOOP2_BODY(S1, S2, SO, LD1, LD2, ST, FN) }

/* Same-type loop with a reduction path that keeps the accumulator in the compute type (exact for
 * every type whose storage is its compute type; NumPy's float16 add/subtract/multiply/divide
 * reductions accumulate in float32 too). */
#define TL_LOOP2_RED(NAME, S, LD, ST, FN)                                                        \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (data[0] == data[2] && st[0] == 0 && st[2] == 0) {                                        \
        npy_intp n = dims[0], i, sb = st[1];                                                     \
        const char *b = data[1];                                                                 \
        unsigned fpe = 0;                                                                        \
        __typeof__(LD(*(S *)data[0])) acc = LD(*(S *)data[0]);                                   \
        if (sb == sizeof(S)) {                                                                   \
            const S *pb = (const S *)b;                                                          \
            for (i = 0; i < n; i++) acc = FN(acc, LD(pb[i]), &fpe);                              \
        } else {                                                                                 \
            for (i = 0; i < n; i++, b += sb) acc = FN(acc, LD(*(const S *)b), &fpe);             \
        }                                                                                        \
        *(S *)data[0] = ST(acc, &fpe);                                                           \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) }                                                   \
}

/* NumPy's pairwise summation (loops_utils.h.src), in the compute type F. */
#define TL_PAIRWISE(SFX, S, F, LD)                                                               \
static F tl_pairwise_##SFX(const char *a, npy_intp n, npy_intp stride)                           \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (n < 8) {                                                                                 \
        F res = (F)-0.0;                                                                         \
        for (i = 0; i < n; i++) res += LD(*(const S *)(a + i * stride));                         \
        return res;                                                                              \
    }                                                                                            \
    else if (n <= 128) {                                                                         \
        F r[8], res;                                                                             \
        int k;                                                                                   \
        for (k = 0; k < 8; k++) r[k] = LD(*(const S *)(a + k * stride));                         \
        for (i = 8; i < n - (n % 8); i += 8)                                                     \
            for (k = 0; k < 8; k++) r[k] += LD(*(const S *)(a + (i + k) * stride));              \
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                 \
        for (; i < n; i++) res += LD(*(const S *)(a + i * stride));                              \
        return res;                                                                              \
    }                                                                                            \
    else {                                                                                       \
        npy_intp n2 = n / 2;                                                                     \
        n2 -= n2 % 8;                                                                            \
        return tl_pairwise_##SFX(a, n2, stride) + tl_pairwise_##SFX(a + n2 * stride, n - n2, stride); \
    }                                                                                            \
}

/* add with NumPy's pairwise reduction */
#define TL_LOOP2_PW(NAME, SFX, S, LD, ST, FN)                                                    \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (data[0] == data[2] && st[0] == 0 && st[2] == 0) {                                        \
        unsigned fpe = 0;                                                                        \
        __typeof__(LD(*(S *)data[0])) acc = LD(*(S *)data[0]);                                   \
        acc += tl_pairwise_##SFX(data[1], dims[0], st[1]);                                       \
        *(S *)data[0] = ST(acc, &fpe);                                                           \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) }                                                   \
}

/* two outputs: (q, r) = FN(a, b) */
#define TL_LOOP_DIVMOD(NAME, S, CT, LD, ST, FN)                                                  \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i;                                                                     \
    char *a = data[0], *b = data[1], *o1 = data[2], *o2 = data[3];                               \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    for (i = 0; i < n; i++, a += st[0], b += st[1], o1 += st[2], o2 += st[3]) {                  \
        CT q, r;                                                                                 \
        FN(LD(*(const S *)a), LD(*(const S *)b), &q, &r, &fpe);                                  \
        *(S *)o1 = ST(q, &fpe);                                                                  \
        *(S *)o2 = ST(r, &fpe);                                                                  \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* ufunc.at: a[idx] = FN(a[idx], b) (NPY_METH_contiguous_indexed_loop) */
#define TL_INDEXED(NAME, S, LD, ST, FN)                                                          \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    char *ip1 = data[0], *indxp = data[1], *value = data[2];                                     \
    npy_intp is1 = st[0], isindex = st[1], isb = st[2], shape = st[3], n = dims[0], i;           \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    for (i = 0; i < n; i++, indxp += isindex, value += isb) {                                    \
        npy_intp indx = *(npy_intp *)indxp;                                                      \
        S *p;                                                                                    \
        if (indx < 0) indx += shape;                                                             \
        p = (S *)(ip1 + is1 * indx);                                                             \
        *p = ST(FN(LD(*p), LD(*(const S *)value), &fpe), &fpe);                                  \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* get_reduction_initial: the identity of the op in storage type S */
#define TL_INITIAL(NAME, S, VALUE, EMPTY_VALUE)                                                  \
static int NAME(PyArrayMethod_Context *ctx, npy_bool empty, char *initial)                       \
{                                                                                                \
    (void)ctx;                                                                                   \
    if (empty) { S v = EMPTY_VALUE; memcpy(initial, &v, sizeof(S)); }                            \
    else { S v = VALUE; memcpy(initial, &v, sizeof(S)); }                                        \
    return 1;                                                                                    \
}

typedef struct {
    const char *op;          /* op name (_ops.py) */
    int types[4];            /* loop dtypes as indices into LOOP_TYPES, -1: unused */
    PyArrayMethod_StridedLoop *loop;
    PyArrayMethod_StridedLoop *indexed;   /* or NULL */
    void *initial;                        /* get_reduction_initial or NULL */
} tl_loop_entry;

#endif
