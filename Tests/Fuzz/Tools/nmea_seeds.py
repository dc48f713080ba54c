#!/usr/bin/env python3
"""Writes the NMEA seed corpora from the receiver logs in Tests/LocationSourcesTests/Corpus.

Corpus/nmea: one sentence per file, for each log the first two sentences of each type it sends.
Corpus/nmea-stream: the first 40 lines of each log (comments included), after one byte that the
harness uses to choose chunk sizes.
"""
import hashlib, os, pathlib

here = pathlib.Path(__file__).resolve().parent.parent
logs = here.parent / "LocationSourcesTests" / "Corpus"

def write(folder, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)

for log in sorted(logs.glob("*.log")):
    lines = log.read_bytes().splitlines(keepends=True)
    seen = {}
    for line in lines:
        s = line.rstrip(b"\r\n")
        if not s.startswith((b"$", b"!")):
            continue
        kind = s.split(b",", 1)[0][-3:]
        if seen.get(kind, 0) < 2:
            seen[kind] = seen.get(kind, 0) + 1
            write(here / "Corpus" / "nmea", s + b"\r\n")
    write(here / "Corpus" / "nmea-stream", bytes([len(log.name) * 7 % 256]) + b"".join(lines[:40]))
