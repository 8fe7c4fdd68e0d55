"""GraphQL query text for gather/pull.py and gather/pages.py. Every query here is validated against
GitHub's real schema in tests.

One query fetches a PR's metadata, commits, conversation, reviews, review threads, closing issues,
cross-references and the base branch's CODEOWNERS; follow-up queries page whatever did not fit (all
connections of a round in one query, a long thread's comments by the thread's id); a third looks up
issues the text references. Every nested connection is small, because GitHub cuts off a query that runs
over 10 s (502) and answers partial data when one loads too much: review threads come THREADS_PAGE at a
time with their first THREAD_COMMENTS comments, and a thread's `diffHunk` (the costly field: GitHub
computes it per comment) is asked once per thread, on its first comment. The main query's largest terms
are 50 threads x (10 + 1) comments and 10 closing issues x 50 comments: about 2,000 nodes of GitHub's
500,000. CORE_QUERY is the same PR without the discussion, for when the main query fails on a busy PR:
the discussion is then paged from the start.
"""

from __future__ import annotations

from collections.abc import Sequence

from .owners import CODEOWNERS_PATHS

LINKED_ISSUE_COMMENTS = 50  # how many of a linked issue's comments to look at before picking the substantive ones

_ACTOR = "{ __typename login }"
_COMMENT = f"fullDatabaseId author {_ACTOR} body createdAt"
_ISSUE_DETAIL = f"""
  number title url state body
  repository {{ nameWithOwner }}
  labels(first: 20) {{ nodes {{ name }} }}
  comments(first: {LINKED_ISSUE_COMMENTS}) {{ totalCount nodes {{ {_COMMENT} }} }}
"""
_PAGE = "pageInfo { hasNextPage endCursor }"
_COMMITS = f"totalCount {_PAGE} nodes {{ commit {{ oid message author {{ name user {{ login }} }} }} }}"
_COMMENTS = f"totalCount {_PAGE} nodes {{ {_COMMENT} }}"
_REVIEWS = f"totalCount {_PAGE} nodes {{ fullDatabaseId author {_ACTOR} state body submittedAt }}"
THREADS_PAGE = 50
THREAD_COMMENTS = 10  # per thread in a threads page; the rest by THREAD_COMMENTS_QUERY
THREAD_COMMENTS_PAGE = 50
_THREAD_COMMENTS = f"totalCount {_PAGE} nodes {{ author {_ACTOR} body createdAt }}"
_THREADS = (
    f"totalCount {_PAGE} nodes {{ id path line originalLine isResolved isOutdated "
    f"hunk: comments(first: 1) {{ nodes {{ diffHunk }} }} "
    f"comments(first: {THREAD_COMMENTS}) {{ {_THREAD_COMMENTS} }} }}"
)
_SOURCE = (
    "source { __typename "
    "... on Issue { number title issueState: state url repository { nameWithOwner } } "
    "... on PullRequest { number title prState: state url repository { nameWithOwner } } }"
)
_TIMELINE = f"{_PAGE} nodes {{ ... on CrossReferencedEvent {{ {_SOURCE} }} }}"
_CODEOWNERS_ALIASES = ("codeownersGithub", "codeownersRoot", "codeownersDocs")
CODEOWNERS_ALIAS_PATHS = dict(zip(_CODEOWNERS_ALIASES, CODEOWNERS_PATHS, strict=True))
_BASE_FILES = " ".join(
    f'{alias}: file(path: "{path}") {{ object {{ ... on Blob {{ text }} }} }}'
    for alias, path in CODEOWNERS_ALIAS_PATHS.items()
)

_PR_FIELDS = f"""
      number title body url state isDraft locked merged mergedAt createdAt authorAssociation
      author {_ACTOR}
      baseRefName headRefName baseRefOid headRefOid
      additions deletions changedFiles
      labels(first: 50) {{ nodes {{ name }} }}
      baseRef {{ target {{ ... on Commit {{ {_BASE_FILES} }} }} }}
      commits(first: 100) {{ {_COMMITS} }}
      closingIssuesReferences(first: 10) {{ totalCount nodes {{ {_ISSUE_DETAIL} }} }}"""
_DISCUSSION = f"""
      comments(first: 100) {{ {_COMMENTS} }}
      reviews(first: 100) {{ {_REVIEWS} }}
      reviewThreads(first: {THREADS_PAGE}) {{ {_THREADS} }}
      timelineItems(first: 100, itemTypes: [CROSS_REFERENCED_EVENT]) {{ {_TIMELINE} }}"""


