"""Donut masking against MaskMyPy's donut, end to end, same points, same run.

    python benchmarks/bench_geo_maskmypy.py [--sizes 100000,1000000] [--venv DIR] [--repeats 3]

MaskMyPy 1.1.0 (BSD-3) runs in its own virtual environment (default ``.venv-maskmypy``,
gitignored; created with ``maskmypy==1.1.0`` from the package index when missing), because it
pins geopandas 0.14 / numpy 1.26, which cannot live beside the project's numpy 2.0.2. Its donut
needs no network (its street snapping, off here, downloads OpenStreetMap data).

Both sides start from the same latitude/longitude table in memory (the seeded points of
``sample_data/generate_geo.py``, synthetic) and end with masked latitude/longitude arrays:

* **ours**: the ``geomask-donut`` release method (50-500 m, geodesic displacement on the
  sphere);
* **MaskMyPy**: a GeoDataFrame of the points, projected to the UTM zone of their centre (MaskMyPy
  displaces in the units of the CRS, so it needs metres), ``donut(low=50, high=500, seed=0)``,
  projected back to WGS84.

Each side is timed in a warm process (imports and one small warm-up run not timed), median of
``--repeats`` runs, CPU beside wall; the load average is printed with each size. As a check of
the output, the share of displacements outside [50, 500] m is printed for both (haversine).
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sample_data"))

from generate_geo import generate  # noqa: E402

from anon_core.config import parse_config  # noqa: E402
from anon_core.methods import make_method  # noqa: E402
from anon_core.methods.registry import make_context  # noqa: E402

VENV = ROOT / ".venv-maskmypy"
LOW, HIGH = 50.0, 500.0
R = 6_371_008.8

# Runs inside MaskMyPy's venv: reads the points, times repeats, writes the last masked points.
MASKMYPY_RUNNER = r"""
import json, statistics, sys, time
import geopandas as gpd, numpy as np, pandas as pd
from maskmypy import donut
src, dst, repeats, low, high = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
frame = pd.read_csv(src)
def run(f):
    gdf = gpd.GeoDataFrame(f, geometry=gpd.points_from_xy(f["lon"], f["lat"]), crs="EPSG:4326")
    lon0, lat0 = float(f["lon"].mean()), float(f["lat"].mean())
    zone = int((lon0 + 180) // 6) + 1
    utm = f"EPSG:{32600 + zone if lat0 >= 0 else 32700 + zone}"
    masked = donut(gdf.to_crs(utm), low=low, high=high, seed=0).to_crs("EPSG:4326")
    return masked.geometry.y.to_numpy(), masked.geometry.x.to_numpy()
run(frame.head(1000))
walls, cpus = [], []
for _ in range(repeats):
    c0, w0 = time.process_time(), time.perf_counter()
    lat, lon = run(frame)
    walls.append(time.perf_counter() - w0); cpus.append(time.process_time() - c0)
np.save(dst, np.column_stack([lat, lon]))
print(json.dumps({"wall": statistics.median(walls), "cpu": statistics.median(cpus)}))
"""


def ensure_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import maskmypy, geopandas"]
    if python.is_file() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"creating {venv} with maskmypy==1.1.0 (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "maskmypy==1.1.0"], check=True)
    return python


def haversine(lat1, lon1, lat2, lon2) -> np.ndarray:
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(lon2 - lon1)
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * R * np.arcsin(np.sqrt(np.clip(a, 0, 1)))


def outside_share(frame, lat, lon) -> float:
    d = haversine(frame["lat"].to_numpy(), frame["lon"].to_numpy(), lat, lon)
    return float(np.mean((d < LOW - 0.5) | (d > HIGH + 0.5)))


def ours(frame, repeats: int):
    config = parse_config(
        {
            "attributes": {"lat": {"role": "quasi-identifier"}},
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
            "geo": {"latitude": "lat", "longitude": "lon"},
        },
        ".",
    )
    method = make_method({"name": "geomask-donut", "min_distance_m": LOW, "max_distance_m": HIGH})

    def run(f):
        out = method.release(f, make_context(f, config), random_state=0).table
        return out["lat"].to_numpy(), out["lon"].to_numpy()

    run(frame.head(1000).reset_index(drop=True))
    walls, cpus = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        lat, lon = run(frame)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), lat, lon


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--venv", type=Path, default=VENV)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    python = ensure_venv(args.venv)
    print(f"CPUs: {os.cpu_count()}; median of {args.repeats} runs, warm processes")
    header = f"{'n':>9} {'side':<10} {'wall s':>8} {'cpu s':>8} {'outside [50,500] m':>19}"
    print(header + f" {'cpu ratio ours/theirs':>22} load")
    for n in (int(s) for s in args.sizes.split(",")):
        frame = generate(n, seed=1)[["lat", "lon"]].reset_index(drop=True)
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "points.csv", Path(tmp) / "masked.npy"
            frame.to_csv(src, index=False, float_format="%.7f")
            frame = frame.__class__(
                {"lat": frame["lat"].round(7), "lon": frame["lon"].round(7)}
            )  # the same values MaskMyPy reads
            w, c, lat, lon = ours(frame, args.repeats)
            load = os.getloadavg()[0]
            print(
                f"{n:>9,} {'ours':<10} {w:>8.2f} {c:>8.2f} {outside_share(frame, lat, lon):>19.4f}"
            )
            done = subprocess.run(
                [
                    str(python),
                    "-c",
                    MASKMYPY_RUNNER,
                    str(src),
                    str(dst),
                    str(args.repeats),
                    str(LOW),
                    str(HIGH),
                ],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(f"MaskMyPy failed: {done.stderr.strip().splitlines()[-1:]}")
                return 1
            theirs = json.loads(done.stdout.strip().splitlines()[-1])
            masked = np.load(dst)
            share = outside_share(frame, masked[:, 0], masked[:, 1])
            print(
                f"{n:>9,} {'MaskMyPy':<10} {theirs['wall']:>8.2f} {theirs['cpu']:>8.2f} "
                f"{share:>19.4f} {c / theirs['cpu']:>22.3f} {load:.1f}-{os.getloadavg()[0]:.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
