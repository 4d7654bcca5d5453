"""ufunc methods and keyword arguments: reduce, accumulate, reduceat, outer, at, out=, where=,
dtype=, signature=, casting=, order=; strides, byte order, alignment, overlap; hypothesis over
shapes, strides and operand dtypes. References: NumPy's own ufunc on the operands cast to the
compute dtype given by the independent model in ufunc_reference.py."""
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typelattice as tl
from test_ufuncs_values import assert_same, reference
from typelattice import _ufuncs
from ufunc_reference import (ALL_OPS, ARRAY_KINDS, COMPLEX_JAX, LONG, SCALAR_KINDS, complex_ref,
                             compute_dtypes, dtype, expected, operand)

BF16 = np.dtype(ml_dtypes.bfloat16)
REDUCIBLE = ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "bitwise_and",
             "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "gcd",
             "lcm", "subtract", "divide", "power", "arctan2", "hypot"]
FLOATS = [np.float16, np.float32, np.float64, BF16]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind in "fc" or got.dtype == BF16:
        g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
        w = want.astype(g.dtype)
        assert np.array_equal(g, w, equal_nan=True), (got, want)
        nan = np.isnan(g.real)          # NaN payloads and signs aside
        assert np.array_equal(np.signbit(g.real)[~nan], np.signbit(w.real)[~nan])
    else:
        assert np.array_equal(got, want), (got, want)


def _sample(dt, shape, rng):
    dt = np.dtype(dt)
    if dt == bool:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(1 if dt.kind == "u" else -9, 10, shape).astype(dt)
    v = rng.integers(-8, 9, shape) / 4
    if dt.kind == "c":
        v = v + 1j * rng.integers(-8, 9, shape) / 4
    return v.astype(dt)


# -- reduce ---------------------------------------------------------------------------------------
def _same_dtype_reductions():
    """(op, kind) pairs whose reduction NumPy runs in the operand's own dtype, as ours does
    (the other pairs reduce in another dtype, compared in test_reduce_integer_upcast_like_numpy_sum)."""
    for name in REDUCIBLE:
        for kind in ARRAY_KINDS:
            want = expected(name, kind, kind)
            if name in ("logical_and", "logical_or", "logical_xor"):
                if kind == "b":
                    yield name, kind
            elif not isinstance(want, type) and want[0] == LONG[kind]:
                yield name, kind


@pytest.mark.parametrize("name,kind", list(_same_dtype_reductions()))
def test_reduce_matches_numpy(name, kind):
    """reduce over each axis, all axes (reorderable ops), keepdims; same dtype as NumPy."""
    uf, ref = getattr(tl, name), getattr(np, name)
    x = _sample(dtype(LONG[kind]), (3, 4, 5), np.random.default_rng(1))
    if name in COMPLEX_JAX and x.dtype.kind == "c":
        ref = _ComplexJaxRef(name)
    if name in ("power",):
        x = np.abs(x) % 3 if x.dtype.kind != "c" else x
    axes = [0, 1, 2, -1, None] + ([(0, 2)] if uf.identity is not None
                                  or name in ("maximum", "minimum", "fmax", "fmin") else [])
    with np.errstate(all="ignore"):
        for axis in axes:
            for kw in ({}, {"keepdims": True}):
                try:
                    want = ref.reduce(x, axis=axis, **kw)
                    if name in ("power", "arctan2") and x.dtype in (np.float32, np.float64):
                        # NumPy 2.4's SIMD power/arctan2 loops ignore the reduction's running
                        # value (np.power.reduce([2., 3., 2.]) is 4.0); fold explicitly instead
                        want = _fold(ref, x, axis, **kw)
                except ValueError as exc:   # not reorderable: NumPy refuses several axes
                    with pytest.raises(ValueError, match="reorderable"):
                        uf.reduce(x, axis=axis, **kw)
                    assert "reorderable" in str(exc)
                    continue
                assert_same(uf.reduce(x, axis=axis, **kw), want, name, f"{name} axis={axis}")


class _ComplexJaxRef:
    """reduce of arctan2/logaddexp/logaddexp2 on complex, which NumPy has no loop for: the left
    fold of JAX's definition (complex_ref) in C order over the reduced axes; several axes only
    for the reorderable logaddexp/logaddexp2, as NumPy allows."""

    def __init__(self, name):
        self.name = name

    def reduce(self, x, axis=0, keepdims=False):
        axes = tuple(range(x.ndim)) if axis is None else (axis,) if np.ndim(axis) == 0 else axis
        axes = tuple(a % x.ndim for a in axes)
        if len(axes) > 1 and self.name == "arctan2":
            raise ValueError("reduction operation 'arctan2' is not reorderable, so at most one "
                             "axis may be specified")
        rest = [n for i, n in enumerate(x.shape) if i not in axes]
        xs = np.moveaxis(x, axes, range(len(axes))).reshape([-1] + rest)
        acc = xs[0]
        for v in xs[1:]:
            acc = complex_ref(self.name, acc, v)
        return np.expand_dims(acc, axes) if keepdims else acc


def _fold(f, x, axis, keepdims=False):
    """Left fold of the binary function f along one axis (the definition of reduce)."""
    xs = np.moveaxis(x, axis, 0)
    acc = xs[0]
    for v in xs[1:]:
        acc = f(acc, v)
    return np.expand_dims(acc, axis) if keepdims else acc


def test_non_reorderable_reduce_is_a_left_fold():
    x = np.array([2.0, 3.0, 2.0])
    assert tl.power.reduce(x) == 64.0          # NumPy 2.4 gives 4.0 here (see above)
    assert tl.power.reduce(x.astype(np.float32)) == 64.0
    assert tl.arctan2.reduce(x) == np.arctan2(np.arctan2(2.0, 3.0), 2.0)
    _same(tl.power.accumulate(x), np.power.accumulate(x))


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.float16, np.float32, np.float64, BF16,
                                np.complex64, bool])
def test_reduce_empty_where_initial(dt):
    x = _sample(dt, (4, 6), np.random.default_rng(2))
    mask = np.random.default_rng(3).integers(0, 2, (4, 6)).astype(bool)
    mask[0] = False
    for name in ("add", "multiply"):
        uf, ref = getattr(tl, name), getattr(np, name)
        _same(uf.reduce(x[:, :0], axis=1), ref.reduce(x[:, :0], axis=1))
        _same(uf.reduce(x, axis=1, where=mask), ref.reduce(x, axis=1, where=mask))
        _same(uf.reduce(x, axis=0, initial=3), ref.reduce(x, axis=0, initial=3))
    if np.dtype(dt).kind in "biu":
        _same(tl.bitwise_and.reduce(x[:0], axis=0), np.bitwise_and.reduce(x[:0], axis=0))
    with pytest.raises(ValueError, match="identity"):
        tl.maximum.reduce(x[:, :0], axis=1)
    with pytest.raises(ValueError, match="initial"):
        tl.maximum.reduce(x, axis=1, where=mask)
    init = 0 if np.dtype(dt).kind in "ub" else -5
    _same(tl.maximum.reduce(x, axis=1, where=mask, initial=init),
          np.maximum.reduce(x, axis=1, where=mask, initial=init))


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                np.int64, np.uint64, np.float32, np.float64])
def test_minmax_reduce_every_row_length(dt):
    """maximum/minimum/fmax/fmin along rows of every length up to past four vectors, from an
    unaligned start: the SIMD kernels' one-vector steps and their overlapping last vector (the
    extreme often in the last or first element), NaNs in some float rows; NumPy's bits.
    (No zeros: which zero fmax/fmin keep among +0 and -0 is NumPy's lane order.)"""
    rng = np.random.default_rng(np.dtype(dt).num)
    for n in range(1, 140):
        if np.dtype(dt).kind == "f":
            x = (rng.random((6, n + 1)) + 0.25) * rng.choice([-1.0, 1.0], (6, n + 1))
            x = x.astype(dt)
            x[1, 1 + rng.integers(0, n)] = np.nan
            x[2, -1] = np.nan
            x[3, 1] = np.inf
        else:
            info = np.iinfo(dt)
            x = rng.integers(info.min, info.max, (6, n + 1), dtype=dt, endpoint=True)
            x[1, -1], x[2, 1] = info.max, info.min
        rows = x[:, 1:]                      # one element past the allocation's alignment
        for name in ("maximum", "minimum", "fmax", "fmin"):
            with np.errstate(invalid="ignore"):
                _same(getattr(tl, name).reduce(rows, axis=1),
                      getattr(np, name).reduce(rows, axis=1))
                _same(getattr(tl, name).reduce(rows[3]), getattr(np, name).reduce(rows[3]))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_minmax_reduce_strided_across_blocks(dt):
    """maximum/minimum/fmax/fmin.reduce of strided views (the contiguous kernel runs on copied
    blocks of 4096 bytes, each folding on the last one's result), NaNs in any block, the extreme
    anywhere. (No zeros: which of +0.0/-0.0 NumPy keeps in a strided reduction is the lane order
    of its strided SIMD loop.)"""
    rng = np.random.default_rng(11)
    for n in (31, 32, 33, 511, 512, 513, 1025, 5000):
        for k in range(6):
            x = (rng.random(3 * n) + 0.25).astype(dt) * rng.choice([-1, 1], 3 * n).astype(dt)
            if k % 2:
                x[rng.integers(0, 3 * n, 2)] = np.nan
            if k >= 4:
                x[rng.integers(0, 3 * n, 3)] = rng.choice(np.array([9.0, -9.0, np.inf], dt), 3)
            for v in (x[::3], x[::-2], x[1::2]):
                for name in ("maximum", "minimum", "fmax", "fmin"):
                    with np.errstate(invalid="raise"):
                        _same(getattr(tl, name).reduce(v), getattr(np, name).reduce(v))