def _pull_request_query(name: str, fields: str) -> str:
    return (f"query {name}($owner: String!, $name: String!, $number: Int!) {{\n"
            f"  repository(owner: $owner, name: $name) {{\n    pullRequest(number: $number) {{{fields}\n"
            "    }\n  }\n}\n")


# Without the discussion, but with its sizes (aliases `<field>Total`), so a coverage note can say "N of M".
_DISCUSSION_TOTALS = """
      commentsTotal: comments(first: 1) { totalCount }
      reviewsTotal: reviews(first: 1) { totalCount }
      reviewThreadsTotal: reviewThreads(first: 1) { totalCount }
      timelineItemsTotal: timelineItems(first: 1, itemTypes: [CROSS_REFERENCED_EVENT]) { totalCount }"""
PULL_REQUEST_QUERY = _pull_request_query("ReadworthyPullRequest", _PR_FIELDS + _DISCUSSION)
CORE_QUERY = _pull_request_query("ReadworthyPullRequestCore", _PR_FIELDS + _DISCUSSION_TOTALS)

# Connections that may need more pages, with their node selection and page size. Keys are the field names.
PAGED_CONNECTIONS = {
    "commits": _COMMITS,
    "comments": _COMMENTS,
    "reviews": _REVIEWS,
    "reviewThreads": _THREADS,
    "timelineItems": _TIMELINE,
}
DISCUSSION_CONNECTIONS = ("comments", "reviews", "reviewThreads", "timelineItems")  # not in CORE_QUERY
PAGE_SIZES = {"commits": 100, "comments": 100, "reviews": 100, "reviewThreads": THREADS_PAGE, "timelineItems": 100}


def more_pages_query(sizes: dict[str, int]) -> str:
    """The next page of each connection in `sizes` (field name -> page size), in one query. The cursor of
    each is the variable `$<field>After` (null: the first page)."""
    parts = []
    for fld, size in sizes.items():
        extra = ", itemTypes: [CROSS_REFERENCED_EVENT]" if fld == "timelineItems" else ""
        parts.append(f"{fld}(first: {int(size)}, after: ${fld}After{extra}) {{ {PAGED_CONNECTIONS[fld]} }}")
    params = "".join(f", ${f}After: String" for f in sizes)
    return (
        f"query ReadworthyMore($owner: String!, $name: String!, $number: Int!{params}) {{\n"
        f"  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{\n    "
        + "\n    ".join(parts)
        + "\n  } }\n}\n"
    )


def thread_comments_query(count: int, size: int = THREAD_COMMENTS_PAGE) -> str:
    """The next `size` comments of `count` review threads, by id (`$t0`, `$c0`, ...; aliases t0, t1, ...)."""
    params = ", ".join(f"$t{i}: ID!, $c{i}: String" for i in range(count))
    blocks = " ".join(f"t{i}: node(id: $t{i}) {{ ... on PullRequestReviewThread {{ "
                      f"comments(first: {int(size)}, after: $c{i}) {{ {_THREAD_COMMENTS} }} }} }}"
                      for i in range(count))
    return f"query ReadworthyThreadComments({params}) {{ {blocks} }}\n"


def linked_items_query(repos: Sequence[tuple[str, list[tuple[int, bool]]]]) -> str:
    """Look up issues/PRs by number, grouped by repository (aliases r0, r1, ...; items n<number>).

    `repos` is [(owner/name, [(number, detailed), ...])]: detailed items (closing references) get
    body, labels and comments; the others (mentions) only title and state. Owner and name travel as
    variables ($o0, $n0, ...) because they come from PR text; numbers are ints we parsed ourselves.
    """
    params, blocks = [], []
    for i, (_, items) in enumerate(repos):
        params.append(f"$o{i}: String!, $n{i}: String!")
        fields = []
        for number, detailed in items:
            issue_part = _ISSUE_DETAIL if detailed else "number title url state repository { nameWithOwner }"
            fields.append(
                f"n{number}: issueOrPullRequest(number: {int(number)}) {{ __typename "
                f"... on Issue {{ {issue_part} }} "
                "... on PullRequest { number title url prState: state repository { nameWithOwner } } }"
            )
        blocks.append(f"r{i}: repository(owner: $o{i}, name: $n{i}) {{ " + " ".join(fields) + " }")
    return f"query ReadworthyLinked({', '.join(params)}) {{\n  " + "\n  ".join(blocks) + "\n}\n"


def linked_items_variables(repos: Sequence[tuple[str, list[tuple[int, bool]]]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, (full_name, _) in enumerate(repos):
        owner, _, name = full_name.partition("/")
        out[f"o{i}"], out[f"n{i}"] = owner, name
    return out


VIEWER_QUERY = "query ReadworthyViewer { viewer { login } }"
