-- Profile sharing (Oracle's GRANT_PROFILE_ACCESS / REVOKE_PROFILE_ACCESS).  One
-- row lets the grantee (a role, its members through inheritance, or PUBLIC) use
-- the owner's profile: read the profile row and its attributes, and call the
-- provider with the profile's credential inside the package.  The credential
-- row itself stays unreadable to the grantee (the policies at the end of this file
-- lets only the package's owner-role path read it, for the profile's own use).
--
-- The grantee is kept by name and OID: both must still match the live role,
-- so a later role that reuses the OID or the name of a dropped grantee gets
-- nothing.  grantee_oid 0 is PUBLIC.  owner is the profile's owner (the foreign
-- key says so), kept here so that the policies of this table never read
-- _profile, whose policies read this table.
alter table dbms_cloud_ai._profile add constraint profile_id_owner unique (profile_id, owner);
create table dbms_cloud_ai._profile_grant
( profile_id  bigint not null
, owner       name not null default dbms_cloud_ai._caller()
, grantee     name not null
, grantee_oid oid not null
, granted     timestamptz not null default pg_catalog.now()
, daily_tokens bigint check (daily_tokens operator(pg_catalog.>=) 0)   -- 0.8.0: set_profile_grant_budget, per role
, primary key (profile_id, grantee_oid)
, foreign key (profile_id, owner) references dbms_cloud_ai._profile (profile_id, owner)
      on delete cascade
);
create index profile_grant_grantee on dbms_cloud_ai._profile_grant (grantee_oid);
comment on table dbms_cloud_ai._profile_grant is
'profiles shared by their owner (grant_profile_access); grantee_oid 0 is PUBLIC';

alter table dbms_cloud_ai._profile_grant enable row level security;
alter table dbms_cloud_ai._profile_grant force row level security;
-- A grantee's grant lasts while its owner is the live role that made it
-- (_role_is_live, 011-caller.sql).
create policy profile_grant_read on dbms_cloud_ai._profile_grant for select
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
create policy profile_grant_admin_read on dbms_cloud_ai._profile_grant for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._profile_grant', '');

-- A grantee reads the shared profile's row (generate, set_profile, the ALL_ views).
create policy profile_grantee_read on dbms_cloud_ai._profile for select
    using (exists (select from dbms_cloud_ai._profile_grant g
                    where g.profile_id operator(pg_catalog.=) _profile.profile_id
                      and (g.grantee_oid operator(pg_catalog.=) 0
                           or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                               and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE')))));

-- The writer (writer.py) adds and removes grants of the caller's own profiles
-- (the foreign key on (profile_id, owner) makes owner the profile's owner).
create policy profile_grant_writer on dbms_cloud_ai._profile_grant to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));

-- The one read a grantee's call makes as the owner role (profiles.shared_credential):
-- the credential of a profile shared with the caller, for that profile's provider
-- request only.  These policies apply to dbms_cloud_ai_owner, which no SQL role
-- can become: an ordinary role never reads another role's credential row.
create policy profile_grant_shared_read on dbms_cloud_ai._profile_grant for select
    to dbms_cloud_ai_owner
    using ((grantee_oid operator(pg_catalog.=) 0
            or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                and pg_catalog.pg_has_role((select dbms_cloud_ai._caller()), grantee_oid, 'USAGE')))
           and dbms_cloud_ai._role_is_live(owner));
create policy profile_shared_read on dbms_cloud_ai._profile for select to dbms_cloud_ai_owner
    using (exists (select from dbms_cloud_ai._profile_grant g
                    where g.profile_id operator(pg_catalog.=) _profile.profile_id));
create policy credential_shared_read on dbms_cloud._credential for select to dbms_cloud_ai_owner
    using (exists (select from dbms_cloud_ai._profile p
                    where p.owner operator(pg_catalog.=) _credential.owner
                      and p.credential_name operator(pg_catalog.=) _credential.credential_name
                      and p.owner operator(pg_catalog.<>) (select dbms_cloud_ai._caller())
                      and exists (select from dbms_cloud_ai._profile_grant g
                                   where g.profile_id operator(pg_catalog.=) p.profile_id)));

-- drop_role_data removes the grants naming a dropped role (a grant whose
-- grantee no longer exists under that name and OID: already inert).
create policy profile_grant_admin_drop on dbms_cloud_ai._profile_grant for delete
    to dbms_cloud_ai_admin
    using (grantee_oid operator(pg_catalog.<>) 0
           and pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.<>) grantee);
