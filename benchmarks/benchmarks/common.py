"""Shared pieces of the asv suite: the op table, the ufuncs under test, cached operands.

Every typelattice ufunc must have an entry in OPS (the guard in bench_ufunc.py and
tests/test_benchmarks_guard.py fail otherwise): the entry says which inputs the op gets, so that
no benchmark hits a domain error or measures warnings.
"""
import numpy as np

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    ml_dtypes = None
    BF16 = None

try:
    import typelattice
    from typelattice import _bench
except ImportError:                     # benchmarks of a broken build are skipped, not faked
    typelattice = None

SIZES = [1, 10**3, 10**5, 10**7]
BIG = 10**7

# Operand a in [1, 9], b in [1, 3] (non-zero divisors): valid for every op and dtype, no warnings.
DOMAINS = {
    "default": ((1, 9), (1, 3)),
    "shift": ((1, 9), (0, 7)),          # shift counts below the narrowest width
    "power": ((1, 4), (0, 3)),          # non-negative exponents, no int8 overflow surprises
    "unit": ((-0.5, 0.5), (-0.5, 0.5)),  # arcsin, arccos, arctanh (integers: 0)
}

# name -> (domain, dtype of the second operand or None for "same as the first")
OPS = {
    "add": ("default", None), "subtract": ("default", None), "multiply": ("default", None),
    "divide": ("default", None), "floor_divide": ("default", None),
    "remainder": ("default", None), "fmod": ("default", None), "divmod": ("default", None),
    "power": ("power", None), "float_power": ("power", None),
    "maximum": ("default", None), "minimum": ("default", None),
    "fmax": ("default", None), "fmin": ("default", None),
    "arctan2": ("default", None), "hypot": ("default", None), "copysign": ("default", None),
    "nextafter": ("default", None), "logaddexp": ("default", None),
    "logaddexp2": ("default", None), "heaviside": ("default", None),
    "ldexp": ("power", "int64"),
    "gcd": ("default", None), "lcm": ("default", None),
    "bitwise_and": ("default", None), "bitwise_or": ("default", None),
    "bitwise_xor": ("default", None),
    "left_shift": ("shift", None), "right_shift": ("shift", None),
    "logical_and": ("default", None), "logical_or": ("default", None),
    "logical_xor": ("default", None),
    "equal": ("default", None), "not_equal": ("default", None), "less": ("default", None),
    "less_equal": ("default", None), "greater": ("default", None),
    "greater_equal": ("default", None),
    # unary ops (the second entry is unused)
    "sqrt": ("default", None), "cbrt": ("default", None), "exp": ("default", None),
    "exp2": ("default", None), "expm1": ("default", None), "log": ("default", None),
    "log2": ("default", None), "log10": ("default", None), "log1p": ("default", None),
    "sin": ("default", None), "cos": ("default", None), "tan": ("default", None),
    "arcsin": ("unit", None), "arccos": ("unit", None), "arctan": ("default", None),
    "sinh": ("default", None), "cosh": ("default", None), "tanh": ("default", None),
    "arcsinh": ("default", None), "arccosh": ("default", None), "arctanh": ("unit", None),
    "deg2rad": ("default", None), "radians": ("default", None), "rad2deg": ("default", None),
    "degrees": ("default", None), "reciprocal": ("default", None), "fabs": ("default", None),
    "spacing": ("default", None), "frexp": ("default", None), "modf": ("default", None),
    "negative": ("default", None), "positive": ("default", None),
    "absolute": ("default", None), "sign": ("default", None), "square": ("default", None),
    "floor": ("default", None), "ceil": ("default", None), "trunc": ("default", None),
    "rint": ("default", None), "conjugate": ("default", None), "invert": ("default", None),
    "bitwise_count": ("default", None), "logical_not": ("default", None),
    "isnan": ("default", None), "isinf": ("default", None), "isfinite": ("default", None),
    "signbit": ("default", None),
}

# A representative subset for the mixed-dtype, weak-scalar and small-call benchmarks.
MIXED_OPS = ["add", "multiply", "less", "maximum"]
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64",
          "complex128"]
