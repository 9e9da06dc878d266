#!/usr/bin/env python3
"""How many statements each job costs, and how long each kind runs on the database, for the
floor at batch 1 and sqlqueue with batch size 1: PostgreSQL's log of every statement, read
per statement kind.

    psql -h 127.0.0.1 -U postgres -d test -c "ALTER DATABASE test SET log_min_duration_statement = 0"
    LOG=/var/log/postgresql/postgresql-15-main.log; FROM=$(wc -l < $LOG)
    java -jar $J --workloads=compare --sizes=5000 --reps=1 "--peers=floor, batch 1,batch size 1" --warm-up=0
    tail -n +$FROM $LOG | python3 docs/performance-measure/statements-per-job.py
    psql -h 127.0.0.1 -U postgres -d test -c "ALTER DATABASE test RESET log_min_duration_statement"

The floor's statements are told apart by their batch (the claim's LIMIT, the completion's
number of ids), as the peers filter runs batches 1, 10 and 100; sqlqueue's by their first
words. With --warm-up=0 each system runs every job once. Prints,
per kind, how many ran and their mean and total time on the database (the execute step:
parsing, planning and commits are apart).
"""
import re
import sys
from collections import defaultdict

ENTRY = re.compile(r'duration: ([0-9.]+) ms\s+execute [^:]*: (.*?)(?:\nDETAIL:\s+parameters: (.*))?$', re.S)


def kind(statement, parameters):
    text = ' '.join(statement.split())
    if 'floor_job SET status = 1' in text:
        return 'floor claim, LIMIT ' + re.search(r"\$1 = '(\d+)'", parameters or '').group(1)
    if 'floor_job SET status = 2' in text:
        ids = re.search(r"\$1 = '\{([^}]*)\}'", parameters or '').group(1)
        return 'floor completion, ids: ' + str(len(ids.split(',')))
    if 'floor_job' in text or 'scheduled_tasks' in text:
        return None
    if 'no_wait' in text and 'picked' in text:
        return 'sqlqueue claim'
    if text.startswith('WITH d AS') and 'SUCCEEDED' in text:
        return 'sqlqueue completion'
    if text.startswith('COMMIT'):
        return 'COMMIT (both)'
    return None


def main():
    totals = defaultdict(lambda: [0, 0.0])
    # A statement's parameters come on a line of their own: joined to it before splitting.
    log = re.sub(r'\n\d{4}-\d\d-\d\d [^\n]*?DETAIL:', '\nDETAIL:', sys.stdin.read())
    for entry in re.split(r'\n(?=\d{4}-\d\d-\d\d )', log):
        match = ENTRY.search(entry)
        if not match:
            continue
        name = kind(match.group(2), match.group(3))
        if name is None:
            continue
        totals[name][0] += 1
        totals[name][1] += float(match.group(1))
    print('| statement | count | mean ms | total ms |')
    print('| --- | ---: | ---: | ---: |')
    for name, (count, millis) in sorted(totals.items()):
        print(f'| {name} | {count:,} | {millis / count:.3f} | {millis:,.0f} |')


if __name__ == '__main__':
    main()
