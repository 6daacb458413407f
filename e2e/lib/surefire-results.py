#!/usr/bin/env python3
"""A results file from Surefire's XML report of one test class: what ran, passed, failed and was skipped (a skip is not
a pass), each test's duration, and where and when it ran. Used by e2e/matrix and e2e/control-plane-upgrade.

    surefire-results.py REPORT.xml OUT.md TITLE COMMAND STARTED_ISO LOAD_BEFORE [KEY=VALUE ...]

KEY=VALUE lines (the binaries' versions, the images) go into the header as they are. The summary lines that
e2e/README.md's tables quote (and OperatorDocsTest checks) are "- outcome:" and "- time:".
"""
import datetime
import os
import platform
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

report, out, title, command, started, load_before, *extra = sys.argv[1:]
suite = ElementTree.parse(report).getroot()
cases = []
for case in suite.iter("testcase"):
    status = "passed"
    message = ""
    for kind in ("failure", "error", "skipped"):
        element = case.find(kind)
        if element is not None:
            status = {"failure": "FAILED", "error": "ERROR", "skipped": "skipped"}[kind]
            message = (element.get("message") or "").replace("\n", " ").replace("|", "/")[:300]
    cases.append((case.get("name"), float(case.get("time") or 0), status, message))
run = len(cases)
failed = sum(1 for c in cases if c[2] in ("FAILED", "ERROR"))
skipped = sum(1 for c in cases if c[2] == "skipped")
passed = run - failed - skipped
outcome = "passed" if run > 0 and failed == 0 and skipped == 0 else "FAILED"
root = os.path.dirname(os.path.abspath(__file__)) + "/../.."
commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                       text=True).stdout.strip()
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown cpu")
with open("/proc/loadavg") as f:
    load_after = " ".join(f.read().split()[:3])
lines = [
    f"# {title}",
    "",
    f"- date: {started} (to {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')})",
    f"- commit: {commit}{' plus uncommitted changes' if dirty else ''}",
    f"- machine: {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores ({cpu})",
    f"- load average: {load_before} at the start, {load_after} at the end",
    f"- command: `{command}`",
    *[f"- {kv.split('=', 1)[0]}: {kv.split('=', 1)[1]}" for kv in extra],
    f"- outcome: {outcome} ({passed} of {run} passed, {failed} failed, {skipped} skipped)",
    f"- time: {round(float(suite.get('time') or sum(c[1] for c in cases)))} s",
    "",
    f"| {suite.get('name').rsplit('.', 1)[-1]} | s | result | message |",
    "|---|---:|---|---|",
    *[f"| {name} | {seconds:.1f} | {status} | {message} |" for name, seconds, status, message in cases],
    "",
]
os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
with open(out, "w") as f:
    f.write("\n".join(lines))
print(f"{outcome}: {passed} of {run} passed, {failed} failed, {skipped} skipped -> {out}")
sys.exit(0 if outcome == "passed" else 1)
