"""RESULTS.md and its chart, from the suite's results (Benchmarks/work/<profile>/results.json)."""
from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess

GOAL_NS = 150        # exact placemarks at <= 150 ns per point per core
GOAL_SHAPELY = 10    # >= 10x shapely's throughput
GOAL_SCALING = 1.8   # >= 1.8x from 1 to 2 threads
GOAL_COLD_S = 0.3    # geocode LAT LON, process start to answer
GOAL_RSS = 300e6     # its peak RSS
GOAL_EXACT = 1_000_000  # points compared with GEOS
FAMILY_COLORS = {"ours": "#d62728", "brute": "#7f7f7f", "shapely": "#1f77b4", "duckdb": "#ff7f0e",
                 "postgis": "#2ca02c", "rg": "#9467bd"}


# ------------------------------------------------------------------------------------------------
# Rows
# ------------------------------------------------------------------------------------------------
def rows_of(d: dict, threads: int) -> list[dict]:
    """Table rows of one dataset, in display order."""
    R, C = d["rows"], d["checks"]
    out = []

    def add(key, family, label, how, th, pps, ns, cpu, points, build, rss, check, note=""):
        out.append(dict(key=key, family=family, label=label, how=how, threads=th, pps=pps, ns=ns, cpu=cpu,
                        points=points, build=build, rss=rss, check=check, note=note,
                        shape=R.get(key, {}).get("shape")))

    if "ours" in R:
        o = R["ours"]
        cells = o.get("cell_size")
        how = ((f"cell quadtree ({cells}°) + crossing lists, GEOS only within rounding of an edge"
                if cells not in (None, "off") else "packed R-tree + prepared GEOS")
               + "; finest layer, like the peers")
        add("ours-1", "ours", "**ours**", how, 1, o["single_pps"], o["single_ns"], o.get("single_cpu_ns"), o["points"], o["load_s"],
            o["peak_rss"], "reference")
        add("ours-n", "ours", "**ours**", how, o["threads"], o["multi_pps"], o["multi_ns"], o.get("multi_cpu_ns"), o["points"], o["load_s"],
            o["peak_rss"], "reference")
    if "ours-wgs84" in R:
        o = R["ours-wgs84"]
        how = ("the same coordinates as WGS-84 GPS fixes: each converted to GCJ-02, except where the WGS-84 grid "
               "knows the answer for its whole cell")
        note = "n/a: other points (the same numbers in another datum)"
        add("wgs84-1", "ours", "ours, GPS input", how, 1, o["single_pps"], o["single_ns"], o.get("single_cpu_ns"), o["points"],
            o["load_s"], o["peak_rss"], None, note)
    if "ours-shipped" in R:
        o = R["ours-shipped"]
        layers = ", ".join(f"{l['level']}" for l in o["layers"])
        how = f"dataset as shipped: all layers ({layers})"
        note = "n/a: answers coarser units too"
        add("shipped-1", "ours", "ours, as shipped", how, 1, o["single_pps"], o["single_ns"], o.get("single_cpu_ns"), o["points"],
            o["load_s"], o["peak_rss"], None, note)
        add("shipped-n", "ours", "ours, as shipped", how, o["threads"], o["multi_pps"], o["multi_ns"], o.get("multi_cpu_ns"), o["points"],
            o["load_s"], o["peak_rss"], None, note)
    if "shapely" in R:
        s = R["shapely"]
        how = "STRtree box query + prepared contains_xy"
        add("shapely-1", "shapely", "shapely", how, 1, s["pps"], s["ns"], s.get("cpu_ns"), s["points"], s["build_s"], s["peak_rss"],
            C.get("shapely"))
        if "multi_pps" in s:
            add("shapely-n", "shapely", "shapely", how + ", thread pool", s["threads"],
                s["multi_pps"], s["multi_ns"], s.get("multi_cpu_ns"), s["points"], s["build_s"], s["peak_rss"], C.get("shapely"))
    if "shapely-within" in R:
        s = R["shapely-within"]
        add("shapely-within", "shapely", "shapely", "STRtree.query(predicate='within')", 1, s["pps"],
            s["ns"], s.get("cpu_ns"), s["points"], s["build_s"], s["peak_rss"], C.get("shapely-within"))
    for k in sorted(k for k in R if k.startswith("duckdb-")):
        r = R[k]
        add(k, "duckdb", "DuckDB spatial", f"JOIN ON ST_Contains ({r['operator']})",
            r["threads"], r["pps"], r["ns"], r.get("cpu_ns"), r["points"], None, r["peak_rss"], C.get(k))
    for k in sorted(k for k in R if k.startswith("postgis-")):
        r = R[k]
        if r["shape"] == "points-gist":
            how = "GiST on the points, loop over polygons (index build counted)"
        else:
            how = "GiST on the polygons, loop over points"
        if r["loop_over"] != {"points-gist": "polygons", "polys-gist": "points"}[r["shape"]]:
            how += f" (**plan loops over {r['loop_over']}**)"
        if r["threads"] > 1:
            how += f"; {r['workers_planned']} worker" + ("s" if r["workers_planned"] != 1 else "") + " planned"
        add(k, "postgis", "PostGIS", how, r["threads"], r["pps"], r["ns"], r.get("cpu_ns"), r["points"], r["build_s"],
            r["peak_rss"],
            C.get(k))
    for mode in (1, 2):
        k = f"rg-mode{mode}"
        if k in R:
            r = R[k]
            ck = C.get(f"{k}-country")
            note = (f"country differs on {100 * ck['rate_in_polygons']:.2f} % of points in polygons"
                    if ck else "")
            th = 1 if mode == 1 else threads
            add(k, "rg", "reverse_geocoder", "nearest city, k-d tree" + (", multiprocessing" if mode == 2 else ""), th, r["pps"], r["ns"], r.get("cpu_ns"), r["points"],
                r["build_s"], r["peak_rss"], None, note)
    if "brute" in R:
        b = R["brute"]
        add("brute", "brute", "brute-force GEOS", "no index: every polygon, prepared GEOS, file order", 1,
            b["single_pps"], b["single_ns"], b.get("single_cpu_ns"), b["points"], b["load_s"], b["peak_rss"],
            C.get("brute"))
    return out


