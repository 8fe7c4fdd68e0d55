"""GraphQL query text for gather/pull.py. Every query here is validated against GitHub's real schema in tests.

One query fetches a PR's metadata, commits, conversation, reviews, review threads, closing issues,
cross-references and the base branch's CODEOWNERS; a follow-up query pages whatever did not fit; a
third looks up issues the text references. Node budget (GitHub's limit is 500,000 per query): the
largest term is 100 threads x 100 comments = 10,000.
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
_THREADS = (
    f"totalCount {_PAGE} nodes {{ path line originalLine isResolved isOutdated "
    f"comments(first: 100) {{ totalCount nodes {{ author {_ACTOR} body createdAt diffHunk }} }} }}"
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

PULL_REQUEST_QUERY = f"""
query ReadworthyPullRequest($owner: String!, $name: String!, $number: Int!) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      number title body url state isDraft locked merged mergedAt createdAt authorAssociation
      author {_ACTOR}
      baseRefName headRefName baseRefOid headRefOid
      additions deletions changedFiles
      labels(first: 50) {{ nodes {{ name }} }}
      baseRef {{ target {{ ... on Commit {{ {_BASE_FILES} }} }} }}
      commits(first: 100) {{ {_COMMITS} }}
      comments(first: 100) {{ {_COMMENTS} }}
      reviews(first: 100) {{ {_REVIEWS} }}
      reviewThreads(first: 100) {{ {_THREADS} }}
      closingIssuesReferences(first: 10) {{ totalCount nodes {{ {_ISSUE_DETAIL} }} }}
      timelineItems(first: 100, itemTypes: [CROSS_REFERENCED_EVENT]) {{ {_TIMELINE} }}
    }}
  }}
}}
"""

# Connections that may need more pages, with their node selection. Keys are the field names.
PAGED_CONNECTIONS = {
    "commits": _COMMITS,
    "comments": _COMMENTS,
    "reviews": _REVIEWS,
    "reviewThreads": _THREADS,
    "timelineItems": _TIMELINE,
}


def more_pages_query(cursors: dict[str, str]) -> str:
    """The next page of each connection in `cursors` (field name -> endCursor), in one query."""
    parts = []
    for fld, cursor_var in ((f, f"{f}After") for f in cursors):
        extra = ", itemTypes: [CROSS_REFERENCED_EVENT]" if fld == "timelineItems" else ""
        parts.append(f"{fld}(first: 100, after: ${cursor_var}{extra}) {{ {PAGED_CONNECTIONS[fld]} }}")
    params = "".join(f", ${f}After: String!" for f in cursors)
    return (
        f"query ReadworthyMore($owner: String!, $name: String!, $number: Int!{params}) {{\n"
        f"  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{\n    "
        + "\n    ".join(parts)
        + "\n  } }\n}\n"
    )


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
