"""Create the anonymeter oracle's own virtual environment: /work/main/.venv-anonymeter.

anonymeter 1.x pins numpy < 1.27, which cannot live beside the project's numpy 2.0.2, so the
oracle runs in a separate venv (gitignored) with anonymeter installed from the package index.
Usage: python3 benchmarks/oracle_env.py [--venv DIR] [--quiet]. Prints the venv's python path.
The test ``tests/test_attacks_anonymeter.py`` and ``benchmarks/bench_attacks.py`` call
:func:`ensure_oracle_env`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-anonymeter"
ORACLE = Path(__file__).resolve().parent / "anonymeter_oracle.py"
# anonymeter 1.x (PETS 2023 code); pandas < 2.3 keeps its numpy < 1.27 pin satisfiable.
REQUIREMENTS = ("anonymeter>=1.0,<2", "pandas>=1.4,<2.3")


def oracle_python(venv: Path = VENV) -> Path:
    return venv / "bin" / "python"


def oracle_ready(venv: Path = VENV) -> bool:
    """True when the venv exists and imports anonymeter."""
    python = oracle_python(venv)
    if not python.is_file():
        return False
    done = subprocess.run(
        [str(python), "-c", "import anonymeter.evaluators"], capture_output=True, timeout=300
    )
    return done.returncode == 0


def ensure_oracle_env(venv: Path = VENV, quiet: bool = True, timeout: float = 900) -> Path:
    """The oracle venv's python, creating the venv and installing anonymeter when missing.

    Raises RuntimeError with pip's last lines when it cannot be created (e.g. no package index).
    """
    if oracle_ready(venv):
        return oracle_python(venv)
    base = "python3.11" if sys.version_info[:2] != (3, 11) else sys.executable
    steps = [
        [base, "-m", "venv", str(venv)],
        [
            str(oracle_python(venv)),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            *(["-q"] if quiet else []),
            *REQUIREMENTS,
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"{' '.join(step[:4])} ... failed: {tail}")
    if not oracle_ready(venv):
        raise RuntimeError(f"{venv} was created but does not import anonymeter")
    return oracle_python(venv)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=VENV)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    try:
        python = ensure_oracle_env(args.venv, quiet=args.quiet)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
        print(f"could not create the anonymeter venv: {exc}", file=sys.stderr)
        return 1
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
