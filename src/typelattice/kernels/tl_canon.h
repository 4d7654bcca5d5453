/* typelattice loops for an operand its rule set canonicalizes, kernels/tl_canon.c.
 *
 * Under jax32 an int64 array is an int32 array (JAX with 64-bit off converts it on entry,
 * wrapping), so `int64_array + complex64_array` must compute on the wrapped values. NumPy would
 * cast the int64 array straight to the loop's complex64 and keep the bits int32 drops. A canon
 * loop takes the operand's own dtype, converts it as the rule set reads it: NumPy's cast to the
 * canonical type (the wrap), then the cast to the loop's compute type (NumPy's or ml_dtypes'),
 * and runs the compute type's loop on the converted blocks.
 */
#ifndef TYPELATTICE_TL_CANON_H
#define TYPELATTICE_TL_CANON_H

#include <Python.h>
#include "numpy/ndarraytypes.h"
#include "numpy/dtype_api.h"

/* a legacy cast function (ml_dtypes' PyArray_ArrFuncs.castdict): n contiguous, aligned items */
typedef void tl_canon_cast_fn(void *from, void *to, npy_intp n, void *fromarr, void *toarr);

/* Type codes: tl_weak.h's TL_WK_* (the loop types); TL_CN_CAST: an ml_dtypes type, reached by
 * its cast from the canonical type. */
#define TL_CN_CAST 100

/* How input i reaches the loop: src[i] < 0 passes it as it is; else its items (type src[i]) are
 * cast as C casts them, as NumPy does, to the canonical type canon[i] (one of the loop types of
 * 32 bits or less: int64 -> int32 wraps), then to compute[i], the loop's type (TL_CN_CAST: by
 * to_compute[i], compute_size[i] bytes), and the loop sees compute_descr[i] for it. src[i] ==
 * TL_CN_CAST (with compute[i] TL_CN_CAST): an ml_dtypes operand of src_size[i] bytes that
 * to_compute[i], its own cast, takes straight to the loop's type (float8_e4m3fn to float16, a
 * cast ml_dtypes registers as unsafe, though exact, so NumPy's same_kind check refuses it). */
typedef struct {
    int src[2], canon[2], compute[2], compute_size[2], src_size[2];
    tl_canon_cast_fn *to_compute[2];
    PyArray_Descr *compute_descr[2];
} tl_canon_inputs;

/* One canon loop: `loop` (nin inputs, nout outputs; it takes no auxdata) on inputs converted as
 * `in` says. It is the auxdata tl_canon_get_loop hands NumPy: never freed (its free does
 * nothing, its clone is itself), as the loop it belongs to lives as long as its ufunc. */
typedef struct tl_canon_cfg tl_canon_cfg;

/* NULL (a Python error set) for a conversion tl_canon.c does not make */
tl_canon_cfg *tl_canon_new(PyArrayMethod_StridedLoop *loop, int nin, int nout,
                           const tl_canon_inputs *in);

/* the runtime flags of the loop's ArrayMethod (NPY_METH_NO_FLOATINGPOINT_ERRORS), for get_loop */
void tl_canon_set_flags(tl_canon_cfg *cfg, NPY_ARRAYMETHOD_FLAGS flags);

/* The canon loop of ufunc `caller` for these loop descriptors (set by _ufuncs.pyx, called with
 * the GIL as NumPy calls get_loop): NULL with an exception set if there is none. */
typedef tl_canon_cfg *(*tl_canon_find_t)(PyObject *caller, PyArray_Descr *const *descrs);
extern tl_canon_find_t tl_canon_find;

/* NPY_METH_get_loop of every canon loop */
int tl_canon_get_loop(PyArrayMethod_Context *ctx, int aligned, int move_references,
                      const npy_intp *strides, PyArrayMethod_StridedLoop **out_loop,
                      NpyAuxData **out_aux, NPY_ARRAYMETHOD_FLAGS *flags);

#endif
