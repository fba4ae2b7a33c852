"""End to end: our optimal search against ARX 3.9.2 on 21 configurations, side by side.

ARX runs in one warm JVM (``benchmarks/arx/ArxBench.java``, compiled here against an
ARX build) and ours in this one warm Python process. For each configuration, in turn:
the load average is printed, ARX runs its block (warm-ups, then timed runs), then ours.

What is timed (the same work on both sides; no file I/O on either):
- ARX: ``anonymize()`` on a fresh ``Data`` made from rows read once; inside it ARX
  dictionary-encodes the rows and the hierarchies and runs Flash. CPU is the calling
  thread's (ThreadMXBean); the JVM's whole-process CPU (with JIT and GC threads) is shown
  beside it.
- Ours: the hierarchies from their rows (validation and arrays), the problem (encoding,
  frequency table) and ``search()``, on a frame loaded once. While ours is timed the JVM is stopped
  (SIGSTOP), so its JIT and GC threads take no core. CPU is ``time.process_time``
  (every thread of the process). The split (hierarchies, problem, search) is shown.

The figure is the median over the timed runs; the ratio is ours / ARX on CPU. Every
optimum must be ARX's: the same levels and the same Loss to 1e-9.

Data: Adult with ARX's hierarchies from ../shared/data/adult (configurations A-I), and
three data sets ARX's authors benchmark on, kept outside the repository (see
docs/benchmarks.md for where they come from and their licences): CUP and a FARS subset
(arx-new-algorithms' data) and the MACH2019 survey (genetic-benchmark's data), each at
k=5 with 0% and 5% suppression and k=5 + distinct 3-diversity or recursive (4,3)-diversity
with 5% suppression. A missing data set is skipped with the reason. A memory guard stops
ours on a configuration whose resident set passes --max-rss-gb (the run goes on).

Memory: by default ours runs in this one process, so its peak resident set includes what
earlier configurations left. With --fresh, ours runs each configuration in a fresh Python
process (the same warm-ups and timed runs in it): the peak is that process's, beside its
resident set after the imports and after reading the data, to compare with ARX's heap.

Run:
    python benchmarks/bench_search.py [--quick] [--only A,B,cup] [--heldout DIR]
        [--arx-classpath 'DIR/*' | --arx-jar FILE] [--runs 9 --warmup 2] [--json OUT]
        [--max-rss-gb 4] [--no-arx] [--fresh]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from anon_core import Hierarchy, Problem, load_table, make_metric, make_model  # noqa: E402
from benchmarks.arx.runner import ARX_ENV, start_arx  # noqa: E402
from benchmarks.bench_memory import (  # noqa: E402
    MemoryGuard,
    child_report,
    peak_rss_mib,
    rss_mib,
    run_fresh,
)

ADULT_DIR = ROOT.parent / "shared" / "data" / "adult"
HELDOUT_ENV = "ANON_HELDOUT_DATA"
DEFAULT_HELDOUT = ROOT.parent / "data-heldout"
LOSS_TOLERANCE = 1e-9
#: Seconds between ARX's block and ours, the JVM stopped (``ArxRunner.paused``): its JIT and GC
#: threads, busy after ARX's last run, would share the two cores with ours and inflate its CPU.
SETTLE_S = 0.2


@dataclass(frozen=True)
class DataSpec:
    """A data set: its CSV, its hierarchy files, its quasi-identifiers and sensitive attribute."""

    name: str
    folder: str  # "adult" (../shared) or a sub-folder of the held-out folder
    csv: str
    hierarchy: str  # file name pattern with {a} for the attribute
    qis: tuple[str, ...]
    sensitive: str


def _data(name: str, folder: str, csv_name: str, qis: str, sensitive: str) -> DataSpec:
    stem = csv_name.removesuffix(".csv").removesuffix("_subset")
    return DataSpec(
        name, folder, csv_name, stem + "_hierarchy_{a}.csv", tuple(qis.split()), sensitive
    )


# Adult's QIs in ARX's order (occupation is a QI in A-D, the sensitive attribute in E-I).
ADULT_QIS = "sex age race marital-status education native-country workclass occupation salary-class"
FARS_QIS = "iage irace ideathmon ideathday isex ihispanic istatenum"
SURVEY_QIS = "age familysize gender married race religion"
DATASETS = {
    d.name: d
    for d in (
        _data("adult", "adult", "adult.csv", ADULT_QIS, "occupation"),
        _data("cup", "cup", "cup.csv", "ZIP AGE GENDER INCOME STATE NGIFTALL MINRAMNT", "RAMNTALL"),
        _data("fars", "fars", "fars_subset.csv", FARS_QIS, "iinjury"),
        _data("survey", "mach2019", "mach2019_int.csv", SURVEY_QIS, "Q1A"),
    )
}


@dataclass(frozen=True)
class Config:
    """One benchmark configuration: models in the project's configuration format."""

    id: str
    dataset: str
    label: str
    models: tuple[dict[str, Any], ...]
    suppression: float
    all_qi: bool = False  # Adult A-D: the sensitive attribute is a quasi-identifier too

    @property
    def sensitive_used(self) -> bool:
        return any("attribute" in m for m in self.models)


