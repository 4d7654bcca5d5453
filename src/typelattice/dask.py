"""typelattice ufuncs on dask arrays, with typelattice's promotion rules.

Single-output calls need nothing from this module: ``typelattice.add(x, 1)`` on a dask array goes
through dask's ``elemwise``, which runs our ufunc blockwise (Python scalars stay weak, the dtype is
known without computing). dask maps multi-output ufuncs (divmod) and ``.outer`` to its *own*
functions by ``__name__``; ours are named ``"<rules>.<op>"`` (``"jax.divmod"``), so dask finds no
namesake and refuses with a TypeError instead of silently applying NumPy's promotion, and it
refuses ``.reduce``/``.accumulate`` of any foreign ufunc. This module does those with our
rules::

    import typelattice.dask as tld
    q, r = tld.divmod(x, 3)            # blockwise, weak 3, dtypes known up front
    tld.add.outer(x, y)                # or tld.outer(typelattice.add, x, y)
    tld.add.reduce(x, axis=0)          # or tld.reduce(typelattice.add, x, axis=0)
    tld.add.accumulate(x, axis=1)
    tld.wrap(make_ufuncs("jax32")["add"])   # any rule set

``tld.<op>`` exists for every typelattice ufunc (aliases included). Every result's dtype is the
one our ufunc gives on the NumPy blocks; it is found by calling the ufunc on empty arrays (with the
Python scalars themselves, weak arrays as empty weak arrays of their weak type), so errors (no
promotion, gcd of floats, a Python int out of range) are raised when the graph is built, with
typelattice's message, not swallowed into dask's "NotImplemented".

Weak arrays (``typelattice.weak``) defer to the other operand as on NumPy arrays:
``tld.add(int8_dask, weak_ints)`` is int8. A dask array made from one (``da.from_array(w)``)
stays weak: its meta and blocks are weak arrays, so ``tld.add(da.from_array(w), int8_dask)`` is
int8 too (``.compute()`` concatenates the blocks into a plain array, as NumPy's concatenate
does). A plain call with a weak operand (``typelattice.add(int8_dask, weak_ints)``) runs through
here as well: dask's own elemwise would infer the weak array's dtype as a strong array's.

On a distributed cluster the ufuncs travel by reference (``typelattice._ufuncs.jax.add``), so the
workers need typelattice installed; they compute exactly what NumPy computes with our ufunc.
Built-in rule sets resolve in any worker; a rule set made at run time needs
``register_rules(client, rules)`` once.
"""
from __future__ import annotations

import builtins
from functools import partial

import numpy as np

try:
    import dask.array as da
except ImportError as e:                  # pragma: no cover - depends on the environment
    raise ImportError("typelattice.dask needs dask.array: pip install 'typelattice[dask]'") from e
from dask.array.core import elemwise, unify_chunks
from tlz import concat

from ._ufuncs import ufunc_info

__all__ = ["wrap", "DaskUfunc", "outer", "reduce", "register_rules"]


def _is_python_scalar(x):
    return type(x) in (builtins.int, builtins.float, builtins.complex, builtins.bool)


def _check(uf):
    if not isinstance(uf, np.ufunc) or ufunc_info(uf) is None:
        raise TypeError(f"expected a typelattice ufunc, got {uf!r}")
    return uf


def _weak_source(a):
    """The array carrying ``a``'s weak type: a weak ndarray itself, a dask array's meta (a dask
    array made from a ``WeakArray`` computes weak blocks and keeps one as its meta), or None."""
    src = a._meta if isinstance(a, da.Array) else a
    if isinstance(src, np.ndarray) and getattr(src, "__typelattice_type__", None) is not None:
        return src
    return None


def _empty_like(a, shape):
    """An empty probe of ``a``'s dtype and ``shape``: a weak one, of ``a``'s weak type and rule
    set, where ``a`` is weak (a strong probe would join as its dtype: int8 with a weak int array
    is int8, with an int64 array int64)."""
    dt = getattr(a, "dtype", None)
    if dt is None:
        dt = np.asarray(a).dtype
    src = _weak_source(a)
    if src is not None:         # (empty_like of the subclass keeps its weak type and rule set)
        return np.empty_like(src, dtype=dt, shape=shape, subok=True)
    return np.empty(shape, dtype=dt)


