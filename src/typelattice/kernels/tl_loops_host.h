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
#include <float.h>
#include "numpy/ndarraytypes.h"
#include "numpy/dtype_api.h"

/* The generated loops are compiled in several translation units (the build runs them in
 * parallel) besides the module's own: state set at import and read by the loops is defined in
 * the one that defines TL_DEFINE_SHARED (the module's _loops.h) and declared in the others. */
#if defined(__GNUC__) || defined(__clang__)
#define TL_HIDDEN __attribute__((visibility("hidden")))
#else
#define TL_HIDDEN
#endif
#if defined(TL_DEFINE_SHARED)
#define TL_SHARED(decl, init) TL_HIDDEN decl init
#else
#define TL_SHARED(decl, init) extern TL_HIDDEN decl
#endif

/* Domain errors of log10, arcsin and acos (tl_elem.h's TL_DOMAIN_NAN): the CPU's default NaN
 * where NumPy runs its AVX512_SKX (SVML) loops, which give it (-NaN on x86), else glibc's +NaN,
 * as NumPy's loops call glibc there: NumPy's bits either way. Set at import (_ufuncs.pyx). */
TL_SHARED(int tl_domain_nan_cpu, = 0);
#define TL_DOMAIN_NAN_ON tl_domain_nan_cpu
#include "tl_elem.h"
#include "tl_threads.h"   /* tl_loop_error, tl_feedback */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define TL_X86_DISPATCH_CLONES 1
#endif

/* Element loops get AVX-512 (x86-64-v4) and AVX2 (x86-64-v3: with FMA) clones besides the
 * baseline (SSE2) one, chosen at load time by the dynamic linker (gcc's target_clones): NumPy's
 * own loops are dispatched to AVX2/AVX-512; an SSE2-only build ran 1.3-2x slower than NumPy on
 * L2-resident arrays. A clone without FMA calls libm's fma() for the element functions that use
 * it (complex multiply, square, absolute): complex64 square ran at 18x NumPy's time in the plain
 * "avx2" clone. The build is ISO C (c_std=c11: -ffp-contract=off), so no multiply-add is
 * contracted where the clone has FMA, and every clone computes the same bits. */
#if defined(TL_X86_DISPATCH_CLONES)
#define TL_CLONES_ALL __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TL_CLONES_ALL
#endif
/* The loop macros expand TL_LOOP_CLONES where they are used: gen_loops.py defines it empty around
 * the loops no clone speeds up (single_version), which spares compiling them three times. */
#define TL_LOOP_CLONES TL_CLONES_ALL

#define TL_LD_id(x) (x)
#define TL_ST_id(x, e) (x)
#define TL_LD_b(x) ((tl_bool)((x) != 0))
#define TL_LD_u64_sat(x) tl_u64_sat(x)
#define TL_LD_f16(x) tl_f16_to_f32(x)
#define TL_ST_f16(x, e) tl_f32_to_f16((x), (e))
#define TL_LD_bf16(x) tl_bf16_to_f32(x)
#define TL_ST_bf16(x, e) tl_f32_to_bf16((x), (e))

static int tl_finish(unsigned fpe)
{
    if (fpe == 0) return 0;
    if (fpe & TL_ERR_NEGPOW)
        return tl_loop_error(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
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

/* Quiet ordered comparisons of float32/float64 for the host loops, on integer keys: no FP
 * instruction at all (so no 'invalid' flag for NaN, as NumPy), and gcc vectorizes them (the
 * NaN-sanitizing float versions of tl_elem.h compile to branches). key(x) orders the non-NaN
 * values as the floats, with key(-0.0) == key(+0.0) == 0; any NaN operand gives false. */
#define TL_HCMP(S, F, I, U, ABSM, INF, SH)                                                       \
static inline I tl_hkey_##S(F x)                                                                 \
{ U u; I m; memcpy(&u, &x, sizeof u); m = (I)u >> SH; return (I)(((u & ABSM) ^ (U)m) - (U)m); }   \
static inline int tl_hord_##S(F a, F b)                                                          \
{ U ua, ub; memcpy(&ua, &a, sizeof ua); memcpy(&ub, &b, sizeof ub);                              \
  return ((ua & ABSM) <= INF) & ((ub & ABSM) <= INF); }                                          \
static inline tl_bool tl_hless_##S(F a, F b, unsigned *e)                                        \
{ (void)e; return (tl_bool)(tl_hord_##S(a, b) & (tl_hkey_##S(a) < tl_hkey_##S(b))); }             \
static inline tl_bool tl_hless_equal_##S(F a, F b, unsigned *e)                                  \
{ (void)e; return (tl_bool)(tl_hord_##S(a, b) & (tl_hkey_##S(a) <= tl_hkey_##S(b))); }            \
static inline tl_bool tl_hgreater_##S(F a, F b, unsigned *e) { return tl_hless_##S(b, a, e); }   \
static inline tl_bool tl_hgreater_equal_##S(F a, F b, unsigned *e)                               \
{ return tl_hless_equal_##S(b, a, e); }
TL_HCMP(f32, float, int32_t, uint32_t, 0x7fffffffu, 0x7f800000u, 31)
TL_HCMP(f64, double, int64_t, uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, 63)
#define tl_hequal_f32 tl_equal_f32         /* == and != are quiet in C */
#define tl_hnot_equal_f32 tl_not_equal_f32
#define tl_hequal_f64 tl_equal_f64
#define tl_hnot_equal_f64 tl_not_equal_f64

/* NumPy's sign on the bits (NaN returned as it is, +-0 -> +0, else +-1): selects instead of the
 * quiet comparisons of tl_elem.h, so gcc vectorizes it */
#define TL_HSIGN(S, F, U, ABSM, INF, ONE)                                                        \
static inline F tl_hsign_##S(F x, unsigned *e)                                                   \
{                                                                                                \
    U u, m, r;                                                                                   \
    F y;                                                                                         \
    (void)e;                                                                                     \
    memcpy(&u, &x, sizeof u);                                                                    \
    m = u & ABSM;                                                                                \
    r = m > INF ? u : (m == 0 ? (U)0 : ((u & ~(U)ABSM) | ONE));                                  \
    memcpy(&y, &r, sizeof y);                                                                    \
    return y;                                                                                    \
}
TL_HSIGN(f32, float, uint32_t, 0x7fffffffu, 0x7f800000u, 0x3f800000u)
TL_HSIGN(f64, double, uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, 0x3ff0000000000000ull)
/* heaviside on the bits too (NaN x as it is, h0 where x is +-0, else 0 or 1 by x's sign), by
 * masks: with selects (or tl_elem.h's branches) gcc converts a fused loop's integer h0 on its
 * path only, which keeps the loop scalar (a conversion may raise a flag) */
#define TL_HHEAVISIDE(S, F, U, ABSM, INF, ONE, SH)                                               \
static inline F tl_hheaviside_##S(F x, F h0, unsigned *e)                                        \
{                                                                                                \
    U u, h, m, nan, zero, neg, r;                                                                \
    F y;                                                                                         \
    (void)e;                                                                                     \
    memcpy(&u, &x, sizeof u);                                                                    \
    memcpy(&h, &h0, sizeof h);                                                                   \
    m = u & ABSM;                                                                                \
    nan = -(U)(m > INF);                                                                         \
    zero = -(U)(m == 0);                                                                         \
    neg = -(u >> SH);                                                                            \
    r = (nan & u) | (~nan & ((zero & h) | (~zero & ~neg & (U)ONE)));                             \
    memcpy(&y, &r, sizeof y);                                                                    \
    return y;                                                                                    \
}
TL_HHEAVISIDE(f32, float, uint32_t, 0x7fffffffu, 0x7f800000u, 0x3f800000u, 31)
TL_HHEAVISIDE(f64, double, uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull,
              0x3ff0000000000000ull, 63)
/* ml_dtypes' bfloat16 sign (tl_sign_bf_f32: zeros and NaN as they are), the same way */
static inline float tl_hsign_bf_f32(float x, unsigned *e)
{
    uint32_t u, m, r;
    float y;
    (void)e;
    memcpy(&u, &x, sizeof u);
    m = u & 0x7fffffffu;
    r = (m > 0x7f800000u || m == 0) ? u : ((u & 0x80000000u) | 0x3f800000u);
    memcpy(&y, &r, sizeof y);
    return y;
}

/* Blocks of float32/float64 comparisons with bool results: AVX-512 (F+BW+VL) or AVX2 quiet
 * (_CMP_*_OQ) compares where the CPU has them (gcc turns isless() into signalling compares, even with AVX), the
 * integer-key functions above otherwise. ca/cb: 1 for a contiguous operand, 0 for a scalar. */
TL_SHARED(uint64_t tl_bytes8[256], );     /* 8 mask bits -> 8 bytes of 0/1 */
TL_SHARED(int tl_host_avx2, = 0);
TL_SHARED(int tl_host_avx512, = 0);
TL_SHARED(int tl_host_vpopcnt, = 0);     /* AVX-512 with VPOPCNTDQ */
TL_SHARED(int tl_host_lzcnt, = 0);       /* AVX-512 with CD (vplzcntd) */
int tl_simd_disabled(void);     /* tl_convert.c (tl_convert.h is included below) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
int tl_cpu_f16c(void);          /* tl_convert.c */
#endif
static void tl_host_init(void)
{
    int b, k;
    for (b = 0; b < 256; b++) {
        uint64_t v = 0;
        for (k = 0; k < 8; k++) if ((b >> k) & 1) v |= (uint64_t)1 << (8 * k);
        tl_bytes8[b] = v;
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    /* (F16C: the fused loops' float16 loads, as tl_convert.c's AVX2 path) */
    tl_host_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && tl_cpu_f16c();
    tl_host_avx512 = tl_host_avx2 && __builtin_cpu_supports("avx512f")
                     && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
                     && __builtin_cpu_supports("avx512dq");
    tl_host_vpopcnt = tl_host_avx512 && __builtin_cpu_supports("avx512vpopcntdq");
    tl_host_lzcnt = tl_host_avx512 && __builtin_cpu_supports("avx512cd");
#endif
    if (tl_simd_disabled()) tl_host_avx2 = tl_host_avx512 = tl_host_vpopcnt = tl_host_lzcnt = 0;
}
/* on = 0: the portable code (tests); 1: what the CPU has; 2: at most AVX2 (tests) */
static void tl_host_set_simd(int on)
{
    tl_host_init();
    if (!on) tl_host_avx2 = tl_host_avx512 = tl_host_vpopcnt = tl_host_lzcnt = 0;
    if (on == 2) tl_host_avx512 = tl_host_vpopcnt = tl_host_lzcnt = 0;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* 32 elements (one 32-byte store of bools) per iteration, as NumPy's AVX2 loops: the compare
 * masks packed to bytes (float64: pairs of masks first narrowed to 32-bit lanes; the constants
 * one and perm in the caller's scope), 8 at a time through the byte table for the rest; one loop
 * per operand layout (no select in the loop) */
#define TL_VCMP_PACK32(m0, m1, m2, m3)                                                           \
    _mm256_and_si256(one, _mm256_permutevar8x32_epi32(_mm256_packs_epi16(                        \
        _mm256_packs_epi32(m0, m1), _mm256_packs_epi32(m2, m3)), perm))
#define TL_VCMP_NARROW64(m0, m1) _mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_castps_pd(     \
        _mm256_shuffle_ps(_mm256_castpd_ps(m0), _mm256_castpd_ps(m1), 0x88)), 0xD8))
#define TL_VCMP_AVX2(OPN, PRED)                                                                  \
__attribute__((target("avx2"), always_inline)) static inline void tl_vcmp_##OPN##_f32_avx2_body( \
    const float *a, const int ca, const float *b, const int cb, tl_bool *o, npy_intp n)          \
{                                                                                                \
    const __m256i one = _mm256_set1_epi8(1), perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);   \
    const __m256 va = _mm256_set1_ps(a[0]), vb = _mm256_set1_ps(b[0]);                          \
    npy_intp i = 0;                                                                              \
    for (; i + 32 <= n; i += 32) {                                                               \
        __m256i m[4];                                                                            \
        int h;                                                                                   \
        for (h = 0; h < 4; h++)                                                                  \
            m[h] = _mm256_castps_si256(_mm256_cmp_ps(ca ? _mm256_loadu_ps(a + i + 8 * h) : va,   \
                                                     cb ? _mm256_loadu_ps(b + i + 8 * h) : vb, PRED)); \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), TL_VCMP_PACK32(m[0], m[1], m[2], m[3])); \
    }                                                                                            \
    for (; i + 8 <= n; i += 8) {                                                                 \
        __m256 x = ca ? _mm256_loadu_ps(a + i) : va, y = cb ? _mm256_loadu_ps(b + i) : vb;       \
        uint64_t v = tl_bytes8[_mm256_movemask_ps(_mm256_cmp_ps(x, y, PRED))];                   \
        memcpy(o + i, &v, 8);                                                                    \
    }                                                                                            \
    for (; i < n; i++) o[i] = tl_h##OPN##_f32(a[ca ? i : 0], b[cb ? i : 0], NULL);               \
}                                                                                                \
__attribute__((target("avx2"), always_inline)) static inline void tl_vcmp_##OPN##_f64_avx2_body( \
    const double *a, const int ca, const double *b, const int cb, tl_bool *o, npy_intp n)        \
{                                                                                                \
    const __m256i one = _mm256_set1_epi8(1), perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);   \
    const __m256d va = _mm256_set1_pd(a[0]), vb = _mm256_set1_pd(b[0]);                         \
    npy_intp i = 0;                                                                              \
    for (; i + 32 <= n; i += 32) {                                                               \
        __m256d m[8];                                                                            \
        int h;                                                                                   \
        for (h = 0; h < 8; h++)                                                                  \
            m[h] = _mm256_cmp_pd(ca ? _mm256_loadu_pd(a + i + 4 * h) : va,                       \
                                 cb ? _mm256_loadu_pd(b + i + 4 * h) : vb, PRED);                \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), TL_VCMP_PACK32(                          \
            TL_VCMP_NARROW64(m[0], m[1]), TL_VCMP_NARROW64(m[2], m[3]),                          \
            TL_VCMP_NARROW64(m[4], m[5]), TL_VCMP_NARROW64(m[6], m[7])));                        \
    }                                                                                            \
    for (; i + 8 <= n; i += 8) {                                                                 \
        __m256d x0 = ca ? _mm256_loadu_pd(a + i) : va, y0 = cb ? _mm256_loadu_pd(b + i) : vb;    \
        __m256d x1 = ca ? _mm256_loadu_pd(a + i + 4) : va, y1 = cb ? _mm256_loadu_pd(b + i + 4) : vb; \
        int m = _mm256_movemask_pd(_mm256_cmp_pd(x0, y0, PRED))                                  \
                | (_mm256_movemask_pd(_mm256_cmp_pd(x1, y1, PRED)) << 4);                        \
        uint64_t v = tl_bytes8[m];                                                               \
        memcpy(o + i, &v, 8);                                                                    \
    }                                                                                            \
    for (; i < n; i++) o[i] = tl_h##OPN##_f64(a[ca ? i : 0], b[cb ? i : 0], NULL);               \
}                                                                                                \
TL_VCMP_LAYOUTS(OPN, f32, float, avx2, "avx2")                                                   \
TL_VCMP_LAYOUTS(OPN, f64, double, avx2, "avx2")
/* one call of the body per operand layout, so that each loop has no select */
#define TL_VCMP_LAYOUTS(OPN, S, F, ISA, TARGET)                                                  \
__attribute__((target(TARGET))) static void tl_vcmp_##OPN##_##S##_##ISA(                         \
    const F *a, int ca, const F *b, int cb, tl_bool *o, npy_intp n)                              \
{                                                                                                \
    if (n <= 0) return;                                                                          \
    if (ca && cb) tl_vcmp_##OPN##_##S##_##ISA##_body(a, 1, b, 1, o, n);                          \
    else if (ca) tl_vcmp_##OPN##_##S##_##ISA##_body(a, 1, b, 0, o, n);                           \
    else if (cb) tl_vcmp_##OPN##_##S##_##ISA##_body(a, 0, b, 1, o, n);                           \
    else tl_vcmp_##OPN##_##S##_##ISA##_body(a, 0, b, 0, o, n);                                   \
}
/* 64 elements (one 64-byte store of bools) per iteration, as NumPy's AVX-512 loops: the compare
 * masks joined in mask registers (kunpck; through general registers, the shifts and ORs made
 * float64 compares 1.1x NumPy's time); the tail in NL-lane steps with masked loads (masked-off
 * lanes read nothing) and a masked store */
#define TL_VCMP_MK(P, PRED, h) _mm512_cmp_##P##_mask(ca ? _mm512_loadu_##P(a + i + (h)) : va,      \
                                                     cb ? _mm512_loadu_##P(b + i + (h)) : vb, PRED)
#define TL_VCMP_JOIN_16(P, PRED)                                                                 \
    _mm512_kunpackd(_mm512_kunpackw(TL_VCMP_MK(P, PRED, 48), TL_VCMP_MK(P, PRED, 32)),            \
                    _mm512_kunpackw(TL_VCMP_MK(P, PRED, 16), TL_VCMP_MK(P, PRED, 0)))
#define TL_VCMP_JOIN_8(P, PRED)                                                                  \
    _mm512_kunpackd(                                                                             \
        _mm512_kunpackw(_mm512_kunpackb(TL_VCMP_MK(P, PRED, 56), TL_VCMP_MK(P, PRED, 48)),        \
                        _mm512_kunpackb(TL_VCMP_MK(P, PRED, 40), TL_VCMP_MK(P, PRED, 32))),       \
        _mm512_kunpackw(_mm512_kunpackb(TL_VCMP_MK(P, PRED, 24), TL_VCMP_MK(P, PRED, 16)),        \
                        _mm512_kunpackb(TL_VCMP_MK(P, PRED, 8), TL_VCMP_MK(P, PRED, 0))))
#define TL_VCMP_AVX512_T(OPN, PRED, S, F, V, NL, P)                                              \
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static inline void           \
tl_vcmp_##OPN##_##S##_avx512_body(const F *a, const int ca, const F *b, const int cb, tl_bool *o, \
                                  npy_intp n)                                                    \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    const __m512i one = _mm512_set1_epi8(1);                                                     \
    const V va = _mm512_set1_##P(a[0]), vb = _mm512_set1_##P(b[0]);                             \
    for (; i + 64 <= n; i += 64)                                                                 \
        _mm512_storeu_si512(o + i, _mm512_maskz_mov_epi8(TL_VCMP_JOIN_##NL(P, PRED), one));      \
    for (; i < n; i += NL) {                                                                     \
        unsigned k = n - i >= NL ? (1u << NL) - 1 : (1u << (n - i)) - 1;                         \
        unsigned m = _mm512_cmp_##P##_mask(ca ? _mm512_maskz_loadu_##P(k, a + i) : va,           \
                                           cb ? _mm512_maskz_loadu_##P(k, b + i) : vb, PRED);    \
        _mm_mask_storeu_epi8(o + i, (__mmask16)k, _mm_maskz_mov_epi8((__mmask16)m, _mm512_castsi512_si128(one))); \
    }                                                                                            \
}                                                                                                \
TL_VCMP_LAYOUTS(OPN, S, F, avx512, "avx512f,avx512bw,avx512vl")
#define TL_VCMP_AVX512(OPN, PRED)                                                                \
TL_VCMP_AVX512_T(OPN, PRED, f32, float, __m512, 16, ps)                                                  \
TL_VCMP_AVX512_T(OPN, PRED, f64, double, __m512d, 8, pd)
TL_VCMP_AVX512(less, _CMP_LT_OQ)
TL_VCMP_AVX512(less_equal, _CMP_LE_OQ)
TL_VCMP_AVX512(greater, _CMP_GT_OQ)
TL_VCMP_AVX512(greater_equal, _CMP_GE_OQ)
TL_VCMP_AVX2(less, _CMP_LT_OQ)
TL_VCMP_AVX2(less_equal, _CMP_LE_OQ)
TL_VCMP_AVX2(greater, _CMP_GT_OQ)
TL_VCMP_AVX2(greater_equal, _CMP_GE_OQ)
TL_VCMP_AVX512(equal, _CMP_EQ_OQ)
TL_VCMP_AVX512(not_equal, _CMP_NEQ_UQ)
TL_VCMP_AVX2(equal, _CMP_EQ_OQ)
TL_VCMP_AVX2(not_equal, _CMP_NEQ_UQ)
#define TL_VCMP_HAVE_AVX2 1
#endif
#define TL_VCMP(OPN, S, F)                                                                       \
static void tl_vcmp_##OPN##_##S(const F *a, int ca, const F *b, int cb, tl_bool *o, npy_intp n)  \
{                                                                                                \
    npy_intp i;                                                                                  \
    TL_VCMP_DISPATCH(OPN, S)                                                                     \
    if (ca && cb) for (i = 0; i < n; i++) o[i] = tl_h##OPN##_##S(a[i], b[i], NULL);              \
    else for (i = 0; i < n; i++) o[i] = tl_h##OPN##_##S(a[ca ? i : 0], b[cb ? i : 0], NULL);     \
}
#ifdef TL_VCMP_HAVE_AVX2
#define TL_VCMP_DISPATCH(OPN, S)                                                                 \
    if (tl_host_avx512) { tl_vcmp_##OPN##_##S##_avx512(a, ca, b, cb, o, n); return; }            \
    if (tl_host_avx2) { tl_vcmp_##OPN##_##S##_avx2(a, ca, b, cb, o, n); return; }
#else
#define TL_VCMP_DISPATCH(OPN, S)
#endif
TL_VCMP(less, f32, float) TL_VCMP(less_equal, f32, float)
TL_VCMP(greater, f32, float) TL_VCMP(greater_equal, f32, float)
TL_VCMP(less, f64, double) TL_VCMP(less_equal, f64, double)
TL_VCMP(greater, f64, double) TL_VCMP(greater_equal, f64, double)
TL_VCMP(equal, f32, float) TL_VCMP(not_equal, f32, float)
TL_VCMP(equal, f64, double) TL_VCMP(not_equal, f64, double)

#define TL_LOOP_ARGS PyArrayMethod_Context *ctx, char *const data[], npy_intp const dims[], \
                     npy_intp const st[], NpyAuxData *aux

/* for (i = 0; i < n; i++) BODY, in two passes when the output po (elements of size SZ) is
 * larger than TL_PEEL_BYTES: up to its first 64-byte boundary, then the rest, so the vectorized
 * loop's 64-byte stores do not straddle cache lines (NumPy's arrays start 16, 32 or 48 bytes
 * into a line). float32 add into a reused out= of 10^4-10^5 elements: 0.75-0.93x the time of
 * one pass; fresh outputs (their stores miss the cache anyway): the same. Below that size the
 * head costs more than it saves. One copy of BODY in the code. */
#define TL_PEEL_BYTES 32768
/* the elements of size SZ at p before its first 64-byte boundary */
#define TL_ALIGN_HEAD(p, SZ) ((npy_intp)((-(uintptr_t)(p) & 63) / (uintptr_t)(SZ)))
#define TL_FOR_ALIGNED(i, n, po, SZ, BODY)                                                       \
    {                                                                                            \
        npy_intp lo_ = 0, hi_ = (n) * (npy_intp)(SZ) >= TL_PEEL_BYTES                            \
            ? TL_ALIGN_HEAD(po, SZ) : (n);                                                       \
        for (;;) {                                                                               \
            for (i = lo_; i < hi_; i++) BODY;                                                    \
            if (hi_ == (n)) break;                                                               \
            lo_ = hi_;                                                                           \
            hi_ = (n);                                                                           \
        }                                                                                        \
    }
/* accumulate's call: the output one element behind the first input, out[i] = f(out[i - 1], b[i]) */
#define TL_ACC_SHAPE(data, st) ((data)[0] + (st)[0] == (data)[2] && (st)[0] == (st)[2] && (st)[0] != 0)
/* (not complex128 max/min: their two-part compare as a register chain ran 1.2x slower than the
 * element loop, whose branch the CPU predicts past the store; by name, as some FN are macros,
 * compared at compile time) */
#define TL_ACC_CHAIN_OK(FN)                                                                      \
    (__builtin_strcmp(#FN, "tl_maximum_c128") && __builtin_strcmp(#FN, "tl_minimum_c128")         \
     && __builtin_strcmp(#FN, "tl_fmax_c128") && __builtin_strcmp(#FN, "tl_fmin_c128"))
/* (S1, S2) -> SO: out = ST(FN(LD1(a), LD2(b))) */
#define TL_LOOP2_BODY(S1, S2, SO, LD1, LD2, ST, FN)                                              \
    npy_intp n = dims[0], i;                                                                     \
    char *a = data[0], *b = data[1], *o = data[2];                                               \
    npy_intp sa = st[0], sb = st[1], so = st[2];                                                 \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    if (TL_ACC_SHAPE(data, st) && __builtin_types_compatible_p(S1, SO) && TL_ACC_CHAIN_OK(FN)) { \
        /* accumulate's chain: the running value in a register                                  \
         * (stored and read back, each step waited on store-to-load forwarding: float64        \
         * add.accumulate 3.3 ns an element, NumPy's time) */                                     \
        S1 acc = *(const S1 *)a;                                                                 \
        for (i = 0; i < n; i++, b += sb, o += so) {                                              \
            SO r = ST(FN(LD1(acc), LD2(*(const S2 *)b), &fpe), &fpe);                            \
            *(SO *)o = r;                                                                        \
            memcpy(&acc, &r, sizeof(S1) < sizeof(SO) ? sizeof(S1) : sizeof(SO));  /* (S1 is SO) */ \
        }                                                                                        \
    }                                                                                            \
    else if (sa == sizeof(S1) && sb == sizeof(S2) && so == sizeof(SO)) {                         \
        const S1 *pa = (const S1 *)a; const S2 *pb = (const S2 *)b; SO *po = (SO *)o;            \
        (void)pb;   /* pow's constant-exponent loops (TL_SCALAR_EXP_pow) ignore b */              \
        TL_FOR_ALIGNED(i, n, po, sizeof(SO),                                                     \
                       po[i] = ST(FN(LD1(pa[i]), LD2(pb[i]), &fpe), &fpe))                       \
    }                                                                                            \
    else if (sa == 0 && sb == sizeof(S2) && so == sizeof(SO) && (char *)a != o) {                \
        const S2 *pb = (const S2 *)b; SO *po = (SO *)o;                                          \
        const __typeof__(LD1(*(S1 *)a)) x = LD1(*(const S1 *)a);                                 \
        (void)pb;                                                                                \
        TL_FOR_ALIGNED(i, n, po, sizeof(SO), po[i] = ST(FN(x, LD2(pb[i]), &fpe), &fpe))          \
    }                                                                                            \
    else if (sb == 0 && sa == sizeof(S1) && so == sizeof(SO) && (char *)b != o) {                \
        const S1 *pa = (const S1 *)a; SO *po = (SO *)o;                                          \
        const __typeof__(LD2(*(S2 *)b)) y = LD2(*(const S2 *)b);                                 \
        (void)y;                                                                                 \
        TL_FOR_ALIGNED(i, n, po, sizeof(SO), po[i] = ST(FN(LD1(pa[i]), y, &fpe), &fpe))          \
    }                                                                                            \
    else {                                                                                       \
        for (i = 0; i < n; i++, a += sa, b += sb, o += so)                                       \
            *(SO *)o = ST(FN(LD1(*(const S1 *)a), LD2(*(const S2 *)b), &fpe), &fpe);             \
    }                                                                                            \
    return tl_finish(fpe);

/* Strided operands through contiguous blocks, for the loops whose element function gcc leaves
 * scalar or branchy on strided data where the contiguous path has SIMD kernels or blends
 * (maximum of float64 a[::2], b[::2]: 11x NumPy's time; complex multiply 4-7x; float less
 * 2.5x); not for plain arithmetic, whose strided element loop the copies would slow. Gathered into
 * blocks (TL_BLOCK_BYTES per operand), the loop's own contiguous or broadcast path computes them
 * and the output block is scattered. Only where the output aliases no input but exactly (each
 * element read before it is written, as in place; tl_feedback): not accumulate's chain
 * (a = out - 1), not a fold into one element (out stride 0). */
typedef int (*tl_loop2_fn)(TL_LOOP_ARGS);
#define TL_BLOCK_BYTES 4096
#define TL_BLOCK_MIN 32
static inline int tl_blockable(char *const data[], npy_intp n, npy_intp const st[],
                               npy_intp z1, npy_intp z2, npy_intp zo)
{
    if (n < TL_BLOCK_MIN || st[2] == 0) return 0;
    if (st[2] == zo && (st[0] == z1 || st[0] == 0) && (st[1] == z2 || st[1] == 0)) return 0;
    return !tl_feedback(data[0], st[0], data[2], st[2], n)
        && !tl_feedback(data[1], st[1], data[2], st[2], n);
}
/* m items of size isz from src (stride ss) to dst (stride ds): four loads before their four
 * stores (one load after each store ran at half the speed on strided float64 from L3: maximum
 * of a[::2], b[::2] at 10^5 was 2.4x NumPy's time, 70% of it in this copy) */
#define TL_COPY4(T)                                                                              \
    for (k = 0; k < (m & ~(npy_intp)3); k += 4) {                                                \
        T x0, x1, x2, x3;                                                                        \
        memcpy(&x0, src + k * ss, sizeof(T)); memcpy(&x1, src + (k + 1) * ss, sizeof(T));        \
        memcpy(&x2, src + (k + 2) * ss, sizeof(T)); memcpy(&x3, src + (k + 3) * ss, sizeof(T));  \
        memcpy(dst + k * ds, &x0, sizeof(T)); memcpy(dst + (k + 1) * ds, &x1, sizeof(T));        \
        memcpy(dst + (k + 2) * ds, &x2, sizeof(T)); memcpy(dst + (k + 3) * ds, &x3, sizeof(T));  \
    }                                                                                            \
    for (; k < m; k++) memcpy(dst + k * ds, src + k * ss, sizeof(T));
typedef struct { uint64_t lo, hi; } tl_copy16;
static void tl_copy_strided(char *dst, npy_intp ds, const char *src, npy_intp ss, npy_intp isz,
                            npy_intp m)
{
    npy_intp k;
    switch (isz) {
        case 1: TL_COPY4(uint8_t) break;
        case 2: TL_COPY4(uint16_t) break;
        case 4: TL_COPY4(uint32_t) break;
        case 8: TL_COPY4(uint64_t) break;
        case 16: TL_COPY4(tl_copy16) break;
        default: for (k = 0; k < m; k++) memcpy(dst + k * ds, src + k * ss, (size_t)isz);
    }
}
static int tl_loop2_by_blocks(tl_loop2_fn fn, PyArrayMethod_Context *ctx, char *const data[],
                              npy_intp n, npy_intp const st[], NpyAuxData *aux,
                              npy_intp z1, npy_intp z2, npy_intp zo)
{
    /* the blocks 1344 bytes apart modulo 4096: 4096 apart, each load of one aliased the
     * pending stores to another (subtract of float64 a[::2] ran at 2.3x NumPy's time) */
    _Alignas(64) char mem[3 * (TL_BLOCK_BYTES + 1344)];
    char *const buf[3] = {mem, mem + TL_BLOCK_BYTES + 1344, mem + 2 * (TL_BLOCK_BYTES + 1344)};
    const npy_intp z[3] = {z1, z2, zo};
    npy_intp zmax = z1 > z2 ? z1 : z2, bl, i;
    int k, rc;
    zmax = zmax > zo ? zmax : zo;
    bl = TL_BLOCK_BYTES / zmax;
    for (i = 0; i < n; i += bl) {
        npy_intp m = n - i < bl ? n - i : bl, s[3];
        char *d[3];
        for (k = 0; k < 3; k++) {
            s[k] = st[k] == 0 ? 0 : z[k];
            d[k] = st[k] == 0 ? data[k] : st[k] == z[k] ? data[k] + i * z[k] : buf[k];
            if (k < 2 && d[k] == buf[k])
                tl_copy_strided(buf[k], z[k], data[k] + i * st[k], st[k], z[k], m);
        }
        rc = fn(ctx, d, &m, s, aux);
        if (rc != 0) return rc;
        if (d[2] == buf[2]) tl_copy_strided(data[2] + i * st[2], st[2], buf[2], zo, zo, m);
    }
    return 0;
}
#define TL_BY_BLOCKS(NAME, S1, S2, SO)                                                           \
    if (tl_blockable(data, dims[0], st, sizeof(S1), sizeof(S2), sizeof(SO)))                      \
        return tl_loop2_by_blocks(NAME, ctx, data, dims[0], st, aux, sizeof(S1), sizeof(S2),      \
                                  sizeof(SO));

#define TL_LOOP2(NAME, S1, S2, SO, LD1, LD2, ST, FN)                                             \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS) { TL_LOOP2_BODY(S1, S2, SO, LD1, LD2, ST, FN) }

/* float32/float64 comparison: contiguous or scalar operands and a contiguous bool output go
 * through the block comparison VFN */
#define TL_LOOP2_CMP(NAME, S, VFN, FN)                                                           \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    TL_BY_BLOCKS(NAME, S, S, npy_bool)                                                           \
    if (st[2] == 1 && (st[0] == (npy_intp)sizeof(S) || st[0] == 0)                               \
            && (st[1] == (npy_intp)sizeof(S) || st[1] == 0) && (st[0] | st[1]) != 0) {           \
        (void)ctx; (void)aux;                                                                    \
        VFN((const S *)data[0], st[0] != 0, (const S *)data[1], st[1] != 0,                      \
            (tl_bool *)data[2], dims[0]);                                                        \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, npy_bool, TL_LD_id, TL_LD_id, TL_ST_id, FN) }                          \
}

/* complex64/complex128 less/less_equal/greater/greater_equal (tl_elem.h's branch-free form:
 * r = re OPR re, signalling as NumPy's; eq = re == re; nim = an imaginary part is NaN; result
 * (r & !nim) | (eq & quiet im compare); 'invalid' where eq & nim), 16 / 8 elements per AVX-512
 * step on contiguous or broadcast (ca/cb 0) operands: real and imaginary parts split by a
 * two-source permute, compares into masks, one byte per result. gcc leaves the element loop
 * scalar (the interleaved parts, and compares it will not if-convert): 1.5-1.8x NumPy's time.
 * real 1 / 2: a / b is a real operand (its F values, imaginary parts 0: a complex compare with
 * a real one, TL_LOOP_CCMP_REAL). Returns the explicit 'invalid' (TL_FPE_*); the tail runs on
 * zero-padded lanes (no flag). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_VCCMP(OPN, SFX, F, V, P, L, PR)                                                   \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static unsigned                     \
tl_vccmp_##OPN##_##SFX##_avx512(const F *a, int ca, const F *b, int cb, int real, tl_bool *o,    \
                                npy_intp n)                                                      \
{                                                                                                \
    const __m512i even = _mm512_set_epi##P(TL_VCCMP_IDX_##P(0));                                 \
    const __m512i odd = _mm512_set_epi##P(TL_VCCMP_IDX_##P(1));                                  \
    const V zero = _mm512_setzero_##PR();                                                        \
    V are = _mm512_set1_##PR(a[0]), aim = real == 1 ? zero : _mm512_set1_##PR(a[1]);             \
    V bre = _mm512_set1_##PR(b[0]), bim = real == 2 ? zero : _mm512_set1_##PR(b[1]);             \
    npy_intp i;                                                                                  \
    unsigned fpe = 0;                                                                            \
    for (i = 0; i < n; i += L) {                                                                 \
        /* m elements: 2m parts, the first L in lo, the rest in hi (zero-padded: no flag) */      \
        npy_intp m = n - i < L ? n - i : L;                                                      \
        __mmask##L tm = (__mmask##L)(m == L ? ~0ull : (1ull << m) - 1);                           \
        __mmask##L ml = (__mmask##L)(2 * m >= L ? ~0ull : (1ull << (2 * m)) - 1);                 \
        __mmask##L mh = (__mmask##L)(2 * m >= 2 * L ? ~0ull                                      \
                                     : 2 * m > L ? (1ull << (2 * m - L)) - 1 : 0);               \
        __mmask##L r, eq, nim, lt;                                                               \
        if (ca && real == 1) are = _mm512_maskz_loadu_##PR(tm, a + i);                           \
        else if (ca) TL_VCCMP_SPLIT(PR, a + 2 * i, L, are, aim)                                  \
        if (cb && real == 2) bre = _mm512_maskz_loadu_##PR(tm, b + i);                           \
        else if (cb) TL_VCCMP_SPLIT(PR, b + 2 * i, L, bre, bim)                                  \
        r = _mm512_mask_cmp_##PR##_mask(tm, are, bre, TL_VCCMP_R_##OPN);                         \
        eq = _mm512_mask_cmp_##PR##_mask(tm, are, bre, _CMP_EQ_OQ);                              \
        nim = _mm512_mask_cmp_##PR##_mask(tm, aim, aim, _CMP_UNORD_Q)                            \
            | _mm512_mask_cmp_##PR##_mask(tm, bim, bim, _CMP_UNORD_Q);                           \
        lt = _mm512_mask_cmp_##PR##_mask(tm, aim, bim, TL_VCCMP_I_##OPN);                        \
        if (eq & nim) fpe |= TL_FPE_INVALID;                                                     \
        _mm_mask_storeu_epi8(o + i, (__mmask16)tm,                                               \
                             _mm_maskz_mov_epi8((__mmask16)((r & ~nim) | (eq & lt)),             \
                                                _mm_set1_epi8(1)));                              \
    }                                                                                            \
    return fpe;                                                                                  \
}
/* real and imaginary parts of the elements at p (masks ml/mh, permutes even/odd in scope) */
#define TL_VCCMP_SPLIT(PR, p, L, RE, IM)                                                         \
    {                                                                                            \
        __typeof__(RE) lo_ = _mm512_maskz_loadu_##PR(ml, p);                                     \
        __typeof__(RE) hi_ = _mm512_maskz_loadu_##PR(mh, (p) + L);                               \
        RE = _mm512_permutex2var_##PR(lo_, even, hi_);                                           \
        IM = _mm512_permutex2var_##PR(lo_, odd, hi_);                                            \
    }
/* the lane indices of the real (0) / imaginary (1) parts of two vectors, _mm512_set order */
#define TL_VCCMP_IDX_32(k) 30 + k, 28 + k, 26 + k, 24 + k, 22 + k, 20 + k, 18 + k, 16 + k,      \
                           14 + k, 12 + k, 10 + k, 8 + k, 6 + k, 4 + k, 2 + k, k
#define TL_VCCMP_IDX_64(k) 14 + k, 12 + k, 10 + k, 8 + k, 6 + k, 4 + k, 2 + k, k
#define TL_VCCMP_R_less _CMP_LT_OS
#define TL_VCCMP_R_less_equal _CMP_LT_OS
#define TL_VCCMP_R_greater _CMP_GT_OS
#define TL_VCCMP_R_greater_equal _CMP_GT_OS
#define TL_VCCMP_I_less _CMP_LT_OQ
#define TL_VCCMP_I_less_equal _CMP_LE_OQ
#define TL_VCCMP_I_greater _CMP_GT_OQ
#define TL_VCCMP_I_greater_equal _CMP_GE_OQ
#define TL_VCCMP_ALL(SFX, F, V, P, L, PR)                                                        \
    TL_VCCMP(less, SFX, F, V, P, L, PR) TL_VCCMP(less_equal, SFX, F, V, P, L, PR)                  \
    TL_VCCMP(greater, SFX, F, V, P, L, PR) TL_VCCMP(greater_equal, SFX, F, V, P, L, PR)
TL_VCCMP_ALL(c64, float, __m512, 32, 16, ps)
TL_VCCMP_ALL(c128, double, __m512d, 64, 8, pd)
/* complex64/complex128 divide, 16 / 8 elements per AVX-512 step on contiguous or broadcast
 * (ca/cb 0) operands: tl_divide_c*'s division (NumPy's Smith algorithm) in lanes, the larger
 * part of b chosen per lane by the signalling >= as C's (a NaN part raises 'invalid' as there)
 * and each branch's operations masked to its own lanes, so no lane raises a flag its branch
 * does not (b == 0: a / |b.re| alone); no FMA, the bits of the element function. The element
 * loop's branches mispredicted on mixed magnitudes: 6.4 ns an element, NumPy's time. */
#define TL_VCDIV(SFX, F, V, P, L, PR, K)                                                         \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static void                        \
tl_vcdiv_##SFX##_avx512(const F *a, int ca, const F *b, int cb, F *o, npy_intp n)                \
{                                                                                                \
    const __m512i even = _mm512_set_epi##P(TL_VCCMP_IDX_##P(0));                                 \
    const __m512i odd = _mm512_set_epi##P(TL_VCCMP_IDX_##P(1));                                  \
    const __m512i ilo = _mm512_set_epi##P(TL_VCDIV_ILV_##P(0));                                  \
    const __m512i ihi = _mm512_set_epi##P(TL_VCDIV_ILV_##P(L / 2));                              \
    const V zero = _mm512_setzero_##PR(), one = _mm512_set1_##PR((F)1);                          \
    V are = _mm512_set1_##PR(a[0]), aim = _mm512_set1_##PR(a[1]);                               \
    V bre = _mm512_set1_##PR(b[0]), bim = _mm512_set1_##PR(b[1]);                               \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += L) {                                                                 \
        npy_intp m = n - i < L ? n - i : L;                                                      \
        K tm = (K)(m == L ? ~0ull : (1ull << m) - 1);                                            \
        K ml = (K)(2 * m >= L ? ~0ull : (1ull << (2 * m)) - 1);                                  \
        K mh = (K)(2 * m >= 2 * L ? ~0ull : 2 * m > L ? (1ull << (2 * m - L)) - 1 : 0);          \
        K big, bz, nz, sm;                                                                       \
        V absr, absi, p, q, x, y, rat, scl, xr, re, im;                                          \
        if (ca) TL_VCCMP_SPLIT(PR, a + 2 * i, L, are, aim)                                       \
        if (cb) TL_VCCMP_SPLIT(PR, b + 2 * i, L, bre, bim)                                       \
        absr = _mm512_abs_##PR(bre);                                                             \
        absi = _mm512_abs_##PR(bim);                                                             \
        big = _mm512_mask_cmp_##PR##_mask(tm, absr, absi, _CMP_GE_OS);                          \
        bz = _mm512_mask_cmp_##PR##_mask(big, absr, zero, _CMP_EQ_OQ)                           \
             & _mm512_mask_cmp_##PR##_mask(big, absi, zero, _CMP_EQ_OQ);                         \
        nz = (K)(tm & ~bz);                                                                      \
        sm = (K)(tm & ~big);                                                                     \
        /* big: rat = bi / br, re = (ar + ai rat) scl, im = (ai - ar rat) scl; else rat = br / bi, \
         * re = (ai + ar rat) scl (the sum commutes), im = (ai rat - ar) scl */                  \
        p = _mm512_mask_blend_##PR(big, bim, bre);                                               \
        q = _mm512_mask_blend_##PR(big, bre, bim);                                               \
        x = _mm512_mask_blend_##PR(big, aim, are);                                               \
        y = _mm512_mask_blend_##PR(big, are, aim);                                               \
        rat = _mm512_maskz_div_##PR(nz, q, p);                                                   \
        scl = _mm512_maskz_div_##PR(nz, one,                                                     \
                  _mm512_maskz_add_##PR(nz, p, _mm512_maskz_mul_##PR(nz, q, rat)));              \
        re = _mm512_maskz_mul_##PR(nz, _mm512_maskz_add_##PR(nz, x, _mm512_maskz_mul_##PR(nz, y, rat)), scl); \
        xr = _mm512_maskz_mul_##PR(nz, x, rat);                                                  \
        im = _mm512_mask_sub_##PR(_mm512_maskz_sub_##PR((K)(big & nz), aim, xr), sm, xr, are);   \
        im = _mm512_mask_mul_##PR(im, nz, im, scl);                                              \
        re = _mm512_mask_div_##PR(re, bz, are, absr);                                            \
        im = _mm512_mask_div_##PR(im, bz, aim, absr);                                            \
        _mm512_mask_storeu_##PR(o + 2 * i, ml, _mm512_permutex2var_##PR(re, ilo, im));           \
        _mm512_mask_storeu_##PR(o + 2 * i + L, mh, _mm512_permutex2var_##PR(re, ihi, im));       \
    }                                                                                            \
}
/* the lanes of (re, im) pairs from element h on, re in the first vector, _mm512_set order */
#define TL_VCDIV_ILV_32(h) 23 + h, 7 + h, 22 + h, 6 + h, 21 + h, 5 + h, 20 + h, 4 + h,           \
                           19 + h, 3 + h, 18 + h, 2 + h, 17 + h, 1 + h, 16 + h, h
#define TL_VCDIV_ILV_64(h) 11 + h, 3 + h, 10 + h, 2 + h, 9 + h, 1 + h, 8 + h, h
TL_VCDIV(c64, float, __m512, 32, 16, ps, __mmask16)
TL_VCDIV(c128, double, __m512d, 64, 8, pd, __mmask8)
/* AVX2: 8 elements per step (the parts split by shuffles, put back in order by a qword
 * permute), unmasked compares raising what the element function raises (signalling real
 * compare, quiet others), results through the byte table; the tail through the element function */
#define TL_VCCMP_AVX2(OPN, SFX, F, V, PR, FN)                                                    \
__attribute__((target("avx2"))) static unsigned                                                  \
tl_vccmp_##OPN##_##SFX##_avx2(const F *a, int ca, const F *b, int cb, tl_bool *o, npy_intp n)    \
{                                                                                                \
    V are[8 / TL_VCCMP_W_##PR], aim[8 / TL_VCCMP_W_##PR], bre[8 / TL_VCCMP_W_##PR],              \
      bim[8 / TL_VCCMP_W_##PR];                                                                  \
    npy_intp i, k;                                                                               \
    unsigned fpe = 0;                                                                            \
    for (k = 0; k < 8 / TL_VCCMP_W_##PR; k++) {                                                  \
        are[k] = _mm256_set1_##PR(a[0]); aim[k] = _mm256_set1_##PR(a[1]);                        \
        bre[k] = _mm256_set1_##PR(b[0]); bim[k] = _mm256_set1_##PR(b[1]);                        \
    }                                                                                            \
    for (i = 0; i + 8 <= n; i += 8) {                                                            \
        int bits = 0, bad = 0;                                                                   \
        for (k = 0; k < 8 / TL_VCCMP_W_##PR; k++) {                                              \
            V r, eq, nim, lt;                                                                    \
            if (ca) TL_VCCMP_SPLIT2_##PR(a + 2 * (i + k * TL_VCCMP_W_##PR), are[k], aim[k])      \
            if (cb) TL_VCCMP_SPLIT2_##PR(b + 2 * (i + k * TL_VCCMP_W_##PR), bre[k], bim[k])      \
            r = _mm256_cmp_##PR(are[k], bre[k], TL_VCCMP_R_##OPN);                               \
            eq = _mm256_cmp_##PR(are[k], bre[k], _CMP_EQ_OQ);                                    \
            nim = _mm256_or_##PR(_mm256_cmp_##PR(aim[k], aim[k], _CMP_UNORD_Q),                  \
                                 _mm256_cmp_##PR(bim[k], bim[k], _CMP_UNORD_Q));                 \
            lt = _mm256_cmp_##PR(aim[k], bim[k], TL_VCCMP_I_##OPN);                              \
            bits |= _mm256_movemask_##PR(_mm256_or_##PR(_mm256_andnot_##PR(nim, r),              \
                                                        _mm256_and_##PR(eq, lt)))                \
                    << (k * TL_VCCMP_W_##PR);                                                    \
            bad |= _mm256_movemask_##PR(_mm256_and_##PR(eq, nim));                               \
        }                                                                                        \
        if (bad) fpe |= TL_FPE_INVALID;                                                          \
        memcpy(o + i, &tl_bytes8[bits], 8);                                                      \
    }                                                                                            \
    for (; i < n; i++) o[i] = FN(((const tl_##SFX *)a)[ca ? i : 0], ((const tl_##SFX *)b)[cb ? i : 0], &fpe); \
    return fpe;                                                                                  \
}
#define TL_VCCMP_W_ps 8
#define TL_VCCMP_W_pd 4
/* the parts of 8 complex64 / 4 complex128 at p, in order */
#define TL_VCCMP_SPLIT2_ps(p, RE, IM)                                                            \
    {                                                                                            \
        __m256 v0_ = _mm256_loadu_ps(p), v1_ = _mm256_loadu_ps((p) + 8);                         \
        RE = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(                            \
            _mm256_shuffle_ps(v0_, v1_, 0x88)), 0xD8));                                          \
        IM = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(                            \
            _mm256_shuffle_ps(v0_, v1_, 0xDD)), 0xD8));                                          \
    }
#define TL_VCCMP_SPLIT2_pd(p, RE, IM)                                                            \
    {                                                                                            \
        __m256d v0_ = _mm256_loadu_pd(p), v1_ = _mm256_loadu_pd((p) + 4);                        \
        RE = _mm256_permute4x64_pd(_mm256_unpacklo_pd(v0_, v1_), 0xD8);                          \
        IM = _mm256_permute4x64_pd(_mm256_unpackhi_pd(v0_, v1_), 0xD8);                          \
    }
#define TL_VCCMP_ALL2(SFX, F, V, PR)                                                             \
    TL_VCCMP_AVX2(less, SFX, F, V, PR, tl_less_##SFX)                                            \
    TL_VCCMP_AVX2(less_equal, SFX, F, V, PR, tl_less_equal_##SFX)                                \
    TL_VCCMP_AVX2(greater, SFX, F, V, PR, tl_greater_##SFX)                                      \
    TL_VCCMP_AVX2(greater_equal, SFX, F, V, PR, tl_greater_equal_##SFX)
TL_VCCMP_ALL2(c64, float, __m256, ps)
TL_VCCMP_ALL2(c128, double, __m256d, pd)
#define TL_VCCMP_CALL(OPN, SFX, a, ca, b, cb, o, n, done)                                        \
    if (tl_host_avx512) { done = 1; fpe = tl_vccmp_##OPN##_##SFX##_avx512(a, ca, b, cb, 0, o, n); } \
    else if (tl_host_avx2) { done = 1; fpe = tl_vccmp_##OPN##_##SFX##_avx2(a, ca, b, cb, o, n); }
/* (contiguous complex values z and a real operand x, contiguous or cx 0: broadcast; K: OPN_SFX) */
#define TL_VCCMPR_CALL(K, z, x, cx, zfirst, o, n, done)                                          \
    if (tl_host_avx512) {                                                                        \
        done = 1;                                                                                \
        fpe |= (zfirst) ? tl_vccmp_##K##_avx512(z, 1, x, cx, 2, o, n)                            \
                        : tl_vccmp_##K##_avx512(x, cx, z, 1, 1, o, n);                           \
    }
#else
#define TL_VCCMP_CALL(OPN, SFX, a, ca, b, cb, o, n, done)
#define TL_VCCMPR_CALL(K, z, x, cx, zfirst, o, n, done)
#endif
/* complex comparison loop: contiguous or broadcast operands into a contiguous bool output through
 * the AVX-512 kernel, element by element (FN) otherwise */
#define TL_LOOP2_CCMP(NAME, OPN, SFX, S, F, FN)                                                  \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (st[2] == 1 && (st[0] == 0 || st[0] == (npy_intp)sizeof(S))                               \
            && (st[1] == 0 || st[1] == (npy_intp)sizeof(S)) && (st[0] | st[1]) != 0) {           \
        int done = 0;                                                                            \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        TL_VCCMP_CALL(OPN, SFX, (const F *)data[0], st[0] != 0, (const F *)data[1], st[1] != 0,  \
                      (tl_bool *)data[2], dims[0], done)                                         \
        if (done) return tl_finish(fpe);                                                         \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, npy_bool, TL_LD_id, TL_LD_id, TL_ST_id, FN) }                          \
}

/* Same-type loop with a reduction path that keeps the accumulator in the compute type (exact for
 * every type whose storage is its compute type; NumPy's float16 add/subtract/multiply/divide
 * reductions accumulate in float32 too). */
#define TL_LOOP2_RED(NAME, S, LD, ST, FN)                                                        \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS) { TL_LOOP2_RED_BODY(S, LD, ST, FN) }
/* The same not vectorized, for complex divide: gcc 12's vectorizers pair its real and imaginary
 * parts into a vector fmsubadd in the FMA clones despite -ffp-contract=off (the SLP one for two
 * array operands, the loop one for a scalar divisor), 1-3 ulp from NumPy's scalar loop (and
 * from the baseline clone) in 20-30% of the parts. */
#if defined(TL_X86_DISPATCH_CLONES)
#define TL_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define TL_NO_VECTORIZE
#endif
#define TL_LOOP2_RED_NOVEC(NAME, S, LD, ST, FN)                                                  \
TL_NO_VECTORIZE TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS) { TL_LOOP2_RED_BODY(S, LD, ST, FN) }
/* Vectorized but for the reduction, which runs NAME_seq (the complex64 loops; a reduction is a
 * chain in order anyway): for complex64 subtract, gcc's SLP vectorizer ran the (re, im)
 * accumulator as a 4-lane subtract whose idle lanes held other elements, a spurious overflow
 * where some element passed max/4 (subtract.reduce of [0, 0, 1e38j, 0...]) */
#define TL_LOOP2_RED_SEQ(NAME, S, LD, ST, FN)                                                    \
TL_LOOP2_RED_NOVEC(NAME##_seq, S, LD, ST, FN)                                                    \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (TL_RED_SHAPE(data, st)) return NAME##_seq(ctx, data, dims, st, aux);                     \
    { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) }                                                   \
}
/* a reduction's call: the accumulator (stride 0) is the first input and the output */
#define TL_RED_SHAPE(data, st) ((data)[0] == (data)[2] && (st)[0] == 0 && (st)[2] == 0)
/* ... or any call whose output is fed back into an input (accumulate's out[i] = f(out[i - 1],
 * x[i])): the element loop's order */
#define TL_CHAIN_SHAPE(data, st, n)                                                              \
    (TL_RED_SHAPE(data, st) || tl_feedback((data)[0], (st)[0], (data)[2], (st)[2], (n))           \
     || tl_feedback((data)[1], (st)[1], (data)[2], (st)[2], (n)))
#define TL_LOOP2_RED_BODY(S, LD, ST, FN)                                                         \
    if (TL_RED_SHAPE(data, st)) {                                                                \
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
    { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) }

/* A function in three variants, portable / AVX2 / AVX-512 (target attributes, one body
 * FN(NAME, ATTR, ...)), and NAME choosing one at run time by tl_host_init's CPU check. (Not gcc's
 * target_clones: its load-time resolver picked the AVX2 clones on this AVX-512 machine.) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_RT_VARIANTS(FN, NAME, RET, PARAMS, ARGS, ...)                                         \
FN(NAME##_base, , __VA_ARGS__)                                                                   \
FN(NAME##_avx2, __attribute__((target("avx2,fma"))), __VA_ARGS__)                                \
FN(NAME##_avx512, __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))), __VA_ARGS__)    \
static RET NAME PARAMS                                                                           \
{                                                                                                \
    if (tl_host_avx512) return NAME##_avx512 ARGS;                                               \
    if (tl_host_avx2) return NAME##_avx2 ARGS;                                                   \
    return NAME##_base ARGS;                                                                     \
}
#else
#define TL_RT_VARIANTS(FN, NAME, RET, PARAMS, ARGS, ...) FN(NAME, , __VA_ARGS__)
#endif

/* NumPy's pairwise summation (loops_utils.h.src), in the compute type F, in TL_RT_VARIANTS: the
 * summation order is fixed by the code, so every variant gives the same bits (there is no
 * multiply to contract). A contiguous block keeps NumPy's 8 partial sums r[0..7] in two 4-lane
 * vectors (r[0..3], r[4..7]): gcc made of an array r[8] a single 8-lane chain, loaded through
 * the stack, 3x slower than two (10^5 float32 on AVX2: 28 -> 8 us; float64 35 -> 11 us). */
#define TL_PW_LOAD_TL_LD_id(v, p) memcpy(&(v), (p), sizeof(v));
#define TL_PAIRWISE_FN(NAME, ATTR, S, F, LD)                                                     \
ATTR static F NAME(const char *a, npy_intp n, npy_intp stride)                                   \
{                                                                                                \
    typedef F tl_pw_v4 __attribute__((vector_size(4 * sizeof(F))));                             \
    npy_intp i;                                                                                  \
    if (n <= 128 && n >= 8 && stride == (npy_intp)sizeof(S)) {   /* contiguous block */          \
        const S *p = (const S *)a;                                                               \
        tl_pw_v4 r0, r1, x0, x1;                                                                 \
        F res;                                                                                   \
        TL_PW_LOAD_##LD(r0, p)                                                                   \
        TL_PW_LOAD_##LD(r1, p + 4)                                                               \
        for (i = 8; i < n - (n % 8); i += 8) {                                                   \
            TL_PW_LOAD_##LD(x0, p + i)                                                           \
            TL_PW_LOAD_##LD(x1, p + i + 4)                                                       \
            r0 += x0;                                                                            \
            r1 += x1;                                                                            \
        }                                                                                        \
        res = ((r0[0] + r0[1]) + (r0[2] + r0[3])) + ((r1[0] + r1[1]) + (r1[2] + r1[3]));         \
        for (; i < n; i++) res += LD(p[i]);                                                      \
        return res;                                                                              \
    }                                                                                            \
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
        return NAME(a, n2, stride) + NAME(a + n2 * stride, n - n2, stride); \
    }                                                                                            \
}
#define TL_PAIRWISE(SFX, S, F, LD)                                                               \
    TL_RT_VARIANTS(TL_PAIRWISE_FN, tl_pairwise_##SFX, F,                                         \
                   (const char *a, npy_intp n, npy_intp stride), (a, n, stride), S, F, LD)

/* ---- maximum/minimum/fmax/fmin reductions -------------------------------------------------
 * The element loop's exact result (acc = FN(acc, x) left to right, acc starting as the output's
 * value), from a SIMD pass over the values and short scans: maximum/minimum give the first NaN
 * (acc included) if there is one; fmax/fmin skip NaNs (acc NaN: the first value that is not);
 * among equal values the last one wins (FN returns its second operand on ties), which decides
 * the sign of a zero result. The SIMD pass only finds the extreme value and whether NaNs and
 * non-NaNs occur, so its order does not matter. */
typedef struct { double m; int any_nan, any_num; } tl_mm_pass;
#define TL_MM_BEYOND_max(m, acc) ((m) > (acc))
#define TL_MM_BEYOND_min(m, acc) ((m) < (acc))
/* r: the pass of a part and another part's pass t, merged */
#define TL_MM_MERGE(DIR, r, t)                                                                   \
    r.any_nan |= t.any_nan;                                                                      \
    if (t.any_num) r.m = !r.any_num || TL_MM_BEYOND_##DIR(t.m, r.m) ? t.m : r.m;                  \
    r.any_num |= t.any_num;
#define TL_MM_PASS_SCALAR(SFX, F, DIR, CMP)                                                      \
static tl_mm_pass tl_mm_##DIR##_##SFX##_base(const F *p, npy_intp n)                             \
{                                                                                                \
    tl_mm_pass r = {0, 0, 0};                                                                    \
    F m = 0;                                                                                     \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i++) {                                                                    \
        F x = p[i];                                                                              \
        if (x != x) { r.any_nan = 1; continue; }                                                 \
        if (!r.any_num || x CMP m) m = x;                                                        \
        r.any_num = 1;                                                                           \
    }                                                                                            \
    r.m = (double)m;                                                                             \
    return r;                                                                                    \
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* 4 vectors per step. Unmasked max/min with a NaN check (UNORD of two vectors at once): a NaN
 * only ever sends the caller to the first-NaN scan (maximum/minimum) or to the masked pass
 * below (fmax/fmin), where NaN lanes take no part (masked off: no exception either). */
#define TL_MM_PASS_AVX512(SFX, F, DIR, P, W, INF, K)                                             \
__attribute__((target("avx512f,avx512dq"))) static tl_mm_pass                                    \
tl_mm_##DIR##_##SFX##_avx512_masked(const F *p, npy_intp n)                                      \
{                                                                                                \
    tl_mm_pass r = {0, 0, 0};                                                                    \
    tl_v512##P v = _mm512_set1_##P(INF);                                                         \
    K nan = 0, num = 0;                                                                          \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += W) {                                                                 \
        K live = n - i >= W ? (K)~(K)0 : (K)((1u << (n - i)) - 1);                               \
        tl_v512##P x = _mm512_maskz_loadu_##P(live, p + i);                                      \
        K k = _mm512_mask_cmp_##P##_mask(live, x, x, _CMP_ORD_Q);                                \
        v = _mm512_mask_##DIR##_##P(v, k, v, x);                                                 \
        num |= k;                                                                                \
        nan |= k ^ live;                                                                         \
    }                                                                                            \
    r.m = (double)_mm512_reduce_##DIR##_##P(v);                                                  \
    r.any_nan = nan != 0;                                                                        \
    r.any_num = num != 0;                                                                        \
    return r;                                                                                    \
}                                                                                                \
__attribute__((target("avx512f,avx512dq"))) static tl_mm_pass                                    \
tl_mm_##DIR##_##SFX##_avx512(const F *p, npy_intp n)                                             \
{                                                                                                \
    /* aligned loads in the body (NumPy's arrays start 16 bytes into a cache line) */            \
    npy_intp head = (npy_intp)(((uintptr_t)0 - (uintptr_t)p) & 63) / (npy_intp)sizeof(F);        \
    npy_intp end, i;                                                                             \
    const tl_v512##P init = _mm512_set1_##P(INF);                                                \
    tl_v512##P v0 = init, v1 = init, v2 = init, v3 = init;                                       \
    tl_mm_pass r, t;                                                                             \
    K nan = 0;                                                                                   \
    if (head > n) head = n;                                                                      \
    end = head + (n - head) / (4 * W) * (4 * W);                                                 \
    for (i = head; i < end; i += 4 * W) {                                                        \
        tl_v512##P x0 = _mm512_load_##P(p + i), x1 = _mm512_load_##P(p + i + W);                 \
        tl_v512##P x2 = _mm512_load_##P(p + i + 2 * W), x3 = _mm512_load_##P(p + i + 3 * W);     \
        nan |= _mm512_cmp_##P##_mask(x0, x1, _CMP_UNORD_Q) | _mm512_cmp_##P##_mask(x2, x3, _CMP_UNORD_Q); \
        v0 = _mm512_##DIR##_##P(v0, x0);                                                         \
        v1 = _mm512_##DIR##_##P(v1, x1);                                                         \
        v2 = _mm512_##DIR##_##P(v2, x2);                                                         \
        v3 = _mm512_##DIR##_##P(v3, x3);                                                         \
    }                                                                                            \
    if (nan != 0) return tl_mm_##DIR##_##SFX##_avx512_masked(p, n);                              \
    /* the body has no NaN: its extreme, then the head and the tail (masked) */                  \
    v0 = _mm512_##DIR##_##P(_mm512_##DIR##_##P(v0, v1), _mm512_##DIR##_##P(v2, v3));             \
    r.m = (double)_mm512_reduce_##DIR##_##P(v0);                                                 \
    r.any_nan = 0;                                                                               \
    r.any_num = end > head;                                                                      \
    for (i = 0; i < 2; i++) {                                                                    \
        t = i == 0 ? tl_mm_##DIR##_##SFX##_avx512_masked(p, head)                                \
                   : tl_mm_##DIR##_##SFX##_avx512_masked(p + end, n - end);                      \
        TL_MM_MERGE(DIR, r, t)                                                                   \
    }                                                                                            \
    return r;                                                                                    \
}
typedef __m512 tl_v512ps;
typedef __m512d tl_v512pd;
TL_MM_PASS_AVX512(f32, float, max, ps, 16, -INFINITY, __mmask16)
TL_MM_PASS_AVX512(f32, float, min, ps, 16, INFINITY, __mmask16)
TL_MM_PASS_AVX512(f64, double, max, pd, 8, -INFINITY, __mmask8)
TL_MM_PASS_AVX512(f64, double, min, pd, 8, INFINITY, __mmask8)
#endif
TL_MM_PASS_SCALAR(f32, float, max, >)
TL_MM_PASS_SCALAR(f32, float, min, <)
TL_MM_PASS_SCALAR(f64, double, max, >)
TL_MM_PASS_SCALAR(f64, double, min, <)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* AVX2: NumPy's scheme, 8 vectors per step reduced as a tree into one accumulator by a max that
 * passes on a NaN of either operand (npyv_maxn: ORD compare and blend), then one vector at a
 * time, then the last W elements again (max/min of an element taken twice is unchanged): no
 * element loop past W elements. A NaN lane in the result sends the caller to the scalar pass, as
 * does n < W. (Four accumulators with UNORD compares on the side ran 1.1-1.35x slower than this:
 * float32 maximum.reduce at 10^5-10^6 1.1-1.17x NumPy's time.) */
#define TL_MM_N(DIR, P, a, b) TL_MM_SEL(DIR, P, a, b, TL_MM_KEEP_NAN_A)
/* the max/min instruction (b on ties and when either is NaN) and a blend keeping a in the lanes
 * KEEP(P, a, b) */
#define TL_MM_SEL(DIR, P, a, b, KEEP) _mm256_blendv_##P(_mm256_##DIR##_##P(a, b), a, KEEP(P, a, b))
#define TL_MM_KEEP_NAN_A(P, a, b) _mm256_cmp_##P(a, a, _CMP_UNORD_Q)
#define TL_MM_KEEP_NAN_B(P, a, b) _mm256_cmp_##P(b, b, _CMP_UNORD_Q)
#define TL_MM_PASS_AVX2(SFX, F, DIR, P, W, INF)                                                  \
__attribute__((target("avx2"))) static tl_mm_pass tl_mm_##DIR##_##SFX##_avx2(const F *p, npy_intp n) \
{                                                                                                \
    npy_intp i;                                                                                  \
    tl_v256##P acc = _mm256_set1_##P(INF), x[8];                                                 \
    tl_mm_pass r;                                                                                \
    F m[W];                                                                                      \
    int k;                                                                                       \
    if (n < W) return tl_mm_##DIR##_##SFX##_base(p, n);                                          \
    for (i = 0; i + 8 * W <= n; i += 8 * W) {                                                    \
        for (k = 0; k < 8; k++) x[k] = _mm256_loadu_##P(p + i + k * W);                          \
        for (k = 0; k < 8; k += 2) x[k] = TL_MM_N(DIR, P, x[k], x[k + 1]);                       \
        x[0] = TL_MM_N(DIR, P, TL_MM_N(DIR, P, x[0], x[2]), TL_MM_N(DIR, P, x[4], x[6]));        \
        acc = TL_MM_N(DIR, P, acc, x[0]);                                                        \
    }                                                                                            \
    for (; i < n; i += W)                                                                        \
        acc = TL_MM_N(DIR, P, acc, _mm256_loadu_##P(p + (i + W <= n ? i : n - W)));              \
    if (_mm256_movemask_##P(_mm256_cmp_##P(acc, acc, _CMP_UNORD_Q)) != 0)                       \
        return tl_mm_##DIR##_##SFX##_base(p, n);                                                 \
    _mm256_storeu_##P(m, acc);                                                                   \
    r.m = (double)m[0];                                                                          \
    for (i = 1; i < W; i++) if (TL_MM_BEYOND_##DIR(m[i], (F)r.m)) r.m = (double)m[i];            \
    r.any_nan = 0;                                                                               \
    r.any_num = 1;                                                                               \
    return r;                                                                                    \
}
typedef __m256 tl_v256ps;
typedef __m256d tl_v256pd;
TL_MM_PASS_AVX2(f32, float, max, ps, 8, -INFINITY)
TL_MM_PASS_AVX2(f32, float, min, ps, 8, INFINITY)
TL_MM_PASS_AVX2(f64, double, max, pd, 4, -INFINITY)
TL_MM_PASS_AVX2(f64, double, min, pd, 4, INFINITY)
#endif

/* acc, p[0..n): the element loop's result. NANSKIP: fmax/fmin. */
#define TL_MM_RED(OPN, SFX, F, DIR, NANSKIP)                                                     \
static F tl_red_##OPN##_##SFX(F acc, const F *p, npy_intp n)                                     \
{                                                                                                \
    tl_mm_pass r;                                                                                \
    npy_intp j;                                                                                  \
    F m;                                                                                         \
    TL_MM_DISPATCH(DIR, SFX)                                                                     \
    /* the AVX2 pass's max instructions raise 'invalid' on a NaN; NumPy's loops clear it (it    \
     * shows where a cast makes NumPy check the flags: tl_thr_wrap's quiet) */                   \
    if (r.any_nan && fetestexcept(FE_INVALID)) feclearexcept(FE_INVALID);                       \
    if (!NANSKIP) {                                                                              \
        if (acc != acc) return acc;                                                              \
        if (r.any_nan) { for (j = 0; p[j] == p[j]; j++) {} return p[j]; }                        \
    }                                                                                            \
    else if (!r.any_num) return acc;                                                             \
    m = (F)r.m;                                                                                  \
    if (!r.any_num || (acc == acc && !(TL_MM_BEYOND_##DIR(m, acc)))) {                           \
        /* acc is the extreme (NaN-free here): it stays unless a later value equals it */        \
        m = acc;                                                                                 \
    }                                                                                            \
    if (m != 0) return m;                                                                        \
    for (j = n - 1; j >= 0; j--) if (p[j] == 0) return p[j];                                     \
    return acc;                                                                                  \
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_MM_DISPATCH(DIR, SFX)                                                                 \
    r = tl_host_avx512 ? tl_mm_##DIR##_##SFX##_avx512(p, n)                                      \
        : tl_host_avx2 ? tl_mm_##DIR##_##SFX##_avx2(p, n) : tl_mm_##DIR##_##SFX##_base(p, n);
#else
#define TL_MM_DISPATCH(DIR, SFX) r = tl_mm_##DIR##_##SFX##_base(p, n);
#endif
TL_MM_RED(maximum, f32, float, max, 0) TL_MM_RED(minimum, f32, float, min, 0)
TL_MM_RED(fmax, f32, float, max, 1) TL_MM_RED(fmin, f32, float, min, 1)
TL_MM_RED(maximum, f64, double, max, 0) TL_MM_RED(minimum, f64, double, min, 0)
TL_MM_RED(fmax, f64, double, max, 1) TL_MM_RED(fmin, f64, double, min, 1)

/* integer max/min reductions: any order gives the same result. Four vectors' worth of lanes
 * per step (a plain array, which gcc makes vpmax*), then one vector at a time, then the last W
 * elements again (taking an element twice changes no max/min): no element loop past W elements.
 * The one-vector steps are in gcc's vector extension: its vectorizer left a lane loop scalar
 * when the pointer moved by a variable step. (From a 64-byte boundary in 256-byte steps, the
 * scalar head and tail took most of short rows: int8 (300, 300) reduced along axis 1 ran at
 * 1.7x NumPy's time.) */
#define TL_MM_VSEL(V, CMP, x, v) ({ V m_ = (V)((x) CMP (v)); ((x) & m_) | ((v) & ~m_); })
#define TL_MM_INT_FN(NAME, ATTR, T, CMP)                                                         \
ATTR static T NAME(T acc, const T *p, npy_intp n)                                                \
{                                                                                                \
    typedef T V __attribute__((vector_size(32)));                                                \
    enum { W = 32 / sizeof(T) };                                                                 \
    T a[4 * W];                                                                                  \
    V v0, v1, v2, v3, x;                                                                         \
    npy_intp i = 0, k;                                                                           \
    if (n < W) {                                                                                 \
        for (; i < n; i++) acc = p[i] CMP acc ? p[i] : acc;                                      \
        return acc;                                                                              \
    }                                                                                            \
    for (k = 0; k < 4 * W; k++) a[k] = acc;                                                      \
    for (; i + 4 * W <= n; i += 4 * W)                                                           \
        for (k = 0; k < 4 * W; k++) a[k] = p[i + k] CMP a[k] ? p[i + k] : a[k];                  \
    memcpy(&v0, a, 32); memcpy(&v1, a + W, 32);                                                  \
    memcpy(&v2, a + 2 * W, 32); memcpy(&v3, a + 3 * W, 32);                                      \
    v0 = TL_MM_VSEL(V, CMP, v1, v0);                                                             \
    v2 = TL_MM_VSEL(V, CMP, v3, v2);                                                             \
    v0 = TL_MM_VSEL(V, CMP, v2, v0);                                                             \
    for (; i < n; i += W) {                                                                      \
        memcpy(&x, p + (i + W <= n ? i : n - W), 32);                                            \
        v0 = TL_MM_VSEL(V, CMP, x, v0);                                                          \
    }                                                                                            \
    memcpy(a, &v0, 32);                                                                          \
    for (k = 0; k < W; k++) acc = a[k] CMP acc ? a[k] : acc;                                     \
    return acc;                                                                                  \
}
#define TL_MM_INT(OPN, SFX, T, CMP)                                                              \
    TL_RT_VARIANTS(TL_MM_INT_FN, tl_red_##OPN##_##SFX, T, (T acc, const T *p, npy_intp n),       \
                   (acc, p, n), T, CMP)
/* (integer fmax/fmin run the maximum/minimum loops: gen_loops.py's twin_loop) */
#define TL_MM_INT2(SFX, T) TL_MM_INT(maximum, SFX, T, >) TL_MM_INT(minimum, SFX, T, <)
TL_MM_INT2(u8, uint8_t) TL_MM_INT2(u16, uint16_t) TL_MM_INT2(u32, uint32_t)
TL_MM_INT2(i8, int8_t) TL_MM_INT2(i16, int16_t) TL_MM_INT2(i32, int32_t)
/* 64-bit lanes on AVX2, which has no vpmax*q: compare and blend, eight vectors of lanes per step,
 * each vector loaded once into a register (the empty asm): gcc's blends of the forms above read
 * every vector from memory a second time (int64 maximum.reduce at 10^5: 1.25x NumPy's time).
 * BIAS flips the sign bits for unsigned compares; GT(x, v): the lanes where x replaces v. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_MM64_GT_max(x, v, bias) _mm256_cmpgt_epi64(_mm256_xor_si256(x, bias), _mm256_xor_si256(v, bias))
#define TL_MM64_GT_min(x, v, bias) _mm256_cmpgt_epi64(_mm256_xor_si256(v, bias), _mm256_xor_si256(x, bias))
#define TL_MM64_SEL(DIR, x, v, bias) _mm256_blendv_epi8(v, x, TL_MM64_GT_##DIR(x, v, bias))
#define TL_MM_INT64(OPN, SFX, T, CMP, DIR, BIAS)                                                 \
TL_MM_INT_FN(tl_red_##OPN##_##SFX##_base, , T, CMP)                                              \
TL_MM_INT_FN(tl_red_##OPN##_##SFX##_avx512,                                                      \
             __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))), T, CMP)              \
__attribute__((target("avx2"))) static T tl_red_##OPN##_##SFX##_avx2(T acc, const T *p, npy_intp n) \
{                                                                                                \
    const __m256i bias = _mm256_set1_epi64x(BIAS);                                               \
    __m256i v[8], x;                                                                             \
    T m[4];                                                                                      \
    npy_intp i = 0;                                                                              \
    int k;                                                                                       \
    if (n < 4) {                                                                                 \
        for (; i < n; i++) acc = p[i] CMP acc ? p[i] : acc;                                      \
        return acc;                                                                              \
    }                                                                                            \
    if (n < 32) {       /* short rows (axis 1 of (20000, 10)): one accumulator, no merging */    \
        v[0] = _mm256_loadu_si256((const __m256i *)p);                                           \
        i = 4;                                                                                   \
    } else {                                                                                     \
        for (k = 0; k < 8; k++) v[k] = _mm256_set1_epi64x((int64_t)acc);                         \
        for (; i + 32 <= n; i += 32)                                                             \
            for (k = 0; k < 8; k++) {                                                            \
                x = _mm256_loadu_si256((const __m256i *)(p + i + 4 * k));                        \
                __asm__("" : "+x"(x));                                                           \
                v[k] = TL_MM64_SEL(DIR, x, v[k], bias);                                          \
            }                                                                                    \
        for (k = 1; k < 8; k++) v[0] = TL_MM64_SEL(DIR, v[k], v[0], bias);                       \
    }                                                                                            \
    for (; i < n; i += 4) {                                                                      \
        x = _mm256_loadu_si256((const __m256i *)(p + (i + 4 <= n ? i : n - 4)));                 \
        v[0] = TL_MM64_SEL(DIR, x, v[0], bias);                                                  \
    }                                                                                            \
    memcpy(m, &v[0], 32);                                                                        \
    for (k = 0; k < 4; k++) acc = m[k] CMP acc ? m[k] : acc;                                     \
    return acc;                                                                                  \
}                                                                                                \
__attribute__((always_inline)) static inline T tl_red_##OPN##_##SFX(T acc, const T *p, npy_intp n) \
{                                                                                                \
    if (tl_host_avx512) return tl_red_##OPN##_##SFX##_avx512(acc, p, n);                         \
    if (tl_host_avx2) return tl_red_##OPN##_##SFX##_avx2(acc, p, n);                             \
    return tl_red_##OPN##_##SFX##_base(acc, p, n);                                               \
}
#else
#define TL_MM_INT64(OPN, SFX, T, CMP, DIR, BIAS) TL_MM_INT(OPN, SFX, T, CMP)
#endif
#define TL_MM_INT64_2(SFX, T, BIAS)                                                              \
    TL_MM_INT64(maximum, SFX, T, >, max, BIAS) TL_MM_INT64(minimum, SFX, T, <, min, BIAS)
TL_MM_INT64_2(u64, uint64_t, INT64_MIN) TL_MM_INT64_2(i64, int64_t, 0)

/* float16/bfloat16 maximum/minimum/fmax/fmin reductions: the element loop's result (acc =
 * FN(acc, x) left to right, on the bits) from one pass over the bits, which gcc vectorizes: whether
 * a NaN occurs, and the extreme of the other values as an int16 key in their order (-m for a
 * negative magnitude m, so -0.0 and +0.0 tie as they compare; SENT: no value). Then short scans:
 * maximum/minimum give the first NaN (acc's first), fmax/fmin skip NaNs; of equal values NumPy's
 * float16 loops keep the first, ml_dtypes' bfloat16 ones take the last (FIRST 0), which decides
 * the sign of a zero. The chosen element's bits as they are (NaN payloads kept), as the bits
 * loops (TL_LOOP_BITS16) give them; their element loop took 1.7-2.3 ns an element. */
#define TL_MM16_KEY(h) ((int)(((h) & 0x8000u) ? -(int)((h) & 0x7fffu) : (int)((h) & 0x7fffu)))
#define TL_MM16_BITS(k) ((uint16_t)((k) < 0 ? 0x8000u | (unsigned)-(k) : (unsigned)(k)))
#define TL_MM16_PASS_FN(NAME, ATTR, CMP, SENT, INF)                                              \
ATTR static int NAME(const uint16_t *p, npy_intp n, int *any_nan)                                \
{                                                                                                \
    /* (masks, not selects: gcc left a select of SENT scalar) */                                 \
    int16_t best = SENT, nan = 0;                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i++) {                                                                    \
        int16_t v = (int16_t)p[i], m = (int16_t)(v & 0x7fff), s = (int16_t)(v >> 15);            \
        int16_t isnan = (int16_t)-(int16_t)(m > (int16_t)(INF));                                 \
        int16_t k = (int16_t)((m ^ s) - s);                                                      \
        k = (int16_t)((k & ~isnan) | ((int16_t)(SENT) & isnan));                                 \
        best = k CMP best ? k : best;                                                            \
        nan |= isnan;                                                                            \
    }                                                                                            \
    *any_nan = nan != 0;                                                                         \
    return best;                                                                                 \
}
#define TL_MM16_PASS(DIR, SFX, CMP, SENT, INF)                                                   \
    TL_RT_VARIANTS(TL_MM16_PASS_FN, tl_mm16_##DIR##_##SFX, int,                                  \
                   (const uint16_t *p, npy_intp n, int *any_nan), (p, n, any_nan), CMP, SENT, INF)
TL_MM16_PASS(max, f16, >, INT16_MIN, 0x7c00u) TL_MM16_PASS(min, f16, <, INT16_MAX, 0x7c00u)
TL_MM16_PASS(max, bf16, >, INT16_MIN, 0x7f80u) TL_MM16_PASS(min, bf16, <, INT16_MAX, 0x7f80u)
#define TL_MM16_RED(OPN, SFX, DIR, CMP, SENT, INF, NANSKIP, FIRST)                               \
static uint16_t tl_red_##OPN##_##SFX(uint16_t acc, const uint16_t *p, npy_intp n)                \
{                                                                                                \
    int any_nan, k, ka, acc_nan = (acc & 0x7fffu) > (INF);                                       \
    npy_intp j;                                                                                  \
    if (n == 0) return acc;                                                                      \
    k = tl_mm16_##DIR##_##SFX(p, n, &any_nan);                                                   \
    if (!(NANSKIP) && !acc_nan && any_nan)                                                       \
        for (j = 0; ; j++) if ((p[j] & 0x7fffu) > (INF)) { acc = p[j]; acc_nan = 1; break; }     \
    if (acc_nan && (!(NANSKIP) || k == (SENT))) return acc;                                      \
    ka = acc_nan ? (SENT) : TL_MM16_KEY(acc);                                                    \
    if (k == (SENT) || (ka != (SENT) && !(k CMP ka))) k = ka;    /* acc is the extreme */        \
    if (k != 0) return TL_MM16_BITS(k);                                                          \
    /* a zero: the first or the last of the zeros, acc's first */                               \
    if (FIRST) {                                                                                 \
        if (ka == 0) return acc;                                                                 \
        for (j = 0; j < n; j++) if ((p[j] & 0x7fffu) == 0) return p[j];                          \
    } else {                                                                                     \
        for (j = n - 1; j >= 0; j--) if ((p[j] & 0x7fffu) == 0) return p[j];                     \
    }                                                                                            \
    return acc;                                                                                  \
}
TL_MM16_RED(maximum, f16, max, >, INT16_MIN, 0x7c00u, 0, 1)
TL_MM16_RED(minimum, f16, min, <, INT16_MAX, 0x7c00u, 0, 1)
TL_MM16_RED(fmax, f16, max, >, INT16_MIN, 0x7c00u, 1, 1)
TL_MM16_RED(fmin, f16, min, <, INT16_MAX, 0x7c00u, 1, 1)
TL_MM16_RED(maximum, bf16, max, >, INT16_MIN, 0x7f80u, 0, 0)
TL_MM16_RED(minimum, bf16, min, <, INT16_MAX, 0x7f80u, 0, 0)
TL_MM16_RED(fmax, bf16, max, >, INT16_MIN, 0x7f80u, 1, 0)
TL_MM16_RED(fmin, bf16, min, <, INT16_MAX, 0x7f80u, 1, 0)

/* logical_or/and/xor reductions of bool (nonzero bytes are True): early exit at the first
 * True (or) / False (and), as NumPy's; xor counts the True bytes */
static int tl_any_nonzero(const npy_bool *p, npy_intp n)
{
    npy_intp i = 0, k;
    for (; i + 256 <= n; i += 256) {
        uint64_t w[32], x = 0;
        memcpy(w, p + i, 256);
        for (k = 0; k < 32; k++) x |= w[k];
        if (x) return 1;
    }
    for (; i < n; i++) if (p[i]) return 1;
    return 0;
}
static npy_bool tl_red_logical_or_b(npy_bool acc, const npy_bool *p, npy_intp n)
{ return (npy_bool)(acc != 0 || tl_any_nonzero(p, n)); }
static npy_bool tl_red_logical_and_b(npy_bool acc, const npy_bool *p, npy_intp n)
{ return (npy_bool)(acc != 0 && (n == 0 || memchr(p, 0, (size_t)n) == NULL)); }
static npy_bool tl_red_logical_xor_b(npy_bool acc, const npy_bool *p, npy_intp n)
{
    npy_intp i;
    size_t c = acc != 0;
    for (i = 0; i < n; i++) c += p[i] != 0;
    return (npy_bool)(c & 1);
}

/* ldexp of float32/float64 by int32 or int64 exponents: AVX-512's vscalef (x * 2^e, rounded
 * once, with the multiply's FP flags: C's ldexp, and NumPy's AVX-512 loop); the exponent
 * converts to the float type exactly up to 2^24, and beyond it the result saturates (inf or 0)
 * either way */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_LDEXP_TARGET __attribute__((target("avx512f,avx512dq,avx512vl")))
TL_LDEXP_TARGET static inline __m512 tl_ldexp_E64_F32(const int64_t *e, __mmask16 live, int ce)
{
    __m512i lo = ce ? _mm512_maskz_loadu_epi64((__mmask8)live, e) : _mm512_set1_epi64(e[0]);
    __m512i hi = ce ? _mm512_maskz_loadu_epi64((__mmask8)(live >> 8), e + 8) : lo;
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtepi64_ps(lo)),
                              _mm512_cvtepi64_ps(hi), 1);
}
TL_LDEXP_TARGET static inline __m512 tl_ldexp_E32_F32(const int32_t *e, __mmask16 live, int ce)
{ return _mm512_cvtepi32_ps(ce ? _mm512_maskz_loadu_epi32(live, e) : _mm512_set1_epi32(e[0])); }
TL_LDEXP_TARGET static inline __m512d tl_ldexp_E64_F64(const int64_t *e, __mmask8 live, int ce)
{ return _mm512_cvtepi64_pd(ce ? _mm512_maskz_loadu_epi64(live, e) : _mm512_set1_epi64(e[0])); }
TL_LDEXP_TARGET static inline __m512d tl_ldexp_E32_F64(const int32_t *e, __mmask8 live, int ce)
{ return _mm512_cvtepi32_pd(ce ? _mm256_maskz_loadu_epi32(live, e) : _mm256_set1_epi32(e[0])); }
#define TL_LDEXP_AVX512(SFX, F, E, EK, V, PS, W, K, ALL)                                         \
TL_LDEXP_TARGET static void                                                                      \
tl_ldexp_##SFX##_##EK##_avx512(const F *a, int ca, const E *e, int ce, F *o, npy_intp n)         \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += W) {                                                                 \
        K live = n - i >= W ? (K)ALL : (K)((1u << (n - i)) - 1);                                 \
        V x = ca ? _mm512_maskz_loadu_##PS(live, a + i) : _mm512_set1_##PS(a[0]);                \
        V y = tl_ldexp_##EK##_##SFX(e + (ce ? i : 0), live, ce);                                 \
        _mm512_mask_storeu_##PS(o + i, live, _mm512_maskz_scalef_##PS(live, x, y));              \
    }                                                                                            \
}
TL_LDEXP_AVX512(F32, float, int64_t, E64, __m512, ps, 16, __mmask16, 0xffff)
TL_LDEXP_AVX512(F32, float, int32_t, E32, __m512, ps, 16, __mmask16, 0xffff)
TL_LDEXP_AVX512(F64, double, int64_t, E64, __m512d, pd, 8, __mmask8, 0xff)
TL_LDEXP_AVX512(F64, double, int32_t, E32, __m512d, pd, 8, __mmask8, 0xff)
#define TL_LDEXP_FAST(SFX, S, E, EK)                                                             \
    if (tl_host_avx512 && st[2] == (npy_intp)sizeof(S) && (st[0] == 0 || st[0] == (npy_intp)sizeof(S)) \
            && (st[1] == 0 || st[1] == (npy_intp)sizeof(E)) && (st[0] | st[1]) != 0              \
            && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])                             \
            && !tl_feedback(data[1], st[1], data[2], st[2], dims[0])) {                          \
        (void)ctx; (void)aux;                                                                    \
        tl_ldexp_##SFX##_##EK##_avx512((const S *)data[0], st[0] != 0, (const E *)data[1],       \
                                       st[1] != 0, (S *)data[2], dims[0]);                       \
        return 0;                                                                                \
    }
#else
#define TL_LDEXP_FAST(SFX, S, E, EK)
#endif
/* SFX: F32/F64; E: the exponent's C type, EK: E32/E64 */
#define TL_LOOP2_LDEXP(NAME, SFX, S, E, EK, FN)                                                  \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    TL_LDEXP_FAST(SFX, S, E, EK)                                                                 \
    { TL_LOOP2_BODY(S, E, S, TL_LD_id, TL_LD_id, TL_ST_id, FN) }                                 \
}

/* complex multiply, AVX-512 and AVX2 (NumPy's SIMD loops on either): per element the scalar
 * tl_multiply's operations (re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br): the rounded
 * products ai*bi / ai*br, then one fmaddsub), hence its FP flags and NumPy's bits (fmaddsub
 * keeps a NaN's sign where the portable -(ai*bi) flips it); scalar (stride 0) operands
 * broadcast; cb TL_CMUL_SQUARE_OF_A: b is a, read once (square). AVX-512 only: ca/cb
 * TL_CMUL_REAL: a contiguous real operand, its values put in the real lanes and +0.0 in the
 * imaginary ones in registers (what the complex blocks of TL_LOOP_BLOCKED_CPLX hold). The AVX-512
 * tail runs masked (idle lanes raise nothing); the AVX2 one in one vector padded with copies of
 * its first element. */
#define TL_CMUL_SQUARE_OF_A 2
#define TL_CMUL_REAL 3
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CMUL_AVX512(SFX, F, V, PS, W, K, SWAP, DUPLO, DUPHI, BCAST, RWIDEN, RWIDEN_FULL)      \
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline void                    \
tl_cmul_##SFX##_avx512_mode(const F *a, const int ca, const F *b, const int cb, F *o, npy_intp n) \
{                                                                                                \
    npy_intp i, m = 2 * n;                         /* scalars: re, im interleaved */             \
    const V sa = ca ? _mm512_setzero_##PS() : BCAST(a), sb = cb ? _mm512_setzero_##PS() : BCAST(b); \
    for (i = 0; i + W <= m; i += W) {                                                            \
        V x = ca == TL_CMUL_REAL ? RWIDEN_FULL(a + i / 2) : ca ? _mm512_loadu_##PS(a + i) : sa;  \
        V y = cb == TL_CMUL_SQUARE_OF_A ? x : cb == TL_CMUL_REAL ? RWIDEN_FULL(b + i / 2)        \
              : cb ? _mm512_loadu_##PS(b + i) : sb;                                              \
        V p = _mm512_mul_##PS(DUPHI(x), SWAP(y));                                                \
        _mm512_storeu_##PS(o + i, _mm512_fmaddsub_##PS(DUPLO(x), y, p));                         \
    }                                                                                            \
    if (i < m) {                                                                                 \
        K live = (K)((1u << (m - i)) - 1), half = (K)((1u << (m - i) / 2) - 1);                  \
        V x = ca == TL_CMUL_REAL ? RWIDEN(a + i / 2, half)                                       \
              : ca ? _mm512_maskz_loadu_##PS(live, a + i) : sa;                                  \
        V y = cb == TL_CMUL_SQUARE_OF_A ? x : cb == TL_CMUL_REAL ? RWIDEN(b + i / 2, half)      \
              : cb ? _mm512_maskz_loadu_##PS(live, b + i) : sb;                                  \
        V p = _mm512_maskz_mul_##PS(live, DUPHI(x), SWAP(y));                                    \
        _mm512_mask_storeu_##PS(o + i, live, _mm512_maskz_fmaddsub_##PS(live, DUPLO(x), y, p));  \
    }                                                                                            \
}                                                                                                \
__attribute__((target("avx512f,avx512dq"))) static void                                          \
tl_cmul_##SFX##_avx512(const F *a, int ca, const F *b, int cb, F *o, npy_intp n)                 \
{                                                                                                \
    switch (ca * 4 + cb) {         /* (the modes as constants: a loop without their tests) */    \
    case 1 * 4 + 1: tl_cmul_##SFX##_avx512_mode(a, 1, b, 1, o, n); break;                        \
    case 1 * 4 + TL_CMUL_REAL: tl_cmul_##SFX##_avx512_mode(a, 1, b, TL_CMUL_REAL, o, n); break;  \
    case TL_CMUL_REAL * 4 + 1: tl_cmul_##SFX##_avx512_mode(a, TL_CMUL_REAL, b, 1, o, n); break;  \
    case 1 * 4 + TL_CMUL_SQUARE_OF_A:                                                            \
        tl_cmul_##SFX##_avx512_mode(a, 1, b, TL_CMUL_SQUARE_OF_A, o, n); break;                  \
    default: tl_cmul_##SFX##_avx512_mode(a, ca, b, cb, o, n); break;                             \
    }                                                                                            \
}
#define TL_SWAP_PS(v) _mm512_permute_ps(v, 0xB1)
#define TL_SWAP_PD(v) _mm512_permute_pd(v, 0x55)
#define TL_BCAST_C64(p) _mm512_castpd_ps(_mm512_set1_pd(*(const double *)(const void *)(p)))
#define TL_BCAST_C128(p) _mm512_broadcast_f64x2(_mm_loadu_pd(p))
/* W / 2 real values at p (mask k) as (x, +0.0) pairs */
#define TL_RWIDEN_PS(p, k) _mm512_maskz_permutexvar_ps((__mmask16)0x5555,                        \
    _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0), _mm512_maskz_loadu_ps(k, p))
#define TL_RWIDEN_PD(p, k) _mm512_maskz_permutexvar_pd((__mmask8)0x55,                           \
    _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), _mm512_maskz_loadu_pd(k, p))
/* ... all W / 2 of them: float32 bits zero-extended to 64 (vpmovzxdq from memory) */
#define TL_RWIDEN_FULL_PS(p) _mm512_castsi512_ps(_mm512_cvtepu32_epi64(                          \
    _mm256_loadu_si256((const __m256i *)(const void *)(p))))
#define TL_RWIDEN_FULL_PD(p) _mm512_maskz_permutexvar_pd((__mmask8)0x55,                         \
    _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), _mm512_castpd256_pd512(_mm256_loadu_pd(p)))
TL_CMUL_AVX512(c64, float, __m512, ps, 16, __mmask16, TL_SWAP_PS, _mm512_moveldup_ps,
               _mm512_movehdup_ps, TL_BCAST_C64, TL_RWIDEN_PS, TL_RWIDEN_FULL_PS)
#define TL_DUPHI_PD(v) _mm512_permute_pd(v, 0xFF)
TL_CMUL_AVX512(c128, double, __m512d, pd, 8, __mmask8, TL_SWAP_PD, _mm512_movedup_pd,
               TL_DUPHI_PD, TL_BCAST_C128, TL_RWIDEN_PD, TL_RWIDEN_FULL_PD)
#define TL_CMUL_AVX2(SFX, F, V, PS, W, SWAP, DUPLO, DUPHI, BCAST)                                \
__attribute__((target("avx2,fma"))) static void                                                  \
tl_cmul_##SFX##_avx2(const F *a, int ca, const F *b, int cb, F *o, npy_intp n)                   \
{                                                                                                \
    npy_intp i, k, m = 2 * n;                      /* scalars: re, im interleaved */             \
    const V sa = BCAST(a), sb = BCAST(b);                                                        \
    F ta[W], tb[W], to[W];                                                                       \
    for (i = 0; i + 2 * W <= m; i += 2 * W) {    /* two vectors a step, as NumPy's loop */       \
        V x0 = ca ? _mm256_loadu_##PS(a + i) : sa, x1 = ca ? _mm256_loadu_##PS(a + i + W) : sa;  \
        V y0 = cb == TL_CMUL_SQUARE_OF_A ? x0 : cb ? _mm256_loadu_##PS(b + i) : sb;              \
        V y1 = cb == TL_CMUL_SQUARE_OF_A ? x1 : cb ? _mm256_loadu_##PS(b + i + W) : sb;          \
        V p0 = _mm256_mul_##PS(DUPHI(x0), SWAP(y0)), p1 = _mm256_mul_##PS(DUPHI(x1), SWAP(y1));  \
        _mm256_storeu_##PS(o + i, _mm256_fmaddsub_##PS(DUPLO(x0), y0, p0));                     \
        _mm256_storeu_##PS(o + i + W, _mm256_fmaddsub_##PS(DUPLO(x1), y1, p1));                 \
    }                                                                                            \
    for (; i + W <= m; i += W) {                                                                 \
        V x = ca ? _mm256_loadu_##PS(a + i) : sa;                                                \
        V y = cb == TL_CMUL_SQUARE_OF_A ? x : cb ? _mm256_loadu_##PS(b + i) : sb;                \
        V p = _mm256_mul_##PS(DUPHI(x), SWAP(y));                                                \
        _mm256_storeu_##PS(o + i, _mm256_fmaddsub_##PS(DUPLO(x), y, p));                        \
    }                                                                                            \
    if (i == m) return;                                                                          \
    for (k = 0; k < W; k++) {                                                                    \
        npy_intp j = i + k < m ? i + k : i + (k & 1);                                            \
        ta[k] = ca ? a[j] : a[k & 1];                                                            \
        tb[k] = cb ? b[j] : b[k & 1];                                                            \
    }                                                                                            \
    {                                                                                            \
        V x = _mm256_loadu_##PS(ta), y = _mm256_loadu_##PS(tb);                                 \
        V p = _mm256_mul_##PS(DUPHI(x), SWAP(y));                                                \
        _mm256_storeu_##PS(to, _mm256_fmaddsub_##PS(DUPLO(x), y, p));                           \
    }                                                                                            \
    for (k = 0; i + k < m; k++) o[i + k] = to[k];                                                \
}
#define TL_SWAP256_PS(v) _mm256_permute_ps(v, 0xB1)
#define TL_SWAP256_PD(v) _mm256_permute_pd(v, 0x5)
#define TL_DUPHI256_PD(v) _mm256_permute_pd(v, 0xF)
#define TL_BCAST256_C64(p) _mm256_castpd_ps(_mm256_set1_pd(*(const double *)(const void *)(p)))
#define TL_BCAST256_C128(p) _mm256_broadcast_pd((const __m128d *)(const void *)(p))
TL_CMUL_AVX2(c64, float, __m256, ps, 8, TL_SWAP256_PS, _mm256_moveldup_ps, _mm256_movehdup_ps,
             TL_BCAST256_C64)
TL_CMUL_AVX2(c128, double, __m256d, pd, 4, TL_SWAP256_PD, _mm256_movedup_pd, TL_DUPHI256_PD,
             TL_BCAST256_C128)
/* (a complex loop's call the vector kernels take: a contiguous output, each operand contiguous or
 * a broadcast scalar, not both scalars, no output fed back into an input) */
#define TL_CPLX_KERNEL_SHAPE(S)                                                                  \
    (st[2] == (npy_intp)sizeof(S) && (st[0] == 0 || st[0] == (npy_intp)sizeof(S))               \
     && (st[1] == 0 || st[1] == (npy_intp)sizeof(S)) && (st[0] | st[1]) != 0                     \
     && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])                                    \
     && !tl_feedback(data[1], st[1], data[2], st[2], dims[0]))
#define TL_CMUL_FAST(SFX, S, F)                                                                  \
    if (tl_host_avx2 && TL_CPLX_KERNEL_SHAPE(S)) {                                               \
        (void)ctx; (void)aux;                                                                    \
        (tl_host_avx512 ? tl_cmul_##SFX##_avx512 : tl_cmul_##SFX##_avx2)(                       \
            (const F *)data[0], st[0] != 0, (const F *)data[1], st[1] != 0, (F *)data[2], dims[0]); \
        return 0;                                                                                \
    }
#else
#define TL_CMUL_FAST(SFX, S, F)
#endif
/* (in clones: the x86-64-v3/v4 ones run the element function's fma() as an instruction, where the
 * baseline calls libm's, twice an element: accumulate's chain, complex128 multiply.accumulate
 * 8.4 ns an element, 1.7x NumPy's time; the same bits) */
#define TL_LOOP2_CMUL(NAME, SFX, S, F, FN)                                                       \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    TL_BY_BLOCKS(NAME, S, S, S)                                                                  \
    TL_CMUL_FAST(SFX, S, F)                                                                      \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* complex divide: contiguous or broadcast operands through tl_vcdiv_* on AVX-512 CPUs, others
 * (and reductions) the element loop, not vectorized (gcc's vectorized branches raised flags
 * of the branch a lane does not take) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CDIV_FAST(SFX, S, F)                                                                  \
    if (tl_host_avx512 && TL_CPLX_KERNEL_SHAPE(S)) {                                             \
        (void)ctx; (void)aux;                                                                    \
        tl_vcdiv_##SFX##_avx512((const F *)data[0], st[0] != 0, (const F *)data[1], st[1] != 0,  \
                                (F *)data[2], dims[0]);                                          \
        return 0;                                                                                \
    }
#else
#define TL_CDIV_FAST(SFX, S, F)
#endif
#define TL_LOOP2_CDIV(NAME, SFX, S, F, FN)                                                       \
TL_NO_VECTORIZE TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                     \
{                                                                                                \
    TL_BY_BLOCKS(NAME, S, S, S)                                                                  \
    TL_CDIV_FAST(SFX, S, F)                                                                      \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* complex square (tl_square_c*: tl_multiply_c*(x, x)) and conjugate (the sign bit of each
 * imaginary part flipped, as -x.im does) of contiguous data: the complex multiply kernel with x
 * as both operands, and an XOR of each element's bits, which gcc vectorizes without shuffles;
 * gcc left the element loops on the structs at 1.7-1.9x NumPy's time. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CSQUARE_KERNEL(SFX, F, a, o, n)                                                       \
    if (tl_host_avx2) {                                                                          \
        (tl_host_avx512 ? tl_cmul_##SFX##_avx512 : tl_cmul_##SFX##_avx2)(                       \
            (const F *)(const void *)(a), 1, (const F *)(const void *)(a), TL_CMUL_SQUARE_OF_A,  \
            (F *)(void *)(o), n);                                                                \
        return;                                                                                  \
    }
#else
#define TL_CSQUARE_KERNEL(SFX, F, a, o, n)
#endif
#define TL_VCOMPLEX_UN(SFX, S, F)                                                                \
static void tl_vsquare_##SFX(const S *a, S *o, npy_intp n)                                       \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (n <= 0) return;                            /* (the kernel reads a[0] for broadcasts) */  \
    TL_CSQUARE_KERNEL(SFX, F, a, o, n)                                                           \
    for (i = 0; i < n; i++) o[i] = tl_square_##SFX(a[i], NULL);                                  \
}                                                                                                \
TL_LOOP_CLONES static void tl_vconjugate_##SFX(const S *a, S *o, npy_intp n)                     \
{                                                                                                \
    enum { K = 32 / sizeof(S) };                                                                 \
    S mz[K];                                     /* XOR with its bits: the imaginary sign bits */ \
    tl_u64x4 m, v;                                                                               \
    npy_intp i;                                                                                  \
    int k;                                                                                       \
    for (k = 0; k < K; k++) { mz[k].re = (F)0; mz[k].im = -(F)0; }                               \
    memcpy(&m, mz, sizeof m);                                                                    \
    for (i = 0; i + K <= n; i += K) {                                                            \
        memcpy(&v, a + i, sizeof v);                                                             \
        v ^= m;                                                                                  \
        memcpy(o + i, &v, sizeof v);                                                             \
    }                                                                                            \
    for (; i < n; i++) {                                                                         \
        v = m;                                                       /* (its other bytes) */      \
        memcpy(&v, a + i, sizeof(S));                                                            \
        v ^= m;                                                                                  \
        memcpy(o + i, &v, sizeof(S));                                                            \
    }                                                                                            \
}
/* (32 bytes a step, in a vector type: element by element gcc shuffled the parts of complex64
 * apart as 32-bit words, and kept complex128 in 16-byte steps) */
typedef uint64_t tl_u64x4 __attribute__((vector_size(32)));
TL_VCOMPLEX_UN(c64, tl_c64, float)
TL_VCOMPLEX_UN(c128, tl_c128, double)

/* floor_divide / remainder of 8- to 32-bit integers by one divisor d (not 0, and not -1 for a
 * signed type) as a multiply by a magic number (Granlund and Montgomery, "Division by invariant
 * integers using multiplication", 1994: figure 4.1 unsigned; 5.2 signed truncation, then the
 * floor's fix-up), as NumPy's loops for a scalar divisor do (libdivide): the division through a
 * float type below took 2.3-7x their time. The N-bit magic: m, shifts s1/s2 (unsigned, and
 * signed by a positive d: floor(x / d) = (u / d) ^ s with s = x >> (N-1), u = x ^ s, half the
 * steps of the signed method), or sm, shift sh, dsign (signed, negative d). */
typedef struct { uint32_t m; int s1, s2; int32_t sm, dsign; int sh; } tl_divc_magic;
static inline tl_divc_magic tl_divc_magic_make(int64_t d, int bits, int is_signed)
{
    tl_divc_magic g = {0, 0, 0, 0, 0, 0};
    uint32_t ad = (uint32_t)(d < 0 ? -d : d);
    int l = ad == 1 ? 0 : 32 - __builtin_clz(ad - 1);        /* ceil(log2 |d|) */
    g.m = (uint32_t)(((uint64_t)1 << bits) * (((uint64_t)1 << l) - ad) / ad + 1);
    g.s1 = l < 1 ? l : 1;
    g.s2 = l > 1 ? l - 1 : 0;
    if (is_signed) {
        if (l < 1) l = 1;
        g.sm = (int32_t)(uint32_t)(1 + ((uint64_t)1 << (bits + l - 1)) / ad - ((uint64_t)1 << bits));
        g.sh = l - 1;
        g.dsign = d < 0 ? -1 : 0;
    }
    return g;
}
/* x // d (or x % d) of one element by the magic g: in the work type V (unsigned VU; 16 bits
 * for 8-bit T), the products in the 2N-bit types W / UW (8 bits: in V, where they fit, so that
 * gcc's vector code multiplies 16-bit lanes) */
#define TL_DIVC_HI(V, W, N, x, m) ((N) == 8 ? (V)((V)((x) * (V)(m)) >> 8) : (V)(((W)(x) * (m)) >> (N)))
#define TL_DIVC_U(T, V, UW, N, X, D, G, REM)                                                     \
    ({ V x_ = (V)(X), t_ = TL_DIVC_HI(V, UW, N, x_, (V)(G).m);                                   \
       V q_ = (V)((V)(t_ + (V)((V)(x_ - t_) >> (G).s1)) >> (G).s2);                               \
       (T)(REM ? (V)(x_ - (V)(q_ * (V)(D))) : q_); })
#define TL_DIVC_S(T, V, VU, W, N, X, D, G, REM)                                                  \
    ({ V x_ = (V)(X), d_ = (V)(D), q_ = (V)(x_ + TL_DIVC_HI(V, W, N, x_, (V)(G).sm)), r_, f_;    \
       q_ = (V)((V)(q_ >> (G).sh) - (V)(x_ >> ((N) - 1)));                                       \
       q_ = (V)((V)(q_ ^ (V)(G).dsign) - (V)(G).dsign);           /* trunc(x / d) */             \
       r_ = (V)((VU)x_ - (VU)q_ * (VU)d_);                                                       \
       f_ = (V)((r_ != 0) & ((V)(r_ ^ d_) < 0));                  /* floor: one less */          \
       (T)(REM ? (V)(r_ + (V)(d_ & (V)-f_)) : (V)(q_ - f_)); })
#define TL_DIVC_SP(T, V, VU, UW, N, X, D, G, REM)                                                \
    ({ V x_ = (V)(X), s_ = (V)(x_ >> ((N) - 1));                                                 \
       VU u_ = (VU)(x_ ^ s_), t_ = TL_DIVC_HI(VU, UW, N, u_, (VU)(G).m);                         \
       VU q_ = (VU)((VU)(t_ + (VU)((VU)(u_ - t_) >> (G).s1)) >> (G).s2);                          \
       (T)(REM ? (V)((V)((VU)(u_ - (VU)(q_ * (VU)(D))) ^ s_) + (V)((V)(D) & s_))                 \
               : (V)((V)q_ ^ s_)); })
/* the portable loops (x86: the tails of the AVX2 ones, and CPUs without AVX2) */
#define TL_IDIVC_FN(NAME, T, V, VU, W, UW, N, SIGNED)                                            \
static void NAME(const T *a, T d, T *o, npy_intp n, int rem)                                     \
{                                                                                                \
    const tl_divc_magic g = tl_divc_magic_make((int64_t)d, N, SIGNED);                           \
    npy_intp i;                                                                                  \
    if (SIGNED && d > 0 && rem)                                                                  \
        for (i = 0; i < n; i++) o[i] = TL_DIVC_SP(T, V, VU, UW, N, a[i], d, g, 1);               \
    else if (SIGNED && d > 0)                                                                    \
        for (i = 0; i < n; i++) o[i] = TL_DIVC_SP(T, V, VU, UW, N, a[i], d, g, 0);               \
    else if (SIGNED && rem) for (i = 0; i < n; i++) o[i] = TL_DIVC_S(T, V, VU, W, N, a[i], d, g, 1); \
    else if (SIGNED) for (i = 0; i < n; i++) o[i] = TL_DIVC_S(T, V, VU, W, N, a[i], d, g, 0);    \
    else if (rem) for (i = 0; i < n; i++) o[i] = TL_DIVC_U(T, V, UW, N, a[i], d, g, 1);          \
    else for (i = 0; i < n; i++) o[i] = TL_DIVC_U(T, V, UW, N, a[i], d, g, 0);                   \
}
TL_IDIVC_FN(tl_idivc_i8_c, int8_t, int16_t, uint16_t, int32_t, uint32_t, 8, 1)
TL_IDIVC_FN(tl_idivc_u8_c, uint8_t, uint16_t, uint16_t, int32_t, uint32_t, 8, 0)
TL_IDIVC_FN(tl_idivc_i16_c, int16_t, int16_t, uint16_t, int32_t, uint32_t, 16, 1)
TL_IDIVC_FN(tl_idivc_u16_c, uint16_t, uint16_t, uint16_t, int32_t, uint32_t, 16, 0)
TL_IDIVC_FN(tl_idivc_i32_c, int32_t, int32_t, uint32_t, int64_t, uint64_t, 32, 1)
TL_IDIVC_FN(tl_idivc_u32_c, uint32_t, uint32_t, uint32_t, int64_t, uint64_t, 32, 0)
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* AVX2, in intrinsics: gcc multiplied 16-bit lanes by a magic number known only at run time in
 * 32-bit lanes (2-3x NumPy's time), and made of the 32-bit high products 4x the work of the
 * even/odd lane multiplies. One vector by kind K (0: unsigned, 1: signed by d > 0, 2: signed by
 * d < 0), REM: remainder; 16-bit lanes (8-bit types widened: the products fit 16 bits) or 32. */
#define TL_MULHI32_AVX2(MUL, x, m)                                                               \
    _mm256_blend_epi32(_mm256_srli_epi64(MUL(x, m), 32), MUL(_mm256_srli_epi64(x, 32), m), 0xAA)
#define TL_DIVC_AVX2_STEP(W, BITS, K, REM, x, vm, vd, vs, s1, s2, sh, OUT)                        \
    { __m256i sx_, u_, t_, q_, r_, f_;                                                           \
      if ((K) == 2) {                                                                            \
          q_ = _mm256_add_epi##W(x, TL_DIVC_HIS_##W(BITS, x, vm));                               \
          q_ = _mm256_sub_epi##W(_mm256_sra_epi##W(q_, sh), _mm256_srai_epi##W(x, W - 1));       \
          q_ = _mm256_sub_epi##W(_mm256_xor_si256(q_, vs), vs);                                  \
          r_ = _mm256_sub_epi##W(x, _mm256_mullo_epi##W(q_, vd));                                \
          f_ = _mm256_andnot_si256(_mm256_cmpeq_epi##W(r_, _mm256_setzero_si256()),             \
                                   _mm256_srai_epi##W(_mm256_xor_si256(r_, vd), W - 1));         \
          OUT = REM ? _mm256_add_epi##W(r_, _mm256_and_si256(vd, f_)) : _mm256_add_epi##W(q_, f_); \
      } else {                                                                                   \
          sx_ = (K) == 1 ? _mm256_srai_epi##W(x, W - 1) : _mm256_setzero_si256();               \
          u_ = _mm256_xor_si256(x, sx_);                                                         \
          t_ = TL_DIVC_HIU_##W(BITS, u_, vm);                                                    \
          q_ = _mm256_srl_epi##W(_mm256_add_epi##W(t_, _mm256_srl_epi##W(_mm256_sub_epi##W(u_, t_), s1)), s2); \
          if (REM) q_ = _mm256_add_epi##W(_mm256_xor_si256(_mm256_sub_epi##W(u_, _mm256_mullo_epi##W(q_, vd)), sx_), \
                                          _mm256_and_si256(vd, sx_));                            \
          else q_ = _mm256_xor_si256(q_, sx_);                                                   \
          OUT = q_;                                                                              \
      } }
/* (unsigned 8-bit lanes run TL_DIVC_AVX2_STEP8, so only the 16-bit types come here) */
#define TL_DIVC_HIU_16(BITS, x, m) _mm256_mulhi_epu16(x, m)
#define TL_DIVC_HIS_16(BITS, x, m) \
    ((BITS) == 8 ? _mm256_srai_epi16(_mm256_mullo_epi16(x, m), 8) : _mm256_mulhi_epi16(x, m))
#define TL_DIVC_HIU_32(BITS, x, m) TL_MULHI32_AVX2(_mm256_mul_epu32, x, m)
#define TL_DIVC_HIS_32(BITS, x, m) TL_MULHI32_AVX2(_mm256_mul_epi32, x, m)
/* 8-bit lanes (K 0 and 1), as NumPy's npyv_divide_u8: the high bytes of the products of the even
 * and odd bytes, 16-bit multiplies; byte shifts as 16-bit ones masked (m1, m2: 0xff >> s1, s2) */
#define TL_MUL8_AVX2(x, m, lo8, SH)                                                              \
    _mm256_or_si256(_mm256_srli_epi16(_mm256_mullo_epi16(_mm256_and_si256(x, lo8), m), SH),      \
                    _mm256_andnot_si256(lo8, _mm256_mullo_epi16(_mm256_srli_epi16(x, 8), m)))
#define TL_DIVC_AVX2_STEP8(K, REM, x, vm, vd, vdb, s1, s2, m1, m2, OUT)                           \
    { const __m256i lo8_ = _mm256_set1_epi16(0xff);                                              \
      __m256i sx_ = (K) == 1 ? _mm256_cmpgt_epi8(_mm256_setzero_si256(), x) : _mm256_setzero_si256(); \
      __m256i u_ = _mm256_xor_si256(x, sx_), t_, q_, p_;                                         \
      t_ = TL_MUL8_AVX2(u_, vm, lo8_, 8);                                                        \
      q_ = _mm256_and_si256(_mm256_srl_epi16(_mm256_sub_epi8(u_, t_), s1), m1);                  \
      q_ = _mm256_and_si256(_mm256_srl_epi16(_mm256_add_epi8(t_, q_), s2), m2);                  \
      if (REM) {                      /* the low bytes of q * d: the same two multiplies */      \
          p_ = _mm256_or_si256(_mm256_and_si256(_mm256_mullo_epi16(q_, vd), lo8_),               \
                               _mm256_slli_epi16(_mm256_mullo_epi16(_mm256_srli_epi16(q_, 8), vd), 8)); \
          q_ = _mm256_add_epi8(_mm256_xor_si256(_mm256_sub_epi8(u_, p_), sx_), _mm256_and_si256(vdb, sx_)); \
      } else q_ = _mm256_xor_si256(q_, sx_);                                                     \
      OUT = q_; }
/* 32 bytes of T: 8-bit types by a negative d in two halves widened to 16-bit lanes */
#define TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, K, REM)                                            \
    for (; i + 32 / (npy_intp)sizeof(T) <= n; i += 32 / (npy_intp)sizeof(T)) {                   \
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + i)), r;               \
        if ((BITS) == 8 && (K) != 2) {                                                           \
            TL_DIVC_AVX2_STEP8(K, REM, v, vm8, vd8, vdb, s1, s2, m1, m2, r)                       \
        } else if ((BITS) == 8) {                                                                \
            __m128i l8 = _mm256_castsi256_si128(v), h8 = _mm256_extracti128_si256(v, 1);         \
            __m256i lo = SIGNED ? _mm256_cvtepi8_epi16(l8) : _mm256_cvtepu8_epi16(l8);          \
            __m256i hi = SIGNED ? _mm256_cvtepi8_epi16(h8) : _mm256_cvtepu8_epi16(h8);          \
            TL_DIVC_AVX2_STEP(16, 8, K, REM, lo, vm, vd, vs, s1, s2, sh, lo)                     \
            TL_DIVC_AVX2_STEP(16, 8, K, REM, hi, vm, vd, vs, s1, s2, sh, hi)                     \
            r = _mm256_permute4x64_epi64(SIGNED ? _mm256_packs_epi16(lo, hi)                     \
                                                : _mm256_packus_epi16(lo, hi), 0xD8);            \
        } else {                                                                                 \
            TL_DIVC_AVX2_STEP(W, BITS, K, REM, v, vm, vd, vs, s1, s2, sh, r)                     \
        }                                                                                        \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), r);                                      \
    }
#define TL_DIVC_AVX2(SFX, T, W, BITS, SIGNED)                                                    \
__attribute__((target("avx2"))) static void tl_idivc_##SFX##_avx2(const T *a, T d, T *o,          \
                                                                    npy_intp n, int rem)         \
{                                                                                                \
    const tl_divc_magic g = tl_divc_magic_make((int64_t)d, BITS, SIGNED);                        \
    const int k = !(SIGNED) ? 0 : d > 0 ? 1 : 2;                                                 \
    const __m256i vm = _mm256_set1_epi##W(k == 2 ? g.sm : (int32_t)g.m);                         \
    const __m256i vd = _mm256_set1_epi##W(d), vs = _mm256_set1_epi##W(g.dsign);                  \
    const __m128i s1 = _mm_cvtsi32_si128(g.s1), s2 = _mm_cvtsi32_si128(g.s2);                    \
    const __m128i sh = _mm_cvtsi32_si128(g.sh);                                                  \
    /* (8-bit lanes: d and m in the low byte of each 16-bit lane) */                             \
    const __m256i vm8 = _mm256_set1_epi16((short)(g.m & 0xff)), vd8 = _mm256_set1_epi16((short)(uint8_t)d); \
    const __m256i m1 = _mm256_set1_epi8((char)(0xff >> g.s1)), m2 = _mm256_set1_epi8((char)(0xff >> g.s2)); \
    const __m256i vdb = _mm256_set1_epi8((char)d);                                               \
    npy_intp i = 0;                                                                              \
    (void)vm8; (void)vd8; (void)vdb; (void)m1; (void)m2;                                         \
    if (k == 0 && rem) { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 0, 1) }                           \
    else if (k == 0) { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 0, 0) }                             \
    else if (k == 1 && rem) { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 1, 1) }                      \
    else if (k == 1) { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 1, 0) }                             \
    else if (rem) { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 2, 1) }                                \
    else { TL_DIVC_AVX2_LOOP(T, W, BITS, SIGNED, 2, 0) }                                         \
    if (i < n) tl_idivc_##SFX##_c(a + i, d, o + i, n - i, rem);                                  \
}
TL_DIVC_AVX2(i8, int8_t, 16, 8, 1) TL_DIVC_AVX2(u8, uint8_t, 16, 8, 0)
TL_DIVC_AVX2(i16, int16_t, 16, 16, 1) TL_DIVC_AVX2(u16, uint16_t, 16, 16, 0)
TL_DIVC_AVX2(i32, int32_t, 32, 32, 1) TL_DIVC_AVX2(u32, uint32_t, 32, 32, 0)
#define TL_DIVC_PICK(SFX) if (tl_host_avx2) { tl_idivc_##SFX##_avx2(a, d, o, n, rem); return; }
#else
#define TL_DIVC_PICK(SFX)
#endif
#define TL_IDIVC(SFX, T)                                                                         \
static void tl_idivc_##SFX(const T *a, T d, T *o, npy_intp n, int rem)                           \
{ TL_DIVC_PICK(SFX) tl_idivc_##SFX##_c(a, d, o, n, rem); }
TL_IDIVC(i8, int8_t) TL_IDIVC(u8, uint8_t) TL_IDIVC(i16, int16_t) TL_IDIVC(u16, uint16_t)
TL_IDIVC(i32, int32_t) TL_IDIVC(u32, uint32_t)

/* floor_divide / remainder of 8- to 32-bit integers through a float type D (float32 up to 16
 * bits, float64 for 32): floor(a / b) is exact there (|a/b - k| >= 1/|b| exceeds half an ulp of
 * the quotient); a - q*b in uint32 arithmetic (exact: it wraps and the result fits). The element
 * function's special pairs, vectorized: a zero divisor gives 0 (divide-by-zero flag), MIN // -1
 * gives MIN (overflow flag; its remainder 0, no flag), both computed as a / 1. Returns those
 * flags. Every conversion goes through int32, the one AVX2 has, and floor is the truncation
 * less (t > a/b); uint32 (BIAS) instead through the bits of 2^52 + v, a double whose low
 * mantissa bits hold v, both ways (through int32 with a 2^31 offset: 1.7x the time). gcc 12
 * vectorizes neither floor() without -fno-trapping-math nor uint8 -> float, and left these
 * loops scalar (uint8 remainder: 1.4x NumPy's time; through int64, uint32's: 1.2x). */
#define TL_IDIV_ONE(T, D, BIAS, REM, X, Y, OUT)                                                  \
    { uint32_t q;                                                                                \
      if (BIAS) {                                                                                \
          uint64_t xb_ = 0x4330000000000000u | (uint32_t)(X);                                    \
          uint64_t yb_ = 0x4330000000000000u | (uint32_t)(Y), rb_;                               \
          double x, y, f, r;                                                                     \
          memcpy(&x, &xb_, 8); memcpy(&y, &yb_, 8);                                              \
          f = (x - 0x1p52) / (y - 0x1p52);                                                       \
          r = f + 0x1p52;                   /* round(f) in its low mantissa bits */              \
          memcpy(&rb_, &r, 8);                                                                   \
          q = (uint32_t)rb_ - (uint32_t)(r - 0x1p52 > f);                                        \
      } else {                                                                                   \
          D x = (D)(int32_t)(X), y = (D)(int32_t)(Y);                                            \
          D f = x / y;                                                                           \
          int32_t t = (int32_t)f;                                                                \
          q = (uint32_t)(t - (int32_t)((D)t > f));                                               \
      }                                                                                          \
      OUT = (T)(REM ? (uint32_t)(X) - q * (uint32_t)(Y) : q); }
#define TL_IDIV_PAIRS(T, D, BIAS, MIN, REM, X, Y)                                                \
    for (i = 0; i < n; i++) {                                                                    \
        zero |= (Y) == 0;                                                                        \
        ovf |= ((MIN) != 0) & ((T)((Y) + 1) == 0) & ((X) == (T)(MIN));                           \
    }                                                                                            \
    if (!(zero | ovf)) {                                                                         \
        for (i = 0; i < n; i++) TL_IDIV_ONE(T, D, BIAS, REM, X, Y, o[i])                         \
    } else {            /* (bit selects: gcc left the loop scalar with ?: around a division) */  \
        for (i = 0; i < n; i++) {                                                                \
            T y0 = (Y), r;                                                                       \
            T z = (T)((T)0 - (T)(y0 == 0));                                                      \
            T one = (T)(z | (T)((T)0 - (T)(((MIN) != 0) & ((T)(y0 + 1) == 0)                    \
                                           & ((X) == (T)(MIN)))));                               \
            TL_IDIV_ONE(T, D, BIAS, REM, X, (T)((y0 & (T)~one) | (one & (T)1)), r)               \
            o[i] = (T)(r & (T)~z);                                                               \
        }                                                                                        \
    }
#define TL_IDIV_FN(NAME, ATTR, T, D, BIAS, MIN, REM, CFN)                                        \
ATTR static unsigned NAME(const T *a, int ca, const T *b, int cb, T *o, npy_intp n)              \
{                                                                                                \
    npy_intp i;                                                                                  \
    int zero = 0, ovf = 0;                                                                       \
    if (ca && cb) {                                                                              \
        TL_IDIV_PAIRS(T, D, BIAS, MIN, REM, a[i], b[i])                                          \
    } else if (ca && b[0] != 0 && !((MIN) != 0 && (T)(b[0] + 1) == 0)) {                         \
        CFN(a, b[0], o, n, REM);               /* one divisor: its magic number */              \
    } else if (ca) {                                                                             \
        TL_IDIV_PAIRS(T, D, BIAS, MIN, REM, a[i], b[0])                                          \
    } else {                                                                                     \
        TL_IDIV_PAIRS(T, D, BIAS, MIN, REM, a[0], b[i])                                          \
    }                                                                                            \
    return (zero ? TL_FPE_DIVBYZERO : 0u) | (ovf && !(REM) ? TL_FPE_OVERFLOW : 0u);              \
}
#define TL_IDIV(OPN, SFX, T, D, BIAS, MIN, REM)                                                  \
    TL_RT_VARIANTS(TL_IDIV_FN, tl_idiv_##OPN##_##SFX, unsigned,                                  \
                   (const T *a, int ca, const T *b, int cb, T *o, npy_intp n),                   \
                   (a, ca, b, cb, o, n), T, D, BIAS, MIN, REM, tl_idivc_##SFX)
#define TL_IDIV2(SFX, T, D, BIAS, MIN) TL_IDIV(floor_divide, SFX, T, D, BIAS, MIN, 0)            \
    TL_IDIV(remainder, SFX, T, D, BIAS, MIN, 1)
TL_IDIV2(i8, int8_t, float, 0, INT8_MIN) TL_IDIV2(i16, int16_t, float, 0, INT16_MIN)
TL_IDIV2(i32, int32_t, double, 0, INT32_MIN) TL_IDIV2(u8, uint8_t, float, 0, 0)
TL_IDIV2(u16, uint16_t, float, 0, 0) TL_IDIV2(u32, uint32_t, double, 1, 0)
/* ... and of 64-bit integers, a block at a time: where every operand lies within 2^51 of 0
 * (uint64: below 2^52) and no divisor is 0, through double as above (floor(a / b) is exact for
 * |a| < 2^53; q * b and a - q * b are integers below 2^52, exact; v <-> double by the bits of
 * 1.5 * 2^52 + v, or 2^52 + v); other blocks by the element function FN (the CPU's division,
 * ~2.4 ns an element here: NumPy's loop for two arrays) */
#define TL_IDIV64_ONE(T, SIGNED, REM, X, Y, OUT)                                                 \
    { const uint64_t mb_ = SIGNED ? 0x4338000000000000u : 0x4330000000000000u;                   \
      const double m_ = SIGNED ? 0x1.8p52 : 0x1p52;                                              \
      uint64_t xb_ = (uint64_t)(X) + mb_, yb_ = (uint64_t)(Y) + mb_, ob_, c_;                    \
      double x, y, f, q, r, one_;                                                                \
      memcpy(&x, &xb_, 8); memcpy(&y, &yb_, 8);                                                  \
      x -= m_; y -= m_;                                                                          \
      f = x / y;                                                                                 \
      q = (f + m_) - m_;                                  /* f rounded to an integer */          \
      /* 1.0 where q > f, by a mask: (double)(q > f) made gcc branch, scalar */                  \
      c_ = ((uint64_t)0 - (uint64_t)(q > f)) & 0x3ff0000000000000u;                              \
      memcpy(&one_, &c_, 8);                                                                     \
      q -= one_;                                                                                 \
      r = (REM ? x - q * y : q) + m_;                                                            \
      memcpy(&ob_, &r, 8);                                                                       \
      OUT = (T)(ob_ - mb_); }
#define TL_IDIV64_PAIRS(T, SIGNED, REM, FN, X, Y)                                                \
    span = 0; zero = 0;                                                                          \
    for (i = 0; i < n; i++) {                                                                    \
        span |= ((uint64_t)(X) + off) | ((uint64_t)(Y) + off);                                   \
        zero |= (Y) == 0;                                                                        \
    }                                                                                            \
    if ((span >> 52) | (uint64_t)zero) {                                                         \
        for (i = 0; i < n; i++) o[i] = FN(X, Y, &fl);                                            \
    } else {                                                                                     \
        for (i = 0; i < n; i++) TL_IDIV64_ONE(T, SIGNED, REM, X, Y, o[i])                        \
    }
#define TL_IDIV64_FN(NAME, ATTR, T, SIGNED, REM, FN)                                             \
ATTR static unsigned NAME(const T *a, int ca, const T *b, int cb, T *o, npy_intp n)              \
{                                                                                                \
    const uint64_t off = SIGNED ? (uint64_t)1 << 51 : 0;                                         \
    uint64_t span;                                                                               \
    npy_intp i;                                                                                  \
    unsigned fl = 0;                                                                             \
    int zero;                                                                                    \
    if (ca && cb) {                                                                              \
        TL_IDIV64_PAIRS(T, SIGNED, REM, FN, a[i], b[i])                                          \
    } else if (ca) {    /* (a local: o may alias b[0], and gcc left that loop scalar) */        \
        const T y0 = b[0];                                                                       \
        TL_IDIV64_PAIRS(T, SIGNED, REM, FN, a[i], y0)                                            \
    } else {                                                                                     \
        const T x0 = a[0];                                                                       \
        TL_IDIV64_PAIRS(T, SIGNED, REM, FN, x0, b[i])                                            \
    }                                                                                            \
    return fl;                                                                                   \
}
#define TL_IDIV64(OPN, SFX, T, SIGNED, REM)                                                      \
    TL_RT_VARIANTS(TL_IDIV64_FN, tl_idiv_##OPN##_##SFX, unsigned,                                \
                   (const T *a, int ca, const T *b, int cb, T *o, npy_intp n),                   \
                   (a, ca, b, cb, o, n), T, SIGNED, REM, tl_##OPN##_##SFX)
TL_IDIV64(floor_divide, i64, int64_t, 1, 0) TL_IDIV64(remainder, i64, int64_t, 1, 1)
TL_IDIV64(floor_divide, u64, uint64_t, 0, 0) TL_IDIV64(remainder, u64, uint64_t, 0, 1)
/* the unsigned type of each width (divmod's a - q * b) */
#define TL_IDIV_UT_i8 uint32_t
#define TL_IDIV_UT_i16 uint32_t
#define TL_IDIV_UT_i32 uint32_t
#define TL_IDIV_UT_u8 uint32_t
#define TL_IDIV_UT_u16 uint32_t
#define TL_IDIV_UT_u32 uint32_t
#define TL_IDIV_UT_i64 uint64_t
#define TL_IDIV_UT_u64 uint64_t
/* divmod of integers: the quotient (and the flags) through tl_idiv_floor_divide, the remainder
 * a - q*b from it (exact: NumPy's; 0 for a zero divisor, and MIN - MIN*-1 wraps to 0);
 * for contiguous or broadcast operands; other layouts: the element function DIVFN */
#define TL_DIVMOD_R(SFX, S, AK, BK)                                                              \
    for (j = 0; j < m; j++) {                                                                    \
        k = i + j;              /* in the unsigned type: wraps as the exact result does */      \
        S rk = (S)((TL_IDIV_UT_##SFX)(AK) - (TL_IDIV_UT_##SFX)q[k] * (TL_IDIV_UT_##SFX)(BK));     \
        r[k] = (S)(rk & (S)((S)0 - (S)((BK) != 0)));                                             \
    }
#define TL_LOOP_DIVMOD_IDIV(NAME, SFX, S, DIVFN)                                                 \
TL_LOOP_DIVMOD(NAME##_elem, S, S, TL_LD_id, TL_ST_id, DIVFN)                                     \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j, k;                                                               \
    const S *a = (const S *)data[0], *b = (const S *)data[1];                                    \
    S *q = (S *)data[2], *r = (S *)data[3];                                                      \
    const int ca = st[0] != 0, cb = st[1] != 0;         /* (else broadcast: stride 0) */         \
    unsigned fpe = 0;                                                                            \
    if ((ca && st[0] != (npy_intp)sizeof(S)) || (cb && st[1] != (npy_intp)sizeof(S))             \
            || !(ca || cb) || st[2] != (npy_intp)sizeof(S) || st[3] != (npy_intp)sizeof(S)       \
            || tl_feedback(data[0], st[0], data[2], st[2], n) || (char *)q == data[0]            \
            || tl_feedback(data[1], st[1], data[2], st[2], n) || (char *)q == data[1]            \
            || tl_feedback(data[0], st[0], data[3], st[3], n)                                    \
            || tl_feedback(data[1], st[1], data[3], st[3], n))                                   \
        return NAME##_elem(ctx, data, dims, st, aux);                                            \
    for (i = 0; i < n; i += 2048) {                                                              \
        npy_intp m = n - i < 2048 ? n - i : 2048;                                                \
        fpe |= tl_idiv_floor_divide_##SFX(a + (ca ? i : 0), ca, b + (cb ? i : 0), cb, q + i, m); \
        if (ca && cb) { TL_DIVMOD_R(SFX, S, a[k], b[k]) }                                        \
        else if (ca) { const S b0 = b[0]; TL_DIVMOD_R(SFX, S, a[k], b0) }                        \
        else { const S a0 = a[0]; TL_DIVMOD_R(SFX, S, a0, b[k]) }                                \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}
/* in a loop (TL_LOOP_ARGS): operands of type S contiguous or broadcast (not both broadcast), a
 * contiguous S output that feeds back into neither */
#define TL_CONTIG_OR_BCAST2(S)                                                                   \
    (st[2] == (npy_intp)sizeof(S) && (st[0] == 0 || st[0] == (npy_intp)sizeof(S))                \
     && (st[1] == 0 || st[1] == (npy_intp)sizeof(S)) && (st[0] | st[1]) != 0                     \
     && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])                                    \
     && !tl_feedback(data[1], st[1], data[2], st[2], dims[0]))
#define TL_LOOP2_IDIV(NAME, OPN, SFX, S, FN)                                                     \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (TL_CONTIG_OR_BCAST2(S)) {                                                                \
        npy_intp n = dims[0], i;                                                                 \
        const S *a = (const S *)data[0], *b = (const S *)data[1];                                \
        S *o = (S *)data[2];                                                                     \
        int ca = st[0] != 0, cb = st[1] != 0;                                                    \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        /* (one divisor of 8-32 bits: one block, its magic number made once; 64 bits: blocks, \
         * each read twice, its range checked first) */                                         \
        const npy_intp blk = cb || sizeof(S) == 8 ? 2048 : n;                                    \
        for (i = 0; i < n; i += blk) {                                                           \
            npy_intp m = n - i < blk ? n - i : blk;                                              \
            const S *pa = a + (ca ? i : 0), *pb = b + (cb ? i : 0);                              \
            fpe |= tl_idiv_##OPN##_##SFX(pa, ca, pb, cb, o + i, m);                              \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* float32 fmod, remainder and floor_divide (and the float16/bfloat16 blocks, in float32),
 * vectorized. With x, y finite, y normal and |x| < 2^24 |y| (checked on the bits: quiet, where a
 * float compare of a NaN raised invalid in the vector loop; y's bits plus 24 in the exponent
 * field are 2^24 |y|, or lie past every finite x), x - trunc(x/y) * y in double is fmod(x, y)
 * exactly: the quotient rounded to double truncates to the true one (x/y lies at least 2^-25
 * from an integer it is not, the rounding error is below 2^-29), the product has at most 48
 * bits, and the difference, fmod's value, is a float. The sign is x's (fmod(-6, 3) is -0).
 * Blocks holding another pair run the element function FN (the x87 FPREM loop / libm: their
 * flags) pair by pair; the others raise nothing (inexact aside). FPREM took ~13 ns a pair. */
static inline int tl_vfmod_ok(float x, float y)
{
    int32_t ax = (int32_t)(tl_f32_bits(x) & 0x7fffffffu), ay = (int32_t)(tl_f32_bits(y) & 0x7fffffffu);
    return (ax < 0x7f800000) & (ay >= 0x00800000) & (ay < 0x7f800000) & (ax - (24 << 23) < ay);
}
#define TL_VFMOD_ONE(x, y)                                                                       \
    __builtin_copysignf((float)((double)(x) - (double)(int32_t)((double)(x) / (double)(y))      \
                                              * (double)(y)), (x))
/* floor_divide / remainder of such pairs: tl_divmod_core_f32's float32 operations in the same
 * order (NumPy's npy_divmodf), floor as truncation less (t > div) (exact: |div| <= 2^24 + 1), a / b
 * only in the lanes whose quotient is 0 (its flags are theirs). Its branches as masks: gcc kept
 * "c ? m + b : m" (and ?: near a conversion, which "could trap") a branch: a scalar loop */
/* (NEED_DIV 0: the remainder only. Its flags must not depend on gcc deleting the unused quotient:
 * a / b of a pair like (1e-40, 3.5) raised underflow in remainder once an unrelated change moved
 * gcc's inlining.) */
__attribute__((always_inline)) static inline float
tl_vdivmod_f32_sel(float a, float b, float *mod, const int NEED_DIV)
{
    float m = TL_VFMOD_ONE(a, b), div, t, fl, q0;
    uint32_t mb = tl_f32_bits(m), bb = tl_f32_bits(b), mnz, dnz, fix;
    mnz = 0u - (uint32_t)((mb & 0x7fffffffu) != 0);
    fix = mnz & (0u - ((bb ^ mb) >> 31));           /* (b < 0) != (m < 0); no NaN here */
    *mod = tl_bits_f32((tl_f32_bits(m + tl_bits_f32(bb & fix)) & mnz)   /* b or +0 (m + 0 is m) */
                       | (bb & 0x80000000u & ~mnz));
    if (!NEED_DIV) return 0.0f;
    div = (a - m) / b - tl_bits_f32(0x3f800000u & fix);     /* less 1 or +0 */
    dnz = 0u - (uint32_t)((tl_f32_bits(div) & 0x7fffffffu) != 0);
    t = (float)(int32_t)div;
    fl = t - tl_bits_f32(0x3f800000u & (0u - (uint32_t)__builtin_isgreater(t, div)));
    fl = fl + tl_bits_f32(0x3f800000u & (0u - (uint32_t)__builtin_isgreater(div - fl, 0.5f)));
    q0 = tl_bits_f32(tl_f32_bits(a) & ~dnz) / b;
    return tl_bits_f32((tl_f32_bits(fl) & dnz) | (tl_f32_bits(q0) & 0x80000000u & ~dnz));
}
static inline float tl_vfl_fmod(float a, float b) { return TL_VFMOD_ONE(a, b); }
static inline float tl_vdivmod_f32(float a, float b, float *mod)
{ return tl_vdivmod_f32_sel(a, b, mod, 1); }
static inline float tl_vfl_remainder(float a, float b) { float m; tl_vdivmod_f32_sel(a, b, &m, 0); return m; }
static inline float tl_vfl_floor_divide(float a, float b) { float m; return tl_vdivmod_f32(a, b, &m); }
/* n pairs (X, Y: the operands at index k) in blocks of 256: FAST(k, x, y, VF) on every pair of a
 * block whose pairs tl_vfmod_ok all passes (a loop gcc vectorizes), else pair by pair, SLOW(k, x,
 * y, SF) on the others */
#define TL_VFMOD_BLOCKS(X, Y, FAST, VF, SLOW, SF)                                                \
    for (i = 0; i < n; i += 256) {                                                               \
        npy_intp m = n - i < 256 ? n - i : 256, j, k;                                            \
        int ok = 1;                                                                              \
        for (j = 0; j < m; j++) { k = i + j; ok &= tl_vfmod_ok(X, Y); }                          \
        if (ok) {                                                                                \
            for (j = 0; j < m; j++) { k = i + j; FAST(k, X, Y, VF); }                            \
        } else {                                                                                 \
            for (j = 0; j < m; j++) {                                                            \
                float x_, y_;                                                                    \
                k = i + j;                                                                       \
                x_ = X; y_ = Y;                                                                  \
                if (tl_vfmod_ok(x_, y_)) FAST(k, x_, y_, VF);                                    \
                else SLOW(k, x_, y_, SF);                                                        \
            }                                                                                    \
        }                                                                                        \
    }
#define TL_VFMOD_FAST1(k, x, y, VFN) (o[k] = VFN(x, y))
#define TL_VFMOD_SLOW1(k, x, y, FN) (o[k] = FN(x, y, &fpe))
#define TL_VFMOD_FAST2(k, x, y, VFN) (q[k] = VFN(x, y, &r[k]))
#define TL_VFMOD_SLOW2(k, x, y, FN) FN(x, y, &q[k], &r[k], &fpe)
/* integer power of a scalar exponent y >= 0: squaring and multiplying a block at a time in an
 * unsigned type UT at least as wide (the result modulo 2^bits is the element function's, whatever
 * the order), which gcc
 * vectorizes; the element loop took ~3 ns per element, 1.1-1.9x NumPy's time. Negative exponents,
 * array exponents and reductions: the element loop (which raises for y < 0). */
#define TL_LOOP2_IPOW(NAME, S, UT, FN)                                                           \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (st[1] == 0 && dims[0] > 0 && !(*(const S *)data[1] < 0)                                  \
            && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])) {                          \
        const UT y = (UT)*(const S *)data[1];                                                    \
        npy_intp n = dims[0], i, k, m;                                                           \
        UT r[TL_BLOCK], b[TL_BLOCK], e;                                                          \
        (void)ctx; (void)aux;                                                                    \
        for (i = 0; i < n; i += m) {                                                             \
            m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                             \
            if (st[0] == (npy_intp)sizeof(S))                                                    \
                for (k = 0; k < m; k++) b[k] = (UT)((const S *)data[0])[i + k];                  \
            else                                                                                 \
                for (k = 0; k < m; k++) b[k] = (UT)*(const S *)(data[0] + (i + k) * st[0]);      \
            for (k = 0; k < m; k++) r[k] = 1;                                                    \
            for (e = y; e != 0; e >>= 1) {                                                       \
                if (e & 1) for (k = 0; k < m; k++) r[k] = (UT)(r[k] * b[k]);                     \
                if (e > 1) for (k = 0; k < m; k++) b[k] = (UT)(b[k] * b[k]);                     \
            }                                                                                    \
            if (st[2] == (npy_intp)sizeof(S))                                                    \
                for (k = 0; k < m; k++) ((S *)data[2])[i + k] = (S)r[k];                         \
            else                                                                                 \
                for (k = 0; k < m; k++) *(S *)(data[2] + (i + k) * st[2]) = (S)r[k];             \
        }                                                                                        \
        return 0;                                                                                \
    }                                                                                            \
    if ((S)-1 < (S)0) {   /* as NumPy: the elements before a negative exponent, then the error */ \
        npy_intp j;                                                                              \
        for (j = 0; j < dims[0]; j++)                                                            \
            if (*(const S *)(data[1] + j * st[1]) < 0) {                                         \
                if (j > 0 && NAME(ctx, data, &j, st, aux) < 0) return -1;                        \
                return tl_finish(TL_ERR_NEGPOW);                                                 \
            }                                                                                    \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* float32 fmod / remainder / floor_divide (OPN) through tl_vfl_<OPN> */
#define TL_LOOP2_VFMOD32(NAME, OPN, FN)                                                          \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (TL_CONTIG_OR_BCAST2(float)) {                                                            \
        npy_intp n = dims[0], i;                                                                 \
        const float *a = (const float *)data[0], *b = (const float *)data[1];                    \
        float *o = (float *)data[2];                                                             \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        if (st[0] && st[1])                                                                      \
            TL_VFMOD_BLOCKS(a[k], b[k], TL_VFMOD_FAST1, tl_vfl_##OPN, TL_VFMOD_SLOW1, FN)        \
        else if (st[0])                                                                          \
            TL_VFMOD_BLOCKS(a[k], b[0], TL_VFMOD_FAST1, tl_vfl_##OPN, TL_VFMOD_SLOW1, FN)        \
        else                                                                                     \
            TL_VFMOD_BLOCKS(a[0], b[k], TL_VFMOD_FAST1, tl_vfl_##OPN, TL_VFMOD_SLOW1, FN)        \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(float, TL_LD_id, TL_ST_id, FN) }                                         \
}

/* float32 divmod of contiguous operands and outputs through tl_vdivmod_f32 (blocks holding
 * another pair: pair by pair, FN for those); other layouts: the element loop */
#define TL_LOOP_DIVMOD_VF32(NAME, FN)                                                            \
TL_LOOP_DIVMOD(NAME##_elem, float, float, TL_LD_id, TL_ST_id, FN)                                \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], i;                                                                     \
    const float *a = (const float *)data[0], *b = (const float *)data[1];                        \
    float *q = (float *)data[2], *r = (float *)data[3];                                          \
    unsigned fpe = 0;                                                                            \
    if (st[0] != 4 || st[1] != 4 || st[2] != 4 || st[3] != 4                                     \
            || tl_feedback(data[0], 4, data[2], 4, n) || tl_feedback(data[1], 4, data[2], 4, n)  \
            || tl_feedback(data[0], 4, data[3], 4, n) || tl_feedback(data[1], 4, data[3], 4, n)) \
        return NAME##_elem(ctx, data, dims, st, aux);                                            \
    TL_VFMOD_BLOCKS(a[k], b[k], TL_VFMOD_FAST2, tl_vdivmod_f32, TL_VFMOD_SLOW2, FN)             \
    return tl_finish(fpe);                                                                       \
}

/* 8-bit multiply (int8 and uint8 products have the same low byte) of contiguous or broadcast
 * (ca/cb 0) operands into contiguous o. gcc multiplies in 16-bit lanes and packs the halves back
 * with cross-lane permutes (1.4x NumPy's time); here, as NumPy's SIMD code, the even bytes are
 * the low bytes of the 16-bit products and the odd bytes those of the products of the high
 * bytes, merged by a byte blend: no permute. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f,avx512bw"))) static inline __m512i tl_mul8_512(__m512i a, __m512i b)
{
    __m512i even = _mm512_mullo_epi16(a, b);
    __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    return _mm512_mask_blend_epi8(0xAAAAAAAAAAAAAAAAull, even, _mm512_slli_epi16(odd, 8));
}
__attribute__((target("avx512f,avx512bw"))) static void tl_vmul8_avx512(
    const uint8_t *a, int ca, const uint8_t *b, int cb, uint8_t *o, npy_intp n)
{
    npy_intp i = 0;
    __m512i va = _mm512_set1_epi8((char)a[0]), vb = _mm512_set1_epi8((char)b[0]);
    for (; i + 64 <= n; i += 64) {
        if (ca) va = _mm512_loadu_si512(a + i);
        if (cb) vb = _mm512_loadu_si512(b + i);
        _mm512_storeu_si512(o + i, tl_mul8_512(va, vb));
    }
    if (i < n) {
        __mmask64 m = ~0ull >> (64 - (n - i));
        if (ca) va = _mm512_maskz_loadu_epi8(m, a + i);
        if (cb) vb = _mm512_maskz_loadu_epi8(m, b + i);
        _mm512_mask_storeu_epi8(o + i, m, tl_mul8_512(va, vb));
    }
}
__attribute__((target("avx2"))) static void tl_vmul8_avx2(
    const uint8_t *a, int ca, const uint8_t *b, int cb, uint8_t *o, npy_intp n)
{
    npy_intp i = 0;
    const __m256i odd_bytes = _mm256_set1_epi16((short)0xff00);
    __m256i va = _mm256_set1_epi8((char)a[0]), vb = _mm256_set1_epi8((char)b[0]);
    for (; i + 32 <= n; i += 32) {
        __m256i even, odd;
        if (ca) va = _mm256_loadu_si256((const __m256i *)(a + i));
        if (cb) vb = _mm256_loadu_si256((const __m256i *)(b + i));
        even = _mm256_mullo_epi16(va, vb);
        odd = _mm256_mullo_epi16(_mm256_srli_epi16(va, 8), _mm256_srli_epi16(vb, 8));
        _mm256_storeu_si256((__m256i *)(o + i),
                            _mm256_blendv_epi8(even, _mm256_slli_epi16(odd, 8), odd_bytes));
    }
    for (; i < n; i++) o[i] = (uint8_t)(a[ca ? i : 0] * b[cb ? i : 0]);
}
#endif
static void tl_vmul8(const uint8_t *a, int ca, const uint8_t *b, int cb, uint8_t *o, npy_intp n)
{
    npy_intp i;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (tl_host_avx512) { tl_vmul8_avx512(a, ca, b, cb, o, n); return; }
    if (tl_host_avx2) { tl_vmul8_avx2(a, ca, b, cb, o, n); return; }
#endif
    for (i = 0; i < n; i++) o[i] = (uint8_t)(a[ca ? i : 0] * b[cb ? i : 0]);
}
#define TL_VSQUARE8(SFX, S)                                                                      \
static void tl_vsquare_##SFX(const S *a, S *o, npy_intp n)                                       \
{ tl_vmul8((const uint8_t *)a, 1, (const uint8_t *)a, 1, (uint8_t *)o, n); }
TL_VSQUARE8(i8, int8_t) TL_VSQUARE8(u8, uint8_t)
/* int8/uint8 multiply: contiguous or broadcast operands into a contiguous output through
 * tl_vmul8 (no integer multiply raises a flag); other layouts and reductions: FN */
#define TL_LOOP2_MUL8(NAME, S, FN)                                                               \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (TL_CONTIG_OR_BCAST2(S)) {                                                                \
        (void)ctx; (void)aux;                                                                    \
        tl_vmul8((const uint8_t *)data[0], st[0] != 0, (const uint8_t *)data[1], st[1] != 0,     \
                 (uint8_t *)data[2], dims[0]);                                                   \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* left_shift / right_shift of 8- and 16-bit integers by one count (stride 0) into a contiguous
 * output, AVX2: x86 shifts 16-bit lanes by a count from a register (counts past the width give
 * 0 or the sign, as the element function does), bytes as 16-bit lanes masked (arithmetic: on
 * x ^ 0x80, less 0x80 >> c); gcc widened them to 32-bit lanes (2.4x NumPy's time for int8). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_VSHIFT(SFX, T, BITS, LEFT, SIGNED)                                                    \
__attribute__((target("avx2"))) static void tl_vshift_##SFX##_##LEFT(const T *a, uint64_t c,      \
                                                                    T *o, npy_intp n)            \
{                                                                                                \
    const int c8 = c > 7 ? 8 : (int)c;              /* bytes: counts past 7 give 0 */          \
    const int c7 = c8 > 7 ? 7 : c8;                 /* arithmetic: the sign, as 7 does */      \
    const int arith = BITS == 8 && SIGNED && !(LEFT);                                            \
    const __m128i vc = _mm_cvtsi64_si128((long long)(arith ? (uint64_t)c7 : c));                 \
    const __m256i mask = _mm256_set1_epi8((char)(LEFT ? (0xff << c8) & 0xff                      \
                                                      : 0xff >> (arith ? c7 : c8)));             \
    const __m256i bias = _mm256_set1_epi8((char)0x80), off = _mm256_set1_epi8((char)(0x80 >> c7)); \
    npy_intp i;                                                                                  \
    for (i = 0; i + 32 / (npy_intp)sizeof(T) <= n; i += 32 / (npy_intp)sizeof(T)) {              \
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + i)), r;               \
        if (BITS == 16)                                                                          \
            r = LEFT ? _mm256_sll_epi16(x, vc) : SIGNED ? _mm256_sra_epi16(x, vc)                \
                                                          : _mm256_srl_epi16(x, vc);             \
        else if (LEFT)                                                                           \
            r = _mm256_and_si256(_mm256_sll_epi16(x, vc), mask);                                 \
        else if (!SIGNED)                                                                        \
            r = _mm256_and_si256(_mm256_srl_epi16(x, vc), mask);                                 \
        else                                                                                     \
            r = _mm256_sub_epi8(_mm256_and_si256(_mm256_srl_epi16(_mm256_xor_si256(x, bias), vc), \
                                                 mask), off);                                    \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), r);                                      \
    }                                                                                            \
    for (; i < n; i++)                                                                           \
        o[i] = LEFT ? tl_left_shift_##SFX(a[i], (T)c, NULL) : tl_right_shift_##SFX(a[i], (T)c, NULL); \
}
TL_VSHIFT(i8, int8_t, 8, 1, 1) TL_VSHIFT(i8, int8_t, 8, 0, 1)
TL_VSHIFT(u8, uint8_t, 8, 1, 0) TL_VSHIFT(u8, uint8_t, 8, 0, 0)
TL_VSHIFT(i16, int16_t, 16, 1, 1) TL_VSHIFT(i16, int16_t, 16, 0, 1)
TL_VSHIFT(u16, uint16_t, 16, 1, 0) TL_VSHIFT(u16, uint16_t, 16, 0, 0)
#define TL_VSHIFT_CALL(SFX, S, UT, LEFT)                                                         \
    if (tl_host_avx2 && st[1] == 0 && st[0] == (npy_intp)sizeof(S) && st[2] == (npy_intp)sizeof(S) \
            && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])) {                          \
        (void)ctx; (void)aux;                                                                    \
        tl_vshift_##SFX##_##LEFT((const S *)data[0], (uint64_t)*(const UT *)data[1], (S *)data[2], \
                                 dims[0]);                                                       \
        return 0;                                                                                \
    }
#else
#define TL_VSHIFT_CALL(SFX, S, UT, LEFT)
#endif
#define TL_LOOP2_SHIFT(NAME, SFX, S, UT, LEFT, FN)                                               \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    TL_VSHIFT_CALL(SFX, S, UT, LEFT)                                                             \
    { TL_LOOP2_RED_BODY(S, TL_LD_id, TL_ST_id, FN) }                                             \
}

/* int64/uint64 comparisons, contiguous or broadcast operands and a contiguous bool output, AVX2:
 * 32 results per store as the float64 kernels (TL_VCMP_PACK32); uint64 compared as int64 with
 * the sign bits flipped; PRED(x, y) the mask of a true result, or of a false one (NEG, the
 * pack then inverts). gcc's loop with a broadcast operand packed the masks to bytes slowly:
 * int64 < 3 took 1.1-1.3x NumPy's time. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_IC64_less(x, y) _mm256_cmpgt_epi64(y, x)
#define TL_IC64_greater(x, y) _mm256_cmpgt_epi64(x, y)
#define TL_IC64_less_equal(x, y) _mm256_cmpgt_epi64(x, y)
#define TL_IC64_greater_equal(x, y) _mm256_cmpgt_epi64(y, x)
#define TL_IC64_equal(x, y) _mm256_cmpeq_epi64(x, y)
#define TL_IC64_not_equal(x, y) _mm256_cmpeq_epi64(x, y)
#define TL_IC64_NEG_less 0
#define TL_IC64_NEG_greater 0
#define TL_IC64_NEG_less_equal 1
#define TL_IC64_NEG_greater_equal 1
#define TL_IC64_NEG_equal 0
#define TL_IC64_NEG_not_equal 1
#define TL_IC64_N(m0, m1) TL_VCMP_NARROW64(_mm256_castsi256_pd(m0), _mm256_castsi256_pd(m1))
#define TL_ICMP64_AVX2(OPN, SFX, T, FLIP)                                                        \
__attribute__((target("avx2"), always_inline)) static inline void                                \
tl_vcmp_##OPN##_##SFX##_icmp_body(                                                               \
    const T *a, const int ca, const T *b, const int cb, tl_bool *o, npy_intp n)                  \
{                                                                                                \
    const __m256i one = _mm256_set1_epi8(1), perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);   \
    const __m256i flip = _mm256_set1_epi64x(FLIP);                                               \
    const __m256i va = _mm256_xor_si256(_mm256_set1_epi64x((long long)a[0]), flip);             \
    const __m256i vb = _mm256_xor_si256(_mm256_set1_epi64x((long long)b[0]), flip);             \
    npy_intp i = 0;                                                                              \
    for (; i + 32 <= n; i += 32) {                                                               \
        __m256i m[8], p;                                                                         \
        int h;                                                                                   \
        for (h = 0; h < 8; h++)                                                                  \
            m[h] = TL_IC64_##OPN(                                                                \
                ca ? _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(a + i + 4 * h)), flip) : va, \
                cb ? _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(b + i + 4 * h)), flip) : vb); \
        p = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(                                      \
                _mm256_packs_epi32(TL_IC64_N(m[0], m[1]), TL_IC64_N(m[2], m[3])),                \
                _mm256_packs_epi32(TL_IC64_N(m[4], m[5]), TL_IC64_N(m[6], m[7]))), perm);        \
        p = TL_IC64_NEG_##OPN ? _mm256_andnot_si256(p, one) : _mm256_and_si256(p, one);          \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), p);                                      \
    }                                                                                            \
    for (; i < n; i++) o[i] = tl_##OPN##_##SFX(a[ca ? i : 0], b[cb ? i : 0], NULL);              \
}                                                                                                \
TL_VCMP_LAYOUTS(OPN, SFX, T, icmp, "avx2")
#define TL_ICMP64_BOTH(OPN)                                                                      \
    TL_ICMP64_AVX2(OPN, i64, int64_t, 0) TL_ICMP64_AVX2(OPN, u64, uint64_t, INT64_MIN)
#define TL_ICMP64_CALL(OPN, SFX, S)                                                              \
    if (tl_host_avx2 && st[2] == 1 && (st[0] == (npy_intp)sizeof(S) || st[0] == 0)               \
            && (st[1] == (npy_intp)sizeof(S) || st[1] == 0) && (st[0] | st[1]) != 0) {           \
        (void)ctx; (void)aux;                                                                    \
        tl_vcmp_##OPN##_##SFX##_icmp((const S *)data[0], st[0] != 0, (const S *)data[1],         \
                                     st[1] != 0, (tl_bool *)data[2], dims[0]);                   \
        return 0;                                                                                \
    }
#else
#define TL_ICMP64_BOTH(OPN)
#define TL_ICMP64_CALL(OPN, SFX, S)
#endif
#define TL_LOOP2_ICMP64(NAME, OPN, SFX, S, FN)                                                   \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    TL_ICMP64_CALL(OPN, SFX, S)                                                                  \
    { TL_LOOP2_BODY(S, S, npy_bool, TL_LD_id, TL_LD_id, TL_ST_id, FN) }                          \
}
TL_ICMP64_BOTH(less) TL_ICMP64_BOTH(less_equal) TL_ICMP64_BOTH(greater)
TL_ICMP64_BOTH(greater_equal) TL_ICMP64_BOTH(equal) TL_ICMP64_BOTH(not_equal)

/* same-type loop whose contiguous reductions go through REDFN(acc, p, n) (integers and bool:
 * their strided element loop selects by cmov, so no blocks) */
#define TL_LOOP2_REDFN(NAME, S, LD, FN, REDFN)                                                   \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (TL_RED_SHAPE(data, st) && st[1] == (npy_intp)sizeof(S)) {                                 \
        *(S *)data[0] = REDFN(*(const S *)data[0], (const S *)data[1], dims[0]);                 \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(S, LD, TL_ST_id, FN) }                                                   \
}

/* float16/bfloat16 loops rounding every step (all but float16's add/subtract/multiply/divide,
 * which NumPy accumulates in float32: TL_LOOP2_RED, TL_LOOP2_PW): a reduction keeps the
 * accumulator in a register, where the element loop stored it and read it back (bfloat16
 * add.reduce: 5.7 ns an element, ml_dtypes' loop's speed); as the rounded value in LD's type,
 * TL_RND_<ST>(x) = LD(ST(x)) each step, so the last ST stores its bits */
#define TL_RED16_CHAIN(S, LD, ST, FN)                                                            \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        npy_intp n = dims[0], i, sb = st[1];                                                     \
        const char *b = data[1];                                                                 \
        unsigned fpe = 0;                                                                        \
        __typeof__(LD(*(S *)data[0])) acc = LD(*(const S *)data[0]);                             \
        for (i = 0; i < n; i++, b += sb)                                                         \
            acc = TL_RND_##ST(FN(acc, LD(*(const S *)b), &fpe), &fpe);                           \
        *(S *)data[0] = ST(acc, &fpe);                                                           \
        return tl_finish(fpe);                                                                   \
    }
#define TL_RND_TL_ST_id(x, e) (x)
#define TL_RND_TL_ST_f16(x, e) tl_f16_to_f32(tl_f32_to_f16((x), (e)))
/* bfloat16's in vector registers, as tl_f32_to_bf16 and back: the reductions' chain had moved
 * each value to a general register and back (bfloat16 add.reduce 3.9 ns an element, 2.9 this way
 * in the AVX clones; the baseline's SSE2 form is no faster than the general registers) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static inline float tl_bf16_round_f32(float x)
{
    const __m128 v = _mm_set_ss(x);
    const __m128i u = _mm_castps_si128(v);
    __m128i r = _mm_add_epi32(u, _mm_add_epi32(_mm_set1_epi32(0x7fff),
                                              _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1))));
    const __m128 nan = _mm_cmpunord_ss(v, v);
    const __m128 quiet = _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(u, _mm_set1_epi32((int)0x80000000u)),
                                                       _mm_set1_epi32(0x7fc00000)));
    r = _mm_and_si128(r, _mm_set1_epi32((int)0xffff0000u));
    return _mm_cvtss_f32(_mm_or_ps(_mm_and_ps(nan, quiet), _mm_andnot_ps(nan, _mm_castsi128_ps(r))));
}
#else
static inline float tl_bf16_round_f32(float x) { return tl_bf16_to_f32(tl_f32_to_bf16(x, NULL)); }
#endif
#define TL_RND_TL_ST_bf16(x, e) tl_bf16_round_f32(x)
#define TL_LOOP2_RED16(NAME, S, LD, ST, FN)                                                      \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{ TL_RED16_CHAIN(S, LD, ST, FN) { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) } }

/* float32/float64 maximum/minimum/fmax/fmin of contiguous or broadcast operands into a contiguous
 * output on AVX2, in NumPy's form: the max/min instruction (which gives b on ties and when either
 * is NaN) and a blend keeping a where a NaN must win (maximum/minimum: a NaN a; fmax/fmin: a NaN
 * b), two vectors a step: the element functions' bits. gcc's loop of the element function (two
 * compares, an OR and a blend a vector) took 1.2-2.5x the time in L1 (maximum.reduce along axis
 * 0 of (50, 2000) float32, in-place calls on rows: 1.4x NumPy's time). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* One kernel per vector width (NAME, target, vector type V, intrinsic prefix MM, select SEL
 * with its KEEP mask, W lanes, PRE run first); the AVX2 one hands over to the AVX-512 one where
 * the CPU has it: the same instructions a 512-bit vector wide, a mask register for the blend
 * (float64 maximum at 10^5 in L2: 1.02-1.07x NumPy's AVX-512 loop with AVX2, 1.00 with it). */
#define TL_MM512_SEL(DIR, P, a, b, KEEP) _mm512_mask_mov_##P(_mm512_##DIR##_##P(a, b), KEEP(P, a, b), a)
#define TL_MM512_KEEP_NAN_A(P, a, b) _mm512_cmp_##P##_mask(a, a, _CMP_UNORD_Q)
#define TL_MM512_KEEP_NAN_B(P, a, b) _mm512_cmp_##P##_mask(b, b, _CMP_UNORD_Q)
#define TL_VMM_KERNEL(NAME, TARGET, V, MM, SEL, F, P, W, DIR, KEEP, FN, PRE)                     \
__attribute__((target(TARGET))) static void                                                      \
NAME(const F *a, int ca, const F *b, int cb, F *o, npy_intp n)                                   \
{                                                                                                \
    PRE                                                                                          \
    const V sa = MM##_set1_##P(a[0]), sb = MM##_set1_##P(b[0]);                                  \
    npy_intp i = 0;                                                                              \
    for (; i + 2 * W <= n; i += 2 * W) {                                                         \
        V a0 = ca ? MM##_loadu_##P(a + i) : sa, a1 = ca ? MM##_loadu_##P(a + i + W) : sa;        \
        V b0 = cb ? MM##_loadu_##P(b + i) : sb, b1 = cb ? MM##_loadu_##P(b + i + W) : sb;        \
        MM##_storeu_##P(o + i, SEL(DIR, P, a0, b0, KEEP));                                       \
        MM##_storeu_##P(o + i + W, SEL(DIR, P, a1, b1, KEEP));                                   \
    }                                                                                            \
    for (; i < n; i++) o[i] = FN(a[ca ? i : 0], b[cb ? i : 0], NULL);                            \
}
#define TL_VMM_2(OPN, SFX, F, P, W, DIR, KEEP, KEEP512)                                          \
    TL_VMM_KERNEL(tl_vmm_##OPN##_##SFX##_avx512, "avx512f", tl_v512##P, _mm512, TL_MM512_SEL,  \
                  F, P, 2 * W, DIR, KEEP512, tl_##OPN##_##SFX, )                                 \
    TL_VMM_KERNEL(tl_vmm_##OPN##_##SFX, "avx2", tl_v256##P, _mm256, TL_MM_SEL, F, P, W, DIR,    \
                  KEEP, tl_##OPN##_##SFX,                                                        \
                  if (tl_host_avx512) { tl_vmm_##OPN##_##SFX##_avx512(a, ca, b, cb, o, n); return; })
#define TL_VMM_AVX2_4(SFX, F, P, W)                                                              \
    TL_VMM_2(maximum, SFX, F, P, W, max, TL_MM_KEEP_NAN_A, TL_MM512_KEEP_NAN_A)                  \
    TL_VMM_2(minimum, SFX, F, P, W, min, TL_MM_KEEP_NAN_A, TL_MM512_KEEP_NAN_A)                  \
    TL_VMM_2(fmax, SFX, F, P, W, max, TL_MM_KEEP_NAN_B, TL_MM512_KEEP_NAN_B)                     \
    TL_VMM_2(fmin, SFX, F, P, W, min, TL_MM_KEEP_NAN_B, TL_MM512_KEEP_NAN_B)
TL_VMM_AVX2_4(f32, float, ps, 8)
TL_VMM_AVX2_4(f64, double, pd, 4)
/* the kernel where the CPU has AVX2 and the operands are contiguous or broadcast, the output
 * contiguous and aliasing no input but exactly */
#define TL_VMM_CALL(S, VFN)                                                                      \
    if (tl_host_avx2 && TL_CONTIG_OR_BCAST2(S)) {                                                 \
        (void)ctx; (void)aux;                                                                    \
        VFN((const S *)data[0], st[0] != 0, (const S *)data[1], st[1] != 0, (S *)data[2], dims[0]); \
        return 0;                                                                                \
    }
#else
#define TL_VMM_CALL(S, VFN)
#endif
/* ... with that kernel */
#define TL_LOOP2_REDFN_VMM(NAME, S, LD, FN, REDFN, VFN)                                          \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    TL_BY_BLOCKS(NAME, S, S, S)                                                                  \
    if (TL_RED_SHAPE(data, st) && st[1] == (npy_intp)sizeof(S)) {                                 \
        *(S *)data[0] = REDFN(*(const S *)data[0], (const S *)data[1], dims[0]);                 \
        return 0;                                                                                \
    }                                                                                            \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        /* strided: REDFN (a left fold) on contiguous copies of it, block after block (the      \
         * element loop's branches took 1.7-2.6x NumPy's time on float64 a[::2] at 10^5; it     \
         * clears the FP flags a NaN raised, which the element loop left to NumPy's reduceat) */ \
        S buf_[TL_BLOCK_BYTES / sizeof(S)], acc_ = *(const S *)data[0];                          \
        npy_intp i_, n_ = dims[0], bl_ = TL_BLOCK_BYTES / (npy_intp)sizeof(S);                   \
        for (i_ = 0; i_ < n_; i_ += bl_) {                                                       \
            npy_intp m_ = n_ - i_ < bl_ ? n_ - i_ : bl_;                                         \
            tl_copy_strided((char *)buf_, sizeof(S), data[1] + i_ * st[1], st[1], sizeof(S), m_); \
            acc_ = REDFN(acc_, buf_, m_);                                                        \
        }                                                                                        \
        *(S *)data[0] = acc_;                                                                    \
        return 0;                                                                                \
    }                                                                                            \
    TL_VMM_CALL(S, VFN)                                                                          \
    { TL_LOOP2_BODY(S, S, S, LD, LD, TL_ST_id, FN) }                                             \
}

/* add with NumPy's pairwise reduction */
#define TL_LOOP2_PW(NAME, SFX, S, LD, ST, FN)                                                    \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        unsigned fpe = 0;                                                                        \
        __typeof__(LD(*(S *)data[0])) acc = LD(*(S *)data[0]);                                   \
        acc += tl_pairwise_##SFX(data[1], dims[0], st[1]);                                       \
        *(S *)data[0] = ST(acc, &fpe);                                                           \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, S, LD, LD, ST, FN) }                                                   \
}

/* NumPy's complex pairwise summation: n counts scalars (2 per element), stride is half the
 * element stride, four interleaved complex accumulators per block. */
#define TL_CPAIRWISE_FN(NAME, ATTR, F)                                                           \
ATTR static void NAME(F *rr, F *ri, const char *a, npy_intp n, npy_intp stride)                  \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (n < 8) {                                                                                 \
        *rr = (F)-0.0; *ri = (F)-0.0;                                                            \
        for (i = 0; i < n; i += 2) {                                                             \
            *rr += *(const F *)(a + i * stride);                                                 \
            *ri += *(const F *)(a + i * stride + sizeof(F));                                     \
        }                                                                                        \
    }                                                                                            \
    else if (n <= 128) {                                                                         \
        /* NumPy's eight accumulators r[0..7] as four (real, imaginary) pairs, one add each */    \
        typedef F tl_cpw_v2 __attribute__((vector_size(2 * sizeof(F))));                         \
        tl_cpw_v2 r[4], x;                                                                       \
        int k;                                                                                   \
        for (k = 0; k < 4; k++) memcpy(&r[k], a + 2 * k * stride, sizeof(x));                    \
        for (i = 8; i < n - (n % 8); i += 8) {                                                   \
            __builtin_prefetch(a + (i + 512 / (npy_intp)sizeof(F)) * stride, 0, 3);              \
            for (k = 0; k < 4; k++) {                                                            \
                memcpy(&x, a + (i + 2 * k) * stride, sizeof(x));                                 \
                r[k] += x;                                                                       \
            }                                                                                    \
        }                                                                                        \
        *rr = ((r[0][0] + r[1][0]) + (r[2][0] + r[3][0]));                                       \
        *ri = ((r[0][1] + r[1][1]) + (r[2][1] + r[3][1]));                                       \
        for (; i < n; i += 2) {                                                                  \
            *rr += *(const F *)(a + i * stride);                                                 \
            *ri += *(const F *)(a + i * stride + sizeof(F));                                     \
        }                                                                                        \
    }                                                                                            \
    else {                                                                                       \
        F rr1, ri1, rr2, ri2;                                                                    \
        npy_intp n2 = n / 2;                                                                     \
        n2 -= n2 % 8;                                                                            \
        NAME(&rr1, &ri1, a, n2, stride);                                                         \
        NAME(&rr2, &ri2, a + n2 * stride, n - n2, stride);                                       \
        *rr = rr1 + rr2;                                                                         \
        *ri = ri1 + ri2;                                                                         \
    }                                                                                            \
}
/* in the TL_RT_VARIANTS way (a void function: its own dispatcher); the AVX2 variant adds from
 * memory operands (the baseline one took 1.3x NumPy's time on 10^5 complex128) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CPAIRWISE(SFX, F)                                                                     \
TL_CPAIRWISE_FN(tl_cpairwise_##SFX##_base, , F)                                                  \
TL_CPAIRWISE_FN(tl_cpairwise_##SFX##_avx2, __attribute__((target("avx2,fma"))), F)               \
TL_CPAIRWISE_FN(tl_cpairwise_##SFX##_avx512,                                                     \
                __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))), F)               \
static void tl_cpairwise_##SFX(F *rr, F *ri, const char *a, npy_intp n, npy_intp stride)         \
{                                                                                                \
    if (tl_host_avx512) tl_cpairwise_##SFX##_avx512(rr, ri, a, n, stride);                       \
    else if (tl_host_avx2) tl_cpairwise_##SFX##_avx2(rr, ri, a, n, stride);                      \
    else tl_cpairwise_##SFX##_base(rr, ri, a, n, stride);                                        \
}
#else
#define TL_CPAIRWISE(SFX, F) TL_CPAIRWISE_FN(tl_cpairwise_##SFX, , F)
#endif

/* complex add with NumPy's pairwise reduction (the clones: SSE2 added one complex per
 * instruction, 1.4-1.7x NumPy's time in (300, 300) complex128 reduced along axis 0) */
#define TL_LOOP2_CPW(NAME, SFX, S, F, FN)                                                        \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        F rr, ri;                                                                                \
        S *acc = (S *)data[0];                                                                   \
        tl_cpairwise_##SFX(&rr, &ri, data[1], dims[0] * 2, st[1] / 2);                           \
        acc->re += rr;                                                                           \
        acc->im += ri;                                                                           \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP2_BODY(S, S, S, TL_LD_id, TL_LD_id, TL_ST_id, FN) }                                 \
}

/* two outputs: (q, r) = FN(a, b) */
#define TL_LOOP_DIVMOD(NAME, S, CT, LD, ST, FN)                                                  \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], i;                                                                     \
    char *a = data[0], *b = data[1], *o1 = data[2], *o2 = data[3];                               \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    if (st[0] == (npy_intp)sizeof(S) && st[1] == (npy_intp)sizeof(S)                             \
            && st[2] == (npy_intp)sizeof(S) && st[3] == (npy_intp)sizeof(S)) {                   \
        const S *pa = (const S *)a, *pb = (const S *)b; S *p1 = (S *)o1, *p2 = (S *)o2;          \
        for (i = 0; i < n; i++) {                                                                \
            CT q, r;                                                                             \
            FN(LD(pa[i]), LD(pb[i]), &q, &r, &fpe);                                              \
            p1[i] = ST(q, &fpe);                                                                 \
            p2[i] = ST(r, &fpe);                                                                 \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    for (i = 0; i < n; i++, a += st[0], b += st[1], o1 += st[2], o2 += st[3]) {                  \
        CT q, r;                                                                                 \
        FN(LD(*(const S *)a), LD(*(const S *)b), &q, &r, &fpe);                                  \
        *(S *)o1 = ST(q, &fpe);                                                                  \
        *(S *)o2 = ST(r, &fpe);                                                                  \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* float64 fmod, remainder, floor_divide and divmod on AVX-512 (the element loop calls FPREM, ~10
 * ns a pair, as NumPy's). With a finite, b finite and nonzero and |a/b| < 2^52 (exponents at
 * most 51 apart), t = trunc(|a| / |b|) is the true quotient or one more (rounding is monotonic
 * and the integers around it are doubles), and |a| - t |b|, one FMA, is exact: it is the true
 * remainder r or r - |b|, multiples of ulp(b) (|a| >= |b|; t is 0 below, with no division)
 * no larger than |b|. One |b| added back where it is negative, a's sign: fmod's value, bit for
 * bit. remainder and floor_divide then run tl_divmod_core_f64's operations in its order, as
 * masks (a / b only in the lanes whose quotient is 0: its flags are theirs; remainder none, as
 * the float32 loop). Every operation is masked to those lanes (a NaN, an infinity or a far
 * quotient raise nothing there); the element function recomputes the others and the last n % 8
 * (the same bits: no result depends on where an element lies). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
enum { TL_VF64_FMOD, TL_VF64_REMAINDER, TL_VF64_FLOOR_DIVIDE, TL_VF64_DIVMOD };
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline __mmask8
tl_vfmod64_vec(__m512d a, __m512d b, const int K, __m512d *q_out, __m512d *r_out)
{
    const __m512d sign = _mm512_set1_pd(-0.0), one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
    const __m512d A = _mm512_abs_pd(a), B = _mm512_abs_pd(b);
    /* vfpclass: a QNaN, +-inf, SNaN (0x99); b also +-0 (0x9f) */
    const __mmask8 fin = (__mmask8)~(_mm512_fpclass_pd_mask(a, 0x99) | _mm512_fpclass_pd_mask(b, 0x9f));
    const __mmask8 ok = _mm512_mask_cmp_pd_mask(
        fin, _mm512_sub_pd(_mm512_maskz_getexp_pd(fin, A), _mm512_maskz_getexp_pd(fin, B)),
        _mm512_set1_pd(51), _CMP_LE_OQ);
    const __mmask8 ge = _mm512_mask_cmp_pd_mask(ok, A, B, _CMP_GE_OQ);
    const __m512d t = _mm512_roundscale_pd(_mm512_maskz_div_pd(ge, A, B), 0x0b);   /* trunc */
    __m512d r = _mm512_maskz_fnmadd_pd(ok, t, B, A), m, div, fl;
    __mmask8 mnz, fix, dnz;
    r = _mm512_mask_add_pd(r, _mm512_mask_cmp_pd_mask(ok, r, zero, _CMP_LT_OQ), r, B);
    m = _mm512_or_pd(r, _mm512_and_pd(a, sign));
    if (K == TL_VF64_FMOD) { *r_out = m; return ok; }
    mnz = _mm512_mask_cmp_pd_mask(ok, m, zero, _CMP_NEQ_OQ);
    fix = mnz & _mm512_movepi64_mask(_mm512_castpd_si512(_mm512_xor_pd(b, m)));  /* signs differ */
    if (K != TL_VF64_FLOOR_DIVIDE)
        *r_out = _mm512_mask_blend_pd(mnz, _mm512_and_pd(b, sign), _mm512_mask_add_pd(m, fix, m, b));
    if (K == TL_VF64_REMAINDER) return ok;
    div = _mm512_maskz_div_pd(ok, _mm512_maskz_sub_pd(ok, a, m), b);
    div = _mm512_mask_sub_pd(div, fix, div, one);
    dnz = _mm512_mask_cmp_pd_mask(ok, div, zero, _CMP_NEQ_OQ);
    fl = _mm512_roundscale_pd(div, 0x09);                                              /* floor */
    fl = _mm512_mask_add_pd(fl, _mm512_mask_cmp_pd_mask(dnz, _mm512_sub_pd(div, fl),
                                                        _mm512_set1_pd(0.5), _CMP_GT_OQ), fl, one);
    *q_out = _mm512_mask_blend_pd(dnz, _mm512_and_pd(_mm512_maskz_div_pd(ok & ~dnz, a, b), sign), fl);
    return ok;
}
/* q[i] (floor_divide, divmod) and r[i] (the others) for i < n; a / b contiguous or broadcast
 * (ca / cb 0); the outputs may be the operands (each vector is read before it is written) */
#define TL_VF64_RUN(OPN, K, SLOW)                                                                \
__attribute__((target("avx512f,avx512dq"))) static void tl_vf64_##OPN##_avx512(                 \
    const double *a, int ca, const double *b, int cb, double *q, double *r, npy_intp n,          \
    unsigned *fpe)                                                                               \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    for (; i + 8 <= n; i += 8) {                                                                 \
        const __m512d x = ca ? _mm512_loadu_pd(a + i) : _mm512_set1_pd(a[0]);                    \
        const __m512d y = cb ? _mm512_loadu_pd(b + i) : _mm512_set1_pd(b[0]);                    \
        __m512d vq = _mm512_setzero_pd(), vr = vq;                                               \
        const __mmask8 ok = tl_vfmod64_vec(x, y, K, &vq, &vr);                                   \
        if (__builtin_expect(ok != 0xff, 0)) {                                                   \
            double tx[8], ty[8], tq[8], tr[8];                                                   \
            int k;                                                                               \
            _mm512_storeu_pd(tx, x); _mm512_storeu_pd(ty, y);                                    \
            _mm512_storeu_pd(tq, vq); _mm512_storeu_pd(tr, vr);                                  \
            for (k = 0; k < 8; k++)                                                              \
                if (!((ok >> k) & 1)) SLOW(tx[k], ty[k], tq[k], tr[k]);                          \
            vq = _mm512_loadu_pd(tq); vr = _mm512_loadu_pd(tr);                                  \
        }                                                                                        \
        if (K != TL_VF64_FLOOR_DIVIDE) _mm512_storeu_pd(r + i, vr);                              \
        if (K == TL_VF64_FLOOR_DIVIDE || K == TL_VF64_DIVMOD) _mm512_storeu_pd(q + i, vq);       \
    }                                                                                            \
    for (; i < n; i++) {                                                                         \
        const double x = a[ca ? i : 0], y = b[cb ? i : 0];                                       \
        SLOW(x, y, q[i], r[i]);                                                                  \
    }                                                                                            \
}
#define TL_VF64_SLOW_fmod(x, y, q, r) ((r) = tl_fmod_f64(x, y, fpe))
#define TL_VF64_SLOW_remainder(x, y, q, r) ((r) = tl_remainder_f64(x, y, fpe))
#define TL_VF64_SLOW_floor_divide(x, y, q, r) ((q) = tl_floor_divide_f64(x, y, fpe))
#define TL_VF64_SLOW_divmod(x, y, q, r) tl_divmod_f64(x, y, &(q), &(r), fpe)
TL_VF64_RUN(fmod, TL_VF64_FMOD, TL_VF64_SLOW_fmod)
TL_VF64_RUN(remainder, TL_VF64_REMAINDER, TL_VF64_SLOW_remainder)
TL_VF64_RUN(floor_divide, TL_VF64_FLOOR_DIVIDE, TL_VF64_SLOW_floor_divide)
TL_VF64_RUN(divmod, TL_VF64_DIVMOD, TL_VF64_SLOW_divmod)
/* float64 fmod / remainder / floor_divide (OPN): contiguous or broadcast operands and a
 * contiguous output on AVX-512; else the element loop */
#define TL_LOOP2_VFMOD64(NAME, OPN, FN)                                                          \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (tl_host_avx512 && TL_CONTIG_OR_BCAST2(double)) {                                         \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        tl_vf64_##OPN##_avx512((const double *)data[0], st[0] != 0, (const double *)data[1],     \
                               st[1] != 0, (double *)data[2], (double *)data[2], dims[0], &fpe); \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    { TL_LOOP2_RED_BODY(double, TL_LD_id, TL_ST_id, FN) }                                        \
}
/* float64 divmod of contiguous operands and outputs on AVX-512; else the element loop */
#define TL_LOOP_DIVMOD_VF64(NAME, FN)                                                            \
TL_LOOP_DIVMOD(NAME##_elem, double, double, TL_LD_id, TL_ST_id, FN)                              \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0];                                                                        \
    unsigned fpe = 0;                                                                            \
    if (!tl_host_avx512 || st[0] != 8 || st[1] != 8 || st[2] != 8 || st[3] != 8                  \
            || tl_feedback(data[0], 8, data[2], 8, n) || tl_feedback(data[1], 8, data[2], 8, n)  \
            || tl_feedback(data[0], 8, data[3], 8, n) || tl_feedback(data[1], 8, data[3], 8, n)) \
        return NAME##_elem(ctx, data, dims, st, aux);                                            \
    tl_vf64_divmod_avx512((const double *)data[0], 1, (const double *)data[1], 1,                \
                          (double *)data[2], (double *)data[3], n, &fpe);                        \
    return tl_finish(fpe);                                                                       \
}
#else
#define TL_LOOP2_VFMOD64(NAME, OPN, FN) TL_LOOP2_RED(NAME, double, TL_LD_id, TL_ST_id, FN)
#define TL_LOOP_DIVMOD_VF64(NAME, FN) TL_LOOP_DIVMOD(NAME, double, double, TL_LD_id, TL_ST_id, FN)
#endif

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
        {                                                                                        \
            S r_ = ST(FN(LD(*p), LD(*(const S *)value), &fpe), &fpe);                            \
            if (fpe & TL_ERR_NEGPOW) break;     /* as NumPy: that element is left unwritten */   \
            *p = r_;                                                                             \
        }                                                                                        \
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

/* ==== blocked loops: convert a block of each input to the compute type, run the element function,
 * convert the block of results back. One loop per (op, compute type) serves every input dtype whose
 * conversion to the compute dtype is exact (int8 + float16 -> float16 reads each input once, with
 * no temporary array); float16/bfloat16 blocks convert through tl_convert (SIMD). ============== */
#define TL_BLOCK 1024
/* RUN on blocks of up to TL_BLOCK elements (m of them) of a 1-d loop call of n elements: B
 * gathered from data[0] (stride st[0]), RUN computing B in place, B scattered to data[1] */
#define TL_BLOCKS1(F, B, RUN)                                                                    \
    {                                                                                            \
        F B[TL_BLOCK];                                                                           \
        npy_intp i_, k_, m;                                                                      \
        for (i_ = 0; i_ < n; i_ += m) {                                                          \
            m = n - i_ < TL_BLOCK ? n - i_ : TL_BLOCK;                                           \
            for (k_ = 0; k_ < m; k_++) B[k_] = *(const F *)(data[0] + (i_ + k_) * st[0]);        \
            RUN;                                                                                 \
            for (k_ = 0; k_ < m; k_++) *(F *)(data[1] + (i_ + k_) * st[1]) = B[k_];              \
        }                                                                                        \
    }
/* the same with two inputs: A and B gathered from data[0] and data[1], RUN computing into A,
 * A scattered to data[2] */
#define TL_BLOCKS2(F, A, B, RUN)                                                                 \
    {                                                                                            \
        F A[TL_BLOCK], B[TL_BLOCK];                                                              \
        npy_intp i_, k_, m;                                                                      \
        for (i_ = 0; i_ < n; i_ += m) {                                                          \
            m = n - i_ < TL_BLOCK ? n - i_ : TL_BLOCK;                                           \
            for (k_ = 0; k_ < m; k_++) {                                                         \
                A[k_] = *(const F *)(data[0] + (i_ + k_) * st[0]);                               \
                B[k_] = *(const F *)(data[1] + (i_ + k_) * st[1]);                               \
            }                                                                                    \
            RUN;                                                                                 \
            for (k_ = 0; k_ < m; k_++) *(F *)(data[2] + (i_ + k_) * st[2]) = A[k_];              \
        }                                                                                        \
    }

/* float16/bfloat16 blocks go through tl_convert (kernels/tl_convert.c, compiled into the
 * extension): bit-exact with NumPy/ml_dtypes, AVX-512 / AVX2+F16C / scalar chosen at run time
 * (tl_convert_set_isa("scalar") forces the portable path); it raises NumPy's FP flags itself. */
#include "tl_convert.h"

TL_SHARED(int tl_bf16_typenum, = -1);    /* ml_dtypes' bfloat16, set at import */

/* converters return the block in the compute type: dst, or src itself when it already is */
typedef const float *(*tl_cvt_float)(const char *src, npy_intp stride, float *dst, npy_intp n);
typedef const double *(*tl_cvt_double)(const char *src, npy_intp stride, double *dst, npy_intp n);
typedef tl_cvt_float tl_cvt_f32_fn;
typedef tl_cvt_double tl_cvt_f64_fn;

/* (cloned: the baseline build's uint32 -> double took 13% of a complex128 == uint32 call's
 * profile, the AVX-512 clone's 7%) */
#define TL_CVT(NAME, S, CT, EXPR)                                                                \
__attribute__((unused)) TL_CLONES_ALL static const CT *NAME(const char *src, npy_intp stride,    \
                                                            CT *dst, npy_intp n)                 \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (stride == (npy_intp)sizeof(S) && sizeof(S) == sizeof(CT) && (CT)0.5 != 0 && (S)0.5 != 0) \
        return (const CT *)src;     /* already the compute type */                              \
    if (stride == (npy_intp)sizeof(S)) {                                                         \
        const S *p = (const S *)src;                                                             \
        for (i = 0; i < n; i++) dst[i] = (CT)EXPR(p[i]);                                         \
    } else {                                                                                     \
        for (i = 0; i < n; i++) dst[i] = (CT)EXPR(*(const S *)(src + i * stride));               \
    }                                                                                            \
    return dst;                                                                                  \
}
#define TL_CVT_ID(x) (x)
#define TL_CVT_B(x) ((x) != 0)
TL_CVT(tl_cvt_b_f, npy_bool, float, TL_CVT_B)
TL_CVT(tl_cvt_i8_f, int8_t, float, TL_CVT_ID)
TL_CVT(tl_cvt_u8_f, uint8_t, float, TL_CVT_ID)
TL_CVT(tl_cvt_i16_f, int16_t, float, TL_CVT_ID)
TL_CVT(tl_cvt_u16_f, uint16_t, float, TL_CVT_ID)
TL_CVT(tl_cvt_f32_f, float, float, TL_CVT_ID)
TL_CVT(tl_cvt_b_d, npy_bool, double, TL_CVT_B)
TL_CVT(tl_cvt_i8_d, int8_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_u8_d, uint8_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_i16_d, int16_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_u16_d, uint16_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_i32_d, int32_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_u32_d, uint32_t, double, TL_CVT_ID)
TL_CVT(tl_cvt_f32_d, float, double, TL_CVT_ID)
TL_CVT(tl_cvt_f64_d, double, double, TL_CVT_ID)

/* Rounding conversions, equal to NumPy's casts (C casts, round to nearest even): the blocked loop
 * then computes exactly what NumPy computes after casting the operand to the compute dtype. */
TL_CVT(tl_cvt_i32_f, int32_t, float, TL_CVT_ID)
TL_CVT(tl_cvt_u32_f, uint32_t, float, TL_CVT_ID)
/* 64-bit integers: AVX-512DQ converts them (the x86-64-v4 clone's loop); AVX2 has no such
 * instruction and the scalar one ran at 0.9 ns per element (a false dependency on its output
 * register in the baseline clone), 7x the float32 add it feeds. There, 8 at a time: values that
 * fit in int32 convert to float32 as int32 (the same single rounding of the same integer), values
 * of magnitude below 2^51 become doubles exactly by the magic-number addition (which round once
 * to float32 as the C cast does), others go element by element (~0.12 / 0.2 / 0.6 ns each). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "tl_avx2.h"
/* o[i] = (CT)p[i] for whole blocks of 8; returns how many were done */
#define TL_CVT64_AVX2(K, S, CT, SFX, STORE)                                                      \
__attribute__((target("avx2"))) static npy_intp tl_cvt64_##K##_avx2(const S *p, CT *o, npy_intp n) \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i + 8 <= n; i += 8) STORE(SFX, p + i, o + i)                                     \
    return i;                                                                                    \
}
#define TL_CVT64_ST_F(SFX, p, o) _mm256_storeu_ps((o), tl_ld8_f32_##SFX(p));
#define TL_CVT64_ST_D(SFX, p, o)                                                                 \
    { _mm256_storeu_pd((o), tl_ld4_f64_##SFX(p)); _mm256_storeu_pd((o) + 4, tl_ld4_f64_##SFX((p) + 4)); }
TL_CVT64_AVX2(i64_f, int64_t, float, i64, TL_CVT64_ST_F)
TL_CVT64_AVX2(u64_f, uint64_t, float, u64, TL_CVT64_ST_F)
TL_CVT64_AVX2(i64_d, int64_t, double, i64, TL_CVT64_ST_D)
TL_CVT64_AVX2(u64_d, uint64_t, double, u64, TL_CVT64_ST_D)
#define TL_CVT64_FAST(K) if (tl_host_avx2 && !tl_host_avx512) i = tl_cvt64_##K##_avx2(p, dst, n);
#else
#define TL_CVT64_FAST(K)
#endif
#define TL_CVT64(K, S, CT)                                                                       \
TL_LOOP_CLONES static const CT *tl_cvt_##K(const char *src, npy_intp stride, CT *dst, npy_intp n) \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    if (stride == (npy_intp)sizeof(S)) {                                                         \
        const S *p = (const S *)src;                                                             \
        TL_CVT64_FAST(K)                                                                         \
        for (; i < n; i++) dst[i] = (CT)p[i];                                                    \
    } else {                                                                                     \
        for (i = 0; i < n; i++) dst[i] = (CT)*(const S *)(src + i * stride);                     \
    }                                                                                            \
    return dst;                                                                                  \
}
TL_CVT64(i64_f, int64_t, float)
TL_CVT64(u64_f, uint64_t, float)
TL_CVT64(i64_d, int64_t, double)
TL_CVT64(u64_d, uint64_t, double)
/* integers -> bfloat16 values (in float32) as ml_dtypes' cast: through float32, then round to
 * nearest even to bfloat16: tl_f32bits_to_bf16bits without its NaN branch (no integer gives a
 * NaN or rounds to inf), so that gcc vectorizes the loop */
static inline float tl_cvt_rbf(float f)
{
    uint32_t u = tl_f32_to_bits(f);
    return tl_bits_to_f32((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);
}
#define TL_CVT_RBF(x) tl_cvt_rbf((float)(x))
#define TL_CVT_BF(NAME, S)                                                                       \
TL_LOOP_CLONES static const float *NAME(const char *src, npy_intp stride, float *dst, npy_intp n) \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (stride == (npy_intp)sizeof(S)) {                                                         \
        const S *p = (const S *)src;                                                             \
        for (i = 0; i < n; i++) dst[i] = TL_CVT_RBF(p[i]);                                       \
    } else {                                                                                     \
        for (i = 0; i < n; i++) dst[i] = TL_CVT_RBF(*(const S *)(src + i * stride));             \
    }                                                                                            \
    return dst;                                                                                  \
}
TL_CVT_BF(tl_cvt_i16_bf, int16_t)
TL_CVT_BF(tl_cvt_u16_bf, uint16_t)
TL_CVT_BF(tl_cvt_i32_bf, int32_t)
TL_CVT_BF(tl_cvt_u32_bf, uint32_t)
/* 64-bit ones through float32 by tl_cvt_*_f (vectorized on AVX2), then rounded in place */
#define TL_CVT_BF64(NAME, CVT)                                                                   \
TL_LOOP_CLONES static const float *NAME(const char *src, npy_intp stride, float *dst, npy_intp n) \
{                                                                                                \
    npy_intp i;                                                                                  \
    CVT(src, stride, dst, n);                                                                    \
    for (i = 0; i < n; i++) dst[i] = tl_cvt_rbf(dst[i]);                                         \
    return dst;                                                                                  \
}
TL_CVT_BF64(tl_cvt_i64_bf, tl_cvt_i64_f)
TL_CVT_BF64(tl_cvt_u64_bf, tl_cvt_u64_f)
/* integers -> float16 values (in float32) as NumPy's cast: through float32, then rounded to
 * float16 by tl_convert (which raises the cast's overflow) */
#define TL_CVT_RF16(NAME, CVT)                                                                   \
static const float *NAME(const char *src, npy_intp stride, float *dst, npy_intp n)               \
{                                                                                                \
    uint16_t h[256];                                                                             \
    npy_intp i, m;                                                                               \
    CVT(src, stride, dst, n);                                                                    \
    for (i = 0; i < n; i += m) {                                                                 \
        m = n - i < 256 ? n - i : 256;                                                           \
        tl_convert_f32_to_f16(dst + i, h, m);                                                    \
        tl_convert_f16_to_f32(h, dst + i, m);                                                    \
    }                                                                                            \
    return dst;                                                                                  \
}
TL_CVT_RF16(tl_cvt_i16_rf16, tl_cvt_i16_f)
TL_CVT_RF16(tl_cvt_u16_rf16, tl_cvt_u16_f)
TL_CVT_RF16(tl_cvt_i32_rf16, tl_cvt_i32_f)
TL_CVT_RF16(tl_cvt_u32_rf16, tl_cvt_u32_f)
TL_CVT_RF16(tl_cvt_i64_rf16, tl_cvt_i64_f)
TL_CVT_RF16(tl_cvt_u64_rf16, tl_cvt_u64_f)

/* float16/bfloat16 -> float32/float64 through tl_convert (exact; bfloat16 -> float64 quiets a
 * signalling NaN and raises invalid, as ml_dtypes' cast does) */
#define TL_CVT_HALF(NAME, CT, BLOCK)                                                             \
static const CT *NAME(const char *src, npy_intp stride, CT *dst, npy_intp n)                     \
{                                                                                                \
    if (stride == 2) BLOCK((const uint16_t *)src, dst, n);                                       \
    else BLOCK##_strided(src, stride, (char *)dst, (npy_intp)sizeof(CT), n);                     \
    return dst;                                                                                  \
}
TL_CVT_HALF(tl_cvt_f16_f, float, tl_convert_f16_to_f32)
TL_CVT_HALF(tl_cvt_bf16_f, float, tl_convert_bf16_to_f32)
TL_CVT_HALF(tl_cvt_f16_d, double, tl_convert_f16_to_f64)
TL_CVT_HALF(tl_cvt_bf16_d, double, tl_convert_bf16_to_f64)


/* a descriptor's type number with the C long types resolved by size (NPY_LONG, NPY_LONGLONG:
 * NPY_INT for 4 bytes, NPY_LONGLONG for 8; the unsigned ones alike): what the converter and
 * kernel selectors below switch on */
static inline int tl_sized_num(const PyArray_Descr *d)
{
    switch (d->type_num) {
        case NPY_LONG: case NPY_LONGLONG: return d->elsize == 8 ? NPY_LONGLONG : NPY_INT;
        case NPY_ULONG: case NPY_ULONGLONG: return d->elsize == 8 ? NPY_ULONGLONG : NPY_UINT;
        default: return d->type_num;
    }
}
/* converters from a descriptor's dtype (only conversions that are exact; NULL otherwise) */
static tl_cvt_float tl_cvtsel_float(PyArray_Descr *d)
{
    switch (tl_sized_num(d)) {
        case NPY_BOOL: return tl_cvt_b_f;
        case NPY_BYTE: return tl_cvt_i8_f;
        case NPY_UBYTE: return tl_cvt_u8_f;
        case NPY_SHORT: return tl_cvt_i16_f;
        case NPY_USHORT: return tl_cvt_u16_f;
        case NPY_HALF: return tl_cvt_f16_f;
        case NPY_FLOAT: return tl_cvt_f32_f;
        /* rounding: only for float32 compute/result (the promoter allows them there) */
        case NPY_INT: return tl_cvt_i32_f;
        case NPY_UINT: return tl_cvt_u32_f;
        case NPY_LONGLONG: return tl_cvt_i64_f;
        case NPY_ULONGLONG: return tl_cvt_u64_f;
        default: return d->type_num == tl_bf16_typenum ? tl_cvt_bf16_f : NULL;
    }
}
/* integers rounded to the half type first (SFX bf: as ml_dtypes' cast, rf16: as NumPy's cast
 * to float16), then as float32 */
#define TL_CVTSEL_ROUNDED(NAME, SFX)                                                             \
static tl_cvt_float NAME(PyArray_Descr *d)                                                       \
{                                                                                                \
    switch (tl_sized_num(d)) {                                                                   \
        case NPY_SHORT: return tl_cvt_i16_##SFX;                                                 \
        case NPY_USHORT: return tl_cvt_u16_##SFX;                                                \
        case NPY_INT: return tl_cvt_i32_##SFX;                                                   \
        case NPY_UINT: return tl_cvt_u32_##SFX;                                                  \
        case NPY_LONGLONG: return tl_cvt_i64_##SFX;                                              \
        case NPY_ULONGLONG: return tl_cvt_u64_##SFX;                                             \
        default: return tl_cvtsel_float(d);                                                      \
    }                                                                                            \
}
TL_CVTSEL_ROUNDED(tl_cvtsel_bf16, bf)
TL_CVTSEL_ROUNDED(tl_cvtsel_f16, rf16)
static tl_cvt_double tl_cvtsel_double(PyArray_Descr *d)
{
    switch (tl_sized_num(d)) {
        case NPY_BOOL: return tl_cvt_b_d;
        case NPY_BYTE: return tl_cvt_i8_d;
        case NPY_UBYTE: return tl_cvt_u8_d;
        case NPY_SHORT: return tl_cvt_i16_d;
        case NPY_USHORT: return tl_cvt_u16_d;
        case NPY_INT: return tl_cvt_i32_d;
        case NPY_UINT: return tl_cvt_u32_d;
        case NPY_LONGLONG: return tl_cvt_i64_d;
        case NPY_ULONGLONG: return tl_cvt_u64_d;
        case NPY_HALF: return tl_cvt_f16_d;
        case NPY_FLOAT: return tl_cvt_f32_d;
        case NPY_DOUBLE: return tl_cvt_f64_d;
        default: return d->type_num == tl_bf16_typenum ? tl_cvt_bf16_d : NULL;
    }
}

/* stores of a block of results (compute type -> storage) */
/* (tl_convert raises the conversion's FP flags itself: overflow/underflow as NumPy's float16
 * cast, invalid for a signalling NaN as ml_dtypes' bfloat16 cast) */
static void tl_store_f16(const float *s, char *dst, npy_intp stride, npy_intp n, unsigned *fpe)
{
    (void)fpe;
    if (stride == 2) tl_convert_f32_to_f16(s, (uint16_t *)dst, n);
    else tl_convert_f32_to_f16_strided((const char *)s, (npy_intp)sizeof(float), dst, stride, n);
}
static void tl_store_bf16(const float *s, char *dst, npy_intp stride, npy_intp n, unsigned *fpe)
{
    (void)fpe;
    if (stride == 2) tl_convert_f32_to_bf16(s, (uint16_t *)dst, n);
    else tl_convert_f32_to_bf16_strided((const char *)s, (npy_intp)sizeof(float), dst, stride, n);
}
static void tl_store_f32(const float *s, char *dst, npy_intp stride, npy_intp n, unsigned *fpe)
{
    npy_intp i; (void)fpe;
    for (i = 0; i < n; i++) *(float *)(dst + i * stride) = s[i];
}
static void tl_store_f64(const double *s, char *dst, npy_intp stride, npy_intp n, unsigned *fpe)
{
    npy_intp i; (void)fpe;
    for (i = 0; i < n; i++) *(double *)(dst + i * stride) = s[i];
}
static void tl_store_bool(const tl_bool *s, char *dst, npy_intp stride, npy_intp n, unsigned *fpe)
{
    npy_intp i; (void)fpe;
    for (i = 0; i < n; i++) *(npy_bool *)(dst + i * stride) = s[i];
}

/* bool and integer blocks -> an integer compute type T (floor_divide and remainder, run by T's
 * same-dtype loop on the blocks: TL_LOOP_BLOCKED_SAME): C casts, NumPy's casts (bool 0/1); the
 * promoter only passes types T holds exactly. An operand of type T itself stays in place. */
#define TL_ICVT(NAME, S, T, EXPR)                                                                \
__attribute__((unused)) TL_CLONES_ALL static const T *NAME(const char *src, npy_intp stride,     \
                                                           T *dst, npy_intp n)                   \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (stride == (npy_intp)sizeof(S) && __builtin_types_compatible_p(S, T))                     \
        return (const T *)src;                                                                   \
    if (stride == (npy_intp)sizeof(S)) {                                                         \
        const S *p = (const S *)src;                                                             \
        for (i = 0; i < n; i++) dst[i] = (T)EXPR(p[i]);                                          \
    } else {                                                                                     \
        for (i = 0; i < n; i++) dst[i] = (T)EXPR(*(const S *)(src + i * stride));                \
    }                                                                                            \
    return dst;                                                                                  \
}
#define TL_ICVT_TO(T, SFX)                                                                       \
TL_ICVT(tl_icvt_b_##SFX, npy_bool, T, TL_CVT_B)                                                  \
TL_ICVT(tl_icvt_i8_##SFX, int8_t, T, TL_CVT_ID) TL_ICVT(tl_icvt_u8_##SFX, uint8_t, T, TL_CVT_ID)  \
TL_ICVT(tl_icvt_i16_##SFX, int16_t, T, TL_CVT_ID)                                                \
TL_ICVT(tl_icvt_u16_##SFX, uint16_t, T, TL_CVT_ID)                                               \
TL_ICVT(tl_icvt_i32_##SFX, int32_t, T, TL_CVT_ID)                                                \
TL_ICVT(tl_icvt_u32_##SFX, uint32_t, T, TL_CVT_ID)                                               \
TL_ICVT(tl_icvt_i64_##SFX, int64_t, T, TL_CVT_ID)                                                \
TL_ICVT(tl_icvt_u64_##SFX, uint64_t, T, TL_CVT_ID)                                               \
typedef const T *(*tl_icvt_##SFX##_fn)(const char *, npy_intp, T *, npy_intp);                   \
__attribute__((unused)) static tl_icvt_##SFX##_fn tl_cvtsel_##SFX(PyArray_Descr *d)              \
{                                                                                                \
    switch (tl_sized_num(d)) {                                                                   \
        case NPY_BOOL: return tl_icvt_b_##SFX;                                                   \
        case NPY_BYTE: return tl_icvt_i8_##SFX;                                                  \
        case NPY_UBYTE: return tl_icvt_u8_##SFX;                                                 \
        case NPY_SHORT: return tl_icvt_i16_##SFX;                                                \
        case NPY_USHORT: return tl_icvt_u16_##SFX;                                               \
        case NPY_INT: return tl_icvt_i32_##SFX;                                                  \
        case NPY_UINT: return tl_icvt_u32_##SFX;                                                 \
        case NPY_LONGLONG: return tl_icvt_i64_##SFX;                                             \
        case NPY_ULONGLONG: return tl_icvt_u64_##SFX;                                            \
        default: return NULL;                                                                    \
    }                                                                                            \
}                                                                                                \
__attribute__((unused)) static void tl_store_##SFX(const T *s, char *dst, npy_intp stride,       \
                                                   npy_intp n, unsigned *fpe)                    \
{                                                                                                \
    npy_intp i; (void)fpe;                                                                       \
    for (i = 0; i < n; i++) *(T *)(dst + i * stride) = s[i];                                     \
}
TL_ICVT_TO(int8_t, i8) TL_ICVT_TO(uint8_t, u8) TL_ICVT_TO(int16_t, i16)
TL_ICVT_TO(uint16_t, u16) TL_ICVT_TO(int32_t, i32) TL_ICVT_TO(uint32_t, u32)
TL_ICVT_TO(int64_t, i64) TL_ICVT_TO(uint64_t, u64)
/* stores of a block that are plain copies: the blocked loops write such results in place */
#define TL_STORE_PLAIN(STORE)                                                                    \
    (STORE == (void *)tl_store_f32 || STORE == (void *)tl_store_f64                              \
     || STORE == (void *)tl_store_bool || STORE == (void *)tl_store_i8                           \
     || STORE == (void *)tl_store_u8 || STORE == (void *)tl_store_i16                            \
     || STORE == (void *)tl_store_u16 || STORE == (void *)tl_store_i32                           \
     || STORE == (void *)tl_store_u32 || STORE == (void *)tl_store_i64                           \
     || STORE == (void *)tl_store_u64)

/* C: compute type (float/double), OC: element result type, CVTSEL: converter selector */
#define TL_LOOP_BLOCKED(NAME, C, OC, FN, CVTSEL, STORE)                                          \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{ TL_LOOP_BLOCKED_BODY(C, OC, TL_BLK_ELEM, FN, CVTSEL, STORE) }

/* NumPy's pairwise summation of the values of n elements of any dtype a converter CVT turns into
 * the compute type (SFX f32/f64: float/double): parts of up to 1024 elements, converted into a
 * buffer, sum as those of the converted array would (tl_pairwise_* splits them as the whole), so
 * a reduction with dtype=/out= of a float type gives np.add.reduce(x.astype(that type))'s bits,
 * not an in-order sum's. (Converting 128-element leaves one call each, float16 add.reduce took
 * 0.34 ns an element.) */
#define TL_PAIRWISE_CVT(SFX, C, CVT)                                                             \
static C tl_pairwise_cvt_##SFX(CVT cv, const char *a, npy_intp n, npy_intp stride)              \
{                                                                                                \
    npy_intp n2;                                                                                 \
    if (n <= 1024) {                                                                             \
        C buf[1024];                                                                             \
        return tl_pairwise_##SFX((const char *)cv(a, stride, buf, n), n, (npy_intp)sizeof(C));   \
    }                                                                                            \
    n2 = n / 2;                                                                                  \
    n2 -= n2 % 8;                                                                                \
    return tl_pairwise_cvt_##SFX(cv, a, n2, stride)                                              \
           + tl_pairwise_cvt_##SFX(cv, a + n2 * stride, n - n2, stride);                         \
}
/* float16's (NumPy's HALF_pairwise_sum): the exact float32 values of its leaves converted a block
 * at a time (F16C), so the same sums; each value converted on its own took 1.1 ns an element */
#define TL_PAIRWISE_F16                                                                          \
static float tl_pairwise_f16(const char *a, npy_intp n, npy_intp stride)                         \
{                                                                                                \
    return tl_pairwise_cvt_f32(tl_cvt_f16_f, a, n, stride);                                      \
}
/* A blocked loop whose reduction (its call shape) folds as NumPy's loop of the result type does
 * the cast operand: the accumulator in the compute type C over the call, stored once. FOLD:
 * TL_FOLD_PAIRWISE (add into float16/float32/float64: NumPy's pairwise sum) or TL_FOLD_IN_ORDER
 * (subtract/multiply/divide into float16: in float32, rounded once, as NumPy's half loops; rounding
 * every step, inf * 0 had given NaN where NumPy's product was 0) */
#define TL_FOLD_PAIRWISE(C, SFX, FN) acc += tl_pairwise_cvt_##SFX(cb, data[1], dims[0], st[1]);
#define TL_FOLD_IN_ORDER(C, SFX, FN)                                                             \
    {                                                                                            \
        C bb[TL_BLOCK];                                                                          \
        npy_intp i, j, n = dims[0];                                                              \
        for (i = 0; i < n; i += TL_BLOCK) {                                                      \
            npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                    \
            const C *pb = cb(data[1] + i * st[1], st[1], bb, m);                                 \
            for (j = 0; j < m; j++) acc = FN(acc, pb[j], &fpe);                                  \
        }                                                                                        \
    }
#define TL_LOOP_BLOCKED_RED(NAME, C, OC, FN, CVTSEL, STORE, SFX, FOLD)                           \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        unsigned fpe = 0;                                                                        \
        C acc;                                                                                   \
        tl_cvt_##SFX##_fn ca = CVTSEL(ctx->descriptors[0]), cb = CVTSEL(ctx->descriptors[1]);    \
        (void)aux;                                                                               \
        if (ca != NULL && cb != NULL) {                                                          \
            acc = *ca(data[0], 0, &acc, 1);                                                      \
            FOLD(C, SFX, FN)                                                                     \
            STORE(&acc, data[2], 0, 1, &fpe);                                                    \
            return tl_finish(fpe);                                                               \
        }                                                                                        \
    }                                                                                            \
    { TL_LOOP_BLOCKED_BODY(C, OC, TL_BLK_ELEM, FN, CVTSEL, STORE) }                              \
}
/* ... running the same-type loop SAME on the converted blocks: for ops whose same-type loop is
 * vectorized beyond what gcc makes of the element function (arctan2: libmvec) */
#define TL_LOOP_BLOCKED_SAME(NAME, C, OC, SAME, CVTSEL, STORE)                                   \
static int SAME(TL_LOOP_ARGS);                                                                   \
static int NAME(TL_LOOP_ARGS)                                                                    \
{ TL_LOOP_BLOCKED_BODY(C, OC, TL_BLK_SAME, SAME, CVTSEL, STORE) }
/* divmod's two outputs: as TL_LOOP_BLOCKED_SAME, SAME (the join's divmod loop) writing both,
 * straight into contiguous outputs stored as the compute type (not float16's), else through
 * blocks and STORE. (Two-output ufuncs have no reductions: no output is fed back.) */
#define TL_LOOP_BLOCKED_SAME2(NAME, C, SAME, CVTSEL, STORE)                                      \
static int SAME(TL_LOOP_ARGS);                                                                   \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j, blk = TL_BLOCK;                                                  \
    C ba[TL_BLOCK], bb[TL_BLOCK], bo[2][TL_BLOCK];                                               \
    const C *pa = ba, *pb = bb;                                                                  \
    int sca = 0, scb = 0;                                                                        \
    int direct = TL_STORE_PLAIN(STORE) && st[2] == (npy_intp)sizeof(C)                          \
                 && st[3] == (npy_intp)sizeof(C);                                                \
    unsigned fpe = 0;                                                                            \
    (void)aux;                                                                                   \
    TL_BLK_OPERANDS(C, CVTSEL)                                                                   \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        char *args_[4];                                                                          \
        npy_intp s_[4] = {sca && !scb ? 0 : (npy_intp)sizeof(C),                                 \
                          scb && !sca ? 0 : (npy_intp)sizeof(C), sizeof(C), sizeof(C)};          \
        if (!sca) pa = ca(data[0] + i * st[0], st[0], ba, m);                                    \
        if (!scb) pb = cb(data[1] + i * st[1], st[1], bb, m);                                    \
        args_[0] = (char *)pa;                                                                   \
        args_[1] = (char *)pb;                                                                   \
        args_[2] = direct ? data[2] + i * st[2] : (char *)bo[0];                                 \
        args_[3] = direct ? data[3] + i * st[3] : (char *)bo[1];                                 \
        if (SAME(ctx, args_, &m, s_, aux) < 0) return -1;                                        \
        if (!direct) {                                                                           \
            STORE(bo[0], data[2] + i * st[2], st[2], m, &fpe);                                   \
            STORE(bo[1], data[3] + i * st[3], st[3], m, &fpe);                                   \
        }                                                                                        \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}
#define TL_BLK_ELEM(FN, po, pa, pb, m) for (j = 0; j < (m); j++) (po)[j] = FN((pa)[j], (pb)[j], &fpe);
/* a broadcast scalar beside an array stays a scalar (stride 0) for SAME: power's loop takes its
 * shortcuts then (two scalars: blocks, which the vector loops take) */
#define TL_BLK_SAME(SAME, po, pa, pb, m)                                                         \
    {                                                                                            \
        char *args_[3] = {(char *)(pa), (char *)(pb), (char *)(po)};                             \
        npy_intp d_ = (m), s_[3] = {sca && !scb ? 0 : (npy_intp)sizeof(*(pa)),                   \
                                    scb && !sca ? 0 : (npy_intp)sizeof(*(pb)), sizeof(*(po))};   \
        if (SAME(ctx, args_, &d_, s_, aux) < 0) return -1;                                       \
    }
/* the blocked loops' converters of the two operands to C (ca, cb; a SystemError where there is
 * none), and a scalar (stride 0) operand that is not fed back (blk > 1) converted once into
 * its whole block (ba, bb), which then stays (sca, scb) */
#define TL_BLK_OPERANDS(C, CVTSEL)                                                               \
    __typeof__(CVTSEL(ctx->descriptors[0])) ca = CVTSEL(ctx->descriptors[0]);                    \
    __typeof__(ca) cb = CVTSEL(ctx->descriptors[1]);                                             \
    if (ca == NULL || cb == NULL)                                                                \
        return tl_loop_error(PyExc_SystemError, "typelattice: no converter for a blocked loop"); \
    if (blk > 1 && n > 1 && st[0] == 0) {                                                        \
        C x = *ca(data[0], 0, ba, 1);                                                            \
        for (j = 0; j < blk; j++) ba[j] = x;                                                     \
        sca = 1;                                                                                 \
    }                                                                                            \
    if (blk > 1 && n > 1 && st[1] == 0) {                                                        \
        C y = *cb(data[1], 0, bb, 1);                                                            \
        for (j = 0; j < blk; j++) bb[j] = y;                                                     \
        scb = 1;                                                                                 \
    }
#define TL_LOOP_BLOCKED_BODY(C, OC, BLK, FN, CVTSEL, STORE)                                      \
    npy_intp n = dims[0], i, j, blk = TL_BLOCK;                                                  \
    C ba[TL_BLOCK], bb[TL_BLOCK];                                                                \
    OC bo[TL_BLOCK];                                                                             \
    const C *pa, *pb;                                                                            \
    int sca = 0, scb = 0;                                                                        \
    int direct = TL_STORE_PLAIN(STORE) && st[2] == (npy_intp)sizeof(OC);                         \
    unsigned fpe = 0;                                                                            \
    (void)aux;                                                                                   \
    /* reductions and accumulations feed the output back into an input: element by element */    \
    if (tl_feedback(data[0], st[0], data[2], st[2], n) || tl_feedback(data[1], st[1], data[2], st[2], n)) \
        blk = 1;                                                                                 \
    TL_BLK_OPERANDS(C, CVTSEL)                                                                   \
    pa = ba; pb = bb;                                                                            \
    for (i = 0; i < n; i += blk) {                                                               \
        npy_intp m = n - i < blk ? n - i : blk;                                                  \
        if (!sca) pa = ca(data[0] + i * st[0], st[0], ba, m);                                    \
        if (!scb) pb = cb(data[1] + i * st[1], st[1], bb, m);                                    \
        if (direct) {   /* float32/float64 results go straight to a contiguous output */        \
            OC *po = (OC *)(data[2] + i * st[2]);                                                \
            BLK(FN, po, pa, pb, m)                                                               \
        } else {                                                                                 \
            BLK(FN, bo, pa, pb, m)                                                               \
            STORE(bo, data[2] + i * st[2], st[2], m, &fpe);                                      \
        }                                                                                        \
    }                                                                                            \
    return tl_finish(fpe);

/* complex64/complex128 (CT of F parts, type number CNUM) from operands of other types, the
 * same-dtype loop SAME run on blocks: an operand of type CT as it is; a real one converted to F
 * a block at a time (CVTSEL: exact, or rounded as NumPy's cast) and given a zero imaginary part;
 * a complex64 one of a complex128 loop widened part by part -- NumPy's casts, so the values,
 * NaNs and FP flags are those of its cast and SAME. A broadcast (stride 0) operand is converted
 * once and stays a scalar for SAME; an output fed back into an input (reductions) goes one
 * element at a time, in order. */
#define TL_CBLOCK 256     /* (two complex128 blocks and the output's in L1) */
#define TL_LOOP_BLOCKED_CPLX(NAME, F, CT, CNUM, SAME, CVTSEL)                                    \
static int SAME(TL_LOOP_ARGS);                                                                   \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], i, j, k, blk = TL_CBLOCK;                                               \
    CT buf[2][TL_CBLOCK];                                                                         \
    F part[TL_CBLOCK];                                                                            \
    /* per operand: 0 as it is, 1 real through cv, 2 complex64 widened */                       \
    int how[2];                                                                                  \
    __typeof__(CVTSEL(ctx->descriptors[0])) cv[2] = {NULL, NULL};                                \
    for (k = 0; k < 2; k++) {                                                                    \
        int num = ctx->descriptors[k]->type_num;                                                 \
        how[k] = num == (CNUM) ? 0 : num == NPY_CFLOAT ? 2 : 1;                                  \
        if (how[k] == 1 && (cv[k] = CVTSEL(ctx->descriptors[k])) == NULL)                        \
            return tl_loop_error(PyExc_SystemError, "typelattice: no converter for a blocked loop"); \
    }                                                                                            \
    if (tl_feedback(data[0], st[0], data[2], st[2], n) || tl_feedback(data[1], st[1], data[2], st[2], n)) \
        blk = 1;                                                                                 \
    for (i = 0; i < n; i += blk) {                                                               \
        npy_intp m = n - i < blk ? n - i : blk;                                                  \
        char *args_[3];                                                                          \
        npy_intp s_[3];                                                                          \
        for (k = 0; k < 2; k++) {                                                                \
            const char *src = data[k] + i * st[k];                                               \
            npy_intp c = st[k] == 0 ? 1 : m;    /* a scalar: converted once, stride 0 */         \
            if (how[k] == 0) {                                                                   \
                args_[k] = (char *)src;                                                          \
                s_[k] = st[k];                                                                   \
                continue;                                                                        \
            }                                                                                    \
            if (st[k] == 0 && i > 0 && blk > 1) {                                                \
                args_[k] = (char *)buf[k];                                                       \
                s_[k] = 0;                                                                       \
                continue;                                                                        \
            }                                                                                    \
            if (how[k] == 1) {                                                                   \
                const F *p = cv[k](src, st[k], part, c);                                         \
                for (j = 0; j < c; j++) { buf[k][j].re = p[j]; buf[k][j].im = 0; }               \
            } else if (st[k] == 2 * (npy_intp)sizeof(float)) {                                   \
                /* (part by part in one loop gcc vectorizes: the strided one below took       \
                 * 0.25 ns an element, complex64 == complex128 ran at 1.7x the complex128 call) */ \
                const float *q = (const float *)src;                                             \
                F *d = (F *)buf[k];                                                              \
                for (j = 0; j < 2 * c; j++) d[j] = (F)q[j];                                      \
            } else {                                                                             \
                for (j = 0; j < c; j++) {                                                        \
                    const float *q = (const float *)(src + j * st[k]);                           \
                    buf[k][j].re = (F)q[0];                                                      \
                    buf[k][j].im = (F)q[1];                                                      \
                }                                                                                \
            }                                                                                    \
            args_[k] = (char *)buf[k];                                                           \
            s_[k] = st[k] == 0 ? 0 : (npy_intp)sizeof(CT);                                       \
        }                                                                                        \
        args_[2] = data[2] + i * st[2];                                                          \
        s_[2] = st[2];                                                                           \
        if (SAME(ctx, args_, &m, s_, aux) < 0) return -1;                                        \
    }                                                                                            \
    return 0;                                                                                    \
}

/* equal / not_equal (NEG 1) of a complex join with one real operand: the real one converted
 * to F a block at a time (CVTSEL: NumPy's cast), compared with the complex one's parts where
 * they lie, re == x and im == 0 (a complex64 operand of a complex128 join widened part by
 * part): what the complex loop gives on the cast operands, quiet as it is (a NaN unequal, no
 * flags), without building them (complex64 == float64 ran at 2x the complex128 call). Two
 * complex operands and a fed-back output take FALLBACK, the blocked complex loop (defined
 * before). */
/* (the complex operand's parts of type P at pc, the real one's values x in F; contiguous
 * operands and output in a loop gcc vectorizes) */
#define TL_CEQ_PARTS(P, F, NEG)                                                                  \
    if (st[c] == 2 * (npy_intp)sizeof(P) && st[r] != 0 && st[2] == 1) {                          \
        const P *z = (const P *)pc;                                                              \
        for (j = 0; j < m; j++)                                                                  \
            po[j] = (npy_bool)((((F)z[2 * j] == x[j]) & ((F)z[2 * j + 1] == 0)) ^ (NEG));        \
    } else {                                                                                     \
        for (j = 0; j < m; j++) {                                                                \
            const P *z = (const P *)(pc + j * st[c]);                                            \
            F xj = x[st[r] == 0 ? 0 : j];                                                        \
            po[j * st[2]] = (npy_bool)((((F)z[0] == xj) & ((F)z[1] == 0)) ^ (NEG));              \
        }                                                                                        \
    }
#define TL_LOOP_CEQ_REAL(NAME, F, CNUM, CVTSEL, NEG, FALLBACK)                                   \
    TL_LOOP_CPLX_REAL(NAME, F, CNUM, CVTSEL, TL_CEQ_PARTS, NEG, FALLBACK)

/* equal / not_equal (NEG 1) of a complex64 and a complex128 operand, both contiguous with a
 * contiguous output: the complex64 parts widened in registers and compared with the complex128
 * ones where they lie, what the complex128 loop gives on NumPy's (exact) cast, quiet; other
 * layouts and a fed-back output take FALLBACK (the complex64 operand widened a block at a time
 * ran at 1.35-1.8x the complex128 call, reading fewer bytes) */
#define TL_LOOP_CEQ_WIDE(NAME, NEG, FALLBACK)                                                    \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], j;                                                                     \
    const int w = ctx->descriptors[0]->type_num == NPY_CFLOAT ? 0 : 1;    /* the complex64 one */ \
    if (ctx->descriptors[w]->type_num != NPY_CFLOAT                                              \
            || ctx->descriptors[1 - w]->type_num != NPY_CDOUBLE                                  \
            || st[w] != 2 * (npy_intp)sizeof(float) || st[1 - w] != 2 * (npy_intp)sizeof(double) \
            || st[2] != 1 || tl_feedback(data[0], st[0], data[2], st[2], n)                      \
            || tl_feedback(data[1], st[1], data[2], st[2], n))                                   \
        return FALLBACK(ctx, data, dims, st, aux);                                               \
    {                                                                                            \
        const float *a = (const float *)data[w];                                                 \
        const double *b = (const double *)data[1 - w];                                           \
        npy_bool *o = (npy_bool *)data[2];                                                       \
        for (j = 0; j < n; j++)                                                                  \
            o[j] = (npy_bool)((((double)a[2 * j] == b[2 * j])                                    \
                               & ((double)a[2 * j + 1] == b[2 * j + 1])) ^ (NEG));              \
    }                                                                                            \
    return 0;                                                                                    \
}

/* add / subtract (SUB 1) of a complex join with one real operand: each part of NumPy's
 * complex op on the cast operands, (cr + x, ci + 0) or (x + cr, 0 + ci), computed from the
 * complex operand's parts where they lie and the real one converted to F a block at a time,
 * without building complex blocks. The zero is hidden from the compiler, which would fold
 * ci - 0 to ci (a signalling NaN then stays signalling). Other operands and a fed-back output
 * take FALLBACK, the blocked complex loop (defined before). */
#define TL_CADD_ONE(P, F, SUB, z, xj, o)                                                         \
    {                                                                                            \
        F zr = (F)(z)[0], zi = (F)(z)[1];                                                        \
        (o)[0] = c == 0 ? ((SUB) ? zr - (xj) : zr + (xj)) : ((SUB) ? (xj) - zr : (xj) + zr);     \
        (o)[1] = c == 0 ? ((SUB) ? zi - zero : zi + zero) : ((SUB) ? zero - zi : zero + zi);     \
    }
/* (the complex operand's parts of type P at pc; contiguous operands and output in loops gcc
 * vectorizes, one per operand order) */
#define TL_CADD_PARTS(P, F, SUB)                                                                 \
    if (st[c] == 2 * (npy_intp)sizeof(P) && st[r] != 0 && st[2] == 2 * (npy_intp)sizeof(F)) {    \
        const P *z = (const P *)pc;                                                              \
        F *o = (F *)po;                                                                          \
        if (c == 0)                                                                              \
            for (j = 0; j < m; j++) TL_CADD_ONE(P, F, SUB, z + 2 * j, x[j], o + 2 * j)           \
        else                                                                                     \
            for (j = 0; j < m; j++) TL_CADD_ONE(P, F, SUB, z + 2 * j, x[j], o + 2 * j)           \
    } else {                                                                                     \
        for (j = 0; j < m; j++)                                                                  \
            TL_CADD_ONE(P, F, SUB, (const P *)(pc + j * st[c]), x[st[r] == 0 ? 0 : j],           \
                        (F *)(po + j * st[2]))                                                   \
    }
#define TL_LOOP_CADD_REAL(NAME, F, CNUM, CVTSEL, SUB, FALLBACK)                                  \
    TL_LOOP_CPLX_REAL(NAME, F, CNUM, CVTSEL, TL_CADD_PARTS, SUB, FALLBACK)
/* less / less_equal / greater / greater_equal (K: the op and the join's suffix, less_c64) of
 * a complex join with one real operand: the complex loop's compare (its element function, or
 * its AVX-512 kernel TL_VCCMP for contiguous parts of the join's type) with the real one's
 * imaginary part 0, the real one converted to F a block at a time: the results and flags of the
 * complex loop on the cast operands without building them (uint64 < complex64 ran at 1.5x the
 * complex64 call). */
#define TL_CT_float tl_c64
#define TL_CT_double tl_c128
/* the complex operand's m contiguous elements at pc as F parts in zp: in place, or (a complex64
 * operand of a complex128 join) widened into wide, as the complex loop's cast */
#define TL_PARTS_AS_F(P, F, zp)                                                                  \
    const F *zp = (const F *)pc;                                                                 \
    if (sizeof(P) != sizeof(F)) {                                                                \
        for (j = 0; j < 2 * m; j++) wide[j] = (F)((const P *)pc)[j];                             \
        zp = wide;                                                                               \
    }
/* FN, the complex loop's element function, on each complex element and the real one with its
 * imaginary part 0 (the cast's), in the operands' order; OT: the output's C type. Contiguous
 * complex and output operands get loops of their own (XV: the real value, x[j] or a broadcast
 * one's, read once as the output might alias it), which gcc vectorizes as the complex loop's. */
#define TL_CELEM_CONTIG(P, F, FN, OT, XV)                                                        \
    {                                                                                            \
        const P *z = (const P *)pc;                                                              \
        OT *o = (OT *)po;                                                                        \
        if (c == 0)                                                                              \
            for (j = 0; j < m; j++) {                                                            \
                TL_CT_##F zc = {(F)z[2 * j], (F)z[2 * j + 1]}, xc = {XV, zero};                   \
                o[j] = FN(zc, xc, &fpe);                                                         \
            }                                                                                    \
        else                                                                                     \
            for (j = 0; j < m; j++) {                                                            \
                TL_CT_##F zc = {(F)z[2 * j], (F)z[2 * j + 1]}, xc = {XV, zero};                   \
                o[j] = FN(xc, zc, &fpe);                                                         \
            }                                                                                    \
    }
#define TL_CELEM_EACH(P, F, FN, OT)                                                              \
    {                                                                                            \
        if (st[c] == 2 * (npy_intp)sizeof(P) && st[2] == (npy_intp)sizeof(OT)) {                \
            const F x0 = x[0];                                                                   \
            if (st[r] != 0) TL_CELEM_CONTIG(P, F, FN, OT, x[j])                                  \
            else TL_CELEM_CONTIG(P, F, FN, OT, x0)                                               \
        } else                                                                                   \
            for (j = 0; j < m; j++) {                                                            \
                const P *z = (const P *)(pc + j * st[c]);                                        \
                TL_CT_##F zc = {(F)z[0], (F)z[1]}, xc = {x[st[r] == 0 ? 0 : j], zero};           \
                *(OT *)(po + j * st[2]) = c == 0 ? FN(zc, xc, &fpe) : FN(xc, zc, &fpe);           \
            }                                                                                    \
    }
#define TL_CCMP_PARTS(P, F, K)                                                                   \
    {                                                                                            \
        int done = 0;                                                                            \
        F wide[sizeof(P) != sizeof(F) ? 2 * TL_BLOCK : 1];                                       \
        if (tl_host_avx512 && st[c] == 2 * (npy_intp)sizeof(P) && st[2] == 1) {                  \
            TL_PARTS_AS_F(P, F, zp)                                                              \
            TL_VCCMPR_CALL(K, zp, x, st[r] != 0, c == 0, (tl_bool *)po, m, done)                 \
        }                                                                                        \
        if (!done) TL_CELEM_EACH(P, F, tl_##K, tl_bool)                                          \
    }
#define TL_LOOP_CCMP_REAL(NAME, F, CNUM, CVTSEL, K, FALLBACK)                                    \
    TL_LOOP_CPLX_REAL(NAME, F, CNUM, CVTSEL, TL_CCMP_PARTS, K, FALLBACK)
/* multiply (K: the join's suffix) of a complex join with one real operand: the complex multiply
 * kernel with the real block put in (x, +0.0) pairs in registers, the element function on other
 * layouts (the bits of both: the complex loop's on the complex blocks, which this skips; a
 * complex64 operand of a complex128 join widened into a block first). AVX-512 CPUs only: the
 * blocked loop (FALLBACK) runs the AVX2 kernel on its blocks. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CMUL_REAL_CALL(F, K, z, x, cx, zfirst, o, n)                                          \
    {                                                                                            \
        F pair_[2] = {x[0], zero};           /* (a broadcast real: a complex scalar) */          \
        const F *xs_ = (cx) ? x : pair_;                                                         \
        int mx_ = (cx) ? TL_CMUL_REAL : 0;                                                       \
        if (zfirst) tl_cmul_##K##_avx512(z, 1, xs_, mx_, o, n);                                  \
        else tl_cmul_##K##_avx512(xs_, mx_, z, 1, o, n);                                         \
        done = 1;                                                                                \
    }
#else
#define TL_CMUL_REAL_CALL(F, K, z, x, cx, zfirst, o, n)
#endif
#define TL_CMUL_PARTS(P, F, K)                                                                   \
    {                                                                                            \
        int done = 0;                                                                            \
        F wide[sizeof(P) != sizeof(F) ? 2 * TL_BLOCK : 1];                                       \
        if (st[c] == 2 * (npy_intp)sizeof(P) && st[2] == 2 * (npy_intp)sizeof(F)) {             \
            TL_PARTS_AS_F(P, F, zp)                                                              \
            TL_CMUL_REAL_CALL(F, K, zp, x, st[r] != 0, c == 0, (F *)po, m)                       \
        }                                                                                        \
        if (!done) TL_CELEM_EACH(P, F, tl_multiply_##K, TL_CT_##F)                                \
    }
#define TL_LOOP_CMUL_REAL(NAME, F, CNUM, CVTSEL, K, FALLBACK)                                    \
    TL_LOOP_CPLX_REAL(NAME##_avx512, F, CNUM, CVTSEL, TL_CMUL_PARTS, K, FALLBACK)                \
    static int NAME(TL_LOOP_ARGS)                                                                \
    {                                                                                            \
        return (tl_host_avx512 ? NAME##_avx512 : FALLBACK)(ctx, data, dims, st, aux);            \
    }
/* maximum / minimum / fmax / fmin (K: the op and the join's suffix) of a complex join with one
 * real operand: their element function, the complex loop's, without the complex block of the
 * real operand (int64 with complex64: 1.4x the complex64 call) */
#define TL_CELEM_PARTS(P, F, K) TL_CELEM_EACH(P, F, tl_##K, TL_CT_##F)
#define TL_LOOP_CELEM_REAL(NAME, F, CNUM, CVTSEL, K, FALLBACK)                                   \
    TL_LOOP_CPLX_REAL(NAME, F, CNUM, CVTSEL, TL_CELEM_PARTS, K, FALLBACK)
/* the loop of all: the real operand at r converted a block at a time (x), the complex one's
 * parts at pc (float ones of a complex64 operand in a complex128 join), PARTS(P, F, K) on them
 * (explicit FP flags into fpe); zero: a 0 the compiler cannot fold */
#define TL_LOOP_CPLX_REAL(NAME, F, CNUM, CVTSEL, PARTS, K, FALLBACK)                             \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], i, j;                                                                  \
    const int r = !PyTypeNum_ISCOMPLEX(ctx->descriptors[1]->type_num), c = 1 - r;                \
    F part[TL_BLOCK], zero = 0;                                                                  \
    unsigned fpe = 0;                                                                            \
    __typeof__(CVTSEL(ctx->descriptors[0])) cv = NULL;                                           \
    __asm__("" : "+m"(zero));                                                                    \
    (void)zero;                                                                                  \
    if (PyTypeNum_ISCOMPLEX(ctx->descriptors[r]->type_num)                                       \
            || tl_feedback(data[0], st[0], data[2], st[2], n)                                    \
            || tl_feedback(data[1], st[1], data[2], st[2], n))                                   \
        return FALLBACK(ctx, data, dims, st, aux);                                               \
    if ((cv = CVTSEL(ctx->descriptors[r])) == NULL)                                              \
        return tl_loop_error(PyExc_SystemError, "typelattice: no converter for a blocked loop"); \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        const F *x = cv(data[r] + i * st[r], st[r], part, st[r] == 0 ? 1 : m);                   \
        const char *pc = data[c] + i * st[c];                                                    \
        char *po = data[2] + i * st[2];                                                          \
        if (ctx->descriptors[c]->type_num != (CNUM))    /* complex64 in a complex128 join */     \
            PARTS(float, F, K)                                                                   \
        else                                                                                     \
            PARTS(F, F, K)                                                                       \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* float16/bfloat16 results fused in registers (tl_half_binary in tl_convert.c: load, widen,
 * compute and round one vector at a time, no block buffers) for contiguous or scalar operands of
 * kinds it has a kernel for (the half type itself; integers/bool with the half type; for float32
 * results (KO TL_HK_F32) a half type with float32 or the other half type; comparisons: KO the
 * compute kind, bool results, FN NULL) and a
 * contiguous output; FALLBACK (the blocked loop) for strided or fed-back operands, a scalar
 * float16 sNaN, and without SIMD. FN: the float32 element function of the op (for vectors holding
 * a float16 signalling NaN). */
static inline int tl_hkind(PyArray_Descr *d)
{
    switch (tl_sized_num(d)) {
        case NPY_HALF: return TL_HK_F16;
        case NPY_FLOAT: return TL_HK_F32;
        case NPY_BYTE: return TL_HK_I8;
        case NPY_UBYTE: return TL_HK_U8;
        case NPY_BOOL: return TL_HK_B;
        case NPY_SHORT: return TL_HK_I16;
        case NPY_USHORT: return TL_HK_U16;
        case NPY_INT: return TL_HK_I32;
        case NPY_UINT: return TL_HK_U32;
        case NPY_LONGLONG: return TL_HK_I64;
        case NPY_ULONGLONG: return TL_HK_U64;
        default: return d->type_num == tl_bf16_typenum ? TL_HK_BF16 : -1;
    }
}
/* calls of up to TL_FEW16 elements: tl_half_binary_few (no kernel set-up) */
#define TL_FEW16 8
#define TL_LOOP_FUSED16(NAME, HOP, KO, FN, FALLBACK)                                             \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0];                                                                        \
    int ka = tl_hkind(ctx->descriptors[0]), kb = tl_hkind(ctx->descriptors[1]);                  \
    /* reductions as NumPy's: add pairwise, float16 subtract/multiply/divide in float32 */      \
    if (((HOP == TL_HOP_ADD && KO != TL_HK_BF16)                                                 \
         || ((HOP == TL_HOP_SUBTRACT || HOP == TL_HOP_MULTIPLY || HOP == TL_HOP_DIVIDE)          \
             && KO == TL_HK_F16)) && TL_RED_SHAPE(data, st))                                     \
        return FALLBACK(ctx, data, dims, st, aux);                                               \
    if (n <= TL_FEW16 && ka >= 0 && kb >= 0                                                      \
            && tl_half_binary_few(HOP, (tl_half_elem_fn)(FN), KO, ka, data[0], st[0], kb,        \
                                  data[1], st[1], data[2], st[2], n))                            \
        return 0;                                                                                \
    if (ka >= 0 && kb >= 0 && st[2] == (npy_intp)(TL_HOP_IS_CMP(HOP) ? 1 : tl_hk_size(KO))     \
            && (st[0] == 0 || st[0] == (npy_intp)tl_hk_size(ka))                                 \
            && (st[1] == 0 || st[1] == (npy_intp)tl_hk_size(kb))                                 \
            && !tl_feedback(data[0], st[0], data[2], st[2], n)                                   \
            && !tl_feedback(data[1], st[1], data[2], st[2], n)                                   \
            && tl_half_binary(HOP, FN, KO, ka, data[0], st[0] != 0, kb, data[1], st[1] != 0,     \
                              data[2], n))                                                       \
        return 0;                                                                                \
    return FALLBACK(ctx, data, dims, st, aux);                                                   \
}

/* blocked comparison (bool results) through a block comparison VFN */
#define TL_LOOP_BLOCKED_CMP(NAME, C, VFN, CVTSEL)                                                \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, blk = TL_BLOCK;                                                     \
    C ba[TL_BLOCK], bb[TL_BLOCK];                                                                \
    tl_bool bo[TL_BLOCK];                                                                        \
    int direct = st[2] == 1, sca = st[0] == 0, scb = st[1] == 0;                                 \
    unsigned fpe = 0;                                                                            \
    __typeof__(CVTSEL(ctx->descriptors[0])) ca = CVTSEL(ctx->descriptors[0]);                    \
    __typeof__(ca) cb = CVTSEL(ctx->descriptors[1]);                                             \
    const C *pa = NULL, *pb = NULL;                                                              \
    (void)aux;                                                                                   \
    if (ca == NULL || cb == NULL) {                                                              \
        PyGILState_STATE gs = PyGILState_Ensure();                                               \
        PyErr_SetString(PyExc_SystemError, "typelattice: no converter for a blocked loop");      \
        PyGILState_Release(gs);                                                                  \
        return -1;                                                                               \
    }                                                                                            \
    if (n <= 0) return 0;                                                                        \
    /* a scalar (stride 0) operand is converted once */                                          \
    if (sca) pa = ca(data[0], 0, ba, 1);                                                         \
    if (scb) pb = cb(data[1], 0, bb, 1);                                                         \
    for (i = 0; i < n; i += blk) {                                                               \
        npy_intp m = n - i < blk ? n - i : blk;                                                  \
        tl_bool *po = direct ? (tl_bool *)(data[2] + i) : bo;                                    \
        if (!sca) pa = ca(data[0] + i * st[0], st[0], ba, m);                                    \
        if (!scb) pb = cb(data[1] + i * st[1], st[1], bb, m);                                    \
        VFN(pa, !sca, pb, !scb, po, m);                                                          \
        if (!direct) tl_store_bool(bo, data[2] + i * st[2], st[2], m, &fpe);                     \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* float16/bfloat16 comparisons on their bits (no conversion): integer keys ordered as the values,
 * key(-0) == key(+0), NaN operands compare false (not_equal: true), as NumPy's npy_half_lt etc.
 * and ml_dtypes' float32 comparisons. INF: bits of +inf (larger magnitudes are NaN). */
#define TL_CMP16_FNS(S, INF)                                                                     \
static inline int16_t tl_k16_##S(uint16_t u)     /* 16-bit arithmetic: 16 lanes per AVX2 op */  \
{ uint16_t m = (uint16_t)(0u - (uint16_t)(u >> 15));                                             \
  return (int16_t)(uint16_t)((uint16_t)((uint16_t)(u & 0x7fffu) ^ m) - m); }                     \
static inline int tl_o16_##S(uint16_t a, uint16_t b)                                             \
{ return ((uint16_t)(a & 0x7fffu) <= (uint16_t)INF) & ((uint16_t)(b & 0x7fffu) <= (uint16_t)INF); } \
static inline tl_bool tl_c16_less_##S(uint16_t a, uint16_t b)                                    \
{ return (tl_bool)(tl_o16_##S(a, b) & (tl_k16_##S(a) < tl_k16_##S(b))); }                        \
static inline tl_bool tl_c16_less_equal_##S(uint16_t a, uint16_t b)                              \
{ return (tl_bool)(tl_o16_##S(a, b) & (tl_k16_##S(a) <= tl_k16_##S(b))); }                       \
static inline tl_bool tl_c16_greater_##S(uint16_t a, uint16_t b) { return tl_c16_less_##S(b, a); } \
static inline tl_bool tl_c16_greater_equal_##S(uint16_t a, uint16_t b)                           \
{ return tl_c16_less_equal_##S(b, a); }                                                          \
static inline tl_bool tl_c16_equal_##S(uint16_t a, uint16_t b)                                   \
{ return (tl_bool)(tl_o16_##S(a, b) & (tl_k16_##S(a) == tl_k16_##S(b))); }                       \
static inline tl_bool tl_c16_not_equal_##S(uint16_t a, uint16_t b)                               \
{ return (tl_bool)!tl_c16_equal_##S(a, b); }                                                     \
/* x != 0 (NaN included) is (bits & 0x7fff) != 0 */                                             \
static inline tl_bool tl_c16_logical_and_##S(uint16_t a, uint16_t b)                             \
{ return (tl_bool)(((a & 0x7fffu) != 0) & ((b & 0x7fffu) != 0)); }                               \
static inline tl_bool tl_c16_logical_or_##S(uint16_t a, uint16_t b)                              \
{ return (tl_bool)((((a | b) & 0x7fffu) != 0)); }                                                \
static inline tl_bool tl_c16_logical_xor_##S(uint16_t a, uint16_t b)                             \
{ return (tl_bool)(((a & 0x7fffu) != 0) ^ ((b & 0x7fffu) != 0)); }
TL_CMP16_FNS(f16, 0x7c00u)
TL_CMP16_FNS(bf16, 0x7f80u)

/* contiguous or scalar operands with a contiguous bool output here; anything else: FALLBACK */
#define TL_LOOP_CMP16(NAME, S, OPN, FALLBACK)                                                    \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    if (st[2] == 1 && (st[0] == 2 || st[0] == 0) && (st[1] == 2 || st[1] == 0)) {                \
        npy_intp i, n = dims[0];                                                                 \
        const uint16_t *a = (const uint16_t *)data[0], *b = (const uint16_t *)data[1];           \
        tl_bool *o = (tl_bool *)data[2];                                                         \
        if (st[0] && st[1]) for (i = 0; i < n; i++) o[i] = tl_c16_##OPN##_##S(a[i], b[i]);       \
        else if (st[0]) { uint16_t y = b[0]; for (i = 0; i < n; i++) o[i] = tl_c16_##OPN##_##S(a[i], y); } \
        else if (st[1]) { uint16_t x = a[0]; for (i = 0; i < n; i++) o[i] = tl_c16_##OPN##_##S(x, b[i]); } \
        else for (i = 0; i < n; i++) o[i] = tl_c16_##OPN##_##S(a[0], b[0]);                      \
        return 0;                                                                                \
    }                                                                                            \
    return FALLBACK(ctx, data, dims, st, aux);                                                   \
}

/* float16/bfloat16 copysign and heaviside on their bits: NumPy's float16 loops (npy_half_copysign;
 * heaviside's NaN for a NaN x) and ml_dtypes' bfloat16 ones (bits as they are), where the
 * float32 route costs two conversions. ONE: bits of 1.0; QNAN: float16's NaN result (bfloat16: 0,
 * x is returned). */
#define TL_BITS16_FNS(S, INF, ONE, QNAN)                                                         \
static inline uint16_t tl_b16_copysign_##S(uint16_t a, uint16_t b)                               \
{ return (uint16_t)((a & 0x7fffu) | (b & 0x8000u)); }                                            \
static inline uint16_t tl_b16_heaviside_##S(uint16_t x, uint16_t h)                              \
{   /* (by masks, as tl_hheaviside: gcc vectorizes a one pass converting h then) */              \
    uint16_t ax = (uint16_t)(x & 0x7fffu);                                                       \
    uint16_t nan = QNAN ? (uint16_t)QNAN : x;                                                    \
    uint16_t isnan = (uint16_t)-(ax > INF), zero = (uint16_t)-(ax == 0);                         \
    uint16_t neg = (uint16_t)-(x >> 15);                                                         \
    return (uint16_t)((isnan & nan)                                                              \
                      | (~isnan & ((zero & h) | (~zero & ~neg & (uint16_t)ONE))));               \
}
TL_BITS16_FNS(f16, 0x7c00u, 0x3c00u, 0x7e00u)
TL_BITS16_FNS(bf16, 0x7f80u, 0x3f80u, 0u)
/* maximum/minimum/fmax/fmin on the bits: the element functions' choices (tl_elem.h) made with
 * the comparisons above, the chosen operand's bits as they are (NaN payloads kept), as NumPy's
 * float16 loops and ml_dtypes' bfloat16 ones give them; ties give the first operand in NumPy's
 * float16 loops, the second in ml_dtypes'. GE/LE: the comparisons choosing the first operand. */
#define TL_MINMAX16_FNS(S, INF, GE, LE)                                                          \
static inline uint16_t tl_b16_maximum_##S(uint16_t a, uint16_t b)                                \
{ return GE(a, b) | ((a & 0x7fffu) > INF) ? a : b; }                                             \
static inline uint16_t tl_b16_minimum_##S(uint16_t a, uint16_t b)                                \
{ return LE(a, b) | ((a & 0x7fffu) > INF) ? a : b; }                                             \
static inline uint16_t tl_b16_fmax_##S(uint16_t a, uint16_t b)                                   \
{ return GE(a, b) | ((b & 0x7fffu) > INF) ? a : b; }                                             \
static inline uint16_t tl_b16_fmin_##S(uint16_t a, uint16_t b)                                   \
{ return LE(a, b) | ((b & 0x7fffu) > INF) ? a : b; }
TL_MINMAX16_FNS(f16, 0x7c00u, tl_c16_greater_equal_f16, tl_c16_less_equal_f16)
TL_MINMAX16_FNS(bf16, 0x7f80u, tl_c16_greater_bf16, tl_c16_less_bf16)

/* copysign/heaviside reductions: the element loop's chain, the accumulator in a register */
#define TL_RED16_CHAIN_FN(OPN, S)                                                                \
static uint16_t tl_red_##OPN##_##S(uint16_t acc, const uint16_t *p, npy_intp n)                  \
{                                                                                                \
    npy_intp j;                                                                                  \
    for (j = 0; j < n; j++) acc = tl_b16_##OPN##_##S(acc, p[j]);                                 \
    return acc;                                                                                  \
}
TL_RED16_CHAIN_FN(copysign, f16) TL_RED16_CHAIN_FN(heaviside, f16)
TL_RED16_CHAIN_FN(copysign, bf16) TL_RED16_CHAIN_FN(heaviside, bf16)

/* same-dtype float16/bfloat16 loops of a bits function (TL_BITS16_FNS), any strides; reductions
 * of contiguous data through tl_red_<op>_<S> (max/min: one SIMD pass), strided ones and
 * accumulate by the chain with the running value in a register (the element loop stored and
 * reloaded it each step) */
#define TL_LOOP_BITS16(NAME, S, OPN)                                                             \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp i, n = dims[0];                                                                     \
    (void)ctx; (void)aux;                                                                        \
    if (TL_RED_SHAPE(data, st)) {                                                                \
        uint16_t acc = *(const uint16_t *)data[0];                                               \
        const char *b = data[1];                                                                 \
        if (st[1] == 2) acc = tl_red_##OPN##_##S(acc, (const uint16_t *)b, n);                   \
        else for (i = 0; i < n; i++, b += st[1]) acc = tl_b16_##OPN##_##S(acc, *(const uint16_t *)b); \
        *(uint16_t *)data[0] = acc;                                                              \
    }                                                                                            \
    else if (TL_ACC_SHAPE(data, st)) {                                                           \
        uint16_t acc = *(const uint16_t *)data[0];                                               \
        const char *b = data[1];                                                                 \
        char *o = data[2];                                                                       \
        for (i = 0; i < n; i++, b += st[1], o += st[2]) {                                        \
            acc = tl_b16_##OPN##_##S(acc, *(const uint16_t *)b);                                 \
            *(uint16_t *)o = acc;                                                                \
        }                                                                                        \
    }                                                                                            \
    else if (st[0] == 2 && st[1] == 2 && st[2] == 2) {                                           \
        const uint16_t *a = (const uint16_t *)data[0], *b = (const uint16_t *)data[1];           \
        uint16_t *o = (uint16_t *)data[2];                                                       \
        for (i = 0; i < n; i++) o[i] = tl_b16_##OPN##_##S(a[i], b[i]);                           \
    }                                                                                            \
    else if (st[0] == 2 && st[1] == 0 && st[2] == 2) {                                           \
        const uint16_t *a = (const uint16_t *)data[0], y = *(const uint16_t *)data[1];           \
        uint16_t *o = (uint16_t *)data[2];                                                       \
        for (i = 0; i < n; i++) o[i] = tl_b16_##OPN##_##S(a[i], y);                              \
    }                                                                                            \
    else {                                                                                       \
        char *a = data[0], *b = data[1], *o = data[2];                                           \
        for (i = 0; i < n; i++, a += st[0], b += st[1], o += st[2])                              \
            *(uint16_t *)o = tl_b16_##OPN##_##S(*(const uint16_t *)a, *(const uint16_t *)b);     \
    }                                                                                            \
    return 0;                                                                                    \
}

static inline int tl_is_f16(PyArray_Descr *d) { return d->type_num == NPY_HALF; }
static inline int tl_is_bf16(PyArray_Descr *d) { return d->type_num == tl_bf16_typenum; }
/* 8-bit integers and bools (|v| <= 255: exact in both half types) to the half bits from
 * float32's fields, a loop gcc vectorizes (the float32 -> half block conversion, with its
 * rounding and flag checks, took three times the bit op's time) */
static inline uint16_t tl_small_f16(int32_t v)
{
    uint32_t u = tl_f32_to_bits((float)v);
    uint16_t h = (uint16_t)(((u >> 16) & 0x8000u) | ((((u >> 23) & 0xffu) - 112u) << 10)
                            | ((u >> 13) & 0x3ffu));
    return (uint16_t)(h & (uint16_t)-(int32_t)(v != 0));     /* (no branch: gcc vectorizes) */
}
static inline uint16_t tl_small_bf16(int32_t v) { return (uint16_t)(tl_f32_to_bits((float)v) >> 16); }
/* a 16-bit integer's bfloat16 bits (exact in float32, then tl_cvt_rbf: ml_dtypes' cast) */
static inline uint16_t tl_int_bf16(float f) { return (uint16_t)(tl_f32_to_bits(tl_cvt_rbf(f)) >> 16); }
#define tl_small_simd_f16(kind, src, dst, n) tl_convert_int_to_half((kind), TL_HK_F16, (src), (dst), (n))
#define tl_small_simd_bf16(kind, src, dst, n) 0     /* (the C loop is as fast) */
/* (the three kinds' loops over elements IDX, one vectorizable loop each) */
#define TL_SMALL_LOOPS(S, IDX)                                                                   \
    if (kind == TL_HK_I8) for (j = 0; j < n; j++) dst[j] = tl_small_##S(p[IDX]);                 \
    else if (kind == TL_HK_U8) for (j = 0; j < n; j++) dst[j] = tl_small_##S(q[IDX]);            \
    else for (j = 0; j < n; j++) dst[j] = tl_small_##S(q[IDX] != 0);
#define TL_SMALL_TO_HALF(S)                                                                      \
TL_LOOP_CLONES static int tl_small_to_##S(int kind, const char *src, npy_intp stride,          \
                                          uint16_t *dst, npy_intp n)                             \
{                                                                                                \
    npy_intp j;                                                                                  \
    const int8_t *p = (const int8_t *)src;                                                       \
    const uint8_t *q = (const uint8_t *)src;                                                     \
    if (kind != TL_HK_I8 && kind != TL_HK_U8 && kind != TL_HK_B)                                 \
        return 0;                                                                                \
    if (stride == 1 && tl_small_simd_##S(kind, src, dst, n))                                     \
        return 1;                                                                                \
    if (stride == 1) { TL_SMALL_LOOPS(S, j) }                                                    \
    else { TL_SMALL_LOOPS(S, j * stride) }                                                       \
    return 1;                                                                                    \
}
TL_SMALL_TO_HALF(f16)
TL_SMALL_TO_HALF(bf16)
#define TL_HK_f16 TL_HK_F16
#define TL_HK_bf16 TL_HK_BF16
/* operand x's elements [0, m) (its kind k: tl_hkind) as S bits into hb: 8-bit kinds directly,
 * contiguous wider integers in one pass (AVX-512), others through float32 */
#define TL_TO_HALF_BITS(S, cv, k, src, stride, fb, hb, m)                                        \
    do {                                                                                         \
        if (!tl_small_to_##S((k), (src), (stride), (hb), (m))                                    \
                && !((k) >= 0 && (stride) == tl_hk_size(k)                                       \
                     && tl_convert_int_to_half((k), TL_HK_##S, (src), (hb), (m))))               \
            tl_convert_f32_to_##S((cv)((src), (stride), (fb), (m)), (hb), (m));                  \
    } while (0)
/* the bit op OPN of an 8-bit integer/bool operand x (0: first, 1: second; its bits CV, exact:
 * tl_small_S) and an S operand HV, one vectorizable loop per (kind, order) */
#define TL_SMALL_BITS16_ORDERS(S, OPN, CV, HV)                                                   \
    if (x == 0) for (j = 0; j < n; j++) o[j] = tl_b16_##OPN##_##S(CV, HV);                       \
    else for (j = 0; j < n; j++) o[j] = tl_b16_##OPN##_##S(HV, CV);
#define TL_SMALL_BITS16_KINDS(S, OPN, HV)                                                        \
    if (kind == TL_HK_I8) { TL_SMALL_BITS16_ORDERS(S, OPN, tl_small_##S(p[j]), HV) }             \
    else if (kind == TL_HK_U8) { TL_SMALL_BITS16_ORDERS(S, OPN, tl_small_##S(q[j]), HV) }        \
    else { TL_SMALL_BITS16_ORDERS(S, OPN, tl_small_##S(q[j] != 0), HV) }
/* A mixed call (an integer or bool operand, the other of the half type S) of an op whose
 * same-dtype half loop SAME works on the bits (TL_LOOP_BITS16, element function OPN): the
 * integer operand cast to S's bits (NumPy's / ml_dtypes' cast through float32, its FP flags
 * included), the S operand read as it is, then the bit op: the op of the cast operands by
 * construction, at the bit loop's speed instead of the float32 round trip of the blocked loop.
 * A contiguous 8-bit operand (exact, no flags) beside a contiguous or scalar S one, or a 16-bit
 * one beside a contiguous S one (bfloat16: no flag either): one pass (NAME##_small; 16-bit:
 * copysign 0.7x the blocks' time, heaviside 0.8-0.95x); other integers: a block at a time, then
 * SAME on the blocks. Fed-back calls
 * (reductions, accumulations) and other operand dtypes: FALLBACK. */
#define TL_SMALL_BITS16_FN(NAME, S, OPN)                                                         \
TL_LOOP_CLONES static void NAME##_small(int kind, int x, const char *src, const uint16_t *h,    \
                                        int hc, uint16_t *o, npy_intp n)                         \
{                                                                                                \
    npy_intp j;                                                                                  \
    const int8_t *p = (const int8_t *)src;                                                       \
    const uint8_t *q = (const uint8_t *)src;                                                     \
    if (kind == TL_HK_I16) {                                                                     \
        const int16_t *w = (const int16_t *)(const void *)src;                                   \
        TL_SMALL_BITS16_ORDERS(S, OPN, tl_int_bf16((float)w[j]), h[j])                           \
    } else if (kind == TL_HK_U16) {                                                              \
        const uint16_t *w = (const uint16_t *)(const void *)src;                                 \
        TL_SMALL_BITS16_ORDERS(S, OPN, tl_int_bf16((float)w[j]), h[j])                           \
    } else if (hc) { TL_SMALL_BITS16_KINDS(S, OPN, h[j]) }                                       \
    else { const uint16_t y = h[0]; TL_SMALL_BITS16_KINDS(S, OPN, y) }                           \
}
/* the one pass for bfloat16 only (gcc vectorizes tl_small_bf16 with the bit op); float16's
 * conversion vectorized by gcc ran at a third of the block conversion's speed
 * (tl_convert_int_to_half). RUN: 1 when it ran. */
#define TL_SMALL_BITS16_FN_f16(NAME, OPN)
#define TL_SMALL_BITS16_FN_bf16(NAME, OPN) TL_SMALL_BITS16_FN(NAME, bf16, OPN)
#define TL_SMALL_BITS16_RUN_f16(NAME, ...) 0
#define TL_SMALL_BITS16_RUN_bf16(NAME, ...) (NAME##_small(__VA_ARGS__), 1)
#define TL_B16_ONEPASS_copysign 1
#define TL_B16_ONEPASS_heaviside 1
#define TL_B16_ONEPASS_maximum 1
#define TL_B16_ONEPASS_minimum 1
#define TL_B16_ONEPASS_fmax 1
#define TL_B16_ONEPASS_fmin 1
#define TL_LOOP_BLOCKED_BITS16(NAME, S, OPN, SAME, FALLBACK)                                     \
TL_SMALL_BITS16_FN_##S(NAME, OPN)                                                                \
TL_LOOP_BLOCKED_HALF_BITS(NAME##_blocks, S, SAME)                                                \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0];                                                                        \
    const int x = tl_is_##S(ctx->descriptors[0]) ? 1 : 0;     /* the operand to cast */         \
    const int kind = tl_hkind(ctx->descriptors[x]);                                              \
    if (tl_cvtsel_float(ctx->descriptors[x]) == NULL || tl_is_##S(ctx->descriptors[x])           \
            || !tl_is_##S(ctx->descriptors[1 - x])                                               \
            || tl_feedback(data[0], st[0], data[2], st[2], n)                                    \
            || tl_feedback(data[1], st[1], data[2], st[2], n))                                   \
        return FALLBACK(ctx, data, dims, st, aux);                                               \
    if ((((kind == TL_HK_I8 || kind == TL_HK_U8 || kind == TL_HK_B) && st[x] == 1                \
              && (st[1 - x] == 2 || st[1 - x] == 0))                                             \
             || ((kind == TL_HK_I16 || kind == TL_HK_U16) && st[x] == 2 && st[1 - x] == 2))      \
            && st[2] == 2 && TL_B16_ONEPASS_##OPN                                                \
            && TL_SMALL_BITS16_RUN_##S(NAME, kind, x, data[x], (const uint16_t *)data[1 - x],    \
                                       st[1 - x] != 0, (uint16_t *)data[2], n))                  \
        return 0;                                                                                \
    return NAME##_blocks(ctx, data, dims, st, aux);                                              \
}

/* A mixed call of an op whose S loop SAME works on the bits (nextafter, which has no float32
 * form; the block path of TL_LOOP_BLOCKED_BITS16): each operand not of type S (an integer or bool) cast to S's bits a block at a time as
 * TL_TO_HALF_BITS (NumPy's / ml_dtypes' cast, its FP flags), then SAME on the blocks. NumPy's
 * own int8 -> float16 cast ahead of SAME took 10x SAME's time. Fed-back calls (an output that
 * aliases an input other than element for element): one element at a time. */
#define TL_LOOP_BLOCKED_HALF_BITS(NAME, S, SAME)                                                 \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, m, s[3], blk;                                                       \
    tl_cvt_float cv[2] = {NULL, NULL};                                                           \
    int kind[2] = {-1, -1}, j, hoist;                                                            \
    float fb[TL_BLOCK];                                                                          \
    uint16_t hb[2][TL_BLOCK];                                                                    \
    char *d[3];                                                                                  \
    hoist = !tl_feedback(data[0], st[0], data[2], st[2], n)                                      \
        && !tl_feedback(data[1], st[1], data[2], st[2], n);                                      \
    blk = hoist ? TL_BLOCK : 1;                                                                  \
    s[2] = st[2];                                                                                \
    for (j = 0; j < 2; j++) {                                                                    \
        s[j] = st[j];                                                                            \
        if (tl_is_##S(ctx->descriptors[j])) continue;                                            \
        kind[j] = tl_hkind(ctx->descriptors[j]);                                                 \
        cv[j] = tl_cvtsel_float(ctx->descriptors[j]);                                            \
        if (cv[j] == NULL)              /* (registered for convertible dtypes only) */           \
            return tl_loop_error(PyExc_TypeError, "typelattice: no half conversion");            \
        s[j] = 2;                                                                                \
        if (st[j] == 0 && hoist) {          /* a scalar: cast once */                            \
            TL_TO_HALF_BITS(S, cv[j], kind[j], data[j], 0, fb, hb[j], 1);                        \
            s[j] = 0;                                                                            \
        }                                                                                        \
    }                                                                                            \
    for (i = 0; i < n; i += m) {                                                                 \
        m = n - i < blk ? n - i : blk;                                                           \
        for (j = 0; j < 2; j++) {                                                                \
            d[j] = data[j] + i * st[j];                                                          \
            if (cv[j] == NULL) continue;                                                         \
            if (s[j] != 0) TL_TO_HALF_BITS(S, cv[j], kind[j], d[j], st[j], fb, hb[j], m);        \
            d[j] = (char *)hb[j];                                                                \
        }                                                                                        \
        d[2] = data[2] + i * st[2];                                                              \
        if (SAME(ctx, d, &m, s, aux) < 0) return -1;                                             \
    }                                                                                            \
    return 0;                                                                                    \
}

/* float16 nextafter (NumPy's npy_half_nextafter) with selects: the element function's branches
 * keep gcc from vectorizing it. Steps on the sign-magnitude line towards y. */
static inline uint16_t tl_hnextafter_f16(uint16_t x, uint16_t y, unsigned *e)
{
    uint16_t ax = (uint16_t)(x & 0x7fffu), ay = (uint16_t)(y & 0x7fffu), ret;
    int32_t kx = (x & 0x8000u) ? -(int32_t)ax : (int32_t)ax;
    int32_t ky = (y & 0x8000u) ? -(int32_t)ay : (int32_t)ay;
    int grow = (kx < ky) ^ ((x & 0x8000u) != 0);   /* the magnitude grows */
    uint16_t step = grow ? (uint16_t)(x + 1u) : (uint16_t)(x - 1u);
    ret = ax == 0 ? (uint16_t)((y & 0x8000u) + 1u) : step;
    ret = (x == y || (ax | ay) == 0) ? x : ret;
    ret = (ax > 0x7c00u || ay > 0x7c00u) ? (uint16_t)0x7e00u : ret;
    *e |= ((ret & 0x7fffu) == 0x7c00u && ax < 0x7c00u) ? TL_FPE_OVERFLOW : 0u;
    return ret;
}

/* bfloat16 nextafter (tl_nextafter_bf16: ml_dtypes') with selects, as the float16 one (the
 * element function's branches kept its loop scalar, 1.2x ml_dtypes' time) */
static inline uint16_t tl_hnextafter_bf16(uint16_t x, uint16_t y, unsigned *e)
{
    uint16_t ax = (uint16_t)(x & 0x7fffu), ay = (uint16_t)(y & 0x7fffu), ret;
    int32_t kx = (x & 0x8000u) ? -(int32_t)ax : (int32_t)ax;
    int32_t ky = (y & 0x8000u) ? -(int32_t)ay : (int32_t)ay;
    int away = (x & 0x8000u) ? ky < kx : ky > kx;  /* the magnitude grows */
    int xnan = ax > 0x7f80u, ynan = ay > 0x7f80u;
    ret = away ? (uint16_t)(x + 1u) : (uint16_t)(x - 1u);
    ret = ax == 0 ? (uint16_t)((y & 0x8000u) | 1u) : ret;
    ret = (x == y || (ax | ay) == 0) ? y : ret;
    ret = (xnan | ynan) ? (uint16_t)0x7fc0u : ret;
    *e |= ((xnan & !(x & 0x0040u)) | (ynan & !(y & 0x0040u))) ? TL_FPE_INVALID : 0u;
    return ret;
}

/* float16 spacing (NumPy's npy_half_spacing) with mask selects (gcc leaves "c ? a - k : b" a
 * branch); shift counts masked (unselected lanes would shift by a negative count). 1 << k as
 * (2^16 << k) >> 16: gcc 12 narrowed 1u << (k & 15) to 16-bit lanes, which AVX2 cannot shift by
 * a variable count, and left the loop scalar (2.2x NumPy's time) */
static inline uint32_t tl_sel32(int c, uint32_t a, uint32_t b) { return b ^ ((a ^ b) & (0u - (uint32_t)c)); }
static inline uint32_t tl_pow2_15(uint32_t k) { return (0x10000u << (k & 15u)) >> 16; }
static inline uint16_t tl_hspacing_f16(uint16_t h, unsigned *e)
{
    uint32_t u = h, ex = u & 0x7c00u, eb = ex >> 10;
    uint32_t up = tl_sel32(ex > 0x2800u, ex - 0x2800u, tl_pow2_15(eb - 1u));
    uint32_t dn = tl_sel32(ex > 0x2c00u, ex - 0x2c00u, tl_pow2_15(eb - 2u));
    uint32_t r = tl_sel32((u & 0x83ffu) == 0x8000u, dn, up);   /* a negative power of two */
    r = tl_sel32(ex > 0x0400u, r, 1u);
    r = tl_sel32(u == 0x7bffu, 0x7c00u, r);
    r = tl_sel32(ex == 0x7c00u, 0x7e00u, r);
    *e |= tl_sel32(ex == 0x7c00u, TL_FPE_INVALID, 0u) | tl_sel32(u == 0x7bffu, TL_FPE_OVERFLOW, 0u);
    return (uint16_t)r;
}

/* bfloat16 spacing (tl_spacing_bf16: the float32 difference to the next value away from zero,
 * rounded) with selects: the same operations, so the same bits and flags */
static inline uint16_t tl_hspacing_bf16(uint16_t x, unsigned *e)
{
    uint16_t nx = (x & 0x7fffu) >= 0x7f80u ? (uint16_t)0x7fc0u : (uint16_t)(x + 1u);
    return tl_f32_to_bf16(tl_bf16_to_f32(nx) - tl_bf16_to_f32(x), e);
}

/* ==== ml_dtypes' small floats (float8_*, float6_*, float4_*): computed in float32 through
 * ml_dtypes' own casts (the same rounding as its ufuncs), in blocks. =========================== */
typedef void (tl_vcast)(void *from, void *to, npy_intp n, void *fromarr, void *toarr);
#define TL_MAX_EXT 32
typedef struct { int type_num; npy_intp itemsize; tl_vcast *to_f32; tl_vcast *from_f32; } tl_ext_t;
TL_SHARED(tl_ext_t tl_ext[TL_MAX_EXT], );
TL_SHARED(int tl_n_ext, = 0);

static int tl_ext_register(int type_num, npy_intp itemsize, void *to_f32, void *from_f32)
{
    if (tl_n_ext >= TL_MAX_EXT || to_f32 == NULL || from_f32 == NULL) return -1;
    tl_ext[tl_n_ext].type_num = type_num;
    tl_ext[tl_n_ext].itemsize = itemsize;
    tl_ext[tl_n_ext].to_f32 = (tl_vcast *)to_f32;
    tl_ext[tl_n_ext].from_f32 = (tl_vcast *)from_f32;
    return tl_n_ext++;
}

static const tl_ext_t *tl_ext_find(PyArray_Descr *d)
{
    int i;
    for (i = 0; i < tl_n_ext; i++) if (tl_ext[i].type_num == d->type_num) return &tl_ext[i];
    return NULL;
}

/* a loop's descriptor that is no registered small float (SystemError, from any thread) */
static inline int tl_ext_unknown(void)
{
    PyGILState_STATE gs = PyGILState_Ensure();
    PyErr_SetString(PyExc_SystemError, "typelattice: unknown small float dtype");
    PyGILState_Release(gs);
    return -1;
}

/* a block of n items (stride) -> float32 */
static void tl_ext_load(const tl_ext_t *x, const char *src, npy_intp stride, float *dst, npy_intp n)
{
    char tmp[TL_BLOCK * 4];
    npy_intp i, k;
    if (stride == x->itemsize) { x->to_f32((void *)src, dst, n, NULL, NULL); return; }
    for (i = 0; i < n; i++) for (k = 0; k < x->itemsize; k++) tmp[i * x->itemsize + k] = src[i * stride + k];
    x->to_f32(tmp, dst, n, NULL, NULL);
}

static void tl_ext_store(const tl_ext_t *x, float *src, char *dst, npy_intp stride, npy_intp n)
{
    char tmp[TL_BLOCK * 4];
    npy_intp i, k;
    if (stride == x->itemsize) { x->from_f32(src, dst, n, NULL, NULL); return; }
    x->from_f32(src, tmp, n, NULL, NULL);
    for (i = 0; i < n; i++) for (k = 0; k < x->itemsize; k++) dst[i * stride + k] = tmp[i * x->itemsize + k];
}

/* (E, E) -> E or bool, computing FN in float32 */
#define TL_LOOP_EXT(NAME, FN, BOOL_OUT)                                                          \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j, blk = TL_BLOCK;                                                  \
    float ba[TL_BLOCK], bb[TL_BLOCK], bo[TL_BLOCK];                                              \
    tl_bool bz[TL_BLOCK];                                                                        \
    unsigned fpe = 0;                                                                            \
    const tl_ext_t *xa = tl_ext_find(ctx->descriptors[0]), *xb = tl_ext_find(ctx->descriptors[1]); \
    const tl_ext_t *xo = BOOL_OUT ? NULL : tl_ext_find(ctx->descriptors[2]);                     \
    (void)aux;                                                                                   \
    if (xa == NULL || xb == NULL || (!BOOL_OUT && xo == NULL)) {                                 \
        return tl_ext_unknown();                                                                 \
    }                                                                                            \
    if (tl_feedback(data[0], st[0], data[2], st[2], n) || tl_feedback(data[1], st[1], data[2], st[2], n)) \
        blk = 1;                                                                                 \
    for (i = 0; i < n; i += blk) {                                                               \
        npy_intp m = n - i < blk ? n - i : blk;                                                  \
        tl_ext_load(xa, data[0] + i * st[0], st[0], ba, m);                                      \
        tl_ext_load(xb, data[1] + i * st[1], st[1], bb, m);                                      \
        if (BOOL_OUT) {                                                                          \
            for (j = 0; j < m; j++) bz[j] = (tl_bool)FN(ba[j], bb[j], &fpe);                     \
            tl_store_bool(bz, data[2] + i * st[2], st[2], m, &fpe);                              \
        } else {                                                                                 \
            for (j = 0; j < m; j++) bo[j] = (float)FN(ba[j], bb[j], &fpe);                       \
            tl_ext_store(xo, bo, data[2] + i * st[2], st[2], m);                                 \
        }                                                                                        \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}


/* ==== ml_dtypes' sub-byte integers (int1/2/4, uint1/2/4): one per byte, the value's two's-
 * complement bits in the low bits. Computed in int8 by the int8 element function, the result
 * wrapped to the type's bits, as XLA's (and so JAX's) narrow integers wrap: the values have at
 * most 7 bits, so every op's result is int32's modulo 2^8, hence modulo 2^bits (a quotient,
 * -64 / -1, fits; a shift by 8 or more gives 0 or -1 either way), and int8 lanes vectorize 4x
 * wider (int32's took 2-3x ml_dtypes' time for less / maximum). One element at a time, in order
 * (reductions feed the output back). ============================================================ */
typedef struct { int type_num, bits, is_signed; } tl_exti_t;
#define TL_MAX_EXTI 8
TL_SHARED(tl_exti_t tl_exti[TL_MAX_EXTI], );
TL_SHARED(int tl_n_exti, = 0);

static int tl_exti_register(int type_num, int bits, int is_signed)
{
    if (tl_n_exti >= TL_MAX_EXTI || bits < 1 || bits > 7) return -1;
    tl_exti[tl_n_exti].type_num = type_num;
    tl_exti[tl_n_exti].bits = bits;
    tl_exti[tl_n_exti].is_signed = is_signed;
    return tl_n_exti++;
}

static const tl_exti_t *tl_exti_find(PyArray_Descr *d)
{
    int i;
    for (i = 0; i < tl_n_exti; i++) if (tl_exti[i].type_num == d->type_num) return &tl_exti[i];
    return NULL;
}

/* A reduction's identity V in an ml_dtypes small float (its own conversion from float32) or
 * sub-byte integer (descriptor 0), which NumPy starts a reduction from. A float type without V
 * (float8_e8m0fnu has no 0) has none but for an empty reduction (V's conversion, NaN, as with
 * ml_dtypes): NumPy then starts from the first element, as accumulate and reduceat do (V's NaN
 * made every sum NaN), and asks for initial= with where=. */
#define TL_EXT_INITIAL(NAME, V)                                                                  \
static int NAME(PyArrayMethod_Context *ctx, npy_bool empty, char *initial)                       \
{                                                                                                \
    PyArray_Descr *d = ctx->descriptors[0];                                                      \
    const tl_ext_t *xf = tl_ext_find(d);                                                         \
    const tl_exti_t *xi = xf != NULL ? NULL : tl_exti_find(d);                                   \
    if (xf != NULL) {                                                                            \
        float f = (float)(V), back = 0.0f;                                                       \
        xf->from_f32(&f, initial, 1, NULL, NULL);                                                \
        xf->to_f32(initial, &back, 1, NULL, NULL);                                               \
        return empty || back == f;                                                               \
    }                                                                                            \
    if (xi != NULL) {                                                                            \
        int8_t v = (int8_t)(V);                                                                  \
        *(int8_t *)initial = xi->is_signed ? v : (int8_t)(v & ((1 << xi->bits) - 1));             \
        return 1;                                                                                \
    }                                                                                            \
    return 0;                                                                                    \
}
TL_EXT_INITIAL(tl_ext_initial_0, 0)
TL_EXT_INITIAL(tl_ext_initial_1, 1)
TL_EXT_INITIAL(tl_ext_initial_m1, -1)

/* logaddexp's identity, -inf, in a small float that has it (float8_e5m2, e4m3, e3m4); none in
 * the finite ones, whose conversion gives NaN or a finite value: NumPy then asks for initial= */
static int tl_ext_initial_minf(PyArrayMethod_Context *ctx, npy_bool empty, char *initial)
{
    const tl_ext_t *xf = tl_ext_find(ctx->descriptors[0]);
    float f = -INFINITY, back = 0.0f;
    (void)empty;
    if (xf == NULL) return 0;
    xf->from_f32(&f, initial, 1, NULL, NULL);
    xf->to_f32(initial, &back, 1, NULL, NULL);
    return back == -INFINITY;
}

/* a value's bits (mask mk) as int8, sign-extended by (v ^ sg) - sg (sg: the sign bit; 0 for the
 * unsigned types): no branch, so gcc vectorizes the contiguous loops */
#define TL_EXTI_LD(p, mk, sg) ((int8_t)(uint8_t)(((*(const uint8_t *)(p) & (mk)) ^ (sg)) - (sg)))
#define TL_EXTI_MASK(x) ((uint8_t)((1u << (x)->bits) - 1u))
#define TL_EXTI_SIGN(x) ((uint8_t)((x)->is_signed ? 1u << ((x)->bits - 1) : 0u))

/* the operands' sub-byte types (nin inputs, then the output unless it is bool) into x */
static int tl_exti_types(PyArrayMethod_Context *ctx, int nin, int bool_out, const tl_exti_t **x)
{
    int k;
    for (k = 0; k <= nin; k++) {
        x[k] = k == nin && bool_out ? x[0] : tl_exti_find(ctx->descriptors[k]);
        if (x[k] == NULL) {
            PyGILState_STATE gs = PyGILState_Ensure();
            PyErr_SetString(PyExc_SystemError, "typelattice: unknown sub-byte integer dtype");
            PyGILState_Release(gs);
            return -1;
        }
    }
    return 0;
}

/* the result of a loop: E, bool or uint8 (BOOL_OUT, OUT) */
#define TL_EXTI_OUT_SAME 0
#define TL_EXTI_OUT_BOOL 1
#define TL_EXTI_OUT_U8 2
/* (E, E) -> E or bool; the types' masks and sign bits in locals, so that the stores (char *) do
 * not reload them; AVX2/AVX-512 clones (SSE2 has no 32-bit max/min and packs the comparisons
 * slowly: less / maximum took 1.75x / 2.5x ml_dtypes' time) */
#define TL_LOOP_EXTI(NAME, FN, BOOL_OUT)                                                         \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp i;                                                                                  \
    const npy_intp n = dims[0];     /* a local: the uint8_t stores may alias dims */             \
    unsigned fpe = 0;                                                                            \
    const tl_exti_t *x[3];                                                                       \
    uint8_t ma, mb, mo, ga, gb;                                                                  \
    (void)aux;                                                                                   \
    if (tl_exti_types(ctx, 2, BOOL_OUT, x) < 0) return -1;                                       \
    ma = TL_EXTI_MASK(x[0]), mb = TL_EXTI_MASK(x[1]), mo = TL_EXTI_MASK(x[2]);                   \
    ga = TL_EXTI_SIGN(x[0]), gb = TL_EXTI_SIGN(x[1]);                                            \
    if (st[0] == 1 && st[1] == 1 && st[2] == 1 && !tl_feedback(data[0], 1, data[2], 1, n)        \
            && !tl_feedback(data[1], 1, data[2], 1, n)) {      /* contiguous: vectorized */      \
        const uint8_t *pa = (const uint8_t *)data[0], *pb = (const uint8_t *)data[1];            \
        uint8_t *po = (uint8_t *)data[2];                                                        \
        _Pragma("GCC ivdep")    /* no feedback: in place (out == an input) is elementwise */     \
        for (i = 0; i < n; i++) {                                                                \
            int8_t a = TL_EXTI_LD(pa + i, ma, ga), b = TL_EXTI_LD(pb + i, mb, gb);               \
            po[i] = BOOL_OUT ? (uint8_t)(FN(a, b, &fpe) != 0) : (uint8_t)((uint8_t)FN(a, b, &fpe) & mo); \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    for (i = 0; i < n; i++) {                                                                    \
        int8_t a = TL_EXTI_LD(data[0] + i * st[0], ma, ga), b = TL_EXTI_LD(data[1] + i * st[1], mb, gb); \
        if (BOOL_OUT) *(npy_bool *)(data[2] + i * st[2]) = (npy_bool)(FN(a, b, &fpe) != 0);      \
        else *(uint8_t *)(data[2] + i * st[2]) = (uint8_t)((uint8_t)FN(a, b, &fpe) & mo);        \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* (E, Python int) -> E or bool, the Python int operand SIDE taken as int64 (NumPy converts it,
 * raising beyond int64): a value outside E's range raises OverflowError through
 * tl_exti_overflow_cb before anything is written (ml_dtypes' own conversion would wrap it, where
 * the core dtypes' weak ints raise); else E's loop INNER on its bits */
typedef void (*tl_exti_overflow_cb_t)(PyObject *ufunc, long long value, PyArray_Descr *descr,
                                      int side);
TL_SHARED(tl_exti_overflow_cb_t tl_exti_overflow_cb, = NULL);
#define TL_LOOP_EXTI_PYINT(NAME, INNER, SIDE, NOUT)                                              \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    const npy_intp n = dims[0], s = st[SIDE];                                                    \
    const tl_exti_t *xs[3], *x;                                                                  \
    PyArray_Descr *descrs[4];                                                                    \
    PyArrayMethod_Context c2 = *ctx;                                                             \
    char *d2[4];                                                                                 \
    npy_intp s2[4], i, k, one = 1;                                                               \
    uint8_t bits;                                                                                \
    long long lo, hi;                                                                            \
    int rc = 0;                                                                                  \
    /* INNER's descriptors: the sub-byte type in place of the int64 */                          \
    for (k = 0; k < 2 + (NOUT); k++) descrs[k] = ctx->descriptors[k];                            \
    descrs[SIDE] = ctx->descriptors[1 - (SIDE)];                                                 \
    c2.descriptors = descrs;                                                                     \
    if (tl_exti_types(&c2, 2, 1, xs) < 0) return -1;     /* (the inputs only) */                \
    x = xs[1 - (SIDE)];                                                                          \
    lo = x->is_signed ? -(1LL << (x->bits - 1)) : 0;                                             \
    hi = x->is_signed ? (1LL << (x->bits - 1)) - 1 : (1LL << x->bits) - 1;                       \
    for (i = 0; i < (s == 0 ? (n > 0) : n); i++) {                                               \
        long long v = *(const int64_t *)(data[SIDE] + i * s);                                    \
        if (v < lo || v > hi) {                                                                  \
            PyGILState_STATE gs = PyGILState_Ensure();                                           \
            if (tl_exti_overflow_cb != NULL)                                                     \
                tl_exti_overflow_cb((PyObject *)ctx->caller, v, ctx->descriptors[1 - (SIDE)],    \
                                    SIDE);                                                       \
            if (!PyErr_Occurred())                                                               \
                PyErr_Format(PyExc_OverflowError, "Python int %lld does not fit the sub-byte "   \
                             "integer dtype of the other operand", v);                           \
            PyGILState_Release(gs);                                                              \
            return -1;                                                                           \
        }                                                                                        \
    }                                                                                            \
    for (k = 0; k < 2 + (NOUT); k++) s2[k] = st[k];                                              \
    s2[SIDE] = 0;                                                                                \
    d2[SIDE] = (char *)&bits;                                                                    \
    /* a Python int broadcasts (stride 0): one call; else (not seen) element by element */      \
    for (i = 0; i < n && rc >= 0; i += s == 0 ? n : 1) {                                         \
        bits = (uint8_t)*(const int64_t *)(data[SIDE] + i * s);                                  \
        d2[1 - (SIDE)] = data[1 - (SIDE)] + i * st[1 - (SIDE)];                                  \
        for (k = 2; k < 2 + (NOUT); k++) d2[k] = data[k] + i * st[k];                            \
        rc = INNER(&c2, d2, s == 0 ? &n : &one, s2, aux);                                        \
    }                                                                                            \
    return rc;                                                                                   \
}

/* (E, E) -> (E, E): divmod */
#define TL_LOOP_EXTI2_2(NAME, FN)                                                                \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp i;                                                                                  \
    const npy_intp n = dims[0];                                                                  \
    unsigned fpe = 0;                                                                            \
    const tl_exti_t *x[4];                                                                       \
    uint8_t ma, mb, m1, m2, ga, gb;                                                              \
    (void)aux;                                                                                   \
    if (tl_exti_types(ctx, 3, 0, x) < 0) return -1;     /* (both outputs as "inputs") */        \
    ma = TL_EXTI_MASK(x[0]), mb = TL_EXTI_MASK(x[1]), m1 = TL_EXTI_MASK(x[2]);                   \
    m2 = TL_EXTI_MASK(x[3]), ga = TL_EXTI_SIGN(x[0]), gb = TL_EXTI_SIGN(x[1]);                   \
    for (i = 0; i < n; i++) {                                                                    \
        int8_t a = TL_EXTI_LD(data[0] + i * st[0], ma, ga), b = TL_EXTI_LD(data[1] + i * st[1], mb, gb); \
        int8_t q, r;                                                                             \
        FN(a, b, &q, &r, &fpe);                                                                  \
        *(uint8_t *)(data[2] + i * st[2]) = (uint8_t)((uint8_t)q & m1);                          \
        *(uint8_t *)(data[3] + i * st[3]) = (uint8_t)((uint8_t)r & m2);                          \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* E -> E, bool or uint8 (OUT) */
#define TL_LOOP_EXTI1(NAME, FN, OUT)                                                             \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp i;                                                                                  \
    const npy_intp n = dims[0];                                                                  \
    unsigned fpe = 0;                                                                            \
    const tl_exti_t *x[2];                                                                       \
    uint8_t ma, mo, ga;                                                                          \
    (void)aux;                                                                                   \
    if (tl_exti_types(ctx, 1, (OUT) != TL_EXTI_OUT_SAME, x) < 0) return -1;                      \
    ma = TL_EXTI_MASK(x[0]), ga = TL_EXTI_SIGN(x[0]);                                            \
    mo = (OUT) == TL_EXTI_OUT_U8 ? (uint8_t)0xffu : TL_EXTI_MASK(x[1]);                          \
    for (i = 0; i < n; i++) {                                                                    \
        int8_t a = TL_EXTI_LD(data[0] + i * st[0], ma, ga);                                      \
        if ((OUT) == TL_EXTI_OUT_BOOL)                                                           \
            *(npy_bool *)(data[1] + i * st[1]) = (npy_bool)(FN(a, &fpe) != 0);                   \
        else *(uint8_t *)(data[1] + i * st[1]) = (uint8_t)((uint8_t)FN(a, &fpe) & mo);           \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* ==== unary loops ==============================================================================
 * SI -> SO: out = ST(FN(LD(x))), with the contiguous fast path (which also serves in-place
 * calls) and the generic strided case. */
#define TL_LOOP1_BODY(SI, SO, LD, ST, FN)                                                        \
    npy_intp n = dims[0], i, si = st[0], so = st[1];                                             \
    char *a = data[0], *o = data[1];                                                             \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    if (si == (npy_intp)sizeof(SI) && so == (npy_intp)sizeof(SO)) {                              \
        const SI *pa = (const SI *)a; SO *po = (SO *)o;                                          \
        TL_FOR_ALIGNED(i, n, po, sizeof(SO), po[i] = ST(FN(LD(pa[i]), &fpe), &fpe))              \
    }                                                                                            \
    else {                                                                                       \
        for (i = 0; i < n; i++, a += si, o += so)                                                \
            *(SO *)o = ST(FN(LD(*(const SI *)a), &fpe), &fpe);                                   \
    }                                                                                            \
    return tl_finish(fpe);
#define TL_LOOP1(NAME, SI, SO, LD, ST, FN)                                                       \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS) { TL_LOOP1_BODY(SI, SO, LD, ST, FN) }
/* ... in one baseline version: every element a libm call, where the clones' code had no
 * instruction beyond SSE2's but their VEX forms */
#define TL_LOOP1_SCALAR(NAME, SI, SO, LD, ST, FN)                                                \
static int NAME(TL_LOOP_ARGS) { TL_LOOP1_BODY(SI, SO, LD, ST, FN) }

/* S -> S through a block function VFN(const S *in, S *out, n) when input and output are
 * contiguous (SIMD kernels chosen at run time), element by element with FN otherwise. VFN raises
 * its FP flags in hardware itself. */
#define TL_LOOP1_CONTIG(NAME, S, VFN, FN)                                                        \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (st[0] == (npy_intp)sizeof(S) && st[1] == (npy_intp)sizeof(S)) {                          \
        (void)ctx; (void)aux;                                                                    \
        VFN((const S *)data[0], (S *)data[1], dims[0]);                                          \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP1_BODY(S, S, TL_LD_id, TL_ST_id, FN) }                                              \
}

/* bitwise_count of (u)int64 -> uint8, contiguous: 16 elements per AVX2 step, each byte's bits
 * counted by a nibble table (vpshufb) and summed per lane (vpsadbw); int64: of the magnitude, as
 * tl_bitwise_count_i64. gcc makes the element function a scalar popcnt loop, which ran at 1.5x
 * NumPy's time (the same loop) here; this one at 0.7x. Other layouts, the tail, other CPUs: FN. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* the bits set in each byte of v */
__attribute__((target("avx2"))) static inline __m256i tl_vbytecnt_avx2(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i lo4 = _mm256_set1_epi8(0x0f);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, _mm256_and_si256(v, lo4)),
                           _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), lo4)));
}
__attribute__((target("avx2"))) static inline __m256i tl_vpopcnt4_avx2(__m256i v, int mag)
{
    if (mag) {                  /* |x| as uint64: (x ^ s) - s, s = x < 0 ? -1 : 0 */
        __m256i sg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
        v = _mm256_sub_epi64(_mm256_xor_si256(v, sg), sg);
    }
    return _mm256_sad_epu8(tl_vbytecnt_avx2(v), _mm256_setzero_si256());
}
__attribute__((target("avx2"))) static npy_intp
tl_vpopcnt64_avx2(const void *a, uint8_t *o, npy_intp n, int mag)
{
    /* after the packs, bytes e0 f0 e1 f1 g0 h0 g1 h1 e2 f2 e3 f3 g2 h2 g3 h3 (e..h: the 4 counts
     * of steps 0..3) */
    const __m128i order = _mm_setr_epi8(0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15);
    const __m256i *p = (const __m256i *)a;
    npy_intp i = 0;
    for (; i + 16 <= n; i += 16, p += 4) {
        __m256i e = tl_vpopcnt4_avx2(_mm256_loadu_si256(p), mag);
        __m256i f = tl_vpopcnt4_avx2(_mm256_loadu_si256(p + 1), mag);
        __m256i g = tl_vpopcnt4_avx2(_mm256_loadu_si256(p + 2), mag);
        __m256i h = tl_vpopcnt4_avx2(_mm256_loadu_si256(p + 3), mag);
        __m256i w = _mm256_packus_epi32(_mm256_or_si256(e, _mm256_slli_epi64(f, 32)),
                                        _mm256_or_si256(g, _mm256_slli_epi64(h, 32)));
        __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        _mm_storeu_si128((__m128i *)(void *)(o + i), _mm_shuffle_epi8(b, order));
    }
    return i;
}
/* (u)int32: 32 elements per step, the byte counts summed per 32-bit lane by two multiply-adds
 * and packed to bytes as the float comparisons' masks (TL_VCMP_PACK32's order); int32: of the
 * magnitude (vpabsd: INT_MIN's is its own bits, as tl_bitwise_count_i32). The element loop ran
 * at 1.8x NumPy's time. */
__attribute__((target("avx2"))) static npy_intp
tl_vpopcnt32_avx2(const void *a, uint8_t *o, npy_intp n, int mag)
{
    const __m256i one8 = _mm256_set1_epi8(1), one16 = _mm256_set1_epi16(1);
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i *p = (const __m256i *)a;
    npy_intp i = 0;
    for (; i + 32 <= n; i += 32, p += 4) {
        __m256i c[4];
        int h;
        for (h = 0; h < 4; h++) {
            __m256i v = _mm256_loadu_si256(p + h);
            if (mag) v = _mm256_abs_epi32(v);
            c[h] = _mm256_madd_epi16(_mm256_maddubs_epi16(tl_vbytecnt_avx2(v), one8), one16);
        }
        _mm256_storeu_si256((__m256i *)(void *)(o + i), _mm256_permutevar8x32_epi32(
            _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3])), perm));
    }
    return i;
}
/* 32/64-bit counts with AVX512-VPOPCNTDQ (the magnitude by vpabs: INT_MIN's is its own bits) */
#define TL_VPOPCNT_AVX512(BITS, N, STORE)                                                        \
__attribute__((target("avx512f,avx512vpopcntdq"))) static npy_intp                              \
tl_vpopcnt##BITS##_avx512(const void *a, uint8_t *o, npy_intp n, int mag)                        \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    for (; i + N <= n; i += N) {                                                                 \
        __m512i v = _mm512_loadu_si512((const char *)a + i * (BITS / 8));                        \
        if (mag) v = _mm512_abs_epi##BITS(v);                                                    \
        STORE(o + i, _mm512_cvtepi##BITS##_epi8(_mm512_popcnt_epi##BITS(v)));                    \
    }                                                                                            \
    return i;                                                                                    \
}
#define TL_STORE16B(p, x) _mm_storeu_si128((__m128i *)(void *)(p), x)
#define TL_STORE8B(p, x) _mm_storel_epi64((__m128i *)(void *)(p), x)
TL_VPOPCNT_AVX512(32, 16, TL_STORE16B)
TL_VPOPCNT_AVX512(64, 8, TL_STORE8B)
/* bitwise_count of 32/64-bit integers (MAG: signed, the count of the magnitude): AVX512-VPOPCNTDQ
 * where the CPU has it, the AVX2 kernels, the element loop (gcc's scalar popcnt) */
#define TL_LOOP1_POPCNT(NAME, S, BITS, MAG, FN)                                                  \
TL_LOOP1(NAME##_elems, S, uint8_t, TL_LD_id, TL_ST_id, FN)                                       \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp k = 0, rest;                                                                        \
    if (tl_host_vpopcnt && st[0] == (npy_intp)sizeof(S) && st[1] == 1)                           \
        k = tl_vpopcnt##BITS##_avx512(data[0], (uint8_t *)data[1], dims[0], MAG);                \
    else if (tl_host_avx2 && st[0] == (npy_intp)sizeof(S) && st[1] == 1)                         \
        k = tl_vpopcnt##BITS##_avx2(data[0], (uint8_t *)data[1], dims[0], MAG);                  \
    rest = dims[0] - k;                                                                          \
    if (rest == 0) return 0;                                                                     \
    {                                                                                            \
        char *const d[2] = {data[0] + k * st[0], data[1] + k * st[1]};                           \
        return NAME##_elems(ctx, d, &rest, st, aux);                                             \
    }                                                                                            \
}
#else
#define TL_LOOP1_POPCNT(NAME, S, BITS, MAG, FN) TL_LOOP1(NAME, S, uint8_t, TL_LD_id, TL_ST_id, FN)
#endif

/* complex64/complex128 absolute (tl_absolute_c64/_c128: larger * sqrt(fma(r, r, 1)), r = smaller
 * / larger; inf, then NaN, then zero decided first) on contiguous data, 16/8 elements per AVX-512
 * step: the element function's operations lane by lane, the magnitudes ordered on their bits,
 * the special lanes chosen by masks (their arithmetic runs on zeros: no flag), so the same bits
 * and flags; gcc leaves the element loop scalar (8x NumPy's time). Tail and other CPUs: FN. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_VCABS_AVX512(S, F, N, V, VI, P, EP, ONE_BITS, ABS_BITS, INF_BITS, NAN_BITS, IDX_RE, IDX_IM) \
__attribute__((target("avx512f,avx512dq"))) static npy_intp tl_vcabs_##S(                         \
    const F *z, F *o, npy_intp n)                                                                \
{                                                                                                \
    const VI ire = IDX_RE, iim = IDX_IM;                                                         \
    const V absm = _mm512_castsi512_##P(_mm512_set1_##EP(ABS_BITS));                             \
    const VI inf = _mm512_set1_##EP(INF_BITS);                                                   \
    const V one = _mm512_castsi512_##P(_mm512_set1_##EP(ONE_BITS));                             \
    const V vinf = _mm512_castsi512_##P(inf), vnan = _mm512_castsi512_##P(_mm512_set1_##EP(NAN_BITS)); \
    npy_intp i = 0;                                                                              \
    for (; i + N <= n; i += N) {                                                                 \
        V v0 = _mm512_loadu_##P(z + 2 * i), v1 = _mm512_loadu_##P(z + 2 * i + N);                \
        V re = _mm512_and_##P(_mm512_permutex2var_##P(v0, ire, v1), absm);                       \
        V im = _mm512_and_##P(_mm512_permutex2var_##P(v0, iim, v1), absm);                       \
        VI ure = _mm512_cast##P##_si512(re), uim = _mm512_cast##P##_si512(im);                   \
        VI ulg = _mm512_max_epu##S(ure, uim);                                                    \
        __mmask16 gt = (__mmask16)_mm512_cmpgt_epu##S##_mask(ure, uim);                          \
        __mmask16 plain = (__mmask16)(_mm512_test_##EP##_mask(ulg, ulg)                          \
                                      & _mm512_cmplt_epu##S##_mask(ulg, inf));                   \
        V lg = _mm512_mask_blend_##P(gt, im, re), sm = _mm512_mask_blend_##P(gt, re, im);        \
        V r = _mm512_div_##P(_mm512_maskz_mov_##P(plain, sm), _mm512_mask_blend_##P(plain, one, lg)); \
        V v = _mm512_mul_##P(_mm512_sqrt_##P(_mm512_fmadd_##P(r, r, one)),                       \
                             _mm512_maskz_mov_##P(plain, lg));                                   \
        v = _mm512_mask_mov_##P(v, _mm512_cmpgt_epu##S##_mask(ulg, inf), vnan);                  \
        v = _mm512_mask_mov_##P(v, _mm512_cmpeq_epu##S##_mask(ure, inf)                          \
                                   | _mm512_cmpeq_epu##S##_mask(uim, inf), vinf);                \
        _mm512_storeu_##P(o + i, v);                                                             \
    }                                                                                            \
    return i;                                                                                    \
}
TL_VCABS_AVX512(32, float, 16, __m512, __m512i, ps, epi32, 0x3f800000, 0x7fffffff, 0x7f800000,
                0x7fc00000, _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0),
                _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1))
TL_VCABS_AVX512(64, double, 8, __m512d, __m512i, pd, epi64, 0x3ff0000000000000ll,
                0x7fffffffffffffffll, 0x7ff0000000000000ll, 0x7ff8000000000000ll,
                _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1))
/* AVX2: the same operations on 8 / 4 elements, parts split by shuffles (the results put back
 * in order by a qword permute), blends for the masks; signed compares (the magnitudes' bits) */
#define TL_VCABS_AVX2(S, F, N, V, P, EP, CEP, ONE_BITS, ABS_BITS, INF_BITS, NAN_BITS, SPLIT)     \
__attribute__((target("avx2,fma"))) static npy_intp tl_vcabs_##S##_avx2(const F *z, F *o, npy_intp n) \
{                                                                                                \
    const V absm = _mm256_castsi256_##P(_mm256_set1_##EP(ABS_BITS));                             \
    const __m256i inf = _mm256_set1_##EP(INF_BITS), zero = _mm256_setzero_si256();              \
    const V one = _mm256_castsi256_##P(_mm256_set1_##EP(ONE_BITS));                             \
    const V vinf = _mm256_castsi256_##P(inf), vnan = _mm256_castsi256_##P(_mm256_set1_##EP(NAN_BITS)); \
    npy_intp i = 0;                                                                              \
    for (; i + N <= n; i += N) {                                                                 \
        V v0 = _mm256_loadu_##P(z + 2 * i), v1 = _mm256_loadu_##P(z + 2 * i + N), re, im, lg, sm, r, v; \
        __m256i ure, uim, ulg, gt, plain;                                                        \
        SPLIT(v0, v1, re, im)                                                                    \
        re = _mm256_and_##P(re, absm);                                                           \
        im = _mm256_and_##P(im, absm);                                                           \
        ure = _mm256_cast##P##_si256(re);                                                        \
        uim = _mm256_cast##P##_si256(im);                                                        \
        gt = _mm256_cmpgt_##CEP(ure, uim);                                                        \
        lg = _mm256_blendv_##P(im, re, _mm256_castsi256_##P(gt));                                \
        sm = _mm256_blendv_##P(re, im, _mm256_castsi256_##P(gt));                                \
        ulg = _mm256_cast##P##_si256(lg);                                                        \
        plain = _mm256_andnot_si256(_mm256_cmpeq_##CEP(ulg, zero), _mm256_cmpgt_##CEP(inf, ulg));   \
        r = _mm256_div_##P(_mm256_and_##P(_mm256_castsi256_##P(plain), sm),                      \
                           _mm256_blendv_##P(one, lg, _mm256_castsi256_##P(plain)));             \
        v = _mm256_mul_##P(_mm256_sqrt_##P(_mm256_fmadd_##P(r, r, one)),                         \
                           _mm256_and_##P(_mm256_castsi256_##P(plain), lg));                     \
        v = _mm256_blendv_##P(v, vnan, _mm256_castsi256_##P(_mm256_cmpgt_##CEP(ulg, inf)));       \
        v = _mm256_blendv_##P(v, vinf, _mm256_castsi256_##P(_mm256_or_si256(                     \
                _mm256_cmpeq_##CEP(ure, inf), _mm256_cmpeq_##CEP(uim, inf))));                     \
        _mm256_storeu_##P(o + i, TL_FROM_PD_##P(_mm256_permute4x64_pd(TL_TO_PD_##P(v), 0xD8)));  \
    }                                                                                            \
    return i;                                                                                    \
}
#define TL_VCABS_SPLIT32(v0, v1, re, im) re = _mm256_shuffle_ps(v0, v1, 0x88); im = _mm256_shuffle_ps(v0, v1, 0xDD);
#define TL_VCABS_SPLIT64(v0, v1, re, im) re = _mm256_unpacklo_pd(v0, v1); im = _mm256_unpackhi_pd(v0, v1);
#define TL_TO_PD_ps(v) _mm256_castps_pd(v)
#define TL_TO_PD_pd(v) (v)
#define TL_FROM_PD_ps(v) _mm256_castpd_ps(v)
#define TL_FROM_PD_pd(v) (v)
TL_VCABS_AVX2(32, float, 8, __m256, ps, epi32, epi32, 0x3f800000, 0x7fffffff, 0x7f800000,
              0x7fc00000, TL_VCABS_SPLIT32)
TL_VCABS_AVX2(64, double, 4, __m256d, pd, epi64x, epi64, 0x3ff0000000000000ll,
              0x7fffffffffffffffll, 0x7ff0000000000000ll, 0x7ff8000000000000ll, TL_VCABS_SPLIT64)
#define TL_VCABS_CALL(S)                                                                         \
    if (tl_host_avx512) i = tl_vcabs_##S((const void *)pa, (void *)po, n);                       \
    else if (tl_host_avx2) i = tl_vcabs_##S##_avx2((const void *)pa, (void *)po, n);
#else
#define TL_VCABS_CALL(S)
#endif
#define TL_LOOP1_CABS(NAME, SI, SO, S, FN)                                                       \
TL_LOOP1(NAME##_elem, SI, SO, TL_LD_id, TL_ST_id, FN)                                            \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (st[0] == (npy_intp)sizeof(SI) && st[1] == (npy_intp)sizeof(SO) && dims[0] > 0            \
            && !tl_feedback(data[0], st[0], data[1], st[1], dims[0])) {                          \
        npy_intp n = dims[0], i = 0;                                                             \
        const SI *pa = (const SI *)data[0]; SO *po = (SO *)data[1];                              \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        TL_VCABS_CALL(S)                                                                         \
        for (; i < n; i++) po[i] = FN(pa[i], &fpe);                                              \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    return NAME##_elem(ctx, data, dims, st, aux);                                                \
}

/* floor/ceil/trunc of float32/float64 blocks: gcc only vectorizes them with -fno-trapping-math
 * (which would let it speculate flag-raising code everywhere), so they are written with
 * round-to-integer instructions (no inexact flag; a signalling NaN still raises invalid, as libm). */
#define TL_VROUND_SCALAR(OPN, S, F, M)                                                           \
/* inlined without SSE4.1, floor() returns a signalling NaN as it is: quiet it as the hardware */ \
static inline F tl_h##OPN##_##S(F x, unsigned *e) { (void)e; return x != x ? x + x : OPN##M(x); } \
static void tl_vround_##OPN##_##S##_scalar(const F *a, F *o, npy_intp n)                         \
{ npy_intp i; for (i = 0; i < n; i++) o[i] = tl_h##OPN##_##S(a[i], NULL); }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* S: f32/f64, F: its C type, N512/N256: lanes, P: ps/pd, SS: ss/sd */
#define TL_VROUND_AVX(OPN, S, F, N512, N256, P, SS, MODE)                                        \
__attribute__((target("avx512f"))) static void tl_vround_##OPN##_##S##_avx512(                   \
    const F *a, F *o, npy_intp n)                                                                \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    for (; i + N512 <= n; i += N512)                                                             \
        _mm512_storeu_##P(o + i, _mm512_roundscale_##P(_mm512_loadu_##P(a + i), MODE));         \
    if (i < n) {                                                                                 \
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);                                          \
        _mm512_mask_storeu_##P(o + i, k, _mm512_roundscale_##P(_mm512_maskz_loadu_##P(k, a + i), MODE)); \
    }                                                                                            \
}                                                                                                \
__attribute__((target("avx2"))) static void tl_vround_##OPN##_##S##_avx2(                        \
    const F *a, F *o, npy_intp n)                                                                \
{                                                                                                \
    npy_intp i = 0;                                                                              \
    for (; i + N256 <= n; i += N256)                                                             \
        _mm256_storeu_##P(o + i, _mm256_round_##P(_mm256_loadu_##P(a + i), MODE));              \
    for (; i < n; i++)                                                                           \
        _mm_store_##SS(o + i, _mm_round_##SS(_mm_setzero_##P(), _mm_load_##SS(a + i), MODE));    \
}
#define TL_VROUND_X86(OPN, MODE)                                                                 \
TL_VROUND_AVX(OPN, f32, float, 16, 8, ps, ss, MODE)                                              \
TL_VROUND_AVX(OPN, f64, double, 8, 4, pd, sd, MODE)
#define TL_VROUND_DISPATCH(OPN, S)                                                               \
    if (tl_host_avx512) { tl_vround_##OPN##_##S##_avx512(a, o, n); return; }                     \
    if (tl_host_avx2) { tl_vround_##OPN##_##S##_avx2(a, o, n); return; }
TL_VROUND_X86(floor, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
TL_VROUND_X86(ceil, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
TL_VROUND_X86(trunc, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#else
#define TL_VROUND_DISPATCH(OPN, S)
#endif
#define TL_VROUND(OPN, S, F, M)                                                                  \
TL_VROUND_SCALAR(OPN, S, F, M)                                                                   \
static void tl_vround_##OPN##_##S(const F *a, F *o, npy_intp n)                                  \
{                                                                                                \
    TL_VROUND_DISPATCH(OPN, S)                                                                   \
    tl_vround_##OPN##_##S##_scalar(a, o, n);                                                     \
}
TL_VROUND(floor, f32, float, f) TL_VROUND(ceil, f32, float, f) TL_VROUND(trunc, f32, float, f)
TL_VROUND(floor, f64, double, ) TL_VROUND(ceil, f64, double, ) TL_VROUND(trunc, f64, double, )

/* S -> bool through a block function VFN(const S *in, tl_bool *out, n) when input and output are
 * contiguous, element by element with FN otherwise */
#define TL_LOOP1_BOOL(NAME, S, VFN, FN)                                                          \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (st[0] == (npy_intp)sizeof(S) && st[1] == 1) {                                            \
        (void)ctx; (void)aux;                                                                    \
        VFN((const S *)data[0], (tl_bool *)data[1], dims[0]);                                    \
        return 0;                                                                                \
    }                                                                                            \
    { TL_LOOP1_BODY(S, npy_bool, TL_LD_id, TL_ST_id, FN) }                                       \
}

/* isnan/isinf/isfinite/signbit of float32/float64 blocks: integer compares of the bits (no FP
 * instruction, no flag for a signalling NaN) to masks, then bytes (gcc does not vectorize the
 * narrowing to bool). OPN(x) = (bits(x) & ABSM) PRED REF; W: 32/64, NL: lanes of a vector. */
#define TL_VCLASS_SCALAR(OPN, S, F)                                                              \
static void tl_vclass_##OPN##_##S##_scalar(const F *a, tl_bool *o, npy_intp n)                   \
{ npy_intp i; for (i = 0; i < n; i++) o[i] = tl_##OPN##_##S(a[i], NULL); }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_SET256_32 _mm256_set1_epi32
#define TL_SET256_64 _mm256_set1_epi64x
#define TL_MOVEMASK256_32(v) _mm256_movemask_ps(_mm256_castsi256_ps(v))
#define TL_MOVEMASK256_64(v) _mm256_movemask_pd(_mm256_castsi256_pd(v))
#define TL_ICMP256_gt(W, v, r) _mm256_cmpgt_epi##W(v, r)
#define TL_ICMP256_eq(W, v, r) _mm256_cmpeq_epi##W(v, r)
#define TL_ICMP256_lt(W, v, r) _mm256_cmpgt_epi##W(r, v)
#define TL_ICMP512_gt _MM_CMPINT_NLE
#define TL_ICMP512_eq _MM_CMPINT_EQ
#define TL_ICMP512_lt _MM_CMPINT_LT
#define TL_VCLASS_AVX(OPN, S, F, W, NL512, NL256, ABSM, REF, PRED)                               \
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void tl_vclass_##OPN##_##S##_avx512( \
    const F *a, tl_bool *o, npy_intp n)                                                          \
{                                                                                                \
    const __m512i am = _mm512_set1_epi##W(ABSM), r = _mm512_set1_epi##W(REF);                    \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += 16) {                                                                \
        unsigned t = i + 16 <= n ? 0xffffu : (1u << (n - i)) - 1, m = 0;                         \
        int h;                                                                                   \
        for (h = 0; h < 16; h += NL512) {                                                        \
            __m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi##W(t >> h, a + i + h), am);      \
            m |= (unsigned)_mm512_cmp_epi##W##_mask(v, r, TL_ICMP512_##PRED) << h;               \
        }                                                                                        \
        _mm_mask_storeu_epi8(o + i, (__mmask16)t, _mm_maskz_mov_epi8((__mmask16)m, _mm_set1_epi8(1))); \
    }                                                                                            \
}                                                                                                \
__attribute__((target("avx2"))) static void tl_vclass_##OPN##_##S##_avx2(                        \
    const F *a, tl_bool *o, npy_intp n)                                                          \
{                                                                                                \
    const __m256i am = TL_SET256_##W(ABSM), r = TL_SET256_##W(REF);                              \
    const __m256i one = _mm256_set1_epi8(1), perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);   \
    npy_intp i = 0;                                                                              \
    /* 32 per step into one 32-byte store, as the comparisons (TL_VCMP_AVX2) */                  \
    for (; i + 32 <= n; i += 32) {                                                               \
        __m256i m[32 / NL256];                                                                   \
        int h;                                                                                   \
        for (h = 0; h < 32 / NL256; h++)                                                         \
            m[h] = TL_ICMP256_##PRED(W, _mm256_and_si256(                                        \
                _mm256_loadu_si256((const __m256i *)(a + i + h * NL256)), am), r);               \
        _mm256_storeu_si256((__m256i *)(void *)(o + i), TL_VCLASS_PACK##W(m));                   \
    }                                                                                            \
    for (; i + 8 <= n; i += 8) {                                                                 \
        int m = 0, h;                                                                            \
        for (h = 0; h < 8; h += NL256) {                                                         \
            __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(a + i + h)), am);  \
            m |= TL_MOVEMASK256_##W(TL_ICMP256_##PRED(W, v, r)) << h;                            \
        }                                                                                        \
        memcpy(o + i, &tl_bytes8[m], 8);                                                         \
    }                                                                                            \
    tl_vclass_##OPN##_##S##_scalar(a + i, o + i, n - i);                                         \
}
#define TL_VCLASS_PACK32(m) TL_VCMP_PACK32(m[0], m[1], m[2], m[3])
#define TL_VCLASS_N64(m, k) TL_VCMP_NARROW64(_mm256_castsi256_pd(m[k]), _mm256_castsi256_pd(m[k + 1]))
#define TL_VCLASS_PACK64(m) TL_VCMP_PACK32(TL_VCLASS_N64(m, 0), TL_VCLASS_N64(m, 2),                \
                                           TL_VCLASS_N64(m, 4), TL_VCLASS_N64(m, 6))
#define TL_VCLASS_DISPATCH(OPN, S)                                                               \
    if (tl_host_avx512) { tl_vclass_##OPN##_##S##_avx512(a, o, n); return; }                     \
    if (tl_host_avx2) { tl_vclass_##OPN##_##S##_avx2(a, o, n); return; }
#else
#define TL_VCLASS_AVX(OPN, S, F, W, NL512, NL256, ABSM, REF, PRED)
#define TL_VCLASS_DISPATCH(OPN, S)
#endif
#define TL_VCLASS(OPN, S, F, W, NL512, NL256, ABSM, REF, PRED)                                   \
TL_VCLASS_SCALAR(OPN, S, F)                                                                      \
TL_VCLASS_AVX(OPN, S, F, W, NL512, NL256, ABSM, REF, PRED)                                       \
static void tl_vclass_##OPN##_##S(const F *a, tl_bool *o, npy_intp n)                            \
{                                                                                                \
    TL_VCLASS_DISPATCH(OPN, S)                                                                   \
    tl_vclass_##OPN##_##S##_scalar(a, o, n);                                                     \
}
#define TL_VCLASS_OPS(S, F, W, NL512, NL256, ABSM, INF)                                          \
TL_VCLASS(isnan, S, F, W, NL512, NL256, ABSM, INF, gt)                                           \
TL_VCLASS(isinf, S, F, W, NL512, NL256, ABSM, INF, eq)                                           \
TL_VCLASS(isfinite, S, F, W, NL512, NL256, ABSM, INF, lt)                                        \
TL_VCLASS(signbit, S, F, W, NL512, NL256, -1, 0, lt)
TL_VCLASS_OPS(f32, float, 32, 16, 8, 0x7fffffff, 0x7f800000)
TL_VCLASS_OPS(f64, double, 64, 8, 4, 0x7fffffffffffffffLL, 0x7ff0000000000000LL)

/* float32/float64 frexp on AVX-512, as NumPy's AVX512_SKX loops: vgetmant/vgetexp (subnormals
 * included) on the finite nonzero lanes; x + x and exponent 0 on the others, as tl_frexp_*
 * (masked: only those lanes raise, a signalling NaN invalid). gcc's vectorized tl_frexp_f32 ran
 * at 1.2x NumPy's time, tl_frexp_f64 at 1.6x (0.40 / 0.25 ns an element at 10^5).
 * Returns how many elements were done (0 without AVX-512). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_VFREXP_AVX512(S, F, V, PR, W, K, STORE_EXP)                                           \
__attribute__((target("avx512f,avx512dq"))) static npy_intp tl_vfrexp_##S##_avx512(              \
    const F *a, F *m, int32_t *e, npy_intp n)                                                    \
{                                                                                                \
    const V one = _mm512_set1_##PR(1);                                                           \
    npy_intp i = 0;                                                                              \
    for (; i + W <= n; i += W) {                                                                 \
        V x = _mm512_loadu_##PR(a + i);                                                          \
        K sp = _mm512_fpclass_##PR##_mask(x, 0x9f), ok = (K)~sp;                                 \
        V mant = _mm512_mask_getmant_##PR(_mm512_mask_add_##PR(x, sp, x, x), ok, x,              \
                                          _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_src);                \
        V ex = _mm512_maskz_add_##PR(ok, _mm512_maskz_getexp_##PR(ok, x), one);                  \
        _mm512_storeu_##PR(m + i, mant);                                                         \
        STORE_EXP(e + i, ex);                                                                    \
    }                                                                                            \
    return i;                                                                                    \
}                                                                                                \
static npy_intp tl_vfrexp_##S(const F *a, F *m, int32_t *e, npy_intp n)                          \
{                                                                                                \
    return tl_host_avx512 ? tl_vfrexp_##S##_avx512(a, m, e, n) : 0;                              \
}
#define TL_VFREXP_EXP32(p, ex) _mm512_storeu_si512((void *)(p), _mm512_cvttps_epi32(ex))
#define TL_VFREXP_EXP64(p, ex) _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_cvttpd_epi32(ex))
TL_VFREXP_AVX512(f32, float, __m512, ps, 16, __mmask16, TL_VFREXP_EXP32)
TL_VFREXP_AVX512(f64, double, __m512d, pd, 8, __mmask8, TL_VFREXP_EXP64)
#else
#define tl_vfrexp_f32(a, m, e, n) 0
#define tl_vfrexp_f64(a, m, e, n) 0
#endif
/* no vector kernel */
#define TL_NO_VEC1_2(a, o1, o2, n) 0

/* SI -> (SO1, SO2): out1 = ST1(FN(LD(x), &o2, &fpe)), out2 = ST2(o2); CT2 is the compute type of
 * the second result (frexp: int32 exponent; modf: the integral part); VEC(a, o1, o2, n): how many
 * contiguous elements a vector kernel did first (TL_NO_VEC1_2: none) */
#define TL_LOOP1_2(NAME, SI, SO1, SO2, CT2, LD, ST1, ST2, FN, VEC)                               \
TL_LOOP_CLONES static int NAME(TL_LOOP_ARGS)                                                     \
{                                                                                                \
    npy_intp n = dims[0], i;                                                                     \
    char *a = data[0], *o1 = data[1], *o2 = data[2];                                             \
    unsigned fpe = 0;                                                                            \
    (void)ctx; (void)aux;                                                                        \
    if (st[0] == (npy_intp)sizeof(SI) && st[1] == (npy_intp)sizeof(SO1)                          \
            && st[2] == (npy_intp)sizeof(SO2)) {    /* contiguous: vectorizable */              \
        const SI *pa = (const SI *)a; SO1 *p1 = (SO1 *)o1; SO2 *p2 = (SO2 *)o2;                  \
        for (i = VEC(pa, p1, p2, n); i < n; i++) {                                               \
            CT2 r2;                                                                              \
            p1[i] = ST1(FN(LD(pa[i]), &r2, &fpe), &fpe);                                         \
            p2[i] = ST2(r2, &fpe);                                                               \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }                                                                                            \
    for (i = 0; i < n; i++, a += st[0], o1 += st[1], o2 += st[2]) {                              \
        CT2 r2;                                                                                  \
        SO1 r1 = ST1(FN(LD(*(const SI *)a), &r2, &fpe), &fpe);                                   \
        *(SO1 *)o1 = r1;                                                                         \
        *(SO2 *)o2 = ST2(r2, &fpe);                                                              \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}


/* unary ops on ml_dtypes' small floats: E -> E or bool, computing FN in float32 through
 * ml_dtypes' own casts, in blocks (as TL_LOOP_EXT) */
#define TL_LOOP_EXT1(NAME, FN, BOOL_OUT)                                                         \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j;                                                                  \
    float ba[TL_BLOCK], bo[TL_BLOCK];                                                            \
    tl_bool bz[TL_BLOCK];                                                                        \
    unsigned fpe = 0;                                                                            \
    const tl_ext_t *xa = tl_ext_find(ctx->descriptors[0]);                                       \
    const tl_ext_t *xo = BOOL_OUT ? NULL : tl_ext_find(ctx->descriptors[1]);                     \
    (void)aux;                                                                                   \
    if (xa == NULL || (!BOOL_OUT && xo == NULL)) {                                               \
        return tl_ext_unknown();                                                                 \
    }                                                                                            \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        tl_ext_load(xa, data[0] + i * st[0], st[0], ba, m);                                      \
        if (BOOL_OUT) {                                                                          \
            for (j = 0; j < m; j++) bz[j] = (tl_bool)FN(ba[j], &fpe);                            \
            tl_store_bool(bz, data[1] + i * st[1], st[1], m, &fpe);                              \
        } else {                                                                                 \
            for (j = 0; j < m; j++) bo[j] = (float)FN(ba[j], &fpe);                              \
            tl_ext_store(xo, bo, data[1] + i * st[1], st[1], m);                                 \
        }                                                                                        \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* two-output unary ops (modf) on ml_dtypes' small floats: E -> (E, E) in float32 */
#define TL_LOOP_EXT1_2(NAME, FN)                                                                 \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j;                                                                  \
    float ba[TL_BLOCK], b1[TL_BLOCK], b2[TL_BLOCK];                                              \
    unsigned fpe = 0;                                                                            \
    const tl_ext_t *xa = tl_ext_find(ctx->descriptors[0]);                                       \
    const tl_ext_t *x1 = tl_ext_find(ctx->descriptors[1]), *x2 = tl_ext_find(ctx->descriptors[2]); \
    (void)aux;                                                                                   \
    if (xa == NULL || x1 == NULL || x2 == NULL) {                                                \
        return tl_ext_unknown();                                                                 \
    }                                                                                            \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        tl_ext_load(xa, data[0] + i * st[0], st[0], ba, m);                                      \
        for (j = 0; j < m; j++) b1[j] = FN(ba[j], &b2[j], &fpe);                                 \
        tl_ext_store(x1, b1, data[1] + i * st[1], st[1], m);                                     \
        tl_ext_store(x2, b2, data[2] + i * st[2], st[2], m);                                     \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* nextafter on ml_dtypes' small floats (one byte each), on their codes as ml_dtypes' own: NaN
 * if either is NaN, b if a == b (either zero), from a zero the smallest magnitude with b's
 * sign, else the code one step away from or toward zero (sign-magnitude codes; the unsigned
 * e8m0 has no sign and no zero; the fnuz formats' -0 code is NaN, so there +0). The format's
 * sign bit is found from its own casts of +-1. */
#define TL_LOOP_EXT_NEXTAFTER(NAME)                                                              \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j, blk = TL_BLOCK;                                                  \
    float fa[TL_BLOCK], fb[TL_BLOCK], one = 1.0f, mone = -1.0f, back, qnan = NAN;                \
    uint8_t ca[TL_BLOCK], cb[TL_BLOCK], co[TL_BLOCK], c1, cm1, cnan, sign, negzero;              \
    const tl_ext_t *x = tl_ext_find(ctx->descriptors[0]);                                        \
    (void)aux;                                                                                   \
    if (x == NULL || x->itemsize != 1 || tl_ext_find(ctx->descriptors[1]) != x                   \
            || tl_ext_find(ctx->descriptors[2]) != x) {                                          \
        return tl_ext_unknown();                                                                 \
    }                                                                                            \
    x->from_f32(&one, &c1, 1, NULL, NULL);                                                       \
    x->from_f32(&mone, &cm1, 1, NULL, NULL);                                                     \
    x->to_f32(&cm1, &back, 1, NULL, NULL);                                                       \
    x->from_f32(&qnan, &cnan, 1, NULL, NULL);                                                    \
    sign = back == -1.0f ? (uint8_t)(c1 ^ cm1) : (uint8_t)0;                                     \
    x->to_f32(&sign, &back, 1, NULL, NULL);     /* the fnuz formats: -0's code is their NaN */  \
    negzero = sign != 0 && !isnan(back) ? sign : (uint8_t)0;                                     \
    /* reduce / accumulate feed the output back: one element at a time */                      \
    if (tl_feedback(data[0], st[0], data[2], st[2], n) || tl_feedback(data[1], st[1], data[2], st[2], n)) \
        blk = 1;                                                                                 \
    for (i = 0; i < n; i += blk) {                                                               \
        npy_intp m = n - i < blk ? n - i : blk;                                                  \
        for (j = 0; j < m; j++) {                                                                \
            ca[j] = *(const uint8_t *)(data[0] + (i + j) * st[0]);                               \
            cb[j] = *(const uint8_t *)(data[1] + (i + j) * st[1]);                               \
        }                                                                                        \
        x->to_f32(ca, fa, m, NULL, NULL);                                                        \
        x->to_f32(cb, fb, m, NULL, NULL);                                                        \
        for (j = 0; j < m; j++) {                                                                \
            if (isnan(fa[j]) || isnan(fb[j])) co[j] = cnan;                                      \
            else if (fa[j] == fb[j]) co[j] = cb[j];                                              \
            else if (fa[j] == 0.0f) co[j] = (uint8_t)((cb[j] & sign) | 1u);                      \
            else {                                                                               \
                co[j] = (uint8_t)(ca[j] + ((fb[j] > fa[j]) == (fa[j] > 0.0f) ? 1 : -1));         \
                if (co[j] == sign && sign != 0) co[j] = negzero;    /* to zero from below */     \
            }                                                                                    \
        }                                                                                        \
        for (j = 0; j < m; j++) *(uint8_t *)(data[2] + (i + j) * st[2]) = co[j];                 \
    }                                                                                            \
    return 0;                                                                                    \
}

/* two-output binary ops (divmod) on ml_dtypes' small floats: (E, E) -> (E, E) in float32 */
#define TL_LOOP_EXT2_2(NAME, FN)                                                                 \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0], i, j;                                                                  \
    float ba[TL_BLOCK], bb[TL_BLOCK], b1[TL_BLOCK], b2[TL_BLOCK];                                \
    unsigned fpe = 0;                                                                            \
    const tl_ext_t *xa = tl_ext_find(ctx->descriptors[0]), *xb = tl_ext_find(ctx->descriptors[1]); \
    const tl_ext_t *x1 = tl_ext_find(ctx->descriptors[2]), *x2 = tl_ext_find(ctx->descriptors[3]); \
    (void)aux;                                                                                   \
    if (xa == NULL || xb == NULL || x1 == NULL || x2 == NULL) {                                  \
        return tl_ext_unknown();                                                                 \
    }                                                                                            \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        tl_ext_load(xa, data[0] + i * st[0], st[0], ba, m);                                      \
        tl_ext_load(xb, data[1] + i * st[1], st[1], bb, m);                                      \
        for (j = 0; j < m; j++) FN(ba[j], bb[j], &b1[j], &b2[j], &fpe);                          \
        tl_ext_store(x1, b1, data[2] + i * st[2], st[2], m);                                     \
        tl_ext_store(x2, b2, data[3] + i * st[3], st[3], m);                                     \
    }                                                                                            \
    return tl_finish(fpe);                                                                       \
}

/* ==== fused mixed-input loops: out = FN(CVT1(a), CVT2(b)) with the conversions to the compute type
 * inline as C casts, which are NumPy's casts (int -> float rounds once, bool is 0/1), so the loop
 * computes what NumPy computes on the operands cast first, reading each input once.
 * A kernel runs whole chunks of TL_FUSED_CHUNK contiguous elements: a fixed trip count, so gcc
 * vectorizes it without an epilogue or alias versions (several hundred kernels stay cheap to
 * compile); on x86-64 it has an AVX2 version (the promoter uses the fused loops where the CPU has
 * AVX2, the blocked loops or NumPy's casts otherwise) and an AVX-512 one (TL_FUSED_KERNEL_512,
 * _ICMP, _FCMP), chosen at run time. ivdep: an in-place call (out == an
 * input, element for element) carries no dependency; NumPy copies partially overlapping operands.
 * Kernels are shared: op(x, t) runs the kernel of op(t, x) (swapped comparison for less/greater),
 * and a negated comparison (not_equal, integer less_equal/greater_equal) XORs the kernel's result
 * with 1. ========================================================================================= */
#define TL_FUSED_CHUNK 32
#if defined(TL_X86_DISPATCH_CLONES)
#define TL_FUSED_TARGET __attribute__((target("avx2")))
static int tl_fused_ok(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx2") != 0; }
#else
#define TL_FUSED_TARGET
static int tl_fused_ok(void) { return 1; }
#endif

/* C casts to the compute types (bool: 0/1 as NumPy's casts read it) */
#define TL_CV_u8(x) ((uint8_t)(x))
#define TL_CV_u16(x) ((uint16_t)(x))
#define TL_CV_u32(x) ((uint32_t)(x))
#define TL_CV_u64(x) ((uint64_t)(x))
#define TL_CV_i8(x) ((int8_t)(x))
#define TL_CV_i16(x) ((int16_t)(x))
#define TL_CV_i32(x) ((int32_t)(x))
#define TL_CV_i64(x) ((int64_t)(x))
#define TL_CV_f32(x) ((float)(x))
#define TL_CV_f64(x) ((double)(x))
/* float16/bfloat16 bits to float64 (branch-free, so gcc's loops vectorize it; a signalling NaN
 * stays one until the float64 conversion) */
#define TL_CVH_f16(x) ((double)tl_f16_to_f32(x))
#define TL_CVH_bf16(x) ((double)tl_bf16_to_f32(x))
/* ... exactly, a signalling NaN kept as NumPy's cast keeps it (for the ops that return an
 * operand's bits): a NaN's float64 bits built from its own */
#define TL_CVHX_f16(x) tl_f16_to_f64_exact(x)
static inline double tl_f16_to_f64_exact(uint16_t h)
{
    uint64_t nb = ((uint64_t)(h & 0x8000u) << 48) | 0x7ff0000000000000ull
                  | ((uint64_t)(h & 0x03ffu) << 42);
    double d;
    if ((h & 0x7fffu) <= 0x7c00u) return (double)tl_f16_to_f32(h);
    memcpy(&d, &nb, sizeof d);
    return d;
}
#define TL_CVB_u8(x) ((uint8_t)((x) != 0))
#define TL_CVB_u16(x) ((uint16_t)((x) != 0))
#define TL_CVB_u32(x) ((uint32_t)((x) != 0))
#define TL_CVB_u64(x) ((uint64_t)((x) != 0))
#define TL_CVB_i8(x) ((int8_t)((x) != 0))
#define TL_CVB_i16(x) ((int16_t)((x) != 0))
#define TL_CVB_i32(x) ((int32_t)((x) != 0))
#define TL_CVB_i64(x) ((int64_t)((x) != 0))
#define TL_CVB_f32(x) ((float)((x) != 0))
#define TL_CVB_f64(x) ((double)((x) != 0))
#define TL_FUSED_ID(r, x) (r)
#define TL_FUSED_XOR(r, x) ((tl_bool)((r) ^ (x)))

/* kernel K: n (a multiple of TL_FUSED_CHUNK) contiguous elements; POST(r, x) applies the XOR */
#define TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, POST)                                       \
    TL_FUSED_BODY(K, TL_FUSED_TARGET, S1, S2, SO, LD1, LD2, FN, POST)
#define TL_FUSED_BODY(K, ATTR, S1, S2, SO, LD1, LD2, FN, POST)                                   \
ATTR static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)              \
{                                                                                                \
    const S1 *pa = (const S1 *)va; const S2 *pb = (const S2 *)vb; SO *po = (SO *)vo;             \
    npy_intp i; int k; unsigned fpe = 0;                                                         \
    (void)x;                                                                                     \
    for (i = 0; i < n; i += TL_FUSED_CHUNK) {                                                    \
        _Pragma("GCC ivdep")                                                                     \
        for (k = 0; k < TL_FUSED_CHUNK; k++)                                                     \
            po[i + k] = POST(FN(LD1(pa[i + k]), LD2(pb[i + k]), &fpe), x);                       \
    }                                                                                            \
    return fpe;                                                                                  \
}

typedef unsigned (*tl_fused_kernel)(const void *, const void *, void *, npy_intp, int);

/* The same element function one element at a time, on strided operands: calls and tails shorter
 * than a chunk, and outputs fed back into an input (in order). Not vectorized: short and cheap to
 * compile beside each kernel. */
#define TL_FUSED_SCALAR(K, S1, S2, SO, LD1, LD2, FN, POST)                                       \
__attribute__((optimize("no-tree-vectorize"))) static unsigned K##_1(                            \
    const char *a, npy_intp sa, const char *b, npy_intp sb, char *o, npy_intp so, npy_intp n,   \
    int x)                                                                                       \
{                                                                                                \
    npy_intp i; unsigned fpe = 0;                                                                \
    (void)x;                                                                                     \
    for (i = 0; i < n; i++) {                                                                    \
        SO r = POST(FN(LD1(*(const S1 *)(a + i * sa)), LD2(*(const S2 *)(b + i * sb)), &fpe), x); \
        memcpy(o + i * so, &r, sizeof(SO));                                                      \
    }                                                                                            \
    return fpe;                                                                                  \
}

typedef unsigned (*tl_fused_scalar)(const char *, npy_intp, const char *, npy_intp, char *,
                                    npy_intp, npy_intp, int);

/* One chunk of an operand (a scalar repeated, or strided items) into buf */
static const char *tl_fused_load(char *buf, const char *src, npy_intp stride, npy_intp isz)
{
    tl_copy_strided(buf, isz, src, stride, isz, TL_FUSED_CHUNK);
    return buf;
}

/* a signed and an unsigned integer of one width (S, U) compared exactly in that width (every
 * build), for the element loop of TL_FUSED_KERNEL_ICMP when the compute type is wider: both
 * operands widened to it took shuffles (uint8 < int8 ran at 1.2x the int16 < int16 call on
 * AVX2); a negative S is below every U */
#define TL_SU_CMP(SFX, S, U)                                                                     \
static inline tl_bool tl_su_less_##SFX(S a, U b, unsigned *e)                                   \
{ (void)e; return (tl_bool)((a < 0) | ((U)a < b)); }                                             \
static inline tl_bool tl_su_greater_##SFX(S a, U b, unsigned *e)                                \
{ (void)e; return (tl_bool)((a >= 0) & ((U)a > b)); }                                            \
static inline tl_bool tl_su_equal_##SFX(S a, U b, unsigned *e)                                  \
{ (void)e; return (tl_bool)((a >= 0) & ((U)a == b)); }
TL_SU_CMP(i8_u8, int8_t, uint8_t)
TL_SU_CMP(i16_u16, int16_t, uint16_t)
TL_SU_CMP(i32_u32, int32_t, uint32_t)

/* float32/float64 comparisons in one pass: each operand is loaded and converted in registers
 * (TL_LD<bits>_<compute>_<operand>: the C casts of TL_CV_*, exact or rounded once), compared with
 * a quiet (_CMP_*_OQ: a NaN gives false and raises nothing) AVX-512 or AVX2 compare, the mask
 * turned into bytes; the element function FN where set_simd(False) turned SIMD off. */
#if defined(TL_X86_DISPATCH_CLONES)
#define TL_LDB128(p) _mm_min_epu8(_mm_loadu_si128((const __m128i *)(p)), _mm_set1_epi8(1))
#define TL_LDB64(p) _mm_min_epu8(_mm_loadl_epi64((const __m128i *)(p)), _mm_set1_epi8(1))
#define TL_LDB32(p) _mm_min_epu8(_mm_cvtsi32_si128(tl_ld32(p)), _mm_set1_epi8(1))
static inline int tl_ld32(const void *p) { int v; memcpy(&v, p, 4); return v; }
/* AVX-512, 16 float32 lanes */
#define TL_LD512_f32_f32(p) _mm512_loadu_ps(p)
#define TL_LD512_f32_i32(p) _mm512_cvtepi32_ps(_mm512_loadu_si512(p))
#define TL_LD512_f32_u32(p) _mm512_cvtepu32_ps(_mm512_loadu_si512(p))
#define TL_LD512_f32_i16(p) _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(p))))
#define TL_LD512_f32_u16(p) _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p))))
#define TL_LD512_f32_i8(p) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD512_f32_u8(p) _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD512_f32_b(p) _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(TL_LDB128(p)))
#define TL_LD512_f32_i64(p) tl_cat_ps(_mm512_cvtepi64_ps(_mm512_loadu_si512(p)),                   \
                                      _mm512_cvtepi64_ps(_mm512_loadu_si512((p) + 8)))
#define TL_LD512_f32_u64(p) tl_cat_ps(_mm512_cvtepu64_ps(_mm512_loadu_si512(p)),                   \
                                      _mm512_cvtepu64_ps(_mm512_loadu_si512((p) + 8)))
/* AVX-512, 8 float64 lanes */
#define TL_LD512_f64_f64(p) _mm512_loadu_pd(p)
#define TL_LD512_f64_f32(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
#define TL_LD512_f64_i64(p) _mm512_cvtepi64_pd(_mm512_loadu_si512(p))
#define TL_LD512_f64_u64(p) _mm512_cvtepu64_pd(_mm512_loadu_si512(p))
#define TL_LD512_f64_i32(p) _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(p)))
#define TL_LD512_f64_u32(p) _mm512_cvtepu32_pd(_mm256_loadu_si256((const __m256i *)(p)))
#define TL_LD512_f64_i16(p) _mm512_cvtepi32_pd(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD512_f64_u16(p) _mm512_cvtepi32_pd(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD512_f64_i8(p) _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD512_f64_u8(p) _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD512_f64_b(p) _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(TL_LDB64(p)))
#define TL_LD512_f64_f16(p) _mm512_cvtps_pd(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD512_f64_bf16(p) _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_slli_epi32(             \
    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16)))
/* AVX2, 8 float32 lanes; uint32 as two exact halves summed (one rounding) */
#define TL_LD256_f32_f32(p) _mm256_loadu_ps(p)
#define TL_LD256_f32_i32(p) _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define TL_LD256_f32_u32(p) tl_u32_f32_avx2(_mm256_loadu_si256((const __m256i *)(p)))
#define TL_LD256_f32_i16(p) _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD256_f32_u16(p) _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))))
#define TL_LD256_f32_i8(p) _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD256_f32_u8(p) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD256_f32_b(p) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(TL_LDB64(p)))
#define TL_LD256_f32_i64(p) tl_ld8_f32_i64(p)
#define TL_LD256_f32_u64(p) tl_ld8_f32_u64(p)
/* AVX2, 4 float64 lanes; uint32 offset by 2^31 (exact); int64 by scalar conversions */
#define TL_LD256_f64_f64(p) _mm256_loadu_pd(p)
#define TL_LD256_f64_f32(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define TL_LD256_f64_i64(p) tl_ld4_f64_i64(p)
#define TL_LD256_f64_i32(p) _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(p)))
#define TL_LD256_f64_u32(p) _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(                     \
    _mm_loadu_si128((const __m128i *)(p)), _mm_set1_epi32(INT32_MIN))), _mm256_set1_pd(2147483648.0))
#define TL_LD256_f64_i16(p) _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD256_f64_u16(p) _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD256_f64_i8(p) _mm256_cvtepi32_pd(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(tl_ld32(p))))
#define TL_LD256_f64_u8(p) _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(tl_ld32(p))))
#define TL_LD256_f64_b(p) _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(TL_LDB32(p)))
#define TL_LD256_f64_f16(p) _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(p))))
#define TL_LD256_f64_bf16(p) _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(                    \
    _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(p))), 16)))
/* (u)int64 -> float32/float64 (no AVX2 instruction): TL_CVT64_LANES */
#define TL_LD256_f64_u64(p) tl_ld4_f64_u64(p)
__attribute__((target("avx512f,avx512dq"))) static inline __m512 tl_cat_ps(__m256 lo, __m256 hi)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
__attribute__((target("avx2"))) static inline __m256 tl_u32_f32_avx2(__m256i v)
{
    __m256 hi = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(v, 16)), _mm256_set1_ps(65536.0f));
    return _mm256_add_ps(hi, _mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(0xffff))));
}
#define TL_L512_f32 16    /* lanes */
#define TL_L512_f64 8
#define TL_L256_f32 8
#define TL_L256_f64 4
#define TL_CMPM512_f32(a, b, P) _mm512_cmp_ps_mask(a, b, P)
#define TL_CMPM512_f64(a, b, P) _mm512_cmp_pd_mask(a, b, P)
#define TL_CMPM256_f32(a, b, P) _mm256_movemask_ps(_mm256_cmp_ps(a, b, P))
#define TL_CMPM256_f64(a, b, P) _mm256_movemask_pd(_mm256_cmp_pd(a, b, P))
/* m: mask of the 32 elements at pa, pb; LDA/LDB load and convert L lanes, CMPM compares them */
#define TL_CMP32(m, pa, pb, LDA, LDB, CMPM, L, P)                                                \
    {                                                                                            \
        int h_;                                                                                  \
        m = 0;                                                                                   \
        for (h_ = 0; h_ < 32; h_ += (L))                                                         \
            m |= (uint32_t)CMPM(LDA((pa) + h_), LDB((pb) + h_), P) << h_;                        \
    }
/* K_avx512: n (a multiple of 32) comparisons, 64 per step with one 64-byte store (as the
 * same-dtype loops), results XORed with xm */
#define TL_FUSED_CMP512(K, S1, S2, LDA, LDB, CMPM, L, P)                                         \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c"))) static void K##_avx512(       \
    const S1 *pa, const S2 *pb, tl_bool *po, npy_intp n, uint32_t xm)                            \
{                                                                                                \
    npy_intp i = 0; uint32_t m, m2;                                                              \
    for (; i + 64 <= n; i += 64) {                                                               \
        TL_CMP32(m, pa + i, pb + i, LDA, LDB, CMPM, L, P)                                        \
        TL_CMP32(m2, pa + i + 32, pb + i + 32, LDA, LDB, CMPM, L, P)                             \
        _mm512_storeu_si512(po + i, _mm512_maskz_mov_epi8(((uint64_t)(m2 ^ xm) << 32) | (m ^ xm), \
                                                          _mm512_set1_epi8(1)));                 \
    }                                                                                            \
    if (i < n) {                                                                                 \
        TL_CMP32(m, pa + i, pb + i, LDA, LDB, CMPM, L, P)                                        \
        _mm256_storeu_si256((__m256i *)(po + i), _mm256_maskz_mov_epi8(m ^ xm, _mm256_set1_epi8(1))); \
    }                                                                                            \
}
#define TL_FUSED_FCMP_X86(K, S1, S2, SFX, SFX1, SFX2, P)                                         \
TL_FUSED_CMP512(K, S1, S2, TL_LD512_##SFX##_##SFX1, TL_LD512_##SFX##_##SFX2, TL_CMPM512_##SFX,   \
                TL_L512_##SFX, P)                                                                \
__attribute__((target("avx2,f16c"))) static void K##_avx2(                                       \
    const S1 *pa, const S2 *pb, tl_bool *po, npy_intp n, uint32_t xm)                            \
{                                                                                                \
    npy_intp i; uint32_t m;                                                                      \
    for (i = 0; i < n; i += 32) {                                                                \
        TL_CMP32(m, pa + i, pb + i, TL_LD256_##SFX##_##SFX1, TL_LD256_##SFX##_##SFX2,            \
                 TL_CMPM256_##SFX, TL_L256_##SFX, P)                                             \
        _mm256_storeu_si256((__m256i *)(void *)(po + i), tl_mask32_bytes_avx2(m ^ xm));          \
    }                                                                                            \
}
#define TL_FUSED_FCMP_DISPATCH(K)                                                                \
    if (tl_host_avx512) { K##_avx512(pa, pb, po, n, x ? ~0u : 0u); return 0; }                   \
    if (tl_host_avx2) { K##_avx2(pa, pb, po, n, x ? ~0u : 0u); return 0; }

/* Integer comparisons (AVX-512BW): TL_ILD<bits>_<operand> loads 512/bits lanes (8-bit compute
 * types: 32 lanes of 256 bits) and widens them to the compute type (the C casts: sign or zero
 * extension, bool as 0/1, uint32 -> int32 and uint64 -> int64 the same bits), compares into
 * masks */
#define TL_IL256(p) _mm256_loadu_si256((const __m256i *)(p))
#define TL_IL128(p) _mm_loadu_si128((const __m128i *)(p))
#define TL_IL64(p) _mm_loadl_epi64((const __m128i *)(p))
#define TL_ILD8_b(p) _mm256_min_epu8(TL_IL256(p), _mm256_set1_epi8(1))
#define TL_ILD8_i8(p) TL_IL256(p)
#define TL_ILD8_u8(p) TL_IL256(p)
#define TL_ILD16_b(p) _mm512_cvtepu8_epi16(TL_ILD8_b(p))
#define TL_ILD16_i8(p) _mm512_cvtepi8_epi16(TL_IL256(p))
#define TL_ILD16_u8(p) _mm512_cvtepu8_epi16(TL_IL256(p))
#define TL_ILD16_i16(p) _mm512_loadu_si512(p)
#define TL_ILD16_u16(p) _mm512_loadu_si512(p)
#define TL_ILD32_b(p) _mm512_cvtepu8_epi32(TL_LDB128(p))
#define TL_ILD32_i8(p) _mm512_cvtepi8_epi32(TL_IL128(p))
#define TL_ILD32_u8(p) _mm512_cvtepu8_epi32(TL_IL128(p))
#define TL_ILD32_i16(p) _mm512_cvtepi16_epi32(TL_IL256(p))
#define TL_ILD32_u16(p) _mm512_cvtepu16_epi32(TL_IL256(p))
#define TL_ILD32_i32(p) _mm512_loadu_si512(p)
#define TL_ILD32_u32(p) _mm512_loadu_si512(p)
#define TL_ILD64_b(p) _mm512_cvtepu8_epi64(TL_LDB64(p))
#define TL_ILD64_i8(p) _mm512_cvtepi8_epi64(TL_IL64(p))
#define TL_ILD64_u8(p) _mm512_cvtepu8_epi64(TL_IL64(p))
#define TL_ILD64_i16(p) _mm512_cvtepi16_epi64(TL_IL128(p))
#define TL_ILD64_u16(p) _mm512_cvtepu16_epi64(TL_IL128(p))
#define TL_ILD64_i32(p) _mm512_cvtepi32_epi64(TL_IL256(p))
#define TL_ILD64_u32(p) _mm512_cvtepu32_epi64(TL_IL256(p))
#define TL_ILD64_i64(p) _mm512_loadu_si512(p)
#define TL_ILD64_u64(p) _mm512_loadu_si512(p)
#define TL_ICMPM_i8(a, b, P) _mm256_cmp_epi8_mask(a, b, P)
#define TL_ICMPM_u8(a, b, P) _mm256_cmp_epu8_mask(a, b, P)
#define TL_ICMPM_i16(a, b, P) _mm512_cmp_epi16_mask(a, b, P)
#define TL_ICMPM_u16(a, b, P) _mm512_cmp_epu16_mask(a, b, P)
#define TL_ICMPM_i32(a, b, P) _mm512_cmp_epi32_mask(a, b, P)
#define TL_ICMPM_u32(a, b, P) _mm512_cmp_epu32_mask(a, b, P)
#define TL_ICMPM_i64(a, b, P) _mm512_cmp_epi64_mask(a, b, P)
#define TL_ICMPM_u64(a, b, P) _mm512_cmp_epu64_mask(a, b, P)
#define TL_IL_8 32
#define TL_IL_16 32
#define TL_IL_32 16
#define TL_IL_64 8
/* integer comparison kernel K (compute type SFX of BITS bits, predicate P: _MM_CMPINT_*) on
 * AVX-512 CPUs, gcc's vectorization of the element loop (TL_FUSED_KERNEL) otherwise */
#define TL_FUSED_KERNEL_ICMP(K, S1, S2, LD1, LD2, FN, SFX, BITS, SFX1, SFX2, P)                  \
TL_FUSED_CMP512(K, S1, S2, TL_ILD##BITS##_##SFX1, TL_ILD##BITS##_##SFX2, TL_ICMPM_##SFX,         \
                TL_IL_##BITS, P)                                                                 \
TL_FUSED_BODY(K##_gen, TL_FUSED_TARGET, S1, S2, tl_bool, LD1, LD2, FN, TL_FUSED_XOR)             \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    if (tl_host_avx512) { K##_avx512(va, vb, vo, n, x ? ~0u : 0u); return 0; }                   \
    return K##_gen(va, vb, vo, n, x);                                                            \
}
/* kernel K (TL_FUSED_KERNEL) with an AVX-512 F/BW/VL/DQ version on CPUs that have it: twice the
 * lanes (uint8 + int8 -> int16 at 10^5 went from 1.2x to 0.8-0.9x the int16 + int16 call), and
 * the only vector (u)int64 -> float32 and uint64 -> float64 conversions (vcvt(u)qq2ps/pd) */
#define TL_FUSED_KERNEL_512(K, S1, S2, SO, LD1, LD2, FN, POST)                                   \
TL_FUSED_BODY(K##_avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))),         \
              S1, S2, SO, LD1, LD2, FN, POST)                                                    \
TL_FUSED_BODY(K##_gen, TL_FUSED_TARGET, S1, S2, SO, LD1, LD2, FN, POST)                          \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    return tl_host_avx512 ? K##_avx512(va, vb, vo, n, x) : K##_gen(va, vb, vo, n, x);            \
}
/* kernel K with a hand-written AVX-512 version (AVX-512 CPUs; gcc's loop elsewhere): L lanes a
 * step, each operand loaded and converted by LDA/LDB, one 512-bit op VOP, stored by STORE */
#define TL_FUSED_KERNEL_V512(K, S1, S2, SO, LD1, LD2, FN, POST, L, LDA, LDB, VOP, STORE)         \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c"))) static void K##_avx512(       \
    const S1 *pa, const S2 *pb, SO *po, npy_intp n)                                              \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += (L)) STORE(po + i, VOP(LDA(pa + i), LDB(pb + i)));                   \
}                                                                                                \
TL_FUSED_BODY(K##_gen, TL_FUSED_TARGET, S1, S2, SO, LD1, LD2, FN, POST)                          \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    if (tl_host_avx512) { K##_avx512(va, vb, vo, n); return 0; }                                 \
    return K##_gen(va, vb, vo, n, x);                                                            \
}
/* float64 arithmetic of a float16/bfloat16 and a float64 operand (VOP its AVX-512 intrinsic):
 * the TL_LD512_f64 loads (vcvtph2ps or a shift, then vcvtps2pd; gcc's loop converts float16
 * through the branch-free tl_f16_to_f32, 1.05-1.07x the float64 call) */
#define TL_FUSED_KERNEL_H64(K, S1, S2, SO, LD1, LD2, FN, POST, SFX1, SFX2, VOP)                  \
    TL_FUSED_KERNEL_V512(K, S1, S2, SO, LD1, LD2, FN, POST, 8, TL_LD512_f64_##SFX1,              \
                         TL_LD512_f64_##SFX2, VOP, _mm512_storeu_pd)
/* integer arithmetic kernel K (16-, 32- or 64-bit compute type, VOP its AVX-512 intrinsic):
 * each operand widened by a TL_ILD load (vpmovsx/vpmovzx from memory). gcc vectorizes the
 * element loop with 256-bit vectors on AVX-512 CPUs (its generic tuning), widening 8-bit operands
 * by extract + convert pairs: uint8 + int8 -> int16 ran at 1.6x the int16 + int16 call in L1. */
#define TL_FUSED_KERNEL_IARITH(K, S1, S2, SO, LD1, LD2, FN, BITS, SFX1, SFX2, VOP)               \
    TL_FUSED_KERNEL_V512(K, S1, S2, SO, LD1, LD2, FN, TL_FUSED_ID, TL_IL_##BITS,                 \
                         TL_ILD##BITS##_##SFX1, TL_ILD##BITS##_##SFX2, VOP, _mm512_storeu_si512)
/* float arithmetic of a (u)int64 and a float (or two (u)int64) operand: AVX2 has no instruction
 * converting them, and gcc's loop converted element by element (int64 + float64 ran at 1.8x the
 * float64 call): the TL_LD256 loads (TL_CVT64_LANES), VOP the element function in vector form
 * (max/min: the same selections, quiet); gcc's loops on AVX-512 and without AVX2 */
#define TL_FUSED_KERNEL_F64I(K, S1, S2, SO, LD1, LD2, FN, POST, SFX, SFX1, SFX2, P, VOP)          \
TL_FUSED_BODY(K##_avx512, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))),         \
              S1, S2, SO, LD1, LD2, FN, POST)                                                    \
TL_FUSED_BODY(K##_gen, TL_FUSED_TARGET, S1, S2, SO, LD1, LD2, FN, POST)                          \
__attribute__((target("avx2"))) static void K##_avx2(const S1 *pa, const S2 *pb, SO *po, npy_intp n) \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += TL_L256_##SFX)                                                       \
        _mm256_storeu_##P(po + i, VOP(P, TL_LD256_##SFX##_##SFX1(pa + i),                         \
                                      TL_LD256_##SFX##_##SFX2(pb + i)));                         \
}                                                                                                \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    if (tl_host_avx512) return K##_avx512(va, vb, vo, n, x);                                     \
    if (tl_host_avx2) { K##_avx2((const S1 *)va, (const S2 *)vb, (SO *)vo, n); return 0; }       \
    return K##_gen(va, vb, vo, n, x);                                                            \
}
#define TL_FV_add(P, a, b) _mm256_add_##P(a, b)
#define TL_FV_subtract(P, a, b) _mm256_sub_##P(a, b)
#define TL_FV_multiply(P, a, b) _mm256_mul_##P(a, b)
#define TL_FV_divide(P, a, b) _mm256_div_##P(a, b)
#define TL_FV_maximum(P, a, b) tl_fv_maximum_##P(a, b)
#define TL_FV_minimum(P, a, b) tl_fv_minimum_##P(a, b)
#define TL_FV_fmax(P, a, b) tl_fv_fmax_##P(a, b)
#define TL_FV_fmin(P, a, b) tl_fv_fmin_##P(a, b)
#define TL_FV_copysign(P, a, b) _mm256_or_##P(_mm256_andnot_##P(_mm256_set1_##P(-0.0), a),       \
                                              _mm256_and_##P(_mm256_set1_##P(-0.0), b))
/* tl_maximum/minimum/fmax/fmin (tl_elem.h): (a > b || a != a) ? a : b, (a < b || a != a) ? a : b;
 * fmax/fmin test b for NaN instead (NAME, the compare CMP, the NaN-tested operand N) */
#define TL_FV_MINMAX(NAME, P, V, CMP, N)                                                         \
__attribute__((target("avx2"))) static inline V tl_fv_##NAME##_##P(V a, V b)                    \
{ return _mm256_blendv_##P(b, a, _mm256_or_##P(_mm256_cmp_##P(a, b, CMP),                      \
                                               _mm256_cmp_##P(N, N, _CMP_UNORD_Q))); }
TL_FV_MINMAX(maximum, ps, __m256, _CMP_GT_OQ, a) TL_FV_MINMAX(minimum, ps, __m256, _CMP_LT_OQ, a)
TL_FV_MINMAX(fmax, ps, __m256, _CMP_GT_OQ, b) TL_FV_MINMAX(fmin, ps, __m256, _CMP_LT_OQ, b)
TL_FV_MINMAX(maximum, pd, __m256d, _CMP_GT_OQ, a) TL_FV_MINMAX(minimum, pd, __m256d, _CMP_LT_OQ, a)
TL_FV_MINMAX(fmax, pd, __m256d, _CMP_GT_OQ, b) TL_FV_MINMAX(fmin, pd, __m256d, _CMP_LT_OQ, b)
/* tl_heaviside (tl_hheaviside): NaN a as it is, b where a is +-0, else 0 below 0 and 1 above */
#define TL_FV_heaviside(P, a, b) tl_fv_heaviside_##P(a, b)
#define TL_FV_HEAVISIDE(P, V)                                                                    \
__attribute__((target("avx2"))) static inline V tl_fv_heaviside_##P(V a, V b)                   \
{                                                                                                \
    V z = _mm256_setzero_##P(), r = _mm256_blendv_##P(_mm256_set1_##P(1), z,                    \
                                                      _mm256_cmp_##P(a, z, _CMP_LT_OQ));        \
    r = _mm256_blendv_##P(r, b, _mm256_cmp_##P(a, z, _CMP_EQ_OQ));                               \
    return _mm256_blendv_##P(r, a, _mm256_cmp_##P(a, a, _CMP_UNORD_Q));                          \
}
TL_FV_HEAVISIDE(ps, __m256) TL_FV_HEAVISIDE(pd, __m256d)
/* maximum/minimum/fmax/fmin/copysign/heaviside of float16 and float64 (TL_FUSED_KERNEL_H64X):
 * float16 lanes converted exactly (vcvtph2ps, vcvtps2pd; a NaN lane's bits built from its own,
 * so a signalling NaN stays one, as NumPy's cast keeps it), then the float64 element function
 * in vector form (TL_XV512_*, on AVX2 TL_FV_*) */
#define TL_H16_NAN_BITS(h, AND, OR, SLL, SET)                                                    \
    OR(OR(SLL(AND(h, SET(0x8000)), 48), SET(0x7ff0000000000000ll)), SLL(AND(h, SET(0x3ff)), 42))
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c"))) static inline __m512d
tl_ldx512_f16(const uint16_t *p)
{
    __m128i r = _mm_loadu_si128((const __m128i *)p);
    __mmask8 nan = _mm_cmpgt_epu16_mask(_mm_and_si128(r, _mm_set1_epi16(0x7fff)),
                                        _mm_set1_epi16(0x7c00));
    __m512d d = _mm512_cvtps_pd(_mm256_cvtph_ps(r));
    if (TL_UNLIKELY(nan)) {
        __m512i h = _mm512_cvtepu16_epi64(r);
        __m512i nb = TL_H16_NAN_BITS(h, _mm512_and_si512, _mm512_or_si512, _mm512_slli_epi64,
                                     _mm512_set1_epi64);
        d = _mm512_mask_blend_pd(nan, d, _mm512_castsi512_pd(nb));
    }
    return d;
}
__attribute__((target("avx2,f16c"))) static inline __m256d tl_ldx256_f16(const uint16_t *p)
{
    __m128i r = _mm_loadl_epi64((const __m128i *)p);
    __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(r, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    __m256d d = _mm256_cvtps_pd(_mm_cvtph_ps(r));
    if (TL_UNLIKELY(_mm_movemask_epi8(nan) & 0xff)) {
        __m256i nb = TL_H16_NAN_BITS(_mm256_cvtepu16_epi64(r), _mm256_and_si256, _mm256_or_si256,
                                     _mm256_slli_epi64, _mm256_set1_epi64x);
        /* (the 16-bit lanes' mask widened, sign-extended, to the 64-bit ones) */
        d = _mm256_blendv_pd(d, _mm256_castsi256_pd(nb),
                             _mm256_castsi256_pd(_mm256_cvtepi16_epi64(nan)));
    }
    return d;
}
/* (suffix f16x: the exact loads, beside TL_LD512_f64_f16's quieting one) */
#define TL_LD512_f64_f16x(p) tl_ldx512_f16(p)
#define TL_LD256_f64_f16x(p) tl_ldx256_f16(p)
/* (the AVX-512 forms of the TL_FV_* ones: a compare CMP choosing a, or a NaN in operand N) */
#define TL_XV512_PICK(a, b, CMP, N) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, CMP)            \
                                                     | _mm512_cmp_pd_mask(N, N, _CMP_UNORD_Q), b, a)
#define TL_XV512_maximum(a, b) TL_XV512_PICK(a, b, _CMP_GT_OQ, a)
#define TL_XV512_minimum(a, b) TL_XV512_PICK(a, b, _CMP_LT_OQ, a)
#define TL_XV512_fmax(a, b) TL_XV512_PICK(a, b, _CMP_GT_OQ, b)
#define TL_XV512_fmin(a, b) TL_XV512_PICK(a, b, _CMP_LT_OQ, b)
#define TL_XV512_copysign(a, b) _mm512_or_pd(_mm512_andnot_pd(_mm512_set1_pd(-0.0), a),           \
                                             _mm512_and_pd(_mm512_set1_pd(-0.0), b))
#define TL_XV512_heaviside(a, b)                                                                 \
    _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q),                                 \
        _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_EQ_OQ),             \
            _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_LT_OQ),         \
                                 _mm512_set1_pd(1.0), _mm512_setzero_pd()), b), a)
#define TL_FUSED_KERNEL_H64X(K, S1, S2, SO, LD1, LD2, FN, POST, SFX1, SFX2, OP)                  \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c"))) static void K##_avx512(       \
    const S1 *pa, const S2 *pb, SO *po, npy_intp n)                                              \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += 8)                                                                   \
        _mm512_storeu_pd(po + i, TL_XV512_##OP(TL_LD512_f64_##SFX1(pa + i), TL_LD512_f64_##SFX2(pb + i))); \
}                                                                                                \
__attribute__((target("avx2,f16c"))) static void K##_avx2(const S1 *pa, const S2 *pb, SO *po,    \
                                                          npy_intp n)                            \
{                                                                                                \
    npy_intp i;                                                                                  \
    for (i = 0; i < n; i += 4)                                                                   \
        _mm256_storeu_pd(po + i, TL_FV_##OP(pd, TL_LD256_f64_##SFX1(pa + i), TL_LD256_f64_##SFX2(pb + i))); \
}                                                                                                \
TL_FUSED_BODY(K##_gen, TL_FUSED_TARGET, S1, S2, SO, LD1, LD2, FN, POST)                          \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    if (tl_host_avx512) { K##_avx512(va, vb, vo, n); return 0; }                                 \
    if (tl_host_avx2) { K##_avx2(va, vb, vo, n); return 0; }                                     \
    return K##_gen(va, vb, vo, n, x);                                                            \
}
#else
#define TL_FUSED_FCMP_X86(K, S1, S2, SFX, SFX1, SFX2, P)
#define TL_FUSED_FCMP_DISPATCH(K)
#define TL_FUSED_KERNEL_F64I(K, S1, S2, SO, LD1, LD2, FN, POST, SFX, SFX1, SFX2, P, VOP)          \
    TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, POST)
#define TL_FUSED_KERNEL_ICMP(K, S1, S2, LD1, LD2, FN, SFX, BITS, SFX1, SFX2, P)                  \
    TL_FUSED_KERNEL(K, S1, S2, tl_bool, LD1, LD2, FN, TL_FUSED_XOR)
#define TL_FUSED_KERNEL_512(K, S1, S2, SO, LD1, LD2, FN, POST)                                   \
    TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, POST)
#define TL_FUSED_KERNEL_H64(K, S1, S2, SO, LD1, LD2, FN, POST, SFX1, SFX2, VOP)                  \
    TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, POST)
#define TL_FUSED_KERNEL_H64X(K, S1, S2, SO, LD1, LD2, FN, POST, SFX1, SFX2, OP)                  \
    TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, POST)
#define TL_FUSED_KERNEL_IARITH(K, S1, S2, SO, LD1, LD2, FN, BITS, SFX1, SFX2, VOP)               \
    TL_FUSED_KERNEL(K, S1, S2, SO, LD1, LD2, FN, TL_FUSED_ID)
#endif
/* kernel K of a float32/float64 (SFX) comparison of S1 (suffix SFX1) and S2 (SFX2) operands:
 * predicate P, element function FN, LD1/LD2: the conversions of the portable loop */
#define TL_FUSED_KERNEL_FCMP(K, S1, S2, SFX, SFX1, SFX2, LD1, LD2, P, FN)                         \
TL_FUSED_FCMP_X86(K, S1, S2, SFX, SFX1, SFX2, P)                                                 \
TL_FUSED_TARGET static unsigned K(const void *va, const void *vb, void *vo, npy_intp n, int x)   \
{                                                                                                \
    const S1 *pa = (const S1 *)va; const S2 *pb = (const S2 *)vb; tl_bool *po = (tl_bool *)vo;   \
    npy_intp i;                                                                                  \
    TL_FUSED_FCMP_DISPATCH(K)                                                                    \
    for (i = 0; i < n; i++) po[i] = (tl_bool)(FN(LD1(pa[i]), LD2(pb[i]), NULL) ^ x);             \
    return 0;                                                                                    \
}

/* do the byte ranges [a, a + na) and [b, b + nb) not overlap? */
static inline int tl_disjoint(const char *a, npy_intp na, const char *b, npy_intp nb)
{
    return a + na <= b || b + nb <= a;
}

/* The NumPy loop of every fused pair: kernel k (its operands exchanged when swap, its bool results
 * XORed with x) on whole contiguous chunks in place; scalar (stride 0) operands are broadcast into
 * a chunk once; strided operands go through chunk buffers; the tail, calls shorter than a chunk
 * and an output fed back into an input (reduce/accumulate with out=) go element by element (k1). */
__attribute__((noinline)) static int tl_fused_run(tl_fused_kernel k, tl_fused_scalar k1, int swap,
    int x, npy_intp s1, npy_intp s2, npy_intp so, char *const data[], npy_intp const dims[],
    npy_intp const st[])
{
    union { char c[TL_FUSED_CHUNK * 8]; double d; int64_t i; } buf[3];
    char *p[3];
    const char *in[2];
    npy_intp s[3], isz[3], n = dims[0], i = 0, tail;
    int j, bcast[2];
    unsigned fpe = 0;
    p[0] = data[swap]; p[1] = data[!swap]; p[2] = data[2];
    s[0] = st[swap]; s[1] = st[!swap]; s[2] = st[2];
    isz[0] = swap ? s2 : s1; isz[1] = swap ? s1 : s2; isz[2] = so;
    if (n < TL_FUSED_CHUNK || tl_feedback(p[0], s[0], p[2], s[2], n)
            || tl_feedback(p[1], s[1], p[2], s[2], n))
        return tl_finish(k1(p[0], s[0], p[1], s[1], p[2], s[2], n, x));
    if (s[0] == isz[0] && s[1] == isz[1] && s[2] == isz[2]) {
        /* as TL_FOR_ALIGNED: beyond TL_PEEL_BYTES, the elements before the output's first
         * 64-byte boundary one by one, so the kernel's vector stores do not straddle lines */
        if (n * isz[2] >= TL_PEEL_BYTES) {
            npy_intp head = TL_ALIGN_HEAD(p[2], isz[2]);
            if (head) fpe |= k1(p[0], s[0], p[1], s[1], p[2], s[2], head, x);
            for (j = 0; j < 3; j++) p[j] += head * s[j];
            n -= head;
        }
        tail = n % TL_FUSED_CHUNK;
        fpe |= k(p[0], p[1], p[2], n - tail, x);
        /* the tail as one more chunk ending at n, recomputing the elements before it (their
         * values and flags again), when the output overlaps no input: k1 took ~5 ns of a
         * 10^3-element call */
        if (tail && n >= TL_FUSED_CHUNK && tl_disjoint(p[2], n * s[2], p[0], n * s[0])
                && tl_disjoint(p[2], n * s[2], p[1], n * s[1])) {
            npy_intp i0 = n - TL_FUSED_CHUNK;
            return tl_finish(fpe | k(p[0] + i0 * s[0], p[1] + i0 * s[1], p[2] + i0 * s[2],
                                     TL_FUSED_CHUNK, x));
        }
    } else {
        tail = n % TL_FUSED_CHUNK;
        for (j = 0; j < 2; j++) {
            bcast[j] = s[j] == 0;
            if (bcast[j]) in[j] = tl_fused_load(buf[j].c, p[j], 0, isz[j]);
        }
        for (; i < n - tail; i += TL_FUSED_CHUNK) {
            char *out;
            for (j = 0; j < 2; j++) {
                if (bcast[j]) continue;
                if (s[j] == isz[j]) in[j] = p[j] + i * s[j];
                else in[j] = tl_fused_load(buf[j].c, p[j] + i * s[j], s[j], isz[j]);
            }
            out = s[2] == isz[2] ? p[2] + i * s[2] : buf[2].c;
            fpe |= k(in[0], in[1], out, TL_FUSED_CHUNK, x);
            if (out == buf[2].c) tl_copy_strided(p[2] + i * s[2], s[2], out, isz[2], isz[2], TL_FUSED_CHUNK);
        }
    }
    i = n - tail;
    if (tail)
        fpe |= k1(p[0] + i * s[0], s[0], p[1] + i * s[1], s[1], p[2] + i * s[2], s[2], tail, x);
    return tl_finish(fpe);
}

/* The NumPy loop (S1, S2) -> SO of one (op, pair) over kernel K (and its element loop K_1) */
#define TL_FUSED_LOOP(NAME, K, SWAP, X, S1, S2, SO)                                              \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    (void)ctx; (void)aux;                                                                        \
    return tl_fused_run(K, K##_1, SWAP, X, sizeof(S1), sizeof(S2), sizeof(SO), data, dims, st);  \
}
/* add of a float32/float64 and another dtype: a reduction sums pairwise (TL_LOOP_BLOCKED_RED) */
#define TL_FUSED_LOOP_PW(NAME, K, SWAP, X, S1, S2, SO, SFX, CVTSEL)                              \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    tl_cvt_##SFX##_fn cb;                                                                        \
    (void)aux;                                                                                   \
    if (TL_RED_SHAPE(data, st) && (cb = CVTSEL(ctx->descriptors[1])) != NULL) {                  \
        *(SO *)data[0] += tl_pairwise_cvt_##SFX(cb, data[1], dims[0], st[1]);                    \
        return 0;                                                                                \
    }                                                                                            \
    return tl_fused_run(K, K##_1, SWAP, X, sizeof(S1), sizeof(S2), sizeof(SO), data, dims, st);  \
}

typedef struct {
    const char *op;          /* op name (_ops.py) */
    int types[3];            /* first and second input, compute type: indices into LOOP_TYPES */
    PyArrayMethod_StridedLoop *loop;
} tl_fused_entry;

typedef struct {
    const char *op;          /* op name (_ops.py) */
    int compute;             /* index into LOOP_TYPES of the compute/result type */
    PyArrayMethod_StridedLoop *loop;
} tl_mixed_entry;

typedef struct {
    const char *op;          /* op name (_ops.py) */
    int types[4];            /* loop dtypes as indices into LOOP_TYPES, -1: unused */
    PyArrayMethod_StridedLoop *loop;
    PyArrayMethod_StridedLoop *indexed;   /* or NULL */
    void *initial;                        /* get_reduction_initial or NULL */
} tl_loop_entry;

/* ==== vector transcendental loops (glibc's libmvec, NumPy's SVML) ==============================
 * float32/float64 exp, log, sin... on contiguous data call libmvec's AVX-512 or AVX2 variants
 * (or, for a few ops on AVX-512, the SVML functions NumPy exports: tl_vmath_set),
 * resolved at import with dlopen (the extension still loads without libmvec, on other CPUs or
 * other systems: the scalar loop then runs). libmvec documents a 4-ulp maximum error and may
 * raise spurious FP flags or none, so a lane whose input lies outside the op's ordinary range
 * (NaN, inf, zero, subnormal, overflow/underflow, domain errors) is recomputed by the scalar element
 * function, and the flags of the vector calls are discarded (MXCSR restored): values and flags
 * of those inputs are exactly the scalar loop's, which match NumPy's.
 * X(op, libm name, kind, float32 lo, hi, float64 lo, hi), ordinary inputs by kind:
 *   SYM: |x| <= hi; POS: lo <= x <= hi (lo > 0); SYMLO: SYM and x >= lo;
 * never zeros (their signs) or subnormals (underflow). */
#define TL_VMATH_OPS(X)                                                                          \
X(cbrt, cbrt, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                       \
X(exp, exp, SYM, 0, 87.0f, 0, 708.0)                                                             \
X(exp2, exp2, SYM, 0, 126.0f, 0, 1022.0)                                                         \
X(expm1, expm1, SYM, 0, 88.0f, 0, 709.0)                                                         \
X(log, log, POS, FLT_MIN, FLT_MAX, DBL_MIN, DBL_MAX)                                             \
X(log2, log2, POS, FLT_MIN, FLT_MAX, DBL_MIN, DBL_MAX)                                           \
X(log10, log10, POS, FLT_MIN, FLT_MAX, DBL_MIN, DBL_MAX)                                         \
X(log1p, log1p, SYMLO, -0x1.fffffep-1f, FLT_MAX, -0x1.fffffffffffffp-1, DBL_MAX)                 \
X(sin, sin, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                         \
X(cos, cos, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                         \
X(tan, tan, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                         \
X(arcsin, asin, SYM, 0, 1.0f, 0, 1.0)                                                            \
X(arccos, acos, SYM, 0, 1.0f, 0, 1.0)                                                            \
X(arctan, atan, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                     \
X(sinh, sinh, SYM, 0, 89.0f, 0, 710.0)                                                           \
X(cosh, cosh, SYM, 0, 89.0f, 0, 710.0)                                                           \
X(tanh, tanh, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                       \
X(arcsinh, asinh, SYM, 0, FLT_MAX, 0, DBL_MAX)                                                   \
X(arccosh, acosh, POS, 1.0f, FLT_MAX, 1.0, DBL_MAX)                                              \
X(arctanh, atanh, SYM, 0, 0x1.fffffep-1f, 0, 0x1.fffffffffffffp-1)

#define TL_VM_ENUM(OP, LIBM, K, LO32, HI32, LO64, HI64) TL_VM_##OP,
enum { TL_VMATH_OPS(TL_VM_ENUM) TL_VM_N };
enum { TL_VM_SYM, TL_VM_POS, TL_VM_SYMLO };
#define TL_VM_NAME(OP, LIBM, K, LO32, HI32, LO64, HI64) #LIBM,
static const char *const tl_vm_libm[TL_VM_N] = { TL_VMATH_OPS(TL_VM_NAME) };
#define TL_VM_OPNAME(OP, LIBM, K, LO32, HI32, LO64, HI64) #OP,
static const char *const tl_vm_opname[TL_VM_N + 2] = { TL_VMATH_OPS(TL_VM_OPNAME) "arctan2",
                                                        "power" };
/* Ordinary inputs, as tested by the AVX2 loops: one unsigned compare on the bits,
 * ((bits & absm) - lo) <= span, and x >= flo for SYMLO (flo = -inf otherwise, unused); by the
 * AVX-512 loops: rlo <= x <= rhi and not zero or subnormal, or (cls 1 and 2: whole float range)
 * one vfpclass: not NaN, inf, zero or subnormal (1), nor negative (2). */
typedef struct { uint32_t absm, lo, span; float flo, rlo, rhi; int cls;
                 int err; float elo, ehi; uint32_t nan; float safe; } tl_vm_dom32;
typedef struct { uint64_t absm, lo, span; double flo, rlo, rhi; int cls;
                 int err; double elo, ehi; uint64_t nan; double safe; } tl_vm_dom64;
#define TL_VM_DOM(B, F, K, LO, HI, MIN, MAX, TOBITS, ALL) ((K) == TL_VM_POS                        \
    ? (B){(ALL), TOBITS(LO), TOBITS(HI) - TOBITS(LO), -(F)INFINITY, (LO), (HI),                  \
          (LO) == (MIN) && (HI) == (MAX) ? 2 : 0}                                                \
    : (B){(ALL) >> 1, TOBITS(MIN), TOBITS(HI) - TOBITS(MIN),                                     \
          (K) == TL_VM_SYMLO ? (F)(LO) : -(F)INFINITY, (K) == TL_VM_SYMLO ? (F)(LO) : -(F)(HI),   \
          (HI), (K) == TL_VM_SYM && (HI) == (MAX) ? 1 : 0})
TL_SHARED(tl_vm_dom32 tl_vm_dom_s32[TL_VM_N], );
TL_SHARED(tl_vm_dom64 tl_vm_dom_s64[TL_VM_N], );
/* Domain errors, x < elo or x > ehi (not NaN): glibc's scalar functions give one NaN for all of
 * them (tl_elem.h makes it the CPU's default NaN, NumPy's) and raise only invalid. The
 * vector loops fill such lanes with that NaN instead of calling the scalar function per lane (7x
 * NumPy's time for log of normal data). The NaN and the flags are probed at import, from the
 * element function on inputs at the ends and across the range; an op whose probes disagree keeps
 * the scalar lanes (err = 0). */
#define TL_VM_DOMAIN_ERRORS(X)                                                                   \
X(log, 0, INFINITY) X(log2, 0, INFINITY) X(log10, 0, INFINITY) X(log1p, -1, INFINITY)            \
X(arcsin, -1, 1) X(arccos, -1, 1) X(arctanh, -1, 1) X(arccosh, 1, INFINITY)
#define TL_VM_PROBE(D, F, BITS, FMAX, FMIN, FTRUE_MIN, FN, ELO, EHI)                             \
{                                                                                                \
    const F lo = (F)(ELO), hi = (F)(EHI);                                                        \
    const F below[] = {nextafter##FN(lo, -(F)INFINITY), lo - (F)0.5, lo - 1, lo - 1000, -(FMAX), \
                       -(F)INFINITY, lo == 0 ? -(FTRUE_MIN) : lo - 3, lo == 0 ? -(FMIN) : lo - 7}; \
    const F above[] = {nextafter##FN(hi, (F)INFINITY), hi + (F)0.5, hi + 1, hi + 1000, (FMAX),   \
                       (F)INFINITY};                                                             \
    int k, ok = 1, nb = (int)(sizeof below / sizeof *below), na = hi < (F)INFINITY ? 6 : 0;      \
    __typeof__(D.nan) bits = 0;                                                                  \
    fexcept_t saved;                                                                             \
    fegetexceptflag(&saved, FE_ALL_EXCEPT);                                                      \
    for (k = 0; k < nb + na; k++) {                                                              \
        volatile F x = k < nb ? below[k] : above[k - nb];                                        \
        unsigned e = 0;                                                                          \
        F r;                                                                                     \
        feclearexcept(FE_ALL_EXCEPT);                                                            \
        r = fn(x, &e);                                                                           \
        ok &= e == 0 && fetestexcept(FE_ALL_EXCEPT) == FE_INVALID && r != r;                     \
        if (k == 0) bits = BITS(r);                                                              \
        ok &= BITS(r) == bits;                                                                   \
    }                                                                                            \
    fesetexceptflag(&saved, FE_ALL_EXCEPT);                                                      \
    D.err = ok; D.elo = lo; D.ehi = hi; D.nan = bits;                                            \
}
static void tl_vm_domains(void)
{
#define TL_VM_D(OP, LIBM, K, LO32, HI32, LO64, HI64)                                             \
    tl_vm_dom_s32[TL_VM_##OP] = TL_VM_DOM(tl_vm_dom32, float, TL_VM_##K, LO32, HI32,             \
                                          FLT_MIN, FLT_MAX, tl_f32_bits, 0xffffffffu);           \
    tl_vm_dom_s64[TL_VM_##OP] = TL_VM_DOM(tl_vm_dom64, double, TL_VM_##K, LO64, HI64,            \
                                          DBL_MIN, DBL_MAX, tl_f64_bits, 0xffffffffffffffffull); \
    tl_vm_dom_s32[TL_VM_##OP].safe = TL_VM_##K == TL_VM_POS ? 2.0f : 0.5f;                       \
    tl_vm_dom_s64[TL_VM_##OP].safe = TL_VM_##K == TL_VM_POS ? 2.0 : 0.5;
    TL_VMATH_OPS(TL_VM_D)
#undef TL_VM_D
#define TL_VM_E(OP, ELO, EHI)                                                                    \
    { float (*fn)(float, unsigned *) = tl_##OP##_f32;                                            \
      TL_VM_PROBE(tl_vm_dom_s32[TL_VM_##OP], float, tl_f32_bits, FLT_MAX, FLT_MIN,               \
                  FLT_TRUE_MIN, f, ELO, EHI) }                                                   \
    { double (*fn)(double, unsigned *) = tl_##OP##_f64;                                          \
      TL_VM_PROBE(tl_vm_dom_s64[TL_VM_##OP], double, tl_f64_bits, DBL_MAX, DBL_MIN,              \
                  DBL_TRUE_MIN, , ELO, EHI) }
    TL_VM_DOMAIN_ERRORS(TL_VM_E)
#undef TL_VM_E
}

/* the variant in use: 0 none (scalar loops), 1 AVX2 (_ZGVdN8v/_ZGVdN4v), 2 AVX-512
 * (_ZGVeN16v/_ZGVeN8v, or SVML's); a NULL entry (symbol missing) keeps that op scalar */
TL_SHARED(int tl_vm_isa, = 0);
/* the tables of float16/bfloat16 transcendentals and 8-bit gcd/lcm: in use (follows set_vmath),
 * and after how many elements of an op (the 8-bit ones: / 32) */
TL_SHARED(int tl_tables_on, = 1);
TL_SHARED(npy_intp tl_tables_after, = (npy_intp)1 << 21);
TL_SHARED(void *tl_vm_fn32[TL_VM_N], );
TL_SHARED(void *tl_vm_fn64[TL_VM_N], );
/* NumPy's own float32/float64 inner loop of an op (its ufunc's legacy loop for (f, f) / (d, d),
 * as NumPy runs it), used instead of the vector functions where set (_ufuncs.pyx's
 * _take_numpy_loops and tl_np_take, after tl_vmath_set, which clears them); or NULL */
typedef void (*tl_np_loop_t)(char **args, npy_intp const *dims, npy_intp const *st, void *data);
enum { TL_NP_arctan2 = TL_VM_N, TL_NP_power, TL_NP_N };   /* the two-operand ops after them */
TL_SHARED(tl_np_loop_t tl_np_loop32[TL_NP_N], );
TL_SHARED(tl_np_loop_t tl_np_loop64[TL_NP_N], );
TL_SHARED(void *tl_np_data32[TL_NP_N], );
TL_SHARED(void *tl_np_data64[TL_NP_N], );
/* arctan2, power: AVX-512 vector functions of two operands (SVML's, libmvec's, our float32
 * pow), or NULL */
TL_SHARED(void *tl_vm_atan2_32, );
TL_SHARED(void *tl_vm_atan2_64, );
TL_SHARED(void *tl_vm_pow_32, );
TL_SHARED(void *tl_vm_pow_64, );

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__linux__)
#define TL_VMATH 1
#include <dlfcn.h>
/* float32 results a float16/bfloat16 loop recomputes with the scalar function (TL_LOOP1_VEC16):
 * |bits| < lo, or ((bits - from) & low) < span (within span/2 ulps of a rounding boundary) */
typedef struct { uint32_t lo, from, low, span; } tl_vm_near;
typedef float (*tl_vm_s32)(float, unsigned *);
typedef double (*tl_vm_s64)(double, unsigned *);

/* whole vectors of o[i] = f(a[i]) (a == o allowed). The vector call gets d->safe in the lanes
 * with other than ordinary inputs (libmvec runs glibc's scalar function on its own special lanes,
 * so one such lane made the whole vector 10x slower); those lanes (and REDO's lanes of the
 * results) are recomputed by the scalar function (before the
 * vector is stored, so a[i..] is still the input) under the MXCSR flags of before the vector
 * calls; csr then gets the flags the scalar calls add; but domain errors (DOMERR sets their mask
 * and puts the probed NaN in y) add invalid. Returns how many elements were done.
 * The hot loop checks one vector and calls the vector function on it, nothing else: its
 * constants come from the stack as memory operands (the calls clobber every vector register),
 * the special vector's code sits outside it. In a C benchmark of libmvec's coshf, sinhf, tanhf,
 * expm1f, cbrtf and expf on 10^5 floats in [1, 9], the loop this one replaced (a scan of 16
 * vectors ahead, four per kortest, then bare calls) took 1.07-1.17x the time of bare calls, this
 * one 1.01-1.08x; with a range check 1.17-1.29x against 1.10-1.21x. perf's share of the loop
 * against the function: coshf 0.26 -> 0.15, expm1f 0.26 -> 0.17, tanhf 0.12 -> 0.07. */
#define TL_VM_LOOP(N, F, V, LOADU, STOREU, OKMASK, ALLOK, REDO, DOMERR, ORSAFE)                  \
    typedef V (*vfn)(V);                                                                         \
    unsigned csr = _mm_getcsr(), derr = 0;                                                       \
    npy_intp i = 0;                                                                              \
    while (i + N <= n) {                                                                         \
        V v, y;                                                                                  \
        unsigned ok;                                                                             \
        for (; i + N <= n; i += N) {                                                             \
            v = LOADU(a + i);                                                                    \
            if (!ALLOK(OKMASK(v))) break;                                                        \
            y = ((vfn)vf)(v);                                                                    \
            if (REDO(y)) break;                                                                  \
            STOREU(o + i, y);                                                                    \
        }                                                                                        \
        if (i + N > n) break;                                                                    \
        /* the vector at i: special lanes, or lanes REDO marks */                                \
        v = LOADU(a + i), y = v;                                                                 \
        ok = OKMASK(v);                                                                          \
        if (ok) {               /* (no ordinary lane: every lane is the scalar function's) */   \
            y = ((vfn)vf)(ok == (1u << N) - 1 ? v : ORSAFE(v, ok));                              \
            ok &= ~REDO(y);                                                                      \
        }                                                                                        \
        if (ok != (1u << N) - 1 && d->err) {                                                     \
            unsigned err;                                                                        \
            DOMERR(v, y, err);                                                                   \
            ok |= err;                                                                           \
            derr |= err;                                                                         \
        }                                                                                        \
        if (ok != (1u << N) - 1) {                                                               \
            F r[N];                                                                              \
            int k;                                                                               \
            STOREU(r, y);                                                                        \
            _mm_setcsr(csr);                                                                     \
            for (k = 0; k < N; k++) if (!((ok >> k) & 1)) r[k] = sf(a[i + k], fpe);              \
            csr = _mm_getcsr();                                                                  \
            y = LOADU(r);                                                                        \
        }                                                                                        \
        STOREU(o + i, y);                                                                        \
        i += N;                                                                                  \
    }                                                                                            \
    _mm_setcsr(csr);                                                                             \
    if (derr) *fpe |= TL_FPE_INVALID;                                                            \
    return i;

/* vfpclass categories: QNaN 0x01, +0 0x02, -0 0x04, +inf 0x08, -inf 0x10, subnormal 0x20,
 * negative 0x40, SNaN 0x80 */
#define TL_VM_AVX512(S, F, N, V, SUF, REDO, SET1)                                                \
__attribute__((target("avx512f,avx512dq"))) static npy_intp tl_vm_##S##_avx512(                 \
    void *vf, tl_vm_##S sf, const tl_vm_dom_##S##_t *d, const F *a, F *o, npy_intp n,            \
    unsigned *fpe, const tl_vm_near *nr)                                                         \
{                                                                                                \
    const V rlo = _mm512_set1_##SUF(d->rlo), rhi = _mm512_set1_##SUF(d->rhi);                    \
    const V elo = _mm512_set1_##SUF(d->elo), ehi = _mm512_set1_##SUF(d->ehi);                    \
    const V enan = _mm512_castsi512_##SUF(SET1(d->nan)), safe = _mm512_set1_##SUF(d->safe);      \
    TL_VM_NEAR_VARS(nr, 512)                                                                     \
    if (d->cls == 1) {                                                                           \
        TL_VM_LOOP(N, F, V, _mm512_loadu_##SUF, _mm512_storeu_##SUF, OKM_SYM, ALLOK, REDO,      \
                   DOMERR, ORSAFE)                                                               \
    }                                                                                            \
    if (d->cls == 2) {                                                                           \
        TL_VM_LOOP(N, F, V, _mm512_loadu_##SUF, _mm512_storeu_##SUF, OKM_POS, ALLOK, REDO,      \
                   DOMERR, ORSAFE)                                                               \
    }                                                                                            \
    TL_VM_LOOP(N, F, V, _mm512_loadu_##SUF, _mm512_storeu_##SUF, OKM_RANGE, ALLOK, REDO, DOMERR, \
               ORSAFE)                                                                           \
}
/* (quiet compares: false for NaN) */
#define TL_VM_DOMERR512(SUF, v, y, err)                                                          \
    { err = (unsigned)(_mm512_cmp_##SUF##_mask(v, elo, _CMP_LT_OQ)                               \
                       | _mm512_cmp_##SUF##_mask(v, ehi, _CMP_GT_OQ));                           \
      y = _mm512_mask_blend_##SUF(err, y, enan); }
/* v where bit k of ok is set, safe elsewhere */
#define TL_VM_ORSAFE512(SUF, v, ok) _mm512_mask_blend_##SUF(ok, safe, v)
/* ordinary lanes, as a mask register (a kmov and compare in general registers cost more) */
#define OKM_SYM(v) _knot_mask16(_mm512_fpclass_ps_mask(v, 0xbf))
#define OKM_POS(v) _knot_mask16(_mm512_fpclass_ps_mask(v, 0xff))
#define OKM_RANGE(v) _kandn_mask16(_mm512_fpclass_ps_mask(v, 0x26), _mm512_mask_cmp_ps_mask(     \
                      _mm512_cmp_ps_mask(v, rlo, _CMP_GE_OQ), v, rhi, _CMP_LE_OQ))
#define ALLOK(m) _kortestc_mask16_u8(m, m)
typedef tl_vm_dom32 tl_vm_dom_s32_t;
typedef tl_vm_dom64 tl_vm_dom_s64_t;
typedef tl_vm_dom32 tl_vm_dom_h32_t;
typedef tl_vm_s32 tl_vm_h32;
/* tl_vm_near's fields in W-bit vectors (zeros without one) */
#define TL_VM_NEAR_VARS(nr, W)                                                                   \
    const __m##W##i nr_lo = _mm##W##_set1_epi32(nr ? (int)nr->lo : 0);                           \
    const __m##W##i nr_from = _mm##W##_set1_epi32(nr ? (int)nr->from : 0);                       \
    const __m##W##i nr_low = _mm##W##_set1_epi32(nr ? (int)nr->low : 0);                         \
    const __m##W##i nr_span = _mm##W##_set1_epi32(nr ? (int)nr->span : 0);                       \
    (void)nr_lo; (void)nr_from; (void)nr_low; (void)nr_span;
#define TL_VM_NO_REDO(y) 0u
#define TL_VM_REDO512(y)                                                                         \
    ((unsigned)_mm512_cmplt_epu32_mask(_mm512_and_si512(_mm512_castps_si512(y),                  \
                                                        _mm512_set1_epi32(0x7fffffff)), nr_lo)   \
     | (unsigned)_mm512_cmplt_epu32_mask(_mm512_and_si512(_mm512_sub_epi32(                      \
                                             _mm512_castps_si512(y), nr_from), nr_low), nr_span))
#define DOMERR(v, y, err) TL_VM_DOMERR512(ps, v, y, err)
#define ORSAFE(v, ok) TL_VM_ORSAFE512(ps, v, ok)
TL_VM_AVX512(s32, float, 16, __m512, ps, TL_VM_NO_REDO, _mm512_set1_epi32)
TL_VM_AVX512(h32, float, 16, __m512, ps, TL_VM_REDO512, _mm512_set1_epi32)
#undef DOMERR
#undef ORSAFE
#undef OKM_SYM
#undef OKM_POS
#undef OKM_RANGE
#undef ALLOK
#define OKM_SYM(v) _knot_mask8(_mm512_fpclass_pd_mask(v, 0xbf))
#define OKM_POS(v) _knot_mask8(_mm512_fpclass_pd_mask(v, 0xff))
#define OKM_RANGE(v) _kandn_mask8(_mm512_fpclass_pd_mask(v, 0x26), _mm512_mask_cmp_pd_mask(      \
                      _mm512_cmp_pd_mask(v, rlo, _CMP_GE_OQ), v, rhi, _CMP_LE_OQ))
#define ALLOK(m) _kortestc_mask8_u8(m, m)
#define DOMERR(v, y, err) TL_VM_DOMERR512(pd, v, y, err)
#define ORSAFE(v, ok) TL_VM_ORSAFE512(pd, v, ok)
TL_VM_AVX512(s64, double, 8, __m512d, pd, TL_VM_NO_REDO, _mm512_set1_epi64)
#undef DOMERR
#undef ORSAFE
#undef OKM_SYM
#undef OKM_POS
#undef OKM_RANGE
#undef ALLOK
#define TL_VM_ALLOK8(m) ((m) == 0xffu)
#define TL_VM_ALLOK4(m) ((m) == 0xfu)

/* AVX2 has no unsigned compare: flip the sign bits and compare signed */
#define TL_VM_AVX2(S, F, N, V, SUF, EP, SET1, I, SIGN)                                           \
__attribute__((target("avx2"))) static inline unsigned tl_vm_ok_##S##_avx2(                     \
    V v, __m256i absm, __m256i lo, __m256i span, __m256i sign, V flo, int has_flo)               \
{                                                                                                \
    __m256i u = _mm256_sub_##EP(_mm256_and_si256(_mm256_cast##SUF##_si256(v), absm), lo);         \
    __m256i bad = _mm256_cmpgt_##EP(_mm256_xor_si256(u, sign), span);                            \
    unsigned ok = (unsigned)_mm256_movemask_##SUF(_mm256_castsi256_##SUF(bad)) ^ ((1u << N) - 1); \
    return has_flo ? ok & (unsigned)_mm256_movemask_##SUF(_mm256_cmp_##SUF(v, flo, _CMP_GE_OQ)) : ok; \
}                                                                                                \
__attribute__((target("avx2"))) static npy_intp tl_vm_##S##_avx2(                               \
    void *vf, tl_vm_##S sf, const tl_vm_dom_##S##_t *d, const F *a, F *o, npy_intp n,            \
    unsigned *fpe, const tl_vm_near *nr)                                                         \
{                                                                                                \
    const __m256i absm = SET1((I)d->absm), lo = SET1((I)d->lo), sign = SET1((I)SIGN);            \
    const __m256i span = _mm256_xor_si256(SET1((I)d->span), sign);                               \
    const V flo = _mm256_set1_##SUF(d->flo);                                                     \
    const int has_flo = d->flo > -(F)INFINITY;                                                   \
    const V elo = _mm256_set1_##SUF(d->elo), ehi = _mm256_set1_##SUF(d->ehi);                    \
    const V enan = _mm256_castsi256_##SUF(SET1((I)d->nan)), safe = _mm256_set1_##SUF(d->safe);   \
    const __m256i lane = LANEBITS;                                                               \
    TL_VM_NEAR_VARS(nr, 256)                                                                     \
    TL_VM_LOOP(N, F, V, _mm256_loadu_##SUF, _mm256_storeu_##SUF, OKM, TL_VM_ALLOK##N, REDO,      \
               DOMERR, ORSAFE)                                                                   \
}
#define TL_VM_DOMERR256(SUF, v, y, err)                                                          \
    { __typeof__(v) m_ = _mm256_or_##SUF(_mm256_cmp_##SUF(v, elo, _CMP_LT_OQ),                   \
                                         _mm256_cmp_##SUF(v, ehi, _CMP_GT_OQ));                  \
      err = (unsigned)_mm256_movemask_##SUF(m_);                                                 \
      y = _mm256_blendv_##SUF(y, enan, m_); }
/* v where bit k of ok is set, safe elsewhere (lane: bit k in lane k) */
#define TL_VM_ORSAFE256(SUF, EP, SET1, v, ok)                                                    \
    _mm256_blendv_##SUF(safe, v, _mm256_castsi256_##SUF(                                         \
        _mm256_cmpeq_##EP(_mm256_and_si256(SET1(ok), lane), lane)))
/* (the masked bits are below 2^31: signed compares) */
#define TL_VM_REDO256(y)                                                                         \
    (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(                            \
        _mm256_cmpgt_epi32(nr_lo, _mm256_and_si256(_mm256_castps_si256(y),                       \
                                                   _mm256_set1_epi32(0x7fffffff))),              \
        _mm256_cmpgt_epi32(nr_span, _mm256_and_si256(_mm256_sub_epi32(_mm256_castps_si256(y),    \
                                                                      nr_from), nr_low)))))
#define OKM(v) tl_vm_ok_s32_avx2(v, absm, lo, span, sign, flo, has_flo)
#define REDO TL_VM_NO_REDO
#define DOMERR(v, y, err) TL_VM_DOMERR256(ps, v, y, err)
#define ORSAFE(v, ok) TL_VM_ORSAFE256(ps, epi32, _mm256_set1_epi32, v, ok)
#define LANEBITS _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)
TL_VM_AVX2(s32, float, 8, __m256, ps, epi32, _mm256_set1_epi32, int32_t, INT32_MIN)
#undef DOMERR
#undef ORSAFE
#undef LANEBITS
#undef REDO
#define REDO TL_VM_REDO256
#define DOMERR(v, y, err) TL_VM_DOMERR256(ps, v, y, err)
#define ORSAFE(v, ok) TL_VM_ORSAFE256(ps, epi32, _mm256_set1_epi32, v, ok)
#define LANEBITS _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)
TL_VM_AVX2(h32, float, 8, __m256, ps, epi32, _mm256_set1_epi32, int32_t, INT32_MIN)
#undef DOMERR
#undef ORSAFE
#undef LANEBITS
#undef REDO
#undef OKM
#define OKM(v) tl_vm_ok_s64_avx2(v, absm, lo, span, sign, flo, has_flo)
#define REDO TL_VM_NO_REDO
#define DOMERR(v, y, err) TL_VM_DOMERR256(pd, v, y, err)
#define ORSAFE(v, ok) TL_VM_ORSAFE256(pd, epi64, _mm256_set1_epi64x, v, ok)
#define LANEBITS _mm256_setr_epi64x(1, 2, 4, 8)
TL_VM_AVX2(s64, double, 4, __m256d, pd, epi64, _mm256_set1_epi64x, int64_t, INT64_MIN)
#undef DOMERR
#undef ORSAFE
#undef LANEBITS
#undef REDO
#undef OKM

/* float32 pow for the lanes TL_VM_OK_pow passes (a positive normal base, |y log2 x| <= ~101):
 * libmvec's _ZGVeN16vv_powf gathers from its tables (1.9 ns per element against SVML's 0.8 in
 * NumPy). This is 2^(y log2 x) in double with the tables in registers (permutes, no gathers):
 * x = 2^k z, z in [0.7, 1.4) (the float's bits less those of 0.7 give k and a 16-way interval
 * of z, with centre 1/invc); log2 x = k - log2 invc + P(z invc - 1), |z invc - 1| < 0.03,
 * P: log2(1+r) to degree 6 (error < 2^-37); then t = y log2 x = m/32 + f, |f| <= 1/64, and
 * 2^t = 2^(m/32) (2^(j/32) from a 32-entry table, 2^floor(m/32) added to its exponent)
 * * Q(f), Q: 2^f to degree 4 (error < 2^-39). One rounding to float32 at the end: within 1 ulp,
 * integer powers exact. Filled by tl_pow32_init. */
static double tl_pow32_invc[16] __attribute__((aligned(64))), tl_pow32_logc[16] __attribute__((aligned(64)));
static uint64_t tl_pow32_exp2[32] __attribute__((aligned(64)));
static double tl_pow32_log_poly[6], tl_pow32_exp_poly[4];
#define TL_POW32_OFF 0x3f330000     /* 0.69921875 */
static void tl_pow32_init(void)
{
    int i;
    for (i = 0; i < 16; i++) {
        uint32_t lo = TL_POW32_OFF + ((uint32_t)i << 19), hi = lo + (1u << 19);
        float zlo, zhi;
        memcpy(&zlo, &lo, 4);
        memcpy(&zhi, &hi, 4);
        /* the harmonic mean: |z/c - 1| equal at both ends */
        tl_pow32_invc[i] = ((double)zlo + (double)zhi) / (2.0 * (double)zlo * (double)zhi);
        tl_pow32_logc[i] = -log2(tl_pow32_invc[i]);
    }
    for (i = 0; i < 32; i++) {
        double t = exp2(i / 32.0);
        uint64_t b;
        memcpy(&b, &t, 8);
        tl_pow32_exp2[i] = b - ((uint64_t)i << 47);     /* + m << 47 gives 2^(m/32) */
    }
    {
        double ln2 = 0.69314718055994530942, f = 1.0;
        for (i = 0; i < 6; i++)       /* log2(1+r) = sum (-1)^(n+1) r^n / (n ln2), n = 1.. */
            tl_pow32_log_poly[i] = (i % 2 ? -1.0 : 1.0) / ((i + 1) * ln2);
        for (i = 0; i < 4; i++) {     /* 2^f = 1 + sum (f ln2)^n / n!, n = 1.. */
            f *= ln2 / (i + 1);
            tl_pow32_exp_poly[i] = f;
        }
    }
}
/* 8 lanes: x, y as double; k the exponent and ix the table index (64-bit lanes) */
__attribute__((target("avx512f,avx512dq"), always_inline))
static inline __m512d tl_pow32_half(__m512d z, __m512d k, __m512i ix, __m512d y)
{
    const __m512d one = _mm512_set1_pd(1.0), shift = _mm512_set1_pd(0x1.8p52 / 32);
    const double *A = tl_pow32_log_poly, *C = tl_pow32_exp_poly;
    __m512d invc = _mm512_permutex2var_pd(_mm512_load_pd(tl_pow32_invc), ix,
                                          _mm512_load_pd(tl_pow32_invc + 8));
    __m512d logc = _mm512_permutex2var_pd(_mm512_load_pd(tl_pow32_logc), ix,
                                          _mm512_load_pd(tl_pow32_logc + 8));
    __m512d r = _mm512_fmsub_pd(z, invc, one), r2 = _mm512_mul_pd(r, r);
    __m512d q1 = _mm512_fmadd_pd(_mm512_set1_pd(A[1]), r, _mm512_set1_pd(A[0]));
    __m512d q2 = _mm512_fmadd_pd(_mm512_set1_pd(A[3]), r, _mm512_set1_pd(A[2]));
    __m512d q3 = _mm512_fmadd_pd(_mm512_set1_pd(A[5]), r, _mm512_set1_pd(A[4]));
    __m512d p = _mm512_fmadd_pd(_mm512_fmadd_pd(q3, r2, q2), r2, q1);
    __m512d t = _mm512_mul_pd(y, _mm512_fmadd_pd(p, r, _mm512_add_pd(k, logc)));
    /* m = t * 32 rounded (to nearest even, whatever MXCSR says), in the low bits; f = t - m/32 */
    __m512i m = _mm512_castpd_si512(_mm512_add_round_pd(t, shift, _MM_FROUND_TO_NEAREST_INT
                                                                 | _MM_FROUND_NO_EXC));
    __m512d f = _mm512_reduce_round_pd(t, (5 << 4) | _MM_FROUND_TO_NEAREST_INT, _MM_FROUND_NO_EXC);
    __m512i lo = _mm512_permutex2var_epi64(_mm512_load_si512(tl_pow32_exp2), m,
                                           _mm512_load_si512(tl_pow32_exp2 + 8));
    __m512i hi = _mm512_permutex2var_epi64(_mm512_load_si512(tl_pow32_exp2 + 16), m,
                                           _mm512_load_si512(tl_pow32_exp2 + 24));
    __m512i sb = _mm512_add_epi64(_mm512_mask_blend_epi64(
        _mm512_test_epi64_mask(m, _mm512_set1_epi64(16)), lo, hi), _mm512_slli_epi64(m, 47));
    __m512d e1 = _mm512_fmadd_pd(_mm512_set1_pd(C[1]), f, _mm512_set1_pd(C[0]));
    __m512d e2 = _mm512_fmadd_pd(_mm512_set1_pd(C[3]), f, _mm512_set1_pd(C[2]));
    __m512d e = _mm512_fmadd_pd(_mm512_fmadd_pd(e2, _mm512_mul_pd(f, f), e1), f, one);
    return _mm512_mul_pd(e, _mm512_castsi512_pd(sb));
}
__attribute__((target("avx512f,avx512dq")))
static __m512 tl_pow32_avx512(__m512 x, __m512 y)
{
    __m512i bx = _mm512_castps_si512(x);
    __m512i tmp = _mm512_sub_epi32(bx, _mm512_set1_epi32(TL_POW32_OFF));
    __m512i top = _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xff800000u));
    __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(bx, top));
    __m512i k = _mm512_srai_epi32(top, 23);
    __m512i ix = _mm512_srli_epi32(tmp, 19);        /* the permutes read the low 4 bits */
    __m512d lo = tl_pow32_half(_mm512_cvtps_pd(_mm512_castps512_ps256(z)),
                               _mm512_cvtepi32_pd(_mm512_castsi512_si256(k)),
                               _mm512_cvtepu32_epi64(_mm512_castsi512_si256(ix)),
                               _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
    __m512d hi = tl_pow32_half(_mm512_cvtps_pd(_mm512_extractf32x8_ps(z, 1)),
                               _mm512_cvtepi32_pd(_mm512_extracti32x8_epi32(k, 1)),
                               _mm512_cvtepu32_epi64(_mm512_extracti32x8_epi32(ix, 1)),
                               _mm512_cvtps_pd(_mm512_extractf32x8_ps(y, 1)));
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}
#endif

/* NumPy's SVML: NumPy's extension module (_multiarray_umath) exports the AVX-512 SVML functions
 * its own float32/float64 loops call on AVX512_SKX CPUs (__svml_logf16, __svml_pow8_ha...: C
 * functions of one or two __m512/__m512d). They run the ops below faster than libmvec's (ns per
 * element in our loop at 10^5, Sapphire Rapids VM, SVML against libmvec): float32 arccosh 0.73
 * / 0.96, log 0.24 / 0.31, exp2 0.20 / 0.23, arctan2 0.72 / 0.76, power 1.14 / 1.57 (ours;
 * libmvec's powf gathers); float64 power 3.14 / 3.29. The other ops measured as fast or faster
 * through libmvec (float64 log2, tan, arctan2 by 25-35%; float32 cos 1.23 / 0.32), so they keep
 * it. The module's path is set before tl_vmath_set where NumPy runs its AVX512_SKX loops. */
#define TL_VM_SVML32 ((1u << TL_VM_log) | (1u << TL_VM_exp2) | (1u << TL_VM_arccosh))
#define TL_VM_SVML64 0u
static char *tl_vm_numpy_path = NULL;
static void tl_vmath_numpy(const char *path)
{
    free(tl_vm_numpy_path);
    tl_vm_numpy_path = path != NULL ? strdup(path) : NULL;
}
static int tl_vm_svml = 0;     /* SVML functions in use */

static const char *tl_vmath_isa(void)
{
    return tl_vm_isa == 2 ? (tl_vm_svml ? "svml" : "avx512") : tl_vm_isa == 1 ? "avx2" : "scalar";
}

#if defined(TL_VMATH)
/* op's vector function: SVML's (svml_fmt) where svml has it, else libmvec's (libm_fmt), or NULL */
static void *tl_vm_lookup(void *svml, const char *svml_fmt, void *lib, const char *libm_fmt,
                          const char *op)
{
    char name[40];
    void *f = NULL;
    if (svml != NULL) {
        snprintf(name, sizeof name, svml_fmt, op);
        f = dlsym(svml, name);
        tl_vm_svml |= f != NULL;
    }
    if (f == NULL && lib != NULL) {
        snprintf(name, sizeof name, libm_fmt, op);
        f = dlsym(lib, name);
    }
    return f;
}
#endif

/* on = 0: scalar loops (tests); 1: the best variant the CPU, libmvec and NumPy have (AVX-512:
 * NumPy's SVML, libmvec for the ops it lacks); 2: libmvec's AVX2 variants even on an AVX-512
 * CPU (tests); 3: libmvec's AVX-512 ones, without SVML (tests); -1: as 1 unless
 * TYPELATTICE_DISABLE_SIMD is set. Returns the variant in use: "svml", "avx512", "avx2" or
 * "scalar". */
static const char *tl_vmath_set(int on)
{
    int k;
    tl_vm_isa = tl_vm_svml = 0;
    for (k = 0; k < TL_VM_N; k++) tl_vm_fn32[k] = tl_vm_fn64[k] = NULL;
    for (k = 0; k < TL_NP_N; k++) tl_np_loop32[k] = tl_np_loop64[k] = NULL;
    tl_vm_atan2_32 = tl_vm_atan2_64 = tl_vm_pow_32 = tl_vm_pow_64 = NULL;
    tl_tables_on = on < 0 ? !tl_simd_disabled() : on != 0;
#if defined(TL_VMATH)
    if (on < 0) {
        on = !tl_simd_disabled();
    }
    if (on) {
        static void *lib = NULL;
        static int tried = 0;
        void *svml = NULL;
        int isa = 0;
        if (!tried) {
            tried = 1;
            lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
            tl_vm_domains();
            tl_pow32_init();
        }
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && on != 2)
            isa = 2;
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isa = 1;
        if (isa == 2 && on == 1 && tl_vm_numpy_path != NULL)     /* already loaded: no new copy */
            svml = dlopen(tl_vm_numpy_path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        if (lib == NULL && svml == NULL) isa = 0;
        for (k = 0; isa && k < TL_VM_N; k++) {
            tl_vm_fn32[k] = tl_vm_lookup((TL_VM_SVML32 >> k) & 1 ? svml : NULL, "__svml_%sf16",
                                         lib, isa == 2 ? "_ZGVeN16v_%sf" : "_ZGVdN8v_%sf",
                                         tl_vm_libm[k]);
            tl_vm_fn64[k] = tl_vm_lookup((TL_VM_SVML64 >> k) & 1 ? svml : NULL, "__svml_%s8_ha",
                                         lib, isa == 2 ? "_ZGVeN8v_%s" : "_ZGVdN4v_%s",
                                         tl_vm_libm[k]);
        }
        if (isa == 2) {
            tl_vm_atan2_32 = tl_vm_lookup(svml, "__svml_%sf16", lib, "_ZGVeN16vv_%sf", "atan2");
            tl_vm_atan2_64 = tl_vm_lookup(NULL, "", lib, "_ZGVeN8vv_%s", "atan2");
            tl_vm_pow_32 = tl_vm_lookup(svml, "__svml_%sf16", NULL, "", "pow");
            if (tl_vm_pow_32 == NULL) tl_vm_pow_32 = (void *)tl_pow32_avx512;
            tl_vm_pow_64 = tl_vm_lookup(svml, "__svml_%s8_ha", lib, "_ZGVeN8vv_%s", "pow");
        }
        if (svml != NULL) dlclose(svml);     /* drops the count NOLOAD added; NumPy stays */
        tl_vm_isa = isa;
    }
#else
    (void)on;
#endif
    return tl_vmath_isa();
}

/* o[i] = f(a[i]), i < n, through the vector variant in use (a == o allowed): whole vectors,
 * then the last n % N elements in one more vector padded with copies of the first of them (their
 * values and flags add nothing). So an element's result does not depend on where it lies in the
 * array, its length or its layout (libmvec's and the scalar function's last bits differ). */
#if defined(TL_VMATH)
#define TL_VM_RUN(S, F)                                                                          \
static void tl_vm_run_##S(void *vf, tl_vm_##S sf, const tl_vm_dom_##S##_t *d, const F *a, F *o,  \
                          npy_intp n, unsigned *fpe, const tl_vm_near *nr)                       \
{                                                                                                \
    F ta[64 / sizeof(F)], to[64 / sizeof(F)];                                                    \
    const npy_intp w = (tl_vm_isa == 2 ? 64 : 32) / (npy_intp)sizeof(F);                         \
    npy_intp i, k;                                                                               \
    i = tl_vm_isa == 2 ? tl_vm_##S##_avx512(vf, sf, d, a, o, n, fpe, nr)                         \
                       : tl_vm_##S##_avx2(vf, sf, d, a, o, n, fpe, nr);                          \
    if (i == n) return;                                                                          \
    for (k = 0; k < w; k++) ta[k] = a[i + k < n ? i + k : i];                                    \
    if (tl_vm_isa == 2) tl_vm_##S##_avx512(vf, sf, d, ta, to, w, fpe, nr);                       \
    else tl_vm_##S##_avx2(vf, sf, d, ta, to, w, fpe, nr);                                        \
    for (k = 0; i + k < n; k++) o[i + k] = to[k];                                                \
}
TL_VM_RUN(s32, float)
TL_VM_RUN(h32, float)
TL_VM_RUN(s64, double)
/* F -> F through libmvec (S: 32 or 64) on any 1-d layout, strided operands gathered into blocks,
 * where the variant exists; the scalar TL_LOOP1 otherwise */
#define TL_VM_CALL(S, OP, FN)                                                                    \
    if (tl_vm_isa != 0 && tl_vm_fn##S[TL_VM_##OP] != NULL) {                                     \
        void *vf = tl_vm_fn##S[TL_VM_##OP];                                                      \
        const tl_vm_dom_s##S##_t *dom = &tl_vm_dom_s##S[TL_VM_##OP];                             \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        if (st[0] == (npy_intp)sizeof(*pa) && st[1] == (npy_intp)sizeof(*pa)) {                  \
            tl_vm_run_s##S(vf, FN, dom, pa, po, n, &fpe, NULL);                                  \
        } else {                                                                                 \
            TL_BLOCKS1(__typeof__(*po), buf, tl_vm_run_s##S(vf, FN, dom, buf, buf, m, &fpe, NULL)) \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }
/* float16/bfloat16 K -> K on contiguous data: TL_BLOCK elements at a time widened (exact), the
 * float32 vector loop with REDO (tl_vm_near_##K: the results within 8 ulps of a rounding
 * boundary of K, and below float16's normal range, recomputed by the scalar FN), rounded by the
 * block conversion. libmvec's results are within 4 ulp of the exact value, glibc's scalar ones
 * within 1: away from a boundary both round to the same K value, so the bits and flags are the
 * element loop's. NumPy's float16 transcendentals ran 15-45x faster than an element loop. */
static const tl_vm_near tl_vm_near_f16 = {0x38800000u, 0x1000u - 8u, 0x1fffu, 16u};
static const tl_vm_near tl_vm_near_bf16 = {0u, 0x8000u - 8u, 0xffffu, 16u};
#define TL_VM16_CALL(K, OP, FN)                                                                  \
    if (st[0] == 2 && st[1] == 2 && tl_vm_isa != 0 && tl_vm_fn32[TL_VM_##OP] != NULL) {          \
        void *vf = tl_vm_fn32[TL_VM_##OP];                                                       \
        const tl_vm_dom32 *dom = &tl_vm_dom_s32[TL_VM_##OP];                                     \
        const uint16_t *pa = (const uint16_t *)data[0];                                          \
        uint16_t *po = (uint16_t *)data[1];                                                      \
        float in[TL_BLOCK], out[TL_BLOCK];                                                       \
        npy_intp n = dims[0], i, m;                                                              \
        unsigned fpe = 0;                                                                        \
        (void)ctx; (void)aux;                                                                    \
        for (i = 0; i < n; i += m) {                                                             \
            m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                             \
            tl_convert_##K##_to_f32(pa + i, in, m);                                              \
            tl_vm_run_h32(vf, FN, dom, in, out, m, &fpe, &tl_vm_near_##K);                       \
            tl_convert_f32_to_##K(out, po + i, m);                                               \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }
#else
#define TL_VM_CALL(S, OP, FN)
#define TL_VM16_CALL(K, OP, FN)
#endif
#if defined(TL_VMATH)
/* o[i] = LIBM(a[i], b[i]) (atan2, pow) for whole vectors through libmvec; lanes with other than
 * ordinary operands (TL_VM_OK_<LIBM>) are recomputed by the scalar element function FN, as in
 * TL_VM_LOOP (the vector calls' own flags are dropped), but those with a shortcut of their own
 * (TL_VM_ALT_<LIBM>, below), and the vector call gets 1 in them: SVML's
 * powf16 sends a lane that overflows or has a negative base through its scalar callout, 5x the
 * scalar function's time (float32 pow of integers 1..49, 38% overflowing: 50 -> 10 ns per
 * element; negative bases: 55 -> 9.5). Returns how many elements were done.
 * atan2: no zero, subnormal, inf or NaN operand, exponents at most LIM apart (a quotient that
 * could overflow or a result that underflows). pow: a positive normal base, a finite exponent,
 * |y| * (|exponent of x| + 1) <= LIM, so the result is normal (LIM: 100 / 1000 for float32 /
 * float64, against exponent ranges of 126 / 1022). */
/* (in mask registers: a mask per operand, the range compare under their OR's complement) */
#define TL_VM_OK_atan2(SUF, x, y, lim)                                                           \
    (unsigned)_mm512_mask_cmp_##SUF##_mask(                                                      \
        ~(_mm512_fpclass_##SUF##_mask(x, 0xbf) | _mm512_fpclass_##SUF##_mask(y, 0xbf)),          \
        _mm512_abs_##SUF(_mm512_sub_##SUF(_mm512_getexp_##SUF(x), _mm512_getexp_##SUF(y))),      \
        lim, _CMP_LE_OQ)
#define TL_VM_OK_pow(SUF, x, y, lim)                                                             \
    (unsigned)_mm512_mask_cmp_##SUF##_mask(                                                      \
        ~(_mm512_fpclass_##SUF##_mask(x, 0xff) | _mm512_fpclass_##SUF##_mask(y, 0x99)),          \
        _mm512_mul_##SUF(_mm512_abs_##SUF(y), _mm512_add_##SUF(                                  \
            _mm512_abs_##SUF(_mm512_getexp_##SUF(x)), _mm512_set1_##SUF(1))), lim, _CMP_LE_OQ)
/* the exponents tl_pow_* takes a shortcut for (the ordinary lanes: x positive, normal): their
 * lanes (TL_VM_FIXM_pow, taken before the call) get x * x, 1 / x, sqrt(x), x */
#define TL_VM_FIXM_atan2(SUF, y) 0u
#define TL_VM_FIXM_pow(SUF, y) tl_vm_fixm_pow_##SUF(y)
/* (a lane whose exponent has mantissa bits is none of them: one test for most vectors) */
#define TL_VM_FIXM_POW(SUF, V, EP, MANT)                                                         \
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline unsigned                \
tl_vm_fixm_pow_##SUF(V y)                                                                        \
{                                                                                                \
    const __typeof__(_mm512_cmp_##SUF##_mask(y, y, 0)) p2 =                                      \
        _mm512_testn_##EP##_mask(_mm512_cast##SUF##_si512(y), _mm512_set1_##EP(MANT));           \
    if (__builtin_expect(!p2, 1)) return 0;                                                      \
    return (unsigned)(p2 & (_mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(2), _CMP_EQ_OQ)         \
                            | _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(-1), _CMP_EQ_OQ)      \
                            | _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(0.5), _CMP_EQ_OQ)     \
                            | _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(1), _CMP_EQ_OQ)));    \
}
TL_VM_FIXM_POW(ps, __m512, epi32, 0x7fffff)
TL_VM_FIXM_POW(pd, __m512d, epi64, 0xfffffffffffffLL)
#define TL_VM_FIX_atan2(SUF, x, y, r) ((void)0)
/* Lanes TL_VM_OK_<LIBM> leaves out that have a vector shortcut of their own (TL_VM_ALT_<LIBM>):
 * TL_VM_ALT_ARGS_<LIBM> gives the call its operands there (1 where it has no use for them),
 * TL_VM_ALT_FIX_<LIBM> sets their results after it.
 * pow: a negative normal base and an integer exponent, |y| * (|exponent of x| + 1) <= LIM: the
 * call gets |x|, the result's sign is flipped for odd y, as glibc's pow does it; so power(-x, k)
 * is +-power(x, k) to the bit.
 * atan2: finite operands, one of them +-0 (10% zeros: 3.6 -> 2.1 ns an element in float64):
 * C's values, glibc's bits: atan2(+-0, x) is +-0 for x = +0 or x > 0, +-pi for x = -0 or
 * x < 0; atan2(y, +-0) with y != 0 is +-pi/2 (y's sign) */
#define TL_VM_ALT_pow(SUF, x, y, lim)                                                            \
    (unsigned)_mm512_mask_cmp_##SUF##_mask(                                                      \
        _mm512_mask_cmp_##SUF##_mask(                                                            \
            _mm512_fpclass_##SUF##_mask(x, 0x40) & ~_mm512_fpclass_##SUF##_mask(x, 0x20),        \
            _mm512_roundscale_##SUF(y, 0x0b), y, _CMP_EQ_OQ)                                     \
        & ~_mm512_fpclass_##SUF##_mask(y, 0x18),                                                 \
        _mm512_mul_##SUF(_mm512_abs_##SUF(y), _mm512_add_##SUF(                                  \
            _mm512_abs_##SUF(_mm512_getexp_##SUF(x)), _mm512_set1_##SUF(1))), lim, _CMP_LE_OQ)
#define TL_VM_ALT_ARGS_pow(SUF, x, y, ok, alt, one)                                              \
    (x = _mm512_mask_blend_##SUF(ok | alt, one, _mm512_mask_abs_##SUF(x, alt, x)),              \
     y = _mm512_mask_blend_##SUF(ok | alt, one, y))
#define TL_VM_ALT_FIX_pow(SUF, x, y, alt, r)                                                     \
    do {                                                                                         \
        const __typeof__(y) h_ = _mm512_mul_##SUF(y, _mm512_set1_##SUF(0.5));                    \
        r = _mm512_mask_xor_##SUF(r, _mm512_mask_cmp_##SUF##_mask(                               \
                alt, _mm512_roundscale_##SUF(h_, 0x0b), h_, _CMP_NEQ_UQ),                        \
            r, _mm512_set1_##SUF(-0.0));                                                         \
    } while (0)
/* (vfpclass: QNaN, +-inf, SNaN 0x99; +-0 0x06; negative finite or -0 0x44) */
#define TL_VM_ALT_atan2(SUF, x, y, lim)                                                          \
    (unsigned)(~(_mm512_fpclass_##SUF##_mask(x, 0x99) | _mm512_fpclass_##SUF##_mask(y, 0x99))    \
               & (_mm512_fpclass_##SUF##_mask(x, 0x06) | _mm512_fpclass_##SUF##_mask(y, 0x06)))
#define TL_VM_ALT_ARGS_atan2(SUF, x, y, ok, alt, one)                                            \
    (x = _mm512_mask_blend_##SUF(ok, one, x), y = _mm512_mask_blend_##SUF(ok, one, y))
/* (arctan2(a, b): the loop's x is C's y, its y C's x) */
#define TL_VM_ALT_FIX_atan2(SUF, x, y, alt, r)                                                   \
    do {                                                                                         \
        const __typeof__(y) v_ = _mm512_mask_blend_##SUF(                                        \
            _mm512_fpclass_##SUF##_mask(x, 0x06), _mm512_set1_##SUF(M_PI_2),                     \
            _mm512_maskz_mov_##SUF(_mm512_fpclass_##SUF##_mask(y, 0x44), _mm512_set1_##SUF(M_PI))); \
        r = _mm512_mask_or_##SUF(r, alt, v_, _mm512_and_##SUF(x, _mm512_set1_##SUF(-0.0)));       \
    } while (0)
/* (the division and the square root only for vectors with such a lane: masked, they still took
 * the divider's time, 1.37x / 1.7x NumPy's float64 / float32 pow where an array of small
 * integer exponents had 2s and 1s in most vectors) */
#define TL_VM_FIX_pow(SUF, x, y, r)                                                              \
    do {                                                                                         \
        const __typeof__(_mm512_cmp_##SUF##_mask(y, y, 0))                                       \
            sq_ = _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(2), _CMP_EQ_OQ),                  \
            inv_ = _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(-1), _CMP_EQ_OQ),                \
            rt_ = _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(0.5), _CMP_EQ_OQ);                \
        r = _mm512_mask_mul_##SUF(r, sq_, x, x);                                                 \
        if (inv_) r = _mm512_mask_div_##SUF(r, inv_, _mm512_set1_##SUF(1), x);                   \
        if (rt_) r = _mm512_mask_sqrt_##SUF(r, rt_, x);                                          \
        r = _mm512_mask_mov_##SUF(r, _mm512_cmp_##SUF##_mask(y, _mm512_set1_##SUF(1), _CMP_EQ_OQ), \
                                  x);                                                            \
    } while (0)
/* The loop's checks and masks are taken before the call and kept in general registers; after
 * it, the operands are reloaded only for the rare vectors that need them (kept across the call,
 * they were spilled and reloaded every time), and a/b contiguous or scalar are separate loops
 * (tl_vm_<LIBM>_<S>_avx512 dispatches to them): perf's share of the loop against SVML's powf16
 * went from 0.19 to 0.16, and to 0.14 with TL_VM_FIXM_pow's first test. */
/* the vector of operand p at i (c: contiguous) or its broadcast scalar */
#define TL_VM_BIN_LD(SUF, p, c, i) ((c) ? _mm512_loadu_##SUF((p) + (i)) : _mm512_set1_##SUF((p)[0]))
#define TL_VM_BIN(LIBM, S, F, N, V, SUF, LIM, FN)                                                \
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline npy_intp                \
tl_vm_##LIBM##_##S##_loop(void *vf, const F *a, const int ca, const F *b, const int cb, F *o,    \
                          npy_intp n, unsigned *fpe)                                             \
{                                                                                                \
    typedef V (*vfn)(V, V);                                                                      \
    const unsigned all = (1u << N) - 1;                                                          \
    const V one = _mm512_set1_##SUF(1);                                                          \
    unsigned csr = _mm_getcsr();                                                                 \
    npy_intp i = 0;                                                                              \
    for (; i + N <= n; i += N) {                                                                 \
        V x = TL_VM_BIN_LD(SUF, a, ca, i), y = TL_VM_BIN_LD(SUF, b, cb, i);                      \
        unsigned ok = TL_VM_OK_##LIBM(SUF, x, y, _mm512_set1_##SUF(LIM));                        \
        unsigned fix = TL_VM_FIXM_##LIBM(SUF, y), alt = 0;                                       \
        V r;                                                                                     \
        if (TL_UNLIKELY(ok != all)) {                                                            \
            alt = TL_VM_ALT_##LIBM(SUF, x, y, _mm512_set1_##SUF(LIM)) & ~ok;                     \
            TL_VM_ALT_ARGS_##LIBM(SUF, x, y, ok, alt, one);                                      \
            ok |= alt;                                                                           \
        }                                                                                        \
        r = ((vfn)vf)(x, y);                                                                     \
        if (TL_UNLIKELY(fix | alt | (ok ^ all))) {                                               \
            x = TL_VM_BIN_LD(SUF, a, ca, i), y = TL_VM_BIN_LD(SUF, b, cb, i);                    \
            if (alt) TL_VM_ALT_FIX_##LIBM(SUF, x, y, alt, r);                                    \
            TL_VM_FIX_##LIBM(SUF, x, y, r);                                                      \
            if (ok != all) {                                                                     \
                F t[N];                                                                          \
                int k;                                                                           \
                _mm512_storeu_##SUF(t, r);                                                       \
                _mm_setcsr(csr);                                                                 \
                for (k = 0; k < N; k++)                                                          \
                    if (!((ok >> k) & 1)) t[k] = FN(a[ca ? i + k : 0], b[cb ? i + k : 0], fpe);  \
                csr = _mm_getcsr();                                                              \
                r = _mm512_loadu_##SUF(t);                                                       \
            }                                                                                    \
        }                                                                                        \
        _mm512_storeu_##SUF(o + i, r);                                                           \
    }                                                                                            \
    _mm_setcsr(csr);                                                                             \
    return i;                                                                                    \
}                                                                                                \
__attribute__((target("avx512f,avx512dq"))) static npy_intp tl_vm_##LIBM##_##S##_avx512(         \
    void *vf, const F *a, int ca, const F *b, int cb, F *o, npy_intp n, unsigned *fpe)           \
{                                                                                                \
    if (ca && cb) return tl_vm_##LIBM##_##S##_loop(vf, a, 1, b, 1, o, n, fpe);                   \
    if (ca) return tl_vm_##LIBM##_##S##_loop(vf, a, 1, b, 0, o, n, fpe);                         \
    if (cb) return tl_vm_##LIBM##_##S##_loop(vf, a, 0, b, 1, o, n, fpe);                         \
    return tl_vm_##LIBM##_##S##_loop(vf, a, 0, b, 0, o, n, fpe);                                 \
}
TL_VM_BIN(atan2, f32, float, 16, __m512, ps, 100.0f, tl_arctan2_f32)
TL_VM_BIN(atan2, f64, double, 8, __m512d, pd, 1000.0, tl_arctan2_f64)
TL_VM_BIN(pow, f32, float, 16, __m512, ps, 100.0f, tl_power_f32)
TL_VM_BIN(pow, f64, double, 8, __m512d, pd, 1000.0, tl_power_f64)
/* o[i] = LIBM(a[i], b[i]) for i < n (a scalar operand: ca/cb 0) as tl_vm_run_*: whole vectors,
 * then the rest in one vector padded with copies of its first operands */
#define TL_VM_BIN_RUN(LIBM, S, F, N, FN)                                                         \
static void tl_vm_##LIBM##_##S##_run(void *vf, const F *a, int ca, const F *b, int cb, F *o,     \
                                     npy_intp n, unsigned *fpe)                                  \
{                                                                                                \
    F ta[N], tb[N], to[N];                                                                       \
    npy_intp i = tl_vm_##LIBM##_##S##_avx512(vf, a, ca, b, cb, o, n, fpe), k;                    \
    if (i == n) return;                                                                          \
    for (k = 0; k < N; k++) {                                                                    \
        npy_intp j = i + k < n ? i + k : i;                                                      \
        ta[k] = a[ca ? j : 0];                                                                   \
        tb[k] = b[cb ? j : 0];                                                                   \
    }                                                                                            \
    tl_vm_##LIBM##_##S##_avx512(vf, ta, 1, tb, 1, to, N, fpe);                                   \
    for (k = 0; i + k < n; k++) o[i + k] = to[k];                                                \
}
TL_VM_BIN_RUN(atan2, f32, float, 16, tl_arctan2_f32)
TL_VM_BIN_RUN(atan2, f64, double, 8, tl_arctan2_f64)
TL_VM_BIN_RUN(pow, f32, float, 16, tl_power_f32)
TL_VM_BIN_RUN(pow, f64, double, 8, tl_power_f64)
/* contiguous or scalar operands directly, strided ones and an output trailing an input
 * (tl_trails) gathered into blocks (not reductions: an output that feeds an input keeps the
 * element loop) */
#define TL_VMBIN_FAST(LIBM, S, F, BITS, FN)                                                      \
    if (tl_vm_##LIBM##_##BITS != NULL && st[2] != 0 && TL_VM_OVERLAP_OK(0) && TL_VM_OVERLAP_OK(1)) { \
        npy_intp n = dims[0];                                                                    \
        unsigned fpe = 0;                                                                        \
        (void)aux;                                                                               \
        if ((st[0] == 0 || st[0] == (npy_intp)sizeof(F)) && (st[1] == 0 || st[1] == (npy_intp)sizeof(F)) \
                && st[2] == (npy_intp)sizeof(F) && !TL_VM_OVERLAPS(0) && !TL_VM_OVERLAPS(1)) {   \
            tl_vm_##LIBM##_##S##_run(tl_vm_##LIBM##_##BITS, (const F *)data[0], st[0] != 0,      \
                                     (const F *)data[1], st[1] != 0, (F *)data[2], n, &fpe);     \
        } else {                                                                                 \
            TL_BLOCKS2(F, ba, bb,                                                                \
                       tl_vm_##LIBM##_##S##_run(tl_vm_##LIBM##_##BITS, ba, 1, bb, 1, ba, m, &fpe)) \
        }                                                                                        \
        return tl_finish(fpe);                                                                   \
    }
#else
#define TL_VMBIN_FAST(LIBM, S, F, BITS, FN)
#endif
/* (an input whose overlap with the output is one a blocked loop handles as a copy: none, or the
 * output trailing it; and whether there is any) */
#define TL_VM_OVERLAP_OK(i) (!tl_feedback(data[i], st[i], data[2], st[2], dims[0])               \
                             || tl_trails(data[i], st[i], data[2], st[2]))
#define TL_VM_OVERLAPS(i) tl_feedback(data[i], st[i], data[2], st[2], dims[0])
/* NumPy's own loop (TL_NP_CALL) of arctan2 / power, on the calls TL_VMBIN_FAST takes (not
 * reductions): three contiguous operands directly, others (a scalar operand too) in contiguous
 * blocks */
#define TL_NP_CALL2(OPNAME, F, BITS)                                                             \
    if (tl_np_loop##BITS[TL_NP_##OPNAME] != NULL && st[2] != 0                                   \
            && TL_VM_OVERLAP_OK(0) && TL_VM_OVERLAP_OK(1)) {                                     \
        tl_np_loop_t f = tl_np_loop##BITS[TL_NP_##OPNAME];                                       \
        void *fd = tl_np_data##BITS[TL_NP_##OPNAME];                                             \
        npy_intp n = dims[0];                                                                    \
        (void)ctx; (void)aux;                                                                    \
        if (st[0] == (npy_intp)sizeof(F) && st[1] == (npy_intp)sizeof(F)                         \
                && st[2] == (npy_intp)sizeof(F) && !TL_VM_OVERLAPS(0) && !TL_VM_OVERLAPS(1)) {   \
            f((char **)data, dims, st, fd);                                                      \
        } else {                                                                                 \
            TL_BLOCKS2(F, ba, bb, tl_np_run(f, fd, 2, (char *)ba, (char *)bb, m, sizeof(F)))     \
        }                                                                                        \
        return 0;                                                                                \
    }
#define TL_NP_OP_atan2 arctan2
#define TL_NP_OP_pow power
#define TL_NP_CALL2_(OPNAME, F, BITS) TL_NP_CALL2(OPNAME, F, BITS)
/* arctan2 / power of float32/float64 (LIBM atan2 / pow): NumPy's loop where taken, libmvec where
 * it runs, the element loop FN otherwise */
#define TL_LOOP2_VMBIN(NAME, LIBM, S, F, BITS, FN)                                               \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    TL_SCALAR_EXP_##LIBM(S, F)                                                                   \
    TL_NP_CALL2_(TL_NP_OP_##LIBM, F, BITS)                                                       \
    TL_VMBIN_FAST(LIBM, S, F, BITS, FN)                                                          \
    { TL_LOOP2_RED_BODY(F, TL_LD_id, TL_ST_id, FN) }                                             \
}
/* pow of a scalar exponent tl_pow_* takes a shortcut for (NumPy's loops do the same): the common
 * two-operand loop (its scalar-operand path) over the element function with that exponent as a
 * constant, so only the shortcut is left and gcc vectorizes it; x*x ran at 1/7 of libmvec's pow
 * float64 */
#define TL_SCALAR_EXP_atan2(S, F)
#define TL_POW_BY(a, c) _Generic((a), float: tl_pow_f32, double: tl_pow_f64)((a), (__typeof__(a))(c))
#define TL_POW_BY_2(a, b, e) TL_POW_BY(a, 2)
#define TL_POW_BY_M1(a, b, e) TL_POW_BY(a, -1)
#define TL_POW_BY_1(a, b, e) TL_POW_BY(a, 1)
#define TL_POW_BY_HALF(a, b, e) TL_POW_BY(a, 0.5)
#define TL_SCALAR_EXP_pow(S, F)                                                                  \
    if (st[1] == 0 && dims[0] > 0 && !tl_feedback(data[0], st[0], data[2], st[2], dims[0])) {   \
        const F y_ = *(const F *)data[1];                                                        \
        if (y_ == (F)2) { TL_LOOP2_BODY(F, F, F, TL_LD_id, TL_LD_id, TL_ST_id, TL_POW_BY_2) }    \
        if (y_ == (F)-1) { TL_LOOP2_BODY(F, F, F, TL_LD_id, TL_LD_id, TL_ST_id, TL_POW_BY_M1) }  \
        if (y_ == (F)1) { TL_LOOP2_BODY(F, F, F, TL_LD_id, TL_LD_id, TL_ST_id, TL_POW_BY_1) }    \
        if (y_ == (F)0.5) { TL_LOOP2_BODY(F, F, F, TL_LD_id, TL_LD_id, TL_ST_id, TL_POW_BY_HALF) } \
    }

/* ==== float16/bfloat16 unary transcendentals by table ==========================================
 * A 16-bit type has 65536 values: once an op has taken tl_tables_after elements (so the build,
 * ~2-3 ms, costs about what the op has already run), its element loop's step is run on every
 * value, one at a time, and each result is stored with the FP flags it raised (TL_FPE_* << 16).
 * The loop is then one table lookup per element (AVX-512: 16 per gather), the element loop's
 * bits and flags by construction. NumPy's float16 loops use AVX512-FP16 on CPUs that have it,
 * which ran 1.4-3.2x faster than the float32 libmvec route. tl_tables_on follows set_vmath (off:
 * the element loops, which the tests compare against). */
/* arg: the element loop's step for one value (a tl_tab16_one; not inlined, so the flags read
 * after it see all of it) */
typedef uint16_t (*tl_tab16_one)(uint16_t, unsigned *);
static void *tl_tab16_build(const void *arg)
{
    const tl_tab16_one one = *(const tl_tab16_one *)arg;
    uint32_t *t = (uint32_t *)malloc(65536 * sizeof(uint32_t));
    uint32_t u;
    if (t == NULL) return NULL;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    {   /* the SSE flags (MXCSR), where libm's float math runs: 5x faster than fenv's calls */
        const unsigned csr = _mm_getcsr();
        for (u = 0; u < 65536; u++) {
            unsigned e = 0, f;
            uint16_t r;
            _mm_setcsr(csr & ~0x3fu);
            r = one((uint16_t)u, &e);
            f = _mm_getcsr();
            e |= (f & 0x04 ? TL_FPE_DIVBYZERO : 0u) | (f & 0x08 ? TL_FPE_OVERFLOW : 0u)
                 | (f & 0x10 ? TL_FPE_UNDERFLOW : 0u) | (f & 0x01 ? TL_FPE_INVALID : 0u);
            t[u] = r | e << 16;
        }
        _mm_setcsr(csr);
    }
#else
    {
        fexcept_t saved;
        fegetexceptflag(&saved, FE_ALL_EXCEPT);
        for (u = 0; u < 65536; u++) {
            unsigned e = 0;
            int f;
            uint16_t r;
            feclearexcept(FE_ALL_EXCEPT);
            r = one((uint16_t)u, &e);
            f = fetestexcept(FE_ALL_EXCEPT);
            e |= (f & FE_DIVBYZERO ? TL_FPE_DIVBYZERO : 0u) | (f & FE_OVERFLOW ? TL_FPE_OVERFLOW : 0u)
                 | (f & FE_UNDERFLOW ? TL_FPE_UNDERFLOW : 0u) | (f & FE_INVALID ? TL_FPE_INVALID : 0u);
            t[u] = r | e << 16;
        }
        fesetexceptflag(&saved, FE_ALL_EXCEPT);
    }
#endif
    return t;
}
/* An op's table, or NULL (its element loops): tb->seen counts the elements the op has taken;
 * once they reach `after` (with tl_tables_on), build(arg) makes the table and the first thread to
 * finish publishes it (another thread's copy, the same values, is freed). */
typedef struct { void *tab; npy_intp seen; } tl_lazy_table;
static const void *tl_lazy_table_get(tl_lazy_table *tb, npy_intp n, npy_intp after,
                                     void *(*build)(const void *), const void *arg)
{
    void *t, *none = NULL;
    if (!tl_tables_on) return NULL;
    if ((t = __atomic_load_n(&tb->tab, __ATOMIC_ACQUIRE)) != NULL) return t;
    if (__atomic_add_fetch(&tb->seen, n, __ATOMIC_RELAXED) < after) return NULL;
    if ((t = build(arg)) == NULL) return NULL;
    if (!__atomic_compare_exchange_n(&tb->tab, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        t = none;
    }
    return t;
}
/* o[i] = table[a[i]], a strided (sa, so: bytes); returns the OR of the flags */
static unsigned tl_tab16_strided(const uint32_t *t, const char *a, npy_intp sa, char *o,
                                 npy_intp so, npy_intp n)
{
    uint32_t f = 0;
    npy_intp i;
    for (i = 0; i < n; i++, a += sa, o += so) {
        uint32_t v = t[*(const uint16_t *)a];
        f |= v;
        *(uint16_t *)o = (uint16_t)v;
    }
    return f >> 16;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) static unsigned tl_tab16_avx512(
    const uint32_t *t, const uint16_t *a, uint16_t *o, npy_intp n)
{
    __m512i acc = _mm512_setzero_si512();
    npy_intp i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i g = _mm512_i32gather_epi32(
            _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(a + i))), (const void *)t, 4);
        acc = _mm512_or_si512(acc, g);
        _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtepi32_epi16(g));
    }
    return ((unsigned)_mm512_reduce_or_epi32(acc) >> 16) | tl_tab16_strided(
        t, (const char *)(a + i), 2, (char *)(o + i), 2, n - i);
}
__attribute__((target("avx2"))) static unsigned tl_tab16_avx2(
    const uint32_t *t, const uint16_t *a, uint16_t *o, npy_intp n)
{
    __m256i acc = _mm256_setzero_si256();
    const __m256i low = _mm256_set1_epi32(0xffff);
    npy_intp i = 0;
    uint32_t f[8], all = 0;
    int k;
    for (; i + 8 <= n; i += 8) {
        __m256i g = _mm256_i32gather_epi32((const int *)t,
            _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(a + i))), 4);
        __m256i r = _mm256_and_si256(g, low);
        acc = _mm256_or_si256(acc, g);
        r = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
        _mm_storeu_si128((__m128i *)(o + i), _mm256_castsi256_si128(r));
    }
    _mm256_storeu_si256((__m256i *)f, acc);
    for (k = 0; k < 8; k++) all |= f[k];
    return (all >> 16) | tl_tab16_strided(t, (const char *)(a + i), 2, (char *)(o + i), 2, n - i);
}
#endif
static unsigned tl_tab16_run(const uint32_t *t, char *const data[], npy_intp n, const npy_intp st[])
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (st[0] == 2 && st[1] == 2 && tl_host_avx512)
        return tl_tab16_avx512(t, (const uint16_t *)data[0], (uint16_t *)data[1], n);
    if (st[0] == 2 && st[1] == 2 && tl_host_avx2)
        return tl_tab16_avx2(t, (const uint16_t *)data[0], (uint16_t *)data[1], n);
#endif
    return tl_tab16_strided(t, data[0], st[0], data[1], st[1], n);
}

/* ==== 8-bit gcd/lcm by table ==================================================================
 * 256 x 256 operand pairs: the element function (Euclid's loop, ~30 ns, as NumPy's) on every pair
 * once the op has taken tl_tables_after / 32 elements (2^16 by default: the build is 65536
 * element calls, so it costs about what already ran); then one lookup per element, any strides
 * (a reduction reads the operand its last step wrote). Integer ops: no flags, no errors. */
/* arg: a tl_tab8_pair, the element function on one pair */
typedef uint8_t (*tl_tab8_pair)(uint8_t, uint8_t);
static void *tl_tab8_build(const void *arg)
{
    const tl_tab8_pair pair = *(const tl_tab8_pair *)arg;
    uint8_t *t = (uint8_t *)malloc(65536);
    unsigned u;
    if (t != NULL)
        for (u = 0; u < 65536; u++) t[u] = pair((uint8_t)(u >> 8), (uint8_t)u);
    return t;
}
#define TL_LOOP2_TAB8(NAME, S, LD, ST, FN)                                                       \
TL_LOOP2_RED(NAME##_elems, S, LD, ST, FN)                                                        \
static tl_lazy_table NAME##_tab;                                                                 \
static uint8_t NAME##_pair(uint8_t a, uint8_t b)                                                 \
{ unsigned e = 0; return (uint8_t)FN((S)a, (S)b, &e); }                                          \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    const tl_tab8_pair pair = NAME##_pair;                                                       \
    const uint8_t *t = (const uint8_t *)tl_lazy_table_get(&NAME##_tab, dims[0],                  \
                                                          tl_tables_after / 32, tl_tab8_build, &pair); \
    if (t != NULL) {                                                                             \
        const char *a = data[0], *b = data[1];                                                   \
        char *o = data[2];                                                                       \
        npy_intp i;                                                                              \
        (void)ctx; (void)aux;                                                                    \
        for (i = 0; i < dims[0]; i++, a += st[0], b += st[1], o += st[2])                        \
            *(uint8_t *)o = t[(unsigned)*(const uint8_t *)a << 8 | *(const uint8_t *)b];         \
        return 0;                                                                                \
    }                                                                                            \
    return NAME##_elems(ctx, data, dims, st, aux);                                               \
}

/* gcd/lcm of 16-, 32- and 64-bit integers: Stein's binary GCD on 16 uint32 (8 uint64) lanes per
 * vector, four vectors at a time (shifts by the trailing zero count, min/max and subtractions: no
 * division; NumPy's and the element loop run Euclid's, a division per step, ~15 ns per element),
 * where AVX-512 with CD (vplzcnt) runs. lcm divides by the gcd exactly (in double for 32-bit
 * lanes), then multiplies with wraparound as the element function. Operands gathered into
 * blocks of |a|, |b| (the element function's unsigned magnitudes); a reduction (an output that
 * feeds an input) keeps the element loop. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_VGCD_TARGET __attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq")))
/* tl_vgcd_u32 / tl_vgcd_u64: g[i] = gcd(a[i], b[i]) for i < n, n a multiple of 64 / 32 (16 / 8
 * lanes per vector, E: epi32 / epi64, M: the mask type) */
#define TL_VGCD_KERNEL(W, E, M, LANES)                                                           \
TL_VGCD_TARGET static inline __m512i tl_vctz##W(__m512i x)                                       \
{   /* the trailing zero count of each nonzero lane: W - 1 - lzcnt of its lowest set bit */     \
    __m512i low = _mm512_and_si512(x, _mm512_sub_##E(_mm512_setzero_si512(), x));                \
    return _mm512_sub_##E(_mm512_set1_##E(W - 1), _mm512_lzcnt_##E(low));                        \
}                                                                                                \
TL_VGCD_TARGET static void tl_vgcd_u##W(const uint##W##_t *pa, const uint##W##_t *pb,            \
                                        uint##W##_t *pg, npy_intp n)                             \
{                                                                                                \
    npy_intp i;                                                                                  \
    int j;                                                                                       \
    for (i = 0; i < n; i += 4 * LANES) {                                                         \
        __m512i a[4], b[4], k[4], z[4];                                                          \
        M zero[4], live[4];                                                                      \
        for (j = 0; j < 4; j++) {                                                                \
            __m512i x = _mm512_loadu_si512(pa + i + LANES * j);                                  \
            __m512i y = _mm512_loadu_si512(pb + i + LANES * j);                                  \
            /* gcd(0, y) = y, gcd(x, 0) = x: such lanes take x | y and sit out the loop */      \
            zero[j] = _mm512_cmpeq_##E##_mask(x, _mm512_setzero_si512())                         \
                      | _mm512_cmpeq_##E##_mask(y, _mm512_setzero_si512());                      \
            z[j] = _mm512_or_si512(x, y);                                                        \
            k[j] = tl_vctz##W(z[j]);                    /* the common factor 2^k */              \
            x = _mm512_mask_mov_##E(x, zero[j], _mm512_set1_##E(1));                             \
            b[j] = _mm512_mask_mov_##E(y, zero[j], _mm512_setzero_si512());                      \
            a[j] = _mm512_srlv_##E(x, tl_vctz##W(x));   /* odd from here on */                   \
            live[j] = _mm512_cmpneq_##E##_mask(b[j], _mm512_setzero_si512());                    \
        }                                                                                        \
        while (live[0] | live[1] | live[2] | live[3]) {                                          \
            for (j = 0; j < 4; j++) {                                                            \
                __m512i y = _mm512_srlv_##E(b[j], tl_vctz##W(b[j]));                             \
                __m512i lo = _mm512_min_epu##W(a[j], y);                                         \
                b[j] = _mm512_mask_sub_##E(b[j], live[j], _mm512_max_epu##W(a[j], y), lo);       \
                a[j] = _mm512_mask_mov_##E(a[j], live[j], lo);                                   \
                live[j] = _mm512_cmpneq_##E##_mask(b[j], _mm512_setzero_si512());                \
            }                                                                                    \
        }                                                                                        \
        for (j = 0; j < 4; j++)                                                                  \
            _mm512_storeu_si512(pg + i + LANES * j, _mm512_mask_mov_##E(                         \
                _mm512_sllv_##E(a[j], k[j]), zero[j], z[j]));                                    \
    }                                                                                            \
}
TL_VGCD_KERNEL(32, epi32, __mmask16, 16)
TL_VGCD_KERNEL(64, epi64, __mmask8, 8)
#define TL_VGCD_RUN(W, ua, ub, g, m) tl_vgcd_u##W(ua, ub, g, m)
#else
#define TL_VGCD_RUN(W, ua, ub, g, m) ((void)0)
#endif
/* ABS(x): the element function's unsigned magnitude, as uint W */
#define TL_VGCD_ABS_S(UT, x) ((UT)((x) < 0 ? (UT)(0 - (UT)(x)) : (UT)(x)))
#define TL_VGCD_ABS_U(UT, x) ((UT)(x))
#define TL_VGCD_OUT_gcd(W, S, UT, a, b, g) ((S)(UT)(g))
/* the exact quotient a / g: in double below 2^53 (32-bit lanes), an integer division otherwise */
#define TL_VGCD_DIV_32(a, g) ((uint32_t)((double)(a) / (double)(g)))
#define TL_VGCD_DIV_64(a, g) ((a) / (g))
#define TL_VGCD_OUT_lcm(W, S, UT, a, b, g)                                                       \
    ((g) == 0 ? (S)0 : (S)(UT)(TL_VGCD_DIV_##W(a, g) * (b)))
/* W: the lane width (32 for 16- and 32-bit operands, 64) */
#define TL_LOOP2_VGCD(NAME, OP, W, S, UT, SIGN, LD, ST, FN)                                      \
TL_LOOP2_RED(NAME##_elems, S, LD, ST, FN)                                                        \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    uint##W##_t ua[TL_BLOCK], ub[TL_BLOCK], g[TL_BLOCK];                                         \
    npy_intp n = dims[0], i, k, m, mp;                                                           \
    if (!tl_host_lzcnt || tl_feedback(data[0], st[0], data[2], st[2], n)                         \
            || tl_feedback(data[1], st[1], data[2], st[2], n))                                   \
        return NAME##_elems(ctx, data, dims, st, aux);                                           \
    (void)ctx; (void)aux;                                                                        \
    for (i = 0; i < n; i += m) {                                                                 \
        m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                                 \
        mp = (m + 63) & ~(npy_intp)63;                                                           \
        for (k = 0; k < m; k++) {                                                                \
            S x = *(const S *)(data[0] + (i + k) * st[0]), y = *(const S *)(data[1] + (i + k) * st[1]); \
            ua[k] = TL_VGCD_ABS_##SIGN(UT, x);                                                   \
            ub[k] = TL_VGCD_ABS_##SIGN(UT, y);                                                   \
        }                                                                                        \
        for (; k < mp; k++) ua[k] = ub[k] = 0;                                                   \
        TL_VGCD_RUN(W, ua, ub, g, mp);                                                           \
        for (k = 0; k < m; k++)                                                                  \
            *(S *)(data[2] + (i + k) * st[2]) = TL_VGCD_OUT_##OP(W, S, UT, ua[k], ub[k], g[k]);  \
    }                                                                                            \
    return 0;                                                                                    \
}

/* float16/bfloat16 (K: f16, bf16) transcendentals: the table (above) once the op has run long
 * enough, TL_VM16_CALL before, the element loop otherwise (cloned for float16: F16C converts) */
#define TL_LOOP1_LIBM_f16 TL_LOOP1
#define TL_LOOP1_LIBM_bf16 TL_LOOP1_SCALAR
#define TL_LOOP1_VEC16(NAME, K, OP, FN)                                                          \
TL_LOOP1_LIBM_##K(NAME##_scalar, uint16_t, uint16_t, TL_LD_##K, TL_ST_##K, FN)                   \
static tl_lazy_table NAME##_tab;                                                                 \
__attribute__((noinline)) static uint16_t NAME##_one(uint16_t x, unsigned *e)                    \
{ return TL_ST_##K(FN(TL_LD_##K(x), e), e); }                                                    \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    const tl_tab16_one one = NAME##_one;                                                          \
    const uint32_t *tab = (const uint32_t *)tl_lazy_table_get(&NAME##_tab, dims[0],              \
                                                              tl_tables_after, tl_tab16_build, &one); \
    if (tab != NULL) {                                                                           \
        (void)ctx; (void)aux;                                                                    \
        return tl_finish(tl_tab16_run(tab, data, dims[0], st));                                  \
    }                                                                                            \
    TL_VM16_CALL(K, OP, FN)                                                                      \
    return NAME##_scalar(ctx, data, dims, st, aux);                                              \
}

/* float16 (bfloat16: where FN does not vectorize) unary ops computed in float32, on contiguous
 * data: blocks widened (exact), STEP over the float32 block, then rounded: float16 by the block
 * conversion (tl_f32_to_f16's bits and flags, vectorized), bfloat16 by tl_f32_to_bf16 (its NaN
 * payloads). So the element loop's bits and flags, where its branchy float16 store keeps gcc from
 * vectorizing anything (8-18x slower). STEP(in, out, m, fpe): a block function. */
#define TL_NARROW16_f16(src, dst, m, fpe) tl_convert_f32_to_f16(src, dst, m);
#define TL_NARROW16_bf16(src, dst, m, fpe)                                                       \
    { npy_intp k_; for (k_ = 0; k_ < m; k_++) dst[k_] = tl_f32_to_bf16(src[k_], fpe); }
#define TL_LOOP1_BLOCK16_STEP(NAME, K, STEP, FN)                                                  \
TL_LOOP1(NAME##_elems, uint16_t, uint16_t, TL_LD_##K, TL_ST_##K, FN)                             \
TL_LOOP_CLONES static unsigned NAME##_blocks(const uint16_t *pa, uint16_t *po, npy_intp n)       \
{                                                                                                \
    float buf[TL_BLOCK];                                                                         \
    npy_intp i, m;                                                                               \
    unsigned fpe = 0;                                                                            \
    for (i = 0; i < n; i += m) {                                                                 \
        m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                                 \
        tl_convert_##K##_to_f32(pa + i, buf, m);                                                 \
        STEP(buf, buf, m, &fpe);                                                                 \
        TL_NARROW16_##K(buf, (po + i), m, &fpe)                                                  \
    }                                                                                            \
    return fpe;                                                                                  \
}                                                                                                \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    if (st[0] == 2 && st[1] == 2) {                                                              \
        (void)ctx; (void)aux;                                                                    \
        return tl_finish(NAME##_blocks((const uint16_t *)data[0], (uint16_t *)data[1], dims[0])); \
    }                                                                                            \
    return NAME##_elems(ctx, data, dims, st, aux);                                               \
}
/* the element function over the block (inlined: gcc vectorizes it with the clone's ISA) */
#define TL_LOOP1_BLOCK16(NAME, K, FN)                                                            \
static inline void NAME##_step(const float *in, float *out, npy_intp m, unsigned *fpe)           \
{ npy_intp k; unsigned e = 0; for (k = 0; k < m; k++) out[k] = FN(in[k], &e); *fpe |= e; }       \
TL_LOOP1_BLOCK16_STEP(NAME, K, NAME##_step, FN)
/* floor/ceil/trunc: the float32 SIMD block kernel (tl_vround_*) */
#define TL_VROUND_STEP_floor(in, out, m, fpe) tl_vround_floor_f32(in, out, m)
#define TL_VROUND_STEP_ceil(in, out, m, fpe) tl_vround_ceil_f32(in, out, m)
#define TL_VROUND_STEP_trunc(in, out, m, fpe) tl_vround_trunc_f32(in, out, m)

/* NumPy's loop f on m contiguous elements of buffer a (unary, nin 1) or a and b (nin 2), the
 * results into a */
static inline void tl_np_run(tl_np_loop_t f, void *fd, int nin, char *a, char *b, npy_intp m,
                             npy_intp size)
{
    char *args[3] = {a, nin == 2 ? b : a, a};
    const npy_intp unit[3] = {size, size, size};
    f(args, &m, unit, fd);
}
/* NumPy's own loop of OP where tl_vmath_set took it: contiguous data directly, other layouts
 * and an output overlapping the input in contiguous blocks (its strided and overlap paths may
 * compute other bits: an element's result must not depend on the layout). Its FP flags stay
 * raised for the caller to report. */
#define TL_NP_CALL(S, OP, F)                                                                     \
    if (tl_np_loop##S[TL_VM_##OP] != NULL) {                                                     \
        tl_np_loop_t f = tl_np_loop##S[TL_VM_##OP];                                              \
        void *fd = tl_np_data##S[TL_VM_##OP];                                                    \
        (void)ctx; (void)aux;                                                                    \
        if (st[0] == (npy_intp)sizeof(F) && st[1] == (npy_intp)sizeof(F)                        \
                && !tl_feedback(data[0], st[0], data[1], st[1], n)) {                            \
            f((char **)data, dims, st, fd);                                                      \
        } else {                                                                                 \
            TL_BLOCKS1(F, buf, tl_np_run(f, fd, 1, (char *)buf, NULL, m, sizeof(F)))             \
        }                                                                                        \
        return 0;                                                                                \
    }

#define TL_LOOP1_VEC(NAME, F, S, OP, FN)                                                         \
TL_LOOP1_SCALAR(NAME##_scalar, F, F, TL_LD_id, TL_ST_id, FN)                                     \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    npy_intp n = dims[0];                                                                        \
    const F *pa = (const F *)data[0]; F *po = (F *)data[1];                                      \
    TL_NP_CALL(S, OP, F)                                                                         \
    TL_VM_CALL(S, OP, FN)                                                                        \
    return NAME##_scalar(ctx, data, dims, st, aux);                                              \
}

/* ---- logical ops of a bool array and an array of another dtype ------------------------------
 * (bool, x) and (x, bool) -> bool with x's truth value read in place (a float's or complex's
 * bits but its sign bits; an integer's bits). reduce(x, out=bool array) and the plain call with
 * out= share this loop's DTypes (bool, x, bool) in NumPy's cache, and a reduction needs the first
 * operand's dtype to be the output's: computing in x's type (the plain call's join) cannot serve
 * it. */
/* x's truth: its bits but the sign bit of each part (MASK) are not all zero; the contiguous
 * loop in a form gcc vectorizes (the strided one also serves reductions, in order). X: the
 * operand index of x (the op commutes) */
#define TL_LOGICAL_BX_RUN(FN, X, U, MASK, PARTS)                                                 \
    if (st[1 - X] == 1 && st[X] == (npy_intp)sizeof(U) * (PARTS) && st[2] == 1) {                \
        const npy_bool *pb = (const npy_bool *)data[1 - X];                                      \
        const U *px = (const U *)data[X];                                                        \
        npy_bool *po = (npy_bool *)data[2];                                                      \
        for (i = 0; i < n; i++) {                                                                \
            U v = px[i * (PARTS)] & (MASK);                                                      \
            if ((PARTS) == 2) v |= px[i * (PARTS) + 1] & (MASK);                                 \
            po[i] = FN(pb[i] != 0, v != 0, &e);                                                  \
        }                                                                                        \
    } else if (n > 0 && st[X] == 0 && st[1 - X] == 1 && st[2] == 1) {  /* x a scalar: 2.5 & b */ \
        const npy_bool *pb = (const npy_bool *)data[1 - X];                                      \
        const U *px = (const U *)data[X];                                                        \
        npy_bool *po = (npy_bool *)data[2];                                                      \
        U v = px[0] & (MASK);                                                                    \
        int xv;                                                                                  \
        if ((PARTS) == 2) v |= px[1] & (MASK);                                                   \
        xv = v != 0;                                                                             \
        for (i = 0; i < n; i++) po[i] = FN(pb[i] != 0, xv, &e);                                  \
    } else if (n > 0 && st[1 - X] == 0 && st[X] == (npy_intp)sizeof(U) * (PARTS)                 \
               && st[2] == 1) {                                                                  \
        const int b = *(const npy_bool *)data[1 - X] != 0;      /* the bool a scalar */          \
        const U *px = (const U *)data[X];                                                        \
        npy_bool *po = (npy_bool *)data[2];                                                      \
        for (i = 0; i < n; i++) {                                                                \
            U v = px[i * (PARTS)] & (MASK);                                                      \
            if ((PARTS) == 2) v |= px[i * (PARTS) + 1] & (MASK);                                 \
            po[i] = FN(b, v != 0, &e);                                                           \
        }                                                                                        \
    } else {                                                                                     \
        for (i = 0; i < n; i++) {                                                                \
            const U *px = (const U *)(data[X] + i * st[X]);                                      \
            U v = px[0] & (MASK);                                                                \
            if ((PARTS) == 2) v |= px[1] & (MASK);                                               \
            *(npy_bool *)(data[2] + i * st[2]) =                                                 \
                FN(*(const npy_bool *)(data[1 - X] + i * st[1 - X]) != 0, v != 0, &e);           \
        }                                                                                        \
    }
/* how a dtype's truth is read: its item size (integers, bool: every bit), minus that (floats: all
 * but the sign bit), 100 less again for a complex (two such parts) */
static inline int tl_truth_key(PyArray_Descr *d)
{
    int flt = d->kind == 'f' || d->kind == 'c' || d->type_num == tl_bf16_typenum;
    return (flt ? -(int)d->elsize : (int)d->elsize) - (d->kind == 'c' ? 100 : 0);
}
#define TL_LOGICAL_BX(NAME, FN, X)                                                               \
__attribute__((unused)) TL_CLONES_ALL static int NAME(TL_LOOP_ARGS)                              \
{                                                                                                \
    npy_intp i, n = dims[0];                                                                     \
    unsigned e = 0;                                                                              \
    (void)aux;                                                                                   \
    switch (tl_truth_key(ctx->descriptors[X])) {                                                 \
        case 1: TL_LOGICAL_BX_RUN(FN, X, uint8_t, 0xffu, 1) break;                               \
        case 2: TL_LOGICAL_BX_RUN(FN, X, uint16_t, 0xffffu, 1) break;                            \
        case 4: TL_LOGICAL_BX_RUN(FN, X, uint32_t, 0xffffffffu, 1) break;                        \
        case 8: TL_LOGICAL_BX_RUN(FN, X, uint64_t, ~(uint64_t)0, 1) break;                       \
        case -2: TL_LOGICAL_BX_RUN(FN, X, uint16_t, 0x7fffu, 1) break;                           \
        case -4: TL_LOGICAL_BX_RUN(FN, X, uint32_t, 0x7fffffffu, 1) break;                       \
        case -8: TL_LOGICAL_BX_RUN(FN, X, uint64_t, ~((uint64_t)1 << 63), 1) break;              \
        case -108: TL_LOGICAL_BX_RUN(FN, X, uint32_t, 0x7fffffffu, 2) break;  /* complex64 */    \
        case -116: TL_LOGICAL_BX_RUN(FN, X, uint64_t, ~((uint64_t)1 << 63), 2) break;            \
        default: return tl_loop_error(PyExc_TypeError, "typelattice: no logical loop for it");   \
    }                                                                                            \
    return 0;                                                                                    \
}
/* LOOP's (bool, x) and (x, bool) loops of the three ops: tl_logical_<op>_<BX> / _<XB> */
#define TL_LOGICAL_SIX(LOOP, BX, XB)                                                             \
LOOP(tl_logical_and_##BX, tl_logical_and_b, 1) LOOP(tl_logical_and_##XB, tl_logical_and_b, 0)    \
LOOP(tl_logical_or_##BX, tl_logical_or_b, 1) LOOP(tl_logical_or_##XB, tl_logical_or_b, 0)        \
LOOP(tl_logical_xor_##BX, tl_logical_xor_b, 1) LOOP(tl_logical_xor_##XB, tl_logical_xor_b, 0)
TL_LOGICAL_SIX(TL_LOGICAL_BX, bx, xb)

/* the same with x one of ml_dtypes' small floats (true where its float32 value, through
 * ml_dtypes' cast, is not 0: NaN too, as its astype(bool)) or sub-byte integers (its bits),
 * for logical_and.reduce(x, out=bool array / dtype=bool) of them; in order, a block of x's
 * truths at a time (the output may be the bool operand, stride 0) */
#define TL_LOGICAL_BE(NAME, FN, X)                                                               \
static int NAME(TL_LOOP_ARGS)                                                                    \
{                                                                                                \
    const tl_ext_t *xf = tl_ext_find(ctx->descriptors[X]);                                       \
    const tl_exti_t *xi = xf != NULL ? NULL : tl_exti_find(ctx->descriptors[X]);                 \
    npy_intp i, j, n = dims[0];                                                                  \
    float fx[TL_BLOCK];                                                                          \
    npy_bool tx[TL_BLOCK];                                                                       \
    unsigned e = 0;                                                                              \
    (void)aux;                                                                                   \
    if (xf == NULL && xi == NULL)                                                                \
        return tl_loop_error(PyExc_SystemError, "typelattice: unknown small dtype");             \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        const char *px = data[X] + i * st[X];                                                    \
        if (xf != NULL) {                                                                        \
            tl_ext_load(xf, px, st[X], fx, m);                                                   \
            for (j = 0; j < m; j++) tx[j] = fx[j] != 0.0f;                                       \
        } else {                                                                                 \
            for (j = 0; j < m; j++) tx[j] = (*(const uint8_t *)(px + j * st[X]) & TL_EXTI_MASK(xi)) != 0; \
        }                                                                                        \
        for (j = 0; j < m; j++)                                                                  \
            *(npy_bool *)(data[2] + (i + j) * st[2]) =                                           \
                FN(*(const npy_bool *)(data[1 - X] + (i + j) * st[1 - X]) != 0, tx[j], &e);      \
    }                                                                                            \
    return 0;                                                                                    \
}
TL_LOGICAL_SIX(TL_LOGICAL_BE, be, eb)

/* ---- logical ops of two arrays of other dtypes than bool -----------------------------------
 * (x, y) -> bool with each operand's truth value read in place as TL_LOGICAL_BX reads x's, a
 * block at a time: what NumPy's cast of both to the join and its loop give wherever that cast
 * keeps every nonzero value nonzero (the promoter's _truth_kept), without the cast (int8 and
 * uint8 -> int16 ran at 2.7x the int16 call, float16 with uint32 through float32 at 12x the
 * float16 call) */
typedef void (*tl_truth_fn)(const char *p, npy_intp st, npy_bool *t, npy_intp n);
#define TL_TRUTH_FN(NAME, U, MASK, PARTS)                                                        \
__attribute__((unused)) TL_CLONES_ALL static void NAME(const char *p, npy_intp st, npy_bool *t,  \
                                                       npy_intp n)                               \
{                                                                                                \
    npy_intp i;                                                                                  \
    if (st == (npy_intp)sizeof(U) * (PARTS)) {                                                   \
        const U *q = (const U *)p;                                                               \
        for (i = 0; i < n; i++) {                                                                \
            U v = q[i * (PARTS)] & (MASK);                                                       \
            if ((PARTS) == 2) v |= q[i * (PARTS) + 1] & (MASK);                                  \
            t[i] = v != 0;                                                                       \
        }                                                                                        \
    } else {                                                                                     \
        for (i = 0; i < n; i++) {                                                                \
            const U *q = (const U *)(p + i * st);                                                \
            U v = q[0] & (MASK);                                                                 \
            if ((PARTS) == 2) v |= q[1] & (MASK);                                                \
            t[i] = v != 0;                                                                       \
        }                                                                                        \
    }                                                                                            \
}
TL_TRUTH_FN(tl_truth_1, uint8_t, 0xffu, 1)
TL_TRUTH_FN(tl_truth_2, uint16_t, 0xffffu, 1)
TL_TRUTH_FN(tl_truth_4, uint32_t, 0xffffffffu, 1)
TL_TRUTH_FN(tl_truth_8, uint64_t, ~(uint64_t)0, 1)
TL_TRUTH_FN(tl_truth_f2, uint16_t, 0x7fffu, 1)
TL_TRUTH_FN(tl_truth_f4, uint32_t, 0x7fffffffu, 1)
TL_TRUTH_FN(tl_truth_f8, uint64_t, ~((uint64_t)1 << 63), 1)
TL_TRUTH_FN(tl_truth_c8, uint32_t, 0x7fffffffu, 2)
TL_TRUTH_FN(tl_truth_c16, uint64_t, ~((uint64_t)1 << 63), 2)
static tl_truth_fn tl_truth_of(PyArray_Descr *d)
{
    switch (tl_truth_key(d)) {
        case 1: return tl_truth_1;
        case 2: return tl_truth_2;
        case 4: return tl_truth_4;
        case 8: return tl_truth_8;
        case -2: return tl_truth_f2;
        case -4: return tl_truth_f4;
        case -8: return tl_truth_f8;
        case -108: return tl_truth_c8;
        case -116: return tl_truth_c16;
        default: return NULL;
    }
}
/* The truth values of an integer operand (as tl_truth_of's) and whether it holds a value NumPy's
 * cast to float16 overflows (|v| >= 65520, which rounds past 65504), in one pass: the truth
 * loops of a float16 join raise that cast's overflow flag. */
typedef int (*tl_truth_past_fn)(const char *p, npy_intp st, npy_bool *t, npy_intp n);
#define TL_TRUTH_PAST_FN(NAME, T, PAST)                                                          \
__attribute__((unused)) TL_CLONES_ALL static int NAME(const char *p, npy_intp st, npy_bool *t,   \
                                                      npy_intp n)                                \
{                                                                                                \
    npy_intp i;                                                                                  \
    int any = 0;                                                                                 \
    if (st == (npy_intp)sizeof(T)) {                                                             \
        const T *q = (const T *)p;                                                               \
        for (i = 0; i < n; i++) { t[i] = q[i] != 0; any |= PAST(q[i]); }                         \
    } else {                                                                                     \
        for (i = 0; i < n; i++) {                                                                \
            T v = *(const T *)(p + i * st);                                                      \
            t[i] = v != 0;                                                                       \
            any |= PAST(v);                                                                      \
        }                                                                                        \
    }                                                                                            \
    return any;                                                                                  \
}
#define TL_PAST_F16_U(v) ((v) >= 65520)
#define TL_PAST_F16_S(v) (((v) >= 65520) | ((v) <= -65520))
TL_TRUTH_PAST_FN(tl_truth_past_f16_u16, uint16_t, TL_PAST_F16_U)
TL_TRUTH_PAST_FN(tl_truth_past_f16_u32, uint32_t, TL_PAST_F16_U)
TL_TRUTH_PAST_FN(tl_truth_past_f16_u64, uint64_t, TL_PAST_F16_U)
TL_TRUTH_PAST_FN(tl_truth_past_f16_i32, int32_t, TL_PAST_F16_S)
TL_TRUTH_PAST_FN(tl_truth_past_f16_i64, int64_t, TL_PAST_F16_S)
static tl_truth_past_fn tl_truth_past_f16_of(PyArray_Descr *d)
{
    switch (tl_sized_num(d)) {
        case NPY_USHORT: return tl_truth_past_f16_u16;
        case NPY_UINT: return tl_truth_past_f16_u32;
        case NPY_ULONGLONG: return tl_truth_past_f16_u64;
        case NPY_INT: return tl_truth_past_f16_i32;
        case NPY_LONGLONG: return tl_truth_past_f16_i64;
        default: return NULL;
    }
}
/* Contiguous operands on AVX-512 CPUs: a block's truth values as bit masks, bit j of w[k] the
 * truth of element 64k + j, a test per vector (gcc's byte truth loops packed each compare's
 * mask to bytes through permutes: int32 + float32 ran at 1.3x the float32 call). PAST: the
 * float16 cast's overflow as TL_PAST_F16_*, by a running unsigned max of v + BIAS against
 * 65519 + BIAS (signed v: BIAS 65519); masked-off tail lanes load as 0, inside the range. */
typedef int (*tl_truthm_fn)(const char *p, uint64_t *w, npy_intp n);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_TRUTHM_512(NAME, T, B, L, MASK, PAST, BIAS)                                           \
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int                         \
NAME(const char *p, uint64_t *w, npy_intp n)                                                     \
{                                                                                                \
    const T *q = (const T *)(const void *)p;                                                     \
    const __m512i m = _mm512_set1_epi##B((T)(MASK)), bias = _mm512_set1_epi##B((T)(BIAS));       \
    const __m512i lim = _mm512_set1_epi##B((T)(65519 + (BIAS)));                                 \
    __m512i top = _mm512_setzero_si512();                                                        \
    npy_intp i = 0, k = 0;                                                                       \
    int j;                                                                                       \
    for (; i + 64 <= n; i += 64, k++) {                                                          \
        uint64_t v = 0;                                                                          \
        for (j = 0; j < 64 / (L); j++) {                                                         \
            __m512i x = _mm512_loadu_si512(q + i + j * (L));                                     \
            v |= (uint64_t)_mm512_test_epi##B##_mask(x, m) << (j * (L));                         \
            if (PAST) top = _mm512_max_epu##B(top, _mm512_add_epi##B(x, bias));                  \
        }                                                                                        \
        w[k] = v;                                                                                \
    }                                                                                            \
    if (i < n) {                                                                                 \
        uint64_t v = 0;                                                                          \
        for (j = 0; i + j * (L) < n; j++) {                                                      \
            npy_intp r = n - i - j * (L);                                                        \
            __mmask##L tm = (__mmask##L)(r >= (L) ? ~0ull : (1ull << r) - 1);                     \
            __m512i x = _mm512_maskz_loadu_epi##B(tm, q + i + j * (L));                          \
            v |= (uint64_t)_mm512_test_epi##B##_mask(x, m) << (j * (L));                         \
            if (PAST) top = _mm512_max_epu##B(top, _mm512_add_epi##B(x, bias));                  \
        }                                                                                        \
        w[k] = v;                                                                                \
    }                                                                                            \
    return (PAST) && _mm512_cmpgt_epu##B##_mask(top, lim) != 0;                                  \
}
TL_TRUTHM_512(tl_truthm_1, uint8_t, 8, 64, 0xffu, 0, 0)
TL_TRUTHM_512(tl_truthm_2, uint16_t, 16, 32, 0xffffu, 0, 0)
TL_TRUTHM_512(tl_truthm_4, uint32_t, 32, 16, 0xffffffffu, 0, 0)
TL_TRUTHM_512(tl_truthm_8, uint64_t, 64, 8, ~(uint64_t)0, 0, 0)
TL_TRUTHM_512(tl_truthm_f2, uint16_t, 16, 32, 0x7fffu, 0, 0)
TL_TRUTHM_512(tl_truthm_f4, uint32_t, 32, 16, 0x7fffffffu, 0, 0)
TL_TRUTHM_512(tl_truthm_f8, uint64_t, 64, 8, ~((uint64_t)1 << 63), 0, 0)
TL_TRUTHM_512(tl_truthm_past_f16_u16, uint16_t, 16, 32, 0xffffu, 1, 0)
TL_TRUTHM_512(tl_truthm_past_f16_u32, uint32_t, 32, 16, 0xffffffffu, 1, 0)
TL_TRUTHM_512(tl_truthm_past_f16_u64, uint64_t, 64, 8, ~(uint64_t)0, 1, 0)
TL_TRUTHM_512(tl_truthm_past_f16_i32, uint32_t, 32, 16, 0xffffffffu, 1, 65519)
TL_TRUTHM_512(tl_truthm_past_f16_i64, uint64_t, 64, 8, ~(uint64_t)0, 1, 65519)
/* a block's results from the masks: OPK 0 and, 1 or, 2 xor; 64 a masked byte move */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static void
tl_truthm_combine(int opk, const uint64_t *wa, const uint64_t *wb, npy_bool *o, npy_intp n)
{
    const __m512i one = _mm512_set1_epi8(1);
    npy_intp i = 0, k = 0;
    for (; i < n; i += 64, k++) {
        const __mmask64 v = opk == 0 ? wa[k] & wb[k] : opk == 1 ? wa[k] | wb[k] : wa[k] ^ wb[k];
        if (n - i >= 64)
            _mm512_storeu_si512(o + i, _mm512_maskz_mov_epi8(v, one));
        else
            _mm512_mask_storeu_epi8(o + i, ((__mmask64)1 << (n - i)) - 1, _mm512_maskz_mov_epi8(v, one));
    }
}
/* the mask function of a contiguous operand (H16: with the check of tl_truth_past_f16_of's
 * types), or NULL */
static tl_truthm_fn tl_truthm_of(PyArray_Descr *d, int h16)
{
    if (h16) {
        switch (tl_sized_num(d)) {
            case NPY_USHORT: return tl_truthm_past_f16_u16;
            case NPY_UINT: return tl_truthm_past_f16_u32;
            case NPY_ULONGLONG: return tl_truthm_past_f16_u64;
            case NPY_INT: return tl_truthm_past_f16_i32;
            case NPY_LONGLONG: return tl_truthm_past_f16_i64;
            default: break;
        }
    }
    switch (tl_truth_key(d)) {
        case 1: return tl_truthm_1;
        case 2: return tl_truthm_2;
        case 4: return tl_truthm_4;
        case 8: return tl_truthm_8;
        case -2: return tl_truthm_f2;
        case -4: return tl_truthm_f4;
        case -8: return tl_truthm_f8;
        default: return NULL;       /* (complex: the byte loops) */
    }
}
/* (x, y) -> bool by masks where both operands are contiguous: 1, or 0 (not taken) */
static int tl_logical_xy_masks(int opk, int h16, PyArrayMethod_Context *ctx, char *const data[],
                               npy_intp n, npy_intp const st[], unsigned *e)
{
    PyArray_Descr *const *d = ctx->descriptors;
    tl_truthm_fn ma, mb;
    uint64_t wa[TL_BLOCK / 64], wb[TL_BLOCK / 64];
    npy_bool xo[TL_BLOCK];
    npy_intp i, j;
    if (!tl_host_avx512 || st[0] != (npy_intp)d[0]->elsize || st[1] != (npy_intp)d[1]->elsize)
        return 0;
    ma = tl_truthm_of(d[0], h16);
    mb = tl_truthm_of(d[1], h16);
    if (ma == NULL || mb == NULL)
        return 0;
    for (i = 0; i < n; i += TL_BLOCK) {
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;
        if (ma(data[0] + i * st[0], wa, m)) *e |= TL_FPE_OVERFLOW;
        if (mb(data[1] + i * st[1], wb, m)) *e |= TL_FPE_OVERFLOW;
        if (st[2] == 1) {
            tl_truthm_combine(opk, wa, wb, (npy_bool *)data[2] + i, m);
        } else {
            tl_truthm_combine(opk, wa, wb, xo, m);
            for (j = 0; j < m; j++) *(npy_bool *)(data[2] + (i + j) * st[2]) = xo[j];
        }
    }
    return 1;
}
#define TL_LOGICAL_XY_MASKS(OPK, H16)                                                            \
    if (tl_logical_xy_masks(OPK, H16, ctx, data, n, st, &e)) return tl_finish(e);
#else
#define TL_LOGICAL_XY_MASKS(OPK, H16)
#endif
/* an operand's block: its truth values into x, the overflow of its float16 cast into e */
#define TL_TRUTH_BLOCK(t, tp, k, x)                                                              \
    if (tp != NULL) {                                                                            \
        if (tp(data[k] + i * st[k], st[k], x, m)) e |= TL_FPE_OVERFLOW;                          \
    } else {                                                                                     \
        t(data[k] + i * st[k], st[k], x, m);                                                     \
    }
/* H16: the join is float16 (report its casts' overflow) */
#define TL_LOGICAL_XY(NAME, FN, OPK, H16)                                                        \
__attribute__((unused)) TL_CLONES_ALL static int NAME(TL_LOOP_ARGS)                              \
{                                                                                                \
    tl_truth_fn ta = tl_truth_of(ctx->descriptors[0]), tb = tl_truth_of(ctx->descriptors[1]);    \
    tl_truth_past_fn pa = (H16) ? tl_truth_past_f16_of(ctx->descriptors[0]) : NULL;              \
    tl_truth_past_fn pb = (H16) ? tl_truth_past_f16_of(ctx->descriptors[1]) : NULL;              \
    npy_intp i, j, n = dims[0];                                                                  \
    npy_bool xa[TL_BLOCK], xb[TL_BLOCK];                                                         \
    unsigned e = 0;                                                                              \
    (void)aux;                                                                                   \
    if (ta == NULL || tb == NULL)                                                                \
        return tl_loop_error(PyExc_TypeError, "typelattice: no logical loop for it");           \
    TL_LOGICAL_XY_MASKS(OPK, H16)                                                                \
    for (i = 0; i < n; i += TL_BLOCK) {                                                          \
        npy_intp m = n - i < TL_BLOCK ? n - i : TL_BLOCK;                                        \
        TL_TRUTH_BLOCK(ta, pa, 0, xa)                                                            \
        TL_TRUTH_BLOCK(tb, pb, 1, xb)                                                            \
        if (st[2] == 1) {                                                                        \
            npy_bool *po = (npy_bool *)data[2] + i;                                              \
            for (j = 0; j < m; j++) po[j] = FN(xa[j], xb[j], &e);                                \
        } else {                                                                                 \
            for (j = 0; j < m; j++) *(npy_bool *)(data[2] + (i + j) * st[2]) = FN(xa[j], xb[j], &e); \
        }                                                                                        \
    }                                                                                            \
    return tl_finish(e);                                                                         \
}
TL_LOGICAL_XY(tl_logical_and_xy, tl_logical_and_b, 0, 0)
TL_LOGICAL_XY(tl_logical_or_xy, tl_logical_or_b, 1, 0)
TL_LOGICAL_XY(tl_logical_xor_xy, tl_logical_xor_b, 2, 0)
TL_LOGICAL_XY(tl_logical_and_xy16, tl_logical_and_b, 0, 1)
TL_LOGICAL_XY(tl_logical_or_xy16, tl_logical_or_b, 1, 1)
TL_LOGICAL_XY(tl_logical_xor_xy16, tl_logical_xor_b, 2, 1)

#endif
