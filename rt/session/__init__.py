"""Long sessions: the record of every check run, the handoff that survives compaction, notes the agent
or user kept, and the tokens each task cost (read from Claude Code's transcripts)."""
