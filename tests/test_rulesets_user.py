"""User-defined rule sets through the Python API, and the build-time generator's failure mode."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import typelattice as tl
from typelattice._codegen import gen_tables
from typelattice._lattice import LatticeRules
from typelattice.rules import builtin
from typelattice.rules import jax as jax_module

TOY = {"bool": ["int8", "uint8"], "int8": ["int16"], "uint8": ["int16", "uint16"],
       "int16": ["float32"], "uint16": ["float32"]}


def test_lattice_dict_used_everywhere():
    r = tl.lattice(TOY, name="toy")
    assert r.check().kind == "lattice"
    assert tl.promote_types("int8", "uint8", rules=r) == np.int16
    assert tl.result_type(np.int8(1), np.uint16(1), rules=r) == np.float32
    assert tl.join("uint8", "uint16", rules=r) == "uint16"
    with pytest.raises(tl.TypePromotionError):
        tl.result_type(np.float64(1), np.int8(1), rules=r)        # float64 is not a type of toy
    c = tl.get_rules(r)
    assert c.table()[c.index["int8"]][c.index["uint8"]] == "int16"
    from typelattice._graph import to_svg
    assert "uint16" in to_svg(r)


def test_numpy_spellings_and_weak_defaults():
    r = tl.lattice({"bool": ["i*"], "i*": ["i1"], "i1": ["i8"], "f*": ["f8"], "i8": ["f*"]},
                   name="spelled")
    assert set(r.types) == {"bool", "i*", "int8", "int64", "f*", "float64"}
    assert r.weak == {"i*": "int64", "f*": "float64"}
    assert tl.result_type(1, np.int8(1), rules=r) == np.int8
    assert tl.result_type(1.0, rules=r) == np.float64


def test_own_types_and_storage():
    r = tl.lattice({"bool": ["index"], "index": ["uint64"]}, name="idx",
                   storage={"index": "uint64"})
    assert tl.promote_types("index", "index", rules=r) == np.uint64
    r2 = tl.lattice({"float32": ["tf32"], "tf32": ["float64"]}, name="tf")
    assert tl.join("float32", "tf32", rules=r2) == "tf32"
    with pytest.raises(TypeError, match="no NumPy dtype"):
        tl.promote_types("float32", "tf32", rules=r2)


def test_broken_lattices_raise_readable_errors():
    with pytest.raises(tl.LatticeError, match=r"\(int8, uint8\): minimal upper bounds"):
        tl.lattice({"int8": ["int16", "float16"], "uint8": ["int16", "float16"]}, name="b")
    with pytest.raises(tl.LatticeError, match="cycle in the lattice"):
        tl.lattice({"int8": ["int16"], "int16": ["int8"]})
    with pytest.raises(tl.LatticeError, match="weak type"):
        tl.lattice(TOY, weak={"i*": "int64"})
    with pytest.raises(tl.LatticeError, match="either 'edges'"):
        tl.rules_from_dict({"name": "x"})
    rs = tl.lattice({"int8": ["int16", "float16"], "uint8": ["int16", "float16"]},
                    validate=False)
    assert rs.check().multiple_lubs == [("int8", "uint8", ["int16", "float16"])]


def test_promotion_table_and_its_hasse_diagram():
    t = tl.promotion_table({"int8": {"int8": "int8", "int16": "int16"},
                            "int16": {"int8": "int16", "int16": "int16"}}, name="t")
    assert t.check().kind == "lattice"
    assert t.as_lattice().hasse() == [("int8", "int16")]
    asym = tl.promotion_table({("int8", "int16"): "int16", ("int16", "int8"): None,
                               ("int8", "int8"): "int8", ("int16", "int16"): "int16"})
    rep = asym.check()
    assert rep.kind == "not a lattice" and rep.asymmetric == [("int8", "int16", "int16", None)]
    with pytest.raises(tl.TypePromotionError):
        tl.promote_types("int16", "int8", rules=asym)
    assert tl.promote_types("int8", "int16", rules=asym) == np.int16


def test_load_json_and_toml(tmp_path):
    j = tmp_path / "r.json"
    j.write_text(json.dumps({"edges": TOY, "description": "toy"}))
    t = tmp_path / "r.toml"
    t.write_text("\n".join(["[edges]"] + [f'{k} = {json.dumps(v)}' for k, v in TOY.items()]))
    a, b = tl.load_rules(j), tl.load_rules(t)
    assert a.name == "r" and a.description == "toy"
    assert a.dense_table() == b.dense_table()
    assert tl.result_type(np.int8(1), np.uint8(1), rules=b) == np.int16


MINI = {"name": "a", "edges": {"int8": ["int16"]}}

# (a malformed rule-set dict, the documented error's message): a wrongly typed optional key
# raised AttributeError/TypeError; an empty rule set and non-string type names were accepted
MALFORMED = [
    (dict(MINI, weak="i*"), r"'weak' must be a mapping \{weak type: the type it materializes "
                            r"as\}.*got str 'i\*'"),
    (dict(MINI, weak={"i*": 5}), r"'weak'\['i\*'\] must be a type name"),
    (dict(MINI, types=5), r"'types' must be a list of type names, got int 5"),
    (dict(MINI, types="int8"), r"'types' must be a list of type names, got str"),
    (dict(MINI, types=["int8", None]), r"each entry of 'types' must be a type name"),
    (dict(MINI, nodes=5), r"'nodes' must be a list of type names"),
    (dict(MINI, storage=["index"]), r"'storage' must be a mapping \{type: NumPy dtype\}.*"
                                    r"got list \['index'\]"),
    (dict(MINI, python_scalars="i*"), r"'python_scalars' must be a mapping"),
    (dict(MINI, name=5), r"'name' must be a string, got int 5"),
    (dict(MINI, description=["x"]), r"'description' must be a string"),
    ({"edges": {}}, r"no types: 'edges' names none"),
    ({"edges": []}, r"no types: 'edges' names none"),
    ({"table": {}}, r"no types: 'table' names none"),
    ({"edges": {"int8": [1, None]}}, r"each successor of 'int8' in 'edges' must be a type name "
                                     r"\(a non-empty string\), got int 1"),
    ({"edges": {"int8": {"int16": 1}}}, r"successors of 'int8' must be a list of type names"),
    ({"edges": [["int8", None]]}, r"each end of an edge must be a type name"),
    ({"edges": ["ab"]}, r"each edge must be a \[from, to\] pair"),
    ({"edges": 5}, r"'edges' must be a mapping \{type: \[immediate successors\]\} or a list"),
    ({"table": {"int8": {"int8": 8}}}, r"table cell \(int8, int8\) must be a type name"),
    # NumPy's own dtypes: storage answered promote_types in int32 while the ufuncs computed in
    # int8; a weak int8 made every int8 array and scalar weak
    (dict(MINI, storage={"int8": "int32"}), r"storage 'int8' -> 'int32': storage is for types "
                                            r"of the rule set's own, and int8 is NumPy's dtype"),
    (dict(MINI, storage={"i1": "int32"}), r"storage 'int8' -> 'int32'"),
    (dict(MINI, weak={"int8": "int16"}), r"weak 'int8' -> 'int16': a weak type is a type of the "
                                         r"rule set's own"),
]


@pytest.mark.parametrize("data, message", MALFORMED,
                         ids=[json.dumps(d).replace('"name": "a", ', "")[:60]
                              for d, _ in MALFORMED])
def test_malformed_rule_set_dicts_raise_lattice_error(data, message):
    """Every malformed rule-set dict raises LatticeError (a ValueError) naming the key and what
    it takes, as a malformed 'table' does (README, "Your own rule set"): "weak": "i*" raised
    AttributeError, "types": 5 TypeError, {"edges": {}} gave a rule set of no types and
    [1, null] as successors types named "1" and "None"."""
    with pytest.raises(tl.LatticeError, match=message):
        tl.rules_from_dict(data)


def test_malformed_rule_set_files_name_the_file(tmp_path):
    f = tmp_path / "weak_str.json"
    f.write_text(json.dumps(dict(MINI, weak="i*")))
    with pytest.raises(tl.LatticeError, match=r"weak_str.json: rule set 'a': 'weak' must be"):
        tl.load_rules(f)
    f = tmp_path / "types.toml"
    f.write_text('types = 5\n[edges]\nint8 = ["int16"]\n')
    with pytest.raises(tl.LatticeError, match=r"rule set 'types': 'types' must be a list"):
        tl.load_rules(f)


def test_well_formed_optional_keys_still_load():
    """The shapes the format documents (and its lenient ones: a lone successor string, null
    successors or description, 'nodes' for 'types') load as before."""
    r = tl.rules_from_dict({"name": "ok", "edges": {"bool": ["i*"], "i*": "int8", "int8": None,
                                                   "index": []},
                            "types": ["int8"], "weak": {"i*": "int8"},
                            "python_scalars": {"int": "i*"}, "storage": {"index": "uint64"},
                            "description": None, "source": "s"})
    assert r.types == ("int8", "bool", "i*", "index") and r.weak == {"i*": "int8"}
    assert r.storage == {"index": "uint64"} and r.description == "user-defined lattice"
    assert tl.rules_from_dict({"nodes": ["b"], "edges": [["u8", "i16"]],
                               "spelling": "short"}).types == ("bool", "uint8", "int16")
    assert tl.rules_from_dict({"edges": {}, "types": ["int8"]}).types == ("int8",)


def test_too_many_types():
    edges = {f"t{i}": [f"t{i + 1}"] for i in range(130)}
    with pytest.raises(tl.LatticeError, match="at most 127"):
        tl.lattice(edges)


# -- build-time generator ------------------------------------------------------------------------
def broken_jax():
    edges = dict(jax_module.EDGES_X64)
    edges["int8"] = ["int16", "uint16"]          # int8 . uint8: int16 and uint16 both least
    j = jax_module.jax
    return LatticeRules("jax", edges, types=j.types, weak=j.weak, python_scalars=j.python_scalars)


def test_generator_verify_rejects_a_broken_lattice():
    assert gen_tables.verify(builtin(), out=io.StringIO())
    err = io.StringIO()
    assert not gen_tables.verify({"jax": broken_jax()}, out=err)
    assert "(uint8, int8): minimal upper bounds uint16, int16" in err.getvalue()


def test_generator_script_fails_the_build(tmp_path):
    """Run gen_tables.py as the build runs it, on a rule set with a broken edge."""
    codegen = Path(gen_tables.__file__).parent
    out = tmp_path / "_tables.h"
    script = f"""
