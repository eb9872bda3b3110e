"""Stage 3, speech-friendly normalization: services (the normalizer engine of apps.transfer.normalizer under a
published rulebook version, the normalizer agent for context-dependent spans, validation, runs) and views
(the page where experts try the normalizer and admins start runs)."""
