/*
 * tl_convert.c -- block conversions float16/bfloat16 <-> float32/float64
 * with runtime CPU dispatch.  See tl_convert.h for the exact semantics.
 *
 * Compile with any C99 compiler; no -m flags are needed (the SIMD kernels
 * use per-function target attributes and are only called when the CPU has
 * the instructions).  Link with -lm (feraiseexcept) where libm is separate.
 *
 * How the SIMD paths stay bit- and flag-identical to the scalar reference:
 *  - float32 -> float16 uses vcvtps2ph with an explicit round-to-nearest-
 *    even immediate.  Its results equal NumPy's for every non-NaN input;
 *    NaN lanes are zeroed before the instruction (so no FE_INVALID from a
 *    signalling NaN) and then rewritten by the scalar function (NumPy keeps
 *    the truncated payload and does not quiet).  The instruction itself
 *    raises FE_OVERFLOW exactly when NumPy does and FE_UNDERFLOW in a
 *    subset of NumPy's cases (x86 detects tininess after rounding, NumPy
 *    before); the missing inputs, |f| in [2^-14 - 2^-25, 2^-14), are
 *    detected with a vector range compare and raised with feraiseexcept.
 *    Nonzero inputs below 2^-126 are detected too: if some library has set
 *    MXCSR.DAZ for the process (-ffast-math), the CPU reads them as 0 and
 *    raises nothing, while NumPy's software conversion still underflows.
 *    (Values are unaffected by DAZ/FTZ: such inputs give +-0 either way.)
 *  - float64 -> float16 rounds float64 -> float32 to ODD (truncate, then
 *    set the last bit when inexact), then float32 -> float16 as above.
 *    Round-to-odd with 13 spare bits makes the double rounding equal to
 *    NumPy's single rounding, and it preserves "tiny and inexact", so the
 *    flags match too.
 *  - float16 -> float32/64 uses vcvtph2ps, which is exact except that it
 *    quiets signalling NaNs (NumPy does not): such lanes are zeroed and
 *    rewritten by the scalar function.
 *  - bfloat16: integer round-to-nearest-even (the AVX512_BF16 instruction
 *    flushes subnormals, so it is not used); float64 -> float32 and
 *    float32 -> float64 use the same hardware conversion as ml_dtypes,
 *    hence the same NaN quieting and flags.
 */
#include "tl_convert.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TL_X86 1
#include <immintrin.h>
#include <cpuid.h>
#include "tl_avx2.h"
#define TL_TARGET_AVX2   __attribute__((target("avx2,f16c,fma")))
/* AVX512_BF16's vcvtneps2bf16 (where the compiler knows it: meson's check sets TL_BF16_INSN,
 * other builds go by the compiler's version): the AVX-512 kernels may carry it, and run it only
 * where the CPU has it and the kernel set in use says so (tl_bf16_insn) */
#if defined(TL_BF16_INSN) ? TL_BF16_INSN \
    : (defined(__clang__) && __clang_major__ >= 11) || (!defined(__clang__) && __GNUC__ >= 10)
#define TL_HAVE_BF16_INSN 1
#define TL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,f16c,fma")))
#else
#define TL_HAVE_BF16_INSN 0
#define TL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")))
#endif
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* in-register helpers: inlined into every loop (a call would spill the vectors) */
#define TL_VINLINE static inline __attribute__((always_inline))
#else
#define TL_X86 0
#define TL_UNLIKELY(x) (x)
#endif

/* ------------------------------------------------------------------ */
/* scalar kernels (the reference; also the tails of the AVX2 kernels)  */
/* They only accumulate flags; the caller raises them.                 */
/* ------------------------------------------------------------------ */
static void sc_f16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t b = tl_f16bits_to_f32bits(s[i]);
        memcpy(d + i, &b, 4);
    }
}

static void sc_f16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        uint64_t b = tl_f16bits_to_f64bits(s[i]);
        memcpy(d + i, &b, 8);
    }
}

static void sc_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n, unsigned *fl)
{
    for (ptrdiff_t i = 0; i < n; i++)
        d[i] = tl_f32bits_to_f16bits(tl_f32_to_bits(s[i]), fl);
}

static void sc_f64_to_f16(const double *s, uint16_t *d, ptrdiff_t n, unsigned *fl)
{
    for (ptrdiff_t i = 0; i < n; i++)
        d[i] = tl_f64bits_to_f16bits(tl_f64_to_bits(s[i]), fl);
}

static void sc_bf16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        uint32_t b = tl_bf16bits_to_f32bits(s[i]);
        memcpy(d + i, &b, 4);
    }
}

static void sc_bf16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++)
        d[i] = tl_bf16bits_to_f64(s[i]);
}

static void sc_f32_to_bf16(const float *s, uint16_t *d, ptrdiff_t n, unsigned *fl)
{
    for (ptrdiff_t i = 0; i < n; i++)
        d[i] = tl_f32bits_to_bf16bits(tl_f32_to_bits(s[i]), fl);
}

static void sc_f64_to_bf16(const double *s, uint16_t *d, ptrdiff_t n, unsigned *fl)
{
    for (ptrdiff_t i = 0; i < n; i++)
        d[i] = tl_f64_to_bf16bits(s[i], fl);
}

/* Block entry points of the scalar path (raise flags once per block). */
static void scalar_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n)
{ unsigned fl = 0; sc_f32_to_f16(s, d, n, &fl); tl_raise(fl); }
static void scalar_f64_to_f16(const double *s, uint16_t *d, ptrdiff_t n)
{ unsigned fl = 0; sc_f64_to_f16(s, d, n, &fl); tl_raise(fl); }
static void scalar_f32_to_bf16(const float *s, uint16_t *d, ptrdiff_t n)
{ unsigned fl = 0; sc_f32_to_bf16(s, d, n, &fl); tl_raise(fl); }
static void scalar_f64_to_bf16(const double *s, uint16_t *d, ptrdiff_t n)
{ unsigned fl = 0; sc_f64_to_bf16(s, d, n, &fl); tl_raise(fl); }

typedef struct {
    const char *name;
    void (*f16_to_f32)(const uint16_t *, float *, ptrdiff_t);
    void (*f16_to_f64)(const uint16_t *, double *, ptrdiff_t);
    void (*f32_to_f16)(const float *, uint16_t *, ptrdiff_t);
    void (*f64_to_f16)(const double *, uint16_t *, ptrdiff_t);
    void (*bf16_to_f32)(const uint16_t *, float *, ptrdiff_t);
    void (*bf16_to_f64)(const uint16_t *, double *, ptrdiff_t);
    void (*f32_to_bf16)(const float *, uint16_t *, ptrdiff_t);
    void (*f64_to_bf16)(const double *, uint16_t *, ptrdiff_t);
} tl_kernels;

static const tl_kernels K_scalar = {
    "scalar", sc_f16_to_f32, sc_f16_to_f64, scalar_f32_to_f16, scalar_f64_to_f16,
    sc_bf16_to_f32, sc_bf16_to_f64, scalar_f32_to_bf16, scalar_f64_to_bf16,
};

#if TL_X86
/* ================================================================== */
/* AVX2 + F16C                                                         */
/* ================================================================== */

/* Lanes where NumPy raises underflow but vcvtps2ph may not:
 *  - 0x387FE000 <= |f| < 0x38800000 (x86 detects tininess after rounding);
 *  - 0 < |f| < 2^-126 (a float32 subnormal input is read as 0 when some
 *    library has set the process-wide MXCSR.DAZ bit, e.g. -ffast-math). */
TL_TARGET_AVX2 TL_VINLINE __m256i avx2_uf_lanes(__m256i a)
{
    __m256i bnd = _mm256_and_si256(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x387FDFFF)),
                                   _mm256_cmpgt_epi32(_mm256_set1_epi32(0x38800000), a));
    __m256i tiny = _mm256_and_si256(_mm256_cmpgt_epi32(a, _mm256_setzero_si256()),
                                    _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), a));
    return _mm256_or_si256(bnd, tiny);
}

/* Lanes of 8 float16 that are signalling NaNs (vcvtph2ps would quiet them). */
TL_TARGET_AVX2 TL_VINLINE __m128i avx2_f16_snan(__m128i h)
{
    __m128i a = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    return _mm_and_si128(_mm_cmpgt_epi16(a, _mm_set1_epi16(0x7c00)),
                         _mm_cmpgt_epi16(_mm_set1_epi16(0x7e00), a));
}

/* 8 bfloat16 -> 8 float32 bit patterns (exact) */
TL_TARGET_AVX2 TL_VINLINE __m256i avx2_bf16_widen(__m128i h)
{
    return _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
}

TL_TARGET_AVX2 static void avx2_f16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i sn = avx2_f16_snan(h);
        if (TL_UNLIKELY(!_mm_testz_si128(sn, sn))) {   /* signalling NaN */
            sc_f16_to_f32(s + i, d + i, 8);
            continue;
        }
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(h));
    }
    sc_f16_to_f32(s + i, d + i, n - i);
}

TL_TARGET_AVX2 static void avx2_f16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i sn = avx2_f16_snan(h);
        if (TL_UNLIKELY(!_mm_testz_si128(sn, sn))) {
            sc_f16_to_f64(s + i, d + i, 8);
            continue;
        }
        __m256 f = _mm256_cvtph_ps(h);
        _mm256_storeu_pd(d + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(d + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    sc_f16_to_f64(s + i, d + i, n - i);
}

/* 8 float32 bit patterns -> 8 float16 as NumPy (vcvtps2ph, round to nearest
 * even); lanes where NumPy raises underflow are OR-ed to *bnd (see
 * avx2_uf_lanes), NaN lanes are rewritten by the scalar function (which keeps
 * the truncated payload and does not quiet). */
TL_TARGET_AVX2 TL_VINLINE __m128i avx2_f16_round(__m256i v, __m256i *bnd, unsigned *fl)
{
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    /* 0 < a < 2^-14 (below float16's normal range) <=> a - 1 <u 0x387fffff: signed compare
     * after flipping the top bit */
    const __m256i one = _mm256_set1_epi32(1), sbit = _mm256_set1_epi32((int)0x80000000u);
    const __m256i tinyx = _mm256_set1_epi32((int)(0x387fffffu ^ 0x80000000u));
    __m256i a = _mm256_and_si256(v, absm);
    __m256i nan = _mm256_cmpgt_epi32(a, inf);
    __m256i tiny = _mm256_cmpgt_epi32(tinyx, _mm256_xor_si256(_mm256_sub_epi32(a, one), sbit));
    int nm = 0;
    uint32_t vb[8];
    uint16_t hb[8];
    __m128i h;
    /* only vectors with a NaN or a result below float16's normal range (rare) need more work:
     * the underflow lanes (avx2_uf_lanes), and NaN lanes zeroed first (vcvtps2ph would raise
     * invalid for a signalling NaN) */
    if (TL_UNLIKELY(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(nan, tiny))))) {
        *bnd = _mm256_or_si256(*bnd, avx2_uf_lanes(a));
        nm = _mm256_movemask_ps(_mm256_castsi256_ps(nan));
        _mm256_storeu_si256((__m256i *)vb, v);
    }
    /* (always: gcc would otherwise convert the unmasked vector ahead of the branch) */
    h = _mm256_cvtps_ph(_mm256_castsi256_ps(_mm256_andnot_si256(nan, v)), _MM_FROUND_TO_NEAREST_INT);
    if (TL_UNLIKELY(nm)) {
        _mm_storeu_si128((__m128i *)hb, h);
        while (nm) {
            int k = __builtin_ctz((unsigned)nm);
            hb[k] = tl_f32bits_to_f16bits(vb[k], fl);
            nm &= nm - 1;
        }
        h = _mm_loadu_si128((const __m128i *)hb);
    }
    return h;
}

TL_TARGET_AVX2 static void avx2_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n)
{
    __m256i bnd = _mm256_setzero_si256();
    unsigned fl = 0;
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i),
                         avx2_f16_round(_mm256_loadu_si256((const __m256i *)(s + i)), &bnd, &fl));
    sc_f32_to_f16(s + i, d + i, n - i, &fl);
    if (!_mm256_testz_si256(bnd, bnd))
        fl |= TL_FLAG_UNDERFLOW;
    tl_raise(fl);
}

/* float64 -> float16 in two roundings that equal NumPy's one: float64 ->
 * float32 rounded to ODD (MXCSR set to round toward zero for the block, then
 * the last bit set when any of the 29 dropped bits is set), then vcvtps2ph.
 * The sticky bit is exact for |x| >= 2^-126; below that the float16 result
 * is +-0 whatever it is, and the underflow flag comes from the tiny check. */
