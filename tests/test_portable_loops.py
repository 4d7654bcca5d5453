"""The generated loop sources compile in the portable configuration too (no gcc target_clones, no
x86 dispatch: clang, macOS, other CPUs), which this machine's build never selects.

gen_loops writes the six parts; gcc checks each with __linux__ undefined, which turns
TL_X86_DISPATCH_CLONES off in tl_loops_host.h (-fsyntax-only: every name declared, every macro
expanding to valid C; a helper defined only inside the x86 block fails here)."""
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from typelattice._codegen import gen_loops

KDIR = Path(__file__).resolve().parents[1] / "src" / "typelattice" / "kernels"
N_PARTS = 6     # as meson.build


def test_generated_loops_compile_without_x86_dispatch(tmp_path):
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if cc is None or "gcc" not in Path(cc).name:
        pytest.skip("needs gcc (-U__linux__ selects the portable branch of its clone test)")
    header, parts = gen_loops.emit(N_PARTS)
    (tmp_path / "_loops.h").write_text(header)
    base = [cc, "-std=c11", "-fsyntax-only", "-U__linux__", "-Werror=implicit-function-declaration",
            "-DNPY_NO_DEPRECATED_API=NPY_2_0_API_VERSION",
            "-DNPY_TARGET_VERSION=NPY_2_0_API_VERSION", f"-I{KDIR}", f"-I{tmp_path}",
            f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}"]
    for k, text in enumerate(parts):
        src = tmp_path / f"_loops_{k}.c"
        src.write_text(text)
        r = subprocess.run(base + [str(src)], capture_output=True, text=True)
        assert r.returncode == 0, f"part {k}:\n{r.stderr[-3000:]}"
    # the configuration checked is the portable one: no clone attribute left in the source
    pre = [a for a in base if a != "-fsyntax-only"] + ["-E", str(tmp_path / "_loops_0.c")]
    r = subprocess.run(pre, capture_output=True, text=True, check=True)
    assert "_loop_" in r.stdout and "target_clones" not in r.stdout
