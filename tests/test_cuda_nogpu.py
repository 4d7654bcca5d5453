"""The CUDA path without a GPU: import, clear errors, dtype resolution, the host-side launch logic
(on CuPy arrays that own no device memory, with the kernel launch recorded instead of run), and
how CuPy dispatches the CPU ufuncs."""
import subprocess
import sys

import numpy as np
import pytest

import typelattice
from typelattice import _cuda_codegen as cg
from typelattice._ops import OPS

BINARY = [op for op in OPS if op.nin == 2]


def test_import_without_cupy_and_clear_error():
    code = (
        "import sys; sys.modules['cupy'] = None\n"
        "import typelattice, typelattice.cuda as tc\n"
        "assert typelattice.add is not None\n"
        "try:\n"
        "    tc.add(1, 2)\n"
        "except tc.CudaUnavailableError as e:\n"
        "    assert 'CuPy' in str(e) and \"typelattice[cuda]\" in str(e), e\n"
        "    print('ok')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.strip() == "ok", res.stderr


def test_no_device_error_names_the_cause():
    cupy = pytest.importorskip("cupy", reason="CuPy not installed")
    import typelattice.cuda as tc
    if cupy.is_available():
        pytest.skip("a CUDA device is available here")
    with pytest.raises(tc.CudaUnavailableError, match="cupy.is_available"):
        tc.add(1, 2)


def _types():
    import typelattice.cuda as tc
    return [tc.cg_dtype(t) for t in cg.TYPES]


@pytest.mark.parametrize("op", [op.name for op in BINARY])
def test_resolution_is_the_cpu_ufuncs(op, monkeypatch):
    """typelattice.cuda asks the CPU ufunc; its fallback (_ops + compiled rules, used when the CPU
    ufuncs are not built) gives the same loop dtypes and the same errors for every pair."""
    import typelattice.cuda as tc
    uf = getattr(typelattice, op, None)
    if not isinstance(uf, np.ufunc):
        pytest.skip("CPU ufuncs not built")
    kinds = _types() + [int, float, complex]
    via_ufunc = {}
    for a in kinds:
        for b in kinds:
            if a in (int, float, complex) and b in (int, float, complex):
                continue
            try:
                via_ufunc[a, b] = tc.resolve(op, a, b)
            except Exception as exc:  # noqa: BLE001
                via_ufunc[a, b] = type(exc).__name__
    monkeypatch.setattr(tc, "_cpu_ufunc", lambda name: None)
    monkeypatch.setattr(tc, "_resolved", {})
    bad = []
    for (a, b), want in via_ufunc.items():
        try:
            got = tc.resolve(op, a, b)
        except Exception as exc:  # noqa: BLE001
            got = type(exc).__name__
        if got != want:
            bad.append(f"{a}, {b}: ufunc {want}, _ops {got}")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("rules", sorted(typelattice.BUILTIN_RULES))
def test_every_rule_set_resolves_as_its_cpu_ufuncs(rules):
    """typelattice.cuda.<op> of another rule set's ufunc (its ufunc= argument) gives that CPU
    ufunc's result dtypes for every pair of kernel types and weak scalars, or an error where the
    CPU ufunc raises one: jax32 reads uint64 as uint32 (ldexp of it is float32), anvil's
    ambiguous int32? divides in float32, a logical op takes two arrays of a type with no join of
    its own (torch's uint16) as the CPU does; ldexp's exponent type too (jax32's uint64 exponent,
    taken whole, was wrapped by an int64 kernel). One op of each dtype rule."""
    import typelattice.cuda as tc
    ufs = typelattice.make_ufuncs(rules)
    if not isinstance(ufs["add"], np.ufunc):
        pytest.skip("CPU ufuncs not built")
    kinds = _types() + [int, float, complex]
    ops = ["add", "less", "logical_and", "divide", "ldexp", "floor_divide", "bitwise_or",
           "left_shift", "power", "arctan2"]
    bad = []
    for op in ops:
        uf = ufs[op]
        for a in kinds:
            for b in kinds:
                if a in (int, float, complex) and b in (int, float, complex):
                    continue
                first = 1 if op == "ldexp" and isinstance(b, np.dtype) and b == np.uint64 else 2
                try:
                    want = tuple(str(d) for d in
                                 uf.resolve_dtypes((a, b) + (None,) * uf.nout)[first:])
                except Exception:  # noqa: BLE001
                    want = None
                try:
                    got = tuple(str(tc.cg_dtype(t))
                                for t in tc.resolve(op, a, b, ufunc=uf)[first:])
                except Exception as exc:  # noqa: BLE001
                    got = None if want is None and not isinstance(exc, RuntimeError) else repr(exc)
                if got != want:
                    bad.append(f"{op}({a}, {b}): CPU {want}, CUDA {got}")
    assert not bad, "\n".join(bad[:20])


def test_user_rule_sets_resolve_as_their_cpu_ufuncs():
    """A rule set made at run time: typelattice.cuda takes the ufunc's own rule set (it looked
    the name up: 'unknown rule set'), and a cached answer for one set never answers for
    another."""
    import typelattice.cuda as tc
    mine = typelattice.lattice({"bool": ["int8"], "int8": ["float16"], "float16": ["float32"],
                                "int16": ["float32"]}, name="mine")
    for uf in (typelattice.make_ufuncs(mine)["add"], typelattice.make_ufuncs("torch")["add"],
               typelattice.make_ufuncs(mine)["add"]):
        for a, b in [("int8", "float16"), ("int16", "float16"), ("bool", "int8")]:
            want = uf.resolve_dtypes((np.dtype(a), np.dtype(b), None))[2]
            assert tc.resolve("add", np.dtype(a), np.dtype(b), ufunc=uf)[2] == want.name


# ---- host-side launch logic on device-less CuPy arrays ------------------------------------------

@pytest.fixture
def fake(monkeypatch):
    cupy = pytest.importorskip("cupy", reason="CuPy not installed")
    import typelattice.cuda as tc
    launches = []

    class Fn:
        def __init__(self, name):
            self.name = name

        def __call__(self, grid, block, args):
            launches.append((self.name, grid, block, args))

    class Dev:
        def __init__(self, i=0):
            self.id = i

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    sigs = []

    def module(sig, dev, arch):
        sigs.append(sig)
        return None, {k: Fn(k) for k in cg.KERNELS}

    monkeypatch.setattr(tc, "_ensure_ready", lambda: None)
    monkeypatch.setattr(tc, "_module", module)
    monkeypatch.setattr(tc, "_arch", lambda dev, cp: 90)
    monkeypatch.setattr(tc, "_launch_geometry", lambda n, dev, cp: (max(1, -(-n // 256)), 256))
    monkeypatch.setattr(cupy.cuda, "Device", Dev)
    monkeypatch.setattr(cupy, "asarray", lambda a: a)    # the N-d kernel's shape/strides
    addr = [0x100000]

    def arr(shape, dtype, strides=None, offset=0):
        dtype = tc.cg_dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
        n = int(np.prod(shape)) * dtype.itemsize * 4 + 64
        mem = cupy.cuda.UnownedMemory(addr[0], n, None, device_id=0)
        addr[0] += n + 4096
        return cupy.ndarray(shape, dtype=dtype, memptr=cupy.cuda.MemoryPointer(mem, offset),
                            strides=strides)

    return tc, arr, launches, sigs


def test_fake_contiguous_mixed_dtypes(fake):
    tc, arr, launches, sigs = fake
    a, b, o = arr((1000,), "int8"), arr((1000,), "float16"), arr((1000,), "float16")
    r = tc.add(a, b, out=o)
    assert r is o
    assert sigs[-1] == cg.Signature("add", ("int8", "float16"), (False, False), ("float16",) * 3)
    name, grid, block, args = launches[-1]
    assert name == "k1_i32" and grid == (4,) and block == (256,)
    assert args[0] == 1000 and args[1] is a and args[2] is b and args[3] is o
    assert list(args[4:7]) == [1, 1, 1]


def test_fake_weak_scalars_are_kernel_arguments(fake):
    tc, arr, launches, sigs = fake
    a, o = arr((10,), "int8"), arr((10,), "int8")
    tc.add(a, 5, out=o)
    args = launches[-1][3]
    assert sigs[-1].scalar == (False, True) and sigs[-1].loop == ("int8",) * 3
    assert type(args[2]) is np.int8 and args[2] == 5
    with pytest.raises(OverflowError, match=r"typelattice\.cuda\.add\(int8 array, Python int 1000\)"
                       r".*does not fit int8.*rule set 'jax'"):
        tc.add(a, 1000, out=o)
    h, oh = arr((10,), "float16"), arr((10,), "float16")
    tc.multiply(0.1, h, out=oh)
    args = launches[-1][3]
    assert sigs[-1].scalar == (True, False)
    assert type(args[1]) is np.uint16 and args[1] == np.float16(0.1).view(np.uint16)
    c, oc = arr((10,), "complex64"), arr((10,), "complex64")
    tc.subtract(c, 1 + 2j, out=oc)
    args = launches[-1][3]
    assert (type(args[2]), args[2], type(args[3]), args[3]) == (np.float32, 1.0, np.float32, 2.0)
    f64 = arr((10,), "float64")
    tc.add(a, 1.5, out=f64)      # int8 | Python float -> float64 under x64 rules
    assert sigs[-1].loop == ("float64",) * 3 and sigs[-1].ins == ("int8", "float64")


def test_fake_broadcast_and_strides(fake):
    tc, arr, launches, sigs = fake
    x = arr((8, 6), "float32")
    xt = x.T                    # (6, 8) with strides (4, 24)
    y = arr((8,), "float32")
    o = arr((6, 8), "float32")
    tc.add(xt, y, out=o)
    # o is C-contiguous, xt is transposed: no merge, the N-d kernel with element strides
    name, grid, block, args = launches[-1]
    assert name == "kn" and args[0] == 48 and args[1] == 2
    # meta: shape, then element strides of xt, y (broadcast: 0) and o
    assert list(args[2]) == [6, 8, 1, 6, 0, 1, 8, 1]
    assert cg_collapse([6, 8], [[1, 6], [0, 1], [8, 1]])[0] == [6, 8]
    # a row broadcast against a contiguous matrix merges to 1-D only when it can
    assert cg_collapse([4, 5], [[5, 1], [5, 1]]) == ([20], [[1], [1]])
    assert cg_collapse([4, 1, 5], [[5, 5, 1], [0, 0, 1]])[0] == [4, 5]
    # reversed view: negative element stride in the 1-D kernel
    v = arr((10,), "float32", strides=(-4,), offset=36)   # x[::-1] (slicing needs a device)
    o1 = arr((10,), "float32")
    tc.add(v, 1.0, out=o1)
    name, grid, block, args = launches[-1]
    assert name == "k1_i32" and args[2] == 1.0 and int(args[4]) == -1 and int(args[5]) == 1


def _i32_loop_wraps(n, stride, threads):
    """Whether the 32-bit grid-stride loop (`for (int i = t; i < n; i += step)`, step =
    threads) forms an index or offset past INT_MAX: its largest i is the one that ends the
    thread that ran element n - 1, n - 1 + threads (checked by simulation in the test); an
    offset is i * stride, i < n."""
    return n - 1 + threads >= 2**31 or abs(stride) * (n - 1) >= 2**31


def test_the_32_bit_kernel_only_where_its_index_cannot_wrap():
    """The 1-D kernel with int indices is chosen only where neither the grid-stride index nor
    an offset passes INT_MAX: for n just below 2**31 the last `i += step` wrapped negative
    (about 2 GB of int8 on an H100's 132 SMs x 32 blocks x 256 threads)."""
    import typelattice.cuda as tc
    for n in range(1, 40):                  # the loop's largest i, simulated
        for th in range(1, 12):
            top = max(max(range(t, n + th, th)) for t in range(th) if t < n)
            assert top == n - 1 + th, (n, th, top)
    threads = 132 * 32 * 256
    cases = [(1000, 1, 1024), (2**31 - 101, 1, threads), (2**31 - threads, 1, threads),
             (2**31 - threads - 1, 1, threads), (2**30, 1, threads), (2**30, 2, threads),
             (2**30, -1, threads), (10, 2**28, 256), (10, 2**29, 256), (2**31 - 1, 0, 1)]
    for n, stride, th in cases:
        kernel = tc._kernel_1d(n, [stride, 1], th)
        if kernel == "k1_i32":
            assert not _i32_loop_wraps(n, max(abs(stride), 1), th), (n, stride, th)
    assert tc._kernel_1d(2**31 - 101, [1, 1, 1], threads) == "k1_i64"   # (it was k1_i32)
    assert _i32_loop_wraps(2**31 - 101, 1, threads)
    for n, stride, th in [(1000, 1, 1024), (2**30, 1, threads), (10, 2**27, 256)]:
        assert tc._kernel_1d(n, [stride, 0], th) == "k1_i32", (n, stride, th)


def cg_collapse(shape, strides):
    import typelattice.cuda as tc
    return tc._collapse(shape, strides)


def test_fake_errors(fake):
    tc, arr, launches, sigs = fake
    f = arr((3,), "float32")
    with pytest.raises(TypeError):
        tc.bitwise_and(f, 1, out=arr((3,), "float32"))
    with pytest.raises(TypeError, match="cupy.asarray"):
        tc.add(f, np.ones(3, np.float32), out=arr((3,), "float32"))
    with pytest.raises(ValueError, match="broadcast"):
        tc.add(f, arr((4,), "float32"), out=arr((3,), "float32"))
    with pytest.raises(TypeError, match="same_kind"):
        tc.add(f, f, out=arr((3,), "int32"))
    with pytest.raises(TypeError):   # no loop for float8 on the CPU either
        tc.add(arr((3,), "int8"), arr((3,), cg_f8()))


def cg_f8():
    import ml_dtypes
    return np.dtype(ml_dtypes.float8_e4m3fn)


def test_fake_divmod_two_outputs(fake):
    tc, arr, launches, sigs = fake
    a, b = arr((5,), "int16"), arr((5,), "uint8")
    q, r = arr((5,), "int16"), arr((5,), "int16")
    res = tc.divmod(a, b, out=(q, r))
    assert res == (q, r) and sigs[-1].loop == ("int16",) * 4
    args = launches[-1][3]
    assert args[3] is q and args[4] is r


# ---- CPU ufuncs handed CuPy arrays ---------------------------------------------------------------

def test_cpu_ufunc_on_cupy_arrays_never_runs_cupys_numpy_rules(fake, monkeypatch):
    """CuPy maps a foreign ufunc to ``getattr(cupy, ufunc.__name__)``: typelattice.add(cupy_x, 1)
    must reach typelattice.cuda (or raise), never cupy.add with NumPy's promotion."""
    import cupy
    tc, arr, launches, sigs = fake
    bad = []
    for name in tc.OPS_CUDA:
        uf = getattr(typelattice, name, None)
        if not isinstance(uf, np.ufunc):
            continue
        target = getattr(cupy, uf.__name__, None)
        if target is not None and not isinstance(target, tc.CudaOp):
            bad.append(f"typelattice.{name} (ufunc name {uf.__name__!r}) -> cupy.{uf.__name__}")
    assert not bad, (
        "CuPy would run its own function, with NumPy's rules, for these typelattice ufuncs on "
        "CuPy arrays (CuPy looks the ufunc up by __name__). The CPU ufuncs need a __name__ that "
        "CuPy does not define (typelattice.cuda then registers the route):\n" + "\n".join(bad))


def test_cpu_ufunc_call_on_cupy_arrays_reaches_typelattice_cuda(fake):
    """typelattice.add(cupy_array, 1) goes through CuPy's __array_ufunc__ to typelattice.cuda."""
    tc, arr, launches, sigs = fake
    uf = typelattice.add
    import cupy
    if hasattr(cupy, uf.__name__) and not isinstance(getattr(cupy, uf.__name__), tc.CudaOp):
        pytest.fail(f"cupy.{uf.__name__} is CuPy's own function")
    a, o = arr((7,), "int8"), arr((7,), "int8")
    r = uf(a, 1, out=o)
    assert r is o and sigs[-1].loop == ("int8",) * 3 and launches[-1][0] == "k1_i32"
    # another rule set's ufuncs follow their own dtypes
    if hasattr(typelattice, "make_ufuncs"):
        add32 = typelattice.make_ufuncs("jax32")["add"]
        tc.route(add32)
        f32 = arr((7,), "float32")
        add32(a, 1.5, out=f32)      # jax32: int8 | Python float -> float32 (jax: float64)
        assert sigs[-1].loop == ("float32",) * 3
