"""Transfer pages are for admins only (admins always pass `can`; nothing else is registered)."""
