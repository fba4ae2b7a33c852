"""Street addresses and postcodes in free text (:mod:`anon_core.pii.addresses`).

Every sentence is hand-written (streets, names and numbers invented); the expected span is the
whole address as a person would mark it: number, street, unit, city, region, postcode, country.
The "left alone" sentences hold numbers and capitalised words that a careless rule would take
for a street. The last test runs the recognizer on Faker addresses of 22 locales.
"""

from __future__ import annotations

import pytest

from anon_core.pii.addresses import find_addresses, find_postcodes, normal_case
from anon_core.pii.places import find_capitalised_places, find_countries
from tests.conftest import found_entities


def _found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_addresses(text)]


@pytest.mark.parametrize(
    "text, address",
    [
        # US, with unit, city, state and ZIP+4
        ("Mail it to 4410 Larkspur Lane, Apt 3B, Dayton, OH 45402-1123.",
         "4410 Larkspur Lane, Apt 3B, Dayton, OH 45402-1123"),
        # lower case, after a cue
        ("she lives at 72 birch road, hull", "72 birch road, hull"),
        # British, on several lines, the unit on its own line and no house number
        ("Ship to:\nFlat 4\nCorbett Mews\nLower Hadley\nNE3 2QT",
         "Flat 4\nCorbett Mews\nLower Hadley\nNE3 2QT"),
        # Australian: state and postcode after commas
        ("Deliver to 9 Waratah Parade, Glenroy, VIC, 3046 by noon.",
         "9 Waratah Parade, Glenroy, VIC, 3046"),
        # German: one-word street with its ending, postcode and city on the next line
        ("Anschrift:\nLindenhofstraße 12a\n04109 Leipzig", "Lindenhofstraße 12a\n04109 Leipzig"),
        # Austrian door number, city with particles
        ("Bitte an Mühlgasse 4/7, 5020 Salzburg am See senden.", "Mühlgasse 4/7, 5020 Salzburg am See"),
        # French: number, comma, lower-case street word, postcode and city
        ("Le dossier part au 8, impasse des Glycines, 31400 Toulouse.",
         "8, impasse des Glycines, 31400 Toulouse"),
        # Italian: comma before the number, province in brackets
        ("Spedire a Vicolo Ronchi, 15\n20121, Milano (MI)", "Vicolo Ronchi, 15\n20121, Milano (MI)"),
        # Spanish with floor
        ("Envíe a Calle Olmo Seco 23 Piso 2, Zamora, 49001.", "Calle Olmo Seco 23 Piso 2, Zamora, 49001"),
        # Portuguese postcode with hyphen
        ("Morada: Rua das Oliveiras, 88\n4700-321 Braga", "Rua das Oliveiras, 88\n4700-321 Braga"),
        # Polish
        ("Adres: ul. Kwiatowa 17, 31-512 Kraków", "ul. Kwiatowa 17, 31-512 Kraków"),
        # Dutch postcode with letters
        ("Stuur het naar Beukenlaan 21\n2314 KX Leiden", "Beukenlaan 21\n2314 KX Leiden"),
        # Danish and Finnish one-word streets
        ("He moved to Fyrrevej 9, 8000 Aarhus C last May.", "Fyrrevej 9, 8000 Aarhus C"),
        ("Osoite: Koivukatu 14, 00510 Helsinki", "Koivukatu 14, 00510 Helsinki"),
        # quoted e-mail lines
        ("> Tom Aldridge\n> 51 Quarry Hill Road\n> Suite 200\n> Burlington, VT 05401",
         "51 Quarry Hill Road\n> Suite 200\n> Burlington, VT 05401"),
        # a building number before the street, as some forms write it
        ("Return to 120 Elmsgate 44, Tallinn, Estonia 10115.", "120 Elmsgate 44, Tallinn, Estonia 10115"),
        # a word with a house number is a street after a cue
        ("Jon lives on Vesterbro 31.", "Vesterbro 31"),
        # post-office boxes, military addresses
        ("Write to P.O. Box 7702, Reno, NV 89510.", "P.O. Box 7702, Reno, NV 89510"),
        ("PSC 1203, Box 44\nAPO AE 09012", "PSC 1203, Box 44\nAPO AE 09012"),
    ],
)  # fmt: skip
def test_whole_addresses_are_found(text, address):
    assert _found(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "The invoice lists 300 Euros 45 days ago.",
        "Chapter 5 covers Spring 2020 and Windows 10.",
        "Room 101 is on Floor 3, next to Gate 12.",
        "Take 2 Tablets every 8 hours for 5 days.",
        "Flight 447 boards at 10:45 from Terminal 2.",
        "Order 55213 contains 3 Blue Widgets and 1 Red Lamp.",
        "The rue is on the route to the old town.",
        "We met via Zoom 3 times.",
        "Apollo 11 landed in 1969; Python 3 came out in 2008.",
        "The score was 21 to 14 in Round 2.",
    ],
)
def test_numbers_and_capitalised_words_are_not_addresses(text):
    assert _found(text) == []


