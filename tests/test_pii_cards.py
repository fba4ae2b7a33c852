"""Payment card numbers: Luhn-valid numbers of every issuer and layout are found, others are not.

The hand-written numbers' Luhn digits are worked by hand in the comments. The generated set
takes Faker's card numbers (Faker computes the Luhn digit itself, so it is an independent
oracle) of every card type it knows, written unbroken, in groups of four split by spaces and by
hyphens, inside sentences written for this test.
"""

from __future__ import annotations

import re

import pytest

from anon_core.pii.checksums import card_number_valid
from tests.conftest import found_entities

#: Payload 67594123587 reversed is 7 8 5 3 2 1 4 9 5 7 6; doubling every other digit from the
#: first gives 5 (14) 8 1 (10) 3 4 1 8 9 1 (10) 7 3 (12), sum 50, so the Luhn digit is 0.
MAESTRO_12 = "675941235870"
#: Payload 41111111111: five doubled ones (10), the doubled 4 (8), five ones (5): sum 23, digit 7.
#: Luhn-valid but a Visa prefix, and Visa issues 13, 16 or 19 digits, never 12.
VISA_PREFIX_12 = "411111111117"


def test_card_number_rules_by_hand():
    assert card_number_valid(MAESTRO_12)
    assert card_number_valid("6759 4123 5870")
    assert not card_number_valid("675941235871")  # last digit changed: Luhn fails
    assert not card_number_valid(VISA_PREFIX_12)  # 12 digits without a Maestro prefix
    assert not card_number_valid("67594123587")  # 11 digits
    assert not card_number_valid("000000000000")  # Luhn sum 0, but one repeated digit


@pytest.mark.parametrize(
    "text, card",
    [
        (f"Please charge my card {MAESTRO_12} for the order.", MAESTRO_12),
        ("The Maestro card 6759 4123 5870 was declined.", "6759 4123 5870"),
        ("Paid with 6759-4123-5870 at the desk.", "6759-4123-5870"),
    ],
)
def test_twelve_digit_maestro_cards_are_found(english, text, card):
    assert ("CREDIT_CARD", card) in found_entities(english, text)


@pytest.mark.parametrize(
    "text",
    [
        "Please charge my card 675941235871 for the order.",  # Luhn fails
        f"Order {VISA_PREFIX_12} ships on Monday.",  # no 12-digit issuer has prefix 4
        "Reference 675 941 235 870 is on the form.",  # a 12-digit card is unbroken or 4-4-4
    ],
)
def test_twelve_digit_numbers_that_are_no_cards_stay_untagged(english, text):
    assert "CREDIT_CARD" not in {e for e, _ in found_entities(english, text)}


def test_a_number_after_a_plus_sign_is_a_phone_not_a_card(english):
    # the digits are MAESTRO_12's, but a plus sign opens an international phone number
    found = found_entities(english, f"Call me on +{MAESTRO_12} tonight.")
    assert ("PHONE_NUMBER", f"+{MAESTRO_12}") in found
    assert "CREDIT_CARD" not in {e for e, _ in found}


def test_a_number_starting_with_zero_is_no_card(english):
    # 00420778216408 passes Luhn: from the right 8, 0*2=0, 4, 6*2=12->3, 1, 2*2=4, 8, 7*2=14->5,
    # 7, 0, 2, 4*2=8, 0, 0: sum 50. But no issuer number starts with 0 ("00" dials abroad)
    from anon_core.pii.recognizers import card_value_ok

    assert card_number_valid("00420778216408")
    assert not card_value_ok("00420778216408")
    found = found_entities(english, "Please call me at 00420 778 216 408 tomorrow.")
    assert found == [("PHONE_NUMBER", "00420 778 216 408")]


CARD_TYPES = (
    "amex", "diners", "discover", "jcb15", "jcb16", "maestro", "mastercard", "visa13", "visa16",
    "visa19",
)  # fmt: skip
SENTENCES = (
    "Please charge my card {} for the order.",
    "{} was declined yesterday.",
    "The number on the card is {}",
    "Paid with {} at the front desk on Monday.",
    "card: {}\nexpires 04/27",
    "I used my {} to book the room.",
)


def _layouts(number: str) -> list[str]:
    groups = re.findall(r"\d{1,4}", number)
    return [number, " ".join(groups), "-".join(groups)]


def _generated_cards() -> list[tuple[str, str]]:
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(2911)
    out = []
    for i, kind in enumerate(CARD_TYPES * 2):
        for j, card in enumerate(_layouts(fake.credit_card_number(card_type=kind))):
            out.append((SENTENCES[(i + j) % len(SENTENCES)].format(card), card))
    return out


def test_every_generated_card_number_is_found(english):
    # 60 numbers: 10 card types, 2 numbers each, 3 layouts. Card numbers carry a checksum, so
    # the floor is all of them (the target for checksum entities is 0% left verbatim); before
    # 12-digit Maestro numbers were read, the 12 Maestro numbers of this set were missed.
    cases = _generated_cards()
    texts = [t for t, _ in cases]
    results = english.analyze_batch(texts)
    from anon_core.pii.scan import resolve_overlaps

    missed = [
        card
        for (text, card), res in zip(cases, results, strict=True)
        if ("CREDIT_CARD", card)
        not in {(s.entity, text[s.start : s.end]) for s in resolve_overlaps(res, text)}
    ]
    assert missed == []


def test_generated_numbers_with_a_wrong_luhn_digit_are_not_cards(english):
    cases = []
    for text, card in _generated_cards():
        wrong = card[:-1] + str((int(card[-1]) + 1) % 10)
        cases.append(text.replace(card, wrong))
    results = english.analyze_batch(cases)
    assert not [r for res in results for r in res if r.entity_type == "CREDIT_CARD"]


def test_residual_check_counts_a_12_digit_maestro_card_left_in_text():
    # the check after de-identification uses the recognizer's own rule: a 12-digit Maestro
    # number left verbatim is a card pattern; the same digits with the Luhn digit changed are
    # not (MAESTRO_12's Luhn digit is worked above)
    import pandas as pd

    from anon_core.pii.residual import residual_identifiers

    left = pd.DataFrame({"note": [f"Card {MAESTRO_12} on file.", "Ref 675941235871 on file."]})
    check = residual_identifiers(left, left, ["note"])
    assert check.by_kind.get("card pattern") == 1
