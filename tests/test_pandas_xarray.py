"""pandas and xarray objects through __array_ufunc__: the result keeps its index / coordinates
and has typelattice's dtype, with the values of our ufunc on the underlying arrays.

pandas routes ufuncs *by name* in two places: binary ufuncs named like an operator ("add",
"floor_divide", ...) go to the dunder method (Series.__add__, NumPy's rules), and reductions
named "add"/"multiply"/"maximum"/"minimum" go to Series.sum/prod/max/min. Our ufuncs are named
"jax.add" etc., so neither applies: tests below use operand pairs where NumPy's rules differ
(int64 + float16, bool // bool, add.reduce of int8)."""
import warnings

import numpy as np
import pytest

import typelattice as tl


def _same(got, expected):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes(), (got, expected)


# -- pandas -----------------------------------------------------------------------------------

@pytest.fixture
def pd():
    return pytest.importorskip("pandas")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_series_keep_index_and_get_our_dtypes(pd):
    idx = pd.Index(list("abcd"), name="k")
    i8 = np.array([-3, 0, 5, 127], np.int8)
    u8 = np.array([1, 2, 3, 250], np.uint8)
    s8 = pd.Series(i8, index=idx, name="v")
    su8 = pd.Series(u8, index=idx, name="v")
    cases = [
        (tl.add(s8, 1), tl.add(i8, 1), np.int8),              # weak Python int
        (tl.add(s8, su8), tl.add(i8, u8), np.int16),
        (tl.add(s8.astype(np.int64), np.float16(1.5)), tl.add(i8.astype(np.int64),
                                                                np.float16(1.5)), np.float16),
        (tl.multiply(s8.astype(np.int64), su8.astype(np.float16)),
         tl.multiply(i8.astype(np.int64), u8.astype(np.float16)), np.float16),   # NumPy: f64
        (tl.divide(s8, su8), tl.divide(i8, u8), np.float32),                      # NumPy: f64
        (tl.floor_divide(s8 > 0, su8 > 1), tl.floor_divide(i8 > 0, u8 > 1), np.int32),
        (tl.less(s8, su8), tl.less(i8, u8), np.bool_),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for res, exp, dt in cases:
            assert isinstance(res, pd.Series)
            assert res.dtype == dt == exp.dtype
            assert res.index.equals(idx) and res.index.name == "k" and res.name == "v"
            _same(res.to_numpy(), exp)
    # the by-name routes of pandas find nothing named "jax.add" etc.
    from pandas.core.arraylike import REDUCTION_ALIASES
    assert tl.add.__name__ not in REDUCTION_ALIASES
    assert tl.add.reduce(s8) == tl.add.reduce(i8)
    assert tl.add.reduce(s8).dtype == np.int64            # as jnp.sum; Series.sum agrees here
    assert tl.maximum.reduce(s8).dtype == np.int8


def test_series_alignment_divmod_index_and_outer(pd):
    s8 = pd.Series(np.array([1, 2, 3], np.int8), index=list("abc"))
    su8 = pd.Series(np.array([10, 20, 30], np.uint8), index=list("cab"))
    res = tl.add(s8, su8)                                  # aligned on the index first
    assert res.dtype == np.int16 and list(res.index) == list("abc")
    assert list(res) == [21, 32, 13]
    q, r = tl.divmod(s8, np.int16(2))
    assert q.dtype == r.dtype == np.int16 and list(q.index) == list("abc")
    _same(r.to_numpy(), tl.divmod(s8.to_numpy(), np.int16(2))[1])
    # alignment that introduces missing values makes pandas cast to float64 *before* our
    # ufunc runs (its own rule, documented)
    other = pd.Series(np.array([1, 1], np.uint8), index=list("bz"))
    assert tl.add(s8, other).dtype == np.float64
    ix = tl.add(pd.Index(np.arange(3, dtype=np.int8)), 1)
    assert isinstance(ix, pd.Index) and ix.dtype == np.int8
    with pytest.raises(NotImplementedError):               # as for NumPy's own ufuncs
        tl.add.outer(s8, s8)


def test_masked_extension_dtypes(pd):
    s = pd.Series([1, 2, None], dtype="Int8")
    res = tl.add(s, 1)
    assert str(res.dtype) == "Int8" and res.isna().tolist() == [False, False, True]
    assert list(res[:2]) == [2, 3]
    assert str(tl.add(s, pd.Series([1, 2, 3], dtype="UInt8")).dtype) == "Int16"
    assert str(tl.less(s, 2).dtype) == "boolean"
    # pandas has no masked float16: our float16 result is stored as Float32 (documented)
    assert str(tl.add(s, np.float16(1)).dtype) == "Float32"


def test_dataframe(pd):
    idx = pd.Index([10, 20, 30])
    a = np.array([1, -2, 3], np.int8)
    b = np.array([4, 5, 250], np.uint8)
    df8 = pd.DataFrame({"a": a, "b": a}, index=idx)
    dfu = pd.DataFrame({"a": b, "b": b}, index=idx)
    res = tl.add(df8, dfu)
    assert list(res.dtypes) == [np.int16, np.int16] and res.index.equals(idx)
    _same(res["a"].to_numpy(), tl.add(a, b))
    res = tl.add(df8, np.int8(1))
    assert list(res.dtypes) == [np.int8, np.int8] and res.index.equals(idx)
    _same(res.to_numpy(), tl.add(np.stack([a, a], 1), np.int8(1)))
    q, r = tl.divmod(df8, np.int8(2))
    assert list(q.dtypes) == [np.int8, np.int8] and list(r.columns) == ["a", "b"]
    _same(r.to_numpy(), tl.divmod(np.stack([a, a], 1), np.int8(2))[1])


def test_dataframe_python_scalars_are_made_strong_by_pandas(pd):
    """With more than one input, pandas converts every input of a DataFrame call with
    np.asarray: a Python int becomes a strong int64 0-d array before our ufunc sees it, so
    int8 DataFrame + 1 is int64 (a Series keeps 1 weak: int8). Documented; the workaround is
    per column, or a NumPy scalar of the wanted type."""
    df = pd.DataFrame({"a": np.arange(3, dtype=np.int8), "b": np.arange(3, dtype=np.int8)})
    assert list(tl.add(df, 1).dtypes) == [np.int64, np.int64]
    assert list(df.apply(lambda col: tl.add(col, 1)).dtypes) == [np.int8, np.int8]
    assert list(tl.add(df, np.int8(1)).dtypes) == [np.int8, np.int8]


def test_dataframe_mixed_columns_are_interleaved_by_pandas(pd):
    """A DataFrame with columns of several dtypes in a call with more than one input goes
    through np.asarray(df) in pandas: one common dtype (pandas', by NumPy's rules) for all
    columns before our ufunc runs. Documented; per column, apply the ufunc to each Series."""
    df = pd.DataFrame({"a": np.arange(3, dtype=np.int8), "c": np.ones(3, np.float16)})
    common = np.asarray(df).dtype
    whole = tl.add(df, np.int8(1))
    assert set(whole.dtypes) == {tl.add(np.ones(1, common), np.int8(1)).dtype}
    per_column = df.apply(lambda col: tl.add(col, 1))
    assert list(per_column.dtypes) == [np.int8, np.float16]
    per_column = pd.DataFrame({k: tl.add(col, 1) for k, col in df.items()})
    assert list(per_column.dtypes) == [np.int8, np.float16]


# -- xarray -----------------------------------------------------------------------------------

@pytest.fixture
def xr():
    return pytest.importorskip("xarray")


def _da(xr, values):
    return xr.DataArray(values, dims=("x", "y"), coords={"x": [10, 20], "y": list("abc")},
                        name="v", attrs={"units": "m"})


def test_dataarray_keeps_coords_and_gets_our_dtypes(xr):
    i8 = np.arange(-3, 3, dtype=np.int8).reshape(2, 3)
    u8 = np.array([1, 2, 250], np.uint8)
    d8 = _da(xr, i8)
    du8 = xr.DataArray(u8, dims="y", coords={"y": list("abc")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cases = [
            (tl.add(d8, 1), tl.add(i8, 1), np.int8),
            (tl.add(d8, du8), tl.add(i8, u8), np.int16),              # broadcast by dims
            (tl.add(d8.astype(np.int64), np.float16(1)), tl.add(i8.astype(np.int64),
                                                                 np.float16(1)), np.float16),
            (tl.divide(d8, du8), tl.divide(i8, u8), np.float32),
            (tl.floor_divide(d8 > 0, d8 > 1), tl.floor_divide(i8 > 0, i8 > 1), np.int32),
        ]
    for res, exp, dt in cases:
        assert isinstance(res, xr.DataArray) and res.dtype == dt == exp.dtype
        assert res.dims == ("x", "y") and list(res.x.values) == [10, 20]
        assert list(res.y.values) == list("abc")
        _same(res.values, exp)
    q, r = tl.divmod(d8, np.int16(4))
    assert q.dtype == r.dtype == np.int16 and list(r.x.values) == [10, 20]
    _same(r.values, tl.divmod(i8, np.int16(4))[1])
    ds = xr.Dataset({"a": d8, "b": d8.astype(np.float16)})
    res = tl.add(ds, 1)
    assert res["a"].dtype == np.int8 and res["b"].dtype == np.float16
    with pytest.raises(NotImplementedError):       # xarray supports only __call__
        tl.add.reduce(d8)


def test_dask_backed_dataarray(xr):
    pytest.importorskip("dask.array")
    tld = pytest.importorskip("typelattice.dask")
    i8 = np.arange(-3, 3, dtype=np.int8).reshape(2, 3)
    d = _da(xr, i8).chunk({"x": 1})
    res = tl.add(d, np.uint8(1))
    assert res.dtype == np.int16 and res.chunks is not None      # lazy, dtype known
    _same(res.compute().values, tl.add(i8, np.uint8(1)))
    with pytest.raises(TypeError):         # dask refuses our divmod (it maps it by name) ...
        tl.divmod(d, 4)
    q, r = xr.apply_ufunc(tld.divmod, d, 4, dask="allowed", output_core_dims=[[], []])
    assert r.chunks is not None                                  # ... typelattice.dask does it
    _same(r.compute().values, tl.divmod(i8, 4)[1])
    s = xr.apply_ufunc(tld.add.reduce, d, input_core_dims=[["y"]], kwargs={"axis": -1},
                       dask="allowed")
    _same(s.compute().values, tl.add.reduce(i8, axis=-1))
