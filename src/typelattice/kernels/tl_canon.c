/* typelattice loops for a canonicalized operand: see tl_canon.h.
 *
 * NumPy's get_loop hands each call the loop's tl_canon_cfg as auxdata; tl_canon_strided converts
 * the inputs in blocks and runs the compute type's loop (already wrapped by tl_threads: the
 * blocks are below its threading size, so a canon loop runs in the calling thread).
 */
#include "tl_canon.h"
#include "tl_convert.h"
#include "tl_weak.h"

#include <fenv.h>
#include <stdint.h>
#include <string.h>

#define TL_CANON_BLOCK 256
#define TL_CANON_MAXSIZE 16

struct tl_canon_cfg {
    NpyAuxData base;                    /* first: the cfg is NumPy's auxdata */
    PyArrayMethod_StridedLoop *loop;
    int nin, nargs;
    NPY_ARRAYMETHOD_FLAGS flags;
    tl_canon_inputs in;
};

tl_canon_find_t tl_canon_find = NULL;

static const unsigned char tl_canon_size[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};

/* a value of any loop type: its kind and the widest C type of that kind */
enum { TL_CN_INT, TL_CN_UINT, TL_CN_FLT, TL_CN_CPX };
typedef struct { int kind; int64_t i; uint64_t u; double re, im; } tl_cn_val;

static int tl_cn_kind(int code)
{
    switch (code) {
        case TL_WK_BOOL: case TL_WK_U8: case TL_WK_U16: case TL_WK_U32: case TL_WK_U64:
            return TL_CN_UINT;
        case TL_WK_I8: case TL_WK_I16: case TL_WK_I32: case TL_WK_I64: return TL_CN_INT;
        case TL_WK_F32: case TL_WK_F64: return TL_CN_FLT;
        case TL_WK_C64: case TL_WK_C128: return TL_CN_CPX;
        default: return -1;             /* float16, bfloat16: never canonicalized or canonical */
    }
}

static tl_cn_val tl_cn_load(int code, const char *p)
{
    tl_cn_val v = {0, 0, 0, 0.0, 0.0};
    v.kind = tl_cn_kind(code);
    switch (code) {
        case TL_WK_BOOL: v.u = *(const npy_bool *)p != 0; break;
        case TL_WK_U8: v.u = *(const uint8_t *)p; break;
        case TL_WK_U16: v.u = *(const uint16_t *)p; break;
        case TL_WK_U32: v.u = *(const uint32_t *)p; break;
        case TL_WK_U64: v.u = *(const uint64_t *)p; break;
        case TL_WK_I8: v.i = *(const int8_t *)p; break;
        case TL_WK_I16: v.i = *(const int16_t *)p; break;
        case TL_WK_I32: v.i = *(const int32_t *)p; break;
        case TL_WK_I64: v.i = *(const int64_t *)p; break;
        case TL_WK_F32: v.re = *(const float *)p; break;
        case TL_WK_F64: v.re = *(const double *)p; break;
        case TL_WK_C64: v.re = ((const float *)p)[0]; v.im = ((const float *)p)[1]; break;
        case TL_WK_C128: v.re = ((const double *)p)[0]; v.im = ((const double *)p)[1]; break;
    }
    return v;
}

/* v as type `code` at p, as NumPy's cast (C casts; an integer to float16 through float32, exact
 * below 2**24, past float16's range above) */
#define TL_CN_AS(T) ((v.kind == TL_CN_INT) ? (T)v.i : (v.kind == TL_CN_UINT) ? (T)v.u : (T)v.re)
static void tl_cn_store(int code, char *p, tl_cn_val v, unsigned *flags)
{
    switch (code) {
        case TL_WK_BOOL:
            *(npy_bool *)p = (npy_bool)(v.kind == TL_CN_INT ? v.i != 0 : v.kind == TL_CN_UINT
                                        ? v.u != 0 : (v.re != 0.0 || v.im != 0.0));
            break;
        case TL_WK_U8: *(uint8_t *)p = TL_CN_AS(uint8_t); break;
        case TL_WK_U16: *(uint16_t *)p = TL_CN_AS(uint16_t); break;
        case TL_WK_U32: *(uint32_t *)p = TL_CN_AS(uint32_t); break;
        case TL_WK_U64: *(uint64_t *)p = TL_CN_AS(uint64_t); break;
        case TL_WK_I8: *(int8_t *)p = TL_CN_AS(int8_t); break;
        case TL_WK_I16: *(int16_t *)p = TL_CN_AS(int16_t); break;
        case TL_WK_I32: *(int32_t *)p = TL_CN_AS(int32_t); break;
        case TL_WK_I64: *(int64_t *)p = TL_CN_AS(int64_t); break;
        case TL_WK_F16: {
            uint16_t h = v.kind == TL_CN_FLT || v.kind == TL_CN_CPX
                ? tl_f64bits_to_f16bits(tl_f64_to_bits(v.re), flags)
                : tl_f32bits_to_f16bits(tl_f32_to_bits(TL_CN_AS(float)), flags);
            memcpy(p, &h, 2);
            break;
        }
        case TL_WK_F32: *(float *)p = TL_CN_AS(float); break;
        case TL_WK_F64: *(double *)p = TL_CN_AS(double); break;
        case TL_WK_C64:
            ((float *)p)[0] = TL_CN_AS(float);
            ((float *)p)[1] = (float)v.im;
            break;
        case TL_WK_C128:
            ((double *)p)[0] = TL_CN_AS(double);
            ((double *)p)[1] = v.im;
            break;
    }
}

