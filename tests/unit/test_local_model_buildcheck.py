"""The portability check of the local model's build (scripts/local-model/buildcheck.py),
offline: synthetic `objdump -d -w` text and a stand-in venv, no binary of llama.cpp.

A build made with -march=native on a CPU with AVX-512 or AMX dies of SIGILL on one without
(issue 29); the check refuses such a build by its machine code and by what llama.cpp says it
was compiled with.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import stat
import subprocess
import sys

import pytest
from paths import ROOT

HERE = ROOT / "scripts" / "local-model"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"local_model_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bc = load("buildcheck")

HEADER = """
libggml-cpu.so:     file format elf64-x86-64


Disassembly of section .text:

"""
# What the portable build's code looks like: SSE, AVX2 and FMA under VEX, and 0x62 as a
# byte that is not the opcode (VEX's vpunpckldq, SSE2's punpckldq, an immediate).
PORTABLE = HEADER + """\
0000000000012340 <ggml_vec_dot_q4_K_q8_K>:
   12340:\tc5 fd 6f 07          \tvmovdqa (%rdi),%ymm0
   12344:\tc4 e2 7d 18 0e       \tvbroadcastss (%rsi),%ymm1
   12349:\tc4 e2 f5 a8 c2       \tvfmadd213pd %ymm2,%ymm1,%ymm0
   1234e:\tc5 fd 62 c1          \tvpunpckldq %ymm1,%ymm0,%ymm0
   12352:\t66 0f 62 c1          \tpunpckldq %xmm1,%xmm0
   12356:\tb8 62 00 00 00       \tmov    $0x62,%eax
   1235b:\tc4 e2 f8 f5 c1       \tbzhi   %rax,%rcx,%rax
   12360:\tc3                   \tret
