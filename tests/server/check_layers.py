#!/usr/bin/env python3
"""check_layers.py — the rooms of server/ include downwards only, and no modules loop.

The rooms and their order come from one place: the `set(FDWD_ROOMS ...)` line of
server/CMakeLists.txt, lowest first. A file in room R may include its own room's headers
and those of rooms listed before R; an include of a later room's header fails, as does an
include of a server header by its bare name (rooms are named in every include), a folder
under server/ that is not a room, and a cycle between modules (a module is name.c with
name.h; module A uses B when A.c or A.h includes B.h).

usage: check_layers.py SERVER_DIR
"""
import os
import re
import sys


def rooms_of(server):
    text = open(os.path.join(server, "CMakeLists.txt")).read()
    m = re.search(r"set\(FDWD_ROOMS\s+([^)]*)\)", text)
    if not m:
        sys.exit("check_layers: no set(FDWD_ROOMS ...) in server/CMakeLists.txt")
    return m.group(1).split()


def main():
    server = os.path.abspath(sys.argv[1])
    rooms = rooms_of(server)
    rank = {r: i for i, r in enumerate(rooms)}
    problems = []
    for d in sorted(os.listdir(server)):
        if os.path.isdir(os.path.join(server, d)) and d not in rank:
            problems.append(f"server/{d}/ is not a room (add it to FDWD_ROOMS)")
    for f in sorted(os.listdir(server)):
        if f.endswith((".c", ".h")):
            problems.append(f"server/{f} lies in no room")

    headers = {}                      # bare name -> room/name
    files = []
    for r in rooms:
        top = os.path.join(server, r)
        for dp, _, fs in os.walk(top):
            for f in sorted(fs):
                if f.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dp, f), server)
                    files.append((r, rel))
                    if f.endswith(".h"):
                        headers.setdefault(f, rel)

    uses = {}                         # module -> modules it includes
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for room, rel in files:
        module = rel[:-2]
        uses.setdefault(module, set())
        for inc in inc_re.findall(open(os.path.join(server, rel)).read()):
            first = inc.split("/")[0]
            if "/" in inc and first in rank:
                if rank[first] > rank[room]:
                    problems.append(f"server/{rel} includes {inc}: room {room} lies below "
                                    f"{first} (order: {' < '.join(rooms)})")
                if os.path.exists(os.path.join(server, inc)):
                    target = inc[:-2]
                    if target != module:
                        uses[module].add(target)
                else:
                    problems.append(f"server/{rel} includes {inc}, which does not exist")
            elif inc in headers:
                problems.append(f"server/{rel} includes \"{inc}\" by its bare name: "
                                f"write \"{headers[inc]}\"")

    # Cycles between modules: depth-first search, grey = on the current path.
    colour, path = {}, []

    def visit(m):
        colour[m] = "grey"
        path.append(m)
        for n in sorted(uses.get(m, ())):
            if colour.get(n) == "grey":
                loop = path[path.index(n):] + [n]
                problems.append("include cycle: " + " -> ".join(loop))
            elif n not in colour:
                visit(n)
        path.pop()
        colour[m] = "black"

    for m in sorted(uses):
        if m not in colour:
            visit(m)

    for p in problems:
        print("LAYERING:", p)
    if problems:
        return 1
    print(f"check_layers: {len(files)} files in {len(rooms)} rooms, "
          f"order {' < '.join(rooms)}: no upward include, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
