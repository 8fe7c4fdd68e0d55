"""The only GitHub writer: the sticky comment, verdict labels, reactions, the digest's issue or
discussion — and the job summary, the run's other written record.

One comment per PR, found by our hidden marker *and* our own login: a comment from anyone
else that contains the marker text is never touched. Writes are idempotent instead of
retried blindly: PyGithub's retries include POSTs, and a create whose answer was lost
would otherwise leave two comments. After every create we list again, keep the oldest of
our comments and delete our own newer duplicates, so two concurrent runs converge on one.
A refusal (locked conversation, archived repository, read-only token) is a `CommentBlocked`
that says exactly why and how to fix it; the caller then puts the digest in the job summary.
Every PyGithub failure is mapped once, by `github_api.github_errors(..., writing=True)`.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from typing import Any

import github
from github.Issue import Issue
from github.Repository import Repository

from .config import Settings
from .errors import CommentBlocked, GitHubError, GitHubNotFound, PublishError
from .gather.github_api import GitHub, github_errors, graphql, graphql_reader
from .gather.memory import MEMORY_LABEL, MEMORY_TITLE, MemoryIssue, TasteMemory, index_ids, with_index
from .gather.rest import GitHubComment, find_own_comments
from .memory.record import format_record
from .models import Correction, Verdict
from .render.state import MARKER, has_marker

log = logging.getLogger(__name__)

COMMENT_LIMIT = 65_536
VERDICT_LABEL_PREFIX = "readworthy:"
VERDICT_LABEL_COLORS = {Verdict.DEEP_READ: "5319e7", Verdict.SKIM: "0e8a16", Verdict.SKIP: "c5def5"}
# After a create whose answer was lost, how long to look for the comment before creating it again:
# the request may still be landing on GitHub's side.
LOST_CREATE_GRACE_S = 3.0
LOST_CREATE_POLL_S = 0.5
TRIM_NOTE = "\n\n_Trimmed: this comment exceeded GitHub's 65,536-character limit; the end was cut._\n"


@dataclass(frozen=True)
class CommentRef:
    id: int
    url: str
    action: str  # "created" | "edited" | "unchanged"
    duplicates_removed: int = 0


def _lazy_repo(gh: GitHub, repo: str) -> Repository:
    """The repository without a GET: objects made from it are fetched only when a field is read."""
    return gh.withLazy(True).get_repo(repo)


# --------------------------------------------------------------------------- the sticky comment


def fit_comment(body: str, limit: int = COMMENT_LIMIT) -> str:
    """`body` cut to GitHub's limit as a last resort, keeping the state line and closing <details>.

    render.render_comment already drops the least important parts first; this only
    guards against a body that is still too long.
    """
    if len(body) <= limit:
        return body
    first, _, rest = body.partition("\n")
    head = first + "\n" if first.startswith(MARKER) and len(first) < limit // 2 else ""
    if not head:
        rest = body
    room = limit - len(head) - len(TRIM_NOTE) - len("\n</details>\n") - 1
    cut = rest[:room]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    if cut.count("<details>") > cut.count("</details>"):
        cut += "\n</details>"
    return head + cut + TRIM_NOTE


def _delete_duplicates(keep: GitHubComment, ours: list[GitHubComment]) -> int:
    removed = 0
    for extra in ours:
        if extra.id == keep.id:
            continue
        try:
            with github_errors(f"remove duplicate comment {extra.id}", writing=True):
                extra.delete()
            removed += 1
        except CommentBlocked as exc:
            if exc.reason != "not-found":  # not found: the other run already removed it
                log.warning("could not remove duplicate comment %s: %s", extra.id, exc)
        except PublishError as exc:
            log.warning("could not remove duplicate comment %s: %s", extra.id, exc)
    return removed


def _edit(comment: GitHubComment, body: str) -> CommentRef:
    if (comment.body or "") == body:
        return CommentRef(comment.id, comment.html_url, "unchanged")
    with github_errors("edit the readworthy comment", writing=True):
        comment.edit(body)
    return CommentRef(comment.id, comment.html_url, "edited")


class _Unknown:
    pass


UNKNOWN = _Unknown()


def upsert_comment(
    gh: GitHub,
    repo: str,
    number: int,
    body: str,
    own_login: str,
    existing: GitHubComment | None | _Unknown = UNKNOWN,
) -> CommentRef:
    """Create or edit our one comment on PR `number`. Raises PublishError (CommentBlocked) on refusal.

    `existing`: our comment as the caller just found it (None: none), to save listing again;
    a concurrent run's duplicate is still removed by the re-check after any create.
    """
    if not body.strip() or not has_marker(body):
        # An empty or state-less body would orphan or blank the existing comment: refuse, keep what is there.
        raise PublishError("refusing to publish a comment without readworthy's hidden state (a bug)")
    body = fit_comment(body)
    ours = find_own_comments(gh, repo, number, own_login) if isinstance(existing, _Unknown) \
        else [c for c in [existing] if c]
    if ours:
        try:
            ref = _edit(ours[0], body)
        except CommentBlocked as exc:
            if exc.reason != "not-found":
                raise
            # Deleted since it was listed: fall through and create a new one.
        else:
            removed = _delete_duplicates(ours[0], ours)
            return CommentRef(ref.id, ref.url, ref.action, removed)
    with github_errors(f"read {repo}#{number}", writing=True):
        issue = _lazy_repo(gh, repo).get_issue(number)
    return _create(gh, repo, issue, body, own_login)


def _wait_for_own_comment(gh: GitHub, repo: str, number: int, own_login: str) -> list[GitHubComment]:
    """Our comments, polled for a few seconds: a timed-out create can appear after the timeout."""
    deadline = time.monotonic() + LOST_CREATE_GRACE_S
    while True:
        ours = find_own_comments(gh, repo, number, own_login)
        if ours or time.monotonic() >= deadline:
            return ours
        time.sleep(LOST_CREATE_POLL_S)


def _create(gh: GitHub, repo: str, issue: Issue, body: str, own_login: str) -> CommentRef:
    number = issue.number
    created: GitHubComment | None = None
    try:
        with github_errors("create the readworthy comment", writing=True):
            created = issue.create_comment(body)
    except PublishError as exc:
        if not exc.transient:
            raise
        # A 5xx or a lost answer: the POST may have landed all the same. Look before trying once more.
        failure: Exception = exc
        ours = _wait_for_own_comment(gh, repo, number, own_login)
        if not ours:
            try:
                with github_errors("create the readworthy comment", writing=True):
                    created = issue.create_comment(body)
            except PublishError as again:
                raise again from failure
    # Re-check: a concurrent run may have created its own comment meanwhile. The oldest wins.
    ours = find_own_comments(gh, repo, number, own_login)
    if not ours:
        if created is None or not isinstance(created.id, int):  # no comment in GitHub's answer (a proxy page?)
            raise PublishError("the readworthy comment was neither created nor found; re-run the job")
        return CommentRef(created.id, created.html_url, "created")
    keep = ours[0]
    removed = _delete_duplicates(keep, ours)
    if created is not None and keep.id == created.id:
        return CommentRef(keep.id, keep.html_url, "created", removed)
    ref = _edit(keep, body)
    # Found after a lost answer with our body already in it: this run's create landed after all.
    action = "created" if created is None and ref.action == "unchanged" else ref.action
    return CommentRef(ref.id, ref.url, action, removed)


# --------------------------------------------------------------------------- labels and reactions


def verdict_label(verdict: Verdict) -> str:
    return VERDICT_LABEL_PREFIX + verdict.value


def set_verdict_label(gh: GitHub, repo: str, number: int, verdict: Verdict, current: list[str]) -> None:
    """Put `readworthy:<verdict>` on the PR (creating the label if missing) and remove a stale one.

    `current` is what gather saw; the labels are read again right before the single write
    (PUT of the whole list), so a label someone added meanwhile is kept.
    """
    wanted = verdict_label(verdict)
    if wanted in current and not any(n.startswith(VERDICT_LABEL_PREFIX) and n != wanted for n in current):
        return
    gh_repo = _lazy_repo(gh, repo)
    try:
        with github_errors(f"read the label {wanted}"):
            gh_repo.get_label(wanted)
    except GitHubNotFound:
        with github_errors(f"create the label {wanted}", writing=True):
            gh_repo.create_label(wanted, VERDICT_LABEL_COLORS[verdict], "readworthy's reading verdict")
    except GitHubError as exc:
        raise PublishError(f"cannot set the label {wanted}: {exc}") from None
    with github_errors(f"set the label {wanted}", writing=True):
        issue = gh_repo.get_issue(number)
        names = [label.name for label in issue.labels]
        keep = [n for n in names if not n.startswith(VERDICT_LABEL_PREFIX)]
        if sorted([*keep, wanted]) != sorted(names):
            issue.set_labels(*keep, wanted)


def remove_label(gh: GitHub, repo: str, number: int, name: str) -> bool:
    """Remove `name` from the PR (the trigger label, so it can be applied again). False if absent."""
    try:
        with github_errors(f"remove the label {name}", writing=True):
            _lazy_repo(gh, repo).get_issue(number).remove_from_labels(name)
    except CommentBlocked as exc:
        if exc.reason == "not-found":
            return False
        raise
    return True


def react(gh: GitHub, repo: str, number: int, comment_id: int, content: str = "eyes") -> None:
    """Acknowledge a /readworthy command with a reaction on the comment."""
    with github_errors("react to the command comment", writing=True):
        _lazy_repo(gh, repo).get_issue(number).get_comment(comment_id).create_reaction(content)


# --------------------------------------------------------------------------- git refs (the model budget)

REFS_PERMISSION = "contents: write"
OUR_REFS = "refs/readworthy/"  # the only refs readworthy ever writes: never a branch, a tag or a commit


def _our_ref(name: str) -> str:
    if not name.startswith(OUR_REFS) or ".." in name:
        raise ValueError(f"readworthy writes git refs under {OUR_REFS} only, not {name!r}")
    return name


def create_ref(gh: GitHub, repo: str, name: str, sha: str) -> bool:
    """Create the git ref `name` (refs/...) at `sha`: True when this call created it, False when it already
    existed. GitHub creates a ref atomically, so of two runs creating one name exactly one gets True.
    A POST is never retried blindly (github_api.BoundedRetry): a lost answer surfaces as a PublishError."""
    with github_errors(f"create the git ref {name}", writing=True, permission=REFS_PERMISSION):
        try:
            _lazy_repo(gh, repo).create_git_ref(_our_ref(name), sha)
        except github.GithubException as exc:
            if exc.status == 422 and "already exists" in str(exc.data).lower():
                return False
            raise
    return True


def delete_ref(gh: GitHub, repo: str, name: str) -> bool:
    """Delete the git ref `name` (refs/...); False when it was already gone."""
    with github_errors(f"delete the git ref {name}", writing=True, permission=REFS_PERMISSION):
        try:
            gh.requester.requestJsonAndCheck("DELETE", f"/repos/{repo}/git/{_our_ref(name)}")
        except github.GithubException as exc:
            if exc.status in (404, 422):
                return False
            raise
    return True


# --------------------------------------------------------------------------- the taste memory

MEMORY_LABEL_COLOR = "fbca04"
MEMORY_ISSUE_BODY = """This issue is readworthy's memory of this team's reading taste.

