/* typelattice element functions: one inline function per (operation, compute type).
 *
 * Plain C99 (also valid C++ and CUDA): no NumPy, no Python. Under nvcc TL_HD is
 * __host__ __device__, so the CUDA path compiles the very same functions.
 *
 * Naming: tl_<op>_<sfx>(a, b, &fpe) with sfx in b (bool as 0/1 uint8), u8..u64, i8..i64, f32, f64,
 * c64, c128. float16 and bfloat16 are stored as uint16 bits and computed in float32
 * (tl_f16_to_f32 / tl_f32_to_f16, tl_bf16_to_f32 / tl_f32_to_bf16, round to nearest even);
 * only nextafter works on their bits (tl_nextafter_f16 / _bf16).
 *
 * Values follow NumPy's loops (numpy/_core/src/umath, npymath) bit for bit where NumPy is exact:
 * integer division by zero gives 0, shifts past the width give 0 (or -1), floor division and
 * remainder use NumPy's fmod-based algorithm. Floating-point exceptions that NumPy raises by hand
 * (integer division by zero, float16 overflow, INT_MIN // -1) are OR-ed into *fpe as TL_FPE_*
 * bits; the caller turns them into hardware flags (or ignores them on a GPU). Exceptions from
 * real float arithmetic come from the hardware as usual.
 */
#ifndef TYPELATTICE_TL_ELEM_H
#define TYPELATTICE_TL_ELEM_H

#if defined(__CUDACC__)
#define TL_HD __host__ __device__ __forceinline__
#else
#define TL_HD static inline
#endif

#ifndef __CUDACC_RTC__      /* NVRTC: the includer provides stdint types and math */
#include <stdint.h>
#include <math.h>
#endif

#define TL_FPE_DIVBYZERO 1u
#define TL_FPE_OVERFLOW 2u
#define TL_FPE_UNDERFLOW 4u
#define TL_FPE_INVALID 8u
#define TL_ERR_NEGPOW 16u   /* integer to a negative integer power: ValueError */

typedef struct { float re, im; } tl_c64;
typedef struct { double re, im; } tl_c128;

/* ---- bit casts --------------------------------------------------------------------------- */
TL_HD uint32_t tl_f32_bits(float f) { union { float f; uint32_t u; } v; v.f = f; return v.u; }
TL_HD float tl_bits_f32(uint32_t u) { union { float f; uint32_t u; } v; v.u = u; return v.f; }
TL_HD uint64_t tl_f64_bits(double f) { union { double f; uint64_t u; } v; v.f = f; return v.u; }
/* a uint64 ldexp exponent as int64, saturated: 2**63 and up would wrap negative */
TL_HD int64_t tl_u64_sat(uint64_t x)
{ return x > 9223372036854775807ULL ? (int64_t)9223372036854775807LL : (int64_t)x; }
TL_HD double tl_bits_f64(uint64_t u) { union { double f; uint64_t u; } v; v.u = u; return v.f; }

/* ---- float16 <-> float32 (NumPy's npy_half conversions, round to nearest even) -------------- */
/* Branch-free (selects only) so that element loops over float16 vectorize: the exponent is
 * rebased by 112, once more for inf/NaN; a subnormal m * 2**-24 is (1 + m/1024) * 2**-14 - 2**-14,
 * exact. Other lanes subtract 2**-14 from 2**-14, so no flag is raised. */
TL_HD float tl_f16_to_f32(uint16_t h)
{
    uint32_t u = ((uint32_t)h & 0x7fffu) << 13;
    uint32_t e = u & 0x0f800000u;
    uint32_t sgn = ((uint32_t)h & 0x8000u) << 16;
    u += 0x38000000u;
    u += (e == 0x0f800000u) ? 0x38000000u : 0u;
    float sub = tl_bits_f32((e == 0 ? u : 0x38000000u) + 0x00800000u) - 6.103515625e-05f;
    return tl_bits_f32((e == 0 ? tl_f32_bits(sub) : u) | sgn);
}

TL_HD uint16_t tl_f32_to_f16(float x, unsigned *fpe)
{
    uint32_t f = tl_f32_bits(x);
    uint16_t h_sgn = (uint16_t)((f & 0x80000000u) >> 16);
    uint32_t f_exp = f & 0x7f800000u, f_sig;
    uint16_t h_sig;
    if (f_exp >= 0x47800000u) {
        if (f_exp == 0x7f800000u) {
            f_sig = f & 0x007fffffu;
            if (f_sig != 0) {   /* NaN: keep the top payload bits, stay a NaN */
                uint16_t ret = (uint16_t)(0x7c00u + (f_sig >> 13));
                if (ret == 0x7c00u) ret++;
                return (uint16_t)(h_sgn + ret);
            }
            return (uint16_t)(h_sgn + 0x7c00u);
        }
        *fpe |= TL_FPE_OVERFLOW;
        return (uint16_t)(h_sgn + 0x7c00u);
    }
    if (f_exp <= 0x38000000u) {
        if (f_exp < 0x33000000u) {
            if ((f & 0x7fffffffu) != 0) *fpe |= TL_FPE_UNDERFLOW;
            return h_sgn;
        }
        f_exp >>= 23;
        f_sig = 0x00800000u + (f & 0x007fffffu);
        if ((f_sig & (((uint32_t)1 << (126 - f_exp)) - 1)) != 0) *fpe |= TL_FPE_UNDERFLOW;
        f_sig >>= (113 - f_exp);
        if (((f_sig & 0x00003fffu) != 0x00001000u) || (f & 0x000007ffu)) f_sig += 0x00001000u;
        h_sig = (uint16_t)(f_sig >> 13);
        return (uint16_t)(h_sgn + h_sig);
    }
    {
        uint16_t h_exp = (uint16_t)((f_exp - 0x38000000u) >> 13);
        f_sig = f & 0x007fffffu;
        if ((f_sig & 0x00003fffu) != 0x00001000u) f_sig += 0x00001000u;
        h_sig = (uint16_t)(f_sig >> 13);
        h_sig = (uint16_t)(h_sig + h_exp);
        if (h_sig == 0x7c00u) *fpe |= TL_FPE_OVERFLOW;
        return (uint16_t)(h_sgn + h_sig);
    }
}

/* ---- bfloat16 <-> float32 (ml_dtypes: round to nearest even, a NaN becomes the quiet NaN
 * 0x7fc0 with its sign, the payload dropped) ------------------------------------------------ */
TL_HD float tl_bf16_to_f32(uint16_t h) { return tl_bits_f32((uint32_t)h << 16); }

TL_HD uint16_t tl_f32_to_bf16(float x, unsigned *fpe)
{
    uint32_t f = tl_f32_bits(x);
    (void)fpe;   /* ml_dtypes sets no flag on overflow to inf */
    if ((f & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)(((f >> 16) & 0x8000u) | 0x7fc0u);
    }
    f += 0x7fffu + ((f >> 16) & 1u);
    return (uint16_t)(f >> 16);
}

/* ==== integers ================================================================================ */
/* Signed arithmetic wraps like NumPy's (computed in the unsigned type: no C undefined behaviour). */
#define TL_INT_COMMON(S, T, UT, BITS)                                                            \
TL_HD T tl_add_##S(T a, T b, unsigned *e) { (void)e; return (T)((UT)a + (UT)b); }                \
TL_HD T tl_subtract_##S(T a, T b, unsigned *e) { (void)e; return (T)((UT)a - (UT)b); }           \
TL_HD T tl_multiply_##S(T a, T b, unsigned *e) { (void)e; return (T)((UT)a * (UT)b); }           \
TL_HD T tl_maximum_##S(T a, T b, unsigned *e) { (void)e; return a >= b ? a : b; }                \
TL_HD T tl_minimum_##S(T a, T b, unsigned *e) { (void)e; return a <= b ? a : b; }                \
TL_HD T tl_fmax_##S(T a, T b, unsigned *e) { (void)e; return a >= b ? a : b; }                   \
TL_HD T tl_fmin_##S(T a, T b, unsigned *e) { (void)e; return a <= b ? a : b; }                   \
TL_HD T tl_bitwise_and_##S(T a, T b, unsigned *e) { (void)e; return (T)(a & b); }                \
TL_HD T tl_bitwise_or_##S(T a, T b, unsigned *e) { (void)e; return (T)(a | b); }                 \
TL_HD T tl_bitwise_xor_##S(T a, T b, unsigned *e) { (void)e; return (T)(a ^ b); }                \
TL_HD T tl_left_shift_##S(T a, T b, unsigned *e)                                                 \
{ (void)e; return (uint64_t)(UT)b < (BITS) ? (T)((UT)a << (UT)b) : (T)0; }                      \
TL_HD T tl_power_##S(T a, T b, unsigned *e)                                                      \
{                                                                                                \
    UT base = (UT)a, out;                                                                        \
    if ((T)-1 < (T)1 - (T)1 && ((uint64_t)(UT)b >> ((BITS) - 1))) { *e |= TL_ERR_NEGPOW; return 0; } \
    if (b == 0) return 1;                                                                        \
    if (a == 1) return 1;                                                                        \
    out = (b & 1) ? base : (UT)1;                                                                \
    b = (T)(b >> 1);                                                                             \
    while (b > 0) {                                                                              \
        base = (UT)(base * base);                                                                \
        if (b & 1) out = (UT)(out * base);                                                       \
        b = (T)(b >> 1);                                                                         \
    }                                                                                            \
    return (T)out;                                                                               \
}                                                                                                \
TL_HD unsigned char tl_logical_and_##S(T a, T b, unsigned *e) { (void)e; return a && b; }        \
TL_HD unsigned char tl_logical_or_##S(T a, T b, unsigned *e) { (void)e; return a || b; }         \
TL_HD unsigned char tl_logical_xor_##S(T a, T b, unsigned *e) { (void)e; return (!a) != (!b); }  \
TL_HD unsigned char tl_equal_##S(T a, T b, unsigned *e) { (void)e; return a == b; }              \
TL_HD unsigned char tl_not_equal_##S(T a, T b, unsigned *e) { (void)e; return a != b; }          \
TL_HD unsigned char tl_less_##S(T a, T b, unsigned *e) { (void)e; return a < b; }                \
TL_HD unsigned char tl_less_equal_##S(T a, T b, unsigned *e) { (void)e; return a <= b; }         \
TL_HD unsigned char tl_greater_##S(T a, T b, unsigned *e) { (void)e; return a > b; }             \
TL_HD unsigned char tl_greater_equal_##S(T a, T b, unsigned *e) { (void)e; return a >= b; }      \
TL_HD UT tl_gcdu_##S(UT a, UT b) { while (a != 0) { UT c = a; a = (UT)(b % a); b = c; } return b; } \

