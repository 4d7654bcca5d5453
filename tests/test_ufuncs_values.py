"""Values of every ufunc against NumPy's own ufunc on the inputs cast to the compute dtype
(ml_dtypes' loops for bfloat16): bit for bit where NumPy is exact, within 2 ulp for
transcendental functions and complex multiply/divide/power."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from ufunc_reference import (ALL_OPS, ARRAY_KINDS, COMPLEX_JAX, KINDS, LONG, PY_VALUE,
                             complex_ref, compute_dtypes, dtype, expected)

BF16 = np.dtype(ml_dtypes.bfloat16)
# the references (NumPy, ml_dtypes) warn on special values; the tests that compare warnings
# record them explicitly
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
# ops whose float results may differ from NumPy's by rounding (SIMD libm vs plain libm)
APPROX = {"arctan2", "hypot", "logaddexp", "logaddexp2", "power", "float_power"}
APPROX_COMPLEX = {"multiply", "divide", "true_divide", "power", "float_power"}
# NumPy reference ufunc per op (float_power: NumPy only has float64/complex128 loops)
NP_REF = {"float_power": np.power}


def special_values(dt):
    """Values of dtype dt covering signs, zeros, extremes, NaN/inf."""
    dt = np.dtype(dt)
    if dt == bool:
        return np.array([False, True], dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = {0, 1, 2, 3, 7, info.max, info.max - 1, 100 % (info.max + 1), 13}
        if dt.kind == "i":
            vals |= {-1, -2, -7, info.min, info.min + 1, -13}
        return np.array(sorted(vals), dt)
    base = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, -7.0, 1e-3, 65504.0, 1e30, -1e30,
            np.inf, -np.inf, np.nan, 1e-7, 2.0**-20, 123.456, -0.75]
    if dt.kind == "c":
        re = np.array(base[:16], np.float64)
        vals = np.empty((re.size, re[::3].size), np.complex128)
        vals.real, vals.imag = re[:, None], re[None, ::3]   # (re + 1j * inf has a NaN real part)
        return vals.ravel().astype(dt)
    with np.errstate(all="ignore"):
        return np.array(base, np.float64).astype(dt)


def reference(name, x, y, cdt):
    """NumPy's ufunc on x, y (already of the compute dtypes); JAX's definition for the complex
    ops NumPy has no loop for."""
    if name in COMPLEX_JAX and x.dtype.kind == "c":
        return complex_ref(name, x, y)
    f = NP_REF.get(name, getattr(np, name))
    if name == "ldexp":
        if y.dtype == np.uint64:        # NumPy has no uint64 exponent: saturate, as ours does
            y = np.minimum(y, np.iinfo(np.int64).max).astype(np.int64)
        if x.dtype == BF16:             # ml_dtypes' ldexp takes int32 (the same past its range)
            y = np.clip(y, -2**31, 2**31 - 1).astype(np.int32)
    return f(x, y)


def ulp_diff(a, b):
    """Distance in units in the last place between equal-dtype float arrays (NaN == NaN)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype.kind == "c":
        return np.maximum(ulp_diff(a.real, b.real), ulp_diff(a.imag, b.imag))
    return _ulp_real(a, b)


def complex_err_ulps(a, b):
    """Error of complex results in ulps of the larger component (the usual complex measure:
    a component that cancels to ~0 is compared against the magnitude, not itself)."""
    ft = a.real.dtype
    exact = ulp_diff(a, b) == 0
    mag = np.maximum(np.abs(b.real), np.abs(b.imag)).astype(np.float64)
    err = np.maximum(np.abs(a.real.astype(np.float64) - b.real),
                     np.abs(a.imag.astype(np.float64) - b.imag))
    with np.errstate(all="ignore"):
        ulps = err / (mag * np.finfo(ft).eps)
    return np.where(exact, 0, np.where(np.isfinite(ulps), ulps, 1 << 40))


