"""Scale benchmark: frequency table, optimal search and released Parquet on 1M-50M rows, per engine.

For each size the Adult-like generator (sample_data/generate_large.py, fixed
seed) writes a Parquet file; each (engine, size) then runs in a fresh
process that builds the frequency table, searches the optimal k=5
transformation with 2% suppression (Adult's seven QIs with ARX's
hierarchies from ../shared) and writes the released Parquet. Peak memory is
the largest resident set of that process and its children (Spark's JVM
included), sampled every 50 ms.

Targets (issue #18, DuckDB on 2 cores): 10M rows Parquet end to end <= 8 s and
<= 1 GB peak; 1M rows CSV end to end <= 2 s (ARX: 6.3-7.5 s). Spark gives the
same output. Ratios are against those targets (scaled to the size) and against
the pandas engine measured in the same run. CPU seconds (time.process_time of
the measuring process, DuckDB's threads included, Spark's JVM not) are shown
beside wall seconds: on a shared machine wall time also counts waiting for a core.

    python benchmarks/bench_scale.py [--sizes 1M,10M,50M] [--engines pandas,duckdb,spark,arx] [--data-dir DIR]
        [--format parquet|csv] [--repeat 5] [--arx-classpath CP] [--arx-heap 2g]

The engine ``arx`` (CSV only) runs ARX 3.9.2 on the same file in the same block, end to end:
``benchmarks/arx/ArxRelease.java``, compiled once at the start, reads the CSV input and the
hierarchies, searches the same optimum (k=5, 2% suppression, ARX's Loss, optimal search) and writes
the released CSV with ARX's writer, each run in a fresh JVM. Its times are taken inside the JVM
(start-up excluded, as the Python side excludes its imports); its CPU is the process CPU of all JVM
threads; its peak is the JVM's resident set. ARX reads its input lazily, so its "search" column
also covers reading and encoding the rows. The classpath is found as for bench_search.py
(``--arx-classpath``, ``ARX_CLASSPATH`` or ``../arx-build/lib``); without it the engine is skipped
with the reason.

With ``--repeat N`` each (engine, size) runs N times, each in a fresh process: the row shows the
median of every time (wall and CPU) and the largest peak; a second line gives the range of the
total wall and CPU times and the load average (1, 5, 15 min) before and after the block.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ADULT = ROOT.parent / "shared" / "data" / "adult"
ARX_HARNESS = Path(__file__).resolve().parent / "arx" / "ArxRelease.java"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
#: format -> (seconds, per this many rows, peak bytes or None)
TARGETS = {"parquet": (8.0, 10_000_000, 1024**3), "csv": (2.0, 1_000_000, None)}
#: pandas holds every row as Python strings: past this many rows it needs more memory than the machine has.
PANDAS_MAX_ROWS = 10_000_000


def parse_rows(text: str) -> int:
    text = text.strip().upper().replace("_", "")
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def config_for(path: Path) -> dict:
    attributes = {
        q: {
            "role": "quasi-identifier",
            "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{q}.csv")},
        }
        for q in QIS
    }
    attributes["occupation"] = {"role": "insensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    return {
        "input": {"path": str(path)},
        "attributes": attributes,
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
    }


class PeakMemory:
    """Largest summed RSS of a process (default: this one) and its descendants, sampled on a thread."""

    def __init__(self, interval: float = 0.05, pid: int | None = None) -> None:
        import psutil

        self.proc, self.peak, self.interval = psutil.Process(pid), 0, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        total = 0
        try:
            family = [self.proc, *self.proc.children(recursive=True)]
        except Exception:  # the measured process has ended
            return 0
        for p in family:
            try:
                total += p.memory_info().rss
            except Exception:  # a child that just ended (or the process itself)
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


def run_one(engine: str, data: Path, out: Path) -> dict:
    """One measurement (runs in a fresh process)."""
    import warnings

    from anon_core.config import parse_config
    from anon_core.transform.problem import Problem

    warnings.simplefilter("ignore")
    config = parse_config(config_for(data), data.parent)
    with PeakMemory() as mem:
        c0 = time.process_time()
        t0 = time.perf_counter()
        problem = Problem.from_config(config, engine=engine)
        t1 = time.perf_counter()
        found = problem.search()
        t2 = time.perf_counter()
        c2 = time.process_time()
        written = problem.write_release(found.optimum, out)
        t3 = time.perf_counter()
        c3 = time.process_time()
    import pyarrow.parquet as pq

    if out.suffix == ".csv":
        parts = sorted(out.glob("part-*.csv")) if out.is_dir() else [out]
        released_rows = sum(sum(1 for _ in p.open("rb")) - 1 for p in parts)
    else:
        released_rows = (
            pq.ParquetDataset(out).read().num_rows
            if out.is_dir()
            else pq.read_metadata(out).num_rows
        )
    return {
        "engine": engine,
        "rows": problem.dataset.n_rows,
        "tuples": int(problem.freq.n_tuples),
        "frequency_s": t1 - t0,
        "search_s": t2 - t1,
        "write_s": t3 - t2,
        "total_s": t3 - t0,
        "write_cpu_s": c3 - c2,
        "cpu_s": c3 - c0,  # this process's threads (DuckDB's included; not Spark's JVM)
        "peak_bytes": mem.peak,
        "checks": found.nodes_checked,
        "transformation": found.optimum.transformation,
        "suppressed": int(found.optimum.suppressed_records),
        "released_rows": int(released_rows),
        "written_rows": written.rows,
    }


def measure(engine: str, data: Path, out: Path) -> dict:
    cmd = [sys.executable, __file__, "--one", engine, str(data), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"engine": engine, "error": tail}
    return json.loads(lines[-1])


class ArxEngine:
    """ArxRelease.java compiled once into a temporary folder; ``measure`` runs it in a fresh JVM."""

    def __init__(self, classpath: str, heap: str, build: Path) -> None:
        import shutil

        javac, java = shutil.which("javac"), shutil.which("java")
        if javac is None or java is None:
            raise RuntimeError("a JDK (java and javac) is not installed")
        done = subprocess.run(
            [javac, "-nowarn", "-cp", classpath, "-d", str(build), str(ARX_HARNESS)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"ArxRelease.java does not compile against {classpath!r}: {last}")
        self.cmd = [java, f"-Xmx{heap}", "-cp", f"{build}{os.pathsep}{classpath}", "ArxRelease"]

    def measure(self, data: Path, out: Path) -> dict:
        hierarchies = [f"{q}={ADULT / f'adult_hierarchy_{q}.csv'}" for q in QIS]
        cmd = [*self.cmd, str(data), ",", ";", str(out), "5", "0.02", *hierarchies]
        cmd.append("insensitive=occupation,salary-class")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with PeakMemory(pid=proc.pid) as mem:
            stdout, stderr = proc.communicate()
        lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            tail = (stderr.strip().splitlines() or ["no output"])[-1]
            return {"engine": "arx", "error": tail}
        found = json.loads(lines[-1])
        found["peak_bytes"] = mem.peak
        return found


def start_arx(classpath: str | None, heap: str, build: Path) -> tuple[ArxEngine | None, str]:
    """ARX's engine, or None and the reason it is skipped."""
    import argparse as _argparse

    from benchmarks.arx.runner import arx_classpath

    cp = arx_classpath(_argparse.Namespace(arx_classpath=classpath, arx_jar=None))
    if cp is None:
        return None, "ARX is not built here (docs/benchmarks.md, 'Building ARX here')"
    try:
        return ArxEngine(cp, heap, build), f"ARX: {cp}, -Xmx{heap}, a fresh JVM per run"
    except (RuntimeError, OSError) as exc:
        return None, f"ARX is skipped: {exc}"