/* Typed loops for the usual conversions (jax32's 64 -> 32 bits, then int32/uint32/float32 to a
 * float, complex or wider int), the same C casts as tl_cn_load/tl_cn_store without a switch per
 * element (8 ns an element there); 0 where none applies. */
#define TL_CN_S1(TS, TC)                                                                         \
    do {                                                                                         \
        for (j = 0; j < m; j++) {                                                                \
            TS v;                                                                                \
            memcpy(&v, src + j * ss, sizeof(v));                                                 \
            ((TC *)(void *)cb)[j] = (TC)v;                                                       \
        }                                                                                        \
        return 1;                                                                                \
    } while (0)
static int tl_cn_fast_to_canon(int s, int c, const char *src, npy_intp ss, char *cb, npy_intp m)
{
    npy_intp j;
    if (s == TL_WK_I64 && c == TL_WK_I32) TL_CN_S1(int64_t, int32_t);
    if (s == TL_WK_U64 && c == TL_WK_U32) TL_CN_S1(uint64_t, uint32_t);
    if (s == TL_WK_F64 && c == TL_WK_F32) TL_CN_S1(double, float);
    return 0;
}
#define TL_CN_S2(TC, TT)                                                                         \
    do {                                                                                         \
        for (j = 0; j < m; j++) ((TT *)(void *)ob)[j] = (TT)((const TC *)(const void *)cb)[j];   \
        return 1;                                                                                \
    } while (0)
#define TL_CN_S2C(TC, TF)                                                                        \
    do {                                                                                         \
        for (j = 0; j < m; j++) {                                                                \
            ((TF *)(void *)ob)[2 * j] = (TF)((const TC *)(const void *)cb)[j];                   \
            ((TF *)(void *)ob)[2 * j + 1] = 0;                                                   \
        }                                                                                        \
        return 1;                                                                                \
    } while (0)
#define TL_CN_FROM(TC)                                                                           \
    switch (t) {                                                                                 \
        case TL_WK_F32: TL_CN_S2(TC, float);                                                     \
        case TL_WK_F64: TL_CN_S2(TC, double);                                                    \
        case TL_WK_C64: TL_CN_S2C(TC, float);                                                    \
        case TL_WK_C128: TL_CN_S2C(TC, double);                                                  \
        case TL_WK_I64: TL_CN_S2(TC, int64_t);                                                   \
        case TL_WK_U64: TL_CN_S2(TC, uint64_t);                                                  \
        default: return 0;                                                                       \
    }
static int tl_cn_fast_to_compute(int c, int t, const char *cb, char *ob, npy_intp m)
{
    npy_intp j;
    if (c == TL_WK_I32) { TL_CN_FROM(int32_t) }
    if (c == TL_WK_U32) { TL_CN_FROM(uint32_t) }
    return 0;
}

/* aligned block buffers for one input: its canonical items, its compute items */
typedef struct {
    double canon[TL_CANON_BLOCK * TL_CANON_MAXSIZE / 8];
    double compute[TL_CANON_BLOCK * TL_CANON_MAXSIZE / 8];
} tl_canon_buf;

