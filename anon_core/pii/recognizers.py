"""Recognizers for numbers Presidio's own miss: European phone formats, lower-case IBANs, and
payment cards of any issuer (13-19 digits, Luhn check). Built per language by the engine.
"""

from __future__ import annotations

import re
from typing import Any

from anon_core.pii.checksums import card_number_valid
from anon_core.pii.digits_fast import has_digit

#: Regions whose phone number formats are recognised (libphonenumber region codes): the US and
#: the European countries whose data this workbench meets. A number written with its country
#: code (+33 ...) is found whatever the list; national formats ("699 956 915") need the region.
PHONE_REGIONS = (
    "US", "GB", "IE", "FR", "DE", "ES", "IT", "NL", "BE", "CH", "AT", "SE", "PL", "PT", "FI", "DK", "NO",
)  # fmt: skip
#: Regions Presidio's ``PhoneRecognizer`` scans with libphonenumber's lenient matcher (one pass
#: over the text per region: 17 regions cost 10 times 4 on the labeled notes). The other regions
#: of :data:`PHONE_REGIONS` are checked only on phone-shaped candidates, with the strict
#: ``is_valid_number`` (:func:`national_phone_recognizer`).
MATCHER_PHONE_REGIONS = ("US", "GB", "DE", "FR")


#: The regions :func:`national_phone_recognizer` asks first: Italy's numbering plan admits
#: numbers of many lengths and finds most phone-shaped runs valid, then Spain's (measured on a
#: megabyte of mixed European text); asked first, fewer regions are parsed per run.
NATIONAL_FIRST = ("IT", "ES")


#: How a 12-digit card is written: unbroken or in three groups of four.
_CARD_12_LAYOUT = re.compile(r"\d{12}|\d{4}([ -])\d{4}\1\d{4}")


def card_value_ok(value: str) -> bool:
    """Whether a run of digits is a payment card number (:func:`card_number_valid`): a 12-digit
    Maestro number only unbroken or as 4-4-4, never a valid French NIR (15 digits), and never
    a number starting with 0 (the major industry identifier 0 is not issued to card issuers)."""
    digits = re.sub(r"\D", "", value)
    if digits.startswith("0"):
        return False  # no issuer number starts with 0 (ISO/IEC 7812): "00420 778 ..." dials out
    if len(digits) == 15 and nir_valid(digits):
        return False  # a French social security number whose digits pass Luhn by chance
    if len(digits) == 12 and not _CARD_12_LAYOUT.fullmatch(value.strip()):
        return False
    return card_number_valid(digits)


