"""Job handlers of the consultation loop (run by apps.jobs: Celery, a thread, or inline in tests)."""

from apps.consultations import agent_steps
from apps.jobs.services import job_handler

job_handler(agent_steps.ANALYSIS_JOB)(agent_steps.run_analysis)
job_handler(agent_steps.CODIFY_JOB)(agent_steps.run_codification)
