"""E-mail addresses and URLs found with their exact extent, and the model's name or organisation
spans cut around them.

The hand-written sentences and addresses are invented. The generated set takes Faker's
``email()``, ``free_email()``, ``company_email()``, ``url()``, ``uri()`` and ``domain_name()`` of
eight locales (Faker builds them; it is an independent oracle of where each one ends) inside
sentences written for this test.
"""

from __future__ import annotations

import pytest

from anon_core.pii.web_addresses import split_at_web_addresses, web_address_spans
from tests.conftest import found_entities


@pytest.mark.parametrize(
    "text, urls",
    [
        ("Visit www.walker.biz today.", ["www.walker.biz"]),  # "biz": not in Presidio's list
        (
            "See http://morales.biz/wp-content/explore/home.html for it.",
            ["http://morales.biz/wp-content/explore/home.html"],  # not cut at ".bi" or ".ht"
        ),
        ("Go to http://www.example.com/path?x=1&y=2.", ["http://www.example.com/path?x=1&y=2"]),
        ("Our site (shop.example.co.uk:8080/cart) is down!", ["shop.example.co.uk:8080/cart"]),
        ("Links: https://a.org/, https://b.net/x; done", ["https://a.org/", "https://b.net/x"]),
        ("ftp://files.example.de/pub/", ["ftp://files.example.de/pub/"]),
    ],
)
def test_urls_are_read_whole(text, urls):
    assert [text[a:b] for a, b, _ in web_address_spans(text)] == urls


@pytest.mark.parametrize(
    "text",
    [
        "Write to jane.info@example.com today.",  # a host inside an e-mail address is no URL
        "e.g. this one, i.e. that one",
        "The end.Next sentence",  # "Next" is no top-level domain
        "a" * 5000 + ".b",  # one long run: read once, no top-level domain
    ],
)
def test_no_url_in_e_mail_addresses_abbreviations_and_words(text):
    assert web_address_spans(text) == []


def test_a_scheme_is_reported():
    assert web_address_spans("see https://x.org and x.org") == [(4, 17, True), (22, 27, False)]


@pytest.mark.parametrize(
    "text, found",
    [
        (
            "Send it to mailto:richard70@example.org please",
            [
                ("EMAIL_ADDRESS", "richard70@example.org")
            ],  # the model read "mailto:..." as a company
        ),
        (
            "Write to ann+news@mail.example.co.uk.",
            [("EMAIL_ADDRESS", "ann+news@mail.example.co.uk")],  # a "+" tag and sub-domains
        ),
        (
            "Website: https://www.walker.biz/category/main.html",
            [("URL", "https://www.walker.biz/category/main.html")],
        ),
    ],
)
def test_e_mail_addresses_and_urls_are_found_alone_and_whole(english, text, found):
    assert found_entities(english, text) == found


def test_a_company_before_an_e_mail_address_keeps_its_own_span(english):
    # the model reads "Johnson-King - wallacecharles@walker.info" as one organisation
    found = found_entities(english, "Johnson-King - wallacecharles@walker.info")
    assert ("EMAIL_ADDRESS", "wallacecharles@walker.info") in found
    assert all("@" not in v for kind, v in found if kind != "EMAIL_ADDRESS")


def test_an_english_word_beside_an_e_mail_address_is_no_organisation(english):
    # the model reads "solllabres@gmail.com Thanks" as one organisation
    assert found_entities(english, "solllabres@gmail.com Thanks") == [
        ("EMAIL_ADDRESS", "solllabres@gmail.com")
    ]


class _Gazetteer:
    given = frozenset({"serafina"})
    family = frozenset({"chigi"})


@pytest.mark.parametrize(
    "text, pieces",
    [
        ("mailto:ann@x.org", []),  # "mailto:" holds no capital letter
        ("ferdinando14@example.org (Serafina Chigi", ["Serafina Chigi"]),
        ("See https://parent.fr/ and https://masson.fr/app.html", []),  # English words only
        ("ann@x.org Thanks", []),
        ("Ann Lee", ["Ann Lee"]),  # no address: the span as it was
        ("Dr. A. Smith", ["Dr. A. Smith"]),  # dots, but no address
    ],
)
def test_spans_are_cut_around_addresses(text, pieces):
    spans = split_at_web_addresses(text, [(0, len(text), "PERSON", 0.85)], _Gazetteer())
    assert [text[a:b] for a, b, _, _ in spans] == pieces
    assert all(kind == "PERSON" and score == 0.85 for _, _, kind, score in spans)


#: Sentences written for the generated set.
SENTENCES = (
    "Email me at {} before Friday.",
    "{}",
    "Please write to {}, not to the old address.",
    "My address is {}.",
    "Visit {} for more information!",
    "The link ({}) is broken",
    "Contact: {}",
    "I found it on {} yesterday.",
)
KINDS = ("email", "free_email", "company_email", "url", "uri", "domain_name")
LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "en_AU")


def test_generated_e_mail_addresses_and_urls_are_found_with_their_exact_extent(english):
    # 384 values, 8 of each kind per locale; a value counts when one span of its type covers
    # exactly its characters (a URL's trailing "/" included). Measured when written: 384 of
    # 384; before the URL recognizer replaced Presidio's and the model's spans were cut around
    # addresses, 333 (a full stop or comma after a URL taken in, ".biz" hosts cut to ".bi",
    # paths cut at ".ht" of ".html", "kroker.com" a person, "<url> yesterday" a date). The
    # floor, 97%, leaves room for formats a newer Faker adds.
    from faker import Faker

    from anon_core.pii.scan import resolve_overlaps

    cases = []
    for k, locale in enumerate(LOCALES):
        fake = Faker(locale)
        fake.seed_instance(53 + k)
        for i in range(48):
            kind = KINDS[i % len(KINDS)]
            value = getattr(fake, kind)()
            entity = "EMAIL_ADDRESS" if "email" in kind else "URL"
            cases.append((SENTENCES[(i + k) % len(SENTENCES)].format(value), value, entity))
    results = english.analyze_batch([t for t, _, _ in cases])
    exact = 0
    for (text, value, entity), res in zip(cases, results, strict=True):
        at = text.index(value)
        spans = [s for s in resolve_overlaps(res, text) if s.entity == entity]
        exact += any(s.start == at and s.end == at + len(value) for s in spans)
    assert exact >= 0.97 * len(cases), f"{exact} of {len(cases)}"