import sys
sys.path.insert(0, {str(codegen)!r})
import _bootstrap
_bootstrap.install()
import gen_tables
from typelattice._lattice import LatticeRules
from typelattice.rules import jax as J
edges = dict(J.EDGES_X64)
edges["int8"] = ["int16", "uint16"]
broken = LatticeRules("jax", edges, types=J.jax.types, weak=J.jax.weak)
gen_tables.builtin = lambda: {{"jax": broken}}
sys.exit(gen_tables.main(["-o", {str(out)!r}]))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    assert "(uint8, int8): minimal upper bounds uint16, int16" in p.stderr
    assert not out.exists()
    # The unmodified rule sets generate a header.
    p = subprocess.run([sys.executable, str(codegen / "gen_tables.py"), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "tl_join_kernel_float" in out.read_text()


# -- the engine on random rule sets ---------------------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

from typelattice._graph import covering_edges  # noqa: E402


@st.composite
def dags(draw):
    n = draw(st.integers(2, 7))
    names = [f"t{i}" for i in range(n)]
    edges = {t: [] for t in names}
    for i in range(n):
        for j in range(i + 1, n):
            if draw(st.booleans()):
                edges[names[i]].append(names[j])
    return edges


@settings(max_examples=60, deadline=None)
@given(dags())
def test_random_lattices_are_checked_consistently(edges):
    rs = tl.lattice(edges, name="random", validate=False)
    report = rs.check(limit=None)
    assert report.ok == (not report.multiple_lubs)
    c = tl.compile_rules(rs)
    assert c.is_lattice == report.ok
    T = rs.types
    tab = c.table()
    assert tab == [[None if k < 0 else T[k] for k in row] for row in rs.dense_table()]
    idx = c.index
    for a in T:
        for b in T:
            x = tab[idx[a]][idx[b]]
            assert x == tab[idx[b]][idx[a]]                 # lattice rule sets are symmetric
            if report.ok:
                for d in T:
                    left = None if x is None else tab[idx[x]][idx[d]]
                    y = tab[idx[b]][idx[d]]
                    right = None if y is None else tab[idx[a]][idx[y]]
                    assert left == right
            if report.ok and x is not None:
                assert rs.join(a, b) == x
    if report.ok:
        # Round trip: the compiled table as a table rule set has the same Hasse diagram.
        table = tl.promotion_table({(a, b): tab[idx[a]][idx[b]] for a in T for b in T})
        assert set(table.as_lattice().hasse()) == set(covering_edges(rs))


def test_compiled_user_rule_set_pickles():
    import pickle
    import numpy as np
    rs = tl.lattice({"int8": ["int16"], "int16": ["float32"]}, name="toy")
    assert tl.promote_types("int8", "int16", rules=rs) == np.int16   # compiles and caches
    back = pickle.loads(pickle.dumps(rs))
    assert back.join("int8", "float32") == "float32"
    assert tl.promote_types("int8", "float32", rules=back) == np.float32
    w = tl.asarray(np.ones(2, np.int8), rules=rs)
    assert np.array_equal(pickle.loads(pickle.dumps(w)), w)


def test_ufuncs_of_rule_sets_the_loops_cannot_serve():
    """A table whose diagonal grows (uint16 with uint16 is int32, C's integer promotion): the
    ufuncs refuse it when made, naming the cell (a uint16 loop would answer before any
    promoter and wrap 60000 + 60000), while result_type follows the table; a weak int with no
    dtype to materialize as: sums stay in the array's type, a Python int alone is a TypeError
    naming the rule set, as result_type's."""
    t = tl.promotion_table({"uint16": {"uint16": "int32"}, "int32": {"int32": "int32"}},
                           name="grows")
    assert tl.result_type(np.uint16, np.uint16, rules=t) == np.int32
    with pytest.raises(ValueError, match="uint16 with uint16 is int32"):
        tl.make_ufuncs(t)
    r = tl.lattice({"i*": ["int8"], "uint8": ["int16"], "int8": ["int16"]}, name="nodtype")
    u = tl.make_ufuncs(r)
    x = np.array([1, 2], np.int8)
    assert u["add"].reduce(x) == 3 and u["add"].reduce(x).dtype == np.int8
    assert u["multiply"].accumulate(x.astype(np.uint8)).tolist() == [1, 2]
    with pytest.raises(TypeError, match="'i\\*' of rule set 'nodtype' has no NumPy dtype"):
        tl.result_type(2, rules=r)
    for name in ("sqrt", "negative"):
        with pytest.raises(TypeError, match="'i\\*' of rule set 'nodtype' has no NumPy dtype"):
            u[name](2)


def test_a_join_numpy_casts_only_unsafely_names_the_rule_set():
    """A lattice joining float32 into int32: the plain call raises NumPy's casting error with
    the rule set's join and the way out (casting='unsafe'), in which it computes as NumPy's add
    of the operands cast to int32; dtype= of a type NumPy will not cast to keeps NumPy's
    message alone."""
    r = tl.lattice({"float32": ["int32"]}, name="f2i")
    add = tl.make_ufuncs(r)["add"]
    x, y = np.array([1.5, -2.75], np.float32), np.array([3, 4], np.int32)
    assert tl.promote_types(np.float32, np.int32, rules=r) == np.int32
    with pytest.raises(TypeError, match=r"input 0 from dtype\('float32'\) to dtype\('int32'\).*"
                       r"rule set 'f2i' computes these operands in int32.*casting='unsafe'"):
        add(x, y)
    with pytest.raises(np._core._exceptions.UFuncTypeError):     # (NumPy's class, kept)
        add(x, y)
    got = add(x, y, casting="unsafe")
    want = np.add(x.astype(np.int32), y)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    with pytest.raises(TypeError) as exc:
        tl.add(x, x, dtype=np.int32)
    assert "rule set" not in str(exc.value)


def test_suggested_casts_of_run_time_rule_sets_are_their_types():
    """The cast a TypePromotionError suggests is a type of the rule set that raised it, for a
    rule set made at run time too (the message looked it up by name: int16 for a set without
    one), through promote_types and the ufuncs; a pickled error keeps its text."""
    import pickle
    import re
    for name in ("two", "three"):
        r = tl.lattice({"int8": ["float32"], "uint8": ["float16"]}, name=name)
        calls = [lambda: tl.promote_types(np.int8, np.uint8, rules=r),
                 lambda: tl.result_type(np.int8([1]), np.uint8(1), rules=r),
                 lambda: tl.make_ufuncs(r)["add"](np.int8([1]), np.uint8([1]))]
        for call in calls:
            with pytest.raises(tl.TypePromotionError) as exc:
                call()
            target = re.search(r"x\.astype\('(\w+)'\)", str(exc.value)).group(1)
            assert target in r.types, (name, str(exc.value))
            assert exc.value.rules == name
            again = pickle.loads(pickle.dumps(exc.value))
            assert str(again) == str(exc.value) and again.rules == name


def test_unary_python_scalar_a_rule_sets_type_cannot_hold():
    """A user rule set whose weak int is bfloat16: a Python int ml_dtypes cannot convert (past
    int64) raises a TypeError naming the call and the rule set (ml_dtypes' own says only
    "expected number, got int"); a small one is NumPy's op on bfloat16."""
    import ml_dtypes
    r = tl.lattice({"i*": ["bfloat16"], "bfloat16": ["float32"]}, weak={"i*": "bfloat16"},
                   name="bfweak")
    u = tl.make_ufuncs(r)
    got = u["negative"](3)
    assert got.dtype == ml_dtypes.bfloat16 and float(got) == -3.0
    with pytest.raises(TypeError, match=r"bfweak.negative\(.*'bfweak'.*bfloat16"):
        u["negative"](2**70)


def test_ufuncs_of_own_types_missing_types_and_python_scalars_without_a_join():
    """Found by fuzzing round 18, each an internal error or NumPy's generic one before:
    - a type of the rule set's own with storage= computes as its storage dtype, as
      promote_types says (NumPy's add on the storage dtype is the reference); a join with no
      dtype names that type ("'in <string>' requires string as left operand" before);
    - a Python int whose weak type joins nothing raises the TypePromotionError result_type
      raises (NumPy's "did not contain a loop" before: no error loop can hold an abstract DType);
    - an op NumPy would run on an operand cast to a type the rule set lacks (sqrt of int16
      without float32, divide.reduce of uint64 without float64, ldexp) names the call and that
      type (a TypePromotionError of the type as the input before)."""
    own = tl.lattice({"bool": ["int8", "uint8"], "int8": ["index"], "uint8": ["index"],
                      "index": ["myt"], "float32": ["myt"]}, name="own",
                     storage={"index": "uint64"})
    u = tl.make_ufuncs(own)
    x = np.array([2**63, 5], np.uint64)
    got = u["add"](x, x)
    assert got.dtype == tl.promote_types("index", "index", rules=own) == np.uint64
    assert np.array_equal(got, np.add(x, x))
    with pytest.raises(TypeError, match="myt has no NumPy dtype.*rule set 'own'"):
        u["add"](np.ones(3, np.int8), np.ones(3, np.float32))
    r = tl.lattice({"bool": ["int8"], "i*": []}, name="nojoin")
    with pytest.raises(tl.TypePromotionError) as want:
        tl.result_type(np.ones(2, bool), 1, rules=r)
    for args in ((np.ones(2, bool), 1), (True, 2)):
        with pytest.raises(tl.TypePromotionError) as got:
            tl.make_ufuncs(r)["add"](*args)
        assert "('bool', 'i*')" in str(got.value) and "rule set 'nojoin'" in str(got.value)
    assert want.value.operands == got.value.operands
    no_float = tl.make_ufuncs(tl.lattice({"int8": ["int16"], "uint64": []}, name="nofloat"))
    no_f64 = tl.make_ufuncs(tl.lattice({"uint8": ["uint64"], "uint64": ["float32"]},
                                       name="nof64"))
    for call, text in (
            (lambda: no_float["sqrt"](np.ones(2, np.int16)), "nofloat.sqrt(int16) computes in "
             "float32, which is not a type of rule set 'nofloat'"),
            (lambda: no_float["ldexp"](np.ones(2, np.int8), np.ones(2, np.uint64)),
             "nofloat.ldexp(int8, uint64) computes in float32"),
            (lambda: no_f64["divide"].reduce(np.ones(3, np.uint64)),
             "nof64.divide.reduce(uint64) computes in float64, which is not a type")):
        for _ in range(2):
            with pytest.raises(TypeError, match=text.replace("(", r"\(").replace(")", r"\)")):
                call()
    # where a loop reads the operands as they are, the binary op computes, as before
    assert no_float["divide"](np.ones(2, np.int16), np.ones(2, np.int16)).dtype == np.float32


@pytest.mark.parametrize("table,msg", [
    ({"float8_e4m3fn": {"int16": "float8_e4m3fn"}, "int16": {"int16": "int16"}},
     "float8_e4m3fn with int16 is float8_e4m3fn while float8_e4m3fn with float8_e4m3fn has no"),
    ({"uint4": {"uint4": "float16"}, "float16": {"float16": "float16"}},
     "uint4 with uint4 is float16"),
])
def test_make_ufuncs_refuses_tables_its_loops_cannot_serve(table, msg):
    """A pair computes in its join's own loop, which NumPy then also finds for two arrays of the
    join: a join type that does not join itself (f8 with f8 none, int16 with f8 f8) made the
    result depend on call order and NumPy raise "A loop/promoter has already been registered";
    the ml_dtypes types' diagonal was not checked (uint4 with uint4 float16 computed in
    float16, where a uint4 loop answers first for the core dtypes' rule)."""
    t = tl.promotion_table(table, name="t")
    with pytest.raises(ValueError, match=msg):
        tl.make_ufuncs(t)
    for a, row in table.items():
        for b, j in row.items():
            assert tl.join(a, b, rules=t) == j      # promote_types/result_type follow it


def test_typepromotionerrors_past_the_error_loop_slots():
    """Past the error-loop slots (2048 ufunc objects), NumPy's generic no-loop error replaced
    the TypePromotionError; the call entry now re-derives it (47 run-time rule sets' 85 ufuncs,
    about 4,000 objects; reference: the TypePromotionError of the first rule set's call)."""
    code = """if True:
        import numpy as np, typelattice as tl
        from typelattice import _ufuncs
        a, b, h = np.ones(2, np.int8), np.ones(2, np.uint64), np.ones(2, np.float16)
        kinds = {}
        for k in range(47):
            u = tl.make_ufuncs(tl.lattice({"int8": ["int16"], "uint64": []}, name=f"r{k}"))
            for name in sorted(set(u)):
                f = u[name]
                try:
                    f(*((a, b) if f.nin == 2 else (h,)))
                except Exception as e:
                    kinds.setdefault(type(e).__name__, set()).add(name)
        print(sorted(kinds), sorted(kinds.get("UFuncTypeError", ())), _ufuncs.ERROR_SLOTS)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")[0]
    assert out == "['TypeError', 'TypePromotionError'] [] 2048", out


def test_a_built_in_name_is_the_built_in_rule_set():
    """A rule set named like a built-in one is that one where it is unpickled and in its
    ufuncs' names (typelattice._ufuncs.numpy.add): a user set with other rules under that
    name raises LatticeError (its pickle turned into the built-in: uint8 with int8 became
    int16), and one with the built-in's own rules is the built-in. Reference: the JSON table."""
    import copy
    import pickle
    from conftest import reference_cells
    user = tl.lattice({"uint8": ["float16"], "int8": ["float16"]}, name="numpy")
    with pytest.raises(tl.LatticeError, match="'numpy' is a built-in rule set's"):
        tl.get_rules(user)
    with pytest.raises(tl.LatticeError, match="another name"):
        tl.promote_types("uint8", "int8", rules=user)
    mine = tl.lattice({"uint8": ["float16"], "int8": ["float16"]}, name="mine")
    cr = tl.get_rules(mine)
    for again in (pickle.loads(pickle.dumps(cr)), copy.deepcopy(cr)):
        assert again.join_names("uint8", "int8") == "float16"
    from typelattice.rules import builtin
    for name in tl.BUILTIN_RULES:
        r = tl.get_rules(name)
        assert tl.get_rules(builtin()[name]) is r           # (a fresh copy of its rules)
        assert tl.get_rules(r.ruleset()) is r
        assert pickle.loads(pickle.dumps(r)) is r and copy.deepcopy(r) is r
    # (the numpy built-in's own table, cell for cell, through a pickled copy)
    np_rules = pickle.loads(pickle.dumps(tl.get_rules("numpy")))
    for a, b, want in reference_cells("jax_doc_numpy.json"):
        got = np_rules.join_names(a, b)
        assert got == want, (a, b, got, want)


def test_a_type_the_rule_set_lacks_named_with_every_operand():
    """promote_types/result_type/join with a type a user rule set lacks name every operand and
    suggest a cast to one of the set's types holding the missing one, as the ufunc's error
    does (they named the missing type alone and suggested casting to it)."""
    import re
    mini = tl.lattice({"bool": ["int8"], "int8": ["int16"]}, name="mini")
    calls = [lambda: tl.promote_types("uint8", "int8", rules=mini),
             lambda: tl.result_type(np.int8, np.uint8, rules=mini),
             lambda: tl.join("int8", "uint8", rules=mini),
             lambda: tl.make_ufuncs(mini)["add"](np.ones(2, np.int8), np.ones(2, np.uint8))]
    for call in calls:
        with pytest.raises(tl.TypePromotionError, match="uint8 is not a type of rule set "
                           "'mini'") as exc:
            call()
        assert sorted(exc.value.operands) == ["int8", "uint8"]
        target = re.search(r"x\.astype\('(\w+)'\)", str(exc.value)).group(1)
        assert target == "int16"        # (in the set, and holding every uint8 value)
        assert np.can_cast(np.uint8, target, "safe")


def test_a_storage_dtype_reads_as_the_type_stored_in_it():
    """A type of the set's own stored as uint64 (storage=), in a set without uint64: a uint64
    array is that type for promote_types as for the ufuncs, whose loop of the type took two
    uint64 arrays while promote_types said uint64 is no type of the set; where the type has no
    join with itself, both refuse. Reference: the set's own join of the type names."""
    w = tl.rules_from_dict({"name": "w", "edges": {"int8": ["index"]},
                            "storage": {"index": "uint64"}})
    a = np.array([2**63 + 1, 5], np.uint64)
    assert tl.join("index", "index", rules=w) == "index"
    assert tl.promote_types(a, a, rules=w) == np.uint64
    assert tl.promote_types(np.int8, a, rules=w) == np.uint64   # (join(int8, index) = index)
    got = tl.make_ufuncs(w)["add"](a, a)
    assert got.dtype == np.uint64 and got.tolist() == [(2 * (2**63 + 1)) % 2**64, 10]
    t = tl.rules_from_dict({"name": "t", "table": {"uint8": {"index": None}},
                            "storage": {"index": "uint64"}})
    with pytest.raises(tl.TypePromotionError):
        tl.join("index", "index", rules=t)
    with pytest.raises(tl.TypePromotionError, match="'index', 'index'"):
        tl.promote_types(a, a, rules=t)
    with pytest.raises(tl.TypePromotionError):
        tl.make_ufuncs(t)["add"](a, a)


def test_rule_set_loading_edges(tmp_path):
    """A bytes path loads as a str one (it raised "endswith first arg must be bytes"); the probe
    of a name as a NumPy dtype warns nothing ('object' gave NumPy's FutureWarning before the
    LatticeError); "" is no promotion in a table, as "-" is."""
    import warnings
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(MINI))
    assert tl.load_rules(os.fsencode(f)).dense_table() == tl.load_rules(f).dense_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(tl.LatticeError, match="'object' is not a NumPy dtype"):
            tl.rules_from_dict({"edges": {"q": ["int16"]}, "storage": {"q": "object"}})
    t = tl.promotion_table({"int8": {"int8": "int8", "uint8": ""},
                            "uint8": {"uint8": "uint8", "int8": "-"}}, name="es")
    assert t.join("int8", "uint8") is None and t.join("uint8", "int8") is None
    assert t.join("int8", "int8") == "int8"