TL_TARGET_AVX2 static void avx2_f64_to_f16(const double *s, uint16_t *d, ptrdiff_t n)
{
    const __m256i absm = _mm256_set1_epi64x(0x7fffffffffffffffLL);
    const __m256i inf = _mm256_set1_epi64x(0x7ff0000000000000LL);
    const __m256i absm32 = _mm256_set1_epi32(0x7fffffff);
    /* 0 < a < 2^-126  <=>  (a - 1) <u 0x380fffffffffffff: signed compare
     * after flipping the top bit */
    const __m256i sbit = _mm256_set1_epi64x((long long)0x8000000000000000ULL);
    const __m256i tinyx = _mm256_set1_epi64x((long long)0xb80fffffffffffffULL);
    const __m256i one64 = _mm256_set1_epi64x(1);
    const __m256i low29 = _mm256_set1_epi32(0x1fffffff), one32 = _mm256_set1_epi32(1);
    __m256i bnd = _mm256_setzero_si256();
    unsigned fl = 0;
    ptrdiff_t i = 0;
    unsigned csr = _mm_getcsr();
    if (n >= 8)
        _mm_setcsr((csr & ~0x6000u) | 0x6000u);        /* round toward zero */
    for (; i + 8 <= n; i += 8) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(s + i + 4));
        __m256i a0 = _mm256_and_si256(v0, absm), a1 = _mm256_and_si256(v1, absm);
        __m256i nan0 = _mm256_cmpgt_epi64(a0, inf);
        __m256i nan1 = _mm256_cmpgt_epi64(a1, inf);
        int nm = _mm256_movemask_pd(_mm256_castsi256_pd(nan0))
               | (_mm256_movemask_pd(_mm256_castsi256_pd(nan1)) << 4);
        /* 0 < |d| < 2^-126: NumPy underflows; the CPU may not under DAZ */
        bnd = _mm256_or_si256(bnd, _mm256_or_si256(
            _mm256_cmpgt_epi64(tinyx, _mm256_xor_si256(_mm256_sub_epi64(a0, one64), sbit)),
            _mm256_cmpgt_epi64(tinyx, _mm256_xor_si256(_mm256_sub_epi64(a1, one64), sbit))));
        if (TL_UNLIKELY(nm)) {
            v0 = _mm256_andnot_si256(nan0, v0);
            v1 = _mm256_andnot_si256(nan1, v1);
        }
        __m256i r = _mm256_castps_si256(_mm256_set_m128(_mm256_cvtpd_ps(_mm256_castsi256_pd(v1)),
                                                        _mm256_cvtpd_ps(_mm256_castsi256_pd(v0))));
        /* low dwords of the 8 doubles, in order: the 29 dropped bits */
        __m256i lo = _mm256_permute4x64_epi64(_mm256_castps_si256(
            _mm256_shuffle_ps(_mm256_castsi256_ps(v0), _mm256_castsi256_ps(v1), 0x88)), 0xD8);
        __m256i exact = _mm256_cmpeq_epi32(_mm256_and_si256(lo, low29), _mm256_setzero_si256());
        __m256i f = _mm256_or_si256(r, _mm256_andnot_si256(exact, one32));
        bnd = _mm256_or_si256(bnd, avx2_uf_lanes(_mm256_and_si256(f, absm32)));
        _mm_storeu_si128((__m128i *)(d + i),
                         _mm256_cvtps_ph(_mm256_castsi256_ps(f), _MM_FROUND_TO_NEAREST_INT));
        while (TL_UNLIKELY(nm)) {
            int k = __builtin_ctz((unsigned)nm);
            d[i + k] = tl_f64bits_to_f16bits(tl_f64_to_bits(s[i + k]), &fl);
            nm &= nm - 1;
        }
    }
    if (n >= 8)   /* restore the rounding mode, keep the flags raised since */
        _mm_setcsr((_mm_getcsr() & ~0x6000u) | (csr & 0x6000u));
    sc_f64_to_f16(s + i, d + i, n - i, &fl);
    if (!_mm256_testz_si256(bnd, bnd))
        fl |= TL_FLAG_UNDERFLOW;
    tl_raise(fl);
}

TL_TARGET_AVX2 static void avx2_bf16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i h0 = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i h1 = _mm_loadu_si128((const __m128i *)(s + i + 8));
        _mm256_storeu_si256((__m256i *)(d + i), avx2_bf16_widen(h0));
        _mm256_storeu_si256((__m256i *)(d + i + 8), avx2_bf16_widen(h1));
    }
    sc_bf16_to_f32(s + i, d + i, n - i);
}

TL_TARGET_AVX2 static void avx2_bf16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m256 f = _mm256_castsi256_ps(avx2_bf16_widen(h));
        /* same instruction as ml_dtypes' float -> double: quiets sNaN */
        _mm256_storeu_pd(d + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(d + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    sc_bf16_to_f64(s + i, d + i, n - i);
}

/* 8 float bit patterns -> 8 bfloat16 in 32-bit lanes; sNaN lanes to *sn. */
TL_TARGET_AVX2 TL_VINLINE __m256i avx2_bf16_round(__m256i v, __m256i *sn)
{
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    __m256i a = _mm256_and_si256(v, absm);
    __m256i nan = _mm256_cmpgt_epi32(a, inf);
    __m256i hi = _mm256_srli_epi32(v, 16);
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(v, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                  _mm256_and_si256(hi, _mm256_set1_epi32(1)))), 16);
    /* NaN lanes (rare): the canonical quiet NaN with the sign, invalid for a signalling one */
    if (TL_UNLIKELY(_mm256_movemask_ps(_mm256_castsi256_ps(nan)))) {
        __m256i qn = _mm256_or_si256(_mm256_and_si256(hi, _mm256_set1_epi32(0x8000)),
                                     _mm256_set1_epi32(0x7fc0));
        *sn = _mm256_or_si256(*sn, _mm256_and_si256(nan, _mm256_cmpgt_epi32(
                                  _mm256_set1_epi32(0x7fc00000), a)));
        r = _mm256_blendv_epi8(r, qn, nan);
    }
    return r;
}

TL_TARGET_AVX2 TL_VINLINE __m256i avx2_pack_u32_to_u16(__m256i r0, __m256i r1)
{
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(r0, r1), 0xD8);
}

TL_TARGET_AVX2 static void avx2_f32_to_bf16(const float *s, uint16_t *d, ptrdiff_t n)
{
    __m256i sn = _mm256_setzero_si256();
    unsigned fl = 0;
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r0 = avx2_bf16_round(_mm256_loadu_si256((const __m256i *)(s + i)), &sn);
        __m256i r1 = avx2_bf16_round(_mm256_loadu_si256((const __m256i *)(s + i + 8)), &sn);
        _mm256_storeu_si256((__m256i *)(d + i), avx2_pack_u32_to_u16(r0, r1));
    }
    sc_f32_to_bf16(s + i, d + i, n - i, &fl);
    if (!_mm256_testz_si256(sn, sn))
        fl |= TL_FLAG_INVALID;
    tl_raise(fl);
}

TL_TARGET_AVX2 static void avx2_f64_to_bf16(const double *s, uint16_t *d, ptrdiff_t n)
{
    __m256i sn = _mm256_setzero_si256();   /* stays zero: cvtpd2ps quiets */
    unsigned fl = 0;
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 f0 = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(s + i + 4)),
                                    _mm256_cvtpd_ps(_mm256_loadu_pd(s + i)));
        __m256 f1 = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(s + i + 12)),
                                    _mm256_cvtpd_ps(_mm256_loadu_pd(s + i + 8)));
        __m256i r0 = avx2_bf16_round(_mm256_castps_si256(f0), &sn);
        __m256i r1 = avx2_bf16_round(_mm256_castps_si256(f1), &sn);
        _mm256_storeu_si256((__m256i *)(d + i), avx2_pack_u32_to_u16(r0, r1));
    }
    sc_f64_to_bf16(s + i, d + i, n - i, &fl);
    tl_raise(fl);
}

static const tl_kernels K_avx2 = {
    "avx2+f16c", avx2_f16_to_f32, avx2_f16_to_f64, avx2_f32_to_f16, avx2_f64_to_f16,
    avx2_bf16_to_f32, avx2_bf16_to_f64, avx2_f32_to_bf16, avx2_f64_to_bf16,
};

/* ================================================================== */
/* AVX-512 (F, BW, VL, DQ); tails use masked loads/stores              */
/* ================================================================== */
#define TL_TAIL16(n, i) ((__mmask16)((n) - (i) >= 16 ? 0xFFFFu : ((1u << ((n) - (i))) - 1u)))

/* Ops whose result keeps a float16 signalling NaN operand's bits (maximum/minimum/fmax/fmin of
 * float16, NumPy's bit-level loops): vectors holding one go element by element, as vcvtph2ps
 * would quiet it. Arithmetic needs no check: NumPy's exact conversion then the float32 op quiet
 * the NaN and raise invalid, as vcvtph2ps does; comparisons raise invalid either way. */
#define TL_HOP_KEEPS_SNAN(op) ((op) > TL_HOP_DIVIDE && !TL_HOP_IS_CMP(op))

/* 16 float32 -> 16 float16 (round to nearest even) kept in a register: the compiler folds a
 * following store into vcvtps2ph's memory form, which ran at half the speed of the register form
 * and a store on this AMD Zen 4 (0.068 against 0.035 ns an element; the AVX2 ymm form ran
 * alike in both forms) */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_cvtps_ph(__m512 f)
{
    __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    __asm__("" : "+v"(h));
    return h;
}

/* Lanes of 16 float16 that are signalling NaNs (vcvtph2ps would quiet them). */
TL_TARGET_AVX512 TL_VINLINE __mmask16 avx512_f16_snan(__m256i h)
{
    __m256i a = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    return _mm256_cmpgt_epu16_mask(a, _mm256_set1_epi16(0x7c00))
         & _mm256_cmplt_epu16_mask(a, _mm256_set1_epi16(0x7e00));
}

/* 16 bfloat16 -> 16 float32 bit patterns (exact) */
TL_TARGET_AVX512 TL_VINLINE __m512i avx512_bf16_widen(__m256i h)
{
    return _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
}

TL_TARGET_AVX512 static inline __m256i avx512_sn_zero16(__m256i h, __mmask16 *snm)
{
    __mmask16 sn = avx512_f16_snan(h);
    *snm = sn;
    return sn ? _mm256_maskz_mov_epi16((__mmask16)~sn, h) : h;
}

TL_TARGET_AVX512 static void avx512_f16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i), sn;
        __m256i h = avx512_sn_zero16(_mm256_maskz_loadu_epi16(tm, s + i), &sn);
        _mm512_mask_storeu_ps(d + i, tm, _mm512_cvtph_ps(h));
        while (TL_UNLIKELY(sn)) {
            int k = __builtin_ctz(sn);
            uint32_t b = tl_f16bits_to_f32bits(s[i + k]);
            memcpy(d + i + k, &b, 4);
            sn &= (__mmask16)(sn - 1);
        }
    }
}

TL_TARGET_AVX512 static void avx512_f16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i), sn;
        __m256i h = avx512_sn_zero16(_mm256_maskz_loadu_epi16(tm, s + i), &sn);
        __m512 f = _mm512_cvtph_ps(h);
        _mm512_mask_storeu_pd(d + i, (__mmask8)tm, _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
        _mm512_mask_storeu_pd(d + i + 8, (__mmask8)(tm >> 8),
                              _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
        while (TL_UNLIKELY(sn)) {
            int k = __builtin_ctz(sn);
            uint64_t b = tl_f16bits_to_f64bits(s[i + k]);
            memcpy(d + i + k, &b, 8);
            sn &= (__mmask16)(sn - 1);
        }
    }
}

/* 16 float32 bit patterns -> 16 float16 as NumPy; as avx2_f16_round.  NumPy
 * underflows where x86 may not: the after-rounding tininess gap below 2^-14,
 * and float32 subnormals (read as 0 under DAZ). */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_f16_round(__m512i v, __mmask16 *bnd, unsigned *fl)
{
    const __m512i absm = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    const __m512i blo = _mm512_set1_epi32(0x387FE000), bw = _mm512_set1_epi32(0x2000);
    const __m512i one = _mm512_set1_epi32(1), tinyw = _mm512_set1_epi32(0x007fffff);
    __m512i a = _mm512_and_si512(v, absm);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(a, inf);
    /* both ranges are inside 0 < |f| < 2^-14, rare in most data: test that first */
    if (TL_UNLIKELY(_mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), _mm512_set1_epi32(0x387fffff))))
        *bnd |= _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, blo), bw)
              | _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), tinyw);
    uint32_t vb[16];
    uint16_t hb[16];
    __m256i h;
    if (TL_UNLIKELY(nan)) {
        _mm512_storeu_si512(vb, v);
        v = _mm512_maskz_mov_epi32((__mmask16)~nan, v);
    }
    h = avx512_cvtps_ph(_mm512_castsi512_ps(v));
    if (TL_UNLIKELY(nan)) {
        _mm256_storeu_si256((__m256i *)hb, h);
        while (nan) {
            int k = __builtin_ctz(nan);
            hb[k] = tl_f32bits_to_f16bits(vb[k], fl);
            nan &= (__mmask16)(nan - 1);
        }
        h = _mm256_loadu_si256((const __m256i *)hb);
    }
    return h;
}

