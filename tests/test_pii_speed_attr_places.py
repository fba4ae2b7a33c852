"""The cheaper scans of the town, address and postcode finders (:mod:`anon_core.pii.places`,
:mod:`anon_core.pii.addresses_fast`) give what the plain scans they replace give: each is
compared with a slow reference kept here (the code as it was) on hand-written texts and on
generated ones."""

from __future__ import annotations

import random

import pytest

from anon_core.pii import addresses, addresses_fast, places


# =============================================================================== towns
def _find_towns_reference(text: str, english: bool) -> list:
    """find_towns as it was: every word of every run tried as a town's first word."""
    recased = places.normal_case(text, street_types=False)
    if recased is not None:
        text = recased
    towns, words, names = places._town_lists()
    pats = places._town_patterns()
    alone_ok = english and recased is None
    if not alone_ok and pats["any_cue"].search(text) is None:
        return []
    found = []
    for run in pats["run"].finditer(text):
        if found and run.start() < found[-1].end:
            continue
        tokens, at = [], run.start()
        for part in run.group(0).split():
            at = text.index(part, at)
            tokens.append((at, at + len(part), part))
            at += len(part)
        i = 0
        while i < len(tokens):
            hit = places._town_at(text, tokens, i, towns, words, names, alone_ok)
            if hit is None:
                i += 1
                continue
            j, score = hit
            tail = pats["tail"].match(text, tokens[j - 1][1])
            found.append(
                places.Found(tokens[i][0], tail.end() if tail else tokens[j - 1][1], score)
            )
            i = j
    return found


_TOWN_PIECES = (
    "in", "from", "to", "near", "town of", "Roccaforzata", "Harlev", "Lake Isaacmouth", "Paris",
    "Port Janetchester", "Lewisfort", "Rebekah Ville", "Ville", "East Stephanie", "New Year",
    "Maria", "Time", "The", "I", "And", "Via", "Calle", "Soto del Barco", "Newcastle upon Tyne",
    "Lake Ritamouth Idaho", "Cheb 2", "Tynaarlo 3396 BU", "Vickieborough", "Ann", "Lee", "is",
    "lovely", "moved", "lippstadt", "Sant'Andrea", "D'Ampezzo", "Port Jennifer, New Hampshire",
    "Per", "Tel", ",", ".", "\n", "berlin", "BERLIN", "Smith", "North Face", "Jessica",
)  # fmt: skip


def _town_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_TOWN_PIECES) for _ in range(rng.randint(1, 20))]
        glue = [rng.choice((" ", " ", " ", ", ", "  ", "-")) for _ in pieces]
        text = "".join(p + g for p, g in zip(pieces, glue, strict=True))
        out.append(text.lower() if rng.random() < 0.1 else text)
    return out


_TOWN_HAND = [
    "",
    "Roccaforzata is lovely. We met Ann in Harlev, then drove from Lake Isaacmouth.",
    "i moved to lippstadt last year",
    "Rebekah Ville and Port Janetchester; East Stephanie; New Year in Paris",
]


@pytest.mark.parametrize("text", _TOWN_HAND + _town_texts(5, 500))
def test_find_towns_matches_the_reference(text):
    for english in (True, False):
        assert places.find_towns(text, english=english) == _find_towns_reference(text, english)


def test_town_starters_by_hand():
    table: dict[str, int] = {}
    assert places._may_start("Paris", table) == places._YES  # a place's first word
    assert places._may_start("Lewisfort", table) == places._YES  # a made-up town's ending
    assert places._may_start("The", table) == places._NO  # a stop word
    assert places._may_start("paris", table) == places._NO  # no capital
    assert places._may_start("Rebekah", table) == places._VILLE  # only as "Rebekah Ville"
    assert table["Paris"] == places._YES


