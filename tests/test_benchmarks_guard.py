"""The benchmark suite keeps up with the ufuncs (issue 5): every typelattice ufunc has an asv
benchmark and a compare-script case, no benchmark measures NumPy's own ufunc under a typelattice
name, and benchmarks/compare.py runs (a tiny --quick run)."""
import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import typelattice

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"

pytestmark = pytest.mark.skipif(not (BENCH / "benchmarks" / "common.py").exists(),
                                reason="benchmarks/ not in this checkout")


@pytest.fixture(scope="module")
def suite():
    sys.path.insert(0, str(BENCH))
    try:
        common = importlib.import_module("benchmarks.common")
        bench_ufunc = importlib.import_module("benchmarks.bench_ufunc")  # runs the suite's guard
        importlib.import_module("benchmarks.bench_promotion")
    finally:
        sys.path.remove(str(BENCH))
    return common, bench_ufunc


def public_ufuncs():
    return {name: getattr(typelattice, name) for name in dir(typelattice)
            if isinstance(getattr(typelattice, name), np.ufunc)}


def test_no_numpy_ufunc_under_a_typelattice_name():
    # A NumPy ufunc re-exported by typelattice would be benchmarked as "typelattice" while
    # measuring NumPy; the suite leaves such objects out, so they must not exist.
    own = {name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)}
    leaked = [name for name, f in public_ufuncs().items()
              if any(f is getattr(np, n) for n in own)]
    assert not leaked, f"typelattice exports NumPy's own ufunc objects: {leaked}"


def test_every_ufunc_has_an_asv_benchmark(suite):
    common, bench_ufunc = suite
    found = common.discover()
    assert set(found.values()) == set(public_ufuncs().values())
    missing = sorted(set(found) - set(common.OPS))
    assert not missing, (f"typelattice ufuncs without a benchmark: {missing}; add them to OPS "
                         "in benchmarks/benchmarks/common.py")
    assert set(found) <= set(bench_ufunc.Binary.params[0])


def test_asv_benchmark_setup_measures_typelattice(suite):
    common, bench_ufunc = suite
    if "add" not in common.UFUNCS:
        pytest.skip("no typelattice ufuncs in this build")
    b = bench_ufunc.Binary()
    b.setup("add", "float32", 1000, "tl")
    assert b.call.func is typelattice.add
    b.setup("add", "float32", 10**5, "np")
    assert "out" in b.call.keywords
    b.time_call("add", "float32", 1000, "tl")
    m = bench_ufunc.Mixed()
    m.setup("add", "int8+float16", 1000, "tl")
    assert m.call().dtype == np.float16


def _compare(*args):
    return subprocess.run([sys.executable, str(BENCH / "compare.py"), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_compare_lists_a_case_for_every_ufunc():
    r = _compare("--list", "--groups", "same", "--no-jax")
    assert r.returncode == 0, r.stderr
    listed = {line.split("\t")[1].split()[0] for line in r.stdout.splitlines()
              if line.startswith("same\t")}
    by_object = {}
    for name, f in public_ufuncs().items():
        by_object.setdefault(id(f), set()).add(name)
    unlisted = [sorted(names) for names in by_object.values() if not names & listed]
    assert not unlisted, f"ufuncs without a compare.py case: {unlisted}"


def test_compare_quick_runs():
    r = _compare("--quick", "--no-jax", "--groups", "promote,same,mixed,small",
                 "--ops", "add", "--dtypes", "float32", "--sizes", "1000",
                 "--repeats", "1", "--sample", "0.0002", "--markdown")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "| group | case | size | tl |" in out
    assert "promote_types(i8, f16)" in out
    if "add" in public_ufuncs():
        assert "add f32" in out and "add i8+f16" in out


def test_bits_column_tells_ulps_from_differences():
    """The compare script's "bits" column: "=" bit for bit, "~k ulp" within 8 ulp (two functions
    within 4 ulp of the exact result; steps of np.nextafter, across zero too), "DIFF" beyond or
    where NaNs differ."""
    import ml_dtypes
    from typelattice._bench import _bits_equal
    for dt in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64):
        x = np.array([1.5, -2.0, 0.0, 3e-3, np.inf], dt)
        y = x.copy()
        assert _bits_equal(x, y) == "="
        for k in (1, 3, 8):
            y[1] = x[1]
            for _ in range(k):
                y[1] = np.nextafter(y[1], dt(0))
            assert _bits_equal(x, y) == f"~{k} ulp", dt
        z = x.copy()
        z[2] = np.nextafter(dt(0), dt(-1))          # 0 and the negative subnormal: 1 ulp apart
        assert _bits_equal(x, z) == "~1 ulp", dt
        w = x.copy()
        for _ in range(9):
            w[0] = np.nextafter(w[0], dt(2))
        assert _bits_equal(x, w) == "DIFF", dt
        v = x.copy()
        v[4] = np.nan
        assert _bits_equal(x, v) == "DIFF", dt


def test_measure_warms_up_streaming_columns_before_every_sample():
    """measure(warm=w): where a column's calls take 10 µs or more, w seconds of untimed calls of
    each column before each of its samples; none where every column's calls are cheaper. A fake
    clock that advances by a fixed cost per call (powers of two: exact sums) makes the call
    counts exact."""
    from typelattice._bench import measure
    now = [0.0]
    calls = {"slow": 0, "fast": 0}

    def make(name, cost):
        def f():
            calls[name] += 1
            now[0] += cost
        return f

    def run(warm, slow_cost):
        now[0] = 0.0
        for k in calls:
            calls[k] = 0
        cols = {"slow": ("f()", {"f": make("slow", slow_cost)}),
                "fast": ("f()", {"f": make("fast", 2.0**-20)})}      # 0.95 µs
        med, reps = measure(cols, 3, 2.0**-10, 100.0, clock=lambda: now[0], warm=warm)
        assert med == {"slow": slow_cost, "fast": 2.0**-20}
        return dict(calls), reps

    plain, reps = run(0.0, 2.0**-14)                                 # 61 µs
    warmed, reps_w = run(2.0**-7, 2.0**-14)
    assert reps == reps_w
    # 2^-7 s of untimed calls before each of the reps samples of each column
    assert warmed["slow"] - plain["slow"] == reps * 2**7
    assert warmed["fast"] - plain["fast"] == reps * 2**13
    plain, reps = run(0.0, 2.0**-18)                                 # 3.8 µs: no warm-up
    warmed, reps_w = run(2.0**-7, 2.0**-18)
    assert reps == reps_w and warmed == plain
