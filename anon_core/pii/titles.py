"""Job titles (TITLE) and courtesy titles in free text: Faker's job lists, job head words, cues.

* a title of Faker's job lists (English, French, German, Spanish; Faker ships them in the
  package, nothing is downloaded) of two words or more anywhere, a one-word title alone on its
  line (a signature block) or after a cue ("works as a", "job title:", "Beruf:", "travaille
  comme");
* a phrase of up to six words ending in a job head word ("engineer", "reporter", "clerk",
  "barista"; "and" inside: "Heating and air conditioning mechanic") after a cue, alone on its line, beside a name ("Ann Lee - Court reporter",
  "Ann Lee (Receptionist)", "Ann Lee, night shift supervisor at ...", "our Auditor, Ann Lee"),
  after "is a" or "as a", or written with a capital after "the", "our" ("The Groundskeeper
  called"); "head", "director", "president" and "professor" take an "of" phrase ("Head of
  marketing", "Vice president of sales");
* a courtesy title before a name ("Dr.", "Ms.", "Prof.", "Mrs.").

A job word alone in running text ("the doctor said", "see the manager") is not a title.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from operator import add
from typing import Any

from anon_core.pii.found import Found
from anon_core.pii.name_lists import LOWER, UPPER, is_english
from anon_core.pii.titles_fast import title_starts, words_and_gaps

# =============================================================================== job titles
#: Faker locales whose job lists make the title gazetteer (Faker has no Italian list).
JOB_LOCALES = ("en_US", "fr_FR", "fr_CH", "de_DE", "de_AT", "es")
#: Cue phrases after which a job title follows, per language.
TITLE_CUES = (
    r"works? as(?: an?| the)?", r"worked as(?: an?| the)?", r"working as(?: an?| the)?",
    r"employed as(?: an?| the)?", r"job title\s*:?", r"job\s*:", r"title\s*:", r"position\s*:?",
    r"occupation\s*:?", r"profession\s*:?", r"role\s*:", r"career as(?: an?)?",
    r"travaille comme", r"travaille en tant que", r"profession\s*:", r"métier\s*:", r"poste\s*:",
    r"fonction\s*:", r"arbeitet als", r"tätig als", r"Beruf\s*:", r"Position\s*:",
    r"trabaja como", r"trabaja de", r"profesión\s*:", r"puesto\s*:", r"ocupación\s*:",
    r"lavora come", r"professione\s*:", r"mestiere\s*:", r"impiegato come", r"impiegata come",
    r"hired as(?: an?| the)?", r"promoted to(?: the)?", r"appointed(?: as)?(?: an?| the)?",
    r"(?:job title|title|occupation|profession|job|position|role) (?:is|was)(?: an?| the)?",
    r"serves? as(?: an?| the)?", r"served as(?: an?| the)?", r"trained as(?: an?)?",
    r"qualified as(?: an?)?", r"retired", r"retraite", r"Rentner(?:in)?",
)  # fmt: skip
#: Weaker cues: "is a" may introduce a job ("She is a nurse") or anything else ("a good man"),
#: so only a known title or a phrase ending in a job word counts after them.
TITLE_WEAK_CUES = (
    r"(?:is|was|am|are|were|became|become|I'm|I’m|he's|she's|as|been) an?",
    r"as (?:the|our|their|his|her)(?: new| current| acting| interim)?",
    r"(?:is|was) (?:the|our|their|his|her)(?: new| current| acting| interim)?",
    r"(?:est|était|devenu|devenue)(?: un| une)?", r"(?:ist|war|wurde)(?: ein| eine)?",
    r"(?:es|era)(?: un| una)?", r"(?:è|era)(?: un| una| uno)?",
)  # fmt: skip
_TITLE_WEAK_CUE = re.compile(r"(?i:\b(?:" + "|".join(TITLE_WEAK_CUES) + r"))\s+$")
_DEFINITE_BEFORE = re.compile(
    r"(?i:\b(?:the|our|their|his|her)(?:\s+(?:new|current|acting|interim))?)\s+$"
)
#: A place or firm after a job word: "is the new archivist at Castillo-Durham".
_AT_AFTER = re.compile(r" at ")
_TITLE_CUE = re.compile(r"(?i:\b(?:" + "|".join(TITLE_CUES) + r"))\s*$")
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’&/-])*")
#: Words that never end an English title phrase taken by its head word ("the", "a").
_TITLE_STOP = frozenset(
    "a an the my your his her our their this that these those and or of for to in at on with "
    "by from as is was be been are were new old".split()
)
#: Job words missing from Faker's English list, and words of it that end no job on their own.
EXTRA_HEADS = frozenset(
    "cleaner driver mechanic electrician plumber carpenter cashier waiter waitress receptionist "
    "salesman saleswoman guard attendant cook chef baker butcher farmer labourer laborer "
    "collector installer repairer supervisor foreman forewoman caretaker janitor courier "
    "dispatcher machinist welder fitter painter decorator bricklayer roofer gardener landscaper "
    "housekeeper nanny stylist hairdresser barber tailor jeweller jeweler auditor bookkeeper "
    "clerk teller investigator detective sergeant lieutenant captain ceo cfo cto coo "
    # occupational head words in no Faker list as a last word (checked with Faker 37)
    "associate agent adjuster preparer carrier keeper keyer operator technologist technician "
    "inspector reporter worker aide representative specialist coordinator dealer bartender "
    "barista manicurist maid groundskeeper trimmer bailiff firefighter paramedic midwife "
    "upholsterer cabinetmaker locksmith dispatcher recruiter paralegal attorney solicitor "
    "barrister concierge chauffeur rancher fisherman miner logger mason plasterer glazier "
    "fabricator assembler packer loader mover stocker merchandiser buyer salesperson "
    "executive founder chairman chairwoman chairperson intern apprentice trainee tutor coach "
    "referee umpire musician singer dancer actor actress sculptor illustrator animator "
    "interpreter planner scheduler estimator appraiser assessor examiner mediator arbitrator "
    "lobbyist ambassador diplomat senator mayor governor councillor councilor minister priest "
    "pastor rabbi imam chaplain vicar dean principal lecturer professor instructor teacher "
    "nurse surgeon physician dentist hygienist pharmacist dietitian optometrist sommelier "
    "veterinarian orthodontist pediatrician paediatrician president director manager head "
    "officer supervisor secretary underwriter broker banker advisor adviser counselor "
    "counsellor trainer editor writer journalist anchor photographer producer curator "
    "archivist librarian ranger pilot controller repairer cutter server dishwasher host "
    "hostess nanny janitor surveyor auditor actuary economist statistician lifeguard porter "
    "embalmer goldsmith silversmith blacksmith "
    # common English job words in no Faker list as a last word
    "announcer sheriff farmhand fishmonger grocer historian judge guide leader tester "
    "seamstress superintendent lead".split()
)
#: Head words that take an "of" phrase ("Head of marketing", "Vice president of sales"); "head"
#: is a job word only so.
OF_HEADS = frozenset(
    "head director president professor dean chief chair secretary minister".split()
)
_NOT_HEADS = frozenset(
    "boy copy crew emeritus land make person staff sub visitor medical maths sciences wales "
    "professional".split()
)
#: Endings of one-word job titles that are in no list ("Echocardiographer", "Phlebotomist").
_JOB_ENDINGS = ("ologist", "ographer", "ician", "apist", "iatrist", "ist", "eer", "broker", "maker")
_JOB_ENDINGS += ("keeper", "worker", "writer", "fighter", "dresser")
#: Words with those endings that name a belief or a visit, not a job (NRP has the beliefs).
_NOT_JOBS = frozenset(
    "buddhist baptist methodist calvinist adventist communist socialist marxist leninist maoist "
    "trotskyist zionist fascist anarchist atheist tourist terrorist extremist nationalist "
    "loyalist separatist royalist racist sexist".split()
)


@dataclass(frozen=True)
class TitleLists:
    """Lower-case job titles (phrases) and the English head words ending them."""

    phrases: frozenset[str]
    heads: frozenset[str]
    longest: int
    #: Every phrase's first words ("chartered", "chartered legal"), to stop a run early.
    prefixes: frozenset[str]


def _job_forms(job: str) -> Iterable[str]:
    if "*" not in job:
        yield job  # as Faker writes it: "Therapist, sports", "Research scientist (medical)"
    job = re.sub(r"\s*\([^)]*\)", "", job).strip()
    if "*" in job:  # "Abfallberater*in" -> "Abfallberater", "Abfallberaterin"
        base, _, suffix = job.partition("*")
        yield base
        yield base + suffix.lstrip("r")
        return
    if ", " in job:  # "Accountant, chartered" -> "Accountant", "chartered Accountant"
        head, _, qualifier = job.partition(", ")
        yield head
        yield f"{qualifier} {head}"
        return
    yield job


@functools.lru_cache(maxsize=1)
def title_lists() -> TitleLists:
    """Faker's job titles of :data:`JOB_LOCALES`, lower case, and the English heads."""
    phrases: set[str] = set()
    heads: set[str] = set()
    for locale in JOB_LOCALES:
        try:
            jobs = importlib.import_module(f"faker.providers.job.{locale}").Provider.jobs
        except (
            ImportError,
            AttributeError,
        ):  # Faker is a core dependency; an old one may lack a list
            continue
        for job in jobs:
            for form in _job_forms(str(job)):
                words = _WORD.findall(form.lower())
                if words:
                    phrases.add(" ".join(words))
                    if locale == "en_US" and "," not in job:
                        heads.update(words[-1].split("/"))
    longest = max((p.count(" ") + 1 for p in phrases), default=1)
    heads = (heads | EXTRA_HEADS) - _TITLE_STOP - _NOT_HEADS
    prefixes = {" ".join(p.split()[:k]) for p in phrases for k in range(1, p.count(" ") + 2)}
    return TitleLists(frozenset(phrases), frozenset(heads), min(longest, 16), frozenset(prefixes))


