"""Intent mode: the leading command of a user message, in both forms it reaches rt, and what the hooks do
with it (edits only in a /go or /runtask turn, the journal, the mode switch, rt status, rt install --intent).
The /commit and /push permissions are in test_intent_permissions.py."""
from __future__ import annotations

import json
import shutil

import pytest
from intent_support import DATA, bash, call, edit, intent_project, prompt

from rt import journal, state
from rt.claude.hooks import HOOKS
from rt.claude.intent import COMMANDS, CONVERSATION, Intent, parse, transcript_intent

MARKUP = "<command-message>{0}</command-message>\n<command-name>/{0}</command-name>\n<command-args>{1}</command-args>"

PROMPTS = [
    # (message, command, args, form, near): typed as UserPromptSubmit gets it
    ("/go fix the bug", "go", "fix the bug", "typed", None),
    ("   /go fix it", "go", "fix it", "typed", None),                      # leading spaces
    ("\n\t/q why does it fail?", "q", "why does it fail?", "typed", None),
    ("/go\nrename total\nand update the callers", "go", "rename total\nand update the callers", "typed", None),
    ("/mem the tests need  PYTHONHASHSEED=0\n  (and docker)", "mem",
     "the tests need  PYTHONHASHSEED=0\n  (and docker)", "typed", None),  # multi-line, inner spacing kept
    ("/go", "go", "", "typed", None),
    ("/commit", "commit", "", "typed", None),
    ("/rt:go fix it", "go", "fix it", "typed", None),                     # the plugin's name for it
    ("/runtask rename total to grand_total", "runtask", "rename total to grand_total", "typed", None),
    ("/rt:runtask x", "runtask", "x", "typed", None),
    ("please /go fix it", None, "", None, None),                          # not at the start
    ("fix it, then /commit", None, "", None, None),
    ("go fix it", None, "", None, None),
    ("/ go fix it", None, "", None, None),
    ("", None, "", None, None),
    ("/gp fix it", None, "", None, "go"),                                 # mistyped: a letter changed
    ("/comit", None, "", None, "commit"),                                 # a letter dropped
    ("/stpo now", None, "", None, "stop"),                                # two letters swapped
    ("/GO fix it", None, "", None, "go"),
    ("/goal fix it", None, "", None, None),                               # a built-in, not a typo of ours
    ("/gofix", None, "", None, None),
    ("/other:go fix", None, "", None, None),                              # another plugin's command
    ("/compact focus on the parser", None, "", None, None),
    ("/qzz fix it", None, "", None, None),
    # an options-dialog answer reaches the model as a tool_result, never as a prompt; as text it is no command
    ('Your questions have been answered: "Which approach should we use?"="Safe". You can now continue with '
     'these answers in mind.', None, "", None, None),
    ('The user answered: "Which approach should we use?"="/go with the safe one". Read the answers carefully',
     None, "", None, None),
    ("Safe", None, "", None, None),
    # the markup the client writes to its transcript and sends in the request
    (MARKUP.format("go", "fix it"), "go", "fix it", "markup", None),
    (MARKUP.format("go", "fix it") + "\n", "go", "fix it", "markup", None),
    (MARKUP.format("rt:go", "fix it"), "go", "fix it", "markup", None),
    (MARKUP.format("stop", "now"), "stop", "now", "markup", None),
    (MARKUP.format("rt:runtask", "rename total to grand_total"), "runtask", "rename total to grand_total", "markup",
     None),
    ("  <command-name>/mem</command-name>\n<command-args>a fact\nover two lines</command-args>", "mem",
     "a fact\nover two lines", "markup", None),
    ("<command-message>q</command-message>\n<command-name>/q</command-name>", "q", "", "markup", None),
    (MARKUP.format("compact", "focus"), None, "", None, None),
    (MARKUP.format("gp", "fix it"), None, "", None, None),
    ("I typed <command-name>/go</command-name> here", None, "", None, None),  # markup not at the start
]


@pytest.mark.parametrize("text,name,args,form,near", PROMPTS)
def test_parse(text, name, args, form, near):
    assert parse(text) == Intent(name, args, form, near)


