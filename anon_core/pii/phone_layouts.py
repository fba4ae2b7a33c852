"""Phone numbers the layout recognizer leaves: unbroken national numbers with no cue word,
numbers glued to a cue word ("call083-4567-890"), and a North American number with an
alternative last group after a slash ("555-123-4567/4568").

Each rule is narrow on purpose: a run of digits with no cue word is far more often an order,
invoice or account number than a phone, so it is read as a phone only when libphonenumber finds
it a valid US number (an assigned area code and exchange) and nothing near it names another
kind of number or an amount.
"""

from __future__ import annotations

import re
from typing import Any

from anon_core.pii.digits_fast import has_digit
from anon_core.pii.phones_fast import region_matchers
from anon_core.pii.recognizers import (
    IDENTIFIER_WORD,
    PHONE_LAYOUT,
    QUANTITY_WORD,
    phone_layout_value_ok,
    strongly_cued_phone,
)

#: Ten digits, or eleven after the trunk prefix 1, standing alone: not after a letter, a digit,
#: a sign, a currency symbol, "#", or a digit group separator; not before another digit group.
_UNBROKEN_NATIONAL = re.compile(r"(?<![\w+,./:$€£¥#-])1?\d{10}(?![\w]|[.,/:-]\d)")
_REACH = 25
#: A cue word with a number written straight after it, with no space ("call083-4567-890").
_GLUED_CUE = re.compile(
    r"(?<![^\W\d_])(?:call|phone|tel|mobile|cell|fax|ring|dial|whatsapp|sms)(?=\+?\(?\d)",
    re.IGNORECASE,
)
#: What an unbroken national number needs: ten digits in a row.
_TEN_DIGITS = re.compile(r"\d{10}")
_LAYOUT = re.compile(PHONE_LAYOUT.removeprefix(r"(?<![\w+,/$€£¥#-])"))
#: A North American number, then a slash and an alternative last group of 1-4 digits.
_NANP_SLASH = re.compile(
    r"(?<![\w+,./:$€£¥#-])(?:\(\d{3}\) ?\d{3}-\d{4}|\d{3}([-.])\d{3}\1\d{4})/\d{1,4}(?![\w/-])"
)


def uncued_national_phone(text: str, start: int, end: int) -> bool:
    """Whether the unbroken run ``text[start:end]`` is a valid US number with no identifier
    word (order, invoice, account, ...) within 25 characters before it and no amount or count
    word (total, paid, dollars, people, ...) within 25 characters either side."""
    import phonenumbers

    value = text[start:end]
    try:
        number = phonenumbers.parse(value, "US")
    except phonenumbers.NumberParseException:
        return False
    if not phonenumbers.is_valid_number(number):
        return False
    before = text[max(0, start - _REACH) : start]
    after = text[end : end + _REACH]
    return not (
        IDENTIFIER_WORD.search(before)
        or QUANTITY_WORD.search(before)
        or QUANTITY_WORD.search(after)
    )


