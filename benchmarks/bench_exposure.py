"""CPU of the exposure of the 1% most vulnerable records, the evidence's step, on Adult's rehearsal
part and on the hospital sample.

Adult: the configuration of ``bench_evidence.py`` (generalization, k = 5, seven quasi-identifiers,
occupation sensitive), released and rehearsed through the Session; the hospital sample: the
dashboard's default configuration of it. Timed: the ranking alone (``vulnerable_records``) and
the whole step (``exposure_evidence``: ranking, singled out, linked, inferred), twice each; the
first run of a process also loads the compiled kernel. CPU seconds of this process beside wall
seconds, with the machine's load average at the start.

Run: ``python benchmarks/bench_exposure.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anon_core.attacks.vulnerable import vulnerable_records  # noqa: E402
from anon_core.data.dataset import Role  # noqa: E402
from anon_core.methods.registry import make_context  # noqa: E402
from anon_core.services.compare import config_hierarchies  # noqa: E402
from anon_core.services.session import Session  # noqa: E402
from anon_core.services.shadow_evidence import exposure_evidence  # noqa: E402
from anon_core.workspace import Workspace  # noqa: E402
from benchmarks.bench_evidence import _config  # noqa: E402
from benchmarks.common import ROOT, load_adult, load_table  # noqa: E402


def _clock(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.process_time() - c0, time.perf_counter() - w0, out


def measure(label: str, session: Session) -> None:
    _, config = session.prepared()
    release = session.release()
    part, _, _, seed = session.rehearsal_split()
    rehearsed = session._rehearsal_table(release, part)
    qis = [c for c, r in config.roles.items() if r == Role.QUASI_IDENTIFIER and c in release.table]
    sensitive = [c for c, r in config.roles.items() if r == Role.SENSITIVE]
    secrets = list(session.attack_section().secret or sensitive)
    hierarchies = config_hierarchies(config, part)
    roles = make_context(part, config).roles
    for run in (1, 2):
        cpu_r, wall_r, _ = _clock(lambda: vulnerable_records(part, qis, top=0))
        cpu, wall, (exposed, _) = _clock(
            lambda: exposure_evidence(
                part,
                rehearsed,
                qis,
                secrets=secrets,
                roles=roles,
                hierarchies=hierarchies,
                seed=seed,
            )
        )
        print(
            f"{label:9s} {len(part):6,} records, run {run}: ranking {cpu_r:5.2f} s CPU "
            f"({wall_r:5.2f} wall); exposure step {cpu:5.2f} s CPU ({wall:5.2f} wall); {exposed}"
        )


def main() -> None:
    load = os.getloadavg()
    print(f"machine load {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min)")
    adult = load_adult()
    if adult is not None:
        measure("Adult", Session.open(_config(None), adult[0]))
    hospital = load_table(ROOT / "sample_data" / "hospital_discharge.csv").frame
    ws = Workspace.from_frame(hospital, "hospital_discharge.csv")
    measure("hospital", Session.from_workspace(ws))


if __name__ == "__main__":
    main()
