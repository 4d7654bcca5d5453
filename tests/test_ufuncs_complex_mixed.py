"""Complex joins of operands of other types (TL_LOOP_BLOCKED_CPLX in kernels/tl_loops_host.h:
complex64 + float16, uint64 < complex64, complex64 + float64 -> complex128): each real operand
converted a block at a time, the same-dtype complex loop run on the blocks. Every op with a
complex loop, every rule set and ordered pair, against NumPy's ufunc on the operands cast to
the join first: bits, NaNs, FP flags, layouts, reductions."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ops, _ufuncs
from typelattice.rules import builtin
from test_ufuncs_fused_mixed import flag_bits

RULES = builtin()
COMPLEX = ("complex64", "complex128")
# the ops with complex loops (logical ones read truth values instead: test_ufuncs_logical_mixed)
OPS = ("add", "subtract", "multiply", "divide", "power", "float_power", "maximum", "minimum",
       "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
       "logaddexp")


def _reference(uf, name):
    """NumPy's ufunc; for logaddexp, which NumPy has no complex loop of, and float_power,
    which NumPy computes in complex128 only, the call of our complex loop on the cast operands
    (the blocked loop must give its bits)."""
    return uf if name in ("logaddexp", "float_power") else getattr(np, name)


def _dt(t):
    return np.dtype(ml_dtypes.bfloat16) if t == "bfloat16" else np.dtype(t)


def _values(t, n, seed):
    d = _dt(t)
    rng = np.random.default_rng(seed)
    if d.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if d.kind in "iu":
        ii = np.iinfo(d)
        edge = [0, 1, ii.max, ii.min, 3, 2 ** 24 + 1, 2 ** 53 + 1]
        x = rng.integers(max(ii.min, -50), min(ii.max, 50), n).astype(d)
        edge = [v for v in edge if ii.min <= v <= ii.max]
    elif d.kind == "c":
        edge = [0j, complex(-0.0, 0), complex(np.nan, 1), complex(1, np.inf), 1e30 + 1e-30j,
                -2.5 + 0.5j, complex(0, -0.0)]
        x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(d)
    else:
        edge = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, 65504.0, 3.0, 0.5]
        x = (rng.standard_normal(n) * 4).astype(d)
    with np.errstate(all="ignore"):
        x[:len(edge)] = np.array(edge).astype(d)
    return x


def _same(got, want, msg):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    assert got.tobytes() == want.tobytes() or (
        want.dtype.kind == "c" and np.array_equal(got, want, equal_nan=True)), msg


def _cases(rname):
    """(ufunc, op, a, b, t): pairs of different types whose join t is complex."""
    ufs = _ufuncs.make_ufuncs(rname)
    types = [t for t in _ops.LOOP_TYPES]
    for name in OPS:
        uf = ufs[name]
        for a in types:
            for b in types:
                if a == b:
                    continue
                try:
                    res = uf.resolve_dtypes((_dt(a), _dt(b), None))
                    t = tl.result_type(_dt(a), _dt(b), rules=rname)
                except (TypeError, ValueError):
                    continue
                if t.name in COMPLEX and res[2].name in COMPLEX + ("bool",):
                    yield uf, name, a, b, t


@pytest.mark.parametrize("rname", [r for r in RULES if r not in ("jax_strict", "jax_lax",
                                                                  "tensorflow")])
def test_values_layouts_and_flags_as_numpy_on_the_cast_operands(rname):
    blocked = cases = 0
    canon = RULES[rname].canonicalize
    for uf, name, a, b, t in _cases(rname):
        cases += 1
        ref = _reference(uf, name)
        x, y = _values(a, 300, 1), np.roll(_values(b, 300, 2), 4)

        def cast(v):
            return v.astype(_dt(canon.get(v.dtype.name, v.dtype.name))).astype(t)

        xc, yc = cast(x), cast(y)
        msg = (rname, name, a, b, t.name)
        with np.errstate(all="ignore"):
            want = ref(xc, yc)
            _same(uf(x, y), want, msg)
            # (NumPy's strided complex multiply rounds otherwise than its contiguous loop; ours
            # gives the contiguous bits in any layout)
            _same(uf(x[:-1:3], y[1::3]), ref(xc[:-1:3].copy(), yc[1::3].copy()),
                  msg + ("strided",))
            _same(uf(x[::-1], y), ref(xc[::-1].copy(), yc), msg + ("reversed",))
            for k in (0, 2, 5):
                _same(uf(x[k:k + 1], y), ref(xc[k:k + 1], yc), msg + ("scalar first", k))
                _same(uf(x, y[k:k + 1]), ref(xc, yc[k:k + 1]), msg + ("scalar second", k))
            out = np.zeros(600, want.dtype)
            uf(x, y, out=out[::2])
            _same(out[::2], want, msg + ("out=",))
        assert flag_bits(uf, x, y) == flag_bits(lambda p, q: ref(cast(p), cast(q)), x, y), msg
        blocked += _ufuncs.mixed_loop_kind(uf, (a, b, want.dtype)) == "blocked"
    assert blocked > 0 or cases == 0


def test_blocked_loops_serve_the_pairs_and_withheld_orders_run_on_the_call_path():
    """float16 + complex64 runs its blocked loop; complex64 + float16 of add (whose (complex64,
    x) loop NumPy's add.reduce(x, dtype=complex64) would take, in order) stays out of NumPy's
    dispatch but runs on the call path, as NumPy's cast and complex64 add give."""
    x = _values("complex64", 64, 1)
    h = _values("float16", 64, 2)
    for name in ("add", "subtract", "multiply", "divide", "equal", "less", "power"):
        uf = getattr(tl, name)
        with np.errstate(all="ignore"):
            out = uf(h, x).dtype
        assert _ufuncs.mixed_loop_kind(uf, ("float16", "complex64", out)) == "blocked", name
    for name in ("add", "multiply", "maximum", "fmin"):
        uf, ref = getattr(tl, name), getattr(np, name)
        before = _ufuncs.fastcall_count()
        with np.errstate(all="ignore"):
            got = uf(x, h)
            _same(got, ref(x, h.astype(np.complex64)), name)
        assert _ufuncs.fastcall_count() == before + 1, name
        assert _ufuncs.mixed_loop_kind(uf, ("complex64", "float16", "complex64")) is None, name


def test_reductions_into_complex_as_numpy_on_the_cast_operand():
    """reduce(x, dtype=complex64): add sums pairwise (NumPy's dispatch never meets a (complex64,
    float16) add loop), subtract and divide fold in order through the blocked loop, one element
    at a time."""
    h = _values("float16", 300, 3)
    h[np.isnan(h) | np.isinf(h)] = 1.5
    h[h == 0] = 0.25
    for name in ("add", "multiply", "subtract", "divide"):
        uf, ref = getattr(tl, name), getattr(np, name)
        for dt in ("complex64", "complex128"):
            with np.errstate(all="ignore"):
                _same(uf.reduce(h, dtype=dt), ref.reduce(h.astype(dt)), (name, dt))
                _same(uf.reduce(h.reshape(30, 10), axis=0, dtype=dt),
                      ref.reduce(h.astype(dt).reshape(30, 10), axis=0), (name, dt, "axis 0"))


def _complex_and_real(re, im, real, pairs, sizes):
    """(ct, rt, n, z, x) for each (complex type, real type) pair and size: z built part by part
    from re and im (re + 1j * im would turn 1j * nan and 1j * inf into NaN real parts), x from
    real (NaN and inf mapped into range for integers), both repeating their values to n."""
    for ct, rt in pairs:
        for n in sizes:
            idx = np.arange(n) % len(re)
            z = np.empty(n, ct)
            z.real, z.imag = re[idx], im[idx]
            with np.errstate(all="ignore"):
                x = real[idx] if np.dtype(rt).kind == "f" \
                    else np.nan_to_num(real[idx], nan=5.0, posinf=7.0, neginf=3.0)
                yield ct, rt, n, z, x.astype(rt)


def test_ordering_compares_with_a_real_operand_every_simd_path(simd_path):
    """less/less_equal/greater/greater_equal of a complex array with a real one
    (TL_LOOP_CCMP_REAL: the AVX-512 kernel on contiguous parts, the element function
    otherwise): equal real parts decided by the imaginary part against 0, NaN real or imaginary
    parts (the 'invalid' NumPy's compare raises for a NaN imaginary part where the real parts
    are equal), -0.0, every tail length, both orders, complex64 widened into a complex128 join,
    against NumPy's compare on the operands cast to the join."""
    re = np.array([0.0, -0.0, 1.0, 3.0, np.nan, np.inf, -2.0, 1.0, 0.0, 3.0, -1.0, 2.5])
    im = np.array([0.0, 0.0, -1.0, np.nan, 0.0, 1.0, 0.0, 2.0, np.nan, -0.0, 1e-30, 0.0])
    real = np.array([0.0, 0.0, 1.0, 3.0, 1.0, np.inf, -2.0, 1.0, -0.0, 3.0, -1.0, np.nan])
    pairs = (("complex64", "float32"), ("complex64", "int16"), ("complex128", "float64"),
             ("complex128", "uint32"), ("complex64", "float64"), ("complex128", "float16"))
    for ct, rt, n, z, x in _complex_and_real(re, im, real, pairs, (1, 7, 8, 12, 17, 33, 70)):
        t = np.result_type(tl.result_type(z, x))
        for name in ("less", "less_equal", "greater", "greater_equal"):
            uf, ref = getattr(tl, name), getattr(np, name)
            for args in ((z, x), (x, z), (z, x[:1]), (x[:1], z), (z[::2], x[::2])):
                cast = [a.astype(t) for a in args]
                msg = (simd_path, name, ct, rt, n, args[0].dtype.name, args[0].shape)
                with np.errstate(all="ignore"):
                    _same(uf(*args), ref(*cast), msg)
                assert flag_bits(uf, *args) == flag_bits(lambda: ref(*cast)), msg


def test_multiply_with_a_real_operand_every_simd_path(simd_path):
    """multiply of a complex array with a real one (TL_LOOP_CMUL_REAL: the complex multiply
    kernel with the real values put in (x, +0.0) pairs in registers, the element function on
    other layouts): contiguous or broadcast, the bits of the same-dtype complex loop on the cast
    operands, NaN signs included (inf * 0, NaN parts, -0.0); every tail length, both orders,
    complex64 widened into a complex128 join, strided operands: values and FP flags as NumPy's
    multiply on the cast operands."""
    re = np.array([0.0, -0.0, 1.5, np.inf, np.nan, -2.0, 3.0, -np.inf, 1e30, 0.5, -0.0, 7.0])
    im = np.array([-0.0, 0.0, np.inf, 1.0, 2.0, np.nan, -0.0, 0.0, 1e30, -1.5, np.inf, 0.0])
    real = np.array([np.inf, 0.0, -0.0, 2.0, -1.0, 0.0, np.nan, 3.0, 1e10, -np.inf, 0.0, 1.0])
    pairs = (("complex64", "float32"), ("complex64", "int64"), ("complex64", "float16"),
             ("complex128", "float64"), ("complex128", "uint8"), ("complex64", "float64"))
    for ct, rt, n, z, x in _complex_and_real(re, im, real, pairs, (1, 5, 8, 9, 12, 17, 40)):
        t = np.result_type(tl.result_type(z, x))
        # (a strided view takes the element function, whose NaN signs differ from the kernels'
        # as NumPy's layouts do: README, Values; so does the portable path's, whose NaN signs
        # are those of gcc's vector or scalar code of it, which the arrays' addresses choose)
        kernel = simd_path is not False
        for args, exact in (((z, x), kernel), ((x, z), kernel), ((z, x[1:2]), kernel),
                            ((x[1:2], z), kernel), ((z[::2], x[::2]), False)):
            cast = [a.astype(t) for a in args]
            msg = (simd_path, ct, rt, n, args[0].dtype.name, args[0].shape)
            with np.errstate(all="ignore"):
                got = tl.multiply(*args)
                if exact:
                    assert got.tobytes() == tl.multiply(*cast).tobytes(), msg
                _same(got, np.multiply(*cast), msg)
            assert flag_bits(tl.multiply, *args) == flag_bits(lambda: np.multiply(*cast)), msg


def test_maximum_minimum_with_a_real_operand_every_simd_path(simd_path):
    """maximum/minimum/fmax/fmin of a complex array with a real one (TL_LOOP_CELEM_REAL: the
    complex loop's element function on the complex parts in place and the real value with an
    imaginary part 0): equal real parts decided by the imaginary part against 0, NaN in either
    part or in the real operand (which one propagates), -0.0 against 0.0 (which zero is
    returned), both orders, contiguous, broadcast (a NumPy scalar: the loop's own path),
    strided and reversed operands, complex64
    widened into a complex128 join: NumPy's bits and FP flags on the operands cast to the join."""
    re = np.array([0.0, -0.0, 1.0, 3.0, np.nan, np.inf, -2.0, 1.0, 0.0, 3.0, -1.0, 2.5, -np.inf])
    im = np.array([-0.0, 0.0, -1.0, np.nan, 0.0, 1.0, 0.0, 2.0, np.nan, -0.0, 1e-30, 0.0, 5.0])
    real = np.array([0.0, 0.0, 1.0, 3.0, 1.0, np.inf, -0.0, 1.0, np.nan, 4.0, -1.0, np.nan, 2.0])
    pairs = (("complex64", "float32"), ("complex64", "int64"), ("complex64", "float16"),
             ("complex128", "float64"), ("complex128", "uint8"), ("complex64", "float64"))
    for ct, rt, n, z, x in _complex_and_real(re, im, real, pairs, (1, 7, 13, 40)):
        t = np.result_type(tl.result_type(z, x))
        s = x[min(6, n - 1)]
        for name in ("maximum", "minimum", "fmax", "fmin"):
            uf, ref = getattr(tl, name), getattr(np, name)
            for args in ((z, x), (x, z), (z, x[2:3]), (x[2:3], z), (z, s), (s, z),
                         (z[::2], x[::2]), (x[::-1], z)):
                cast = [a.astype(t) for a in args]
                msg = (simd_path, name, ct, rt, n, args[0].dtype.name, args[0].shape)
                with np.errstate(all="ignore"):
                    got, want = uf(*args), ref(*cast)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), msg
                assert flag_bits(uf, *args) == flag_bits(lambda: ref(*cast)), msg


