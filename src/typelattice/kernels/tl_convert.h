/*
 * tl_convert.h -- bit-exact float16 / bfloat16 conversions for typelattice.
 *
 * Two layers:
 *
 *  1. Portable inline scalar functions on bit patterns (usable from C, C++
 *     and CUDA device code: TL_CVT_HD is __host__ __device__ under nvcc).  They
 *     are the reference semantics:
 *       - float16 <-> float32/float64: NumPy's npymath conversions
 *         (round to nearest even, overflow to inf, subnormals, NaN payload
 *         truncated/extended without quieting, a NaN whose truncated
 *         payload would be 0 becomes payload 1).  Float64 -> float16 rounds
 *         ONCE, like NumPy (not via float32).
 *       - bfloat16 <-> float32/float64: ml_dtypes (Eigen) semantics.
 *         float32 -> bfloat16 rounds to nearest even; any NaN becomes the
 *         canonical quiet NaN 0x7fc0 with the sign kept.  float64 ->
 *         bfloat16 goes THROUGH float32 (double rounding, as ml_dtypes
 *         does).  bfloat16 -> float64 goes through float32 and the
 *         hardware float->double conversion (a signalling NaN is quieted,
 *         as in ml_dtypes).
 *     Floating-point exceptions NumPy/ml_dtypes would raise are reported
 *     by OR-ing TL_FLAG_* bits into *flags (the caller raises them; the
 *     block functions below do it for you).
 *
 *  2. Block functions (tl_convert.c) on contiguous arrays, with runtime CPU
 *     dispatch (AVX-512 / AVX2+F16C / scalar), all paths giving the same
 *     bits and raising the same floating-point exception flags (via the
 *     hardware or feraiseexcept) as NumPy's / ml_dtypes' astype:
 *       f32->f16, f64->f16 : FE_OVERFLOW (finite -> inf), FE_UNDERFLOW
 *                            (result in the half subnormal/zero range and
 *                            inexact; tininess detected BEFORE rounding as
 *                            NumPy does).  NaN input raises nothing.
 *       f32->bf16          : FE_INVALID for a signalling-NaN input only.
 *       f64->bf16          : whatever the float64->float32 hardware
 *                            conversion raises (FE_OVERFLOW, FE_UNDERFLOW,
 *                            FE_INVALID for sNaN) -- as ml_dtypes.
 *       bf16->f64          : FE_INVALID for a signalling-NaN input.
 *       f16->f32, f16->f64, bf16->f32 : nothing.
 *     (The hardware may additionally set FE_INEXACT and the x86 denormal
 *     flag; NumPy checks neither.)  The float16 results and flags do not
 *     depend on MXCSR.DAZ/FTZ (set process-wide by -ffast-math libraries),
 *     like NumPy's software conversions; the bfloat16<->float64 steps use
 *     the hardware float conversion and follow DAZ/FTZ exactly as
 *     ml_dtypes' casts do in the same process.
 *
 * Block functions require non-overlapping src and dst.  n <= 0 is a no-op.
 * Strided variants take byte strides; they convert through small stack
 * buffers (256 elements) and call the contiguous kernels.
 */
#ifndef TL_CONVERT_H
#define TL_CONVERT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <math.h>
#include <fenv.h>

#ifdef __CUDACC__
#define TL_CVT_HD __host__ __device__
#else
#define TL_CVT_HD
#endif

