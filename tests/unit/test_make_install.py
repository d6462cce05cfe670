"""The build and install interface, no server: make targets, `make install` (staged), deps.

`make deps` is the only step that installs system packages; `make install` builds and
copies files, honours PG_CONFIG and DESTDIR, and embeds the final PY_LIBDIR, never the
staging one.  The targets the docs name exist, and python/pyproject.toml names every
third-party module the package imports (docs/installing.md).
"""

from __future__ import annotations

import ast
import marshal
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest
from paths import ROOT

MAKEFILE = ROOT / "Makefile"
SYSTEM_PACKAGES = re.compile(r"\b(apt-get|apt-cache|apt|dpkg|dpkg-query|yum|dnf)\b")
# Distribution name -> the module it installs, where they differ.
IMPORT_NAMES = {"pyyaml": "yaml", "beautifulsoup4": "bs4"}

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def version() -> str:
    text = (ROOT / "extension" / "dbms_cloud_ai.control").read_text()
    return re.search(r"^default_version\s*=\s*'([^']+)'", text, re.M).group(1)


def makefile_targets() -> set[str]:
    targets = set()
    for line in MAKEFILE.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.$()/-][^:=#\s]*(?:[ \t]+[^:=#\s]+)*)[ \t]*:(?!=)", line)
        if m:
            targets.update(m.group(1).split())
    return targets


def header_targets() -> list[str]:
    names = []
    for line in MAKEFILE.read_text().splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s+make ([a-z][a-z-]*)", line)
        if m:
            names.append(m.group(1))
    return names


def documented_targets() -> dict[str, set[str]]:
    """`make X` as the docs, demo, bench, scripts and code write it: in backticks, in quotes,
    or at the start of a line in a Markdown code block."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True) \
        if shutil.which("git") else None
    files = listed.stdout.split() if listed and listed.returncode == 0 else [  # not a git checkout
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
        if not {".git", ".venv", ".lintvenv", "__pycache__"} & set(p.relative_to(ROOT).parts)]
    inline = re.compile(r"""[`"'](?:sudo )?(?:[A-Z_]+=\S+ )*make ([a-z][a-z-]*)""")
    block = re.compile(r"^(?:sudo )?(?:[A-Z_]+=\S+ )*make ([a-z][a-z-]*)")
    found: dict[str, set[str]] = {}
    for name in files:
        if name.startswith("sql/released/") or not name.endswith(
                (".md", ".py", ".sh", ".sql", ".toml", ".txt", ".ini", "Makefile", "/run")):
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        fenced = False
        for line in path.read_text().splitlines():
            if name.endswith(".md") and line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            hits = inline.findall(line)
            if fenced:
                hits += block.findall(line.strip())
            for target in hits:
                found.setdefault(target, set()).add(name)
    return found


def test_every_target_in_the_makefile_header_exists():
    named = header_targets()
    assert {"deps", "install", "test", "test-long", "lint", "demo", "demo-stop", "bench"} <= set(named)
    assert set(named) <= makefile_targets(), set(named) - makefile_targets()


def test_every_make_target_the_docs_name_exists():
    found = documented_targets()
    assert {"test", "demo", "install", "bench"} <= set(found)  # the scan sees them at all
    missing = {t: sorted(f) for t, f in found.items() if t not in makefile_targets()}
    assert not missing


def make_n(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "DESTDIR", "PG_CONFIG")}
    return subprocess.run(["make", "-n", "--no-print-directory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True).stdout


def with_scripts(commands: str) -> str:
    """The commands, followed by the text of every repository script they run."""
    text = [commands]
    for script in sorted(set(re.findall(r"\bscripts/[\w.-]+\.sh\b", commands))):
        text.append((ROOT / script).read_text())
    return "\n".join(text)


def fake_pg_config(tmp_path: pathlib.Path) -> pathlib.Path:
    share = tmp_path / "pg" / "share"
    script = tmp_path / "pg_config"
    script.write_text(f"""#!/bin/sh
case "$1" in
  --sharedir) echo '{share}' ;;
  --pkglibdir) echo '{tmp_path / "pg" / "lib"}' ;;
  --bindir) echo '{tmp_path / "pg" / "bin"}' ;;
  --version) echo 'PostgreSQL 15.99' ;;
  *) echo "fake pg_config: $1" >&2; exit 1 ;;
esac
""")
    script.chmod(0o755)
    return script


@needs_make
def test_make_install_installs_no_system_package(tmp_path):
    pg_config = fake_pg_config(tmp_path)
    commands = make_n("install", "DESTDIR=/tmp/x", f"PG_CONFIG={pg_config}")
    assert f"PG_CONFIG='{pg_config}'" in commands and "DESTDIR='/tmp/x'" in commands
    assert "scripts/install.sh" in commands
    assert not SYSTEM_PACKAGES.search(with_scripts(commands))


@needs_make
def test_make_deps_is_where_system_packages_are_installed():
    assert re.search(r"\bapt-get install\b", with_scripts(make_n("deps")))


def test_make_test_demo_and_bench_start_from_a_fresh_machine():
    """.ci/run runs `make test`, `make test-real` and `make test-oracle-sdk` on a fresh machine:
    deps, then install, then key."""
    rules = MAKEFILE.read_text()
    for target in ("test", "bench", "test-real", "test-oracle-sdk"):
        prereqs = re.search(rf"^{target}:(.*)$", rules, re.M).group(1).split()
        assert prereqs[:3] == ["deps", "install", "key"], (target, prereqs)
    demo = rules.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"\$\(MAKE\) [^\n]*\bdeps install key\b", demo)
    ci = (ROOT / ".ci" / "run").read_text()
    # each tier in turn: the fast one, the real-model tier, Oracle's SDK suite (issue 32)
    assert re.findall(r"^tier (\S+)$", ci, re.M) == ["test", "test-real", "test-oracle-sdk"]
    assert re.search(r'make "\$1"', ci)


@needs_make
def test_staged_make_install_copies_everything_and_embeds_the_final_paths(tmp_path):
    """A real `make install` into a DESTDIR, in a copy of the tree (so the build never
    touches this checkout's extension/), offline: the copy's lock file is empty, and the
    "interpreter PL/Python embeds" is this one."""
    tree = tmp_path / "tree"
    for part in ("Makefile", "scripts", "sql", "python/src", "python/pyproject.toml",
                 "extension/dbms_cloud_ai.control"):
        src, dst = ROOT / part, tree / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst)
    (tree / "python" / "requirements-lock.txt").write_text("# nothing to download in this test\n")
    stage, libdir = tmp_path / "stage", "/opt/dca-staged-test/lib"
    pg_config = fake_pg_config(tmp_path)
    extdir = stage / str(tmp_path / "pg" / "share").lstrip("/") / "extension"
    # an older install left the install script of a version now retired (sql/released/RETIRED)
    extdir.mkdir(parents=True)
    (extdir / "dbms_cloud_ai--0.5.0.sql").write_text("-- the frozen 0.5.0 install script\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "PG_CONFIG", "DESTDIR")}
    out = subprocess.run(["make", "--no-print-directory", "install", f"DESTDIR={stage}",
                          f"PG_CONFIG={pg_config}", f"PY_LIBDIR={libdir}", f"PLPYTHON={sys.executable}",
                          f"PYTHON={sys.executable}"],
                         cwd=tree, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert not pathlib.Path(libdir).exists()  # nothing outside DESTDIR

    v = version()
    names = {p.name for p in extdir.iterdir()}
    # the oldest install script and every update script; the retired one is removed
    released = {p.name for p in (ROOT / "sql" / "released").glob("dbms_cloud_ai--*.sql")}
    assert "dbms_cloud_ai--0.5.0--0.6.0.sql" in released and "dbms_cloud_ai--0.5.0.sql" not in released
    updates = {f"dbms_cloud_ai--{p.name}" for p in (ROOT / "sql" / "updates").glob(f"*--{v}.sql")}
    assert names == {"dbms_cloud_ai.control", f"dbms_cloud_ai--{v}.sql"} | released | updates
    for name in {f"dbms_cloud_ai--{v}.sql"} | updates:
        script = (extdir / name).read_text()
        assert f'DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "{libdir}"' in script, name
        assert str(stage) not in script and str(tmp_path) not in script, name
    for name in released:
        assert (extdir / name).read_bytes() == (ROOT / "sql" / "released" / name).read_bytes()

    pydir = stage / libdir.lstrip("/") / v / ("python%d.%d" % sys.version_info[:2])
    package = pydir / "dbms_cloud_ai"
    assert package.is_symlink() and not os.path.isabs(os.readlink(package))
    assert (package / "__init__.py").read_text() == \
        (ROOT / "python" / "src" / "dbms_cloud_ai" / "__init__.py").read_text()
    pyc = next((package / "__pycache__").glob("__init__.*.pyc"))
    code = marshal.loads(pyc.read_bytes()[16:])
    assert code.co_filename.startswith(f"{libdir}/{v}/"), code.co_filename  # final path


def imported_names(node: ast.AST) -> list[str]:
    """The absolute module names a node imports: import statements,
    importlib.import_module("name") and LazyModule("name", package=None) (lazy.py)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module] if node.level == 0 and node.module else []
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if func == "import_module" and len(node.args) == 1 and not node.args[0].value.startswith("."):
            return [node.args[0].value]
        if func == "LazyModule" and any(k.arg == "package" and isinstance(k.value, ast.Constant)
                                        and k.value.value is None for k in node.keywords):
            return [node.args[0].value]
    return []


def third_party_imports() -> dict[str, set[str]]:
    src = ROOT / "python" / "src" / "dbms_cloud_ai"
    found: dict[str, set[str]] = {}
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            mods = imported_names(node)
            for mod in mods:
                top = mod.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("dbms_cloud_ai", "plpy"):
                    found.setdefault(top, set()).add(path.name)
    return found


def requirement_names(lines) -> dict[str, str]:
    """{normalised distribution name: the requirement as written}."""
    out = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            name = re.match(r"[A-Za-z0-9_.-]+", line).group(0)
            out[re.sub(r"[-_.]+", "_", name).lower()] = line
    return out


def test_pyproject_names_every_third_party_module_the_package_imports():
    deps = requirement_names(tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
                             ["project"]["dependencies"])
    provided = {IMPORT_NAMES.get(d, d) for d in deps}
    imports = third_party_imports()
    assert {"httpx", "cryptography", "pglast", "sqlglot"} <= set(imports)
    missing = {m: sorted(f) for m, f in imports.items() if m not in provided}
    assert not missing, f"add to python/pyproject.toml dependencies: {missing}"


def test_the_lock_file_satisfies_pyproject_and_the_test_requirements_agree():
    from packaging.requirements import Requirement

    lock = requirement_names((ROOT / "python" / "requirements-lock.txt").read_text().splitlines())
    pinned = {n: r.split("==", 1)[1] for n, r in lock.items()}
    assert all("==" in r for r in lock.values()), "the lock file pins exact versions"
    for spec in tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())["project"]["dependencies"]:
        req = Requirement(spec)
        name = re.sub(r"[-_.]+", "_", req.name).lower()
        assert name in pinned, f"{spec}: not in python/requirements-lock.txt (make lock)"
        assert req.specifier.contains(pinned[name], prereleases=True), (spec, pinned[name])
    # tests/requirements.txt repeats the package's pins for the unit tests: the same versions.
    for name, line in requirement_names((ROOT / "tests" / "requirements.txt").read_text().splitlines()).items():
        if name in pinned:
            assert line == f"{line.split('==')[0]}=={pinned[name]}", (line, pinned[name])


def test_the_oracle_sdk_tier_pins_what_make_test_pins():
    """make test-oracle-sdk's venv (tests/oracle_sdk/requirements.txt) holds the same versions
    as make test's for the packages both install, and pins every one exactly."""
    ours = requirement_names((ROOT / "tests" / "requirements.txt").read_text().splitlines())
    tier = requirement_names((ROOT / "tests" / "oracle_sdk" / "requirements.txt").read_text().splitlines())
    assert all("==" in line for line in tier.values()), tier
    for name, line in tier.items():
        if name in ours and "==" in ours[name]:
            assert line == ours[name], (line, ours[name])
