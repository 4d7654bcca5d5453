"""The speed paths of the ufunc loops give NumPy's (ml_dtypes') bits and FP warnings:
blocked loops reading integer operands that round to the compute dtype (int32 + float32,
int64 + bfloat16), integer-key float comparisons, and every float16/bfloat16 conversion path."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from test_ufuncs_values import assert_same
from typelattice import _ufuncs

BF16 = np.dtype(ml_dtypes.bfloat16)
OPS = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "less_equal",
       "greater", "greater_equal", "equal")


def _ints(dt, n, rng):
    ii = np.iinfo(dt)
    x = rng.integers(ii.min, ii.max, n, dtype=dt, endpoint=True)
    shifts = rng.integers(0, ii.bits, n)
    y = (x >> shifts.astype(dt)) if ii.min < 0 else (x >> shifts.astype(dt))
    edge = np.array([ii.min, ii.max, 0, 1, 2 ** (ii.bits // 2) + 1], dtype=dt)
    return np.concatenate([edge, y.astype(dt)])


def _floats(dt, n, rng):
    f = rng.standard_normal(n).astype(np.float32) * np.float32(1e4)  # n + 9 values
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 65504.0, 3e38], np.float32)
    with np.errstate(over="ignore"):
        return np.concatenate([sp, f]).astype(dt)


def _bits(x):
    x = np.asarray(x)
    return x.view(np.uint8) if x.dtype.itemsize == 1 else x.view(f"u{x.dtype.itemsize}")


@pytest.mark.parametrize("ity, fty", [
    ("int32", "float32"), ("uint32", "float32"), ("int64", "float32"), ("uint64", "float32"),
    ("int16", "float32"), ("int64", "float64"), ("uint64", "float64"), ("int32", "float64"),
    ("int16", BF16), ("uint16", BF16), ("int32", BF16), ("uint32", BF16), ("int64", BF16),
    ("uint64", BF16), ("int8", BF16)])
def test_mixed_int_float_reads_ints_and_rounds_like_numpy(ity, fty):
    rng = np.random.default_rng(7)
    fty = np.dtype(fty)
    n = 3000
    i = _ints(np.dtype(ity), n, rng)
    f = _floats(fty, i.size, rng)[:i.size]
    res = tl.add.resolve_dtypes((i.dtype, fty, None))
    if res[2] != fty:
        pytest.skip(f"{ity} + {fty} promotes to {res[2]}")
    assert res[0] == i.dtype, "the blocked loop reads the integer operand itself"
    with np.errstate(all="ignore"):
        ic = i.astype(fty)
        for name in OPS:
            uf, ref = getattr(tl, name), getattr(np, name)
            for a, b, ra, rb in ((i, f, ic, f), (f, i, f, ic), (i[::3], f[::3], ic[::3], f[::3])):
                got, want = uf(a, b), ref(ra, rb)
                assert got.dtype == want.dtype, name
                if got.dtype.kind == "b":
                    np.testing.assert_array_equal(got, want, err_msg=name)
                else:
                    g, w = got.astype(np.float64), want.astype(np.float64)
                    nan = np.isnan(g) & np.isnan(w)
                    assert ((_bits(got) == _bits(want)) | nan).all(), (name, ity, fty)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", BF16])
def test_comparisons_quiet_and_exact(dt, simd):
    """SIMD and integer-key comparisons: -0 == +0, NaN compares false, no 'invalid' warning."""
    _ufuncs.set_simd(simd)
    try:
        _check_comparisons(np.dtype(dt))
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_comparison_blocks_every_tail(dt, simd):
    """The block comparisons (tl_vcmp_*: 64 elements per AVX-512 step, masked tails): every length
    up to two steps and more, scalar first or second operand, a signalling NaN, out=."""
    _ufuncs.set_simd(simd)
    try:
        u = np.uint32 if dt == "float32" else np.uint64
        snan = np.array([0x7f800001 if dt == "float32" else 0x7ff0000000000001], u).view(dt)
        sp = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0], dt),
                             snan])
        rng = np.random.default_rng(5)
        a = rng.choice(sp, 200)
        b = rng.choice(sp, 200)
        for name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
            uf, ref = getattr(tl, name), getattr(np, name)
            with np.errstate(all="raise"):
                for n in list(range(0, 140)) + [200]:
                    np.testing.assert_array_equal(uf(a[:n], b[:n]), ref(a[:n], b[:n]),
                                                  err_msg=f"{name} {n}")
                    np.testing.assert_array_equal(uf(a[1:n], b[0]), ref(a[1:n], b[0]))
                    np.testing.assert_array_equal(uf(a[-1], b[:n]), ref(a[-1], b[:n]))
                for s in sp:
                    np.testing.assert_array_equal(uf(a, s), ref(a, s))
                    np.testing.assert_array_equal(uf(s, b), ref(s, b))
                out = np.ones(200, bool)
                uf(a, b, out=out)
                np.testing.assert_array_equal(out, ref(a, b))
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
def test_pairwise_sum_every_path_is_numpys(simd):
    """add.reduce's pairwise summation (AVX-512, AVX2 and portable variants, chosen at run time;
    real and complex) gives NumPy's bits: every length around the 8-wide and 128-element blocks, strides, axes,
    NaN/inf/-0.0, values spanning magnitudes (the order of the additions shows)."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(11)
        for dt in (np.float16, np.float32, np.float64, np.complex64, np.complex128):
            for n in list(range(0, 270)) + [1000, 1023, 1025, 4097, 65537, 100003]:
                a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dt)
                if a.dtype.kind == "c":
                    a += 1j * rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)
                if n > 20:
                    a[[3, n // 2]] = [-0.0, np.inf if n % 7 == 0 else np.nan if n % 11 == 0 else 1]
                for x in (a, a[::2], a[::-3]):
                    with np.errstate(all="ignore"):
                        got, want = tl.add.reduce(x), np.add.reduce(x)
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (dt, n)
            m = rng.standard_normal((37, 300)).astype(dt)
            for ax in (0, 1, None):
                assert np.asarray(tl.add.reduce(m, axis=ax)).tobytes() \
                    == np.asarray(np.add.reduce(m, axis=ax)).tobytes(), (dt, ax)
    finally:
        _ufuncs.set_simd(None)


def _minmax_sequential(op, acc, xs):
    """The element loop's rule, left to right (the reference of the SIMD reductions)."""
    for x in xs:
        if op == "maximum":
            acc = acc if (acc > x or acc != acc) else x
        elif op == "minimum":
            acc = acc if (acc < x or acc != acc) else x
        elif op == "fmax":
            acc = acc if (acc > x or x != x) else x
        else:
            acc = acc if (acc < x or x != x) else x
    return acc


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_minmax_reductions_every_path(dt, simd):
    """maximum/minimum/fmax/fmin reduce (a SIMD pass for the extreme, scans for NaN and for the
    sign of a zero) give the element loop's exact result: the first NaN (maximum/minimum), NaNs
    skipped (fmax/fmin), the last of equal values (the sign of a zero); every offset and length;
    values equal to NumPy's."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(4)
        dt = np.dtype(dt)
        u = np.uint32 if dt.itemsize == 4 else np.uint64
        payload = np.array([0x7fc12345 if dt.itemsize == 4 else 0x7ff8000000012345], u).view(dt)
        pools = [np.array([0.0, -0.0], dt), np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1, -1], dt)]
        for trial in range(700):
            n = int(rng.integers(1, 400))
            kind = trial % 4
            x = rng.standard_normal(n).astype(dt) if kind < 2 else rng.choice(pools[kind - 2], n)
            if kind == 1:
                x[rng.integers(0, n)] = payload[0]
            off = int(rng.integers(0, 16))
            buf = np.empty(n + 16, dt)
            y = buf[off:off + n]
            y[...] = x
            for op in ("maximum", "minimum", "fmax", "fmin"):
                with np.errstate(all="ignore"):
                    got = getattr(tl, op).reduce(y)
                    ref = getattr(np, op).reduce(x)
                want = _minmax_sequential(op, x[0], x[1:])
                assert np.asarray(got, dt).tobytes() == np.asarray(want, dt).tobytes(), (op, n, off)
                assert got == ref or (np.isnan(got) and np.isnan(ref)), (op, n)
        big = rng.standard_normal(100_003).astype(dt)
        for op in ("maximum", "minimum", "fmax", "fmin"):
            m = big.reshape(-1, 1)[:100_000].reshape(400, 250)
            for ax in (0, 1, None):
                assert np.array_equal(getattr(tl, op).reduce(m, axis=ax),
                                      getattr(np, op).reduce(m, axis=ax)), (op, ax)
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_minmax_binary_every_layout(dt, simd):
    """maximum/minimum/fmax/fmin of two arrays (the AVX2 and AVX-512 kernels: max/min and blend,
    two vectors a step, element tail): the element functions' choice, bit for bit, with NaN
    payloads of either sign and zeros of either sign, for every length and offset, an operand
    broadcast, and the output in place of either operand."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(11)
        dt = np.dtype(dt)
        u = np.uint32 if dt.itemsize == 4 else np.uint64
        nans = np.array([0x7fc12345, 0xffc00001] if dt.itemsize == 4
                        else [0x7ff8000000012345, 0xfff8000000000001], u).view(dt)
        pool = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5], dt), nans])
        spec = {"maximum": lambda a, b: np.where((a > b) | (a != a), a, b),
                "minimum": lambda a, b: np.where((a < b) | (a != a), a, b),
                "fmax": lambda a, b: np.where((a > b) | (b != b), a, b),
                "fmin": lambda a, b: np.where((a < b) | (b != b), a, b)}
        for n in range(1, 70):
            off = int(rng.integers(0, 8))
            a = np.empty(n + 8, dt)[off:off + n]
            b = np.empty(n + 8, dt)[8 - off:8 - off + n]
            a[...], b[...] = rng.choice(pool, n), rng.choice(pool, n)
            for op, f in spec.items():
                ufunc = getattr(tl, op)
                with np.errstate(all="ignore"):
                    cases = [(ufunc(a, b), f(a, b)), (ufunc(a[0], b), f(np.full(n, a[0]), b)),
                             (ufunc(a, b[0]), f(a, np.full(n, b[0])))]
                    x = a.copy()
                    ufunc(x, b, out=x)
                    y = b.copy()
                    ufunc(a, y, out=y)
                    cases += [(x, f(a, b)), (y, f(a, b))]
                    if op in ("maximum", "minimum"):
                        cases.append((ufunc(a, b), getattr(np, op)(a, b)))
                for k, (got, want) in enumerate(cases):
                    assert np.asarray(got, dt).tobytes() == np.asarray(want, dt).tobytes(), (op, n, k)
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
def test_integer_and_bool_reductions_every_path(simd):
    """Integer max/min (lanes in any order: exact) and bool reductions (early exits) against
    NumPy: every integer type, offsets and lengths, bool bytes other than 0/1."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(6)
        for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
            info = np.iinfo(t)
            for trial in range(60):
                n = int(rng.integers(1, 1200))
                off = int(rng.integers(0, 9))
                x = rng.integers(info.min, info.max, n + 9, dtype=t, endpoint=True)[off:off + n]
                for op in ("maximum", "minimum", "fmax", "fmin"):
                    got, want = getattr(tl, op).reduce(x), getattr(np, op).reduce(x)
                    assert got == want and np.asarray(got).dtype == want.dtype, (t, op, n)
        ops = ("maximum", "minimum", "fmax", "fmin", "bitwise_or", "bitwise_and", "bitwise_xor",
               "logical_or", "logical_and", "logical_xor")
        for trial in range(300):
            n = int(rng.integers(0, 1500))
            x = rng.random(n) < rng.choice([0.0, 0.001, 0.5, 0.999, 1.0])
            if trial % 3 == 0 and n:
                x.view(np.uint8)[rng.integers(0, n)] = 7
            for op in ops:
                if n == 0 and op in ("maximum", "minimum", "fmax", "fmin"):
                    continue
                got, want = getattr(tl, op).reduce(x), getattr(np, op).reduce(x)
                assert bool(got) == bool(want) and np.asarray(got).view(np.uint8) <= 1, (op, n)
                assert np.asarray(got).dtype == np.asarray(want).dtype, op
    finally:
        _ufuncs.set_simd(None)


def _check_comparisons(dt):
    rng = np.random.default_rng(3)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 5e-324, 1.0,
                   -1.0, 2.0, 1e-40, -3e38, 3e38], np.float64)
    with np.errstate(all="ignore"):
        sp = sp.astype(dt)
        bits = rng.integers(0, 2 ** (8 * dt.itemsize), 20000, dtype=f"u{dt.itemsize}",
                            endpoint=False)
        a = np.concatenate([np.repeat(sp, sp.size), bits.view(dt)])
        b = np.concatenate([np.tile(sp, sp.size), np.roll(bits, 1).view(dt)])
        b[-5000:] = a[-5000:]
    for name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                got = getattr(tl, name)(a, b)
                got_s = getattr(tl, name)(a[:-1:2], b[1::2])
                got_0 = getattr(tl, name)(a, b[7])
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(got, getattr(np, name)(a, b), err_msg=name)
            np.testing.assert_array_equal(got_s, getattr(np, name)(a[:-1:2], b[1::2]))
            np.testing.assert_array_equal(got_0, getattr(np, name)(a, b[7]))
            # every tail after the 32- and 8-element steps, each operand layout
            for n in range(0, 72):
                for x, y in ((a[3:3 + n], b[5:5 + n]), (a[:n], b[9]), (a[11], b[:n])):
                    np.testing.assert_array_equal(getattr(tl, name)(x, y),
                                                  getattr(np, name)(x, y), err_msg=(name, n))


@pytest.mark.parametrize("simd", [False, True])
def test_bfloat16_paths_agree_every_bit_pattern(simd):
    used = _ufuncs.set_simd(simd)
    try:
        if simd and not used:
            pytest.skip("no SIMD conversions on this CPU")
        allbits = np.arange(0, 1 << 16, dtype=np.uint16).view(BF16)
        i8 = (np.arange(1 << 16) % 256 - 128).astype(np.int8)
        with np.errstate(all="ignore"):
            for name in ("add", "multiply", "divide", "maximum", "less"):
                uf, ref = getattr(tl, name), getattr(np, name)
                for a, b, ra, rb in ((allbits, allbits[::-1], allbits, allbits[::-1]),
                                     (i8, allbits, i8.astype(BF16), allbits),
                                     (allbits[::3], i8[::3], allbits[::3], i8[::3].astype(BF16))):
                    got, want = uf(a, b), ref(ra, rb)
                    assert got.dtype == want.dtype
                    if got.dtype == BF16:
                        g, w = got.view(np.uint16), want.view(np.uint16)
                        nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
                        assert ((g == w) | nan).all(), name
                    else:
                        np.testing.assert_array_equal(got, want, err_msg=name)
    finally:
        _ufuncs.set_simd(None)


def test_set_simd_reports_path():
    assert _ufuncs.set_simd(False) is False
    assert _ufuncs.simd_isa() == "scalar"
    _ufuncs.set_simd(None)
    assert _ufuncs.simd_isa() in ("avx512+bf16", "avx512", "avx2+f16c", "scalar")
    assert _ufuncs.set_simd("avx512") == (_ufuncs.simd_isa() != "scalar")
    assert _ufuncs.simd_isa() in ("avx512", "avx2+f16c", "scalar")
    _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True])
@pytest.mark.parametrize("et", ["int32", "int64"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_ldexp_every_path_is_numpys(dt, et, simd):
    """ldexp (AVX-512 vscalef; int32 exponents read as they are) equals NumPy's bits and FP
    warnings: exponents over the whole range and beyond int32, subnormal results, overflow,
    zeros, infinities, NaN; scalar operands; every tail length."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(12)
        fi = np.finfo(dt)
        x = np.concatenate([rng.standard_normal(600) * 10.0 ** rng.integers(-30, 30, 600),
                            [0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, fi.tiny / 3,
                             -fi.tiny / 7, fi.max, fi.smallest_subnormal]]).astype(dt)
        big = [2**31 - 1, -2**31] + ([2**40, -2**40, 2**62, -2**63] if et == "int64" else [0] * 4)
        e = np.concatenate([rng.integers(-1200, 1200, x.size - 16), big,
                            [0, 1, -1, 150, -150, -149, -1074, 1023, 127, -126]]).astype(et)
        with np.errstate(all="ignore"):
            for n in list(range(0, 40)) + [x.size]:
                assert tl.ldexp(x[:n], e[:n]).tobytes() == np.ldexp(x[:n], e[:n]).tobytes(), n
            assert tl.ldexp(x[3], e).tobytes() == np.ldexp(x[3], e).tobytes()
            assert tl.ldexp(x, e[5]).tobytes() == np.ldexp(x, e[5]).tobytes()
        for k in range(0, x.size, 7):
            got, want = [], []
            for f, res in ((tl.ldexp, got), (np.ldexp, want)):
                with np.errstate(all="raise"):
                    try:
                        f(x[k:k + 7], e[k:k + 7])
                        res.append(None)
                    except FloatingPointError as err:
                        res.append(str(err).replace("jax.", ""))
            assert got == want, k
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [True, "avx2"])
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_multiply_simd_is_numpys(dt, simd):
    """The AVX-512 and AVX2 complex multiply (the scalar formula's fma/fmaddsub per element) give
    NumPy's bits (its SIMD loop's, on either CPU), specials included, and the portable loop's
    values (NaN bits aside); scalar operands, in place, every tail length; NumPy's warnings with
    an infinite or NaN scalar operand (no flag from the lanes after the last element)."""
    rng = np.random.default_rng(13)
    sp = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e38, 1e-45, 3.0, -2.5, 1e300, 5e-324])
    _ufuncs.set_simd(simd)
    try:
        for n in list(range(0, 40)) + [4099]:
            a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
            b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
            with np.errstate(all="ignore"):
                if n > 5:
                    a.real[::3] = rng.choice(sp, a[::3].size)
                    b.imag[::4] = rng.choice(sp, b[::4].size)
                got = tl.multiply(a, b)
                assert got.tobytes() == np.multiply(a, b).tobytes(), n
                if n:
                    assert tl.multiply(a[0], b).tobytes() == np.multiply(a[0], b).tobytes()
                    assert tl.multiply(a, b[-1]).tobytes() == np.multiply(a, b[-1]).tobytes()
                c = a.copy()
                tl.multiply(c, b, out=c)
                assert c.tobytes() == got.tobytes()
                _ufuncs.set_simd(False)
                try:
                    port = tl.multiply(a, b)
                finally:
                    _ufuncs.set_simd(simd)
            for x, y in ((got.real, port.real), (got.imag, port.imag)):
                same = (x == y) & (np.signbit(x) == np.signbit(y)) | (np.isnan(x) & np.isnan(y))
                assert same.all(), n
        ordinary = (rng.uniform(1, 2, 40) + 1j * rng.uniform(1, 2, 40)).astype(dt)
        for v in (complex(np.inf, 0), complex(0, np.inf), complex(np.nan, 1), complex(-np.inf, 1)):
            s = np.array(v, dt)
            for n in range(1, 20):
                for args in ((s, ordinary[:n]), (ordinary[:n], s)):
                    assert _fp_flags(tl.multiply, *args)[1] == _fp_flags(np.multiply, *args)[1], \
                        (v, n)
    finally:
        _ufuncs.set_simd(None)


