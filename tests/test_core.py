"""Running programs: argument lists only, and a timeout ends everything the program started."""
import os
import subprocess
import time

import pytest

from rt.core import run


def test_timeout_kills_the_whole_process_group(tmp_path):
    with pytest.raises(subprocess.TimeoutExpired) as info:
        run(["sh", "-c", "sleep 30 & echo $!; wait"], tmp_path, timeout=1)
    child = int(info.value.stdout.decode().split()[0])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{child}/stat") as f:
            if f.read().split()[2] == "Z":  # a zombie waiting for init is gone too
                return
        time.sleep(0.05)
    pytest.fail(f"the grandchild {child} outlived the timeout")


def test_arguments_are_never_shell_words(tmp_path):
    proc = run(["echo", "$(touch pwned)", ";", "rm", "-rf", "x"], tmp_path)
    assert proc.stdout == b"$(touch pwned) ; rm -rf x\n"
    assert not (tmp_path / "pwned").exists()


def test_input_is_passed_on(tmp_path):
    assert run(["cat"], tmp_path, input=b"abc").stdout == b"abc"


def test_a_paths_test_verdict_is_worked_out_once(monkeypatch):
    """`is_test` (the one rule for the ranking, the pack and the look-ups) keeps its pattern's answer per path (a
    `/runtask` asks it of the same test files thousands of times, a hook server in every call): the pattern runs
    once per path, and its answers are the pattern's."""
    from rt import core
    searched = []
    pattern = core._TEST

    class Counted:
        def search(self, path):
            searched.append(path)
            return pattern.search(path)
    monkeypatch.setattr(core, "_TEST", Counted())
    monkeypatch.setattr(core, "_TESTS", {})
    paths = ["src/app.py", "tests/test_app.py", "src/latest.py", "pkg/spec_helper.rb", "web/a.spec.ts",
             "lib/contest/x.go", "lib/x_test.go", "spec/models/user_spec.rb", "src/test_utils/x.py",
             "src/__snapshots__/App.test.tsx.snap", "docs/snapshots.md", "cypress/platform/class.html",
             "packages/app-tests/e2e/fixtures/documents.ts", "src/recypress/x.ts",
             "Src/Newtonsoft.Json.Tests/JsonConvertTest.cs", "Tests/CoreTests/ParserTests.swift",
             "src/App.UnitTests/CartTests.cs", "src/TestHelper.cs", "Sources/Core/Testing.swift",
             "okhttp/src/jvmTest/kotlin/okhttp3/HttpUrlTest.kt", "app/src/androidTest/java/a/Flow.kt",
             "lib/src/testFixtures/java/a/Fake.java", "lib/src/contest/a.kt", "lib/src/main/kotlin/Latest.kt"]
    first = [core.is_test(p) for p in paths]
    again = [core.is_test(p) for p in paths * 3]
    assert first == [bool(pattern.search(p)) for p in paths] and again == first * 3
    assert first == [False, True, False, False, True, False, True, True, False, False, False, True, True, False,
                     True, True, True, False, False, True, True, True, False, False]
    assert sorted(searched) == sorted(p for p in paths if "test" in p or "Test" in p or "spec" in p or "cypress/" in p)
