"""Weak and ambiguous arrays: values whose promotion type is a weak lattice type ('i*', 'f*', 'c*'
in JAX, 'int32?' in anvil), so that a result whose join is weak stays weak in the next operation.

    >>> w = typelattice.weak(np.asarray(1.0))          # JAX's weakly typed float: type 'f*'
    >>> typelattice.result_type(w, np.float16)          # float16, as for a Python float
    >>> z = typelattice.asarray(1, type="int32?", rules="anvil")   # anvil's ambiguous int32
    >>> typelattice.result_type(z, np.int16, rules="anvil")        # int16

``WeakArray`` is an ndarray subclass carrying ``lattice_type``; its data is stored in the dtype the
weak type materializes to under the rule set it was made for ('f*' -> float64 under jax, float32
under jax32; 'int32?' -> int32). Everything that asks for an operand's type (result_type,
promote_types, join, the CLI) sees the weak type through the ``__typelattice_type__`` attribute:
any object with that attribute (a str naming a type) takes part the same way.

Under a rule set that does not have the array's type, the type falls back to the rule set's type
for a Python scalar of the same kind if that one is weak ('int32?' under jax is 'i*'; 'f*' under
anvil is 'float32?'); otherwise the array counts as its (strong) dtype.

Operations. NumPy's promoter sees dtypes only, so a ufunc cannot tell a weak float64 array from a
strong one. ``WeakArray.__array_ufunc__`` therefore handles a call in which some operand is weak:

* for a typelattice ufunc (found through ``typelattice._ufuncs.ufunc_info``) or one registered
  with ``register_ufunc(ufunc, rules)``: the join J
  of all operand types is computed under ``rules``; weak operands (weak arrays, Python scalars) are
  converted to the dtype J materializes to; the ufunc runs; when J is weak, each output whose dtype
  is J's materialization (or another weak type's, except bool: comparisons give plain bools) is
  returned as a WeakArray of that weak type; power drops the flag where jax.numpy's does (an
  integer power, a strong integer exponent);
* for any other ufunc (NumPy's own ``np.add``...): plain NumPy semantics; the result is a plain
  ndarray (weakness is dropped).

Python operators (``w + x``, ``1 - w``, ``w < x``, ``-w``, ``w += x``...) are the typelattice
ufuncs of the array's rule set, as a JAX weakly typed array's are jax.numpy's (``np.add(w, x)``
stays NumPy's, as ``np.add`` of a JAX array is). In-place operators keep the array, its dtype and
its weak type, as NumPy's do. A NumPy scalar on the left (``np.float16(1) + w``) calls NumPy's
``np.add`` (NumPy scalars do not defer to an array subclass): write ``typelattice.add``. A weak
integer array's values must fit the integer dtype they adopt (OverflowError), as a Python int's.

``apply_ufunc(ufunc, method, inputs, kwargs, rules)`` is that same procedure, usable by a ufunc
wrapper for calls with no WeakArray operand (e.g. ``bool_array + 1`` whose join i* is weak, or
anvil's ``bool_tensor + 1L`` which is 'int32?'); ``may_be_weak(inputs)`` says cheaply whether it
is needed. Explicit casts (``astype``) and ``strong(x)`` return plain arrays; integer indexing
that yields a NumPy scalar yields a strong scalar (NumPy scalars are strong).
"""
import numpy as np
from ._dtypes import materialized_dtype, name_of_dtype
from ._errors import (TypePromotionError, _describe_operand, dtype_label, error_before_overflow,
                      int_info)
from ._names import kind
from ._ops import FIRST_INEXACT

__all__ = ["WeakArray", "weak", "asarray", "strong", "is_weak", "register_ufunc",
           "apply_ufunc", "may_be_weak", "ufunc_rules"]

_PY_KIND = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}

# _core and _ufuncs import this module: _late binds them at first use (an import statement in
# a function costs about 0.2 us per call on the weak-operand path)
_core = _ufuncs = None


def _late():
    global _core, _ufuncs
    if _ufuncs is None:
        from . import _core, _ufuncs
