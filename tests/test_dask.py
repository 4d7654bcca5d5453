"""typelattice ufuncs on dask arrays: dtypes known before computing, equal to our ufunc's on the
computed NumPy arrays, and values bit-for-bit those of our ufunc on the NumPy arrays."""
import pickle
import warnings

import numpy as np
import pytest

import typelattice as tl

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
tld = pytest.importorskip("typelattice.dask")
ml_dtypes = pytest.importorskip("ml_dtypes")

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # x / 0 and friends, as in NumPy
        yield


def _data(dtype, n=7, seed=0):
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype == bool:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "ui":
        return rng.integers(0 if dtype.kind == "u" else -5, 9, n).astype(dtype)
    if dtype.kind == "c":
        return (rng.normal(size=n) * 4 + 1j * rng.normal(size=n)).astype(dtype)
    return (rng.normal(size=n) * 4).astype(dtype)


def _same(got, expected):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes(), (got, expected)


def _darr(x, chunks=3):
    return da.from_array(x, chunks=chunks)


def _expect(uf, *args, **kwargs):
    """Our ufunc on the NumPy arrays, or the exception class it raises."""
    try:
        return uf(*args, **kwargs)
    except (TypeError, ValueError, OverflowError) as e:
        return type(e)


_CANONICAL = [n for n in tl.UFUNC_NAMES if getattr(tl, n).__name__.split(".")[1] == n]
SINGLE = [n for n in _CANONICAL if getattr(tl, n).nout == 1 and getattr(tl, n).nin == 2]
UNARY = [n for n in _CANONICAL if getattr(tl, n).nin == 1]
PAIRS = [("int8", "int8"), ("uint8", "int8"), ("int64", "float16"), ("bool", "bool"),
         ("bfloat16", "float16"), ("int32", "complex64"), ("uint16", "float32")]
SCALARS = [("int8", 3), ("float16", 2.5), ("bool", 1), ("uint8", 1j)]


@pytest.mark.parametrize("name", SINGLE)
def test_single_output_calls_use_our_rules(name):
    """Direct calls on dask arrays go through dask's elemwise with our ufunc."""
    uf = getattr(tl, name)
    pending = []
    for i, (a, b) in enumerate(PAIRS + SCALARS):
        x = _data(a, seed=i)
        y = _data(b, seed=i + 50) if isinstance(b, str) else b
        expected = _expect(uf, x, y)
        dx = _darr(x)
        dy = _darr(y, chunks=4) if isinstance(b, str) else y
        if isinstance(expected, type):          # an error: dask refuses (no NumPy fallback)
            with pytest.raises((expected, TypeError)):
                uf(dx, dy).compute()
            with pytest.raises(expected):       # the wrapper raises our own error (up front
                getattr(tld, name)(dx, dy).compute()    # unless it depends on values)
            continue
        for res in (uf(dx, dy), getattr(tld, name)(dx, dy)):
            assert res.dtype == expected.dtype, (name, a, b)     # known without computing
            pending.append((res, expected))
    for (_, expected), got in zip(pending, dask.compute(*[r for r, _ in pending])):
        _same(got, expected)


@pytest.mark.parametrize("name", UNARY)
def test_unary_calls_use_our_rules(name):
    uf = getattr(tl, name)
    pending = []
    for i, dt in enumerate(["bool", "int8", "uint16", "int64", "float16", "bfloat16",
                            "float32", "complex64"]):
        x = _data(dt, seed=i)
        expected = _expect(uf, x)
        if isinstance(expected, type):
            with pytest.raises((expected, TypeError)):
                uf(_darr(x)).compute()
            continue
        for res in ([uf(_darr(x))] if uf.nout == 1 else []) + [getattr(tld, name)(_darr(x))]:
            if uf.nout == 1:
                res, exp = (res,), (expected,)
            else:
                exp = expected
            for r, e in zip(res, exp):
                assert r.dtype == e.dtype, (name, dt)
                pending.append((r, e))
    for (_, expected), got in zip(pending, dask.compute(*[r for r, _ in pending])):
        _same(got, expected)


