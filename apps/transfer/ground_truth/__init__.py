"""Stage 1, ground-truth correction: services (the reviewer and meta-reviewer agents, admin and expert
decisions), selectors (scope and report), schemas (the agents' answers) and views (the stage's pages)."""