# ------------------------------------------------------------------------------------------------
# Formatting
# ------------------------------------------------------------------------------------------------
def fmt_pps(v):
    if v is None:
        return "–"
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:.1f} k"
    return f"{v:.0f}"


def fmt_ns(v):
    if v is None:
        return "–"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e4:
        return f"{v / 1e3:.1f} µs"
    return f"{v:,.0f}"


def fmt_s(v):
    if v is None:
        return "in query"
    if v < 0.01:
        return f"{v * 1e3:.1f} ms"
    return f"{v * 1e3:.0f} ms" if v < 1 else f"{v:.2f} s"


def fmt_mb(v):
    return "–" if not v else f"{v / 2**20:.0f} MB"


def fmt_check(r):
    c = r["check"]
    if c == "reference":
        return "reference"
    if c is None:
        return r["note"] or "–"
    if c["mismatches"] == 0:
        return f"0 of {c['compared']:,}"
    kinds = ", ".join(f"{v} {k}" for k, v in c["kinds"].items())
    more = "" if c["classified"] == c["mismatches"] else f" ({c['classified']} classified)"
    return f"**{c['mismatches']:,}** of {c['compared']:,}: {kinds}{more}"


def ratio(r, ours1, oursn):
    ref = ours1 if r["threads"] == 1 else oursn
    if not ref or not r["pps"]:
        return "–"
    if r["family"] == "ours" and r["label"].startswith("**"):
        return "1"
    x = ref / r["pps"]
    return f"{x:.1f}×" if x < 100 else f"{x:,.0f}×"


def table(rows, ours1, oursn) -> list[str]:
    lines = ["| engine | how | threads | points | points/s | ns/point | CPU ns/point | ours ÷ this | index build / load "
             "| peak RSS | answers ≠ ours |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {r['how']} | {r['threads']} | {r['points']:,} | {fmt_pps(r['pps'])} | "
                     f"{fmt_ns(r['ns'])} | {fmt_ns(r['cpu'])} | {ratio(r, ours1, oursn)} | {fmt_s(r['build'])} | "
                     f"{fmt_mb(r['rss'])} | {fmt_check(r)} |")
    return lines