def _k(k: int) -> dict[str, Any]:
    return {"model": "k-anonymity", "k": k}


def _configs() -> list[Config]:
    s = DATASETS["adult"].sensitive
    out = [
        Config("A", "adult", "k=2, 0%", (_k(2),), 0.0, True),
        Config("B", "adult", "k=5, 0%", (_k(5),), 0.0, True),
        Config("C", "adult", "k=5, 2%", (_k(5),), 0.02, True),
        Config("D", "adult", "k=10, 5%", (_k(10),), 0.05, True),
    ]
    for letter, label, model in (
        ("E", "k=5 + distinct 3-diversity, 2%", {"model": "distinct-l-diversity", "l": 3}),
        ("F", "k=5 + entropy 3-diversity, 2%", {"model": "entropy-l-diversity", "l": 3}),
        ("G", "k=5 + recursive (4,3), 2%", {"model": "recursive-cl-diversity", "c": 4, "l": 3}),
        ("H", "k=5 + equal 0.2-closeness, 2%", {"model": "equal-distance-t-closeness", "t": 0.2}),
        (
            "I",
            "k=5 + hierarchical 0.2-closeness, 2%",
            {"model": "hierarchical-distance-t-closeness", "t": 0.2},
        ),
    ):
        out.append(Config(letter, "adult", label, (_k(5), {**model, "attribute": s}), 0.02))
    for name in ("cup", "fars", "survey"):
        s = DATASETS[name].sensitive
        out += [
            Config(f"{name}-k5", name, "k=5, 0%", (_k(5),), 0.0),
            Config(f"{name}-k5-5", name, "k=5, 5%", (_k(5),), 0.05),
        ]
        for suffix, label, model in (
            ("dl3", "k=5 + distinct 3-diversity, 5%", {"model": "distinct-l-diversity", "l": 3}),
            (
                "rl43",
                "k=5 + recursive (4,3), 5%",
                {"model": "recursive-cl-diversity", "c": 4, "l": 3},
            ),
        ):
            out.append(
                Config(f"{name}-{suffix}", name, label, (_k(5), {**model, "attribute": s}), 0.05)
            )
    return out


CONFIGS = _configs()


def select_configs(only: str) -> list[Config]:
    """The configurations named by ``only`` (ids or data set names, comma-separated; empty:
    all), in the benchmark's order. An unknown name raises ValueError listing the known ones."""
    names = [x.strip() for x in only.split(",") if x.strip()]
    if not names:
        return list(CONFIGS)
    ids = {c.id.lower() for c in CONFIGS}
    unknown = [n for n in names if n.lower() not in ids and n.lower() not in DATASETS]
    if unknown:
        known = ", ".join([c.id for c in CONFIGS] + list(DATASETS))
        raise ValueError(f"unknown configuration(s) {unknown}; known: {known}")
    wanted = {n.lower() for n in names}
    return [c for c in CONFIGS if c.id.lower() in wanted or c.dataset in wanted]


