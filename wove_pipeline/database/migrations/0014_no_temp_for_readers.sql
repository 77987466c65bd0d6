-- Nobody but the owner creates temporary tables in the serving database: PostgreSQL grants
-- TEMPORARY on every database to PUBLIC, so the read-only consumer role (wove_reader and
-- its logins) could fill the server with temp tables. The pipeline's role (the one that
-- migrates; the database owner keeps every privilege anyway) keeps it: publish uses temp
-- tables. Database privileges are not copied by CREATE DATABASE ... TEMPLATE: a database
-- cloned from a migrated one needs this statement again (the embedded default's
-- ensure_databases() runs it on every start).
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO %I', current_database(), current_user);
END
$$;