def test_the_address_stops_before_the_sentence_goes_on():
    text = "I moved to 14 Quayside Close, Whitby and I love it there."
    assert _found(text) == ["14 Quayside Close, Whitby"]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # the town ends the sentence: the next sentence's first word is no part of the town
        (
            "Son adresse : 21, rue Blanc, 67000 Strasbourg. Merci de noter.",
            "21, rue Blanc, 67000 Strasbourg",
        ),
        (
            "Adresse de livraison : 3, place Lemoine, 13001 Marseille. Livraison avant midi.",
            "3, place Lemoine, 13001 Marseille",
        ),
        # the street ends the sentence
        ("J'habite 21, rue Blanc. Merci de noter.", "21, rue Blanc"),
        # an abbreviation's full stop does not end the name
        (
            "He lives at 12 Kramer Court, St. Louis, MO 63101.",
            "12 Kramer Court, St. Louis, MO 63101",
        ),
        ("Via Prof. Rossi 12, 00100 Roma", "Via Prof. Rossi 12, 00100 Roma"),
    ],
)
def test_a_full_stop_after_the_town_or_street_ends_the_address(text, address):
    assert _found(text) == [address]


def test_a_phone_line_under_an_address_is_not_part_of_it():
    text = "Ann Vogel\nGartenweg 3\n79098 Freiburg\nTel. 0761 123456"
    assert _found(text) == ["Gartenweg 3\n79098 Freiburg"]


@pytest.mark.parametrize(
    "text, code",
    [
        ("My zip code is 60614.", "60614"),
        ("Postcode: EH8 9YL", "EH8 9YL"),
        ("PLZ 80331, bitte.", "80331"),
        ("Code postal : 75011", "75011"),
        ("Our new office is in the M5V 2T6 area.", "M5V 2T6"),  # Canadian shape, no cue
        ("Billing ZIP+4 is on file as 30301-0042.", "30301-0042"),  # ZIP+4 shape
        ("Her zipcode, 4896 VR, was missing.", "4896 VR"),  # a comma after the cue
        ("Zip code: 557-2136", "557-2136"),  # Japan's layout, after a cue only
    ],
)
def test_postcodes_after_a_cue_or_of_an_unmistakable_shape(text, code):
    assert [text[f.start : f.end] for f in find_postcodes(text)] == [code]


@pytest.mark.parametrize(
    "text",
    [
        "The order number is 60614.",
        "He paid 75011 euros.",
        "In 2019 we had 45402 visitors.",
        "Call 555-1234 after noon.",  # Japan's postcode layout without a cue: a phone
    ],
)
def test_a_number_alone_is_no_postcode(text):
    assert find_postcodes(text) == []


def test_the_engine_reports_addresses_and_postcodes(english):
    text = "Please send the form to 4410 Larkspur Lane, Dayton, OH 45402. My zip code is 60614."
    found = found_entities(english, text)
    assert ("STREET_ADDRESS", "4410 Larkspur Lane, Dayton, OH 45402") in found
    assert ("ZIP_CODE", "60614") in found


# ----------------------------------------------------------------------------- Faker locales
#: Recall of whole addresses (character overlap >= 0.9) on Faker's addresses of 22 locales, in
#: sentences of ``benchmarks/bench_pii_addresses.py``, seed 11 (not the seed the recognizer was
#: tuned on, 7). Observed: 0.977 (seed 7), 0.946 (seed 11), 0.946 (seed 23), 0.935 (seed 31) of
#: 352 addresses; with the Australian types added, 0.977, 0.955, 0.952, 0.957 (PYTHONHASHSEED=0).
#: One locale's layout lost costs 16 of 352 (4.5 points), so a floor of 0.91
#: fails on that and leaves 3.6 points for other Faker versions. Brazil and Australia are left
#: out of the per-locale floor: Faker writes street types there that are not known ("Vereda",
#: "Favela", "Little", ...), a documented miss (Australia: 0.31 to 0.94 by seed before the
#: Australian types that are no common word were added, 0.75 to 0.94 after).
FAKER_FLOOR = 0.91
LOCALE_FLOOR = 0.5