def goals(d: dict, rows) -> list[str]:
    """The issue's goals, judged on core time per point (CPU ns/point) where it is about cores, since
    that does not depend on what else the machine is doing; wall-clock figures beside it."""
    R = d["rows"]
    if "ours" not in R:
        return []
    o = R["ours"]
    by = {r["key"]: r for r in rows}
    cpu1 = o.get("single_cpu_ns") or o["single_ns"]
    cpun = o.get("multi_cpu_ns") or o["multi_ns"] * o["threads"]
    lines = ["| goal | measured | met? |", "|---|---|---|"]
    lines.append(f"| exact placemark ≤ {GOAL_NS} ns per point per core | {cpu1:,.0f} CPU ns/point on 1 thread "
                 f"({o['single_ns']:,.0f} ns wall); {cpun:,.0f} CPU ns/point on {o['threads']} threads | "
                 f"{'yes' if cpu1 <= GOAL_NS else '**no**'} |")
    if "shapely-1" in by:
        x = o["single_pps"] / by["shapely-1"]["pps"]
        extra = ""
        if "shapely-n" in by:
            extra = f"; {o['multi_pps'] / by['shapely-n']['pps']:.1f}× on {o['threads']} threads"
        cpu_x = by["shapely-1"]["cpu"] / cpu1 if by["shapely-1"].get("cpu") else None
        cpu_note = f"; {cpu_x:.1f}× in CPU time per point" if cpu_x else ""
        lines.append(f"| ≥ {GOAL_SHAPELY}× shapely's throughput | {x:.1f}× on 1 thread{extra} (points/s){cpu_note} | "
                     f"{'yes' if x >= GOAL_SHAPELY else '**no**'} |")
    if o["threads"] > 1:
        x = o["multi_pps"] / o["single_pps"]
        lines.append(f"| batch scaling ≥ {GOAL_SCALING}× from 1 to {o['threads']} threads | {x:.2f}× (points/s, wall) | "
                     f"{'yes' if x >= GOAL_SCALING else '**no**'} |")
    e = d.get("exact")
    if e:
        files = e["files"]
        lines.append(f"| identical to GEOS on ≥ {GOAL_EXACT:,} points, borders included | "
                     + "; ".join(f"{f['mismatches']:,} differ of {f['count']:,} "
                                 + ("uniform points" if "uniform" in f["points"] else "vertices and edge midpoints")
                                 for f in files)
                     + (f"; {d['exact_wgs84']['mismatches']:,} differ of {d['exact_wgs84']['points']:,} uniform points "
                        f"given as WGS-84 (grid path against converting)" if d.get("exact_wgs84") else "")
                     + f" | {'yes' if e['mismatches'] == 0 and e['points'] >= GOAL_EXACT and not d.get('exact_wgs84', {}).get('mismatches') else '**no**'} |")
    duck1 = by.get("duckdb-t1")
    duckn = next((r for r in rows if r["family"] == "duckdb" and r["threads"] > 1), None)
    if duck1 and duck1.get("cpu"):
        x = duck1["cpu"] / cpu1
        extra = ""
        if duckn and duckn.get("cpu"):
            extra = f"; {duckn['cpu'] / cpun:.1f}× at {duckn['threads']} threads"
        lines.append(f"| more points per core than DuckDB | {x:.1f}× DuckDB's points per CPU second on 1 thread"
                     f"{extra} | {'yes' if x > 1 else '**no**'} |")
    return lines