def test_reduce_pairwise_summation_bit_exact():
    rng = np.random.default_rng(4)
    for dt in (np.float16, np.float32, np.float64):
        for n in (1, 7, 8, 9, 127, 128, 129, 1000, 8193, 100_000):
            x = (rng.normal(size=n) * 100).astype(dt)
            with np.errstate(over="ignore"):
                _same(tl.add.reduce(x), np.add.reduce(x))
                _same(tl.add.reduce(x[::-3]), np.add.reduce(x[::-3]))
                _same(tl.multiply.reduce(x[:50] / 64), np.multiply.reduce(x[:50] / 64))
    for dt in (np.complex64, np.complex128):
        for n in (1, 3, 4, 5, 63, 64, 65, 1000, 8193, 50_000):
            x = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dt) * 100
            _same(tl.add.reduce(x), np.add.reduce(x))
            _same(tl.add.reduce(x[::-3]), np.add.reduce(x[::-3]))
            X = x[: n - n % 4].reshape(-1, 4) if n >= 4 else x[None]
            _same(tl.add.reduce(X, axis=0), np.add.reduce(X, axis=0))
            _same(tl.add.reduce(X, axis=1), np.add.reduce(X, axis=1))
    # sum of -0.0 is 0.0 as in NumPy (the identity is +0.0)
    _same(tl.add.reduce(np.array([-0.0])), np.add.reduce(np.array([-0.0])))


def test_reduce_integer_upcast_like_numpy_sum():
    """NumPy's add/multiply reductions of small ints and bool use the default int (as jnp.sum's
    promote_integers): typelattice keeps that."""
    for dt in (bool, np.int8, np.uint16, np.int32):
        x = np.ones(5, dt)
        _same(tl.add.reduce(x), np.add.reduce(x))
        _same(tl.multiply.reduce(x), np.multiply.reduce(x))
        _same(tl.add.reduce(x, dtype=dt), np.add.reduce(x, dtype=dt))
        _same(tl.add.accumulate(x), np.add.accumulate(x))


def _outcome(f):
    try:
        return f()
    except TypeError as exc:
        return exc


_REDUCE_DT = ["bool", "int8", "uint8", "int32", "uint64", "float16", "float32", "float64",
              "complex64"]


@pytest.mark.parametrize("name", ["add", "maximum", "subtract", "equal", "less", "logical_and",
                                  "bitwise_or"])
def test_reduce_dtype_never_depends_on_earlier_calls(name):
    """reduce/accumulate with and without dtype=: NumPy's value (its operand cast to dtype) or a
    TypeError naming the call, the same before and after plain calls on the (dtype, x) pair
    registered their mixed loops (NumPy looks both up under the same DTypes)."""
    uf, ref = getattr(tl, name), getattr(np, name)
    for a in _REDUCE_DT:
        x = np.array([1, 8, 2, 0, 3], a)
        for d in [None] + _REDUCE_DT:
            for meth in ("reduce", "accumulate"):
                def run(meth=meth, d=d):
                    return getattr(uf, meth)(x, dtype=d)
                before = _outcome(run)
                with np.errstate(all="ignore"):
                    for fast in (True, False):       # our call path and NumPy's dispatch
                        _ufuncs.set_fastcall(fast)
                        try:
                            uf(np.ones(3, d or a), x[:3])
                        except (TypeError, ValueError):
                            pass
                    _ufuncs.set_fastcall(None)
                after = _outcome(run)
                msg = (name, meth, a, d)
                with warnings.catch_warnings():     # x's values are real: no part is lost
                    warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                    want = _outcome(lambda: getattr(ref, meth)(x.astype(d) if d else x, dtype=d))
                if isinstance(before, TypeError):
                    assert name in str(before), (msg, before)
                    assert isinstance(after, TypeError), msg
                    continue
                # (accumulate refuses a registered mixed (d, x) -> d loop: the method retries
                # on x cast to d)
                assert not isinstance(after, TypeError), (msg, after)
                assert not isinstance(want, TypeError), msg
                for got in (before, after):
                    if not isinstance(got, TypeError):
                        _same(got, want)


@pytest.mark.parametrize("prime", [False, True], ids=["first", "after-mixed-call"])
def test_reduce_dtype_beyond_a_buffer_is_the_pairwise_sum_of_the_cast(prime):
    """add.reduce/accumulate of a float16 array with dtype=float32 beyond NumPy's 8192-element
    buffer: the pairwise sum of the operand cast to float32, bit for bit
    (np.add.reduce(x.astype(float32)); NumPy's own dtype= sums each buffer apart, the last bits
    differ), in a fresh process, as the first call and after mixed calls registered the
    (float32, float16) loop NumPy's cache gives the same DTypes."""
    code = f"""if True:
        import numpy as np, typelattice as tl
        x = (np.random.default_rng(1).standard_normal(100_000) * 100).astype(np.float16)
        t = np.ones(len(x), np.float32)
        if {prime}:
            tl.add(t, x); tl.add(t, x, out=t); tl.add(x, t, dtype=np.float32)
        c = x.astype(np.float32)
        r = tl.add.reduce(x, dtype=np.float32)
        print(r.tobytes() == np.add.reduce(c).tobytes(),
              r.tobytes() != np.add.reduce(x, dtype=np.float32).tobytes(),
              tl.add.accumulate(x, dtype=np.float32).tobytes() == np.add.accumulate(c).tobytes())
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"], out


def test_partial_signature_in_a_fresh_process():
    """A signature fixing one input, before any call filled NumPy's dispatch cache: ldexp keeps
    its (float, int) loop; a signature naming an operand's own dtype takes the plain call's
    loop, which reads that input in that type (uint8 + int8 is int16, as after a plain call,
    whose cached answer NumPy gives it: test_a_signature_of_the_operands_own_types_...); a
    comparison's reduce of a non-bool array raises a TypeError naming the call; a dtype= the
    plain call's loop gives takes it (uint8 + int8 with dtype=int16, NumPy's add's value). A
    reduction's dtype= casts the operand, as NumPy's (the float64 sum in float32)."""
    code = """if True:
        import numpy as np, typelattice as tl
        x = np.float32([1.5])
        print(tl.ldexp(x, np.int8([3]), signature=(np.float32, None, None)).tolist())
        r = tl.add.reduce(np.float64([1.5, 2.25]), dtype=np.float32)
        print(repr(r))
        print(tl.add(np.uint8([1]), np.int8([1]), signature=(np.uint8, None, None)).dtype)
        try:
            tl.less.reduce(np.float32([3, 2, 1]))
        except TypeError as e:
            print(str(e).split(":")[0])
        print(tl.add.reduce(np.float32([1.5, 2.25]), dtype=np.float64))
        r = tl.add(np.uint8([200]), np.int8([-1]), dtype=np.int16)
        print(repr(r) == repr(np.add(np.uint8([200]), np.int8([-1]))))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:6] == ["[12.0]", repr(np.float32(3.75)), "int16",
                                          "jax.less.reduce(float32 array)", "3.75",
                                          "True"]


# -- accumulate, reduceat, outer, at --------------------------------------------------------------
def _accumulate_cases():
    kind_of = {dtype(LONG[k]): k for k in ARRAY_KINDS}
    for name in ["add", "multiply", "maximum", "fmin", "subtract", "bitwise_xor", "logical_and",
                 "floor_divide"]:
        for dt in [np.int16, np.uint8, np.float16, np.float32, BF16, np.complex128, bool]:
            k = kind_of[np.dtype(dt)]
            want = expected(name, k, k)
            if not isinstance(want, type) and (want[0] == np.dtype(dt).name
                                               or name == "logical_and"):
                yield name, dt


@pytest.mark.parametrize("name,dt", list(_accumulate_cases()))
def test_accumulate_and_reduceat(name, dt):
    uf, ref = getattr(tl, name), getattr(np, name)
    x = _sample(dt, (4, 5), np.random.default_rng(5))
    if name == "floor_divide":
        x[x == 0] = 1
    with np.errstate(all="ignore"):
        for axis in (0, 1):
            _same(uf.accumulate(x, axis=axis), ref.accumulate(x, axis=axis))
            _same(uf.reduceat(x, [0, 2, 3], axis=axis), ref.reduceat(x, [0, 2, 3], axis=axis))


def test_outer_uses_the_lattice_for_arrays():
    a = np.arange(3, dtype=np.int8)
    b = np.arange(4, dtype=np.uint8)
    r = tl.add.outer(a, b)
    assert r.dtype == np.int16 and r.shape == (3, 4)
    _same(r, np.add.outer(a.astype(np.int16), b.astype(np.int16)))
    q, m = tl.divmod.outer(a + 1, b[1:])
    _same(q, np.floor_divide.outer(a + 1, b[1:]).astype(np.int16))
    _same(m, np.remainder.outer((a + 1).astype(np.int16), b[1:].astype(np.int16)))
    assert tl.add.outer(np.ones(2, BF16), np.ones(2, np.float16)).dtype == np.float32


