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
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TL_X86 1
#include <immintrin.h>
#include <cpuid.h>
#define TL_TARGET_AVX2   __attribute__((target("avx2,f16c,fma")))
#define TL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")))
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TL_X86 0
#define TL_UNLIKELY(x) (x)
#endif

/* ------------------------------------------------------------------ */
/* flags                                                               */
/* ------------------------------------------------------------------ */
static void tl_raise(unsigned fl)
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
TL_TARGET_AVX2 static inline __m256i avx2_uf_lanes(__m256i a)
{
    __m256i bnd = _mm256_and_si256(_mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x387FDFFF)),
                                   _mm256_cmpgt_epi32(_mm256_set1_epi32(0x38800000), a));
    __m256i tiny = _mm256_and_si256(_mm256_cmpgt_epi32(a, _mm256_setzero_si256()),
                                    _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), a));
    return _mm256_or_si256(bnd, tiny);
}

TL_TARGET_AVX2 static void avx2_f16_to_f32(const uint16_t *s, float *d, ptrdiff_t n)
{
    const __m128i m7fff = _mm_set1_epi16(0x7fff);
    const __m128i lo = _mm_set1_epi16(0x7c00), hi = _mm_set1_epi16(0x7e00);
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i a = _mm_and_si128(h, m7fff);
        __m128i sn = _mm_and_si128(_mm_cmpgt_epi16(a, lo), _mm_cmpgt_epi16(hi, a));
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
    const __m128i m7fff = _mm_set1_epi16(0x7fff);
    const __m128i lo = _mm_set1_epi16(0x7c00), hi = _mm_set1_epi16(0x7e00);
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i a = _mm_and_si128(h, m7fff);
        __m128i sn = _mm_and_si128(_mm_cmpgt_epi16(a, lo), _mm_cmpgt_epi16(hi, a));
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

TL_TARGET_AVX2 static void avx2_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n)
{
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    __m256i bnd = _mm256_setzero_si256();
    unsigned fl = 0;
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i a = _mm256_and_si256(v, absm);
        __m256i nan = _mm256_cmpgt_epi32(a, inf);
        int nm = _mm256_movemask_ps(_mm256_castsi256_ps(nan));
        bnd = _mm256_or_si256(bnd, avx2_uf_lanes(a));
        if (TL_UNLIKELY(nm))
            v = _mm256_andnot_si256(nan, v);
        _mm_storeu_si128((__m128i *)(d + i),
                         _mm256_cvtps_ph(_mm256_castsi256_ps(v), _MM_FROUND_TO_NEAREST_INT));
        while (TL_UNLIKELY(nm)) {
            int k = __builtin_ctz((unsigned)nm);
            d[i + k] = tl_f32bits_to_f16bits(tl_f32_to_bits(s[i + k]), &fl);
            nm &= nm - 1;
        }
    }
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
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h0), 16));
        _mm256_storeu_si256((__m256i *)(d + i + 8), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h1), 16));
    }
    sc_bf16_to_f32(s + i, d + i, n - i);
}

TL_TARGET_AVX2 static void avx2_bf16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    ptrdiff_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        __m256 f = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
        /* same instruction as ml_dtypes' float -> double: quiets sNaN */
        _mm256_storeu_pd(d + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(d + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    sc_bf16_to_f64(s + i, d + i, n - i);
}

/* 8 float bit patterns -> 8 bfloat16 in 32-bit lanes; sNaN lanes to *sn. */
TL_TARGET_AVX2 static inline __m256i avx2_bf16_round(__m256i v, __m256i *sn)
{
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    __m256i a = _mm256_and_si256(v, absm);
    __m256i nan = _mm256_cmpgt_epi32(a, inf);
    __m256i hi = _mm256_srli_epi32(v, 16);
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(v, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                  _mm256_and_si256(hi, _mm256_set1_epi32(1)))), 16);
    __m256i qn = _mm256_or_si256(_mm256_and_si256(hi, _mm256_set1_epi32(0x8000)), _mm256_set1_epi32(0x7fc0));
    *sn = _mm256_or_si256(*sn, _mm256_and_si256(nan, _mm256_cmpgt_epi32(_mm256_set1_epi32(0x7fc00000), a)));
    return _mm256_blendv_epi8(r, qn, nan);
}

TL_TARGET_AVX2 static inline __m256i avx2_pack_u32_to_u16(__m256i r0, __m256i r1)
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