def test_recall_on_faker_addresses_of_many_locales():
    from benchmarks.bench_pii_addresses import development_set

    found: dict[str, int] = {}
    total: dict[str, int] = {}
    for row in development_set(per_template=2, seed=11):
        text = row["text"]
        if text.startswith("She moved from"):
            continue  # "city, country" alone is the NER model's, not the recognizer's
        hits = find_addresses(text)
        for start, end, kind in row["spans"]:
            if kind != "LOCATION":
                continue
            gold = {i for i in range(start, end) if not text[i].isspace()}
            guess = {
                i
                for f in hits
                if f.start < end and start < f.end
                for i in range(f.start, f.end)
                if not text[i].isspace()
            }
            ok = bool(guess) and len(gold & guess) / len(gold | guess) >= 0.9
            found[row["locale"]] = found.get(row["locale"], 0) + ok
            total[row["locale"]] = total.get(row["locale"], 0) + 1
    assert len(total) == 22 and sum(total.values()) == 352
    recall = sum(found.values()) / sum(total.values())
    assert recall >= FAKER_FLOOR, recall
    weak = {loc: found[loc] / total[loc] for loc in total if found[loc] / total[loc] < LOCALE_FLOOR}
    assert set(weak) <= {"pt_BR", "en_AU"}, weak


@pytest.mark.parametrize(
    "text, place",
    [
        ("After that she worked at a bakery in TROMSØ for two years.", ["TROMSØ"]),
        ("The parcel came from BAD GODESBERG yesterday.", ["BAD GODESBERG"]),
        ("It is written in HTML and was paid for by NASA.", []),  # acronyms
        ("IN ADDITION, THE FORM IS DUE.", []),  # shouted text, not a place
    ],
)
def test_towns_in_capitals_after_a_place_word(text, place):
    assert [text[f.start : f.end] for f in find_capitalised_places(text)] == place


@pytest.mark.parametrize(
    "text, places",
    [
        ("She moved from Brightwater Falls, Canada in 2019.", ["Brightwater Falls, Canada"]),
        ("Vila Nova de Cerveira, Portugal", ["Vila Nova de Cerveira, Portugal"]),
        ("He lives in France now.", ["France"]),
        ("I love Amman, Jordan.", ["Amman, Jordan"]),
        ("Michael Jordan played for Chicago.", []),  # a country name that is a given name
        ("Write to Bruce Stafford, Germany.", ["Germany"]),  # a person is no town
    ],
)
def test_countries_with_the_town_before_them(text, places):
    assert [text[f.start : f.end] for f in find_countries(text)] == places


def test_a_date_is_not_a_street_with_a_postcode():
    assert _found("Visit summary for Ann Lee, born June 9, 1948. Lives at 12 Oak Lane.") == [
        "12 Oak Lane"
    ]


@pytest.mark.parametrize(
    "text, address",
    [
        (
            "she lives at 9 cedar avenue, apt 4, leeds ls6 2ab",
            "9 cedar avenue, apt 4, leeds ls6 2ab",
        ),
        ("SHIP TO 41 KÖNIGSALLEE 12, 40212 DÜSSELDORF", "41 KÖNIGSALLEE 12, 40212 DÜSSELDORF"),
        ("address: 200 rue des lilas, 59000 lille", "200 rue des lilas, 59000 lille"),
    ],
)
def test_addresses_in_text_written_in_one_case(text, address):
    assert _found(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "chapter 5 covers spring 2020 and windows 10.",
        "ORDER 55213 CONTAINS 3 BLUE WIDGETS AND 1 RED LAMP.",
        "page 17 of annex 4 lists 250 items.",
    ],
)
def test_one_case_text_without_an_address(text):
    assert _found(text) == []


def test_recasing_keeps_every_offset():
    # hand-worked: stop words and street types stay lower case, words with digits go upper case
    assert normal_case("eva lives at 12a main street") == "Eva lives at 12A Main street"
    assert normal_case("Mixed Case 12") is None
