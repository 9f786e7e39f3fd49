"""The project's own checks: found from its files, adjusted by `rt.toml`, run with timeouts.

Detection reads what the repository declares (package.json, pyproject.toml, setup.cfg, tox.ini,
Makefile, go.mod, Cargo.toml); nothing is guessed from the tools installed on the machine. `rt checks`
lists what was found and why. Commands keep repository-relative paths, so listings are byte-stable.
"""
from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import json
import os
import re
import signal
import sys
import time
from collections import namedtuple
from functools import lru_cache

from rt.core import Repo, Result, StoreError, UsageError, listed, read_text, spawn, to_rel
from rt.diagnostics.diff import Run, classify, head
from rt.diagnostics.parsers import RECOMMENDED_ARGS, RECOMMENDED_ENV
from rt.sandbox import bounded
from rt.state import FIX_ATTEMPTS
from rt.store import Store

KINDS = ("typecheck", "lint", "format", "build", "test")
"""Every check has one of these kinds; checks run in this order (cheap and telling first)."""

DEFAULT_TIMEOUT = 600
CONFIG = "rt.toml"

PY = ("*.py", "*.pyi")
JS = ("*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue", "*.svelte")
GO = ("*.go", "go.mod", "go.sum")
RUST = ("*.rs", "Cargo.toml", "Cargo.lock")
RUN_ENV = RECOMMENDED_ENV | {"PYTHONDONTWRITEBYTECODE": "1", "CI": "1", "TERM": "dumb"}
"""No colour, no watch mode, no `__pycache__` left in the tree (it would show as a change)."""


class ConfigError(UsageError):
    pass


class Check(namedtuple("Check", "name kind command required timeout per_file parser reason files",
                       defaults=(("*",),))):
    """One check: `kind` typecheck | lint | format | build | test; `per_file` the command for one file,
    with "{file}" (None: a full run, filtered); `reason` why it was detected (which file or entry);
    `files` the globs of the changed files it can report on. (A named tuple, not a dataclass: the
    post-edit hook reads the checks, and `dataclasses` imports `inspect`, `ast` and `dis`.)"""

    __slots__ = ()

    def applies_to(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return any(fnmatch.fnmatchcase(rel if "/" in g else name, g) for g in self.files)


# ---------------------------------------------------------------- the config file

def load_config(repo: Repo) -> dict:
    """`rt.toml` at the root, else `[tool.rt]` in pyproject.toml, else nothing; validated."""
    text = read_text(repo, CONFIG)
    where = CONFIG
    if text is None and os.path.lexists(repo.root / CONFIG):   # never a silent fall-back to the defaults
        raise ConfigError(f"{CONFIG} is there but is no file rt reads (a link, a folder, binary or too large); "
                          f"make it a plain text file")
    if text is None:
        data = _table(_toml(repo, "pyproject.toml").get("tool")).get("rt")
        where = "pyproject.toml [tool.rt]"
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ConfigError(f"{where} must be a table")
    else:
        try:
            data = _loads(repo, CONFIG, text)
        except (ValueError, RecursionError) as e:   # tomllib.TOMLDecodeError, or nested past Python's reader
            why = e if isinstance(e, ValueError) else "nested too deep"
            raise ConfigError(f"{CONFIG}: not valid TOML ({why}); fix it or remove it") from None
    _validate(data, where)
    return data


_TOP = {"fix_attempts": int, "rerun_failed_tests": int, "timeout": int, "checks": dict, "format": dict,
        "intent": bool, "agent": dict}   # [agent]: read and checked by rt/agent/config.py
_FIELDS = {"kind": str, "command": list, "per_file": list, "required": bool, "timeout": int,
           "parser": str, "files": list, "enabled": bool}


def _validate(data: dict, where: str) -> None:
    for key, value in data.items():
        if key not in _TOP:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(_TOP))})")
        if not isinstance(value, _TOP[key]) or isinstance(value, bool) and _TOP[key] is int:
            raise ConfigError(f"{where}: {key} must be a {_TOP[key].__name__}")
    if not 0 <= data.get("rerun_failed_tests", 0) <= MAX_RERUNS:
        raise ConfigError(f"{where}: rerun_failed_tests must be 0 (no rerun) to {MAX_RERUNS}")
    if data.get("fix_attempts", 1) < 1:
        raise ConfigError(f"{where}: fix_attempts must be 1 or more (failed verifies before edits stop)")
    timeouts = [("timeout", data.get("timeout", 1))] + [(f"[checks.{name}] timeout", entry.get("timeout", 1))
                                                        for name, entry in data.get("checks", {}).items()
                                                        if isinstance(entry, dict) and isinstance(entry.get("timeout", 1), int)]
    for key, value in timeouts:
        if isinstance(value, int) and not 0 < value <= MAX_TIMEOUT:
            raise ConfigError(f"{where}: {key} must be a whole number of seconds from 1 to {MAX_TIMEOUT}")
    for name, entry in data.get("checks", {}).items():
        if not _NAME.fullmatch(name) or ".." in name:   # it names the check's log file in .rt/
            raise ConfigError(f"{where}: check name {name!r} may hold letters, digits, '-', '_' and '.' only")
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: [checks.{name}] must be a table")
        for key, value in entry.items():
            want = _FIELDS.get(key)
            if want is None:
                raise ConfigError(f"{where}: [checks.{name}] unknown key {key!r} (known: {', '.join(sorted(_FIELDS))})")
            if not isinstance(value, want) or isinstance(value, bool) and want is int:
                raise ConfigError(f"{where}: [checks.{name}] {key} must be a {want.__name__}")
            if want is list and not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: [checks.{name}] {key} must be a list of strings")
        if any(entry.get(key, ["?"])[:1] == [""] for key in ("command", "per_file")):
            raise ConfigError(f"{where}: [checks.{name}] command must name a program first")
        if "parser" in entry:
            from rt.diagnostics.parsers import PARSERS   # here: only a config naming one pays for the parsers
            if entry["parser"] not in PARSERS:
                raise ConfigError(f"{where}: [checks.{name}] parser must be one of {', '.join(sorted(PARSERS))}")
        if entry.get("kind", "lint") not in KINDS:
            raise ConfigError(f"{where}: [checks.{name}] kind must be one of {', '.join(KINDS)}")
        if "per_file" in entry and "{file}" not in entry["per_file"]:
            raise ConfigError(f"{where}: [checks.{name}] per_file must contain \"{{file}}\"")
    for pattern, argv in data.get("format", {}).items():
        if not (isinstance(argv, list) and argv and all(isinstance(v, str) for v in argv) and "{file}" in argv):
            raise ConfigError(f"{where}: [format] {pattern!r} must be a command list containing \"{{file}}\"")


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
MAX_RERUNS = 10
"""The most runs again a test check's new failures get (each is a run of the suite)."""
MAX_TIMEOUT = 86_400
"""The longest timeout a check takes, in seconds (a day): a longer one overflows the clock's arithmetic."""


