/* AVX2 lane helpers shared by the loops (tl_loops_host.h: block conversions, fused kernels) and
 * the float16/bfloat16 kernels (tl_convert.c). x86-64 with gcc or clang only; include after
 * <immintrin.h>.
 *
 * (u)int64 -> float32/float64, which AVX2 has no instruction for: the C casts' values (one
 * rounding to nearest even), 4 or 8 lanes at a time. */
#ifndef TYPELATTICE_TL_AVX2_H
#define TYPELATTICE_TL_AVX2_H
#include <stdint.h>
#include <immintrin.h>

#ifndef TL_UNLIKELY
#define TL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif

/* 4 / 8 (u)int64 at p as doubles / floats, the C casts' values. SIGNED: int64 (magic 2^52 + 2^51:
 * lanes in [-2^51, 2^51); int32's range [-2^31, 2^31)) or uint64 (2^52: lanes below 2^52; below
 * 2^31) */
#define TL_CVT64_LANES(SFX, S, SIGNED)                                                           \
__attribute__((target("avx2"))) static inline __m256d tl_cvt64_exact_##SFX(__m256i x)           \
{                                                                                                \
    const __m256i magic = _mm256_set1_epi64x(SIGNED ? 0x4338000000000000 : 0x4330000000000000);  \
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, magic)),                        \
                         _mm256_set1_pd(SIGNED ? 6755399441055744.0 : 4503599627370496.0));     \
}                                                                                                \
/* lanes of v outside the magic number's range (0: none) */                                     \
__attribute__((target("avx2"))) static inline int tl_cvt64_big_##SFX(__m256i v)                 \
{                                                                                                \
    v = _mm256_srli_epi64(v, 52);                                                                \
    return !_mm256_testz_si256(v, v);                                                            \
}                                                                                                \
__attribute__((target("avx2"))) static inline __m256d tl_ld4_f64_##SFX(const S *p)              \
{                                                                                                \
    const __m256i bias = _mm256_set1_epi64x(SIGNED ? (int64_t)1 << 51 : 0);                      \
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);                            \
    if (TL_UNLIKELY(tl_cvt64_big_##SFX(_mm256_add_epi64(x, bias))))                              \
        return _mm256_set_pd((double)p[3], (double)p[2], (double)p[1], (double)p[0]);            \
    return tl_cvt64_exact_##SFX(x);                                                              \
}                                                                                                \
__attribute__((target("avx2"))) static inline __m256 tl_ld8_f32_##SFX(const S *p)               \
{                                                                                                \
    const __m256i bias = _mm256_set1_epi64x(SIGNED ? (int64_t)1 << 51 : 0);                      \
    const __m256i b31 = _mm256_set1_epi64x(SIGNED ? (int64_t)1 << 31 : 0);                       \
    __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)p);                           \
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 4));                     \
    __m256i w = _mm256_srli_epi64(_mm256_or_si256(_mm256_add_epi64(x0, b31),                     \
                                                  _mm256_add_epi64(x1, b31)), SIGNED ? 32 : 31); \
    if (_mm256_testz_si256(w, w)) {     /* int32's range: the low halves as int32 */            \
        __m256 lo = _mm256_shuffle_ps(_mm256_castsi256_ps(x0), _mm256_castsi256_ps(x1), 0x88);  \
        return _mm256_cvtepi32_ps(_mm256_permute4x64_epi64(_mm256_castps_si256(lo), 0xD8));      \
    }                                                                                            \
    if (TL_UNLIKELY(tl_cvt64_big_##SFX(_mm256_or_si256(_mm256_add_epi64(x0, bias),              \
                                                       _mm256_add_epi64(x1, bias))))) {          \
        float t[8];                                                                              \
        int k;                                                                                   \
        for (k = 0; k < 8; k++) t[k] = (float)p[k];                                              \
        return _mm256_loadu_ps(t);                                                               \
    }                                                                                            \
    return _mm256_set_m128(_mm256_cvtpd_ps(tl_cvt64_exact_##SFX(x1)),                            \
                           _mm256_cvtpd_ps(tl_cvt64_exact_##SFX(x0)));                           \
}
TL_CVT64_LANES(i64, int64_t, 1)
TL_CVT64_LANES(u64, uint64_t, 0)

/* 32 mask bits -> 32 bytes of 0/1: byte k of the mask copied to bytes 8k..8k+7, one bit each */
__attribute__((target("avx2"))) static inline __m256i tl_mask32_bytes_avx2(uint32_t m)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((int64_t)0x8040201008040201ull);
    __m256i v = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int)m), spread), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(1));
}

#endif
