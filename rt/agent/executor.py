"""The executor: one call per task, with one file (or the part of it the task needs) and one task.

A file of up to OUTLINE_HINT lines is shown whole; a longer one as the pack shows code (`pack.fragments`:
its imports and the definitions the task's words match, found through the index's outline), so a call
never carries more than the window leaves for code. A small file may be answered whole; otherwise the
answer is exact SEARCH/REPLACE edits. Markdown fences are stripped in code, not fought in the prompt.
An answer that does not apply gets one more call with the error, then the task fails with it.

Nothing here writes: a task's outcome carries the file's new text, and the run writes it (`command.py`).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from rt import budget
from rt.agent import prompt
from rt.agent.planner import Step
from rt.context import View, folder_summary, render_file
from rt.lookup.symbols import OUTLINE_HINT
from rt.pack.fragments import FEW_DEFS, Fragment, fragments
from rt.pack.rank import parse_task

FORMAT_EDITS = """Answer with edits only, each in this exact form:
<<<<<<< SEARCH
lines copied exactly from the code shown, enough to be unique
=======
the lines that replace them
>>>>>>> REPLACE
Copy the SEARCH lines character for character, with their indentation. No other text."""

SYSTEM = {
    "edits": "You change one file of a code repository to do one task.\n" + FORMAT_EDITS,
    "whole": "You change one file of a code repository to do one task.\n"
             "Answer with the complete new content of the file and nothing else: no explanation.",
    "create": "You write one new file of a code repository to do one task.\n"
              "Answer with the complete content of the new file and nothing else: no explanation.",
    "query": "You answer one question about a code repository from the code shown.\n"
             "Answer in a few plain sentences. Change nothing.",
}


@dataclass
class Outcome:
    status: str              # done, answered, failed, skipped
    detail: str
    content: str | None = None   # a done edit or create: the file's new text
    answer: str = ""         # an answered query


@dataclass
class Draft:
    """What one task's call is made of, read in the run's main thread before its wave is sent."""
    step: Step
    text: str | None         # the file's text (newlines as \n); None for a new file or no file
    material: list[Fragment] | str   # the code: the whole file (one fragment), or the repository map
    entry: object            # the file's index entry (its outline), for the parts the task's words point at
    keys: dict[str, float]   # the task's words as ranking keys
    folder: str              # folder context
    memory: list[str]        # notes from the tasks it depends on
    mode: str                # edits, whole, create, query

    def messages(self, window: int, notes: list[str]) -> tuple[list[dict], prompt.Room, str]:
        """The call's messages fitted into `window`, with `notes` (a failed answer's error) first in memory;
        the room it was given, and the answer's mode: a file meant to be answered whole that had to be cut
        is asked for edits instead, so a whole-file answer never loses what the call did not show."""
        for mode in ((self.mode, "edits") if self.mode == "whole" else (self.mode,)):
            fixed = SYSTEM[mode] + self._head() + "## Notes\n## Folder\n## Code\n"
            r = prompt.room(window, fixed, code=self._cost(), memory=notes + self.memory, folders=self.folder)
            cut = []

            def build(limit: int) -> list[dict]:
                code, whole = self._code(limit)
                cut[:] = [not whole]
                user = self._head()
                if r.memory:
                    user += "## Notes\n" + "".join(f"- {m}\n" for m in r.memory) + "\n"
                if r.folders:
                    user += f"## Folder\n{r.folders}\n\n"
                user += "## Code\n" + (code or "(a new file: it does not exist yet)\n")
                return [{"role": "system", "content": SYSTEM[mode]}, {"role": "user", "content": user}]

            msgs = prompt.within(window, r, build)
            if mode != "whole" or not cut[0]:
                return msgs, r, mode
        return msgs, r, mode

    def _head(self) -> str:
        s = self.step
        return f"## Task {s.id}: {s.action} {s.file or '(no file)'}\n{s.what}\n\n"

    def _cost(self) -> int:
        if isinstance(self.material, str):
            return budget.estimate(self.material)
        if self.text is None:
            return 0
        return budget.estimate(render_file(self.step.file, self.material or self._parts(None)))

    def _parts(self, room: int | None) -> list[Fragment]:
        return fragments(self.step.file, self.text or "", self.entry, self.keys, room, fit=False, defs=FEW_DEFS)

    def _code(self, limit: int) -> tuple[str, bool]:
        """The code shown in `limit` tokens, and whether it is all of the material: the whole file when it
        fits, else the parts the task's words point at, cut to fit."""
        if isinstance(self.material, str):
            code = budget.cut_to(self.material, limit)
            return code, code == self.material
        if self.text is None:
            return "", True
        if self.material:
            whole = render_file(self.step.file, self.material)
            if budget.estimate(whole) <= limit:
                return whole, True
        room = limit * 4      # characters; shrunk by what the estimate says until the parts fit
        for _ in range(6):
            code = render_file(self.step.file, self._parts(room))
            spent = budget.estimate(code)
            if spent <= limit:
                return code, False
            room = room * limit * 9 // (spent * 10)
        return budget.cut_to(code, limit), False


def draft(view: View, step: Step, text: str | None, memory: list[str], repo_map: str, window: int) -> Draft:
    """The draft of one task: its file's code (whole, or the parts its words point at) and its context."""
    folder = posixpath.dirname(step.file)
    summary = folder_summary(view, folder) if step.file else ""
    folder_ctx = f"{folder or '.'}/" + (f": {summary}" if summary else "") if step.file else ""
    if step.action == "query" and not step.file:
        return Draft(step, None, repo_map, None, {}, "", memory, "query")
    if step.action == "create" or text is None:
        return Draft(step, None, [], None, {}, folder_ctx, memory, "create")
    lines = text.splitlines(keepends=True)
    short = len(lines) <= OUTLINE_HINT
    whole = [Fragment(step.file, 1, len(lines), len(lines), "whole file", lines)] if short else []
    keys = parse_task(step.what).keys
    small = short and budget.estimate(text) <= budget.split(window).output * 3 // 4
    mode = "query" if step.action == "query" else "whole" if small else "edits"
    return Draft(step, text, whole, view.index.entry(step.file), keys, folder_ctx, memory, mode)


