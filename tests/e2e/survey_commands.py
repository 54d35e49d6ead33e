#!/usr/bin/env python3
"""The starting commands tr-survey prints, run as tr-select-anchors runs them.

usage: survey_commands.py STREAM N [N ...]

For each --num-layers N, runs tr-survey on the trace-layers stream STREAM
(tr-decode's output), takes the tr-layer-track command of its "starting
point" (if any), and runs tr-select-anchors on the same stream with the
command's selection options (--trace, --output, --phase and --evidence
belong to tr-layer-track alone).  Prints one line per N:
  N none                 no starting command
  N ok REGEX             tr-select-anchors accepted the selection
  N refused REGEX: TEXT  it refused it (first line of its message)
tr-survey and tr-select-anchors come from PATH."""
import shlex
import subprocess
import sys


def command_of(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("starting point") and i + 1 < len(lines):
            return shlex.split(lines[i + 1])
    return None


def selection(cmd):
    args, i = [], 1
    while i < len(cmd):
        if cmd[i] in ("--trace", "--output", "--phase", "--evidence"):
            i += 2
            continue
        args += cmd[i:i + 2]
        i += 2
    return args


def main():
    stream = sys.argv[1]
    for n in sys.argv[2:]:
        with open(stream, "rb") as f:
            survey = subprocess.run(["tr-survey", "--num-layers", n], stdin=f,
                                    capture_output=True, text=True, check=True)
        cmd = command_of(survey.stdout)
        if cmd is None:
            print(n, "none")
            continue
        args = selection(cmd)
        regex = args[args.index("--anchor-regex") + 1]
        with open(stream, "rb") as f:
            sel = subprocess.run(["tr-select-anchors"] + args, stdin=f,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True)
        if sel.returncode == 0 and not sel.stderr:
            print(n, "ok", regex)
        else:
            first = (sel.stderr.splitlines() or ["(nothing said)"])[0]
            print(n, "refused", regex + ":", "exit", sel.returncode, first)


if __name__ == "__main__":
    main()