Each comment below is one verdict a maintainer gave with `/readworthy verdict deep-read|skim|skip [reason]`
on a pull request. readworthy reads these comments (one request per run) and uses the corrections most
like a new pull request as examples for the model and as evidence for its heuristic.

- **Delete a comment** to forget that correction; **edit its JSON** to amend it (only edits by people
  with write access count).
- Comments by people without write access, and anything that is not a well-formed record, are ignored.
- Close this issue to start over: the next correction opens a new one. If it is locked, readworthy keeps
  reading it and writes new corrections to a new one.
- The hidden index at the end lists readworthy's records, so that other comments cannot push them out of
  sight; leave it be.
"""


def keep_correction(gh: GitHub, repo: str, memory: TasteMemory, correction: Correction, own_login: str,
                    language: str = "en") -> str:
    """Record `correction` in the taste memory and return the comment's URL: our earlier record of the same
    PR is edited (one record per PR), otherwise a comment is added to the memory issue, which is opened
    (labelled MEMORY_LABEL) by the first correction, and listed in that issue's index. A locked memory issue
    (GitHub refuses comments there) is left as it is, still read: the record goes to a new memory issue, and
    a notice says so. Raises PublishError when GitHub refuses otherwise."""
    body = format_record(correction, language)
    mine = memory.record_for(correction.pr, own_login) if own_login else None
    if mine is not None and mine.comment_id and mine.issue not in memory.locked_issues:
        try:
            with github_errors("update the correction in the taste memory", writing=True,
                               permission="issues: write"):
                _, data = gh.requester.requestJsonAndCheck(
                    "PATCH", f"/repos/{repo}/issues/comments/{mine.comment_id}", input={"body": body})
            return str((data or {}).get("html_url") or mine.url)
        except CommentBlocked as exc:
            if exc.reason not in ("not-found", "locked"):
                raise
            # Deleted since it was read: the team forgot it, and this verdict is a new record. Locked: a new
            # record where GitHub still takes comments; the newer one counts.
    for attempt in range(2):
        number = memory.issue_number or _open_memory_issue(gh, repo, memory)
        memory.issue_number = number
        try:
            with github_errors("add the correction to the taste memory", writing=True, permission="issues: write"):
                _, data = gh.requester.requestJsonAndCheck("POST", f"/repos/{repo}/issues/{number}/comments",
                                                           input={"body": body})
        except CommentBlocked as exc:
            if exc.reason != "locked" or attempt:
                raise
            memory.issues = [i for i in memory.issues if i.number != number]
            memory.issues.append(MemoryIssue(number, True))
            memory.issue_number = None  # locked since it was read: the next round opens a new one
            continue
        _index_record(gh, repo, number, str((data or {}).get("node_id") or ""), memory)
        return str((data or {}).get("html_url") or "")
    raise PublishError("the taste memory issue could not take the correction; re-run the job")  # not reached


def _index_record(gh: GitHub, repo: str, number: int, node_id: str, memory: TasteMemory) -> None:
    """Add the record to the issue body's index (read again just before: another run may have added one),
    with the records this run read there (a memory from before the index gets one on its next correction).
    Failing here loses nothing yet: the record is read while it is among the issue's newest comments."""
    if not node_id:
        return
    known = [r.node_id for r in memory.records if r.issue == number and r.node_id]
    try:
        with github_errors(f"read the taste-memory issue #{number}"):
            _, issue = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo}/issues/{number}")
        text = str((issue or {}).get("body") or "")
        with github_errors("update the taste memory's index", writing=True, permission="issues: write"):
            gh.requester.requestJsonAndCheck("PATCH", f"/repos/{repo}/issues/{number}",
                                             input={"body": with_index(text, [*index_ids(text), *known, node_id])})
    except (GitHubError, PublishError) as exc:
        log.warning("taste memory #%d: the record was kept but not indexed: %s", number, exc)
        memory.notices.append(f"the correction was kept in the taste memory (#{number}) but not added to its index "
                              f"({exc}); it counts while it is among the issue's newest comments")