def _ulp_real(a, b):
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(bits).astype(np.int64)
    ib = b.view(bits).astype(np.int64)
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia & (sign - 1)), ia)   # monotone integer ordering
    ib = np.where(ib < 0, -(ib & (sign - 1)), ib)
    nan_a = np.isnan(a.astype(np.float32) if a.dtype == BF16 else a)
    nan_b = np.isnan(b.astype(np.float32) if b.dtype == BF16 else b)
    d = np.abs(ia - ib)
    d = np.where(nan_a & nan_b, 0, d)
    d = np.where(nan_a != nan_b, 1 << 40, d)
    return d


def assert_complex_jax(got, want, x, y, name, label):
    """arctan2/logaddexp/logaddexp2 on complex: the loops (real libm functions only, shared with
    the CUDA kernels) against NumPy's complex ufuncs composed by JAX's definition, both in the
    compute dtype: within 8 eps of 1 + |x| + |y|, as non-finite where the reference is, and for
    arctan2 modulo 2 pi (which of -pi and pi the branch cut gives depends on the sign a zero gets
    in the division) and only where x x + y y, the square root that divides, does not cancel
    (y = +-i x makes it 0). x, y None: a reduction's result, within 8 eps of 1 + its size."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
    assert got.shape == want.shape, label
    if x is None:                       # a reduction: the result's own scale
        x = y = np.zeros_like(want)
        scale = 1 + np.abs(want).astype(np.float64)
    else:
        got, want, x, y = np.broadcast_arrays(got, want, np.asarray(x, want.dtype),
                                              np.asarray(y, want.dtype))
        scale = 1 + np.abs(x).astype(np.float64) + np.abs(y).astype(np.float64)
    f = want.real.dtype
    with np.errstate(all="ignore"):
        dre = got.real.astype(np.float64) - want.real
        dim = got.imag.astype(np.float64) - want.imag
        ok = np.ones(got.shape, bool)
        if name == "arctan2":
            dre = np.remainder(dre + np.pi, 2 * np.pi) - np.pi
            xx = (x * x + y * y).astype(np.complex128)
            big = np.abs(x.astype(np.complex128)) ** 2 + np.abs(y.astype(np.complex128)) ** 2
            ok = np.abs(xx) > 1e-3 * big
        err = np.maximum(np.abs(dre), np.abs(dim)) / (scale * np.finfo(f).eps)
    finite = np.isfinite(want)
    bad = ok & ((finite & ~(err <= 8)) | (~finite & np.isfinite(got)))
    if bad.any():
        idx = np.argwhere(bad)[:5]
        raise AssertionError(f"{label}: {bad.sum()} values differ, e.g. " + "; ".join(
            f"{name}({x[tuple(i)]!r}, {y[tuple(i)]!r}): got {got[tuple(i)]!r} want "
            f"{want[tuple(i)]!r}" for i in idx))


def assert_same(got, want, name, label, x=None, y=None):
    got = np.asarray(got)
    want = np.asarray(want)
    if name in COMPLEX_JAX and want.dtype.kind == "c":
        assert_complex_jax(got, want, x, y, name, label)
        return
    assert got.dtype == want.dtype, (label, got.dtype, want.dtype)
    assert got.shape == want.shape, label
    if got.dtype.kind in "fcV" or got.dtype == BF16:
        exact_ops = not (name in APPROX or (got.dtype.kind == "c" and name in APPROX_COMPLEX))
        d = ulp_diff(got, want)
        tol = 0 if exact_ops else 2
        if got.dtype.kind == "c" and not exact_ops:
            d = complex_err_ulps(got, want)
        if exact_ops and got.dtype.kind != "c":
            gz, wz = _as_float(got), _as_float(want)
            zero_sign = (gz == 0) & (wz == 0) & (np.signbit(gz) != np.signbit(wz))
            assert not zero_sign.any(), f"{label}: sign of zero differs at {np.argwhere(zero_sign)[:5]}"
        if d.max(initial=0) > tol:
            idx = np.argwhere(d > tol)[:5]
            raise AssertionError(f"{label}: {len(np.argwhere(d > tol))} values differ, e.g. "
                                 + "; ".join(f"{tuple(i)}: got {got[tuple(i)]!r} want "
                                             f"{want[tuple(i)]!r}" for i in idx))
    else:
        if not np.array_equal(got, want):
            idx = np.argwhere(got != want)[:5]
            raise AssertionError(f"{label}: e.g. " + "; ".join(
                f"{tuple(i)}: got {got[tuple(i)]!r} want {want[tuple(i)]!r}" for i in idx))


def _as_float(x):
    return x.astype(np.float32) if x.dtype == BF16 else x


def _ok(name, a, b):
    return not isinstance(expected(name, a, b), type)


@pytest.mark.parametrize("name", ALL_OPS)
def test_same_dtype_values_all_pairs_of_special_values(name):
    """Every pair of special values of each dtype the op accepts."""
    uf = getattr(tl, name)
    for k in ARRAY_KINDS:
        if not _ok(name, k, k):
            continue
        dt = dtype(LONG[k])
        v = special_values(dt)
        x, y = v[:, None], v[None, :]
        if name == "ldexp":
            y = np.array([0, 1, -1, 5, -30, 200, -200, 2**40], np.int64)[None, :]
        if name == "power" and dt.kind in "iu":
            y = y[:, (y >= 0).ravel()]
        cx, cy = compute_dtypes(name, k, "i64" if name == "ldexp" else k)   # y: int64 exponents
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = uf(x, y)
            want = reference(name, x.astype(dtype(cx)), y.astype(dtype(cy)), cx)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert_same(g, w, name, f"{name}[{k}]", x.astype(dtype(cx)), y.astype(dtype(cy)))


@pytest.mark.parametrize("name", ALL_OPS)
def test_mixed_pairs_values(name):
    """All 18 x 18 operand kinds with ordinary values: equal to NumPy on the cast inputs."""
    uf = getattr(tl, name)
    rng = np.random.default_rng(sum(map(ord, name)))
    for a in KINDS:
        for b in KINDS:
            if not _ok(name, a, b):
                continue
            x = _values(a, rng)
            y = _values(b, rng, exponent=name in ("power", "float_power", "ldexp"))
            cx, cy = compute_dtypes(name, a, b)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = uf(x, y)
                want = reference(name, np.asarray(x).astype(dtype(cx)),
                                 np.asarray(y).astype(dtype(cy)), cx)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            for g, w in zip(got, want):
                assert_same(g, w, name, f"{name}({a}, {b})", np.asarray(x).astype(dtype(cx)),
                            np.asarray(y).astype(dtype(cy)))


def _values(k, rng, exponent=False):
    if k in PY_VALUE:
        return {"i*": 3, "f*": 2.5, "c*": 1.5 - 0.5j}[k]
    dt = dtype(LONG[k])
    if dt == bool:
        return rng.integers(0, 2, 16).astype(bool)
    if dt.kind in "iu":
        lo = 0 if (dt.kind == "u" or exponent) else -20
        return rng.integers(lo, 6 if exponent else 20, 16).astype(dt)
    v = rng.normal(0, 4, 16)
    if exponent:
        v = np.abs(v) % 4
    if dt.kind == "c":
        v = v + 1j * rng.normal(0, 4, 16)
    return v.astype(dt)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_jax_ops_on_the_real_axis(dt):
    """Complex arctan2/logaddexp/logaddexp2 of operands with zero imaginary parts are the real
    functions: NumPy's real ufuncs on the real parts (an independent reference for the complex
    loops' definition), imaginary part within 8 eps of 0."""
    rng = np.random.default_rng(7)
    f = np.dtype(dt).type(0).real.dtype
    a = rng.normal(0, 5, 4000).astype(f)
    b = rng.normal(0, 5, 4000).astype(f)
    eps = np.finfo(f).eps
    for name in ("arctan2", "logaddexp", "logaddexp2"):
        got = getattr(tl, name)(a.astype(dt), b.astype(dt))
        want = getattr(np, name)(a, b)
        assert got.dtype == dt
        err = np.abs(got.real.astype(np.float64) - want) / (eps * (1 + np.abs(want)))
        assert err.max() <= 8, (name, err.max(), a[np.argmax(err)], b[np.argmax(err)])
        assert np.all(np.abs(got.imag) <= 8 * eps), (name, np.abs(got.imag).max())


