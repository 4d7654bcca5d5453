"""Unary ufuncs: result dtypes and errors for the 18 operand kinds (15 dtypes and Python
int/float/complex) against the model parsed from jax_ops_rules.md (unary_reference.py), and the
ufunc machinery (out=, where=, dtype=, casting=, at, strides, byte order, resolve_dtypes)."""
import json
import pickle
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from ufunc_reference import LONG, PY_VALUE, dtype
from unary_reference import KINDS, RULES, compute_dtype, expected

# jnp names typelattice does not provide
MISSING = set()
UNARY = sorted(set(RULES) - MISSING)
NUMPY_ALIAS = {"abs": "absolute", "conj": "conjugate", "bitwise_not": "invert",
               "bitwise_invert": "invert", "acos": "arccos", "acosh": "arccosh",
               "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan", "atanh": "arctanh"}


def operand(k):
    if k in PY_VALUE:
        return PY_VALUE[k]
    return np.array([1, 0, 1], dtype=dtype(LONG[k]))


def test_every_unary_op_is_a_numpy_ufunc():
    assert set(RULES) - set(tl.UFUNC_NAMES) == MISSING
    for name in UNARY:
        uf = getattr(tl, name)
        assert isinstance(uf, np.ufunc), name
        assert uf.nin == 1
        assert uf.nout == (2 if name in ("frexp", "modf") else 1), name
        assert uf.__doc__ and "Result dtype:" in uf.__doc__
    for alias, target in NUMPY_ALIAS.items():
        assert getattr(tl, alias) is getattr(tl, target), alias
    assert tl.degrees is not tl.rad2deg and tl.radians is not tl.deg2rad   # as NumPy


@pytest.mark.parametrize("name", UNARY)
def test_result_dtypes_every_operand_kind(name):
    uf = getattr(tl, name)
    bad = []
    for k in KINDS:
        want = expected(name, k)
        try:
            with np.errstate(all="ignore"):
                got = uf(operand(k))
        except Exception as exc:  # noqa: BLE001
            if isinstance(want, type) and type(exc) is want:
                continue
            bad.append(f"{k}: want {want}, raised {type(exc).__name__}: {exc}")
            continue
        if isinstance(want, type):
            bad.append(f"{k}: want {want.__name__}, got {got}")
            continue
        got = got if isinstance(got, tuple) else (got,)
        names = tuple(np.asarray(g).dtype.name for g in got)
        if names != want:
            bad.append(f"{k}: want {want}, got {names}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", UNARY)
def test_resolve_dtypes_agrees_with_calls(name):
    uf = getattr(tl, name)
    for k in KINDS:
        if k in PY_VALUE:
            continue
        want = expected(name, k)
        d = dtype(LONG[k])
        if isinstance(want, type):
            with pytest.raises(want):
                uf.resolve_dtypes((d,) + (None,) * uf.nout)
            continue
        res = uf.resolve_dtypes((d,) + (None,) * uf.nout)
        outs = tuple(x.name for x in res[1:])
        assert outs == want, (k, res)
        assert res[0] == dtype(compute_dtype(name, k)), (k, res)


def test_python_scalars_are_weak():
    assert tl.sqrt(2).dtype == np.float64            # weak float -> default float
    assert tl.sqrt(np.int8(2)).dtype == np.float32   # strong NumPy scalar
    assert tl.negative(3).dtype == np.int64
    assert tl.absolute(3j).dtype == np.float64
    assert tl.rint(3).dtype == np.float64
    with pytest.raises(TypeError):
        tl.invert(1.5)
    # resolve_dtypes with Python scalar types (weak), as a call
    assert tl.sqrt.resolve_dtypes((int, None)) == (np.dtype("f8"),) * 2
    assert tl.absolute.resolve_dtypes((complex, None)) == (np.dtype("c16"), np.dtype("f8"))
    assert tl.frexp.resolve_dtypes((int, None, None))[2] == np.int32
    assert tl.isnan.resolve_dtypes((float, None))[1] == np.bool_
    # NumPy coerces a lone Python int beyond int64 to a strong uint64 (or object) array before
    # the promoter sees it; typelattice raises OverflowError there, as JAX does
    for big in (2**63, 2**64, -2**63 - 1, 2**70):
        with pytest.raises(OverflowError, match=r"does not fit int64.*'jax'"):
            tl.negative(big)
    assert tl.negative(2**63 - 1) == -(2**63 - 1) and tl.negative(-2**63).dtype == np.int64


