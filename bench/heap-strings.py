#!/usr/bin/env python3
"""Duplicate strings in a JVM heap dump (HPROF, as `jcmd PID GC.heap_dump FILE` writes it: live objects only).

Prints the number of java.lang.String instances, their bytes (the String objects and their value arrays, with the
JVM's 8-byte alignment and compressed references: 24 bytes a String, 16 + length rounded up for its array), and
what keeping one copy of each distinct value would save, with the values that repeat most by bytes.

    bench/heap-strings.py heap.hprof [top]      # top: how many values to list (20)

Used by bench/operator-scale (its steady-state snapshot) to say where the operator's live heap goes. A value array
that several Strings share is counted once; a String whose array is not in the dump is counted apart.
"""
import collections
import struct
import sys

STRING_BYTES = 24  # header 12, value reference 4, hash 4, coder 1, hashIsZero 1, padded to 8


def array_bytes(length):
    return (16 + length + 7) // 8 * 8


def main(path, top):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"\0")
    id_size = struct.unpack_from(">I", data, end + 1)[0]
    pos = end + 1 + 4 + 8
    read_id = (lambda o: struct.unpack_from(">I", data, o)[0]) if id_size == 4 else (
        lambda o: struct.unpack_from(">Q", data, o)[0])
    basic = {2: id_size, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}

    names = {}  # UTF8 id -> str
    class_names = {}  # class object id -> name
    fields = {}  # class object id -> (super id, [(name id, type)])
    string_values = []  # value array id of each String
    byte_arrays = {}  # array id -> bytes
    string_class = None

    while pos < len(data):
        tag = data[pos]
        length = struct.unpack_from(">I", data, pos + 5)[0]
        body = pos + 9
        if tag == 0x01:
            names[read_id(body)] = data[body + id_size:body + length].decode("utf-8", "replace")
        elif tag == 0x02:
            class_id = read_id(body + 4)
            class_names[class_id] = names.get(read_id(body + 8 + id_size), "?")
            if class_names[class_id] == "java/lang/String":
                string_class = class_id
        elif tag in (0x0C, 0x1C):
            p, stop = body, body + length
            while p < stop:
                sub = data[p]
                p += 1
                if sub == 0xFF or sub == 0x05 or sub == 0x07:
                    p += id_size
                elif sub == 0x01:
                    p += 2 * id_size
                elif sub in (0x02, 0x03, 0x08):
                    p += id_size + 8
                elif sub in (0x04, 0x06):
                    p += id_size + 4
                elif sub == 0x20:
                    class_id = read_id(p)
                    super_id = read_id(p + id_size + 4)
                    p += 7 * id_size + 4 + 4
                    constants = struct.unpack_from(">H", data, p)[0]
                    p += 2
                    for _ in range(constants):
                        p += 2
                        kind = data[p]
                        p += 1 + basic[kind]
                    statics = struct.unpack_from(">H", data, p)[0]
                    p += 2
                    for _ in range(statics):
                        p += id_size
                        kind = data[p]
                        p += 1 + basic[kind]
                    count = struct.unpack_from(">H", data, p)[0]
                    p += 2
                    own = []
                    for _ in range(count):
                        own.append((read_id(p), data[p + id_size]))
                        p += id_size + 1
                    fields[class_id] = (super_id, own)
                elif sub == 0x21:
                    class_id = read_id(p + id_size + 4)
                    size = struct.unpack_from(">I", data, p + 2 * id_size + 4)[0]
                    values = p + 2 * id_size + 8
                    if class_id == string_class:
                        string_values.append(value_of(data, values, fields, class_id, names, basic, read_id))
                    p = values + size
                elif sub == 0x22:
                    count = struct.unpack_from(">I", data, p + id_size + 4)[0]
                    p += 2 * id_size + 8 + count * id_size
                elif sub == 0x23:
                    array_id = read_id(p)
                    count = struct.unpack_from(">I", data, p + id_size + 4)[0]
                    kind = data[p + id_size + 8]
                    start = p + id_size + 9
                    if kind == 8:
                        byte_arrays[array_id] = data[start:start + count]
                    p = start + count * basic[kind]
                else:
                    raise SystemExit(f"unknown heap dump record 0x{sub:02x} at {p - 1}")
        pos = body + length

    groups = collections.Counter()  # value -> Strings with it
    arrays = collections.defaultdict(set)  # value -> distinct array ids holding it
    missing = 0
    for value_id in string_values:
        value = byte_arrays.get(value_id)
        if value is None:
            missing += 1
            continue
        groups[value] += 1
        arrays[value].add(value_id)

    def cost(value, strings, distinct_arrays):
        return strings * STRING_BYTES + distinct_arrays * array_bytes(len(value))

    total = sum(cost(v, n, len(arrays[v])) for v, n in groups.items())
    saving = {v: cost(v, n, len(arrays[v])) - cost(v, 1, 1) for v, n in groups.items()}
    print(f"strings: {len(string_values)}, distinct values: {len(groups)}, value arrays not in the dump: {missing}")
    print(f"bytes in strings (String + value array, a shared array once): {total / 1e6:.1f} MB")
    print(f"bytes one copy of each value would save: {sum(saving.values()) / 1e6:.1f} MB")
    print(f"\nmost repeated by what one copy would save (Strings, distinct arrays, kB saved, value):")
    for value, saved in sorted(saving.items(), key=lambda e: -e[1])[:top]:
        text = value.decode("latin-1")
        shown = text if len(text) <= 60 else text[:57] + "..."
        print(f"  {groups[value]:7d} {len(arrays[value]):7d} {saved / 1e3:9.1f}  {shown!r}")

def value_of(data, offset, fields, class_id, names, basic, read_id):
    """The id in String's 'value' field (String's own fields come first in an instance dump)."""
    _, own = fields[class_id]
    for name_id, kind in own:
        if names.get(name_id) == "value":
            return read_id(offset)
        offset += basic[kind]
    raise SystemExit("java.lang.String has no 'value' field in this dump")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20)
