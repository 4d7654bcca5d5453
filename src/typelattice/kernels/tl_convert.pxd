# Cython declarations for tl_convert.h (float16/bfloat16 block conversions).
# Usage:  from typelattice.kernels.tl_convert cimport tl_f32_to_f16   (or cimport by path)
# Link tl_convert.c into the extension; see kernels/README.md.
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from libc.stddef cimport ptrdiff_t

cdef extern from "tl_convert.h" nogil:
    unsigned TL_FLAG_OVERFLOW
    unsigned TL_FLAG_UNDERFLOW
    unsigned TL_FLAG_INVALID

    # contiguous blocks (raise the FP flags NumPy/ml_dtypes would)
    void tl_f16_to_f32(const uint16_t *src, float *dst, ptrdiff_t n)
    void tl_f16_to_f64(const uint16_t *src, double *dst, ptrdiff_t n)
    void tl_f32_to_f16(const float *src, uint16_t *dst, ptrdiff_t n)
    void tl_f64_to_f16(const double *src, uint16_t *dst, ptrdiff_t n)
    void tl_bf16_to_f32(const uint16_t *src, float *dst, ptrdiff_t n)
    void tl_bf16_to_f64(const uint16_t *src, double *dst, ptrdiff_t n)
    void tl_f32_to_bf16(const float *src, uint16_t *dst, ptrdiff_t n)
    void tl_f64_to_bf16(const double *src, uint16_t *dst, ptrdiff_t n)

    # byte strides
    void tl_f16_to_f32_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_f16_to_f64_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_f32_to_f16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_f64_to_f16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_bf16_to_f32_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_bf16_to_f64_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_f32_to_bf16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)
    void tl_f64_to_bf16_strided(const char *src, ptrdiff_t ss, char *dst, ptrdiff_t ds, ptrdiff_t n)

    const char *tl_convert_isa()
    int tl_convert_set_isa(const char *name)

    # scalar inline functions on bit patterns (flags are OR-ed into *flags,
    # not raised)
    float tl_bits_to_f32(uint32_t u)
    uint32_t tl_f32_to_bits(float f)
    double tl_bits_to_f64(uint64_t u)
    uint64_t tl_f64_to_bits(double d)
    uint32_t tl_f16bits_to_f32bits(uint16_t h)
    uint64_t tl_f16bits_to_f64bits(uint16_t h)
    uint16_t tl_f32bits_to_f16bits(uint32_t f, unsigned *flags)
    uint16_t tl_f64bits_to_f16bits(uint64_t d, unsigned *flags)
    uint32_t tl_bf16bits_to_f32bits(uint16_t b)
    double tl_bf16bits_to_f64(uint16_t b)
    uint16_t tl_f32bits_to_bf16bits(uint32_t f, unsigned *flags)
    uint16_t tl_f64_to_bf16bits(double d, unsigned *flags)
