#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails on an #include that runs against the tree's agreed direction.

Every quoted #include in layer/, capture/ and rewriter/ is resolved to the file it names and
both ends to their part (the table below); an include is allowed within a part and from a part
to those its row lists, nothing else. The table is the one statement of the directions:
layer/README.md and rewriter/src/README.md describe them, this enforces them.
    tools/check-includes.py [ROOT]      (CTest: check.include_directions)
"""
import os
import re
import sys

# part -> the parts it may include (besides itself). Lower levels first.
ALLOWED = {
    # Interfaces and libraries below the layer and the rewriter.
    'rewriter/include': [],
    'capture': ['rewriter/include'],  # the case format, shared with isg-replay and the tests
    'builtins-cl': [],
    # The rewriter: what the pipelines share, then the pipelines, then its entry points.
    'rewriter/src/common': ['rewriter/include', 'builtins-cl'],
    'rewriter/src/source': ['rewriter/src/common', 'rewriter/include'],
    'rewriter/src/ptx': ['rewriter/src/common', 'rewriter/include'],
    'rewriter/src/module': ['rewriter/src/ptx', 'rewriter/src/common', 'rewriter/include'],
    'rewriter/src': ['rewriter/src/source', 'rewriter/src/ptx', 'rewriter/src/module',
                     'rewriter/src/common', 'rewriter/include', 'builtins-cl'],
    # The layer: its core, the parts built on it, then the loader's entry at the top.
    'layer/core': ['rewriter/include'],
    'layer/formats': ['layer/core', 'capture', 'rewriter/include'],
    'layer/memory': ['layer/core', 'rewriter/include'],
    'layer/capture': ['layer/core', 'capture', 'rewriter/include'],
    'layer/devices': ['layer/core', 'builtins-cl', 'rewriter/include'],
    'layer/programs': ['layer/devices', 'layer/formats', 'layer/core', 'rewriter/include'],
    'layer/launch': ['layer/programs', 'layer/devices', 'layer/capture', 'layer/memory',
                     'layer/formats', 'layer/core', 'rewriter/include'],
    'layer': ['layer/launch', 'layer/programs', 'layer/devices', 'layer/capture',
              'layer/memory', 'layer/formats', 'layer/core', 'capture', 'rewriter/include'],
}
# Where a quoted include is looked for after the includer's own folder (the targets' include
# directories).
ROOTS = ['layer', 'capture', 'rewriter/include', 'rewriter/src', 'builtins-cl']
SCANNED = ['layer', 'capture', 'rewriter/include', 'rewriter/src']
SOURCES = ('.h', '.cpp', '.def')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def part_of(path):
    """The row of ALLOWED a file belongs to: the longest key its path starts with."""
    best = None
    for part in ALLOWED:
        if path == part or path.startswith(part + '/'):
            if best is None or len(part) > len(best):
                best = part
    return best


def resolve(root, includer, name):
    for base in [os.path.dirname(includer)] + ROOTS:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None  # a system or generated header: not the tree's direction to judge


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    wrong, edges = [], 0
    for top in SCANNED:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                includer = os.path.relpath(os.path.join(folder, f), root)
                source = part_of(includer)
                text = open(os.path.join(root, includer), encoding='utf-8').read()
                for m in INCLUDE.finditer(text):
                    target = resolve(root, includer, m.group(1))
                    if target is None:
                        continue
                    edges += 1
                    to = part_of(target)
                    if to is None or to == source or to in ALLOWED[source]:
                        continue
                    line = text.count('\n', 0, m.start()) + 1
                    wrong.append(f'{includer}:{line}: includes {target}: {source} may include '
                                 f'{", ".join(ALLOWED[source]) or "nothing outside itself"}')
    for w in wrong:
        print(w)
    print(f'check-includes: {edges} includes read, {len(wrong)} against the direction')
    return 1 if wrong else 0


if __name__ == '__main__':
    sys.exit(main())