def _probe(uf, args, kwargs, method="__call__"):
    """Result dtype(s) of ``uf`` on ``args`` without computing: dask/NumPy arrays become empty
    NumPy arrays of their dtype (weak ones weak arrays of their weak type), Python and NumPy
    scalars are passed as they are (a Python int out of range raises OverflowError here, exactly
    as the call would)."""
    probe = []
    for a in args:
        if _is_python_scalar(a) or isinstance(a, np.generic):
            probe.append(a)
        else:
            probe.append(_empty_like(a, (0,) if method == "__call__"
                                     else (0,) * max(1, np.ndim(a))))
    with np.errstate(all="ignore"):
        res = getattr(uf, method)(*probe, **kwargs) if method != "__call__" else uf(*probe,
                                                                                    **kwargs)
    if isinstance(res, tuple):
        return tuple(r.dtype for r in res)
    return res.dtype


class _BoundScalars:
    """``uf`` with the Python scalars of a call kept in place (weak), called on the array
    blocks only. Picklable: the ufunc travels by reference."""

    def __init__(self, uf, template, kwargs, method="__call__"):
        self.uf = uf
        self.template = template      # per argument: None (an array block comes) or (scalar,)
        self.kwargs = kwargs
        self.method = method

    def __call__(self, *blocks):
        it = iter(blocks)
        args = [next(it) if t is None else t[0] for t in self.template]
        f = self.uf if self.method == "__call__" else getattr(self.uf, self.method)
        return f(*args, **self.kwargs)

    def __repr__(self):
        return f"{self.uf.__name__}"

    def __dask_tokenize__(self):
        return (self.uf.__name__, self.method, repr(self.template), repr(sorted(
            (k, repr(v)) for k, v in self.kwargs.items())))


def _has_dask(args):
    # only dask arrays: other objects (xarray, dask dataframes) get the ufunc itself and their
    # own __array_ufunc__ decides
    return any(isinstance(a, da.Array) for a in args)


def _call(uf, args, out=None, where=True, **kwargs):
    outs = out if isinstance(out, tuple) else (out,)
    if not _has_dask(args + outs) and not isinstance(where, da.Array):
        if out is not None:
            kwargs["out"] = out
        return uf(*args, where=where, **kwargs)
    bad = set(kwargs) - {"dtype", "casting", "signature", "order"}
    if bad:
        raise TypeError(f"{uf.__name__} on dask arrays does not take {sorted(bad)}")
    dtypes = _probe(uf, args, kwargs)
    if uf.nout == 1:
        op = partial(uf, **kwargs) if kwargs else uf
        # elemwise infers the same dtype itself (passing dtype= would make it cast every block
        # afterwards): pass it only if its inference fails or differs
        res = elemwise(op, *args, out=out, where=where)
        if res is NotImplemented or res.dtype != dtypes:
            res = elemwise(op, *args, out=out, where=where, dtype=dtypes)
        return res
    if out is not None or where is not True:
        raise NotImplementedError(f"{uf.__name__} on dask arrays: out= and where= are not "
                                  "supported for multi-output ufuncs")
    # (a 0-d weak array goes to each block as it is: da.asarray makes it a strong chunk)
    bound = [_is_python_scalar(a) or (isinstance(a, np.ndarray) and a.ndim == 0
                                      and _weak_source(a) is not None) for a in args]
    template = [(a,) if b else None for a, b in zip(args, bound)]
    arrays = [da.asarray(a) for a, b in zip(args, bound) if not b]
    # apply_gufunc wants equal chunks along the broadcast dimensions (as elemwise aligns them)
    _, arrays = unify_chunks(*concat((a, tuple(range(a.ndim))[::-1]) for a in arrays))
    func = _BoundScalars(uf, template, kwargs)
    sig = ",".join("()" for _ in arrays) + "->" + ",".join("()" for _ in range(uf.nout))
    return tuple(da.apply_gufunc(func, sig, *arrays, output_dtypes=list(dtypes),
                                 vectorize=False))


def _outer(uf, A, B, **kwargs):
    if uf.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    if "out" in kwargs:
        raise ValueError("`out` kwarg not supported")
    if not isinstance(A, da.Array) and not isinstance(B, da.Array):
        return uf.outer(A, B, **kwargs)
    if type(A) in (int, float, complex) or type(B) in (int, float, complex):
        return _call(uf, (A, B), **kwargs)      # (the plain call, weak as the ufunc's outer)
    A = da.asarray(A)
    B = da.asarray(B)
    dtypes = _probe(uf, (A, B), kwargs, "outer")
    ndim = A.ndim + B.ndim
    out_inds = tuple(range(ndim))
    func = _BoundScalars(uf, [None, None], kwargs, "outer")
    if uf.nout == 1:
        return da.blockwise(func, out_inds, A, out_inds[:A.ndim], B, out_inds[A.ndim:],
                            dtype=dtypes, token=f"{uf.__name__}.outer",
                            meta=np.empty((0,) * ndim, dtypes))
    # multi-output outer (divmod): broadcast A[..., None...] against B and go through _call
    A2 = A.reshape(A.shape + (1,) * B.ndim)
    return _call(uf, (A2, B), **kwargs)


