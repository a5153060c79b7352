#!/usr/bin/env python3
"""Makes a bigger HLO module out of a real one by replicating it K times, for scaling benches.

    python3 benches/replicate.py IN.hlo K [-o OUT.hlo]

Every computation is copied K times; copy 0 keeps its names and copy c > 0 gets the suffix
`_rC` on every computation and instruction name (references renamed the same way), and its
`channel_id`s are shifted so they stay unique. The entry stays one computation: its parameters
are shared, the other instructions are replicated per copy (each copy calling its own
computations), and the root becomes a tuple of the copies' roots. The header follows the new
result: `entry_computation_layout` returns the K results, `input_output_alias` points into the
first copy, `allow_spmd_sharding_propagation_to_output` is repeated per copy. Output is
accepted by hlo-layout and by XLA's parser (../shared/tools/xla_roundtrip.py --check).

Names must be written with `%` (as XLA prints optimised modules, e.g. the corpus `*.opt.hlo`).
"""
import argparse
import re
import sys

NAME = re.compile(r"%([A-Za-z0-9_.\-]+)")
CHANNEL = re.compile(r"\bchannel_id=(\d+)")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
COMPUTATION = re.compile(r"^(ENTRY\s+)?%([A-Za-z0-9_.\-]+)")
INSTRUCTION = re.compile(r"^(\s+)(ROOT\s+)?%([A-Za-z0-9_.\-]+) = ")