def test_weak_scalars_and_promotion_examples():
    i8 = _darr(np.arange(-3, 4, dtype=np.int8))
    u8 = _darr(np.arange(7, dtype=np.uint8))
    assert tl.add(i8, 1).dtype == np.int8
    assert tl.add(i8, 1.0).dtype == np.float64          # weak float meets int: default float
    assert tl.add(i8, u8).dtype == np.int16
    assert tl.multiply(i8.astype(np.int64), np.float16(2)).dtype == np.float16
    assert tl.add(i8, np.int64(1)).dtype == np.int64     # NumPy scalars are strong
    assert tl.divide(i8, i8).dtype == np.float32
    assert tl.floor_divide(i8 > 0, i8 > 1).dtype == np.int32      # NumPy: int8
    with pytest.raises(OverflowError):
        tl.add(i8, 300)
    with pytest.raises(OverflowError):
        tld.add(i8, 300)
    with pytest.raises(ValueError, match="gcd"):
        tld.gcd(i8.astype(np.float32), 1)


def test_mixed_numpy_and_dask_operands_and_0d():
    x = np.arange(6, dtype=np.int8)
    dx = _darr(x)
    y = np.arange(6, dtype=np.uint8)
    for res, exp in [(tl.add(dx, y), tl.add(x, y)), (tl.add(y, dx), tl.add(y, x)),
                     (tl.add(dx, np.array(2, np.int16)), tl.add(x, np.array(2, np.int16))),
                     (tld.add(dx, da.asarray(np.array(2, np.int16))),
                      tl.add(x, np.array(2, np.int16)))]:
        assert res.dtype == exp.dtype
        _same(res.compute(), exp)


def test_keywords_dtype_where_out():
    x = np.array([127, 1, -128, 5, 6, 7], dtype=np.int8)
    dx = _darr(x)
    # dtype= computes in that dtype (dask's own elemwise would compute in int8 and cast)
    _same(tld.add(dx, 1, dtype=np.int16).compute(), tl.add(x, 1, dtype=np.int16))
    out = da.zeros(6, dtype=np.int8, chunks=3)
    mask = x > 2
    res = tld.add(dx, 1, where=_darr(mask), out=out)
    exp = tl.add(x, 1, where=mask, out=np.zeros(6, np.int8))
    _same(res.compute(), exp)
    _same(out.compute(), exp)
    # non-dask operands: the ufunc itself
    _same(tld.add(x, 1), tl.add(x, 1))


def test_divmod():
    x = np.arange(-5, 7, dtype=np.int8)
    y = np.arange(1, 13, dtype=np.uint8)
    q, r = tld.divmod(_darr(x), _darr(y, chunks=5))
    eq, er = tl.divmod(x, y)
    assert (q.dtype, r.dtype) == (np.int16, np.int16) == (eq.dtype, er.dtype)
    _same(q.compute(), eq)
    _same(r.compute(), er)
    for y in (3, -2.5, np.float16(3), np.array([2], np.int8)):
        q, r = tld.divmod(_darr(x), y)
        eq, er = tl.divmod(x, y)
        assert (q.dtype, r.dtype) == (eq.dtype, er.dtype), y
        _same(q.compute(), eq)
        _same(r.compute(), er)
    q, r = tld.divmod(7, _darr(x))                       # weak scalar first
    _same(q.compute(), tl.divmod(7, x)[0])
    b = np.array([True, False, True, True])
    q, r = tld.divmod(_darr(b, 2), _darr(b, 2))
    assert q.dtype == np.int32                           # JAX: bool|bool -> int32
    _same(r.compute(), tl.divmod(b, b)[1])
    # broadcasting with different chunks
    a2 = np.arange(12, dtype=np.float16).reshape(3, 4) - 5
    q, r = tld.divmod(_darr(a2, (2, 3)), _darr(np.arange(1, 5, dtype=np.int8), 2))
    _same(r.compute(), tl.divmod(a2, np.arange(1, 5, dtype=np.int8))[1])


