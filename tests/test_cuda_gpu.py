"""(c) Kernel-launching tests: typelattice.cuda on a real device against the CPU ufuncs.

Marked ``gpu``; skipped (with the reason) unless CuPy is installed and ``cupy.is_available()``.
Values are compared bit for bit, except that a NaN equals any NaN (the GPU's NaN is canonical).
"""
import itertools
import warnings

import numpy as np
import pytest

import typelattice
from typelattice._cuda_codegen import TYPES
from typelattice._ops import OPS

cupy = pytest.importorskip("cupy", reason="CuPy not installed (pip install '.[cuda]')")
if not cupy.is_available():
    pytest.skip("no CUDA device: cupy.is_available() is False", allow_module_level=True)
if not isinstance(getattr(typelattice, "add", None), np.ufunc):
    pytest.skip("typelattice's CPU ufuncs are not built in this tree", allow_module_level=True)

import typelattice.cuda as tc  # noqa: E402

pytestmark = pytest.mark.gpu
BINARY = [op.name for op in OPS if op.nin == 2]
FLOATISH = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def dt(t):
    return tc.cg_dtype(t)


def values(t, n=257, seed=0):
    rng = np.random.default_rng(seed)
    d = dt(t)
    if t == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if d.kind in "iu":
        info = np.iinfo(d)
        v = rng.integers(info.min, info.max, n, dtype=d, endpoint=True)
        v[:6] = [info.min, info.max, 0, 1, 2, info.max - 1] if info.min == 0 else \
            [info.min, info.max, 0, 1, -1, 2]
        return v
    base = np.concatenate([[0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, 1e-40, 3.0],
                           rng.standard_normal(n - 10) * 10])
    if d.kind == "c":
        return (base + 1j * np.roll(base, 3)).astype(d)
    with np.errstate(over="ignore"):
        return base.astype(np.float32 if t == "bfloat16" else d).astype(d)


