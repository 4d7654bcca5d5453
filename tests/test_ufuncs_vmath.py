"""float32/float64 transcendental loops through vector math functions (set_vmath): glibc's libmvec
and, on AVX-512, NumPy's SVML for some ops: accuracy against the exact result, special values and
FP warnings against the scalar libm loops and NumPy, at every lane of a vector, for every variant
the machine has (SVML, libmvec's AVX-512 and AVX2)."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs
from test_ufuncs_values import ulp_diff
from test_ufuncs_unary_values import LIBMVEC, LIBMVEC_ULPS

# the ulp helpers overflow harmlessly on NaN/inf bit patterns
pytestmark = [pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")]
OPS = sorted(LIBMVEC)
DTYPES = [np.float32, np.float64]
# an input in every op's ordinary range (vector lanes), and special ones (scalar lanes)
ORDINARY = {"arccosh": 2.0}


def _variants():
    """The vector variants this machine can run: "svml" (NumPy's SVML functions), "avx512" and
    "avx2" (libmvec's)."""
    try:
        return sorted({_ufuncs.set_vmath(on) for on in (True, "avx512", "avx2")} - {"scalar"})
    finally:
        _ufuncs.set_vmath(None)


VARIANTS = _variants()


@pytest.fixture(autouse=True)
def _own_loops():
    """These tests check typelattice's own loops around the vector functions: NumPy's own loops,
    which the default variant runs for some ops (tests/test_numpy_loops.py), are off."""
    old = _ufuncs.set_numpy_loops(float32=(), float64=())
    yield
    _ufuncs.set_numpy_loops(**old)


@pytest.fixture(params=VARIANTS or [pytest.param("none", marks=pytest.mark.skip(
    reason="no libmvec / AVX2 on this machine"))])
def vmath(request):
    on = True if request.param == "svml" else request.param
    assert _ufuncs.set_vmath(on) == request.param
    yield on
    _ufuncs.set_vmath(None)


def _scalar(op, x, on, quiet=True):
    """op through the scalar loops, then back to the vector variant on."""
    _ufuncs.set_vmath(False)
    try:
        if not quiet:
            return getattr(tl, op)(x)
        with np.errstate(all="ignore"):
            return getattr(tl, op)(x)
    finally:
        _ufuncs.set_vmath(on)


def _exact(op, x):
    """The long double result rounded to x's dtype (64-bit significand: within 0.5 ulp + a hair
    of the exact value for float64, and for float32)."""
    with np.errstate(all="ignore"):
        return getattr(np, op)(x.astype(np.longdouble)).astype(x.dtype)


def _inputs(dt, op, n=200_000):
    rng = np.random.default_rng(5)
    with np.errstate(all="ignore"):
        parts = [rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n)),
                 rng.uniform(-1, 1, n), rng.uniform(-100, 100, n), rng.uniform(0.5, 2, n),
                 rng.uniform(-1000, 1000, n)]
        bits = rng.integers(0, 1 << (8 * np.dtype(dt).itemsize), n, dtype=np.uint64)
        parts.append(bits.astype(np.uint32 if dt == np.float32 else np.uint64).view(dt))
        return np.concatenate([np.asarray(p).astype(dt) for p in parts])


def _specials(dt):
    fi = np.finfo(dt)
    v = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal,
         -fi.smallest_subnormal, fi.tiny, -fi.tiny, fi.tiny / 2, fi.max, -fi.max, 1.0, -1.0,
         2.0 ** -61, -(2.0 ** -61), 2.0 ** -501, 1e-300, 0.5, -0.5, 2.0, -2.0]
    # overflow / underflow / domain edges of exp, exp2, expm1, sinh, cosh, log1p, atanh, acosh...
    for e in (86.9, 87.0, 87.4, 88.0, 88.7, 88.8, 89.0, 89.5, 126.0, 127.0, 128.0, 150.0,
              708.0, 708.4, 709.0, 709.8, 710.0, 710.5, 745.2, 746.0, 1022.0, 1023.0, 1024.0,
              1075.0, 1e5):
        v += [e, -e]
    one = dt(1)
    v += [np.nextafter(one, dt(0)), -np.nextafter(one, dt(0)), np.nextafter(one, dt(2)),
          -np.nextafter(one, dt(2))]
    with np.errstate(all="ignore"):
        return np.array(v, np.float64).astype(dt)