#define TL_FLAG_OVERFLOW  1u
#define TL_FLAG_UNDERFLOW 2u
#define TL_FLAG_INVALID   4u

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* bit casts                                                           */
/* ------------------------------------------------------------------ */
TL_CVT_HD static inline float tl_bits_to_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
TL_CVT_HD static inline uint32_t tl_f32_to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
TL_CVT_HD static inline double tl_bits_to_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
TL_CVT_HD static inline uint64_t tl_f64_to_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* ------------------------------------------------------------------ */
/* float16 -> float32 / float64 (NumPy: exact, sNaN kept as is)         */
/* ------------------------------------------------------------------ */
TL_CVT_HD static inline uint32_t tl_f16bits_to_f32bits(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t a = (uint32_t)h & 0x7fffu;
    if (a >= 0x7c00u)                       /* inf / NaN: payload shifted */
        return sign | 0x7f800000u | ((a & 0x3ffu) << 13);
    if (a >= 0x0400u)                       /* normal: rebias exponent */
        return sign | ((a << 13) + 0x38000000u);
    if (a == 0)
        return sign;
    {                                       /* subnormal: normalise */
        uint32_t e = 113;
        do { a <<= 1; --e; } while (!(a & 0x400u));
        return sign | (e << 23) | ((a & 0x3ffu) << 13);
    }
}

TL_CVT_HD static inline uint64_t tl_f16bits_to_f64bits(uint16_t h)
{
    uint64_t sign = ((uint64_t)h & 0x8000u) << 48;
    uint64_t a = (uint64_t)h & 0x7fffu;
    if (a >= 0x7c00u)
        return sign | 0x7ff0000000000000ULL | ((a & 0x3ffu) << 42);
    if (a >= 0x0400u)
        return sign | ((a + 0xfc000u) << 42);
    if (a == 0)
        return sign;
    {
        uint64_t e = 1009;
        do { a <<= 1; --e; } while (!(a & 0x400u));
        return sign | (e << 52) | ((a & 0x3ffu) << 42);
    }
}

TL_CVT_HD static inline int tl_half_snan(uint16_t h)
{
    uint16_t a = (uint16_t)(h & 0x7fffu);
    return a > 0x7c00u && a < 0x7e00u;
}

/* ------------------------------------------------------------------ */
/* float32 / float64 -> float16 (NumPy: one rounding, RNE)              */
/* ------------------------------------------------------------------ */
TL_CVT_HD static inline uint16_t tl_f32bits_to_f16bits(uint32_t f, unsigned *flags)
{
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t a = f & 0x7fffffffu;
    if (a >= 0x47800000u) {                 /* |f| >= 2^16, inf, NaN */
        if (a > 0x7f800000u) {
            uint32_t m = (a >> 13) & 0x3ffu;
            return (uint16_t)(sign | 0x7c00u | m | (uint32_t)(m == 0));
        }
        if (a != 0x7f800000u)
            *flags |= TL_FLAG_OVERFLOW;
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < 0x38800000u) {                  /* |f| < 2^-14: subnormal or 0 */
        uint32_t m, s, k, rem, half;
        if (a < 0x33000000u) {              /* |f| < 2^-25: rounds to 0 */
            if (a)
                *flags |= TL_FLAG_UNDERFLOW;
            return (uint16_t)sign;
        }
        m = (a & 0x7fffffu) | 0x800000u;
        s = 126u - (a >> 23);               /* 14..24 bits dropped */
        k = m >> s;
        rem = m & ((1u << s) - 1u);
        half = 1u << (s - 1u);
        if (rem)
            *flags |= TL_FLAG_UNDERFLOW;
        k += (uint32_t)((rem > half) | ((rem == half) & (k & 1u)));
        return (uint16_t)(sign | k);        /* k == 0x400 is the min normal */
    }
    {                                       /* normal range */
        uint32_t h = (a - 0x38000000u) >> 13;
        uint32_t rem = a & 0x1fffu;
        h += (uint32_t)((rem > 0x1000u) | ((rem == 0x1000u) & (h & 1u)));
        if (h >= 0x7c00u)
            *flags |= TL_FLAG_OVERFLOW;
        return (uint16_t)(sign | h);
    }
}

