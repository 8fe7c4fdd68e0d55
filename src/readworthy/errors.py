"""The few errors readworthy raises on purpose. Each message names the fix.

Entry points map them to exit codes: a ReadworthyError is a known failure
(exit 1, or 0 when `fail-on-error` is false and the failure is recoverable; a UsageError of the
command line exits 2); anything else is a bug (exit 3, traceback kept).
"""


class ReadworthyError(Exception):
    """A known failure with a message meant for the user."""

    exit_code = 1


class UsageError(ReadworthyError):
    """The command line was used wrongly (flags that do not go together, a bad flag value): exit 2, as for
    argparse's own usage errors."""

    exit_code = 2


class ConfigError(ReadworthyError):
    """Inputs, environment or the repository config file are invalid."""


class EventError(ReadworthyError):
    """The GitHub event payload is missing, malformed or not one we handle."""


class InputError(ReadworthyError):
    """A local input (patch file, git range) cannot be read as a diff."""


class GitHubError(ReadworthyError):
    """The GitHub API refused or failed a request after retries. `status`: GitHub's HTTP status, if any."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitHubNotFound(GitHubError):
    """GitHub answered 404: the thing does not exist, or the token cannot see it."""


class ModelError(ReadworthyError):
    """The model endpoint failed or answered something unusable."""


class PublishError(ReadworthyError):
    """The comment could not be written (locked, no permission, archived). `transient`: a 5xx or a lost
    answer, after which the write may still have landed (look before writing again)."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class CommentBlocked(PublishError):
    """GitHub refused a write for a reason a retry will not fix (locked, archived, no permission)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason  # "locked" | "archived" | "read-only" | "not-found" | "too-long"