_UFUNC_RULES = {}
_COMPUTE_TYPES = {}     # (ufunc, CompiledRules, operand type names) -> the op's compute types


def register_ufunc(ufunc, rules):
    """Route calls of ``ufunc`` with weak operands through ``apply_ufunc`` under ``rules`` (a rule
    set name, RuleSet or CompiledRules). typelattice's ufunc modules call this for each ufunc."""
    _UFUNC_RULES[ufunc] = rules


def unregister_ufunc(ufunc):
    _UFUNC_RULES.pop(ufunc, None)


def _marker_name(lt, r):
    """The type name a ``__typelattice_type__`` value ``lt`` stands for under CompiledRules ``r``,
    or None (then the operand counts as its dtype). Called by _core for ndarray subclasses and
    other objects carrying the attribute."""
    if not isinstance(lt, str):
        return None
    if lt in r.index:
        return lt
    k = kind(lt)
    fallback = r.python_scalars.get(_PY_KIND.get(k, ""))
    if fallback is not None and r.weak_target(fallback) is not None:
        return fallback
    return None


class WeakArray(np.ndarray):
    """An ndarray whose promotion type is a weak (or ambiguous) lattice type; see ``weak``."""

    _tl_type = None
    _tl_rules = None

    def __array_finalize__(self, obj):
        self._tl_type = getattr(obj, "_tl_type", None)
        self._tl_rules = getattr(obj, "_tl_rules", None)

    @property
    def __typelattice_type__(self):
        return self._tl_type

    @property
    def lattice_type(self):
        """The weak type name ('f*', 'int32?')."""
        return self._tl_type

    @property
    def rules(self):
        """The rule set the array was made for (used for its ufunc calls when unregistered)."""
        return self._tl_rules

    def astype(self, *args, **kwargs):
        """An explicit cast makes a strong (plain) array."""
        return np.asarray(self).astype(*args, **kwargs)

    def __repr__(self):
        rules = getattr(self._tl_rules, "name", self._tl_rules)
        return (f"weak({np.asarray(self)!r}, type={self._tl_type!r}"
                + (f", rules={rules!r})" if rules else ")"))

    def __reduce__(self):
        fn, args, state = super().__reduce__()
        return fn, args, (state, self._tl_type, self._tl_rules)

    def __setstate__(self, state):
        base, self._tl_type, self._tl_rules = state
        super().__setstate__(base)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if _defers(inputs, kwargs):
            return NotImplemented
        rules = ufunc_rules(ufunc)
        if rules is None:
            result = _plain(ufunc, method, inputs, kwargs)
        else:
            result = apply_ufunc(ufunc, method, inputs, kwargs, rules)
        return _callers_out(result, kwargs, method)

    # Python operators are the typelattice ufuncs of the array's rule set, as a JAX weakly typed
    # array's are jax.numpy's (np.add(w, x) stays NumPy's, as np.add of a JAX array is).
    def _op(self, name):
        rules = self._tl_rules
        if rules is None or rules == "jax":
            import typelattice
            return getattr(typelattice, name)
        _late()
        return _ufuncs.make_ufuncs(rules)[name]


def _promotable(x):
    """Does x have a dtype typelattice promotes (the ml_dtypes ones included)?"""
    try:
        name_of_dtype(np.asarray(x).dtype)
    except TypeError:
        return False
    return True


def _binary(name, reflected=False, inplace=False, compare=False):
    def method(self, other):
        if compare and not hasattr(other, "__typelattice_type__") and not _promotable(other):
            # `w == None`, as NumPy's, a plain bool array (not typed as w's weak type)
            return getattr(np.ndarray, f"__{name}__")(self.view(np.ndarray), other)
        uf = self._op(_OPERATOR_UFUNCS[name])
        if compare:
            try:
                return uf(self, other)
            except TypePromotionError:
                # Python runs `x < w` as w.__gt__(x) when w's class is a subclass of x's: try
                # the operands in x's order too (they differ under an asymmetric table)
                try:
                    return self._op(_OPERATOR_UFUNCS[_MIRRORED[name]])(other, self)
                except (TypeError, ValueError, OverflowError):
                    pass        # the written order's error stands
                raise
        if reflected:
            return uf(other, self)
        if inplace:     # NumPy's in-place semantics: the array keeps its dtype and weak type
            uf(self, other, out=self)
            return self
        return uf(self, other)
    method.__name__ = f"__{'r' if reflected else 'i' if inplace else ''}{name}__"
    return method