def _open_memory_issue(gh: GitHub, repo: str, memory: TasteMemory) -> int:
    """The memory issue, labelled. The label is made first when missing: the memory is found by it, and an
    issue opened without it would be lost to the next run (which would open another). When the memory
    issues there are locked, the new one says it continues them, and a notice says so."""
    try:
        with github_errors(f"read the label {MEMORY_LABEL}"):
            gh.requester.requestJsonAndCheck("GET", f"/repos/{repo}/labels/{MEMORY_LABEL}")
    except GitHubNotFound:
        with github_errors(f"create the label {MEMORY_LABEL}", writing=True, permission="issues: write"):
            gh.requester.requestJsonAndCheck("POST", f"/repos/{repo}/labels", input={
                "name": MEMORY_LABEL, "color": MEMORY_LABEL_COLOR,
                "description": "readworthy's memory of the team's reading taste"})
    except GitHubError as exc:
        raise PublishError(f"cannot open the taste memory: {exc}") from None
    locked = memory.locked_issues
    body = MEMORY_ISSUE_BODY + (f"\nIt continues {', '.join(f'#{n}' for n in locked)} (locked), which readworthy "
                                "still reads.\n" if locked else "")
    with github_errors("open the taste-memory issue", writing=True, permission="issues: write"):
        _, data = gh.requester.requestJsonAndCheck("POST", f"/repos/{repo}/issues", input={
            "title": MEMORY_TITLE, "body": with_index(body, []), "labels": [MEMORY_LABEL]})
    number = (data or {}).get("number")
    if not isinstance(number, int):
        raise PublishError("GitHub's answer to opening the taste-memory issue has no issue number; re-run the job")
    if locked:
        memory.notices.append(f"the taste memory issue {', '.join(f'#{n}' for n in locked)} is locked (GitHub refuses "
                              f"new comments there): its corrections still count, and new ones are kept in #{number}")
    memory.issues.append(MemoryIssue(number, False))
    return number