TL_TARGET_AVX512 static inline __m256i avx512_sn_zero16(__m256i h, __mmask16 *snm)
{
    __m256i a = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    __mmask16 sn = _mm256_cmpgt_epu16_mask(a, _mm256_set1_epi16(0x7c00))
                 & _mm256_cmplt_epu16_mask(a, _mm256_set1_epi16(0x7e00));
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

TL_TARGET_AVX512 static void avx512_f32_to_f16(const float *s, uint16_t *d, ptrdiff_t n)
{
    const __m512i absm = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
    const __m512i blo = _mm512_set1_epi32(0x387FE000), bw = _mm512_set1_epi32(0x2000);
    const __m512i one = _mm512_set1_epi32(1), tinyw = _mm512_set1_epi32(0x007fffff);
    __mmask16 bnd = 0;
    unsigned fl = 0;
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m512i v = _mm512_maskz_loadu_epi32(tm, s + i);
        __m512i a = _mm512_and_si512(v, absm);
        __mmask16 nan = _mm512_cmpgt_epu32_mask(a, inf);
        /* NumPy underflows where x86 may not: the after-rounding tininess
         * gap below 2^-14, and float32 subnormals (read as 0 under DAZ) */
        bnd |= _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, blo), bw)
             | _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), tinyw);
        if (TL_UNLIKELY(nan))
            v = _mm512_maskz_mov_epi32((__mmask16)~nan, v);
        _mm256_mask_storeu_epi16(d + i, tm,
            _mm512_cvtps_ph(_mm512_castsi512_ps(v), _MM_FROUND_TO_NEAREST_INT));
        while (TL_UNLIKELY(nan)) {
            int k = __builtin_ctz(nan);
            d[i + k] = tl_f32bits_to_f16bits(tl_f32_to_bits(s[i + k]), &fl);
            nan &= (__mmask16)(nan - 1);
        }
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
        _mm256_mask_storeu_epi16(d + i, tm,
            _mm512_cvtps_ph(_mm512_castsi512_ps(f), _MM_FROUND_TO_NEAREST_INT));
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
        _mm512_mask_storeu_epi32(d + i, tm, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
}

TL_TARGET_AVX512 static void avx512_bf16_to_f64(const uint16_t *s, double *d, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i += 16) {
        __mmask16 tm = TL_TAIL16(n, i);
        __m256i h = _mm256_maskz_loadu_epi16(tm, s + i);
        __m512i f = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
        /* same conversion as ml_dtypes' float -> double (quiets sNaN) */
        _mm512_mask_storeu_pd(d + i, (__mmask8)tm, _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_castsi512_si256(f))));
        _mm512_mask_storeu_pd(d + i + 8, (__mmask8)(tm >> 8),
                              _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_extracti64x4_epi64(f, 1))));
    }
}

/* 16 float bit patterns -> 16 bfloat16; signalling NaN lanes OR-ed to *sn. */
TL_TARGET_AVX512 static inline __m256i avx512_bf16_round(__m512i v, __mmask16 *sn)
{
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

static const tl_kernels K_avx512 = {
    "avx512", avx512_f16_to_f32, avx512_f16_to_f64, avx512_f32_to_f16, avx512_f64_to_f16,
    avx512_bf16_to_f32, avx512_bf16_to_f64, avx512_f32_to_bf16, avx512_f64_to_bf16,
};

/* F16C via CPUID (not every compiler's __builtin_cpu_supports knows it). */
static int tl_cpu_f16c(void)
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
#endif /* TL_X86 */

/* ------------------------------------------------------------------ */
/* dispatch                                                            */
/* ------------------------------------------------------------------ */
#if defined(__GNUC__)
static const tl_kernels *tl_active_k;
#define TL_LOAD() __atomic_load_n(&tl_active_k, __ATOMIC_ACQUIRE)
#define TL_STORE(k) __atomic_store_n(&tl_active_k, (k), __ATOMIC_RELEASE)
#else
static const tl_kernels *volatile tl_active_k;
#define TL_LOAD() (tl_active_k)
#define TL_STORE(k) (tl_active_k = (k))
#endif

static const tl_kernels *tl_best(void)
{
    const char *env = getenv("TYPELATTICE_DISABLE_SIMD");
    if (env && env[0] && strcmp(env, "0") != 0)
        return &K_scalar;
#if TL_X86
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
#endif
    return -1;
}

/* ------------------------------------------------------------------ */
/* public block functions                                              */
/* ------------------------------------------------------------------ */
#define TL_PUBLIC(NAME, ST, DT)                                              \
    void tl_##NAME(const ST *src, DT *dst, ptrdiff_t n)                      \
    {                                                                        \
        if (n > 0)                                                           \
            tl_k()->NAME(src, dst, n);                                       \
    }                                                                        \
    void tl_##NAME##_strided(const char *src, ptrdiff_t ss, char *dst,       \
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