def describe(d: dict) -> list[str]:
    i = d["info"]
    dom = i["domain"]
    layer = i["layer"]
    lines = [f"- Polygons: `{os.path.basename(i['shp'])}` ({layer['level']} layer of `{i['name']}`, datum "
             f"{i['datum']}): {i['records']:,} records, {i['parts']:,} polygon parts, {i['vertices']:,} vertices"
             + (f", **{i['invalid']} invalid parts**" if i["invalid"] else ", all valid") + ".",
             f"- Points: {d['rows'].get('ours', {}).get('points', i.get('points', 0)) or 0:,} uniform in "
             f"lon {dom[0]:.3f}…{dom[2]:.3f}, lat {dom[1]:.3f}…{dom[3]:.3f} (seed {i['seed']}), in the data's own "
             f"datum ({i['datum']}); every engine gets these coordinates (ours with `datum: .{i['datum']}`)."]
    o = d["rows"].get("ours")
    if o:
        lines.append(f"- {o['found']:,} of {o['points']:,} points ({100 * o['found'] / o['points']:.1f} %) are in a "
                     f"unit of this layer.")
    return lines


def ours_detail(d: dict) -> list[str]:
    """Our engine in detail: load, cold first pass, warm throughput, single-query latency, memory."""
    rows = [(k, d["rows"][k]) for k in ("ours", "ours-shipped") if k in d["rows"]]
    if not rows:
        return []
    th = rows[0][1]["threads"]
    lines = [f"| ours | index build (from the shapefiles) | load (index cache) | first pass, cold | 1 thread | {th} threads "
             f"| p50 | p90 | p99 | p99.9 | RSS after load | peak RSS |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k, o in rows:
        name = "finest layer" if k == "ours" else "as shipped (" + ", ".join(l["level"] for l in o["layers"]) + ")"
        cached = o.get("cache") == "loaded"
        lines.append(f"| {name} | {fmt_s(o['build_s']) if 'build_s' in o else 'n/a'} | "
                     f"{fmt_s(o['load_s']) if cached else 'n/a (' + str(o.get('cache', 'off')) + ')'} | "
                     f"{o['first_pass_s'] * 1e9 / o['points']:,.0f} ns | "
                     f"{o['single_ns']:,.0f} ns | {o['multi_ns']:,.0f} ns | {o['latency_p50_ns']:,} ns | "
                     f"{o['latency_p90_ns']:,} ns | {o['latency_p99_ns']:,} ns | {o['latency_p999_ns']:,} ns | "
                     f"{fmt_mb(o['rss_after_load'])} | {fmt_mb(o['peak_rss'])} |")
    o = rows[0][1]
    lines += ["", f"Per point; latency = {o['latency_samples']:,} single calls on one warm thread, each timed with "
              f"`clock_gettime` (overhead {o['clock_overhead_ns']} ns, included). The first pass runs on cold CPU "
              f"caches, and GEOS prepares a polygon the first time a point within rounding of its edges (or in "
              f"one of the few cells without a crossing list) needs it. _Index build_ is the one-time load from the "
              f"shapefiles that writes the index cache; every timed run loaded from the cache."]
    return lines


def mismatch_details(d: dict) -> list[str]:
    lines = []
    for k, c in sorted(d["checks"].items()):
        if "mismatches" not in c or not c["mismatches"]:
            continue
        lines.append(f"- `{k}`: {c['mismatches']} of {c['compared']:,} points"
                     + ("" if c.get("fresh", True) else " (answers from an earlier run on the same inputs)") + ":")
        for e in c["examples"]:
            lines.append(f"  - point {e['i']} ({e['y']:.7f}, {e['x']:.7f}): ours {e['ours']}, {k} {e['peer']}; "
                         f"interiors holding it {e['interior']}, closures {e['closure']} → {e['kind']}")
    return lines


def rg_section(results) -> list[str]:
    lines = []
    for d in results["datasets"]:
        for mode in (1, 2):
            c = d["checks"].get(f"rg-mode{mode}-country")
            if not c or mode == 2 and d["checks"].get("rg-mode1-country") == c:
                continue
            name = d["info"]["name"]
            if c["china"]:
                lines.append(f"- {name} (mode {mode}): of {c['in_polygons']:,} points inside the China data, "
                             f"{c['differ_in_polygons']:,} ({100 * c['rate_in_polygons']:.2f} %) get a nearest city "
                             f"outside CN/HK/MO/TW; of {c['outside']:,} points outside it, {c['claimed_outside']:,} "
                             f"({100 * c['claimed_outside'] / max(1, c['outside']):.2f} %) get a Chinese city.")
            else:
                lines.append(f"- {name} (mode {mode}): of {c['in_polygons']:,} points in a polygon with a country "
                             f"code, {c['differ_in_polygons']:,} ({100 * c['rate_in_polygons']:.2f} %) get a nearest "
                             f"city in another country; the other {c['outside']:,} points (sea, or a unit without "
                             f"a code) all get a city anyway.")
            break
    return lines


# ------------------------------------------------------------------------------------------------
# Machine and versions
# ------------------------------------------------------------------------------------------------
def cmd_out(cmd, cwd=None):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
                              timeout=60).stdout.strip()
    except Exception:
        return ""


