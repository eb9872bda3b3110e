from apps.accounts.permissions import role_rule, rule

role_rule("jobs.list")  # every job: admins only; others see the jobs they started


@rule("jobs.view")
def _view_job(user, job):
    return job is not None and job.created_by_id == user.pk


@rule("jobs.control")
def _control_job(user, job):
    return job is not None and job.created_by_id == user.pk
