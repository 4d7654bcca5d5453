"""An independent model of jax.numpy's unary result dtypes (x64), for the unary ufunc tests.

Parsed from the "Unary ops" section of tests/reference/jax_ops_rules.md (each op's rule as JAX
was observed to apply it) and JAX's to-inexact table; it does not import typelattice's op
descriptions. expected(op, k) gives a tuple of result dtype names or an exception class.
"""
import re
from pathlib import Path

from ufunc_reference import KINDS, LONG, TO_INEXACT, kind

REF = Path(__file__).parent / "reference" / "jax_ops_rules.md"


def _parse():
    text = REF.read_text()
    sec = text.split("## Unary ops", 1)[1].split("\n## ", 1)[0]
    rules = {}
    for m in re.finditer(r"^- \*\*(\w+)\*\*( \[2 outputs\])?: (.*)$", sec, re.M):
        rules[m.group(1)] = (bool(m.group(2)), m.group(3))
    return rules


RULES = _parse()

_ERR = {"TypeError": TypeError, "ValueError": ValueError}


def _raises(text):
    """(set of operand kinds that raise, exception class) from 'raises for X / Y (Err)'."""
    m = re.search(r"raises for ([^()]+) \((\w+)\)", text)
    if not m:
        return set(), None
    kinds = set()
    for part in m.group(1).split("/"):
        part = part.strip()
        kinds |= {"bool": {"b"}, "float": {"bf16", "f16", "f32", "f64"},
                  "complex": {"c64", "c128"}, "f*": {"f*"}, "c*": {"c*"}}[part]
    return kinds, _ERR[m.group(2)]


def _inexact(k):
    return TO_INEXACT.get(k, k)


def _default_float(k):
    return k if kind(k) in "fc" else "f64"


def _real(k):
    return {"c64": "f32", "c128": "f64", "c*": "f*"}.get(k, k)


def expected(op, k):
    """Result dtype names of jnp.<op>(operand of kind k) (materialized), or an exception class."""
    two, text = RULES[op]
    bad, err = _raises(text)
    if k in bad:
        return err
    if two:
        if "mantissa" in text:
            return (LONG[_inexact(k)], "int32")
        assert text.startswith("to inexact"), text
        return (LONG[_inexact(k)],) * 2
    if text.startswith("to inexact"):
        return (LONG[_inexact(k)],)
    if text.startswith("bool/int -> default float"):
        return (LONG[_default_float(k)],)
    if text.startswith("bool output"):
        return ("bool",)
    if text.startswith("uint8 output"):
        return ("uint8",)
    if text.startswith("operand dtype, complex -> its real dtype"):
        return (LONG[_real(k)],)
    if text.startswith("same dtype (weak kept), except bool -> int32"):
        return ("int32",) if k == "b" else (LONG[k],)
    assert text.startswith("same dtype as the operand"), text
    return (LONG[k],)


def compute_dtype(op, k):
    """The dtype typelattice computes in (the NumPy reference is applied to the operand cast to
    it): the operand's own type for bool-output ops and absolute, else the first result's."""
    res = expected(op, k)
    two, text = RULES[op]
    if text.startswith(("bool output", "uint8 output", "operand dtype, complex")):
        return LONG[k]
    return res[0]


__all__ = ["RULES", "KINDS", "expected", "compute_dtype"]
