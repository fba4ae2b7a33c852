"""Parts of places shared by the address and place finders: the span type, a state or province
with the postcode after it ("Dayton, OH 45402", "Florida 32801", "Glenroy, VIC 3046",
"Toronto, ON M5V 2T6"), and the recognizer wrapper.

The state says what the number is, so the postcode joins the place: Presidio's evaluation corpus
labels a postcode written after a state as part of the place, and the place finders report
the state and its postcode as one ``LOCATION`` (:func:`states_with_postcode`).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple


class Found(NamedTuple):
    """A span found by a place or address finder, with its score."""

    start: int
    end: int
    score: float


#: State and province abbreviations written after a town: the US (USPS), Canada, Australia.
STATE_ABBREVIATIONS = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR AB BC MB NB NL NT NS NU ON PE "
    "QC SK YT ACT NSW QLD TAS VIC GU VI MP FM MH PW AA AE AP"
)
#: Abbreviations that are also words or titles ("Yes, OK", "Ann Lee, MD", "IN 2019"): before a
#: postcode only after a comma.
STATES_AMBIGUOUS = frozenset("AS DE DO HI ID IN LA ME OK OR SA".split())
#: Australian abbreviations: a four-digit postcode follows them ("NSW 2000").
_AU_ABBREVIATIONS = frozenset("ACT NSW NT QLD SA TAS VIC WA".split())
#: Canadian abbreviations: a postcode of letters and digits follows them ("ON M5V 2T6").
_CA_ABBREVIATIONS = frozenset("AB BC MB NB NL NT NS NU ON PE QC SK YT".split())
#: Full names of US states, Canadian provinces and Australian states (Faker's lists, MIT).
_US_STATES = (
    "Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia "
    "Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts "
    "Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania "
    "Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming"
).split() + [
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota",
    "Rhode Island", "South Carolina", "South Dakota", "West Virginia",
]  # fmt: skip
_CA_PROVINCES = (
    "Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland and Labrador",
    "Northwest Territories", "Nova Scotia", "Nunavut", "Ontario", "Prince Edward Island", "Quebec",
    "Saskatchewan", "Yukon",
)  # fmt: skip
_AU_STATES = (
    "Australian Capital Territory", "New South Wales", "Northern Territory", "Queensland",
    "South Australia", "Tasmania", "Victoria", "Western Australia",
)  # fmt: skip
STATE_NAMES = frozenset(_US_STATES) | frozenset(_CA_PROVINCES) | frozenset(_AU_STATES)


#: English street types: USPS Publication 28 (Appendix C1) names and common abbreviations, and
#: British and Australian ones (the last lines: Faker's and Australia Post's types that are no
#: common word alone, "Driveway", "Firetrail", "Villas", "Fall"; not "End", "Top", "Little",
#: "Ring", "Line", "Range", "Turn").
ENGLISH_STREET_TYPES = """
Alley Allee Aly Annex Anx Arcade Arc Avenue Ave Av Bayou Beach Bch Bend Bluff Bluffs Bottom Boulevard
Blvd Branch Bridge Brg Brook Brooks Burg Burgs Bypass Camp Canyon Cape Causeway Cswy Center Centre Ctr
Circle Cir Circles Cliff Cliffs Club Common Commons Corner Corners Course Court Ct Courts Cove Coves Creek
Crescent Cres Crest Crossing Xing Crossroad Curve Dale Dam Divide Drive Dr Drives Estate Estates
Expressway Expy Extension Ext Falls Ferry Field Fields Flats Ford Fords Forest Forge Forges Fork Forks
Fort Freeway Fwy Garden Gardens Gdns Gateway Glen Glens Green Greens Grove Grv Groves Harbor Harbour
Harbors Haven Heights Hts Highway Hwy Hill Hills Hollow Inlet Island Islands Isle Junction Jct
Junctions Key Keys Knoll Knolls Lake Lakes Landing Lane Ln Light Lights Loaf Lock Locks Lodge Loop
Mall Manor Manors Meadow Meadows Mews Mill Mills Mission Motorway Mount Mountain Mountains Neck Orchard
Oval Overpass Park Parks Parkway Pkwy Parkways Pass Passage Path Pike Pine Pines Place Pl Plain Plains
Plaza Plz Point Points Port Ports Prairie Radial Ramp Ranch Rapid Rapids Rest Ridge Ridges River Road
Rd Roads Route Rte Row Rue Run Shoal Shoals Shore Shores Skyway Spring Springs Spur Spurs Square Sq
Squares Station Stravenue Stream Street St Str Streets Summit Terrace Ter Tce Throughway Trace Track
Trafficway Trail Trl Trailer Tunnel Turnpike Underpass Union Unions Valley Valleys Via Viaduct View
Views Village Villages Ville Vista Walk Walks Wall Way Ways Well Wells Approach Close Chase Circuit
Concourse Esplanade Laneway Parade Promenade Quay Rise Wharf Wynd Gate Gait Grange Hollow Nook Strand
Access Amble Arcade Boardwalk Brace Brae Brow Copse Crossway Dell Edge Glade Lookout Outlook Pathway
Ramble Retreat Ridgeway Tor Vale Walkway
Alleyway Anchorage Artery Basin Broadway Byway Centreway Circlet Circus Colonnade Corso Courtyard
Cruiseway Cutting Deviation Driveway Fairway Firetrail Footway Foreshore Front Frontage Gully
Highroad Interchange Intersection Link Meander Parklands Piazza Plateau Quadrangle Quadrant Quays
Reserve Riverway Riviera Roadside Roadway Ronde Rotary Siding Slope Steps Strip Subway Tarn
Thoroughfare Tollway Towers Triangle Trunkway Villas
Centers Extensions Fall Land Dip Elbow Entrance Gap Gates Lees Mew Pocket Quad Stairs Wade
Cul-de-sac Distributor Rosebowl
"""
#: Months and weekdays (English, French, German, Spanish, Italian, Dutch, Portuguese): "June 9,
#: 1948" is a date, not a street with a postcode.
CALENDAR_WORDS = frozenset(
    """
    january february march april may june july august september october november december jan feb
    mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday
    sunday janvier février mars avril mai juin juillet août septembre octobre novembre décembre
    lundi mardi mercredi jeudi vendredi samedi dimanche januar februar märz juni juli oktober
    dezember montag dienstag mittwoch donnerstag freitag samstag sonntag enero febrero marzo abril
    mayo junio julio agosto septiembre octubre noviembre diciembre gennaio febbraio aprile maggio
    giugno luglio settembre ottobre dicembre januari februari maart mei augustus janeiro fevereiro
    março maio junho julho setembro outubro novembro dezembro
    """.split()
)


#: Words that open a street name after the house number but make it a quantity, not a street.
QUANTITY_WORDS = """
euro euros dollar dollars pound pounds franc francs kronor kroner year years day days hour hours minute
minutes week weeks month months page pages point points mile miles kilometer kilometers km songs times
calories percent hundred thousand million billion people persons men women children kids items copies
units pieces cars houses rooms
"""

#: Words that open a line after an address but are no part of it.
NOT_ADDRESS_PARTS = frozenset(
    "tel tél phone telephone téléphone telefon telefono teléfono mobile mob cell fax email e-mail mail "
    "web www http https iban vat tva ust bic swift account date ref re subject from to cc dear".split()
)

#: First words of a last line that make its number a quantity, not a postcode ("Total 1250").
NOT_COUNTRY_WORDS = frozenset(
    "total subtotal sum balance amount due paid price cost year years page pages order invoice "
    "ref no number room tel phone fax score points".split()
)


#: Last words of the cues (:data:`_CUES`): only a number after one of them is looked at.
CUE_ENDS = tuple(
    "at on in to an am auf au à le la is was now anschrift adresse dirección direccion "
    "indirizzo morada endereço adres :".split()
)

#: Stems of the cues' first words (a cheap test before the cue pattern).
CUE_STEMS = tuple(
    "liv resid locat situat mov stay address ship send deliver mail post forward return visit "
    "home wohn anschrift adress domicil habite direcci indirizzo morada endereço adres".split()
)

#: Words that end like a one-word street ("-ring", "-hof", "-tie") but are common words.
NOT_STREETS = frozenset(
    "spring string during bring thing ring king offspring hof weg tie pad lei baan zeile markt "
    "ipad notepad".split()
)


@functools.lru_cache(maxsize=1)
def _patterns() -> dict[str, Any]:
    import re

    import regex

    def alternation(words) -> str:
        return "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))

    abbreviations = STATE_ABBREVIATIONS.split()
    before = r"(?<![\p{L}\p{M}\d'’.-])"
    return {
        # the codes: US ZIP and ZIP+4, Canadian, Australian (checked against the state after)
        # (the standard ``re`` module: twice as fast as ``regex`` on this simple pattern)
        "code": re.compile(
            r"(?<![\w-])(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z][ ]?\d[A-Z]\d|\d{4})(?![\w-])"
        ),
        # the state right before a code, read backwards from the code
        "state": regex.compile(
            rf"(?r){before}(?P<state>{alternation(abbreviations)}|{alternation(STATE_NAMES)})"
            r"(?P<comma>,?)[ \t]+\Z"
        ),
    }


def _fits(state: str, code: str, comma_before: bool) -> bool:
    """Whether ``code`` is a postcode of the country of ``state``."""
    if code[0].isalpha():
        return state in _CA_PROVINCES or state in _CA_ABBREVIATIONS
    if len(code) == 4:
        if state in _AU_ABBREVIATIONS:
            return True
        return state in _AU_STATES and not code.startswith(("19", "20"))  # "Victoria 2024"
    if state in STATES_AMBIGUOUS:
        return comma_before  # "Salem, OR 97301"; not "IN 12345 cases"
    return state not in _AU_ABBREVIATIONS and state not in _AU_STATES


def states_with_postcode(text: str) -> list[tuple[int, int]]:
    """(start, end) of every state or province followed by its postcode in ``text``."""
    pats = _patterns()
    out = []
    for m in pats["code"].finditer(text):
        if m.start() < 3 or text[m.start() - 1] not in " \t":
            continue  # a state and a space come first
        s = pats["state"].search(text, max(0, m.start() - 40), m.start())
        if s is None:
            continue
        state = s.group("state")
        comma = text[max(0, s.start() - 2) : s.start()].rstrip(" \t").endswith(",")
        if _fits(state, m.group(0), comma):
            out.append((s.start(), m.end()))
    return out


def non_overlapping(ranked: list[Found]) -> list[Found]:
    """The spans of ``ranked`` (best first) that overlap no better one, in text order.

    The kept spans never overlap, so sorted by start they are sorted by end too: a candidate
    is checked against its two neighbours only (a long document has thousands of streets)."""
    import bisect

    kept: list[Found] = []
    starts: list[int] = []
    for cand in ranked:
        i = bisect.bisect_right(starts, cand.start)
        if (i == 0 or kept[i - 1].end <= cand.start) and (
            i == len(kept) or cand.end <= kept[i].start
        ):
            kept.insert(i, cand)
            starts.insert(i, cand.start)
    return kept


def shape_recognizer(language: str, entity: str, name: str, finder: Any, context: list[str]) -> Any:
    from presidio_analyzer import AnalysisExplanation, LocalRecognizer, RecognizerResult

    class ShapeRecognizer(LocalRecognizer):
        def load(self) -> None:  # nothing to load: patterns compile on first use
            return None

        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None) -> list[Any]:
            if entities and entity not in entities:
                return []
            metadata = {
                RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
            }
            return [
                RecognizerResult(
                    entity,
                    f.start,
                    f.end,
                    f.score,
                    analysis_explanation=AnalysisExplanation(
                        recognizer=name, original_score=f.score, textual_explanation=name
                    ),
                    recognition_metadata=dict(metadata),
                )
                for f in finder(text)
            ]

    return ShapeRecognizer(
        supported_entities=[entity], name=name, supported_language=language, context=context
    )