def carry_out(d: Draft, caller: prompt.Caller, position: int, tier) -> Outcome:
    """The task's outcome: one call, and one more with the error when the answer does not apply."""
    notes: list[str] = []
    for attempt in (1, 2):
        msgs, r, mode = d.messages(caller.window, notes)
        answer = caller.ask(f"task {d.step.id}", ("task", position, attempt), tier, msgs, r)
        if mode == "query":
            return Outcome("answered", f"{d.step.file or 'the repository'}: answered", answer=answer.strip())
        try:
            new = result(d.text, answer, d.step.file, whole=mode in ("whole", "create"))
        except EditError as e:
            if attempt == 2:
                return Outcome("failed", f"{d.step.file}: {e} (also after one retry with the error)")
            notes = [f"your previous answer could not be applied: {e}"]
            continue
        return Outcome("done", f"{d.step.file}: {change_summary(d.text or '', new)}", content=new)
    raise AssertionError("unreachable")


class EditError(Exception):
    """An answer that cannot be applied; the message goes back to the model once."""


def result(text: str | None, answer: str, path: str, *, whole: bool) -> str:
    """The file's new text from an answer: its SEARCH/REPLACE edits applied, or (`whole`: the call showed
    all of the file, or it is new) the whole file the answer gives."""
    old = text or ""
    if BLOCK_START.search(answer):
        new = apply_edits(old, answer, path)
    elif whole:
        new = strip_fences(answer)
        if not new.strip():
            raise EditError("the answer is empty")
        new = new if new.endswith("\n") else new + "\n"
        kept = {line.strip() for line in old.splitlines() if line.strip()}
        if len(kept) >= 3 and not kept & {line.strip() for line in new.splitlines()}:
            raise EditError(f"the answer keeps no line of {path}, so it is not the whole new file (prose?); "
                            f"answer with the whole file or with SEARCH/REPLACE edits")
    else:
        raise EditError("no <<<<<<< SEARCH ... ======= ... >>>>>>> REPLACE block in the answer")
    if new == old:
        raise EditError(f"the answer leaves {path} unchanged")
    return new


_FENCE = re.compile(r"^[ \t]*(```|~~~)[\w+#.-]*[ \t]*$")
BLOCK_START = re.compile(r"^[ \t]*<{5,9}[ \t]*SEARCH[ \t]*$", re.M)
_DIVIDER = re.compile(r"^[ \t]*={5,9}[ \t]*$")
_BLOCK_END = re.compile(r"^[ \t]*>{5,9}[ \t]*REPLACE[ \t]*$")


def strip_fences(answer: str) -> str:
    """A whole-file answer without the Markdown fence small models wrap it in (and the prose around the one
    fenced block, when there is one); an answer without fences is kept as it is."""
    lines = answer.strip("\n").splitlines(keepends=True)
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if fences and fences[0] == 0 and len(fences) >= 2 and fences[-1] == len(lines) - 1:
        return "".join(lines[1:-1])
    if len(fences) == 2:
        return "".join(lines[fences[0] + 1:fences[1]])
    return answer


def _unfenced(part: list[str]) -> str:
    """One side of an edit without a fence line at its start or end."""
    while part and _FENCE.match(part[0]):
        part = part[1:]
    while part and _FENCE.match(part[-1]):
        part = part[:-1]
    return "".join(part)


def edits(answer: str) -> list[tuple[str, str]]:
    """(search, replace) pairs of an answer's blocks, in order; lines outside blocks are ignored."""
    out: list[tuple[str, str]] = []
    search: list[str] | None = None
    replace: list[str] | None = None
    for line in answer.splitlines(keepends=True):
        line_ = line if line.endswith("\n") else line + "\n"
        if BLOCK_START.match(line.rstrip("\n")):
            search, replace = [], None
        elif search is not None and replace is None and _DIVIDER.match(line.rstrip("\n")):
            replace = []
        elif replace is not None and _BLOCK_END.match(line.rstrip("\n")):
            out.append((_unfenced(search), _unfenced(replace)))
            search = replace = None
        elif replace is not None:
            replace.append(line_)
        elif search is not None:
            search.append(line_)
    if search is not None:
        raise EditError(f"edit {len(out) + 1} is not closed with >>>>>>> REPLACE")
    return out


def apply_edits(text: str, answer: str, path: str) -> str:
    for n, (search, replace) in enumerate(edits(answer), 1):
        if not search:
            if text.strip():
                raise EditError(f"edit {n} has empty SEARCH lines; copy the lines it replaces from the code shown")
            text = replace
            continue
        count = text.count(search)
        if count == 0 and text.count(search.rstrip("\n")) == 1:   # the file's last line has no newline
            search, replace, count = search.rstrip("\n"), replace.rstrip("\n"), 1
        if count == 0:
            first = next((line.strip() for line in search.splitlines() if line.strip()), "")
            raise EditError(f"edit {n}: its SEARCH lines are not in {path} (the first: {first[:80]!r}); "
                            f"copy them exactly from the code shown")
        if count > 1:
            raise EditError(f"edit {n}: its SEARCH lines occur {count} times in {path}; include more lines so "
                            f"they occur once")
        text = text.replace(search, replace, 1)
    return text


def change_summary(old: str, new: str) -> str:
    import difflib
    plus = minus = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return f"+{plus} -{minus} lines"
