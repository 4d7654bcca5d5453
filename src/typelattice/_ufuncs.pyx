# cython: language_level=3, boundscheck=False, wraparound=False
"""True NumPy ufuncs with lattice promotion, built through NumPy 2's ufunc API.

How a ufunc is built (make_ufuncs, once per rule set):

* It is created empty (PyUFunc_FromFuncAndDataAndSignatureAndIdentity with no legacy loops),
  named "<rules>.<op>" (e.g. "jax.add"): libraries that swap a foreign ufunc for their own
  namesake (dask for divmod/.outer, CuPy, pandas) find none and return NotImplemented instead of
  silently applying NumPy's promotion; pickle finds it as typelattice._ufuncs.<rules>.<op>.
* One loop per compute dtype is added with PyUFunc_AddLoopFromSpec: the C loops come from
  _loops.h, generated at build time from _ops.py (kernels/tl_loops_host.h has the loop templates,
  kernels/tl_elem.h the element functions). Loops get the .at indexed loop, the reduction
  identity (get_reduction_initial) and NPY_METH_IS_REORDERABLE where the op has them. Every
  strided loop is registered through a thunk of kernels/tl_threads.c, which splits large
  elementwise calls across threads when set_num_threads(n > 1) is on.
* One catch-all promoter maps the operand DType classes to the rule set's types (Python
  int/float/complex arrive as NumPy's abstract Python-scalar DTypes: the weak types), applies the
  op's rule (_ops.Op.resolve) through the compiled join table and returns the loop's DTypes.
  NumPy caches the answer per tuple of DType classes, so this Python-level work happens once.
* Registered lazily by the promoter, on first use of a DType combination:
  - fused loops for the cheap ops (add, multiply, comparisons, ...) on the mixed pairs the
    built-in rule sets resolve (uint8 + int8 -> int16, int32 + float32 -> float32): both
    operands converted inline by C casts, element for element (AVX2 kernels; see _FUSED);
  - blocked loops reading mixed input dtypes whose conversion to the compute dtype is exact
    (int8 + float16 -> float16 converts int8 inline, in L1-sized blocks, no temporary array);
  - float32-computing loops for ml_dtypes' small floats (float8/6/4) through ml_dtypes' casts;
  - error loops for pairs with no promotion, whose resolve_descriptors raises
    TypePromotionError (NumPy replaces an error raised by a promoter by its no-loop error).
"""
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from libc.string cimport memset

import atexit
import contextlib
import functools
import operator
import os
import sys
import warnings

import numpy as np

from ._core cimport CompiledRules, get_rules
from ._errors import (TypePromotionError, call_label, dtype_label, error_before_overflow,
                      int_info, python_float_overflow, python_int_beyond_int64,
                      python_int_overflow)
from . import _masked, _ops

cdef extern from "Python.h":
    ctypedef struct PyType_Slot:
        int slot
        void *pfunc

cdef extern from "numpy/arrayobject.h":
    ctypedef Py_ssize_t npy_intp
    ctypedef struct PyArray_DTypeMeta:
        pass
    int _import_array() except -1
    PyArray_DTypeMeta PyArray_PyLongDType
    PyArray_DTypeMeta PyArray_PyFloatDType
    PyArray_DTypeMeta PyArray_PyComplexDType

cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyArray_Descr:
        int type_num
    ctypedef struct PyArray_ArrFuncs:
        void *cast[1]
        PyObject *castdict
    PyArray_ArrFuncs *PyDataType_GetArrFuncs(PyArray_Descr *)
    int NPY_FLOAT

cdef extern from "numpy/ufuncobject.h":
    int _import_umath() except -1
    object PyUFunc_FromFuncAndDataAndSignatureAndIdentity(
        void *func, void *data, char *types, int ntypes, int nin, int nout, int identity,
        const char *name, const char *doc, int unused, const char *signature,
        object identity_value)
    int PyUFunc_Zero, PyUFunc_One, PyUFunc_MinusOne, PyUFunc_None, PyUFunc_ReorderableNone
    int PyUFunc_IdentityValue
    int PyUFunc_GiveFloatingpointErrors(const char *name, int fpe_errors)

cdef extern from "numpy/dtype_api.h":
    ctypedef int NPY_ARRAYMETHOD_FLAGS
    ctypedef int NPY_CASTING
    ctypedef struct PyArrayMethod_Spec:
        const char *name
        int nin
        int nout
        NPY_CASTING casting
        NPY_ARRAYMETHOD_FLAGS flags
        PyArray_DTypeMeta **dtypes
        PyType_Slot *slots
    int NPY_METH_strided_loop, NPY_METH_contiguous_indexed_loop, NPY_METH_resolve_descriptors
    int NPY_METH_get_reduction_initial, NPY_METH_get_loop
    int NPY_METH_IS_REORDERABLE, NPY_METH_NO_FLOATINGPOINT_ERRORS, NPY_METH_RUNTIME_FLAGS
    int NPY_NO_CASTING, NPY_EQUIV_CASTING, NPY_SAFE_CASTING, NPY_SAME_KIND_CASTING
    int PyUFunc_AddLoopFromSpec(object ufunc, PyArrayMethod_Spec *spec) except -1
    int PyUFunc_AddPromoter(object ufunc, object DType_tuple, object promoter) except -1

cdef extern from "_loops.h":
    ctypedef struct tl_loop_entry:
        const char *op
        int types[4]
        void *loop
        void *indexed
        void *initial
    int TL_N_LOOPS
    int TL_N_LOOP_TYPES
    const tl_loop_entry tl_loop_table[]
    ctypedef struct tl_mixed_entry:
        const char *op
        int compute
        void *loop
    int TL_N_MIXED
    const tl_mixed_entry tl_mixed_table[]
    ctypedef struct tl_fused_entry:
        const char *op
        int types[3]
        void *loop
    int TL_N_FUSED
    const tl_fused_entry tl_fused_table[]
    int tl_fused_ok()
    int TL_N_EXT_LOOPS
    const tl_mixed_entry tl_ext_table[]
    int tl_ext_register(int type_num, npy_intp itemsize, void *to_f32, void *from_f32)
    int TL_N_EXTI_LOOPS
    const tl_mixed_entry tl_exti_table[]
    int tl_exti_register(int type_num, int bits, int is_signed)
    ctypedef void (*tl_exti_overflow_cb_t)(PyObject *ufunc, long long value, PyArray_Descr *descr,
                                           int side)
    tl_exti_overflow_cb_t tl_exti_overflow_cb
    int tl_bf16_typenum
    void tl_loops_join()
    void tl_host_init()
    void tl_host_set_simd(int on)
    const char *tl_vmath_set(int on)
    int TL_NP_N
    const char *const tl_vm_opname[]
    void tl_vmath_numpy(const char *path)
    int tl_domain_nan_cpu
    npy_intp tl_tables_after
    const char *tl_vmath_isa()
    const char *tl_convert_isa()
    int tl_convert_set_isa(const char *name)
    ctypedef int (*tl_err_cb_t)(int slot, PyArray_DTypeMeta *const *dtypes)
    tl_err_cb_t tl_err_cb
    int TL_N_ERR_SLOTS
    void *const tl_err_resolvers[]
    ctypedef int (*tl_err_loop_cb_t)(PyObject *caller, PyArray_Descr *const *descrs)
    tl_err_loop_cb_t tl_err_loop_cb
    void *tl_err_get_loop_ptr "(void *)tl_err_get_loop"
    void *tl_logical_and_bx_ptr "(void *)tl_logical_and_bx"
    void *tl_logical_or_bx_ptr "(void *)tl_logical_or_bx"
    void *tl_logical_xor_bx_ptr "(void *)tl_logical_xor_bx"
    void *tl_logical_and_xb_ptr "(void *)tl_logical_and_xb"
    void *tl_logical_or_xb_ptr "(void *)tl_logical_or_xb"
    void *tl_logical_xor_xb_ptr "(void *)tl_logical_xor_xb"
    void *tl_logical_and_be_ptr "(void *)tl_logical_and_be"
    void *tl_logical_and_xy_ptr "(void *)tl_logical_and_xy"
    void *tl_logical_or_xy_ptr "(void *)tl_logical_or_xy"
    void *tl_logical_xor_xy_ptr "(void *)tl_logical_xor_xy"
    void *tl_logical_and_xy16_ptr "(void *)tl_logical_and_xy16"
    void *tl_logical_or_xy16_ptr "(void *)tl_logical_or_xy16"
    void *tl_logical_xor_xy16_ptr "(void *)tl_logical_xor_xy16"
    void *tl_logical_or_be_ptr "(void *)tl_logical_or_be"
    void *tl_logical_xor_be_ptr "(void *)tl_logical_xor_be"
    void *tl_logical_and_eb_ptr "(void *)tl_logical_and_eb"
    void *tl_logical_or_eb_ptr "(void *)tl_logical_or_eb"
    void *tl_logical_xor_eb_ptr "(void *)tl_logical_xor_eb"
    void *tl_ext_initial_0_ptr "(void *)tl_ext_initial_0"
    void *tl_ext_initial_1_ptr "(void *)tl_ext_initial_1"
    void *tl_ext_initial_m1_ptr "(void *)tl_ext_initial_m1"
    void *tl_ext_initial_minf_ptr "(void *)tl_ext_initial_minf"

cdef extern from *:
    """
    #include "tl_weak.h"
    static void *tl_weak_wrap_ptr(void *loop, int side, int to, int nargs)
    { return (void *)tl_weak_wrap((PyArrayMethod_StridedLoop *)loop, side, to, nargs); }
    """
    ctypedef int (*tl_weak_fpe_cb_t)(int flags)
    tl_weak_fpe_cb_t tl_weak_fpe_cb
    void *tl_weak_wrap_ptr(void *loop, int side, int to, int nargs)

cdef extern from *:
    """
    #include "tl_canon.h"
    static void *tl_canon_new_ptr(void *loop, int nin, int nout, const tl_canon_inputs *in)
    { return (void *)tl_canon_new((PyArrayMethod_StridedLoop *)loop, nin, nout, in); }
    typedef tl_canon_cfg *(*tl_canon_find_cb_t)(PyObject *, PyArray_Descr *const *);
    """
    ctypedef void tl_canon_cast_fn(void *, void *, npy_intp, void *, void *)
    ctypedef struct tl_canon_inputs:
        int src[2]
        int canon[2]
        int compute[2]
        int compute_size[2]
        int src_size[2]
        tl_canon_cast_fn *to_compute[2]
        PyArray_Descr *compute_descr[2]
    ctypedef struct tl_canon_cfg:
        pass
    ctypedef tl_canon_cfg *(*tl_canon_find_cb_t)(PyObject *, PyArray_Descr *const *)
    tl_canon_find_cb_t tl_canon_find
    int TL_CN_CAST
    void *tl_canon_new_ptr(void *loop, int nin, int nout, const tl_canon_inputs *inp) except NULL
    void tl_canon_set_flags(tl_canon_cfg *cfg, NPY_ARRAYMETHOD_FLAGS flags)
    void *tl_canon_get_loop_ptr "(void *)tl_canon_get_loop"

cdef extern from *:
    """
    /* resolve_descriptors of the sub-byte int + Python int loops, registered under timedelta64
     * for the Python int (see _PY_INT_CARRIER): a timedelta64 operand with a unit is an array,
     * refused as the promoter refuses every timedelta64 operand; NumPy's conversion of the int
     * has none. NARGS: 3, or 4 for divmod. On an error the descriptors set are cleared to NULL:
     * NumPy releases the loop's descriptors after a failed resolution too (a Py_DECREF left
     * them for a second release, one reference of the int type lost per call). */
    static NPY_CASTING tl_exti_pyint_resolve_n(
        PyArray_DTypeMeta *const *dt, PyArray_Descr *const *g, PyArray_Descr **l, int nargs)
    {
        int k, j;
        for (k = 0; k < nargs; k++) {
            PyArray_Descr *d = g[k];
            if (d != NULL && d->type_num == NPY_TIMEDELTA && ((PyArray_DatetimeDTypeMetaData *)
                    PyDataType_C_METADATA(d))->meta.base != NPY_FR_GENERIC) {
                for (j = 0; j < k; j++) Py_CLEAR(l[j]);
                PyErr_SetString(PyExc_TypeError, "typelattice ufuncs do not support timedelta64 "
                                "operands: only bool, integer, floating, complex and ml_dtypes "
                                "numeric dtypes take part in promotion");
                return (NPY_CASTING)-1;
            }
            if (d != NULL) Py_INCREF(d);
            l[k] = d != NULL ? d : PyArray_GetDefaultDescr(dt[k]);
            if (l[k] == NULL) {
                for (j = 0; j < k; j++) Py_CLEAR(l[j]);
                return (NPY_CASTING)-1;
            }
        }
        return NPY_NO_CASTING;
    }
    static NPY_CASTING tl_exti_pyint_resolve(
        struct PyArrayMethodObject_tag *m, PyArray_DTypeMeta *const *dt,
        PyArray_Descr *const *g, PyArray_Descr **l, npy_intp *view_offset)
    { (void)m; (void)view_offset; return tl_exti_pyint_resolve_n(dt, g, l, 3); }
    static NPY_CASTING tl_exti_pyint_resolve4(
        struct PyArrayMethodObject_tag *m, PyArray_DTypeMeta *const *dt,
        PyArray_Descr *const *g, PyArray_Descr **l, npy_intp *view_offset)
    { (void)m; (void)view_offset; return tl_exti_pyint_resolve_n(dt, g, l, 4); }
    """
    void *tl_exti_pyint_resolve_ptr "(void *)tl_exti_pyint_resolve"
    void *tl_exti_pyint_resolve4_ptr "(void *)tl_exti_pyint_resolve4"

cdef extern from *:
    """
    #include <Python.h>
    typedef int (*tl_promoter_t)(PyObject *, void *const *, void *const *, void **);
    """
    ctypedef int (*tl_promoter_t)(PyObject *, void *const *, void *const *, void **)

cdef extern from *:
    """
    #include "tl_threads.h"
    static void *tl_thr_wrap_ptr(void *loop, int nin, int nout, int quiet)
    { return (void *)tl_thr_wrap((PyArrayMethod_StridedLoop *)loop, nin, nout, quiet); }
    """
    void *tl_thr_wrap_ptr(void *loop, int nin, int nout, int quiet)
    int tl_thr_set(int n) nogil
    int tl_thr_get()
    void tl_thr_set_min_bytes(npy_intp n)
    npy_intp tl_thr_get_min_bytes()
    long tl_thr_calls()
    int TL_THR_MAX

cdef extern from *:
    """
    #include "tl_fastcall.h"
    """
    ctypedef struct tl_fast_entry:
        void *loop
        PyArray_Descr *descrs[4]
        signed char state
        unsigned char check_fpe
        signed char to[2]
        unsigned char swap
    ctypedef int (*tl_fast_resolve_t)(int slot, const int *codes, tl_fast_entry *e)
    tl_fast_resolve_t tl_fast_resolve_cb
    int tl_fast_init(const int *type_nums)
    void tl_fast_set_scalar_type(int code, object type)
    char *TL_FAST_SCALAR_VALUE(object o)
    int tl_fast_install(object uf)
    void tl_fast_set(int on)
    int tl_fast_get()
    Py_ssize_t tl_fast_count()
    void tl_fast_set_overflow_hook(object hook)
    void tl_fast_set_error_hook(object hook)
    void tl_fast_set_foreign_hook(object hook)
    void tl_fast_set_unary_hook(object hook)
    void tl_fast_set_cast_hook(object hook)
    void tl_fast_set_user_rank(int type_num, int rank)
    void tl_fast_set_unary_convert(int slot, int on)
    void tl_fast_set_canon(int slot, object canon, int inputs)
    void tl_fast_set_mirror(int slot, object mirror)
    Py_ssize_t tl_fast_mirror_count()
    int TL_FAST_NTYPES, TL_FAST_PYINT

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer
from cpython.exc cimport PyErr_SetObject

cdef extern from *:
    """
    /* NumPy's own inner loop for (type_num, ...) -> type_num of ufunc uf (its first legacy loop
     * of those types: the one NumPy's CPU dispatch set at import) as vmath op k's loop; 1 if
     * found */
    static int tl_np_take(PyObject *uf, int type_num, int k, int bits)
    {
        PyUFuncObject *u = (PyUFuncObject *)uf;
        int i, j;
        for (i = 0; i < u->ntypes; i++) {
            for (j = 0; j < u->nargs && u->types[i * u->nargs + j] == type_num; j++)
                ;
            if (j == u->nargs && u->nout == 1 && u->functions[i] != NULL) {
                if (bits == 32) {
                    tl_np_loop32[k] = (tl_np_loop_t)u->functions[i];
                    tl_np_data32[k] = u->data[i];
                } else {
                    tl_np_loop64[k] = (tl_np_loop_t)u->functions[i];
                    tl_np_data64[k] = u->data[i];
                }
                return 1;
            }
        }
        return 0;
    }
    """
    int tl_np_take(object uf, int type_num, int k, int bits)

_import_array()
_import_umath()
tl_loops_join()
tl_host_init()
import numpy._core._multiarray_umath as _np_umath_module
if getattr(_np_umath_module, "__cpu_features__", {}).get("AVX512_SKX"):   # NumPy's SVML loops run
    tl_vmath_numpy(os.fsencode(_np_umath_module.__file__))
    tl_domain_nan_cpu = 1
tl_vmath_set(-1)
# NumPy's own loops for these same-dtype ops where NumPy runs its AVX512_SKX loops (vmath
# "svml"): they measured 3-17% faster than ours around libmvec's or SVML's functions at 10^5
# (NumPy's own code for tanh, expm1, sinh/cosh...; the same SVML function for arctan2, with less
# around it), and give NumPy's bits (set_numpy_loops; benchmarks/RESULTS.md). Not power: our
# loops give x * x, 1 / x, sqrt(x), x for the exponents 2, -1, 0.5, 1 in an array, as for a
# scalar exponent, where NumPy's array loop gives pow's last bits.
# float32 log10, log2 and float64 sinh joined on a Zen 4 VM (session 53): ours / NumPy's loop at
# 10^5-10^6, 1.2-1.4, 1.1-1.2 and 1.2-1.3.
_NUMPY_LOOPS = {
    "float32": frozenset({"tanh", "log1p", "arcsin", "arccos", "arctan", "cbrt", "expm1", "sinh",
                          "cosh", "arcsinh", "arccosh", "arctanh", "arctan2", "log10", "log2"}),
    "float64": frozenset({"log", "tanh", "sinh"})}


