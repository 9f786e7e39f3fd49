"""Edges a careless user meets: a baseline where nothing ran, output piped into `head`, a file name with a
newline in it, a string that merely equals a translation key's last part, a task text of a megabyte."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.checks_support import commit_config, python_project
from tests.conftest import ROOT
from tests.hooks_support import context_text, hook, payload


def test_start_whose_every_check_could_not_run_says_so_and_exits_3(project):
    project.write("calc.py", "X = 1\n")
    project.init_git()
    commit_config(project, '[checks.lint]\ncommand = ["no-such-linter-rt-test", "."]\n'
                           '[checks.test]\nkind = "test"\ncommand = ["no-such-runner-rt-test"]\n')
    out = project.rt("start", "tidy", ret=3)
    assert "- lint: could not run: program not found: no-such-linter-rt-test" in out
    assert "no check could run, so the baseline holds nothing" in out
    assert project.rt_json("status")["task"]["state"] == "ready"   # the task is started all the same
    again = project.rt("baseline", ret=3)
    assert "- lint: could not run: program not found: no-such-linter-rt-test" in again
    assert "no check could run, so the baseline holds nothing" in again


def test_start_with_one_check_running_still_exits_0(project):
    python_project(project, tools="ruff")
    commit_config(project, '[checks.typos]\ncommand = ["no-such-tool-rt-test", "."]\n')
    out = project.rt("start", "tidy")
    assert "typos could not run" in out and "no check could run" not in out


def _closed_pipe_run(project, *args: str) -> subprocess.CompletedProcess:
    """rt writing into a pipe whose reader has gone (`rt find x | head -1` once head has exited)."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, "-m", "rt", *args], cwd=project.root, stdout=w,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(w)


def test_output_into_a_closed_pipe_is_no_traceback(project):
    for i in range(300):
        project.write(f"src/m{i}.py", f"def f{i}():\n    return 'needle {i}'\n")
    project.init_git()
    for args in (("find", "needle"), ("find", "needle", "--json"), ("status",), ("--help",), ("find", "--help")):
        proc = _closed_pipe_run(project, *args)
        assert proc.stderr == "", (args, proc.stderr)
        assert proc.returncode in (0, 1, 2), args


def test_a_newline_in_a_file_name_keeps_one_line_per_hit(project):
    project.write("notes\nweird.py", "def weird_fn():\n    return 'weird'\n")
    project.write("use.py", "from x import weird_fn\nweird_fn()\n")
    project.init_git()
    assert project.rt("find", "weird").splitlines() == [
        '"notes\\nweird.py":1  text  def weird_fn():',
        '"notes\\nweird.py":2  string literal  return \'weird\'',
        "use.py:1  text  from x import weird_fn",
        "use.py:2  text  weird_fn()",
        '"notes\\nweird.py"  path matches',
    ]
    assert project.rt("symbol", "weird_fn").splitlines() == ['"notes\\nweird.py":1-2  function weird_fn  def weird_fn():']
    refs = project.rt("refs", "weird_fn").splitlines()
    assert refs[1:] == ['"notes\\nweird.py" (defines it): 1', "use.py: 1, 2"]
    project.rt("start", "rename", "--no-baseline")
    project.write("notes\nweird.py", "def weird_fn():\n    return 'odd'\n")
    assert project.rt("delta").splitlines()[1] == 'M "notes\\nweird.py"  +1 -1'
    data = project.rt_json("delta")
    assert data["changes"][0]["path"] == "notes\nweird.py"   # --json keeps the real name


def test_a_file_name_that_is_no_utf8_is_shown_as_git_quotes_it(project):
    name = os.fsdecode(b"caf\xe9.py")   # a Latin-1 name
    project.write(name, "def brew_fn():\n    return 'brew'\n")
    project.write("use.py", "from x import brew_fn\nbrew_fn()\n")
    project.init_git()
    assert project.rt("find", "brew_fn").splitlines()[0] == '"caf\\351.py":1  text  def brew_fn():'
    assert project.rt("symbol", "brew_fn").splitlines() == ['"caf\\351.py":1-2  function brew_fn  def brew_fn():']
    assert project.rt("refs", "brew_fn").splitlines()[1] == '"caf\\351.py" (defines it): 1'
    assert '### "caf\\351.py" (2 lines; defines: brew_fn)' in project.rt("pack", "brew_fn").splitlines()
    project.rt("start", "brew", "--no-baseline")
    project.write(name, "def brew_fn():\n    return 'tea'\n")
    assert project.rt("delta").splitlines()[1] == 'M "caf\\351.py"  +1 -1'
    assert project.rt_json("delta")["changes"][0]["path"] == name   # --json keeps the name Python reads


