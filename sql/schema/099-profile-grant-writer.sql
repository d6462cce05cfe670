-- After 098-table-owner.sql (the role dbms_cloud_ai_owner) and 094-profile-grants.sql.
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
