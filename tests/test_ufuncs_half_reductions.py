"""Reductions of float16/bfloat16 arrays (kernels/tl_loops_host.h): maximum/minimum/fmax/fmin
from one SIMD pass over the bits (TL_MM16_RED), float16 add's pairwise sum over converted leaves
(TL_PAIRWISE_F16), the ops that round every step with the accumulator in a register
(TL_LOOP2_RED16, TL_LOOP_BITS16). Bit for bit against NumPy's float16 loops and ml_dtypes'
bfloat16 ones, NaN payloads and the signs of zeros included, on every SIMD path."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from conftest import run_with_warnings

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
# (the references' own warnings of NaN operands, outside the checks that record them)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
LENGTHS = [1, 2, 7, 31, 32, 33, 64, 65, 127, 128, 129, 300, 1000, 4099]
# NaNs of distinct payloads and signs (signalling ones too), infinities, signed zeros, subnormals
SPECIAL = {"float16": [0x7e00, 0xfe01, 0x7c01, 0x7d23, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001,
                       0x8001, 0x7bff, 0xfbff],
           "bfloat16": [0x7fc0, 0xffc1, 0x7f81, 0x7fa3, 0x7f80, 0xff80, 0x0000, 0x8000, 0x0001,
                        0x8001, 0x7f7f, 0xff7f]}


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint16)


def _minmax_rows(dt, n, rng):
    """Rows of n bit patterns exercising each rule of the element loop's fold."""
    d = F16 if dt == "float16" else BF16
    special = np.array(SPECIAL[dt], np.uint16)
    finite = rng.standard_normal(n).astype(d)
    rows = [finite]
    # the extreme is a zero: nonpositive (nonnegative) values with zeros of both signs
    for sign in (-1, 1):
        z = (sign * np.abs(rng.standard_normal(n))).astype(d)
        z[rng.integers(0, n, max(1, n // 5))] = np.array(0.0, d)
        z[rng.integers(0, n, max(1, n // 5))] = np.array(-0.0, d)
        rows.append(z)
    # NaNs (distinct payloads) at random places, once near the end
    for k in range(2):
        x = rng.standard_normal(n).astype(d)
        pos = rng.integers(0, n, 1 + k) if k == 0 else np.array([n - 1])
        x[pos] = special[rng.integers(0, 4, pos.size)].view(d)
        rows.append(x)
    rows.append(special[rng.integers(0, 4, n)].view(d))             # all NaN
    rows.append(special[rng.integers(0, special.size, n)].view(d))  # specials only
    eq = np.full(n, rng.standard_normal(), d)                       # all equal
    rows.append(eq)
    return rows


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_minmax_reductions_of_long_rows(name, dt, simd_path):
    """reduce of 1-4099 elements, contiguous (the SIMD pass) and strided (the chain), with
    initial= values (the accumulator: a NaN, a zero of either sign, a value beyond every
    element), along axis 1 of 2-D blocks: the reference's bits, quiet."""
    d = F16 if dt == "float16" else BF16
    rng = np.random.default_rng(41)
    uf, ref = getattr(tl, name), getattr(np, name)
    inits = [None] + [np.array(v, np.uint16).view(d)[()]
                      for v in SPECIAL[dt][:2] + [0x0000, 0x8000, 0x7c00 if dt == "float16"
                                                  else 0x7f80]]
    for n in LENGTHS:
        for x in _minmax_rows(dt, n, rng):
            for init in inits:
                kw = {} if init is None else {"initial": init}
                got, gw = run_with_warnings(uf.reduce, x, **kw)
                want = ref.reduce(x, **kw)
                assert _bits(got).tobytes() == _bits(want).tobytes(), (name, dt, n, init, x[:8])
                assert gw == [], (name, dt, gw)
            s = np.repeat(x, 3)[::3]           # a strided view of the same values
            assert _bits(uf.reduce(s)).tobytes() == _bits(ref.reduce(x)).tobytes(), (name, n)
            # rows of a 2-D array (one call per row) and columns (in-place calls)
            m = np.stack([x, x[::-1], np.roll(x, n // 3)])
            for axis in (0, 1):
                with np.errstate(all="ignore"):
                    assert _bits(uf.reduce(m, axis=axis)).tobytes() == \
                        _bits(ref.reduce(m, axis=axis)).tobytes(), (name, n, axis)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_minmax_reductions_of_every_bit_pattern(dt, simd_path):
    """Every one of the 65536 patterns, in order and shuffled, and each pattern on its own after a
    block of others: the fold's result on all of them."""
    d = F16 if dt == "float16" else BF16
    rng = np.random.default_rng(7)
    allbits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for name in ("maximum", "minimum", "fmax", "fmin"):
        uf, ref = getattr(tl, name), getattr(np, name)
        for x in (allbits, rng.permutation(allbits), allbits[::-1]):
            x = x.view(d)
            with np.errstate(all="ignore"):
                assert _bits(uf.reduce(x)).tobytes() == _bits(ref.reduce(x)).tobytes(), name
        # rows of 40 finite values with one pattern at each place: every pattern beside values
        finite = rng.standard_normal((1 << 16, 40)).astype(d)
        finite[np.arange(1 << 16), np.arange(1 << 16) % 40] = allbits.view(d)
        with np.errstate(all="ignore"):
            assert _bits(uf.reduce(finite, axis=1)).tobytes() == \
                _bits(ref.reduce(finite, axis=1)).tobytes(), name


@pytest.mark.parametrize("n", [0, 1, 5, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000,
                               8192, 10007])
def test_float16_add_reduce_is_numpys_pairwise_sum(n, simd_path):
    """float16 add.reduce: NumPy's pairwise sum of the float32 values, rounded once per call, its
    bits and warnings (inf - inf, a signalling NaN, overflow of the result), contiguous and
    strided, 1-D and along either axis."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 1000).astype(F16)
    # large values of both signs among small ones: what float32 keeps of the small ones
    # depends on the order of the additions
    c = (rng.standard_normal(n) * 0.01).astype(F16)
    c[::5], c[2::5] = 60000, -60000
    cases = [x, np.abs(x), x * np.float16(60), c]
    if n:
        y = x.copy()
        y[rng.integers(0, n)] = np.float16(np.inf)
        cases.append(y)
        z = y.copy()
        z[rng.integers(0, n)] = np.float16(-np.inf)
        cases.append(z)
        w = x.copy()
        w[rng.integers(0, n)] = np.array(0x7d23, np.uint16).view(F16)   # signalling
        cases.append(w)
        cases.append(np.full(n, -0.0, F16))
    for c in cases:
        for v in (c, np.repeat(c, 2)[::2]):
            got, gw = run_with_warnings(tl.add.reduce, v)
            want, ww = run_with_warnings(np.add.reduce, v)
            assert _bits(got).tobytes() == _bits(want).tobytes(), (n, c[:6])
            assert gw == ww, (n, gw, ww)
    m = np.stack([x, x[::-1]])
    for axis in (0, 1):
        with np.errstate(all="ignore"):
            assert _bits(tl.add.reduce(m, axis=axis)).tobytes() == \
                _bits(np.add.reduce(m, axis=axis)).tobytes(), axis


CHAIN_OPS = ["power", "arctan2", "hypot", "logaddexp", "fmod", "copysign", "heaviside",
             "nextafter"]


@pytest.mark.parametrize("dt,name", [("bfloat16", op) for op in
                                     ["add", "subtract", "multiply", "divide"] + CHAIN_OPS]
                         + [("float16", op) for op in CHAIN_OPS])
def test_reductions_rounding_every_step(name, dt):
    """reduce of the ops that round every step (bfloat16's, float16's but add/subtract/multiply/
    divide, which accumulate in float32): the left fold of the same ufunc's own element results,
    acc = op(acc, x[i]) from NumPy's start (the first element, or the identity's result with it),
    contiguous and strided, with its warnings; bfloat16 add/subtract/multiply/divide also bit
    for bit ml_dtypes' reduce."""
    d = F16 if dt == "float16" else BF16
    uf = getattr(tl, name)
    rng = np.random.default_rng(3)
    for n in (2, 3, 9, 40, 333):
        for x in ((rng.random(n) + 0.5).astype(d), (rng.standard_normal(n) * 3).astype(d)):
            x[rng.integers(0, n)] = np.array(SPECIAL[dt][rng.integers(0, 12)], np.uint16).view(d)
            def fold(x=x):
                acc = uf.reduce(x[:1], keepdims=True)
                for v in x[1:]:
                    acc = uf(acc, v)
                return acc
            acc, ww = run_with_warnings(fold)
            for v in (x, np.repeat(x, 2)[::2]):
                got, gw = run_with_warnings(uf.reduce, v)
                assert _bits(got).tobytes() == _bits(acc[0]).tobytes(), (name, dt, n)
                assert gw == ww, (name, dt, n, gw, ww)
            if dt == "bfloat16" and name in ("add", "subtract", "multiply", "divide"):
                with np.errstate(all="ignore"):
                    want = getattr(np, name).reduce(x)
                assert _bits(acc[0]).tobytes() == _bits(want).tobytes(), (name, n)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power", "hypot",
                                  "arctan2", "maximum", "fmin", "copysign"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_accumulate_runs_the_element_loop_in_order(name, dt):
    """accumulate (the output fed back into the first input: the element loop, in order, where
    the fused and blocked loops would read a block ahead): bit for bit and warning for warning
    NumPy's float16 loops and ml_dtypes' bfloat16 ones, with specials, contiguous, strided, along
    either axis, and with out= (a view of the input: the same chain)."""
    d = F16 if dt == "float16" else BF16
    uf, ref = getattr(tl, name), getattr(np, name)
    rng = np.random.default_rng(11)
    for n in (2, 3, 17, 64, 1000):
        x = (rng.random(n) * 2 + 0.25).astype(d)
        if n > 3:
            x[rng.integers(0, n, 3)] = np.array(SPECIAL[dt][:12:5], np.uint16).view(d)
        for v in (x, np.repeat(x, 3)[::3]):
            got, gw = run_with_warnings(uf.accumulate, v)
            want, ww = run_with_warnings(ref.accumulate, v)
            assert _bits(got).tobytes() == _bits(want).tobytes(), (name, dt, n)
            if name not in QUIET_BITS:
                assert gw == ww, (name, dt, n, gw, ww)
        m = np.stack([x, x[::-1]])
        for axis in (0, 1):
            with np.errstate(all="ignore"):
                assert _bits(uf.accumulate(m, axis=axis)).tobytes() == \
                    _bits(ref.accumulate(m, axis=axis)).tobytes(), (name, axis)
        y = x.copy()
        with np.errstate(all="ignore"):
            uf.accumulate(y, out=y)
            assert _bits(y).tobytes() == _bits(ref.accumulate(x)).tobytes(), (name, n)


# ops whose typelattice loops are quiet where the references compute in float32 with signalling
# compares (test_ufuncs_half_bits.QUIET)
QUIET_BITS = ("maximum", "fmin", "copysign")


def test_bfloat16_reductions_round_ties_to_even():
    """Sums exactly halfway between two bfloat16 values, for every mantissa of a binade and its
    negation, in a chain (each step a tie) and with other steps between: ml_dtypes' rounding
    (ties to the even mantissa), one 1-D reduction per row (the chain's own call)."""
    a = (0x3f80 + np.arange(128)).astype(np.uint16).view(BF16)          # [1, 2), every mantissa
    h = np.array(2.0 ** -8, BF16)                                       # half an ulp of them
    one = np.array(1.0, BF16)
    for sign in (1, -1):
        for v in a:
            v = BF16.type(sign * float(v))
            for x in (np.array([v, sign * h], BF16), np.array([v] + [sign * h] * 5, BF16),
                      np.array([v, sign * h, one, -sign * h, sign * h], BF16)):
                for name in ("add", "subtract"):
                    got = getattr(tl, name).reduce(x)
                    want = getattr(np, name).reduce(x)
                    assert _bits(got).tobytes() == _bits(want).tobytes(), (name, x)