def _take_numpy_loops():
    if tl_vmath_isa() != b"svml":
        return
    for k in range(TL_NP_N):
        name = tl_vm_opname[k].decode()
        for bits, t in ((32, "float32"), (64, "float64")):
            if name in _NUMPY_LOOPS[t]:
                uf = getattr(np, name, None)
                if isinstance(uf, np.ufunc):
                    tl_np_take(uf, np.dtype(t).num, k, bits)


_take_numpy_loops()

import ml_dtypes  # noqa: F401  (registers bfloat16 before its DType class is looked up)
from ._dtypes import dtype_of, materialized_dtype, materialized_name, name_of_dtype
from ._names import kind as _kind

# DType class of each loop type, in _ops.LOOP_TYPES order (= the C table's type indices)
cdef list _LOOP_DTYPES = [type(dtype_of(t)) for t in _ops.LOOP_TYPES]
cdef frozenset _LOOP_TYPE_SET = frozenset(_ops.LOOP_TYPES)
# integer ops that report division by zero / overflow like NumPy (through FP flags)
cdef frozenset _RAISES_FPE = frozenset({"floor_divide", "remainder", "fmod", "divmod", "power"})
cdef frozenset _COMPLEX_CLASSES = frozenset(type(dtype_of(t)) for t in ("complex64", "complex128"))
cdef frozenset _INT_CLASSES = frozenset(type(dtype_of(t)) for t in _ops.LOOP_TYPES
                                        if _ops.kind(t) in "bui")

import ml_dtypes as _mld
tl_bf16_typenum = np.dtype(_mld.bfloat16).num

# Blocked loops (kernels/tl_loops_host.h) read these input dtypes and convert them to the compute
# dtype inline: int8 + float16 -> float16 makes no temporary array. Conversions are exact, or round
# exactly as the cast NumPy (ml_dtypes for bfloat16) would apply first: int32 -> float32 and
# int64 -> float64 are C casts; int64 -> bfloat16 / float16 go through float32 and are rounded to
# the half type as ml_dtypes' / NumPy's cast (tl_cvtsel_bf16 / tl_cvtsel_f16).
_INTS = frozenset({"int16", "uint16", "int32", "uint32", "int64", "uint64"})
_EXACT_INPUTS = {
    "float16": frozenset({"bool", "int8", "uint8", "float16"}) | _INTS,
    "bfloat16": frozenset({"bool", "int8", "uint8", "bfloat16"}) | _INTS,
    "float32": frozenset({"bool", "int8", "uint8", "int16", "uint16", "float16", "bfloat16",
                          "float32"}) | _INTS,
    "float64": frozenset({"bool", "int8", "uint8", "float16", "bfloat16", "float32",
                          "float64"}) | _INTS,
    # (TL_LOOP_BLOCKED_CPLX: a real operand through the float32/float64 converters)
    "complex64": frozenset({"bool", "int8", "uint8", "float16", "bfloat16", "float32",
                            "complex64"}) | _INTS,
    "complex128": frozenset({"bool", "int8", "uint8", "float16", "bfloat16", "float32",
                             "float64", "complex64", "complex128"}) | _INTS,
}
# (integer floor_divide/remainder: bool and the integers the compute type holds, C casts)
_INT_TYPES = tuple(t for t in _ops.LOOP_TYPES if _kind(t) in ("i", "u"))
_EXACT_INPUTS.update({t: frozenset({"bool"} | {a for a in _INT_TYPES if np.can_cast(a, t, "safe")})
                      for t in _INT_TYPES})
cdef dict _MIXED = {}          # op name -> {compute type: loop pointer}
cdef int _m
for _m in range(TL_N_MIXED):
    _MIXED.setdefault(tl_mixed_table[_m].op.decode(), {})[
        _ops.LOOP_TYPES[tl_mixed_table[_m].compute]] = <size_t>tl_mixed_table[_m].loop
# Fused loops (kernels/tl_loops_host.h): (op, first, second, compute type) -> loop converting
# both operands inline, element for element (uint8 + int8 -> int16, int32 + float32 -> float32);
# used where the CPU runs their kernels (AVX2 on x86-64)
cdef dict _FUSED_TABLE = {}
for _m in range(TL_N_FUSED):
    _FUSED_TABLE[(tl_fused_table[_m].op.decode(), _ops.LOOP_TYPES[tl_fused_table[_m].types[0]],
                  _ops.LOOP_TYPES[tl_fused_table[_m].types[1]],
                  _ops.LOOP_TYPES[tl_fused_table[_m].types[2]])] = <size_t>tl_fused_table[_m].loop
cdef dict _FUSED = dict(_FUSED_TABLE) if tl_fused_ok() else {}
cdef dict _MIXED_DONE = {}     # (ufunc, DType classes) -> kind of loop ("fused", ...) once registered
# (op name, type) -> the get_reduction_initial of op's same-dtype loop of that type: a mixed loop
# with that output type (reduce with dtype=/out= of another dtype runs it) gets it too
cdef dict _INITIAL_OF = {}
cdef tuple _F32_F64_CLASSES = (type(np.dtype(np.float32)), type(np.dtype(np.float64)))

# ml_dtypes' small floats: loops computing in float32 through ml_dtypes' own casts
cdef dict _EXT_LOOPS = {tl_ext_table[_m].op.decode(): <size_t>tl_ext_table[_m].loop
                        for _m in range(TL_N_EXT_LOOPS)}


cdef set _register_small_floats():
    from ._names import SMALL_FLOATS
    f32_dtype = np.dtype(np.float32)
    cdef PyArray_ArrFuncs *f32 = PyDataType_GetArrFuncs(<PyArray_Descr *><PyObject *>f32_dtype)
    cdef PyArray_ArrFuncs *fx
    cdef void *to_f32
    cdef void *from_f32
    done = set()
    if f32.castdict == NULL:
        return done
    castdict = <object>f32.castdict
    for t in SMALL_FLOATS:
        d = dtype_of(t)
        if d is None or d.itemsize > 4:
            continue
        fx = PyDataType_GetArrFuncs(<PyArray_Descr *><PyObject *>d)
        to_f32 = fx.cast[NPY_FLOAT]
        cap = castdict.get(d.num)
        if to_f32 == NULL or cap is None:
            continue
        from_f32 = PyCapsule_GetPointer(cap, NULL)
        if tl_ext_register(d.num, d.itemsize, to_f32, from_f32) >= 0:
            done.add(t)
    return done


cdef set _EXT_TYPES = _register_small_floats()

# ml_dtypes' sub-byte integers: loops computing in int32, the result wrapped to the type's bits
cdef dict _EXTI_LOOPS = {tl_exti_table[_m].op.decode(): <size_t>tl_exti_table[_m].loop
                         for _m in range(TL_N_EXTI_LOOPS)}


cdef set _register_sub_byte_ints():
    import ml_dtypes
    from ._names import SUB_BYTE_INTS
    done = set()
    for t in SUB_BYTE_INTS:
        d = dtype_of(t)
        if d is None or d.itemsize != 1:
            continue
        if tl_exti_register(d.num, ml_dtypes.iinfo(d).bits, t.startswith("int")) >= 0:
            done.add(t)
    return done


cdef set _EXTI_TYPES = _register_sub_byte_ints()


cdef void _exti_overflow(PyObject *ufunc, long long value, PyArray_Descr *descr,
                         int side) noexcept with gil:
    # a sub-byte integer loop's Python int operand (side) outside the other operand's dtype:
    # the OverflowError of the core dtypes' weak ints (tl_loops_host.h holds the GIL)
    try:
        uf = <object>ufunc
        dt = <object><PyObject *>descr
        args = [np.empty(0, dt), np.empty(0, dt)]
        args[side] = int(value)
        err = python_int_overflow(uf.__name__, args, int(value), dt, _REGISTRY[uf][1].name)
        if err is not None:
            raise err
    except BaseException as exc:
        PyErr_SetObject(type(exc), exc)


tl_exti_overflow_cb = <tl_exti_overflow_cb_t>_exti_overflow


def set_simd(simd=None):
    """Choose the SIMD paths of the float16/bfloat16 conversions and of the float32/float64 block
    kernels (comparisons, rounding, ...): True: the best the CPU has (AVX-512 with AVX512_BF16's
    bfloat16 rounding, AVX-512 or AVX2); "avx512": AVX-512 without the AVX512_BF16 instruction;
    "avx2": at most AVX2 (these two exercise those paths on a CPU that has more); False: the
    portable code; None: decide from the CPU and TYPELATTICE_DISABLE_SIMD. Every path gives the
    same bits and FP flags. Returns whether a SIMD path is in use now. For tests and benchmarks;
    not thread-safe against running loops."""
    if simd is None:
        tl_convert_set_isa(NULL)
        host = 1
    elif isinstance(simd, str):
        if simd not in ("avx2", "avx512"):
            raise ValueError(f"set_simd: unknown path {simd!r} "
                             "(True, False, None, 'avx512' or 'avx2')")
        if simd == "avx2" or tl_convert_set_isa(b"avx512") != 0:
            tl_convert_set_isa(b"avx2+f16c")
        host = 2 if simd == "avx2" else 1
    elif not simd:
        tl_convert_set_isa(b"scalar")
        host = 0
    else:
        if (tl_convert_set_isa(b"avx512+bf16") != 0
                and tl_convert_set_isa(b"avx512") != 0):
            tl_convert_set_isa(b"avx2+f16c")
        host = 1
    tl_host_set_simd(host)
    return simd_isa() != "scalar"


def set_vmath(on=None):
    """float32/float64 transcendental ops (exp, log, sin...) on contiguous arrays through vector
    math functions: True: the best the CPU has (AVX-512: the SVML functions NumPy's extension
    exports, libmvec's for any it lacks; AVX2: glibc's libmvec); "avx512": libmvec's AVX-512
    variants only; "avx2": libmvec's AVX2 ones even on an AVX-512 CPU; False: the scalar libm
    loops; None: decide from TYPELATTICE_DISABLE_SIMD. The vector functions are within 4 ulp,
    not bit-identical to the scalar loops; special values and FP warnings are the same. Returns
    the variant in use: "svml", "avx512", "avx2" or "scalar". For tests and benchmarks; not
    thread-safe against running loops."""
    mode = (-1 if on is None else 2 if on == "avx2" else 3 if on == "avx512"
            else int(bool(on)))
    isa = tl_vmath_set(mode).decode()
    _take_numpy_loops()
    return isa


def set_numpy_loops(float32=None, float64=None):
    """The transcendental ops whose same-dtype float32 / float64 loops call NumPy's own inner
    loop (where set_vmath's variant is "svml", the default on AVX-512 CPUs whose NumPy runs its
    AVX512_SKX loops): iterables of op names, None keeps a set. Returns the previous sets. For
    benchmarks and tests; not thread-safe against running loops. ("power" is accepted, but then
    the exponents 2, -1, 0.5, 1 in an array give pow's last bits, not x * x, 1 / x, sqrt(x), x.)"""
    old = dict(_NUMPY_LOOPS)
    for t, ops in (("float32", float32), ("float64", float64)):
        if ops is not None:
            _NUMPY_LOOPS[t] = frozenset(ops)
    tl_vmath_set(-1 if tl_vmath_isa() == b"svml" else
                 {"avx512": 3, "avx2": 2, "scalar": 0}[tl_vmath_isa().decode()])
    _take_numpy_loops()
    return old


def set_tables_after(n):
    """float16/bfloat16 transcendentals switch to their 65536-entry table once the op has taken
    n elements (default 2**21; 0: at the next call), 8-bit gcd/lcm to theirs after n / 32.
    Returns the previous n. For tests."""
    global tl_tables_after
    old = tl_tables_after
    tl_tables_after = n
    return old


def vmath_isa():
    """The vector math in use: "svml", "avx512", "avx2" or "scalar"."""
    return tl_vmath_isa().decode()


def simd_isa():
    """The float16/bfloat16 conversion path in use: "avx512+bf16", "avx512", "avx2+f16c" or
    "scalar"."""
    return tl_convert_isa().decode()


def set_num_threads(n):
    """Run large elementwise loop calls on ``n`` threads (1, the default: off). Results and FP
    warnings are those of one thread. Process-wide; also set by TYPELATTICE_NUM_THREADS."""
    if isinstance(n, (bool, np.bool_)):
        raise TypeError("typelattice.set_num_threads: n must be an int, not bool")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"typelattice.set_num_threads: n must be an int, not {type(n).__name__}") \
            from None
    if not 1 <= n <= TL_THR_MAX:
        raise ValueError(f"typelattice.set_num_threads: n must be between 1 and {TL_THR_MAX}, "
                         f"got {n}")
    cdef int k = n
    with nogil:     # waits for a threaded call of another Python thread to end
        tl_thr_set(k)


def get_num_threads():
    """The number of threads large elementwise loop calls run on (1: no threading)."""
    return tl_thr_get()


@contextlib.contextmanager
def threads(n):
    """``with typelattice.threads(n):`` set_num_threads(n) for the block, then the previous
    value (process-wide, not per Python thread)."""
    old = get_num_threads()
    set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(old)


def _thread_min_bytes(n=None):
    """Smallest loop call that is split across threads, in bytes its operands span (default 16
    MiB); set it if n is given (tests use small arrays). Returns the previous value."""
    old = tl_thr_get_min_bytes()
    if n is not None:
        tl_thr_set_min_bytes(n)
    return old


def _threaded_calls():
    """How many loop calls were split across threads so far (tests)."""
    return tl_thr_calls()


def _threads_from_env():
    v = os.environ.get("TYPELATTICE_NUM_THREADS", "").strip()
    if not v:
        return
    try:
        set_num_threads(int(v))
    except (TypeError, ValueError) as exc:
        warnings.warn(f"ignoring TYPELATTICE_NUM_THREADS={v!r}: {exc}", RuntimeWarning,
                      stacklevel=2)


_threads_from_env()
atexit.register(set_num_threads, 1)     # join the workers before the interpreter goes away


# NumPy's abstract DTypes of Python int/float/complex operands: the weak types
cdef object _PY_INT_DT = <object><PyObject *>&PyArray_PyLongDType
# The DType a Python int with a sub-byte integer array is converted to (int64 bits), for the
# loop to check its range. Not an integer DType: the loop, registered under it, would also be
# the loop of an array of that DType with the sub-byte array (int64: a TypePromotionError, and
# what ufunc.at meets: it hands NumPy the Python int as an int64 array; longlong: array.array
# ('q')). timedelta64, whose arrays the loop's resolver (tl_exti_pyint_resolve) tells from
# NumPy's conversion of the int by their unit.
cdef object _PY_INT_CARRIER = type(np.dtype("m8"))
cdef object _PY_FLOAT_DT = <object><PyObject *>&PyArray_PyFloatDType
cdef object _PY_COMPLEX_DT = <object><PyObject *>&PyArray_PyComplexDType
cdef object _UINT64_DT = type(np.dtype(np.uint64))
cdef dict _PY_SCALAR_DTYPES = {int: _PY_INT_DT, float: _PY_FLOAT_DT, complex: _PY_COMPLEX_DT}
cdef dict _SAME = {}           # binary ufunc -> {T: (its (T, T) loop, output type names)}
cdef dict _WEAK_TO = {t: i for i, t in enumerate(_ops.LOOP_TYPES)}   # tl_weak.h's TL_WK_*


cdef object _weak_loop(uf, op, CompiledRules r, names, res, int side, scalar_class):
    """DType classes of the loop for a Python float/complex operand (``side``, DType
    ``scalar_class``) and an array of the loop's type T (tl_weak.c: the loop reads NumPy's 0-d
    float64/complex128 array of the scalar and converts it to T as NumPy would), registered on
    first use; None where it does not apply (NumPy's own conversion then)."""
    if op.nin != 2:
        return None
    t = res[0]
    if res[1] != t or names[1 - side] != t:
        return None
    if t == "complex128" and scalar_class is _PY_COMPLEX_DT:
        return None                         # NumPy's 0-d complex128 array is already T
    loop = _SAME[uf].get(t)
    if loop is None or loop[1] != tuple(res[2:]):
        return None
    t_class = _dtype_class(r, t)
    outs = tuple(_dtype_class(r, x) for x in res[2:])
    classes = (scalar_class, t_class) if side == 0 else (t_class, scalar_class)
    classes += outs
    key = (uf, classes)
    if key not in _MIXED_DONE:
        wrapped = tl_weak_wrap_ptr(tl_thr_wrap_ptr(<void *><size_t>loop[0], 2, op.nout,
                                                   _clears_fpe(op, classes,
                                                               (t_class, t_class) + outs)),
                                   side, _WEAK_TO[t], 2 + op.nout)
        if wrapped == NULL:                 # not a target type, or no thunk left
            return None
        _add_spec(uf, op, classes, wrapped, NULL, NULL, NULL, b"tl_weak", threaded=True,
                  fp_classes=(t_class, t_class) + outs)
        _MIXED_DONE[key] = "weak"
    return classes


cdef bint _serves_strong_pair(op, CompiledRules r, names, ins, res) except -1:
    """May a mixed loop reading input types ``ins`` serve this call? Where a weak operand of
    ``names`` became the loop's type, NumPy later finds the loop for two arrays of ``ins``
    before any promoter: only where the rule set resolves those alike (under "numpy", int32 with
    a Python int divides in float32, an int32 and a float32 array in float64)."""
    if list(ins) == list(names[:2]):
        return True
    try:
        return list(_resolve_names(op, r, list(ins) + [None], [None] * 3, False)) == list(res)
    except (TypeError, ValueError):
        return False


cdef bint _withheld_from_dispatch(op, first, t):
    """Is the blocked (t, x) loop of op (first: its first input's type name) kept from NumPy's
    dispatch? For the reorderable ops with a complex t: NumPy's reduce(x, dtype=t) would take it,
    in order, where NumPy's cast of x and t's own loop sum pairwise (the call path runs it:
    _fast_fill_withheld)."""
    return op.reorderable and first == t and t in ("complex64", "complex128")