def test_direct_multi_output_outer_and_reduce_refuse():
    """dask maps divmod and .outer to its own NumPy-rule functions by __name__: ours are named
    'jax.divmod', so it finds none and refuses instead of silently promoting as NumPy."""
    x = _darr(np.arange(4, dtype=np.int8))
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.divmod(x, x)
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.add.outer(x, x)
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.add.reduce(x)
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.add.accumulate(x)
    with pytest.raises(NotImplementedError):
        tld.add.reduceat(x, [0, 2])
    import dask.array.ufunc as dau
    assert not hasattr(dau, tl.divmod.__name__) and not hasattr(dau, tl.add.__name__)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum",
                                  "bitwise_or", "less", "divmod", "gcd", "hypot"])
def test_outer(name):
    uf = getattr(tl, name)
    a = np.arange(1, 6, dtype=np.int8)
    b = np.arange(1, 13, dtype=np.uint8).reshape(3, 4)
    if name == "hypot":
        a = a.astype(np.float16)
    exp = uf.outer(a, b)
    for res in (getattr(tld, name).outer(_darr(a, 2), _darr(b, (2, 3))),
                tld.outer(uf, _darr(a, 2), b)):
        if uf.nout == 1:
            res, exp_ = (res,), (exp,)
        else:
            exp_ = exp
        for r, e in zip(res, exp_):
            assert r.dtype == e.dtype and r.shape == e.shape
            _same(r.compute(), e)
    # a Python scalar stays weak, as in the ufunc's outer: int8 outer 1 is int8
    for got in (tld.add.outer(_darr(a), 1), tld.add.outer(1, _darr(a))):
        assert got.dtype == a.dtype
        _same(got.compute(), np.add.outer(a, np.ones((), a.dtype)))


@pytest.mark.parametrize("name,dtype", [("add", "int8"), ("add", "float16"), ("add", "bfloat16"),
                                        ("multiply", "uint8"), ("maximum", "float32"),
                                        ("minimum", "int16"), ("logical_or", "bool"),
                                        ("bitwise_xor", "uint16"), ("logaddexp", "float32"),
                                        ("add", "complex64"), ("fmax", "float16")])
def test_reduce_reorderable(name, dtype):
    uf = getattr(tl, name)
    x = _data(dtype, 24, seed=3).reshape(4, 6)
    dx = _darr(x, (2, 4))

    def check(got, exp):
        if name in ("add", "logaddexp") and np.dtype(dtype) not in (np.int8,):
            # chunked partial sums are added in another order than NumPy's pairwise sum
            assert np.asarray(got).dtype == np.asarray(exp).dtype
            np.testing.assert_allclose(np.asarray(got, np.complex128),
                                       np.asarray(exp, np.complex128), rtol=2e-2)
        else:
            _same(got, exp)
    for kw in ({}, {"axis": 1}, {"axis": None}, {"axis": (0, 1), "keepdims": True},
               {"axis": -1, "keepdims": True}):
        exp = uf.reduce(x, **kw)
        res = getattr(tld, name).reduce(dx, **kw)
        assert res.dtype == exp.dtype and res.shape == np.shape(exp), kw
        check(res.compute(), exp)
    if uf.identity is not None:
        check(tld.reduce(uf, dx, axis=0, initial=uf.identity).compute(),
              uf.reduce(x, axis=0, initial=uf.identity))
    assert tld.add.reduce(_darr(np.arange(6, dtype=np.int8))).dtype == np.int64   # as jnp.sum