def glued_phone_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of numbers written straight after a cue word ("call083-4567-890"): the
    number must pass the layout rules or be an unbroken run of 7-15 digits."""
    spans = []
    for cue in _GLUED_CUE.finditer(text):
        m = _LAYOUT.match(text, cue.end())
        if not m:
            continue
        value = m.group().strip()
        if phone_layout_value_ok(value) or (value.isdigit() and 7 <= len(value) <= 15):
            spans.append((m.start(), m.start() + len(value)))
    return spans


def phone_extras_recognizer(language: str) -> Any:
    """Phones in three layouts the other phone recognizers leave: a North American number with
    an alternative last group after a slash (score 0.6), a number glued to a cue word (0.9), and
    an unbroken 10-digit run (or 11 after a leading 1) with no cue word, kept only when
    :func:`uncued_national_phone` holds (0.6)."""
    from presidio_analyzer import EntityRecognizer, RecognizerResult

    class PhoneExtrasRecognizer(EntityRecognizer):
        def load(self) -> None:  # no model to load
            return None

        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None):
            if (entities and "PHONE_NUMBER" not in entities) or not has_digit(text):
                return []  # each of the three layouts needs a digit
            results = []
            if "/" in text:  # the slashed layout has one; its pattern is read only then
                for m in _NANP_SLASH.finditer(text):
                    results.append(RecognizerResult("PHONE_NUMBER", m.start(), m.end(), 0.6))
            for start, end in glued_phone_spans(text):
                results.append(RecognizerResult("PHONE_NUMBER", start, end, 0.9))
            if _TEN_DIGITS.search(text):  # as the unbroken number needs ten digits in a row
                for m in _UNBROKEN_NATIONAL.finditer(text):
                    if uncued_national_phone(text, m.start(), m.end()):
                        results.append(RecognizerResult("PHONE_NUMBER", m.start(), m.end(), 0.6))
            return results

    return PhoneExtrasRecognizer(
        supported_entities=["PHONE_NUMBER"],
        name="Phone number (uncued, glued and slashed layouts)",
        supported_language=language,
    )


def identifier_run(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is an unbroken run of 7-11 digits that reads as another kind
    of number: no phone word (:func:`strongly_cued_phone`) in the 60 characters before it, and an
    identifier word in the 25 characters before it ("Invoice 6502530000") or an amount or count
    word within 25 characters of it ("6502530000 units", "a population of ...")."""
    value = text[start:end]
    if not (value.isdigit() and len(value) <= 11) or strongly_cued_phone(
        text[max(0, start - 60) : start]
    ):
        return False  # 12 digits or more: maybe a card the card rules miss, better covered
    before = text[max(0, start - _REACH) : start]
    return bool(
        IDENTIFIER_WORD.search(before)
        or QUANTITY_WORD.search(before)
        or QUANTITY_WORD.search(text[end : end + _REACH])
        or before.rstrip().endswith(("$", "€", "£", "¥"))
    )


_UNPARSED, _UNSEEN = object(), object()


def guarded_phone_recognizer_class() -> Any:
    """Presidio's ``PhoneRecognizer`` (libphonenumber's lenient matcher), dropping an unbroken
    run of digits that reads as an identifier, an amount or a count (:func:`identifier_run`).

    Its ``analyze`` is Presidio's (presidio-analyzer 2.2) step for step with the same results
    (spans, scores, explanations), cheaper: a text without a digit is skipped (every candidate
    of the matcher holds one), each matched string is parsed once for its explanation's region
    (not once per region that finds it), and a span found by several regions is made into a
    result once, the first, which is the one Presidio's de-duplication keeps (results of the
    same type, span and score are equal), and a candidate with a plus sign and a known calling
    code is parsed for the first region only (:mod:`anon_core.pii.phones_fast`)."""
    import phonenumbers
    from presidio_analyzer import EntityRecognizer
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    class GuardedPhoneRecognizer(PhoneRecognizer):
        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None):
            if not has_digit(text):
                return []
            results, seen, regions = [], set(), {}
            matchers = region_matchers(text, self.supported_regions, self.leniency)
            for region, matcher in zip(self.supported_regions, matchers, strict=True):
                named = region  # Presidio names later matches after the last parsed one
                for match in matcher:
                    raw = text[match.start : match.end]
                    parsed = regions.get(raw, _UNSEEN)
                    if parsed is _UNSEEN:
                        try:
                            number = phonenumbers.parse(raw)
                            parsed = phonenumbers.region_code_for_number(number)
                        except phonenumbers.NumberParseException:
                            parsed = _UNPARSED
                        regions[raw] = parsed
                    if parsed is not _UNPARSED:
                        named = parsed
                    if (match.start, match.end) in seen:
                        continue
                    seen.add((match.start, match.end))
                    results.append(self._get_recognizer_result(match, text, named, nlp_artifacts))
            results = EntityRecognizer.remove_duplicates(results)
            return [r for r in results if not identifier_run(text, r.start, r.end)]

    return GuardedPhoneRecognizer
