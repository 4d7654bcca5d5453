"""Exceptions."""
import numpy as np

__all__ = ["TypePromotionError"]


class TypePromotionError(np.exceptions.DTypePromotionError, ValueError):
    """No implicit promotion exists between the operand types under the active rule set.

    Why both a TypeError and a ValueError: NumPy reports failed promotion as
    ``numpy.exceptions.DTypePromotionError``, a TypeError (and a ufunc with no loop raises a
    TypeError), while JAX's ``TypePromotionError`` is a ValueError. Deriving from both lets code
    written against either library catch ours unchanged.
    """

    def __init__(self, operands, rules, hint=None):
        self.operands = tuple(operands)
        self.rules = rules
        ops = ", ".join(repr(o) for o in self.operands)
        target = _suggest(self.operands)
        msg = (f"Input dtypes ({ops}) have no available implicit dtype promotion path under "
               f"rule set {rules!r}. To avoid unintended promotion, cast explicitly, e.g. "
               f"x.astype({target!r})")
        if hint:
            msg += f". {hint}"
        super().__init__(msg)

    def __reduce__(self):
        return (type(self), (self.operands, self.rules))


def _suggest(names):
    """A plausible explicit cast target: the widest of the operand types, preferring floats."""
    def rank(n):
        k = {"c": 4, "f": 3, "i": 2, "u": 1}.get(n[:1] if n[:1] in "cfiu" else "", 0)
        if n.startswith("b") and n != "bool":
            k = 3
        digits = "".join(ch for ch in n.split("_")[0] if ch.isdigit())
        return (k, int(digits) if digits else 0)
    concrete = [n for n in names if not n.endswith("*")]
    return max(concrete or ["float32"], key=rank)
