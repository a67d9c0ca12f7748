"""Judging one adapter response against one vector's expectation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairvec.jsonio import first_difference, same_json, same_json_each, same_json_list
from fairvec.runner.results import Result, Work

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import Vector

SHOWN_REASON = 200  # characters of an unsupported answer's reason kept in the report
# characters of an error's code and message kept in the report: a code is a short word, and
# an adapter that sent 100 KB ones made a 50 MB report of 187 vectors
SHOWN_ERROR = 200


def shown_text(text: str, limit: int = SHOWN_ERROR) -> str:
    """``text``, or its first ``limit`` characters and how many there were."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"
_NO_OUTPUT = object()  # where an error is expected: equal to no output


def judge(
    vector: Vector, algorithm: str, output_schema: dict[str, Any], response: dict[str, Any]
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
        if "error" in expected and expected["error"] == code:
            return Result(vector, algorithm, "pass", got={"error": code})
        code = shown_text(code)  # (what is reported of a wrong one: its start)
        got = {"error": code}
        message = shown_text(response["error"].get("message", ""))
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


def judge_outputs(works: list[Work], outputs: list[Any]) -> list[Result | None] | None:
    """Each work judged against the output its adapter sent, all at once, where C settles
    it: the works whose output is the expected one, as the same JSON text, pass; the others
    are None, left to judge (a difference, an error expected, 1.0 sent as 1). None when
    none could be settled so (orjson missing, or an item it cannot write). Same verdicts as
    judge, a fraction of the cost: equal lists and equal sorted orjson texts mean equal
    items (see same_json)."""
    expected = [work.vector["expected"].get("output", _NO_OUTPUT) for work in works]
    if same_json_list(expected, outputs):  # the usual batch: one comparison
        return [_passed(work, output) for work, output in zip(works, outputs, strict=True)]
    settled = same_json_each(expected, outputs)
    if settled is None:
        return None
    return [
        _passed(work, output) if same else None
        for work, output, same in zip(works, outputs, settled, strict=True)
    ]


def _passed(work: Work, output: Any) -> Result:
    return Result(work.vector, work.algorithm, "pass", got={"output": output})


def _describe(expected: Any, output: Any, output_schema: dict[str, Any]) -> str:
    where = first_difference(expected, output) or "(whole output)"
    message = f"output differs at {where}"
    import jsonschema  # start-up: 35 ms of `fairvec run`; only a failure needs it

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(output_schema).iter_errors(output)
    )
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message += f"; the output breaks the output schema at {at}: {error.message}"
    return message
