"""``python -m typelattice bench`` (and ``benchmarks/compare.py``): typelattice side by side with
NumPy, ml_dtypes and jax.numpy, as ratios of medians of interleaved repeats (issue 5).

For every case the script times each implementation as a ``timeit`` statement on the same
operands, calibrates a call count per implementation, then runs the repeats round-robin (the order
rotates every round) so that machine load hits all columns alike; where a call takes 10 µs or
more, each sample follows ``--warm`` seconds of untimed calls of the same statement
(steady-state memory bandwidth, see ``measure``). It prints the median time of typelattice
and, for every other column, the ratio ``typelattice / other``: below 1 means typelattice is
faster. Columns:

  tl_same    typelattice on operands already of the promoted (compute) dtype
  np         NumPy with the same operands (its own promotion)
  np_same    NumPy with the operands cast to the promoted dtype beforehand (small calls)
  np_dtype   NumPy forced to the promoted dtype (``signature=`` / ``dtype=``), casts included
  np_astype  NumPy on ``a.astype(C), b.astype(C)``, casts included
  ml         ml_dtypes' own loop (NumPy calling it on bfloat16 operands, casts included)
  jax        jax.numpy on jax arrays (``block_until_ready``; single-threaded XLA, x64 enabled;
             sizes up to 1e3, where its target is)
  copy       ``np.copyto`` of 10^7 float64: the machine's single-core copy bandwidth

Each case carries the issue-5 targets that apply to it; the last column says which are met.
Nothing here substitutes NumPy for a missing typelattice ufunc: such cases are reported as
missing, never measured.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time
import timeit

import numpy as np

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    ml_dtypes = None
    BF16 = None

SIZES = (1, 10**3, 10**5, 10**7)
QUICK_SIZES = (1, 10**3, 10**5)
BIG = 10**7

COLUMNS = ("tl_same", "np", "np_same", "np_dtype", "np_astype", "ml", "jax", "copy")
GROUPS = ("promote", "small", "same", "mixed", "weak", "reduce", "out")

# Inputs every op accepts at every dtype without warnings: operand a in [1, 9], operand b in
# [1, 3] (non-zero divisors), shifts in [0, 7], exponents in [0, 3], inverse trig in (-1, 1).
DOMAINS = {
    "default": ((1, 9), (1, 3)),
    "shift": ((1, 9), (0, 7)),
    "power": ((1, 4), (0, 3)),
    "unit": ((-0.9, 0.9), (-0.9, 0.9)),
}
SHIFT_OPS = {"left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift"}
POWER_OPS = {"power", "pow", "float_power", "ldexp"}
SECOND_DTYPE = {"ldexp": "int64"}       # ops whose second operand has a fixed dtype
UNIT_OPS = {"arcsin", "arccos", "arctanh", "asin", "acos", "atanh"}

# The float16 (10x NumPy) and bfloat16 (5x ml_dtypes) targets apply to the ops whose cost in
# NumPy / ml_dtypes is the scalar conversion (arithmetic, min/max, comparisons, logic); the other
# float16/bfloat16 ops (transcendentals, power, arctan2...) must at least keep NumPy's / ml_dtypes'
# speed (NumPy's float16 transcendentals use AVX512-FP16 SVML on CPUs that have it).
HALF_TARGET_OPS = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
                   "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                   "logical_and", "logical_or", "logical_xor", "copysign", "heaviside"}

# Ops for the mixed / weak / small groups by default (those typelattice has are used).
MIXED_OPS = ("add", "multiply", "divide", "less", "maximum")
WEAK_OPS = ("add", "multiply", "power", "floor_divide", "remainder")
SMALL_OPS = ("add", "multiply", "less")
# Same-dtype ops also measured at 1e7 in a full run (every op is measured at 1e5).
BIG_OPS = ("add", "multiply", "divide", "maximum", "less")
QUICK_OPS = ("add", "multiply", "divide", "maximum", "less", "bitwise_and")
SAME_DTYPES = ("int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "float64",
               "complex128")
QUICK_DTYPES = ("int8", "int32", "float16", "bfloat16", "float32", "float64")
MIXED_PAIRS = (("int8", "float16"), ("int32", "float32"), ("int64", "float32"),
               ("uint8", "int8"), ("int64", "bfloat16"), ("float16", "float32"),
               ("bfloat16", "float16"))
WEAK_CASES = (("float32", 1.5), ("int8", 1), ("uint8", 3), ("float16", 2.0),
              ("bfloat16", 1.0), ("float64", 2.5))
# power's own: the exponents NumPy's loops take a shortcut for, and an ordinary one
WEAK_CASES_OF = {"power": (("float32", 2.0), ("float64", 2.0), ("float32", 0.5),
                           ("float64", -1.0), ("float32", 2.5))}
# integer division by one divisor: NumPy's loops multiply by a magic number (libdivide)
WEAK_CASES_OF["floor_divide"] = WEAK_CASES_OF["remainder"] = tuple(
    (t, 7) for t in ("int8", "uint8", "int16", "int32", "uint32", "int64"))


def dtype(name):
    if name == "bfloat16":
        if BF16 is None:
            raise TypeError("bfloat16 needs ml_dtypes")
        return BF16
    return np.dtype(name)


def kind(dt):
    """NumPy's kind letter, with ml_dtypes' floats (kind 'V') counted as 'f'."""
    dt = np.dtype(dt)
    if dt.kind == "V" and dt.name.startswith(("bfloat", "float")):
        return "f"
    return dt.kind


def short(dt):
    dt = np.dtype(dt)
    return {"bfloat16": "bf16", "bool": "bool"}.get(dt.name, dt.name.replace("float", "f")
                                                    .replace("uint", "u").replace("int", "i")
                                                    .replace("complex", "c"))


def domain_of(op):
    if op in SHIFT_OPS:
        return "shift"
    if op in POWER_OPS:
        return "power"
    if op in UNIT_OPS:
        return "unit"
    return "default"


# --------------------------------------------------------------------------------------------
# The ufuncs under test

def discover_ufuncs(module=None):
    """{name: ufunc} for every ``np.ufunc`` attribute of typelattice that is not NumPy's own
    object (a re-exported NumPy ufunc would measure NumPy and is left out), one name per object
    (the ufunc's ``__name__`` when it is exported under it)."""
    if module is None:
        import typelattice as module
    found = {}
    for name in sorted(dir(module)):
        obj = getattr(module, name, None)
        if not isinstance(obj, np.ufunc) or is_numpy_ufunc(obj):
            continue
        found.setdefault(id(obj), []).append(name)
    out = {}
    for names in found.values():
        obj = getattr(module, names[0])
        short_name = obj.__name__.rsplit(".", 1)[-1]        # "jax.add" -> "add"
        canonical = short_name if short_name in names else names[0]
        out[canonical] = obj
    return dict(sorted(out.items()))


def is_numpy_ufunc(obj):
    """True when ``obj`` is one of NumPy's (or ml_dtypes') own ufunc objects."""
    for mod in (np, getattr(np, "_core", None) and np._core.umath):
        if mod is not None and getattr(mod, getattr(obj, "__name__", ""), None) is obj:
            return True
    return False


def numpy_ufunc(name, tl_ufunc=None):
    f = getattr(np, name, None)
    if isinstance(f, np.ufunc):
        return f
    f = getattr(np, getattr(tl_ufunc, "__name__", ""), None)
    return f if isinstance(f, np.ufunc) else None


# --------------------------------------------------------------------------------------------
# Data

PAGE = 4096


def placed(x, offset):
    """A copy of x whose data starts ``offset`` bytes into a page.

    Relative placement matters on this kind of CPU: when an input and the output sit at the same
    offset within a page (4K aliasing), NumPy's float32 add at 1e5 elements ran at half speed
    while typelattice's blocked loop did not, so a benchmark could report a 2x "win" that is an
    accident of where malloc put the arrays. Operands go to offsets 1024, 2048 (inputs) and 3072
    (out= arrays); fresh outputs from malloc land near offset 16.
    """
    x = np.asarray(x)
    buf = np.empty(x.nbytes + 2 * PAGE, np.uint8)
    start = (-buf.ctypes.data) % PAGE + offset
    y = buf[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    y[...] = x
    return y


def role_offset(role):
    return 1024 * (1 + role % 3)


class Data:
    """Deterministic operands, cached per (dtype, size, domain, role), placed at page offsets
    that depend on the role (see ``placed``)."""

    def __init__(self, seed=12345):
        self.seed = seed
        self._base = {}
        self._arrays = {}

    def _raw(self, n, dom, role, integral, part=0):
        key = (n, dom, role, integral, part)
        if key not in self._base:
            rng = np.random.default_rng([self.seed, n, hash(dom) & 0xFFFF, role, part])
            lo, hi = DOMAINS[dom][role]
            if integral:
                self._base[key] = rng.integers(int(np.ceil(lo)), int(hi) + 1, n)
            else:
                self._base[key] = rng.uniform(lo, hi, n)
        return self._base[key]

    def array(self, dt, n, dom="default", role=0):
        """A contiguous 1-d array of n elements (n=0 means a 0-d array)."""
        dt = np.dtype(dt)
        key = (dt, n, dom, role)
        if key in self._arrays:
            return self._arrays[key]
        m = max(n, 1)
        k = kind(dt)
        if k == "b":
            x = self._raw(m, "default", role, True) % 2 == 1
        elif k in "iu":
            x = self._raw(m, dom if dom != "unit" else "default", role, True).astype(dt)
        elif k == "c":
            x = (self._raw(m, dom, role, False) + 1j * self._raw(m, dom, role, False, 1)).astype(dt)
        else:
            x = self._raw(m, dom, role, False).astype(dt)
        if n == 0:
            x = x[:1].reshape(())
        else:
            x = placed(x, role_offset(role))
        self._arrays[key] = x
        return x

    def clear(self):
        self._arrays.clear()
        self._base.clear()


# --------------------------------------------------------------------------------------------
# Cases

class Case:
    """One row: ``make()`` returns {column: (stmt, namespace)}, built only when measured.

    checks: [(column, bound, label)]: target ``median(tl) / median(column) <= bound``.
    ref: the column whose value typelattice's must equal bit for bit ("bits" column).
    """

    def __init__(self, group, label, size, make, checks=(), ref=None, bw=None):
        self.group, self.label, self.size = group, label, size
        self.make, self.checks, self.ref, self.bw = make, list(checks), ref, bw


def _stmt(call_args, kwargs=""):
    return f"f({call_args}{', ' + kwargs if kwargs else ''})"


def _call_shape(nin, scalar=False):
    return "a" if nin == 1 else "a, b"


def _probe(f, args, **kw):
    """Run f on small versions of args; the result or None when it raises."""
    small = [x[:2] if isinstance(x, np.ndarray) and x.ndim == 1 else x for x in args]
    try:
        with np.errstate(all="ignore"):
            r = f(*small, **kw)
    except Exception:
        return None
    return r


def _first(r):
    return r[0] if isinstance(r, tuple) else r


def _result_dtype(r):
    r = _first(r)
    return getattr(r, "dtype", None) if r is not None else None


def _forced(np_f, args, C, R):
    """Keyword arguments that make NumPy's ufunc compute in C and return R, or None."""
    if np_f is None or np_f.nout != 1:
        return None
    tries = [{"signature": (C,) * np_f.nin + (R,)}, {"dtype": R}]
    for kw in tries:
        r = _probe(np_f, args, **kw)
        if r is not None and _result_dtype(r) == R:
            return kw
    return None


def _jax_array(jnp, x):
    return jnp.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _jax_stmt(jnp, name, args):
    f = getattr(jnp, name, None)
    if f is None:
        return None
    try:
        jargs = [_jax_array(jnp, x) for x in args]
        f(*[x[:2] if hasattr(x, "ndim") and x.ndim == 1 else x for x in jargs])
    except Exception:
        return None
    import jax
    ns = {"f": f, "a": jargs[0], "ready": jax.block_until_ready}
    if len(jargs) > 1:
        ns["b"] = jargs[1]
    return (f"ready({_stmt(_call_shape(len(jargs)))})", ns)


def _ufunc_columns(ctx, name, tl_f, args, compute=None, same=False, weak=False,
                   want=("tl_same", "np", "np_dtype", "np_astype", "ml", "jax")):
    """The columns of a ufunc case. args: operands (arrays or a Python scalar last)."""
    np_f = numpy_ufunc(name, tl_f)
    nin = len(args)
    call = _call_shape(nin)
    ns = {"f": tl_f, "a": args[0]}
    if nin > 1:
        ns["b"] = args[1]
    cols = {"tl": (_stmt(call), ns)}
    r = _probe(tl_f, args)
    R = _result_dtype(r)
    C = compute if compute is not None else ctx.tl.result_type(*args)
    arrays = [x for x in args if isinstance(x, np.ndarray)]
    conv = [placed(x.astype(C), role_offset(i)) if isinstance(x, np.ndarray) else x
            for i, x in enumerate(args)]
    if weak and not isinstance(args[-1], np.ndarray):
        conv[-1] = C.type(args[-1])            # the same-dtype call: a NumPy scalar of C
    is_bf16 = C == BF16
    if "tl_same" in want and not same:
        cols["tl_same"] = (_stmt(call), dict(ns, a=conv[0], **({"b": conv[1]} if nin > 1 else {})))
    if np_f is not None:
        if "np" in want and not (same and is_bf16):
            if _probe(np_f, args) is not None:
                cols["np"] = (_stmt(call), dict(ns, f=np_f))
        if "np_dtype" in want and not same and R is not None:
            kw = _forced(np_f, args, C, R)
            if kw is not None:
                k, v = next(iter(kw.items()))
                cols["np_dtype"] = (_stmt(call, f"{k}=kw"), dict(ns, f=np_f, kw=v))
        cast = (f"a.astype(C, copy=False)" if isinstance(args[0], np.ndarray) else "a")
        if nin > 1:
            cast += ", " + ("b.astype(C, copy=False)" if isinstance(args[1], np.ndarray) else "b")
        astype_col = "ml" if is_bf16 else "np_astype"
        if (astype_col in want and not same) or (same and is_bf16 and "ml" in want):
            if _probe(np_f, conv) is not None:
                cols[astype_col] = (f"f({cast})", dict(ns, f=np_f, C=C))
    if max((x.size for x in arrays), default=0) >= OUT_MIN_SIZE:
        _use_out(cols, tl_f, np_f, args, conv, R)
    if np_f is not None and R is not None and _result_dtype(_probe(np_f, args)) != R:
        cols["_np_other_dtype"] = None          # NumPy's own call does different work
        kw = _forced(np_f, args, C, R)          # reference values: NumPy computing in R
        if kw is not None:
            k, v = next(iter(kw.items()))
            cols["_ref"] = (_stmt(call, f"{k}=kw"), dict(ns, f=np_f, kw=v))
    if "jax" in want and ctx.jnp is not None and not _too_big_for_jax(args):
        j = _jax_stmt(ctx.jnp, name, args)
        if j is not None:
            cols["jax"] = j
    return cols, R, C


OUT_MIN_SIZE = 10**5


def _use_out(cols, tl_f, np_f, args, conv, R):
    """From 1e5 elements on, every column writes into a preallocated out= array placed at page
    offset 3072 (one per result dtype). Where malloc puts a fresh result is outside the code under
    test and, through 4K aliasing with an input, changed NumPy's speed by up to 2x between runs;
    allocating it costs both sides the same."""
    n = max(x.size for x in args if isinstance(x, np.ndarray))
    outs = {}

    def out_for(dts):
        key = tuple(dts)
        if key not in outs:
            o = tuple(placed(np.zeros(n, d), 3072 + 64 * i) for i, d in enumerate(dts))
            outs[key] = o if len(o) > 1 else o[0]
        return outs[key]

    def dtypes_of(r):
        return [x.dtype for x in (r if isinstance(r, tuple) else (r,))]

    for col in list(cols):
        stmt, ns = cols[col]
        f = ns["f"]
        if col in ("tl", "tl_same"):
            r = _probe(tl_f, args if col == "tl" else conv)
        elif col == "np_dtype":
            k, v = "kw", ns["kw"]
            kw = {"signature": v} if isinstance(v, tuple) else {"dtype": v}
            r = _probe(np_f, args, **kw)
        elif col == "np":
            r = _probe(np_f, args)
        else:                                   # the astype columns
            r = _probe(np_f, conv)
        if r is None:
            continue
        cols[col] = (stmt[:-1] + ", out=o)", dict(ns, o=out_for(dtypes_of(r))))


JAX_MAX_SIZE = 10**3      # jax's column is left out above (its target is below 1e4)


def _too_big_for_jax(args):
    return any(getattr(x, "size", 0) > JAX_MAX_SIZE for x in args)


def _ref_for(cols):
    for c in ("np_dtype", "np", "ml", "np_astype", "np_same"):
        if c in cols:
            return c
    return None


class Context:
    def __init__(self, args):
        import typelattice
        self.tl = typelattice
        self.args = args
        self.data = Data()
        self.ufuncs = discover_ufuncs(typelattice)
        self.jnp = load_jax() if args.jax else None
        self.missing = []

    def ops(self, default):
        names = self.args.ops
        if names is None:
            names = list(self.ufuncs) if default is None else [o for o in default
                                                               if o in self.ufuncs]
        out = []
        for n in names:
            if n in self.ufuncs:
                out.append(n)
            elif n not in self.missing:
                self.missing.append(n)
        return out


def load_jax():
    """jax.numpy with 64-bit types, single-threaded like the other columns; None if absent."""
    if "jax" not in sys.modules:
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                           "intra_op_parallelism_threads=1")
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        jnp.add(jnp.ones(2), 1.0).block_until_ready()
    except Exception:
        return None
    return jnp


def cases_promote(ctx):
    tl, jnp = ctx.tl, ctx.jnp
    pairs = [("int8", "float16"), ("uint8", "int8"), ("int32", "float32"), ("int64", "bfloat16"),
             ("float32", "float64")]
    for x, y in pairs:
        def make(x=x, y=y):
            a, b = dtype(x), dtype(y)
            ns = {"a": a, "b": b}
            cols = {"tl": ("f(a, b)", dict(ns, f=tl.promote_types))}
            if _probe(np.promote_types, (a, b)) is not None:
                cols["np"] = ("f(a, b)", dict(ns, f=np.promote_types))
            if jnp is not None:
                cols["jax"] = ("f(a, b)", dict(ns, f=jnp.promote_types))
            return cols
        yield Case("promote", f"promote_types({short(x)}, {short(y)})", None, make,
                   [("np", 1.0, "<=np"), ("jax", 0.1, "10x jax")])
    d = ctx.data
    rt = [("f32 arr, 1.0", lambda: (d.array("float32", 10), 1.0)),
          ("i8 arr, 1", lambda: (d.array("int8", 10), 1)),
          ("i8 arr, f16 arr", lambda: (d.array("int8", 10), d.array("float16", 10))),
          ("u8, i8, f16 arrs", lambda: (d.array("uint8", 10), d.array("int8", 10),
                                        d.array("float16", 10))),
          ("f32, f64 dtypes", lambda: (np.dtype("float32"), np.dtype("float64")))]
    for label, ops in rt:
        def make(ops=ops):
            o = ops()
            stmt = "f(*o)"
            cols = {"tl": (stmt, {"f": tl.result_type, "o": o})}
            if _probe(np.result_type, o) is not None:
                cols["np"] = (stmt, {"f": np.result_type, "o": o})
            if jnp is not None:
                cols["jax"] = (stmt, {"f": jnp.result_type, "o": o})
            return cols
        yield Case("promote", f"result_type({label})", None, make,
                   [("np", 1.0, "<=np"), ("jax", 0.1, "10x jax")])


def _jax_check(size):
    return [("jax", 0.1, "10x jax")] if size is not None and size < 10**4 else []


def cases_small(ctx):
    d = ctx.data
    # (label, operands maker, mixed?)
    specs = [("0-d f32 + 0-d f32", lambda: (d.array("float32", 0), d.array("float32", 0, role=1)),
              False),
             ("[1] f32 + [1] f32", lambda: (d.array("float32", 1), d.array("float32", 1, role=1)),
              False),
             ("[1] f32 + 1.5", lambda: (d.array("float32", 1), 1.5), False),
             ("0-d f32 + 1.5", lambda: (d.array("float32", 0), 1.5), False),
             ("[1] i8 + 1", lambda: (d.array("int8", 1), 1), False),
             ("[1] bf16 + 1.0", lambda: (d.array("bfloat16", 1), 1.0), False),
             ("[1] i8 + [1] f16", lambda: (d.array("int8", 1), d.array("float16", 1, role=1)),
              True),
             ("0-d i32 + 0-d f32", lambda: (d.array("int32", 0), d.array("float32", 0, role=1)),
              True),
             ("[1] u8 + [1] i8", lambda: (d.array("uint8", 1), d.array("int8", 1, role=1)), True),
             ("[1] i64 + [1] bf16", lambda: (d.array("int64", 1), d.array("bfloat16", 1, role=1)),
              True),
             ("[1] f32 + np.float32", lambda: (d.array("float32", 1), np.float32(1.5)), False),
             ("np.float64 + np.float64", lambda: (np.float64(1.5), np.float64(2.5)), False)]
    for op in ctx.ops(SMALL_OPS if not ctx.args.quick else ("add",)):
        tl_f = ctx.ufuncs[op]
        np_f = numpy_ufunc(op, tl_f)
        for label, mk, mixed in specs:
            def make(mk=mk, op=op, tl_f=tl_f, np_f=np_f, mixed=mixed):
                args = mk()
                if _probe(tl_f, args) is None:
                    return None
                cols, R, C = _ufunc_columns(ctx, op, tl_f, args, want=("np", "jax"))
                if mixed and np_f is not None:
                    conv = [placed(x.astype(C), role_offset(i)) for i, x in enumerate(args)]
                    if _probe(np_f, conv) is not None:
                        cols["np_same"] = ("f(a, b)", {"f": np_f, "a": conv[0], "b": conv[1]})
                return cols
            checks = ([("np_same", 1.0, "<=np same"), ("np", 0.5, "<=0.5 np mixed")] if mixed
                      else [("np", 1.0, "<=np")]) + _jax_check(1)
            yield Case("small", f"{op} {label}", 1, make, checks, ref=None)

        def make_inplace(tl_f=tl_f, np_f=np_f):
            # in place on 100 elements (out= is the first operand): the keyword path; its own
            # copy, and ones as the second operand, so repeated calls stay finite
            a, b = d.array("float32", 100).copy(), np.ones(100, np.float32)
            if np_f is None or _probe(tl_f, [a, b]) is None or a.dtype != _result_dtype(
                    _probe(tl_f, [a, b])):
                return None
            ns = {"a": a, "b": b}
            return {"tl": ("f(a, b, out=a)", dict(ns, f=tl_f)),
                    "np": ("f(a, b, out=a)", dict(ns, f=np_f))}
        yield Case("small", f"{op} [100] f32 + [100] f32, out=", 100, make_inplace,
                   [("np", 1.0, "<=np")], ref=None)


def _sizes(ctx, default):
    if ctx.args.sizes is not None:
        return ctx.args.sizes
    return [s for s in default if s in (QUICK_SIZES if ctx.args.quick else SIZES)]


def cases_same(ctx):
    dtypes = ctx.args.dtypes or (QUICK_DTYPES if ctx.args.quick else SAME_DTYPES)
    for op in ctx.ops(QUICK_OPS if ctx.args.quick else None):
        tl_f = ctx.ufuncs[op]
        for dn in dtypes:
            try:
                dt = dtype(dn)
            except TypeError:
                continue
            sizes = _sizes(ctx, (10**3, 10**5) if ctx.args.quick else (10**5, 10**7))
            if ctx.args.sizes is None and ctx.args.ops is None and op not in BIG_OPS:
                sizes = [s for s in sizes if s < BIG]
            for n in sizes:
                def make(op=op, tl_f=tl_f, dt=dt, n=n):
                    dom = domain_of(op)
                    dts = [dt] * tl_f.nin
                    if op in SECOND_DTYPE and tl_f.nin == 2:
                        dts[1] = dtype(SECOND_DTYPE[op])
                    args = tuple(ctx.data.array(d, n, dom, role) for role, d in enumerate(dts))
                    if _probe(tl_f, args) is None:
                        return None          # op not defined for this dtype
                    cols, R, C = _ufunc_columns(ctx, op, tl_f, args, compute=dt, same=True,
                                                want=("np", "ml", "jax"))
                    return cols
                checks = []
                if n >= 10**5:
                    if dt == np.float16:
                        checks.append(("np", 0.1, "10x np f16") if op in HALF_TARGET_OPS
                                      else ("np", 1.05, "<=1.05 np"))
                    elif dt == BF16:
                        checks.append(("ml", 0.2, "5x ml_dtypes") if op in HALF_TARGET_OPS
                                      else ("ml", 1.05, "<=1.05 ml_dtypes"))
                    else:
                        checks.append(("np", 1.05, "<=1.05 np"))
                checks += _jax_check(n)
                yield Case("same", f"{op} {short(dt)}", n, make, checks, ref="auto")


def cases_mixed(ctx):
    for op in ctx.ops(MIXED_OPS if not ctx.args.quick else ("add", "multiply", "less")):
        tl_f = ctx.ufuncs[op]
        if tl_f.nin != 2:
            continue
        for x, y in MIXED_PAIRS:
            for n in _sizes(ctx, SIZES):
                def make(op=op, tl_f=tl_f, x=x, y=y, n=n):
                    dom = domain_of(op)
                    args = (ctx.data.array(dtype(x), n, dom, 0), ctx.data.array(dtype(y), n, dom, 1))
                    if _probe(tl_f, args) is None:
                        return None
                    cols, R, C = _ufunc_columns(ctx, op, tl_f, args)
                    return cols
                checks = [("tl_same", 1.05, "<=1.05 same"), ("np_dtype", 1.0, "<np dtype=")]
                yield Case("mixed", f"{op} {short(dtype(x))}+{short(dtype(y))}", n, make,
                           checks + _jax_check(n), ref="auto")


def cases_weak(ctx):
    for op in ctx.ops(WEAK_OPS if not ctx.args.quick else ("add",)):
        tl_f = ctx.ufuncs[op]
        if tl_f.nin != 2:
            continue
        for dn, s in WEAK_CASES_OF.get(op, WEAK_CASES):
            for n in _sizes(ctx, SIZES):
                def make(op=op, tl_f=tl_f, dn=dn, s=s, n=n):
                    a = ctx.data.array(dtype(dn), n, domain_of(op), 0)
                    if _probe(tl_f, (a, s)) is None:
                        return None
                    cols, R, C = _ufunc_columns(ctx, op, tl_f, (a, s), weak=True,
                                                want=("tl_same", "np", "np_dtype", "jax"))
                    return cols
                checks = [("tl_same", 1.05, "<=1.05 same"), ("np_dtype", 1.0, "<np dtype=")]
                yield Case("weak", f"{op} {short(dtype(dn))}+{s!r}", n, make,
                           checks + _jax_check(n), ref="auto")


def cases_reduce(ctx):
    if "add" not in ctx.ufuncs:
        ctx.missing.append("add") if "add" not in ctx.missing else None
        return
    tl_add = ctx.ufuncs["add"]
    for dn in ("float32", "float64", "float16", "bfloat16"):
        for n in _sizes(ctx, (10**3, 10**5, 10**7)):
            def make(dn=dn, n=n):
                a = ctx.data.array(dtype(dn), n)
                col = "ml" if dtype(dn) == BF16 else "np"
                cols = {"tl": ("f(a)", {"f": tl_add.reduce, "a": a}),
                        col: ("f(a)", {"f": np.add.reduce, "a": a})}
                if ctx.jnp is not None and n <= JAX_MAX_SIZE:
                    import jax
                    cols["jax"] = ("ready(f(a))", {"f": ctx.jnp.sum, "a": ctx.jnp.asarray(a),
                                                   "ready": jax.block_until_ready})
                return cols
            checks = ([("np", 1.1, "<=1.1 np")] if dn in ("float32", "float64") and n >= 10**5
                      else [])
            yield Case("reduce", f"add.reduce {short(dtype(dn))}", n, make, checks, ref="auto")
    # max reductions (np.max): a SIMD pass, the element loop's exact result
    if "maximum" not in ctx.ufuncs:
        return
    tl_max = ctx.ufuncs["maximum"]
    for dn in ("float32", "float64", "int64"):
        for n in _sizes(ctx, (10**3, 10**5, 10**7)):
            def make(dn=dn, n=n):
                a = ctx.data.array(dtype(dn), n)
                return {"tl": ("f(a)", {"f": tl_max.reduce, "a": a}),
                        "np": ("f(a)", {"f": np.maximum.reduce, "a": a})}
            checks = [("np", 1.1, "<=1.1 np")] if n >= 10**5 else []
            yield Case("reduce", f"maximum.reduce {short(dtype(dn))}", n, make, checks,
                       ref="auto")


def cases_out(ctx):
    if "add" not in ctx.ufuncs:
        return
    tl_add = ctx.ufuncs["add"]
    n = BIG
    for x, y in (("float32", "float32"), ("float64", "float64"), ("float16", "float16"),
                 ("bfloat16", "bfloat16"), ("int8", "float16")):
        def make(x=x, y=y):
            a, b = ctx.data.array(dtype(x), n), ctx.data.array(dtype(y), n, role=1)
            R = _result_dtype(_probe(tl_add, (a, b)))
            if R is None:
                return None
            o = placed(np.zeros(n, R), 3072)
            src = ctx.data.array(np.float64, n)
            dst = placed(np.zeros(n, np.float64), 3072)
            ns = {"a": a, "b": b, "o": o}
            col = "ml" if R == BF16 else "np"
            cols = {"tl": ("f(a, b, out=o)", dict(ns, f=tl_add)),
                    col: ("f(a, b, out=o)", dict(ns, f=np.add)),
                    "copy": ("f(d, s)", {"f": np.copyto, "d": dst, "s": src})}
            traffic = a.nbytes + b.nbytes + o.nbytes
            return cols, (traffic, src.nbytes + dst.nbytes)
        yield Case("out", f"add {short(dtype(x))}+{short(dtype(y))} out=", n, make,
                   [("bw", 0.8, ">=0.8 bw")], ref=None, bw=True)


# --------------------------------------------------------------------------------------------
# Measuring

TIMERS = {"cpu": time.process_time, "wall": time.perf_counter}


def _timer(stmt, ns, clock):
    setup = "; ".join(f"{k} = __ns[{k!r}]" for k in ns) or "pass"
    return timeit.Timer(stmt, setup=setup, timer=clock, globals={"__ns": ns})


def _calibrate(t, sample):
    t.timeit(1)                              # warm-up (first call caches, page faults)
    n = 1
    while True:
        dt = t.timeit(n)
        if dt >= sample / 4 or n >= 10**7:
            break
        n *= 10 if dt < sample / 100 else 2
    return max(1, int(n * sample / max(dt, 1e-9)))


def measure(cols, repeats, sample, budget, clock=time.process_time, warm=0.0):
    """Median seconds per call of every column, from interleaved rounds. Columns whose name
    starts with "_" are not timed (untimed reference values).

    warm: seconds of untimed calls of a column before each of its samples. On the Xeon VM of
    sessions 10-13, memory streaming ran at half speed for the first ~5-10 ms after 30 ms or more
    without it (np.add of 3e6 float32: 3.1 ms, 2.7, 1.6, then 1.4 ms per call), so a fast
    memory-bound call timed right after a slow compute-bound column (NumPy's float16 loops)
    measured twice its steady time. Cases whose calls all take under 10 µs (cache-resident
    operands) go without: a sample holds hundreds of them and the warm-up would triple the run;
    otherwise every column is warmed alike."""
    timers = {k: _timer(stmt, ns, clock) for k, (stmt, ns) in cols.items()
              if not k.startswith("_")}
    numbers = {k: _calibrate(t, sample) for k, t in timers.items()}
    if not timers or max(sample / numbers[k] for k in timers) < 10e-6:
        warm = 0.0
    warmups = {k: round(warm * numbers[k] / sample) for k in timers}       # calls
    t0 = time.perf_counter()
    keys = list(timers)
    samples = {k: [] for k in keys}
    r = 0
    while r < repeats:
        rot = r % len(keys)
        for k in keys[rot:] + keys[:rot]:
            if warmups[k]:
                timers[k].timeit(warmups[k])
            samples[k].append(timers[k].timeit(numbers[k]) / numbers[k])
        r += 1
        if r == 1:                           # fit the time budget: fewer rounds for slow
            per_round = time.perf_counter() - t0     # cases, up to twice as many for cheap ones
            repeats = max(3, min(2 * repeats, int(budget / max(per_round, 1e-9))))
            repeats -= (repeats % 2 == 0)
    return {k: statistics.median(v) for k, v in samples.items()}, repeats


def _value(stmt, ns):
    with np.errstate(all="ignore"):
        r = eval(stmt, {}, dict(ns))
    # a copy: columns share out= arrays
    return tuple(np.array(x) for x in r) if isinstance(r, tuple) else np.array(r)


def _bits_equal(x, y):
    x, y = _first(x), _first(y)
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype:
        return "dtype"
    if x.shape != y.shape:
        return "shape"
    if x.dtype.kind in "biu":
        return "=" if np.array_equal(x, y) else "DIFF"
    # (complex: each part on its own)
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize
                                                               // (2 if x.dtype.kind == "c" else 1)]
    xv, yv = np.ascontiguousarray(x).view(u), np.ascontiguousarray(y).view(u)
    if np.array_equal(xv, yv):
        return "="
    d = _ulps(xv, yv)
    # transcendentals: libmvec's and NumPy's SVML loops, each within 4 ulp of the exact result,
    # differ in the last bits (up to 8 ulp between them)
    return f"~{d} ulp" if d is not None and d <= 8 else "DIFF"


def _ulps(xv, yv):
    """The largest distance in ulps between floats given by their bits (unsigned views), or None
    where NaN bits (payloads included) differ."""
    w = 8 * xv.dtype.itemsize
    top = np.uint64(1) << np.uint64(w - 1)
    xi, yi = xv.ravel().astype(np.uint64), yv.ravel().astype(np.uint64)
    mx, my = xi & (top - np.uint64(1)), yi & (top - np.uint64(1))
    # NaN: every exponent bit set and a nonzero fraction; a 16-bit type may be float16 or
    # bfloat16, so both patterns count as "special" there and must match exactly
    specials = {16: [0x7C00, 0x7F80], 32: [0x7F800000], 64: [0x7FF0000000000000]}[w]
    special = np.zeros(xi.shape, bool)
    for e in specials:
        special |= (mx >= np.uint64(e)) | (my >= np.uint64(e))
    if (xi[special] != yi[special]).any():
        return None
    # in unsigned integers (float64 bits do not fit a double): across zero the magnitudes add
    across = (xi & top) != (yi & top)
    d = np.where(across, mx + my, np.maximum(mx, my) - np.minimum(mx, my))
    return int(d.max())


def run_case(case, args):
    made = case.make()
    if made is None:
        return None
    cols, bw = (made if isinstance(made, tuple) else (made, None))
    other_dtype = cols.pop("_np_other_dtype", False) is None
    med, reps = measure(cols, args.repeats, args.sample, args.budget, TIMERS[args.timer],
                        args.warm)
    row = {"group": case.group, "case": case.label, "size": case.size,
           "tl": med.get("tl"), "repeats": reps,
           "ratio": {c: med["tl"] / med[c] for c in med if c != "tl" and med.get(c)},
           "times": med, "checks": [], "bits": ""}
    if case.ref == "auto":
        ref = "_ref" if "_ref" in cols else _ref_for(cols)
        if ref is not None:
            row["bits"] = _bits_equal(_value(*cols["tl"]), _value(*cols[ref]))
    if other_dtype:
        row["bits"] += " (np: other dtype)"
    if bw:
        traffic, copy_bytes = bw
        bandwidth = copy_bytes / med["copy"]
        row["bw"] = {c: traffic / med[c] / bandwidth for c in med if c != "copy"}
        row["copy_GBps"] = bandwidth / 1e9
    for col, bound, label in case.checks:
        if other_dtype and case.group == "same" and col in ("np", "ml"):
            continue                            # no NumPy loop for typelattice's result dtype
        if col == "bw":
            v = row["bw"]["tl"]
            row["checks"].append((label, v, v >= bound))
        elif col in row["ratio"]:
            v = row["ratio"][col]
            row["checks"].append((label, v, v <= bound))
    return row


# --------------------------------------------------------------------------------------------
# Output

def fmt_time(s):
    if s is None:
        return "-"
    for unit, f in (("s", 1), ("ms", 1e3), ("µs", 1e6)):
        if s * f >= 1:
            return f"{s * f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_size(n):
    if n is None:
        return ""
    if n >= 1000 and n == 10 ** (len(str(n)) - 1):
        return f"1e{len(str(n)) - 1}"
    return str(n)


def table_rows(rows):
    cols = [c for c in COLUMNS if any(c in r["ratio"] for r in rows)]
    head = ["group", "case", "size", "tl"] + [f"tl/{c}" for c in cols] + ["bits", "targets"]
    out = []
    for r in rows:
        cells = [r["group"], r["case"], fmt_size(r["size"]), fmt_time(r["tl"])]
        for c in cols:
            v = r["ratio"].get(c)
            cells.append("" if v is None else f"{v:.2f}")
        if "bw" in r:
            cells[-1] += f" ({r['copy_GBps']:.1f} GB/s)"
        cells.append(r["bits"])
        tg = []
        for label, v, ok in r["checks"]:
            tg.append(f"{'ok' if ok else 'MISS'} {label}" + ("" if ok else f" ({v:.2f})"))
        if "bw" in r:
            tg.insert(0, "bw " + ", ".join(f"{c} {v:.2f}" for c, v in r["bw"].items()))
        cells.append("; ".join(tg))
        out.append(cells)
    return head, out


def render(head, rows, markdown):
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        return "\n".join(lines)
    w = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    fmt = lambda cells: "  ".join(c.ljust(w[i]) if i < 2 or i == len(head) - 1 else c.rjust(w[i])
                                  for i, c in enumerate(cells)).rstrip()
    return "\n".join([fmt(head)] + [fmt(r) for r in rows])


def target_summary(rows):
    """One line per target: how many cases meet it, and the worst case."""
    by = {}
    for r in rows:
        for label, v, ok in r["checks"]:
            by.setdefault(label, []).append((v, ok, r))
    lines = ["# per target: met/cases, worst case"]
    for label, items in by.items():
        n_ok = sum(ok for _, ok, _ in items)
        worst = (min if label.startswith(">=") else max)(items, key=lambda x: x[0])
        w = worst[2]
        lines.append(f"#   {label:14s} {n_ok:4d}/{len(items):<4d} worst {worst[0]:.2f}: "
                     f"{w['group']} {w['case']} {fmt_size(w['size'])}")
    return "\n".join(lines)


def machine_info(ctx):
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    v = [f"numpy {np.__version__}"]
    if ml_dtypes is not None:
        v.append(f"ml_dtypes {ml_dtypes.__version__}")
    if ctx.jnp is not None:
        import jax
        v.append(f"jax {jax.__version__}")
    v.append(f"typelattice {getattr(ctx.tl, '__version__', '?')}")
    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, " + ", ".join(v)


GROUP_MAKERS = {"promote": cases_promote, "small": cases_small, "same": cases_same,
                "mixed": cases_mixed, "weak": cases_weak, "reduce": cases_reduce,
                "out": cases_out}


def _size_list(text):
    """--sizes: comma-separated counts, 1e5 allowed."""
    try:
        sizes = [int(float(x)) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give comma-separated element counts, e.g. 1,1e3,1e5") from None
    if any(n < 0 for n in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: sizes cannot be negative")
    return sizes


def build_parser(prog="python -m typelattice bench"):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--quick", action="store_true",
                   help="fast run: fewer ops, dtypes and repeats, sizes up to 1e5 (out= at 1e7)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table (README)")
    p.add_argument("--groups", type=lambda s: s.split(","), default=None,
                   help=f"comma-separated subset of: {','.join(GROUPS)}")
    p.add_argument("--ops", type=lambda s: s.split(","), default=None,
                   help="comma-separated ufunc names (default: every typelattice ufunc for "
                        "'same', a representative subset for the other groups)")
    p.add_argument("--dtypes", type=lambda s: s.split(","), default=None,
                   help="dtypes of the 'same' group")
    p.add_argument("--sizes", type=_size_list, default=None,
                   help="array sizes, e.g. 1,1e3,1e5,1e7")
    p.add_argument("--repeats", type=int, default=None,
                   help="interleaved rounds (default 7, quick 3; up to twice as many for cheap "
                        "cases, down to 3 for slow ones, within --budget)")
    p.add_argument("--sample", type=float, default=None,
                   help="target seconds per timing sample (calibrates calls per sample)")
    p.add_argument("--warm", type=float, default=None,
                   help="seconds of untimed calls before every sample (default 0.01, quick "
                        "0.002): steady-state memory bandwidth for every column")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds per case before repeats are cut (never below 3)")
    p.add_argument("--no-jax", dest="jax", action="store_false", help="skip jax.numpy")
    p.add_argument("--timer", choices=list(TIMERS), default="cpu",
                   help="cpu: process CPU time (default; time spent descheduled by other "
                        "processes on a shared machine is not counted), wall: perf_counter")
    p.add_argument("--json", metavar="PATH", help="also write the raw medians as JSON")
    p.add_argument("--list", action="store_true", help="list the cases without measuring")
    p.add_argument("--load", metavar="PATH",
                   help="print the table of a run saved with --json instead of measuring")
    return p


def main(argv=None, prog="python -m typelattice bench"):
    args = build_parser(prog).parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 7)
    args.sample = args.sample or (0.002 if args.quick else 0.005)
    args.budget = args.budget or (0.5 if args.quick else 1.0)
    args.warm = (0.002 if args.quick else 0.01) if args.warm is None else args.warm
    groups = args.groups or list(GROUPS)
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        print(f"unknown group(s) {', '.join(bad)}; choose from {', '.join(GROUPS)}",
              file=sys.stderr)
        return 2
    out = sys.stdout
    if args.load:
        try:
            with open(args.load) as f:
                saved = json.load(f)
            # (the shape --json writes)
            saved["machine"], saved["load"][1][0]
            [(r["group"], r["case"], r["size"]) for r in saved["rows"]]
        except OSError as exc:
            print(f"typelattice bench: error: --load: {exc}", file=sys.stderr)
            return 2
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            print(f"typelattice bench: error: --load {args.load}: not a run saved by --json "
                  f"({type(exc).__name__}: {exc})", file=sys.stderr)
            return 2
        rows = [r for r in saved["rows"]
                if (args.groups is None or r["group"] in args.groups)
                and (args.ops is None or r["group"] in ("promote", "reduce", "out")
                     or r["case"].split()[0] in args.ops)
                and (args.sizes is None or r["size"] is None or r["size"] in args.sizes)
                and (args.dtypes is None or r["group"] != "same"
                     or r["case"].split()[-1] in [short(dtype(d)) for d in args.dtypes])]
        print(f"# saved run: {saved['machine']}; load average {saved['load'][0][0]:.2f} at start,"
              f" {saved['load'][1][0]:.2f} at end", file=out)
        print(render(*table_rows(rows), args.markdown), file=out)
        print(target_summary(rows), file=out)
        return 0
    ctx = Context(args)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    print(f"# typelattice bench: {machine_info(ctx)}", file=out)
    print(f"# ratios are median(typelattice) / median(other), from {args.repeats} interleaved "
          f"rounds (fewer for slow cases); < 1: typelattice faster; timer: "
          f"{'process CPU time' if args.timer == 'cpu' else 'wall clock'}", file=out)
    if not ctx.ufuncs:
        print("# typelattice has no ufuncs in this build: only promotion is measured", file=out)
    rows = []
    n_skipped = 0
    group_time = {}
    failed = []
    with np.errstate(all="ignore"):
        for g in groups:
            tg = time.perf_counter()
            for case in GROUP_MAKERS[g](ctx):
                if args.list:
                    print(f"{case.group}\t{case.label}\t{fmt_size(case.size)}", file=out)
                    continue
                try:
                    row = run_case(case, args)
                except Exception as exc:          # reported, never silently dropped
                    failed.append(f"{case.group} {case.label} {fmt_size(case.size)}: "
                                  f"{type(exc).__name__}: {exc}")
                    continue
                if row is None:
                    n_skipped += 1
                    continue
                rows.append(row)
                if not args.markdown and sys.stderr.isatty():
                    print(f"\r{len(rows)} cases, {time.perf_counter() - t0:.0f} s",
                          end="", file=sys.stderr)
            ctx.data.clear()
            group_time[g] = time.perf_counter() - tg
    if sys.stderr.isatty() and not args.list:
        print("\r", end="", file=sys.stderr)
    if args.list:
        return 0
    head, cells = table_rows(rows)
    print(render(head, cells, args.markdown), file=out)
    load1 = os.getloadavg()
    met = sum(ok for r in rows for _, _, ok in r["checks"])
    missed = [(r, label, v) for r in rows for label, v, ok in r["checks"] if not ok]
    diffs = [r for r in rows if r["bits"].startswith("DIFF")]
    near = sorted({r["case"].split()[0] for r in rows if r["bits"].startswith("~")})
    print(f"\n# {len(rows)} cases in {time.perf_counter() - t0:.0f} s ({n_skipped} op/dtype "
          f"combinations not defined); load average {load0[0]:.2f} at start, {load1[0]:.2f} at "
          f"end on {os.cpu_count()} CPUs; seconds per group: "
          + ", ".join(f"{g} {t:.0f}" for g, t in group_time.items()), file=out)
    print(f"# targets: {met} met, {len(missed)} missed; results differing from the reference "
          f"by more than 8 ulp (or in NaN bits): {len(diffs)}; within 8 ulp, not bit for bit: "
          f"{sum(r['bits'].startswith('~') for r in rows)}"
          + (f" ({', '.join(near)}: transcendentals, ours and NumPy's SIMD functions differ in the"
             " last bits)" if near else ""),
          file=out)
    print(target_summary(rows), file=out)
    for f in failed:
        print(f"# FAILED {f}", file=out)
    if ctx.missing:
        print(f"# not measured, typelattice has no ufunc: {', '.join(ctx.missing)}", file=out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine_info(ctx), "load": [load0, load1], "rows": rows}, f,
                      indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
