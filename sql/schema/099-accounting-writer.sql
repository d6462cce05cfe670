-- After 098-table-owner.sql, which makes the role dbms_cloud_ai_owner.
-- Accounting rows are written by dbms_cloud_ai._write (099-writer.sql), which runs as
-- dbms_cloud_ai_owner (row-level security is forced on the owner too, so it gets
-- policies of its own; no one logs in or acts as that role otherwise).  Users only
-- read their rows.  Administrators correct a record's counts (UPDATE of the
-- token columns only; a deleted record would be stored again by the session
-- that still holds it, so correction is by update).
create policy model_call_writer on dbms_cloud_ai._model_call for all
    to dbms_cloud_ai_owner using (true) with check (true);
create policy message_source_writer on dbms_cloud_ai._message_source for all
    to dbms_cloud_ai_owner using (true) with check (true);
create policy model_call_admin_correct on dbms_cloud_ai._model_call for update
    to dbms_cloud_ai_admin using (true) with check (true);
-- Counts a provider reported are clamped by the package; a row can never hold less.
alter table dbms_cloud_ai._model_call add constraint model_call_counts_not_negative
    check (input_tokens operator(pg_catalog.>=) 0 and output_tokens operator(pg_catalog.>=) 0
           and latency_ms operator(pg_catalog.>=) 0 and attempts operator(pg_catalog.>=) 1);
