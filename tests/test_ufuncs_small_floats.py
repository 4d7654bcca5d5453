"""ml_dtypes' small floats (float8_*, float6_*, float4_*): JAX's promotion (they absorb bool,
integers and Python int/float; any other float, complex or another small float is a
TypePromotionError) and ml_dtypes' values (computed in float32, rounded by ml_dtypes' casts)."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl

SMALL = [t for t in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
                     "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
                     "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn") if hasattr(ml_dtypes, t)]
OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
       "floor_divide", "remainder", "fmod", "power", "arctan2", "hypot", "copysign",
       "logaddexp", "heaviside", "equal", "less", "greater_equal", "logical_and"]


def _vals(dt):
    v = np.array([0.0, 0.5, 1.0, 1.5, -2.0, 3.0, 6.0, -0.25, 0.125, 4.0, 2.0, -1.0], np.float32)
    with np.errstate(all="ignore"):
        return v.astype(dt)


@pytest.mark.parametrize("name", SMALL)
def test_small_float_promotion(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = _vals(dt)
    for other in (np.ones(12, bool), np.ones(12, np.int8), np.ones(12, np.uint32),
                  np.ones(12, np.int64), 1, 2.0):
        assert tl.add(x, other).dtype == dt
        assert tl.multiply(other, x).dtype == dt
        assert tl.less(x, other).dtype == bool
    for other in (np.ones(12, np.float16), np.ones(12, ml_dtypes.bfloat16),
                  np.ones(12, np.float32), np.ones(12, np.complex64), 1j):
        with pytest.raises(tl.TypePromotionError, match=name):
            tl.add(x, other)
    others = [t for t in SMALL if t != name]
    with pytest.raises(tl.TypePromotionError):
        tl.add(x, _vals(np.dtype(getattr(ml_dtypes, others[0]))))


@pytest.mark.parametrize("name", SMALL)
def test_small_float_values_match_ml_dtypes(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = _vals(dt)[:, None]
    y = _vals(dt)[None, :]
    for op in OPS:
        try:
            with np.errstate(all="ignore"):
                want = getattr(np, op)(x, y)
        except TypeError:
            continue          # ml_dtypes has no loop for this op
        with np.errstate(all="ignore"):
            got = getattr(tl, op)(x, y)
        assert got.dtype == want.dtype, op
        if op == "copysign" and name.endswith("fnuz"):
            # ml_dtypes sets the sign bit of the storage: copysign(0, -1) becomes 0x80, which
            # is NaN in the fnuz formats; typelattice rounds float32 -0.0, giving 0
            zero_neg = (x == 0) & (np.signbit(y.astype(np.float32)))
            assert np.isnan(want.astype(np.float32)[zero_neg]).all()
            assert (got.astype(np.float32)[zero_neg] == 0).all()
            keep = ~np.broadcast_to(zero_neg, got.shape)
            got, want = got[keep], want[keep]
        g, w = got.astype(np.float32), want.astype(np.float32)
        assert np.array_equal(g, w, equal_nan=True), (op, got, want)
    with np.errstate(all="ignore"):
        xs = _vals(dt)
        got, want = tl.add.reduce(xs), np.add.reduce(xs)
        assert got.dtype == want.dtype
        assert np.array_equal(np.float32(got), np.float32(want), equal_nan=True)
        got = tl.add(xs[::-2], xs[1::2])      # strided operands
        assert np.array_equal(got.astype(np.float32),
                              np.add(xs[::-2], xs[1::2]).astype(np.float32), equal_nan=True)


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_reductions_with_where_and_empty_ones_use_the_identity(name, op):
    """add/multiply.reduce of a small float with where= or along an empty axis start from the
    op's identity in that type (as NumPy's loops of it: ml_dtypes' reduce is the reference),
    with and without keepdims; without an identity they raised NumPy's 'no identity'."""
    dt = np.dtype(getattr(ml_dtypes, name))
    x = np.array([[1, 2, 3], [0.5, 1.5, 2]], np.float32).astype(dt)
    w = np.array([[True, False, True], [False, True, True]])
    uf, ref = getattr(tl, op), getattr(np, op)
    for kw in ({"where": w}, {"where": w, "axis": 0}, {"where": w, "axis": 1, "keepdims": True}):
        if not _has(dt, {"add": 0, "multiply": 1}[op]):
            # (float8_e8m0fnu has no 0: its NaN would be the sum, as ml_dtypes' reduce gives)
            with pytest.raises(ValueError, match="to use a where mask one has to specify"):
                uf.reduce(x, **kw)
            continue
        got, want = uf.reduce(x, **kw), ref.reduce(x, **kw)
        assert np.asarray(got).dtype == dt, (kw, got)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (kw, got, want)
    empty = np.zeros((0, 3), dt)
    for axis in (0, None):
        got, want = uf.reduce(empty, axis=axis), ref.reduce(empty, axis=axis)
        assert np.asarray(got).dtype == dt
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (axis, got, want)