def _warnings(f):
    """The warnings f gives, underflow left out (as in test_fp_warnings_as_numpy: glibc's scalar
    functions and NumPy's SIMD ones already differ there)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(all="warn", under="ignore"):
            f()
    return sorted({str(m.message).split(" encountered")[0] for m in w
                   if issubclass(m.category, RuntimeWarning)})


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_accuracy_within_documented_ulps(op, dt, vmath):
    x = _inputs(dt, op)
    with np.errstate(all="ignore"):
        got = getattr(tl, op)(x)
    d = ulp_diff(got, _exact(op, x))
    assert d.max() <= LIBMVEC_ULPS, (op, x[np.argmax(d)], got[np.argmax(d)], d.max())


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_special_values_at_every_lane(op, dt, vmath):
    """Each special value at each lane of a vector among ordinary inputs: a NaN, infinite, zero
    or subnormal input or result is the scalar loop's (bit for bit, NaN as NaN), any other result
    within the bound, and the warnings are NumPy's."""
    base = np.full(48, ORDINARY.get(op, 0.5), dt)
    f, ref = getattr(tl, op), getattr(np, op)
    for v in _specials(dt):
        for pos in (0, 5, 15, 16, 23, 31, 40, 47):
            x = base.copy()
            x[pos] = v
            with np.errstate(all="ignore"):
                got = f(x)
            want = _scalar(op, x, vmath)
            g, w = got[pos:pos + 1], want[pos:pos + 1]
            if not all(np.isfinite(t) and abs(t) >= np.finfo(dt).tiny for t in (v, w[0])):
                assert ulp_diff(g, w)[0] == 0 or np.isnan(g[0]) and np.isnan(w[0]), \
                    (op, v, pos, g[0], w[0])
            assert (ulp_diff(got, _exact(op, x)) <= LIBMVEC_ULPS).all(), (op, v, pos)
            assert _warnings(lambda: f(x)) == _warnings(lambda: ref(x)), (op, v, pos)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_no_spurious_warnings_and_paths_agree(op, dt, vmath):
    """Ordinary and mixed inputs: warnings as NumPy's under errstate (raise); contiguous,
    in-place and strided calls give the same values (vector or scalar loops within the bound)."""
    x = _inputs(dt, op, 4000)
    f, ref = getattr(tl, op), getattr(np, op)
    ordinary = x[np.isfinite(x) & (np.abs(x) > 1e-3) & (np.abs(x) < 20)]
    if op in ("arcsin", "arccos", "arctanh"):
        ordinary = ordinary[np.abs(ordinary) < 1]
    elif op in ("log", "log2", "log10", "arccosh"):
        ordinary = np.abs(ordinary) + 1
    elif op == "log1p":
        ordinary = np.abs(ordinary)
    with np.errstate(all="raise", under="ignore"):
        r = f(ordinary)
        ref(ordinary)
    # signalling NaNs (random bit patterns): 'invalid' from glibc's scalar functions, as in the
    # scalar loops, not from NumPy's SIMD ones; quiet NaNs: as NumPy
    assert _warnings(lambda: f(x)) == _warnings(lambda: _scalar(op, x, vmath, quiet=False))
    q = np.where(np.isnan(x), dt(np.nan), x)
    assert _warnings(lambda: f(q)) == _warnings(lambda: ref(q))
    with np.errstate(all="ignore"):
        y = x.copy()
        f(y, out=y)
        strided = f(x[::3])
    np.testing.assert_array_equal(y.view(np.uint8), f(x).view(np.uint8))
    assert (ulp_diff(strided, _exact(op, x[::3])) <= LIBMVEC_ULPS).all()
    assert (ulp_diff(r, _exact(op, ordinary)) <= LIBMVEC_ULPS).all()
    # every tail length after the whole vectors
    for n in range(1, 40):
        with np.errstate(all="ignore"):
            assert (ulp_diff(f(ordinary[:n]), _exact(op, ordinary[:n])) <= LIBMVEC_ULPS).all()


# x < lo or x > hi: a domain error (NaN, invalid), filled in by the vector loops
DOMAINS = {"log": (0, np.inf), "log2": (0, np.inf), "log10": (0, np.inf), "log1p": (-1, np.inf),
           "arcsin": (-1, 1), "arccos": (-1, 1), "arctanh": (-1, 1), "arccosh": (1, np.inf)}


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", sorted(DOMAINS))
def test_domain_errors_in_dense_vectors(op, dt, vmath):
    """Out-of-domain inputs (log of negatives, arcsin of |x| > 1...) in half the lanes or all of
    them, among ordinary inputs, NaNs and zeros: the scalar loop's NaN bits on those lanes (glibc
    gives +NaN for some ops, -NaN for others), the other lanes within the bound, the scalar loop's
    warnings; contiguous, strided and every tail."""
    rng = np.random.default_rng(11)
    lo, hi = DOMAINS[op]
    u = f"u{np.dtype(dt).itemsize}"
    fi = ml_dtypes.finfo(dt)
    n = 5000
    with np.errstate(all="ignore"):
        mag = np.abs(rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n)))
        bad = np.where(rng.random(n) < 0.5, lo - mag, hi + mag) if hi < np.inf else lo - mag
        edges = np.array([-np.inf, np.inf, -float(fi.max), float(fi.max), -float(fi.tiny),
                          -float(fi.smallest_subnormal), np.nextafter(dt(lo), dt(-np.inf)),
                          np.nextafter(dt(hi), dt(np.inf)), np.nan, 0.0, -0.0, lo, hi])
        good = rng.uniform(max(lo, -1) + 0.01, min(hi, 1000) - 0.01, n)
        x = np.where(rng.random(n) < 0.5, bad, good)
        x = np.concatenate([x, bad[:64], np.tile(edges, 7)]).astype(dt)
    xd = x.astype(np.float64)
    dom = (xd < lo) | (xd > hi)
    assert dom.sum() > n // 4
    f = getattr(tl, op)
    for v in (x, x[::3], *(x[-k:] for k in (1, 7, 15, 17, 33))):
        with np.errstate(all="ignore"):
            got = f(v)
        want = _scalar(op, v, vmath)
        d = (v.astype(np.float64) < lo) | (v.astype(np.float64) > hi) | np.isnan(v)
        assert (got[d].view(u) == want[d].view(u)).all(), (op, v[d][got[d].view(u) != want[d].view(u)][:4])
        if dt in (np.float32, np.float64):
            assert (ulp_diff(got, _exact(op, v)) <= LIBMVEC_ULPS).all(), op
        else:       # float16 / bfloat16: rounded from float32, the element loop's bits
            assert got.tobytes() == want.tobytes(), op
        assert _warnings(lambda: f(v)) == _warnings(lambda: _scalar(op, v, vmath, quiet=False))