@pytest.mark.parametrize("name", ["subtract", "divide", "power", "floor_divide", "arctan2"])
def test_reduce_not_reorderable(name):
    uf = getattr(tl, name)
    x = (np.arange(24, dtype=np.float32).reshape(4, 6) % 5) + 1
    dx = _darr(x, (3, 4))
    for kw in ({}, {"axis": 1}, {"axis": 1, "keepdims": True}):
        exp = uf.reduce(x, **kw)
        res = tld.reduce(uf, dx, **kw)
        assert res.dtype == exp.dtype and res.shape == exp.shape
        _same(res.compute(), exp)
    with pytest.raises(ValueError):        # as NumPy: several axes of a non-reorderable op
        tld.reduce(uf, dx, axis=(0, 1))


def test_other_rule_sets_and_pickling():
    u32 = tl.make_ufuncs("jax32")
    add32 = tld.wrap(u32["add"])
    x = np.arange(6, dtype=np.int64)
    res = add32(_darr(x), 1)
    assert res.dtype == np.int32
    _same(res.compute(), u32["add"](x, 1))
    assert pickle.loads(pickle.dumps(tld.divmod)).ufunc is tl.divmod
    with pytest.raises(TypeError, match="typelattice ufunc"):
        tld.wrap(np.add)


@pytest.mark.parametrize("name,dtype", [("add", "int8"), ("multiply", "uint8"),
                                        ("subtract", "int16"), ("maximum", "float16"),
                                        ("bitwise_and", "uint8"), ("logical_or", "bool"),
                                        ("logical_or", "int16"), ("logical_and", "float32"),
                                        ("divide", "int8"), ("add", "float32"),
                                        ("gcd", "int32")])
def test_accumulate(name, dtype):
    """Reorderable ops with an identity: a prefix scan over the chunks (dask's cumreduction);
    the others: one block per row of the axis (NumPy's order of operations)."""
    uf = getattr(tl, name)
    x = _data(dtype, 24, seed=5).reshape(4, 6)
    dx = _darr(x, (3, 2))
    for axis in (0, 1, -1):
        exp = uf.accumulate(x, axis=axis)
        res = getattr(tld, name).accumulate(dx, axis=axis)
        assert res.dtype == exp.dtype                       # add of int8: int64, as jnp.cumsum
        got = res.compute()
        if name == "add" and dtype == "float32":            # partial sums in another order
            np.testing.assert_allclose(got, exp, rtol=1e-5)
            assert got.dtype == exp.dtype
        else:
            _same(got, exp)
    _same(tld.add.accumulate(x), tl.add.accumulate(x))    # NumPy input: the ufunc itself


def test_reduce_over_chunks_keeps_dtype_and_applies_initial_once():
    """Partial results are reduced in the result dtype (add.reduce(int8, dtype=int16) over two
    chunks computed an int64 array under an int16 .dtype: the partial sums were summed in the
    default int) and initial= is applied once, not at every combining step (ones(64) in 8
    chunks with initial=100 gave 364). References: NumPy's reduce on the whole array."""
    x = np.arange(-8, 8, dtype=np.int8) * 9
    for dt in (np.int16, np.uint8, np.int8, bool, np.float32):
        for chunks in (4, 1):
            lazy = tld.add.reduce(da.from_array(x, chunks=chunks), axis=0, dtype=dt)
            got = np.asarray(lazy.compute())
            want = np.add.reduce(x, dtype=dt) if dt is not bool else np.any(x)
            assert lazy.dtype == got.dtype == np.asarray(want).dtype, (dt, chunks, got.dtype)
            assert got == want, (dt, chunks, got, want)
    ones = np.ones(64, np.int32)
    for chunks in (64, 8, 1):
        for split_every in (None, 2):
            got = tld.add.reduce(da.from_array(ones, chunks=chunks), axis=0, initial=100,
                                 split_every=split_every).compute()
            assert got == np.add.reduce(ones, initial=100) == 164
    got = tld.multiply.reduce(da.from_array(np.ones(16, np.int32), chunks=1), axis=0, initial=2)
    assert got.compute() == 2
    m = np.array([[3, 9, 1], [7, 2, 8]], np.uint8)
    got = tld.maximum.reduce(da.from_array(m, chunks=1), axis=None, initial=5).compute()
    assert got == np.maximum.reduce(m, axis=None, initial=5) == 9