def test_float16_rounding_every_bit_pattern():
    """float16 add/multiply over all finite bit patterns against NumPy (round to nearest even,
    overflow to inf)."""
    allbits = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16)
    y = np.float16(1.0009765625)  # 1 + 2**-10
    for name in ("add", "multiply", "divide", "subtract"):
        with np.errstate(all="ignore"):
            got = getattr(tl, name)(allbits, y)
            want = getattr(np, name)(allbits, y)
        assert_same(got, want, name, f"{name} float16 all bits")


def test_bfloat16_rounding_every_bit_pattern():
    allbits = np.arange(0, 1 << 16, dtype=np.uint16).view(BF16)
    y = np.array(1.0078125, BF16)
    for name in ("add", "multiply", "divide", "nextafter", "maximum", "fmin"):
        with np.errstate(all="ignore"):
            got = getattr(tl, name)(allbits, y)
            want = getattr(np, name)(allbits, y)
        assert_same(got, want, name, f"{name} bfloat16 all bits")


def test_float16_nextafter_every_bit_pattern():
    allbits = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16)
    for y in (np.float16(0), np.float16(-np.inf), np.float16(np.inf), np.float16(-0.0)):
        with np.errstate(all="ignore"):
            assert_same(tl.nextafter(allbits, y), np.nextafter(allbits, y), "nextafter",
                        f"nextafter f16 towards {y}")