def _same_values_on_every_layout(f, *xs):
    """f's value of an element does not depend on the call it is part of: prefixes of every
    length, chunks at odd offsets, strided and reversed views, 0-d arrays, a 2-d array with a
    strided inner axis and an out= overlapping the input behind it give the whole contiguous
    call's bits (libmvec's last bits differ from the
    scalar function's: a tail or strided layout run by the scalar function would show it)."""
    with np.errstate(all="ignore"):
        whole = f(*xs)
        for n in range(1, 40):
            assert f(*(x[:n] for x in xs)).tobytes() == whole[:n].tobytes(), n
        for k in range(3, whole.size - 20, 37):
            assert f(*(x[k:k + 13] for x in xs)).tobytes() == whole[k:k + 13].tobytes(), k
        assert f(*(np.repeat(x, 2)[::2] for x in xs)).tobytes() == whole.tobytes()
        assert f(*(x[::-1] for x in xs)).tobytes() == whole[::-1].tobytes()
        for i in (0, 7, whole.size - 1):
            assert f(*(x[i:i + 1].reshape(()) for x in xs)).tobytes() == whole[i].tobytes(), i
        m = whole.size // 3 * 3
        two_d = f(*(np.ascontiguousarray(x[:m].reshape(3, -1).T).T for x in xs))
        assert two_d.tobytes() == whole[:m].tobytes()
        for k in (1, 3, 17):        # out= trailing the first input: NumPy passes it uncopied
            z = xs[0].copy()
            f(z[k:], *(x[k:] for x in xs[1:]), out=z[:-k])
            assert z[:-k].tobytes() == whole[k:].tobytes(), k
        # ... with a smaller stride than the input's, forwards and backwards
        n = whole.size
        z = np.repeat(xs[0], 2)
        f(z[::2], *xs[1:], out=z[:n])
        assert z[:n].tobytes() == whole.tobytes()
        z = np.repeat(xs[0], 2)
        f(z[::-2], *(x[::-1] for x in xs[1:]), out=z[::-1][:n])
        assert z[::-1][:n].tobytes() == whole[::-1].tobytes()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_values_do_not_depend_on_layout(op, dt, vmath):
    x = np.concatenate([_inputs(dt, op, 150), _specials(dt)])
    _same_values_on_every_layout(getattr(tl, op), x)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_special_lanes_anywhere_in_long_arrays(op, dt, vmath):
    """The loops leave their hot loop at a vector with special lanes and come back after it:
    special values in the first and last lanes of vectors, 16 vectors apart and of the array,
    in place and not, give each vector's values as a call on that vector alone; the special lanes
    the scalar loop's bits, every lane within libmvec's bound of the exact result, NumPy's
    warnings."""
    lanes = 64 // np.dtype(dt).itemsize
    block = 16 * lanes
    n = 3 * block + 2 * lanes + 5
    rng = np.random.default_rng(11)
    ordinary = ORDINARY.get(op, 0.5) + rng.uniform(0, 0.25, n)
    f, ref = getattr(tl, op), getattr(np, op)
    specials = _specials(dt)
    for k, pos in enumerate((0, lanes - 1, block - 1, block, block + lanes, 2 * block - 1,
                             3 * block, n - 6, n - 1)):
        x = ordinary.astype(dt)
        x[pos] = specials[k % len(specials)]
        x[(pos * 7 + 3) % n] = specials[(3 * k + 1) % len(specials)]
        with np.errstate(all="ignore"):
            got = f(x)
            alone = np.concatenate([f(x[i:i + lanes]) for i in range(0, n, lanes)])
            y = x.copy()
            f(y, out=y)
        assert got.tobytes() == alone.tobytes(), (op, pos)
        assert y.tobytes() == got.tobytes(), (op, pos)
        special = np.flatnonzero(~np.isfinite(x) | (np.abs(x) < np.finfo(dt).tiny))
        scalar = _scalar(op, x, vmath)
        assert np.array_equal(got[special], scalar[special], equal_nan=True), (op, pos)
        assert (ulp_diff(got, _exact(op, x)) <= LIBMVEC_ULPS).all(), (op, pos)
        assert _warnings(lambda: f(x)) == _warnings(lambda: ref(x)), (op, pos)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["arctan2", "power"])
def test_binary_values_do_not_depend_on_layout(op, dt):
    """arctan2/power through libmvec (AVX-512; the element loop elsewhere) as above."""
    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        a = np.abs(rng.standard_normal(600) * 4).astype(dt) + dt(0.1)
        b = (rng.standard_normal(600) * 3).astype(dt)
    _same_values_on_every_layout(getattr(tl, op), a, b)


def test_set_vmath_switch():
    """set_vmath(False): the contiguous loop is the scalar one (as the strided loop, bit for bit)."""
    x = np.linspace(-5, 5, 2001, dtype=np.float32)
    x2 = np.repeat(x, 2)
    try:
        assert _ufuncs.set_vmath(False) == "scalar"
        assert _ufuncs.vmath_isa() == "scalar"
        for op in OPS:
            with np.errstate(all="ignore"):
                a, b = getattr(tl, op)(x), getattr(tl, op)(x2[::2])
            np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32), err_msg=op)
    finally:
        assert _ufuncs.set_vmath(None) in ("svml", "avx512", "avx2", "scalar")
    assert _ufuncs.vmath_isa() == _ufuncs.set_vmath(None)


