"""typelattice ufuncs on a dask.distributed cluster of two worker processes: the ufuncs travel by
reference (typelattice._ufuncs.<rules>.<op>, rebuilt from the installed package in the worker)
and the results equal our ufunc's on the NumPy arrays, dtypes included."""
import pickle
import sys
import warnings

import numpy as np
import pytest

import typelattice as tl

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
tld = pytest.importorskip("typelattice.dask")


@pytest.fixture(scope="module")
def client():
    cloudpickle = pytest.importorskip("cloudpickle")
    # the helpers below travel by value: the workers need not import this test module
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                           dashboard_address=None, silence_logs=40,
                                           worker_dashboard_address=None)
    try:
        with distributed.Client(cluster, timeout="60s") as c:
            c.wait_for_workers(2, timeout=60)
            yield c
    finally:
        cluster.close(timeout=20)
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _in_worker(payload):
    """Unpickle in the worker process; report what the ufuncs are there."""
    import os
    import typelattice
    ufs = pickle.loads(payload)
    return (os.getpid(), [u is getattr(typelattice, u.__name__.split(".")[1], None) for u in ufs],
            [u.__name__ for u in ufs], str(ufs[0](np.arange(3, dtype=np.int8), 1).dtype))


def test_ufuncs_pickle_by_reference_into_worker_processes(client):
    u32 = tl.make_ufuncs("jax32")["add"]
    payload = pickle.dumps([tl.add, tl.divmod, tl.true_divide, u32])
    # by reference: the module path and the name, no code or tables
    assert b"typelattice._ufuncs" in payload and b"jax.add" in payload and len(payload) < 200
    workers = list(client.scheduler_info()["workers"])
    assert len(workers) == 2
    import os
    results = [client.submit(_in_worker, payload, workers=[w], pure=False).result(timeout=60)
               for w in workers]
    pids = {r[0] for r in results}
    assert len(pids) == 2 and os.getpid() not in pids          # two other processes
    for _, identical, names, dt in results:
        # the default rule set's ufuncs are the worker's own typelattice.add etc.
        assert identical == [True, True, True, False]
        assert names == ["jax.add", "jax.divmod", "jax.divide", "jax32.add"]
        assert dt == "int8"


def _same(got, expected):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_results_equal_numpy(client):
    rng = np.random.default_rng(1)
    i8 = rng.integers(-100, 100, (6, 8)).astype(np.int8)
    u8 = rng.integers(1, 200, (6, 8)).astype(np.uint8)
    f16 = rng.normal(size=8).astype(np.float16)
    di8, du8, df16 = (da.from_array(i8, chunks=(3, 4)), da.from_array(u8, chunks=(2, 8)),
                      da.from_array(f16, chunks=3))
    u32 = tl.make_ufuncs("jax32")
    cases = [
        (tl.add(di8, 1), tl.add(i8, 1)),                            # weak scalar: int8
        (tl.add(di8, du8), tl.add(i8, u8)),                         # int16
        (tl.multiply(di8.astype(np.int64), df16), tl.multiply(i8.astype(np.int64), f16)),
        (tl.divide(di8, du8), tl.divide(i8, u8)),                   # float32
        (tl.floor_divide(di8 > 0, du8 > 9), tl.floor_divide(i8 > 0, u8 > 9)),   # int32
        (tld.divmod(di8, du8)[1], tl.divmod(i8, u8)[1]),
        (tld.add.outer(df16, du8[0]), tl.add.outer(f16, u8[0])),
        (tld.maximum.reduce(di8, axis=1), tl.maximum.reduce(i8, axis=1)),
        (tld.add.reduce(di8, axis=None), tl.add.reduce(i8, axis=None)),
        (tld.wrap(u32["add"])(di8.astype(np.int64), 1), u32["add"](i8.astype(np.int64), 1)),
    ]
    futures = client.compute([c[0] for c in cases])
    got = client.gather(futures)
    for (lazy, expected), g in zip(cases, got):
        assert lazy.dtype == expected.dtype
        _same(g, expected)


def test_custom_rule_set_registered_on_workers(client):
    """A rule set made at run time exists in the workers after register_rules (a worker
    plugin); its ufuncs then pickle by reference like the built-in ones."""
    rules = tl.lattice({"int8": ["int16"], "uint8": ["int16"], "int16": ["float32"],
                        "float32": []}, name="eco_test_mini")
    ufs = tld.register_rules(client, rules)
    x = np.arange(-4, 8, dtype=np.int8)
    y = np.arange(12, dtype=np.uint8)
    lazy = ufs["add"](da.from_array(x, chunks=4), da.from_array(y, chunks=6))
    lazy2 = tld.wrap(ufs["multiply"])(da.from_array(x, chunks=4), np.float32(0.5))
    got, got2 = client.compute([lazy, lazy2], sync=True)
    assert lazy.dtype == np.int16 and lazy2.dtype == np.float32
    _same(got, ufs["add"](x, y))
    _same(got2, ufs["multiply"](x, np.float32(0.5)))