static int tl_canon_strided(PyArrayMethod_Context *ctx, char *const data[],
                            npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    const tl_canon_cfg *cfg = (const tl_canon_cfg *)aux;
    const tl_canon_inputs *in = &cfg->in;
    int nin = cfg->nin, nargs = cfg->nargs, i;
    npy_intp n = dims[0];
    PyArray_Descr *descrs[4];
    PyArrayMethod_Context c2 = *ctx;
    char *d2[4], *src[2];
    npy_intp st2[4];
    tl_canon_buf buf[2];

    for (i = 0; i < nargs; i++) {
        descrs[i] = ctx->descriptors[i];
        d2[i] = data[i];
        st2[i] = st[i];
    }
    for (i = 0; i < nin; i++) {
        src[i] = data[i];
        if (in->src[i] >= 0) {
            descrs[i] = in->compute_descr[i];
            d2[i] = (char *)buf[i].compute;
            st2[i] = st[i] == 0 ? 0 : in->compute_size[i];   /* a broadcast value: once */
        }
    }
    c2.descriptors = descrs;
    while (n > 0) {
        npy_intp m = n < TL_CANON_BLOCK ? n : TL_CANON_BLOCK, j;
        unsigned flags = 0;
        int raised;
        for (i = 0; i < nin; i++) {
            npy_intp cm = st[i] == 0 ? 1 : m;
            int cs = tl_canon_size[in->canon[i]];
            char *cb = (char *)buf[i].canon, *ob = (char *)buf[i].compute;
            if (in->src[i] < 0) continue;
            if (in->src[i] == TL_CN_CAST) {     /* gathered, then its own cast */
                npy_intp sz = in->src_size[i];
                for (j = 0; j < cm; j++) memcpy(cb + j * sz, src[i] + j * st[i], (size_t)sz);
                in->to_compute[i](cb, ob, cm, NULL, NULL);
                continue;
            }
            if (!tl_cn_fast_to_canon(in->src[i], in->canon[i], src[i], st[i], cb, cm))
                for (j = 0; j < cm; j++)
                    tl_cn_store(in->canon[i], cb + j * cs,
                                tl_cn_load(in->src[i], src[i] + j * st[i]), &flags);
            if (in->compute[i] == TL_CN_CAST)
                in->to_compute[i](cb, ob, cm, NULL, NULL);
            else if (!tl_cn_fast_to_compute(in->canon[i], in->compute[i], cb, ob, cm))
                for (j = 0; j < cm; j++)
                    tl_cn_store(in->compute[i], ob + j * in->compute_size[i],
                                tl_cn_load(in->canon[i], cb + j * cs), &flags);
        }
        /* the casts' FP flags (an int past float16's range, float64 past float32's) outlive a
         * loop that clears its own, as NumPy's cast before the loop would report them */
        raised = fetestexcept(FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
                 | ((flags & TL_FLAG_OVERFLOW) ? FE_OVERFLOW : 0);
        if (cfg->loop(&c2, d2, &m, st2, NULL) < 0) return -1;
        if (raised) feraiseexcept(raised);
        for (i = 0; i < nargs; i++) {
            if (i < nin && in->src[i] >= 0) src[i] += m * st[i];
            else d2[i] += m * st[i];
        }
        n -= m;
    }
    return 0;
}

static void tl_canon_aux_free(NpyAuxData *aux) { (void)aux; }
static NpyAuxData *tl_canon_aux_clone(NpyAuxData *aux) { return aux; }

tl_canon_cfg *tl_canon_new(PyArrayMethod_StridedLoop *loop, int nin, int nout,
                           const tl_canon_inputs *in)
{
    tl_canon_cfg *cfg;
    int i;
    if (nin < 1 || nin > 2 || nout < 1 || nin + nout > 4) goto bad;
    for (i = 0; i < nin; i++) {
        int s = in->src[i], c = in->canon[i], t = in->compute[i];
        if (s < 0) continue;
        if (s == TL_CN_CAST) {
            if (t != TL_CN_CAST || in->to_compute[i] == NULL || in->compute_descr[i] == NULL
                || in->src_size[i] < 1 || in->src_size[i] > TL_CANON_MAXSIZE
                || in->compute_size[i] < 1 || in->compute_size[i] > TL_CANON_MAXSIZE)
                goto bad;
            continue;
        }
        if (tl_cn_kind(s) < 0 || tl_cn_kind(c) < 0 || tl_canon_size[c] > 8
            || in->compute_descr[i] == NULL || in->compute_size[i] < 1
            || in->compute_size[i] > TL_CANON_MAXSIZE
            || (t == TL_CN_CAST ? in->to_compute[i] == NULL
                : t < 0 || t > TL_WK_C128 || t == TL_WK_BF16
                  || in->compute_size[i] != tl_canon_size[t]))
            goto bad;
    }
    cfg = (tl_canon_cfg *)PyMem_RawCalloc(1, sizeof(*cfg));
    if (cfg == NULL) { PyErr_NoMemory(); return NULL; }
    cfg->base.free = tl_canon_aux_free;
    cfg->base.clone = tl_canon_aux_clone;
    cfg->loop = loop;
    cfg->nin = nin;
    cfg->nargs = nin + nout;
    cfg->in = *in;
    return cfg;
bad:
    PyErr_SetString(PyExc_TypeError, "typelattice: a canon loop cannot make this conversion");
    return NULL;
}

void tl_canon_set_flags(tl_canon_cfg *cfg, NPY_ARRAYMETHOD_FLAGS flags) { cfg->flags = flags; }

int tl_canon_get_loop(PyArrayMethod_Context *ctx, int aligned, int move_references,
                      const npy_intp *strides, PyArrayMethod_StridedLoop **out_loop,
                      NpyAuxData **out_aux, NPY_ARRAYMETHOD_FLAGS *flags)
{
    tl_canon_cfg *cfg;
    (void)aligned; (void)move_references; (void)strides;
    if (tl_canon_find == NULL) {
        PyErr_SetString(PyExc_SystemError, "typelattice: canon loops not set up");
        return -1;
    }
    cfg = tl_canon_find(ctx->caller, ctx->descriptors);
    if (cfg == NULL) return -1;
    *out_loop = tl_canon_strided;
    *out_aux = &cfg->base;
    *flags = cfg->flags;
    return 0;
}