def _normalize_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(sorted(builtins.int(a) % max(ndim, 1) for a in axis))


def _chunk_reduce(x, axis=None, keepdims=False, *, uf, dtype=None, computing_meta=False):
    return uf.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)


def _agg_reduce(x, axis=None, keepdims=False, *, uf, dtype, initial=None,
                computing_meta=False):
    # partial results, in the result dtype: reduced in it (add.reduce of int16 partial sums
    # would sum in the default int64), initial= once, at the last step only
    kw = {} if initial is None else {"initial": initial}
    return uf.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype, **kw)


def _reduce(uf, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True,
            split_every=None):
    if uf.nin != 2 or uf.nout != 1:
        raise ValueError(f"reduce only supported for binary functions ({uf.__name__})")
    if not isinstance(a, da.Array):
        kw = {} if initial is None else {"initial": initial}
        return uf.reduce(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where,
                         **kw)
    if out is not None or where is not True:
        raise NotImplementedError(f"{uf.__name__}.reduce on dask arrays: out= and where= are "
                                  "not supported")
    a = da.asarray(a)
    axes = _normalize_axis(axis, a.ndim)
    empty = any(a.shape[ax] == 0 for ax in axes)
    # dtype (and errors: several axes of a non-reorderable op, an empty axis with no identity)
    # from a reduction of a probe: one element per reduced axis, none where the axis has none
    kw = {} if initial is None else {"initial": initial}
    probe = np.zeros(tuple(0 if a.shape[i] == 0 else 1 for i in range(a.ndim)), dtype=a.dtype)
    with np.errstate(all="ignore"):
        res_dtype = uf.reduce(probe, axis=axis, dtype=dtype, keepdims=keepdims, **kw).dtype
    info = ufunc_info(uf)
    reorderable = info[0].reorderable if info is not None else False
    if not reorderable or empty:
        # partial results cannot be combined (or there are none: empty chunks have no partial
        # result without an identity): reduce each row of the axis in one block
        if any(len(a.chunks[ax]) > 1 for ax in axes):
            a = a.rechunk({ax: -1 for ax in axes})
        func = partial(_agg_reduce_one, uf=uf, axis=axes, dtype=dtype, keepdims=keepdims,
                       initial=initial)
        if keepdims:
            return a.map_blocks(func, dtype=res_dtype,
                                chunks=tuple((1,) if i in axes else c
                                             for i, c in enumerate(a.chunks)),
                                meta=np.empty((0,) * a.ndim, res_dtype))
        return a.map_blocks(func, dtype=res_dtype, drop_axis=list(axes),
                            meta=np.empty((0,) * (a.ndim - len(axes)), res_dtype))
    return da.reduction(a, partial(_chunk_reduce, uf=uf, dtype=dtype),
                        partial(_agg_reduce, uf=uf, dtype=res_dtype, initial=initial),
                        combine=partial(_agg_reduce, uf=uf, dtype=res_dtype),
                        axis=axes, keepdims=keepdims, dtype=res_dtype, split_every=split_every,
                        name=f"{uf.__name__}.reduce",
                        meta=np.empty((0,) * (a.ndim if keepdims else a.ndim - len(axes)),
                                      res_dtype))


def _accumulate(uf, a, axis=0, dtype=None, out=None):
    if uf.nin != 2 or uf.nout != 1:
        raise ValueError(f"accumulate only supported for binary functions ({uf.__name__})")
    if not isinstance(a, da.Array):
        return uf.accumulate(a, axis=axis, dtype=dtype, out=out)
    if out is not None:
        raise NotImplementedError(f"{uf.__name__}.accumulate on dask arrays: out= is not "
                                  "supported")
    if not isinstance(axis, (int, np.integer)):
        raise TypeError("accumulate takes a single integer axis")
    with np.errstate(all="ignore"):
        res_dtype = uf.accumulate(np.zeros((1,) * max(a.ndim, 1), a.dtype), axis=axis,
                                  dtype=dtype).dtype
    info = ufunc_info(uf)
    reorderable = info is not None and info[0].reorderable
    axis = builtins.int(axis) % max(a.ndim, 1)
    if not reorderable or uf.identity is None or a.numblocks[axis] == 1:
        # sequential along the axis: one block per row (exactly NumPy's order of operations)
        a = a.rechunk({axis: -1})
        return a.map_blocks(_accumulate_block, uf=uf, axis=axis, dtype_=dtype, dtype=res_dtype,
                            meta=np.empty((0,) * a.ndim, res_dtype))
    # prefix scan: each block accumulated, then combined with the running last values
    ident = uf.reduce(np.empty((0,), res_dtype))          # the identity in the result dtype
    from dask.array.reductions import cumreduction
    return cumreduction(_BlockAccumulate(uf, dtype), uf, ident, a, axis=axis, dtype=res_dtype)