def _has(dt, v):
    """Whether small float type dt holds v."""
    return np.float32(np.array(v, np.float32).astype(dt)) == v


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", ["add", "hypot", "multiply", "maximum", "logaddexp"])
def test_reductions_are_folds_of_the_elements(name, op):
    """reduce of a small float along each axis is the left fold of the op's elementwise calls
    (ml_dtypes' loop on one element at a time: the reference), as accumulate's last element is:
    float8_e8m0fnu's add and hypot started from their identity 0, which it lacks (NaN), so every
    sum was NaN."""
    dt = np.dtype(getattr(ml_dtypes, name))
    x = np.array([[8, 4, 2, 0.5], [1, 0.25, 2, 4]], np.float32).astype(dt)
    uf, ref = getattr(tl, op), getattr(np, op)
    with np.errstate(all="ignore"):
        for axis in (0, 1, None):
            xs = np.moveaxis(x, axis, 0) if axis is not None else x.reshape(-1)
            want = xs[0]
            for v in xs[1:]:
                want = ref(want, v)
            got = uf.reduce(x, axis=axis)
            assert np.asarray(got).dtype == dt
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (axis, got, want)
            last = np.take(uf.accumulate(xs, axis=0), -1, axis=0)
            assert np.asarray(last).tobytes() == np.asarray(want).tobytes(), (axis, last, want)


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("op", ["logaddexp", "logaddexp2"])
def test_logaddexp_reductions_start_from_minus_inf_where_the_type_has_it(name, op):
    """logaddexp/logaddexp2.reduce with where= or along an empty axis start from -inf in the
    small floats that have it (float8_e5m2, e4m3, e3m4), as ml_dtypes' own loops do (the
    reference); they raised 'no identity'. The finite types keep raising: NumPy's conversion of
    -inf gives NaN there (a NaN result) or saturates (float4's -6)."""
    dt = np.dtype(getattr(ml_dtypes, name))
    x = np.array([[1, 2, 3], [0.5, 1.5, 2]], np.float32).astype(dt)
    w = np.array([[True, False, True], [False, True, True]])
    uf, ref = getattr(tl, op), getattr(np, op)
    has_inf = np.float32(np.array(-np.inf, np.float32).astype(dt)) == -np.inf
    for call in (lambda f: f.reduce(x, where=w, axis=1), lambda f: f.reduce(x[:0], axis=0),
                 lambda f: f.reduce(x, where=w, axis=None)):
        if not has_inf:
            with pytest.raises(ValueError, match="identity"):
                call(uf)
            continue
        got, want = call(uf), call(ref)
        assert np.asarray(got).dtype == dt
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