TL_CVT_HD static inline uint16_t tl_f64bits_to_f16bits(uint64_t d, unsigned *flags)
{
    uint32_t sign = (uint32_t)(d >> 48) & 0x8000u;
    uint64_t a = d & 0x7fffffffffffffffULL;
    if (a >= 0x40f0000000000000ULL) {       /* |d| >= 2^16, inf, NaN */
        if (a > 0x7ff0000000000000ULL) {
            uint32_t m = (uint32_t)(a >> 42) & 0x3ffu;
            return (uint16_t)(sign | 0x7c00u | m | (uint32_t)(m == 0));
        }
        if (a != 0x7ff0000000000000ULL)
            *flags |= TL_FLAG_OVERFLOW;
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < 0x3f10000000000000ULL) {        /* |d| < 2^-14 */
        uint64_t m, rem, half;
        uint32_t s, k;
        if (a < 0x3e60000000000000ULL) {    /* |d| < 2^-25 */
            if (a)
                *flags |= TL_FLAG_UNDERFLOW;
            return (uint16_t)sign;
        }
        m = (a & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
        s = 1051u - (uint32_t)(a >> 52);    /* 43..53 bits dropped */
        k = (uint32_t)(m >> s);
        rem = m & ((1ULL << s) - 1u);
        half = 1ULL << (s - 1u);
        if (rem)
            *flags |= TL_FLAG_UNDERFLOW;
        k += (uint32_t)((rem > half) | ((rem == half) & (k & 1u)));
        return (uint16_t)(sign | k);
    }
    {
        uint32_t h = (uint32_t)((a - 0x3f00000000000000ULL) >> 42);
        uint64_t rem = a & 0x3ffffffffffULL;
        h += (uint32_t)((rem > 0x20000000000ULL) | ((rem == 0x20000000000ULL) & (h & 1u)));
        if (h >= 0x7c00u)
            *flags |= TL_FLAG_OVERFLOW;
        return (uint16_t)(sign | h);
    }
}

/* ------------------------------------------------------------------ */
/* bfloat16 (ml_dtypes semantics)                                      */
/* ------------------------------------------------------------------ */
TL_CVT_HD static inline uint32_t tl_bf16bits_to_f32bits(uint16_t b)
{
    return (uint32_t)b << 16;               /* exact, NaN bits kept */
}

/* Through float32 and the hardware float->double conversion, as ml_dtypes:
 * a signalling NaN comes out quiet (and the CPU raises FE_INVALID). */
TL_CVT_HD static inline double tl_bf16bits_to_f64(uint16_t b)
{
    return (double)tl_bits_to_f32((uint32_t)b << 16);
}

TL_CVT_HD static inline uint16_t tl_f32bits_to_bf16bits(uint32_t f, unsigned *flags)
{
    uint32_t a = f & 0x7fffffffu;
    if (a > 0x7f800000u) {                  /* NaN -> canonical quiet NaN */
        if (a < 0x7fc00000u)
            *flags |= TL_FLAG_INVALID;      /* ml_dtypes' isnan() on an sNaN */
        return (uint16_t)(((f >> 16) & 0x8000u) | 0x7fc0u);
    }
    return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

/* float64 -> float32 (hardware, RNE; raises its own flags) -> bfloat16. */
TL_CVT_HD static inline uint16_t tl_f64_to_bf16bits(double d, unsigned *flags)
{
    return tl_f32bits_to_bf16bits(tl_f32_to_bits((float)d), flags);
}

/* ------------------------------------------------------------------ */
/* Block functions (tl_convert.c)                                      */
/* ------------------------------------------------------------------ */
#ifndef __CUDACC__
void tl_convert_f16_to_f32(const uint16_t *src, float *dst, ptrdiff_t n);
void tl_convert_f16_to_f64(const uint16_t *src, double *dst, ptrdiff_t n);
void tl_convert_f32_to_f16(const float *src, uint16_t *dst, ptrdiff_t n);
void tl_convert_f64_to_f16(const double *src, uint16_t *dst, ptrdiff_t n);
void tl_convert_bf16_to_f32(const uint16_t *src, float *dst, ptrdiff_t n);
void tl_convert_bf16_to_f64(const uint16_t *src, double *dst, ptrdiff_t n);
void tl_convert_f32_to_bf16(const float *src, uint16_t *dst, ptrdiff_t n);
void tl_convert_f64_to_bf16(const double *src, uint16_t *dst, ptrdiff_t n);
/* n contiguous values of an integer kind or TL_HK_B (as 0/1) to the bits of ko (TL_HK_F16 or
 * TL_HK_BF16): 8-bit kinds exact, wider ones rounded as tl_half_binary rounds them (NumPy's /
 * ml_dtypes' casts, flags included). AVX-512: every kind; AVX2: 8-bit kinds to float16; returns
 * 0 (nothing written) elsewhere. */
int tl_convert_int_to_half(int kind, int ko, const void *src, uint16_t *dst, ptrdiff_t n);

/* Strided variants: byte strides (may be negative or 0 for src). */
void tl_convert_f16_to_f32_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_f16_to_f64_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_f32_to_f16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_f64_to_f16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_bf16_to_f32_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_bf16_to_f64_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_f32_to_bf16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);
void tl_convert_f64_to_bf16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n);