def _line_of(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a : len(text) if b < 0 else b]


def _own_line(text: str, start: int, end: int) -> bool:
    """Whether the span is all of its line, besides quote marks, bullets and spaces."""
    return re.sub(r"[\s>*•\-–—|]+", "", _line_of(text, start, end)) == re.sub(
        r"\s+", "", text[start:end]
    )


#: Words that begin no title phrase taken by its head word ("a good driver", "former mayor").
_NOT_MODIFIERS = frozenset(
    "good great bad best big small little young old nice true very fine famous former "
    "retired future full part same other another each every some any no not only also just current "
    "i you he she it we they me him us them who what which when where why how".split()
)
_BESIDE_BEFORE = re.compile(rf"(?:[{UPPER}][\w'’.-]*\s*,|[^\W\d_][\w'’.]*\s+[-–—|]|\()\s*$")
_BESIDE_AFTER = re.compile(r"\s*(?:$|\n|[,;)]|\.\s*$|\s(?:at|for|with|of|in|from|\|)\s)")
#: A name, a comma and an article before a title: "Laura Hayes, the sewer pipe cleaner, said".
_APPOSITION = re.compile(r"([^\W\d_][\w'’-]*)[ \t]*,[ \t]*(?:the|our|a|an|my|his|her|their)[ \t]+$")
_APPOSITION_LAST = frozenset("the our a an my his her their".split())
_OWNER_BEFORE = re.compile(
    r"(?:\b(?:[Tt]he|[Oo]ur|[Mm]y|[Yy]our|[Hh]is|[Hh]er|[Tt]heir)(?:\s+(?:new|current|former))?\s+)$"
)
_LINE_START = re.compile(r"(?:\A|\n)[ \t]*$")
_LINE_END = re.compile(r"[ \t]*(?:$|\n)")
_COMMA_BEFORE = re.compile(r"[^\W\d_][\w'’.]*[ \t]*,[ \t]*$")
_NAME_AFTER = re.compile(rf",\s+[{UPPER}][\w'’-]+")
#: After a title, a comma or "is" and a word that may be a given name ("our new clerk is Ann").
_LOWER_NAME_AFTER = re.compile(r"(?:,|\s+(?:is|was))\s+([^\W\d_]+)")
#: Two capitalised words right after a title opening a line ("Programmer Teresa Woodward").
_NAME_NEXT = re.compile(rf" (?:[A-Z]\. )?([{UPPER}][{LOWER}'’-]+) (?:[A-Z]\. )?[{UPPER}][{LOWER}]")


