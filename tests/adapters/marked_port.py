"""A port of a strict language: it asks for lone surrogates in the marked encoding
(docs/adapter-protocol.md, "Lone surrogates in strict languages") and answers with the
reference.

Usage: marked_port.py ALGORITHM [ALGORITHM ...] [--surrogates-only]

It decodes every string that begins with U+FFFF, as the protocol says. With
--surrogates-only it is the port of issue 33's gap 4: it decodes a marked string only
when the code units hold a lone surrogate (and answers not-unicode-text), and computes
with every other marked string as it travelled (U+FFFF and the hex), so a string holding
U+0000 or beginning with U+FFFF gets a wrong answer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MARK = "\uffff"


def unmarked(text: str, surrogates_only: bool) -> str | None:
    """The string a marked one stands for; None where it holds a lone surrogate."""
    if not text.startswith(MARK):
        return text
    decoded = bytes.fromhex(text[1:]).decode("utf-16-be", "surrogatepass")
    try:
        decoded.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return text if surrogates_only else decoded


def read(value: Any, surrogates_only: bool) -> Any:
    """The input with every marked string decoded; raises LookupError at a lone surrogate."""
    if isinstance(value, str):
        text = unmarked(value, surrogates_only)
        if text is None:
            raise LookupError
        return text
    if isinstance(value, list):
        return [read(item, surrogates_only) for item in value]
    if isinstance(value, dict):
        return {read(k, surrogates_only): read(v, surrogates_only) for k, v in value.items()}
    return value


def answer(request: dict[str, Any], surrogates_only: bool) -> dict[str, Any]:
    from fairvec.reference import InvalidInput, compute

    try:
        given = read(request["input"], surrogates_only)
    except LookupError:
        return {"id": request["id"], "error": {"code": "not-unicode-text"}}
    try:
        output = compute(request["algorithm"], given, request["variant"])
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code}}
    return {"id": request["id"], "output": output}


def main(arguments: list[str]) -> None:
    from fairvec.reference import registry

    surrogates_only = "--surrogates-only" in arguments
    names = [word for word in arguments if not word.startswith("--")]
    algorithms = {name: list(registry()[name].variants) for name in names}
    hello = {
        "type": "hello", "protocol": 1, "name": "marked-port",
        "version": "surrogates-only" if surrogates_only else "1",
        "algorithms": algorithms, "lone_surrogates": "marked",
    }  # fmt: skip
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps(answer(request, surrogates_only)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
