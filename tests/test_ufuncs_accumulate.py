"""accumulate of every binary op over every dtype (the element loops' chain, out[i] = f(out[i-1],
x[i]), with the running value in a register: kernels/tl_loops_host.h, TL_LOOP2_BODY): the left
fold of the same ufunc's element results, value for value and warning for warning, contiguous,
strided, in place (out= the input) and along either axis; and NumPy's own accumulate for the
common ops (np.cumsum's add, cumprod's multiply, running max/min; complex multiply: the fold
of NumPy's own multiply, which its accumulate is not)."""
import numpy as np
import pytest

import typelattice as tl
from conftest import run_with_warnings
from ufunc_reference import dtype

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
BINARY = [n for n in tl.UFUNC_NAMES if getattr(tl, n).nin == 2 and getattr(tl, n).nout == 1]


def _values(d, n, rng):
    if d.kind == "b":
        return rng.integers(0, 2, n).astype(d)
    if d.kind in "iu":
        v = rng.integers(-3 if d.kind == "i" else 0, 4, n).astype(d)
        v[v == 0] = 1                                   # (division by zero: its own tests)
        return v
    v = (rng.random(n) * 1.5 + 0.5).astype(d) if d.kind != "c" else \
        (rng.random(n) + 0.5 + 1j * (rng.random(n) - 0.5)).astype(d)
    if n > 4:
        v[n // 2] = np.nan                              # a NaN mid-way: max/min keep or skip it
        v[1] = -v[1]
    return v


def _bits(x):
    x = np.ascontiguousarray(x)
    return x.view(np.uint8).tobytes() if x.dtype.kind != "b" else x.tobytes()


def _cases():
    for name in BINARY:
        uf = getattr(tl, name)
        for t in DTYPES:
            d = dtype(t)
            x = _values(d, 3, np.random.default_rng(0))
            try:
                with np.errstate(all="ignore"):
                    r = uf(x, x)
            except (TypeError, ValueError):
                continue                                # no same-dtype loop (tl raises)
            if r.dtype == d:                            # accumulate needs the result in x's type
                yield name, t


# float power/float_power/arctan2: libmvec's vector loops in the element calls, the scalar libm
# function in accumulate's chain (as before session 49): within 2 ulp of each other
VECTOR_MATH = ("power", "float_power", "arctan2")


@pytest.mark.parametrize("name,t", list(_cases()))
def test_accumulate_is_the_fold_of_the_element_results(name, t):
    uf, d = getattr(tl, name), dtype(t)
    rng = np.random.default_rng(len(name) + len(t))
    for n in (2, 9, 70):
        x = _values(d, n, rng)
        if name in VECTOR_MATH and d.kind in "iu":
            x = np.abs(x)                               # (no negative integer powers)
        r = uf.accumulate(x[:2]).dtype                  # (add/multiply of small ints: int64)
        xr = x.astype(r)

        def fold(x=xr):
            out = np.empty_like(x)
            out[0] = x[0]
            for i in range(1, len(x)):
                out[i:i + 1] = uf(out[i - 1:i], x[i:i + 1])
            return out

        want, ww = run_with_warnings(fold)
        got, gw = run_with_warnings(lambda: uf.accumulate(x))
        assert got.dtype == r
        if name in VECTOR_MATH and d.kind == "f":
            # each step within 2 ulp of the element op on the chain's own previous value (a
            # fold of the element results drifts: 18-207 ulp after 70 steps)
            with np.errstate(all="ignore"):
                step = uf(got[:-1], xr[1:])
            assert got[0] == xr[0]
            np.testing.assert_array_max_ulp(got[1:], step, 2)
            continue
        assert _bits(got) == _bits(want), (name, t, n, got, want)
        assert gw == ww, (name, t, n, gw, ww)
        s = np.repeat(x, 2)[::2]
        got_s, _ = run_with_warnings(lambda: uf.accumulate(s))
        assert _bits(got_s) == _bits(want), (name, t, n)
        if r == d:
            y = x.copy()
            run_with_warnings(lambda: uf.accumulate(y, out=y))
            assert _bits(y) == _bits(want), (name, t, n)
        m = np.stack([x, x[::-1]])
        got_m, _ = run_with_warnings(lambda: uf.accumulate(m, axis=1))
        assert _bits(got_m[0]) == _bits(want), (name, t, n)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "fmax", "subtract"])
@pytest.mark.parametrize("t", ["int8", "uint16", "int32", "int64", "uint64", "float32", "float64",
                               "complex64", "complex128"])
def test_accumulate_is_numpys(name, t):
    """np.cumsum's add, cumprod's multiply, the running max/min: NumPy's bits over 10^4 elements
    (NaNs included), contiguous, strided and along axis 0."""
    uf, ref, d = getattr(tl, name), getattr(np, name), dtype(t)
    x = _values(d, 10_000, np.random.default_rng(3))
    if d.kind == "f":
        x[::997] = np.nan
    with np.errstate(all="ignore"):
        for v in (x, x[::3], x.reshape(100, 100)):
            if name == "multiply" and d.kind == "c":
                # NumPy's complex accumulate is not the fold of its own multiply (another loop);
                # ours is, element for element
                want = np.empty_like(v)
                want[:1] = v[:1]
                for i in range(1, len(v)):
                    want[i:i + 1] = ref(want[i - 1:i], v[i:i + 1])
            else:
                want = ref.accumulate(v)
            assert _bits(uf.accumulate(v)) == _bits(want), (name, t, v.shape)