def test_floating_point_errors_like_numpy():
    a = np.array([1, 2, 0], np.int16)
    for name in ("floor_divide", "remainder", "fmod", "divmod"):
        with np.errstate(divide="raise"):
            with pytest.raises(FloatingPointError):
                getattr(tl, name)(a, np.int16(0))
        with np.errstate(divide="ignore"):
            got = getattr(tl, name)(a, np.int16(0))
            want = getattr(np, name)(a, np.int16(0))
        assert np.array_equal(got, want)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            tl.floor_divide(np.array([-128], np.int8), np.int8(-1))
        with pytest.raises(FloatingPointError):   # float16 overflow in rounding
            tl.add(np.array([60000], np.float16), np.float16(60000))
        with pytest.raises(FloatingPointError):
            tl.multiply(np.array([1e30], np.float32), 1e30)
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            tl.subtract(np.array([np.inf]), np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="divide by zero"):
            tl.divide(np.ones(2, np.float32), 0.0)
    with pytest.raises(ValueError, match="negative integer powers"):
        tl.power(np.arange(3), -1)


@pytest.mark.parametrize("f16c", [False, True])
def test_float16_paths_agree_every_bit_pattern(f16c):
    """The software and the F16C float16 conversions give NumPy's values (F16C only when the CPU
    has it), for same-dtype and for mixed (blocked) loops and for strided operands."""
    from typelattice import _ufuncs
    used = _ufuncs.set_simd(f16c)
    try:
        if f16c and not used:
            pytest.skip("no F16C on this CPU")
        allbits = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16)
        i8 = (np.arange(1 << 16) % 256 - 128).astype(np.int8)
        with np.errstate(all="ignore"):
            for name in ("add", "multiply", "divide", "maximum", "less", "arctan2"):
                uf, ref = getattr(tl, name), getattr(np, name)
                assert_same(uf(allbits, allbits[::-1]), ref(allbits, allbits[::-1]), name,
                            f"{name} f16 all bits")
                assert_same(uf(i8, allbits), ref(i8.astype(np.float16), allbits), name,
                            f"{name} int8|f16")
                assert_same(uf(allbits[::3], i8[::3]), ref(allbits[::3], i8[::3].astype(
                    np.float16)), name, f"{name} strided")
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError):
                tl.add(np.full(100, 60000, np.float16), np.float16(60000))
            with pytest.raises(FloatingPointError):
                tl.multiply(np.full(100, 100, np.int8), np.full(100, 1000, np.float16))
    finally:
        _ufuncs.set_simd(None)