def arx_model(model: dict[str, Any]) -> str:
    """The harness's token for one privacy model (see ArxBench.java)."""
    kind = model["model"]
    if kind == "k-anonymity":
        return f"k:{model['k']}"
    a = model["attribute"]
    tokens = {
        "distinct-l-diversity": lambda: f"distinct:{a}:{model['l']}",
        "entropy-l-diversity": lambda: f"entropy:{a}:{model['l']}",
        "recursive-cl-diversity": lambda: f"recursive:{a}:{model['c']}:{model['l']}",
        "equal-distance-t-closeness": lambda: f"equal-t:{a}:{model['t']}",
        "hierarchical-distance-t-closeness": lambda: f"hier-t:{a}:{model['t']}",
    }
    if kind not in tokens:
        raise ValueError(f"the ARX harness does not know the model {kind!r}")
    return tokens[kind]()


def roles_of(config: Config, columns: list[str]) -> tuple[list[str], dict[str, str]]:
    """Quasi-identifiers (in ARX's order) and the role of every column."""
    spec = DATASETS[config.dataset]
    qis = [a for a in spec.qis if config.all_qi or a != spec.sensitive]
    roles = {c: "insensitive" for c in columns}
    roles.update({a: "quasi-identifier" for a in qis})
    if config.sensitive_used:
        roles[spec.sensitive] = "sensitive"
    return qis, roles


def hierarchy_attributes(config: Config, qis: list[str]) -> list[str]:
    """Attributes whose hierarchy the configuration uses: the QIs, and the sensitive
    attribute for hierarchical t-closeness."""
    extra = [
        m["attribute"] for m in config.models if m["model"] == "hierarchical-distance-t-closeness"
    ]
    return qis + [a for a in extra if a not in qis]


def spec_line(
    config: Config,
    data_csv: Path,
    hierarchies: dict[str, Path],
    roles: dict[str, str],
    warmup: int,
    runs: int,
) -> str:
    """One configuration line for the harness (tab-separated key=value fields)."""

    def of(role: str) -> list[str]:
        return [c for c, r in roles.items() if r == role]

    fields = [
        f"id={config.id}",
        f"data={data_csv}",
        "sep=;",
        "qi=" + ",".join(of("quasi-identifier")),
    ]
    fields += [f"hier.{a}={p}" for a, p in hierarchies.items()]
    fields += [f"sensitive={a}" for a in of("sensitive")]
    fields.append("insensitive=" + ",".join(of("insensitive")))
    fields += [f"model={arx_model(m)}" for m in config.models]
    fields += [f"supp={config.suppression}", f"warmup={warmup}", f"runs={runs}"]
    if any("\t" in f or "\n" in f for f in fields):
        raise ValueError(f"{config.id}: a path or a name holds a tab or a line break")
    return "\t".join(fields)


def same_optimum(ours: dict[str, Any], arx: dict[str, Any]) -> str:
    """'yes' when both found the same levels and the same loss (to 1e-9), else what differs."""
    if ours["levels"] is None or arx["levels"] is None:
        return "yes" if ours["levels"] == arx["levels"] else "NO: one found no solution"
    if ours["levels"] != arx["levels"]:
        tie = any(t == arx["levels"] for t in ours.get("ties", ()))
        return "NO: tie, other levels" if tie else "NO: levels differ"
    if abs(float(ours["loss"]) - float(arx["loss"])) > LOSS_TOLERANCE:
        return "NO: loss differs"
    return "yes"


# ----------------------------------------------------------------------------- data


@dataclass
class Loaded:
    """A data set read once: the frame for ours, the hierarchy rows and the file paths."""

    spec: DataSpec
    csv: Path
    frame: Any
    paths: dict[str, Path]
    rows: dict[str, list[list[str]]] = field(default_factory=dict)


def dataset_folder(spec: DataSpec, heldout: Path) -> Path:
    return ADULT_DIR if spec.folder == "adult" else heldout / spec.folder


