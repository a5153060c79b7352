#!/usr/bin/env python3
"""Checks `hlo-layout fmt` against XLA's own parser and printer (jaxlib), over the corpus.

For every module (files in xla-tests are split at `// -----`):
  A = XLA's print of the original text, B = XLA's print of our `fmt` output.
The module passes when XLA accepts our output and A == B. Where XLA rejects the original,
that is counted apart. Also times XLA's parser on the benchmark files, for benches/parse.rs.

    /work/venv/bin/python benches/xla_compare.py [--corpus ../shared/corpus] [--bin target/release/hlo-layout]
    /work/venv/bin/python benches/xla_compare.py --time FILE...   # XLA parse MB/s only
    /work/venv/bin/python benches/xla_compare.py --print --time FILE...   # and print MB/s

Needs jax/jaxlib 0.10.2 (`python3 -m venv v && v/bin/pip install jax==0.10.2 jaxlib==0.10.2`).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    from jax._src.lib import hlo as H
except Exception as e:  # noqa: BLE001
    sys.exit(f"jaxlib with hlo_module_from_text is needed: {e}")

SEPARATOR = re.compile(r"^// -----.*$", re.M)


def xla_print(text):
    return H.hlo_module_from_text(text).to_string(H.HloPrintOptions())


def split(text):
    """The same split as hlo_layout::syntax::split_modules: blank/comment-only parts dropped."""
    parts = SEPARATOR.split(text)
    keep = []
    for part in parts:
        stripped = re.sub(r"//[^\n]*|/\*.*?\*/", "", part, flags=re.S).strip()
        if stripped:
            keep.append(part)
    return keep


def ours(binary, text):
    with tempfile.NamedTemporaryFile("w", suffix=".hlo", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        r = subprocess.run([binary, "fmt", name], capture_output=True, text=True)
    finally:
        os.unlink(name)
    return r.returncode, r.stdout, r.stderr


def compare(args):
    folders = ["jax", "large", "xla-tests", "xla-parser-tests", "tests/inputs/fmt"]
    totals = {}
    failures = []
    for folder in folders:
        # The project's own fmt inputs sit beside the corpus folders in the report.
        d = os.path.join(args.root, folder) if folder.startswith("tests/") else os.path.join(args.corpus, folder)
        counts = dict(modules=0, ours_ok=0, xla_rejects_original=0, xla_accepts_ours=0,
                      same=0, different=0, xla_rejects_ours=0)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".hlo"):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as fh:
                text = fh.read()
            parts = split(text) if folder == "xla-tests" else [text]
            for k, part in enumerate(parts):
                label = f"{folder}/{name}#{k}"
                counts["modules"] += 1
                code, out, err = ours(args.bin, part)
                if code != 0:
                    failures.append(f"{label}: our fmt fails: {err.strip().splitlines()[:2]}")
                    continue
                counts["ours_ok"] += 1
                try:
                    a = xla_print(part)
                except Exception as e:  # noqa: BLE001
                    counts["xla_rejects_original"] += 1
                    try:
                        xla_print(out)
                        failures.append(f"{label}: XLA rejects the original but accepts ours")
                    except Exception:  # noqa: BLE001
                        pass
                    continue
                try:
                    b = xla_print(out)
                except Exception as e:  # noqa: BLE001
                    counts["xla_rejects_ours"] += 1
                    failures.append(f"{label}: XLA rejects our output: {str(e).splitlines()[0][:200]}")
                    continue
                counts["xla_accepts_ours"] += 1
                if a == b:
                    counts["same"] += 1
                else:
                    counts["different"] += 1
                    failures.append(f"{label}: XLA prints ours differently")
        totals[folder] = counts
    for folder, c in totals.items():
        print(f"{folder:18} " + " ".join(f"{k}={v}" for k, v in c.items()))
    for f in failures:
        print("  " + f)
    bad = sum(c["xla_rejects_ours"] + c["different"] + (c["modules"] - c["ours_ok"]) for c in totals.values())
    return 1 if bad else 0


def time_xla(files, repeats, also_print=False):
    total_bytes, total_seconds = 0, 0.0
    for path in files:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        best = float("inf")
        best_print, printed = float("inf"), 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            module = H.hlo_module_from_text(text)
            best = min(best, time.perf_counter() - t0)
            if also_print:
                # HloModule::ToString with default options, as xla_roundtrip.py prints.
                t0 = time.perf_counter()
                out = module.to_string(H.HloPrintOptions())
                best_print = min(best_print, time.perf_counter() - t0)
                printed = len(out.encode())
        n = len(text.encode())
        line = f"xla  {os.path.basename(path):60} {n / 1e6:7.2f} MB  {n / best / 1e6:8.1f} MB/s"
        if also_print:
            line += f"  print {printed / best_print / 1e6:8.1f} MB/s"
        print(line)
        total_bytes += n
        total_seconds += best
    if total_seconds:
        print(f"xla  total: {total_bytes / 1e6:.2f} MB in {total_seconds * 1e3:.1f} ms = "
              f"{total_bytes / total_seconds / 1e6:.1f} MB/s (best of {repeats})")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.path.join(root, "..", "shared", "corpus"))
    ap.add_argument("--bin", default=os.path.join(root, "target", "release", "hlo-layout"))
    ap.add_argument("--time", nargs="*")
    ap.add_argument("--print", action="store_true", help="with --time: also time XLA's print")
    ap.add_argument("-n", type=int, default=5)
    a = ap.parse_args()
    a.root = root
    if a.time is not None:
        time_xla(a.time, a.n, a.print)
        return 0
    return compare(a)


if __name__ == "__main__":
    sys.exit(main())
