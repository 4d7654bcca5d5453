"""Signatures the CUDA tests compile: every (op, loop dtype) kernel, every inline conversion.

Built from the CPU ufuncs' own resolution (typelattice.cuda.resolve), so a change of rule or op
description changes what is compiled and checked.
"""
import itertools

from typelattice._cuda_codegen import TYPES, Signature
from typelattice._ops import OPS

BINARY = [op for op in OPS if op.nin == 2]


def dtype(name):
    from typelattice.cuda import cg_dtype
    return cg_dtype(name)


def _resolve(opname, t1, t2):
    from typelattice.cuda import resolve
    try:
        return resolve(opname, t1, t2)
    except (TypeError, ValueError, LookupError):
        return None


def homogeneous():
    """(op, T, T) with array operands for every op and dtype the op accepts."""
    sigs = []
    for op in BINARY:
        for t in TYPES:
            loop = _resolve(op.name, dtype(t), dtype(t))
            if loop is not None:
                sigs.append(Signature(op.name, (t, t), (False, False), loop))
    return sigs


def mixed(ops=("add", "less", "divmod", "ldexp")):
    """Every dtype pair the ops accept: covers every inline conversion the kernels contain."""
    sigs = []
    for name in ops:
        for a, b in itertools.product(TYPES, TYPES):
            if a == b:
                continue
            loop = _resolve(name, dtype(a), dtype(b))
            if loop is not None:
                sigs.append(Signature(name, (a, b), (False, False), loop))
    return sigs


def scalars():
    """A weak Python scalar on either side, for every dtype it can meet."""
    sigs = []
    for t in TYPES:
        for py in (int, float, complex):
            loop = _resolve("add", dtype(t), py)
            if loop is None:
                continue
            sigs.append(Signature("add", (t, loop[1]), (False, True), loop))
            loop2 = _resolve("subtract", py, dtype(t))
            if loop2 is not None:
                sigs.append(Signature("subtract", (loop2[0], t), (True, False), loop2))
    return sigs


def all_sigs():
    seen, out = set(), []
    for s in homogeneous() + mixed() + scalars():
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def sample():
    """A deterministic sample of all_sigs() for the default compile test (every op, every dtype,
    conversions from every dtype, scalars on both sides); TYPELATTICE_CUDA_COMPILE_ALL=1 compiles
    them all."""
    h = homogeneous()
    m_add = [s for s in mixed(("add",))]
    m_other = mixed(("less", "divmod", "ldexp"))
    sc = scalars()
    out = h[::7] + m_add[::9] + m_other[::25] + sc[::6]
    seen, res = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            res.append(s)
    return res
