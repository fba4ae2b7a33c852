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
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from typing import Any

#: SHA-256 (first 16 hex digits) of the phonenumbers sources the sharing was reviewed against
#: (``parse``, ``_maybe_extract_country_code``, ``_extract_country_code``, the matcher's
#: ``_parse_and_verify`` and ``_verify``); another version runs the plain matcher.
REVIEWED_PHONENUMBERS = "77f91e4282837298"
_PLUS = ("+", "\uff0b")


def phonenumbers_digest() -> str:
    """The digest of the reviewed phonenumbers sources (:data:`REVIEWED_PHONENUMBERS`)."""
    from phonenumbers import phonenumbermatcher, phonenumberutil

    parts = [
        phonenumberutil.parse,
        phonenumberutil._maybe_extract_country_code,
        phonenumberutil._extract_country_code,
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
    from phonenumbers.phonenumbermatcher import PhoneNumberMatcher

    if phonenumbers_digest() != REVIEWED_PHONENUMBERS:
        return None

    class SharedPlusMatcher(PhoneNumberMatcher):
        """``PhoneNumberMatcher`` whose answer for a candidate with a known calling code is
        kept in ``shared`` (one dict per text, given to the matcher of every region)."""

        def __init__(self, text: str, region: str, leniency: Any, shared: dict) -> None:
            super().__init__(text, region, leniency=leniency)
            self.shared = shared

        def _parse_and_verify(self, candidate: str, offset: int) -> Any:
            if not candidate.startswith(_PLUS):
                return super()._parse_and_verify(candidate, offset)
            key = (offset, candidate)
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
