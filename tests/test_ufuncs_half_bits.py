"""Same-dtype float16/bfloat16 loops that work on the storage bits (copysign, heaviside,
maximum/minimum/fmax/fmin, logical_and/or/xor, nextafter, spacing: kernels/tl_loops_host.h):
every bit pattern as an operand,
contiguous, strided and scalar operands, bit for bit against NumPy's own float16 loops and
ml_dtypes' bfloat16 ones, warning for warning but for the quiet ops."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from conftest import run_with_warnings
from typelattice import _ufuncs

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
# typelattice's quiet ops (as its comparisons): no invalid for a signalling NaN operand, where
# NumPy's float16 heaviside and ml_dtypes' bfloat16 loops compute in float32 with signalling
# comparisons
QUIET = ("copysign", "heaviside", "logical_and", "logical_or", "logical_xor", "maximum",
         "minimum", "fmax", "fmin")


def _operands(d):
    """(a, b) pairs: every pattern against a shuffle of every pattern, against each special
    value (as an array and as a 0-d operand) and strided views of both."""
    rng = np.random.default_rng(5)
    a = ALL.view(d)
    b = rng.permutation(ALL).view(d)
    yield a, b
    yield a[1::3], b[2::3]
    specials = [0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
                0x7c01, 0xfe00, 0x7e00, 0x7f80, 0xff80, 0x7f81, 0xffc0, 0x3f80, 0xbf80, 0x7f7f]
    for s in specials:
        v = np.array(s, np.uint16).view(d)
        yield a, np.full(a.shape, v)
        yield a, v                      # 0-d: the loops' scalar-operand path
        yield v, a


@pytest.mark.parametrize("name", ["copysign", "heaviside", "nextafter", "logical_and",
                                  "logical_or", "logical_xor", "maximum", "minimum", "fmax",
                                  "fmin"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_every_bit_pattern_as_the_reference(name, dt):
    d = F16 if dt == "float16" else BF16
    uf, ref = getattr(tl, name), getattr(np, name)
    for k, (a, b) in enumerate(_operands(d)):
        got, gw = run_with_warnings(uf, a, b)
        want, ww = run_with_warnings(ref, a, b)
        assert got.dtype == want.dtype, (name, dt, k)
        if dt == "bfloat16" and name == "nextafter":
            # ml_dtypes' NaN result is its canonical NaN, and so is ours; payloads aside elsewhere
            eq = (got.view(np.uint16) == want.view(np.uint16)) | (
                np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
        elif got.dtype == np.bool_:
            eq = got == want
        else:
            eq = got.view(np.uint16) == want.view(np.uint16)
        bad = np.flatnonzero(~eq)
        assert bad.size == 0, (name, dt, k, got[bad[:4]], want[bad[:4]])
        if name in QUIET:
            assert gw == [], (name, dt, k, gw)
        else:
            assert gw == ww, (name, dt, k, gw, ww)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_spacing_warnings_and_strides(dt):
    d = F16 if dt == "float16" else BF16
    x = ALL.view(d)
    got, gw = run_with_warnings(tl.spacing, x)
    s = np.empty(3 * x.size, np.uint16).view(d)
    s[::3] = x
    ref, rw = run_with_warnings(tl.spacing, s[::3])
    assert got.view(np.uint16).tobytes() == ref.view(np.uint16).tobytes()
    assert gw == rw
    if dt == "float16":
        want, ww = run_with_warnings(np.spacing, x)
        assert got.view(np.uint16).tobytes() == want.view(np.uint16).tobytes()
        assert gw == ww == ["invalid value", "overflow"]


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_minmax_reductions_on_the_bits(name, dt):
    """reduce and accumulate of the bits loops (a left fold): the reference's bits, ties of
    -0.0/+0.0 and NaN payloads included, along each axis."""
    d = F16 if dt == "float16" else BF16
    rng = np.random.default_rng(9)
    pool = np.array([0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01,
                     0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0001, 0x8001], np.uint16)
    uf, ref = getattr(tl, name), getattr(np, name)
    for trial in range(40):
        x = rng.choice(np.concatenate([pool, ALL[rng.integers(0, 1 << 16, 8)]]), (7, 9))
        x = x.view(d)
        with np.errstate(all="ignore"):
            for axis in (0, 1):
                for f, g in ((uf.reduce, ref.reduce), (uf.accumulate, ref.accumulate)):
                    got, want = f(x, axis=axis), g(x, axis=axis)
                    assert got.tobytes() == want.tobytes(), (name, dt, trial, axis)


INT_KINDS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _int_values(kind, n, rng):
    if kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(kind)
    lo, hi = max(info.min, -70000), min(info.max, 70000)    # past float16's 65504 too
    v = rng.integers(lo, hi + 1, n, dtype=np.int64).astype(kind)
    v[::7] = 0                                              # ties with +-0.0
    return v


@pytest.mark.parametrize("name", ["copysign", "heaviside", "maximum", "minimum", "fmax", "fmin",
                                  "nextafter"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_an_integer_with_a_half_operand_as_the_cast_operands(name, dt, simd_path):
    """An integer/bool operand with a float16/bfloat16 one (the loop casts the integer to the
    half type's bits, in one pass with the bit op or a block at a time, and runs the bits loop):
    bit for bit NumPy's / ml_dtypes' op of the cast operands, NaN payloads, signalling NaNs and
    zeros' signs kept, in either order, contiguous (across the 1024-element blocks), strided and
    scalar operands, with the cast's overflow warning (and nextafter's own warnings), on every
    SIMD path (the AVX-512 and AVX2 block conversions, the portable one)."""
    d = F16 if dt == "float16" else BF16
    rng = np.random.default_rng(27)
    uf, ref = getattr(tl, name), getattr(np, name)
    n = 2500
    h = rng.permutation(ALL)[:n].view(d)
    # (heaviside's x == 0: the int's rounding out; vectors with +0, with only -0, with neither)
    h.view(np.uint16)[:1500:11] = 0
    h.view(np.uint16)[1600:2200:23] = 0x8000
    for kind in INT_KINDS:
        i = _int_values(kind, n, rng)
        cases = [(i, h), (h, i), (i[:-1:3], h[1::3]), (h[::-2], i[::2]), (i[:37], h[:37]),
                 (i, h[5]), (i[9], h), (h, i[4]), (h[3], i)]
        for k, (a, b) in enumerate(cases):
            got, gw = run_with_warnings(uf, a, b)
            with np.errstate(all="ignore"):
                ca = a if a.dtype == d else np.asarray(a).astype(d)
                cb = b if b.dtype == d else np.asarray(b).astype(d)
            want, ww = run_with_warnings(ref, ca, cb)
            _, cast_w = run_with_warnings(lambda: np.asarray(a if a.dtype != d else b).astype(d))
            assert got.dtype == d, (name, dt, kind, k)
            got, want = np.asarray(got).view(np.uint16), np.asarray(want).view(np.uint16)
            if name == "nextafter" and dt == "bfloat16":
                # ml_dtypes' NaN result is its canonical NaN, and so is ours (as above)
                nan = [np.asarray(x).view(np.uint16) & 0x7fff > 0x7f80 for x in (ca, cb)]
                got, want = np.where(nan[0] | nan[1], 0, (got, want))
            assert got.tobytes() == want.tobytes(), (name, dt, kind, k)
            want_w = cast_w if name in QUIET else sorted(set(cast_w) | set(ww))
            assert gw == want_w, (name, dt, kind, k, gw, want_w)
            if name == "nextafter":
                assert _ufuncs.mixed_loop_kind(uf, (a.dtype, b.dtype, d)) == "blocked"