def test_reduce_of_an_empty_axis():
    """An empty reduced axis: initial= (or the identity) is the result, as NumPy's, where the
    chunked reduction raised at compute ("no identity": its empty chunks have no partial result)
    or combined identities into nan+nanj (complex logaddexp); without an identity the error is
    raised when the graph is built, as README says."""
    e = np.zeros((3, 0), np.uint8)
    got = tld.minimum.reduce(da.from_array(e, chunks=(1, 0)), axis=1, initial=4).compute()
    assert got.tolist() == np.minimum.reduce(e, axis=1, initial=4).tolist() == [4, 4, 4]
    c = np.zeros((4, 0), np.complex64)
    got = tld.logaddexp.reduce(da.from_array(c, chunks=(1, 0)), axis=None).compute()
    want = tl.logaddexp.reduce(c, axis=None)
    assert got.dtype == want.dtype and got == want and np.isneginf(got.real)
    with pytest.raises(ValueError, match="no identity"):
        tld.maximum.reduce(da.from_array(e), axis=1)
    assert tld.maximum.reduce(da.from_array(e), axis=0).compute().shape == (0,)


def test_plain_calls_raise_typelattices_errors_when_the_graph_is_built():
    """dask's __array_ufunc__ swallows the ufunc's error while it infers the result dtype (NumPy
    then raised "operand type(s) all returned NotImplemented"): the call raises the error the
    same call gives on NumPy arrays of those dtypes, at once."""
    f8 = da.from_array(np.ones(3, ml_dtypes.float8_e4m3fn))
    h = da.from_array(np.ones(3, np.float16))
    with pytest.raises(tl.TypePromotionError) as e:
        tl.add(f8, h)
    with pytest.raises(tl.TypePromotionError) as want:
        tl.add(np.ones(3, ml_dtypes.float8_e4m3fn), np.ones(3, np.float16))
    assert str(e.value) == str(want.value)
    x = da.from_array(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="jax.gcd"):
        tl.gcd(x, x)
    with pytest.raises(OverflowError, match="300"):
        tl.add(da.from_array(np.ones(3, np.int8)), 300)
    assert tl.add(f8, 1.0).dtype == f8.dtype


def test_plain_calls_with_dtype_compute_in_it():
    """dask's __array_ufunc__ takes dtype= as a cast of its result, each block computed without
    it: tl.add(int8 dask, int8 dask, dtype=int16) wrapped 100 + 100 to -56, and anvil's
    equal(..., dtype=complex64) computed where typelattice raises. Such calls now run through
    typelattice.dask. Reference: NumPy's add with dtype=int16 on the computed arrays."""
    a = np.array([100, -100, 7], np.int8)
    A = da.from_array(a, chunks=2)
    got = tl.add(A, A, dtype=np.int16)
    assert isinstance(got, da.Array) and got.dtype == np.int16
    assert got.compute().tolist() == np.add(a, a, dtype=np.int16).tolist() == [200, -200, 14]
    got = tl.multiply(A, 3, signature=(None, None, np.int16))
    assert got.compute().tolist() == np.multiply(a, 3, dtype=np.int16).tolist()
    ones = da.from_array(np.ones(2, np.int64))
    with pytest.raises(tl.TypePromotionError, match="complex64 is not a type of rule set"):
        tl.make_ufuncs("anvil")["equal"](ones, ones, dtype="complex64")


def test_dtype_calls_with_a_dask_out_or_a_positional_out():
    """The dtype= route through typelattice.dask takes out= given positionally (it was taken
    for a third input and never written) and a dask out= beside NumPy inputs (dask computed
    without dtype= and cast: int8 + int8 into int16 wrapped). Reference: NumPy's add."""
    a = np.array([100, 120], np.int8)
    want = np.add(a, a, dtype=np.int16).tolist()
    O = da.zeros(2, dtype=np.int16, chunks=1)
    assert tl.add(da.from_array(a, chunks=1), a, O, dtype=np.int16) is O
    assert O.compute().tolist() == want
    O = da.zeros(2, dtype=np.int16, chunks=1)
    tl.add(a, a, out=O, dtype=np.int16)
    assert O.compute().tolist() == want