def _unary(name):
    def method(self):
        return self._op(_OPERATOR_UFUNCS[name])(self)
    method.__name__ = f"__{name}__"
    return method


_OPERATOR_UFUNCS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "divmod": "divmod", "pow": "power",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
    "rshift": "right_shift", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "eq": "equal", "ne": "not_equal",
    "neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert",
}
_MIRRORED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
for _name in _OPERATOR_UFUNCS:
    if _name in ("neg", "pos", "abs", "invert"):
        setattr(WeakArray, f"__{_name}__", _unary(_name))
    elif _name in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(WeakArray, f"__{_name}__", _binary(_name, compare=True))
    else:
        setattr(WeakArray, f"__{_name}__", _binary(_name))
        setattr(WeakArray, f"__r{_name}__", _binary(_name, reflected=True))
        if _name != "divmod":
            setattr(WeakArray, f"__i{_name}__", _binary(_name, inplace=True))
del _name


def ufunc_rules(ufunc):
    """The rule set a ufunc promotes with: registered here, or a typelattice ufunc (found through
    ``typelattice._ufuncs.ufunc_info`` when that module exists); None for other ufuncs."""
    global _ufunc_info
    rules = _UFUNC_RULES.get(ufunc)
    if rules is None:
        if _ufunc_info is _UNSET:
            try:
                from ._ufuncs import ufunc_info as _ufunc_info
            except ImportError:
                _ufunc_info = None
        if _ufunc_info is not None:
            info = _ufunc_info(ufunc)
            if info is not None:
                rules = info[1]
    return rules


_UNSET = object()
_ufunc_info = _UNSET


def _strip(x):
    return x.view(np.ndarray) if isinstance(x, WeakArray) else x


def _strip_kwargs(kwargs):
    out, where = kwargs.get("out"), kwargs.get("where")
    if out is not None or isinstance(where, WeakArray):
        kwargs = dict(kwargs)
        if out is not None:
            kwargs["out"] = tuple(_strip(o) for o in (out if isinstance(out, tuple) else (out,)))
        if isinstance(where, WeakArray):
            kwargs["where"] = _strip(where)
    return kwargs


def _defers(inputs, kwargs):
    """NEP 13: an operand or out= with an __array_ufunc__ of its own (pandas, xarray, dask, a
    duck array) handles the call; it meets the weak array again as an ndarray."""
    out = kwargs.get("out")
    for x in inputs + (out if isinstance(out, tuple) else (out,)):
        f = getattr(type(x), "__array_ufunc__", None)
        if f is not None and f is not np.ndarray.__array_ufunc__ \
                and not isinstance(x, WeakArray):
            return True
    return False


def _callers_out(result, kwargs, method):
    """``result`` with the caller's out= arrays themselves in the places they fill, as NumPy
    returns them (the call ran on their plain views)."""
    out = kwargs.get("out")
    if out is None or method == "at":
        return result
    outs = out if isinstance(out, tuple) else (out,)
    if not isinstance(result, tuple):
        return outs[0] if outs[0] is not None else result
    return tuple(o if o is not None else x for o, x in zip(outs, result))


def _plain(ufunc, method, inputs, kwargs):
    return getattr(ufunc, method)(*(_strip(x) for x in inputs), **_strip_kwargs(kwargs))


def strong(x):
    """``x`` as a plain (strong) ndarray: its dtype becomes its type."""
    return np.asarray(_strip(x)) if isinstance(x, WeakArray) else np.asarray(x)


def is_weak(x, rules=None):
    """Whether ``x`` (an array, scalar, Python number or type name) has a weak type under
    ``rules``: weak arrays, Python int/float/complex under JAX's rules, 'i*'..."""
    _late()
    r = _core.get_rules(rules if rules is not None else getattr(x, "rules", None))
    return r.weak_target(r.name_of(x)) is not None