"""


def test_a_portable_build_has_no_findings():
    assert bc.scan(PORTABLE.splitlines(), "libggml-cpu.so") == {}


@pytest.mark.parametrize("line,kind", [
    # EVEX: 0x62 first, with or without an address-size or segment prefix before it
    ("62 f1 7d 48 6f 04 07 \tvmovdqa32 (%rdi,%rax,1),%zmm0", "AVX-512 (EVEX)"),
    ("67 62 f1 7d 28 6f 07 \tvmovdqa32 (%edi),%ymm0", "AVX-512 (EVEX)"),
    ("64 62 f1 fe 08 6f 00 \tvmovdqu64 %fs:(%rax),%xmm0", "AVX-512 (EVEX)"),
    ("62 f2 7d 08 50 c2    \tvpdpbusd %xmm2,%xmm0,%xmm0", "AVX-512 (EVEX)"),
    # AVX-512's mask instructions are VEX-encoded: their k registers tell
    ("c4 e1 fb 92 cb       \tkmovq  %rbx,%k1", "AVX-512 (EVEX)"),
    ("c5 f8 93 c1          \tkmovw  %k1,%eax", "AVX-512 (EVEX)"),
    # AMX
    ("c4 e2 7b 49 c0       \ttilezero %tmm0", "AMX"),
    ("c4 e2 7b 4b 0c 16    \ttileloadd (%rsi,%rdx,1),%tmm1", "AMX"),
    ("c4 e2 7a 4b 04 17    \ttilestored %tmm0,(%rdi,%rdx,1)", "AMX"),
    ("c4 e2 73 5e c2       \ttdpbssd %tmm1,%tmm2,%tmm0", "AMX"),
    ("c4 e2 78 49 07       \tldtilecfg (%rdi)", "AMX"),
    ("c4 e2 79 49 07       \tsttilecfg (%rdi)", "AMX"),
    ("c4 e2 78 49 c0       \ttilerelease", "AMX"),
    # AVX-VNNI: the VEX forms of the dot products
    ("c4 e2 75 50 c2       \t{vex} vpdpbusd %ymm2,%ymm1,%ymm0", "AVX-VNNI (VEX)"),
    ("c4 e2 75 52 c2       \t{vex} vpdpwssd %ymm2,%ymm1,%ymm0", "AVX-VNNI (VEX)"),
    ("c4 e2 77 50 c2       \tvpdpbssd %ymm2,%ymm1,%ymm0", "AVX-VNNI (VEX)"),
])
def test_instructions_beyond_the_baseline_are_found(line, kind):
    text = HEADER + "0000000000020000 <ggml_compute_forward_mul_mat>:\n   20000:\t" + line + "\n"
    found = bc.scan(text.splitlines(), "libggml-cpu.so")
    assert list(found) == [kind]
    assert found[kind][0].startswith("libggml-cpu.so <ggml_compute_forward_mul_mat> 20000: ")


def test_a_wrapped_instruction_is_read_from_its_first_line():
    # objdump without -w wraps long instructions: the further lines hold bytes only.
    text = ("0000000000020000 <f>:\n"
            "   20000:\t62 f1 7d 48 6f 84 07 \tvmovdqa32 0x100(%rdi,%rax,1),%zmm0\n"
            "   20007:\t00 01 00 00 \n")
    assert {k: len(v) for k, v in bc.scan(text.splitlines()).items()} == {"AVX-512 (EVEX)": 1}


def test_system_info_is_parsed_and_judged_per_architecture():
    x86 = bc.parse_system_info("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | "
                               "BMI2 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | ")
    assert x86["AVX2"] == "1" and bc.forbidden_features(x86, "x86_64") == []
    native = bc.parse_system_info("CPU : AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AVX_VNNI = 1 | "
                                  "AMX_INT8 = 1 | ")
    assert bc.forbidden_features(native, "x86_64") == ["AVX512 = 1", "AVX512_VNNI = 1", "AVX_VNNI = 1",
                                                       "AMX_INT8 = 1"]
    assert bc.forbidden_features(bc.parse_system_info("CPU : AVX512 = 0 | AMX_INT8 = 0 |"), "x86_64") == []
    arm = bc.parse_system_info("CPU : NEON = 1 | ARM_FMA = 1 | DOTPROD = 1 | SVE = 1 | SVE_CNT = 16 |")
    assert bc.forbidden_features(arm, "aarch64") == ["DOTPROD = 1", "SVE = 1", "SVE_CNT = 16"]


def executable(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def stand_in_venv(tmp_path: pathlib.Path, objdump_text: str, system_info: str) -> pathlib.Path:
    """A venv whose python prints system_info, beside an objdump that prints objdump_text."""
    venv = tmp_path / "venv"
    lib = venv / "lib" / "python3.11" / "site-packages" / "llama_cpp" / "lib"
    lib.mkdir(parents=True)
    (lib / "libggml-cpu.so").write_bytes(b"\x7fELF")
    (tmp_path / "objdump.txt").write_text(objdump_text)
    executable(tmp_path / "objdump", f"#!/bin/sh\ncat {tmp_path / 'objdump.txt'}\n")
    executable(venv / "bin" / "python", f"#!/bin/sh\necho '{system_info}'\n")
    return venv


def run_check(tmp_path, venv):
    return subprocess.run([sys.executable, str(HERE / "buildcheck.py"), str(venv)], capture_output=True,
                          text=True, env={**os.environ, "OBJDUMP": str(tmp_path / "objdump")})


@pytest.mark.skipif(bc.machine() != "x86_64", reason="the machine-code scan is for x86-64")
def test_the_command_passes_a_portable_build(tmp_path):
    venv = stand_in_venv(tmp_path, PORTABLE, "CPU : AVX2 = 1 | FMA = 1 | ")
    r = run_check(tmp_path, venv)
    assert r.returncode == 0, r.stderr
    assert "nothing beyond the x86_64 baseline" in r.stderr


@pytest.mark.skipif(bc.machine() != "x86_64", reason="the machine-code scan is for x86-64")
def test_the_command_refuses_a_native_build(tmp_path):
    native = PORTABLE + "   12361:\tc4 e2 7b 49 c0       \ttilezero %tmm0\n"
    venv = stand_in_venv(tmp_path, native, "CPU : AVX2 = 1 | AMX_INT8 = 1 | ")
    r = run_check(tmp_path, venv)
    assert r.returncode == 1
    assert "1 AMX instruction(s) in libggml-cpu.so, e.g. libggml-cpu.so <ggml_vec_dot_q4_K_q8_K> 12361: " \
           "tilezero %tmm0" in r.stderr
    assert "llama_print_system_info: AMX_INT8 = 1" in r.stderr


def test_the_command_refuses_a_venv_without_the_libraries(tmp_path):
    r = run_check(tmp_path, tmp_path / "nothing")
    assert r.returncode == 1 and "not a built llama-cpp-python venv" in r.stderr


def test_the_script_checks_the_build_before_it_keys_the_venv():
    text = (ROOT / "scripts" / "local-model.sh").read_text()
    build = text[text.index("install_venv() {"):]
    assert build.index("check_build") < build.index('req_digest >"$VENV/.dca-pins"')
    assert "check-build) check_build ;;" in text


REAL_CODE = r"""
#include <immintrin.h>
__attribute__((target("avx512f"))) void add512(float *x, float *y) {
    _mm512_storeu_ps(y, _mm512_add_ps(_mm512_loadu_ps(x), _mm512_loadu_ps(y))); }
__attribute__((target("avxvnni"))) __m256i dot(__m256i a, __m256i b, __m256i c) {
    return _mm256_dpbusd_avx_epi32(a, b, c); }
__attribute__((target("amx-tile"))) void tiles(void *cfg) { _tile_loadconfig(cfg); _tile_zero(0); _tile_release(); }
__attribute__((target("avx2,fma"))) void fma2(float *x, float *y) {
    _mm256_storeu_ps(y, _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(y), _mm256_loadu_ps(y))); }
"""


@pytest.mark.skipif(bc.machine() != "x86_64" or not all(map(shutil.which, ("gcc", "objdump"))),
                    reason="needs gcc and objdump on x86-64")
def test_real_machine_code_from_the_compiler(tmp_path):
    """The same scan over what gcc emits for each extension (functions compiled for a target,
    as -march=native would compile them all)."""
    (tmp_path / "t.c").write_text(REAL_CODE)
    lib = tmp_path / "libt.so"
    r = subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "t.c")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"this gcc cannot compile AMX or AVX-VNNI: {r.stderr[-200:]}")
    found = bc.scan_library(str(lib))
    functions = {kind: {w.split("<")[1].split(">")[0] for w in where} for kind, where in found.items()}
    assert functions == {"AVX-512 (EVEX)": {"add512"}, "AVX-VNNI (VEX)": {"dot"}, "AMX": {"tiles"}}