@pytest.mark.parametrize("name", ALL_OPS)
def test_outer_takes_a_python_scalar_as_weak(name):
    """uf.outer(x, 3) is jnp's weak rule (int8 outer 3 is int8; NumPy's outer would make 3 a
    strong int64 array). Reference: the model's result dtype of every array kind with each Python
    scalar kind, both orders, and NumPy's outer of the operands cast to the compute dtypes."""
    uf = getattr(tl, name)
    bad = []
    for a in ARRAY_KINDS:
        for s in SCALAR_KINDS:
            for pair in ((a, s), (s, a)):
                want = expected(name, *pair)
                x, y = (operand(k, (1, 2, 3)) for k in pair)
                try:
                    with np.errstate(all="ignore"):
                        got = uf.outer(x, y)
                except Exception as exc:  # noqa: BLE001
                    if not (isinstance(want, type) and isinstance(exc, want)):
                        bad.append(f"{pair}: want {want}, raised {exc!r}")
                    continue
                got = got if isinstance(got, tuple) else (got,)
                if isinstance(want, type) or tuple(g.dtype.name for g in got) != want:
                    bad.append(f"{pair}: want {want}, got {[g.dtype for g in got]}")
                    continue
                cx, cy = (np.asarray(v).astype(dtype(c))
                          for v, c in zip((x, y), compute_dtypes(name, *pair)))
                with np.errstate(all="ignore"):
                    want_v = reference(name, cx, cy, None)      # (a 0-d operand: the outer)
                want_v = want_v if isinstance(want_v, tuple) else (want_v,)
                for g, w in zip(got, want_v):
                    with np.errstate(all="ignore"):     # (ulp distances of extremes)
                        assert_same(g, w.astype(g.dtype), name, f"{name}.outer{pair}", cx, cy)
    assert not bad, "\n".join(bad)


def test_outer_of_a_python_scalar_is_the_plain_call():
    a = np.arange(3, dtype=np.int8)
    _same(tl.add.outer(a, 1), tl.add(a, 1))
    _same(tl.add.outer(np.ones(2, np.float16), 2.5), np.full(2, 3.5, np.float16))
    _same(tl.add.outer(2.5, np.ones(2, BF16)), np.full(2, 3.5, BF16))
    with pytest.raises(OverflowError, match="300"):
        tl.add.outer(a, 300)
    out = np.zeros(3, np.int16)
    assert tl.add.outer(a, 3, out=out) is out
    _same(out, np.array([3, 4, 5], np.int16))
    m = tl.add.outer(np.ma.array(a, mask=[0, 1, 0]), 3)       # (a masked array stays one)
    assert isinstance(m, np.ma.MaskedArray) and m.dtype == np.int8
    assert m.mask.tolist() == [False, True, False]
    with pytest.raises(TypeError, match="matrix"), warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        tl.add.outer(np.matrix([[1]]), 3)                       # (NumPy's outer refuses one)
    # .at writes into the first operand, so the dtype is the array's either way
    x = np.zeros(3, np.int8)
    tl.add.at(x, [0, 0, 2], 1)
    _same(x, np.array([2, 0, 1], np.int8))


@pytest.mark.parametrize("dt", [np.int8, np.uint64, np.float16, np.float32, BF16, np.complex64,
                                bool])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_or",
                                  "subtract", "fmax"])
def test_at_matches_numpy(dt, name):
    uf, ref = getattr(tl, name), getattr(np, name)
    if dt == bool and name == "subtract" or name == "bitwise_or" and np.dtype(dt).kind in "fcV":
        x = np.ones(3, dt)
        with pytest.raises(TypeError):
            uf.at(x, [0, 1], x[:2])
        assert np.array_equal(x, np.ones(3, dt))    # the user's data is untouched
        return
    rng = np.random.default_rng(6)
    base = _sample(dt, (6,), rng)
    idx = np.array([0, 1, 1, -1, 5, 0, 3])
    vals = _sample(dt, (7,), rng)
    x, y = base.copy(), base.copy()
    uf.at(x, idx, vals)
    ref.at(y, idx, vals)
    _same(x, y)
    x2, y2 = np.tile(base, (2, 1)), np.tile(base, (2, 1))
    uf.at(x2, (1, idx[:3]), vals[:3])
    ref.at(y2, (1, idx[:3]), vals[:3])
    _same(x2, y2)


@pytest.mark.parametrize("dt", [np.int8, np.uint64, np.int64, np.float16, np.float32, BF16,
                                np.complex64, ml_dtypes.float8_e4m3fn, ml_dtypes.int4])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "bitwise_or"])
def test_at_takes_a_python_scalar_as_the_plain_call_does(dt, name):
    """at(a, i, v) with a Python scalar v of a kind the plain call takes in a's dtype T computes
    NumPy's T loop on v converted to T (NumPy's own at would compute uint64 + 1 in float64 and
    float16 + 0.1 in float64, rounding twice; it refused int4 + 3). Reference: NumPy's ufunc on v
    cast to T, index by index, and for uint64 Python's exact integers modulo 2**64."""
    uf, ref = getattr(tl, name), getattr(np, name)
    t = np.dtype(dt)
    if name == "bitwise_or" and t.kind not in "iu" and t != ml_dtypes.int4:
        return
    v = {"i": 3, "u": 3}.get(t.kind, 0.1 if t.kind != "c" else 0.1 - 0.3j)
    if t == ml_dtypes.int4:
        v = 3
    rng = np.random.default_rng(3)
    base = _sample(dt, (6,), rng) if t != ml_dtypes.int4 else np.array([1, -2, 3, 0, -8, 7], t)
    idx = np.array([0, 1, 1, -1, 5, 0, 3])
    x, y = base.copy(), base.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # (overflow: checked below)
        uf.at(x, idx, v)
        cv = np.array(v, t) if type(v) is int else np.asarray(v).astype(t)
        for i in idx % len(y):  # (NumPy's at of complex64 multiply rounds otherwise than its call)
            if t == ml_dtypes.int4:     # (NumPy has no int4 loops: in int8, wrapped back)
                y[i] = ref(y[i:i + 1].astype(np.int8), np.int8(v)).astype(t)[0]
            else:
                y[i] = ref(y[i:i + 1], cv)[0]
    _same(x, y)
    if t == np.uint64 and name in ("add", "subtract", "multiply"):
        big = np.array([2**63 + 1, 2**64 - 2, 5], np.uint64)
        got = big.copy()
        uf.at(got, [0, 1, 1, 2], 3)
        want = [int(e) for e in big]
        f = {"add": lambda a: a + 3, "subtract": lambda a: a - 3, "multiply": lambda a: a * 3}
        for i in (0, 1, 1, 2):
            want[i] = f[name](want[i]) % 2**64
        assert got.tolist() == want


@pytest.mark.parametrize("dt", [np.float16, np.float32, BF16, ml_dtypes.float8_e4m3fn])
def test_ldexp_at_with_an_exponent_beyond_int64_raises_the_plain_calls_error(dt):
    """ldexp takes a Python int exponent as int64: beyond it, at raises the class of error the
    plain call raises (beside bfloat16 it raised ml_dtypes' TypeError for a conversion to
    bfloat16 that never happens), the array untouched."""
    for v in (2**63, -2**63 - 1, 2**64):
        x = np.ones(3, dt)
        with pytest.raises(Exception) as plain:
            tl.ldexp(x, v)
        with pytest.raises(type(plain.value)):
            tl.ldexp.at(x, [0], v)
        assert x.astype(np.float32).tolist() == [1, 1, 1]