def weak(x, type=None, *, rules=None):
    """A WeakArray holding ``x`` with weak type ``type`` under ``rules`` (default: the default
    rule set, jax unless ``set_default_rules`` changed it).

    Without ``type``: the rule set's weak type that materializes to x's dtype (int16 -> 'int16?'
    under anvil, float64 -> 'f*' under jax), else the weak type of a Python scalar of x's kind
    (float32 -> 'f*' under jax). The data is converted to the dtype the weak type materializes
    to. Raises ValueError when the rule set has no such weak type (bool under jax: never weak).
    """
    _late()
    r = _core.get_rules(rules)
    if isinstance(x, WeakArray):
        x = np.asarray(_strip(x))
    if type is None:
        if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
            type = r.name_of(x)
        else:
            arr = np.asarray(x)
            name = name_of_dtype(arr.dtype)
            for t in r.types:
                if r.weak_target(t) == name:
                    type = t
                    break
            else:
                type = r.python_scalars.get(_PY_KIND.get(arr.dtype.kind, ""))
        if type is None or r.weak_target(type) is None:
            raise ValueError(f"rule set {r.name!r} has no weak type for {_describe(x)}")
    elif type not in r.index:
        raise ValueError(f"unknown type {type!r} for rule set {r.name!r}; weak types: "
                         + ", ".join(t for t in r.types if r.weak_target(t)))
    target = r.weak_target(type)
    if target is None:
        raise ValueError(f"{type!r} is not a weak type of rule set {r.name!r}; weak types: "
                         + ", ".join(t for t in r.types if r.weak_target(t)))
    dt = r.dtypes[r.index[target]]
    if dt is None:
        raise ValueError(f"weak type {type!r} of rule set {r.name!r} materializes to {target!r}, "
                         "which has no NumPy dtype")
    src = np.asarray(x)
    if _int_outside(src, dt) is not None:
        raise OverflowError(f"{_describe(x)} holds values outside {dt}, which weak type "
                            f"{type!r} of rule set {r.name!r} materializes to")
    out = src.astype(dt, copy=False).view(WeakArray)
    out._tl_type = type
    out._tl_rules = _rules_ref(r)
    return out


def asarray(x, type=None, *, rules=None):
    """An array of lattice type ``type`` under ``rules``: a WeakArray for a weak/ambiguous type
    ('f*', 'int32?'), a plain ndarray of the type's dtype for a strong one; without ``type``,
    ``np.asarray(x)`` (weak arrays stay weak)."""
    if type is None:
        return x if isinstance(x, WeakArray) else np.asarray(x)
    _late()
    r = _core.get_rules(rules)
    if type in r.index and r.weak_target(type) is not None:
        return weak(x, type, rules=r)
    name = r.name_of(type)
    dt = r.dtypes[r.index[name]]
    if dt is None:
        raise ValueError(f"type {name!r} of rule set {r.name!r} has no NumPy dtype")
    return np.asarray(_strip(x), dtype=dt)


def _rules_ref(r):
    """A built-in rule set by name (cheap to pickle), a run-time one by object."""
    _late()
    return r.name if r.name in _core.BUILTIN_RULES and r.definition is None else r


def _describe(x):
    if isinstance(x, (int, float, complex)):
        return f"Python {type(x).__name__}"
    return f"dtype {dtype_label(np.asarray(x).dtype)}"


_PY_SCALARS = (bool, int, float, complex)


def may_be_weak(inputs):
    """True when some operand is a Python number or carries a lattice type: the only cases where
    ``apply_ufunc`` can return a weak result."""
    for x in inputs:
        if type(x) in _PY_SCALARS or getattr(x, "__typelattice_type__", None) is not None:
            return True
    return False


