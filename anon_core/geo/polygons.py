"""A polygon layer (districts, regions) as the hierarchy of a location quasi-identifier.

```json
"geo": {"latitude": "lat", "longitude": "lon",
        "hierarchy": {"builder": "polygons", "layer": "districts.geojson",
                      "name_property": "name", "parent_property": "parent"}}
```

The layer is a GeoJSON FeatureCollection of Polygon/MultiPolygon features in WGS84 longitude,
latitude: a file, or the FeatureCollection itself inline as ``layer`` (the dashboard's upload).
Each feature has a unique name (``name_property``) and may name its parent (``parent_property``):
a district names its region, a region its country. The finest level is the features nobody names
as a parent (the leaves); each point gets the leaf that covers it (point-in-polygon with
shapely's STRtree, boundary included; where leaves overlap, the first in the file), then its parent's name, the grandparent's, ..., then ``*``. Parents need no geometry
of their own (a name is enough); every leaf must have the same number of ancestors, so the levels
nest evenly.

A point in no leaf is one error naming how many locations that is and the fix, unless
``outside`` gives a label: such points are then released under that label at every level.

Input cost is bounded before anything is parsed: the file's size (:data:`MAX_LAYER_BYTES`), the
number of features (:data:`MAX_FEATURES`), their vertices (:data:`MAX_VERTICES`) and the depth
of the parent chain (:data:`MAX_DEPTH`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anon_core.data.builders import register_builder
from anon_core.data.hierarchy import Hierarchy
from anon_core.errors import ConfigError, HierarchyError
from anon_core.geo.grid import INSTALL, have
from anon_core.geo.hierarchy import TOP, parse_points, split_missing

MAX_LAYER_BYTES = 20 * 1024 * 1024
MAX_FEATURES = 20_000
MAX_VERTICES = 2_000_000
MAX_DEPTH = 8
SIMPLIFY = "simplify or clip the layer first (e.g. mapshaper -simplify 10%)"


def resolve_layer(path: Any, base: Path | None) -> str:
    """The layer's path resolved against the configuration's folder; ConfigError if absent."""
    if not isinstance(path, str) or not path.strip():
        raise ConfigError(
            "'geo.hierarchy.layer' must name a GeoJSON file of polygons, e.g. "
            '"layer": "districts.geojson".'
        )
    p = Path(path)
    if not p.is_absolute() and base is not None:
        p = Path(base) / p
    if not p.is_file():
        raise ConfigError(
            f"'geo.hierarchy.layer' is {path!r}, which is not found at {str(p)!r}; put the "
            "GeoJSON file there (relative paths resolve against the configuration's folder)."
        )
    return str(p)


def _vertices(coords: Any, depth: int = 0) -> int:
    if depth > 4 or not isinstance(coords, list):
        raise HierarchyError("not a list of coordinates")
    if coords and isinstance(coords[0], int | float):
        return 1
    return sum(_vertices(c, depth + 1) for c in coords)


def read_layer(
    path: str | Path | Mapping[str, Any],
    name_property: str = "name",
    parent_property: str = "parent",
) -> tuple[list[str], list[Any], dict[str, str | None]]:
    """(leaf names, leaf geometries, name -> parent name) of a GeoJSON layer, with the bounds and
    checks of the module doc; one HierarchyError naming what is wrong and the fix."""
    if not have("shapely"):
        raise HierarchyError(f"The 'polygons' builder needs shapely, not installed: {INSTALL}.")
    from shapely import make_valid
    from shapely.geometry import shape

    inline = isinstance(path, Mapping)  # a layer given in the configuration (an upload)
    p = Path("layer (inline)") if inline else Path(path)
    size = len(json.dumps(path)) if inline else p.stat().st_size
    if size > MAX_LAYER_BYTES:
        raise HierarchyError(
            f"The polygon layer {p.name} is {size / 2**20:.1f} MB, more than the limit of "
            f"{MAX_LAYER_BYTES / 2**20:g} MB; {SIMPLIFY}."
        )
    try:
        data = path if inline else json.loads(p.read_bytes())
    except (ValueError, UnicodeDecodeError):
        raise HierarchyError(
            f"The polygon layer {p.name} is not valid JSON; export it as GeoJSON (a "
            "FeatureCollection)."
        ) from None
    features = data.get("features") if isinstance(data, Mapping) else None
    if not isinstance(features, list) or not features:
        raise HierarchyError(
            f"The polygon layer {p.name} is not a GeoJSON FeatureCollection with features; "
            "export it as GeoJSON."
        )
    if len(features) > MAX_FEATURES:
        raise HierarchyError(
            f"The polygon layer {p.name} has {len(features):,} features, more than "
            f"{MAX_FEATURES:,}; keep only the areas needed or {SIMPLIFY}."
        )
    parents: dict[str, str | None] = {}
    geometries: dict[str, Any] = {}
    vertices = 0
    for i, feature in enumerate(features):
        props = (feature.get("properties") if isinstance(feature, Mapping) else None) or {}
        name = props.get(name_property)
        if not isinstance(name, str) or not name.strip():
            raise HierarchyError(
                f"Feature {i + 1} of {p.name} has no text property {name_property!r}; give every "
                "feature its name there, or set 'name_property' to the property that holds it."
            )
        if name in parents:
            raise HierarchyError(
                f"The name {name!r} is given to more than one feature of {p.name}; merge them "
                "into one MultiPolygon or give them different names."
            )
        parent = props.get(parent_property)
        parents[name] = str(parent) if parent not in (None, "") else None
        geometry = feature.get("geometry")
        if geometry is None:
            continue  # a parent level given by name only
        kind = geometry.get("type") if isinstance(geometry, Mapping) else None
        if kind not in ("Polygon", "MultiPolygon"):
            raise HierarchyError(
                f"Feature {name!r} of {p.name} is a {kind}, not a Polygon or MultiPolygon; the "
                "layer must hold areas."
            )
        try:
            vertices += _vertices(geometry.get("coordinates"))
        except HierarchyError:
            raise HierarchyError(
                f"Feature {name!r} of {p.name} has malformed coordinates; export the layer as "
                "GeoJSON again."
            ) from None
        if vertices > MAX_VERTICES:
            raise HierarchyError(
                f"The polygon layer {p.name} has more than {MAX_VERTICES:,} vertices; {SIMPLIFY}."
            )
        geom = shape(geometry)
        geometries[name] = geom if geom.is_valid else make_valid(geom)
    named_parents = {v for v in parents.values() if v is not None}
    leaves = [n for n in parents if n not in named_parents]
    missing = [n for n in leaves if n not in geometries]
    if missing:
        raise HierarchyError(
            f"{len(missing):,} finest-level feature(s) of {p.name} have no geometry (e.g. "
            f"{missing[0]!r}); every area nobody names as a parent needs its polygon."
        )
    return leaves, [geometries[n] for n in leaves], parents


def chain(name: str, parents: Mapping[str, str | None], layer: str) -> list[str]:
    """``name`` and its ancestors' names, finest first."""
    out = [name]
    while (parent := parents.get(out[-1])) is not None:
        out.append(parent)
        if len(out) > MAX_DEPTH:
            raise HierarchyError(
                f"The parents of {name!r} in {layer} go deeper than {MAX_DEPTH} levels (a loop?); "
                "check the parent property."
            )
    return out


