"""Reverse-geocode a Spark DataFrame or RDD of points with the `geocode` engine on every executor.

Each partition is streamed through one long-lived `geocode batch --format ndjson - -o -` process: a
thread writes the partition's points to the process's stdin while the task reads placemarks from its
stdout, so neither pipe can fill up and stall the other. `geocode batch` returns exactly one row per input
row, in order, so every input row comes back exactly once, with its own placemark, in partition order.
Bad rows (missing, non-numeric or out-of-range coordinates) keep their row and get a message in the
`geocode_error` column, as in the CLI.

The function is pure: a task that fails (the process exits non-zero, dies, or returns a different number
of rows) raises, and Spark runs it again from its input; a failed attempt's rows never reach the result.

    from geocode_spark import ship, geocode_dataframe
    ship(spark.sparkContext, binary=".build/release/geocode", data="Data")   # or spark-submit --files/--archives
    placed = geocode_dataframe(points, lat="lat", lon="lon", fields=["country", "province", "city"])

Nothing here but the standard library and pyspark (imported lazily, so the streaming core,
`geocode_rows`, also runs without Spark).
"""

from __future__ import annotations

import collections
import json
import math
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

__all__ = [
    "ALL_FIELDS", "DEFAULT_FIELDS", "FIELD_ALIASES", "field_kind", "ERROR_FIELD", "BINARY_NAME", "DATA_ARCHIVE_NAME",
    "GeocodeOptions", "GeocodeTaskError", "ship", "make_data_archive", "placemark_schema",
    "geocode_rows", "geocode_partitions", "arrow_partitions", "geocode_dataframe",
]

# The placemark field table exactly as `geocode fields --json` prints it: the Swift field table
# (GeoModel's PlacemarkField) is the one source of truth, and GeocodeCLITests' FieldTableTests fails when
# this copy differs from the binary's output. Regenerate it with `geocode fields --json`; do not edit.
# (Inline rather than a separate file so `--py-files geocode_spark.py` alone carries it to executors.)
# BEGIN GENERATED FIELD TABLE
_FIELD_TABLE = json.loads(r"""
{
  "fields": [
    {"column": "name", "key": "name", "kind": "text"},
    {"column": "country", "key": "country", "kind": "text"},
    {"column": "iso_country_code", "key": "isoCountryCode", "kind": "text"},
    {"column": "country_source", "key": "countrySource", "kind": "text"},
    {"column": "country_distance", "key": "countryDistance", "kind": "number"},
    {"column": "country_language", "key": "countryLanguage", "kind": "text"},
    {"column": "administrative_area", "key": "administrativeArea", "kind": "text"},
    {"column": "administrative_area_code", "key": "administrativeAreaCode", "kind": "text"},
    {"column": "administrative_area_source", "key": "administrativeAreaSource", "kind": "text"},
    {"column": "administrative_area_distance", "key": "administrativeAreaDistance", "kind": "number"},
    {"column": "administrative_area_language", "key": "administrativeAreaLanguage", "kind": "text"},
    {"column": "sub_administrative_area", "key": "subAdministrativeArea", "kind": "text"},
    {"column": "sub_administrative_area_code", "key": "subAdministrativeAreaCode", "kind": "text"},
    {"column": "sub_administrative_area_source", "key": "subAdministrativeAreaSource", "kind": "text"},
    {"column": "sub_administrative_area_distance", "key": "subAdministrativeAreaDistance", "kind": "number"},
    {"column": "sub_administrative_area_language", "key": "subAdministrativeAreaLanguage", "kind": "text"},
    {"column": "locality", "key": "locality", "kind": "text"},
    {"column": "locality_code", "key": "localityCode", "kind": "text"},
    {"column": "locality_source", "key": "localitySource", "kind": "text"},
    {"column": "locality_distance", "key": "localityDistance", "kind": "number"},
    {"column": "locality_language", "key": "localityLanguage", "kind": "text"},
    {"column": "sub_locality", "key": "subLocality", "kind": "text"},
    {"column": "sub_locality_code", "key": "subLocalityCode", "kind": "text"},
    {"column": "sub_locality_source", "key": "subLocalitySource", "kind": "text"},
    {"column": "sub_locality_distance", "key": "subLocalityDistance", "kind": "number"},
    {"column": "sub_locality_language", "key": "subLocalityLanguage", "kind": "text"},
    {"column": "time_zone", "key": "timeZone", "kind": "text"},
    {"column": "ocean", "key": "ocean", "kind": "text"},
    {"column": "inland_water", "key": "inlandWater", "kind": "text"},
    {"column": "dataset", "key": "dataset", "kind": "text"},
    {"column": "locality_is_province_fallback", "key": "localityIsProvinceFallback", "kind": "flag"},
    {"column": "utc_offset", "key": "utcOffset", "kind": "text", "derived": "cli"}
  ],
  "aliases": [
    {"name": "country_code", "column": "iso_country_code"},
    {"name": "province", "column": "administrative_area"},
    {"name": "province_code", "column": "administrative_area_code"},
    {"name": "city", "column": "locality"},
    {"name": "city_code", "column": "locality_code"},
    {"name": "district", "column": "sub_locality"},
    {"name": "district_code", "column": "sub_locality_code"},
    {"name": "city_is_province", "column": "locality_is_province_fallback"}
  ],
  "defaults": ["country", "country_code", "province", "city", "district"]
}
""")
# END GENERATED FIELD TABLE

