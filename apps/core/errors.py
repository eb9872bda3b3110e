"""One refusal hierarchy for every app (HackSoft's ApplicationError). A service raises one of these with a
message a person can act on; the API exception handler (apps.core.api.exception_handler) answers it
with its status and the shared JSON shape {"detail", "code", "fields"}, and apps.core.middleware renders
it for pages. Subclass (or pass `code=`) for a machine-readable reason; never catch one to build a 409 by
hand."""

from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

__all__ = ["ApplicationError", "NotFound", "Forbidden", "Conflict", "Unavailable", "InvalidInput", "FileProblem", "FileRefused"]


class ApplicationError(Exception):
    """Base of every refusal: `status` is the HTTP status, `code` a short machine-readable reason."""

    status = 400
    code = "error"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    @property
    def fields(self) -> dict[str, list[str]]:
        """The request fields this refusal names, each with its messages (empty when none is to blame)."""
        return {}

    def lines(self) -> list[str]:
        """The refusal as lines for a list on a page or a job's result."""
        return [self.message]

    @property
    def count(self) -> int:
        """How many problems the refusal stands for."""
        return 1


class NotFound(ApplicationError):
    status = 404
    code = "not_found"


class Forbidden(ApplicationError):
    status = 403
    code = "forbidden"


class Conflict(ApplicationError):
    """The request is well formed but the current state does not allow it (already rated, slot taken...)."""

    status = 409
    code = "conflict"


class Unavailable(ApplicationError):
    """A service Sori needs for this request (the cache behind a throttle...) cannot be reached; try later."""

    status = 503
    code = "unavailable"


class InvalidInput(ApplicationError):
    """A value the caller sent is wrong; `field` names it when one field is to blame."""

    status = 400
    code = "invalid"

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None):
        super().__init__(message, code=code)
        self.field = field

    @property
    def fields(self) -> dict[str, list[str]]:
        return {self.field: [self.message]} if self.field else {}


@dataclass(frozen=True)
class FileProblem:
    """One thing wrong in an uploaded or imported file: where (file, line, field) and why."""

    file: str
    reason: str
    line: int | None = None
    field: str | None = None
    unit: str = "line"  # "row" where a file has no lines (Parquet)

    def __str__(self) -> str:
        where = f"{self.file} {self.unit} {self.line}" if self.line is not None else self.file
        return ": ".join(part for part in (where, self.field, self.reason) if part)


class FileRefused(ApplicationError):
    """A file that cannot be imported, naming file, line and field of each problem found
    ("manifest.csv line 4: score: must be between 1 and 5"). Nothing of the file was written."""

    status = 400
    code = "file_refused"

    def __init__(
        self,
        reason: str | None = None,
        *,
        file: str = "",
        line: int | None = None,
        field: str | None = None,
        problems: list[FileProblem] | None = None,
        more: int = 0,
        code: str | None = None,
    ):
        if problems is None:
            problems = [FileProblem(file=file, line=line, field=field, reason=reason or gettext("cannot be read"))]
        if not problems:
            raise ValueError("FileRefused needs at least one problem")
        self.problems = list(problems)
        self.more = more  # problems found but not listed, so a huge bad file gives a short answer
        message = "; ".join(map(str, self.problems))
        if more:
            message += "; " + ngettext("and %(more)s more problem", "and %(more)s more problems", more) % {"more": more}
        super().__init__(message, code=code)

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems] + ([gettext("and %(more)s more") % {"more": self.more}] if self.more else [])

    @property
    def count(self) -> int:
        return len(self.problems) + self.more

    @property
    def file(self) -> str:
        return self.problems[0].file

    @property
    def line(self) -> int | None:
        return self.problems[0].line

    @property
    def field(self) -> str | None:
        return self.problems[0].field

    @property
    def fields(self) -> dict[str, list[str]]:
        named: dict[str, list[str]] = {}
        for problem in self.problems:
            named.setdefault(problem.field or "file", []).append(str(problem))
        return named
