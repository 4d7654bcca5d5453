# cython: language_level=3, boundscheck=False, wraparound=False
"""True NumPy ufuncs with lattice promotion, built through NumPy 2's ufunc API.

Each ufunc is created empty (PyUFunc_FromFuncAndData with no loops); one loop per compute dtype
is added with PyUFunc_AddLoopFromSpec (the C loops come from _loops.h, generated at build time
from _ops.py), and one catch-all promoter per ufunc maps the operand DType classes to the rule
set's types (Python int/float/complex arrive as NumPy's abstract Python-scalar DTypes: the weak
types), applies the op's rule through the compiled join table and returns the loop's DTypes.
NumPy caches the promoter's answer per tuple of DType classes.

Loops are shared C code; ufuncs are per rule set: ``make_ufuncs(rules)`` builds (once per rule
set) a dict name -> np.ufunc whose promoter consults that rule set.
"""
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from libc.string cimport memset

import numpy as np

from ._core cimport CompiledRules, get_rules
from ._errors import TypePromotionError
from . import _ops

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

cdef extern from "numpy/ufuncobject.h":
    int _import_umath() except -1
    object PyUFunc_FromFuncAndData(void *func, void *data, char *types, int ntypes, int nin,
                                   int nout, int identity, const char *name, const char *doc,
                                   int unused)
    int PyUFunc_Zero, PyUFunc_One, PyUFunc_MinusOne, PyUFunc_None, PyUFunc_ReorderableNone

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
    int NPY_METH_strided_loop, NPY_METH_contiguous_indexed_loop
    int NPY_METH_get_reduction_initial
    int NPY_METH_IS_REORDERABLE, NPY_METH_NO_FLOATINGPOINT_ERRORS
    int NPY_NO_CASTING
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

cdef extern from *:
    """
    #include <Python.h>
    typedef int (*tl_promoter_t)(PyObject *, void *const *, void *const *, void **);
    """
    ctypedef int (*tl_promoter_t)(PyObject *, void *const *, void *const *, void **)

from cpython.pycapsule cimport PyCapsule_New

_import_array()
_import_umath()

import ml_dtypes  # noqa: F401  (registers bfloat16 before its DType class is looked up)
from ._dtypes import dtype_of

# DType class of each loop type, in _ops.LOOP_TYPES order (= the C table's type indices)
cdef list _LOOP_DTYPES = [type(dtype_of(t)) for t in _ops.LOOP_TYPES]
cdef dict _DTYPE_OF_NAME = {}
cdef object _KEEP = []          # name/doc bytes: NumPy does not copy them

# ufunc -> (op, CompiledRules); looked up by the promoter
cdef dict _REGISTRY = {}


cdef object _operand_name(CompiledRules r, PyArray_DTypeMeta *dt):
    """Canonical type name (under rules r) of an operand DType class; None for NULL."""
    if dt == NULL:
        return None
    if dt == &PyArray_PyLongDType:
        return r.python_scalars.get("int") or _no_scalar(r, "int")
    if dt == &PyArray_PyFloatDType:
        return r.python_scalars.get("float") or _no_scalar(r, "float")
    if dt == &PyArray_PyComplexDType:
        return r.python_scalars.get("complex") or _no_scalar(r, "complex")
    cls = <object>dt
    try:
        inst = cls()
    except Exception:
        raise TypeError(f"typelattice ufuncs do not support the dtype class {cls.__name__}: "
                        "only bool, integer, floating, complex and ml_dtypes numeric dtypes "
                        "take part in promotion") from None
    return r.types[r.code(inst)]


cdef object _no_scalar(CompiledRules r, kind):
    raise TypePromotionError((kind,), r.name, hint=f"rule set {r.name!r} has no Python {kind} type")


cdef object _dtype_class(CompiledRules r, name):
    d = r.dtypes[r.index[name]] if name in r.index else dtype_of(name)
    if d is None:
        raise TypeError(f"type {name!r} of rule set {r.name!r} has no NumPy dtype")
    return type(d)


def _resolve_names(op, CompiledRules r, names, fixed, bint reduction):
    """The loop's dtype names for operand names (None for a missing reduce operand), given the
    names fixed by ``signature`` (None where free)."""
    nin = op.nin
    ins = [fixed[i] if fixed[i] is not None else names[i] for i in range(nin)]
    if ins[0] is None:
        ins[0] = ins[1]
    if ins[1] is None:
        ins[1] = ins[0]
    if ins[0] is None:
        raise TypeError(f"typelattice.{op.name}: no operand dtypes to promote")
    if reduction and op.out == "bool" and op.name.startswith("logical_"):
        return ("bool",) * (op.nin + op.nout)   # NumPy reduces logical ops in bool

    def join(a, b):
        return r.join_names(a, b)

    def materialize(t):
        w = r.weak_target(t) if t in r.index else None
        return w if w is not None else t

    try:
        res = list(op.resolve(ins[0], ins[1], join, materialize))
    except _ops._NoPromotion as exc:
        raise TypePromotionError(exc.operands, r.name,
                                 hint=f"(in typelattice.{op.name})") from None
    outs_fixed = [f for f in fixed[nin:] if f is not None]
    if outs_fixed and op.out == "same" and op.rule != _ops.FIRST_INEXACT \
            and all(f is None for f in fixed[:nin]):
        # dtype=/signature fixes the output: compute in it, as NumPy does
        res = [outs_fixed[0]] * len(res)
    for i, f in enumerate(fixed):
        if f is not None:
            res[i] = f
    return res


