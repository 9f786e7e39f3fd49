"""`rt agent` and `rt route`: a planner / executor / orchestrator for small-window models, and the model router.

The planner sees a map of the repository and the request; each executor call sees one file (or the part of
it the task needs) and one task; plain code checks the plan, runs it in waves and hands the edits to an rt
task, which records, verifies and reports them like any other.
"""