@pytest.mark.parametrize("rules", ["torch", "tensorflow", "jax32", "anvil", "numpy", "jax"])
def test_lone_python_scalar_of_a_unary_op_takes_the_rule_sets_type(rules):
    """A unary op never promotes in NumPy: it turns a lone Python scalar into int64/float64/
    complex128 before any promoter runs. typelattice gives it the rule set's weak type: the ops
    that keep their operand's type return result_type(x, rules=...) (torch's float32 for 2.5),
    valued as NumPy's op on x in that type; sqrt of a Python int follows the weak rule of
    resolve_dtypes((int, None)); an int that does not fit is an OverflowError."""
    U = tl.make_ufuncs(rules)
    for x in (3, -2.5, 1.5 - 2j):
        try:
            want = tl.result_type(x, rules=rules)
        except tl.TypePromotionError:
            with pytest.raises(tl.TypePromotionError, match=f"rule set {rules!r}"):
                U["negative"](x)
            continue
        for name in ("negative", "positive", "square"):
            for fast in (True, False):
                tl._ufuncs.set_fastcall(fast)
                try:
                    got = U[name](x)
                finally:
                    tl._ufuncs.set_fastcall(True)
                assert got.dtype == want, (name, x, got.dtype, want)
                assert got == getattr(np, name)(want.type(x)), (name, x, got)
                assert U[name](x, dtype=None).dtype == want     # (NumPy's default dtype=)
                # a signature of Nones fixes nothing either (it took NumPy's float64)
                assert U[name](x, signature=(None, None)).dtype == want
    assert U["sqrt"](3).dtype == U["sqrt"].resolve_dtypes((int, None))[1]
    if rules == "torch":                # dtype= takes x as given, not rounded to float32
        assert U["sqrt"](0.1, dtype=np.float64) == np.sqrt(0.1)
    big = np.iinfo(tl.result_type(1, rules=rules)).max + 1
    with pytest.raises(OverflowError, match=f"rule set {rules!r}"):
        U["negative"](big)


@pytest.mark.parametrize("rules", ["array_api", "max", "kernel_float"])
def test_lone_python_scalar_where_the_rule_set_has_none(rules):
    """Rule sets without Python scalar types raise for a unary op of one, as result_type does
    (NumPy's conversion took it as a float64)."""
    U = tl.make_ufuncs(rules)
    for x in (2, 2.0, 2j):
        with pytest.raises(tl.TypePromotionError) as exc:
            tl.result_type(x, rules=rules)
        with pytest.raises(tl.TypePromotionError, match=f"rule set {rules!r}"):
            U["sqrt"](x)
        assert U["sqrt"](np.float32(x.real)).dtype == np.float32


def test_errors_are_clear():
    with pytest.raises(TypeError, match="bool"):
        tl.negative(np.array([True]))
    with pytest.raises(TypeError, match="bool"):
        tl.sign(np.array([True]))
    with pytest.raises(ValueError, match="complex"):
        tl.signbit(np.array([1j]))
    with pytest.raises(ValueError, match="complex"):
        tl.spacing(np.array([1j], np.complex64))
    with pytest.raises(TypeError, match="complex"):
        tl.floor(np.array([1j]))
    with pytest.raises(TypeError, match="floating"):
        tl.invert(np.array([1.0], np.float16))
    with pytest.raises(TypeError):
        tl.sqrt(np.array(["a"]))
    with pytest.raises(TypeError):
        tl.sqrt(np.array([1], "M8[s]"))