#: Every placemark field `geocode batch --fields` knows, in the CLI's order (its column names).
ALL_FIELDS = tuple(f["column"] for f in _FIELD_TABLE["fields"])
#: What `geocode batch` adds when not told otherwise (the column names of before the field table).
DEFAULT_FIELDS = tuple(_FIELD_TABLE["defaults"])
#: Old names `--fields` still accepts (and writes as asked) -> the column they stand for.
FIELD_ALIASES = {a["name"]: a["column"] for a in _FIELD_TABLE["aliases"]}
_KIND = {f["column"]: f["kind"] for f in _FIELD_TABLE["fields"]}
_BY_KEY = {f["key"].lower(): f["column"] for f in _FIELD_TABLE["fields"]}


def field_kind(name: str) -> str:
    """'text', 'number' (metres) or 'flag' for a column or old name."""
    return _KIND[FIELD_ALIASES.get(name, name)]
#: The column that carries a bad row's message (null for good rows).
ERROR_FIELD = "geocode_error"
#: Names under which `ship` registers the binary and the data archive (SparkFiles names).
BINARY_NAME = "geocode"
DATA_ARCHIVE_NAME = "geocode-data.tar.gz"

_ROW_KEY = "_geocode_i"          # per-partition sequence number sent with each point and checked on the way back
_WRITE_BATCH = 2048     # points per write to the process's stdin
_STDERR_TAIL = 40       # stderr lines kept for the error message of a failed task


class GeocodeTaskError(RuntimeError):
    """The geocode process of a partition failed; raising it makes Spark retry the task."""


@dataclass(frozen=True)
class GeocodeOptions:
    """How each executor runs `geocode batch`. Picklable: it travels with the task.

    binary, data and lib_dir are each either an absolute path that exists on every executor (a
    preinstalled engine), or a name registered with the job (`ship`, `--files`, `--archives`,
    `addFile`, `addArchive`) and resolved with `SparkFiles.get` on the executor, or a path relative to
    the executor's working directory (where YARN and Kubernetes unpack `--archives X#name`).
    """

    binary: str = BINARY_NAME
    data: str = DATA_ARCHIVE_NAME
    fields: Sequence[str] = DEFAULT_FIELDS
    prefix: str = ""
    datum: str = "wgs84"
    #: Worker threads per process; None = the task's CPUs (`spark.task.cpus`, normally 1).
    threads: Optional[int] = None
    #: `GEOCODE_CELL_SIZE` for the engine's cell index (degrees); None = the engine's default.
    cell_size: Optional[float] = None
    #: A directory of shared libraries (GEOS, shapelib, Swift runtime) put first on LD_LIBRARY_PATH.
    lib_dir: Optional[str] = None
    #: Extra environment for the process.
    env: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        fields = tuple(_normalise_fields(self.fields))
        object.__setattr__(self, "fields", fields)
        if self.datum not in ("wgs84", "gcj02", "bd09"):
            raise ValueError(f"datum must be wgs84, gcj02 or bd09, not {self.datum!r}")
        if self.threads is not None and not (1 <= int(self.threads) <= 1024):
            raise ValueError("threads must be from 1 to 1024")

    @property
    def output_columns(self) -> List[str]:
        """The columns appended to each row: the fields (with the prefix), then geocode_error."""
        return [self.prefix + f for f in self.fields] + [self.prefix + ERROR_FIELD]


