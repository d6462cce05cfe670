#!/usr/bin/env python3
"""Is the server venv's llama.cpp build portable?  (docs/local-model.md, "What the build
assumes of the CPU".)  Stdlib only.

The build's baseline is fixed (scripts/local-model.sh, build_flags): on x86_64 AVX2 with FMA,
F16C and BMI2, nothing later.  A build that nonetheless holds later instructions (made with
-march=native on a machine with AVX-512 or AMX, say) runs where it was built and dies with
SIGILL at the first token elsewhere, so two witnesses are asked:

- the machine code: `objdump -d` of llama_cpp's shared libraries, scanned for EVEX-encoded
  instructions (AVX-512: opcode byte 0x62 in 64-bit code, zmm or mask registers), AMX
  (tile*, tdp*, ldtilecfg, sttilecfg) and AVX-VNNI's VEX forms;
- what llama.cpp says it was compiled with: llama_print_system_info(), run by the venv's
  python (AVX512*, AMX*, AVX_VNNI must not be there; on aarch64 nothing past ARMv8-A).

    buildcheck.py VENV     exit 0 when both find nothing beyond the baseline, else 1

OBJDUMP names the objdump to run (default objdump).
"""
from __future__ import annotations

import glob
import os
import platform
import re
import subprocess
import sys

# "  1a2b3:\t62 f1 7d 48 6f 04 07 \tvmovdqa32 (%rdi),%zmm0" (objdump -d -w: all bytes on one line)
INSN = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(.*)$")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
# Prefixes that may precede an EVEX instruction: address size and segment overrides.
EVEX_PREFIXES = {"67", "26", "2e", "36", "3e", "64", "65"}
EVEX_OPERAND = re.compile(r"%zmm\d+|%k[0-7]\b")
AMX = re.compile(r"^(tile\w*|tdp\w+|ldtilecfg|sttilecfg)\b")
# AVX-VNNI (and AVX-IFMA, AVX-NE-CONVERT): objdump writes "{vex}" before a VEX form that has
# an EVEX twin; AVX-VNNI-INT8/INT16 have no EVEX twin, so their names alone tell.
VEX_LATER = re.compile(r"^(\{vex\}\s*\w+|vpdp[bw][su][su]ds?)\b")

# llama_print_system_info's features that a portable build must not have, per architecture.
FORBIDDEN_FEATURES = {
    "x86_64": re.compile(r"^(AVX512\w*|AMX\w*|AVX_VNNI)$"),
    "aarch64": re.compile(r"^(SVE\w*|SME\w*|DOTPROD|MATMUL_INT8|FP16_VA)$"),
}
SHOWN = 3  # examples shown per kind of instruction


def machine() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def classify(raw: str, text: str) -> str | None:
    """The kind of post-baseline x86-64 instruction this is, or None."""
    mnemonic = text.strip()
    if AMX.match(mnemonic):
        return "AMX"
    codes = raw.split()
    while codes and codes[0] in EVEX_PREFIXES:
        codes.pop(0)
    if (codes and codes[0] == "62" and not mnemonic.startswith("(bad)")) or EVEX_OPERAND.search(mnemonic):
        return "AVX-512 (EVEX)"
    if VEX_LATER.match(mnemonic):
        return "AVX-VNNI (VEX)"
    return None


def scan(lines, library: str = "") -> dict[str, list[str]]:
    """kind -> where (library, function, address, instruction) for objdump -d output lines."""
    found: dict[str, list[str]] = {}
    function = "?"
    for line in lines:
        line = line.rstrip("\n")
        m = FUNCTION.match(line)
        if m:
            function = m.group(1)
            continue
        m = INSN.match(line)
        if not m:  # headers, blank lines, a wrapped instruction's further bytes
            continue
        kind = classify(m.group(2), m.group(3))
        if kind:
            where = f"{library} <{function}> {m.group(1)}: {' '.join(m.group(3).split())}".lstrip()
            found.setdefault(kind, []).append(where)
    return found


def parse_system_info(text: str) -> dict[str, str]:
    """"CPU : SSE3 = 1 | AVX2 = 1 | ... |" -> {"SSE3": "1", "AVX2": "1", ...}."""
    return dict(re.findall(r"([A-Z][A-Z0-9_]*) = (\w+)", text))


def forbidden_features(features: dict[str, str], arch: str) -> list[str]:
    pattern = FORBIDDEN_FEATURES.get(arch)
    if not pattern:
        return []
    return [f"{k} = {v}" for k, v in features.items() if pattern.match(k) and v != "0"]


def libraries(venv: str) -> list[str]:
    return sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "llama_cpp", "lib", "*.so")))


def scan_library(path: str) -> dict[str, list[str]]:
    objdump = os.environ.get("OBJDUMP", "objdump")
    with subprocess.Popen([objdump, "-d", "-w", path], stdout=subprocess.PIPE, text=True,
                          errors="replace") as p:
        found = scan(p.stdout, os.path.basename(path))
    if p.returncode != 0:
        raise RuntimeError(f"{objdump} -d {path} failed (status {p.returncode})")
    return found


def system_info(venv: str) -> str:
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
    r = subprocess.run([os.path.join(venv, "bin", "python"), "-c", code], capture_output=True,
                       text=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    if r.returncode != 0:
        status = f"signal {-r.returncode}" if r.returncode < 0 else f"status {r.returncode}"
        raise RuntimeError(f"importing llama_cpp failed ({status}): {r.stderr.strip()[-400:]}")
    return r.stdout


def check(venv: str, arch: str) -> list[str]:
    """What makes the build not portable (or could not be checked); empty when it is."""
    problems = []
    libs = libraries(venv)
    if not libs:
        return [f"no llama_cpp/lib/*.so in {venv}: not a built llama-cpp-python venv"]
    try:
        if arch == "x86_64":  # the machine-code scan knows x86-64 only
            for lib in libs:
                for kind, where in scan_library(lib).items():
                    problems.append(f"{len(where)} {kind} instruction(s) in {os.path.basename(lib)}, e.g. "
                                    + "; ".join(where[:SHOWN]))
        features = parse_system_info(system_info(venv))
    except (OSError, RuntimeError) as e:
        return problems + [str(e)]
    return problems + [f"llama_print_system_info: {f}" for f in forbidden_features(features, arch)]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    arch = machine()
    problems = check(argv[1], arch)
    for p in problems:
        print(f"local-model: check-build: {p}", file=sys.stderr)
    if not problems:
        print(f"local-model: check-build: {len(libraries(argv[1]))} libraries hold nothing beyond "
              f"the {arch} baseline", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
