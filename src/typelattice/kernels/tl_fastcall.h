/* typelattice's call path for plain ufunc calls, included by _ufuncs.pyx (it uses the NumPy
 * C-API table that module imports).
 *
 * A call `tl.add(a, b)` goes through the vectorcall pointer stored in the ufunc object. NumPy's
 * own (ufunc_generic_vectorcall) parses arguments, looks for overrides, converts every operand
 * to an array (a Python int twice: its legacy type resolvers need a second 0-d array), dispatches
 * on the DType classes and only then runs the loop: ~200 ns before the first element, more than
 * the loop itself below ~10^3 elements. Each typelattice ufunc gets one of TL_FAST_NSLOT thunks
 * in that pointer instead. For the calls whose answer depends on nothing but the operands' dtypes
 * -- no keywords; inputs that are exact ndarrays of the 15 loop dtypes (native byte order,
 * aligned), NumPy scalars of those dtypes (strong, as 0-d arrays) or exact Python
 * int/float/complex (the weak types), not Python scalars alone nor a unary op of a NumPy scalar
 * (NumPy's own scalar path is faster there); the shapes NumPy's trivial-loop
 * path takes (0-d operands broadcast, otherwise equal shapes, 1-d of any stride or N-d all C- or
 * all F-contiguous) -- it finds the loop in a table filled once per pair of operand kinds by the
 * promoter's own resolution (tl_fast_resolve_cb, checked against NumPy's resolve_dtypes), and
 * runs it as NumPy's trivial-loop path would: a new output array in the operands' order, the FP
 * status cleared before and reported after by the ufunc's name under np.errstate, the GIL
 * released above 500 elements, a 0-d result returned as a scalar. The one keyword taken is out=
 * of a single-output ufunc (tl_fast_take_out): an exact ndarray of the loop's output dtype and
 * the operation's shape, laid out as NumPy's trivial loop requires, overlapping no input other
 * than element for element; it is returned itself. Where NumPy would cast one of two arrays
 * first, the mirrored op's loop for the other order (greater(f16, bool) for less(bool, f16))
 * runs on the swapped operands, if there is one, or the mixed loop the promoter keeps from
 * NumPy's dispatch (complex64 + float16 add: _fast_fill_withheld). Every other call (other keywords,
 * subclasses, broadcasting, casts, a Python int outside the loop type's exact range, pairs
 * without a loop of their own) goes to NumPy's vectorcall, unchanged.
 */
#ifndef TYPELATTICE_TL_FASTCALL_H
#define TYPELATTICE_TL_FASTCALL_H

#include <Python.h>
#include <fenv.h>
#include <stdint.h>
#include <string.h>
#include "numpy/arrayobject.h"
#include "numpy/ufuncobject.h"
#include "numpy/dtype_api.h"
#include "numpy/npy_math.h"         /* NPY_FPE_* */
#include "tl_thunks.h"
#include "tl_weak.h"                /* TL_WK_*: the loop types' codes */

/* Is the str k the ASCII keyword s? (Cheaper than PyUnicode_CompareWithASCIIString: every
 * keyword of a call that leaves the fast path meets several of these.) */
#define TL_KW_EQ(k, s) tl_kw_eq((k), (s), (Py_ssize_t)sizeof(s) - 1)
static inline int tl_kw_eq(PyObject *k, const char *s, Py_ssize_t n)
{
    return PyUnicode_GET_LENGTH(k) == n && PyUnicode_IS_COMPACT_ASCII(k)
           && memcmp(PyUnicode_DATA(k), s, (size_t)n) == 0;
}

#define TL_FAST_NTYPES 15           /* codes 0-14: _ops.LOOP_TYPES */
#define TL_FAST_PYINT 15            /* the weak Python scalar kinds */
#define TL_FAST_PYFLOAT 16
#define TL_FAST_PYCOMPLEX 17
#define TL_FAST_NCODES 18
#define TL_FAST_NSLOT 4096          /* ufuncs: 85 per rule set, 48 rule sets */
#define TL_FAST_GIL_MIN 500         /* NumPy's NPY_BEGIN_THREADS_THRESHOLDED */

/* One pair (or one) of operand kinds of one ufunc. state 0: not resolved yet; 1: loop, descrs,
 * check_fpe and to[] hold the loop NumPy would run; -1: NumPy's path. to[i] for a Python scalar
 * operand: the loop's type code at that position, the scalar converted to it (where NumPy runs a
 * weak loop of tl_weak.c, as that loop converts it, and the same-dtype loop it wraps). swap: the
 * loop is the mirrored op's for the operands in the other order (descrs in the loop's order),
 * where NumPy would cast an operand first (_fast_fill_mirrored). */
typedef struct {
    PyArrayMethod_StridedLoop *loop;
    PyArray_Descr *descrs[4];
    signed char state;
    unsigned char check_fpe;
    signed char to[2];
    unsigned char swap;
} tl_fast_entry;

typedef int (*tl_fast_resolve_t)(int slot, const int *codes, tl_fast_entry *e);
static tl_fast_resolve_t tl_fast_resolve_cb = NULL;

static tl_fast_entry *tl_fast_entries[TL_FAST_NSLOT];
static int tl_fast_nslots = 0;
static vectorcallfunc tl_fast_numpy = NULL;     /* NumPy's ufunc_generic_vectorcall */
static int tl_fast_enabled = 1;
static PyObject *tl_fast_str_out = NULL;        /* "out", interned */
static Py_ssize_t tl_fast_hits = 0;             /* calls run here (tests) */
static signed char tl_fast_code_of_num[NPY_NTYPES_LEGACY];
static int tl_fast_bf16_num = -1;
/* NumPy scalar types whose value sits right after the object header (checked at import by
 * _ufuncs.pyx against the array bytes of a known value; NULL: such scalars go to NumPy) */
static PyTypeObject *tl_fast_scalar_types[TL_FAST_NTYPES];
#define TL_FAST_SCALAR_VALUE(o) ((char *)(o) + sizeof(PyObject))

/* type numbers of the loop types, code by code (the bfloat16 one is ml_dtypes') */
static int tl_fast_init(const int *type_nums)
{
    int c;
    tl_fast_str_out = PyUnicode_InternFromString("out");
    if (tl_fast_str_out == NULL) return -1;
    memset(tl_fast_code_of_num, -1, sizeof(tl_fast_code_of_num));
    for (c = 0; c < TL_FAST_NTYPES; c++) {
        if (type_nums[c] >= 0 && type_nums[c] < NPY_NTYPES_LEGACY)
            tl_fast_code_of_num[type_nums[c]] = (signed char)c;
        else
            tl_fast_bf16_num = type_nums[c];
    }
    return 0;
}

