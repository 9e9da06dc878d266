SELECT current_setting('autovacuum') = 'off'
    OR EXISTS (SELECT 1 FROM pg_class WHERE oid = CAST(? AS regclass)
               AND reloptions @> ARRAY['autovacuum_enabled=false'])