def test_every_command_parses_in_both_forms():
    for name in [*COMMANDS, "runtask"]:
        assert parse(f"/{name} do it") == Intent(name, "do it", "typed")
        assert parse(MARKUP.format(name, "do it")) == Intent(name, "do it", "markup")
        assert parse(MARKUP.format(f"rt:{name}", "do it")) == Intent(name, "do it", "markup")


def test_the_prompts_the_real_client_sent_to_the_hook_parse():
    """UserPromptSubmit payloads of client 2.1.332, one per typed command (tests/data/intent/hooks)."""
    prompts = [json.loads(line) for line in (DATA / "hooks/cmd-commands.jsonl").read_text().splitlines()]
    got = {p["prompt"]: parse(p["prompt"]).name for p in prompts if p["hook_event_name"] == "UserPromptSubmit"}
    assert got == {f"/{n} fix it": n for n in COMMANDS} | {"/context fix it": None, "/clear fix it": None,
                                                          "/qzz fix it": None}


# ---------------------------------------------------------------- the transcript, as the client writes it

def _prompt_ids(name: str) -> list[str]:
    ids = []
    for line in (DATA / "transcripts" / f"{name}.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "user" and record.get("promptId") not in ids:
            ids.append(record["promptId"])
    return ids


def test_a_typed_command_is_read_back_from_the_transcripts_markup():
    for name in ("command-go", "skill-go"):  # the command as a project command, and as a project skill
        path = DATA / "transcripts" / f"{name}.jsonl"
        text = path.read_text()
        assert "<command-name>/go</command-name>" in text and '"content":"/go fix it"' not in text.replace(" ", "")
        [prompt_id] = _prompt_ids(name)
        assert transcript_intent(str(path), prompt_id) == Intent("go", "fix it", "markup")


def test_a_plain_prompt_and_the_records_that_are_not_prompts():
    [plain] = _prompt_ids("plain")
    assert transcript_intent(str(DATA / "transcripts/plain.jsonl"), plain) == Intent()
    path = str(DATA / "transcripts/subagent.jsonl")
    first, second, third = _prompt_ids("subagent")
    # the first turn has tool results and an isMeta Stop-hook record under the same promptId: the prompt wins
    assert [transcript_intent(path, p) for p in (first, second, third)] == [Intent()] * 3
    assert transcript_intent(path, "no-such-prompt") is None
    assert transcript_intent(str(DATA / "transcripts/missing.jsonl"), first) is None


def test_the_transcript_is_read_from_its_tail(tmp_path):
    src = DATA / "transcripts/command-go.jsonl"
    [prompt_id] = _prompt_ids("command-go")
    big = tmp_path / "t.jsonl"
    pad = json.dumps({"type": "progress", "data": "x" * 1000}) + "\n"
    big.write_text(pad * 6000 + src.read_text())  # 6 MB of other records first
    assert transcript_intent(str(big), prompt_id) == Intent("go", "fix it", "markup")
    assert transcript_intent(str(big), prompt_id, tail=1000) is None  # the prompt lies before the tail read


# ---------------------------------------------------------------- the edit gate in intent mode

def test_mode_off_changes_nothing(project):
    intent_project(project, on=False)
    assert prompt(project, "what does x do?") == ""
    assert edit(project) == (None, "")
    assert not project.root.joinpath(".rt", journal.INTENT_FILE).exists()


def test_a_message_without_a_command_is_conversation(project):
    intent_project(project)
    prompt(project, "why do you always jump into editing?")
    decision, reason = edit(project)
    assert decision == "deny" and reason == f"rt: {CONVERSATION}."
    assert "answer in words" in reason and "starts a message with /go" in reason


def test_go_allows_an_edit_in_scope_and_scope_still_applies(project):
    intent_project(project)
    prompt(project, "/go change x to 2")
    assert edit(project, "a.py") == (None, "")
    decision, reason = edit(project, "b.py")
    assert decision == "deny" and "b.py is outside the approved scope" in reason


def test_runtask_counts_as_go(project):
    intent_project(project)
    prompt(project, "/runtask change x")  # a task is active already: the hook says so, the turn is still /runtask
    assert edit(project) == (None, "")


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "go"])
def test_every_other_command_denies_edits_with_its_own_reason(project, name):
    intent_project(project)
    prompt(project, f"/{name} something")
    decision, reason = edit(project)
    assert decision == "deny" and reason == f"rt: {COMMANDS[name].deny}."


