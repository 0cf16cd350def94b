"""Text from outside (a page, a search result, a document, a model) as data: what a
terminal, a file or a prompt would take as a command is removed before it is shown.

A title can carry terminal escape sequences: OSC 52 writes the clipboard, OSC 0 the
window's title, OSC 8 makes a link, CSI 2J clears the screen. They are dropped with every
other control character (tabs and newlines stay), wherever such text enters ponder — a
search result — and again wherever it leaves for a terminal. Every pattern here is linear.
"""

from __future__ import annotations

import re

_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clear screen
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window title, clipboard, links
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # any other escape, or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]|\x9d[^\x07\x9c]*[\x07\x9c]?"  # their 8-bit forms (C1)
)
_INTRODUCERS = ("\x1b", "\x9b", "\x9d")
# C0 and C1 controls but tab and newline; DEL.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without escape sequences and control characters (a CR-LF is a newline)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n")
    if any(char in text for char in _INTRODUCERS):
        text = _ESCAPES.sub("", text)
    return _CONTROLS.sub("", text)
