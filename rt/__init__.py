"""rt: a local task runner that does the mechanical work around a coding agent's edits."""
__version__ = "0.1.0"
