"""Unary ufunc values against NumPy's ufunc on the operand cast to the compute dtype: special
values and random data for every op and dtype, every float16/bfloat16 bit pattern for the
exactly rounded ops, and the floating-point warnings."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from test_ufuncs_values import complex_err_ulps, special_values, ulp_diff
from ufunc_reference import ARRAY_KINDS, LONG, dtype
from unary_reference import RULES, compute_dtype, expected

# the ulp helpers overflow harmlessly on NaN/inf bit patterns
pytestmark = [pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")]
BF16 = np.dtype(ml_dtypes.bfloat16)
UNARY = sorted(RULES)
# correctly rounded or exact in NumPy and here: compared bit for bit
EXACT = {"sqrt", "negative", "positive", "absolute", "abs", "fabs", "sign", "square", "floor",
         "ceil", "trunc", "rint", "conj", "conjugate", "invert", "bitwise_not",
         "bitwise_invert", "bitwise_count", "logical_not", "isnan", "isinf", "isfinite",
         "signbit", "spacing",
         "frexp", "modf", "reciprocal", "deg2rad", "rad2deg", "degrees", "radians"}
# complex results allowed within 2 ulp instead of bit for bit (none: complex absolute follows
# NumPy's SIMD formula, square its FMA multiply)
APPROX_COMPLEX = set()
NUMPY_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
              "atan": "arctan", "atanh": "arctanh", "bitwise_invert": "invert"}
# float32/float64 loops of these use glibc's libmvec on contiguous data where it is available
# (typelattice._ufuncs.set_vmath): compared with the exact result (the long double one, rounded)
# within libmvec's documented maximum error of 4 ulp (sourceware.org/glibc/wiki/libmvec)
LIBMVEC = {"cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
           "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"}
LIBMVEC_ULPS = 4
IDENTITY_ON_BOOL = {"positive", "absolute", "abs", "floor", "ceil", "trunc", "conj", "conjugate"}


def numpy_ref(name, x):
    """NumPy's (or ml_dtypes') ufunc on x, already in the compute dtype."""
    f = getattr(np, NUMPY_NAME.get(name, name))
    if x.dtype == bool and name in IDENTITY_ON_BOOL:
        return x.copy()
    if x.dtype.kind == "c" and name in ("deg2rad", "radians", "rad2deg", "degrees"):
        k = f(np.ones((), x.real.dtype))       # NumPy's constant; JAX scales both parts
        r = np.empty_like(x)
        r.real, r.imag = x.real * k, x.imag * k
        return r
    if x.dtype == BF16:
        try:
            r = f(x)
        except TypeError:   # no ml_dtypes loop: computed in float32, rounded
            r = None
        if r is None or np.asarray(r if not isinstance(r, tuple) else r[0]).dtype == np.float32:
            r = f(x.astype(np.float32))
            return tuple(np.asarray(a).astype(BF16 if a.dtype == np.float32 else a.dtype)
                         for a in r) if isinstance(r, tuple) else r.astype(BF16)
    return f(x)


def _as_float(x):
    return x.astype(np.float32) if x.dtype == BF16 else x


def check(name, got, want, label, tol=2):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (label, g.dtype, w.dtype)
        if g.dtype.kind in "fcV" or g.dtype == BF16:
            if g.dtype.kind == "c":
                exact = name in EXACT and name not in APPROX_COMPLEX
                d = ulp_diff(g, w) if exact else complex_err_ulps(g, w)
            else:
                exact = name in EXACT and not (name in APPROX_COMPLEX and label[1].startswith("c"))
                d = ulp_diff(g, w)
                gz, wz = _as_float(g), _as_float(w)
                if exact:
                    zs = (gz == 0) & (wz == 0) & (np.signbit(gz) != np.signbit(wz))
                    assert not zs.any(), \
                        f"{label}: sign of zero differs: {g[zs][:3]} vs {w[zs][:3]}"
            tol = 0 if exact else tol
            if d.max(initial=0) > tol:
                idx = np.argwhere(d > tol)[:5]
                raise AssertionError(
                    f"{label}: {int((d > tol).sum())} values differ by > {tol} ulp, e.g. "
                    + "; ".join(f"{tuple(i)}: got {g[tuple(i)]!r} want {w[tuple(i)]!r}"
                                for i in idx))
        else:
            if not np.array_equal(g, w):
                idx = np.argwhere(g != w)[:5]
                raise AssertionError(f"{label}: e.g. " + "; ".join(
                    f"{tuple(i)}: got {g[tuple(i)]!r} want {w[tuple(i)]!r}" for i in idx))


def _extra_specials(dt):
    dt = np.dtype(dt)
    if dt.kind != "f" and dt != BF16:
        return np.zeros(0, dt)
    info = ml_dtypes.finfo(dt)
    v = [info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
         -info.smallest_subnormal, 2.5, -2.5, 1.5, -0.5, 0.9999, 1.0001, 2, -2, 90, 180, 710,
         -710, 89, 11.5, 12]
    with np.errstate(all="ignore"):
        return np.array(v, np.float64).astype(dt)


def values_of(k, rng):
    dt = dtype(LONG[k])
    sv = special_values(dt)
    parts = [sv, _extra_specials(dt)]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        parts.append(rng.integers(info.min, info.max, 200, dtype=dt, endpoint=True))
    elif dt.kind == "c":
        ft = np.float32 if dt == np.complex64 else np.float64
        re = rng.standard_normal(200) * np.exp(rng.uniform(-5, 5, 200))
        im = rng.standard_normal(200) * np.exp(rng.uniform(-5, 5, 200))
        parts.append((re.astype(ft) + 1j * im.astype(ft)).astype(dt))
    elif dt != bool:
        with np.errstate(all="ignore"):
            r = rng.standard_normal(300) * np.exp(rng.uniform(-8, 8, 300))
            parts.append(r.astype(dt))
            parts.append(rng.uniform(-1.2, 1.2, 100).astype(dt))
    return np.concatenate([np.asarray(p, dt) for p in parts])


@pytest.mark.parametrize("name", UNARY)
def test_values_special_and_random(name):
    uf = getattr(tl, name)
    rng = np.random.default_rng(7)
    bad = []
    for k in ARRAY_KINDS:
        if isinstance(expected(name, k), type):
            continue
        x = values_of(k, rng)
        cd = dtype(compute_dtype(name, k))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = uf(x)
            want = numpy_ref(name, x.astype(cd))
        tol = 2
        if NUMPY_NAME.get(name, name) in LIBMVEC and cd in (np.float32, np.float64):
            with np.errstate(all="ignore"):
                want = numpy_ref(name, x.astype(cd).astype(np.longdouble)).astype(cd)
            tol = LIBMVEC_ULPS
        if name == "absolute" and x.dtype.kind == "c":
            want = want.astype(x.real.dtype)
        if name == "frexp":   # exponent unspecified for inf/NaN (C standard): compare finite
            fin = np.isfinite(_as_float(x.astype(cd)))
            got = (got[0], np.where(fin, got[1], 0))
            want = (want[0], np.where(fin, want[1], 0).astype(np.int32))
        try:
            check(name, got, want, (name, k), tol)
        except AssertionError as exc:
            bad.append(str(exc))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", ["sqrt", "negative", "absolute", "floor", "ceil", "trunc",
                                  "rint", "square", "reciprocal", "sign", "spacing", "frexp",
                                  "modf", "signbit", "isnan", "isinf", "isfinite", "deg2rad",
                                  "rad2deg"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_every_bit_pattern(name, dt):
    """All 65536 float16/bfloat16 inputs, bit for bit against NumPy / ml_dtypes."""
    d = dtype(dt)
    x = np.arange(65536, dtype=np.uint16).view(d)
    with np.errstate(all="ignore"):
        got = getattr(tl, name)(x)
        want = numpy_ref(name, x)
    if name == "frexp":
        fin = np.isfinite(_as_float(x))
        got = (got[0], np.where(fin, got[1], 0))
        want = (want[0], np.where(fin, want[1], 0).astype(np.int32))
    check(name, got, want, (name, dt))


@pytest.mark.parametrize("name", ["sqrt", "floor", "ceil", "trunc", "rint", "square",
                                  "reciprocal", "sign", "deg2rad", "rad2deg"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_contiguous_blocks_equal_element_loop(name, dt):
    """Contiguous float16 (and bfloat16 floor/ceil/trunc) data run in blocks widened to float32,
    computed, then rounded by the block conversion: every bit pattern's result and the warnings
    equal the element loop's (strided operand and result), at unaligned starts and odd lengths
    (block tails), in place too."""
    d = dtype(dt)
    x = np.arange(65536, dtype=np.uint16).view(d)
    uf = getattr(tl, name)

    def run(v, **kw):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                r = uf(v, **kw)
        return r, sorted({str(m.message) for m in w})

    for lo, hi in ((0, 65536), (3, 65536 - 5), (0x7b00, 0x7d17), (1, 1500)):
        v = x[lo:hi]
        got, gw = run(v)
        strided = np.empty(2 * v.size, np.uint16).view(d)
        strided[::2] = v
        out = np.zeros(2 * v.size, np.uint16).view(d)
        ref, rw = run(strided[::2], out=out[::2])
        assert got.view(np.uint16).tobytes() == ref.view(np.uint16).tobytes(), (name, dt, lo)
        assert gw == rw, (name, dt, lo, gw, rw)
        z = v.copy()
        run(z, out=z)
        assert z.view(np.uint16).tobytes() == got.view(np.uint16).tobytes(), (name, dt, lo)


def _warns(f, x):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(all="warn", under="ignore"):
            f(x)
    return sorted({str(m.message).split(" encountered")[0] for m in w
                   if issubclass(m.category, RuntimeWarning)})


@pytest.mark.parametrize("name", UNARY)
def test_fp_warnings_as_numpy(name):
    """The set of warnings (divide by zero, overflow, invalid) on each dtype's special values
    equals NumPy's (float16/32/64, ints, complex; bfloat16 follows ml_dtypes and is skipped)."""
    uf = getattr(tl, name)
    bad = []
    for k in ARRAY_KINDS:
        if isinstance(expected(name, k), type) or k == "bf16":
            continue
        dt = dtype(LONG[k])
        x = np.concatenate([special_values(dt), _extra_specials(dt)])
        cd = dtype(compute_dtype(name, k))
        got = _warns(uf, x)
        want = _warns(lambda v: numpy_ref(name, v), x.astype(cd))
        if got != want:
            bad.append(f"{k}: got {got}, NumPy {want}")
    assert not bad, "\n".join(bad)


