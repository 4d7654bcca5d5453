"""Every cell of every reference table (tests/reference/*.json, copied from the source documents)
against the built-in rule sets: through the public API (typelattice.join, promote_types) and
through the compiled C tables. Expected values come from the JSON files only."""
import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import typelattice as tl
from typelattice._dtypes import dtype_of
from typelattice._names import FROM_SHORT
from typelattice.rules import builtin
from typelattice.rules import kernel_float as kf_module
from typelattice.rules import max as max_module

REF = Path(__file__).parent / "reference"

# The reference tables' spelling -> canonical names (FROM_SHORT plus each system's extras).
NAMES = dict(FROM_SHORT, index="index", address="address", tf32="tensor_float32",
             f8=kf_module.F8)


def ref(name):
    with open(REF / name) as f:
        return json.load(f)


def canon(t):
    return None if t is None else NAMES[t]


def cells(data, rows=None, cols=None):
    """(row, col, expected) in canonical names for every cell of a reference table."""
    table = data["table"]
    for r in rows or table:
        for c in cols or table[r]:
            yield canon(r), canon(c), canon(table[r][c])


def public_join(a, b, rules):
    try:
        return tl.join(a, b, rules=rules)
    except tl.TypePromotionError:
        return None


def compiled_join(a, b, rules):
    r = tl.get_rules(rules)
    return r.table()[r.index[a]][r.index[b]]


# (reference file, rule set): tables the rule set reproduces exactly, cell for cell.
EXACT = [
    ("jax_doc_jax_numpy.json", "jax"),
    ("jax_doc_python_scalars.json", "jax"),
    ("jax_doc_jax_lax.json", "jax_lax"),
    ("jax_doc_numpy.json", "numpy"),
    ("jax_doc_pytorch.json", "torch"),
    ("jax_doc_tensorflow.json", "tensorflow"),
    ("array_api_minimal_float.json", "array_api"),
    ("array_api_minimal_unsigned.json", "array_api"),
    ("array_api_minimal_signed.json", "array_api"),
    ("array_api_minimal_combined.json", "array_api"),
    ("array_api_minimal_mixed_signed_unsigned.json", "array_api"),
    ("anvil_common_dtype_known.json", "anvil"),
    ("kernel_float.json", "kernel_float"),
]


@pytest.mark.parametrize("path,rules", EXACT, ids=[f"{r}:{p}" for p, r in EXACT])
@pytest.mark.parametrize("via", ["public", "compiled"])
def test_reference_table(path, rules, via):
    data = ref(path)
    get = public_join if via == "public" else compiled_join
    bad = [(a, b, want, get(a, b, rules)) for a, b, want in cells(data)
           if get(a, b, rules) != want]
    assert not bad, f"{len(bad)} cells differ (a, b, reference, ours): {bad[:10]}"
    assert data["cell_count"] == sum(1 for _ in cells(data))


def test_array_api_mixed_table_both_orders():
    data = ref("array_api_minimal_mixed_signed_unsigned.json")
    assert data["symmetric_expected"]
    for a, b, want in cells(data):
        assert tl.join(b, a, rules="array_api") == want


@pytest.mark.parametrize("path,rules", EXACT, ids=[f"{r}:{p}" for p, r in EXACT])
def test_reference_promote_types(path, rules):
    """promote_types gives the NumPy dtype of every defined cell (weak results materialized)."""
    data = ref(path)
    rs = builtin()[rules]
    for a, b, want in cells(data):
        if want is None:
            with pytest.raises(tl.TypePromotionError):
                tl.promote_types(a, b, rules=rules)
            continue
        concrete, _ = rs.materialize(want)
        assert tl.promote_types(a, b, rules=rules) == dtype_of(concrete), (a, b)


def test_reference_symmetry_matches_check():
    """Each reference file's own symmetry verdict agrees with our check()."""
    for path, rules in EXACT:
        data = ref(path)
        if "symmetry_check" not in data:
            continue
        ours = {frozenset((a, b)) for a, b, *_ in builtin()[rules].check().asymmetric
                if a in _types(data) and b in _types(data)}
        theirs = {frozenset((canon(p["a"]), canon(p["b"])))
                  for p in data["symmetry_check"]["asymmetric_pairs"]}
        assert ours == theirs, path


def _types(data):
    return {canon(t) for t in data["types"]}


# -- JAX ------------------------------------------------------------------------------------------
def test_jax_lattice_edges():
    data = ref("jax_lattice.json")
    want = {(canon(a), canon(b)) for a, b in data["edges"] + [data["implied_missing_edge"]]}
    jax = builtin()["jax"]
    core = set(_types({"types": data["nodes"]})) | {"bool"}
    ours = {(a, b) for a, b in jax.hasse() if a in core and b in core}
    assert ours == want