def test_multi_output_dtype_calls_into_dask_outs_refuse_without_recursion():
    """A multi-output call with dtype= whose only dask arrays are its outs went from the dtype=
    route back into the ufunc, and again (RecursionError, or a crashed process): it raises
    the NotImplementedError of multi-output ufuncs with out= on dask arrays."""
    a = np.array([100, 120], np.int8)
    outs = (da.zeros(2, dtype=np.int16), da.zeros(2, dtype=np.int16))
    for call in (lambda: tl.divmod(a, a, out=outs, dtype=np.int16),
                 lambda: tl.divmod(a, a, *outs, dtype=np.int16),
                 lambda: tl.modf(a.astype(np.float32), out=outs, dtype=np.float32)):
        with pytest.raises(NotImplementedError, match="multi-output"):
            call()


def _check_dask_result(got, want):
    """A dask result (or tuple of them) declares the dtype its blocks compute, and that is the
    dtype (and the values) of the same typelattice call on the NumPy arrays."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, da.Array)
        computed = g.compute()
        assert (g.dtype, computed.dtype) == (w.dtype, w.dtype)
        _same(computed, w)


_I8 = np.arange(-3, 3, dtype=np.int8)
_F16 = np.linspace(-2, 2, 6).astype(np.float16)


def _weak_int():
    return tl.weak(np.arange(1, 7))                         # i*, stored as int64


# (label, call on dask arrays, the same call on the NumPy arrays): the NumPy call's dtype is
# the join with the weak type (int8, float16), which a strong int64/float64 array would not give
WEAK_CASES = [
    ("add(dask int8, weak int)", lambda: tld.add(_darr(_I8), _weak_int()),
     lambda: tl.add(_I8, _weak_int())),
    ("add(weak int, dask int8)", lambda: tld.add(_weak_int(), _darr(_I8)),
     lambda: tl.add(_weak_int(), _I8)),
    ("add(dask int8, weak 0-d int)", lambda: tld.add(_darr(_I8), tl.weak(np.asarray(2))),
     lambda: tl.add(_I8, tl.weak(np.asarray(2)))),
    ("add(dask float16, weak float)", lambda: tld.add(_darr(_F16), tl.weak(np.ones(6) / 3)),
     lambda: tl.add(_F16, tl.weak(np.ones(6) / 3))),
    ("add(from_array(weak int), dask int8)",
     lambda: tld.add(_darr(_weak_int(), 2), _darr(_I8)), lambda: tl.add(_weak_int(), _I8)),
    ("multiply(from_array(weak float), dask float16)",
     lambda: tld.multiply(_darr(tl.weak(np.ones(6) / 3), 4), _darr(_F16)),
     lambda: tl.multiply(tl.weak(np.ones(6) / 3), _F16)),
    ("divmod(dask int8, weak int)", lambda: tld.divmod(_darr(_I8), _weak_int()),
     lambda: tl.divmod(_I8, _weak_int())),
    ("divmod(from_array(weak int), dask int8)",
     lambda: tld.divmod(_darr(_weak_int(), 4), _darr(_I8 + 4)),
     lambda: tl.divmod(_weak_int(), _I8 + 4)),
    ("add.outer(dask int8, weak int)", lambda: tld.add.outer(_darr(_I8), _weak_int()),
     lambda: tl.add.outer(_I8, _weak_int())),
    ("outer(add, from_array(weak float), dask float16)",
     lambda: tld.outer(tl.add, _darr(tl.weak(np.ones(6) / 3), 4), _darr(_F16)),
     lambda: tl.add.outer(tl.weak(np.ones(6) / 3), _F16)),
    ("maximum(dask uint8, weak int) under jax32",
     lambda: tld.wrap(tl.make_ufuncs("jax32")["maximum"])(
         _darr(np.arange(6, dtype=np.uint8)), tl.weak(np.arange(6), rules="jax32")),
     lambda: tl.make_ufuncs("jax32")["maximum"](np.arange(6, dtype=np.uint8),
                                                tl.weak(np.arange(6), rules="jax32"))),
]


@pytest.mark.parametrize("label, call, reference", WEAK_CASES, ids=[c[0] for c in WEAK_CASES])
def test_weak_operands_declare_the_dtype_their_blocks_compute(label, call, reference):
    """A weak array (typelattice.weak) beside a dask array, or a dask array made from one (its
    meta and blocks are weak arrays), defers to the other operand's type as on NumPy arrays:
    the dtype was probed with a strong array of the weak array's dtype (int8 dask + weak int
    array declared int64, and its blocks computed int8). Reference: the call on the NumPy
    arrays, whose dtype is also that of a Python scalar in the weak array's place."""
    want = reference()
    first = want[0] if isinstance(want, tuple) else want
    assert first.dtype in (np.int8, np.float16, np.uint8)
    _check_dask_result(call(), want)


