"""What safety costs: safe, formula-escaped writes and faithful decoding on Adult (30,162 rows).

Rows (each against its named baseline):
* CSV release: ``write_table`` (formula escaping + in-memory build + fsync + atomic rename)
  against pandas' plain ``DataFrame.to_csv(path)``;
* XLSX release: ``write_table`` (text-only cells, in memory, deterministic) against
  pandas' ``to_excel`` (openpyxl, temporary files, formulas live);
* decoding: ``load_table`` of the Adult CSV re-encoded as cp1252 (fallback, with the
  warning) against the same file in UTF-8.

Prints wall and CPU (time.process_time) medians and the ratio to the baseline.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ADULT, timed_cpu  # noqa: E402

from anon_core.data.io import load_table, write_table  # noqa: E402

REPEAT = 3


def main() -> None:
    if not (ADULT / "adult.csv").is_file():
        print("../shared/data/adult is not beside the checkout; nothing to measure.")
        return
    frame = load_table(ADULT / "adult.csv").frame
    raw_utf8 = (ADULT / "adult.csv").read_bytes()
    raw_cp1252 = raw_utf8.decode("utf-8").encode("cp1252")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows.append(
            (
                "CSV release (write_table vs to_csv)",
                timed_cpu(lambda: write_table(frame, out / "a.csv"), REPEAT),
                timed_cpu(lambda: frame.to_csv(out / "b.csv", index=False), REPEAT),
            )
        )
        rows.append(
            (
                "XLSX release (write_table vs to_excel)",
                timed_cpu(lambda: write_table(frame, out / "a.xlsx"), 1),
                timed_cpu(lambda: frame.to_excel(out / "b.xlsx", index=False), 1),
            )
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows.append(
            (
                "decode cp1252 vs UTF-8 (load_table)",
                timed_cpu(lambda: load_table(raw_cp1252, name="adult.csv"), REPEAT),
                timed_cpu(lambda: load_table(raw_utf8, name="adult.csv"), REPEAT),
            )
        )
    print(f"{'case':42} {'wall s':>8} {'cpu s':>8} {'base wall':>10} {'base cpu':>9} {'ratio':>6}")
    for name, (wall, cpu, _), (bwall, bcpu, _) in rows:
        print(f"{name:42} {wall:8.3f} {cpu:8.3f} {bwall:10.3f} {bcpu:9.3f} {wall / bwall:6.2f}")


if __name__ == "__main__":
    main()