def test_find_lists_a_key_only_where_code_uses_it_as_a_key(project):
    project.write("locales/en/common.json", '{"buttons": {"save": "Save changes"}}\n')
    project.write("src/Form.tsx", "const t = useTranslations('buttons');\n"
                                  "export const Save = () => <b>{t('save')}</b>;\n"
                                  "const mode = 'save';\n"
                                  "if (action === \"save\") run();\n")
    project.init_git()
    assert project.rt("find", "Save changes").splitlines() == [
        "locales/en/common.json:1  translation buttons.save  = 'Save changes'",
        "src/Form.tsx:2  uses key buttons.save (translation at locales/en/common.json:1)  "
        "export const Save = () => <b>{t('save')}</b>;",
    ]


def test_find_still_follows_a_call_split_over_lines(project):
    project.write("locales/en/common.json", '{"cart": {"empty": "Your cart is empty"}}\n')
    project.write("src/Cart.tsx", "export const E = () => <p>{t(\n  'cart.empty'\n)}</p>;\n")
    project.init_git()
    rows = project.rt("find", "Your cart is empty").splitlines()
    assert rows[1].startswith("src/Cart.tsx:2  uses key cart.empty")


def test_a_task_text_over_the_cap_is_refused_whole(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "x" * 40_001, "--no-baseline", ret=2)
    assert "task text is 40,001 characters, over rt's 32,000" in project.last_err
    assert project.rt_json("status")["task"] is None
    code, out, err = hook(project, "user-prompt-submit", payload(project, "UserPromptSubmit",
                                                                  prompt="/runtask " + "fix it " * 150_000))
    text = context_text(out, "UserPromptSubmit")
    assert code == 0 and "over rt's 32,000" in text and len(text) < 400
    project.rt("start", "ok", "--no-baseline")
    for args, what in ((("step", "n" * 40_000), "step note"), (("block", "b" * 40_000), "reason"),
                       (("claim", "c" * 40_000), "claim")):
        project.rt(*args, ret=2)
        assert f"the {what} is 40,000 characters, over rt's 32,000" in project.last_err, what


def test_a_long_task_text_is_shown_by_its_head_everywhere_a_model_reads_it(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    text = "rename the total column " + "and keep every report byte-stable " * 800   # about 27,000 characters
    project.rt("start", text, "--no-baseline")
    status = project.rt("status")
    assert len(status) < 1200 and status.startswith("task 1-rename-the-total-column-and-keep-every-r: rename the total")
    assert f"(the task text goes on for {len(text.strip()) - 500:,} more characters: `rt status --json`)" in status
    assert project.rt_json("status")["task"]["text"] == text.strip()   # kept whole
    code, out, _ = hook(project, "session-start", payload(project, "SessionStart", source="startup"))
    assert len(context_text(out, "SessionStart")) < 1300
    code, out, _ = hook(project, "session-start", payload(project, "SessionStart", source="resume"))
    handoff = context_text(out, "SessionStart")   # the handoff: its Goal is the same head
    assert len(handoff) < 2500 and f"goes on for {len(text.strip()) - 500:,} more characters" in handoff
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = 2\n")
    verify = project.rt("verify", ret=3)
    assert len(verify) < 1500
    tasks = project.rt_json("tasks")["tasks"]
    assert len(json.dumps(tasks)) < 1000
    project.rt("step", "s" * 20_000)
    assert len(project.rt("status")) < 2000


def test_a_text_of_exactly_the_cap_is_taken(project):
    """README: "refused over 32,000 characters": 32,000 is taken, 32,001 refused."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "y" * 32_001, "--no-baseline", ret=2)
    assert "task text is 32,001 characters, over rt's 32,000" in project.last_err
    project.rt("start", "y" * 32_000, "--no-baseline")
    assert project.rt_json("status")["task"]["state"] == "scanned"     # started (no baseline asked)


def test_a_line_break_in_a_planned_name_keeps_each_answer_one_line(project):
    project.write("a.txt", "x\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "new\nline.txt", ret=2)
    assert project.last_err.startswith('rt: error: --edit "new\\nline.txt": no such file') and project.last_err.count("\n") == 1
    assert project.rt("plan", "--create", "x\ny") == 'scope: create "x\\ny"\n'
    assert 'scope: create "x\\ny"' in project.rt("status").splitlines()


def test_a_name_the_locale_cannot_spell_is_escaped_not_an_internal_error(project):
    """LC_ALL=C without Python's UTF-8 mode: the file system's names are bytes; rt read git's as UTF-8 and stat failed."""
    project.write("a.txt", "x\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.write("café.txt", "x\n")
    proc = project.rt_proc("delta", env={"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    assert proc.returncode == 0 and proc.stdout.splitlines()[1] == 'A "caf\\303\\251.txt"  +1 -0', proc.stderr
    proc = project.rt_proc("plan", "--edit", "cafe.txt", env={"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    assert proc.returncode == 2 and "closest existing: " in proc.stderr and "internal error" not in proc.stderr