MIXED_PAIRS = ["int8+float16", "int32+float32", "uint8+int8", "int64+bfloat16",
               "float16+float32", "bfloat16+float16", "float64+bool", "bool+float16",
               "int64+int8", "complex64+float16"]
WEAK = ["float32+1.5", "int8+1", "uint8+3", "float16+2.0", "bfloat16+1.0", "float64+2.5"]


def dtype(name):
    """The dtype of a name; asv skips a case whose setup raises NotImplementedError."""
    try:
        return _bench.dtype(name)
    except TypeError as exc:
        raise NotImplementedError(str(exc)) from None


def kind(dt):
    return _bench.kind(dt)


def is_numpy_ufunc(obj):
    name = getattr(obj, "__name__", "")
    return getattr(np, name, None) is obj or getattr(np._core.umath, name, None) is obj


def discover():
    """{canonical name: ufunc} of typelattice's own ufuncs (NumPy's re-exported objects are not
    typelattice's and are left out; aliases are folded into the ufunc's __name__)."""
    if typelattice is None:
        return {}
    by_id = {}
    for name in sorted(dir(typelattice)):
        obj = getattr(typelattice, name, None)
        if isinstance(obj, np.ufunc) and not is_numpy_ufunc(obj):
            by_id.setdefault(id(obj), (obj, []))[1].append(name)
    out = {}
    for obj, names in by_id.values():
        short = obj.__name__.rsplit(".", 1)[-1]             # "jax.add" -> "add"
        out[short if short in names else names[0]] = obj
    return out


UFUNCS = discover()


def tl_ufunc(name):
    """typelattice's ufunc, or NotImplementedError (asv: skip) when this build has none."""
    f = UFUNCS.get(name)
    if f is None:
        raise NotImplementedError(f"typelattice has no ufunc {name!r}")
    return f


def np_ufunc(name):
    f = getattr(np, name, None)
    if not isinstance(f, np.ufunc):
        raise NotImplementedError(f"numpy has no ufunc {name!r}")
    return f


_cache = {}


def placed(x, offset):
    """A copy of x starting `offset` bytes into a page (see _bench.placed: 4K aliasing)."""
    return _bench.placed(x, offset)


def array(dt, n, domain="default", role=0):
    """Deterministic operand: n elements (n=0: a 0-d array) of dtype dt in the domain's range."""
    dt = dtype(dt) if isinstance(dt, str) else np.dtype(dt)
    key = (dt, n, domain, role)
    if key not in _cache:
        m = max(n, 1)
        lo, hi = DOMAINS[domain][role]
        rng = np.random.default_rng([m, role, len(domain)])
        k = kind(dt)
        if k == "b":
            x = rng.integers(0, 2, m).astype(bool)
        elif k in "iu":
            x = rng.integers(int(lo), int(hi) + 1, m).astype(dt)
        elif k == "c":
            x = (rng.uniform(lo, hi, m) + 1j * rng.uniform(lo, hi, m)).astype(dt)
        else:
            x = rng.uniform(lo, hi, m).astype(dt)
        if n == 0:
            x = x[:1].reshape(())
        else:
            x = placed(x, 1024 * (1 + role % 3))
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = x
    return _cache[key]


def operands(op, dts, n):
    """The operands of `op` for dtypes dts (strings) and size n."""
    domain, second = OPS[op]
    out = [array(dts[0], n, domain, 0)]
    if len(dts) > 1:
        out.append(array(second or dts[1], n, domain, 1))
    return out


def probe(f, args, **kw):
    """f on 2-element versions of args (None when it raises): is the call defined?"""
    small = [x[:2] if isinstance(x, np.ndarray) and x.ndim == 1 else x for x in args]
    try:
        with np.errstate(all="ignore"):
            return f(*small, **kw)
    except Exception:
        return None


def result_dtype(r):
    r = r[0] if isinstance(r, tuple) else r
    return None if r is None else r.dtype


def forced_kwargs(np_f, args, C, R):
    """Keywords making NumPy compute in C and return R (signature= or dtype=), or None."""
    if np_f.nout != 1:
        return None
    for kw in ({"signature": (C,) * np_f.nin + (R,)}, {"dtype": R}):
        if result_dtype(probe(np_f, args, **kw)) == R:
            return kw
    return None
