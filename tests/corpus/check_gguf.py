#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares quantaudit's GGUF parser with gguf-py's reading of real files.

For every GGUF listed in $QA_CORPUS/expected/gguf.json (written by
llama.cpp's gguf-py GGUFReader, an independent reader), runs
dump_inventory (tests/unit/dump_inventory.c) and checks every tensor's
name, type, ne, bytes and absolute offset, the data-section offset, the
alignment, the key count and every scalar key value, plus array lengths,
element types and small array values. Split parts are loaded as one set
by quantaudit; each part is compared with its own expected entry.
Exits 77 (skipped) when the corpus is absent.

Usage: check_gguf.py DUMP_INVENTORY
"""
import json
import math
import os
import subprocess
import sys


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s):
            n = s[i + 1]
            out.append({'t': '\t', 'n': '\n', 'r': '\r', '0': '\0',
                        '\\': '\\'}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def parse_scalar(typ, text):
    if typ in ('FLOAT32', 'FLOAT64'):
        return float(text)
    if typ == 'BOOL':
        return text == 'true'
    if typ == 'STRING':
        return unescape(text)
    return int(text)


def same(typ, a, b):
    if typ in ('FLOAT32', 'FLOAT64'):
        if isinstance(b, float) and math.isnan(b):
            return math.isnan(a)
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-30)
    return a == b


def dump(tool, path):
    p = subprocess.run([tool, path], capture_output=True)
    text = p.stdout.decode('utf-8', 'surrogateescape')
    files, kvs, tensors, findings = [], [], [], []
    for line in text.split('\n'):
        if not line:
            continue
        f = line.split('\t')
        if f[0] == 'file':
            files.append({'path': f[2], 'data_offset': int(f[7]),
                          'tensors': int(f[8])})
        elif f[0] == 'kv':
            kvs.append((int(f[1]), unescape(f[2]), f[3], f[4:]))
        elif f[0] == 'tensor':
            tensors.append({'file': int(f[1]), 'name': unescape(f[2]),
                            'type': f[3],
                            'ne': [int(x) for x in f[4].split(',')]
                            if f[4] else [],
                            'bytes': int(f[5]), 'offset': int(f[6])})
        elif f[0] == 'finding':
            findings.append(f[1] + ' ' + f[4])
    return files, kvs, tensors, findings


def check(tool, corpus, rel, exp, errors):
    path = os.path.join(corpus, rel)
    files, kvs, tensors, findings = dump(tool, path)
    base = os.path.basename(rel)
    idx = [i for i, f in enumerate(files)
           if os.path.basename(f['path']) == base]
    if len(idx) != 1:
        errors.append(f'{rel}: not loaded ({files})')
        return
    fi = idx[0]

    def err(msg):
        errors.append(f'{rel}: {msg}')

    for f in findings:
        err(f'unexpected finding {f}')
    mine = [k for k in kvs if k[0] == fi]
    if len(mine) + 3 != exp['n_kv']:
        err(f'kv count {len(mine)} + 3 != {exp["n_kv"]}')
    by_key = {k[1]: k for k in mine}
    for key, ev in exp['kv'].items():
        if key.startswith('GGUF.'):
            continue
        if key not in by_key:
            err(f'missing key {key}')
            continue
        _, _, typ, rest = by_key[key]
        if 'array_len' in ev:
            if typ != 'ARRAY' or rest[0] != ev['elem_type'] or \
               int(rest[1]) != ev['array_len']:
                err(f'{key}: array {rest[:2]} != {ev}')
                continue
            if 'value' in ev and isinstance(ev['value'], list) and \
               ev['elem_type'] not in ('ARRAY',):
                got = [parse_scalar(ev['elem_type'], x) for x in rest[2:]]
                want = ev['value'][:64]
                if len(got) != len(want) or not all(
                        same(ev['elem_type'], a, b)
                        for a, b in zip(got, want)):
                    err(f'{key}: values differ')
            continue
        if typ != ev['type']:
            err(f'{key}: type {typ} != {ev["type"]}')
            continue
        got = parse_scalar(typ, rest[0])
        if not same(typ, got, ev['value']):
            err(f'{key}: {got!r} != {ev["value"]!r}')
    align = 32
    if 'general.alignment' in by_key:
        align = int(by_key['general.alignment'][3][0])
    if align != exp['alignment']:
        err(f'alignment {align} != {exp["alignment"]}')
    mt = [t for t in tensors if t['file'] == fi]
    if len(mt) != exp['n_tensors'] or len(mt) != len(exp['tensors']):
        err(f'tensor count {len(mt)} != {exp["n_tensors"]}')
    if exp['n_tensors'] > 0 and \
       files[fi]['data_offset'] != exp['data_offset']:
        err(f'data offset {files[fi]["data_offset"]} != '
            f'{exp["data_offset"]}')
    for a, b in zip(mt, exp['tensors']):
        for k in ('name', 'type', 'ne', 'bytes', 'offset'):
            if a[k] != b[k]:
                err(f'tensor {b["name"]}: {k} {a[k]!r} != {b[k]!r}')


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    corpus = os.environ.get('QA_CORPUS', '')
    expected = os.path.join(corpus, 'expected', 'gguf.json')
    if not corpus or not os.path.exists(expected):
        print('corpus absent: skipped')
        return 77
    with open(expected) as f:
        exp = json.load(f)
    errors = []
    for rel, e in sorted(exp.items()):
        n = len(errors)
        check(sys.argv[1], corpus, rel, e, errors)
        print(f'{"ok  " if len(errors) == n else "FAIL"} {rel}')
    for e in errors[:200]:
        print(e)
    print(f'{len(exp)} files, {len(errors)} mismatches')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