static inline int tl_fast_array_code(PyArrayObject *a)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    int num = d->type_num, c;
    if (num >= 0 && num < NPY_NTYPES_LEGACY) c = tl_fast_code_of_num[num];
    else c = num == tl_fast_bf16_num ? TL_WK_BF16 : -1;
    if (c < 0 || !PyArray_ISNBO(d->byteorder) || PyDataType_METADATA(d) != NULL
            || !PyArray_ISALIGNED(a))
        return -1;
    return c;
}

/* A Python int as loop type `to` into buf; -1 (NumPy's path: its error or its conversion) when
 * it does not fit the type exactly */
static int tl_fast_pyint(PyObject *o, int to, char *buf)
{
    int ovf = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &ovf);
    unsigned long long mag;
    if (ovf || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -1;
    }
    mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    switch (to) {
#define TL_FAST_INT(CODE, T, LO, HI)                                                             \
        case CODE: { T x; if (v < (LO) || v > (HI)) return -1;                                   \
                     x = (T)v; memcpy(buf, &x, sizeof x); return 0; }
        TL_FAST_INT(TL_WK_U8, uint8_t, 0, UINT8_MAX)
        TL_FAST_INT(TL_WK_U16, uint16_t, 0, UINT16_MAX)
        TL_FAST_INT(TL_WK_U32, uint32_t, 0, UINT32_MAX)
        TL_FAST_INT(TL_WK_U64, uint64_t, 0, INT64_MAX)
        TL_FAST_INT(TL_WK_I8, int8_t, INT8_MIN, INT8_MAX)
        TL_FAST_INT(TL_WK_I16, int16_t, INT16_MIN, INT16_MAX)
        TL_FAST_INT(TL_WK_I32, int32_t, INT32_MIN, INT32_MAX)
        TL_FAST_INT(TL_WK_I64, int64_t, INT64_MIN, INT64_MAX)
#undef TL_FAST_INT
        /* float types: integers they hold exactly (no rounding question arises), converted as
         * a Python float is (tl_weak_scalar: no flag for such values) */
        case TL_WK_BF16: case TL_WK_F16: case TL_WK_F32: case TL_WK_C64: case TL_WK_F64:
        case TL_WK_C128: {
            unsigned long long lim = to == TL_WK_BF16 ? 256 : to == TL_WK_F16 ? 2048
                                   : to == TL_WK_F32 || to == TL_WK_C64 ? 1ULL << 24 : 1ULL << 53;
            double x = (double)v;
            if (mag > lim) return -1;
            if (to == TL_WK_F64) {
                memcpy(buf, &x, 8);
                return 0;
            }
            if (tl_weak_scalar(to, x, 0.0, buf) < 0) {     /* not for such values */
                PyErr_Clear();
                return -1;
            }
            return 0;
        }
        default:
            return -1;          /* bool: NumPy's own conversion */
    }
}

/* The value of Python scalar operand o (kind `code`) as the loop reads it (entry's to[i]) into
 * buf: 0; 1: NumPy's path (an int that does not fit); -1: an error raised. A float or complex
 * is converted as the weak loops convert it (tl_weak_scalar: NumPy's setitem, its "cast" FP
 * errors), not at all for a call of no element (NumPy runs no loop then). */
static int tl_fast_scalar(PyObject *o, int code, int to, npy_intp n, char *buf)
{
    double re, im = 0.0;
    if (code == TL_FAST_PYINT)
        return tl_fast_pyint(o, to, buf) < 0 ? 1 : 0;
    if (code == TL_FAST_PYFLOAT) {
        re = PyFloat_AS_DOUBLE(o);
    }
    else {
        Py_complex z = PyComplex_AsCComplex(o);
        re = z.real;
        im = z.imag;
    }
    if (to == TL_WK_F64) {
        memcpy(buf, &re, 8);
        return 0;
    }
    if (n == 0) return 0;
    return tl_weak_scalar(to, re, im, buf) < 0 ? -1 : 0;
}

static inline int tl_fast_fpstatus(void)
{
    int f = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID);
    return ((f & FE_DIVBYZERO) ? NPY_FPE_DIVIDEBYZERO : 0)
           | ((f & FE_OVERFLOW) ? NPY_FPE_OVERFLOW : 0)
           | ((f & FE_UNDERFLOW) ? NPY_FPE_UNDERFLOW : 0) | ((f & FE_INVALID) ? NPY_FPE_INVALID : 0);
}

/* the bytes [lo, hi) a loop operand of n elements, stride st, itemsize size touches */
static inline void tl_fast_extent(const char *p, npy_intp n, npy_intp st, npy_intp size,
                                  const char **lo, const char **hi)
{
    npy_intp span = n > 0 ? (n - 1) * st : 0;
    *lo = span < 0 ? p + span : p;
    *hi = (span < 0 ? p : p + span) + size;
}

/* out= for an operation of *ndim (-1: no array input of rank > 0 yet; out gives the shape),
 * *shape, *order (contiguity flags of the N-d inputs, 0: none); its loop stride into *st_out.
 * -1: NumPy's path (another dtype, read-only, another shape, a layout NumPy's trivial loop
 * does not take). */
static int tl_fast_take_out(PyArrayObject *out, const PyArray_Descr *want, int *ndim,
                            npy_intp **shape, int *order, npy_intp *st_out)
{
    int nd = PyArray_NDIM(out);
    npy_intp size = PyArray_ITEMSIZE(out);
    if (tl_fast_array_code(out) < 0 || PyArray_DESCR(out)->type_num != want->type_num
            || !PyArray_ISWRITEABLE(out) || (PyArray_FLAGS(out) & NPY_ARRAY_WRITEBACKIFCOPY))
        return -1;
    if (*ndim < 0) {
        *ndim = nd;
        *shape = PyArray_DIMS(out);
    }
    else if (nd != *ndim || !PyArray_CompareLists(*shape, PyArray_DIMS(out), nd)) {
        return -1;
    }
    *st_out = size;
    if (nd == 1) {
        if (PyArray_DIMS(out)[0] > 1) {
            *st_out = PyArray_STRIDES(out)[0];
            if (*st_out < size) return -1;          /* backwards or self-overlapping */
        }
    }
    else if (nd > 1) {
        int f = PyArray_FLAGS(out) & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS);
        if (f == 0 || (*order != 0 && *order != f)) return -1;
        *order = f;
    }
    return 0;
}

