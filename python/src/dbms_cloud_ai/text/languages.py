"""Languages for TRANSLATE: ISO 639-1 codes, English names and native names.

``parse`` accepts a code (``fr``, ``FR``, ``fra``/``fre``), a tag with a
region or script (``pt-BR``, ``zh_Hant``), an English name (``French``) or the
language's own name (``français``, ``francais``: case and accents do not
matter).  Anything else is Oracle's "Invalid language or language code".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..errors import InvalidParameter

# code: (English name, native name, ISO 639-2 codes, other names)
TABLE = {
    "af": ("Afrikaans", "Afrikaans", ("afr",), ()),
    "am": ("Amharic", "አማርኛ", ("amh",), ()),
    "ar": ("Arabic", "العربية", ("ara",), ()),
    "az": ("Azerbaijani", "azərbaycan", ("aze",), ("azeri",)),
    "be": ("Belarusian", "беларуская", ("bel",), ()),
    "bg": ("Bulgarian", "български", ("bul",), ()),
    "bn": ("Bengali", "বাংলা", ("ben",), ("bangla",)),
    "bs": ("Bosnian", "bosanski", ("bos",), ()),
    "ca": ("Catalan", "català", ("cat",), ()),
    "cs": ("Czech", "čeština", ("ces", "cze"), ()),
    "cy": ("Welsh", "Cymraeg", ("cym", "wel"), ()),
    "da": ("Danish", "dansk", ("dan",), ()),
    "de": ("German", "Deutsch", ("deu", "ger"), ()),
    "el": ("Greek", "Ελληνικά", ("ell", "gre"), ()),
    "en": ("English", "English", ("eng",), ()),
    "eo": ("Esperanto", "Esperanto", ("epo",), ()),
    "es": ("Spanish", "español", ("spa",), ("castilian", "castellano")),
    "et": ("Estonian", "eesti", ("est",), ()),
    "eu": ("Basque", "euskara", ("eus", "baq"), ()),
    "fa": ("Persian", "فارسی", ("fas", "per"), ("farsi",)),
    "fi": ("Finnish", "suomi", ("fin",), ()),
    "fr": ("French", "français", ("fra", "fre"), ()),
    "ga": ("Irish", "Gaeilge", ("gle",), ()),
    "gl": ("Galician", "galego", ("glg",), ()),
    "gu": ("Gujarati", "ગુજરાતી", ("guj",), ()),
    "ha": ("Hausa", "Hausa", ("hau",), ()),
    "he": ("Hebrew", "עברית", ("heb", "iw"), ()),
    "hi": ("Hindi", "हिन्दी", ("hin",), ()),
    "hr": ("Croatian", "hrvatski", ("hrv",), ()),
    "ht": ("Haitian Creole", "kreyòl ayisyen", ("hat",), ("haitian",)),
    "hu": ("Hungarian", "magyar", ("hun",), ()),
    "hy": ("Armenian", "Հայերեն", ("hye", "arm"), ()),
    "id": ("Indonesian", "Bahasa Indonesia", ("ind", "in"), ()),
    "is": ("Icelandic", "íslenska", ("isl", "ice"), ()),
    "it": ("Italian", "italiano", ("ita",), ()),
    "ja": ("Japanese", "日本語", ("jpn",), ()),
    "ka": ("Georgian", "ქართული", ("kat", "geo"), ()),
    "kk": ("Kazakh", "қазақ тілі", ("kaz",), ()),
    "km": ("Khmer", "ខ្មែរ", ("khm",), ()),
    "kn": ("Kannada", "ಕನ್ನಡ", ("kan",), ()),
    "ko": ("Korean", "한국어", ("kor",), ()),
    "ku": ("Kurdish", "Kurdî", ("kur",), ()),
    "ky": ("Kyrgyz", "кыргызча", ("kir",), ("kirghiz",)),
    "la": ("Latin", "Latina", ("lat",), ()),
    "lb": ("Luxembourgish", "Lëtzebuergesch", ("ltz",), ()),
    "lo": ("Lao", "ລາວ", ("lao",), ()),
    "lt": ("Lithuanian", "lietuvių", ("lit",), ()),
    "lv": ("Latvian", "latviešu", ("lav",), ()),
    "mi": ("Maori", "te reo Māori", ("mri", "mao"), ()),
    "mk": ("Macedonian", "македонски", ("mkd", "mac"), ()),
    "ml": ("Malayalam", "മലയാളം", ("mal",), ()),
    "mn": ("Mongolian", "монгол", ("mon",), ()),
    "mr": ("Marathi", "मराठी", ("mar",), ()),
    "ms": ("Malay", "Bahasa Melayu", ("msa", "may"), ()),
    "mt": ("Maltese", "Malti", ("mlt",), ()),
    "my": ("Burmese", "မြန်မာ", ("mya", "bur"), ("myanmar",)),
    "nb": ("Norwegian Bokmål", "norsk bokmål", ("nob",), ("bokmal",)),
    "ne": ("Nepali", "नेपाली", ("nep",), ()),
    "nl": ("Dutch", "Nederlands", ("nld", "dut"), ("flemish",)),
    "nn": ("Norwegian Nynorsk", "nynorsk", ("nno",), ()),
    "no": ("Norwegian", "norsk", ("nor",), ()),
    "pa": ("Punjabi", "ਪੰਜਾਬੀ", ("pan",), ("panjabi",)),
    "pl": ("Polish", "polski", ("pol",), ()),
    "ps": ("Pashto", "پښتو", ("pus",), ()),
    "pt": ("Portuguese", "português", ("por",), ()),
    "ro": ("Romanian", "română", ("ron", "rum"), ("moldavian",)),
    "ru": ("Russian", "русский", ("rus",), ()),
    "si": ("Sinhala", "සිංහල", ("sin",), ("sinhalese",)),
    "sk": ("Slovak", "slovenčina", ("slk", "slo"), ()),
    "sl": ("Slovenian", "slovenščina", ("slv",), ("slovene",)),
    "so": ("Somali", "Soomaali", ("som",), ()),
    "sq": ("Albanian", "shqip", ("sqi", "alb"), ()),
    "sr": ("Serbian", "српски", ("srp",), ()),
    "sv": ("Swedish", "svenska", ("swe",), ()),
    "sw": ("Swahili", "Kiswahili", ("swa",), ()),
    "ta": ("Tamil", "தமிழ்", ("tam",), ()),
    "te": ("Telugu", "తెలుగు", ("tel",), ()),
    "tg": ("Tajik", "тоҷикӣ", ("tgk",), ()),
    "th": ("Thai", "ไทย", ("tha",), ()),
    "tl": ("Tagalog", "Tagalog", ("tgl", "fil"), ("filipino",)),
    "tr": ("Turkish", "Türkçe", ("tur",), ()),
    "uk": ("Ukrainian", "українська", ("ukr",), ()),
    "ur": ("Urdu", "اردو", ("urd",), ()),
    "uz": ("Uzbek", "oʻzbek", ("uzb",), ()),
    "vi": ("Vietnamese", "Tiếng Việt", ("vie",), ()),
    "xh": ("Xhosa", "isiXhosa", ("xho",), ()),
    "yi": ("Yiddish", "ייִדיש", ("yid", "ji"), ()),
    "yo": ("Yoruba", "Yorùbá", ("yor",), ()),
    "zh": ("Chinese", "中文", ("zho", "chi"), ("mandarin",)),
    "zu": ("Zulu", "isiZulu", ("zul",), ()),
}

# Names that carry a script or variety with them.
VARIANTS = {
    "simplified chinese": ("zh", "zh-Hans"), "chinese simplified": ("zh", "zh-Hans"),
    "chinese (simplified)": ("zh", "zh-Hans"), "traditional chinese": ("zh", "zh-Hant"),
    "chinese traditional": ("zh", "zh-Hant"), "chinese (traditional)": ("zh", "zh-Hant"),
    "brazilian portuguese": ("pt", "pt-BR"), "portuguese (brazil)": ("pt", "pt-BR"),
    "european portuguese": ("pt", "pt-PT"), "portuguese (portugal)": ("pt", "pt-PT"),
    "british english": ("en", "en-GB"), "american english": ("en", "en-US"),
    "canadian french": ("fr", "fr-CA"), "latin american spanish": ("es", "es-419"),
}

_TAG = re.compile(r"([a-z]{2,3})(?:[-_]([a-z0-9]{2,8}))*\Z", re.I)
_SUBTAG = re.compile(r"[-_]")
AUTO = ("auto", "detect", "auto-detect", "autodetect")


@dataclass(frozen=True)
class Language:
    code: str           # ISO 639-1
    name: str           # English name
    tag: str | None = None  # the BCP 47 tag when a region or script was given

    @property
    def display(self) -> str:
        """What the model is told: 'French', or 'Portuguese (pt-BR)'."""
        return f"{self.name} ({self.tag})" if self.tag else self.name


def _fold(text: str) -> str:
    """Lower case without accents or repeated spaces: 'Français ' -> 'francais'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.split())