cdef object _mixed_loop(uf, op, CompiledRules r, names, res):
    """DType classes of a loop reading the operands' own dtypes (fused or blocked), or None."""
    if op.nin != 2:
        return None
    t = res[0]
    if res[1] != t:
        return None
    if names[0] == "bool" and res[2] == "bool" and t != "bool":
        # a comparison of a bool with an x array: NumPy casts the bool. A (bool, x) -> bool
        # loop would also serve reduce(x, dtype=bool), which NumPy looks up under the same
        # DTypes, folding x's values where NumPy folds them cast to bool.
        return None
    # an operand of no core dtype (a weak Python scalar) is converted to t by NumPy
    a, b = [n if n in _LOOP_TYPE_SET else t for n in names[:2]]
    fused = _FUSED.get((op.name, a, b, t))
    if fused is not None:
        if not _serves_strong_pair(op, r, names, (a, b), res):
            return None
        classes = (_dtype_class(r, a), _dtype_class(r, b), _dtype_class(r, res[2]))
        key = (uf, classes)
        if key not in _MIXED_DONE:
            _add_spec(uf, op, classes, <void *><size_t>fused, NULL,
                      <void *><size_t>_INITIAL_OF.get((op.name, res[2]), 0), NULL, b"tl_fused",
                      False, None, NULL, (_dtype_class(r, t),) * 2)
            _MIXED_DONE[key] = "fused"
        return classes
    loops = _MIXED.get(op.name)
    if loops is None or t not in loops:
        return None
    exact = _EXACT_INPUTS[t]
    ins = [t, t]
    changed = False
    for i in range(2):
        a = names[i]
        if a is not None and a != t and a in exact:
            ins[i] = a
            changed = True
    if not changed or not _serves_strong_pair(op, r, names, ins, res):
        return None
    if _withheld_from_dispatch(op, ins[0], t):
        return None
    classes = (_dtype_class(r, ins[0]), _dtype_class(r, ins[1])) \
        + tuple(_dtype_class(r, o) for o in res[2:])
    key = (uf, classes)
    if key not in _MIXED_DONE:
        tc = _dtype_class(r, t)
        _add_spec(uf, op, classes, <void *><size_t>loops[t], NULL,
                  <void *><size_t>_INITIAL_OF.get((op.name, res[2]), 0), NULL, b"tl_blocked",
                  False, (tc, tc, classes[2]) if tc in _COMPLEX_CLASSES else None, NULL,
                  (tc, tc))
        _MIXED_DONE[key] = "blocked"
    return classes


# -- canonicalized operands (kernels/tl_canon.c) ------------------------------------------------
cdef dict _CANON_CFG = {}       # (ufunc, loop type numbers) -> its tl_canon_cfg


cdef bint _canon_same(own, canon, target):
    """Is the cast own -> target the cast own -> canon -> target? (ints wrap modulo 2**bits;
    a float rounded to float32 and put into complex64 is one rounding)"""
    if target == canon:
        return True
    if own.kind in "iu" and canon.kind in "iu" and target.kind in "iu":
        return target.itemsize <= canon.itemsize
    return (canon.name, target.name) in (("float32", "complex64"), ("float64", "complex128"))


cdef int _canon_input(CompiledRules r, int i, oc, target_cls, tl_canon_inputs *inp) except -1:
    """Fill input i of ``inp`` when the rule set canonicalizes an operand of DType class ``oc``
    (jax32: int64 -> int32) and NumPy's cast of it to the loop's ``target_cls`` would not be its
    cast to the canonical type and on (2**33 + 5 would stay whole); 1 if so, else 0."""
    if oc is None or oc is _PY_INT_DT or oc is _PY_FLOAT_DT or oc is _PY_COMPLEX_DT \
            or oc is _PY_INT_CARRIER or not r.aliases:
        return 0
    own = oc()
    canon_name = r.aliases.get(own.name)
    if canon_name is None or canon_name not in r.index:
        return 0
    canon = r.dtypes[r.index[canon_name]]
    target = target_cls()
    if canon is None or canon == own or _canon_same(own, canon, target):
        return 0
    if own.name not in _WEAK_TO or canon.name not in _WEAK_TO:
        raise TypeError(f"rule set {r.name!r} reads {own} as {canon}: typelattice converts "
                        "only between its loop types")
    inp.src[i] = _WEAK_TO[own.name]
    inp.canon[i] = _WEAK_TO[canon.name]
    inp.compute_size[i] = target.itemsize
    if target.num < 256 and target.name in _WEAK_TO:     # NumPy's own types: C casts
        inp.compute[i] = _WEAK_TO[target.name]
    else:                                                  # ml_dtypes': its cast from canon
        inp.compute[i] = TL_CN_CAST
        f = PyDataType_GetArrFuncs(<PyArray_Descr *><PyObject *>canon)
        cap = (<object>f.castdict).get(target.num) if f.castdict != NULL else None
        if cap is None:
            raise TypeError(f"rule set {r.name!r} reads {own} as {canon}, but there is no "
                            f"cast {canon} -> {target} to apply")
        inp.to_compute[i] = <tl_canon_cast_fn *>PyCapsule_GetPointer(cap, NULL)
    _KEEP.append(target)
    inp.compute_descr[i] = <PyArray_Descr *><PyObject *>target
    return 1


cdef int _cast_input(int i, oc, target_cls, tl_canon_inputs *inp) except -1:
    """Fill input i of ``inp`` when NumPy would refuse its same_kind cast of an operand of
    DType class ``oc`` to the loop's ``target_cls`` although the rules join them there
    (kernel_float's float8_e4m3fn + float16: ml_dtypes registers that exact cast as unsafe):
    the operand's own cast, applied by the loop; 1 if so, else 0."""
    if oc is None or oc is target_cls or oc is _PY_INT_DT or oc is _PY_FLOAT_DT \
            or oc is _PY_COMPLEX_DT or oc is _PY_INT_CARRIER or oc._abstract:
        return 0
    own, target = oc(), target_cls()
    if own.num < 256 or np.can_cast(own, target, "same_kind"):
        return 0
    f = PyDataType_GetArrFuncs(<PyArray_Descr *><PyObject *>own)
    cap = (<object>f.castdict).get(target.num) if f.castdict != NULL else None
    if cap is None or own.itemsize > 16 or target.itemsize > 16:
        return 0                        # (NumPy's casting error stands)
    inp.src[i] = inp.compute[i] = TL_CN_CAST
    inp.src_size[i] = own.itemsize
    inp.compute_size[i] = target.itemsize
    inp.to_compute[i] = <tl_canon_cast_fn *>PyCapsule_GetPointer(cap, NULL)
    _KEEP.append(target)
    inp.compute_descr[i] = <PyArray_Descr *><PyObject *>target
    return 1


cdef object _canon_loop(uf, op, CompiledRules r, op_classes, classes, sig_classes):
    """The loop classes with each input the rule set canonicalizes taken in its own dtype,
    converted by a canon loop around the loop of ``classes``; ``classes`` where no input needs
    it. Where dtype=/signature= (``sig_classes``) chose ``classes``, no new loop: NumPy would
    later find it for the plain call's operand DTypes (a trunc(float64, dtype=int8) loop would
    answer trunc(float64)). The plain call's loop then, if the signature allows it; else None
    (NumPy's cast of the operand, whole)."""
    cdef tl_canon_inputs inp
    cdef int i
    memset(&inp, 0, sizeof(inp))
    inp.src[0] = inp.src[1] = -1
    new = list(classes)
    todo = 0
    for i in range(op.nin):
        if op.rule == _ops.FIRST_INEXACT and i == 1:
            continue    # ldexp's exponent: NumPy's int64, whole (past int32 it gives inf or 0)
        if _canon_input(r, i, op_classes[i], classes[i], &inp) \
                or _cast_input(i, op_classes[i], classes[i], &inp):
            new[i] = op_classes[i]
            todo = 1
    if not todo:
        return classes
    new = tuple(new)
    key = (uf, new)
    if any(c is not None for c in sig_classes):
        plain = tuple(_loop_classes(uf, op, r, list(new[:op.nin]) + [None] * op.nout,
                                    [None] * (op.nin + op.nout)))
        fits = all(f is None or f is p for f, p in zip(sig_classes, plain))
        return plain if fits else None
    if key in _MIXED_DONE:
        return new
    rec = _LOOP_OF.get((uf, tuple(classes)))
    if rec is None:
        raise TypeError(f"{uf.__name__} has no loop for "
                        f"{tuple(_class_label(c) for c in classes)} (rule set {r.name!r})")
    inner = rec[0]
    cdef void *cfg = tl_canon_new_ptr(<void *><size_t>inner, op.nin, op.nout, &inp)
    # (found again by its ufunc and loop type numbers: NumPy's get_loop has no other handle)
    _CANON_CFG[(uf, tuple(c().num for c in new))] = <size_t>cfg
    # (FP checks as the inner loop's types need them: jax32's int64 < complex NaN is invalid)
    flags = _add_spec(uf, op, new, NULL, NULL, NULL, NULL, b"tl_canon", False, tuple(classes),
                      tl_canon_get_loop_ptr, classes)
    tl_canon_set_flags(<tl_canon_cfg *>cfg, flags)
    _MIXED_DONE[key] = "canon"
    return new


cdef tl_canon_cfg *_canon_find(PyObject *caller, PyArray_Descr *const *descrs) noexcept with gil:
    try:
        uf = <object>caller
        return <tl_canon_cfg *><size_t>_CANON_CFG[
            (uf, tuple(descrs[i].type_num for i in range(uf.nargs)))]
    except Exception as exc:
        PyErr_SetObject(SystemError, f"typelattice: no canon loop for these descriptors ({exc!r})")
        return NULL


tl_canon_find = _canon_find


# (bool, x) and (x, bool) -> bool loops of the logical ops (kernels/tl_loops_host.h)
# (the x operand's index -> loop)
cdef dict _LOGICAL_BX = {
    "logical_and": (<size_t>tl_logical_and_xb_ptr, <size_t>tl_logical_and_bx_ptr),
    "logical_or": (<size_t>tl_logical_or_xb_ptr, <size_t>tl_logical_or_bx_ptr),
    "logical_xor": (<size_t>tl_logical_xor_xb_ptr, <size_t>tl_logical_xor_bx_ptr)}
# the same with x an ml_dtypes small float or sub-byte integer
cdef dict _LOGICAL_BE = {
    "logical_and": (<size_t>tl_logical_and_eb_ptr, <size_t>tl_logical_and_be_ptr),
    "logical_or": (<size_t>tl_logical_or_eb_ptr, <size_t>tl_logical_or_be_ptr),
    "logical_xor": (<size_t>tl_logical_xor_eb_ptr, <size_t>tl_logical_xor_be_ptr)}


# (x, y) -> bool loops of the logical ops, neither operand bool (kernels/tl_loops_host.h), and
# those of a float16 join (reporting the overflow of NumPy's cast of an int past 65504)
cdef dict _LOGICAL_XY = {"logical_and": <size_t>tl_logical_and_xy_ptr,
                         "logical_or": <size_t>tl_logical_or_xy_ptr,
                         "logical_xor": <size_t>tl_logical_xor_xy_ptr}
cdef dict _LOGICAL_XY16 = {"logical_and": <size_t>tl_logical_and_xy16_ptr,
                           "logical_or": <size_t>tl_logical_or_xy16_ptr,
                           "logical_xor": <size_t>tl_logical_xor_xy16_ptr}
# the wider types a float operand's cast keeps every nonzero value nonzero in (float32's 1e-45
# is 0 in float16, and in bfloat16, whose subnormals stop at 2**-133)
_TRUTH_KEEPING = {"float16": {"bfloat16", "float32", "float64", "complex64", "complex128"},
                  "bfloat16": {"float32", "float64", "complex64", "complex128"},
                  "float32": {"float64", "complex64", "complex128"},
                  "float64": {"complex128"}, "complex64": {"complex128"}}


# get_reduction_initial of the ml_dtypes small float / sub-byte integer loops, by op identity
cdef dict _EXT_INITIAL = {0: <size_t>tl_ext_initial_0_ptr, 1: <size_t>tl_ext_initial_1_ptr,
                          -1: <size_t>tl_ext_initial_m1_ptr, "-inf": <size_t>tl_ext_initial_minf_ptr}


cdef object _logical_loop(uf, op, CompiledRules r, names, res, fixed=(None, None, None)):
    """DType classes of the (bool, x) or (x, bool) -> bool loop of a logical op, or None. It
    computes what the join would (a truth value is a truth value in any type), and (bool, x,
    bool) are the DTypes of reduce(x, out=bool array), which NumPy caches under the same key.
    ``fixed``: the signature's names (x's must be free, the others bool)."""
    if op.name not in _LOGICAL_BX or res[2] != "bool" or "bool" not in names[:2]:
        return None
    x = 1 if names[0] == "bool" else 0
    if names[x] == "bool" or fixed[x] is not None or fixed[1 - x] not in (None, "bool") \
            or fixed[2] not in (None, "bool"):
        return None
    # a weak Python scalar as the type the join gives it (its truth value there: 1e-50 is
    # False in float32), which is the loop a later call of two arrays finds too
    t = names[x] if names[x] in _LOOP_TYPE_SET or names[x] in _EXT_TYPES \
        or names[x] in _EXTI_TYPES else res[x]
    loops = _LOGICAL_BX if t in _LOOP_TYPE_SET else \
        _LOGICAL_BE if t in _EXT_TYPES or t in _EXTI_TYPES else None
    if loops is None:
        return None
    classes = [_dtype_class(r, "bool")] * 3
    classes[x] = _dtype_class(r, t)
    classes = tuple(classes)
    key = (uf, classes)
    if key not in _MIXED_DONE:
        _add_spec(uf, op, classes, <void *><size_t>loops[op.name][x], NULL,
                  <void *><size_t>_INITIAL_OF.get((op.name, "bool"), 0), NULL, b"tl_logical",
                  False, None, NULL, (_dtype_class(r, res[0]), _dtype_class(r, res[1])))
        _MIXED_DONE[key] = "logical"
    return classes


cdef bint _truth_kept(a, t):
    """Does the cast of loop type a to loop type t keep every nonzero value nonzero (and zero
    zero)? Integers into a float type or an integer type at least as wide (a narrower one wraps
    256 to 0), floats into the wider types of _TRUTH_KEEPING."""
    if a == t:
        return True
    ka, kt = _kind(a), _kind(t)
    if ka in ("i", "u"):
        return kt in ("f", "c") or (
            kt in ("i", "u") and dtype_of(t).itemsize >= dtype_of(a).itemsize)
    return t in _TRUTH_KEEPING.get(a, ())


cdef object _truth_loop(uf, op, CompiledRules r, names, res):
    """DType classes of the (x, y) -> bool loop of a logical op for two arrays of other types
    than bool (reading their truth values in place), or None: where the casts to the join
    keep the truth values, as NumPy's loop of the join would read them."""
    if op.name not in _LOGICAL_XY or res[2] != "bool" or res[0] != res[1]:
        return None
    a, b, t = names[0], names[1], res[0]
    if a == b or "bool" in (a, b) or not {a, b, t} <= _LOOP_TYPE_SET \
            or not (_truth_kept(a, t) and _truth_kept(b, t)):
        return None
    classes = (_dtype_class(r, a), _dtype_class(r, b), _dtype_class(r, "bool"))
    key = (uf, classes)
    if key not in _MIXED_DONE:
        tc = _dtype_class(r, t)
        loop = (_LOGICAL_XY16 if t == "float16" else _LOGICAL_XY)[op.name]
        _add_spec(uf, op, classes, <void *><size_t>loop, NULL, NULL, NULL, b"tl_logical_xy",
                  False, (tc, tc, classes[2]), NULL, (tc, tc))
        _MIXED_DONE[key] = "logical"
    return classes


def mixed_loop_kind(uf, dtypes):
    """Which loop of ``uf`` reads operands of ``dtypes`` (ins + outs; int/float/complex: a
    Python scalar) without a cast: "fused", "blocked", "small_float", "sub_byte_int", "weak",
    "logical"
    once the promoter registered one for them (a first call does), else None (the same-dtype
    loops, NumPy casting the operands first). For tests and benchmarks."""
    classes = tuple(_PY_SCALAR_DTYPES[d] if d in _PY_SCALAR_DTYPES else type(np.dtype(d))
                    for d in dtypes)
    return _MIXED_DONE.get((uf, classes))


def fused_loops():
    """{(op, first, second, compute type)} of the fused mixed-input loops in use."""
    return set(_FUSED)


def use_fused(on):
    """Register fused loops from now on (True, where the CPU runs them) or the blocked loops /
    NumPy's casts instead (False): a before/after switch for benchmarks, to call before the
    first mixed call (registered loops stay). Returns whether fused loops are in use."""
    _FUSED.clear()
    if on and tl_fused_ok():
        _FUSED.update(_FUSED_TABLE)
    return bool(_FUSED)
cdef object _KEEP = []          # name/doc bytes: NumPy does not copy them

# ufunc -> (op, CompiledRules); looked up by the promoter
cdef dict _REGISTRY = {}


cdef object _operand_name(CompiledRules r, cls):
    """Canonical type name (under rules r) of an operand DType class; None for None."""
    if cls is None:
        return None
    if cls is _PY_INT_DT:
        return r.python_scalars.get("int") or _no_scalar(r, "int")
    if cls is _PY_FLOAT_DT:
        return r.python_scalars.get("float") or _no_scalar(r, "float")
    if cls is _PY_COMPLEX_DT:
        return r.python_scalars.get("complex") or _no_scalar(r, "complex")
    try:
        inst = cls()
    except Exception:
        raise TypeError(f"typelattice ufuncs do not support the dtype class {cls.__name__}: "
                        "only bool, integer, floating, complex and ml_dtypes numeric dtypes "
                        f"take part in promotion (rule set {r.name!r})") from None
    return r.types[r.code(inst)]


cdef str _a(name):
    """'an int16', 'a uint8': a type name with its article, for messages."""
    return f"an {name}" if name[:1] in "aeio" else f"a {name}"


cdef object _class_label(cls):
    """An operand DType class as a short name for messages: 'int8', 'Python int', 'str_'."""
    for k, d in (("int", _PY_INT_DT), ("float", _PY_FLOAT_DT), ("complex", _PY_COMPLEX_DT)):
        if cls is d:
            return f"Python {k}"
    try:
        name = str(cls())
    except Exception:
        t = getattr(cls, "type", None)
        return t.__name__ if isinstance(t, type) else cls.__name__
    if cls is not type(np.dtype(name)):
        # np.longlong prints as int64 but is another DType than np.int64's (Linux: long)
        return f"{name} ({cls().type.__name__}, not np.{name})"
    return name


