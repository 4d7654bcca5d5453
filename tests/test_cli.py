"""The command line: tables in every format agree with the reference, explain/check/diff, errors."""
import csv
import io
import json
import subprocess
import sys

import pytest

from conftest import SHORT_TO_CANON, reference_cells
from typelattice._cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_json_matches_reference(capsys):
    code, out, _ = run(capsys, "table", "--format", "json")
    assert code == 0
    data = json.loads(out)
    for a, b, want in reference_cells("jax_doc_jax_numpy.json"):
        assert data["table"][a][b] == want
    assert data["weak"] == {"i*": "int64", "f*": "float64", "c*": "complex128"}


def test_table_csv_and_text_match_reference(capsys):
    ref = {(a, b): r for a, b, r in reference_cells("jax_doc_jax_numpy.json")}
    inv = {v: k for k, v in SHORT_TO_CANON.items()}
    _, out, _ = run(capsys, "table", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    header = rows[0][1:]
    for row in rows[1:]:
        for col, cell in zip(header, row[1:]):
            assert cell == inv[ref[(SHORT_TO_CANON[row[0]], SHORT_TO_CANON[col])]]
    _, text, _ = run(capsys, "table")
    lines = text.splitlines()
    assert lines[0].split() == header
    assert lines[1].split() == rows[1]


def test_table_markdown(capsys):
    _, out, _ = run(capsys, "table", "--format", "markdown")
    lines = out.splitlines()
    assert lines[0].startswith("|  | b | u8 |") and lines[1].startswith("|---|")
    assert len(lines) == 2 + 18


def test_table_all_includes_extended(capsys):
    _, out, _ = run(capsys, "table", "--all", "--format", "json")
    data = json.loads(out)
    assert data["table"]["int4"]["i*"] == "int4"
    assert data["table"]["int8"]["float8_e4m3fn"] == "float8_e4m3fn"
    assert data["table"]["float16"]["float8_e4m3fn"] is None


def test_explain_shows_join_and_path(capsys):
    code, out, _ = run(capsys, "explain", "uint8", "int8")
    assert code == 0
    assert "path: uint8 -> int16" in out and "path: int8 -> int16" in out
    assert out.strip().endswith("join = int16")
    _, out, _ = run(capsys, "explain", "int8", "f*", "bfloat16")
    assert "join = bfloat16" in out
    _, out, _ = run(capsys, "explain", "int64", "f*")
    assert "join = f* (weak: materializes as float64)" in out
    code, out, _ = run(capsys, "explain", "float16", "float8_e5m2")
    assert "no common upper bound" in out and code == 1
    code, out, _ = run(capsys, "explain", "bfloat16", "bfloat16", "--rules", "numpy")
    assert "no promotion under 'numpy'" in out and code == 1


def test_check_reports_lattice(capsys):
    code, out, _ = run(capsys, "check", "--rules", "jax")
    assert code == 0
    assert "rule set 'jax': partial lattice over 35 types" in out
    assert "non-associative" not in out


def test_diff(capsys):
    code, out, _ = run(capsys, "diff", "jax", "jax32")
    assert code == 0
    assert "u32, i32: jax -> i64, jax32 -> i32" in out
    assert "c*, f*: jax -> c* (complex128), jax32 -> c* (complex64)" in out
    # jax32 has 14 of the 18 types; every cell differs whose join is 64-bit or weak.
    assert out.strip().splitlines()[-1] == ("45 of 196 cells differ between 'jax' and 'jax32' "
                                            "over 14 common types")


def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and out.startswith("jax ")


@pytest.mark.parametrize("argv,msg", [
    (["table", "--rules", "nope"], "unknown rule set 'nope'"),
    (["explain", "int9", "int8"], "unknown type name 'int9'"),
    (["table", "--rules", "no/such/rules.json"], "no rule set file 'no/such/rules.json'"),
    (["graph", "-o", "lattice.png"], "cannot tell the format of 'lattice.png'"),
])
def test_bad_arguments_exit_2(capsys, argv, msg):
    code, _, err = run(capsys, *argv)
    assert code == 2 and msg in err and "Traceback" not in err


@pytest.mark.parametrize("limit", ["-1", "two"])
def test_check_limit_must_be_a_count(capsys, limit):
    """check --limit -1 printed '... 257 more' after no counterexample and exited 0."""
    with pytest.raises(SystemExit) as exc:
        main(["check", "--rules", "numpy", "--limit", limit])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"--limit: expected a whole number >= 0, got {limit!r}" in err


def test_bench_sizes_that_are_not_numbers_name_the_option(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--sizes", "abc"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--sizes: 'abc': give comma-separated element counts" in err


@pytest.mark.parametrize("content", [None, "{not json", "", "[1, 2]", '{"rows": [{}]}'])
def test_bench_load_of_a_file_that_is_not_a_saved_run_exits_2(capsys, tmp_path, content):
    """bench --load of a missing, invalid or other JSON file printed a traceback."""
    path = tmp_path / "run.json"
    if content is not None:
        path.write_text(content)
    code = main(["bench", "--load", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "typelattice bench: error: --load" in err and "Traceback" not in err
    assert ("No such file" in err) == (content is None), err


def test_module_entry_point():
    p = subprocess.run([sys.executable, "-m", "typelattice", "table", "--format", "csv"],
                       capture_output=True, text=True, check=True)
    assert p.stdout.splitlines()[0].startswith(",b,u8,u16")
    p = subprocess.run([sys.executable, "-m", "typelattice", "table", "--format", "xml"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "invalid choice" in p.stderr
    p = subprocess.run([sys.executable, "-m", "typelattice", "--version"], capture_output=True,
                       text=True)
    assert p.returncode == 0 and p.stdout.startswith("typelattice ")


def test_demo_rows_agree_with_both_libraries(capsys):
    """Each demo row shows NumPy's own answer (the dtype its add gives, not np.result_type,
    which says float64 for bfloat16 + 2.5) and ours; ours is checked against the reference."""
    import ml_dtypes
    import numpy as np
    import typelattice as tl
    from typelattice._demo import CASES, rows
    got = {label: (n, t) for label, n, t in rows()}
    for label, ops in CASES:
        if ops is None:
            continue
        try:
            want = str(np.add(*ops).dtype)
        except TypeError as exc:
            want = type(exc).__name__
        assert got[label][0] == want, label
        if got[label][1] != "TypePromotionError":
            assert got[label][1].replace(" (weak)", "") == str(tl.add(*ops).dtype), label
    assert got["bfloat16 + 2.5"] == ("float32", "bfloat16")
    assert np.add(np.ones(2, ml_dtypes.bfloat16), 2.5).dtype == np.float32
    assert got["int64 + float16"] == ("float64", "float16")
    assert got["uint8 + int8"][1] == "int16"
    assert got["bfloat16 + float16"][1] == "float32"
    assert got["(int8 + uint8) + float16"][1] == got["int8 + (uint8 + float16)"][1] == "float16"
    assert got["int4 + int8"][1] == "TypePromotionError"
    code, out, _ = run(capsys, "demo")
    assert code == 0 and "int64 + float16" in out