def _same_complex_bits(got, want):
    """The same values and zero signs, but a NaN part may be any NaN where NumPy's is one: which
    operand's NaN a sum of two NaNs keeps follows the compiler's operand order."""
    assert got.dtype == want.dtype and got.shape == want.shape
    return all(((x == y) & (np.signbit(x) == np.signbit(y)) | (np.isnan(x) & np.isnan(y))).all()
               for x, y in ((got.real, want.real), (got.imag, want.imag)))


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_divide_numpys_bits_and_warnings(dt, simd):
    """complex divide: NumPy's bits (Smith's algorithm, no multiply-add: gcc's vectorizers had
    fused a multiply and an add into an fmsubadd in the FMA clones) and warnings, for array and
    scalar divisors on either side, strided, broadcast, in place, every tail length at odd
    offsets, on every SIMD path; a special value in one lane among ordinary ones raises that
    lane's warnings and no other (the AVX-512 kernel masks each branch's operations to its own
    lanes; the >= choosing the branch signals a NaN part, as C's)."""
    rng = np.random.default_rng(23)
    f = np.float32 if dt == "complex64" else np.float64
    big = 1e38 if dt == "complex64" else 1e308
    tiny = 1e-40 if dt == "complex64" else 5e-324
    n = 4099
    sp = np.array([0, -0.0, np.inf, -np.inf, np.nan, tiny, 3.0, big], f)
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    b = ((rng.standard_normal(n) + 1j * rng.standard_normal(n))
         * 10.0 ** rng.integers(-3, 4, n)).astype(dt)
    a.real[::50] = rng.choice(sp, a[::50].size)
    b.imag[::70] = rng.choice(sp, b[::70].size)
    b.real[3::90] = rng.choice(sp, b[3::90].size)
    b[7::300] = 0
    _ufuncs.set_simd(simd)
    try:
        for x, y in ((a, b), (a, b[5]), (a[5], b), (a[::-3][:1000], b[1::3][:1000]),
                     (a, np.broadcast_to(b[9], a.shape)), (a[:7], b[:7]), (a, b[7])):
            got, gw = _fp_flags(tl.divide, x, y)
            want, ww = _fp_flags(np.divide, x, y)
            assert _same_complex_bits(got, want) and gw == ww, (x.shape, y.shape, gw, ww)
        with np.errstate(all="ignore"):
            c = a.copy()
            tl.divide(c, b, out=c)
            assert _same_complex_bits(c, np.divide(a, b))
            for m in range(0, 40):                   # tails, odd offsets (complex64: 4-byte aligned)
                for off in (0, 1):
                    buf = np.empty(2 * m + 2, f)
                    x = buf[off:off + 2 * m].view(dt)
                    x[:] = a[100:100 + m]
                    assert _same_complex_bits(tl.divide(x, b[200:200 + m]),
                                              np.divide(x, b[200:200 + m])), (m, off)
        ordinary_a = (rng.uniform(1, 2, 19) + 1j * rng.uniform(1, 2, 19)).astype(dt)
        ordinary_b = (rng.uniform(1, 2, 19) + 1j * rng.uniform(-2, -1, 19)).astype(dt)
        parts = [0, -0.0, np.inf, np.nan, tiny, big, 3.0]
        for va in (1 + 1j, complex(np.inf, 0), complex(np.inf, 1), 0j, complex(np.nan, 1),
                   complex(big, big)):
            for vb in (complex(r, i) for r in parts for i in parts):
                for k in (0, 5, 18):
                    x, y = ordinary_a.copy(), ordinary_b.copy()
                    x[k], y[k] = va, vb
                    got, gw = _fp_flags(tl.divide, x, y)
                    want, ww = _fp_flags(np.divide, x, y)
                    assert _same_complex_bits(got, want) and gw == ww, (va, vb, k, gw, ww)
            # a special scalar over ordinary arrays, and under them (the lanes past a tail)
            for m in (1, 7, 19):
                for x, y in ((np.array(va, dt), ordinary_b[:m]), (ordinary_a[:m], np.array(va, dt))):
                    got, gw = _fp_flags(tl.divide, x, y)
                    want, ww = _fp_flags(np.divide, x, y)
                    assert _same_complex_bits(got, want) and gw == ww, (va, m, gw, ww)
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_square_and_conjugate_every_path(dt, simd):
    """complex square (the complex multiply kernel with x as both operands) and conjugate (the
    imaginary parts' sign bits flipped): NumPy's bits and warnings, every tail length, odd
    offsets (complex64 is only 4-byte aligned), in place, strided (the element loop), without
    SIMD. Square's NaN results only as NaN: which operand's NaN a product keeps follows the
    compiler's operand order (NumPy's own square and multiply(x, x) differ there), and NumPy's
    strided square skips the fma, so it is held to NumPy's contiguous bits."""
    rng = np.random.default_rng(17)
    f = np.float32 if dt == "complex64" else np.float64
    sp = np.array([0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e38, 1e-45, 3.0, 1e300, 5e-324])

    def same(x, y, exact):
        if exact:
            return x.tobytes() == y.tobytes()
        x, y = x.view(f), y.view(f)
        return bool(((_bits(x) == _bits(y)) | (np.isnan(x) & np.isnan(y))).all())
    _ufuncs.set_simd(simd)
    try:
        for n in list(range(0, 40)) + [4099]:
            buf = np.empty(2 * n + 1, f)
            a = buf[1:].view(dt)                      # 4/8 bytes past the allocation's alignment
            with np.errstate(all="ignore"):
                a[:] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
                if n > 5:
                    a.real[::3] = rng.choice(sp, a[::3].size)
                    a.imag[::4] = rng.choice(sp, a[::4].size)
            for name in ("square", "conjugate"):
                exact = name == "conjugate"
                got, want = _fp_flags(getattr(tl, name), a), _fp_flags(getattr(np, name), a)
                assert same(got[0], want[0], exact) and got[1] == want[1], (name, n)
                c = a.copy()
                with np.errstate(all="ignore"):
                    getattr(tl, name)(c, out=c)
                    assert same(c, want[0], exact), (name, n)
                    s = a[::-2]
                    got = getattr(tl, name)(s)
                    assert same(got, getattr(np, name)(s.copy()), exact), (name, n)
        big = np.full(37, complex(1e30, 1e30) if dt == "complex64" else complex(1e300, 1e300), dt)
        for n in range(1, 37):
            assert _fp_flags(tl.square, big[:n])[1] == _fp_flags(np.square, big[:n])[1], n
    finally:
        _ufuncs.set_simd(None)


