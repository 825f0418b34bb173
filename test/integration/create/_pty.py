"""Runs a command on a pseudo-terminal and answers its prompts: the way a person at a terminal would.

Usage: python3 _pty.py '<json>' where the JSON is
  {"argv": [...], "cwd": "...", "steps": [{"expect": "<regex>", "send": "<text>"}, ...], "timeout": 60}
Each step waits until the output (ANSI escapes removed) matches `expect` after the previous match,
then types `send`. Prints {"code": <exit code>, "output": "<all output>", "missing": <regex or null>}
as JSON on stdout.
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

spec = json.loads(sys.argv[1])
ansi = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[=>]")

pid, fd = pty.fork()
if pid == 0:
    # A terminal of 40 rows and 100 columns: without a size, prompt libraries wrap at one column.
    fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    os.chdir(spec["cwd"])
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="40")
    os.execvpe(spec["argv"][0], spec["argv"], env)

raw = b""
deadline = time.time() + spec.get("timeout", 60)
position = 0
missing = None


def pump(wait):
    global raw
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    if not chunk:
        return False
    raw += chunk
    return True


alive = True
for step in spec["steps"]:
    pattern = re.compile(step["expect"])
    while True:
        text = ansi.sub("", raw.decode("utf-8", "replace"))
        match = pattern.search(text, position)
        if match:
            position = match.end()
            break
        if not alive or time.time() > deadline:
            missing = step["expect"]
            break
        alive = pump(0.1)
    if missing:
        break
    # Give the prompt a moment to be ready for keys, as a person would.
    time.sleep(0.3)
    os.write(fd, step["send"].encode("utf-8"))

while alive and time.time() < deadline:
    alive = pump(0.1)
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        while pump(0.05):
            if not select.select([fd], [], [], 0)[0]:
                break
        break
else:
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)

if os.WIFEXITED(status):
    code = os.WEXITSTATUS(status)
else:
    code = 128 + os.WTERMSIG(status)
print(json.dumps({"code": code, "output": ansi.sub("", raw.decode("utf-8", "replace")), "missing": missing}))