/* Signed: floor division / Python remainder / C fmod as NumPy (x // 0 == 0 and x % 0 == 0 with a
 * divide-by-zero flag; MIN // -1 == MIN with an overflow flag). */
#define TL_SINT(S, T, UT, BITS, TMIN)                                                            \
TL_INT_COMMON(S, T, UT, BITS)                                                                    \
TL_HD T tl_right_shift_##S(T a, T b, unsigned *e)                                                \
{ (void)e; if ((uint64_t)(UT)b < (BITS)) return (T)(a >> b); return a < 0 ? (T)-1 : (T)0; }      \
TL_HD T tl_floor_divide_##S(T a, T b, unsigned *e)                                               \
{                                                                                                \
    T q;                                                                                         \
    if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; }                                            \
    if (b == -1 && a == TMIN) { *e |= TL_FPE_OVERFLOW; return TMIN; }                            \
    q = (T)(a / b);                 /* branch-free rounding toward -inf: signs often random */  \
    return (T)(q - (T)((((a ^ b) < 0) & ((T)(q * b) != a))));                                    \
}                                                                                                \
TL_HD T tl_remainder_##S(T a, T b, unsigned *e)                                                  \
{                                                                                                \
    T r;                                                                                         \
    if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; }                                            \
    if (b == -1) return 0;                                                                       \
    r = (T)(a % b);                 /* branch-free sign fix: r == 0 is often unpredictable */   \
    return (T)(r + (T)(b & (T)((T)0 - (T)((r != 0) & ((r ^ b) < 0)))));                          \
}                                                                                                \
TL_HD T tl_fmod_##S(T a, T b, unsigned *e)                                                       \
{                                                                                                \
    if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; }                                            \
    if (b == -1) return 0;                                                                       \
    return (T)(a % b);                                                                           \
}                                                                                                \
TL_HD void tl_divmod_##S(T a, T b, T *q, T *r, unsigned *e)                                      \
{                                                                                                \
    if (b == 0) { *e |= TL_FPE_DIVBYZERO; *q = 0; *r = 0; return; }                              \
    if (b == -1 && a == TMIN) { *e |= TL_FPE_OVERFLOW; *q = TMIN; *r = 0; return; }              \
    {                                                                                            \
        T qq = (T)(a / b), rr = (T)(a - (T)(qq * b));                                            \
        T fix = (T)((rr != 0) & ((rr ^ b) < 0));                                                 \
        *q = (T)(qq - fix); *r = (T)(rr + (T)(b & (T)((T)0 - fix)));                             \
    }                                                                                            \
}                                                                                                \
TL_HD T tl_gcd_##S(T a, T b, unsigned *e)                                                        \
{ (void)e; return (T)tl_gcdu_##S(a < 0 ? (UT)(0 - (UT)a) : (UT)a, b < 0 ? (UT)(0 - (UT)b) : (UT)b); } \
TL_HD T tl_lcm_##S(T a, T b, unsigned *e)                                                        \
{                                                                                                \
    UT ua = a < 0 ? (UT)(0 - (UT)a) : (UT)a, ub = b < 0 ? (UT)(0 - (UT)b) : (UT)b;               \
    UT g = tl_gcdu_##S(ua, ub); (void)e;                                                         \
    return g == 0 ? (T)0 : (T)(UT)((UT)(ua / g) * ub);                                          \
}

#define TL_UINT(S, T, BITS)                                                                      \
TL_INT_COMMON(S, T, T, BITS)                                                                     \
TL_HD T tl_right_shift_##S(T a, T b, unsigned *e)                                                \
{ (void)e; return (uint64_t)b < (BITS) ? (T)(a >> b) : (T)0; }                                   \
TL_HD T tl_floor_divide_##S(T a, T b, unsigned *e)                                               \
{ if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; } return (T)(a / b); }                         \
TL_HD T tl_remainder_##S(T a, T b, unsigned *e)                                                  \
{ if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; } return (T)(a % b); }                         \
TL_HD T tl_fmod_##S(T a, T b, unsigned *e)                                                       \
{ if (b == 0) { *e |= TL_FPE_DIVBYZERO; return 0; } return (T)(a % b); }                         \
TL_HD void tl_divmod_##S(T a, T b, T *q, T *r, unsigned *e)                                      \
{ if (b == 0) { *e |= TL_FPE_DIVBYZERO; *q = 0; *r = 0; return; } *q = (T)(a / b); *r = (T)(a % b); } \
TL_HD T tl_gcd_##S(T a, T b, unsigned *e) { (void)e; return tl_gcdu_##S(a, b); }                \
TL_HD T tl_lcm_##S(T a, T b, unsigned *e)                                                        \
{ T g = tl_gcdu_##S(a, b); (void)e; return g == 0 ? (T)0 : (T)((T)(a / g) * b); }

TL_SINT(i8, int8_t, uint8_t, 8, INT8_MIN)
TL_SINT(i16, int16_t, uint16_t, 16, INT16_MIN)
TL_SINT(i32, int32_t, uint32_t, 32, INT32_MIN)
TL_SINT(i64, int64_t, uint64_t, 64, INT64_MIN)
TL_UINT(u8, uint8_t, 8)
TL_UINT(u16, uint16_t, 16)
TL_UINT(u32, uint32_t, 32)
TL_UINT(u64, uint64_t, 64)

/* ==== bool (0/1) ============================================================================= */
typedef unsigned char tl_bool;
TL_HD tl_bool tl_add_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a | b; }
TL_HD tl_bool tl_multiply_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a & b; }
TL_HD tl_bool tl_maximum_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a | b; }
TL_HD tl_bool tl_minimum_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a & b; }
TL_HD tl_bool tl_fmax_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a | b; }
TL_HD tl_bool tl_fmin_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a & b; }
TL_HD tl_bool tl_bitwise_and_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a & b; }
TL_HD tl_bool tl_bitwise_or_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a | b; }
TL_HD tl_bool tl_bitwise_xor_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a ^ b; }
TL_HD tl_bool tl_logical_and_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a && b; }
TL_HD tl_bool tl_logical_or_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a || b; }
TL_HD tl_bool tl_logical_xor_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return (!a) != (!b); }
TL_HD tl_bool tl_equal_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a == b; }
TL_HD tl_bool tl_not_equal_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a != b; }
TL_HD tl_bool tl_less_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a < b; }
TL_HD tl_bool tl_less_equal_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a <= b; }
TL_HD tl_bool tl_greater_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a > b; }
TL_HD tl_bool tl_greater_equal_b(tl_bool a, tl_bool b, unsigned *e) { (void)e; return a >= b; }

/* ==== real floats ============================================================================ */
/* Quiet ordered comparisons (no 'invalid' flag for NaN operands, as NumPy): NaN operands are
 * replaced before the comparison, because compilers vectorize isless() into signalling
 * compares on SSE2 (gcc 12 -O3). */
#define TL_QCMP(S, F)                                                                            \
TL_HD int tl_qlt_##S(F a, F b) { int o = (a == a) & (b == b); F x = o ? a : (F)0, y = o ? b : (F)0; return o & (x < y); } \
TL_HD int tl_qle_##S(F a, F b) { int o = (a == a) & (b == b); F x = o ? a : (F)0, y = o ? b : (F)0; return o & (x <= y); } \
TL_HD int tl_qgt_##S(F a, F b) { return tl_qlt_##S(b, a); }                                      \
TL_HD int tl_qge_##S(F a, F b) { return tl_qle_##S(b, a); }
TL_QCMP(f32, float)
TL_QCMP(f64, double)

