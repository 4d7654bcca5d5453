"""Typing: mypy --strict accepts small user scripts (tests/typing/user_*ok.py) with typelattice's
stubs and reports the deliberate errors of tests/typing/user_bad.py.

The stubs: hand-written .pyi next to the modules, plus __init__.pyi and dask.pyi generated at
build time from _ops.py (_codegen/gen_stubs.py), so they list every op. An installed typelattice
has them in its package directory; an editable install (meson-python's import hook, which mypy
does not follow) is checked against a stub package assembled from the source tree and the
generator, in a temporary directory.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import typelattice as tl

HERE = Path(__file__).parent / "typing"
PKG = Path(tl.__file__).parent


def _mypy():
    pytest.importorskip("mypy")
    return [sys.executable, "-m", "mypy"]


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory, request):
    """Run mypy once over all the scripts; {file name: [error lines]}."""
    cmd = _mypy()
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    if not (PKG / "__init__.pyi").exists():
        stub_root = tmp_path_factory.mktemp("stubs")
        dst = stub_root / "typelattice"
        dst.mkdir()
        for f in list(PKG.glob("*.pyi")) + [PKG / "py.typed"]:
            shutil.copy(f, dst / f.name)
        subprocess.run([sys.executable, str(PKG / "_codegen" / "gen_stubs.py"),
                        "-o", str(dst / "__init__.pyi"), "--dask", str(dst / "dask.pyi")],
                       check=True)
        env["MYPYPATH"] = str(stub_root)
    cache = (request.config.cache.mkdir("mypy") if getattr(request.config, "cache", None)
             else tmp_path_factory.mktemp("mypy_cache"))
    cmd += ["--strict", "--no-error-summary", "--show-error-codes", "--no-color-output",
            "--python-executable", sys.executable, "--cache-dir", str(cache)]
    files = sorted(HERE.glob("user_*.py"))
    proc = subprocess.run(cmd + [str(f) for f in files], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode not in (0, 1) or "error: " in proc.stderr:
        pytest.fail(f"mypy failed to run:\n{proc.stdout}\n{proc.stderr}")
    out = {f.name: [] for f in files}
    for line in proc.stdout.splitlines():
        m = re.match(r"(.*?):(\d+): (error|note): (.*)", line)
        if m and m.group(3) == "error":
            out.setdefault(Path(m.group(1)).name, []).append((int(m.group(2)), m.group(4)))
        elif line.strip() and not m:
            out.setdefault("?", []).append((0, line))
    return out


@pytest.mark.parametrize("script", ["user_ok.py", "user_dask_ok.py"])
def test_user_script_passes_mypy_strict(mypy_run, script):
    assert mypy_run[script] == [], "\n".join(f"{script}:{n}: {msg}"
                                             for n, msg in mypy_run[script])
    assert mypy_run.get("?", []) == []


def test_deliberate_errors_are_reported(mypy_run):
    text = (HERE / "user_bad.py").read_text().splitlines()
    expected = {i + 1 for i, line in enumerate(text) if "# E:" in line}
    got = {n for n, _ in mypy_run["user_bad.py"]}
    assert expected and got == expected, mypy_run["user_bad.py"]


def test_stub_lists_every_ufunc():
    from typelattice._codegen import gen_stubs
    stub = gen_stubs.init_stub()
    declared = set(re.findall(r"^(\w+): np\.ufunc$", stub, re.M))
    assert declared == set(tl.UFUNC_NAMES)
    assert all(isinstance(getattr(tl, n), np.ufunc) for n in declared)
    dask_declared = set(re.findall(r"^(\w+): DaskUfunc$", gen_stubs.dask_stub(), re.M))
    assert dask_declared == set(tl.UFUNC_NAMES)
    # every public name of the package is in the stub
    for name in tl.__all__:
        assert re.search(rf"\b{name}\b", stub), name


def test_user_script_runs():
    """The typed user script is a real program."""
    proc = subprocess.run([sys.executable, str(HERE / "user_ok.py")], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
