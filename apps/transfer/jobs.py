from apps.jobs.services import job_handler
from apps.transfer.ground_truth import services as ground_truth
from apps.transfer.hypertranslation import services as hypertranslation
from apps.transfer.normalization import services as normalization


@job_handler("transfer.ground_truth_review")
def ground_truth_review(job, progress):
    return ground_truth.run_ground_truth_review(job, progress)


@job_handler("transfer.normalize")
def normalize(job, progress):
    return normalization.run_normalization(job, progress)


@job_handler("transfer.translate")
def translate(job, progress):
    return hypertranslation.run_translation(job, progress)