/* NumPy's vectorcall. Its OverflowError for a Python int out of range of the dtype the int takes
 * names neither the call nor the rule set ("Python int too large to convert to C long" for
 * 2**70), nor does ml_dtypes' TypeError for one beyond int64 ("expected number, got int"):
 * tl_fast_overflow_hook(ufunc, args, kwargs, error) may return a clearer one, raised from it. */
static PyObject *tl_fast_overflow_hook = NULL;

static PyObject *tl_fast_args_tuple(PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *argt = PyTuple_New(nargs);
    Py_ssize_t i;
    if (argt != NULL) {
        for (i = 0; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(argt, i, args[i]);
        }
    }
    return argt;
}

/* A sub-byte integer loop checks a Python int operand's range element by element (ml_dtypes
 * would wrap it), so a call that runs it on no element (an empty array, where=) would not raise,
 * nor one whose dtype=/signature= chose another loop (NumPy converts the int with ml_dtypes'
 * setitem): there, an exact Python int with an array of a user DType gets the hook's check
 * first. */
static int tl_fast_fixes_loop(PyObject *kwnames, PyObject *const *kwvalues, int casting);

/* the keyword arguments as a dict for the hooks */
static PyObject *tl_fast_kwargs_dict(PyObject *kwnames, PyObject *const *kwvalues)
{
    PyObject *d;
    Py_ssize_t i;
    if ((d = PyDict_New()) == NULL || kwnames == NULL) return d;
    for (i = 0; i < PyTuple_GET_SIZE(kwnames); i++)
        if (PyDict_SetItem(d, PyTuple_GET_ITEM(kwnames, i), kwvalues[i]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    return d;
}

/* hook(self[, method], args tuple, kwargs dict[, last]) for a call's vector arguments (method,
 * last: NULL to leave out); a new reference, NULL with an error set */
static PyObject *tl_fast_hook_call(PyObject *hook, PyObject *self, PyObject *method,
                                   PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                   PyObject *last)
{
    PyObject *argt = tl_fast_args_tuple(args, nargs), *kw = NULL, *r = NULL;
    if (argt != NULL && (kw = tl_fast_kwargs_dict(kwnames, args + nargs)) != NULL)
        r = method != NULL ? PyObject_CallFunctionObjArgs(hook, self, method, argt, kw, last, NULL)
                           : PyObject_CallFunctionObjArgs(hook, self, argt, kw, last, NULL);
    Py_XDECREF(argt);
    Py_XDECREF(kw);
    return r;
}

static int tl_fast_precheck_int(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    PyObject *err;
    Py_ssize_t i, side;
    PyArrayObject *a;
    if (nargs != 2 || tl_fast_overflow_hook == NULL) return 0;
    side = PyLong_CheckExact(args[0]) ? 0 : PyLong_CheckExact(args[1]) ? 1 : -1;
    if (side < 0 || !PyArray_Check(args[1 - side])) return 0;
    a = (PyArrayObject *)args[1 - side];
    if (PyArray_DESCR(a)->type_num < NPY_USERDEF) return 0;
    if (PyArray_SIZE(a) != 0 && !tl_fast_fixes_loop(kwnames, args + nargs, 0)) {
        int where = 0;
        for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++)
            where |= TL_KW_EQ(PyTuple_GET_ITEM(kwnames, i), "where");
        if (!where) return 0;
    }
    err = tl_fast_hook_call(tl_fast_overflow_hook, self, NULL, args, nargs, kwnames, Py_None);
    if (err == NULL) return -1;
    if (PyExceptionInstance_Check(err) && PyErr_GivenExceptionMatches(err, PyExc_OverflowError)) {
        PyErr_SetObject((PyObject *)Py_TYPE(err), err);
        Py_DECREF(err);
        return -1;
    }
    Py_DECREF(err);
    return 0;
}

/* ml_dtypes registers its casts from complex to its floats and from float to its sub-byte ints
 * same_kind (NumPy ranks the kind of its types, 'V', above every other), so NumPy would make
 * them silently into out=/dtype=. tl_cast_hook(ufunc, method, args, kwargs) raises NumPy's
 * casting error for such a cast, or warns of a complex one made unsafely. It is asked only
 * where a place that fixes a type (positional arguments from `first` on; out=, dtype=,
 * signature=) names a user DType that could lose a kind there: one holding ints, or a float
 * one beside a complex operand or fixed type. */
static PyObject *tl_cast_hook = NULL;
#define TL_USER_RANKS 64
/* NumPy's kind order (b 0, u 1, i 2, f 4, c 5) of user DTypes by what they hold, by type
 * number - NPY_USERDEF (set from Python: ml_dtypes' types); 0 unknown */
static signed char tl_user_rank[TL_USER_RANKS];

static void tl_fast_set_cast_hook(PyObject *hook)
{
    Py_XINCREF(hook);
    Py_XSETREF(tl_cast_hook, hook);
}

static void tl_fast_set_user_rank(int type_num, int rank)
{
    if (type_num >= NPY_USERDEF && type_num - NPY_USERDEF < TL_USER_RANKS)
        tl_user_rank[type_num - NPY_USERDEF] = (signed char)rank;
}

/* A fixed type of type number num: a user DType's rank (0 unknown) lowers *target, a complex
 * type sets *complex_ */
static void tl_note_fixed(int num, int *target, int *complex_)
{
    if (num >= NPY_USERDEF) {
        int rank = num - NPY_USERDEF < TL_USER_RANKS ? tl_user_rank[num - NPY_USERDEF] : 0;
        if (rank < *target) *target = rank;
    }
    else if (PyTypeNum_ISCOMPLEX(num)) {
        *complex_ = 1;
    }
}

/* Where o fixes a type (an out= array; a dtype, scalar type or name; a tuple of them): the
 * lowest rank of the user DTypes it names (6: none) into *target, and whether it names a
 * complex type into *complex_ */
static void tl_fixed_ranks(PyObject *o, int *target, int *complex_)
{
    PyArray_Descr *d = NULL;
    Py_ssize_t i;
    if (PyTuple_Check(o)) {
        for (i = 0; i < PyTuple_GET_SIZE(o); i++)
            tl_fixed_ranks(PyTuple_GET_ITEM(o, i), target, complex_);
        return;
    }
    if (PyArray_Check(o)) {
        d = PyArray_DESCR((PyArrayObject *)o);
        Py_INCREF(d);
    }
    else if (PyArray_DescrCheck(o)) {
        d = (PyArray_Descr *)o;
        Py_INCREF(d);
    }
    else if (PyObject_TypeCheck(o, &PyArrayDTypeMeta_Type)) {
        /* a DType class (np.dtypes.Float64DType): its type number */
        tl_note_fixed(((PyArray_DTypeMeta *)o)->type_num, target, complex_);
        return;
    }
    else if (PyArray_IsScalar(o, Generic)) {
        d = PyArray_DescrFromScalar(o);
        if (d == NULL) {
            PyErr_Clear();
            return;
        }
    }
    else if (PyType_Check(o)) {
        /* (dtype=np.float32 in a loop: the type's descr, cached; a type NumPy reads as none
         * holds NULL) */
        static PyObject *types[8];
        static PyArray_Descr *descrs[8];
        static int next = 0;
        for (i = 0; i < 8 && types[i] != o; i++)
            ;
        if (i == 8) {
            if (!PyArray_DescrConverter2(o, &d)) PyErr_Clear();
            Py_XDECREF(types[next]);
            Py_XSETREF(descrs[next], d);
            Py_INCREF(o);
            types[next] = o;
            next = (next + 1) % 8;
        }
        else {
            d = descrs[i];
        }
        Py_XINCREF(d);
    }
    else if (!PyUnicode_Check(o)) {
        return;
    }
    else if (!PyArray_DescrConverter2(o, &d)) {
        PyErr_Clear();
        *complex_ = 1;              /* (a signature string, "D->D": it may name one) */
        return;
    }
    if (d == NULL) return;
    tl_note_fixed(d->type_num, target, complex_);
    Py_DECREF(d);
}

/* Might o hold complex numbers: a Python complex, a complex NumPy scalar or array, or another
 * object NumPy converts (a list)? Not a Python int or float, nor a real NumPy scalar or array. */
static int tl_may_be_complex(PyObject *o)
{
    if (PyLong_Check(o) || PyFloat_Check(o)) return 0;
    if (PyArray_Check(o)) return PyArray_ISCOMPLEX((PyArrayObject *)o);
    if (PyArray_IsScalar(o, Generic)) return PyArray_IsScalar(o, ComplexFloating);
    return 1;
}

/* (user: ask the hook whatever the arguments name) */
static int tl_cast_check(PyObject *self, PyObject *method, PyObject *const *args,
                         Py_ssize_t nargs, Py_ssize_t first, PyObject *kwnames, int user)
{
    PyObject *r;
    Py_ssize_t i;
    int target = 6, complex_ = 0;
    if (tl_cast_hook == NULL) return 0;
    if (!user) {
        for (i = first; i < nargs; i++) tl_fixed_ranks(args[i], &target, &complex_);
        for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++) {
            PyObject *k = PyTuple_GET_ITEM(kwnames, i);
            if (TL_KW_EQ(k, "out") || TL_KW_EQ(k, "dtype") || TL_KW_EQ(k, "signature")
                    || TL_KW_EQ(k, "sig"))
                tl_fixed_ranks(args[nargs + i], &target, &complex_);
        }
        if (target == 6) return 0;
        for (i = 0; i < first && i < nargs && !complex_; i++)
            complex_ = tl_may_be_complex(args[i]);
        if (target >= 4 && !complex_) return 0;
    }
    if ((r = tl_fast_hook_call(tl_cast_hook, self, method, args, nargs, kwnames, NULL)) == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Per slot, for rule sets that read a 64-bit operand as its 32-bit sibling (jax32): canon(x)
 * converts such an array (a new reference; x itself otherwise). A call with dtype= or
 * signature= that fixes another loop than the plain call's would make NumPy cast the operand
 * whole to that loop's type (and casting= check that cast), so those calls get their input
 * arrays and NumPy scalars converted first. */
static PyObject *tl_fast_canon[TL_FAST_NSLOT];
static unsigned char tl_fast_canon_inputs[TL_FAST_NSLOT];     /* bit i: convert input i */

static void tl_fast_set_canon(int slot, PyObject *canon, int inputs)
{
    if (slot < 0 || slot >= TL_FAST_NSLOT) return;
    Py_XINCREF(canon);
    Py_XSETREF(tl_fast_canon[slot], canon);
    tl_fast_canon_inputs[slot] = (unsigned char)inputs;
}

/* Does a keyword fix a loop type (dtype=, signature=; casting= if asked)? NumPy takes
 * dtype=None and a signature of Nones as not given. */
static int tl_fast_fixes_loop(PyObject *kwnames, PyObject *const *kwvalues, int casting)
{
    Py_ssize_t i, j;
    for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = kwvalues[i];
        if (casting && TL_KW_EQ(k, "casting"))
            return 1;
        if (!TL_KW_EQ(k, "dtype") && !TL_KW_EQ(k, "signature"))
            continue;
        if (PyTuple_Check(v)) {
            for (j = 0; j < PyTuple_GET_SIZE(v) && PyTuple_GET_ITEM(v, j) == Py_None; j++)
                ;
            if (j < PyTuple_GET_SIZE(v)) return 1;
        }
        else if (v != Py_None) {
            return 1;
        }
    }
    return 0;
}

static PyObject *tl_fast_fallback_args(PyObject *self, PyObject *const *args,
                                       PyObject *const *given, size_t nargsf, PyObject *kwnames);

static PyObject *tl_fast_fallback(int slot, PyObject *self, PyObject *const *args,
                                  size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nin = ((PyUFuncObject *)self)->nin, n, i;
    PyObject **buf, *r;
    int changed = 0;
    /* (casting= too: NumPy would check a cast of the whole operand to the loop's type) */
    if (tl_fast_canon[slot] == NULL || !tl_fast_fixes_loop(kwnames, args + nargs, 1))
        return tl_fast_fallback_args(self, args, args, nargsf, kwnames);
    n = nargs + PyTuple_GET_SIZE(kwnames);
    buf = (PyObject **)PyMem_Malloc((n > 0 ? n : 1) * sizeof(PyObject *));
    if (buf == NULL) return PyErr_NoMemory();
    for (i = 0; i < n; i++) {
        if (i < nin && i < nargs) {
            if (!(tl_fast_canon_inputs[slot] & (1u << i))) {
                Py_INCREF(args[i]);
                buf[i] = args[i];
                continue;
            }
            buf[i] = PyObject_CallOneArg(tl_fast_canon[slot], args[i]);
            if (buf[i] == NULL) {
                while (--i >= 0) if (i < nin) Py_DECREF(buf[i]);
                PyMem_Free(buf);
                return NULL;
            }
            changed |= buf[i] != args[i];
        }
        else {
            buf[i] = args[i];
        }
    }
    r = tl_fast_fallback_args(self, changed ? buf : args, args, nargsf, kwnames);
    for (i = 0; i < nin && i < nargs; i++) Py_DECREF(buf[i]);
    PyMem_Free(buf);
    return r;
}

/* NumPy's generic TypeErrors that hide typelattice's. Once the plain call on some dtypes has run,
 * NumPy answers a dtype=/signature= call on them from that call's cached loop without asking the
 * promoter: its no-loop error where the loop is not the one named. A dask array's
 * __array_ufunc__ swallows the ufunc's error while it infers the result dtype: "operand type(s)
 * all returned NotImplemented". tl_fast_error_hook(ufunc, args, kwargs, error) returns the
 * error typelattice gives (the promoter's in a fresh process; the call's on NumPy arrays of the
 * operands' dtypes), or None. 1: that error set instead. */
static PyObject *tl_fast_error_hook = NULL;

/* With an error set: hook(ufunc, args, kwargs, error) may return a clearer exception, set in its
 * place (1); else (also where the hook itself fails) the error stands (0). */
static int tl_fast_better_error(PyObject *hook, PyObject *self, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *t, *v, *tb, *better;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL) PyException_SetTraceback(v, tb);
    better = tl_fast_hook_call(hook, self, NULL, args, nargs, kwnames, v);
    if (better != NULL && PyExceptionInstance_Check(better)) {
        PyErr_SetObject((PyObject *)Py_TYPE(better), better);
        Py_DECREF(better);
        Py_XDECREF(t); Py_XDECREF(v); Py_XDECREF(tb);
        return 1;
    }
    Py_XDECREF(better);
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    return 0;
}

