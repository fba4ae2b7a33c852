"""Geomasking and spatial risk at scale: CPU and wall time per method against a plain-Python loop.

Points come from ``sample_data/generate_geo.py`` (six towns plus a rural scatter, seeded) at each
size. Every method runs once per size (the machine is shared: no repeats); spatial risk (spatial
k and nearest-neighbour re-identification, :func:`anon_core.geo.risk.spatial_risk`) is measured
on the Gaussian release, with hot-spot recovery and Ripley's L. The baselines are plain-Python loops (``math`` only) on 10,000 points:

* masking: a per-point donut displacement (the spherical destination formula), linear in n,
  extrapolated linearly;
* spatial risk: the brute-force count of original points closer than the true one, O(n^2); the
  loop runs 200 released points against all 10,000 originals, and the time per (point,
  original) pair is extrapolated to n^2 pairs.

The load average (os.getloadavg) is printed before and after, since other jobs share the CPUs.

With ``--location`` it times the location as ONE quasi-identifier instead: the ``geo`` section
turning the latitude/longitude pair into the location column, the H3 (9, 7, 5, 3), square-grid
(250 m, 6 levels) and polygon hierarchies on the distinct points (the polygon layer is a
synthetic 20 x 20 grid of districts in 16 regions over the points' extent, written to a
temporary folder), and the whole resolution (problem and optimal search, k = 10, location and
sex) with the H3 levels.

Run: python benchmarks/bench_geo.py [--sizes 100000,1000000] [--only NAME,..] [--no-risk]
     [--location]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sample_data"))

from generate_geo import generate  # noqa: E402

from anon_core.config import parse_config  # noqa: E402
from anon_core.geo.risk import spatial_risk  # noqa: E402
from anon_core.geo.utility import hotspot_recovery, ripley_comparison  # noqa: E402
from anon_core.methods import make_method  # noqa: E402
from anon_core.methods.registry import make_context  # noqa: E402

R = 6_371_008.8
METHODS = [
    {"name": "geomask-gaussian", "sigma_m": 250},
    {"name": "geomask-donut", "min_distance_m": 50, "max_distance_m": 500},
    {"name": "geomask-donut", "min_distance_m": 50, "max_distance_m": 300, "k": 10},
    {"name": "location-swap", "radius_m": 500},
    {"name": "geo-aggregate", "grid": "square", "cell_m": 1000},
    {"name": "geo-aggregate", "grid": "h3", "h3_resolution": 8},
]


def clock(fn, *args, **kwargs):
    c0, w0 = time.process_time(), time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - w0, time.process_time() - c0, value


def py_donut(lat, lon, lo, hi, rnd):
    out = []
    for a, b in zip(lat, lon, strict=True):
        d = math.sqrt(rnd.random() * (hi * hi - lo * lo) + lo * lo) / R
        t = rnd.random() * 2 * math.pi
        p1, l1 = math.radians(a), math.radians(b)
        p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(t))
        l2 = l1 + math.atan2(
            math.sin(t) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2)
        )
        out.append((math.degrees(p2), math.degrees(l2)))
    return out


def py_hav(a1, b1, a2, b2):
    p1, p2 = math.radians(a1), math.radians(a2)
    h = (
        math.sin((p2 - p1) / 2) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b2 - b1) / 2) ** 2
    )
    return 2 * R * math.asin(math.sqrt(min(h, 1.0)))


def py_spatial_k(olat, olon, mlat, mlon, rows):
    ks = []
    for i in rows:
        d_true = py_hav(mlat[i], mlon[i], olat[i], olon[i])
        ks.append(
            sum(1 for j in range(len(olat)) if py_hav(mlat[i], mlon[i], olat[j], olon[j]) < d_true)
        )
    return ks


def baselines() -> tuple[float, float]:
    """(seconds per point of the Python donut, seconds per pair of the Python spatial-k loop)."""
    frame = generate(10_000, seed=5)
    lat, lon = frame["lat"].tolist(), frame["lon"].tolist()
    rnd = random.Random(0)
    wall, _, masked = clock(lambda: py_donut(lat, lon, 50, 500, rnd))
    per_point = wall / len(lat)
    mlat, mlon = [m[0] for m in masked], [m[1] for m in masked]
    rows = range(200)
    wall_k, _, _ = clock(lambda: py_spatial_k(lat, lon, mlat, mlon, rows))
    per_pair = wall_k / (len(rows) * len(lat))
    print(
        f"plain-Python baseline on 10,000 points: donut {wall:.2f} s ({per_point * 1e6:.1f} us/pt); "
        f"spatial k 200 x 10,000 pairs {wall_k:.2f} s ({per_pair * 1e9:.0f} ns/pair)"
    )
    return per_point, per_pair


def polygon_layer(lat, lon, folder: Path) -> Path:
    """A 20 x 20 grid of square districts over the points' extent, nested in 4 x 4 regions."""
    import json

    lat0, lat1 = float(lat.min()) - 1e-6, float(lat.max()) + 1e-6
    lon0, lon1 = float(lon.min()) - 1e-6, float(lon.max()) + 1e-6
    dy, dx = (lat1 - lat0) / 20, (lon1 - lon0) / 20
    features = []
    for i in range(20):
        for j in range(20):
            a, b = lat0 + i * dy, lon0 + j * dx
            ring = [[b, a], [b + dx, a], [b + dx, a + dy], [b, a + dy], [b, a]]
            props = {"name": f"D{i:02d}{j:02d}", "parent": f"R{i // 5}{j // 5}"}
            geometry = {"type": "Polygon", "coordinates": [ring]}
            features.append({"type": "Feature", "properties": props, "geometry": geometry})
    path = folder / "districts.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def location_steps(n: int) -> None:
    """Time the location quasi-identifier's steps on ``n`` points (see the module doc)."""
    import tempfile

    import pandas as pd

    from anon_core.data.builders import build_hierarchy
    from anon_core.geo.location import with_location
    from anon_core.services.session import Session

    frame = generate(n, seed=1)[["lat", "lon", "sex"]]
    h3_levels = {"builder": "h3", "resolutions": [9, 7, 5, 3]}
    raw = {
        "attributes": {"sex": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 10}],
        "suppression_limit": 0.05,
        "geo": {"latitude": "lat", "longitude": "lon", "hierarchy": h3_levels},
    }
    config = parse_config(raw, ".")
    wall, cpu, table = clock(with_location, frame, config)
    print(f"{n:>9,} {'geo section: lat/lon -> one location column':<62} {wall:>8.2f} {cpu:>8.2f}")
    values = pd.unique(table["location"])
    with tempfile.TemporaryDirectory() as folder:
        layer = polygon_layer(frame["lat"], frame["lon"], Path(folder))
        for label, spec in (
            ("h3 hierarchy, resolutions 9/7/5/3", h3_levels),
            ("geo-grid hierarchy, 250 m x 6 levels", {"builder": "geo-grid", "cell_m": 250, "levels": 6}),
            ("polygons hierarchy, 400 districts in 16 regions", {"builder": "polygons", "layer": str(layer)}),
        ):  # fmt: skip
            wall, cpu, _ = clock(build_hierarchy, spec, values, "location")
            print(f"{n:>9,} {label + f' ({len(values):,} points)':<62} {wall:>8.2f} {cpu:>8.2f}")
    wall, cpu, resolution = clock(lambda: Session.open(config, frame).resolution())
    chosen = resolution.result.transformation if resolution.result else None
    print(f"{n:>9,} {'resolution: problem + optimal search (h3, k=10)':<62} {wall:>8.2f} {cpu:>8.2f}"
          f"   chosen {chosen}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--only", help="comma-separated method names to time (default: all)")
    parser.add_argument("--no-risk", action="store_true", help="skip spatial risk and hot spots")
    parser.add_argument(
        "--location", action="store_true", help="time the location quasi-identifier only"
    )
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average before: {os.getloadavg()}  (CPUs: {os.cpu_count()})")
    if args.location:
        print(f"{'n':>9} {'step':<62} {'wall s':>8} {'cpu s':>8}")
        for n in sizes:
            location_steps(n)
        print(f"load average after: {os.getloadavg()}")
        return 0
    per_point, per_pair = baselines()
    config = parse_config(
        {
            "attributes": {"lat": {"role": "quasi-identifier"}},
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
            "geo": {"latitude": "lat", "longitude": "lon"},
        },
        ".",
    )
    print(f"{'n':>9} {'step':<62} {'wall s':>8} {'cpu s':>8} {'python s (extrap.)':>19}")
    for n in sizes:
        frame = generate(n, seed=1)[["lat", "lon"]]
        context = make_context(frame, config)
        gaussian = None
        for spec in METHODS:
            if only is not None and spec["name"] not in only and spec["name"] != "geomask-gaussian":
                continue
            method = make_method(spec)
            wall, cpu, out = clock(method.release, frame, context, random_state=0)
            label = ",".join(f"{k}={v}" for k, v in spec.items() if k != "name")
            base = (
                f"{per_point * n:>19.1f}"
                if spec["name"] == "geomask-donut" and "k" not in spec
                else f"{'':>19}"
            )
            print(f"{n:>9,} {spec['name'] + ' ' + label:<62} {wall:>8.2f} {cpu:>8.2f} {base}")
            if spec["name"] == "geomask-gaussian":
                gaussian = out.table
        if args.no_risk:
            continue
        olat, olon = frame["lat"].to_numpy(), frame["lon"].to_numpy()
        rlat, rlon = gaussian["lat"].to_numpy(), gaussian["lon"].to_numpy()
        wall, cpu, risk = clock(spatial_risk, olat, olon, rlat, rlon, k=5)
        print(
            f"{n:>9,} {'spatial risk (gaussian 250 m)':<62} {wall:>8.2f} {cpu:>8.2f} "
            f"{per_pair * n * n:>19.0f}"
        )
        print(
            f"{'':>9}   spatial k min {risk.k_min}, median {risk.k_median}, share < 5 "
            f"{risk.share_below:.3f}; NN re-identification {risk.nn_share:.4f} "
            f"[{risk.nn_ci[0]:.4f}, {risk.nn_ci[1]:.4f}]"
        )
        wall, cpu, hs = clock(hotspot_recovery, olat, olon, rlat, rlon)
        print(
            f"{n:>9,} {'hot-spot recovery (50k sample, 500 m)':<62} {wall:>8.2f} {cpu:>8.2f}"
            f"   recovery {hs['recovery']}"
        )
        wall, cpu, rl = clock(ripley_comparison, olat, olon, rlat, rlon)
        print(
            f"{n:>9,} {'Ripley L, 12 radii (20k sample, exact pair counts)':<62} {wall:>8.2f} "
            f"{cpu:>8.2f}   largest |L gap| {rl['max_abs_diff_m']:.1f} m"
        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
