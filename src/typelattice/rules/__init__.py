"""Built-in rule sets: one small data module each. ``MODULES`` lists them in display order; each
module's ``RULES`` is a list of RuleSet objects."""
import importlib

MODULES = ("jax", "jax_strict", "jax_lax", "numpy", "torch", "tensorflow", "array_api",
           "anvil", "max", "kernel_float")

_registry = None


def builtin():
    """{name: RuleSet} of every built-in rule set, in display order."""
    global _registry
    if _registry is None:
        reg = {}
        for mod in MODULES:
            for rs in importlib.import_module(f"{__name__}.{mod}").RULES:
                reg[rs.name] = rs
        _registry = reg
    return _registry
