"""The economy benchmark's tasks: real bug fixes from the history of three public repositories.

Each task is one upstream commit: the tree is its parent (or, for chi, a commit the fix applies to with
this machine's Go 1.19), the task text is what a user would type, and the final change is the commit's
own change to the files listed (source and tests), split into one Edit per hunk. Each task has one
realistic slip in one hunk, which the project's checks catch, so every flow has a fix round; `explains`
is what the check output must show for the fix to be obvious (else the flow has to look further).

The repositories are not part of rt: `run.py` clones them from the paths given on its command line.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Repo:
    name: str
    lang: str
    setup: tuple[tuple[str, ...], ...]   # commands run in a fresh clone, before any flow ({packageManager}:
                                         # package.json's, e.g. pnpm@9.5.0)
    checks: str                          # what a plain session runs to check its work: the project's own tools


@dataclass(frozen=True)
class Slip:
    path: str
    right: str      # a piece of the commit's new text
    wrong: str      # what the first attempt wrote instead; the fix Edit puts `right` back
    explains: str   # shown by the checks' output when it explains the failure


@dataclass(frozen=True)
class Task:
    name: str
    repo: str
    commit: str            # the upstream fix
    base: str              # the tree the task starts from
    files: tuple[str, ...]
    text: str
    grep: str              # the plain sessions' first search
    slip: Slip
    final: str             # the last message, the same in every flow


REPOS = {
    "python": Repo("click", "Python", (
        ("python3", "-m", "venv", ".venv"),
        (".venv/bin/pip", "install", "-q", "-e", ".", "pytest==9.0.2", "mypy==1.20.0", "pyright==1.1.408",
         "ruff==0.15.9"),
    ), ".venv/bin/ruff check . ; .venv/bin/mypy ; .venv/bin/pyright ; .venv/bin/python -m pytest -q"),
    "typescript": Repo("ufo", "TypeScript", (
        ("rm", "-rf", "node_modules"),
        ("npx", "--yes", "{packageManager}", "install", "--frozen-lockfile"),   # the lockfile's versions
    ), "node_modules/.bin/tsc --noEmit ; node_modules/.bin/eslint . ; node_modules/.bin/vitest run"),
    "go": Repo("chi", "Go", (), "go build ./... ; go vet ./... ; go test ./..."),
}
"""Repository kind -> how to prepare a clone and the check command a plain session types."""

TASKS = (
    Task("click-choice-brackets", "python", "762c97ee", "762c97ee^", ("src/click/core.py", "tests/test_basic.py"),
         "The usage line doubles the brackets of an optional Choice argument: "
         "`@click.argument(\"method\", type=click.Choice([\"foo\", \"bar\"]), required=False)` shows "
         "`[[foo|bar]]`. Make Argument.make_metavar reuse the brackets the type's metavar already has, "
         "and add tests.",
         "grep -rn \"def make_metavar\\|def test_choice_argument\" src tests",
         Slip("src/click/core.py", "if not self.required and not already_bracketed:",
              "if not self.required or not already_bracketed:", "[ARG]"),
         "Argument.make_metavar no longer wraps an already bracketed metavar (src/click/core.py); "
         "two tests added. All checks pass."),
    Task("click-deprecated-label", "python", "82f377c5", "82f377c5^",
         ("src/click/core.py", "tests/test_commands.py", "tests/test_options.py"),
         "A deprecated command or option whose help text is empty gets a stray leading space before the "
         "(DEPRECATED) label in --help. Make the label stand alone when there is no help text, in "
         "Command.format_help_text and in Option's constructor, and add tests.",
         "grep -rn \"_format_deprecated_label\\|def test_deprecated\" src tests",
         Slip("src/click/core.py", "text = f\"{_(text)} {label}\" if text else label",
              "text = f\"{_(text)} {label}\" if text is not None else label", "(DEPRECATED"),
         "The deprecation label no longer gets a leading space when the help text is empty "
         "(src/click/core.py); tests added for commands and options. All checks pass."),
    Task("ufo-base-prefix", "typescript", "eb29945", "eb29945^", ("src/utils.ts", "test/base.test.ts"),
         "withBase and withoutBase treat \"/admin-dashboard\" as if it had the base \"/admin\". Only count "
         "the base when the input continues with \"/\", \"?\" or ends there, in both functions, and add "
         "test cases.",
         "grep -rn \"withBase\\|withoutBase\" src test",
         Slip("src/utils.ts", "if (nextChar && nextChar !== \"/\" && nextChar !== \"?\") {",
              "if (nextChar && nextChar !== \"/\") {", "/?test"),
         "withBase and withoutBase only match the base at a path boundary (src/utils.ts); test cases "
         "added. All checks pass."),
    Task("ufo-relative-protocol", "typescript", "62199a0", "62199a0^", ("src/utils.ts", "test/utilities.test.ts"),
         "withProtocol(\"//example.com\", \"https://\") should give \"https://example.com\": treat a "
         "protocol-relative URL as having a protocol to replace. Add test cases.",
         "grep -rn \"withProtocol\" src test",
         Slip("src/utils.ts", "let match = input.match(PROTOCOL_REGEX);",
              "const match = input.match(PROTOCOL_REGEX);", "match"),
         "withProtocol replaces the leading // of a protocol-relative URL (src/utils.ts); test cases "
         "added. All checks pass."),
    Task("chi-register-method", "go", "9fb4a15", "9b9fb55", ("tree.go", "mux_test.go"),
         "RegisterMethod adds a custom HTTP method to methodMap but not to reverseMethodMap, so Walk "
         "does not report the routes of custom methods. Fix it and extend TestCustomHTTPMethod to walk "
         "the routes.",
         "grep -rn \"func RegisterMethod\\|reverseMethodMap\\|func TestCustomHTTPMethod\" --include=*.go .",
         Slip("tree.go", "reverseMethodMap[mt] = method", "reverseMethodMap[method] = mt",
              "cannot use method"),
         "RegisterMethod now records the method in reverseMethodMap (tree.go); TestCustomHTTPMethod walks "
         "the routes. All checks pass."),
    Task("chi-consecutive-wildcards", "go", "0265fcd", "0265fcd^", ("context.go", "context_test.go"),
         "replaceWildcards in context.go calls itself again after each pass; make it a loop that "
         "collapses consecutive wildcards (\"/*/*/\") and add a test for them.",
         "grep -rn \"replaceWildcards\\|func TestRoutePattern\" --include=*.go .",
         Slip("context.go", "\tfor strings.Contains(p, \"/*/\") {", "\tif strings.Contains(p, \"/*/\") {",
              "unexpected wildcard replacement"),
         "replaceWildcards is a loop now and collapses consecutive wildcards (context.go); test added. "
         "All checks pass."),
)
