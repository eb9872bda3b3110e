from apps.jobs.services import job_handler
from apps.transfer import services


@job_handler("transfer.ground_truth_review")
def ground_truth_review(job, progress):
    return services.run_ground_truth_review(job, progress)