static int tl_fast_call_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    if (tl_fast_error_hook == NULL || !PyErr_ExceptionMatches(PyExc_TypeError)) return 0;
    return tl_fast_better_error(tl_fast_error_hook, self, args, nargs, kwnames);
}

static void tl_fast_set_error_hook(PyObject *hook)
{
    Py_XINCREF(hook);
    Py_XSETREF(tl_fast_error_hook, hook);
}

/* A dask array's __array_ufunc__ takes dtype= as a cast of its result, each block computed
 * without it (int8 + int8 with dtype=int16 wrapped), and infers the dtype of a weak operand as
 * a strong array's: tl_fast_foreign_hook(ufunc, args, kwargs) runs such a call its own way
 * (typelattice.dask) or returns NotImplemented. Asked only for a call with an operand, out= or
 * where= that is no array, NumPy scalar or Python number. */
static PyObject *tl_fast_foreign_hook = NULL;

static int tl_fast_is_foreign(PyObject *o)
{
    Py_ssize_t i;
    if (PyTuple_Check(o)) {
        for (i = 0; i < PyTuple_GET_SIZE(o); i++)
            if (tl_fast_is_foreign(PyTuple_GET_ITEM(o, i))) return 1;
        return 0;
    }
    return !(PyArray_Check(o) || PyArray_IsScalar(o, Generic) || PyLong_Check(o)
             || PyFloat_Check(o) || PyComplex_Check(o) || o == Py_None || PyList_Check(o));
}