def _name_next(text: str, end: int) -> bool:
    """Whether two capitalised words follow, the first a name of the gazetteer or no English
    word ("Teresa", "Piergiuseppe"; not "Appreciation" of "Teacher Appreciation Week")."""
    m = _NAME_NEXT.match(text, end)
    if m is None:
        return False
    from anon_core.pii.names import gazetteer  # loaded once, by the name rules already

    return gazetteer().is_listed(m.group(1)) or not is_english(m.group(1))


def _given_next(text: str, end: int) -> bool:
    """Whether a given name of the gazetteer and a capitalised word follow ("Denise Carpenter";
    not "Sales Manager": "Sales" is a surname, no given name)."""
    m = _NAME_NEXT.match(text, end)
    if m is None:
        return False
    from anon_core.pii.names import gazetteer

    return gazetteer().is_given(m.group(1))


#: Last words of the cues (or a colon): the cue patterns run only after one of them.
_CUE_LAST = frozenset(
    "a an the as title position occupation profession comme que als como de come to appointed "
    "retired retraite rentner rentnerin is was".split()
)
_WEAK_LAST = frozenset(
    "a an the our their his her un une ein eine una uno est était devenu devenue ist war wurde "
    "es era è new current acting interim".split()
)
_OWNER_LAST = frozenset("the our my your his her their new current former acting interim".split())
_LAST_WORD = re.compile(r"([^\W\d_]+)\s*$")


