/* typelattice optional multi-threading of large elementwise loop calls (kernels/tl_threads.c).
 *
 * Every strided loop is registered through tl_thr_wrap, which returns a thunk: with more than
 * one thread set and a 1-d call whose operands span at least tl_thr_get_min_bytes() bytes and
 * whose outputs do not feed back into its inputs, the call is cut into contiguous chunks run by
 * a persistent pthread pool (the calling thread runs the first). Chunks compute the same
 * elements as one call would, so results are bit-identical; FP flags of the workers are raised
 * in the calling thread; errors (tl_loop_error) are set by the calling thread after the join,
 * so no worker takes the GIL.
 */
#ifndef TYPELATTICE_TL_THREADS_H
#define TYPELATTICE_TL_THREADS_H

#include <Python.h>
#include "numpy/ndarraytypes.h"
#include "numpy/dtype_api.h"

/* the thunk to register instead of `loop` (the same thunk for the same loop); `loop` itself when
 * the thunks are used up (that loop then always runs single-threaded). quiet: a loop registered
 * with NPY_METH_NO_FLOATINGPOINT_ERRORS that computes in floats (maximum, copysign...): its thunk
 * clears the FP flags after it, as NumPy's own such loops do (max instructions and ordered
 * compares of a NaN raise 'invalid', which NumPy would report where a cast in the same call makes
 * it check the flags). quiet 1: a loop that clears them itself in a reduction's calls (float
 * max/min), where the per-row status test cost 20% (axis 1 of (2000, 50)); 2: every call; 3:
 * only 'invalid', every call (a quiet op's mixed loop converting an integer to float16, checked
 * by NumPy: the conversion's overflow is NumPy's cast's warning). */
PyArrayMethod_StridedLoop *tl_thr_wrap(PyArrayMethod_StridedLoop *loop, int nin, int nout,
                                       int quiet);
/* total threads (1: off); tl_thr_set returns -1 if n is out of range. Blocks until a running
 * threaded call ends: call it without the GIL. */
int tl_thr_set(int n);
int tl_thr_get(void);
#define TL_THR_MAX 256
/* smallest call that is split: bytes its operands span (elements x the sum of |strides|) */
void tl_thr_set_min_bytes(npy_intp n);
npy_intp tl_thr_get_min_bytes(void);
long tl_thr_calls(void);        /* calls split so far */

/* Set a Python error from a loop (returns -1): in the caller's thread through the GIL, or
 * recorded for the calling thread when running a chunk of a threaded call. */
int tl_loop_error(PyObject *type, const char *msg);

/* Does the output range overlap the input range other than element for element? (reductions
 * and accumulations feed the output back into an input: never blocked, never split) The last
 * element's extent is taken as the stride, at most 16 bytes (16 for a stride 0): exact for
 * contiguous operands, so an array ending next to another (an int8 view with stride 3 and a
 * fresh output) is not mistaken for feedback, which sent such calls down the element-by-element
 * path, and libmvec ops to the scalar function, depending on where malloc put the arrays. */
static inline npy_intp tl_extent(npy_intp s)
{
    npy_intp a = s < 0 ? -s : s;
    return a == 0 || a > 16 ? 16 : a;
}
static inline int tl_feedback(const char *in, npy_intp sin, const char *out, npy_intp sout,
                              npy_intp n)
{
    const char *ilo, *ihi, *olo, *ohi;
    if (n <= 1) return 0;
    if (in == out && sin == sout && sin != 0) return 0;   /* in place, element for element */
    ilo = sin >= 0 ? in : in + (n - 1) * sin;
    ihi = (sin >= 0 ? in + (n - 1) * sin : in) + tl_extent(sin);
    olo = sout >= 0 ? out : out + (n - 1) * sout;
    ohi = (sout >= 0 ? out + (n - 1) * sout : out) + tl_extent(sout);
    return ilo < ohi && olo < ihi;
}

/* Does out trail in (out at or behind in, in iteration order, and never gaining on it: out=a[:-2]
 * of a[2:], out=a[:n] of a[::2])? NumPy passes such operands without a copy; a loop that reads
 * a block of inputs before writing that block's outputs then computes what it would on a copy.
 * Accumulate's chain (in one element behind out) does not trail. */
static inline int tl_trails(const char *in, npy_intp sin, const char *out, npy_intp sout)
{
    if (sin > 0 && sout > 0) return out <= in && sout <= sin;
    if (sin < 0 && sout < 0) return out >= in && sout >= sin;
    return 0;
}

#endif
