"""Capitalised words that name no person and no organisation: the small NER model's usual guesses.

The English model reads capitals as names: a heading or a greeting ("Customer Service", "Best
Regards"), a department ("Billing Department"), a thing of the office, the shop or the web
("Account Number", "Quarterly Report", "Password"), a word in capitals ("DO NOT REPLY") or an
acronym ("FAQ", "HR", "CEO"). The tests below tell those spans from names:

* :func:`generic_phrase`: every word is a word of :data:`GENERIC_WORDS` (written here: the
  vocabulary of offices, shops, support desks and web pages, no word that is a surname of the
  name gazetteer) or a determiner;
* :func:`shouted_words`: a span in capitals whose words are English words or the acronyms of
  :data:`ACRONYMS`, none a name;
* :func:`english_not_name`: every word is an English word (WordNet's index, inflections read)
  and no given name or surname of the gazetteer, of any case ("Cloud", "Settings", "Volunteers").

A span that any of them accepts holds no personal data, so dropping it costs no recall.
"""

from __future__ import annotations

import functools
import logging
import re

from anon_core.pii.name_lists import english_words, wordnet_index
from anon_core.pii.names import Gazetteer

log = logging.getLogger(__name__)

#: Words of offices, shops, support desks, documents and web pages, of greetings and closings
#: ("Best Regards", "Happy Birthday") and of people named by their role ("My Landlord"), lower
#: case, singular.
GENERIC_WORDS = frozenset(
    """
    account accounts accounting address admin administration bank agreement album annual answer app
    application assistance assurance audit balance billing birth board booking box budget bug
    business button calendar campaign card care cart catalogue catalog centre center chat
    checkout claim client code complaint compliance conditions confirmation contact contract
    cookie credit crisis customer customers dashboard data date deal deals delivery department
    desk details development director discount document documents download email emergency
    engineering
    enquiry entry error event events exit expense expenses faq feedback fee fees file finance
    financial form forms front frequently general gift guide head heating help helpdesk holiday
    holidays home hour hours human inbox income information inquiry insurance invoice issue
    item key leave legal letter licence license line list login logo logistics loyalty main
    maintenance management manager manual marketing maternity meeting member membership menu
    message minutes mobile monthly network newsletter notes notice number office online
    operations order orders page paternity password payment payments payroll personnel plan
    planning policy portal price pricing privacy procurement product production products
    profile profits program programme project promotion public purchase purchasing quality
    quarterly question questions quick quote receipt receivable payable record records refund
    registration relations release renewal rental report reports request requests research
    reservation resources return returns review safety sales satisfaction schedule security
    service services settings shipping shop signed social software start statement status store
    subscription success summary supply support survey team tech technical terms ticket
    tracking training transfer setting unit update upgrade user username users vacation warranty
    website weekly welcome wifi wi-fi yearly
    best birthday cheers christmas click congratulations day evening forgot good greetings
    happy hello kind luck merry morning new night regards sincerely step thanks thank
    truly unsubscribe warm wishes year yours shipped delivered pending cancelled
    landlord landlady tenant neighbour neighbor colleague coworker roommate flatmate boss
    mom mum dad grandma grandpa granny auntie sweetheart darling honey buddy
    passenger gentleman gentlemen ladies guest visitor shopper subscriber applicant everyone
    everybody folks friends student resident patron staff faithfully respectfully cordially
    internship apprenticeship employee
    """.split()
)
#: Words of events, venues, menus and offers that name no firm and no place beside another
#: generic word ("Charity Gala", "Grand Opening", "Breakfast Buffet"), lower case, singular; a
#: name of the gazetteer among them ("Gala") counts only beside another generic word.
EVENT_WORDS = frozenset(
    """
    festival gala opening ceremony party dinner brunch lunch breakfast buffet concert show
    fair exhibition conference summit workshop webinar seminar launch sale collection edition
    package bundle plan tier option menu guarantee committee food value experience selection
    special offer deal idea club ballroom lounge lobby auditorium series episode sequel media
    """.split()
)
#: Adjectives of praise, blame and offers, seasons and feasts, that name nothing beside a
#: generic word ("Great Service", "Premium Membership", "Friendly Staff", "Summer Sale").
QUALIFIERS = frozenset(
    """
    great excellent amazing awesome fantastic wonderful outstanding superb brilliant perfect
    friendly helpful lovely nice terrible awful horrible poor bad worst slow fast quick rude
    valued premium deluxe exclusive free annual grand special official charity verified
    spring summer autumn fall winter easter christmas halloween thanksgiving weekend weekday
    gold silver platinum bronze basic standard plus ultimate organic vegan vegetarian homemade
    gluten city
    """.split()
)
#: Words a generic phrase may hold besides :data:`GENERIC_WORDS` ("the", "our", "and", "of").
_GLUE = frozenset(
    "the a an our your my their his her this that all and & of for to on in at with".split()
)
#: Inviting verbs that open a sentence before a generic phrase ("Call Customer Service").
_LEAD_VERBS = frozenset("call visit meet contact ask email join see try dear".split())
#: Acronyms that name no organisation ("FAQ", "HR", "CEO", "PDF"), upper case.
ACRONYMS = frozenset(
    """
    faq faqs hr it ceo cfo cto coo cio cmo vp svp evp md pa ceo's pdf pdfs api url urls usb atm
    pin id ids sms mms gps dna tv pc pcs os ui ux qa r&d b2b b2c roi kpi kpis eta fyi asap
    rsvp tbd tba aka diy am pm utc gmt faq's hq ip vpn wifi lan wan cv cvs sku vat tax pto
    ooo eod eow cc bcc ps nb re fw fwd
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|&")
#: Inflections an English word may carry beyond its listed form ("orders", "shipped").
_ENDINGS = ("'s", "’s", "ies", "es", "s", "ied", "ed", "d", "ing", "ly", "ers", "er")


def _words(span: str) -> list[str]:
    return _WORD.findall(span)


def _base_forms(word: str) -> list[str]:
    """``word`` (lower case) and the forms it may be inflected from ("orders": "order")."""
    forms = [word]
    for end in _ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 2:
            stem = word[: -len(end)]
            forms += [stem, stem + "e"]
            if end in ("ies", "ied"):
                forms.append(stem + "y")
            if len(stem) >= 3 and stem[-1] == stem[-2]:  # "shipped": "ship"
                forms.append(stem[:-1])
    return forms


def generic_word(word: str) -> bool:
    """Whether ``word`` (any case, inflected or not) is a word of :data:`GENERIC_WORDS` or an
    acronym of :data:`ACRONYMS`, names or not ("Sales", "IT", "Orders")."""
    return word.lower() in ACRONYMS or any(f in GENERIC_WORDS for f in _base_forms(word.lower()))


_generic = generic_word


@functools.lru_cache(maxsize=4096)
def english(word: str) -> bool:
    """Whether ``word`` (any case) is an English word of WordNet's index, listed or inflected."""
    words = english_words()
    return any(f in words for f in _base_forms(word.lower()))


def _named(word: str, gaz: Gazetteer) -> bool:
    """A given name or surname of the gazetteer, common words included ("Hope", "Baker")."""
    low = re.sub(r"['’]s$", "", word.lower())
    return low in gaz.given or low in gaz.family


def generic_phrase(span: str, gaz: Gazetteer) -> bool:
    """Whether ``span`` is made of :data:`GENERIC_WORDS` and glue words only, one generic word at
    least ("Customer Service", "the Billing Department", "Account Number"; "Credit Karma" and
    "Wilson Group" are not). A generic word that is a surname too ("Sales", "Page", "Key") counts
    only beside another generic word ("Sales Department"): alone it may be the person. Beside
    another word, words of :data:`EVENT_WORDS` count as generic ("Charity Gala"), adjectives of
    :data:`QUALIFIERS` are allowed ("Great Service", not "Great" alone) and an inviting verb may
    open the span ("Call Customer Service")."""
    words = _words(span)
    if len(words) > 1 and words[0].lower() in _LEAD_VERBS:
        words = words[1:]  # "Call Customer Service": the verb opens the sentence
    content = [w for w in words if w.lower() not in _GLUE]
    core = [w for w in content if w.lower() not in QUALIFIERS]
    return bool(core) and all(
        (_generic(w) or w.lower() in ACRONYMS or (len(content) > 1 and _event(w)))
        and (len(content) > 1 or not _named(w, gaz))
        for w in core
    )


@functools.lru_cache(maxsize=16384)
def phrase_word(word: str) -> bool:
    """Whether ``word`` (lower case) may stand in a :func:`generic_phrase`: a generic word, an
    acronym, a word of events, a qualifier, a glue word or an inviting verb."""
    return (
        word in _GLUE
        or word in QUALIFIERS
        or word in _LEAD_VERBS
        or word in ACRONYMS
        or _generic(word)
        or _event(word)
    )


def _event(word: str) -> bool:
    return any(f in EVENT_WORDS for f in _base_forms(word.lower()))


def shouted_words(span: str, gaz: Gazetteer) -> bool:
    """Whether ``span`` is written in capitals and made of English words or the acronyms of
    :data:`ACRONYMS`, none a name ("DO NOT REPLY", "FAQ", "HR"; "IBM" and "SMITH" are not)."""
    words = _words(span)
    if not words or not all(w.isupper() or w == "&" for w in words):
        return False
    return all(
        w == "&"
        or w.lower() in ACRONYMS
        or w.lower() in gaz.common
        or (len(w) > 3 and english(w) and not _named(w, gaz))
        for w in words
    )


@functools.lru_cache(maxsize=1)
def _proper_noun_like() -> frozenset[str]:
    """Words WordNet lists as nouns only, in their own form (the index holds proper names such
    as "goldberg", "einstein" among them), from the English pipeline's lemmatizer tables."""
    index = wordnet_index()
    if not index:
        return frozenset()
    return index["noun"] - index["verb"] - index["adj"] - index["adv"]


def common_word(word: str, gaz: Gazetteer) -> bool:
    """Whether ``word`` is an English word no name takes: not a given name or surname of the
    gazetteer, and a common word of the gazetteer or of :data:`GENERIC_WORDS`, or a word WordNet
    lists as a verb, adjective or adverb too ("cloud", "delay", "truly"), as written or inflected
    ("volunteers", "orders"). A word listed as a noun only may be a surname ("Goldberg", "Tales")
    and is not common, unless a common list names it ("customer", "product")."""
    low = re.sub(r"['’]s$", "", word.lower())
    if len(low) < 3 or _named(low, gaz) or _mixed_case(word) or not english(low):
        return False
    if low in gaz.common or _generic(low):
        return True
    nouns, words = _proper_noun_like(), english_words()
    return any(f in words and f not in nouns for f in _base_forms(low))


def english_not_name(span: str, gaz: Gazetteer, nouns: bool = False) -> bool:
    """Whether every word of ``span`` (glue words aside) is a :func:`common_word` ("Cloud",
    "Settings", "Customer Support"; "Rose", "Baker", "Goldberg" and "Szöllösy" are not). With
    ``nouns``, WordNet's nouns count too in a span of two words or more ("The Music Video",
    "the Theatrical Release": after "the", nouns together are seldom a name); a noun alone
    ("the Goldberg") and names of the gazetteer still not."""
    words = [w for w in _words(span) if w != "&" and w.lower() not in _GLUE]
    nouns = nouns and len(words) > 1
    return bool(words) and all(
        common_word(w, gaz)
        or (nouns and len(w) > 2 and english(w) and not _named(w, gaz) and not _mixed_case(w))
        for w in words
    )


def _mixed_case(word: str) -> bool:
    """A capital after the first letter ("McKinsey", "DeShawn"): a name's shape, not a word's."""
    return any(c.isupper() for c in word[1:]) and not word.isupper()


def plural_word(span: str, gaz: Gazetteer) -> bool:
    """Whether ``span`` is one capitalised word that is the plural of an English word, and no
    given name or surname of the gazetteer ("Hobbits", "Customers"; "Sears" as a surname and
    "Zillow" are not): a group of things or people, seldom a firm's name."""
    words = _words(span)
    if len(words) != 1 or not words[0][:1].isupper() or _mixed_case(words[0]):
        return False
    low = words[0].lower()
    if not low.endswith("s") or low.endswith("ss") or _named(low, gaz) or len(low) < 4:
        return False
    listed = english_words()
    return low[:-1] in listed or (low.endswith("es") and low[:-2] in listed)