/* Fused float16/bfloat16 binary kernels: o[i] = round(OP(A(a[i]), B(b[i]))) computed in
 * float32 in registers, one pass (no block buffers), on the AVX-512 or AVX2+F16C path in use.
 * Operands: kinds TL_HK_*, ca/cb 1 for contiguous (the kind's itemsize), 0 for a scalar
 * broadcast; o is contiguous; the result kind ko is the float16/bfloat16 operand's kind.  An
 * integer operand wider than 8 bits is converted as the blocked loops do (a C cast to float32,
 * rounded to nearest even to ko: NumPy's / ml_dtypes' cast of the operand, flags included);
 * 64-bit integers only on AVX-512 (DQ).  ko TL_HK_F32: a float32 result (o of floats, no
 * rounding) of float16/bfloat16 operands with float32 (TL_HK_F32) or the other half type
 * (copysign and heaviside: these float32 results, and the half type with an integer/bool
 * operand, on AVX-512 only; fn unused, may be NULL).
 * Comparisons (TL_HOP_LESS...; ko: the compute kind, o: bools) of mixed operands: quiet
 * ordered compares (NaN: false, true for not_equal; invalid only for a signalling NaN, as the
 * blocked loops' float32 compares).  OP is
 * the float32 element function of tl_elem.h named by TL_HOP_* (maximum/minimum: quiet
 * compares; _H: NumPy's float16 choice of the first operand on ties), whose float16/bfloat16
 * results are the chosen operand's bits (an integer's as its cast gives them, a NaN's as they
 * are); fn is that same element function, used for their float32-result vectors holding a
 * float16 signalling NaN (kept unquieted, as NumPy).
 * Rounding and FP flags as tl_convert_f32_to_f16 / _bf16 plus the hardware flags of the op.
 * Returns 1 when done, 0 (nothing written) when the caller must use its own path: scalar ISA,
 * no kernel for (op, kinds), or a scalar float16 signalling NaN operand.  Inputs and o must
 * not overlap other than element for element. */
enum { TL_HK_F16, TL_HK_BF16, TL_HK_I8, TL_HK_U8, TL_HK_B, TL_HK_I16, TL_HK_U16, TL_HK_I32,
       TL_HK_U32, TL_HK_I64, TL_HK_U64, TL_HK_F32 };
/* integers of more than 8 bits (rounded to the result kind) */
#define TL_HK_WIDE(k) ((k) >= TL_HK_I16 && (k) <= TL_HK_U64)
/* bytes of an element of kind k */
static inline int tl_hk_size(int k)
{
    static const unsigned char size[] = {2, 2, 1, 1, 1, 2, 2, 4, 4, 8, 8, 4};
    return size[k];
}
enum { TL_HOP_ADD, TL_HOP_SUBTRACT, TL_HOP_MULTIPLY, TL_HOP_DIVIDE, TL_HOP_MAXIMUM,
       TL_HOP_MINIMUM, TL_HOP_FMAX, TL_HOP_FMIN, TL_HOP_MAXIMUM_H, TL_HOP_MINIMUM_H,
       TL_HOP_FMAX_H, TL_HOP_FMIN_H, TL_HOP_COPYSIGN, TL_HOP_HEAVISIDE, TL_HOP_LESS,
       TL_HOP_LESS_EQUAL, TL_HOP_GREATER, TL_HOP_GREATER_EQUAL, TL_HOP_EQUAL, TL_HOP_NOT_EQUAL };
