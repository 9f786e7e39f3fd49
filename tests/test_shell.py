"""The guard's bash reader (rt/claude/shell.py): words as bash forms them, what is only known at run time,
redirections, heredocs, comments, brace expansion, and the command substitutions that run."""
from __future__ import annotations

import subprocess

import pytest

from rt.claude.shell import DYN, Word, expand_braces, parse, unescape


def words(text: str) -> list:
    """Tokens as plain values: a word's text, an operator as itself."""
    return [t.text if isinstance(t, Word) else t for t in parse(text).tokens]


def subs(text: str) -> list[list]:
    """The words of every command substitution in `text`, outermost first."""
    out = []
    for t in parse(text).tokens:
        if isinstance(t, Word):
            out.extend([[w.text if isinstance(w, Word) else w for w in s.tokens] for s in t.subs])
    return out


def test_quotes_are_removed_and_remembered():
    assert words("""g"i"t 'pu'sh \\-\\-x""") == ["git", "push", "--x"]
    w = parse('"*.py" *.py').tokens
    assert not w[0].glob and w[1].glob


def test_comment_starts_only_a_word():
    assert words("echo a#b # git push") == ["echo", "a#b"]
    assert words("echo x # note\ngit push") == ["echo", "x", "\n", "git", "push"]
    assert words("echo '#' \"#\"") == ["echo", "#", "#"]


def test_redirections_keep_their_target_and_drop_the_descriptor():
    assert words("git >/dev/null reset --hard") == ["git", ">", "/dev/null", "reset", "--hard"]
    assert words("git 2>&1 push") == ["git", ">&", "1", "push"]
    assert words("git {fd}>/dev/null push") == ["git", ">", "/dev/null", "push"]
    assert words("echo 2 >x") == ["echo", "2", ">", "x"]  # a number apart from `>` is an argument
    assert words("a &>>log |& b") == ["a", "&>>", "log", "|&", "b"]


def test_heredoc_bodies():
    t = parse("cat <<'EOF' | bash\ngit push\nEOF\necho done").tokens
    delim = t[2]
    assert delim.heredoc == "git push\n" and delim.heredoc_quoted
    assert [x.text if isinstance(x, Word) else x for x in t[3:]] == ["|", "bash", "\n", "echo", "done"]
    t = parse("cat <<-E1 <<E2\n\tone\n\tE1\ntwo\nE2\n").tokens
    assert (t[2].heredoc, t[4].heredoc) == ("one\n", "two\n")
    assert not parse("cat <<EOF\n$(git push)\nEOF").tokens[2].heredoc_quoted
    assert subs("cat <<EOF\n$(git push) `date`\nEOF") == [["git", "push"], ["date"]]
    assert subs("cat <<'EOF'\n$(git push)\nEOF") == []


def test_what_runs_inside_a_word():
    assert subs("echo $(git push)") == [["git", "push"]]
    assert subs("echo `git commit -m \\`date\\``") == [["git", "commit", "-m", DYN]]
    assert subs('x=${Y:-$(git push)}') == [["git", "push"]]
    assert subs("echo $((1 + $(git push)))") == [["git", "push"]]
    assert subs("cat <(git push) >(tee x)") == [["git", "push"], ["tee", "x"]]
    assert subs("echo '$(git push)'") == []
    assert subs('echo "$(git push)"') == [["git", "push"]]


def test_values_known_only_at_run_time():
    g, push = parse("$G push").tokens
    assert not g.static and g.split and push.static
    quoted = parse('"$G"').tokens[0]
    assert not quoted.static and not quoted.split
    ansi = parse("$'\\x67it'").tokens[0]
    assert ansi.text == "git" and ansi.ansi and not ansi.static
    assert parse("a=(git push)").tokens[0].text == "a=" + DYN


@pytest.mark.parametrize("pattern", ["{git,} push", "{a..e}", "x{1..3}y", "pre{a,b{1,2}}post", "{a}", "{a,}",
                                     '"{a,b}"x{"c,d"}', "{a,b\\,c}", "{5..1..2}", "{a,b}{c,d}"])
def test_brace_expansion_is_bashs(pattern):
    script = parse(pattern)
    ours = [unescape(p) for t in script.tokens for p in expand_braces(t.pat)]
    theirs = subprocess.run(["bash", "-c", f"printf '%s\\n' {pattern}"], capture_output=True, text=True).stdout.split()
    assert ours == theirs


def test_brace_expansion_too_large_is_unknown():
    assert expand_braces("{1..100000}") == [DYN]


@pytest.mark.parametrize("text", ["echo 'open", 'echo "open', "echo `open", "echo $(open", "echo ${open",
                                  "echo $'open", "cat <<"])
def test_unbalanced_text_is_an_error(text):
    with pytest.raises(ValueError):
        parse(text)