def outside_strings(line, edit):
    """Applies `edit` to the parts of `line` that are not string literals."""
    out, last = [], 0
    for m in STRING.finditer(line):
        out.append(edit(line[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(edit(line[last:]))
    return "".join(out)


def balanced(text, start):
    """The end (exclusive) of the bracketed group opening at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced brackets")


def shape_text(line, start):
    """The result shape written from `start` on: up to the first space outside brackets."""
    depth = 0
    for i in range(start, len(line)):
        c = line[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == " " and depth == 0:
            return line[start:i]
    raise ValueError("no opcode after the shape")


def opcode(line):
    """The opcode of an instruction line, or None for other lines."""
    m = INSTRUCTION.match(line)
    if not m:
        return None
    start = m.end() + len(shape_text(line, m.end())) + 1
    return line[start:line.index("(", start)]


def renamer(suffix, keep, channel_shift):
    """Renames `%name` tokens (except those in `keep`) and shifts channel ids, outside strings."""
    def name(m):
        return m.group(0) if m.group(1) in keep else f"%{m.group(1)}{suffix}"

    def channel(m):
        return f"channel_id={int(m.group(1)) + channel_shift}"

    def edit(part):
        part = NAME.sub(name, part)
        return CHANNEL.sub(channel, part) if channel_shift else part

    return lambda line: outside_strings(line, edit)


def rename_signature(line, suffix):
    """Suffixes the parameter names of a computation's signature `(p: f32[], ...)`."""
    m = COMPUTATION.match(line)
    paren = line.find("(", m.end())
    if paren < 0 or line[m.end():paren].strip():
        return line
    end = balanced(line, paren)
    inner = re.sub(r"(^|[(,]\s*(?:/\*index=\d+\*/)?)([A-Za-z0-9_.\-]+):",
                   lambda n: f"{n.group(1)}{n.group(2)}{suffix}:", line[paren:end])
    return line[:paren] + inner + line[end:]


def entry_signature(line, copies):
    """The entry's first line with its result shape `-> R` made a tuple of `copies` Rs."""
    m = COMPUTATION.match(line)
    paren = line.find("(", m.end())
    if paren < 0 or line[m.end():paren].strip():
        return line
    end = balanced(line, paren)
    arrow = line.find("->", end)
    brace = line.rindex("{")
    if arrow < 0:
        return line
    result = line[arrow + 2:brace].strip()
    return line[:arrow] + "-> (" + ", ".join([result] * copies) + ") " + line[brace:]


def split(text):
    """Header line, computations (lists of lines) and the text after them (tables)."""
    lines = text.split("\n")
    header, computations, tail, i = [], [], [], 0
    while i < len(lines):
        line = lines[i]
        if COMPUTATION.match(line):
            block = [line]
            while not lines[i].startswith("}"):
                i += 1
                block.append(lines[i])
            computations.append(block)
        elif computations:
            tail.append(line)
        else:
            header.append(line)
        i += 1
    return header, computations, tail


def attribute_span(header, name):
    """(start, end) of `name={...}`'s value in the header line, or None."""
    m = re.search(r"\b" + re.escape(name) + r"=\{", header)
    if not m:
        return None
    return m.end() - 1, balanced(header, m.end() - 1)


def rewrite_header(header, copies):
    span = attribute_span(header, "entry_computation_layout")
    if span:
        value = header[span[0]:span[1]]
        arrow = value.rindex("->")
        result = value[arrow + 2:-1]
        value = value[:arrow + 2] + "(" + ", ".join([result] * copies) + ")}"
        header = header[:span[0]] + value + header[span[1]:]
    span = attribute_span(header, "allow_spmd_sharding_propagation_to_output")
    if span:
        inner = header[span[0] + 1:span[1] - 1]
        header = header[:span[0]] + "{" + ",".join([inner] * copies) + "}" + header[span[1]:]
    span = attribute_span(header, "input_output_alias")
    if span:
        value = re.sub(r"\{\s*([0-9, ]*)\}:",
                       lambda m: "{0" + (", " + m.group(1).strip() if m.group(1).strip() else "") + "}:",
                       header[span[0]:span[1]])
        header = header[:span[0]] + value + header[span[1]:]
    return header


def replicate(text, copies):
    header, computations, tail = split(text)
    if not computations:
        raise ValueError("no computations found (names must be written with %)")
    if any(INSTRUCTION.match(l) is None for c in computations for l in c[1:-1] if l.strip()):
        raise ValueError("every instruction must be written `%name = ...`")
    entry = next((k for k, c in enumerate(computations) if c[0].startswith("ENTRY")),
                 len(computations) - 1)
    channels = [int(c) for c in CHANNEL.findall(text)]
    shift = max(channels) + 1 if channels else 0
    body = computations[entry][1:-1]
    is_parameter = [opcode(l) == "parameter" for l in body]
    parameters = [l for l, p in zip(body, is_parameter) if p]
    others = [l for l, p in zip(body, is_parameter) if not p]
    keep = {INSTRUCTION.match(l).group(3) for l in parameters}
    root_line = next((l for l in body if INSTRUCTION.match(l) and INSTRUCTION.match(l).group(2)),
                     [l for l in body if l.strip()][-1])
    root = INSTRUCTION.match(root_line)
    root_name, root_shape = root.group(3), shape_text(root_line, root.end())

    out = [rewrite_header(l, copies) if l.startswith("HloModule") else l for l in header]
    for c in range(copies):
        suffix = f"_r{c}" if c else ""
        rename = renamer(suffix, set(), c * shift)
        for k, computation in enumerate(computations):
            if k == entry:
                continue
            if c == 0:
                out.extend(computation)
                continue
            out.append(rename_signature(rename(computation[0]), suffix))
            out.extend(rename(l) for l in computation[1:])
    out.append(entry_signature(computations[entry][0], copies))
    out.extend(parameters)
    roots = []
    for c in range(copies):
        suffix = f"_r{c}" if c else ""
        rename = renamer(suffix, keep, c * shift)
        for line in others:
            m = INSTRUCTION.match(line)
            if m and m.group(2):
                line = line[:m.start(2)] + line[m.end(2):]
            out.append(rename(line) if c else line)
        roots.append(f"%{root_name}{suffix}")
    shape = "(" + ", ".join([root_shape] * copies) + ")"
    out.append(f"  ROOT %replicas = {shape} tuple({', '.join(roots)})")
    out.extend(computations[entry][-1:])
    out.extend(tail)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("copies", type=int)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    with open(a.input, encoding="utf-8") as f:
        text = f.read()
    try:
        result = replicate(text, max(1, a.copies))
    except ValueError as e:
        sys.exit(f"replicate.py: {a.input}: {e}")
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(result)
    else:
        sys.stdout.write(result)


if __name__ == "__main__":
    main()
