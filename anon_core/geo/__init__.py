"""Geocoded point data (home addresses as latitude/longitude): the ``geo`` section, geomasking,
spatial risk and spatial utility.

* :mod:`anon_core.geo.section`: the configuration's ``geo`` section and the coordinate checks;
* :mod:`anon_core.geo.sphere`: great-circle distances, destination points, 3-D unit vectors;
* :mod:`anon_core.geo.grid`: projections and grid/H3 cells (pyproj and h3 when installed);
* :mod:`anon_core.geo.masking`: the displacement algorithms (Gaussian, donut, adaptive donut,
  location swap, aggregation);
* :mod:`anon_core.geo.risk`: spatial k-anonymity and nearest-neighbour re-identification;
* :mod:`anon_core.geo.balls`: exact compiled ball counts behind spatial k;
* :mod:`anon_core.geo.utility`: displacement, nearest-neighbour index, Ripley's L, hot-spot
  recovery;
* :mod:`anon_core.geo.hierarchy`: the geo-grid and h3 hierarchies of a location quasi-identifier;
* :mod:`anon_core.geo.polygons`: the polygons hierarchy (an uploaded GeoJSON layer);
* :mod:`anon_core.geo.location`: the ``geo`` section's pair or point column as ONE location
  quasi-identifier.
"""
