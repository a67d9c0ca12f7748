"""Judging one adapter response against one vector's expectation."""

from __future__ import annotations

from typing import Any

import jsonschema

from fairvec.jsonio import first_difference, same_json
from fairvec.runner.results import Result

SHOWN_REASON = 200  # characters of an unsupported answer's reason kept in the report


def judge(
    vector: dict[str, Any], algorithm: str, output_schema: dict[str, Any], response: dict[str, Any]
) -> Result:
    expected = vector["expected"]
    if response.get("unsupported"):
        reason = response.get("reason")
        message = "the adapter answered unsupported"
        if reason:
            message += f": {reason[:SHOWN_REASON]}"
        return Result(vector, algorithm, "skip", message, answered_unsupported=True)
    if "error" in response:
        code = response["error"]["code"]
        got = {"error": code}
        if "error" in expected and expected["error"] == code:
            return Result(vector, algorithm, "pass", got=got)
        message = response["error"].get("message", "")
        wanted = f"error {expected['error']!r}" if "error" in expected else "an output"
        detail = f" ({message})" if message else ""
        return Result(
            vector, algorithm, "fail", f"expected {wanted}, got error {code!r}{detail}", got=got
        )
    output = response["output"]
    got = {"output": output}
    if "error" in expected:
        return Result(
            vector,
            algorithm,
            "fail",
            f"expected error {expected['error']!r}, got an output",
            got=got,
        )
    if same_json(expected["output"], output):
        return Result(vector, algorithm, "pass", got=got)
    return Result(
        vector, algorithm, "fail", _describe(expected["output"], output, output_schema), got=got
    )


def _describe(expected: Any, output: Any, output_schema: dict[str, Any]) -> str:
    where = first_difference(expected, output) or "(whole output)"
    message = f"output differs at {where}"
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(output_schema).iter_errors(output)
    )
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message += f"; the output breaks the output schema at {at}: {error.message}"
    return message
