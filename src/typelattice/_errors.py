"""Exceptions."""
import functools

import ml_dtypes
import numpy as np

from . import _ops
from ._names import SUB_BYTE_INTS

__all__ = ["TypePromotionError", "python_int_overflow"]


class TypePromotionError(np.exceptions.DTypePromotionError, ValueError):
    """No implicit promotion exists between the operand types under the active rule set.

    Why both a TypeError and a ValueError: NumPy reports failed promotion as
    ``numpy.exceptions.DTypePromotionError``, a TypeError (and a ufunc with no loop raises a
    TypeError), while JAX's ``TypePromotionError`` is a ValueError. Deriving from both lets code
    written against either library catch ours unchanged.
    """

    def __init__(self, operands, rules, hint=None, message=None):
        # rules: the rule set's name, or the rule set (a run-time one has no name to look up
        # the types a suggested cast must be one of)
        ruleset = rules
        rules = rules if rules is None or isinstance(rules, str) else rules.name
        self.operands = tuple(operands)
        self.rules = rules
        self.hint = hint
        self.message = message
        ops = ", ".join(repr(o) for o in self.operands)
        same = _no_self_join(self.operands, ruleset)
        if message is not None:     # (the operands promote; a type the call fixes is missing)
            msg = message
        elif same is not None:
            # bfloat16 under "numpy", uint16 under "torch": the type has no ops with itself
            msg = (f"Input dtypes ({ops}): {same[0]} does not promote even with itself under "
                   f"rule set {rules!r}, which has no arithmetic on it. Cast explicitly, e.g. "
                   f"x.astype({same[1]!r})")
        else:
            target = _suggest(tuple(str(o) for o in self.operands), _types_of(ruleset))
            unusable = _no_self_join((target,), ruleset) if target is not None else None
            if unusable is not None:    # (bfloat16 under numpy: no op of its own either)
                target = unusable[1]
            msg = (f"Input dtypes ({ops}) have no available implicit dtype promotion path under "
                   f"rule set {rules!r}. To avoid unintended promotion, cast explicitly"
                   + (f", e.g. x.astype({target!r})" if target is not None else ""))
        if hint and message is None:
            msg += f". {hint}"
        super().__init__(msg)

    def __reduce__(self):
        # (the text as made: the rule set behind its suggestion may not exist where it loads)
        return (type(self), (self.operands, self.rules, self.hint, self.message),
                {"_text": str(self)})

    def __setstate__(self, state):
        self.args = (state.pop("_text", str(self)),)
        self.__dict__.update(state)


@functools.lru_cache(maxsize=1024)
def _rank(n):
    k = {"c": 4, "f": 3, "i": 2, "u": 1}.get(n[:1] if n[:1] in "cfiu" else "", 0)
    if n.startswith("b") and n != "bool":
        k = 3
    digits = "".join(ch for ch in n.split("_")[0] if ch.isdigit())
    return (k, int(digits) if digits else 0)


def _compiled(rules):
    """The CompiledRules of ``rules`` (a built-in's name or a rule-set object), or None (a
    run-time rule set's name)."""
    try:
        import typelattice
        return typelattice.get_rules(rules)
    except Exception:
        return None


def _types_of(rules):
    """The type names of rule set ``rules``, or None."""
    r = _compiled(rules)
    return frozenset(r.types) if r is not None else None


def _no_self_join(names, rules):
    """(t, a cast target) when every operand is the one type t and t does not join itself under
    ``rules``; else None. The target, a type that does: the narrowest wider one of t's kind (or
    signed, for an unsigned t), else the signed type as wide (for an unsigned t), float32 or
    int32."""
    r = _compiled(rules)
    if len(set(names)) != 1 or not isinstance(names[0], str) or r is None:
        return None
    try:
        t = names[0]
        if t not in r.index or r.join_names(t, t) is not None:
            return None
        ok = [c for c in r.types if c[-1:] not in "*?" and r.join_names(c, c) == c]
        k, bits = _rank(t)
        # wider, holding every value: same kind, or a signed int for an unsigned one
        wider = sorted((c for c in ok if (_rank(c)[0] == k or (k, _rank(c)[0]) == (1, 2))
                        and _rank(c)[1] > bits), key=lambda c: _rank(c)[1])
        # (an unsigned type with no wider signed one, torch's uint64: the signed one as wide,
        # which integer-only ops take too)
        fallback = [c for c in (("int32", "float32") if k == 0 else
                                (f"int{bits}", "float32", "int32") if k == 1 else
                                ("float32", "int32")) if c in ok]
        pick = wider + fallback + ok
        return (t, pick[0]) if pick else None
    except Exception:
        return None