TL_TARGET_AVX512 static void avx512_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n)
{
    __mmask16 bnd = 0;
    unsigned fl = 0;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        _mm256_mask_storeu_epi16(d + i, tm,
            avx512_f16_round(_mm512_maskz_loadu_epi32(tm, s + i), &bnd, &fl));
    }
    if (bnd)
        fl |= TL_FLAG_UNDERFLOW;
    tl_raise(fl);
}

/* 8 doubles -> 8 floats rounded to odd (no NaN lanes); sticky bit as in
 * avx2_pd_to_ps_odd. */
TL_TARGET_AVX512 static inline __m256i avx512_pd_to_ps_odd(__m512i v)
{
    __m256i r = _mm256_castps_si256(
        _mm512_cvt_roundpd_ps(_mm512_castsi512_pd(v), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
    __mmask8 ne = _mm512_test_epi64_mask(v, _mm512_set1_epi64(0x1fffffff));
    return _mm256_mask_or_epi32(r, ne, r, _mm256_set1_epi32(1));
}

TL_TARGET_AVX512 static void avx512_f64_to_f16(const double *s, uint16_t *d, ptrdiff_t n)
{
    const __m512i absm = _mm512_set1_epi64(0x7fffffffffffffffLL);
    const __m512i inf = _mm512_set1_epi64(0x7ff0000000000000LL);
    const __m512i absm32 = _mm512_set1_epi32(0x7fffffff);
    const __m512i blo = _mm512_set1_epi32(0x387FE000), bw = _mm512_set1_epi32(0x2000);
    const __m512i one64 = _mm512_set1_epi64(1), tinyw64 = _mm512_set1_epi64(0x380fffffffffffffLL);
    __mmask16 bnd = 0;
    __mmask8 tiny = 0;
    unsigned fl = 0;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m512i v0 = _mm512_maskz_loadu_epi64((__mmask8)tm, s + i);
        __m512i v1 = _mm512_maskz_loadu_epi64((__mmask8)(tm >> 8), s + i + 8);
        __m512i a0 = _mm512_and_si512(v0, absm), a1 = _mm512_and_si512(v1, absm);
        __mmask8 n0 = _mm512_cmpgt_epu64_mask(a0, inf);
        __mmask8 n1 = _mm512_cmpgt_epu64_mask(a1, inf);
        unsigned nm = (unsigned)n0 | ((unsigned)n1 << 8);
        /* 0 < |d| < 2^-126: NumPy underflows; the CPU may not under DAZ */
        tiny |= _mm512_cmplt_epu64_mask(_mm512_sub_epi64(a0, one64), tinyw64)
              | _mm512_cmplt_epu64_mask(_mm512_sub_epi64(a1, one64), tinyw64);
        if (TL_UNLIKELY(nm)) {
            v0 = _mm512_maskz_mov_epi64((__mmask8)~n0, v0);
            v1 = _mm512_maskz_mov_epi64((__mmask8)~n1, v1);
        }
        __m256i f0 = avx512_pd_to_ps_odd(v0);
        __m256i f1 = avx512_pd_to_ps_odd(v1);
        __m512i f = _mm512_inserti64x4(_mm512_castsi256_si512(f0), f1, 1);
        bnd |= _mm512_cmplt_epu32_mask(_mm512_sub_epi32(_mm512_and_si512(f, absm32), blo), bw);
        _mm256_mask_storeu_epi16(d + i, tm, avx512_cvtps_ph(_mm512_castsi512_ps(f)));
        while (TL_UNLIKELY(nm)) {
            int k = __builtin_ctz(nm);
            d[i + k] = tl_f64bits_to_f16bits(tl_f64_to_bits(s[i + k]), &fl);
            nm &= nm - 1;
        }
    }
    if (bnd | tiny)
        fl |= TL_FLAG_UNDERFLOW;
    tl_raise(fl);
}

TL_TARGET_AVX512 static void avx512_bf16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m256i h = _mm256_maskz_loadu_epi16(tm, s + i);
        _mm512_mask_storeu_epi32(d + i, tm, avx512_bf16_widen(h));
    }
}

TL_TARGET_AVX512 static void avx512_bf16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m256i h = _mm256_maskz_loadu_epi16(tm, s + i);
        __m512i f = avx512_bf16_widen(h);
        /* same conversion as ml_dtypes' float -> double (quiets sNaN) */
        _mm512_mask_storeu_pd(d + i, (__mmask8)tm, _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_castsi512_si256(f))));
        _mm512_mask_storeu_pd(d + i + 8, (__mmask8)(tm >> 8),
                              _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_extracti64x4_epi64(f, 1))));
    }
}

/* set with the kernel set in use: K_avx512bf16 (the CPU has AVX512_BF16) */
static int tl_bf16_insn;

/* 16 float bit patterns -> 16 bfloat16; signalling NaN lanes OR-ed to *sn. vcvtneps2bf16 rounds
 * to nearest even as below but reads subnormals as 0 and keeps NaN payloads: vectors with a NaN
 * or a subnormal take the integer rounding (a normal float32 never rounds to a subnormal
 * bfloat16: same exponent range). In the fused bfloat16 add (10^5 elements in cache) the
 * rounding was about half of the loop's instructions. */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_bf16_round(__m512i v, __mmask16 *sn)
{
#if TL_HAVE_BF16_INSN
    if (tl_bf16_insn && !_mm512_fpclass_ps_mask(_mm512_castsi512_ps(v), 0xa1))
        return (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(v));
#endif
    __m512i a = _mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff));
    __mmask16 nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7f800000));
    __m512i hi = _mm512_srli_epi32(v, 16);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(v, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                                  _mm512_and_si512(hi, _mm512_set1_epi32(1)))), 16);
    __m512i qn = _mm512_or_si512(_mm512_and_si512(hi, _mm512_set1_epi32(0x8000)), _mm512_set1_epi32(0x7fc0));
    *sn |= _mm512_mask_cmplt_epu32_mask(nan, a, _mm512_set1_epi32(0x7fc00000));
    return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(r, nan, qn));
}

TL_TARGET_AVX512 static void avx512_f32_to_bf16(const float *s, uint16_t *d, ptrdiff_t n)
{
    __mmask16 sn = 0;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m512i v = _mm512_maskz_loadu_epi32(tm, s + i);
        _mm256_mask_storeu_epi16(d + i, tm, avx512_bf16_round(v, &sn));
    }
    tl_raise(sn ? TL_FLAG_INVALID : 0u);
}

TL_TARGET_AVX512 static void avx512_f64_to_bf16(const double *s, uint16_t *d, ptrdiff_t n)
{
    __mmask16 sn = 0;   /* stays 0: cvtpd2ps quiets (and raises FE_INVALID itself) */
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m512d v0 = _mm512_maskz_loadu_pd((__mmask8)tm, s + i);
        __m512d v1 = _mm512_maskz_loadu_pd((__mmask8)(tm >> 8), s + i + 8);
        __m512i f = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_castps_si256(_mm512_cvtpd_ps(v0))),
                                       _mm256_castps_si256(_mm512_cvtpd_ps(v1)), 1);
        _mm256_mask_storeu_epi16(d + i, tm, avx512_bf16_round(f, &sn));
    }
    tl_raise(sn ? TL_FLAG_INVALID : 0u);
}

#define TL_AVX512_KERNELS avx512_f16_to_f32, avx512_f16_to_f64, avx512_f32_to_f16,              \
    avx512_f64_to_f16, avx512_bf16_to_f32, avx512_bf16_to_f64, avx512_f32_to_bf16, avx512_f64_to_bf16
static const tl_kernels K_avx512 = {"avx512", TL_AVX512_KERNELS};
/* the same kernels, rounding to bfloat16 with vcvtneps2bf16 (tl_bf16_insn) */
static const tl_kernels K_avx512bf16 = {"avx512+bf16", TL_AVX512_KERNELS};

/* F16C via CPUID (not every compiler's __builtin_cpu_supports knows it); the host loops'
 * tl_host_avx2 requires it too. */
int tl_cpu_f16c(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return (c >> 29) & 1u;
}

static int tl_cpu_avx2(void)
{
    __builtin_cpu_init();
    /* "avx2" is only reported when the OS saves the YMM state */
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && tl_cpu_f16c();
}

static int tl_cpu_avx512(void)
{
    return tl_cpu_avx2() && __builtin_cpu_supports("avx512f")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512dq");
}

static int tl_cpu_avx512bf16(void)
{
#if TL_HAVE_BF16_INSN
    return tl_cpu_avx512() && __builtin_cpu_supports("avx512bf16");
#else
    return 0;
#endif
}
#endif /* TL_X86 */

/* ================================================================== */
/* Fused float16/bfloat16 binary kernels (tl_half_binary)              */
/* ================================================================== */
typedef struct {
    tl_half_elem_fn fn;
    const void *a, *b;
    void *o;
    ptrdiff_t n;
    int op, ka, kb, ko, ca, cb;
} tl_hbin_args;

/* elements [i, i + m) one by one */
static void tl_hbin_elems(const tl_hbin_args *x, ptrdiff_t i, ptrdiff_t m, unsigned *fl)
{
    ptrdiff_t sa = x->ca ? tl_hk_size(x->ka) : 0, sb = x->cb ? tl_hk_size(x->kb) : 0;
    ptrdiff_t so = TL_HOP_IS_CMP(x->op) ? 1 : tl_hk_size(x->ko);
    tl_hbin_strided(x->op, x->fn, x->ko, x->ka, (const char *)x->a + i * sa, sa, x->kb,
                    (const char *)x->b + i * sb, sb, (char *)x->o + i * so, so, m, fl);
}

#if TL_X86
/* Each vector */
/* of operands is loaded and widened to float32 in registers, the op   */
/* runs in float32, the result is rounded back in registers (the same  */
/* rounding helpers as the block conversions) and stored: one pass.    */
/* A vector with a float16 signalling NaN (vcvtph2ps would quiet it)   */
/* goes element by element through the caller's element function.      */
/* Tails: AVX-512 loads masked lanes as 1 and masks them out of the   */
/* op; AVX2 runs the last vector on copies padded with 1 (1 op 1       */
/* raises no flag), or element by element with a broadcast operand.   */
/* ================================================================== */
/* a scalar operand, widened once per call (one copy: its kind is a run-time value in the
 * kernels with a scalar operand) */
__attribute__((noinline)) static float tl_hld_scalar(int kind, int ko, const void *p, unsigned *fl)
{
    return tl_hld(kind, ko, p, fl);
}

/* raw bits of the value 1 in each operand kind of at most 16 bits */
static const uint16_t tl_hk_one[7] = {0x3c00u, 0x3f80u, 1u, 1u, 1u, 1u, 1u};

/* float32 lanes of integers (more than 8 bits) rounded to the result kind ko, as tl_hround
 * (vcvtps2ph raises overflow as NumPy's cast; bfloat16: tl_cvt_rbf's bit rounding) */
TL_TARGET_AVX512 TL_VINLINE __m512 avx512_hround(int ko, __m512 f)
{
    __m512i u = _mm512_castps_si512(f);
    if (ko == TL_HK_F16)
        return _mm512_cvtph_ps(_mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
    u = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                         _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1))));
    return _mm512_castsi512_ps(_mm512_and_si512(u, _mm512_set1_epi32((int)0xffff0000u)));
}

/* 16 integers of a kind of more than 8 bits (lanes tm, others 1) as float32 (the C casts'
 * rounding; 64-bit ones with the AVX-512DQ conversions) */