class _Before:
    """What the text before a candidate title says, each read at most once per start word,
    and only after a cheap look at the last word or mark before it."""

    def __init__(self, text: str, start: int) -> None:
        self.before = text[max(0, start - 40) : start]
        stripped = self.before.rstrip()
        self.mark = stripped[-1:]
        m = _LAST_WORD.search(stripped[-20:]) if self.mark.isalpha() else None
        self.last = m.group(1).lower() if m else ""
        line = self.before.rpartition("\n")[2]
        self.line_start = (start == len(line) or "\n" in self.before) and not line.strip(
            " \t>*•-–—|"
        )

    @functools.cached_property
    def cue(self) -> bool:  # "works as a", "Job title:"
        if self.mark != ":" and self.last not in _CUE_LAST:
            return False
        return bool(_TITLE_CUE.search(self.before))

    @functools.cached_property
    def weak_cue(self) -> bool:  # "is a", "as the"
        if self.last not in _WEAK_LAST or self.cue:
            return False
        return bool(_TITLE_WEAK_CUE.search(self.before[-20:]))

    @functools.cached_property
    def definite(self) -> bool:  # "the", "our" just before
        return self.last in _OWNER_LAST and bool(_DEFINITE_BEFORE.search(self.before))

    @functools.cached_property
    def owner(self) -> bool:  # "the", "our new" just before
        return self.last in _OWNER_LAST and bool(_OWNER_BEFORE.search(self.before[-20:]))

    @functools.cached_property
    def beside(self) -> bool:  # "Ann Lee -", "Ann Lee,", "("
        return self.mark in (",", "-", "–", "—", "|", "(") and bool(
            _BESIDE_BEFORE.search(self.before)
        )

    @functools.cached_property
    def apposition(self) -> bool:  # "Laura Hayes, the", "laura hayes, our"
        if self.last not in _APPOSITION_LAST:
            return False
        m = _APPOSITION.search(self.before)
        if m is None:
            return False
        from anon_core.pii.names import gazetteer

        word = m.group(1)
        return gazetteer().is_listed(word) or (word[0].isupper() and not is_english(word))

    @property
    def paren(self) -> bool:
        return self.mark == "("

    @functools.cached_property
    def comma(self) -> bool:  # "legros," just before
        return self.mark == "," and bool(_COMMA_BEFORE.search(self.before))

    @property
    def any(self) -> bool:
        return (
            self.line_start
            or self.cue
            or self.weak_cue
            or self.owner
            or self.beside
            or self.comma
            or self.apposition
        )