def _index() -> dict[str, str]:
    idx = {}
    for code, (english, native, iso2, other) in TABLE.items():
        for key in (code, english, native, *iso2, *other):
            idx.setdefault(_fold(key), code)
    return idx


_BY_KEY = _index()


def invalid(value, what: str, hint: str) -> InvalidParameter:
    shown = value if len(str(value)) <= 60 else str(value)[:57] + "..."
    return InvalidParameter(
        f"Invalid language or language code: {what} {shown!r}",
        detail="Use an ISO 639-1 code (fr), optionally with a region or script (pt-BR, "
               "zh-Hant), an English name (French) or the language's own name (français).",
        hint=hint)


def parse(value, what: str, hint: str) -> Language:
    """The language named by ``value``; ``what`` (source_language or
    target_language) and ``hint`` go into the error."""
    if not isinstance(value, str) or not value.strip():
        raise invalid(value, what, hint)
    key = _fold(value)
    if key in VARIANTS:
        code, tag = VARIANTS[key]
        return Language(code, TABLE[code][0], tag)
    code = _BY_KEY.get(key)
    if code is not None:
        return Language(code, TABLE[code][0])
    m = _TAG.match(value.strip())
    if m:
        primary, *rest = _SUBTAG.split(value.strip())
        code = _BY_KEY.get(primary.lower()) if len(primary) in (2, 3) else None
        if code is not None and rest:
            subtags = [s.upper() if len(s) == 2 else s.title() if len(s) == 4 and s.isalpha()
                       else s for s in rest]
            return Language(code, TABLE[code][0], "-".join([code, *subtags]))
    raise invalid(value, what, hint)


def is_auto(value) -> bool:
    return isinstance(value, str) and _fold(value) in AUTO