# -- ml_dtypes' small floats (float8/6/4) -------------------------------------------------------
def _extended_table():
    """{op: {dtype abbreviation: entry}} from the 'Unary ops on extended dtypes' table."""
    text = (REF_MD).read_text()
    sec = text.split("**Unary ops on extended dtypes**", 1)[1]
    rows = [line for line in sec.splitlines() if line.startswith("|")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    table = {}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        table[cells[0]] = dict(zip(head[1:], cells[1:]))
    return table


REF_MD = __import__("pathlib").Path(__file__).parent / "reference" / "jax_ops_rules.md"
EXT = _extended_table()
EXT_FLOATS = {"f4e2m1fn": "float4_e2m1fn", "f6e2m3fn": "float6_e2m3fn",
              "f6e3m2fn": "float6_e3m2fn", "f8e3m4": "float8_e3m4", "f8e4m3": "float8_e4m3",
              "f8e8m0fnu": "float8_e8m0fnu", "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
              "f8e4m3fn": "float8_e4m3fn", "f8e4m3fnuz": "float8_e4m3fnuz",
              "f8e5m2": "float8_e5m2", "f8e5m2fnuz": "float8_e5m2fnuz"}
# JAX gives these, typelattice raises TypeError (documented gap)
EXT_GAP = set()


@pytest.mark.parametrize("name", UNARY)
def test_small_floats_every_bit_pattern(name):
    """float8/6/4 operands: the dtype JAX gives ('=' keeps the type, 'b' is bool; other
    entries raise) and, bit for bit, ml_dtypes' own ufunc (computed in float32) on every value."""
    uf = getattr(tl, name)
    bad = []
    for abbr, tname in EXT_FLOATS.items():
        entry = EXT[name][abbr]
        if entry == f"({abbr},{abbr})":      # two outputs of the operand's type (modf)
            entry = "="
        d = np.dtype(getattr(ml_dtypes, tname))
        x = np.arange(1 << ml_dtypes.finfo(d).bits, dtype=np.uint8).view(d)
        if entry not in ("=", "b") or name in EXT_GAP:
            with pytest.raises(TypeError):
                uf(x)
            continue
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = uf(x)
            try:
                want = getattr(np, NUMPY_NAME.get(name, name))(x)
            except TypeError:
                want = None
            w0 = want[0] if isinstance(want, tuple) else want
            if want is None or w0.dtype == np.float32:
                r = getattr(np, NUMPY_NAME.get(name, name))(x.astype(np.float32))
                want = tuple(a.astype(d) for a in r) if isinstance(r, tuple) else r.astype(d)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        ok = True
        for g, w in zip(got, want):
            assert g.dtype == (np.dtype(bool) if entry == "b" else d), (tname, g.dtype)
            w = np.asarray(w).astype(g.dtype)
            if entry == "=" and tname.startswith(("float4", "float6", "float8_e8m0")):
                # formats without NaN (or without sign/zero): a NaN float32 result converts to
                # -0 through ml_dtypes' cast function but to +0 through its ufuncs (known
                # difference), and e8m0 has no sign: compare where the float32 result is a
                # number
                with np.errstate(all="ignore"):
                    r32 = getattr(np, NUMPY_NAME.get(name, name))(x.astype(np.float32))
                keep = ~np.isnan(r32[0] if isinstance(r32, tuple) else r32)
                if tname.startswith("float8_e8m0") and name == "sign":
                    keep[:] = False
                g, w = g[keep], w[keep]
            if entry == "b":
                ok &= np.array_equal(g, w)
            else:
                g32 = g.astype(np.float32)
                w32 = w.astype(np.float32)
                ok &= np.array_equal(np.isnan(g32), np.isnan(w32)) and np.array_equal(
                    g32[~np.isnan(g32)].view(np.uint32), w32[~np.isnan(w32)].view(np.uint32))
        if not ok:
            bad.append(tname)
    assert not bad, bad


EXT_INTS = {"i4": "int4", "u4": "uint4", "i2": "int2", "u2": "uint2"}
# the unary ops typelattice runs on sub-byte ints (JAX's '=', 'b' and 'u8' cells)
SUB_BYTE_OPS = {"negative", "positive", "sign", "square", "invert", "floor", "ceil", "trunc",
                "conjugate", "logical_not", "isnan", "isinf", "isfinite", "signbit", "absolute",
                "bitwise_count"}


@pytest.mark.parametrize("name", UNARY)
def test_sub_byte_ints(name):
    """int4/uint4 (and int2/uint2 where ml_dtypes has them): where JAX's extended table gives a
    core dtype (f32, f64: the to-inexact table and rint's default float) typelattice gives it
    with the values of NumPy on the converted operand; where it keeps the sub-byte type or gives
    bool, the sub-byte loops give NumPy's int64 values wrapped to the type (the ops of
    SUB_BYTE_OPS); elsewhere typelattice raises TypeError."""
    uf = getattr(tl, name)
    for abbr, tname in EXT_INTS.items():
        if not hasattr(ml_dtypes, tname):
            continue
        d = np.dtype(getattr(ml_dtypes, tname))
        info = ml_dtypes.iinfo(d)
        x = np.arange(info.min, info.max + 1).astype(d)
        entry = EXT[name][abbr]
        if entry in ("=", "b", "u8") and uf.__name__.split(".")[-1] in SUB_BYTE_OPS:
            got = uf(x)
            ref = getattr(np, uf.__name__.split(".")[-1])(x.astype(np.int64))
            assert got.dtype == {"=": d, "b": np.dtype(bool), "u8": np.dtype(np.uint8)}[entry], \
                (name, tname)
            span = int(info.max) - int(info.min) + 1
            ref = ref if entry != "=" else (ref - int(info.min)) % span + int(info.min)
            assert np.array_equal(got.astype(np.int64), ref.astype(np.int64)), (name, tname)
            continue
        want = {"f32": "float32", "f64": "float64", "(f32,f32)": "float32",
                "(f32,i32)": "float32"}.get(entry)
        if want is None:
            with pytest.raises((TypeError, ValueError)):
                with np.errstate(all="ignore"):
                    uf(x)
            continue
        with np.errstate(all="ignore"):
            got = uf(x)
            ref = getattr(np, NUMPY_NAME.get(name, name))(x.astype(np.int8).astype(want))
        got = got if isinstance(got, tuple) else (got,)
        ref = ref if isinstance(ref, tuple) else (ref,)
        assert got[0].dtype == np.dtype(want), (tname, got[0].dtype)
        check(name, got, ref, (name, tname))


def test_sign_of_signed_zeros_is_each_types_own_loops():
    """sign(-0.0) is the dtype's own loop's (NumPy's +0.0 for float16/32/64, ml_dtypes' -0.0 for
    bfloat16 and the float8/6/4 types), bit for bit (README, Differences from NumPy)."""
    for t in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
              ml_dtypes.float8_e5m2, ml_dtypes.float6_e2m3fn, ml_dtypes.float4_e2m1fn):
        x = np.array([-0.0, 0.0, -2.0, 3.0]).astype(t)
        got, want = tl.sign(x), np.sign(x)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (t, got, want)


@pytest.mark.parametrize("name", ["sqrt", "floor", "ceil", "trunc", "rint", "square",
                                  "reciprocal", "deg2rad", "rad2deg", "cbrt"])
def test_bfloat16_nan_results_are_ml_dtypes_canonical_nan(name):
    """A bfloat16 NaN result is ml_dtypes' conversion of the float32 NaN: 0x7fc0 with the sign,
    the payload dropped (NumPy's float32 op on the widened input, then ml_dtypes' astype, is
    the reference), for every NaN bit pattern, contiguous (the block conversion) and strided
    (the element function's tl_f32_to_bf16, which kept the payload: sqrt(0x7fc1) was 0x7fc1)."""
    bits = np.concatenate([np.arange(0x7f81, 0x8000), np.arange(0xff81, 0x10000)])
    x = bits.astype(np.uint16).view(BF16)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x.astype(np.float32)).astype(BF16).view(np.uint16)
        for v in (x, np.repeat(x, 2)[::2]):
            got = getattr(tl, name)(v).view(np.uint16)
            assert np.isin(got, [0x7fc0, 0xffc0]).all(), (name, hex(int(got.max())))
            assert got.tobytes() == want.tobytes(), name
