"""typelattice.dask under mypy --strict (needs only the stubs, not dask's)."""
from typing import Any

import numpy as np

import typelattice as tl
import typelattice.dask as tld

w: tld.DaskUfunc = tld.divmod
w2: tld.DaskUfunc = tld.wrap(tl.make_ufuncs("jax32")["add"])
u: np.ufunc = tld.add.ufunc
n: int = tld.true_divide.nin


def parts(x: Any) -> tuple[Any, Any]:
    q, r = tld.divmod(x, 3)
    return q, r


print(w, w2, u, n, parts, tld.outer(tl.add, np.ones(2), np.ones(3)),
      tld.reduce(tl.maximum, np.ones(3), axis=0), tld.add.reduce(np.ones(3), axis=None))