def test_jax_strict_only_weak_types_promote():
    """jax_strict: a pair promotes only when the types are equal, both weak, or a weak type meets
    a concrete type (not bool) that the jax.numpy table already gives as the result (the weak
    operand adopts the concrete type); then the result is the jax.numpy cell. Others raise."""
    data = ref("jax_doc_jax_numpy.json")
    weak = {"i*", "f*", "c*"}
    for a, b, want in cells(data):
        strict = public_join(a, b, "jax_strict")
        allowed = (a == b or (a in weak and b in weak)
                   or (a in weak and b != "bool" and want == b)
                   or (b in weak and a != "bool" and want == a))
        assert strict == (want if allowed else None), (a, b)


# -- anvil ----------------------------------------------------------------------------------------
def test_anvil_ambiguous_x_known():
    data = ref("anvil_common_dtype_ambiguous_x_known.json")
    anvil = builtin()["anvil"]
    for amb, known, want in cells(data):
        for res in (tl.join(amb + "?", known, rules="anvil"),
                    tl.join(known, amb + "?", rules="anvil")):
            assert anvil.materialize(res)[0] == want, (amb, known, res)


def test_anvil_literal_defaults():
    data = ref("anvil_common_dtype_ambiguous_x_known.json")
    kinds = {"integer": 1, "double": 1.0, "logical": True}
    for what, short in data["literal_default_types"].items():
        value = kinds[what.split()[0]]
        name = tl.get_rules("anvil").name_of(value)
        assert name == canon(short) + "?"            # ambiguous
        assert tl.result_type(value, rules="anvil", return_weak_type_flag=True) == (
            dtype_of(canon(short)), True)


def test_anvil_common_dtype_examples():
    data = ref("anvil_common_dtype_ambiguous_x_known.json")
    for ex in data["examples"]:
        m = re.fullmatch(r"common_dtype\('(\w+)','(\w+)'(?:,(TRUE|FALSE),(TRUE|FALSE))?\)",
                         ex["call"])
        a, b, amb_a, amb_b = m.groups()
        a = canon(a) + ("?" if amb_a == "TRUE" else "")
        b = canon(b) + ("?" if amb_b == "TRUE" else "")
        res = tl.join(a, b, rules="anvil")
        concrete, ambiguous = builtin()["anvil"].materialize(res)
        assert concrete == canon(ex["dtype"]), ex
        if "ambiguous" in ex:
            assert ambiguous == ex["ambiguous"], ex


def test_anvil_propagation_example():
    """(bool_tensor + 1L) * i16_tensor gives i16, step by step as the reference lists it."""
    data = ref("anvil_common_dtype_ambiguous_x_known.json")["ambiguity_propagation_example"]
    step1, step2 = data["steps"]
    z = tl.join("bool", 1, rules="anvil")               # x + 1L
    assert z == canon(step1["result"].split()[0]) + "?"  # 'i32 (ambiguous, ...)' -> int32?
    out = tl.join(z, "int16", rules="anvil")             # z * y
    assert out == canon(data["output_dtype"])
    assert tl.result_type(np.bool_(True), 1, np.int16(2), rules="anvil") == np.dtype(
        dtype_of(canon(data["output_dtype"])))
    # Without propagation (z known) the result would be the reference's 'without_propagation'.
    known_z = builtin()["anvil"].materialize(z)[0]
    assert tl.join(known_z, "int16", rules="anvil") == canon(data["without_propagation"].split()[0])


# -- Mojo MAX -------------------------------------------------------------------------------------
def test_max_lattice_vs_documented_table():
    data = ref("mojo_max_type_promotion.json")
    anomalies = {(canon(d["a"]), canon(d["b"])): (canon(d["table"]), canon(d["semilattice_join"]))
                 for d in data["table_vs_source_semilattice"]}
    assert len(anomalies) == 4
    for a, b, want in cells(data):
        ours = tl.join(a, b, rules="max")
        if (a, b) in anomalies:
            assert want == anomalies[(a, b)][0]
            assert ours == anomalies[(a, b)][1] == tl.join(b, a, rules="max")
        else:
            assert ours == want == compiled_join(a, b, "max"), (a, b)
    # The documented table, reproduced with its 4 anomalies, is the reference exactly.
    doc = max_module.documented()
    assert all(doc.join(a, b) == want for a, b, want in cells(data))


def test_max_source_semilattice():
    data = ref("mojo_max_type_promotion.json")
    want = {(canon(a), canon(b)) for a, succ in data["source_semilattice_edges"].items()
            for b in succ}
    assert set(builtin()["max"].hasse()) == want


def test_max_check_reports_documented_anomalies():
    data = ref("mojo_max_type_promotion.json")
    rs = builtin()["max"]
    assert rs.check().kind == "lattice"
    doc = max_module.documented().check()
    assert {frozenset(x[:2]) for x in doc.asymmetric} == {
        frozenset((canon(p["a"]), canon(p["b"]))) for p in data["symmetry_check"]["asymmetric_pairs"]}
    count = doc.counts["non-associative triples ((a.b).c != a.(b.c))"]
    assert count == data["associativity_check"]["non_associative_triples_count"]
    first = data["associativity_check"]["examples"]
    ours = {tuple(x) for x in max_module.documented().check(limit=1000).non_associative}
    assert {tuple(canon(t) for t in ex) for ex in first} <= ours
    notes = "\n".join(rs.check_notes())
    for p in data["symmetry_check"]["asymmetric_pairs"]:
        assert f"{canon(p['a'])}.{canon(p['b'])}: documented {canon(p['a_op_b'])}" in notes
    assert f"non-associative triples ((a.b).c != a.(b.c)): {count}" in notes


