"""A Parquet release of a Parquet file through Arrow dictionary arrays: no string is built per row.

Parquet files store text columns dictionary-encoded. Read that way (``read_dictionary``),
a generalized column is its indices with a new, tiny dictionary: each distinct raw value is
mapped once to its generalized label, suppressed rows point at ``*``, and Parquet writes the
indices and the dictionary as they are. Kept columns pass through in the same form, so the
release costs a little integer work per row instead of a string per cell. Row groups are
read and written in file order, one at a time, so memory stays bounded by a row group.

The engines' Arrow-batch fallback shares the pieces: :func:`codes` (a QI's generalized code
per row) and :class:`BatchWriter` (batches to one Parquet or CSV file).
"""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from anon_core.data.io import MISSING, escape_formulas, to_labels
from anon_core.errors import DataError
from anon_core.release.engines.base import (
    Progress,
    ReleasePlan,
    TableSource,
    escape_names,
    no_progress,
)
from anon_core.release.plan import SUPPRESSED

#: Rows read and written per batch.
BATCH_ROWS = 250_000
#: Largest class-key space looked up through a flag per key (bytes of memory).
MAX_FLAGS = 1 << 26


def supported(source: TableSource, plan: ReleasePlan) -> bool:
    """Is this release one this writer covers (a Parquet file, every QI mapped by label)?"""
    if source.format != "parquet" or source.path.is_dir():
        return False
    return all(
        c.leaf_code and c.labels is not None for c in plan.columns if c.action == "generalize"
    )


def write(
    source: TableSource, plan: ReleasePlan, tmp: Path, progress: Progress = no_progress
) -> int:
    """Write the release of ``source`` to ``tmp`` (Parquet, zstd); the number of rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = pq.ParquetFile(source.path)
    keep = [c for c in plan.columns if c.action != "drop"]
    schema = file.schema_arrow
    text = [
        c.name
        for c in keep
        if pa.types.is_string(schema.field(c.name).type)
        or pa.types.is_large_string(schema.field(c.name).type)
    ]
    file = pq.ParquetFile(source.path, read_dictionary=text)
    supp_keys = plan.suppressed_keys
    radices = plan.radices
    span = int(np.prod(radices.astype(float)))
    # Suppressed classes as a bit per class key (one lookup per row) where the key space is small.
    flags = None
    if len(supp_keys) and span <= MAX_FLAGS:
        flags = np.zeros(span, dtype=bool)
        flags[supp_keys] = True
    gen = {c.name: c for c in keep if c.action == "generalize"}
    writer = None
    rows = 0
    # The writer (Arrow's C++, GIL released) writes batch i while batch i + 1 is read and mapped.
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="anon-parquet")
    pending = None
    try:
        for batch in file.iter_batches(batch_size=BATCH_ROWS, columns=[c.name for c in keep]):
            codes_of = {q: codes(batch.column(q), gen[q]) for q in plan.qis}
            if len(supp_keys):
                key = np.zeros(batch.num_rows, dtype=np.int64)
                for q, r in zip(plan.qis, radices, strict=True):
                    key *= int(r)
                    key += codes_of[q]
                suppressed = flags[key] if flags is not None else np.isin(key, supp_keys)
            else:
                suppressed = np.zeros(batch.num_rows, dtype=bool)
            remove = plan.mode == "remove" and suppressed.any()
            arrays = []
            for c in keep:
                if c.name in gen:
                    idx = codes_of[c.name].astype(np.int32)
                    labels = [str(v) for v in gen[c.name].labels]
                    if plan.mode == "mask" and suppressed.any():
                        idx[suppressed] = len(labels)
                        labels.append(SUPPRESSED)
                    if remove:
                        idx = idx[~suppressed]
                    arr = pa.DictionaryArray.from_arrays(
                        pa.array(idx), pa.array(labels, pa.string())
                    )
                else:
                    arr = batch.column(c.name)
                    if remove:
                        arr = arr.filter(pa.array(~suppressed))
                arrays.append(arr)
            table = pa.Table.from_arrays(arrays, names=[c.name for c in keep])
            if writer is None:
                # Min/max statistics of dictionary columns would decode every string: they are
                # written for the other columns only. No Arrow schema is stored, so readers see
                # plain string columns, as from the SQL writer. Each batch is its own row group,
                # with its own dictionaries.
                plain = [f.name for f in table.schema if not pa.types.is_dictionary(f.type)]
                writer = pq.ParquetWriter(
                    tmp,
                    table.schema,
                    compression="zstd",
                    store_schema=False,
                    write_statistics=plain,
                )
            if pending is not None:
                pending.result()
            pending = pool.submit(writer.write_table, table)
            rows += table.num_rows
            progress(min(rows / max(plan.expected_rows, 1), 1.0), f"Writing {tmp.name}")
        if pending is not None:
            pending.result()
    finally:
        pool.shutdown(wait=True)
        if writer is not None:
            writer.close()
    return rows


def codes(arr, column) -> np.ndarray:
    """Generalized code of each row of one QI, each distinct value mapped once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    enc = arr if pa.types.is_dictionary(arr.type) else pc.dictionary_encode(arr)
    values = enc.dictionary.to_pandas()
    labels = to_labels(values) if len(values) else np.zeros(0, dtype=object)
    lookup = column.leaf_code
    # A file's dictionary may hold values no row uses: only a used unknown value is an error.
    dict_codes = np.fromiter((lookup.get(v, -1) for v in labels), dtype=np.int64, count=len(labels))
    indices = enc.indices
    idx = indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    out = dict_codes[idx] if len(dict_codes) else np.zeros(len(idx), dtype=np.int64)
    if indices.null_count:
        if MISSING not in lookup:
            raise DataError(
                f"{column.name!r} has missing values the frequency table did not see. Group it again."
            )
        out[indices.is_null().to_numpy(zero_copy_only=False)] = lookup[MISSING]
    if len(dict_codes) and dict_codes.min() < 0:
        unknown = out < 0
        if unknown.any():
            value = labels[idx[np.flatnonzero(unknown)[0]]]
            raise DataError(
                f"Value {value!r} of {column.name!r} is not in the frequency table: the file "
                "changed since it was grouped. Group it again."
            )
    return out


class BatchWriter:
    """Arrow batches to one file: Parquet through pyarrow; CSV through pandas with io.table_bytes'
    rules (formula escaping, every field quoted when told a cell holds a CR), so its bytes
    equal the in-memory engine's."""

    def __init__(
        self,
        path: Path,
        fmt: str,
        schema,
        formula_escape: bool = True,
        quote_all: bool = False,
        sep: str = ",",
    ) -> None:
        self.fmt = fmt
        self.escape = formula_escape
        self.quoting = csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self.w = pq.ParquetWriter(path, schema, compression="zstd")
        else:
            self.sep = sep
            self.w = path.open("w", encoding="utf-8", newline="")
            self.header = True

    def write(self, table) -> None:
        if self.fmt == "parquet":
            self.w.write_table(table)
        else:
            frame = table.to_pandas()
            frame = escape_names(escape_formulas(frame), True) if self.escape else frame
            frame.to_csv(
                self.w,
                index=False,
                sep=self.sep,
                header=self.header,
                lineterminator="\n",
                quoting=self.quoting,
            )
            self.header = False

    def close(self) -> None:
        self.w.close()
