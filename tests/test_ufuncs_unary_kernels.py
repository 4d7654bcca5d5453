"""The unary element functions of kernels/tl_elem.h compile as C99, C++ and CUDA (nvcc, when
installed): the header stays usable for the GPU path."""
import shutil
import subprocess
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "src" / "typelattice" / "kernels"
BODY = r"""
#include "tl_elem.h"
PREFIX void use(float *x, double *y, tl_c64 *z, float *r, uint16_t *h, int32_t *ex)
{
    unsigned e = 0; int i = IDX;
    float m;
    x[i] = tl_sqrt_f32(x[i], &e) + tl_cbrt_f32(x[i], &e) + tl_expm1_f32(x[i], &e)
         + tl_arctanh_f32(x[i], &e) + tl_spacing_f32(x[i], &e) + tl_sign_f32(x[i], &e)
         + tl_rint_f32(x[i], &e) + tl_deg2rad_f32(x[i], &e) + tl_sign_bf_f32(x[i], &e);
    y[i] = tl_log1p_f64(y[i], &e) + tl_frexp_f64(y[i], ex + i, &e) + tl_isinf_f64(y[i], &e)
         + tl_signbit_f64(y[i], &e) + tl_isfinite_f64(y[i], &e);
    r[i] = tl_absolute_c64(z[i], &e);
    z[i] = tl_reciprocal_c64(tl_sign_c64(tl_square_c64(z[i], &e), &e), &e);
    h[i] = (uint16_t)(tl_spacing_f16(h[i], &e) + tl_spacing_bf16(h[i], &e) + tl_bitwise_count_i64(-5, &e)
                      + tl_negative_i16((int16_t)h[i], &e) + tl_invert_u16(h[i], &e));
    x[i] += tl_modf_f32(x[i], &m, &e) + m + tl_isnan_c64(z[i], &e) + tl_logical_not_c64(z[i], &e);
}
"""


def _compile(cmd, src, tmp_path):
    f = tmp_path / src[0]
    f.write_text(src[1])
    r = subprocess.run(cmd + [str(f), "-o", str(tmp_path / "out.o")], capture_output=True,
                       text=True, timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.parametrize("compiler,suffix,flags", [
    ("cc", ".c", ["-std=c99", "-Werror=implicit-function-declaration"]),
    ("c++", ".cpp", []),
])
def test_host_compilers(compiler, suffix, flags, tmp_path):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    body = BODY.replace("PREFIX", "").replace("IDX", "0")
    _compile([compiler, "-c", "-O1", f"-I{KERNELS}", *flags], ("t" + suffix, body), tmp_path)


def test_nvcc(tmp_path):
    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc")
    body = BODY.replace("PREFIX", "__global__").replace("IDX", "threadIdx.x")
    _compile(["nvcc", "-arch=sm_90", "-c", f"-I{KERNELS}"], ("t.cu", body), tmp_path)
