-- (OR REPLACE: the 0.2.0 -> 0.3.0 update replaces the 0.2.0 function with this.)
-- Deleting prompts, by any path (delete_conversation_prompt, a direct DELETE,
-- the retention purge), erases a summary made from any of them, so deleted text
-- is never sent again, and bumps the generation of the conversation's row
-- whatever was deleted, so a turn that read the prompts before the delete
-- cannot store a summary made from them (its write expects the old generation).
-- The upsert is what makes that safe against a concurrent turn: at READ
-- COMMITTED it waits for the turn's row and re-reads it; at REPEATABLE READ a
-- row it cannot see fails with 40001 instead of being missed.
-- Only the deleting role's own conversations (the caller's, when the writer
-- deletes: python/src/dbms_cloud_ai/writer.py): the purge run by an administrator
-- leaves other roles' rows to the cascade when their conversation goes.
create or replace function dbms_cloud_ai._forget_summaries() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
begin
    if exists (select from gone g join dbms_cloud_ai._conversation c
                 on c.conversation_id operator(pg_catalog.=) g.conversation_id
                where c.owner operator(pg_catalog.=) dbms_cloud_ai._caller()) then
        insert into dbms_cloud_ai._conversation_summary as s (conversation_id)
        select distinct g.conversation_id
          from gone g join dbms_cloud_ai._conversation c
            on c.conversation_id operator(pg_catalog.=) g.conversation_id
         where c.owner operator(pg_catalog.=) dbms_cloud_ai._caller()
        on conflict (conversation_id) do update
           set generation = s.generation operator(pg_catalog.+) 1,
               modified = pg_catalog.now(),
               (summary, first_seq, covers_seq, prompts, call_id) =
                   (select case when x.hit then null else s.summary end,
                           case when x.hit then null else s.first_seq end,
                           case when x.hit then null else s.covers_seq end,
                           case when x.hit then 0 else s.prompts end,
                           case when x.hit then null else s.call_id end
                      from (select exists (select from gone d
                                            where d.conversation_id operator(pg_catalog.=) s.conversation_id
                                              and d.seq operator(pg_catalog.>=) s.first_seq
                                              and d.seq operator(pg_catalog.<=) s.covers_seq) as hit) x);
    end if;
    return null;
end
$function$;
comment on function dbms_cloud_ai._forget_summaries() is
'trigger: deleted prompts erase the summaries made from them';