def _numpy_exports_svml():
    import ctypes
    from numpy._core import _multiarray_umath as m
    if not m.__cpu_features__.get("AVX512_SKX"):
        return False
    lib = ctypes.CDLL(m.__file__)
    return all(hasattr(lib, f) for f in ("__svml_powf16", "__svml_acoshf16", "__svml_pow8_ha"))


def test_numpy_svml_in_use_where_numpy_has_it():
    """Where NumPy runs its AVX512_SKX loops and exports their SVML functions, set_vmath(True)
    uses them (float32 arccosh, log, exp2, arctan2, power; float64 power): the ordinary lanes of
    the ops NumPy itself computes with SVML are then NumPy's results bit for bit."""
    if not _numpy_exports_svml():
        assert _ufuncs.set_vmath(True) != "svml"
        _ufuncs.set_vmath(None)
        pytest.skip("NumPy has no SVML functions on this machine")
    try:
        assert _ufuncs.set_vmath(True) == "svml"
        rng = np.random.default_rng(5)
        x = rng.uniform(1, 1e4, 10_000).astype(np.float32)
        y = rng.uniform(-3, 3, 10_000).astype(np.float32)
        assert tl.arccosh(x).tobytes() == np.arccosh(x).tobytes()
        assert tl.power(x, y).tobytes() == np.power(x, y).tobytes()
        assert tl.arctan2(y, x).tobytes() == np.arctan2(y, x).tobytes()
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        assert tl.power(x64, y64).tobytes() == np.power(x64, y64).tobytes()
        assert _ufuncs.set_vmath("avx512") == "avx512"          # libmvec's, on request
    finally:
        _ufuncs.set_vmath(None)


@pytest.mark.parametrize("dt", DTYPES)
def test_arctan2_through_libmvec(dt):
    """arctan2 of float32/float64 through libmvec's AVX-512 variant (where it runs): within the
    libmvec bound of the exact result; a lane with a zero, subnormal, infinite or NaN operand, or
    operands far apart in exponent (a result that underflows), is the scalar loop's bit for bit,
    at every lane; warnings as NumPy's; scalar operands, in place, strided, every tail."""
    on = _ufuncs.set_vmath(True)
    try:
        rng = np.random.default_rng(8)
        n = 100_000
        with np.errstate(all="ignore"):
            y = (rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n))).astype(dt)
            x = (rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n))).astype(dt)
            got = tl.arctan2(y, x)
            exact = np.arctan2(y.astype(np.longdouble), x.astype(np.longdouble)).astype(dt)
        assert ulp_diff(got, exact).max() <= LIBMVEC_ULPS
        sp = _specials(dt)
        fi = np.finfo(dt)
        sp = np.concatenate([sp, np.array([fi.max / 4, fi.tiny * 8, 1e30, 1e-30], dt)])
        base_y, base_x = np.full(48, 0.75, dt), np.full(48, -1.5, dt)
        for v in sp:
            for pos in (0, 7, 15, 16, 31, 47):
                for which in (0, 1):
                    a, b = base_y.copy(), base_x.copy()
                    (a if which == 0 else b)[pos] = v
                    b[(pos + 3) % 48] = sp[(pos * 7) % sp.size]
                    with np.errstate(all="ignore"):
                        g = tl.arctan2(a, b)
                        _ufuncs.set_vmath(False)
                        w = tl.arctan2(a, b)
                        _ufuncs.set_vmath(True)
                        e = np.arctan2(a.astype(np.longdouble), b.astype(np.longdouble)).astype(dt)
                    special = ~(np.isfinite(a) & np.isfinite(b) & (np.abs(a) >= fi.tiny)
                                & (np.abs(b) >= fi.tiny))
                    assert g[special].tobytes() == w[special].tobytes(), (v, pos, which)
                    assert (ulp_diff(g, e) <= LIBMVEC_ULPS).all(), (v, pos, which)
                    assert _warnings(lambda: tl.arctan2(a, b)) \
                        == _warnings(lambda: np.arctan2(a, b)), (v, pos, which)
        with np.errstate(all="ignore"):
            for k in range(1, 40):
                assert (ulp_diff(tl.arctan2(y[:k], x[:k]), exact[:k]) <= LIBMVEC_ULPS).all()
            assert (ulp_diff(tl.arctan2(y[5], x[:999]), np.arctan2(
                np.longdouble(y[5]), x[:999].astype(np.longdouble)).astype(dt)) <= LIBMVEC_ULPS).all()
            z = y[:999].copy()
            tl.arctan2(z, x[:999], out=z)
            assert z.tobytes() == tl.arctan2(y[:999], x[:999]).tobytes()
            assert (ulp_diff(tl.arctan2(y[::3], x[::3]), exact[::3]) <= LIBMVEC_ULPS).all()
    finally:
        _ufuncs.set_vmath(None)
    assert on in ("svml", "avx512", "avx2", "scalar")


