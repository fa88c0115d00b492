#!/usr/bin/env python3
"""Counts the loops of an nvdisasm -c listing (cuda/sass/*.sass): for each
backward branch, the body's instructions by opcode, its loads, and the
longest register dependence chain from the loop's entry to a load's
address (a rough count: one step per instruction; on Kepler/Pascal a
carry, .CC then .X, is a dependence; IMAD.WIDE writes a register pair and
a load's [Rn] reads one). docs/scoping.md, "The compiled sampling
loop", gives its counts for the sampling kernels.

usage: scripts/sass_loop_counts.py cuda/sass/random_sampling_sm60.sass ...
"""
import collections
import re
import sys


def parse(fn):
    ins, labels = [], {}
    for line in open(fn):
        m = re.match(r'\s*(\.L_x_\d+):', line)
        if m:
            labels[m.group(1)] = len(ins)
            continue
        # Pascal prints dual-issue pairs as "{ A ;" and "B }"
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s+\{?\s*([^;}]*)", line)
        if m and m.group(2).strip():
            ins.append(m.group(2).strip())
    return ins, labels


def opcode(i):
    t = i.split()
    if t[0].startswith('@'):
        t = t[1:]
    return t[0]


def is_load(op):
    """A global load (LDG, Kepler's LD.E), not a constant load (LDC)."""
    return re.match(r'LD(G|\.|$)', op) is not None


def chain(body, volta):
    ready = collections.defaultdict(int)
    to_load = 0
    for ins in body:
        srcs, s = [], ins
        m = re.match(r'(@!?P\d)\s+(.*)', s)
        if m:
            srcs.append(m.group(1).lstrip('@!'))
            s = m.group(2)
        t = s.split(None, 1)
        o = t[0]
        ops = [a.strip() for a in re.split(r',(?![^\[]*\])', t[1])] if len(t) > 1 else []
        if not ops or o.startswith(('BRA', 'DEPBAR', 'TEXDEPBAR', 'SYNC', 'SSY', 'BSSY',
                                    'BSYNC', 'NOP')):
            continue
        load = is_load(o)
        nd = 2 if (o.startswith('ISETP') or
                   (len(ops) > 1 and re.fullmatch(r'!?P\d|PT', ops[1]))) else 1
        dst, src = ops[:nd], ops[nd:]
        if load:
            dst, src = ops[:1], ops[1:]
        dregs = []
        for d in dst:
            r = re.match(r'(R\d+)(\.CC)?', d)
            if r:
                dregs.append(r.group(1))
                if r.group(2):
                    dregs.append('CC')
            if re.fullmatch(r'P\d', d):
                dregs.append(d)
        if 'WIDE' in o and dregs and dregs[0].startswith('R'):
            dregs.append('R%d' % (int(dregs[0][1:]) + 1))
        for a in src:
            srcs += re.findall(r'\b(R\d+|P\d)\b', a)
            m2 = re.match(r'\[(R\d+)', a)
            if m2:
                srcs.append('R%d' % (int(m2.group(1)[1:]) + 1))
        if '.X' in o and not volta:
            srcs.append('CC')
        d = 1 + max([ready[x] for x in srcs] + [0])
        if load:
            to_load = max(to_load, d - 1)
            d = 0
        for r in dregs:
            ready[r] = d
    return to_load


for fn in sys.argv[1:]:
    ins, labels = parse(fn)
    volta = re.search(r'sm(7|8|9)\d', fn) is not None
    print(fn)
    for k, i in enumerate(ins):
        m = re.search(r'BRA(?:\.\w+)*\s+`?\(?(\.L_x_\d+)', i)
        if not m or labels.get(m.group(1), k + 1) > k:
            continue
        body = ins[labels[m.group(1)]:k + 1]
        if len(body) < 3:
            continue
        c = collections.Counter(opcode(x).split('.')[0] for x in body)
        loads = sum(1 for x in body if is_load(opcode(x)))
        print('  loop %s: %d instructions, %d loads, chain to a load address %d; %s' %
              (m.group(1), len(body), loads, chain(body, volta),
               ' '.join('%s %d' % kv for kv in c.most_common())))