cdef int _promoter(PyObject *ufunc, void *const *op_dtypes, void *const *signature,
                   void **new_op_dtypes) except -1:
    uf = <object>ufunc
    op, rules = _REGISTRY[uf]
    cdef CompiledRules r = rules
    cdef int nargs = op.nin + op.nout
    cdef int i
    names = [_operand_name(r, <PyArray_DTypeMeta *>op_dtypes[i]) for i in range(nargs)]
    fixed = [_operand_name(r, <PyArray_DTypeMeta *>signature[i]) for i in range(nargs)]
    cdef bint reduction = op_dtypes[0] == NULL
    res = _resolve_names(op, r, names, fixed, reduction)
    classes = [_dtype_class(r, t) for t in res]
    for i in range(nargs):
        c = classes[i]
        Py_INCREF(c)
        new_op_dtypes[i] = <void *><PyObject *>c
    return 0


cdef int _identity_code(op, bint reorderable):
    ident = op.identity
    if ident is None:
        return PyUFunc_ReorderableNone if reorderable else PyUFunc_None
    if ident is True or ident == 1:
        return PyUFunc_One
    if ident == -1:
        return PyUFunc_MinusOne
    return PyUFunc_Zero


cdef object _make_ufunc(op, CompiledRules r, set types):
    name = op.name.encode()
    doc = _ops.docstring(op, r.name).encode()
    _KEEP.append(name)
    _KEEP.append(doc)
    uf = PyUFunc_FromFuncAndData(NULL, NULL, NULL, 0, op.nin, op.nout,
                                 _identity_code(op, op.reorderable), name, doc, 0)
    cdef PyArrayMethod_Spec spec
    cdef PyType_Slot slots[4]
    cdef PyArray_DTypeMeta *dtypes[4]
    cdef const tl_loop_entry *e
    cdef int i, k, ns
    cdef int nargs = op.nin + op.nout
    loop_types = set(op.loop_types(tuple(types)))
    for i in range(TL_N_LOOPS):
        e = &tl_loop_table[i]
        if e.op.decode() != op.name:
            continue
        compute = _ops.LOOP_TYPES[e.types[0]]
        if compute not in loop_types:
            continue
        for k in range(nargs):
            dtypes[k] = <PyArray_DTypeMeta *><PyObject *>_LOOP_DTYPES[e.types[k]]
        memset(slots, 0, sizeof(slots))
        ns = 0
        slots[ns].slot = NPY_METH_strided_loop
        slots[ns].pfunc = e.loop
        ns += 1
        if e.indexed != NULL:
            slots[ns].slot = NPY_METH_contiguous_indexed_loop
            slots[ns].pfunc = e.indexed
            ns += 1
        if e.initial != NULL:
            slots[ns].slot = NPY_METH_get_reduction_initial
            slots[ns].pfunc = e.initial
            ns += 1
        spec.name = name
        spec.nin = op.nin
        spec.nout = op.nout
        spec.casting = NPY_NO_CASTING
        spec.flags = NPY_METH_IS_REORDERABLE if op.reorderable else 0
        spec.dtypes = dtypes
        spec.slots = slots
        PyUFunc_AddLoopFromSpec(uf, &spec)
    capsule = PyCapsule_New(<void *><tl_promoter_t>_promoter, b"numpy._ufunc_promoter", NULL)
    PyUFunc_AddPromoter(uf, (None,) * nargs, capsule)
    _REGISTRY[uf] = (op, r)
    return uf


cdef dict _BY_RULES = {}


def make_ufuncs(rules=None):
    """{name: np.ufunc} for every op, promoting with ``rules`` (None: "jax"); aliases
    (true_divide, mod) are the same objects. Built once per rule set."""
    cdef CompiledRules r = get_rules(rules)
    key = r.name if r.definition is None else id(r)
    got = _BY_RULES.get(key)
    if got is not None:
        return dict(got)
    types = {t for t in r.types if t in _ops.LOOP_TYPES and r.aliases.get(t, t) == t}
    res = {}
    for op in _ops.OPS:
        res[op.name] = _make_ufunc(op, r, types)
    for alias, target in _ops.ALIASES.items():
        res[alias] = res[target]
    _BY_RULES[key] = res
    return dict(res)


def ufunc_info(uf):
    """(op description, CompiledRules) of a typelattice ufunc, or None."""
    return _REGISTRY.get(uf)
