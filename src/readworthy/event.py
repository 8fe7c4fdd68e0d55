"""GitHub event JSON -> what this run should do. No network, no settings beyond the inputs given.

The payload is read defensively: any value may be missing or of the wrong type
(truncated files, hand-made test payloads, future GitHub changes). What we cannot
read is an EventError naming the field; events we do not handle become a skip
with a reason, never an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .config import LANGUAGES
from .errors import ConfigError, EventError

PR_EVENTS = ("pull_request", "pull_request_target")
PR_ACTIONS = ("opened", "reopened", "ready_for_review", "synchronize", "labeled")
MAX_DISPATCH_PRS = 50
COMMAND = "/readworthy"

Kind = Literal["review", "digest", "catch-up", "skip"]
Command = Literal["", "review", "refresh", "lang", "verdict"]
VERDICT_WORDS = ("deep-read", "skim", "skip")
MAX_VERDICT_REASON = 200


@dataclass(frozen=True)
class PullRequestInfo:
    """What the payload already says about the PR: enough to skip early without API calls."""

    number: int
    draft: bool = False
    author: str = ""
    author_is_bot: bool = False
    base_ref: str = ""
    head_sha: str = ""
    labels: tuple[str, ...] = ()
    is_fork: bool = False
    locked: bool = False


@dataclass(frozen=True)
class Event:
    """One run's instructions, derived from the event name, its payload and the action inputs."""

    name: str
    kind: Kind
    action: str = ""
    pr_numbers: tuple[int, ...] = ()
    all_open: bool = False
    force: bool = False
    reason: str = ""  # why the run is skipped (kind == "skip"), for the log and the job summary
    skip_code: str = ""  # short machine form of `reason` for the `skipped-reason` output
    repo: str = ""  # owner/name from the payload, "" when absent
    sender: str = ""
    pr: PullRequestInfo | None = None  # pull_request events only
    before_sha: str = ""
    after_sha: str = ""
    label: str = ""  # the label that was added (labeled)
    command: Command = ""  # issue_comment: which /readworthy command
    language: str | None = None  # /readworthy lang zh-CN
    team_verdict: str = ""  # /readworthy verdict skim too narrow -> "skim"
    verdict_reason: str = ""  # ... -> "too narrow" (the rest of the command's line)
    commenter: str = ""
    comment_id: int | None = None
    notes: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------- reading helpers


def _at(payload: Mapping[str, Any], path: str) -> Any:
    node: Any = payload
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _str(payload: Mapping[str, Any], path: str) -> str:
    value = _at(payload, path)
    return value if isinstance(value, str) else ""


def _bool(payload: Mapping[str, Any], path: str) -> bool:
    return _at(payload, path) is True


def _required_int(payload: Mapping[str, Any], path: str, event: str) -> int:
    value = _at(payload, path)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise EventError(
            f"the {event} event payload has no valid `{path}` (got {type(value).__name__}); "
            "the event file is incomplete — re-run the workflow, or check the payload you passed"
        )
    return value


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("true", "yes", "1", "on")


def parse_pr_numbers(text: str, name: str = "input pr-number", limit: int | None = MAX_DISPATCH_PRS) -> tuple[int, ...]:
    """'12', '12, 13 14', '#12' -> (12, 13, 14). Raises ConfigError naming the bad item and where it was given
    (`name`: the action's input, or the CLI's flag), or when there are more than `limit` (None: no limit)."""
    numbers: list[int] = []
    for item in re.split(r"[\s,]+", text.strip()):
        if not item:
            continue
        digits = item.removeprefix("#")
        if not digits.isascii() or not digits.isdigit() or int(digits) <= 0:
            raise ConfigError(
                f"{name}: {item[:40]!r} is not a pull request number; "
                "give one number or a comma/space separated list such as `12, 15 18`"
            )
        if int(digits) not in numbers:
            numbers.append(int(digits))
    if limit is not None and len(numbers) > limit:
        raise ConfigError(f"{name}: {len(numbers)} PRs given, at most {limit} per run")
    return tuple(numbers)


def _load(payload_text: str) -> dict[str, Any]:
    if not payload_text.strip():
        raise EventError("the event payload (GITHUB_EVENT_PATH) is empty; is the file truncated?")
    try:
        payload = json.loads(payload_text)
    except json.JSONDecodeError as exc:
        raise EventError(
            f"the event payload (GITHUB_EVENT_PATH) is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}; is the file truncated?"
        ) from None
    except RecursionError:
        raise EventError("the event payload (GITHUB_EVENT_PATH) is nested too deeply to read") from None
    if not isinstance(payload, dict):
        raise EventError(f"the event payload must be a JSON object, got {type(payload).__name__}")
    return payload


def _pr_info(payload: Mapping[str, Any], event: str) -> PullRequestInfo:
    number = _required_int(payload, "pull_request.number", event)
    labels = _at(payload, "pull_request.labels")
    names = tuple(
        item["name"] for item in labels or [] if isinstance(item, Mapping) and isinstance(item.get("name"), str)
    ) if isinstance(labels, list) else ()
    head_repo = _str(payload, "pull_request.head.repo.full_name")
    base_repo = _str(payload, "pull_request.base.repo.full_name")
    return PullRequestInfo(
        number=number,
        draft=_bool(payload, "pull_request.draft"),
        author=_str(payload, "pull_request.user.login"),
        author_is_bot=_str(payload, "pull_request.user.type") == "Bot"
        or _str(payload, "pull_request.user.login").endswith("[bot]"),
        base_ref=_str(payload, "pull_request.base.ref"),
        head_sha=_str(payload, "pull_request.head.sha"),
        labels=names,
        is_fork=bool(head_repo and base_repo and head_repo != base_repo),
        locked=_bool(payload, "pull_request.locked"),
    )


