#!/usr/bin/env python3
"""The Python package's parse beside the library's, on the same files.

    python3 benches/python_parse.py FILE... [-n REPEATS] [--python VENV/bin/python]

`--python` is an interpreter with `hlo_layout` installed (`pip install ./python`). For each
file: the library's parse+lower (the scaling bench, as `benches/compare.py` runs it) and
`hlo_layout.parse(text)` on a `str` already in memory, best of REPEATS each, in ms and MB/s.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ours  # noqa: E402

PACKAGE_TIMER = r"""
import json, sys, time, hlo_layout
text = open(sys.argv[1], encoding="utf-8").read()
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    module = hlo_layout.parse(text)
    best = min(best, time.perf_counter() - start)
    del module
print(json.dumps(best))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("-n", "--repeats", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    files = [os.path.abspath(f) for f in args.files]
    library = ours(files, args.repeats)
    print(f"{'file':48} {'MB':>6} | {'library ms':>10} {'MB/s':>6} | {'python ms':>9} {'MB/s':>6} | ratio")
    for path in files:
        mb = os.path.getsize(path) / 1e6
        lib = library[os.path.basename(path)]["parse+lower"]
        run = subprocess.run([args.python, "-c", PACKAGE_TIMER, path, str(args.repeats)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{args.python} could not time hlo_layout.parse:\n{run.stderr[-2000:]}")
        package = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{os.path.basename(path):48} {mb:6.1f} | {lib * 1e3:10.0f} {mb / lib:6.0f} | "
              f"{package * 1e3:9.0f} {mb / package:6.0f} | {package / lib:5.2f}")


if __name__ == "__main__":
    main()
