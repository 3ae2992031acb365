"""The option letter a model's answer text gives, read in the reference code's order.

Rules, first match wins (``docs/rmsaqa.md``):

1. ``tag``: an ``<answer>X</answer>`` tag (the first one; ``X`` may carry brackets or the
   option text after it: ``<answer>(B) a dog</answer>``).
2. ``answer_is``: an "answer is X" phrase: "The answer is (B)", "answer: C",
   "Final answer - D", "the correct option is A", "correct choice: B".
3. ``line_start``: a letter opening a line and followed by ``)``, ``.`` or ``:``
   ("B)", "(B)", "B.", "B:").  When lines open with different letters (the model listed
   the options) this rule does not decide.
4. ``lone``: a letter standing alone as a word, when it is the only such letter in the
   text.  "A" followed by a lower-case word ("A dog barks") is the article, not a
   candidate, unless the word is a verb of choosing ("A is correct", "A seems right").

Letters are upper case (a lower-case "b" counts only as the whole answer, as a tag's whole
content, or bracketed after "answer is": "answer is (b)"), and only the item's option
letters are candidates.  Anything else is unparsed (``None``),
which scores as wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["RULES", "extract_letter"]

#: The rule names, in the order they are tried.
RULES = ("tag", "answer_is", "line_start", "lone")

_TAG = re.compile(r"<answer>\s*(.*?)\s*</answer>", re.I | re.S)
_TAG_LETTER = re.compile(r"^[\s*]*([(\[])?\s*([A-Za-z])(?![A-Za-z])")
_ANSWER_IS = re.compile(  # key words in any case, the letter upper case unless bracketed
    r"(?i:\banswer|\bcorrect\s+(?:option|choice)|\bbest\s+(?:option|choice)|\bmy\s+choice)"
    r"\s*(?i:is|would\s+be|should\s+be|:|=|-)\s*(?i:option\s+|choice\s+)?[*\s]*"
    r"(?:\(([A-Za-z])\)|\[([A-Za-z])\]|([A-Z])(?![A-Za-z]))")
_LINE_START = re.compile(r"^[ \t*>#-]*\(?([A-Z])(?:\)\s*[.:]?|\s*[.:])(?=\s|$)", re.M)
_LONE = re.compile(r"(?<![A-Za-z'])\(?([A-Z])\)?(?![A-Za-z'])")
_ARTICLE_NEXT = re.compile(r"\s+([a-z]+)")
_CHOOSING = frozenset({"is", "was", "seems", "looks", "fits", "matches", "would", "should",
                       "best", "correct", "sounds", "appears"})


def _ok(letter: str | None, letters: Sequence[str]) -> str | None:
    return letter if letter is not None and letter in letters else None


def extract_letter(text: str | None, letters: Sequence[str] = ("A", "B", "C", "D")
                   ) -> tuple[str | None, str | None]:
    """The option letter an answer text gives, and the rule that read it.

    Parameters
    ----------
    text : str or None
        The answer as the model wrote it.
    letters : sequence of str
        The item's option letters (upper case).

    Returns
    -------
    letter : str or None
        None when no rule decides (unparsed).
    rule : str or None
        One of :data:`RULES` (``"lone"`` also for an answer that is one bare letter).
    """
    if text is None:
        return None, None
    s = text.strip()
    if len(s) <= 3:  # "B", "b", "(B)", "B." -- most answers, so answered first
        core = s.strip("().[]:* ").upper()
        if len(core) == 1:
            got = _ok(core, letters)
            return got, ("lone" if got else None)
    m = _TAG.search(s)
    if m:
        t = _TAG_LETTER.match(m.group(1))
        if t and (t.group(1) or t.group(2).isupper() or len(m.group(1).strip("()[]* ")) == 1):
            return _ok(t.group(2).upper(), letters), "tag"
        return None, None  # a tag that gives no letter: the model's answer is unreadable
    m = _ANSWER_IS.search(s)
    if m:
        got = _ok((m.group(1) or m.group(2) or m.group(3)).upper(), letters)
        if got:
            return got, "answer_is"
    found = {x for x in _LINE_START.findall(s) if x in letters}
    if len(found) == 1:
        return found.pop(), "line_start"
    if len(found) > 1:
        return None, None
    cands = set()
    for m in _LONE.finditer(s):
        x = m.group(1)
        if x not in letters:
            continue
        if x == "A" and not m.group(0).startswith("(") and not m.group(0).endswith(")"):
            nxt = _ARTICLE_NEXT.match(s, m.end())
            if nxt and nxt.group(1) not in _CHOOSING:
                continue  # the article "A"
        cands.add(x)
    if len(cands) == 1:
        return cands.pop(), "lone"
    return None, None