cdef object _no_scalar(CompiledRules r, kind):
    raise TypePromotionError((kind,), r, hint=f"rule set {r.name!r} has no Python {kind} type")


cdef object _dtype_class(CompiledRules r, name):
    d = r.dtypes[r.index[name]] if name in r.index else dtype_of(name)
    if d is None:
        raise TypeError(f"type {name!r} of rule set {r.name!r} has no NumPy dtype")
    return type(d)


def _reraise_with_rules(exc, op, CompiledRules r):
    """An op's domain error (TypeError/ValueError, as JAX raises it), naming the ufunc and the
    rule set."""
    if isinstance(exc, TypePromotionError):
        raise exc
    msg = str(exc)
    if msg.startswith(op.name + " "):
        msg = f"{r.name}.{msg}"      # the ufunc's own name ('jax.gcd does not accept ...')
    raise type(exc)(f"{msg} (rule set {r.name!r})") from None


cdef int _bits(name):
    return dtype_of(name).itemsize * 8


cdef bint _no_binary_op(op, CompiledRules r, t):
    """Does binary op take no two operands of type t under rules r? A type that does not join
    with itself (bfloat16 under "numpy", uint16 under "torch", bool under "tensorflow") has no
    arithmetic there; the logical ops take any truth values and ldexp promotes nothing."""
    t = r.aliases.get(t, t)             # (a storage dtype: the type stored in it)
    return op.rule != _ops.FIRST_INEXACT and op.name not in _LOGICAL_BX and t in r.index \
        and r.join_names(t, t) is None


cdef object _default_int(CompiledRules r):
    """The integer type sums of bools and small ints reduce in (jnp.sum's promote_integers): the
    type of a Python int alone (anvil's int32), else NumPy's int64 where the rule set has it
    (max, kernel_float have no Python int); None if neither."""
    name = r.python_scalars.get("int")
    if name is not None:
        w = r.weak_target(name) if name in r.index else None
        name = w if w is not None else name
        if name in r.index and _ops.kind(name) == "i" and dtype_of(name) is not None:
            return name
    return "int64" if "int64" in r.index else None


def _resolve_names(op, CompiledRules r, names, fixed, bint reduction):
    """The loop's dtype names for operand names (None for a missing reduce operand), given the
    names fixed by ``signature`` (None where free)."""
    nin = op.nin
    ins = [fixed[i] if fixed[i] is not None else names[i] for i in range(nin)]
    if nin == 1:
        return _resolve_unary(op, r, ins[0], fixed)
    if ins[0] is None:
        ins[0] = ins[1]
    if ins[1] is None:
        ins[1] = ins[0]
    if ins[0] is None:
        raise TypeError(f"{r.name}.{op.name}: no operand dtypes to promote")
    if reduction and op.out == "bool" and op.name.startswith("logical_"):
        if "bool" not in r.index:
            # (a TypeError, which NumPy passes on: no error loop, whose DTypes a plain call
            # with dtype= would share)
            x = names[1] if names[1] is not None else ins[1]
            raise TypeError(
                f"{r.name}.{op.name}.reduce/accumulate({x} array): a logical reduction "
                f"combines bool truth values, and bool is not a type of rule set {r.name!r} "
                f"(its plain call takes two {x} arrays); reduce under a rule set that has bool")
        return ("bool",) * (op.nin + op.nout)   # NumPy reduces logical ops in bool
    if ins[0] == ins[1] and _no_binary_op(op, r, ins[0]):
        # (before the op's own rules for bool pairs, which are JAX's, and before the sum of
        # bools in the default int: tensorflow's add.reduce of bools has no add to fold with)
        raise TypePromotionError((ins[0], ins[1]), r, hint=f"(in {r.name}.{op.name})")
    if reduction and op.name in ("add", "multiply") and names[2] is None \
            and all(f is None for f in fixed):
        # sum/prod of bool and small ints in the default int, as NumPy's add/multiply reduce
        # and jnp.sum/jnp.prod (promote_integers=True) do
        # (never narrower than the array's own: tensorflow's int32 default and an int64 array)
        k = _ops.kind(ins[0])
        default = _default_int(r)
        if k == "u" and default is not None:
            # the unsigned default where it has arithmetic (NumPy's, jnp.sum's uint64), else the
            # signed one if wider (torch.sum of uint8 is int64; torch has no uint64 arithmetic)
            u = "u" + default
            if u in r.index and r.join_names(u, u) is not None:
                default = u
            elif _bits(default) <= _bits(ins[0]):
                default = None
        if k in "biu" and default is not None \
                and (k == "b" or _bits(default) >= _bits(ins[0])):
            return (default,) * 3

    def join(a, b):
        return r.join_names(a, b)

    materialize = functools.partial(materialized_name, r)

    outs_fixed = [f for f in fixed[nin:] if f is not None]
    # dtype=/signature fixes the output: compute in it, as NumPy does
    in_output = outs_fixed and op.out == "same" and op.rule != _ops.FIRST_INEXACT \
        and all(f is None for f in fixed[:nin])
    try:
        res = list(op.resolve(ins[0], ins[1], join, materialize))
    except _ops._NoPromotion as exc:
        raise TypePromotionError(exc.operands, r,
                                 hint=f"(in {r.name}.{op.name})") from None
    except (TypeError, ValueError) as exc:
        # (integers an integer op refuses for their join, left_shift of int64 and uint64 in
        # float64: a fixed integer output's type, where the op takes it, as signature=(t, t,
        # t) does; other refused operands, floats or bools, stay refused)
        res = None
        if in_output and all(_ops.kind(t) in ("i", "u") for t in (ins[0], ins[1], outs_fixed[0])):
            try:
                res = list(op.resolve(outs_fixed[0], outs_fixed[0], join, materialize))
            except (TypeError, ValueError, _ops._NoPromotion):
                pass
        if res is None:
            _reraise_with_rules(exc, op, r)
    if in_output:
        res = [outs_fixed[0]] * len(res)
    for i, f in enumerate(fixed):
        if f is not None:
            res[i] = f
    return res


def _resolve_unary(op, CompiledRules r, a, fixed):
    """Loop dtype names of a unary op for operand name ``a`` (signature entries ``fixed``)."""
    if a is None:
        raise TypeError(f"{r.name}.{op.name}: no operand dtype to resolve")

    materialize = functools.partial(materialized_name, r)

    try:
        res = list(op.resolve(a, None, None, materialize))
    except (TypeError, ValueError) as exc:
        _reraise_with_rules(exc, op, r)
    outs_fixed = [f for f in fixed[1:] if f is not None]
    if outs_fixed and op.nout == 1 and op.out == "same" and fixed[0] is None:
        # dtype=/signature fixes the output: compute in it, as NumPy does
        res = [outs_fixed[0]] * 2
    for i, f in enumerate(fixed):
        if f is not None:
            res[i] = f
    return res


cdef object _loop_not_named(uf, CompiledRules r, keyword, fixed, given, computed, advice,
                            call=None):
    """The TypeError of a dtype=/signature= (``keyword``) whose ``fixed`` DType classes name a
    loop the rule set does not have: it computes ``given`` in ``computed``. ``call``: the name
    the message gives the call (the ufunc's)."""
    asked = ", ".join(_class_label(f) if f is not None else "None" for f in fixed)
    return TypeError(f"{call or uf.__name__}: {keyword}=({asked}) names a loop rule set "
                     f"{r.name!r} does not have: it computes "
                     f"({', '.join(_class_label(c) for c in given)}) in "
                     f"({', '.join(_class_label(c) for c in computed)}); {advice}")


cdef object _plain_loop_giving(uf, op, CompiledRules r, op_classes, sig_classes):
    """The DType classes of the plain call's loop on operand classes ``op_classes`` where they
    are the ones ``sig_classes`` fixes (None entries free), else None."""
    try:
        plain = _loop_classes(uf, op, r, list(op_classes[:op.nin]) + [None] * op.nout,
                              [None] * (op.nin + op.nout))
    except (TypeError, ValueError):
        return None
    if plain is not None and all(f is None or f is p for f, p in zip(sig_classes, plain)):
        return plain
    return None


cdef object _loop_classes(uf, op, CompiledRules r, op_classes, sig_classes):
    """DType classes of the loop for operand DType classes ``op_classes`` (None: not given;
    the first input None: a reduction) under ``signature`` classes: the promoter's answer,
    registering the loop it names on first use."""
    cdef int nargs = op.nin + op.nout
    cdef int i
    try:
        names = [_operand_name(r, op_classes[i]) for i in range(nargs)]
        fixed = [_operand_name(r, sig_classes[i]) for i in range(nargs)]
    except TypePromotionError as exc:
        # a type the rule set does not have (float16 under anvil, a Python int under max):
        # raised by an error loop, as below, naming every operand
        ins = list(op_classes[:op.nin])
        if ins[0] is None:              # a reduction: its operand twice, as the loop sees it
            ins[0] = ins[len(ins) - 1]  # (no negative indices: wraparound=False)
        labels = tuple([_class_label(c) for c in ins if c is not None])
        err = TypePromotionError(labels, r, hint=f"{exc.hint} (in {uf.__name__})")
        try:
            for c in op_classes[:op.nin]:
                if c is not None:
                    _operand_name(r, c)
        except TypePromotionError:
            pass
        else:
            # the operands are the rule set's: the missing type is dtype='s, out='s or the
            # signature's, so no error loop under the operands' DTypes, where NumPy would find
            # it for the plain call too (add(uint32, 200) raised after add(..., dtype=int4))
            # (not the operands: NumPy puts the signature's DTypes in their places)
            if all(c is not None for c in op_classes[:op.nin]):
                # unless the plain call gives those types anyway (a comparison's bool under
                # array_api, which has no bool): its loop, which NumPy's cache answers with
                # once the plain call has run
                plain = _plain_loop_giving(uf, op, r, op_classes, sig_classes)
                if plain is not None:
                    return plain
            raise TypePromotionError(labels, r, hint=err.hint, message=(
                f"{uf.__name__}: {exc.hint}, which dtype=, signature= or out= names here; name "
                f"one of its types, or cast the result explicitly afterwards")) from None
        err_classes = _error_loop(uf, op, r, None, err, ins)
        if err_classes is None:
            raise err from None
        return err_classes
    except TypeError as exc:            # an object, string, datetime... operand: name the call
        call = ", ".join(_class_label(c) for c in op_classes[:op.nin] if c is not None)
        msg = str(exc) if "rule set" in str(exc) else f"{exc} (rule set {r.name!r})"
        raise TypeError(f"{uf.__name__}({call}): {msg}") from None
    cdef bint reduction = op_classes[0] is None
    if op.rule == _ops.FIRST_INEXACT and not reduction and op_classes[1] is _UINT64_DT:
        # ldexp's exponent is taken whole, by the (t, uint64) loops, also where the rule set
        # reads uint64 as uint32 (jax32; NumPy's int64 cast would wrap 2**63 and up negative)
        names[1] = "uint64"
    cdef bint fixes_outputs = any(f is not None for f in sig_classes[op.nin:])
    if not reduction and fixes_outputs and all(c is not None for c in op_classes[:op.nin]) \
            and (all(f is not None for f in sig_classes[op.nin:])
                 or all(f is not None for f in sig_classes[:op.nin])):
        # dtype=/signature= fixing the outputs, or all inputs and an output (a reduction's
        # dtype=: (t, None, t) with the operand (t, x, t)): where the plain call on these
        # operands already gives the fixed types, its loop.
        # NumPy caches this answer under the operand DTypes, which the plain call's own
        # re-dispatch reaches too (jax32's int64 + float64 is looked up as int32 + float32):
        # another loop there would answer the plain call (a cast of the whole operand)
        plain = _plain_loop_giving(uf, op, r, op_classes, sig_classes)
        if plain is not None:
            return plain
    if not reduction and not fixes_outputs and all(c is not None for c in op_classes[:op.nin]) \
            and any(f is not None for f in sig_classes[:op.nin]):
        # a signature fixing inputs only: NumPy caches the answer under the operand DTypes with
        # the fixed ones in place, the key of the plain call on arrays of those dtypes, and
        # answers from that call's entry without asking once it ran. So that call's loop
        # answers in any order, where it is one the signature names (add(int8, uint8,
        # signature=(int8, None, None)) is the (int8, uint8) -> int16 loop; (float16, None,
        # None) for float32 + float64 casts the float32 operand to float16 for the (float16,
        # float64) loop), else a TypeError. (NumPy's accumulate(x, out=o) asks again with
        # (o's loop type, None, None): a cast-first loop there kept later plain calls off the
        # mixed loop; jax32's ldexp(float64, int64, signature=(float64, int64, None)) left
        # them wrapping the exponent.)
        key = [sig_classes[i] if sig_classes[i] is not None else op_classes[i]
               for i in range(nargs)]
        plain = _loop_classes(uf, op, r, key, [None] * nargs)
        if all(f is None or f is p for f, p in zip(sig_classes, plain)):
            return plain
        raise _loop_not_named(uf, r, "signature", sig_classes, key[:op.nin], plain,
                              "cast the operands first (x.astype(...)) or leave signature= out")
    try:
        res = _resolve_names(op, r, names, fixed, reduction)
    except TypePromotionError as exc:
        # NumPy replaces errors raised in a promoter by its generic no-loop error: dispatch to
        # an error loop instead, whose resolve_descriptors raises this TypePromotionError.
        ins = None
        if reduction:       # the operand twice (or the fixed type and it), as the loop sees it
            ins = [sig_classes[i] if sig_classes[i] is not None else op_classes[op.nin - 1]
                   for i in range(op.nin)]
        classes = _error_loop(uf, op, r, names, exc, ins)
        if classes is None:
            raise
        return classes
    if reduction and res[op.nin] != res[0] and all(f is None for f in fixed):
        # a comparison's bool cannot be folded with the next element (NumPy would retry with
        # (bool, x) operands, which is also the plain call's lookup)
        raise TypeError(f"{uf.__name__}.reduce/accumulate({names[1]} array): each step "
                        f"gives a {res[op.nin]}, not {_a(names[1])} to combine with the next "
                        f"element (rule set {r.name!r}); reduce x.astype({res[op.nin]!r}), "
                        "as NumPy's dtype= would")
    if any(f is not None for f in fixed[:op.nin]) and len(set(res[:op.nin])) > 1 \
            and op.rule != _ops.FIRST_INEXACT \
            and not (op.name in _LOGICAL_BX and fixed[0] == "bool"):
        # (ldexp's loops take (float, int); a logical op's (bool, x) loop computes in bool)
        # NumPy caches this answer under the operands' DTypes, with the fixed ones in place:
        # the plain call on arrays of those dtypes shares it, so it cannot be a cast to the
        # fixed type (as NumPy's dtype= of a reduction is) while that call joins
        i = next(i for i in range(op.nin) if fixed[i] is not None)
        raise TypeError(f"{uf.__name__}: signature/dtype= fixes input {i} to {fixed[i]}, but "
                        f"typelattice's loop for ({', '.join(str(n) for n in names[:op.nin])})"
                        f" does not compute in {fixed[i]} (rule set {r.name!r}); cast the "
                        f"operands to {fixed[i]} first (x.astype({fixed[i]!r}))")
    classes = None
    if not reduction and op.name in _LOGICAL_BX and (res[0] in _EXT_TYPES or res[0] in _EXTI_TYPES
                                                     or res[1] in _EXT_TYPES or res[1] in _EXTI_TYPES):
        # a bool operand with a small float or sub-byte integer: the (bool, x) loop, which
        # reduce(x, out=bool array / dtype=bool) shares
        classes = _logical_loop(uf, op, r, names, res, fixed)
        if classes is not None:
            return classes
    ext = (_EXT_LOOPS, b"tl_small_float", "small_float") if res[0] in _EXT_TYPES else \
        (_EXTI_LOOPS, b"tl_sub_byte_int", "sub_byte_int") if res[0] in _EXTI_TYPES else None
    if ext is not None and ext[2] == "sub_byte_int" and op.name in _ops.SUB_BYTE_UNSIGNED_ONLY \
            and res[0].startswith("int"):
        raise TypeError(f"{uf.__name__} does not accept {res[0]} (operands "
                        f"{tuple(n for n in names[:op.nin])}, rule set {r.name!r}): jax.numpy "
                        f"runs {op.name} on the unsigned sub-byte integers only; cast to a core "
                        "dtype explicitly, e.g. x.astype('int8')")
    # (the loop writes the op's own output types: logical_and.reduce(float8, dtype=float8)
    # would otherwise get the bool-writing loop under float8 outputs)
    ext_outs = tuple("bool" if o == "bool" else res[0] if o in ("same", "real") else o
                     for o in op.outs())
    if ext is not None and op.name in ext[0] and tuple(res[op.nin:]) == ext_outs \
            and all(x in (res[0], "bool", op.out) for x in res[:op.nin]):
        # an ml_dtypes small float (computed in float32) or sub-byte integer (in int8, wrapped):
        # its loop, registered on first use; a Python int with a sub-byte integer as int64, for
        # the loop to check its range (ml_dtypes' conversion would wrap it)
        key = op.name
        classes = tuple(_dtype_class(r, t) for t in res)
        if ext[2] == "sub_byte_int" and op.nin == 2 and not reduction \
                and all(f is None for f in fixed):
            for i in range(2):
                if op_classes[i] is _PY_INT_DT and op_classes[1 - i] is not _PY_INT_DT:
                    key = f"{op.name}@pyint{i}"
                    classes = classes[:i] + (_PY_INT_CARRIER,) + classes[i + 1:]
                    break
        if (uf, classes) not in _MIXED_DONE:
            # (the identity, for reductions with where= and empty ones, as NumPy's loops give it)
            initial = _EXT_INITIAL.get(op.identity, 0) if type(op.identity) in (int, str) \
                and op.out != "bool" and classes[0] is classes[len(classes) - 1] else 0
            _add_spec(uf, op, classes, <void *><size_t>ext[0][key], NULL,
                      <void *><size_t>initial,
                      (NULL if _PY_INT_CARRIER not in classes else tl_exti_pyint_resolve_ptr
                       if len(classes) == 3 else tl_exti_pyint_resolve4_ptr), ext[1])
            _MIXED_DONE[(uf, classes)] = ext[2]
    else:
        for t in res:
            if t not in _LOOP_TYPE_SET:
                core = "int8" if t in _EXTI_TYPES else "float32"    # (a type the op takes)
                raise TypeError(f"{r.name}.{op.name} has no loop for {t} (operands "
                                f"{tuple(n for n in names[:op.nin])}, rule set {r.name!r}): "
                                f"cast to a core dtype explicitly, e.g. x.astype({core!r})")
        if not reduction and all(f is None for f in fixed):
            if op.nin == 2:
                for i in range(2):
                    if op_classes[i] is _PY_FLOAT_DT or op_classes[i] is _PY_COMPLEX_DT:
                        classes = _weak_loop(uf, op, r, names, res, i, op_classes[i])
                        break
            if classes is None:
                classes = _logical_loop(uf, op, r, names, res)
            if classes is None:
                classes = _truth_loop(uf, op, r, names, res)
            if classes is None:
                classes = _mixed_loop(uf, op, r, names, res)
        elif op.name in _LOGICAL_BX and fixed[0] == "bool":
            # reduce(x, dtype=bool), reduce(x, out=array of another dtype) (NumPy fixes bool
            # there): the loop reduce(x, out=bool array) takes
            classes = _logical_loop(uf, op, r, names, ["bool"] * 3, fixed)
        if classes is None:
            classes = [_dtype_class(r, t) for t in res]
    if not reduction:
        # an operand the rule set canonicalizes (jax32's int64 array is an int32 array), or one
        # NumPy would not cast to the loop's type (kernel_float's float8_e4m3fn + float16)
        canon = _canon_loop(uf, op, r, op_classes, tuple(classes), sig_classes)
        if canon is not None:
            classes = canon
    for i in range(op.nin):
        c = op_classes[i] if op_classes[i] is not None else op_classes[op.nin - 1]
        if classes[i] is c or c in (_PY_INT_DT, _PY_FLOAT_DT, _PY_COMPLEX_DT) \
                or sig_classes[i] is not None:
            continue
        try:
            _operand_name(r, classes[i])
        except TypeError:
            # NumPy would cast the operand to a type the rule set lacks (JAX's to-inexact table's
            # float32 for an int16 under a rule set without it) and find no loop for it
            t = _class_label(classes[i])
            raise TypeError(f"{uf.__name__}{'.reduce' if reduction else ''}("
                            f"{', '.join(n for n in names[:op.nin] if n is not None)}) computes "
                            f"in {t}, which is not a type of rule set {r.name!r}: add {t} to "
                            f"the rule set, or cast the operands explicitly") \
                from None
    return classes