static PyObject *tl_fast_foreign_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    Py_ssize_t i;
    int foreign = 0;
    if (tl_fast_foreign_hook == NULL) Py_RETURN_NOTIMPLEMENTED;
    for (i = 0; i < nargs && !foreign; i++) foreign = tl_fast_is_foreign(args[i]);
    for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames) && !foreign; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (TL_KW_EQ(k, "out") || TL_KW_EQ(k, "where"))
            foreign = tl_fast_is_foreign(args[nargs + i]);
    }
    if (!foreign) Py_RETURN_NOTIMPLEMENTED;
    return tl_fast_hook_call(tl_fast_foreign_hook, self, NULL, args, nargs, kwnames, NULL);
}

static void tl_fast_set_foreign_hook(PyObject *hook)
{
    Py_XINCREF(hook);
    Py_XSETREF(tl_fast_foreign_hook, hook);
}

/* NumPy's call on args; the hook's messages name the caller's own operands, given (jax32's
 * int64 array, not the int32 one args holds under casting=) */
static PyObject *tl_fast_fallback_args(PyObject *self, PyObject *const *args,
                                       PyObject *const *given, size_t nargsf, PyObject *kwnames)
{
    PyObject *r;
    Py_ssize_t i, nargs = PyVectorcall_NARGS(nargsf);
    if (tl_fast_precheck_int(self, given, nargs, kwnames) < 0) return NULL;
    r = tl_fast_foreign_call(self, given, nargs, kwnames);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
    if (tl_cast_check(self, Py_None, args, nargs, ((PyUFuncObject *)self)->nin, kwnames,
                      0) < 0)
        return NULL;
    r = tl_fast_numpy(self, args, nargsf, kwnames);
    if (r == NULL && tl_fast_call_error(self, args, nargs, kwnames))
        return NULL;
    if (r != NULL || tl_fast_overflow_hook == NULL
            || !(PyErr_ExceptionMatches(PyExc_OverflowError)
                 || PyErr_ExceptionMatches(PyExc_TypeError)))
        return r;
    /* (a float: one outside the integer type dtype=/signature= fix, OverflowError) */
    for (i = 0; i < nargs && !PyLong_Check(given[i])
                && !(PyFloat_Check(given[i]) && PyErr_ExceptionMatches(PyExc_OverflowError)); i++)
        ;
    if (i < nargs) tl_fast_better_error(tl_fast_overflow_hook, self, given, nargs, kwnames);
    return NULL;
}

static void tl_fast_set_overflow_hook(PyObject *hook)
{
    Py_XINCREF(hook);
    Py_XSETREF(tl_fast_overflow_hook, hook);
}