@pytest.mark.parametrize("name", SMALL)
def test_divmod_matches_ml_dtypes(name):
    """divmod of a small float keeps its dtype in both outputs, as jax.numpy's (it raised "no
    loop"). Reference: ml_dtypes' np.divmod, value for value (NaN's sign aside: typelattice's
    float32 remainder gives -NaN, as README says), and typelattice's own floor_divide and
    remainder, bit for bit."""
    dt = np.dtype(getattr(ml_dtypes, name))
    x, y = _vals(dt)[:, None], _vals(dt)[None, :]
    with np.errstate(all="ignore"):
        q, r = tl.divmod(x, y)
        wq, wr = np.divmod(x, y)
        fq, fr = tl.floor_divide(x, y), tl.remainder(x, y)
    for got, want, same in ((q, wq, fq), (r, wr, fr)):
        assert got.dtype == want.dtype == dt
        assert np.array_equal(got.astype(np.float32), want.astype(np.float32), equal_nan=True)
        assert got.tobytes() == same.tobytes()
    out = (np.empty(x.shape[0], dt), np.empty(x.shape[0], dt))
    with np.errstate(all="ignore"):
        got = tl.divmod(x[::-1, 0], y[0, 2::-1].repeat(4), out=out)
        want = np.divmod(x[::-1, 0], y[0, 2::-1].repeat(4))
    assert got[0] is out[0] and got[1] is out[1]
    for g, w in zip(got, want):
        assert np.array_equal(g.astype(np.float32), w.astype(np.float32), equal_nan=True)


@pytest.mark.parametrize("name", SMALL)
def test_nextafter_every_pair_of_codes(name):
    """nextafter keeps the small float's dtype, as jax.numpy's (jax_ops_rules.md '='; it raised
    'no loop'), stepping on the format's codes: bit for bit ml_dtypes' own nextafter for every
    pair of codes (NaNs, both zeros, the fnuz formats' lone zero, e8m0's unsigned codes)."""
    dt = np.dtype(getattr(ml_dtypes, name))
    codes = np.arange(1 << ml_dtypes.finfo(dt).bits, dtype=np.uint8)
    a, b = np.repeat(codes, codes.size).view(dt), np.tile(codes, codes.size).view(dt)
    with np.errstate(all="ignore"):
        want = np.nextafter(a, b)
        got = tl.nextafter(a, b)
        strided = tl.nextafter(a[::-3], b[::-3])
    assert got.dtype == dt and got.tobytes() == want.tobytes()
    assert strided.tobytes() == want[::-3].tobytes()
    # its methods feed the output back (the loop read a whole block before writing it)
    x = np.array([2, 3, 3, 1, 1, 3, 3, 0.5, -1, 2], np.float32).astype(dt)
    with np.errstate(all="ignore"):
        assert tl.nextafter.reduce(x).tobytes() == np.nextafter.reduce(x).tobytes()
        assert tl.nextafter.accumulate(x).tobytes() == np.nextafter.accumulate(x).tobytes()
        assert (tl.nextafter.reduceat(x, [0, 4, 5]).tobytes()
                == np.nextafter.reduceat(x, [0, 4, 5]).tobytes())


def test_logical_ops_into_a_small_float_or_sub_byte_type():
    """logical_and.reduce(x, dtype=float8) has no loop (NumPy: 'no loop matching'); it got the
    bool-writing loop registered under float8 outputs, which wrote True's byte 0x01 (0.00195 as
    float8_e4m3fn), also into a later plain call's float8 out= (fresh process: 1.0, the cast of
    True). Reference: that plain call in a fresh process, and NumPy's cast of True."""
    import subprocess
    import sys
    code = """if 1:
        import numpy as np, ml_dtypes, typelattice as tl
        f8 = ml_dtypes.float8_e4m3fn
        y = np.array([1, 2, 3], f8)
        for dt in (f8, ml_dtypes.int4):
            for m in ("reduce", "accumulate"):
                try:
                    getattr(tl.logical_and, m)(y.astype(dt), dtype=dt)
                    print("computed", m)
                except TypeError:
                    pass
        print(tl.logical_and(y, y, out=np.zeros(3, f8)).astype(np.float32).tolist())
        print(tl.logical_or.reduce(y, out=np.zeros((), f8)).astype(np.float32).tolist())
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    one = float(np.array(True).astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    assert out.stdout.splitlines() == [str([one] * 3), str(one)], out.stdout