def test_max_table_level_types():
    assert tl.join("float32", "tensor_float32", rules="max") == "tensor_float32"
    with pytest.raises(TypeError, match="no NumPy dtype"):
        tl.promote_types("float32", "tensor_float32", rules="max")
    # index and address behave as uint64, and nothing promotes to them.
    assert tl.promote_types("index", "index", rules="max") == np.dtype("uint64")
    assert tl.join("index", "address", rules="max") == "uint64"
    assert all(tl.join(t, "index", rules="max") in ("index", "uint64", "float16", "bfloat16",
                                                    "float32", "tensor_float32", "float64")
               for t in builtin()["max"].types)
    assert [a for a, b in builtin()["max"].hasse() if b in ("index", "address")] == []


# -- counterexamples named by the issue ----------------------------------------------------------
def test_numpy_not_a_lattice_int8_uint8_float16():
    data = ref("jax_doc_numpy.json")
    rep = builtin()["numpy"].check(limit=10000)
    assert rep.kind == "not a lattice"
    triples = {tuple(x[:3]): x[3:] for x in rep.non_associative}
    assert ("int8", "uint8", "float16") in triples
    ex = [tuple(canon(t) for t in e) for e in data["associativity_check"]["examples"]]
    for e in ex:
        assert triples[e[:3]] == e[3:]


def test_tensorflow_asymmetric():
    rep = builtin()["tensorflow"].check()
    assert rep.kind == "not a lattice"
    assert ("complex64", "f*", "complex64", None) in rep.asymmetric


def test_array_api_and_kernel_float_verdicts():
    rep = builtin()["array_api"].check(limit=10000)
    assert rep.kind == "not a lattice"
    assert ("int64", "int32", "uint8", None, "int64") in rep.non_associative
    rep = builtin()["kernel_float"].check(limit=10000)
    assert rep.kind == "not a lattice"
    assert ("int8", "uint8", kf_module.F8, None, kf_module.F8) in rep.non_associative


@pytest.mark.parametrize("rules,kind", [
    ("jax", "partial lattice"), ("jax32", "partial lattice"), ("jax_strict", "partial lattice"),
    ("jax_lax", "not a lattice"), ("numpy", "not a lattice"), ("torch", "not a lattice"),
    ("tensorflow", "not a lattice"), ("array_api", "not a lattice"), ("anvil", "lattice"),
    ("max", "lattice"), ("kernel_float", "not a lattice")])
def test_verdicts(rules, kind):
    rep = builtin()[rules].check(limit=0)
    assert rep.kind == kind
    assert tl.get_rules(rules).is_lattice == (kind != "not a lattice")


def test_every_builtin_is_compiled():
    assert set(tl.BUILTIN_RULES) == set(builtin())
    for name, rs in builtin().items():
        assert tl.get_rules(name).table() == [[rs.join(a, b) for b in rs.types] for a in rs.types]


def test_lattice_tables_become_hasse_diagrams():
    """A table rule set that is a lattice turns into its Hasse diagram with the same joins."""
    from typelattice._lattice import LatticeError, TableRules
    jax = builtin()["jax"]
    T = [t for t in jax.types if t in NAMES.values()]
    table = TableRules("t", T, {(a, b): jax.join(a, b) for a in T for b in T})
    lat = table.as_lattice()
    assert set(lat.hasse()) == {(a, b) for a, b in jax.hasse() if a in T and b in T}
    assert all(lat.join(a, b) == jax.join(a, b) for a in T for b in T)
    with pytest.raises(LatticeError, match="not a lattice"):
        builtin()["numpy"].as_lattice()


def test_python_scalars_per_rule_set():
    assert tl.promote_types(int, "int8", rules="jax_strict") == np.dtype("int8")
    with pytest.raises(tl.TypePromotionError):
        tl.promote_types(bool, int, rules="jax_strict")
    with pytest.raises(tl.TypePromotionError, match="no Python int"):
        tl.result_type(np.int8(1), 1, rules="array_api")
    with pytest.raises(tl.TypePromotionError, match="no Python float"):
        tl.result_type(np.float32(1), 1.0, rules="kernel_float")
    assert tl.result_type(1.0, rules="torch") == np.dtype("float32")
    assert tl.result_type(1, rules="tensorflow") == np.dtype("int32")