def test_real_operand_add_subtract_equal_keep_signalling_nan_semantics():
    """add/subtract/equal/less of a complex array with a real one read the complex parts in place
    (TL_LOOP_CADD_REAL, TL_LOOP_CEQ_REAL, TL_LOOP_CCMP_REAL), a complex64 one with a complex128
    one is widened a block at a time: a signalling NaN in either part or in the real operand is
    quieted with NumPy's invalid flag where NumPy's op on the cast operands quiets it (ci + 0
    and ci - 0 included), the zeros' signs are NumPy's, in both operand orders.
    (equal/not_equal, quiet ops, raise no invalid for it: README, Differences from NumPy.)"""
    snan = np.array([0x7FA00001], np.uint32).view(np.float32)[0]
    z = np.array([complex(1, 2), complex(-0.0, -0.0), complex(0, 0), complex(np.inf, -1)] * 3,
                 np.complex64)
    z.real[4], z.imag[5], z.imag[6] = snan, snan, snan
    x = np.array([1.5, -0.0, 0.0, 2.0, 3.0, -1.0, np.nan, 7.0, 0.5, -2.0, 1.0, 0.0], np.float32)
    x[9] = snan
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)              # (quiets x's signalling NaN)
    for name in ("add", "subtract", "equal", "not_equal", "less", "greater_equal"):
        uf, ref = getattr(tl, name), getattr(np, name)
        for args in ((z, x), (x, z), (z, x64), (x64.astype(np.complex128), z)):
            # (NumPy's call casting inside it: complex64 -> complex128 quiets the signalling
            # NaN there, with its invalid flag)
            t = np.result_type(*args)
            with np.errstate(all="ignore"):
                got, want = uf(*args), ref(*args, signature=(t, t, None))
            _same(got, want, (name, args[0].dtype, args[1].dtype))
            if name not in ("equal", "not_equal"):  # (the quiet ops raise none: README)
                assert flag_bits(uf, *args) == flag_bits(
                    lambda: ref(*args, signature=(t, t, None))), (name, args[0].dtype)