def test_pickle_and_names():
    for name in ("sqrt", "frexp", "absolute", "invert"):
        uf = getattr(tl, name)
        assert pickle.loads(pickle.dumps(uf)) is uf
        assert uf.__name__ == f"jax.{name}"


# -- methods and keyword arguments --------------------------------------------------------------
def test_out_where_dtype_casting():
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    out = np.full((2, 3), -1.0, np.float32)
    r = tl.sqrt(x, out=out, where=x % 2 == 0)
    assert r is out
    want = np.where(x % 2 == 0, np.sqrt(x.astype(np.float32)), -1.0).astype(np.float32)
    np.testing.assert_array_equal(out, want)
    # out of a wider type: computed in float32, then cast
    o64 = np.empty((2, 3), np.float64)
    tl.sqrt(x, out=o64)
    np.testing.assert_array_equal(o64, np.sqrt(x.astype(np.float32)).astype(np.float64))
    # out of a narrower float: same_kind (the default) casts; an int output needs 'unsafe'
    o16 = np.empty((2, 3), np.float16)
    tl.sqrt(x, out=o16)
    np.testing.assert_array_equal(o16, np.sqrt(x.astype(np.float32)).astype(np.float16))
    with pytest.raises(TypeError):
        tl.sqrt(x, out=np.empty((2, 3), np.int16))
    with pytest.raises(TypeError):
        tl.sqrt(x, out=o16, casting="safe")
    oi = np.empty((2, 3), np.int16)
    tl.square(np.arange(6.0).reshape(2, 3), out=oi, casting="unsafe")
    np.testing.assert_array_equal(oi, np.arange(6).reshape(2, 3) ** 2)
    # dtype= computes in that dtype
    r = tl.sqrt(x, dtype=np.float64)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, np.sqrt(x.astype(np.float64)))
    assert tl.negative(x, dtype=np.int16).dtype == np.int16
    # two outputs
    m, e = np.empty(3, np.float32), np.empty(3, np.int32)
    r = tl.frexp(np.array([1, 2, 3], np.int8), out=(m, e))
    assert r[0] is m and r[1] is e
    wm, we = np.frexp(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(m, wm)
    np.testing.assert_array_equal(e, we)
    f, i = tl.modf(np.array([1.5, -2.25], np.float16))
    assert f.dtype == i.dtype == np.float16


def test_at_and_in_place():
    a = np.arange(6, dtype=np.int16)
    tl.negative.at(a, [0, 1, 1, 5])
    np.testing.assert_array_equal(a, [0, 1, 2, 3, 4, -5])
    b = np.linspace(0, 4, 5, dtype=np.float32)
    tl.sqrt.at(b, [4, 2])
    np.testing.assert_array_equal(b, np.array([0, 1, np.sqrt(np.float32(2)), 3, 2], np.float32))
    c = np.array([1.0, 4.0, 9.0], np.float16)
    tl.sqrt(c, out=c)
    np.testing.assert_array_equal(c, np.array([1, 2, 3], np.float16))
    with pytest.raises(ValueError):
        tl.sqrt.reduce(np.ones(3))


def test_strides_byte_order_unaligned():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200).astype(np.float64)
    for view in (x[::3], x[::-2], x.reshape(10, 20).T, x.astype(">f8"), x.astype(">f8")[::-1]):
        got = tl.absolute(view)
        np.testing.assert_array_equal(got, np.absolute(np.asarray(view, np.float64)))
        got = tl.exp(view)
        np.testing.assert_allclose(got, np.exp(np.asarray(view, np.float64)), rtol=4e-16)
    buf = np.zeros(8 * 50 + 1, np.uint8)
    un = np.frombuffer(buf.data, np.float64, 50, offset=1)
    un[...] = x[:50]
    assert not un.flags.aligned
    np.testing.assert_array_equal(tl.negative(un), -x[:50])
    np.testing.assert_array_equal(tl.isnan(un), np.zeros(50, bool))
    # strided output
    out = np.zeros(100, np.float32)
    tl.sqrt(np.arange(50, dtype=np.int8), out=out[::2])
    np.testing.assert_array_equal(out[::2], np.sqrt(np.arange(50, dtype=np.float32)))
    assert not out[1::2].any()
    # 0-d and NumPy scalars
    assert tl.square(np.int8(12)) == np.int8(-112)
    assert tl.square(np.array(True)).dtype == np.int32