# --------------------------------------------------------------------------- the digest's issue or discussion


CATEGORIES_QUERY = """
query($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    id
    hasDiscussionsEnabled
    discussionCategories(first: 100) { nodes { id name slug } }
  }
}
"""

CREATE_DISCUSSION = """
mutation($repositoryId: ID!, $categoryId: ID!, $title: String!, $body: String!) {
  createDiscussion(input: {repositoryId: $repositoryId, categoryId: $categoryId, title: $title, body: $body}) {
    discussion { id number url }
  }
}
"""


def create_issue(gh: GitHub, repo: str, title: str, body: str, label: str) -> str:
    """A new issue; its URL."""
    with github_errors("open the digest issue", writing=True, permission="issues: write"):
        issue = _lazy_repo(gh, repo).create_issue(title=title, body=body, labels=[label] if label else [])
        return str(issue.html_url)


def edit_issue(gh: GitHub, repo: str, number: int, title: str, body: str) -> str:
    """Replace an issue's title and body; its URL."""
    with github_errors(f"update the rolling digest issue #{number}", writing=True, permission="issues: write"):
        issue = _lazy_repo(gh, repo).get_issue(number)
        issue.edit(title=title, body=body)
        return str(issue.html_url)


def create_discussion(gh: GitHub, settings: Settings, repo: str, title: str, body: str, category: str) -> str:
    """A new Discussion in `category` (matched by name or slug, case-insensitively); its URL."""
    owner, name = repo.split("/", 1)
    data, _ = graphql(graphql_reader(gh), settings, CATEGORIES_QUERY, {"owner": owner, "name": name},
                      f"looking up the discussion categories of {repo}")
    repository: dict[str, Any] = data.get("repository") or {}
    if not repository:
        raise PublishError(f"cannot post the digest as a discussion: {repo} was not found or the token cannot see it")
    nodes = (repository.get("discussionCategories") or {}).get("nodes") or []
    if not repository.get("hasDiscussionsEnabled", True) or not nodes:
        raise PublishError(f"cannot post the digest as a discussion: {repo} has Discussions turned off; enable them "
                           "in the repository settings, or use `--publish rolling-issue`.")
    wanted = category.strip().lower()
    match = next((n for n in nodes if wanted in (str(n.get("name", "")).lower(), str(n.get("slug", "")).lower())),
                 None)
    if match is None:
        names = ", ".join(str(n.get("name")) for n in nodes)
        raise PublishError(f"no discussion category {category!r} in {repo}; choose one of: {names}")
    try:
        data, _ = graphql(gh, settings, CREATE_DISCUSSION,
                          {"repositoryId": repository["id"], "categoryId": match["id"], "title": title, "body": body},
                          "creating the digest discussion")
    except GitHubError as exc:
        raise PublishError(f"{exc} The token needs `discussions: write`.") from None
    discussion = (data.get("createDiscussion") or {}).get("discussion") or {}
    return str(discussion.get("url", ""))


