"""The fused float16/bfloat16 binary loops (tl_half_binary in kernels/tl_convert.c) on every path
the CPU has (AVX-512, AVX2+F16C; "scalar" runs the blocked loops): every bit pattern as an operand,
tails, scalar operands, out=, mixed small-integer operands, and the FP warnings, against NumPy
(float16) and ml_dtypes (bfloat16) on operands of the result dtype."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
OPS = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin")


# set_simd arguments per path: "scalar" runs the blocked loops (the portable conversions)
_SET = {"scalar": False, "avx2+f16c": "avx2", "avx512": "avx512", "avx512+bf16": True}


def _available_isas():
    out = []
    for name, arg in _SET.items():
        _ufuncs.set_simd(arg)
        if _ufuncs.simd_isa() == name:      # else the CPU lacks it
            out.append(name)
    _ufuncs.set_simd(None)
    return out


ISAS = _available_isas()


@pytest.fixture(params=ISAS)
def isa(request):
    _ufuncs.set_simd(_SET[request.param])
    assert _ufuncs.simd_isa() == request.param
    yield request.param
    _ufuncs.set_simd(None)


def _same(got, want):
    """Identical bits (a NaN from two NaN operands may be either: which one x86 propagates
    depends on operand order the compiler picks)."""
    assert got.dtype == want.dtype
    g, w = got.view(np.uint16), want.view(np.uint16)
    return (g == w) | (np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))


def _same_bits(got, want, x, y):
    """Identical bits except where both operands ``x``, ``y`` are NaN (_same)."""
    both = _nan2(*(np.broadcast_to(v, got.shape) for v in (x, y)))
    return (got.view(np.uint16) == want.view(np.uint16)) | both


def _flags(fn):
    """The FP warnings fn() raises, as a set of names."""
    seen = set()
    old = np.seterrcall(lambda kind, flag: seen.add(kind))
    try:
        with np.errstate(all="call"):
            out = fn()
    finally:
        np.seterrcall(old)
    return out, seen


QUIET = ("maximum", "minimum", "fmax", "fmin")


def _ref(name, dt, a, b):
    """The reference result and warnings. typelattice's maximum/minimum/fmax/fmin compare quietly
    (no 'invalid' for NaN operands, as NumPy's float16/float32 loops) where ml_dtypes' bfloat16
    loops raise it."""
    want, wf = _flags(lambda: getattr(np, name)(a, b))
    if dt == BF16 and name in QUIET:
        wf.discard("invalid value")
    return want, wf


def _nan2(a, b):
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    return np.isnan(fa) & np.isnan(fb)


ALL = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
def test_every_bit_pattern(isa, dt):
    a = ALL.view(dt)
    rng = np.random.default_rng(5)
    for b in (ALL[::-1].view(dt), rng.permutation(ALL).view(dt)):
        for name in OPS:
            uf, ref = getattr(tl, name), getattr(np, name)
            got, gf = _flags(lambda: uf(a, b))
            want, wf = _ref(name, dt, a, b)
            ok = _same(got, want)
            # exact bits (signalling NaN payloads included) except for NaN op NaN (which one x86
            # propagates depends on the operand order the compiler picks)
            assert ok.all(), (name, isa)
            eq = got.view(np.uint16) == want.view(np.uint16)
            assert eq[~_nan2(a, b)].all(), (name, isa)
            assert gf == wf, (name, isa, gf, wf)
            # flags per block of 512 pairs: each warning where the reference raises it, and
            # where the portable path (blocked loops) raises it
            for k in range(0, a.size, 4096):
                s = slice(k, k + 512)
                gf = _flags(lambda: uf(a[s], b[s]))[1]
                assert gf == _ref(name, dt, a[s], b[s])[1], (name, isa, k)
                _ufuncs.set_simd(False)
                try:
                    assert gf == _flags(lambda: uf(a[s], b[s]))[1], (name, isa, k)
                finally:
                    _ufuncs.set_simd(_SET[isa])


def _specials(dt):
    v = np.array([0.0, -0.0, 1.0, -1.5, 2.0, 3.0, 1e-7, 6e-8, 6.1e-5, 65504.0, 6e4, np.inf,
                  -np.inf, np.nan, 1e30, 3e38, -7.0, 0.1, 1e-39, 1e-45], np.float64)
    with np.errstate(all="ignore"):
        v = v.astype(dt)
    snan = np.array([0x7d01, 0xfc01, 0x7e05] if dt == F16 else [0x7f81, 0xffa0], np.uint16).view(dt)
    return np.concatenate([v, snan])


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
def test_tails_offsets_scalars_out(isa, dt):
    rng = np.random.default_rng(7)
    sp = _specials(dt)
    base_a = rng.choice(sp, 300)
    base_b = rng.choice(sp, 300)
    for name in OPS:
        uf, ref = getattr(tl, name), getattr(np, name)
        with np.errstate(all="ignore"):
            for n in list(range(0, 40)) + [63, 64, 65, 127, 129]:
                for off in (0, 1, 3):
                    a, b = base_a[off:off + n], base_b[off + 1:off + 1 + n]
                    assert _same(uf(a, b), ref(a, b)).all(), (name, n, off)
                    o = np.full(n + 2, 7, dt)
                    r = uf(a, b, out=o[1:-1])
                    assert r is not None and _same(o[1:-1], ref(a, b)).all(), (name, n)
                    assert (o[[0, -1]].view(np.uint16) == np.array(7, dt).view(np.uint16)).all()
            a = base_a[:37]
            for s in sp:
                for x, y in ((a, s), (s, a), (a, np.full(1, s)), (np.full(1, s), a)):
                    got, gf = _flags(lambda: uf(x, y))
                    want, wf = _ref(name, dt, x, y)
                    assert (got.view(np.uint16) == want.view(np.uint16)).all() or \
                        _same(got, want).all(), (name, s)
                    assert gf == wf, (name, s, gf, wf)
            c = a.copy()
            uf(c, a[::-1], out=c)     # in place
            assert _same(c, ref(a, a[::-1])).all(), name
            # strided operands and output take the blocked loop
            o = np.empty(74, dt)
            uf(base_a[:74:2], base_b[:37], out=o[::2])
            assert _same(o[::2], ref(base_a[:74:2], base_b[:37])).all(), name


def test_accumulate_and_reduce_unchanged(isa):
    rng = np.random.default_rng(2)
    for dt in (F16, BF16):
        x = rng.standard_normal(1000).astype(dt)
        for name in ("add", "multiply", "maximum", "subtract"):
            uf, ref = getattr(tl, name), getattr(np, name)
            with np.errstate(all="ignore"):
                assert _same(uf.accumulate(x), ref.accumulate(x)).all(), (name, dt)
                assert _same(uf.reduce(x[:100])[None], ref.reduce(x[:100])[None]).all(), (name, dt)


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("it", ["int8", "uint8", "bool"])
def test_mixed_small_ints(isa, dt, it):
    n = 1 << 16
    bits = np.arange(n, dtype=np.uint32).astype(np.uint16).view(dt)
    ints = (np.arange(n) % 256 - (128 if it == "int8" else 0)).astype(it)
    if it == "bool":
        ints = (np.arange(n) % 3 == 0)
    for name in ("add", "subtract", "multiply", "divide") + QUIET:
        uf, ref = getattr(tl, name), getattr(np, name)
        if name == "subtract" and it == "bool":
            continue
        for x, y, rx, ry in ((ints, bits, ints.astype(dt), bits), (bits, ints, bits, ints.astype(dt)),
                             (ints[:1001], bits[5], ints[:1001].astype(dt), bits[5]),
                             (bits[:77], ints[3:4], bits[:77], ints[3:4].astype(dt)),
                             (ints[1:1000], bits[2:1001], ints[1:1000].astype(dt), bits[2:1001])):
            got, gf = _flags(lambda: uf(x, y))
            want, wf = _ref(name, dt, rx, ry)
            assert got.dtype == dt
            assert (got.view(np.uint16) == want.view(np.uint16)).all() or _same(got, want).all(), \
                (name, isa)
            assert gf == wf, (name, isa, gf, wf)


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
def test_warnings(isa, dt):
    big = np.full(33, 6e4 if dt == F16 else 3e38, dt)
    tiny = np.full(33, 1e-7 if dt == F16 else 1e-38, dt)
    one, zero, inf = np.ones(33, dt), np.zeros(33, dt), np.full(33, np.inf, dt)
    cases = [("add", big, big, "overflow"), ("multiply", big, big, "overflow"),
             ("divide", one, zero, "divide"), ("divide", zero, zero, "invalid"),
             ("subtract", inf, inf, "invalid"), ("multiply", zero, inf, "invalid")]
    if dt == F16:
        cases.append(("multiply", tiny, np.full(33, 0.3, dt), "underflow"))
    for name, a, b, kind in cases:
        uf = getattr(tl, name)
        for x, y in ((a, b), (a[:1], b), (a, b[0]), (a[1:], b[:-1])):
            key = {"overflow": "over", "underflow": "under"}.get(kind, kind)
            with np.errstate(all="ignore", **{key: "raise"}):
                with pytest.raises(FloatingPointError, match=kind.replace("divide", "divide by zero")):
                    uf(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            for name in OPS:
                getattr(tl, name)(one, np.arange(1, 34).astype(dt))
                getattr(tl, name)(np.full(33, np.nan, dt), one)



def _cast(v, dt):
    """v cast to dt by NumPy / ml_dtypes, and the warnings of that cast."""
    if v.dtype == dt:
        return v, set()
    return _flags(lambda: np.asarray(v).astype(dt))


WIDE_INTS = ("int16", "uint16", "int32", "uint32", "int64", "uint64")


def _small_ints(v, rng):
    """v with its first 1600 values ints every half type holds exactly (|v| <= 256: vectors
    that skip the rounding), but for a lane in some 16-value vectors that needs it (257, 259 in
    bfloat16; 2049, 2051 in float16 too), in its range."""
    info = np.iinfo(v.dtype)
    v[:1600] = rng.integers(max(info.min, -256), min(info.max, 256), 1600, endpoint=True)
    for k, x in ((5, 257), (9, 2049), (20, 259), (31, 2051), (40, -257), (57, -2049)):
        if info.min <= x <= info.max:
            v[16 * k + k % 16] = x
    return v


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("it", WIDE_INTS)
def test_mixed_wide_ints(isa, dt, it):
    """An integer operand of more than 8 bits is rounded to the half type first, as NumPy's /
    ml_dtypes' cast (float16: overflow to inf with its warning), then the op (max/min: the
    chosen operand's bits, ties with the rounding included): bits and warnings
    of the cast-first reference, contiguous, scalar, tails and offsets (64-bit integers: runs of
    each range AVX2's conversion treats apart, int32's, below 2^51 and beyond)."""
    info = np.iinfo(it)
    rng = np.random.default_rng(11)
    edge = [v for v in (info.min, info.max, 0, 1, 2049, 2051, -2049, 257, 259, 65504, 65519,
                        65520, 16777217, 2**31 - 1, 2**32 - 1, 2**53 + 1, -2**63)
            if info.min <= v <= info.max]
    ints = np.concatenate([_small_ints(np.zeros(1600, it), rng),
                           rng.integers(info.min, info.max, 700, dtype=it, endpoint=True),
                           rng.integers(max(info.min, -3000), 3000, 700).astype(it),
                           rng.integers(max(info.min, -2**45), min(info.max, 2**45), 300,
                                        dtype=it),
                           np.array(edge, dtype=object).astype(it)])
    halves = (rng.standard_normal(ints.size) * 1000).astype(np.float32).astype(dt)
    halves[::97] = np.resize(_specials(dt), halves[::97].size)
    # (max/min: lanes where the half operand equals the integer's rounding, above or below it,
    # and its neighbours: the kernels decide on the unrounded integer, the cast's bits go out)
    for lo, hi, src in ((2300, 2700, 2300), (2700, 2900, 1600)):
        with np.errstate(over="ignore"):
            halves[lo:hi] = ints[src:src + hi - lo].astype(dt)
        bits = halves.view(np.uint16)            # (neighbours: the next bits up and down)
        bits[lo + 1:hi:3] += 1
        bits[lo + 2:hi:5] -= 1
    for name in ("add", "subtract", "multiply", "divide") + QUIET:
        uf, ref = getattr(tl, name), getattr(np, name)
        for x, y in ((ints, halves), (halves, ints), (ints[5:6], halves), (halves[:33], ints[7]),
                     (ints[-1], halves[:40]), (ints[:77], halves[1:78]), (ints[3:1000], halves[7])):
            got, gf = _flags(lambda: uf(x, y))
            (rx, f1), (ry, f2) = _cast(np.asarray(x), dt), _cast(np.asarray(y), dt)
            want, wf = _ref(name, dt, rx, ry)
            assert got.dtype == dt
            assert _same(got, want).all(), (name, isa, x.shape, y.shape)
            assert gf == wf | f1 | f2, (name, isa, gf, wf, f1, f2)
        if name not in QUIET:
            assert _ufuncs.mixed_loop_kind(uf, (it, dt, dt)) == "blocked"


def test_tail_with_broadcast_operand_raises_nothing_extra(isa):
    """The padding of a tail is not an operand: 1 / a large scalar underflows float16, 1 / a tiny
    one overflows, where the real elements raise nothing."""
    rng = np.random.default_rng(3)
    for dt, s in ((F16, 29520.0), (BF16, 1e-39)):
        for n in (1, 5, 17, 33):
            a = (rng.standard_normal(n) * 10 + 100).astype(dt)
            s_ = np.array(s, dt)
            for x, y in ((a, s_), (a, s_[None])):
                got, gf = _flags(lambda: tl.divide(x, y))
                want, wf = _ref("divide", dt, x, y)
                assert _same(got, want).all() and gf == wf, (dt, n, gf, wf)


F32 = np.dtype(np.float32)


@pytest.mark.parametrize("da,db", [(F16, F32), (F32, F16), (BF16, F32), (F32, BF16), (F16, BF16),
                                   (BF16, F16)], ids=lambda d: str(d))
def test_half_operands_float32_result(isa, da, db):
    """float16/bfloat16 with float32 (or with each other: jax's float32) computes in float32 with
    no rounding step: the bits (NaN aside) and warnings of NumPy on the operands cast first, every
    path, random bit patterns (NaNs, signalling ones, subnormals, infinities), tails, scalars."""
    rng = np.random.default_rng(13)

    def bits(dt, n):
        if dt == F32:
            return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(dt)
        return rng.integers(0, 1 << 16, n).astype(np.uint16).view(dt)
    a, b = bits(da, 3000), bits(db, 3000)
    a[:40], b[-40:] = np.ones(40, da), np.ones(40, db)     # vectors without NaNs too
    a[40::17], a[41::23], b[42::19] = 0, -0.0, -0.0         # (heaviside's zero x; zero signs)
    # (calls of up to 8 elements take the element path: signalling and quiet NaNs, zeros there)
    special = {F16: [0x7d01, 0xfe03, 0x8000, 0x0000, 0x7c00, 0x3c00, 0x7d00, 0xfc01],
               BF16: [0x7f81, 0xffc3, 0x8000, 0x0000, 0x7f80, 0x3f80, 0x7fa0, 0xff81],
               F32: [0x7f800001, 0xffc00003, 0x80000000, 0x00000000, 0x7f800000, 0x3f800000,
                     0x7fa00000, 0xff800001]}
    fa = np.array(special[da], np.uint32 if da == F32 else np.uint16).view(da)
    fb = np.array(special[db], np.uint32 if db == F32 else np.uint16).view(db)
    few = [(fa[:k], np.roll(fb, r)[:k]) for k in (1, 3, 8) for r in range(8)]
    for name in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
                 "copysign", "heaviside"):
        uf, ref = getattr(tl, name), getattr(np, name)
        # (max/min/copysign return an operand's bits, NaN payloads included; heaviside of a NaN
        # x is x, where NumPy's is its own NaN)
        same_nan = name in ("add", "subtract", "multiply", "divide", "heaviside")
        for x, y in [(a, b), (a[:37], b[3:40]), (a[5], b[:33]), (a[:21], b[7]),
                     (a[:1], b[:1])] + few:
            got, gf = _flags(lambda: uf(x, y))
            want, wf = _flags(lambda: ref(np.asarray(x).astype(F32), np.asarray(y).astype(F32)))
            if name == "heaviside":
                wf.discard("invalid value")     # (quiet for a signalling NaN: README)
            assert got.dtype == F32
            if name in ("fmax", "fmin"):
                # a NaN operand: the other operand, the first of two NaNs, bits as they are
                # (NumPy's SIMD body quiets the second of two; its scalar code, arrays of up to
                # 16, gives a NaN for a signalling one: README, Signalling NaNs)
                xc, yc = np.broadcast_arrays(np.asarray(x).astype(F32), np.asarray(y).astype(F32))
                want = np.where(np.isnan(yc) | np.isnan(xc),
                                np.where(np.isnan(xc) & ~np.isnan(yc), yc, xc), want)
            ok = (got.view(np.uint32) == want.view(np.uint32)) | (
                same_nan & np.isnan(got) & np.isnan(want))
            assert ok.all(), (name, isa)
            assert gf == wf, (name, isa, gf, wf)
        assert _ufuncs.mixed_loop_kind(uf, (da, db, F32)) == "blocked"


CMPS = ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")


@pytest.mark.parametrize("dt", [F16, BF16], ids=["f16", "bf16"])
def test_compare_every_bit_pattern(isa, dt):
    """Same-dtype comparisons (bit compares; the fused kernels are for mixed operands): NumPy's
    float16 results and quietness (no warning, signalling NaNs included); bfloat16 as float32
    compares of the exact values, quiet too; tails, offsets and scalar operands."""
    a = ALL.view(dt)
    rng = np.random.default_rng(8)
    for b in (ALL[::-1].view(dt), rng.permutation(ALL).view(dt), a):
        for name in CMPS:
            uf = getattr(tl, name)
            ref = (lambda x, y: getattr(np, name)(x, y)) if dt == F16 else \
                (lambda x, y: getattr(np, name)(np.asarray(x).astype(np.float32),
                                                np.asarray(y).astype(np.float32)))
            with np.errstate(all="ignore"):
                want = ref(a, b)
            got, gf = _flags(lambda: uf(a, b))
            assert got.dtype == np.bool_ and (got == want).all(), (name, isa)
            assert gf == set(), (name, isa, gf)
            for n, off in ((37, 0), (21, 3), (5, 1)):
                x, y = a[off:off + n], b[:n]
                for xx, yy in ((x, y), (x, b[7]), (a[9], y), (x, y[:1])):
                    with np.errstate(all="ignore"):
                        w = ref(xx, yy)
                    g, gf = _flags(lambda: uf(xx, yy))
                    assert (g == w).all() and gf == set(), (name, isa, n)
            snan = np.array([0x7d01 if dt == F16 else 0x7f81], np.uint16).view(dt)
            g, gf = _flags(lambda: uf(a[:40], snan[0]))
            assert (g == (name == "not_equal")).all() and gf == set(), (name, isa)


@pytest.mark.parametrize("da,db", [(F16, F32), (BF16, F32), (F16, BF16), (np.int8, F16),
                                   (F16, np.int32), (np.int64, BF16), (BF16, np.uint16),
                                   (np.int16, F16), (np.bool_, BF16)], ids=str)
def test_compare_mixed(isa, da, db):
    """Mixed comparisons computed in the promoted type (integers rounded to the half type as the
    cast): NumPy's compare of the operands cast first, also where the half operand equals the
    integer's rounding (above or below it: the kernels compare the unrounded integer and the
    bits) or its neighbours; warnings as the portable path (blocked loops: invalid for a
    signalling NaN, the cast's overflow)."""
    rng = np.random.default_rng(9)

    def vals(dt, n):
        dt = np.dtype(dt)
        if dt in (F16, BF16):
            v = rng.integers(0, 1 << 16, n).astype(np.uint16).view(dt).copy()
            v[::3] = rng.integers(-5, 5, v[::3].size).astype(dt)
            return v
        if dt == F32:
            return rng.integers(-5, 5, n).astype(F32)
        if dt == np.bool_:
            return rng.integers(0, 2, n).astype(bool)
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -70000), min(info.max, 70000), n).astype(dt)
        return _small_ints(v, rng)
    a, b = vals(da, 3000), vals(db, 3000)
    comp = tl.add.resolve_dtypes((np.dtype(da), np.dtype(db), None))[2]
    half, ints = (a, b) if np.dtype(da) in (F16, BF16) else (b, a)
    if ints.dtype.kind in "iu" and half.dtype in (F16, BF16):
        with np.errstate(over="ignore"):
            half[1600:2600] = ints[1600:2600].astype(half.dtype)
        bits = half.view(np.uint16)              # (neighbours: the next bits up and down)
        bits[1601:2600:3] += 1
        bits[1602:2600:5] -= 1
    for name in CMPS:
        uf, ref = getattr(tl, name), getattr(np, name)
        for x, y in ((a, b), (b, a), (a[:37], b[3:40]), (a[5], b[:33]), (a[:21], b[7]),
                     (a[1:2], b[:1])):
            got, gf = _flags(lambda: uf(x, y))
            with np.errstate(all="ignore"):
                want = ref(np.asarray(x).astype(comp).astype(F32),
                           np.asarray(y).astype(comp).astype(F32))
            assert got.dtype == np.bool_ and (got == want).all(), (name, isa)
            _ufuncs.set_simd(False)
            try:
                pf = _flags(lambda: uf(x, y))[1]
            finally:
                _ufuncs.set_simd(_SET[isa])
            assert gf == pf, (name, isa, gf, pf)


