#!/usr/bin/env python3
"""The database's time of enqueueAll's two PostgreSQL statements, on their own: the one for
jobs with options (job-insert-all.sql, fourteen arrays and ON CONFLICT) and the one for bare
jobs (job-insert-all-bare.sql, five arrays), each inserting 500 bare jobs per statement into a
copy of the benchmark's table, with pgbench, alternating, three times each.

    python3 docs/performance-measure/insert-statements.py      # after any benchmark run on PostgreSQL

The statements are the golden files the store's SQL is checked against, with each parameter
written as a literal array: PostgreSQL parses a literal array with the same input function as
an array bound as text, which is how the JDBC driver sends them. pgbench sends each statement
as text, so every figure includes its parsing and planning, as the driver's unnamed statements
do. Prints the average latency per statement of each run, in milliseconds.
"""
import os
import re
import subprocess
import tempfile

ROWS = 500
TRANSACTIONS = 400
PSQL = ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test']
GOLDEN = os.path.join(os.path.dirname(__file__), '..', '..', 'queue-core', 'src', 'test', 'resources', 'sql',
                      'postgresql')

# The arrays' elements for ROWS bare jobs, by the array type each parameter is cast to, in order.
ALL = ['default', 'noop', 'payload', 0, None, 0, 3, None, None, None, None, None, None, None]
BARE = ['default', 'noop', 'payload', 0, 3]


def literal(element):
    if element is None:
        values = ['NULL'] * ROWS
    elif element == 'payload':
        values = ['"{\\"n\\":%d}"' % i for i in range(ROWS)]
    else:
        values = [str(element)] * ROWS
    return "'{" + ','.join(values) + "}'"


def script(name, elements):
    with open(os.path.join(GOLDEN, name)) as file:
        statement = file.read().replace('INSERT INTO queue_job', 'INSERT INTO insert_statements.queue_job')
    parts = statement.split('?')
    assert len(parts) == len(elements) + 1, name
    text = parts[0] + ''.join(literal(e) + part for e, part in zip(elements, parts[1:]))
    handle = tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False)
    handle.write(' '.join(text.split()) + ';\n')
    handle.close()
    return handle.name


def psql(command):
    subprocess.run(['psql', '-q', *PSQL, '-c', command], check=True)


def main():
    psql('DROP SCHEMA IF EXISTS insert_statements CASCADE; CREATE SCHEMA insert_statements; '
         'CREATE TABLE insert_statements.queue_job (LIKE sqlqueue_bench.queue_job INCLUDING ALL)')
    scripts = {'with options (insertAll)': script('job-insert-all.sql', ALL),
               'bare (insertAllBare)': script('job-insert-all-bare.sql', BARE)}
    try:
        for run in range(3):
            for name, path in scripts.items():
                psql('TRUNCATE insert_statements.queue_job')
                out = subprocess.run(['pgbench', '-n', *PSQL, '-f', path, '-t', str(TRANSACTIONS), '-c', '1'],
                                     check=True, capture_output=True, text=True).stdout
                latency = re.search(r'latency average = ([0-9.]+) ms', out).group(1)
                print(f'run {run + 1}, {name}: {latency} ms per {ROWS} jobs')
    finally:
        psql('DROP SCHEMA insert_statements CASCADE')
        for path in scripts.values():
            os.unlink(path)


if __name__ == '__main__':
    main()