@pytest.mark.parametrize("dt", DTYPES)
def test_arctan2_of_zeros_in_the_vector_loop(dt, vmath):
    """arctan2 with a +-0 operand and a finite other one takes the vector loop's shortcut
    (TL_VM_ALT_atan2): +-0, +-pi, +-pi/2 by C's rules, the scalar loop's and NumPy's bits, at
    every lane, beside ordinary lanes; with an inf or NaN the scalar function, as before."""
    fi = np.finfo(dt)
    vals = np.array([0.0, -0.0, 1.5, -1.5, fi.smallest_subnormal, -fi.smallest_subnormal,
                     fi.max, -fi.max, np.inf, -np.inf, np.nan], dt)
    base_y, base_x = np.full(40, 0.75, dt), np.full(40, -1.25, dt)
    for u in vals:
        for v in vals:
            if not (u == 0 or v == 0):
                continue
            a, b = base_y.copy(), base_x.copy()
            for pos in (0, 7, 8, 15, 16, 33, 39):
                a[pos], b[pos] = u, v
            with np.errstate(all="ignore"):
                g = tl.arctan2(a, b)
                _ufuncs.set_vmath(False)
                w = tl.arctan2(a, b)
                _ufuncs.set_vmath(vmath)
                n = np.arctan2(a, b)
            assert _bits(g).tolist() == _bits(w).tolist(), (u, v)
            assert _bits(g[0]) == _bits(n[0]), (u, v)
            assert _warnings(lambda: tl.arctan2(a, b)) == _warnings(lambda: np.arctan2(a, b))


@pytest.mark.parametrize("a, b", [("int64", "int64"), ("uint64", "int8"), ("int16", "float32"),
                                  ("int64", "float64"), ("float16", "int8")])
def test_arctan2_mixed_operands_run_the_vector_loop(a, b):
    """arctan2 of operands the blocked loop converts (int64 -> float64, int8 -> float16...): the
    blocks go through the same-type float32/float64 loop (libmvec where it runs), so the result
    is exactly tl.arctan2 of the operands cast to the compute type first, for scalar, strided and
    short operands, and within the libmvec bound."""
    rng = np.random.default_rng(9)

    def values(dt, n=5000):
        if np.dtype(dt).kind in "iu":
            return rng.integers(0 if np.dtype(dt).kind == "u" else -300, 300, n).astype(dt)
        return (rng.standard_normal(n) * 50).astype(dt)

    x, y = values(a), values(b)
    x[:3], y[3:6] = 0, 0
    got = tl.arctan2(x, y)
    t = got.dtype

    def cast_first(u, v):
        return tl.arctan2(np.asarray(u).astype(t), np.asarray(v).astype(t))

    assert got.tobytes() == cast_first(x, y).tobytes()
    if t != np.float16:
        exact = np.arctan2(x.astype(np.longdouble), y.astype(np.longdouble)).astype(t)
        assert ulp_diff(got, exact).max() <= LIBMVEC_ULPS
    assert tl.arctan2(x[7], y).tobytes() == cast_first(x[7], y).tobytes()
    assert tl.arctan2(x, y[9]).tobytes() == cast_first(x, y[9]).tobytes()
    assert tl.arctan2(x[::3], y[1::3]).tobytes() == cast_first(x[::3], y[1::3]).tobytes()
    for k in (1, 2, 17, 1023, 1025):
        assert tl.arctan2(x[:k], y[:k]).tobytes() == cast_first(x[:k], y[:k]).tobytes(), k


# bases where glibc's powf / pow is not correctly rounded for the exponents 2, -1, 0.5 (found by
# search), so a loop calling it differs from x*x, 1/x, sqrt(x)
GLIBC_POW_MISSES = {
    4: [float.fromhex(h) for h in ("0x1.001p+0", "0x1.003p+0", "0x1.0045bep+0", "0x1.0080ap+0",
                                   "0x1.00a61ap+0", "0x1.006ee6p+0", "0x1.011aecp+0")],
    8: [float.fromhex(h) for h in ("0x1.01fffffffed2p+0", "0x1.028a740da5c13p+0",
                                   "0x1.003b851eb82edp+0", "0x1.00a9999999359p+0",
                                   "0x1.002159e26adfdp+0", "0x1.00313579bde54p+0")]}