# --------------------------------------------------------------------------- the job summary


JOB_SUMMARY_LIMIT = 1024 * 1024  # bytes per step; beyond it GitHub drops the whole summary upload
SUMMARY_CUT_NOTE = "\n\n_Cut: GitHub keeps at most 1 MiB of job summary per step; the rest is in the log._\n\n"


def write_job_summary(markdown: str, path: str | None) -> bool:
    """Append `markdown` to $GITHUB_STEP_SUMMARY (actions_toolkit has no helper for it). False if unset.

    The file never grows past GitHub's 1 MiB limit: what would not fit is cut with a note, because
    an over-long summary is not shortened by GitHub but thrown away whole."""
    if not path:
        return False
    text = markdown.rstrip("\n") + "\n\n"
    try:
        used = os.path.getsize(path) if os.path.exists(path) else 0
        room = JOB_SUMMARY_LIMIT - used
        data = text.encode("utf-8")
        if len(data) > room:
            note = SUMMARY_CUT_NOTE.encode("utf-8")
            if room <= len(note):
                log.warning("the job summary is full (GitHub's 1 MiB per step); not written: %d bytes", len(data))
                return False
            # cut on a character boundary: decode what fits, dropping a split multi-byte character
            text = data[: room - len(note)].decode("utf-8", "ignore") + SUMMARY_CUT_NOTE
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        log.warning("could not write the job summary to %s: %s", path, exc)
        return False
    return True
