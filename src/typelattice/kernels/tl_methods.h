/* `uf.reduce`, `uf.accumulate`, `uf.reduceat`, `uf.at` and `uf.outer` of a binary typelattice
 * ufunc, included by _ufuncs.pyx: NumPy's methods, with hooks written in Python. Set in the
 * ufunc's __dict__, which shadows np.ufunc's methods; a vectorcall object, so a call that needs
 * no hook costs ~20 ns more than the method, not a Python wrapper's ~100 ns.
 *
 * - check (reduce): NumPy stores an `initial=` with the loop dtype's setitem, which for
 *   ml_dtypes' int4/int2/uint4/uint2 wraps (20 as an int4 is 4) and for NumPy's ints raises an
 *   error naming neither the call nor the rule set, and the loop never sees the value. A call
 *   with an integer initial= (a Python int, NumPy integer scalar or 0-d integer array) runs
 *   check(reduce's arguments) first, which raises or returns; one with a float initial= that
 *   NumPy refuses with an OverflowError runs it after, for its error.
 * - retry (after a TypeError, or a ValueError with dtype=): NumPy looks a reduction with dtype=t (or accumulate with out= of t) up under the same
 *   DTypes as the plain call op(t_array, x_array), whose typelattice loop reads x itself (or
 *   computes in the join): accumulate refuses that loop ("the resolved dtypes are not
 *   compatible"), and the promoter refuses to answer the plain call's question with a cast to t.
 *   After a TypeError, retry(error, the method's arguments) returns the method's result on x
 *   cast to t, as NumPy's own cast would give, or raises.
 * - canon (rule sets that read a 64-bit operand as its 32-bit sibling: jax32): the array
 *   argument is canon(array) (int64 2**33 + 5 is the int32 5), as the plain calls' canon loops
 *   read it, before anything else; NumPy's reductions would cast it whole to their loop type.
 * - value (at): NumPy's `at` makes a Python int/float/complex value a strong int64/float64/
 *   complex128 array (uint64 + 1 then computes in float64 under jax). at(a, i, v) with such a
 *   v runs at(a, i, value(a, v)): v as the plain call's weak rule takes it.
 * - scalar (outer): NumPy's `outer` makes a Python scalar operand a strong array too, where
 *   outer(a, 3) is the plain call a op 3 (a 0-d operand adds no axis). outer(a, b) with a
 *   Python int/float/complex a or b returns scalar(a, b, **kwargs). */
#ifndef TYPELATTICE_TL_METHODS_H
#define TYPELATTICE_TL_METHODS_H

#include <Python.h>
#include <structmember.h>
#include "numpy/arrayobject.h"
#include "tl_fastcall.h"            /* tl_args_with_first */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *ufunc;
    PyObject *name;             /* "reduce", "accumulate", "reduceat" */
    PyObject *method;           /* np.ufunc's method bound to ufunc */
    PyObject *check;            /* or None */
    PyObject *retry;            /* or None */
    PyObject *canon;            /* or None */
    PyObject *value;            /* or None */
    PyObject *scalar;           /* or None */
} tl_method;

static int tl_is_python_number(PyObject *x)
{
    return PyLong_CheckExact(x) || PyFloat_CheckExact(x) || PyComplex_CheckExact(x);
}

static PyObject *tl_method_initial(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t i;
    if (nargs > 5) return args[5];
    for (i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++)
        if (TL_KW_EQ(PyTuple_GET_ITEM(kwnames, i), "initial"))
            return args[nargs + i];
    return NULL;
}

static PyObject *tl_method_run(tl_method *m, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames);