@pytest.mark.parametrize("da,db", [(F16, F16), (BF16, BF16), (np.dtype("int8"), F16),
                                   (F16, np.dtype("uint8")), (np.dtype("bool"), BF16),
                                   (BF16, np.dtype("int8")), (F16, F32), (BF16, F16),
                                   (F32, BF16)], ids=lambda d: str(d))
def test_calls_of_a_few_elements(isa, da, db):
    """1-8 elements skip the vector kernel's set-up (tl_tiny16): the reference's bits and warnings
    (NumPy / ml_dtypes on the operands cast to the result dtype) for special values, signalling
    NaNs, overflow, and a scalar operand."""
    rng = np.random.default_rng(17)

    def vals(dt):
        if dt.kind in "biu":
            return rng.integers(-128 if dt.kind == "i" else 0, 2 if dt.kind == "b" else 128,
                                64).astype(dt)
        sp = _specials(dt) if dt != F32 else np.array([0.0, -0.0, np.inf, np.nan, 3e38, 1.5], F32)
        return rng.choice(sp, 64)
    a, b = vals(np.dtype(da)), vals(np.dtype(db))
    for name in OPS:
        uf = getattr(tl, name)
        rt = uf.resolve_dtypes((a.dtype, b.dtype, None))[2]
        for n in range(1, 9):
            for x, y in ((a[:n], b[8:8 + n]), (a[16], b[24:24 + n]), (a[32:32 + n], b[40])):
                got, gf = _flags(lambda: uf(x, y))
                # the reference on the operands repeated to 64 elements: NumPy's float32
                # fmax/fmin give a signalling NaN operand back below 8 elements (libm) and the
                # other operand in their SIMD loop, which the kernels follow
                xx, yy = (np.tile(np.broadcast_to(v, got.shape).astype(rt), 64 // n + 1)
                          for v in (x, y))
                want, wf = _ref(name, rt if rt != F32 else F16, xx, yy)
                want = want[:n]
                assert got.dtype == want.dtype == rt
                if rt == F32:
                    assert ((got.view(np.uint32) == want.view(np.uint32))
                            | (np.isnan(got) & np.isnan(want))).all(), (name, n)
                else:
                    # (a NaN operand of maximum/minimum with an integer: its own bits)
                    assert _same_bits(got, want, x, y).all(), (name, n)
                assert gf == wf, (name, n, gf, wf)


@pytest.mark.parametrize("da,db", [(np.dtype("int8"), F16), (F16, F32), (BF16, F16),
                                   (np.dtype("bool"), BF16), (np.dtype("int32"), F16),
                                   (F16, np.dtype("uint16")), (np.dtype("int64"), BF16),
                                   (BF16, np.dtype("int16"))], ids=lambda d: str(d))
def test_calls_of_a_few_elements_compare_and_wide_ints(isa, da, db):
    """1-8 elements (tl_half_binary_few): comparisons, and integers wider than 8 bits rounded to
    the half type as NumPy's / ml_dtypes' cast does (float16 overflow included): NumPy's compare or
    op of the operands cast to the computation dtype, the cast's warnings plus the op's (none for
    the quiet ops, which reported none of the cast's either); signalling NaNs and strided
    operands."""
    rng = np.random.default_rng(19)

    def vals(dt):
        if dt.kind in "biu":
            info = np.iinfo(dt) if dt.kind != "b" else None
            if info is None:
                return rng.integers(0, 2, 64).astype(dt)
            # values that round to the half type, and beyond float16's range
            v = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), 64)
            v[::4] = rng.integers(max(info.min, -300), min(info.max, 300), 16)
            return v.astype(dt)
        sp = _specials(dt) if dt != F32 else np.array([0.0, -0.0, np.inf, np.nan, 3e38, 1.5,
                                                       2049.0, 7.0], F32)
        return rng.choice(sp, 64)
    a, b = vals(np.dtype(da)), vals(np.dtype(db))
    comp = tl.add.resolve_dtypes((a.dtype, b.dtype, None))[2]
    for name in OPS + CMPS:
        uf = getattr(tl, name)
        for n in range(1, 9):
            for x, y in ((a[:n], b[8:8 + n]), (a[16], b[24:24 + n]), (a[32:32 + n], b[40]),
                         (a[:2 * n:2], b[40:40 + n])):
                got, gf = _flags(lambda: uf(x, y))
                (xc, yc), cf = _flags(lambda: [np.asarray(v).astype(comp) for v in (x, y)])
                xx, yy = (np.tile(np.broadcast_to(v, got.shape), 64 // n + 1) for v in (xc, yc))
                if name in CMPS:
                    want, wf = _flags(lambda: getattr(np, name)(xx.astype(F32), yy.astype(F32)))
                else:
                    want, wf = _ref(name, comp if comp != F32 else F16, xx, yy)
                want = want[:n]
                assert got.dtype == want.dtype, (name, n)
                if got.dtype == np.bool_:
                    assert (got == want).all(), (name, n, x, y)
                elif got.dtype == F32:
                    assert ((got.view(np.uint32) == want.view(np.uint32))
                            | (np.isnan(got) & np.isnan(want))).all(), (name, n)
                else:
                    assert _same_bits(got, want, x, y).all(), (name, n)
                # ops that report no FP warning (NumPy's comparisons, maximum...) report the
                # cast's (an integer past float16's range) but none of their own
                quiet = name in CMPS or name in ("maximum", "minimum", "fmax", "fmin")
                assert gf == (cf if quiet else wf | cf), (name, n, gf, wf, cf)