def seconds(text: str) -> int:
    """`--timeout` as argparse reads it: a whole number of seconds above zero, MAX_TIMEOUT at most."""
    if not text.isdigit() or not 0 < int(text) <= MAX_TIMEOUT:
        import argparse   # here: the hooks, which import this module, parse no command line
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds from 1 to {MAX_TIMEOUT}")
    return int(text)


def intent_setting(repo: Repo) -> bool | None:
    """rt.toml's `intent = true|false` (intent mode, `rt/claude/intent.py`), or None when it does not say."""
    return load_config(repo).get("intent")


def fix_attempt_limit(repo: Repo) -> int:
    return load_config(repo).get("fix_attempts", FIX_ATTEMPTS)


RERUN_FAILED_TESTS = 1
"""How many times `rt verify` runs a test check again when it has new failures. One rerun tells a test
that fails under load now and then (seen in real suites) from one the change broke, at the cost of one
more run of the suite only when it already failed; 0 turns it off."""


def failed_test_reruns(repo: Repo) -> int:
    return load_config(repo).get("rerun_failed_tests", RERUN_FAILED_TESTS)


# ---------------------------------------------------------------- reading the project's files

TOML_CACHE = "toml.json"
"""`.rt/toml.json`: each TOML file rt read (rt.toml, pyproject.toml, ruff.toml), its text and what it
parsed to. The post-edit hook reads rt.toml and pyproject.toml on every edit; with this it neither
imports nor runs the TOML parser (5 ms of its start-up). The text is compared whole, so a changed file
is always parsed again; a document JSON cannot hold (dates) is not kept."""


@lru_cache(maxsize=8)
def _loads(repo: Repo, rel: str, text: str) -> dict:
    """TOML parsed once: per process for each text (detection and the config read pyproject.toml and
    rt.toml several times in one command), and across processes through TOML_CACHE. (A parsed document
    is only read, never changed.)"""
    store = Store(repo)
    try:
        kept = store.read_json(TOML_CACHE) or {}
    except StoreError:   # a damaged cache is parsed past, and written again
        kept = {}
    entry = kept.get(rel)
    if isinstance(entry, dict) and entry.get("text") == text and isinstance(entry.get("data"), dict):
        return entry["data"]
    import tomllib  # here: only for a file read for the first time or changed since
    data = tomllib.loads(text)
    if store.dir.is_dir() and not store.dir.is_symlink() and _plain(data):   # never creates .rt/
        kept[rel] = {"text": text, "data": data}
        with contextlib.suppress(OSError):
            store.write_json(TOML_CACHE, kept, durable=False)
    return data


def _plain(value) -> bool:
    """Whether JSON gives `value` back as it is (TOML's dates and times it does not)."""
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, (str, int, float, bool))


def _toml(repo: Repo, rel: str) -> dict:
    text = read_text(repo, rel)
    if text is None:
        return {}
    try:
        return _loads(repo, rel, text)
    except (ValueError, RecursionError):   # tomllib.TOMLDecodeError, or nested past Python's reader
        return {}


def _table(value) -> dict:
    """A TOML table a project file should hold there, or an empty one when it holds another type (`tool = 1`)."""
    return value if isinstance(value, dict) else {}


