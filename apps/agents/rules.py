"""Who may see the agent pages: admins only (admins always pass `can`; nothing else is registered)."""