def test_at_with_a_python_scalar_warns_and_raises_as_the_plain_call():
    x = np.ones(3, np.float16)
    with pytest.warns(RuntimeWarning, match="overflow"):
        tl.add(x, 1e6)
    with pytest.warns(RuntimeWarning, match="overflow"):
        tl.add.at(x, [0], 1e6)
    _same(x, np.array([np.inf, 1, 1], np.float16))
    s = np.array([1, 2, 3], ml_dtypes.int4)
    with pytest.raises(OverflowError, match=r"jax.add.at\(int4 array, indices, 30\): the Python "
                       r"int does not fit int4.*rule set 'jax'"):
        tl.add.at(s, [0], 30)
    _same(s, np.array([1, 2, 3], ml_dtypes.int4))           # untouched
    # an int outside an int8..uint32 array's range: the plain call's OverflowError, the array
    # untouched (NumPy's at would compute in int64 and wrap); np.int64(v) asks for the wrap
    for t, v in ((np.int8, 300), (np.int8, -129), (np.uint8, 256), (np.int16, 2**15),
                 (np.uint16, -1), (np.int32, -2**31 - 1), (np.uint32, -7)):
        a = np.array([5, 2], t)
        with pytest.raises(OverflowError):
            tl.add(a, v)                                    # (the plain call's verdict)
        with pytest.raises(OverflowError, match=rf"jax.add.at\({np.dtype(t)} array, indices, "
                           rf"{v}\): the Python int does not fit {np.dtype(t)}.*np.int64\({v}\)"):
            tl.add.at(a, [0], v)
        assert a.tolist() == [5, 2]
        tl.add.at(a, [0], np.int64(v))
        assert a.tolist() == [np.array(5 + v).astype(t).item(), 2]     # (NumPy's wrap)
    # a bool array takes an int in int64 (bool|i*), jax32's int64 array in int32 (it reads it
    # so): the plain call's OverflowError (NumPy's at computed; jax32's wrapped silently)
    j32 = tl.make_ufuncs("jax32")["add"]
    for uf, a, v, fit in ((tl.add, np.array([True, False]), 2**63, "int64"),
                          (j32, np.array([1, 2], np.int64), 2**40, "int32"),
                          (j32, np.array([1, 2], np.uint64), 2**32, "uint32")):
        before = a.copy()
        with pytest.raises(OverflowError):
            uf(a, v)
        with pytest.raises(OverflowError, match=f"does not fit {fit}, the dtype it takes there"):
            uf.at(a, [0], v)
        _same(a, before)
    x = np.array([1, 2], np.int64)
    j32.at(x, [0, 1], 5)
    assert x.tolist() == [6, 7]
    f = np.array([1.0, 2.0])
    tl.make_ufuncs("jax32")["add"].at(f, [0], 0.1)          # (float64 read as float32)
    assert f[0] == np.float64(np.float32(1) + np.float32(0.1))
    # beside int64/uint64 NumPy's at would compute in float64: the plain call's OverflowError
    for t, v in ((np.uint64, -1), (np.int64, 2**63), (np.uint64, 2**64 - 1 + 1)):
        big = np.array([2**53 + 1, 7], t)
        with pytest.raises(OverflowError, match=f"does not fit {np.dtype(t)}"):
            tl.add.at(big, [0], v)
        assert big.tolist() == [2**53 + 1, 7]
    with pytest.raises(OverflowError, match="does not fit int8"):
        tl.add.at(np.ones(2, np.int8), [0], 2**70)      # (NumPy's at: an object array)
    b = np.ones(2, BF16)
    with pytest.raises(TypeError, match=r"at\(bfloat16 array, Python int .*only within int64"):
        tl.add.at(b, [0], 2**70)
    _same(b, np.ones(2, BF16))
    u32 = np.array([5, 2**32 - 1], np.uint32)       # int64 holds both: NumPy's exact wrap
    tl.add.at(u32, [0, 1], np.int64(-7))
    assert u32.tolist() == [(5 - 7) % 2**32, (2**32 - 1 - 7) % 2**32]
    # a kind the plain call does not take in the array's dtype: NumPy's at, cast back
    i8 = np.array([1, 2], np.int8)
    tl.add.at(i8, [0, 1], 2.5)
    _same(i8, np.array([3, 4], np.int8))
    # the bitwise op on a uint64 array with a Python int (NumPy's at: a float64 loop, refused)
    u = np.zeros(2, np.uint64)
    tl.bitwise_or.at(u, [0, 0, 1], 2**63 + 1)
    assert u.tolist() == [2**63 + 1, 2**63 + 1]


# -- keyword arguments ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift", "gcd", "lcm"])
def test_dtype_of_an_integer_op_whose_join_is_a_float(name):
    """An integer-only op of int64 and uint64 (their join float64 under jax) with dtype=int64 or
    an output-fixing signature computes in int64, as signature=(int64, int64, int64) and NumPy's
    call do (it raised that the op takes no floating operands); a float dtype= still raises."""
    a, b = np.array([12, -6, 7, 0], np.int64), np.array([3, 2, 5, 9], np.uint64)
    uf, ref = getattr(tl, name), getattr(np, name)
    want = ref(a, b.astype(np.int64))
    for kw in ({"dtype": np.int64}, {"signature": (None, None, np.int64)},
               {"signature": (np.int64,) * 3}):
        _same(uf(a, b, **kw), want)
        _same(uf(b, a, **kw), ref(b.astype(np.int64), a))
    error = ValueError if name in ("gcd", "lcm") else TypeError     # (as jax.numpy's)
    with pytest.raises(error, match="floating"):
        uf(a, b)
    with pytest.raises(error, match=f"jax.{name}"):
        uf(a, b, dtype=np.float64)
    # only integers: floats, complex and bools stay refused with the op's own error, also where
    # NumPy's casting to an ml_dtypes int would pass (complex -> int4 is same_kind there), and
    # a fixed type without ops of its own under the rule set raises the op's error too (it
    # leaked an internal exception)
    f, c, t = np.array([1.5, 2.5], np.float32), np.array([1 + 2j, 3 - 4j], np.complex64), \
        np.array([True, False])
    for x, y, kw, what in ((f, a, {"dtype": np.int64, "casting": "unsafe"}, "floating"),
                           (c, a, {"dtype": ml_dtypes.int4}, "complex"),
                           (a, f.astype(BF16), {"signature": (None, None, ml_dtypes.int4)},
                            "floating"),
                           (t, t, {"dtype": np.int64}, r"operands \(bool, bool\)")):
        if what.startswith("operands") and name not in ("gcd", "lcm"):
            continue            # (bool is a type of the other integer ops)
        with pytest.raises(error, match=what):
            uf(x, y, **kw)
    numpy_uf = tl.make_ufuncs("numpy")[name]
    with pytest.raises(error, match="floating"):
        numpy_uf(a, b, signature=(None, None, BF16))


def test_out_where_dtype_signature_casting_order():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    b = np.arange(6, dtype=np.uint8).reshape(2, 3)
    out = np.full((2, 3), 7, np.int16)
    r = tl.add(a, b, out=out)
    assert r is out
    _same(out, (a.astype(np.int16) + b))
    out64 = np.zeros((2, 3), np.float64)
    tl.add(a, b, out=out64)                   # result int16 cast to the float64 out
    _same(out64, (a.astype(np.float64) + b))
    with pytest.raises(TypeError, match="same_kind"):
        tl.add(a, 1.5, out=np.zeros((2, 3), np.int8))
    mask = np.array([[True, False, True], [False, True, False]])
    out = np.full((2, 3), -1, np.int16)
    tl.add(a, b, out=out, where=mask)
    _same(out, np.where(mask, a.astype(np.int16) + b, -1).astype(np.int16))
    _same(tl.add(a, a, dtype=np.float32), np.add(a, a, dtype=np.float32))
    _same(tl.multiply(a, a, signature=(np.int32, np.int32, None)),
          np.multiply(a.astype(np.int32), a.astype(np.int32)))
    # a Python scalar is weak: casting="safe" does not refuse its conversion, as in NumPy's
    # np.add(float32_array, 1.0, casting="safe")
    for t in (np.float32, np.float16, BF16):
        _same(tl.add(np.ones(2, t), 1.0, casting="safe"), np.full(2, 2, t))
    _same(tl.add(np.ones(2, np.int8), 1, casting="safe"), np.full(2, 2, np.int8))
    _same(tl.add(np.ones(2, np.int8), np.ones(2, np.int16), casting="safe"),
          np.full(2, 2, np.int16))
    f = np.ones((3, 4), np.float32)
    assert tl.add(f, f, order="F").flags.f_contiguous
    q = np.empty((2, 3), np.int8)
    m = np.empty((2, 3), np.int8)
    r = tl.divmod(a, 4, out=(q, m))
    assert r[0] is q and r[1] is m
    _same(q, a // 4)
    _same(m, a % 4)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind"])
def test_casting_judges_every_input_conversion(casting):
    """casting= refuses a call iff NumPy refuses a cast of an operand to its compute dtype (the
    reference tables' join), whether NumPy casts it before a same-dtype loop or a mixed loop
    (fused, blocked, logical) converts it inline; the error names the input and both dtypes as
    NumPy's does. Operands are left untouched."""
    ops = [op for op in ALL_OPS if op != "ldexp"]
    checked = refused = 0
    for op in ops:
        uf = getattr(tl, op)
        for a in ARRAY_KINDS:
            for b in ARRAY_KINDS:
                res = expected(op, a, b)
                if not isinstance(res, tuple):
                    continue
                x, y = np.array([1, 2], dtype(LONG[a])), np.array([2, 1], dtype(LONG[b]))
                x0, y0 = x.copy(), y.copy()
                cins = [np.dtype(dtype(c)) for c in compute_dtypes(op, a, b)]
                bad = [i for i, (v, c) in enumerate(zip((x, y), cins))
                       if not np.can_cast(v.dtype, c, casting)]
                checked += 1
                if not bad:
                    _same(uf(x, y, casting=casting), uf(x, y))
                    continue
                refused += 1
                i = bad[0]
                with pytest.raises(TypeError, match=f"Cannot cast ufunc '{uf.__name__}' input "
                                   f"{i} from {(x, y)[i].dtype!r} to {cins[i]!r} with casting "
                                   f"rule '{casting}'".replace("(", r"\(").replace(")", r"\)")):
                    uf(x, y, casting=casting)
                assert np.array_equal(x, x0) and np.array_equal(y, y0)
    assert checked > 5000 and (refused == 0) == (casting == "same_kind")


def test_casting_of_mixed_loops_against_numpy():
    """The mixed loops' verdicts are NumPy's own for the same cast: np.add with dtype= the
    join refuses (int16, float32) under 'no' and (int64, float32) under 'safe' as tl.add does;
    kernel_float's float8_e4m3fn + float16 (a cast ml_dtypes registers as unsafe, which the
    rules join) computes under same_kind and is refused under safe."""
    for a, b, casting in [(np.int16, np.float32, "no"), (np.float32, np.int64, "safe"),
                          (np.bool_, BF16, "equiv"), (np.int64, np.float16, "safe")]:
        x, y = np.ones(3, a), np.ones(3, b)
        t = tl.result_type(x, y)
        with pytest.raises(TypeError) as want:
            np.add(x, y, dtype=t, casting=casting)
        with pytest.raises(TypeError) as got:
            tl.add(x, y, casting=casting)
        assert str(got.value).replace("jax.add", "add") == str(want.value)
    kf = tl.make_ufuncs("kernel_float")
    x, y = np.array([1.5, -2], ml_dtypes.float8_e4m3fn), np.array([0.25, 3], np.float16)
    _same(kf["add"](x, y, casting="same_kind"), x.astype(np.float16) + y)
    with pytest.raises(TypeError, match="input 0 from dtype\\(float8_e4m3fn\\) to "
                       "dtype\\('float16'\\) with casting rule 'safe'"):
        kf["add"](x, y, casting="safe")


def test_noncontiguous_byteswapped_unaligned_overlapping():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    _same(tl.add(x[:, ::-2], x[::-1, 1::2]), x[:, ::-2] + x[::-1, 1::2])
    swapped = np.arange(5, dtype=">i4")
    _same(tl.add(swapped, np.arange(5, dtype="<i2")), np.arange(5, dtype=np.int32) * 2)
    raw = np.zeros(8 * 5 + 1, np.uint8)[1:].view(np.float64)
    raw[:] = np.arange(5)
    assert not raw.flags.aligned
    _same(tl.multiply(raw, 2.0), np.arange(5.0) * 2)
    y = np.arange(8, dtype=np.int32)
    z = y.copy()
    tl.add(y[:-1], y[1:], out=y[1:])
    np.add(z[:-1], z[1:], out=z[1:])
    _same(y, z)
    s = np.arange(6, dtype=np.int16)
    _same(tl.add(s, s[::-1], out=s), np.arange(6, dtype=np.int16) * 0 + 5)


def test_scalars_and_0d():
    r = tl.add(np.float32(1), 2)
    assert isinstance(r, np.float32)
    assert tl.add(np.array(1, np.int8), 1).dtype == np.int8 and tl.add(1, 2) == 3
    assert isinstance(tl.less(np.int8(1), 2.0), np.bool_)


# -- hypothesis: shapes, strides, broadcasting, operand dtypes --------------------------------------
OPS_FOR_HYPOTHESIS = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder",
                      "maximum", "fmin", "bitwise_xor", "right_shift", "less_equal",
                      "logical_xor", "copysign", "heaviside", "nextafter", "gcd"]


