/* Test helper for tests/test_convert_kernels.py: compiled together with
 * src/typelattice/kernels/tl_convert.c into a throw-away shared library. */
#include <fenv.h>
#include <stdint.h>
#include <string.h>
#include "tl_convert.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
/* csr != 0: MXCSR bits to set for the call: 0x8040 = DAZ+FTZ (what
 * -ffast-math's crtfastmath.o does to a whole process), 0x2000/0x4000/0x6000
 * = rounding down/up/toward zero (replacing the rounding bits).  Returns the
 * old MXCSR to restore. */
static unsigned mxcsr_enter(int csr)
{
    unsigned old = _mm_getcsr();
    if (csr)
        _mm_setcsr((old & ~0x6000u) | (unsigned)csr);
    return old;
}
static void mxcsr_leave(unsigned old) { _mm_setcsr(old); }
int tl_test_have_mxcsr(void) { return 1; }
#else
static unsigned mxcsr_enter(int csr) { (void)csr; return 0; }
static void mxcsr_leave(unsigned old) { (void)old; }
int tl_test_have_mxcsr(void) { return 0; }
#endif

typedef void (*tl_block_fn)(const void *, void *, ptrdiff_t);

static tl_block_fn pick(int which, size_t *isz)
{
    switch (which) {
    case 0: *isz = 2; return (tl_block_fn)tl_f16_to_f32;
    case 1: *isz = 2; return (tl_block_fn)tl_f16_to_f64;
    case 2: *isz = 4; return (tl_block_fn)tl_f32_to_f16;
    case 3: *isz = 8; return (tl_block_fn)tl_f64_to_f16;
    case 4: *isz = 2; return (tl_block_fn)tl_bf16_to_f32;
    case 5: *isz = 2; return (tl_block_fn)tl_bf16_to_f64;
    case 6: *isz = 4; return (tl_block_fn)tl_f32_to_bf16;
    case 7: *isz = 8; return (tl_block_fn)tl_f64_to_bf16;
    }
    return 0;
}

/* NumPy's flag bits: divide=1, over=2, under=4, invalid=8. */
static uint8_t np_bits(int e)
{
    return (uint8_t)(((e & FE_DIVBYZERO) ? 1 : 0) | ((e & FE_OVERFLOW) ? 2 : 0)
                     | ((e & FE_UNDERFLOW) ? 4 : 0) | ((e & FE_INVALID) ? 8 : 0));
}

/* For each input element: convert a block of `rep` copies of it (rep=16
 * exercises only the vector bodies, other values also the tails) and record
 * the FP exception flags raised.  Returns -1 on a bad argument. */
int tl_test_flags(int which, const void *src, ptrdiff_t n, int rep, uint8_t *flags, int csr)
{
    size_t isz;
    tl_block_fn fn = pick(which, &isz);
    unsigned char in[64 * 8], out[64 * 8];
    if (!fn || rep < 1 || rep > 64)
        return -1;
    unsigned old = mxcsr_enter(csr);
    for (ptrdiff_t i = 0; i < n; i++) {
        for (int r = 0; r < rep; r++)
            memcpy(in + r * isz, (const char *)src + i * isz, isz);
        feclearexcept(FE_ALL_EXCEPT);
        fn(in, out, rep);
        flags[i] = np_bits(fetestexcept(FE_ALL_EXCEPT));
    }
    feclearexcept(FE_ALL_EXCEPT);
    mxcsr_leave(old);
    return 0;
}

/* One block conversion, optionally with other MXCSR bits (see above). */
int tl_test_convert(int which, const void *src, void *dst, ptrdiff_t n, int csr)
{
    size_t isz;
    tl_block_fn fn = pick(which, &isz);
    if (!fn)
        return -1;
    unsigned old = mxcsr_enter(csr);
    fn(src, dst, n);
    mxcsr_leave(old);
    feclearexcept(FE_ALL_EXCEPT);
    return 0;
}

/* Flags raised by one whole-block call. */
int tl_test_block_flags(int which, const void *src, void *dst, ptrdiff_t n)
{
    size_t isz;
    tl_block_fn fn = pick(which, &isz);
    if (!fn)
        return -1;
    feclearexcept(FE_ALL_EXCEPT);
    fn(src, dst, n);
    int r = np_bits(fetestexcept(FE_ALL_EXCEPT));
    feclearexcept(FE_ALL_EXCEPT);
    return r;
}
