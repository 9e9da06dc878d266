#!/usr/bin/env bash
# Times the dashboard's JSON API on the sample app (PostgreSQL, schema with 1,000,000 jobs).
base=http://localhost:8089/sqlqueue/api
t() { # name, path: five calls, each total time in ms
  local times=()
  for i in 1 2 3 4 5; do
    times+=("$(curl -s -o /tmp/timing-body.json -w '%{time_total}' "$base/$2" | awk '{printf "%.1f", $1*1000}')")
  done
  printf '%-48s %s ms   (%s)\n' "$1" "${times[*]}" "$(head -c 90 /tmp/timing-body.json)"
}
t "first page (50, newest)"                    "jobs?limit=50"
t "10,000th page (before=500051)"              "jobs?limit=50&before=500051"
t "last page (before=51)"                      "jobs?limit=50&before=51"
t "newer page (after=500000)"                  "jobs?limit=50&after=500000"
t "state FAILED, first page"                   "jobs?status=FAILED&limit=50"
t "state FAILED, deep (before=20000)"          "jobs?status=FAILED&limit=50&before=20000"
t "queue reports, 10,000th-page depth"         "jobs?queue=reports&limit=50&before=500051"
t "queue audit (0.1 %), first page"            "jobs?queue=audit&limit=50"
t "handler audit.h1, first page"               "jobs?handler=audit.h1&limit=50"
t "queue nosuch (no match: worst case)"        "jobs?queue=nosuch&limit=50"
t "search unique key order-123450"             "jobs?search=order-123450&limit=50"
t "search job id 123456"                       "jobs?search=123456&limit=50"
t "job detail 123456"                          "jobs/123456"
t "overview (counts cached 5 s)"               "overview"