def _bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("y", [2.0, -1.0, 0.5, 1.0])
def test_power_of_the_exponents_numpy_takes_a_shortcut_for(dt, y):
    """power(x, y) for y = 2, -1, 0.5, 1 is x*x, 1/x, sqrt(x), x (NumPy's loops take these
    shortcuts for a scalar exponent; glibc's pow is not correctly rounded for ~0.05% of bases):
    the bits and warnings of NumPy's / ml_dtypes' multiply, divide, sqrt, except pow's +0 and
    +inf for -0 and -inf under 0.5 (NumPy's sqrt gives -0 and NaN); the same for a Python float,
    a 0-d array, a broadcast and a full exponent array, strided bases, the scalar loops."""
    rng = np.random.default_rng(7)
    fi = ml_dtypes.finfo(dt)
    x = np.concatenate([np.exp(rng.uniform(-30, 30, 3000)) * rng.choice([-1, 1], 3000),
                        rng.uniform(-4, 4, 3000),
                        [np.nan, np.inf, -np.inf, 0.0, -0.0, float(fi.max), float(fi.tiny),
                         float(fi.smallest_subnormal), -float(fi.smallest_subnormal), 1.0, -1.0],
                        GLIBC_POW_MISSES[np.dtype(dt).itemsize if dt in DTYPES else 4]])
    with np.errstate(all="ignore"):
        x = x.astype(dt)
        ref = {2.0: lambda v: np.multiply(v, v), -1.0: lambda v: np.divide(dt(1), v),
               0.5: np.sqrt, 1.0: lambda v: v.copy()}[y](x)
    if y == 0.5:
        ref[(x == 0) & np.signbit(x)] = 0.0
        ref[x == -np.inf] = np.inf
    n = x.size
    runs = {}
    for name, exponent in [("float", y), ("0-d", np.array(y, dt)),
                           ("broadcast", np.broadcast_to(np.array(y, dt), (n,))),
                           ("array", np.full(n, y, dt))]:
        for vm in (None, False):
            _ufuncs.set_vmath(vm)
            try:
                with np.errstate(all="ignore"):
                    runs[name, vm] = tl.power(x, exponent)
                    runs[name, vm, "strided"] = tl.power(x[::-1], exponent)[::-1]
            finally:
                _ufuncs.set_vmath(None)
    for key, got in runs.items():
        assert got.dtype == dt, key
        assert (_bits(got) == _bits(ref)).all(), (key, x[_bits(got) != _bits(ref)][:5])
    keep = ~((x == -np.inf) if y == 0.5 else np.zeros(n, bool))
    ops = {2.0: lambda v: np.multiply(v, v), -1.0: lambda v: np.divide(dt(1), v),
           0.5: np.sqrt, 1.0: lambda v: v + dt(0)}
    for v in (x[keep], x[keep][:1]):
        assert _warnings(lambda: tl.power(v, y)) == _warnings(lambda: ops[y](v)), v[:3]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_power_shortcut_exponents_mixed_with_others_in_a_vector(dt, vmath):
    """Exponent arrays mixing 2, -1, 0.5, 1 with other powers of two (which pass the vector loop's
    first test for them) and ordinary values: each lane is the value of the same base under that
    exponent broadcast to the whole array; the shortcut lanes NumPy's multiply, divide, sqrt."""
    rng = np.random.default_rng(8)
    n = 4099
    x = rng.uniform(0.25, 8, n).astype(dt)
    misses = GLIBC_POW_MISSES[np.dtype(dt).itemsize]
    x[:len(misses)] = misses
    choices = np.array([2.0, -1.0, 0.5, 1.0, 4.0, 0.25, -2.0, -0.5, 0.0, 3.7, -1.3], dt)
    y = rng.choice(choices, n)
    y[rng.uniform(size=n) < 0.3] = dt(2.5)          # vectors with no power-of-two exponent
    with np.errstate(all="ignore"):
        got = tl.power(x, y)
        for c in choices.tolist() + [2.5]:
            lanes = y == c
            alone = tl.power(x, dt(c))
            assert (_bits(got[lanes]) == _bits(alone[lanes])).all(), c
        short = {2.0: np.multiply(x, x), -1.0: np.divide(dt(1), x), 0.5: np.sqrt(x), 1.0: x}
    for c, ref in short.items():
        assert (_bits(got[y == c]) == _bits(ref[y == c])).all(), c


def test_float32_power_within_one_ulp():
    """float32 power is within 1 ulp of the exact result on every path, over bases across the
    exponent range and exponents up to the vector path's limit (|y| (|exponent| + 1) <= 100):
    NumPy's SVML powf (the vector lanes are then NumPy's own results, bit for bit),
    typelattice's own AVX-512 pow (2^(y log2 x) in double, tl_pow32_avx512) without it and
    glibc's powf elsewhere, the last two almost always correctly rounded."""
    rng = np.random.default_rng(31)
    n = 400_000
    e = rng.integers(-60, 61, n)
    x = np.ldexp(rng.uniform(0.5, 1.0, n), e).astype(np.float32)
    y = (rng.uniform(-1, 1, n) * 100 / (np.abs(e) + 1)).astype(np.float32)
    exact = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(np.float32)
    for on in (True, "avx512", False):
        variant = _ufuncs.set_vmath(on)
        try:
            got = tl.power(x, y)
        finally:
            _ufuncs.set_vmath(None)
        d = ulp_diff(got, exact)
        assert d.max() <= 1, variant
        if variant == "svml":
            vector = np.abs(y) * (np.abs(np.frexp(x)[1] - 1) + 1) <= 100     # TL_VM_OK_pow's
            assert vector.mean() > 0.9
            assert got[vector].tobytes() == np.power(x, y)[vector].tobytes()
        else:
            assert (d > 0).mean() < 1e-3, variant


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", ["power", "float_power"])
def test_power_through_libmvec(op, dt):
    """power/float_power of float32/float64 through libmvec's AVX-512 pow (where it runs): within
    the libmvec bound of the exact result; exact integer powers stay exact; a lane with a
    non-positive, subnormal, infinite or NaN base, a non-finite exponent, or a result near
    overflow/underflow is the scalar loop's bit for bit, at every lane; warnings as NumPy's."""
    uf = getattr(tl, op)
    on = _ufuncs.set_vmath(True)
    try:
        rng = np.random.default_rng(12)
        n = 50_000
        with np.errstate(all="ignore"):
            x = np.abs(rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dt)
            y = rng.uniform(-12, 12, n).astype(dt)
            got = uf(x, y)
            exact = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(dt)
        assert got.dtype == dt
        assert ulp_diff(got, exact).max() <= LIBMVEC_ULPS
        base = np.arange(1, 31).astype(dt).repeat(7)
        expo = np.tile(np.arange(0, 7), 30).astype(dt)
        ints = uf(base, expo)
        fits = np.power(base.astype(np.float64), expo.astype(np.float64)) < 2.0 ** np.finfo(dt).nmant
        assert (ints[fits] == np.power(base.astype(np.float64), expo.astype(np.float64))[fits]).all()
        fi = np.finfo(dt)
        sp = np.concatenate([_specials(dt)[:23], np.array(
            [3.0, -3.0, 0.5, 150.0, -150.0, 1e4, fi.max / 4, fi.tiny * 8, 2.5, -2.5], dt)])
        base_x, base_y = np.full(48, 1.25, dt), np.full(48, -1.5, dt)
        for v in sp:
            for pos in (0, 7, 15, 16, 31, 47):
                for which in (0, 1):
                    a, b = base_x.copy(), base_y.copy()
                    (a if which == 0 else b)[pos] = v
                    b[(pos + 3) % 48] = sp[(pos * 7) % sp.size]
                    with np.errstate(all="ignore"):
                        g = uf(a, b)
                        _ufuncs.set_vmath(False)
                        w = uf(a, b)
                        _ufuncs.set_vmath(True)
                        e = np.power(a.astype(np.longdouble), b.astype(np.longdouble)).astype(dt)
                    lim = 100 if dt == np.float32 else 1000        # TL_VM_OK_pow's
                    ordinary = (a > 0) & np.isfinite(a) & (a >= fi.tiny) & np.isfinite(b) \
                        & (np.abs(b) * (np.abs(np.frexp(a)[1] - 1) + 1) <= lim)
                    assert g[~ordinary].tobytes() == w[~ordinary].tobytes(), (v, pos, which)
                    assert (ulp_diff(g[ordinary], e[ordinary]) <= LIBMVEC_ULPS).all(), (v, pos)
                    assert _warnings(lambda: uf(a, b)) == _warnings(lambda: np.power(a, b)), \
                        (v, pos, which)
        with np.errstate(all="ignore"):
            for k in range(1, 40):
                assert (ulp_diff(uf(x[:k], y[:k]), exact[:k]) <= LIBMVEC_ULPS).all()
            z = x[:999].copy()
            uf(z, y[:999], out=z)
            assert z.tobytes() == uf(x[:999], y[:999]).tobytes()
    finally:
        _ufuncs.set_vmath(None)


