"""`rt mcp`: rt's look-ups and task flow as MCP tools (server.py: the protocol; tools.py: the tools)."""
