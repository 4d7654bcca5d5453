"""Same-dtype float32/float64 transcendentals that run NumPy's own inner loop (set_numpy_loops:
where NumPy runs its AVX512_SKX loops, vmath variant "svml"): NumPy's results, bit for bit, and
its warnings, on every layout; the mixed-dtype paths that compute in that dtype agree."""
import warnings

import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs

OPS = {t: sorted(ops) for t, ops in _ufuncs.set_numpy_loops().items()}
CASES = [(op, t) for t, ops in OPS.items() for op in ops]


@pytest.fixture(autouse=True)
def numpy_loops_in_use():
    if _ufuncs.set_vmath(None) != "svml":
        pytest.skip("NumPy runs no AVX512_SKX loops here: typelattice's own loops run")


def _inputs(t, n=3000, seed=0):
    """Ordinary values over many scales, both signs, and special values: zeros, subnormals,
    infinities, quiet and signalling NaNs, the extremes."""
    dt = np.dtype(t)
    rng = np.random.default_rng(seed)
    fi = np.finfo(dt)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(n) * np.exp(rng.uniform(-12, 12, n))).astype(dt)
        x[: n // 4] = rng.uniform(-1.2, 1.2, n // 4).astype(dt)
    u = np.dtype(f"u{dt.itemsize}")
    snan = np.array(0x7F800001 if dt.itemsize == 4 else 0x7FF0000000000001, u).view(dt)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, fi.max, -fi.max, fi.tiny,
                         -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal, 1.0, -1.0,
                         0.5, -0.5, 2.0], dt)
    return np.concatenate([x, specials, [snan]]).astype(dt)


def _args(op, x):
    if op in ("arctan2", "power"):
        return (x, np.roll(x, 7)[::-1].copy())
    return (x,)


def _outcome(f, args):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f(*args)
    return r, sorted({str(m.message).split(" encountered")[0] for m in w})


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("op,t", CASES)
def test_numpy_bits_and_warnings_on_every_layout(op, t):
    x = _inputs(t)
    args = _args(op, x)
    f, ref = getattr(tl, op), getattr(np, op)
    got, gw = _outcome(f, args)
    want, ww = _outcome(ref, args)
    assert got.dtype == want.dtype == np.dtype(t)
    assert (_bits(got) == _bits(want)).all(), x[_bits(got) != _bits(want)][:5]
    assert gw == ww
    with np.errstate(all="ignore"):
        # strided, reversed, in place, every tail, 0-d: the same bits element for element
        for sl in (slice(None, None, 3), slice(None, None, -1), slice(5, None, 2)):
            sub = tuple(a[sl] for a in args)
            assert (_bits(f(*sub)) == _bits(want[sl])).all(), sl
        y = tuple(a.copy() for a in args)
        f(*y, out=y[0])
        assert (_bits(y[0]) == _bits(want)).all()
        for k in (1, 2, 9):
            # out= trailing the input (NumPy passes it uncopied; its own loop then takes its
            # scalar path, other bits): as if copied first
            z = args[0].copy()
            f(z[k:], *(a[k:] for a in args[1:]), out=z[:-k])
            assert (_bits(z[:-k]) == _bits(want[k:])).all(), k
        # ... trailing with a smaller stride than the input's
        z = np.repeat(args[0], 2)
        f(z[::2], *args[1:], out=z[:x.size])
        assert (_bits(z[:x.size]) == _bits(want)).all()
        for n in range(1, 40):
            assert (_bits(f(*(a[:n] for a in args))) == _bits(want[:n])).all(), n
        assert _bits(f(*(a[3] for a in args))) == _bits(want[3])
        if len(args) == 2:                              # a scalar operand, broadcast
            s = args[1][11]
            assert (_bits(f(args[0], s)) == _bits(ref(args[0], s))).all()
    with np.errstate(all="raise"):
        for v in x:
            a = tuple(np.array([v] * 3) for _ in args)
            try:
                ref(*a)
            except FloatingPointError as e:
                with pytest.raises(FloatingPointError, match=str(e).split(" encountered")[0]):
                    f(*a)
            else:
                f(*a)


@pytest.mark.parametrize("op,t", CASES)
def test_mixed_paths_compute_as_the_same_dtype_call(op, t):
    """int16 operands (computed in float32), int64 ones (float64) or a float32 with a float64
    operand give what the same-dtype call of the converted operands gives."""
    rng = np.random.default_rng(3)
    if t == "float32":
        ints = rng.integers(-3000, 3000, 5000).astype(np.int16)
        args = (ints,) if op not in ("arctan2", "power") else (ints, rng.integers(-3, 4, 5000)
                                                                .astype(np.int8))
        if op == "power":
            args = (np.abs(ints) + np.int16(1), args[1].astype(np.float32) / 2)
    elif op in ("arctan2", "power"):
        x = _inputs(t)
        with np.errstate(all="ignore"):
            args = (x.astype(np.float32), x)
    else:
        args = (rng.integers(-10**12, 10**12, 5000),)   # int64 computes in float64
    with np.errstate(all="ignore"):
        got = getattr(tl, op)(*args)
        same = getattr(tl, op)(*(np.asarray(a).astype(t) for a in args))
    assert got.dtype == np.dtype(t)
    assert (_bits(got) == _bits(same)).all()


def test_set_numpy_loops_switches_back_to_our_loops():
    x = _inputs("float32")
    old = _ufuncs.set_numpy_loops(float32=(), float64=())
    try:
        assert _ufuncs.set_numpy_loops() == {"float32": frozenset(), "float64": frozenset()}
        with np.errstate(all="ignore"):
            ours = tl.tanh(x)
    finally:
        _ufuncs.set_numpy_loops(**old)
    assert _ufuncs.set_numpy_loops() == old
    with np.errstate(all="ignore"):
        assert (_bits(tl.tanh(x)) == _bits(np.tanh(x))).all()
        # ours: within a few ulp of NumPy's, NaN where NumPy's is NaN
        both = np.isfinite(ours) & np.isfinite(np.tanh(x))
        assert (np.isnan(ours) == np.isnan(np.tanh(x))).all()
        assert np.allclose(ours[both], np.tanh(x)[both], rtol=4e-7, atol=0)