cdef inline object _class_or_none(void *dt):
    return <object><PyObject *>dt if dt != NULL else None


ERROR_SLOTS = TL_N_ERR_SLOTS     # how many ufunc objects can have error loops (tests)
cdef dict _ERR_SLOT = {}        # ufunc -> error slot
cdef list _ERR_UFUNC = []       # slot -> ufunc
cdef dict _ERR_INFO = {}        # (slot, DType classes) -> TypePromotionError operands, hint


cdef int _promoter(PyObject *ufunc, void *const *op_dtypes, void *const *signature,
                   void **new_op_dtypes) except -1:
    uf = <object>ufunc
    op, r = _REGISTRY[uf]
    cdef int nargs = op.nin + op.nout
    cdef int i
    ops = [_class_or_none(op_dtypes[i]) for i in range(nargs)]
    classes = _loop_classes(uf, op, r, ops, [_class_or_none(signature[i]) for i in range(nargs)])
    # NumPy gives up on a promoter returning the operand DTypes unchanged, as it does for a loop
    # registered just now for them (reduce(x, dtype=bool) of a logical op): the outputs are left
    # open then, for NumPy's next lookup to find that loop. Only then: with no loop for them
    # (sqrt(x, dtype=int32)), NumPy would call the promoter again with the same DTypes, forever
    key = (uf, tuple(classes))
    unchanged = all(classes[i] is ops[i] for i in range(nargs)) \
        and (key in _LOOP_OF or key in _MIXED_DONE or (_ERR_SLOT.get(uf), key[1]) in _ERR_INFO)
    for i in range(nargs):
        if unchanged and i >= op.nin:
            new_op_dtypes[i] = NULL
            continue
        c = classes[i]
        Py_INCREF(c)
        new_op_dtypes[i] = <void *><PyObject *>c
    return 0


cdef object _error_loop(uf, op, CompiledRules r, names, exc, in_classes=None):
    """Register (once) an error loop for these operand DTypes (the materialized types of
    ``names``, or the DType classes ``in_classes``); its DType classes, or None."""
    if in_classes is None and (op.nin != 2 or names[0] is None or names[1] is None):
        return None
    if in_classes is not None:
        concrete = [c for c in in_classes if c is not None and not c._abstract]
        if None in in_classes or not concrete:
            return None
    slot = _ERR_SLOT.get(uf)
    if slot is None:
        if len(_ERR_UFUNC) >= TL_N_ERR_SLOTS:
            return None
        slot = len(_ERR_UFUNC)
        _ERR_UFUNC.append(uf)
        _ERR_SLOT[uf] = slot
    if in_classes is not None:
        classes = tuple(in_classes) + (concrete[0],) * op.nout
        hint = exc.hint
    else:
        ins, labels = [], []
        for t in names[:2]:
            w = r.weak_target(t) if t in r.index else None
            d = dtype_of(w if w is not None else t)
            if d is None:
                return None
            ins.append(type(d))
            labels.append(w if w is not None else t)
        if labels != list(names[:2]):
            try:            # (a rule set may join the materialized types but not the weak one)
                _resolve_names(op, r, labels + [None] * op.nout, [None] * (2 + op.nout), False)
                return None
            except (TypeError, ValueError):
                pass
        classes = tuple(ins) + (ins[0],) * op.nout
        # (the loop raises for arrays of these dtypes too, in any order: named as such, not as
        # the weak type of the call that registered it, and with no note on it)
        hint = f"(in {r.name}.{op.name})"
    if (uf, classes) in _LOOP_OF or (uf, classes) in _MIXED_DONE:
        return None     # a real loop holds these DTypes (the error is dtype='s: float16 in anvil)
    key = (slot, classes)
    if key not in _ERR_INFO:
        _ERR_INFO[key] = (tuple(labels) if in_classes is None else exc.operands, hint)
        _add_spec(uf, op, classes, NULL, NULL, NULL, tl_err_resolvers[slot], b"tl_error",
                  False, None, tl_err_get_loop_ptr)
    return classes


cdef int _raise_err(uf, slot, classes) noexcept with gil:
    """Set the TypePromotionError of error loop ``classes`` of ufunc ``uf``; -1."""
    op, r = _REGISTRY[uf]
    info = _ERR_INFO.get((slot, classes))
    if info is None:
        info = (tuple(c.__name__ for c in classes[:op.nin]), None)
    err = TypePromotionError(info[0], r, hint=info[1])
    PyErr_SetObject(type(err), err)
    return -1


cdef int _err_cb(int slot, PyArray_DTypeMeta *const *dtypes) noexcept with gil:
    uf = _ERR_UFUNC[slot]
    return _raise_err(uf, slot, tuple(<object><PyObject *>dtypes[i] for i in range(uf.nargs)))


cdef int _err_loop_cb(PyObject *caller, PyArray_Descr *const *descrs) noexcept with gil:
    uf = <object>caller
    return _raise_err(uf, _ERR_SLOT.get(uf),
                      tuple(type(<object><PyObject *>descrs[i]) for i in range(uf.nargs)))


tl_err_cb = <tl_err_cb_t>_err_cb
tl_err_loop_cb = <tl_err_loop_cb_t>_err_loop_cb


cdef int _weak_fpe(int flags) noexcept:
    # called by tl_weak.c holding the GIL: NumPy's own report of a Python scalar's conversion
    return PyUFunc_GiveFloatingpointErrors(b"cast", flags)


tl_weak_fpe_cb = <tl_weak_fpe_cb_t>_weak_fpe


# (ufunc, DType classes) -> (its strided loop as registered, whether NumPy checks FP flags)
cdef dict _LOOP_OF = {}


# integers that can pass float16's largest value (65504)
cdef frozenset _PAST_F16_CLASSES = frozenset(type(dtype_of(t)) for t in
                                             ("uint16", "int32", "uint32", "int64", "uint64"))
cdef object _F16_CLASS = type(dtype_of("float16"))
cdef object _BF16_CLASS = type(dtype_of("bfloat16"))


cdef bint _f16_overflow_input(op, classes):
    """Does this loop convert an integer input to float16 itself (a mixed loop), where a value
    past 65504 overflows, which NumPy's cast reports?"""
    ins = classes[:op.nin]
    return _F16_CLASS in ins and any(c in _PAST_F16_CLASSES for c in ins)


cdef int _clears_fpe(op, classes, fp_classes):
    """tl_thr_wrap's quiet for the loop of op for these classes: the quiet ops computing in floats
    (declared free of FP errors, they compare NaNs with ordered compares and max instructions;
    bool results use quiet integer keys instead) clear the FP flags after them: 1 but in a
    reduction's calls, for the float32/float64 max/min loops (whose reduction clears them itself
    where it met a NaN: tl_red_* of TL_MM_RED), 2 always for the others, 3 only 'invalid' where
    the loop converts an integer to float16 (its overflow is the cast's, which NumPy reports);
    0: other loops."""
    if op.quiet and _f16_overflow_input(op, classes):
        return 3
    if op.name in _ops.BITS16 and all(c is _F16_CLASS or c is _BF16_CLASS for c in classes):
        # loops on the bits: nothing of theirs to clear, and an overflow of NumPy's cast of an
        # input in the same call (maximum.reduce(int64_array, dtype=float16)) is NumPy's to report
        return 0
    if not op.quiet or op.out == "bool" or all(c in _INT_CLASSES for c in fp_classes):
        return 0
    if (op.name in ("maximum", "minimum", "fmax", "fmin") and classes[0] in _F32_F64_CLASSES
            and all(c is classes[0] for c in classes)):
        return 1
    return 2


cdef dict _COMPUTE_OF = {}      # (ufunc, loop classes) -> the inputs' inline conversion targets
cdef tuple _CAST_LEVELS = (("no", NPY_NO_CASTING), ("equiv", NPY_EQUIV_CASTING),
                           ("safe", NPY_SAFE_CASTING))


cdef int _inline_casting(in_classes, compute) except -1:
    """The casting a mixed loop reports to NumPy: the least that allows converting each input
    to its compute class, as NumPy judges the cast it would otherwise make before a same-dtype
    loop (casting='no' refuses tl.add(int16, float32) as np.add does), but never above
    same_kind: the rules join these types, whatever casts ml_dtypes registers (float8_e4m3fn ->
    float16 is 'unsafe' there)."""
    cdef int level = NPY_NO_CASTING
    for c, t in zip(in_classes, compute):
        if c is t or c is _PY_INT_DT or c is _PY_FLOAT_DT or c is _PY_COMPLEX_DT \
                or c is _PY_INT_CARRIER or c._abstract:
            continue
        need = NPY_SAME_KIND_CASTING
        for name, value in _CAST_LEVELS:
            if np.can_cast(c(), t(), name):
                need = value
                break
        level = max(level, need)
    return level


cdef int _add_spec(uf, op, classes, void *loop, void *indexed, void *initial, void *resolve,
                   bytes name, bint threaded=False, fp_classes=None,
                   void *get_loop=NULL, compute=None) except -1:
    """Register a loop for DType ``classes``; its runtime flags. threaded: ``loop`` is already
    wrapped by tl_thr_wrap; fp_classes: the classes deciding whether the loop checks FP flags
    (default: ``classes``); get_loop: NPY_METH_get_loop instead of ``loop``; compute: the
    classes its inputs are converted to inline (a mixed loop's), which casting= judges."""
    cdef PyArrayMethod_Spec spec
    cdef PyType_Slot slots[5]
    cdef PyArray_DTypeMeta *dtypes[4]
    cdef int k, ns = 0
    for k in range(op.nin + op.nout):
        dtypes[k] = <PyArray_DTypeMeta *><PyObject *>classes[k]
    if fp_classes is None:
        fp_classes = classes
    memset(slots, 0, sizeof(slots))
    if get_loop != NULL:
        slots[ns].slot = NPY_METH_get_loop
        slots[ns].pfunc = get_loop
    else:
        slots[ns].slot = NPY_METH_strided_loop
        # splits large calls (threads)
        slots[ns].pfunc = loop if threaded else tl_thr_wrap_ptr(loop, op.nin, op.nout,
                                                                _clears_fpe(op, classes, fp_classes))
    ns += 1
    if indexed != NULL:
        slots[ns].slot = NPY_METH_contiguous_indexed_loop
        slots[ns].pfunc = indexed
        ns += 1
    if initial != NULL:
        slots[ns].slot = NPY_METH_get_reduction_initial
        slots[ns].pfunc = initial
        ns += 1
    if resolve != NULL:
        slots[ns].slot = NPY_METH_resolve_descriptors
        slots[ns].pfunc = resolve
        ns += 1
    _KEEP.append(name)
    spec.name = name
    spec.nin = op.nin
    spec.nout = op.nout
    spec.casting = NPY_NO_CASTING if compute is None else \
        _inline_casting(classes[:op.nin], compute[:op.nin])
    if compute is not None:
        _COMPUTE_OF[(uf, tuple(classes))] = tuple(compute[:op.nin])
    spec.flags = NPY_METH_IS_REORDERABLE if op.reorderable else 0
    quiet = op.quiet and not (op.out == "bool" and op.name not in ("equal", "not_equal")
                              and fp_classes[0] in _COMPLEX_CLASSES) \
        and not _f16_overflow_input(op, classes)    # NumPy warns there
    if quiet or op.name not in _RAISES_FPE and all(c in _INT_CLASSES for c in fp_classes):
        # integer/bool loops that never touch the FPU: skip the FP status checks
        spec.flags |= NPY_METH_NO_FLOATINGPOINT_ERRORS
    spec.dtypes = dtypes
    spec.slots = slots
    PyUFunc_AddLoopFromSpec(uf, &spec)
    if get_loop == NULL:
        _LOOP_OF[(uf, tuple(classes))] = (<size_t>slots[0].pfunc,
                                          not spec.flags & NPY_METH_NO_FLOATINGPOINT_ERRORS)
    return spec.flags & NPY_METH_RUNTIME_FLAGS


# -- the call path of kernels/tl_fastcall.h ----------------------------------------------------
cdef list _FAST_UFUNC = []      # slot -> ufunc
cdef dict _FAST_SLOT_OF = {}    # ufunc -> slot
# operand kind codes: the loop types (their DType classes and dtypes), then Python int/float/complex
cdef list _FAST_CLASSES = _LOOP_DTYPES + [_PY_INT_DT, _PY_FLOAT_DT, _PY_COMPLEX_DT]
cdef list _FAST_DTYPES = [dtype_of(t) for t in _ops.LOOP_TYPES]
cdef dict _CODE_OF_CLASS = {c: i for i, c in enumerate(_LOOP_DTYPES)}
cdef tuple _FAST_PROBES = (int, float, complex)   # resolve_dtypes' spelling of weak scalars


cdef int _fast_fill(int slot, const int *codes, tl_fast_entry *e) except -1:
    """Fill e with the loop NumPy runs for operand kinds ``codes`` (state 1), or mark it for
    NumPy's path (state -1): the loop must read the arrays' own dtypes; a Python scalar is
    converted to the loop's type at its position. Where that is a weak loop (tl_weak.c), the
    call converts the scalar itself as the weak loop would and runs the same-dtype loop the weak
    loop wraps, one call layer less. Where NumPy would cast an array first, the mirrored op's
    loop of the operands in the other order may serve (_fast_fill_mirrored)."""
    uf = _FAST_UFUNC[slot]
    e.state = -1
    e.swap = 0
    if not _fast_fill_direct(uf, codes, e) and _REGISTRY[uf][0].nin == 2:
        if not _fast_fill_mirrored(uf, codes, e):
            _fast_fill_withheld(uf, codes, e)
    return 0


cdef bint _fast_fill_withheld(uf, const int *codes, tl_fast_entry *e) except -1:
    """The blocked (t, x) loop of a reorderable op with a complex join t, which the promoter
    keeps from NumPy's dispatch (_mixed_loop: its reduce(x, dtype=t) would take it): the call
    path runs it for complex64 + float16 arrays, where NumPy would cast the float16 array."""
    if not (0 <= codes[0] < TL_FAST_NTYPES and 0 <= codes[1] < TL_FAST_NTYPES):
        return False
    op = _REGISTRY[uf][0]
    a, b = _FAST_DTYPES[codes[0]], _FAST_DTYPES[codes[1]]
    got = uf.resolve_dtypes((a, b, None))
    t = got[0]
    if not _withheld_from_dispatch(op, a.name, t.name) or got[1] != t or b == t \
            or b.name not in _EXACT_INPUTS[t.name]:
        return False
    loop = _MIXED.get(op.name, {}).get(t.name)
    if loop is None:
        return False
    for i, d in enumerate((a, b, got[2])):
        Py_INCREF(d)
        e.descrs[i] = <PyArray_Descr *><PyObject *>d
    classes = (type(a), type(b), type(got[2]))
    # (wrapped as _add_spec wraps it: quiet ops clear the flags of their NaN compares)
    e.loop = tl_thr_wrap_ptr(<void *><size_t>loop, 2, 1, _clears_fpe(op, classes, classes))
    e.check_fpe = 1
    e.state = 1
    return True


# ops whose call with the operands in the other order gives the same values, bit for bit: the
# comparisons (mirrored) and integer arithmetic; (float add/multiply would pick the other NaN's
# payload, float maximum/minimum the other zero)
_MIRRORED_OPS = {"less": "greater", "greater": "less", "less_equal": "greater_equal",
                 "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}
_COMMUTING_INT_OPS = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "bitwise_and",
                      "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"}
cdef dict _MIRROR_OF = {}      # ufunc -> the ufunc computing it with the operands swapped