def test_ufunc_errors_for_types_a_rule_set_lacks():
    """A ufunc of a rule set without Python scalar types (array_api, max, kernel_float) or
    without the operand's dtype (float16 under anvil) raises TypePromotionError itself, naming
    both operands, the rule set and the call, as result_type does; every call, not only the
    first; where the rule set has the types, the same ufuncs compute."""
    cases = [("array_api", np.int8([1]), 1, "('int8', 'Python int')", "no Python int"),
             ("max", 2, np.int8([1]), "('Python int', 'int8')", "no Python int"),
             ("kernel_float", np.int8([1]), 2.5, "('int8', 'Python float')", "no Python float"),
             ("anvil", np.float16([1]), np.int8([1]), "('float16', 'int8')",
              "float16 is not a type of rule set 'anvil'")]
    for rules, a, b, ops, why in cases:
        uf = tl.make_ufuncs(rules)["multiply"]
        with pytest.raises(tl.TypePromotionError) as e:
            tl.result_type(a, b, rules=rules)
        assert why in str(e.value)
        for _ in range(2):
            with pytest.raises(tl.TypePromotionError) as e:
                uf(a, b)
            msg = str(e.value)
            assert ops in msg and f"rule set {rules!r}" in msg and why in msg, msg
            assert f"(in {rules}.multiply)" in msg and "astype('Python" not in msg, msg
    anvil = tl.make_ufuncs("anvil")
    half = np.float16([1, 2])
    for call, ops in ((lambda: anvil["add"].reduce(half), "('float16', 'float16')"),
                      (lambda: anvil["add"].accumulate(half), "('float16', 'float16')"),
                      (lambda: anvil["sqrt"](half), "('float16')"),
                      (lambda: anvil["frexp"](half), "('float16')")):
        with pytest.raises(tl.TypePromotionError) as e:
            call()
        # anvil has no float16: the suggested cast is a float type it has
        assert ops in str(e.value) and "x.astype('float32')" in str(e.value), str(e.value)
    assert tl.make_ufuncs("max")["add"](np.int8([1]), np.uint8([1])).dtype == np.int16
    assert tl.make_ufuncs("anvil")["add"](np.int8([1]), 1).dtype == np.int8