def machine() -> dict:
    info = {}
    for line in cmd_out(["lscpu"]).splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    model = info.get("Model name", "?")
    if "CPU family" in info:
        # Zen generation by family/model (19h = Zen 3/4); a VM's model name alone says little.
        model += f" (family {info['CPU family']} model {info.get('Model', '?')}"
        model += f", L2 {info['L2 cache']}, L3 {info['L3 cache']}" if "L3 cache" in info else ""
        model += f", {info['Hypervisor vendor']} guest" if "Hypervisor vendor" in info else ""
        model += ")"
    mem = ""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 2**20:.0f} GiB"
    osname = ""
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    flags = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                fl = line.split(":", 1)[1].split()
                flags = ", ".join(x for x in ("avx2", "avx512f", "fma") if x in fl)
                break
    return {"cpu": model, "cores": os.cpu_count(), "mem": mem, "os": osname, "kernel": platform.release(),
            "flags": flags}


def versions(results, repo) -> list[tuple[str, str]]:
    v = []
    swift = cmd_out(["swift", "--version"]).splitlines()
    swift = next((l for l in swift if "Swift version" in l), "?")
    ours = next((d["rows"].get("ours") for d in results["datasets"] if d["rows"].get("ours")), None)
    v.append(("our engine", f"{swift}; GEOS {ours['geos'] if ours else '?'} (Debian libgeos-c1v5)"))
    rows = {k: r for d in results["datasets"] for k, r in d["rows"].items()}
    if "shapely" in rows:
        v.append(("shapely", f"{rows['shapely']['version']} (bundled GEOS {rows['shapely']['geos']})"))
    duck = next((r for k, r in rows.items() if k.startswith("duckdb")), None)
    if duck:
        v.append(("DuckDB", f"{duck['version']}, spatial extension {duck['spatial_version']} from PyPI "
                            f"duckdb-extension-spatial {importlib.metadata.version('duckdb-extension-spatial')}"))
    pg = next((r for k, r in rows.items() if k.startswith("postgis")), None)
    if pg:
        v.append(("PostGIS", f"{pg['version']} on {pg['server']}"))
    rg = next((r for k, r in rows.items() if k.startswith("rg-")), None)
    if rg:
        v.append(("reverse_geocoder", f"{rg['version']} ({rg['cities']:,} GeoNames cities; scipy "
                                      f"{importlib.metadata.version('scipy')})"))
    v.append(("Python", f"{platform.python_version()}; numpy {importlib.metadata.version('numpy')}, pyshp "
                        f"{importlib.metadata.version('pyshp')}, matplotlib {importlib.metadata.version('matplotlib')}"))
    head = cmd_out(["git", "rev-parse", "--short", "HEAD"], cwd=repo)
    dirty = cmd_out(["git", "status", "--porcelain", "--", "Sources", "Package.swift"], cwd=repo)
    v.append(("engine source", f"commit {head}" + (" with uncommitted changes in Sources/" if dirty else "")))
    return v


