"""The package's shape (issue 16): no import cycle, no function-local import.

An import cycle means no module of it can be read, tested or changed alone; a
function-local import hides a dependency (and usually such a cycle).  Modules
a chat session must not load are imported on first use through lazy.py, whose
edges count here like any import: they must not close a cycle either.
"""

from __future__ import annotations

import ast
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[2] / "python" / "src"
PKG = "dbms_cloud_ai"


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for p in sorted((SRC / PKG).rglob("*.py")):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _target(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text())):
            found = []
            if isinstance(node, ast.ImportFrom):
                t = _target(mod, is_pkg, node)
                found = [f"{t}.{a.name}" if f"{t}.{a.name}" in mods else t for a in node.names]
            elif isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("LazyModule", "lazy_function")
                  and node.args and isinstance(node.args[0], ast.Constant)
                  and not any(k.arg == "package" for k in node.keywords)):
                found = [f"{PKG}.{node.args[0].value}"]
            edges[mod] |= {t for t in found if t in mods and t != mod}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    edges = _graph()
    assert len(edges) > 30 and edges[f"{PKG}.generate"], "the graph was read"
    assert _cycles(edges) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _type_checking_blocks(tree: ast.Module) -> list[ast.If]:
    """The module's top-level ``if TYPE_CHECKING:`` statements."""
    return [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]


def test_no_function_local_import():
    """Imports are at the top of the module, or in its top-level ``if
    TYPE_CHECKING:`` block (the twins of lazy imports)."""
    local = []
    for path in _modules().values():
        tree = ast.parse(path.read_text())
        top = set(map(id, tree.body)) | {id(n) for b in _type_checking_blocks(tree) for n in b.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                local.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert local == []


def _lazy_names(tree: ast.Module) -> dict[str, str]:
    """{name: module} of the module's LazyModule assignments, at any depth of
    its top level (an ``else:`` of ``if TYPE_CHECKING:``)."""
    out = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "LazyModule"):
            package = [k.value for k in node.value.keywords if k.arg == "package"]
            base = node.value.args[0].value
            name = base if package else f"{PKG}.{base}"
            out.update({t.id: name for t in node.targets})
    return out


def _checked_imports(mod: str, path: pathlib.Path, tree: ast.Module) -> dict[str, str]:
    """{name: module} of what the ``if TYPE_CHECKING:`` block imports."""
    out = {}
    for block in _type_checking_blocks(tree):
        for node in block.body:
            if isinstance(node, ast.ImportFrom):
                t = _target(mod, path.name == "__init__.py", node)
                out.update({a.asname or a.name: f"{t}.{a.name}" for a in node.names})
            elif isinstance(node, ast.Import):
                out.update({a.asname or a.name: a.name for a in node.names})
    return out


def test_every_lazy_import_has_its_type_checking_twin():
    """A LazyModule hides its edge from editors, type checkers and structure
    tools; an ``if TYPE_CHECKING:`` import of the same module under the same
    name shows it (lazy.py), and costs nothing at run time."""
    found, missing = 0, []
    for mod, path in _modules().items():
        tree = ast.parse(path.read_text())
        checked = _checked_imports(mod, path, tree)
        for name, target in _lazy_names(tree).items():
            found += 1
            if checked.get(name) != target:
                missing.append(f"{path.relative_to(SRC)}: {name} = LazyModule({target!r})")
    assert found > 10, "the lazy modules were found"
    assert missing == []


def test_the_twin_check_finds_a_missing_twin():
    tree = ast.parse('x = LazyModule("nl2sql.actions")\nif TYPE_CHECKING:\n    from .nl2sql import sqlrun as x\n')
    assert _lazy_names(tree) == {"x": f"{PKG}.nl2sql.actions"}
    assert _checked_imports(f"{PKG}.generate", SRC / PKG / "generate.py", tree) == {"x": f"{PKG}.nl2sql.sqlrun"}


def test_packages_say_what_they_hold_and_import_nothing():
    """A package's __init__ documents its concern and imports nothing, so that
    importing one of its modules loads no sibling it does not use (cold start:
    a chat session loads model/ and memory/ but not memory/jobs.py).  providers/
    is the exception: its __init__ is the providers' table."""
    inits = {m: p for m, p in _modules().items() if p.name == "__init__.py"}
    assert f"{PKG}.nl2sql" in inits and f"{PKG}.model" in inits, "subpackages were found"
    for mod, path in inits.items():
        tree = ast.parse(path.read_text())
        assert ast.get_docstring(tree), mod
        if mod != f"{PKG}.providers":
            assert [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))] == [], mod


def test_handlers_import_the_turn_not_generate():
    """generate.py runs the actions; their modules must not import it back."""
    edges = _graph()
    assert [m for m, e in edges.items() if f"{PKG}.generate" in e] == [f"{PKG}.sqlapi"]


def _map_of_modules(doc: str) -> set[str]:
    """The files docs/architecture.md's map lists, as paths under the package
    (a subpackage's line stands for its __init__.py)."""
    block = doc.split("## Where things live", 1)[1].split("```\n", 2)[1]
    lines = block.splitlines()
    assert lines[0] == f"{PKG}/", "the map starts at the package"
    out, folder = set(), ""
    for line in lines[1:]:
        indent, name = len(line) - len(line.lstrip()), line.split()[0]
        if indent == 2:
            folder = name if name.endswith("/") else ""
            out.add(f"{name}__init__.py" if folder else name)
        else:
            assert indent == 4 and folder, line
            out.add(folder + name)
    return out


def test_the_architecture_map_lists_every_module():
    """docs/architecture.md's map is where the next person looks a module up:
    a module missing from it, or a line for a module that is gone, fails here."""
    doc = (SRC.parents[1] / "docs" / "architecture.md").read_text()
    listed = _map_of_modules(doc)
    present = {p.relative_to(SRC / PKG).as_posix() for p in _modules().values()}
    assert len(present) > 60, "the package was read"
    assert sorted(present - listed) == [], "modules missing from the map"
    assert sorted(listed - present) == [], "the map lists modules that do not exist"
