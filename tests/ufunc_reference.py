"""An independent model of jax.numpy's result dtype per binary op (x64), for the ufunc tests.

Written from ../shared/reference/jax_ops_rules.md and the join table of JAX's design note
(tests/reference/jax_doc_jax_numpy.json); it does not import typelattice's op descriptions.
expected(op, a, b) returns a tuple of result dtype names, or an exception class.
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np

REF = Path(__file__).parent / "reference"
_T = json.loads((REF / "jax_doc_jax_numpy.json").read_text())
KINDS = _T["types"]          # b, u8.., i*, f*, c*
JOIN = _T["table"]
LONG = {"b": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
        "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "bf16": "bfloat16",
        "f16": "float16", "f32": "float32", "f64": "float64", "c64": "complex64",
        "c128": "complex128", "i*": "int64", "f*": "float64", "c*": "complex128"}
ARRAY_KINDS = [k for k in KINDS if not k.endswith("*")]
SCALAR_KINDS = ["i*", "f*", "c*"]
PY_VALUE = {"i*": 1, "f*": 1.0, "c*": 1j}
TO_INEXACT = {"b": "f32", "u8": "f32", "u16": "f32", "u32": "f32", "i8": "f32", "i16": "f32",
              "i32": "f32", "u64": "f64", "i64": "f64", "i*": "f*"}


def dtype(name):
    return np.dtype(getattr(ml_dtypes, name) if name == "bfloat16" else name)


def kind(k):
    if k == "b":
        return "b"
    if k in ("i*",):
        return "i"
    if k in ("f*", "bf16") or k.startswith("f"):
        return "f"
    if k.startswith("c"):
        return "c"
    return k[0]


JOIN_OPS = ["add", "multiply", "maximum", "minimum", "fmax", "fmin"]
INEXACT_OPS = ["divide", "true_divide", "float_power", "arctan2", "hypot", "copysign",
               "nextafter", "logaddexp", "logaddexp2", "heaviside"]
FLOORDIV_OPS = ["floor_divide", "remainder", "mod", "fmod", "divmod"]
BITWISE_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFT_OPS = ["left_shift", "right_shift"]
BOOL_OPS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
            "logical_and", "logical_or", "logical_xor"]
ALL_OPS = (JOIN_OPS + ["subtract", "power"] + INEXACT_OPS + FLOORDIV_OPS + BITWISE_OPS
           + SHIFT_OPS + ["gcd", "lcm", "ldexp"] + BOOL_OPS)
# JAX accepts complex here, NumPy has no complex loop: values by JAX's definitions (complex_ref)
COMPLEX_JAX = {"arctan2", "logaddexp", "logaddexp2"}


def expected(op, a, b):
    """Result dtype names (tuple) of jnp.<op>(a, b), or an exception class."""
    j = JOIN[a][b]
    nout = 2 if op == "divmod" else 1
    if op == "ldexp":
        if kind(b) not in "bui" or kind(a) == "c":
            return ValueError
        r = {"i*": "f64", "f*": "f64"}.get(a, TO_INEXACT.get(a, a))
        return (LONG[r],)
    if op == "subtract" and a == b == "b":
        return TypeError
    if op in BOOL_OPS:
        return ("bool",)
    if op in INEXACT_OPS:
        r = TO_INEXACT.get(j, j)
        if kind(r) == "c":
            if op == "hypot":
                return ValueError
            if op in ("copysign", "nextafter", "heaviside"):
                return TypeError
        return (LONG[r],)
    if op in FLOORDIV_OPS:
        if kind(j) == "c":
            return TypeError
        if a == b == "b":
            return ("int32",) * nout
        return (LONG[j],) * nout
    if op == "power":
        if a == "b" and b in ("b", "i*"):
            return ("int32",)
        return (LONG[j],)
    if op in BITWISE_OPS + SHIFT_OPS:
        if kind(j) in "fc":
            return TypeError
        if op in SHIFT_OPS and a == b == "b":
            return ("int32",)
        return (LONG[j],)
    if op in ("gcd", "lcm"):
        if kind(j) in "fc" or a == b == "b":
            return ValueError
        return (LONG[j],)
    assert op in JOIN_OPS + ["subtract"], op
    return (LONG[j],)


def compute_dtypes(op, a, b):
    """The dtypes the inputs are computed in (for value references)."""
    res = expected(op, a, b)
    if op in BOOL_OPS:
        return LONG[JOIN[a][b]], LONG[JOIN[a][b]]
    if op == "ldexp":       # a uint64 exponent is read as it is (no wrap past 2**63)
        return res[0], "uint64" if b == "u64" else "int64"
    return res[0], res[0]


def operand(k, values=(1, 2, 3)):
    """An operand of kind k: an array for dtypes, the Python scalar for i*/f*/c*."""
    if k in PY_VALUE:
        return PY_VALUE[k]
    return np.array(values, dtype=dtype(LONG[k]))


def _wrap(x, w):
    """x wrapped into [-w, w) as jnp.logaddexp's _wrap_between (fmod, then shifted)."""
    r = np.fmod(x + w, 2 * w)
    return np.where(r < 0, r + 2 * w, r) - w


def complex_ref(op, x, y):
    """jnp.<op>(x, y) for complex x, y of one dtype, by JAX's definitions (jax/_src/numpy/
    ufuncs.py; XLA's atan2) composed of NumPy's complex ufuncs in that dtype:
    arctan2(y, x) = -i log((x + i y) / sqrt(x x + y y)) (here the first operand is y, the
    second x); logaddexp(a, b) = m + log1p(exp(a + b
    - 2m)), m = maximum(a, b), imaginary part wrapped into [-pi, pi); logaddexp2 with exp2 and
    / ln 2, wrapped into [-pi/ln 2, pi/ln 2)."""
    f = x.real.dtype.type
    if op == "arctan2":
        return -1j * np.log((y + 1j * x) / np.sqrt(y * y + x * x))
    m = np.maximum(x, y)
    d = x + y - 2 * m
    if op == "logaddexp":
        out, w = m + np.log1p(np.exp(d)), f(np.pi)
    else:
        ln2 = f(np.log(2.0))
        out, w = m + np.log1p(np.exp(d * ln2)) / ln2, f(np.pi) / ln2
    return (out.real + 1j * _wrap(out.imag, w)).astype(x.dtype)