def test_mixed_input_loops_read_operands_without_casting():
    """int8 + float16 runs one blocked loop reading int8 and float16 (no int8 -> float16 temp)."""
    got = tl.add.resolve_dtypes((np.dtype(np.int8), np.dtype(np.float16), None))
    assert got == (np.dtype(np.int8), np.dtype(np.float16), np.dtype(np.float16))
    got = tl.less.resolve_dtypes((np.dtype(np.uint16), np.dtype(np.float32), None))
    assert got == (np.dtype(np.uint16), np.dtype(np.float32), np.dtype(bool))
    # int16 -> float16 is not exact: the loop rounds the operand as NumPy's cast first
    # (2049 -> 2048; 2049 + 1 unrounded would give 2050)
    got = tl.add.resolve_dtypes((np.dtype(np.int16), np.dtype(np.float16), None))
    assert got == (np.dtype(np.int16), np.dtype(np.float16), np.dtype(np.float16))
    a = np.array([2049] * 20, np.int16)
    assert_same(tl.add(a, np.ones(20, np.float16)), np.full(20, 2048, np.float16), "add", "2049")
    a = np.arange(-3000, 3000, 7, dtype=np.int16)
    h = np.linspace(-5, 5, a.size).astype(np.float16)
    assert_same(tl.add(a, h), np.add(a.astype(np.float16), h), "add", "int16|f16")
    x = np.ones(10, np.float16)
    assert_same(tl.add.accumulate(x), np.add.accumulate(x), "add", "f16 accumulate")


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal", "equal",
                                  "maximum", "minimum", "fmax", "fmin", "floor_divide",
                                  "remainder", "heaviside", "copysign", "nextafter", "arctan2",
                                  "logaddexp", "hypot", "add", "logical_or"])
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64])
def test_nan_warnings_as_numpy(name, dt):
    """NaN operands warn ('invalid value') exactly when NumPy's loop warns: comparisons are
    quiet (isless, not <)."""
    want_dt = expected(name, *([{np.float16: "f16", np.float32: "f32", np.float64: "f64",
                                 np.complex64: "c64"}[dt]] * 2))
    if isinstance(want_dt, type):
        return
    x = np.array([np.nan, 1.0, -2.0, np.nan] * 8, dt)
    y = np.array([1.0, np.nan, 3.0, np.nan] * 8, dt)

    def warns(f):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                f(x, y)
                f(x[::2], y[0])
        return sorted({str(m.message).split(" in ")[0] for m in w})

    ref = getattr(np, name)
    if name in COMPLEX_JAX and x.dtype.kind == "c":     # NumPy's ufuncs that JAX's definition uses
        ref = lambda a, b: complex_ref(name, np.asarray(a, dt), np.asarray(b, dt))  # noqa: E731
    assert warns(getattr(tl, name)) == warns(ref)