@st.composite
def operands(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
    ka = draw(st.sampled_from(ARRAY_KINDS))
    kb = draw(st.sampled_from(ARRAY_KINDS + ["i*", "f*"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    big = [s * 2 for s in shape]
    a = _sample(dtype(LONG[ka]), big, rng)
    idx = tuple(slice(None, None, draw(st.sampled_from([2, -2]))) for _ in shape)
    a = a[idx]
    if kb in ("i*", "f*"):
        b = {"i*": 2, "f*": -1.5}[kb]
    else:
        bshape = [draw(st.sampled_from([1, s])) for s in shape]
        if draw(st.booleans()):
            bshape = bshape[1:]
        b = _sample(dtype(LONG[kb]), bshape, rng)
    return ka, kb, a, b


@settings(max_examples=200, deadline=None)
@given(operands(), st.sampled_from(OPS_FOR_HYPOTHESIS), st.booleans(), st.booleans())
def test_hypothesis_against_numpy(ops, name, use_out, use_where):
    ka, kb, a, b = ops
    want = expected(name, ka, kb)
    uf = getattr(tl, name)
    if isinstance(want, type):
        with pytest.raises(want):
            uf(a, b)
        return
    ca, cb = compute_dtypes(name, ka, kb)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(np, name)(np.asarray(a).astype(dtype(ca)), np.asarray(b).astype(dtype(cb)))
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        if use_where:
            mask = np.arange(int(np.prod(shape))).reshape(shape) % 3 != 1
            out = np.zeros(shape, dtype(want[0]))
            got = uf(a, b, out=out, where=mask)
            ref = np.where(mask, ref, np.zeros((), dtype(want[0])))
        elif use_out:
            out = np.empty(shape, dtype(want[0]))
            got = uf(a, b, out=out)
            assert got is out
        else:
            got = uf(a, b)
    _same(got, ref)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")   # ulp_diff of NaNs
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "copysign",
                                  "heaviside"])
def test_quiet_ops_raise_nothing_where_numpy_checks_the_flags(name):
    """maximum/minimum/fmax/fmin/copysign/heaviside raise no FP error, as NumPy's: also where a
    cast in the same call (a mixed 2-D pair, dtype=/out= of another dtype, accumulate, reduceat
    with out=) makes NumPy check the flags after their loops (max instructions and ordered
    compares of a NaN set 'invalid'; NumPy's loops clear it)."""
    uf, npf = getattr(tl, name), getattr(np, name)
    nan2 = np.array([[np.nan, 1.0], [0.0, np.nan], [2.0, -1.0]])
    seconds = [np.ones((3, 2), np.float32), np.ones((3, 2), np.complex64),
               np.array([[1.0], [np.nan], [1e-40]], BF16), np.zeros((3, 2), np.uint8)]
    pairs = []
    for first in (nan2, nan2.astype(np.float32), nan2.astype(BF16)):
        for second in seconds:
            t = tl.result_type(first, second)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = npf(first.astype(t), second.astype(t))
            except TypeError:
                continue                # no complex copysign/heaviside, in NumPy or here
            with np.errstate(all="raise"):
                pairs.append((uf(first, second), want, (first.dtype, second.dtype)))
    x = np.array([1.0, np.nan, 3.0, 0.5, np.nan])
    if name in ("maximum", "minimum", "fmax", "fmin"):
        with np.errstate(all="raise"):
            got = [uf.accumulate(x.reshape(5, 1), axis=0), uf.reduceat(x, [0, 2], out=np.zeros(2)),
                   uf.reduce(x.astype(np.float32), dtype=np.float64)]
        want = [npf.accumulate(x.reshape(5, 1), axis=0), npf.reduceat(x, [0, 2]),
                npf.reduce(x.astype(np.float32), dtype=np.float64)]
        pairs += [(g, w, "method") for g, w in zip(got, want)]
    assert len(pairs) >= 9
    for got, want, label in pairs:
        assert_same(got, want, name, label)


def test_reduce_into_another_dtype_keeps_the_identity():
    """reduce with dtype=/out= of another dtype runs a mixed loop; it has the op's identity, as
    the same-dtype loop: empty reductions, where= and hypot's first element as NumPy's."""
    f32 = np.array([-8.0, 0.5, -0.0], np.float32)
    w = np.array([True, False, True])
    cases = [("add", f32[:0], {"dtype": np.float64}), ("multiply", f32[:0], {"dtype": np.float64}),
             ("add", f32, {"dtype": np.float64, "where": w}),
             ("multiply", f32, {"out": np.zeros((), np.float64), "where": w}),
             ("hypot", f32[:1], {"out": np.zeros((), np.float64)}),
             ("add", f32[2:], {"out": np.zeros((), np.float64)}),
             ("bitwise_or", np.array([1, 2], np.uint8),
              {"out": np.zeros((), np.uint16), "where": np.array([True, False])})]
    for name, x, kw in cases:
        got = getattr(tl, name).reduce(x, **{k: (v.copy() if k == "out" else v)
                                             for k, v in kw.items()})
        want = getattr(np, name).reduce(x, **{k: (v.copy() if k == "out" else v)
                                              for k, v in kw.items()})
        _same(got, want)
        assert np.signbit(got) == np.signbit(want), (name, kw)


def test_add_reduce_into_a_float_type_sums_pairwise():
    """add.reduce of an x array into float16/float32/float64 through the mixed (x, t) loop (out=
    always takes it, dtype= once a mixed call registered it) sums as np.add.reduce(x.astype(t)):
    NumPy's pairwise summation. The mixed loops summed in order (a float16 sum of bools stopped
    at 2048, uint32 into float32 drifted). A fresh process: NumPy caches a dtype= reduction's
    loop, and one cached by another test would take NumPy's cast path instead."""
    code = """
import numpy as np, ml_dtypes, typelattice as tl
from typelattice import _ufuncs
rng = np.random.default_rng(7)
pairs = [("bool", "float16"), ("int8", "float16"), ("int16", "float16"),
         ("uint16", "float32"), ("uint32", "float32"), ("int64", "float32"),
         ("float16", "float32"), (ml_dtypes.bfloat16, "float32"), ("uint64", "float64"),
         ("float32", "float64"), ("int32", "float64")]
bad, n_cases = [], 0
for x, t in pairs:
    x, t = np.dtype(x), np.dtype(t)
    tl.add(np.ones(2, t), np.ones(2, x))
    assert _ufuncs.mixed_loop_kind(tl.add, (t, x, t)) is not None, (x, t)
    for shape, axis in [((5,), 0), ((100,), 0), ((5000,), 0), ((100000,), 0),
                        ((300, 200), 1), ((300, 200), 0), ((40, 30, 20), (0, 2))]:
        if x.kind == "b":
            a = rng.integers(0, 2, shape).astype(x)
        elif t == np.float16:
            a = rng.integers(-3 if x.kind == "i" else 0, 4, shape).astype(x)
        else:
            a = (rng.random(shape) * 2.0 ** (8 * x.itemsize - 1)).astype(x)
        want = np.add.reduce(a.astype(t), axis=axis)
        out = np.zeros(np.shape(want), t)
        tl.add.reduce(a, axis=axis, out=out)
        got = tl.add.reduce(a, axis=axis, dtype=t)
        for r in (out, np.asarray(got)):
            n_cases += 1
            if r.dtype != t or r.tobytes() != np.asarray(want).tobytes():
                bad.append((str(x), str(t), shape, axis))
print(n_cases, bad)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n_cases, bad = res.stdout.split(" ", 1)
    assert int(n_cases) == 154 and bad.strip() == "[]", res.stdout


def test_float16_reductions_of_another_dtype_round_once_per_call():
    """subtract/multiply/divide.reduce of an x array into float16 through the mixed loop (out=,
    or dtype= after a mixed call) accumulate in float32 and round once, as NumPy's half loops
    do on x.astype(float16): rounding every step, a product overflowed to inf before a zero
    (NaN where NumPy gives 0). A fresh process, as above."""
    code = """
import numpy as np, typelattice as tl
rng = np.random.default_rng(5)
bad, n_cases = [], 0
for x in ("uint8", "int16", "bool", "int32"):
    x = np.dtype(x)
    for name in ("subtract", "multiply", "divide"):
        f, ref = getattr(tl, name), getattr(np, name)
        f(np.ones(2, np.float16), np.ones(2, x))
        for shape, axis in [((5,), 0), ((8,), 0), ((40,), 0), ((3000,), 0), ((8, 7, 6), None),
                            ((30, 50), 1), ((30, 50), 0)]:
            if axis is None and name != "multiply":
                continue        # (not reorderable: one axis at most)
            a = rng.integers(0 if x.kind in "ub" else -9, 2 if x.kind == "b" else 10,
                             shape).astype(x)
            if name == "divide":
                a[a == 0] = 1
            with np.errstate(all="ignore"):
                want = ref.reduce(a.astype(np.float16), axis=axis)
                out = np.zeros(np.shape(want), np.float16)
                f.reduce(a, axis=axis, out=out)
                got = f.reduce(a, axis=axis, dtype=np.float16)
            for r in (out, np.asarray(got)):
                n_cases += 1
                if r.dtype != np.float16 or r.tobytes() != np.asarray(want).tobytes():
                    bad.append((str(x), name, shape, axis))
print(n_cases, bad)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n_cases, bad = res.stdout.split(" ", 1)
    assert int(n_cases) == 152 and bad.strip() == "[]", res.stdout


def test_logical_reductions_into_bool_of_any_dtype():
    """logical_and/or/xor.reduce(x, out=bool array) and (x, dtype=bool) fold x's truth values as
    NumPy does (NaN true, -0.0 false; ml_dtypes' small floats and sub-byte ints as their
    astype(bool)); they raised NumPy's "no loop" error (out=) or ours (dtype=). The plain call of
    a bool and an x array with out= shares their loop."""
    x = {"int64": [1, 2, 0, -5], "uint8": [0, 7, 0, 1], "float64": [1.0, np.nan, -0.0, 0.0],
         "float32": [-0.0, np.inf, 2, 0], "float16": [1, 0, -0.0, np.nan],
         BF16: [-0.0, 1, 0, 3], "complex64": [1j, 0, -0.0 - 0.0j, complex(np.nan, 0)],
         "complex128": [0, 0, 1, 0j], "uint64": [2**63, 0, 1, 0],
         ml_dtypes.float8_e4m3fn: [np.nan, -0.0, 0, 0.5], ml_dtypes.float8_e5m2: [0, 1, -0.0, 3],
         ml_dtypes.float8_e4m3fnuz: [np.nan, 0, 2, 0], ml_dtypes.float8_e8m0fnu: [1, 2, 0.5, 4],
         ml_dtypes.float4_e2m1fn: [0, -0.0, 1, 6], ml_dtypes.int4: [-1, 0, 7, -8],
         ml_dtypes.uint2: [0, 3, 0, 1]}
    b = np.array([True, False, True, True])
    rng = np.random.default_rng(5)
    for dt, vals in x.items():
        a = np.array(vals, dtype=dt)
        # rows longer than a 1024-element block of the loops
        a2 = np.stack([np.resize(a, 3001), rng.permutation(np.resize(a, 3001)),
                       np.zeros(3001, a.dtype)])
        for name in ("logical_and", "logical_or", "logical_xor"):
            f, ref = getattr(tl, name), getattr(np, name)
            for arr, axis in ((a, 0), (a[:0], 0), (a2, 1), (a2, 0), (a2, None)):
                want = ref.reduce(arr.astype(bool), axis=axis)
                out = np.zeros(np.shape(want), bool)
                f.reduce(arr, axis=axis, out=out)
                _same(out, np.asarray(want))
                _same(np.asarray(f.reduce(arr, axis=axis, dtype=bool)), np.asarray(want))
            out = np.zeros(4, bool)
            f(b, a, out=out)
            _same(out, ref(b, a.astype(bool)))
            _same(f(b[::2], a[::2]), ref(b[::2], a[::2].astype(bool)))
            _same(f(a, b), ref(a.astype(bool), b))
            _same(f(a[::-1], b[::2].repeat(2)), ref(a[::-1].astype(bool), b[::2].repeat(2)))


@pytest.mark.parametrize("rules,dt", [("numpy", BF16), ("numpy", ml_dtypes.float8_e4m3fn),
                                      ("torch", "uint32"), ("torch", "uint64")])
def test_logical_reduce_likes_into_bool_where_the_type_does_not_join_bool(rules, dt):
    """Under rule sets where x's type does not join bool (bfloat16 under numpy, uint32 under
    torch), logical_and/or/xor's reduce, accumulate and reduceat into a bool out= fold x's
    truth values, as the plain reduce and dtype=bool do; they raised the (bool, x)
    TypePromotionError. Reference: NumPy's method on x.astype(bool)."""
    U = tl.make_ufuncs(rules)
    a = np.array([0, 3, np.nan if np.dtype(dt).kind == "V" or dt == BF16 else 0, 1, 0, 2],
                 np.float64).astype(dt)
    for name in ("logical_and", "logical_or", "logical_xor"):
        for method, args in (("reduce", ()), ("accumulate", ()), ("reduceat", ([0, 2, 5],))):
            want = np.asarray(getattr(getattr(np, name), method)(a.astype(bool), *args))
            out = np.zeros(want.shape, bool)
            got = getattr(U[name], method)(a, *args, out=out)
            assert got is out or np.shares_memory(got, out), (name, method)
            _same(out, want)


def test_out_as_a_one_tuple_where_the_method_retries_on_a_cast_operand():
    """out=(o,) is NumPy's other spelling of out=o: the methods that retry on the operand cast
    to out's loop type (logical reduce-likes into a float out=, an empty logaddexp.reduce into
    uint32 under jax_strict, a weak array into out=) raised "return arrays must be of
    ArrayType" for it. Reference: the same call with out=o."""
    x = np.array([[1.0], [0.0], [2.0]])
    S = tl.make_ufuncs("jax_strict")
    e = np.zeros(0, np.uint32)
    calls = [(tl.logical_or.reduceat, (x, [0, 2]), {"axis": 0}, (2, 1), np.float64),
             (S["logaddexp"].reduce, (e,), {"axis": 0, "keepdims": True}, (1,), np.uint32),
             (tl.add.reduce, (tl.weak(np.array([1.5, 2.5])),), {}, (), np.float16),
             (tl.logical_and.accumulate, (x[:, 0],), {}, (3,), np.float32)]
    for f, args, kw, shape, dt in calls:
        want = f(*args, out=np.full(shape, 7, dt), **kw)
        o = np.full(shape, 7, dt)
        got = f(*args, out=(o,), **kw)
        assert got is o and o.tobytes() == np.asarray(want).tobytes(), f


def test_a_fixed_dtype_without_a_loop_is_a_type_error():
    """dtype=/signature= naming a type the op has no loop for raise a TypeError naming the
    operand DTypes, as NumPy's "no loop" error for the same call; they recursed until Python's
    limit (the promoter's unchanged answer left the outputs open for another lookup). A logical
    reduction into an int16 out= gives NumPy's value in a fresh process too, not only after a
    plain call registered its loop."""
    code = """
import numpy as np, typelattice as tl
x = np.ones(4); i = np.ones(4, np.int16)
calls = ["sqrt(x, dtype=np.int32)", "rint(i, dtype=np.int16)", "divide(i, i, dtype=np.int16)",
         "hypot(i, i, dtype=np.int64)", "floor_divide(x, x, dtype=bool)", "square(i, dtype=bool)",
         "exp(x, signature=(None, 'i8'))", "ldexp.reduce(i, dtype=np.int16)",
         "ldexp.accumulate(i, dtype=np.int16)"]
for c in calls:
    for m in (np, tl):
        try:
            eval("m." + c)
        except TypeError as e:
            print(c, m.__name__, "TypeError", "DType" in str(e) or m is np)
        except Exception as e:
            print(c, m.__name__, type(e).__name__)
        else:
            print(c, m.__name__, "no error")
a = np.array([3, 0, 5], np.int16)
for name in ("logical_or", "logical_and", "logical_xor"):
    got, want = np.zeros((), np.int16), np.zeros((), np.int16)
    getattr(tl, name).reduce(a, out=got)
    getattr(np, name).reduce(a, out=want)
    print(name, "reduce out=int16", int(got) == int(want))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = res.stdout.splitlines()
    assert len(lines) == 21, res.stdout
    for line in lines[:18]:
        assert line.endswith("TypeError True"), line
    for line in lines[18:]:
        assert line.endswith("reduce out=int16 True"), line


def test_reductions_raise_the_fp_warnings_numpy_raises():
    """complex64 subtract.reduce warned 'overflow' where an element passed max/4 (gcc ran the
    accumulator as a 4-lane subtract whose idle lanes held other elements); max/min reduceat
    along axis 0 warned 'invalid' for a NaN (the strided reduction's element loop left the flag
    to NumPy's reduceat, which checks). The values and warnings are NumPy's."""
    rng = np.random.default_rng(11)

    def run(f, *args, **kw):
        with np.errstate(all="raise"):
            try:
                return np.asarray(f(*args, **kw))
            except FloatingPointError as e:
                return str(e).split(" encountered")[0]

    for n in (9, 12, 17, 40, 1000):
        for k in (0, 1, 2, 5, 6, n - 1):
            for v in (1e38j, 3e38 + 0j, -2.5e38 + 1e38j):
                for dt in (np.complex64, np.complex128):
                    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
                    a[k] = v
                    _same(run(tl.subtract.reduce, a), run(np.subtract.reduce, a))
    x = rng.standard_normal((7, 5)).astype(np.float32)
    x[[1, 3, 4], [0, 2, 4]] = np.nan
    for dt in (np.float32, np.float64):
        for name in ("maximum", "minimum", "fmax", "fmin"):
            for axis, idx in ((0, [0, 2, 3, 6]), (1, [0, 1, 4]), (0, [0]), (0, [5, 1])):
                for arr in (x.astype(dt), np.asfortranarray(x.astype(dt)), x.astype(dt)[::-1]):
                    _same(run(getattr(tl, name).reduceat, arr, idx, axis=axis),
                          run(getattr(np, name).reduceat, arr, idx, axis=axis))
                    _same(run(getattr(tl, name).reduce, arr[::2], axis=axis),
                          run(getattr(np, name).reduce, arr[::2], axis=axis))


def test_integer_power_error_writes_what_numpy_writes():
    """A negative integer exponent raises as NumPy's: the elements before it computed, it and
    the rest of out= untouched; ufunc.at leaves the array as it was."""
    for tl_f, np_f in ((tl.power, np.power),):
        outs = []
        for f in (tl_f, np_f):
            o = np.full(4, 7)
            with pytest.raises(ValueError, match="negative integer powers"):
                f(np.array([2, 3, 4, 5]), np.array([2, -1, 2, 3]), out=o)
            outs.append(o)
        _same(outs[0], outs[1])
        for f in (tl_f, np_f):
            x = np.array([5, 6])
            with pytest.raises(ValueError, match="negative integer powers"):
                f.at(x, [0], -1)
            _same(x, np.array([5, 6]))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "fmin",
                                  "bitwise_or", "logical_and"])
def test_reduce_likes_with_dtype_cast_the_operand_as_numpy(name):
    """reduce/accumulate/reduceat with dtype=t compute in t on the operand cast to t, as
    NumPy's do, before and after a plain call registered the mixed loop (t, x) -> join: NumPy
    looks them up under the plain call's DTypes, and accumulate refused that loop (or the
    promoter refused the cast). Reference: NumPy's own method with the same dtype=."""
    uf, ref = getattr(tl, name), getattr(np, name)
    types = [np.int8, np.uint8, np.int16, np.int64, np.float16, np.float32, np.float64]
    for xt in types:
        x = np.arange(1, 7).astype(xt)
        for t in types:
            if t == xt or (name.startswith("bitwise") and np.dtype(t).kind == "f"):
                continue
            for registered in (False, True):
                if registered:
                    try:
                        uf(np.ones(6, t), x)
                    except TypeError:
                        pass
                for method, args in (("reduce", ()), ("accumulate", ()), ("reduceat", ([0, 2],))):
                    with np.errstate(all="ignore"):
                        try:
                            want = getattr(ref, method)(x, *args, dtype=t)
                        except TypeError:       # NumPy has no loop in t (logical_and)
                            with pytest.raises(TypeError):
                                getattr(uf, method)(x, *args, dtype=t)
                            continue
                        got = getattr(uf, method)(x, *args, dtype=t)
                    assert np.asarray(got).dtype == np.asarray(want).dtype, (xt, t, method)
                    assert np.array_equal(got, want), (xt, t, method, got, want)


def test_a_reduction_with_dtype_leaves_the_plain_calls_loop_alone():
    """reduce(x, dtype=t) and the plain call op(t_array, x_array) reach the promoter with the
    same DTypes (t, x, t), and NumPy caches its first answer for both: t's own loop there made
    a later plain call cast x in a buffer instead of its mixed loop (same values, NumPy's
    slower path). Reference: the plain call's loop in a fresh process without the reduction."""
    code = """if True:
        import os, sys, numpy as np, typelattice as tl
        name, t, x = sys.argv[1:]
        uf = getattr(tl, name)
        a = np.arange(1, 6).astype(x)
        if "REDUCE" in os.environ:
            r = uf.reduce(a, dtype=t)
            assert r == getattr(np, name).reduce(a.astype(t)), r
            acc = uf.accumulate(a, dtype=t)
            assert np.array_equal(acc, getattr(np, name).accumulate(a.astype(t)))
        print([str(d) for d in uf.resolve_dtypes((np.dtype(t), np.dtype(x), None))])
    """
    import os
    for name, t, x in (("add", "float32", "int16"), ("multiply", "float64", "int8"),
                       ("maximum", "float32", "uint8"), ("subtract", "int32", "int8")):
        outs = []
        for env in ({}, {"REDUCE": "1"}):
            run = subprocess.run([sys.executable, "-c", code, name, t, x], capture_output=True,
                                 text=True, check=True, env={**os.environ, **env})
            outs.append(run.stdout)
        assert outs[0] == outs[1], (name, t, x, outs)
        assert outs[0].strip() == str([t, x, t]), outs       # the mixed loop reads x


@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "bitwise_or", "logical_or"])
def test_accumulate_and_reduceat_into_an_out_of_another_type(name):
    """accumulate/reduceat(x, out=o) compute in the type the rule set gives o's and x's dtypes
    and cast into o, as NumPy's compute in their promoted type: where that loop reads x itself
    NumPy refused it ("resolved dtypes"; int8 into uint8 is int16 here as in NumPy). Reference:
    NumPy's method with the same out= (the same promoted types for these pairs)."""
    uf, ref = getattr(tl, name), getattr(np, name)
    ints = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint64]
    for xt in ints + [np.float16]:
        x = np.array([1, 5, 3, 2, 7, 4]).astype(xt)
        for ot in ints + [np.float32]:
            if xt == ot or (name == "bitwise_or" and np.float16 in (xt, ot)) \
                    or (name == "bitwise_or" and ot == np.float32):
                continue
            for method, args in (("accumulate", ()), ("reduceat", ([0, 2, 3],))):
                shape = x.shape if method == "accumulate" else (3,)
                with np.errstate(all="ignore"):
                    try:
                        want = getattr(ref, method)(x, *args, out=np.zeros(shape, ot))
                    except TypeError:
                        continue
                    out = np.zeros(shape, ot)
                    got = getattr(uf, method)(x, *args, out=out)
                assert got is out and np.array_equal(got, want), (xt, ot, method, got, want)