/* comparisons: bool results (o of bytes), fn unused */
#define TL_HOP_IS_CMP(op) ((op) >= TL_HOP_LESS)
typedef float (*tl_half_elem_fn)(float, float, unsigned *);
int tl_half_binary(int op, tl_half_elem_fn fn, int ko, int ka, const void *a, int ca,
                   int kb, const void *b, int cb, void *o, ptrdiff_t n);

/* ------------------------------------------------------------------ */
/* flags                                                               */
/* ------------------------------------------------------------------ */
static inline void tl_raise(unsigned fl)
{
    int e = 0;
    if (!fl)
        return;
#ifdef FE_OVERFLOW
    if (fl & TL_FLAG_OVERFLOW) e |= FE_OVERFLOW;
#endif
#ifdef FE_UNDERFLOW
    if (fl & TL_FLAG_UNDERFLOW) e |= FE_UNDERFLOW;
#endif
#ifdef FE_INVALID
    if (fl & TL_FLAG_INVALID) e |= FE_INVALID;
#endif
    if (e)
        feraiseexcept(e);
}

/* ------------------------------------------------------------------ */
/* the element path of the fused kernels (tl_half_binary's vectors     */
/* holding a float16 signalling NaN, and calls of a few elements)      */
/* ------------------------------------------------------------------ */
/* an integer as float32 (a C cast) rounded to nearest even to the result kind ko: the blocked
 * loops' conversion of an operand (tl_cvt_rbf for bfloat16; float16 as NumPy's cast, overflow
 * flag included) */