def card_recognizer(language: str) -> Any:
    """Any Luhn-valid card number of 13-19 digits, or 12 with a Maestro prefix (groups of
    digits split by single spaces or hyphens; never after a plus sign, which opens a phone).

    Groups of up to six digits, so American Express's 4-6-5 layout is read too.
    Presidio's ``CreditCardRecognizer`` only knows prefixes 1/3/4/5/6 and 13-16 digits, so
    2-series Mastercard (2221-2720), 12-digit Maestro and 17-19 digit cards (Maestro,
    UnionPay) pass it.
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    class LuhnCardRecognizer(PatternRecognizer):
        def validate_result(self, pattern_text: str) -> bool:
            return card_value_ok(pattern_text)

    return LuhnCardRecognizer(
        supported_entity="CREDIT_CARD",
        name="Card number (Luhn, 12-19 digits)",
        patterns=[Pattern("card digits", r"(?<![\d+-])\d{4}(?:[ -]?\d{1,6}){1,4}(?![\d-])", 0.3)],
        context=["card", "credit", "visa", "mastercard", "carte", "karte", "tarjeta", "carta"],
        supported_language=language,
    )


#: An IBAN-shaped run in any case: country letters, check digits, then groups of 1-4 characters.
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{1,4}){2,9}")
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}")
_IBAN_GROUP_END = re.compile(r"[A-Za-z0-9](?=[ -]|$)")


def iban_recognizer_class() -> type:
    from presidio_analyzer.predefined_recognizers import IbanRecognizer

    class CaseInsensitiveIbanRecognizer(IbanRecognizer):
        """IBANs written in lower case too ("fr76 3000 ...").

        Presidio's patterns and country formats are upper case, and a case-insensitive flag
        makes its country check reject the value. Each IBAN-shaped run holding a lower-case
        letter is upper-cased and checked by Presidio, dropping trailing groups one at a time
        (the run may swallow the next word): kept only when the check digits and the country's
        format agree (score 1.0), so lower case adds no unchecked match.
        """

        def analyze(
            self, text: str, entities: Any, nlp_artifacts: Any = None, regex_flags: Any = None
        ):
            results = list(super().analyze(text, entities, nlp_artifacts, regex_flags))
            for start in _IBAN_START.finditer(text):  # every start: a run may swallow the next IBAN
                m = _IBAN_CANDIDATE.match(text, start.start())
                if m is None or not any(c.islower() for c in m.group(0)):
                    continue
                ends = [m.start() + e.end() for e in _IBAN_GROUP_END.finditer(m.group(0))]
                for end in sorted(ends, reverse=True):
                    if end - m.start() < 15:  # the shortest IBAN (Norway) has 15 characters
                        break
                    piece = text[m.start() : end].upper()
                    found = super().analyze(piece, entities, nlp_artifacts, regex_flags)
                    whole = [
                        r for r in found if r.start == 0 and r.end == len(piece) and r.score >= 1.0
                    ]
                    if whole:
                        whole[0].start, whole[0].end = m.start(), end
                        results.append(whole[0])
                        break
            return results

    return CaseInsensitiveIbanRecognizer


_NOT_A_PHONE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"  # dates
    r"|\d{3}-\d{2}-\d{4}|\d{1,3}(?:\.\d{1,3}){3}|\d{5}-\d{4}"  # SSN, IPv4, ZIP+4
    r"|(?:19|20)\d\d(?: ?[-/] ?| )(?:19|20)\d\d(?: (?:19|20)\d\d)*"  # years, a range of years
    r"|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"  # a compact date (20240312)
)


def national_phone_recognizer(language: str) -> Any:
    """Phone numbers in the national formats of the regions Presidio's matcher does not scan.

    A phone-shaped run of 8 to 13 digits (no date, SSN, IPv4 or ZIP+4 shape) is kept when
    libphonenumber finds it a valid number (``is_valid_number``: length and prefix of an
    assigned range) in one of those regions, e.g. Spanish "699 956 915", Italian "347 123 4567";
    an unbroken run of digits is dropped after an identifier word ("Invoice 12345678", "order
    number", :data:`IDENTIFIER_WORD`) ending within 25 characters before it, and no run is read
    after "#" ("Order #12345678").
    """
    import phonenumbers
    from presidio_analyzer import Pattern, PatternRecognizer

    rest = tuple(r for r in PHONE_REGIONS if r not in MATCHER_PHONE_REGIONS)
    # a run is kept when any region finds it valid, so the order only decides how soon the
    # loop stops: the regions that accept most runs first (NATIONAL_FIRST), the same answers
    regions = tuple(r for r in NATIONAL_FIRST if r in rest)
    regions += tuple(r for r in rest if r not in regions)

    class NationalPhoneRecognizer(PatternRecognizer):
        def validate_result(self, pattern_text: str) -> bool | None:
            value = pattern_text.strip()
            digits = re.sub(r"\D", "", value)
            if (
                not 8 <= len(digits) <= 13
                or _NOT_A_PHONE.fullmatch(value)
                or _DATE_FIRST.match(value)
                or _THOUSANDS.fullmatch(value)
            ):
                return False
            for region in regions:
                try:
                    number = phonenumbers.parse(value, region)
                except phonenumbers.NumberParseException:
                    continue
                if phonenumbers.is_valid_number(number):
                    return None  # keep the pattern's score (context words may raise it)
            return False

        def analyze(
            self, text: str, entities: Any, nlp_artifacts: Any = None, regex_flags: Any = None
        ):
            if not has_digit(text):
                return []  # the pattern needs digits (the same answer, without its scan)
            results = super().analyze(text, entities, nlp_artifacts, regex_flags) or []
            return [
                r
                for r in results
                if not (
                    text[r.start : r.end].isdigit()
                    and (
                        IDENTIFIER_WORD.search(text[max(0, r.start - _IDENTIFIER_REACH) : r.start])
                        or r.end - r.start <= 11  # amounts and counts: 8-11 digits only
                        and (
                            QUANTITY_WORD.search(
                                text[max(0, r.start - _IDENTIFIER_REACH) : r.start]
                            )
                            or QUANTITY_WORD.search(text[r.end : r.end + _IDENTIFIER_REACH])
                            or text[: r.start].rstrip().endswith(("$", "€", "£", "¥"))
                        )
                    )
                )
            ]

    return NationalPhoneRecognizer(
        supported_entity="PHONE_NUMBER",
        name="Phone number (European national formats)",
        patterns=[
            Pattern(
                "national phone", r"(?<![\w+.,/:#-])\(?\d[\d()./ -]{6,18}\d(?![\w.,/-]?\d)", 0.4
            )
        ],
        context=[
            "phone",
            "tel",
            "telephone",
            "mobile",
            "call",
            "number",
            "téléphone",
            "portable",
            "appeler",
            "telefon",
            "handy",
            "rufen",
            "teléfono",
            "móvil",
            "llamar",
            "telefono",
            "cellulare",
            "numero",
            "chiamare",
        ],  # fmt: skip
        supported_language=language,
    )


# ----------------------------------------------------------------------------- national identifiers
_NIR = (
    r"(?<![\w-])[12][ .]?\d{2}[ .]?(?:0[1-9]|1[0-2]|[2-9]\d)[ .]?(?:\d{2}|2[ABab])[ .]?\d{3}"
    r"[ .]?\d{3}[ .]?\d{2}(?![\w-])"
)


_NIR_SHAPE = re.compile(r"[12]\d{2}(?:0[1-9]|1[0-2]|[2-9]\d)(?:\d{2}|2[AB])\d{8}")


def nir_valid(value: str) -> bool:
    """French social security number (NIR): 13 characters then the key 97 - (number mod 97).

    Sex digit 1 or 2, then year, month, department, commune, order. Corsican departments 2A
    and 2B count as 19 and 18 in the number (INSEE's rule).
    """
    compact = re.sub(r"[ .]", "", value).upper()
    if len(compact) != 15 or not _NIR_SHAPE.fullmatch(compact):
        return False  # sex digit 1 or 2, month 01-12 (or 20-99, unknown), department
    body = compact[:13].replace("2A", "19", 1).replace("2B", "18", 1)
    if not (body.isdigit() and compact[13:].isdigit()):
        return False
    return 97 - int(body) % 97 == int(compact[13:])


def nir_recognizer(language: str) -> Any:
    """French NIR (numéro de sécurité sociale) with its key checked: score 1.0 when valid."""
    from presidio_analyzer import Pattern, PatternRecognizer

    class NirRecognizer(PatternRecognizer):
        def validate_result(self, pattern_text: str) -> bool:
            return nir_valid(pattern_text)

    return NirRecognizer(
        supported_entity="FR_NIR",
        name="French social security number (NIR, key checked)",
        patterns=[Pattern("NIR", _NIR, 0.5)],
        context=["sécurité sociale", "securite sociale", "nir", "insee", "social security"],
        supported_language=language,
    )


# ----------------------------------------------------------------------------- phone layouts
#: A phone (not after a letter, a digit and a colon or a dot as in a clock time or a decimal
#: number, or "#" as in "Order #12345678"; "tel:+33..." and "Tel.0161..." are read): an optional
#: country code (+33, 0033, "+(370)") with an optional trunk or area code in brackets after it
#: ("+44(0)", "+52(55)"), or a trunk or country code before a bracket ("1 (197)", "8 (912)"), an
#: optional area code or country code in brackets ("(0471)", "(+358)"), up to six digit groups
#: split by single spaces, hyphens, dots or slashes ("03668/145384"), and an optional extension
#: ("x89", "ext. 12").
PHONE_LAYOUT = (
    r"(?<![\w+,/$€£¥#-])(?<!\d[.:])(?<!\.\.)"
    r"(?:(?:\+|00)\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?|\+\(\d{1,4}\)[ .-]?|\d{1,3}[ .-]?(?=\())?"
    r"(?:\(\+?\d{1,5}\)[ .-]?)?"
    r"\d{1,15}(?:[ ./-]\d{1,10}){0,5}"
    r"(?:[ ]?(?:x|ext\.?|extension)[ ]?\d{1,5})?"
    r"(?![\w.,/:-]?\d)"
)
_EXTENSION = re.compile(r"[ ]?(?:x|ext\.?|extension)[ ]?\d{1,5}$")
#: Thousands grouping ("1 234 567", "12.345.678"): an amount, not a phone.
_AMOUNT = re.compile(r"\d{1,2}(?:[ .,]\d{3}){2,}")
#: A date, then a time or more digits ("2024-03-12 10:30"): the date's digits are no phone's.
_DATE_FIRST = re.compile(r"(?:\d{4}([-/.])\d{1,2}\1\d{1,2}|\d{1,2}([-/.])\d{1,2}\2\d{4})\b")
#: The North American layout, 3-3-4 digits with one separator ("495-461-1139"), maybe after the
#: trunk prefix 1 ("1-183-087-4161"), 3-7 with a hyphen ("114-4269420", also a German area
#: code and number), or 2-4-4 with a hyphen before the last four (Brazil's "11 3456-7890", Japan's
#: "03-1234-5678"): a phone even without a cue word, whether or not the area code is assigned.
_NANP_LAYOUT = re.compile(r"(?:1[-. ])?\d{3}([-. ])\d{3}\1\d{4}|\d{3}-\d{7}|\d{2}[ -]\d{4}-\d{4}")
#: Thousands split by dots or commas ("12.345.678"); spaces also split phone groups ("0 800 123 456").
_THOUSANDS = re.compile(r"\d{1,3}(?:[.,]\d{3}){2,}")
_IBAN_HEAD = re.compile(r"[A-Za-z]{2}\d{2}[ -]$")
#: Words that make a digit run a phone number when one of them ends within 60 characters before it
#: ("cellar", "cello", "television" and "telescope" are no phone words).
_PHONE_CUE = re.compile(
    r"\b(?:phone|tel(?!evision|escope)|telephone|mobile|cell(?!ars?\b|os?\b|ists?\b)|call|called|"
    r"calling|fax|contact|reach|dial|ring|text|"
    r"sms|whatsapp|hotline|number|téléphone|portable|appeler|telefon|handy|rufen|teléfono|móvil|"
    r"llamar|telefono|cellulare|numero|número|chiamare)\w*\b",
    re.IGNORECASE,
)
#: Cue words that make even an unbroken run of digits a phone ("call me at 9290810033"): the
#: cues of :data:`_PHONE_CUE` without "number", "contact" and "text", which also precede order,
#: account and card numbers ("text me", "text us" are strong).
_STRONG_PHONE_CUE = re.compile(
    r"\b(?:phone|tel(?!evision|escope)|telephone|mobile|cell(?!ars?\b|os?\b|ists?\b)|call|called|"
    r"calling|fax|reach|dial|ring|sms|whatsapp|"
    r"hotline|téléphone|portable|appeler|telefon|handy|rufen|teléfono|móvil|llamar|telefono|"
    r"cellulare|chiamare)\w*\b|\btext(?:ed|ing)? (?:me|us|him|her|them)\b",
    re.IGNORECASE,
)
_UNBROKEN = re.compile(r"\d{7,15}")
#: Weak cues ("my number is", "contact me at", "text 0770...") make an unbroken run of 10-13
#: digits (a national number with its area code, or with its country code) a phone when no identifier word stands
#: near them ("account number", "order number", "case number" precede other numbers).
_WEAK_PHONE_CUE = re.compile(r"\b(?:number|no\.|contact|text)\b", re.IGNORECASE)
IDENTIFIER_WORD = re.compile(
    r"\b(?:account|acct|order|card|invoice|reference|ref|customer|client|policy|case|ticket|"
    r"tracking|serial|id|iban|passport|licen[cs]e|ssn|social|security|member(?:ship)?|patient|"
    r"employee|registration|transaction|confirmation|booking|routing|sort|tax|vat|insurance|"
    r"claim|document|file|bank|loan|contract|shipment|parcel|item|product|model|part|version|"
    r"student|badge|voucher|coupon|pin|code|isbn|identification|record|receipt|batch|lot)\b",
    re.IGNORECASE,
)
#: Words near a run that make it an amount, a count or a transfer rather than a phone.
QUANTITY_WORD = re.compile(
    r"\b(?:population|total|amount|balance|sum|paid|pay|price|cost|salary|revenue|budget|"
    r"transfer\w*|deposit\w*|withdr\w*|owed?|worth|usd|eur|gbp|dollars?|euros?|pounds?|"
    r"units?|people|items|bytes|km|miles|meters|votes|views|times|shares|rows|records)\b",
    re.IGNORECASE,
)
_WEAK_CUE_REACH = 30
_IDENTIFIER_REACH = 25


def weakly_cued_phone(before: str, value: str) -> bool:
    """Whether an unbroken run of 10-13 digits is a phone after a weak cue word ending within
    30 characters before it, no identifier word between the cue (or 25 characters before it)
    and the number."""
    if not 10 <= len(value) <= 13:
        return False
    cues = list(_WEAK_PHONE_CUE.finditer(before[-_WEAK_CUE_REACH:]))
    if not cues:
        return False
    start = len(before) - min(len(before), _WEAK_CUE_REACH) + cues[-1].start()
    return not IDENTIFIER_WORD.search(before[max(0, start - _IDENTIFIER_REACH) :])


#: A number of four digits or more, then a space and a whole North American number (maybe with
#: an extension): a postcode or another number before the phone, read into it by the layout.
_NUMBER_BEFORE_NANP = re.compile(
    r"\d{4,} (?=(?:\(\d{3}\) ?\d{3}-\d{4}|\d{3}([-.])\d{3}\1\d{4})"
    r"(?:[ ]?(?:x|ext\.?|extension)[ ]?\d{1,5})?$)"
)


def strongly_cued_phone(before: str) -> bool:
    """Whether a strong cue word (:data:`_STRONG_PHONE_CUE`) ends in ``before`` (the 60
    characters before an unbroken run of digits) with no identifier word after it ("call about
    invoice 12345678": the invoice's number)."""
    cues = list(_STRONG_PHONE_CUE.finditer(before))
    return bool(cues) and not IDENTIFIER_WORD.search(before[cues[-1].end() :])


#: A cue after the number, in the same clause ("86 9217-4218 is the number of the desk").
_CUE_AFTER = 30


def phone_layout_value_ok(value: str) -> bool:
    """Whether a matched run can be a phone: 7-15 digits before any extension, at least one
    separator, bracket or plus sign, and no date, SSN, IPv4, ZIP+4, amount or card shape."""
    core = _EXTENSION.sub("", value)
    digits = re.sub(r"\D", "", core)
    if not 7 <= len(digits) <= 15 or not re.search(r"[ ./()+-]", core):
        return False
    if _NOT_A_PHONE.fullmatch(core) or _AMOUNT.fullmatch(core) or _DATE_FIRST.match(core):
        return False
    # a card number is never written after a plus sign (the card recognizer skips such runs),
    # so "+43 792860909446" is a phone even when its digits pass Luhn by chance
    return value.startswith("+") or not card_value_ok(core)


def phone_layout_recognizer(language: str) -> Any:
    """Phone numbers by layout, valid or not in any numbering plan ("(766)217-6031x3721").

    A run passing :func:`phone_layout_value_ok` scores 0.9 when a phone cue word ("call",
    "phone", "tel", "number", ...) ends within 60 characters before it or starts within 30
    characters after it in the same clause, 0.6 without a cue when the layout alone says phone
    (country code, bracketed area code, extension, or the North American 3-3-4 digits), and is
    dropped otherwise. An unbroken run
    of 7-15 digits ("9290810033") is kept only after a strong cue (:data:`_STRONG_PHONE_CUE`:
    not "number", which also precedes order and account numbers), or with 10-13 digits after a
    weak cue with no identifier word near it (:func:`weakly_cued_phone`), and when it is no
    card or compact date. The high score lets it win over a date the NER model reads in the digits.
    """
    from presidio_analyzer import Pattern, PatternRecognizer

    class PhoneLayoutRecognizer(PatternRecognizer):
        def validate_result(self, pattern_text: str) -> bool | None:
            value = pattern_text.strip()
            if phone_layout_value_ok(value) or (
                _UNBROKEN.fullmatch(value)
                and not _NOT_A_PHONE.fullmatch(value)
                and not card_value_ok(value)
            ):
                return None
            return False

        def analyze(
            self, text: str, entities: Any, nlp_artifacts: Any = None, regex_flags: Any = None
        ):
            kept = []
            for r in super().analyze(text, entities, nlp_artifacts, regex_flags) or []:
                before = text[max(0, r.start - 60) : r.start]
                if _IBAN_HEAD.search(before):
                    continue
                value = text[r.start : r.end]
                head = _NUMBER_BEFORE_NANP.match(value)
                if head:  # "IL 62704 555-123-4567": the postcode is no part of the phone
                    r.start += head.end()
                    value, before = text[r.start : r.end], text[max(0, r.start - 60) : r.start]
                after = re.split(r"[.!?;\n]", text[r.end : r.end + _CUE_AFTER], maxsplit=1)[0]
                if _UNBROKEN.fullmatch(value):
                    if not (strongly_cued_phone(before) or weakly_cued_phone(before, value)):
                        continue
                    r.score = 0.9
                elif _PHONE_CUE.search(before) or _PHONE_CUE.search(after):
                    r.score = 0.9
                elif (
                    value.startswith(("+", "00", "("))
                    or "(" in value
                    or _EXTENSION.search(value)
                    or _NANP_LAYOUT.fullmatch(value)
                ):
                    r.score = 0.6
                else:
                    continue
                kept.append(r)
            return kept

    return PhoneLayoutRecognizer(
        supported_entity="PHONE_NUMBER",
        name="Phone number (layout and cue words)",
        patterns=[Pattern("phone layout", PHONE_LAYOUT, 0.4)],
        supported_language=language,
    )
