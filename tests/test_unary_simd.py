"""The SIMD block kernels of unary float32/float64 ops (floor/ceil/trunc with round
instructions, sign on the bits) give NumPy's bits on every path: AVX-512, AVX2 and portable."""
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs


def special(dtype):
    f = np.finfo(dtype)
    u = np.uint32 if dtype == np.float32 else np.uint64
    nan_payload = np.array([0x7fc00001, 0xffc12345, 0x7f800001] if dtype == np.float32 else
                           [0x7ff8000000000001, 0xfff8000000012345, 0x7ff0000000000001],
                           dtype=u).view(dtype)
    vals = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 1.0, -1.0,
            f.tiny, -f.tiny, f.smallest_subnormal, -f.smallest_subnormal, f.max, -f.max,
            np.inf, -np.inf, 2.0 ** (f.nmant) + 0.5, -(2.0 ** f.nmant) - 0.5,
            2.0 ** (f.nmant + 1), 123456.75, -7.25]
    rng = np.random.default_rng(7)
    rand = (rng.standard_normal(300) * 10.0 ** rng.integers(-8, 12, 300)).astype(dtype)
    return np.concatenate([np.array(vals, dtype), nan_payload, rand])


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "sign", "rint", "sqrt", "negative",
                                  "absolute"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_block_kernels_bits(simd_path, name, dtype):
    x = special(dtype)
    ref = getattr(np, name)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    with np.errstate(invalid="ignore"):
        # every tail length of the vector loops, and strided views (element loop)
        for n in list(range(0, 35)) + [len(x)]:
            got, want = getattr(tl, name)(x[:n]), ref(x[:n])
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(bits), want.view(bits), err_msg=f"{name} n={n}")
        for view in (x[::3], x[::-1]):
            np.testing.assert_array_equal(getattr(tl, name)(view).view(bits),
                                          ref(view).view(bits))
        out = np.full(len(x), 9, dtype)
        getattr(tl, name)(x, out=out)
        np.testing.assert_array_equal(out.view(bits), ref(x).view(bits))


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc"])
def test_rounding_raises_no_inexact_or_spurious_warning(simd_path, name):
    x = np.array([0.5, -1.5, 1e30, np.inf, -np.inf, np.nan], np.float32)
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(getattr(tl, name)(x), getattr(np, name)(x))


def test_set_simd_rejects_unknown_path():
    with pytest.raises(ValueError, match="avx2"):
        _ufuncs.set_simd("sse9")


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_classification_block_kernels(simd_path, name, dtype):
    """isnan/isinf/isfinite/signbit block kernels (tl_vclass_*): NaN payloads, a signalling NaN,
    inf, -0.0, subnormals; every tail length after the 32- and 8-element steps (AVX2) and up to
    two AVX-512 blocks, strided input and output, a 0-d input; no FP warning, even for the
    signalling NaN."""
    x = special(dtype)
    ref = getattr(np, name)
    with np.errstate(all="raise"):
        for start in (0, 1):
            for n in range(0, 72):
                v = x[start:start + n]
                got, want = getattr(tl, name)(v), ref(v)
                assert got.dtype == want.dtype == bool
                np.testing.assert_array_equal(got, want, err_msg=f"{name} n={n}")
        np.testing.assert_array_equal(getattr(tl, name)(x), ref(x))
        for view in (x[::3], x[::-1]):
            np.testing.assert_array_equal(getattr(tl, name)(view), ref(view))
        out = np.ones(2 * len(x), bool)
        getattr(tl, name)(x, out=out[::2])
        np.testing.assert_array_equal(out[::2], ref(x))
        assert out[1::2].all()
        for v in x[:30]:
            assert getattr(tl, name)(v) == ref(v)
