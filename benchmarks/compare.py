#!/usr/bin/env python3
"""typelattice side by side with NumPy, ml_dtypes and jax.numpy, as ratios (issue 5).

    python benchmarks/compare.py [--quick] [--markdown] [--groups ...] [--ops ...] [-h]

The same as ``python -m typelattice bench``: the code lives in ``typelattice/_bench.py``. The
installed package's copy is used when it has one, else the one in this checkout's ``src/``.
"""
import importlib.util
import os
import sys


def load_bench():
    try:
        from typelattice import _bench
        return _bench
    except ImportError:
        pass
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src",
                        "typelattice", "_bench.py")
    spec = importlib.util.spec_from_file_location("typelattice._bench", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


if __name__ == "__main__":
    sys.exit(load_bench().main(sys.argv[1:], prog="benchmarks/compare.py"))