def _beside_name(text: str, end: int, ctx: _Before) -> bool:
    """A title beside a name: "Ann Lee - Clerk", "Ann Lee (Clerk)", "Ann Lee, Clerk at X",
    "Marie Žáková, Administrator, called", "our Clerk, Ann Lee"."""
    after = text[end : end + 40]
    if ctx.beside and _BESIDE_AFTER.match(after):
        return not ctx.paren or after.lstrip().startswith((")", ","))
    if ctx.comma and (_LINE_END.match(after) or _AT_AFTER.match(after)):
        return True  # "mallory legros, pharmacist" ending its line or "at" a firm, in lower case
    if ctx.line_start and (after.startswith(",") or _AT_AFTER.match(after)):
        return True  # a signature line "Kitchen porter, Benoit S.A." or "Clerk at X" under the name
    if ctx.apposition and _BESIDE_AFTER.match(after):
        return True  # "Laura Hayes, the sewer pipe cleaner, said"; "I'm Ann Lee, a nurse in Ohio"
    if not ctx.owner:
        return False
    if _NAME_AFTER.match(after):
        return True
    m = _LOWER_NAME_AFTER.match(after)  # "the account manager, laura hayes, called"
    if m is None:
        return False
    from anon_core.pii.names import gazetteer

    return gazetteer().is_given(m.group(1))


def headed_words(text: str, chunk: list[tuple[int, int, str]]) -> bool:
    """Whether the words before a job word can be a title's modifiers ("Medical" in "Medical
    transcriptionist"): at most six words, no stop word but "and" inside ("Heating and air
    conditioning mechanic"), no "a good"."""
    if len(chunk) > 6 or chunk[0][2] == "and":
        return False
    if chunk[0][2] in _NOT_MODIFIERS and text[chunk[0][0] : chunk[0][1]] != "IT":
        return False  # "a good driver"; "IT support specialist" is a title
    for k, (_, _, w) in enumerate(chunk):
        if w == "and":
            if text[chunk[k + 1][0]].isupper():
                return False  # "John and Mary Baker": names, not a title
        elif w in _TITLE_STOP:
            return False
    return True


def _title_score(
    text: str, chunk: list[tuple[int, int, str]], lists: TitleLists, ctx: _Before
) -> float:
    """How sure a run of words is a job title (0: not one). See :func:`find_titles`."""
    start, end, n = chunk[0][0], chunk[-1][1], len(chunk)
    phrase = " ".join(w for _, _, w in chunk)
    known = phrase in lists.phrases
    headed = (
        chunk[-1][2] in lists.heads
        and headed_words(text, chunk)
        and (chunk[-1][2] != "head" or text.startswith((" of ", " Of "), end))
        and (chunk[-1][2] != "lead" or n >= 2)  # "project lead"; "took the lead" is none
    )
    last = chunk[-1][2]
    ending = (
        len(last) > 6
        and last.endswith(_JOB_ENDINGS)
        and last not in _NOT_JOBS
        and (n == 1 or headed_words(text, chunk))
    )
    if not (known or headed or ending):
        return 0.0
    if not ctx.any:
        return 0.6 if known and n >= 2 else 0.0
    end = _of_end(text, end, last)  # what follows "Head of procurement" is read after it
    own_line = ctx.line_start and _own_line(text, start, end)
    if known:
        if ctx.cue or own_line:
            return 0.85
        if n >= 2 or ctx.weak_cue:
            return 0.6
    if ctx.cue or own_line:
        return 0.7
    if _beside_name(text, end, ctx):
        return 0.6
    if (ctx.owner or (ctx.line_start and n == 1)) and _name_next(text, end):
        return 0.6  # "Programmer Teresa Woodward will lead", "our translator John Jones said"
    if ctx.line_start and n >= 3 and len({text[a].isupper() for a, _, _ in chunk[1:]}) == 1:
        # "Sewer pipe cleaner Laura Hayes will lead": three words or more (a firm's name and a
        # job word: "Estately songwriter Michele Østrem"), those after the first in one case
        # (not "Compared Care songwriter Zoe Young"), the first an English word
        if is_english(text[start : chunk[0][1]]) and _given_next(text, end):
            return 0.6
    if ctx.weak_cue and (
        n >= 2 or text[start].isupper() or not ctx.definite or _AT_AFTER.match(text, end)
    ):
        return 0.5  # "is a nurse"; "as the assistant to" is a role, "is the Lifeguard" a title
    if text[start].isupper() and ctx.owner:
        return 0.5  # "The Groundskeeper called", "our Sound engineer": a capital mid-sentence
    return 0.0


