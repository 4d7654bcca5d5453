/* typelattice loops for a Python float or complex operand (a weak type), kernels/tl_weak.c.
 *
 * In `float32_array * 2.5` the result is float32 and the scalar is converted to float32. NumPy
 * makes a 0-d float64 (complex128) array of the scalar; if the loop's descriptor for that operand
 * is not that array's own, it makes a second 0-d array of the loop's type and converts the
 * scalar into it, on every call (a fifth of a 1-element call). A weak loop takes the first
 * array as it is, converts the value itself exactly as NumPy converts a Python scalar into T
 * (with NumPy's "overflow encountered in cast" under np.errstate), and runs T's same-dtype loop
 * with the converted scalar. Targets: float16, bfloat16, float32, complex64, complex128 (from a
 * float). Python ints gain nothing: NumPy replaces their 0-d array in any case (its legacy type
 * resolvers need it), so they keep NumPy's conversion.
 */
#ifndef TYPELATTICE_TL_WEAK_H
#define TYPELATTICE_TL_WEAK_H

#include <Python.h>
#include "numpy/ndarraytypes.h"
#include "numpy/dtype_api.h"

/* target types, in the order of _ops.LOOP_TYPES (the loop table's type indices) */
enum {
    TL_WK_BOOL, TL_WK_U8, TL_WK_U16, TL_WK_U32, TL_WK_U64, TL_WK_I8, TL_WK_I16, TL_WK_I32,
    TL_WK_I64, TL_WK_BF16, TL_WK_F16, TL_WK_F32, TL_WK_F64, TL_WK_C64, TL_WK_C128
};

/* The weak loop running `loop` (T's same-dtype loop; nargs operands) with operand `side` a
 * Python float/complex converted to type `to`; NULL when the thunks are used up or `to` is not
 * a target. */
PyArrayMethod_StridedLoop *tl_weak_wrap(PyArrayMethod_StridedLoop *loop, int side, int to,
                                        int nargs);

/* A Python float re (complex: re, im) as target type `to` into out, as the weak loops convert
 * it (NumPy's setitem; ml_dtypes' cast for bfloat16), its FP errors reported under np.errstate:
 * 0, or -1 with an exception set. For callers holding the value itself (tl_fastcall.h). */
int tl_weak_scalar(int to, double re, double im, void *out);

/* Reports FP errors of a conversion under the caller's np.errstate, as NumPy names them
 * ("cast"): PyUFunc_GiveFloatingpointErrors, set by _ufuncs.pyx. Called with the GIL. */
typedef int (*tl_weak_fpe_cb_t)(int npy_fpe_flags);
extern tl_weak_fpe_cb_t tl_weak_fpe_cb;

#endif