def _normalise_fields(fields) -> List[str]:
    if isinstance(fields, str):
        fields = [fields]
    out: List[str] = []
    for name in fields:
        for part in str(name).split(","):
            part = part.strip().lower().replace("-", "_")
            if part == "all":
                out.extend(ALL_FIELDS)
            elif part in ("default", "defaults"):
                out.extend(DEFAULT_FIELDS)
            elif part in ALL_FIELDS or part in FIELD_ALIASES:
                out.append(part)  # geocode writes an old name as asked, a column under its own name
            elif part in _BY_KEY:
                out.append(_BY_KEY[part])  # a library key (administrativeArea): its column
            else:
                raise ValueError(f"unknown field {part!r} (known: {', '.join(ALL_FIELDS)}, all, default; "
                                 f"old names: {', '.join(FIELD_ALIASES)})")
    # One column per field, the first name it was asked by winning, as `geocode batch --fields` does.
    seen = set()
    return [f for f in out if not (FIELD_ALIASES.get(f, f) in seen or seen.add(FIELD_ALIASES.get(f, f)))]


# --------------------------------------------------------------------------------------------------
# Shipping the engine


def make_data_archive(data_dir: str, archive_path: str) -> str:
    """Packs a data directory (the folder with `china/`, `world/`, ...) as a .tar.gz whose root is that
    directory's content, ready for `--archives` or `ship`. Returns archive_path."""
    if not os.path.isdir(data_dir):
        raise FileNotFoundError(f"data directory {data_dir} does not exist")
    with tarfile.open(archive_path, "w:gz") as tar:
        for name in sorted(os.listdir(data_dir)):
            if name.endswith((".py", ".txt")) and os.path.isfile(os.path.join(data_dir, name)):
                continue  # build scripts and logs are not data
            tar.add(os.path.join(data_dir, name), arcname=name)
    return archive_path


def ship(sc, binary: str, data: str, lib_dir: Optional[str] = None, module: bool = True) -> GeocodeOptions:
    """Registers the binary, the data and this module with the job, so every executor gets them.

    binary: the `geocode` executable, built for the executors' OS and architecture.
    data:   a data directory (packed into a temporary .tar.gz) or a ready .tar.gz/.tgz/.zip archive.
    lib_dir: optional directory of shared libraries to ship as well (packed like data).
    Returns the GeocodeOptions naming what was shipped (use `dataclasses.replace` to change fields).
    """
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise FileNotFoundError(f"{binary} is not an executable file")
    work = tempfile.mkdtemp(prefix="geocode-spark-")
    staged = os.path.join(work, BINARY_NAME)
    shutil.copy2(binary, staged)  # registered under the name the executors look for
    sc.addFile(staged)
    if os.path.isdir(data):
        archive = make_data_archive(data, os.path.join(work, DATA_ARCHIVE_NAME))
    else:
        archive = os.path.join(work, DATA_ARCHIVE_NAME)
        shutil.copy2(data, archive)
    sc.addArchive(archive)
    libs = None
    if lib_dir:
        libs = "geocode-libs.tar.gz"
        sc.addArchive(make_data_archive(lib_dir, os.path.join(work, libs)))
    if module:
        sc.addPyFile(os.path.abspath(__file__))
    return GeocodeOptions(binary=BINARY_NAME, data=DATA_ARCHIVE_NAME, lib_dir=libs)


def _resolve(name: str, want_dir: bool) -> str:
    """Finds a shipped or installed file/directory on this executor."""
    candidates = []
    if os.path.isabs(name):
        candidates.append(name)
    else:
        try:
            from pyspark import SparkFiles
            candidates.append(SparkFiles.get(name))
        except Exception:  # no SparkContext/TaskContext (plain Python use)
            pass
        candidates.append(os.path.abspath(name))
    for path in candidates:
        if want_dir and os.path.isdir(path):
            return path
        if not want_dir and os.path.isfile(path):
            return path
    kind = "directory" if want_dir else "file"
    raise GeocodeTaskError(f"geocode: {kind} {name!r} not found on this executor (looked at {', '.join(candidates)}); "
                           f"ship it with --files/--archives or geocode_spark.ship")