# =============================================================================== addresses
def _cores_reference(text: str, pats: dict) -> list:
    """addresses._cores as it was: the street-word pattern run on every text, the weak pattern
    searched at every character."""
    out = []
    endings = pats["ending_gate"].search(text) is not None
    for i, pattern in enumerate(pats["core"]):
        if i in (2, 3, 4) and not endings:
            continue
        if i == 5:
            found = [
                m for g in pats["unit_gate"].finditer(text) if (m := pattern.match(text, g.start()))
            ]
        else:
            found = pattern.finditer(text)
        for m in found:
            if i in (2, 3, 4):
                first = m.group(0).split()[-2].lower()
                if first in addresses._NOT_STREETS or first.endswith("ing"):
                    continue
            if i in (0, 1) and addresses.has_stop_word(m.group(0), pats):
                stop = addresses.first_stop_word(m.group(0), pats)
                m = pattern.match(text, m.start(), m.start() + stop) if stop else None
                if m is None:
                    continue
            start = m.start()
            if i in (2, 4):
                start = addresses._after_stop_words(text, start, pats)
            out.append((start, m.end(), True))
    for m in pats["weak"].finditer(text, overlapped=True):
        start = addresses._after_stop_words(text, m.start(), pats)
        if not text[start : start + 1].isdigit():
            out.append((start, m.end(), False))
    return out


_ADDRESS_PIECES = (
    "Via Tasso 129", "via", "rue de Tanger", "Rue", "5, avenue Samson", "ul. Północna 73",
    "Eje vial", "Eje", "Avda. de Mota, 77", "Av.", "R.", "R. Smith 12", "Tabor 9c", "Is Tabor 9c",
    "From 793", "'t Zand 4", "’s-Gravenhage 12", "Jahu 80", "lives at", "Kramer Court", "12",
    "3911 fourth avenue", "Drubinstraße 47-26", "Søndergade 52", "P.O. Box 242", "Flat 3",
    "Unit 37", "Ann", "Lee", "de", "van der", "Saint-Jean", "St.", "Lou\u0301vre 8", "Mühlgasse 4/7",
    "020 7946 0000", "on", "call", "12a", "Spring 2020", "June 9, 1948", "the", "and", ",", ".",
    "\n", "\t", "-", "(", "Miles 189", "Berlin", "06690 Groß-Gerau", "Ξάνθη 5", "Anna-Lena, 17",
)  # fmt: skip


def _address_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_ADDRESS_PIECES) for _ in range(rng.randint(1, 14))]
        glue = [rng.choice((" ", " ", " ", ", ", "  ", "\t", "\n", "")) for _ in pieces]
        out.append("".join(p + g for p, g in zip(pieces, glue, strict=True)))
    return out


_ADDRESS_HAND = [
    "",
    "Send it to Via Tasso 129, 80127 Napoli. Is Tabor 9c near Jahu 80? From 793 on.",
    "Anna Maria De La Cruz 12 and Van 't Zand 4; Eje vial 5; R. Smith 12",
    "You can reach Ann Lee on 020 7946 0000 or at ann@example.org.",
]


@pytest.mark.parametrize("text", _ADDRESS_HAND + _address_texts(6, 600))
def test_street_shapes_match_the_reference(text):
    pats = addresses._patterns()
    assert list(addresses._cores(text, pats)) == _cores_reference(text, pats)


def test_weak_matches_by_hand():
    pats = addresses._patterns()
    text = "Is Tabor 9c near Van 't Zand 4, call 020 7946"
    got = [m.group(0) for m in addresses_fast.weak_matches(text, pats["weak"], pats["weak_gate"])]
    # every start of capitalised words before a house number ("Is Tabor 9c" and "Tabor 9c";
    # "'t Zand 4" and "Zand 4" after "Van"); "call 020" has no capital, "020 7946" no word
    assert got == ["Is Tabor 9c", "Tabor 9c", "Van 't Zand 4", "'t Zand 4", "Zand 4"]


def test_opener_firsts_by_hand():
    firsts = addresses_fast.opener_firsts(["Eje vial", "Av.", "rue"])
    assert firsts == frozenset({"Eje", "Av.", "rue"})
    token = addresses._patterns()["opener_token"]
    assert addresses_fast.may_hold_opener("12 rue de Tanger", firsts, token)
    assert not addresses_fast.may_hold_opener("the street-rue is", firsts, token)
    with pytest.raises(ValueError, match="must start with a letter"):
        addresses_fast.opener_firsts([" x"])


