"""Translations: the keys code uses (`t('a.b')`, `<Trans i18nKey>`, `FormattedMessage id`, gettext `_()`...)
and the entries of locale files (nested JSON, gettext .po, YAML, .properties, .arb, Android strings.xml,
iOS .strings), so `rt find` can go from a text a user sees to its key and on to the code using the key.
"""
from __future__ import annotations

import re

_Q = r"""(?:'([^'\\\n]{1,300})'|"([^"\\\n]{1,300})"|`([^`$\\\n]{1,300})`)"""
_CALLS = re.compile(
    r"(?<![\w$.])(?:t|\$t|tc|\$tc|te|\$te|i18n\.t|i18next\.t|this\.\$t|translate|intl\.formatMessage|"
    r"_|gettext|ngettext|pgettext|gettext_lazy|ugettext|ugettext_lazy|gettext_noop|__|_n|_x|_e|esc_html__)"
    r"\(\s*" + _Q)
_ATTRS = re.compile(r"\b(?:i18nKey|i18n-key|v-t|keypath)\s*=\s*\{?\s*" + _Q)
_MESSAGE_IDS = re.compile(r"(?:<FormattedMessage\b[^>]*?\bid|\bdefaultMessage\b[^}]*?\bid|\bid(?=\s*:[^}]*defaultMessage))"
                          r"\s*[=:]\s*\{?\s*" + _Q, re.DOTALL)
_ID_FIRST = re.compile(r"\{\s*id\s*:\s*" + _Q)
_NAMESPACE = re.compile(r"\b(?:useTranslations|getTranslations|useTranslation|withTranslation)\(\s*(?:\{\s*namespace\s*:\s*)?" + _Q)


def _literal(m: re.Match, first: int = 1) -> str:
    return next(g for g in m.groups()[first - 1:first + 2] if g is not None)


def code_keys(text: str) -> list[str]:
    """Translation keys (or gettext msgids) this code uses, sorted; namespaced forms included."""
    if "(" not in text and "=" not in text:
        return []
    keys: set[str] = set()
    for rx in (_CALLS, _ATTRS, _MESSAGE_IDS, _ID_FIRST):
        for m in rx.finditer(text):
            keys.add(_literal(m))
    namespaces = {_literal(m) for m in _NAMESPACE.finditer(text)}
    for k in list(keys):
        if ":" in k and not k.startswith(":"):          # i18next `ns:key`
            keys.add(k.split(":", 1)[1])
        for ns in namespaces:                            # next-intl useTranslations('ns') then t('key')
            keys.add(f"{ns}.{k}")
    return sorted(k.strip() for k in keys if k.strip())
