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