def _find_postcodes_reference(text: str) -> list:
    pats = addresses._patterns()
    found = {
        (m.start("code"), m.end("code")): addresses.POSTCODE_CUE_SCORE
        for m in pats["postcode_cue"].finditer(text)
    }
    for m in pats["strong_postcode"].finditer(text):
        found.setdefault((m.start(), m.end()), addresses.POSTCODE_SHAPE_SCORE)
    return [addresses.Found(a, b, s) for (a, b), s in sorted(found.items())]


_POSTCODE_PIECES = (
    "SW1A 1AA", "M1 1AE", "B33 8TH", "K1A 0B1", "12345-6789", "١٢٣٤٥-٦٧٨٩", "90210", "zip",
    "zip code", "postcode", "PLZ", "code postal", "A 0B", "1 1AA", "sw1a 1aa", "12345-678",
    "I am", "A", "1", "Ann", ":", ",", "-", "\n", "call 020 7946 0000",
)  # fmt: skip


@pytest.mark.parametrize("seed", range(300))
def test_find_postcodes_matches_the_reference(seed):
    rng = random.Random(seed)
    pieces = [rng.choice(_POSTCODE_PIECES) for _ in range(rng.randint(1, 10))]
    text = "".join(p + rng.choice((" ", "", ", ", "-")) for p in pieces)
    assert addresses.find_postcodes(text) == _find_postcodes_reference(text)


def test_strong_postcodes_by_hand():
    text = "SW1A 1AA, K1A 0B1 and 12345-6789; not sw1a 1aa"
    assert [text[f.start : f.end] for f in addresses.find_postcodes(text)] == [
        "SW1A 1AA", "K1A 0B1", "12345-6789",
    ]  # fmt: skip


def _find_town_states_reference(text: str) -> list:
    """find_town_states as it was: its pattern run on every text."""
    found = []
    towns, words, names = places._town_lists()
    for m in places._town_state().finditer(text):
        parts = m.group("town").split()
        code = bool(m.group("code"))
        for k in range(len(parts)):
            town = parts[k:]
            key = " ".join(town).lower()
            known = key in towns
            lone = len(town) == 1 and not code
            if not known and (
                town[0].lower() in places.STOP_WORDS
                or any(w in places.STOP_WORDS for w in town if w.islower())
                or places._person(town, names)
                or (lone and (names.is_name(key) or key in places._OPENING_WORDS))
                or (
                    len(town) > 1
                    and town[0] not in places._TOWN_PREFIXES.split()
                    and places._english_word(town[0].lower(), words)
                    and not code
                )
            ):
                continue
            if m.group("state") in places.STATES_AMBIGUOUS and not (
                known or code or places._made_up_town(town) or places._cued(text, m.start("town"))
            ):
                break
            start = m.start("town") + m.group("town").index(town[0])
            found.append(places.Found(start, m.end(), places.COUNTRY_SCORE))
            break
    return found


_TOWN_STATE_PIECES = (
    "Beverly Hills", "CA 90210", "CA", "Toronto", "ON", "M5V 2T6", "Glenroy", "VIC 3046", "OK",
    "Yes", "Salem", "OR 97301", "East Jessica", "KS", "Call Smith", "Ann Lee", "MD", "NSW",
    "in", "Andradeton", "Ca", ",", ", ", ",\t", " ", "\n", "12345", "Lake Maryland", "NY 63294",
)  # fmt: skip


@pytest.mark.parametrize("seed", range(300))
def test_find_town_states_matches_the_reference(seed):
    rng = random.Random(seed)
    pieces = [rng.choice(_TOWN_STATE_PIECES) for _ in range(rng.randint(1, 12))]
    text = "".join(p + rng.choice((" ", "", ", ", ",")) for p in pieces)
    assert places.find_town_states(text) == _find_town_states_reference(text)


def test_town_states_by_hand():
    text = "Beverly Hills, CA 90210 and Toronto, ON; not Yes, OK"
    got = [text[f.start : f.end] for f in places.find_town_states(text)]
    assert got == ["Beverly Hills, CA 90210", "Toronto, ON"]