TL_TARGET_AVX512 TL_VINLINE __m512 avx512_hint_f32(int kind, const void *p, ptrdiff_t i, __mmask16 tm)
{
    const __m512i one32 = _mm512_set1_epi32(1), one64 = _mm512_set1_epi64(1);
    const int64_t *q = (const int64_t *)p + i;
    __m512 f;
    switch (kind) {
    case TL_HK_I16: case TL_HK_U16: {
        __m256i r = _mm256_mask_loadu_epi16(_mm256_set1_epi16(1), tm, (const int16_t *)p + i);
        f = _mm512_cvtepi32_ps(kind == TL_HK_I16 ? _mm512_cvtepi16_epi32(r) : _mm512_cvtepu16_epi32(r));
        break;
    }
    case TL_HK_I32:
        f = _mm512_cvtepi32_ps(_mm512_mask_loadu_epi32(one32, tm, (const int32_t *)p + i));
        break;
    case TL_HK_U32:
        f = _mm512_cvtepu32_ps(_mm512_mask_loadu_epi32(one32, tm, (const int32_t *)p + i));
        break;
    case TL_HK_I64:
        f = _mm512_insertf32x8(_mm512_castps256_ps512(
                _mm512_cvtepi64_ps(_mm512_mask_loadu_epi64(one64, (__mmask8)tm, q))),
                _mm512_cvtepi64_ps(_mm512_mask_loadu_epi64(one64, (__mmask8)(tm >> 8), q + 8)), 1);
        break;
    default:
        f = _mm512_insertf32x8(_mm512_castps256_ps512(
                _mm512_cvtepu64_ps(_mm512_mask_loadu_epi64(one64, (__mmask8)tm, q))),
                _mm512_cvtepu64_ps(_mm512_mask_loadu_epi64(one64, (__mmask8)(tm >> 8), q + 8)), 1);
        break;
    }
    return f;
}

/* ... rounded to ko */
TL_TARGET_AVX512 TL_VINLINE __m512 avx512_hint(int kind, int ko, const void *p, ptrdiff_t i, __mmask16 tm)
{
    return avx512_hround(ko, avx512_hint_f32(kind, p, i, tm));
}

TL_TARGET_AVX512 TL_VINLINE __m256i avx512_hraw(int kind, const void *p, ptrdiff_t i, __mmask16 tm)
{
    if (kind == TL_HK_F16 || kind == TL_HK_BF16)
        return _mm256_mask_loadu_epi16(_mm256_set1_epi16((short)tl_hk_one[kind]), tm, (const uint16_t *)p + i);
    return _mm256_castsi128_si256(_mm_mask_loadu_epi8(_mm_set1_epi8(1), tm, (const uint8_t *)p + i));
}

TL_TARGET_AVX512 TL_VINLINE __m512 avx512_hwiden(int kind, __m256i r)
{
    __m128i x = _mm256_castsi256_si128(r);
    switch (kind) {
    case TL_HK_F16: return _mm512_cvtph_ps(r);
    case TL_HK_BF16: return _mm512_castsi512_ps(avx512_bf16_widen(r));
    case TL_HK_I8: return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(x));
    case TL_HK_U8: return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(x));
    default: return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_min_epu8(x, _mm_set1_epi8(1))));
    }
}

/* 16 integers or bools (lanes tm) to ko's bits: 8-bit kinds exact, wider ones rounded as
 * avx512_hint (NumPy's / ml_dtypes' casts, vcvtps2ph's overflow flag included) */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_int_half16(int kind, int ko, const void *src, ptrdiff_t i,
                                                    __mmask16 tm)
{
    __m512 f = kind <= TL_HK_B
        ? avx512_hwiden(kind, _mm256_castsi128_si256(_mm_maskz_loadu_epi8(tm, (const uint8_t *)src + i)))
        : avx512_hint_f32(kind, src, i, tm);
    return ko == TL_HK_F16 ? avx512_cvtps_ph(f)
        : _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(avx512_hround(ko, f)), 16));
}
/* (kind and ko constants in each copy; plain stores but for the tail: masked ones took half the
 * time here) */
TL_TARGET_AVX512 TL_VINLINE void avx512_int_to_half_k(int kind, int ko, const void *src,
                                                    uint16_t *dst, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            avx512_int_half16(kind, ko, src, i, (__mmask16)0xFFFFu));
    if (i < n)
        _mm256_mask_storeu_epi16(dst + i, TL_TAIL16(n, i),
                                 avx512_int_half16(kind, ko, src, i, TL_TAIL16(n, i)));
}
#define TL_INT_KINDS(X, KO) X(I8, KO) X(U8, KO) X(B, KO) X(I16, KO) X(U16, KO) X(I32, KO)      \
    X(U32, KO) X(I64, KO) X(U64, KO)
#define TL_INT_HALF_CASE(K, KO)                                                                 \
    case TL_HK_##K: avx512_int_to_half_k(TL_HK_##K, TL_HK_##KO, src, dst, n); break;
TL_TARGET_AVX512 static void avx512_int_to_half(int kind, int ko, const void *src, uint16_t *dst,
                                                ptrdiff_t n)
{
    if (ko == TL_HK_F16)
        switch (kind) { TL_INT_KINDS(TL_INT_HALF_CASE, F16) }
    else
        switch (kind) { TL_INT_KINDS(TL_INT_HALF_CASE, BF16) }
}

/* float32 values that ko (float16/bfloat16) holds exactly as ko's bits */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_hbits_exact(int ko, __m512 f)
{
    if (ko == TL_HK_F16)
        return avx512_cvtps_ph(f);
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(f), 16));
}

/* integer-valued float32 lanes f rounded to ko's bits in one instruction (bfloat16: where
 * tl_bf16_insn says the CPU has vcvtneps2bf16) */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_hbits_round(int ko, __m512 f)
{
#if TL_HAVE_BF16_INSN
    if (ko == TL_HK_BF16)
        return (__m256i)_mm512_cvtneps_pbh(f);
#endif
    return avx512_cvtps_ph(f);
}

/* the lanes where maximum/minimum/fmax/fmin (op) choose the first operand; an/bn: that operand
 * is never NaN (an integer or bool): the NaN test of one operand goes, and where the other is
 * the one never NaN, the compare's unordered result is that NaN (a > b or isnan(a) is
 * !(a <= b) when b is a number): one compare instead of three (TL_HFIRST_ORD) */
#define TL_HFIRST_ORD(CMP, GT, NLE, OR)                                                         \
    (nn ? CMP(a, b, GT) : other ? CMP(a, b, NLE)                                                \
        : OR(CMP(a, b, GT), CMP(first_nan ? a : b, first_nan ? a : b, _CMP_UNORD_Q)))
#define TL_HFIRST_SWITCH(CMP, OR)                                                               \
    const int first_nan = op == TL_HOP_MAXIMUM || op == TL_HOP_MINIMUM                          \
                          || op == TL_HOP_MAXIMUM_H || op == TL_HOP_MINIMUM_H;                  \
    const int nn = first_nan ? an : bn, other = first_nan ? bn : an;                            \
    switch (op) {                                                                               \
    case TL_HOP_MAXIMUM: case TL_HOP_FMAX: return TL_HFIRST_ORD(CMP, _CMP_GT_OQ, _CMP_NLE_UQ, OR); \
    case TL_HOP_MINIMUM: case TL_HOP_FMIN: return TL_HFIRST_ORD(CMP, _CMP_LT_OQ, _CMP_NGE_UQ, OR); \
    case TL_HOP_MAXIMUM_H: case TL_HOP_FMAX_H:                                                  \
        return TL_HFIRST_ORD(CMP, _CMP_GE_OQ, _CMP_NLT_UQ, OR);                                  \
    default: return TL_HFIRST_ORD(CMP, _CMP_LE_OQ, _CMP_NGT_UQ, OR);                             \
    }
#define TL_OR_MASK16(x, y) ((__mmask16)((x) | (y)))
TL_TARGET_AVX512 TL_VINLINE __mmask16 avx512_hfirst(int op, __m512 a, __m512 b, int an, int bn)
{
    TL_HFIRST_SWITCH(_mm512_cmp_ps_mask, TL_OR_MASK16)
}

/* the element functions of tl_elem.h in float32 lanes (quiet compares, as tl_q*_f32); lanes
 * outside tm give 0 and no flag (the padding 1 of a tail with a broadcast operand could:
 * 1 / tiny overflows) */
TL_TARGET_AVX512 TL_VINLINE __m512 avx512_hop(int op, __m512 a, __m512 b, __mmask16 tm)
{
    switch (op) {
    case TL_HOP_ADD: return _mm512_maskz_add_ps(tm, a, b);
    case TL_HOP_SUBTRACT: return _mm512_maskz_sub_ps(tm, a, b);
    case TL_HOP_MULTIPLY: return _mm512_maskz_mul_ps(tm, a, b);
    case TL_HOP_DIVIDE: return _mm512_maskz_div_ps(tm, a, b);
    case TL_HOP_COPYSIGN: {
        const __m512 s = _mm512_set1_ps(-0.0f);
        return _mm512_maskz_mov_ps(tm, _mm512_or_ps(_mm512_andnot_ps(s, a), _mm512_and_ps(s, b)));
    }
    case TL_HOP_HEAVISIDE: {    /* tl_heaviside: a NaN x itself, h0 where x is 0, else 0 or 1 */
        const __m512 z = _mm512_setzero_ps();
        __m512 r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, z, _CMP_LT_OQ), _mm512_set1_ps(1.0f), z);
        r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, z, _CMP_EQ_OQ), r, b);
        return _mm512_maskz_mov_ps(tm, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), r, a));
    }
    default: return _mm512_mask_blend_ps(avx512_hfirst(op, a, b, 0, 0), b, a);
    }
}

/* the comparisons in lanes tm (quiet predicates: a signalling NaN raises invalid) */
TL_TARGET_AVX512 TL_VINLINE __mmask16 avx512_hcmp(int op, __m512 a, __m512 b, __mmask16 tm)
{
    switch (op) {
    case TL_HOP_LESS: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_LT_OQ);
    case TL_HOP_LESS_EQUAL: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_LE_OQ);
    case TL_HOP_GREATER: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_GT_OQ);
    case TL_HOP_GREATER_EQUAL: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_GE_OQ);
    case TL_HOP_EQUAL: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_EQ_OQ);
    default: return _mm512_mask_cmp_ps_mask(tm, a, b, _CMP_NEQ_UQ);
    }
}

/* copysign and heaviside on 16 half-type bit patterns, as the same-dtype bit loops'
 * tl_b16_copysign / tl_b16_heaviside (a NaN x: float16's 0x7e00, bfloat16's x itself) */
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_hcopysign(__m256i x, __m256i y)
{
    const __m256i s = _mm256_set1_epi16((short)0x8000);
    return _mm256_or_si256(_mm256_andnot_si256(s, x), _mm256_and_si256(s, y));
}
TL_TARGET_AVX512 TL_VINLINE __m256i avx512_hheaviside(int ko, __m256i x, __m256i h)
{
    const int f16 = ko == TL_HK_F16;
    const __m256i ax = _mm256_and_si256(x, _mm256_set1_epi16(0x7fff));
    const __mmask16 nan = _mm256_cmpgt_epu16_mask(ax, _mm256_set1_epi16(f16 ? 0x7c00 : 0x7f80));
    __m256i r = _mm256_mask_blend_epi16(_mm256_movepi16_mask(x),
                                        _mm256_set1_epi16(f16 ? 0x3c00 : 0x3f80),
                                        _mm256_setzero_si256());
    r = _mm256_mask_blend_epi16(_mm256_cmpeq_epi16_mask(ax, _mm256_setzero_si256()), r, h);
    return _mm256_mask_blend_epi16(nan, r, f16 ? _mm256_set1_epi16(0x7e00) : x);
}

/* 16 half bit patterns to po[i..], m of them (lanes tm) */
TL_TARGET_AVX512 TL_VINLINE void avx512_hstore16(void *po, ptrdiff_t i, ptrdiff_t m, __mmask16 tm,
                                               __m256i h)
{
    if (m == 16)
        _mm256_storeu_si256((__m256i *)((uint16_t *)po + i), h);
    else
        _mm256_mask_storeu_epi16((uint16_t *)po + i, tm, h);
}

#define TL_HK_INT(k) ((k) >= TL_HK_I8 && (k) <= TL_HK_U64)
/* the lanes (tm; others read 0) of 16 integers/bools of a kind that are negative, zero, and
 * (wide: kinds of 16 bits or more) at least 65520 in magnitude, float16's overflow */