def _outcome(f, *args):
    """f(*args)'s result dtypes and bytes (each output) and its warnings (NumPy's wording)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f(*args)
    outs = r if isinstance(r, tuple) else (r,)
    return ([o.dtype for o in outs], [o.tobytes() for o in outs],
            sorted({str(m.message).replace("jax.", "") for m in w}))


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "uint8", "uint16", "uint32"])
def test_integer_floor_divide_remainder_paths(dt, simd):
    """floor_divide/remainder/divmod of 8-32-bit ints through a float type (vectorized, zero
    divisors and MIN // -1 included): NumPy's results and warnings over the whole range, negative
    operands, scalar operands, quotients just off an integer, blocks with a zero divisor or
    MIN // -1 among ordinary pairs."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(14)
        info = np.iinfo(dt)
        for trial in range(12):
            n = int(rng.integers(1, 5000))
            a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
            b = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
            if trial % 3 == 0:
                b = rng.integers(max(info.min, -5), 6, n).astype(dt)
            if trial % 3 == 2:      # quotients within 1/|b| of an integer, large divisors
                k = rng.integers(-3 if info.min else 0, 4, n)
                a = np.clip(b.astype(np.int64) * k + rng.integers(-2, 3, n), info.min,
                            info.max).astype(dt)
            if trial % 4 == 1 and n > 10:
                a[n // 2], b[n // 2] = info.min, (-1 if info.min < 0 else 0)
            for op in ("floor_divide", "remainder", "divmod"):
                nz = b[b != 0]
                cases = [(a, b), (a[0], b)] + ([(a, nz[0])] if nz.size else [])
                for args in cases:
                    assert _outcome(getattr(tl, op), *args) == _outcome(getattr(np, op), *args), \
                        (op, trial)
    finally:
        _ufuncs.set_simd(None)


def _divisors(dt):
    """Every divisor of an 8-bit type; else the extremes, small and power-of-two neighbours,
    the 64-bit kernels' 2^51 / 2^52 bounds, and random ones."""
    info = np.iinfo(dt)
    if info.bits == 8:
        return list(range(info.min, info.max + 1))
    rng = np.random.default_rng(info.bits)
    ds = set(range(max(info.min, -40), 41)) | {info.min, info.min + 1, info.max, info.max - 1}
    for k in range(1, info.bits):
        ds |= {2 ** k - 1, 2 ** k, 2 ** k + 1, -(2 ** k) - 1, -(2 ** k), -(2 ** k) + 1}
    ds |= {int(x) for x in rng.integers(info.min, info.max, 60, dtype=dt, endpoint=True)}
    ds |= {int(x) >> int(k) for x, k in zip(rng.integers(info.min, info.max, 60, dtype=dt,
                                                          endpoint=True),
                                             rng.integers(0, info.bits, 60))}
    return sorted(d for d in ds if info.min <= d <= info.max)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64"])
def test_integer_division_by_one_divisor(dt, simd):
    """floor_divide/remainder/divmod of an integer array by one divisor (a Python int or a NumPy
    scalar: magic-number multiplies for 8-32 bits, double for 64 bits within 2^51) and of one
    dividend by an array: NumPy's bits and warnings for every dividend of 8- and 16-bit types,
    extremes and random values of the wider ones, and lengths that end in a partial vector."""
    _ufuncs.set_simd(simd)
    try:
        info = np.iinfo(dt)
        rng = np.random.default_rng(5)
        if info.bits <= 16:
            a = np.arange(info.min, info.max + 1).astype(dt)
        else:
            a = rng.integers(info.min, info.max, 3000, dtype=dt, endpoint=True)
            a[1000:2000] >>= rng.integers(0, info.bits, 1000).astype(dt)
            edge = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1, 2 ** 51, 2 ** 52,
                    2 ** 51 - 1, 2 ** 52 - 1, -(2 ** 51), -(2 ** 51) - 1, 2 ** 31, -(2 ** 31)]
            edge = [e for e in edge if info.min <= e <= info.max]
            a[:len(edge)] = edge
        a = np.concatenate([a, a[:37]])         # (a partial vector at the end)
        divisors = _divisors(dt)
        if info.bits > 16:
            divisors = divisors[::2]
        for d in divisors:
            for args in ((a, d), (a, np.array(d, dt)[()]), (a[:7], d), (d, a[:300])):
                for op in ("floor_divide", "remainder", "divmod"):
                    assert _outcome(getattr(tl, op), *args) == _outcome(getattr(np, op), *args), \
                        (op, d, type(args[1]))
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16"])
def test_shift_by_one_count(dt, simd):
    """left_shift/right_shift of 8- and 16-bit integers by one count (a Python int or a NumPy
    scalar; the AVX2 kernels: 16-bit lane shifts, bytes masked): NumPy's bits for every dividend
    value, every count of the type (negative and past the width included), partial vectors."""
    _ufuncs.set_simd(simd)
    try:
        info = np.iinfo(dt)
        a = np.arange(info.min, info.max + 1).astype(dt)
        a = np.concatenate([a, a[:45]])
        counts = range(info.min, info.max + 1) if info.bits == 8 else \
            [c for c in list(range(-3, 40)) + [info.min, info.max, 255, 256] if
             info.min <= c <= info.max]
        for c in counts:
            for op in ("left_shift", "right_shift"):
                for x in (a, a[:5], a[3:]):
                    for s in (c, np.array(c, dt)[()]):
                        got, want = getattr(tl, op)(x, s), getattr(np, op)(x, s)
                        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), \
                            (op, c, x.size)
                o = a.copy()
                getattr(tl, op)(o, c, out=o)
                assert o.tobytes() == getattr(np, op)(a, c).tobytes(), (op, c)
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [False, "avx2"])
@pytest.mark.parametrize("dt", ["int64", "uint64"])
def test_int64_comparisons_every_layout(dt, simd):
    """int64/uint64 comparisons (the AVX2 kernel: uint64 through flipped sign bits, negated
    predicates inverted after the pack): NumPy's results for values at the sign boundary and the
    extremes, equal pairs, an array with an array or a scalar on either side, lengths that end
    in a partial block, strided operands."""
    _ufuncs.set_simd(simd)
    try:
        info = np.iinfo(dt)
        rng = np.random.default_rng(8)
        edge = np.array([info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2 ** 62, 2 ** 63 - 1,
                         3] + ([-1, -(2 ** 62)] if info.min else [2 ** 63, 2 ** 63 + 1]), dt)
        a = np.concatenate([rng.choice(edge, 700), rng.integers(info.min, info.max, 300, dtype=dt,
                                                                endpoint=True)])
        b = np.concatenate([rng.choice(edge, 700), rng.integers(info.min, info.max, 300, dtype=dt,
                                                                endpoint=True)])
        b[::5] = a[::5]
        for op in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
            f, g = getattr(tl, op), getattr(np, op)
            for n in (1, 31, 32, 33, 100, 1000):
                for x, y in ((a[:n], b[:n]), (a[:n], b[0]), (a[0], b[:n]), (a[:n], 3),
                             (a[:n], int(edge[2])), (a[:2 * n:2], b[:len(a[:2 * n:2])])):
                    assert np.array_equal(f(x, y), g(x, y)), (op, n)
    finally:
        _ufuncs.set_simd(None)