/* The lone operand of a unary op that is an exact Python int/float/complex: NumPy converts it to
 * int64/float64/complex128 (uint64 or object past int64) before any promoter sees it, since
 * unary ufuncs do not promote. tl_fast_unary_hook(ufunc, x, kwnames, kwvalues) returns the
 * operand to use instead, fastcall on or off: a NumPy scalar of the loop type the promoter gives
 * x's weak type (torch: float32), an int range-checked, or x itself (dtype=/signature= given).
 * Per slot: 1 where the rule set's types for Python scalars are not NumPy's (every Python
 * scalar goes through the hook), 0 where only an int outside int64 does (its OverflowError). */
static PyObject *tl_fast_unary_hook = NULL;
static unsigned char tl_fast_unary_convert[TL_FAST_NSLOT];

static void tl_fast_set_unary_hook(PyObject *hook)
{
    Py_XINCREF(hook);
    Py_XSETREF(tl_fast_unary_hook, hook);
}

static inline int tl_fast_unary_weak_operand(int slot, PyObject *o)
{
    int overflow = 0;
    if (PyLong_CheckExact(o)) {
        if (tl_fast_unary_convert[slot]) return 1;
        (void)PyLong_AsLongLongAndOverflow(o, &overflow);
        return overflow != 0;
    }
    return tl_fast_unary_convert[slot] && (PyFloat_CheckExact(o) || PyComplex_CheckExact(o));
}

/* the n vectorcall arguments args with the first replaced by x: a PyMem buffer for the caller
 * to free, or NULL (MemoryError set) */
static PyObject **tl_args_with_first(PyObject *const *args, Py_ssize_t n, PyObject *x)
{
    Py_ssize_t i;
    PyObject **buf = (PyObject **)PyMem_Malloc((n > 0 ? n : 1) * sizeof(PyObject *));
    if (buf == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    buf[0] = x;
    for (i = 1; i < n; i++) buf[i] = args[i];
    return buf;
}

static PyObject *tl_fast_call(int slot, PyObject *self, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames);

static PyObject *tl_fast_unary_weak(int slot, PyObject *self, PyObject *const *args,
                                    size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), i;
    Py_ssize_t n = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *x, *r, **buf, *kwvalues = Py_None;
    if (kwnames != NULL) {
        kwvalues = PyTuple_New(n - nargs);
        if (kwvalues == NULL) return NULL;
        for (i = nargs; i < n; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(kwvalues, i - nargs, args[i]);
        }
    }
    else {
        Py_INCREF(kwvalues);
    }
    x = PyObject_CallFunctionObjArgs(tl_fast_unary_hook, self, args[0],
                                     kwnames != NULL ? kwnames : Py_None, kwvalues, NULL);
    Py_DECREF(kwvalues);
    if (x == NULL) return NULL;
    if (x == args[0]) {
        Py_DECREF(x);
        return tl_fast_fallback(slot, self, args, nargsf, kwnames);
    }
    if ((buf = tl_args_with_first(args, n, x)) == NULL) {
        Py_DECREF(x);
        return NULL;
    }
    r = tl_fast_call(slot, self, buf, (size_t)nargs, kwnames);
    PyMem_Free(buf);
    Py_DECREF(x);
    return r;
}

/* kwnames with NumPy's alias sig= spelled signature=, which the hooks read (a new reference), or
 * NULL (none, or both given: NumPy's error) */
static PyObject *tl_fast_signature_alias(PyObject *kwnames)
{
    static PyObject *signature = NULL;
    PyObject *named;
    Py_ssize_t i, n = PyTuple_GET_SIZE(kwnames), at = -1;
    for (i = 0; i < n; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (TL_KW_EQ(k, "sig")) at = i;
        else if (TL_KW_EQ(k, "signature")) return NULL;
    }
    if (at < 0) return NULL;
    if (signature == NULL && (signature = PyUnicode_InternFromString("signature")) == NULL)
        return NULL;
    if ((named = PyTuple_New(n)) == NULL) return NULL;
    for (i = 0; i < n; i++) {
        PyObject *k = i == at ? signature : PyTuple_GET_ITEM(kwnames, i);
        Py_INCREF(k);
        PyTuple_SET_ITEM(named, i, k);
    }
    return named;
}

/* Per slot, the ufunc that computes the slot's op with the operands swapped (greater for less,
 * add for add; _MIRROR_OF), or NULL. A call that leaves the call path for its keywords (where=)
 * or shapes (broadcasting) on two arrays whose entry runs the mirrored loop (swap) would have
 * NumPy cast one array whole first: less(bool_array, float16_array, where=m, out=o) at 17x the
 * float16 call. NumPy's own call of the mirror on the swapped operands finds the loop that reads both
 * arrays' dtypes and does the rest (where=, broadcasting, out=) as the call would: the same
 * values, the output laid out alike (NumPy's iterator orders axes by all operands' strides,
 * whatever their order). Only where nothing the mirror reports could name it or the operands'
 * order: no FP flags (check_fpe 0), out= of the loop's own output dtype; an error (a broadcast
 * error lists the shapes in the operands' order) reruns the call as given. */
static PyObject *tl_fast_mirror[TL_FAST_NSLOT];
static Py_ssize_t tl_fast_mirror_hits = 0;      /* calls run by the mirror (tests) */

static void tl_fast_set_mirror(int slot, PyObject *mirror)
{
    if (slot < 0 || slot >= TL_FAST_NSLOT) return;
    Py_XINCREF(mirror);
    Py_XSETREF(tl_fast_mirror[slot], mirror);
}

/* 1: *res holds the mirror's result; 0: not such a call, or the mirror's call failed with an
 * Exception (cleared: the caller runs the call as given, which raises NumPy's own error); -1: an
 * error that is no Exception (KeyboardInterrupt) set */