TL_TARGET_AVX512 TL_VINLINE void avx512_int_sign_zero(int kind, const void *p, ptrdiff_t i,
                                                      __mmask16 tm, __mmask16 *neg, __mmask16 *zero,
                                                      __mmask16 *big)
{
    *big = 0;
    switch (kind) {
    case TL_HK_I8: case TL_HK_U8: case TL_HK_B: {
        const __m128i v = _mm_maskz_loadu_epi8(tm, (const int8_t *)p + i);
        *neg = kind == TL_HK_I8 ? _mm_movepi8_mask(v) : 0;
        *zero = _mm_cmpeq_epi8_mask(v, _mm_setzero_si128());
        break;
    }
    case TL_HK_I16: case TL_HK_U16: {
        const __m256i v = _mm256_maskz_loadu_epi16(tm, (const int16_t *)p + i);
        *neg = kind == TL_HK_I16 ? _mm256_movepi16_mask(v) : 0;
        *zero = _mm256_cmpeq_epi16_mask(v, _mm256_setzero_si256());
        if (kind == TL_HK_U16) *big = _mm256_cmpge_epu16_mask(v, _mm256_set1_epi16((short)65520));
        break;
    }
    case TL_HK_I32: case TL_HK_U32: {
        const __m512i v = _mm512_maskz_loadu_epi32(tm, (const int32_t *)p + i);
        *neg = kind == TL_HK_I32 ? _mm512_movepi32_mask(v) : 0;
        *zero = _mm512_cmpeq_epi32_mask(v, _mm512_setzero_si512());
        *big = _mm512_cmpge_epu32_mask(kind == TL_HK_I32 ? _mm512_abs_epi32(v) : v,
                                       _mm512_set1_epi32(65520));
        break;
    }
    default: {
        const __m512i lo = _mm512_maskz_loadu_epi64((__mmask8)tm, (const int64_t *)p + i);
        const __m512i hi = _mm512_maskz_loadu_epi64((__mmask8)(tm >> 8), (const int64_t *)p + i + 8);
        *neg = kind == TL_HK_I64
            ? (__mmask16)(_mm512_movepi64_mask(lo) | (unsigned)_mm512_movepi64_mask(hi) << 8) : 0;
        *zero = (__mmask16)(_mm512_cmpeq_epi64_mask(lo, _mm512_setzero_si512())
                            | (unsigned)_mm512_cmpeq_epi64_mask(hi, _mm512_setzero_si512()) << 8);
        *big = (__mmask16)(_mm512_cmpge_epu64_mask(kind == TL_HK_I64 ? _mm512_abs_epi64(lo) : lo,
                                                   _mm512_set1_epi64(65520))
                           | (unsigned)_mm512_cmpge_epu64_mask(
                                 kind == TL_HK_I64 ? _mm512_abs_epi64(hi) : hi,
                                 _mm512_set1_epi64(65520)) << 8);
        break;
    }
    }
}

/* elements [i, i + m) (m <= 16, tm: their lanes); ca/cb: contiguous operand or scalar va/vb */
TL_TARGET_AVX512 TL_VINLINE void
avx512_hbin16(int op, int ko, int ka, int kb, int ca, int cb, const tl_hbin_args *x,
              const void *pa, const void *pb, void *po,
              ptrdiff_t i, ptrdiff_t m, __mmask16 tm, __m512 va, __m512 vb,
              __mmask16 *bnd, __mmask16 *snr, unsigned *fl)
{
    const int cmp = TL_HOP_IS_CMP(op);
    /* max/min of a half type with itself or an integer/bool: the chosen operand's bits (the
     * integer's as the cast gives them), a signalling or quiet NaN's as they are (no element
     * path; the half kinds of these kernels are ko's) */
    const int pick = ko <= TL_HK_BF16 && TL_HOP_KEEPS_SNAN(op) && ka != TL_HK_F32
                     && kb != TL_HK_F32;
    /* a wider integer's bits in one conversion (vcvtps2ph; AVX512_BF16's vcvtneps2bf16, exact
     * for integers, which are normal floats), its unrounded value in the compare: picking x
     * (a half value) against v and against round(v) differ only where x == round(v), the same
     * bits (no half value lies strictly between v and round(v); v == 0 is exact), so the
     * rounded value is never widened back (bfloat16 max with int16 at 10^5: 1.75x -> 1.1x the
     * bfloat16 call) */
    const int hbits = ko == TL_HK_F16 || (TL_HAVE_BF16_INSN && tl_bf16_insn);
    /* comparisons with a wider integer array likewise: the compare of the unrounded v differs
     * from round(v)'s only where x == round(v), which the bits tell (the strict ones and
     * not_equal false there, the others true); no widening back (16-bit ints at 10^5:
     * 1.65-1.8x -> 1.4-1.5x the half call) */
    const int cmpbits = cmp && hbits && ko <= TL_HK_BF16
                        && ((ca && TL_HK_WIDE(ka) && kb == ko) || (cb && TL_HK_WIDE(kb) && ka == ko));
    __mmask16 sn = 0;
    /* heaviside(integer array, half array) and copysign(half array, integer array): the
     * integer's rounding to the half type keeps its sign and its zeros, so the integer's own
     * lanes choose 0, h or 1, or the sign, unconverted (float16: the cast's overflow flag from
     * the integers' magnitudes) */
    if (ca && cb && ((op == TL_HOP_HEAVISIDE && TL_HK_INT(ka) && kb == ko)
                     || (op == TL_HOP_COPYSIGN && ka == ko && TL_HK_INT(kb)))) {
        const int hv = op == TL_HOP_HEAVISIDE;
        __mmask16 neg, zero, big;
        __m256i h = avx512_hraw(ko, hv ? pb : pa, i, tm);
        avx512_int_sign_zero(hv ? ka : kb, hv ? pa : pb, i, tm, &neg, &zero, &big);
        if (ko == TL_HK_F16 && TL_UNLIKELY(big)) *fl |= TL_FLAG_OVERFLOW;
        h = hv ? _mm256_maskz_mov_epi16((__mmask16)~neg, _mm256_mask_blend_epi16(
                     zero, _mm256_set1_epi16(ko == TL_HK_F16 ? 0x3c00 : 0x3f80), h))
               : _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)),
                                 _mm256_maskz_mov_epi16(neg, _mm256_set1_epi16((short)0x8000)));
        avx512_hstore16(po, i, m, tm, h);
        return;
    }
    /* heaviside(half array, integer array): the integer is read only where x is ±0, so its
     * conversion runs only for vectors with such a lane; where the cast raises nothing (float16
     * with bool, 8-bit kinds and int16; bfloat16 with every kind: float16's overflow of the
     * wider ones needs all of them) */
    if (ca && cb && op == TL_HOP_HEAVISIDE && ka == ko && TL_HK_INT(kb)
            && (ko == TL_HK_BF16 || !TL_HK_WIDE(kb) || kb == TL_HK_I16)) {
        const __m256i h = avx512_hraw(ko, pa, i, tm);
        if (_mm256_mask_testn_epi16_mask(tm, h, _mm256_set1_epi16(0x7fff)))
            avx512_hstore16(po, i, m, tm, avx512_hheaviside(ko, h, avx512_int_half16(kb, ko, pb, i, tm)));
        else    /* (no zero: the sign and the NaNs choose) */
            avx512_hstore16(po, i, m, tm, avx512_hheaviside(ko, h, _mm256_setzero_si256()));
        return;
    }
    __m256i ra = _mm256_setzero_si256(), rb = _mm256_setzero_si256();
    __m512 a = va, b = vb, r;
    if (ca && ka == TL_HK_F32) {
        a = _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), tm, (const float *)pa + i);
    } else if (ca && TL_HK_WIDE(ka) && ((pick && hbits) || cmpbits)) {
        a = avx512_hint_f32(ka, pa, i, tm);
        ra = avx512_hbits_round(ko, a);
    } else if (ca && TL_HK_WIDE(ka)) {
        a = avx512_hint(ka, ko, pa, i, tm);
    } else if (ca) {
        ra = avx512_hraw(ka, pa, i, tm);
        if (ka == TL_HK_F16 && TL_HOP_KEEPS_SNAN(op) && !pick) sn |= avx512_f16_snan(ra);
    }
    if (cb && kb == TL_HK_F32) {
        b = _mm512_mask_loadu_ps(_mm512_set1_ps(1.0f), tm, (const float *)pb + i);
    } else if (cb && TL_HK_WIDE(kb) && ((pick && hbits) || cmpbits)) {
        b = avx512_hint_f32(kb, pb, i, tm);
        rb = avx512_hbits_round(ko, b);
    } else if (cb && TL_HK_WIDE(kb)) {
        b = avx512_hint(kb, ko, pb, i, tm);
    } else if (cb) {
        rb = avx512_hraw(kb, pb, i, tm);
        if (kb == TL_HK_F16 && TL_HOP_KEEPS_SNAN(op) && !pick) sn |= avx512_f16_snan(rb);
    }
    if (TL_UNLIKELY(sn)) {
        tl_hbin_elems(x, i, m, fl);
        return;
    }
    /* (the compiler may hoist a conversion above the branch: convert only sNaN-free bits) */
    if (ca && ka <= TL_HK_B) a = avx512_hwiden(ka, ka == TL_HK_F16 ? _mm256_maskz_mov_epi16((__mmask16)~sn, ra) : ra);
    if (cb && kb <= TL_HK_B) b = avx512_hwiden(kb, kb == TL_HK_F16 ? _mm256_maskz_mov_epi16((__mmask16)~sn, rb) : rb);
    if (cmp) {
        __mmask16 c = avx512_hcmp(op, a, b, tm);
        if (cmpbits) {
            const __m256i ha = ca && (ka == ko || TL_HK_WIDE(ka)) ? ra : avx512_hbits_exact(ko, a);
            const __m256i hb = cb && (kb == ko || TL_HK_WIDE(kb)) ? rb : avx512_hbits_exact(ko, b);
            const __mmask16 eq = _mm256_mask_cmpeq_epi16_mask(tm, ha, hb);
            c = op == TL_HOP_LESS || op == TL_HOP_GREATER || op == TL_HOP_NOT_EQUAL
                ? (__mmask16)(c & ~eq) : (__mmask16)(c | eq);
        }
        _mm_mask_storeu_epi8((char *)po + i, tm, _mm_maskz_mov_epi8(c, _mm_set1_epi8(1)));
        return;
    }
    if (pick) {
        /* (a scalar's bits through float32: exact, tl_half_binary takes no float16 sNaN scalar) */
        __m256i ha = ca && (ka == ko || (TL_HK_WIDE(ka) && hbits)) ? ra
                     : avx512_hbits_exact(ko, a);
        __m256i hb = cb && (kb == ko || (TL_HK_WIDE(kb) && hbits)) ? rb
                     : avx512_hbits_exact(ko, b);
        __m256i h = op == TL_HOP_COPYSIGN ? avx512_hcopysign(ha, hb)
                    : op == TL_HOP_HEAVISIDE ? avx512_hheaviside(ko, ha, hb)
                    : _mm256_mask_blend_epi16(avx512_hfirst(op, a, b, TL_HK_INT(ka), TL_HK_INT(kb)), hb, ha);
        avx512_hstore16(po, i, m, tm, h);
        return;
    }
    r = avx512_hop(op, a, b, tm);
    if (ko == TL_HK_F32)
        _mm512_mask_storeu_ps((float *)po + i, tm, r);
    else
        _mm256_mask_storeu_epi16((uint16_t *)po + i, tm, ko == TL_HK_F16
            ? avx512_f16_round(_mm512_castps_si512(r), bnd, fl)
            : avx512_bf16_round(_mm512_castps_si512(r), snr));
}

TL_TARGET_AVX512 TL_VINLINE void
avx512_hbin(int op, int ko, int ka, int kb, int ca, int cb, const tl_hbin_args *x, unsigned *fl)
{
    const ptrdiff_t n = x->n;
    const void *pa = x->a, *pb = x->b;
    void *po = x->o;
    const __m512 va = _mm512_set1_ps(ca ? 0.0f : tl_hld_scalar(ka, ko, pa, fl));
    const __m512 vb = _mm512_set1_ps(cb ? 0.0f : tl_hld_scalar(kb, ko, pb, fl));
    __mmask16 bnd = 0, snr = 0;
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16)
        avx512_hbin16(op, ko, ka, kb, ca, cb, x, pa, pb, po, i, 16, (__mmask16)0xFFFFu, va, vb, &bnd, &snr, fl);
    if (i < n)
        avx512_hbin16(op, ko, ka, kb, ca, cb, x, pa, pb, po, i, n - i, TL_TAIL16(n, i), va, vb, &bnd, &snr, fl);
    if (bnd) *fl |= TL_FLAG_UNDERFLOW;
    if (snr) *fl |= TL_FLAG_INVALID;
}

TL_TARGET_AVX2 TL_VINLINE __m128i avx2_hraw(int kind, const void *p, ptrdiff_t i)
{
    if (kind == TL_HK_F16 || kind == TL_HK_BF16)
        return _mm_loadu_si128((const __m128i *)((const uint16_t *)p + i));
    return _mm_loadl_epi64((const __m128i *)((const uint8_t *)p + i));
}

/* 8 integers of a kind of 16 or 32 bits as float32 rounded to ko, as avx512_hint (uint32: two
 * exact halves summed, one rounding as the C cast; no AVX2 conversion for 64-bit integers) */
TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hint(int kind, int ko, const void *p, ptrdiff_t i)
{
    __m256 f;
    __m256i u;
    switch (kind) {
    case TL_HK_I16:
        f = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)((const int16_t *)p + i))));
        break;
    case TL_HK_U16:
        f = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)p + i))));
        break;
    case TL_HK_I32:
        f = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)((const int32_t *)p + i)));
        break;
    case TL_HK_I64:
        f = tl_ld8_f32_i64((const int64_t *)p + i);
        break;
    case TL_HK_U64:
        f = tl_ld8_f32_u64((const uint64_t *)p + i);
        break;
    default:
        u = _mm256_loadu_si256((const __m256i *)((const uint32_t *)p + i));
        f = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(u, 16)), _mm256_set1_ps(65536.0f)),
                          _mm256_cvtepi32_ps(_mm256_and_si256(u, _mm256_set1_epi32(0xffff))));
        break;
    }
    if (ko == TL_HK_F16)
        return _mm256_cvtph_ps(_mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
    u = _mm256_castps_si256(f);
    u = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                         _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1))));
    return _mm256_castsi256_ps(_mm256_and_si256(u, _mm256_set1_epi32((int)0xffff0000u)));
}

TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hwiden(int kind, __m128i r)
{
    switch (kind) {
    case TL_HK_F16: return _mm256_cvtph_ps(r);
    case TL_HK_BF16: return _mm256_castsi256_ps(avx2_bf16_widen(r));
    case TL_HK_I8: return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(r));
    case TL_HK_U8: return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(r));
    default: return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_min_epu8(r, _mm_set1_epi8(1))));
    }
}

/* the lanes (all ones) where maximum/minimum/fmax/fmin (op) choose the first operand (an/bn:
 * as avx512_hfirst) */
TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hfirst(int op, __m256 a, __m256 b, int an, int bn)
{
    TL_HFIRST_SWITCH(_mm256_cmp_ps, _mm256_or_ps)
}

TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hop(int op, __m256 a, __m256 b)
{
    switch (op) {
    case TL_HOP_ADD: return _mm256_add_ps(a, b);
    case TL_HOP_SUBTRACT: return _mm256_sub_ps(a, b);
    case TL_HOP_MULTIPLY: return _mm256_mul_ps(a, b);
    case TL_HOP_DIVIDE: return _mm256_div_ps(a, b);
    default: return _mm256_blendv_ps(b, a, avx2_hfirst(op, a, b, 0, 0));
    }
}