@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "bitwise_or"])
def test_accumulate_into_an_out_of_another_type_leaves_the_plain_calls_loop_alone(name):
    """accumulate(x, out=o) asks the promoter again with signature (t, None, None), t the
    loop type for o and x, and NumPy caches that answer under the plain call op(t_array,
    x_array)'s own key: a cast-first loop there kept later plain calls off their mixed loop
    (add(float64, uint64) after add.accumulate(uint64, out=int8)). Reference: every plain
    call's loop in a fresh process without the methods."""
    code = """if True:
        import os, sys, numpy as np, typelattice as tl
        uf = getattr(tl, sys.argv[1])
        ints = ["int8", "uint8", "int16", "uint16", "int32", "uint64"]
        if "METHODS" in os.environ:
            for xt in ints:
                for ot in ints + ["float32"]:
                    x = np.array([1, 5, 3, 2, 7, 4]).astype(xt)
                    for method, args, n in (("accumulate", (), 6), ("reduceat", ([0, 2],), 2)):
                        try:
                            with np.errstate(all="ignore"):
                                getattr(uf, method)(x, *args, out=np.zeros(n, ot))
                        except TypeError:
                            pass
        types = ints + ["uint32", "int64", "float16", "float32", "float64"]
        for a in types:
            for b in types:
                try:
                    with np.errstate(all="ignore"):
                        uf(np.ones(3, a), np.ones(3, b))
                except TypeError:
                    continue
                print(a, b, [str(d) for d in uf.resolve_dtypes((np.dtype(a), np.dtype(b), None))])
    """
    import os
    outs = [subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                           check=True, env={**os.environ, **env}).stdout
            for env in ({}, {"METHODS": "1"})]
    assert outs[0].count("\n") > 50, outs[0]
    assert outs[0] == outs[1], [line for line in outs[1].splitlines()
                                if line not in outs[0].splitlines()]