def test_logical_reductions_under_a_rule_set_without_bool():
    """array_api has no bool type (its tables do not name it): a logical reduction, which
    combines bool truth values, raises naming the call, the operand's type and the rule set
    (it named a ('bool', 'bool') pair the user never wrote, and suggested casting to bool);
    dtype=bool names bool and the operand, suggests a type of the rule set; the plain call of
    two arrays still computes, before and after, bit for bit NumPy's logical_or, and a plain
    call with dtype=int8 gives the same error before and after (the reduction's error, on an
    error loop of the (int8, int8) DTypes, was that call's too)."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        uf, y = tl.make_ufuncs("array_api")["logical_or"], np.array([0, 2, 0], np.int8)
        if sys.argv[1] == "reduce-first":
            try:
                uf.reduce(y)
            except TypeError:
                pass
        try:
            uf(y, y, dtype=np.int8)
        except TypeError as e:
            print(type(e).__name__, str(e))
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True,
                           text=True, check=True).stdout for order in ("fresh", "reduce-first")]
    assert outs[0] == outs[1] and "logical reduction" not in outs[0], outs
    uf = tl.make_ufuncs("array_api")["logical_or"]
    x = np.array([0, 2, 0], np.int8)
    for method in ("reduce", "accumulate"):
        with pytest.raises(TypeError) as e:
            getattr(uf, method)(x)
        msg = str(e.value)
        assert "array_api.logical_or.reduce/accumulate(int8 array)" in msg, msg
        assert "bool is not a type of rule set 'array_api'" in msg and "'bool', 'bool'" not in msg
        assert np.array_equal(uf(x, x), np.logical_or(x, x))
    for kwargs in ({"dtype": bool}, {"out": np.zeros((), bool)}):
        with pytest.raises(tl.TypePromotionError) as e:
            uf.reduce(x, **kwargs)
        msg = str(e.value)
        assert "('bool', 'int8')" in msg and "bool is not a type of rule set 'array_api'" in msg
        assert "astype('bool')" not in msg, msg
    assert x.tolist() == [0, 2, 0]
    # a type of the rule set's own for the bool of an arithmetic call
    with pytest.raises(tl.TypePromotionError, match=r"x\.astype\('uint8'\)"):
        tl.make_ufuncs("array_api")["add"](np.ones(2, bool), np.ones(2, bool))


def test_messages_name_a_byte_swapped_operand_by_its_type():
    """A byte-swapped array is named by its type ('int16 array', as a native one), not by its
    dtype code ('>i2 array'), in every message that names operands."""
    x = np.arange(3, dtype=">i2")
    calls = [(lambda: tl.add(x, 10**6), OverflowError, "jax.add(int16 array, Python int"),
             (lambda: tl.make_ufuncs("numpy")["less"].accumulate(x), TypeError,
              "numpy.less.accumulate(int16 array): each step gives a bool, not an int16"),
             (lambda: tl.result_type(np.zeros(2, ">U3"), x), TypeError,
              "result_type(<U3 array, int16 array)"),
             (lambda: tl.promote_types(np.dtype(">M8[s]"), x.dtype), TypeError,
              "promote_types(datetime64[s], int16)")]
    for call, kind, want in calls:
        with pytest.raises(kind) as e:
            call()
        assert want in str(e.value) and ">i2" not in str(e.value), str(e.value)
    assert x.tolist() == [0, 1, 2] and x.dtype == np.dtype(">i2")


@pytest.mark.parametrize("rules,op,x,dtype", [
    ("anvil", "sqrt", np.array([2.0]), "complex64"),
    ("max", "negative", np.array([2.0]), "complex128"),
    ("anvil", "floor", np.array([2.0], np.float32), "float16")])
def test_dtype_naming_a_type_the_rule_set_lacks(rules, op, x, dtype):
    """dtype= a type the rule set does not have (result_type raises for it): a
    TypePromotionError naming the call, the type and the rule set (not a promotion path of the
    operands, which have one), on every call (the first one raised
    NumPy's "already registered", from an error loop for the operand's own DTypes, which have a
    real loop; later NumPy's generic no-loop error); the plain call then computes as NumPy
    does."""
    with pytest.raises(tl.TypePromotionError):
        tl.result_type(dtype, rules=rules)
    uf = tl.make_ufuncs(rules)[op]
    for _ in range(2):
        with pytest.raises(tl.TypePromotionError) as exc:
            uf(x, dtype=dtype)
        msg = str(exc.value)
        assert "registered" not in msg and "promotion path" not in msg, msg
        assert msg.startswith(f"{rules}.{op}: ") and \
            f"{dtype} is not a type of rule set {rules!r}, which dtype=" in msg, msg
        assert str(pickle.loads(pickle.dumps(exc.value))) == msg
    np.testing.assert_array_equal(uf(x), getattr(np, op)(x))


def test_python_int_calls_register_no_loop_for_strong_pairs():
    """A call with a Python int registers a mixed loop reading its array and the int taken as
    the loop type; NumPy later finds that loop for two arrays of those types before any
    promoter. Under "numpy", int32 / Python int is float32 but int32 / float32 is float64
    (promote_types); under jax_lax float64 / int64 does not promote. In a fresh process, each
    order of calls gives the answer of a fresh call."""
    code = """
import numpy as np, typelattice as tl
u, lax = tl.make_ufuncs("numpy"), tl.make_ufuncs("jax_lax")
i32, i64, f64 = np.arange(1, 4, dtype=np.int32), np.arange(1, 4), np.ones(3)
assert u["divide"](i32, 3).dtype == np.float32
got = u["divide"](i32, np.array([3.0], np.float32))
assert got.dtype == tl.promote_types("int32", "float32", rules="numpy") == np.float64, got
assert lax["divide"](7, i64).dtype == np.float64
try:
    lax["divide"](f64, i64)
    raise SystemExit("jax_lax float64 / int64 promoted")
except tl.TypePromotionError:
    pass
print("ok")
"""
    failed_first = """
import numpy as np, typelattice as tl
lax, i64, f64 = tl.make_ufuncs("jax_lax"), np.arange(1, 4), np.ones(3)
for name in ("divide", "heaviside"):
    try:
        lax[name](f64, i64)
        raise SystemExit(name)
    except tl.TypePromotionError:
        pass
    assert lax[name](7, i64).dtype == np.float64, name   # (NumPy said 'already registered')
print("ok")
"""
    for src in (code, failed_first):
        out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_kernel_float_float8_with_float16():
    """kernel_float.json: f8 with float16 is float16. ml_dtypes registers float8_e4m3fn ->
    float16 as an unsafe cast (it is exact), which NumPy's same_kind check refused: the loop
    converts the float8 operand itself. Values: NumPy's op on both operands cast to float16,
    in either order, strided and broadcast."""
    import ml_dtypes
    from conftest import reference_cells
    cells = {(a, b): c for a, b, c in reference_cells("kernel_float.json")}
    assert cells[("f8", "float16")] == cells[("float16", "f8")] == "float16"
    U = tl.make_ufuncs("kernel_float")
    a = np.array([1, 2, -448, 2**-9, np.nan, 3, 0.5, -0.0], ml_dtypes.float8_e4m3fn)
    b = np.array([3, 4, 1.5, 1e-4, 1, 2, -7, 65504], np.float16)
    for name in ("add", "multiply", "maximum", "less", "divide", "hypot"):
        for x, y in ((a, b), (b, a), (a[::-2], b[::2]), (a, b[3])):
            with np.errstate(all="ignore"):
                got = U[name](x, y)
                want = getattr(np, name)(np.asarray(x).astype(np.float16),
                                         np.asarray(y).astype(np.float16))
            assert got.dtype == want.dtype, (name, got.dtype)
            np.testing.assert_array_equal(got, want)


def test_a_large_python_int_of_a_pair_that_does_not_promote():
    """A Python int with an array its weak type does not join (the tensorflow table has no
    i* + int8 cell; max has no Python int): the rule set's TypePromotionError whatever the int's
    size, not NumPy's OverflowError from converting it first."""
    from conftest import reference_cells
    cells = {(a, b): c for a, b, c in reference_cells("jax_doc_tensorflow.json")}
    assert cells[("i*", "int8")] is None
    tf, mx = tl.make_ufuncs("tensorflow"), tl.make_ufuncs("max")
    for call in (lambda v: tf["add"](v, np.ones(2, np.int8)),
                 lambda v: mx["add"](np.ones(2, np.int16), v)):
        for v in (5, 2**40, 2**63, -2**70):
            with pytest.raises(tl.TypePromotionError, match="rule set '(tensorflow|max)'"):
                call(v)


@pytest.mark.parametrize("rules,op,dtype", [
    ("anvil", "sqrt", "float16"), ("anvil", "negative", "complex64"),
    ("max", "negative", "complex64"), ("kernel_float", "negative", "complex128")])
def test_unary_error_on_a_scalar_after_the_array_call(rules, op, dtype):
    """A unary op of a type the rule set lacks (result_type says so) raises on a NumPy scalar
    and a 0-d array too, in any order: NumPy's scalar fast path runs the loop it cached for the
    array call without its resolve_descriptors, so the error loop's getter raises as well (it
    returned uninitialised memory: sqrt(np.float16(1.5)) gave -14.375 under anvil)."""
    with pytest.raises(tl.TypePromotionError, match="not a type of rule set"):
        tl.result_type(dtype, rules=rules)
    uf = tl.make_ufuncs(rules)[op]
    for x in (np.ones(3, dtype), np.dtype(dtype).type(2), np.ones((), dtype),
              np.dtype(dtype).type(2)):
        with pytest.raises(tl.TypePromotionError, match=f"rule set {rules!r}"):
            uf(x)


def test_promotion_error_suggests_a_cast_that_loses_nothing():
    """The suggested explicit cast holds both operands where one type can: int8 and uint8 in
    int16, bfloat16 and float16 in float32."""
    for a, b, want in (("int8", "uint8", "int16"), ("uint16", "int32", "int32"),
                       ("bfloat16", "float16", "float32"), ("int8", "float16", "float16")):
        with pytest.raises(tl.TypePromotionError, match=rf"x\.astype\('{want}'\)"):
            tl.promote_types(a, b, rules="jax_strict")


def test_the_suggested_cast_does_not_depend_on_the_order_of_the_rule_sets_types():
    """Where the rule set lacks the operand's type (float8 under numpy/torch), the suggestion is
    its next wider type of the same kind: of float16 and bfloat16, float16, whatever order the
    set of types iterates in (it followed PYTHONHASHSEED)."""
    from typelattice._errors import _suggest
    types = list(tl.get_rules("numpy").types)
    for order in map(tuple, (types, types[::-1], sorted(types), sorted(types, reverse=True))):
        assert _suggest(("float8_e4m3fn",), order) == "float16", order
        assert _suggest(("float4_e2m1fn", "float8_e5m2"), order) == "float16", order


def test_jax_weak_flag_matches_the_reference():
    """A cell printed as i*/f*/c* in the jax.numpy table is a weak result; others are strong."""
    data = ref("jax_doc_jax_numpy.json")
    for a, b, want in cells(data):
        dt, weak = tl.result_type(a, b, return_weak_type_flag=True)
        assert weak == (want in ("i*", "f*", "c*")), (a, b)


def test_associativity_counts_match_the_reference():
    """The reference files count non-associative triples over defined cells only: our count of
    triples with both groupings defined agrees wherever the rule set has exactly the file's types."""
    from typelattice._lattice import BOTH_DEFINED
    checked = 0
    for path, rules in EXACT:
        data = ref(path)
        rs = builtin()[rules]
        if "associativity_check" not in data or _types(data) != set(rs.types):
            continue
        rep = rs.check(limit=0)
        assert rep.counts[BOTH_DEFINED] == data["associativity_check"][
            "non_associative_triples_count"], path
        checked += 1
    assert checked >= 5


def test_a_dtype_the_rule_set_lacks_leaves_plain_calls_alone():
    """numpy/torch have no int4 or float8: a call with dtype=int4 fails, and it registered an
    error loop under the operands' DTypes, which NumPy then found for every plain call of them
    (add(uint32_array, 200) raised for the rest of the process). Reference: the same plain calls
    in a fresh process without the failed ones."""
    code = """if 1:
        import sys, numpy as np, ml_dtypes, typelattice as tl
        U = tl.make_ufuncs("numpy")
        a = np.array([7, 100], np.uint32)
        if sys.argv[1] == "fail-first":
            for dt in (ml_dtypes.int4, ml_dtypes.float8_e4m3fn):
                for call in (lambda: U["add"](a, 200, dtype=dt), lambda: U["sqrt"](a, dtype=dt)):
                    try:
                        call()
                        print("computed")
                    except TypeError:
                        pass
        print(U["add"](a, 200).tolist(), U["sqrt"](a).tolist(), U["sqrt"](a).dtype)
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout for order in ("fail-first", "plain")]
    assert outs[0] == outs[1] and outs[1].startswith("[207, 300]"), outs


def test_every_built_in_ufunc_object_has_an_error_loop_slot():
    """A TypePromotionError reaches the caller through an error loop, one slot per ufunc
    object; past the last slot NumPy's generic no-loop error was raised (512 slots, 935 built-in
    ufunc objects: after failing calls in most of them, jax_lax.less(int32, uint8) lost its
    message). Reference: a fresh process's TypePromotionError for that call."""
    objects = {id(u) for r in tl.BUILTIN_RULES for u in tl.make_ufuncs(r).values()}
    assert len(objects) <= tl._ufuncs.ERROR_SLOTS
    code = """if True:
        import numpy as np, ml_dtypes as mld, typelattice as tl, warnings
        warnings.simplefilter("ignore")
        for rules in tl.BUILTIN_RULES:
            U = tl.make_ufuncs(rules)
            for name in sorted(set(tl.UFUNC_NAMES)):
                if (rules, name) == ("jax_lax", "less"):
                    continue
                f = U[name]
                for a in (mld.bfloat16, mld.int4, np.uint16, np.bool_, np.complex64):
                    for kw in ({}, {"dtype": mld.int2}):
                        try:
                            f(*[np.ones(3, a)] * f.nin, **kw)
                        except Exception:
                            pass
                if f.nin == 2:
                    try:
                        f(np.ones(3, np.int32), np.ones(3, np.uint8))
                    except Exception:
                        pass
        try:
            tl.make_ufuncs("jax_lax")["less"](np.ones(3, np.int32), np.ones(3, np.uint8))
        except Exception as e:
            print(type(e).__name__)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["TypePromotionError"], out


def test_a_missing_type_is_what_the_suggested_cast_replaces():
    """A reduction of a float64 array with dtype=bfloat16 under anvil (no bfloat16) suggested
    casting to float64, the operand's own type: the suggestion replaces the missing type (the
    float of anvil nearest bfloat16)."""
    with pytest.raises(tl.TypePromotionError) as e:
        tl.make_ufuncs("anvil")["minimum"].reduce(np.arange(3.0), dtype="bfloat16")
    msg = str(e.value)
    assert "bfloat16 is not a type of rule set 'anvil'" in msg and "x.astype('float32')" in msg


def test_no_suggested_cast_where_the_rule_set_has_no_type_of_the_kind():
    """max has no complex type: its error for exp(complex64) suggested x.astype('complex64')."""
    with pytest.raises(tl.TypePromotionError) as e:
        tl.make_ufuncs("max")["exp"](np.ones(2, np.complex64))
    msg = str(e.value)
    assert "astype" not in msg and "complex64 is not a type of rule set 'max'" in msg


def test_ufuncs_pickle_by_reference_under_every_protocol():
    """Protocols 0-3 store a ufunc named '<rules>.<op>' as getattr(namespace, op): the namespace
    went by value, holding the ufunc being pickled, and loading raised AttributeError. A fresh
    process finds a built-in rule set's namespace on first lookup."""
    ufs = [tl.add, tl.true_divide, tl.make_ufuncs("numpy")["divide"],
           tl.make_ufuncs("jax32")["sqrt"]]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(ufs, protocol=protocol))
        assert all(a is b for a, b in zip(back, ufs)), protocol
        payload = pickle.dumps(tl.make_ufuncs("torch")["multiply"], protocol=protocol)
        code = ("import pickle, sys, numpy as np\n"
                "uf = pickle.loads(sys.stdin.buffer.read())\n"
                "print(uf.__name__, uf(np.ones(2, np.uint8), np.ones(2, np.int8)).dtype)")
        out = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True,
                             check=True).stdout.decode().split()
        assert out == ["torch.multiply", str(np.promote_types(np.uint8, np.int8))], out


