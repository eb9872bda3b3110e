"""The one writer of a run's settled state, EvaluationRun.state (NetBox's JobRunner owns its job's status the
same way): every change of it goes through `set_status`, so what may set it is read in one place. A test keeps
any other module from assigning it.

    waiting -> (collecting) -> ready -> (evaluating) -> evaluated
    any job that stops (fails, is cancelled) or leaves work undone -> needs_attention (with the reason)

Collecting and evaluating are never written: EvaluationRun.status reads them from the run's unfinished job,
so the row keeps its settled state while a job works and only the job's end writes the next one."""

from apps.evaluation.models import EvaluationRun, RunStatus


def set_status(run_pk: int, status: RunStatus, *, reason: str = "", where: dict | None = None, **fields) -> int:
    """Set the run's settled state and its attention reason (cleared unless given), with `fields` written in
    the same update (the answer source, when it was evaluated); `where` narrows it (only while the run still
    links a given job). The number of runs changed."""
    return EvaluationRun.objects.filter(pk=run_pk, **(where or {})).update(
        state=status, attention_reason=reason[:2000], **fields)


def work_begins(run_pk: int) -> None:
    """A job's body starts (or resumes): the reason an earlier stop gave no longer holds. The state stays as
    it is; the run reads as collecting or evaluating from the job."""
    EvaluationRun.objects.filter(pk=run_pk).update(attention_reason="")


def needs_attention(run_pk: int, reason: str) -> None:
    set_status(run_pk, RunStatus.NEEDS_ATTENTION, reason=reason)


def after_work(run_pk: int, reasons: list[str], *, done: RunStatus, **fields) -> None:
    """The end of a job's body: `done`, or needs attention naming the reasons."""
    set_status(run_pk, RunStatus.NEEDS_ATTENTION if reasons else done, reason="; ".join(reasons), **fields)