def _strings(value) -> list[str]:
    """The strings of a TOML array a project file should hold there; nothing when it holds another type."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


class _NoIni:
    """The INI file that is not there, read as an empty one: importing `configparser` compiles its
    patterns, which the hooks of a project without setup.cfg or tox.ini would pay for nothing."""

    def sections(self) -> list[str]:
        return []

    def has_section(self, section: str) -> bool:
        return False

    def has_option(self, section: str, option: str) -> bool:
        return False

    def get(self, section: str, option: str, *, fallback=None):
        return fallback


def _ini(repo: Repo, rel: str):
    """A `configparser.ConfigParser` of the file (empty when unreadable), `_NoIni` when there is none."""
    text = read_text(repo, rel)
    if text is None:
        return _NoIni()
    import configparser
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        pass
    return parser


def _exists(repo: Repo, rel: str) -> bool:
    return os.path.lexists(repo.root / rel)


_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _python_deps(repo: Repo) -> dict[str, str]:
    """Package name -> the file that declares it, from every usual place a Python project lists them."""
    found: dict[str, str] = {}

    def add(spec: str, where: str) -> None:
        m = _REQ_NAME.match(spec)
        if m:
            found.setdefault(m.group(1).lower().replace("_", "-"), where)

    py = _toml(repo, "pyproject.toml")
    project = _table(py.get("project"))
    for spec in _strings(project.get("dependencies")):
        add(spec, "pyproject.toml")
    for group in (_table(project.get("optional-dependencies")) | _table(py.get("dependency-groups"))).values():
        for spec in _strings(group):
            add(spec, "pyproject.toml")
    poetry = _table(_table(py.get("tool")).get("poetry"))
    tables = [_table(poetry.get("dependencies")), _table(poetry.get("dev-dependencies"))]
    tables += [_table(_table(g).get("dependencies")) for g in _table(poetry.get("group")).values()]
    for table in tables:
        for name in table:
            add(name, "pyproject.toml")
    cfg = _ini(repo, "setup.cfg")
    for section, key in (("options", "install_requires"), ("options", "tests_require")):
        for line in cfg.get(section, key, fallback="").splitlines():
            add(line, "setup.cfg")
    if cfg.has_section("options.extras_require"):
        for value in cfg["options.extras_require"].values():
            for line in value.splitlines():
                add(line, "setup.cfg")
    tox = _ini(repo, "tox.ini")
    for section in tox.sections():
        for line in tox.get(section, "deps", fallback="").splitlines():
            add(line, "tox.ini")
    req_files = [n for n in listed(repo.root) if n.endswith(".txt") and "requirements" in n[:-4]]
    req_files += [f"requirements/{n}" for n in listed(repo.root / "requirements") if n.endswith(".txt")]
    for rel in req_files:
        for line in (read_text(repo, rel) or "").splitlines():
            if not line.lstrip().startswith(("#", "-")):
                add(line, rel)
    return found


def _makefile_mentions(repo: Repo) -> set[str]:
    text = read_text(repo, "Makefile") or ""
    return set(re.findall(r"\b(pytest|mypy|pyright|ruff|flake8|pylint|unittest)\b", text))


def _local(repo: Repo, name: str, *where: str) -> str:
    """The project's own copy of a tool (node_modules/.bin, a venv) when present, else its name for PATH."""
    for folder in where:
        rel = f"{folder}/{name}"
        if _exists(repo, rel):
            return rel
    return name


def _py_tool(repo: Repo, name: str) -> str:
    return _local(repo, name, ".venv/bin", "venv/bin")


# ---------------------------------------------------------------- detection per ecosystem

def _package_json(repo: Repo) -> tuple[dict, dict]:
    """package.json as a dict (empty when absent or unreadable), and every dependency it declares."""
    try:
        pkg = json.loads(read_text(repo, "package.json") or "{}")
    except ValueError:
        return {}, {}
    if not isinstance(pkg, dict):
        return {}, {}
    deps: dict = {}
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        if isinstance(pkg.get(key), dict):
            deps |= pkg[key]
    return pkg, deps


