"""The Python half of the API reference: every public module of the installed ``awale`` package
rendered by pdoc (docstrings, with the signatures and docstrings of ``awale/_core.pyi`` for the
extension), and checked on the way; run by ``scripts/reference.sh``.

    python scripts/reference_python.py OUT_DIR

Fails (exit 1, each problem on a line) when:

- pdoc warns (a module that does not import, a stub that does not match, a bad annotation);
- a name of a module's ``__all__`` is missing or has no docstring;
- a cross-reference in a docstring (``:class:`Game```, ``:func:`awale.search```, ``:mod:``...)
  names nothing: neither a documented object of the reference (looked up as Sphinx does: in the
  object's class, its module, then ``awale``) nor an importable object of another package;
- a link of the rendered pages points to a page or an anchor that does not exist.

Modules whose optional dependency is missing here (``awale.rllib`` needs ``ray[rllib]``, which
pins an older Gymnasium than the test venv's) are documented against a stand-in for that
dependency, as Sphinx's ``autodoc_mock_imports`` does, so that every public module is in the
reference wherever it is built. The recipes and examples (``awale.recipes``,
``awale.examples``) are programs run with ``python -m``: their packages' pages list them, their
``--help`` documents each.
"""

from __future__ import annotations

import html.parser
import importlib
import re
import sys
import types
import warnings
from pathlib import Path

from unittest import mock

import pdoc
import pdoc.doc
import pdoc.doc_pyi
import pdoc.render

# Cross-reference roles of the docstrings (reStructuredText, as Sphinx writes them).
ROLE = r"(?::py)?:(?:mod|func|data|const|class|meth|attr|exc|obj):`~?([^`<]+?)(?:\s*<([^>]+)>)?`"

# Optional dependencies replaced by a stand-in when they are not installed: module name -> the
# names the package imports from it (each a plain class).
STAND_INS = {
    "ray.rllib.env.multi_agent_env": ["MultiAgentEnv"],
}


def install_stand_ins() -> list[str]:
    """Puts a stand-in in ``sys.modules`` for each optional dependency that is missing; returns
    their names (written on the index page)."""
    used = []
    for name, attrs in STAND_INS.items():
        try:
            importlib.import_module(name)
            continue
        except Exception:  # not installed, or installed without what it needs (Ray, no RLlib)
            pass
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            if sub not in sys.modules or i == len(parts):
                mod = types.ModuleType(sub)
                mod.__path__ = []  # a package, so that the next part imports
                sys.modules[sub] = mod
        for attr in attrs:
            cls = type(attr, (), {"__module__": name, "__doc__": f"Stand-in for `{name}.{attr}`."})
            setattr(sys.modules[name], attr, cls)
        used.append(name)
    return used


def use_core_stubs() -> None:
    """Makes pdoc read ``awale/_core.pyi`` for the extension's names wherever they are
    documented (pdoc reads a module's stub for that module only, and ``awale._core`` is private:
    its classes are documented as ``awale.Rules``, ``awale.Game``, ...)."""
    original = pdoc.doc_pyi.include_typeinfo_from_stub_files
    stub_file = pdoc.doc_pyi.find_stub_file("awale._core")
    if stub_file is None:
        raise SystemExit("error: awale/_core.pyi not found beside the extension")
    stub = pdoc.doc_pyi._import_stub_file("awale._core", stub_file)
    stub_doc = pdoc.doc.Module(stub)

    def include(module: pdoc.doc.Module) -> None:
        original(module)
        if module.modulename == "awale._core":
            return
        members = [m for m in module.members.values() if m.taken_from[0] == "awale._core"]
        for member in members:  # the runtime side read while `awale._core` is the extension
            if isinstance(member, pdoc.doc.Class):
                pdoc.doc_pyi._prepare_module(member)
        with mock.patch.dict("sys.modules", {"awale._core": stub}):
            for member in members:
                if stub_doc.get(member.qualname) is not None:
                    pdoc.doc_pyi._patch_doc(member, stub_doc)

    pdoc.doc_pyi.include_typeinfo_from_stub_files = include


#: Packages of programs (``python -m awale.recipes.NAME``): documented by their package's page.
SCRIPTS = ("awale.recipes.", "awale.examples.")


