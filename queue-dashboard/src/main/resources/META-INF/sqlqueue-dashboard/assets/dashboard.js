// The sqlqueue dashboard: plain JavaScript, no build step, no libraries.
// Everything that comes from the server is written with textContent (through el() and
// text nodes), never as HTML, so a payload or an error message cannot become markup.
(function () {
    'use strict';

    var STATES = ['WAITING', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
    var main = document.getElementById('main');
    var timer = null;
    // Counts the routes taken: a page whose data arrives after the reader moved on draws nothing
    // and schedules no refresh, or it would cover the page the reader went to.
    var routes = 0;

    function meta(name) {
        var tag = document.querySelector('meta[name="' + name + '"]');
        return tag ? tag.getAttribute('content') : '';
    }

    var settings = {
        actions: meta('sqlqueue-actions') === 'true',
        actionsOff: meta('sqlqueue-actions-off'),
        refreshMillis: parseInt(meta('sqlqueue-refresh-millis'), 10) || 5000,
        pageSize: parseInt(meta('sqlqueue-page-size'), 10) || 50,
        csrfHeader: meta('sqlqueue-csrf-header'),
        csrfToken: meta('sqlqueue-csrf-token')
    };

    // --- DOM helpers: children that are strings become text nodes.

    function el(tag, attributes) {
        var node = document.createElement(tag);
        var name;
        for (name in (attributes || {})) {
            if (Object.prototype.hasOwnProperty.call(attributes, name) && attributes[name] !== null
                    && attributes[name] !== undefined && attributes[name] !== false) {
                if (name === 'onclick') {
                    node.addEventListener('click', attributes[name]);
                } else {
                    node.setAttribute(name, String(attributes[name]));
                }
            }
        }
        for (var i = 2; i < arguments.length; i++) {
            append(node, arguments[i]);
        }
        return node;
    }

    function append(node, child) {
        if (child === null || child === undefined || child === false) {
            return;
        }
        if (Array.isArray(child)) {
            child.forEach(function (each) { append(node, each); });
        } else if (typeof child === 'object' && child.nodeType) {
            node.appendChild(child);
        } else {
            node.appendChild(document.createTextNode(String(child)));
        }
    }

    function show(content) {
        main.replaceChildren();
        append(main, content);
    }

    function flash(message, bad) {
        var box = document.getElementById('flash');
        box.textContent = message;
        box.className = bad ? 'flash bad' : 'flash';
        box.hidden = false;
    }

    function clearFlash() {
        document.getElementById('flash').hidden = true;
    }

    // --- formatting

    // Times in the browser's zone, always named (e.g. "UTC", "GMT+2"), so that a time read
    // off a screenshot or told to a colleague elsewhere is not an hour or a day off.
    var TIME = {year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
        second: '2-digit', timeZoneName: 'short'};

    function time(iso) {
        return iso ? new Date(iso).toLocaleString(undefined, TIME) : '';
    }

    function preciseTime(iso) {
        return iso ? new Date(iso).toLocaleString(undefined, Object.assign({fractionalSecondDigits: 3}, TIME)) : '';
    }

    function age(millis) {
        var seconds = Math.floor(millis / 1000);
        if (seconds < 60) {
            return seconds + ' s';
        }
        var minutes = Math.floor(seconds / 60);
        if (minutes < 60) {
            return minutes + ' min ' + (seconds % 60) + ' s';
        }
        var hours = Math.floor(minutes / 60);
        return hours < 48 ? hours + ' h ' + (minutes % 60) + ' min' : Math.floor(hours / 24) + ' d';
    }

    function badge(status) {
        return el('span', {'class': 'badge ' + status}, status);
    }

    // A job parked on a durable sleep or a wait for a signal is QUEUED in the database, but
    // waits for that, not for a worker: it shows as parked, its state in the title.
    function jobBadge(job) {
        return job.parked ? el('span', {'class': 'badge PARKED', title: 'QUEUED: parked on a durable sleep or a wait '
            + 'for a signal; due when it ends'}, 'PARKED') : badge(job.status);
    }

    // What a parked job waits for, with its wake time in the page's format.
    function waitText(parked) {
        return (parked.kind === 'SLEEP' ? 'sleeping' : 'waiting for signal \'' + parked.name + '\'') + ' until '
            + time(parked.wakeAt);
    }

    function firstLine(text) {
        return text ? text.split('\n')[0] : '';
    }

    function pretty(json) {
        if (json === null || json === undefined) {
            return 'null';
        }
        return JSON.stringify(json, null, 2);
    }

    function jobsLink(filters) {
        var query = Object.keys(filters).filter(function (key) { return filters[key]; }).map(function (key) {
            return encodeURIComponent(key) + '=' + encodeURIComponent(filters[key]);
        }).join('&');
        return '#/jobs' + (query ? '?' + query : '');
    }

    // --- HTTP

    function problem(response) {
        return response.text().then(function (body) {
            var detail = response.status + ' ' + response.statusText;
            try {
                var json = JSON.parse(body);
                detail = json.detail || json.message || json.error || detail;
            } catch (ignored) {
                // not JSON: keep the status line
            }
            throw new Error(detail);
        });
    }

    function get(path) {
        return fetch(path, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
            .then(function (response) { return response.ok ? response.json() : problem(response); });
    }

    function post(path) {
        var headers = {'Accept': 'application/json', 'X-SqlQueue-Dashboard': '1'};
        if (settings.csrfHeader && settings.csrfToken) {
            headers[settings.csrfHeader] = settings.csrfToken;
        }
        return fetch(path, {method: 'POST', credentials: 'same-origin', headers: headers})
            .then(function (response) { return response.ok ? response.json() : problem(response); });
    }

    function act(path, button) {
        if (button) {
            button.disabled = true;
        }
        return post(path).then(function (result) {
            flash(result.message, !result.done);
            return route();
        }).catch(function (error) {
            flash(error.message, true);
            if (button) {
                button.disabled = false;
            }
        });
    }

    function actionButton(label, path, id, style) {
        var button = el('button', {id: id, 'class': style || null, type: 'button'}, label);
        button.addEventListener('click', function () { act(path, button); });
        return button;
    }

    // --- Overview

    // The jobs finished per minute as bars, each with its count above it, a scale on the
    // left (the busiest minute) and the minutes under it (oldest on the left, "now" right).
    function sparkline(queue) {
        var ns = 'http://www.w3.org/2000/svg';
        var left = 26;
        var top = 11;
        var chart = 22;
        var width = 210;
        var height = top + chart + 12;
        var minutes = queue.succeededPerMinute.length;
        var bar = (width - left) / minutes;
        var max = 1;
        var total = 0;
        for (var i = 0; i < minutes; i++) {
            max = Math.max(max, queue.succeededPerMinute[i] + queue.failedPerMinute[i]);
            total += queue.succeededPerMinute[i] + queue.failedPerMinute[i];
        }
        var svg = document.createElementNS(ns, 'svg');
        svg.setAttribute('class', 'spark');
        svg.setAttribute('width', width);
        svg.setAttribute('height', height);
        var title = document.createElementNS(ns, 'title');
        title.textContent = total + ' jobs finished in the last ' + minutes + ' minutes (green: succeeded, red: failed); '
            + 'last minute: ' + (queue.succeededPerMinute[minutes - 1] + queue.failedPerMinute[minutes - 1]);
        svg.appendChild(title);
        function rect(x, y, h, style) {
            var r = document.createElementNS(ns, 'rect');
            r.setAttribute('x', x.toFixed(1));
            r.setAttribute('y', y.toFixed(1));
            r.setAttribute('width', Math.max(1, bar - 2).toFixed(1));
            r.setAttribute('height', h.toFixed(1));
            r.setAttribute('class', style);
            svg.appendChild(r);
        }
        function label(x, y, content, style, anchor) {
            var t = document.createElementNS(ns, 'text');
            t.setAttribute('x', x.toFixed(1));
            t.setAttribute('y', y.toFixed(1));
            t.setAttribute('class', style);
            t.setAttribute('text-anchor', anchor);
            t.textContent = content;
            svg.appendChild(t);
        }
        var floor = top + chart;
        label(left - 4, top + 7, String(max), 'axis max', 'end');
        label(left - 4, floor, '0', 'axis', 'end');
        for (var m = 0; m < minutes; m++) {
            var x = left + m * bar;
            var count = queue.succeededPerMinute[m] + queue.failedPerMinute[m];
            var ok = queue.succeededPerMinute[m] / max * (chart - 1);
            var bad = queue.failedPerMinute[m] / max * (chart - 1);
            rect(x, floor - 1, 1, 'base');
            if (ok > 0) {
                rect(x, floor - 1 - ok, Math.max(ok, 1), 'ok');
            }
            if (bad > 0) {
                rect(x, floor - 1 - ok - bad, Math.max(bad, 1), 'bad');
            }
            if (count > 0) {
                label(x + (bar - 2) / 2, floor - 2 - ok - bad, String(count), 'count', 'middle');
            }
        }
        label(left, height - 1, '-' + minutes + ' min', 'axis', 'start');
        label(width, height - 1, 'now', 'axis', 'end');
        return svg;
    }

    // The QUEUED count, and under it why those jobs wait: due now, delayed, a retry's backoff,
    // or parked on a durable sleep or a wait for a signal (a link to those jobs).
    function queuedCell(queue) {
        var count = queue.jobs.QUEUED || 0;
        var split = queue.queued;
        return el('td', {'class': 'num count-' + (count ? 'QUEUED' : 'zero')},
            count ? el('a', {href: jobsLink({queue: queue.name, status: 'QUEUED'})}, countText(queue, 'QUEUED')) : '0',
            split.delayed || split.backingOff || split.parked ? el('div', {'class': 'queued-split'},
                el('span', {'class': 'due', title: 'due now, waiting for a worker or a limit'},
                    split.due.toLocaleString() + ' due now'),
                split.delayed ? el('span', {'class': 'delayed', title: 'enqueued to run later'},
                    split.delayed.toLocaleString() + ' delayed') : '',
                split.backingOff ? el('span', {'class': 'backoff', title: 'failed an attempt, waiting to retry'},
                    split.backingOff.toLocaleString() + ' retry backoff') : '',
                split.parked ? el('span', {'class': 'parked', title: 'parked on a durable sleep or a wait for a signal'},
                    el('a', {href: jobsLink({queue: queue.name, parked: 'true'})},
                        split.parked.toLocaleString() + ' parked')) : '') : '');
    }

    // A count the server estimated (a large PostgreSQL table) reads "≈ 2,500,000", with why on hover.
    function countText(queue, state) {
        var count = (queue.jobs[state] || 0).toLocaleString();
        return (queue.estimated || []).indexOf(state) < 0 ? count
            : el('span', {'class': 'estimated', title: 'estimated from a sample of the table'}, '\u2248 ' + count);
    }

    function queueRow(queue) {
        var stuck = queue.oldestDueAgeMillis > 5 * 60 * 1000;
        var name = [el('a', {href: jobsLink({queue: queue.name})}, queue.name)];
        if (queue.paused) {
            name.push(' ', el('span', {'class': 'paused', title: 'No instance claims its jobs; paused at '
                + time(queue.paused.pausedAt) + (queue.paused.pausedBy ? ' by ' + queue.paused.pausedBy : '')},
                'paused'));
        }
        var cells = [el('td', null, name)];
        STATES.forEach(function (state) {
            var count = queue.jobs[state] || 0;
            if (state === 'QUEUED') {
                cells.push(queuedCell(queue));
                return;
            }
            cells.push(el('td', {'class': 'num count-' + (count ? state : 'zero')},
                count ? el('a', {href: jobsLink({queue: queue.name, status: state})}, countText(queue, state)) : '0'));
        });
        cells.push(el('td', {'class': 'num oldest'}, queue.oldestDueAgeMillis > 0 ? age(queue.oldestDueAgeMillis) : '–'));
        cells.push(el('td', {'class': 'num workers'}, queue.totalWorkers === null ? 'not served here'
            : queue.busyWorkers + ' / ' + queue.totalWorkers));
        cells.push(el('td', {'class': 'limits'}, limitsCell(queue)));
        cells.push(el('td', null, sparkline(queue)));
        var failed = queue.jobs.FAILED || 0;
        var buttons = [];
        if (settings.actions) {
            var base = 'api/queues/' + encodeURIComponent(queue.name) + '/';
            buttons.push(queue.paused ? actionButton('Resume', base + 'resume', 'resume-queue-' + queue.name)
                : actionButton('Pause', base + 'pause', 'pause-queue-' + queue.name));
            if (failed > 0) {
                buttons.push(' ', actionButton('Retry ' + failed + ' failed', 'api/jobs/retry-failed?queue='
                    + encodeURIComponent(queue.name), 'retry-failed-' + queue.name, 'danger'));
            }
        }
        cells.push(el('td', null, buttons));
        return el('tr', {'data-queue': queue.name, 'class': queue.paused ? 'paused-queue' : stuck ? 'stuck' : null},
            cells);
    }

    // The queue's limits, one per line, and the due jobs they hold back now by the kind of limit.
    function limitsCell(queue) {
        var lines = queue.limits.map(function (limit) { return el('div', null, limit); });
        Object.keys(queue.throttled).forEach(function (kind) {
            if (queue.throttled[kind] > 0) {
                lines.push(el('div', {'class': 'throttled'},
                    queue.throttled[kind].toLocaleString() + ' held back (' + kind + ')'));
            }
        });
        return lines.length ? lines : '–';
    }

    function scheduleRow(schedule) {
        var buttons = [];
        if (settings.actions && !schedule.orphaned) {
            var base = 'api/schedules/' + encodeURIComponent(schedule.name) + '/';
            buttons.push(actionButton('Trigger', base + 'trigger', 'trigger-' + schedule.name));
            buttons.push(' ');
            buttons.push(schedule.paused ? actionButton('Resume', base + 'resume', 'resume-' + schedule.name)
                : actionButton('Pause', base + 'pause', 'pause-' + schedule.name));
        }
        return el('tr', {'data-schedule': schedule.name},
            el('td', null, schedule.name),
            el('td', null, schedule.handler),
            el('td', null, schedule.when),
            el('td', null, schedule.paused ? 'paused' : schedule.orphaned ? 'orphaned' : time(schedule.nextRunAt)),
            el('td', null, time(schedule.lastFiredAt)),
            el('td', null, schedule.lastJobId === null ? '' : [
                el('a', {href: '#/jobs/' + schedule.lastJobId}, '#' + schedule.lastJobId), ' ',
                schedule.lastJobStatus ? badge(schedule.lastJobStatus) : '']),
            el('td', null, buttons));
    }

    // The cluster: every instance that runs jobs, as its row last said (database clock).
    function instanceRow(instance) {
        return el('tr', {'data-instance': instance.id, 'class': instance.gone ? 'gone' : null},
            el('td', null, instance.id + (instance.id === settings.instance ? ' (this one)' : '')),
            el('td', null, instance.host + ' / ' + instance.pid),
            el('td', null, instance.version),
            el('td', null, instance.queues.join(', ')),
            el('td', {'class': 'num'}, instance.busyWorkers + ' / ' + instance.concurrency),
            el('td', null, time(instance.startedAt)),
            el('td', null, instance.gone ? 'gone, last seen ' + age(instance.sinceSeenMillis) + ' ago'
                : 'live, seen ' + age(instance.sinceSeenMillis) + ' ago'));
    }

    function clusterSection(overview) {
        return [el('h2', null, 'Instances'),
            el('div', {'class': 'panel'}, el('table', {id: 'instances'},
                el('thead', null, el('tr', null, ['Instance', 'Host / pid', 'Version', 'Queues', 'Busy workers',
                    'Started', 'State'].map(function (title) { return el('th', null, title); }))),
                el('tbody', null, overview.instances.length ? overview.instances.map(instanceRow)
                    : el('tr', null, el('td', {colspan: 7, 'class': 'muted'}, 'No instance runs jobs.')))))];
    }

    function renderOverview(overview) {
        settings.instance = overview.instance;
        var head = el('tr', null, el('th', null, 'Queue'), STATES.map(function (state) {
            return el('th', {'class': 'num'}, state.charAt(0) + state.slice(1).toLowerCase());
        }), el('th', {'class': 'num'}, 'Oldest due'), el('th', {'class': 'num'}, 'Workers (this instance)'),
        el('th', {title: 'Limits hold across all instances'}, 'Limits'),
        el('th', null, 'Finished per minute, last ' + overview.minutes + ' min'), el('th', null, ''));
        var rows = overview.queues.map(queueRow);
        var content = [
            el('h1', null, 'Overview'),
            el('div', {'class': 'panel'}, el('table', {id: 'queues'}, el('thead', null, head),
                el('tbody', null, rows.length ? rows
                    : el('tr', null, el('td', {colspan: 12, 'class': 'muted'}, 'No jobs yet.')))))
        ];
        content = content.concat(clusterSection(overview));
        if (overview.schedules.length) {
            content.push(el('h2', null, 'Schedules'));
            content.push(el('div', {'class': 'panel'}, el('table', {id: 'schedules'},
                el('thead', null, el('tr', null, ['Name', 'Handler', 'When', 'Next run', 'Last fired', 'Last job', '']
                    .map(function (title) { return el('th', null, title); }))),
                el('tbody', null, overview.schedules.map(scheduleRow)))));
        }
        var reads = readsNote(overview.reads);
        if (reads) {
            content.push(reads);
        }
        content.push(el('p', {'class': 'note', id: 'counted'}, countedNote(overview)));
        show(content);
    }

    // Where counts and lists were read: nothing is said without a read replica.
    function readsText(reads) {
        if (!reads || !reads.replica) {
            return '';
        }
        var behind = reads.behindMillis === null ? null
            : reads.behindMillis < 1000 ? 'less than 1 s' : age(reads.behindMillis);
        var states = {
            CAUGHT_UP: 'caught up',
            BEHIND: behind === null ? 'behind, how far unknown' : 'at most ' + behind + ' behind',
            REPLAY_PAUSED: 'its replay is paused, ' + (behind === null ? 'how far behind unknown'
                : reads.behindMillis === 0 ? 'nothing behind yet' : 'at most ' + behind + ' behind'),
            NOT_RECEIVING: 'it receives nothing from the primary: how far behind is unknown',
            NOT_A_REPLICA: 'it is not a standby: how far behind is unknown',
            UNKNOWN: 'how far behind is unknown',
            UNREACHABLE: 'it could not be asked how far behind it is'
        };
        return 'Read from the replica, ' + (states[reads.state] || reads.state) + '.';
    }

    function readsNote(reads) {
        var text = readsText(reads);
        return text ? el('p', {'class': 'note', id: 'reads', title: reads.detail || ''}, text) : null;
    }

    function countedNote(overview) {
        return 'Counted at ' + time(overview.countedAt)
            + '; refreshes every ' + Math.round(settings.refreshMillis / 1000) + ' s. Workers are those of this instance'
            + (overview.instance ? ' (' + overview.instance + ')' : ', which runs no jobs')
            + '; other instances keep their own. A queue whose oldest due job waited over 5 minutes is marked.';
    }

    // What the overview last drew, but its times: a refresh that brings nothing new only updates the notes.
    var drawnOverview = null;

    function overviewKey(overview, tables) {
        return JSON.stringify([Object.assign({}, overview, {countedAt: null, reads: readsText(overview.reads) !== ''}),
            Object.assign({}, tables, {readAt: null, readingAgeMillis: null})]);
    }

    // The overview and the tables' health the server put in the page, drawn at once by the first
    // overview the page shows (no "Loading…" until a first fetch); later ones fetch.
    var firstPaint = (function () {
        var data = document.getElementById('sqlqueue-first-paint');
        try {
            return data ? JSON.parse(data.textContent) : null;
        } catch (ignored) {
            return null;
        }
    }());

    function overviewReads() {
        var first = firstPaint;
        firstPaint = null;
        if (first) {
            return Promise.resolve([first.overview, first.tables]);
        }
        // The tables' health is read on the queue's schedule; a failure to fetch it leaves the overview whole.
        var tables = get('api/tables').catch(function (error) { return {error: error.message}; });
        return Promise.all([get('api/overview'), tables]);
    }

    function overviewPage() {
        var mine = routes;
        return overviewReads().then(function (both) {
            if (mine !== routes) {
                return false;
            }
            var key = overviewKey(both[0], both[1]);
            var counted = document.getElementById('counted');
            var tablesNote = document.getElementById('tables-note');
            if (key === drawnOverview && counted && tablesNote) {
                // Redrawing the same rows would only lose the reader's selection and scroll.
                counted.textContent = countedNote(both[0]);
                tablesNote.textContent = tablesNoteText(both[1]);
                var readsShown = document.getElementById('reads');
                if (readsShown) {
                    readsShown.textContent = readsText(both[0].reads);
                    readsShown.title = both[0].reads.detail || '';
                }
            } else {
                renderOverview(both[0]);
                append(main, tablesPanel(both[1]));
                drawnOverview = key;
            }
            return true;
        }).then(function (drawn) {
            if (drawn) {
                timer = setTimeout(route, settings.refreshMillis);
            }
        });
    }

    // --- Table health: the queue's tables and what holds the database's horizon back

    function bytes(value) {
        if (value === null || value === undefined) {
            return '–';
        }
        var units = ['B', 'kB', 'MB', 'GB', 'TB'];
        var unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return (unit === 0 ? value : value.toFixed(1)) + ' ' + units[unit];
    }

    function count(value) {
        return value === null || value === undefined ? '–' : value.toLocaleString();
    }

    function holderRow(holder) {
        return el('tr', {'data-holder': holder.kind + '-' + (holder.pid !== null ? holder.pid : holder.name)},
            el('td', null, holder.kind),
            el('td', {'class': 'num'}, holder.pid === null ? '' : String(holder.pid)),
            el('td', null, holder.name || ''),
            el('td', null, holder.application || ''),
            el('td', null, holder.state || ''),
            el('td', {'class': 'num'}, holder.ageMillis === null ? '–' : age(holder.ageMillis)),
            el('td', {'class': 'num'}, count(holder.xminAge)));
    }

    function tablesNoteText(health) {
        if (health.error) {
            return 'Not available: ' + health.error;
        }
        var note = health.readAt === null ? 'Not read on this instance (it runs no maintenance).'
            : 'Read at ' + time(health.readAt) + ' (' + age(health.readingAgeMillis) + ' ago), from the '
                + health.database + ' catalogs.';
        // Only a database that reports its tables reports holders too (H2 and SQLite report neither).
        if (health.tables.length && !health.holders.length) {
            note += ' Nothing holds the horizon back.';
        }
        if (health.historyLength !== null) {
            note += ' Undo history not purged: ' + count(health.historyLength) + '.';
        }
        if (health.notReported.length) {
            note += ' Not reported: ' + health.notReported.join(', ') + '.';
        }
        if (health.failure) {
            note += ' The last reading failed: ' + health.failure;
        }
        return note;
    }

    function tablesPanel(health) {
        var content = [el('h2', null, 'Table health')];
        if (health.error) {
            content.push(el('p', {'class': 'muted', id: 'tables-note'}, tablesNoteText(health)));
            return el('section', {id: 'table-health'}, content);
        }
        if (health.tables.length) {
            content.push(el('div', {'class': 'panel'}, el('table', {id: 'tables'},
                el('thead', null, el('tr', null, el('th', null, 'Table'), ['Rows', 'Dead rows', 'Data', 'Indexes', 'Free']
                    .map(function (title) { return el('th', {'class': 'num'}, title); }))),
                el('tbody', null, health.tables.map(function (table) {
                    return el('tr', {'data-table': table.name}, el('td', null, table.name),
                        el('td', {'class': 'num'}, count(table.liveRows)),
                        el('td', {'class': 'num'}, count(table.deadRows)),
                        el('td', {'class': 'num'}, bytes(table.dataBytes)),
                        el('td', {'class': 'num'}, bytes(table.indexBytes)),
                        el('td', {'class': 'num'}, bytes(table.freeBytes)));
                })))));
        }
        if (health.holders.length) {
            content.push(el('h2', null, 'Holding the horizon back'));
            content.push(el('div', {'class': 'panel'}, el('table', {id: 'holders'},
                el('thead', null, el('tr', null, ['Kind', 'Pid', 'Name', 'Application', 'State', 'Open for', 'Xmin age']
                    .map(function (title) { return el('th', null, title); }))),
                el('tbody', null, health.holders.map(holderRow)))));
        }
        content.push(el('p', {'class': 'note', id: 'tables-note'}, tablesNoteText(health)));
        return el('section', {id: 'table-health'}, content);
    }

    // --- Jobs

    // The parts of a jobs filter, as the API takes them (FilterText): one value each here.
    var FILTERS = ['queue', 'handler', 'status', 'search', 'batch', 'tags', 'meta', 'payload', 'createdFrom',
        'createdBefore', 'parked'];

    function filterQuery(filters) {
        var query = new URLSearchParams();
        FILTERS.forEach(function (key) {
            if (filters[key]) {
                query.set(key, filters[key]);
            }
        });
        return query;
    }

    function jobsPage(params) {
        var filters = {};
        FILTERS.forEach(function (key) { filters[key] = params.get(key) || ''; });
        var query = filterQuery(filters);
        ['before', 'after'].forEach(function (key) {
            if (params.get(key)) {
                query.set(key, params.get(key));
            }
        });
        query.set('limit', String(settings.pageSize));
        return get('api/jobs?' + query.toString()).then(function (page) {
            renderJobs(filters, page);
        });
    }

    function filterForm(filters) {
        function input(name, label, placeholder, style) {
            return el('label', null, label, el('input', {name: name, value: filters[name], placeholder: placeholder,
                'class': style || null, autocomplete: 'off'}));
        }
        // PARKED is no state of its own (a parked job is QUEUED): it is the filter's 'parked'.
        var status = el('select', {name: 'status'}, el('option', {value: ''}, 'any'), STATES.map(function (state) {
            return el('option', {value: state, selected: filters.status === state && filters.parked !== 'true'
                ? 'selected' : null}, state);
        }), el('option', {value: 'PARKED', selected: filters.parked === 'true' ? 'selected' : null,
            title: 'QUEUED, parked on a durable sleep or a wait for a signal'}, 'PARKED'));
        var form = el('form', {'class': 'filters', id: 'filters'},
            input('queue', 'Queue', 'any'),
            input('handler', 'Handler', 'any'),
            el('label', null, 'State', status),
            input('search', 'Id, unique key or group key', 'exact match', 'search'),
            input('tags', 'Tags', 'a,b (all of them)'),
            input('meta', 'Meta', 'name=value'),
            input('payload', 'Payload field', 'customer.id=7'),
            input('createdFrom', 'Created from', 'e.g. 2026-11-27T08:00:00Z', 'instant'),
            input('createdBefore', 'Created before', 'e.g. 2026-11-28T00:00:00Z', 'instant'),
            filters.batch ? el('input', {type: 'hidden', name: 'batch', value: filters.batch}) : '',
            el('button', {type: 'submit', id: 'apply', 'class': 'primary'}, 'Apply'),
            el('button', {type: 'button', id: 'reset', onclick: function () { location.hash = '#/jobs'; }}, 'Clear'));
        form.addEventListener('submit', function (event) {
            event.preventDefault();
            var data = new FormData(form);
            var chosen = {};
            FILTERS.forEach(function (key) {
                var value = data.get(key);
                chosen[key] = (key === 'meta' || key === 'payload') ? (value || '') : (value || '').trim();
            });
            if (chosen.status === 'PARKED') {
                chosen.status = '';
                chosen.parked = 'true';
            }
            location.hash = jobsLink(chosen);
        });
        return form;
    }

    function jobRow(job) {
        var keys = [job.uniqueKey ? 'unique: ' + job.uniqueKey : '', job.groupKey ? 'group: ' + job.groupKey : '']
            .filter(Boolean).join(', ');
        return el('tr', {'data-job-id': job.id},
            el('td', {'class': 'num'}, el('a', {href: '#/jobs/' + job.id}, '#' + job.id)),
            el('td', null, job.queue),
            el('td', null, job.handler),
            el('td', null, job.worker ? [badge(job.status), ' ', el('span', {'class': 'worker',
                title: 'the instance that holds it'}, 'on ' + job.worker)] : jobBadge(job)),
            // A park spends no attempt: a parked job's run is one more than the row counts, as its page says.
            el('td', {'class': 'num attempts'}, (job.parked ? job.attempts + 1 : job.attempts) + ' / ' + job.maxAttempts),
            el('td', null, time(job.createdAt)),
            el('td', null, time(job.finishedAt)),
            el('td', null, keys),
            el('td', {'class': 'tags'}, job.tags.map(function (tag) {
                return el('a', {'class': 'tag', href: jobsLink({tags: tag}), title: 'jobs with this tag'}, tag);
            })),
            errorCell(job));
    }

    // A job that failed for good shows its error in red; any other one that has an error kept
    // it from an earlier attempt (a succeeded job keeps its last failed attempt's error), shown
    // as such and not as a failure.
    function errorCell(job) {
        if (!job.errorHead || job.status === 'FAILED') {
            return el('td', {'class': 'error'}, firstLine(job.errorHead));
        }
        return el('td', {'class': 'earlier-error'}, 'an earlier attempt failed: ' + firstLine(job.errorHead));
    }

    function jobsTable(id, jobs) {
        var head = el('tr', null, ['Id', 'Queue', 'Handler', 'State', 'Attempts', 'Created', 'Finished', 'Keys',
            'Tags', 'Last error'].map(function (title) { return el('th', null, title); }));
        return el('div', {'class': 'panel'}, el('table', {id: id}, el('thead', null, head),
            el('tbody', null, jobs.length ? jobs.map(jobRow)
                : el('tr', null, el('td', {colspan: 10, 'class': 'muted'}, 'No jobs match.')))));
    }

    function renderJobs(filters, page) {
        var content = [el('h1', null, 'Jobs'), filterForm(filters)];
        if (filters.batch) {
            content.push(el('p', {id: 'batch-filter'}, 'Jobs of ', el('a', {href: '#/batches/' + filters.batch},
                'batch #' + filters.batch), ' (', el('a', {href: jobsLink(Object.assign({}, filters, {batch: ''}))},
                'all jobs'), ')'));
        }
        if (settings.actions && filters.status === 'FAILED' && (filters.queue || filters.handler)) {
            content.push(el('p', null, actionButton('Retry all failed jobs of this '
                + (filters.queue && filters.handler ? 'queue and handler' : filters.queue ? 'queue' : 'handler'),
                'api/jobs/retry-failed?' + new URLSearchParams({queue: filters.queue, handler: filters.handler}).toString(),
                'retry-all-failed', 'danger')));
        }
        if (settings.actions && FILTERS.some(function (key) { return filters[key]; })) {
            content.push(bulkPanel(filters));
        }
        var reads = readsNote(page.reads);
        if (reads) {
            content.push(reads);
        }
        content.push(jobsTable('jobs', page.jobs));
        var pager = el('div', {'class': 'pager'});
        if (page.newer !== null) {
            append(pager, el('a', {href: jobsLink(Object.assign({}, filters, {after: page.newer})), id: 'newer'}, '← Newer'));
            append(pager, el('a', {href: jobsLink(filters), id: 'newest'}, 'Newest'));
        }
        if (page.older !== null) {
            append(pager, el('a', {href: jobsLink(Object.assign({}, filters, {before: page.older})), id: 'older'}, 'Older →'));
        }
        content.push(pager);
        show(content);
    }

    // A bulk action asks first: it counts the jobs the filter matches now and says what it
    // will do to them, and acts only when that is confirmed. The server refuses a bulk
    // action without a filter whatever the page sends.
    var BULK = [['retry', 'Retry', 'queue the failed ones of'], ['cancel', 'Cancel', 'cancel'],
        ['delete', 'Delete', 'delete the finished ones of']];

    function bulkPanel(filters) {
        var confirmation = el('div', {id: 'bulk-confirm', 'class': 'confirm', hidden: 'hidden'});
        var buttons = BULK.map(function (action) {
            var button = el('button', {type: 'button', id: 'bulk-' + action[0], 'class': 'danger'},
                action[1] + ' matching…');
            button.addEventListener('click', function () { askBulk(filters, action, confirmation); });
            return button;
        });
        return el('div', {'class': 'panel bulk', id: 'bulk'}, el('span', null, 'Every job that matches: '), buttons,
            confirmation);
    }

    function askBulk(filters, action, confirmation) {
        var query = filterQuery(filters).toString();
        get('api/jobs/count?' + query).then(function (counted) {
            confirmation.textContent = '';
            confirmation.hidden = false;
            var jobs = counted.count.toLocaleString('en') + ' job' + (counted.count === 1 ? '' : 's');
            var go = el('button', {type: 'button', id: 'bulk-go', 'class': 'danger'}, action[1] + ' ' + jobs);
            var keep = el('button', {type: 'button', id: 'bulk-keep'}, 'Keep them');
            go.addEventListener('click', function () {
                go.disabled = true;
                act('api/bulk/' + action[0] + '?' + query, go);
            });
            keep.addEventListener('click', function () { confirmation.hidden = true; });
            var where = readsText(counted.reads);
            append(confirmation, [el('p', {id: 'bulk-count'}, 'This will ' + action[2] + ' ' + jobs
                + ' that match the filter now, 500 per transaction. Jobs in another state are skipped.'
                + (where ? ' Counted on the replica (' + where.replace(/^Read from the replica, /, '')
                    .replace(/\.$/, '') + '): the action itself walks the primary.' : '')),
                go, ' ', keep]);
        }).catch(function (error) { flash(error.message, true); });
    }

    // --- One job

    function renderJob(job) {
        var actions = [];
        if (settings.actions) {
            if (job.actions.indexOf('retry') >= 0) {
                actions.push(actionButton('Retry', 'api/jobs/' + job.id + '/retry', 'retry', 'primary'));
            }
            if (job.actions.indexOf('cancel') >= 0) {
                actions.push(actionButton('Cancel', 'api/jobs/' + job.id + '/cancel', 'cancel', 'danger'));
            }
        }
        function fact(label, value) {
            return [el('dt', null, label), el('dd', null, value === null || value === undefined || value === '' ? '–' : value)];
        }
        var content = [
            el('h1', null, 'Job #' + job.id, el('span', {id: 'job-status'}, jobBadge(job)), actions),
            job.handlerNotice ? el('div', {'class': 'panel notice', id: 'handler-notice'}, job.handlerNotice) : null,
            job.parked ? el('div', {'class': 'panel notice', id: 'parked'}, 'Parked: ' + waitText(job.parked)
                + '. It holds no worker; it is due again then' + (job.parked.kind === 'SIGNAL'
                    ? ', or as soon as the signal comes.' : '.')) : null,
            el('div', {'class': 'panel'}, el('dl', {'class': 'facts'},
                fact('Queue', el('a', {href: jobsLink({queue: job.queue})}, job.queue)),
                fact('Handler', el('a', {href: jobsLink({handler: job.handler})}, job.handler)),
                // A park spends no attempt: the row counts one fewer than the run that parked.
                fact('Attempts', el('span', {id: 'attempts'}, job.currentAttempt + ' of ' + job.maxAttempts
                    + (job.currentAttempt !== job.attempts ? ' (parked: a park spends no attempt)' : ''))),
                fact('Priority', job.priority),
                fact('Unique key', job.uniqueKey),
                fact('Group key', job.groupKey),
                fact('Due', time(job.runAt)),
                fact('Created', time(job.createdAt)),
                fact('Started', time(job.startedAt)),
                fact('Finished', time(job.finishedAt)),
                // Only a running job holds a worker; the row keeps the last one after a run.
                job.worker ? fact('Worker', el('span', {id: 'worker'}, job.worker)) : null,
                job.worker ? fact('Lease until', time(job.leaseExpiresAt)) : null)),
            el('h2', null, 'Timeline'),
            el('div', {'class': 'panel'}, el('ol', {'class': 'timeline', id: 'timeline'}, job.timeline.map(function (event) {
                return el('li', {'class': event.event}, el('span', {'class': 'when'}, preciseTime(event.at)),
                    el('span', null, event.text, event.about ? ' ' + time(event.about) : '',
                        event.owner ? ' on ' + event.owner : '',
                        event.error ? el('span', {'class': 'attempt-error', title: event.error}, firstLine(event.error)) : ''));
            })))
        ];
        content.push(progressSection(job));
        if (job.lastError) {
            // Only a job that failed for good shows its error as a failure (errorCell).
            var failed = job.status === 'FAILED';
            content.push(el('h2', null, failed ? 'Last error' : 'An earlier attempt failed:'));
            content.push(el('div', {'class': 'panel'}, el('pre', {'class': failed ? 'error' : 'earlier-error',
                id: 'last-error'}, job.lastError)));
        }
        if (job.result !== null && job.result !== undefined) {
            content.push(el('h2', null, 'Result'));
            content.push(el('div', {'class': 'panel'}, el('pre', {id: 'result'}, pretty(job.result))));
        }
        if (job.workflow) {
            content.push(workflowSection(job));
        }
        content.push(el('h2', null, 'Payload'));
        content.push(job.payloadShown ? el('div', {'class': 'panel'}, el('pre', {id: 'payload'}, pretty(job.payload)))
            : el('p', {'class': 'muted', id: 'payload'},
                'Hidden: payloads may hold personal data (set management.endpoint.sqlqueue.show-payload=true to show them).'));
        show(content);
    }

    // A job's durable progress (docs/durable-steps.md): what its runs recorded, and the signals
    // sent to it; a signal's payload only where payloads are shown.
    function progressSection(job) {
        if (!job.steps.length && !job.signals.length) {
            return null;
        }
        function head(titles) {
            return el('thead', null, el('tr', null, titles.map(function (title) { return el('th', null, title); })));
        }
        // A failed job's records each offer the way out of a replay mismatch: a retry from there.
        var retryFrom = settings.actions && job.actions.indexOf('retry-from') >= 0;
        var confirmation = retryFrom ? el('div', {id: 'retry-from-confirm', 'class': 'confirm', hidden: 'hidden'}) : '';
        var steps = job.steps.map(function (step, index) {
            var from = null;
            if (retryFrom) {
                from = el('button', {type: 'button', 'class': 'danger small retry-from', 'data-record': index + 1},
                    'Retry from here');
                from.addEventListener('click', function () { askRetryFrom(job, index + 1, confirmation); });
            }
            return el('tr', null, el('td', null, step.kind), el('td', null, step.name),
                el('td', {'class': 'json'}, step.kind === 'STEP' ? JSON.stringify(step.result) : ''),
                el('td', null, step.wakeAt ? time(step.wakeAt) + (step.timedOut ? ' (timed out)' : '') : ''),
                el('td', null, preciseTime(step.recordedAt)), retryFrom ? el('td', null, from) : null);
        });
        var signals = job.signals.map(function (signal) {
            return el('tr', null, el('td', null, signal.name),
                el('td', {'class': 'json'}, job.payloadShown ? JSON.stringify(signal.payload) : 'hidden'),
                el('td', null, preciseTime(signal.sentAt)));
        });
        return [el('h2', null, 'Steps and signals'),
            steps.length ? el('div', {'class': 'panel'}, el('table', {id: 'steps'},
                head(['Kind', 'Name', 'Result', 'Wakes at', 'Recorded'].concat(retryFrom ? [''] : [])),
                el('tbody', null, steps)), confirmation) : '',
            signals.length ? el('div', {'class': 'panel progress-signals'}, el('table', {id: 'signals'},
                head(['Signal', 'Payload', 'Sent']), el('tbody', null, signals))) : ''];
    }

    // A retry from a record asks first, as a bulk action does: it deletes records, and the
    // bodies of the steps among them run again (docs/durable-steps.md#the-operators-way-out).
    function askRetryFrom(job, record, confirmation) {
        var last = job.steps.length;
        confirmation.textContent = '';
        confirmation.hidden = false;
        var go = el('button', {type: 'button', id: 'retry-from-go', 'class': 'danger'}, 'Retry from record ' + record);
        var keep = el('button', {type: 'button', id: 'retry-from-keep'}, 'Keep them');
        go.addEventListener('click', function () {
            go.disabled = true;
            act('api/jobs/' + job.id + '/retry-from?record=' + record, go);
        });
        keep.addEventListener('click', function () { confirmation.hidden = true; });
        var deleted = record === last ? 'record ' + record : 'records ' + record + ' to ' + last;
        var replayed = record === 1 ? 'starts afresh' : 'replays ' + (record === 2 ? 'record 1'
            : 'records 1 to ' + (record - 1)) + ' and runs on from there';
        append(confirmation, [el('p', {id: 'retry-from-text'}, 'This deletes ' + deleted + ' and queues the job '
            + 'again: its next run ' + replayed + ', running the bodies of the deleted steps again.'), go, ' ', keep]);
    }

    // --- Workflows: a job's dependencies, dependents, batch and the graph around it; a batch's progress

    function jobLink(linked, current) {
        return el('span', {'class': 'node' + (linked.id === current ? ' self' : ''), 'data-node': linked.id},
            el('a', {href: '#/jobs/' + linked.id}, '#' + linked.id), ' ', linked.handler, ' ', badge(linked.status));
    }

    function batchLine(batch, label) {
        return el('p', {'class': 'batch-line'}, label + ' ', el('a', {href: '#/batches/' + batch.id, id: 'batch-link'},
            'batch #' + batch.id), ': ' + (batch.total - batch.pending) + ' of ' + batch.total + ' finished ('
            + batch.succeeded + ' succeeded, ' + batch.failed + ' failed, ' + batch.cancelled + ' cancelled)');
    }

    function workflowSection(job) {
        var flow = job.workflow;
        var facts = el('dl', {'class': 'facts', id: 'workflow-facts'},
            el('dt', null, 'Waits for'), el('dd', {id: 'waiting-for'}, flow.waitingFor === 0 ? 'nothing'
                : flow.waitingFor + (flow.waitingFor === 1 ? ' job' : ' jobs')),
            el('dt', null, 'Runs after'), el('dd', {id: 'dependencies'}, flow.dependencies.length
                ? flow.dependencies.map(function (d) { return jobLink(d, job.id); }) : '–'),
            el('dt', null, 'Runs before'), el('dd', {id: 'dependents'}, flow.dependents.length
                ? flow.dependents.map(function (d) { return jobLink(d, job.id); }) : '–'),
            flow.callbackOf ? [el('dt', null, 'If a batch job fails'), el('dd', {id: 'on-failure'},
                'runs anyway: a callback runs once every job of its batch has ended, however it ended')] : '',
            !flow.callbackOf || flow.dependencies.length ? [el('dt', null, 'If a dependency fails'),
                el('dd', {id: flow.callbackOf ? 'on-dependency-failure' : 'on-failure'},
                    flow.onDependencyFailure === 'RUN' ? 'runs anyway' : 'is cancelled')] : '');
        var levels = el('ol', {'class': 'levels', id: 'workflow-graph'}, flow.levels.map(function (level, index) {
            return el('li', null, el('span', {'class': 'level'}, 'Level ' + (index + 1)),
                level.map(function (linked) { return jobLink(linked, job.id); }));
        }));
        return [el('h2', null, 'Workflow'), el('div', {'class': 'panel'}, facts,
            flow.batch ? batchLine(flow.batch, 'Member of') : '',
            flow.callbackOf ? batchLine(flow.callbackOf, 'Callback of') : '',
            levels, flow.truncated ? el('p', {'class': 'note'}, 'The workflow has more jobs than shown.') : '')];
    }

    // The batch's counts, each a link to its jobs in that state, and its newest jobs (one page;
    // the list pages through the rest).
    function renderBatch(batch, members) {
        function count(id, value, status) {
            return el('dd', {id: id}, value ? el('a', {href: jobsLink({batch: batch.id, status: status})},
                String(value)) : '0');
        }
        var finished = batch.total - batch.pending;
        function part(state, count) {
            return count ? el('span', {'class': state, style: null, 'data-count': count}) : '';
        }
        var bar = el('div', {'class': 'progress', id: 'batch-progress', title: finished + ' of ' + batch.total + ' finished'},
            part('SUCCEEDED', batch.succeeded), part('FAILED', batch.failed), part('CANCELLED', batch.cancelled));
        Array.prototype.forEach.call(bar.children, function (span) {
            span.style.width = (100 * parseInt(span.getAttribute('data-count'), 10) / batch.total) + '%';
        });
        show([
            el('h1', null, 'Batch #' + batch.id),
            el('div', {'class': 'panel'}, bar, el('dl', {'class': 'facts', id: 'batch-facts'},
                el('dt', null, 'Jobs'), count('batch-total', batch.total, ''),
                el('dt', null, 'Succeeded'), count('batch-succeeded', batch.succeeded, 'SUCCEEDED'),
                el('dt', null, 'Failed'), count('batch-failed', batch.failed, 'FAILED'),
                el('dt', null, 'Cancelled'), count('batch-cancelled', batch.cancelled, 'CANCELLED'),
                el('dt', null, 'Pending'), el('dd', {id: 'batch-pending'}, batch.pending),
                el('dt', null, 'Callback'), el('dd', {id: 'batch-callback'}, batch.callbackId === null ? '–'
                    : el('a', {href: '#/jobs/' + batch.callbackId}, '#' + batch.callbackId)),
                el('dt', null, 'Created'), el('dd', null, time(batch.createdAt)),
                el('dt', null, 'Finished'), el('dd', {id: 'batch-finished'}, batch.finishedAt ? time(batch.finishedAt)
                    : 'not yet'))),
            el('h2', null, members.older === null ? 'Its jobs' : 'Its newest ' + members.jobs.length + ' jobs'),
            jobsTable('batch-jobs', members.jobs),
            members.older === null ? '' : el('div', {'class': 'pager'}, el('a', {href: jobsLink({batch: batch.id}),
                id: 'batch-all'}, 'All ' + batch.total.toLocaleString() + ' jobs of the batch →'))
        ]);
    }

    function batchPage(id) {
        var mine = routes;
        var members = 'api/jobs?' + new URLSearchParams({batch: id, limit: String(settings.pageSize)}).toString();
        return Promise.all([get('api/batches/' + encodeURIComponent(id)), get(members)]).then(function (both) {
            if (mine !== routes) {
                return;
            }
            var batch = both[0];
            renderBatch(batch, both[1]);
            if (batch.pending > 0) {
                timer = setTimeout(route, Math.min(settings.refreshMillis, 2000));
            }
        });
    }

    function jobPage(id) {
        var mine = routes;
        return get('api/jobs/' + encodeURIComponent(id)).then(function (job) {
            if (mine !== routes) {
                return;
            }
            renderJob(job);
            if (job.status === 'WAITING' || job.status === 'QUEUED' || job.status === 'RUNNING') {
                timer = setTimeout(route, Math.min(settings.refreshMillis, 2000));
            }
        });
    }

    // --- The audit log: who did what to which queue, job or schedule, and when

    function auditTarget(entry) {
        var parts = [];
        if (entry.queue) {
            parts.push(el('span', null, 'queue ', el('a', {href: jobsLink({queue: entry.queue})}, entry.queue)));
        }
        if (entry.jobId !== null && entry.jobId !== undefined) {
            parts.push(el('span', null, 'job ', el('a', {href: '#/jobs/' + entry.jobId}, '#' + entry.jobId)));
        }
        if (entry.schedule) {
            parts.push(el('span', null, 'schedule ' + entry.schedule));
        }
        return parts.length ? parts.reduce(function (all, part, index) {
            return index ? all.concat([', ', part]) : [part];
        }, []) : '–';
    }

    function renderAudit(entries) {
        var head = el('tr', null, ['When', 'Who', 'Action', 'On', 'Jobs', 'Detail'].map(function (title) {
            return el('th', null, title);
        }));
        var rows = entries.length ? entries.map(function (entry) {
            return el('tr', null,
                el('td', null, preciseTime(entry.at)),
                el('td', null, entry.actor || el('span', {'class': 'muted'}, 'unnamed')),
                el('td', null, entry.action),
                el('td', null, auditTarget(entry)),
                el('td', {'class': 'num'}, String(entry.jobs)),
                el('td', null, entry.detail || ''));
        }) : el('tr', null, el('td', {colspan: 6, 'class': 'muted'}, 'No operator actions yet.'));
        show([el('h1', null, 'Audit log'),
            el('p', {'class': 'muted'}, 'Operator actions that changed something, newest first, from every instance.'),
            el('div', {'class': 'panel'}, el('table', {id: 'audit'}, el('thead', null, head), el('tbody', null, rows)))]);
    }

    function auditPage() {
        var mine = routes;
        return get('api/audit').then(function (entries) {
            if (mine === routes) {
                renderAudit(entries);
            }
        });
    }

    // --- routing: #/ (overview), #/jobs?filters, #/jobs/{id}, #/batches/{id}, #/audit

    function route() {
        routes++;
        if (routes > 1) {
            // Only the page's first route may draw what the page carried: later, it is old.
            firstPaint = null;
        }
        if (timer) {
            clearTimeout(timer);
            timer = null;
        }
        var hash = location.hash.replace(/^#/, '') || '/';
        var path = hash.split('?')[0];
        var params = new URLSearchParams(hash.indexOf('?') >= 0 ? hash.slice(hash.indexOf('?') + 1) : '');
        document.getElementById('nav-overview').className = path === '/' ? 'current' : '';
        document.getElementById('nav-jobs').className = path.indexOf('/jobs') === 0 ? 'current' : '';
        document.getElementById('nav-audit').className = path === '/audit' ? 'current' : '';
        var page;
        var job = /^\/jobs\/(\d+)$/.exec(path);
        var batch = /^\/batches\/(\d+)$/.exec(path);
        if (job) {
            page = jobPage(job[1]);
        } else if (batch) {
            page = batchPage(batch[1]);
        } else if (path === '/jobs') {
            page = jobsPage(params);
        } else if (path === '/audit') {
            page = auditPage();
        } else {
            page = overviewPage();
        }
        return page.catch(function (error) {
            show(el('p', {'class': 'flash bad', id: 'error'}, error.message));
        });
    }

    var mode = document.getElementById('mode');
    mode.textContent = settings.actions ? 'actions on' : 'read-only';
    mode.className = settings.actions ? 'mode on' : 'mode';
    if (settings.actionsOff) {
        mode.setAttribute('title', settings.actionsOff);
    }
    window.addEventListener('hashchange', function () {
        clearFlash();
        route();
    });
    route();
}());
