"""Refusals of the releases app. These mirror apps.core.errors (NotFound, Conflict, InvalidInput naming a
field) until that shared hierarchy lands on main; then this module goes and the imports switch."""


class ReleaseRefused(Exception):
    status = 400

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(ReleaseRefused):
    status = 404


class Conflict(ReleaseRefused):
    status = 409


class InvalidInput(ReleaseRefused):
    status = 400