static int tl_fast_mirror_call(int slot, PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames, PyObject **res)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), i, n;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *mirror = tl_fast_mirror[slot], *out = Py_None, *small[8], **buf = small;
    tl_fast_entry *table = tl_fast_entries[slot], *e;
    int codes[2];
    if (mirror == NULL || table == NULL || !tl_fast_enabled || tl_fast_canon[slot] != NULL
            || nargs < 2 || nargs > 3)
        return 0;
    for (i = 0; i < 2; i++)
        if (!PyArray_CheckExact(args[i])
                || (codes[i] = tl_fast_array_code((PyArrayObject *)args[i])) < 0)
            return 0;
    if (nargs == 3) out = args[2];
    for (i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = args[nargs + i];
        if (k == tl_fast_str_out || TL_KW_EQ(k, "out")) {
            if (nargs == 3) return 0;
            out = v;
        }
        else if (!TL_KW_EQ(k, "where") || !(PyArray_CheckExact(v) || PyBool_Check(v))) {
            return 0;
        }
    }
    if (PyTuple_CheckExact(out) && PyTuple_GET_SIZE(out) == 1) out = PyTuple_GET_ITEM(out, 0);
    e = &table[codes[0] * TL_FAST_NCODES + codes[1]];
    if (e->state == 0 && tl_fast_resolve_cb(slot, codes, e) < 0) return -1;
    if (e->state < 0 || !e->swap || e->check_fpe)
        return 0;
    if (out != Py_None && !(PyArray_CheckExact(out)
                            && PyArray_EquivTypes(PyArray_DESCR((PyArrayObject *)out),
                                                  e->descrs[2])))
        return 0;
    n = nargs + nkw;
    if (n > 8 && (buf = (PyObject **)PyMem_Malloc(n * sizeof(PyObject *))) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buf[0] = args[1];
    buf[1] = args[0];
    for (i = 2; i < n; i++) buf[i] = args[i];
    /* (no PY_VECTORCALL_ARGUMENTS_OFFSET: buf has no slot before it for NumPy to borrow) */
    *res = tl_fast_numpy(mirror, buf, (size_t)nargs, kwnames);
    if (buf != small) PyMem_Free(buf);
    if (*res != NULL) {
        tl_fast_mirror_hits++;
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return -1;
    PyErr_Clear();
    return 0;
}

static PyObject *tl_fast_call(int slot, PyObject *self, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames)
{
    PyUFuncObject *uf = (PyUFuncObject *)self;
    tl_fast_entry *table = tl_fast_entries[slot], *e;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int nin = uf->nin, nout = uf->nout, i, codes[2], ndim = -1, order = 0, arrays = 0, scalars = 0;
    npy_intp *shape = NULL, n = 1, st[4];
    char *data[4];
    union { double d[2]; char b[16]; } val[2];
    PyArrayObject *outs[2] = {NULL, NULL}, *given = NULL;

    if (kwnames != NULL && (PyTuple_GET_SIZE(kwnames) != 1
                            || PyTuple_GET_ITEM(kwnames, 0) != tl_fast_str_out)) {
        PyObject *named = tl_fast_signature_alias(kwnames), *r;
        if (named != NULL) {
            r = tl_fast_call(slot, self, args, nargsf, named);
            Py_DECREF(named);
            return r;
        }
        if (PyErr_Occurred()) return NULL;
    }
    if (nin == 1 && nargs >= 1 && tl_fast_unary_hook != NULL
            && tl_fast_unary_weak_operand(slot, args[0]))
        return tl_fast_unary_weak(slot, self, args, nargsf, kwnames);
    if (!tl_fast_enabled || nargs != nin || table == NULL)
        goto numpy;
    if (kwnames != NULL) {                      /* only out=, of a single-output ufunc */
        PyObject *name, *v;
        if (nout != 1 || PyTuple_GET_SIZE(kwnames) != 1) goto numpy;
        name = PyTuple_GET_ITEM(kwnames, 0);
        if (name != tl_fast_str_out && !TL_KW_EQ(name, "out"))
            goto numpy;
        v = args[nargs];
        if (PyTuple_CheckExact(v) && PyTuple_GET_SIZE(v) == 1) v = PyTuple_GET_ITEM(v, 0);
        if (v != Py_None) {
            if (!PyArray_CheckExact(v)) goto numpy;
            given = (PyArrayObject *)v;
        }
    }
    for (i = 0; i < nin; i++) {
        PyObject *o = args[i];
        if (PyArray_CheckExact(o)) {
            PyArrayObject *a = (PyArrayObject *)o;
            int nd = PyArray_NDIM(a);
            if ((codes[i] = tl_fast_array_code(a)) < 0) goto numpy;
            arrays++;
            data[i] = PyArray_BYTES(a);
            if (nd == 0) {                      /* broadcasts */
                st[i] = 0;
                continue;
            }
            if (ndim < 0) {
                ndim = nd;
                shape = PyArray_DIMS(a);
            }
            else if (nd != ndim || !PyArray_CompareLists(shape, PyArray_DIMS(a), nd)) {
                goto numpy;
            }
            if (nd == 1) {
                st[i] = PyArray_STRIDES(a)[0];
            }
            else {
                int f = PyArray_FLAGS(a) & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS);
                if (f == 0 || (order != 0 && order != f)) goto numpy;
                order = f;
                st[i] = PyArray_ITEMSIZE(a);
            }
        }
        else {
            st[i] = 0;
            if (PyLong_CheckExact(o)) codes[i] = TL_FAST_PYINT;
            else if (PyFloat_CheckExact(o)) codes[i] = TL_FAST_PYFLOAT;
            else if (PyComplex_CheckExact(o)) codes[i] = TL_FAST_PYCOMPLEX;
            else {                              /* a NumPy scalar: strong, as a 0-d array */
                PyTypeObject *tp = Py_TYPE(o);
                int c = 0;
                while (c < TL_FAST_NTYPES && tl_fast_scalar_types[c] != tp) c++;
                if (c == TL_FAST_NTYPES) goto numpy;
                codes[i] = c;
                data[i] = TL_FAST_SCALAR_VALUE(o);
                scalars++;
            }
        }
    }
    /* Python scalars alone, or a unary op of a NumPy scalar (NumPy's scalar path is faster) */
    if (arrays == 0 && (scalars == 0 || nin == 1)) goto numpy;
    e = &table[nin == 2 ? codes[0] * TL_FAST_NCODES + codes[1] : codes[0]];
    if (e->state == 0 && tl_fast_resolve_cb(slot, codes, e) < 0) return NULL;
    if (e->state < 0) goto numpy;
    if (given != NULL) {
        const char *olo, *ohi;
        if (tl_fast_take_out(given, e->descrs[nin], &ndim, &shape, &order, &st[nin]) < 0)
            goto numpy;
        n = PyArray_MultiplyList(shape, ndim);
        data[nin] = PyArray_BYTES(given);
        tl_fast_extent(data[nin], n, st[nin], PyArray_ITEMSIZE(given), &olo, &ohi);
        /* an input sharing memory with out: only element for element (NumPy copies others) */
        for (i = 0; i < nin; i++) {
            const char *lo, *hi;
            npy_intp size;
            if (!PyArray_CheckExact(args[i])) continue;
            size = PyArray_ITEMSIZE((PyArrayObject *)args[i]);
            if (data[i] == data[nin] && st[i] == st[nin] && size == PyArray_ITEMSIZE(given))
                continue;
            tl_fast_extent(data[i], n, st[i], size, &lo, &hi);
            if (lo < ohi && olo < hi) goto numpy;
        }
    }
    if (ndim < 0) ndim = 0;
    n = PyArray_MultiplyList(shape, ndim);
    /* as NumPy's npy_clear_floatstatus_barrier: testing is far cheaper than clearing; before the
     * scalars' conversion, which NumPy's path runs inside the loop (tl_weak.c) */
    if (n > 0 && e->check_fpe && tl_fast_fpstatus() != 0)
        feclearexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID);
    for (i = 0; i < nin; i++) {
        int rc;
        if (codes[i] < TL_FAST_NTYPES) continue;
        rc = tl_fast_scalar(args[i], codes[i], e->to[i], n, val[i].b);
        if (rc > 0) goto numpy;
        if (rc < 0) return NULL;
        data[i] = val[i].b;
    }
    if (given != NULL) {
        Py_INCREF(given);
        outs[0] = given;
    }
    for (i = given != NULL; i < nout; i++) {
        PyArray_Descr *d = e->descrs[nin + i];
        Py_INCREF(d);
        outs[i] = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, d, ndim, shape, NULL, NULL,
                                                        order == NPY_ARRAY_F_CONTIGUOUS, NULL);
        if (outs[i] == NULL) goto fail;
        data[nin + i] = PyArray_BYTES(outs[i]);
        st[nin + i] = PyDataType_ELSIZE(d);
    }
    if (n > 0) {
        PyArrayMethod_Context ctx;
        PyThreadState *ts = NULL;
        int rc;
        memset(&ctx, 0, sizeof(ctx));
        ctx.caller = self;
        ctx.descriptors = e->descrs;
        if (e->swap) {
            char *d0 = data[0];
            npy_intp s0 = st[0];
            data[0] = data[1], st[0] = st[1];
            data[1] = d0, st[1] = s0;
        }
        if (n > TL_FAST_GIL_MIN) ts = PyEval_SaveThread();
        rc = e->loop(&ctx, data, &n, st, NULL);
        if (ts != NULL) PyEval_RestoreThread(ts);
        if (rc < 0 || PyErr_Occurred()) goto fail;
        if (e->check_fpe) {
            int fpe = tl_fast_fpstatus();
            if (fpe && PyUFunc_GiveFloatingpointErrors(uf->name, fpe) < 0) goto fail;
        }
    }
    tl_fast_hits++;
    if (given != NULL)
        return (PyObject *)given;
    if (nout == 1)
        return PyArray_Return(outs[0]);
    {
        PyObject *res = PyTuple_New(nout);
        if (res == NULL) goto fail;
        for (i = 0; i < nout; i++) PyTuple_SET_ITEM(res, i, PyArray_Return(outs[i]));
        return res;
    }
