"""Job handlers of the consultation loop (run by apps.jobs: Celery, a thread, or inline in tests)."""

from apps.consultations import agent_steps
from apps.consultations.models import ANALYSIS_JOB, CODIFY_JOB, QUESTIONS_JOB
from apps.jobs.services import job_handler

job_handler(ANALYSIS_JOB)(agent_steps.run_analysis)
job_handler(QUESTIONS_JOB)(agent_steps.run_question_writing)
job_handler(CODIFY_JOB)(agent_steps.run_codification)