@functools.lru_cache(maxsize=1024)
def _suggest(names, known=None):
    """A plausible explicit cast target: the widest of the operand types, preferring floats (of
    those the rule set, types ``known``, lacks, if any: the type to replace); when the rule set
    lacks it, the next wider type of its kind it has."""
    concrete = [n for n in names if n[-1:] not in "*?" and not n.startswith("Python ")]
    missing = [n for n in concrete if known is not None and n not in known]
    if missing and len(missing) < len(concrete):
        concrete = missing      # (reduce(float64 array, dtype=bfloat16) under anvil: float32)
    target = max(concrete or ["float32"], key=_rank)
    kinds = {_rank(n)[0] for n in concrete}
    if kinds == {1, 2}:                 # signed and unsigned: a signed type holding both
        bits = max([2 * _rank(n)[1] for n in concrete if _rank(n)[0] == 1]
                   + [_rank(n)[1] for n in concrete if _rank(n)[0] == 2])
        target = f"int{min(bits, 64)}"
    elif kinds == {3} and sum(_rank(n) == _rank(target) for n in set(concrete)) > 1:
        target = f"float{min(2 * _rank(target)[1], 64)}"   # bfloat16 and float16: float32
    if known is not None and target not in known:
        kind = [t for t in known if _rank(t)[0] == _rank(target)[0] and t[-1:] not in "*?"]
        wider = [t for t in kind if _rank(t) > _rank(target)]
        # (of types as wide, the IEEE or C one: float16 before bfloat16 and the float8s; the
        # name last, for one answer whatever the set's order)
        plain = lambda t: t.rstrip("0123456789") in ("float", "int", "uint", "complex")  # noqa: E731
        if wider:
            target = min(wider, key=lambda t: (_rank(t), not plain(t), t))
        elif kind:
            target = max(kind, key=lambda t: (_rank(t), plain(t), t))
        else:
            # (no type of the kind at all, bool under array_api: the narrowest of the next kind)
            other = [t for t in known if _rank(t)[0] > _rank(target)[0] and t[-1:] not in "*?"]
            # (an unsigned type: a signed one holding it, int16 for uint8, where there is one)
            holding = [t for t in other if _rank(target)[0] != 1 or _rank(t)[0] > 2
                       or _rank(t)[1] > _rank(target)[1]]
            other = holding or other
            if not other:
                # (complex under max: no cast keeps the values; of two missing types, one)
                return _suggest(tuple(concrete[:1]), known) if len(set(concrete)) > 1 else None
            target = min(other, key=lambda t: (_rank(t), not plain(t), t))
    return target


def dtype_label(dt):
    """A dtype as messages name it: by its type, in either byte order ('uint32', not '>u4')."""
    dt = np.dtype(dt)
    return str(dt if dt.isnative else dt.newbyteorder("="))


def _describe_operand(x):
    if type(x) is int:
        s = str(x)
        return f"Python int {s if len(s) <= 24 else s[:12] + f'... ({len(s)} digits)'}"
    if type(x) in (float, complex, bool):
        return f"Python {type(x).__name__} {x!r}"
    if isinstance(x, np.generic):
        return f"{dtype_label(x.dtype)} scalar"
    dt = getattr(x, "dtype", None)
    if dt is None:
        return type(x).__name__
    return f"{dtype_label(dt) if isinstance(dt, np.dtype) else dt} array"


def call_label(call, operands):
    """A call as the errors name it: "jax.add(int8 array, Python int 3)"."""
    return f"{call}({', '.join(_describe_operand(a) for a in operands)})"


def python_int_beyond_int64(call, operands, value, dtype, rules):
    """The TypeError of ``call`` when the Python int ``value``, outside int64's range, meets an
    ml_dtypes float ``dtype`` (bfloat16, float8...), whose conversion takes Python ints only
    within int64 (its own error, "expected number, got int", names nothing); None otherwise."""
    dtype = np.dtype(dtype)
    if dtype.type.__module__ != "ml_dtypes" or dtype.name in SUB_BYTE_INTS \
            or -2**63 <= value < 2**63:
        return None
    return TypeError(
        f"{call_label(call, operands)}: ml_dtypes converts a Python int to {dtype} only within "
        f"int64's range, and this one is outside it (rule set {rules!r}); pass it as float(...), "
        f"a weak Python float, which gives the same {dtype} result")


def error_before_overflow(call, operands, kwargs=None):
    """The error ``call(*operands, **kwargs)`` raises, unless none or an OverflowError: given
    zero-size array operands, the error a call raises for any value (no loop, a casting
    refusal), which comes before an int's that does not fit."""
    try:
        call(*operands, **(kwargs or {}))
    except OverflowError:
        return None
    except Exception as exc:
        return exc
    return None


