-- PostgreSQL only: the reports' "part of a name" filters (LIKE '%...%') through trigram indexes instead of reading
-- every row. pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX session_history_created_by_trgm ON session_history USING gin (LOWER(created_by) gin_trgm_ops);
CREATE INDEX session_history_entry_trgm ON session_history USING gin (LOWER(address_book_entry) gin_trgm_ops);
CREATE INDEX session_history_display_trgm ON session_history USING gin (LOWER(entry_display_name) gin_trgm_ops);
