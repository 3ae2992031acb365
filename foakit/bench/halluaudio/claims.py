"""Reading a HalluAudio response's text: normalisation, and the forbidden claims it makes.

A forbidden claim is made when its words stand in the response outside the reach of a
negation or an abstention that governs the claim's own clause ("I cannot hear a dog
barking" makes no claim; "No, the speaker says hello" makes one); a claim only hedged,
questioned or ambiguously negated is left to the judge (``docs/halluaudio.md``).
"""

from __future__ import annotations

import json
import re
import unicodedata

__all__ = ["normalize", "claim_matches", "violated_claims", "NEGATION_REACH"]

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalize(text: str) -> str:
    """NFKC, case-folded, punctuation to spaces, whitespace collapsed."""
    t = unicodedata.normalize("NFKC", str(text)).casefold()
    return " ".join(_PUNCT.sub(" ", t).split())


def _claim_text(claim) -> tuple[str, str | None]:
    if isinstance(claim, dict):
        return (str(claim.get("text", claim.get("claim", json.dumps(claim)))),
                claim.get("pattern", claim.get("regex")))
    return str(claim), None


# Clause boundaries: sentence ends, semicolons, dashes between words, line
# breaks, and "but" / "however" / "although" (a negation before them does not reach past).
_CLAUSE = re.compile(r"[.!?;\n]+|\s[-\u2013\u2014]+\s|,?\s+(?:but|however|although|though|"
                     r"yet|nhưng)\s+", re.IGNORECASE)
# Negation and abstention cues: a claim in the same clause after one of these is denied
# or declined, not made.  "n't" is split off before matching ("can't" -> "ca not").
_NEG = {"no", "not", "never", "cannot", "nothing", "none", "nobody", "neither", "nor", "without",
        "unable", "impossible", "unclear", "unsure", "uncertain", "absent", "lack",
        "lacks", "không", "chưa", "chẳng"}
# Abstentions in more than one word, none of them a negation cue alone.
_NEG_PHRASES = ("hard to tell", "too faint", "too noisy", "too quiet")
# Negations that affirm ("no doubt the speaker says ...") are no negation.
_AFFIRMING = re.compile(r"\b(?:no|without|not) (?:a )?(?:doubt|question)\b|\bnot (?:only|just)\b|"
                        r"\bno wonder\b")
# Hedges: a claim under one of these is a guess; whether a guess is a claim is the
# judge's call, so the case needs the judge.
_HEDGE = {"maybe", "perhaps", "possibly", "probably", "likely", "might", "may", "could",
          "seems", "seem", "sounds", "guess", "apparently", "presumably"}
_HEDGE_PHRASES = ("có lẽ", "hình như")
#: How far before a claim (in words, within its clause) a negation still reaches it.
NEGATION_REACH = 8
# Words that start a new thought inside a clause: a negation before one of them does not
# reach a claim after it ("unable to hear, so I won't guess the request": one negation
# reaches "the request", not two).
_SOFT = {"so", "because", "therefore", "thus", "hence", "since", "nên", "vì"}


def _words(text: str) -> list[str]:
    t = re.sub(r"n['\u2019]t\b", " not", unicodedata.normalize("NFKC", text), flags=re.I)
    return normalize(t).split()


# Inside a clause, commas, colons and "and" join parts that may be clauses of their own:
# a negation in one part reaches a claim in a later one only through a part with a verb
# ("I cannot hear a dog and a cat barking"), never through a remark ("No, ...",
# "Nothing unusual: ...") or into a part with its own subject and verb ("It is not noisy
# and the speaker says hello").
_JOIN = re.compile(r"\s*[,:](?!\d)\s*(?:(?:and|và)(?![\w']))?|(?<![\w'])(?:and|và)(?![\w'])",
                   re.IGNORECASE)
