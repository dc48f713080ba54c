#!/usr/bin/env python3
"""Peak private memory of one command on one core: what `/usr/bin/time`'s maxrss cannot tell apart.

    GEOCODE_CACHE_DIR=EMPTY_DIR python3 Benchmarks/bench/private_peak.py [--cpus 0,1] BINARY ARGS...

`--cpus` gives the cores (taskset's list; default 0, one core): a first run on two cores reads and builds
two things at once, and so may hold more at its peak than on one.

maxrss counts a process's mapped file pages too (an index cache mapped and checked whole is 337 MB of page
cache, shared and reclaimable); the memory that can run a machine out is the private (anonymous) part, and
the kernel keeps no peak of it. So this samples `RssAnon` and `RssFile` of /proc/PID/status every 10 ms
(a peak shorter than that can be missed) and prints both peaks, maxrss and the CPU time.
"""
import resource
import subprocess
import sys
import time

args, cpus = sys.argv[1:], "0"
if args[:1] == ["--cpus"]:
    cpus, args = args[1], args[2:]
# taskset execs the command in place: the pid is the command's.
p = subprocess.Popen(["taskset", "-c", cpus] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = file = 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon"):
                    anon = max(anon, int(line.split()[1]))
                elif line.startswith("RssFile"):
                    file = max(file, int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError):
        pass
    time.sleep(0.01)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"private_peak {anon / 1024:.0f} MB file_peak {file / 1024:.0f} MB maxrss {ru.ru_maxrss / 1024:.0f} MB "
      f"cpu {ru.ru_utime + ru.ru_stime:.2f} s (user {ru.ru_utime:.2f} sys {ru.ru_stime:.2f}) exit {p.returncode}")
sys.exit(p.returncode)
