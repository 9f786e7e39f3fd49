"""`rt install`, `--uninstall` and `rt doctor` against real settings files, and the hook commands they write."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rt.claude.hooks import HOOKS
from rt.claude.install import is_ours
from tests.hooks_support import GIT_DENY

ROOT = Path(__file__).resolve().parent.parent

USER_SETTINGS = {
    "model": "opus",
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "permissions": {"allow": ["Read"], "deny": ["Bash(git push:*)", "Bash(rm:*)"]},
}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def settings(project) -> dict:
    return json.loads(project.read(".claude/settings.json"))


def ours(data: dict) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g["hooks"] if is_ours(h)]
            for event, groups in data.get("hooks", {}).items()}


def test_fresh_install_writes_skill_agents_hooks_and_rules(project):
    project.init_git()
    out = project.rt("install")
    assert "installed into .claude" in out
    files = tree(project.root / ".claude")
    assert files[".claude/skills/runtask/SKILL.md".removeprefix(".claude/")] == (ROOT / "skill/SKILL.md").read_bytes()
    for agent in ("rt-executor", "rt-reviewer", "rt-scout"):
        assert files[f"agents/{agent}.md"] == (ROOT / f"skill/agents/{agent}.md").read_bytes()
    data = settings(project)
    mine = ours(data)
    for event, matcher, arg, _ in HOOKS:
        [command] = mine[event]
        assert command.endswith(f"/rt/claude/hook.sh {arg}")
        [group] = data["hooks"][event]
        assert group.get("matcher") == matcher
    assert data["permissions"]["deny"] == GIT_DENY
    assert data["permissions"]["allow"] == ["Bash(rt:*)"]


def test_install_twice_changes_nothing(project):
    project.write(".claude/settings.json", json.dumps(USER_SETTINGS))
    project.rt("install")
    first = tree(project.root / ".claude")
    out = project.rt("install")
    assert out.strip() == "nothing to change: rt is already installed in .claude"
    assert tree(project.root / ".claude") == first


def test_install_merges_and_keeps_a_backup_and_uninstall_removes_exactly_its_own(project):
    original = json.dumps(USER_SETTINGS, indent=4)
    project.write(".claude/settings.json", original)
    project.rt("install")
    assert project.read(".claude/settings.json.rt-backup") == original
    data = settings(project)
    assert data["model"] == "opus"
    assert data["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    assert data["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert data["permissions"]["deny"].count("Bash(git push:*)") == 1  # already there: not added twice
    assert data["permissions"]["allow"][0] == "Read"
    out = project.rt("install", "--uninstall")
    assert "uninstalled from .claude" in out
    assert settings(project) == USER_SETTINGS  # the user's own push rule stays, everything of rt's goes
    left = set(tree(project.root / ".claude"))
    assert left == {"settings.json", "settings.json.rt-backup"}
    project.rt("install", "--uninstall")
    assert "nothing to change" in project.rt("install", "--uninstall")


def test_uninstall_after_a_fresh_install_leaves_nothing(project):
    project.rt("install")
    project.rt("install", "--uninstall")
    assert not (project.root / ".claude").exists()


def test_uninstall_without_the_record_still_removes_rts_own_pieces(project):
    project.write(".claude/settings.json", json.dumps(USER_SETTINGS))
    project.rt("install")
    (project.root / ".claude/rt-install.json").unlink()
    project.rt("install", "--uninstall")
    after = settings(project)
    assert not any(ours(after).values())
    assert after["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    assert set(tree(project.root / ".claude")) == {"settings.json", "settings.json.rt-backup"}


def test_uninstall_keeps_hooks_the_user_added_after_install(project):
    project.rt("install")
    data = settings(project)
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "say done"})
    data["hooks"]["SessionEnd"] = [{"hooks": [{"type": "command", "command": "log-end"}]}]
    project.write(".claude/settings.json", json.dumps(data))
    project.rt("install", "--uninstall")
    after = settings(project)
    assert after["hooks"] == {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                              "SessionEnd": [{"hooks": [{"type": "command", "command": "log-end"}]}]}
    assert "permissions" not in after


def test_settings_with_comments_or_bad_json_are_refused_and_nothing_changes(project):
    cases = {
        '{\n  // my hooks\n  "hooks": {}\n}\n': "has comments",
        '{"hooks": {"Stop": [}': "is not valid JSON",
        '{"hooks": []}': '"hooks" is not an object',
        '[1, 2]': "the top level is not an object",
        '{"permissions": {"deny": "Bash(git push:*)"}}': '"permissions" is not an object of lists',
    }
    for text, why in cases.items():
        project.write(".claude/settings.json", text)
        before = tree(project.root / ".claude")
        project.rt("install", ret=2)
        assert why in project.last_err and "Nothing was changed" in project.last_err, project.last_err
        assert tree(project.root / ".claude") == before
        project.rt("install", "--uninstall", ret=2)
        assert why in project.last_err and "Nothing was changed" in project.last_err, project.last_err
        assert tree(project.root / ".claude") == before


def test_user_install_goes_to_home_and_leaves_the_project_alone(project, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert "installed into ~/.claude" in project.rt("install", "--user")
    assert (home / ".claude/skills/runtask/SKILL.md").is_file()
    assert set(ours(json.loads((home / ".claude/settings.json").read_text()))) == {e for e, *_ in HOOKS}
    assert not (project.root / ".claude").exists()
    project.rt("install", "--user", "--uninstall")
    assert not (home / ".claude").exists()


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_linked_settings_file_stays_linked(project, tmp_path, monkeypatch, link):
    """A settings file kept in a dotfiles folder and linked in: both names see rt's hooks, and their removal (a hard
    link was left behind by a new file renamed over it)."""
    home = tmp_path / "home"
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text(json.dumps(USER_SETTINGS))
    (home / ".claude").mkdir(parents=True)
    linked = home / ".claude" / "settings.json"
    if link == "symbolic":
        linked.symlink_to(dotfiles / "settings.json")
    else:
        os.link(dotfiles / "settings.json", linked)

    def still_linked() -> bool:
        return linked.is_symlink() if link == "symbolic" else os.path.samefile(linked, dotfiles / "settings.json")

    monkeypatch.setenv("HOME", str(home))
    project.rt("install", "--user")
    assert still_linked()
    installed = ours(json.loads((dotfiles / "settings.json").read_text()))
    assert {e for e, commands in installed.items() if commands} == {e for e, *_ in HOOKS}
    project.rt("install", "--user", "--uninstall")
    assert still_linked()
    assert json.loads((dotfiles / "settings.json").read_text()) == USER_SETTINGS


def test_installed_hook_command_imports_this_rt_from_anywhere(project, tmp_path):
    """The command is rt's hook client on bash, naming this interpreter and rt's folder; it runs from any
    folder (there its fallback, this rt's `rt hook`, answers: an unknown event is its usage error)."""
    project.rt("install")
    command = ours(settings(project))["Stop"][0]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CLAUDE_PROJECT_DIR")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run(["/bin/sh", "-c", command], cwd=elsewhere, env=env, input='{"hook_event_name": "Stop"}',
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    probe = subprocess.run(["/bin/sh", "-c", command.replace(" stop", " bogus")], cwd=elsewhere, env=env,
                           input="{}", capture_output=True, text=True)
    assert probe.returncode == 2 and "unknown event 'bogus'" in probe.stderr
    q = shlex.quote
    assert command == (f"PYTHONPATH={q(str(ROOT))} RT_PY={q(sys.executable)} {q(shutil.which('bash'))} "
                       f"{q(str(ROOT / 'rt/claude/hook.sh'))} stop")



def test_install_replaces_the_hook_commands_of_an_earlier_install(project):
    """An install from before `-P` (or from another interpreter) leaves no second copy of each hook: every
    event keeps one rt command, the current one, and the user's own hooks stay."""
    project.rt("install")
    data = settings(project)
    for groups in data["hooks"].values():
        for group in groups:
            for h in group["hooks"]:
                h["command"] = h["command"].replace(" -S -P -m rt ", " -S -m rt ")
    data["hooks"]["PreToolUse"].append(USER_SETTINGS["hooks"]["PreToolUse"][0])
    project.write(".claude/settings.json", json.dumps(data))
    project.rt("install")
    now = settings(project)
    assert {event: len(commands) for event, commands in ours(now).items()} == {e: 1 for e, *_ in HOOKS}
    assert all("/rt/claude/hook.sh " in c for commands in ours(now).values() for c in commands)
    assert USER_SETTINGS["hooks"]["PreToolUse"][0] in now["hooks"]["PreToolUse"]


FAKE_RT = '''import json, sys
payload = json.load(sys.stdin)
if payload["hook_event_name"] == "Stop":
    print("stop hook broke", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"ok": payload["hook_event_name"]}))
'''


def test_doctor_runs_each_installed_hook_with_a_harmless_payload(project, tmp_path):
    fake = tmp_path / "fake"
    (fake / "rt").mkdir(parents=True)
    (fake / "rt" / "__init__.py").write_text("")
    (fake / "rt" / "__main__.py").write_text(FAKE_RT)
    hooks = {event: [{"hooks": [{"type": "command", "command": f"PYTHONPATH={fake} {sys.executable} -m rt hook {arg}"}]}]
             for event, _, arg, _ in HOOKS}
    project.write(".claude/settings.json", json.dumps({"hooks": hooks}))
    data = project.rt_json("doctor", ret=1)
    assert data["hooks"]["Stop"] == {"answers": False, "detail": "exit 2: stop hook broke"}
    assert all(data["hooks"][e]["answers"] for e, *_ in HOOKS if e != "Stop")
    summary = data["installs"][".claude"]["summary"]
    assert "0/4 files" in summary and f"{len(HOOKS)}/{len(HOOKS)} hooks" in summary and "missing files" in summary
    out = project.rt("doctor", ret=1)
    assert "hook Stop: does not answer: exit 2: stop hook broke" in out
    assert "hook PreToolUse: answers" in out


def test_doctor_on_a_project_without_rt(project, tmp_path, monkeypatch):
    """Whether the default hooks answer depends on `rt hook`; what is installed where must be plain."""
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    out = project.rt_proc("doctor")
    assert ".claude: not installed (`rt install` puts it here)" in out.stdout
    assert "~/.claude: not installed" in out.stdout
    assert "checks found: none" in out.stdout
    project.write("pyproject.toml", '[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n')
    assert "checks found: ruff (lint)" in project.rt_proc("doctor").stdout
    project.write("pyproject.toml", '[project]\nname = "x"\n[tool.ruff]\n[tool.pyright]\n')
    monkeypatch.setenv("PATH", "")   # neither program here: said, as `rt checks` says it
    assert "checks found: pyright (typecheck, not installed), ruff (lint, not installed)" in \
        project.rt_proc("doctor").stdout


def test_doctor_flags_an_outdated_install(project):
    project.rt("install")
    project.write(".claude/skills/runtask/SKILL.md", "old text\n")
    data = project.rt_json("doctor", ret=1)
    assert "out of date: skills/runtask/SKILL.md" in data["installs"][".claude"]["summary"]


def test_doctor_after_install_finds_everything_answering(project, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project.init_git()
    project.rt("install")
    proc = project.rt_proc("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ".claude: installed: 4/4 files, 7/7 hooks, 12/12 git deny rules\n" in proc.stdout
    for event, *_ in HOOKS:
        assert f"hook {event}: answers" in proc.stdout


def test_packaging_ships_every_skill_file_as_rt_skill():
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "rt.skill" in config["packages"] and config["package-dir"]["rt.skill"] == "skill"
    globs = config["package-data"]["rt.skill"]
    shipped = {p.relative_to(ROOT / "skill").as_posix() for p in (ROOT / "skill").rglob("*") if p.is_file()}
    assert shipped == {rel for g in globs for rel in
                       (p.relative_to(ROOT / "skill").as_posix() for p in (ROOT / "skill").glob(g))}


def test_pip_installed_layout_runs_from_site_packages(project, tmp_path):
    """rt in a virtual environment's site-packages (as `pip install` puts it, skill inside as rt/skill)."""
    import shutil
    import venv
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    shutil.copytree(ROOT / "rt", site / "rt", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "skill", site / "rt" / "skill")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([python, "-m", "rt", "install"], cwd=project.root, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    commands = [c for cs in ours(settings(project)).values() for c in cs]
    prefix = (f"PYTHONPATH={shlex.quote(str(site.resolve()))} RT_PY={shlex.quote(str(python))} "
              f"{shlex.quote(shutil.which('bash'))} {shlex.quote(str(site.resolve() / 'rt/claude/hook.sh'))} ")
    assert commands and all(c.startswith(prefix) for c in commands)
    assert project.read(".claude/skills/runtask/SKILL.md") == (ROOT / "skill/SKILL.md").read_text()
    stop = ours(settings(project))["Stop"][0]
    answer = subprocess.run(["/bin/sh", "-c", stop], cwd=project.root, env=env, input='{"hook_event_name": "Stop"}',
                            capture_output=True, text=True, check=False)
    assert answer.returncode == 0, answer.stderr


def test_doctor_sees_the_plugin_and_warns_when_both_are_in_use(project, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"rt@local": True, "other@x": True}}))
    monkeypatch.setenv("HOME", str(home))
    data = project.rt_json("doctor")
    assert data["installs"]["~/.claude"]["summary"] == "rt plugin enabled (rt@local)"
    project.write(".claude/settings.json", json.dumps({"enabledPlugins": {"rt@local": True}}))
    project.rt("install")
    summary = project.rt_json("doctor", ret=1)["installs"][".claude"]["summary"]
    assert "the rt plugin is enabled too (rt@local), so every hook runs twice" in summary


ODD = ('{\n\t"model":   "opus",\n\t"name": "caf\\u00e9", "n": 1.50,\n\t"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}],'
       ' "Notification": []},\n\t"permissions": {"allow": [], "deny": ["Bash(rm:*)"]},\n\t"sandbox": {"filesystem": {}}\n}')
"""A user's settings as no serialiser writes them: tabs, an escape, `1.50`, empty groups, lists and objects, no final newline."""


def test_uninstall_gives_back_the_users_settings_byte_for_byte_and_the_first_backup_stays(project):
    project.write(".claude/settings.json", ODD)
    project.rt("install")
    assert project.read(".claude/settings.json.rt-backup") == ODD
    pre = settings(project)["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Bash", "hooks": []}   # the user's empty group stays
    project.rt("install", "--sandbox")   # a second install changing the settings keeps the first backup
    assert project.read(".claude/settings.json.rt-backup") == ODD
    project.rt("install", "--uninstall")
    assert project.read(".claude/settings.json") == ODD and project.read(".claude/settings.json.rt-backup") == ODD
    project.rt("install")
    project.rt("install", "--uninstall")
    assert project.read(".claude/settings.json") == ODD


def test_the_users_own_skill_agent_and_command_files_are_never_written_over_or_removed(project):
    mine = {".claude/agents/rt-scout.md": "my scout\n", ".claude/commands/go.md": "my /go\n",
            ".claude/skills/runtask/SKILL.md": "my skill\n"}
    for rel, text in mine.items():
        project.write(rel, text)
    before = tree(project.root)
    project.rt("install", "--uninstall")   # never installed: files of rt's names that are not rt's stay
    project.rt("install", "--intent", ret=2)
    assert project.last_err == ("rt: error: .claude/skills/runtask/SKILL.md is not rt's (or was changed since rt wrote "
                                "it), and 2 more; move it aside, then run rt install again. Nothing was changed\n")
    assert tree(project.root) == before
    for rel in mine:
        (project.root / rel).unlink()
    project.rt("install", "--intent")
    project.write(".claude/agents/rt-scout.md", "my scout, changed after install\n")
    project.rt("install", ret=2)   # a file rt wrote and its user changed is theirs now
    assert "agents/rt-scout.md is not rt's (or was changed since rt wrote it)" in project.last_err
    out = project.rt("install", "--uninstall")
    assert "kept .claude/agents/rt-scout.md: not as rt wrote it" in out
    assert project.read(".claude/agents/rt-scout.md") == "my scout, changed after install\n"
    assert not (project.root / ".claude/commands/go.md").exists()


def test_private_settings_stay_private_and_a_read_only_file_is_left_alone(project):
    project.init_git()
    project.write(".claude/settings.json", '{"env": {"API_TOKEN": "t"}}')
    project.write(".mcp.json", '{"mcpServers": {"db": {"command": "db", "env": {"PASSWORD": "p"}}}}')
    for rel in (".claude/settings.json", ".mcp.json"):
        os.chmod(project.root / rel, 0o600)
    project.rt("install", "--mcp")
    for rel in (".claude/settings.json", ".mcp.json", ".claude/settings.json.rt-backup", ".claude/mcp.json.rt-backup"):
        assert (project.root / rel).stat().st_mode & 0o777 == 0o600, rel
    project.rt("install", "--uninstall")
    assert (project.root / ".mcp.json").stat().st_mode & 0o777 == 0o600
    assert json.loads(project.read(".mcp.json")) == {"mcpServers": {"db": {"command": "db", "env": {"PASSWORD": "p"}}}}
    os.chmod(project.root / ".claude/settings.json", 0o444)
    before = tree(project.root / ".claude")
    project.rt("install", ret=2)
    assert project.last_err == "rt: error: .claude/settings.json is read-only; rt changes nothing in it. Nothing was changed\n"
    assert tree(project.root / ".claude") == before


def test_no_link_takes_a_project_install_out_of_the_repository(project, tmp_path):
    project.init_git()
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (project.root / ".claude").symlink_to(home)
    project.rt("install", ret=2)
    assert project.last_err.startswith(f"rt: error: .claude is a link to {home}; rt installs into the project's own")
    assert list(home.iterdir()) == []
    (project.root / ".claude").unlink()
    (project.root / ".claude").mkdir()
    (project.root / ".claude/settings.json").symlink_to(tmp_path / "dotfiles" / "missing.json")
    project.rt("install", ret=2)
    assert "which does not exist; rt writes nothing through it" in project.last_err
    assert not (tmp_path / "dotfiles").exists()
    (project.root / ".claude/settings.json").unlink()
    (tmp_path / "shared.json").write_text('{"mcpServers": {}}')
    (project.root / ".mcp.json").symlink_to(tmp_path / "shared.json")
    project.rt("install", "--mcp", ret=2)
    assert ".mcp.json is a link out of the repository" in project.last_err
    assert (tmp_path / "shared.json").read_text() == '{"mcpServers": {}}'


@pytest.mark.parametrize("folder", ["skills", "agents", "skills/runtask"])
def test_a_linked_claude_subfolder_never_takes_install_or_uninstall_out_of_the_repository(project, tmp_path, folder):
    project.init_git()
    shared = tmp_path / "shared"
    shared.mkdir()
    (project.root / ".claude" / folder).parent.mkdir(parents=True)
    (project.root / ".claude" / folder).symlink_to(shared)
    for args in (["install"], ["install", "--uninstall"]):
        proc = project.rt_proc(*args)
        assert proc.returncode == 2 and proc.stdout == "", proc
        assert proc.stderr == (f"rt: error: .claude/{folder} is a link out of the repository ({shared}); rt writes "
                               f"nothing outside it for a project. Nothing was changed\n")
        assert list(shared.iterdir()) == [] and not (project.root / ".claude/settings.json").exists()
    (project.root / ".claude" / folder).unlink()
    (project.root / "kept").mkdir()
    (project.root / ".claude" / folder).symlink_to(project.root / "kept")   # a link within the repository is fine
    project.rt("install")
    assert (project.root / ".claude/skills/runtask/SKILL.md").is_file()


def test_uninstall_removes_only_rts_own_names_whatever_the_record_lists(project, tmp_path):
    project.init_git()
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's\n")
    project.rt("install")
    record = json.loads(project.read(".claude/rt-install.json"))
    record["files"].append("../../victim.txt")   # a record committed with a project, or edited, naming a file elsewhere
    project.write(".claude/rt-install.json", json.dumps(record))
    proc = project.rt_proc("install", "--uninstall")
    assert proc.returncode == 0 and "victim" not in proc.stdout, proc
    assert victim.read_text() == "the user's\n" and not (project.root / ".claude").exists()


@pytest.mark.parametrize("key, value", [("files", 5), ("files", [3]), ("hashes", []), ("deny", "x"), ("mcp", 1),
                                        ("sandbox", [])])
def test_a_record_of_another_shape_is_damage_said_in_one_line_not_an_internal_error(project, key, value):
    project.init_git()
    project.rt("install")
    record = json.loads(project.read(".claude/rt-install.json"))
    record[key] = value
    project.write(".claude/rt-install.json", json.dumps(record))
    before = tree(project.root)
    for args in (("install",), ("install", "--uninstall")):
        project.rt(*args, ret=2)
        assert "rt-install.json is damaged" in project.last_err and project.last_err.count("\n") == 1, project.last_err
        assert tree(project.root) == before


def test_settings_rt_cannot_write_back_faithfully_are_refused_in_one_line(project):
    cases = {'{"env": {"X": "\\ud800"}}': "holds a lone surrogate escape",
             '{"n": 1e400}': "is not valid JSON (Out of range float",
             "[" * 5000 + "]" * 5000: "",   # too deep for Python's reader, or not an object: refused either way
             '{"enabledMcpjsonServers": {}}': '"enabledMcpjsonServers" is not a list'}
    for text, why in cases.items():
        project.write(".claude/settings.json", text)
        before = tree(project.root)
        project.rt("install", "--mcp", ret=2)
        assert why in project.last_err and "Nothing was changed" in project.last_err, project.last_err
        assert tree(project.root) == before


@pytest.mark.parametrize("value", ["null", "5", "true"])
def test_a_matcher_groups_hooks_that_is_no_list_is_refused_by_install_and_reported_by_doctor(project, value):
    project.init_git()
    project.write(".claude/settings.json", f'{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": {value}}}]}}}}')
    before = tree(project.root)
    why = ('.claude/settings.json: a matcher group\'s "hooks" under "hooks" is not a list; fix it by hand, then run '
           'rt install again. Nothing was changed')
    for args in (["install"], ["install", "--uninstall"]):
        proc = project.rt_proc(*args)
        assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"rt: error: {why}\n")
    doctor = project.rt_proc("doctor")
    assert doctor.returncode == 1 and f".claude: {why}" in doctor.stdout, doctor
    assert tree(project.root) == before


def test_an_install_that_cannot_write_says_where_in_one_line_and_records_what_it_did(project):
    project.init_git()
    project.write(".claude/agents", "a file where rt's agents folder goes\n")
    project.rt("install", "--mcp", ret=2)
    assert project.last_err.startswith("rt: error: rt install stopped: cannot write ")
    assert "done before it: wrote .mcp.json; wrote .claude/skills/runtask/SKILL.md; make it writable" in project.last_err
    (project.root / ".claude/agents").unlink()
    project.rt("install", "--mcp")
    project.rt("install", "--uninstall")
    assert not (project.root / ".mcp.json").exists() and not (project.root / ".claude").exists()


def test_intent_mode_the_user_switched_on_stays_on_after_uninstall(project):
    project.init_git()
    project.rt("intent", "on")
    project.rt("install", "--intent")
    out = project.rt("install", "--uninstall")
    assert "intent mode switched off" not in out and project.rt("intent").startswith("intent mode: on")