def _accumulate_block(x, *, uf, axis, dtype_):
    return uf.accumulate(x, axis=axis, dtype=dtype_)


class _BlockAccumulate:
    """``uf.accumulate`` of one block with the caller's dtype=: given ``uf.accumulate`` itself,
    dask's cumreduction passes the result dtype, which NumPy looks up as the mixed loop of
    (result, operand) and then refuses (``logical_or.accumulate(int16 block, dtype=bool)``)."""

    def __init__(self, uf, dtype):
        self.uf, self.dtype = uf, dtype
        self.__name__ = f"{uf.__name__}.accumulate"

    def __call__(self, x, axis):
        return self.uf.accumulate(x, axis=axis, dtype=self.dtype)

    def __dask_tokenize__(self):
        return (self.__name__, str(self.dtype))


def _agg_reduce_one(x, *, uf, axis, dtype, keepdims, initial):
    kw = {} if initial is None else {"initial": initial}
    return uf.reduce(x, axis=axis[0] if len(axis) == 1 else axis, dtype=dtype,
                     keepdims=keepdims, **kw)


class DaskUfunc:
    """A typelattice ufunc for dask arrays: calls, ``outer`` and ``reduce`` run the ufunc
    blockwise with its own rules (NumPy/other inputs: the ufunc itself is called)."""

    def __init__(self, ufunc):
        self._ufunc = _check(ufunc)
        self.__name__ = ufunc.__name__
        self.__doc__ = ufunc.__doc__

    nin = property(lambda self: self._ufunc.nin)
    nout = property(lambda self: self._ufunc.nout)
    nargs = property(lambda self: self._ufunc.nargs)
    identity = property(lambda self: self._ufunc.identity)
    ufunc = property(lambda self: self._ufunc, doc="the wrapped np.ufunc")

    def __repr__(self):
        return f"<typelattice.dask ufunc {self.__name__!r}>"

    def __reduce__(self):
        return (DaskUfunc, (self._ufunc,))

    def __dask_tokenize__(self):
        return ("typelattice.dask", self.__name__)

    def __call__(self, *args, out=None, where=True, **kwargs):
        return _call(self._ufunc, args, out=out, where=where, **kwargs)

    def outer(self, A, B, **kwargs):
        return _outer(self._ufunc, A, B, **kwargs)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=True, split_every=None):
        return _reduce(self._ufunc, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                       initial=initial, where=where, split_every=split_every)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        return _accumulate(self._ufunc, a, axis=axis, dtype=dtype, out=out)

    def reduceat(self, *args, **kwargs):
        raise NotImplementedError(f"{self.__name__}.reduceat on dask arrays is not implemented")

    def at(self, *args, **kwargs):
        raise NotImplementedError("dask arrays are immutable: ufunc.at does not apply")


def wrap(ufunc) -> DaskUfunc:
    """The dask-aware wrapper of a typelattice ufunc (any rule set)."""
    return DaskUfunc(ufunc)


def outer(ufunc, A, B, **kwargs):
    """``ufunc.outer(A, B)`` on dask arrays with typelattice's rules."""
    return _outer(_check(ufunc), A, B, **kwargs)


def reduce(ufunc, a, axis=0, **kwargs):
    """``ufunc.reduce(a, axis)`` on a dask array with typelattice's rules (partial reductions
    per chunk combined by the ufunc when it is reorderable, else one block per reduced row)."""
    return _reduce(_check(ufunc), a, axis=axis, **kwargs)


def register_rules(client, rules):
    """Build the ufuncs of a custom rule set in every worker of a dask.distributed ``client``,
    now and in workers that join later (a worker plugin).

    Ufuncs pickle by reference as ``typelattice._ufuncs.<rules name>.<op>``: a built-in rule
    set is found in any process, a rule set made at run time (``typelattice.lattice(...)``)
    only where ``make_ufuncs`` built it. Returns the ufuncs (as ``make_ufuncs(rules)``)."""
    from ._core import get_rules
    from ._ufuncs import make_ufuncs
    from ._dask_distributed import RulesPlugin
    compiled = get_rules(rules)
    ruleset = compiled.ruleset()
    ufuncs = make_ufuncs(compiled)
    client.register_plugin(RulesPlugin(ruleset))
    return ufuncs


def _populate():
    from . import _UFUNCS
    g = globals()
    for name, uf in _UFUNCS.items():
        g[name] = DaskUfunc(uf)
        __all__.append(name)


# tld.add, tld.divmod (shadowing the builtin in this module only), ...: one per ufunc name
_populate()
del _populate