@pytest.mark.parametrize("dt", DTYPES)
def test_power_of_negative_bases(dt, vmath):
    """power of a negative base and an integer exponent runs the vector function on |x| and flips
    the sign for odd exponents (TL_VM_NEG_pow), so power(-x, k) is -power(x, k) for odd k and
    power(x, k) for even k, to the bit, at every lane, and within the bound of the exact result;
    a non-integer exponent (NaN, 'invalid'), or a result near overflow or underflow, is the scalar
    loop's bit for bit; warnings as NumPy's."""
    rng = np.random.default_rng(21)
    n = 20_000
    mag = np.exp(rng.uniform(-3, 3, n)).astype(dt)      # |k| * 3 / ln 2 < 126: normal results
    k = rng.integers(-25, 26, n).astype(dt)
    sign = np.where(rng.random(n) < 0.5, -1, 1).astype(dt)
    with np.errstate(all="ignore"):
        got = tl.power(sign * mag, k)
        pos = tl.power(mag, k)
        exact = np.power((sign * mag).astype(np.longdouble), k.astype(np.longdouble)).astype(dt)
    flip = (sign < 0) & (k % 2 != 0)
    want = np.where(flip, -pos, pos)
    assert _bits(got).tolist() == _bits(want).tolist()
    assert (got[flip] < 0).all() and (got[~flip] > 0).all()
    assert ulp_diff(got, exact).max() <= LIBMVEC_ULPS
    # negative bases in every lane of a vector among positive ones, odd and even exponents, and
    # exponents the vector loop leaves to the scalar one: -2.5 (NaN), 40 / -40 (float32: near
    # overflow / underflow), 300 / -300 (float64: overflow, underflow to 0)
    fi = np.finfo(dt)
    base_x, base_y = np.full(48, 1.75, dt), np.full(48, 3.0, dt)
    for v in (-1.75, -0.3, -7.0, -fi.tiny * 4, -fi.max / 2):
        for e in (1.0, 2.0, 3.0, -5.0, 6.0, -2.5, 40.0, -40.0, 300.0, -300.0):
            for pos in (0, 5, 15, 16, 31, 47):
                a, b = base_x.copy(), base_y.copy()
                a[pos], b[pos] = v, e
                with np.errstate(all="ignore"):
                    g = tl.power(a, b)
                    w = _scalar_power(a, b, vmath)
                    ex = np.power(a.astype(np.longdouble), b.astype(np.longdouble)).astype(dt)
                near = (np.abs(np.frexp(a[pos])[1] - 1) + 1) * abs(e) \
                    > (100 if dt == np.float32 else 1000)                 # TL_VM_NEG_pow's
                if e != int(e) or near or abs(v) < fi.tiny * 8:
                    assert _bits(g[pos]) == _bits(w[pos]), (v, e, pos)
                else:
                    assert ulp_diff(g[pos:pos + 1], ex[pos:pos + 1]).max() <= LIBMVEC_ULPS, (v, e)
                    with np.errstate(all="ignore"):
                        m = tl.power(np.abs(a), b)[pos]
                    assert _bits(g[pos]) == _bits(-m if int(e) % 2 else m), (v, e, pos)
                assert np.delete(g, pos).tolist() == np.delete(w, pos).tolist()
                assert _warnings(lambda: tl.power(a, b)) == _warnings(lambda: np.power(a, b)), \
                    (v, e, pos)


def _scalar_power(a, b, on):
    _ufuncs.set_vmath(False)
    try:
        return tl.power(a, b)
    finally:
        _ufuncs.set_vmath(on)


