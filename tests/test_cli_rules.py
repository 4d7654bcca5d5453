"""The command line for every built-in rule set, user rule set files, and `diff numpy jax`."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import typelattice as tl
from typelattice._cli import main

from test_rulesets import EXACT, NAMES, cells, ref

REF = Path(__file__).parent / "reference"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("rules", tl.BUILTIN_RULES)
def test_table_check_explain_graph(capsys, rules, tmp_path):
    status, out, _ = run(capsys, "table", "--rules", rules)
    assert status == 0 and f"rule set {rules!r}" in out
    status, out, _ = run(capsys, "check", "--rules", rules)
    assert status == 0 and out.startswith(f"rule set {rules!r}: ")
    from typelattice.rules import builtin
    kind = builtin()[rules].check(limit=0).kind
    assert f": {kind} over" in out.splitlines()[0]
    status, _, _ = run(capsys, "check", "--rules", rules, "--strict")
    assert status == (1 if kind == "not a lattice" else 0)
    t = tl.get_rules(rules).types
    status, out, _ = run(capsys, "explain", "--rules", rules, t[0], t[-1])
    try:
        tl.join(t[0], t[-1], rules=rules)
        promotes = True
    except tl.TypePromotionError:
        promotes = False
    assert status == (0 if promotes else 1) and out
    status, out, _ = run(capsys, "graph", "--rules", rules, "-o", str(tmp_path / "g.svg"))
    assert status == 0 and (tmp_path / "g.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("path,rules", EXACT, ids=[f"{r}:{p}" for p, r in EXACT])
def test_table_json_matches_reference(capsys, path, rules):
    status, out, _ = run(capsys, "table", "--rules", rules, "--format", "json")
    table = json.loads(out)["table"]
    for a, b, want in cells(ref(path)):
        assert table[a][b] == want, (a, b)


def test_check_numpy_shows_int8_uint8_float16(capsys):
    _, out, _ = run(capsys, "check", "--rules", "numpy")
    assert "not a lattice" in out
    assert "(i8, u8, f16): (a.b).c = f32, a.(b.c) = f16" in out


def test_check_max_reports_documented_cells(capsys):
    data = ref("mojo_max_type_promotion.json")
    _, out, _ = run(capsys, "check", "--rules", "max")
    assert "rule set 'max': lattice over 16 types" in out
    for p in data["symmetry_check"]["asymmetric_pairs"]:
        a, b = NAMES[p["a"]], NAMES[p["b"]]
        assert f"{a}.{b}: documented {NAMES[p['a_op_b']]}" in out
    n = data["associativity_check"]["non_associative_triples_count"]
    assert f"non-associative triples ((a.b).c != a.(b.c)): {n}" in out


def test_diff_numpy_jax_lists_the_differing_cells(capsys):
    np_ref, jax_ref = ref("jax_doc_numpy.json"), ref("jax_doc_jax_numpy.json")
    jax_cells = {(a, b): r for a, b, r in cells(jax_ref)}
    want = {(a, b) for a, b, r in cells(np_ref) if jax_cells[(a, b)] != r}
    status, out, _ = run(capsys, "diff", "numpy", "jax", "--format", "json")
    rows = json.loads(out)
    assert status == 0 and {(d["a"], d["b"]) for d in rows} == want
    for d in rows:
        assert d["jax"] == jax_cells[(d["a"], d["b"])]
    _, out, _ = run(capsys, "diff", "numpy", "jax")
    assert f"{len(want)} of 324 cells differ between 'numpy' and 'jax'" in out
    assert "i8, u8: numpy -> i16, jax -> i16" not in out        # equal cells are not listed
    assert "u64, i8: numpy -> f64, jax -> f*" in out


def test_list(capsys):
    _, out, _ = run(capsys, "list")
    for name in tl.BUILTIN_RULES:
        assert name in out


def test_reference_files_as_user_rule_sets(capsys):
    """The reference files themselves load as user rule sets (short spelling detected)."""
    status, out, _ = run(capsys, "check", "--rules", str(REF / "jax_lattice.json"))
    assert status == 0 and "rule set 'jax_lattice': lattice over 17 types" in out
    status, out, _ = run(capsys, "diff", "numpy", str(REF / "jax_doc_numpy.json"))
    assert "0 of 324 cells differ" in out
    status, out, _ = run(capsys, "diff", "tensorflow", str(REF / "jax_doc_tensorflow.json"))
    assert "0 of 324 cells differ" in out
    # Mojo MAX: the documented table differs from the lattice in exactly its 4 anomalies.
    status, out, _ = run(capsys, "diff", "max", str(REF / "mojo_max_type_promotion.json"))
    assert "4 of 256 cells differ" in out
    assert "b, index: max -> u64, mojo_max_type_promotion -> i64" in out


def test_user_files_json_and_toml(capsys, tmp_path):
    toml = tmp_path / "mini.toml"
    toml.write_text('name = "mini"\n[edges]\nbool = ["i*"]\n"i*" = ["int8", "uint8"]\n'
                    'int8 = ["int16"]\nuint8 = ["int16"]\n[weak]\n"i*" = "int16"\n')
    js = tmp_path / "mini.json"
    js.write_text(json.dumps({"name": "mini2", "edges": [["bool", "i*"], ["i*", "int8"],
                                                         ["i*", "uint8"], ["int8", "int16"],
                                                         ["uint8", "int16"]],
                              "weak": {"i*": "int16"}}))
    for f in (toml, js):
        status, out, _ = run(capsys, "table", "--rules", str(f))
        assert status == 0 and "weak types materialize as: i* -> int16" in out
        status, out, _ = run(capsys, "check", "--rules", str(f))
        assert ": lattice over 5 types" in out
        status, out, _ = run(capsys, "graph", "--rules", str(f), "--format", "dot")
        assert '"i*" [label="i*", style="rounded,dashed,filled"' in out
    status, out, _ = run(capsys, "diff", str(toml), str(js))
    assert "0 of 25 cells differ" in out
    status, out, _ = run(capsys, "diff", str(toml), "jax")
    assert "int8, uint8: mini -> int16, jax -> int16" not in out
    # Same joins; only the weak i* materializes differently (int16 here, int64 in jax).
    assert "3 of 25 cells differ between 'mini' and 'jax'" in out
    assert "i*, i*: mini -> i* (int16), jax -> i* (int64)" in out



def test_broken_user_lattice_is_a_readable_error(capsys, tmp_path):
    f = tmp_path / "broken.json"
    f.write_text(json.dumps({"edges": {"int8": ["int16", "float16"],
                                       "uint8": ["int16", "float16"]}}))
    status, out, err = run(capsys, "check", "--rules", str(f))
    assert status == 2 and "Traceback" not in err
    assert "rule set 'broken' is not a lattice" in err
    assert "(int8, uint8): minimal upper bounds int16, float16" in err
    f.write_text('{"edges": {"a": ["b"], "b": ["a"]}}')
    status, _, err = run(capsys, "table", "--rules", str(f))
    assert status == 2 and "cycle in the lattice: a -> b -> a" in err
    f.write_text('{"edges": ')
    status, _, err = run(capsys, "table", "--rules", str(f))
    assert status == 2 and "cannot read rule set file" in err
    for cmd in ("table", "check", "graph"):     # ('' checked every built-in rule set)
        status, out, err = run(capsys, cmd, "--rules", "")
        assert status == 2 and "unknown rule set ''" in err and not out, (cmd, out)
    f.write_text('{"table": [1, 2]}')                  # a list where rows are expected
    for cmd in ("table", "check", "graph"):
        status, _, err = run(capsys, cmd, "--rules", str(f))
        assert status == 2 and "table must map rows" in err, err


MALFORMED_FILES = {
    "weak_str.json": ('{"name": "a", "edges": {"int8": ["int16"]}, "weak": "i*"}',
                      "'weak' must be a mapping {weak type: the type it materializes as}"),
    "types_int.json": ('{"name": "a", "edges": {"int8": ["int16"]}, "types": 5}',
                       "'types' must be a list of type names, got int 5"),
    "storage_list.json": ('{"name": "a", "edges": {"int8": ["int16"]}, "storage": ["index"]}',
                          "'storage' must be a mapping {type: NumPy dtype}"),
    "empty.json": ('{"edges": {}}', "rule set 'empty': no types: 'edges' names none"),
    "numbers.json": ('{"edges": {"int8": [1, null]}}',
                     "each successor of 'int8' in 'edges' must be a type name"),
}


@pytest.mark.parametrize("fname", MALFORMED_FILES)
def test_malformed_optional_keys_are_readable_errors(capsys, tmp_path, fname):
    """A wrongly typed optional key printed an AttributeError/TypeError traceback (exit status
    1); an empty rule set and numbers/null as type names were accepted. Reference: the other
    malformed files, "typelattice: error: <file>: ..." with exit status 2."""
    text, message = MALFORMED_FILES[fname]
    f = tmp_path / fname
    f.write_text(text)
    for cmd in ("table", "check", "graph"):
        status, out, err = run(capsys, cmd, "--rules", str(f))
        assert status == 2 and not out, (cmd, out)
        assert err.startswith(f"typelattice: error: {f}: rule set ") and message in err, err


def test_malformed_rule_file_exit_status_in_a_subprocess(tmp_path):
    f = tmp_path / "weak_str.json"
    f.write_text(MALFORMED_FILES["weak_str.json"][0])
    p = subprocess.run([sys.executable, "-m", "typelattice", "table", "--rules", str(f)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("typelattice: error: ")
    assert "'weak' must be a mapping" in p.stderr


def test_module_entry_point_subprocess(tmp_path):
    out = tmp_path / "lattice.svg"
    p = subprocess.run([sys.executable, "-m", "typelattice", "graph", "--rules", "anvil",
                        "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    svg = out.read_text()
    assert 'class="weak"' in svg and "int32?" in svg


def test_reference_table_to_hasse_diagram_round_trip(capsys, tmp_path):
    """The design doc's jax.numpy table -> its Hasse diagram (a lattice file) -> same joins as
    the built-in jax lattice; a table that is not a lattice has no Hasse diagram."""
    out = tmp_path / "jnp_lattice.json"
    status, _, _ = run(capsys, "graph", "--rules", str(REF / "jax_doc_jax_numpy.json"),
                       "-o", str(out))
    assert status == 0
    data = json.loads(out.read_text())
    assert data["edges"]["bool"] == ["i*"] and sorted(data["edges"]["f*"]) == [
        "bfloat16", "c*", "float16"]
    _, text, _ = run(capsys, "diff", "jax", str(out))
    assert "0 of 324 cells differ" in text
    status, _, err = run(capsys, "graph", "--rules", "numpy", "--format", "json")
    assert status == 2 and "has no Hasse diagram" in err


def test_explain_shows_order_dependence(capsys):
    _, out, _ = run(capsys, "explain", "--rules", "numpy", "int8", "uint8", "float16")
    assert "join(int8, uint8, float16) = float32" in out
    assert "order matters under 'numpy': join(int8, float16, uint8) = float16" in out
    _, out, _ = run(capsys, "explain", "--rules", "tensorflow", "complex64", "f*")
    assert "join(f*, complex64) = none" in out
    _, out, _ = run(capsys, "explain", "--rules", "anvil", "bool", "int32?", "int16")
    assert "join = int16" in out
