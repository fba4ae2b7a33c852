"""The application's front door: one session per configuration (+ table), for every caller.

A :class:`Session` is opened from a configuration file, a configuration mapping or the
dashboard's workspace. It parses the configuration once, reads the input once, and produces:

* :meth:`Session.release`: the one :class:`~anon_core.services.release.Release` value of any
  registered method (the configuration's ``method`` section, generalization by default);
* :meth:`Session.evidence`: class-based figures where they are defined, the attack battery and
  the utility yardstick on a seeded rehearsal, the synthetic-data checks, the guarantee;
* :meth:`Session.verdict`: the officer's ``acceptance`` criteria (or the defaults) judged on
  that evidence.
* :meth:`Session.resolution` and :meth:`Session.write_generalization`: the generalization's
  problem and transformation on the configured engine, and its release written by that engine
  (``anon-core anonymize``: a DuckDB or Spark engine never loads the table into memory);
  :meth:`Session.report_evidence`: every figure of that release's report.

The dossier (``anon_core.report.dossier``) and the release report (``anon_core.report``) render
what the session measured, the CLI prints it and ``verify`` re-runs it. Domain packages never
orchestrate: a method releases a frame, an attack attacks given frames, the report renders given
evidence.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.attacks.split import parse_attack_section, split_frame
from anon_core.config import ReleaseConfig, load_config, parse_config
from anon_core.data.dataset import Role
from anon_core.errors import AnonError, ConfigError
from anon_core.methods import METHODS, method_available
from anon_core.methods.config import MethodSection, method_section
from anon_core.methods.registry import drop_identifiers, make_context
from anon_core.release.engines.base import no_progress
from anon_core.services.acceptance import Verdict, judge, parse_acceptance
from anon_core.services.evidence import (
    Evidence,
    attack_figures,
    class_based_figures,
    dp_audit_figure,
    figure,
    utility_figures,
)
from anon_core.services.release import (
    SCOPES,
    Rehearsal,
    Release,
    canonical_csv,
    settled_table,
)
from anon_core.services.report_evidence import ReportEvidence
from anon_core.services.resolve import Resolution, resolve

Progress = Callable[[float, str], None]

#: Attacks per attack in the evidence when the configuration's ``attack`` section names none.
EVIDENCE_ATTACKS = 2000
#: Rows each table of the utility yardstick is sampled down to (seeded): the ML figure of the
#: evidence is a ratio of accuracies, stable at this size, and its cost stays bounded.
UTILITY_ROWS = 5000


def _at_most(frame: pd.DataFrame, rows: int, seed: int) -> pd.DataFrame:
    """``frame``, or a seeded sample of ``rows`` of its rows in their order."""
    if len(frame) <= rows:
        return frame
    return frame.sample(n=rows, random_state=seed).sort_index().reset_index(drop=True)


class Session:
    """One configuration and its input, parsed and read once (see the module docstring)."""

    def __init__(
        self,
        config: ReleaseConfig,
        frame: pd.DataFrame | None = None,
        *,
        input_bytes: bytes | None = None,
    ) -> None:
        self.config = config
        self._frame = frame
        self._frame_given = frame is not None  # else read from input.path (and hashed from it)
        self._input_bytes = input_bytes
        self._prepared: tuple[pd.DataFrame, ReleaseConfig] | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        source: str | Path | Mapping[str, Any] | ReleaseConfig,
        frame: pd.DataFrame | None = None,
        *,
        base_dir: str | Path = ".",
        input_bytes: bytes | None = None,
    ) -> Session:
        """A session from a configuration file, a mapping (relative paths against ``base_dir``)
        or a parsed configuration; ``frame`` replaces reading ``input.path``."""
        if isinstance(source, ReleaseConfig):
            config = source
        elif isinstance(source, Mapping):
            config = parse_config(source, base_dir)
        else:
            config = load_config(source)
        return cls(config, frame, input_bytes=input_bytes)

    @classmethod
    def from_workspace(cls, ws: Any, input_bytes: bytes | None = None) -> Session:
        """The dashboard's session: its configuration, its table and the input file's bytes
        (the upload's, else ``input_bytes``: a built-in sample's file)."""
        given = ws.input_bytes if ws.input_bytes is not None else input_bytes
        return cls(parse_config(ws.to_config(), ws.base_dir), ws.frame, input_bytes=given)

    # ------------------------------------------------------------------ inputs
    @property
    def frame(self) -> pd.DataFrame:
        """The input table (read once)."""
        if self._frame is None:
            from anon_core.transform.problem import load_input

            self._frame = load_input(self.config).frame
        return self._frame

    @functools.cached_property
    def input_sha256(self) -> str:
        """SHA-256 of the input file's bytes: the uploaded bytes, else the file ``input.path``
        names when the table was read from it, else the canonical CSV of the given table."""
        if self._input_bytes is not None:
            return hashlib.sha256(self._input_bytes).hexdigest()
        path = self.config.input_path
        if not self._frame_given and path is not None and Path(path).is_file():
            digest = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            return digest.hexdigest()
        return hashlib.sha256(canonical_csv(self.frame)).hexdigest()

    def prepared(self) -> tuple[pd.DataFrame, ReleaseConfig]:
        """The input after the ``text`` and ``pseudonymize`` sections, and the configuration it
        belongs to (de-identified and pseudonymized identifiers become insensitive there)."""
        if self._prepared is None:
            from anon_core.services.compare import prepare_input

            self._prepared = prepare_input(self.config, self.frame)
        return self._prepared

    def method(self, name: str | None = None) -> MethodSection:
        """The configuration's method (``name`` names another, with its defaults)."""
        section = method_section(self.config, name)
        ok, why = method_available(section.name)
        if not ok:
            raise ConfigError(f"Method {section.name!r} is not available here: {why}.")
        return section

    def attack_section(self):
        return parse_attack_section(self.config.sections.get("attack"), self.config.base_dir)

    def rehearsal_split(self) -> tuple[pd.DataFrame, pd.DataFrame, float, int]:
        """(released part, control records, control fraction, seed) of the prepared table."""
        frame, config = self.prepared()
        attack = self.attack_section()
        table = drop_identifiers(frame, config.roles)
        part, control = split_frame(table, attack.control_fraction, attack.random_state)
        return part, control, attack.control_fraction, attack.random_state

    # ------------------------------------------------------------------ generalization on an engine
    def resolution(
        self,
        *,
        engine: str | None = None,
        progress: Progress | None = None,
        return_mapping: bool = False,
    ) -> Resolution:
        """The generalization problem and its transformation (configured, searched, or bounded
        by an attack's risk), on the configuration's engine (``engine`` overrides it): a scale
        engine (DuckDB, Spark) groups the input file itself, never loading it into memory. A
        table given to the session is used as it is. ``return_mapping`` keeps the pseudonym
        mapping of the ``pseudonymize`` section."""
        return resolve(
            self.config,
            self._frame if self._frame_given else None,
            engine=engine,
            progress=progress or no_progress,
            return_mapping=return_mapping,
        )

    def write_generalization(
        self, resolution: Resolution, path: str | Path, progress: Progress | None = None
    ) -> Any:
        """Write ``resolution``'s release to ``path`` (atomically) with the engine it was grouped
        on (a scale engine writes the file without loading the table); returns what was written
        (path, rows, engine, SHA-256)."""
        if resolution.result is None:
            raise ConfigError(
                "No transformation satisfies the privacy models within the suppression limit; "
                "there is nothing to write."
            )
        return resolution.problem.write_release(
            resolution.result,
            Path(path),
            resolution.config.suppressed_records,
            progress or no_progress,
            formula_escape=resolution.config.formula_escape,
        )

    def report_evidence(self, resolution: Resolution) -> ReportEvidence:
        """Every figure the release report of ``resolution``'s transformation shows (risk,
        disclosure, quality, distributions, method, population, attacks), computed once; the
        report (``anon_core.report.build_report(config, evidence=...)``) renders it."""
        from anon_core.services.report_evidence import report_evidence

        return report_evidence(
            self.config, resolution.problem, resolution.result, resolution.search
        )

    # ------------------------------------------------------------------ the release
    def release(
        self,
        method: str | None = None,
        *,
        scope: str | None = None,
        progress: Progress | None = None,
    ) -> Release:
        """The release of the configuration's method (or ``method``).

        ``scope`` is ``whole`` (the default for reproducible methods: the final release covers the
        whole table, the evidence comes from a rehearsal) or ``part`` (the release covers the
        rehearsal's released part only; the default for methods that are not bit-reproducible,
        so that ``verify`` can recompute every figure from the released file)."""
        progress = progress or no_progress
        section = self.method(method)
        cls = METHODS[section.name]
        if scope is None:
            scope = "whole" if cls.reproducible else "part"
        if scope not in SCOPES:
            raise ConfigError(f"'scope' must be one of {SCOPES}, got {scope!r}.")
        frame, config = self.prepared()
        part, control, fraction, seed = self.rehearsal_split()
        source = drop_identifiers(frame, config.roles) if scope == "whole" else part
        progress(0.0, f"releasing with {section.method.label}")
        t0, c0 = time.perf_counter(), time.process_time()
        output = section.method.release(
            source,
            make_context(source, config),
            random_state=section.random_state,
            progress=lambda f, m: progress(0.9 * f, m),
        )
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        if list(output.table.columns) != list(source.columns):
            raise ConfigError(  # pragma: no cover - a method contract violation
                f"Method {section.name!r} returned columns {list(output.table.columns)}, "
                f"expected {list(source.columns)}."
            )
        progress(1.0, "released")
        return Release(
            table=settled_table(output.table, source),
            method=section.name,
            label=cls.label,
            parameters={k: v for k, v in section.method.spec().items() if k != "name"},
            random_state=section.random_state,
            guarantee=output.guarantee,
            synthetic=bool(cls.synthetic),
            reproducible=bool(cls.reproducible),
            input_sha256=self.input_sha256,
            rehearsal=Rehearsal(fraction, seed, len(part), len(control), scope),
            details=dict(output.details),
            seconds=seconds,
            cpu_seconds=cpu,
        )

    def _rehearsal_table(self, release: Release, part: pd.DataFrame) -> pd.DataFrame:
        """The release of the rehearsal's part with the release's method and parameters (for
        generalization, the release's transformation, applied even where the part's classes
        would not satisfy the models: the attacks measure what that transformation does)."""
        if release.rehearsal.scope == "part":
            return release.table
        frame, config = self.prepared()
        section = self.method(release.method)
        table = section.method.rehearse(
            part, make_context(part, config), release.details, random_state=section.random_state
        )
        return settled_table(table, part)

    # ------------------------------------------------------------------ the evidence
    def evidence(
        self,
        release: Release,
        *,
        n_attacks: int | None = None,
        utility: bool = True,
        utility_models: tuple[str, ...] = ("logistic_regression",),
        target: str | None = None,
        progress: Progress | None = None,
        dp_audit: bool = False,
        utility_rows: int = UTILITY_ROWS,
        shadow: bool = False,
        exposure: bool = True,
    ) -> Evidence:
        """Class-based figures of ``release``; attacks and utility on its rehearsal.

        ``dp_audit=True`` (off by default: it costs seconds) also audits the measurement step
        of an epsilon-DP method on the rehearsal's part (figure ``dp_audit_violation``).
        ``shadow=True`` (off by default: it re-fits the method 16 times) adds shadow-model
        membership inference on synthetic and perturbative releases (``shadow_mia_auc``,
        ``shadow_mia_advantage``; :mod:`anon_core.services.shadow_evidence`).
        ``exposure`` (on by default: about 1 s CPU on Adult's rehearsal part of 20,108 records)
        counts the 1% most vulnerable records singled out, linked and inferred
        (``attacks["vulnerable_exposure"]`` and a note); ``verify`` re-runs it when the dossier's
        options record it."""
        from anon_core.risk.reidentification import report_dict, risk_of_frame
        from anon_core.services.compare import (
            config_hierarchies,
            default_attack_runner,
            default_utility_runner,
            utility_target,
        )

        progress = progress or no_progress
        frame, config = self.prepared()
        notes = [release.rehearsal.sentence()]
        qis = [
            c for c, r in config.roles.items() if r == Role.QUASI_IDENTIFIER and c in release.table
        ]
        # class-based figures: defined where released rows stand for input records
        progress(0.02, "class-based figures")
        class_based, why = None, None
        if release.synthetic:
            why = "synthetic records are not the input's records: classes of them are not people"
        elif not qis:
            why = "no quasi-identifier in the release"
        else:
            class_based = report_dict(risk_of_frame(release.table, qis))
        figures: dict[str, dict] = dict(class_based_figures(class_based, why))
        # the rehearsal: the same method on the seeded part, attacked with the control records
        part, control, _, seed = self.rehearsal_split()
        progress(0.1, "rehearsal release")
        rehearsed = self._rehearsal_table(release, part)
        hierarchies = config_hierarchies(config, part) if qis else {}
        attack_section = self.attack_section()
        n = n_attacks or (
            attack_section.n_attacks if "attack" in config.sections else EVIDENCE_ATTACKS
        )
        progress(0.2, f"attacks ({n:,} guesses each)")
        context = make_context(part, config)
        attacks: dict[str, Any] = {}
        attack_error = None
        try:
            attacks = dict(
                default_attack_runner(config, hierarchies, n)(
                    part, rehearsed, control, context, seed
                )
            )
        except AnonError as exc:
            attack_error = f"the attacks could not run: {exc}"
            notes.append(attack_error)
        figures.update(attack_figures(attacks, attack_error))
        # utility on the rehearsal (trained on its release, tested on the control records)
        utility_dict = None
        utility_why = "not requested"
        if utility:
            progress(0.7, "utility")
            try:
                table = drop_identifiers(frame, config.roles)
                chosen = utility_target(config, table, target)
                tables = [_at_most(t, utility_rows, seed) for t in (part, control, rehearsed)]
                if any(
                    len(t) < len(f)
                    for t, f in zip(tables, (part, control, rehearsed), strict=False)
                ):
                    notes.append(
                        f"utility measured on seeded samples of at most {utility_rows:,} rows of "
                        "the original part, the release and the control records"
                    )
                utility_dict = dict(
                    default_utility_runner(hierarchies, {"models": list(utility_models)})(
                        *tables, chosen, seed
                    )
                )
            except AnonError as exc:
                utility_why = f"the utility yardstick could not run: {exc}"
                notes.append(utility_why)
        figures.update(utility_figures(utility_dict, utility_why))
        # spatial figures: only when the configuration names location columns (``geo``)
        from anon_core.geo.section import geo_section_of

        geo = geo_section_of(config)
        if geo is not None:
            from anon_core.services.geo_evidence import geo_figures

            progress(0.85, "spatial risk")
            whole = release.rehearsal.scope == "whole"
            source = drop_identifiers(frame, config.roles) if whole else part
            spatial_figures, spatial = geo_figures(geo, source, release.table)
            figures.update(spatial_figures)
            if spatial is not None:
                notes.append(
                    f"spatial risk of the release against its {len(source):,} input locations: "
                    f"median spatial k {spatial['spatial_k_median']}, expected nearest-neighbour "
                    f"re-identifications {spatial['nn_expected_reidentifications']:.1f}"
                )
        # synthetic-data checks
        synthetic = None
        if release.synthetic:
            progress(0.9, "synthetic-data checks")
            from anon_core.utility.synthetic_checks import synthetic_checks

            try:
                synthetic = synthetic_checks(part, control, rehearsed, random_state=seed).to_dict()
                figures["exact_copies_share"] = figure(
                    synthetic["share_exact_copies"],
                    kind="synthetic check",
                    name="exact_copies_share",
                )
            except AnonError as exc:
                notes.append(f"the synthetic-data checks could not run: {exc}")
        # the formal guarantee
        eps = release.parameters.get("epsilon")
        figures["epsilon"] = figure(
            eps if "DP" in release.guarantee or eps is not None else None,
            kind="guarantee",
            why="the method gives no differential-privacy guarantee",
            name="epsilon",
        )
        options: dict[str, Any] = {
            "n_attacks": n,
            "utility": bool(utility),
            "utility_models": list(utility_models),
            "target": target,
            "utility_rows": utility_rows,
        }
        if dp_audit:
            progress(0.95, "DP audit of the measurement step")
            figures["dp_audit_violation"] = dp_audit_figure(
                release.method, release.guarantee, release.parameters, part, context, seed
            )
            options["dp_audit"] = True
        if shadow:
            from anon_core.services.shadow_evidence import shadow_figures

            progress(0.96, "shadow-model membership inference")
            shadow_figs, shadow_json, shadow_note = shadow_figures(
                release,
                self.method(release.method).method,
                config,
                part,
                control,
                seed,
                progress=lambda f, m: progress(0.96 + 0.03 * f, m),
            )
            figures.update(shadow_figs)
            if shadow_json is not None:
                attacks["shadow_membership"] = shadow_json
            if shadow_note:
                notes.append(shadow_note)
            options["shadow"] = True
        if exposure:
            from anon_core.services.shadow_evidence import exposure_evidence

            progress(0.99, "exposure of the most vulnerable records")
            sensitive = [c for c, r in config.roles.items() if r == Role.SENSITIVE]
            exposed, exposure_note = exposure_evidence(
                part,
                rehearsed,
                qis,
                secrets=list(attack_section.secret or sensitive),
                roles=context.roles,
                hierarchies=hierarchies,
                seed=seed,
            )
            if exposed is not None:
                attacks["vulnerable_exposure"] = exposed
            if exposure_note:
                notes.append(exposure_note)
            options["exposure"] = True
        progress(1.0, "evidence complete")
        return Evidence(
            figures=figures,
            class_based=class_based,
            attacks=attacks,
            attack_details={"n_attacks": n, "random_state": seed},
            options=options,
            utility=utility_dict,
            synthetic_checks=synthetic,
            guarantee=release.guarantee,
            notes=tuple(notes),
        )

    # ------------------------------------------------------------------ the verdict
    def verdict(self, evidence: Evidence) -> Verdict:
        """The acceptance criteria (the configuration's, else the defaults) on ``evidence``."""
        criteria = parse_acceptance(self.config.sections.get("acceptance"))
        return judge(evidence.figures, criteria)

    def with_config(self, **changes: Any) -> Session:
        """A session over the same input with configuration fields replaced."""
        other = Session(
            dataclasses.replace(self.config, **changes), self._frame, input_bytes=self._input_bytes
        )
        other._frame_given = self._frame_given
        return other
