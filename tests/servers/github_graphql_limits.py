"""GitHub's execution limits for the test server's GraphQL endpoint: what a query costs to *run*.

The static rules (`first`/`last` on every connection, at most 100, at most 500,000 nodes) are checked
before execution in github_graphql.py. GitHub has two more that depend on the data, and break naive
queries on busy pull requests (GitHub's changelog "GraphQL API resource limits", 2025-09; the GraphQL
rate-limit page's "Timeouts"):

  * **Timeout.** A query GitHub cannot answer within 10 s is cut off at the gateway: HTTP 502 (or 504),
    no GraphQL body. Work is modelled as simulated milliseconds: every connection resolved is a
    database round trip, every object returned costs a little, and a review comment's `diffHunk`
    costs most (GitHub computes it from the diff for each comment). 100 review threads x 3 comments,
    each with its `diffHunk`, runs over; 50 threads with one `diffHunk` each does not.
  * **Resource limits.** A query that loads too many objects in one go gets *partial data*: the field
    that crossed the limit, and every one after it, fails with
    `{"type": "RESOURCE_LIMITS_EXCEEDED", "message": "Resource limits for this query exceeded."}`,
    and GraphQL's null propagation empties the nearest nullable parent (a thread in a list, or the
    whole `pullRequest`).

Both limits are per server (`server.graphql_limits`), so a test can lower them to make one page fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLError

RESOURCE_MESSAGE = "Resource limits for this query exceeded."
TIMEOUT_BODY = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" \
               "<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"


@dataclass
class GraphQLLimits:
    timeout_ms: float = 10_000.0  # GitHub's 10 s
    max_objects: int = 4_000  # objects one query may load before the answer turns partial
    connection_ms: float = 2.0
    object_ms: float = 0.5
    diff_hunk_ms: float = 40.0


class ResourceLimitsExceeded(GraphQLError):
    def __init__(self) -> None:
        super().__init__(RESOURCE_MESSAGE, extensions={"type": "RESOURCE_LIMITS_EXCEEDED"})


@dataclass
class Work:
    """What one query has cost so far; graphql-core hands it to every resolver as `info.context`."""

    limits: GraphQLLimits
    objects: int = 0
    ms: float = 0.0
    over: bool = False
    log: list[str] = field(default_factory=list)

    def connection(self, nodes: int) -> None:
        """Charge one connection returning `nodes` objects; raises once the query is over its limit."""
        if self.over:
            raise ResourceLimitsExceeded()
        self.objects += nodes
        self.ms += self.limits.connection_ms + nodes * self.limits.object_ms
        if self.objects > self.limits.max_objects:
            self.over = True
            raise ResourceLimitsExceeded()

    def diff_hunk(self) -> None:
        self.ms += self.limits.diff_hunk_ms

    @property
    def timed_out(self) -> bool:
        return self.ms > self.limits.timeout_ms


def charge_connection(info: Any, nodes: int) -> None:
    work = getattr(info, "context", None)
    if isinstance(work, Work):
        work.connection(nodes)


def charged_diff_hunk(hunk: str) -> Any:
    """A `diffHunk` field that costs what GitHub's does, only when a query asks for it."""

    def resolve(info: Any) -> str:
        work = getattr(info, "context", None)
        if isinstance(work, Work):
            work.diff_hunk()
        return hunk

    return resolve
