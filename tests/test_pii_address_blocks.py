"""Address blocks and cued one-line addresses in any script (:mod:`anon_core.pii.addresses`).

Hand-written examples in the layouts of Presidio's evaluation corpus (streets, towns and
numbers invented): a block of lines opening with a house number and closing with a country and
its postcode is one address whatever the script of its street and town; after a cue ("lives
at", "his address:") a house number, a street, a comma and a town are one address. The "left
alone" texts hold numbered lines and numbers after cue-like words that are no address.
"""

from __future__ import annotations

import pytest

from anon_core.pii.addresses import find_addresses


def _found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_addresses(text)]


@pytest.mark.parametrize(
    "text, address",
    [
        # Arabic street and town, unit line, blank line, country and postcode
        (
            "Samir Haddad\n\n3448 7 شارع الورد\n Suite 567\n أزفون\n\n Algeria 05572",
            "3448 7 شارع الورد\n Suite 567\n أزفون\n\n Algeria 05572",
        ),
        # quoted lines, Cyrillic street and town
        (
            ">Ivan Petrov\n>Acme Ltd\n>2949 ул. Лесная 8\n>Apt. 010\n>Тында\n>Russia 285937",
            "2949 ул. Лесная 8\n>Apt. 010\n>Тында\n>Russia 285937",
        ),
        # a Greek street with no known street word, town in capitals
        (
            "Ann Lee\n\n41 Μεγάλη Άμμος 184\n Apt. 12\n ΠΑΦΟΣ\n\n Cyprus 8040",
            "41 Μεγάλη Άμμος 184\n Apt. 12\n ΠΑΦΟΣ\n\n Cyprus 8040",
        ),
        # an Irish Eircode after the country
        (
            "Mary Byrne\n\n12 Kyne Street\n Apt. 7\n Holly Ville\n\n Republic of Ireland C53 3NH0",
            "12 Kyne Street\n Apt. 7\n Holly Ville\n\n Republic of Ireland C53 3NH0",
        ),
        # a first line with a comma is taken whole
        (
            ">Ana Souza\n>2458 Núcleo de Mendes, 232\n>Suite 855\n>Souza\n>Brazil 42057345",
            "2458 Núcleo de Mendes, 232\n>Suite 855\n>Souza\n>Brazil 42057345",
        ),
        # on one line between commas: building and house number, unit, town, country, postcode
        (
            "Dana Cohen\n294 אזור תעשיה 65 Apt. 719, פוריה, Israel 9939855",
            "294 אזור תעשיה 65 Apt. 719, פוריה, Israel 9939855",
        ),
    ],
)
def test_address_block_in_any_script_is_found_whole(text: str, address: str) -> None:
    assert address in _found(text)


@pytest.mark.parametrize(
    "text, address",
    [
        ("Tosh Olsen lives at 231 14 بلدية كاهينة, أرزيو", "231 14 بلدية كاهينة, أرزيو"),
        (
            "Jo had given Al his address: 6791 Орце Николов 06, ТЕТОВО.",
            "6791 Орце Николов 06, ТЕТОВО",
        ),
    ],
)
def test_cued_address_of_any_script_is_found_whole(text: str, address: str) -> None:
    assert _found(text) == [address]


@pytest.mark.parametrize(
    "text, address",
    [
        # Chilean, Mexican and Romanian units after the house number
        ("Ana lives on Bernardo O'Higgins 81 Dpto. 42 street.", "Bernardo O'Higgins 81 Dpto. 42"),
        (
            "Send it to Circuito República de Moldova 202 Interior 946, Nueva Somalia, Mexico 26094.",
            "Circuito República de Moldova 202 Interior 946, Nueva Somalia, Mexico 26094",
        ),
    ],
)
def test_spanish_units_stay_in_the_address(text: str, address: str) -> None:
    assert _found(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        # a unit word as an English word
        "The interior 3 rooms were painted.",
        # numbered lines ending in a year: sentences, not address lines
        "Results\n\n12 items were sold\n Total 500\n Germany 2020",
        # an agenda: no line of a country and its postcode
        "Agenda\n1 Budget review\n2 Hiring plan\n3 Office move\nQ3 meeting",
        # a score table closing with a two-digit total
        "Scores\n10 Alice\n Bob 12\n Carol 14\n\n Total 36",
        # an invoice: its last line is a total, not a country and its postcode
        "Invoice\n12 Blue Widgets\n Shipping\n Total 1250",
        # on one line: a lower-case last part, a year, one number in the first part
        "5 oranges, bananas, apples 1250",
        "3 days, Paris, France 2024",
        "10 runs, 4 wickets, Smith 120",
        "Room 12 and 14, Block B, Germany 2024",
        # two lines only
        "Order\n12 Blue Widgets\nTotal 1250",
        # a cue followed by a sentence, not a street and a town
        "She moved to 3 different cities, and then settled down.",
        "He lives at 5 minutes from the station, near the park.",
    ],
)
def test_numbered_lines_and_cued_numbers_are_left_alone(text: str) -> None:
    assert _found(text) == []


def test_a_first_line_that_is_a_sentence_stays_out_of_the_block() -> None:
    text = "We shipped 5 boxes, 12\n Apt. 3\n Leeds\n\n England 4000"
    assert _found(text) == ["12\n Apt. 3\n Leeds\n\n England 4000"]