HALF_VMATH = ["cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
              "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
              "arctanh"]


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", HALF_VMATH)
def test_half_transcendentals_every_bit_pattern(name, dt):
    """float16/bfloat16 transcendentals on contiguous data run libmvec's float32 loop, recompute
    the results near a rounding boundary of the half type with the scalar function, then round:
    every input's bits and the warnings equal the element loop's (strided data, and the scalar
    loops), and the values are within 1 ulp of the correctly rounded result (float64, rounded)."""
    d = np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt)
    x = np.arange(1 << 16, dtype=np.uint16).view(d)
    uf = getattr(tl, name)

    def run(v):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                r = uf(v)
        return r, sorted({str(m.message) for m in w})
    def same(a, b):
        # bfloat16 NaNs: the block conversion gives ml_dtypes' canonical quiet NaN, the element
        # loop keeps the payload
        eq = a.view(np.uint16) == b.view(np.uint16)
        if dt == "bfloat16":
            eq |= np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
        return eq.all()
    got, gw = run(x)
    strided = np.empty(2 << 16, np.uint16).view(d)
    strided[::2] = x
    ref, rw = run(strided[::2])
    assert same(got, ref), name
    assert gw == rw, (name, gw, rw)
    _ufuncs.set_vmath(False)
    try:
        sc, sw = run(x)
    finally:
        _ufuncs.set_vmath(None)
    assert same(got, sc) and gw == sw, name
    with np.errstate(all="ignore"):
        exact = getattr(np, name)(x.astype(np.float64)).astype(d)
    fin = np.isfinite(exact.astype(np.float32)) & np.isfinite(got.astype(np.float32))
    gi = got.view(np.int16)[fin].astype(np.int32)
    ei = exact.view(np.int16)[fin].astype(np.int32)
    # ulps on the sign-magnitude integer line
    gi = np.where(gi < 0, -(gi & 0x7fff), gi)
    ei = np.where(ei < 0, -(ei & 0x7fff), ei)
    assert np.abs(gi - ei).max(initial=0) <= 1, name
    assert (np.isnan(got.astype(np.float32)) == np.isnan(exact.astype(np.float32))).all(), name


@pytest.fixture
def tables_now():
    """float16/bfloat16 transcendentals through their tables from the next call on."""
    old = _ufuncs.set_tables_after(0)
    yield
    _ufuncs.set_tables_after(old)


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op", OPS)
def test_tables_give_the_element_loop_for_every_value(op, dt, simd, tables_now):
    """float16/bfloat16 transcendentals by table (a gather per 16 or 8 elements, a lookup per
    element without SIMD or on strided data): every one of the 65536 values gives the element
    loop's bits, and each chunk of 2048 values (and odd short runs, strided and in-place calls)
    the element loop's warnings."""
    f = getattr(tl, op)
    x = np.arange(65536, dtype=np.uint16).view(dt)
    rng = np.random.default_rng(3)
    y = x[rng.permutation(65536)]

    def element_loop(v):
        _ufuncs.set_vmath(False)
        try:
            with np.errstate(all="ignore"):
                r = f(v)
            return r, _warnings(lambda: f(v))
        finally:
            _ufuncs.set_vmath(None)

    _ufuncs.set_simd(simd)
    try:
        with np.errstate(all="ignore"):
            f(x[:3])            # builds the table
        runs = [x[k:k + 2048] for k in range(0, 65536, 2048)]
        runs += [y[k:k + n] for k, n in ((5, 1), (100, 7), (999, 15), (3000, 17), (7001, 33))]
        runs += [y[::3], y[1::7]]
        for v in runs:
            with np.errstate(all="ignore"):
                got = f(v)
            want, warned = element_loop(v)
            assert got.tobytes() == want.tobytes(), (op, v[got.view(np.uint16) != want.view(np.uint16)][:4])
            assert _warnings(lambda: f(v)) == warned, (op, v[:4])
        z = y.copy()
        with np.errstate(all="ignore"):
            f(z, out=z)
        assert z.tobytes() == element_loop(y)[0].tobytes()
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("op", ["log10", "arcsin", "arccos"])
@pytest.mark.parametrize("on", [True, False])
def test_domain_error_nan_is_numpys(op, on):
    """Out of the domain (not NaN), NumPy's float16/float32/float64 loops give the CPU's default
    NaN (-NaN on x86) where they run SVML (AVX512_SKX), glibc's +NaN elsewhere: ours give
    NumPy's bits on either kind of machine, on the vector paths (every layout) and the scalar
    ones."""
    x0 = np.array([-2.0, -0.5, -np.inf, 2.0, np.inf, -1e30, -3.0, 1.5] * 5)
    _ufuncs.set_vmath(on)
    try:
        for dt in (np.float16, np.float32, np.float64):
            x = x0.astype(dt)
            u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]
            with np.errstate(all="ignore"):
                want = getattr(np, op)(x)
                nan = np.isnan(want)
                assert nan.sum() >= x.size // 2
                want = np.where(nan, want, 0).astype(dt).view(u)     # the NaN lanes' bits
                for got in (getattr(tl, op)(x), getattr(tl, op)(x[::-1])[::-1],
                            getattr(tl, op)(x[::2]), getattr(tl, op)(x[3])):
                    got = np.asarray(got)
                    n = got.size
                    ref = want[::2] if n == x.size // 2 else want[3] if n == 1 else want
                    got = np.where(np.isnan(got), got, 0).astype(dt).view(u)
                    assert np.array_equal(got, ref), (op, dt, on)
    finally:
        _ufuncs.set_vmath(None)
