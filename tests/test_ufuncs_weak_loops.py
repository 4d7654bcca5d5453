"""Weak loops (kernels/tl_weak.c): ``array_T op python_float`` computing in T (float16, bfloat16,
float32, complex64, complex128) reads NumPy's 0-d float64/complex128 array of the scalar and
converts the value to T inside the loop. Python ints keep NumPy's conversion (checked too).

Reference: NumPy's own conversion of the Python scalar into T (``np.asarray(s, T)``, its setitem;
for bfloat16 the float64/int64 -> bfloat16 cast of ml_dtypes, ``np.asarray(s).astype(bf16)``), then
the same-dtype call with that 0-d array. Values bit for bit, result dtypes, exceptions and their
messages, warnings, and which loop ran (a silent fallback to NumPy's conversion would pass the
value checks, so the loop kind is checked too).
"""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs
from ufunc_reference import ALL_OPS, compute_dtypes, expected

BF16 = np.dtype(ml_dtypes.bfloat16)
INTS = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")]
FLOATS = [np.dtype(np.float16), BF16, np.dtype(np.float32), np.dtype(np.float64)]
COMPLEXES = [np.dtype(np.complex64), np.dtype(np.complex128)]

# scalar values per kind: range limits, double-rounding probes (int -> float32 through double;
# int -> bfloat16 through float32 directly; float64 -> float16 directly, -> bfloat16 through
# float32), overflow, underflow, specials
INT_VALUES = [0, 1, -1, 2, 3, 7, -7, 127, 128, -128, -129, 255, 256, 32767, -32768, 65535, 65536,
              2**31 - 1, -2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**62 + 2**38 + 1,
              2**62 + 2**54 + 2**38 + 1, 2**63 - 1, -2**63, 65519, 65520, 70000]
FLOAT_VALUES = [0.0, -0.0, 1.5, -2.25, 0.1, 1 / 3, 1 + 2**-11 + 2**-30, 1 + 2**-8 + 2**-30,
                1 + 2**-24 + 2**-40, 65504.0, 65519.99, 65520.0, 3.4e38, 3.5e38, 1e300, -1e300,
                1e-8, 1e-40, 1e-300, 5e-324, float("inf"), -float("inf"), float("nan"),
                # float32's normal range ends (the narrowing's shortcut) and just beyond them
                2.0**-126, -(2.0**-126), 2.0**-126 * (1 - 2**-30), 3.4028234663852886e38,
                3.4028234663852886e38 * (1 + 2**-30), -3.4028235677973366e38]
COMPLEX_VALUES = [0j, 1.5 - 2j, 1e300 + 1j, 1j * 1e-300, complex(float("nan"), 1.0),
                  complex(1 + 2**-24 + 2**-40, -0.0)]


def _binary_ops():
    return [n for n in ALL_OPS if getattr(tl, n).nin == 2]


def _reference_scalar(s, t):
    """The 0-d array of dtype t NumPy makes of the Python scalar s (or the error it raises)."""
    if t == BF16:
        return np.asarray(s).astype(BF16)
    return np.asarray(s, dtype=t)