def test_a_signature_of_the_operands_own_types_takes_the_plain_calls_loop_in_either_order():
    """signature= naming only operands' own dtypes: NumPy looks it up under the plain call's
    key, so after a plain call it gets that call's loop without asking the promoter. In a fresh
    process it raised (uint8 + int8 with (uint8, None, None)) or, worse, answered with a loop
    that later plain calls then took. Now both orders give the plain call's result, or raise
    where that loop is not one the signature names. Reference: the plain call's result, in a
    process where it ran first."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        cases = [("jax", "add", "uint8", "int8"), ("jax", "maximum", "int8", "uint8"),
                 ("jax", "multiply", "float16", "float64"), ("jax", "less", "int64", "float16"),
                 ("jax", "arctan2", "int16", "float32"), ("numpy", "add", "int64", "uint64"),
                 ("torch", "subtract", "uint8", "int16"), ("jax32", "add", "int64", "float32"),
                 ("jax32", "ldexp", "float32", "int64"), ("tensorflow", "add", "int8", "int8")]
        for rules, name, a, b in cases:
            uf = tl.make_ufuncs(rules)[name]
            x = np.array([-3, 100, 7]).astype(a)
            y = np.array([2, 200, 5]).astype(b)
            def show(**kw):
                try:
                    with np.errstate(all="ignore"):
                        r = uf(x, y, **kw)
                    return f"{r.dtype} {r.tolist()}"
                except TypeError as exc:
                    return "TypeError"
            sigs = [(x.dtype, None, None), (None, y.dtype, None), (x.dtype, y.dtype, None)]
            if sys.argv[1] == "plain-first":
                got = [show()] + [show(signature=s) for s in sigs]
            else:
                got = [show(signature=s) for s in sigs] + [show()]
                got = got[-1:] + got[:-1]
            print(rules, name, a, b, got)
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout for order in ("plain-first", "signature-first")]
    assert outs[0] == outs[1], (outs[0], outs[1])
    lines = outs[0].splitlines()
    assert len(lines) == 10
    for line in lines:
        got = eval(line[line.index("["):])
        if line.startswith("jax32 add"):   # its loop reads int64 as int32: not int64's loop
            assert got[1] == got[3] == "TypeError" and got[2] == got[0], line
        else:
            assert got[0] != "TypeError" and got == [got[0]] * 4, line


def test_a_signature_fixing_an_input_to_another_type_takes_that_types_plain_loop():
    """signature=(float16, None, None) for float32 + float64 is looked up under the key of the
    plain call on float16 and float64 arrays: it raised in a fresh process but computed after
    that plain call. Both orders now cast the float32 operand to float16 for the (float16,
    float64) -> float64 loop. Reference: NumPy's add on the operand cast to float16, then
    float64; and the other order, in a fresh process."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        x, y = np.float32([1.1, 2.2, 70000]), np.float64([1, 2, 3])
        def sig():
            with np.errstate(all="ignore"):
                r = tl.add(x, y, signature=(np.float16, None, None))
            print(r.dtype, r.tolist())
        def plain():
            r = tl.add(np.float16([1.5]), y[:1])
            print(r.dtype, r.tolist())
        (sig, plain)[sys.argv[1] == "plain-first"]()
        (plain, sig)[sys.argv[1] == "plain-first"]()
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout.splitlines() for order in ("signature-first",
                                                                          "plain-first")]
    assert outs[0] == outs[1][::-1], outs
    with np.errstate(all="ignore"):
        want = np.float32([1.1, 2.2, 70000]).astype(np.float16).astype(np.float64) + [1, 2, 3]
    assert outs[0] == [f"float64 {want.tolist()}", "float64 [2.5]"], outs


