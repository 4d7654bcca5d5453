"""Logical ops of two arrays of different dtypes, neither bool (TL_LOGICAL_XY in
kernels/tl_loops_host.h): each operand's truth value read in place gives NumPy's logical op on the
operands cast to the rule set's join first, for every rule set and ordered pair of the loop
dtypes, on the values whose truth a careless reading would change (-0.0, NaN, subnormals, a
complex with only an imaginary part, ints that wrap to 0 in 32 bits)."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ops, _ufuncs
from typelattice.rules import builtin
from test_ufuncs_fused_mixed import flag_bits

RULES = builtin()
OPS = ("logical_and", "logical_or", "logical_xor")
TYPES = [t for t in _ops.LOOP_TYPES if t != "bool"]


def _dt(t):
    return np.dtype(ml_dtypes.bfloat16) if t == "bfloat16" else np.dtype(t)


def _values(t, n, seed):
    """n values of t: its zeros and edge truths first, then zeros and random values mixed."""
    d = _dt(t)
    rng = np.random.default_rng(seed)
    if d.kind in "iu":
        ii = np.iinfo(d)
        edge = [0, 1, ii.max, ii.min, 256, 2 ** 16, 2 ** 32, 2 ** 32 + 1, -1]
        edge = [v for v in edge if ii.min <= v <= ii.max]
        x = rng.integers(0, 3, n).astype(d)
    elif d.kind == "c":
        edge = [0j, complex(-0.0, -0.0), 1j, complex(0, -0.0), complex(np.nan, 0),
                complex(0, 1e-45), complex(-0.0, 1e-320), complex(np.inf, 0), 1 + 1j]
        x = (rng.integers(0, 3, n) * (rng.random(n) + 1j * rng.integers(0, 2, n))).astype(d)
    else:
        edge = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, 6e-8, 1e-40, 1e-320,
                -5e-324, 1.0]
        x = (rng.integers(0, 3, n) * rng.standard_normal(n)).astype(d)
    with np.errstate(all="ignore"):
        x[:len(edge)] = np.array(edge).astype(d)
    return x


def _cases(rname):
    """(ufunc, op, a, b, cast): cast(x) is NumPy's cast of an operand to the rule set's join
    (jax32 reads int64 as int32 first: 2**32 is 0 there)."""
    ufs = _ufuncs.make_ufuncs(rname)
    canon = RULES[rname].canonicalize
    for name in OPS:
        uf = ufs[name]
        for a in TYPES:
            for b in TYPES:
                if a == b:
                    continue
                try:
                    uf.resolve_dtypes((_dt(a), _dt(b), None))
                except TypeError:
                    continue
                t = tl.result_type(_dt(a), _dt(b), rules=rname)

                def cast(x, t=t):
                    return x.astype(_dt(canon.get(x.dtype.name, x.dtype.name))).astype(t)
                yield uf, name, a, b, cast


@pytest.mark.parametrize("rname", list(RULES))
def test_values_and_layouts_as_numpy_on_the_cast_operands(rname):
    ran = cases = 0
    for uf, name, a, b, cast in _cases(rname):
        cases += 1
        ref = getattr(np, name)
        x, y = _values(a, 70, 1), np.roll(_values(b, 70, 2), 5)
        with np.errstate(all="ignore"):
            xc, yc = cast(x), cast(y)
            want = ref(xc, yc)
            msg = (rname, name, a, b, xc.dtype)
            got = uf(x, y)
            assert got.dtype == np.bool_, msg
            np.testing.assert_array_equal(got, want, err_msg=str(msg))
            np.testing.assert_array_equal(uf(x[:-1:3], y[1::3]), ref(xc[:-1:3], yc[1::3]),
                                          err_msg=str(msg + ("strided",)))
            np.testing.assert_array_equal(uf(x[::-1], y), ref(xc[::-1], yc),
                                          err_msg=str(msg + ("reversed",)))
            for k in range(9):      # each edge value as a broadcast 0-d operand
                np.testing.assert_array_equal(uf(x[k:k + 1], y), ref(xc[k:k + 1], yc),
                                              err_msg=str(msg + ("scalar first", k)))
                np.testing.assert_array_equal(uf(np.asarray(x), y[k]), ref(xc, yc[k]),
                                              err_msg=str(msg + ("scalar second", k)))
            out = np.ones(140, bool)
            uf(x, y, out=out[::2])
            np.testing.assert_array_equal(out[::2], want, err_msg=str(msg + ("out=",)))
            assert out[1::2].all(), msg
        ran += _ufuncs.mixed_loop_kind(uf, (a, b, "bool")) == "logical"
    assert ran > 0 or cases == 0      # (jax_strict promotes no mixed pair)


@pytest.mark.parametrize("rname", ["jax", "numpy", "torch"])
def test_fp_flags_as_numpy_on_the_cast_operands(rname):
    """The only flag: overflow, where the join is float16 and an integer is past 65504 (NumPy's
    cast raises it); none for NaN or inf operands."""
    raised = 0
    for uf, name, a, b, cast in _cases(rname):
        ref = getattr(np, name)
        x, y = _values(a, 40, 1), np.roll(_values(b, 40, 2), 5)
        for p, q in ((x, y), (x[9:], y[9:]), (x[:1], y)):
            want = flag_bits(lambda u, v: ref(cast(u), cast(v)), p, q)
            assert flag_bits(uf, p, q) == want, (rname, name, a, b, len(p))
            raised |= want
    assert raised or rname == "numpy"     # (numpy joins ints with float16 in float32)


def test_the_truth_loop_serves_the_pairs_numpy_would_cast():
    """int8 and uint8 (join int16), float16 and uint32 (float16), complex64 and float16: no
    temporary of the join; a narrowing cast would change a truth value (none in the built-in
    rule sets), so the test only asks for these."""
    for a, b in (("int8", "uint8"), ("float16", "uint32"), ("complex64", "float16"),
                 ("uint64", "bfloat16"), ("float32", "complex128")):
        for name in OPS:
            uf = getattr(tl, name)
            uf(np.zeros(3, _dt(a)), np.zeros(3, _dt(b)))
            assert _ufuncs.mixed_loop_kind(uf, (a, b, "bool")) == "logical", (name, a, b)


def test_reductions_keep_numpys_casts():
    """reduce(x, dtype=bool) and reduce(x, out=bool array) read each truth value once; the (x, y)
    loop never serves them (its first operand is not bool)."""
    x = np.array([0.5, 0.0, -0.0, np.nan, 1e-45], np.float32)
    for name in OPS:
        uf, ref = getattr(tl, name), getattr(np, name)
        assert uf.reduce(x, dtype=bool) == ref.reduce(x.astype(bool)), name
        out = np.zeros((), bool)
        uf.reduce(x.astype(np.float16), out=out)
        assert out == ref.reduce(x.astype(np.float16).astype(bool)), name


def test_float16_cast_overflow_found_at_every_position(simd_path):
    """The truth loop of a float16 join reads an integer operand's truth values and the
    overflow of its cast in one pass (64 values a step on AVX-512, then a tail): one value just
    past 65504's rounding range (65520, -65520, the type's extremes) anywhere among zeros and
    values just inside it (65519, -65519) raises NumPy's overflow, in both operand orders."""
    h = np.ones(131, np.float16)
    h[::3] = 0

    def cast(u):
        return u.astype(np.float16)
    for t in ("uint16", "int32", "uint32", "int64", "uint64"):
        ii = np.iinfo(t)
        inside = [v for v in (65519, -65519, 1) if ii.min <= v <= ii.max]
        past = [v for v in (65520, -65520, ii.max, ii.min) if ii.min <= v <= ii.max
                and abs(v) >= 65520]
        for v in [None] + past:
            for pos in (0, 5, 63, 64, 127, 128, 130):
                x = np.zeros(131, t)
                x[1::7] = inside[pos % len(inside)]
                if v is not None:
                    x[pos] = v
                for name in OPS:
                    uf, ref = getattr(tl, name), getattr(np, name)
                    for p, q in ((h, x), (x, h), (h[:pos + 1], x[:pos + 1])):
                        msg = (simd_path, name, t, v, pos, p.dtype.name, len(p))
                        with np.errstate(all="ignore"):
                            np.testing.assert_array_equal(uf(p, q), ref(cast(p), cast(q)),
                                                          err_msg=str(msg))
                        want = flag_bits(lambda u, w: ref(cast(u), cast(w)), p, q)
                        assert flag_bits(uf, p, q) == want, msg
                        assert bool(want) == (v is not None), msg


