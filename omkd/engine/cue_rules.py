"""The recall net's cue table (spec §3.3): one row per cue, by language, with its strength and note.

A row is a regular expression, the *anchors* that every match of it contains (lower-case literal
strings: the net finds them all in one pass and runs the expression only around them) and
whether it states a *not-knowing* (the third-person guard applies to those: "the user doesn't
know" is not the agent's uncertainty). Rows of a Latin-script language match between word
boundaries, case-insensitively; the others match where they are (Chinese, Japanese and Korean do
not separate words the same way; a Korean row says itself where a word must end).

``strong`` cues say outright that a fact is not known or not verified; ``weak`` ones only soften
a statement, and are wrong more often than right (a possibility, a suggestion, "should" as a
requirement, "seems" about output just seen). The judge starts from the strength and learns the
rest. Every cue is a general form of its language, never a fixture's sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

STRONG: Final = "strong"
WEAK: Final = "weak"
LATIN: Final = frozenset({"en", "de", "pt"})
"""Languages whose rows match between word boundaries."""


@dataclass(frozen=True, slots=True)
class CueRow:
    lang: str
    pattern: str
    strength: str
    anchors: tuple[str, ...]
    note: str = ""
    knowing: bool = False
    """A not-knowing ("not sure", 不知道, 모르겠): not a candidate when a third person is its subject."""

    @property
    def literal(self) -> bool:
        """The row is its one anchor, matched where it stands (no expression to run)."""
        return self.lang not in LATIN and len(self.anchors) == 1 and self.pattern == self.anchors[0]


KNOWING: Final = "knowing"


def _rows(lang: str, table: tuple[tuple[str, ...], ...]) -> list[CueRow]:
    """Rows of (expression, strength, anchors separated by ``|``, note[, ``KNOWING``])."""
    return [CueRow(lang, row[0], row[1], tuple(row[2].split("|")), row[3], KNOWING in row[4:]) for row in table]


def _literals(lang: str, strength: str, cues: str, note: str = "", knowing: bool = False) -> list[CueRow]:
    """Rows that are literal strings (separated by ``|``, or by spaces where none holds one)."""
    return [CueRow(lang, cue, strength, (cue,), note, knowing) for cue in cues.split("|" if "|" in cues else None)]


ENGLISH: Final = _rows("en", (
    (r"might", WEAK, "might", "the commonest real form"),
    (r"may (?:be|have|not|also|need|require|contain|exist|differ|fail|already|affect|cause|mean)", WEAK, "may ",
     "possibility"),
    (r"could (?:be|have|also|mean|explain|cause)", WEAK, "could ", ""),
    (r"would (?:be|explain|mean)", WEAK, "would ", "a hypothetical as often"),
    (r"(?:un)?likely", WEAK, "likely", ""),
    (r"probably|possibly|perhaps|maybe|apparently|seemingly", WEAK, "probabl|possibl|perhap|maybe|apparent|seem", ""),
    (r"presumably|supposedly", STRONG, "presum|suppos", ""),
    (r"seems?|appears?(?: to)?|looks? like|looking like", WEAK, "seem|appear|look",
     "often an observation of output just seen"),
    (r"suggests?(?: that)?|indicates?(?: that)?", WEAK, "suggest|indicat", "a reading of evidence"),
    (r"I (?:think|believe)|assuming", WEAK, "think|believe|assum", ""),
    (r"I (?:guess|suspect|assume)|suspect(?:s|ed|ing)?|suspicion|hypothes[ie]s|hypothesi[sz]e", STRONG,
     "guess|suspect|assum|suspicion|hypothes", ""),
    (r"I (?:wonder|am wondering)|I['’]m wondering|wonder(?:ing)? (?:if|whether|why|where|what|how)", WEAK,
     "wonder", "an open question as often as a musing"),
    (r"I(?:['’]m| am) (?:fairly|pretty|not) (?:sure|certain|confident)", STRONG, "sure|certain|confident", ""),
    (r"not (?:sure|certain|clear)|unsure|uncertain|unclear", STRONG, "sure|certain|clear", "", KNOWING),
    (r"(?:I )?do(?:n['’]t| not) know|no idea", STRONG, "know|idea", "", KNOWING),
    (r"need to (?:verify|confirm|find out|figure out|double-check)", STRONG, "need to", ""),
    (r"need to (?:check|investigate|look|see|understand)", WEAK, "need to", "a plan as often as a doubt"),
    (r"(?:let me|let's|I(?:['’]ll| will| should| must| have to)) (?:check|verify|confirm|double-check|find out|see)",
     WEAK, " check| verify| confirm| double-check| find out| see",
     "a stated need to look something up, or a routine step"),
    (r"(?:check|verify|confirm|see|determine|find out) (?:if|whether)", WEAK, " if| whether", ""),
    (r"to (?:verify|confirm) (?:that|whether|if)", STRONG, "verif|confirm", ""),
    (r"hard to say|can(?:['’]t|not) tell", STRONG, "hard to|tell", ""),
    (r"(?:my )?guess|if I recall|IIRC|as far as I know|AFAIK", STRONG, "guess|recall|iirc|as far as|afaik", ""),
    (r"should be|must be|would expect", WEAK, "should be|must be|expect", "a requirement as often"),
    (r"(?:haven['’]t|have not|not) (?:been )?verified|unverified", STRONG, "verif", ""),
    (r"insufficient information|not enough information", STRONG, "information", ""),
    (r"(?:I )?(?:can(?:['’]t|not)|couldn['’]t|could not) (?:confirm|determine)", STRONG, "confirm|determine", ""),
    (r"(?:I )?(?:can(?:['’]t|not)|couldn['’]t|could not) (?:find|locate)", WEAK, "find|locate",
     "a failed search as often"),
    (r"(?:don['’]t|do not) see", WEAK, " see", ""),
))  # fmt: skip

GERMAN: Final = _rows("de", (
    (r"vielleicht|wahrscheinlich(?:er)?|vermutlich|möglicherweise|eventuell|anscheinend|offenbar|offensichtlich"
     r"|wohl", WEAK,
     "vielleicht|wahrscheinlich|vermutlich|möglicherweise|eventuell|anscheinend|offenbar|offensichtlich|wohl", ""),
    (r"soweit ich weiß|meines wissens", WEAK, "soweit|wissens", "as far as I know"),
    (r"scheint|scheinen|sieht (?:so )?aus", WEAK, "schein|sieht", "often what the output showed"),
    (r"könnte|könnten|dürfte|dürften", WEAK, "könnte|dürfte", "a possibility"),
    (r"ich (?:glaube|denke|vermute|nehme an)", WEAK, "glaube|denke|vermute|nehme an", ""),
    (r"nicht sicher|unsicher|unklar|nicht klar|ungewiss", STRONG, "sicher|unklar|klar|ungewiss", "", KNOWING),
    (r"(?:ich )?weiß (?:ich )?nicht|keine ahnung", STRONG, "weiß|ahnung", "", KNOWING),
    (r"(?:muss|müssen|sollte|sollten) (?:ich |wir )?(?:noch )?(?:prüfen|überprüfen|klären|verifizieren|nachsehen)",
     STRONG, "muss|müssen|sollte", ""),
    (r"(?:prüfen|überprüfen|klären|nachsehen|schauen),? ob", WEAK, "prüfen|klären|nachsehen|schauen", ""),
    (r"nicht (?:verifiziert|geprüft|bestätigt)|ungeprüft|unbestätigt", STRONG, "verifiziert|geprüft|bestätigt", ""),
))  # fmt: skip

PORTUGUESE: Final = _rows("pt", (
    (r"talvez|provavelmente|possivelmente|aparentemente", WEAK, "talvez|provavelmente|possivelmente|aparentemente", ""),
    (r"parecem?|pode ser|podem ser|deve ser|acho que|acredito que", WEAK,
     "parece|pode ser|podem ser|deve ser|acho que|acredito que", ""),
    (r"não (?:tenho )?(?:certeza|sei)|não está claro|incerto", STRONG, "certeza|não sei|claro|incerto", "", KNOWING),
    (r"suponho|suspeito", STRONG, "suponho|suspeito", ""),
    (r"(?:preciso|precisamos|vou) (?:verificar|confirmar|checar)|verificar se", STRONG, "verificar|confirmar|checar",
     ""),
))  # fmt: skip

CHINESE: Final = [
    *_literals("zh", WEAK, "可能 也许 也許 或许 或許 大概 估计 估計 似乎 好像 看起来 看起來 看来 看來 貌似 疑似 未必 "
               "不一定 恐怕 我认为 我認為 我觉得 我覺得", ""),
    *_literals("zh", WEAK, "应该是 應該是 应该 應該", "应该/應該 is 'should' as often as 'presumably'"),
    *_literals("zh", WEAK, "需要检查 需要檢查 检查是否 檢查是否 确认是否 確認是否 "
               "看看是否 查看是否 是不是", "a check as often"),
    *_literals("zh", STRONG, "我猜 猜测 猜測 推测 推測 怀疑 懷疑 无法确认 無法確認 无法确定 "
               "無法確定 需要确认 需要確認 需要验证 需要驗證 需要查证 需要查證 待确认 待確認 "
               "据我所知 據我所知 印象中 没有足够信息 沒有足夠資訊"),
    *_literals("zh", STRONG, "不确定 不確定 不太确定 不太確定 不清楚 不太清楚 不知道 不晓得 不曉得", knowing=True),
]  # fmt: skip

JAPANESE: Final = [
    *_literals("ja", WEAK, "かもしれ かも知れ と思い と思う と思われ はずです はずだ らしい "
               "ようです ようだ みたい おそらく 恐らく たぶん 多分 だろう でしょう 気がする 気がします "
               "と考えられ 推測 可能性"),
    *_literals("ja", STRONG, "確認が必要 確認する必要 確認しないと 要確認 未確認 定かでは はっきりしない 不確か"),
    *_literals("ja", STRONG, "わかりません 分かりません わからない 分からない 不明 知りません "
               "確かではない 把握できていません 把握していません", knowing=True),
]  # fmt: skip

KOREAN: Final = [
    *_literals("ko", WEAK, "것 같|거 같|것같|거같|듯합니다|듯하다|듯해|듯 합니다|아마도|가능성이|"
               "가능성도|추정|것으로 보입니다|수도 있|보입니다|보인다|예상됩니다"),
    *_rows("ko", ((r"아마(?![가-힣])", WEAK, "아마", "아마 as a word (not 아마존)"),
                  (r"(?:일|있을|했을|됐을|되었을|않을|없을|인) 수(?:도)? 있", WEAK, " 수", "might be"),)),
    *_literals("ko", STRONG, "확인이 필요|확인 필요|확인해야|확인해 봐야|확인해봐야|검증이 필요|추측"),
    *_literals("ko", STRONG, "모르겠|모릅니다|잘 모르|확실하지 않|확실치 않|불확실|불분명", knowing=True),
]  # fmt: skip

TABLE: Final[tuple[CueRow, ...]] = (*ENGLISH, *GERMAN, *PORTUGUESE, *CHINESE, *JAPANESE, *KOREAN)
LANGUAGES: Final = frozenset(row.lang for row in TABLE)
"""Languages the net has cues for; a sentence in another language is reported, never counted certain."""

THIRD_PERSON: Final = {
    "latin": r"(?:\b(?:the|a|this|that|our|your|their|his|her|der|die|das) )?\b(?:user|users|person|people|he|she|"
    r"they|them|you|customer|customers|client|clients|reviewer|reviewers|team|someone|somebody|nobody|developer|"
    r"developers|maintainer|maintainers|author|owner|caller|reader|readers|benutzer|nutzer|anwender|kunde|kunden|er|"
    r"sie|du|o usuário|os usuários)(?:['’](?:re|s))?"
    r"(?: (?:still|also|may|might|probably|really|just|clearly|themselves|is|are|was|were|does|did|do|doesn['’]t|"
    r"didn['’]t|isn['’]t|aren['’]t|wasn['’]t|ist|sind|bist|sich|auch|noch|é|está|would|will|won['’]t|genuinely|"
    r"simply|may not|might not))*"
    r"(?: not)? ?$",
    "cjk": r"(?:用户|用戶|使用者|他们|他們|她们|她們|(?<![其吉])他|她|你们|你們|你|您|客户|客戶|"
    r"对方|對方|别人|別人|大家|"
    r"ユーザー|ユーザ|彼|彼女|相手|あなた|사용자|사용자가|사용자는|당신은|당신이|고객|그는|그녀는|그들은)[はがも、]?"
    r"(?:自己|本人|可能|也|还|還|并|並|都|根本|完全|其实|其實|似乎|好像|まだ|本当に|아직|정말)*\s*$",
}
"""A subject ending the text before a not-knowing cue that is someone else — a third person, or the
person the agent speaks to (someone else's not-knowing is not the agent's)."""


_LATIN_WORD: Final = re.compile(r"[a-zà-öø-ÿ]+")
_HAN_ALL: Final = re.compile(r"[\u3400-\u9fff]")
_KANA_ALL: Final = re.compile(r"[\u3040-\u30ff]")
_HANGUL_ALL: Final = re.compile(r"[\uac00-\ud7af]")
_SCRIPTS: Final = (
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
)


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


_STOPWORDS: Final = {
    "en": _words("the is are and to of it this that i we be not with for in was have"),
    "de": _words("der die das und ist nicht ich ein eine zu mit es den auf wir sie noch auch"),
    "pt": _words("o os as é não que do da em um uma para com isso está são ao"),
    "fr": _words("le la les est et je pas une des du ce il nous pour dans sont"),
    "es": _words("el la los las es y que no en un una para con está lo del"),
    "it": _words("il lo gli è e che non di un una per con sono della"),
    "nl": _words("de het een en is niet ik van dat zijn op we"),
}


def language_of(text: str) -> str:
    """The language a sentence is written in, from its script and, in Latin script, its commonest
    words (another than English only with two of them, and more than English has): ``en``, ``de``,
    ``pt``, ``fr``… ``zh``, ``ja``, ``ko``; ``und`` without letters. A Chinese, Japanese or Korean
    sentence may hold English identifiers: its script wins when it has at least half as many
    characters of it as English words."""
    words = _LATIN_WORD.findall(text.lower())
    half = len(words) / 2
    for lang, script in (("ko", _HANGUL_ALL), ("ja", _KANA_ALL), ("zh", _HAN_ALL)):
        count = len(script.findall(text))
        if count >= 2 and count >= half:
            return lang
    if not words:
        return next((lang for lang, script in _SCRIPTS if script.search(text)), "und")
    votes = {lang: sum(map(stop.__contains__, words)) for lang, stop in _STOPWORDS.items()}
    other = max((lang for lang in votes if lang != "en"), key=lambda lang: (votes[lang], lang == "de", lang == "pt"))
    return other if votes[other] >= max(2, votes["en"] + 1) else "en"


def has_cues(lang: str) -> bool:
    """The net has cues for this language (a sentence in another is reported, not counted certain)."""
    return lang in LANGUAGES


def uncovered_language(text: str) -> str | None:
    """The language of ``text`` when the net has no cues for it (None when it has, or no letters)."""
    lang = language_of(text)
    return None if lang == "und" or has_cues(lang) else lang