def test_set_default_rules():
    """promote_types/result_type/join and weak()/asarray() without rules= follow the default rule
    set (every cell of its reference table); the ufuncs keep jax's (jax's table); a weak array
    keeps the rule set it was made under after the default changes back."""
    torch_cells = {(a, b): c for a, b, c in cells(ref("jax_doc_pytorch.json"))}
    jax_cells = {(a, b): c for a, b, c in cells(ref("jax_doc_jax_numpy.json"))}
    prev = tl.set_default_rules("torch")
    try:
        assert tl.get_rules(prev) is tl.get_rules("jax")
        for (a, b), want in torch_cells.items():
            assert public_join(a, b, None) == want, (a, b)
            if want is not None and "*" not in a + b + want:
                assert tl.promote_types(a, b) == dtype_of(want), (a, b)
        assert tl.result_type(np.ones(2, np.int8), 1.0) == dtype_of(torch_cells["int8", "f*"])
        with pytest.warns(RuntimeWarning, match="overflow"):    # (README: NumPy's warning)
            w = tl.weak(np.asarray([1e300]))
        a = tl.asarray([1.5], "f*")
        assert tl.add(np.ones(2, np.int64), np.ones(2, np.float16)).dtype \
            == dtype_of(jax_cells["int64", "float16"])
    finally:
        assert tl.get_rules(tl.set_default_rules(prev)) is tl.get_rules("torch")
    # torch materializes f* as float32 (1e300 overflows), and keeps doing so
    assert w.dtype == a.dtype == np.float32 and np.isinf(w[0]) and repr(w).endswith("rules='torch')")
    assert (w + np.ones(1, np.uint8)).dtype == dtype_of(torch_cells["uint8", "f*"])
    assert tl.promote_types("int64", "float16") == dtype_of(jax_cells["int64", "float16"])
    with pytest.raises(Exception, match="unknown rule set"):
        tl.set_default_rules("no-such-rules")
    assert tl.promote_types("uint8", "int8") == np.int16