def _fp_flags(f, *args):
    seen = set()
    with np.errstate(all="call", call=lambda kind, flag: seen.add(kind)):
        r = f(*args)
    return r, sorted(seen)


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide", "divmod"])
@pytest.mark.parametrize("dt", [np.float32, np.float16, ml_dtypes.bfloat16], ids=str)
def test_fmod_vector_path_is_exact(dt, name):
    """float32 fmod, remainder, floor_divide, divmod (float16/bfloat16 through float32 blocks) from
    x - trunc(x/y)*y in double where that is exact (|x| < 2^24 |y|), FPREM/libm elsewhere:
    NumPy's / ml_dtypes' bits and warnings over magnitudes 1e-9..1e9 apart, quotients within an
    ulp of an integer, blocks mixing both kinds of pairs, broadcast operands, short and strided
    calls."""
    rng = np.random.default_rng(21)
    n = 30000
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))).astype(np.float32).astype(dt)
        y = (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))).astype(np.float32).astype(dt)
        k = rng.integers(-3000, 3000, n).astype(np.float32)
        near = (y.astype(np.float32) * k * (1 + rng.integers(-2, 3, n) * 2.0 ** -23)).astype(dt)
    x[::1000] = np.inf
    y[5::777] = 0
    y[9::555] = np.nan
    for a, b in ((x, y), (near, y), (x, y[3]), (x[4], y), (x[:13], y[:13]), (x[::3], y[::3]),
                 (near[:1000], np.zeros((), dt)[()])):
        got, gf = _fp_flags(getattr(tl, name), a, b)
        want, wf = _fp_flags(getattr(np, name), a, b)
        if dt == ml_dtypes.bfloat16:    # warnings: NumPy's float32 op's (ml_dtypes' raise none
            wf = _fp_flags(getattr(np, name), np.asarray(a, np.float32),    # for x % 0)
                           np.asarray(b, np.float32))[1]
        for g, w in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, want))):
            g, w = np.asarray(g).astype(np.float32), np.asarray(w).astype(np.float32)
            nan = np.isnan(w)
            assert np.array_equal(np.isnan(g), nan)
            assert np.array_equal(g[~nan].view(np.uint32), w[~nan].view(np.uint32))
        assert gf == wf, (gf, wf)


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide", "divmod"])
def test_float64_fmod_vector_path_is_exact(name, simd):
    """float64 fmod, remainder, floor_divide, divmod on AVX-512 (fmod as |x| - trunc(|x|/|y|)|y|,
    one FMA, exact where the quotient is below 2^52; the element loop elsewhere, and on the
    portable path): NumPy's bits and warnings over magnitudes up to e^80 apart (quotients on both
    sides of 2^52), quotients within two ulps of an integer (up to 2^51 + 2^20), specials among
    ordinary pairs, broadcast operands, every short length, strided and in-place calls."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(22)
        n = 40000
        x = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
        y = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
        k = np.where(rng.random(n) < 0.5, rng.integers(-3000, 3000, n),
                     rng.integers(2 ** 51 - 2 ** 20, 2 ** 51 + 2 ** 20, n)).astype(np.float64)
        near = y * k * (1 + rng.integers(-2, 3, n) * 2.0 ** -52)
        x[::1000], x[1::1001], x[2::999] = np.inf, np.nan, -0.0
        y[5::777], y[9::555], y[11::333] = 0.0, np.nan, -np.inf
        x[3::997], y[4::991] = 5e-324, -1e-310
        f, g = getattr(tl, name), getattr(np, name)
        cases = [(x, y), (near, y), (x, y[3]), (x[4], y), (near, 0.75), (x[::3], y[::3]),
                 (near[:1000], 0.0)]
        cases += [(near[i:i + m], y[i:i + m]) for m in range(1, 18) for i in (0, 5)]
        for a, b in cases:
            got, gf = _fp_flags(f, a, b)
            want, wf = _fp_flags(g, a, b)
            for gg, ww in zip(got, want) if name == "divmod" else ((got, want),):
                assert _bits(gg).tolist() == _bits(ww).tolist(), (name, np.shape(a), np.shape(b))
            assert gf == wf, (name, gf, wf)
        if name != "divmod":
            z = near.copy()
            f(z, y, out=z)
            assert _bits(z).tolist() == _bits(f(near, y)).tolist()
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_float_remainder_fmod_floor_divide_are_numpys(dt):
    """fmod through the x87 FPREM loop (finite operands, nonzero divisor) and libm otherwise:
    remainder, fmod, floor_divide and divmod give NumPy's bits and FP warnings on every pair of
    edge values (signed zeros, subnormals, huge quotients, inf, NaN, zero divisors)."""
    vals = np.array([0.0, -0.0, 5e-324, -1e-310, 1e-300, 1e-40, 1.0, -1.0, 3.5, -7.25, 0.1,
                     -0.1, 123456789.123, 2.0 ** 100, 1e300, -1e308, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"):
        vals = vals.astype(dt)
    x, y = (v.ravel() for v in np.meshgrid(vals, vals))
    for name in ("remainder", "fmod", "floor_divide", "divmod"):
        for i in range(x.size):             # one pair per call: each pair's own warnings
            a, b = x[i:i + 1].repeat(17), y[i:i + 1].repeat(17)
            got, got_flags = _fp_flags(getattr(tl, name), a, b)
            want, want_flags = _fp_flags(getattr(np, name), a, b)
            msg = (name, dt, a[0], b[0])
            assert got_flags == want_flags, msg
            pairs = zip(got, want) if name == "divmod" else ((got, want),)
            for g, w in pairs:
                assert g.dtype == w.dtype and _bits(g).tolist() == _bits(w).tolist(), msg
    rng = np.random.default_rng(5)
    with np.errstate(all="ignore"):
        a = (rng.standard_normal(1000) * 1e6).astype(dt)
        b = (rng.standard_normal(1000) * 3).astype(dt)
        for name in ("remainder", "fmod", "floor_divide"):
            assert _bits(getattr(tl, name)(a, b)).tolist() == _bits(getattr(np, name)(a, b)).tolist()


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint64])
def test_integer_division_sign_fixes_are_numpys(dt):
    """floor_divide/remainder/fmod/divmod of signed ints round toward -inf without branches (the
    sign fix-up of random signs mispredicted): NumPy's values and warnings for every int8 pair,
    and random values with small divisors of both signs, zero and -1 (MIN // -1) for the rest."""
    ii = np.iinfo(dt)
    if dt == np.int8:
        x, y = (v.ravel() for v in np.meshgrid(np.arange(-128, 128), np.arange(-128, 128)))
        x, y = x.astype(dt), y.astype(dt)
    else:
        rng = np.random.default_rng(11)
        x = rng.integers(ii.min, ii.max, 20000, dtype=dt, endpoint=True)
        y = rng.integers(max(ii.min, -5), 5, 20000).astype(dt)
        x[:4] = ii.min
        y[:4] = [ii.max, 1, 0, 2] if ii.min == 0 else [-1, 1, 0, -2]
    for name in ("floor_divide", "remainder", "fmod", "divmod"):
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = getattr(tl, name)(x, y)
        with warnings.catch_warnings(record=True) as want_w:
            warnings.simplefilter("always")
            want = getattr(np, name)(x, y)
        for g, w in zip(got, want) if name == "divmod" else ((got, want),):
            assert g.dtype == w.dtype and (g == w).all(), (name, dt)
        kinds = [sorted(str(m.message).split(" encountered")[0] for m in w) for w in (got_w, want_w)]
        assert kinds[0] == kinds[1], name


@pytest.mark.parametrize("simd", [False, True, "avx2"])
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_absolute_every_path_is_numpys(dt, simd):
    """complex absolute (AVX-512 and AVX2 kernels, the element function for tails and other
    CPUs): NumPy's bits on random values over a wide range and on every pair of special parts
    (inf beats NaN, zeros, subnormals, overflow to inf), every tail length, strided input; no
    warning, as NumPy."""
    _ufuncs.set_simd(simd)
    try:
        rng = np.random.default_rng(21)
        n = 5000
        z = np.empty(n, dt)
        z.real = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
        z.imag = rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
        fi = np.finfo(dt)
        sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.5, fi.max, -fi.max / 2,
                       fi.tiny, fi.smallest_subnormal, 1e-30, 3e30])
        re, im = np.meshgrid(sp, sp)
        s = np.empty(re.size, dt)
        s.real, s.imag = re.ravel(), im.ravel()
        for x in (z, s, np.tile(s, 3), z[::3], s[::-1]):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = tl.absolute(x)
            with np.errstate(all="ignore"):
                want = np.abs(x)
            ok = (_bits(got) == _bits(want)) | (np.isnan(got) & np.isnan(want))
            assert got.dtype == want.dtype and ok.all(), (dt, simd, x[~ok][:3])
        for k in range(0, 40):
            assert _bits(tl.absolute(z[:k])).tolist() == _bits(np.abs(z[:k])).tolist()
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_frexp_on_the_bits_is_numpys(dt, simd):
    """frexp of float32/float64 on the bits (AVX-512 vgetmant/vgetexp, else the bit loop,
    vectorized in the clones; subnormals scaled first): NumPy's mantissas and exponents for
    random values over the whole range, subnormals, zeros, inf, NaN and a signalling NaN,
    contiguous and strided, every tail, on every SIMD path; the warnings NumPy gives."""
    _ufuncs.set_simd(simd)
    try:
        _frexp_is_numpys(dt)
    finally:
        _ufuncs.set_simd(None)


