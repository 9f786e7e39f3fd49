def test_start_plan_delta_finish(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "change x")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = 2\n")
    out = project.rt("delta")
    assert "M a.py  +1 -1" in out
    project.rt("step", "changed x")
    project.rt("finish", "--incomplete")
    assert project.rt_json("tasks")["finished"] == 1
