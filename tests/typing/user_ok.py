"""A small user script: mypy (--strict) must accept it with typelattice's stubs."""
from typing import Any

import numpy as np
import numpy.typing as npt

import typelattice as tl
from typelattice import TypePromotionError


def scaled(x: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    res: npt.NDArray[np.int8] = tl.add(x, 1)          # int8 + weak Python int stays int8
    return res


uf: np.ufunc = tl.multiply
assert isinstance(tl.true_divide, np.ufunc) and tl.mod.nin == 2
dt: np.dtype[Any] = tl.promote_types("uint8", np.int8)       # int16
rt = tl.result_type(np.int8, 1.0)
rt_weak, is_weak = tl.result_type(np.int8, 1.0, return_weak_type_flag=True)
flag: bool = is_weak
name: str = tl.join("int8", "uint8", rules="jax")
rules: tl.CompiledRules = tl.get_rules("jax")
types: tuple[str, ...] = rules.types
ufuncs: dict[str, np.ufunc] = tl.make_ufuncs("jax32")
names: tuple[str, ...] = tl.UFUNC_NAMES
version: str = tl.__version__

user = tl.lattice({"a": ["b"], "b": []}, name="mine")
report: tl.CheckReport = user.check()
ok: bool = report.ok
edges: dict[str, tuple[str, ...]] = user.edges
table: tl.TableRules = tl.promotion_table({("a", "a"): "a"}, name="t")
compiled: tl.CompiledRules = tl.compile_rules(user)
w: tl.WeakArray = tl.weak(np.float32(2.5))
strong_w: np.ndarray = tl.strong(w)
print(tl.is_weak(w), scaled(np.arange(3, dtype=np.int8)), dt, rt, rt_weak, flag, name, types,
      ufuncs["add"], names, version, ok, edges, table, compiled, strong_w, uf)

try:
    tl.promote_types("uint64", "int64", rules="array_api")      # no promotion there
except TypePromotionError as e:
    ops: tuple[object, ...] = e.operands
    print(ops)