def apply_ufunc(ufunc, method, inputs, kwargs, rules):
    """Call ``getattr(ufunc, method)(*inputs, **kwargs)`` with lattice semantics for weak operands
    under ``rules``; see the module docstring."""
    _late()
    r = _core.get_rules(rules)
    if method not in ("__call__", "outer") \
            or _ufuncs._fixes_loop_types(kwargs.get("dtype"), kwargs.get("signature")):
        # Reductions, .at, or types fixed by the caller: no promotion to do here. (A weak int
        # must still fit an integer dtype= it is computed in, as a Python int must.)
        if method in ("__call__", "outer"):     # (outer's loop is the call's)
            inputs = _weak_under_fixed_types(ufunc, inputs, kwargs, r, method)
        elif method == "at":
            inputs = _at_weak_value(ufunc, inputs, r)
        src = inputs[0] if inputs else None
        t = _marker_name(getattr(src, "__typelattice_type__", None), r)
        if t is not None and method in ("reduce", "accumulate", "reduceat"):
            inputs = _into_out_join(ufunc, inputs, kwargs, t, r)
            t, inputs = _into_self_join(ufunc, inputs, kwargs, t, r)
        result = _plain(ufunc, method, inputs, kwargs)
        if method in ("reduce", "accumulate", "reduceat") and t is not None \
                and kwargs.get("out") is None:      # (out= returns the caller's array itself)
            return _mark(result, t, r)
        return result
    ops = [x if (type(x) in _PY_SCALARS or isinstance(x, (np.ndarray, np.generic))) else
           np.asarray(x) for x in inputs]
    try:
        codes = [r.code_of(x) for x in ops]
    except TypeError as exc:            # (TypePromotionError included)
        raise _core.operand_error(exc, getattr(ufunc, "__name__", ufunc), r, ops) from None
    names = [r.types[c] for c in codes]
    join = r.join_names(*names)
    described = _op_of(ufunc)
    cast_strong = None
    if described is not None and len(ops) == described.nin \
            and (described.nin == 1 or described.rule == FIRST_INEXACT):
        # ops that do not join their operands: the op's own rule on the weak names, as its
        # promoter applies it to Python scalars (torch's sqrt of a weak int is float32; ldexp's
        # weak exponent stays an int). (A joining op's weak operand takes the join, and the
        # strong one stays itself, as the promoter sees them, unless the op computes the join
        # in another type: below.)
        loop = _resolved_types(ufunc, described, r, names)
    elif join is None:
        # (an op with its own rule for the pair: tensorflow's bool ** i* is int32)
        loop = _compute_types(ufunc, described, r, names) \
            if described is not None and len(ops) == described.nin else None
        if loop is None:
            raise TypePromotionError(tuple(names), r)
        cast_strong = kwargs.get("casting", "same_kind")
    else:
        loop = [join] * len(ops)
        if described is not None and len(ops) == described.nin:
            # an op that computes the join in another type (divide of ints in float32, bool **
            # i* in int32): every operand in its compute type, as the promoter takes a Python
            # scalar there (a weak -2 beside uint16 is -2.0, not a uint16 that cannot hold it)
            compute = _compute_types(ufunc, described, r, names)
            if compute is not None and compute != [r.weak_target(join) or join] * len(ops):
                loop, cast_strong = compute, kwargs.get("casting", "same_kind")
    call = []
    for k, (x, name, t) in enumerate(zip(ops, names, loop)):
        if r.weak_target(name) is not None:     # weak operand: adopt the loop's dtype there
            dt = _dtype_in(r, t)
            if isinstance(x, (np.ndarray, np.generic)):
                _check_weak_ints_fit(x, dt, ufunc, inputs, r, kwargs, method)
            x = np.asarray(_strip(x), dtype=dt)
        elif cast_strong is not None and name != t:
            dt = _dtype_in(r, t)
            x = x if hasattr(x, "astype") else np.asarray(x)
            own = materialized_dtype(r, name)
            if own is not None and x.dtype != own:
                x = x.astype(own)       # (jax32's int64 array: the int32 its loops read)
            if not np.can_cast(x.dtype, dt, cast_strong):
                raise _ufuncs._input_casting_error(ufunc, cast_strong, x.dtype, dt, k)
            x = x.astype(dt)
        call.append(_strip(x))
    result = getattr(ufunc, method)(*call, **_strip_kwargs(kwargs))
    if "out" in kwargs or join is None or r.weak_target(join) is None \
            or _strong_power(ufunc, r, codes, join) or _op_name(ufunc) == "ldexp":
        return result       # (jax.numpy's ldexp is never weak)
    return _mark(result, join, r)