def leaf_of_points(lat: np.ndarray, lon: np.ndarray, geometries: Sequence[Any]) -> np.ndarray:
    """Index of the first leaf covering each point (boundary included), -1 for none."""
    import shapely

    tree = shapely.STRtree(list(geometries))
    points = shapely.points(np.asarray(lon, float), np.asarray(lat, float))
    hit_point, hit_leaf = tree.query(points, predicate="covered_by")
    out = np.full(len(points), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(out, hit_point, hit_leaf.astype(np.int64))
    out[out == np.iinfo(np.int64).max] = -1
    return out


def polygon_hierarchy(
    values: Sequence[Any] | np.ndarray,
    name: str = "",
    layer: Any = None,
    name_property: str = "name",
    parent_property: str = "parent",
    outside: str | None = None,
) -> Hierarchy:
    """Leaf polygon, its parents, then ``*`` for each point (see the module doc)."""
    if layer is None:
        raise HierarchyError(
            f"'{name}.hierarchy.layer' is missing: name the GeoJSON file of polygons."
        )
    if outside is not None and (not isinstance(outside, str) or not outside.strip()):
        raise HierarchyError(f"'{name}.hierarchy.outside' must be a label such as \"outside\".")
    layer_name = "layer (inline)" if isinstance(layer, Mapping) else Path(str(layer)).name
    leaves, geometries, parents = read_layer(layer, name_property, parent_property)
    chains = [chain(leaf, parents, layer_name) for leaf in leaves]
    depths = sorted({len(c) for c in chains})
    if len(depths) > 1:
        short = next(c for c in chains if len(c) == depths[0])
        long = next(c for c in chains if len(c) == depths[-1])
        raise HierarchyError(
            f"The levels of {layer_name} do not nest evenly: {short[0]!r} has {depths[0] - 1} "
            f"level(s) above it and {long[0]!r} {depths[-1] - 1}; give every finest area a "
            f"parent at each level ({parent_property!r})."
        )
    distinct, missing = split_missing(values)
    lat, lon = parse_points(distinct, name)
    leaf = leaf_of_points(lat, lon, geometries)
    none = int((leaf < 0).sum())
    if none and outside is None:
        raise HierarchyError(
            f"{none:,} distinct location(s) of {name!r} lie in no polygon of {layer_name}; "
            "extend the layer to cover them, remove those rows, or set 'outside' to a label "
            '(e.g. "outside") to release them under it.'
        )
    width = depths[0]
    rows = [
        [str(v), *(chains[i] if i >= 0 else [str(outside)] * width), TOP]
        for v, i in zip(distinct, leaf.tolist(), strict=True)
    ]
    if missing:
        from anon_core.data.io import MISSING

        rows.append([MISSING] * (width + 1) + [TOP])
    return Hierarchy(np.array(rows, dtype=object), name=name)


register_builder(
    "polygons", polygon_hierarchy, {"layer", "name_property", "parent_property", "outside"}
)