static PyObject *tl_method_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames)
{
    tl_method *m = (tl_method *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), n;
    PyObject *x, *r, **buf;
    if (TL_KW_EQ(m->name, "at")) {
        /* at(a, indices, v): a complex v stored into an ml_dtypes float array */
        if (nargs == 3 && PyArray_Check(args[0])
                && PyArray_DESCR((PyArrayObject *)args[0])->type_num >= NPY_USERDEF
                && tl_may_be_complex(args[2])
                && tl_cast_check(m->ufunc, m->name, args, nargs, nargs, kwnames, 1) < 0)
            return NULL;
    }
    else {
        /* (a reduction's complex initial=, which may go into an ml_dtypes float loop) */
        PyObject *initial = tl_method_initial(args, nargs, kwnames);
        int force = initial != NULL && initial != Py_None && tl_may_be_complex(initial);
        if (tl_cast_check(m->ufunc, m->name, args, nargs,
                          TL_KW_EQ(m->name, "outer") ? 2 : 1,
                          kwnames, force) < 0)
            return NULL;
    }
    if (m->scalar != Py_None && nargs == 2
            && (tl_is_python_number(args[0]) || tl_is_python_number(args[1])))
        return PyObject_Vectorcall(m->scalar, args, nargsf, kwnames);
    if (m->value != Py_None && nargs == 3 && kwnames == NULL && tl_is_python_number(args[2])) {
        PyObject *given[3];
        given[0] = args[0];
        given[1] = args[1];
        given[2] = PyObject_CallFunctionObjArgs(m->value, args[0], args[2], NULL);
        if (given[2] == NULL) return NULL;
        r = tl_method_run(m, given, 3, NULL);
        Py_DECREF(given[2]);
        return r;
    }
    if (m->canon == Py_None || nargs < 1) return tl_method_run(m, args, nargsf, kwnames);
    x = PyObject_CallOneArg(m->canon, args[0]);
    if (x == NULL) return NULL;
    if (x == args[0]) {
        Py_DECREF(x);
        return tl_method_run(m, args, nargsf, kwnames);
    }
    n = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    if ((buf = tl_args_with_first(args, n, x)) == NULL) {
        Py_DECREF(x);
        return NULL;
    }
    r = tl_method_run(m, buf, (size_t)nargs, kwnames);
    PyMem_Free(buf);
    Py_DECREF(x);
    return r;
}

static PyObject *tl_method_run(tl_method *m, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), n, i;
    PyObject *r, *t, *v, *tb, **buf;
    if (m->check != Py_None) {
        PyObject *initial = tl_method_initial(args, nargs, kwnames);
        if (initial != NULL && !PyBool_Check(initial)
                && (PyLong_Check(initial) || PyArray_IsScalar(initial, Integer)
                    || (PyArray_Check(initial) && PyArray_NDIM((PyArrayObject *)initial) == 0
                        && PyArray_ISINTEGER((PyArrayObject *)initial)))) {
            PyObject *ok = PyObject_Vectorcall(m->check, args, nargsf, kwnames);
            if (ok == NULL) return NULL;
            Py_DECREF(ok);
        }
    }
    r = PyObject_Vectorcall(m->method, args, nargsf, kwnames);
    if (r == NULL && m->check != Py_None && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        /* (a float initial= outside the loop's integer type: NumPy's error names neither the
         * call nor the rule set; check's does) */
        PyObject *initial = tl_method_initial(args, nargs, kwnames), *ok;
        if (initial != NULL && PyFloat_Check(initial)) {
            PyErr_Fetch(&t, &v, &tb);
            if ((ok = PyObject_Vectorcall(m->check, args, nargsf, kwnames)) == NULL) {
                Py_XDECREF(t); Py_XDECREF(v); Py_XDECREF(tb);
                return NULL;
            }
            Py_DECREF(ok);
            PyErr_Restore(t, v, tb);
            return NULL;
        }
    }
    if (r != NULL || m->retry == Py_None || !(PyErr_ExceptionMatches(PyExc_TypeError)
                                              || PyErr_ExceptionMatches(PyExc_ValueError)))
        return r;
    /* retry(error, *args, **kwargs) */
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL) PyException_SetTraceback(v, tb);
    n = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    buf = (PyObject **)PyMem_Malloc((n + 1) * sizeof(PyObject *));
    if (buf == NULL) {
        PyErr_Restore(t, v, tb);
        return NULL;
    }
    buf[0] = v;
    for (i = 0; i < n; i++) buf[i + 1] = args[i];
    r = PyObject_Vectorcall(m->retry, buf, (size_t)(nargs + 1), kwnames);
    PyMem_Free(buf);
    Py_XDECREF(t); Py_XDECREF(v); Py_XDECREF(tb);
    return r;
}

