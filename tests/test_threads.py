"""Optional multi-threading (typelattice.set_num_threads): every result, FP warning and error
with 2 or 4 threads is the one of a single thread. The split threshold (bytes of operands) is
lowered so small arrays are split too (one test keeps the default threshold)."""
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs

N = 10_007          # odd: chunks of different lengths


@pytest.fixture(autouse=True)
def _restore():
    old_min = _ufuncs._thread_min_bytes(1024)
    yield
    tl.set_num_threads(1)
    _ufuncs._thread_min_bytes(old_min)


def _data(dtype, n=N, seed=0, special=True, lo=-5, hi=5):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, lo), min(info.max, hi) + 1, n).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    x = rng.normal(0, 3, n).astype(np.float32)
    if special:     # NaN, infinities, signed zeros, overflow, tiny values in every chunk
        for k, v in enumerate([np.nan, np.inf, -np.inf, 0.0, -0.0, 3e38, 1e-40, 7e4, -1e5]):
            x[k::997] = v
    with np.errstate(over="ignore"):
        return x.astype(dt)


def _call(fn):
    """(result, [warning messages]) under errstate(all='warn')."""
    with warnings.catch_warnings(record=True) as w, np.errstate(all="warn"):
        warnings.simplefilter("always")
        res = fn()
    return res, sorted(f"{x.category.__name__}: {x.message}" for x in w)


def _bits(r):
    if isinstance(r, tuple):
        return tuple(_bits(x) for x in r)
    r = np.asarray(r)
    return r.dtype, r.shape, r.tobytes()


def _same(fn, nthreads=(2, 4), split=True):
    """fn() with one thread and with each of nthreads: bit-identical results, same warnings;
    split: some loop call was cut into chunks."""
    with tl.threads(1):
        ref, ref_w = _call(fn)
    for t in nthreads:
        before = _ufuncs._threaded_calls()
        with tl.threads(t):
            got, got_w = _call(fn)
        assert _bits(got) == _bits(ref), t
        assert got_w == ref_w, t
        if split:
            assert _ufuncs._threaded_calls() > before
    return ref, ref_w


BINARY = [
    ("add", "float32", "float32"), ("add", "float16", "float16"),
    ("multiply", "bfloat16", "bfloat16"), ("subtract", "float64", "float64"),
    ("divide", "float32", "float32"), ("divide", "int16", "int16"),
    ("add", "int32", "float32"), ("multiply", "int8", "float16"),
    ("add", "bfloat16", "float16"), ("multiply", "uint8", "bfloat16"),
    ("power", "float16", "float16"), ("floor_divide", "int32", "int32"),
    ("remainder", "float32", "float32"), ("maximum", "float32", "float32"),
    ("less", "float32", "float32"), ("less_equal", "bfloat16", "bfloat16"),
    ("equal", "float16", "int8"), ("arctan2", "float32", "float32"),
    ("logical_and", "bool", "float32"), ("add", "complex64", "float32"),
    ("add", "float8_e4m3fn", "float8_e4m3fn"), ("hypot", "float8_e5m2", "float8_e5m2"),
    ("divmod", "float32", "float32"), ("divmod", "int16", "int16"),
]


@pytest.mark.parametrize("op,t1,t2", BINARY)
def test_binary_identical(op, t1, t2):
    a, b = _data(t1, seed=1), _data(t2, seed=2)
    _same(lambda: getattr(tl, op)(a, b))


UNARY = [
    ("exp", "float32"), ("exp", "float16"), ("sqrt", "bfloat16"), ("log", "float64"),
    ("negative", "int32"), ("sin", "float16"), ("reciprocal", "float32"),
    ("isnan", "bfloat16"), ("exp", "float8_e4m3fn"), ("frexp", "float32"), ("modf", "float16"),
    ("absolute", "complex64"),
]


@pytest.mark.parametrize("op,t", UNARY)
def test_unary_identical(op, t):
    a = _data(t, seed=3)
    _same(lambda: getattr(tl, op)(a))


def test_warnings_are_raised_by_worker_chunks():
    # the overflow/invalid/divide elements are only in the last chunk
    a = np.ones(N, np.float32)
    b = np.ones(N, np.float32)
    a[-3:] = [3e38, 0.0, np.inf]
    b[-3:] = [3e38, 0.0, np.inf]
    c = np.ones(N, np.float32)
    c[-1] = 0
    _, w = _same(lambda: (tl.multiply(a, b), tl.divide(c + 1, c), tl.subtract(a, b)))
    assert any("overflow" in x for x in w)
    assert any("invalid" in x for x in w)
    assert any("divide by zero" in x for x in w)
    # float16 rounding overflow, from the conversion code
    h = np.full(N, 1.0, np.float16)
    h[-1] = 6e4
    _, w = _same(lambda: tl.add(h, h))
    assert any("overflow" in x for x in w)