def _frexp_is_numpys(dt):
    rng = np.random.default_rng(31)
    fi = np.finfo(dt)
    u = f"u{np.dtype(dt).itemsize}"
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(3000) * np.exp(rng.uniform(-800, 800, 3000))).astype(dt)
    snan = np.array([{2: 0x7c01, 4: 0x7f800001, 8: 0x7ff0000000000001}[np.dtype(dt).itemsize]],
                    dtype=u).view(dt)
    sp = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -0.75, 3.0],
                                  dtype=dt),
                         np.array([fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny,
                                   fi.max, -fi.max], dtype=dt),
                         fi.tiny / np.array([2, 3, 1000], dtype=dt), snan])
    for a in (x, x[::3], np.tile(sp, 5), sp[::-1], *(x[:k] for k in range(1, 20))):
        (m1, e1), _ = _fp_flags(np.frexp, a)
        (m2, e2), f2 = _fp_flags(tl.frexp, a)
        assert m2.dtype == m1.dtype and e2.dtype == e1.dtype
        ok = (_bits(m1) == _bits(m2)) | (np.isnan(m1) & np.isnan(m2))
        assert ok.all(), (a[~ok][:3], m1[~ok][:3], m2[~ok][:3])
        assert (e1 == e2).all()
        # NumPy's warnings depend on its path (libm: a signalling NaN raises invalid; its
        # AVX-512 loop, which also takes positive strides: nothing): those of libm, which
        # NumPy runs for reversed arrays on every CPU, and frexp on every layout
        f1 = _fp_flags(np.frexp, a.copy()[::-1])[1]
        assert f1 == f2


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                "uint64"])
def test_bitwise_count_in_own_width_is_numpys(dt, simd):
    """bitwise_count through a popcount in the operand's own width (32/64-bit: AVX2 kernels on
    contiguous data, 32/16 per step): NumPy's counts (of the magnitude for signed types) for every
    8/16-bit value, and random and extreme wider ones, contiguous, strided, offset, every tail."""
    ii = np.iinfo(dt)
    if ii.bits <= 16:
        x = np.arange(ii.min, ii.max + 1).astype(dt)
    else:
        x = np.random.default_rng(3).integers(ii.min, ii.max, 70000, dtype=dt, endpoint=True)
        x[:6] = [ii.min, ii.max, 0, ii.min + 1, -1 if ii.min else 1, 1]
    _ufuncs.set_simd(simd)
    try:
        for a in [x, x[::-7], x[1:]] + [x[3:3 + n] for n in range(40)]:
            got, want = tl.bitwise_count(a), np.bitwise_count(a)
            assert got.dtype == want.dtype and (got == want).all()
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", [np.int8, np.uint8])
def test_8bit_multiply_and_square_every_path(dt, simd):
    """int8/uint8 multiply and square through the byte-blend kernel (tl_vmul8): NumPy's products
    for every pair of byte values, every tail length, broadcast operands on either side, odd
    offsets, in place; reductions keep the element loop."""
    _ufuncs.set_simd(simd)
    try:
        x, y = (v.ravel().astype(dt) for v in np.meshgrid(np.arange(256), np.arange(256)))
        assert (tl.multiply(x, y) == np.multiply(x, y)).all()
        assert (tl.square(x) == np.square(x)).all()
        rng = np.random.default_rng(3)
        a = rng.integers(0, 256, 300).astype(np.uint8).view(dt)
        b = rng.integers(0, 256, 300).astype(np.uint8).view(dt)
        for n in range(0, 200):
            for off in (0, 1, 5):
                aa, bb = a[off:off + n], b[off + 1:off + 1 + n]
                assert (tl.multiply(aa, bb) == np.multiply(aa, bb)).all(), (n, off)
                assert (tl.square(aa) == np.square(aa)).all(), (n, off)
        for k in (0, 1, 77, 255):
            s = np.asarray(k).astype(np.uint8).view(dt)[()]
            assert (tl.multiply(a, s) == np.multiply(a, s)).all(), k
            assert (tl.multiply(s, b[:131]) == np.multiply(s, b[:131])).all(), k
        c = a.copy()
        tl.multiply(c, b, out=c)
        assert (c == np.multiply(a, b)).all()
        assert tl.multiply.reduce(a[:50]) == np.multiply.reduce(a[:50])
        assert (tl.multiply(a[::3], b[1::3]) == np.multiply(a[::3], b[1::3])).all()
    finally:
        _ufuncs.set_simd(None)


