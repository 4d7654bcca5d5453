/* typelattice loops for a Python scalar operand: see tl_weak.h.
 *
 * A pool of thunks (tl_thunks.h): thunk k converts operand tl_weak_side[k] to type
 * tl_weak_to[k] and runs tl_weak_real[k], T's same-dtype loop (already wrapped by tl_threads,
 * so the conversion and its errors happen once, in the calling thread).
 */
#include "tl_weak.h"
#include "tl_convert.h"
#include "tl_thunks.h"
#include "numpy/npy_math.h"      /* NPY_FPE_* */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#else
#include <fenv.h>
#endif

tl_weak_fpe_cb_t tl_weak_fpe_cb = NULL;

#define TL_WEAK_NARGS 4
#define TL_WEAK_NTHUNK 1024         /* registered on first use: ops x 5 types x 2 sides x 2 kinds */
static PyArrayMethod_StridedLoop *tl_weak_real[TL_WEAK_NTHUNK];
static unsigned char tl_weak_side[TL_WEAK_NTHUNK], tl_weak_to[TL_WEAK_NTHUNK],
                     tl_weak_nargs[TL_WEAK_NTHUNK];
static int tl_weak_n = 0;

static const char *const tl_weak_name[] = {
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128"};
static const unsigned char tl_weak_size[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};

static int tl_weak_error(const PyArray_Descr *from, int to)
{
    PyGILState_STATE st = PyGILState_Ensure();
    PyErr_Format(PyExc_TypeError, "typelattice: no weak-scalar conversion from type number %d "
                 "to %s", from->type_num, tl_weak_name[to]);
    PyGILState_Release(st);
    return -1;
}

static int tl_weak_cast_fpe(int npy_flags)
{
    int r;
    PyGILState_STATE st;
    if (!npy_flags) return 0;
    st = PyGILState_Ensure();
    r = tl_weak_fpe_cb(npy_flags);
    PyGILState_Release(st);
    return r;
}

/* double -> float as the CPU rounds it; the flags it raises are returned as NumPy's FPE bits
 * and taken back out of the FP status (NumPy checks the status after the loop) */
static float tl_weak_narrow(double x, int *npy_flags)
{
    float f;
    double a = fabs(x);
    /* zero or float's normal range: no flag but inexact (ignored), and no status to read (the
     * read waits for the conversion: half a small call's time). Quiet comparisons: a NaN must
     * raise nothing here. */
    if ((isgreaterequal(a, FLT_MIN) && islessequal(a, FLT_MAX)) || a == 0.0)
        return (float)x;
#if defined(__SSE__) || defined(__x86_64__)
    unsigned csr = _mm_getcsr(), got;
    _mm_setcsr(csr & ~0x3fu);
    f = (float)x;
    __asm__ __volatile__("" : "+x"(f));
    got = _mm_getcsr();
    _mm_setcsr(csr);
    *npy_flags |= ((got & 0x08u) ? NPY_FPE_OVERFLOW : 0) | ((got & 0x10u) ? NPY_FPE_UNDERFLOW : 0)
                  | ((got & 0x01u) ? NPY_FPE_INVALID : 0);
#else
    fexcept_t saved;
    fegetexceptflag(&saved, FE_ALL_EXCEPT);
    feclearexcept(FE_ALL_EXCEPT);
    f = (float)x;
    *npy_flags |= (fetestexcept(FE_OVERFLOW) ? NPY_FPE_OVERFLOW : 0)
                  | (fetestexcept(FE_UNDERFLOW) ? NPY_FPE_UNDERFLOW : 0)
                  | (fetestexcept(FE_INVALID) ? NPY_FPE_INVALID : 0);
    fesetexceptflag(&saved, FE_ALL_EXCEPT);
#endif
    return f;
}

/* NumPy's float setitem reports an overflow to inf only */
static float tl_weak_to_f32(double x, int *npy_flags)
{
    int ignored = 0;
    float f = tl_weak_narrow(x, &ignored);
    if (isinf(f) && !isinf(x)) *npy_flags |= NPY_FPE_OVERFLOW;
    return f;
}

/* The scalar at p (NumPy's float64 or complex128 0-d array of a Python float or complex) as
 * type `to` into out, as NumPy converts a Python scalar into a 0-d array of `to` (arraytypes'
 * setitem; for bfloat16 ml_dtypes' float64 -> bfloat16 cast, whose FP errors NumPy reports) */
static int tl_weak_value(int to, const PyArray_Descr *from, const char *p, void *out)
{
    double re, im = 0.0;
    if (from->type_num != NPY_DOUBLE && from->type_num != NPY_CDOUBLE)
        return tl_weak_error(from, to);
    memcpy(&re, p, 8);
    if (from->type_num == NPY_CDOUBLE) {
        if (to != TL_WK_C64 && to != TL_WK_C128) return tl_weak_error(from, to);
        memcpy(&im, p + 8, 8);
    }
    return tl_weak_scalar(to, re, im, out);
}

int tl_weak_scalar(int to, double re, double im, void *out)
{
    int fpe = 0;
    switch (to) {
        case TL_WK_F16: {
            unsigned fl = 0;
            uint16_t h = tl_f64bits_to_f16bits(tl_f64_to_bits(re), &fl);
            memcpy(out, &h, 2);
            fpe = (fl & TL_FLAG_OVERFLOW) ? NPY_FPE_OVERFLOW : 0;
            break;
        }
        case TL_WK_BF16: {
            unsigned fl = 0;
            float f = tl_weak_narrow(re, &fpe);
            uint16_t b = tl_f32bits_to_bf16bits(tl_f32_to_bits(f), &fl);
            memcpy(out, &b, 2);
            fpe |= (fl & TL_FLAG_INVALID) ? NPY_FPE_INVALID : 0;
            break;
        }
        case TL_WK_F32: { float f = tl_weak_to_f32(re, &fpe); memcpy(out, &f, 4); break; }
        case TL_WK_C64: {
            float c[2];
            c[0] = tl_weak_to_f32(re, &fpe);
            c[1] = tl_weak_to_f32(im, &fpe);
            memcpy(out, c, 8);
            break;
        }
        case TL_WK_C128: { double c[2]; c[0] = re; c[1] = im; memcpy(out, c, 16); break; }
        default: {
            PyGILState_STATE st = PyGILState_Ensure();
            PyErr_Format(PyExc_TypeError, "typelattice: no weak-scalar conversion to %s",
                         to >= 0 && to <= TL_WK_C128 ? tl_weak_name[to] : "?");
            PyGILState_Release(st);
            return -1;
        }
    }
    return tl_weak_cast_fpe(fpe);
}

#define TL_WEAK_BLOCK 64

static int tl_weak_dispatch(int k, PyArrayMethod_Context *ctx, char *const data[],
                            npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)
{
    int s = tl_weak_side[k], nargs = tl_weak_nargs[k], i;
    npy_intp n = dims[0], size = tl_weak_size[tl_weak_to[k]];
    PyArray_Descr *descrs[TL_WEAK_NARGS];
    PyArrayMethod_Context c2 = *ctx;
    char *d2[TL_WEAK_NARGS];
    npy_intp st2[TL_WEAK_NARGS];
    double buf[TL_WEAK_BLOCK * 2];          /* 64 values of up to 16 bytes */

    /* T's loop sees T's descriptor for the scalar operand (some loops look at them) */
    for (i = 0; i < nargs; i++) {
        descrs[i] = ctx->descriptors[i];
        d2[i] = data[i];
        st2[i] = st[i];
    }
    descrs[s] = ctx->descriptors[1 - s];
    c2.descriptors = descrs;
    if (st[s] == 0 || n <= 1) {             /* the usual case: one value */
        if (tl_weak_value(tl_weak_to[k], ctx->descriptors[s], data[s], buf) < 0) return -1;
        d2[s] = (char *)buf;
        st2[s] = 0;
        return tl_weak_real[k](&c2, d2, dims, st2, aux);
    }
    /* a strided scalar operand (ufunc.at, buffered iteration): blocks of converted values */
    {
        const char *ps = data[s];
        st2[s] = size;
        d2[s] = (char *)buf;
        while (n > 0) {
            npy_intp m = n < TL_WEAK_BLOCK ? n : TL_WEAK_BLOCK, j;
            for (j = 0; j < m; j++, ps += st[s])
                if (tl_weak_value(tl_weak_to[k], ctx->descriptors[s], ps, (char *)buf + j * size) < 0)
                    return -1;
            if (tl_weak_real[k](&c2, d2, &m, st2, aux) < 0) return -1;
            for (i = 0; i < nargs; i++)
                if (i != s) d2[i] += m * st[i];
            n -= m;
        }
    }
    return 0;
}

/* TL_WEAK_NTHUNK thunks tl_weak_t_XYZ (hex index), each passing its index to the dispatcher */
#define TL_WEAK_THUNK(a, b, c)                                                                   \
    static int tl_weak_t_##a##b##c(PyArrayMethod_Context *ctx, char *const data[],               \
                                   npy_intp const dims[], npy_intp const st[], NpyAuxData *aux)  \
    { return tl_weak_dispatch(0x##a##b##c, ctx, data, dims, st, aux); }
#define TL_WEAK_PTR(a, b, c) tl_weak_t_##a##b##c,
#define TL_WEAK_1024(M) TL_THUNKS_256(M, 0) TL_THUNKS_256(M, 1) TL_THUNKS_256(M, 2)              \
    TL_THUNKS_256(M, 3)
TL_WEAK_1024(TL_WEAK_THUNK)
static PyArrayMethod_StridedLoop *const tl_weak_thunks[TL_WEAK_NTHUNK] = {
    TL_WEAK_1024(TL_WEAK_PTR)
};

PyArrayMethod_StridedLoop *tl_weak_wrap(PyArrayMethod_StridedLoop *loop, int side, int to,
                                        int nargs)
{
    int k;
    if ((to != TL_WK_F16 && to != TL_WK_BF16 && to != TL_WK_F32 && to != TL_WK_C64
         && to != TL_WK_C128) || side < 0 || side > 1 || nargs > TL_WEAK_NARGS)
        return NULL;
    for (k = 0; k < tl_weak_n; k++)
        if (tl_weak_real[k] == loop && tl_weak_side[k] == side && tl_weak_to[k] == to)
            return tl_weak_thunks[k];
    if (tl_weak_n == TL_WEAK_NTHUNK) return NULL;
    tl_weak_real[k] = loop;
    tl_weak_side[k] = (unsigned char)side;
    tl_weak_to[k] = (unsigned char)to;
    tl_weak_nargs[k] = (unsigned char)nargs;
    tl_weak_n++;
    return tl_weak_thunks[k];
}