@pytest.mark.parametrize("a, b", [("int8", "uint8"), ("int16", "float16"), ("int32", "float32"),
                                  ("uint64", "float64"), ("float16", "float32"),
                                  ("int16", "bfloat16"), ("float64", "int8"),
                                  ("uint16", "float16"), ("int32", "float16"),
                                  ("uint32", "float64")])
def test_long_operands_across_mask_words_and_blocks(simd_path, a, b):
    """On AVX-512 CPUs the loop reads contiguous operands' truth values 64 to a mask word and a
    block of 1024 at a time: every length around those boundaries, the only true value of an
    operand in its last element or the edge values of _values spread over it, as NumPy on the
    cast operands, into a contiguous and a strided out."""
    t = tl.result_type(_dt(a), _dt(b))
    for name in OPS:
        uf, ref = getattr(tl, name), getattr(np, name)
        uf(np.zeros(2, _dt(a)), np.zeros(2, _dt(b)))
        assert _ufuncs.mixed_loop_kind(uf, (a, b, "bool")) == "logical", (name, a, b)
    for n in (1, 2, 31, 63, 64, 65, 127, 1023, 1024, 1025, 1089, 2049, 3001):
        rng = np.random.default_rng(n)
        last = np.zeros(n, _dt(a))
        last[-1] = 1
        spread = np.roll(_values(a, max(n, 16), n)[:n], n // 3)
        y = np.roll(_values(b, max(n, 16), n + 1)[:n], n // 2)
        for x in (last, spread, rng.permutation(spread)):
            for name in OPS:
                uf, ref = getattr(tl, name), getattr(np, name)
                with np.errstate(all="ignore"):
                    want = ref(x.astype(t), y.astype(t))
                    msg = str((simd_path, name, a, b, n))
                    np.testing.assert_array_equal(uf(x, y), want, err_msg=msg)
                    np.testing.assert_array_equal(uf(y, x), want, err_msg=msg + " swapped")
                    out = np.ones(2 * n, bool)
                    uf(x, y, out=out[::2])
                    np.testing.assert_array_equal(out[::2], want, err_msg=msg + " out=")
                    assert out[1::2].all(), msg
