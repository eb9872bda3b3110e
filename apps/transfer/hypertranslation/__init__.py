"""Stage 2, hypertranslation: services (translation runs under a pinned rulebook version, corrections by
experts), selectors (a run's outputs and report) and views (the runs and the side-by-side page)."""
