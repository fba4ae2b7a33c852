"""libphonenumber's matcher run for several regions over one text, with the work that does not
depend on the region done once.

Presidio's phone recognizer runs ``PhoneNumberMatcher`` once per region (US, GB, DE, FR) over
the same text, and every run parses and validates every candidate again. A candidate written
with a plus sign and a known country calling code ("+44 20 7946 0958") is read the same way
whatever the region: libphonenumber (phonenumbers 9.0, reviewed) takes the country from the
number (``FROM_NUMBER_WITH_PLUS_SIGN``), never reads the region's international prefix or
national prefix rules for it, and the ``VALID`` leniency asks for no national prefix in that
case. Only an unknown calling code sends ``parse`` back to the region's rules (it strips the
plus and tries again), so such candidates are not shared. :class:`SharedPlusMatcher` keeps the
answer of the first region for the same candidate at the same offset (the characters around it,
which the check also reads, are the same text's); the results, and the tries the matcher
counts, are those of separate runs.

The matcher's other region-independent steps are shared the same way (phonenumbers 9.0,
reviewed): the scan of the text for the next candidate from a given index (``_find``: one
fixed pattern, then the trim before a second number), the skipping of dates and time stamps
(``_extract_match``), and the checks ``_parse_and_verify`` makes before it parses (brackets,
page references, the letters or symbols around the candidate). None of them reads the
region; only ``parse`` and the checks after it do, and those still run once per region.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from typing import Any

#: SHA-256 (first 16 hex digits) of the phonenumbers sources the sharing was reviewed against
#: (``parse``, ``_maybe_extract_country_code``, ``_extract_country_code``, the matcher's
#: ``_find``, ``_extract_match``, ``_parse_and_verify`` and ``_verify``); another version runs
#: the plain matcher.
REVIEWED_PHONENUMBERS = "d745db47f7f6fcb6"
_PLUS = ("+", "\uff0b")


def phonenumbers_digest() -> str:
    """The digest of the reviewed phonenumbers sources (:data:`REVIEWED_PHONENUMBERS`)."""
    from phonenumbers import phonenumbermatcher, phonenumberutil

    parts = [
        phonenumberutil.parse,
        phonenumberutil._maybe_extract_country_code,
        phonenumberutil._extract_country_code,
        phonenumbermatcher.PhoneNumberMatcher._find,
        phonenumbermatcher.PhoneNumberMatcher._extract_match,
        phonenumbermatcher.PhoneNumberMatcher._parse_and_verify,
        phonenumbermatcher._verify,
    ]
    source = "\n".join(inspect.getsource(part) for part in parts)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def known_calling_code(candidate: str) -> bool:
    """Whether a candidate opens with a plus sign and its digits with a country calling code
    libphonenumber knows (its ``_extract_country_code``: the first one to three digits, the
    first digit not 0)."""
    import phonenumbers

    if not candidate.startswith(_PLUS):
        return False
    digits = phonenumbers.normalize_digits_only(candidate)
    if not digits or digits[0] == "0":
        return False
    codes = phonenumbers.COUNTRY_CODE_TO_REGION_CODE
    return any(int(digits[:n]) in codes for n in range(1, min(3, len(digits)) + 1))


@functools.lru_cache(maxsize=1)
def shared_plus_matcher_class() -> type | None:
    """:class:`SharedPlusMatcher`, or None when phonenumbers is not the reviewed version."""
    import phonenumbers
    from phonenumbers import phonenumbermatcher as matcher
    from phonenumbers.phonenumbermatcher import PhoneNumberMatcher

    if phonenumbers_digest() != REVIEWED_PHONENUMBERS:
        return None

    class SharedPlusMatcher(PhoneNumberMatcher):
        """``PhoneNumberMatcher`` whose answer for a candidate with a known calling code, and
        whose region-independent steps, are kept in ``shared`` (one dict per text, given to
        the matcher of every region)."""

        def __init__(self, text: str, region: str, leniency: Any, shared: dict) -> None:
            super().__init__(text, region, leniency=leniency)
            self.shared = shared
            self.candidates = shared.setdefault("candidates", {})
            self.skipped = shared.setdefault("skipped", {})
            self.checked = shared.setdefault("checked", {})

        def _candidate_at(self, index: int) -> tuple[int, str] | None:
            """The next candidate on or after ``index`` (its offset and its text, trimmed
            before a second number), as ``_find`` takes it."""
            if index in self.candidates:
                return self.candidates[index]
            match = matcher._PATTERN.search(self.text, index)
            found = None
            if match is not None:
                start = match.start()
                candidate = self._trim_after_first_match(
                    matcher._SECOND_NUMBER_START_PATTERN, self.text[start : match.end()]
                )
                found = (start, candidate)
            self.candidates[index] = found
            return found

        def _find(self, index: int) -> Any:
            # PhoneNumberMatcher._find, the candidates taken from _candidate_at
            found = self._candidate_at(index)
            while self._max_tries > 0 and found is not None:
                start, candidate = found
                if len(candidate) >= self._min_candidate_length:
                    match = self._extract_match(candidate, start)
                    if match is not None:
                        return match
                    self._max_tries -= 1
                found = self._candidate_at(start + len(candidate))
            return None

        def _extract_match(self, candidate: str, offset: int) -> Any:
            # PhoneNumberMatcher._extract_match, the date and time stamp skips kept
            key = (offset, candidate)
            skip = self.skipped.get(key)
            if skip is None:
                skip = bool(
                    matcher._SLASH_SEPARATED_DATES.search(candidate)
                    or (
                        matcher._TIME_STAMPS.search(candidate)
                        and matcher._TIME_STAMPS_SUFFIX.match(self.text[offset + len(candidate) :])
                    )
                )
                self.skipped[key] = skip
            if skip:
                return None
            match = self._parse_and_verify(candidate, offset)
            if match is not None:
                return match
            return self._extract_inner_match(candidate, offset)

        def _passes_checks(self, candidate: str, offset: int) -> bool:
            """Whether ``candidate`` passes the checks ``_parse_and_verify`` makes before it
            parses (they return None there when not)."""
            if not matcher.fullmatch(matcher._MATCHING_BRACKETS, candidate):
                return False
            if matcher._PUB_PAGES.search(candidate):
                return False
            if self.leniency >= phonenumbers.Leniency.VALID:
                if offset > 0 and not matcher._LEAD_PATTERN.match(candidate):
                    previous = self.text[offset - 1]
                    if self._is_invalid_punctuation_symbol(previous) or self._is_latin_letter(
                        previous
                    ):
                        return False
                end = offset + len(candidate)
                if end < len(self.text):
                    following = self.text[end]
                    if self._is_invalid_punctuation_symbol(following) or self._is_latin_letter(
                        following
                    ):
                        return False
            return True

        def _parse_and_verify(self, candidate: str, offset: int) -> Any:
            key = (offset, candidate)
            passes = self.checked.get(key)
            if passes is None:
                passes = self.checked[key] = self._passes_checks(candidate, offset)
            if not passes:
                return None
            if not candidate.startswith(_PLUS):
                return super()._parse_and_verify(candidate, offset)
            if key in self.shared:
                return self.shared[key]
            found = super()._parse_and_verify(candidate, offset)
            if known_calling_code(candidate):
                self.shared[key] = found
            return found

    return SharedPlusMatcher


def region_matchers(text: str, regions: Any, leniency: int) -> list[Any]:
    """One matcher per region over ``text`` (phonenumbers' own, or :class:`SharedPlusMatcher`
    sharing one dict when phonenumbers is the reviewed version and the leniency ``VALID``)."""
    import phonenumbers

    shared_class = shared_plus_matcher_class()
    if shared_class is None or leniency != phonenumbers.Leniency.VALID:
        return [phonenumbers.PhoneNumberMatcher(text, r, leniency=leniency) for r in regions]
    shared: dict = {}
    return [shared_class(text, region, leniency, shared) for region in regions]
