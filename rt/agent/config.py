"""`rt agent`'s settings: the `[agent]` table of rt.toml, under the command line's options."""
from __future__ import annotations

import os
import re
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
    if not all(isinstance(k, str) and re.search(r"\w", k) for k in data.get("keywords", [])):
        raise ConfigError("rt.toml: [agent] keywords must be a list of words or phrases")
    return data


def settings(repo: Repo, args) -> Settings:
    """The command line over rt.toml over the defaults; refuses what a run cannot do without."""
    data = DEFAULTS | table(repo)
    endpoint = args.endpoint or data.get("endpoint")
    if not endpoint:
        raise UsageError("no endpoint: pass --endpoint URL (e.g. http://127.0.0.1:11434/v1 for Ollama) "
                         "or set endpoint in rt.toml's [agent] table")
    local = _checked_url(endpoint)
    key_env = args.key_env or data["key_env"]
    if not args.endpoint and not local:   # a repository's rt.toml never chooses where the user's key goes
        raise UsageError(f"rt.toml names the endpoint {endpoint}, not on this machine: rt sends your API key "
                         f"only where you name it yourself; pass --endpoint {endpoint}")
    if "key_env" in data and not args.key_env and not local and key_env != DEFAULTS["key_env"]:
        raise UsageError(f"rt.toml chooses the environment variable {key_env} for the key sent to {endpoint}; "
                         f"pass --key-env {key_env} yourself if that is meant")
    if endpoint.startswith("http://") and not local and os.environ.get(key_env):
        raise UsageError(f"--endpoint {endpoint}: rt sends your API key ({key_env}) over https only, or to this machine")
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
    return Settings(endpoint, models, context, jobs, timeout, key_env)


def _checked_url(endpoint: str) -> bool:
    """Refuse an endpoint that is no http(s) URL with a host (one line, no password repeated); whether it is on this
    machine (a loopback address or localhost)."""
    import ipaddress
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname
        parts.port   # a port that is no number raises here
    except ValueError:
        host, parts = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host or any(c < " " for c in endpoint):
        raise UsageError(f"--endpoint {endpoint[:100]!r}: give an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise UsageError("--endpoint: a user or password in the URL is not sent; give the key in an environment "
                         "variable (--key-env)")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
