"""The sound classes a text names: :func:`class_mentions`.

Benchmark-neutral and below both readers of questions: the expression reader
(:mod:`foakit.bench.reader`) counts a list of sounds by the classes it names, and the
question cues (:mod:`foakit.bench.questions`) re-export it.
"""

from __future__ import annotations

import re

__all__ = ["class_mentions"]


def _word_forms(word: str) -> set[str]:
    """A word, its plural and (for a plural) its singular: -s, -es after s/x/z/ch/sh,
    consonant + y -> -ies; "glasses" -> "glass", "footsteps" -> "footstep"."""
    forms = {word}
    if re.search(r"[^aeiou]y$", word):
        forms.add(word[:-1] + "ies")
    elif re.search(r"(?:s|x|z|ch|sh)$", word):
        forms.add(word + "es")
    else:
        forms.add(word + "s")
    if len(word) > 3:
        if word.endswith("ies"):
            forms.add(word[:-3] + "y")
        elif re.search(r"(?:s|x|z|ch|sh)es$", word):
            forms |= {word[:-2], word[:-1]}
        elif word.endswith("s") and not re.search(r"(?:ss|us|is)$", word):
            forms.add(word[:-1])
    return forms


def _term_pattern(term: str) -> str:
    """A regex for a vocabulary term with each word in any of its forms, possessive or
    not, words joined by spaces, hyphens or underscores; a two-word term whose second
    word ends in -ing is also found the other way round ("dog barking": "the barking
    dog")."""
    words = term.split()

    def alt(w: str) -> str:
        forms = sorted(_word_forms(w), key=len, reverse=True)
        return "(?:" + "|".join(re.escape(f) for f in forms) + ")(?:'s|s'|')?"

    pats = [r"[\s-]+".join(alt(w) for w in words)]
    if len(words) == 2 and words[1].endswith("ing"):
        pats.append(rf"{alt(words[1])}[\s-]+{alt(words[0])}")
    return "|".join(f"(?:{p})" for p in pats)


def class_mentions(text: str, vocab: list[str]) -> list[str]:
    """Vocabulary terms that ``text`` names, in order of appearance (longest match wins).

    Matching ignores case, articles and any descriptive word before a term ("a ringing
    telephone" names "telephone"); a term is also found plural or singular ("dogs",
    "glasses", "babies"; "footstep" for "footsteps"), possessive ("the dog's barking"),
    with hyphens or underscores for spaces, and a two-word "X Y-ing" term reversed
    ("barking dog" for "dog barking").  Overlapping matches go to the longest span (then
    the earliest, then the earlier term in ``vocab``); each occurrence is listed once,
    under the term as ``vocab`` spells it.

    Parameters
    ----------
    text : str
        A question or answer.
    vocab : list of str
        Sound-class names.

    Returns
    -------
    list of str
        Terms of ``vocab``, one per occurrence, in text order.
    """
    low = " " + re.sub(r"[^a-z0-9' -]", " ", str(text).lower().replace("’", "'")) + " "
    cands = []
    for k, v in enumerate(vocab):
        norm = " ".join(re.sub(r"[^a-z0-9' -]", " ", str(v).lower().replace("_", " ")).split())
        if not norm:
            continue
        for m in re.finditer(rf"(?<![a-z0-9])(?:{_term_pattern(norm)})(?![a-z0-9])", low):
            cands.append((-(m.end() - m.start()), m.start(), k, m.end()))
    taken = [False] * len(low)
    found = []
    for _, start, k, end in sorted(cands):
        if not any(taken[start:end]):
            taken[start:end] = [True] * (end - start)
            found.append((start, vocab[k]))
    return [v for _, v in sorted(found)]
