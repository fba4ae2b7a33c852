"""Whole addresses written as one piece: the parts after the street (a town and its postcode
after a space, a state's abbreviation in lower-case text, a Hungarian house number with its
dot) join it, and the sentence's own words after it do not."""

from __future__ import annotations

import pytest

from anon_core.pii.addresses import find_addresses


def _found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_addresses(text)]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # a town and its postcode after a plain space
        (
            "She lives at 4 Williams Street Wardleigh 9081 with her.",
            "4 Williams Street Wardleigh 9081",
        ),
        (
            "The new tenant at Avenida de Nydia Díez 954 Puerta 9 Zaragoza, 24501 asked twice.",
            "Avenida de Nydia Díez 954 Puerta 9 Zaragoza, 24501",
        ),
        # a street of any shape with a number, then a postcode and a town after a space
        (
            "Our office at Kožarska 8a/4 57038 Vodnjan, which opened last spring, is closed.",
            "Kožarska 8a/4 57038 Vodnjan",
        ),
        # lower-case text: the state's abbreviation before the ZIP code
        (
            "the parcel was sent to 756 kim skyway suite 232, lake michaelfort, mo 48235 yesterday.",
            "756 kim skyway suite 232, lake michaelfort, mo 48235",
        ),
        # lower-case text: a house number of three digits or more before a street type
        ("the new tenant at 849 chanya turnpike asked about the heating", "849 chanya turnpike"),
        # Hungarian: a street word after the name, the house number's dot, the postcode
        (
            "Send it to Szolnoki utca 79., H-2568 Mátrahátharaszti, Hungary.",
            "Szolnoki utca 79., H-2568 Mátrahátharaszti, Hungary",
        ),
        (
            "From Tapolcavégi tér 26., H-8805 Miskolc it is a short walk.",
            "Tapolcavégi tér 26., H-8805 Miskolc",
        ),
        # lower-case text: a province and a Canadian postcode; a street word, a name that is no
        # English word and a house number of three digits
        (
            "the tenant at 35291 taylor keys apt. 001 ashleyhaven, on k2t7l3 asked about it",
            "35291 taylor keys apt. 001 ashleyhaven, on k2t7l3",
        ),
        (
            "deliveries to pasaje de custodia santamaria 407 are made on tuesdays.",
            "pasaje de custodia santamaria 407",
        ),
        # a ship and its military post office after a space
        ("He moved from USNS Wolf FPO AE 39237 to a farm.", "USNS Wolf FPO AE 39237"),
        # lower-case text: a street type opening a town after a comma ("lake sandramouth")
        (
            "the new tenant at 27236 barron island, apt. 365, lake sandramouth, united states 31694 asked",
            "27236 barron island, apt. 365, lake sandramouth, united states 31694",
        ),
        # street words of Faker's lists: before the name (Romanian, Mexican), after it (Zulu)
        ("Send it to Soseaua Eftimie 12, Nadlac, 926413.", "Soseaua Eftimie 12, Nadlac, 926413"),
        (
            "Our office is at Calzada Norte Padilla 274, San Aurelio, QRO 63908.",
            "Calzada Norte Padilla 274, San Aurelio, QRO 63908",
        ),
        (
            "He moved from 851 Cecil Indawo, Middelburg, 9572 to a farm.",
            "851 Cecil Indawo, Middelburg, 9572",
        ),
        # a country, with its stop words, and the postcode after it
        (
            "The invoice lists 47 Noutweg 15, Kantens, Kingdom of the Netherlands 4515 KJ as paid.",
            "47 Noutweg 15, Kantens, Kingdom of the Netherlands 4515 KJ",
        ),
        (
            "Our office at 98 McKnight Street, Tonicha Ville, Republic of Ireland E30A4NE, which",
            "98 McKnight Street, Tonicha Ville, Republic of Ireland E30A4NE",
        ),
        # a military address; a month's name before a street type; a rural delivery line
        (
            "We looked at USNV Risch\nFPO AE 75282, one near the river.",
            "USNV Risch\nFPO AE 75282",
        ),
        (
            "Please send it to 1759 April Roads Suite 793\nJessicatown, LA 49380.",
            "1759 April Roads Suite 793\nJessicatown, LA 49380",
        ),
        (
            "He moved from 424 Doyle View\nRD 9\nManawahoro 2641 to a farm.",
            "424 Doyle View\nRD 9\nManawahoro 2641",
        ),
        # a Hungarian house number's dot before a postcode on the next line or after a space
        ("Pécsi utca 48.\nH-8299 Mártonnémeti is near.", "Pécsi utca 48.\nH-8299 Mártonnémeti"),
        (
            "At Tapolcavárosi utca 178. H-1143 Tapolcahalas.",
            "Tapolcavárosi utca 178. H-1143 Tapolcahalas",
        ),
        # a town alone on its line, the sentence going on after it with a stop word
        (
            "He moved from Freddylaan 739\n7741\nWalsbets to a farm outside town.",
            "Freddylaan 739\n7741\nWalsbets",
        ),
    ],
)
def test_the_parts_after_a_street_join_it(text, address):
    assert _found(text) == [address]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # a line after the address that is a sentence
        ("address: 593 Gray Track\nOpening hours are nine to five.", "593 Gray Track"),
        ("address: 77367 jessica green apt. 361\nopening hours are nine to five.", "77367 jessica green apt. 361"),
        # the sentence's words after a comma or a space
        ("our office at 497 adekunle drive, which opened last spring", "497 adekunle drive"),
        ("the parcel was sent to haasestraße 9006, 52267 sebnitz yesterday.", "haasestraße 9006, 52267 sebnitz"),
        ("we looked at 067 larry fords townsendfurt, ma 49502, one near the river", "067 larry fords townsendfurt, ma 49502"),
        # a capitalised stop word opening the sentence; the sentence's words after a street
        ("Is Tabor 9c 0321 Lenart still your home address?", "Tabor 9c 0321 Lenart"),
        ("From Elianeweg 72, 6516 Sohier it is a short walk.", "Elianeweg 72, 6516 Sohier"),
        ("The invoice lists 978 chemin Isabelle as the billing address.", "978 chemin Isabelle"),
        # a verb in the past tense after a town in lower-case text
        ("the new tenant at backgatan 1 99155 nyköping asked about it", "backgatan 1 99155 nyköping"),
        # a sentence's full stop after a street
        ("He lives at 12 Main Street. He likes it.", "12 Main Street"),
        # a year after a country or a town is no postcode
        ("She moved to 12 Main Street, Springfield, United States in 2019.", "12 Main Street, Springfield, United States"),
        ("She lives at 4 Williams Street Springfield 2020 was good.", "4 Williams Street"),
    ],
)  # fmt: skip
def test_the_sentence_after_an_address_stays_out(text, address):
    assert _found(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "we sold 250 old books in 2019.",
        "invoice 4471 was paid on march 3, 2021.",
        "In 2019 the company shipped 4410 parcels.",
        "He scored 31 Points in 2004 Finals.",
        "chapter 12, page 88: the king dies.",
        "The score was 3 to 12 in 1998.",
        "Between 1990 and 2020 the town grew by 5000 people.",
        "He was born on 12 June 1948, in Paris.",
        "we went there via route 101 and back.",
        "The Parque Central 5 tour starts at noon.",
        "John C. Smith scored 3 times.",
        "He rang Martin 3 times.",
        "On 3 May 2019 Parks closed.",
    ],
)
def test_plain_sentences_with_numbers_hold_no_address(text):
    assert _found(text) == []


def test_whole_addresses_of_every_locale_floor():
    """Recall of the address finder alone (IoU >= 0.9) on whole addresses of every Faker locale,
    one value of each of the seven kinds a locale, seed 37 (the rules were looked at on seed 29).
    Observed: seeds 31 / 37 gave 0.662 / 0.655 of 731 (the finder before these rules: 0.570 /
    0.551); many locales of other scripts (Arabic, Thai, Chinese, ...) stay unfound. A floor of
    0.63 leaves room for Faker's own changes."""
    from benchmarks.bench_pii_address_whole import score, whole_set
    from benchmarks.bench_pii_corpus import _skip_words

    rows = whole_set(1, 37)
    preds = [[(f.start, f.end, "LOCATION") for f in find_addresses(r["text"])] for r in rows]
    res = score(rows, preds, _skip_words())
    assert res["total"]["all"] > 700
    assert res["found"]["all"] / res["total"]["all"] >= 0.63
