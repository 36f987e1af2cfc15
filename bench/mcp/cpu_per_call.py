#!/usr/bin/env python3
"""CPU per tools/call of any stdio MCP server: bench/mcp/cpu_per_call.py CALLS -- COMMAND...

Starts COMMAND, initializes it, sends 500 warm-up calls and then CALLS sequential tools/call echo
requests, one in flight at a time, and prints calls/s and the server's CPU (user + system, all
threads of the process and of its descendants, such as skillhost's plugin runners, from /proc)
per call. No MCP library, so that a server as cheap as native_floor.c can be
measured next to skillhost with the same client (docs/performance.md)."""
import json
import os
import subprocess
import sys
import time


def children(pid):
    """The living children of the process, from every thread's list."""
    found = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found.update(int(child) for child in f.read().split())
    except OSError:
        pass
    return found


def cpu_seconds(pid):
    """(user, system) CPU seconds of the process and its living descendants, all threads."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = 0.0
    pending, seen = [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user += int(fields[11]) / tick
        system += int(fields[12]) / tick
        pending.extend(children(current))
    return user, system


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: cpu_per_call.py CALLS -- COMMAND...")
    calls = int(sys.argv[1])
    server = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, bufsize=0)
    send = server.stdin.write
    send(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
         b'"capabilities":{},"clientInfo":{"name":"cpu_per_call","version":"1"}}}\n')
    server.stdout.readline()
    send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    call = (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"text": "hello from the MCP benchmark"}}})
            + "\n").encode()
    for _ in range(500):
        send(call)
        answer = json.loads(server.stdout.readline())
    if "result" not in answer:
        sys.exit(f"the server did not answer the call: {answer}")
    cpu_before, started = cpu_seconds(server.pid), time.monotonic()
    for _ in range(calls):
        send(call)
        server.stdout.readline()
    elapsed, cpu_after = time.monotonic() - started, cpu_seconds(server.pid)
    user, system = (after - before for after, before in zip(cpu_after, cpu_before))
    print(f"{os.path.basename(sys.argv[3])}: {calls} calls, {calls / elapsed:.0f} calls/s, "
          f"server CPU {(user + system) / calls * 1e6:.1f} us/call "
          f"(user {user / calls * 1e6:.1f}, system {system / calls * 1e6:.1f})")
    server.stdin.close()
    server.wait()


main()
