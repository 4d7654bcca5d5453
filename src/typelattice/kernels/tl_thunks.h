/* A pool of loop thunks: NumPy's strided-loop signature carries no per-method data, so a
 * wrapper that must know which loop it wraps is one of N pre-made functions, each passing its
 * own index to a dispatcher (tl_threads.c, tl_weak.c).
 *
 * TL_THUNKS_256(M, p) / TL_THUNKS_4096(M) expand M(a, b, c) for the hex digits of every index
 * (p: the first digit of a block of 256). */
#ifndef TYPELATTICE_TL_THUNKS_H
#define TYPELATTICE_TL_THUNKS_H

#define TL_THUNKS_16(M, p, q) M(p, q, 0) M(p, q, 1) M(p, q, 2) M(p, q, 3) M(p, q, 4) M(p, q, 5)  \
    M(p, q, 6) M(p, q, 7) M(p, q, 8) M(p, q, 9) M(p, q, a) M(p, q, b) M(p, q, c) M(p, q, d)      \
    M(p, q, e) M(p, q, f)
#define TL_THUNKS_256(M, p) TL_THUNKS_16(M, p, 0) TL_THUNKS_16(M, p, 1) TL_THUNKS_16(M, p, 2)   \
    TL_THUNKS_16(M, p, 3) TL_THUNKS_16(M, p, 4) TL_THUNKS_16(M, p, 5) TL_THUNKS_16(M, p, 6)      \
    TL_THUNKS_16(M, p, 7) TL_THUNKS_16(M, p, 8) TL_THUNKS_16(M, p, 9) TL_THUNKS_16(M, p, a)      \
    TL_THUNKS_16(M, p, b) TL_THUNKS_16(M, p, c) TL_THUNKS_16(M, p, d) TL_THUNKS_16(M, p, e)      \
    TL_THUNKS_16(M, p, f)
#define TL_THUNKS_4096(M) TL_THUNKS_256(M, 0) TL_THUNKS_256(M, 1) TL_THUNKS_256(M, 2)            \
    TL_THUNKS_256(M, 3) TL_THUNKS_256(M, 4) TL_THUNKS_256(M, 5) TL_THUNKS_256(M, 6)              \
    TL_THUNKS_256(M, 7) TL_THUNKS_256(M, 8) TL_THUNKS_256(M, 9) TL_THUNKS_256(M, a)              \
    TL_THUNKS_256(M, b) TL_THUNKS_256(M, c) TL_THUNKS_256(M, d) TL_THUNKS_256(M, e)              \
    TL_THUNKS_256(M, f)

#endif