def test_aligned_two_pass_loops_every_head():
    """Outputs beyond 32 KB run in two passes (the elements before the output's first 64-byte
    boundary, then the vector loop): NumPy's values and FP flags for every head length, in
    same-dtype, unary and fused mixed loops (bool outputs included), fresh and in place."""
    rng = np.random.default_rng(21)
    n = 20000
    x32 = (rng.standard_normal(n + 64) * 100).astype(np.float32)
    x32[::997] = 0.0
    i8 = rng.integers(-128, 128, n + 64).astype(np.int8)
    u8 = rng.integers(0, 256, n + 64).astype(np.uint8)
    i32 = rng.integers(-(2 ** 31), 2 ** 31, n + 64).astype(np.int32)
    cases = [("add", x32, x32[::-1].copy(), np.float32), ("divide", x32, x32[5:].copy(), np.float32),
             ("sqrt", x32, None, np.float32), ("add", i8, x32, np.float32),
             ("add", u8, i8, np.int16), ("multiply", i32, x32, np.float32),
             ("less", i32, x32, np.bool_), ("add", i8, np.float16(1.5) * np.ones(n + 64, np.float16),
                                            np.float16)]
    for name, a, b, rt in cases:
        uf, ref = getattr(tl, name), getattr(np, name)
        size = np.dtype(rt).itemsize
        for off in range(0, 64, size):
            raw = np.zeros(n * size + 128, np.uint8)
            start = (-raw.ctypes.data) % 64 + off
            out = raw[start:start + n * size].view(rt)
            args = (a[:n],) if b is None else (a[:n], b[3:n + 3])
            cast = [v.astype(rt) if rt is not np.bool_ else v.astype(np.float32) for v in args]
            got, gf = _fp_flags(lambda *v: uf(*v, out=out), *args)
            want, wf = _fp_flags(ref, *cast)
            assert got is out and gf == wf, (name, off)
            assert _bits(out).tolist() == _bits(want).tolist(), (name, off)
    y = x32[:n].copy()
    tl.multiply(y, x32[1:n + 1], out=y)                  # in place, unaligned by the allocator
    assert _bits(y).tolist() == _bits(x32[:n] * x32[1:n + 1]).tolist()