fail:
    for (i = 0; i < nout; i++) Py_XDECREF(outs[i]);
    return NULL;
numpy:
    {
        PyObject *r;
        int rc = nin == 2 ? tl_fast_mirror_call(slot, self, args, nargsf, kwnames, &r) : 0;
        if (rc != 0) return rc > 0 ? r : NULL;
    }
    return tl_fast_fallback(slot, self, args, nargsf, kwnames);
}

/* TL_FAST_NSLOT thunks tl_fast_t_XYZ (hex index), each passing its index to tl_fast_call */
#define TL_FAST_THUNK(a, b, c)                                                                   \
    static PyObject *tl_fast_t_##a##b##c(PyObject *self, PyObject *const *args, size_t nargsf,  \
                                        PyObject *kwnames)                                      \
    { return tl_fast_call(0x##a##b##c, self, args, nargsf, kwnames); }
#define TL_FAST_PTR(a, b, c) tl_fast_t_##a##b##c,
TL_THUNKS_4096(TL_FAST_THUNK)
static const vectorcallfunc tl_fast_thunks[TL_FAST_NSLOT] = { TL_THUNKS_4096(TL_FAST_PTR) };

/* Give ufunc `uf` (nin 1 or 2, nout 1 or 2) a thunk: its slot, or -1 (NumPy's path stays) */
static int tl_fast_install(PyObject *obj)
{
    PyUFuncObject *uf = (PyUFuncObject *)obj;
    int slot = tl_fast_nslots;
    size_t n;
    if (slot == TL_FAST_NSLOT || uf->nin < 1 || uf->nin > 2 || uf->nout < 1 || uf->nout > 2
            || uf->vectorcall == NULL || (tl_fast_numpy != NULL && uf->vectorcall != tl_fast_numpy))
        return -1;
    n = uf->nin == 2 ? TL_FAST_NCODES * TL_FAST_NCODES : TL_FAST_NCODES;
    tl_fast_entries[slot] = (tl_fast_entry *)PyMem_RawCalloc(n, sizeof(tl_fast_entry));
    if (tl_fast_entries[slot] == NULL) return -1;
    tl_fast_numpy = uf->vectorcall;
    tl_fast_unary_convert[slot] = 0;
    uf->vectorcall = tl_fast_thunks[slot];
    tl_fast_nslots++;
    return slot;
}

static void tl_fast_set_scalar_type(int code, PyObject *type)
{
    if (code >= 0 && code < TL_FAST_NTYPES) tl_fast_scalar_types[code] = (PyTypeObject *)type;
}
static void tl_fast_set_unary_convert(int slot, int on)
{
    if (slot >= 0 && slot < TL_FAST_NSLOT) tl_fast_unary_convert[slot] = (unsigned char)on;
}
static void tl_fast_set(int on) { tl_fast_enabled = on; }
static int tl_fast_get(void) { return tl_fast_enabled; }
static Py_ssize_t tl_fast_count(void) { return tl_fast_hits; }
static Py_ssize_t tl_fast_mirror_count(void) { return tl_fast_mirror_hits; }

#endif