def load_dataset(spec: DataSpec, heldout: Path) -> Loaded | str:
    """The data set, or the reason it is skipped."""
    folder = dataset_folder(spec, heldout)
    data_csv = folder / spec.csv
    attrs = [*spec.qis, spec.sensitive]
    paths = {a: folder / spec.hierarchy.format(a=a) for a in attrs}
    missing = [p.name for p in [data_csv, *paths.values()] if not p.is_file()]
    if spec.name != "adult" and paths[spec.sensitive].name in missing:
        missing.remove(paths[spec.sensitive].name)  # only hierarchical t-closeness needs it
        del paths[spec.sensitive]
    if missing:
        where = "../shared/data/adult" if spec.folder == "adult" else f"{folder}"
        return f"{', '.join(missing[:3])} not in {where}"
    loaded = Loaded(spec, data_csv, load_table(data_csv).frame, paths)
    for a, p in paths.items():
        with p.open(encoding="utf-8", newline="") as fh:
            loaded.rows[a] = [r for r in csv.reader(fh, delimiter=";") if any(x.strip() for x in r)]
    return loaded


# ----------------------------------------------------------------------------- ours


def run_ours(
    config: Config, loaded: Loaded, warmup: int, runs: int, guard: MemoryGuard
) -> dict[str, Any]:
    """Medians of ours end to end (hierarchies + problem + search) and the optimum, or
    {'stopped': why} when the memory guard stopped it."""
    qis, roles = roles_of(config, list(loaded.frame.columns))
    attrs = hierarchy_attributes(config, qis)
    tables = {a: np.array(loaded.rows[a], dtype=object) for a in attrs}
    cpu, wall, split, out = [], [], [], {}
    try:
        with guard:
            for i in range(warmup + runs):
                c0, w0 = time.process_time(), time.perf_counter()
                hierarchies = {a: Hierarchy(tables[a], name=a) for a in attrs}
                c1 = time.process_time()
                problem = Problem(
                    loaded.frame,
                    roles,
                    hierarchies,
                    [make_model(dict(m)) for m in config.models],
                    config.suppression,
                    make_metric("loss"),
                )
                c2 = time.process_time()
                found = problem.search()
                c3, w3 = time.process_time(), time.perf_counter()
                if i >= warmup:
                    cpu.append((c3 - c0) * 1e3)
                    wall.append((w3 - w0) * 1e3)
                    split.append(((c1 - c0) * 1e3, (c2 - c1) * 1e3, (c3 - c2) * 1e3))
                opt = found.optimum
                out = {
                    "levels": dict(opt.transformation) if opt else None,
                    "loss": opt.quality.value if opt else None,
                    "ties": [dict(t) for t in found.ties],
                    "nodes_checked": found.nodes_checked,
                    "lattice": found.lattice_size,
                }
                del problem, found, hierarchies, opt  # no forced collection between runs
    except KeyboardInterrupt:
        if not guard.tripped:
            raise
        gc.collect()
        return {"stopped": f"resident set passed {guard.limit:.0f} MiB", "peak_rss_mib": None}
    gc.collect()  # between configurations, outside the timed runs
    return {
        "cpu_ms": statistics.median(cpu),
        "wall_ms": statistics.median(wall),
        "hierarchies_ms": statistics.median(s[0] for s in split),
        "problem_ms": statistics.median(s[1] for s in split),
        "search_ms": statistics.median(s[2] for s in split),
        "peak_rss_mib": peak_rss_mib(),
        **out,
    }


# ----------------------------------------------------------------------------- main