@pytest.mark.parametrize("simd", [True, "avx2", False])
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_ordering_comparisons_flags_per_pair(dt, simd):
    """less/less_equal/greater/greater_equal of complex values (the AVX-512 and AVX2 kernels and
    the branch-free element function): NumPy's result and FP flags for every pair of values built
    from 0, 1, -2.5, +-inf and NaN parts (a NaN real part always warns; a NaN imaginary part only
    where the real parts are equal), every length up to 40, broadcast operands, strides."""
    parts = [0.0, 1.0, -2.5, np.inf, -np.inf, np.nan]
    vals = np.array([complex(r, i) for r in parts for i in parts], dt)
    x, y = (v.ravel() for v in np.meshgrid(vals, vals))
    rng = np.random.default_rng(8)
    _ufuncs.set_simd(simd)
    try:
        for name in ("less", "less_equal", "greater", "greater_equal"):
            uf, ref = getattr(tl, name), getattr(np, name)
            with np.errstate(all="ignore"):
                assert (uf(x, y) == ref(x, y)).all(), name
            for i in range(x.size):
                a, b = x[i:i + 1].repeat(33), y[i:i + 1].repeat(33)
                got, gf = _fp_flags(uf, a, b)
                want, wf = _fp_flags(ref, a, b)
                assert gf == wf and (got == want).all(), (name, x[i], y[i])
            ordinary = vals[np.isfinite(vals)]
            for n in range(41):
                a, b = rng.choice(ordinary, n), rng.choice(ordinary, n)
                b[: n // 3] = a[: n // 3].real + 1j * b[: n // 3].imag    # equal real parts
                for args in ((a, b), (a[:1] if n else a, b), (a, b[:1] if n else b),
                             (np.concatenate([a, a])[::2], b)):
                    got, gf = _fp_flags(uf, *args)
                    want, wf = _fp_flags(ref, *args)
                    assert gf == wf and (got == want).all(), (name, n)
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("dt", ["int8", "uint8"])
@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_8bit_gcd_lcm_by_table_are_numpys(name, dt):
    """8-bit gcd/lcm by their 256 x 256 table (built at the first call here): NumPy's result for
    every pair of values (lcm's wrapping included), contiguous, strided, with a scalar operand,
    reduce and accumulate (each step reads what the last one wrote); and the element loop's
    before the table."""
    from typelattice import _ufuncs
    f, ref = getattr(tl, name), getattr(np, name)
    v = np.arange(256).astype(np.uint8).view(dt)
    a, b = np.repeat(v, 256), np.tile(v, 256)
    with np.errstate(all="ignore"):
        want = ref(a, b)
    assert f(a[:7], b[:7]).tobytes() == want[:7].tobytes()     # the element loop (few elements)
    old = _ufuncs.set_tables_after(0)
    try:
        with np.errstate(all="ignore"):
            got = f(a, b)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            assert f(a[::-3], b[::-3]).tobytes() == ref(a[::-3], b[::-3]).tobytes()
            assert f(a[:999], v[77]).tobytes() == ref(a[:999], v[77]).tobytes()
            assert f(v[200], b[5:900]).tobytes() == ref(v[200], b[5:900]).tobytes()
            rng = np.random.default_rng(4)
            x = v[rng.integers(0, 256, (40, 33))]
            for axis in (0, 1, None) if name == "gcd" else (0, 1):     # (lcm: not reorderable)
                assert f.reduce(x, axis=axis).tobytes() == ref.reduce(x, axis=axis).tobytes()
            assert f.accumulate(x, axis=1).tobytes() == ref.accumulate(x, axis=1).tobytes()
            y = a[:500].copy()
            f(y, b[:500], out=y)
            assert y.tobytes() == want[:500].tobytes()
    finally:
        _ufuncs.set_tables_after(old)


@pytest.mark.parametrize("dt", ["int16", "uint16", "int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("simd", [None, False], ids=["simd", "portable"])
def test_binary_gcd_lcm_are_numpys(name, dt, simd):
    """gcd/lcm of 16- to 64-bit integers (AVX-512 binary GCD where the CPU has it, Euclid's
    element loop otherwise): NumPy's result for small and full-range values of both signs, the
    extremes (|MIN| wraps, lcm wraps), zeros; contiguous, strided, reversed, a scalar operand, in
    place, every length up to 140, reduce and accumulate."""
    from typelattice import _ufuncs
    f, ref = getattr(tl, name), getattr(np, name)
    info = np.iinfo(dt)
    rng = np.random.default_rng(9)
    parts = [rng.integers(max(info.min, -100), 100, 3000, endpoint=True, dtype=dt),
             rng.integers(info.min, info.max, 3000, endpoint=True, dtype=dt)]
    edges = np.array([0, 1, 2, 6, info.max, info.max - 1, info.min, info.min + 1
                      if info.min else 3], dtype=dt)
    a = np.concatenate(parts + [np.repeat(edges, edges.size)])
    b = np.concatenate([parts[1], parts[0], np.tile(edges, edges.size)])
    _ufuncs.set_simd(simd)
    try:
        with np.errstate(all="ignore"):
            want = ref(a, b)
            got = f(a, b)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            assert f(a[::-3], b[::-3]).tobytes() == ref(a[::-3], b[::-3]).tobytes()
            assert f(a, b[100]).tobytes() == ref(a, b[100]).tobytes()
            assert f(a[7], b).tobytes() == ref(a[7], b).tobytes()
            for n in range(1, 141):
                assert f(a[-n:], b[:n]).tobytes() == ref(a[-n:], b[:n]).tobytes(), n
            y = a.copy()
            f(y, b, out=y)
            assert y.tobytes() == want.tobytes()
            x = parts[0][:1320].reshape(40, 33)
            for axis in (0, 1, None) if name == "gcd" else (0, 1):     # (lcm: not reorderable)
                assert f.reduce(x, axis=axis).tobytes() == ref.reduce(x, axis=axis).tobytes()
            assert f.accumulate(x, axis=1).tobytes() == ref.accumulate(x, axis=1).tobytes()
    finally:
        _ufuncs.set_simd(None)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_strided_operands_through_contiguous_blocks(dt):
    """Strided, reversed, broadcast and strided-output layouts (the loops that gather strided
    operands into blocks for their SIMD paths: max/min, float comparisons, complex multiply),
    exactly in place, and accumulate's overlapping chain (never blocked): the values NumPy
    computes on contiguous copies, with NaNs and signed zeros among them."""
    rng = np.random.default_rng(np.dtype(dt).num)
    n = 5000                               # past one block of every dtype
    v = rng.standard_normal(3 * n + 3) * 4
    if np.dtype(dt).kind == "c":
        v = v + 1j * rng.standard_normal(3 * n + 3)
    v[rng.random(v.size) < 0.03] = np.nan
    v[rng.random(v.size) < 0.03] = -0.0
    base = v.astype(dt)
    w = base[::-1].copy()
    names = ["maximum", "minimum", "fmax", "fmin", "multiply", "less", "greater_equal", "equal"]
    if np.dtype(dt).kind == "c":
        names = ["multiply", "equal", "not_equal"]
    layouts = {"step 2": (base[::2][:n], w[::3][:n]), "reversed": (base[::-1][:n], w[:n]),
               "broadcast": (np.broadcast_to(base[:1], (n,)), w[::2][:n]),
               "step 3, 1": (base[::3][:n], w[1:n + 1])}
    with np.errstate(all="ignore"):
        for name in names:
            uf, ref = getattr(tl, name), getattr(np, name)
            for label, (a, b) in layouts.items():
                want = ref(np.ascontiguousarray(a), np.ascontiguousarray(b))
                assert_same(uf(a, b), want, name, f"{name} {label}")
                out = np.zeros(2 * n, want.dtype)[::-2]
                uf(a, b, out=out)
                assert_same(out, want, name, f"{name} {label} out[::-2]")
            if name in ("maximum", "minimum", "fmax", "fmin", "multiply"):
                x = base.copy()[::2][:n]
                want = ref(x.copy(), np.ascontiguousarray(w[:n]))
                uf(x, w[:n], out=x)
                assert_same(x, want, name, f"{name} in place")
                acc = base[::-2][:300]
                assert_same(uf.accumulate(acc), ref.accumulate(np.ascontiguousarray(acc)), name,
                            f"{name} accumulate")