def _resolved_types(ufunc, described, r, names):
    """The types op ``described`` computes operands of type ``names`` in under ``r``, as its
    promoter takes Python scalars of the weak ones; raises the promoter's error where it
    does (not cached)."""
    key = (ufunc, r, tuple(names))
    loop = _COMPUTE_TYPES.get(key)
    if loop is None:
        nargs = described.nin + described.nout
        loop = _COMPUTE_TYPES[key] = list(_ufuncs._resolve_names(
            described, r, list(names) + [None] * described.nout, [None] * nargs,
            False)[:described.nin])
    return loop


def _compute_types(ufunc, described, r, names):
    """``_resolved_types``, or None where the promoter raises (the call's own error then)."""
    try:
        return _resolved_types(ufunc, described, r, names)
    except (TypeError, ValueError):
        return None


def _weak_under_fixed_types(ufunc, inputs, kwargs, r, method="__call__"):
    """``inputs`` of a call whose dtype=/signature= fix loop types, each weak operand converted to
    the type a Python scalar of its weak type takes in its place (a float8 array plus a weak float
    array with ``dtype=float8_e5m2`` computes, as with a Python float, where the float64 array
    would not promote): a signature='s type where it fixes the operand's place; else the rule
    set's loop type there under the fixed types. A strong operand NumPy would cast into that
    loop is cast. A weak int must fit its type, as a Python int must; a weak float or complex
    goes only where its kind casts (float -> float or complex), unless ``casting='unsafe'``.
    Where the keywords name no loop of the rule set, ``inputs`` as they are, for the call's own
    error."""
    _late()
    op = _op_of(ufunc)
    if op is None or len(inputs) != op.nin:
        return inputs
    names = [_marker_name(getattr(x, "__typelattice_type__", None), r) for x in inputs]
    weak = [t is not None and r.weak_target(t) is not None for t in names]
    if not any(weak):
        return inputs
    nargs = op.nin + op.nout
    try:
        names = [t if w else r.types[r.code_of(x)] for t, w, x in zip(names, weak, inputs)]
        fixed = [None if t is None else name_of_dtype(t)
                 for t in _ufuncs._fixed_dtypes(kwargs, op.nin, op.nout)]
        fixes_inputs = any(f is not None for f in fixed[:op.nin])
        if fixes_inputs:
            # (a signature= fixing inputs takes the plain call's loop on the types it names)
            named = [f if f is not None else n for f, n in zip(fixed, names)]
            res = _ufuncs._resolve_names(op, r, named + [None] * op.nout, [None] * nargs, False)
            targets = [f if f is not None else t for f, t in zip(fixed, res)]
        else:
            targets = _ufuncs._resolve_names(op, r, names + [None] * op.nout, fixed, False)
        loop = [_dtype_in(r, t) for t in targets[:op.nin]]
    except Exception:
        return inputs
    casting = kwargs.get("casting", "same_kind")
    for i, (n, w, t, dt) in enumerate(zip(names, weak, targets, loop)):
        if w and casting != "unsafe" and kind(t) not in _WEAK_CASTS.get(kind(n), ""):
            # (a weak float into an int8 loop, a weak complex into a bfloat16 one, whose cast
            # ml_dtypes calls same_kind: NumPy's error for a Python scalar of that kind)
            raise TypeError(f"Cannot cast ufunc {ufunc.__name__!r} weak {n} operand to {dt} with "
                            f"casting rule {casting!r} (rule set {r.name!r})")
        if w and kind(n) == "c":
            _ufuncs._judge_cast(ufunc, None, np.dtype(complex), dt, casting, ("input", i))
    out = list(inputs)
    for i, (x, dt) in enumerate(zip(inputs, loop)):
        if weak[i]:
            _check_weak_ints_fit(x, dt, ufunc, inputs, r, kwargs, method)
            out[i] = np.asarray(_strip(x), dtype=dt)
        elif not fixes_inputs and isinstance(x, (np.ndarray, np.generic)) and x.dtype != dt:
            if not np.can_cast(x.dtype, dt, casting):
                return inputs       # (NumPy's casting error for the strong operand)
            # (complex into bfloat16, float into int4: ml_dtypes' same_kind casts)
            _ufuncs._judge_cast(ufunc, None, x.dtype, dt, casting, ("input", i))
            out[i] = np.asarray(x).astype(dt)
    return out