def _node(repo: Repo) -> list[Check]:
    pkg, deps = _package_json(repo)
    if not pkg:
        return []
    scripts = pkg.get("scripts") if isinstance(pkg.get("scripts"), dict) else {}

    def bin_(name: str) -> str:
        return _local(repo, name, "node_modules/.bin")

    out = []
    if "typescript" in deps or _exists(repo, "tsconfig.json"):
        why = "package.json depends on typescript" if "typescript" in deps else "tsconfig.json exists"
        out.append(Check("tsc", "typecheck", [bin_("tsc"), *RECOMMENDED_ARGS["tsc"]], True, DEFAULT_TIMEOUT,
                         None, "tsc", why, JS))
    eslint_cfg = [n for n in ("eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts",
                              ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc")
                  if _exists(repo, n)]
    if "eslint" in deps or eslint_cfg:
        why = "package.json depends on eslint" if "eslint" in deps else f"{eslint_cfg[0]} exists"
        cmd = [bin_("eslint"), *RECOMMENDED_ARGS["eslint"]]
        if any(n.startswith(".eslintrc") for n in eslint_cfg) or "eslintConfig" in pkg:
            # eslint 8 with a legacy config: a whole run lints only .js unless told, and has no --no-warn-ignored
            whole, one = cmd + ["--ext", ".js,.jsx,.ts,.tsx,.mjs,.cjs", "."], cmd + ["{file}"]
        else:
            whole, one = cmd + ["."], cmd + ["--no-warn-ignored", "{file}"]
        out.append(Check("eslint", "lint", whole, True, DEFAULT_TIMEOUT, one, "eslint", why, JS))
    if "vitest" in deps:
        flags = RECOMMENDED_ARGS["vitest"][1:]  # after `run`
        out.append(Check("vitest", "test", [bin_("vitest"), "run", *flags], True, DEFAULT_TIMEOUT,
                         [bin_("vitest"), "related", "--run", *flags, "{file}"], "vitest",
                         "package.json depends on vitest", JS))
    elif "jest" in deps:
        cmd = [bin_("jest"), *RECOMMENDED_ARGS["jest"]]
        out.append(Check("jest", "test", cmd, True, DEFAULT_TIMEOUT, cmd + ["--findRelatedTests", "{file}"], "jest",
                         "package.json depends on jest", JS))
    elif isinstance(scripts.get("test"), str) and "no test specified" not in scripts["test"]:
        out.append(Check("test", "test", ["npm", "test", "--silent"], True, DEFAULT_TIMEOUT, None, "generic",
                         "package.json scripts.test", JS))
    if isinstance(scripts.get("build"), str):
        out.append(Check("build", "build", ["npm", "run", "build", "--silent"], False, DEFAULT_TIMEOUT, None,
                         "generic", "package.json scripts.build (optional: ask with --with build)", JS))
    return out


def _python(repo: Repo) -> list[Check]:
    tool = _table(_toml(repo, "pyproject.toml").get("tool"))
    setup_cfg, tox = _ini(repo, "setup.cfg"), _ini(repo, "tox.ini")
    deps = _python_deps(repo)
    make = _makefile_mentions(repo)

    def why(name: str, signs: list[tuple[bool, str]]) -> str | None:
        for hit, reason in signs:
            if hit:
                return reason
        if name in deps:
            return f"{deps[name]} lists {name}"
        if name in make:
            return f"Makefile runs {name}"
        return None

    out = []
    reason = why("mypy", [("mypy" in tool, "pyproject.toml [tool.mypy]"), (_exists(repo, "mypy.ini"), "mypy.ini exists"),
                          (setup_cfg.has_section("mypy"), "setup.cfg [mypy]"), (tox.has_section("mypy"), "tox.ini [mypy]")])
    if reason:
        cmd = [_py_tool(repo, "mypy"), *RECOMMENDED_ARGS["mypy"]]
        target = [] if "files" in _table(tool.get("mypy")) or setup_cfg.has_option("mypy", "files") else ["."]
        # no per-file form: mypy on one file checks it out of its package context (and past its .pyi stub),
        # so its findings would not compare with the baseline's; a full run with mypy's cache is filtered
        out.append(Check("mypy", "typecheck", cmd + target, True, DEFAULT_TIMEOUT, None, "mypy", reason, PY))
    reason = why("pyright", [("pyright" in tool, "pyproject.toml [tool.pyright]"),
                             (_exists(repo, "pyrightconfig.json"), "pyrightconfig.json exists")])
    if reason:
        cmd = [_py_tool(repo, "pyright"), *RECOMMENDED_ARGS["pyright"]]
        out.append(Check("pyright", "typecheck", cmd, True, DEFAULT_TIMEOUT, cmd + ["{file}"], "pyright", reason, PY))
    reason = why("ruff", [("ruff" in tool, "pyproject.toml [tool.ruff]"), (_exists(repo, "ruff.toml"), "ruff.toml exists"),
                          (_exists(repo, ".ruff.toml"), ".ruff.toml exists")])
    if reason:
        cmd = [_py_tool(repo, "ruff"), *RECOMMENDED_ARGS["ruff"], "--no-fix"]
        out.append(Check("ruff", "lint", cmd + ["."], True, DEFAULT_TIMEOUT, cmd + ["--force-exclude", "{file}"],
                         "ruff", reason, PY))
    reason = why("flake8", [(_exists(repo, ".flake8"), ".flake8 exists"), (setup_cfg.has_section("flake8"), "setup.cfg [flake8]"),
                            (tox.has_section("flake8"), "tox.ini [flake8]")])
    if reason:
        cmd = [_py_tool(repo, "flake8"), *RECOMMENDED_ARGS["flake8"]]
        out.append(Check("flake8", "lint", cmd, True, DEFAULT_TIMEOUT, cmd + ["{file}"], "flake8", reason, PY))
    reason = why("pylint", [("pylint" in tool, "pyproject.toml [tool.pylint]"), (_exists(repo, ".pylintrc"), ".pylintrc exists"),
                            (_exists(repo, "pylintrc"), "pylintrc exists")])
    if reason:
        cmd = [_py_tool(repo, "pylint"), *RECOMMENDED_ARGS["pylint"]]
        out.append(Check("pylint", "lint", cmd + ["--recursive=y", "."], True, DEFAULT_TIMEOUT, cmd + ["{file}"],
                         "pylint", reason, PY))
    reason = why("pytest", [("pytest" in tool, "pyproject.toml [tool.pytest.ini_options]"),
                            (_exists(repo, "pytest.ini"), "pytest.ini exists"),
                            (setup_cfg.has_section("tool:pytest"), "setup.cfg [tool:pytest]"),
                            (tox.has_section("pytest"), "tox.ini [pytest]"),
                            (_exists(repo, "conftest.py") or _exists(repo, "tests/conftest.py"), "conftest.py exists")])
    tox_unittest = any("unittest" in tox.get(s, "commands", fallback="") for s in tox.sections())
    if not reason and ("unittest" in make or tox_unittest):
        reason = f"{'Makefile' if 'unittest' in make else 'tox.ini'} runs unittest (pytest runs those tests too)"
    if reason:
        python = _local(repo, "python", ".venv/bin", "venv/bin")
        cmd = [python if python != "python" else "python3", "-m", "pytest", *RECOMMENDED_ARGS["pytest"]]
        out.append(Check("pytest", "test", cmd, True, DEFAULT_TIMEOUT, None, "pytest", reason, PY))
    return out


def _go(repo: Repo) -> list[Check]:
    if not _exists(repo, "go.mod"):
        return []
    return [
        Check("go-build", "build", ["go", "build", "./..."], True, DEFAULT_TIMEOUT, None, "go", "go.mod exists", GO),
        Check("go-test", "test", ["go", "test", "./..."], True, DEFAULT_TIMEOUT, None, "go", "go.mod exists", GO),
        Check("go-vet", "lint", ["go", "vet", "./..."], True, DEFAULT_TIMEOUT, None, "go", "go.mod exists", GO),
    ]


def _rust(repo: Repo) -> list[Check]:
    if not _exists(repo, "Cargo.toml"):
        return []
    fmt = RECOMMENDED_ARGS["cargo"]
    return [
        Check("cargo-check", "typecheck", ["cargo", "check", "--all-targets", *fmt], True, DEFAULT_TIMEOUT, None,
              "cargo", "Cargo.toml exists", RUST),
        Check("cargo-test", "test", ["cargo", "test"], True, DEFAULT_TIMEOUT, None, "cargo", "Cargo.toml exists", RUST),
        Check("clippy", "lint", ["cargo", "clippy", "--all-targets", *fmt], False, DEFAULT_TIMEOUT, None, "cargo",
              "Cargo.toml exists (optional: clippy may not be installed; ask with --with clippy)", RUST),
    ]


def detect(repo: Repo) -> list[Check]:
    """Every check the repository declares, adjusted and extended by the config file; byte-stable order."""
    config = load_config(repo)
    timeout = config.get("timeout", DEFAULT_TIMEOUT)
    found = {c.name: c._replace(timeout=timeout) for c in _node(repo) + _python(repo) + _go(repo) + _rust(repo)}
    where = CONFIG if _exists(repo, CONFIG) else "pyproject.toml [tool.rt]"
    for name, entry in config.get("checks", {}).items():
        if entry.get("enabled") is False:
            found.pop(name, None)
            continue
        base = found.get(name)
        if base is None:
            if "command" not in entry:
                raise ConfigError(f"{where}: [checks.{name}] is not a detected check, so it needs a command")
            base = Check(name, "lint", [], True, timeout, None, "generic", f"{where} [checks.{name}]")
        else:
            base = base._replace(reason=f"{base.reason}; adjusted in {where}")
        changes = {k: v for k, v in entry.items() if k != "enabled"}
        if "files" in changes:
            changes["files"] = tuple(changes["files"])
        found[name] = base._replace(**changes)
    for check in found.values():
        if not check.command:
            raise ConfigError(f"{where}: [checks.{check.name}] command is empty")
    return sorted(found.values(), key=lambda c: (KINDS.index(c.kind), c.name))


def select(repo: Repo, wanted: list[str]) -> list[Check]:
    """The required checks plus the optional ones named, which then count as required for this run.

    An unknown name is an error that lists the known ones."""
    checks = detect(repo)
    names = {c.name for c in checks}
    unknown = sorted(set(wanted) - names)
    if unknown:
        known = ", ".join(sorted(names)) or "none detected"
        raise UsageError(f"no check named {', '.join(unknown)} (known: {known}); `rt checks` lists them")
    return [c._replace(required=True) if c.name in wanted else c for c in checks if c.required or c.name in wanted]


# ---------------------------------------------------------------- formatters

_FORMATTERS = (
    # (sign that the project uses it, files, program, folders of its local copy, arguments)
    ("prettier", JS + ("*.json", "*.css", "*.scss", "*.md", "*.html", "*.yaml", "*.yml"), "prettier",
     ("node_modules/.bin",), ["--write", "{file}"]),
    ("ruff-format", PY, "ruff", (".venv/bin", "venv/bin"), ["format", "{file}"]),
    ("black", PY, "black", (".venv/bin", "venv/bin"), ["-q", "{file}"]),
    ("gofmt", ("*.go",), "gofmt", (), ["-w", "{file}"]),
    ("rustfmt", ("*.rs",), "rustfmt", (), ["{file}"]),
)


def formatter_for(repo: Repo, rel: str) -> list[str] | None:
    """The argv that formats `rel` in place: from `[format]` in the config, else the project's declared formatter."""
    name = rel.rsplit("/", 1)[-1]
    for pattern, argv in sorted(load_config(repo).get("format", {}).items()):
        if fnmatch.fnmatchcase(rel if "/" in pattern else name, pattern):
            return [rel if a == "{file}" else a for a in argv]
    used = _declared_formatters(repo)
    for key, globs, program, folders, args in _FORMATTERS:
        if key in used and any(fnmatch.fnmatchcase(name, g) for g in globs):
            return [_local(repo, program, *folders)] + [rel if a == "{file}" else a for a in args]
    return None


def _declared_formatters(repo: Repo) -> set[str]:
    used = set()
    pkg, deps = _package_json(repo)
    if "prettier" in deps or "prettier" in pkg or any(_exists(repo, n) for n in (".prettierrc", ".prettierrc.json")):
        used.add("prettier")
    tool = _table(_toml(repo, "pyproject.toml").get("tool"))
    if "format" in _table(tool.get("ruff")) or "format" in _toml(repo, "ruff.toml"):
        used.add("ruff-format")
    if "black" in tool or "black" in _python_deps(repo):
        used.add("black")
    if _exists(repo, "go.mod"):
        used.add("gofmt")
    if _exists(repo, "Cargo.toml"):
        used.add("rustfmt")
    return used


# ---------------------------------------------------------------- running

KEEP = 1 << 20
"""Of each output stream of a check, the first and the last KEEP bytes are kept in memory, parsed and
reported; the whole output goes to its log under `.rt/` as it comes, so however long it is it holds at
most 2 KEEP per stream in memory (3 while the tail is trimmed), and the report says when a middle went unread."""
GRACE = 2.0
"""Seconds a check's output pipes may stay open after its program exited (children finishing their
writes) before its process group is killed and the pipes closed."""


class Ran:
    """One check's run: the parsed result, the output kept for people (head and tail when it was long),
    how long it took, how many bytes it printed (None: it never started), and whether a middle was cut
    (then only the head and tail of a stream were parsed)."""

    __slots__ = ("run", "output", "seconds", "printed", "cut")

    def __init__(self, run: Run, output: str, seconds: float, printed: int, cut: bool):
        self.run, self.output, self.seconds, self.printed, self.cut = run, output, seconds, printed, cut


def run_check(repo: Repo, check: Check, file: str | None = None, timeout: int | None = None,
              log: str | None = None) -> Ran:
    """Run one check (on one file when `file` is given and the check has a per-file form); with `log`
    (a path in `.rt/`), its whole output, stdout then stderr, is written there.

    A program that is missing, cannot start or times out gives a `could_not_run` result with the
    reason and the first lines of whatever it printed; it never counts as zero diagnostics.
    """
    arg = "./" + file if file and file.startswith("-") else file   # `-x.py` is a file to the tool, not its option
    argv = check.command if file is None else [arg if a == "{file}" else a for a in check.per_file or check.command]
    limit = timeout or check.timeout
    started = time.monotonic()
    try:
        with tool_cache(repo, check, argv) as (argv, env, writable):
            # within the sandbox's bounds when `rt install --sandbox` set it (bounded() names what is missing)
            proc = _session(repo, bounded(repo.root, argv, writable), limit, log, env)
    except OSError as e:
        reason = _start_failure(e.filename or argv[0], e, check)
        if log:
            Store(repo).write_text(log, f"rt: {reason}\n")
        return _could_not_run(check, reason, "", started)
    output = proc.output
    if proc.returncode is None:
        return _could_not_run(check, f"timed out after {limit}s (raise `timeout` in {CONFIG})", output, started, proc)
    result = classify(check.name, check.parser, proc.returncode, output, str(repo.root), check.required)
    return Ran(result, output, time.monotonic() - started, proc.printed, proc.cut)


CACHED: dict[str, tuple[list[str], dict[str, str], bool]] = {
    "mypy": (["--cache-dir", "{cache}"], {}, False),
    "pytest": ([], {"PYTHONPYCACHEPREFIX": "{cache}", "PYTHONDONTWRITEBYTECODE": ""}, True),
}
"""Tools run with a cache of rt's own, `.rt/cache/<tool>/`, and the flags and environment that point them
there. Each trusts a file whose size and second of modification match what it recorded: mypy its cache,
Python (so pytest, and pytest's rewritten test files) a `.pyc` in `__pycache__`, which any earlier run may
have left in the tree. An edit that keeps the size, in the second in which a run read the file, would go
unseen. So rt's runs never read the tree's `__pycache__` or `.mypy_cache`, and when, after a run, a file
the check reads has a timestamp at or after the run's start (the racy-timestamp rule of rt's own
snapshot), rt drops its cache and the next run reads every file again (of a cache that mirrors the file
tree, the third field, only the repository's part: the standard library's bytecode stays). The other tools run without a
cache (ruff `--no-cache`, pytest `-p no:cacheprovider`, eslint without `--cache`) or compare content (tsc's
`.tsbuildinfo`). A command that is not the tool itself (`make typecheck`) keeps the tool's own rules."""


def _tool(argv: list[str]) -> str | None:
    """The name in CACHED that `argv` runs (`mypy ...`, `.venv/bin/mypy ...`, `python -m pytest ...`), or None."""
    name = os.path.basename(argv[0])
    if name.startswith("python") and argv[1:2] == ["-m"] and len(argv) > 2:
        name = argv[2]
    return name if name in CACHED else None


@contextlib.contextmanager
def tool_cache(repo: Repo, check: Check, argv: list[str]):
    """`argv` and the environment pointing at rt's cache for its tool (see CACHED), and the folders the run
    must be able to write;
    the run takes the cache's lock (mypy's cache is not safe for two runs at once), and the cache is dropped
    afterwards if a file the check reads may have changed within a second the run read it in."""
    tool = _tool(argv)
    if tool is None:
        yield argv, {}, ()
        return
    store = Store(repo)
    store.ensure()
    cache = store.path("cache", tool)
    cache.mkdir(parents=True, exist_ok=True)
    flags, env, mirror = CACHED[tool]
    flags = [os.path.relpath(cache, repo.root) if a == "{cache}" else a for a in flags]   # the run's cwd
    env = {k: str(cache) if v == "{cache}" else v for k, v in env.items()}
    fd = os.open(store.path("cache", f"{tool}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        start = store.path("cache", f"{tool}.start")
        store.write_bytes(start, b"")   # its timestamp: the run's start, on the files' own clock
        try:
            cut = argv.index("--") if "--" in argv else len(argv)   # flags after `--` would be taken for files
            yield [*argv[:cut], *flags, *argv[cut:]], env, (cache,)
        finally:
            if _changed_since(repo, check, os.stat(start).st_mtime_ns // 10**9):
                import shutil
                shutil.rmtree(cache.joinpath(*repo.root.parts[1:]) if mirror else cache, ignore_errors=True)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _changed_since(repo: Repo, check: Check, second: int) -> bool:
    """Whether a file the check applies to, in a folder mypy would look in (not hidden, not `__pycache__`,
    `site-packages` or `node_modules`), has a modification time in `second` or later."""
    top = str(repo.root) + os.sep
    for folder, dirs, files in os.walk(repo.root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "site-packages", "node_modules")]
        for name in files:
            path = os.path.join(folder, name)
            if check.applies_to(path.removeprefix(top).replace(os.sep, "/")):
                try:
                    if os.stat(path).st_mtime_ns // 10**9 >= second:
                        return True
                except OSError:
                    return True   # gone or changing while we look: as good as changed
    return False


def _start_failure(program: str, e: OSError, check: Check | None = None) -> str:
    if isinstance(e, FileNotFoundError):
        return f"program not found: {program} ({_install_hint(check)}, or set its command in {CONFIG})"
    if isinstance(e, PermissionError):
        return f"program cannot be run (permission denied): {program}"
    return f"program failed to start: {program}: {e.strerror or e}"


def _could_not_run(check: Check, reason: str, output: str, started: float, session=None) -> Ran:
    return Ran(Run(check.name, check.required, "could_not_run", [], reason, head(output)), output,
               time.monotonic() - started, session.printed if session else None, bool(session and session.cut))


class _Stream:
    """One output pipe of a check: its first and last KEEP bytes in memory, all of it into `sink` if any."""

    def __init__(self, sink=None):
        self.head, self.tail, self.size, self.sink = bytearray(), bytearray(), 0, sink

    def add(self, data: bytes) -> None:
        self.size += len(data)
        if self.sink is not None:
            self.sink.write(data)
        room = KEEP - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > 2 * KEEP:   # trimmed now and then, not on every read
            del self.tail[:-KEEP]

    @property
    def cut(self) -> bool:
        return self.size > 2 * KEEP

    def text(self) -> str:
        """What was kept, as text; when a middle was dropped, whole lines either side and a line saying so."""
        if not self.cut:
            return (self.head + self.tail).decode("utf-8", "replace")
        head, tail = bytes(self.head), bytes(self.tail[-KEEP:])
        head = head[:head.rfind(b"\n") + 1] or head
        tail = tail[tail.find(b"\n") + 1:] or tail
        gap = self.size - len(head) - len(tail)
        return (head.decode("utf-8", "replace") + f"[rt: {gap:,} bytes of output cut here, kept in its log]\n"
                + tail.decode("utf-8", "replace"))


class _Session:
    """A finished check process: exit code (None when it was killed at its timeout) and its output."""

    def __init__(self, returncode: int | None, out: _Stream, err: _Stream):
        self.returncode = returncode
        first, second = out.text(), err.text()
        self.output = first + ("\n" if first and second and not first.endswith("\n") else "") + second
        self.printed = out.size + err.size
        self.cut = out.cut or err.cut


def _session(repo: Repo, argv: list[str], limit: float, log: str | None, env: dict | None = None) -> _Session:
    """Run a check's program to its end or its timeout, whichever comes first, in memory bounded by KEEP;
    with `log`, its whole output is written there as it comes (stderr through a temporary file)."""
    store = Store(repo)
    with contextlib.ExitStack() as stack:
        proc = stack.enter_context(spawn(argv, repo.root, env=RUN_ENV | (env or {})))
        stack.callback(_end, proc)   # whatever happens here, nothing of the check outlives it
        sink = spill = None
        if log:   # shutil and tempfile only then: the post-edit hook's runs keep no log
            import shutil
            import tempfile
            sink = stack.enter_context(store.writing(store.path(*log.split("/"))))
            spill = stack.enter_context(tempfile.TemporaryFile(dir=store.dir))
        streams = {proc.stdout.fileno(): _Stream(sink), proc.stderr.fileno(): _Stream(spill)}
        returncode = _pump(proc, streams, time.monotonic() + limit)
        if spill is not None:   # the log is stdout then stderr, as the output parsed
            spill.seek(0)
            shutil.copyfileobj(spill, sink)
        return _Session(returncode, *streams.values())


def _pump(proc, streams: dict[int, _Stream], deadline: float) -> int | None:
    """Read the pipes until the program has exited and they are closed. The timeout holds for the whole
    session: when it passes, or GRACE after the program exited while something it started still holds
    its output open (`setsid sleep 60 &`), the process group is killed, what the pipes hold is read, and
    they are closed. A child that left the group survives, but rt no longer waits for it.
    The exit code; None when the program was still running at the timeout."""
    import selectors
    exited = None
    with selectors.DefaultSelector() as sel:
        for fd in streams:
            sel.register(fd, selectors.EVENT_READ)
        try:   # told when the program exits, not polling for it (Linux 5.3 and later)
            pidfd = os.pidfd_open(proc.pid)
            sel.register(pidfd, selectors.EVENT_READ)
        except (AttributeError, OSError):
            pidfd = None
        try:
            while True:
                now = time.monotonic()
                if exited is None and _exited(proc.pid):
                    exited = now
                if exited is not None and not streams.keys() & sel.get_map().keys():
                    break
                until = deadline if exited is None else min(deadline, exited + GRACE)
                if now >= until:
                    break
                _read(sel, streams, until - now if pidfd is not None else min(until - now, 0.1))
            timed_out = exited is None and not _exited(proc.pid)
            _kill_group(proc)
            for _ in range(64):   # what the pipes hold already; a child outside the group may write on
                if not _read(sel, streams, 0):
                    break
        finally:
            if pidfd is not None:
                os.close(pidfd)
    return None if timed_out else proc.wait()


def _read(sel, streams: dict[int, _Stream], wait: float) -> bool:
    """One round of reading whatever pipes are ready, waiting up to `wait` seconds for one; whether
    anything was read."""
    got = False
    for key, _ in sel.select(wait) if sel.get_map() else ():
        data = os.read(key.fd, 1 << 16) if key.fd in streams else b""
        if data:
            streams[key.fd].add(data)
            got = True
        else:   # a pipe closed, or the program's exit (its pidfd), which the loop sees through `_exited`
            sel.unregister(key.fd)
    return got


def _exited(pid: int) -> bool:
    """Whether the process has ended, without reaping it (its group id stays ours to kill)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:   # reaped already
        return True


def _kill_group(proc) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _end(proc) -> None:
    """Kill the group, close the pipes and reap the program: the check is over, whatever it left."""
    if proc.returncode is None:
        _kill_group(proc)
    proc.stdout.close()
    proc.stderr.close()
    proc.wait()


def show_progress() -> bool:
    """Progress lines are for a person at a terminal: Claude Code (CLAUDECODE=1) puts a command's stderr
    into the tool result, where they would cost the model bytes and tell it nothing the report does not."""
    return os.environ.get("CLAUDECODE") != "1" and sys.stderr is not None and sys.stderr.isatty()


def run_all(repo: Repo, checks: list[Check], timeout: int | None = None, logs: str | None = None,
            after=None) -> list[Ran]:
    """Run checks one after another, with progress on a terminal's stderr (which check, elapsed); each
    one's whole output goes to `<logs>/<name>.log` in `.rt/` when `logs` is given, and `after(check, ran)`
    is called once each has run."""
    out = []
    progress = show_progress()
    for i, check in enumerate(checks, 1):
        if progress:
            print(f"rt: [{i}/{len(checks)}] {check.name}: {' '.join(check.command)}", file=sys.stderr, flush=True)
        ran = run_check(repo, check, timeout=timeout, log=f"{logs}/{check.name}.log" if logs else None)
        if progress:
            count = len(ran.run.diagnostics)
            what = ran.run.status.replace("_", " ") + (f", {count} diagnostic(s)" if count else "")
            print(f"rt: [{i}/{len(checks)}] {check.name}: {what} ({ran.seconds:.1f}s)", file=sys.stderr, flush=True)
        if after is not None:
            after(check, ran)
        out.append(ran)
    return out


def cut_note(ran: Ran) -> str:
    """For a report: that a check's output was over the cap, so only its head and tail were read."""
    if not ran.cut:
        return ""
    return (f"output was {ran.printed / 1e6:,.0f} MB (only its first and last {KEEP >> 20} MiB were read "
            f"for diagnostics: a new one in the middle would go unseen)")


# ---------------------------------------------------------------- rt checks

def installed(repo: Repo, program: str) -> bool:
    """Whether a check's program can be started: a repository-relative path, or a name on PATH."""
    if "/" in program:
        return os.access(repo.root / program, os.X_OK)
    import shutil
    return shutil.which(program) is not None


def describe_check(repo: Repo, c: Check) -> list[str]:
    flags = "required" if c.required else "optional"
    lines = [f"{c.name}  {c.kind}, {flags}, timeout {c.timeout}s, parser {c.parser}",
             f"  run:      {' '.join(c.command)}"]
    if c.per_file:
        lines.append(f"  per file: {' '.join(c.per_file)}")
    lines.append(f"  why:      {c.reason}")
    if not installed(repo, c.command[0]):
        lines.append(f"  missing:  {c.command[0]} is not installed here, so this check cannot run ({_install_hint(c)})")
    return lines


def _install_hint(check: Check | None) -> str:
    """How to get a missing program: a tool package.json declares comes with the project's dependencies."""
    if check is not None and check.reason.startswith("package.json depends on"):
        return "`npm install` puts the project's copy in node_modules/.bin"
    return "install it"


def args_checks(p) -> None:
    p.add_argument("--file", metavar="F", help="also show the formatter and the checks that apply to this file")


def cmd_checks(ctx, args) -> Result:
    checks = detect(ctx.repo)
    lines = []
    for c in checks:
        lines += describe_check(ctx.repo, c)
    if not checks:
        lines.append(f"no checks found: nothing declares a linter, type checker or test runner; add them in {CONFIG}")
    data = {"checks": [c._asdict() | {"files": list(c.files), "installed": installed(ctx.repo, c.command[0])} for c in checks],
            "fix_attempts": fix_attempt_limit(ctx.repo)}
    if args.file:
        rel = to_rel(ctx.repo, args.file)
        applies = [c.name for c in checks if c.applies_to(rel)]
        fmt = formatter_for(ctx.repo, rel)
        lines.append(f"{rel}: checks {', '.join(applies) or 'none'}; formatter {' '.join(fmt) if fmt else 'none'}")
        data |= {"file": rel, "applies": applies, "formatter": fmt}
    return Result("\n".join(lines), data)