static inline float tl_hround(int ko, float f, unsigned *fl)
{
    uint32_t u = tl_f32_to_bits(f);
    if (ko == TL_HK_F16)
        return tl_bits_to_f32(tl_f16bits_to_f32bits(tl_f32bits_to_f16bits(u, fl)));
    return tl_bits_to_f32((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);
}

/* the operand of kind `kind` at p as float32 for result kind ko (halves: exact, NaN bits kept;
 * integers of more than 8 bits: rounded to ko) */
static inline float tl_hld(int kind, int ko, const void *p, unsigned *fl)
{
    switch (kind) {
    case TL_HK_F16: return tl_bits_to_f32(tl_f16bits_to_f32bits(*(const uint16_t *)p));
    case TL_HK_BF16: return tl_bits_to_f32(tl_bf16bits_to_f32bits(*(const uint16_t *)p));
    case TL_HK_I8: return (float)*(const int8_t *)p;
    case TL_HK_U8: return (float)*(const uint8_t *)p;
    case TL_HK_B: return (float)(*(const uint8_t *)p != 0);
    case TL_HK_I16: return tl_hround(ko, (float)*(const int16_t *)p, fl);
    case TL_HK_U16: return tl_hround(ko, (float)*(const uint16_t *)p, fl);
    case TL_HK_I32: return tl_hround(ko, (float)*(const int32_t *)p, fl);
    case TL_HK_U32: return tl_hround(ko, (float)*(const uint32_t *)p, fl);
    case TL_HK_I64: return tl_hround(ko, (float)*(const int64_t *)p, fl);
    case TL_HK_U64: return tl_hround(ko, (float)*(const uint64_t *)p, fl);
    default: return *(const float *)p;
    }
}

/* a comparison as the vector ones (C99's isless...: invalid only for a signalling NaN) */
static inline unsigned char tl_hcmp1(int op, float a, float b)
{
    switch (op) {
    case TL_HOP_LESS: return isless(a, b);
    case TL_HOP_LESS_EQUAL: return islessequal(a, b);
    case TL_HOP_GREATER: return isgreater(a, b);
    case TL_HOP_GREATER_EQUAL: return isgreaterequal(a, b);
    case TL_HOP_EQUAL: return a == b;
    default: return a != b;
    }
}

/* n elements of strided operands one by one: the element function (or tl_hcmp1) on tl_hld's
 * values, rounded to ko; rounding flags into *fl */
#if defined(__GNUC__)
__attribute__((always_inline))  /* op, ko and fn: constants where the caller's are */
#endif
static inline void tl_hbin_strided(int op, tl_half_elem_fn fn, int ko, int ka, const char *a,
                                   ptrdiff_t sa, int kb, const char *b, ptrdiff_t sb, char *o,
                                   ptrdiff_t so, ptrdiff_t n, unsigned *fl)
{
    for (ptrdiff_t j = 0; j < n; j++, a += sa, b += sb, o += so) {
        float x = tl_hld(ka, ko, a, fl), y = tl_hld(kb, ko, b, fl);
        unsigned e = 0;
        uint32_t r;
        if (TL_HOP_IS_CMP(op)) {
            *(unsigned char *)o = tl_hcmp1(op, x, y);
            continue;
        }
        r = tl_f32_to_bits(fn(x, y, &e));
        if (ko == TL_HK_F32) {
            memcpy(o, &r, 4);
        } else if (ko == TL_HK_BF16 && op >= TL_HOP_MAXIMUM && op <= TL_HOP_FMIN_H
                   && (r & 0x7fffffffu) > 0x7f800000u && (ka == TL_HK_BF16 || kb == TL_HK_BF16)) {
            /* the NaN operand max/min picks (the first NaN) keeps its bits, as in ml_dtypes'
             * bfloat16 loops and our longer calls (the rounding below gives the canonical NaN) */
            memcpy(o, ka == TL_HK_BF16 && isnan(x) ? a : b, 2);
        } else {
            uint16_t h = ko == TL_HK_F16 ? tl_f32bits_to_f16bits(r, fl)
                                         : tl_f32bits_to_bf16bits(r, fl);
            memcpy(o, &h, 2);
        }
    }
}

/* Calls of a few elements skip the kernels' set-up (~250 instructions, 10% of a 1-element call),
 * on any ISA and layout: the kernels' element path. Integers wider than 8 bits only for a half
 * result kind (tl_hld rounds them to it). Returns 0 where it does not apply. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int tl_half_binary_few(int op, tl_half_elem_fn fn, int ko, int ka, const char *a,
                                     ptrdiff_t sa, int kb, const char *b, ptrdiff_t sb, char *o,
                                     ptrdiff_t so, ptrdiff_t n)
{
    unsigned fl = 0;
    if ((ko == TL_HK_F32 && (TL_HK_WIDE(ka) || TL_HK_WIDE(kb)))
            || (fn == NULL && !TL_HOP_IS_CMP(op)))
        return 0;
    tl_hbin_strided(op, fn, ko, ka, a, sa, kb, b, sb, o, so, n, &fl);
    tl_raise(fl);
    return 1;
}

/* "avx512", "avx2+f16c" or "scalar": the path in use.  The choice is made
 * once, at first use: the best the CPU and OS support, or "scalar" when the
 * environment variable TYPELATTICE_DISABLE_SIMD is set to a non-empty value
 * other than "0". */
const char *tl_convert_isa(void);

/* Is TYPELATTICE_DISABLE_SIMD set (non-empty, not "0")?  Every SIMD path of the
 * extension (conversions, host block kernels, libmvec loops) follows it. */
int tl_simd_disabled(void);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* Does the CPU have F16C (CPUID)? */
int tl_cpu_f16c(void);
#endif

/* Testing hook: force a path by name ("avx512", "avx2+f16c", "scalar") or
 * NULL for the automatic choice.  Returns 0, or -1 when the CPU lacks it.
 * Not thread-safe against concurrent conversions; call it at start-up. */
int tl_convert_set_isa(const char *name);
#endif

#ifdef __cplusplus
}
#endif

#endif /* TL_CONVERT_H */