/* fmod of finite operands and a nonzero divisor by the x87 FPREM loop: exact, as fmod, and no FP
 * flag; NumPy's compiler expands fmod to the same loop in its remainder/floor_divide loops, while
 * glibc's fmod ran 4x slower here. Other operands (NaN, inf, a zero divisor) go to libm's fmod for
 * its result and flags. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
static inline long double tl_fprem(long double x, long double y)
{
    __asm__("1:\n\tfprem\n\tfnstsw %%ax\n\ttestw $0x400, %%ax\n\tjnz 1b"
            : "+t"(x) : "u"(y) : "ax", "cc");
    return x;
}
static inline double tl_fmodm(double a, double b)
{
    if (isfinite(a) && isfinite(b) && b != 0) return (double)tl_fprem(a, b);    /* quiet tests */
    return fmod(a, b);
}
static inline float tl_fmodmf(float a, float b)
{
    if (isfinite(a) && isfinite(b) && b != 0) return (float)tl_fprem(a, b);
    return fmodf(a, b);
}
#else
#define tl_fmodm fmod
#define tl_fmodmf fmodf
#endif

/* F: C type, S: suffix, M: libm suffix ("f" or empty). Division by zero in floor_divide and
 * remainder follows npy_floor_divide / npy_divmod / npy_remainder. */