def test_a_mistyped_command_is_conversation_with_a_hint(project):
    intent_project(project)
    prompt(project, "/gp fix it")
    decision, reason = edit(project)
    assert decision == "deny" and "did you mean /go?" in reason


def test_go_lasts_one_turn(project):
    intent_project(project)
    prompt(project, "/go change x", prompt_id="p1")
    assert edit(project, prompt_id="p1") == (None, "")
    prompt(project, "thanks, looks good", prompt_id="p2")
    assert edit(project, prompt_id="p2")[0] == "deny"
    # a background subagent of the /go turn (its calls keep that turn's prompt_id) may still edit
    assert edit(project, prompt_id="p1", agent="a1") == (None, "")


def test_a_subagent_edits_under_its_parents_turn(project):
    intent_project(project)
    prompt(project, "/go change x")
    assert edit(project, agent="ada22a1749adf7ad6") == (None, "")
    prompt(project, "what changed?", prompt_id="p2")
    assert edit(project, prompt_id="p2", agent="ada22a1749adf7ad6")[0] == "deny"


def test_a_message_sent_while_the_turn_runs(project):
    """The client folds it into the running turn: UserPromptSubmit fires with the same prompt_id."""
    intent_project(project)
    prompt(project, "/go change x")
    prompt(project, "also keep the old name as an alias")  # no command: the turn stays /go
    assert edit(project) == (None, "")
    prompt(project, "/stop")  # a command replaces the turn's
    decision, reason = edit(project)
    assert decision == "deny" and "/stop" in reason


def test_sessions_are_kept_apart(project):
    intent_project(project)
    prompt(project, "/go change x", session="s1")
    prompt(project, "just asking", session="s2")
    assert edit(project, session="s1") == (None, "")
    assert edit(project, session="s2")[0] == "deny"


def test_without_a_record_the_transcript_tells_the_command(project, tmp_path):
    """The UserPromptSubmit record is missing (the hook timed out, or the mode was switched on mid-turn): the
    command is read from the client's transcript, where it is markup, not the typed text."""
    intent_project(project)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(DATA / "transcripts/command-go.jsonl", transcript)
    [prompt_id] = _prompt_ids("command-go")
    prompt(project, "an earlier question", prompt_id="earlier")
    assert edit(project, prompt_id=prompt_id, transcript_path=str(transcript)) == (None, "")
    decision, reason = edit(project, prompt_id="unseen", transcript_path=str(transcript))
    assert decision == "deny" and "no record of the command of this message" in reason and "/go" in reason


def test_a_turn_replayed_from_the_real_clients_payloads(project):
    """tests/data/intent/hooks/turnid.jsonl: three prompts, a subagent and a Stop-hook continuation in the
    first. Every tool call is replayed as an Edit with its ids: the first prompt made /go, then as typed."""
    intent_project(project)
    events = [json.loads(line) for line in (DATA / "hooks/turnid.jsonl").read_text().splitlines()]
    answers = []
    first = True
    for e in events:
        ids = {"session": e["session_id"], "prompt_id": e.get("prompt_id")}
        if e["hook_event_name"] == "UserPromptSubmit":
            prompt(project, ("/go " if first else "") + e["prompt"], **ids)
            first = False
        elif e["hook_event_name"] == "PreToolUse" and e["tool_name"] != "Agent":
            answers.append((e["prompt"] if "prompt" in e else e["prompt_id"][:8], "agent_id" in e,
                            edit(project, agent=e.get("agent_id"), **ids)[0]))
    assert answers == [("97cf15fe", False, None), ("97cf15fe", False, None),  # Bash, Read of the /go turn
                       ("97cf15fe", True, None),                               # its subagent
                       ("97cf15fe", False, None),                              # after the Stop-hook block
                       ("42afc7f9", False, "deny"), ("04d5fd91", False, "deny")]  # --continue, --resume