def test_complex64_with_complex128_equality_every_length():
    """equal/not_equal of a complex64 and a complex128 array (TL_LOOP_CEQ_WIDE: the complex64
    parts widened in registers): NumPy's on the cast operands where the parts are equal, differ
    in one part only (by less than a float32 ulp too), hold NaN or zeros of either sign, at
    every length up to 70 (the vector loop's tails), both orders, strided and scalar operands
    (the blocked loop), no FP flags."""
    rng = np.random.default_rng(5)
    n = 70
    z = (rng.integers(-2, 3, n) + 1j * rng.integers(-2, 3, n)).astype(np.complex64)
    z[[3, 11, 40]] = [complex(np.nan, 1), complex(1, np.nan), complex(-0.0, 0.0)]
    w = z.astype(np.complex128)
    k = rng.permutation(n)
    w[k[:12]] += 1e-12                       # real part off by less than float32's ulp
    w[k[12:24]] += 1e-12j                    # imaginary part only
    w[k[24:30]] = complex(0.0, -0.0)         # equal to a zero of either sign
    w[k[30:36]] = np.conj(w[k[30:36]])       # the imaginary part's sign
    for name in ("equal", "not_equal"):
        uf, ref = getattr(tl, name), getattr(np, name)
        for m in range(n + 1):
            for a, b in ((z[:m], w[:m]), (w[:m], z[:m])):
                want = ref(a.astype(np.complex128), b.astype(np.complex128))
                assert flag_bits(uf, a, b) == 0, (name, m)
                np.testing.assert_array_equal(uf(a, b), want, err_msg=f"{name} {m}")
        mixed = ref(z.astype(np.complex128), w)
        assert mixed.any() and not mixed.all()      # (both outcomes in the data)
        for a, b in ((z[::2], w[1::2]), (z[5], w), (z, w[7])):
            want = ref(np.asarray(a).astype(np.complex128), b)
            np.testing.assert_array_equal(uf(a, b), want, err_msg=name)
        out = np.ones(2 * n, bool)
        uf(w, z, out=out[::2])
        np.testing.assert_array_equal(out[::2], ref(w, z.astype(np.complex128)))
        assert out[1::2].all()