def test_suggested_cast_for_torchs_unsigned_types_is_a_signed_int():
    """torch has no arithmetic on uint16/32/64: the suggested cast for a pair of them is the
    narrowest signed int holding them, or int64 for uint64 (it was float32, which the bitwise
    ops refuse); the cast works, the call then computing as NumPy's on the cast operands."""
    uf = tl.make_ufuncs("torch")["bitwise_and"]
    for a, b, want in (("uint16", "uint16", "int32"), ("uint32", "uint32", "int64"),
                       ("uint16", "uint64", "int64"), ("bool", "uint64", "int64")):
        x, y = np.array([5, 6], a), np.array([3, 7], b)
        with pytest.raises(tl.TypePromotionError, match=rf"x\.astype\('{want}'\)"):
            uf(x, y)
        got = uf(x.astype(want), y.astype(want))
        assert got.dtype == want and np.array_equal(got, np.bitwise_and(x.astype(want),
                                                                        y.astype(want)))


def test_bool_dtype_of_a_comparison_under_a_rule_set_without_bool():
    """array_api has no bool type, but its comparisons give bool arrays: dtype=bool (or an
    output-fixing signature of bool), which asks for that, computes in a fresh process as after
    a plain call (it raised that bool is not a type of the rule set when first, and computed
    once NumPy's cache held the plain call's loop); a dtype=bool of an op that does not give
    bool still raises. Reference: NumPy's comparison of the operands in their join, float64."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        A = tl.make_ufuncs("array_api")
        x, y = np.array([0.5, -1.5, 2.0, 3.0], np.float16), np.full(4, -1.5)
        if sys.argv[1] == "after":
            A["greater"](x, y), A["logical_xor"](x, y)
        for name, kw in (("greater", {"dtype": bool}), ("logical_xor", {"dtype": bool}),
                         ("less_equal", {"signature": (None, None, bool)})):
            got = A[name](x, y, **kw)
            want = getattr(np, name)(x.astype(np.float64), y)
            assert got.dtype == bool and np.array_equal(got, want), (name, got, want)
        try:
            A["add"](x, y, dtype=bool)
        except tl.TypePromotionError as e:
            print("bool is not a type of rule set 'array_api'" in str(e))
    """
    for order in ("first", "after"):
        out = subprocess.run([sys.executable, "-c", code, order], capture_output=True,
                             text=True)
        assert out.returncode == 0 and out.stdout.split() == ["True"], (order, out.stderr)


