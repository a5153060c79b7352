#!/usr/bin/env python3
"""Ours against XLA's (jaxlib) on the same files, in one table.

    python3 benches/compare.py [FILE...] [-n REPEATS] [--python /work/venv/bin/python]

For each file (default: the corpus `large/` files): parse+lower MB/s (text to IR, what XLA's
parser does), verify MB/s, print MB/s (input bytes over print time), each ours beside XLA's and
their ratio, and the peak RSS of `hlo-layout check FILE` beside that of a process that has XLA
parse the file (python and jaxlib included, so read it as an upper bound). `above base` is
ours less the peak RSS of `check` on a two-line module (the process itself: code, libc, the
allocator), over the input size. Ours is timed by
`cargo run --release --example scaling_bench` (the scaling bench, built as the command is)
with HLO_SCALING_FILES; peak RSS is read from `os.wait4`. XLA
columns are `-` when the python with jax is absent.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

XLA_TIMER = r"""
import json, sys, time
from jax._src.lib import hlo as H
text = open(sys.argv[1], encoding="utf-8").read()
repeats = int(sys.argv[2])
best_parse = best_print = float("inf")
for _ in range(repeats):
    t0 = time.perf_counter()
    module = H.hlo_module_from_text(text)
    t1 = time.perf_counter()
    module.to_string(H.HloPrintOptions())
    t2 = time.perf_counter()
    best_parse, best_print = min(best_parse, t1 - t0), min(best_print, t2 - t1)
print(json.dumps({"parse": best_parse, "print": best_print}))
"""

XLA_PARSE_ONCE = r"""
import sys
from jax._src.lib import hlo as H
H.hlo_module_from_text(open(sys.argv[1], encoding="utf-8").read())
"""

ROW = re.compile(r"^(parse\+lower|verify|print)\s+\d+x\s+([\d.]+) MB\s+\d+ instr\s+([\d.]+) ms.*\s(\S+)$")


TIME = "/usr/bin/time"


def run_peak(argv):
    """Runs argv; returns (exit code, stdout, peak RSS in KB) of that process alone.

    A process forked from this one starts with python's pages, and Linux counts the memory
    a process had before `exec` in its peak. So the peak is read by GNU time, a small
    process in between, when it is installed, and otherwise from `os.wait4` (which then
    reads about python's size, some 14 MB, for a small run)."""
    timed = os.path.exists(TIME)
    out_file = os.path.join(ROOT, "target", "compare-peak.txt")
    if timed:
        argv = [TIME, "-f", "%M", "-o", out_file] + list(argv)
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss
    if timed:
        with open(out_file, encoding="utf-8") as f:
            peak = int(f.read().split()[-1])
    return process.returncode, out, peak


def ours(files, repeats):
    """{file name: {stage: seconds}} from the scaling bench."""
    env = dict(os.environ, HLO_SCALING_FILES=os.pathsep.join(files),
               HLO_SCALING_STAGES="parse,verify,print", HLO_BENCH_REPEATS=str(repeats))
    # The example, not `cargo bench`: cargo builds benchmarks with unwinding, the command
    # without (the release profile's `panic = "abort"`).
    command = ["cargo", "run", "--quiet", "--release", "--example", "scaling_bench"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    times = {}
    for line in result.stdout.splitlines():
        m = ROW.match(line)
        if m:
            times.setdefault(m.group(4), {})[m.group(1)] = float(m.group(3)) / 1e3
    return times


def xla(python, path, repeats):
    """(parse seconds, print seconds, peak RSS KB of a parse-only process) or None."""
    code, out, _ = run_peak([python, "-c", XLA_TIMER, path, str(repeats)])
    if code != 0:
        return None
    import json
    timing = json.loads(out.strip().splitlines()[-1])
    _, _, peak = run_peak([python, "-c", XLA_PARSE_ONCE, path])
    return timing["parse"], timing["print"], peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("-n", type=int, default=5, help="repeats, best kept")
    ap.add_argument("--python", default=os.environ.get("HLO_PYTHON", "/work/venv/bin/python"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "hlo-layout"))
    a = ap.parse_args()
    files = a.files or sorted(
        os.path.join(ROOT, "..", "shared", "corpus", "large", f)
        for f in os.listdir(os.path.join(ROOT, "..", "shared", "corpus", "large"))
        if f.endswith(".hlo"))
    files = [os.path.abspath(f) for f in files]
    subprocess.run(["cargo", "build", "--quiet", "--release"], cwd=ROOT, check=True)
    have_xla = bool(a.python) and os.path.exists(a.python)
    if not have_xla:
        print(f"XLA not measured: no python at {a.python!r} (set --python or HLO_PYTHON)")
    times = ours(files, a.n)
    tiny = os.path.join(ROOT, "target", "compare-tiny.hlo")
    with open(tiny, "w", encoding="utf-8") as f:
        f.write("HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }\n")
    base = min(run_peak([a.bin, "check", tiny])[2] for _ in range(a.n))

    def rate(mb, seconds):
        return mb / seconds if seconds else 0.0

    header = (f"{'file':44} {'MB':>6} | {'parse+lower MB/s':>16} {'XLA':>7} {'ratio':>6} | "
              f"{'verify MB/s':>11} | {'print MB/s':>10} {'XLA':>7} {'ratio':>6} | "
              f"{'peak RSS MB':>11} {'x input':>7} {'above base':>10} {'XLA':>7}")
    print(header)
    print("-" * len(header))
    for path in files:
        name = os.path.basename(path)
        size = os.path.getsize(path)
        mb = size / 1e6
        t = times.get(name, {})
        peak = min(run_peak([a.bin, "check", path])[2] for _ in range(a.n))
        parse = rate(mb, t.get("parse+lower"))
        verify = rate(mb, t.get("verify"))
        printing = rate(mb, t.get("print"))
        x = xla(a.python, path, a.n) if have_xla else None
        if x:
            xparse, xprint = mb / x[0], mb / x[1]
            xla_cols = (f"{xparse:7.1f} {parse / xparse:6.1f}", f"{xprint:7.1f} {printing / xprint:6.1f}",
                        f"{x[2] / 1024:7.0f}")
        else:
            xla_cols = (f"{'-':>7} {'-':>6}", f"{'-':>7} {'-':>6}", f"{'-':>7}")
        print(f"{name[:44]:44} {mb:6.2f} | {parse:16.1f} {xla_cols[0]} | {verify:11.1f} | "
              f"{printing:10.1f} {xla_cols[1]} | {peak / 1024:11.1f} {peak * 1024 / size:7.1f} "
              f"{(peak - base) * 1024 / size:10.1f} {xla_cols[2]}")
    print(f"(best of {a.n}; print MB/s counts input bytes; verify is ours alone: XLA's parser "
          "does not verify; peak RSS of ours is `hlo-layout check`, the least of the runs; "
          f"base {base / 1024:.1f} MB)")


if __name__ == "__main__":
    main()