def _executable(path: str) -> str:
    """addFile copies may lose the executable bit; make a private executable copy if so."""
    if os.access(path, os.X_OK):
        return path
    try:
        os.chmod(path, os.stat(path).st_mode | 0o111)
        return path
    except OSError:
        copy = os.path.join(tempfile.mkdtemp(prefix="geocode-bin-"), os.path.basename(path))
        shutil.copy(path, copy)
        os.chmod(copy, 0o755)
        return copy


# --------------------------------------------------------------------------------------------------
# The streaming core


def _coordinate(value: Any) -> str:
    """A coordinate as NDJSON text. Numbers as numbers, text as a string (the CLI parses numeric
    strings and flags the rest), null as null; NaN/inf become strings that the CLI flags as bad."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return json.dumps(str(value).lower())
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(str(value), ensure_ascii=False)  # Decimal and the like: exact decimal text


def _command(options: GeocodeOptions, threads: int, lat_key: str, lon_key: str) -> List[str]:
    binary = _executable(_resolve(options.binary, want_dir=False))
    data = _resolve(options.data, want_dir=True)
    return [binary, "batch", "--format", "ndjson", "-", "-o", "-", "--output-format", "ndjson",
            "--lat-col", lat_key, "--lon-col", lon_key, "--fields", ",".join(options.fields),
            "--datum", options.datum, "--threads", str(threads), "--quiet", "--data", data]


def _environment(options: GeocodeOptions, partition: Optional[int], attempt: Optional[int]) -> Dict[str, str]:
    env = dict(os.environ)
    env.pop("GEOCODE_DATA", None)  # --data is always given
    # Several executors per machine: every `geocode batch` maps the index cache read-only, so the page
    # cache holds one copy for all of them instead of one private copy each (README: "Memory").
    env.setdefault("GEOCODE_INDEX_MEMORY", "shared")
    if options.cell_size is not None:
        env["GEOCODE_CELL_SIZE"] = str(options.cell_size)
    if options.lib_dir:
        libs = _resolve(options.lib_dir, want_dir=True)
        env["LD_LIBRARY_PATH"] = libs + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if partition is not None:
        env["GEOCODE_SPARK_PARTITION"] = str(partition)
    if attempt is not None:
        env["GEOCODE_SPARK_ATTEMPT"] = str(attempt)
    env.update(options.env)
    return env


def geocode_rows(rows: Iterable[Any], lat_index: Any, lon_index: Any, options: GeocodeOptions = GeocodeOptions(),
                 partition: Optional[int] = None, attempt: Optional[int] = None,
                 lat_key: str = "lat", lon_key: str = "lon", keep_row: bool = True) -> Iterator[tuple]:
    """Streams rows through one `geocode batch` process, yielding `tuple(row) + placemark values`.

    rows: any iterable of sequences (tuples, Spark Rows); lat_index/lon_index pick the coordinates
    (an int position, or a key for mappings/Rows). The appended values follow `options.output_columns`:
    the fields as strings (flags such as city_is_province as bools, distances as floats) or None, then
    geocode_error (None for good rows).
    lat_key/lon_key name the coordinates for the process, so its bad-row messages name the caller's
    columns (geocode_dataframe passes the column names). keep_row=False yields the placemark values only.
    Raises GeocodeTaskError when the process fails or its output does not match its input row for row.
    No process is started for an empty input.
    """
    rows = iter(rows)
    try:
        first = next(rows)
    except StopIteration:
        return
    threads = options.threads
    if threads is None:
        threads = _task_cpus()
    if lat_key == lon_key or _ROW_KEY in (lat_key, lon_key):
        lat_key, lon_key = "lat", "lon"
    command = _command(options, threads, lat_key, lon_key)
    prefix = '{"%s":' % _ROW_KEY
    lat_part = ',%s:' % json.dumps(lat_key, ensure_ascii=False)
    lon_part = ',%s:' % json.dumps(lon_key, ensure_ascii=False)
    env = _environment(options, partition, attempt)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, bufsize=1 << 16)
    pending: collections.deque = collections.deque()   # rows written, their placemark not yet read
    stop = threading.Event()
    writer_error: List[BaseException] = []
    stderr_tail: collections.deque = collections.deque(maxlen=_STDERR_TAIL)

    def write() -> None:
        n = 0
        lines: List[str] = []
        batch: List[Any] = []
        try:
            for row in _chain(first, rows):
                if stop.is_set():
                    return
                lines.append(f"{prefix}{n}{lat_part}{_coordinate(row[lat_index])}"
                             f"{lon_part}{_coordinate(row[lon_index])}}}\n")
                batch.append(row)
                n += 1
                if len(lines) >= _WRITE_BATCH:
                    pending.extend(batch)  # before the write: the reader may see these rows' output at once
                    process.stdin.write("".join(lines).encode("utf-8"))
                    lines.clear()
                    batch.clear()
            if lines:
                pending.extend(batch)
                process.stdin.write("".join(lines).encode("utf-8"))
        except BrokenPipeError:
            pass  # the process died; its exit status tells why
        except BaseException as error:  # noqa: BLE001 - re-raised in the reading thread
            writer_error.append(error)
        finally:
            try:
                process.stdin.close()
            except OSError:
                pass

    def drain_stderr() -> None:
        for line in process.stderr:
            stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    writer = threading.Thread(target=write, name="geocode-stdin", daemon=True)
    drainer = threading.Thread(target=drain_stderr, name="geocode-stderr", daemon=True)
    writer.start()
    drainer.start()
    columns = options.fields
    error_key = ERROR_FIELD
    expected = 0
    finished = False
    try:
        for line in process.stdout:
            record = json.loads(line)
            if record.get(_ROW_KEY) != expected or not pending:
                raise GeocodeTaskError(f"geocode returned row {record.get(_ROW_KEY)!r} where row {expected} "
                                       f"was expected (output out of step with input)")
            row = pending.popleft()
            expected += 1
            placemark = tuple([record.get(c) for c in columns]) + (record.get(error_key),)
            yield (tuple(row) + placemark) if keep_row else placemark
        writer.join()
        returncode = process.wait()
        drainer.join()
        if writer_error:
            raise writer_error[0]
        if returncode != 0:
            detail = "\n".join(stderr_tail)
            raise GeocodeTaskError(f"geocode exited with status {returncode} after {expected} rows"
                                   f"{' (partition %s, attempt %s)' % (partition, attempt) if partition is not None else ''}"
                                   f": {detail}")
        if pending:
            raise GeocodeTaskError(f"geocode returned {expected} rows for {expected + len(pending)} input rows")
        finished = True
    finally:
        if not finished:  # an error, or the consumer stopped early (limit, take): end the process
            stop.set()
            if process.poll() is None:
                process.kill()
            process.wait()
            for stream in (process.stdout,):
                try:
                    stream.close()
                except OSError:
                    pass


def _chain(first, rest):
    yield first
    yield from rest


def _task_cpus() -> int:
    try:
        from pyspark import TaskContext
        context = TaskContext.get()
        if context is not None:
            return max(1, int(context.cpus()))
    except Exception:
        pass
    return 1


def geocode_partitions(lat_index: Any, lon_index: Any, options: GeocodeOptions = GeocodeOptions(),
                       lat_key: str = "lat", lon_key: str = "lon"):
    """A function for `rdd.mapPartitions`: each partition's rows come back as
    `tuple(row) + placemark values` (see `geocode_rows`), in order, exactly once."""

    def run(rows: Iterable[Any]) -> Iterator[tuple]:
        partition, attempt = _task_identity()
        return geocode_rows(rows, lat_index, lon_index, options, partition, attempt, lat_key, lon_key)

    return run


# --------------------------------------------------------------------------------------------------
# DataFrames


def placemark_schema(input_schema, options: GeocodeOptions = GeocodeOptions()):
    """The input schema with the placemark columns appended: strings, flags boolean, distances double,
    geocode_error string; all nullable."""
    from pyspark.sql.types import BooleanType, DoubleType, StringType, StructField, StructType

    clash = set(options.output_columns) & set(input_schema.fieldNames())
    if clash:
        raise ValueError(f"input already has column(s) {', '.join(sorted(clash))}; pass prefix= to rename the added ones")
    spark_type = {"text": StringType, "number": DoubleType, "flag": BooleanType}
    added = [StructField(options.prefix + f, spark_type[field_kind(f)](), True) for f in options.fields]
    added.append(StructField(options.prefix + ERROR_FIELD, StringType(), True))
    return StructType(list(input_schema.fields) + added)


def _task_identity():
    try:
        from pyspark import TaskContext
        context = TaskContext.get()
        if context is not None:
            return context.partitionId(), context.attemptNumber()
    except Exception:
        pass
    return None, None


def arrow_partitions(lat_index: int, lon_index: int, options: GeocodeOptions, names: Sequence[str],
                     lat_key: str = "lat", lon_key: str = "lon"):
    """A function for `DataFrame.mapInArrow`: one geocode process for the whole partition, fed from all
    its record batches in turn; each input batch comes back as one output batch with the placemark
    columns appended (`names` are the output column names)."""

    def run(batches):
        import pyarrow as pa

        partition, attempt = _task_identity()
        queued: collections.deque = collections.deque()  # input batches whose placemarks are still due

        def points():
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                queued.append(batch)  # before its points are written, so the reader always finds it
                yield from zip(batch.column(lat_index).to_pylist(), batch.column(lon_index).to_pylist())

        arrow_type = {"text": pa.string, "number": pa.float64, "flag": pa.bool_}
        types = [arrow_type[field_kind(f)]() for f in options.fields] + [pa.string()]
        width = len(types)
        collected: List[tuple] = []
        for placemark in geocode_rows(points(), 0, 1, options, partition, attempt, lat_key, lon_key, keep_row=False):
            collected.append(placemark)
            if len(collected) == queued[0].num_rows:
                batch = queued.popleft()
                added = [pa.array([p[k] for p in collected], type=types[k]) for k in range(width)]
                collected = []
                yield pa.RecordBatch.from_arrays(list(batch.columns) + added, names=list(names))
        if collected or queued:
            raise GeocodeTaskError("geocode output ended inside a record batch")

    return run


def _arrow_available(df) -> bool:
    if not hasattr(df, "mapInArrow"):
        return False
    try:
        import pandas  # noqa: F401  (mapInArrow insists on it)
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


def geocode_dataframe(df, lat: str = "lat", lon: str = "lon", options: Optional[GeocodeOptions] = None,
                      engine: str = "auto", **kwargs):
    """Returns df with the placemark columns appended (see `placemark_schema`), same rows, same
    partitions, same order. lat/lon: column names (numeric or string columns; WGS-84 unless
    options.datum says otherwise). kwargs are GeocodeOptions fields (fields=, prefix=, threads=, ...),
    applied on top of options.

    engine: "arrow" moves rows between the JVM and Python as Arrow batches (`mapInArrow`; needs
    pyarrow and pandas, i.e. pyspark[sql], on the driver and the executors; several times faster), "rdd" as pickled rows
    (`rdd.mapPartitions`; pyspark alone), "auto" picks arrow when the driver has pyarrow."""
    import dataclasses

    options = dataclasses.replace(options or GeocodeOptions(), **kwargs) if kwargs else (options or GeocodeOptions())
    names = df.columns
    for column in (lat, lon):
        if column not in names:
            raise ValueError(f"no column {column!r} in {names}")
    schema = placemark_schema(df.schema, options)
    if engine == "auto":
        engine = "arrow" if _arrow_available(df) else "rdd"
    if engine == "arrow":
        return df.mapInArrow(arrow_partitions(names.index(lat), names.index(lon), options, schema.fieldNames(),
                                              lat, lon), schema)
    if engine != "rdd":
        raise ValueError(f"engine must be auto, arrow or rdd, not {engine!r}")
    rdd = df.rdd.mapPartitions(geocode_partitions(names.index(lat), names.index(lon), options, lat, lon),
                               preservesPartitioning=True)
    return df.sparkSession.createDataFrame(rdd, schema, verifySchema=False)