# Subjects, and the finite verbs, auxiliaries and modals (with the pieces "'s", "'m",
# "'re", "n't" leave after _words) that make a part a clause of its own.
_SUBJECTS = {"i", "you", "he", "she", "it", "we", "they", "there", "someone", "somebody",
             "everyone", "everybody", "anyone", "anybody", "people", "that", "this", "what",
             "who"}
_FINITE = {"is", "are", "was", "were", "am", "m", "re", "ve", "ll", "has", "have", "had", "do",
           "does", "did", "can", "cannot", "ca", "could", "will", "wo", "would", "shall",
           "should", "may", "might", "must", "says", "said", "asks", "asked", "wants", "wanted",
           "tells", "told", "speaks", "spoke", "talks", "talked", "mentions", "mentioned"}
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "his", "her", "their",
                "my", "your", "our", "its", "one"}

# A part opening with one of these sets itself against what a negation before it denies
# ("There's no speech, just a dog barking" states the dog).
_EXCEPT = {"just", "only", "except", "apart", "besides", "instead", "rather", "merely"}


def _has_verb(part: list[str]) -> bool:
    """Whether a part of a clause has a subject or verb of its own (a word-level guess):
    a subject pronoun, a finite verb or auxiliary, or "the <noun> <verb>s / <verb>ed"."""
    for i, w in enumerate(part):
        if w in _SUBJECTS or w in _FINITE:
            return True
        if w == "s" and i and part[i - 1] in _SUBJECTS | {"here", "who"}:
            return True  # "it's", "there's"; not the possessive "the speaker's"
        if i >= 2 and part[i - 2] in _DETERMINERS and part[i - 1] not in _DETERMINERS and \
                re.fullmatch(r"[a-z]{2,}(?:[^s]s|ed)", w):
            return True
    return False


def _reading(words: list[str], a: int, b: int, joins: list[tuple[int, int]],
             question: bool) -> str:
    """How a clause uses a claim found in it: ``asserted``, ``negated`` or ``uncertain``.

    ``words`` are the clause's words, ``words[a:b]`` the claim, ``joins`` the word spans of
    the commas, colons and "and"s that join the clause's parts (:data:`_JOIN`)."""
    before, after = words[:a], words[b:]
    pre = sorted(j for j in joins if j[1] <= a)
    starts, ends = [0] + [e for _, e in pre], [s for s, _ in pre] + [a]
    parts = [words[s:e] for s, e in zip(starts, ends, strict=True)]
    hi = min((s for s, _ in joins if s >= b), default=len(words))
    # the words a negation may govern the claim from: its own part, and earlier parts
    # back to the first with a verb when the claim's part has none of its own
    scope, remark = parts[-1], False
    own = words[starts[-1]:hi]
    if not _has_verb(own) and not (own and own[0] in _EXCEPT):
        for part in reversed(parts[:-1]):
            if _has_verb(part):
                scope = part + scope
                break
            if any(w in _NEG for w in part):
                # a verbless negated part and a verbless claim ("No, a dog barking",
                # "Không nghe rõ, người nói ..."): a remark or an elided verb, the judge's call
                remark = True
                break
            scope = part + scope
    scope = _AFFIRMING.sub("ok", " ".join(scope)).split()
    cut = max((i + 1 for i, w in enumerate(scope) if w in _SOFT), default=0)
    sub = scope[cut:]
    near, far = sub[-NEGATION_REACH:], sub[:-NEGATION_REACH]
    near_text = " ".join(near)
    neg_near = sum(w in _NEG for w in near) + sum(near_text.count(p) for p in _NEG_PHRASES)
    neg_after = any(w in _NEG for w in after[:4])
    ctx = _AFFIRMING.sub("ok", " ".join(before)).split() + after[:3]
    # a hedge under a negation ("I won't guess") declines rather than guesses
    hedged = any(w in _HEDGE and not any(x in _NEG for x in ctx[max(0, i - 2):i])
                 for i, w in enumerate(ctx)) or any(p in " ".join(ctx) for p in _HEDGE_PHRASES)
    if question or hedged:
        return "uncertain"
    if neg_near == 1 and not neg_after:
        return "negated"
    if neg_near > 1 or neg_after or remark or any(w in _NEG for w in far):
        # a double negation, a denial after the claim ("X is not audible" and "X, not Y"
        # read alike), a verbless remark before a verbless claim, or a negation only far
        # back in the claim's scope: the judge decides
        return "uncertain"
    return "asserted"


