"""What transfer announces to the apps that take work from it. Sent inside the write's transaction, so what a
receiver writes commits or rolls back with it (apps.consultations turns a correction sent to an expert into
an inbox question this way; transfer does not import consultations)."""

from django.dispatch import Signal

# sender=Correction, correction=<the Correction, status needs_expert>
correction_sent_to_expert = Signal()