def _fmt(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def row_of(config: Config, arx: dict[str, Any] | None, ours: dict[str, Any]) -> dict[str, Any]:
    good = arx is not None and "error" not in arx and arx["cpu_ms"] > 0
    done = "stopped" not in ours
    if not done:
        same = f"ours stopped: {ours['stopped']}"
    elif good:
        same = same_optimum(ours, arx)
    else:
        same = (arx or {}).get("error", "no ARX")
    return {
        "id": config.id,
        "dataset": config.dataset,
        "configuration": config.label,
        "arx": arx,
        "ours": ours,
        "ratio_cpu": ours["cpu_ms"] / arx["cpu_ms"] if good and done else None,
        "ratio_problem_search": (
            (ours["problem_ms"] + ours["search_ms"]) / arx["cpu_ms"] if good and done else None
        ),
        "identical": same,
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| | data | configuration | ARX CPU ms | ARX process CPU ms | ours CPU ms | ours wall ms "
        "| hierarchies / problem / search ms | ours / ARX | without hierarchies "
        "| peak MiB ARX heap / ours RSS (fresh: after imports, with data) | same optimum |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        a, o = r["arx"] or {}, r["ours"]
        split = "-"
        if "stopped" not in o:
            split = f"{o['hierarchies_ms']:.0f} / {o['problem_ms']:.0f} / {o['search_ms']:.0f}"
        ratio = "-" if r["ratio_cpu"] is None else f"**{r['ratio_cpu']:.2f}**"
        bare = "-" if r["ratio_problem_search"] is None else f"{r['ratio_problem_search']:.2f}"
        peak = f"{_fmt(a.get('peak_heap_mib'))} / {_fmt(o.get('peak_rss_mib'))}"
        if o.get("import_rss_mib") is not None:
            peak += f" ({_fmt(o['import_rss_mib'])}, {_fmt(o['data_rss_mib'])})"
        print(
            f"| {r['id']} | {r['dataset']} | {r['configuration']} | {_fmt(a.get('cpu_ms'))} "
            f"| {_fmt(a.get('process_cpu_ms'))} | {_fmt(o.get('cpu_ms'))} | {_fmt(o.get('wall_ms'))} "
            f"| {split} | {ratio} | {bare} | {peak} | {r['identical']} |"
        )


def write_json(path: Path, payload: dict[str, Any], inputs: list[Path]) -> None:
    """Write atomically; never over an input file."""
    target = path.resolve()
    if any(target == p.resolve() for p in inputs):
        raise ValueError(f"--json {path} is an input file; choose another path")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".bench_search-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=1)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def measured_commit() -> str:
    """The commit measured, and whether anon_core/ had uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "anon_core"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + (" with uncommitted changes in anon_core/" if dirty else "")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--quick", action="store_true", help="3 timed runs after 1 warm-up")
    p.add_argument("--runs", type=int, default=None, help="timed runs (default 9; quick 3)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up runs (default 2; quick 1)")
    p.add_argument("--only", default="", help="ids or data set names, comma-separated")
    p.add_argument(
        "--heldout",
        default=os.environ.get(HELDOUT_ENV, str(DEFAULT_HELDOUT)),
        help=f"folder of the held-out data sets (env {HELDOUT_ENV}; default ../data-heldout)",
    )
    p.add_argument("--arx-classpath", default=None, help=f"ARX's classpath (env {ARX_ENV})")
    p.add_argument("--arx-jar", default=None, help="ARX's jar, its dependencies beside it")
    p.add_argument("--java", default="java", help="the java command")
    p.add_argument("--jvm-opt", action="append", default=[], help="a JVM option (repeatable)")
    p.add_argument("--no-arx", action="store_true", help="measure ours only")
    p.add_argument(
        "--max-rss-gb",
        type=float,
        default=4.0,
        help="stop ours on a configuration when its resident set passes this (GB; default 4)",
    )
    p.add_argument("--json", default=None, help="also write the results to this JSON file")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="run ours for each configuration in a fresh process (its own peak resident set)",
    )
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)  # one --fresh process
    args = p.parse_args(argv)
    args.runs = args.runs if args.runs is not None else (3 if args.quick else 9)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 2)
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be at least 1 and --warmup at least 0")
    try:
        args.configs = select_configs(args.only)
    except ValueError as exc:
        p.error(str(exc))
    return args


def child_main(args: argparse.Namespace) -> int:
    """One configuration of --fresh in this new process: its result as one line."""
    config = next(c for c in CONFIGS if c.id == args.child)
    import_rss = rss_mib()
    data = load_dataset(DATASETS[config.dataset], Path(args.heldout))
    if isinstance(data, str):
        child_report({"stopped": f"skipped: {data}", "peak_rss_mib": None})
        return 0
    data_rss = rss_mib()
    guard = MemoryGuard(args.max_rss_gb * 1024, reset=False)
    ours = run_ours(config, data, args.warmup, args.runs, guard)
    child_report({**ours, "import_rss_mib": import_rss, "data_rss_mib": data_rss})
    return 0


def fresh_ours(config: Config, args: argparse.Namespace) -> dict[str, Any]:
    """Ours for ``config`` in a fresh process (see :func:`benchmarks.bench_memory.run_fresh`)."""
    passed = ["--heldout", str(args.heldout), "--runs", str(args.runs)]
    passed += ["--warmup", str(args.warmup), "--max-rss-gb", str(args.max_rss_gb)]
    return run_fresh(Path(__file__).resolve(), config.id, passed, timeout_s=3600)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child_main(args)
    heldout = Path(args.heldout)
    commit = measured_commit()
    arx, arx_note = (None, "ARX: not run (--no-arx)") if args.no_arx else start_arx(args)
    print(arx_note)
    print(
        f"Protocol: per configuration, ARX's block then ours"
        f"{' (ours in a fresh process each)' if args.fresh else ''}; median of {args.runs} runs after "
        f"{args.warmup} warm-ups; CPU ms. Machine: {os.cpu_count()} cores, Python "
        f"{sys.version.split()[0]}; commit {commit}."
    )
    loaded: dict[str, Loaded | str] = {}
    rows: list[dict[str, Any]] = []
    guard = MemoryGuard(args.max_rss_gb * 1024)
    try:
        for config in args.configs:
            if config.dataset not in loaded:
                loaded[config.dataset] = load_dataset(DATASETS[config.dataset], heldout)
            data = loaded[config.dataset]
            if isinstance(data, str):
                print(f"{config.id:10s} skipped: {data}")
                continue
            qis, roles = roles_of(config, list(data.frame.columns))
            paths = {a: data.paths[a] for a in hierarchy_attributes(config, qis)}
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            arx_res = None
            if arx is not None:
                arx_res = arx.run(spec_line(config, data.csv, paths, roles, args.warmup, args.runs))
            with arx.paused() if arx is not None else contextlib.nullcontext():
                time.sleep(SETTLE_S if arx is not None else 0)  # the JVM's threads stop first
                if args.fresh:
                    ours = fresh_ours(config, args)
                else:
                    ours = run_ours(config, data, args.warmup, args.runs, guard)
            row = row_of(config, arx_res, ours)
            row["load_average"] = load
            rows.append(row)
            a = arx_res or {}
            print(
                f"{config.id:10s} load {load}  ARX {_fmt(a.get('cpu_ms'))} ms  ours "
                f"{_fmt(ours.get('cpu_ms'))} ms (wall {_fmt(ours.get('wall_ms'))})  ratio "
                f"{_fmt(row['ratio_cpu'], 2)}  same optimum: {row['identical']}  peak MiB: "
                f"ARX heap {_fmt(a.get('peak_heap_mib'))}, ours RSS {_fmt(ours.get('peak_rss_mib'))}"
                + (
                    f" (fresh process: {_fmt(ours.get('import_rss_mib'))} after imports, "
                    f"{_fmt(ours.get('data_rss_mib'))} with the data read)"
                    if args.fresh
                    else ""
                ),
                flush=True,
            )
    finally:
        if arx is not None:
            arx.close()
    print_table(rows)
    ratios = [r["ratio_cpu"] for r in rows if r["ratio_cpu"] is not None]
    if ratios:
        worst = max(rows, key=lambda r: r["ratio_cpu"] or 0)
        print(f"\nworst ratio {worst['ratio_cpu']:.2f} ({worst['id']}); best {min(ratios):.2f}")
    different = [r["id"] for r in rows if r["ratio_cpu"] is not None and r["identical"] != "yes"]
    stopped = [r["id"] for r in rows if "stopped" in r["ours"]]
    if stopped:
        print(f"ours stopped (memory guard): {', '.join(stopped)}")
    if different:
        print(f"optima NOT identical to ARX's: {', '.join(different)}")
    if args.json:
        inputs = [d.csv for d in loaded.values() if isinstance(d, Loaded)]
        write_json(
            Path(args.json),
            {"commit": commit, "runs": args.runs, "warmup": args.warmup, "rows": rows},
            inputs,
        )
    return 1 if different or stopped else 0


if __name__ == "__main__":
    sys.exit(main())