# ------------------------------------------------------------------------------------------------
# Chart
# ------------------------------------------------------------------------------------------------
def chart(results, path: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = [d for d in results["datasets"] if d["rows"]]
    if not sets:
        return False
    allrows = [rows_of(d, results["threads"]) for d in sets]
    height = max(len(r) for r in allrows) * 0.42 + 1.6
    fig, axes = plt.subplots(1, len(sets), figsize=(7.2 * len(sets), height), squeeze=False)
    for ax, d, rows in zip(axes[0], sets, allrows):
        rows = list(reversed(rows))
        def label(r):
            extra = {"points-gist": ", points indexed", "polys-gist": ", polygons indexed"}.get(r.get("shape"), "")
            if r["key"] == "shapely-within":
                extra = ", predicate=within"
            return f"{r['label'].strip('*')}{extra} · {r['threads']} thr"
        labels = [label(r) for r in rows]
        vals = [r["pps"] for r in rows]
        colors = [FAMILY_COLORS[r["family"]] for r in rows]
        bars = ax.barh(range(len(rows)), vals, color=colors)
        for b, r in zip(bars, rows):
            if r["family"] == "ours" and r["label"].startswith("**"):
                b.set_edgecolor("black")
                b.set_linewidth(1.5)
        ax.set_xscale("log")
        ax.set_yticks(range(len(rows)), labels, fontsize=9)
        ax.set_xlabel("points per second (log scale; higher is better)")
        o = d["rows"].get("ours", {})
        ax.set_title(f"{d['info']['name']}: {d['info']['records']:,} {d['info']['layer']['level']} units, "
                     f"{o.get('points', 0):,} points", fontsize=11)
        goal = 1e9 / GOAL_NS
        ax.axvline(goal, color="#d62728", linestyle="--", linewidth=1)
        ax.text(goal / 1.15, len(rows) - 0.3, f"goal, 1 thread: {GOAL_NS} ns/point", color="#d62728", fontsize=8,
                va="bottom", ha="right")
        ax.set_xlim(min(vals) / 3, max(max(vals), goal) * 12)
        ax.set_ylim(-0.7, len(rows) + 0.3)
        for i, v in enumerate(vals):
            ax.text(v * 1.1, i, f"{fmt_pps(v)}/s", va="center", fontsize=8)
        ax.grid(axis="x", which="major", alpha=0.3)
    fig.suptitle(f"Reverse geocoding throughput, one run on one machine ({results.get('finished', '')})",
                 fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------------------------------------
def write(results, out: str, repo: str):
    m = machine()
    png = os.path.splitext(out)[0].replace("RESULTS", "results") + ".png"
    has_chart = chart(results, png)
    L = ["# Benchmark results", "",
         f"_Written by the benchmark suite; do not edit by hand: rerun it (see [README.md](README.md))._", "",
         f"- Command: `{results['command']}` (profile **{results['profile']}**"
         + ("" if set(results["only"]) >= {"ours", "brute", "shapely", "duckdb", "postgis", "rg", "cold"}
            else f", engines {', '.join(results['only'])}") + ")",
         f"- Finished {results['finished']}, {results['elapsed_s'] / 60:.1f} min in all.",
         f"- Machine: {m['cpu']}, {m['cores']} cores ({m['flags']}), {m['mem']}, {m['os']}, Linux {m['kernel']}.",
         f"- Load average (1/5/15 min) at start {', '.join(f'{x:.2f}' for x in results['load_start'])}, at end "
         f"{', '.join(f'{x:.2f}' for x in results['load_end'])} (the end includes the suite's own work)."]
    cu = results.get("cpu_use")
    if cu:
        L += [f"- CPU use over the run: {cu['busy_cores']:.2f} of {m['cores']} cores busy on average, "
              f"{cu['own_cores']:.2f} of them the suite's own processes (the throw-away PostgreSQL server's included), "
              f"so other work took {cu['other_cores']:.2f} cores; hypervisor steal {cu['steal_cores']:.2f} "
              f"cores. Other work inflates wall-clock numbers (points/s, ns/point) more than CPU ns/point."]
    L += [""]
    if has_chart:
        L += [f"![throughput per engine]({os.path.basename(png)})", ""]
    for d in results["datasets"]:
        rows = rows_of(d, results["threads"])
        o = d["rows"].get("ours")
        L += [f"## {d['info']['name']}", ""]
        L += describe(d) + [""]
        g = goals(d, rows)
        if g:
            L += g + [""]
        if rows:
            L += table(rows, o and o["single_pps"], o and o["multi_pps"]) + [""]
        det = ours_detail(d)
        if det:
            L += det + [""]
        det = mismatch_details(d)
        if det:
            L += ["Disagreements with ours (classified with shapely over the same parts: _border_ = on a unit's "
                  "boundary, where an interior-only answer and the engine's closure rule may differ; _overlap_ = "
                  "inside two units' interiors, where the rule takes the first in file order):", ""] + det + [""]
    if results.get("cold"):
        c = results["cold"]
        L += ["## Cold start", "",
              f"Process start to the first answer printed, `{c['command']}` — {c['how']}: median "
              f"**{c['median_s'] * 1e3:.0f} ms** over {len(c['times_s'])} runs "
              f"({', '.join(f'{t * 1e3:.0f}' for t in c['times_s'])} ms; page cache warm), peak RSS "
              f"{fmt_mb(c['peak_rss'])}; it printed `{c['answer']}`."
              + (f" The first run, with an empty index cache (`GEOCODE_CACHE_DIR` in the suite's work directory), "
                 f"built and wrote it in {c['first_run_s']:.2f} s." if c.get("first_run_s") else ""), "",
              "| goal | measured | met? |", "|---|---|---|",
              f"| cold start ≤ {GOAL_COLD_S} s | {c['median_s']:.3f} s | {'yes' if c['median_s'] <= GOAL_COLD_S else '**no**'} |",
              f"| peak RSS ≤ {GOAL_RSS / 1e6:.0f} MB | {fmt_mb(c['peak_rss'])} | "
              f"{'yes' if c['peak_rss'] and c['peak_rss'] <= GOAL_RSS else '**no**'} |", ""]
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "WHAT-PAID.md")
    if os.path.exists(notes):
        with open(notes, encoding="utf-8") as f:
            L += [f.read().strip(), ""]
    L += further_results()
    L += ["## Engines", "",
          "Every engine reads the same polygons (the finest layer's shapefile; the peers get each record's polygons "
          "as pyshp + shapely read them, one row per polygon part, tagged with the record number) and answers, per "
          "point, the lowest record number whose interior holds it.", "",
          "- **ours**: `geocode-bench ours` (release build) loads a copy of the dataset's manifest reduced to the "
          "finest layer, whose unit code is the record number (an added DBF column; same .shp/.shx), with "
          "`ReverseGeocoder(manifests:)`, then calls `placemark(for:datum:)` per point: one thread, then all threads "
          "(persistent workers taking 4096-point chunks from a shared counter; each single-thread pass is followed by "
          "an all-threads pass, so a slow spell of the host weighs on both; in the full profile a pass walks the points "
          "4 times, so a worker that wakes a few milliseconds late weighs little). _As shipped_ loads the dataset's own "
          "manifest, all layers.",
          "- **brute-force GEOS**: `geocode-bench brute`, the floor: no index; every part GEOS-prepared, tested "
          "in file order with prepared containsProperly, then intersects for border points; on the first points only.",
          "- **shapely**: `STRtree(parts)` + `shapely.prepare(parts)`; per batch `shapely.points(x, y)`, "
          "`tree.query(points)` (bounding boxes), `contains_xy(parts[j], x[i], y[i])` on the candidate pairs, lowest "
          "record per point; on N threads the points are split in chunks over a thread pool. The `within` row lets "
          "the tree test the predicate itself.",
          "- **DuckDB spatial**: PyPI `duckdb` with the spatial extension binary from PyPI's "
          "`duckdb-extension-spatial`, `LOAD`ed from that file with extension auto-install and auto-load off: "
          "`SELECT p.id, min(g.rec) FROM pts p JOIN polys g ON ST_Contains(g.geom, p.geom) GROUP BY p.id` with "
          "`SET threads`; DuckDB plans it as its SPATIAL_JOIN operator.",
          "- **PostGIS**: Debian's PostgreSQL 15 + PostGIS 3 in a throw-away cluster (initdb in a temporary "
          "directory, loopback port, stopped and deleted after), the same join with a GiST index; parallel "
          "workers for N threads. _loop over points_ = only the polygons indexed (an index probe per point, on "
          "the first points only: it is slow); _loop over polygons_ = only the points indexed, the index build "
          "counted in the time.",
          "- **reverse_geocoder**: PyPI `reverse_geocoder` (GeoNames cities ≥ 1000 people, scipy k-d tree), "
          "`RGeocoder(mode=1 or 2).query([(lat, lon), ...])`: the nearest city, not a containing polygon; "
          "its speed is shown, its answers are compared by country below.", ""]
    rg = rg_section(results)
    if rg:
        L += ["## reverse_geocoder: the price of being approximate", "",
              "It answers the nearest GeoNames city (population ≥ 1000), not the polygon that holds the point. "
              "Country of that city against the country of our answer on the same points (our engine with each "
              "dataset as shipped, all layers):", ""] + rg + [""]
    L += ["## Versions", ""] + [f"- {k}: {v}" for k, v in versions(results, repo)] + [""]
    L += ["## How to read this", "",
          "- points/s and ns/point are wall clock over all points of a pass (median of the passes after a warm-up "
          "pass); ns/point on N threads is wall time per point, so per core it is N times that.",
          "- _CPU ns/point_: CPU time of the engine's process(es) per point over the same passes, all threads "
          "summed: core time per point. It grows less than wall time when other work shares the machine (not "
          "nothing: a busy neighbour still competes for cache and memory bandwidth), and it is the figure the "
          "per-core goals are judged on. (PostGIS: the backend plus its "
          "parallel workers; reverse_geocoder mode 2: its worker processes included.)",
          "- _ours ÷ this_: our throughput at the same thread count divided by the row's (above 1: we are faster).",
          "- _index build / load_: ours = `loadTime` loading from the index cache (the one-time build from the "
          "shapefiles is in the table below the main one); shapely = "
          "STRtree + prepare; PostGIS = GiST on the polygons; DuckDB builds its R-tree inside each join; "
          "reverse_geocoder = reading its CSV and building the k-d tree; brute force = parsing and preparing.",
          "- _peak RSS_: of the engine's own process (PostGIS: the server backend that ran the join), including "
          "the points.",
          "- _answers ≠ ours_: points where the engine's unit differs from ours (record numbers compared); -1 "
          "(no unit) counts.", ""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(L))


def further_results() -> list[str]:
    """The measurements made by their own scripts (Benchmarks/results/*.md: end to end, start-up, growth, time
    zones), each with the command and the date of its own run, as sections of RESULTS.md; they are rerun by
    their commands, not by the suite, so their dates differ from the suite's."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")
    if not os.path.isdir(folder):
        return []
    L = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".md"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read().strip()
            # One level down: each file's own title becomes a section of RESULTS.md (headings only: a
            # `#` comment inside a fenced code block is the command's, and stays as written).
            out, fenced = [], False
            for line in text.split("\n"):
                if line.startswith("```"):
                    fenced = not fenced
                out.append("#" + line if line.startswith("#") and not fenced else line)
            L += ["\n".join(out), ""]
    return L


def summary(results) -> str:
    lines = []
    for d in results["datasets"]:
        o = d["rows"].get("ours")
        lines.append(f"{d['info']['name']}:")
        for r in rows_of(d, results["threads"]):
            c = fmt_check(r)
            lines.append(f"  {r['label'].strip('*'):18} {r['key']:22} {r['threads']:>2} thr {fmt_pps(r['pps']):>9}/s "
                         f"{fmt_ns(r['ns']) + ('' if 's' in fmt_ns(r['ns']) else ' ns'):>10}/pt  "
                         f"{ratio(r, o and o['single_pps'], o and o['multi_pps']):>7}  "
                         f"{c.replace('**', '')}")
    if results.get("cold"):
        lines.append(f"cold start: {results['cold']['median_s'] * 1e3:.0f} ms ({results['cold']['how']})")
    return "\n".join(lines)