static PyObject *tl_method_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    /* pickles as getattr(ufunc, name), as the bound method would */
    PyObject *builtins = PyImport_ImportModule("builtins"), *getattr_, *r;
    if (builtins == NULL) return NULL;
    getattr_ = PyObject_GetAttrString(builtins, "getattr");
    Py_DECREF(builtins);
    if (getattr_ == NULL) return NULL;
    r = Py_BuildValue("O(OO)", getattr_, ((tl_method *)self)->ufunc, ((tl_method *)self)->name);
    Py_DECREF(getattr_);
    return r;
}

static PyObject *tl_method_repr(PyObject *self)
{
    return PyObject_Repr(((tl_method *)self)->method);
}

static PyObject *tl_method_doc(PyObject *self, void *Py_UNUSED(c))
{
    return PyObject_GetAttrString(((tl_method *)self)->method, "__doc__");
}

static PyObject *tl_method_name(PyObject *self, void *Py_UNUSED(c))
{
    PyObject *name = ((tl_method *)self)->name;
    Py_INCREF(name);
    return name;
}

static PyObject *tl_method_self(PyObject *self, void *Py_UNUSED(c))
{
    PyObject *uf = ((tl_method *)self)->ufunc;
    Py_INCREF(uf);
    return uf;
}

static int tl_method_traverse(PyObject *self, visitproc visit, void *arg)
{
    tl_method *m = (tl_method *)self;
    Py_VISIT(m->ufunc);
    Py_VISIT(m->name);
    Py_VISIT(m->method);
    Py_VISIT(m->check);
    Py_VISIT(m->retry);
    Py_VISIT(m->canon);
    Py_VISIT(m->value);
    Py_VISIT(m->scalar);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static void tl_method_dealloc(PyObject *self)
{
    tl_method *m = (tl_method *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(m->ufunc);
    Py_CLEAR(m->name);
    Py_CLEAR(m->method);
    Py_CLEAR(m->check);
    Py_CLEAR(m->retry);
    Py_CLEAR(m->canon);
    Py_CLEAR(m->value);
    Py_CLEAR(m->scalar);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyMethodDef tl_method_methods[] = {
    {"__reduce__", tl_method_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef tl_method_getset[] = {
    {"__doc__", tl_method_doc, NULL, NULL, NULL},
    {"__name__", tl_method_name, NULL, NULL, NULL},
    {"__self__", tl_method_self, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMemberDef tl_method_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(tl_method, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}
};

static PyType_Slot tl_method_slots[] = {
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_repr, tl_method_repr},
    {Py_tp_methods, tl_method_methods},
    {Py_tp_getset, tl_method_getset},
    {Py_tp_members, tl_method_members},
    {Py_tp_traverse, tl_method_traverse},
    {Py_tp_dealloc, tl_method_dealloc},
    {0, NULL}
};

static PyType_Spec tl_method_spec = {
    "typelattice._ufuncs.UfuncMethod", sizeof(tl_method), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    tl_method_slots
};

static PyObject *tl_method_type = NULL;

/* getattr(np.ufunc, name) bound to ufunc, with check, retry, canon, value and scalar (None:
 * none) */
static PyObject *tl_method_new(PyObject *ufunc, PyObject *name, PyObject *method,
                               PyObject *check, PyObject *retry, PyObject *canon,
                               PyObject *value, PyObject *scalar)
{
    tl_method *m;
    if (tl_method_type == NULL) {
        tl_method_type = PyType_FromSpec(&tl_method_spec);
        if (tl_method_type == NULL) return NULL;
    }
    m = PyObject_GC_New(tl_method, (PyTypeObject *)tl_method_type);
    if (m == NULL) return NULL;     /* (it holds a reference to its heap type) */
    m->vectorcall = tl_method_call;
    Py_INCREF(ufunc); m->ufunc = ufunc;
    Py_INCREF(name); m->name = name;
    Py_INCREF(method); m->method = method;
    Py_INCREF(check); m->check = check;
    Py_INCREF(retry); m->retry = retry;
    Py_INCREF(canon); m->canon = canon;
    Py_INCREF(value); m->value = value;
    Py_INCREF(scalar); m->scalar = scalar;
    PyObject_GC_Track((PyObject *)m);
    return (PyObject *)m;
}

#endif