def test_weak_operand_dtype_equals_the_python_scalars():
    """The weak array's dtype on dask is the one a Python scalar of its kind gives (the
    independent reference: dask's own handling of a Python scalar)."""
    for x, w, s in [(_I8, _weak_int(), 3), (_F16, tl.weak(np.ones(6) / 3), 0.5)]:
        assert tld.add(_darr(x), w).dtype == tl.add(_darr(x), s).dtype == x.dtype
        assert tld.add(_darr(w, 2), _darr(x)).dtype == x.dtype


def test_dtype_calls_with_a_weak_operand_compute():
    """A call with dtype=/signature= on a dask array runs through typelattice.dask, whose probe
    took the weak int array as a strong int64 one: tl.add(dask uint8, weak int, dtype=uint8)
    raised "Cannot cast ... input 1 from int64 to uint8", where the NumPy call computes."""
    u = np.arange(6, dtype=np.uint8)
    _check_dask_result(tl.add(_darr(u), _weak_int(), dtype=np.uint8),
                       tl.add(u, _weak_int(), dtype=np.uint8))
    _check_dask_result(tld.multiply(_darr(u), _weak_int(), signature=(None, None, np.uint8)),
                       tl.multiply(u, _weak_int(), signature=(None, None, np.uint8)))
    assert tl.add(u, 3, dtype=np.uint8).dtype == np.uint8        # as with a Python int


def test_plain_calls_with_a_weak_operand_declare_the_computed_dtype():
    """dask's own elemwise would infer the weak array's dtype as a strong array's (int64): the
    ufunc routes a plain call with a weak operand through typelattice.dask."""
    for y in (tl.add(_darr(_I8), _weak_int()), tl.add(_weak_int(), _darr(_I8)),
              tl.add(da.from_array(_weak_int()), _darr(_I8))):
        assert y.dtype == y.compute().dtype == tl.add(_I8, _weak_int()).dtype == np.int8
        _same(y.compute(), np.add(_I8, _weak_int().astype(np.int8)))


def test_multi_output_calls_with_a_0d_weak_array():
    """divmod of a dask array and a 0-d weak array declares and computes the NumPy-block dtype
    (da.asarray made the weak array a strong int64 chunk: declared int8, computed int64)."""
    w0 = tl.weak(np.asarray(3))
    x = _darr(np.arange(1, 7, dtype=np.int8))
    for q, r in (tld.divmod(x, w0), tl.divmod(x, w0), tld.divmod(w0, x)):
        assert q.dtype == r.dtype == q.compute().dtype == r.compute().dtype == np.int8
    q, r = tl.divmod(x, w0)
    _same(q.compute(), np.floor_divide(np.arange(1, 7, dtype=np.int8), np.int8(3)))
    _same(r.compute(), np.remainder(np.arange(1, 7, dtype=np.int8), np.int8(3)))