# the kinds a weak type's values may be converted to without casting='unsafe', as NumPy converts
# a Python int to any integer (range-checked) or inexact type, a float to an inexact one
_WEAK_CASTS = {"b": "biufc", "i": "iufc", "u": "iufc", "f": "fc", "c": "c"}


def _into_out_join(ufunc, inputs, kwargs, t, r):
    """A weak operand of weak type ``t`` reduced into ``out=`` (no dtype=): the operand in its
    join with out's dtype, as a strong one is computed in the rule set's type for its dtype and
    out's (a weak float array into float16 sums in float16; weak ints must fit out's integer
    dtype, as a Python int must)."""
    described = _op_of(ufunc)
    out = kwargs.get("out")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if described is None or described.out != "same" or out is None \
            or kwargs.get("dtype") is not None or kwargs.get("signature") is not None:
        return inputs
    try:
        join = r.join_names(t, name_of_dtype(np.asarray(out).dtype))
    except TypeError:
        return inputs
    if join is None or r.weak_target(join) is not None:
        return inputs
    dt = _dtype_in(r, join)
    _check_weak_ints_fit(inputs[0], dt, ufunc, inputs, r)
    return (np.asarray(_strip(inputs[0]), dtype=dt),) + tuple(inputs[1:])


def _into_self_join(ufunc, inputs, kwargs, t, r):
    """A weak operand of weak type ``t`` reduced without out=/dtype=, under a table that joins
    ``t`` with itself to another type (torch's f* with f* is float64, strong): the operand in
    that type, as its pairwise calls compute. Returns (the weak type of the result or None,
    inputs)."""
    described = _op_of(ufunc)
    if described is None or described.out != "same" or r.weak_target(t) is None \
            or any(kwargs.get(k) is not None for k in ("out", "dtype", "signature")):
        return t, inputs
    j = r.join_names(t, t)
    if j is None or j == t:
        return t, inputs
    return (j if r.weak_target(j) is not None else None,
            (np.asarray(_strip(inputs[0]), dtype=_dtype_in(r, j)),) + tuple(inputs[1:]))


def _op_name(ufunc):
    return getattr(ufunc, "__name__", "").rsplit(".", 1)[-1]


def _op_of(ufunc):
    """The op description of a typelattice ufunc, None for another."""
    _late()
    info = _ufuncs.ufunc_info(ufunc)
    return None if info is None else info[0]


def _dtype_in(r, t):
    """The NumPy dtype of type name t of rules r (a weak one materialized)."""
    dt = materialized_dtype(r, t)
    if dt is None:
        raise TypeError(f"type {t!r} of rule set {r.name!r} has no NumPy dtype")
    return dt


def _int_outside(src, dt):
    """A value of integer array ``src`` outside integer dtype ``dt``, or None (all fit, or
    either is not an integer type)."""
    info = int_info(dt)
    if src.dtype.kind not in "iu" or src.size == 0 or info is None:
        return None
    own = int_info(src.dtype)
    if own.min >= info.min and own.max <= info.max:
        return None
    if src.size == 1:       # (a weak scalar's case: min() and max() cost 1.7 us each)
        v = src.item()
        return v if v > info.max or v < info.min else None
    lo, hi = src.min(), src.max()
    return int(hi) if hi > info.max else int(lo) if lo < info.min else None


