"""`rt agent`'s settings: the `[agent]` table of rt.toml, under the command line's options."""
from __future__ import annotations

from dataclasses import dataclass

from rt.checks import ConfigError, load_config
from rt.core import Repo, UsageError

TIERS = ("fast", "balanced", "powerful")

DEFAULTS = {"context": 8192, "jobs": 2, "timeout": 300, "key_env": "OPENAI_API_KEY"}

_FIELDS = {"endpoint": str, "model": str, "models": dict, "context": int, "jobs": int, "timeout": int,
           "key_env": str, "keywords": list}


@dataclass(frozen=True)
class Settings:
    endpoint: str
    models: dict      # tier -> model name
    context: int      # the model's window, in tokens
    jobs: int         # executor calls at once
    timeout: int      # seconds one call may take
    key_env: str      # the environment variable holding the API key


def table(repo: Repo) -> dict:
    """rt.toml's `[agent]` table, validated (empty when there is none)."""
    data = load_config(repo).get("agent", {})
    for key, value in data.items():
        want = _FIELDS.get(key)
        if want is None:
            raise ConfigError(f"rt.toml: [agent] unknown key {key!r} (known: {', '.join(sorted(_FIELDS))})")
        if not isinstance(value, want) or isinstance(value, bool):
            raise ConfigError(f"rt.toml: [agent] {key} must be a {want.__name__}")
    for tier, model in data.get("models", {}).items():
        if tier not in TIERS or not isinstance(model, str):
            raise ConfigError(f"rt.toml: [agent.models] maps the tiers {', '.join(TIERS)} to model names; got {tier!r}")
    if not all(isinstance(k, str) and k.strip() for k in data.get("keywords", [])):
        raise ConfigError("rt.toml: [agent] keywords must be a list of words or phrases")
    return data


def settings(repo: Repo, args) -> Settings:
    """The command line over rt.toml over the defaults; refuses what a run cannot do without."""
    data = DEFAULTS | table(repo)
    endpoint = args.endpoint or data.get("endpoint")
    if not endpoint:
        raise UsageError("no endpoint: pass --endpoint URL (e.g. http://127.0.0.1:11434/v1 for Ollama) "
                         "or set endpoint in rt.toml's [agent] table")
    if not endpoint.startswith(("http://", "https://")):
        raise UsageError(f"--endpoint {endpoint}: give an http:// or https:// URL")
    one = args.model or data.get("model")
    models = {tier: args.model or data.get("models", {}).get(tier) or one for tier in TIERS}
    missing = [tier for tier, m in models.items() if not m]
    if missing:
        raise UsageError(f"no model for the tier(s) {', '.join(missing)}: pass --model NAME (one model for all), "
                         f"or set model or [agent.models] in rt.toml")
    context, jobs, timeout = (data[k] if getattr(args, k) is None else getattr(args, k) for k in ("context", "jobs", "timeout"))
    for name, value in (("jobs", jobs), ("timeout", timeout)):
        if value < 1:
            raise UsageError(f"--{name} {value}: give 1 or more")
    return Settings(endpoint, models, context, jobs, timeout, args.key_env or data["key_env"])