def test_a_signature_the_rule_set_has_no_loop_for_raises_one_error_in_any_order():
    """signature=(int16, int64, None) for gcd: the rule set computes (int16, int64) in
    int64 (gcd has no mixed loops). In a fresh process the promoter says so; after the plain call on int16 and int64
    arrays NumPy answered from that call's cached loop with its generic no-loop error. Both
    orders now give typelattice's message, under every rule set that has those types, for
    DTypes and type codes alike. Reference: the other call order, in a fresh process."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        a, b = np.arange(1, 4, dtype=np.int32), np.arange(1, 4, dtype=np.int16)
        for rules in ("jax", "jax32", "numpy", "anvil", "torch"):
            uf = tl.make_ufuncs(rules)["gcd"]
            if sys.argv[1] == "plain-first":
                uf(b, b.astype(np.int64))
            for sig in ((np.int16, np.int64, None), (np.dtype("h"), "q", None)):
                try:
                    uf(a, b, signature=sig)
                except TypeError as exc:
                    print(type(exc).__name__, str(exc))
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout.splitlines() for order in ("fresh", "plain-first")]
    assert outs[0] == outs[1], outs
    assert len(outs[0]) == 10 and all("names a loop rule set" in line for line in outs[0]), outs


def test_a_comparisons_reduce_likes_into_out_raise_one_error_in_any_order():
    """less.accumulate(float32_array, out=uint8_array): NumPy asks again for a (bool, float32)
    loop; the error named a signature the caller never gave, and after a plain
    less(bool_array, float32_array) it was NumPy's generic no-loop error. Both orders now say
    why (a comparison's bool cannot be folded with a float32), as reduce without out= does.
    Reference: the other call order, in a fresh process."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        x = np.array([0.5, -1.5, 3.0], np.float32)
        if sys.argv[1] == "plain-first":
            tl.less(np.array([True, False, True]), x)
        for f in (lambda: tl.less.accumulate(x, out=np.zeros(3, np.uint8)),
                  lambda: tl.equal.reduceat(x, [0, 2], out=np.zeros(2, np.int8)),
                  lambda: tl.greater.reduce(x, out=np.zeros((), bool)),
                  lambda: tl.less.reduce(x)):
            try:
                f()
            except TypeError as exc:
                print(str(exc))
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout.splitlines() for order in ("fresh", "plain-first")]
    assert outs[0] == outs[1], outs
    assert [line.split("(")[0] for line in outs[0]] == \
        ["jax.less.accumulate", "jax.equal.reduceat", "jax.greater.reduce", "jax.less.reduce"]
    assert all("each step gives a bool, not a float32" in line and "rule set 'jax'" in line
               for line in outs[0]), outs
    assert tl.less.accumulate(np.float32([1, 2, 0.5]), dtype=bool).tolist() == \
        np.less.accumulate(np.float32([1, 2, 0.5]).astype(bool)).tolist()


def test_a_signature_of_np_longlong_says_it_is_not_np_int64():
    """np.longlong prints as int64 but is another DType than np.int64's on Linux, and
    typelattice's loops take np.int64's: the error named "int64" for both the rejected
    signature and the loop. Reference: NumPy's own DType classes."""
    a, b = np.array([1, 2], np.int16), np.array([3, 4], np.int64)
    if type(np.dtype(np.longlong)) is type(np.dtype(np.int64)):
        pytest.skip("np.longlong is np.int64's DType here")
    with pytest.raises(TypeError, match=r"longlong, not np\.int64"):
        tl.add(a, b, signature=(np.longlong, None, None))
    assert tl.add(a, b, signature=(np.int64, None, None)).tolist() == [4, 6]


def test_reduce_likes_with_dtype_of_another_kind_and_out_of_their_own_type():
    """gcd.reduce(float64, dtype=int32) and hypot.reduce(complex, dtype=float64) compute on the
    cast operand, as NumPy's (they raised the op's ValueError for float/complex operands); an
    out= of the method's own result type works where that type does not promote with the
    operand's (multiply.reduce(uint4) is uint64: out= uint64 raised), in either byte order.
    Reference: NumPy's method with the same dtype=, and typelattice's own result without
    out=."""
    import ml_dtypes
    x = np.array([6.0, 4.0, 10.0])
    for uf, ref, method, dt in ((tl.gcd, np.gcd, "reduce", np.int32),
                                (tl.lcm, np.lcm, "accumulate", np.uint8),
                                (tl.hypot, np.hypot, "reduce", np.float64)):
        a = x + 0j if uf is tl.hypot else x
        got, want = getattr(uf, method)(a, dtype=dt), getattr(ref, method)(a, dtype=dt)
        assert np.asarray(got).dtype == np.asarray(want).dtype and np.array_equal(got, want)
    u = np.array([2, 3, 5], ml_dtypes.uint4)
    own = tl.multiply.reduce(u)
    out = np.zeros((), own.dtype)
    assert tl.multiply.reduce(u, out=out) is out and out == own == 30
    i = np.array([-1, 0, 3], ml_dtypes.int4)
    own = tl.heaviside.reduceat(i, [0, 2])
    out = np.zeros(2, own.dtype)
    assert tl.heaviside.reduceat(i, [0, 2], out=out) is out and np.array_equal(out, own)
    # a byte-swapped out= of that type too (it raised the (float32, int4) promotion error)
    for f, method, args in ((tl.divide, "reduce", ()), (tl.divide, "accumulate", ()),
                            (tl.add, "reduce", ()), (tl.heaviside, "reduceat", ([0, 2],))):
        own = getattr(f, method)(i, *args)
        out = np.zeros(np.shape(own), own.dtype.newbyteorder(">"))
        assert getattr(f, method)(i, *args, out=out) is out and np.array_equal(out, own)