def test_an_options_dialog_answer_keeps_the_turns_command(project):
    """tests/data/intent/hooks/ask-tui.jsonl: the answer to AskUserQuestion fires no UserPromptSubmit; the
    calls after it carry the same prompt_id, so picking an option neither grants nor takes away edits."""
    events = [json.loads(line) for line in (DATA / "hooks/ask-tui.jsonl").read_text().splitlines()]
    ask = next(e for e in events if e["hook_event_name"] == "PostToolUse")
    assert ask["tool_name"] == "AskUserQuestion" and ask["tool_response"]["answers"]
    assert [e["hook_event_name"] for e in events].count("UserPromptSubmit") == 1
    intent_project(project)
    ids = {"session": ask["session_id"], "prompt_id": ask["prompt_id"]}
    for command, allowed in (("/go", True), ("/iq", False)):
        prompt(project, f"{command} pick an approach", **ids)
        assert (edit(project, **ids)[0] is None) is allowed, command


def test_the_session_start_line(project):
    intent_project(project)
    text = call(project, "session-start", source="startup")["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("rt intent mode is on: the user starts a message with /go")
    assert "rt: a task is active" in text
    project.rt("intent", "off")
    text = call(project, "session-start", source="startup")["hookSpecificOutput"]["additionalContext"]
    assert "intent mode" not in text


# ---------------------------------------------------------------- the journal

def test_fail_win_mem_land_in_the_journal_verbatim(project):
    intent_project(project)
    words = "the tests need  PYTHONHASHSEED=0\n  and docker running"
    assert prompt(project, f"/mem {words}") == ""
    prompt(project, "/fail you edited before I said /go", prompt_id="p2")
    prompt(project, "/win the short report was right", prompt_id="p3")
    data = project.rt_json("journal")
    assert [(e["kind"], e["text"], e["task"]) for e in data["entries"]] == [
        ("mem", words, "1-change-x"), ("fail", "you edited before I said /go", "1-change-x"),
        ("win", "the short report was right", "1-change-x")]
    assert project.rt("journal") == ("1. mem [task 1-change-x]: the tests need  PYTHONHASHSEED=0\n"
                                     "     and docker running\n"
                                     "2. fail [task 1-change-x]: you edited before I said /go\n"
                                     "3. win [task 1-change-x]: the short report was right\n")
    assert project.rt("journal", "--kind", "win").startswith("1. win")


def test_mem_without_words_records_nothing_and_says_so(project):
    intent_project(project)
    note = prompt(project, "/mem")
    assert "/mem needs the words to record" in note
    assert project.rt_json("journal")["entries"] == []
    assert project.rt("journal").startswith("the journal is empty; /fail, /win and /mem")


def test_a_mem_over_the_text_cap_records_nothing_and_says_so(project):
    intent_project(project)
    note = prompt(project, "/mem " + "x" * 40_000)
    assert "the /mem text is 40,000 characters, over rt's 32,000" in note and "Nothing was recorded" in note
    assert project.rt_json("journal")["entries"] == []


def test_the_journal_is_kept_with_the_mode_off_too(project):
    intent_project(project, on=False)
    prompt(project, "/mem deploys go through make release")
    assert [e["text"] for e in project.rt_json("journal")["entries"]] == ["deploys go through make release"]


def test_mem_facts_are_memory_entries_of_the_pack(project):
    intent_project(project)
    prompt(project, "/mem x must stay an int")
    prompt(project, "/mem the newest fact comes first", prompt_id="p2")
    pack = project.rt("pack", "--path", "a.py")
    memory = pack.split("## Memory (notes recorded on this task)\n", 1)[1].split("\n\n", 1)[0]
    assert memory.splitlines()[:2] == ["- user: the newest fact comes first", "- user: x must stay an int"]
    from rt.core import find_repo
    from rt.store import Store
    assert journal.memory_facts(Store(find_repo(project.root))) == ["the newest fact comes first",
                                                                   "x must stay an int"]


# ---------------------------------------------------------------- rt intent, rt status, rt.toml

def test_rt_intent_shows_the_mode_and_the_commands(project):
    intent_project(project)
    out = project.rt("intent")
    assert out.startswith("intent mode: on (set by `rt intent on|off`)\n")
    for name, meaning in COMMANDS.items():
        assert f"  /{name:<7} {meaning.summary}" in out
    assert project.rt_json("intent")["on"] is True


def test_rt_toml_overrides_the_switch(project):
    intent_project(project)
    project.write("rt.toml", "intent = false\n")
    assert project.rt_json("intent")["on"] is False
    prompt(project, "no command here")
    assert edit(project) == (None, "")
    project.write("rt.toml", "intent = true\n")
    out = project.rt("intent", "off")
    assert "rt.toml says `intent = true`, which wins, so the mode stays on" in out
    assert project.rt_json("intent")["on"] is True
    prompt(project, "still no command", prompt_id="p2")
    assert edit(project, prompt_id="p2")[0] == "deny"
    project.write("rt.toml", 'intent = "yes"\n')
    project.rt("intent", ret=2)
    assert "intent must be a bool" in project.last_err


def test_status_shows_the_mode_and_a_live_permission(project, monkeypatch):
    intent_project(project)
    t0 = state.now()
    monkeypatch.setattr(state, "now", lambda: t0)
    prompt(project, "/commit")
    assert project.rt("status").splitlines()[-2:] == [
        "intent mode: on (edits only in a /go or /runtask turn)",
        "permission: commit allowed once, 10 min left (`rt intent revoke` drops it)"]
    monkeypatch.setattr(state, "now", lambda: t0 + 3 * 60 + 5)
    assert project.rt("status").splitlines()[-1].startswith("permission: commit allowed once, 7 min left")
    monkeypatch.setattr(state, "now", lambda: t0 + 600)
    assert project.rt("status").splitlines()[-1] == "intent mode: on (edits only in a /go or /runtask turn)"
    project.rt("block", "later")
    assert project.rt("status").splitlines() == ["no active task; start one with `rt start \"<task>\"`",
                                                 "intent mode: on (edits only in a /go or /runtask turn)"]


def test_status_survives_a_broken_rt_toml(project):
    intent_project(project)
    project.write("rt.toml", "intent = [\n")
    out = project.rt("status")
    assert "task 1-change-x" in out and "intent mode: unknown (rt.toml: not valid TOML" in out


def test_revoke(project):
    intent_project(project)
    prompt(project, "/commit")
    prompt(project, "/push", prompt_id="p2")
    assert project.rt("intent", "revoke", "push") == "revoked: push permission\n"
    assert "push allowed" not in project.rt("status") and "commit allowed once" in project.rt("status")
    assert project.rt("intent", "revoke") == "revoked: commit permission\n"
    assert project.rt("intent", "revoke") == "no live permission to revoke\n"
    assert bash(project, "git commit -m 'x'")[0] == "deny"
    project.rt("intent", "on", "commit", ret=2)
    assert "rt intent on takes no kind; only `rt intent revoke [commit|push]` does" in project.last_err


# ---------------------------------------------------------------- rt install --intent

def _settings(project) -> dict:
    return json.loads(project.read(".claude/settings.json"))


def test_install_intent_adds_the_commands_leaves_out_commit_and_push_denials_and_switches_the_mode_on(project):
    from tests.hooks_support import GIT_DENY
    project.init_git()
    out = project.rt("install", "--intent")
    assert "intent mode switched on for this project" in out
    for name in COMMANDS:
        assert project.read(f".claude/commands/{name}.md") == project_file(f"skill/intent/{name}/SKILL.md")
    deny = _settings(project)["permissions"]["deny"]
    assert deny == GIT_DENY[2:] and "Bash(git reset --hard:*)" in deny   # all but commit and push
    assert project.rt_json("intent")["on"] is True
    assert f".claude: installed: 14/14 files, {len(HOOKS)}/{len(HOOKS)} hooks, 10/10 git deny rules\n" in project.rt("doctor")
    project.rt("install")  # a later plain install keeps intent mode and its files
    assert project.root.joinpath(".claude/commands/go.md").is_file()
    assert _settings(project)["permissions"]["deny"] == deny
    out = project.rt("install", "--uninstall")
    assert "removed .claude/commands/go.md" in out and "intent mode switched off for this project" in out
    assert not project.root.joinpath(".claude").exists()
    assert project.rt_json("intent")["on"] is False


def test_install_intent_after_a_plain_install_drops_rts_own_commit_and_push_denials(project):
    project.init_git()
    project.write(".claude/settings.json", json.dumps({"permissions": {"deny": ["Bash(git push:*)"]}}))
    project.rt("install")
    assert {"Bash(git commit:*)", "Bash(git push:*)"} <= set(_settings(project)["permissions"]["deny"])
    out = project.rt("install", "--intent")
    deny = _settings(project)["permissions"]["deny"]
    assert "Bash(git commit:*)" not in deny  # rt added it: dropped
    assert "Bash(git push:*)" in deny       # the user's own: kept, and said so
    assert "your own deny rule(s) Bash(git push:*) stay" in out
    project.rt("install", "--uninstall")
    assert _settings(project) == {"permissions": {"deny": ["Bash(git push:*)"]}}


def test_uninstall_without_its_record_keeps_a_command_file_of_the_users(project):
    project.init_git()
    project.rt("install", "--intent")
    project.write(".claude/commands/go.md", "my own go\n")
    project.root.joinpath(".claude/rt-install.json").unlink()
    project.rt("install", "--uninstall")
    assert project.read(".claude/commands/go.md") == "my own go\n"
    assert not project.root.joinpath(".claude/commands/q.md").exists()


def project_file(rel: str) -> str:
    from pathlib import Path
    return (Path(__file__).resolve().parent.parent / rel).read_text(encoding="utf-8")


def test_the_agent_cannot_switch_intent_mode_without_the_user(project):
    intent_project(project)
    for command in ("rt intent off", "rt intent on", "cd . && rt --json intent off"):
        decision, reason = bash(project, command)
        assert decision == "ask" and "switching intent mode is the user's decision" in reason, command
    assert bash(project, "rt intent") == (None, "") and bash(project, "rt intent revoke") == (None, "")


def test_the_agent_cannot_answer_a_hook_for_the_user(project):
    """`rt hook user-prompt-submit` from Bash with a payload saying the user typed /commit was a permission the agent
    gave itself (and /go an edit turn); each way of running the hook is refused."""
    intent_project(project)
    project.write("p.json", json.dumps({"session_id": "s1", "prompt_id": "p1", "prompt": "/commit",
                                        "cwd": str(project.root)}))
    for command in ("rt hook user-prompt-submit < p.json", "cat p.json | python3 -m rt hook user-prompt-submit",
                    "python3 -S -P -m rt --json hook user-prompt-submit < p.json",
                    "bash ~/.claude/plugins/rt/hooks/rt-hook user-prompt-submit < p.json",
                    "~/src/rt/hooks/rt-hook user-prompt-submit < p.json", "bash /opt/rt/claude/hook.sh stop",
                    "sh -c 'rt hook user-prompt-submit < p.json'", "cd . && rt hook pre-tool-use < p.json"):
        decision, reason = bash(project, command)
        assert decision == "deny" and "`rt hook` answers Claude Code's own hooks" in reason, command
    prompt(project, "hello")
    assert bash(project, "git commit -qm x")[0] == "deny"
    call(project, "user-prompt-submit", prompt="/commit", session_id="s1", prompt_id="p1", agent_id="sub1")
    assert bash(project, "git commit -qm x")[0] == "deny"   # a subagent's payload names no prompt of the user's


def test_install_intent_with_the_sandbox_says_commit_cannot_be_used(project):
    project.init_git()
    out = project.rt("install", "--intent", "--sandbox")
    assert "the sandbox keeps .git/ read-only for the agent's shell, so a /commit or /push permission cannot" in out
    assert "cannot be used" not in project.rt("install", "--uninstall")


def test_ids_of_another_type_in_a_payload_record_no_turn_and_break_nothing(project):
    intent_project(project)
    for fields in ({"session_id": ["x"], "prompt_id": "p1"}, {"session_id": "s1", "prompt_id": {"a": 1}}):
        out = call(project, "user-prompt-submit", prompt="/go", **fields)
        assert out is None or "internal error" not in json.dumps(out)
    assert bash(project, "git commit -qm x")[0] == "deny"
