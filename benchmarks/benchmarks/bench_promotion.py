"""promote_types / result_type against NumPy's and jax.numpy's (jax only when installed; it is
imported in setup, by the jax benchmarks only)."""
import time

import numpy as np

from .common import array, dtype, typelattice

PAIRS = ["int8+float16", "uint8+int8", "int32+float32", "int64+bfloat16", "float32+float64"]
RESULT_TYPE = {
    "f32arr+pyfloat": lambda: (array("float32", 10), 1.0),
    "i8arr+pyint": lambda: (array("int8", 10), 1),
    "i8arr+f16arr": lambda: (array("int8", 10), array("float16", 10, role=1)),
    "u8arr+i8arr+f16arr": lambda: (array("uint8", 10), array("int8", 10, role=1),
                                   array("float16", 10)),
    "f32+f64_dtypes": lambda: (np.dtype("float32"), np.dtype("float64")),
}


def _impl(impl, name):
    if impl == "tl":
        if typelattice is None:
            raise NotImplementedError
        return getattr(typelattice, name)
    if impl == "np":
        return getattr(np, name)
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
    except ImportError:
        raise NotImplementedError("jax not installed")
    return getattr(jnp, name)


class PromoteTypes:
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [PAIRS, ["tl", "np", "jax"]]
    param_names = ["dtypes", "impl"]

    def setup(self, pair, impl):
        self.f = _impl(impl, "promote_types")
        self.a, self.b = (dtype(x) for x in pair.split("+"))
        try:
            self.f(self.a, self.b)
        except Exception:
            raise NotImplementedError("no promotion")

    def time_promote_types(self, pair, impl):
        self.f(self.a, self.b)


class ResultType:
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [list(RESULT_TYPE), ["tl", "np", "jax"]]
    param_names = ["operands", "impl"]

    def setup(self, case, impl):
        self.f = _impl(impl, "result_type")
        self.ops = RESULT_TYPE[case]()
        try:
            self.f(*self.ops)
        except Exception:
            raise NotImplementedError("no promotion")

    def time_result_type(self, case, impl):
        self.f(*self.ops)