# --------------------------------------------------------------------------- per event


def _pull_request(name: str, payload: Mapping[str, Any], inputs: Mapping[str, str], base: dict[str, Any]) -> Event:
    action = _str(payload, "action")
    if not action:
        raise EventError(f"the {name} event payload has no `action`; the event file is incomplete")
    if action not in PR_ACTIONS:
        return Event(**base, kind="skip", action=action, skip_code="unhandled-action",
                     reason=f"{name} action `{action or '?'}` is not one readworthy handles")
    info = _pr_info(payload, name)
    common = dict(base, action=action, pr=info, pr_numbers=(info.number,))
    if action == "labeled":
        label = _str(payload, "label.name")
        trigger = (inputs.get("trigger-label") or "readworthy").strip()
        if label != trigger:
            return Event(**common, kind="skip", label=label, skip_code="other-label",
                         reason=f"label `{label}` is not the trigger label `{trigger}`")
        return Event(**common, kind="review", label=label, force=True)
    if action == "synchronize":
        return Event(**common, kind="review", before_sha=_str(payload, "before"), after_sha=_str(payload, "after"))
    return Event(**common, kind="review")


def _dispatch(payload: Mapping[str, Any], inputs: Mapping[str, str], base: dict[str, Any]) -> Event:
    payload_inputs = _at(payload, "inputs")
    given = dict(payload_inputs) if isinstance(payload_inputs, Mapping) else {}

    def value(name: str) -> str:
        # The action's own input wins; the dispatch form's input is used when the workflow did not pass it on.
        raw = inputs.get(name) or given.get(name) or given.get(name.replace("-", "_")) or ""
        return raw if isinstance(raw, str) else str(raw)

    numbers = parse_pr_numbers(value("pr-number"))
    all_open = _truthy(value("all-open"))
    if not numbers and not all_open:
        return Event(**base, kind="skip", skip_code="nothing-to-do",
                     reason="workflow_dispatch without `pr-number` or `all-open: true`: nothing to do")
    return Event(**base, kind="review", pr_numbers=numbers, all_open=all_open and not numbers,
                 force=_truthy(value("force")))


def _issue_comment(payload: Mapping[str, Any], base: dict[str, Any]) -> Event:
    action = _str(payload, "action")
    if action != "created":
        return Event(**base, kind="skip", action=action, skip_code="not-a-new-comment",
                     reason=f"issue_comment `{action or '?'}` is not a new comment")
    if _at(payload, "issue.pull_request") is None:
        return Event(**base, kind="skip", action=action, skip_code="not-a-pull-request",
                     reason="the comment is on an issue, not a pull request")
    body = _str(payload, "comment.body").strip()
    first = body.splitlines()[0].strip() if body else ""
    words = first.split()
    if not words or words[0] != COMMAND:
        return Event(**base, kind="skip", action=action, skip_code="not-a-command",
                     reason="the comment is not a /readworthy command")
    number = _required_int(payload, "issue.number", "issue_comment")
    commenter = _str(payload, "comment.user.login")
    comment_id = _at(payload, "comment.id")
    common = dict(
        base,
        action=action,
        pr_numbers=(number,),
        commenter=commenter,
        comment_id=comment_id if isinstance(comment_id, int) and not isinstance(comment_id, bool) else None,
    )
    rest = words[1:]
    if not rest:
        return Event(**common, kind="review", command="review")
    if rest[0] == "refresh" and len(rest) == 1:
        return Event(**common, kind="review", command="refresh", force=True)
    if rest[0] == "lang" and len(rest) == 2 and rest[1] in LANGUAGES:
        return Event(**common, kind="review", command="lang", language=rest[1])
    if rest[0] == "verdict" and len(rest) >= 2 and rest[1].lower() in VERDICT_WORDS:
        reason = " ".join(words[3:])[:MAX_VERDICT_REASON]
        return Event(**common, kind="review", command="verdict", team_verdict=rest[1].lower(),
                     verdict_reason=reason)
    usage = ("`/readworthy`, `/readworthy refresh`, `/readworthy lang en|zh-CN` or "
             "`/readworthy verdict deep-read|skim|skip [reason]`")
    return Event(**common, kind="skip", skip_code="unknown-command",
                 reason=f"unknown command {first[:60]!r}; use {usage}")


def parse_event(name: str, payload_text: str, inputs: Mapping[str, str]) -> Event:
    """Decide what to do for event `name` with JSON `payload_text` and the action `inputs` (kebab-case keys)."""
    payload = _load(payload_text)
    base: dict[str, Any] = {
        "name": name,
        "repo": _str(payload, "repository.full_name"),
        "sender": _str(payload, "sender.login"),
    }
    mode = (inputs.get("mode") or "").strip()
    if mode == "catch-up":
        return Event(**base, kind="catch-up")
    if mode == "digest" or name == "schedule":
        return Event(**base, kind="digest")
    if name in PR_EVENTS:
        return _pull_request(name, payload, inputs, base)
    if name == "workflow_dispatch":
        return _dispatch(payload, inputs, base)
    if name == "issue_comment":
        return _issue_comment(payload, base)
    return Event(**base, kind="skip", skip_code="unhandled-event",
                 reason=f"event `{name or '?'}` is not one readworthy handles (nothing to do)")