/* 8 float32 values that ko (float16/bfloat16) holds exactly as ko's bits */
TL_TARGET_AVX2 TL_VINLINE __m128i avx2_hbits_exact(int ko, __m256 f)
{
    __m256i w;
    if (ko == TL_HK_F16)
        return _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    w = _mm256_srli_epi32(_mm256_castps_si256(f), 16);
    return _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hcmp(int op, __m256 a, __m256 b)
{
    switch (op) {
    case TL_HOP_LESS: return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
    case TL_HOP_LESS_EQUAL: return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
    case TL_HOP_GREATER: return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
    case TL_HOP_GREATER_EQUAL: return _mm256_cmp_ps(a, b, _CMP_GE_OQ);
    case TL_HOP_EQUAL: return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
    default: return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
    }
}

/* 8 elements of a contiguous operand: float32 and the wide (integer) kinds as float32 in the
 * compute type ko; the bits of the narrow kinds (<= TL_HK_B) in *raw, for avx2_hwiden after a
 * check */
TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hload8(int kind, int ko, const void *p, ptrdiff_t i,
                                             __m128i *raw)
{
    if (kind == TL_HK_F32) return _mm256_loadu_ps((const float *)p + i);
    if (TL_HK_WIDE(kind)) return avx2_hint(kind, ko, p, i);
    *raw = avx2_hraw(kind, p, i);
    return _mm256_setzero_ps();
}

/* ... as float32, widened at once (no sNaN check: the comparisons, which do not keep a float16
 * sNaN) */
TL_TARGET_AVX2 TL_VINLINE __m256 avx2_hin8(int kind, int ko, const void *p, ptrdiff_t i)
{
    __m128i raw = _mm_setzero_si128();
    __m256 v = avx2_hload8(kind, ko, p, i, &raw);
    return kind <= TL_HK_B ? avx2_hwiden(kind, raw) : v;
}

/* comparisons, 32 elements per step: 4 masks expanded into one 32-byte store (packing each
 * group of 8 into an 8-byte store took twice the time in cache) */
TL_TARGET_AVX2 TL_VINLINE ptrdiff_t
avx2_hcmp32(int op, int ko, int ka, int kb, int ca, int cb, const void *pa, const void *pb,
            char *po, ptrdiff_t n, __m256 va, __m256 vb)
{
    ptrdiff_t i = 0;
    int k;
    for (; i + 32 <= n; i += 32) {
        uint32_t m = 0;
        for (k = 0; k < 4; k++) {
            __m256 a = ca ? avx2_hin8(ka, ko, pa, i + 8 * k) : va;
            __m256 b = cb ? avx2_hin8(kb, ko, pb, i + 8 * k) : vb;
            m |= (uint32_t)_mm256_movemask_ps(avx2_hcmp(op, a, b)) << (8 * k);
        }
        _mm256_storeu_si256((__m256i *)(void *)(po + i), tl_mask32_bytes_avx2(m));
    }
    return i;
}

/* 8 elements from pa/pb (contiguous operands) or va/vb (scalar) to po; 0 when an operand vector
 * holds a float16 signalling NaN (nothing computed: the caller goes element by element) */
TL_TARGET_AVX2 TL_VINLINE int
avx2_hbin8(int op, int ko, int ka, int kb, int ca, int cb, const void *pa, const void *pb,
           ptrdiff_t i, void *po, __m256 va, __m256 vb, __m256i *bnd, __m256i *snr, unsigned *fl)
{
    const int cmp = TL_HOP_IS_CMP(op);
    /* max/min of a half type and an integer/bool: the chosen operand's bits, as avx512_hbin16 */
    const int pick = ko <= TL_HK_BF16 && TL_HOP_KEEPS_SNAN(op) && ka != TL_HK_F32
                     && kb != TL_HK_F32;
    __m128i ra = _mm_setzero_si128(), rb = _mm_setzero_si128(), sn = _mm_setzero_si128();
    __m256 a = va, b = vb, r;
    if (ca) {
        a = avx2_hload8(ka, ko, pa, i, &ra);
        if (ka == TL_HK_F16 && TL_HOP_KEEPS_SNAN(op) && !pick) sn = avx2_f16_snan(ra);
    }
    if (cb) {
        b = avx2_hload8(kb, ko, pb, i, &rb);
        if (kb == TL_HK_F16 && TL_HOP_KEEPS_SNAN(op) && !pick)
            sn = _mm_or_si128(sn, avx2_f16_snan(rb));
    }
    if (TL_UNLIKELY(!_mm_testz_si128(sn, sn)))
        return 0;
    /* (the compiler may hoist a conversion above the branch: convert only sNaN-free bits) */
    if (ca && ka <= TL_HK_B) a = avx2_hwiden(ka, ka == TL_HK_F16 ? _mm_andnot_si128(sn, ra) : ra);
    if (cb && kb <= TL_HK_B) b = avx2_hwiden(kb, kb == TL_HK_F16 ? _mm_andnot_si128(sn, rb) : rb);
    if (cmp) {
        __m256i c;
        __m128i w;
        c = _mm256_castps_si256(avx2_hcmp(op, a, b));
        w = _mm_packs_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
        _mm_storel_epi64((__m128i *)po, _mm_and_si128(_mm_packs_epi16(w, w), _mm_set1_epi8(1)));
        return 1;
    }
    if (pick) {
        __m256i m = _mm256_castps_si256(avx2_hfirst(op, a, b, TL_HK_INT(ka), TL_HK_INT(kb)));
        __m128i ha = ca && ka == ko ? ra : avx2_hbits_exact(ko, a);
        __m128i hb = cb && kb == ko ? rb : avx2_hbits_exact(ko, b);
        __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
        _mm_storeu_si128((__m128i *)po, _mm_blendv_epi8(hb, ha, m16));
        return 1;
    }
    r = avx2_hop(op, a, b);
    if (ko == TL_HK_F32) {
        _mm256_storeu_ps((float *)po, r);
    } else if (ko == TL_HK_F16) {
        _mm_storeu_si128((__m128i *)po, avx2_f16_round(_mm256_castps_si256(r), bnd, fl));
    } else {
        __m256i w = avx2_bf16_round(_mm256_castps_si256(r), snr);
        _mm_storeu_si128((__m128i *)po, _mm_packus_epi32(_mm256_castsi256_si128(w),
                                                         _mm256_extracti128_si256(w, 1)));
    }
    return 1;
}

/* 8 elements of value 1 of a kind (integers: x86 is little-endian); t holds 64 bytes */
static void avx2_hk_ones(int kind, uint64_t *t)
{
    int k, s = tl_hk_size(kind);
    memset(t, 0, 64);
    for (k = 0; k < 8; k++)
        if (kind == TL_HK_F32) ((float *)t)[k] = 1.0f;
        else if (s == 2) ((uint16_t *)t)[k] = tl_hk_one[kind];
        else ((unsigned char *)t)[k * s] = 1;
}

TL_TARGET_AVX2 TL_VINLINE void
avx2_hbin(int op, int ko, int ka, int kb, int ca, int cb, const tl_hbin_args *x, unsigned *fl)
{
    const ptrdiff_t n = x->n;
    const void *pa = x->a, *pb = x->b;
    void *po = x->o;
    const size_t so = TL_HOP_IS_CMP(op) ? 1 : (size_t)tl_hk_size(ko);
    const __m256 va = _mm256_set1_ps(ca ? 0.0f : tl_hld_scalar(ka, ko, pa, fl));
    const __m256 vb = _mm256_set1_ps(cb ? 0.0f : tl_hld_scalar(kb, ko, pb, fl));
    __m256i bnd = _mm256_setzero_si256(), snr = _mm256_setzero_si256();
    ptrdiff_t i = 0;
    if (TL_HOP_IS_CMP(op))
        i = avx2_hcmp32(op, ko, ka, kb, ca, cb, pa, pb, (char *)po, n, va, vb);
    /* the element path called out of the inner loop: a call in it (ymm registers are all
     * caller-saved) made gcc rebuild the rounding's constants at every step */
    for (;;) {
        __m256i bnd1 = _mm256_setzero_si256(), snr1 = _mm256_setzero_si256();
        for (; i + 8 <= n; i += 8)
            if (!avx2_hbin8(op, ko, ka, kb, ca, cb, pa, pb, i, (char *)po + i * so, va, vb, &bnd1,
                            &snr1, fl))
                break;
        bnd = _mm256_or_si256(bnd, bnd1);
        snr = _mm256_or_si256(snr, snr1);
        if (i + 8 > n) break;
        tl_hbin_elems(x, i, 8, fl);
        i += 8;
    }
    /* (a tail with a broadcast operand: the padding 1 could raise a flag, 1 / tiny overflows) */
    if (i < n && !(ca && cb)) {
        tl_hbin_elems(x, i, n - i, fl);
    } else if (i < n) {
        ptrdiff_t m = n - i;
        uint64_t ta[8], tb[8];      /* 8 elements of up to 8 bytes */
        float to[8];
        const size_t sa = (size_t)tl_hk_size(ka), sb = (size_t)tl_hk_size(kb);
        avx2_hk_ones(ka, ta);
        avx2_hk_ones(kb, tb);
        if (ca) memcpy(ta, (const char *)pa + i * sa, (size_t)m * sa);
        if (cb) memcpy(tb, (const char *)pb + i * sb, (size_t)m * sb);
        if (avx2_hbin8(op, ko, ka, kb, ca, cb, ta, tb, 0, to, va, vb, &bnd, &snr, fl))
            memcpy((char *)po + i * so, to, (size_t)m * so);
        else
            tl_hbin_elems(x, i, m, fl);
    }
    if (!_mm256_testz_si256(bnd, bnd)) *fl |= TL_FLAG_UNDERFLOW;
    if (!_mm256_testz_si256(snr, snr)) *fl |= TL_FLAG_INVALID;
}

/* A scalar operand is widened once, before the loop (tl_hld_scalar), so a kernel with one
 * doesn't depend on its kind: one per (ISA, op, result kind, the other operand's kind and side)
 * serves every kernel below with that key (the kinds are constants in it but the scalar's)
 * instead of a copy in each. An integer array with a float16/bfloat16 scalar (strong: a NumPy
 * scalar or 0-d array) runs the both-contiguous kernel on blocks of the scalar's bits, about
 * 1.3x the time of a kernel of its own. Three kernels per entry took most of this file's
 * build time. */
#define TL_HBIN_SCALAR_FNS1(ISA, TARGET, OP, KO, KC)                                         \
    TARGET __attribute__((noinline, unused)) static void                                     \
    ISA##_hbin_s1_##OP##_##KO##_##KC(const tl_hbin_args *x, unsigned *fl)                    \
    { ISA##_hbin(TL_HOP_##OP, TL_HK_##KO, x->ka, TL_HK_##KC, 0, 1, x, fl); }                \
    TARGET __attribute__((noinline, unused)) static void                                     \
    ISA##_hbin_s2_##OP##_##KO##_##KC(const tl_hbin_args *x, unsigned *fl)                    \
    { ISA##_hbin(TL_HOP_##OP, TL_HK_##KO, TL_HK_##KC, x->kb, 1, 0, x, fl); }
#define TL_HBIN_SCALAR_FNS(OP, KO, KC)                                                       \
    TL_HBIN_SCALAR_FNS1(avx512, TL_TARGET_AVX512, OP, KO, KC)                                \
    TL_HBIN_SCALAR_FNS1(avx2, TL_TARGET_AVX2, OP, KO, KC)

#define TL_HBIN_BLOCK 256
static void tl_hbin_bcast(void (*f)(const tl_hbin_args *, unsigned *), const tl_hbin_args *x,
                          unsigned *fl)
{
    uint16_t block[TL_HBIN_BLOCK];      /* the scalar is a float16/bfloat16 */
    tl_hbin_args y = *x;
    const int first = !x->ca;
    const uint16_t bits = *(const uint16_t *)(first ? x->a : x->b);
    const size_t sc = (size_t)tl_hk_size(first ? x->kb : x->ka);
    const size_t so = TL_HOP_IS_CMP(x->op) ? 1 : (size_t)tl_hk_size(x->ko);
    const char *p = (const char *)(first ? x->b : x->a);
    ptrdiff_t i;
    for (i = 0; i < TL_HBIN_BLOCK; i++)
        block[i] = bits;
    y.ca = y.cb = 1;
    for (i = 0; i < x->n; i += TL_HBIN_BLOCK) {
        y.n = x->n - i < TL_HBIN_BLOCK ? x->n - i : TL_HBIN_BLOCK;
        y.a = first ? (const void *)block : (const void *)(p + (size_t)i * sc);
        y.b = first ? (const void *)(p + (size_t)i * sc) : (const void *)block;
        y.o = (char *)x->o + (size_t)i * so;
        f(&y, fl);
    }
}

/* one function per (ISA, op, operand kinds): every kind test above is a constant there; a
 * scalar operand (s1: first, s2: second) through the shared kernels */
#define TL_HBIN_FN1(ISA, OP, KO, KA, KB)                                                     \
    static void ISA##_hbin_##OP##_##KA##_##KB(const tl_hbin_args *x, unsigned *fl)           \
    {                                                                                        \
        if (x->ca && x->cb)                                                                  \
            ISA##_hbin(TL_HOP_##OP, TL_HK_##KO, TL_HK_##KA, TL_HK_##KB, 1, 1, x, fl);        \
        else if (x->ca ? TL_HK_INT(TL_HK_##KA) : TL_HK_INT(TL_HK_##KB))                      \
            tl_hbin_bcast(ISA##_hbin_##OP##_##KA##_##KB, x, fl);                             \
        else if (x->ca)                                                                      \
            ISA##_hbin_s2_##OP##_##KO##_##KA(x, fl);                                         \
        else                                                                                 \
            ISA##_hbin_s1_##OP##_##KO##_##KB(x, fl);                                         \
    }
#define TL_HBIN_FNS(OP, KO, KA, KB)                                                          \
    TL_TARGET_AVX512 TL_HBIN_FN1(avx512, OP, KO, KA, KB)                                     \
    TL_TARGET_AVX2 TL_HBIN_FN1(avx2, OP, KO, KA, KB)

/* every kernel as (op, result kind, first kind, second kind), through X: same-dtype operands, and
 * an integer/bool operand with a float16/bfloat16 one, in either order (64-bit integers on AVX2
 * through tl_avx2.h's conversions) */
#define TL_HBIN_SAME(X, OP) X(OP, F16, F16, F16) X(OP, BF16, BF16, BF16)
#define TL_HBIN_MIXED1(X, OP, K, I) X(OP, K, K, I) X(OP, K, I, K)
#define TL_HBIN_MIXED1C(X, OP, K, I) X(OP, K, K, I)
#define TL_HBIN_MIXEDK(M, X, OP, K)                                                          \
    M(X, OP, K, I8) M(X, OP, K, U8) M(X, OP, K, B) M(X, OP, K, I16) M(X, OP, K, U16)            \
    M(X, OP, K, I32) M(X, OP, K, U32) M(X, OP, K, I64) M(X, OP, K, U64)
/* float32 results: a float16/bfloat16 operand with a float32 one or with the other half type */
#define TL_HBIN_F32(X, OP)                                                                   \
    X(OP, F32, F16, F32) X(OP, F32, F32, F16) X(OP, F32, BF16, F32) X(OP, F32, F32, BF16)   \
    X(OP, F32, F16, BF16) X(OP, F32, BF16, F16)
#define TL_HBIN_ARITH(X, OP)                                                                 \
    TL_HBIN_SAME(X, OP) TL_HBIN_MIXEDK(TL_HBIN_MIXED1, X, OP, F16)                             \
    TL_HBIN_MIXEDK(TL_HBIN_MIXED1, X, OP, BF16) TL_HBIN_F32(X, OP)
/* comparisons: mixed operands only (the same-dtype loops compare the bits, as fast) */
#define TL_HBIN_CMP(M, X, OP)                                                                \
    TL_HBIN_MIXEDK(M, X, OP, F16) TL_HBIN_MIXEDK(M, X, OP, BF16) TL_HBIN_F32(X, OP)
/* commutative ops: the half operand first only (tl_half_binary swaps an integer first one) */
#define TL_HBIN_COMM(X, OP)                                                                  \
    TL_HBIN_SAME(X, OP) TL_HBIN_MIXEDK(TL_HBIN_MIXED1C, X, OP, F16)                            \
    TL_HBIN_MIXEDK(TL_HBIN_MIXED1C, X, OP, BF16) TL_HBIN_F32(X, OP)
/* (greater / greater_equal: less / less_equal with the operands swapped, tl_half_binary) */
#define TL_HBIN_LIST(X)                                                                      \
    TL_HBIN_COMM(X, ADD) TL_HBIN_ARITH(X, SUBTRACT)                                          \
    TL_HBIN_COMM(X, MULTIPLY) TL_HBIN_ARITH(X, DIVIDE)                                       \
    TL_HBIN_CMP(TL_HBIN_MIXED1, X, LESS) TL_HBIN_CMP(TL_HBIN_MIXED1, X, LESS_EQUAL)          \
    TL_HBIN_CMP(TL_HBIN_MIXED1C, X, EQUAL) TL_HBIN_CMP(TL_HBIN_MIXED1C, X, NOT_EQUAL)        \
    TL_HBIN_SAME(X, MAXIMUM) TL_HBIN_SAME(X, MINIMUM) TL_HBIN_SAME(X, FMAX)                  \
    TL_HBIN_SAME(X, FMIN) TL_HBIN_SAME(X, MAXIMUM_H) TL_HBIN_SAME(X, MINIMUM_H)              \
    TL_HBIN_SAME(X, FMAX_H) TL_HBIN_SAME(X, FMIN_H) TL_HBIN_F32(X, MAXIMUM)                  \
    TL_HBIN_F32(X, MINIMUM) TL_HBIN_F32(X, FMAX) TL_HBIN_F32(X, FMIN)                        \
    TL_HBIN_PICKS(X, TL_HBIN_MIDK)
/* float16/bfloat16 max/min with an integer/bool, picking the chosen operand's bits: 16- and
 * 32-bit integers on both ISAs (at 10^5, 0.7-0.9x the time of the block conversion and the bit
 * loop; AVX2 0.78-0.97x), 8- and 64-bit ones on AVX-512 only (AVX2's took 1.0-1.5x the bit
 * loops' time) */
#define TL_HBIN_PICKS(X, KL)                                                                 \
    KL(TL_HBIN_MIXED1, X, MAXIMUM_H, F16) KL(TL_HBIN_MIXED1, X, MINIMUM_H, F16)              \
    KL(TL_HBIN_MIXED1, X, FMAX_H, F16) KL(TL_HBIN_MIXED1, X, FMIN_H, F16)                    \
    KL(TL_HBIN_MIXED1, X, MAXIMUM, BF16) KL(TL_HBIN_MIXED1, X, MINIMUM, BF16)                \
    KL(TL_HBIN_MIXED1, X, FMAX, BF16) KL(TL_HBIN_MIXED1, X, FMIN, BF16)
#define TL_HBIN_MIDK(M, X, OP, K)                                                            \
    M(X, OP, K, I16) M(X, OP, K, U16) M(X, OP, K, I32) M(X, OP, K, U32)
#define TL_HBIN_ENDK(M, X, OP, K) M(X, OP, K, I8) M(X, OP, K, U8) M(X, OP, K, B) M(X, OP, K, I64) \
    M(X, OP, K, U64)
/* copysign and heaviside of a half type with float32 or the other half type (float32 results;
 * the blocked loop took 1.45-1.85x the float32 call at 10^5) */
#define TL_HBIN_LIST512(X) TL_HBIN_PICKS(X, TL_HBIN_ENDK) TL_HBIN_F32(X, COPYSIGN)              \
    TL_HBIN_F32(X, HEAVISIDE) TL_HBIN_BITOPS(X, TL_HBIN_MIXEDK, F16)                          \
    TL_HBIN_BITOPS(X, TL_HBIN_BF16K, BF16) TL_HBIN_BF16_BITOPS16(X)
/* ... and with an integer/bool operand (float16/bfloat16 results, the bit ops on the operands'
 * bits, the integer's as its cast gives them); bfloat16 with 16-bit ints in the orders that
 * read no rounding (TL_HBIN_BF16_BITOPS16), the others where the CPU has vcvtneps2bf16
 * (TL_HBIN_BF16_ROUND16) */
#define TL_HBIN_BITOPS(X, KL, K)                                                             \
    KL(TL_HBIN_MIXED1, X, COPYSIGN, K) KL(TL_HBIN_MIXED1, X, HEAVISIDE, K)
#define TL_HBIN_BF16K(M, X, OP, K) TL_HBIN_ENDK(M, X, OP, K) M(X, OP, K, I32) M(X, OP, K, U32)
/* (and heaviside with a 16-bit integer first, copysign with one second: no rounding there,
 * above; heaviside with one second rounds only the vectors with a zero x) */
#define TL_HBIN_BF16_BITOPS16(X) X(HEAVISIDE, BF16, I16, BF16) X(HEAVISIDE, BF16, U16, BF16)    \
    X(COPYSIGN, BF16, BF16, I16) X(COPYSIGN, BF16, BF16, U16)                                 \
    X(HEAVISIDE, BF16, BF16, I16) X(HEAVISIDE, BF16, BF16, U16)
/* copysign(16-bit int, bfloat16) reads the int's rounding: its kernels only where the CPU
 * rounds by vcvtneps2bf16 (tl_bf16_insn; at 10^5 1.6x -> 1.05x the bfloat16 call), the one
 * pass elsewhere (2-14% faster than the integer rounding's kernels) */
#define TL_HBIN_BF16_ROUND16(X) X(COPYSIGN, BF16, I16, BF16) X(COPYSIGN, BF16, U16, BF16)
/* (op, result kind, the contiguous operand's kind) of the scalar kernels: a superset of the keys
 * the list uses (the others are never compiled: unreferenced static functions; the integer
 * keys only named in branches the kinds rule out) */
#define TL_HBIN_SCALAR_KEYS(X, OP)                                                           \
    X(OP, F16, F16) X(OP, BF16, BF16) X(OP, F32, F32) X(OP, F32, F16) X(OP, F32, BF16)       \
    TL_HBIN_MIXEDK(TL_HBIN_SCALAR_KEY, X, OP, F16) TL_HBIN_MIXEDK(TL_HBIN_SCALAR_KEY, X, OP, BF16)
#define TL_HBIN_SCALAR_KEY(X, OP, K, I) X(OP, K, I)
#define TL_HBIN_OPS(X, M)                                                                    \
    X(M, ADD) X(M, SUBTRACT) X(M, MULTIPLY) X(M, DIVIDE) X(M, LESS) X(M, LESS_EQUAL)          \
    X(M, EQUAL) X(M, NOT_EQUAL) X(M, MAXIMUM) X(M, MINIMUM) X(M, FMAX) X(M, FMIN)             \
    X(M, MAXIMUM_H) X(M, MINIMUM_H) X(M, FMAX_H) X(M, FMIN_H) X(M, COPYSIGN) X(M, HEAVISIDE)
#define TL_HBIN_SCALAR_OP(M, OP) TL_HBIN_SCALAR_KEYS(M, OP)
TL_HBIN_OPS(TL_HBIN_SCALAR_OP, TL_HBIN_SCALAR_FNS)
TL_HBIN_LIST(TL_HBIN_FNS)
#define TL_HBIN_FNS512(OP, KO, KA, KB) TL_TARGET_AVX512 TL_HBIN_FN1(avx512, OP, KO, KA, KB)
TL_HBIN_LIST512(TL_HBIN_FNS512)
TL_HBIN_BF16_ROUND16(TL_HBIN_FNS512)

typedef void (*tl_hbin_kernel)(const tl_hbin_args *, unsigned *);

/* (op, operand kinds) -> the kernels and their result kind, filled once from TL_HBIN_LIST:
 * calls of small arrays look a kernel up every time (a switch on a packed key compiled to a
 * 9-level compare tree) */
typedef struct { tl_hbin_kernel k512, k2; int ko, bf16_insn; } tl_hbin_entry;
#define TL_HK_N (TL_HK_F32 + 1)
static tl_hbin_entry tl_hbin_tab[TL_HOP_NOT_EQUAL + 1][TL_HK_N][TL_HK_N];
static int tl_hbin_tab_ready;

static void tl_hbin_tab_fill(void)
{
#define TL_HBIN_ROW(OP, KO, KA, KB)                                                          \
    tl_hbin_tab[TL_HOP_##OP][TL_HK_##KA][TL_HK_##KB] =                                       \
        (tl_hbin_entry){avx512_hbin_##OP##_##KA##_##KB, avx2_hbin_##OP##_##KA##_##KB, TL_HK_##KO, 0};
    TL_HBIN_LIST(TL_HBIN_ROW)
#define TL_HBIN_ROW512_IF(OP, KO, KA, KB, BF16_INSN)                                         \
    tl_hbin_tab[TL_HOP_##OP][TL_HK_##KA][TL_HK_##KB] =                                       \
        (tl_hbin_entry){avx512_hbin_##OP##_##KA##_##KB, NULL, TL_HK_##KO, BF16_INSN};
#define TL_HBIN_ROW512(OP, KO, KA, KB) TL_HBIN_ROW512_IF(OP, KO, KA, KB, 0)
#define TL_HBIN_ROW512_BF16(OP, KO, KA, KB) TL_HBIN_ROW512_IF(OP, KO, KA, KB, 1)
    TL_HBIN_LIST512(TL_HBIN_ROW512)
    TL_HBIN_BF16_ROUND16(TL_HBIN_ROW512_BF16)
    __atomic_store_n(&tl_hbin_tab_ready, 1, __ATOMIC_RELEASE);   /* (a racing fill: same values) */
}

/* the kernel for (isa, op, operand kinds), or NULL (k2 NULL: AVX-512 only) */
static tl_hbin_kernel tl_hbin_find(int avx512, int op, int ko, int ka, int kb)
{
    const tl_hbin_entry *e;
    if ((unsigned)ko >= TL_HK_N || (unsigned)ka >= TL_HK_N || (unsigned)kb >= TL_HK_N
            || (unsigned)op > TL_HOP_NOT_EQUAL)
        return NULL;
    if (TL_UNLIKELY(!__atomic_load_n(&tl_hbin_tab_ready, __ATOMIC_ACQUIRE)))
        tl_hbin_tab_fill();
    e = &tl_hbin_tab[op][ka][kb];
    if (e->k512 == NULL || e->ko != ko)
        return NULL;
    if (e->bf16_insn && !(TL_HAVE_BF16_INSN && tl_bf16_insn))
        return NULL;
    return avx512 ? e->k512 : e->k2;
}
#endif /* TL_X86 */

/* ------------------------------------------------------------------ */
/* dispatch                                                            */
/* ------------------------------------------------------------------ */
#if defined(__GNUC__)
static const tl_kernels *tl_active_k;
#define TL_LOAD() __atomic_load_n(&tl_active_k, __ATOMIC_ACQUIRE)
#define TL_STORE_K(k) __atomic_store_n(&tl_active_k, (k), __ATOMIC_RELEASE)
#else
static const tl_kernels *volatile tl_active_k;
#define TL_LOAD() (tl_active_k)
#define TL_STORE_K(k) (tl_active_k = (k))
#endif
#if TL_X86
#define TL_STORE(k) (tl_bf16_insn = (k) == &K_avx512bf16, TL_STORE_K(k))
#else
#define TL_STORE(k) TL_STORE_K(k)
#endif

int tl_simd_disabled(void)
{
    const char *env = getenv("TYPELATTICE_DISABLE_SIMD");
    return env && env[0] && strcmp(env, "0") != 0;
}

static const tl_kernels *tl_best(void)
{
    if (tl_simd_disabled())
        return &K_scalar;
#if TL_X86
    if (tl_cpu_avx512bf16())
        return &K_avx512bf16;
    if (tl_cpu_avx512())
        return &K_avx512;
    if (tl_cpu_avx2())
        return &K_avx2;
#endif
    return &K_scalar;
}

static inline const tl_kernels *tl_k(void)
{
    const tl_kernels *k = TL_LOAD();
    if (TL_UNLIKELY(k == NULL)) {
        k = tl_best();          /* idempotent: a race just stores the same */
        TL_STORE(k);
    }
    return k;
}

const char *tl_convert_isa(void) { return tl_k()->name; }

int tl_convert_set_isa(const char *name)
{
    if (name == NULL) { TL_STORE(tl_best()); return 0; }
    if (strcmp(name, "scalar") == 0) { TL_STORE(&K_scalar); return 0; }
#if TL_X86
    if (strcmp(name, "avx2+f16c") == 0 && tl_cpu_avx2()) { TL_STORE(&K_avx2); return 0; }
    if (strcmp(name, "avx512") == 0 && tl_cpu_avx512()) { TL_STORE(&K_avx512); return 0; }
    if (strcmp(name, "avx512+bf16") == 0 && tl_cpu_avx512bf16()) { TL_STORE(&K_avx512bf16); return 0; }
#endif
    return -1;
}

/* ------------------------------------------------------------------ */
/* public block functions                                              */
/* ------------------------------------------------------------------ */
#define TL_PUBLIC(NAME, ST, DT)                                              \
    void tl_convert_##NAME(const ST *src, DT *dst, ptrdiff_t n)                      \
    {                                                                        \
        if (n > 0)                                                           \
            tl_k()->NAME(src, dst, n);                                       \
    }                                                                        \
    void tl_convert_##NAME##_strided(const char *src, ptrdiff_t ss, char *dst, \
                             ptrdiff_t ds, ptrdiff_t n)                      \
    {                                                                        \
        ST sb[256];                                                          \
        DT db[256];                                                          \
        const tl_kernels *k = tl_k();                                        \
        while (n > 0) {                                                      \
            ptrdiff_t m = n < 256 ? n : 256, j;                              \
            const ST *s = (const ST *)src;                                   \
            DT *d = (DT *)dst;                                               \
            if (ss != (ptrdiff_t)sizeof(ST)) {                               \
                for (j = 0; j < m; j++)                                      \
                    memcpy(sb + j, src + j * ss, sizeof(ST));                \
                s = sb;                                                      \
            }                                                                \
            if (ds != (ptrdiff_t)sizeof(DT))                                 \
                d = db;                                                      \
            k->NAME(s, d, m);                                                \
            if (d == db)                                                     \
                for (j = 0; j < m; j++)                                      \
                    memcpy(dst + j * ds, db + j, sizeof(DT));                \
            src += m * ss;                                                   \
            dst += m * ds;                                                   \
            n -= m;                                                          \
        }                                                                    \
    }

TL_PUBLIC(f16_to_f32, uint16_t, float)
TL_PUBLIC(f16_to_f64, uint16_t, double)
TL_PUBLIC(f32_to_f16, float, uint16_t)
TL_PUBLIC(f64_to_f16, double, uint16_t)
TL_PUBLIC(bf16_to_f32, uint16_t, float)
TL_PUBLIC(bf16_to_f64, uint16_t, double)
TL_PUBLIC(f32_to_bf16, float, uint16_t)
TL_PUBLIC(f64_to_bf16, double, uint16_t)

#if TL_X86
/* (kind a constant in each copy: avx2_hwiden's switch folds away) */
TL_TARGET_AVX2 TL_VINLINE void avx2_small_to_f16_k(int kind, const uint8_t *src, uint16_t *dst,
                                                   ptrdiff_t n)
{
    ptrdiff_t i = 0;
    uint8_t tail[8] = {0};
    uint16_t out[8];
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm256_cvtps_ph(
            avx2_hwiden(kind, _mm_loadl_epi64((const __m128i *)(const void *)(src + i))),
            _MM_FROUND_TO_NEAREST_INT));
    if (i < n) {
        memcpy(tail, src + i, (size_t)(n - i));
        _mm_storeu_si128((__m128i *)(void *)out, _mm256_cvtps_ph(
            avx2_hwiden(kind, _mm_loadl_epi64((const __m128i *)(const void *)tail)),
            _MM_FROUND_TO_NEAREST_INT));
        memcpy(dst + i, out, (size_t)(n - i) * 2);
    }
}
TL_TARGET_AVX2 static void avx2_small_to_f16(int kind, const uint8_t *src, uint16_t *dst, ptrdiff_t n)
{
    if (kind == TL_HK_I8) avx2_small_to_f16_k(TL_HK_I8, src, dst, n);
    else if (kind == TL_HK_U8) avx2_small_to_f16_k(TL_HK_U8, src, dst, n);
    else avx2_small_to_f16_k(TL_HK_B, src, dst, n);
}
#endif

int tl_convert_int_to_half(int kind, int ko, const void *src, uint16_t *dst, ptrdiff_t n)
{
#if TL_X86
    const tl_kernels *k = tl_k();
    if (kind < TL_HK_I8 || kind > TL_HK_U64 || (ko != TL_HK_F16 && ko != TL_HK_BF16))
        return 0;
    if (k == &K_avx512 || k == &K_avx512bf16) {
        avx512_int_to_half(kind, ko, src, dst, n);
        return 1;
    }
    if (k == &K_avx2 && kind <= TL_HK_B && ko == TL_HK_F16) {
        avx2_small_to_f16(kind, (const uint8_t *)src, dst, n);
        return 1;
    }
#endif
    (void)kind; (void)ko; (void)src; (void)dst; (void)n;
    return 0;
}

int tl_half_binary(int op, tl_half_elem_fn fn, int ko, int ka, const void *a, int ca,
                   int kb, const void *b, int cb, void *o, ptrdiff_t n)
{
#if TL_X86
    const tl_kernels *k = tl_k();
    tl_hbin_kernel f;
    tl_hbin_args x;
    unsigned fl = 0;
    if (k != &K_avx512 && k != &K_avx512bf16 && k != &K_avx2)
        return 0;
    /* greater: less of the swapped operands; an integer/bool with a half type in a commutative
     * op: the half operand first (exact: only it can be a NaN) */
    if (op == TL_HOP_GREATER || op == TL_HOP_GREATER_EQUAL
            || ((op == TL_HOP_ADD || op == TL_HOP_MULTIPLY || op == TL_HOP_EQUAL
                 || op == TL_HOP_NOT_EQUAL) && ka >= TL_HK_I8 && ka <= TL_HK_U64)) {
        const void *t = a;
        int kt = ka, ct = ca;
        op = op == TL_HOP_GREATER ? TL_HOP_LESS : op == TL_HOP_GREATER_EQUAL ? TL_HOP_LESS_EQUAL : op;
        a = b; ka = kb; ca = cb;
        b = t; kb = kt; cb = ct;
    }
    f = tl_hbin_find(k != &K_avx2, op, ko, ka, kb);
    if (f == NULL)
        return 0;
    /* a scalar float16 signalling NaN keeps its bits on the caller's path */
    if ((!ca && ka == TL_HK_F16 && tl_half_snan(*(const uint16_t *)a))
            || (!cb && kb == TL_HK_F16 && tl_half_snan(*(const uint16_t *)b)))
        return 0;
    if (n <= 0)
        return 1;
    if (!ca && !cb)
        return 0;
    x.fn = fn; x.op = op; x.a = a; x.b = b; x.o = o; x.n = n;
    x.ka = ka; x.kb = kb; x.ko = ko; x.ca = ca; x.cb = cb;
    f(&x, &fl);
    tl_raise(fl);
    return 1;
#else
    (void)op; (void)fn; (void)ko; (void)ka; (void)a; (void)ca; (void)kb; (void)b; (void)cb;
    (void)o; (void)n;
    return 0;
#endif
}