#define TL_FLOAT(S, F, M, LOGE2, LOG2E, TOBITS, NEGINF)                                          \
TL_HD F tl_add_##S(F a, F b, unsigned *e) { (void)e; return a + b; }                             \
TL_HD F tl_subtract_##S(F a, F b, unsigned *e) { (void)e; return a - b; }                        \
TL_HD F tl_multiply_##S(F a, F b, unsigned *e) { (void)e; return a * b; }                        \
TL_HD F tl_divide_##S(F a, F b, unsigned *e) { (void)e; return a / b; }                          \
TL_HD F tl_divmod_core_##S(F a, F b, F *mod)                                                     \
{                                                                                                \
    F div, m, floordiv;                                                                          \
    m = tl_fmodm##M(a, b);                                                                       \
    if (!b) { *mod = m; return a / b; }                                                          \
    div = (a - m) / b;                                                                           \
    if (m) { if (tl_qlt_##S(b, 0) != tl_qlt_##S(m, 0)) { m += b; div -= (F)1.0; } }                                \
    else { m = copysign##M((F)0, b); }                                                           \
    if (div) { floordiv = floor##M(div); if (tl_qgt_##S(div - floordiv, (F)0.5)) floordiv += (F)1.0; }      \
    else { floordiv = copysign##M((F)0, a / b); }                                                \
    *mod = m;                                                                                    \
    return floordiv;                                                                             \
}                                                                                                \
TL_HD F tl_floor_divide_##S(F a, F b, unsigned *e)                                               \
{                                                                                                \
    F mod; (void)e;                                                                              \
    if (!b) return a / b;           /* the division's own flags: none for inf / 0 or NaN / 0 */   \
    return tl_divmod_core_##S(a, b, &mod);                                                       \
}                                                                                                \
TL_HD F tl_remainder_##S(F a, F b, unsigned *e)                                                  \
{                                                                                                \
    F mod; (void)e;                                                                              \
    if (!b) return tl_fmodm##M(a, b);                                                            \
    tl_divmod_core_##S(a, b, &mod);                                                              \
    return mod;                                                                                  \
}                                                                                                \
TL_HD void tl_divmod_##S(F a, F b, F *q, F *r, unsigned *e)                                      \
{ (void)e; *q = tl_divmod_core_##S(a, b, r); }                                                   \
TL_HD F tl_fmod_##S(F a, F b, unsigned *e) { (void)e; return tl_fmodm##M(a, b); }                \
/* pow, the exponents 2, -1, 0.5 and 1 as NumPy's loops take a scalar one (x*x, 1/x, sqrt, x:    \
 * correctly rounded, where glibc's pow misses for ~0.05% of bases), whatever the layout; sqrt    \
 * with pow's +0 for -0 and +inf for -inf */                                                      \
TL_HD F tl_pow_half_##S(F a)  /* -inf found on its bits: gcc made a signalling compare of == */ \
{ return sqrt##M(TOBITS(a) == NEGINF ? (F)INFINITY : a) + (F)0; }                                \
TL_HD F tl_pow_##S(F a, F b)                                                                     \
{                                                                                                \
    /* those exponents have no mantissa bits: one test on the bits first (the four compares on  \
     * every element cost 1.2x pow's own time) */                                               \
    if ((TOBITS(b) & ~(NEGINF)) == 0) {                                                          \
        if (b == (F)2) return a * a;                                                             \
        if (b == (F)-1) return (F)1 / a;                                                         \
        if (b == (F)0.5) return tl_pow_half_##S(a);                                              \
        if (b == (F)1) return a;                                                                 \
    }                                                                                            \
    return pow##M(a, b);                                                                         \
}                                                                                                \
TL_HD F tl_power_##S(F a, F b, unsigned *e) { (void)e; return tl_pow_##S(a, b); }                \
TL_HD F tl_float_power_##S(F a, F b, unsigned *e) { (void)e; return tl_pow_##S(a, b); }          \
/* NumPy's float32/float64 loops (and ml_dtypes' bfloat16) give the second operand when the     \
 * operands are equal (maximum(0.0, -0.0) is -0.0); NumPy's float16 loops give the first (_h).  \
 * Plain comparisons, which gcc vectorizes to compare + blend: these ops are registered quiet   \
 * (NPY_METH_NO_FLOATINGPOINT_ERRORS), so a NaN's 'invalid' flag is never reported. */          \
TL_HD F tl_maximum_##S(F a, F b, unsigned *e) { (void)e; return (a > b || a != a) ? a : b; }     \
TL_HD F tl_minimum_##S(F a, F b, unsigned *e) { (void)e; return (a < b || a != a) ? a : b; }     \
TL_HD F tl_fmax_##S(F a, F b, unsigned *e) { (void)e; return (a > b || b != b) ? a : b; }        \
TL_HD F tl_fmin_##S(F a, F b, unsigned *e) { (void)e; return (a < b || b != b) ? a : b; }        \
TL_HD F tl_maximum_h_##S(F a, F b, unsigned *e) { (void)e; return (a >= b || a != a) ? a : b; }  \
TL_HD F tl_minimum_h_##S(F a, F b, unsigned *e) { (void)e; return (a <= b || a != a) ? a : b; }  \
TL_HD F tl_fmax_h_##S(F a, F b, unsigned *e) { (void)e; return (a >= b || b != b) ? a : b; }     \
TL_HD F tl_fmin_h_##S(F a, F b, unsigned *e) { (void)e; return (a <= b || b != b) ? a : b; }     \
TL_HD F tl_arctan2_##S(F a, F b, unsigned *e) { (void)e; return atan2##M(a, b); }                \
TL_HD F tl_hypot_##S(F a, F b, unsigned *e) { (void)e; return hypot##M(a, b); }                  \
TL_HD F tl_copysign_##S(F a, F b, unsigned *e) { (void)e; return copysign##M(a, b); }            \
TL_HD F tl_nextafter_##S(F a, F b, unsigned *e) { (void)e; return nextafter##M(a, b); }          \
TL_HD F tl_logaddexp_##S(F x, F y, unsigned *e)                                                  \
{                                                                                                \
    F tmp; (void)e;                                                                              \
    if (x == y) return x + (F)LOGE2;                                                             \
    tmp = x - y;                                                                                 \
    if (tmp > 0) return x + log1p##M(exp##M(-tmp));                                              \
    else if (tmp <= 0) return y + log1p##M(exp##M(tmp));                                         \
    return tmp;                                                                                  \
}                                                                                                \
TL_HD F tl_logaddexp2_##S(F x, F y, unsigned *e)                                                 \
{                                                                                                \
    F tmp; (void)e;                                                                              \
    if (x == y) return x + (F)1;                                                                 \
    tmp = x - y;                                                                                 \
    if (tmp > 0) return x + (F)LOG2E * log1p##M(exp2##M(-tmp));                                  \
    else if (tmp <= 0) return y + (F)LOG2E * log1p##M(exp2##M(tmp));                             \
    return tmp;                                                                                  \
}                                                                                                \
TL_HD F tl_heaviside_##S(F x, F h0, unsigned *e)                                                 \
{ (void)e; if (x != x) return x; if (x == 0) return h0; return x < 0 ? (F)0 : (F)1; }            \
TL_HD F tl_ldexp_##S(F a, int64_t b, unsigned *e)                                                \
{ (void)e; return ldexp##M(a, b > 2147483647 ? 2147483647 : (b < -2147483647 - 1 ? -2147483647 - 1 : (int)b)); } \
TL_HD tl_bool tl_logical_and_##S(F a, F b, unsigned *e) { (void)e; return a && b; }              \
TL_HD tl_bool tl_logical_or_##S(F a, F b, unsigned *e) { (void)e; return a || b; }               \
TL_HD tl_bool tl_logical_xor_##S(F a, F b, unsigned *e) { (void)e; return (!a) != (!b); }        \
TL_HD tl_bool tl_equal_##S(F a, F b, unsigned *e) { (void)e; return a == b; }                    \
TL_HD tl_bool tl_not_equal_##S(F a, F b, unsigned *e) { (void)e; return a != b; }                \
TL_HD tl_bool tl_less_##S(F a, F b, unsigned *e) { (void)e; return tl_qlt_##S(a, b); }                      \
TL_HD tl_bool tl_less_equal_##S(F a, F b, unsigned *e) { (void)e; return tl_qle_##S(a, b); }               \
TL_HD tl_bool tl_greater_##S(F a, F b, unsigned *e) { (void)e; return tl_qgt_##S(a, b); }                   \
TL_HD tl_bool tl_greater_equal_##S(F a, F b, unsigned *e) { (void)e; return tl_qge_##S(a, b); }

TL_FLOAT(f32, float, f, 0.693147180559945309417232121458176568f, 1.442695040888963407359924681001892137f,
         tl_f32_bits, 0xff800000u)
TL_FLOAT(f64, double, , 0.693147180559945309417232121458176568, 1.442695040888963407359924681001892137,
         tl_f64_bits, 0xfff0000000000000ull)

/* nextafter on the storage bits of float16 (npy_half_nextafter) and bfloat16 (ml_dtypes). */
TL_HD uint16_t tl_nextafter_f16(uint16_t x, uint16_t y, unsigned *e)
{
    uint16_t ret;
    int xnan = (x & 0x7c00u) == 0x7c00u && (x & 0x03ffu);
    int ynan = (y & 0x7c00u) == 0x7c00u && (y & 0x03ffu);
    if (xnan || ynan) return 0x7e00u;
    if (x == y || ((x | y) & 0x7fffu) == 0) ret = x;              /* equal (incl. +0 == -0) */
    else if ((x & 0x7fffu) == 0) ret = (uint16_t)((y & 0x8000u) + 1);
    else if (!(x & 0x8000u)) ret = ((int16_t)x > (int16_t)y) ? (uint16_t)(x - 1) : (uint16_t)(x + 1);
    else ret = (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) ? (uint16_t)(x - 1) : (uint16_t)(x + 1);
    if ((ret & 0x7fffu) == 0x7c00u && (x & 0x7c00u) != 0x7c00u) *e |= TL_FPE_OVERFLOW;
    return ret;
}

TL_HD uint16_t tl_nextafter_bf16(uint16_t x, uint16_t y, unsigned *e)
{
    if (((x & 0x7fffu) > 0x7f80u) || ((y & 0x7fffu) > 0x7f80u)) {
        /* a signalling NaN: invalid, as ml_dtypes' float32 comparisons */
        if (((x & 0x7fffu) > 0x7f80u && !(x & 0x0040u))
            || ((y & 0x7fffu) > 0x7f80u && !(y & 0x0040u))) *e |= TL_FPE_INVALID;
        return 0x7fc0u;
    }
    if (x == y || ((x | y) & 0x7fffu) == 0) return y;
    if ((x & 0x7fffu) == 0) return (uint16_t)((y & 0x8000u) | 1u);
    {
        int x_neg = (x & 0x8000u) != 0;
        float fx = tl_bf16_to_f32(x), fy = tl_bf16_to_f32(y);
        /* magnitude grows when moving away from zero */
        int away = x_neg ? (fy < fx) : (fy > fx);
        return away ? (uint16_t)(x + 1) : (uint16_t)(x - 1);
    }
}


/* ==== unary ops ===============================================================================
 * tl_<op>_<sfx>(x, &fpe) -> result; frexp/modf write their second output through a pointer.
 * float16/bfloat16 use the f32 functions (converted by the loop), except spacing, which works
 * on their bits as NumPy's npy_half_spacing and ml_dtypes' Spacing do. */
#define TL_UN_INT_COMMON(S, T, UT)                                                               \
TL_HD T tl_positive_##S(T x, unsigned *e) { (void)e; return x; }                                 \
TL_HD T tl_square_##S(T x, unsigned *e) { (void)e; return (T)((UT)x * (UT)x); }                  \
TL_HD T tl_floor_##S(T x, unsigned *e) { (void)e; return x; }                                    \
TL_HD T tl_ceil_##S(T x, unsigned *e) { (void)e; return x; }                                     \
TL_HD T tl_trunc_##S(T x, unsigned *e) { (void)e; return x; }                                    \
TL_HD T tl_conjugate_##S(T x, unsigned *e) { (void)e; return x; }                                \
TL_HD T tl_invert_##S(T x, unsigned *e) { (void)e; return (T)~x; }                               \
TL_HD T tl_negative_##S(T x, unsigned *e) { (void)e; return (T)((UT)0 - (UT)x); }                \
TL_HD tl_bool tl_logical_not_##S(T x, unsigned *e) { (void)e; return !x; }                       \
TL_HD tl_bool tl_isnan_##S(T x, unsigned *e) { (void)e; (void)x; return 0; }                     \
TL_HD tl_bool tl_isinf_##S(T x, unsigned *e) { (void)e; (void)x; return 0; }                     \
TL_HD tl_bool tl_isfinite_##S(T x, unsigned *e) { (void)e; (void)x; return 1; }
/* bits set in the magnitude (NumPy's and JAX's bitwise_count), portable popcount */
TL_HD uint8_t tl_popcount64(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint8_t)((v * 0x0101010101010101ull) >> 56);
}
/* in the operand's own width (byte/word lanes: gcc vectorizes these; the 64-bit one widened an
 * int8 to 8 bytes per lane and ran at 1/8-1/14 of NumPy's speed) */
TL_HD uint8_t tl_popcount8(uint8_t v)
{
    v = (uint8_t)(v - ((v >> 1) & 0x55u));
    v = (uint8_t)((v & 0x33u) + ((v >> 2) & 0x33u));
    return (uint8_t)((v + (v >> 4)) & 0x0fu);
}
TL_HD uint8_t tl_popcount16(uint16_t v)
{
    v = (uint16_t)(v - ((v >> 1) & 0x5555u));
    v = (uint16_t)((v & 0x3333u) + ((v >> 2) & 0x3333u));
    v = (uint16_t)((v + (v >> 4)) & 0x0f0fu);
    return (uint8_t)((v + (v >> 8)) & 0x1fu);
}
TL_HD uint8_t tl_popcount32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0f0f0f0fu;
    return (uint8_t)((v * 0x01010101u) >> 24);
}
#define TL_POPCOUNT(UT, v) (sizeof(UT) == 1 ? tl_popcount8((uint8_t)(v))                        \
                            : sizeof(UT) == 2 ? tl_popcount16((uint16_t)(v))                     \
                            : sizeof(UT) == 4 ? tl_popcount32((uint32_t)(v))                     \
                            : tl_popcount64((uint64_t)(v)))
/* |x| of a signed int of up to 32 bits, wrapping at its minimum: gcc vectorizes its own llabs of
 * the widened value as vpabsb/w/d, the plain conditional negation as a subtract and a blend
 * (absolute int32: 1.2-1.4x NumPy's time) */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#define TL_IABS_NARROW(T, x) ((T)__builtin_llabs((long long)(x)))
#else
#define TL_IABS_NARROW(T, x) ((T)((x) < 0 ? -(long long)(x) : (long long)(x)))
#endif
#define TL_UN_SINT(S, T, UT)                                                                     \
TL_UN_INT_COMMON(S, T, UT)                                                                       \
TL_HD uint8_t tl_bitwise_count_##S(T x, unsigned *e)                                             \
{ (void)e; return TL_POPCOUNT(UT, x < 0 ? (UT)((UT)0 - (UT)x) : (UT)x); }                        \
TL_HD T tl_absolute_##S(T x, unsigned *e)                                                        \
{ (void)e; return sizeof(T) < 8 ? TL_IABS_NARROW(T, x) : x < 0 ? (T)((UT)0 - (UT)x) : x; }      \
TL_HD T tl_sign_##S(T x, unsigned *e) { (void)e; return (T)((T)(x > 0) - (T)(x < 0)); }        \
TL_HD tl_bool tl_signbit_##S(T x, unsigned *e) { (void)e; return x < 0; }
#define TL_UN_UINT(S, T)                                                                         \
TL_UN_INT_COMMON(S, T, T)                                                                        \
TL_HD uint8_t tl_bitwise_count_##S(T x, unsigned *e) { (void)e; return TL_POPCOUNT(T, x); }    \
TL_HD T tl_absolute_##S(T x, unsigned *e) { (void)e; return x; }                                 \
TL_HD T tl_sign_##S(T x, unsigned *e) { (void)e; return (T)(x > 0); }                            \
TL_HD tl_bool tl_signbit_##S(T x, unsigned *e) { (void)e; (void)x; return 0; }
TL_UN_SINT(i8, int8_t, uint8_t)
TL_UN_SINT(i16, int16_t, uint16_t)
TL_UN_SINT(i32, int32_t, uint32_t)
TL_UN_SINT(i64, int64_t, uint64_t)
TL_UN_UINT(u8, uint8_t)
TL_UN_UINT(u16, uint16_t)
TL_UN_UINT(u32, uint32_t)
TL_UN_UINT(u64, uint64_t)

TL_HD tl_bool tl_positive_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_absolute_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_floor_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_ceil_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_trunc_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_conjugate_b(tl_bool x, unsigned *e) { (void)e; return x; }
TL_HD tl_bool tl_invert_b(tl_bool x, unsigned *e) { (void)e; return !x; }
TL_HD tl_bool tl_logical_not_b(tl_bool x, unsigned *e) { (void)e; return !x; }
TL_HD tl_bool tl_isnan_b(tl_bool x, unsigned *e) { (void)e; (void)x; return 0; }
TL_HD tl_bool tl_isinf_b(tl_bool x, unsigned *e) { (void)e; (void)x; return 0; }
TL_HD tl_bool tl_isfinite_b(tl_bool x, unsigned *e) { (void)e; (void)x; return 1; }
TL_HD tl_bool tl_signbit_b(tl_bool x, unsigned *e) { (void)e; (void)x; return 0; }
TL_HD uint8_t tl_bitwise_count_b(tl_bool x, unsigned *e) { (void)e; return x; }

/* r, or for a domain error (r NaN, x not NaN) where TL_DOMAIN_NAN_ON the CPU's default NaN, as
 * 0/0 (inf - inf) makes it (-NaN on x86), where glibc's log10, asin and acos return +NaN. The
 * host loops set TL_DOMAIN_NAN_ON to follow NumPy's loops (tl_loops_host.h). */
#ifndef TL_DOMAIN_NAN_ON
#define TL_DOMAIN_NAN_ON 1
#endif
#define TL_DOMAIN_NAN(r, x) \
    (TL_DOMAIN_NAN_ON && (r) != (r) && (x) == (x) ? ((x) - (x)) / ((x) - (x)) : (r))

/* F: C type, M: libm suffix, B: bits type, PI180/D180PI: NumPy's DEG2RAD/RAD2DEG constants
 * (computed in F, as npy_math's (NPY_PI@c@/180.0@c@)). */
#define TL_UN_FLOAT(S, F, M, B, TOBITS, FROMBITS, INFBITS, PI)                                   \
TL_HD F tl_sqrt_##S(F x, unsigned *e) { (void)e; return sqrt##M(x); }                            \
TL_HD F tl_cbrt_##S(F x, unsigned *e) { (void)e; return cbrt##M(x); }                            \
TL_HD F tl_exp_##S(F x, unsigned *e) { (void)e; return exp##M(x); }                              \
TL_HD F tl_exp2_##S(F x, unsigned *e) { (void)e; return exp2##M(x); }                            \
TL_HD F tl_expm1_##S(F x, unsigned *e) { (void)e; return expm1##M(x); }                          \
TL_HD F tl_log_##S(F x, unsigned *e) { (void)e; return log##M(x); }                              \
TL_HD F tl_log2_##S(F x, unsigned *e) { (void)e; return log2##M(x); }                            \
TL_HD F tl_log10_##S(F x, unsigned *e) { F r = log10##M(x); (void)e; return TL_DOMAIN_NAN(r, x); } \
TL_HD F tl_log1p_##S(F x, unsigned *e) { (void)e; return log1p##M(x); }                          \
TL_HD F tl_sin_##S(F x, unsigned *e) { (void)e; return sin##M(x); }                              \
TL_HD F tl_cos_##S(F x, unsigned *e) { (void)e; return cos##M(x); }                              \
TL_HD F tl_tan_##S(F x, unsigned *e) { (void)e; return tan##M(x); }                              \
TL_HD F tl_arcsin_##S(F x, unsigned *e) { F r = asin##M(x); (void)e; return TL_DOMAIN_NAN(r, x); } \
TL_HD F tl_arccos_##S(F x, unsigned *e) { F r = acos##M(x); (void)e; return TL_DOMAIN_NAN(r, x); } \
TL_HD F tl_arctan_##S(F x, unsigned *e) { (void)e; return atan##M(x); }                          \
TL_HD F tl_sinh_##S(F x, unsigned *e) { (void)e; return sinh##M(x); }                            \
TL_HD F tl_cosh_##S(F x, unsigned *e) { (void)e; return cosh##M(x); }                            \
TL_HD F tl_tanh_##S(F x, unsigned *e) { (void)e; return tanh##M(x); }                            \
TL_HD F tl_arcsinh_##S(F x, unsigned *e) { (void)e; return asinh##M(x); }                        \
TL_HD F tl_arccosh_##S(F x, unsigned *e) { (void)e; return acosh##M(x); }                        \
TL_HD F tl_arctanh_##S(F x, unsigned *e) { (void)e; return atanh##M(x); }                        \
TL_HD F tl_deg2rad_##S(F x, unsigned *e) { const F k = (F)PI / (F)180; (void)e; return x * k; } \
TL_HD F tl_rad2deg_##S(F x, unsigned *e) { const F k = (F)180 / (F)PI; (void)e; return x * k; } \
TL_HD F tl_reciprocal_##S(F x, unsigned *e) { (void)e; return (F)1 / x; }                        \
TL_HD F tl_fabs_##S(F x, unsigned *e) { (void)e; return fabs##M(x); }                            \
TL_HD F tl_absolute_##S(F x, unsigned *e) { (void)e; return fabs##M(x); }                        \
TL_HD F tl_negative_##S(F x, unsigned *e) { (void)e; return -x; }                                \
TL_HD F tl_positive_##S(F x, unsigned *e) { (void)e; return x; }                                 \
TL_HD F tl_conjugate_##S(F x, unsigned *e) { (void)e; return x; }                                \
/* NumPy: x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x)), quietly (no flag for NaN) */               \
TL_HD F tl_sign_##S(F x, unsigned *e)                                                            \
{ (void)e; return tl_qgt_##S(x, (F)0) ? (F)1 : (tl_qlt_##S(x, (F)0) ? (F)-1 : (x == x ? (F)0 : x)); } \
/* ml_dtypes' bfloat16 Sign: zeros (incl. -0) and NaN are returned as they are */               \
TL_HD F tl_sign_bf_##S(F x, unsigned *e)                                                         \
{ (void)e; return tl_qgt_##S(x, (F)0) ? (F)1 : (tl_qlt_##S(x, (F)0) ? (F)-1 : x); }              \
TL_HD F tl_square_##S(F x, unsigned *e) { (void)e; return x * x; }                               \
TL_HD F tl_floor_##S(F x, unsigned *e) { (void)e; return floor##M(x); }                          \
TL_HD F tl_ceil_##S(F x, unsigned *e) { (void)e; return ceil##M(x); }                            \
TL_HD F tl_trunc_##S(F x, unsigned *e) { (void)e; return trunc##M(x); }                          \
TL_HD F tl_rint_##S(F x, unsigned *e) { (void)e; return rint##M(x); }                            \
TL_HD tl_bool tl_logical_not_##S(F x, unsigned *e) { (void)e; return !x; }                       \
TL_HD tl_bool tl_isnan_##S(F x, unsigned *e) { (void)e; return x != x; }                         \
TL_HD tl_bool tl_isinf_##S(F x, unsigned *e) { (void)e; return (TOBITS(x) << 1) == ((B)(INFBITS) << 1); } \
TL_HD tl_bool tl_isfinite_##S(F x, unsigned *e) { (void)e; return (TOBITS(x) << 1) < ((B)(INFBITS) << 1); } \
TL_HD tl_bool tl_signbit_##S(F x, unsigned *e) { (void)e; return (TOBITS(x) >> (sizeof(B) * 8 - 1)) != 0; } \
/* npy_spacing: NaN for inf, the smallest subnormal for +-0, else the step away from zero       \
 * (overflow flag at the largest finite value) */                                                \
TL_HD F tl_spacing_##S(F x, unsigned *e)                                                         \
{                                                                                                \
    B b = TOBITS(x), mag = (B)(b << 1) >> 1;                                                     \
    F nx;                                                                                        \
    if (mag > (B)(INFBITS)) return x;                                                            \
    if (mag == (B)(INFBITS)) return FROMBITS((B)(INFBITS) | ((B)(INFBITS) >> 1));                \
    if (mag == 0) return FROMBITS((B)1);                                                         \
    if (mag + 1 == (B)(INFBITS)) *e |= TL_FPE_OVERFLOW;                                          \
    nx = FROMBITS((B)(b + 1));                                                                   \
    return nx - x;                                                                               \
}                                                                                                \
TL_HD F tl_modf_##S(F x, F *ip, unsigned *e) { (void)e; return modf##M(x, ip); }

TL_UN_FLOAT(f32, float, f, uint32_t, tl_f32_bits, tl_bits_f32, 0x7f800000u, 3.14159265358979323846f)
TL_UN_FLOAT(f64, double, , uint64_t, tl_f64_bits, tl_bits_f64, 0x7ff0000000000000ull, 3.14159265358979323846)
/* frexp on the bits, without branches (gcc vectorizes it; libm's frexp per element ran at 1/8 of
 * NumPy's speed): libm's mantissas and exponents. Subnormals are scaled by 2^SHIFT first (exact:
 * the product is normal); zero, inf and NaN are returned as x + x with exponent 0, as glibc's
 * (a signalling NaN quieted, raising invalid: NumPy's loop everywhere but its AVX512_SKX one,
 * which raises nothing for contiguous data). MB: fraction bits, BIAS: exponent bias. */
#define TL_FREXP(S, F, B, TOBITS, FROMBITS, MB, BIAS, SHIFT, SCALE)                              \
TL_HD F tl_frexp_##S(F x, int32_t *ex, unsigned *e)                                              \
{                                                                                                \
    const B sign = (B)1 << (sizeof(B) * 8 - 1), frac = ((B)1 << MB) - 1;                         \
    B mag = TOBITS(x) & ~sign, fe = mag >> MB, by;                                               \
    int sub = fe == 0, special = mag == 0 || fe == (sign >> MB) - 1;                             \
    /* the arithmetic runs on every lane, on zeros outside its own: no flag from other lanes */  \
    F ys = (sub ? x : (F)0) * (SCALE), xs = special ? x : (F)0;                                  \
    int32_t k;                                                                                   \
    (void)e;                                                                                     \
    by = TOBITS(sub ? ys : x);                                                                   \
    k = (int32_t)((by & ~sign) >> MB) - (BIAS - 1) - (sub ? (SHIFT) : 0);                        \
    *ex = special ? 0 : k;                                                                       \
    return special ? xs + xs : FROMBITS((by & (sign | frac)) | ((B)(BIAS - 1) << MB));           \
}
TL_FREXP(f32, float, uint32_t, tl_f32_bits, tl_bits_f32, 23, 127, 25, 33554432.0f)
/* float16/bfloat16 frexp: NumPy's and ml_dtypes' loops call libm's (a signalling NaN raises
 * invalid) */
TL_HD float tl_frexp_h_f32(float x, int32_t *ex, unsigned *e) { int k = 0; float m = frexpf(x, &k); (void)e; *ex = k; return m; }
TL_FREXP(f64, double, uint64_t, tl_f64_bits, tl_bits_f64, 52, 1023, 54, 18014398509481984.0)

/* npy_half_spacing (always positive; overflow at the largest finite value) */
TL_HD uint16_t tl_spacing_f16(uint16_t h, unsigned *e)
{
    uint16_t h_exp = h & 0x7c00u, h_sig = h & 0x03ffu;
    if (h_exp == 0x7c00u) { *e |= TL_FPE_INVALID; return 0x7e00u; }
    if (h == 0x7bffu) { *e |= TL_FPE_OVERFLOW; return 0x7c00u; }
    if ((h & 0x8000u) && h_sig == 0) {
        if (h_exp > 0x2c00u) return (uint16_t)(h_exp - 0x2c00u);
        if (h_exp > 0x0400u) return (uint16_t)(1u << ((h_exp >> 10) - 2));
        return 0x0001u;
    }
    if (h_exp > 0x2800u) return (uint16_t)(h_exp - 0x2800u);
    if (h_exp > 0x0400u) return (uint16_t)(1u << ((h_exp >> 10) - 1));
    return 0x0001u;
}

/* sign-bit ops and classification on the storage bits of float16 (as NumPy's HALF_ loops) and
 * bfloat16 (the same values as ml_dtypes', NaN payloads aside) */
#define TL_UN_BITS16(S, INF)                                                                     \
TL_HD uint16_t tl_negative_##S(uint16_t x, unsigned *e) { (void)e; return (uint16_t)(x ^ 0x8000u); } \
TL_HD uint16_t tl_absolute_##S(uint16_t x, unsigned *e) { (void)e; return (uint16_t)(x & 0x7fffu); } \
TL_HD uint16_t tl_fabs_##S(uint16_t x, unsigned *e) { (void)e; return (uint16_t)(x & 0x7fffu); }     \
TL_HD uint16_t tl_positive_##S(uint16_t x, unsigned *e) { (void)e; return x; }                   \
TL_HD uint16_t tl_conjugate_##S(uint16_t x, unsigned *e) { (void)e; return x; }                  \
TL_HD tl_bool tl_isnan_##S(uint16_t x, unsigned *e) { (void)e; return (x & 0x7fffu) > (INF); }   \
TL_HD tl_bool tl_isinf_##S(uint16_t x, unsigned *e) { (void)e; return (x & 0x7fffu) == (INF); }  \
TL_HD tl_bool tl_isfinite_##S(uint16_t x, unsigned *e) { (void)e; return (x & 0x7fffu) < (INF); } \
TL_HD tl_bool tl_signbit_##S(uint16_t x, unsigned *e) { (void)e; return (x >> 15) != 0; }        \
TL_HD tl_bool tl_logical_not_##S(uint16_t x, unsigned *e) { (void)e; return (x & 0x7fffu) == 0; }
TL_UN_BITS16(f16, 0x7c00u)
TL_UN_BITS16(bf16, 0x7f80u)

/* ml_dtypes' Spacing: NaN for inf, else nextafter(x, copysign(inf, x)) - x in float32, rounded */
TL_HD uint16_t tl_spacing_bf16(uint16_t x, unsigned *e)
{
    uint16_t nx;
    if ((x & 0x7fffu) == 0x7f80u) return 0x7fc0u;
    nx = tl_nextafter_bf16(x, (uint16_t)((x & 0x8000u) | 0x7f80u), e);
    return tl_f32_to_bf16(tl_bf16_to_f32(nx) - tl_bf16_to_f32(x), e);
}

/* ==== complex ================================================================================ */
/* a**b for general exponents: the C library's cpow on the host (what NumPy calls), exp(b log a)
 * elsewhere (CUDA, C++) */
#if !defined(__CUDACC__) && !defined(__cplusplus)
#include <complex.h>
/* the C complex re + im i (C11's CMPLX): `re + I * im` is not it when im is infinite or NaN,
 * I * inf having a NaN real part (0 * inf) */
static inline double _Complex tl_cmplx(double re, double im)
{ union { double _Complex z; double p[2]; } u; u.p[0] = re; u.p[1] = im; return u.z; }
static inline float _Complex tl_cmplxf(float re, float im)
{ union { float _Complex z; float p[2]; } u; u.p[0] = re; u.p[1] = im; return u.z; }
#define TL_CPOW_GENERAL(S, C, F, M)                                                              \
TL_HD C tl_cpow_general_##S(C a, C b)                                                            \
{                                                                                                \
    F _Complex r = cpow##M(tl_cmplx##M(a.re, a.im), tl_cmplx##M(b.re, b.im));                    \
    C z; z.re = creal##M(r); z.im = cimag##M(r); return z;                                       \
}
#else
#define TL_CPOW_GENERAL(S, C, F, M)                                                              \
TL_HD C tl_cpow_general_##S(C a, C b)                                                            \
{                                                                                                \
    F lr = log##M(hypot##M(a.re, a.im)), li = atan2##M(a.im, a.re);                              \
    F xr = b.re * lr - b.im * li, xi = b.re * li + b.im * lr;                                    \
    F m = exp##M(xr);                                                                            \
    C z; z.re = m * cos##M(xi); z.im = m * sin##M(xi); return z;                                 \
}
#endif

#define TL_COMPLEX(S, C, F, M, FS)                                                               \
TL_CPOW_GENERAL(S, C, F, M)                                                                      \
TL_HD C tl_mk_##S(F re, F im) { C r; r.re = re; r.im = im; return r; }                           \
TL_HD C tl_add_##S(C a, C b, unsigned *e) { (void)e; return tl_mk_##S(a.re + b.re, a.im + b.im); } \
TL_HD C tl_subtract_##S(C a, C b, unsigned *e) { (void)e; return tl_mk_##S(a.re - b.re, a.im - b.im); } \
/* as NumPy's SIMD loop (fmaddsub): re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br) */      \
TL_HD C tl_multiply_##S(C a, C b, unsigned *e)                                                   \
{ (void)e; return tl_mk_##S(fma##M(a.re, b.re, -(a.im * b.im)), fma##M(a.re, b.im, a.im * b.re)); } \
TL_HD C tl_divide_##S(C a, C b, unsigned *e)                                                     \
{                                                                                                \
    F br_abs = fabs##M(b.re), bi_abs = fabs##M(b.im); (void)e;                                   \
    if (br_abs >= bi_abs) {                                                                      \
        if (br_abs == 0 && bi_abs == 0) return tl_mk_##S(a.re / br_abs, a.im / br_abs);         \
        else {                                                                                   \
            F rat = b.im / b.re, scl = (F)1.0 / (b.re + b.im * rat);                             \
            return tl_mk_##S((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);              \
        }                                                                                        \
    } else {                                                                                     \
        F rat = b.re / b.im, scl = (F)1.0 / (b.im + b.re * rat);                                 \
        return tl_mk_##S((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);                  \
    }                                                                                            \
}                                                                                                \
/* npy_cpow's own multiplication (no FMA) */                                                     \
TL_HD C tl_cmul_##S(C a, C b) { return tl_mk_##S(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
/* npy_cpow: small integer exponents by repeated multiplication, else exp(b * log(a)) */          \
TL_HD C tl_power_##S(C a, C b, unsigned *e)                                                      \
{                                                                                                \
    F ar = a.re, ai = a.im, br = b.re, bi = b.im;                                                \
    int64_t n;                                                                                   \
    if (br == 0 && bi == 0) return tl_mk_##S(1, 0);                                              \
    if (ar == 0 && ai == 0) {                                                                    \
        if (br > 0) return tl_mk_##S(0, 0);                                                      \
        *e |= TL_FPE_INVALID;                                                                    \
        return tl_mk_##S(NAN, NAN);                                                              \
    }                                                                                            \
    if (bi == 0 && br >= -1e9 && br <= 1e9 && (F)(n = (int64_t)br) == br) {                      \
        if (n == 1) return a;                                                                    \
        if (n == 2) return tl_cmul_##S(a, a);                                                    \
        if (n == 3) return tl_cmul_##S(a, tl_cmul_##S(a, a));                                    \
        if (n > -100 && n < 100) {                                                               \
            C p = a, aa = tl_mk_##S(1, 0);                                                       \
            int64_t mask = 1;                                                                    \
            if (n < 0) n = -n;                                                                   \
            for (;;) {                                                                           \
                if (n & mask) aa = tl_cmul_##S(aa, p);                                           \
                mask <<= 1;                                                                      \
                if (n < mask || mask <= 0) break;                                                \
                p = tl_cmul_##S(p, p);                                                           \
            }                                                                                    \
            if (br < 0) aa = tl_divide_##S(tl_mk_##S(1, 0), aa, e);                              \
            return aa;                                                                           \
        }                                                                                        \
    }                                                                                            \
    return tl_cpow_general_##S(a, b);                                                            \
}                                                                                                \
TL_HD C tl_float_power_##S(C a, C b, unsigned *e) { return tl_power_##S(a, b, e); }              \
/* ordered (signalling) comparisons, as NumPy's complex loops: NaN warns 'invalid' */         \
TL_HD int tl_cge_##S(C x, C y)                                                                   \
{ return (x.re > y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im >= y.im); }     \
TL_HD int tl_cle_##S(C x, C y)                                                                   \
{ return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im <= y.im); }     \
TL_HD int tl_cgt_##S(C x, C y)                                                                   \
{ return (x.re > y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im > y.im); }      \
TL_HD int tl_clt_##S(C x, C y)                                                                   \
{ return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im < y.im); }      \
TL_HD C tl_maximum_##S(C a, C b, unsigned *e)                                                    \
{ (void)e; return (tl_cge_##S(a, b) || a.re != a.re || a.im != a.im) ? a : b; }                 \
TL_HD C tl_minimum_##S(C a, C b, unsigned *e)                                                    \
{ (void)e; return (tl_cle_##S(a, b) || a.re != a.re || a.im != a.im) ? a : b; }                 \
TL_HD C tl_fmax_##S(C a, C b, unsigned *e)                                                       \
{ (void)e; return (tl_cge_##S(a, b) || b.re != b.re || b.im != b.im) ? a : b; }                 \
TL_HD C tl_fmin_##S(C a, C b, unsigned *e)                                                       \
{ (void)e; return (tl_cle_##S(a, b) || b.re != b.re || b.im != b.im) ? a : b; }                 \
TL_HD tl_bool tl_logical_and_##S(C a, C b, unsigned *e)                                          \
{ (void)e; return (a.re || a.im) && (b.re || b.im); }                                            \
TL_HD tl_bool tl_logical_or_##S(C a, C b, unsigned *e)                                           \
{ (void)e; return (a.re || a.im) || (b.re || b.im); }                                            \
TL_HD tl_bool tl_logical_xor_##S(C a, C b, unsigned *e)                                          \
{ (void)e; return (!(a.re || a.im)) != (!(b.re || b.im)); }                                      \
TL_HD tl_bool tl_equal_##S(C a, C b, unsigned *e) { (void)e; return a.re == b.re && a.im == b.im; } \
TL_HD tl_bool tl_not_equal_##S(C a, C b, unsigned *e) { (void)e; return a.re != b.re || a.im != b.im; } \
/* The comparisons as tl_clt... above, branch-free so that loops vectorize (the short-circuit   \
 * forms ran 1.3-1.9x NumPy's time): the real parts' signalling compare runs always, as there;   \
 * the imaginary parts' result counts where the real parts are equal, from a quiet compare plus  \
 * the 'invalid' the signalling one raises there for a NaN. */                                   \
TL_CCMP(S, C, FS, less, <, tl_qlt_##FS)                                                          \
TL_CCMP(S, C, FS, less_equal, <, tl_qle_##FS)                                                    \
TL_CCMP(S, C, FS, greater, >, tl_qgt_##FS)                                                       \
TL_CCMP(S, C, FS, greater_equal, >, tl_qge_##FS)

#define TL_CCMP(S, C, FS, NAME, OPR, QIM)                                                        \
TL_HD tl_bool tl_##NAME##_##S(C a, C b, unsigned *e)                                            \
{                                                                                                \
    int r = a.re OPR b.re, eq = a.re == b.re, nim = (a.im != a.im) | (b.im != b.im);             \
    *e |= (unsigned)(eq & nim) * TL_FPE_INVALID;                                                 \
    return (tl_bool)((r & !nim) | (eq & QIM(a.im, b.im)));                                       \
}
TL_COMPLEX(c64, tl_c64, float, f, f32)
TL_COMPLEX(c128, tl_c128, double, , f64)

/* ==== complex arctan2, logaddexp, logaddexp2 ====================================================
 * NumPy has no complex loop for these; JAX computes them by these definitions (XLA's atan2,
 * jnp.logaddexp/logaddexp2), with m = maximum(a, b) (lexicographic) and the imaginary part
 * wrapped into [-w, w) as fmod does:
 *   arctan2(y, x) = -i log((x + i y) / sqrt(x x + y y))
 *   logaddexp(a, b) = m + log1p(exp(a + b - 2m)), w = pi
 *   logaddexp2(a, b) = m + log1p(exp2(a + b - 2m)) / ln 2, w = pi / ln 2
 * Written with real libm functions only (no complex.h), so that the CPU loops and the CUDA
 * kernels run this same code. log1p takes log1p(2 re + re^2 + im^2) / 2 for its real part near
 * 0, where 1 + z would round the argument away (logaddexp of far-apart operands). m is
 * maximum's. Every compare is quiet: a NaN operand gives NaN without 'invalid', as the NumPy
 * ufuncs that JAX's definition composes do. */
#define TL_COMPLEX_JAX(S, C, F, M, FS, PI, LN2)                                                 \
TL_HD C tl_jmax_##S(C a, C b)                                                                    \
{                                                                                                \
    int ge = tl_qgt_##FS(a.re, b.re) || (a.re == b.re && tl_qge_##FS(a.im, b.im));               \
    return (ge || a.re != a.re || a.im != a.im) ? a : b;                                         \
}                                                                                                \
TL_HD C tl_jlog_##S(C z) { return tl_mk_##S(log##M(hypot##M(z.re, z.im)), atan2##M(z.im, z.re)); } \
TL_HD C tl_jexp_##S(C z)                                                                         \
{                                                                                                \
    F m;                                                                                         \
    if (isfinite(z.re) && !isfinite(z.im)) {    /* C99's cexp: NaN + NaN i, 'invalid' */         \
        volatile F inf_ = (F)INFINITY;                                                           \
        F nan_ = inf_ - inf_;                                                                    \
        return tl_mk_##S(nan_, nan_);                                                            \
    }                                                                                            \
    m = exp##M(z.re);                                                                            \
    return z.im == 0 ? tl_mk_##S(m, z.im) : tl_mk_##S(m * cos##M(z.im), m * sin##M(z.im));       \
}                                                                                                \
TL_HD C tl_jsqrt_##S(C z)                                                                        \
{                                                                                                \
    F t;                                                                                         \
    if (z.re == 0 && z.im == 0) return tl_mk_##S((F)0, z.im);                                    \
    if (isinf(z.im)) return tl_mk_##S((F)INFINITY, z.im);                                        \
    t = sqrt##M((fabs##M(z.re) + hypot##M(z.re, z.im)) * (F)0.5);                                \
    if (tl_qge_##FS(z.re, (F)0)) return tl_mk_##S(t, z.im / (2 * t));                            \
    return tl_mk_##S(fabs##M(z.im) / (2 * t), copysign##M(t, z.im));                             \
}                                                                                                \
TL_HD C tl_jlog1p_##S(C z)                                                                       \
{                                                                                                \
    F re = tl_qlt_##FS(fabs##M(z.re), (F)0.5) && tl_qlt_##FS(fabs##M(z.im), (F)0.5)              \
        ? (F)0.5 * log1p##M(z.re * (2 + z.re) + z.im * z.im) : log##M(hypot##M(1 + z.re, z.im)); \
    return tl_mk_##S(re, atan2##M(z.im, 1 + z.re));                                              \
}                                                                                                \
TL_HD F tl_jwrap_##S(F x, F w)                                                                   \
{ F r = fmod##M(x + w, 2 * w); if (tl_qlt_##FS(r, (F)0)) r += 2 * w; return r - w; }             \
TL_HD C tl_arctan2_##S(C y, C x, unsigned *e)                                                    \
{                                                                                                \
    C s = tl_jsqrt_##S(tl_add_##S(tl_cmul_##S(x, x), tl_cmul_##S(y, y), e));                     \
    C l = tl_jlog_##S(tl_divide_##S(tl_mk_##S(x.re - y.im, x.im + y.re), s, e));                 \
    return tl_mk_##S(l.im, -l.re);                                                               \
}                                                                                                \
TL_HD C tl_logaddexp_##S(C a, C b, unsigned *e)                                                  \
{                                                                                                \
    C m = tl_jmax_##S(a, b);                                                                     \
    C l = tl_jlog1p_##S(tl_jexp_##S(tl_mk_##S((a.re + b.re) - 2 * m.re, (a.im + b.im) - 2 * m.im))); \
    return tl_mk_##S(m.re + l.re, tl_jwrap_##S(m.im + l.im, (F)(PI)));                           \
}                                                                                                \
TL_HD C tl_logaddexp2_##S(C a, C b, unsigned *e)                                                 \
{                                                                                                \
    const F ln2 = (F)(LN2);                                                                      \
    C m = tl_jmax_##S(a, b);                                                                     \
    C d = tl_mk_##S((a.re + b.re) - 2 * m.re, (a.im + b.im) - 2 * m.im);                         \
    C l = tl_jlog1p_##S(tl_jexp_##S(tl_mk_##S(d.re * ln2, d.im * ln2)));                         \
    return tl_mk_##S(m.re + l.re / ln2, tl_jwrap_##S(m.im + l.im / ln2, (F)(PI) / ln2));         \
}
TL_COMPLEX_JAX(c64, tl_c64, float, f, f32, 3.14159265358979323846, 0.693147180559945309417232121458176568)
TL_COMPLEX_JAX(c128, tl_c128, double, , f64, 3.14159265358979323846, 0.693147180559945309417232121458176568)


/* ==== unary complex ============================================================================
 * As NumPy's complex loops (loops.c.src, funcs.inc.src). The transcendental functions call the
 * C library's complex functions (what npy_cexp etc. call) on the host only. */
#define TL_UN_COMPLEX(S, C, F, M, FS)                                                            \
TL_HD C tl_negative_##S(C x, unsigned *e) { (void)e; return tl_mk_##S(-x.re, -x.im); }           \
TL_HD C tl_positive_##S(C x, unsigned *e) { (void)e; return x; }                                 \
TL_HD C tl_conjugate_##S(C x, unsigned *e) { (void)e; return tl_mk_##S(x.re, -x.im); }           \
/* NumPy's SIMD complex absolute (simd_cabsolute): larger * sqrt(fma(r, r, 1)) with              \
 * r = smaller / larger; inf wins over NaN; no 0/0 or inf/inf */                                \
TL_HD F tl_absolute_##S(C x, unsigned *e)                                                        \
{                                                                                                \
    F re = fabs##M(x.re), im = fabs##M(x.im), lg, sm, r;                                         \
    (void)e;                                                                                     \
    if (tl_isinf_##FS(re, e) || tl_isinf_##FS(im, e)) return (F)tl_bits_f32(0x7f800000u);         \
    if (re != re || im != im) return (F)NAN;                                                     \
    lg = re > im ? re : im;                                                                      \
    sm = re > im ? im : re;                                                                      \
    if (lg == 0) return lg;                                                                      \
    r = sm / lg;                                                                                 \
    return sqrt##M(fma##M(r, r, (F)1)) * lg;                                                     \
}                                                                                                \
TL_HD C tl_square_##S(C x, unsigned *e) { return tl_multiply_##S(x, x, e); }                     \
TL_HD C tl_rint_##S(C x, unsigned *e) { (void)e; return tl_mk_##S(rint##M(x.re), rint##M(x.im)); } \
TL_HD C tl_deg2rad_##S(C x, unsigned *e) { const F k = (F)3.14159265358979323846 / (F)180; (void)e; return tl_mk_##S(x.re * k, x.im * k); } \
TL_HD C tl_rad2deg_##S(C x, unsigned *e) { const F k = (F)180 / (F)3.14159265358979323846; (void)e; return tl_mk_##S(x.re * k, x.im * k); } \
TL_HD C tl_reciprocal_##S(C x, unsigned *e)                                                      \
{                                                                                                \
    (void)e;                                                                                     \
    if (fabs##M(x.im) <= fabs##M(x.re)) {                                                        \
        F r = x.im / x.re, d = x.re + x.im * r;                                                  \
        return tl_mk_##S((F)1 / d, -r / d);                                                      \
    } else {                                                                                     \
        F r = x.re / x.im, d = x.re * r + x.im;                                                  \
        return tl_mk_##S(r / d, (F)-1 / d);                                                      \
    }                                                                                            \
}                                                                                                \
TL_HD C tl_sign_##S(C x, unsigned *e)                                                            \
{                                                                                                \
    F a = hypot##M(x.re, x.im); (void)e;                                                         \
    if (a != a) return tl_mk_##S(NAN, NAN);                                                      \
    if (isinf(a)) {                                                                              \
        if (isinf(x.re)) {                                                                       \
            if (isinf(x.im)) return tl_mk_##S(NAN, NAN);                                         \
            return tl_mk_##S(x.re > 0 ? (F)1 : (F)-1, (F)0);                                     \
        }                                                                                        \
        return tl_mk_##S((F)0, x.im > 0 ? (F)1 : (F)-1);                                         \
    }                                                                                            \
    if (a == 0) return tl_mk_##S((F)0, (F)0);                                                    \
    return tl_mk_##S(x.re / a, x.im / a);                                                        \
}                                                                                                \
TL_HD tl_bool tl_logical_not_##S(C x, unsigned *e) { (void)e; return !(x.re || x.im); }          \
TL_HD tl_bool tl_isnan_##S(C x, unsigned *e) { (void)e; return x.re != x.re || x.im != x.im; }   \
/* quiet (bit tests): NumPy's isinf/isfinite never flag NaN as invalid */                      \
TL_HD tl_bool tl_isinf_##S(C x, unsigned *e) { return tl_isinf_##FS(x.re, e) || tl_isinf_##FS(x.im, e); } \
TL_HD tl_bool tl_isfinite_##S(C x, unsigned *e) { return tl_isfinite_##FS(x.re, e) && tl_isfinite_##FS(x.im, e); }
TL_UN_COMPLEX(c64, tl_c64, float, f, f32)
TL_UN_COMPLEX(c128, tl_c128, double, , f64)

#if !defined(__CUDACC__) && !defined(__cplusplus)
#define TL_UN_CLIB(S, C, F, M, OP, CFN)                                                          \
TL_HD C tl_##OP##_##S(C x, unsigned *e)                                                          \
{ F _Complex r = CFN##M(tl_cmplx##M(x.re, x.im)); (void)e; return tl_mk_##S(creal##M(r), cimag##M(r)); }
#define TL_UN_CLIB_ALL(S, C, F, M, LOGE2, LOG2E, LOG10E)                                         \
TL_UN_CLIB(S, C, F, M, sqrt, csqrt) TL_UN_CLIB(S, C, F, M, exp, cexp)                            \
TL_UN_CLIB(S, C, F, M, log, clog)                                                                \
TL_UN_CLIB(S, C, F, M, sin, csin) TL_UN_CLIB(S, C, F, M, cos, ccos)                              \
TL_UN_CLIB(S, C, F, M, tan, ctan) TL_UN_CLIB(S, C, F, M, arcsin, casin)                          \
TL_UN_CLIB(S, C, F, M, arccos, cacos) TL_UN_CLIB(S, C, F, M, arctan, catan)                      \
TL_UN_CLIB(S, C, F, M, sinh, csinh) TL_UN_CLIB(S, C, F, M, cosh, ccosh)                          \
TL_UN_CLIB(S, C, F, M, tanh, ctanh) TL_UN_CLIB(S, C, F, M, arcsinh, casinh)                      \
TL_UN_CLIB(S, C, F, M, arccosh, cacosh) TL_UN_CLIB(S, C, F, M, arctanh, catanh)                  \
/* funcs.inc.src: nc_exp2, nc_log2, nc_log10, nc_expm1, nc_log1p */                               \
TL_HD C tl_exp2_##S(C x, unsigned *e) { return tl_exp_##S(tl_mk_##S(x.re * (F)LOGE2, x.im * (F)LOGE2), e); } \
TL_HD C tl_log2_##S(C x, unsigned *e) { C r = tl_log_##S(x, e); return tl_mk_##S(r.re * (F)LOG2E, r.im * (F)LOG2E); } \
TL_HD C tl_log10_##S(C x, unsigned *e) { C r = tl_log_##S(x, e); return tl_mk_##S(r.re * (F)LOG10E, r.im * (F)LOG10E); } \
TL_HD C tl_expm1_##S(C x, unsigned *e)                                                           \
{ F a = sin##M(x.im / 2); (void)e; return tl_mk_##S(expm1##M(x.re) * cos##M(x.im) - 2 * a * a, exp##M(x.re) * sin##M(x.im)); } \
TL_HD C tl_log1p_##S(C x, unsigned *e)                                                           \
{ F l = hypot##M(x.re + 1, x.im); (void)e; return tl_mk_##S(log##M(l), atan2##M(x.im, x.re + 1)); }
TL_UN_CLIB_ALL(c64, tl_c64, float, f, 0.693147180559945309417232121458176568f, 1.442695040888963407359924681001892137f, 0.434294481903251827651128918916605082f)
TL_UN_CLIB_ALL(c128, tl_c128, double, , 0.693147180559945309417232121458176568, 1.442695040888963407359924681001892137, 0.434294481903251827651128918916605082)
#endif

#endif /* TYPELATTICE_TL_ELEM_H */