cdef bint _fast_fill_mirrored(uf, const int *codes, tl_fast_entry *e) except -1:
    """Where NumPy would cast one of two arrays first (jnp.less(bool_array, float16_array) in
    float16, 90x the float16 call by NumPy's scalar cast; int64 + int8, whose (int64, int8) loop
    would serve NumPy's add.reduce(int8, dtype=int64) and so is not registered): the loop of the
    mirrored op (greater for less) for the operands in the other order, where it reads both
    arrays' own dtypes and gives NumPy's result dtype. Its values are the call's: the mixed
    loops convert inline exactly as NumPy's cast does."""
    cdef int swapped[2]
    if not (0 <= codes[0] < TL_FAST_NTYPES and 0 <= codes[1] < TL_FAST_NTYPES):
        return False
    muf = _MIRROR_OF.get(uf)
    if muf is None:
        return False
    a, b = _FAST_DTYPES[codes[0]], _FAST_DTYPES[codes[1]]
    want = uf.resolve_dtypes((a, b, None))[2]
    if _REGISTRY[uf][0].name not in _MIRRORED_OPS and want.kind not in "biu":
        return False
    # (_fast_fill_direct checks its loop's dtypes against this resolution)
    if muf.resolve_dtypes((b, a, None))[2] != want:
        return False
    swapped[0] = codes[1]
    swapped[1] = codes[0]
    if not _fast_fill_direct(muf, swapped, e):
        return False
    e.swap = 1
    return True


cdef bint _fast_fill_direct(uf, const int *codes, tl_fast_entry *e) except -1:
    """_fast_fill's own loop of uf for ``codes``: whether it filled e."""
    op, r = _REGISTRY[uf]
    cdef int nin = op.nin, nargs = op.nin + op.nout, i, c, to
    classes = tuple(_loop_classes(uf, op, r, [_FAST_CLASSES[codes[i]] for i in range(nin)]
                                  + [None] * op.nout, [None] * nargs))
    rec = _LOOP_OF.get((uf, classes))
    if rec is None:
        return False
    descrs = []
    for i in range(nargs):
        k = classes[i]
        c = codes[i] if i < nin else -1
        if 0 <= c < TL_FAST_NTYPES:
            if k is not _FAST_CLASSES[c]:
                return False            # NumPy casts this array first
            descrs.append(_FAST_DTYPES[c])
            continue
        if k is _PY_FLOAT_DT or k is _PY_COMPLEX_DT:
            t = classes[1 - i] if nin == 2 else None
            rec = (_LOOP_OF.get((uf, classes[:i] + (t,) + classes[i + 1:]))
                   if t in _CODE_OF_CLASS else None)
            if rec is None:
                return False
            to = _CODE_OF_CLASS[t]
            descrs.append(_FAST_DTYPES[to])
        elif k in _CODE_OF_CLASS:
            to = _CODE_OF_CLASS[k]
            descrs.append(_FAST_DTYPES[to])
        else:
            return False
        if i < nin:
            e.to[i] = to
    # NumPy's own resolution of these operands gives the same dtypes
    got = uf.resolve_dtypes(tuple(_FAST_DTYPES[codes[i]] if codes[i] < TL_FAST_NTYPES
                                  else _FAST_PROBES[codes[i] - TL_FAST_PYINT]
                                  for i in range(nin)) + (None,) * op.nout)
    for i in range(nargs):
        if (i >= nin or codes[i] < TL_FAST_NTYPES) and got[i] != descrs[i]:
            return False
    for i in range(nargs):
        Py_INCREF(descrs[i])
        e.descrs[i] = <PyArray_Descr *><PyObject *>descrs[i]
    e.loop = <void *><size_t>rec[0]
    e.check_fpe = rec[1]
    e.state = 1
    return True


cdef int _fast_resolve(int slot, const int *codes, tl_fast_entry *e) noexcept with gil:
    try:
        _fast_fill(slot, codes, e)
    except Exception:
        e.state = -1                    # NumPy's path: it raises the error, or finds its way
    return 0


cdef int _fast_nums[15]
assert len(_ops.LOOP_TYPES) == TL_FAST_NTYPES == 15
for _m, _t in enumerate(_ops.LOOP_TYPES):
    _fast_nums[_m] = dtype_of(_t).num
if tl_fast_init(_fast_nums) < 0:
    raise MemoryError("typelattice: call path set-up")
tl_fast_resolve_cb = <tl_fast_resolve_t>_fast_resolve


def _register_scalar_types():
    """Let the call path read NumPy scalars of the loop dtypes where their value sits right after
    the object header (as in NumPy's and ml_dtypes' scalar structs): checked on a known value."""
    for code, d in enumerate(_FAST_DTYPES):
        x = d.type(True) if d.kind == "b" else d.type(-3 if d.kind in "ifc" else 3)
        want = np.asarray(x, d).tobytes()
        if type(x) is d.type and PyBytes_FromStringAndSize(TL_FAST_SCALAR_VALUE(x),
                                                           d.itemsize) == want:
            tl_fast_set_scalar_type(code, d.type)


_register_scalar_types()


def set_fastcall(on=None):
    """Plain calls through typelattice's own call path (True, the default; environment
    TYPELATTICE_FASTCALL=0 turns it off at import) or always through NumPy's (False): a switch
    for tests and benchmarks. None only reports. Returns whether it is on."""
    if on is not None:
        tl_fast_set(1 if on else 0)
    return bool(tl_fast_get())


def fastcall_count():
    """How many calls typelattice's call path has run (tests)."""
    return tl_fast_count()


def mirrored_call_count():
    """How many calls left the call path for NumPy's call of the mirrored ufunc on the swapped
    operands (tests)."""
    return tl_fast_mirror_count()


def _call_loop_dtypes(uf, op, args, fixed, casting):
    """The loop dtypes NumPy resolves for a call's inputs ``args`` (a Python int/float/complex
    by its type: weak) under the dtypes dtype=/signature= fix (``fixed``; None: none) and
    ``casting``."""
    kinds = [type(x) if type(x) in (int, float, complex) else
             x.dtype if type(x) is np.ndarray else np.asarray(x).dtype for x in args[:op.nin]]
    kinds += [None] * op.nout
    if fixed is None:
        return uf.resolve_dtypes(tuple(kinds), casting=casting)
    return uf.resolve_dtypes(tuple(kinds), casting=casting, signature=tuple(fixed))


def _overflow_error(uf, args, kwargs, err):
    """The OverflowError a call raises instead of NumPy's ``err`` when a Python int operand does
    not fit the dtype it takes (the array's, by the weak-int rule; the loop's, where ``kwargs``'
    dtype=/signature= choose one), the TypeError when ml_dtypes cannot convert it (``err`` a
    TypeError), the TypePromotionError of operand types that do not promote, or None (NumPy's
    error stands). Called by kernels/tl_fastcall.h."""
    try:
        op, r = _REGISTRY[uf]
        args = args[:op.nin]            # (not an out= given positionally)
        if getattr(err, "from_", None) is not None and getattr(err, "to", None) is not None:
            return None                 # (a casting refusal: a weak array's call's, say)
        fixed = _fixed_dtypes(kwargs, op.nin, op.nout)
        casting = "same_kind"
        if fixed is not None:
            # the loop dtype=/signature= choose (an int that fits its float32 computes, as
            # NumPy's does), whatever casting= says of the other operand's cast to it (NumPy
            # converts the int first). (Not under casting='equiv': NumPy 2.4's resolve_dtypes
            # of a Python int crashes the process there.)
            if kwargs.get("casting") == "equiv":
                return None
            casting = "unsafe"
        got = _call_loop_dtypes(uf, op, args, fixed, casting)
    except TypePromotionError as exc:
        return exc      # the types do not promote (NumPy converted the int before saying so)
    except Exception as exc:
        # (no cast at all of an array operand to the fixed loop, int4 -> uint2: that refusal,
        # under the call's casting=, not NumPy's error of the int it converted first)
        if fixed is not None and getattr(exc, "in_i", None) is not None \
                and type(args[exc.in_i]) not in (int, float, complex):
            new = _input_casting_error(uf, kwargs.get("casting", "same_kind"), exc.from_,
                                       exc.to, exc.in_i)
            new.__cause__ = err
            return new
        return None
    for i, x in enumerate(args):
        if type(x) is float and fixed is not None and isinstance(err, OverflowError):
            new = python_float_overflow(uf.__name__, args, x, got[i], r.name)
            if new is not None:
                new.__cause__ = err
                return new
        if type(x) is int:
            dt = _scalar_loop_dtype(op, got, i)
            new = python_int_beyond_int64(uf.__name__, args, x, dt, r.name) \
                if isinstance(err, TypeError) else \
                python_int_overflow(uf.__name__, args, x, dt, r.name, fixed is not None)
            if new is not None:
                new.__cause__ = err
                return new
    return None


tl_fast_set_overflow_hook(_overflow_error)


def _scalar_loop_dtype(op, got, i):
    """The dtype a Python scalar operand i takes in the loop of resolved dtypes ``got``: a
    sub-byte int loop's own type (NumPy resolves the scalar's slot to another: the loop takes a
    Python int as int64, then checks it)."""
    if op.nin == 2 and got[1 - i].name in _EXTI_TYPES:
        return got[1 - i]
    return got[i]


def _fixed_dtypes(kwargs, nin, nout):
    """The dtypes a call's dtype=/signature= fix, one per operand (None: free), or None where
    they fix none; ValueError for a signature NumPy will refuse itself."""
    sig = kwargs.get("signature", kwargs.get("sig"))      # (sig=: NumPy's alias)
    if isinstance(sig, str):
        ins, _, outs = sig.replace(",", "").replace(" ", "").partition("->")
        sig = list(ins) + list(outs)
    if sig is not None and _fixes_loop_types(None, sig):
        if len(sig) != nin + nout:
            raise ValueError(f"signature= of {len(sig)} types for {nin + nout} operands")
        return [None if t is None else _as_dtype(t) for t in sig]
    if kwargs.get("dtype") is not None:
        return [None] * nin + [_as_dtype(kwargs["dtype"])] * nout
    return None


def _as_dtype(t):
    """The dtype a dtype=/signature= entry names, as NumPy reads it: also a DType class
    (np.dtypes.Float64DType) or a NumPy scalar (by its dtype)."""
    if isinstance(t, type(np.dtype)) and t is not np.dtype:
        return np.dtype(t.type)
    return t.dtype if isinstance(t, np.generic) else np.dtype(t)


def _no_loop_error(uf, args, kwargs, err, call=None):
    """The TypeError typelattice's promoter gives a call where NumPy raised its generic no-loop
    ``err``, or None. With dtype=/signature=: NumPy answers from the plain call's cached loop
    once that call has run, without asking the promoter. A plain call: NumPy drops a
    TypePromotionError raised in a promoter, which raises it where it can register no error loop
    (a Python int whose weak type has no dtype; every error-loop slot taken). ``call``: the
    name the message gives the call (the ufunc's; "<ufunc>.outer")."""
    if "did not contain a loop" not in str(err):
        return None
    try:
        op, r = _REGISTRY[uf]
        if len(args) < op.nin:
            return None
        fixed = _fixed_dtypes(kwargs, op.nin, op.nout)
        plain = fixed is None
        fixed = [None] * (op.nin + op.nout) if plain else \
            [None if t is None else type(t) for t in fixed]
        # (NumPy asks the promoter with the signature's DTypes in the operands' places)
        ops = [fixed[i] if fixed[i] is not None else _PY_INT_DT if type(x) is int else
               _PY_FLOAT_DT if type(x) is float else _PY_COMPLEX_DT if type(x) is complex else
               type(np.asarray(x).dtype) for i, x in enumerate(args[:op.nin])]
        classes = _loop_classes(uf, op, r, ops + [None] * op.nout, fixed)
    except TypeError as exc:
        exc.__cause__ = err
        return exc
    except Exception:
        return None
    if plain or all(f is None or f is c for f, c in zip(fixed, classes)):
        return None
    # the loop the rule set computes these operands in is not the one named (jax32's dtype=int64:
    # it reads int64 as int32)
    exc = _loop_not_named(uf, r, "dtype=/signature", fixed, ops, classes, "cast the operands "
                          "or the result explicitly, or leave dtype=/signature= out", call)
    exc.__cause__ = err
    return exc


def _deferred_error(uf, args, kwargs, err):
    """The error the call gives on empty NumPy arrays of its operands' dtypes, where NumPy raised
    "operand type(s) all returned NotImplemented" (``err``): a dask array's __array_ufunc__
    swallows every error but OverflowError while it infers the result dtype. None where that
    call computes (``err`` stands)."""
    if "returned NotImplemented" not in str(err):
        return None
    probe = []
    for x in args:
        dt = getattr(x, "dtype", None)
        if type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
            probe.append(x)
        elif isinstance(dt, np.dtype):
            probe.append(np.empty(0, dt))
        else:
            return None     # (an operand that declines the call itself: the probe would too)
    try:
        uf(*probe, **{k: v for k, v in kwargs.items() if k in ("dtype", "signature", "casting")})
    except Exception as exc:
        exc.__cause__ = err
        return exc
    return None


def _input_casting_error(uf, casting, src, dst, i):
    """NumPy's error for a ufunc's input i that casting= refuses to cast from src to dst."""
    try:
        from numpy._core._exceptions import _UFuncInputCastingError
        return _UFuncInputCastingError(uf, casting, src, dst, i)
    except Exception:       # (NumPy's private class; its message otherwise)
        return TypeError(f"Cannot cast ufunc {uf.__name__!r} input {i} from {src!r} to "
                         f"{dst!r} with casting rule {casting!r}")


def _casting_error(uf, args, kwargs, err):
    """NumPy's error naming the input cast that casting= refuses, where NumPy raised its generic
    "not possible under the casting rule" ``err`` for a mixed loop (its casting is that of the
    conversions it makes inline, kept in _COMPUTE_OF), or None."""
    if "not possible under the casting rule" not in str(err):
        return None
    try:
        op, r = _REGISTRY[uf]
        casting = kwargs.get("casting", "same_kind")
        # (the loop does not depend on casting=; 'unsafe' resolves it without the check)
        got = _call_loop_dtypes(uf, op, args, _fixed_dtypes(kwargs, op.nin, op.nout), "unsafe")
        compute = _COMPUTE_OF[(uf, tuple(type(d) for d in got))]
        for i, t in enumerate(compute):
            if type(got[i]) is not t and not np.can_cast(got[i], t(), casting):
                exc = _input_casting_error(uf, casting, got[i], t(), i)
                exc.__cause__ = err
                return exc
    except Exception:
        return None
    return None


def _join_cast_error(uf, args, kwargs, err):
    """The error naming the rule set where NumPy refuses, under the default casting, its cast of
    an operand to the type the rule set joins it in (a user lattice joining float32 into int32:
    "Cannot cast ufunc ... input 0 from float32 to int32"), or None."""
    src, dst = getattr(err, "from_", None), getattr(err, "to", None)
    if src is None or dst is None or getattr(err, "in_i", None) is None or "casting" in kwargs:
        return None                     # (not an input's cast, or under the caller's casting=)
    try:
        op, r = _REGISTRY[uf]
        if _fixed_dtypes(kwargs, op.nin, op.nout) is not None:
            return None                 # (a type the caller named: NumPy's message says it)
    except Exception:
        return None
    text = (f"{err}: rule set {r.name!r} computes these operands in {dtype_label(dst)}, a cast "
            f"of {dtype_label(src)} NumPy makes only under casting='unsafe'; pass "
            f"casting='unsafe' to compute there, or cast the operands explicitly")
    try:        # (NumPy's class of the error it replaces, as handlers may catch it)
        from numpy._core._exceptions import UFuncTypeError
        exc = UFuncTypeError(uf)
        exc.args = (text,)
    except Exception:
        exc = TypeError(text)
    exc.__cause__ = err
    return exc


def _call_error(uf, args, kwargs, err):
    """typelattice's error for a call where NumPy raised one of its generic TypeErrors ``err``,
    or None. Called by kernels/tl_fastcall.h."""
    return _no_loop_error(uf, args, kwargs, err) or _deferred_error(uf, args, kwargs, err) \
        or _casting_error(uf, args, kwargs, err) or _join_cast_error(uf, args, kwargs, err) \
        or _python_scalar_casting_error(uf, args, kwargs, err)


def _python_scalar_casting_error(uf, args, kwargs, err):
    """The error naming the operand, its loop type and the rule set where casting='no'/'equiv'
    refuse a Python scalar operand's conversion, or None. (NumPy's "cannot cast Python int to
    ... under the casting rule" may name another type than the loop's: timedelta64 for int4.)"""
    if not str(err).startswith("cannot cast Python ") or "under the casting rule" not in str(err):
        return None
    try:
        op, r = _REGISTRY[uf]
        casting = kwargs.get("casting", "same_kind")
        # ('unsafe': NumPy 2.4's resolve_dtypes of a Python int crashes under 'equiv')
        got = _call_loop_dtypes(uf, op, args, _fixed_dtypes(kwargs, op.nin, op.nout), "unsafe")
        i = next(i for i, x in enumerate(args[:op.nin]) if type(x) in (int, float, complex))
    except Exception:
        return None
    x, dt = args[i], dtype_label(_scalar_loop_dtype(op, got, i))
    exc = TypeError(
        f"{call_label(uf.__name__, args[:op.nin])}: casting={casting!r} allows no conversion of "
        f"operand {i}, the Python {type(x).__name__} {x!r}, to the loop's {dt} (rule set "
        f"{r.name!r}); pass it as an array of {dt} or use casting='same_kind'")
    exc.__cause__ = err
    return exc


tl_fast_set_error_hook(_call_error)


# NumPy's kind order, by which its casts within or up a kind are same_kind
cdef dict _KIND_RANK = {"b": 0, "u": 1, "i": 2, "f": 4, "c": 5}


cdef int _kind_rank(x):
    """The kind rank of an operand or dtype; ml_dtypes' types by the numbers they hold (NumPy
    sees kind 'V'); a Python float or complex by its type, a Python int (weak: the loop checks
    its value) 0; -1 for others."""
    if type(x) in (bool, int):
        return 0
    if type(x) in (float, complex):
        x = np.dtype(type(x))
    elif not isinstance(x, np.dtype):
        x = x.dtype if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x).dtype
    num = x.num
    rank = _RANK_OF.get(num)
    if rank is None:
        kind = x.kind if num < 256 else _kind(x.name) or ("c" if "complex" in x.name else None)
        rank = _RANK_OF[num] = _KIND_RANK.get(kind, -1)
    return rank