_OF_PHRASE = re.compile(r" [Oo]f ((?:[^\W\d_][\w'’&-]*)(?: (?:and )?[^\W\d_][\w'’&-]*)?)")
#: Capitalised words an "of" phrase of a title may start with ("Director of Human Resources");
#: another capitalised word after "of" starts a firm's or a place's name.
DEPARTMENTS = frozenset(
    "sales marketing operations finance financial engineering nursing procurement purchasing "
    "human people research development communications compliance security technology "
    "information it product products design education history medicine surgery science "
    "sciences mathematics english physics chemistry biology economics law legal accounts "
    "accounting admissions administration customer client quality safety risk strategy "
    "business data analytics infrastructure logistics supply facilities maintenance "
    "production manufacturing training learning talent recruitment public policy government "
    "digital content social media music art arts studies staff student students clinical "
    "pharmacy radiology cardiology pediatrics paediatrics psychiatry".split()
)
_OF_STOP = frozenset("the a an my your his her our their this that at in on for from to".split())


def _of_end(text: str, end: int, last: str) -> int:
    """The end of "Head of marketing" past ``end`` for a head word that takes an "of" phrase."""
    if last not in OF_HEADS:
        return end
    m = _OF_PHRASE.match(text, end)
    if m is None:
        return end
    words = m.group(1).split(" ")
    if words[0].lower() in _OF_STOP:
        return end
    if words[0][0].isupper() and words[0].lower() not in DEPARTMENTS:
        return end  # "the Deputy director of Henderson, Kerr and Woods": a firm follows
    kept = end + len(" of ") + len(words[0])
    second = words[-1]
    if len(words) > 1 and second.lower() not in _OF_STOP and not _given_next(text, kept):
        if len(words) == 3 or (words[0][0].isupper() and second[0].isupper()):
            kept = m.end(1)  # "Head of Human Resources", "Director of sales and marketing"
    return kept


_HONORIFIC = re.compile(
    r"(?<![\w.])(?:Dr|Ms|Mrs|Mr|Mx|Prof|Miss|Mme|Mlle|Sr|Sra|Srta)\.?(?=\s+[A-ZÀ-Þ\u0100-\u017f])"
)
#: In text written all in lower case, only with the dot ("dr. blake"; "ms" alone is a word).
_HONORIFIC_LOWER = re.compile(r"(?<![\w.])(?:dr|ms|mrs|mr|prof)\.(?=\s+[^\W\d_])")

#: One of these is in every match of :data:`_HONORIFIC` ("Mr" in "Mrs", "Sr" in "Srta"), and of
#: :data:`_HONORIFIC_LOWER`.
_HONORIFIC_WORDS = ("Dr", "Ms", "Mr", "Mx", "Prof", "Miss", "Mme", "Mlle", "Sr")
_HONORIFIC_WORDS_LOWER = ("dr.", "ms.", "mr", "prof.")


def find_honorifics(text: str) -> list[Found]:
    """Courtesy titles before a name: "Dr. Blake", "Ms Thomas", "prof. mace" (with its dot)."""
    lower = text.islower()
    if not any(word in text for word in (_HONORIFIC_WORDS_LOWER if lower else _HONORIFIC_WORDS)):
        return []  # every match holds one of these words: a scan without them finds none
    regex = _HONORIFIC_LOWER if lower else _HONORIFIC
    return [Found(m.start(), m.end(), "TITLE", 0.6) for m in regex.finditer(text)]


_HEAD, _STOP, _OTHER = 0, 1, 2
#: Per distinct lower-case word, for the lists it was decided with: ``(kind, starts)``, kind
#: :data:`_HEAD` (a head word or a job ending), :data:`_STOP` (a stop word but "and") or
#: :data:`_OTHER`; ``starts``: a phrase of the lists starts with it or it has a job ending.
_KINDS: list[Any] = [None, {}]
#: Distinct words whose kind is remembered (then the table starts again).
KIND_TABLE = 100_000


def _word_kinds(lists: TitleLists) -> dict[str, tuple[int, bool]]:
    if _KINDS[0] is not lists:  # title_lists() is built once; other lists get a new table
        _KINDS[:] = [lists, {}]
    return _KINDS[1]