def test_bfloat16_and_subclasses():
    x = np.array([1, 2, 4], ml_dtypes.bfloat16)
    assert tl.sqrt(x).dtype == ml_dtypes.bfloat16
    assert tl.frexp(x)[1].dtype == np.int32
    m = np.ma.masked_array([1.0, 4.0], mask=[False, True])
    r = tl.sqrt(m)
    assert isinstance(r, np.ma.MaskedArray) and r[0] == 1.0 and r.mask[1]


X32 = {"u64": "u32", "i64": "i32", "f64": "f32", "c128": "c64"}
X32_NAMES = {"uint64": "uint32", "int64": "int32", "float64": "float32",
             "complex128": "complex64"}


def test_jax32_unary_are_x64_canonicalized():
    """jax_ops_rules.md: 'x32: = x64 canonicalized' for every unary op (64-bit operands are
    their 32-bit siblings; 64-bit results map to 32-bit; rint(int8) is float32 there)."""
    u32 = tl.make_ufuncs("jax32")
    bad = []
    for name in UNARY:
        uf = u32[name]
        for k in KINDS:
            want = expected(name, X32.get(k, k))
            try:
                with np.errstate(all="ignore"):
                    got = uf(operand(k))
            except Exception as exc:  # noqa: BLE001
                if not (isinstance(want, type) and type(exc) is want):
                    bad.append(f"{name}({k}): want {want}, raised {exc!r}")
                continue
            got = got if isinstance(got, tuple) else (got,)
            names = tuple(np.asarray(g).dtype.name for g in got)
            if isinstance(want, type) or names != tuple(X32_NAMES.get(w, w) for w in want):
                bad.append(f"{name}({k}): want {want}, got {names}")
    assert not bad, "\n".join(bad)


# -- hypothesis: shapes, strides, where=, out= ---------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

H_OPS = ["sqrt", "exp", "negative", "absolute", "square", "floor", "rint", "invert", "isnan",
         "sign", "reciprocal", "logical_not", "frexp", "signbit"]
H_KINDS = ["b", "u8", "i16", "i64", "f16", "bf16", "f32", "f64", "c64"]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(H_OPS), k=st.sampled_from(H_KINDS),
       shape=st.lists(st.integers(0, 5), min_size=0, max_size=3),
       step=st.sampled_from([1, 2, -1, -3]), use_where=st.booleans(), use_out=st.booleans(),
       seed=st.integers(0, 2**16))
