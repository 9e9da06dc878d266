#!/usr/bin/env python3
"""Where the database's time goes during a benchmark run: PostgreSQL's slow-statement log,
summed per minute and per statement.

    psql -h 127.0.0.1 -U postgres -d test -c "ALTER DATABASE test SET log_min_duration_statement = '100ms'"
    LOG=/var/log/postgresql/postgresql-15-main.log; FROM=$(wc -l < $LOG)
    java -jar $J --workloads=overload --minutes=10 --hold-horizon        # or any other workload
    tail -n +$FROM $LOG | python3 docs/performance-measure/slow-statements.py
    psql -h 127.0.0.1 -U postgres -d test -c "ALTER DATABASE test RESET log_min_duration_statement"

Only statements that ran 100 ms or longer are seen: a cost spread over many short statements
does not show here. Claims are told apart by their form (from the head of the ready index, or
past a mark); other statements by their first 60 characters. Prints, per minute, each
statement that spent more than half a second in all: how many ran, their total and their
longest, in milliseconds.
"""
import re
import sys
from collections import defaultdict

ENTRY = re.compile(r'(\d\d:\d\d):\d\d\.\d+ UTC.*?duration: ([0-9.]+) ms\s+(?:statement|execute [^:]*): (.*)', re.S)


def kind(statement):
    text = ' '.join(statement.split())
    if 'no_wait' in text and 'picked' in text:
        return 'claim, past a mark' if 'past_mark' in text else 'claim, from the head'
    return text[:60]


def main():
    totals = defaultdict(lambda: [0, 0.0, 0.0])
    for entry in re.split(r'\n(?=\d{4}-\d\d-\d\d )', sys.stdin.read()):
        match = ENTRY.search(entry)
        if not match:
            continue
        minute, millis, statement = match.group(1), float(match.group(2)), match.group(3)
        total = totals[(minute, kind(statement))]
        total[0] += 1
        total[1] += millis
        total[2] = max(total[2], millis)
    print('| minute | statement | count | total ms | longest ms |')
    print('| --- | --- | ---: | ---: | ---: |')
    for (minute, statement), (count, millis, longest) in sorted(totals.items()):
        if millis > 500:
            print(f'| {minute} | `{statement}` | {count} | {millis:,.0f} | {longest:,.0f} |')


if __name__ == '__main__':
    main()
