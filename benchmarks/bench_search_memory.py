"""Fixed cost and memory of the optimal search, end to end, on a large synthetic table.

The table is CUP-like (the KDD Cup 98 extract ARX benchmarks on): 63,000 rows,
a ZIP code with a 5-level hierarchy of 100,000 leaves, age, gender, income,
state and number of gifts as quasi-identifiers, and an amount with 814
distinct values as the sensitive attribute (with a 5-level hierarchy for
hierarchical t-closeness). It is generated with a fixed seed into a temporary
folder as CSV files (data and ARX-format hierarchies), so each run reads,
parses, encodes and searches exactly as a user's run would.

Every case runs in a fresh process (peak RSS is per case: ``ru_maxrss``);
the process is stopped when its resident set passes ``--max-rss`` (GB) so a
regression cannot take the machine down. CPU is ``time.process_time`` of the
whole case: reading the CSV and the hierarchy files, building the problem
(encoding, hierarchy encoding, frequency table) and the search. The load
average is printed before and after, since other jobs share the CPUs.

A second block times Adult's configurations A and B (k=2 and k=5, no
suppression) end to end in one warm process, split into reading the files,
building the problem and searching (median CPU of ``--repeat`` runs after
two warm-ups), when ../shared/data/adult is present.

    python benchmarks/bench_search_memory.py [--cases all|name,...] [--max-rss 6] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ROWS = 63_000
ZIP_LEAVES = 100_000
SENSITIVE_VALUES = 814
K5 = {"model": "k-anonymity", "k": 5}
S = "amount"
#: name -> (privacy models, suppression limit)
CASES = {
    "k5-0%": ([K5], 0.0),
    "k5-5%": ([K5], 0.05),
    "distinct-3": ([K5, {"model": "distinct-l-diversity", "attribute": S, "l": 3}], 0.05),
    "recursive-4-3": (
        [K5, {"model": "recursive-cl-diversity", "attribute": S, "c": 4, "l": 3}],
        0.05,
    ),
    "equal-t-0.2": ([K5, {"model": "equal-distance-t-closeness", "attribute": S, "t": 0.2}], 0.05),
    "hierarchical-t-0.2": (
        [K5, {"model": "hierarchical-distance-t-closeness", "attribute": S, "t": 0.2}],
        0.05,
    ),
}
QIS = ["zip", "age", "gender", "income", "state", "gifts"]


def generate(folder: Path, seed: int = 0) -> None:
    """Write data.csv and one ARX-format hierarchy file per QI and the sensitive attribute."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    # ZIP: 100,000 leaves masked right to left (12345, 1234*, 123**, 1****, *); the data
    # draws from a skewed subset, as donors cluster in some regions.
    leaves = np.array([f"{i:05d}" for i in range(ZIP_LEAVES)], dtype=object)
    zip_rows = np.column_stack(
        [
            leaves,
            [z[:4] + "*" for z in leaves],
            [z[:3] + "**" for z in leaves],
            [z[:1] + "****" for z in leaves],
            np.full(ZIP_LEAVES, "*", dtype=object),
        ]
    )
    weight = rng.pareto(1.2, ZIP_LEAVES) + 1e-3
    zips = leaves[rng.choice(ZIP_LEAVES, ROWS, p=weight / weight.sum())]

    def intervals(values: list[int], widths: list[int]) -> list[list[str]]:
        rows = []
        for v in values:
            row = [str(v)]
            for w in widths:
                lo = (v // w) * w
                row.append(f"[{lo}-{lo + w})")
            rows.append(row + ["*"])
        return rows

    ages = rng.integers(18, 99, ROWS)
    genders = rng.choice(["M", "F", "U", "J"], ROWS, p=[0.42, 0.52, 0.05, 0.01])
    incomes = rng.integers(1, 8, ROWS)
    states = rng.choice([f"S{i:02d}" for i in range(57)], ROWS)
    gifts = np.minimum(rng.geometric(0.08, ROWS), 237)
    # Amount: 814 distinct values drawn lognormally (most gifts are small).
    pool = np.unique(np.round(rng.lognormal(4.0, 1.2, 20_000)).astype(int) + 1)[:SENSITIVE_VALUES]
    assert len(pool) == SENSITIVE_VALUES, len(pool)
    rank = np.minimum(rng.geometric(0.01, ROWS) - 1, SENSITIVE_VALUES - 1)
    amounts = pool[rank]

    pd.DataFrame(
        {
            "zip": zips,
            "age": ages,
            "gender": genders,
            "income": incomes,
            "state": states,
            "gifts": gifts,
            S: amounts,
        }
    ).to_csv(folder / "data.csv", sep=";", index=False)

    def write(name: str, rows) -> None:
        pd.DataFrame(rows).to_csv(
            folder / f"hierarchy_{name}.csv", sep=";", header=False, index=False
        )

    write("zip", zip_rows)
    write("age", intervals(list(range(18, 99)), [5, 10, 20]))
    write("gender", [[g, "*"] for g in ["M", "F", "U", "J"]])
    write("income", [[str(i), "low" if i <= 3 else "high", "*"] for i in range(1, 8)])
    write("state", [[f"S{i:02d}", f"R{i // 10}", "*"] for i in range(57)])
    write("gifts", intervals(list(range(1, 238)), [10, 50]))
    write(S, intervals(sorted(int(v) for v in pool), [10, 100, 1000]))


def run_case(folder: Path, name: str) -> dict:
    """One case in this process: read, build, search; CPU and peak RSS."""
    import resource

    from anon_core import Hierarchy, Problem, load_table, make_model

    models, limit = CASES[name]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c0 = time.process_time()
    frame = load_table(folder / "data.csv").frame
    hierarchies = {a: Hierarchy.from_csv(folder / f"hierarchy_{a}.csv", name=a) for a in [*QIS, S]}
    c1 = time.process_time()
    roles = {q: "quasi-identifier" for q in QIS}
    roles[S] = "sensitive" if any(m.get("attribute") == S for m in models) else "insensitive"
    problem = Problem(frame, roles, hierarchies, [make_model(m) for m in models], limit)
    c2 = time.process_time()
    result = problem.search()
    c3 = time.process_time()
    opt = result.optimum
    return {
        "case": name,
        "read_ms": (c1 - c0) * 1e3,
        "build_ms": (c2 - c1) * 1e3,
        "search_ms": (c3 - c2) * 1e3,
        "cpu_ms": (c3 - c0) * 1e3,
        "rss_before_mb": rss0 / 1024,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "optimum": None if opt is None else list(opt.levels),
        "quality": None if opt is None else opt.quality.value,
        "checked": result.nodes_checked,
        "lattice": result.lattice_size,
    }


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def spawn(folder: Path, name: str, max_rss_gb: float, timeout: float) -> dict:
    """Run one case in a fresh process, stopping it past ``max_rss_gb`` or ``timeout`` seconds."""
    cmd = [sys.executable, __file__, "--child", name, "--data", str(folder)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    t0, peak = time.monotonic(), 0.0
    while proc.poll() is None:
        peak = max(peak, _rss_mb(proc.pid))
        if peak > max_rss_gb * 1024 or time.monotonic() - t0 > timeout:
            proc.kill()
            proc.wait()
            why = "memory" if peak > max_rss_gb * 1024 else "time"
            return {
                "case": name,
                "stopped": why,
                "peak_rss_mb": peak,
                "wall_s": time.monotonic() - t0,
            }
        time.sleep(0.05)
    out = proc.stdout.read() if proc.stdout else ""
    if proc.returncode != 0:
        return {"case": name, "stopped": f"exit {proc.returncode}", "peak_rss_mb": peak}
    return json.loads(out.strip().splitlines()[-1])


def adult_fixed_cost(repeat: int) -> None:
    """Adult A and B end to end in one warm process: read files, build, search (median CPU)."""
    from anon_core import Hierarchy, Problem, load_table, make_model
    from benchmarks.common import ADULT

    reference = ADULT.parent / "arx_reference.json"
    if not (ADULT / "adult.csv").is_file() or not reference.is_file():
        print("\nAdult: ../shared/data/adult is not beside the checkout; skipped.")
        return
    order = json.loads(reference.read_text())["attribute_order"]
    print(f"\nAdult end to end, median CPU ms of {repeat} runs after 2 warm-ups (one warm process)")
    print(
        f"{'':3s}{'read files':>11s}{'build':>8s}{'search':>8s}{'build+search':>14s}{'total':>8s}"
    )
    for letter, k in (("A", 2), ("B", 5)):

        def once(k: int = k) -> tuple[float, float, float]:
            c0 = time.process_time()
            frame = load_table(ADULT / "adult.csv").frame
            hs = {a: Hierarchy.from_csv(ADULT / f"adult_hierarchy_{a}.csv") for a in order}
            c1 = time.process_time()
            problem = Problem(
                frame[order],
                {a: "quasi-identifier" for a in order},
                hs,
                [make_model({"model": "k-anonymity", "k": k})],
                0.0,
            )
            c2 = time.process_time()
            problem.search()
            c3 = time.process_time()
            return (c1 - c0) * 1e3, (c2 - c1) * 1e3, (c3 - c2) * 1e3

        for _ in range(2):
            once()
        runs = [once() for _ in range(repeat)]
        med = [statistics.median(r[i] for r in runs) for i in range(3)]
        both = statistics.median(r[1] + r[2] for r in runs)
        total = statistics.median(sum(r) for r in runs)
        print(f"{letter:3s}{med[0]:11.1f}{med[1]:8.1f}{med[2]:8.1f}{both:14.1f}{total:8.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="all", help=f"comma-separated of {', '.join(CASES)}")
    parser.add_argument("--max-rss", type=float, default=6.0, help="stop a case past this many GB")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="stop a case after this many s"
    )
    parser.add_argument("--repeat", type=int, default=7, help="Adult runs per configuration")
    parser.add_argument("--no-adult", action="store_true", help="skip the Adult block")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(Path(args.data), args.child)))
        return 0
    names = list(CASES) if args.cases == "all" else [c.strip() for c in args.cases.split(",")]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"error: unknown case(s) {unknown}; choose from {list(CASES)}", file=sys.stderr)
        return 2
    print(f"load average before: {os.getloadavg()}  (CPUs: {os.cpu_count()})")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        generate(folder)
        print(
            f"CUP-like table: {ROWS:,} rows, ZIP hierarchy of {ZIP_LEAVES:,} leaves, "
            f"{SENSITIVE_VALUES} sensitive values; one fresh process per case"
        )
        head = (
            f"{'case':20s}{'read ms':>9s}{'build ms':>10s}{'search ms':>11s}{'CPU ms':>9s}"
            f"{'peak RSS MB':>13s}{'checked':>9s}  optimum"
        )
        print(head)
        print("-" * len(head))
        for name in names:
            r = spawn(folder, name, args.max_rss, args.timeout)
            if "stopped" in r:
                print(f"{name:20s} stopped ({r['stopped']}) at {r['peak_rss_mb']:.0f} MB resident")
                continue
            print(
                f"{name:20s}{r['read_ms']:9.0f}{r['build_ms']:10.0f}{r['search_ms']:11.0f}"
                f"{r['cpu_ms']:9.0f}{r['peak_rss_mb']:13.0f}{r['checked']:9d}  "
                f"{r['optimum']} {r['quality']}"
            )
    if not args.no_adult:
        adult_fixed_cost(args.repeat)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