cdef dict _RANK_OF = {}         # dtype's type number -> its _kind_rank


cdef bint _overridden(operands):
    """Whether an operand has an __array_ufunc__ of its own (a weak array's, pandas'), which
    calls the ufunc again on arrays: that call's hooks judge it."""
    return any(type(x).__array_ufunc__ is not np.ndarray.__array_ufunc__
               for x in operands if hasattr(type(x), "__array_ufunc__"))


def _judge_cast(uf, method, src, dst, casting, place):
    """Refuse or warn of a cast of ``src`` (an operand or dtype) into ``dst`` made by call
    ``uf`` (``method``: None, or the method's name) under ``casting``, where ``dst`` is an
    ml_dtypes type and the cast leaves the kind of number it holds (complex to bfloat16, float
    to int4). ml_dtypes registers such casts same_kind, some safe (NumPy ranks its types' kind
    'V' above every other), so NumPy would make them silently where it refuses complex128 to
    float32: under any casting but 'unsafe' (NumPy does not judge Python scalars under 'no' and
    'equiv') this raises NumPy's casting error for input or output ``place`` (("input", i) or
    ("output", j)); where the cast is made unsafely, a complex one warns as NumPy's
    ComplexWarning does."""
    rank = _kind_rank(dst)
    if dst.num < 256 or rank < 0 or _kind_rank(src) <= rank:
        return
    src = src if isinstance(src, np.dtype) else \
        np.dtype(type(src)) if type(src) in (bool, int, float, complex) else \
        np.asarray(src).dtype
    if casting != "unsafe":
        from numpy._core import _exceptions
        cls = (_exceptions._UFuncInputCastingError if place[0] == "input" else
               _exceptions._UFuncOutputCastingError)
        exc = cls(uf, casting, src, dst, place[1])
        if hasattr(exc, "add_note"):        # (Python 3.11+)
            exc.add_note(f"(rule set {_REGISTRY[uf][1].name!r}: ml_dtypes' cast would allow "
                         f"it; typelattice refuses a cast that leaves the kind of number, as "
                         f"NumPy does for its own types; pass casting='unsafe' to make it)")
        raise exc
    if src.kind == "c" and rank < _KIND_RANK["c"]:
        warnings.warn(f"{uf.__name__}{'.' + method if method else ''}: casting complex "
                      f"values to real ({dst}) discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=3)


def _user_cast_check(uf, method, args, kwargs):
    """_judge_cast of each cast a call of ``uf`` (``method``: None, or the method's name) makes
    into an ml_dtypes type: kernels/tl_fastcall.h asks where out=, dtype=, signature= (a
    reduction's initial=, at's array) name such a type. Plain calls and outer judge under their
    casting=; reductions and at cast unsafely, as NumPy's do."""
    op, r = _REGISTRY[uf]
    if method == "at":
        steps = [(args[2], args[0].dtype, ("input", 1))] if len(args) > 2 else []
        casting = "unsafe"
    elif method in ("reduce", "accumulate", "reduceat"):
        bound, out = _bind_method(method, args, kwargs)
        if bound is None:
            return None
        array, dtype = bound.arguments["array"], bound.arguments.get("dtype")
        dtype = None if dtype is None else _as_dtype(dtype)
        into = getattr(out, "dtype", None)
        chain = [array] + [t for t in (dtype, into) if t is not None]
        steps = [(a, b, ("input", 0)) for a, b in zip(chain, chain[1:])]
        initial = bound.arguments.get("initial")
        if initial is not None and initial is not np._NoValue:
            xt, loop = _reduction_loop(uf, array, dtype, out)
            if loop is None and out is not None:
                # (out='s type has no join with the array's: the reduction runs in the array's
                # loop and casts into out)
                xt, loop = _reduction_loop(uf, array, dtype, None)
            if loop is None:
                return None             # (NumPy raises the call's own error)
            if type(initial) is complex and 0 < _kind_rank(loop) < _KIND_RANK["c"]:
                # (NumPy's setitem refuses it for a number type, with a TypeError naming no
                # call: "expected number, got complex" for an ml_dtypes loop; bool takes it)
                raise TypeError(
                    f"{uf.__name__}.{method}({dtype_label(xt)} array, initial={initial!r}): "
                    f"a complex initial= does not go into {dtype_label(loop)}, the dtype the "
                    f"reduction runs in (rule set {r.name!r}); pass a real number, or reduce "
                    f"in a complex dtype=")
            steps.append((initial, loop, ("input", 1)))
        casting = "unsafe"
    else:
        casting = kwargs.get("casting", "same_kind")
        ins, outs = args[:op.nin], kwargs.get("out", args[op.nin:])
        outs = outs if type(outs) is tuple else (outs,)
        if _overridden(ins + outs):
            return None                 # (checked in the call its __array_ufunc__ makes)
        given = ins
        if op.nin == 1 and type(ins[0]) in (bool, int, float, complex):
            # (NumPy makes a unary op's Python scalar a NumPy one before any promoter sees it:
            # -3 an int64, whose cast to uint4 would wrap)
            ins = (np.asarray(ins[0])[()],)
        try:
            fixed = _fixed_dtypes(kwargs, op.nin, op.nout)
            got = _call_loop_dtypes(uf, op, ins, fixed, "unsafe")
        except Exception:
            return None                 # (NumPy raises the call's own error)
        for i, x in enumerate(given):
            if type(x) is int and fixed is not None and got[i].name in _EXTI_TYPES:
                # (a sub-byte int loop the keywords chose: NumPy converts the int with
                # ml_dtypes' setitem, which wraps)
                err = python_int_overflow(uf.__name__, given, x, got[i], r.name, True)
                if err is not None:
                    raise err
        steps = [(x, got[i], ("input", i)) for i, x in enumerate(ins)]
        steps += [(got[op.nin + j], o.dtype, ("output", j)) for j, o in enumerate(outs)
                  if isinstance(o, np.ndarray)]
    for src, dst, place in steps:
        if dst.num >= 256:
            _judge_cast(uf, method, src, dst, casting, place)
    return None


tl_fast_set_cast_hook(_user_cast_check)
for _t in vars(_mld).values():
    if isinstance(_t, type) and issubclass(_t, np.generic) and np.dtype(_t).num >= 256:
        tl_fast_set_user_rank(np.dtype(_t).num, _kind_rank(np.dtype(_t)))


def _foreign_call(uf, args, kwargs):
    """A call on a dask array (an operand, out= or where=) with dtype=/signature= or a weak
    operand, through typelattice.dask (which runs ``uf`` on each block: dask's own
    __array_ufunc__ takes dtype= as a cast of the result computed without it, and infers a weak
    operand's dtype as a strong array's); NotImplemented for other calls. Called by
    kernels/tl_fastcall.h."""
    dask_array = sys.modules.get("dask.array")
    if dask_array is None:
        return NotImplemented
    ins, outs = args[:uf.nin], args[uf.nin:]
    if outs:
        if "out" in kwargs:
            return NotImplemented       # (NumPy's error for out= given twice)
        kwargs = dict(kwargs, out=outs)
    out = kwargs.get("out")
    if type(out) is tuple:
        if len(out) != uf.nout:
            return NotImplemented
        out = kwargs["out"] = out[0] if uf.nout == 1 else out
    seen = list(ins) + list(out if type(out) is tuple else (out,)) + [kwargs.get("where")]
    if not any(isinstance(a, dask_array.Array) for a in seen):
        return NotImplemented
    from .dask import _call, _weak_source
    if not (_fixes_loop_types(kwargs.get("dtype"), kwargs.get("signature"))
            or any(_weak_source(x) is not None for x in ins)):
        return NotImplemented
    return _call(uf, ins, **kwargs)


tl_fast_set_foreign_hook(_foreign_call)


cdef object _weak_dtype(CompiledRules r, kind, call):
    """The dtype a lone Python scalar of ``kind`` ('int', 'float', 'complex') takes under r (its
    weak type materialized: result_type(x, rules=r)); TypePromotionError where r has none, or
    None if ``call`` is None."""
    name = r.python_scalars.get(kind)
    if name is None:
        if call is None:
            return None
        raise TypePromotionError((f"Python {kind}",), r,
                                 hint=f"rule set {r.name!r} has no Python {kind} type (in {call})")
    dt = materialized_dtype(r, name)
    if dt is None and call is not None:
        raise TypeError(f"type {name!r} of rule set {r.name!r} has no NumPy dtype (a Python "
                        f"{kind} alone, in {call})")
    return dt


def _fixes_loop_types(dtype, signature):
    """Whether a call's dtype=/signature= fix any loop type: NumPy takes None and a signature of
    Nones as not given."""
    if dtype is not None:
        return True
    if isinstance(signature, tuple):
        return any(t is not None for t in signature)
    return signature is not None


# (ufunc, Python scalar type) -> (the dtype it takes alone, that int range, the loop type)
cdef dict _UNARY_WEAK = {}


def _unary_weak_operand(uf, x, kwnames, kwvalues):
    """The operand unary ufunc ``uf`` takes for a lone Python int/float/complex ``x`` (called by
    kernels/tl_fastcall.h with the call's keyword names and values): x as a NumPy scalar of the
    loop type the promoter gives its weak type (torch's sqrt of a Python int: float32), an int
    first range-checked against the type x alone takes, as the binary ops check it; ``x``
    itself under dtype=/signature= (other than None), an int outside int64 there as the loop's
    type (NumPy would make it an object array)."""
    if kwnames is not None:
        kw = dict(zip(kwnames, kwvalues))
        if _fixes_loop_types(kw.get("dtype"), kw.get("signature")):
            return x if type(x) is not int or -2**63 <= x < 2**63 else \
                _fixed_loop_int(uf, x, kw)
    key = (uf, type(x))
    hit = _UNARY_WEAK.get(key)
    if hit is None:
        op, r = _REGISTRY[uf]
        kind = type(x).__name__
        dt = _weak_dtype(r, kind, uf.__name__)
        info = int_info(dt) if kind == "int" else None
        compute = _resolve_names(op, r, [r.python_scalars[kind]] + [None] * op.nout,
                                 [None] * (1 + op.nout), False)[0]
        to = materialized_dtype(r, compute)
        if to is None:
            raise TypeError(f"type {compute!r} of rule set {r.name!r} has no NumPy dtype (a "
                            f"Python {kind} in {uf.__name__})")
        hit = _UNARY_WEAK[key] = (dt, None if info is None else (int(info.min), int(info.max)),
                                  to.type)
    dt, bounds, to = hit
    if bounds is not None and not bounds[0] <= x <= bounds[1]:
        raise python_int_overflow(uf.__name__, (x,), x, dt, _REGISTRY[uf][1].name)
    try:
        return to(x)
    except (TypeError, ValueError, OverflowError) as exc:     # (ml_dtypes: "expected number")
        raise type(exc)(f"{uf.__name__}({x!r}): the rule set {_REGISTRY[uf][1].name!r} gives a "
                        f"Python {type(x).__name__} the type {np.dtype(to)}, which cannot hold "
                        f"it ({exc})") from None


tl_fast_set_unary_hook(_unary_weak_operand)


cdef object _fixed_loop_int(uf, x, kw):
    """A Python int outside int64, the lone operand of unary ``uf`` with dtype=/signature= (in
    ``kw``), as a NumPy scalar of the loop's input type; the binary calls' OverflowError or
    TypeError where that type cannot hold it; x itself where the loop does not resolve (NumPy's
    error)."""
    op, r = _REGISTRY[uf]
    try:
        # ('unsafe': NumPy 2.4's resolve_dtypes of a Python int crashes under 'equiv')
        t = _call_loop_dtypes(uf, op, (x,), _fixed_dtypes(kw, op.nin, op.nout), "unsafe")[0]
    except Exception:
        return x
    err = python_int_overflow(uf.__name__, (x,), x, t, r.name, True) or \
        python_int_beyond_int64(uf.__name__, (x,), x, t, r.name)
    if err is not None:
        raise err
    # (casting= stricter than same_kind: NumPy's verdict on its reading of x, a uint64 below
    # 2**64, an object beyond; under same_kind it computes, as a binary call's weak int does)
    own = np.dtype(np.uint64 if 0 <= x < 2**64 else object)
    casting = kw.get("casting", "same_kind")
    if casting not in ("same_kind", "unsafe") and not np.can_cast(own, t, casting):
        raise _input_casting_error(uf, casting, own, t, 0)
    return t.type(x)


if os.environ.get("TYPELATTICE_FASTCALL", "1").strip() in ("0", "false", "off", "no"):
    set_fastcall(False)


cdef int _identity_code(op, bint reorderable):
    ident = op.identity
    if ident is None:
        return PyUFunc_ReorderableNone if reorderable else PyUFunc_None
    if ident == "-inf":
        return PyUFunc_IdentityValue
    if ident is True or ident == 1:
        return PyUFunc_One
    if ident == -1:
        return PyUFunc_MinusOne
    return PyUFunc_Zero


cdef object _NO_INITIAL = object()


cdef extern from *:
    """
    #include "tl_methods.h"
    """
    object tl_method_new(object ufunc, object name, object method, object check, object retry,
                         object canon, object value, object scalar)


# where reduce(array, axis, dtype, out, ...), accumulate(array, axis, dtype, out) and
# reduceat(array, indices, axis, dtype, out) take dtype and out positionally
def _reduce_signature(array, axis=0, dtype=None, out=None, keepdims=False,
                      initial=_NO_INITIAL, where=True):
    pass


def _accumulate_signature(array, axis=0, dtype=None, out=None):
    pass


def _reduceat_signature(array, indices, axis=0, dtype=None, out=None):
    pass


cdef dict _METHOD_SIGNATURES = {}


cdef object _bind_method(name, args, kwargs):
    """(the arguments of np.ufunc.<name> (reduce, accumulate, reduceat) bound by name, out= with
    a 1-tuple unpacked), or (None, None) where NumPy's method would refuse them."""
    sig = _METHOD_SIGNATURES.get(name)
    if sig is None:
        import inspect
        sig = _METHOD_SIGNATURES[name] = inspect.signature(
            {"reduce": _reduce_signature, "accumulate": _accumulate_signature,
             "reduceat": _reduceat_signature}[name])
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None, None
    out = bound.arguments.get("out")
    if type(out) is tuple and len(out) == 1:
        # (bound.args passes out positionally, where NumPy takes an array, not a tuple)
        out = bound.arguments["out"] = out[0]
    return bound, out


def _outer_of_scalar(uf, outer, a, b, **kwargs):
    """uf.outer(a, b) where a or b is a Python int/float/complex (kernels/tl_methods.h): the
    plain call uf(a, b), whose weak rule takes the scalar as jnp's outer does (NumPy's outer
    makes it a strong int64/float64 array: int8 outer 3 would be int64). The same array, since
    a 0-d operand adds no axis. NumPy's outer where the other operand is a matrix (it refuses
    one) or has an __array_ufunc__ of its own (dask's, pandas')."""
    other = b if type(a) in (int, float, complex) else a
    if isinstance(other, np.matrix) or (not isinstance(other, (np.ndarray, np.generic))
                                        and hasattr(type(other), "__array_ufunc__")):
        return outer(a, b, **kwargs)
    return uf(a, b, **kwargs)


cdef dict _AT_IN_T = {}     # (ufunc, array DType, value key) -> (how, dtype)


def _at_value_dtype(uf, dt, value):
    """How uf.at(array of dtype dt, indices, v) takes a value v of weak type ``value`` (a name,
    or the Python scalar type), as (how, dtype, wide): (1, T's dtype, None) where the plain
    call computes v in the array's type T (jax32's int64 array: int32), 2 for that on a
    sub-byte int array (ml_dtypes' conversion wraps: the range is checked here); (0, the dtype
    the plain call takes v in, None) where it computes in another type, for NumPy's at to
    compute there; (0, None, None) where the plain call raises; (3, T's dtype, wide) where
    NumPy's at finds the plain call's loop from an int value in T but not from it in that
    other type (a strict rule set joins no int with a float: divide.at(int64 array, i, 1)
    under jax_strict computes int64 / int64 in float64; numpy's joins uint32 and float32 in
    float64): for a value outside T, ``wide``, that other type where NumPy's at finds a loop
    computing in a wider type, else None."""
    key = (uf, type(dt), value)
    got = _AT_IN_T.get(key)
    if got is None:
        op, r = _REGISTRY[uf]
        nargs = op.nin + op.nout
        try:
            t = _operand_name(r, type(dt))
            w = value if type(value) is str else _operand_name(r, _PY_SCALAR_DTYPES[value])
            res = _resolve_names(op, r, [t, w, None], [None] * nargs, False)
            if res[0] != t or res[1] != t:
                got = (0, materialized_dtype(r, res[1]), None)
                other = _loop_of_or_none(op, r, t, res[1], nargs)
                if other != list(res) and _ops.kind(t) in "iu" and _ops.kind(w) in "iu" \
                        and _loop_of_or_none(op, r, t, t, nargs) == list(res):
                    got = (3, dtype_of(t), got[1] if other is not None else None)
            else:
                got = (2 if dt.name in _EXTI_TYPES else 1, dtype_of(t), None)
        except Exception:
            got = (0, None, None)       # (NumPy's at raises its error)
        _AT_IN_T[key] = got
    return got


cdef object _loop_of_or_none(op, CompiledRules r, a, b, int nargs):
    try:
        return list(_resolve_names(op, r, [a, b, None], [None] * nargs, False))
    except Exception:
        return None


cdef object _at_int_error(uf, dt, fit, v, why):
    # (the plain call's own error where it raises another first: ldexp of float8 has no loop)
    exc = error_before_overflow(uf, (np.empty(0, dt), v))
    if exc is not None:
        return exc
    return OverflowError(f"{uf.__name__}.at({dtype_label(dt)} array, indices, {v}): the Python "
                         f"int does not fit {dtype_label(fit)}, the dtype it takes there (rule "
                         f"set {_REGISTRY[uf][1].name!r}){why}")


def _at_value(uf, a, v):
    """The value operand for uf.at(a, indices, v) with v a Python int/float/complex
    (kernels/tl_methods.h): NumPy's at takes v as a strong int64/float64/complex128 array, which
    joins uint64 in float64 and float16 in float64 (two roundings). Instead v converted to the
    dtype the plain call uf(a, v) takes it in (_at_value_dtype), as that call converts it (an
    int by NumPy's conversion, a float or complex from float64/complex128, as the weak loops
    read it). An int outside that dtype raises the plain call's OverflowError (NumPy's at would
    compute in int64 and wrap into a, or in float64 beside int64/uint64, losing bits)."""
    if not isinstance(a, np.ndarray):
        return v
    dt = a.dtype
    how, ct, wide = _at_value_dtype(uf, dt, type(v))
    if ct is None:
        # the plain call raises: so does at (NumPy's at would take v as a strong int64/float64
        # and cast the result into the array: array_api's add.at(int8 array, i, 300) wrapped)
        exc = error_before_overflow(uf, (np.empty(0, dt), v))
        if exc is not None:
            raise exc
        return v
    if how == 3:
        if type(v) is not int:
            return v
        if int_info(ct).min <= v <= int_info(ct).max:
            return np.array(v, ct)
        if wide is None:
            raise _at_int_error(uf, dt, ct, v, "; NumPy's at reaches the plain call's loop only "
                                "from a value of the array's dtype")
        how, ct = 0, wide       # (NumPy's at computes in a wider type than the plain call)
    if type(v) is int:
        if not how and ct.kind in "iu" and not int_info(ct).min <= v <= int_info(ct).max:
            raise _at_int_error(uf, dt, ct, v, "")
        if how == 2 and not int_info(ct).min <= v <= int_info(ct).max:
            raise _at_int_error(uf, dt, ct, v, "; ml_dtypes would wrap it")
    try:
        if type(v) is int:
            return np.array(v, ct)
        return np.asarray(v).astype(ct)
    except OverflowError:
        if not how:
            return v                    # (NumPy's at gives its answer or error)
        wrap = ct == dt and ct.kind in "iu" and ct.itemsize < 8 and -2**63 <= v < 2**63
        raise _at_int_error(uf, dt, ct, v, f"; pass np.int64({v}) to compute in int64 and "
                            "wrap the result into the array, NumPy's way" if wrap else "") \
            from None
    except (TypeError, ValueError):
        if type(v) is int:
            err = python_int_beyond_int64(f"{uf.__name__}.at", (a, v), v, ct,
                                          _REGISTRY[uf][1].name)
            if err is not None:
                raise err from None
        return v


def _retry_method(uf, name, exc, *args, **kwargs):
    """After ``exc`` (a TypeError) from uf.<name>(x, ..., dtype=t) (or accumulate/reduceat with
    out= of t), the method on x.astype(t) (kernels/tl_methods.h): the result NumPy's own cast of
    the operand to t gives, and JAX's dtype= (an explicit request for t: jnp.sum(int4_array,
    dtype=int8) sums in int8 although int4 and int8 do not promote). NumPy looks the method up
    under the DTypes of the plain call op(t_array, x_array), so it finds that call's loop (or
    its error), which computes in the join or reads x itself: accumulate refuses the latter
    ("the resolved dtypes are not compatible"). Raises ``exc`` where no cast applies."""
    refused = str(exc).startswith("the resolved dtypes are not compatible")
    bound, out = _bind_method(name, args, kwargs)
    if bound is None:
        raise exc
    dtype = bound.arguments.get("dtype")
    if not isinstance(exc, TypeError) and dtype is None:
        raise exc                       # (a ValueError: only a dtype= asks for the cast)
    op, r = _REGISTRY[uf]
    array = bound.arguments["array"]
    if dtype is None and op.out == "bool" and op.name not in _LOGICAL_BX \
            and isinstance(array, np.ndarray) and array.dtype != np.bool_:
        # a comparison into out=: NumPy asks again for a (bool, x) loop, whose error (or its
        # generic one, once the plain call's loop is cached) would name a signature not given
        xt = dtype_label(array.dtype)
        raise TypeError(f"{uf.__name__}.{name}({xt} array): each step gives a "
                        f"bool, not {_a(xt)} to combine with the next element (rule set "
                        f"{r.name!r}); {name} x.astype('bool'), as NumPy's dtype= would") \
            from None
    try:
        x = np.asarray(bound.arguments["array"])
        # (a dtype no rule set promotes stays refused: astype would parse strings, read
        # datetimes as ints; a numeric type the rule set lacks is cast, as dtype= asks)
        name_of_dtype(x.dtype)
        if dtype is not None:
            t = bound.arguments["dtype"] = _as_dtype(dtype)     # (a DType class too)
        elif isinstance(out, np.ndarray) and op.name in _LOGICAL_BX and out.dtype == np.bool_:
            # a logical op into a bool out= where x's type does not join bool (bfloat16 under
            # numpy): x's truth values, as dtype=bool reads them
            t = out.dtype
            bound.arguments["dtype"] = t
        elif isinstance(out, np.ndarray) and (refused or isinstance(exc, TypePromotionError)):
            # out= alone: NumPy's reduce-likes compute in the promoted type of out's and x's
            # and cast into out=: here the rule set's loop type for them, asked for by dtype=;
            # where they do not promote, out= of the method's own result type (uint4's product
            # is uint64) is that result
            try:
                t = uf.resolve_dtypes((out.dtype, x.dtype, None))[2]
            except TypeError:
                t = uf.resolve_dtypes((None, x.dtype, None), reduction=True)[2]
                if t != out.dtype.newbyteorder("="):    # (a byte-swapped out= is that type)
                    raise exc from None
            bound.arguments["dtype"] = t
        else:
            raise exc
        _operand_name(r, type(t))      # (a type the rule set lacks: exc names it)
    except TypeError:
        raise exc from None
    read_as = r.aliases.get(t.name) if dtype is not None and t.isnative else None
    if read_as in r.index and r.dtypes[r.index[read_as]] != t:
        # (jax32 reads float64 as float32: it has no float64 loop, as the plain call says;
        # NumPy would raise its generic no-loop error)
        raise TypeError(f"{uf.__name__}.{name}({dtype_label(x.dtype)} array, dtype={t.name}): "
                        f"rule set {r.name!r} has no {t.name} loop (it reads {t.name} as "
                        f"{read_as}); leave dtype= out, or cast the result explicitly "
                        "afterwards") from None
    if x.dtype == t:
        raise exc
    try:
        bound.arguments["array"] = x.astype(t)    # (NumPy's reduce-likes cast unsafely too)
    except (TypeError, ValueError):
        raise exc from None
    return getattr(np.ufunc, name)(uf, *bound.args, **bound.kwargs)


def _retry_outer(uf, exc, *args, **kwargs):
    """After ``exc`` from uf.outer(a, b, ...) (kernels/tl_methods.h): where NumPy raised its
    generic no-loop error, the plain call's error for these operands and keywords, naming the
    method (jax32's outer(float32, float32, dtype=float64)); else ``exc``."""
    better = _no_loop_error(uf, args, kwargs, exc, f"{uf.__name__}.outer") \
        if isinstance(exc, TypeError) else None
    raise exc if better is None else better


def _canonical_operand(canon, x):
    """x as the rule set reads it: an exact ndarray or NumPy scalar of a type ``canon`` maps
    ({int64: int32, ...} under jax32), in either byte order, converted by C's cast (wrapping),
    else x itself."""
    if type(x) is np.ndarray or isinstance(x, np.generic):
        t = canon.get(x.dtype if x.dtype.isnative else x.dtype.newbyteorder("="))
        if t is not None:
            return x.astype(t)
    return x


def _check_reduce_initial(uf, *args, **kwargs):
    """Raise where an integer ``initial=`` of ``uf.reduce(array, ...)`` does not fit the loop's
    integer type (kernels/tl_methods.h calls it before NumPy's reduce, whose error names neither
    the call nor the rule set, and whose setitem of ml_dtypes' sub-byte ints wraps; a float one
    after NumPy's OverflowError): dtype=
    names the loop type (the method computes in it, or runs again on the operand cast to it),
    else the promoter's answer for out='s type and the array's."""
    if len(args) == 1 and type(args[0]) is np.ndarray and "dtype" not in kwargs \
            and "out" not in kwargs:
        # (the common call, without inspect's binding, ~5 us: the array's loop type, cached)
        xt = args[0].dtype
        key = (uf, xt)
        loop = _INITIAL_LOOP.get(key, False)
        if loop is False:
            try:
                loop = uf.resolve_dtypes((None, xt, None), reduction=True)[0]
            except Exception:
                loop = None             # NumPy's reduce raises its own error
            _INITIAL_LOOP[key] = loop
        if loop is not None:
            _check_initial_fits(uf, xt, loop, kwargs["initial"])
        return
    bound, out = _bind_method("reduce", args, kwargs)
    if bound is None:
        return                          # NumPy's reduce names the call's own error
    array, dtype = bound.arguments["array"], bound.arguments.get("dtype")
    xt, loop = _reduction_loop(uf, array, dtype, out)
    if loop is not None:
        _check_initial_fits(uf, xt, loop, bound.arguments["initial"])


def _reduction_loop(uf, array, dtype, out):
    """(array's dtype, the dtype reduce(array, dtype=, out=) runs in): dtype=, else the
    promoter's answer for out='s type and the array's; (None, None) where NumPy's reduce
    raises its own error."""
    try:
        xt = array.dtype if isinstance(array, np.ndarray) else np.asarray(array).dtype
        if dtype is not None:
            return xt, _as_dtype(dtype)
        first = out.dtype if isinstance(out, np.ndarray) else None
        return xt, uf.resolve_dtypes((first, xt, None), reduction=True)[0]
    except Exception:
        return None, None


cdef dict _INITIAL_LOOP = {}    # (ufunc, array dtype) -> its reduction's loop dtype, or None


cdef _check_initial_fits(uf, xt, loop, initial):
    info = int_info(loop)
    if info is None:
        return
    is_float = type(initial) is float
    value = initial if is_float else int(initial)
    if not info.min <= value <= info.max:
        raise OverflowError(
            f"{uf.__name__}.reduce({dtype_label(xt)} array, initial={value}): initial= does "
            f"not fit {loop}, the dtype the reduction runs in (rule set "
            f"{_REGISTRY[uf][1].name!r})" + ("; ml_dtypes would wrap it"
                                             if loop.name in _EXTI_TYPES and not is_float
                                             else ""))


cdef object _make_ufunc(op, CompiledRules r, set types):
    # "<rules>.<op>": dask/CuPy/pandas look foreign ufuncs up by __name__ and must not find
    # their NumPy-rule namesake; pickle finds it as typelattice._ufuncs.<rules>.<op>
    name = f"{r.name}.{op.name}".encode()
    doc = _ops.docstring(op, r.name).encode()
    _KEEP.append(name)
    _KEEP.append(doc)
    uf = PyUFunc_FromFuncAndDataAndSignatureAndIdentity(
        NULL, NULL, NULL, 0, op.nin, op.nout, _identity_code(op, op.reorderable), name, doc, 0,
        NULL, float("-inf") if op.identity == "-inf" else None)
    cdef const tl_loop_entry *e
    cdef int i, k
    cdef int nargs = op.nin + op.nout
    loop_types = set(op.loop_types(tuple(types)))
    same = {}
    for i in range(TL_N_LOOPS):
        e = &tl_loop_table[i]
        if e.op.decode() != op.name:
            continue
        compute = _ops.LOOP_TYPES[e.types[0]]
        if compute not in loop_types:
            continue
        if op.nin == 2 and _no_binary_op(op, r, compute):
            continue                    # (the promoter raises the rule set's error)
        classes = [_LOOP_DTYPES[e.types[k]] for k in range(nargs)]
        _add_spec(uf, op, classes, e.loop, e.indexed, e.initial, NULL, name)
        if e.initial != NULL and op.nin == 2 and e.types[1] == e.types[0] == e.types[2]:
            _INITIAL_OF[(op.name, compute)] = <size_t>e.initial
        if op.nin == 2 and e.types[1] == e.types[0]:
            same[compute] = (<size_t>e.loop, tuple(_ops.LOOP_TYPES[e.types[k]]
                                                   for k in range(2, nargs)))
    capsule = PyCapsule_New(<void *><tl_promoter_t>_promoter, b"numpy._ufunc_promoter", NULL)
    PyUFunc_AddPromoter(uf, (None,) * nargs, capsule)
    _REGISTRY[uf] = (op, r)
    _SAME[uf] = same
    uf.__module__ = __name__
    np_uf = getattr(np, op.name, None)
    if isinstance(np_uf, np.ufunc):
        _masked.register(uf, np_uf)
    # a rule set that reads 64-bit operands as their 32-bit siblings (jax32): its reductions
    # and dtype=/signature= calls convert such arrays first
    canon = {dtype_of(a): dtype_of(t) for a, t in r.aliases.items()
             if a in _LOOP_TYPE_SET and t in _LOOP_TYPE_SET and a != t}
    canon = functools.partial(_canonical_operand, canon) if canon else None
    if op.nin == 2 and op.nout == 1:
        check = functools.partial(_check_reduce_initial, uf)
        for m in ("reduce", "accumulate", "reduceat"):
            uf.__dict__[m] = tl_method_new(uf, m, getattr(np.ufunc, m).__get__(uf),
                                           check if m == "reduce" else None,
                                           functools.partial(_retry_method, uf, m), canon, None,
                                           None)
    if op.nin == 2:
        uf.__dict__["at"] = tl_method_new(uf, "at", np.ufunc.at.__get__(uf), None, None, None,
                                          functools.partial(_at_value, uf), None)
        outer = np.ufunc.outer.__get__(uf)
        uf.__dict__["outer"] = tl_method_new(uf, "outer", outer, None,
                                             functools.partial(_retry_outer, uf), None, None,
                                             functools.partial(_outer_of_scalar, uf, outer))
    slot = tl_fast_install(uf)
    if slot >= 0:
        _FAST_UFUNC.append(uf)
        _FAST_SLOT_OF[uf] = slot
        if canon is not None:
            # (ldexp's exponent stays NumPy's int64, whole, as in its plain call)
            tl_fast_set_canon(slot, canon, 1 if op.rule == _ops.FIRST_INEXACT else 3)
        if op.nin == 1:
            tl_fast_set_unary_convert(slot, any(
                _weak_dtype(r, k, None) != dtype_of(d)
                for k, d in (("int", "int64"), ("float", "float64"), ("complex", "complex128"))))
    return uf


cdef dict _BY_RULES = {}
from types import SimpleNamespace
from ._core import BUILTIN_RULES as _BUILTIN_NAMES


class _RulesNamespace(SimpleNamespace):
    """The ufuncs of one rule set, ``typelattice._ufuncs.<rules>``; pickles by that name.
    (Pickle protocols 0-3 store ``<rules>.<op>`` as getattr of this namespace: by value it
    would hold the ufunc being pickled, a cycle that cannot load.)"""
    __slots__ = ("_name",)      # (not among the ufuncs)

    def __init__(self, name, ufuncs):
        super().__init__(**ufuncs)
        self._name = name

    def __reduce__(self):
        return self._name


def make_ufuncs(rules=None):
    """{name: np.ufunc} for every op, promoting with ``rules`` (None: "jax"); aliases
    (true_divide, mod) are the same objects. Built once per rule set."""
    cdef CompiledRules r = get_rules(rules)
    builtin = r.name in _BUILTIN_NAMES and get_rules(r.name) is r
    key = r.name if builtin else id(r)
    got = _BY_RULES.get(key)
    if got is not None:
        return dict(got)
    # (a type of the rule set's own computes as its storage dtype: its loops)
    types = {materialized_name(r, t) for t in r.types if r.aliases.get(t, t) == t}
    types &= set(_ops.LOOP_TYPES)
    with_loops = types | (_EXT_TYPES | _EXTI_TYPES).intersection(r.types)
    grows = [(t, r.join_names(t, t)) for t in r.types if t in with_loops
             and r.join_names(t, t) not in (None, t)]
    if grows:
        # a loop of t's own serves two t arrays before any promoter is asked
        raise ValueError(f"rule set {r.name!r}: typelattice's ufuncs need a type's join with "
                         f"itself to be itself (or none), but "
                         + ", ".join(f"{t} with {t} is {j}" for t, j in grows)
                         + "; promote_types/result_type follow the table")
    # a pair computes in its join's own loop, which would then serve two arrays of the join too
    orphans = [(a, b, j) for a in r.types for b in r.types
               if (j := r.join_names(a, b)) in with_loops and (a, b) != (j, j)
               and r.join_names(j, j) is None]
    if orphans:
        a, b, j = orphans[0]
        raise ValueError(f"rule set {r.name!r}: typelattice's ufuncs compute a pair in its "
                         f"join's own loop, but {a} with {b} is {j} while {j} with {j} has no "
                         f"promotion ({len(orphans)} such pairs); promote_types/result_type "
                         "follow the table")
    res = {}
    for op in _ops.OPS:
        res[op.name] = _make_ufunc(op, r, types)
    for alias, target in _ops.ALIASES.items():
        res[alias] = res[target]
    for name, mirror in _MIRRORED_OPS.items():
        _MIRROR_OF[res[name]] = res[mirror]
    for name in _COMMUTING_INT_OPS:
        _MIRROR_OF[res[name]] = res[name]
    for name in (*_MIRRORED_OPS, *_COMMUTING_INT_OPS):
        if res[name] in _FAST_SLOT_OF:
            tl_fast_set_mirror(_FAST_SLOT_OF[res[name]], _MIRROR_OF[res[name]])
    _BY_RULES[key] = res
    # Pickling finds a ufunc named '<rules>.<op>' as typelattice._ufuncs.<rules>.<op>.
    globals().setdefault(r.name, _RulesNamespace(r.name, res))
    return dict(res)


def __getattr__(name):
    # A ufunc of rule set R pickles as typelattice._ufuncs.R.<op>. In a fresh process (a dask
    # worker) only the default rule set's namespace exists yet: build a built-in one on first
    # lookup. (A run-time rule set must be made with make_ufuncs there before unpickling.)
    if name in _BUILTIN_NAMES:
        make_ufuncs(name)
        return globals()[name]
    raise AttributeError(f"module 'typelattice._ufuncs' has no attribute {name!r}")


def ufunc_info(uf):
    """(op description, CompiledRules) of a typelattice ufunc, or None."""
    return _REGISTRY.get(uf)