_AT_OPS = ("add", "subtract", "multiply", "divide", "maximum", "fmin", "power", "arctan2",
           "bitwise_or", "left_shift", "logical_and", "ldexp", "gcd", "heaviside")


@pytest.mark.parametrize("rules", tl.BUILTIN_RULES)
def test_at_refuses_a_python_scalar_the_plain_call_refuses(rules):
    """uf.at(x, i, v) with a Python scalar v the plain call uf(x, v) refuses (array_api, max and
    kernel_float have no Python scalar types; a bool array and a Python int under max) raises
    that call's error and leaves x untouched (NumPy's at took v as a strong int64/float64 and
    cast the result into x: array_api's add.at(int8 array, i, 300) stored 44)."""
    ufs = tl.make_ufuncs(rules)
    names = [n for n in ("bool", "int8", "uint8", "int32", "int64", "uint64", "float16",
                         "float32", "float64", "complex64") if n in tl.get_rules(rules).types]
    for op in _AT_OPS:
        uf = ufs[op]
        for name in names:
            x = np.array([1, 0, 1], name)
            for v in (3, 300, 2.5, 1j):
                try:
                    uf(np.empty(0, name), v)
                except (TypeError, ValueError, OverflowError) as e:
                    want = type(e)
                else:
                    continue
                y = x.copy()
                with np.errstate(all="ignore"), pytest.raises(want):
                    uf.at(y, [0, 2], v)
                assert y.tobytes() == x.tobytes(), (rules, op, name, v)
