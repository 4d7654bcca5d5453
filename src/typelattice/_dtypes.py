"""Type names <-> NumPy dtypes, and what a user operand means as a type.

Strings go through ``np.dtype`` (so 'i1' is int8 and 'i8' int64, as in NumPy) unless they are a
name the rule set itself defines ('i*', 'f*', 'c*', 'index', 'int32?', ...). Python scalars and the
types bool/int/float/complex map to the rule set's Python-scalar types (weak in JAX); NumPy scalars,
0-d arrays, arrays and dtypes are strong.
"""
import numbers

import ml_dtypes
import numpy as np

from ._errors import TypePromotionError
from ._names import CORE, EXTENDED

_DTYPES = {}
for _n in CORE + EXTENDED:
    try:
        _DTYPES[_n] = np.dtype(getattr(ml_dtypes, _n) if hasattr(ml_dtypes, _n) else _n)
    except TypeError:  # an ml_dtypes too old to have this type
        pass
_BY_DTYPE = {dt: n for n, dt in _DTYPES.items()}


def dtype_of(name):
    """The NumPy dtype of a canonical type name, or None (weak kinds, table-only types)."""
    return _DTYPES.get(name)


def materialized_name(rules, name):
    """The type name a loop computes type ``name`` of CompiledRules ``rules`` as: a weak type's
    materialization (``i*``: int64 under jax), a type of the rule set's own by the name of its
    storage dtype (``index`` stored as uint64: uint64); else ``name``."""
    w = rules.weak_target(name) if name in rules.index else None
    if w is not None:
        return w
    if name in rules.index and dtype_of(name) is None:
        dt = rules.dtypes[rules.index[name]]
        if dt is not None and dt in _BY_DTYPE:
            return _BY_DTYPE[dt]
    return name


def materialized_dtype(rules, name):
    """The NumPy dtype of type ``name`` of CompiledRules ``rules``, a weak type materialized
    (``i*``: int64 under jax), a type of the rule set's own by its storage; None if none."""
    w = rules.weak_target(name) if name in rules.index else None
    name = w if w is not None else name
    return rules.dtypes[rules.index[name]] if name in rules.index else dtype_of(name)


def name_of_dtype(dt):
    """Canonical name of a NumPy dtype; TypeError for dtypes no rule set can promote."""
    dt = np.dtype(dt)
    if dt.byteorder not in "=|":
        dt = dt.newbyteorder("=")
    name = _BY_DTYPE.get(dt)
    if name is not None:
        return name
    if dt.kind in "biufc":
        # np.longlong and friends are distinct dtype objects of the same kind and size.
        name = _BY_DTYPE.get(np.dtype(f"{dt.kind}{dt.itemsize}"))
        if name is not None:
            return name
    what = {"O": "object", "U": "string", "S": "bytes", "V": "structured/void", "M": "datetime",
            "m": "timedelta", "T": "string"}.get(dt.kind, "unsupported")
    raise TypeError(f"typelattice cannot promote the {what} dtype {dt!s}: only bool, integer, "
                    "floating, complex and ml_dtypes numeric dtypes take part in promotion")


_PY_KIND = {bool: "bool", int: "int", float: "float", complex: "complex"}


def operand_name(x, types, aliases, py_scalars, rules):
    """Canonical type name of one operand under a rule set (given by its parts).

    types: the rule set's names (a container); aliases: canonicalization map; py_scalars:
    {"bool"/"int"/"float"/"complex": name}; rules: the rule set (or its name), for messages.
    """
    ruleset, rules = rules, getattr(rules, "name", rules)
    if isinstance(x, str):
        if x in types:
            name = x
        else:
            try:
                dt = np.dtype(x)
            except TypeError:
                raise TypeError(f"unknown type name {x!r} for rule set {rules!r}; known names: "
                                + ", ".join(types)) from None
            name = name_of_dtype(dt)
    elif isinstance(x, type):
        kind = _PY_KIND.get(x)
        if kind is not None:
            name = py_scalars.get(kind)
            if name is None:
                raise TypePromotionError((x.__name__,), ruleset,
                                         hint=f"rule set {rules!r} has no Python {kind} type")
        else:
            name = name_of_dtype(np.dtype(x))
    elif isinstance(x, np.dtype):
        name = name_of_dtype(x)
    elif isinstance(x, (np.generic, np.ndarray)):
        name = name_of_dtype(x.dtype)
    elif type(x) in _PY_KIND:
        kind = _PY_KIND[type(x)]
        name = py_scalars.get(kind)
        if name is None:
            raise TypePromotionError((type(x).__name__,), ruleset,
                                     hint=f"rule set {rules!r} has no Python {kind} type")
    elif isinstance(x, numbers.Number) and not hasattr(x, "dtype"):
        # a subclass of int/float/complex (an IntEnum member) is strong, its NumPy dtype, as
        # NumPy's and JAX's promotion (and the ufuncs) take it; Fraction, Decimal have none
        dt = np.asarray(x).dtype
        if dt.kind == "O":
            raise TypeError(f"cannot promote {type(x).__name__} {x!r}: only bool, int, float, "
                            "complex, NumPy and ml_dtypes scalars and arrays take part in "
                            f"promotion (rule set {rules!r})")
        name = name_of_dtype(dt)
    elif hasattr(x, "dtype"):
        name = name_of_dtype(x.dtype)
    else:
        raise TypeError(f"cannot interpret {type(x).__name__} {x!r} as a dtype "
                        f"(rule set {rules!r})")
    name = aliases.get(name, name)
    if name not in types:
        raise TypePromotionError((name,), ruleset,
                                 hint=f"{name} is not a type of rule set {rules!r}")
    return name