def _word_kind(word: str, lists: TitleLists) -> tuple[int, bool]:
    if word in lists.heads or (len(word) > 6 and word.endswith(_JOB_ENDINGS)):
        kind = _HEAD
    elif word in _TITLE_STOP and word != "and":
        kind = _STOP
    else:
        kind = _OTHER
    return kind, word in lists.prefixes or word.endswith(_JOB_ENDINGS)


def _title_at(
    text: str, words: list[tuple[int, int, str]], i: int, lists: TitleLists
) -> Found | None:
    """The title starting at word ``i``: the longest run of words from it that is still the
    start of a known title, on one line, tried first."""
    runs = [1]
    known_upto = 1  # runs up to this length may be a title of the lists
    prefix = words[i][2]
    for n in range(2, min(max(lists.longest, 6), len(words) - i) + 1):
        gap = text[words[i + n - 2][1] : words[i + n - 1][0]]
        prefix = f"{prefix} {words[i + n - 1][2]}"
        if "\n" in gap or gap.strip() not in ("", "-", ",", "/", "(", ")"):
            break
        if prefix not in lists.prefixes:
            if n <= 6 and gap == " ":
                runs.append(n)  # a phrase ending in a job word ("sewer pipe cleaner")
                continue
            break
        runs.append(n)
        known_upto = n
    ctx: _Before | None = None
    for n in sorted(runs, reverse=True):
        chunk = words[i : i + n]
        last = chunk[-1][2]
        if n > known_upto and not (last in lists.heads or last.endswith(_JOB_ENDINGS)):
            continue  # neither a title of the lists nor ending in a job word
        if n > known_upto and n >= 3 and _given_next(text, chunk[-3][1]):
            continue  # "Youth Worker Denise Carpenter": the job word ends a name after it
        gaps = {text[a[1] : b[0]].strip() for a, b in zip(chunk, chunk[1:], strict=False)} - {
            "",
            "-",
        }
        phrase = " ".join(w for _, _, w in chunk)
        if gaps and phrase not in lists.phrases:
            continue
        if not (last in lists.heads or last.endswith(_JOB_ENDINGS) or phrase in lists.phrases):
            continue  # no title of the lists, no job word: :func:`_title_score` says 0
        if ctx is None:
            ctx = _Before(text, chunk[0][0])
        score = _title_score(text, chunk, lists, ctx)
        if score:
            start, end = chunk[0][0], _of_end(text, chunk[-1][1], chunk[-1][2])
            if (
                text[start:end].count("(") > text[start:end].count(")")
                and text[end : end + 1] == ")"
            ):
                end += 1
            return Found(start, end, "TITLE", score)
    return None


def find_titles(text: str) -> list[Found]:
    """Job titles in ``text`` (Faker's job lists, cue phrases, job head words), and courtesy
    titles before a name (:func:`find_honorifics`).

    From each word the longest run of words that is a known title (or ends in a job word within
    six words) on one line is tried first; commas, slashes and brackets may sit inside a title
    only where Faker's list writes them ("Therapist, sports"). Only the words a title may
    start at are tried (:func:`~anon_core.pii.titles_fast.title_starts`): most start none.
    """
    lists = title_lists()
    kinds = _word_kinds(lists)
    raw, gaps, starts = words_and_gaps(text)
    lowers = list(map(str.lower, raw))
    kind_list = list(map(kinds.get, lowers))
    if None in kind_list:  # new words: each decided once, then read with the others
        new = {w: _word_kind(w, lists) for w in set(lowers).difference(kinds)}
        if len(kinds) + len(new) > KIND_TABLE:
            kinds.clear()  # the table starts again
        if len(new) <= KIND_TABLE:
            kinds.update(new)
        kind_list = list(map(new.get, lowers, kind_list))
    out: list[Found] = []
    candidates = title_starts(kind_list, gaps, _HEAD, _STOP)
    if candidates:
        ends = list(map(add, starts, map(len, raw)))
        words = list(zip(starts, ends, lowers, strict=True))
        for i in candidates:
            if out and words[i][0] < out[-1].end:
                continue  # inside the title found before
            best = _title_at(text, words, i, lists)
            if best is not None:
                out.append(best)
    honorifics = [
        h for h in find_honorifics(text) if all(h.end <= f.start or f.end <= h.start for f in out)
    ]
    return sorted(out + honorifics, key=lambda f: f.start)
