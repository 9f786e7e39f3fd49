# rt's hook client (bash): `bash hook.sh <event>`, the hook's JSON on stdin, run by Claude Code for each hook.
# The answer comes from the repository's hook server (rt/claude/hookserver.py) over 127.0.0.1, so a hook it
# answers starts no process; else from `$RT_PY -S -P -m rt hook <event>` (RT_PY: the interpreter, python3 by
# default; PYTHONPATH: rt's folder), which starts the server for the next hook. Bash for /dev/tcp and read -d.
event=$1
py=${RT_PY:-python3}
root=${CLAUDE_PROJECT_DIR:-$PWD}
if [ -f "$root/.rt/hookserver" ] && [ -r "$root/.rt/hookserver" ] && read -r port token pid < "$root/.rt/hookserver"; then
    # the payload first: the server gives a request 2 s from its greeting, and bash reads a pipe a byte at a time
    # (a Write's large payload takes seconds); a server that hangs up is a fallback, not a SIGPIPE that answers nothing
    IFS= read -r -d '' payload
    trap '' PIPE
    if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
        # the server greets first, naming its process: a stale file's port, now another program's, gets no token;
        # a server busy with another hook greets late, and this hook runs in its own process instead
        wait=1
        [ "${BASH_VERSINFO[0]}" -ge 4 ] && wait=0.3
        if IFS= read -r -t "$wait" hello <&3 && [ "$hello" = "RT-HOOK-SERVER $pid" ] \
            && printf 'RT-HOOK 1 %s %s\n%s\n%s\n%s\n%s\n%s\0' "$token" "$event" "$RT_PY" "$PYTHONPATH" \
                "$CLAUDE_PROJECT_DIR" "$PATH" "$payload" >&3 2>/dev/null \
            && IFS= read -r code <&3 && [ "$code" != retry ]; then
            IFS= read -r -d '' out <&3
            IFS= read -r -d '' err <&3
            printf '%s' "$out"
            printf '%s' "$err" >&2
            exit "$code"
        fi
        exec 3>&-
    fi
    printf '%s' "$payload" 2>/dev/null | RT_HOOK_ROOT=$root "$py" -S -P -m rt hook "$event"
    exit
fi
RT_HOOK_ROOT=$root exec "$py" -S -P -m rt hook "$event"