def _at_weak_value(ufunc, inputs, r):
    """at(a, i, v) with a weak array v: v in the dtype the plain call a op v takes it in, as at
    takes a Python scalar value (_ufuncs._at_value_dtype); NumPy's at would take v as its
    strong int64/float64 dtype (uint64 + 1 in float64)."""
    if _op_of(ufunc) is None or len(inputs) != 3 or type(inputs[0]) is not np.ndarray:
        return inputs
    a, i, v = inputs
    t = _marker_name(getattr(v, "__typelattice_type__", None), r)
    if t is None or r.weak_target(t) is None:
        return inputs
    _late()
    how, dt, wide = _ufuncs._at_value_dtype(ufunc, a.dtype, t)
    if dt is None:
        return inputs                       # (NumPy's at gives its error)
    if how == 3 and wide is not None and _int_outside(np.asarray(_strip(v)), dt) is not None:
        dt = wide       # (NumPy's at computes in a wider type than the plain call)
    _check_weak_ints_fit(v, dt, ufunc, (a, v), r, {}, "at")
    return (a, i, np.asarray(_strip(v)).astype(dt))


def _check_weak_ints_fit(x, dt, ufunc, inputs, r, kwargs=None, method="__call__"):
    """A weak integer array's values must fit the integer dtype it adopts, as a Python int's
    must (NumPy's cast would wrap them: 300 as int8 is 44). Given the call's ``kwargs``, the
    call's own error comes first where it raises another for any value (gcd of int4: no loop),
    as it does for a Python int. ``method``: the ufunc method the message names."""
    bad = _int_outside(np.asarray(_strip(x)), dt)
    if bad is None:
        return
    probe = [_PROBE_SCALARS.get(np.asarray(a).dtype.kind, 0)
             if _marker_name(getattr(a, "__typelattice_type__", None), r) is not None
             else a if type(a) in _PY_SCALARS else np.empty(0, np.asarray(_strip(a)).dtype)
             for a in inputs]
    if kwargs is not None and any(isinstance(a, np.ndarray) for a in probe):
        # (a zero-size operand, so that the probe computes no value: power(0, -1) would raise)
        exc = error_before_overflow(
            ufunc, probe, {k: v for k, v in kwargs.items() if k not in ("out", "where")})
        if exc is not None:
            raise exc from None
    ops = ", ".join(("weak " if getattr(a, "__typelattice_type__", None) else "")
                    + _describe_operand(a) for a in inputs)
    call = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    raise OverflowError(
        f"{call}({ops}): the weak integer array holds {bad}, which "
        f"does not fit {dt}, the dtype rule set {r.name!r} gives it here (a weak value adopts "
        f"the dtype it meets, as a Python int does); cast it explicitly first "
        f"(typelattice.strong(x) or x.astype(...))")


_PROBE_SCALARS = {"i": 0, "u": 0, "f": 0.0, "c": 0j}     # (a weak operand's kind, any value)


def _strong_power(ufunc, r, codes, join):
    """jax.numpy's power drops the weak flag of a weak join for an integer power (i*|bool ->
    int64, i*|i*) and for a strong integer exponent (f*|int8 -> float64, c*|int8 -> complex128);
    f*|bool and f*|i* stay weak (jax_ops_rules.md, and JAX's weakly typed arrays)."""
    if len(codes) != 2 or _op_name(ufunc) != "power":
        return False
    exponent = r.types[codes[1]]
    return (kind(r.weak_target(join)) in "bui"
            or (r.weak_target(exponent) is None and kind(exponent) in "ui"))


def _mark(result, join, r):
    if isinstance(result, tuple):
        return tuple(_mark(x, join, r) for x in result)
    if not isinstance(result, (np.ndarray, np.generic)) \
            or type(result) not in (np.ndarray, WeakArray) and isinstance(result, np.ndarray):
        return result       # (a subclass's result, a masked array's mask, stays itself)
    try:
        name = name_of_dtype(result.dtype)
    except TypeError:
        return result
    if r.weak_target(join) == name:
        t = join
    elif name == "bool":      # a comparison's answer is a plain bool, whatever its inputs were
        t = None
    else:                     # e.g. i* / i* -> float64: the weak type that materializes so, f*
        t = next((w for w in r.types if r.weak_target(w) == name), None)
    if t is None:
        return result
    out = np.asarray(result).view(WeakArray)
    out._tl_type = t
    out._tl_rules = _rules_ref(r)
    return out