@functools.lru_cache(maxsize=256)
def int_info(dtype):
    """The iinfo (min, max, bits) of an integer dtype, the ml_dtypes sub-byte ones included;
    None for any other dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return np.iinfo(dtype)
    if dtype.kind == "V" and dtype.name in SUB_BYTE_INTS:
        return ml_dtypes.iinfo(dtype)
    return None


def _joins_a_float(dtype, rules):
    """Whether ``dtype`` joins a Python float under rule set ``rules``; True where that cannot be
    told (a run-time rule set's name)."""
    r = _compiled(rules)
    try:
        return r.join_names(r.name_of(dtype), r.python_scalars["float"]) is not None
    except Exception:
        return True


def _takes_a_float(call, place):
    """Whether the op of ``call`` ('jax.bitwise_and', 'typelattice.cuda.gcd') takes a float as
    operand ``place`` (ldexp's exponent, a bitwise op's operands: no); True for another name."""
    name = call.rsplit(".", 1)[-1]
    op = _ops.OPS_BY_NAME.get(_ops.ALIASES.get(name, name))
    return op is None or ("f" in op.kinds and not (op.rule == _ops.FIRST_INEXACT and place == 1))


def python_int_overflow(call, operands, value, dtype, rules, fixed=False):
    """The OverflowError of ``call`` (a name) with ``operands`` when the Python int ``value`` does
    not fit ``dtype``, the dtype ``rules`` gives it there (``fixed``: the call's dtype=/signature=
    fixes it); None when it fits (the error was not the int's). The CPU ufuncs raise it from
    NumPy's own, the CUDA ops from the conversion's."""
    dtype = np.dtype(dtype)
    info = int_info(dtype)
    if info is not None:
        if info.min <= value <= info.max:
            return None
        # (only a type of the rule set: jax32 reads an np.int64 as int32, wrapping it)
        types = _types_of(rules)
        wider = next((w for w in ("int8", "int16", "int32", "int64", "uint64")
                      if np.iinfo(w).min <= value <= np.iinfo(w).max
                      and np.iinfo(w).bits > info.bits and (types is None or w in types)), None)
        # (an array of the dtype that joins no float, jax's int4: cast it, not the int)
        cast_array = wider is None and any(
            isinstance(x, np.ndarray) and x.dtype == dtype for x in operands) \
            and not _joins_a_float(dtype, rules)
        place = next((i for i, x in enumerate(operands) if type(x) is int and x == value), 0)
        fix = (f"pass a value within {dtype_label(dtype)}'s range or a dtype= that holds it"
               if fixed else
               f"pass it as a NumPy scalar of a wider dtype (np.{wider}(...)) or cast the other "
               f"operand first" if wider else
               f"no integer dtype wider than {dtype_label(dtype)} holds it, and "
               f"{call.rsplit('.', 1)[-1]} takes no float there: pass a value within "
               f"{dtype_label(dtype)}'s range" if not _takes_a_float(call, place) else
               f"no integer dtype wider than {dtype_label(dtype)} holds it: pass it as a float to "
               f"compute in floating point" if not cast_array else
               f"no integer dtype wider than {dtype_label(dtype)} holds it, and "
               f"{dtype_label(dtype)} joins no float under the rule set: cast the "
               f"{dtype_label(dtype)} array to a float dtype first")
    elif dtype.kind in "fcV":
        try:
            float(value)
            return None
        except OverflowError:
            fix = "it exceeds every float type's range"
    else:
        return None
    given = (f"the dtype the call's dtype=/signature= fixes (rule set {rules!r})" if fixed else
             f"the dtype rule set {rules!r} gives it here (a weak Python int adopts the dtype it "
             f"meets)")
    return OverflowError(f"{call_label(call, operands)}: the Python int does not fit "
                         f"{dtype_label(dtype)}, {given}; {fix}")


def python_float_overflow(call, operands, value, dtype, rules):
    """The OverflowError of ``call`` with ``operands`` when the Python float ``value`` lies
    outside the range of the integer ``dtype`` the call's dtype=/signature= fix for it (NumPy's
    "Python integer ... out of bounds", ml_dtypes' "out of range value"); None when it lies
    inside or ``dtype`` holds no integers."""
    info = int_info(dtype)
    if info is None or info.min <= value <= info.max:
        return None
    return OverflowError(
        f"{call_label(call, operands)}: the Python float {value!r} is outside "
        f"{dtype_label(dtype)}'s range [{info.min}, {info.max}], the dtype the call's "
        f"dtype=/signature= fixes (rule set {rules!r}); pass a value within it or a dtype= that "
        f"holds it")