def _find(words: list[str], claim: list[str]) -> list[int]:
    n = len(claim)
    return [i for i in range(len(words) - n + 1) if words[i:i + n] == claim]


def claim_matches(response: str, claims: list) -> tuple[list, list]:
    """The forbidden claims a response makes, and those it mentions in a way the local
    scorer cannot read (the judge's call).

    A claim given as text is found where its normalized words occur, as whole words, in
    a clause of the response; a claim given as ``{"text": ..., "pattern": REGEX}`` where
    the regex matches in a clause.  Each occurrence is read in its clause, where a
    negation governs the claim only from the claim's own part (the words since the last
    comma, colon or "and") or, when that part has no subject or verb of its own
    (:func:`_has_verb`) and does not open with "just" / "only" / "except" ..., from the
    parts back to the first with a verb ("I cannot hear a dog and a cat barking"); a
    one-word answer or remark ("No, ...", "Nothing unusual: ...") or a clause of its own
    ("It is not noisy and ...") before the claim's part governs nothing:

    * **negated** (no violation): a negation or abstention cue ("no", "not", "n't",
      "cannot", "never", "without", "unable", "unclear", "không", ...) among the
      :data:`NEGATION_REACH` words before it in that reach, and nothing else that muddles
      it: "I cannot hear a dog barking", "No - I can't tell what the speaker says".
    * **uncertain** (the judge decides): a hedge ("maybe", "might", "sounds like", ...),
      a question, a double negation, a negation only further back, a verbless negated
      remark before a verbless claim ("No, a dog barking"), or a negation after the claim
      ("a dog barking is not audible" and "the dog barking, not the radio" read alike to
      a word matcher).
    * **asserted** (a violation): anything else.

    A claim is violated when any occurrence is asserted, uncertain when none is asserted
    and one is uncertain.

    Returns
    -------
    violated : list
        The claims made (as given).
    uncertain : list
        The claims only mentioned in a way left to the judge.
    """
    text = response or ""
    clauses = []
    start = 0
    for m in list(_CLAUSE.finditer(text)) + [None]:
        end = m.start() if m is not None else len(text)
        seg = text[start:end]
        question = m is not None and "?" in m.group(0)
        if seg.strip():
            clauses.append((seg, question))
        start = m.end() if m is not None else end
    violated, uncertain = [], []
    for claim in claims or []:
        ctext, pattern = _claim_text(claim)
        readings = []
        for seg, question in clauses:
            words = _words(seg)
            joins = [(len(_words(seg[:j.start()])), len(_words(seg[:j.end()])))
                     for j in _JOIN.finditer(seg)]
            if pattern:
                try:
                    spans = [(len(_words(seg[:mm.start()])), len(_words(seg[:mm.end()])))
                             for mm in re.finditer(pattern, seg, flags=re.IGNORECASE)]
                except re.error:
                    spans = []
            else:
                cw = _words(ctext)
                spans = [(i, i + len(cw)) for i in _find(words, cw)] if cw else []
            readings += [_reading(words, a, b, joins, question) for a, b in spans]
        if "asserted" in readings:
            violated.append(claim)
        elif "uncertain" in readings:
            uncertain.append(claim)
    return violated, uncertain


def violated_claims(response: str, claims: list) -> list:
    """The forbidden claims a response makes (:func:`claim_matches`' first list): a
    negated mention or a calibrated abstention is no violation."""
    return claim_matches(response, claims)[0]
