"""Deliberate type errors: mypy must report each line marked 'E:'."""
import numpy as np

import typelattice as tl

s: str = tl.add                                   # E: a ufunc is not a str
dt: int = tl.promote_types("int8", "uint8")       # E: promote_types returns a dtype
tl.join("int8", rules=3.5)                        # E: rules is a name, RuleSet or CompiledRules
tl.no_such_ufunc(np.ones(2), 1)                   # E: not in the stubs
tl.make_ufuncs("jax")["add"].nosuchattr           # E: np.ufunc has no such attribute