def cpu(op, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(typelattice, op)(*args)


def assert_same(got, want, what):
    got = got.get() if isinstance(got, cupy.ndarray) else got
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != CPU {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if g.dtype.kind == "c":
        g = g.view(np.float32 if g.dtype.itemsize == 8 else np.float64)
        w = w.view(g.dtype)
    ub = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[g.dtype.itemsize]
    same = g.view(ub) == w.view(ub)
    if g.dtype.kind == "f" or g.dtype.name in ("float16", "bfloat16"):
        same |= np.isnan(g.astype(np.float64)) & np.isnan(w.astype(np.float64))
    bad = np.flatnonzero(~same.ravel())
    assert not bad.size, (f"{what}: {bad.size} values differ, e.g. index {bad[0]}: "
                          f"{g.ravel()[bad[0]]!r} vs CPU {w.ravel()[bad[0]]!r}")


def _pos_if_int_power(op, loop, b):
    if op == "power" and loop[0] not in FLOATISH:
        return np.abs(b.astype(np.int64)).astype(b.dtype) if b.dtype.kind == "i" else b
    return b


@pytest.mark.parametrize("op", BINARY)
def test_every_op_every_dtype(op):
    for t in TYPES:
        try:
            loop = tc.resolve(op, dt(t), dt(t))
        except (TypeError, ValueError, LookupError):
            continue
        a, b = values(t), values(t, seed=1)
        b = _pos_if_int_power(op, loop, b)
        want = cpu(op, a, b)
        got = getattr(tc, op)(cupy.asarray(a), cupy.asarray(b))
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            assert_same(g, w, f"{op}({t}, {t})")


@pytest.mark.parametrize("op", ["add", "multiply", "less", "divmod", "maximum", "ldexp",
                                "arctan2", "bitwise_or"])
def test_mixed_dtype_pairs(op):
    for a_t, b_t in itertools.product(TYPES, TYPES):
        try:
            loop = tc.resolve(op, dt(a_t), dt(b_t))
        except (TypeError, ValueError, LookupError):
            continue
        a, b = values(a_t), _pos_if_int_power(op, None, values(b_t, seed=2))
        want = cpu(op, a, b)
        got = getattr(tc, op)(cupy.asarray(a), cupy.asarray(b))
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            assert_same(g, w, f"{op}({a_t}, {b_t}) loop {loop}")


@pytest.mark.parametrize("t", TYPES)
def test_weak_python_scalars(t):
    a = values(t)
    for v in (0, 1, -1, 3, 127, 300, 0.5, -2.5, 1e5, float("inf"), 1j):
        for args in ((a, v), (v, a)):
            try:
                want = cpu("subtract", *args)
            except Exception as exc:  # noqa: BLE001
                with pytest.raises(type(exc)):
                    tc.subtract(*(cupy.asarray(x) if x is a else x for x in args))
                continue
            got = tc.subtract(*(cupy.asarray(x) if x is a else x for x in args))
            assert_same(got, want, f"subtract{tuple(type(x).__name__ if x is v else t for x in args)}")


def test_broadcasting_strides_and_nd():
    a = values("float32", 24).reshape(2, 3, 4)
    b = values("int8", 4)
    c = values("float16", 3).reshape(3, 1)
    ca, cb, cc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
    assert_same(tc.add(ca, cb), cpu("add", a, b), "(2,3,4)+(4,)")
    assert_same(tc.add(ca, cc), cpu("add", a, c), "(2,3,4)+(3,1)")
    assert_same(tc.add(ca.transpose(2, 0, 1), cb[:, None, None]),
                cpu("add", a.transpose(2, 0, 1), b[:, None, None]), "transposed N-d")
    assert_same(tc.multiply(ca[:, ::-1, ::2], 3), cpu("multiply", a[:, ::-1, ::2], 3),
                "negative and step strides")
    z = cupy.asarray(np.float32(2.5))
    assert_same(tc.add(z, cb), cpu("add", np.asarray(np.float32(2.5)), b), "0-d array")
    assert tc.add(cupy.zeros((0, 3), np.int8), 1).shape == (0, 3)
    assert_same(tc.add(np.float16(1.5), cb), cpu("add", np.float16(1.5), b), "NumPy scalar")


def test_out_argument():
    a, b = values("int16"), values("int16", seed=3)
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    o = cupy.empty(a.shape, np.int16)
    r = tc.add(ca, cb, out=o)
    assert r is o
    assert_same(o, cpu("add", a, b), "out=")
    o32 = cupy.empty(a.shape, np.int32)
    tc.add(ca, cb, out=o32)                     # same_kind cast of the result
    assert_same(o32, cpu("add", a, b).astype(np.int32), "out= of a wider dtype")
    x = ca.copy()
    tc.add(x, cb, out=x)                        # in place
    assert_same(x, cpu("add", a, b), "in place")
    y = ca.copy()
    tc.add(y[::-1], cb, out=y)                  # overlapping, reversed: input copied first
    assert_same(y, cpu("add", a[::-1], b), "overlapping out")
    with pytest.raises(TypeError):
        tc.add(ca, cb, out=cupy.empty(a.shape, np.int8))
    q, r = cupy.empty(a.shape, np.int16), cupy.empty(a.shape, np.int16)
    res = tc.divmod(ca, cb, out=(q, r))
    wq, wr = cpu("divmod", a, b)
    assert res[0] is q and res[1] is r
    assert_same(q, wq, "divmod q")
    assert_same(r, wr, "divmod r")


def test_integer_negative_power_raises():
    a = cupy.asarray(np.array([2, 3], np.int8))
    with pytest.raises(ValueError):
        tc.power(a, cupy.asarray(np.array([1, -1], np.int8)))
    assert tc.power(a, 2).dtype == np.int8


def test_kernels_are_cached_per_device():
    a = cupy.arange(10, dtype=np.int32)
    tc.add(a, a)
    n = len(tc._modules)
    tc.add(a, a)
    assert len(tc._modules) == n


def test_large_strided_uses_64bit_index():
    n = (1 << 31) // 4 + 1024          # 2**29 float32 elements: offsets beyond 2**31 with stride 4
    try:
        x = cupy.zeros(n * 4, np.uint8).view(np.float32)
    except cupy.cuda.memory.OutOfMemoryError:
        pytest.skip("not enough device memory")
    v = x[::4]
    r = tc.add(v, 1.0)
    assert float(r[-1].get()) == 1.0


def test_cpu_ufunc_with_cupy_arrays_is_routed_or_refused():
    """Where JAX's rules and NumPy's differ, a CPU ufunc handed CuPy arrays must give JAX's
    dtype (routed to typelattice.cuda) or raise: never CuPy's NumPy-rule result."""
    h = cupy.asarray(np.array([1.5, 2.0], np.float16))
    i32 = cupy.asarray(np.array([3, 4], np.int32))
    i8 = cupy.asarray(np.array([3, 4], np.int8))
    for op, args, want in (("add", (h, i32), np.float16),          # NumPy: float64
                           ("divide", (i8, i8), np.float32)):      # NumPy: float64
        try:
            r = getattr(typelattice, op)(*args)
        except TypeError:
            continue
        assert r.dtype == want, (f"typelattice.{op} on CuPy arrays gave {r.dtype}, not {want}: "
                                 f"CuPy ran cupy.{op} with NumPy's rules")


def test_jax32_reads_64_bit_operands_as_32_bit():
    """jax32's int64 array is an int32 array (wrapped) on the GPU as on the CPU's canon loops."""
    U = typelattice.make_ufuncs("jax32")
    x = np.array([2**33 + 5, -(2**31) - 7, 12], dtype=np.int64)
    for other in (np.array([1 + 2j, 3, -1j], np.complex64), np.array([1, 2, 3], np.float16),
                  np.array([1.5, 2, 3], np.float32)):
        for name in ("add", "multiply", "nextafter", "maximum"):
            try:
                want = U[name](x, other)
            except TypeError:
                continue
            got = tc.route(U[name])(cupy.asarray(x), cupy.asarray(other)).get()
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