@pytest.mark.parametrize("name", ALL_OPS)
def test_fp_warnings_as_numpy_on_special_values(name):
    """The set of floating-point warnings (divide by zero, overflow, invalid) of each op on the
    special values of each dtype equals NumPy's. Not compared for bfloat16: ml_dtypes' loops
    flag differently from NumPy's (its comparisons flag NaN as invalid, its floor_divide
    does not flag division by zero); typelattice follows NumPy's float16/float32 behaviour."""
    uf = getattr(tl, name)
    bad = []
    for k in ARRAY_KINDS:
        if not _ok(name, k, k) or k == "bf16":
            continue
        dt = dtype(LONG[k])
        v = special_values(dt)
        x, y = v[:, None], v[None, :]
        if name == "ldexp":
            y = np.array([0, 1, -1, 5, -30, 200, -200], np.int64)[None, :]
        if name == "power" and dt.kind in "iu":
            y = y[:, (y >= 0).ravel()]
        cx, cy = compute_dtypes(name, k, "i64" if name == "ldexp" else k)   # y: int64 exponents
        xr, yr = x.astype(dtype(cx)), y.astype(dtype(cy))

        def warns(f, a, b):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                with np.errstate(all="warn", under="ignore"):
                    f(a, b)
            return sorted({str(m.message).split(" encountered")[0] for m in w
                           if issubclass(m.category, RuntimeWarning)})

        got = warns(uf, x, y)
        want = warns(lambda a, b: reference(name, a, b, cx), xr, yr)
        if got != want:
            bad.append(f"{k}: got {got}, NumPy {want}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                np.int64, np.uint64])
def test_integer_power_of_a_scalar_exponent_is_numpys(dt):
    """Integer power of a scalar exponent (a block loop of squarings, in place of the element
    loop): NumPy's values, wrapping included, for a Python int, a 0-d array and a broadcast
    exponent, contiguous and strided bases; a negative exponent raises as NumPy's; reduce and
    accumulate (which feed the output back) as NumPy's."""
    rng = np.random.default_rng(11)
    info = np.iinfo(dt)
    a = rng.integers(max(info.min, -300), min(info.max, 300), 5000, endpoint=True).astype(dt)
    a[:4] = [0, 1, info.max, info.min]
    for y in (0, 1, 2, 3, 7, 31, 63, 64, 127):
        ref = np.power(a, np.array(y, dt))
        for exponent in (y, np.array(y, dt), np.broadcast_to(np.array(y, dt), a.shape)):
            got = tl.power(a, exponent)
            assert got.dtype == ref.dtype and (got == ref).all(), (y, type(exponent))
        assert (tl.power(a[::-3], y) == ref[::-3]).all(), y
        out = np.empty_like(a)
        assert tl.power(a, y, out=out) is out and (out == ref).all(), y
    if info.min < 0:
        with pytest.raises(ValueError, match="negative integer powers"):
            tl.power(a, -2)
    small = np.array([2, 3, 2], dt)
    assert (tl.power.reduce(small) == np.power.reduce(small)).all()
    assert (tl.power.accumulate(small) == np.power.accumulate(small)).all()


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64", "int8", "uint64"])
def test_ldexp_uint64_exponents_do_not_wrap(dt):
    """uint64 exponents of 2**63 and more scale as the largest int64 exponent does (inf, 0 for
    0, NaN for NaN), as JAX's ldexp gives; NumPy's cast to int64 would wrap them negative."""
    x = np.array([1.5, -1.5, 0.0, -0.0, np.inf, np.nan, 3.0, 1e-3])
    x = x.astype(dtype(dt)) if np.dtype(dtype(dt)).kind == "f" else np.arange(8).astype(dt)
    e = np.array([2**63, 2**64 - 1, 2**63 + 5, 2**63 - 1, 0, 3, 1, 40], np.uint64)
    with np.errstate(all="ignore"):
        got = tl.ldexp(x, e)
        want = reference("ldexp", x.astype(got.dtype), e, None)
        assert_same(got, want, "ldexp", dt)
        assert_same(tl.ldexp(x[::-1], e[::-1]), want[::-1], "ldexp", (dt, "reversed"))