def test_errstate_raise_in_a_worker_chunk():
    a = np.ones(N, np.float32)
    a[-1] = 3e38
    for t in (1, 2, 4):
        with tl.threads(t), np.errstate(over="raise"):
            with pytest.raises(FloatingPointError, match="overflow"):
                tl.multiply(a, a)


@pytest.mark.parametrize("where", [0, N // 2, N - 1])
def test_negative_integer_power_raises(where):
    a = np.full(N, 2, np.int32)
    b = np.ones(N, np.int32)
    b[where] = -1
    for t in (1, 2, 4):
        with tl.threads(t):
            with pytest.raises(ValueError, match="negative integer powers"):
                tl.power(a, b)
            # and the pool still works afterwards
            assert _bits(tl.power(a, np.abs(b))) == _bits(np.power(a, np.abs(b)))


def test_layouts_identical():
    a, b = _data("float32", 3 * N, seed=4), _data("float32", 3 * N, seed=5)
    h = _data("float16", 3 * N, seed=6)
    m = np.arange(3 * N) % 3 != 0
    _same(lambda: tl.add(a[::3], b[1::3]))                 # strided
    _same(lambda: tl.add(a[::-2], h[::-2]))                # negative strides, mixed
    _same(lambda: tl.multiply(a, 2.5))                     # Python scalar (weak)
    _same(lambda: tl.multiply(np.float16(3), h))           # scalar first
    _same(lambda: tl.add(a.reshape(3, N)[:, None, :], b[:N]))    # broadcast
    _same(lambda: tl.add(a.reshape(3, N).T, h.reshape(N, 3)))   # non-contiguous 2-d

    def out_new():
        o = np.full(3 * N, -1, np.float32)
        tl.add(a, h, out=o)
        return o

    def in_place():
        x = a.copy()
        tl.multiply(x, b, out=x)
        y = h.copy()
        tl.exp(y, out=y)
        return x, y

    def where():
        o = np.zeros(3 * N, np.float32)
        tl.add(a, b, out=o, where=m)
        return o

    def overlapping():     # NumPy copies an operand that overlaps the output
        x = a.copy()
        tl.add(x[:-1], b[:-1], out=x[1:])
        return x

    def at():
        x = a.copy()
        tl.add.at(x, np.arange(0, 3 * N, 2), b[:len(range(0, 3 * N, 2))])
        return x

    for fn in (out_new, in_place, overlapping):
        _same(fn)
    _same(where, split=False)      # NumPy calls the loop on the runs of True
    _same(at, split=False)


def test_reductions_identical():
    a = _data("float32", 4 * N, seed=7, special=False)
    h = _data("float16", 4 * N, seed=8, special=False)
    bf = _data("bfloat16", 4 * N, seed=9, special=False)
    # the output is fed back: never split
    _same(lambda: tl.add.reduce(a), split=False)
    _same(lambda: tl.add.reduce(h), split=False)
    _same(lambda: tl.multiply.reduce(bf[:50]), split=False)
    _same(lambda: tl.add.reduce(h.reshape(4, N), axis=1), split=False)
    _same(lambda: tl.add.accumulate(a), split=False)
    _same(lambda: tl.maximum.accumulate(bf), split=False)
    _same(lambda: tl.add.reduce(_data("int8", 4 * N, seed=10)), split=False)
    _same(lambda: tl.add.reduce(bf, dtype=np.float32), split=False)
    _same(lambda: tl.add.accumulate(h.reshape(4, N), axis=0), split=False)
    # elementwise into the output row: split
    _same(lambda: tl.add.reduce(a.reshape(4, N), axis=0))
    _same(lambda: tl.multiply.reduce(h.reshape(4, N), axis=0))


def test_default_threshold():
    """16 MiB of operands: float32 + bfloat16 -> float32 of 1.7M elements (17 MB) is split, an
    int8 add of 2^20 elements (3 MB; 2.4x slower on two threads where measured) is not."""
    _ufuncs._thread_min_bytes(16 << 20)
    a, b = _data("float32", 1_700_000, seed=11), _data("bfloat16", 1_700_000, seed=12)
    _same(lambda: tl.add(a, b), nthreads=(2,))
    c = _data("int8", 1 << 20, seed=13)
    _same(lambda: tl.add(c, c), nthreads=(2,), split=False)
    before = _ufuncs._threaded_calls()
    with tl.threads(2):
        tl.add(c, c)
    assert _ufuncs._threaded_calls() == before


def test_concurrent_python_threads():
    a, b = _data("float32", 4 * N, seed=13), _data("float16", 4 * N, seed=14, special=False)
    with tl.threads(1), np.errstate(all="ignore"):
        ref = tl.add(a, b), tl.exp(b)
    errors = []

    def run():
        try:
            for _ in range(30):
                with np.errstate(all="ignore"):
                    got = tl.add(a, b), tl.exp(b)
                assert _bits(got) == _bits(ref)
        except BaseException as exc:    # pragma: no cover - reported below
            errors.append(exc)

    with tl.threads(2):
        ts = [threading.Thread(target=run) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
    assert not errors


def test_api_and_validation():
    assert tl.get_num_threads() == 1
    tl.set_num_threads(3)
    assert tl.get_num_threads() == 3
    with tl.threads(2):
        assert tl.get_num_threads() == 2
    assert tl.get_num_threads() == 3
    with pytest.raises(RuntimeError):
        with tl.threads(4):
            raise RuntimeError
    assert tl.get_num_threads() == 3
    for bad in (0, -1, 10**6):
        with pytest.raises(ValueError, match="between 1 and"):
            tl.set_num_threads(bad)
    for bad in (2.0, "2", True, np.True_, None):
        with pytest.raises(TypeError, match="must be an int"):
            tl.set_num_threads(bad)
    assert tl.get_num_threads() == 3
    tl.set_num_threads(np.int64(2))
    assert tl.get_num_threads() == 2
    assert {"set_num_threads", "get_num_threads", "threads"} <= set(tl.__all__)


def _run(code, env_value):
    env = dict(os.environ)
    env.pop("TYPELATTICE_NUM_THREADS", None)
    if env_value is not None:
        env["TYPELATTICE_NUM_THREADS"] = env_value
    return subprocess.run([sys.executable, "-W", "always", "-c", textwrap.dedent(code)],
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("value,expected,warns", [
    (None, 1, False), ("2", 2, False), (" 3 ", 3, False), ("1", 1, False),
    ("0", 1, True), ("two", 1, True), ("-4", 1, True),
])
def test_environment_variable(value, expected, warns):
    r = _run("import typelattice as tl; print(tl.get_num_threads())", value)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(expected)]
    assert ("TYPELATTICE_NUM_THREADS" in r.stderr) == warns, r.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_and_exit():
    # the child has no workers after fork: its first threaded call starts new ones (no hang);
    # the interpreter exits with the pool running
    code = """
        import os, numpy as np, typelattice as tl
        from typelattice import _ufuncs
        _ufuncs._thread_min_bytes(1024)
        a = np.linspace(-3, 3, 100_003, dtype=np.float32)
        with tl.threads(1):
            ref = tl.exp(a)
        assert (tl.exp(a) == ref).all()
        pid = os.fork()
        if pid == 0:
            c = _ufuncs._threaded_calls()
            ok = (tl.exp(a) == ref).all() and (tl.add(a, a) == a + a).all()
            os._exit(0 if ok and _ufuncs._threaded_calls() == c + 2 else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        c = _ufuncs._threaded_calls()
        assert (tl.exp(a) == ref).all() and _ufuncs._threaded_calls() == c + 1
        print("ok")
    """
    r = _run(code, "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok"]


@pytest.fixture
def mxcsr(tmp_path):
    """ctypes access to this thread's MXCSR (x86-64 with a C compiler)."""
    import ctypes
    import platform
    import shutil
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if platform.machine() not in ("x86_64", "AMD64") or cc is None:
        pytest.skip("needs x86-64 and a C compiler")
    src = tmp_path / "csr.c"
    src.write_text("#include <xmmintrin.h>\n"
                   "unsigned get_csr(void) { return _mm_getcsr(); }\n"
                   "void set_csr(unsigned v) { _mm_setcsr(v); }\n")
    so = tmp_path / "libcsr.so"
    subprocess.run([cc, "-O1", "-fPIC", "-shared", str(src), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    lib.get_csr.restype = ctypes.c_uint
    lib.set_csr.argtypes = [ctypes.c_uint]
    old = lib.get_csr()
    yield lib
    lib.set_csr(old)


def test_daz_ftz_of_the_calling_thread_apply_in_workers(mxcsr):
    tiny = np.full(N, 1e-39, np.float32)          # subnormal
    ones = np.ones(N, np.float32)

    def fn():
        return tl.multiply(tiny, ones), tl.multiply(ones, np.float32(1e-20)) * np.float32(1e-20)

    plain = mxcsr.get_csr()
    for t in (1, 2, 4):
        with tl.threads(t):
            fn()                                  # the workers start with the plain MXCSR
            mxcsr.set_csr(plain | 0x8040)         # FTZ | DAZ
            c = _ufuncs._threaded_calls()
            got, w = _call(fn)
            mxcsr.set_csr(plain)
        if t == 1:
            ref, ref_w = got, w
            assert not ref[0].any()               # subnormal inputs read as zero
        else:
            assert _ufuncs._threaded_calls() > c
            assert _bits(got) == _bits(ref) and w == ref_w