def _outcome(f):
    """(result, exception type and message, warning messages) of f()."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
            err = None
        except Exception as e:          # noqa: BLE001 - compared against the reference's
            r, err = None, (type(e), str(e))
            if isinstance(e, OverflowError) and e.__cause__ is not None:
                # typelattice's error for a Python int out of range, raised from NumPy's
                err = (type(e), str(e.__cause__), str(e))
    return r, err, sorted({str(x.message) for x in w})


def _same_bits(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def _applies(t, s):
    if isinstance(s, complex):
        return t.kind == "c"
    if isinstance(s, float):
        return t.kind in "fcV" or t == BF16
    return t.kind in "iufcV" or t == BF16


def _check(uf, x, s, side, errstate):
    args = (x, s) if side == 1 else (s, x)

    def reference():
        c = _reference_scalar(s, x.dtype)
        return uf(*((x, c) if side == 1 else (c, x)))

    with np.errstate(**errstate):
        got = _outcome(lambda: uf(*args))
        want = _outcome(reference)
    tag = f"{uf.__name__}{args if x.size < 4 else (x.dtype, s)[::side * 2 - 1]} {errstate}"
    if got[1] is not None and len(got[1]) == 3:
        assert f"the Python int does not fit {x.dtype}" in got[1][2], tag
        got = (got[0], got[1][:2], got[2])
    assert got[1] == want[1], tag
    assert got[2] == want[2], tag
    if want[1] is None:
        g, w = got[0], want[0]
        if not isinstance(w, tuple):
            g, w = (g,), (w,)
        assert all(_same_bits(a, b) for a, b in zip(g, w)), f"{tag}: {g} vs {w}"
    return got


SHORT = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
         "uint16": "u16", "uint32": "u32", "float16": "f16", "bfloat16": "bf16",
         "float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128"}
SCALAR_KIND = {int: "i*", float: "f*", complex: "c*"}
WEAK_TARGETS = {"float16", "bfloat16", "float32", "complex64", "complex128"}


@pytest.mark.parametrize("op", _binary_ops())
def test_weak_loops_every_op_and_type(op):
    """Every binary op, array type and side where JAX computes in the array's type T (the
    independent model of tests/ufunc_reference.py): the weak loop runs and equals NumPy's
    conversion of the scalar to T."""
    uf = getattr(tl, op)
    ran = 0
    for t in INTS + FLOATS + COMPLEXES:
        x = (np.arange(1, 6) * (1 if t.kind in "ui" else 0.75)).astype(t)
        for s in (3, 2.5, 1.5 - 0.5j):
            kinds = (SHORT[t.name], SCALAR_KIND[type(s)])
            want = expected(op, *kinds)
            if isinstance(want, type) or compute_dtypes(op, *kinds) != (t.name, t.name):
                continue
            for side in (0, 1):
                classes = (t, type(s)) if side == 1 else (type(s), t)
                got = _check(uf, x, s, side, {"all": "ignore"})
                if got[1] is not None:
                    continue                 # an error, the same as the reference's
                outs = tuple(r.dtype for r in (got[0] if uf.nout > 1 else (got[0],)))
                kind = _ufuncs.mixed_loop_kind(uf, classes + outs)
                weak = not isinstance(s, int) and t.name in WEAK_TARGETS \
                    and not (t.name == "complex128" and isinstance(s, complex))
                assert kind == ("weak" if weak else None), (op, t, s, side, kind)
                ran += weak
    # integer-only ops and ldexp (exponent in int64) meet no Python float computed in T
    assert ran > 0 or not any(compute_dtypes(op, SHORT[t.name], "f*") == (t.name, t.name)
                              for t in FLOATS if not isinstance(expected(op, SHORT[t.name], "f*"),
                                                                type)), op


@pytest.mark.parametrize("t", INTS + FLOATS + COMPLEXES, ids=str)
def test_weak_conversion_edges(t):
    """Edge values: range errors (ours, raised from NumPy's), double rounding, overflow "in cast" as a
    warning and under np.errstate(all="raise"), NaN, signed zero, subnormals."""
    values = list(INT_VALUES)
    if t.kind in "fcV" or t == BF16:
        values += FLOAT_VALUES
    if t.kind == "c":
        values += COMPLEX_VALUES
    x = np.array([1, 2, 0, 3], t)
    for uf in (tl.add, tl.multiply, tl.less, tl.maximum):
        for s in values:
            for side in (0, 1):
                for es in ({}, {"all": "raise"}, {"all": "ignore"}):
                    _check(uf, x, s, side, es)


def test_weak_errors_leave_out_untouched():
    x = np.arange(4, dtype=np.int8)
    out = np.full(4, 9, np.int8)
    with pytest.raises(OverflowError, match="Python int 300.*does not fit int8") as e:
        tl.add(x, 300, out=out)
    assert str(e.value.__cause__) == "Python integer 300 out of bounds for int8"
    assert (out == 9).all()
    f = np.ones(4, np.float32)
    fo = np.full(4, 9, np.float32)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow .* cast"):
        tl.multiply(f, 1e300, out=fo)
    assert (fo == 9).all()


def test_weak_loops_layouts_and_methods():
    """Non-contiguous and broadcast operands, where=, out=, ufunc.at, threads."""
    rng = np.random.default_rng(7)
    for t in (np.dtype(np.int16), np.dtype(np.float32), np.dtype(np.float16), BF16,
              np.dtype(np.complex64)):
        a = (rng.standard_normal((6, 9)) * 50).astype(t)
        s = 3 if t.kind in "iu" else 1.25
        c = _reference_scalar(s, t)
        for x in (a, a[:, ::2], a.T, a[::-1], a[2:3]):
            for uf in (tl.subtract, tl.divide if t.kind not in "iu" else tl.floor_divide):
                with np.errstate(all="ignore"):
                    assert _same_bits(uf(x, s), uf(x, c))
                    assert _same_bits(uf(s, x), uf(c, x))
        mask = rng.random(a.shape) < 0.5
        o1 = np.zeros(a.shape, t)
        o2 = np.zeros(a.shape, t)
        tl.add(a, s, out=o1, where=mask)
        tl.add(a, c, out=o2, where=mask)
        assert _same_bits(o1, o2)
        b1, b2 = a.copy(), a.copy()
        idx = [0, 1, 1, 5]
        tl.add.at(b1, idx, s)
        tl.add.at(b2, idx, c)
        assert _same_bits(b1, b2)
    big = rng.standard_normal(1 << 18).astype(np.float32)
    one = tl.multiply(big, 0.1)
    with tl.threads(2):
        assert _same_bits(tl.multiply(big, 0.1), one)
    assert _same_bits(one, tl.multiply(big, np.float32(0.1)))


def test_weak_loops_are_not_used_for_strong_float64():
    """A float64 array is not a Python float: float32 + float64 array still computes in float64,
    also with an float32 out= (the weak loop's DTypes hold the abstract Python-float DType)."""
    x = np.full(3, 1 + 2**-23, np.float32)
    y = np.full(3, 2**-24 + 2**-40)
    assert tl.add(x, y).dtype == np.float64
    out = np.zeros(3, np.float32)
    tl.add(x, y, out=out)
    assert _same_bits(out, (x.astype(np.float64) + y).astype(np.float32))
    assert _same_bits(tl.add(x, float(y[0])), x + np.float32(y[0]))


def test_python_ints_keep_numpys_conversion():
    """NumPy replaces a Python int's 0-d array in every call (its legacy type resolvers need it),
    so ints have no weak loop: a float array + a Python int beyond int64 converts as NumPy."""
    x = np.ones(2, np.float32)
    assert _same_bits(tl.add(x, 2**70), x + np.float32(2**70))
    assert _ufuncs.mixed_loop_kind(tl.add, (np.float32, int, np.float32)) is None
    u = np.array([1, 2], np.uint64)
    assert _same_bits(tl.add(u, 2**63), np.array([2**63 + 1, 2**63 + 2], np.uint64))