def test_hypothesis_shapes_strides_where_out(name, k, shape, step, use_where, use_out, seed):
    want_dt = expected(name, k)
    uf = getattr(tl, name)
    rng = np.random.default_rng(seed)
    d = dtype(LONG[k])
    full = list(shape)
    if full:
        full[-1] = full[-1] * abs(step)
    base = np.asarray(rng.standard_normal(full) * 10, np.float64)
    with np.errstate(all="ignore"):
        if d.kind == "c":
            base = base + 1j * (rng.standard_normal(full) * 10)
        x = base.astype(d)
    if full:
        x = x[..., ::step]
    if isinstance(want_dt, type):
        with pytest.raises(want_dt):
            uf(x)
        return
    cd = dtype(compute_dtype(name, k))
    where = rng.integers(0, 2, x.shape).astype(bool) if use_where else True
    kw = {}
    outs = None
    if use_out or use_where:
        outs = tuple(np.zeros(x.shape, dtype(w)) for w in want_dt)
        kw["out"] = outs if len(outs) > 1 else outs[0]
    with np.errstate(all="ignore"):
        got = uf(x, where=where, **kw)
        # NumPy's arrays, not its scalars: np.square(complex64 scalar) is computed with FMA
        # on the first call and without on later ones (a NumPy scalar path)
        ref = getattr(np, name)(np.atleast_1d(x.astype(cd)))
        ref = tuple(r.reshape(np.shape(x)) for r in ref) if isinstance(ref, tuple) \
            else ref.reshape(np.shape(x))
        if name == "absolute" and cd.kind == "c":
            ref = ref.astype(np.dtype(want_dt[0]))
    got = got if isinstance(got, tuple) else (got,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    for g, r, w in zip(got, ref, want_dt):
        assert g.dtype == dtype(w) and g.shape == x.shape
        r = np.asarray(r).astype(dtype(w))
        if outs is not None:
            r = np.where(where, r, np.zeros((), dtype(w)))
        if name in ("exp",) and g.dtype.kind in "fc":
            wide = np.complex128 if g.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(g.astype(wide), r,
                                       rtol=5e-7 if g.itemsize <= 8 else 1e-15)
        else:
            np.testing.assert_array_equal(g.view(np.uint16) if g.dtype == dtype("bfloat16")
                                          else g, r.view(np.uint16)
                                          if r.dtype == dtype("bfloat16") else r)



MASKED_CODE = """if True:
    import json, sys, numpy as np
    if sys.argv[1] == "ma-first":
        import numpy.ma
    import typelattice as tl
    import numpy.ma.core as core
    x = np.ma.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0], mask=[0, 0, 0, 0, 0, 0, 1, 0])
    y = np.ma.array([0.0, 1.0, 0.0, 2.0, -0.0, 0.0, 3.0, 0.5])
    for name in sorted(tl.UFUNC_NAMES):
        ref = getattr(np, name, None)
        if not isinstance(ref, np.ufunc) or core.ufunc_domain.get(ref) is None:
            continue
        uf = getattr(tl, name)
        with np.errstate(all="ignore"):
            got = uf(x, y) if uf.nin == 2 else uf(x)
            want = ref(x, y) if ref.nin == 2 else ref(x)
        print(json.dumps([name, type(got).__name__] + [
            [np.ma.getmaskarray(r).tolist(), r.filled(0).tolist()] for r in (got, want)]))
"""


@pytest.mark.parametrize("order", ["tl-first", "ma-first"])
def test_masked_arrays_mask_results_outside_the_domain_as_numpy(order):
    """A masked array's log(-1), x / 0... are masked by np.ma through tables keyed by the ufunc
    (numpy.ma.core.ufunc_domain): typelattice's ufuncs take their NumPy namesakes' entries, also
    when numpy.ma is imported after typelattice (helper's finding: tl.log(masked) left NaN and
    -inf unmasked). Reference: NumPy's own ufunc on the same float64 masked arrays."""
    out = subprocess.run([sys.executable, "-c", MASKED_CODE, order], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    rows = [json.loads(line) for line in out]
    names = {row[0] for row in rows}
    assert {"log", "sqrt", "divide", "arcsin", "floor_divide", "remainder"} <= names, names
    for name, cls, got, want in rows:
        # (the mask exactly; values within libmvec's few ulp, as for unmasked arrays)
        assert cls == "MaskedArray" and got[0] == want[0], (name, got, want)
        assert np.allclose(got[1], want[1], rtol=1e-15, atol=0), (name, got, want)
        if name in ("log", "sqrt", "divide", "arcsin"):
            assert any(got[0][:6]), name     # (masked besides the given mask)