def median_run(runs: list[dict]) -> dict:
    """One row from repeated runs: the median of every time, the largest peak memory."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[-1]
    out = dict(good[-1])
    for key in ("frequency_s", "search_s", "write_s", "total_s", "write_cpu_s", "cpu_s"):
        out[key] = statistics.median(r[key] for r in good)
    out["peak_bytes"] = max(r["peak_bytes"] for r in good)
    return out


def generate(rows: int, folder: Path, fmt: str = "parquet") -> Path:
    path = folder / f"adult_like_{rows}.{fmt}"
    if path.is_file():
        return path
    spec = importlib.util.spec_from_file_location(
        "generate_large", ROOT / "sample_data" / "generate_large.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    t0 = time.perf_counter()
    module.write(path, rows, seed=2026)
    print(
        f"generated {rows:,} rows in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / 1e6:.0f} MB)"
    )
    return path


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--one":
        print(json.dumps(run_one(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1M,10M,50M")
    parser.add_argument("--engines", default="pandas,duckdb,spark")
    parser.add_argument(
        "--data-dir", default=None, help="where generated inputs are kept (default: a temp folder)"
    )
    parser.add_argument(
        "--format", default="parquet", choices=["parquet", "csv"], help="input and release format"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per engine and size (median shown)"
    )
    parser.add_argument("--arx-classpath", default=None, help="ARX's classpath (engine arx)")
    parser.add_argument("--arx-heap", default="2g", help="ARX's JVM heap limit (-Xmx)")
    args = parser.parse_args()
    if not (ADULT / "adult_hierarchy_age.csv").is_file():
        print(
            "../shared/data/adult (ARX's hierarchies) is not beside the checkout; nothing to measure."
        )
        return
    sizes = [parse_rows(s) for s in args.sizes.split(",")]
    engines = [e.strip() for e in args.engines.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        folder = Path(args.data_dir) if args.data_dir else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print(
            f"{os.cpu_count()} cores; k=5, 2% suppression, 7 QIs with ARX's Adult hierarchies; "
            f"input and release {args.format}; wall seconds, peak RSS of the process and its children"
        )
        header = (
            f"{'rows':>11} {'engine':>7} {'freq s':>8} {'search s':>9} {'write s':>8} {'total s':>8} "
            f"{'cpu s':>7} {'wr cpu':>7} {'peak GB':>8} {'vs target':>10} {'vs pandas':>10}  same output"
        )
        arx = None
        if "arx" in engines:
            if args.format != "csv":
                print("arx: skipped (the ARX engine reads and writes CSV; pass --format csv)")
            else:
                build = Path(tmp) / "arx-build"
                build.mkdir()
                arx, why = start_arx(args.arx_classpath, args.arx_heap, build)
                print(why)
        print(header)
        for rows in sizes:
            data = generate(rows, folder, args.format)
            results = {}
            for engine in engines:
                if engine == "pandas" and rows > PANDAS_MAX_ROWS:
                    print(
                        f"{rows:>11,} {engine:>7}  skipped: the whole table in memory would exceed the machine"
                    )
                    continue
                if engine == "arx" and arx is None:
                    continue
                out = Path(tmp) / f"released_{engine}_{rows}.{args.format}"
                load_before = os.getloadavg()
                if engine == "arx":
                    runs = [arx.measure(data, out) for _ in range(max(1, args.repeat))]
                else:
                    runs = [measure(engine, data, out) for _ in range(max(1, args.repeat))]
                r = median_run(runs)
                results[engine] = r
                if "error" in r:
                    print(f"{rows:>11,} {engine:>7}  failed: {r['error']}")
                    continue
                base = results.get("pandas")
                vs_pandas = (
                    f"{r['total_s'] / base['total_s']:.2f}x"
                    if base and "error" not in base
                    else "-"
                )
                t_s, t_rows, t_bytes = TARGETS[args.format]
                vs_target = f"{r['total_s'] / (t_s * rows / t_rows):.2f}x"
                same = "-"
                ref = next(
                    (v for k, v in results.items() if k != engine and "error" not in v), None
                )
                if ref is not None:
                    keys = ("transformation", "released_rows", "tuples")
                    same = (
                        "yes"
                        # ARX reports no tuple count: compare what both report
                        if all(ref[k] == r[k] for k in keys if k in ref and k in r)
                        else "NO"
                    )
                print(
                    f"{rows:>11,} {engine:>7} {r['frequency_s']:>8.2f} {r['search_s']:>9.2f} {r['write_s']:>8.2f} "
                    f"{r['total_s']:>8.2f} {r['cpu_s']:>7.2f} {r['write_cpu_s']:>7.2f} "
                    f"{r['peak_bytes'] / 1e9:>8.2f} {vs_target:>10} {vs_pandas:>10}  {same}",
                    flush=True,
                )
                if len(runs) > 1:
                    walls = sorted(x["total_s"] for x in runs if "error" not in x)
                    cpus = sorted(x["cpu_s"] for x in runs if "error" not in x)
                    print(
                        f"{'':>11} {len(walls)} runs: total {walls[0]:.2f}-{walls[-1]:.2f} s wall, "
                        f"{cpus[0]:.2f}-{cpus[-1]:.2f} s CPU; load average before "
                        f"{' '.join(f'{v:.1f}' for v in load_before)}, after "
                        f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}",
                        flush=True,
                    )
                for failed in (x for x in runs if "error" in x):
                    print(f"{'':>11} a run failed (not counted): {failed['error']}", flush=True)
                if engine == "duckdb" and rows == t_rows:
                    ok = r["total_s"] <= t_s and (t_bytes is None or r["peak_bytes"] <= t_bytes)
                    memory = f", <= {t_bytes / 1024**3:.0f} GB" if t_bytes else ""
                    print(
                        f"{'':>11} target {rows:,} rows {args.format} <= {t_s:.0f} s{memory} with "
                        f"DuckDB: {'met' if ok else 'NOT met'} ({r['total_s']:.1f} s wall, "
                        f"{r['cpu_s']:.1f} s CPU, {r['peak_bytes'] / 1e9:.2f} GB)"
                    )
            print(
                f"{'':>11} optimum: {next((v['transformation'] for v in results.values() if 'error' not in v), '-')}"
            )
        print(
            "'vs target' is total wall time against the target scaled to the size; 'vs pandas' against the "
            "in-memory engine on the same file; 'same output' compares optimum, tuples and released rows."
        )


if __name__ == "__main__":
    main()