def public_modules() -> tuple[list[str], list[str]]:
    """``awale`` and every submodule whose name does not start with ``_``: those of files, and
    those made at import time."""
    import pkgutil

    import awale

    names = ["awale"]
    for info in pkgutil.walk_packages(awale.__path__, "awale."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        # The recipes and examples are programs run with `python -m`, not an API: their packages'
        # pages list them; importing one would import its heavy packages (torch, sb3, ray).
        if info.name.startswith(SCRIPTS):
            continue
        names.append(info.name)
    # Modules made at import time (`awale.pettingzoo.abapa_v0`, ...): named in an `__all__`.
    made = []
    for name in names:
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", []):
            value = getattr(module, public, None)
            if isinstance(value, types.ModuleType) and value.__name__ == f"{name}.{public}":
                made.append(value.__name__)
    return names, made


def walk(doc: pdoc.doc.Doc):
    """Every documented object under ``doc``, ``doc`` included."""
    yield doc
    if isinstance(doc, pdoc.doc.Namespace):
        for member in doc.own_members if isinstance(doc, pdoc.doc.Class) else doc.members.values():
            if not member.name.startswith("_") or member.name == "__init__":
                yield from walk(member)


def external(target: str) -> bool:
    """Whether ``target`` names an object of an importable package (``gymnasium.Env``)."""
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def check_references(modules: dict[str, pdoc.doc.Module]) -> list[str]:
    """The cross-references of every docstring that name nothing."""
    known = set()
    for mod in modules.values():
        for d in walk(mod):
            known.add(d.fullname)
    problems = []
    for mod in modules.values():
        for d in walk(mod):
            scopes = []
            if isinstance(d, (pdoc.doc.Class, pdoc.doc.Module)):
                scopes.append(d.fullname)
            parent = d.fullname.rpartition(".")[0]
            while parent:
                scopes.append(parent)
                parent = parent.rpartition(".")[0]
            scopes.append("awale")
            for m in re.finditer(ROLE, d.docstring or ""):
                target = (m.group(2) or m.group(1)).strip().removesuffix("()").lstrip(".")
                candidates = [f"{scope}.{target}" for scope in scopes] + [target]
                if any(c in known for c in candidates) or external(target):
                    continue
                problems.append(f"{d.fullname}: unresolved reference {m.group(0)}")
    return problems


def check_names(modules: dict[str, pdoc.doc.Module]) -> list[str]:
    """The names of each module's ``__all__`` that are missing or have no docstring."""
    problems = []
    for name, mod in modules.items():
        if not mod.docstring.strip():
            problems.append(f"{name}: no module docstring")
        for public in getattr(mod.obj, "__all__", []):
            member = mod.members.get(public)
            if f"{name}.{public}" in modules:
                continue
            if member is None:
                problems.append(f"{name}.{public}: in __all__ but not documented")
            elif not isinstance(member, pdoc.doc.Variable) and not member.docstring.strip():
                problems.append(f"{name}.{public}: no docstring")
    return problems


class _Links(html.parser.HTMLParser):
    """The ``href`` and ``id`` attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "href" and value:
                self.hrefs.append(value)
            elif key in ("id", "name") and value:
                self.ids.add(value)


def unlink_inherited(root: Path, modules: dict[str, pdoc.doc.Module]) -> None:
    """Removes the links pdoc makes to members inherited from another package's class
    (``close()`` of a Gymnasium ``VectorEnv``): it links them to an anchor of the page that it
    does not write. The name stays, as code; every other missing anchor is an error."""
    for name, mod in modules.items():
        page = root / (name.replace(".", "/") + ".html")
        if not page.exists():
            continue
        text = page.read_text(encoding="utf-8")
        parser = _Links()
        parser.feed(text)

        def unlink(m: re.Match) -> str:
            anchor = m.group(1)
            doc = mod.get(anchor)
            if anchor in parser.ids or doc is None or doc.taken_from[0] in modules:
                return m.group(0)
            return m.group(2)

        page.write_text(re.sub(r'<a href="#([^"]+)">(.*?)</a>', unlink, text), encoding="utf-8")


def check_links(root: Path) -> list[str]:
    """The links of the pages under ``root`` to a missing page or anchor (other sites are not
    fetched)."""
    pages = {}
    for page in root.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        pages[page.resolve()] = parser
    problems = []
    for page, parser in pages.items():
        for href in parser.hrefs:
            if href.startswith(("http://", "https://", "mailto:", "data:", "javascript:")):
                continue
            path, _, anchor = href.partition("#")
            target = (page.parent / path).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if target.suffix != ".html":
                if not target.exists():
                    problems.append(f"{page.relative_to(root.resolve())}: broken link {href}")
                continue
            if target not in pages:
                problems.append(f"{page.relative_to(root.resolve())}: broken link {href}")
            elif anchor and anchor not in pages[target].ids:
                problems.append(f"{page.relative_to(root.resolve())}: missing anchor {href}")
    return problems


def main() -> int:
    out = Path(sys.argv[1])
    stand_ins = install_stand_ins()
    use_core_stubs()
    files, made = public_modules()
    names = sorted(files + made)
    for name in names:  # imported first: third-party warnings at import are not pdoc's
        try:
            importlib.import_module(name)
        except ImportError as e:
            print(
                f"error: {name} does not import ({e}); the reference needs the package's "
                "extras: pip install 'awale[sb3,torch]' pdoc",
                file=sys.stderr,
            )
            return 1

    pdoc.render.configure(
        docformat="restructuredtext",
        footer_text="awale: the Python API",
        show_source=False,
        search=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Each module named once: pdoc walks only the submodules a package's `__all__` names,
        # so each spec is followed by a pattern that drops what its walk added.
        specs = [s for name in names for s in (name, "!" + re.escape(name) + r"\.")]
        pdoc.pdoc(*specs, output_directory=out)
        modules = {name: pdoc.doc.Module(importlib.import_module(name)) for name in names}
        problems = check_names(modules) + check_references(modules)
    problems = [f"pdoc: {w.message}" for w in caught] + problems
    unlink_inherited(out, modules)
    problems += check_links(out)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    print(
        f"python reference: {len(names)} modules in {out}"
        + (f" (stand-ins: {', '.join(stand_ins)})" if stand_ins else "")
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
