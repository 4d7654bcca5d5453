"""(a) Generated CUDA kernel sources compile for sm_80 and sm_90, without a GPU.

NVRTC (the compiler typelattice.cuda uses at run time, from the nvidia-cuda-nvrtc-cu12 wheel) and
nvcc (when on PATH) each compile one translation unit per arch. By default a deterministic sample
of signatures (every op, every dtype, every operand dtype converted, scalars on both sides, all
three kernel shapes for a few) keeps this under a minute on 2 cores; TYPELATTICE_CUDA_COMPILE_ALL=1
compiles every signature of _cuda_sigs.all_sigs() (about 1,250; minutes).
"""
import os
import shutil
import subprocess

import pytest

from typelattice._cuda_codegen import KERNELS, module_source

from _cuda_sigs import all_sigs, sample

ARCHS = (80, 90)
FULL = os.environ.get("TYPELATTICE_CUDA_COMPILE_ALL") == "1"


def _sigs():
    return all_sigs() if FULL else sample()


def _source(limit=None):
    sigs = _sigs()[:limit]
    src, _ = module_source(sigs, kernels=("k1_i32",))
    # all three kernel shapes (32/64-bit 1-D, N-d) for a few signatures
    more, _ = module_source(sigs[:4], kernels=KERNELS, prefix="tlx", preamble=False)
    return src + more, len(sigs)


@pytest.fixture(scope="module")
def source():
    return _source()


def _nvrtc():
    cupy = pytest.importorskip("cupy", reason="CuPy not installed (pip install '.[cuda]')")
    import typelattice.cuda as tc
    try:
        tc.nvrtc_version()
    except tc.CudaUnavailableError as exc:
        pytest.skip(str(exc))
    return cupy, tc


@pytest.mark.parametrize("arch", ARCHS)
def test_nvrtc_compiles(source, arch):
    _, tc = _nvrtc()
    src, n = source
    binary, kind = tc.nvrtc_compile(src, arch)
    assert kind == "cubin" and len(binary) > 1000, (kind, len(binary))


@pytest.mark.parametrize("hw16", [False, True], ids=["soft16", "hw16"])
def test_nvrtc_compiles_one_signature_module(hw16):
    """The exact module typelattice.cuda builds for one call, with all its kernels (and the
    cuda_fp16.h/cuda_bf16.h variant for float16 and bfloat16)."""
    _, tc = _nvrtc()
    from typelattice._cuda_codegen import Signature
    sig = Signature("add", ("int8", "float16"), (False, False), ("float16",) * 3)
    if hw16:
        sig = Signature("divmod", ("bfloat16", "float16"), (False, False), ("float32",) * 4)
    src, ns = tc.kernel_source(sig, hw16=hw16)
    assert ("#include <cuda_fp16.h>" in src) and (("TL_NO_HW16 1" in src) != hw16)
    for k in KERNELS:
        assert f'extern "C" __global__ void {ns}_{k}(' in src
    binary, kind = tc.nvrtc_compile(src, 90)
    assert kind == "cubin"
    for k in KERNELS:
        assert f"{ns}_{k}".encode() in binary


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("arch", ARCHS)
def test_nvcc_compiles(arch, tmp_path):
    src, n = _source()
    cu = tmp_path / "k.cu"
    cu.write_text(src)
    res = subprocess.run(["nvcc", f"-arch=sm_{arch}", "--cubin", "--fmad=false", "-ftz=false",
                          "-std=c++17", "-diag-suppress", "186,550,177", "-o",
                          str(tmp_path / "k.cubin"), str(cu)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    assert (tmp_path / "k.cubin").stat().st_size > 1000

